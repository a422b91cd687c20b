/* dem_private.h (internal) - the state of smooth DEM shared by dem.c (forces,
 * bonds) and dem_state.c (checkpoints). */
#ifndef NDEM_DEM_PRIVATE_H
#define NDEM_DEM_PRIVATE_H

#include "contacts.h"
#include "dem.h"

/* doubles of history per contact: tangential[3], rolling[3], one for the
 * model (hunt_crossley: arrival speed; luding, linear_elastic6: twist), and
 * 1 once the bodies touch (a near pair is listed before it touches) */
#define NDEM_DEM_HIST 8
#define NDEM_DEM_BOND 8
/* doubles per contact in ndem_dem.force: force on a, torque on a, torque on
 * b, then what the contact network (contact_list.c) reads back: the unit
 * normal n, the lever arm la and the normal force on b (positive: pushes
 * b away from a) */
#define NDEM_DEM_FORCE 14

struct ndem_dem {
    long hist_bodies, hist_count, hist_cap, start_cap;
    long *hist_start; /* last step's contacts, CSR by body a */
    ndem_contact_key *hist_key;
    double *hist;   /* NDEM_DEM_HIST per contact */
    long cap;       /* capacity of the per-contact arrays below */
    double *next;   /* this step's history, pair order */
    double *force;  /* NDEM_DEM_FORCE per contact */
    double *energy; /* 3 per contact: elastic energy, energy dissipated this step, overlap */
    long body_cap;
    double *acc;       /* 6 per body: force, torque */
    double dissipated; /* cumulative, J */
    long bond_count, bond_cap;
    int *bond_a, *bond_b; /* bonded pairs, sorted by (a, b) */
    double *bond; /* NDEM_DEM_BOND per bond: rest length, tangential[3], torsion, bending[3] */
    int *bond_broken;
    double *damp; /* per material pair: the law's damping p for its restitution (dem_models.c) */
};

#endif
