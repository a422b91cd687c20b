/* rows_general.h (internal) - NDEM's general rows: the contacts of shaped
 * particles (docs/shapes.md, "NDEM rows"). Per manifold point a normal row
 * and two friction rows with full vector lever arms (r x n, r x t) and each
 * body's world inverse inertia, solved one scalar point after another,
 * pair by pair, the pairs coloured like the SIMD rows (no body twice in a
 * colour) and each colour split among threads, after the SIMD packets of
 * every sweep. Spheres keep the SIMD rows (rows.c); a scene without shapes
 * has no general rows (sim->general is NULL) and runs as before. */
#ifndef NDEM_ROWS_GENERAL_H
#define NDEM_ROWS_GENERAL_H

#include "contacts.h"
#include "material.h"
#include "shape_collide.h"

#include <stddef.h>
#include <stdint.h>

struct ndem_sim;

/* One manifold point's three rows. Bodies p, q in collider order: for two
 * particles the lower creation id first, so the points' ids (and the warm
 * start) survive a reorder; q = -1 for geometry. n points from p into q. */
typedef struct ndem_grow {
    int p, q;
    double x[3], n[3], t[3][3]; /* point; t[0] = n, t[1], t[2] the tangents */
    double jp[3][3], jq[3][3];  /* r_p x t[d], r_q x t[d] */
    double mp[3][3], mq[3][3];  /* I_p^-1 (r_p x t[d]), I_q^-1 (r_q x t[d]) (world) */
    double ug[3];               /* geometry: its surface velocity at the point */
    double inv_d[3], inv_k[3];  /* 1 / diagonal: continuous (normal compliance), impact */
    double s, sig_n, phi, ups, q_n, mu, delta, v_target;
    double lam[3], imp[3]; /* continuous (normal scaled by s), impact stage */
    int impact, gap;       /* impact: 0 none, 1 touching, 2 impacting (solver.c) */
    unsigned id;           /* the point's persistent id (shape_collide.h) */
} ndem_grow;

/* A contact of a shaped particle: its points [first, first + count);
 * blk: its Delassus block's offset in ndem_general.blk (pairs of 2 to
 * NDEM_GENERAL_BLOCK points). */
typedef struct ndem_gpair {
    ndem_contact_key key;
    long first, blk;
    int count, touching;
} ndem_gpair;

/* Pairs of up to this many points are solved as a block in the
 * continuous stage (rows_general_block.c). */
#define NDEM_GENERAL_BLOCK 4

/* Warm-start history entry: keyed by creation ids, so the reorder needs no
 * remap; impulses on q as world vectors. */
typedef struct ndem_ghist {
    int64_t p, q; /* creation ids; q = -1 - geometry for geometry */
    int32_t feature;
    uint32_t id;
    double n, f[3]; /* physical normal impulse, friction impulse vector */
} ndem_ghist;

typedef struct ndem_general {
    ndem_gpair *pair;
    long pair_count, pair_cap;
    ndem_grow *row;
    long row_count, row_cap;
    ndem_contact_point *pts; /* narrow-phase scratch, NDEM_CONTACT_POINTS per pair */
    long pts_cap;
    double *iw; /* 9 per body: world inverse inertia this step */
    long iw_cap;
    long *order; /* pair indices colour after colour */
    long order_cap;
    int color_count;
    long color_start[NDEM_COLOR_SETS + 1];
    ndem_color_mask *mask;
    long mask_cap;
    double *res; /* 2 per pair: this sweep's residuals (normal, friction) */
    long res_cap;
    ndem_ghist *hist, *next; /* last step's, sorted; this step's being built */
    long hist_count, hist_cap, next_cap;
    double *blk; /* the pairs' Delassus blocks (packed lower triangles) */
    long blk_cap;
} ndem_general;

/* A body's state in the solve: its velocity slot (float, shared with the
 * SIMD rows) in double; geometry has none (im 0, the point's surface
 * velocity). */
typedef struct ndem_general_body {
    double v[3], w[3], im;
    int slot;
} ndem_general_body;

/* Relative velocity of q against p at row r's point along t[e]. */
static inline double ndem_general_rel_vel(const ndem_grow *r, const ndem_general_body *P,
                                          const ndem_general_body *Q, int e)
{
    const double *t = r->t[e], *jq = r->jq[e], *jp = r->jp[e];
    return t[0] * (Q->v[0] - P->v[0]) + t[1] * (Q->v[1] - P->v[1]) + t[2] * (Q->v[2] - P->v[2]) +
           (jq[0] * Q->w[0] + jq[1] * Q->w[1] + jq[2] * Q->w[2]) -
           (jp[0] * P->w[0] + jp[1] * P->w[1] + jp[2] * P->w[2]);
}

/* An impulse d along t[e] on q, -d on p. */
static inline void ndem_general_apply(const ndem_grow *r, ndem_general_body *P,
                                      ndem_general_body *Q, int e, double d)
{
    if (d == 0.0) return;
    for (int k = 0; k < 3; k++) {
        P->v[k] -= P->im * d * r->t[e][k];
        P->w[k] -= d * r->mp[e][k];
        Q->v[k] += Q->im * d * r->t[e][k];
        Q->w[k] += d * r->mq[e][k];
    }
}

/* One point's rows in the stage (NDEM_GENERAL_*; solver.c's solve_packet,
 * one lane with vector lever arms): the normal row (the impact stage's
 * Newton law on unregularised terms, or the compliant row), then the two
 * friction rows projected on the Coulomb disc of the normal impulse; the
 * warm stage applies the stored impulses. res: its residuals (normal,
 * friction) added, or NULL. The shape pairs' and the bodies-on-geometry
 * point sweeps (rigid_contact.c) alike. */
void ndem_general_point_solve(ndem_grow *r, ndem_general_body *P, ndem_general_body *Q, int stage,
                              double *res);

/* The block of a pair of count points (rows_general_block.c): doubles it
 * takes (0 outside 2 to NDEM_GENERAL_BLOCK points); formed from its rows
 * (imp_imq: both bodies' inverse masses summed). */
/* A point's normal row from its depth: the Hertz-mapped compliant row of
 * the pair's material (split: the pair's touching points, which share its
 * stiffness), or a speculative gap row while the pair is apart; and its
 * friction coefficient. The shape pairs' and the bodies-on-geometry rows
 * (rigid_contact.c) alike. */
void ndem_grow_normal(const struct ndem_sim *sim, const ndem_pair_params *pp, double d_eff,
                      double split, int apart, double delta, ndem_grow *r);
long ndem_general_block_size(int count);
void ndem_general_block_form(const ndem_grow *r0, int count, double imp_imq, double *a);
/* One continuous sweep of the pair's rows as a block on P and Q (Q[j] per
 * point for geometry, q_per_point set); res: residuals added. 1 when
 * solved, 0 when the pair must take the point sweep (sliding, or a
 * singular block): nothing is changed then. */
int ndem_general_block_solve(ndem_grow *r0, int count, const double *a, ndem_general_body *P,
                             ndem_general_body *Q, int q_per_point, double *res);

/* Created with the scene when it runs NDEM with shapes (sim.c). */
ndem_general *ndem_general_create(void);
void ndem_general_destroy(ndem_general *g);

/* Stage "shapes" (step.c): moves the contacts of shaped particles out of
 * the SIMD contact list into the general pairs, keeping pair order. */
int ndem_general_split(struct ndem_sim *sim);
/* After the SIMD rows are prepared: the narrow phase of every general pair,
 * its rows (Hertz mapping, impact classification, warm start), colouring.
 * 0, or -1 out of memory. */
int ndem_general_prepare(struct ndem_sim *sim);
/* Rows, for the solver's thread count (0 without general rows). */
long ndem_general_work(const struct ndem_sim *sim);

/* Solver stages, as solver.c's (0 impact, 1 warm, 2 continuous). */
enum { NDEM_GENERAL_IMPACT, NDEM_GENERAL_WARM, NDEM_GENERAL_CONTINUOUS };
/* Inside the solver's parallel region, called by every thread: one sweep of
 * the general rows, colour after colour (reversed when `reverse`). */
void ndem_general_sweep(struct ndem_sim *sim, int stage, int reverse, int want_residual);
/* Inside the parallel region: the SPOOK right-hand sides from the
 * post-impact velocities, then every shaped body's free gyroscopic turn
 * (shape_body.c) with gravity's pre-step. */
void ndem_general_right_hand_side(struct ndem_sim *sim);
void ndem_general_pre_step(struct ndem_sim *sim);
/* Residual sums of the last sweep in pair order, added to s[0], s[1]; rows. */
long ndem_general_residuals(const struct ndem_sim *sim, double s[2]);

/* Impact stage (solver.c): impacting points; islands over the general
 * pairs (union, mark, keep: the caller's union-find arrays); zeroes the
 * impact impulses. */
long ndem_general_impacts(const struct ndem_sim *sim);
void ndem_general_island_union(struct ndem_sim *sim, int *parent);
void ndem_general_island_mark(struct ndem_sim *sim, int *parent, int *hit);
long ndem_general_island_keep(struct ndem_sim *sim, int *parent, const int *hit);

/* After the solve: loads on the geometry, touching pairs into the step's
 * statistics, this step's impulses as the next step's warm start. */
void ndem_general_loads(struct ndem_sim *sim);
void ndem_general_stats(const struct ndem_sim *sim, long *touching, long *geometry,
                        double *max_overlap);
int ndem_general_store_history(struct ndem_sim *sim);
/* General pair k as one entry of the contact network (ndem_sim_copy_contacts):
 * creation ids of p and q (or -1 - geometry), the feature, the deepest
 * point and its normal (p to q), the summed normal and friction forces on q
 * (impact stage included). 1 when active (a nonzero impulse). */
int ndem_general_contact(const struct ndem_sim *sim, long k, long ids[2], int *feature, double x[3],
                         double n[3], double *fn, double ft[3]);
/* Last step's entry of point `id` of pair (p, q, feature), or NULL. */
const ndem_ghist *ndem_general_history_find(const ndem_general *g, int64_t p, int64_t q,
                                            int32_t feature, uint32_t id);

/* Checkpoint (format 7): the history's bytes; read back with a check that
 * every entry names a body id below `ids` and a geometry feature. */
size_t ndem_general_state_size(const ndem_general *g);
const void *ndem_general_state(const ndem_general *g);
int ndem_general_state_read(struct ndem_sim *sim, const void *in, size_t bytes);

#endif
