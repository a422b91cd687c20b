/* series.h - the per-step time series (series.csv): one header and one row
 * format, shared by `ndem run` and ndemd so both write the same file. The
 * last column of every row is the CRC-32C of the row's text before it (the
 * comma excluded), 8 lowercase hex digits: a reader keeps the rows that
 * match and stops at the first that does not. */
#ifndef NDEM_SERIES_H
#define NDEM_SERIES_H

#include "ndem.h"

#include <stddef.h>

#define NDEM_SERIES_CRC_COLUMN "crc32c"
/* About the length of one row, CRC included (for output estimates). */
#define NDEM_SERIES_ROW_BYTES 200

/* The header line, newline included. */
extern const char ndem_series_header[];

/* Formats one row (newline and CRC included) into buf like snprintf:
 * returns the length it needs. */
int ndem_series_row(char *buf, size_t len, const ndem_step_stats *s);
/* 1 when a header line (newline optional) ends with the CRC column; files
 * of older writers have none and their rows cannot be checked. */
int ndem_series_has_crc(const char *header, size_t len);
/* 0 when one row (newline optional) matches its CRC, else -1. */
int ndem_series_check_row(const char *row, size_t len);

#endif
