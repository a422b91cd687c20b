/* grid.h (internal) - the cells of the broad phase (broadphase.c) and a loop
 * over the neighbours of a body. */
#ifndef NDEM_GRID_H
#define NDEM_GRID_H

#include "sim.h"

#include <stdint.h>

static inline uint32_t ndem_cell_hash(int x, int y, int z, long mask)
{
    uint32_t h = (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u ^ (uint32_t)z * 83492791u;
    return (uint32_t)(h & (uint32_t)mask);
}

/* Is pair i, j within the lists' search reach? r_i + r_j plus the skin of
 * the worst pair (rmax: the largest radius), less 0.05 of the radius
 * difference: contacts.c keeps a pair within 0.05 min(r_i, r_j) of touching,
 * not 0.05 r_max. Exactly `skin` for two bodies of the largest radius. */
static inline int ndem_within(const ndem_bodies *b, long i, long j, double skin, double rmax)
{
    const double *xi = &b->pos[3 * i], *xj = &b->pos[3 * j];
    double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
    double ri = b->radius[i], rj = b->radius[j];
    double reach = ri + rj + (skin - 0.05 * (rmax - (ri < rj ? ri : rj)));
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach;
}

/* Pairs with a big body (broadphase_big.c), grouped by their lower index i:
 * j[start[i] .. start[i + 1]), in no particular order. */
typedef struct ndem_big_pairs {
    long *start; /* bodies + 1 */
    int *j;
    long tested; /* pairs tested for reach */
} ndem_big_pairs;
int ndem_big_pairs_find(ndem_sim *sim, double skin, double rmax, ndem_big_pairs *out);
void ndem_big_pairs_free(ndem_big_pairs *p);

/* Runs BODY with j set to every body j > i in the 27 cells around body i:
 * nine row ranges of the dense block, or 27 hashed cells checked for their
 * coordinates (a hash bucket may hold other cells). */
#define NDEM_GRID_FOR_NEIGHBOURS(g, i, j, BODY)                                                    \
    do {                                                                                           \
        const int *ci_ = &(g)->coord[3 * (i)];                                                     \
        if ((g)->dense) {                                                                          \
            int x0_ = ci_[0] - 1 > (g)->lo[0] ? ci_[0] - 1 - (g)->lo[0] : 0;                       \
            int x1_ =                                                                              \
                ci_[0] + 1 < (g)->lo[0] + (g)->dim[0] ? ci_[0] + 1 - (g)->lo[0] : (g)->dim[0] - 1; \
            for (int dz_ = -1; dz_ <= 1; dz_++) {                                                  \
                int z_ = ci_[2] + dz_ - (g)->lo[2];                                                \
                if (z_ < 0 || z_ >= (g)->dim[2]) continue;                                         \
                for (int dy_ = -1; dy_ <= 1; dy_++) {                                              \
                    int y_ = ci_[1] + dy_ - (g)->lo[1];                                            \
                    if (y_ < 0 || y_ >= (g)->dim[1]) continue;                                     \
                    long row_ = ((long)z_ * (g)->dim[1] + y_) * (g)->dim[0];                       \
                    long end_ = (g)->cell_start[row_ + x1_ + 1];                                   \
                    for (long k_ = (g)->cell_start[row_ + x0_]; k_ < end_; k_++) {                 \
                        long j = (g)->sorted[k_];                                                  \
                        if (j <= (i)) continue;                                                    \
                        BODY                                                                       \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            break;                                                                                 \
        }                                                                                          \
        for (int dz_ = -1; dz_ <= 1; dz_++)                                                        \
            for (int dy_ = -1; dy_ <= 1; dy_++)                                                    \
                for (int dx_ = -1; dx_ <= 1; dx_++) {                                              \
                    int cx_ = ci_[0] + dx_, cy_ = ci_[1] + dy_, cz_ = ci_[2] + dz_;                \
                    uint32_t h_ = ndem_cell_hash(cx_, cy_, cz_, (g)->table_size - 1);              \
                    for (long k_ = (g)->cell_start[h_]; k_ < (g)->cell_start[h_ + 1]; k_++) {      \
                        long j = (g)->sorted[k_];                                                  \
                        const int *cj_ = &(g)->coord[3 * j];                                       \
                        if (j <= (i) || cj_[0] != cx_ || cj_[1] != cy_ || cj_[2] != cz_) continue; \
                        BODY                                                                       \
                    }                                                                              \
                }                                                                                  \
    } while (0)

#endif
