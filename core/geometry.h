/* geometry.h (internal) - spheres against the scene's geometry (planes,
 * boxes, cylinders; geometry.c). */
#ifndef NDEM_GEOMETRY_H
#define NDEM_GEOMETRY_H

#include "ndem.h"

/* Sphere against one geometry: writes up to 6 contacts (normal from the
 * sphere into the geometry, overlap, feature id) within `margin`. */
typedef struct ndem_geo_hit {
    double n[3];
    double delta;
    int feature;
} ndem_geo_hit;
int ndem_geometry_collide(const ndem_geometry_def *g, const double *x, double r, double margin,
                          ndem_geo_hit hits[6]);
void ndem_geometry_surface_velocity(const ndem_geometry_def *g, const double *p, double *u);
void ndem_geometry_bounds(const ndem_geometry_def *g, double *lo, double *hi);

#endif
