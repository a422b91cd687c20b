/* vec.h (internal) - 3-vector helpers on plain double[3]. */
#ifndef NDEM_VEC_H
#define NDEM_VEC_H

#include <math.h>

static inline double ndem_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void ndem_cross(const double *a, const double *b, double *out)
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* fmin/fmax honour NaN rules and are library calls without -ffinite-math;
 * these compile to one instruction. */
static inline double ndem_max(double a, double b) { return a > b ? a : b; }
static inline double ndem_min(double a, double b) { return a < b ? a : b; }

static inline double ndem_norm(const double *a) { return sqrt(ndem_dot(a, a)); }

/* Orthonormal tangents of a unit normal (Frisvad's branch-free construction
 * made continuous enough by choosing the branch on the sign of n_z). */
static inline void ndem_tangents(const double *n, double *t1, double *t2)
{
    double s = n[2] >= 0.0 ? 1.0 : -1.0;
    double a = -1.0 / (s + n[2]);
    double b = n[0] * n[1] * a;
    t1[0] = 1.0 + s * n[0] * n[0] * a;
    t1[1] = s * b;
    t1[2] = -s * n[0];
    t2[0] = b;
    t2[1] = s + n[1] * n[1] * a;
    t2[2] = -n[1];
}

#endif
