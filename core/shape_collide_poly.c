/* shape_collide_poly.c - convex polyhedron against convex polyhedron.
 *
 * 1. Bounding spheres, then the face axes of both (a face plane with the
 *    other body beyond the margin rules the pair out, exactly), then
 *    libccd's GJK on the shapes (a inflated by the margin): most pairs the
 *    broad phase offers that do not touch stop here.
 * 2. The separating-axis test, exact for polyhedra: the face normals of
 *    both (from step 1) and the cross products of those edge pairs that form a face of
 *    the Minkowski difference (D. Gregorius, "The Separating Axis Test
 *    between Convex Polyhedra", GDC 2013: the arcs of the two edges cross on
 *    the Gauss map). The axis of least overlap is the penetration normal and
 *    depth, exact to rounding, where EPA stops at a tolerance.
 * 3. Manifold: a face axis clips the most anti-parallel (incident) face of
 *    the other body against the side planes of the reference face
 *    (Sutherland-Hodgman) and keeps the points below it; an edge axis gives
 *    the closest points of the two edges. Each point's id hashes the
 *    features that made it, so it persists while they touch. */
#include "shape_collide.h"
#include "vec.h"

#include <ccd/ccd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A polyhedron's vertices, normals and planes in the world. */
typedef struct placed {
    const ndem_polyhedron *p;
    double *v, *n, *d;
    double *arc;   /* per edge: its faces' normals n0, n1 and n1 x n0 (its Gauss-map arc) */
    double c[3];   /* centroid, an interior point */
    double margin; /* GJK inflation */
} placed;

static void world_point(const ndem_collider *c, const double *l, double *w)
{
    for (int i = 0; i < 3; i++)
        w[i] = c->x[i] + c->rot[3 * i] * l[0] + c->rot[3 * i + 1] * l[1] + c->rot[3 * i + 2] * l[2];
}

static void world_dir(const ndem_collider *c, const double *l, double *w)
{
    for (int i = 0; i < 3; i++)
        w[i] = c->rot[3 * i] * l[0] + c->rot[3 * i + 1] * l[1] + c->rot[3 * i + 2] * l[2];
}

/* Doubles place() needs for c's polyhedron. */
static size_t place_size(const ndem_collider *c)
{
    const ndem_polyhedron *p = &c->shape->poly;
    return 3 * (size_t)p->n_vertices + 4 * (size_t)p->n_faces + 9 * (size_t)p->n_edges;
}

/* Places c's polyhedron into buf (place_size doubles), all but the arcs. */
static void place(const ndem_collider *c, double *buf, placed *out)
{
    const ndem_polyhedron *p = &c->shape->poly;
    out->p = p;
    out->v = buf;
    out->n = buf + 3 * p->n_vertices;
    out->d = out->n + 3 * p->n_faces;
    out->arc = out->d + p->n_faces;
    out->margin = 0.0;
    for (int i = 0; i < p->n_vertices; i++) world_point(c, p->vertices + 3 * i, out->v + 3 * i);
    for (int f = 0; f < p->n_faces; f++) {
        double *n = out->n + 3 * f;
        world_dir(c, p->face_normal + 3 * f, n);
        /* a vertex of the face lies on its plane */
        out->d[f] = ndem_dot(n, out->v + 3 * p->face_vertices[p->face_start[f]]);
    }
    world_point(c, c->shape->mass.centroid, out->c);
}

/* The edges' Gauss-map arcs, which only the edge query reads: placed once
 * the cheaper tests have not ruled the pair out. */
static void place_arcs(placed *out)
{
    const ndem_polyhedron *p = out->p;
    for (int e = 0; e < p->n_edges; e++) { /* side by side: the edge loop reads only these */
        double *arc = out->arc + 9 * e;
        memcpy(arc, out->n + 3 * p->edge_faces[2 * e], 3 * sizeof *arc);
        memcpy(arc + 3, out->n + 3 * p->edge_faces[2 * e + 1], 3 * sizeof *arc);
        ndem_cross(arc + 3, arc, arc + 6);
    }
}

static double support_dot(const placed *q, const double *dir, int *arg)
{
    int best = 0;
    double bd = ndem_dot(q->v, dir);
    for (int i = 1; i < q->p->n_vertices; i++) {
        double d = ndem_dot(q->v + 3 * i, dir);
        if (d > bd) bd = d, best = i;
    }
    if (arg) *arg = best;
    return bd;
}

/* ---- GJK (libccd) ---- */

static void ccd_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
    const placed *q = obj;
    int k;
    support_dot(q, dir->v, &k);
    double len = ndem_norm(dir->v), s = len > 0.0 ? q->margin / len : 0.0;
    for (int i = 0; i < 3; i++) out->v[i] = q->v[3 * k + i] + s * dir->v[i];
}

static void ccd_center(const void *obj, ccd_vec3_t *out)
{
    const placed *q = obj;
    for (int i = 0; i < 3; i++) out->v[i] = q->c[i];
}

static int gjk_overlap(const placed *a, const placed *b)
{
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_support;
    ccd.support2 = ccd_support;
    ccd.center1 = ccd_center;
    ccd.center2 = ccd_center;
    ccd.max_iterations = 100;
    return ccdGJKIntersect(a, b, &ccd);
}

/* ---- separating axes ---- */

typedef struct axis {
    int kind;    /* 0: face of a, 1: face of b, 2: edge pair */
    int fa, fb;  /* the face, or the edges of a and b */
    double n[3]; /* from a to b */
    double sep;  /* overlap = -sep */
} axis;

/* The face of p whose separation from q is largest. */
static void face_query(const placed *p, const placed *q, int *face, double *sep)
{
    *sep = -INFINITY;
    *face = 0;
    for (int f = 0; f < p->p->n_faces; f++) {
        double m[3], *n = p->n + 3 * f;
        for (int i = 0; i < 3; i++) m[i] = -n[i];
        double s = -support_dot(q, m, NULL) - p->d[f];
        if (s > *sep) *sep = s, *face = f;
    }
}

/* Edge i of a and edge j of b make a face of the Minkowski difference
 * when their arcs cross on the Gauss map (Gregorius' test with b's normals
 * negated): with a's normals na, nb and arc bxa = nb x na, b's nc, nd and
 * arc dxc = nd x nc, the signs are cba = -nc.bxa, dba = -nd.bxa, adc =
 * na.dxc, bdc = nb.dxc, and the test cba dba < 0, adc bdc < 0, cba bdc > 0.
 * The first two dots reject most pairs. */
static int minkowski_face(const placed *a, int i, const placed *b, int j)
{
    const double *ea = a->arc + 9 * i, *eb = b->arc + 9 * j;
    double u = ndem_dot(eb, ea + 6), w = ndem_dot(eb + 3, ea + 6);
    if (!(u * w < 0.0)) return 0;
    double adc = ndem_dot(ea, eb + 6), bdc = ndem_dot(ea + 3, eb + 6);
    return adc * bdc < 0.0 && u * bdc < 0.0;
}

static void edge_query(const placed *a, const placed *b, axis *best)
{
    const ndem_polyhedron *pa = a->p, *pb = b->p;
    best->sep = -INFINITY;
    best->fa = best->fb = -1;
    for (int i = 0; i < pa->n_edges; i++) {
        const double *a0 = a->v + 3 * pa->edges[2 * i], *a1 = a->v + 3 * pa->edges[2 * i + 1];
        double ea[3] = {a1[0] - a0[0], a1[1] - a0[1], a1[2] - a0[2]};
        for (int j = 0; j < pb->n_edges; j++) {
            if (!minkowski_face(a, i, b, j)) continue;
            const double *b0 = b->v + 3 * pb->edges[2 * j], *b1 = b->v + 3 * pb->edges[2 * j + 1];
            double eb[3] = {b1[0] - b0[0], b1[1] - b0[1], b1[2] - b0[2]}, n[3];
            ndem_cross(ea, eb, n);
            double len = ndem_norm(n);
            /* parallel edges: their faces' axes cover the pair */
            if (len <= 1e-9 * ndem_norm(ea) * ndem_norm(eb)) continue;
            double ac[3] = {a0[0] - a->c[0], a0[1] - a->c[1], a0[2] - a->c[2]};
            double s = ndem_dot(n, ac) < 0.0 ? -1.0 / len : 1.0 / len;
            for (int k = 0; k < 3; k++) n[k] *= s;
            double ab[3] = {b0[0] - a0[0], b0[1] - a0[1], b0[2] - a0[2]};
            double sep = ndem_dot(n, ab);
            if (sep > best->sep) {
                best->sep = sep;
                best->fa = i;
                best->fb = j;
                memcpy(best->n, n, sizeof n);
            }
        }
    }
}

/* The faces' separations, which alone can rule a pair out. */
typedef struct face_axes {
    int fa, fb;
    double sa, sb;
} face_axes;

static void face_queries(const placed *a, const placed *b, face_axes *f)
{
    face_query(a, b, &f->fa, &f->sa);
    face_query(b, a, &f->fb, &f->sb);
}

/* The axis of least overlap given the face queries; faces win ties
 * (stabler manifolds). Places the arcs. */
static void sat_finish(placed *a, placed *b, const face_axes *f, double tol, axis *out)
{
    place_arcs(a);
    place_arcs(b);
    axis e;
    edge_query(a, b, &e);
    if (f->sb > f->sa + tol) {
        out->kind = 1, out->fa = f->fb, out->fb = -1, out->sep = f->sb;
        for (int i = 0; i < 3; i++) out->n[i] = -b->n[3 * f->fb + i];
    } else {
        out->kind = 0, out->fa = f->fa, out->fb = -1, out->sep = f->sa;
        memcpy(out->n, a->n + 3 * f->fa, sizeof out->n);
    }
    if (e.fa >= 0 && e.sep > out->sep + tol) *out = e, out->kind = 2;
}

/* ---- manifold ---- */

static unsigned hash_ids(const int *v, int n)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (int i = 0; i < n; i++) {
        unsigned x = (unsigned)v[i];
        for (int b = 0; b < 4; b++) h = (h ^ (x >> (8 * b) & 0xffu)) * 16777619u;
    }
    return h;
}

/* A point of the clipped polygon: where it is, what made it (tag: an
 * incident vertex, or a segment crossing a side), and the feature the
 * segment from it to the next point lies on (seg). */
typedef struct clip_pt {
    double p[3];
    int tag[3];
    int seg;
} clip_pt;

#define CLIP_MAX (2 * NDEM_FACE_MAX + 2)

static int clip_side(const clip_pt *in, int n, const double *s, double off, int side, clip_pt *out)
{
    int m = 0;
    for (int j = 0; j < n; j++) {
        const clip_pt *p = in + j, *q = in + (j + 1) % n;
        double dp = ndem_dot(s, p->p) - off, dq = ndem_dot(s, q->p) - off;
        if (dp <= 0.0) out[m++] = *p;
        if ((dp <= 0.0) != (dq <= 0.0) && m < CLIP_MAX) {
            double t = dp / (dp - dq);
            clip_pt *x = out + m++;
            for (int i = 0; i < 3; i++) x->p[i] = p->p[i] + t * (q->p[i] - p->p[i]);
            x->tag[0] = 1, x->tag[1] = p->seg, x->tag[2] = side;
            /* leaving: the next segment runs along this side */
            x->seg = dp <= 0.0 ? -1 - side : p->seg;
        }
        if (m >= CLIP_MAX) break;
    }
    return m;
}

static void add_point(ndem_contact_point *out, int *n, const double *x, const double *normal,
                      double depth, unsigned id)
{
    ndem_contact_point *c = out + (*n)++;
    memcpy(c->x, x, sizeof c->x);
    memcpy(c->n, normal, sizeof c->n);
    c->depth = depth;
    c->id = id;
}

/* Reference face fr of ref (normal out of ref), incident body inc. */
static int face_manifold(const placed *ref, int fr, const placed *inc, int ref_is_b, double margin,
                         ndem_contact_point *out)
{
    const double *nr = ref->n + 3 * fr;
    const ndem_polyhedron *pi = inc->p, *pr = ref->p;
    int fi = 0;
    double most = INFINITY;
    for (int f = 0; f < pi->n_faces; f++) {
        double d = ndem_dot(inc->n + 3 * f, nr);
        if (d < most) most = d, fi = f;
    }
    clip_pt buf[2][CLIP_MAX];
    int s = pi->face_start[fi], m = pi->face_start[fi + 1] - s, cur = 0;
    for (int k = 0; k < m; k++) {
        clip_pt *c = &buf[0][k];
        int v = pi->face_vertices[s + k];
        memcpy(c->p, inc->v + 3 * v, sizeof c->p);
        c->tag[0] = 0, c->tag[1] = v, c->tag[2] = 0;
        c->seg = pi->face_edge[s + k];
    }
    int rs = pr->face_start[fr], rm = pr->face_start[fr + 1] - rs;
    for (int k = 0; k < rm && m > 0; k++) {
        const double *r0 = ref->v + 3 * pr->face_vertices[rs + k];
        const double *r1 = ref->v + 3 * pr->face_vertices[rs + (k + 1) % rm];
        double e[3] = {r1[0] - r0[0], r1[1] - r0[1], r1[2] - r0[2]}, side[3];
        ndem_cross(e, nr, side);
        m = clip_side(buf[cur], m, side, ndem_dot(side, r0), pr->face_edge[rs + k], buf[1 - cur]);
        cur = 1 - cur;
    }
    double normal[3];
    for (int i = 0; i < 3; i++) normal[i] = ref_is_b ? -nr[i] : nr[i];
    ndem_contact_point pts[CLIP_MAX];
    int n = 0;
    for (int k = 0; k < m; k++) {
        const clip_pt *c = &buf[cur][k];
        double sep = ndem_dot(nr, c->p) - ref->d[fr], x[3];
        if (sep > margin) continue;
        for (int i = 0; i < 3; i++) x[i] = c->p[i] - 0.5 * sep * nr[i];
        int key[7] = {ref_is_b, fr, fi, c->tag[0], c->tag[1], c->tag[2], 0};
        add_point(pts, &n, x, normal, -sep, hash_ids(key, 7));
    }
    if (n == 0) { /* clipped away in a sliver case: the deepest vertex */
        double m2[3] = {-nr[0], -nr[1], -nr[2]};
        int v;
        double sep = -support_dot(inc, m2, &v) - ref->d[fr], x[3];
        for (int i = 0; i < 3; i++) x[i] = inc->v[3 * v + i] - 0.5 * sep * nr[i];
        int key[7] = {ref_is_b, fr, fi, 0, v, 0, 1};
        add_point(pts, &n, x, normal, -sep, hash_ids(key, 7));
    }
    n = ndem_manifold_reduce(pts, n);
    memcpy(out, pts, (size_t)n * sizeof *pts);
    return n;
}

/* Closest points of segments p0-p1 and q0-q1 (not parallel). */
static void segment_closest(const double *p0, const double *p1, const double *q0, const double *q1,
                            double *cp, double *cq)
{
    double d1[3], d2[3], r[3];
    for (int i = 0; i < 3; i++) d1[i] = p1[i] - p0[i], d2[i] = q1[i] - q0[i], r[i] = p0[i] - q0[i];
    double a = ndem_dot(d1, d1), e = ndem_dot(d2, d2), f = ndem_dot(d2, r);
    double c = ndem_dot(d1, r), b = ndem_dot(d1, d2), den = a * e - b * b;
    double s = den > 0.0 ? (b * f - c * e) / den : 0.0;
    s = ndem_min(1.0, ndem_max(0.0, s));
    double t = (b * s + f) / e;
    if (t < 0.0) t = 0.0, s = ndem_min(1.0, ndem_max(0.0, -c / a));
    else if (t > 1.0) t = 1.0, s = ndem_min(1.0, ndem_max(0.0, (b - c) / a));
    for (int i = 0; i < 3; i++) cp[i] = p0[i] + s * d1[i], cq[i] = q0[i] + t * d2[i];
}

/* Doubles of a pair that live on the stack (two hulls of up to 40 faces,
 * 60 edges); bigger pairs allocate. */
enum { PLACE_STACK = 1536 };

/* Places both; *buf is stack, or malloc'd when the pair needs more (the
 * caller frees it when it is not stack). */
static int placed_pair(const ndem_collider *a, const ndem_collider *b, placed *pa, placed *pb,
                       double *stack, double **buf)
{
    size_t na = place_size(a), nb = place_size(b);
    *buf = na + nb <= PLACE_STACK ? stack : malloc((na + nb) * sizeof **buf);
    if (!*buf) return -1;
    place(a, *buf, pa);
    place(b, *buf + na, pb);
    return 0;
}

int ndem_polyhedra_axis(const ndem_collider *a, const ndem_collider *b, double n[3], double *depth)
{
    placed pa, pb;
    double stack[PLACE_STACK], *buf;
    if (placed_pair(a, b, &pa, &pb, stack, &buf)) return -1;
    axis ax;
    face_axes f;
    face_queries(&pa, &pb, &f);
    sat_finish(&pa, &pb, &f, 1e-12 * (a->shape->radius + b->shape->radius), &ax);
    if (buf != stack) free(buf);
    memcpy(n, ax.n, sizeof ax.n);
    *depth = -ax.sep;
    return ax.kind;
}

int ndem_collide_polyhedra(const ndem_collider *a, const ndem_collider *b, double margin,
                           ndem_contact_point *out)
{
    double d[3] = {b->x[0] - a->x[0], b->x[1] - a->x[1], b->x[2] - a->x[2]};
    double reach = a->shape->radius + b->shape->radius + margin;
    if (ndem_dot(d, d) > reach * reach) return 0;
    placed pa, pb;
    double stack[PLACE_STACK], *buf;
    if (placed_pair(a, b, &pa, &pb, stack, &buf)) return 0;
    int n = 0;
    pa.margin = margin;
    /* A face plane with the other body farther than the margin beyond it
     * bounds the distance from below: GJK would find them apart too. */
    face_axes f;
    face_queries(&pa, &pb, &f);
    if (f.sa <= margin && f.sb <= margin && gjk_overlap(&pa, &pb)) {
        axis ax;
        sat_finish(&pa, &pb, &f, 1e-12 * (a->shape->radius + b->shape->radius), &ax);
        if (ax.sep <= margin) {
            if (ax.kind == 0) {
                n = face_manifold(&pa, ax.fa, &pb, 0, margin, out);
            } else if (ax.kind == 1) {
                n = face_manifold(&pb, ax.fa, &pa, 1, margin, out);
            } else {
                const ndem_polyhedron *p = pa.p, *q = pb.p;
                double cp[3], cq[3], x[3];
                segment_closest(pa.v + 3 * p->edges[2 * ax.fa], pa.v + 3 * p->edges[2 * ax.fa + 1],
                                pb.v + 3 * q->edges[2 * ax.fb], pb.v + 3 * q->edges[2 * ax.fb + 1],
                                cp, cq);
                for (int i = 0; i < 3; i++) x[i] = 0.5 * (cp[i] + cq[i]);
                int key[3] = {2, ax.fa, ax.fb};
                add_point(out, &n, x, ax.n, -ax.sep, hash_ids(key, 3));
            }
        }
    }
    if (buf != stack) free(buf);
    return n;
}
