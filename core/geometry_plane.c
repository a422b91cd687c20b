/* geometry_plane.c - an infinite plane; material on the side its normal
 * points to. */
#include "geometry.h"
#include "vec.h"

static void plane_bounds(const ndem_geometry_def *g, double *lo, double *hi)
{
    for (int k = 0; k < 3; k++) lo[k] = hi[k] = g->point[k];
}

static int plane_collide(const ndem_geometry_def *g, const double *x, double r, double margin,
                         ndem_geo_hit *hits)
{
    double rel[3] = {x[0] - g->point[0], x[1] - g->point[1], x[2] - g->point[2]};
    double dist = ndem_dot(rel, g->normal);
    double n[3] = {-g->normal[0], -g->normal[1], -g->normal[2]};
    return ndem_geo_add_hit(hits, 0, n, r - dist, 0, margin);
}

/* The reference point is the plane's point. */
static void plane_reference(const ndem_geometry_def *g, double c[3], double q[4])
{
    for (int k = 0; k < 3; k++) c[k] = g->point[k];
    ndem_geo_no_turn(q);
}

static void plane_translate(ndem_geometry_def *g, const double d[3])
{
    for (int k = 0; k < 3; k++) g->point[k] += d[k];
}

/* A turn about the normal (through any point) leaves the plane as it is:
 * a turntable. */
static int plane_symmetric(const ndem_geometry_def *g, const double w[3], const double p[3])
{
    (void)p;
    double a[3];
    ndem_cross(w, g->normal, a);
    return a[0] == 0 && a[1] == 0 && a[2] == 0;
}

const ndem_geometry_ops ndem_geometry_plane_ops = {
    .name = "plane",
    .bounds = plane_bounds,
    .collide = plane_collide,
    .reference = plane_reference,
    .translate = plane_translate,
    .symmetric = plane_symmetric,
};
