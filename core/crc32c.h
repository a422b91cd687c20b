/* crc32c.h - CRC-32C (Castagnoli), the checksum of checkpoints, frame
 * records and series rows. */
#ifndef NDEM_CRC32C_H
#define NDEM_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues a CRC-32C over len bytes: start with crc = 0, pass the result
 * of one call as crc of the next to checksum data in pieces.
 * ndem_crc32c(0, "123456789", 9) == 0xE3069283. */
uint32_t ndem_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
