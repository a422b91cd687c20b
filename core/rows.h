/* rows.h (internal) - the solver's rows: packets of NDEM_LANES rows of one
 * colour (what a PGS sweep streams), the cold per-row data read once per
 * step (rows.c), and the solve stage (solver.c). */
#ifndef NDEM_ROWS_H
#define NDEM_ROWS_H

#include "lanes.h"

#include <stddef.h>

struct ndem_sim;

/* NDEM_LANES contact row sets of one colour, field after field (structure of
 * arrays): what a PGS sweep streams (Wang et al. eqs. 16-18), 68 bytes per
 * contact in float32, one vector load per field (ndem_packet_bounds adds 12
 * where a material pair has twisting resistance or adhesion). a and b index velocity
 * slots (ndem_contacts.vs): bodies first, then one slot per geometry row
 * holding the geometry's velocity with zero inverse masses, so wall rows
 * and particle rows share one kernel. The tangents are rebuilt from n in
 * the sweep (ndem_row_tangent, lane by lane).
 * Unused lanes (past ndem_contacts.fill) are zeros on a zero slot. */
typedef struct ndem_packet {
    union {
        struct {
            int a[NDEM_LANES], b[NDEM_LANES];
            ndem_fv sig_n, q_n;
            ndem_fv mu, mur; /* friction, mu_r r* */
        };
        /* After the continuous sweeps these six fields are spent: the impact
         * stage's impulses of the step (normal, t1, t2, r1, r2, twist) move
         * here (ndem_solve_continuous), so that its own buffer can be the
         * warm-start history's, dead from the warm start to the history's
         * store (ndem_history_scratch); read when ndem_step_stats.impacts > 0. */
        ndem_fv impact[6];
    };
    ndem_fv n[3];
    ndem_fv la, lb; /* lever arms |p - x_a|, |p - x_b| */
    ndem_fv s;      /* normal row scale e_H delta^(e_H - 1) */
    ndem_fv lam[5]; /* normal, t1, t2, r1, r2 (the twist: ndem_packet_bounds) */
} ndem_packet;

/* The bounds of a packet's twisting and normal rows and its twist impulse,
 * kept beside the packets (ndem_contacts.bounds) only when some material
 * pair has twisting resistance or adhesion (ndem_material_table.row_bounds);
 * without one the bounds are +0 in every row, so the twist impulse, clamped
 * to [-0, +0], is +0 too, and the sweep uses zeros, the same values (12
 * bytes a row, 30 B a particle at bed-100k, neither stored nor streamed). */
typedef struct ndem_packet_bounds {
    ndem_fv mut;   /* mu_t r* */
    ndem_fv lo_n;  /* lower bound of the normal impulse (adhesion, <= 0) */
    ndem_fv twist; /* the twist row's impulse (lam[5] of the kernel) */
} ndem_packet_bounds;

/* The tangents of a row, functions of its float32 normal alone (Frisvad's
 * construction, vec.h, in float): t1 here, t2 = n x t1. The sweep's vector
 * version performs the same operations, so both see the same basis. */
static inline void ndem_row_tangent(const float *n, float *t1)
{
    float s = n[2] >= 0.0f ? 1.0f : -1.0f;
    float a = -1.0f / (s + n[2]);
    t1[0] = 1.0f + s * n[0] * n[0] * a;
    t1[1] = s * (n[0] * n[1] * a);
    t1[2] = -s * n[0];
}

/* Per row (packet * NDEM_LANES + lane), read once per step: right-hand side,
 * impact stage, warm start, statistics (16 bytes; the impact stage's target
 * speeds go straight to ndem_contacts.impact_v). A geometry row's index (its
 * ug entry) is its b slot less the body count (ndem_row_geometry). */
typedef struct ndem_row_cold {
    float delta;        /* overlap (negative: gap) */
    float phi, ups;     /* constraint phi and Upsilon_n of the SPOOK normal row */
    signed char impact; /* 0: skip in impact stage, 1: resting row, 2: impacting */
    signed char gap;    /* 1: bodies apart; a speculative row, not a SPOOK spring */
    signed char geo;    /* 1: b is geometry (its own slot past the bodies) */
} ndem_row_cold;

/* The geometry row index of row `at` (cold geo set) from its b slot: the
 * colouring writes b = bodies + index for geometry rows (rows.c); valid until
 * the packets' spent fields take the impact impulses (ndem_packet.impact). */
static inline int ndem_row_geometry(const ndem_packet *packets, long at, long bodies)
{
    return packets[at / NDEM_LANES].b[at % NDEM_LANES] - (int)bodies;
}

/* Rows from the coloured contacts: Hertz mapping, impact classification and
 * warm start (rows.c). */
int ndem_contacts_prepare(struct ndem_sim *sim);
/* The impact stage: Newton impacts on the islands that hold an impacting
 * contact, impulses of its own (solver.c). */
void ndem_solve_impact(struct ndem_sim *sim);
/* The continuous stage: SPOOK right-hand side with the post-impact
 * velocities, gravity and external forces, warm start, PGS sweeps. */
void ndem_solve_continuous(struct ndem_sim *sim);

/* The force-overflow switch NDEM_OVERFLOW (NULL or "": colours as usual;
 * "all": every row goes to the overflow set, solved serially in pair order,
 * a reference for the coloured parallel solve in tests). Sets *all and
 * returns 0, or -1 with a message for another value. */
int ndem_overflow_switch(const char *value, int *all, char *err, size_t err_len);

/* The solver sweep's variant from NDEM_ISA (NULL or "": the best this CPU
 * runs; "v4", "v3" or "base" force x86-64-v4, x86-64-v3 or baseline code,
 * so that tests can check that every variant gives the same bits). Returns
 * the variant (>= 0), or -1 with a message when it is unknown or this CPU
 * cannot run it. */
int ndem_solver_isa(const char *name, char *err, size_t err_len);
/* The variant's name, "v4", "v3" or "base". */
const char *ndem_solver_isa_name(int isa);
/* The sweeps' colour order from NDEM_SWEEP (NULL or "": "forward";
 * "reverse"; "symmetric": forward and backward in turn): its index, or -1
 * with a message. */
int ndem_sweep_order(const char *name, char *err, size_t err_len);
/* Where an order puts the rows on static geometry: mixed with the particle
 * rows in pair order's greedy colours (forward, reverse, symmetric), in
 * colours before the particle rows' (walls-first) or after them
 * (walls-last); ndem_contacts_color. */
enum { NDEM_WALLS_MIXED, NDEM_WALLS_FIRST, NDEM_WALLS_LAST };
int ndem_sweep_walls(int order);
/* NDEM_WARM_ROWS: NULL, "" or "all" (0), or "normal" (1: the warm start
 * keeps last step's normal impulses only), else -1 with a message. */
int ndem_warm_rows_switch(const char *value, char *err, size_t err_len);
/* The impact stage's reach in contacts when NDEM_IMPACT_REACH is unset: the
 * impact stage's impulses fall to the bed's own resting level within it
 * (docs/performance.md, "Session 13: the impact stage"), and every island of
 * the validation scenes (the drum, the column) is narrower, so they keep the
 * islands' bits. */
#define NDEM_IMPACT_REACH_DEFAULT 30
/* NDEM_IMPACT_REACH: NULL or "" (NDEM_IMPACT_REACH_DEFAULT), "island" (0: the
 * impact stage sweeps every island with an impacting contact), or a number of
 * contacts N >= 1 (the rows within N contacts of an impacting one, solver.c),
 * else -1 with a message. */
int ndem_impact_reach_switch(const char *value, char *err, size_t err_len);
/* NDEM_PROJECTION: NULL, "" or "disc" (0: the friction and rolling pairs
 * scaled onto the disc mu lambda_n), "box" (1: each row clamped alone) or
 * "disc-previous" (2: the disc of the normal impulse before the row's
 * update), else -1 with a message (solver.c). */
int ndem_projection_switch(const char *value, char *err, size_t err_len);

#endif
