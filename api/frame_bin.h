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
 * then, for each field bit set, in this order, float32 arrays:
 *   bit 0 positions (3 n), bit 1 radii (n), bit 2 scalar (n),
 *   bit 3 velocities (3 n), bit 4 angular velocities (3 n). */
#ifndef NDEM_FRAME_BIN_H
#define NDEM_FRAME_BIN_H

#include "ndem.h"

#include <stddef.h>
#include <stdint.h>

#define NDEM_FRAME_MAGIC "NDF1"
#define NDEM_FRAME_HEADER 48u
#define NDEM_FRAME_POSITIONS 1u
#define NDEM_FRAME_RADII 2u
#define NDEM_FRAME_SCALAR 4u
#define NDEM_FRAME_VELOCITIES 8u
#define NDEM_FRAME_ANGULAR 16u
#define NDEM_FRAME_STREAM (NDEM_FRAME_POSITIONS | NDEM_FRAME_RADII | NDEM_FRAME_SCALAR)
#define NDEM_FRAME_ALL 31u
#define NDEM_FRAME_FLAG_CRC 1u

/* Bytes needed for a frame of n particles with the given fields. */
size_t ndem_frame_bin_size(long n, uint32_t fields);
/* Encodes into buf (of ndem_frame_bin_size bytes), without CRC; returns
 * bytes written. */
size_t ndem_frame_bin_encode(const ndem_frame *f, long index, uint32_t fields, void *buf);
/* Sets the CRC and its flag of an encoded record: every stored record is
 * sealed; stream messages are not (they cost the simulation thread, and
 * TCP already checks them). */
void ndem_frame_bin_seal(void *buf, size_t len);
/* Checks one whole record: magic, length against its header, and the CRC
 * when the record has one. 0 when sound; else -1 and why (e.g. "truncated:
 * 1200 of 4448 bytes", "checksum mismatch"). */
int ndem_frame_bin_check(const void *buf, size_t len, char *why, size_t why_len);

#endif
