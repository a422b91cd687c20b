/* broadphase_lll.c - the Linked Linear List (Muth et al. 2007 section 3,
 * after Schinner 1999), the broad phase of `"broad_phase": "lll"`: each
 * body's axis-aligned box (its centre +- (r + skin / 2)) is projected on the
 * three axes; the begins and ends of the projections are kept sorted per
 * axis, across builds, and each build re-sorts them by insertion sort (a
 * nearly sorted list: O(N + swaps)). A swap of a begin past an end is where
 * two boxes start or stop overlapping along that axis; only then are the
 * other two axes asked, and the pair enters or leaves the set of
 * overlapping boxes. The lists are then those pairs that pass the same
 * reach test as the grid's (broadphase.c), sorted the same way, so both
 * broad phases give the same lists and the same bits. The lists hold
 * bodies by creation id, so NDEM's reorder does not unsort them; a change
 * of the body count starts afresh: a full sort and one sweep. */
#include "broadphase_lll.h"
#include "grid.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An end of a box's projection: body, 0 begin / 1 end, its value. */
typedef struct lll_end {
    double v;
    int body, hi;
} lll_end;

/* The pair set: open addressing over (i, j), i < j; -1 empty, -2 removed. */
typedef struct lll_pair {
    int i, j;
} lll_pair;

struct ndem_lll {
    long n;
    long *ids; /* per creation id: the body's internal index now */
    lll_end *axis[3];
    double *lo, *hi; /* 3 per body: the box */
    lll_pair *set;
    long set_cap, set_count, set_used;
    long swaps; /* of the last build (its work) */
};

static int end_before(const lll_end *a, const lll_end *b)
{
    /* at equal values a begin comes first: touching boxes overlap */
    if (a->v != b->v) return a->v < b->v;
    if (a->hi != b->hi) return a->hi < b->hi;
    return a->body < b->body;
}

static int cmp_end(const void *pa, const void *pb)
{
    const lll_end *a = pa, *b = pb;
    return end_before(a, b) ? -1 : end_before(b, a) ? 1 : 0;
}

static unsigned long pair_hash(int i, int j)
{
    unsigned long h = (unsigned long)(unsigned)i * 0x9E3779B97F4A7C15ul;
    h ^= (unsigned long)(unsigned)j + 0x7F4A7C15ul + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ul;
}

static int set_grow(ndem_lll *l);

static int set_add(ndem_lll *l, int i, int j)
{
    if (i > j) {
        int t = i;
        i = j, j = t;
    }
    if (2 * (l->set_used + 1) > l->set_cap && set_grow(l)) return -1;
    unsigned long m = (unsigned long)l->set_cap - 1, s = pair_hash(i, j) & m;
    long tomb = -1;
    for (;; s = (s + 1) & m) {
        lll_pair *p = &l->set[s];
        if (p->i == -1) break;
        if (p->i == -2) {
            if (tomb < 0) tomb = (long)s;
            continue;
        }
        if (p->i == i && p->j == j) return 0;
    }
    if (tomb >= 0) s = (unsigned long)tomb;
    else l->set_used++;
    l->set[s] = (lll_pair){i, j};
    l->set_count++;
    return 0;
}

static void set_remove(ndem_lll *l, int i, int j)
{
    if (i > j) {
        int t = i;
        i = j, j = t;
    }
    if (!l->set_cap) return;
    unsigned long m = (unsigned long)l->set_cap - 1, s = pair_hash(i, j) & m;
    for (; l->set[s].i != -1; s = (s + 1) & m)
        if (l->set[s].i == i && l->set[s].j == j) {
            l->set[s].i = -2;
            l->set_count--;
            return;
        }
}

static int set_grow(ndem_lll *l)
{
    long cap = l->set_cap ? l->set_cap : 1024;
    while (2 * (l->set_count + 1) > cap / 2) cap *= 2; /* room for half again */
    lll_pair *old = l->set;
    long old_cap = l->set_cap;
    l->set = malloc(sizeof *l->set * (size_t)cap);
    if (!l->set) {
        l->set = old;
        return -1;
    }
    for (long s = 0; s < cap; s++) l->set[s].i = -1;
    l->set_cap = cap;
    l->set_count = l->set_used = 0;
    for (long s = 0; s < old_cap; s++)
        if (old[s].i >= 0) set_add(l, old[s].i, old[s].j);
    free(old);
    return 0;
}

static void set_clear(ndem_lll *l)
{
    for (long s = 0; s < l->set_cap; s++) l->set[s].i = -1;
    l->set_count = l->set_used = 0;
}

/* Boxes a and b overlap along axis k (touching counts). */
static int overlap(const ndem_lll *l, int a, int b, int k)
{
    return l->lo[3 * a + k] <= l->hi[3 * b + k] && l->lo[3 * b + k] <= l->hi[3 * a + k];
}

static int overlap_others(const ndem_lll *l, int a, int b, int k)
{
    return overlap(l, a, b, (k + 1) % 3) && overlap(l, a, b, (k + 2) % 3);
}

/* Insertion sort of axis k; each begin passing an end (or an end passing a
 * begin) changes that pair's overlap along k. */
static int sort_axis(ndem_lll *l, int k)
{
    lll_end *e = l->axis[k];
    long m = 2 * l->n;
    for (long i = 1; i < m; i++) {
        lll_end x = e[i];
        long j = i - 1;
        while (j >= 0 && end_before(&x, &e[j])) {
            const lll_end *y = &e[j];
            l->swaps++;
            if (!x.hi && y->hi && x.body != y->body) { /* x's begin below y's end: now overlap */
                if (overlap_others(l, x.body, y->body, k) && set_add(l, x.body, y->body)) return -1;
            } else if (x.hi && !y->hi && x.body != y->body) { /* x's end below y's begin */
                set_remove(l, x.body, y->body);
            }
            e[j + 1] = e[j];
            j--;
        }
        e[j + 1] = x;
    }
    return 0;
}

/* Afresh: every axis sorted, the pairs by one sweep of axis 0. */
static int rebuild(ndem_lll *l)
{
    long m = 2 * l->n;
    for (int k = 0; k < 3; k++) qsort(l->axis[k], (size_t)m, sizeof(lll_end), cmp_end);
    set_clear(l);
    int *active = malloc(sizeof *active * (size_t)(l->n + 1));
    if (!active) return -1;
    long na = 0;
    int failed = 0;
    for (long i = 0; i < m && !failed; i++) {
        const lll_end *x = &l->axis[0][i];
        if (x->hi) { /* leaves the active set */
            for (long a = 0; a < na; a++)
                if (active[a] == x->body) {
                    active[a] = active[--na];
                    break;
                }
            continue;
        }
        for (long a = 0; a < na && !failed; a++)
            if (overlap_others(l, x->body, active[a], 0)) failed = set_add(l, x->body, active[a]);
        active[na++] = x->body;
    }
    free(active);
    return failed ? -1 : 0;
}

static int reserve(ndem_lll *l, long n)
{
    free(l->ids);
    free(l->lo);
    free(l->hi);
    for (int k = 0; k < 3; k++) free(l->axis[k]);
    l->ids = malloc(sizeof *l->ids * (size_t)(n + 1));
    l->lo = malloc(3 * sizeof *l->lo * (size_t)(n + 1));
    l->hi = malloc(3 * sizeof *l->hi * (size_t)(n + 1));
    int bad = !l->ids || !l->lo || !l->hi;
    for (int k = 0; k < 3; k++) {
        l->axis[k] = malloc(2 * sizeof(lll_end) * (size_t)(n + 1));
        bad |= !l->axis[k];
    }
    if (bad) return -1;
    l->n = n;
    for (int k = 0; k < 3; k++)
        for (long i = 0; i < n; i++) {
            l->axis[k][2 * i] = (lll_end){0, (int)i, 0};
            l->axis[k][2 * i + 1] = (lll_end){0, (int)i, 1};
        }
    return 0;
}

void ndem_lll_destroy(ndem_lll *l)
{
    if (!l) return;
    free(l->ids);
    free(l->lo);
    free(l->hi);
    for (int k = 0; k < 3; k++) free(l->axis[k]);
    free(l->set);
    free(l);
}

static int cmp_pair(const void *pa, const void *pb)
{
    const lll_pair *a = pa, *b = pb;
    if (a->i != b->i) return (a->i > b->i) - (a->i < b->i);
    return (a->j > b->j) - (a->j < b->j);
}

/* The grid's reach tests (broadphase.c), the same expressions: with big
 * bodies each pair's own skin (ndem_within), else r_i + r_j + skin. */
static int reach_ok(const ndem_bodies *b, int i, int j, double skin, double rmax, int per_pair)
{
    if (per_pair) return ndem_within(b, i, j, skin, rmax);
    const double *xi = &b->pos[3 * i], *xj = &b->pos[3 * j];
    double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
    double reach = b->radius[i] + b->radius[j] + skin;
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach;
}

/* The boxes of this build and the pair set brought up to date. The lists
 * hold the bodies by creation id, so a reorder of the internal indices
 * (NDEM's every NDEM_REORDER_STEPS steps) leaves them as sorted as they
 * were; where[id] is the internal index now. */
static int update(ndem_sim *sim, double skin)
{
    const ndem_bodies *b = &sim->bodies;
    long n = b->count;
    if (!sim->lll) {
        sim->lll = calloc(1, sizeof *sim->lll);
        if (!sim->lll) return -1;
    }
    ndem_lll *l = sim->lll;
    int fresh = l->n != n || !l->ids;
    if (fresh && reserve(l, n)) return -1;
    for (long i = 0; i < n; i++) {
        if (b->id[i] < 0 || b->id[i] >= n) return -1; /* creation ids: 0 .. n - 1 */
        l->ids[b->id[i]] = i;
    }
    /* the boxes: a superset of every pair within r_i + r_j + skin */
    for (long i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            long id = b->id[i];
            double x = b->pos[3 * i + k], e = b->radius[i] + 0.5 * skin;
            l->lo[3 * id + k] = x - e;
            l->hi[3 * id + k] = x + e;
        }
    for (int k = 0; k < 3; k++)
        for (long i = 0; i < 2 * n; i++) {
            lll_end *x = &l->axis[k][i];
            x->v = x->hi ? l->hi[3 * x->body + k] : l->lo[3 * x->body + k];
        }
    l->swaps = 0;
    if (fresh) return rebuild(l);
    for (int k = 0; k < 3; k++)
        if (sort_axis(l, k)) return -1;
    return 0;
}

int ndem_lll_lists(ndem_sim *sim, double skin, double rmax, ndem_neighbours *nl)
{
    const ndem_bodies *b = &sim->bodies;
    long n = b->count;
    if (update(sim, skin)) return -1;
    const ndem_lll *l = sim->lll;
    double r_cell, split;
    ndem_grid_radii(b, &r_cell, &split);
    int per_pair = 0;
    for (long i = 0; i < n && !per_pair; i++) per_pair = b->radius[i] > split;
    /* the set's pairs that pass the reach test, by i then j */
    lll_pair *p = malloc(sizeof *p * (size_t)(l->set_count + 1));
    if (!p) return -1;
    long np = 0;
    for (long s = 0; s < l->set_cap; s++) {
        const lll_pair *q = &l->set[s];
        if (q->i < 0) continue;
        int i = (int)l->ids[q->i], j = (int)l->ids[q->j]; /* internal indices now */
        if (i > j) {
            int t = i;
            i = j, j = t;
        }
        if (reach_ok(b, i, j, skin, rmax, per_pair)) p[np++] = (lll_pair){i, j};
    }
    qsort(p, (size_t)np, sizeof *p, cmp_pair);
    free(nl->j);
    nl->j = NULL;
    nl->capacity = 0;
    if (ndem_ensure((void **)&nl->j, &nl->capacity, np + 1, sizeof(int))) {
        free(p);
        return -1;
    }
    long *start = nl->start;
    for (long i = 0; i <= n; i++) start[i] = 0;
    for (long k = 0; k < np; k++) {
        start[p[k].i + 1]++;
        nl->j[k] = p[k].j;
    }
    for (long i = 0; i < n; i++) start[i + 1] += start[i];
    nl->count = np;
    nl->tested = per_pair ? l->set_count : 0;
    free(p);
    return 0;
}

long ndem_lll_swaps(const ndem_lll *l) { return l ? l->swaps : 0; }
