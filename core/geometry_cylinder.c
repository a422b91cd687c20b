/* geometry_cylinder.c - a finite cylinder: a container closed by its two
 * end caps (inside), or a solid obstacle. It turns about its axis with its
 * angular velocity (the surface velocity), which leaves its shape as is. */
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

static void cylinder_surface_velocity(const ndem_geometry_def *g, const double *p, double *u)
{
    ndem_geo_rigid_velocity(g, g->center, p, u);
}

static void cylinder_integrate(ndem_geometry_def *g, double h)
{
    for (int k = 0; k < 3; k++) g->center[k] += h * g->velocity[k];
}

const ndem_geometry_ops ndem_geometry_cylinder_ops = {
    "cylinder", cylinder_bounds, cylinder_collide, cylinder_surface_velocity, cylinder_integrate,
    NULL,
};
