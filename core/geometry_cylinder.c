/* geometry_cylinder.c - a finite cylinder: a container closed by its two
 * end caps (inside), or a solid obstacle. A turn about its own axis leaves
 * its shape as is (symmetric), so a turning drum only drags its contents. */
#include "geometry.h"
#include "vec.h"

#include <math.h>

static void cylinder_bounds(const ndem_geometry_def *g, double *lo, double *hi)
{
    double e = g->radius + 0.5 * g->length;
    for (int k = 0; k < 3; k++) {
        lo[k] = g->center[k] - e;
        hi[k] = g->center[k] + e;
    }
}

/* Features of a container: 0 the side, 1 the upper cap, 2 the lower. */
static int cylinder_collide(const ndem_geometry_def *g, const double *x, double r, double margin,
                            ndem_geo_hit *hits)
{
    const double *a = g->axis;
    double rel[3] = {x[0] - g->center[0], x[1] - g->center[1], x[2] - g->center[2]};
    double t = ndem_dot(rel, a);
    double rho[3] = {rel[0] - t * a[0], rel[1] - t * a[1], rel[2] - t * a[2]};
    double rn = ndem_norm(rho);
    double half = 0.5 * g->length;
    int n = 0;
    if (g->inside) {
        if (rn > 1e-12) {
            double out[3] = {rho[0] / rn, rho[1] / rn, rho[2] / rn};
            n = ndem_geo_add_hit(hits, n, out, r - (g->radius - rn), 0, margin);
        }
        double up[3] = {a[0], a[1], a[2]}, down[3] = {-a[0], -a[1], -a[2]};
        n = ndem_geo_add_hit(hits, n, up, r - (half - t), 1, margin);
        n = ndem_geo_add_hit(hits, n, down, r - (t + half), 2, margin);
        return n;
    }
    double tc = fmin(fmax(t, -half), half);
    double scale = rn > g->radius ? g->radius / rn : 1.0;
    double q[3];
    for (int k = 0; k < 3; k++) q[k] = g->center[k] + tc * a[k] + rho[k] * scale;
    double d[3] = {x[0] - q[0], x[1] - q[1], x[2] - q[2]};
    double dist = ndem_norm(d);
    if (dist > 1e-12 && (rn > g->radius || fabs(t) > half)) {
        double nn[3] = {-d[0] / dist, -d[1] / dist, -d[2] / dist};
        return ndem_geo_add_hit(hits, 0, nn, r - dist, 0, margin);
    }
    /* Centre inside the solid: leave through the side or the nearer cap. */
    double side = g->radius - rn, cap = half - fabs(t);
    if (side < cap && rn > 1e-12) {
        double nn[3] = {-rho[0] / rn, -rho[1] / rn, -rho[2] / rn};
        return ndem_geo_add_hit(hits, 0, nn, r + side, 0, margin);
    }
    double s = t >= 0 ? -1.0 : 1.0;
    double nn[3] = {s * a[0], s * a[1], s * a[2]};
    return ndem_geo_add_hit(hits, 0, nn, r + cap, 0, margin);
}

/* The reference point is the centre. */
static void cylinder_reference(const ndem_geometry_def *g, double c[3], double q[4])
{
    for (int k = 0; k < 3; k++) c[k] = g->center[k];
    ndem_geo_no_turn(q);
}

static void cylinder_translate(ndem_geometry_def *g, const double d[3])
{
    for (int k = 0; k < 3; k++) g->center[k] += d[k];
}

/* w along the axis, and p on the axis (exactly: a test of sameness, not of
 * nearness; a turn that fails it is done in full, which is only slower). */
static int cylinder_symmetric(const ndem_geometry_def *g, const double w[3], const double p[3])
{
    double rel[3] = {p[0] - g->center[0], p[1] - g->center[1], p[2] - g->center[2]}, a[3], b[3];
    ndem_cross(w, g->axis, a);
    ndem_cross(rel, g->axis, b);
    return a[0] == 0 && a[1] == 0 && a[2] == 0 && b[0] == 0 && b[1] == 0 && b[2] == 0;
}

const ndem_geometry_ops ndem_geometry_cylinder_ops = {
    .name = "cylinder",
    .bounds = cylinder_bounds,
    .collide = cylinder_collide,
    .reference = cylinder_reference,
    .translate = cylinder_translate,
    .symmetric = cylinder_symmetric,
};
