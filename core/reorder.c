/* reorder.c - spatial order of the bodies. Every NDEM_REORDER_STEPS steps the
 * particle arrays are sorted by the Morton code of their grid cell, so that
 * contacts (listed by the lower body index) and the bodies they touch are
 * near each other in memory, and the static split of a colour's rows gives
 * each thread its own region of the bed (no shared cache lines).
 *
 * The public order is the creation order: bodies->id maps an internal index
 * to its creation index and bodies->where the reverse. Frames, the state hash
 * and error messages use creation order. The warm-start history is keyed by
 * internal index and is remapped here. The reorder depends only on the state
 * and the step counter, never on the thread count, and checkpoints store the
 * internal order with its ids, so a restored run continues bit for bit. */
#include "sim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct sort_item {
    uint64_t key;
    long index; /* internal index before the sort: ties keep the old order */
} sort_item;

static int cmp_item(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* Spreads the low 21 bits of v to every third bit. */
static uint64_t spread3(uint64_t v)
{
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
}

/* Swaps the whole state of bodies i and j. */
static void swap_bodies(ndem_bodies *b, long i, long j)
{
    double t[6];
    memcpy(t, &b->pos[3 * i], 3 * sizeof(double));
    memcpy(&b->pos[3 * i], &b->pos[3 * j], 3 * sizeof(double));
    memcpy(&b->pos[3 * j], t, 3 * sizeof(double));
    memcpy(t, &b->quat[4 * i], 4 * sizeof(double));
    memcpy(&b->quat[4 * i], &b->quat[4 * j], 4 * sizeof(double));
    memcpy(&b->quat[4 * j], t, 4 * sizeof(double));
    memcpy(t, &b->vel[6 * i], 6 * sizeof(double));
    memcpy(&b->vel[6 * i], &b->vel[6 * j], 6 * sizeof(double));
    memcpy(&b->vel[6 * j], t, 6 * sizeof(double));
    double d = b->radius[i];
    b->radius[i] = b->radius[j], b->radius[j] = d;
    d = b->inv_mass[i];
    b->inv_mass[i] = b->inv_mass[j], b->inv_mass[j] = d;
    d = b->inv_inertia[i];
    b->inv_inertia[i] = b->inv_inertia[j], b->inv_inertia[j] = d;
    int m = b->material[i];
    b->material[i] = b->material[j], b->material[j] = m;
    m = b->shape[i];
    b->shape[i] = b->shape[j], b->shape[j] = m;
    long id = b->id[i];
    b->id[i] = b->id[j], b->id[j] = id;
}

/* The lower internal index of a history entry's pair after the reorder. */
static long history_owner(const ndem_history *h, const long *new_of_old, long a, long k)
{
    long na = new_of_old[a];
    ndem_contact_key key = ndem_key_with_a((int)a, h->key[k]);
    return ndem_key_is_particle(key) && new_of_old[key.b] < na ? new_of_old[key.b] : na;
}

/* History entries follow their bodies, in place (cycle by cycle) so the
 * reorder needs no second copy of the history. A pair whose lower index
 * changes side is swapped, and its world impulse vectors (acting on b)
 * change sign. */
static int remap_history(ndem_history *h, const long *new_of_old, long n)
{
    long hb = h->bodies, hc = h->count;
    long *start = calloc((size_t)n + 1, sizeof(long));
    long *dest = malloc(sizeof(long) * (size_t)(hc > 0 ? hc : 1));
    if (!start || !dest) {
        free(start), free(dest);
        return -1;
    }
    for (long a = 0; a < hb; a++)
        for (long k = h->start[a]; k < h->start[a + 1]; k++)
            start[history_owner(h, new_of_old, a, k) + 1]++;
    for (long i = 0; i < n; i++) start[i + 1] += start[i];
    for (long a = 0; a < hb; a++)
        for (long k = h->start[a]; k < h->start[a + 1]; k++) {
            long owner = history_owner(h, new_of_old, a, k);
            dest[k] = start[owner]++;
            ndem_hist_key *key = &h->key[k]; /* its a is now owner's row */
            if (key->feature >= 0) continue; /* a geometry feature: b is no body */
            if (owner == new_of_old[a]) {
                key->b = (int)new_of_old[key->b];
            } else {
                key->b = (int)new_of_old[a];
                for (int q = 1; q < 7; q++) h->lam[7 * k + q] = -h->lam[7 * k + q];
            }
        }
    for (long i = n; i > 0; i--) start[i] = start[i - 1]; /* undo the fill */
    start[0] = 0;
    for (long k = 0; k < hc; k++)
        while (dest[k] != k) {
            long d = dest[k];
            float t[7];
            memcpy(t, &h->lam[7 * k], sizeof t);
            memcpy(&h->lam[7 * k], &h->lam[7 * d], sizeof t);
            memcpy(&h->lam[7 * d], t, sizeof t);
            ndem_hist_key key = h->key[k];
            h->key[k] = h->key[d], h->key[d] = key;
            dest[k] = dest[d], dest[d] = d;
        }
    free(dest);
    free(h->start);
    h->start = start;
    h->start_capacity = n + 1;
    h->bodies = n;
    return 0;
}

int ndem_bodies_reorder(ndem_sim *sim)
{
    ndem_bodies *b = &sim->bodies;
    long n = b->count;
    if (n < 2) return 0;
    double rmax, split, lo[3] = {INFINITY, INFINITY, INFINITY};
    /* cells of the broad phase's size: a few huge bodies must not put all
     * the others into one Morton cell */
    ndem_grid_radii(b, &rmax, &split);
    for (long i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            if (b->pos[3 * i + k] < lo[k]) lo[k] = b->pos[3 * i + k];
    double inv = rmax > 0 ? 0.5 / rmax : 1.0;
    /* the lists hold old indices: stale from here, and their memory goes
     * back before the reorder's own arrays come (the reorder step's peak) */
    ndem_neighbours_drop(&sim->neighbours);
    sort_item *order = malloc(sizeof(sort_item) * (size_t)n);
    long *new_of_old = malloc(sizeof(long) * (size_t)n);
    if (!order || !new_of_old) {
        free(order), free(new_of_old);
        return -1;
    }
    for (long i = 0; i < n; i++) {
        uint64_t key = 0;
        for (int k = 0; k < 3; k++) {
            double c = floor((b->pos[3 * i + k] - lo[k]) * inv);
            uint64_t ci = c < 0 ? 0 : c > 2097151.0 ? 2097151u : (uint64_t)c;
            key |= spread3(ci) << k;
        }
        order[i].key = key;
        order[i].index = i;
    }
    qsort(order, (size_t)n, sizeof *order, cmp_item);
    int moved = 0;
    for (long i = 0; i < n; i++) {
        new_of_old[order[i].index] = i;
        moved |= order[i].index != i;
    }
    free(order);
    int rc = 0;
    if (moved) {
        if (remap_history(&sim->history, new_of_old, n)) rc = -1;
        /* bodies in place, cycle by cycle (new_of_old is consumed) */
        for (long i = 0; i < n && rc == 0; i++)
            while (new_of_old[i] != i) {
                long d = new_of_old[i];
                swap_bodies(b, i, d);
                new_of_old[i] = new_of_old[d], new_of_old[d] = d;
            }
        for (long i = 0; i < n; i++) b->where[b->id[i]] = i;
    }
    free(new_of_old);
    return rc;
}
