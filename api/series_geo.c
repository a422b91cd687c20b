/* series_geo.c - the named geometry's series columns (series.h): which
 * geometry has them, and their values from a simulation. Apart from
 * series.c, which formats rows without an engine. */
#include "series.h"

#include <stdlib.h>
#include <string.h>

int ndem_series_cols_init(ndem_series_cols *c, const ndem_scene_def *scene)
{
    memset(c, 0, sizeof *c);
    int n = 0;
    for (int g = 0; g < scene->geometry_count; g++) n += scene->geometry[g].name[0] != 0;
    if (n == 0) return 0;
    c->geo = calloc((size_t)n, sizeof *c->geo);
    if (!c->geo) return -1;
    for (int g = 0; g < scene->geometry_count; g++) {
        const ndem_geometry_def *d = &scene->geometry[g];
        if (!d->name[0]) continue;
        ndem_series_geo *o = &c->geo[c->count++];
        o->index = g;
        memcpy(o->name, d->name, sizeof o->name);
        o->moving = ndem_geometry_moves(d);
        o->walls = d->walls.enabled;
        for (int k = 0; k < 3; k++) o->size[k] = d->max[k] - d->min[k];
        ndem_geometry_reference_point(d, o->position);
    }
    return 0;
}

void ndem_series_cols_free(ndem_series_cols *c)
{
    free(c->geo);
    memset(c, 0, sizeof *c);
}

void ndem_series_cols_sample(ndem_series_cols *c, const ndem_sim *sim)
{
    for (int i = 0; i < c->count; i++) {
        ndem_series_geo *o = &c->geo[i];
        if (ndem_sim_geometry_load(sim, o->index, o->force, o->torque)) continue;
        ndem_sim_geometry_position(sim, o->index, o->position);
        if (o->walls) {
            ndem_sim_walls(sim, o->index, o->stress, o->size);
            ndem_sim_walls_motor(sim, o->index, o->motor);
        }
    }
}
