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
