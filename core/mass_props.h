/* mass_props.h (internal) - volume, centre of mass and inertia of the
 * shapes that become rigid bodies: boxes and cylinders (`dynamic` geometry,
 * mass_props.c), closed triangle meshes (`dynamic` meshes, polyhedral
 * particles) and clumps of spheres (mass_props_shape.c). Uniform density:
 * the inertia is per unit density, so a body of mass M has inertia
 * M / volume times it. */
#ifndef NDEM_MASS_PROPS_H
#define NDEM_MASS_PROPS_H

#include <stddef.h>

typedef struct ndem_mass_props {
    double volume;      /* m^3 */
    double centroid[3]; /* centre of mass, in the shape's own frame */
    double inertia[9];  /* about the centroid, the shape's axes, row-major, per unit density */
} ndem_mass_props;

/* A solid box of half extents half[3], centred at its origin. */
void ndem_mass_props_box(const double half[3], ndem_mass_props *out);
/* A solid cylinder of radius and length along the unit axis, centred at its
 * origin. */
void ndem_mass_props_cylinder(double radius, double length, const double axis[3],
                              ndem_mass_props *out);
/* A closed triangle mesh (3 ints per triangle, outward by the right-hand
 * rule), by the divergence theorem. Returns 0, or -1 with a message when the
 * enclosed volume is not positive (an open or inside-out mesh). */
int ndem_mass_props_mesh(const double *vertices, long vertex_count, const int *triangles,
                         long triangle_count, ndem_mass_props *out, char *err, size_t err_len);
/* Eberly's volume integrals of 1, x, y, z, x^2, y^2, z^2, xy, yz, zx over a
 * closed mesh, summed triangle by triangle (corners counter-clockwise seen
 * from outside, relative to the origin wanted): start with in[10] zeroed,
 * add each triangle, then finish (the constant factors). The mesh module
 * and the polyhedra share it. */
void ndem_volume_integrals_add(double in[10], const double p0[3], const double p1[3],
                               const double p2[3]);
void ndem_volume_integrals_finish(double in[10]);
/* The union of convex pieces that do not overlap (their mass properties
 * each in the same frame): volumes and moments add. */
void ndem_mass_props_union(const ndem_mass_props *parts, int count, ndem_mass_props *out);
/* The union of overlapping spheres (x, y, z, r per sphere): overlaps count
 * once. Returns 0, or -1 with a message. */
int ndem_mass_props_clump(const double *spheres, int count, ndem_mass_props *out, char *err,
                          size_t err_len);
/* Principal moments (ascending) and the rotation q (w, x, y, z) that takes
 * the principal frame to the shape's frame, of a symmetric inertia. */
void ndem_mass_props_principal(const double inertia[9], double moments[3], double q[4]);

#endif
