/* walls.c - the stress-controlled box (walls.h; docs/engine.md,
 * "Stress-controlled box"). Each wall is a body of rigid.c with one degree
 * of freedom, the translation along its face's normal: it takes its push
 * as an external force, the solve's impulses through its proxy rows, and
 * moves its face (the def's min[k] or max[k]) rather than the pose, which
 * stays the identity. */
#include "walls.h"

#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int ndem_walls_count(const ndem_geometry_def *g) { return g->walls.enabled ? 6 : 0; }

/* +1 for the wall at min[k] (inward is +e_k), -1 for the one at max[k]. */
static double inward(const ndem_rigid_body *bd) { return bd->feature % 2 ? -1.0 : 1.0; }

/* The current area of the walls normal to axis k. */
static double area(const ndem_geometry_def *g, int k)
{
    int a = (k + 1) % 3, b = (k + 2) % 3;
    return (g->max[a] - g->min[a]) * (g->max[b] - g->min[b]);
}

int ndem_walls_init(ndem_sim *sim, int gi, ndem_rigid_body *six, char *err, size_t err_len)
{
    const ndem_geometry_def *g = &sim->geometry[gi];
    const ndem_walls_def *w = &g->walls;
    if (g->type != NDEM_GEOMETRY_BOX || !g->inside || g->dynamic.enabled || g->keyframe_count > 0 ||
        ndem_geometry_moves(g)) {
        snprintf(err, err_len,
                 "geometry %d: walls need a static box with inside true (not dynamic, no motion)",
                 gi);
        return -1;
    }
    if (!(w->mass > 0) || !isfinite(w->mass) || !(w->start >= 0) || !isfinite(w->start)) {
        snprintf(err, err_len,
                 "geometry %d: the walls' mass must be positive and finite, "
                 "their start non-negative and finite",
                 gi);
        return -1;
    }
    for (int k = 0; k < 3; k++)
        if (!(w->stress[k] >= 0) || !isfinite(w->stress[k]) ||
            (w->driven[k] && !isfinite(w->velocity[k]))) {
            snprintf(err, err_len,
                     "geometry %d: the walls' stress must be non-negative and finite, their "
                     "velocity finite",
                     gi);
            return -1;
        }
    for (int f = 0; f < 6; f++) {
        ndem_rigid_body *bd = &six[f];
        memset(bd, 0, sizeof *bd);
        bd->geometry = gi;
        bd->feature = f;
        bd->rot_lock = NDEM_LOCK_ROTATION;                    /* inv_world stays zero */
        for (int k = 0; k < 3; k++) bd->inertia[4 * k] = 1.0; /* never turns: unused */
        bd->lin_free[4 * (f / 2)] = 1.0;
        ndem_walls_mode(sim, bd, (double)sim->step * sim->solver.time_step);
    }
    return 0;
}

void ndem_walls_mode(const ndem_sim *sim, ndem_rigid_body *bd, double t)
{
    const ndem_walls_def *w = &sim->geometry[bd->geometry].walls;
    int k = bd->feature / 2;
    if (w->driven[k] && t >= w->start) {
        bd->inv_mass = 0.0;
        bd->v[k] = inward(bd) * w->velocity[k];
    } else {
        bd->inv_mass = 1.0 / w->mass;
    }
    bd->im_lin = bd->inv_mass;
}

void ndem_walls_push(const ndem_sim *sim, ndem_rigid_body *bd, const double *contact)
{
    const ndem_geometry_def *g = &sim->geometry[bd->geometry];
    int k = bd->feature / 2;
    double f = inward(bd) * g->walls.stress[k] * area(g, k) + (contact ? contact[k] : 0.0);
    bd->v[k] += sim->solver.time_step * bd->inv_mass * f;
}

void ndem_walls_move(ndem_sim *sim, ndem_rigid_body *bd)
{
    ndem_geometry_def *g = &sim->geometry[bd->geometry];
    const double h = sim->solver.time_step;
    int k = bd->feature / 2;
    if (bd->feature % 2) g->max[k] += h * bd->v[k];
    else g->min[k] += h * bd->v[k];
    ndem_walls_mode(sim, bd, (double)(sim->step + 1) * h);
}

void ndem_walls_clear_loads(ndem_rigid *r)
{
    for (int b = 0; r && b < r->count; b++) memset(r->body[b].load, 0, sizeof r->body[b].load);
}

void ndem_walls_add_load(ndem_rigid *r, int g, int feature, const double *f)
{
    if (!r || r->first[g] < 0) return;
    int b = ndem_rigid_body_of(r, g, feature);
    if (b < 0 || r->body[b].feature < 0) return;
    for (int q = 0; q < 3; q++) r->body[b].load[q] += f[q];
}

void ndem_walls_face_velocity(const ndem_rigid *r, int g, int feature, double *ug)
{
    int b = r ? ndem_rigid_body_of(r, g, feature) : -1;
    if (b >= 0) memcpy(ug, r->body[b].v, 3 * sizeof(double));
}

int ndem_sim_walls(const ndem_sim *sim, int g, double stress[3], double size[3])
{
    if (g < 0 || g >= sim->geometry_count || !sim->geometry[g].walls.enabled || !sim->rigid)
        return -1;
    const ndem_geometry_def *d = &sim->geometry[g];
    const ndem_rigid_body *six = &sim->rigid->body[sim->rigid->first[g]];
    for (int k = 0; k < 3; k++) {
        size[k] = d->max[k] - d->min[k];
        /* the particles push the wall at min[k] toward -e_k, the other +e_k */
        stress[k] = 0.5 * (six[2 * k + 1].load[k] - six[2 * k].load[k]) / area(d, k);
    }
    return 0;
}
