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

/* About the length of one named geometry's columns in a row. */
#define NDEM_SERIES_GEO_BYTES 150
/* At most: 18 numbers of 17 bytes (",%.9g") for a stress-controlled box. */
#define NDEM_SERIES_GEO_MAX_BYTES (18 * 17)

/* The header line of a scene without named geometry, newline included. */
extern const char ndem_series_header[];

/* A named geometry's columns, appended in geometry order before the CRC:
 * NAME_fx, NAME_fy, NAME_fz (contact force on it, N), NAME_tx, NAME_ty,
 * NAME_tz (torque about its reference point, N m) and, for a moving one,
 * NAME_x, NAME_y, NAME_z (its reference point, m) and, for a
 * stress-controlled box, NAME_stress_x.._z (mean normal stress on each pair
 * of walls, Pa), NAME_size_x.._z (its edge lengths, m) and
 * NAME_motor_stress_x.._z (the same stress read from the walls' motors,
 * ndem_sim_walls_motor); with the last
 * step's values (series_geo.c fills them from a simulation). */
typedef struct ndem_series_geo {
    int index; /* into the scene's geometry */
    char name[NDEM_NAME_MAX];
    int moving, walls;
    double force[3], torque[3], position[3], stress[3], size[3], motor[3];
} ndem_series_geo;

typedef struct ndem_series_cols {
    int count;
    ndem_series_geo *geo; /* owned */
} ndem_series_cols;

/* The named geometry of a scene, in geometry order (series_geo.c): 0, or
 * -1 when out of memory. ndem_series_cols_free releases it. */
int ndem_series_cols_init(ndem_series_cols *c, const ndem_scene_def *scene);
void ndem_series_cols_free(ndem_series_cols *c);
/* Takes the last step's force, torque and position of each column's
 * geometry from sim (series_geo.c). */
void ndem_series_cols_sample(ndem_series_cols *c, const ndem_sim *sim);

/* The header line with these columns (NULL: none), newline included;
 * malloc'd, NULL when out of memory. */
char *ndem_series_header_of(const ndem_series_cols *c);
/* Formats one row (newline and CRC included) into buf like snprintf:
 * returns the length it needs. c holds the named geometry's values (NULL:
 * none). */
int ndem_series_row(char *buf, size_t len, const ndem_step_stats *s, const ndem_series_cols *c);
/* 1 when a header line (newline optional) ends with the CRC column; files
 * of older writers have none and their rows cannot be checked. */
int ndem_series_has_crc(const char *header, size_t len);
/* 0 when one row (newline optional) matches its CRC, else -1. */
int ndem_series_check_row(const char *row, size_t len);

#endif
