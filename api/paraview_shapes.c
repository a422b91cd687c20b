/* paraview_shapes.c - non-spherical particles as VTK XML PolyData
 * (paraview.h: ndem_shapes_to_vtp; docs/frames.md, "ParaView"): each
 * particle's template, scaled by its radius, turned by its orientation and
 * moved to its position, as polygons, so that ParaView draws them as they
 * are without a filter. A polyhedron is its hull's faces (a compound its
 * pieces' hulls); a clump is its
 * member spheres, each a coarse latitude-longitude polyhedron. */
#include "paraview.h"

#include "jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A member sphere: SEGMENTS around, STACKS from pole to pole. */
#define SEGMENTS 8
#define STACKS 4

typedef struct buffer {
    ndem_jw pts, conn, offs, ids, kinds;
    long n_pts, n_polys, n_idx;
} buffer;

static void put_long(ndem_jw *w, long v)
{
    char num[32];
    int k = snprintf(num, sizeof num, " %ld", v);
    ndem_jw_raw(w, num, (size_t)k);
}

/* Point x of the body frame (unit bounding radius) at the particle's pose:
 * position + radius R(q) x. */
static long add_point(buffer *b, const double *pos, double radius, const double *q,
                      const double x[3])
{
    double w = q[0], i = q[1], j = q[2], k = q[3], p[3];
    const double r[9] = {1 - 2 * (j * j + k * k), 2 * (i * j - w * k),     2 * (i * k + w * j),
                         2 * (i * j + w * k),     1 - 2 * (i * i + k * k), 2 * (j * k - w * i),
                         2 * (i * k - w * j),     2 * (j * k + w * i),     1 - 2 * (i * i + j * j)};
    for (int a = 0; a < 3; a++)
        p[a] = pos[a] + radius * (r[3 * a] * x[0] + r[3 * a + 1] * x[1] + r[3 * a + 2] * x[2]);
    if (ndem_jw_reserve(&b->pts, 3 * (NDEM_JW_G9_MAX + 1) + NDEM_JW_NUM_MAX) == 0) {
        char *s = b->pts.buf + b->pts.len;
        for (int a = 0; a < 3; a++) {
            *s++ = ' ';
            s += ndem_jw_format_g9(s, p[a]);
        }
        b->pts.len = (size_t)(s - b->pts.buf);
    }
    return b->n_pts++;
}

/* One polygon of n corners, of particle id's template `shape`. */
static void add_poly(buffer *b, const long *corners, int n, long id, int shape)
{
    for (int k = 0; k < n; k++) put_long(&b->conn, corners[k]);
    b->n_idx += n;
    put_long(&b->offs, b->n_idx);
    put_long(&b->ids, id);
    put_long(&b->kinds, shape);
    b->n_polys++;
}

static void polyhedron(buffer *b, const ndem_polyhedron *h, const double *pos, double radius,
                       const double *q, long id, int shape)
{
    long first = b->n_pts, corners[NDEM_FACE_MAX];
    for (int v = 0; v < h->n_vertices; v++) add_point(b, pos, radius, q, h->vertices + 3 * v);
    for (int f = 0; f < h->n_faces; f++) {
        int n = 0;
        for (int k = h->face_start[f]; k < h->face_start[f + 1] && n < NDEM_FACE_MAX; k++)
            corners[n++] = first + h->face_vertices[k];
        add_poly(b, corners, n, id, shape);
    }
}

/* Member sphere (centre c, radius r in the body frame) as quads and, at
 * the poles, triangles, counter-clockwise seen from outside. */
static void sphere(buffer *b, const double *c, double r, const double *pos, double radius,
                   const double *q, long id, int shape)
{
    long ring[STACKS - 1][SEGMENTS], pole[2];
    for (int s = 0; s < 2; s++) {
        double x[3] = {c[0], c[1], c[2] + (s ? r : -r)};
        pole[s] = add_point(b, pos, radius, q, x);
    }
    for (int t = 1; t < STACKS; t++)
        for (int s = 0; s < SEGMENTS; s++) {
            double th = M_PI * t / STACKS, ph = 2 * M_PI * s / SEGMENTS;
            double x[3] = {c[0] + r * sin(th) * cos(ph), c[1] + r * sin(th) * sin(ph),
                           c[2] - r * cos(th)};
            ring[t - 1][s] = add_point(b, pos, radius, q, x);
        }
    for (int s = 0; s < SEGMENTS; s++) {
        int u = (s + 1) % SEGMENTS;
        long bottom[3] = {pole[0], ring[0][u], ring[0][s]};
        long top[3] = {pole[1], ring[STACKS - 2][s], ring[STACKS - 2][u]};
        add_poly(b, bottom, 3, id, shape);
        add_poly(b, top, 3, id, shape);
        for (int t = 0; t + 1 < STACKS - 1; t++) {
            long quad[4] = {ring[t][s], ring[t][u], ring[t + 1][u], ring[t + 1][s]};
            add_poly(b, quad, 4, id, shape);
        }
    }
}

static void text(ndem_jw *w, const char *s) { ndem_jw_raw(w, s, strlen(s)); }

/* A <DataArray> of the numbers already in `body` (each after a space). */
static void array(ndem_jw *w, const char *type, const char *name, int comps, const ndem_jw *body)
{
    char head[200];
    snprintf(head, sizeof head, "        <DataArray type=\"%s\" Name=\"%s\"", type, name);
    text(w, head);
    if (comps > 1) {
        snprintf(head, sizeof head, " NumberOfComponents=\"%d\"", comps);
        text(w, head);
    }
    text(w, " format=\"ascii\">\n         ");
    if (body->buf) ndem_jw_raw(w, body->buf, body->len);
    text(w, "\n        </DataArray>\n");
}

char *ndem_shapes_to_vtp(const ndem_frame *f, const ndem_shape_table *t, long index, size_t *len)
{
    static const double still[4] = {1, 0, 0, 0};
    buffer b;
    memset(&b, 0, sizeof b);
    ndem_jw *parts[] = {&b.pts, &b.conn, &b.offs, &b.ids, &b.kinds};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) ndem_jw_init(parts[k], 0);
    for (long i = 0; f->shapes && t && i < f->count; i++) {
        const ndem_shape *s = ndem_shape_table_get(t, f->shapes[i]);
        if (!s || s->type == NDEM_SHAPE_SPHERE) continue; /* spheres: particles_NNNNNN.vtp */
        const double *pos = f->positions + 3 * i,
                     *q = f->orientations ? f->orientations + 4 * i : still;
        double radius = f->radii[i];
        if (s->type == NDEM_SHAPE_POLYHEDRON)
            polyhedron(&b, &s->poly, pos, radius, q, i, f->shapes[i]);
        else if (s->type == NDEM_SHAPE_COMPOUND)
            for (int k = 0; k < s->n_pieces; k++)
                polyhedron(&b, &s->pieces[k].poly, pos, radius, q, i, f->shapes[i]);
        else
            for (int m = 0; m < s->n_spheres; m++)
                sphere(&b, s->spheres + 4 * m, s->spheres[4 * m + 3], pos, radius, q, i,
                       f->shapes[i]);
    }
    ndem_jw w;
    ndem_jw_init(&w, 0);
    ndem_vtp_polys_head(&w, f->time, "Int64", "frame", index, b.n_pts, b.n_polys);
    text(&w, "      <CellData Scalars=\"shape\">\n");
    array(&w, "Int64", "id", 1, &b.ids);
    array(&w, "Int32", "shape", 1, &b.kinds);
    text(&w, "      </CellData>\n      <Points>\n");
    array(&w, "Float64", "position", 3, &b.pts);
    text(&w, "      </Points>\n      <Polys>\n");
    array(&w, "Int64", "connectivity", 1, &b.conn);
    array(&w, "Int64", "offsets", 1, &b.offs);
    text(&w, "      </Polys>\n    </Piece>\n  </PolyData>\n</VTKFile>\n");
    int failed = 0;
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        char *part = ndem_jw_finish(parts[k]);
        failed |= !part;
        free(part);
    }
    char *out = ndem_jw_finish(&w);
    if (failed) {
        free(out);
        out = NULL;
    }
    *len = out ? strlen(out) : 0;
    return out;
}
