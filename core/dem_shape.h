/* dem_shape.h (internal) - smooth DEM contacts of shaped particles
 * (dem_shape.c): per manifold point forces and springs, their history. */
#ifndef NDEM_DEM_SHAPE_H
#define NDEM_DEM_SHAPE_H

#include "contacts.h"

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
