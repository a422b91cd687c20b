/* paraview.c - geometry as VTK PolyData at a pose, and the .pvd collection
 * (paraview.h). Each type of geometry is one entry of a table that lists
 * its surface in the shape's frame as defined; the pose maps every point
 * alike: world = position + R(orientation) (x - c), c the reference point
 * as defined (docs/frames.md). */
#include "paraview.h"

#include "frame_export.h"
#include "geometry_mesh.h"
#include "jsonw.h"
#include "mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CYLINDER_SEGMENTS 48

/* A surface being listed: points (3 each) and polygons (offsets into idx). */
typedef struct surface {
    double *pts;
    long n_pts, cap_pts;
    long *idx, *ends;
    long n_idx, cap_idx, n_polys, cap_polys;
    int failed;
} surface;

static long add_point(surface *s, double x, double y, double z)
{
    if (s->n_pts == s->cap_pts) {
        long cap = s->cap_pts ? 2 * s->cap_pts : 64;
        double *grown = realloc(s->pts, (size_t)cap * 3 * sizeof *grown);
        if (!grown) {
            s->failed = 1;
            return 0;
        }
        s->pts = grown;
        s->cap_pts = cap;
    }
    double *p = s->pts + 3 * s->n_pts;
    p[0] = x, p[1] = y, p[2] = z;
    return s->n_pts++;
}

/* One polygon of n corners (point indices). */
static void add_poly(surface *s, const long *corners, int n)
{
    if (s->n_idx + n > s->cap_idx) {
        long cap = s->cap_idx ? 2 * s->cap_idx : 256;
        while (cap < s->n_idx + n) cap *= 2;
        long *grown = realloc(s->idx, (size_t)cap * sizeof *grown);
        if (!grown) {
            s->failed = 1;
            return;
        }
        s->idx = grown;
        s->cap_idx = cap;
    }
    if (s->n_polys == s->cap_polys) {
        long cap = s->cap_polys ? 2 * s->cap_polys : 64;
        long *grown = realloc(s->ends, (size_t)cap * sizeof *grown);
        if (!grown) {
            s->failed = 1;
            return;
        }
        s->ends = grown;
        s->cap_polys = cap;
    }
    memcpy(s->idx + s->n_idx, corners, (size_t)n * sizeof *corners);
    s->n_idx += n;
    s->ends[s->n_polys++] = s->n_idx;
}

/* Two unit vectors u, v with (u, v, n) right-handed and orthonormal. */
static void basis(const double n[3], double u[3], double v[3])
{
    double a[3] = {0, 0, 0};
    a[fabs(n[0]) < 0.6 ? 0 : fabs(n[1]) < 0.6 ? 1 : 2] = 1;
    u[0] = a[1] * n[2] - a[2] * n[1];
    u[1] = a[2] * n[0] - a[0] * n[2];
    u[2] = a[0] * n[1] - a[1] * n[0];
    double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++) u[k] /= l;
    v[0] = n[1] * u[2] - n[2] * u[1];
    v[1] = n[2] * u[0] - n[0] * u[2];
    v[2] = n[0] * u[1] - n[1] * u[0];
}

static void box_surface(const ndem_geometry_def *g, const ndem_plane_view *view, surface *s)
{
    long c[8];
    for (int k = 0; k < 8; k++)
        c[k] = add_point(s, (k & 1 ? g->max : g->min)[0], (k & 2 ? g->max : g->min)[1],
                         (k & 4 ? g->max : g->min)[2]);
    static const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                    {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (int f = 0; f < 6; f++) {
        long q[4] = {c[faces[f][0]], c[faces[f][1]], c[faces[f][2]], c[faces[f][3]]};
        add_poly(s, q, 4);
    }
}

static void cylinder_surface(const ndem_geometry_def *g, const ndem_plane_view *view, surface *s)
{
    double u[3], v[3];
    basis(g->axis, u, v);
    long ring[2][CYLINDER_SEGMENTS];
    for (int end = 0; end < 2; end++)
        for (int i = 0; i < CYLINDER_SEGMENTS; i++) {
            double a = 2 * M_PI * i / CYLINDER_SEGMENTS, ca = cos(a), sa = sin(a);
            double h = (end ? 0.5 : -0.5) * g->length, p[3];
            for (int k = 0; k < 3; k++)
                p[k] = g->center[k] + h * g->axis[k] + g->radius * (ca * u[k] + sa * v[k]);
            ring[end][i] = add_point(s, p[0], p[1], p[2]);
        }
    for (int i = 0; i < CYLINDER_SEGMENTS; i++) {
        int j = (i + 1) % CYLINDER_SEGMENTS;
        long q[4] = {ring[0][i], ring[0][j], ring[1][j], ring[1][i]};
        add_poly(s, q, 4);
    }
    long cap[CYLINDER_SEGMENTS];
    for (int i = 0; i < CYLINDER_SEGMENTS; i++) cap[i] = ring[0][CYLINDER_SEGMENTS - 1 - i];
    add_poly(s, cap, CYLINDER_SEGMENTS);
    add_poly(s, ring[1], CYLINDER_SEGMENTS);
}

static void plane_surface(const ndem_geometry_def *g, const ndem_plane_view *view, surface *s)
{
    double u[3], v[3], c[3], d = 0;
    basis(g->normal, u, v);
    for (int k = 0; k < 3; k++) d += (view->focus[k] - g->point[k]) * g->normal[k];
    for (int k = 0; k < 3; k++) c[k] = view->focus[k] - d * g->normal[k];
    long q[4];
    static const double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int i = 0; i < 4; i++) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = c[k] + view->half * (corner[i][0] * u[k] + corner[i][1] * v[k]);
        q[i] = add_point(s, p[0], p[1], p[2]);
    }
    add_poly(s, q, 4);
}

/* The placed mesh, offset by the def's `point` (its shift since placement). */
static void mesh_surface(const ndem_geometry_def *g, const ndem_plane_view *view, surface *s)
{
    if (!g->mesh || !g->mesh->mesh) {
        s->failed = 1;
        return;
    }
    const ndem_mesh *m = g->mesh->mesh;
    for (int i = 0; i < m->n_vertices && !s->failed; i++) {
        const double *x = m->vertices + 3 * i;
        add_point(s, x[0] + g->point[0], x[1] + g->point[1], x[2] + g->point[2]);
    }
    for (int t = 0; t < m->n_triangles && !s->failed; t++) {
        long tri[3] = {m->triangles[3 * t], m->triangles[3 * t + 1], m->triangles[3 * t + 2]};
        add_poly(s, tri, 3);
    }
}

/* The surface of each type (ndem_geometry_type order). */
static void (*const surfaces[])(const ndem_geometry_def *, const ndem_plane_view *, surface *) = {
    [NDEM_GEOMETRY_PLANE] = plane_surface,
    [NDEM_GEOMETRY_BOX] = box_surface,
    [NDEM_GEOMETRY_CYLINDER] = cylinder_surface,
    [NDEM_GEOMETRY_MESH] = mesh_surface,
};

/* x -> position + R(q) (x - c) for every point. */
static void place(surface *s, const ndem_geometry_def *g, const double *pose)
{
    double c[3];
    ndem_geometry_reference_point(g, c);
    const double *q = pose + 3;
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                   2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    for (long i = 0; i < s->n_pts; i++) {
        double *p = s->pts + 3 * i, d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
        for (int k = 0; k < 3; k++)
            p[k] = pose[k] + r[3 * k] * d[0] + r[3 * k + 1] * d[1] + r[3 * k + 2] * d[2];
    }
}

static void text(ndem_jw *w, const char *s) { ndem_jw_raw(w, s, strlen(s)); }

static void longs(ndem_jw *w, const long *a, long n)
{
    char num[32];
    for (long i = 0; i < n; i++) {
        int k = snprintf(num, sizeof num, "%s%ld", i ? " " : "", a[i]);
        ndem_jw_raw(w, num, (size_t)k);
    }
}

void ndem_vtp_polys_head(ndem_jw *w, double time, const char *type, const char *name, long value,
                         long points, long polys)
{
    char line[1200];
    snprintf(line, sizeof line,
             "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
             "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <PolyData>\n"
             "    <FieldData>\n"
             "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
             "format=\"ascii\">%.17g</DataArray>\n"
             "      <DataArray type=\"%s\" Name=\"%s\" NumberOfTuples=\"1\" "
             "format=\"ascii\">%ld</DataArray>\n    </FieldData>\n"
             "    <Piece NumberOfPoints=\"%ld\" NumberOfVerts=\"0\" NumberOfLines=\"0\" "
             "NumberOfStrips=\"0\" NumberOfPolys=\"%ld\">\n",
             time, type, name, value, points, polys);
    text(w, line);
}

static void write_vtp(ndem_jw *w, const surface *s, int index, double time)
{
    ndem_vtp_polys_head(w, time, "Int32", "geometry", index, s->n_pts, s->n_polys);
    text(w, "      <Points>\n"
            "        <DataArray type=\"Float64\" Name=\"position\" NumberOfComponents=\"3\" "
            "format=\"ascii\">\n          ");
    if (ndem_jw_reserve(w, (size_t)s->n_pts * 3 * (NDEM_JW_G9_MAX + 1) + NDEM_JW_NUM_MAX) == 0) {
        char *p = w->buf + w->len;
        for (long i = 0; i < 3 * s->n_pts; i++) {
            if (i) *p++ = ' ';
            p += ndem_jw_format_g9(p, s->pts[i]);
        }
        w->len = (size_t)(p - w->buf);
    }
    text(w,
         "\n        </DataArray>\n      </Points>\n      <Polys>\n"
         "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n          ");
    longs(w, s->idx, s->n_idx);
    text(w, "\n        </DataArray>\n"
            "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n          ");
    longs(w, s->ends, s->n_polys);
    text(w, "\n        </DataArray>\n      </Polys>\n    </Piece>\n  </PolyData>\n</VTKFile>\n");
}

char *ndem_geometry_to_vtp(const ndem_geometry_def *g, int index, const double *pose,
                           const ndem_plane_view *plane, double time, size_t *len)
{
    *len = 0;
    if ((unsigned)g->type >= sizeof surfaces / sizeof surfaces[0] || !surfaces[g->type])
        return NULL;
    surface s = {0};
    ndem_plane_view whole = {{0, 0, 0}, 0.5};
    surfaces[g->type](g, plane ? plane : &whole, &s);
    char *out = NULL;
    if (!s.failed) {
        if (pose) place(&s, g, pose);
        ndem_jw w;
        ndem_jw_init(&w, 0);
        write_vtp(&w, &s, index, time);
        out = ndem_jw_finish(&w);
        *len = out ? strlen(out) : 0;
    }
    free(s.pts);
    free(s.idx);
    free(s.ends);
    return out;
}

ndem_plane_view ndem_paraview_plane_view(const ndem_frame *f)
{
    ndem_plane_view v = {{0, 0, 0}, 0.5};
    if (!f || f->count <= 0 || !f->positions) return v;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (long i = 0; i < f->count; i++)
        for (int k = 0; k < 3; k++) {
            double x = f->positions[3 * i + k];
            if (!isfinite(x)) continue;
            lo[k] = fmin(lo[k], x);
            hi[k] = fmax(hi[k], x);
        }
    if (!(hi[0] >= lo[0] && hi[1] >= lo[1] && hi[2] >= lo[2])) return v;
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        v.focus[k] = 0.5 * (lo[k] + hi[k]);
        d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    v.half = fmax(0.75 * sqrt(d2), 0.05);
    return v;
}

static int same(const double *a, const double *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k] != b[k]) return 0;
    return 1;
}

/* Frame f's extents of geometry g (a box with walls), or NULL. */
static const double *extents_of(const ndem_frame *f, int g, int geo)
{
    const double *e =
        f->geometry_extents && f->geometry_count == geo ? f->geometry_extents + 6 * g : NULL;
    return e && !isnan(e[0]) ? e : NULL;
}

/* Geometry g's file: at `pose` and, for a box with walls, between `ext`. */
static char *geometry_text(const ndem_paraview *p, int g, const double *pose, const double *ext,
                           double time, size_t *len)
{
    ndem_geometry_def d = p->scene->geometry[g];
    if (ext) {
        memcpy(d.min, ext, sizeof d.min);
        memcpy(d.max, ext + 3, sizeof d.max);
    }
    return ndem_geometry_to_vtp(&d, g, pose, &p->plane, time, len);
}

/* The frame's shaped particles (shapes_NNNNNN.vtp) and their .pvd line. */
static int shapes_file(const ndem_paraview *p, const ndem_frame *f, long index, int part,
                       ndem_paraview_emit emit, void *ctx, char *out, size_t cap, size_t *used)
{
    if (!f->shapes || !p->shapes) return 0;
    char name[64];
    size_t len;
    snprintf(name, sizeof name, "shapes_%06ld.vtp", index);
    char *text = ndem_shapes_to_vtp(f, p->shapes, index, &len);
    int rc = text ? emit(ctx, name, text, len) : -1;
    free(text);
    int n = rc ? -1 : ndem_pvd_entry(out + *used, cap - *used, f->time, part, name);
    if (n < 0) return -1;
    *used += (size_t)n;
    return 0;
}

int ndem_paraview_frame(ndem_paraview *p, const ndem_frame *f, long index, ndem_paraview_emit emit,
                        void *ctx, char **entries, size_t *entries_len)
{
    int geo = p->scene ? p->scene->geometry_count : 0;
    int posed = f->geometry_poses && f->geometry_count == geo;
    *entries = NULL;
    *entries_len = 0;
    if (!p->started) {
        p->started = 1;
        p->plane = ndem_paraview_plane_view(f);
        if (posed) {
            p->first_poses = malloc((size_t)(geo + 1) * 7 * sizeof(double));
            if (!p->first_poses) return -1;
            memcpy(p->first_poses, f->geometry_poses, (size_t)geo * 7 * sizeof(double));
        }
        if (posed && f->geometry_extents) {
            p->first_extents = malloc((size_t)(geo + 1) * 6 * sizeof(double));
            if (!p->first_extents) return -1;
            memcpy(p->first_extents, f->geometry_extents, (size_t)geo * 6 * sizeof(double));
        }
    }
    char name[64];
    size_t len, cap = (size_t)(geo + 2) * 300, used = 0;
    char *out = malloc(cap);
    snprintf(name, sizeof name, "particles_%06ld.vtp", index);
    char *text = out ? ndem_frame_to_vtp(f, index, &len) : NULL;
    int rc = text ? emit(ctx, name, text, len) : -1;
    free(text);
    int n = rc ? -1 : ndem_pvd_entry(out, cap, f->time, 0, name);
    rc = n < 0 ? -1 : 0;
    used = n < 0 ? 0 : (size_t)n;
    for (int g = 0; g < geo && rc == 0; g++) {
        /* the first frame's pose (or the definition's, without poses) is
         * one file; another pose is one file per frame */
        const double *pose = posed ? f->geometry_poses + 7 * g : NULL;
        const double *first = p->first_poses ? p->first_poses + 7 * g : NULL;
        /* a box with walls moves its faces, not its pose */
        const double *ext = posed ? extents_of(f, g, geo) : NULL;
        const double *first_ext =
            p->first_extents && !isnan(p->first_extents[6 * g]) ? p->first_extents + 6 * g : NULL;
        int moved = pose && (!first || !same(pose, first, 7) ||
                             (ext && (!first_ext || !same(ext, first_ext, 6))));
        if (moved) snprintf(name, sizeof name, "geometry_%d_%06ld.vtp", g, index);
        else snprintf(name, sizeof name, "geometry_%d.vtp", g);
        if (moved || !(p->started & 2)) {
            text =
                geometry_text(p, g, moved ? pose : first, moved ? ext : first_ext, f->time, &len);
            rc = text ? emit(ctx, name, text, len) : -1;
            free(text);
        }
        n = rc ? -1 : ndem_pvd_entry(out + used, cap - used, f->time, g + 1, name);
        if (n < 0) rc = -1;
        else used += (size_t)n;
    }
    p->started |= 2; /* the unmoved files are written */
    if (rc == 0) rc = shapes_file(p, f, index, geo + 1, emit, ctx, out, cap, &used);
    if (rc) {
        free(out);
        return -1;
    }
    *entries = out;
    *entries_len = used;
    return 0;
}

void ndem_paraview_free(ndem_paraview *p)
{
    free(p->first_poses);
    free(p->first_extents);
    ndem_shape_table_destroy(p->shapes);
    p->first_poses = NULL;
    p->first_extents = NULL;
    p->shapes = NULL;
}

const char ndem_pvd_head[] =
    "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
    "byte_order=\"LittleEndian\">\n  <Collection>\n";
const char ndem_pvd_tail[] = "  </Collection>\n</VTKFile>\n";

int ndem_pvd_entry(char *buf, size_t cap, double time, int part, const char *file)
{
    int n =
        snprintf(buf, cap, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"%d\" file=\"%s\"/>\n",
                 time, part, file);
    return n >= 0 && (size_t)n < cap ? n : -1;
}
