/* shape.h (internal) - particle shape templates: a sphere, a clump of
 * spheres (rigid cluster), a convex polyhedron (the hull of points, by
 * qhull) or a compound of convex polyhedra (a non-convex body), each in its body frame and scaled
 * so that its bounding sphere about the body-frame origin has the particle's radius. A scene keeps
 * one table of templates; a particle refers to one by index (docs/shapes.md).
 */
#ifndef NDEM_SHAPE_H
#define NDEM_SHAPE_H

#include "mass_props.h"
#include "ndem.h"

#include <stddef.h>

typedef enum ndem_shape_type {
    NDEM_SHAPE_SPHERE = 0,
    NDEM_SHAPE_CLUMP,
    NDEM_SHAPE_POLYHEDRON,
    NDEM_SHAPE_COMPOUND,
    NDEM_SHAPE_TYPES
} ndem_shape_type;

/* A convex polyhedron. Faces are polygons (coplanar hull triangles merged):
 * face f is the loop face_vertices[face_start[f] .. face_start[f + 1]),
 * counter-clockwise seen from outside, on the plane n . x = d with n the
 * unit outward normal. Edge e joins edges[2e] -> edges[2e + 1], which face
 * edge_faces[2e] walks in that direction and edge_faces[2e + 1] the other
 * way. */
typedef struct ndem_polyhedron {
    int n_vertices, n_faces, n_edges;
    double *vertices;    /* 3 per vertex */
    int *face_start;     /* n_faces + 1 */
    int *face_vertices;  /* face_start[n_faces] */
    double *face_normal; /* 3 per face */
    double *face_d;      /* per face */
    int *edges;          /* 2 per edge */
    int *edge_faces;     /* 2 per edge */
    int *face_edge;      /* per loop slot k: the edge from vertex k to the next */
} ndem_polyhedron;

/* The most vertices one face may have (a particle's hull has few). */
#define NDEM_FACE_MAX 64

typedef struct ndem_shape {
    ndem_shape_type type;
    double radius;             /* bounding sphere about the body-frame origin */
    int n_spheres;             /* clump: members */
    double *spheres;           /* clump: x, y, z, r per member, body frame */
    ndem_polyhedron poly;      /* polyhedron only */
    int n_pieces;              /* compound: its convex pieces */
    struct ndem_shape *pieces; /* compound: polyhedra in the body frame, each
                                * with its own bounding radius about the origin */
    ndem_mass_props mass;      /* body frame, per unit density */
} ndem_shape;

/* The most pieces of one compound (each gives up to 4 contact points). */
#define NDEM_COMPOUND_PIECES_MAX 16

/* The name of a type ("sphere", "clump", "polyhedron", "compound"). */
const char *ndem_shape_type_name(ndem_shape_type type);

/* Builds a shape in *out (its members owned by it: ndem_shape_clear frees
 * them). radius > 0 is the bounding radius wanted; the given geometry is
 * scaled about the body-frame origin to reach it. Each returns 0, or -1
 * with a message naming the offending sphere or point. */
int ndem_shape_sphere(double radius, ndem_shape *out, char *err, size_t err_len);
int ndem_shape_clump(const double *spheres, int count, double radius, ndem_shape *out, char *err,
                     size_t err_len);
/* The convex hull of count points (x, y, z): at least 4, finite, no two
 * the same, not all on one plane. */
int ndem_shape_polyhedron(const double *points, int count, double radius, ndem_shape *out,
                          char *err, size_t err_len);
/* A compound (shape_compound.c): `pieces` convex hulls, piece k of
 * sizes[k] points, the points of all pieces one after another in points.
 * Each piece is built as a polyhedron (errors name it: "piece 1: ...");
 * the whole is scaled as one body. Pieces may touch but not overlap (their
 * mass adds); an overlap deeper than 1e-9 of the radius is refused. */
int ndem_shape_compound(const double *points, const int *sizes, int pieces, double radius,
                        ndem_shape *out, char *err, size_t err_len);
/* The shape of a particle shape definition (ndem.h) at a radius. */
struct ndem_particle_shape_def;
int ndem_shape_from_def(const struct ndem_particle_shape_def *def, double radius, ndem_shape *out,
                        char *err, size_t err_len);
void ndem_shape_clear(ndem_shape *s);

/* The farthest vertex of p along direction dir (support point); returns its
 * index. */
int ndem_polyhedron_support(const ndem_polyhedron *p, const double dir[3]);

/* A table of shape templates, index = a particle's shape. */
typedef struct ndem_shape_table {
    int count, capacity;
    ndem_shape *shapes;
} ndem_shape_table;

ndem_shape_table *ndem_shape_table_create(void);
void ndem_shape_table_destroy(ndem_shape_table *t);
/* Moves *s into the table (s is left empty); returns its index, or -1 when
 * out of memory (s is then cleared). */
int ndem_shape_table_add(ndem_shape_table *t, ndem_shape *s);
const ndem_shape *ndem_shape_table_get(const ndem_shape_table *t, int index);

/* 1, with the first reason in why, when some of the count geometry cannot
 * meet shaped particles under method (NDEM: walls and dynamic bodies;
 * every geometry type is met by both methods); 0 when all can. The job
 * parser gives the same reason at the shape's pointer. */
int ndem_shapes_geometry_refused(ndem_method method, const ndem_geometry_def *geometry, int count,
                                 char *why, size_t len);

#endif
