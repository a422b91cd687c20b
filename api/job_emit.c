/* job_emit.c - a parsed job back to JSON text with every default filled in,
 * in the schema ndem_job_parse reads (numbers written so that they parse
 * back to the same bits), and error lists as JSON. */
#include "job.h"
#include "job_parts.h"
#include "jsonw.h"

#include <stdlib.h>
#include <string.h>

static const char *material_name(const ndem_scene_def *s, int i)
{
    if (i < 0 || i >= s->material_count) i = 0;
    return s->material_count > 0 ? s->materials[i].name : "";
}

/* A number, or null when the engine treats it as "automatic" (<= 0). */
static void knumber_auto(ndem_jw *w, const char *key, double x)
{
    ndem_jw_key(w, key);
    if (x > 0.0) ndem_jw_number(w, x);
    else ndem_jw_null(w);
}

static void emit_radius(ndem_jw *w, const ndem_radius_dist *r)
{
    ndem_jw_key(w, "radius");
    switch (r->kind) {
    case NDEM_RADIUS_FIXED:
        ndem_jw_number(w, r->values[0]);
        break;
    case NDEM_RADIUS_UNIFORM:
        ndem_jw_begin(w, '{', 1);
        ndem_jw_knumber(w, "min", r->min);
        ndem_jw_knumber(w, "max", r->max);
        ndem_jw_end(w);
        break;
    case NDEM_RADIUS_VALUES:
        ndem_jw_begin(w, '{', 1);
        ndem_jw_key(w, "values");
        ndem_jw_begin(w, '[', 1);
        for (int i = 0; i < r->count && i < NDEM_MAX_RADIUS_VALUES; i++) {
            ndem_jw_next(w);
            ndem_jw_number(w, r->values[i]);
        }
        ndem_jw_end(w);
        ndem_jw_key(w, "weights");
        ndem_jw_begin(w, '[', 1);
        for (int i = 0; i < r->count && i < NDEM_MAX_RADIUS_VALUES; i++) {
            ndem_jw_next(w);
            ndem_jw_number(w, r->weights[i]);
        }
        ndem_jw_end(w);
        ndem_jw_end(w);
        break;
    }
}

static void emit_materials(ndem_jw *w, const ndem_scene_def *s)
{
    ndem_jw_key(w, "materials");
    ndem_jw_begin(w, '[', 0);
    for (int i = 0; i < s->material_count; i++) {
        const ndem_material_def *m = &s->materials[i];
        ndem_jw_next(w);
        ndem_jw_begin(w, '{', 0);
        ndem_jw_kstring(w, "name", m->name);
        ndem_jw_knumber(w, "density", m->density);
        ndem_jw_knumber(w, "young_modulus", m->young_modulus);
        ndem_jw_knumber(w, "poisson_ratio", m->poisson_ratio);
        ndem_jw_knumber(w, "viscosity", m->viscosity);
        ndem_jw_end(w);
    }
    ndem_jw_end(w);

    ndem_jw_key(w, "contact_materials");
    ndem_jw_begin(w, '[', 0);
    for (int i = 0; i < s->contact_material_count; i++) {
        const ndem_contact_material_def *c = &s->contact_materials[i];
        ndem_jw_next(w);
        ndem_jw_begin(w, '{', 0);
        ndem_jw_key(w, "materials");
        ndem_jw_begin(w, '[', 1);
        ndem_jw_next(w);
        ndem_jw_string(w, material_name(s, c->material_a));
        ndem_jw_next(w);
        ndem_jw_string(w, material_name(s, c->material_b));
        ndem_jw_end(w);
        ndem_jw_knumber(w, "friction", c->friction);
        ndem_jw_knumber(w, "rolling_resistance", c->rolling_resistance);
        /* < 0 (a caller's default): the rolling_resistance that applies */
        ndem_jw_knumber(w, "twisting_resistance",
                        c->twisting_resistance >= 0 ? c->twisting_resistance
                                                    : c->rolling_resistance);
        ndem_jw_knumber(w, "restitution", c->restitution);
        ndem_jw_knumber(w, "adhesion", c->adhesion);
        ndem_jw_knumber(w, "adhesive_overlap", c->adhesive_overlap);
        knumber_auto(w, "damping_time", c->damping_time);
        knumber_auto(w, "young_modulus", c->young_modulus);
        ndem_jw_knumber(w, "stiffness_ratio", c->stiffness_ratio);
        knumber_auto(w, "stiffness", c->stiffness);
        ndem_jw_knumber(w, "exponent", c->exponent);
        ndem_jw_kbool(w, "velocity_friction", c->velocity_friction);
        knumber_auto(w, "char_len", c->char_len);
        ndem_jw_key(w, "dynamic_friction"); /* null: equal to friction */
        if (c->dynamic_friction >= 0) ndem_jw_number(w, c->dynamic_friction);
        else ndem_jw_null(w);
        knumber_auto(w, "bond_stiffness", c->bond_stiffness);
        ndem_jw_knumber(w, "bond_damping", c->bond_damping);
        knumber_auto(w, "bond_max_force", c->bond_max_force);
        knumber_auto(w, "bond_max_torque", c->bond_max_torque);
        ndem_jw_knumber(w, "hamaker", c->hamaker);
        ndem_jw_knumber(w, "vdw_saturation", c->vdw_saturation);
        ndem_jw_end(w);
    }
    ndem_jw_end(w);
}

/* The shorthand velocity and angular_velocity when they say it all (no
 * pivot, no keyframes), otherwise "motion" (docs/job.md, "Moving
 * geometry"). */
static void emit_motion(ndem_jw *w, const ndem_geometry_def *g)
{
    if (g->keyframe_count == 0 && !g->has_pivot) {
        ndem_jw_kvec3(w, "velocity", g->velocity);
        ndem_jw_kvec3(w, "angular_velocity", g->angular_velocity);
        return;
    }
    ndem_jw_key(w, "motion");
    ndem_jw_begin(w, '{', 0);
    if (g->keyframe_count == 0) {
        ndem_jw_kvec3(w, "velocity", g->velocity);
        ndem_jw_kvec3(w, "angular_velocity", g->angular_velocity);
        ndem_jw_kvec3(w, "pivot", g->pivot);
        ndem_jw_end(w);
        return;
    }
    ndem_jw_key(w, "keyframes");
    ndem_jw_begin(w, '[', 0);
    for (int k = 0; k < g->keyframe_count; k++) {
        const ndem_keyframe *f = &g->keyframes[k];
        ndem_jw_next(w);
        ndem_jw_begin(w, '{', 1);
        ndem_jw_knumber(w, "time", f->time);
        ndem_jw_kvec3(w, "position", f->position);
        ndem_jw_kquat(w, "orientation", f->orientation);
        ndem_jw_end(w);
    }
    ndem_jw_end(w);
    ndem_jw_end(w);
}

/* A rigid body's members (job_dynamic.c); "inertia" only when given (zero:
 * from the shape). */
static void emit_dynamic(ndem_jw *w, const ndem_geometry_def *g)
{
    static const char *const locks[] = {"x", "y", "z", "rx", "ry", "rz"};
    const ndem_dynamic_def *d = &g->dynamic;
    ndem_jw_key(w, "dynamic");
    ndem_jw_begin(w, '{', 0);
    ndem_jw_knumber(w, "mass", d->mass);
    if (d->inertia[0] > 0) ndem_jw_kvec3(w, "inertia", d->inertia);
    ndem_jw_key(w, "lock");
    ndem_jw_begin(w, '[', 1);
    for (int k = 0; k < 6; k++)
        if (d->lock & (1u << k)) {
            ndem_jw_next(w);
            ndem_jw_string(w, locks[k]);
        }
    ndem_jw_end(w);
    ndem_jw_kvec3(w, "force", d->force);
    ndem_jw_kvec3(w, "velocity", g->velocity);
    ndem_jw_kvec3(w, "angular_velocity", g->angular_velocity);
    ndem_jw_end(w);
}

/* A stress-controlled box's walls (job_walls.c): null for a pair without
 * a velocity. */
static void emit_walls(ndem_jw *w, const ndem_walls_def *d)
{
    ndem_jw_key(w, "walls");
    ndem_jw_begin(w, '{', 0);
    ndem_jw_knumber(w, "mass", d->mass);
    ndem_jw_kvec3(w, "stress", d->stress);
    ndem_jw_key(w, "velocity");
    ndem_jw_begin(w, '[', 1);
    for (int k = 0; k < 3; k++) {
        ndem_jw_next(w);
        if (d->driven[k]) ndem_jw_number(w, d->velocity[k]);
        else ndem_jw_null(w);
    }
    ndem_jw_end(w);
    ndem_jw_knumber(w, "start", d->start);
    ndem_jw_knumber(w, "ramp", d->ramp);
    ndem_jw_knumber(w, "max_speed", d->max_speed);
    ndem_jw_end(w);
}

static void emit_geometry(ndem_jw *w, const ndem_scene_def *s)
{
    static const char *const types[] = {"plane", "box", "cylinder", "mesh"};
    ndem_jw_key(w, "geometry");
    ndem_jw_begin(w, '[', 0);
    for (int i = 0; i < s->geometry_count; i++) {
        const ndem_geometry_def *g = &s->geometry[i];
        ndem_jw_next(w);
        ndem_jw_begin(w, '{', 0);
        ndem_jw_kstring(w, "type", types[g->type <= NDEM_GEOMETRY_MESH ? g->type : 0]);
        if (g->name[0]) ndem_jw_kstring(w, "name", g->name);
        switch (g->type) {
        case NDEM_GEOMETRY_PLANE:
            ndem_jw_kvec3(w, "point", g->point);
            ndem_jw_kvec3(w, "normal", g->normal);
            break;
        case NDEM_GEOMETRY_BOX:
            ndem_jw_kvec3(w, "min", g->min);
            ndem_jw_kvec3(w, "max", g->max);
            ndem_jw_kbool(w, "inside", g->inside);
            break;
        case NDEM_GEOMETRY_CYLINDER:
            ndem_jw_kvec3(w, "center", g->center);
            ndem_jw_kvec3(w, "axis", g->axis);
            ndem_jw_knumber(w, "radius", g->radius);
            ndem_jw_knumber(w, "length", g->length);
            ndem_jw_kbool(w, "inside", g->inside);
            break;
        case NDEM_GEOMETRY_MESH: /* as built, with its placement (job_mesh.c) */
            ndem_job_emit_mesh(w, g);
            break;
        }
        ndem_jw_kstring(w, "material", material_name(s, g->material));
        if (g->dynamic.enabled) emit_dynamic(w, g);
        else if (g->walls.enabled) emit_walls(w, &g->walls);
        else emit_motion(w, g);
        ndem_jw_end(w);
    }
    ndem_jw_end(w);
}

/* A list's optional per-sphere array of `width` numbers each. */
static void emit_per_sphere(ndem_jw *w, const char *key, const double *a, int width, long n)
{
    if (!a) return;
    ndem_jw_key(w, key);
    ndem_jw_begin(w, '[', 0);
    for (long k = 0; k < n; k++) {
        ndem_jw_next(w);
        ndem_jw_vec(w, a + (size_t)width * (size_t)k, width);
    }
    ndem_jw_end(w);
}

/* A particle shape (absent for a plain sphere), as the document gave it. */
static void emit_shape(ndem_jw *w, const ndem_particle_shape_def *p)
{
    if (p->type == NDEM_PARTICLE_SPHERE || !p->data) return;
    static const char *const names[] = {"sphere", "clump", "polyhedron", "compound"};
    int clump = p->type == NDEM_PARTICLE_CLUMP;
    ndem_jw_key(w, "shape");
    ndem_jw_begin(w, '{', 0);
    ndem_jw_kstring(w, "type", names[p->type]);
    if (p->type == NDEM_PARTICLE_COMPOUND) {
        ndem_jw_key(w, "pieces");
        ndem_jw_begin(w, '[', 0);
        const double *at = p->data;
        for (int k = 0; k < p->count; k++) {
            ndem_jw_next(w);
            ndem_jw_begin(w, '[', 0);
            for (int i = 0; i < p->piece_sizes[k]; i++) {
                ndem_jw_next(w);
                ndem_jw_vec(w, at + 3 * i, 3);
            }
            ndem_jw_end(w);
            at += 3 * p->piece_sizes[k];
        }
        ndem_jw_end(w);
    } else {
        emit_per_sphere(w, clump ? "spheres" : "vertices", p->data, clump ? 4 : 3, p->count);
    }
    ndem_jw_end(w);
}

static void emit_list(ndem_jw *w, const ndem_generator_def *g)
{
    ndem_jw_key(w, "spheres");
    ndem_jw_begin(w, '[', 0);
    for (long k = 0; k < g->list_count && g->spheres; k++) {
        ndem_jw_next(w);
        ndem_jw_vec(w, g->spheres + 4 * k, 4);
    }
    ndem_jw_end(w);
    if (g->bond_pair_count > 0) {
        ndem_jw_key(w, "bonds");
        ndem_jw_begin(w, '[', 0);
        for (long k = 0; k < g->bond_pair_count; k++) {
            ndem_jw_next(w);
            ndem_jw_begin(w, '[', 1);
            ndem_jw_next(w);
            ndem_jw_number(w, g->bond_pairs[2 * k]);
            ndem_jw_next(w);
            ndem_jw_number(w, g->bond_pairs[2 * k + 1]);
            ndem_jw_end(w);
        }
        ndem_jw_end(w);
    }
    emit_per_sphere(w, "velocities", g->velocities, 3, g->list_count);
    emit_per_sphere(w, "orientations", g->orientations, 4, g->list_count);
    emit_per_sphere(w, "angular_velocities", g->angular_velocities, 3, g->list_count);
}

static void emit_particles(ndem_jw *w, const ndem_scene_def *s)
{
    static const char *const types[] = {"lattice", "random", "list"};
    ndem_jw_key(w, "particles");
    ndem_jw_begin(w, '[', 0);
    for (int i = 0; i < s->generator_count; i++) {
        const ndem_generator_def *g = &s->generators[i];
        ndem_jw_next(w);
        ndem_jw_begin(w, '{', 0);
        ndem_jw_kstring(w, "type", types[g->type <= NDEM_GENERATOR_LIST ? g->type : 0]);
        ndem_jw_kstring(w, "material", material_name(s, g->material));
        ndem_jw_kbool(w, "fixed_rotation", g->fixed_rotation);
        ndem_jw_kbool(w, "bonded", g->bonded);
        ndem_jw_kvec3(w, "force", g->force);
        ndem_jw_kvec3(w, "force_rate", g->force_rate);
        emit_shape(w, &g->shape);
        if (g->type == NDEM_GENERATOR_LIST) {
            emit_list(w, g);
        } else {
            ndem_jw_kvec3(w, "min", g->min);
            ndem_jw_kvec3(w, "max", g->max);
            if (g->type == NDEM_GENERATOR_LATTICE) ndem_jw_knumber(w, "spacing", g->spacing);
            ndem_jw_klong(w, "count", g->count);
            emit_radius(w, &g->radius);
            if (g->type == NDEM_GENERATOR_RANDOM) ndem_jw_klong(w, "seed", (long long)g->seed);
            ndem_jw_kvec3(w, "velocity", g->velocity);
        }
        ndem_jw_end(w);
    }
    ndem_jw_end(w);
}

static void emit_emitters(ndem_jw *w, const ndem_scene_def *s)
{
    ndem_jw_key(w, "emitters");
    ndem_jw_begin(w, '[', 0);
    for (int i = 0; i < s->emitter_count; i++) {
        const ndem_emitter_def *e = &s->emitters[i];
        ndem_jw_next(w);
        ndem_jw_begin(w, '{', 0);
        ndem_jw_kstring(w, "type", "box");
        ndem_jw_kvec3(w, "min", e->min);
        ndem_jw_kvec3(w, "max", e->max);
        ndem_jw_knumber(w, "rate", e->rate);
        ndem_jw_knumber(w, "start", e->start);
        ndem_jw_knumber(w, "stop", e->stop);
        ndem_jw_klong(w, "max_count", e->max_count);
        emit_radius(w, &e->radius);
        ndem_jw_kstring(w, "material", material_name(s, e->material));
        ndem_jw_kvec3(w, "velocity", e->velocity);
        ndem_jw_klong(w, "seed", (long long)e->seed);
        emit_shape(w, &e->shape);
        ndem_jw_end(w);
    }
    ndem_jw_end(w);
}

static const char *ndem_contact_model_name(ndem_contact_model m)
{
    switch (m) {
    case NDEM_MODEL_LINEAR:
        return "linear";
    case NDEM_MODEL_HUNT_CROSSLEY:
        return "hunt_crossley";
    case NDEM_MODEL_LINEAR_ELASTIC6:
        return "linear_elastic6";
    case NDEM_MODEL_LUDING:
        return "luding";
    case NDEM_MODEL_HERTZ:
    default:
        return "hertz";
    }
}

static void emit_solver(ndem_jw *w, const ndem_solver_def *v)
{
    ndem_jw_key(w, "solver");
    ndem_jw_begin(w, '{', 0);
    ndem_jw_kstring(w, "method", v->method == NDEM_METHOD_DEM ? "dem" : "ndem");
    if (v->method == NDEM_METHOD_DEM)
        ndem_jw_kstring(w, "contact_model", ndem_contact_model_name(v->contact_model));
    ndem_jw_knumber(w, "time_step", v->time_step);
    ndem_jw_knumber(w, "duration", v->duration);
    if (v->broad_phase == NDEM_BROAD_PHASE_LLL) ndem_jw_kstring(w, "broad_phase", "lll");
    ndem_jw_klong(w, "iterations", v->iterations);
    ndem_jw_klong(w, "impact_iterations", v->impact_iterations);
    ndem_jw_kbool(w, "warm_start", v->warm_start);
    ndem_jw_knumber(w, "warm_start_factor", v->warm_start_factor);
    knumber_auto(w, "impact_velocity", v->impact_velocity);
    ndem_jw_knumber(w, "tolerance", v->tolerance);
    ndem_jw_knumber(w, "damping_steps", v->damping_steps);
    ndem_jw_knumber(w, "friction_compliance", v->friction_compliance);
    ndem_jw_klong(w, "threads", v->threads);
    ndem_jw_end(w);
}

char *ndem_job_to_json(const ndem_job *job)
{
    if (!job) return NULL;
    const ndem_scene_def *s = &job->scene;
    ndem_jw w;
    ndem_jw_init(&w, 1);
    ndem_jw_begin(&w, '{', 0);
    ndem_jw_kstring(&w, "name", job->name);
    ndem_jw_key(&w, "scene");
    ndem_jw_begin(&w, '{', 0);
    ndem_jw_kvec3(&w, "gravity", s->gravity);
    emit_materials(&w, s);
    emit_geometry(&w, s);
    emit_particles(&w, s);
    emit_emitters(&w, s);
    ndem_jw_end(&w);
    emit_solver(&w, &s->solver);
    ndem_jw_key(&w, "output");
    ndem_jw_begin(&w, '{', 0);
    ndem_jw_knumber(&w, "frame_interval", job->output.frame_interval);
    ndem_jw_kbool(&w, "contacts", job->output.contacts);
    ndem_jw_end(&w);
    ndem_jw_end(&w);
    ndem_jw_raw(&w, "\n", 1);
    return ndem_jw_finish(&w);
}

char *ndem_job_errors_to_json(const ndem_job_errors *errs)
{
    ndem_jw w;
    ndem_jw_init(&w, 0);
    ndem_jw_begin(&w, '[', 1);
    for (int i = 0; errs && i < errs->count; i++) {
        ndem_jw_next(&w);
        ndem_jw_begin(&w, '{', 1);
        ndem_jw_kstring(&w, "pointer", errs->items[i].pointer ? errs->items[i].pointer : "");
        ndem_jw_kstring(&w, "message", errs->items[i].message ? errs->items[i].message : "");
        ndem_jw_end(&w);
    }
    ndem_jw_end(&w);
    return ndem_jw_finish(&w);
}

char *ndem_job_warnings_to_json(const ndem_job *job)
{
    ndem_jw w;
    ndem_jw_init(&w, 0);
    ndem_jw_begin(&w, '[', 1);
    for (int i = 0; i < job->warning_count; i++) {
        /* "<pointer>: <message>": the parser's pointers hold no ": " */
        char pointer[512];
        const char *text = job->warnings[i], *sep = strstr(text, ": ");
        size_t n = sep ? (size_t)(sep - text) : 0;
        if (n >= sizeof pointer) n = sizeof pointer - 1;
        memcpy(pointer, text, n);
        pointer[n] = 0;
        ndem_jw_next(&w);
        ndem_jw_begin(&w, '{', 1);
        ndem_jw_kstring(&w, "pointer", pointer);
        ndem_jw_kstring(&w, "message", sep ? sep + 2 : text);
        ndem_jw_end(&w);
    }
    ndem_jw_end(&w);
    return ndem_jw_finish(&w);
}
