/* broadphase.c - a uniform cell grid over hashed cell coordinates: O(N) to
 * build (counting sort by bucket) and O(N) to query for mono- and
 * poly-disperse beds alike. Cells are numbered densely over the particles'
 * bounding box when that box is small (the usual bed, hopper or drum), and
 * hashed otherwise. Each particle remembers its exact cell so hash
 * collisions never produce a pair twice.
 *
 * Radius ratios. The cell must hold the reach of the largest pair it
 * serves, so one 100 m sphere among millimetre ones would put them all into
 * one cell (quadratic time and memory). The cell is therefore sized by the
 * ordinary bodies (ndem_grid_radii: up to 4-8 times the 90 % quantile of
 * the radii); the few bodies above that are "big" and kept out of the cells.
 * Each big body finds its small partners through the cells its box covers,
 * clipped to the grid's block, or by a plain scan of the bodies when that
 * box spans more cells than there are bodies; big pairs among themselves
 * come from a sweep along x. Chosen over a hierarchical grid for being one
 * grid plus a short side path: scenes without big bodies run exactly as
 * before (same cell, same lists, same bits). With B big bodies the extra
 * work is O(B N) at worst, O(N) for the usual one big body. The lists
 * still come out sorted by j, so the contacts keep their pair order. */
#include "broadphase_lll.h"
#include "grid.h"
#include "sim.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* radii binned by binary exponent (frexp): r < 2^e */
#define NDEM_RADIUS_BINS 2200
#define NDEM_RADIUS_BIAS 1100

void ndem_grid_radii(const ndem_bodies *b, double *r_cell, double *split)
{
    long n = b->count;
    double rmin = INFINITY, rmax = 0.0;
    for (long i = 0; i < n; i++) rmin = fmin(rmin, b->radius[i]), rmax = fmax(rmax, b->radius[i]);
    *r_cell = rmax;
    *split = INFINITY;
    /* every bin bound exceeds r_min, so no radius can exceed the threshold:
     * the usual case, without the histogram */
    if (n == 0 || rmax <= 4.0 * rmin) return;
    long *hist = calloc(NDEM_RADIUS_BINS, sizeof(long));
    if (!hist) return; /* out of memory: one grid for all, as always safe */
    for (long i = 0; i < n; i++) {
        int e = 0;
        frexp(b->radius[i], &e);
        e += NDEM_RADIUS_BIAS;
        hist[e < 0 ? 0 : (e >= NDEM_RADIUS_BINS ? NDEM_RADIUS_BINS - 1 : e)]++;
    }
    long want = n - n / 10, acc = 0;
    int e = 0;
    while (e < NDEM_RADIUS_BINS - 1 && (acc += hist[e]) < want) e++;
    free(hist);
    double s = ldexp(1.0, e - NDEM_RADIUS_BIAS + 2);
    if (rmax <= s) return;
    double rc = 0.0;
    for (long i = 0; i < n; i++)
        if (b->radius[i] <= s && b->radius[i] > rc) rc = b->radius[i];
    *r_cell = rc;
    *split = s;
}

/* The search reach of the lists: pair i, j is listed within r_i + r_j +
 * pair_skin. A pair can become a contact only within 0.05 min(r_i, r_j) of
 * the surfaces (contacts.c), so the 0.05 r_max in `skin` (the Verlet
 * criterion's worst pair, ndem_neighbours_update) shrinks to the pair's own
 * radius; exactly `skin` for a pair of the largest radius. */
static double pair_skin(double skin, double rmax, double ri, double rj)
{
    return skin - 0.05 * (rmax - fmin(ri, rj));
}

int ndem_broadphase_build(ndem_sim *sim, double skin, double rmax)
{
    ndem_grid *g = &sim->grid;
    const ndem_bodies *b = &sim->bodies;
    long n = b->count;
    ndem_grid_radii(b, &g->r_cell, &g->split);
    g->reach = pair_skin(skin, rmax, g->r_cell, g->r_cell);
    g->cell = 2.0 * g->r_cell + g->reach;
    if (g->split < INFINITY) { /* cells this small may be sparse: no finer than */
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        long small = 0;
        for (long i = 0; i < n; i++) {
            if (b->radius[i] > g->split) continue;
            small++;
            for (int k = 0; k < 3; k++)
                lo[k] = fmin(lo[k], b->pos[3 * i + k]), hi[k] = fmax(hi[k], b->pos[3 * i + k]);
        }
        /* about two bodies per cell of the block, so that it stays dense (the
         * hashed cells of a sparse cloud cost more than a few more pairs) */
        double v = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
        double c = cbrt(v / (0.5 * (double)small + 1.0));
        if (isfinite(c) && c > g->cell) g->cell = fmin(c, 2.0 * rmax + skin);
    }
    if (g->cell <= 0) g->cell = 1.0;
    g->inv_cell = 1.0 / g->cell;
    if (n > g->capacity) {
        long cap = n + n / 2 + 16;
        long *sorted = realloc(g->sorted, sizeof(long) * (size_t)cap);
        if (sorted) g->sorted = sorted;
        int *coord = realloc(g->coord, 3 * sizeof(int) * (size_t)cap);
        if (coord) g->coord = coord;
        uint32_t *bucket = realloc(g->bucket, sizeof(uint32_t) * (size_t)cap);
        if (bucket) g->bucket = bucket;
        if (!sorted || !coord || !bucket) return -1;
        g->capacity = cap;
    }
    double inv = g->inv_cell;
    int lo[3] = {INT_MAX, INT_MAX, INT_MAX}, hi[3] = {INT_MIN, INT_MIN, INT_MIN};
    long small = 0;
    g->big_count = 0;
    for (long i = 0; i < n; i++) {
        int *c = &g->coord[3 * i];
        int big = b->radius[i] > g->split;
        for (int k = 0; k < 3; k++) {
            double x = floor(b->pos[3 * i + k] * inv);
            /* far outside any sane scene: clamped (measure() stops the run) */
            c[k] = x > -1e9 && x < 1e9 ? (int)x : (x > 0 ? 1000000000 : -1000000000);
            if (big) continue;
            if (c[k] < lo[k]) lo[k] = c[k];
            if (c[k] > hi[k]) hi[k] = c[k];
        }
        if (!big) {
            small++;
            continue;
        }
        if (ndem_ensure((void **)&g->big, &g->big_capacity, g->big_count + 1, sizeof(long)))
            return -1;
        g->big[g->big_count++] = i;
    }
    /* A dense block when it has at most a few cells per particle. */
    double cells = 1.0;
    for (int k = 0; k < 3; k++) cells *= small > 0 ? (double)hi[k] - lo[k] + 1.0 : 1.0;
    g->dense = small > 0 && cells <= 4.0 * (double)small + 4096.0;
    for (int k = 0; k < 3; k++) {
        g->lo[k] = small > 0 ? lo[k] : 0;
        g->hi[k] = small > 0 ? hi[k] : -1;
    }
    long table = 1024;
    if (g->dense) {
        for (int k = 0; k < 3; k++) g->dim[k] = hi[k] - lo[k] + 1;
        table = (long)cells;
    } else {
        while (table < 2 * small) table *= 2;
    }
    if (table + 1 > g->table_capacity) {
        long *cs = realloc(g->cell_start, sizeof(long) * (size_t)(table + 1));
        if (!cs) return -1;
        g->cell_start = cs;
        g->table_capacity = table + 1;
    }
    g->table_size = table;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, n))
    for (long i = 0; i < n; i++) {
        const int *c = &g->coord[3 * i];
        if (b->radius[i] > g->split) g->bucket[i] = NDEM_GRID_BIG;
        else if (g->dense)
            g->bucket[i] =
                (uint32_t)(((long)(c[2] - lo[2]) * g->dim[1] + (c[1] - lo[1])) * g->dim[0] +
                           (c[0] - lo[0]));
        else g->bucket[i] = ndem_cell_hash(c[0], c[1], c[2], table - 1);
    }
    memset(g->cell_start, 0, sizeof(long) * (size_t)(table + 1));
    for (long i = 0; i < n; i++)
        if (g->bucket[i] != NDEM_GRID_BIG) g->cell_start[g->bucket[i] + 1]++;
    for (long t = 0; t < table; t++) g->cell_start[t + 1] += g->cell_start[t];
    /* Stable fill in body order (deterministic); cell_start is shifted by one
     * slot during the fill and restored after. */
    for (long i = 0; i < n; i++)
        if (g->bucket[i] != NDEM_GRID_BIG) g->sorted[g->cell_start[g->bucket[i]]++] = i;
    for (long t = table; t > 0; t--) g->cell_start[t] = g->cell_start[t - 1];
    g->cell_start[0] = 0;
    return 0;
}

/* Extra reach of the lists beyond the search skin, in units of the smallest
 * radius: a settled bed keeps its lists for many steps. */
#define NDEM_LIST_MARGIN 1.0
#define NDEM_LIST_BLOCK 512

/* ndem_within without the per-pair reach: with no big body the radii are
 * within a factor of 4-8 and the lists keep the old reach (and cost). */
static int within(const ndem_bodies *b, long i, long j, double skin)
{
    const double *xi = &b->pos[3 * i], *xj = &b->pos[3 * j];
    double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
    double reach = b->radius[i] + b->radius[j] + skin;
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach;
}

static int cmp_int(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

/* Insertion sort for the usual short list, qsort for a big body's long one. */
static void sort_ints(int *v, long n)
{
    if (n > 32) {
        qsort(v, (size_t)n, sizeof *v, cmp_int);
        return;
    }
    for (long i = 1; i < n; i++) {
        int x = v[i];
        long k = i - 1;
        while (k >= 0 && v[k] > x) {
            v[k + 1] = v[k];
            k--;
        }
        v[k + 1] = x;
    }
}

/* The blocks start in equal slices of the last step's packets, dead until
 * this step's colouring (ndem_contacts_spent; in a landing bed's rebuilds
 * the blocks hold 14 pairs a body, 55 B a particle, which would otherwise
 * add to the step's peak); a block that outgrows its slice moves to an
 * allocation of its own (ndem_pair_block_push). Without packets (the first
 * step, smooth DEM) every block allocates its own. */
static void blocks_in_spent(ndem_sim *sim, long nblocks)
{
    ndem_neighbours *nl = &sim->neighbours;
    size_t bytes = 0;
    int *spent = ndem_contacts_spent(sim, &bytes);
    long per = nblocks > 0 ? (long)(bytes / sizeof(int)) / nblocks : 0;
    for (long bi = 0; bi < nblocks; bi++) {
        ndem_pair_block *blk = &nl->blocks[bi];
        if (blk->own) free(blk->key);
        *blk = (ndem_pair_block){0};
        if (per >= NDEM_LIST_BLOCK) *blk = (ndem_pair_block){&spent[bi * per], 0, per, 0};
    }
}

/* Grid search with the list skin; each block of bodies fills its own buffer
 * and the buffers join in block order (thread-count independent). */
static int grid_lists(ndem_sim *sim, double skin, double rmax)
{
    ndem_neighbours *nl = &sim->neighbours;
    const ndem_bodies *b = &sim->bodies;
    const ndem_grid *g = &sim->grid;
    long n = b->count;
    if (ndem_broadphase_build(sim, skin, rmax)) return -1;
    long nblocks = (n + NDEM_LIST_BLOCK - 1) / NDEM_LIST_BLOCK;
    if (ndem_pair_blocks_reserve(&nl->blocks, &nl->block_capacity, nblocks)) return -1;
    /* The old lists are not read from here on: their memory goes back
     * before the blocks fill, and the grid's before the lists are joined, so
     * that a build holds two of the three at a time, not all three. */
    free(nl->j);
    nl->j = NULL;
    nl->capacity = 0;
    blocks_in_spent(sim, nblocks);
    ndem_big_pairs big = {0};
    if (g->big_count > 0 && ndem_big_pairs_find(sim, skin, rmax, &big)) return -1;
    long *start = nl->start;
    start[0] = 0;
    int failed = 0;
    long tested = big.tested;
#pragma omp parallel for schedule(dynamic, 1) num_threads(ndem_threads_for(sim, n))                \
    reduction(| : failed) reduction(+ : tested)
    for (long bi = 0; bi < nblocks; bi++) {
        ndem_pair_block *blk = &nl->blocks[bi];
        blk->count = 0;
        long hi = (bi + 1) * NDEM_LIST_BLOCK < n ? (bi + 1) * NDEM_LIST_BLOCK : n;
        for (long i = bi * NDEM_LIST_BLOCK; i < hi; i++) {
            long first = blk->count;
            if (g->big_count == 0) /* the old path, to the instruction */
                NDEM_GRID_FOR_NEIGHBOURS(g, i, j, {
                    if (within(b, i, j, skin)) failed |= ndem_pair_block_push(blk, (int)j);
                });
            else if (g->bucket[i] != NDEM_GRID_BIG)
                NDEM_GRID_FOR_NEIGHBOURS(g, i, j, {
                    tested++;
                    if (ndem_within(b, i, j, skin, rmax))
                        failed |= ndem_pair_block_push(blk, (int)j);
                });
            if (big.start) /* found from the big body's side, already tested */
                for (long k = big.start[i]; k < big.start[i + 1]; k++)
                    failed |= ndem_pair_block_push(blk, big.j[k]);
            if (!failed && blk->count > first) /* key is NULL until a first pair */
                sort_ints(&blk->key[first], blk->count - first);
            start[i + 1] = blk->count - first;
        }
    }
    ndem_big_pairs_free(&big);
    ndem_grid_destroy(&sim->grid);
    if (failed) return -1;
    nl->tested = tested;
    for (long i = 0; i < n; i++) start[i + 1] += start[i];
    if (ndem_ensure((void **)&nl->j, &nl->capacity, start[n] + 1, sizeof(int))) return -1;
    nl->count = start[n];
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, n))
    for (long bi = 0; bi < nblocks; bi++) {
        const ndem_pair_block *blk = &nl->blocks[bi];
        if (blk->count > 0)
            memcpy(&nl->j[start[bi * NDEM_LIST_BLOCK]], blk->key, sizeof(int) * (size_t)blk->count);
    }
    /* The grid and the block buffers wait for the next build, which may be
     * many steps away: their memory goes back now. */
    for (long bi = 0; bi < nl->block_capacity; bi++) {
        if (nl->blocks[bi].own) free(nl->blocks[bi].key);
        nl->blocks[bi] = (ndem_pair_block){0};
    }
    return 0;
}

/* The lists by the chosen broad phase, then what every build keeps. */
static int neighbours_build(ndem_sim *sim, double skin, double rmax)
{
    ndem_neighbours *nl = &sim->neighbours;
    const ndem_bodies *b = &sim->bodies;
    long n = b->count;
    if (ndem_ensure((void **)&nl->start, &nl->start_capacity, n + 1, sizeof(long))) return -1;
    /* The last build's positions are not read by a build: their memory goes
     * back first and the grid takes its place, so a build (the step's peak
     * memory) does not hold both (24 B a body; docs/performance.md). */
    free(nl->x0);
    nl->x0 = NULL;
    nl->x0_capacity = 0;
    nl->valid = 0;
    int rc = sim->solver.broad_phase == NDEM_BROAD_PHASE_LLL ? ndem_lll_lists(sim, skin, rmax, nl)
                                                             : grid_lists(sim, skin, rmax);
    if (rc || ndem_ensure((void **)&nl->x0, &nl->x0_capacity, 3 * n, sizeof(double))) return -1;
    if (n > 0) /* an empty scene has no arrays yet: memcpy must not see NULL */
        memcpy(nl->x0, b->pos, 3 * sizeof(double) * (size_t)n);
    nl->bodies = n;
    nl->skin = skin;
    nl->valid = 1;
    nl->builds++;
    return 0;
}

/* keeps the two largest values seen in t[0] >= t[1] */
static void top2(double *t, double e)
{
    if (e > t[0]) t[1] = t[0], t[0] = e;
    else if (e > t[1]) t[1] = e;
}

/* A pair passes the contact test (contacts.c) only when its gap is below
 * 0.05 min(r_i, r_j) + h |v_i - v_j| <= 0.05 r_max + h |v_i| + h |v_j|. Since the build, body i
 * moved d_i; with e_i = d_i + h |v_i| the gap of a pair missing from the lists is still above skin
 * - e_i - e_j, so they serve while 0.05 r_max + e_1 + e_2 (the two largest e) stays within their
 * skin. One fast body therefore does not shrink everyone's margin twice. */
int ndem_neighbours_update(ndem_sim *sim, double *geometry_skin)
{
    ndem_neighbours *nl = &sim->neighbours;
    const ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
    long n = b->count;
    int fresh = !nl->valid || nl->bodies != n;
    if (nl->extra_count > 0 && ndem_fast_bodies_reset(nl, n)) return -1; /* last step's */
    /* the two largest e (displacements counted) and h|v| (a new build) */
    double top[4] = {0.0, 0.0, 0.0, 0.0}, rmin = INFINITY, rmax = 0.0;
#pragma omp parallel num_threads(ndem_threads_for(sim, n))
    {
        double t[4] = {0.0, 0.0, 0.0, 0.0}, tmin = INFINITY, tmax = 0.0;
#pragma omp for schedule(static) nowait
        for (long i = 0; i < n; i++) {
            const double *v = &b->vel[6 * i];
            double ev = h * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), e = ev;
            if (!fresh) {
                const double *x = &b->pos[3 * i], *x0 = &nl->x0[3 * i];
                double d[3] = {x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]};
                e += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            }
            top2(&t[0], e);
            top2(&t[2], ev);
            tmin = fmin(tmin, b->radius[i]);
            tmax = fmax(tmax, b->radius[i]);
        }
#pragma omp critical
        { /* the same two largest for any split of the bodies */
            for (int k = 0; k < 4; k += 2) top2(&top[k], t[k]), top2(&top[k], t[k + 1]);
            rmin = fmin(rmin, tmin), rmax = fmax(rmax, tmax);
        }
    }
    if (n == 0) rmin = rmax = 0.0;
    /* 2 h |v|_max, bit for bit 2 sqrt(max |v|^2) h: both maps are monotone */
    *geometry_skin = n > 0 ? fmin(2.0 * top[2] + 0.05 * rmin, 2.0 * rmax) : 0.0;
    double need = 0.05 * rmax + top[0] + top[1];
    /* Beyond a diameter the search is capped (tunnelling guard, AGX 35.7)
     * and the lists, missing pairs by design, are searched afresh. */
    int capped = need > 2.0 * rmax;
    if (!fresh && !capped && need <= nl->skin) return 0;
    double skin = fmin(0.05 * rmax + top[2] + top[3], 2.0 * rmax); /* nothing moved yet */
    /* a few rattlers: searched afresh, the lists kept (broadphase_fast.c),
     * where a fresh search would not be capped either */
    if (!fresh && 0.05 * rmax + top[2] + top[3] <= 2.0 * rmax) {
        int kept = ndem_fast_bodies_keep(sim, rmax, top[2]);
        if (kept) return kept < 0 ? -1 : 0;
    }
    /* capped: rebuilt every step anyway, so no margin */
    return neighbours_build(sim, capped ? skin : skin + NDEM_LIST_MARGIN * rmin, rmax);
}

void ndem_neighbours_drop(ndem_neighbours *nl)
{
    nl->valid = 0;
    free(nl->j), free(nl->x0);
    nl->j = NULL, nl->x0 = NULL;
    nl->count = nl->capacity = nl->x0_capacity = 0;
}

void ndem_neighbours_destroy(ndem_neighbours *nl)
{
    free(nl->start);
    free(nl->j);
    free(nl->x0);
    free(nl->extra);
    free(nl->extra_first);
    for (long i = 0; i < nl->block_capacity; i++) free(nl->blocks[i].key);
    free(nl->blocks);
    memset(nl, 0, sizeof *nl);
}

void ndem_grid_destroy(ndem_grid *g)
{
    free(g->big);
    free(g->cell_start);
    free(g->sorted);
    free(g->coord);
    free(g->bucket);
    memset(g, 0, sizeof *g);
}
