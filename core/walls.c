/* walls.c - the stress-controlled box (walls.h; docs/engine.md,
 * "Stress-controlled box"). Each wall is a body of rigid.c with one degree
 * of freedom, the translation along its face's normal: it takes its
 * motor's impulses (a bounded 1-DOF row solved between the sets of contact
 * rows, the paper's prismatic motor), the contacts' through its proxy rows,
 * and moves its face (the def's min[k] or max[k]) rather than the pose, which
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
    if (!(w->mass > 0) || !isfinite(w->mass) || !(w->start >= 0) || !isfinite(w->start) ||
        !(w->ramp >= 0) || !isfinite(w->ramp)) {
        snprintf(err, err_len,
                 "geometry %d: the walls' mass must be positive and finite, "
                 "their start and ramp non-negative and finite",
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
        /* the ramp: the speed at the step's midpoint, so that the wall has
         * moved velocity * ramp / 2 by the ramp's end (a step into a stiff
         * sample would be an impulse) */
        double h = sim->solver.time_step, f = 1.0;
        if (w->ramp > 0) f = fmin(1.0, (t - w->start + 0.5 * h) / w->ramp);
        bd->inv_mass = 0.0;
        bd->v[k] = inward(bd) * w->velocity[k] * f;
    } else {
        bd->inv_mass = 1.0 / w->mass;
    }
    bd->im_lin = bd->inv_mass;
}

/* The inward speed cap of a stress-controlled wall (0: none). */
static double speed_cap(const ndem_walls_def *w)
{
    return w->max_speed > 0 ? w->max_speed : INFINITY;
}

/* One projected Gauss-Seidel update of the wall's two rows, each on its
 * inward speed u (effective mass M): the motor, lambda <- clamp(lambda +
 * M (target - u), lo, hi), and the outward limit u >= -target (an impulse
 * >= 0 inward). Exact for a wall alone. */
static void motor_update(ndem_rigid_body *bd)
{
    if (!(bd->inv_mass > 0)) return; /* driven: kinematic */
    int k = bd->feature / 2;
    double m = 1.0 / bd->inv_mass, u = inward(bd) * bd->v[k];
    double lam = fmin(fmax(bd->motor + m * (bd->motor_target - u), bd->motor_lo), bd->motor_hi);
    u += (lam - bd->motor) * bd->inv_mass;
    bd->motor = lam;
    double stop = fmax(bd->motor_stop + m * (-bd->motor_target - u), 0.0);
    u += (stop - bd->motor_stop) * bd->inv_mass;
    bd->motor_stop = stop;
    bd->v[k] = inward(bd) * u;
}

void ndem_walls_motor_begin(const ndem_sim *sim, ndem_rigid_body *bd)
{
    const ndem_geometry_def *g = &sim->geometry[bd->geometry];
    const double h = sim->solver.time_step;
    int k = bd->feature / 2;
    double lam = 0.0;
    if (bd->inv_mass > 0) {
        bd->motor_hi = g->walls.stress[k] * area(g, k) * h; /* at most the stress */
        bd->motor_lo = -INFINITY;                           /* brakes at any cost */
        bd->motor_target = speed_cap(&g->walls);
        if (sim->solver.warm_start) /* the last step's impulse, as the contacts' */
            lam = fmin(fmax(sim->solver.warm_start_factor * bd->motor, bd->motor_lo), bd->motor_hi);
    } else {
        bd->motor_lo = bd->motor_hi = bd->motor_target = 0.0;
    }
    bd->motor = bd->motor_stop = 0.0;
    if (bd->inv_mass > 0) {
        bd->v[k] += inward(bd) * lam * bd->inv_mass;
        bd->motor = lam;
    }
    motor_update(bd); /* no contact rows: this is the solution */
}

void ndem_walls_motor_solve(ndem_rigid_body *bd) { motor_update(bd); }

void ndem_walls_dem(const ndem_sim *sim, ndem_rigid_body *bd)
{
    const ndem_geometry_def *g = &sim->geometry[bd->geometry];
    int k = bd->feature / 2;
    if (!(bd->inv_mass > 0)) return;
    const double h = sim->solver.time_step, push = g->walls.stress[k] * area(g, k);
    double f = inward(bd) * push + bd->load[k];
    bd->v[k] += h * bd->inv_mass * f;
    /* the motor's brake and the outward stop: |u| <= the cap */
    double u = inward(bd) * bd->v[k], cap = speed_cap(&g->walls);
    double clamped = fmax(-cap, fmin(u, cap));
    bd->v[k] = inward(bd) * clamped;
    /* the motor's impulse: the push and what the clamp took (the motor
     * stress output; the checkpoint keeps it, unused by smooth DEM) */
    bd->motor = h * push + (clamped - u) / bd->inv_mass;
    bd->motor_stop = 0.0;
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

int ndem_walls_check(const ndem_sim *sim, char *err, size_t err_len)
{
    for (int g = 0; g < sim->geometry_count; g++) {
        const ndem_geometry_def *d = &sim->geometry[g];
        for (int k = 0; d->walls.enabled && k < 3; k++)
            if (!(d->max[k] > d->min[k])) {
                snprintf(err, err_len,
                         "geometry %d: its walls normal to %c met at t = %.6g s (step %ld): "
                         "edge length %.4g m (an empty cell closes under its stress; a driven "
                         "pair stops only at its sample)",
                         g, "xyz"[k], sim -> time, sim -> step, d -> max[k] - d -> min[k]);
                return -1;
            }
    }
    return 0;
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

/* The inward force wall bd's motor applied during the last step (N): its
 * two rows' impulses over h; a driven wall's motor holds its speed, so it
 * answers the contact force along the normal. */
static double motor_force(const ndem_rigid_body *bd, double h)
{
    int k = bd->feature / 2;
    if (!(bd->inv_mass > 0)) return -inward(bd) * bd->load[k];
    return (bd->motor + bd->motor_stop) / h;
}

int ndem_sim_walls_motor(const ndem_sim *sim, int g, double stress[3])
{
    if (g < 0 || g >= sim->geometry_count || !sim->geometry[g].walls.enabled || !sim->rigid)
        return -1;
    const ndem_geometry_def *d = &sim->geometry[g];
    const ndem_rigid_body *six = &sim->rigid->body[sim->rigid->first[g]];
    const double h = sim->solver.time_step;
    for (int k = 0; k < 3; k++)
        stress[k] =
            sim->step > 0
                ? 0.5 * (motor_force(&six[2 * k], h) + motor_force(&six[2 * k + 1], h)) / area(d, k)
                : 0.0;
    return 0;
}
