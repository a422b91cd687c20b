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

/* The suffixes of a named geometry's columns: six always, three more for a
 * moving one, nine more for a stress-controlled box. */
static const char *const geo_suffix[] = {"fx",
                                         "fy",
                                         "fz",
                                         "tx",
                                         "ty",
                                         "tz",
                                         "x",
                                         "y",
                                         "z",
                                         "stress_x",
                                         "stress_y",
                                         "stress_z",
                                         "size_x",
                                         "size_y",
                                         "size_z",
                                         "motor_stress_x",
                                         "motor_stress_y",
                                         "motor_stress_z"};
#define GEO_MAX 18

/* The columns of g (indices into geo_suffix) into col: their count. */
static int geo_columns(const ndem_series_geo *g, int *col)
{
    int n = 0;
    for (int k = 0; k < GEO_MAX; k++)
        if (k < 6 || (k < 9 && g->moving) || (k >= 9 && g->walls)) col[n++] = k;
    return n;
}

char *ndem_series_header_of(const ndem_series_cols *c)
{
    size_t base = sizeof ndem_series_header - 1 - (sizeof NDEM_SERIES_CRC_COLUMN - 1) - 1;
    size_t len = sizeof ndem_series_header;
    int col[GEO_MAX];
    for (int i = 0; c && i < c->count; i++)
        len += (size_t)geo_columns(&c->geo[i], col) * (strlen(c->geo[i].name) + 10);
    char *h = malloc(len);
    if (!h) return NULL;
    memcpy(h, ndem_series_header, base); /* up to the CRC column */
    size_t at = base;
    for (int i = 0; c && i < c->count; i++) {
        int n = geo_columns(&c->geo[i], col);
        for (int k = 0; k < n; k++)
            at += (size_t)snprintf(h + at, len - at, "%s_%s,", c->geo[i].name, geo_suffix[col[k]]);
    }
    snprintf(h + at, len - at, "%s\n", NDEM_SERIES_CRC_COLUMN);
    return h;
}

int ndem_series_row(char *buf, size_t len, const ndem_step_stats *s, const ndem_series_cols *c)
{
    int n = snprintf(buf, len,
                     "%ld,%.9g,%ld,%ld,%ld,%ld,%ld,%.9g,%.9g,%.9g,%d,%.6g,%.6g,%.6g,%.6g,%d,%.6g,"
                     "%.6g,%.6g,%.6g,%.6g",
                     s->step, s->time, s->particles, s->contacts, s->geometry_contacts, s->impacts,
                     s->rows, s->kinetic_energy, s->elastic_energy, s->dissipated_energy,
                     s->iterations, s->residual_normal, s->residual_friction, s->residual_rolling,
                     s->max_overlap, s->colors, s->wall_broadphase, s->wall_narrowphase,
                     s->wall_solve, s->wall_integrate, s->wall_total);
    for (int i = 0; c && i < c->count && n >= 0; i++) {
        const ndem_series_geo *g = &c->geo[i];
        const double v[GEO_MAX] = {g->force[0],    g->force[1],  g->force[2],    g->torque[0],
                                   g->torque[1],   g->torque[2], g->position[0], g->position[1],
                                   g->position[2], g->stress[0], g->stress[1],   g->stress[2],
                                   g->size[0],     g->size[1],   g->size[2],     g->motor[0],
                                   g->motor[1],    g->motor[2]};
        int col[GEO_MAX], m_cols = geo_columns(g, col);
        for (int k = 0; k < m_cols && n >= 0; k++) {
            size_t at = (size_t)n < len ? (size_t)n : len;
            int m = snprintf(buf + at, len - at, ",%.9g", v[col[k]]);
            n = m < 0 ? m : n + m;
        }
    }
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
