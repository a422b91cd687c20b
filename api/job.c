/* job.c - job documents: parsing and validation of the document, its
 * materials, solver and output; the job's lifetime; file reading. The scene
 * contents are read in job_scene.c, the JSON text written in job_emit.c. */
#include "job.h"

#include "contact_bin.h"
#include "frame_bin.h"
#include "geometry_mesh.h"
#include "job_check.h"
#include "job_parts.h"
#include "series.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const top_keys[] = {"name", "scene", "solver", "output", NULL};
static const char *const scene_keys[] = {
    "gravity", "materials", "contact_materials", "geometry", "particles", "emitters", NULL};
static const char *const material_keys[] = {"name",          "density",   "young_modulus",
                                            "poisson_ratio", "viscosity", NULL};
static const char *const contact_keys[] = {"materials",          "friction",
                                           "rolling_resistance", "twisting_resistance",
                                           "restitution",        "adhesion",
                                           "adhesive_overlap",   "damping_time",
                                           "young_modulus",      "stiffness_ratio",
                                           "stiffness",          "exponent",
                                           "velocity_friction",  "hamaker",
                                           "vdw_saturation",     "bond_stiffness",
                                           "bond_damping",       "bond_max_force",
                                           "bond_max_torque",    "char_len",
                                           "dynamic_friction",   NULL};
static const char *const solver_keys[] = {"method",
                                          "time_step",
                                          "duration",
                                          "iterations",
                                          "impact_iterations",
                                          "warm_start",
                                          "warm_start_factor",
                                          "impact_velocity",
                                          "tolerance",
                                          "damping_steps",
                                          "friction_compliance",
                                          "threads",
                                          "contact_model",
                                          "broad_phase",
                                          NULL};
static const char *const output_keys[] = {"frame_interval", "contacts", NULL};

static const ndem_jc_bound poisson_bound = {0.0, 0.5, 0, 1, "must be a number in [0, 0.5)"};

/* ---- materials ---- */

int ndem_job_material_value(ndem_jc *c, const cJSON *v, const ndem_job *job, int materials_ok,
                            int *out)
{
    if (!cJSON_IsString(v) || !v->valuestring) {
        ndem_jc_error(c, "must be a material name (got %s)", ndem_jc_type_name(v));
        return NDEM_JC_BAD;
    }
    if (!materials_ok) return NDEM_JC_BAD;
    for (int i = 0; i < job->scene.material_count; i++) {
        if (job->materials[i].name[0] && strcmp(job->materials[i].name, v->valuestring) == 0) {
            *out = i;
            return NDEM_JC_OK;
        }
    }
    char q[128];
    ndem_jc_error(c, "unknown material '%s'", ndem_jc_quote(v->valuestring, q, sizeof q));
    return NDEM_JC_BAD;
}

int ndem_job_material_ref(ndem_jc *c, const cJSON *obj, const char *key, const ndem_job *job,
                          int materials_ok, int *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return NDEM_JC_ABSENT;
    size_t mark = ndem_jc_push_key(c, key);
    int r = ndem_job_material_value(c, v, job, materials_ok, out);
    ndem_jc_pop(c, mark);
    return r;
}

static void read_material(ndem_jc *c, const cJSON *item, ndem_job *job, int i)
{
    ndem_material_def *m = &job->materials[i];
    if (!ndem_jc_expect_object(c, item)) return;
    ndem_jc_members(c, item, material_keys, NULL, NULL);
    const char *name;
    if (ndem_jc_string(c, item, "name", &name, 1, NDEM_NAME_MAX - 1, NDEM_JC_REQUIRED) ==
        NDEM_JC_OK) {
        int dup = -1;
        for (int j = 0; j < i && dup < 0; j++)
            if (strcmp(job->materials[j].name, name) == 0) dup = j;
        if (dup >= 0) {
            char q[128];
            ndem_jc_error_at(c, "name", "duplicate material name '%s' (also /scene/materials/%d)",
                             ndem_jc_quote(name, q, sizeof q), dup);
        } else {
            memcpy(m->name, name, strlen(name) + 1);
        }
    }
    ndem_jc_number(c, item, "density", &m->density, &ndem_jc_positive, 0);
    ndem_jc_number(c, item, "young_modulus", &m->young_modulus, &ndem_jc_positive, 0);
    ndem_jc_number(c, item, "poisson_ratio", &m->poisson_ratio, &poisson_bound, 0);
    ndem_jc_number(c, item, "viscosity", &m->viscosity, &ndem_jc_nonneg, 0);
}

/* Returns 1 when the material table is usable for name look-ups. */
static int read_materials(ndem_jc *c, const cJSON *scene, ndem_job *job)
{
    const cJSON *arr;
    int n = ndem_jc_array(c, scene, "materials", 1, NDEM_JOB_MAX_MATERIALS, NDEM_JC_REQUIRED, &arr);
    if (n <= 0) return 0;
    job->materials = calloc((size_t)n, sizeof *job->materials);
    if (!job->materials) {
        c->oom = 1;
        return 0;
    }
    job->scene.materials = job->materials;
    job->scene.material_count = n;
    size_t mark = ndem_jc_push_key(c, "materials");
    const cJSON *item;
    int i = 0;
    cJSON_ArrayForEach(item, arr)
    {
        job->materials[i] = ndem_default_material_def();
        size_t m2 = ndem_jc_push_index(c, i);
        read_material(c, item, job, i);
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
    return 1;
}

/* ---- contact materials ---- */

/* The pair named by "materials": [a, b]; 1 when both names resolved. */
static int read_pair(ndem_jc *c, const cJSON *item, const ndem_job *job, int materials_ok,
                     ndem_contact_material_def *cm)
{
    const cJSON *pair = cJSON_GetObjectItemCaseSensitive(item, "materials");
    if (!pair) {
        ndem_jc_error_at(c, "materials", "is required");
        return 0;
    }
    size_t mark = ndem_jc_push_key(c, "materials");
    int ok = 0;
    if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2) {
        ndem_jc_error(c, "must be an array of two material names");
    } else {
        int ab[2] = {-1, -1}, i = 0;
        ok = 1;
        const cJSON *e;
        cJSON_ArrayForEach(e, pair)
        {
            size_t m2 = ndem_jc_push_index(c, i);
            if (ndem_job_material_value(c, e, job, materials_ok, &ab[i]) != NDEM_JC_OK) ok = 0;
            ndem_jc_pop(c, m2);
            i++;
        }
        cm->material_a = ab[0];
        cm->material_b = ab[1];
    }
    ndem_jc_pop(c, mark);
    return ok;
}

static void read_contact_materials(ndem_jc *c, const cJSON *scene, ndem_job *job, int materials_ok)
{
    const int max_pairs = NDEM_JOB_MAX_MATERIALS * (NDEM_JOB_MAX_MATERIALS + 1) / 2;
    const cJSON *arr;
    int n = ndem_jc_array(c, scene, "contact_materials", 0, max_pairs, 0, &arr);
    if (n <= 0) return;
    int nm = job->scene.material_count;
    job->contact_materials = calloc((size_t)n, sizeof *job->contact_materials);
    /* listed_at[a * nm + b]: the entry that listed the pair, to report a
     * pair listed twice without searching */
    int *listed_at = nm > 0 ? malloc((size_t)nm * (size_t)nm * sizeof *listed_at) : NULL;
    if (!job->contact_materials || (nm > 0 && !listed_at)) {
        free(listed_at);
        c->oom = 1;
        return;
    }
    for (int k = 0; k < nm * nm; k++) listed_at[k] = -1;
    job->scene.contact_materials = job->contact_materials;
    job->scene.contact_material_count = n;
    size_t mark = ndem_jc_push_key(c, "contact_materials");
    const cJSON *item;
    int i = 0;
    cJSON_ArrayForEach(item, arr)
    {
        ndem_contact_material_def *cm = &job->contact_materials[i];
        *cm = ndem_default_contact_material_def();
        size_t m2 = ndem_jc_push_index(c, i);
        if (ndem_jc_expect_object(c, item)) {
            ndem_jc_members(c, item, contact_keys, NULL, NULL);
            if (read_pair(c, item, job, materials_ok, cm) && listed_at) {
                int a = cm->material_a, b = cm->material_b;
                if (listed_at[a * nm + b] >= 0)
                    ndem_jc_error_at(c, "materials",
                                     "this pair of materials is already listed at "
                                     "/scene/contact_materials/%d",
                                     listed_at[a * nm + b]);
                else listed_at[a * nm + b] = listed_at[b * nm + a] = i;
            }
            ndem_jc_number(c, item, "friction", &cm->friction, &ndem_jc_nonneg, 0);
            ndem_jc_number(c, item, "rolling_resistance", &cm->rolling_resistance, &ndem_jc_nonneg,
                           0);
            /* absent or null: the pair's rolling_resistance, resolved here so
             * that the filled-in document shows the value in use */
            if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(item, "twisting_resistance")) ||
                ndem_jc_number(c, item, "twisting_resistance", &cm->twisting_resistance,
                               &ndem_jc_nonneg, 0) == NDEM_JC_ABSENT)
                cm->twisting_resistance = cm->rolling_resistance;
            ndem_jc_number(c, item, "restitution", &cm->restitution, &ndem_jc_unit, 0);
            ndem_jc_number(c, item, "adhesion", &cm->adhesion, &ndem_jc_nonneg, 0);
            ndem_jc_number(c, item, "adhesive_overlap", &cm->adhesive_overlap, &ndem_jc_nonneg, 0);
            /* null: automatic, stored as 0 as the engine expects */
            ndem_jc_number(c, item, "damping_time", &cm->damping_time, &ndem_jc_positive,
                           NDEM_JC_NULLABLE);
            ndem_jc_number(c, item, "young_modulus", &cm->young_modulus, &ndem_jc_positive,
                           NDEM_JC_NULLABLE);
            ndem_jc_number(c, item, "stiffness_ratio", &cm->stiffness_ratio, &ndem_jc_nonneg, 0);
            /* hunt_crossley: K (null: the Hertz stiffness) and n */
            ndem_jc_number(c, item, "stiffness", &cm->stiffness, &ndem_jc_positive,
                           NDEM_JC_NULLABLE);
            ndem_jc_number(c, item, "exponent", &cm->exponent, &ndem_jc_positive, 0);
            ndem_jc_bool(c, item, "velocity_friction", &cm->velocity_friction, 0);
            ndem_jc_number(c, item, "char_len", &cm->char_len, &ndem_jc_positive, NDEM_JC_NULLABLE);
            /* luding: absent or null = the static friction (stored as -1) */
            cm->dynamic_friction = -1.0;
            if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(item, "dynamic_friction")))
                ndem_jc_number(c, item, "dynamic_friction", &cm->dynamic_friction, &ndem_jc_nonneg,
                               0);
            ndem_jc_number(c, item, "hamaker", &cm->hamaker, &ndem_jc_nonneg, 0);
            ndem_jc_number(c, item, "vdw_saturation", &cm->vdw_saturation, &ndem_jc_positive, 0);
            /* bonds: null stiffness = the beam's E A / L; null limits = unbreakable */
            ndem_jc_number(c, item, "bond_stiffness", &cm->bond_stiffness, &ndem_jc_positive,
                           NDEM_JC_NULLABLE);
            ndem_jc_number(c, item, "bond_damping", &cm->bond_damping, &ndem_jc_nonneg, 0);
            ndem_jc_number(c, item, "bond_max_force", &cm->bond_max_force, &ndem_jc_positive,
                           NDEM_JC_NULLABLE);
            ndem_jc_number(c, item, "bond_max_torque", &cm->bond_max_torque, &ndem_jc_positive,
                           NDEM_JC_NULLABLE);
        }
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
    free(listed_at);
}

/* ---- scene, solver, output ---- */

static void read_scene(ndem_jc *c, const cJSON *scene, ndem_job *job)
{
    ndem_jc_members(c, scene, scene_keys, NULL, NULL);
    ndem_jc_vec3(c, scene, "gravity", job->scene.gravity, 0);
    int materials_ok = read_materials(c, scene, job);
    read_contact_materials(c, scene, job, materials_ok);
    ndem_job_read_geometry(c, scene, job, materials_ok);
    ndem_job_read_particles(c, scene, job, materials_ok);
    ndem_job_read_emitters(c, scene, job, materials_ok);
}

/* time_step "auto" (smooth DEM): resolved once the scene is known. */
#define TIME_STEP_AUTO (-1.0)

static void read_solver(ndem_jc *c, const cJSON *solver, ndem_solver_def *s)
{
    ndem_jc_members(c, solver, solver_keys, NULL, NULL);
    static const char *const methods[] = {"ndem", "dem", NULL};
    static const char *const models[] = {"hertz",           "linear", "hunt_crossley",
                                         "linear_elastic6", "luding", NULL};
    int method = NDEM_METHOD_NDEM, model = NDEM_MODEL_HERTZ;
    if (ndem_jc_enum(c, solver, "method", methods, "\"ndem\"", &method, 0) == NDEM_JC_OK)
        s->method = (ndem_method)method;
    if (ndem_jc_enum(c, solver, "contact_model", models, "\"hertz\"", &model, 0) == NDEM_JC_OK)
        s->contact_model = (ndem_contact_model)model;
    if (cJSON_HasObjectItem(solver, "contact_model") && s->method != NDEM_METHOD_DEM)
        ndem_jc_error_at(c, "contact_model", "applies to \"method\": \"dem\" only");
    static const char *const broad_phases[] = {"grid", "lll", NULL};
    int broad = NDEM_BROAD_PHASE_GRID;
    if (ndem_jc_enum(c, solver, "broad_phase", broad_phases, "one of \"grid\", \"lll\"", &broad,
                     0) == NDEM_JC_OK)
        s->broad_phase = (ndem_broad_phase)broad;
    const cJSON *hv = cJSON_GetObjectItemCaseSensitive(solver, "time_step");
    int h_ok;
    if (cJSON_IsString(hv) && hv->valuestring && strcmp(hv->valuestring, "auto") == 0) {
        if (s->method == NDEM_METHOD_DEM) s->time_step = TIME_STEP_AUTO;
        else ndem_jc_error_at(c, "time_step", "\"auto\" applies to \"method\": \"dem\" only");
        h_ok = NDEM_JC_BAD; /* the step count is checked once the step is known */
    } else {
        h_ok = ndem_jc_number(c, solver, "time_step", &s->time_step, &ndem_jc_positive, 0);
    }
    int t_ok = ndem_jc_number(c, solver, "duration", &s->duration, &ndem_jc_positive, 0);
    if (h_ok != NDEM_JC_BAD && t_ok != NDEM_JC_BAD &&
        !(s->duration / s->time_step <= NDEM_JOB_MAX_STEPS))
        ndem_jc_error_at(c, "duration",
                         "needs %.3g steps of time_step %g; at most %.0e steps are allowed",
                         s->duration / s->time_step, s->time_step, NDEM_JOB_MAX_STEPS);
    long long v;
    if (ndem_jc_integer(c, solver, "iterations", &v, 1, 100000, 0) == NDEM_JC_OK)
        s->iterations = (int)v;
    if (ndem_jc_integer(c, solver, "impact_iterations", &v, 0, 100000, 0) == NDEM_JC_OK)
        s->impact_iterations = (int)v;
    ndem_jc_bool(c, solver, "warm_start", &s->warm_start, 0);
    ndem_jc_number(c, solver, "warm_start_factor", &s->warm_start_factor, &ndem_jc_unit, 0);
    ndem_jc_number(c, solver, "impact_velocity", &s->impact_velocity, &ndem_jc_positive,
                   NDEM_JC_NULLABLE);
    ndem_jc_number(c, solver, "tolerance", &s->tolerance, &ndem_jc_nonneg, 0);
    ndem_jc_number(c, solver, "damping_steps", &s->damping_steps, &ndem_jc_positive, 0);
    ndem_jc_number(c, solver, "friction_compliance", &s->friction_compliance, &ndem_jc_positive, 0);
    if (ndem_jc_integer(c, solver, "threads", &v, 0, 1024, 0) == NDEM_JC_OK) s->threads = (int)v;
}

/* The member `key` if it is an object; NULL (reported unless optional and absent) otherwise. */
static const cJSON *object_member(ndem_jc *c, const cJSON *obj, const char *key, int required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required) ndem_jc_error_at(c, key, "is required");
        return NULL;
    }
    if (!cJSON_IsObject(v)) {
        ndem_jc_error_at(c, key, "must be an object (got %s)", ndem_jc_type_name(v));
        return NULL;
    }
    return v;
}

static void read_document(ndem_jc *c, const cJSON *root, ndem_job *job)
{
    if (!cJSON_IsObject(root)) {
        ndem_jc_error(c, "a job must be a JSON object (got %s)", ndem_jc_type_name(root));
        return;
    }
    ndem_jc_members(c, root, top_keys, NULL, NULL);
    const char *name;
    if (ndem_jc_string(c, root, "name", &name, 1, sizeof job->name - 1, 0) == NDEM_JC_OK)
        memcpy(job->name, name, strlen(name) + 1);

    /* The solver first: the particle bound needs the duration. */
    const cJSON *solver = object_member(c, root, "solver", 0);
    if (solver) {
        size_t mark = ndem_jc_push_key(c, "solver");
        read_solver(c, solver, &job->scene.solver);
        ndem_jc_pop(c, mark);
    }
    const cJSON *scene = object_member(c, root, "scene", 1);
    if (scene) {
        size_t mark = ndem_jc_push_key(c, "scene");
        read_scene(c, scene, job);
        ndem_jc_pop(c, mark);
    }
    const cJSON *output = object_member(c, root, "output", 0);
    if (output) {
        size_t mark = ndem_jc_push_key(c, "output");
        ndem_jc_members(c, output, output_keys, NULL, NULL);
        ndem_jc_number(c, output, "frame_interval", &job->output.frame_interval, &ndem_jc_positive,
                       0);
        ndem_jc_bool(c, output, "contacts", &job->output.contacts, 0);
        ndem_jc_pop(c, mark);
    }
    ndem_solver_def *s = &job->scene.solver;
    ndem_job_check_methods(c, root, s);
    if (scene) ndem_job_check_shapes(c, job);
    if (scene) ndem_job_check_body_contacts(c, &job->scene);
    if (s->method == NDEM_METHOD_DEM && scene && !ndem_jc_failed(c)) {
        /* smooth DEM is explicit: refuse a step above its stability limit
         * (each scan maps the restitutions again: one of them per parse) */
        if (s->time_step == TIME_STEP_AUTO) {
            double h = ndem_dem_auto_step(&job->scene);
            s->time_step = isfinite(h) ? h : 1e-4;
            if (!(s->duration / s->time_step <= NDEM_JOB_MAX_STEPS))
                ndem_jc_error_ptr(c, "/solver/duration",
                                  "needs %.3g steps of the automatic time_step %g; at most %.0e "
                                  "steps are allowed",
                                  s->duration / s->time_step, s->time_step, NDEM_JOB_MAX_STEPS);
        } else if (s->time_step > ndem_dem_stable_step(&job->scene)) {
            double bound = ndem_dem_stable_step(&job->scene);
            ndem_jc_error_ptr(c, "/solver/time_step",
                              "%g s exceeds the stable step %.4g s of smooth DEM (2 (sqrt(1 + "
                              "zeta^2) - zeta) / omega for the stiffest contact of the smallest "
                              "particle); use at most that, or \"auto\" for at most 0.05 of it",
                              s->time_step, bound);
        }
    }
    /* Frames come at most once a step: an interval below the time step
     * would ask for frames no step can give (1e-300 used to spin the
     * schedule forever). Only an interval the document gives is checked;
     * the default is harmless with any step. */
    double fi = job->output.frame_interval;
    if (output && cJSON_GetObjectItemCaseSensitive(output, "frame_interval") && fi > 0 &&
        s->time_step > 0 && isfinite(s->time_step) && fi < s->time_step * (1.0 - 1e-9))
        ndem_jc_error_ptr(c, "/output/frame_interval",
                          "%g s is shorter than the time step %g s; frames come at most once a "
                          "step, so use at least %g",
                          fi, s->time_step, s->time_step);
    if (scene) {
        long n = ndem_job_particle_estimate(job);
        if (n > NDEM_JOB_MAX_PARTICLES)
            ndem_jc_error_ptr(c, "/scene/particles",
                              "the scene can hold up to %ld particles (generators plus "
                              "emitters); at most %ld are allowed",
                              n, NDEM_JOB_MAX_PARTICLES);
    }
}

static ndem_job *job_new(void)
{
    ndem_job *job = calloc(1, sizeof *job);
    if (!job) return NULL;
    memcpy(job->name, "job", 4);
    job->scene = ndem_default_scene_def();
    job->output.frame_interval = 0.05;
    return job;
}

ndem_job_status ndem_job_parse(const char *text, size_t len, ndem_job **out, ndem_job_errors *errs)
{
    return ndem_job_parse_with(text, len, NULL, out, errs);
}

ndem_job_status ndem_job_parse_with(const char *text, size_t len, const ndem_job_parse_opts *opts,
                                    ndem_job **out, ndem_job_errors *errs)
{
    *out = NULL;
    ndem_job_errors scratch = {0};
    if (!errs) /* the caller only wants the status */
        errs = &scratch;
    ndem_jc c;
    ndem_jc_init(&c, errs);
    c.opts = opts;
    if (text && ndem_job_scan(text, len, 0, NULL, c.errs) != NDEM_JOB_OK) {
        ndem_jc_free(&c);
        ndem_job_errors_clear(&scratch);
        return NDEM_JOB_INVALID;
    }
    const char *end = text;
    /* Not NUL-terminated text is fine: the length bounds the parse, and the
     * end pointer finds anything after the document. */
    cJSON *root = (text && len > 0) ? cJSON_ParseWithLengthOpts(text, len, &end, 0) : NULL;
    if (!root) {
        size_t at = (text && end >= text) ? (size_t)(end - text) : 0;
        ndem_jc_malformed(&c, text ? text : "", text ? len : 0, at,
                          len == 0 ? "empty document" : "syntax error");
        ndem_jc_free(&c);
        ndem_job_errors_clear(&scratch);
        return NDEM_JOB_MALFORMED;
    }
    size_t at = (size_t)(end - text);
    while (at < len &&
           (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
        at++;
    if (at < len) {
        cJSON_Delete(root);
        ndem_jc_malformed(&c, text, len, at, "unexpected data after the document");
        ndem_jc_free(&c);
        ndem_job_errors_clear(&scratch);
        return NDEM_JOB_MALFORMED;
    }

    ndem_job *job = job_new();
    if (!job) c.oom = 1;
    else read_document(&c, root, job);
    /* document order; the "too many errors" line stays last */
    ndem_job_errors_order(errs, c.first_error, errs->count - (c.dropped ? 1 : 0), root);
    cJSON_Delete(root);
    if (c.oom && c.errs->count == c.first_error) ndem_jc_error_ptr(&c, "", "out of memory");
    int failed = ndem_jc_failed(&c);
    ndem_jc_free(&c);
    ndem_job_errors_clear(&scratch);
    if (failed) {
        ndem_job_destroy(job);
        return NDEM_JOB_INVALID;
    }
    *out = job;
    return NDEM_JOB_OK;
}

void ndem_job_errors_add(ndem_job_errors *errs, const char *pointer, const char *fmt, ...)
{
    if (errs->count == errs->capacity) {
        int cap = errs->capacity ? 2 * errs->capacity : 4;
        ndem_job_error *grown = realloc(errs->items, (size_t)cap * sizeof *grown);
        if (!grown) return;
        errs->items = grown;
        errs->capacity = cap;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    errs->items[errs->count].pointer = strdup(pointer);
    errs->items[errs->count].message = strdup(msg);
    errs->count++;
}

void ndem_job_destroy(ndem_job *job)
{
    if (!job) return;
    free(job->materials);
    free(job->contact_materials);
    free(job->geometry);
    free(job->generators);
    free(job->emitters);
    for (int i = 0; i < job->list_array_count; i++) free(job->list_arrays[i]);
    free(job->list_arrays);
    for (int i = 0; i < job->mesh_count; i++) ndem_mesh_shape_destroy(job->meshes[i]);
    free(job->meshes);
    for (int i = 0; i < job->warning_count; i++) free(job->warnings[i]);
    free(job->warnings);
    free(job);
}

void ndem_job_errors_clear(ndem_job_errors *errs)
{
    if (!errs) return;
    for (int i = 0; i < errs->count; i++) {
        free(errs->items[i].pointer);
        free(errs->items[i].message);
    }
    free(errs->items);
    errs->items = NULL;
    errs->count = errs->capacity = 0;
}

/* ---- particle bound ---- */

/* Lattice sites in [min, max] at the given pitch (a double: may be huge). */
static double lattice_sites(const ndem_generator_def *g)
{
    double pitch = g->spacing > 0.0 ? g->spacing : 2.0 * g->radius.max;
    if (!(pitch > 0.0)) return INFINITY;
    double n = 1.0;
    for (int i = 0; i < 3; i++) {
        double extent = g->max[i] - g->min[i];
        n *= extent > 0.0 ? floor(extent / pitch * (1.0 + 1e-9)) + 1.0 : 1.0;
    }
    return n;
}

long ndem_job_particle_estimate(const ndem_job *job)
{
    const ndem_scene_def *s = &job->scene;
    double total = 0.0;
    for (int i = 0; i < s->generator_count; i++) {
        const ndem_generator_def *g = &s->generators[i];
        if (g->type == NDEM_GENERATOR_LIST) {
            total += (double)g->list_count;
        } else if (g->type == NDEM_GENERATOR_RANDOM) {
            total += (double)g->count;
        } else {
            double sites = lattice_sites(g);
            total += g->count > 0 ? fmin((double)g->count, sites) : sites;
        }
    }
    for (int i = 0; i < s->emitter_count; i++) {
        const ndem_emitter_def *e = &s->emitters[i];
        /* At most one particle per 1/rate over the emitter's window. */
        double window = fmin(e->stop, s->solver.duration) - e->start;
        double can = fmax(0.0, floor(e->rate * window) + 1.0);
        total += fmin((double)e->max_count, can);
    }
    if (!(total < (double)LONG_MAX)) return LONG_MAX;
    return (long)total;
}

/* ---- files ---- */

char *ndem_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (cap - n < 2) {
            char *b = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!b) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                int e = errno ? errno : EIO;
                free(buf);
                fclose(f);
                errno = e;
                return NULL;
            }
            break;
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

double ndem_job_output_estimate(const ndem_job *job)
{
    double h = job->scene.solver.time_step, d = job->scene.solver.duration;
    double steps = ceil(d / h - 1e-9);
    double frames = fmin(floor(d / job->output.frame_interval + 1e-9), steps) + 1;
    /* spheres: no orientations, no shapes (docs/frames.md) */
    double per_particle = (double)ndem_frame_bin_particle_bytes(NDEM_FRAME_SPHERES);
    double particles = (double)ndem_job_particle_estimate(job);
    int named = 0; /* each named geometry adds its series columns */
    for (int g = 0; g < job->scene.geometry_count; g++)
        named += job->scene.geometry[g].name[0] != 0;
    double per_contact = NDEM_CONTACT_BYTES_ALL; /* a macro: the fuzz build links no encoder */
    double contacts = job->output.contacts ? NDEM_CONTACT_HEADER + NDEM_CONTACTS_PER_PARTICLE *
                                                                       per_contact * particles
                                           : 0;
    double poses = 8.0 + NDEM_FRAME_POSE_BYTES * (double)job->scene.geometry_count;
    int walls = 0;
    for (int g = 0; g < job->scene.geometry_count; g++)
        walls += job->scene.geometry[g].walls.enabled;
    if (walls) poses += 8.0 + NDEM_FRAME_EXTENT_BYTES * walls;
    return frames * (NDEM_FRAME_HEADER + poses + per_particle * particles + contacts) +
           steps * (NDEM_SERIES_ROW_BYTES + named * NDEM_SERIES_GEO_BYTES) +
           (double)strlen(ndem_series_header);
}
