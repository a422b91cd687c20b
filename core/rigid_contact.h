/* rigid_contact.h (internal) - contacts between a dynamic body and static
 * geometry (docs/engine.md, "Body against geometry"), NDEM rows here and
 * smooth DEM forces (rigid_contact_dem.c): a dynamic box, cylinder or
 * closed mesh, as the convex polyhedron of its corners (a cylinder's rim
 * points, a mesh's hull), against a static plane, a solid box or cylinder,
 * an inside box's faces, a drum (inside cylinder) or a mesh, and (both
 * methods) against another such body. One pair per (body, geometry, feature) or two
 * bodies, at most NDEM_MANIFOLD_POINTS points, rows as the general rows'
 * (rows_general.h) on the bodies' own velocities, solved after the SIMD
 * packets of every sweep by one thread. A scene with no such pair has none
 * of this (ndem_rigid.contact NULL) and keeps every bit. */
#ifndef NDEM_RIGID_CONTACT_H
#define NDEM_RIGID_CONTACT_H

#include "ndem.h"

#include <stddef.h>

struct ndem_sim;
struct ndem_rigid;
typedef struct ndem_rcontact ndem_rcontact;

/* 1 when geometry g of the count is a dynamic body with a hull (a box, a
 * cylinder, a closed mesh) and some other geometry is static with an entry
 * in the contact table: the body gets pairs, whatever their distance. The
 * job parser refuses at submission what ndem_rcontact_create would. */
int ndem_rcontact_can_touch(const ndem_geometry_def *geometry, int count, int g);
/* 1 when geometry g is such a body and another geometry is one too: the
 * two get a pair (both methods). */
int ndem_rcontact_can_touch_body(const ndem_geometry_def *geometry, int count, int g);
/* 1 when smooth DEM's contact model has a point law for those pairs
 * (hertz, linear, hunt_crossley: dem_shape.c's); NDEM always has rows. */
int ndem_rcontact_model_supported(ndem_contact_model model);

/* The pairs of the scene's bodies and static geometry (after the bodies are
 * made): r->contact stays NULL without any. 0, or -1 with a message. */
int ndem_rcontact_create(struct ndem_sim *sim, struct ndem_rigid *r, char *err, size_t err_len);
void ndem_rcontact_destroy(ndem_rcontact *c);

/* Stage "prepare": each pair's points within the step's reach and their
 * rows (Hertz mapping, impact class). 0 (nothing to do without pairs). */
int ndem_rcontact_prepare(struct ndem_sim *sim);
/* Smooth DEM (rigid_contact_dem.c), after the particles' forces and
 * before the bodies' explicit step (ndem_rigid_dem): each pair's touching
 * points get the pair's contact law as a shaped particle's points do
 * (dem_shape.c), the force on the geometry's load and minus it on the
 * body's, which ndem_rigid_dem integrates; energies and touching pairs
 * into the step's statistics. Serial in pair order. 0, or -1 out of
 * memory (the pairs of two bodies, found anew each step). */
int ndem_rcontact_dem_forces(struct ndem_sim *sim);
/* Checkpoint (format 8, smooth DEM): the geometry pairs' point histories
 * as doubles (NDEM_SHAPE_HIST per point, 4 points per pair; none without
 * pairs); read back -1 when the count is not this scene's. */
size_t ndem_rcontact_dem_state_size(const struct ndem_sim *sim);
void ndem_rcontact_dem_state_write(const struct ndem_sim *sim, double *out);
int ndem_rcontact_dem_state_read(struct ndem_sim *sim, const void *in, size_t count);
/* Checkpoint (format 9, smooth DEM): the pairs of two bodies with a point
 * kept, as entries of NDEM_RC_BODY_ENTRY doubles (body, other body, then
 * NDEM_SHAPE_HIST per point, 4 points), in pair order; only in a scene
 * with such pairs (has_body_pairs). Read back they become the pairs of
 * two bodies until the next step finds them anew (their springs go on);
 * -1 when an entry names no two bodies with hulls of this scene (or comes
 * out of order). */
#define NDEM_RC_BODY_ENTRY (2 + 4 * 6)
int ndem_rcontact_dem_has_body_pairs(const struct ndem_sim *sim);
size_t ndem_rcontact_dem_body_entries(const struct ndem_sim *sim);
void ndem_rcontact_dem_body_write(const struct ndem_sim *sim, double *out);
int ndem_rcontact_dem_body_read(struct ndem_sim *sim, const void *in, size_t entries);
/* Rows with a point this step (0 without pairs). */
long ndem_rcontact_rows(const struct ndem_sim *sim);
/* Impact stage: impacting points; then, with the solver's union-find
 * arrays (body b at index particles + b), marks the islands of bodies with
 * an impacting point and drops the rows of the islands not hit. */
long ndem_rcontact_impacts(const struct ndem_sim *sim);
long ndem_rcontact_islands(struct ndem_sim *sim, int *parent, int *hit);
/* The SPOOK right-hand sides from the bodies' post-impact velocities. */
void ndem_rcontact_right_hand_side(struct ndem_sim *sim);
/* One sweep of every pair's rows in the stage (rows_general.h's stage
 * numbers) on the bodies' velocities. One thread. */
void ndem_rcontact_sweep(struct ndem_sim *sim, int stage, int reverse);
/* Loads stage: each point's impulse (both stages) over h on the geometry,
 * and minus it on the body. */
void ndem_rcontact_loads(struct ndem_sim *sim);
/* Touching pairs into the step's statistics. */
void ndem_rcontact_stats(const struct ndem_sim *sim, long *touching, long *geometry,
                         double *max_overlap);

#endif
