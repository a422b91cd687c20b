/* series.h - the per-step time series (series.csv): one header and one row
 * format, shared by `ndem run` and ndemd so both write the same file. */
#ifndef NDEM_SERIES_H
#define NDEM_SERIES_H

#include "ndem.h"

#include <stddef.h>

/* The header line, newline included. */
extern const char ndem_series_header[];

/* Formats one row (newline included) into buf like snprintf: returns the
 * length it needs. */
int ndem_series_row(char *buf, size_t len, const ndem_step_stats *s);

#endif
