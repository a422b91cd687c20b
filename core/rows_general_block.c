/* rows_general_block.c - the continuous stage's solve of one general pair
 * of at most NDEM_GENERAL_BLOCK points as a block (rows_general.h): all its
 * rows at once, exactly, instead of one point after another.
 *
 * Why: projected Gauss-Seidel point after point leaves the impulses of a
 * face's corners uneven after a sweep (the first corner takes more), and
 * the sweeps of a step do not converge a stack: two cubes landing face on
 * face turned at 9e-6 rad/s, and a column of 5 cubes dropped 1 mm twisted
 * at 5e-4 rad/s on landing, then rocked and toppled within 1 s (25 sweeps;
 * 200 converged it). The block solve gives every point of a symmetric
 * contact the same impulse: the pair's Delassus matrix A (rows of its
 * points, both bodies' masses and world inverse inertias, the normal rows'
 * compliance) is formed and factored once per step (the factor of every
 * point pressing); each sweep solves A d = -r for the rows of the
 * points pressing (a point whose normal impulse would turn negative leaves
 * the set, active-set style), and accepts when every friction impulse
 * lies in its cone; otherwise (sliding) the pair falls back to the point
 * sweep. Only pairs whose points all touch (or none does) come here (the
 * caller). Rigid friction rows make A singular (8 friction rows, 6 degrees
 * of freedom): their diagonal takes 1e-9 of itself, the least-norm
 * solution to rounding. */
#include "rows_general.h"

#include "sim.h"
#include "vec.h"

#include <math.h>
#include <string.h>

#define BLOCK_ROWS (3 * NDEM_GENERAL_BLOCK)

/* Packed lower triangle index of (i, j), i >= j. */
static long tri(int i, int j) { return (long)i * (i + 1) / 2 + j; }

static long tri_size(int m) { return (long)m * (m + 1) / 2; }

/* Row r of a point's rows scaled into the solver's variables: the normal
 * row's impulse is s lambda. */
static double row_scale(const ndem_grow *r, int e) { return e == 0 ? r->s : 1.0; }

/* The rows the block takes when every point presses: the normal rows, and
 * the friction rows unless frictionless (they stay at zero then). */
static void full_set(const ndem_grow *r0, int count, int *act)
{
    for (int i = 0; i < 3 * count; i++) act[i] = i % 3 == 0 || r0[i / 3].mu > 0;
}

long ndem_general_block_size(int count)
{
    return count >= 2 && count <= NDEM_GENERAL_BLOCK ? 2 * tri_size(3 * count) : 0;
}

/* The Cholesky factor (packed lower triangle l) of a's rows in act. 0, or
 * -1 when not positive. */
static int factor(const double *a, const int *act, int m, double *l)
{
    int idx[BLOCK_ROWS], n = 0;
    for (int i = 0; i < m; i++)
        if (act[i]) idx[n++] = i;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = a[tri(idx[i], idx[j])];
            for (int k = 0; k < j; k++) s -= l[tri(i, k)] * l[tri(j, k)];
            if (i == j) {
                if (!(s > 0)) return -1;
                l[tri(i, i)] = sqrt(s);
            } else {
                l[tri(i, j)] = s / l[tri(j, j)];
            }
        }
    return 0;
}

/* x = (l l^T)^-1 b on the rows in act (l: their packed factor). */
static void substitute(const double *l, const int *act, int m, const double *b, double *x)
{
    double y[BLOCK_ROWS];
    int idx[BLOCK_ROWS], n = 0;
    for (int i = 0; i < m; i++)
        if (act[i]) idx[n++] = i;
    for (int i = 0; i < n; i++) {
        double s = b[idx[i]];
        for (int k = 0; k < i; k++) s -= l[tri(i, k)] * y[k];
        y[i] = s / l[tri(i, i)];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = y[i];
        for (int k = i + 1; k < n; k++) s -= l[tri(k, i)] * x[idx[k]];
        x[idx[i]] = s / l[tri(i, i)];
    }
}

void ndem_general_block_form(const ndem_grow *r0, int count, double imp_imq, double *a)
{
    int m = 3 * count, act[BLOCK_ROWS];
    for (int i = 0; i < m; i++) {
        const ndem_grow *ri = &r0[i / 3];
        int ei = i % 3;
        for (int j = 0; j <= i; j++) {
            const ndem_grow *rj = &r0[j / 3];
            int ej = j % 3;
            double v = imp_imq * ndem_dot(ri->t[ei], rj->t[ej]) + ndem_dot(ri->jp[ei], rj->mp[ej]) +
                       ndem_dot(ri->jq[ei], rj->mq[ej]);
            v *= row_scale(ri, ei) * row_scale(rj, ej);
            if (i == j) v += (ei == 0 ? ri->sig_n : 0.0) + 1e-9 * v;
            a[tri(i, j)] = v;
        }
    }
    /* the factor of the full set, which a resting pair uses every sweep;
     * NaN: refactored in each sweep (where it fails again: the point sweep) */
    double *l = a + tri_size(m);
    full_set(r0, count, act);
    if (factor(a, act, m, l)) l[0] = NAN;
}

/* a's entry (i, j) of the full symmetric matrix. */
static double entry(const double *a, int i, int j) { return i >= j ? a[tri(i, j)] : a[tri(j, i)]; }

int ndem_general_block_solve(ndem_grow *r0, int count, const double *a, ndem_general_body *P,
                             ndem_general_body *Q, int q_per_point, double *res)
{
    const int m = 3 * count;
    const double *lfull = a + tri_size(m);
    double rv[BLOCK_ROWS] = {0}, lam[BLOCK_ROWS] = {0}, d[BLOCK_ROWS], b[BLOCK_ROWS];
    double l[BLOCK_ROWS * (BLOCK_ROWS + 1) / 2];
    int act[BLOCK_ROWS];
    /* residuals of every row at the current velocities */
    for (int j = 0; j < count; j++) {
        ndem_grow *r = &r0[j];
        ndem_general_body *q = q_per_point ? &Q[j] : Q;
        for (int e = 0; e < 3; e++) {
            double v = ndem_general_rel_vel(r, P, q, e);
            rv[3 * j + e] = e == 0 ? r->s * v - r->q_n + r->sig_n * r->lam[0] : v;
            lam[3 * j + e] = r->lam[e];
        }
    }
    full_set(r0, count, act);
    /* active set: a point whose normal impulse would turn negative leaves
     * (its impulses go to zero), the most negative first; the first round
     * (every point pressing) uses the step's factor */
    for (int round = 0; round <= count; round++) {
        int any = 0;
        for (int i = 0; i < m; i++) d[i] = act[i] ? 0.0 : -lam[i];
        for (int i = 0; i < m; i++) {
            if (!act[i]) continue;
            double s = -rv[i];
            for (int k = 0; round > 0 && k < m; k++)
                if (!act[k]) s -= entry(a, i, k) * d[k];
            b[i] = s;
            any = 1;
        }
        if (any) {
            const double *lf = lfull;
            if (round > 0 || isnan(lfull[0])) {
                if (factor(a, act, m, l)) return 0;
                lf = l;
            }
            substitute(lf, act, m, b, d);
        }
        int worst = -1;
        for (int j = 0; j < count; j++)
            if (act[3 * j] && lam[3 * j] + d[3 * j] < 0 &&
                (worst < 0 || lam[3 * j] + d[3 * j] < lam[3 * worst] + d[3 * worst]))
                worst = j;
        if (worst < 0) break;
        if (round == count) return 0;
        for (int e = 0; e < 3; e++) act[3 * worst + e] = 0;
    }
    /* friction inside each point's cone, else the point sweep (sliding) */
    for (int j = 0; j < count; j++) {
        const ndem_grow *r = &r0[j];
        double f1 = lam[3 * j + 1] + d[3 * j + 1], f2 = lam[3 * j + 2] + d[3 * j + 2];
        double lim = r->mu * r->s * (lam[3 * j] + d[3 * j]);
        if (f1 * f1 + f2 * f2 > lim * lim * (1 + 1e-12)) return 0;
    }
    for (int j = 0; j < count; j++) {
        ndem_grow *r = &r0[j];
        ndem_general_body *q = q_per_point ? &Q[j] : Q;
        for (int e = 0; e < 3; e++) {
            ndem_general_apply(r, P, q, e, row_scale(r, e) * d[3 * j + e]);
            r->lam[e] = lam[3 * j + e] + d[3 * j + e];
        }
        if (res)
            res[0] += fabs(rv[3 * j]),
                res[1] += sqrt(rv[3 * j + 1] * rv[3 * j + 1] + rv[3 * j + 2] * rv[3 * j + 2]);
    }
    return 1;
}
