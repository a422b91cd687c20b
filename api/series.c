/* series.c - the series.csv format (series.h; columns in docs/cli.md). */
#include "series.h"

#include "crc32c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char ndem_series_header[] =
    "step,time,particles,contacts,geometry_contacts,impacts,rows,kinetic_energy,"
    "elastic_energy,dissipated_energy,iterations,residual_normal,residual_friction,"
    "residual_rolling,max_overlap,colors,wall_broadphase,wall_narrowphase,wall_solve,"
    "wall_integrate,wall_seconds," NDEM_SERIES_CRC_COLUMN "\n";

#define CRC_FIELD 9 /* ",xxxxxxxx" */

int ndem_series_row(char *buf, size_t len, const ndem_step_stats *s)
{
    int n = snprintf(buf, len,
                     "%ld,%.9g,%ld,%ld,%ld,%ld,%ld,%.9g,%.9g,%.9g,%d,%.6g,%.6g,%.6g,%.6g,%d,%.6g,"
                     "%.6g,%.6g,%.6g,%.6g",
                     s->step, s->time, s->particles, s->contacts, s->geometry_contacts, s->impacts,
                     s->rows, s->kinetic_energy, s->elastic_energy, s->dissipated_energy,
                     s->iterations, s->residual_normal, s->residual_friction, s->residual_rolling,
                     s->max_overlap, s->colors, s->wall_broadphase, s->wall_narrowphase,
                     s->wall_solve, s->wall_integrate, s->wall_total);
    if (n < 0) return n;
    if ((size_t)n + CRC_FIELD + 1 < len)
        snprintf(buf + n, len - (size_t)n, ",%08x\n", (unsigned)ndem_crc32c(0, buf, (size_t)n));
    return n + CRC_FIELD + 1;
}

int ndem_series_has_crc(const char *header, size_t len)
{
    static const char col[] = "," NDEM_SERIES_CRC_COLUMN;
    size_t n = sizeof col - 1;
    while (len > 0 && (header[len - 1] == '\n' || header[len - 1] == '\r')) len--;
    return len >= n && !memcmp(header + len - n, col, n);
}

int ndem_series_check_row(const char *row, size_t len)
{
    if (len > 0 && row[len - 1] == '\n') len--;
    if (len < CRC_FIELD || row[len - CRC_FIELD] != ',') return -1;
    char hex[9], *end;
    memcpy(hex, row + len - 8, 8);
    hex[8] = 0;
    unsigned long want = strtoul(hex, &end, 16);
    if (end != hex + 8) return -1;
    return ndem_crc32c(0, row, len - CRC_FIELD) == (uint32_t)want ? 0 : -1;
}
