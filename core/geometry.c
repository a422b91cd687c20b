/* geometry.c - the table of geometry types, the helpers they share, and the
 * contact side of the pose layer: a sphere is mapped into the geometry's
 * reference frame (x_ref = from + R^T (x - to)), the type's collide runs
 * there, and the hit normals are turned back. The contact normal points
 * from the sphere into the geometry, as for particle pairs (docs/physics.md,
 * "Contacts"). Each type's functions are in geometry_<type>.c, the motion
 * in geometry_pose.c. */
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

void ndem_geo_no_turn(double q[4])
{
    q[0] = 1.0;
    q[1] = q[2] = q[3] = 0.0;
}

/* out = R v and out = R^T v for a row-major R. */
static void turn(const double *m, const double *v, double *out)
{
    for (int i = 0; i < 3; i++)
        out[i] = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
}

static void unturn(const double *m, const double *v, double *out)
{
    for (int i = 0; i < 3; i++) out[i] = m[i] * v[0] + m[3 + i] * v[1] + m[6 + i] * v[2];
}

/* The world point x in g's reference frame: from + R^T (x - to). At rest,
 * or moved only by translate, the def is where the shape is: x itself. */
static void to_reference(const ndem_geometry_pose *p, const double *x, double *xr)
{
    if (!p->rotate && !p->offset) {
        for (int k = 0; k < 3; k++) xr[k] = x[k];
        return;
    }
    double d[3] = {x[0] - p->to[0], x[1] - p->to[1], x[2] - p->to[2]};
    if (p->rotate) unturn(p->rot, d, xr);
    else xr[0] = d[0], xr[1] = d[1], xr[2] = d[2];
    for (int k = 0; k < 3; k++) xr[k] += p->from[k];
}

/* Hit normals of the reference frame turned into the world. */
static void normals_to_world(const ndem_geometry_pose *p, ndem_geo_hit *hits, int n)
{
    if (!p->rotate) return;
    for (int i = 0; i < n; i++) {
        double nr[3] = {hits[i].n[0], hits[i].n[1], hits[i].n[2]};
        turn(p->rot, nr, hits[i].n);
    }
}

int ndem_geometry_collide(const ndem_geometry_def *g, const ndem_geometry_pose *p, const double *x,
                          double r, double margin, ndem_geo_hit hits[NDEM_GEO_HITS])
{
    double xr[3];
    to_reference(p, x, xr);
    int n = ndem_geometry_ops_of(g)->collide(g, xr, r, margin, hits);
    normals_to_world(p, hits, n);
    return n;
}

void ndem_geometry_feature_hit(const ndem_geometry_def *g, const ndem_geometry_pose *p,
                               const double *x, double r, int feature, ndem_geo_hit *hit)
{
    const ndem_geometry_ops *ops = ndem_geometry_ops_of(g);
    double xr[3];
    to_reference(p, x, xr);
    if (!ops->feature_hit || !ops->feature_hit(g, xr, r, feature, hit)) {
        ndem_geo_hit hits[NDEM_GEO_HITS];
        int m = ops->collide(g, xr, r, INFINITY, hits), t = 0;
        while (t < m - 1 && hits[t].feature != feature) t++;
        if (m > 0) *hit = hits[t];
        else *hit = (ndem_geo_hit){{0, 0, 1}, -INFINITY, feature}; /* nothing: far apart */
    }
    normals_to_world(p, hit, 1);
}

void ndem_geometry_surface_velocity(const ndem_geometry_pose *p, const double *x, double *u)
{
    double rel[3] = {x[0] - p->to[0], x[1] - p->to[1], x[2] - p->to[2]}, wr[3];
    ndem_cross(p->spin, rel, wr);
    for (int k = 0; k < 3; k++) u[k] = p->velocity[k] + wr[k];
}

void ndem_geometry_bounds(const ndem_geometry_def *g, const ndem_geometry_pose *p, double *lo,
                          double *hi)
{
    double rl[3], rh[3];
    ndem_geometry_ops_of(g)->bounds(g, rl, rh);
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (int c = 0; c < 8; c++) { /* the corners of the reference bounds */
        double d[3], w[3];
        for (int k = 0; k < 3; k++) d[k] = ((c >> k) & 1 ? rh[k] : rl[k]) - p->from[k];
        turn(p->rot, d, w);
        for (int k = 0; k < 3; k++) {
            w[k] += p->to[k];
            lo[k] = fmin(lo[k], w[k]);
            hi[k] = fmax(hi[k], w[k]);
        }
    }
}

void ndem_geometry_reference_point(const ndem_geometry_def *g, double c[3])
{
    double q[4];
    ndem_geometry_ops_of(g)->reference(g, c, q);
}

int ndem_geometry_moves(const ndem_geometry_def *g)
{
    for (int k = 0; k < 3; k++)
        if (g->velocity[k] != 0 || g->angular_velocity[k] != 0) return 1;
    return g->keyframe_count > 0 || g->dynamic.enabled;
}
