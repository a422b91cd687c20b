/* geometry.c - sphere against static or kinematic geometry: planes, boxes
 * and cylinders, each a container (inside) or a solid obstacle. The contact
 * normal points from the sphere into the geometry, as for particle pairs
 * (PHYSICS.md "Bodies and contacts"). */
#include "sim.h"
#include "vec.h"

#include <math.h>

static int add_hit(ndem_geo_hit *hits, int n, const double *normal, double delta, int feature,
                   double margin)
{
    if (delta <= -margin) return n;
    hits[n].n[0] = normal[0];
    hits[n].n[1] = normal[1];
    hits[n].n[2] = normal[2];
    hits[n].delta = delta;
    hits[n].feature = feature;
    return n + 1;
}

/* Closest point of a solid, axis-aligned box; pushes out through the nearest
 * face when the centre is inside. */
static int solid_box(const ndem_geometry_def *g, const double *x, double r, double margin,
                     ndem_geo_hit *hits)
{
    double q[3], d[3];
    int inside = 1;
    for (int k = 0; k < 3; k++) {
        q[k] = fmin(fmax(x[k], g->min[k]), g->max[k]);
        d[k] = x[k] - q[k];
        if (d[k] != 0.0) inside = 0;
    }
    if (!inside) {
        double dist = ndem_norm(d);
        double n[3] = {-d[0] / dist, -d[1] / dist, -d[2] / dist};
        return add_hit(hits, 0, n, r - dist, 0, margin);
    }
    double best = INFINITY, n[3] = {0, 0, 0};
    int axis = 0;
    for (int k = 0; k < 3; k++) {
        double lo = x[k] - g->min[k], hi = g->max[k] - x[k];
        if (lo < best) {
            best = lo;
            axis = k;
            n[0] = n[1] = n[2] = 0;
            n[k] = 1.0;
        }
        if (hi < best) {
            best = hi;
            axis = k;
            n[0] = n[1] = n[2] = 0;
            n[k] = -1.0;
        }
    }
    (void)axis;
    return add_hit(hits, 0, n, r + best, 0, margin);
}

static int cylinder(const ndem_geometry_def *g, const double *x, double r, double margin,
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
            n = add_hit(hits, n, out, r - (g->radius - rn), 0, margin);
        }
        double up[3] = {a[0], a[1], a[2]}, down[3] = {-a[0], -a[1], -a[2]};
        n = add_hit(hits, n, up, r - (half - t), 1, margin);
        n = add_hit(hits, n, down, r - (t + half), 2, margin);
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
        return add_hit(hits, 0, nn, r - dist, 0, margin);
    }
    /* Centre inside the solid: leave through the side or the nearer cap. */
    double side = g->radius - rn, cap = half - fabs(t);
    if (side < cap && rn > 1e-12) {
        double nn[3] = {-rho[0] / rn, -rho[1] / rn, -rho[2] / rn};
        return add_hit(hits, 0, nn, r + side, 0, margin);
    }
    double s = t >= 0 ? -1.0 : 1.0;
    double nn[3] = {s * a[0], s * a[1], s * a[2]};
    return add_hit(hits, 0, nn, r + cap, 0, margin);
}

int ndem_geometry_collide(const ndem_geometry_def *g, const double *x, double r, double margin,
                          ndem_geo_hit hits[6])
{
    switch (g->type) {
    case NDEM_GEOMETRY_PLANE: {
        double rel[3] = {x[0] - g->point[0], x[1] - g->point[1], x[2] - g->point[2]};
        double dist = ndem_dot(rel, g->normal);
        double n[3] = {-g->normal[0], -g->normal[1], -g->normal[2]};
        return add_hit(hits, 0, n, r - dist, 0, margin);
    }
    case NDEM_GEOMETRY_BOX:
        if (g->inside) {
            int n = 0;
            for (int k = 0; k < 3; k++) {
                double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
                lo[k] = -1.0;
                hi[k] = 1.0;
                n = add_hit(hits, n, lo, r - (x[k] - g->min[k]), 2 * k, margin);
                n = add_hit(hits, n, hi, r - (g->max[k] - x[k]), 2 * k + 1, margin);
            }
            return n;
        }
        return solid_box(g, x, r, margin, hits);
    case NDEM_GEOMETRY_CYLINDER:
        return cylinder(g, x, r, margin, hits);
    }
    return 0;
}

static void reference_point(const ndem_geometry_def *g, double *c)
{
    for (int k = 0; k < 3; k++) {
        if (g->type == NDEM_GEOMETRY_PLANE) c[k] = g->point[k];
        else if (g->type == NDEM_GEOMETRY_BOX) c[k] = 0.5 * (g->min[k] + g->max[k]);
        else c[k] = g->center[k];
    }
}

/* Surface velocity v + w x (p - c): a turning drum drags its contents. */
void ndem_geometry_surface_velocity(const ndem_geometry_def *g, const double *p, double *u)
{
    double c[3], rel[3], wr[3];
    reference_point(g, c);
    for (int k = 0; k < 3; k++) rel[k] = p[k] - c[k];
    ndem_cross(g->angular_velocity, rel, wr);
    for (int k = 0; k < 3; k++) u[k] = g->velocity[k] + wr[k];
}

void ndem_geometry_bounds(const ndem_geometry_def *g, double *lo, double *hi)
{
    if (g->type == NDEM_GEOMETRY_BOX) {
        for (int k = 0; k < 3; k++) {
            lo[k] = g->min[k];
            hi[k] = g->max[k];
        }
    } else if (g->type == NDEM_GEOMETRY_CYLINDER) {
        double e = g->radius + 0.5 * g->length;
        for (int k = 0; k < 3; k++) {
            lo[k] = g->center[k] - e;
            hi[k] = g->center[k] + e;
        }
    } else {
        for (int k = 0; k < 3; k++) {
            lo[k] = hi[k] = g->point[k];
        }
    }
}
