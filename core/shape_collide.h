/* shape_collide.h (internal) - the narrow phase between particle shapes
 * (and a plane): one function per pair of kinds in a [kind][kind] table
 * (shape_collide.c), each returning a contact manifold. docs/shapes.md says
 * which method serves which pair and why. Not wired into the step yet. */
#ifndef NDEM_SHAPE_COLLIDE_H
#define NDEM_SHAPE_COLLIDE_H

#include "shape.h"

/* Kinds of collider: the shape types, then the scene geometry handled so
 * far (a plane). */
enum { NDEM_COLLIDER_PLANE = NDEM_SHAPE_TYPES, NDEM_COLLIDER_KINDS };

/* A shape placed in the world, or a plane. */
typedef struct ndem_collider {
    int kind;                /* ndem_shape_type or NDEM_COLLIDER_PLANE */
    const ndem_shape *shape; /* the shape kinds */
    double x[3];             /* body-frame origin in the world; a plane: a point of it */
    double q[4];             /* orientation (w, x, y, z); a plane: unused */
    double n[3];             /* a plane: unit normal out of the solid side */
    double rot[9];           /* R(q), row-major (ndem_collider_place) */
} ndem_collider;

/* A contact point: x midway between the two surfaces, n the unit normal
 * from a into b, depth the overlap along n (negative: a gap within the
 * margin), id persistent while the same features touch (warm starting). */
typedef struct ndem_contact_point {
    double x[3];
    double n[3];
    double depth;
    unsigned id;
} ndem_contact_point;

/* A convex pair gives at most 4 points (the deepest and the largest area
 * kept); a clump one per touching member, at most NDEM_CONTACT_POINTS (the
 * deepest kept). */
#define NDEM_MANIFOLD_POINTS 4
#define NDEM_CONTACT_POINTS 16

/* Fills a collider for shape s at x turned by q (R derived). */
void ndem_collider_place(ndem_collider *c, const ndem_shape *s, const double x[3],
                         const double q[4]);
/* Fills a collider for the plane through p with unit normal n. */
void ndem_collider_plane(ndem_collider *c, const double p[3], const double n[3]);

/* The contact points of a and b within margin (>= 0): returns how many were
 * written to out (at most NDEM_CONTACT_POINTS). */
int ndem_shape_collide(const ndem_collider *a, const ndem_collider *b, double margin,
                       ndem_contact_point out[NDEM_CONTACT_POINTS]);

/* The separating-axis query of two placed polyhedra: the axis of least
 * overlap, n from a to b (world), and that overlap (negative: the gap).
 * Returns 0: a face of a, 1: a face of b, 2: an edge pair. */
int ndem_polyhedra_axis(const ndem_collider *a, const ndem_collider *b, double n[3], double *depth);

/* ---- between the table's files ---- */
/* Polyhedron a against polyhedron b (shape_collide_poly.c): at most
 * NDEM_MANIFOLD_POINTS points, all with the same normal. */
int ndem_collide_polyhedra(const ndem_collider *a, const ndem_collider *b, double margin,
                           ndem_contact_point *out);
/* Keeps at most NDEM_MANIFOLD_POINTS of n points with one normal: the
 * deepest, the farthest from it, the largest triangle with those, then the
 * point adding the most area; returns how many are left. */
int ndem_manifold_reduce(ndem_contact_point *pts, int n);

#endif
