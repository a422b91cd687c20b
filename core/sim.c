/* sim.c - the simulation object: creation from a scene definition,
 * destruction, frames and the state hash. Its step is in step.c. */
#include "dem.h"
#include "geometry_mesh.h"
#include "shape_body.h"
#include "sim.h"
#include "broadphase_lll.h"
#include "vec.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH(h, x) ((h) = ndem_hash_bytes((h), &(x), sizeof(x)))
#define HASH_N(h, p, n) ((h) = ndem_hash_bytes((h), (p), sizeof(*(p)) * (size_t)(n)))

/* A fingerprint of the scene definition: a checkpoint restores only into
 * the scene it was taken from. Fields are hashed one by one (no padding). */
static uint64_t scene_hash(const ndem_scene_def *d)
{
    uint64_t h = 1469598103934665603ULL;
    HASH_N(h, d->gravity, 3);
    for (int i = 0; i < d->material_count; i++) {
        const ndem_material_def *m = &d->materials[i];
        HASH(h, m->density), HASH(h, m->young_modulus), HASH(h, m->poisson_ratio);
        HASH(h, m->viscosity);
    }
    for (int i = 0; i < d->contact_material_count; i++) {
        const ndem_contact_material_def *c = &d->contact_materials[i];
        HASH(h, c->material_a), HASH(h, c->material_b), HASH(h, c->friction);
        HASH(h, c->rolling_resistance), HASH(h, c->twisting_resistance);
        HASH(h, c->restitution), HASH(h, c->adhesion), HASH(h, c->adhesive_overlap);
        HASH(h, c->damping_time), HASH(h, c->young_modulus), HASH(h, c->stiffness_ratio);
        HASH(h, c->stiffness), HASH(h, c->exponent), HASH(h, c->velocity_friction);
        HASH(h, c->hamaker), HASH(h, c->vdw_saturation), HASH(h, c->bond_stiffness);
        HASH(h, c->bond_damping), HASH(h, c->bond_max_force), HASH(h, c->bond_max_torque);
        HASH(h, c->char_len), HASH(h, c->dynamic_friction);
    }
    for (int i = 0; i < d->geometry_count; i++) {
        const ndem_geometry_def *g = &d->geometry[i];
        HASH(h, g->type), HASH(h, g->material), HASH(h, g->inside);
        HASH(h, g->radius), HASH(h, g->length);
        HASH_N(h, g->normal, 3), HASH_N(h, g->axis, 3), HASH_N(h, g->velocity, 3);
        HASH_N(h, g->angular_velocity, 3);
        if (g->has_pivot) HASH_N(h, g->pivot, 3); /* only then: older hashes stay */
        for (int k = 0; k < g->keyframe_count; k++) {
            const ndem_keyframe *f = &g->keyframes[k];
            HASH(h, f->time), HASH_N(h, f->position, 3), HASH_N(h, f->orientation, 4);
        }
        if (g->type == NDEM_GEOMETRY_MESH && g->mesh) HASH(h, g->mesh->hash);
        if (g->dynamic.enabled) { /* only then: older hashes stay */
            const ndem_dynamic_def *dy = &g->dynamic;
            HASH(h, dy->mass), HASH_N(h, dy->inertia, 3), HASH(h, dy->lock);
            HASH_N(h, dy->force, 3);
        }
        if (g->walls.enabled) { /* only then: older hashes stay */
            const ndem_walls_def *wl = &g->walls;
            HASH(h, wl->mass), HASH_N(h, wl->stress, 3), HASH_N(h, wl->velocity, 3);
            HASH_N(h, wl->driven, 3), HASH(h, wl->start);
        }
    }
    for (int i = 0; i < d->emitter_count; i++) {
        const ndem_emitter_def *e = &d->emitters[i];
        HASH(h, e->rate), HASH(h, e->start), HASH(h, e->stop), HASH(h, e->max_count);
        HASH(h, e->material), HASH(h, e->seed);
        HASH_N(h, e->min, 3), HASH_N(h, e->max, 3), HASH_N(h, e->velocity, 3);
    }
    for (int i = 0; i < d->generator_count + d->emitter_count; i++) {
        const ndem_particle_shape_def *p = i < d->generator_count
                                               ? &d->generators[i].shape
                                               : &d->emitters[i - d->generator_count].shape;
        if (p->type == NDEM_PARTICLE_SPHERE) continue; /* only then: older hashes stay */
        HASH(h, i), HASH(h, p->type), HASH(h, p->count);
        if (p->type == NDEM_PARTICLE_COMPOUND) { /* the pieces' sizes, then all points */
            int points = 0;
            for (int k = 0; k < p->count; k++) points += p->piece_sizes[k];
            HASH_N(h, p->piece_sizes, p->count);
            HASH_N(h, p->data, 3 * points);
        } else {
            HASH_N(h, p->data, (p->type == NDEM_PARTICLE_CLUMP ? 4 : 3) * p->count);
        }
    }
    const ndem_solver_def *s = &d->solver;
    HASH(h, s->method), HASH(h, s->time_step), HASH(h, s->duration), HASH(h, s->iterations);
    HASH(h, s->impact_iterations), HASH(h, s->warm_start), HASH(h, s->warm_start_factor);
    HASH(h, s->impact_velocity), HASH(h, s->tolerance), HASH(h, s->damping_steps);
    HASH(h, s->friction_compliance), HASH(h, s->contact_model);
    HASH(h, d->material_count), HASH(h, d->geometry_count), HASH(h, d->emitter_count);
    return h;
}

static double mean_radius(const ndem_radius_dist *r)
{
    if (r->kind == NDEM_RADIUS_UNIFORM) return 0.5 * (r->min + r->max);
    if (r->kind == NDEM_RADIUS_FIXED) return r->values[0];
    double s = 0, w = 0;
    for (int i = 0; i < r->count; i++) {
        s += r->values[i] * r->weights[i];
        w += r->weights[i];
    }
    return w > 0 ? s / w : r->values[0];
}

static void grow_box(double *lo, double *hi, const double *a, const double *b)
{
    for (int k = 0; k < 3; k++) {
        lo[k] = fmin(lo[k], a[k]);
        hi[k] = fmax(hi[k], b[k]);
    }
}

/* The geometry's own copy of the keyframes, and its pose at time 0. */
static int geometry_copy(ndem_sim *sim)
{
    size_t n = 0;
    for (int i = 0; i < sim->geometry_count; i++) n += (size_t)sim->geometry[i].keyframe_count;
    sim->pose = calloc((size_t)sim->geometry_count + 1, sizeof *sim->pose);
    sim->keyframes = calloc(n + 1, sizeof *sim->keyframes);
    if (!sim->pose || !sim->keyframes) return -1;
    ndem_keyframe *k = sim->keyframes;
    for (int i = 0; i < sim->geometry_count; i++) {
        ndem_geometry_def *g = &sim->geometry[i];
        if (g->keyframe_count > 0) memcpy(k, g->keyframes, sizeof *k * (size_t)g->keyframe_count);
        g->keyframes = k;
        k += g->keyframe_count;
        ndem_rigid_place_pivot(g);
        ndem_geometry_pose_init(g, &sim->pose[i]);
    }
    return 0;
}

/* Everything but the particles: shared by create and restore. */
static ndem_sim *sim_alloc(const ndem_scene_def *def, char *err, size_t err_len)
{
    ndem_sim *sim = calloc(1, sizeof *sim);
    if (!sim) goto oom;
    sim->solver = def->solver;
    memcpy(sim->gravity, def->gravity, sizeof sim->gravity);
    sim->threads = def->solver.threads > 0 ? def->solver.threads : omp_get_max_threads();
    /* test switches, read once here so that no step reads the environment */
    const char *pmin = getenv("NDEM_PARALLEL_MIN");
    sim->parallel_min = pmin && atol(pmin) > 0 ? atol(pmin) : NDEM_PARALLEL_MIN_DEFAULT;
    sim->isa = ndem_solver_isa(getenv("NDEM_ISA"), err, err_len);
    sim->sweep_order = sim->isa < 0 ? -1 : ndem_sweep_order(getenv("NDEM_SWEEP"), err, err_len);
    sim->warm_normal_only =
        sim->sweep_order < 0 ? -1 : ndem_warm_rows_switch(getenv("NDEM_WARM_ROWS"), err, err_len);
    sim->impact_reach = sim->warm_normal_only < 0
                            ? -1
                            : ndem_impact_reach_switch(getenv("NDEM_IMPACT_REACH"), err, err_len);
    sim->projection = sim->impact_reach < 0
                          ? -1
                          : ndem_projection_switch(getenv("NDEM_PROJECTION"), err, err_len);
    if (sim->isa < 0 || sim->sweep_order < 0 || sim->warm_normal_only < 0 ||
        sim->impact_reach < 0 || sim->projection < 0 ||
        ndem_overflow_switch(getenv("NDEM_OVERFLOW"), &sim->overflow_all, err, err_len)) {
        ndem_sim_destroy(sim);
        return NULL;
    }
    for (int i = 0; i < def->geometry_count; i++)
        if (def->geometry[i].type == NDEM_GEOMETRY_MESH && !def->geometry[i].mesh) {
            snprintf(err, err_len, "geometry %d: a mesh without its triangles", i);
            ndem_sim_destroy(sim);
            return NULL;
        }
    if (ndem_material_table_init(&sim->materials, def)) goto oom;
    sim->geometry_count = def->geometry_count;
    sim->emitter_count = def->emitter_count;
    sim->geometry = calloc((size_t)def->geometry_count + 1, sizeof *sim->geometry);
    sim->emitters = calloc((size_t)def->emitter_count + 1, sizeof *sim->emitters);
    sim->emitter_state = calloc((size_t)def->emitter_count + 1, sizeof *sim->emitter_state);
    sim->loads = calloc(NDEM_LOAD_STRIDE * ((size_t)def->geometry_count + 1), sizeof *sim->loads);
    if (!sim->geometry || !sim->emitters || !sim->emitter_state || !sim->loads) goto oom;
    /* empty arrays may be NULL: memcpy must not see them */
    if (def->geometry_count > 0)
        memcpy(sim->geometry, def->geometry, sizeof *sim->geometry * (size_t)def->geometry_count);
    if (geometry_copy(sim)) goto oom;
    if (def->emitter_count > 0)
        memcpy(sim->emitters, def->emitters, sizeof *sim->emitters * (size_t)def->emitter_count);
    for (int i = 0; i < def->emitter_count; i++)
        ndem_rng_seed(&sim->emitter_state[i].rng, def->emitters[i].seed);
    sim->total_steps = (long)ceil(def->solver.duration / def->solver.time_step - 1e-9);
    sim->scene_hash = scene_hash(def);
    if (def->solver.method == NDEM_METHOD_DEM && !(sim->dem = ndem_dem_create(sim))) goto oom;
    if (ndem_rigid_create(sim, err, err_len) ||
        ndem_shapes_create(sim, def, &sim->shapes, err, err_len)) {
        ndem_sim_destroy(sim);
        return NULL;
    }
    /* NDEM with shapes: the general rows */
    if (sim->shapes && !sim->dem && !(sim->general = ndem_general_create())) goto oom;
    return sim;
oom:
    snprintf(err, err_len, "out of memory creating the simulation");
    ndem_sim_destroy(sim);
    return NULL;
}

/* Scene bounds (leaving them is an error) and the characteristic diameter
 * that sets the automatic impact velocity. */
static void sim_finish(ndem_sim *sim)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const ndem_bodies *b = &sim->bodies;
    double dsum = 0;
    for (long i = 0; i < b->count; i++) {
        grow_box(lo, hi, &b->pos[3 * i], &b->pos[3 * i]);
        dsum += 2.0 * b->radius[i];
    }
    double esum = 0;
    for (int i = 0; i < sim->emitter_count; i++) {
        grow_box(lo, hi, sim->emitters[i].min, sim->emitters[i].max);
        esum += 2.0 * mean_radius(&sim->emitters[i].radius);
    }
    for (int i = 0; i < sim->geometry_count; i++) {
        double glo[3], ghi[3];
        ndem_geometry_sweep_bounds(&sim->geometry[i], sim->solver.duration, glo, ghi);
        grow_box(lo, hi, glo, ghi);
    }
    double size = 1.0;
    for (int k = 0; k < 3; k++)
        if (isfinite(hi[k] - lo[k]) && hi[k] - lo[k] > size) size = hi[k] - lo[k];
    for (int k = 0; k < 3; k++) {
        sim->bounds_min[k] = (isfinite(lo[k]) ? lo[k] : 0.0) - 10.0 * size;
        sim->bounds_max[k] = (isfinite(hi[k]) ? hi[k] : 0.0) + 10.0 * size;
    }
    if (b->count > 0) sim->d_avg = dsum / (double)b->count;
    else if (sim->emitter_count > 0) sim->d_avg = esum / sim->emitter_count;
    else sim->d_avg = 0.01;
    /* v_imp = 0.02 d_avg / h (AGX eq. 35.10 read as a division, which gives
     * Wang et al.'s Table 1: docs/physics.md, "NDEM step") */
    sim->v_imp = sim->solver.impact_velocity > 0 ? sim->solver.impact_velocity
                                                 : 0.02 * sim->d_avg / sim->solver.time_step;
}

ndem_sim *ndem_sim_create(const ndem_scene_def *def, char *err, size_t err_len)
{
    ndem_sim *sim = sim_alloc(def, err, err_len);
    if (!sim) return NULL;
    if (ndem_generate_initial(sim, def, err, err_len)) {
        ndem_sim_destroy(sim);
        return NULL;
    }
    sim_finish(sim);
    sim->stats.particles = sim->bodies.count;
    return sim;
}

void ndem_sim_destroy(ndem_sim *sim)
{
    if (!sim) return;
    ndem_material_table_destroy(&sim->materials);
    free(sim->geometry);
    free(sim->loads);
    free(sim->pose);
    free(sim->keyframes);
    free(sim->emitters);
    free(sim->emitter_state);
    ndem_bodies_destroy(&sim->bodies);
    ndem_contacts_destroy(&sim->contacts, &sim->history);
    ndem_grid_destroy(&sim->grid);
    ndem_neighbours_destroy(&sim->neighbours);
    ndem_lll_destroy(sim->lll);
    ndem_dem_destroy(sim->dem);
    ndem_rigid_destroy(sim->rigid);
    ndem_shapes_destroy(sim->shapes);
    ndem_general_destroy(sim->general);
    ndem_decomp_destroy(sim->decomp);
    free(sim->forced);
    free(sim);
}

int ndem_sim_finish(ndem_sim *sim, ndem_frame *out)
{
    /* the search's and the solver's arrays first: the copy takes their place */
    ndem_contacts_destroy(&sim->contacts, &sim->history);
    ndem_grid_destroy(&sim->grid);
    ndem_neighbours_destroy(&sim->neighbours);
    ndem_dem_destroy(sim->dem);
    sim->dem = NULL;
    int rc = ndem_sim_copy_motion(sim, out);
    ndem_sim_destroy(sim);
    return rc;
}

const char *ndem_sim_error(const ndem_sim *sim) { return sim->error; }
const ndem_step_stats *ndem_sim_stats(const ndem_sim *sim) { return &sim->stats; }
long ndem_sim_particle_count(const ndem_sim *sim) { return sim->bodies.count; }
long ndem_sim_total_steps(const ndem_sim *sim) { return sim->total_steps; }
int ndem_sim_threads(const ndem_sim *sim) { return sim->threads; }

void ndem_sim_set_threads(ndem_sim *sim, int threads)
{
    sim->threads = threads > 0 ? threads : omp_get_max_threads();
}
int ndem_sim_geometry_count(const ndem_sim *sim) { return sim->geometry_count; }

const ndem_geometry_def *ndem_sim_geometry(const ndem_sim *sim, int g)
{
    return g >= 0 && g < sim->geometry_count ? &sim->geometry[g] : NULL;
}

int ndem_sim_geometry_load(const ndem_sim *sim, int g, double f[3], double t[3])
{
    if (g < 0 || g >= sim->geometry_count) return -1;
    const double *o = &sim->loads[NDEM_LOAD_STRIDE * g];
    for (int q = 0; q < 3; q++) f[q] = o[q], t[q] = o[3 + q];
    return 0;
}

void ndem_sim_geometry_pose(const ndem_sim *sim, int g, double t[3], double q[4])
{
    ndem_geometry_pose_of(&sim->pose[g], t, q);
}

void ndem_sim_geometry_position(const ndem_sim *sim, int g, double p[3])
{
    ndem_geometry_reference_now(&sim->geometry[g], &sim->pose[g], p);
}

void ndem_sim_geometry_pivot(const ndem_sim *sim, int g, double p[3])
{
    memcpy(p, sim->pose[g].to, sizeof sim->pose[g].to);
}

/* The faces of boxes with walls where they are now (walls.c moves the
 * def's min and max); nothing when the scene has no walls. */
static int copy_extents(const ndem_sim *sim, ndem_frame *out)
{
    int any = 0;
    for (int g = 0; g < sim->geometry_count; g++) any |= sim->geometry[g].walls.enabled;
    if (!any) return 0;
    out->geometry_extents = malloc((size_t)sim->geometry_count * 6 * sizeof(double));
    if (!out->geometry_extents) {
        ndem_frame_free(out);
        return -1;
    }
    for (int g = 0; g < sim->geometry_count; g++) {
        const ndem_geometry_def *d = &sim->geometry[g];
        for (int k = 0; k < 3; k++) {
            out->geometry_extents[6 * g + k] = d->walls.enabled ? d->min[k] : NAN;
            out->geometry_extents[6 * g + 3 + k] = d->walls.enabled ? d->max[k] : NAN;
        }
    }
    return 0;
}

/* The particles of creation index first .. first + n - 1, and the geometry. */
static int copy_frame(const ndem_sim *sim, ndem_frame *out, int all, long first, long n)
{
    const ndem_bodies *b = &sim->bodies;
    memset(out, 0, sizeof *out);
    if (first < 0 || n < 0 || first > b->count - n) return -1;
    out->step = sim->step;
    out->time = sim->time;
    out->count = n;
    size_t m = (size_t)(n > 0 ? n : 1);
    out->positions = malloc(3 * m * sizeof(double));
    out->radii = malloc(m * sizeof(double));
    out->velocities = malloc(3 * m * sizeof(double));
    out->angular_velocities = malloc(3 * m * sizeof(double));
    out->materials = malloc(m * sizeof(int));
    /* shaped particles' turn shows: frames on disk carry it (NDF1 bit 7) */
    if (all || sim->shapes) out->orientations = malloc(4 * m * sizeof(double));
    if (sim->shapes) out->shapes = malloc(m * sizeof(int));
    out->geometry_count = sim->geometry_count;
    out->geometry_poses = malloc((size_t)(sim->geometry_count + 1) * 7 * sizeof(double));
    if (!out->positions || !out->radii || !out->velocities || !out->angular_velocities ||
        !out->materials || !out->geometry_poses || ((all || sim->shapes) && !out->orientations) ||
        (sim->shapes && !out->shapes)) {
        ndem_frame_free(out);
        return -1;
    }
    /* creation index first + o is internal index i (reorder.c) */
    for (long o = 0; o < n; o++) {
        long i = b->where[first + o];
        memcpy(&out->positions[3 * o], &b->pos[3 * i], 3 * sizeof(double));
        memcpy(&out->velocities[3 * o], &b->vel[6 * i], 3 * sizeof(double));
        memcpy(&out->angular_velocities[3 * o], &b->vel[6 * i + 3], 3 * sizeof(double));
        out->radii[o] = b->radius[i];
        out->materials[o] = b->material[i];
        if (out->shapes && b->shape[i] >= 0) {
            /* the template as listed, at the particle's radius (the broad
             * phase's radius is the bound about the centre of mass) */
            const ndem_body_shape *t = &sim->shapes->t[b->shape[i]];
            out->shapes[o] = t->listed;
            out->radii[o] = t->radius;
        } else if (out->shapes) {
            out->shapes[o] = -1;
        }
        if (out->orientations)
            memcpy(&out->orientations[4 * o], &b->quat[4 * i], 4 * sizeof(double));
    }
    for (int g = 0; g < sim->geometry_count; g++) {
        double *pose = &out->geometry_poses[7 * g];
        ndem_sim_geometry_position(sim, g, pose);
        memcpy(pose + 3, sim->pose[g].q, 4 * sizeof(double));
    }
    return copy_extents(sim, out);
}

int ndem_sim_copy_frame(const ndem_sim *sim, ndem_frame *out)
{
    return copy_frame(sim, out, 1, 0, sim->bodies.count);
}

int ndem_sim_copy_motion(const ndem_sim *sim, ndem_frame *out)
{
    return copy_frame(sim, out, 0, 0, sim->bodies.count);
}

int ndem_sim_copy_motion_part(const ndem_sim *sim, long first, long count, ndem_frame *out)
{
    return copy_frame(sim, out, 0, first, count);
}

void ndem_frame_free(ndem_frame *f)
{
    if (!f) return;
    free(f->positions);
    free(f->radii);
    free(f->velocities);
    free(f->angular_velocities);
    free(f->orientations);
    free(f->materials);
    free(f->geometry_poses);
    free(f->shapes);
    free(f->geometry_extents);
    memset(f, 0, sizeof *f);
}

uint64_t ndem_sim_state_hash(const ndem_sim *sim)
{
    const ndem_bodies *b = &sim->bodies;
    uint64_t h = 1469598103934665603ULL;
    size_t n = (size_t)b->count;
    HASH(h, sim->step);
    /* creation order: the same bytes in the same order as before reorder.c */
    const long *w = b->where;
    for (size_t c = 0; c < n; c++) h = ndem_hash_bytes(h, &b->pos[3 * w[c]], 3 * sizeof(double));
    for (size_t c = 0; c < n; c++) h = ndem_hash_bytes(h, &b->quat[4 * w[c]], 4 * sizeof(double));
    for (size_t c = 0; c < n; c++) h = ndem_hash_bytes(h, &b->vel[6 * w[c]], 6 * sizeof(double));
    for (size_t c = 0; c < n; c++) h = ndem_hash_bytes(h, &b->radius[w[c]], sizeof(double));
    for (int g = 0; sim->rigid && g < sim->geometry_count; g++)
        if (sim->geometry[g].walls.enabled) { /* the faces and the walls' velocities */
            const ndem_geometry_def *d = &sim->geometry[g];
            h = ndem_hash_bytes(h, d->min, sizeof d->min);
            h = ndem_hash_bytes(h, d->max, sizeof d->max);
            for (int f = 0; f < 6; f++) {
                const double *v = sim->rigid->body[sim->rigid->first[g] + f].v;
                h = ndem_hash_bytes(h, v, 3 * sizeof(double));
            }
        }
    for (int g = 0; sim->rigid && g < sim->geometry_count; g++)
        if (sim->geometry[g].dynamic.enabled) { /* only then: older hashes stay */
            const ndem_geometry_pose *p = &sim->pose[g];
            h = ndem_hash_bytes(h, p->q, sizeof p->q);
            h = ndem_hash_bytes(h, p->to, sizeof p->to);
            h = ndem_hash_bytes(h, p->velocity, sizeof p->velocity);
            h = ndem_hash_bytes(h, p->spin, sizeof p->spin);
        }
    return h;
}
