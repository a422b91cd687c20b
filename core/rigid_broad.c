/* rigid_broad.c - the pairs of two dynamic bodies that can touch
 * (rigid_contact_private.h; docs/engine.md "Body against geometry").
 *
 * Sort and sweep on x: each body a sphere (its hull's bounding radius plus
 * its reach this step), sorted by its low end; a body meets those after it
 * whose low end is below its high end, then the full sphere test. The
 * pairs come out sorted by (body, other body), the order the n^2 loop had,
 * so any thread count and any broad phase give the same rows in the same
 * order: O(n log n + pairs) instead of n^2 / 2 sphere tests, and pairs
 * only for bodies within reach, not n^2 / 2 of them in memory.
 * The pairs' smooth DEM springs go on from last step's list (a merge by
 * the two bodies). */
#include "rigid_contact_private.h"
#include "sim.h"
#include "vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sweep_end {
    double lo;
    int i;
} sweep_end;

static int by_low(const void *a, const void *b)
{
    const sweep_end *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int by_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

long ndem_rc_sweep_pairs(const double *x, const double *r, int n, int **pairs, long *cap)
{
    sweep_end *e = malloc((size_t)(n > 0 ? n : 1) * sizeof *e);
    if (!e) return -1;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (r[i] >= 0) e[m++] = (sweep_end){x[3 * i] - r[i], i};
    if (m > 0) qsort(e, (size_t)m, sizeof *e, by_low);
    long count = 0;
    for (int s = 0; s < m; s++) {
        const int a = e[s].i;
        const double hi = x[3 * a] + r[a];
        for (int t = s + 1; t < m && e[t].lo <= hi; t++) {
            const int b = e[t].i;
            double d[3] = {x[3 * b] - x[3 * a], x[3 * b + 1] - x[3 * a + 1],
                           x[3 * b + 2] - x[3 * a + 2]};
            if (ndem_norm(d) > r[a] + r[b]) continue;
            if (count == *cap) {
                long nc = *cap ? 2 * *cap : 64;
                int *p = realloc(*pairs, (size_t)nc * 2 * sizeof(int));
                if (!p) {
                    free(e);
                    return -1;
                }
                *pairs = p, *cap = nc;
            }
            (*pairs)[2 * count] = a < b ? a : b;
            (*pairs)[2 * count + 1] = a < b ? b : a;
            count++;
        }
    }
    free(e);
    if (count > 0) qsort(*pairs, (size_t)count, 2 * sizeof(int), by_pair);
    return count;
}

/* Room for n pairs in all. */
static int reserve(ndem_rcontact *c, long n)
{
    if (n <= c->pair_capacity) return 0;
    long nc = c->pair_capacity > 0 ? c->pair_capacity : 16;
    while (nc < n) nc *= 2;
    ndem_rc_pair *p = realloc(c->pair, (size_t)nc * sizeof *p);
    if (!p) return -1;
    c->pair = p;
    c->pair_capacity = nc;
    return 0;
}

int ndem_rc_body_pairs(ndem_sim *sim, int reach)
{
    ndem_rcontact *c = sim->rigid->contact;
    const int n = c->body_count;
    if (c->hull_bodies < 2) return 0;
    const double h = sim->solver.time_step;
    for (int b = 0; b < n; b++) {
        const ndem_rigid_body *bd = &sim->rigid->body[b];
        const double rb = c->shape[b].radius;
        memcpy(&c->sweep_x[3 * b], sim->pose[bd->geometry].to, 3 * sizeof(double));
        if (rb <= 0) {
            c->sweep_r[b] = -1; /* no hull */
            continue;
        }
        /* NDEM's margin is 2 h (|v_p| + |v_q| + |w_p| r_p + |w_q| r_q)
         * (ndem_rcontact_prepare): each body's share, with room for
         * rounding; the pair's own test is exact (ndem_rc_pair_points) */
        double m = reach ? 2.0 * h * (ndem_norm(bd->v) + ndem_norm(bd->w) * rb) : 0.0;
        c->sweep_r[b] = (rb + m) * (1.0 + 1e-12) + 1e-12;
    }
    long k = ndem_rc_sweep_pairs(c->sweep_x, c->sweep_r, n, &c->sweep_pairs, &c->sweep_cap);
    if (k < 0 || reserve(c, c->geo_pairs + k)) return -1;
    /* last step's pairs of two bodies, for their springs */
    const long old_n = c->pair_count - c->geo_pairs;
    if (old_n > c->old_cap) {
        ndem_rc_pair *o = realloc(c->old, (size_t)old_n * sizeof *o);
        if (!o) return -1;
        c->old = o, c->old_cap = old_n;
    }
    if (old_n > 0) memcpy(c->old, c->pair + c->geo_pairs, (size_t)old_n * sizeof *c->old);
    long o = 0;
    for (long j = 0; j < k; j++) {
        const int b = c->sweep_pairs[2 * j], q = c->sweep_pairs[2 * j + 1];
        ndem_rc_pair *pr = &c->pair[c->geo_pairs + j];
        memset(pr, 0, sizeof *pr);
        pr->body = b;
        pr->other = q;
        pr->geometry = sim->rigid->body[q].geometry;
        pr->feature = -1;
        while (o < old_n && (c->old[o].body < b || (c->old[o].body == b && c->old[o].other < q)))
            o++;
        if (o < old_n && c->old[o].body == b && c->old[o].other == q)
            memcpy(pr->dem, c->old[o].dem, sizeof pr->dem);
    }
    c->pair_count = c->geo_pairs + (int)k;
    return 0;
}

int ndem_rc_body_pairs_set(ndem_rcontact *c, long n)
{
    if (reserve(c, c->geo_pairs + n)) return -1;
    c->pair_count = c->geo_pairs + (int)n;
    return 0;
}
