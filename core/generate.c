/* generate.c - initial particles (lattice, random fill, explicit list) and
 * emitters. Everything is O(n): random placement and emission test overlap
 * only against nearby spheres found through a cell grid. */
#include "decomp.h"
#include "dem.h"
#include "shape_body.h"
#include "sim.h"
#include "vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double sample_radius(const ndem_radius_dist *d, ndem_rng *rng)
{
    switch (d->kind) {
    case NDEM_RADIUS_UNIFORM:
        return d->min + (d->max - d->min) * ndem_rng_uniform(rng);
    case NDEM_RADIUS_VALUES: {
        double u = ndem_rng_uniform(rng), total = 0.0, acc = 0.0;
        for (int i = 0; i < d->count; i++) total += d->weights[i];
        for (int i = 0; i < d->count; i++) {
            acc += d->weights[i] / total;
            if (u < acc) return d->values[i];
        }
        return d->values[d->count - 1];
    }
    case NDEM_RADIUS_FIXED:
    default:
        return d->values[0];
    }
}

static double max_radius(const ndem_radius_dist *d)
{
    if (d->kind == NDEM_RADIUS_UNIFORM) return d->max;
    double m = 0.0;
    int n = d->kind == NDEM_RADIUS_VALUES ? d->count : 1;
    for (int i = 0; i < n; i++)
        if (d->values[i] > m) m = d->values[i];
    return m;
}

/* A dense cell grid over a region, filled incrementally, for overlap tests. */
typedef struct occupancy {
    double lo[3], cell;
    long dim[3];
    long *head, *next;
    long next_capacity;
} occupancy;

static int occ_init(occupancy *o, const double *lo, const double *hi, double cell)
{
    memset(o, 0, sizeof *o);
    /* Coarsen the cells when the region is huge compared to the spheres; the
     * counts are doubles until they are known to fit (a +-1e6 m region of
     * millimetre spheres has 1e27 cells). The region is finite (checked by
     * the callers), so the loop ends once a cell spans it. */
    double dim[3];
    for (;;) {
        double total = 1.0;
        for (int k = 0; k < 3; k++) {
            dim[k] = floor((hi[k] - lo[k]) / cell) + 1.0;
            total *= dim[k];
        }
        if (total <= (double)(1L << 24)) break;
        cell *= 2.0;
    }
    for (int k = 0; k < 3; k++) o->dim[k] = (long)dim[k];
    memcpy(o->lo, lo, sizeof o->lo);
    o->cell = cell;
    long total = o->dim[0] * o->dim[1] * o->dim[2];
    o->head = malloc(sizeof(long) * (size_t)total);
    if (!o->head) return -1;
    for (long i = 0; i < total; i++) o->head[i] = -1;
    return 0;
}

static void occ_cell(const occupancy *o, const double *x, long c[3])
{
    for (int k = 0; k < 3; k++) {
        long v = (long)floor((x[k] - o->lo[k]) / o->cell);
        c[k] = v < 0 ? 0 : (v >= o->dim[k] ? o->dim[k] - 1 : v);
    }
}

static int occ_insert(occupancy *o, long body, const double *x)
{
    if (body >= o->next_capacity) {
        long cap = o->next_capacity ? o->next_capacity * 2 : 1024;
        while (cap <= body) cap *= 2;
        long *n = realloc(o->next, sizeof(long) * (size_t)cap);
        if (!n) return -1;
        o->next = n;
        o->next_capacity = cap;
    }
    long c[3];
    occ_cell(o, x, c);
    long idx = (c[2] * o->dim[1] + c[1]) * o->dim[0] + c[0];
    o->next[body] = o->head[idx];
    o->head[idx] = body;
    return 0;
}

/* Does a sphere at x with radius r overlap any sphere in the grid? The cell
 * is at least twice the largest radius, so neighbouring cells suffice. */
static int occ_overlaps(const occupancy *o, const ndem_bodies *b, const double *x, double r)
{
    long c[3];
    occ_cell(o, x, c);
    for (long dz = -1; dz <= 1; dz++)
        for (long dy = -1; dy <= 1; dy++)
            for (long dx = -1; dx <= 1; dx++) {
                long cx = c[0] + dx, cy = c[1] + dy, cz = c[2] + dz;
                if (cx < 0 || cy < 0 || cz < 0 || cx >= o->dim[0] || cy >= o->dim[1] ||
                    cz >= o->dim[2])
                    continue;
                for (long j = o->head[(cz * o->dim[1] + cy) * o->dim[0] + cx]; j >= 0;
                     j = o->next[j]) {
                    const double *y = &b->pos[3 * j];
                    double d[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]};
                    double rr = r + b->radius[j];
                    if (ndem_dot(d, d) < rr * rr) return 1;
                }
            }
    return 0;
}

static void occ_destroy(occupancy *o)
{
    free(o->head);
    free(o->next);
    memset(o, 0, sizeof *o);
}

static double largest_body_radius(const ndem_bodies *b)
{
    double m = 0.0;
    for (long i = 0; i < b->count; i++)
        if (b->radius[i] > m) m = b->radius[i];
    return m;
}

/* Places `count` spheres (count < 0: one attempt run for the emitter) at
 * random spots in [lo, hi] that overlap nothing. Returns the number placed. */
static long place_random(ndem_sim *sim, ndem_bodies *seen, const double *lo, const double *hi,
                         const ndem_radius_dist *dist, int material, const double *vel,
                         ndem_rng *rng, long count, int attempts)
{
    /* seen: the spheres a new one must not overlap (NULL: the simulation's;
     * a decomposed one passes every process's near the region) */
    ndem_bodies *b = seen ? seen : &sim->bodies;
    double rmax = fmax(max_radius(dist), largest_body_radius(b));
    double glo[3], ghi[3];
    for (int k = 0; k < 3; k++) {
        glo[k] = lo[k] - 2.0 * rmax;
        ghi[k] = hi[k] + 2.0 * rmax;
    }
    occupancy o;
    if (occ_init(&o, glo, ghi, 2.0 * rmax)) return -1;
    for (long i = 0; i < b->count; i++) {
        const double *x = &b->pos[3 * i];
        if (x[0] >= glo[0] && x[0] <= ghi[0] && x[1] >= glo[1] && x[1] <= ghi[1] &&
            x[2] >= glo[2] && x[2] <= ghi[2] && occ_insert(&o, i, x)) {
            occ_destroy(&o);
            return -1;
        }
    }
    double density = sim->materials.density[material];
    long placed = 0;
    while (placed < count) {
        double r = sample_radius(dist, rng);
        int ok = 0;
        double x[3];
        for (int t = 0; t < attempts && !ok; t++) {
            for (int k = 0; k < 3; k++) x[k] = lo[k] + (hi[k] - lo[k]) * ndem_rng_uniform(rng);
            ok = !occ_overlaps(&o, b, x, r);
        }
        if (!ok) break;
        long id = ndem_bodies_add(b, x, r, vel, material, density);
        if (seen && id >= 0 && ndem_bodies_add(&sim->bodies, x, r, vel, material, density) < 0)
            id = -1;
        if (id < 0 || occ_insert(&o, id, x)) {
            placed = -1;
            break;
        }
        placed++;
    }
    occ_destroy(&o);
    return placed;
}

/* A region that generate.c can place spheres in: finite, within
 * NDEM_MAX_COORDINATE of the origin, min <= max. Writes why not into err. */
static int region_ok(const double *lo, const double *hi, const ndem_radius_dist *radius,
                     const char *what, int index, char *err, size_t err_len)
{
    if (!(max_radius(radius) <= NDEM_MAX_COORDINATE)) {
        snprintf(err, err_len, "%s %d: radii must be at most %g m", what, index,
                 NDEM_MAX_COORDINATE);
        return 0;
    }
    for (int k = 0; k < 3; k++)
        if (!(fabs(lo[k]) <= NDEM_MAX_COORDINATE && fabs(hi[k]) <= NDEM_MAX_COORDINATE &&
              lo[k] <= hi[k])) {
            snprintf(err, err_len,
                     "%s %d: region [min, max] must lie within +-%g m and have min <= max", what,
                     index, NDEM_MAX_COORDINATE);
            return 0;
        }
    return 1;
}

/* Returns 0, -1 when out of memory, -2 with a message in err when the
 * lattice is unusable. */
static int gen_lattice(ndem_sim *sim, const ndem_generator_def *g, int index, char *err,
                       size_t err_len)
{
    ndem_rng rng;
    ndem_rng_seed(&rng, g->seed);
    double spacing = g->spacing > 0 ? g->spacing : 2.0 * max_radius(&g->radius);
    if (!(spacing > 0 && isfinite(spacing))) {
        snprintf(err, err_len, "particles %d: lattice spacing must be a positive number", index);
        return -2;
    }
    /* Sites per axis as doubles (1e9 and more per axis over a wide region):
     * an axis never needs more sites than are placed, so each is clamped to
     * the count before the conversion. */
    double sites[3], total_d = 1.0;
    for (int k = 0; k < 3; k++) {
        sites[k] = floor((g->max[k] - g->min[k]) / spacing + 1e-9) + 1.0;
        if (g->count > 0) sites[k] = fmin(sites[k], (double)g->count);
        total_d *= sites[k];
    }
    if (g->count <= 0 && !(total_d <= NDEM_MAX_LATTICE_SITES)) {
        snprintf(err, err_len, "particles %d: the lattice has %.3g sites; at most %.0e are allowed",
                 index, total_d, NDEM_MAX_LATTICE_SITES);
        return -2;
    }
    long n[3] = {(long)sites[0], (long)sites[1], (long)sites[2]};
    long total = g->count > 0 && (double)g->count < total_d ? g->count : (long)total_d;
    if (ndem_bodies_reserve(&sim->bodies, sim->bodies.count + total)) return -1;
    double density = sim->materials.density[g->material];
    long placed = 0;
    for (long iz = 0; iz < n[2] && placed < total; iz++)
        for (long iy = 0; iy < n[1] && placed < total; iy++)
            for (long ix = 0; ix < n[0] && placed < total; ix++) {
                double x[3] = {g->min[0] + ix * spacing, g->min[1] + iy * spacing,
                               g->min[2] + iz * spacing};
                double r = sample_radius(&g->radius, &rng);
                if (ndem_bodies_add(&sim->bodies, x, r, g->velocity, g->material, density) < 0)
                    return -1;
                placed++;
            }
    return 0;
}

int ndem_generate_initial(ndem_sim *sim, const ndem_scene_def *def, char *err, size_t err_len)
{
    for (int i = 0; i < sim->emitter_count; i++) {
        const ndem_emitter_def *e = &sim->emitters[i];
        if (!region_ok(e->min, e->max, &e->radius, "emitters", i, err, err_len)) return -1;
    }
    for (int i = 0; i < def->generator_count; i++) {
        const ndem_generator_def *g = &def->generators[i];
        long first = sim->bodies.count;
        if (g->type != NDEM_GENERATOR_LIST &&
            !region_ok(g->min, g->max, &g->radius, "particles", i, err, err_len))
            return -1;
        if (g->type == NDEM_GENERATOR_LATTICE) {
            int rc = gen_lattice(sim, g, i, err, err_len);
            if (rc == -2) return -1;
            if (rc) goto oom;
        } else if (g->type == NDEM_GENERATOR_RANDOM) {
            ndem_rng rng;
            ndem_rng_seed(&rng, g->seed);
            if (ndem_bodies_reserve(&sim->bodies, sim->bodies.count + g->count)) goto oom;
            long placed = place_random(sim, NULL, g->min, g->max, &g->radius, g->material,
                                       g->velocity, &rng, g->count, 1000);
            if (placed < 0) goto oom;
            if (placed < g->count) {
                snprintf(err, err_len,
                         "particles %d: random fill placed only %ld of %ld spheres without "
                         "overlap; enlarge the region or lower the count",
                         i, placed, g->count);
                return -1;
            }
        } else {
            double density = sim->materials.density[g->material];
            for (long k = 0; k < g->list_count; k++) {
                const double *s = &g->spheres[4 * k];
                const double *v = g->velocities ? &g->velocities[3 * k] : NULL;
                long id = ndem_bodies_add(&sim->bodies, s, s[3], v, g->material, density);
                if (id < 0) goto oom;
                if (g->orientations)
                    memcpy(&sim->bodies.quat[4 * id], &g->orientations[4 * k], 4 * sizeof(double));
                if (g->angular_velocities)
                    memcpy(&sim->bodies.vel[6 * id + 3], &g->angular_velocities[3 * k],
                           3 * sizeof(double));
            }
        }
        ndem_shapes_assign(sim, first, sim->bodies.count, i, g->fixed_rotation);
        if (g->fixed_rotation) /* infinite inertia: no torque turns them */
            for (long k = first; k < sim->bodies.count; k++) sim->bodies.inv_inertia[k] = 0.0;
        if (g->bonded && sim->dem && ndem_dem_bond_range(sim, first, sim->bodies.count)) goto oom;
        if (g->type == NDEM_GENERATOR_LIST && g->bond_pair_count > 0 && sim->dem &&
            ndem_dem_bond_list(sim, first, g->bond_pairs, g->bond_pair_count))
            goto oom;
        int pushed = 0;
        for (int q = 0; q < 3; q++) pushed |= g->force[q] != 0 || g->force_rate[q] != 0;
        if (pushed) {
            struct ndem_forced *f =
                realloc(sim->forced, sizeof *f * (size_t)(sim->forced_count + 1));
            if (!f) goto oom;
            sim->forced = f;
            f += sim->forced_count++;
            f->first = first; /* creation ids: bodies are not reordered yet */
            f->end = sim->bodies.count;
            memcpy(f->force, g->force, sizeof f->force);
            memcpy(f->rate, g->force_rate, sizeof f->rate);
        }
    }
    return 0;
oom:
    snprintf(err, err_len, "out of memory while generating particles");
    return -1;
}

void ndem_apply_external_forces(ndem_sim *sim)
{
    ndem_bodies *b = &sim->bodies;
    double h = sim->solver.time_step, t = sim->time;
    for (int k = 0; k < sim->forced_count; k++) {
        const struct ndem_forced *f = &sim->forced[k];
        for (long id = f->first; id < f->end; id++) {
            long i = b->where[id];
            for (int q = 0; q < 3; q++)
                b->vel[6 * i + q] += h * (f->force[q] + f->rate[q] * t) * b->inv_mass[i];
        }
    }
}

/* Emitters (run at the start of a step): the rate accrues a debt of
 * particles that is paid whenever a free spot is found. */
/* A decomposed simulation's emitter sees every process's spheres near its
 * region (the region hook), so that every process places the same spheres
 * as one process would (docs/scale-out.md). */
static int region_seen(const ndem_sim *sim, const ndem_decomp_hooks *hk, const ndem_emitter_def *e,
                       ndem_bodies *seen)
{
    double reach = 2.0 * fmax(max_radius(&e->radius), largest_body_radius(&sim->bodies));
    double *xr = NULL;
    long n = hk->region(hk->ctx, e->min, e->max, &reach, &xr);
    if (n < 0 || ndem_bodies_reserve(seen, n + 1)) {
        free(xr);
        return -1;
    }
    for (long i = 0; i < n; i++) {
        double zero[6] = {0};
        if (ndem_bodies_add(seen, &xr[4 * i], xr[4 * i + 3], zero, 0, 1.0) < 0) {
            free(xr);
            return -1;
        }
    }
    free(xr);
    return 0;
}

int ndem_emit(ndem_sim *sim)
{
    double h = sim->solver.time_step;
    for (int i = 0; i < sim->emitter_count; i++) {
        const ndem_emitter_def *e = &sim->emitters[i];
        ndem_emitter_state *st = &sim->emitter_state[i];
        if (st->emitted >= e->max_count) continue;
        if (sim->time >= e->start && sim->time < e->stop) st->pending += e->rate * h;
        /* compared as doubles first: a huge rate must not overflow the cast */
        double owed = floor(st->pending), room = (double)(e->max_count - st->emitted);
        long want = owed < room ? (long)owed : e->max_count - st->emitted;
        if (want <= 0) continue;
        long before = sim->bodies.count;
        ndem_bodies seen = {0};
        const ndem_decomp_hooks *hk = sim->decomp ? &sim->decomp->hooks : NULL;
        if (hk && region_seen(sim, hk, e, &seen)) return -1;
        long placed = place_random(sim, hk ? &seen : NULL, e->min, e->max, &e->radius, e->material,
                                   e->velocity, &st->rng, want, 20);
        ndem_bodies_destroy(&seen);
        if (placed < 0) return -1;
        ndem_shapes_assign(sim, before, sim->bodies.count, -1 - i, 0);
        st->pending -= (double)placed;
        st->emitted += placed;
        if (hk && placed > 0 && hk->emitted(hk->ctx, before, placed)) return -1;
    }
    return 0;
}
