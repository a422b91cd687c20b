/* sim.h (internal) - the simulation object shared by the engine's modules.
 * Hot data is stored as arrays per quantity (structure of arrays); the
 * contact rows that the solver streams over are packed in the order they
 * are solved, colour after colour, NDEM_LANES rows per packet.
 */
#ifndef NDEM_SIM_H
#define NDEM_SIM_H

#include "material.h"
#include "ndem.h"
#include "lanes.h"
#include "rng.h"
#include "vec.h"

#include <stdint.h>

struct ndem_dem;

/* Particles. Indices are stable: particles are only ever appended. */
typedef struct ndem_bodies {
    long count, capacity;
    double *pos;  /* 3 per body */
    double *quat; /* 4 per body: w, x, y, z */
    double *vel;  /* 6 per body: linear v, angular w */
    double *radius;
    double *inv_mass;
    double *inv_inertia; /* solid sphere: 1 / (2/5 m r^2) */
    int *material;
    long *id;    /* creation index of each internal index (reorder.c) */
    long *where; /* internal index of each creation index */
} ndem_bodies;

int ndem_bodies_reserve(ndem_bodies *b, long capacity);
/* Sorts the particles by grid cell (Morton order), keeping ids and the
 * warm-start history consistent. */
int ndem_bodies_reorder(struct ndem_sim *sim);
#define NDEM_REORDER_STEPS 32
long ndem_bodies_add(ndem_bodies *b, const double *pos, double radius, const double *vel,
                     int material, double density);
void ndem_bodies_destroy(ndem_bodies *b);

typedef struct ndem_emitter_state {
    ndem_rng rng;
    double pending; /* particles owed by the rate but not yet placed */
    long emitted;
} ndem_emitter_state;

/* NDEM_LANES contact row sets of one colour, field after field (structure of
 * arrays): what a PGS sweep streams (seed 003 eqs. 16-18), 104 bytes per
 * contact in float32, one vector load per field. a and b index velocity
 * slots (ndem_contacts.vs): bodies first, then one slot per geometry row
 * holding the geometry's velocity with zero inverse masses, so wall rows
 * and particle rows share one kernel. The tangents are rebuilt from n in
 * the sweep (ndem_row_tangent, lane by lane).
 * Unused lanes (past ndem_contacts.fill) are zeros on a zero slot. */
typedef struct ndem_packet {
    int a[NDEM_LANES], b[NDEM_LANES];
    ndem_fv n[3];
    ndem_fv la, lb; /* lever arms |p - x_a|, |p - x_b| */
    ndem_fv s;      /* normal row scale e_H delta^(e_H - 1) */
    ndem_fv sig_n, q_n;
    ndem_fv mu, mur, mut; /* friction, mu_r r*, mu_t r* */
    ndem_fv lo_n;         /* lower bound of the normal impulse (adhesion, <= 0) */
    ndem_fv lam[6];       /* normal, t1, t2, r1, r2, twist */
} ndem_packet;

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
 * impact stage, warm start, statistics. */
typedef struct ndem_row_cold {
    float delta;        /* overlap (negative: gap) */
    float phi, ups;     /* constraint phi and Upsilon_n of the SPOOK normal row */
    float v_target;     /* impact stage: separation speed to reach */
    int geometry;       /* geometry row index (its ug entry), or -1 */
    signed char impact; /* 0: skip in impact stage, 1: resting row, 2: impacting */
    signed char gap;    /* 1: bodies apart; a speculative row, not a SPOOK spring */
} ndem_row_cold;

/* Contacts found by one block of bodies in the narrow phase (contacts.c). */
typedef struct ndem_pair_block {
    int *key;
    long count, capacity;
} ndem_pair_block;

/* Appends a key to a block's buffer; 0, or -1 when out of memory. */
int ndem_pair_block_push(ndem_pair_block *blk, int key);
/* Makes room for n blocks (new ones empty); 0 or -1. */
int ndem_pair_blocks_reserve(ndem_pair_block **blocks, long *capacity, long n);
/* Grows *p to hold `need` elements of `elem` bytes, keeping its contents
 * (capacity doubles); 0, or -1 when out of memory. *p is never NULL after
 * a success, even for need 0 (empty scenes). */
int ndem_ensure(void **p, long *cap, long need, size_t elem);

/* Candidate contacts in pair order: key_b >= 0 is a particle, key_b < 0 a
 * geometry feature (-1 - (geometry * 8 + feature)). */
typedef struct ndem_contacts {
    long count, capacity;
    int *key_a, *key_b;
    int *slot;   /* row of the contact: packet * NDEM_LANES + lane */
    long *start; /* per body: first contact of the body (CSR), count + 1 */
    long start_capacity;
    ndem_packet *packets; /* colour after colour */
    unsigned char *fill;  /* per packet: lanes in use (from lane 0) */
    ndem_row_cold *cold;  /* per row */
    float *residual;      /* 3 per packet: sums of its lanes' residuals */
    long packet_count, packet_capacity;
    ndem_f8 *vs; /* velocity slots: v, w, inverse mass, inverse inertia */
    long slot_count, slot_capacity;
    double *ug; /* 6 per geometry row: surface velocity at the contact, angular velocity */
    long ug_capacity;
    long geometry_rows;
    ndem_fv *impact_v;      /* per packet: impact stage target speeds */
    ndem_fv *impact_lam;    /* 6 per packet: the impact stage's own impulses */
    unsigned *impact_lanes; /* per packet: lanes in the impact stage (bits) */
    long impact_capacity;
    ndem_pair_block *blocks; /* narrow-phase buffers, one per block of bodies */
    long block_capacity;
    int color_count;
    long color_start[66]; /* colour c: packets [color_start[c], color_start[c+1]) */
    uint64_t *color_mask; /* per body, colouring scratch */
    long mask_capacity;
    int *island; /* per body: union-find parent for the impact stage */
    long island_capacity;
} ndem_contacts;

/* Warm-start history: last step's contacts in pair order with their
 * impulses as world vectors, so a rotated tangent basis can be re-projected. */
typedef struct ndem_history {
    long bodies; /* bodies covered by start */
    long count;
    long *start; /* bodies + 1 */
    int *key_b;
    float *lam; /* 7 per contact: normal, friction vector, rolling vector */
    long capacity, start_capacity;
} ndem_history;

/* The broad phase's cells: a dense block of cells over the particles'
 * bounding box when it is small (x fastest, so three neighbouring cells of a
 * row are one range of `sorted`), otherwise a hash of the cell coordinates.
 * Cells are sized by the ordinary bodies; "big" ones (radius above `split`,
 * ndem_grid_radii) are kept out of them (broadphase.c). */
typedef struct ndem_grid {
    double cell, inv_cell;
    double split;             /* bodies with a larger radius are big (INFINITY: none) */
    double r_cell;            /* largest radius of a body in the cells */
    double reach;             /* largest search reach of a pair of bodies in the cells */
    int dense;                /* 1: dense block lo + [0, dim) */
    int lo[3], hi[3], dim[3]; /* cell range of the bodies in the cells */
    long table_size;
    long *cell_start; /* table_size + 1 */
    long *sorted;     /* bodies by cell (bucket), in body order within one */
    int *coord;       /* 3 per body: integer cell coordinates */
    uint32_t *bucket; /* NDEM_GRID_BIG for a big body */
    long capacity, table_capacity;
    long *big; /* the big bodies, ascending */
    long big_count, big_capacity;
} ndem_grid;
#define NDEM_GRID_BIG UINT32_MAX

/* The radius that sizes the grid's cells (the largest of the bodies kept in
 * them) and the radius above which a body is big: 4 times the upper bound
 * of the power-of-two bin that holds the 90 % quantile of the radii, or
 * INFINITY (then the cell radius is the largest radius) when no body
 * exceeds it. O(N). Also sizes the Morton cells of the reorder. */
void ndem_grid_radii(const ndem_bodies *b, double *r_cell, double *split);

/* Verlet lists (broadphase.c): for each body i, the bodies j > i that were
 * within r_i + r_j + skin of it when the lists were built, sorted by j.
 * They are rebuilt when a missing pair could have come within the contact
 * test's reach (ndem_neighbours_update), when bodies are added or
 * reordered, and after a restore; the contacts found are the same as a
 * fresh grid search would find. */
typedef struct ndem_neighbours {
    int valid;
    long bodies; /* body count at the build */
    double skin; /* search skin of the build */
    long *start; /* bodies + 1 */
    int *j;
    double *x0; /* 3 per body: positions at the build */
    long count, capacity, start_capacity, x0_capacity;
    ndem_pair_block *blocks;
    long block_capacity;
    long builds; /* how many times the lists were built */
    long tested; /* pairs the last build with big bodies tested for reach (its
                  * work); not counted (0) in a build without big bodies */
} ndem_neighbours;

struct ndem_sim {
    ndem_solver_def solver;
    double gravity[3];
    int threads;
    long parallel_min; /* loops shorter than this run on one thread (NDEM_PARALLEL_MIN) */
    int isa;           /* the solver sweep's instruction-set variant (NDEM_ISA, solver.c) */
    ndem_material_table materials;
    int geometry_count;
    ndem_geometry_def *geometry; /* moved by their velocity each step */
    int emitter_count;
    ndem_emitter_def *emitters;
    ndem_emitter_state *emitter_state;
    ndem_bodies bodies;
    ndem_contacts contacts;
    ndem_history history;
    ndem_grid grid;
    ndem_neighbours neighbours;
    double bounds_min[3], bounds_max[3]; /* leaving these is an error */
    double d_avg;                        /* characteristic diameter for the impact velocity */
    double v_imp;
    long step;
    double time;
    long total_steps;
    uint64_t scene_hash;
    ndem_step_stats stats;
    struct ndem_dem *dem; /* smooth DEM state (dem.c); NULL for NDEM */
    int forced_count;     /* generators with an external force on their particles */
    struct ndem_forced {
        long first, end; /* creation ids [first, end) */
        double force[3], rate[3];
    } * forced;
    char error[256];
};

/* Threads for a loop of `work` items: small loops run on one thread, where a
 * barrier would cost more than the work (results are identical anyway). The
 * bound is 4096 items; tests lower it (NDEM_PARALLEL_MIN, read once at
 * creation) so that scenes of test size run every loop threaded. */
#define NDEM_PARALLEL_MIN_DEFAULT 4096
static inline int ndem_threads_for(const struct ndem_sim *sim, long work)
{
    return work < sim->parallel_min ? 1 : sim->threads;
}

/* The solver sweep's variant from NDEM_ISA (NULL or "": the best this CPU
 * runs; "v4", "v3" or "base" force x86-64-v4, x86-64-v3 or baseline code,
 * so that tests can check that every variant gives the same bits). Returns
 * the variant (>= 0), or -1 with a message when it is unknown or this CPU
 * cannot run it. */
int ndem_solver_isa(const char *name, char *err, size_t err_len);
/* The variant's name, "v4", "v3" or "base". */
const char *ndem_solver_isa_name(int isa);

/* External forces of generators (ndem_generator_def.force): v += h F(t) / m
 * on their particles, called once per step by NDEM and smooth DEM. */
void ndem_apply_external_forces(ndem_sim *sim);

/* Stages of a step, one module each. */
int ndem_generate_initial(ndem_sim *sim, const ndem_scene_def *def, char *err, size_t err_len);
int ndem_emit(ndem_sim *sim);
/* The grid for pairs within skin (rmax: the largest radius, ndem_within). */
int ndem_broadphase_build(ndem_sim *sim, double skin, double rmax);
/* Brings the Verlet lists up to date (rebuilds them when needed) and gives
 * the reach of this step's geometry search: what can close within a step,
 * 2 h v_max + 0.05 r_min, capped at a diameter (tunnelling guard: keep h
 * below d / v, PHYSICS.md time step guidance). */
int ndem_neighbours_update(ndem_sim *sim, double *geometry_skin);
void ndem_neighbours_destroy(ndem_neighbours *nl);
int ndem_contacts_build(ndem_sim *sim, double skin);
int ndem_contacts_color(ndem_sim *sim);
int ndem_contacts_prepare(ndem_sim *sim);
int ndem_contacts_store_history(ndem_sim *sim);
void ndem_contacts_destroy(ndem_contacts *c, ndem_history *h);
void ndem_grid_destroy(ndem_grid *g);
void ndem_solve(ndem_sim *sim);

/* Sphere against one geometry: writes up to 6 contacts (normal from the
 * sphere into the geometry, overlap, feature id) within `margin`. */
typedef struct ndem_geo_hit {
    double n[3];
    double delta;
    int feature;
} ndem_geo_hit;
int ndem_geometry_collide(const ndem_geometry_def *g, const double *x, double r, double margin,
                          ndem_geo_hit hits[6]);
void ndem_geometry_surface_velocity(const ndem_geometry_def *g, const double *p, double *u);
void ndem_geometry_bounds(const ndem_geometry_def *g, double *lo, double *hi);

/* Where a contact touches (PHYSICS.md "Bodies and contacts"), shared by the
 * NDEM rows and the smooth-DEM forces: unit normal n from a to b, overlap
 * delta (negative: gap), lever arms la, lb (the contact point is the middle
 * of the overlap), effective diameter d* (a wall counts as infinitely
 * large), b's material, and for geometry (b < 0) the surface velocity at the
 * contact point and the angular velocity in ug. */
typedef struct ndem_contact_geom {
    double n[3];
    double delta, la, lb, d_eff;
    int b; /* particle index, or -1 - geometry index */
    int material_b;
    double ug[6];
} ndem_contact_geom;
void ndem_contact_geometry(const struct ndem_sim *sim, int a, int key, ndem_contact_geom *g);

uint64_t ndem_hash_bytes(uint64_t h, const void *data, size_t len);

#endif
