/* broadphase.h (internal) - the broad phase: the grid of cells and the
 * Verlet lists built from it (broadphase.c, broadphase_big.c). */
#ifndef NDEM_BROADPHASE_H
#define NDEM_BROADPHASE_H

#include "bodies.h"

#include <stdint.h>

struct ndem_sim;

/* Indices found by one block of bodies in a parallel pass (the lists'
 * neighbours, the narrow phase's contacts), joined in block order so the
 * result does not depend on the thread count. */
typedef struct ndem_pair_block {
    int *key;
    long count, capacity;
    int own; /* 1: key is the block's own allocation; 0: NULL or a slice of a scratch */
} ndem_pair_block;

/* Appends a key to a block's buffer; 0, or -1 when out of memory. */
int ndem_pair_block_push(ndem_pair_block *blk, int key);
/* Makes room for n blocks (new ones empty); 0 or -1. */
int ndem_pair_blocks_reserve(ndem_pair_block **blocks, long *capacity, long n);

/* The broad phase's cells: a dense block of cells over the particles'
 * bounding box when it is small (x fastest, so three neighbouring cells of a
 * row are one range of `sorted`), otherwise a hash of the cell coordinates.
 * Cells are sized by the ordinary bodies; "big" ones (radius above `split`,
 * ndem_grid_radii) are kept out of them (broadphase.c). */
typedef struct ndem_grid {
    double cell, inv_cell;
    double split;             /* bodies with a larger radius are big (INFINITY: none) */
    double r_cell;            /* largest radius of a body in the cells */
    double reach;             /* largest search reach of a pair of bodies in the cells */
    int dense;                /* 1: dense block lo + [0, dim) */
    int lo[3], hi[3], dim[3]; /* cell range of the bodies in the cells */
    long table_size;
    long *cell_start; /* table_size + 1 */
    long *sorted;     /* bodies by cell (bucket), in body order within one */
    int *coord;       /* 3 per body: integer cell coordinates */
    uint32_t *bucket; /* NDEM_GRID_BIG for a big body */
    long capacity, table_capacity;
    long *big; /* the big bodies, ascending */
    long big_count, big_capacity;
} ndem_grid;
#define NDEM_GRID_BIG UINT32_MAX

/* The radius that sizes the grid's cells (the largest of the bodies kept in
 * them) and the radius above which a body is big: 4 times the upper bound
 * of the power-of-two bin that holds the 90 % quantile of the radii, or
 * INFINITY (then the cell radius is the largest radius) when no body
 * exceeds it. O(N). Also sizes the Morton cells of the reorder. */
void ndem_grid_radii(const ndem_bodies *b, double *r_cell, double *split);

/* Verlet lists (broadphase.c): for each body i, the bodies j > i that were
 * within r_i + r_j + skin of it when the lists were built, sorted by j.
 * They are rebuilt when a missing pair could have come within the contact
 * test's reach (ndem_neighbours_update), when bodies are added or
 * reordered, and after a restore; the contacts found are the same as a
 * fresh grid search would find. */
typedef struct ndem_neighbours {
    int valid;
    long bodies; /* body count at the build */
    double skin; /* search skin of the build */
    long *start; /* bodies + 1 */
    int *j;
    double *x0; /* 3 per body: positions at the build */
    long count, capacity, start_capacity, x0_capacity;
    ndem_pair_block *blocks;
    long block_capacity;
    long builds; /* how many times the lists were built */
    /* Fast bodies (broadphase_fast.c): this step's pairs of the few bodies
     * searched afresh, (a < b) sorted; extra_first[i]: body i's first pair
     * as a, or -1 (every entry -1 between steps that have none). */
    int *extra;
    long extra_count, extra_capacity;
    long *extra_first;
    long extra_first_capacity;
    long fast_steps; /* steps the lists served with fast bodies searched afresh */
    long tested;     /* pairs the last build with big bodies tested for reach (its
                      * work); not counted (0) in a build without big bodies */
} ndem_neighbours;

/* The grid for pairs within skin (rmax: the largest radius, ndem_within). */
int ndem_broadphase_build(struct ndem_sim *sim, double skin, double rmax);
/* Brings the Verlet lists up to date (rebuilds them when needed) and gives
 * the reach of this step's geometry search: what can close within a step,
 * 2 h v_max + 0.05 r_min, capped at a diameter (tunnelling guard: keep h
 * below d / v, AGX 35.7). */
int ndem_neighbours_update(struct ndem_sim *sim, double *geometry_skin);
void ndem_neighbours_destroy(ndem_neighbours *nl);
/* Marks the lists stale and gives back their pairs and build positions (the
 * reorder, whose indices they no longer match, needs the memory first). */
void ndem_neighbours_drop(ndem_neighbours *nl);
/* The few fastest bodies (rattlers) searched afresh, when leaving them out
 * keeps the other bodies within the lists' skin (broadphase_fast.c): 1 when
 * the lists serve this step so, 0 when they must be rebuilt, -1 when out of
 * memory. vmax: the largest h |v|. */
int ndem_fast_bodies_keep(struct ndem_sim *sim, double rmax, double vmax);
/* Forgets the last step's fast-body pairs; -1 when out of memory. */
int ndem_fast_bodies_reset(ndem_neighbours *nl, long bodies);
void ndem_grid_destroy(ndem_grid *g);

#endif
