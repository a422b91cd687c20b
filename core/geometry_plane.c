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

static void plane_surface_velocity(const ndem_geometry_def *g, const double *p, double *u)
{
    ndem_geo_rigid_velocity(g, g->point, p, u);
}

static void plane_integrate(ndem_geometry_def *g, double h)
{
    for (int k = 0; k < 3; k++) g->point[k] += h * g->velocity[k];
}

const ndem_geometry_ops ndem_geometry_plane_ops = {
    "plane", plane_bounds, plane_collide, plane_surface_velocity, plane_integrate, NULL,
};
