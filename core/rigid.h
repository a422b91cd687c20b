/* rigid.h (internal) - rigid bodies of finite mass moved by their contacts
 * with the particles (`dynamic` geometry): their state, the proxy rows
 * that couple them into the NDEM solve, and their integration (NDEM and
 * smooth DEM). docs/engine.md, "Dynamic bodies".
 *
 * A body is attached to a geometry and a feature of it (-1: every feature),
 * so that one geometry can carry several bodies (the faces of a
 * stress-controlled box). Its pose is the geometry's pose, pivot at the
 * centre of mass; the pose's velocity and spin are the body's v and w.
 * Bodies of one feature (the walls of a stress-controlled box, walls.h)
 * share the solve and the sums; such a body moves its face (the def's min
 * or max along the face's normal, lin_free that normal, no turn) instead
 * of the pose, is driven by its motor row (walls.c: at most stress times
 * the face's area, speed-capped),
 * keeps its own contact force per step for the face's stress, and in
 * smooth DEM moves by that force (the loads are per geometry). */
#ifndef NDEM_RIGID_H
#define NDEM_RIGID_H

#include "contacts.h"

struct ndem_sim;

typedef struct ndem_rigid_body {
    int geometry;          /* the geometry it moves */
    int feature;           /* -1: all of the geometry's features, else that one */
    double inv_mass;       /* 1 / M */
    double inertia[9];     /* about the centre of mass, the def's axes (body frame) */
    double lin_free[9];    /* projector on the free translations (locks, a plane's normal) */
    unsigned rot_lock;     /* NDEM_LOCK_RX.. bits */
    double inv_world[9];   /* S (S^T I_w S)^-1 S^T: world inverse inertia on the free turns */
    double im_lin, im_rot; /* upper bounds of |inverse mass| along free translations, turns */
    double v[3], w[3];     /* velocity of the centre of mass, angular velocity (world) */
    double force[3];       /* constant external force (N) */
    double sum_lin[3], sum_rot[3]; /* impulses of the set being summed (rigid.c) */
    double load[3]; /* a wall (feature >= 0): the step's contact force on it (walls.c) */
    /* a wall's motor row (walls.c): its impulse this step (inward, N s),
     * bounds and target inward speed */
    double motor, motor_lo, motor_hi, motor_target, motor_stop;
} ndem_rigid_body;

/* A row of the solve on a body's geometry (a proxy row): its slot, its
 * body, the lever from the centre of mass to the contact point, the
 * number of the body's rows in its set (mass splitting) and the set's
 * starting multipliers. */
typedef struct ndem_rigid_row {
    long at;
    int body, split;
    double r[3];
    float snap[6];
} ndem_rigid_row;

typedef struct ndem_rigid {
    int count;
    ndem_rigid_body *body;
    int *first; /* per geometry: its first body, -1: none; a geometry's bodies are consecutive */
    ndem_rigid_row *rows; /* this step's body rows, by set, pair order within a set */
    long row_count, row_capacity;
    long set_start[NDEM_COLOR_SETS + 1];
    int *seen;                     /* per body, scratch of the row list's build */
    struct ndem_rcontact *contact; /* bodies against static geometry (rigid_contact.h), or NULL */
} ndem_rigid;

/* The bodies of the scene's dynamic geometry (sim->rigid stays NULL when
 * there are none, so such scenes run exactly as before). Returns 0, or -1
 * with a message (out of memory, or no inertia for a shape without its
 * mass properties). */
/* A dynamic closed mesh turns about its centroid: sets g's pivot there
 * before its pose is made (a box or cylinder's centre is its reference
 * point already; an open mesh keeps its position). */
void ndem_rigid_place_pivot(ndem_geometry_def *g);
int ndem_rigid_create(struct ndem_sim *sim, char *err, size_t err_len);
void ndem_rigid_destroy(ndem_rigid *r);

/* The body of geometry g's feature, or -1 (static or kinematic). */
int ndem_rigid_body_of(const ndem_rigid *r, int g, int feature);

/* ---- NDEM (rows.c, solver.c) ---- */
/* After the rows are prepared: the list of body rows by set, their levers
 * and splits. Returns 0 or -1 (out of memory). */
int ndem_rigid_rows(struct ndem_sim *sim);
/* Stage kinds of set_begin/set_end (solver.c's stages). */
enum { NDEM_RIGID_IMPACT, NDEM_RIGID_WARM, NDEM_RIGID_CONTINUOUS };
/* Before a set of rows is solved: its body rows' proxies from the bodies'
 * velocities, and their multipliers as they are. One thread. */
void ndem_rigid_set_begin(struct ndem_sim *sim, int set, int stage);
/* After it: each body takes the sum of its rows' impulse changes, in row
 * order (the same bits for any thread count). One thread. */
void ndem_rigid_set_end(struct ndem_sim *sim, int set, int stage);
/* 1 when set q holds a body row. */
int ndem_rigid_set_has_rows(const ndem_rigid *r, int set);
/* The geometry velocities of the body rows (the right-hand side's) from
 * the bodies' velocities now (after the impact stage). */
void ndem_rigid_refresh_rows(struct ndem_sim *sim);
/* Gravity and the external force into the bodies' free velocities. */
void ndem_rigid_free_velocity(struct ndem_sim *sim);

/* ---- smooth DEM: the step's contact loads, gravity, force (explicit) ---- */
void ndem_rigid_dem(struct ndem_sim *sim);

/* ---- both: the poses by the new velocities (integrate stage) ---- */
void ndem_rigid_integrate(struct ndem_sim *sim);
/* How far a body's surface may move in a step (the geometry search's
 * reach): 2 h max (|v| + |w| extent). */
double ndem_rigid_reach(const struct ndem_sim *sim);
/* The bodies' kinetic energy, 1/2 M v^2 + 1/2 w . I_w w (J; 0 without
 * bodies): step.c adds it to the particles'. */
double ndem_rigid_kinetic_energy(const struct ndem_sim *sim);
/* A body with a non-finite state: its index, or -1. */
int ndem_rigid_bad(const ndem_rigid *r);

/* Checkpoint (format 5): v and w of every body (a wall's w is zero: its
 * motor impulse, the next step's warm start, takes w[0]'s place; its face
 * is the def's min or max, which the checkpoint keeps). */
size_t ndem_rigid_state_size(const ndem_rigid *r);
void ndem_rigid_state_write(const ndem_rigid *r, double *out);
void ndem_rigid_state_read(struct ndem_sim *sim, const double *in);

#endif
