/* mass_props_shape.c - mass properties of closed triangle meshes (polyhedral
 * particles) and of clumps of spheres, and the principal axes of an inertia.
 *
 * Every shape is summed as moments about the shape's origin: volume V, first
 * moment m = int x dV and second moment S = int x x^T dV. Parts add (a clump's
 * lens is subtracted), and at the end the inertia about the centroid is
 * tr(S') 1 - S' with S' = S - V c c^T (parallel axes).
 *
 * Meshes: D. Eberly, "Polyhedral Mass Properties (Revisited)" (2002), the
 * divergence theorem turning the volume integrals into sums over triangles.
 * Clumps: spheres with no overlap are exact; when no three spheres overlap
 * one another (no triangle in the overlap graph, so no point lies in three
 * spheres) inclusion-exclusion with the exact moments of each lens (two
 * spherical caps) is exact too; otherwise an octree integrates the union
 * (docs/shapes.md states its error). */
#include "mass_props.h"
#include "vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Moments about the shape's origin. */
typedef struct moments {
    double v, m[3], s[9];
} moments;

static void moments_add(moments *acc, const moments *p, double sign)
{
    acc->v += sign * p->v;
    for (int i = 0; i < 3; i++) acc->m[i] += sign * p->m[i];
    for (int i = 0; i < 9; i++) acc->s[i] += sign * p->s[i];
}

/* Moments to volume, centroid and inertia about the centroid. */
static void moments_finish(const moments *mo, ndem_mass_props *out)
{
    double v = mo->v, c[3], s[9];
    for (int i = 0; i < 3; i++) c[i] = mo->m[i] / v;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) s[3 * i + j] = mo->s[3 * i + j] - v * c[i] * c[j];
    double tr = s[0] + s[4] + s[8];
    out->volume = v;
    memcpy(out->centroid, c, sizeof c);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) out->inertia[3 * i + j] = (i == j ? tr : 0.0) - s[3 * i + j];
}

/* ---- closed triangle mesh (Eberly 2002) ---- */

static void subexpressions(double w0, double w1, double w2, double f[3], double g[3])
{
    double t0 = w0 + w1, t1 = w0 * w0, t2 = t1 + w1 * t0;
    f[0] = t0 + w2;
    f[1] = t2 + w2 * f[0];
    f[2] = w0 * t1 + w1 * t2 + w2 * f[1];
    g[0] = f[1] + w0 * (f[0] + w0);
    g[1] = f[1] + w1 * (f[0] + w1);
    g[2] = f[1] + w2 * (f[0] + w2);
}

void ndem_volume_integrals_add(double in[10], const double p0[3], const double p1[3],
                               const double p2[3])
{
    double x[3] = {p0[0], p1[0], p2[0]}, y[3] = {p0[1], p1[1], p2[1]};
    double z[3] = {p0[2], p1[2], p2[2]}, e1[3], e2[3], n[3];
    double fx[3], fy[3], fz[3], gx[3], gy[3], gz[3];
    for (int a = 0; a < 3; a++) e1[a] = p1[a] - p0[a], e2[a] = p2[a] - p0[a];
    ndem_cross(e1, e2, n);
    subexpressions(x[0], x[1], x[2], fx, gx);
    subexpressions(y[0], y[1], y[2], fy, gy);
    subexpressions(z[0], z[1], z[2], fz, gz);
    in[0] += n[0] * fx[0];
    in[1] += n[0] * fx[1], in[2] += n[1] * fy[1], in[3] += n[2] * fz[1];
    in[4] += n[0] * fx[2], in[5] += n[1] * fy[2], in[6] += n[2] * fz[2];
    in[7] += n[0] * (y[0] * gx[0] + y[1] * gx[1] + y[2] * gx[2]);
    in[8] += n[1] * (z[0] * gy[0] + z[1] * gy[1] + z[2] * gy[2]);
    in[9] += n[2] * (x[0] * gz[0] + x[1] * gz[1] + x[2] * gz[2]);
}

void ndem_volume_integrals_finish(double in[10])
{
    static const double mult[10] = {1.0 / 6,  1.0 / 24, 1.0 / 24,  1.0 / 24,  1.0 / 60,
                                    1.0 / 60, 1.0 / 60, 1.0 / 120, 1.0 / 120, 1.0 / 120};
    for (int i = 0; i < 10; i++) in[i] *= mult[i];
}

int ndem_mass_props_mesh(const double *vertices, long vertex_count, const int *triangles,
                         long triangle_count, ndem_mass_props *out, char *err, size_t err_len)
{
    if (vertex_count < 4 || triangle_count < 4) {
        snprintf(err, err_len, "a closed mesh needs at least 4 vertices and 4 triangles");
        return -1;
    }
    /* about the bounding box centre: far from 0 the x^2 integrals would
     * cancel digits */
    double lo[3], hi[3], o[3], in[10] = {0};
    for (int a = 0; a < 3; a++) lo[a] = hi[a] = vertices[a];
    for (long k = 0; k < vertex_count; k++)
        for (int a = 0; a < 3; a++) {
            lo[a] = ndem_min(lo[a], vertices[3 * k + a]);
            hi[a] = ndem_max(hi[a], vertices[3 * k + a]);
        }
    for (int a = 0; a < 3; a++) o[a] = 0.5 * (lo[a] + hi[a]);
    for (long t = 0; t < triangle_count; t++) {
        double p[3][3];
        for (int k = 0; k < 3; k++) {
            int v = triangles[3 * t + k];
            if (v < 0 || v >= vertex_count) {
                snprintf(err, err_len, "triangle %ld: vertex %d out of range 0..%ld", t, v,
                         vertex_count - 1);
                return -1;
            }
            for (int a = 0; a < 3; a++) p[k][a] = vertices[3 * v + a] - o[a];
        }
        ndem_volume_integrals_add(in, p[0], p[1], p[2]);
    }
    ndem_volume_integrals_finish(in);
    double d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}, diag = ndem_norm(d);
    /* an open or flat mesh sums to rounding noise; inside-out is negative */
    if (!(in[0] > 1e-12 * diag * diag * diag)) {
        snprintf(err, err_len,
                 "the mesh encloses no positive volume (%g): it is open, flat or inside out "
                 "(triangles must turn counter-clockwise seen from outside)",
                 in[0]);
        return -1;
    }
    /* in[]: volume, int x, y, z, int x^2, y^2, z^2, int xy, yz, zx (about o) */
    moments mo = {.v = in[0]};
    double sd[3] = {in[4], in[5], in[6]}, so[3] = {in[7], in[8], in[9]};
    for (int a = 0; a < 3; a++) mo.m[a] = in[1 + a];
    for (int a = 0; a < 3; a++) mo.s[4 * a] = sd[a];
    mo.s[1] = mo.s[3] = so[0];
    mo.s[5] = mo.s[7] = so[1];
    mo.s[2] = mo.s[6] = so[2];
    moments_finish(&mo, out);
    for (int a = 0; a < 3; a++) out->centroid[a] += o[a];
    return 0;
}

void ndem_mass_props_union(const ndem_mass_props *parts, int count, ndem_mass_props *out)
{
    moments acc = {0};
    for (int p = 0; p < count; p++) { /* each part's moments about the origin */
        const ndem_mass_props *q = &parts[p];
        const double *c = q->centroid;
        double v = q->volume;
        acc.v += v;
        for (int i = 0; i < 3; i++) acc.m[i] += v * c[i];
        /* S = tr(I)/2 1 - I about the centroid, then parallel axes */
        double tr = 0.5 * (q->inertia[0] + q->inertia[4] + q->inertia[8]);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                acc.s[3 * i + j] += (i == j ? tr : 0.0) - q->inertia[3 * i + j] + v * c[i] * c[j];
    }
    moments_finish(&acc, out);
}

/* ---- clumps of spheres ---- */

static void sphere_moments(const double *c, double r, moments *mo)
{
    double v = 4.0 / 3.0 * M_PI * r * r * r, k = v * r * r / 5.0; /* int x^2 about c */
    memset(mo, 0, sizeof *mo);
    mo->v = v;
    for (int i = 0; i < 3; i++) mo->m[i] = v * c[i];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) mo->s[3 * i + j] = v * c[i] * c[j] + (i == j ? k : 0.0);
}

/* The cap of the sphere (c, r) beyond the plane at distance d from c along
 * the unit axis a (d in (-r, r)): slices z in [d, r] are disks of radius^2
 * r^2 - z^2, so V = pi int (r^2 - z^2), int z = pi int (r^2 - z^2) z,
 * int z^2 = pi int (r^2 - z^2) z^2, int x^2 = pi int (r^2 - z^2)^2 / 4. */
static void cap_moments(const double *c, double r, const double *a, double d, moments *mo)
{
    double r2 = r * r;
#define CAP_F0(z) (r2 * (z) - (z) * (z) * (z) / 3.0)
#define CAP_F1(z) (r2 * (z) * (z) / 2.0 - (z) * (z) * (z) * (z) / 4.0)
#define CAP_F2(z) (r2 * (z) * (z) * (z) / 3.0 - (z) * (z) * (z) * (z) * (z) / 5.0)
#define CAP_FX(z)                                                                                  \
    ((r2 * r2 * (z)-2.0 * r2 * (z) * (z) * (z) / 3.0 + (z) * (z) * (z) * (z) * (z) / 5.0) / 4.0)
    double v = M_PI * (CAP_F0(r) - CAP_F0(d));
    double mz = M_PI * (CAP_F1(r) - CAP_F1(d));
    double szz = M_PI * (CAP_F2(r) - CAP_F2(d));
    double sxx = M_PI * (CAP_FX(r) - CAP_FX(d));
#undef CAP_F0
#undef CAP_F1
#undef CAP_F2
#undef CAP_FX
    /* about c: m_y = mz a, S_y = sxx (1 - a a^T) + szz a a^T; then shift to
     * the origin: S = V c c^T + c m_y^T + m_y c^T + S_y */
    mo->v = v;
    for (int i = 0; i < 3; i++) mo->m[i] = v * c[i] + mz * a[i];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            mo->s[3 * i + j] = v * c[i] * c[j] + mz * (c[i] * a[j] + a[i] * c[j]) +
                               (i == j ? sxx : 0.0) + (szz - sxx) * a[i] * a[j];
}

/* 1 when spheres i and j overlap (share volume). */
static int spheres_overlap(const double *s, int i, int j)
{
    const double *p = s + 4 * i, *q = s + 4 * j;
    double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    double rr = p[3] + q[3];
    return ndem_dot(d, d) < rr * rr;
}

/* The moments of the intersection of two overlapping spheres. */
static void lens_moments(const double *p, const double *q, moments *mo)
{
    double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, dist = ndem_norm(d);
    double rp = p[3], rq = q[3];
    if (dist + ndem_min(rp, rq) <= ndem_max(rp, rq)) { /* one inside the other */
        const double *small = rp <= rq ? p : q;
        sphere_moments(small, small[3], mo);
        return;
    }
    double a[3] = {d[0] / dist, d[1] / dist, d[2] / dist}, b[3] = {-a[0], -a[1], -a[2]};
    double dp = (dist * dist + rp * rp - rq * rq) / (2.0 * dist); /* plane from p along a */
    moments cq;
    cap_moments(p, rp, a, dp, mo);
    cap_moments(q, rq, b, dist - dp, &cq);
    moments_add(mo, &cq, 1.0);
}

/* ---- octree over the union (three or more spheres overlapping) ---- */

typedef struct octree {
    const double *s;
    int n;
    int depth; /* of the leaves */
    moments mo;
} octree;

static void box_moments(const double *c, double h, moments *box)
{
    double v = h * h * h, k = v * h * h / 12.0;
    box->v = v;
    for (int i = 0; i < 3; i++) box->m[i] = v * c[i];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) box->s[3 * i + j] = v * c[i] * c[j] + (i == j ? k : 0.0);
}

/* Cell of centre c and edge h: inside one sphere (every corner in it: a ball
 * is convex), outside all (the box's nearest point outside each), or cut. */
static void octree_cell(octree *t, const double *c, double h, int level)
{
    int cut = 0;
    double e = 0.5 * h;
    for (int k = 0; k < t->n; k++) {
        const double *p = t->s + 4 * k;
        double near2 = 0.0, far2 = 0.0;
        for (int a = 0; a < 3; a++) {
            double dd = fabs(c[a] - p[a]), out = ndem_max(dd - e, 0.0);
            near2 += out * out;
            far2 += (dd + e) * (dd + e);
        }
        if (far2 <= p[3] * p[3]) {
            moments box;
            box_moments(c, h, &box);
            moments_add(&t->mo, &box, 1.0);
            return;
        }
        if (near2 < p[3] * p[3]) cut = 1;
    }
    if (!cut) return;
    if (level == t->depth) { /* leaf: in when its centre is */
        for (int k = 0; k < t->n; k++) {
            const double *p = t->s + 4 * k;
            double d[3] = {c[0] - p[0], c[1] - p[1], c[2] - p[2]};
            if (ndem_dot(d, d) < p[3] * p[3]) {
                moments box;
                box_moments(c, h, &box);
                moments_add(&t->mo, &box, 1.0);
                return;
            }
        }
        return;
    }
    for (int o = 0; o < 8; o++) {
        double cc[3];
        for (int a = 0; a < 3; a++) cc[a] = c[a] + ((o >> a & 1) ? 0.25 : -0.25) * h;
        octree_cell(t, cc, 0.5 * h, level + 1);
    }
}

/* The leaves' edge is at most the smallest radius / 2^NDEM_CLUMP_OCTREE_FINE
 * (and the octree at most NDEM_CLUMP_OCTREE_DEPTH deep). */
#define NDEM_CLUMP_OCTREE_FINE 6
#define NDEM_CLUMP_OCTREE_DEPTH 10

static void octree_moments(const double *s, int n, moments *mo)
{
    double lo[3], hi[3], rmin = s[3];
    for (int a = 0; a < 3; a++) lo[a] = s[a] - s[3], hi[a] = s[a] + s[3];
    for (int k = 0; k < n; k++) {
        const double *p = s + 4 * k;
        rmin = ndem_min(rmin, p[3]);
        for (int a = 0; a < 3; a++) lo[a] = ndem_min(lo[a], p[a] - p[3]);
        for (int a = 0; a < 3; a++) hi[a] = ndem_max(hi[a], p[a] + p[3]);
    }
    double h = 0.0, c[3];
    for (int a = 0; a < 3; a++) h = ndem_max(h, hi[a] - lo[a]);
    for (int a = 0; a < 3; a++) c[a] = 0.5 * (lo[a] + hi[a]);
    octree t = {.s = s, .n = n, .depth = 0};
    while (t.depth < NDEM_CLUMP_OCTREE_DEPTH &&
           ldexp(h, -t.depth) > ldexp(rmin, -NDEM_CLUMP_OCTREE_FINE))
        t.depth++;
    octree_cell(&t, c, h, 0);
    *mo = t.mo;
}

int ndem_mass_props_clump(const double *spheres, int count, ndem_mass_props *out, char *err,
                          size_t err_len)
{
    if (count < 1) {
        snprintf(err, err_len, "a clump needs at least one sphere");
        return -1;
    }
    for (int i = 0; i < count; i++) {
        const double *p = spheres + 4 * i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]) || !(p[3] > 0.0) ||
            !isfinite(p[3])) {
            snprintf(err, err_len, "sphere %d: finite centre and a radius > 0 expected", i);
            return -1;
        }
    }
    /* a triangle in the overlap graph: some point may lie in three spheres */
    int triple = 0;
    for (int i = 0; i < count && !triple; i++)
        for (int j = i + 1; j < count && !triple; j++) {
            if (!spheres_overlap(spheres, i, j)) continue;
            for (int k = j + 1; k < count && !triple; k++)
                triple = spheres_overlap(spheres, i, k) && spheres_overlap(spheres, j, k);
        }
    moments mo = {0};
    if (triple) {
        octree_moments(spheres, count, &mo);
    } else {
        for (int i = 0; i < count; i++) {
            moments part;
            sphere_moments(spheres + 4 * i, spheres[4 * i + 3], &part);
            moments_add(&mo, &part, 1.0);
            for (int j = i + 1; j < count; j++) {
                if (!spheres_overlap(spheres, i, j)) continue;
                lens_moments(spheres + 4 * i, spheres + 4 * j, &part);
                moments_add(&mo, &part, -1.0);
            }
        }
    }
    moments_finish(&mo, out);
    return 0;
}

/* ---- principal axes (cyclic Jacobi) ---- */

/* Rotation matrix (row-major, proper) to a unit quaternion (w, x, y, z),
 * Shepperd's choice of the largest component for accuracy. */
static void matrix_quat(const double m[9], double q[4])
{
    double tr = m[0] + m[4] + m[8];
    if (tr >= m[0] && tr >= m[4] && tr >= m[8]) {
        double s = 2.0 * sqrt(1.0 + tr);
        q[0] = 0.25 * s;
        q[1] = (m[7] - m[5]) / s;
        q[2] = (m[2] - m[6]) / s;
        q[3] = (m[3] - m[1]) / s;
    } else if (m[0] >= m[4] && m[0] >= m[8]) {
        double s = 2.0 * sqrt(1.0 + m[0] - m[4] - m[8]);
        q[0] = (m[7] - m[5]) / s;
        q[1] = 0.25 * s;
        q[2] = (m[1] + m[3]) / s;
        q[3] = (m[2] + m[6]) / s;
    } else if (m[4] >= m[8]) {
        double s = 2.0 * sqrt(1.0 + m[4] - m[0] - m[8]);
        q[0] = (m[2] - m[6]) / s;
        q[1] = (m[1] + m[3]) / s;
        q[2] = 0.25 * s;
        q[3] = (m[5] + m[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + m[8] - m[0] - m[4]);
        q[0] = (m[3] - m[1]) / s;
        q[1] = (m[2] + m[6]) / s;
        q[2] = (m[5] + m[7]) / s;
        q[3] = 0.25 * s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double sign = q[0] < 0.0 ? -1.0 : 1.0; /* w >= 0: one of the two equal quaternions */
    for (int i = 0; i < 4; i++) q[i] *= sign / n;
}

void ndem_mass_props_principal(const double inertia[9], double moments_out[3], double q[4])
{
    double a[9], v[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(a, inertia, sizeof a);
    /* sweeps of the three off-diagonal entries; quadratic convergence, a
     * 3x3 needs a handful; stop when they vanish against the diagonal */
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = fabs(a[1]) + fabs(a[2]) + fabs(a[5]);
        double diag = fabs(a[0]) + fabs(a[4]) + fabs(a[8]);
        if (off <= 1e-300 || off <= 1e-17 * diag) break;
        for (int p = 0; p < 2; p++)
            for (int r = p + 1; r < 3; r++) {
                double apr = a[3 * p + r];
                if (apr == 0.0) continue;
                double theta = (a[3 * r + r] - a[3 * p + p]) / (2.0 * apr);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                /* A' = J^T A J with J the rotation in the (p, r) plane */
                for (int k = 0; k < 3; k++) {
                    double akp = a[3 * k + p], akr = a[3 * k + r];
                    a[3 * k + p] = c * akp - s * akr;
                    a[3 * k + r] = s * akp + c * akr;
                }
                for (int k = 0; k < 3; k++) {
                    double apk = a[3 * p + k], ark = a[3 * r + k];
                    a[3 * p + k] = c * apk - s * ark;
                    a[3 * r + k] = s * apk + c * ark;
                }
                for (int k = 0; k < 3; k++) {
                    double vkp = v[3 * k + p], vkr = v[3 * k + r];
                    v[3 * k + p] = c * vkp - s * vkr;
                    v[3 * k + r] = s * vkp + c * vkr;
                }
            }
    }
    /* ascending moments, columns of v (principal axes in the shape's frame) along */
    int idx[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (a[4 * idx[j]] < a[4 * idx[i]]) {
                int tmp = idx[i];
                idx[i] = idx[j];
                idx[j] = tmp;
            }
    double r[9];
    for (int j = 0; j < 3; j++) {
        moments_out[j] = a[4 * idx[j]];
        for (int k = 0; k < 3; k++) r[3 * k + j] = v[3 * k + idx[j]];
    }
    /* a proper rotation: flip the last axis of a reflection */
    double det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) +
                 r[2] * (r[3] * r[7] - r[4] * r[6]);
    if (det < 0.0)
        for (int k = 0; k < 3; k++) r[3 * k + 2] = -r[3 * k + 2];
    matrix_quat(r, q);
}
