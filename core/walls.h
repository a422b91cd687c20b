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
/* NDEM: the wall's motor row (the seed's prismatic motor) for this step:
 * a 1-DOF row on its inward speed, target max_speed, impulse at most
 * stress times the current area times h inward and unbounded outward (the
 * brake); its warm start (the last step's impulse) and one update. A
 * driven wall (kinematic) has none. */
void ndem_walls_motor_begin(const struct ndem_sim *sim, ndem_rigid_body *bd);
/* One more update of the motor row, after a set of contact rows moved the
 * wall (rigid.c's set_end: one thread, fixed order). */
void ndem_walls_motor_solve(ndem_rigid_body *bd);
/* Smooth DEM: v += h (push + contact) / M along the normal, then the
 * speed clamped to +-max_speed (the motor's explicit equivalent). */
void ndem_walls_dem(const struct ndem_sim *sim, ndem_rigid_body *bd);
/* The face by h v, then the mode at the new time. */
void ndem_walls_move(struct ndem_sim *sim, ndem_rigid_body *bd);
/* 0, or -1 with a message naming the geometry and axis when a cell's two
 * walls met or passed each other (edge length <= 0). */
int ndem_walls_check(const struct ndem_sim *sim, char *err, size_t err_len);
/* Zeros the walls' contact forces of the step (loads.c). */
void ndem_walls_clear_loads(ndem_rigid *r);
/* Adds the contact force f on geometry g's feature (loads.c, dem_forces.c):
 * nothing unless that feature is a wall. */
void ndem_walls_add_load(ndem_rigid *r, int g, int feature, const double *f);
/* The velocity of geometry g's wall `feature` into ug[0..2] (contacts.c:
 * the pose of a box with walls stays still). */
void ndem_walls_face_velocity(const ndem_rigid *r, int g, int feature, double *ug);

#endif
