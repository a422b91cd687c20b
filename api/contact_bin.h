/* contact_bin.h - the binary contact-network record NDC1 (docs/frames.md,
 * "Contact network"): one frame's contacts (ndem_sim_copy_contacts), what
 * `ndem run` writes as contacts/NNNNNN.ndc and ndemd stores beside its
 * frames; and its exports as CSV and JSON (contact_export.c).
 *
 * Little-endian. A 48-byte header like NDF1's:
 *   0  char[4] magic "NDC1"     4  u32 header size (48)
 *   8  u32 frame index         12  u32 contact count n
 *  16  i64 step                24  f64 time (s)
 *  32  u32 fields (bit set)    36  u32 reserved (0)
 *  40  u32 CRC-32C of the record (this field counted as 0)
 *  44  u32 flags: bit 0 = the CRC is set
 * then, for each field bit set, in this order, arrays of 4-byte values:
 *   bit 0 a, b (n i32 each), bit 1 feature (n i32), bit 2 points (3 n f32),
 *   bit 3 normals (3 n f32), bit 4 normal forces (n f32), bit 5
 *   tangential forces (3 n f32), bit 6 rolling torques (3 n f32). */
#ifndef NDEM_CONTACT_BIN_H
#define NDEM_CONTACT_BIN_H

#include "ndem.h"

#include <stddef.h>
#include <stdint.h>

#define NDEM_CONTACT_MAGIC "NDC1"
#define NDEM_CONTACT_HEADER 48u
#define NDEM_CONTACT_PAIRS 1u
#define NDEM_CONTACT_FEATURE 2u
#define NDEM_CONTACT_POINTS 4u
#define NDEM_CONTACT_NORMALS 8u
#define NDEM_CONTACT_NORMAL_FORCE 16u
#define NDEM_CONTACT_TANGENTIAL 32u
#define NDEM_CONTACT_ROLLING 64u
#define NDEM_CONTACT_ALL 127u
#define NDEM_CONTACT_FLAG_CRC 1u
/* Bytes a contact takes with every field (NDEM_CONTACT_ALL): 16 values of 4
 * bytes; ndem_contact_bin_size(n, NDEM_CONTACT_ALL) is 48 + 64 n. */
#define NDEM_CONTACT_BYTES_ALL 64u
/* Contacts a particle is budgeted in output estimates: above the 2.3 of a
 * settled bed (bench/bed-10k.json; docs/frames.md), each pair counted once. */
#define NDEM_CONTACTS_PER_PARTICLE 3.5

/* Bytes of a record of n contacts with the given fields. */
size_t ndem_contact_bin_size(long n, uint32_t fields);
/* Encodes and seals (CRC set) into buf (ndem_contact_bin_size bytes);
 * returns the bytes written. */
size_t ndem_contact_bin_encode(const ndem_contact_set *s, long index, uint32_t fields, void *buf);
/* Checks one whole record: magic, length against its header, the CRC. 0
 * when sound; else -1 and why ("truncated: 10 of 112 bytes", "checksum
 * mismatch"). */
int ndem_contact_bin_check(const void *buf, size_t len, char *why, size_t why_len);
/* A checked record back into a set (ndem_contact_set_free; fields the
 * record lacks are zeros, feature -1) and its frame index. 0, or -1 when
 * out of memory. */
int ndem_contact_bin_decode(const void *buf, size_t len, ndem_contact_set *out, long *index);

/* Exports (contact_export.c). CSV: a header row
 * "a,b,feature,px,py,pz,nx,ny,nz,fn,ftx,fty,ftz,mrx,mry,mrz", then one row
 * per contact; JSON: {"index", "step", "time", "contacts", then one array
 * per field}. malloc'd text (*len bytes), NULL when out of memory. */
char *ndem_contacts_to_csv(const ndem_contact_set *s, size_t *len);
char *ndem_contacts_to_json(const ndem_contact_set *s, long index, size_t *len);

#endif
