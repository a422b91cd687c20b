/* dem.h (internal) - smooth DEM contact forces and integration (dem.c). */
#ifndef NDEM_DEM_H
#define NDEM_DEM_H

#include "ndem.h"

#include <stddef.h>

struct ndem_sim;
typedef struct ndem_dem ndem_dem;

ndem_dem *ndem_dem_create(const struct ndem_sim *sim);
void ndem_dem_destroy(ndem_dem *d);
/* Forces of every contact found this step, each body's sum of them and its
 * new velocity (symplectic Euler, and the generators' external forces);
 * keeps the spring history (dem_forces.c). */
int ndem_dem_forces(struct ndem_sim *sim);
/* Van der Waals attraction (magnitude) and potential of two spheres of
 * radius r at surface gap g (libgran). */
double ndem_vdw_force(double hamaker, double r, double g);
double ndem_vdw_potential(double hamaker, double r, double g);
/* The restitution mapping of each normal law (dem_models.c): the rebound
 * speed of the scaled collision with damping p (n: hunt_crossley's exponent),
 * its inverse, and the damping ratio of the scaled law at overlap y. */
double ndem_dem_law_restitution(int model, double p, double n);
double ndem_dem_law_damping(int model, double e, double n);
double ndem_dem_law_zeta(int model, double p, double n, double y);
/* kappa of the law: a dashpot b = h g / m at a contact's first or last step
 * moves its restitution by about kappa b of e (0: not measurably) */
double ndem_dem_law_edge(int model);
/* h g / m of the dashpot g that makes symplectic Euler damp a spring of
 * frequency omega by the continuous law's ratio zeta. */
double ndem_dem_discrete_damping(double zeta, double omega_h);
/* ndem_dem_discrete_damping at one zeta, as a table of omega h up to where it
 * passes `cap` (cubic interpolation, relative error below 1e-12; the exact
 * iteration beyond): the hertz dashpot's zeta is a constant of the material
 * pair, and the iteration's six acos/exp rounds per contact and step were a
 * third of a smooth-DEM step (docs/performance.md). */
#define NDEM_DAMP_NODES 2048
typedef struct ndem_damp_table {
    double zeta, inv_step, end;
    double *g; /* b / (omega h) at the nodes */
} ndem_damp_table;
int ndem_damp_table_init(ndem_damp_table *t, double zeta, double cap);
double ndem_damp_table_eval(const ndem_damp_table *t, double omega_h);
void ndem_damp_table_free(ndem_damp_table *t);

/* Bonds every touching pair (gap below 1% of the smaller radius) among
 * bodies [first, end) (libgran "Bonded contact force"). */
int ndem_dem_bond_range(struct ndem_sim *sim, long first, long end);
/* Bonds listed pairs (indices into the bodies from `first` on) at their
 * present distance, touching or not. */
int ndem_dem_bond_list(struct ndem_sim *sim, long first, const double *pairs, long count);

size_t ndem_dem_state_size(const struct ndem_sim *sim);
void ndem_dem_state_write(const struct ndem_sim *sim, unsigned char *p);
/* key_ints: ints per history key, 2 (format 4) or 1 (format 3) */
int ndem_dem_state_read(struct ndem_sim *sim, const unsigned char *p, size_t len, int key_ints);

#endif
