/* frame_motion.h - a frame's motion in full precision (frame_motion.c):
 * what `ndem run --report` sends ndemd, so that the daemon writes the very
 * frame records a local worker would (NDF1 stores float32 and derives the
 * speed from the double velocities: a float32 round trip would change it).
 * Little-endian IEEE doubles: positions (3 n), radii (n), velocities (3 n),
 * angular velocities (3 n); then, when the frame has materials and
 * geometry poses, u32 geometry count g, n i32 materials and 7 g doubles of
 * poses (reports of older clients end before it). */
#ifndef NDEM_FRAME_MOTION_H
#define NDEM_FRAME_MOTION_H

#include "ndem.h"

#include <stddef.h>

/* Bytes of f's motion (its count, materials and poses). */
size_t ndem_frame_motion_size(const ndem_frame *f);
/* Encodes f's motion into buf (ndem_frame_motion_size bytes). */
void ndem_frame_motion_encode(const ndem_frame *f, unsigned char *buf);
/* Fills f's arrays (f->count set by the caller) from len bytes; 0, or -1
 * when len does not fit the count or memory runs out (f freed). */
int ndem_frame_motion_decode(const unsigned char *buf, size_t len, ndem_frame *f);

#endif
