/* shape_collide.c - the narrow phase's [kind][kind] table and the paths
 * that go through spheres: sphere-sphere, sphere-polyhedron (closest
 * feature), sphere-plane, polyhedron-plane (vertices below it), a clump
 * against anything through its member spheres, and a compound against
 * anything but a clump through its convex pieces. A pair missing from the
 * table is looked up the other way round, its normals turned. Polyhedron
 * against polyhedron: shape_collide_poly.c. */
#include "shape_collide.h"
#include "geometry.h"
#include "vec.h"

#include <math.h>
#include <string.h>

void ndem_collider_place(ndem_collider *c, const ndem_shape *s, const double x[3],
                         const double q[4])
{
    memset(c, 0, sizeof *c);
    c->kind = (int)s->type;
    c->shape = s;
    memcpy(c->x, x, sizeof c->x);
    memcpy(c->q, q, sizeof c->q);
    ndem_quat_matrix(q, c->rot);
}

void ndem_collider_plane(ndem_collider *c, const double p[3], const double n[3])
{
    static const double id[4] = {1, 0, 0, 0};
    memset(c, 0, sizeof *c);
    c->kind = NDEM_COLLIDER_PLANE;
    memcpy(c->x, p, sizeof c->x);
    memcpy(c->n, n, sizeof c->n);
    memcpy(c->q, id, sizeof c->q);
    ndem_quat_matrix(id, c->rot);
}

static void set_point(ndem_contact_point *c, const double *x, const double *n, double depth,
                      unsigned id)
{
    memcpy(c->x, x, sizeof c->x);
    memcpy(c->n, n, sizeof c->n);
    c->depth = depth;
    c->id = id;
}

/* ---- spheres ---- */

static int sphere_sphere(const ndem_collider *a, const ndem_collider *b, double margin,
                         ndem_contact_point *out)
{
    double ra = a->shape->radius, rb = b->shape->radius, d[3], n[3] = {0, 0, 1}, x[3];
    for (int i = 0; i < 3; i++) d[i] = b->x[i] - a->x[i];
    double dist = ndem_norm(d), depth = ra + rb - dist;
    if (depth < -margin) return 0;
    if (dist > 0.0)
        for (int i = 0; i < 3; i++) n[i] = d[i] / dist;
    /* midway between a's surface point a + ra n and b's b - rb n */
    for (int i = 0; i < 3; i++) x[i] = 0.5 * (a->x[i] + ra * n[i] + b->x[i] - rb * n[i]);
    set_point(out, x, n, depth, 0);
    return 1;
}

static int sphere_plane(const ndem_collider *a, const ndem_collider *b, double margin,
                        ndem_contact_point *out)
{
    double r = a->shape->radius, d[3], n[3], x[3];
    for (int i = 0; i < 3; i++) d[i] = a->x[i] - b->x[i];
    double dist = ndem_dot(d, b->n), depth = r - dist;
    if (depth < -margin) return 0;
    for (int i = 0; i < 3; i++) {
        n[i] = -b->n[i];
        x[i] = a->x[i] - 0.5 * (r + dist) * b->n[i];
    }
    set_point(out, x, n, depth, 0);
    return 1;
}

/* Closest point q of the face f's polygon to c (in the plane's side
 * prism: the projection; else on its boundary), with its feature id
 * (face f, edge n_faces + e, vertex n_faces + n_edges + v). */
static double face_closest(const ndem_polyhedron *p, int f, const double *c, double *q,
                           int *feature)
{
    const double *n = p->face_normal + 3 * f;
    double sep = ndem_dot(n, c) - p->face_d[f];
    int s = p->face_start[f], m = p->face_start[f + 1] - s, inside = 1;
    double best = INFINITY;
    for (int k = 0; k < m; k++) {
        const double *v0 = p->vertices + 3 * p->face_vertices[s + k];
        const double *v1 = p->vertices + 3 * p->face_vertices[s + (k + 1) % m];
        double e[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]}, side[3], w[3];
        ndem_cross(e, n, side);
        for (int i = 0; i < 3; i++) w[i] = c[i] - v0[i];
        if (ndem_dot(side, w) <= 0.0) continue;
        inside = 0;
        /* the closest point of this edge */
        double t = ndem_dot(w, e) / ndem_dot(e, e), y[3], g[3];
        int feat;
        if (t <= 0.0) {
            t = 0.0, feat = p->n_faces + p->n_edges + p->face_vertices[s + k];
        } else if (t >= 1.0) {
            t = 1.0, feat = p->n_faces + p->n_edges + p->face_vertices[s + (k + 1) % m];
        } else {
            feat = p->n_faces + p->face_edge[s + k];
        }
        for (int i = 0; i < 3; i++) y[i] = v0[i] + t * e[i], g[i] = c[i] - y[i];
        double d2 = ndem_dot(g, g);
        if (d2 < best) best = d2, memcpy(q, y, 3 * sizeof *q), *feature = feat;
    }
    if (inside) {
        for (int i = 0; i < 3; i++) q[i] = c[i] - sep * n[i];
        *feature = f;
        return sep * sep;
    }
    return best;
}

static int sphere_polyhedron(const ndem_collider *a, const ndem_collider *b, double margin,
                             ndem_contact_point *out)
{
    const ndem_polyhedron *p = &b->shape->poly;
    double r = a->shape->radius, d[3], c[3];
    for (int i = 0; i < 3; i++) d[i] = a->x[i] - b->x[i];
    double reach = r + b->shape->radius + margin;
    if (ndem_dot(d, d) > reach * reach) return 0;
    for (int i = 0; i < 3; i++) /* into b's frame: R^T d */
        c[i] = b->rot[i] * d[0] + b->rot[3 + i] * d[1] + b->rot[6 + i] * d[2];
    int fmax = 0;
    double smax = -INFINITY;
    for (int f = 0; f < p->n_faces; f++) {
        double s = ndem_dot(p->face_normal + 3 * f, c) - p->face_d[f];
        if (s > smax) smax = s, fmax = f;
    }
    if (smax > r + margin) return 0;
    double q[3], nout[3], dist;
    int feature = fmax;
    if (smax <= 0.0) { /* centre inside: out through the nearest face */
        dist = smax;
        memcpy(nout, p->face_normal + 3 * fmax, sizeof nout);
        for (int i = 0; i < 3; i++) q[i] = c[i] - smax * nout[i];
    } else { /* the closest point lies on a face the centre is above */
        double best = INFINITY;
        for (int f = 0; f < p->n_faces; f++) {
            if (ndem_dot(p->face_normal + 3 * f, c) - p->face_d[f] <= 0.0) continue;
            double y[3];
            int feat;
            double d2 = face_closest(p, f, c, y, &feat);
            if (d2 < best) best = d2, memcpy(q, y, sizeof q), feature = feat;
        }
        dist = sqrt(best);
        for (int i = 0; i < 3; i++) nout[i] = (c[i] - q[i]) / dist;
    }
    double depth = r - dist;
    if (depth < -margin) return 0;
    double lx[3], x[3], n[3], ln[3];
    for (int i = 0; i < 3; i++) {
        lx[i] = 0.5 * (q[i] + c[i] - r * nout[i]);
        ln[i] = -nout[i];
    }
    for (int i = 0; i < 3; i++) {
        x[i] =
            b->x[i] + b->rot[3 * i] * lx[0] + b->rot[3 * i + 1] * lx[1] + b->rot[3 * i + 2] * lx[2];
        n[i] = b->rot[3 * i] * ln[0] + b->rot[3 * i + 1] * ln[1] + b->rot[3 * i + 2] * ln[2];
    }
    set_point(out, x, n, depth, (unsigned)feature);
    return 1;
}

/* ---- polyhedron and plane ---- */

static int polyhedron_plane(const ndem_collider *a, const ndem_collider *b, double margin,
                            ndem_contact_point *out)
{
    const ndem_polyhedron *p = &a->shape->poly;
    double d[3];
    for (int i = 0; i < 3; i++) d[i] = a->x[i] - b->x[i];
    if (ndem_dot(d, b->n) > a->shape->radius + margin) return 0;
    ndem_contact_point pts[NDEM_CONTACT_POINTS];
    double n[3] = {-b->n[0], -b->n[1], -b->n[2]};
    int k = 0;
    for (int v = 0; v < p->n_vertices; v++) {
        const double *l = p->vertices + 3 * v;
        double w[3], x[3];
        for (int i = 0; i < 3; i++)
            w[i] = a->x[i] + a->rot[3 * i] * l[0] + a->rot[3 * i + 1] * l[1] +
                   a->rot[3 * i + 2] * l[2];
        double s = ndem_dot(b->n, w) - ndem_dot(b->n, b->x);
        if (s > margin) continue;
        for (int i = 0; i < 3; i++) x[i] = w[i] - 0.5 * s * b->n[i];
        ndem_contact_point c;
        set_point(&c, x, n, -s, (unsigned)v);
        /* full: the shallowest goes (reduce keeps the deepest anyway) */
        if (k == NDEM_CONTACT_POINTS) {
            int low = 0;
            for (int j = 1; j < k; j++)
                if (pts[j].depth < pts[low].depth) low = j;
            if (pts[low].depth < c.depth) pts[low] = c;
        } else {
            pts[k++] = c;
        }
    }
    k = ndem_manifold_reduce(pts, k);
    memcpy(out, pts, (size_t)k * sizeof *pts);
    return k;
}

static int polyhedron_polyhedron(const ndem_collider *a, const ndem_collider *b, double margin,
                                 ndem_contact_point *out)
{
    return ndem_collide_polyhedra(a, b, margin, out);
}

/* ---- clumps: each member as a sphere ---- */

static unsigned member_id(int member, unsigned inner)
{
    unsigned h = (2166136261u ^ (unsigned)member) * 16777619u;
    return (h ^ inner) * 16777619u;
}

/* Keeps pts[0..k) in out[0..*n), each id tagged with the member, the
 * deepest NDEM_CONTACT_POINTS when full. */
static void gather(ndem_contact_point *out, int *n, ndem_contact_point *pts, int k, int member)
{
    for (int j = 0; j < k; j++) {
        pts[j].id = member_id(member, pts[j].id);
        if (*n < NDEM_CONTACT_POINTS) {
            out[(*n)++] = pts[j];
            continue;
        }
        int low = 0; /* full: the deepest stay */
        for (int t = 1; t < *n; t++)
            if (out[t].depth < out[low].depth) low = t;
        if (out[low].depth < pts[j].depth) out[low] = pts[j];
    }
}

/* 0 when b's bounding sphere is out of a's reach (a plane always may). */
static int in_reach(const ndem_collider *a, const ndem_collider *b, double margin)
{
    if (b->kind == NDEM_COLLIDER_PLANE) return 1;
    double d[3];
    for (int i = 0; i < 3; i++) d[i] = b->x[i] - a->x[i];
    double reach = a->shape->radius + b->shape->radius + margin;
    return ndem_dot(d, d) <= reach * reach;
}

static int clump_any(const ndem_collider *a, const ndem_collider *b, double margin,
                     ndem_contact_point *out)
{
    if (!in_reach(a, b, margin)) return 0;
    int n = 0;
    for (int m = 0; m < a->shape->n_spheres; m++) {
        const double *s = a->shape->spheres + 4 * m;
        ndem_shape ball = {.type = NDEM_SHAPE_SPHERE, .radius = s[3]};
        ndem_collider c = {.kind = NDEM_SHAPE_SPHERE, .shape = &ball, .q = {1, 0, 0, 0}};
        for (int i = 0; i < 3; i++)
            c.x[i] = a->x[i] + a->rot[3 * i] * s[0] + a->rot[3 * i + 1] * s[1] +
                     a->rot[3 * i + 2] * s[2];
        ndem_contact_point pts[NDEM_CONTACT_POINTS];
        gather(out, &n, pts, ndem_shape_collide(&c, b, margin, pts), m);
    }
    return n;
}

/* A compound: each convex piece (same place and turn) through the table;
 * a manifold per piece, its ids tagged with the piece. */
static int compound_any(const ndem_collider *a, const ndem_collider *b, double margin,
                        ndem_contact_point *out)
{
    if (!in_reach(a, b, margin)) return 0;
    int n = 0;
    for (int m = 0; m < a->shape->n_pieces; m++) {
        ndem_collider c = *a;
        c.kind = NDEM_SHAPE_POLYHEDRON;
        c.shape = &a->shape->pieces[m];
        ndem_contact_point pts[NDEM_CONTACT_POINTS];
        gather(out, &n, pts, ndem_shape_collide(&c, b, margin, pts), m);
    }
    return n;
}

/* ---- the table ---- */

typedef int (*collide_fn)(const ndem_collider *a, const ndem_collider *b, double margin,
                          ndem_contact_point *out);

/* [a][b]; NULL: looked up as [b][a] (normals turned), or no contact. */
static const collide_fn table[NDEM_COLLIDER_KINDS][NDEM_COLLIDER_KINDS] = {
    [NDEM_SHAPE_SPHERE] = {[NDEM_SHAPE_SPHERE] = sphere_sphere,
                           [NDEM_SHAPE_POLYHEDRON] = sphere_polyhedron,
                           [NDEM_COLLIDER_PLANE] = sphere_plane},
    [NDEM_SHAPE_CLUMP] = {[NDEM_SHAPE_SPHERE] = clump_any,
                          [NDEM_SHAPE_CLUMP] = clump_any,
                          [NDEM_SHAPE_POLYHEDRON] = clump_any,
                          [NDEM_SHAPE_COMPOUND] = clump_any,
                          [NDEM_COLLIDER_PLANE] = clump_any},
    [NDEM_SHAPE_COMPOUND] = {[NDEM_SHAPE_SPHERE] = compound_any,
                             [NDEM_SHAPE_POLYHEDRON] = compound_any,
                             [NDEM_SHAPE_COMPOUND] = compound_any,
                             [NDEM_COLLIDER_PLANE] = compound_any},
    [NDEM_SHAPE_POLYHEDRON] =
        {[NDEM_SHAPE_POLYHEDRON] = polyhedron_polyhedron, [NDEM_COLLIDER_PLANE] = polyhedron_plane},
};

int ndem_shape_collide(const ndem_collider *a, const ndem_collider *b, double margin,
                       ndem_contact_point out[NDEM_CONTACT_POINTS])
{
    if (a->kind < 0 || a->kind >= NDEM_COLLIDER_KINDS || b->kind < 0 ||
        b->kind >= NDEM_COLLIDER_KINDS)
        return 0;
    if (table[a->kind][b->kind]) return table[a->kind][b->kind](a, b, margin, out);
    if (!table[b->kind][a->kind]) return 0;
    int n = table[b->kind][a->kind](b, a, margin, out);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 3; i++) out[k].n[i] = -out[k].n[i];
    return n;
}

/* ---- manifold reduction ---- */

static double signed_area(const double *p, const double *q, const double *r, const double *n)
{
    double e[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    double f[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]}, c[3];
    ndem_cross(e, f, c);
    return ndem_dot(c, n);
}

int ndem_manifold_reduce(ndem_contact_point *pts, int n)
{
    if (n <= NDEM_MANIFOLD_POINTS) return n;
    const double *nn = pts[0].n;
    int keep[4] = {0, -1, -1, -1};
    for (int k = 1; k < n; k++)
        if (pts[k].depth > pts[keep[0]].depth) keep[0] = k;
    const double *x0 = pts[keep[0]].x;
    double best = -1.0;
    for (int k = 0; k < n; k++) {
        double d[3] = {pts[k].x[0] - x0[0], pts[k].x[1] - x0[1], pts[k].x[2] - x0[2]};
        if (k != keep[0] && ndem_dot(d, d) > best) best = ndem_dot(d, d), keep[1] = k;
    }
    best = -1.0;
    double sign = 1.0;
    for (int k = 0; k < n; k++) {
        if (k == keep[0] || k == keep[1]) continue;
        double a = signed_area(x0, pts[keep[1]].x, pts[k].x, nn);
        if (fabs(a) > best) best = fabs(a), keep[2] = k, sign = a < 0.0 ? -1.0 : 1.0;
    }
    /* the fourth adds the most area outside the triangle (made
     * counter-clockwise about the normal) */
    if (sign < 0.0) {
        int t = keep[1];
        keep[1] = keep[2];
        keep[2] = t;
    }
    best = -INFINITY;
    for (int k = 0; k < n; k++) {
        if (k == keep[0] || k == keep[1] || k == keep[2]) continue;
        double add = -INFINITY;
        for (int e = 0; e < 3; e++)
            add =
                ndem_max(add, -signed_area(pts[keep[e]].x, pts[keep[(e + 1) % 3]].x, pts[k].x, nn));
        if (add > best) best = add, keep[3] = k;
    }
    ndem_contact_point kept[4];
    for (int i = 0; i < 4; i++) kept[i] = pts[keep[i]];
    memcpy(pts, kept, sizeof kept);
    return NDEM_MANIFOLD_POINTS;
}
