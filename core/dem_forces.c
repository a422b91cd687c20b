/* dem_forces.c - one step of smooth-DEM forces and velocities, threaded with
 * results that do not depend on the thread count. One parallel region:
 *   1. every contact's force, history and energy on its own (per chunk of
 *      contacts, into per-contact arrays in pair order; dem.c and
 *      dem_lanes.c have the laws), and the chunk's books in pair order;
 *   2. the contacts each body is b of, as a CSR in pair order (one thread,
 *      only when the contacts are not last step's);
 *   3. each body sums its contacts (as b, then as a: the pair order of the
 *      serial sum, so the same bits) and takes its new velocity.
 * Then, serially: the chunks' books in chunk order and the geometry loads
 * in pair order, bonds (bond order; then the velocities follow), the
 * generators' forces, and this step's springs become the history. */
#include "dem.h"
#include "dem_private.h"
#include "shape_body.h"
#include "walls.h"

#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* contacts ahead of the one computed whose body b is prefetched */
#define NDEM_DEM_AHEAD 6
/* contacts per chunk of the lane kernel's loop (packets fill within one) */
#define NDEM_DEM_CHUNK 512
#if defined(__GNUC__)
#define NDEM_PREFETCH(p) __builtin_prefetch(p)
#else
#define NDEM_PREFETCH(p) ((void)(p))
#endif

/* Grows *p to `count` elements of `elem` bytes (realloc; never NULL after). */
static int grow(void **p, long count, size_t elem)
{
    void *q = realloc(*p, elem * (size_t)(count > 0 ? count : 1));
    if (!q) return -1;
    *p = q;
    return 0;
}

static int reserve_arrays(ndem_dem *d, long nc, long nb)
{
    long cap = nc + nc / 2 + 256;
    if (nc > d->cap || !d->force) {
        if (grow((void **)&d->force, NDEM_DEM_FORCE * cap, sizeof(double)) ||
            grow((void **)&d->energy, 3 * cap, sizeof(double)))
            return -1;
        d->cap = cap;
    }
    if (nc > d->next_cap || !d->next) {
        if (grow((void **)&d->next, NDEM_DEM_HIST * cap, sizeof(double))) return -1;
        d->next_cap = cap;
    }
    if (nb > d->body_cap || !d->acc) {
        if (grow((void **)&d->acc, 6 * (nb + nb / 2 + 64), sizeof(double))) return -1;
        d->body_cap = nb + nb / 2 + 64;
    }
    return ndem_ensure((void **)&d->as_b_start, &d->as_b_start_cap, nb + 1, sizeof(long)) ||
                   ndem_ensure((void **)&d->as_b, &d->as_b_cap, nc, sizeof(int))
               ? -1
               : 0;
}

/* Step 2a, per chunk of contacts [lo, hi) in parallel: its part of the
 * books, summed in pair order. */
static void book_chunk(ndem_dem *d, const ndem_contacts *c, long lo, long hi, ndem_dem_book *bk)
{
    double elastic = 0, dissip = 0, maxov = 0;
    long touching = 0, geo = 0, listed = 0;
    for (long k = lo; k < hi; k++) {
        const double *e = &d->energy[3 * k];
        int particle = ndem_key_is_particle(c->key[k]);
        if (!particle) d->geo_at[lo + listed++] = (int)k;
        elastic += e[0];
        dissip += e[1];
        if (e[2] > 0) {
            touching++;
            geo += !particle;
            maxov = e[2] > maxov ? e[2] : maxov; /* fmax, inline (no NaN here) */
        }
    }
    *bk = (ndem_dem_book){elastic, dissip, maxov, touching, geo, listed};
}

/* Step 2b (serial, after the parallel steps): the chunks' books added in
 * chunk order (a fixed-order reduction: the same bits on any thread count),
 * and the geometry loads in pair order. */
static void books_join(ndem_sim *sim, long chunks)
{
    ndem_dem *d = sim->dem;
    const ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    double elastic = 0, dissip = 0, maxov = 0;
    long touching = 0, geo = 0;
    ndem_loads_clear(sim);
    for (long ch = 0; ch < chunks; ch++) {
        const ndem_dem_book *bk = &d->book[ch];
        elastic += bk->elastic;
        dissip += bk->dissip;
        maxov = bk->maxov > maxov ? bk->maxov : maxov;
        touching += bk->touching;
        geo += bk->geo;
        for (long t = 0; t < bk->listed_geo; t++) {
            long k = d->geo_at[ch * NDEM_DEM_CHUNK + t];
            ndem_contact_key ck = c->key[k];
            /* on the geometry: -f at a, torque -f[3..5] about x_a */
            const double *f = &d->force[NDEM_DEM_FORCE * k];
            double fg[3] = {-f[0], -f[1], -f[2]}, tg[3] = {-f[3], -f[4], -f[5]};
            ndem_loads_add(sim, ck.b, &b->pos[3 * ck.a], fg, tg);
            ndem_walls_add_load(sim->rigid, ck.b, ck.feature, fg);
        }
    }
    d->dissipated += dissip;
    sim->stats.contacts = touching;
    sim->stats.geometry_contacts = geo;
    sim->stats.max_overlap = maxov;
    sim->stats.elastic_energy = elastic;
    sim->stats.dissipated_energy = d->dissipated;
}

/* Step 2c (serial): the as-b CSR in pair order. Only when the contacts
 * changed: while the contact skin holds they are last step's, and so is it. */
static void as_b_build(ndem_dem *d, const ndem_contacts *c, long nb)
{
    long nc = c->count, *bs = d->as_b_start;
    memset(bs, 0, sizeof(long) * (size_t)(nb + 1));
    for (long k = 0; k < nc; k++)
        if (ndem_key_is_particle(c->key[k])) bs[c->key[k].b + 1]++;
    for (long i = 0; i < nb; i++) bs[i + 1] += bs[i];
    /* fill in pair order: bs[i] runs to the end of i's range, then steps back */
    for (long k = 0; k < nc; k++) {
        ndem_contact_key ck = c->key[k];
        if (ndem_key_is_particle(ck)) d->as_b[bs[ck.b]++] = (int)k;
    }
    for (long i = nb; i > 0; i--) bs[i] = bs[i - 1];
    bs[0] = 0;
}

/* Whether this step's contacts are last step's (the history's keys). */
static int contacts_same(const ndem_dem *d, const ndem_contacts *c, long nb)
{
    return d->hist_bodies == nb && d->hist_count == c->count &&
           (c->count == 0 || memcmp(d->hist_key, c->key, sizeof *c->key * (size_t)c->count) == 0);
}

/* The material pair of every particle pair when all bodies have one
 * material, else -1: the lane kernel then skips two loads a lane. */
static int one_material_pair(const ndem_sim *sim)
{
    const int *m = sim->bodies.material, nm = sim->materials.count;
    long nb = sim->bodies.count;
    if (nb == 0) return -1;
    int diff = 0;
    for (long i = 1; i < nb; i++) diff |= m[i] ^ m[0];
    return diff ? -1 : m[0] * nm + m[0];
}

/* Step 3: body i's force and torque, its contacts summed in pair order (as b
 * first: those pairs have a lower a, so they come first in pair order). */
static void sum_body(const ndem_dem *d, const long *start, long i, double *acc)
{
    double s[6] = {0, 0, 0, 0, 0, 0};
    for (long t = d->as_b_start[i]; t < d->as_b_start[i + 1]; t++) {
        const double *f = &d->force[NDEM_DEM_FORCE * (long)d->as_b[t]];
        for (int q = 0; q < 3; q++) {
            s[q] -= f[q];
            s[3 + q] += f[6 + q];
        }
    }
    for (long k = start[i]; k < start[i + 1]; k++) {
        const double *f = &d->force[NDEM_DEM_FORCE * k];
        for (int q = 0; q < 6; q++) s[q] += f[q];
    }
    memcpy(acc, s, sizeof s);
}

/* Step 4: this step's springs become the history (keys and starts copied
 * only when the contacts changed). */
static int keep_history(ndem_sim *sim, int kept)
{
    ndem_dem *d = sim->dem;
    const ndem_contacts *c = &sim->contacts;
    long nc = c->count, nb = sim->bodies.count;
    if (nb + 1 > d->start_cap) {
        long *s = realloc(d->hist_start, sizeof(long) * (size_t)(nb + 1));
        if (!s) return -1;
        d->hist_start = s;
        d->start_cap = nb + 1;
    }
    if (nc > d->key_cap || !d->hist_key) {
        long cap = nc + nc / 2 + 256;
        ndem_contact_key *kk = realloc(d->hist_key, sizeof *kk * (size_t)cap);
        if (!kk) return -1;
        d->hist_key = kk;
        d->key_cap = cap;
    }
    if (!kept) {
        memcpy(d->hist_start, c->start, sizeof(long) * (size_t)(nb + 1));
        if (nc > 0) memcpy(d->hist_key, c->key, sizeof *d->hist_key * (size_t)nc);
    }
    double *t = d->hist;
    long tc = d->hist_cap;
    d->hist = d->next;
    d->hist_cap = d->next_cap;
    d->next = t;
    d->next_cap = tc;
    d->hist_bodies = nb;
    d->hist_count = nc;
    return 0;
}

/* Contacts [lo, hi) one by one (the scalar laws). */
static void scalar_range(ndem_sim *sim, long lo, long hi)
{
    ndem_dem *d = sim->dem;
    const ndem_contacts *c = &sim->contacts;
    const double *pos = sim->bodies.pos, *vel = sim->bodies.vel;
    long nc = c->count;
    for (long k = lo; k < hi; k++) {
        /* body b of a later contact is anywhere in the arrays: its position
         * and velocity are fetched ahead (a comes in order) */
        if (k + NDEM_DEM_AHEAD < nc && ndem_key_is_particle(c->key[k + NDEM_DEM_AHEAD])) {
            int pb = c->key[k + NDEM_DEM_AHEAD].b;
            NDEM_PREFETCH(&pos[3 * pb]);
            NDEM_PREFETCH(&vel[6 * pb]);
        }
        ndem_dem_contact_force(sim, k, &d->force[NDEM_DEM_FORCE * k], &d->next[NDEM_DEM_HIST * k],
                               &d->energy[3 * k]);
    }
}

/* Symplectic Euler for body i: v += h (f / m + g), w += h tau / I (from its
 * sum in acc); positions follow in the engine's common integrator. */
static inline void accelerate_body(ndem_sim *sim, long i)
{
    ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
    const double *acc = &sim->dem->acc[6 * i];
    double *v = &b->vel[6 * i];
    if (sim->shapes && b->shape[i] >= 0) { /* full inertia and the gyroscopic term */
        for (int q = 0; q < 3; q++) v[q] += h * (acc[q] * b->inv_mass[i] + sim->gravity[q]);
        ndem_shapes_turn(sim, i, &acc[3], h);
        return;
    }
    for (int q = 0; q < 3; q++) {
        v[q] += h * (acc[q] * b->inv_mass[i] + sim->gravity[q]);
        v[3 + q] += h * acc[3 + q] * b->inv_inertia[i];
    }
}

int ndem_dem_forces(ndem_sim *sim)
{
    ndem_dem *d = sim->dem;
    const ndem_contacts *c = &sim->contacts;
    long nc = c->count, nb = sim->bodies.count;
    long chunks = (nc + NDEM_DEM_CHUNK - 1) / NDEM_DEM_CHUNK;
    if (reserve_arrays(d, nc, nb) ||
        ndem_ensure((void **)&d->book, &d->book_cap, chunks, sizeof *d->book) ||
        ndem_ensure((void **)&d->geo_at, &d->geo_at_cap, nc, sizeof(int)))
        return -1;
    /* the laws read contact k's history at k without a search (hist_find) */
    d->hist_same = contacts_same(d, c, nb);
    d->particle_pair = one_material_pair(sim);
    const int kept = d->as_b_ok && d->hist_same; /* as_b is built for these contacts */
    /* bonds add to the sums after them: then the velocities follow */
    const int fused = d->bond_count == 0;
    /* one parallel region: the forces and books per chunk of contacts, the
     * as-b CSR if the contacts changed, then each body's sum and velocity */
#pragma omp parallel num_threads(ndem_threads_for(sim, nc > nb ? nc : nb))
    {
#pragma omp for schedule(static)
        for (long ch = 0; ch < chunks; ch++) {
            long lo = ch * NDEM_DEM_CHUNK, hi = lo + NDEM_DEM_CHUNK < nc ? lo + NDEM_DEM_CHUNK : nc;
            if (d->lanes) ndem_dem_lanes_range(sim, lo, hi); /* the hertz law in lanes */
            else scalar_range(sim, lo, hi);
            book_chunk(d, c, lo, hi, &d->book[ch]);
        }
        if (!kept) {
#pragma omp single
            as_b_build(d, c, nb);
        }
#pragma omp for schedule(static)
        for (long i = 0; i < nb; i++) {
            sum_body(d, c->start, i, &d->acc[6 * i]);
            if (fused) accelerate_body(sim, i);
        }
    }
    d->as_b_ok = 1;
    d->hist_same = 0; /* the history becomes this step's below */
    books_join(sim, chunks);
    for (long k = 0; k < d->bond_count; k++)
        if (!d->bond_broken[k]) ndem_dem_bond_force(sim, k);
    if (!fused)
        for (long i = 0; i < nb; i++) accelerate_body(sim, i);
    ndem_apply_external_forces(sim);
    return keep_history(sim, kept);
}
