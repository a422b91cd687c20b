/* mesh.c - a triangle soup made into a mesh: weld, drop, topology, mass.
 *
 * Welding: a spatial hash of cubic cells at least twice the tolerance wide,
 * so every node within the tolerance of a corner lies in its cell or, per
 * axis, the one neighbour whose face is that close (1 to 8 cells); each
 * corner joins an earlier node within the tolerance (its own cell's first,
 * else a neighbour cell's), else starts a node (greedy, in soup order,
 * O(n)). Topology: the 3n half-edges
 * sorted by their node pair; each run of equal pairs is one edge. Mass:
 * D. Eberly, "Polyhedral Mass Properties (Revisited)" (2002), the
 * divergence theorem turning volume integrals of 1, x, .., xy into sums over
 * the faces (as B. Mirtich, J. Graphics Tools 1(2), 1996). */
#include "fail.h"
#include "mass_props.h"
#include "mesh.h"

#include "vec.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- welding ---- */

typedef struct weld_hash {
    size_t mask;    /* slots - 1, slots a power of two */
    int64_t *cells; /* 3 per slot */
    int *head;      /* first node in the slot's cell, -1: empty slot */
} weld_hash;

static uint64_t mix64(uint64_t x)
{ /* splitmix64's finaliser */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The slot of a cell: its own, or the empty one where it would go. */
static size_t weld_slot(const weld_hash *h, const int64_t c[3])
{
    uint64_t k = mix64((uint64_t)c[0] ^ mix64((uint64_t)c[1] ^ mix64((uint64_t)c[2])));
    size_t i = (size_t)k & h->mask;
    while (h->head[i] >= 0 &&
           (h->cells[3 * i] != c[0] || h->cells[3 * i + 1] != c[1] || h->cells[3 * i + 2] != c[2]))
        i = (i + 1) & h->mask;
    return i;
}

/* The first node of cell c within sqrt(tol2) of p, or -1. */
static int weld_find(const weld_hash *h, const int *next, const double *pos, const double *p,
                     const int64_t c[3], double tol2)
{
    for (int n = h->head[weld_slot(h, c)]; n >= 0; n = next[n]) {
        double e[3] = {p[0] - pos[3 * n], p[1] - pos[3 * n + 1], p[2] - pos[3 * n + 2]};
        if (ndem_dot(e, e) <= tol2) return n;
    }
    return -1;
}

/* node_of[c] for every corner; node positions (first corner's) in pos.
 * Returns the node count, or -1 when out of memory. */
static long weld(const double *soup, long n_corner, double tol, int *node_of, double *pos)
{
    double extent = 0.0;
    for (long i = 0; i < 3 * n_corner; i++) extent = ndem_max(extent, fabs(soup[i]));
    /* Cells at least 2 tol wide: a partner lies in the home cell or, per
     * axis, in the one neighbour whose face is within tol. At least extent
     * 2^-30: cell indices stay below 2^30, where p / cell is exact to 2^-22
     * of a cell, far inside the reach's slack. */
    double cell = ndem_max(2.0 * tol, ldexp(extent, -30));
    if (cell <= 0.0) cell = 1.0; /* every coordinate is 0 */
    weld_hash h;
    size_t slots = 16;
    while (slots < 2 * (size_t)n_corner) slots *= 2;
    h.mask = slots - 1;
    h.cells = malloc(3 * slots * sizeof *h.cells);
    h.head = malloc(slots * sizeof *h.head);
    int *next = malloc((size_t)n_corner * sizeof *next);
    if (!h.cells || !h.head || !next) {
        free(h.cells), free(h.head), free(next);
        return -1;
    }
    memset(h.head, 0xff, slots * sizeof *h.head);
    long n_node = 0;
    double tol2 = tol * tol;
    for (long c = 0; c < n_corner; c++) {
        const double *p = soup + 3 * c;
        int64_t home[3];
        int lo[3], hi[3]; /* neighbour offsets to search per axis */
        double reach = tol / cell + 1e-5;
        for (int a = 0; a < 3; a++) {
            double q = p[a] / cell, f = floor(q);
            home[a] = (int64_t)f;
            lo[a] = q - f <= reach ? -1 : 0;
            hi[a] = f + 1.0 - q <= reach ? 1 : 0;
        }
        int found = weld_find(&h, next, pos, p, home, tol2);
        for (int dx = lo[0]; dx <= hi[0] && found < 0; dx++)
            for (int dy = lo[1]; dy <= hi[1] && found < 0; dy++)
                for (int dz = lo[2]; dz <= hi[2] && found < 0; dz++) {
                    int64_t c3[3] = {home[0] + dx, home[1] + dy, home[2] + dz};
                    if (dx || dy || dz) found = weld_find(&h, next, pos, p, c3, tol2);
                }
        if (found < 0) {
            found = (int)n_node++;
            memcpy(pos + 3 * found, p, 3 * sizeof *p);
            size_t s = weld_slot(&h, home);
            if (h.head[s] < 0) memcpy(h.cells + 3 * s, home, sizeof home);
            next[found] = h.head[s];
            h.head[s] = found;
        }
        node_of[c] = found;
    }
    free(h.cells), free(h.head), free(next);
    return n_node;
}

/* ---- sorting keys: duplicates and edges ---- */

typedef struct key3 {
    int a, b, c; /* sorted node ids (edges: c = -1) */
    int id;      /* triangle, or half-edge 3 t + k */
} key3;

static int key3_cmp(const void *pa, const void *pb)
{
    const key3 *x = pa, *y = pb;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    if (x->c != y->c) return x->c < y->c ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static key3 sorted3(int a, int b, int c, int id)
{
    int t;
    if (a > b) t = a, a = b, b = t;
    if (b > c) t = b, b = c, c = t;
    if (a > b) t = a, a = b, b = t;
    return (key3){a, b, c, id};
}

/* ---- topology ---- */

static int topology(ndem_mesh *m)
{
    int nt = m->n_triangles;
    key3 *h = malloc(3 * (size_t)nt * sizeof *h);
    if (!h) return -1;
    for (int t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) {
            int a = m->triangles[3 * t + k], b = m->triangles[3 * t + (k + 1) % 3];
            h[3 * t + k] = (key3){a < b ? a : b, a < b ? b : a, -1, 3 * t + k};
        }
    qsort(h, 3 * (size_t)nt, sizeof *h, key3_cmp);
    m->boundary_edges = m->non_manifold_edges = 0;
    m->oriented = 1;
    for (size_t i = 0, j; i < 3 * (size_t)nt; i = j) {
        for (j = i + 1; j < 3 * (size_t)nt && h[j].a == h[i].a && h[j].b == h[i].b;) j++;
        int owner = h[i].id / 3; /* lowest triangle: ids sort within a run */
        for (size_t e = i; e < j; e++) m->edge_owner[h[e].id] = owner;
        if (j - i == 1) {
            m->neighbours[h[i].id] = -1;
            m->boundary_edges++;
        } else if (j - i == 2) {
            m->neighbours[h[i].id] = h[i + 1].id / 3;
            m->neighbours[h[i + 1].id] = h[i].id / 3;
            /* consistent orientation: the two walk the edge in opposite ways */
            if ((m->triangles[h[i].id] == h[i].a) == (m->triangles[h[i + 1].id] == h[i].a))
                m->oriented = 0;
        } else {
            for (size_t e = i; e < j; e++) m->neighbours[h[e].id] = NDEM_MESH_NON_MANIFOLD;
            m->non_manifold_edges++;
        }
    }
    free(h);
    m->closed = m->boundary_edges == 0 && m->non_manifold_edges == 0;
    for (int v = 0; v < m->n_vertices; v++) m->vertex_owner[v] = -1;
    for (int i = 0; i < 3 * nt; i++)
        if (m->vertex_owner[m->triangles[i]] < 0) m->vertex_owner[m->triangles[i]] = i / 3;
    return 0;
}

static void corners(const ndem_mesh *m, int t, const double *p[3])
{
    for (int k = 0; k < 3; k++) p[k] = m->vertices + 3 * m->triangles[3 * t + k];
}

/* Unnormalised normal (p1 - p0) x (p2 - p0), twice the area long. */
static void face_normal(const double *p[3], double n[3])
{
    double a[3], b[3];
    for (int i = 0; i < 3; i++) a[i] = p[1][i] - p[0][i], b[i] = p[2][i] - p[0][i];
    ndem_cross(a, b, n);
}

/* Flood fill over manifold edges; a group keeps its seed's plane, so a gently
 * curved surface does not drift into one group a small angle at a time. */
static int coplanar_groups(ndem_mesh *m)
{
    int nt = m->n_triangles;
    int *stack = malloc((size_t)nt * sizeof *stack);
    if (!stack) return -1;
    double d[3];
    for (int i = 0; i < 3; i++) d[i] = m->bounds_max[i] - m->bounds_min[i];
    double dist_tol = NDEM_MESH_PLANE_TOLERANCE * ndem_norm(d);
    for (int t = 0; t < nt; t++) m->group[t] = -1;
    m->n_groups = 0;
    for (int seed = 0; seed < nt; seed++) {
        if (m->group[seed] >= 0) continue;
        const double *p[3];
        double n0[3];
        corners(m, seed, p);
        face_normal(p, n0);
        double len = ndem_norm(n0);
        for (int i = 0; i < 3; i++) n0[i] /= len; /* len > 0: no degenerate is kept */
        double ps[3] = {p[0][0], p[0][1], p[0][2]};
        int top = 0, g = m->n_groups++;
        m->group[seed] = g;
        stack[top++] = seed;
        while (top > 0) {
            int t = stack[--top];
            for (int k = 0; k < 3; k++) {
                int u = m->neighbours[3 * t + k];
                if (u < 0 || m->group[u] >= 0) continue;
                double n[3];
                corners(m, u, p);
                face_normal(p, n);
                if (1.0 - ndem_dot(n, n0) / ndem_norm(n) > NDEM_MESH_COPLANAR_COS) continue;
                int in_plane = 1;
                for (int c = 0; c < 3; c++) {
                    double e[3] = {p[c][0] - ps[0], p[c][1] - ps[1], p[c][2] - ps[2]};
                    if (fabs(ndem_dot(n0, e)) > dist_tol) in_plane = 0;
                }
                if (!in_plane) continue;
                m->group[u] = g;
                stack[top++] = u;
            }
        }
    }
    free(stack);
    return 0;
}

/* ---- mass properties (Eberly 2002) ---- */

/* Volume, centroid and unit-density inertia about the centroid. The origin
 * moves to the box centre first: far from 0 the integrals of x^2 would
 * cancel digits. */
static void mass_properties(ndem_mesh *m)
{
    double o[3], in[10] = {0};
    for (int i = 0; i < 3; i++) o[i] = 0.5 * (m->bounds_min[i] + m->bounds_max[i]);
    for (int t = 0; t < m->n_triangles; t++) {
        const double *p[3];
        double q[3][3];
        corners(m, t, p);
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 3; i++) q[k][i] = p[k][i] - o[i];
        ndem_volume_integrals_add(in, q[0], q[1], q[2]);
    }
    ndem_volume_integrals_finish(in);
    double v = in[0], d[3];
    for (int i = 0; i < 3; i++) d[i] = m->bounds_max[i] - m->bounds_min[i];
    /* closed and oriented yet flat: the sums cancel to rounding noise, and
     * centroid = noise / noise; no inside */
    double diag = ndem_norm(d);
    if (fabs(v) <= NDEM_MESH_FLAT_VOLUME * diag * diag * diag) v = 0.0;
    m->volume = v;
    if (v == 0.0) return;
    double c[3] = {in[1] / v, in[2] / v, in[3] / v};
    for (int i = 0; i < 3; i++) m->centroid[i] = c[i] + o[i];
    double *I = m->inertia;
    I[0] = in[5] + in[6] - v * (c[1] * c[1] + c[2] * c[2]);
    I[4] = in[4] + in[6] - v * (c[2] * c[2] + c[0] * c[0]);
    I[8] = in[4] + in[5] - v * (c[0] * c[0] + c[1] * c[1]);
    I[1] = I[3] = -(in[7] - v * c[0] * c[1]);
    I[5] = I[7] = -(in[8] - v * c[1] * c[2]);
    I[2] = I[6] = -(in[9] - v * c[2] * c[0]);
}

/* ---- build ---- */

static ndem_mesh *mesh_alloc(int nv, int nt)
{
    ndem_mesh *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->n_vertices = nv;
    m->n_triangles = nt;
    m->vertices = malloc(3 * (size_t)nv * sizeof *m->vertices);
    m->triangles = malloc(3 * (size_t)nt * sizeof *m->triangles);
    m->neighbours = malloc(3 * (size_t)nt * sizeof *m->neighbours);
    m->edge_owner = malloc(3 * (size_t)nt * sizeof *m->edge_owner);
    m->vertex_owner = malloc((size_t)nv * sizeof *m->vertex_owner);
    m->group = malloc((size_t)nt * sizeof *m->group);
    if (!m->vertices || !m->triangles || !m->neighbours || !m->edge_owner || !m->vertex_owner ||
        !m->group) {
        ndem_mesh_destroy(m);
        return NULL;
    }
    return m;
}

/* Marks degenerate (keep 0) and duplicate (keep 0) triangles of the welded
 * soup; counts both in the report. Returns -1 when out of memory. */
static int drop_bad(const int *node_of, const double *pos, long n_tri, unsigned char *keep,
                    ndem_mesh_report *r)
{
    key3 *keys = malloc((size_t)n_tri * sizeof *keys);
    if (!keys) return -1;
    long n_keys = 0;
    for (long t = 0; t < n_tri; t++) {
        const int *v = node_of + 3 * t;
        keep[t] = 0;
        if (v[0] == v[1] || v[1] == v[2] || v[2] == v[0]) {
            r->degenerate++;
            continue;
        }
        const double *p[3] = {pos + 3 * v[0], pos + 3 * v[1], pos + 3 * v[2]};
        double n[3], e[3], sum = 0.0;
        face_normal(p, n);
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < 3; i++) e[i] = p[(k + 1) % 3][i] - p[k][i];
            sum += ndem_dot(e, e);
        }
        double a2 = ndem_norm(n); /* 0 also when products underflow */
        if (!(a2 > 0.0 && a2 >= NDEM_MESH_DEGENERATE_RATIO * sum)) {
            r->degenerate++;
            continue;
        }
        keep[t] = 1;
        keys[n_keys++] = sorted3(v[0], v[1], v[2], (int)t);
    }
    qsort(keys, (size_t)n_keys, sizeof *keys, key3_cmp);
    for (long i = 1; i < n_keys; i++)
        if (keys[i].a == keys[i - 1].a && keys[i].b == keys[i - 1].b &&
            keys[i].c == keys[i - 1].c) {
            keep[keys[i].id] = 0; /* the lowest index of a set stays */
            r->duplicate++;
        }
    free(keys);
    return 0;
}

/* Everything after the triangles and vertices are set. */
static int finish(ndem_mesh *m, ndem_mesh_report *r)
{
    for (int i = 0; i < 3; i++) m->bounds_min[i] = INFINITY, m->bounds_max[i] = -INFINITY;
    for (int v = 0; v < m->n_vertices; v++)
        for (int i = 0; i < 3; i++) {
            m->bounds_min[i] = ndem_min(m->bounds_min[i], m->vertices[3 * v + i]);
            m->bounds_max[i] = ndem_max(m->bounds_max[i], m->vertices[3 * v + i]);
        }
    m->area = 0.0;
    for (int t = 0; t < m->n_triangles; t++) {
        const double *p[3];
        double n[3];
        corners(m, t, p);
        face_normal(p, n);
        m->area += 0.5 * ndem_norm(n);
    }
    if (topology(m) != 0) return -1;
    if (m->closed && m->oriented) {
        mass_properties(m);
        if (m->volume < 0.0) { /* inside out: reverse every triangle */
            for (int t = 0; t < m->n_triangles; t++) {
                int s = m->triangles[3 * t + 1];
                m->triangles[3 * t + 1] = m->triangles[3 * t + 2];
                m->triangles[3 * t + 2] = s;
            }
            r->flipped = 1;
            if (topology(m) != 0) return -1;
            mass_properties(m);
        }
    }
    return coplanar_groups(m);
}

int ndem_mesh_build(const double *soup, long n_tri, double weld_tolerance, ndem_mesh **out,
                    ndem_mesh_report *report, char *err, size_t err_len)
{
    ndem_mesh_report r = {.input_triangles = n_tri};
    *out = NULL;
    if (report) *report = r;
    if (n_tri <= 0) return ndem_fail(err, err_len, "the mesh has no triangles");
    if (n_tri > NDEM_MESH_MAX_TRIANGLES)
        return ndem_fail(err, err_len, "%ld triangles: more than the limit of %ld", n_tri,
                         NDEM_MESH_MAX_TRIANGLES);
    if (!(weld_tolerance >= 0.0 && weld_tolerance <= NDEM_MESH_MAX_COORD))
        return ndem_fail(err, err_len, "weld tolerance %g: must be between 0 and %g",
                         weld_tolerance, NDEM_MESH_MAX_COORD);
    for (long i = 0; i < 9 * n_tri; i++) {
        if (!isfinite(soup[i]))
            return ndem_fail(err, err_len, "triangle %ld, vertex %ld: coordinate is not finite",
                             i / 9, i % 9 / 3);
        if (fabs(soup[i]) > NDEM_MESH_MAX_COORD)
            return ndem_fail(err, err_len, "triangle %ld, vertex %ld: coordinate %g is beyond +-%g",
                             i / 9, i % 9 / 3, soup[i], NDEM_MESH_MAX_COORD);
    }
    int *node_of = malloc(3 * (size_t)n_tri * sizeof *node_of);
    double *pos = malloc(9 * (size_t)n_tri * sizeof *pos);
    unsigned char *keep = malloc((size_t)n_tri);
    int *renum = NULL;
    ndem_mesh *m = NULL;
    long n_node = -1;
    if (node_of && pos && keep) n_node = weld(soup, 3 * n_tri, weld_tolerance, node_of, pos);
    if (n_node < 0 || drop_bad(node_of, pos, n_tri, keep, &r) != 0) goto oom;
    r.merged_nodes = 3 * n_tri - n_node;
    if (report) *report = r;
    long nt = n_tri - r.degenerate - r.duplicate;
    if (nt == 0) {
        free(node_of), free(pos), free(keep);
        return ndem_fail(err, err_len, "no triangle left: %ld degenerate and %ld duplicate dropped",
                         r.degenerate, r.duplicate);
    }
    /* renumber the nodes that kept triangles use, in node order */
    renum = malloc((size_t)n_node * sizeof *renum);
    if (!renum) goto oom;
    for (long v = 0; v < n_node; v++) renum[v] = -1;
    for (long t = 0; t < n_tri; t++)
        if (keep[t])
            for (int k = 0; k < 3; k++) renum[node_of[3 * t + k]] = 0;
    int nv = 0;
    for (long v = 0; v < n_node; v++)
        if (renum[v] == 0) renum[v] = nv++;
    m = mesh_alloc(nv, (int)nt);
    if (!m) goto oom;
    for (long v = 0; v < n_node; v++)
        if (renum[v] >= 0) memcpy(m->vertices + 3 * renum[v], pos + 3 * v, 3 * sizeof *pos);
    int t_out = 0;
    for (long t = 0; t < n_tri; t++)
        if (keep[t]) {
            for (int k = 0; k < 3; k++) m->triangles[3 * t_out + k] = renum[node_of[3 * t + k]];
            t_out++;
        }
    free(node_of), free(pos), free(keep), free(renum);
    node_of = renum = NULL, pos = NULL, keep = NULL;
    if (finish(m, &r) != 0) goto oom;
    if (report) *report = r;
    *out = m;
    return 0;
oom:
    free(node_of), free(pos), free(keep), free(renum);
    ndem_mesh_destroy(m);
    return ndem_fail(err, err_len, "out of memory building a mesh of %ld triangles", n_tri);
}

int ndem_mesh_place(const ndem_mesh *src, const double position[3], const double q[4], double scale,
                    ndem_mesh **out, char *err, size_t err_len)
{
    *out = NULL;
    ndem_mesh *m = mesh_alloc(src->n_vertices, src->n_triangles);
    ndem_mesh_report r = {.input_triangles = src->n_triangles};
    if (!m) return ndem_fail(err, err_len, "out of memory placing a mesh");
    /* rotation matrix of the unit quaternion [w, x, y, z] */
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                   2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    for (int v = 0; v < m->n_vertices; v++) {
        const double *p = src->vertices + 3 * v;
        for (int i = 0; i < 3; i++)
            m->vertices[3 * v + i] =
                position[i] + scale * (R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2]);
    }
    memcpy(m->triangles, src->triangles, 3 * (size_t)m->n_triangles * sizeof *m->triangles);
    if (finish(m, &r) != 0) {
        ndem_mesh_destroy(m);
        return ndem_fail(err, err_len, "out of memory placing a mesh");
    }
    *out = m;
    return 0;
}

int ndem_mesh_mass_properties(const ndem_mesh *m, double density, double *mass, double inertia[9])
{
    if (!m->closed || !m->oriented || m->volume == 0.0) return -1;
    *mass = density * m->volume;
    for (int i = 0; i < 9; i++) inertia[i] = density * m->inertia[i];
    return 0;
}

void ndem_mesh_destroy(ndem_mesh *m)
{
    if (!m) return;
    free(m->vertices), free(m->triangles), free(m->neighbours);
    free(m->edge_owner), free(m->vertex_owner), free(m->group);
    free(m);
}
