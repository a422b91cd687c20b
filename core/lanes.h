/* lanes.h (internal) - eight float32 lanes, the solver's working width
 * (STYLE.md: SIMD over colour batches). GCC/clang vector extensions compile
 * it to one AVX register, two SSE registers, or half an AVX-512 one, so the
 * same source runs on every x86-64 and the width never changes the results:
 * each lane performs the same IEEE operations in the same order (sqrt and
 * division are correctly rounded; -ffp-contract=off forbids fused
 * multiply-adds), whatever instructions the build uses. */
#ifndef NDEM_LANES_H
#define NDEM_LANES_H

#if !defined(__GNUC__)
#error "ndem's solver needs GCC or clang vector extensions"
#endif

#if defined(__SSE__)
#include <immintrin.h>
#endif
#include <math.h>

#define NDEM_LANES 8

typedef float ndem_f8 __attribute__((vector_size(NDEM_LANES * sizeof(float))));
typedef int ndem_m8 __attribute__((vector_size(NDEM_LANES * sizeof(int))));

static inline ndem_f8 ndem_f8_set(float v) { return (ndem_f8){v, v, v, v, v, v, v, v}; }

/* m ? a : b per lane (m from a comparison: all ones or all zeros) */
static inline ndem_f8 ndem_f8_sel(ndem_m8 m, ndem_f8 a, ndem_f8 b)
{
    return (ndem_f8)((m & (ndem_m8)a) | (~m & (ndem_m8)b));
}

/* ndem_max / ndem_min of vec.h, lane by lane (same NaN behaviour) */
static inline ndem_f8 ndem_f8_max(ndem_f8 a, ndem_f8 b) { return ndem_f8_sel(a > b, a, b); }
static inline ndem_f8 ndem_f8_min(ndem_f8 a, ndem_f8 b) { return ndem_f8_sel(a < b, a, b); }

static inline ndem_f8 ndem_f8_sqrt(ndem_f8 a)
{
#if defined(__AVX__)
    return (ndem_f8)_mm256_sqrt_ps((__m256)a);
#elif defined(__SSE__)
    __m128 lo = _mm_sqrt_ps(__builtin_shufflevector(a, a, 0, 1, 2, 3));
    __m128 hi = _mm_sqrt_ps(__builtin_shufflevector(a, a, 4, 5, 6, 7));
    return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
#else
    for (int l = 0; l < NDEM_LANES; l++) a[l] = sqrtf(a[l]);
    return a;
#endif
}

static inline ndem_f8 ndem_f8_abs(ndem_f8 a)
{
    const ndem_m8 magnitude = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff,
                               0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};
    return (ndem_f8)((ndem_m8)a & magnitude);
}

static inline ndem_f8 ndem_f8_dot(const ndem_f8 *a, const ndem_f8 *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Transposes 8 x 8 floats in place: r[i][j] becomes r[j][i]. Gathers eight
 * bodies' velocity slots into one vector per component, and back. */
static inline void ndem_f8_transpose(ndem_f8 r[8])
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

#endif
