/* sim.h (internal) - the simulation object shared by the engine's modules.
 * Each concept has its private header (bodies, geometry, broad phase,
 * contacts, rows, step); this one holds the object that owns them all.
 * docs/engine.md describes the modules and the stages of a step. */
#ifndef NDEM_SIM_H
#define NDEM_SIM_H

#include "bodies.h"
#include "broadphase.h"
#include "contacts.h"
#include "decomp.h"
#include "geometry.h"
#include "lanes.h"
#include "loads.h"
#include "material.h"
#include "ndem.h"
#include "rigid.h"
#include "rng.h"
#include "rows.h"
#include "rows_general.h"
#include "vec.h"

#include <stdint.h>

struct ndem_dem;

/* chunks of the bodies whose kinetic energies are summed apart, then in
 * chunk order: a fixed count, so the sum does not depend on the threads */
#define NDEM_MEASURE_CHUNKS 64

struct ndem_sim {
    ndem_solver_def solver;
    double gravity[3];
    int threads;
    long parallel_min;        /* loops shorter than this run on one thread (NDEM_PARALLEL_MIN) */
    int isa;                  /* the solver sweep's instruction-set variant (NDEM_ISA, solver.c) */
    int overflow_all;         /* every row in the serial overflow set (NDEM_OVERFLOW=all, rows.c) */
    int sweep_order;          /* colour order of the sweeps (NDEM_SWEEP, solver.c) */
    int warm_normal_only;     /* warm-start the normal rows only (NDEM_WARM_ROWS=normal, rows.c) */
    int impact_reach;         /* 0: impact stage on islands; N: within N contacts (solver.c) */
    int projection;           /* friction/rolling projection (NDEM_PROJECTION, solver.c) */
    struct ndem_probe *probe; /* attached for one ndem_sim_probe_step, else NULL */
    ndem_material_table materials;
    int geometry_count;
    ndem_geometry_def *geometry; /* reference shapes (moved by translate, geometry.h) */
    ndem_geometry_pose *pose;    /* where each geometry is now (geometry_pose.c) */
    ndem_keyframe *keyframes;    /* every geometry's keyframes, one copy (geometry[i] points in) */
    double *loads;               /* NDEM_LOAD_STRIDE per geometry: the last step's (loads.h) */
    int emitter_count;
    ndem_emitter_def *emitters;
    ndem_emitter_state *emitter_state;
    ndem_bodies bodies;
    ndem_contacts contacts;
    ndem_history history;
    ndem_grid grid;
    ndem_neighbours neighbours;
    struct ndem_lll *lll; /* the Linked Linear List's state ("broad_phase": "lll"), else NULL */
    double bounds_min[3], bounds_max[3]; /* leaving these is an error */
    double d_avg;                        /* characteristic diameter for the impact velocity */
    double v_imp;
    double geometry_skin; /* this step's reach of the geometry search (broad-phase stage) */
    long step;
    int failed; /* a step returned an error: the state may be non-finite (checks.c) */
    double time;
    long total_steps;
    uint64_t scene_hash;
    ndem_step_stats stats;
    /* integrate's books for measure (step.c): per fixed chunk of bodies, the
     * kinetic energy and the first particle with a bad state (-1: none) */
    double measure_ke[NDEM_MEASURE_CHUNKS];
    long measure_bad[NDEM_MEASURE_CHUNKS];
    struct ndem_dem *dem;       /* smooth DEM state (dem.c); NULL for NDEM */
    struct ndem_rigid *rigid;   /* dynamic geometry (rigid.c); NULL when there is none */
    struct ndem_shapes *shapes; /* shape templates (shape_body.c); NULL: all plain spheres */
    ndem_general *general;      /* NDEM rows of shaped particles (rows_general.c), or NULL */
    ndem_decomp *decomp;        /* one process of a decomposed scene (decomp.c); else NULL */
    int forced_count;           /* generators with an external force on their particles */
    struct ndem_forced {
        long first, end; /* creation ids [first, end) */
        double force[3], rate[3];
    } * forced;
    char error[256];
};

#include "step.h"

#endif
