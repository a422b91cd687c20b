/* series.c - the series.csv format (series.h; columns in docs/cli.md). */
#include "series.h"

#include <stdio.h>

const char ndem_series_header[] =
    "step,time,particles,contacts,geometry_contacts,impacts,rows,kinetic_energy,"
    "elastic_energy,dissipated_energy,iterations,residual_normal,residual_friction,"
    "residual_rolling,max_overlap,colors,wall_broadphase,wall_narrowphase,wall_solve,"
    "wall_integrate,wall_seconds\n";

int ndem_series_row(char *buf, size_t len, const ndem_step_stats *s)
{
    return snprintf(buf, len,
                    "%ld,%.9g,%ld,%ld,%ld,%ld,%ld,%.9g,%.9g,%.9g,%d,%.6g,%.6g,%.6g,%.6g,%d,%.6g,"
                    "%.6g,%.6g,%.6g,%.6g\n",
                    s->step, s->time, s->particles, s->contacts, s->geometry_contacts,
                    s->impacts, s->rows, s->kinetic_energy, s->elastic_energy,
                    s->dissipated_energy, s->iterations, s->residual_normal,
                    s->residual_friction, s->residual_rolling, s->max_overlap, s->colors,
                    s->wall_broadphase, s->wall_narrowphase, s->wall_solve, s->wall_integrate,
                    s->wall_total);
}
