/* broadphase_fast.c - Verlet lists kept past a few fast bodies.
 *
 * The lists serve while 0.05 r_max + e_1 + e_2 (the two largest e_i =
 * displacement since the build + h |v_i|) fits their skin
 * (ndem_neighbours_update). In a settled bed a few rattlers alone break
 * that every 3-6 steps and force a full rebuild. Here the k fastest bodies
 * (k <= NDEM_FAST_MAX) are left out of the criterion: when the two largest e
 * of the others fit the skin, every pair of two other bodies that can pass
 * the contact test is still listed, and the pairs of a fast body are found
 * by a scan of all bodies against it: a pair (f, j) passes the contact test
 * only when its gap is below 0.05 min(r_f, r_j) + h |v_f - v_j| <= 0.05 r_max
 * + h |v_f| + max_j h |v_j|, so the scan keeps every pair within that reach.
 * The contact test then sees every pair a fresh search would give it, in
 * pair order (contacts.c merges the scan's pairs into the lists): the same
 * contacts, the same bits. Used by NDEM only (smooth DEM's contact skin
 * reads the lists' displacement bound, contact_skin.c). */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* At most this many fast bodies; more, and the lists are rebuilt (each costs
 * one pass over the bodies a step). */
#define NDEM_FAST_MAX 16
/* pairs one thread may find in a step before the lists are rebuilt instead */
#define NDEM_FAST_PAIRS 1024

typedef struct fast_body {
    double e;
    long i;
} fast_body;

/* larger e first, then the lower index: a total order, so the same bodies
 * come out for any split of the loop */
static int before(fast_body a, fast_body b) { return a.e > b.e || (a.e == b.e && a.i < b.i); }

static void insert(fast_body *t, int *n, fast_body x)
{
    const int cap = NDEM_FAST_MAX + 2;
    if (*n == cap && !before(x, t[cap - 1])) return;
    int k = *n < cap ? (*n)++ : cap - 1;
    while (k > 0 && before(x, t[k - 1])) {
        t[k] = t[k - 1];
        k--;
    }
    t[k] = x;
}

int ndem_fast_bodies_reset(ndem_neighbours *nl, long bodies)
{
    if (bodies > nl->extra_first_capacity) {
        long *f = realloc(nl->extra_first, sizeof(long) * (size_t)bodies);
        if (!f) return -1;
        nl->extra_first = f;
        for (long i = nl->extra_first_capacity; i < bodies; i++) f[i] = -1;
        nl->extra_first_capacity = bodies;
    }
    for (long k = 0; k < nl->extra_count; k++) nl->extra_first[nl->extra[2 * k]] = -1;
    nl->extra_count = 0;
    return 0;
}

static int cmp_pair(const void *pa, const void *pb)
{
    const int *a = pa, *b = pb;
    if (a[0] != b[0]) return (a[0] > b[0]) - (a[0] < b[0]);
    return (a[1] > b[1]) - (a[1] < b[1]);
}

int ndem_fast_bodies_keep(ndem_sim *sim, double rmax, double vmax)
{
    ndem_neighbours *nl = &sim->neighbours;
    const ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
    long n = b->count;
    if (sim->dem || ndem_fast_bodies_reset(nl, n)) return sim->dem ? 0 : -1;
    /* the NDEM_FAST_MAX + 2 largest e, by the expression of the criterion */
    fast_body top[NDEM_FAST_MAX + 2];
    int nt = 0;
#pragma omp parallel num_threads(ndem_threads_for(sim, n))
    {
        fast_body t[NDEM_FAST_MAX + 2];
        int m = 0;
#pragma omp for schedule(static) nowait
        for (long i = 0; i < n; i++) {
            const double *v = &b->vel[6 * i], *x = &b->pos[3 * i], *x0 = &nl->x0[3 * i];
            double d[3] = {x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]};
            double e = h * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            e += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            insert(t, &m, (fast_body){e, i});
        }
#pragma omp critical
        for (int k = 0; k < m; k++) insert(top, &nt, t[k]);
    }
    /* the fewest fast bodies that leave the others within the skin */
    int k = 1;
    while (k <= NDEM_FAST_MAX) {
        double e1 = k < nt ? top[k].e : 0.0, e2 = k + 1 < nt ? top[k + 1].e : 0.0;
        if (0.05 * rmax + e1 + e2 <= nl->skin) break;
        k++;
    }
    if (k > NDEM_FAST_MAX || k > nt) return 0;
    /* every body against the fast ones, within the reach of the contact test */
    double reach[NDEM_FAST_MAX];
    for (int f = 0; f < k; f++) {
        const double *v = &b->vel[6 * top[f].i];
        reach[f] = 0.05 * rmax + h * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + vmax;
    }
    int failed = 0;
#pragma omp parallel num_threads(ndem_threads_for(sim, n)) reduction(| : failed)
    {
        int found[2 * NDEM_FAST_PAIRS], m = 0;
#pragma omp for schedule(static) nowait
        for (long j = 0; j < n; j++) {
            const double *xj = &b->pos[3 * j];
            for (int f = 0; f < k; f++) {
                long i = top[f].i;
                if (i == j) continue;
                const double *xi = &b->pos[3 * i];
                double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
                /* a hair wider than the test: rounding never drops a pair */
                double r = (b->radius[i] + b->radius[j] + reach[f]) * (1.0 + 1e-9);
                if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] >= r * r) continue;
                if (m == NDEM_FAST_PAIRS) {
                    failed = 1;
                    break;
                }
                found[2 * m] = (int)(i < j ? i : j);
                found[2 * m + 1] = (int)(i < j ? j : i);
                m++;
            }
        }
#pragma omp critical
        if (!failed && !ndem_ensure((void **)&nl->extra, &nl->extra_capacity,
                                    2 * (nl->extra_count + m), sizeof(int))) {
            memcpy(&nl->extra[2 * nl->extra_count], found, 2 * sizeof(int) * (size_t)m);
            nl->extra_count += m;
        } else failed = 1;
    }
    if (failed) { /* too many pairs, or out of memory: rebuild */
        nl->extra_count = 0;
        return 0;
    }
    /* pair order; a pair of two fast bodies was found twice */
    qsort(nl->extra, (size_t)nl->extra_count, 2 * sizeof(int), cmp_pair);
    long u = 0;
    for (long q = 0; q < nl->extra_count; q++) {
        if (u > 0 && nl->extra[2 * u - 2] == nl->extra[2 * q] &&
            nl->extra[2 * u - 1] == nl->extra[2 * q + 1])
            continue;
        nl->extra[2 * u] = nl->extra[2 * q];
        nl->extra[2 * u + 1] = nl->extra[2 * q + 1];
        u++;
    }
    nl->extra_count = u;
    for (long q = u - 1; q >= 0; q--) nl->extra_first[nl->extra[2 * q]] = q;
    nl->fast_steps++;
    return 1;
}
