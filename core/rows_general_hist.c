/* rows_general_hist.c - what the general rows (rows_general.h) give the rest
 * of the step: the impact stage's islands, the loads on the geometry, the
 * contact statistics, and the warm-start history by the points' persistent
 * ids (keyed by creation ids, sorted, found by bisection), which the
 * checkpoint carries. */
#include "rows_general.h"

#include "loads.h"
#include "sim.h"
#include "vec.h"
#include "walls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

long ndem_general_impacts(const ndem_sim *sim)
{
    const ndem_general *g = sim->general;
    long n = 0;
    for (long k = 0; g && k < g->row_count; k++) n += g->row[k].impact == 2;
    return n;
}

void ndem_general_island_union(ndem_sim *sim, int *parent)
{
    const ndem_general *g = sim->general;
    for (long k = 0; g && k < g->row_count; k++) {
        const ndem_grow *r = &g->row[k];
        if (r->impact == 0 || r->q < 0) continue; /* geometry joins nothing */
        int ra = ndem_uf_root(parent, r->p), rb = ndem_uf_root(parent, r->q);
        if (ra != rb) parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
    }
}

void ndem_general_island_mark(ndem_sim *sim, int *parent, int *hit)
{
    const ndem_general *g = sim->general;
    for (long k = 0; g && k < g->row_count; k++)
        if (g->row[k].impact == 2) hit[ndem_uf_root(parent, g->row[k].p)] = 1;
}

long ndem_general_island_keep(ndem_sim *sim, int *parent, const int *hit)
{
    ndem_general *g = sim->general;
    long kept = 0;
    for (long k = 0; g && k < g->row_count; k++) {
        ndem_grow *r = &g->row[k];
        r->imp[0] = r->imp[1] = r->imp[2] = 0.0;
        if (r->impact == 0) continue;
        if (hit[ndem_uf_root(parent, r->p)]) kept++;
        else r->impact = 0;
    }
    return kept;
}

/* The impulse on q of point r this step (continuous and impact stage). */
static void impulse(const ndem_sim *sim, const ndem_grow *r, double *f)
{
    const int impact = sim->stats.impacts > 0; /* imp is this step's */
    double l[3] = {r->s * r->lam[0], r->lam[1], r->lam[2]};
    if (impact)
        for (int e = 0; e < 3; e++) l[e] += r->imp[e];
    for (int d = 0; d < 3; d++) f[d] = l[0] * r->t[0][d] + l[1] * r->t[1][d] + l[2] * r->t[2][d];
}

void ndem_general_loads(ndem_sim *sim)
{
    const ndem_general *g = sim->general;
    if (!g || sim->geometry_count == 0) return;
    const double inv_h = 1.0 / sim->solver.time_step, none[3] = {0, 0, 0};
    for (long k = 0; k < g->pair_count; k++) {
        const ndem_gpair *pr = &g->pair[k];
        if (ndem_key_is_particle(pr->key)) continue;
        for (int j = 0; j < pr->count; j++) {
            const ndem_grow *r = &g->row[pr->first + j];
            double f[3];
            impulse(sim, r, f);
            for (int d = 0; d < 3; d++) f[d] *= inv_h;
            ndem_loads_add(sim, pr->key.b, r->x, f, none); /* its moment about the pivot */
            ndem_walls_add_load(sim->rigid, pr->key.b, pr->key.feature, f);
        }
    }
}

void ndem_general_stats(const ndem_sim *sim, long *touching, long *geometry, double *max_overlap)
{
    const ndem_general *g = sim->general;
    for (long k = 0; g && k < g->pair_count; k++) {
        const ndem_gpair *pr = &g->pair[k];
        if (pr->touching == 0) continue;
        (*touching)++;
        *geometry += !ndem_key_is_particle(pr->key);
        for (int j = 0; j < pr->count; j++)
            if (g->row[pr->first + j].delta > *max_overlap)
                *max_overlap = g->row[pr->first + j].delta;
    }
}

int ndem_general_contact(const ndem_sim *sim, long k, long ids[2], int *feature, double x[3],
                         double n[3], double *fn, double ft[3])
{
    const ndem_general *g = sim->general;
    const ndem_gpair *pr = &g->pair[k];
    const double inv_h = 1.0 / sim->solver.time_step;
    double deepest = -INFINITY, f[3] = {0, 0, 0}, sn = 0;
    int any = 0;
    for (int j = 0; j < pr->count; j++) {
        const ndem_grow *r = &g->row[pr->first + j];
        double fj[3];
        impulse(sim, r, fj);
        any |= fj[0] != 0.0 || fj[1] != 0.0 || fj[2] != 0.0;
        for (int d = 0; d < 3; d++) f[d] += fj[d];
        sn += ndem_dot(fj, r->n);
        if (r->delta > deepest) {
            deepest = r->delta;
            memcpy(x, r->x, 3 * sizeof(double));
            memcpy(n, r->n, 3 * sizeof(double));
        }
    }
    if (!any) return 0;
    const ndem_bodies *b = &sim->bodies;
    const ndem_grow *r0 = &g->row[pr->first];
    ids[0] = b->id[r0->p];
    ids[1] = r0->q >= 0 ? b->id[r0->q] : -1L - pr->key.b;
    *feature = r0->q >= 0 ? -1 : pr->key.feature;
    *fn = sn * inv_h; /* the points' normal forces summed */
    double fnv = ndem_dot(f, n);
    for (int d = 0; d < 3; d++) ft[d] = (f[d] - fnv * n[d]) * inv_h;
    return 1;
}

static int hist_cmp(const ndem_ghist *x, int64_t p, int64_t q, int32_t feature, uint32_t id)
{
    if (x->p != p) return x->p < p ? -1 : 1;
    if (x->q != q) return x->q < q ? -1 : 1;
    if (x->feature != feature) return x->feature < feature ? -1 : 1;
    if (x->id != id) return x->id < id ? -1 : 1;
    return 0;
}

static int hist_order(const void *x, const void *y)
{
    const ndem_ghist *b = y;
    return hist_cmp(x, b->p, b->q, b->feature, b->id);
}

const ndem_ghist *ndem_general_history_find(const ndem_general *g, int64_t p, int64_t q,
                                            int32_t feature, uint32_t id)
{
    long lo = 0, hi = g->hist_count;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        int c = hist_cmp(&g->hist[mid], p, q, feature, id);
        if (c == 0) return &g->hist[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

int ndem_general_store_history(ndem_sim *sim)
{
    ndem_general *g = sim->general;
    if (!g) return 0;
    const ndem_bodies *b = &sim->bodies;
    if (ndem_ensure((void **)&g->next, &g->next_cap, g->row_count, sizeof *g->next)) return -1;
    long n = 0;
    for (long k = 0; k < g->pair_count; k++) {
        const ndem_gpair *pr = &g->pair[k];
        for (int j = 0; j < pr->count; j++) {
            const ndem_grow *r = &g->row[pr->first + j];
            ndem_ghist *e = &g->next[n++];
            memset(e, 0, sizeof *e); /* no padding bytes left unset (checkpoints) */
            e->p = b->id[r->p];
            e->q = r->q >= 0 ? b->id[r->q] : -1 - pr->key.b;
            e->feature = r->q >= 0 ? -1 : pr->key.feature;
            e->id = r->id;
            e->n = r->s * r->lam[0];
            for (int d = 0; d < 3; d++) e->f[d] = r->lam[1] * r->t[1][d] + r->lam[2] * r->t[2][d];
        }
    }
    /* keys are unique (ids of one pair's points are distinct), so the
     * order is total and qsort's result does not depend on its algorithm */
    if (n > 1) qsort(g->next, (size_t)n, sizeof *g->next, hist_order);
    ndem_ghist *t = g->hist;
    long tc = g->hist_cap;
    g->hist = g->next;
    g->hist_cap = g->next_cap;
    g->hist_count = n;
    g->next = t;
    g->next_cap = tc;
    return 0;
}

size_t ndem_general_state_size(const ndem_general *g)
{
    return g ? (size_t)g->hist_count * sizeof(ndem_ghist) : 0;
}

const void *ndem_general_state(const ndem_general *g) { return g->hist; }

int ndem_general_state_read(ndem_sim *sim, const void *in, size_t bytes)
{
    ndem_general *g = sim->general;
    if (!g || bytes % sizeof(ndem_ghist)) return -1;
    long n = (long)(bytes / sizeof(ndem_ghist));
    if (ndem_ensure((void **)&g->hist, &g->hist_cap, n, sizeof *g->hist)) return -1;
    if (n > 0) memcpy(g->hist, in, bytes);
    g->hist_count = n;
    for (long k = 0; k < n; k++) { /* sorted, and naming bodies and features that exist */
        const ndem_ghist *e = &g->hist[k];
        if (k > 0 && hist_order(&g->hist[k - 1], e) >= 0) return -1;
        if (e->p < 0 || (e->q < 0 && (-1 - e->q >= sim->geometry_count || e->feature < 0)))
            return -1;
    }
    return 0;
}
