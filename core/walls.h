/* walls.h (internal) - the stress-controlled box (`walls`, the triaxial
 * cell): its six walls are bodies of rigid.h of one feature each (feature
 * 2 k: the wall at min[k], 2 k + 1: at max[k]) that move their face along
 * its normal instead of the pose. docs/engine.md, "Stress-controlled box". */
#ifndef NDEM_WALLS_H
#define NDEM_WALLS_H

#include "rigid.h"

struct ndem_sim;

/* The bodies geometry g needs: 6 with walls, else 0. */
int ndem_walls_count(const ndem_geometry_def *g);
/* The six bodies of geometry gi's walls into six[0..5]. Returns 0, or -1
 * with a message (not an inside box, a dynamic one, a bad mass). */
int ndem_walls_init(struct ndem_sim *sim, int gi, ndem_rigid_body *six, char *err, size_t err_len);
/* A driven wall from its start on: infinite mass (zero inverse mass in
 * its proxies) and its inward speed; before: 1 / mass. For time t. */
void ndem_walls_mode(const struct ndem_sim *sim, ndem_rigid_body *bd, double t);
/* v += h (push + contact) / M along the wall's normal; push = stress times
 * the current area, inward; no gravity. contact: NULL (NDEM: the solve adds
 * its impulses) or the step's contact force on the wall (smooth DEM). */
void ndem_walls_push(const struct ndem_sim *sim, ndem_rigid_body *bd, const double *contact);
/* The face by h v, then the mode at the new time. */
void ndem_walls_move(struct ndem_sim *sim, ndem_rigid_body *bd);
/* Zeros the walls' contact forces of the step (loads.c). */
void ndem_walls_clear_loads(ndem_rigid *r);
/* Adds the contact force f on geometry g's feature (loads.c, dem_forces.c):
 * nothing unless that feature is a wall. */
void ndem_walls_add_load(ndem_rigid *r, int g, int feature, const double *f);
/* The velocity of geometry g's wall `feature` into ug[0..2] (contacts.c:
 * the pose of a box with walls stays still). */
void ndem_walls_face_velocity(const ndem_rigid *r, int g, int feature, double *ug);

#endif
