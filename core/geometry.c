/* geometry.c - the table of geometry types and the helpers they share. The
 * contact normal points from the sphere into the geometry, as for particle
 * pairs (docs/physics.md, "Contacts"). Each type's functions are in
 * geometry_<type>.c. */
#include "checks.h"
#include "geometry.h"
#include "geometry_mesh.h"
#include "vec.h"

#include <math.h>
#include <stddef.h>

/* Indexed by ndem_geometry_type: adding a type is one line here. */
static const ndem_geometry_ops *const geometry_types[] = {
    [NDEM_GEOMETRY_PLANE] = &ndem_geometry_plane_ops,
    [NDEM_GEOMETRY_BOX] = &ndem_geometry_box_ops,
    [NDEM_GEOMETRY_CYLINDER] = &ndem_geometry_cylinder_ops,
    [NDEM_GEOMETRY_MESH] = &ndem_geometry_mesh_ops,
};

const ndem_geometry_ops *ndem_geometry_ops_of(const ndem_geometry_def *g)
{
    size_t t = (size_t)g->type, n = sizeof geometry_types / sizeof geometry_types[0];
    NDEM_CHECK(t < n && geometry_types[t], "geometry type %d has no table entry", (int)g->type);
    /* the parser rejects other types; in release a plane keeps a bad one harmless */
    return t < n && geometry_types[t] ? geometry_types[t] : &ndem_geometry_plane_ops;
}

int ndem_geometry_feature_count(const ndem_geometry_def *g)
{
    return g->type == NDEM_GEOMETRY_MESH && g->mesh ? g->mesh->feature_count : 8;
}

void ndem_geometry_feature_hit(const ndem_geometry_def *g, const double *x, double r, int feature,
                               ndem_geo_hit *hit)
{
    const ndem_geometry_ops *ops = ndem_geometry_ops_of(g);
    if (ops->feature_hit && ops->feature_hit(g, x, r, feature, hit)) return;
    ndem_geo_hit hits[NDEM_GEO_HITS];
    int m = ops->collide(g, x, r, INFINITY, hits), t = 0;
    while (t < m - 1 && hits[t].feature != feature) t++;
    if (m > 0) *hit = hits[t];
    else *hit = (ndem_geo_hit){{0, 0, 1}, -INFINITY, feature}; /* nothing: far apart */
}

int ndem_geo_add_hit(ndem_geo_hit *hits, int n, const double *normal, double delta, int feature,
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

void ndem_geo_rigid_velocity(const ndem_geometry_def *g, const double *c, const double *p,
                             double *u)
{
    double rel[3], wr[3];
    for (int k = 0; k < 3; k++) rel[k] = p[k] - c[k];
    ndem_cross(g->angular_velocity, rel, wr);
    for (int k = 0; k < 3; k++) u[k] = g->velocity[k] + wr[k];
}
