/* loads.h (internal) - the force and torque the particles exert on each
 * geometry during a step (ndem_sim_geometry_load, ndem.h): NDEM sums the
 * rows' final impulses over h, smooth DEM its contact forces. Sums run
 * serially in contact order, so every thread count gives the same bits. */
#ifndef NDEM_LOADS_H
#define NDEM_LOADS_H

struct ndem_sim;

/* NDEM_LOAD_STRIDE doubles per geometry in ndem_sim.loads: force, torque,
 * and the reference point the torque is taken about. */
#define NDEM_LOAD_STRIDE 9

/* Zeros every geometry's load and fixes this step's reference points. */
void ndem_loads_clear(struct ndem_sim *sim);
/* Adds force f acting on geometry g, exerted by the particle at xa, with
 * the torque ta it exerts about xa; the torque about the reference point c
 * is ta + (xa - c) x f. */
void ndem_loads_add(struct ndem_sim *sim, int g, const double *xa, const double *f,
                    const double *ta);
/* A row's impulse on b (solver.c), contact k of the step: J = lam[0] n +
 * lam[1] t1 + lam[2] t2 at the contact point xa + la n, and the rolling
 * and twisting impulse lam[3] t1 + lam[4] t2 + lam[5] n; lam[0] carries the
 * row scale, and the impact stage's impulses (its own lambdas, no row
 * scale) add when it ran this step. Over the step they are the force times
 * h. Shared by the loads and the contact network (contact_list.c). */
void ndem_row_impulses(const struct ndem_sim *sim, long k, double n[3], double t1[3], double t2[3],
                       double lam[6], double *la);
/* NDEM: the geometry rows' impulses of this step (impact stage included)
 * over h, after the continuous stage. */
void ndem_loads_ndem(struct ndem_sim *sim);

#endif
