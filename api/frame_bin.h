/* frame_bin.h - the binary frame format (docs/frames.md), shared by the
 * command line's frame files and the daemon's WebSocket stream.
 *
 * Little-endian. A 48-byte header:
 *   0  char[4] magic "NDF1"     4  u32 header size (48)
 *   8  u32 frame index         12  u32 particle count
 *  16  i64 step                24  f64 time (s)
 *  32  u32 fields (bit set)    36  u32 scalar kind (1 = speed, m/s)
 *  40  u32 CRC-32C of the record (this field counted as 0)
 *  44  u32 flags: bit 0 = the CRC is set (0 in records of older writers)
 * then, for each field bit set, in this order:
 *   bit 0 positions (3 n f32), bit 1 radii (n f32), bit 2 scalar (n f32),
 *   bit 3 velocities (3 n f32), bit 4 angular velocities (3 n f32),
 *   bit 5 materials (n u32),
 *   bit 6 geometry poses: u32 count g, u32 0, then g records of 64 bytes:
 *     u32 geometry index, u32 0, f64 position[3], f64 orientation[4],
 *   bit 7 orientations (4 n f32: w, x, y, z), bit 8 shapes (n i32: a
 *     template index, -1 a plain sphere),
 *   bit 9 box extents: u32 count w, u32 record size (56), then w records:
 *     u32 geometry index, u32 0, f64 min[3], f64 max[3].
 * Bits 0-8 have lengths that follow from the header (and bit 6's count);
 * bit 9 and every later bit is a section "u32 count, u32 record size,
 * count records", so a reader skips the bits it does not know by length
 * (docs/frames.md, "Versions"). */
#ifndef NDEM_FRAME_BIN_H
#define NDEM_FRAME_BIN_H

#include "ndem.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define NDEM_FRAME_MAGIC "NDF1"
#define NDEM_FRAME_HEADER 48u
#define NDEM_FRAME_POSITIONS 1u
#define NDEM_FRAME_RADII 2u
#define NDEM_FRAME_SCALAR 4u
#define NDEM_FRAME_VELOCITIES 8u
#define NDEM_FRAME_ANGULAR 16u
#define NDEM_FRAME_MATERIALS 32u
#define NDEM_FRAME_GEOMETRY 64u
#define NDEM_FRAME_ORIENTATIONS 128u
#define NDEM_FRAME_SHAPES 256u
#define NDEM_FRAME_EXTENTS 512u
/* The bits of this version; later bits are sections skipped by length. */
#define NDEM_FRAME_KNOWN 1023u
/* Everything a writer may set (ndem_frame_bin_fields drops what the frame
 * lacks: orientations and shapes come only with non-spherical particles,
 * extents only with walls). */
#define NDEM_FRAME_ALL NDEM_FRAME_KNOWN
/* What a scene of spheres without walls writes: the frame of earlier versions. */
#define NDEM_FRAME_SPHERES 127u
#define NDEM_FRAME_STREAM                                                                          \
    (NDEM_FRAME_POSITIONS | NDEM_FRAME_RADII | NDEM_FRAME_SCALAR | NDEM_FRAME_MATERIALS |          \
     NDEM_FRAME_GEOMETRY | NDEM_FRAME_ORIENTATIONS | NDEM_FRAME_SHAPES | NDEM_FRAME_EXTENTS)
#define NDEM_FRAME_FLAG_CRC 1u
#define NDEM_FRAME_POSE_BYTES 64u   /* one record of the geometry section */
#define NDEM_FRAME_EXTENT_BYTES 56u /* one record of the extents section */

/* The fields of `fields` that f can fill: materials, geometry poses, shapes
 * and extents only when f holds them (frames decoded from older records do
 * not); orientations only with shapes (a sphere's turn is invisible: 16
 * bytes a particle for nothing). */
uint32_t ndem_frame_bin_fields(const ndem_frame *f, uint32_t fields);
/* Bytes of the per-particle arrays of the fields, per particle (a frame
 * is the header, n times this, and the geometry and extents sections). */
size_t ndem_frame_bin_particle_bytes(uint32_t fields);
/* Bytes of f's record with the given fields (ndem_frame_bin_fields). */
size_t ndem_frame_bin_size(const ndem_frame *f, uint32_t fields);
/* Encodes into buf (of ndem_frame_bin_size bytes), without CRC; returns
 * bytes written. */
size_t ndem_frame_bin_encode(const ndem_frame *f, long index, uint32_t fields, void *buf);
/* Hands the writer the particles first .. first + count - 1 of a frame as a
 * frame of count particles (with the whole frame's geometry, step and
 * time); what it held before may be released. 0, or -1. */
typedef int (*ndem_frame_chunk_fn)(void *arg, long first, long count, ndem_frame *chunk);
/* Writes the sealed record of a frame of n particles to fp at its position,
 * as ndem_frame_bin_encode and ndem_frame_bin_seal would, without the whole
 * record in memory: the particles come from get in chunks of `chunk` (each
 * field in turn, so every chunk is asked for once per field); the CRC is
 * written last. Returns the bytes written, or -1. */
long ndem_frame_bin_write(FILE *fp, long index, long n, uint32_t fields, long chunk,
                          ndem_frame_chunk_fn get, void *arg);
/* Decodes a checked record into f (ndem_frame_free; scalar dropped: it
 * follows from the velocities); 0, or -1 when it is not a whole record or
 * memory runs out. Positions, radii, velocities and angular velocities
 * must be present; materials, poses, orientations, shapes and extents are
 * NULL when absent (extents need the poses: their records name geometry);
 * sections of later versions are skipped. */
int ndem_frame_bin_decode(const void *buf, size_t len, ndem_frame *f, long *index);
/* Sets the CRC and its flag of an encoded record: every stored record is
 * sealed; stream messages are not (they cost the simulation thread, and
 * TCP already checks them). */
void ndem_frame_bin_seal(void *buf, size_t len);
/* Checks one whole record: magic, length against its header, and the CRC
 * when the record has one. 0 when sound; else -1 and why (e.g. "truncated:
 * 1200 of 4448 bytes", "checksum mismatch"). */
int ndem_frame_bin_check(const void *buf, size_t len, char *why, size_t why_len);

#endif
