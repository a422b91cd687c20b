/* shape_compound.c - a non-convex body as a compound of convex pieces
 * (shape.h): each piece the convex hull of its points, all in one body
 * frame and scaled together. The pieces must not overlap (a separating
 * axis between every two), so their mass properties add; the narrow phase
 * meets each piece through the convex paths (shape_collide.c). Also the
 * shape of a definition (ndem.h), one builder per type. */
#include "ndem.h"
#include "shape.h"
#include "vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The extent of p's vertices along axis: [lo, hi]. */
static void project(const ndem_polyhedron *p, const double *axis, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (int v = 0; v < p->n_vertices; v++) {
        double d = ndem_dot(p->vertices + 3 * v, axis);
        *lo = ndem_min(*lo, d), *hi = ndem_max(*hi, d);
    }
}

static double axis_overlap(const ndem_polyhedron *a, const ndem_polyhedron *b, const double *axis)
{
    double alo, ahi, blo, bhi;
    project(a, axis, &alo, &ahi);
    project(b, axis, &blo, &bhi);
    return ndem_min(ahi - blo, bhi - alo);
}

/* How deep two convex polyhedra overlap (<= 0: they touch or are apart):
 * the least overlap over the separating axes (face normals of both, cross
 * products of their edges). */
static double overlap_depth(const ndem_polyhedron *a, const ndem_polyhedron *b)
{
    double least = INFINITY;
    for (int f = 0; f < a->n_faces; f++)
        least = ndem_min(least, axis_overlap(a, b, a->face_normal + 3 * f));
    for (int f = 0; f < b->n_faces; f++)
        least = ndem_min(least, axis_overlap(a, b, b->face_normal + 3 * f));
    for (int i = 0; i < a->n_edges; i++)
        for (int j = 0; j < b->n_edges; j++) {
            const double *a0 = a->vertices + 3 * a->edges[2 * i],
                         *a1 = a->vertices + 3 * a->edges[2 * i + 1];
            const double *b0 = b->vertices + 3 * b->edges[2 * j],
                         *b1 = b->vertices + 3 * b->edges[2 * j + 1];
            double ea[3], eb[3], n[3];
            for (int k = 0; k < 3; k++) ea[k] = a1[k] - a0[k], eb[k] = b1[k] - b0[k];
            ndem_cross(ea, eb, n);
            double len = ndem_norm(n);
            if (!(len > 1e-9 * ndem_norm(ea) * ndem_norm(eb))) continue; /* parallel */
            for (int k = 0; k < 3; k++) n[k] /= len;
            least = ndem_min(least, axis_overlap(a, b, n));
        }
    return least;
}

int ndem_shape_compound(const double *points, const int *sizes, int pieces, double radius,
                        ndem_shape *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (!(radius > 0.0) || !isfinite(radius)) {
        snprintf(err, err_len, "radius must be finite and > 0 (got %g)", radius);
        return -1;
    }
    if (pieces < 1 || pieces > NDEM_COMPOUND_PIECES_MAX) {
        snprintf(err, err_len, "a compound needs 1 to %d pieces (got %d)", NDEM_COMPOUND_PIECES_MAX,
                 pieces);
        return -1;
    }
    double reach = 0.0;
    long total = 0;
    for (int k = 0; k < pieces; k++) {
        if (sizes[k] < 4) {
            snprintf(err, err_len, "piece %d: a polyhedron needs at least 4 points (got %d)", k,
                     sizes[k]);
            return -1;
        }
        for (int i = 0; i < sizes[k]; i++) {
            const double *q = points + 3 * (total + i);
            if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2])) {
                snprintf(err, err_len, "piece %d: point %d is not finite", k, i);
                return -1;
            }
            reach = ndem_max(reach, ndem_norm(q));
        }
        total += sizes[k];
    }
    out->type = NDEM_SHAPE_COMPOUND;
    out->radius = radius;
    out->pieces = calloc((size_t)pieces, sizeof *out->pieces);
    ndem_mass_props *mass = calloc((size_t)pieces, sizeof *mass);
    if (!out->pieces || !mass) {
        free(mass);
        ndem_shape_clear(out);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    out->n_pieces = pieces;
    /* each piece keeps the body frame: scaled by radius / reach, its own
     * bounding radius about the origin its farthest point */
    double s = radius / reach;
    const double *p = points;
    int rc = 0;
    for (int k = 0; k < pieces && rc == 0; k++) {
        double own = 0.0;
        for (int i = 0; i < sizes[k]; i++) own = ndem_max(own, ndem_norm(p + 3 * i));
        char why[200];
        rc = ndem_shape_polyhedron(p, sizes[k], s * own, &out->pieces[k], why, sizeof why);
        if (rc) snprintf(err, err_len, "piece %d: %s", k, why);
        else mass[k] = out->pieces[k].mass;
        p += 3 * sizes[k];
    }
    for (int a = 0; a < pieces && rc == 0; a++)
        for (int b = a + 1; b < pieces && rc == 0; b++) {
            double d = overlap_depth(&out->pieces[a].poly, &out->pieces[b].poly);
            if (d > 1e-9 * radius) {
                snprintf(err, err_len,
                         "pieces %d and %d overlap (by %g of the bounding radius); pieces may "
                         "touch but not overlap",
                         a, b, d / radius);
                rc = -1;
            }
        }
    if (rc == 0) ndem_mass_props_union(mass, pieces, &out->mass);
    free(mass);
    if (rc) ndem_shape_clear(out);
    return rc;
}

/* ---- a definition's shape: one builder per type ---- */

typedef int (*shape_builder)(const ndem_particle_shape_def *def, double radius, ndem_shape *out,
                             char *err, size_t err_len);

static int build_clump(const ndem_particle_shape_def *def, double radius, ndem_shape *out,
                       char *err, size_t err_len)
{
    return ndem_shape_clump(def->data, def->count, radius, out, err, err_len);
}

static int build_polyhedron(const ndem_particle_shape_def *def, double radius, ndem_shape *out,
                            char *err, size_t err_len)
{
    return ndem_shape_polyhedron(def->data, def->count, radius, out, err, err_len);
}

static int build_compound(const ndem_particle_shape_def *def, double radius, ndem_shape *out,
                          char *err, size_t err_len)
{
    if (!def->piece_sizes) {
        memset(out, 0, sizeof *out);
        snprintf(err, err_len, "a compound needs its piece sizes");
        return -1;
    }
    return ndem_shape_compound(def->data, def->piece_sizes, def->count, radius, out, err, err_len);
}

static const shape_builder builders[] = {
    [NDEM_PARTICLE_CLUMP] = build_clump,
    [NDEM_PARTICLE_POLYHEDRON] = build_polyhedron,
    [NDEM_PARTICLE_COMPOUND] = build_compound,
};

int ndem_shape_from_def(const ndem_particle_shape_def *def, double radius, ndem_shape *out,
                        char *err, size_t err_len)
{
    int t = (int)def->type;
    if (t == NDEM_PARTICLE_SPHERE) return ndem_shape_sphere(radius, out, err, err_len);
    if (t < 0 || t >= (int)(sizeof builders / sizeof builders[0]) || !builders[t] || !def->data) {
        memset(out, 0, sizeof *out);
        snprintf(err, err_len, "unknown particle shape type %d", t);
        return -1;
    }
    return builders[t](def, radius, out, err, err_len);
}
