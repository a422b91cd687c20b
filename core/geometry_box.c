/* geometry_box.c - an axis-aligned box: a container (inside, six walls) or
 * a solid obstacle. */
#include "geometry.h"
#include "vec.h"

#include <math.h>

static void box_bounds(const ndem_geometry_def *g, double *lo, double *hi)
{
    for (int k = 0; k < 3; k++) {
        lo[k] = g->min[k];
        hi[k] = g->max[k];
    }
}

/* Closest point of a solid box; pushes out through the nearest face when
 * the centre is inside. */
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
        return ndem_geo_add_hit(hits, 0, n, r - dist, 0, margin);
    }
    double best = INFINITY, n[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        double lo = x[k] - g->min[k], hi = g->max[k] - x[k];
        if (lo < best) {
            best = lo;
            n[0] = n[1] = n[2] = 0;
            n[k] = 1.0;
        }
        if (hi < best) {
            best = hi;
            n[0] = n[1] = n[2] = 0;
            n[k] = -1.0;
        }
    }
    return ndem_geo_add_hit(hits, 0, n, r + best, 0, margin);
}

/* A container: each wall is its own feature (2 k low, 2 k + 1 high). */
static int box_collide(const ndem_geometry_def *g, const double *x, double r, double margin,
                       ndem_geo_hit *hits)
{
    if (!g->inside) return solid_box(g, x, r, margin, hits);
    int n = 0;
    for (int k = 0; k < 3; k++) {
        double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
        lo[k] = -1.0;
        hi[k] = 1.0;
        n = ndem_geo_add_hit(hits, n, lo, r - (x[k] - g->min[k]), 2 * k, margin);
        n = ndem_geo_add_hit(hits, n, hi, r - (g->max[k] - x[k]), 2 * k + 1, margin);
    }
    return n;
}

static void box_surface_velocity(const ndem_geometry_def *g, const double *p, double *u)
{
    double c[3];
    for (int k = 0; k < 3; k++) c[k] = 0.5 * (g->min[k] + g->max[k]);
    ndem_geo_rigid_velocity(g, c, p, u);
}

static void box_integrate(ndem_geometry_def *g, double h)
{
    for (int k = 0; k < 3; k++) {
        double dx = h * g->velocity[k];
        g->min[k] += dx;
        g->max[k] += dx;
    }
}

const ndem_geometry_ops ndem_geometry_box_ops = {
    "box", box_bounds, box_collide, box_surface_velocity, box_integrate, NULL,
};
