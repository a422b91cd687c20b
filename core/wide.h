/* wide.h (internal) - one wide-float type for the solver (STYLE.md): NDEM_W
 * doubles per value, with the operations the PGS kernel needs. GCC and clang
 * vector extensions compile it to AVX-512, AVX2 or SSE2 pairs, whatever the
 * target has (make NATIVE=1 for this machine's widest); every lane performs
 * the same IEEE operations in the same order as the scalar code, so results
 * are bit-identical with or without it. Other compilers get NDEM_W = 1 and the
 * scalar kernel only (NDEM_WIDE undefined). */
#ifndef NDEM_WIDE_H
#define NDEM_WIDE_H

#include <math.h>

#if defined(__GNUC__) || defined(__clang__)
#define NDEM_WIDE 1
/* the target's native width, so no value crosses a call in a wider type */
#if defined(__AVX512F__)
#define NDEM_W 8
#elif defined(__AVX__)
#define NDEM_W 4
#else
#define NDEM_W 2
#endif
typedef double ndem_wide __attribute__((vector_size(NDEM_W * sizeof(double))));
typedef long long ndem_wmask __attribute__((vector_size(NDEM_W * sizeof(long long))));

static inline ndem_wide ndem_w_set(double v)
{
    ndem_wide r = {0};
    for (int l = 0; l < NDEM_W; l++) r[l] = v;
    return r;
}

/* m ? a : b per lane (m from a comparison: all ones or all zeros) */
static inline ndem_wide ndem_w_sel(ndem_wmask m, ndem_wide a, ndem_wide b)
{
    return (ndem_wide)((m & (ndem_wmask)a) | (~m & (ndem_wmask)b));
}

/* ndem_max / ndem_min of vec.h, lane by lane (same NaN behaviour) */
static inline ndem_wide ndem_w_max(ndem_wide a, ndem_wide b) { return ndem_w_sel(a > b, a, b); }
static inline ndem_wide ndem_w_min(ndem_wide a, ndem_wide b) { return ndem_w_sel(a < b, a, b); }

static inline ndem_wide ndem_w_sqrt(ndem_wide a)
{
    ndem_wide r = a;
    for (int l = 0; l < NDEM_W; l++) r[l] = sqrt(a[l]);
    return r;
}

static inline ndem_wide ndem_w_abs(ndem_wide a)
{
    ndem_wide r = a;
    for (int l = 0; l < NDEM_W; l++) r[l] = fabs(a[l]);
    return r;
}

static inline ndem_wide ndem_w_dot(const ndem_wide *a, const ndem_wide *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
#endif

#endif
