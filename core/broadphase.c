/* broadphase.c - a uniform cell grid over hashed cell coordinates: O(N) to
 * build (counting sort by bucket) and O(N) to query for mono- and
 * poly-disperse beds alike, since the cell is sized by the largest sphere.
 * Cells are numbered densely over the particles' bounding box when that box
 * is small (the usual bed, hopper or drum), and hashed otherwise.
 * Each particle remembers its exact cell so hash collisions never produce a
 * pair twice. */
#include "grid.h"
#include "sim.h"

#include <limits.h>
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
    for (long i = 0; i < n; i++) {
        int *c = &g->coord[3 * i];
        for (int k = 0; k < 3; k++) {
            double x = floor(b->pos[3 * i + k] * inv);
            /* far outside any sane scene: clamped (measure() stops the run) */
            c[k] = x > -1e9 && x < 1e9 ? (int)x : (x > 0 ? 1000000000 : -1000000000);
            if (c[k] < lo[k]) lo[k] = c[k];
            if (c[k] > hi[k]) hi[k] = c[k];
        }
    }
    /* A dense block when it has at most a few cells per particle. */
    double cells = 1.0;
    for (int k = 0; k < 3; k++) cells *= n > 0 ? (double)hi[k] - lo[k] + 1.0 : 1.0;
    g->dense = n > 0 && cells <= 4.0 * (double)n + 4096.0;
    long table = 1024;
    if (g->dense) {
        for (int k = 0; k < 3; k++) g->lo[k] = lo[k], g->dim[k] = hi[k] - lo[k] + 1;
        table = (long)cells;
    } else {
        while (table < 2 * n) table *= 2;
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
        if (g->dense)
            g->bucket[i] = (uint32_t)(((long)(c[2] - lo[2]) * g->dim[1] + (c[1] - lo[1])) *
                                          g->dim[0] +
                                      (c[0] - lo[0]));
        else
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

