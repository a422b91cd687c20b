/* broadphase.c - a uniform cell grid over hashed cell coordinates: O(N) to
 * build (counting sort by bucket) and O(N) to query for mono- and
 * poly-disperse beds alike, since the cell is sized by the largest sphere.
 * Each particle remembers its exact cell so hash collisions never produce a
 * pair twice. */
#include "grid.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ndem_broadphase_build(ndem_sim *sim, double skin)
{
    ndem_grid *g = &sim->grid;
    const ndem_bodies *b = &sim->bodies;
    long n = b->count;
    double rmax = 0.0;
    for (long i = 0; i < n; i++)
        if (b->radius[i] > rmax) rmax = b->radius[i];
    g->cell = 2.0 * rmax + skin;
    if (g->cell <= 0) g->cell = 1.0;
    g->inv_cell = 1.0 / g->cell;
    long table = 1024;
    while (table < 2 * n) table *= 2;
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
    if (table + 1 > g->table_capacity) {
        long *cs = realloc(g->cell_start, sizeof(long) * (size_t)(table + 1));
        if (!cs) return -1;
        g->cell_start = cs;
        g->table_capacity = table + 1;
    }
    g->table_size = table;
    double inv = g->inv_cell;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, n))
    for (long i = 0; i < n; i++) {
        int *c = &g->coord[3 * i];
        for (int k = 0; k < 3; k++) c[k] = (int)floor(b->pos[3 * i + k] * inv);
        g->bucket[i] = ndem_cell_hash(c[0], c[1], c[2], table - 1);
    }
    memset(g->cell_start, 0, sizeof(long) * (size_t)(table + 1));
    for (long i = 0; i < n; i++) g->cell_start[g->bucket[i] + 1]++;
    for (long t = 0; t < table; t++) g->cell_start[t + 1] += g->cell_start[t];
    /* Stable fill in body order (deterministic); cell_start is shifted by one
     * slot during the fill and restored after. */
    for (long i = 0; i < n; i++) g->sorted[g->cell_start[g->bucket[i]]++] = i;
    for (long t = table; t > 0; t--) g->cell_start[t] = g->cell_start[t - 1];
    g->cell_start[0] = 0;
    return 0;
}

void ndem_grid_destroy(ndem_grid *g)
{
    free(g->cell_start);
    free(g->sorted);
    free(g->coord);
    free(g->bucket);
    memset(g, 0, sizeof *g);
}

