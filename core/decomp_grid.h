/* decomp_grid.h - the blocks of a domain decomposition (docs/scale-out.md):
 * px x py x pz processes, cut at equal particle counts level by level: x
 * into px slabs, each slab along y into py columns of its own, each column
 * along z into pz blocks of its own (a k-d split, so a scene whose particles
 * sit on one side is balanced too). Slabs are the grid with one axis cut.
 * Block (i, j, k) is process (i py + j) pz + k. Pure geometry: the caller
 * (cli/mpi.c) brings the sums over processes. */
#ifndef NDEM_DECOMP_GRID_H
#define NDEM_DECOMP_GRID_H

typedef struct ndem_grid {
    int dims[3];
    /* per axis a: groups(a) * (dims[a] + 1) bounds, -inf ... +inf per
     * group, where groups(a) = dims[0] ... dims[a - 1] */
    double *bound[3];
} ndem_grid;

/* dims[a] >= 1; every block the whole space until the cuts are set. 0 or
 * -1 (out of memory). */
int ndem_grid_init(ndem_grid *g, const int dims[3]);
void ndem_grid_free(ndem_grid *g);
int ndem_grid_size(const ndem_grid *g);
/* The interior cuts (what a checkpoint keeps): their count, and all of
 * them in a fixed order (x's, then each slab's y, then each column's z). */
int ndem_grid_cut_count(const ndem_grid *g);
void ndem_grid_get_cuts(const ndem_grid *g, double *out);
void ndem_grid_set_cuts(ndem_grid *g, const double *in);
/* The block holding p (a point on a cut belongs to the block above). */
int ndem_grid_owner(const ndem_grid *g, const double p[3]);
void ndem_grid_box(const ndem_grid *g, int block, double lo[3], double hi[3]);
/* 1 when p lies within `halo` of the block's box (along every axis). */
int ndem_grid_within(const ndem_grid *g, int block, const double p[3], double halo);
/* 1 when blocks a != b come within `halo` of each other along every axis:
 * a particle of one may be a ghost of the other or move into it. */
int ndem_grid_near(const ndem_grid *g, int a, int b, double halo);

/* Sums n counts over the processes in place (the identity when one
 * process sees every particle). */
typedef void (*ndem_grid_sum_fn)(void *ctx, long *counts, int n);
/* Cuts at equal particle counts of the points x[0..3n) (this process's;
 * `sum` adds every process's counts): each cut is the point of the
 * (count * k / blocks)-th smallest coordinate of its slab or column, found
 * by bisection on the coordinates' bits (64 rounds a level, one sum each),
 * so the cuts are exact and the same on every process. A group without
 * particles is cut at 0. 0 or -1 (out of memory). */
int ndem_grid_balance(ndem_grid *g, long n, const double *x, ndem_grid_sum_fn sum, void *ctx);
/* The factorisation px py pz = size with the least cut area across a box
 * of `extent`, leaving axis `down` (gravity's; -1: none) uncut when
 * another factorisation exists. */
void ndem_grid_auto_dims(int size, const double extent[3], int down, int dims[3]);
/* "PXxPYxPZ" (each >= 1): 0, or -1 when s is not that. */
int ndem_grid_parse(const char *s, int dims[3]);

#endif
