/* rigid_contact_private.h (internal to rigid_contact*.c) - the pairs of a
 * dynamic body and static geometry, shared by the NDEM rows
 * (rigid_contact.c) and the smooth DEM law (rigid_contact_dem.c), and the
 * pairs of two bodies. */
#ifndef NDEM_RIGID_CONTACT_PRIVATE_H
#define NDEM_RIGID_CONTACT_PRIVATE_H

#include "rigid.h"
#include "rigid_contact.h"
#include "rows_general.h"
#include "shape.h"
#include "shape_body.h"

/* points a pair keeps (the shapes' manifold reduce) */
#define NDEM_RC_POINTS NDEM_MANIFOLD_POINTS

typedef struct ndem_rc_pair {
    int body, geometry, feature; /* feature: an inside box's face, else -1 */
    int other;                   /* NDEM: a second body (its geometry in `geometry`), else -1 */
    int count, touching;         /* NDEM: this step's points, those overlapping */
    ndem_grow row[NDEM_RC_POINTS];
    double blk[2 * (3 * NDEM_RC_POINTS) * (3 * NDEM_RC_POINTS + 1) / 2];
    /* smooth DEM: last step's touching points by id, dem_shape.c's layout
     * (id, in use, Hunt-Crossley's v0, tangential spring) */
    double dem[NDEM_RC_POINTS][NDEM_SHAPE_HIST];
} ndem_rc_pair;

struct ndem_rcontact {
    ndem_shape *shape; /* per body: its polyhedron (body frame about the pivot) */
    double *d_eq;      /* per body: volume-equivalent diameter (Hertz size) */
    ndem_shape *solid; /* per geometry: a static solid box's or cylinder's hull (radius 0:
                        * none) about solid_mid, built once (solid_shape) */
    double (*solid_mid)[3], (*solid_key)[6]; /* its centre, what it was built from */
    int geometry_count;
    ndem_rc_pair *pair;
    int pair_count, body_count;
    int geo_pairs;   /* the pairs with static geometry, first; then those of two bodies */
    int hull_bodies; /* bodies with a hull: 2 or more have pairs of two bodies */
    long pair_capacity;
    long rows;
    /* the broad phase of two bodies (rigid_broad.c): centres, radii (with
     * the reach), the pairs found, last step's pairs */
    double *sweep_x, *sweep_r;
    int *sweep_pairs;
    long sweep_cap, old_cap;
    ndem_rc_pair *old;
};

/* Sort and sweep on x of n spheres (x: 3 n centres, r: radii, negative:
 * left out): the pairs (i < j) with |x_i - x_j| <= r_i + r_j into
 * *pairs (2 ints each, grown to *cap), sorted by (i, j); how many, -1
 * out of memory. */
long ndem_rc_sweep_pairs(const double *x, const double *r, int n, int **pairs, long *cap);
/* The pairs of two bodies anew, after the geometry's, in (body, other)
 * order, those that can touch within the step (reach: NDEM's margin of
 * each body's motion; 0: touching now, smooth DEM), each pair's springs
 * carried from last step's list. 0, or -1 out of memory. */
int ndem_rc_body_pairs(struct ndem_sim *sim, int reach);
/* n pairs of two bodies (a checkpoint's), their members set by the caller
 * at pair[geo_pairs..]. 0, or -1 out of memory. */
int ndem_rc_body_pairs_set(ndem_rcontact *c, long n);

/* Pair pr's points within margin of its body at its pose (the geometry
 * type's table, reduced to NDEM_RC_POINTS): n from the body into the
 * geometry, depth > -margin; how many. */
int ndem_rc_pair_points(const struct ndem_sim *sim, const ndem_rc_pair *pr, double margin,
                        ndem_contact_point *pts);
/* The body's velocity at world point x. */
void ndem_rc_body_velocity(const struct ndem_sim *sim, const ndem_rigid_body *bd, const double *x,
                           double *u);

#endif
