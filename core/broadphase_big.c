/* broadphase_big.c - the pairs of the broad phase that involve a big body
 * (one kept out of the grid's cells, see broadphase.c): big with small
 * through the cells the big body's box covers (or a scan of the small
 * bodies when that box spans more cells than there are bodies), big with
 * big by a sweep along x. The pairs are handed over grouped by their lower
 * index, which owns them in the Verlet lists. */
#include "grid.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NDEM_BIG_BLOCK 16 /* big bodies per buffer (parallel loop) */

static int push_pair(ndem_pair_block *blk, long a, long j)
{
    long lo = a < j ? a : j, hi = a < j ? j : a;
    return ndem_pair_block_push(blk, (int)lo) | ndem_pair_block_push(blk, (int)hi);
}

/* The small partners of big body a. */
static int scan_small(const ndem_sim *sim, long a, double skin, double rmax, ndem_pair_block *blk,
                      long *tested)
{
    const ndem_grid *g = &sim->grid;
    const ndem_bodies *b = &sim->bodies;
    const double *x = &b->pos[3 * a];
    double ext = b->radius[a] + g->r_cell + g->reach, c0[3], c1[3], cells = 1.0;
    for (int k = 0; k < 3; k++) { /* clipped to the grid's block before any cast */
        c0[k] = fmax(floor((x[k] - ext) * g->inv_cell), (double)g->lo[k]);
        c1[k] = fmin(floor((x[k] + ext) * g->inv_cell), (double)g->hi[k]);
        if (!(c0[k] <= c1[k])) return 0; /* no small body near it */
        cells *= c1[k] - c0[k] + 1.0;
    }
    int failed = 0;
    long t = 0;
    if (cells > (double)g->cell_start[g->table_size]) { /* more cells than small bodies */
        for (long j = 0; j < b->count; j++) {
            if (g->bucket[j] == NDEM_GRID_BIG) continue;
            t++;
            if (ndem_within(b, a, j, skin, rmax)) failed |= push_pair(blk, a, j);
        }
        *tested += t;
        return failed;
    }
    int x0 = (int)c0[0], x1 = (int)c1[0];
    for (int cz = (int)c0[2]; cz <= (int)c1[2]; cz++)
        for (int cy = (int)c0[1]; cy <= (int)c1[1]; cy++) {
            if (g->dense) { /* one row of cells is one range of `sorted` */
                long row = ((long)(cz - g->lo[2]) * g->dim[1] + (cy - g->lo[1])) * g->dim[0];
                long end = g->cell_start[row + x1 - g->lo[0] + 1];
                for (long k = g->cell_start[row + x0 - g->lo[0]]; k < end; k++) {
                    long j = g->sorted[k];
                    t++;
                    if (ndem_within(b, a, j, skin, rmax)) failed |= push_pair(blk, a, j);
                }
                continue;
            }
            for (int cx = x0; cx <= x1; cx++) {
                uint32_t h = ndem_cell_hash(cx, cy, cz, g->table_size - 1);
                for (long k = g->cell_start[h]; k < g->cell_start[h + 1]; k++) {
                    long j = g->sorted[k];
                    const int *cj = &g->coord[3 * j];
                    if (cj[0] != cx || cj[1] != cy || cj[2] != cz) continue;
                    t++;
                    if (ndem_within(b, a, j, skin, rmax)) failed |= push_pair(blk, a, j);
                }
            }
        }
    *tested += t;
    return failed;
}

typedef struct big_key {
    double lo; /* lower end of the body's reach along x */
    long i;
} big_key;

static int cmp_big(const void *pa, const void *pb)
{
    const big_key *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* Big with big: sorted by the low end of their reach along x, each body
 * meets the following ones until their intervals part. */
static int sweep_big(const ndem_sim *sim, double skin, double rmax, ndem_pair_block *blk,
                     long *tested)
{
    const ndem_grid *g = &sim->grid;
    const ndem_bodies *b = &sim->bodies;
    long nb = g->big_count;
    big_key *key = malloc(sizeof *key * (size_t)nb);
    if (!key) return -1;
    for (long p = 0; p < nb; p++) {
        long i = g->big[p];
        key[p] = (big_key){b->pos[3 * i] - b->radius[i] - 0.5 * skin, i};
    }
    qsort(key, (size_t)nb, sizeof *key, cmp_big);
    int failed = 0;
    for (long p = 0; p < nb; p++) {
        long i = key[p].i;
        double hi = b->pos[3 * i] + b->radius[i] + 0.5 * skin;
        for (long q = p + 1; q < nb && key[q].lo <= hi; q++) {
            (*tested)++;
            if (ndem_within(b, i, key[q].i, skin, rmax)) failed |= push_pair(blk, i, key[q].i);
        }
    }
    free(key);
    return failed;
}

int ndem_big_pairs_find(ndem_sim *sim, double skin, double rmax, ndem_big_pairs *out)
{
    const ndem_grid *g = &sim->grid;
    long n = sim->bodies.count, nb = g->big_count;
    long nblocks = (nb + NDEM_BIG_BLOCK - 1) / NDEM_BIG_BLOCK + 1; /* last: big with big */
    memset(out, 0, sizeof *out);
    ndem_pair_block *blocks = calloc((size_t)nblocks, sizeof *blocks);
    out->start = calloc((size_t)n + 1, sizeof(long));
    if (!blocks || !out->start) {
        free(blocks);
        ndem_big_pairs_free(out);
        return -1;
    }
    int failed = 0;
    long tested = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(ndem_threads_for(sim, nb * 256))       \
    reduction(| : failed) reduction(+ : tested)
    for (long bi = 0; bi < nblocks - 1; bi++) {
        long hi = (bi + 1) * NDEM_BIG_BLOCK < nb ? (bi + 1) * NDEM_BIG_BLOCK : nb;
        for (long p = bi * NDEM_BIG_BLOCK; p < hi; p++)
            failed |= scan_small(sim, g->big[p], skin, rmax, &blocks[bi], &tested);
    }
    failed |= sweep_big(sim, skin, rmax, &blocks[nblocks - 1], &tested);
    long total = 0;
    for (long bi = 0; bi < nblocks && !failed; bi++) {
        for (long k = 0; k < blocks[bi].count; k += 2) out->start[blocks[bi].key[k] + 1]++;
        total += blocks[bi].count / 2;
    }
    out->j = malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    if (!failed && out->j) { /* counting sort by owner, as the grid's fill */
        for (long i = 0; i < n; i++) out->start[i + 1] += out->start[i];
        for (long bi = 0; bi < nblocks; bi++)
            for (long k = 0; k < blocks[bi].count; k += 2)
                out->j[out->start[blocks[bi].key[k]]++] = blocks[bi].key[k + 1];
        for (long i = n; i > 0; i--) out->start[i] = out->start[i - 1];
        out->start[0] = 0;
    }
    for (long bi = 0; bi < nblocks; bi++) free(blocks[bi].key);
    free(blocks);
    out->tested = tested;
    if (failed || !out->j) {
        ndem_big_pairs_free(out);
        return -1;
    }
    return 0;
}

void ndem_big_pairs_free(ndem_big_pairs *p)
{
    free(p->start);
    free(p->j);
    memset(p, 0, sizeof *p);
}
