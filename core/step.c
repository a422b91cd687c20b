/* step.c - one time step as a table of named stages run in order (Wang et al.
 * Algorithm 1 for NDEM): each stage is one function of its module, and
 * the time it takes adds to one of the step statistics' wall-clock groups
 * (broad phase, narrow phase, solve, integrate). Smooth DEM runs its own
 * table over the same bodies, broad phase and contacts. */
#include "checks.h"
#include "lanes.h"
#include "dem.h"
#include "dem_shape.h"
#include "rigid_contact.h"
#include "shape_body.h"
#include "sim.h"
#include "walls.h"
#include "vec.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

/* A particle's kinetic energy (0 for a ghost: its owner counts it). */
static inline double body_energy(const ndem_sim *sim, long i)
{
    const ndem_bodies *b = &sim->bodies;
    if (ndem_decomp_is_ghost(sim->decomp, b->id[i])) return 0.0;
    const double *v = &b->vel[6 * i];
    /* a particle with locked rotation has inv_inertia 0 and no spin */
    double m = 1.0 / b->inv_mass[i], in = b->inv_inertia[i] > 0 ? 1.0 / b->inv_inertia[i] : 0;
    if (sim->shapes && b->shape[i] >= 0) /* full inertia */
        return 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + ndem_shapes_rot_energy(sim, i);
    return 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
           0.5 * in * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
}

/* Why particle i's state is bad: 1 non-finite, 2 outside the scene bounds,
 * 0 fine (ghosts are their owner's to check). */
static inline int body_bad(const ndem_sim *sim, long i)
{
    const ndem_bodies *b = &sim->bodies;
    if (ndem_decomp_is_ghost(sim->decomp, b->id[i])) return 0;
    const double *x = &b->pos[3 * i], *v = &b->vel[6 * i];
    /* 0 y is +-0 for a finite y and NaN for an infinite or NaN one: the nine
     * tests as one sum without a branch each (every step, every body) */
    double z = 0.0 * x[0] + 0.0 * x[1] + 0.0 * x[2];
    for (int k = 0; k < 6; k++) z += 0.0 * v[k];
    if (!(z == 0.0)) return 1;
    int out = 0;
    for (int k = 0; k < 3; k++) out |= (x[k] < sim->bounds_min[k]) | (x[k] > sim->bounds_max[k]);
    return out ? 2 : 0;
}

/* body_energy and body_bad for spheres without a decomposition (no ghost,
 * no shape), bodies [lo, hi): a block's energies (body_energy's operations)
 * and checks in a loop without a branch a test, then the energies added in
 * body order, so *ke has the bits of the one-by-one sum; *bad = the first
 * bad body, if any (GCC 12 does not vectorise the loop: "control flow in
 * loop"; the gain is the branches, docs/performance.md "Session 13"). */
#define NDEM_BOOK_BLOCK 64
static void books_spheres(const ndem_sim *sim, long lo, long hi, double *ke, long *bad)
{
    const ndem_bodies *b = &sim->bodies;
    const double *bmin = sim->bounds_min, *bmax = sim->bounds_max;
    double e[NDEM_BOOK_BLOCK], sum = *ke;
    for (long i0 = lo; i0 < hi; i0 += NDEM_BOOK_BLOCK) {
        int m = hi - i0 < NDEM_BOOK_BLOCK ? (int)(hi - i0) : NDEM_BOOK_BLOCK, any = 0;
        for (int j = 0; j < m; j++) {
            const double *x = &b->pos[3 * (i0 + j)], *v = &b->vel[6 * (i0 + j)];
            double im = b->inv_mass[i0 + j], ii = b->inv_inertia[i0 + j];
            double mass = 1.0 / im, in = ii > 0 ? 1.0 / ii : 0; /* 0: locked rotation */
            e[j] = 0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                   0.5 * in * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
            double z = 0.0 * x[0] + 0.0 * x[1] + 0.0 * x[2]; /* as body_bad */
            for (int k = 0; k < 6; k++) z += 0.0 * v[k];
            int out = !(z == 0.0);
            for (int k = 0; k < 3; k++) out |= (x[k] < bmin[k]) | (x[k] > bmax[k]);
            any |= out;
        }
        for (int j = 0; j < m; j++) sum += e[j];
        if (any && *bad < 0)
            for (long i = i0; i < i0 + m && *bad < 0; i++)
                if (body_bad(sim, i)) *bad = i;
    }
    *ke = sum;
}

/* q turned by the angular velocity w (v[3..5]) over h: the exact rotation
 * dq = [cos(|w| h / 2), w sin(|w| h / 2) / |w|], then renormalised. At the
 * half angle x = |w| h / 2 < NDEM_TURN_SERIES (every sphere of a settled bed:
 * x ~ 1e-7..1e-3 at DEM steps) cos x and sin x / |w| = h/2 sin x / x are
 * their Taylor series to x^8 in Horner form, whose first omitted term,
 * x^10 / 10! < 2e-20 at x = 0.05, is far below a rounding (1.1e-16), so dq
 * is the exact rotation to the last bit or two, as libm's sincos gives it,
 * without its call (docs/performance.md, "Session 12: smooth DEM"). */
#define NDEM_TURN_SERIES 0.05
/* Not inlined: compiled once for baseline x86-64, because GCC 12 fuses its
 * quaternion product into vfmaddsub inside the AVX2 copies below in spite
 * of -ffp-contract=off (found by the state hashes). */
__attribute__((noinline)) static void turn_quat(double *q, const double *v, double h)
{
    double w2 = v[3] * v[3] + v[4] * v[4] + v[5] * v[5], x2 = 0.25 * h * h * w2;
    if (!(x2 > 0.25e-24)) return; /* |w| h <= 1e-12: no turn */
    double c, s;                  /* cos x, sin x / |w| */
    if (x2 < NDEM_TURN_SERIES * NDEM_TURN_SERIES) {
        c = 1.0 + x2 * (-1.0 / 2 + x2 * (1.0 / 24 + x2 * (-1.0 / 720 + x2 * (1.0 / 40320))));
        s = 0.5 * h *
            (1.0 + x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5040 + x2 * (1.0 / 362880)))));
    } else {
        double w = sqrt(w2), half = 0.5 * w * h;
        c = cos(half), s = sin(half) / w;
    }
    double dq[4] = {c, v[3] * s, v[4] * s, v[5] * s};
    double r[4] = {dq[0] * q[0] - dq[1] * q[1] - dq[2] * q[2] - dq[3] * q[3],
                   dq[0] * q[1] + dq[1] * q[0] + dq[2] * q[3] - dq[3] * q[2],
                   dq[0] * q[2] - dq[1] * q[3] + dq[2] * q[0] + dq[3] * q[1],
                   dq[0] * q[3] + dq[1] * q[2] - dq[2] * q[1] + dq[3] * q[0]};
    double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; k++) q[k] = r[k] / len;
}

static void turns_base(double *quat, const double *vel, long lo, long hi, double h)
{
    for (long i = lo; i < hi; i++) turn_quat(&quat[4 * i], &vel[6 * i], h);
}

/* The instruction-set copies (GCC on x86-64; clang warns of an unused
 * turn_quat4 where they are not compiled). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(NDEM_NO_CLONES)

/* turn_quat for bodies i .. i + 3 in vector lanes: each lane performs its
 * IEEE operations in the same order (-ffp-contract=off; division and square
 * root correctly rounded), so the same bits; a lane past the series is left
 * for turn_quat's libm branch, one that does not turn keeps its q. */
NDEM_DV_INLINE void turn_quat4(double *quat, const double *vel, long i, double h)
{
    double in[7][NDEM_DLANES]; /* w[3], q[4]: lane l's body i + l */
    for (int l = 0; l < NDEM_DLANES; l++) {
        for (int k = 0; k < 3; k++) in[k][l] = vel[6 * (i + l) + 3 + k];
        for (int k = 0; k < 4; k++) in[3 + k][l] = quat[4 * (i + l) + k];
    }
    ndem_dv w[3], q[4], dq[4], r[4];
    memcpy(w, in, sizeof w);
    memcpy(q, in[3], sizeof q);
    ndem_dv w2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2], x2 = 0.25 * h * h * w2;
    ndem_dm series = (x2 > 0.25e-24) & (x2 < NDEM_TURN_SERIES * NDEM_TURN_SERIES);
    dq[0] = 1.0 + x2 * (-1.0 / 2 + x2 * (1.0 / 24 + x2 * (-1.0 / 720 + x2 * (1.0 / 40320))));
    ndem_dv s =
        0.5 * h *
        (1.0 + x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5040 + x2 * (1.0 / 362880)))));
    for (int k = 0; k < 3; k++) dq[1 + k] = w[k] * s;
    r[0] = dq[0] * q[0] - dq[1] * q[1] - dq[2] * q[2] - dq[3] * q[3];
    r[1] = dq[0] * q[1] + dq[1] * q[0] + dq[2] * q[3] - dq[3] * q[2];
    r[2] = dq[0] * q[2] - dq[1] * q[3] + dq[2] * q[0] + dq[3] * q[1];
    r[3] = dq[0] * q[3] + dq[1] * q[2] - dq[2] * q[1] + dq[3] * q[0];
    ndem_dv len = ndem_dv_sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; k++) q[k] = ndem_dv_sel(series, r[k] / len, q[k]);
    for (int l = 0; l < NDEM_DLANES; l++) {
        for (int k = 0; k < 4; k++) quat[4 * (i + l) + k] = q[k][l];
        if (x2[l] >= NDEM_TURN_SERIES * NDEM_TURN_SERIES) /* libm's */
            turn_quat(&quat[4 * (i + l)], &vel[6 * (i + l)], h);
    }
}

/* The turns of bodies [lo, hi): in lanes where an instruction-set copy is
 * compiled (chosen by sim->isa as the solver's sweep and the DEM kernel
 * are), else one by one. The same bits either way. */
#define NDEM_DEFINE_TURNS(name, ...)                                                               \
    __VA_ARGS__ static void name(double *quat, const double *vel, long lo, long hi, double h)      \
    {                                                                                              \
        long i = lo;                                                                               \
        for (; i + NDEM_DLANES <= hi; i += NDEM_DLANES) turn_quat4(quat, vel, i, h);               \
        for (; i < hi; i++) turn_quat(&quat[4 * i], &vel[6 * i], h);                               \
    }
NDEM_DEFINE_TURNS(turns_v3, __attribute__((target("arch=x86-64-v3"))))
NDEM_DEFINE_TURNS(turns_v4, __attribute__((target("arch=x86-64-v4"))))
static void (*const turns[])(double *, const double *, long, long, double) = {turns_base, turns_v3,
                                                                              turns_v4};
#else
static void (*const turns[])(double *, const double *, long, long, double) = {turns_base};
#endif

/* x += h v_new; orientation turned by the new angular velocity; geometry
 * posed at the new time (geometry_pose.c). The same pass books each body
 * for measure, per fixed chunk of bodies (no second pass, no serial one). */
static void integrate(ndem_sim *sim)
{
    ndem_bodies *b = &sim->bodies;
    double h = sim->solver.time_step;
    long n = b->count, per = (n + NDEM_MEASURE_CHUNKS - 1) / NDEM_MEASURE_CHUNKS;
    const int copies = (int)(sizeof turns / sizeof *turns);
    void (*turn)(double *, const double *, long, long, double) =
        turns[sim->isa >= 0 && sim->isa < copies ? sim->isa : 0];
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, n))
    for (long ch = 0; ch < NDEM_MEASURE_CHUNKS; ch++) {
        double ke = 0;
        long bad = -1, end = (ch + 1) * per < n ? (ch + 1) * per : n;
        for (long i = ch * per; i < end; i++) {
            double *x = &b->pos[3 * i], *v = &b->vel[6 * i];
            for (int k = 0; k < 3; k++) x[k] += h * v[k];
        }
        turn(b->quat, b->vel, ch * per, end, h);
        /* after the turns: a shape's energy reads its q */
        if (!sim->decomp && !sim->shapes) books_spheres(sim, ch * per, end, &ke, &bad);
        else
            for (long i = ch * per; i < end; i++) {
                ke += body_energy(sim, i);
                if (bad < 0 && body_bad(sim, i)) bad = i;
            }
        sim->measure_ke[ch] = ke;
        sim->measure_bad[ch] = bad;
    }
    double t = (double)(sim->step + 1) * h; /* the clock after this step */
    for (int g = 0; g < sim->geometry_count; g++)
        ndem_geometry_advance(&sim->geometry[g], &sim->pose[g], h, t);
    if (sim->rigid) ndem_rigid_integrate(sim); /* dynamic geometry: by its new velocities */
}

/* Kinetic energy (integrate's chunks in chunk order), contact counts and the
 * first bad particle in body order: figures that do not depend on the
 * thread count. */
static ndem_status measure(ndem_sim *sim)
{
    const ndem_bodies *b = &sim->bodies;
    double ke = 0;
    long first = -1;
    for (int ch = 0; ch < NDEM_MEASURE_CHUNKS; ch++) {
        ke += sim->measure_ke[ch];
        if (first < 0) first = sim->measure_bad[ch];
    }
    if (first >= 0) {
        const double *x = &b->pos[3 * first];
        if (body_bad(sim, first) == 1) {
            snprintf(sim->error, sizeof sim->error,
                     "particle %ld has a non-finite state at t = %.6g s (step %ld); "
                     "reduce the time step",
                     b->id[first], sim->time, sim->step);
            return NDEM_ERR_NONFINITE;
        }
        snprintf(sim->error, sizeof sim->error,
                 "particle %ld left the scene bounds at t = %.6g s (step %ld), "
                 "position (%.4g, %.4g, %.4g)",
                 b->id[first], sim->time, sim->step, x[0], x[1], x[2]);
        return NDEM_ERR_ESCAPED;
    }
    int bad = ndem_rigid_bad(sim->rigid);
    if (bad >= 0) {
        snprintf(sim->error, sizeof sim->error,
                 "dynamic geometry %d has a non-finite state at t = %.6g s (step %ld); "
                 "reduce the time step",
                 sim->rigid->body[bad].geometry, sim->time, sim->step);
        return NDEM_ERR_NONFINITE;
    }
    if (sim->rigid && ndem_walls_check(sim, sim->error, sizeof sim->error))
        return NDEM_ERR_ESCAPED; /* the cell's walls met: no sample left between */
    ke += ndem_rigid_kinetic_energy(sim);
    sim->stats.kinetic_energy = ke;
    if (sim->dem) return NDEM_OK; /* contact counts come from dem.c */
    const ndem_contacts *c = &sim->contacts;
    long touching = 0, geo = 0;
    double maxov = 0; /* counts and a maximum: the same for any split */
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, c->count))            \
    reduction(+ : touching, geo) reduction(max : maxov)
    for (long p = 0; p < c->packet_count; p++)
        for (int l = 0; l < c->fill[p]; l++) {
            const ndem_row_cold *o = &c->cold[p * NDEM_LANES + l];
            if (o->delta > 0) {
                touching++;
                geo += o->geo;
                if (o->delta > maxov) maxov = o->delta;
            }
        }
    ndem_general_stats(sim, &touching, &geo, &maxov);
    ndem_rcontact_stats(sim, &touching, &geo, &maxov);
    sim->stats.kinetic_energy = ke;
    sim->stats.contacts = touching;
    sim->stats.geometry_contacts = geo;
    sim->stats.max_overlap = maxov;
    return NDEM_OK;
}

/* ---- the stages: each returns NDEM_OK, NDEM_ERR_MEMORY (the step fails
 * with "out of memory") or another status, which ends the step ---- */

static ndem_status status_of(int rc) { return rc ? NDEM_ERR_MEMORY : NDEM_OK; }

static ndem_status stage_emit(ndem_sim *sim) { return status_of(ndem_emit(sim)); }

/* Spatial order every few steps (reorder.c); a function of the step
 * counter, so a restored checkpoint reorders at the same steps. */
static ndem_status stage_reorder(ndem_sim *sim)
{
    if (sim->step % NDEM_REORDER_STEPS != 0) return NDEM_OK;
    return status_of(ndem_bodies_reorder(sim));
}

/* The lists, and the geometry search's reach from the same scan. */
static ndem_status stage_broadphase(ndem_sim *sim)
{
    return status_of(ndem_neighbours_update(sim, &sim->geometry_skin));
}

static ndem_status stage_contacts(ndem_sim *sim)
{
    /* a dynamic body's surface moves too: its reach adds (0 without one) */
    double skin = sim->geometry_skin;
    if (sim->rigid) skin += ndem_rigid_reach(sim);
    return status_of(ndem_contacts_build(sim, skin));
}

/* one process of a decomposed scene: the contacts it solves (decomp.c) */
static ndem_status stage_own(ndem_sim *sim) { return status_of(ndem_decomp_filter(sim)); }

/* shaped particles' contacts to the general rows (rows_general.c) */
static ndem_status stage_shapes(ndem_sim *sim) { return status_of(ndem_general_split(sim)); }

static ndem_status stage_color(ndem_sim *sim) { return status_of(ndem_contacts_color(sim)); }

static ndem_status stage_prepare(ndem_sim *sim)
{
    return status_of(ndem_contacts_prepare(sim) || ndem_general_prepare(sim) ||
                     ndem_rcontact_prepare(sim));
}

static ndem_status stage_impact(ndem_sim *sim)
{
    ndem_solve_impact(sim);
    return NDEM_OK;
}

static ndem_status stage_solve(ndem_sim *sim)
{
    ndem_solve_continuous(sim);
    return NDEM_OK;
}

/* the force and torque on each geometry from this step's impulses */
static ndem_status stage_loads(ndem_sim *sim)
{
    ndem_loads_ndem(sim);
    ndem_general_loads(sim);
    ndem_rcontact_loads(sim); /* bodies on static geometry */
    return NDEM_OK;
}

static ndem_status stage_history(ndem_sim *sim)
{
    return status_of(ndem_contacts_store_history(sim) || ndem_general_store_history(sim));
}

/* smooth DEM: contact forces and symplectic Euler's velocities (dem_forces.c) */
static ndem_status stage_forces(ndem_sim *sim)
{
    if (sim->shapes && ndem_dem_shape_reserve(sim)) return NDEM_ERR_MEMORY;
    if (ndem_dem_forces(sim)) return NDEM_ERR_MEMORY;
    if (sim->shapes) ndem_dem_shape_keep(sim); /* the points' springs, as the dem's */
    if (sim->rigid) {
        if (ndem_rcontact_dem_forces(sim)) return NDEM_ERR_MEMORY; /* bodies' contacts, loads */
        ndem_rigid_dem(sim); /* explicit, from the same step's loads */
    }
    return NDEM_OK;
}

static ndem_status stage_integrate(ndem_sim *sim)
{
    integrate(sim);
    sim->step++;
    sim->time = (double)sim->step * sim->solver.time_step;
    return NDEM_OK;
}

/* Which wall-clock figure of ndem_step_stats a stage's time adds to. */
enum { WALL_BROAD, WALL_NARROW, WALL_SOLVE, WALL_INTEGRATE, WALL_GROUPS };

typedef struct ndem_stage {
    const char *name;
    ndem_status (*run)(ndem_sim *sim);
    int wall;                                  /* WALL_... */
    void (*check)(const struct ndem_sim *sim); /* invariants after it (checks.h), or NULL */
} ndem_stage;

/* NDEM, Wang et al. Algorithm 1. */
static const ndem_stage ndem_stages[] = {
    {"emit", stage_emit, WALL_BROAD, NULL},
    {"reorder", stage_reorder, WALL_BROAD, ndem_check_bodies},
    {"broadphase", stage_broadphase, WALL_BROAD, ndem_check_lists},
    {"contacts", stage_contacts, WALL_NARROW, ndem_check_contacts},
    {"own", stage_own, WALL_NARROW, ndem_check_contacts},
    {"shapes", stage_shapes, WALL_NARROW, ndem_check_contacts},
    {"color", stage_color, WALL_NARROW, ndem_check_colors},
    {"prepare", stage_prepare, WALL_NARROW, ndem_check_rows},
    {"impact", stage_impact, WALL_SOLVE, NULL},
    {"solve", stage_solve, WALL_SOLVE, NULL},
    {"loads", stage_loads, WALL_SOLVE, NULL},
    {"history", stage_history, WALL_SOLVE, ndem_check_history},
    {"integrate", stage_integrate, WALL_INTEGRATE, NULL},
    {"measure", measure, WALL_INTEGRATE, ndem_check_bodies},
};

/* Smooth DEM (dem.c): no reorder (its spring history is keyed by body). */
static const ndem_stage dem_stages[] = {
    {"emit", stage_emit, WALL_BROAD, ndem_check_bodies},
    {"broadphase", stage_broadphase, WALL_BROAD, ndem_check_lists},
    {"contacts", stage_contacts, WALL_NARROW, ndem_check_contacts},
    {"forces", stage_forces, WALL_SOLVE, NULL},
    {"integrate", stage_integrate, WALL_INTEGRATE, NULL},
    {"measure", measure, WALL_INTEGRATE, ndem_check_bodies},
};

ndem_status ndem_sim_step(ndem_sim *sim)
{
    const ndem_stage *stages = sim->dem ? dem_stages : ndem_stages;
    int count = sim->dem ? (int)(sizeof dem_stages / sizeof *dem_stages)
                         : (int)(sizeof ndem_stages / sizeof *ndem_stages);
    double wall[WALL_GROUPS] = {0}, t0 = omp_get_wtime(), t = t0;
    ndem_status st = NDEM_OK;
    for (int i = 0; i < count && st == NDEM_OK; i++) {
        st = stages[i].run(sim);
        if (st != NDEM_OK) sim->failed = 1; /* its state may be non-finite */
        if (st == NDEM_ERR_MEMORY) {
            snprintf(sim->error, sizeof sim->error, "out of memory at step %ld (stage %s)",
                     sim->step, stages[i].name);
            return st;
        }
        double now = omp_get_wtime();
        wall[stages[i].wall] += now - t;
        t = now;
        /* checked builds: the invariants this stage leaves (compiled out
         * in release); its time is not the stage's */
        if (NDEM_CHECKS && stages[i].check) {
            stages[i].check(sim);
            t = omp_get_wtime();
        }
    }
    ndem_step_stats *s = &sim->stats;
    s->step = sim->step;
    s->time = sim->time;
    s->particles = sim->bodies.count;
    s->colors = sim->contacts.color_count;
    s->rows = sim->contacts.count;
    s->wall_broadphase = wall[WALL_BROAD];
    s->wall_narrowphase = wall[WALL_NARROW];
    s->wall_solve = wall[WALL_SOLVE];
    s->wall_integrate = wall[WALL_INTEGRATE];
    s->wall_total = t - t0;
    return st;
}
