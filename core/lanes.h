/* lanes.h (internal) - sixteen float32 lanes, the solver's working width
 * (STYLE.md: SIMD over colour batches). GCC/clang vector extensions compile
 * it to one AVX-512 register, two AVX or four SSE registers (independent
 * halves whose instructions interleave, hiding latency), so the same source
 * runs on every x86-64 and the width never changes the results:
 * each lane performs the same IEEE operations in the same order (sqrt and
 * division are correctly rounded; -ffp-contract=off forbids fused
 * multiply-adds), whatever instructions the build uses. */
#ifndef NDEM_LANES_H
#define NDEM_LANES_H

#if !defined(__GNUC__)
#error "ndem's solver needs GCC or clang vector extensions"
#endif

#include <math.h>

#define NDEM_LANES 16

typedef float ndem_fv __attribute__((vector_size(NDEM_LANES * sizeof(float))));
typedef int ndem_mv __attribute__((vector_size(NDEM_LANES * sizeof(int))));
/* eight floats: one body's velocity slot (sim.h) */
typedef float ndem_f8 __attribute__((vector_size(8 * sizeof(float))));

static inline ndem_fv ndem_fv_set(float v) { return v - (ndem_fv){0}; }

/* m ? a : b per lane (m from a comparison: all ones or all zeros) */
static inline ndem_fv ndem_fv_sel(ndem_mv m, ndem_fv a, ndem_fv b)
{
    return (ndem_fv)((m & (ndem_mv)a) | (~m & (ndem_mv)b));
}

/* ndem_max / ndem_min of vec.h, lane by lane (same NaN behaviour) */
static inline ndem_fv ndem_fv_max(ndem_fv a, ndem_fv b) { return ndem_fv_sel(a > b, a, b); }
static inline ndem_fv ndem_fv_min(ndem_fv a, ndem_fv b) { return ndem_fv_sel(a < b, a, b); }

/* lane by lane; built with -fno-math-errno, so it vectorises to the
 * correctly rounded vector square root of the target */
static inline ndem_fv ndem_fv_sqrt(ndem_fv a)
{
    for (int l = 0; l < NDEM_LANES; l++) a[l] = __builtin_sqrtf(a[l]);
    return a;
}

static inline ndem_fv ndem_fv_abs(ndem_fv a)
{
    return (ndem_fv)((ndem_mv)a & (0x7fffffff - (ndem_mv){0}));
}

static inline ndem_fv ndem_fv_dot(const ndem_fv *a, const ndem_fv *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Transposes 8 x 8 floats in place: r[i][j] becomes r[j][i]. */
/* Always inlined: out of line they were compiled once, for the baseline
 * target, and called from the solver's AVX2 and AVX-512 sweeps (the 64-byte
 * vectors passed through the stack, the shuffles in SSE2); inlined, each
 * per-ISA copy of the sweep compiles them for its own target (the same
 * IEEE operations: no arithmetic in them). */
#define NDEM_FV_INLINE static inline __attribute__((always_inline))

NDEM_FV_INLINE void ndem_f8_transpose(ndem_f8 r[8])
{
    ndem_f8 t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int i = 0; i < 8; i += 4) {
        u[i] = __builtin_shufflevector(t[i], t[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        u[i + 1] = __builtin_shufflevector(t[i], t[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        u[i + 2] = __builtin_shufflevector(t[i + 1], t[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
        u[i + 3] = __builtin_shufflevector(t[i + 1], t[i + 3], 2, 3, 10, 11, 6, 7, 14, 15);
    }
    for (int i = 0; i < 4; i++) {
        r[i] = __builtin_shufflevector(u[i], u[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        r[i + 4] = __builtin_shufflevector(u[i], u[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

/* The velocity slots of NDEM_LANES bodies as one vector per component. */
NDEM_FV_INLINE void ndem_gather(const ndem_f8 *vs, const int *slot, ndem_fv out[8])
{
    ndem_f8 lo[8], hi[8];
    for (int l = 0; l < 8; l++) lo[l] = vs[slot[l]], hi[l] = vs[slot[8 + l]];
    ndem_f8_transpose(lo);
    ndem_f8_transpose(hi);
    for (int q = 0; q < 8; q++)
        out[q] = __builtin_shufflevector(lo[q], hi[q], 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                         14, 15);
}

/* ndem_gather's inverse for the first `fill` lanes. */
NDEM_FV_INLINE void ndem_scatter(ndem_f8 *vs, const int *slot, const ndem_fv in[8], int fill)
{
    ndem_f8 lo[8], hi[8];
    for (int q = 0; q < 8; q++) {
        lo[q] = __builtin_shufflevector(in[q], in[q], 0, 1, 2, 3, 4, 5, 6, 7);
        hi[q] = __builtin_shufflevector(in[q], in[q], 8, 9, 10, 11, 12, 13, 14, 15);
    }
    ndem_f8_transpose(lo);
    ndem_f8_transpose(hi);
    for (int l = 0; l < fill; l++) vs[slot[l]] = l < 8 ? lo[l] : hi[l - 8];
}

/* Eight float64 lanes: smooth DEM's force law over packets of contacts
 * (dem_lanes.c). Same rule as above: each lane performs the scalar code's
 * IEEE operations in the same order, so the bits match the scalar law's on
 * every instruction set. Always inlined, so that the per-ISA copies of the
 * kernel compile them for their own target. */
#define NDEM_DLANES 4

typedef double ndem_dv __attribute__((vector_size(NDEM_DLANES * sizeof(double))));
typedef long long ndem_dm __attribute__((vector_size(NDEM_DLANES * sizeof(long long))));

#define NDEM_DV_INLINE static inline __attribute__((always_inline))

/* m ? a : b per lane (m from a comparison) */
NDEM_DV_INLINE ndem_dv ndem_dv_sel(ndem_dm m, ndem_dv a, ndem_dv b)
{
    return (ndem_dv)((m & (ndem_dm)a) | (~m & (ndem_dm)b));
}

NDEM_DV_INLINE ndem_dv ndem_dv_sqrt(ndem_dv a)
{
    for (int l = 0; l < NDEM_DLANES; l++) a[l] = __builtin_sqrt(a[l]);
    return a;
}

/* vec.h's ndem_dot and ndem_cross, lane by lane (the same order) */
NDEM_DV_INLINE ndem_dv ndem_dv_dot(const ndem_dv *a, const ndem_dv *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

NDEM_DV_INLINE void ndem_dv_cross(const ndem_dv *a, const ndem_dv *b, ndem_dv *out)
{
    ndem_dv x = a[1] * b[2] - a[2] * b[1];
    ndem_dv y = a[2] * b[0] - a[0] * b[2];
    ndem_dv z = a[0] * b[1] - a[1] * b[0];
    out[0] = x, out[1] = y, out[2] = z;
}

#endif
