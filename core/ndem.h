/* ndem.h - the public interface of the ndem simulation engine.
 *
 * The engine knows nothing of HTTP, SQL or JSON. A caller fills an
 * ndem_scene_def (api/ does it from a job document), creates a simulation,
 * steps it, reads statistics and frames, and may checkpoint it to a byte
 * buffer and restore it later. Every object created here has a matching
 * destroy. Units are SI throughout. Papers are cited by the short names of
 * docs/physics.md (AGX, Wang et al., libgran, Woo, Muth et al.).
 */
#ifndef NDEM_H
#define NDEM_H

#include <stddef.h>
#include <stdint.h>

#define NDEM_NAME_MAX 64
#define NDEM_MAX_RADIUS_VALUES 16
/* Generator and emitter regions lie within +-NDEM_MAX_COORDINATE m of the
 * origin: beyond it double positions lose the resolution of small spheres
 * and cell counts would overflow (ndem_sim_create refuses such regions). */
#define NDEM_MAX_COORDINATE 1e6
/* At most this many lattice sites when a lattice fills its region (count 0). */
#define NDEM_MAX_LATTICE_SITES 1e9

/* ---- Definitions (filled by the caller, read once by ndem_sim_create) ---- */

typedef struct ndem_material_def {
    char name[NDEM_NAME_MAX];
    double density;       /* kg/m^3 */
    double young_modulus; /* Pa */
    double poisson_ratio; /* default 0.3 */
    double viscosity;     /* material viscosity eta (Pa s) for the damping of
                             AGX 35.4.5; default 0 */
} ndem_material_def;

/* Parameters of one material pair (AGX 35.4). Pairs not listed use
 * ndem_default_contact_material_def(). */
typedef struct ndem_contact_material_def {
    int material_a, material_b; /* indices into the material table */
    double friction;            /* mu, default 0.5 */
    double rolling_resistance;  /* mu_r, default 0 */
    double twisting_resistance; /* mu_t; < 0 (the default): rolling_resistance */
    double restitution;         /* e, default 0.5 */
    double adhesion;            /* attractive force bound (N), default 0 */
    double adhesive_overlap;    /* delta_a (m), default 0 */
    double damping_time;        /* tau_n override (s); <= 0: automatic */
    double young_modulus;       /* pair modulus; <= 0: 2 Ea Eb / (Ea + Eb) */
    double stiffness_ratio;     /* linear, hunt_crossley: k_t / k_n, default 0.2 */
    double stiffness;           /* hunt_crossley K (N/m^n); <= 0: the Hertz k_n */
    double exponent;            /* hunt_crossley n, default 1.5 */
    double dynamic_friction;    /* luding: mu_d; < 0: equal to friction (mu_s) */
    double char_len;            /* linear_elastic6: length l of k_w = l k_n, k_b = l k_t;
                                   <= 0: the smaller radius */
    double bond_stiffness;      /* bonds: normal stiffness (N/m); <= 0: E A / (l_a + l_b) */
    double bond_damping;        /* bonds: damping ratio of every bond spring, default 0.5 */
    double bond_max_force;      /* bonds break above this force (N); <= 0: never */
    double bond_max_torque;     /* bonds break above this torque (N m); <= 0: never */
    double hamaker;             /* smooth DEM: Hamaker constant A (J), 0: no van der Waals */
    double vdw_saturation;      /* saturation distance delta_0 (m), default 0.4e-9 */
    int velocity_friction;      /* hunt_crossley: friction from the slip velocity
                                   instead of the Brendel-Dippel spring (for
                                   comparison; such a contact never truly sticks) */
} ndem_contact_material_def;

typedef enum ndem_geometry_type {
    NDEM_GEOMETRY_PLANE = 0,
    NDEM_GEOMETRY_BOX = 1,
    NDEM_GEOMETRY_CYLINDER = 2,
    NDEM_GEOMETRY_MESH = 3
} ndem_geometry_type;

/* A placed triangle mesh with its contact tables (core/geometry_mesh.h,
 * ndem_mesh_shape_create); the geometry only points to it. */
struct ndem_mesh_shape;

/* A keyframe of a geometry's motion: at `time` the type's reference point
 * (plane: its point, box: its centre, cylinder: its centre, mesh: its
 * position) is at
 * `position` and the shape is turned by `orientation` (unit quaternion w, x,
 * y, z) from the shape as defined. Between keyframes the position is linear
 * and the orientation a slerp along the shorter arc. */
typedef struct ndem_keyframe {
    double time;
    double position[3];
    double orientation[4];
} ndem_keyframe;

/* Degrees of freedom a dynamic geometry keeps fixed (world axes):
 * ndem_dynamic_def.lock is a mask of these. */
enum {
    NDEM_LOCK_X = 1,
    NDEM_LOCK_Y = 2,
    NDEM_LOCK_Z = 4,
    NDEM_LOCK_RX = 8,
    NDEM_LOCK_RY = 16,
    NDEM_LOCK_RZ = 32,
    NDEM_LOCK_ROTATION = 56 /* all three turns */
};

/* A geometry that is a rigid body of finite mass (core/rigid.h): moved by
 * its contacts with the particles, gravity and a constant force. Its pivot
 * is its centre of mass (box, cylinder: the centre; plane: its point; mesh:
 * its position); its initial velocity and angular velocity are the
 * geometry's `velocity` and `angular_velocity`. */
typedef struct ndem_dynamic_def {
    int enabled;
    double mass;       /* kg, > 0 */
    double inertia[3]; /* principal moments along the def's axes about the centre of mass
                          (kg m^2); all zero: from the shape at uniform density */
    unsigned lock;     /* NDEM_LOCK_... bits */
    double force[3];   /* constant external force at the centre of mass (N) */
} ndem_dynamic_def;

/* A stress-controlled box (the triaxial cell, core/walls.c): an inside box
 * whose six walls are plates of `mass` moving along their normals only. A
 * pair of walls (axis k) is driven by a motor that pushes inward with at
 * most stress[k] times its current area and keeps its speed within
 * +-max_speed; with driven[k], from time `start` on both move inward at
 * velocity[k] (kinematic). The walls feel no gravity (motors hold them). */
/* The default inward speed cap of stress-controlled walls (m/s). */
#define NDEM_WALLS_MAX_SPEED 0.1

typedef struct ndem_walls_def {
    int enabled;
    double mass;        /* kg per wall, > 0 */
    double stress[3];   /* Pa, >= 0, per pair of walls */
    double velocity[3]; /* m/s inward, where driven[k] */
    int driven[3];      /* 1: velocity[k] applies from start on */
    double start;       /* s */
    double ramp;        /* s: driven speed from 0 to velocity (0: at once) */
    double max_speed;   /* m/s: the stress-controlled walls' inward speed cap (0: none) */
} ndem_walls_def;

/* Static or kinematic geometry: infinite mass (unless `dynamic`). The shape (point, normal,
 * min, max, ...) is its reference shape at time 0. It moves either with
 * constant motion (`velocity`, and `angular_velocity` about `pivot`, which
 * moves with the velocity; without has_pivot the type's reference point) or
 * along keyframes (keyframe_count > 0; velocity and angular_velocity are then
 * unused). Any type moves and turns: the engine poses it (geometry.c). */
typedef struct ndem_geometry_def {
    ndem_geometry_type type;
    int material;
    int inside;       /* box or cylinder used as a container */
    double point[3];  /* plane: a point on it */
    double normal[3]; /* plane: unit normal pointing into the material */
    double min[3];    /* box corners */
    double max[3];
    double center[3];               /* cylinder centre */
    double axis[3];                 /* cylinder unit axis */
    double radius;                  /* cylinder radius */
    double length;                  /* cylinder length along the axis */
    double velocity[3];             /* linear velocity (m/s) */
    double angular_velocity[3];     /* rad/s, about the pivot */
    double pivot[3];                /* centre of the turn at time 0, if has_pivot */
    int has_pivot;                  /* 0: the type's reference point */
    int keyframe_count;             /* > 0: keyframed motion */
    const ndem_keyframe *keyframes; /* times strictly increasing; copied by ndem_sim_create */
    char name[NDEM_NAME_MAX];       /* "" or its name in outputs (api/); the engine ignores it */
    /* mesh: the placed mesh, owned by the caller (a job), which must keep it
     * until every simulation made from this definition is destroyed; a mesh
     * moves with `velocity` by `point`, its offset from where it was placed */
    const struct ndem_mesh_shape *mesh;
    ndem_dynamic_def dynamic; /* enabled: a rigid body (no keyframes, no pivot) */
    ndem_walls_def walls;     /* enabled: a stress-controlled box (inside, static otherwise) */
} ndem_geometry_def;

typedef enum ndem_radius_kind {
    NDEM_RADIUS_FIXED = 0,   /* value[0] */
    NDEM_RADIUS_UNIFORM = 1, /* uniform in [min, max] */
    NDEM_RADIUS_VALUES = 2   /* values[i] with number fractions weights[i] */
} ndem_radius_kind;

typedef struct ndem_radius_dist {
    ndem_radius_kind kind;
    int count; /* number of values (NDEM_RADIUS_VALUES) */
    double min, max;
    double values[NDEM_MAX_RADIUS_VALUES];
    double weights[NDEM_MAX_RADIUS_VALUES];
} ndem_radius_dist;

/* A particle's shape (docs/shapes.md): a sphere of the particle's radius
 * (the default), a clump of spheres, a convex polyhedron or a compound of
 * convex polyhedra (a non-convex body). The geometry is
 * in the body frame and scaled so that its bounding sphere about the
 * body-frame origin has the particle's radius; the particle's position is
 * its centre of mass. data is owned by the caller until every simulation
 * made from the definition is destroyed. */
typedef enum ndem_particle_shape_type {
    NDEM_PARTICLE_SPHERE = 0,
    NDEM_PARTICLE_CLUMP = 1,      /* data: x, y, z, r per member sphere */
    NDEM_PARTICLE_POLYHEDRON = 2, /* data: x, y, z per point; the shape is their convex hull */
    NDEM_PARTICLE_COMPOUND = 3    /* count pieces, piece k the hull of piece_sizes[k] points;
                                   * data: x, y, z per point, piece after piece */
} ndem_particle_shape_type;

typedef struct ndem_particle_shape_def {
    ndem_particle_shape_type type;
    int count; /* members, points, or a compound's pieces */
    const double *data;
    const int *piece_sizes; /* compound only: points per piece (count of them) */
} ndem_particle_shape_def;

typedef enum ndem_generator_type {
    NDEM_GENERATOR_LATTICE = 0,
    NDEM_GENERATOR_RANDOM = 1,
    NDEM_GENERATOR_LIST = 2
} ndem_generator_type;

/* Initial particles. lattice and random: centres in [min, max]. list: the
 * caller-owned arrays spheres (x, y, z, r per sphere), velocities
 * (vx, vy, vz per sphere), orientations (unit quaternions w, x, y, z per
 * sphere) and angular_velocities (wx, wy, wz per sphere); the last three may
 * be NULL (at rest, identity orientation). */
typedef struct ndem_generator_def {
    ndem_generator_type type;
    int material;
    double min[3], max[3];
    double spacing; /* lattice pitch; <= 0: 2 * largest radius */
    long count;     /* lattice: at most this many (<= 0: fill); random: exactly */
    ndem_radius_dist radius;
    uint64_t seed;
    double velocity[3];   /* initial velocity of lattice and random particles */
    int fixed_rotation;   /* the particles never turn (a stand-in for a sliding block) */
    int bonded;           /* smooth DEM: bond every touching pair of this generator */
    double force[3];      /* external force on each of its particles at t = 0 (N) */
    double force_rate[3]; /* its growth per second (N/s): F(t) = force + force_rate t */
    long list_count;
    const double *spheres;
    const double *velocities;
    const double *orientations;       /* list: 4 per sphere, unit length */
    const double *angular_velocities; /* list: 3 per sphere (rad/s) */
    long bond_pair_count;             /* list: smooth-DEM bonds between listed spheres */
    const double *bond_pairs;         /* 2 per bond: indices i, j into spheres (whole numbers) */
    ndem_particle_shape_def shape;    /* every particle of the generator */
} ndem_generator_def;

/* Particles inserted during the run at `rate` per second inside [min, max],
 * between `start` and `stop`, at most `max_count`, never into an occupied
 * spot (a blocked insertion is retried at the next step). */
typedef struct ndem_emitter_def {
    double min[3], max[3];
    double rate;
    double start, stop;
    long max_count;
    ndem_radius_dist radius;
    int material;
    double velocity[3];
    uint64_t seed;
    ndem_particle_shape_def shape; /* every particle it emits */
} ndem_emitter_def;

typedef enum ndem_method { NDEM_METHOD_NDEM = 0, NDEM_METHOD_DEM = 1 } ndem_method;

/* Smooth DEM force laws (docs/physics.md, "Smooth DEM"). */
typedef enum ndem_contact_model {
    NDEM_MODEL_HERTZ = 0,           /* AGX eq. 35.1 */
    NDEM_MODEL_LINEAR = 1,          /* Woo (Cundall) */
    NDEM_MODEL_HUNT_CROSSLEY = 2,   /* Muth et al.: Kelvin-Voigt / Hunt-Crossley */
    NDEM_MODEL_LINEAR_ELASTIC6 = 3, /* Woo: purely elastic in all 6 DOF, for testing */
    NDEM_MODEL_LUDING = 4 /* libgran: four springs with dashpots, static/dynamic friction */
} ndem_contact_model;

/* The broad phase that builds the Verlet lists (docs/shapes.md, "The Linked
 * Linear List"): a grid of cells, or the Linked Linear List (sorted box ends
 * on three axes, updated incrementally). Both give the same lists. */
typedef enum ndem_broad_phase {
    NDEM_BROAD_PHASE_GRID = 0,
    NDEM_BROAD_PHASE_LLL = 1
} ndem_broad_phase;

typedef struct ndem_solver_def {
    ndem_method method;
    double time_step;                 /* h (s) */
    double duration;                  /* simulated time (s) */
    int iterations;                   /* PGS sweeps of the continuous stage */
    int impact_iterations;            /* PGS sweeps of the impact stage */
    int warm_start;                   /* history-based warm start, Wang et al. eq. 7-8 */
    double warm_start_factor;         /* beta, default 0.85 */
    double impact_velocity;           /* v_imp; <= 0: 0.02 d_avg / h */
    double tolerance;                 /* early exit when the residual falls below; 0: off */
    double damping_steps;             /* n_s of tau_n = n_s h, default 2 */
    double friction_compliance;       /* gamma_t = gamma_r, default 1e-6 */
    int threads;                      /* OpenMP threads; 0: the runtime's default */
    ndem_contact_model contact_model; /* method "dem" only */
    ndem_broad_phase broad_phase;     /* the Verlet lists' search; the same contacts either way */
} ndem_solver_def;

typedef struct ndem_scene_def {
    double gravity[3];
    int material_count;
    const ndem_material_def *materials;
    int contact_material_count;
    const ndem_contact_material_def *contact_materials;
    int geometry_count;
    const ndem_geometry_def *geometry;
    int generator_count;
    const ndem_generator_def *generators;
    int emitter_count;
    const ndem_emitter_def *emitters;
    ndem_solver_def solver;
} ndem_scene_def;

ndem_material_def ndem_default_material_def(void);
ndem_contact_material_def ndem_default_contact_material_def(void);
ndem_geometry_def ndem_default_geometry_def(void);
ndem_generator_def ndem_default_generator_def(void);
ndem_emitter_def ndem_default_emitter_def(void);
ndem_solver_def ndem_default_solver_def(void);
ndem_scene_def ndem_default_scene_def(void);

/* ---- Simulation ---- */

typedef struct ndem_sim ndem_sim;

/* Statistics of the last step. */
typedef struct ndem_step_stats {
    long step;   /* steps taken so far */
    double time; /* simulated time (s) */
    long particles;
    long contacts; /* particle-particle plus particle-geometry */
    long geometry_contacts;
    long impacts;           /* contacts resolved in the impact stage */
    long rows;              /* contacts the solver handled, near ones included */
    int iterations;         /* PGS sweeps used in the continuous stage */
    int colors;             /* colours of the contact graph */
    double kinetic_energy;  /* J, translational plus rotational */
    double residual_normal; /* mean |r| over normal rows (Wang et al. eq. 6) */
    double residual_friction;
    double residual_rolling;
    double max_overlap;       /* m */
    double elastic_energy;    /* smooth DEM: energy stored in the contact springs (J) */
    double dissipated_energy; /* smooth DEM: energy dissipated since the start (J) */
    double wall_broadphase;   /* wall seconds per phase of the last step */
    double wall_narrowphase;
    double wall_solve;
    double wall_integrate;
    double wall_total;
    long impact_rows; /* rows swept by the impact stage (islands with an impact) */
} ndem_step_stats;

/* Error codes of ndem_sim_step. */
typedef enum ndem_status {
    NDEM_OK = 0,
    NDEM_ERR_NONFINITE = 1, /* a particle state became NaN or infinite */
    NDEM_ERR_ESCAPED = 2,   /* particles left every bound of the scene */
    NDEM_ERR_MEMORY = 3
} ndem_status;

/* Creates a simulation: builds materials, geometry and the initial particles.
 * Returns NULL and writes a message into err on failure (for example when a
 * random generator cannot fit its count). */
ndem_sim *ndem_sim_create(const ndem_scene_def *def, char *err, size_t err_len);
void ndem_sim_destroy(ndem_sim *sim);

/* Advances one time step. Returns NDEM_OK or an ndem_status; on error
 * ndem_sim_error() says what happened. */
ndem_status ndem_sim_step(ndem_sim *sim);
const char *ndem_sim_error(const ndem_sim *sim);

const ndem_step_stats *ndem_sim_stats(const ndem_sim *sim);
long ndem_sim_particle_count(const ndem_sim *sim);
long ndem_sim_total_steps(const ndem_sim *sim); /* ceil(duration / h) */
/* OpenMP threads of the next steps (0: the runtime's default), for a daemon
 * that shares its cores between jobs; results do not depend on it. */
void ndem_sim_set_threads(ndem_sim *sim, int threads);
int ndem_sim_threads(const ndem_sim *sim);

/* A copy of the particle state, in creation order. Arrays owned by the frame:
 * release with ndem_frame_free. */
typedef struct ndem_frame {
    long step;
    double time;
    long count;
    double *positions;          /* 3 per particle */
    double *radii;              /* 1 per particle */
    double *velocities;         /* 3 per particle */
    double *angular_velocities; /* 3 per particle */
    double *orientations;       /* quaternion w, x, y, z per particle */
    int *materials;             /* 1 per particle */
    /* 7 per geometry, in the scene's order: where its reference point is
     * (ndem_sim_geometry_position) and its orientation (w, x, y, z), the
     * turn from its shape as defined (the q of ndem_sim_geometry_pose) */
    long geometry_count;
    double *geometry_poses;
    /* per particle: index into the scene's shape templates as the job
     * resource lists them (api/job_shapes.h), -1 a plain sphere; NULL when
     * every particle is a plain sphere. A shaped particle's radius is its
     * template's radius, its position the centre of mass. */
    int *shapes;
    /* 6 per geometry: min x, y, z then max x, y, z (m) of a box whose faces
     * move (`walls`), its faces where they are now; NaN for every other
     * geometry. NULL when no geometry of the scene has walls. */
    double *geometry_extents;
} ndem_frame;

int ndem_sim_copy_frame(const ndem_sim *sim, ndem_frame *out);
/* The same without orientations (left NULL): what frames on disk and on the
 * wire carry, in 84 instead of 116 bytes a particle. */
int ndem_sim_copy_motion(const ndem_sim *sim, ndem_frame *out);
/* The same for the particles of creation index first .. first + count - 1
 * (the frame's count is count; its geometry is the whole scene's), so that
 * a frame can be written in pieces without a copy of every particle
 * (cli/output.c). 0, or -1 out of memory or out of range. */
int ndem_sim_copy_motion_part(const ndem_sim *sim, long first, long count, ndem_frame *out);
void ndem_frame_free(ndem_frame *frame);
/* Ends sim: destroys it and returns its last motion (ndem_sim_copy_motion)
 * in out, copied after the contacts, lists and solver state are freed, so
 * that the copy does not add to the run's peak memory (`ndem run`'s
 * final.json). 0, or -1 when the copy failed; sim is gone either way. */
int ndem_sim_finish(ndem_sim *sim, ndem_frame *out);

/* Checkpoint: the complete state (particles, contact history for warm start,
 * geometry motion, emitter and RNG state, step counter) as a byte buffer
 * owned by the caller (free()). Restoring needs the same scene definition;
 * a buffer of another scene or version is refused with a message, and so is
 * one whose CRC-32C trailer does not match ("checkpoint is damaged (checksum
 * mismatch)"). Restoring then stepping gives bit-for-bit the states of never stopping. */
int ndem_sim_checkpoint(const ndem_sim *sim, void **buffer, size_t *length);
ndem_sim *ndem_sim_restore(const ndem_scene_def *def, const void *buffer, size_t length, char *err,
                           size_t err_len);

/* Smooth DEM: the stable time step pi sqrt(m / k) for the smallest particle
 * and the stiffest pair of the scene (infinite when there are no particles). */
double ndem_dem_stable_step(const ndem_scene_def *def);
/* Smooth DEM's time_step "auto": 0.05 of the stable step, or less where a
 * low restitution asks for it (docs/physics.md "Stable step"). */
double ndem_dem_auto_step(const ndem_scene_def *def);

/* ---- Geometry loads ---- */

/* The reference point of a geometry as defined (before any motion): a
 * plane's point, a box's or a cylinder's centre. ndem_sim_geometry_position
 * is where it is now. */
void ndem_geometry_reference_point(const ndem_geometry_def *g, double c[3]);
/* 1 when the geometry moves (a nonzero velocity or angular velocity, or
 * keyframes). */
int ndem_geometry_moves(const ndem_geometry_def *g);

int ndem_sim_geometry_count(const ndem_sim *sim);
/* Geometry g's definition in the simulation (its reference shape; where it
 * is now is ndem_sim_geometry_pose); NULL when g is not an index of the
 * scene's geometry. */
const ndem_geometry_def *ndem_sim_geometry(const ndem_sim *sim, int g);
/* The total contact force f (N) and torque t (N m, about the pivot at the
 * start of the step, ndem_sim_geometry_pivot) exerted by the particles on geometry g during
 * the last step: every impulse of the step on it (NDEM: the impact stage's
 * and the continuous stage's normal, friction, rolling and twisting
 * impulses) divided by the time step; smooth DEM: the step's contact
 * forces. Summed in contact order, so equal for every thread count. Zero
 * before the first step (and after a restore, until the next step).
 * Returns 0, or -1 when g is not an index of the scene's geometry. */
int ndem_sim_geometry_load(const ndem_sim *sim, int g, double f[3], double t[3]);
/* The pose of geometry g now: world = R(q) x + t for a point x of its shape
 * as defined (q = w, x, y, z). */
void ndem_sim_geometry_pose(const ndem_sim *sim, int g, double t[3], double q[4]);
/* Where geometry g's reference point (plane: its point, box and cylinder:
 * the centre; what a keyframe's position places) is now: its position for
 * outputs. */
void ndem_sim_geometry_position(const ndem_sim *sim, int g, double p[3]);
/* Where geometry g's pivot is now (constant motion: the pivot, moved with
 * the velocity; keyframes and static geometry: the reference point): the
 * point torques on it are taken about. */
void ndem_sim_geometry_pivot(const ndem_sim *sim, int g, double p[3]);
/* A stress-controlled box (`walls`): the mean normal stress on each pair
 * of walls during the last step (Pa: the pair's contact forces along its
 * normal over its current area, mean of the two walls; zero before the
 * first step) and its edge lengths now (m). Returns 0, or -1 when g is not
 * a box with walls. */
int ndem_sim_walls(const ndem_sim *sim, int g, double stress[3], double size[3]);
/* The same pairs' stress read from their motors, as the seed's sigma_i =
 * f_i / A_i: the mean of the two walls' motor forces during the last step
 * (inward, N: the motor rows' impulses over h; a driven wall's motor is the
 * force that holds its speed, the contact force along the normal) over the
 * current area (Pa; zero before the first step). Equal to the contact
 * stress for walls at rest or at constant speed; they differ by the walls'
 * acceleration M a / A. Returns 0, or -1 when g is not a box with walls. */
int ndem_sim_walls_motor(const ndem_sim *sim, int g, double stress[3]);

/* ---- Contact network (force chains) ---- */

/* The active contacts of the last step (NDEM: a nonzero normal or friction
 * impulse, impact stage included; smooth DEM: a nonzero contact force, van
 * der Waals attraction across a gap included; bonds are not contacts), in
 * the engine's pair order (NDEM: shaped particles' pairs after the
 * spheres', one entry a pair), which is the same for every thread count. Forces
 * are those b receives from a, in N (NDEM: the step's impulses over h, as
 * ndem_sim_geometry_load sums them). Arrays owned by the set: release with
 * ndem_contact_set_free. Empty before the first step and after a restore,
 * until the next step, and after a step that failed. */
typedef struct ndem_contact_set {
    long step;
    double time;
    long count;
    long *a;                   /* particle a: creation index */
    long *b;                   /* particle b's creation index, or -1 - geometry index */
    int *feature;              /* geometry: which feature (face, cap, triangle); -1: a particle */
    double *points;            /* 3 per contact: the middle of the overlap (frame positions) */
    double *normals;           /* 3 per contact: unit normal from a to b */
    double *normal_forces;     /* 1 per contact: along the normal; > 0 pushes b away */
    double *tangential_forces; /* 3 per contact: friction on b, perpendicular to the normal */
    double *rolling_torques;   /* 3 per contact: rolling and twisting torque on b (N m) */
} ndem_contact_set;

/* Fills out (0), or -1 when out of memory (out is then empty). */
int ndem_sim_copy_contacts(const ndem_sim *sim, ndem_contact_set *out);
void ndem_contact_set_free(ndem_contact_set *set);

/* Changes the PGS effort between steps: iterations, impact_iterations,
 * warm_start, warm_start_factor and tolerance of `solver` are taken (for
 * convergence studies that start variants from one state, tools/validate);
 * every other field must equal the simulation's, else -1 with a message.
 * Checkpoints keep the creation definition's scene hash: restore them with
 * that definition. */
int ndem_sim_set_solver(ndem_sim *sim, const ndem_solver_def *solver, char *err, size_t err_len);

/* Convergence probe (docs/engine.md): one step as ndem_sim_step takes it,
 * measuring after every sweep k of the continuous stage the mean residuals
 * (Wang et al. eq. 6) and the normal multipliers' mean relative error
 * against the last sweep's, <|l_last - l_k| / |l_last|> over the rows whose
 * last multiplier is not zero (eq. 13 with l_500 the last sweep when
 * solver.iterations is 500), and its load-weighted twin. rows has room for `capacity` sweeps (the
 * step makes solver.iterations); *count gets the sweeps recorded (0 when no row was solved, and for
 * smooth DEM). The step is the ordinary step otherwise: the same state results. */
typedef struct ndem_probe_row {
    double residual_normal, residual_friction, residual_rolling;
    double multiplier_error; /* eq. 13; -1 when out of memory for the multipliers */
    /* sum |l_last - l_k| / sum |l_last| over the same rows: eq. 13 weighted by
     * the load, which rows barely touching (|l_last| tiny) cannot dominate */
    double multiplier_error_total;
} ndem_probe_row;
ndem_status ndem_sim_probe_step(ndem_sim *sim, ndem_probe_row *rows, int capacity, int *count);

/* ---- Domain decomposition (docs/scale-out.md) ----
 *
 * The engine knows nothing of MPI: a caller that runs one scene over several
 * processes (cli/mpi.c) gives each process a simulation of the scene that
 * holds its own particles and copies of its neighbours' ("ghosts"), and
 * installs hooks that the NDEM solve calls. Creation ids of such a
 * simulation are the caller's local indices (ndem_sim_set_particles). */

/* One particle's full state, as ndem_sim_get_particles gives it and
 * ndem_sim_set_particles takes it back. */
typedef struct ndem_particle_state {
    double x[3], q[4], v[6]; /* position, orientation (w, x, y, z), v and w */
    double radius, inv_mass, inv_inertia;
    int material;
} ndem_particle_state;

/* One warm-start entry: the contact of particle a with particle b (creation
 * ids; order free) or, b < 0, with feature `feature` of geometry -1 - b; lam:
 * last step's normal impulse and the friction and rolling impulse vectors on
 * b (world frame). */
typedef struct ndem_history_entry {
    long a, b;
    int feature;
    float lam[7];
} ndem_history_entry;

/* The velocity slots the PGS sweeps read and write: NDEM_SLOT_FLOATS floats
 * per body (v, w, inverse mass, inverse inertia), body with creation id i
 * at slot where[i]. */
#define NDEM_SLOT_FLOATS 8

typedef struct ndem_decomp_hooks {
    void *ctx;
    /* 1 when this process solves a particle pair whose contact point is p
     * (exactly one process answers 1 for any p) */
    int (*owns_point)(void *ctx, const double p[3]);
    /* The slots were loaded from the bodies' velocities (start of the impact
     * or continuous stage): the caller notes its shared bodies' values and
     * may change their inverse masses for this stage (mass splitting);
     * touched[where[i]] is 1 when a row of this process acts on body i
     * (NULL: out of memory, take every body as touched). */
    void (*slots_loaded)(void *ctx, float *slots, const long *where, const unsigned char *touched);
    /* After the warm step and after every sweep: the caller sums the
     * ghosts' velocity changes onto their owners and copies the owners'
     * results back into every copy (HCSITS, docs/scale-out.md). */
    void (*after_sweep)(void *ctx, float *slots, const long *where);
    /* The sum of v over all processes, in an order that does not depend
     * on timing (the impact stage's decision, the residuals). */
    double (*sum)(void *ctx, double v);
    /* Emitters (NULL: a scene with emitters is refused). region: every
     * process's own particles whose centres lie within *reach of the box
     * [lo, hi], as x, y, z, radius (4 doubles each, *out malloc'd); the
     * caller raises *reach to the largest any process asked, so that all
     * see the same spheres. Returns their count, -1 when out of memory.
     * emitted: particles first..first+count-1 (creation ids) were just
     * emitted, the same on every process; the caller keeps those in its
     * part and may replace the particles (ndem_sim_set_particles) before the
     * step goes on. 0, or -1. */
    long (*region)(void *ctx, const double lo[3], const double hi[3], double *reach, double **out);
    int (*emitted)(void *ctx, long first, long count);
} ndem_decomp_hooks;

/* Installs the hooks (copied; NULL removes them). Particles with creation
 * id >= first_ghost are ghosts: not counted in the kinetic energy, their
 * geometry contacts not solved here. NDEM only: -1 for smooth DEM, dynamic
 * geometry, or emitters without the region and emitted hooks. */
int ndem_sim_decompose(ndem_sim *sim, const ndem_decomp_hooks *hooks, long first_ghost);
/* Replaces every particle by p[0..count) (creation ids 0..count-1; the
 * first `first_ghost` are this process's own) and the warm-start history by
 * the entries h whose particles are both among them (ids as in p). The
 * neighbour lists are rebuilt at the next step. 0, or -1 (out of memory, or
 * an entry out of range: err says which). */
int ndem_sim_set_particles(ndem_sim *sim, long count, long first_ghost,
                           const ndem_particle_state *p, long history_count,
                           const ndem_history_entry *h, char *err, size_t err_len);
/* The particles in creation order into p (room for ndem_sim_particle_count). */
void ndem_sim_get_particles(const ndem_sim *sim, ndem_particle_state *p);
/* The warm-start history of the last step: *out (malloc'd, the caller
 * frees it) gets the entries, in creation ids. Returns their count, -1
 * when out of memory. */
long ndem_sim_get_history(const ndem_sim *sim, ndem_history_entry **out);
/* A checkpoint (ndem_sim_checkpoint's format) of sim with p[0..count) as
 * its particles (creation ids 0..count-1) and h as its warm-start history:
 * the whole scene gathered from the processes, which ndem_sim_restore
 * restores as one simulation. 0, or -1 when out of memory or an entry is
 * out of range. */
int ndem_sim_checkpoint_of(const ndem_sim *sim, long count, const ndem_particle_state *p,
                           long history_count, const ndem_history_entry *h, void **buffer,
                           size_t *length);
/* The largest distance a particle moved since ndem_sim_set_particles plus
 * what it moves in one step at its speed now: how far it may be from where
 * the caller last saw it by the end of the next step. */
double ndem_sim_drift(const ndem_sim *sim);
/* Overwrites the last step's statistics and every geometry's load
 * (NDEM_LOAD_STRIDE doubles each, the layout of ndem_sim_geometry_loads) with
 * totals over the processes, for the outputs of the process that writes them. */
void ndem_sim_set_totals(ndem_sim *sim, const ndem_step_stats *stats, const double *loads);
/* Geometry loads of the last step as one array: geometry_count *
 * ndem_sim_load_stride() doubles (what ndem_sim_set_totals takes). */
const double *ndem_sim_geometry_loads(const ndem_sim *sim);
int ndem_sim_load_stride(void);

/* FNV-1a hash over the full particle state, for determinism checks. */
uint64_t ndem_sim_state_hash(const ndem_sim *sim);

#endif
