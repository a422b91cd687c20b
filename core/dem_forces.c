/* dem_forces.c - one step of smooth-DEM forces, threaded with results that do
 * not depend on the thread count:
 *   1. every contact's force, history and energy on its own (parallel over
 *      contacts, into per-contact arrays in pair order; dem.c has the laws);
 *   2. the contacts each body is b of, as a CSR in pair order (serial, with
 *      the geometry loads and the energy books, which sum in pair order);
 *   3. each body sums its contacts (as b, then as a: the pair order of the
 *      serial sum, so the same bits) in parallel over bodies;
 *   4. bonds (serial, bond order), and this step's springs become the
 *      history (a pointer swap). */
#include "dem.h"
#include "dem_private.h"
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

/* Step 2: the as-b CSR, the geometry loads and the books, in pair order. */
static void books(ndem_sim *sim)
{
    ndem_dem *d = sim->dem;
    const ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    long nc = c->count, nb = b->count, *bs = d->as_b_start;
    memset(bs, 0, sizeof(long) * (size_t)(nb + 1));
    ndem_loads_clear(sim);
    double elastic = 0, dissip = 0, maxov = 0;
    long touching = 0, geo = 0;
    for (long k = 0; k < nc; k++) {
        ndem_contact_key ck = c->key[k];
        const double *e = &d->energy[3 * k];
        int particle = ndem_key_is_particle(ck);
        if (particle) {
            bs[ck.b + 1]++;
        } else { /* on the geometry: -f at a, torque -f[3..5] about x_a */
            const double *f = &d->force[NDEM_DEM_FORCE * k];
            double fg[3] = {-f[0], -f[1], -f[2]}, tg[3] = {-f[3], -f[4], -f[5]};
            ndem_loads_add(sim, ck.b, &b->pos[3 * ck.a], fg, tg);
            ndem_walls_add_load(sim->rigid, ck.b, ck.feature, fg);
        }
        elastic += e[0];
        dissip += e[1];
        if (e[2] > 0) {
            touching++;
            geo += !particle;
            maxov = fmax(maxov, e[2]);
        }
    }
    for (long i = 0; i < nb; i++) bs[i + 1] += bs[i];
    /* fill in pair order: bs[i] runs to the end of i's range, then steps back */
    for (long k = 0; k < nc; k++) {
        ndem_contact_key ck = c->key[k];
        if (ndem_key_is_particle(ck)) d->as_b[bs[ck.b]++] = (int)k;
    }
    for (long i = nb; i > 0; i--) bs[i] = bs[i - 1];
    bs[0] = 0;
    d->dissipated += dissip;
    sim->stats.contacts = touching;
    sim->stats.geometry_contacts = geo;
    sim->stats.max_overlap = maxov;
    sim->stats.elastic_energy = elastic;
    sim->stats.dissipated_energy = d->dissipated;
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

/* Step 4: this step's springs become the history. */
static int keep_history(ndem_sim *sim)
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
    memcpy(d->hist_start, c->start, sizeof(long) * (size_t)(nb + 1));
    if (nc > 0) memcpy(d->hist_key, c->key, sizeof *d->hist_key * (size_t)nc);
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

int ndem_dem_forces(ndem_sim *sim)
{
    ndem_dem *d = sim->dem;
    const ndem_contacts *c = &sim->contacts;
    long nc = c->count, nb = sim->bodies.count;
    if (reserve_arrays(d, nc, nb)) return -1;
    const double *pos = sim->bodies.pos, *vel = sim->bodies.vel;
    if (d->lanes) { /* the hertz law in lanes, over chunks of contacts (dem_lanes.c) */
        long chunks = (nc + NDEM_DEM_CHUNK - 1) / NDEM_DEM_CHUNK;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, nc))
        for (long ch = 0; ch < chunks; ch++) {
            long lo = ch * NDEM_DEM_CHUNK, hi = lo + NDEM_DEM_CHUNK < nc ? lo + NDEM_DEM_CHUNK : nc;
            ndem_dem_lanes_range(sim, lo, hi);
        }
    } else {
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, nc))
        for (long k = 0; k < nc; k++) {
            /* body b of a later contact is anywhere in the arrays: its position
             * and velocity are fetched ahead (a comes in order) */
            if (k + NDEM_DEM_AHEAD < nc && ndem_key_is_particle(c->key[k + NDEM_DEM_AHEAD])) {
                int pb = c->key[k + NDEM_DEM_AHEAD].b;
                NDEM_PREFETCH(&pos[3 * pb]);
                NDEM_PREFETCH(&vel[6 * pb]);
            }
            ndem_dem_contact_force(sim, k, &d->force[NDEM_DEM_FORCE * k],
                                   &d->next[NDEM_DEM_HIST * k], &d->energy[3 * k]);
        }
    }
    books(sim);
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, nb))
    for (long i = 0; i < nb; i++) sum_body(d, c->start, i, &d->acc[6 * i]);
    for (long k = 0; k < d->bond_count; k++)
        if (!d->bond_broken[k]) ndem_dem_bond_force(sim, k);
    return keep_history(sim);
}
