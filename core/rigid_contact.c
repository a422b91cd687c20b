/* rigid_contact.c - a dynamic body against static geometry under NDEM
 * (rigid_contact.h; docs/engine.md, "Body against geometry").
 *
 * Contact generation reuses the shapes' narrow phase: a body is the convex
 * polyhedron of its corners (a box's 8; a cylinder's rim points, RIM per
 * rim; a closed mesh's hull of its vertices), placed at its pose; the
 * geometry is a plane collider (a plane, a face of an inside box), a
 * polyhedron (a solid box, a solid cylinder's prism), or the hull's
 * vertices probe it (a drum, a mesh), one function per geometry type in a
 * table.
 * Two bodies are a pair too (after the geometry's, under both methods):
 * both polyhedra placed, their rows on both bodies' velocities (q the
 * second body).
 * Each pair keeps at most NDEM_MANIFOLD_POINTS points (the shapes' reduce).
 *
 * Rows are the general rows' (rows_general.h): per point a normal row
 * (Hertz-mapped compliance split among the touching points, SPOOK
 * right-hand side, speculative while the whole pair is apart) and two
 * rigid friction rows, an impact stage with Newton's law at the pair's
 * restitution. A pair whose points all touch is solved as a block
 * (rows_general_block.c), so a flat face rests without rocking; else point
 * after point. They act on the body's own velocity (rigid.h), after the
 * particle rows of each sweep, on one thread in pair order: any thread
 * count gives the same bits. No warm start (a resting block converges in
 * one sweep) and nothing to checkpoint. */
#include "rigid_contact_private.h"

#include "geometry.h"
#include "geometry_mesh.h"
#include "loads.h"
#include "mesh.h"
#include "rigid.h"
#include "rows_general.h"
#include "shape.h"
#include "shape_collide.h"
#include "sim.h"
#include "vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RIM 16 /* points per rim of a cylinder's polygon */
#define MAXP NDEM_RC_POINTS

/* ---- bodies as polyhedra ---- */

/* Frisvad's tangents of a unit normal (rows_general.c's, in double). */
static void tangents(const double *n, double *t1, double *t2)
{
    double s = n[2] >= 0.0 ? 1.0 : -1.0, a = -1.0 / (s + n[2]);
    t1[0] = 1.0 + s * n[0] * n[0] * a;
    t1[1] = s * (n[0] * n[1] * a);
    t1[2] = -s * n[0];
    ndem_cross(n, t1, t2);
}

/* The reference-frame points of g's corners (out: room for 2 RIM). */
static int corners(const ndem_geometry_def *g, double *out)
{
    if (g->type == NDEM_GEOMETRY_BOX) {
        for (int c = 0; c < 8; c++)
            for (int k = 0; k < 3; k++) out[3 * c + k] = (c >> k) & 1 ? g->max[k] : g->min[k];
        return 8;
    }
    /* a cylinder: RIM points on each rim */
    double u[3], v[3];
    tangents(g->axis, u, v);
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < RIM; i++) {
            double a = 2.0 * M_PI * i / RIM, s = (e ? 0.5 : -0.5) * g->length;
            for (int k = 0; k < 3; k++)
                out[3 * (e * RIM + i) + k] =
                    g->center[k] + s * g->axis[k] + g->radius * (cos(a) * u[k] + sin(a) * v[k]);
        }
    return 2 * RIM;
}

/* Body b's polyhedron about its pivot; 1 when its type has none (a plane,
 * an open mesh: no geometry contacts), -1 on an error. */
static int body_shape(const ndem_sim *sim, const ndem_rigid_body *bd, ndem_shape *out, char *err,
                      size_t err_len)
{
    const ndem_geometry_def *g = &sim->geometry[bd->geometry];
    const double *from = sim->pose[bd->geometry].from;
    double fixed[3 * 2 * RIM] = {0}, *pts = fixed;
    int n = 0;
    if (g->type == NDEM_GEOMETRY_BOX || g->type == NDEM_GEOMETRY_CYLINDER) {
        n = corners(g, fixed);
    } else if (g->type == NDEM_GEOMETRY_MESH && g->mesh->mesh->closed) {
        const ndem_mesh *m = g->mesh->mesh;
        n = m->n_vertices;
        pts = calloc(3 * (size_t)n + 3, sizeof(double));
        if (!pts) {
            snprintf(err, err_len, "out of memory creating the simulation");
            return -1;
        }
        for (int i = 0; i < 3 * n; i++) pts[i] = m->vertices[i] + g->point[i % 3];
    } else {
        return 1;
    }
    double radius = 0.0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) pts[3 * i + k] -= from[k];
        radius = fmax(radius, ndem_norm(&pts[3 * i]));
    }
    char why[200];
    int rc = ndem_shape_polyhedron(pts, n, radius, out, why, sizeof why);
    if (pts != fixed) free(pts);
    if (rc) snprintf(err, err_len, "geometry %d: its hull for contacts: %s", bd->geometry, why);
    return rc ? -1 : 0;
}

/* ---- the geometry's side: a table by type ---- */

/* x in g's reference frame into the world (geometry.c's to_reference
 * inverted); a vector only turns. */
static void to_world(const ndem_geometry_pose *p, const double *xr, double *x, int vector)
{
    if (!p->rotate && !p->offset) {
        memcpy(x, xr, 3 * sizeof *x);
        return;
    }
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = vector ? xr[k] : xr[k] - p->from[k];
    for (int i = 0; i < 3; i++)
        x[i] =
            (p->rotate ? p->rot[3 * i] * d[0] + p->rot[3 * i + 1] * d[1] + p->rot[3 * i + 2] * d[2]
                       : d[i]) +
            (vector ? 0.0 : p->to[i]);
}

typedef int (*geo_points_fn)(const ndem_sim *sim, const ndem_rc_pair *pr, const ndem_collider *body,
                             double margin, ndem_contact_point *out);

/* A plane, or face `feature` of an inside box (solid side outside). */
static int plane_points(const ndem_sim *sim, const ndem_rc_pair *pr, const ndem_collider *body,
                        double margin, ndem_contact_point *out)
{
    const ndem_geometry_def *g = &sim->geometry[pr->geometry];
    const ndem_geometry_pose *p = &sim->pose[pr->geometry];
    double xr[3], nr[3] = {0, 0, 0}, x[3], n[3];
    if (g->type == NDEM_GEOMETRY_PLANE) {
        memcpy(xr, g->point, sizeof xr);
        memcpy(nr, g->normal, sizeof nr);
    } else {
        int k = pr->feature / 2, hi = pr->feature % 2;
        for (int q = 0; q < 3; q++) xr[q] = 0.5 * (g->min[q] + g->max[q]);
        xr[k] = hi ? g->max[k] : g->min[k];
        nr[k] = hi ? -1.0 : 1.0;
    }
    to_world(p, xr, x, 0);
    to_world(p, nr, n, 1);
    ndem_collider plane;
    ndem_collider_plane(&plane, x, n);
    return ndem_shape_collide(body, &plane, margin, out);
}

/* What a solid box's or cylinder's hull is built from: a box's min and
 * max (a translating box moves them, geometry_box.c), a cylinder's centre. */
static void solid_key(const ndem_geometry_def *g, double *key)
{
    const int box = g->type == NDEM_GEOMETRY_BOX;
    for (int k = 0; k < 3; k++) {
        key[k] = box ? g->min[k] : g->center[k];
        key[3 + k] = box ? g->max[k] : 0.0;
    }
}

/* A solid box (its 8 corners) or a solid cylinder (the prism of its RIM-gon
 * rims, a vertex at the ends of each tangent: a lying cylinder's top is a
 * ridge at its true height): the polyhedron about its centre (mid), into
 * *s; 1 for a flat box (no hull), 0. Built once per geometry, again only
 * when its key changes (a translating kinematic box: built from its moved
 * corners as before, the same bits). */
static int solid_shape(const ndem_geometry_def *g, ndem_shape *s, double *mid)
{
    double c[3 * 2 * RIM], r = 0.0;
    int n = corners(g, c);
    for (int k = 0; k < 3; k++)
        mid[k] = g->type == NDEM_GEOMETRY_BOX ? 0.5 * (g->min[k] + g->max[k]) : g->center[k];
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) c[3 * i + k] -= mid[k];
        r = fmax(r, ndem_norm(&c[3 * i]));
    }
    char why[200];
    return ndem_shape_polyhedron(c, n, r, s, why, sizeof why) ? 1 : 0;
}

/* A solid box or cylinder: its polyhedron (solid_shape's, kept in the
 * contacts) at its pose against the body's (the separating-axis test). */
static int solid_points(const ndem_sim *sim, const ndem_rc_pair *pr, const ndem_collider *body,
                        double margin, ndem_contact_point *out)
{
    ndem_rcontact *c = sim->rigid->contact;
    const ndem_geometry_pose *p = &sim->pose[pr->geometry];
    ndem_shape *s = &c->solid[pr->geometry];
    double key[6];
    solid_key(&sim->geometry[pr->geometry], key);
    if (memcmp(key, c->solid_key[pr->geometry], sizeof key) != 0) { /* moved: anew */
        ndem_shape_clear(s);
        if (solid_shape(&sim->geometry[pr->geometry], s, c->solid_mid[pr->geometry]))
            memset(s, 0, sizeof *s);
        memcpy(c->solid_key[pr->geometry], key, sizeof key);
    }
    if (s->radius <= 0) return 0; /* a flat box */
    ndem_collider solid;
    double x[3];
    to_world(p, c->solid_mid[pr->geometry], x, 0);
    ndem_collider_place(&solid, s, x, p->q);
    memcpy(solid.rot, p->rot, sizeof solid.rot);
    if (!p->rotate) {
        static const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(solid.rot, id, sizeof solid.rot);
    }
    return ndem_shape_collide(body, &solid, margin, out);
}

static int box_points(const ndem_sim *sim, const ndem_rc_pair *pr, const ndem_collider *body,
                      double margin, ndem_contact_point *out)
{
    return sim->geometry[pr->geometry].inside ? plane_points(sim, pr, body, margin, out)
                                              : solid_points(sim, pr, body, margin, out);
}

/* An inside cylinder, a mesh: each hull vertex as a probe, a sphere of
 * radius 0 through the geometry's own test (its closest features, each a
 * point). Vertex against surface only: a body resting on a mesh's ridge by
 * an edge is felt at the edge's ends only. */
static int probe_points(const ndem_sim *sim, const ndem_rc_pair *pr, const ndem_collider *body,
                        double margin, ndem_contact_point *out)
{
    const ndem_polyhedron *poly = &body->shape->poly;
    const int mesh = sim->geometry[pr->geometry].type == NDEM_GEOMETRY_MESH;
    /* a mesh's probes reach rp beyond: a vertex that crossed a face (two
     * -sided, below) is found that deep */
    const double rp = mesh ? 0.1 * sim->rigid->contact->d_eq[pr->body] : 0.0;
    int k = 0;
    for (int v = 0; v < poly->n_vertices; v++) {
        const double *l = poly->vertices + 3 * v;
        double x[3];
        for (int i = 0; i < 3; i++)
            x[i] = body->x[i] + body->rot[3 * i] * l[0] + body->rot[3 * i + 1] * l[1] +
                   body->rot[3 * i + 2] * l[2];
        ndem_geo_hit hits[NDEM_GEO_HITS];
        int n = ndem_geometry_collide(&sim->geometry[pr->geometry], &sim->pose[pr->geometry], x, rp,
                                      margin, hits);
        for (int j = 0; j < n; j++) {
            ndem_contact_point c = {.depth = hits[j].delta - rp,
                                    .id = (unsigned)v * 2654435761u ^ (unsigned)hits[j].feature};
            double *hn = hits[j].n, foot[3], side = 0.0;
            /* a mesh's faces are two-sided (pushed back to the probe's
             * side): a vertex that crossed is on the centre of mass's
             * other side, and overlaps by its distance */
            for (int i = 0; i < 3; i++) foot[i] = x[i] - c.depth * hn[i];
            for (int i = 0; i < 3; i++) side += (body->x[i] - foot[i]) * hn[i];
            if (mesh && side > 0.0) {
                c.depth = -c.depth;
                for (int i = 0; i < 3; i++) hn[i] = -hn[i];
            }
            if (c.depth <= -margin) continue;
            for (int i = 0; i < 3; i++) {
                c.n[i] = hn[i];
                c.x[i] = x[i] - 0.5 * c.depth * hn[i];
            }
            if (k < NDEM_CONTACT_POINTS) {
                out[k++] = c;
                continue;
            }
            int low = 0; /* full: the deepest stay */
            for (int t = 1; t < k; t++)
                if (out[t].depth < out[low].depth) low = t;
            if (out[low].depth < c.depth) out[low] = c;
        }
    }
    return k;
}

/* A cylinder: a drum (inside) by probes, a solid one as its prism (a probe
 * inside it would have no direction out). */
static int cylinder_points(const ndem_sim *sim, const ndem_rc_pair *pr, const ndem_collider *body,
                           double margin, ndem_contact_point *out)
{
    return sim->geometry[pr->geometry].inside ? probe_points(sim, pr, body, margin, out)
                                              : solid_points(sim, pr, body, margin, out);
}

/* Static geometry a body touches, by type (docs/engine.md). */
static const geo_points_fn geo_points[NDEM_GEOMETRY_MESH + 1] = {
    [NDEM_GEOMETRY_PLANE] = plane_points,
    [NDEM_GEOMETRY_BOX] = box_points,
    [NDEM_GEOMETRY_CYLINDER] = cylinder_points,
    [NDEM_GEOMETRY_MESH] = probe_points,
};

/* ---- creation ---- */

/* Body b's polyhedron placed at its pose. */
static void place_body(const ndem_sim *sim, int b, ndem_collider *out)
{
    const ndem_geometry_pose *p = &sim->pose[sim->rigid->body[b].geometry];
    ndem_collider_place(out, &sim->rigid->contact->shape[b], p->to, p->q);
    memcpy(out->rot, p->rot, sizeof out->rot);
}

/* Pair pr's points within margin of its body at its pose; how many. */
int ndem_rc_pair_points(const ndem_sim *sim, const ndem_rc_pair *pr, double margin,
                        ndem_contact_point *pts)
{
    ndem_collider body;
    place_body(sim, pr->body, &body);
    if (pr->other >= 0) { /* two bodies: their polyhedra (the separating-axis test) */
        ndem_collider other;
        place_body(sim, pr->other, &other);
        const ndem_shape *sb = body.shape, *so = other.shape; /* bounding spheres apart */
        double d[3] = {other.x[0] - body.x[0], other.x[1] - body.x[1], other.x[2] - body.x[2]};
        if (ndem_norm(d) > sb->radius + so->radius + margin) return 0;
        int n = ndem_shape_collide(&body, &other, margin, pts);
        return n > MAXP ? ndem_manifold_reduce(pts, n) : n;
    }
    const ndem_geometry_def *g = &sim->geometry[pr->geometry];
    int n = geo_points[g->type](sim, pr, &body, margin, pts);
    if (g->inside) { /* a container holds what is in its bounds only */
        double lo[3], hi[3], tol = margin + 0.01 * sim->rigid->contact->d_eq[pr->body];
        ndem_geometry_bounds(g, &sim->pose[pr->geometry], lo, hi);
        int kept = 0;
        for (int j = 0; j < n; j++) {
            int in = 1;
            for (int k = 0; k < 3; k++) { /* the body's own point: x + depth n / 2 */
                double v = pts[j].x[k] + 0.5 * pts[j].depth * pts[j].n[k];
                in &= v > lo[k] - tol && v < hi[k] + tol;
            }
            if (in) pts[kept++] = pts[j];
        }
        n = kept;
    }
    return n > MAXP ? ndem_manifold_reduce(pts, n) : n;
}

/* The deepest overlap of pair pr now (-INFINITY when apart). */
static double pair_depth(const ndem_sim *sim, const ndem_rc_pair *pr)
{
    ndem_contact_point pts[NDEM_CONTACT_POINTS];
    int n = ndem_rc_pair_points(sim, pr, 0.0, pts);
    double d = -INFINITY;
    for (int j = 0; j < n; j++) d = fmax(d, pts[j].depth);
    return d;
}

static int is_static(const ndem_geometry_def *g)
{
    return !g->dynamic.enabled && !g->walls.enabled;
}

/* A body with a hull: body_shape makes one (a plane, an open mesh has none). */
static int has_hull(const ndem_geometry_def *g)
{
    return g->type == NDEM_GEOMETRY_BOX || g->type == NDEM_GEOMETRY_CYLINDER ||
           (g->type == NDEM_GEOMETRY_MESH && g->mesh && g->mesh->mesh->closed);
}

int ndem_rcontact_can_touch(const ndem_geometry_def *geometry, int count, int g)
{
    const ndem_geometry_def *b = &geometry[g];
    if (!b->dynamic.enabled || b->walls.enabled || !has_hull(b)) return 0;
    for (int k = 0; k < count; k++)
        if (is_static(&geometry[k]) && geo_points[geometry[k].type]) return 1;
    return 0;
}

int ndem_rcontact_can_touch_body(const ndem_geometry_def *geometry, int count, int g)
{
    const ndem_geometry_def *b = &geometry[g];
    if (!b->dynamic.enabled || b->walls.enabled || !has_hull(b)) return 0;
    for (int k = 0; k < count; k++) {
        const ndem_geometry_def *o = &geometry[k];
        if (k != g && o->dynamic.enabled && !o->walls.enabled && has_hull(o)) return 1;
    }
    return 0;
}

int ndem_rcontact_model_supported(ndem_contact_model model)
{
    return model == NDEM_MODEL_HERTZ || model == NDEM_MODEL_LINEAR ||
           model == NDEM_MODEL_HUNT_CROSSLEY;
}

int ndem_rcontact_create(ndem_sim *sim, ndem_rigid *r, char *err, size_t err_len)
{
    int pairs = 0, first = -1;
    for (int b = 0; b < r->count; b++)
        for (int g = 0; g < sim->geometry_count; g++) {
            const ndem_geometry_def *gd = &sim->geometry[g];
            if (r->body[b].feature >= 0 || !is_static(gd) || !geo_points[gd->type]) continue;
            pairs += gd->type == NDEM_GEOMETRY_BOX && gd->inside ? 6 : 1;
            if (first < 0 &&
                ndem_rcontact_can_touch(sim->geometry, sim->geometry_count, r->body[b].geometry))
                first = r->body[b].geometry;
        }
    /* every two bodies with hulls, under both methods */
    int hulls = 0, second = -1;
    for (int b = 0; b < r->count; b++)
        if (ndem_rcontact_can_touch_body(sim->geometry, sim->geometry_count, r->body[b].geometry))
            hulls++, second = second < 0 ? r->body[b].geometry : second;
    if (pairs == 0 && hulls < 2) return 0;
    /* smooth DEM: the shaped particles' point laws (dem_shape.c) only; the
     * job parser refuses this at /scene/geometry/i/dynamic first */
    if (sim->dem && (first >= 0 || hulls > 1) &&
        !ndem_rcontact_model_supported(sim->solver.contact_model)) {
        snprintf(err, err_len,
                 "geometry %d (dynamic) can touch %s: a body's contacts with "
                 "geometry run under \"contact_model\" \"hertz\", \"linear\" or "
                 "\"hunt_crossley\" only",
                 first >= 0 ? first : second,
                 first >= 0 ? "static geometry" : "another dynamic body");
        return -1;
    }
    ndem_rcontact *c = calloc(1, sizeof *c);
    if (!c) goto oom;
    r->contact = c;
    c->shape = calloc((size_t)r->count, sizeof *c->shape);
    c->d_eq = calloc((size_t)r->count, sizeof *c->d_eq);
    c->pair = calloc((size_t)(pairs > 0 ? pairs : 1), sizeof *c->pair);
    c->pair_capacity = pairs > 0 ? pairs : 1;
    c->hull_bodies = hulls;
    c->sweep_x = calloc(3 * (size_t)r->count, sizeof *c->sweep_x);
    c->sweep_r = calloc((size_t)r->count, sizeof *c->sweep_r);
    c->solid = calloc((size_t)sim->geometry_count, sizeof *c->solid);
    c->solid_mid = calloc((size_t)sim->geometry_count, sizeof *c->solid_mid);
    c->solid_key = calloc((size_t)sim->geometry_count, sizeof *c->solid_key);
    if (!c->shape || !c->d_eq || !c->pair || !c->solid || !c->solid_mid || !c->solid_key ||
        !c->sweep_x || !c->sweep_r)
        goto oom;
    c->body_count = r->count;
    c->geometry_count = sim->geometry_count;
    for (int g = 0; g < sim->geometry_count; g++) { /* the solid boxes' and cylinders' hulls */
        const ndem_geometry_def *gd = &sim->geometry[g];
        int solid = gd->type == NDEM_GEOMETRY_BOX || gd->type == NDEM_GEOMETRY_CYLINDER;
        if (!is_static(gd) || !solid || gd->inside) continue;
        if (solid_shape(gd, &c->solid[g], c->solid_mid[g]))
            memset(&c->solid[g], 0, sizeof c->solid[g]); /* flat: radius 0, no points */
        solid_key(gd, c->solid_key[g]);
    }
    for (int b = 0; b < r->count; b++) {
        const ndem_rigid_body *bd = &r->body[b];
        if (bd->feature >= 0) continue; /* a wall of a stress-controlled box */
        int rc = body_shape(sim, bd, &c->shape[b], err, err_len);
        if (rc < 0) return -1;
        if (rc > 0) continue; /* no hull: touches particles only */
        c->d_eq[b] = cbrt(6.0 * c->shape[b].mass.volume / M_PI);
        for (int g = 0; g < sim->geometry_count; g++) {
            const ndem_geometry_def *gd = &sim->geometry[g];
            if (!is_static(gd) || !geo_points[gd->type]) continue;
            int faces = gd->type == NDEM_GEOMETRY_BOX && gd->inside ? 6 : 0;
            for (int f = 0; f < (faces ? faces : 1); f++)
                c->pair[c->pair_count++] =
                    (ndem_rc_pair){.body = b, .geometry = g, .feature = f - !faces, .other = -1};
        }
    }
    c->geo_pairs = c->pair_count;
    if (ndem_rc_body_pairs(sim, 0)) goto oom; /* those touching now, for the check below */
    /* a body placed deep in geometry (a container around it, a plane
     * through it) would be thrown out: refused */
    for (int k = 0; k < c->pair_count; k++) {
        const ndem_rc_pair *pr = &c->pair[k];
        double d = pair_depth(sim, pr), lim = 0.25 * c->d_eq[pr->body];
        if (d > lim) {
            snprintf(err, err_len,
                     "geometry %d (dynamic) starts %.3g m deep in geometry %d (more than %.3g m, "
                     "a quarter of its size): a body must start outside static geometry",
                     r->body[pr->body].geometry, d, pr->geometry, lim);
            return -1;
        }
    }
    return 0;
oom:
    snprintf(err, err_len, "out of memory creating the simulation");
    return -1;
}

void ndem_rcontact_destroy(ndem_rcontact *c)
{
    if (!c) return;
    for (int b = 0; c->shape && b < c->body_count; b++) ndem_shape_clear(&c->shape[b]);
    for (int g = 0; c->solid && g < c->geometry_count; g++) ndem_shape_clear(&c->solid[g]);
    free(c->shape), free(c->d_eq), free(c->pair), free(c->solid), free(c->solid_mid),
        free(c->solid_key);
    free(c->sweep_x), free(c->sweep_r), free(c->sweep_pairs), free(c->old);
    free(c);
}

/* ---- rows ---- */

static void mat_vec(const double *m, const double *v, double *o)
{
    for (int r = 0; r < 3; r++) o[r] = m[3 * r] * v[0] + m[3 * r + 1] * v[1] + m[3 * r + 2] * v[2];
}

/* The body's velocity at x (world). */
void ndem_rc_body_velocity(const ndem_sim *sim, const ndem_rigid_body *bd, const double *x,
                           double *u)
{
    const double *cm = sim->pose[bd->geometry].to;
    double rr[3], w[3];
    for (int k = 0; k < 3; k++) rr[k] = x[k] - cm[k];
    ndem_cross(bd->w, rr, w);
    for (int k = 0; k < 3; k++) u[k] = bd->v[k] + w[k];
}

/* Point pt of pair pr into its rows (rows_general.c's prepare_point: p the
 * body, q the geometry or the second body). */
static void prepare_point(const ndem_sim *sim, const ndem_rc_pair *pr, const ndem_contact_point *pt,
                          ndem_grow *r)
{
    const ndem_rcontact *c = sim->rigid->contact;
    const ndem_rigid_body *bd = &sim->rigid->body[pr->body];
    const ndem_rigid_body *bq = pr->other >= 0 ? &sim->rigid->body[pr->other] : NULL;
    const ndem_geometry_def *gb = &sim->geometry[bd->geometry];
    const ndem_geometry_def *gq = &sim->geometry[pr->geometry];
    const double h = sim->solver.time_step, *cm = sim->pose[bd->geometry].to;
    const ndem_pair_params *pp = ndem_pair(&sim->materials, gb->material, gq->material);
    const double split = pr->touching > 0 ? pr->touching : 1;
    /* two bodies: the reduced size, as two particles (rows_general.c) */
    const double d_eff =
        bq ? 1.0 / (1.0 / c->d_eq[pr->body] + 1.0 / c->d_eq[pr->other]) : c->d_eq[pr->body];
    memset(r, 0, sizeof *r);
    r->p = pr->body;
    r->q = pr->other;
    r->id = pt->id;
    memcpy(r->x, pt->x, sizeof r->x);
    memcpy(r->n, pt->n, sizeof r->n);
    memcpy(r->t[0], pt->n, sizeof r->n);
    tangents(pt->n, r->t[1], r->t[2]);
    double rp[3], rq[3], vp[3], vq[3];
    for (int d = 0; d < 3; d++) rp[d] = pt->x[d] - cm[d];
    for (int e = 0; e < 3; e++) {
        ndem_cross(rp, r->t[e], r->jp[e]);
        mat_vec(bd->inv_world, r->jp[e], r->mp[e]);
    }
    ndem_rc_body_velocity(sim, bd, pt->x, vp);
    if (bq) {
        const double *cq = sim->pose[bq->geometry].to;
        for (int d = 0; d < 3; d++) rq[d] = pt->x[d] - cq[d];
        for (int e = 0; e < 3; e++) {
            ndem_cross(rq, r->t[e], r->jq[e]);
            mat_vec(bq->inv_world, r->jq[e], r->mq[e]);
        }
        ndem_rc_body_velocity(sim, bq, pt->x, vq);
    } else {
        ndem_geometry_surface_velocity(&sim->pose[pr->geometry], pt->x, r->ug);
        memcpy(vq, r->ug, sizeof vq);
    }
    const double delta = pt->depth, im = bd->im_lin + (bq ? bq->im_lin : 0.0);
    ndem_grow_normal(sim, pp, d_eff, split, pr->touching == 0, delta, r);
    for (int e = 0; e < 3; e++) {
        double k = im + ndem_dot(r->jp[e], r->mp[e]) + ndem_dot(r->jq[e], r->mq[e]);
        r->inv_k[e] = 1.0 / k;
        r->inv_d[e] = e == 0 ? 1.0 / (r->s * r->s * k + r->sig_n) : 1.0 / k;
    }
    double dv[3] = {vq[0] - vp[0], vq[1] - vp[1], vq[2] - vp[2]};
    double vsep = ndem_dot(pt->n, dv), gl = ndem_norm(sim->gravity);
    if (-vsep > sim->v_imp && delta - h * vsep + h * h * gl > 0) {
        r->impact = 2;
        r->v_target = pp->restitution * -vsep;
    } else if (delta >= 0) {
        r->impact = 1;
    }
}

int ndem_rcontact_prepare(ndem_sim *sim)
{
    ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    if (!c) return 0;
    const double h = sim->solver.time_step;
    c->rows = 0;
    if (ndem_rc_body_pairs(sim, 1)) return -1; /* two bodies within the step's reach */
    for (int k = 0; k < c->pair_count; k++) {
        ndem_rc_pair *pr = &c->pair[k];
        const ndem_rigid_body *bd = &sim->rigid->body[pr->body];
        /* points that can meet within the step get (speculative) rows */
        const ndem_geometry_pose *gp = &sim->pose[pr->geometry];
        double reach = h * (ndem_norm(bd->v) + ndem_norm(gp->velocity) +
                            (ndem_norm(bd->w) + ndem_norm(gp->spin)) * c->shape[pr->body].radius) +
                       h * h * ndem_norm(sim->gravity);
        double im = bd->im_lin;
        if (pr->other >= 0) { /* both bodies move (gravity moves both alike) */
            const ndem_rigid_body *bq = &sim->rigid->body[pr->other];
            reach = h * (ndem_norm(bd->v) + ndem_norm(bq->v) +
                         ndem_norm(bd->w) * c->shape[pr->body].radius +
                         ndem_norm(bq->w) * c->shape[pr->other].radius);
            im += bq->im_lin;
        }
        ndem_contact_point pts[NDEM_CONTACT_POINTS];
        int n = ndem_rc_pair_points(sim, pr, 2.0 * reach, pts);
        pr->count = n;
        pr->touching = 0;
        for (int j = 0; j < n; j++) pr->touching += pts[j].depth > 0;
        for (int j = 0; j < n; j++) prepare_point(sim, pr, &pts[j], &pr->row[j]);
        if (ndem_general_block_size(n) > 0) ndem_general_block_form(pr->row, n, im, pr->blk);
        c->rows += n;
    }
    return 0;
}

long ndem_rcontact_rows(const ndem_sim *sim)
{
    return sim->rigid && sim->rigid->contact ? sim->rigid->contact->rows : 0;
}

long ndem_rcontact_impacts(const ndem_sim *sim)
{
    const ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    long n = 0;
    for (int k = 0; c && k < c->pair_count; k++)
        for (int j = 0; j < c->pair[k].count; j++) n += c->pair[k].row[j].impact == 2;
    return n;
}

long ndem_rcontact_islands(ndem_sim *sim, int *parent, int *hit)
{
    ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    if (!c) return 0;
    const int at = (int)sim->bodies.count;
    /* two bodies touching are one island; the islands hit so far stay hit */
    for (int k = 0; k < c->pair_count; k++) {
        const ndem_rc_pair *pr = &c->pair[k];
        int joined = 0;
        for (int j = 0; j < pr->count; j++) joined |= pr->row[j].impact != 0;
        if (pr->other < 0 || !joined) continue;
        int ra = ndem_uf_root(parent, at + pr->body), rb = ndem_uf_root(parent, at + pr->other);
        if (ra == rb) continue;
        int lo = ra < rb ? ra : rb, hi = ra < rb ? rb : ra;
        parent[hi] = lo;
        hit[lo] |= hit[hi];
    }
    for (int k = 0; k < c->pair_count; k++)
        for (int j = 0; j < c->pair[k].count; j++)
            if (c->pair[k].row[j].impact == 2) hit[ndem_uf_root(parent, at + c->pair[k].body)] = 1;
    long kept = 0;
    for (int k = 0; k < c->pair_count; k++) {
        int in = hit[ndem_uf_root(parent, at + c->pair[k].body)];
        for (int j = 0; j < c->pair[k].count; j++) {
            ndem_grow *r = &c->pair[k].row[j];
            if (!r->impact) continue;
            if (in) kept++;
            else r->impact = 0;
        }
    }
    return kept;
}

void ndem_rcontact_right_hand_side(ndem_sim *sim)
{
    ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    const double h = sim->solver.time_step;
    for (int k = 0; c && k < c->pair_count; k++) {
        ndem_rc_pair *pr = &c->pair[k];
        for (int j = 0; j < pr->count; j++) {
            ndem_grow *r = &pr->row[j];
            double vp[3], vq[3], vn = 0.0;
            ndem_rc_body_velocity(sim, &sim->rigid->body[pr->body], r->x, vp);
            if (pr->other >= 0) ndem_rc_body_velocity(sim, &sim->rigid->body[pr->other], r->x, vq);
            else memcpy(vq, r->ug, sizeof vq);
            for (int d = 0; d < 3; d++) vn += r->n[d] * (vq[d] - vp[d]);
            r->q_n = r->gap ? -r->phi / h : -(4.0 / h) * r->ups * r->phi + r->ups * r->s * vn;
        }
    }
}

/* ---- the sweep ---- */

/* The impact stage as a block: the rows on unregularised terms (s 1, no
 * compliance, target v_target) through the continuous block's solve, so
 * a face landing flat takes the same impulse at each corner. Q: one per
 * point (geometry) or the second body; im both inverse masses. 1 when
 * solved. */
static int impact_block(ndem_rc_pair *pr, ndem_general_body *P, ndem_general_body *Q, int per_point,
                        double im)
{
    ndem_grow t[MAXP];
    double blk[sizeof pr->blk / sizeof pr->blk[0]];
    for (int j = 0; j < pr->count; j++) {
        if (!pr->row[j].impact) return 0;
        t[j] = pr->row[j];
        t[j].s = 1.0;
        t[j].sig_n = 0.0;
        t[j].q_n = t[j].v_target;
        memcpy(t[j].lam, t[j].imp, sizeof t[j].lam);
    }
    ndem_general_block_form(t, pr->count, im, blk);
    if (!ndem_general_block_solve(t, pr->count, blk, P, Q, per_point, NULL)) return 0;
    for (int j = 0; j < pr->count; j++) memcpy(pr->row[j].imp, t[j].lam, sizeof t[j].lam);
    return 1;
}

/* A body's state into the solve, and back on its free translations. */
static ndem_general_body solve_body(const ndem_rigid_body *bd)
{
    ndem_general_body P = {.im = bd->im_lin, .slot = -1};
    memcpy(P.v, bd->v, sizeof P.v);
    memcpy(P.w, bd->w, sizeof P.w);
    return P;
}

static void body_back(ndem_rigid_body *bd, const ndem_general_body *P)
{
    double dv[3], fv[3];
    for (int q = 0; q < 3; q++) dv[q] = P->v[q] - bd->v[q];
    mat_vec(bd->lin_free, dv, fv);
    for (int q = 0; q < 3; q++) bd->v[q] += fv[q];
    memcpy(bd->w, P->w, sizeof bd->w);
}

void ndem_rcontact_sweep(ndem_sim *sim, int stage, int reverse)
{
    ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    if (!c || c->rows == 0 || stage == NDEM_GENERAL_WARM) return; /* no warm start */
    const int impact = stage == NDEM_GENERAL_IMPACT;
    for (int i = 0; i < c->pair_count; i++) {
        ndem_rc_pair *pr = &c->pair[reverse ? c->pair_count - 1 - i : i];
        if (pr->count == 0) continue;
        ndem_rigid_body *bd = &sim->rigid->body[pr->body];
        ndem_rigid_body *bo = pr->other >= 0 ? &sim->rigid->body[pr->other] : NULL;
        ndem_general_body P = solve_body(bd), Q[MAXP];
        if (bo) {
            Q[0] = solve_body(bo);
        } else {
            for (int j = 0; j < pr->count; j++) {
                Q[j] = (ndem_general_body){.im = 0.0, .slot = -1};
                memcpy(Q[j].v, pr->row[j].ug, sizeof Q[j].v);
            }
        }
        const double im = bd->im_lin + (bo ? bo->im_lin : 0.0);
        int all = pr->touching == pr->count || pr->touching == 0, done = 0;
        if (ndem_general_block_size(pr->count) > 0 && all)
            done = impact ? impact_block(pr, &P, Q, !bo, im)
                          : ndem_general_block_solve(pr->row, pr->count, pr->blk, &P, Q, !bo, NULL);
        /* point after point; the impact stage thrice (rows_general.c) */
        for (int pass = 0; !done && pass < (impact ? 3 : 1); pass++)
            for (int j = 0; j < pr->count; j++)
                ndem_general_point_solve(&pr->row[j], &P, &Q[bo ? 0 : j], stage, NULL);
        /* the bodies move on their free translations only */
        body_back(bd, &P);
        if (bo) body_back(bo, &Q[0]);
    }
}

/* ---- after the solve ---- */

void ndem_rcontact_loads(ndem_sim *sim)
{
    const ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    if (!c) return;
    const double inv_h = 1.0 / sim->solver.time_step, none[3] = {0, 0, 0};
    for (int k = 0; k < c->pair_count; k++) {
        const ndem_rc_pair *pr = &c->pair[k];
        for (int j = 0; j < pr->count; j++) {
            const ndem_grow *r = &pr->row[j];
            double a[3] = {r->s * r->lam[0], r->lam[1], r->lam[2]}, f[3] = {0, 0, 0}, mf[3];
            for (int e = 0; e < 3; e++)
                for (int d = 0; d < 3; d++) f[d] += (a[e] + r->imp[e]) * r->t[e][d] * inv_h;
            for (int d = 0; d < 3; d++) mf[d] = -f[d];
            ndem_loads_add(sim, pr->geometry, r->x, f, none);
            ndem_loads_add(sim, sim->rigid->body[pr->body].geometry, r->x, mf, none);
        }
    }
}

void ndem_rcontact_stats(const ndem_sim *sim, long *touching, long *geometry, double *max_overlap)
{
    const ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    for (int k = 0; c && k < c->pair_count; k++) {
        const ndem_rc_pair *pr = &c->pair[k];
        if (pr->touching == 0) continue;
        (*touching)++;
        (*geometry)++;
        for (int j = 0; j < pr->count; j++)
            if (pr->row[j].delta > *max_overlap) *max_overlap = pr->row[j].delta;
    }
}
