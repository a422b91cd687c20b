/* dem_shape_geo.c - the contact points of a shaped particle against scene
 * geometry (docs/shapes.md, "Shapes against geometry"), one function per
 * type of geometry in a table:
 *  - a plane, and a face of an inside box: that face's plane (each face is
 *    its own contact);
 *  - a solid box: the box as a convex polyhedron through the narrow phase
 *    (the separating-axis test: exact manifolds, edges included);
 *  - a cylinder (inside or solid): probes, each a point of the particle
 *    with a radius (a polyhedron's or piece's vertices at 0, a clump's
 *    member spheres), and for a solid cylinder each edge's point nearest
 *    the axis too, sent through the cylinder's own sphere test. All of its
 *    points go to one of the particle's contacts with it (the bounding
 *    sphere's lowest feature touching now), so a face resting on a face
 *    splits its stiffness among all its points;
 *  - a triangle mesh: per feature the bounding sphere feels (the mesh's
 *    contact rules: coplanar groups, convex edges and vertices felt once, no
 *    jump at shared edges): a group's plane, the points kept whose foot lies
 *    on the group's triangles; an edge's or vertex's nearest point against
 *    the shape.
 * Probes and the box work in the geometry's reference frame (a turned or
 * moved geometry turns the particle into it) and come back to the world. */
#include "dem_shape.h"
#include "geometry.h"
#include "geometry_mesh.h"
#include "shape_body.h"
#include "sim.h"
#include "vec.h"

#include <math.h>
#include <string.h>

/* The geometry's reference frame: xr = from + R^T (x - to) (geometry.c). */
typedef struct ref_frame {
    const ndem_geometry_pose *p;
    int moved;
} ref_frame;

static void point_to_ref(const ref_frame *f, const double *x, double *xr)
{
    const ndem_geometry_pose *p = f->p;
    if (!f->moved) {
        memcpy(xr, x, 3 * sizeof *xr);
        return;
    }
    double d[3] = {x[0] - p->to[0], x[1] - p->to[1], x[2] - p->to[2]};
    for (int i = 0; i < 3; i++)
        xr[i] =
            (p->rotate ? p->rot[i] * d[0] + p->rot[3 + i] * d[1] + p->rot[6 + i] * d[2] : d[i]) +
            p->from[i];
}

static void vec_to_world(const ref_frame *f, const double *v, double *out)
{
    const double *r = f->p->rot;
    if (!f->p->rotate) {
        memcpy(out, v, 3 * sizeof *out);
        return;
    }
    for (int i = 0; i < 3; i++)
        out[i] = r[3 * i] * v[0] + r[3 * i + 1] * v[1] + r[3 * i + 2] * v[2];
}

static void point_to_world(const ref_frame *f, const double *xr, double *x)
{
    const ndem_geometry_pose *p = f->p;
    if (!f->moved) {
        memcpy(x, xr, 3 * sizeof *x);
        return;
    }
    double d[3] = {xr[0] - p->from[0], xr[1] - p->from[1], xr[2] - p->from[2]};
    vec_to_world(f, d, x);
    for (int i = 0; i < 3; i++) x[i] += p->to[i];
}

/* The particle's collider moved into the reference frame. */
static void collider_to_ref(const ref_frame *f, const ndem_collider *c, ndem_collider *out)
{
    double xr[3], q[4];
    point_to_ref(f, c->x, xr);
    memcpy(q, c->q, sizeof q);
    if (f->p->rotate) {
        const double *g = f->p->q;
        double inv[4] = {g[0], -g[1], -g[2], -g[3]};
        ndem_quat_mul(inv, c->q, q);
    }
    ndem_collider_place(out, c->shape, xr, q);
}

/* Reference-frame points back to the world. */
static void points_to_world(const ref_frame *f, ndem_contact_point *pts, int n)
{
    for (int k = 0; k < n; k++) {
        double x[3], v[3];
        point_to_world(f, pts[k].x, x);
        vec_to_world(f, pts[k].n, v);
        memcpy(pts[k].x, x, sizeof x);
        memcpy(pts[k].n, v, sizeof v);
    }
}

static unsigned tag(unsigned a, unsigned b)
{
    unsigned h = (2166136261u ^ a) * 16777619u;
    return (h ^ b) * 16777619u;
}

/* Keeps a point, the deepest NDEM_CONTACT_POINTS when full. */
static void keep(ndem_contact_point *out, int *n, const ndem_contact_point *p)
{
    if (*n < NDEM_CONTACT_POINTS) {
        out[(*n)++] = *p;
        return;
    }
    int low = 0;
    for (int t = 1; t < *n; t++)
        if (out[t].depth < out[low].depth) low = t;
    if (out[low].depth < p->depth) out[low] = *p;
}

/* One probe (a point x with radius r, reference frame) against the
 * geometry's sphere test: a point per touching feature (side_only: only
 * through a cylinder's side, normal across its axis). */
static void probe(const ndem_geometry_def *g, const double *x, double r, unsigned id, int side_only,
                  double margin, ndem_contact_point *out, int *n)
{
    ndem_geo_hit hits[NDEM_GEO_HITS];
    int m = ndem_geometry_ops_of(g)->collide(g, x, r, margin, hits);
    for (int h = 0; h < m; h++) {
        if (!(hits[h].delta > -margin)) continue;
        if (side_only && fabs(ndem_dot(hits[h].n, g->axis)) > 1e-6) continue;
        ndem_contact_point p;
        /* the hit's n points from the sphere into the geometry; the point
         * midway between the surfaces */
        memcpy(p.n, hits[h].n, sizeof p.n);
        for (int i = 0; i < 3; i++) p.x[i] = x[i] + (r - 0.5 * hits[h].delta) * p.n[i];
        p.depth = hits[h].delta;
        p.id = tag(id, (unsigned)hits[h].feature);
        keep(out, n, &p);
    }
}

/* A polyhedron's vertices (id v), and when edges is set each edge's point
 * nearest the cylinder's axis (id V + e) against its side only: a face
 * across a solid cylinder touches it inside its edges, never at a vertex
 * (the caps are flat: their deepest points are vertices). */
static void probe_polyhedron(const ndem_geometry_def *g, const ndem_collider *c,
                             const ndem_polyhedron *p, unsigned member, int edges, double margin,
                             ndem_contact_point *out, int *n)
{
    for (int v = 0; v < p->n_vertices; v++) {
        const double *l = p->vertices + 3 * v;
        double w[3];
        for (int i = 0; i < 3; i++)
            w[i] = c->x[i] + c->rot[3 * i] * l[0] + c->rot[3 * i + 1] * l[1] +
                   c->rot[3 * i + 2] * l[2];
        probe(g, w, 0.0, tag(member, (unsigned)v), 0, margin, out, n);
    }
    for (int e = 0; edges && e < p->n_edges; e++) {
        double w[2][3];
        for (int k = 0; k < 2; k++) {
            const double *l = p->vertices + 3 * p->edges[2 * e + k];
            for (int i = 0; i < 3; i++)
                w[k][i] = c->x[i] + c->rot[3 * i] * l[0] + c->rot[3 * i + 1] * l[1] +
                          c->rot[3 * i + 2] * l[2];
        }
        /* nearest the axis line: minimise |(x - c) x a|^2 over the edge */
        const double *a = g->axis;
        double d[3], r0[3], da[3], ra[3];
        for (int i = 0; i < 3; i++) d[i] = w[1][i] - w[0][i], r0[i] = w[0][i] - g->center[i];
        ndem_cross(d, a, da);
        ndem_cross(r0, a, ra);
        double dd = ndem_dot(da, da);
        if (!(dd > 0)) continue; /* along the axis: its ends are vertices */
        double t = -ndem_dot(ra, da) / dd;
        if (t <= 0 || t >= 1) continue; /* an end: a vertex already */
        double x[3];
        for (int i = 0; i < 3; i++) x[i] = w[0][i] + t * d[i];
        probe(g, x, 0.0, tag(member, (unsigned)(p->n_vertices + e)), 1, margin, out, n);
    }
}

/* Every probe of collider c (reference frame). */
static void probe_shape(const ndem_geometry_def *g, const ndem_collider *c, int edges,
                        double margin, ndem_contact_point *out, int *n)
{
    const ndem_shape *s = c->shape;
    if (s->type == NDEM_SHAPE_POLYHEDRON)
        probe_polyhedron(g, c, &s->poly, 0, edges, margin, out, n);
    for (int k = 0; k < s->n_pieces; k++)
        probe_polyhedron(g, c, &s->pieces[k].poly, (unsigned)k + 1, edges, margin, out, n);
    for (int m = 0; m < s->n_spheres; m++) {
        const double *l = s->spheres + 4 * m;
        double w[3];
        for (int i = 0; i < 3; i++)
            w[i] = c->x[i] + c->rot[3 * i] * l[0] + c->rot[3 * i + 1] * l[1] +
                   c->rot[3 * i + 2] * l[2];
        probe(g, w, l[3], (unsigned)m, 0, margin, out, n);
    }
}

/* 1 when key is the contact that takes all of the geometry's points: the
 * lowest feature the bounding sphere touches now (within the margin). */
static int takes_all(const ndem_sim *sim, ndem_contact_key key, double margin)
{
    const ndem_bodies *b = &sim->bodies;
    ndem_geo_hit hits[NDEM_GEO_HITS];
    int m = ndem_geometry_collide(&sim->geometry[key.b], &sim->pose[key.b], &b->pos[3 * key.a],
                                  b->radius[key.a], margin, hits);
    int low = -1;
    for (int h = 0; h < m; h++)
        if (hits[h].delta > -margin && (low < 0 || hits[h].feature < low)) low = hits[h].feature;
    return low == key.feature;
}

static int by_probes(const ndem_sim *sim, ndem_contact_key key, const ndem_collider *ca,
                     double margin, ndem_contact_point *out)
{
    if (!takes_all(sim, key, margin)) return 0;
    const ndem_geometry_def *g = &sim->geometry[key.b];
    ref_frame f = {&sim->pose[key.b], sim->pose[key.b].rotate || sim->pose[key.b].offset};
    ndem_collider c;
    collider_to_ref(&f, ca, &c);
    int n = 0;
    probe_shape(g, &c, !g->inside, margin, out, &n);
    points_to_world(&f, out, n);
    return n;
}

/* A solid box: its polyhedron (shape_body.c built it) at its centre. */
static int solid_box(const ndem_sim *sim, ndem_contact_key key, const ndem_collider *ca,
                     double margin, ndem_contact_point *out)
{
    const ndem_geometry_def *g = &sim->geometry[key.b];
    ref_frame f = {&sim->pose[key.b], sim->pose[key.b].rotate || sim->pose[key.b].offset};
    ndem_collider c, box;
    collider_to_ref(&f, ca, &c);
    double centre[3], id[4] = {1, 0, 0, 0};
    for (int i = 0; i < 3; i++) centre[i] = 0.5 * (g->min[i] + g->max[i]);
    ndem_collider_place(&box, &sim->shapes->boxes[key.b], centre, id);
    int n = ndem_shape_collide(&c, &box, margin, out);
    points_to_world(&f, out, n);
    return n;
}

/* The feature's plane: a plane, a face of an inside box (each face its own
 * contact, its plane through the bounding sphere's hit). */
static int feature_plane(const ndem_sim *sim, ndem_contact_key key, const ndem_collider *ca,
                         double margin, ndem_contact_point *out)
{
    const ndem_bodies *b = &sim->bodies;
    ndem_contact_geom g;
    ndem_contact_geometry(sim, key, &g);
    double p[3], nn[3];
    for (int q = 0; q < 3; q++) {
        p[q] = b->pos[3 * key.a + q] + (b->radius[key.a] - g.delta) * g.n[q];
        nn[q] = -g.n[q];
    }
    ndem_collider cb;
    ndem_collider_plane(&cb, p, nn);
    return ndem_shape_collide(ca, &cb, margin, out);
}

static int box_points(const ndem_sim *sim, ndem_contact_key key, const ndem_collider *ca,
                      double margin, ndem_contact_point *out)
{
    return sim->geometry[key.b].inside ? feature_plane(sim, key, ca, margin, out)
                                       : solid_box(sim, key, ca, margin, out);
}

/* A mesh feature (each its own contact, as for spheres): a coplanar
 * group's plane, keeping the points whose foot lies on the group's
 * triangles; an edge or a vertex: its point nearest the particle's centre
 * (the bounding sphere's hit) as a point against the shape. */
static int mesh_points(const ndem_sim *sim, ndem_contact_key key, const ndem_collider *ca,
                       double margin, ndem_contact_point *out)
{
    const ndem_bodies *b = &sim->bodies;
    const ndem_geometry_def *geo = &sim->geometry[key.b];
    ndem_contact_geom g;
    ndem_contact_geometry(sim, key, &g);
    double q[3];
    for (int i = 0; i < 3; i++)
        q[i] = b->pos[3 * key.a + i] + (b->radius[key.a] - g.delta) * g.n[i];
    if (key.feature >= geo->mesh->mesh->n_groups) {
        ndem_shape ball = {.type = NDEM_SHAPE_SPHERE, .radius = 0.0};
        ndem_collider point;
        static const double id[4] = {1, 0, 0, 0};
        ndem_collider_place(&point, &ball, q, id);
        return ndem_shape_collide(ca, &point, margin, out);
    }
    double nn[3] = {-g.n[0], -g.n[1], -g.n[2]};
    ndem_collider plane;
    ndem_collider_plane(&plane, q, nn);
    int n = ndem_shape_collide(ca, &plane, margin, out), kept = 0;
    ref_frame f = {&sim->pose[key.b], sim->pose[key.b].rotate || sim->pose[key.b].offset};
    for (int k = 0; k < n; k++) {
        double xr[3];
        point_to_ref(&f, out[k].x, xr);
        if (ndem_mesh_group_covers(geo, key.feature, xr)) out[kept++] = out[k];
    }
    return kept;
}

typedef int (*geo_points_fn)(const ndem_sim *sim, ndem_contact_key key, const ndem_collider *ca,
                             double margin, ndem_contact_point *out);

static const geo_points_fn geo_points[] = {
    [NDEM_GEOMETRY_PLANE] = feature_plane,
    [NDEM_GEOMETRY_BOX] = box_points,
    [NDEM_GEOMETRY_CYLINDER] = by_probes,
    [NDEM_GEOMETRY_MESH] = mesh_points,
};

int ndem_dem_shape_geometry_points(const ndem_sim *sim, ndem_contact_key key,
                                   const ndem_collider *ca, double margin, ndem_contact_point *out)
{
    int t = (int)sim->geometry[key.b].type;
    if (t < 0 || t >= (int)(sizeof geo_points / sizeof geo_points[0]) || !geo_points[t]) return 0;
    return geo_points[t](sim, key, ca, margin, out);
}
