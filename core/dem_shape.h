/* dem_shape.h (internal) - smooth DEM contacts of shaped particles
 * (dem_shape.c): per manifold point forces and springs, their history. */
#ifndef NDEM_DEM_SHAPE_H
#define NDEM_DEM_SHAPE_H

#include "contacts.h"
#include "material.h"

#include <stddef.h>

struct ndem_sim;

/* 1 when the contact involves a shaped particle (sim->shapes set). */
int ndem_dem_shape_pair(const struct ndem_sim *sim, ndem_contact_key key);
/* Contact k's force and torques (out, zeroed by the caller, laid out as
 * ndem_dem_contact_force's) and energies, its points' history into this
 * step's buffer. Reads only last step's history: contacts run in parallel. */
void ndem_dem_shape_force(const struct ndem_sim *sim, long k, double *out, double *energy);
/* The contact points of shaped particle key.a (placed as collider ca)
 * against geometry key.b for the contact's feature (dem_shape_geo.c): n
 * from the particle into the geometry, points apart by less than margin
 * too (negative depth; smooth DEM passes 0, NDEM its speculative reach);
 * returns how many. The one narrow phase against geometry of both methods. */
struct ndem_collider;
struct ndem_contact_point;
int ndem_dem_shape_geometry_points(const struct ndem_sim *sim, ndem_contact_key key,
                                   const struct ndem_collider *ca, double margin,
                                   struct ndem_contact_point *out);
/* What one contact point's law needs: its depth, closing speed, the
 * tangential velocity of the other side against this one, the normal into
 * the other side; the pair's effective mass over its touching points, the
 * share of its stiffness (1 / points), d* and the linear law's connector
 * stiffness (before the share); the material pair's index. */
typedef struct ndem_dem_point {
    const ndem_pair_params *pp;
    double delta, ddelta, ut[3], n[3];
    double m, split, d_eff, kn_linear;
    int pair;
} ndem_dem_point;
/* The point's depth, normal, closing speed and tangential velocity from
 * pt and u, the other side's velocity at the point less this side's. */
void ndem_dem_point_motion(ndem_dem_point *p, const struct ndem_contact_point *pt,
                           const double u[3]);
/* One point's smooth DEM law (hertz, linear, hunt_crossley): its normal
 * force (with the point's first and last step's share), the friction on
 * this side (the tangential spring, cut at mu f_n) and its energies added;
 * old: its NDEM_SHAPE_HIST history of last step (NULL for a new point),
 * hist: this step's. Shaped particles' points and bodies' points on
 * geometry (rigid_contact_dem.c) alike. */
void ndem_dem_point_law(const struct ndem_sim *sim, const ndem_dem_point *p, const double *old,
                        double *hist, double *fn, double ft[3], double *elastic, double *dissip);
/* The linear law's k_n: connectors of lengths la, lb (moduli ea, eb) in
 * series over the cross-section pi min(la, lb)^2 (Woo eq. 3). */
double ndem_dem_linear_connector(double la, double lb, double ea, double eb);
/* Before the forces: room for this step's histories (0, or -1: out of memory). */
int ndem_dem_shape_reserve(struct ndem_sim *sim);
/* After the forces (and the dem's own history swap): this step's points
 * become the history. */
void ndem_dem_shape_keep(struct ndem_sim *sim);
/* Checkpoint: the history as doubles (NDEM_SHAPE_HIST_CONTACT per contact
 * of the dem's history); read after the dem's state. */
size_t ndem_dem_shape_state_size(const struct ndem_sim *sim);
const double *ndem_dem_shape_state(const struct ndem_sim *sim);
int ndem_dem_shape_state_read(struct ndem_sim *sim, const void *in, size_t count);

#endif
