/* geometry.h (internal) - spheres against the scene's geometry. Each type
 * of geometry (plane, box, cylinder) is one entry of a const table of
 * functions, in a file of its own (geometry_<type>.c), that knows its shape
 * only in its reference frame. The pose layer (geometry.c, geometry_pose.c)
 * moves and turns every type alike: it maps the sphere into the reference
 * frame, the hits back, and gives the surface velocity, so a new type is one
 * entry and one file, and moves with no code of its own. */
#ifndef NDEM_GEOMETRY_H
#define NDEM_GEOMETRY_H

#include "ndem.h"

/* The most contacts one sphere makes with one geometry. A sphere in the
 * corner of a box container touches 3 faces and 6 bounds the analytic types;
 * a mesh can offer more (a sphere in a pit where many faces meet): it keeps
 * the 16 deepest (docs/meshes.md). */
#define NDEM_GEO_HITS 16

/* A contact of a sphere with a geometry: normal from the sphere into the
 * geometry, overlap (negative: gap), feature id (which face or cap, < 8 for
 * the analytic types; a mesh's coplanar group, edge or vertex). */
typedef struct ndem_geo_hit {
    double n[3];
    double delta;
    int feature;
} ndem_geo_hit;

/* The functions of one type of geometry, all in its reference frame (the
 * def as it is). (The public enum of types is ndem_geometry_type, ndem.h;
 * this is its entry in the table.) */
typedef struct ndem_geometry_ops {
    const char *name;
    /* axis-aligned bounds (a plane: its point) */
    void (*bounds)(const ndem_geometry_def *g, double *lo, double *hi);
    /* sphere (x, r) against the geometry: the closest features within
     * margin, at most NDEM_GEO_HITS; returns how many were written */
    int (*collide)(const ndem_geometry_def *g, const double *x, double r, double margin,
                   ndem_geo_hit *hits);
    /* the reference point c (default pivot; what a keyframe's position
     * places) and the orientation q the definition gives the shape (a
     * keyframe's orientation is relative to it: identity for the analytic
     * types, a mesh's own placement for a mesh) */
    void (*reference)(const ndem_geometry_def *g, double c[3], double q[4]);
    /* optional: moves the def by d (its points shift exactly, so a wall
     * moving at constant velocity needs no transform); NULL: the pose
     * carries the translation */
    void (*translate)(ndem_geometry_def *g, const double d[3]);
    /* optional: 1 when turning about w through point p leaves the shape as
     * it is (a cylinder about its axis, a plane about its normal), so the
     * turn only enters the surface velocity; NULL: never */
    int (*symmetric)(const ndem_geometry_def *g, const double w[3], const double p[3]);
    /* optional: the hit of one feature, found by collide earlier, for the
     * key's recomputation (any distance, in the reference frame); returns 0
     * when the type has no such feature. NULL: collide with an infinite
     * margin and pick the feature (fine for a handful of features) */
    int (*feature_hit)(const ndem_geometry_def *g, const double *x, double r, int feature,
                       ndem_geo_hit *hit);
} ndem_geometry_ops;

/* Where a geometry is now (geometry_pose.c). The state is q, to and shift;
 * the rest follows from them, the def and the time (ndem_geometry_derive).
 * A point x_ref of the def maps to world = to + R (x_ref - from). */
typedef struct ndem_geometry_pose {
    double q[4];        /* rotation R from the def's shape (w, x, y, z) */
    double to[3];       /* the pivot in the world now */
    double shift[3];    /* translation the type's translate applied to the def */
    double rot[9];      /* R, row-major */
    double from[3];     /* the pivot in the def's frame */
    double velocity[3]; /* of the pivot, over the step from now */
    double spin[3];     /* angular velocity (rad/s), over the step from now */
    int rotate;         /* collide turns the sphere into the reference frame */
    int offset;         /* from != to: collide shifts the sphere */
} ndem_geometry_pose;

/* The table entry of g's type (its type is validated by the job parser). */
const ndem_geometry_ops *ndem_geometry_ops_of(const ndem_geometry_def *g);

/* One table entry per type, each in its file. */
extern const ndem_geometry_ops ndem_geometry_plane_ops;
extern const ndem_geometry_ops ndem_geometry_box_ops;
extern const ndem_geometry_ops ndem_geometry_cylinder_ops;
extern const ndem_geometry_ops ndem_geometry_mesh_ops;

/* Helpers for the types' files (geometry.c). */
/* Appends a hit when delta > -margin; returns the new count. */
int ndem_geo_add_hit(ndem_geo_hit *hits, int n, const double *normal, double delta, int feature,
                     double margin);
/* The identity orientation, for `reference`. */
void ndem_geo_no_turn(double q[4]);

/* ---- the pose layer (geometry.c: contacts; geometry_pose.c: motion) ---- */

/* Sphere (x, r) in the world against g at its pose: hits with world normals. */
int ndem_geometry_collide(const ndem_geometry_def *g, const ndem_geometry_pose *p, const double *x,
                          double r, double margin, ndem_geo_hit hits[NDEM_GEO_HITS]);
/* Velocity of the surface at world point x: v + w x (x - pivot now). */
void ndem_geometry_surface_velocity(const ndem_geometry_pose *p, const double *x, double *u);
/* Axis-aligned world bounds at the pose (the reference bounds' corners). */
void ndem_geometry_bounds(const ndem_geometry_def *g, const ndem_geometry_pose *p, double *lo,
                          double *hi);
/* The world bounds over the whole motion up to `duration` (at time 0, at
 * each keyframe, at the end), for the scene bounds. */
void ndem_geometry_sweep_bounds(const ndem_geometry_def *g, double duration, double *lo,
                                double *hi);
/* The pose at time 0. */
void ndem_geometry_pose_init(const ndem_geometry_def *g, ndem_geometry_pose *p);
/* Advances g by h to time t: constant motion translates by h v and turns by
 * the exact rotation w t about the moving pivot; keyframes are evaluated at
 * t (no error accumulates either way). */
void ndem_geometry_advance(ndem_geometry_def *g, ndem_geometry_pose *p, double h, double t);
/* Recomputes the derived members of p from q, to, shift and the time t. */
void ndem_geometry_derive(const ndem_geometry_def *g, ndem_geometry_pose *p, double t);
/* The pose at t of g (moved from g0 by translate) restored from a format 3
 * checkpoint, which kept only the moved def: shift from the reference
 * points, the turn from the time. */
void ndem_geometry_pose_v3(const ndem_geometry_def *g0, const ndem_geometry_def *g,
                           ndem_geometry_pose *p, double t);
/* world = R(q) x + t for x of the shape as defined (before any shift). */
void ndem_geometry_pose_of(const ndem_geometry_pose *p, double t[3], double q[4]);

/* The world position of g's reference point at the pose. */
void ndem_geometry_reference_now(const ndem_geometry_def *g, const ndem_geometry_pose *p,
                                 double c[3]);

/* Quaternions (w, x, y, z) for the pose layer. */
void ndem_quat_mul(const double a[4], const double b[4], double out[4]);
void ndem_quat_matrix(const double q[4], double m[9]);

/* Feature ids of g are below this (8 for the analytic types). */
int ndem_geometry_feature_count(const ndem_geometry_def *g);
/* The hit of one feature of g at its pose for a sphere (x, r) in the
 * world, at any distance (world normal). */
/* 1 when the foot of world point x (a mesh at rest or moved by translate:
 * the caller turns x into the reference frame) on coplanar group `group`'s
 * plane lies on one of that group's triangles (geometry_mesh.c). */
int ndem_mesh_group_covers(const ndem_geometry_def *g, int group, const double *x);
void ndem_geometry_feature_hit(const ndem_geometry_def *g, const ndem_geometry_pose *p,
                               const double *x, double r, int feature, ndem_geo_hit *hit);

#endif
