/* geometry_mesh.c - a triangle mesh: a sphere against the triangles near it.
 *
 * Each triangle near the sphere reports the region of its closest point:
 * its face, one of its edges or one of its vertices. A face contact is its
 * coplanar group (one plane, one feature across a finely triangulated
 * floor). An edge is felt only when both its triangles report that edge as
 * their closest region (a convex edge the sphere is beyond both faces of;
 * near a face the face alone is felt), never between coplanar triangles; a
 * vertex only when every triangle around it reports the vertex. The global
 * closest point always passes these tests (it is the closest point of every
 * triangle holding it), so no contact is lost; the owner of an edge or
 * vertex (core/mesh.c) is the one triangle that reports it, so none is
 * counted twice. Faces are two-sided: the sphere is pushed back to the side
 * its centre is on, so open meshes (a floor, a chute) and closed ones (an
 * obstacle, or a container around the particles) work alike.
 *
 * Everything is in the mesh's reference frame, offset by `point` (its
 * translation since placement). */
#include "geometry.h"
#include "geometry_mesh.h"
#include "hash.h"
#include "sim.h"
#include "vec.h"

#include "fail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { REGION_FACE = 0, REGION_EDGE = 1, REGION_VERTEX = 4 }; /* + k for edges, vertices */

static const double *corner(const ndem_mesh *m, int t, int k)
{
    return m->vertices + 3 * m->triangles[3 * t + k];
}

/* Closest point q of triangle (a, b, c) to p and its region (C. Ericson,
 * Real-Time Collision Detection, 2005, 5.1.5). Edge k joins corners k and
 * k + 1. */
static int closest_on_triangle(const double *p, const double *a, const double *b, const double *c,
                               double *q)
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int i = 0; i < 3; i++) {
        ab[i] = b[i] - a[i], ac[i] = c[i] - a[i];
        ap[i] = p[i] - a[i], bp[i] = p[i] - b[i], cp[i] = p[i] - c[i];
    }
    double d1 = ndem_dot(ab, ap), d2 = ndem_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        memcpy(q, a, 3 * sizeof *q);
        return REGION_VERTEX + 0;
    }
    double d3 = ndem_dot(ab, bp), d4 = ndem_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        memcpy(q, b, 3 * sizeof *q);
        return REGION_VERTEX + 1;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        for (int i = 0; i < 3; i++) q[i] = a[i] + v * ab[i];
        return REGION_EDGE + 0;
    }
    double d5 = ndem_dot(ab, cp), d6 = ndem_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        memcpy(q, c, 3 * sizeof *q);
        return REGION_VERTEX + 2;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        for (int i = 0; i < 3; i++) q[i] = a[i] + w * ac[i];
        return REGION_EDGE + 2;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int i = 0; i < 3; i++) q[i] = b[i] + w * (c[i] - b[i]);
        return REGION_EDGE + 1;
    }
    double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den;
    for (int i = 0; i < 3; i++) q[i] = a[i] + ab[i] * v + ac[i] * w;
    return REGION_FACE;
}

/* The region of t's closest point q to x, where a boundary point that x
 * lies straight above (x - q along t's normal, up to rounding) counts as
 * the face: x is in the face's closed prism. So a centre right above the
 * edge between two coplanar triangles, or above a convex edge in one face's
 * plane, gets that face's contact, never none. */
static int region_at(const ndem_mesh *m, int t, const double *x, double *q)
{
    const double *a = corner(m, t, 0), *b = corner(m, t, 1), *c = corner(m, t, 2);
    int reg = closest_on_triangle(x, a, b, c, q);
    if (reg == REGION_FACE) return reg;
    double ab[3], ac[3], n[3], d[3] = {x[0] - q[0], x[1] - q[1], x[2] - q[2]};
    for (int i = 0; i < 3; i++) ab[i] = b[i] - a[i], ac[i] = c[i] - a[i];
    ndem_cross(ab, ac, n);
    double u = ndem_dot(d, n) / ndem_dot(n, n), off[3]; /* d off the normal line */
    for (int i = 0; i < 3; i++) off[i] = d[i] - u * n[i];
    return ndem_dot(off, off) <= 1e-20 * (ndem_dot(ab, ab) + ndem_dot(ac, ac)) ? REGION_FACE : reg;
}

static int region_of(const ndem_mesh *m, int t, const double *x)
{
    double q[3];
    return region_at(m, t, x, q);
}

/* ---- hits of single features (also the key's recomputation) ---- */

static void group_hit(const ndem_mesh_shape *s, int g, const double *x, double r, ndem_geo_hit *h)
{
    const double *pl = s->plane + 4 * g;
    double d = ndem_dot(pl, x) - pl[3], side = d >= 0 ? -1.0 : 1.0; /* push back to x's side */
    for (int i = 0; i < 3; i++) h->n[i] = side * pl[i];
    h->delta = r - fabs(d);
    h->feature = g;
}

/* Towards point q from x; on q itself (the centre on the edge or vertex) the
 * normal of the owner's face. */
static void point_hit(const ndem_mesh_shape *s, int t, const double *q, const double *x, double r,
                      int feature, ndem_geo_hit *h)
{
    double d[3] = {q[0] - x[0], q[1] - x[1], q[2] - x[2]}, len = ndem_norm(d);
    if (len > 0) {
        for (int i = 0; i < 3; i++) h->n[i] = d[i] / len;
    } else {
        const double *pl = s->plane + 4 * s->mesh->group[t];
        for (int i = 0; i < 3; i++) h->n[i] = -pl[i];
    }
    h->delta = r - len;
    h->feature = feature;
}

static void edge_point(const ndem_mesh *m, int e, const double *x, double *q)
{
    const double *a = corner(m, e / 3, e % 3), *b = corner(m, e / 3, (e % 3 + 1) % 3);
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double ax[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
    double u = ndem_dot(ab, ax) / ndem_dot(ab, ab);
    u = ndem_min(1.0, ndem_max(0.0, u));
    for (int i = 0; i < 3; i++) q[i] = a[i] + u * ab[i];
}

static int mesh_feature_hit(const ndem_geometry_def *g, const double *xw, double r, int feature,
                            ndem_geo_hit *hit)
{
    const ndem_mesh_shape *s = g->mesh;
    const ndem_mesh *m = s->mesh;
    double x[3] = {xw[0] - g->point[0], xw[1] - g->point[1], xw[2] - g->point[2]};
    int f = feature - m->n_groups, v = f - 3 * m->n_triangles;
    if (feature < 0 || feature >= s->feature_count) return 0;
    if (f < 0) {
        group_hit(s, feature, x, r, hit);
    } else if (v < 0) {
        double q[3];
        edge_point(m, f, x, q);
        point_hit(s, f / 3, q, x, r, feature, hit);
    } else {
        point_hit(s, m->vertex_owner[v], m->vertices + 3 * v, x, r, feature, hit);
    }
    return 1;
}

/* ---- collide ---- */

/* Adds h unless its feature is there (the deeper stays); when full, it
 * replaces the shallowest hit if deeper. */
static int add_hit(ndem_geo_hit *hits, int n, const ndem_geo_hit *h)
{
    int low = 0;
    for (int i = 0; i < n; i++) {
        if (hits[i].feature == h->feature) {
            if (h->delta > hits[i].delta) hits[i] = *h;
            return n;
        }
        if (hits[i].delta < hits[low].delta) low = i;
    }
    if (n < NDEM_GEO_HITS) {
        hits[n] = *h;
        return n + 1;
    }
    if (h->delta > hits[low].delta) hits[low] = *h;
    return n;
}

/* Edge k of t is felt: t owns it and the triangle across reports it too. */
static int edge_felt(const ndem_mesh *m, int t, int k, const double *x)
{
    int u = m->neighbours[3 * t + k];
    if (m->edge_owner[3 * t + k] != t) return 0;
    if (u < 0) return 1; /* boundary; a non-manifold edge: its owner decides */
    if (m->group[u] == m->group[t]) return 0;
    int a = m->triangles[3 * t + k], b = m->triangles[3 * t + (k + 1) % 3];
    int ru = region_of(m, u, x);
    if (ru < REGION_EDGE || ru >= REGION_VERTEX) return 0;
    /* the same edge, walked either way (an unoriented mesh walks it alike) */
    int e = ru - REGION_EDGE, p = m->triangles[3 * u + e], q = m->triangles[3 * u + (e + 1) % 3];
    return (p == a && q == b) || (p == b && q == a);
}

/* Vertex v (corner k of t) is felt: t owns it and every triangle around it
 * reports it. */
static int vertex_felt(const ndem_mesh_shape *s, int t, int v, const double *x)
{
    const ndem_mesh *m = s->mesh;
    if (m->vertex_owner[v] != t) return 0;
    for (int i = s->fan_start[v]; i < s->fan_start[v + 1]; i++) {
        int w = s->fan[i];
        if (w == t) continue;
        int r = region_of(m, w, x);
        if (r < REGION_VERTEX || m->triangles[3 * w + r - REGION_VERTEX] != v) return 0;
    }
    return 1;
}

static void cell_range(const ndem_mesh_shape *s, const double *lo, const double *hi, int *c0,
                       int *c1)
{
    for (int k = 0; k < 3; k++) {
        double a = (lo[k] - s->grid_lo[k]) / s->cell, b = (hi[k] - s->grid_lo[k]) / s->cell;
        c0[k] = a <= 0 ? 0 : a >= s->dim[k] - 1 ? s->dim[k] - 1 : (int)a;
        c1[k] = b <= 0 ? 0 : b >= s->dim[k] - 1 ? s->dim[k] - 1 : (int)b;
    }
}

static void triangle_bounds(const ndem_mesh *m, int t, double *lo, double *hi)
{
    for (int k = 0; k < 3; k++) {
        const double *p = corner(m, t, k);
        for (int i = 0; i < 3; i++) {
            lo[i] = k ? ndem_min(lo[i], p[i]) : p[i];
            hi[i] = k ? ndem_max(hi[i], p[i]) : p[i];
        }
    }
}

/* The features of one triangle the sphere feels within reach. */
static int triangle_hits(const ndem_mesh_shape *s, int t, const double *x, double r, double reach,
                         ndem_geo_hit *hits, int n)
{
    const ndem_mesh *m = s->mesh;
    double q[3];
    int reg = region_at(m, t, x, q);
    double d[3] = {q[0] - x[0], q[1] - x[1], q[2] - x[2]};
    if (!(ndem_dot(d, d) < reach * reach)) return n;
    ndem_geo_hit h;
    if (reg != REGION_FACE && s->flat[t]) return n; /* its edges and corners are never felt */
    if (reg == REGION_FACE) {
        group_hit(s, m->group[t], x, r, &h);
    } else if (reg < REGION_VERTEX) {
        int k = reg - REGION_EDGE;
        if (!edge_felt(m, t, k, x)) return n;
        point_hit(s, t, q, x, r, m->n_groups + s->edge_id[3 * t + k], &h);
    } else {
        int v = m->triangles[3 * t + reg - REGION_VERTEX];
        if (!vertex_felt(s, t, v, x)) return n;
        point_hit(s, t, q, x, r, m->n_groups + 3 * m->n_triangles + v, &h);
    }
    return add_hit(hits, n, &h);
}

/* The cell of x's foot on group g's plane, kept for the last group asked. */
static void foot_cell(const ndem_mesh_shape *s, int g, const double *x, int *cached, int cell[3])
{
    if (*cached == g) return;
    const double *pl = s->plane + 4 * g;
    double h = ndem_dot(pl, x) - pl[3], p[3];
    int c1[3];
    for (int k = 0; k < 3; k++) p[k] = x[k] - h * pl[k];
    cell_range(s, p, p, cell, c1);
    *cached = g;
}

static int mesh_collide(const ndem_geometry_def *g, const double *xw, double r, double margin,
                        ndem_geo_hit *hits)
{
    const ndem_mesh_shape *s = g->mesh;
    const ndem_mesh *m = s->mesh;
    double x[3] = {xw[0] - g->point[0], xw[1] - g->point[1], xw[2] - g->point[2]};
    double reach = r + margin, lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = x[k] - reach, hi[k] = x[k] + reach;
        /* nothing within reach outside the mesh's bounds */
        if (hi[k] < m->bounds_min[k] || lo[k] > m->bounds_max[k]) return 0;
    }
    int c0[3], c1[3], n = 0, foot_group = -1, foot[3] = {0, 0, 0};
    cell_range(s, lo, hi, c0, c1);
    for (int cz = c0[2]; cz <= c1[2]; cz++)
        for (int cy = c0[1]; cy <= c1[1]; cy++)
            for (int cx = c0[0]; cx <= c1[0]; cx++) {
                long cell = ((long)cz * s->dim[1] + cy) * s->dim[0] + cx;
                int cg = s->cell_group[cell];
                if (cg >= 0) {
                    foot_cell(s, cg, x, &foot_group, foot);
                    if (foot[0] != cx || foot[1] != cy || foot[2] != cz) continue;
                }
                for (int i = s->cell_start[cell]; i < s->cell_start[cell + 1]; i++) {
                    int t = s->cell_tri[i];
                    if (s->flat[t]) {
                        /* only its face counts, when x is right above it: take it in
                         * the cell of x's foot on its plane, which holds it then */
                        foot_cell(s, m->group[t], x, &foot_group, foot);
                        if (foot[0] != cx || foot[1] != cy || foot[2] != cz) continue;
                    } else {
                        /* in several of these cells: only in the first */
                        const int *t0 = s->tri_cell0 + 3 * t;
                        if (cx != (t0[0] > c0[0] ? t0[0] : c0[0]) ||
                            cy != (t0[1] > c0[1] ? t0[1] : c0[1]) ||
                            cz != (t0[2] > c0[2] ? t0[2] : c0[2]))
                            continue;
                    }
                    const double *bs = s->tri_sphere + 4 * t;
                    double e[3] = {x[0] - bs[0], x[1] - bs[1], x[2] - bs[2]}, far = reach + bs[3];
                    if (ndem_dot(e, e) > far * far) continue; /* cheap: most of the cell's */
                    if (s->flat[t]) {
                        /* x off the normal through the centre by more than the radius */
                        const double *pl = s->plane + 4 * m->group[t];
                        double en = ndem_dot(e, pl);
                        if (ndem_dot(e, e) - en * en > bs[3] * bs[3] * (1 + 1e-9)) continue;
                    }
                    n = triangle_hits(s, t, x, r, reach, hits, n);
                }
            }
    /* in feature order, as the contact keys are (contacts.h) */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && hits[j].feature < hits[j - 1].feature; j--) {
            ndem_geo_hit tmp = hits[j];
            hits[j] = hits[j - 1];
            hits[j - 1] = tmp;
        }
    return n;
}

int ndem_mesh_group_covers(const ndem_geometry_def *g, int group, const double *xw)
{
    const ndem_mesh_shape *s = g->mesh;
    const ndem_mesh *m = s->mesh;
    double x[3] = {xw[0] - g->point[0], xw[1] - g->point[1], xw[2] - g->point[2]};
    if (group < 0 || group >= m->n_groups) return 0;
    const double *pl = s->plane + 4 * group;
    double h = ndem_dot(pl, x) - pl[3], p[3];
    int c0[3], c1[3];
    for (int k = 0; k < 3; k++) p[k] = x[k] - h * pl[k];
    cell_range(s, p, p, c0, c1);
    long cell = ((long)c0[2] * s->dim[1] + c0[1]) * s->dim[0] + c0[0];
    for (int i = s->cell_start[cell]; i < s->cell_start[cell + 1]; i++) {
        int t = s->cell_tri[i];
        if (m->group[t] != group) continue;
        double q[3], d[3];
        closest_on_triangle(p, corner(m, t, 0), corner(m, t, 1), corner(m, t, 2), q);
        for (int k = 0; k < 3; k++) d[k] = q[k] - p[k];
        /* on the triangle, edges included (within rounding of its size) */
        if (ndem_dot(d, d) <= 1e-18 * s->tri_sphere[4 * t + 3] * s->tri_sphere[4 * t + 3]) return 1;
    }
    return 0;
}

static void mesh_bounds(const ndem_geometry_def *g, double *lo, double *hi)
{
    for (int k = 0; k < 3; k++) {
        lo[k] = g->mesh->mesh->bounds_min[k] + g->point[k];
        hi[k] = g->mesh->mesh->bounds_max[k] + g->point[k];
    }
}

/* The reference point is the mesh's `position` (moved along by translate)
 * and its orientation the document's: a keyframe places the mesh as its own
 * `position` and `orientation` would. */
static void mesh_reference(const ndem_geometry_def *g, double c[3], double q[4])
{
    for (int k = 0; k < 3; k++) c[k] = g->mesh->position[k] + g->point[k];
    for (int k = 0; k < 4; k++) q[k] = g->mesh->orientation[k];
}

static void mesh_translate(ndem_geometry_def *g, const double d[3])
{
    for (int k = 0; k < 3; k++) g->point[k] += d[k];
}

const ndem_geometry_ops ndem_geometry_mesh_ops = {
    .name = "mesh",
    .bounds = mesh_bounds,
    .collide = mesh_collide,
    .reference = mesh_reference,
    .translate = mesh_translate,
    .symmetric = NULL,
    .feature_hit = mesh_feature_hit,
};

/* ---- building the shape ---- */

/* Group planes: each group's first triangle (in index order) gives the
 * normal and the offset, so every face contact of a group uses one plane. */
static void group_planes(ndem_mesh_shape *s)
{
    const ndem_mesh *m = s->mesh;
    for (int g = 0; g < m->n_groups; g++) s->plane[4 * g + 3] = NAN;
    for (int t = 0; t < m->n_triangles; t++) {
        double *pl = s->plane + 4 * m->group[t];
        if (!isnan(pl[3])) continue;
        const double *a = corner(m, t, 0), *b = corner(m, t, 1), *c = corner(m, t, 2);
        double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, n[3];
        ndem_cross(ab, ac, n);
        double len = ndem_norm(n);
        for (int i = 0; i < 3; i++) pl[i] = n[i] / len;
        pl[3] = ndem_dot(pl, a);
    }
}

/* A bounding sphere per triangle (centroid, farthest corner), the first
 * and cheapest test of a candidate. */
static void triangle_spheres(ndem_mesh_shape *s)
{
    const ndem_mesh *m = s->mesh;
    for (int t = 0; t < m->n_triangles; t++) {
        double *bs = s->tri_sphere + 4 * t, r2 = 0;
        for (int i = 0; i < 3; i++)
            bs[i] = (corner(m, t, 0)[i] + corner(m, t, 1)[i] + corner(m, t, 2)[i]) / 3.0;
        for (int k = 0; k < 3; k++) {
            const double *p = corner(m, t, k);
            double d[3] = {p[0] - bs[0], p[1] - bs[1], p[2] - bs[2]};
            r2 = ndem_max(r2, ndem_dot(d, d));
        }
        bs[3] = sqrt(r2) * (1 + 1e-12); /* rounding never rejects a corner */
    }
}

/* A triangle is flat when its three edges join triangles of its own group
 * and each of its corners is surrounded by its group (no boundary, no other
 * group at the corner): no sphere ever feels such an edge or corner. */
static int flat_triangles(ndem_mesh_shape *s)
{
    const ndem_mesh *m = s->mesh;
    unsigned char *corner_flat = malloc((size_t)m->n_vertices);
    if (!corner_flat) return -1;
    memset(corner_flat, 1, (size_t)m->n_vertices);
    for (int e = 0; e < 3 * m->n_triangles; e++) {
        int u = m->neighbours[e];
        if (u >= 0 && m->group[u] == m->group[e / 3]) continue;
        corner_flat[m->triangles[e]] = 0;
        corner_flat[m->triangles[e / 3 * 3 + (e % 3 + 1) % 3]] = 0;
    }
    for (int t = 0; t < m->n_triangles; t++) {
        int f = 1;
        for (int k = 0; k < 3; k++) {
            int u = m->neighbours[3 * t + k];
            if (u < 0 || m->group[u] != m->group[t] || !corner_flat[m->triangles[3 * t + k]]) f = 0;
        }
        s->flat[t] = (unsigned char)f;
    }
    free(corner_flat);
    return 0;
}

/* The owner's half-edge of every half-edge; the fan of every vertex. */
static int tables(ndem_mesh_shape *s)
{
    const ndem_mesh *m = s->mesh;
    int nt = m->n_triangles, nv = m->n_vertices;
    for (int t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) {
            int o = m->edge_owner[3 * t + k], a = m->triangles[3 * t + k];
            int b = m->triangles[3 * t + (k + 1) % 3], id = 3 * o;
            for (int j = 0; j < 3; j++) {
                int p = m->triangles[3 * o + j], q = m->triangles[3 * o + (j + 1) % 3];
                if ((p == a && q == b) || (p == b && q == a)) id = 3 * o + j;
            }
            s->edge_id[3 * t + k] = id;
        }
    memset(s->fan_start, 0, (size_t)(nv + 1) * sizeof *s->fan_start);
    for (int i = 0; i < 3 * nt; i++) s->fan_start[m->triangles[i] + 1]++;
    for (int v = 0; v < nv; v++) s->fan_start[v + 1] += s->fan_start[v];
    int *fill = malloc((size_t)nv * sizeof *fill);
    if (!fill) return -1;
    memcpy(fill, s->fan_start, (size_t)nv * sizeof *fill);
    for (int i = 0; i < 3 * nt; i++) s->fan[fill[m->triangles[i]]++] = i / 3;
    free(fill);
    return 0;
}

/* A uniform grid over the mesh's bounds: cells about a triangle wide, at
 * most 2 per triangle, and coarser while triangles spanning many cells would
 * make the lists long (at most 16 entries per triangle on average). */
static int build_grid(ndem_mesh_shape *s)
{
    const ndem_mesh *m = s->mesh;
    int nt = m->n_triangles;
    double ext[3], mean = 0.0;
    for (int k = 0; k < 3; k++) ext[k] = m->bounds_max[k] - m->bounds_min[k];
    for (int t = 0; t < nt; t++) {
        double lo[3], hi[3];
        triangle_bounds(m, t, lo, hi);
        mean += ndem_max(hi[0] - lo[0], ndem_max(hi[1] - lo[1], hi[2] - lo[2])) / nt;
    }
    /* twice a triangle: most triangles then lie in one or two cells */
    double cell = ndem_max(2.0 * mean, 1e-9 * ndem_max(ndem_norm(ext), 1e-300));
    for (;;) {
        double cells = 1.0;
        for (int k = 0; k < 3; k++) {
            s->dim[k] = (int)ndem_min(ceil(ext[k] / cell), 1e6);
            if (s->dim[k] < 1) s->dim[k] = 1;
            cells *= s->dim[k];
        }
        s->cell = cell;
        for (int k = 0; k < 3; k++) s->grid_lo[k] = m->bounds_min[k];
        double entries = 0.0;
        for (int t = 0; t < nt && cells <= 2.0 * nt + 8; t++) {
            double lo[3], hi[3];
            int c0[3], c1[3];
            triangle_bounds(m, t, lo, hi);
            cell_range(s, lo, hi, c0, c1);
            entries += (double)(c1[0] - c0[0] + 1) * (c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1);
        }
        if (cells <= 2.0 * nt + 8 && entries <= 16.0 * nt + 1024) break;
        cell *= 1.26;
    }
    long cells = (long)s->dim[0] * s->dim[1] * s->dim[2];
    s->cell_start = calloc((size_t)cells + 1, sizeof *s->cell_start);
    if (!s->cell_start) return -1;
    for (int pass = 0; pass < 2; pass++) {
        for (int t = 0; t < nt; t++) {
            double lo[3], hi[3];
            int c0[3], c1[3];
            triangle_bounds(m, t, lo, hi);
            cell_range(s, lo, hi, c0, c1);
            for (int z = c0[2]; z <= c1[2]; z++)
                for (int y = c0[1]; y <= c1[1]; y++)
                    for (int x = c0[0]; x <= c1[0]; x++) {
                        long c = ((long)z * s->dim[1] + y) * s->dim[0] + x;
                        if (pass == 0) s->cell_start[c + 1]++;
                        else s->cell_tri[s->cell_start[c]++] = t;
                    }
            memcpy(s->tri_cell0 + 3 * t, c0, sizeof c0);
        }
        if (pass == 0) {
            for (long c = 0; c < cells; c++) s->cell_start[c + 1] += s->cell_start[c];
            s->cell_tri = malloc((size_t)s->cell_start[cells] * sizeof *s->cell_tri + 1);
            if (!s->cell_tri) return -1;
        }
    }
    /* the fill advanced every start to the next cell's: shift back */
    for (long c = cells; c > 0; c--) s->cell_start[c] = s->cell_start[c - 1];
    s->cell_start[0] = 0;
    s->cell_group = malloc((size_t)cells * sizeof *s->cell_group);
    if (!s->cell_group) return -1;
    for (long c = 0; c < cells; c++) {
        int g = -1;
        for (int i = s->cell_start[c]; i < s->cell_start[c + 1]; i++) {
            int t = s->cell_tri[i];
            if (!s->flat[t] || (g >= 0 && m->group[t] != g)) {
                g = -1;
                break;
            }
            g = m->group[t];
        }
        s->cell_group[c] = g;
    }
    return 0;
}

int ndem_mesh_shape_create(const ndem_mesh *src, const double position[3], const double q[4],
                           double scale, ndem_mesh_shape **out, char *err, size_t err_len)
{
    *out = NULL;
    ndem_mesh_shape *s = calloc(1, sizeof *s);
    if (!s) return ndem_fail(err, err_len, "out of memory placing a mesh");
    if (ndem_mesh_place(src, position, q, scale, &s->mesh, err, err_len) != 0) {
        free(s);
        return -1;
    }
    for (int k = 0; k < 3; k++) s->position[k] = position[k];
    for (int k = 0; k < 4; k++) s->orientation[k] = q[k];
    s->scale = scale;
    const ndem_mesh *m = s->mesh;
    s->plane = malloc(4 * (size_t)m->n_groups * sizeof *s->plane);
    s->edge_id = malloc(3 * (size_t)m->n_triangles * sizeof *s->edge_id);
    s->fan_start = malloc(((size_t)m->n_vertices + 1) * sizeof *s->fan_start);
    s->fan = malloc(3 * (size_t)m->n_triangles * sizeof *s->fan);
    s->tri_sphere = malloc(4 * (size_t)m->n_triangles * sizeof *s->tri_sphere);
    s->tri_cell0 = malloc(3 * (size_t)m->n_triangles * sizeof *s->tri_cell0);
    s->flat = malloc((size_t)m->n_triangles);
    if (!s->plane || !s->edge_id || !s->fan_start || !s->fan || !s->tri_sphere || !s->tri_cell0 ||
        !s->flat || tables(s) != 0 || flat_triangles(s) != 0 || build_grid(s) != 0) {
        ndem_mesh_shape_destroy(s);
        return ndem_fail(err, err_len, "out of memory building the contact tables of a mesh");
    }
    group_planes(s);
    triangle_spheres(s);
    s->feature_count = m->n_groups + 3 * m->n_triangles + m->n_vertices;
    uint64_t h = 1469598103934665603ULL;
    h = ndem_hash_bytes(h, m->vertices, 3 * sizeof(double) * (size_t)m->n_vertices);
    s->hash = ndem_hash_bytes(h, m->triangles, 3 * sizeof(int) * (size_t)m->n_triangles);
    *out = s;
    return 0;
}

void ndem_mesh_shape_destroy(ndem_mesh_shape *s)
{
    if (!s) return;
    ndem_mesh_destroy(s->mesh);
    ndem_mesh_destroy(s->source);
    free(s->plane), free(s->edge_id), free(s->fan_start), free(s->fan), free(s->tri_sphere);
    free(s->cell_start), free(s->cell_tri), free(s->tri_cell0), free(s->flat);
    free(s->cell_group);
    free(s);
}
