/* dem_private.h (internal) - the state of smooth DEM shared by dem.c (forces,
 * bonds) and dem_state.c (checkpoints). */
#ifndef NDEM_DEM_PRIVATE_H
#define NDEM_DEM_PRIVATE_H

#include "contacts.h"
#include "dem.h"

#include <math.h>

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
/* doubles per material pair in ndem_dem.hertz: k_n / sqrt(R*) = 2 E / (3 (1 - nu^2)) and
 * k_t / sqrt(R* delta) = 8 G / (2 (2 - nu)) (dem.c) */
#define NDEM_DEM_HERTZ 2

/* A chunk of contacts' part of the step's books (dem_forces.c): summed in
 * pair order within the chunk, then chunk by chunk in chunk order. */
typedef struct ndem_dem_book {
    double elastic, dissip, maxov;
    long touching, geo;
    long listed_geo; /* geometry contacts listed (touching or not): their indices in geo_at */
} ndem_dem_book;

struct ndem_dem {
    long hist_bodies, hist_count, start_cap;
    long key_cap, hist_cap, next_cap; /* capacities of hist_key, hist, next (contacts) */
    long *hist_start;                 /* last step's contacts, CSR by body a */
    ndem_contact_key *hist_key;
    double *hist;   /* NDEM_DEM_HIST per contact */
    double *next;   /* this step's history, pair order; swapped with hist after the step */
    long cap;       /* capacity of force and energy */
    double *force;  /* NDEM_DEM_FORCE per contact */
    double *energy; /* 3 per contact: elastic energy, energy dissipated this step, overlap */
    long body_cap;
    double *acc; /* 6 per body: force, torque */
    /* per body, the particle contacts it is b of, in pair order (CSR): with
     * the contacts it is a of (contacts.start) they let each body sum its own
     * forces in pair order on any thread (dem_forces.c) */
    long *as_b_start; /* bodies + 1 */
    int *as_b;
    long as_b_start_cap, as_b_cap;
    int as_b_ok; /* as_b is that of the history's keys (hist_key, hist_count) */
    /* during the forces stage: this step's contacts are the history's, in the
     * same order (dem_forces.c), so contact k's history is at k */
    int hist_same;
    /* during the forces stage: the material pair of every particle pair when
     * all bodies share one material (most scenes), else -1 (dem_forces.c) */
    int particle_pair;
    ndem_dem_book *book; /* per chunk of contacts */
    long book_cap;
    int *geo_at; /* per chunk from its first contact's index: its geometry contacts */
    long geo_at_cap;
    double dissipated; /* cumulative, J */
    long bond_count, bond_cap;
    int *bond_a, *bond_b; /* bonded pairs, sorted by (a, b) */
    double *bond; /* NDEM_DEM_BOND per bond: rest length, tangential[3], torsion, bending[3] */
    int *bond_broken;
    double *damp; /* per material pair: the law's damping p for its restitution (dem_models.c) */
    ndem_damp_table *dashpot; /* hertz, per material pair: its step damping (dem_models.c) */
    double *hertz;            /* hertz: NDEM_DEM_HERTZ per material pair */
    long dashpot_count;
    int lanes; /* the law's lane kernel (ndem_dem_lanes_usable), 0: scalar (NDEM_DEM_LANES=0) */
};

/* Last step's history of contact k (key): at index k itself when the
 * contact list did not change (the contact skin keeps it for many steps;
 * hist_same: the whole list was compared once this step), else searched
 * among body a's. Keys are unique, so both find the same. */
static inline const double *ndem_dem_hist_find(const ndem_dem *d, long k0, ndem_contact_key key)
{
    if (d->hist_same) return &d->hist[NDEM_DEM_HIST * k0]; /* keys compared once a step */
    if (key.a >= d->hist_bodies) return NULL;
    if (k0 < d->hist_count && ndem_key_same(d->hist_key[k0], key))
        return &d->hist[NDEM_DEM_HIST * k0];
    for (long k = d->hist_start[key.a]; k < d->hist_start[key.a + 1]; k++)
        if (ndem_key_same(d->hist_key[k], key)) return &d->hist[NDEM_DEM_HIST * k];
    return NULL;
}

/* A contact's first and last step (issue 14): the impulse h f of a step
 * stands for the force over [t - h/2, t + h/2], but a contact begins or ends
 * within a step, and a full step of dashpot there moves e by about kappa b
 * (dem_models.c). So the dashpot of those steps is scaled by the share of the
 * interval the contact spans: the first step (no history) touches since
 * delta / ddelta, 1/2 + delta / (h ddelta); the last (receding, and parting
 * before the next step at the speed v' this step's force, share included,
 * leaves) parts delta / |v'| after t, 1/2 + delta / (h |v'|) (a fixed point:
 * ndem_dem_last_share). Both within (1/2, 3/2]; 1 in between. The spring's share of the same error
 * is (omega h)^2 / 8. Every normal force goes through it: a sphere contact's (dem.c; dem_lanes.c
 * has its lane copy) and each point of a shaped contact (dem_shape.c, with
 * the point's depth, speed, history and mass share). */
typedef struct ndem_dem_edge {
    double delta, ddelta, h, inv_m; /* inv_m: 1 / the mass the force moves */
    int first;                      /* 1: no history (the contact's first step) */
} ndem_dem_edge;

/* The last step's share (v < 0, receding): the pair parts delta / w(s)
 * after t, w(s) the receding speed that the force WITH the share s leaves
 * (deciding it from the unshared force's speed let a linear pair that the
 * share said parts stay for another half step of damping: up to -2.4% of e
 * on a plane), so s is the fixed point s = 1/2 + D / w(s), D = delta / h. The force
 * fel + s g v is linear in s, so is w: w(s) = A - B s, A = k fel - v,
 * B = -k g v (k = h inv_m), and (s - 1/2)(A - B s) = D is
 * B s^2 - (A + B/2) s + A/2 + D = 0, whose smaller root (-> 1/2 + D / A as
 * B -> 0; no division by B) is
 *     s = (A + 2 D) / (A + B/2 + sqrt((A - B/2)^2 - 4 B D)).
 * It parts within the step when 1/2 < s < 3/2 (then w(s) > D). Clamped, the
 * force is 0 past the share fel / (-g v) and w = -v there:
 * s = 1/2 + D / (-v); the smaller of the two that holds is the clamped
 * force's fixed point. No fixed point, but a full step parts it (w(1) > D):
 * the dashpot decides whether it parts, at s_max = (A - D) / B in (1, 3/2)
 * w = D, it parts about t + h, spanning about 3/2 of a step. Parting with
 * s_max gives it 3/2 - s_max too little; staying (s just above s_max) gives
 * its next step about 1/2, s_max - 1 too much: the nearer, so at most 1/4
 * of a step off. Else it does not part: 1, a step in between.
 * dem_lanes.c's edge_force does the same operations. */
static inline double ndem_dem_last_share(const ndem_dem_edge *e, double fel, double g, int clamp)
{
    double v = e->ddelta, k = e->h * e->inv_m, d = e->delta / e->h;
    double a = k * fel - v, b = -k * g * v, q = a - 0.5 * b, disc = q * q - 4.0 * b * d;
    double s = 2.0; /* none yet */
    if (disc >= 0) {
        double sp = (a + 2.0 * d) / (a + 0.5 * b + sqrt(disc));
        if (sp > 0.5) s = sp;
    }
    if (clamp && d < -v) s = ndem_min(s, 0.5 + d / -v);
    if (s < 1.5) return s;
    double sm = b > 0 ? (a - d) / b : 0.0;
    if (sm > 1) return sm >= 1.25 ? sm : sm + 1e-6; /* 1e-6: rounding must not part it */
    return 1.0;
}

/* The normal force fel + g ddelta with the dashpot g scaled for the edges;
 * clamp: never pulls. */
static inline double ndem_dem_edge_force(const ndem_dem_edge *e, double fel, double g, int clamp)
{
    double s = 1.0, v = e->ddelta;
    if (e->first && v > 0 && e->delta < v * e->h) s = 0.5 + e->delta / (v * e->h);
    else if (!e->first && v < 0) s = ndem_dem_last_share(e, fel, g, clamp);
    double fn = fel + s * g * v;
    return clamp && fn < 0 ? 0.0 : fn;
}

/* One contact k: force and torques (NDEM_DEM_FORCE numbers: force on a,
 * torque on a, torque on b, then the contact network's), the history for the next step, and its
 * elastic energy, dissipation of this step and overlap (dem.c). Reads only last step's history:
 * contacts run in parallel. */
void ndem_dem_contact_force(const struct ndem_sim *sim, long k, double *out, double *hist_out,
                            double *energy);
/* The scene's model's lane kernel: 1 + its entry in dem_lanes.c's table, or
 * 0 when it has none for the CPU's instruction set (sim->isa), or a pair has
 * van der Waals: the scalar law. */
int ndem_dem_lanes_usable(const struct ndem_sim *sim);
/* Contacts [lo, hi) into force, next and energy: plain spheres' pairs and
 * spheres on geometry in packets of NDEM_DLANES lanes, the others and the
 * remainders by ndem_dem_contact_force; the same bits either way (dem_lanes.c). */
void ndem_dem_lanes_range(const struct ndem_sim *sim, long lo, long hi);
/* One bond: adds its forces and torques to the bodies' sums (serial, bond order). */
void ndem_dem_bond_force(struct ndem_sim *sim, long k);

#endif
