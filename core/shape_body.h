/* shape_body.h (internal) - particles that are not plain spheres: the
 * scene's table of shape templates placed for a particle radius and
 * material (mass, full inertia), each particle's template, its world
 * inverse inertia and its rotation step with the gyroscopic term
 * (docs/shapes.md, "Shaped particles in the step"). A scene of plain spheres
 * has no table (sim->shapes is NULL) and runs exactly as before. */
#ifndef NDEM_SHAPE_BODY_H
#define NDEM_SHAPE_BODY_H

#include "ndem.h"
#include "shape_collide.h"

#include <stddef.h>

struct ndem_sim;

/* One template: the shape at one particle radius of one generator or
 * emitter (its material fixes the density). The particle's position is the
 * centre of mass; the shape's body-frame origin sits at pos - R centroid. */
typedef struct ndem_body_shape {
    ndem_shape shape;      /* at the particle radius, body frame */
    double centroid[3];    /* centre of mass in the body frame */
    double mass;           /* kg */
    double inertia[9];     /* body frame, about the centroid (kg m^2) */
    double inv_inertia[9]; /* its inverse; zero when the generator's rotation is fixed */
    double bound;          /* bounding radius about the centroid (the broad phase's radius) */
    double d_eq;           /* volume-equivalent diameter: the Hertz mapping's size */
    double radius;         /* the particle radius it was built for */
    int source;            /* generator index, or -1 - emitter index */
    int listed;            /* its source's rank among the shaped generators, then emitters:
                            * the shape index frames carry (api/job_shapes.h lists them) */
} ndem_body_shape;

/* The most radii (templates) one shaped generator or emitter may have. */
#define NDEM_SHAPE_RADII_MAX 64

/* Doubles per manifold point of the smooth-DEM history (dem_shape.c): id,
 * 1 once touching, arrival speed, tangential spring[3]. */
#define NDEM_SHAPE_HIST 6
#define NDEM_SHAPE_HIST_CONTACT (NDEM_SHAPE_HIST * NDEM_CONTACT_POINTS)

typedef struct ndem_shapes {
    int count, capacity;
    ndem_body_shape *t;
    /* smooth DEM: per contact NDEM_SHAPE_HIST_CONTACT doubles, indexed like
     * the dem's history (hist: last step's contacts, next: this step's) */
    double *hist, *next;
    long hist_cap, next_cap; /* in contacts */
    /* per geometry: a solid box's polyhedron about its centre (its
     * reference frame's axes), else empty (dem_shape_geo.c) */
    ndem_shape *boxes;
    int box_count;
} ndem_shapes;

/* The table of a scene (NULL in *out when every particle is a sphere).
 * Refuses, with a message naming the generator or emitter, what this
 * version cannot run: a smooth-DEM model other than hertz and
 * hunt_crossley, a uniform radius distribution, a bad shape, and under NDEM
 * walls and dynamic geometry.
 * Returns 0 or -1. */
int ndem_shapes_create(const struct ndem_sim *sim, const ndem_scene_def *def, ndem_shapes **out,
                       char *err, size_t err_len);
void ndem_shapes_destroy(ndem_shapes *s);

/* Gives bodies [first, end), just created by generator or emitter `source`
 * (generator g: g, emitter e: -1 - e) with fixed_rotation as given, their
 * template: shape index, mass, inertia, the bounding radius. */
void ndem_shapes_assign(struct ndem_sim *sim, long first, long end, int source, int fixed_rotation);

/* Body i's world inverse inertia R I^-1 R^T. */
void ndem_shapes_inv_inertia(const struct ndem_sim *sim, long i, double out[9]);
/* Body i's angular velocity after a step h under world torque tau:
 * I dw/dt = tau - w x I w in the body frame by the implicit midpoint rule,
 * which keeps the kinetic energy and |L| of a free body (Newton's method). */
void ndem_shapes_turn(struct ndem_sim *sim, long i, const double tau[3], double h);
/* Body i's rotational kinetic energy 1/2 w . I w. */
double ndem_shapes_rot_energy(const struct ndem_sim *sim, long i);
/* Body i as a collider of the narrow phase (a plain sphere uses ball,
 * which it fills). */
void ndem_shapes_collider(const struct ndem_sim *sim, long i, ndem_shape *ball, ndem_collider *c);

#endif
