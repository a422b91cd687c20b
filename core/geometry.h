/* geometry.h (internal) - spheres against the scene's geometry. Each type
 * of geometry (plane, box, cylinder) is one entry of a const table of
 * functions, in a file of its own (geometry_<type>.c); the engine reaches a
 * type only through the table (geometry.c), so a new type is one entry and
 * one file. */
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

/* The functions of one type of geometry. (The public enum of types is
 * ndem_geometry_type, ndem.h; this is its entry in the table.) */
typedef struct ndem_geometry_ops {
    const char *name;
    /* axis-aligned bounds (a plane: its point) */
    void (*bounds)(const ndem_geometry_def *g, double *lo, double *hi);
    /* sphere (x, r) against the geometry: the closest features within
     * margin, at most NDEM_GEO_HITS; returns how many were written */
    int (*collide)(const ndem_geometry_def *g, const double *x, double r, double margin,
                   ndem_geo_hit *hits);
    /* velocity of the surface at point p: v + w x (p - c) about the type's
     * reference point c, so a turning drum drags its contents */
    void (*surface_velocity)(const ndem_geometry_def *g, const double *p, double *u);
    /* advances the pose by h: translation by the velocity (a turn about the
     * reference point leaves the types of today unchanged in shape) */
    void (*integrate)(ndem_geometry_def *g, double h);
    /* the hit of one feature, found by collide earlier, for the key's
     * recomputation (any distance); returns 0 when the type has no such
     * feature. NULL: collide with an infinite margin and pick the feature
     * (fine for types with a handful of features) */
    int (*feature_hit)(const ndem_geometry_def *g, const double *x, double r, int feature,
                       ndem_geo_hit *hit);
} ndem_geometry_ops;

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
/* v + w x (p - c) of a rigid geometry with reference point c. */
void ndem_geo_rigid_velocity(const ndem_geometry_def *g, const double *c, const double *p,
                             double *u);

/* Table lookups, for the engine's stages. */
static inline int ndem_geometry_collide(const ndem_geometry_def *g, const double *x, double r,
                                        double margin, ndem_geo_hit hits[NDEM_GEO_HITS])
{
    return ndem_geometry_ops_of(g)->collide(g, x, r, margin, hits);
}
static inline void ndem_geometry_surface_velocity(const ndem_geometry_def *g, const double *p,
                                                  double *u)
{
    ndem_geometry_ops_of(g)->surface_velocity(g, p, u);
}
static inline void ndem_geometry_bounds(const ndem_geometry_def *g, double *lo, double *hi)
{
    ndem_geometry_ops_of(g)->bounds(g, lo, hi);
}
/* Feature ids of g are below this (8 for the analytic types). */
int ndem_geometry_feature_count(const ndem_geometry_def *g);
/* The hit of one feature of g for a sphere (x, r), at any distance. */
void ndem_geometry_feature_hit(const ndem_geometry_def *g, const double *x, double r, int feature,
                               ndem_geo_hit *hit);
static inline void ndem_geometry_integrate(ndem_geometry_def *g, double h)
{
    ndem_geometry_ops_of(g)->integrate(g, h);
}

#endif
