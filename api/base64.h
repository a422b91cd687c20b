/* base64.h - strict RFC 4648 (section 4) base64: decoding for binary STL
 * inline in job documents, encoding for the frames and checkpoints a Slurm
 * job reports to ndemd (docs/scale-out.md). */
#ifndef NDEM_BASE64_H
#define NDEM_BASE64_H

#include <stddef.h>

/* Decodes len characters: the standard alphabet, length a multiple of 4,
 * '=' padding only at the end, no whitespace, unused bits of the last group
 * zero. *out (free it; NUL-terminated, not counted in *out_len) on success.
 * Returns 0, or -1 with a message naming the offset of the bad character. */
int ndem_base64_decode(const char *in, size_t len, unsigned char **out, size_t *out_len, char *err,
                       size_t err_len);

/* The canonical encoding of len bytes (padded, no line breaks), malloc'd
 * and NUL-terminated; NULL when out of memory. */
char *ndem_base64_encode(const void *in, size_t len);

#endif
