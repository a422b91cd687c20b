/* shape.c - particle shape templates (shape.h). A polyhedron is the convex
 * hull of its points by qhull (reentrant libqhull_r), which merges coplanar
 * facets into polygons (its default 'C-0 Qx' in 3-d); each face's vertices
 * are then put in counter-clockwise order about its outward normal, and the
 * edges matched between the two faces that share them. */
#include "shape.h"
#include "vec.h"

#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[NDEM_SHAPE_TYPES] = {"sphere", "clump", "polyhedron",
                                                         "compound"};

const char *ndem_shape_type_name(ndem_shape_type type)
{
    return type >= 0 && type < NDEM_SHAPE_TYPES ? type_names[type] : "unknown";
}

static int check_radius(double radius, char *err, size_t err_len)
{
    if (radius > 0.0 && isfinite(radius)) return 0;
    snprintf(err, err_len, "radius must be finite and > 0 (got %g)", radius);
    return -1;
}

int ndem_shape_sphere(double radius, ndem_shape *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (check_radius(radius, err, err_len)) return -1;
    out->type = NDEM_SHAPE_SPHERE;
    out->radius = radius;
    double v = 4.0 / 3.0 * M_PI * radius * radius * radius;
    out->mass.volume = v;
    for (int a = 0; a < 3; a++) out->mass.inertia[4 * a] = 0.4 * v * radius * radius;
    return 0;
}

int ndem_shape_clump(const double *spheres, int count, double radius, ndem_shape *out, char *err,
                     size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (check_radius(radius, err, err_len)) return -1;
    if (count < 1) {
        snprintf(err, err_len, "a clump needs at least one sphere");
        return -1;
    }
    double reach = 0.0;
    for (int i = 0; i < count; i++) {
        const double *p = spheres + 4 * i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]) || !(p[3] > 0.0) ||
            !isfinite(p[3])) {
            snprintf(err, err_len, "sphere %d: finite centre and a radius > 0 expected", i);
            return -1;
        }
        reach = ndem_max(reach, ndem_norm(p) + p[3]);
    }
    out->spheres = malloc(4 * (size_t)count * sizeof *out->spheres);
    if (!out->spheres) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    double s = radius / reach;
    for (int i = 0; i < 4 * count; i++) out->spheres[i] = s * spheres[i];
    out->type = NDEM_SHAPE_CLUMP;
    out->n_spheres = count;
    out->radius = radius;
    if (ndem_mass_props_clump(out->spheres, count, &out->mass, err, err_len)) {
        ndem_shape_clear(out);
        return -1;
    }
    return 0;
}

/* ---- polyhedron ---- */

/* The hull's faces as qhull gives them: a vertex set per facet (point ids),
 * the outward unit normal and offset (n . x + offset = 0). */
typedef struct hull_raw {
    int n_faces, n_loop;
    int *loop_start, *loop; /* point ids, unordered */
    double *normal, *offset;
} hull_raw;

static void hull_raw_free(hull_raw *h)
{
    free(h->loop_start);
    free(h->loop);
    free(h->normal);
    free(h->offset);
}

/* First line of what qhull wrote to its error stream. */
static void qhull_message(char *buf, size_t len, char *err, size_t err_len)
{
    const char *text = buf && len ? buf : "unknown qhull error";
    size_t n = strcspn(text, "\n");
    snprintf(err, err_len, "the points span no solid (qhull: %.*s)", (int)ndem_min((double)n, 200),
             text);
}

static int run_qhull(double *pts, int count, hull_raw *h, char *err, size_t err_len)
{
    char *ebuf = NULL;
    size_t elen = 0;
    FILE *errfile = open_memstream(&ebuf, &elen);
    if (!errfile) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    qhT qh_qh;
    qhT *qh = &qh_qh;
    char cmd[] = "qhull";
    qh_zero(qh, errfile);
    int rc = qh_new_qhull(qh, 3, count, pts, False, cmd, NULL, errfile);
    int fail = 0;
    if (rc == 0) {
        /* qhull's FORALLfacets and FOREACHvertex_ written out (cppcheck
         * reads no system headers) */
        int nf = 0, nl = 0;
        for (facetT *facet = qh->facet_list; facet && facet->next; facet = facet->next) {
            nf++;
            nl += qh_setsize(qh, facet->vertices);
        }
        h->n_faces = nf;
        h->n_loop = nl;
        h->loop_start = malloc((size_t)(nf + 1) * sizeof *h->loop_start);
        h->loop = malloc((size_t)nl * sizeof *h->loop);
        h->normal = malloc(3 * (size_t)nf * sizeof *h->normal);
        h->offset = malloc((size_t)nf * sizeof *h->offset);
        if (!h->loop_start || !h->loop || !h->normal || !h->offset) {
            snprintf(err, err_len, "out of memory");
            fail = 1;
        } else {
            int f = 0, k = 0;
            for (facetT *facet = qh->facet_list; facet && facet->next; facet = facet->next) {
                h->loop_start[f] = k;
                for (int a = 0; a < 3; a++) h->normal[3 * f + a] = facet->normal[a];
                h->offset[f] = facet->offset;
                int m = qh_setsize(qh, facet->vertices);
                for (int i = 0; i < m; i++) {
                    const vertexT *vertex = facet->vertices->e[i].p;
                    h->loop[k++] = qh_pointid(qh, vertex->point);
                }
                f++;
            }
            h->loop_start[f] = k;
        }
    }
    qh_freeqhull(qh, !qh_ALL);
    int curlong, totlong;
    qh_memfreeshort(qh, &curlong, &totlong);
    fclose(errfile);
    if (rc != 0) qhull_message(ebuf, elen, err, err_len);
    free(ebuf);
    return rc != 0 || fail ? -1 : 0;
}

/* Sorts the loop's vertices counter-clockwise about the unit normal n
 * (seen from outside): by angle in the plane's basis t1, t2 (t1 x t2 = n). */
static void sort_loop(int *loop, int m, const double *pts, const double *n)
{
    double c[3] = {0, 0, 0}, t1[3], t2[3], ang[NDEM_FACE_MAX];
    for (int i = 0; i < m; i++)
        for (int a = 0; a < 3; a++) c[a] += pts[3 * loop[i] + a] / m;
    ndem_tangents(n, t1, t2);
    for (int i = 0; i < m; i++) {
        double d[3];
        for (int a = 0; a < 3; a++) d[a] = pts[3 * loop[i] + a] - c[a];
        ang[i] = atan2(ndem_dot(d, t2), ndem_dot(d, t1));
    }
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && ang[j] < ang[j - 1]; j--) {
            double ta = ang[j];
            ang[j] = ang[j - 1];
            ang[j - 1] = ta;
            int tl = loop[j];
            loop[j] = loop[j - 1];
            loop[j - 1] = tl;
        }
}

static void polyhedron_free(ndem_polyhedron *p)
{
    free(p->vertices);
    free(p->face_start);
    free(p->face_vertices);
    free(p->face_normal);
    free(p->face_d);
    free(p->edges);
    free(p->edge_faces);
    free(p->face_edge);
    memset(p, 0, sizeof *p);
}

/* Edges from the face loops: each directed pair a -> b of one face meets
 * b -> a of another. */
static int match_edges(ndem_polyhedron *p, char *err, size_t err_len)
{
    int half = p->face_start[p->n_faces];
    if (half % 2) {
        snprintf(err, err_len, "the hull is not closed");
        return -1;
    }
    p->edges = malloc((size_t)half * sizeof *p->edges);
    p->edge_faces = malloc((size_t)half * sizeof *p->edge_faces);
    p->face_edge = malloc((size_t)half * sizeof *p->face_edge);
    if (!p->edges || !p->edge_faces || !p->face_edge) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    int ne = 0;
    for (int f = 0; f < p->n_faces; f++) {
        int s = p->face_start[f], m = p->face_start[f + 1] - s;
        for (int i = 0; i < m; i++) {
            int a = p->face_vertices[s + i], b = p->face_vertices[s + (i + 1) % m];
            int found = -1;
            for (int e = 0; e < ne && found < 0; e++)
                if (p->edges[2 * e] == b && p->edges[2 * e + 1] == a) found = e;
            if (found >= 0) {
                p->edge_faces[2 * found + 1] = f;
                p->face_edge[s + i] = found;
            } else {
                if (ne == half / 2) {
                    snprintf(err, err_len, "the hull is not a closed polyhedron");
                    return -1;
                }
                p->edges[2 * ne] = a;
                p->edges[2 * ne + 1] = b;
                p->edge_faces[2 * ne] = f;
                p->edge_faces[2 * ne + 1] = -1;
                p->face_edge[s + i] = ne;
                ne++;
            }
        }
    }
    p->n_edges = ne;
    for (int e = 0; e < ne; e++)
        if (p->edge_faces[2 * e + 1] < 0) {
            snprintf(err, err_len, "the hull is not a closed polyhedron");
            return -1;
        }
    /* Euler: a convex polyhedron has V - E + F = 2 */
    if (p->n_vertices - ne + p->n_faces != 2) {
        snprintf(err, err_len, "the hull is not a convex polyhedron (V - E + F = %d)",
                 p->n_vertices - ne + p->n_faces);
        return -1;
    }
    return 0;
}

/* The polyhedron from qhull's facets: hull vertices renumbered, loops
 * sorted, normals and planes kept. */
static int build_polyhedron(const double *pts, int count, const hull_raw *h, ndem_polyhedron *p,
                            char *err, size_t err_len)
{
    int *id = malloc((size_t)count * sizeof *id);
    p->face_start = malloc((size_t)(h->n_faces + 1) * sizeof *p->face_start);
    p->face_vertices = malloc((size_t)h->n_loop * sizeof *p->face_vertices);
    p->face_normal = malloc(3 * (size_t)h->n_faces * sizeof *p->face_normal);
    p->face_d = malloc((size_t)h->n_faces * sizeof *p->face_d);
    p->vertices = malloc(3 * (size_t)count * sizeof *p->vertices);
    if (!id || !p->face_start || !p->face_vertices || !p->face_normal || !p->face_d ||
        !p->vertices) {
        free(id);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    for (int i = 0; i < count; i++) id[i] = -1;
    int nv = 0;
    for (int k = 0; k < h->n_loop; k++) {
        int q = h->loop[k];
        if (id[q] >= 0) continue;
        id[q] = nv;
        memcpy(p->vertices + 3 * nv, pts + 3 * q, 3 * sizeof *pts);
        nv++;
    }
    p->n_vertices = nv;
    p->n_faces = h->n_faces;
    for (int f = 0; f <= h->n_faces; f++) p->face_start[f] = h->loop_start[f];
    for (int k = 0; k < h->n_loop; k++) p->face_vertices[k] = id[h->loop[k]];
    free(id);
    for (int f = 0; f < h->n_faces; f++) {
        double *n = p->face_normal + 3 * f;
        memcpy(n, h->normal + 3 * f, 3 * sizeof *n);
        p->face_d[f] = -h->offset[f];
        int s = p->face_start[f], m = p->face_start[f + 1] - s;
        if (m > NDEM_FACE_MAX) {
            snprintf(err, err_len, "a hull face has %d vertices (%d at most)", m, NDEM_FACE_MAX);
            return -1;
        }
        sort_loop(p->face_vertices + s, m, p->vertices, n);
    }
    return match_edges(p, err, err_len);
}

/* Mass properties: each face a fan of triangles. */
static int polyhedron_mass(const ndem_polyhedron *p, ndem_mass_props *mass, char *err,
                           size_t err_len)
{
    int nt = p->face_start[p->n_faces] - 2 * p->n_faces;
    int *tri = malloc(3 * (size_t)nt * sizeof *tri), k = 0;
    if (!tri) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    for (int f = 0; f < p->n_faces; f++) {
        const int *l = p->face_vertices + p->face_start[f];
        int m = p->face_start[f + 1] - p->face_start[f];
        for (int i = 1; i + 1 < m; i++) {
            tri[3 * k] = l[0], tri[3 * k + 1] = l[i], tri[3 * k + 2] = l[i + 1];
            k++;
        }
    }
    int rc = ndem_mass_props_mesh(p->vertices, p->n_vertices, tri, nt, mass, err, err_len);
    free(tri);
    return rc;
}

int ndem_shape_polyhedron(const double *points, int count, double radius, ndem_shape *out,
                          char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (check_radius(radius, err, err_len)) return -1;
    if (count < 4) {
        snprintf(err, err_len, "a polyhedron needs at least 4 points (got %d)", count);
        return -1;
    }
    double reach = 0.0;
    for (int i = 0; i < count; i++) {
        const double *q = points + 3 * i;
        if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2])) {
            snprintf(err, err_len, "point %d is not finite", i);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (q[0] == points[3 * j] && q[1] == points[3 * j + 1] && q[2] == points[3 * j + 2]) {
                snprintf(err, err_len, "points %d and %d are the same", j, i);
                return -1;
            }
        reach = ndem_max(reach, ndem_norm(q));
    }
    double *pts = malloc(3 * (size_t)count * sizeof *pts), s = radius / reach;
    if (!pts) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    for (int i = 0; i < 3 * count; i++) pts[i] = s * points[i];
    hull_raw h = {0};
    out->type = NDEM_SHAPE_POLYHEDRON;
    out->radius = radius;
    int rc = run_qhull(pts, count, &h, err, err_len);
    if (rc == 0) rc = build_polyhedron(pts, count, &h, &out->poly, err, err_len);
    if (rc == 0) rc = polyhedron_mass(&out->poly, &out->mass, err, err_len);
    hull_raw_free(&h);
    free(pts);
    if (rc) ndem_shape_clear(out);
    return rc;
}

void ndem_shape_clear(ndem_shape *s)
{
    for (int k = 0; k < s->n_pieces; k++) ndem_shape_clear(&s->pieces[k]);
    free(s->pieces);
    free(s->spheres);
    polyhedron_free(&s->poly);
    memset(s, 0, sizeof *s);
}

int ndem_polyhedron_support(const ndem_polyhedron *p, const double dir[3])
{
    int best = 0;
    double bd = ndem_dot(p->vertices, dir);
    for (int i = 1; i < p->n_vertices; i++) {
        double d = ndem_dot(p->vertices + 3 * i, dir);
        if (d > bd) bd = d, best = i;
    }
    return best;
}

/* ---- the table ---- */

ndem_shape_table *ndem_shape_table_create(void) { return calloc(1, sizeof(ndem_shape_table)); }

void ndem_shape_table_destroy(ndem_shape_table *t)
{
    if (!t) return;
    for (int i = 0; i < t->count; i++) ndem_shape_clear(&t->shapes[i]);
    free(t->shapes);
    free(t);
}

int ndem_shape_table_add(ndem_shape_table *t, ndem_shape *s)
{
    if (t->count == t->capacity) {
        int cap = t->capacity ? 2 * t->capacity : 4;
        ndem_shape *grown = realloc(t->shapes, (size_t)cap * sizeof *grown);
        if (!grown) {
            ndem_shape_clear(s);
            return -1;
        }
        t->shapes = grown;
        t->capacity = cap;
    }
    t->shapes[t->count] = *s;
    memset(s, 0, sizeof *s);
    return t->count++;
}

const ndem_shape *ndem_shape_table_get(const ndem_shape_table *t, int index)
{
    return index >= 0 && index < t->count ? &t->shapes[index] : NULL;
}

int ndem_shapes_geometry_refused(ndem_method method, const ndem_geometry_def *geometry, int count,
                                 char *why, size_t len)
{
    if (method != NDEM_METHOD_NDEM) return 0; /* smooth DEM: every geometry type */
    for (int g = 0; g < count; g++) {
        const ndem_geometry_def *geo = &geometry[g];
        if (geo->walls.enabled || geo->dynamic.enabled) {
            /* NDEM solves walls and dynamic bodies through proxy rows
             * (rigid.c), which the general rows do not feed yet */
            snprintf(why, len,
                     "shaped particles meet walls and dynamic geometry under \"method\": \"dem\" "
                     "only in this version; /scene/geometry/%d has %s (docs/shapes.md)",
                     g, geo->walls.enabled ? "walls" : "\"dynamic\"");
            return 1;
        }
    }
    return 0;
}
