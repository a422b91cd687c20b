/* material.h (internal) - mixed parameters of every material pair, computed
 * once at creation so that the contact kernels never mix raw per-particle
 * properties. */
#ifndef NDEM_MATERIAL_H
#define NDEM_MATERIAL_H

#include "ndem.h"

typedef struct ndem_pair_params {
    double young_modulus; /* pair modulus E */
    double poisson_ratio; /* nu of the pair (mean of the two) */
    double friction, rolling, twisting, restitution;
    double adhesion, adhesive_overlap;
    double damping_time;        /* <= 0: automatic */
    double viscosity;           /* mean eta of the two materials */
    double stiffness_ratio;     /* smooth DEM: k_t / k_n */
    double stiffness, exponent; /* hunt_crossley K and n */
    int velocity_friction;
    double hamaker, vdw_saturation; /* van der Waals (libgran) */
    double bond_stiffness, bond_damping, bond_max_force, bond_max_torque;
    double char_len, dynamic_friction;
} ndem_pair_params;

typedef struct ndem_material_table {
    int count;
    double *density;         /* per material */
    double *young;           /* per material: Young's modulus */
    ndem_pair_params *pairs; /* count * count, symmetric */
    int row_bounds;          /* a pair has twisting resistance or adhesion (rows.h) */
} ndem_material_table;

int ndem_material_table_init(ndem_material_table *t, const ndem_scene_def *def);
void ndem_material_table_destroy(ndem_material_table *t);

static inline const ndem_pair_params *ndem_pair(const ndem_material_table *t, int a, int b)
{
    return &t->pairs[a * t->count + b];
}

/* Hertz stiffness k_n = E sqrt(2 d*) / (3 (1 - nu^2)), AGX 35.4.1. */
double ndem_hertz_stiffness(double young_modulus, double poisson_ratio, double d_eff);

#endif
