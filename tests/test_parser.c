/* test_parser.c - job documents: the standard scenes, defaults, every kind of
 * broken document with the JSON Pointer of its error, hostile inputs, the
 * JSON round trip, error lists and frames as JSON. */
#include "frame_json.h"
#include "job.h"
#include "testutil.h"
#include "jsonw.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <time.h>

/* ---- helpers ---- */

/* Test documents are written with ' for " to stay readable; copies s. */
static char *dq(const char *s)
{
    char *t = strdup(s);
    ck_assert_ptr_nonnull(t);
    for (char *p = t; *p; p++)
        if (*p == '\'') *p = '"';
    return t;
}

static ndem_job_status parse_sq(const char *doc, ndem_job **job, ndem_job_errors *e)
{
    char *t = dq(doc);
    ndem_job_status st = ndem_job_parse(t, strlen(t), job, e);
    free(t);
    return st;
}

static ndem_job *parse_ok(const char *doc)
{
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(doc, &job, &e);
    for (int i = 0; i < e.count; i++)
        fprintf(stderr, "unexpected error %s: %s\n", e.items[i].pointer, e.items[i].message);
    ck_assert_int_eq(st, NDEM_JOB_OK);
    ck_assert_int_eq(e.count, 0);
    ck_assert_ptr_nonnull(job);
    return job;
}

static int has_error(const ndem_job_errors *e, const char *pointer, const char *msg)
{
    for (int i = 0; i < e->count; i++)
        if (strcmp(e->items[i].pointer, pointer) == 0 && strstr(e->items[i].message, msg)) return 1;
    return 0;
}

static void dump_errors(const ndem_job_errors *e)
{
    for (int i = 0; i < e->count; i++)
        fprintf(stderr, "  got %s: %s\n", e->items[i].pointer, e->items[i].message);
}

/* rel: a path from the repository root, where the suites run. */
static ndem_job *parse_file(const char *rel)
{
    size_t len = 0;
    char *text = ndem_read_file(rel, &len);
    if (!text) fprintf(stderr, "%s: %s\n", rel, strerror(errno));
    ck_assert_ptr_nonnull(text);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = ndem_job_parse(text, len, &job, &e);
    dump_errors(&e);
    ck_assert_int_eq(st, NDEM_JOB_OK);
    ndem_job_errors_clear(&e);
    free(text);
    return job;
}

static const char *const bench_files[] = {"bench/bed-10k.json", "bench/bed-100k.json",
                                          "bench/column-25.json", "bench/drum.json",
                                          "bench/pile.json"};
#define N_BENCH ((int)(sizeof bench_files / sizeof bench_files[0]))

/* A document using every part of the job schema (docs/job.md). */
static const char contract_doc[] =
    "{'name': 'pile', 'scene': {'gravity': [0, 0, -9.81],"
    " 'materials': [{'name': 'ore', 'density': 3700, 'young_modulus': 6e6, 'poisson_ratio': 0.3},"
    "  {'name': 'steel', 'density': 7800, 'young_modulus': 2e11}],"
    " 'contact_materials': [{'materials': ['ore', 'ore'], 'friction': 0.91,"
    "   'rolling_resistance': 0.32, 'twisting_resistance': 0.0, 'restitution': 0.18,"
    "   'adhesion': 0, 'adhesive_overlap': 0},"
    "  {'materials': ['ore', 'steel'], 'friction': 0.5, 'rolling_resistance': 0.1,"
    "   'restitution': 0.3}],"
    " 'geometry': [{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 0, 1], 'material': 'steel'},"
    "  {'type': 'box', 'min': [-1, -1, 0], 'max': [1, 1, 2], 'inside': true, 'material': 'steel'},"
    "  {'type': 'cylinder', 'center': [0, 0, 0.3], 'axis': [0, 1, 0], 'radius': 0.26,"
    "   'length': 0.09, 'inside': true, 'angular_velocity': 0.25, 'material': 'steel'}],"
    " 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [0.5, 0.5, 0.5],"
    "   'spacing': 0.0143, 'count': 10000, 'radius': 0.0065, 'material': 'ore'},"
    "  {'type': 'random', 'min': [0, 0, 0], 'max': [0.5, 0.5, 0.5], 'count': 1000,"
    "   'radius': {'values': [0.0065, 0.005], 'weights': [0.5, 0.5]}, 'material': 'ore',"
    "   'seed': 1},"
    "  {'type': 'list', 'material': 'ore', 'spheres': [[0, 0, 0.1, 0.0065]],"
    "   'velocities': [[0, 0, -1]]}],"
    " 'emitters': [{'type': 'box', 'min': [-0.02, -0.02, 0.26], 'max': [0.02, 0.02, 0.27],"
    "   'rate': 200, 'start': 0, 'stop': 20, 'max_count': 3363, 'radius': 0.0065,"
    "   'material': 'ore', 'velocity': [0, 0, 0], 'seed': 1}]},"
    " 'solver': {'method': 'ndem', 'time_step': 0.005, 'duration': 10.0, 'iterations': 25,"
    "  'impact_iterations': 10, 'warm_start': true, 'warm_start_factor': 0.85,"
    "  'impact_velocity': null, 'threads': 0},"
    " 'output': {'frame_interval': 0.05}}";

/* Every feature the round trip must carry. */
static const char feature_doc[] =
    "{'name': 'all \\u00e9 \\\"q\\\"', 'scene': {'gravity': [0.1, -0.2, -9.80665],"
    " 'materials': [{'name': 'a', 'viscosity': 0.25}, {'name': 'b/~c', 'poisson_ratio': 0}],"
    " 'contact_materials': [{'materials': ['b/~c', 'a'], 'damping_time': 0.001,"
    "   'young_modulus': 3e7, 'adhesion': 0.5, 'adhesive_overlap': 1e-4}],"
    " 'geometry': [{'type': 'plane', 'point': [0, 0, 0], 'normal': [1, 1, 1],"
    "   'angular_velocity': 0.1},"
    "  {'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'velocity': [0.1, 0, 0],"
    "   'angular_velocity': [0, 0, 0.3], 'material': 'b/~c'},"
    "  {'type': 'cylinder', 'center': [0, 0, 0], 'axis': [0, 3, 4], 'radius': 1, 'length': 2}],"
    " 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [0.1, 0.1, 0.1],"
    "   'radius': {'min': 0.001, 'max': 0.002}, 'velocity': [0, 0, -1]},"
    "  {'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 7, 'seed': 9007199254740992,"
    "   'radius': {'values': [0.01, 0.02, 0.03], 'weights': [1, 1, 1]}},"
    "  {'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 3,"
    "   'radius': {'values': [0.01, 0.02]}},"
    "  {'type': 'list', 'spheres': [[0.1, 0.2, 0.30000000000000004, 0.01], [1, 2, 3, 4]]}],"
    " 'emitters': [{'min': [0, 0, 1], 'max': [0, 0, 1], 'rate': 3.5, 'material': 'b/~c'}]},"
    " 'solver': {'time_step': 1e-4, 'duration': 0.3, 'impact_velocity': 0.7, 'tolerance': 1e-9,"
    "  'damping_steps': 3.5, 'friction_compliance': 1e-8, 'threads': 4, 'warm_start': false},"
    " 'output': {'frame_interval': 0.01}}";

static void round_trip_check(const ndem_job *job);

#define MAT "'materials': [{'name': 'a'}, {'name': 'b'}]"
#define DOC(scene) "{'scene': {" MAT scene "}}"

/* ---- standard scenes ---- */

START_TEST(bench_scenes_parse)
{
    for (int i = 0; i < N_BENCH; i++) {
        ndem_job *job = parse_file(bench_files[i]);
        ck_assert_int_eq(job->scene.material_count, 2);
        ck_assert_str_eq(job->scene.materials[0].name, "ore");
        ck_assert_double_eq(job->scene.materials[0].density, 3700);
        ck_assert_double_eq(job->scene.materials[1].young_modulus, 2e11);
        ck_assert_int_eq(job->scene.contact_material_count, 2);
        ck_assert_int_eq(job->scene.contact_materials[1].material_a, 0);
        ck_assert_int_eq(job->scene.contact_materials[1].material_b, 1);
        ck_assert_double_eq(job->scene.contact_materials[0].friction, 0.91);
        ck_assert_double_eq(job->scene.contact_materials[0].damping_time, 0.0);
        ck_assert_int_eq(job->scene.geometry_count, 1);
        ck_assert_int_eq(job->scene.geometry[0].material, 1);
        ck_assert_double_eq(job->scene.gravity[2], -9.81);
        ndem_job_destroy(job);
    }
}
END_TEST

START_TEST(bench_column)
{
    ndem_job *job = parse_file("bench/column-25.json");
    ck_assert_str_eq(job->name, "column-25");
    ck_assert_int_eq(job->scene.generator_count, 1);
    const ndem_generator_def *g = &job->scene.generators[0];
    ck_assert_int_eq(g->type, NDEM_GENERATOR_LIST);
    ck_assert_int_eq(g->list_count, 25);
    ck_assert_ptr_null(g->velocities);
    ck_assert_double_eq(g->spheres[4 * 24 + 2], 0.3185);
    ck_assert_double_eq(g->spheres[4 * 24 + 3], 0.0065);
    ck_assert_int_eq(job->list_array_count, 1);
    ck_assert_int_eq(job->scene.geometry[0].type, NDEM_GEOMETRY_PLANE);
    ck_assert_double_eq(job->scene.geometry[0].normal[2], 1.0);
    ck_assert_double_eq(job->scene.solver.time_step, 0.005);
    ck_assert_double_eq(job->scene.solver.duration, 5.0);
    ck_assert_int_eq(job->scene.solver.iterations, 50);
    ck_assert_int_eq(job->scene.solver.impact_iterations, 10);
    ck_assert_double_eq(job->output.frame_interval, 0.5);
    ck_assert_int_eq(ndem_job_particle_estimate(job), 25);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(bench_drum)
{
    ndem_job *job = parse_file("bench/drum.json");
    const ndem_geometry_def *cyl = &job->scene.geometry[0];
    ck_assert_int_eq(cyl->type, NDEM_GEOMETRY_CYLINDER);
    ck_assert_int_eq(cyl->inside, 1);
    ck_assert_double_eq(cyl->radius, 0.26);
    ck_assert_double_eq(cyl->length, 0.091);
    ck_assert_double_eq(cyl->angular_velocity[0], 0.0);
    ck_assert_double_eq(cyl->angular_velocity[1], 0.25);
    ck_assert_double_eq(cyl->angular_velocity[2], 0.0);
    const ndem_generator_def *g = &job->scene.generators[0];
    ck_assert_int_eq(g->type, NDEM_GENERATOR_RANDOM);
    ck_assert_int_eq(g->count, 2400);
    ck_assert_int_eq(g->radius.kind, NDEM_RADIUS_VALUES);
    ck_assert_int_eq(g->radius.count, 2);
    ck_assert_double_eq(g->radius.min, 0.005);
    ck_assert_double_eq(g->radius.max, 0.0065);
    ck_assert_double_eq(g->radius.weights[0], 0.5);
    ck_assert_int_eq(job->scene.emitter_count, 1);
    const ndem_emitter_def *e = &job->scene.emitters[0];
    ck_assert_double_eq(e->rate, 500.0);
    ck_assert_double_eq(e->start, 0.5);
    ck_assert_double_eq(e->stop, 15.0);
    ck_assert_int_eq(e->max_count, 2464);
    ck_assert_uint_eq(e->seed, 2);
    ck_assert_int_eq(job->scene.solver.iterations, 100);
    ck_assert_int_eq(ndem_job_particle_estimate(job), 2400 + 2464);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(bench_beds_and_pile)
{
    ndem_job *job = parse_file("bench/bed-100k.json");
    ck_assert_int_eq(job->scene.generators[0].count, 100000);
    ck_assert_double_eq(job->scene.solver.time_step, 0.0025);
    ck_assert_int_eq(job->scene.geometry[0].type, NDEM_GEOMETRY_BOX);
    ck_assert_double_eq(job->scene.geometry[0].max[0], 1.0153);
    ck_assert_int_eq(ndem_job_particle_estimate(job), 100000);
    ndem_job_destroy(job);
    job = parse_file("bench/bed-10k.json");
    ck_assert_int_eq(job->scene.generators[0].count, 10000);
    ck_assert_uint_eq(job->scene.generators[0].seed, 1);
    ndem_job_destroy(job);
    job = parse_file("bench/pile.json");
    ck_assert_int_eq(job->scene.generator_count, 0);
    ck_assert_int_eq(job->scene.emitter_count, 1);
    ck_assert_int_eq(job->scene.emitters[0].radius.kind, NDEM_RADIUS_FIXED);
    ck_assert_double_eq(job->scene.emitters[0].radius.values[0], 0.0065);
    ck_assert_double_eq(job->scene.solver.duration, 52.0375);
    /* 100/s for 42.0375 s allows 4204 insertions; max_count 3363 is smaller */
    ck_assert_int_eq(ndem_job_particle_estimate(job), 3363);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(contract_example)
{
    ndem_job *job = parse_ok(contract_doc);
    ck_assert_int_eq(job->scene.generator_count, 3);
    ck_assert_int_eq(job->scene.generators[0].count, 10000);
    ck_assert_double_eq(job->scene.generators[0].spacing, 0.0143);
    ck_assert_double_eq(job->scene.generators[2].velocities[2], -1.0);
    ck_assert_int_eq(job->scene.geometry[2].type, NDEM_GEOMETRY_CYLINDER);
    ck_assert_double_eq(job->scene.geometry[2].angular_velocity[1], 0.25);
    ck_assert_int_eq(job->list_array_count, 2);
    ck_assert_int_eq(ndem_job_particle_estimate(job), 10000 + 1000 + 1 + 2001);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(docs_example)
{
    /* The complete example of docs/job.md stays valid (tests run from the
     * project root). */
    size_t len = 0;
    char *md = ndem_read_file("docs/job.md", &len);
    ck_assert_ptr_nonnull(md);
    char *start = strstr(md, "## A complete example");
    ck_assert_ptr_nonnull(start);
    start = strstr(start, "```json\n");
    ck_assert_ptr_nonnull(start);
    start += 8;
    char *end = strstr(start, "```");
    ck_assert_ptr_nonnull(end);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = ndem_job_parse(start, (size_t)(end - start), &job, &e);
    dump_errors(&e);
    ck_assert_int_eq(st, NDEM_JOB_OK);
    ck_assert_str_eq(job->name, "drum-demo");
    ck_assert_int_eq(job->scene.generator_count, 3);
    round_trip_check(job);
    ndem_job_destroy(job);
    free(md);
}
END_TEST

/* ---- defaults ---- */

START_TEST(minimal_defaults)
{
    ndem_job *job = parse_ok("{'scene': {'materials': [{'name': 'a'}]}}");
    ndem_material_def dm = ndem_default_material_def();
    ndem_solver_def ds = ndem_default_solver_def();
    ck_assert_str_eq(job->name, "job");
    ck_assert_double_eq(job->scene.gravity[0], 0.0);
    ck_assert_double_eq(job->scene.gravity[2], -9.81);
    ck_assert_int_eq(job->scene.material_count, 1);
    ck_assert_str_eq(job->scene.materials[0].name, "a");
    ck_assert_double_eq(job->scene.materials[0].density, dm.density);
    ck_assert_double_eq(job->scene.materials[0].density, 2500);
    ck_assert_double_eq(job->scene.materials[0].young_modulus, 1e8);
    ck_assert_double_eq(job->scene.materials[0].poisson_ratio, 0.3);
    ck_assert_double_eq(job->scene.materials[0].viscosity, 0.0);
    ck_assert_int_eq(job->scene.contact_material_count, 0);
    ck_assert_int_eq(job->scene.geometry_count, 0);
    ck_assert_int_eq(job->scene.generator_count, 0);
    ck_assert_int_eq(job->scene.emitter_count, 0);
    ck_assert_int_eq(job->scene.solver.method, NDEM_METHOD_NDEM);
    ck_assert_double_eq(job->scene.solver.time_step, 0.001);
    ck_assert_double_eq(job->scene.solver.duration, 1.0);
    ck_assert_int_eq(job->scene.solver.iterations, 25);
    ck_assert_int_eq(job->scene.solver.impact_iterations, 10);
    ck_assert_int_eq(job->scene.solver.warm_start, 1);
    ck_assert_double_eq(job->scene.solver.warm_start_factor, 0.85);
    ck_assert_double_eq(job->scene.solver.impact_velocity, 0.0);
    ck_assert_double_eq(job->scene.solver.tolerance, 0.0);
    ck_assert_double_eq(job->scene.solver.damping_steps, 2.0);
    ck_assert_double_eq(job->scene.solver.friction_compliance, 1e-6);
    ck_assert_int_eq(job->scene.solver.threads, 0);
    ck_assert_double_eq(job->scene.solver.time_step, ds.time_step);
    ck_assert_int_eq(job->scene.solver.iterations, ds.iterations);
    ck_assert_double_eq(job->output.frame_interval, 0.05);
    ck_assert_int_eq(ndem_job_particle_estimate(job), 0);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(item_defaults)
{
    ndem_job *job =
        parse_ok(DOC(", 'contact_materials': [{'materials': ['a', 'b']}],"
                     " 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1]}],"
                     " 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [0.1, 0.1, 0.1]},"
                     "  {'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 5}],"
                     " 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 100}]"));
    const ndem_contact_material_def *c = &job->scene.contact_materials[0];
    ck_assert_double_eq(c->friction, 0.5);
    ck_assert_double_eq(c->restitution, 0.5);
    ck_assert_double_eq(c->rolling_resistance, 0.0);
    ck_assert_double_eq(c->damping_time, 0.0);
    ck_assert_double_eq(c->young_modulus, 0.0);
    const ndem_geometry_def *g = &job->scene.geometry[0];
    ck_assert_int_eq(g->material, 0);
    ck_assert_int_eq(g->inside, 0);
    ck_assert_double_eq(g->velocity[0], 0.0);
    const ndem_generator_def *l = &job->scene.generators[0];
    ck_assert_int_eq(l->radius.kind, NDEM_RADIUS_FIXED);
    ck_assert_double_eq(l->radius.values[0], 0.005);
    ck_assert_double_eq(l->radius.max, 0.005);
    ck_assert_double_eq(l->spacing, 0.0);
    ck_assert_int_eq(l->count, 0);
    ck_assert_uint_eq(job->scene.generators[1].seed, 1);
    const ndem_emitter_def *e = &job->scene.emitters[0];
    ck_assert_double_eq(e->start, 0.0);
    ck_assert_double_eq(e->stop, 1e30);
    ck_assert_int_eq(e->max_count, 1000000000L);
    ck_assert_uint_eq(e->seed, 1);
    ck_assert_double_eq(e->radius.values[0], 0.005);
    /* lattice pitch 2 x 0.005 over 0.1: 11 sites a side; emitter 100/s for
     * the default 1 s: 101; random 5 */
    ck_assert_int_eq(ndem_job_particle_estimate(job), 1331 + 5 + 101);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(normalisation)
{
    ndem_job *job = parse_ok(feature_doc);
    const ndem_geometry_def *p = &job->scene.geometry[0];
    double s = 1.0 / sqrt(3.0);
    ck_assert_double_eq_tol(p->normal[0], s, 1e-15);
    ck_assert_double_eq_tol(p->angular_velocity[2], 0.1 * s, 1e-15);
    const ndem_geometry_def *cyl = &job->scene.geometry[2];
    ck_assert_double_eq_tol(cyl->axis[1], 0.6, 1e-15);
    ck_assert_double_eq_tol(cyl->axis[2], 0.8, 1e-15);
    ck_assert_double_eq(job->scene.geometry[1].angular_velocity[2], 0.3);
    const ndem_radius_dist *r = &job->scene.generators[1].radius;
    ck_assert_double_eq_tol(r->weights[0] + r->weights[1] + r->weights[2], 1.0, 1e-15);
    ck_assert_double_eq(r->min, 0.01);
    ck_assert_double_eq(r->max, 0.03);
    ck_assert_double_eq_tol(job->scene.generators[2].radius.weights[1], 0.5, 1e-15);
    const ndem_radius_dist *u = &job->scene.generators[0].radius;
    ck_assert_int_eq(u->kind, NDEM_RADIUS_UNIFORM);
    ck_assert_double_eq(u->min, 0.001);
    ck_assert_double_eq(u->max, 0.002);
    ck_assert_uint_eq(job->scene.generators[1].seed, 9007199254740992ULL);
    ck_assert_int_eq(job->scene.contact_materials[0].material_a, 1);
    ck_assert_int_eq(job->scene.emitters[0].material, 1);
    ck_assert_str_eq(job->name, "all \xc3\xa9 \"q\"");
    ck_assert_int_eq(job->scene.solver.warm_start, 0);
    ndem_job_destroy(job);
    job = parse_ok(DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1],"
                       " 'count': 1, 'radius': {'values': [1, 2], 'weights': [1, 3]}}]"));
    ck_assert_double_eq(job->scene.generators[0].radius.weights[0], 0.25);
    ck_assert_double_eq(job->scene.generators[0].radius.weights[1], 0.75);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(particle_estimate)
{
    ndem_job job;
    memset(&job, 0, sizeof job);
    job.scene = ndem_default_scene_def();
    ndem_generator_def g = ndem_default_generator_def();
    ndem_emitter_def e = ndem_default_emitter_def();
    g.max[0] = g.max[1] = g.max[2] = 1e300;
    g.min[0] = -1e300;
    g.spacing = 1e-300;
    job.scene.generators = &g;
    job.scene.generator_count = 1;
    ck_assert_int_eq(ndem_job_particle_estimate(&job), LONG_MAX);
    g.count = 12;
    ck_assert_int_eq(ndem_job_particle_estimate(&job), 12);
    job.scene.generator_count = 0;
    /* an emitter starting after the end emits nothing; a short window
     * bounds a large max_count */
    e.start = 2.0;
    job.scene.emitters = &e;
    job.scene.emitter_count = 1;
    ck_assert_int_eq(ndem_job_particle_estimate(&job), 0);
    e.start = 0.5;
    e.rate = 10.0;
    ck_assert_int_eq(ndem_job_particle_estimate(&job), 6);
    e.max_count = 3;
    ck_assert_int_eq(ndem_job_particle_estimate(&job), 3);
    /* errs may be NULL when only the status matters */
    ndem_job *out = NULL;
    ck_assert_int_eq(ndem_job_parse("{}", 2, &out, NULL), NDEM_JOB_INVALID);
    ck_assert_int_eq(ndem_job_parse("{", 1, &out, NULL), NDEM_JOB_MALFORMED);
    ck_assert_ptr_null(out);
}
END_TEST

/* ---- broken documents ---- */

typedef struct broken {
    const char *doc;
    const char *pointer;
    const char *message;
} broken;

static const broken broken_docs[] = {
    /* document level */
    {"[1, 2]", "", "must be a JSON object"},
    {"'job'", "", "must be a JSON object"},
    {"{}", "/scene", "is required"},
    {"{'scene': 5}", "/scene", "must be an object"},
    {"{'nam': 'x', 'scene': {" MAT "}}", "/nam", "unknown field 'nam'"},
    {"{'name': 5, 'scene': {" MAT "}}", "/name", "must be a string"},
    {"{'name': '', 'scene': {" MAT "}}", "/name", "1 to 127"},
    {"{'name': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'scene': {" MAT "}}",
     "/name", "1 to 127"},
    {"{'name': 'a', 'name': 'b', 'scene': {" MAT "}}", "/name", "duplicate field 'name'"},
    {"{'a/b': 1, 'scene': {" MAT "}}", "/a~1b", "unknown field 'a/b'"},
    {"{'scene': {" MAT ", 'particle': []}}", "/scene/particle", "unknown field 'particle'"},
    /* materials */
    {"{'scene': {'materials': []}}", "/scene/materials", "must not be empty"},
    {"{'scene': {}}", "/scene/materials", "is required"},
    {"{'scene': {'materials': {'name': 'a'}}}", "/scene/materials", "must be an array"},
    {"{'scene': {'materials': [5]}}", "/scene/materials/0", "must be an object"},
    {"{'scene': {'materials': [{'density': 1}]}}", "/scene/materials/0/name", "is required"},
    {"{'scene': {'materials': [{'name': 'a', 'densty': 1}]}}", "/scene/materials/0/densty",
     "unknown field 'densty'"},
    {"{'scene': {'materials': [{'name': 'a', 'x~y': 1}]}}", "/scene/materials/0/x~0y",
     "unknown field 'x~y'"},
    {"{'scene': {'materials': [{'name': 'a', 'density': -1}]}}", "/scene/materials/0/density",
     "must be a positive number"},
    {"{'scene': {'materials': [{'name': 'a', 'density': 0}]}}", "/scene/materials/0/density",
     "must be a positive number"},
    {"{'scene': {'materials': [{'name': 'a', 'density': '2500'}]}}", "/scene/materials/0/density",
     "must be a number (got a string)"},
    {"{'scene': {'materials': [{'name': 'a', 'density': 1e999}]}}", "/scene/materials/0/density",
     "must be a finite number"},
    {"{'scene': {'materials': [{'name': 'a', 'young_modulus': -1e999}]}}",
     "/scene/materials/0/young_modulus", "must be a finite number"},
    {"{'scene': {'materials': [{'name': 'a', 'density': 1, 'density': 2}]}}",
     "/scene/materials/0/density", "duplicate field"},
    {"{'scene': {'materials': [{'name': 'a', 'poisson_ratio': 0.5}]}}",
     "/scene/materials/0/poisson_ratio", "[0, 0.5)"},
    {"{'scene': {'materials': [{'name': 'a', 'poisson_ratio': -0.1}]}}",
     "/scene/materials/0/poisson_ratio", "[0, 0.5)"},
    {"{'scene': {'materials': [{'name': 'a', 'viscosity': -1}]}}", "/scene/materials/0/viscosity",
     ">= 0"},
    {"{'scene': {'materials': [{'name': 'a'}, {'name': 'a'}]}}", "/scene/materials/1/name",
     "duplicate material name 'a'"},
    {"{'scene': {'materials': [{'name': "
     "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'}]}}",
     "/scene/materials/0/name", "1 to 63"},
    {"{'scene': {'materials': [{'name': null}]}}", "/scene/materials/0/name",
     "must be a string (got null)"},
    /* gravity */
    {DOC(", 'gravity': [0, 0]"), "/scene/gravity", "array of 3 numbers"},
    {DOC(", 'gravity': [0, 0, 'x']"), "/scene/gravity/2", "must be a number"},
    {DOC(", 'gravity': {'z': 1}"), "/scene/gravity", "array of 3 numbers"},
    /* contact materials */
    {DOC(", 'contact_materials': [{'materials': ['a', 'c']}]"),
     "/scene/contact_materials/0/materials/1", "unknown material 'c'"},
    {DOC(", 'contact_materials': [{'materials': ['a', 'b']}, {'materials': ['b', 'a']}]"),
     "/scene/contact_materials/1/materials", "already listed at /scene/contact_materials/0"},
    {DOC(", 'contact_materials': [{'materials': ['a']}]"), "/scene/contact_materials/0/materials",
     "two material names"},
    {DOC(", 'contact_materials': [{'friction': 1}]"), "/scene/contact_materials/0/materials",
     "is required"},
    {DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'restitution': 1.5}]"),
     "/scene/contact_materials/0/restitution", "[0, 1]"},
    {DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'friction': -0.1}]"),
     "/scene/contact_materials/0/friction", ">= 0"},
    {DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'damping_time': 0}]"),
     "/scene/contact_materials/0/damping_time", "positive"},
    {DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'frction': 0}]"),
     "/scene/contact_materials/0/frction", "unknown field"},
    /* geometry */
    {DOC(", 'geometry': [{'type': 'sphere'}]"), "/scene/geometry/0/type", "must be one of"},
    {DOC(", 'geometry': [{'point': [0, 0, 0]}]"), "/scene/geometry/0/type", "is required"},
    {DOC(", 'geometry': [{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 0, 0]}]"),
     "/scene/geometry/0/normal", "non-zero"},
    {DOC(", 'geometry': [{'type': 'plane', 'point': [0, 0, 0]}]"), "/scene/geometry/0/normal",
     "is required"},
    {DOC(", 'geometry': [{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 0, 1],"
         " 'radius': 1}]"),
     "/scene/geometry/0/radius", "not a field of a plane"},
    {DOC(", 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 0, 1]}]"),
     "/scene/geometry/0/max", "greater than"},
    {DOC(", 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'angular_velocity': 1}]"),
     "/scene/geometry/0/angular_velocity", "for a box"},
    {DOC(", 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'inside': 1}]"),
     "/scene/geometry/0/inside", "true or false"},
    {DOC(", 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'velocity': [1, 2, 3, 4]}]"),
     "/scene/geometry/0/velocity", "array of 3 numbers"},
    {DOC(", 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'material': 'zz'}]"),
     "/scene/geometry/0/material", "unknown material 'zz'"},
    {DOC(", 'geometry': [{'type': 'cylinder', 'center': [0, 0, 0], 'axis': [0, 0, 1],"
         " 'radius': 0, 'length': 1}]"),
     "/scene/geometry/0/radius", "must be a positive number"},
    {DOC(", 'geometry': [{'type': 'cylinder', 'center': [0, 0, 0], 'axis': [0, 0, 1],"
         " 'radius': 1}]"),
     "/scene/geometry/0/length", "is required"},
    {DOC(", 'geometry': [{'type': 'cylinder', 'center': [0, 0, 0], 'axis': [0, 0, 1],"
         " 'radius': 1, 'length': 1, 'angular_velocity': -1e999}]"),
     "/scene/geometry/0/angular_velocity", "finite"},
    /* particles */
    {DOC(", 'particles': {'type': 'list'}"), "/scene/particles", "must be an array"},
    {DOC(", 'particles': ['x']"), "/scene/particles/0", "must be an object"},
    {DOC(", 'particles': [{'min': [0, 0, 0], 'max': [1, 1, 1]}]"), "/scene/particles/0/type",
     "is required"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, -1, 1]}]"),
     "/scene/particles/0/max", "at least \"min\""},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'material': 'q'}]"),
     "/scene/particles/0/material", "unknown material 'q'"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'spacing': -1}]"),
     "/scene/particles/0/spacing", ">= 0"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'count': -5}]"),
     "/scene/particles/0/count", "integer >= 0"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'radius': {'min': 2, 'max': 1}}]"),
     "/scene/particles/0/radius/max", "at least \"min\""},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'radius': -1}]"),
     "/scene/particles/0/radius", "must be a positive number"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'radius': 'big'}]"),
     "/scene/particles/0/radius", "{\"min\": a, \"max\": b}"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'radius': {'min': 1}}]"),
     "/scene/particles/0/radius/max", "is required"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [0.1, 0.2], 'weights': [1]}}]"),
     "/scene/particles/0/radius/weights", "one entry per value"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [0.1, 0.2], 'weights': [0, 0]}}]"),
     "/scene/particles/0/radius/weights", "must not all be zero"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [0.1, 0.2], 'weights': [1, -1]}}]"),
     "/scene/particles/0/radius/weights/1", ">= 0"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}}]"),
     "/scene/particles/0/radius/values", "at most 16"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': []}}]"),
     "/scene/particles/0/radius/values", "must not be empty"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [0.1, 0]}}]"),
     "/scene/particles/0/radius/values/1", "must be a positive number"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [0.1], 'min': 0.1}}]"),
     "/scene/particles/0/radius/min", "unknown field 'min'"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1]}]"),
     "/scene/particles/0/count", "is required"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 0}]"),
     "/scene/particles/0/count", "integer >= 1"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'count': 2.5}]"),
     "/scene/particles/0/count", "integer >= 1"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'seed': -1}]"),
     "/scene/particles/0/seed", "integer >= 0"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'spacing': 1}]"),
     "/scene/particles/0/spacing", "not a field of a random generator"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, 1], [0, 0, 1]]}]"),
     "/scene/particles/0/spheres/1", "array of 4 numbers"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, 0]]}]"),
     "/scene/particles/0/spheres/0/3", "must be a positive number"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': []}]"), "/scene/particles/0/spheres",
     "must not be empty"},
    {DOC(", 'particles': [{'type': 'list'}]"), "/scene/particles/0/spheres", "is required"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, 1], [0, 0, 3, 1]],"
         " 'velocities': [[0, 0, 0]]}]"),
     "/scene/particles/0/velocities", "one entry per sphere (2)"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, 1]],"
         " 'velocities': [[0, 0]]}]"),
     "/scene/particles/0/velocities/0", "array of 3 numbers"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, 1]], 'radius': 1}]"),
     "/scene/particles/0/radius", "not a field of a list generator"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'count': 60000000}]"),
     "/scene/particles", "at most 50000000"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [10, 10, 10],"
         " 'spacing': 0.001}]"),
     "/scene/particles", "at most 50000000"},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1e9}]"), "/scene/particles",
     "at most 50000000"},
    /* regions beyond +-1e6 m (issue 12 item 7: signed overflow in generate.c) */
    {DOC(", 'particles': [{'type': 'lattice', 'min': [-1e300, 0, 0], 'max': [1e300, 1, 1],"
         " 'count': 10}]"),
     "/scene/particles/0/min/0", "within +-1e+06 m"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 2e6],"
         " 'count': 10}]"),
     "/scene/particles/0/max/2", "within +-1e+06 m"},
    {DOC(", 'emitters': [{'min': [0, -1.5e6, 0], 'max': [1, 1, 1], 'rate': 1}]"),
     "/scene/emitters/0/min/1", "within +-1e+06 m"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': 2e6}]"),
     "/scene/particles/0/radius", "at most 1e6 m"},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1,"
         " 'radius': {'values': [0.1, 1e7]}}]"),
     "/scene/emitters/0/radius/values/1", "at most 1e6 m"},
    /* emitters */
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 0}]"),
     "/scene/emitters/0/rate", "must be a positive number"},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1]}]"), "/scene/emitters/0/rate",
     "is required"},
    {DOC(", 'emitters': [{'max': [1, 1, 1], 'rate': 1}]"), "/scene/emitters/0/min", "is required"},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1, 'start': 2,"
         " 'stop': 1}]"),
     "/scene/emitters/0/stop", "greater than \"start\""},
    {DOC(", 'emitters': [{'type': 'cone', 'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1}]"),
     "/scene/emitters/0/type", "must be \"box\""},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1, 'material': 'x'}]"),
     "/scene/emitters/0/material", "unknown material 'x'"},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1, 'max_count': 0}]"),
     "/scene/emitters/0/max_count", "integer >= 1"},
    /* solver */
    {"{'scene': {" MAT "}, 'solver': 'fast'}", "/solver", "must be an object"},
    {"{'scene': {" MAT "}, 'solver': {'method': 'dme'}}", "/solver/method", "must be"},
    {"{'scene': {" MAT "}, 'solver': {'method': 'pgs'}}", "/solver/method", "must be \"ndem\""},
    {"{'scene': {" MAT "}, 'solver': {'contact_model': 'hertz'}}", "/solver/contact_model",
     "applies to \"method\": \"dem\" only"},
    {"{'scene': {" MAT "}, 'solver': {'method': 'dem', 'contact_model': 'hooke'}}",
     "/solver/contact_model", "must be"},
    {"{'scene': {" MAT ", 'particles': [{'type': 'list', 'spheres': [[0,0,0,1], [3,0,0,1]],"
     " 'bonds': [[0, 0]]}]}}",
     "/scene/particles/0/bonds/0", "two different spheres"},
    {"{'scene': {" MAT ", 'particles': [{'type': 'list', 'spheres': [[0,0,0,1], [3,0,0,1]],"
     " 'bonds': [[0, 1], [1, 2.5]]}]}}",
     "/scene/particles/0/bonds/1", "two different spheres"},
    {"{'scene': {" MAT ", 'particles': [{'type': 'list', 'spheres': [[0,0,0,1]],"
     " 'bonds': [[0]]}]}}",
     "/scene/particles/0/bonds/0", "a pair [i, j]"},
    {"{'scene': {" MAT "}, 'solver': {'time_step': 'auto'}}", "/solver/time_step",
     "applies to \"method\": \"dem\" only"},
    {"{'scene': {" MAT "}, 'solver': {'itterations': 10}}", "/solver/itterations",
     "unknown field 'itterations'"},
    {"{'scene': {" MAT "}, 'solver': {'time_step': -0.001}}", "/solver/time_step",
     "must be a positive number"},
    {"{'scene': {" MAT "}, 'solver': {'time_step': 1e-3, 'duration': 1e7}}", "/solver/duration",
     "at most 1e+09 steps"},
    {"{'scene': {" MAT "}, 'solver': {'iterations': 2.5}}", "/solver/iterations",
     "integer in [1, 100000]"},
    {"{'scene': {" MAT "}, 'solver': {'iterations': 0}}", "/solver/iterations",
     "integer in [1, 100000]"},
    {"{'scene': {" MAT "}, 'solver': {'iterations': '25'}}", "/solver/iterations",
     "(got a string)"},
    {"{'scene': {" MAT "}, 'solver': {'threads': 2000}}", "/solver/threads",
     "integer in [0, 1024]"},
    {"{'scene': {" MAT "}, 'solver': {'warm_start': 1}}", "/solver/warm_start", "true or false"},
    {"{'scene': {" MAT "}, 'solver': {'warm_start_factor': 1.5}}", "/solver/warm_start_factor",
     "[0, 1]"},
    {"{'scene': {" MAT "}, 'solver': {'impact_velocity': -1}}", "/solver/impact_velocity",
     "must be a positive number"},
    {"{'scene': {" MAT "}, 'solver': {'damping_steps': 0}}", "/solver/damping_steps",
     "must be a positive number"},
    /* output */
    {"{'scene': {" MAT "}, 'output': {'frame_interval': 0}}", "/output/frame_interval",
     "must be a positive number"},
    {"{'scene': {" MAT "}, 'output': {'format': 'csv'}}", "/output/format",
     "unknown field 'format'"},
    {"{'scene': {" MAT "}, 'output': []}", "/output", "must be an object"},
};
#define N_BROKEN ((int)(sizeof broken_docs / sizeof broken_docs[0]))

START_TEST(broken_document)
{
    const broken *b = &broken_docs[_i];
    ndem_job *job = (ndem_job *)1;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(b->doc, &job, &e);
    if (st != NDEM_JOB_INVALID || !has_error(&e, b->pointer, b->message)) {
        fprintf(stderr, "case %d: %s\n  want %s: %s\n", _i, b->doc, b->pointer, b->message);
        dump_errors(&e);
    }
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    ck_assert_ptr_null(job);
    ck_assert(has_error(&e, b->pointer, b->message));
    ndem_job_errors_clear(&e);
    ck_assert_int_eq(e.count, 0);
}
END_TEST

START_TEST(all_errors_reported)
{
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(
        "{'name': 3, 'scene': {'materials': [{'name': 'a', 'densty': 1, 'poisson_ratio': 0.5}],"
        " 'geometry': [{'type': 'plane', 'point': [0, 0], 'normal': [0, 0, 1],"
        "   'material': 'steel'}],"
        " 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, -1]]}]},"
        " 'solver': {'iterations': 2.5, 'method': 'dme'}, 'output': {'frame_interval': -1},"
        " 'extra': 1}",
        &job, &e);
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    const char *want[] = {"/name",
                          "/scene/materials/0/densty",
                          "/scene/materials/0/poisson_ratio",
                          "/scene/geometry/0/point",
                          "/scene/geometry/0/material",
                          "/scene/particles/0/spheres/0/3",
                          "/solver/iterations",
                          "/solver/method",
                          "/output/frame_interval",
                          "/extra"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!has_error(&e, want[i], "")) fprintf(stderr, "missing %s\n", want[i]);
        ck_assert(has_error(&e, want[i], ""));
    }
    ck_assert_int_eq(e.count, (int)(sizeof want / sizeof want[0]));
    ndem_job_errors_clear(&e);
}
END_TEST

/* Errors come in document order (docs/job.md "Errors"), not the parser's
 * reading order (materials first): members as the document orders them,
 * indices as numbers (2 before 10), absent members after present ones. */
START_TEST(errors_in_document_order)
{
    char spheres[1024] = "";
    for (int i = 0; i < 11; i++)
        snprintf(spheres + strlen(spheres), sizeof spheres - strlen(spheres), "%s[%d, 0, 0, %s]",
                 i ? ", " : "", i, i == 2 || i == 10 ? "-1" : "0.01");
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{'solver': {'time_step': -1, 'method': 'dme'}, 'name': 3,"
             " 'scene': {'particles': [{'type': 'list', 'material': 'ore', 'spheres': [%s]}],"
             "  'materials': [{'name': 'ore', 'densty': 1, 'density': -1}]},"
             " 'extra': 1}",
             spheres);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_sq(doc, &job, &e), NDEM_JOB_INVALID);
    const char *want[] = {"/solver/time_step",
                          "/solver/method",
                          "/name",
                          "/scene/particles/0/spheres/2/3",
                          "/scene/particles/0/spheres/10/3",
                          "/scene/materials/0/densty",
                          "/scene/materials/0/density",
                          "/extra"};
    int n = (int)(sizeof want / sizeof want[0]);
    if (e.count != n) dump_errors(&e);
    ck_assert_int_eq(e.count, n);
    for (int i = 0; i < n; i++) ck_assert_str_eq(e.items[i].pointer, want[i]);
    ndem_job_errors_clear(&e);

    /* Errors added after the parse (the daemon's limits), one of them at a
     * member the document lacks: present members first, in their order. */
    const char *text = "{\"solver\": {\"duration\": 9, \"time_step\": 1}, \"scene\": {}}";
    const char *added[] = {"/scene/particles", "/solver/time_step", "/solver/duration"};
    for (int i = 0; i < 3; i++) {
        e.items = realloc(e.items, (size_t)(i + 1) * sizeof *e.items);
        ck_assert_ptr_nonnull(e.items);
        e.items[i].pointer = strdup(added[i]);
        e.items[i].message = strdup("limit");
        e.count = e.capacity = i + 1;
    }
    ndem_job_errors_sort(&e, text, strlen(text));
    ck_assert_str_eq(e.items[0].pointer, "/solver/duration");
    ck_assert_str_eq(e.items[1].pointer, "/solver/time_step");
    ck_assert_str_eq(e.items[2].pointer, "/scene/particles");
    ndem_job_errors_clear(&e);
}
END_TEST

START_TEST(no_spurious_errors_without_materials)
{
    /* A broken material table is one error; references to it are not more. */
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st =
        parse_sq("{'scene': {'materials': [], 'geometry': [{'type': 'box', 'min': [0, 0, 0],"
                 " 'max': [1, 1, 1], 'material': 'steel'}],"
                 " 'contact_materials': [{'materials': ['a', 'b']}]}}",
                 &job, &e);
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    if (e.count != 1) dump_errors(&e);
    ck_assert_int_eq(e.count, 1);
    ck_assert_str_eq(e.items[0].pointer, "/scene/materials");
    ndem_job_errors_clear(&e);
}
END_TEST

START_TEST(error_count_is_bounded)
{
    /* 5000 bad entries: the list stops at 100 plus one closing remark. */
    size_t n = 5000, cap = n * 64 + 256;
    char *doc = malloc(cap);
    ck_assert_ptr_nonnull(doc);
    size_t len = (size_t)snprintf(doc, cap,
                                  "{\"scene\": {\"materials\": [{\"name\": \"a\"}], "
                                  "\"geometry\": [");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(doc + len, cap - len, "%s{\"type\": \"cone\"}", i ? ", " : "");
    len += (size_t)snprintf(doc + len, cap - len, "]}}");
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(doc, len, &job, &e), NDEM_JOB_INVALID);
    /* 5000 > NDEM_JOB_MAX_ENTRIES? no: 10000 allowed, so every entry errs */
    ck_assert_int_eq(e.count, 101);
    ck_assert_str_eq(e.items[100].pointer, "");
    ck_assert(strstr(e.items[100].message, "too many errors") != NULL);
    ndem_job_errors_clear(&e);
    free(doc);
}
END_TEST

/* ---- malformed and hostile input ---- */

static ndem_job_status parse_raw(const char *t, size_t len, ndem_job_errors *e)
{
    ndem_job *job = (ndem_job *)1;
    ndem_job_status st = ndem_job_parse(t, len, &job, e);
    if (st != NDEM_JOB_OK) ck_assert_ptr_null(job);
    ndem_job_destroy(job);
    return st;
}

START_TEST(malformed_documents)
{
    static const char *const docs[] = {
        "",          "   ",
        "{",         "{\"scene\": }",
        "nul",       "{'a': 1}",
        "[1,]",      "{} x",
        "{}{}",      "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}},",
        "\"abc",     "0x10",
        "{\"a\" 1}", "\xff\xfe{}"};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        ndem_job_errors e = {0};
        ndem_job_status st = parse_raw(docs[i], strlen(docs[i]), &e);
        if (st != NDEM_JOB_MALFORMED) fprintf(stderr, "not malformed: %s\n", docs[i]);
        ck_assert_int_eq(st, NDEM_JOB_MALFORMED);
        ck_assert_int_eq(e.count, 1);
        ck_assert_str_eq(e.items[0].pointer, "");
        ck_assert(strstr(e.items[0].message, "not valid JSON") != NULL);
        ndem_job_errors_clear(&e);
    }
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_raw("{\n  \"scene\": ]}", 15, &e), NDEM_JOB_MALFORMED);
    ck_assert(strstr(e.items[0].message, "line 2") != NULL);
    ndem_job_errors_clear(&e);
    ck_assert_int_eq(parse_raw(NULL, 0, &e), NDEM_JOB_MALFORMED);
    ck_assert(strstr(e.items[0].message, "empty") != NULL);
    ndem_job_errors_clear(&e);
    ck_assert_int_eq(parse_raw("{} x", 4, &e), NDEM_JOB_MALFORMED);
    ck_assert(strstr(e.items[0].message, "after the document at byte 3") != NULL);
    ndem_job_errors_clear(&e);
}
END_TEST

START_TEST(length_bounds_the_text)
{
    /* Not NUL-terminated: the bytes after len are never read. */
    const char doc[] = "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}} \n garbage";
    size_t len = strlen("{\"scene\": {\"materials\": [{\"name\": \"a\"}]}} \n");
    char *copy = malloc(len);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, doc, len);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(copy, len, &job, &e), NDEM_JOB_OK);
    ndem_job_destroy(job);
    ck_assert_int_eq(ndem_job_parse(doc, strlen(doc), &job, &e), NDEM_JOB_MALFORMED);
    ndem_job_errors_clear(&e);
    free(copy);
}
END_TEST

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

START_TEST(deep_nesting)
{
    size_t n = 1000000;
    char *doc = malloc(n + 32);
    ck_assert_ptr_nonnull(doc);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(doc, '[', n);
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_raw(doc, n, &e), NDEM_JOB_MALFORMED);
    ck_assert(strstr(e.items[0].message, "nested deeper than") != NULL);
    ndem_job_errors_clear(&e);
    /* the same below a valid prefix, with objects */
    size_t p = (size_t)sprintf(doc, "{\"scene\": ");
    for (size_t i = p; i < n; i += 5) memcpy(doc + i, "{\"a\":", 5);
    ck_assert_int_eq(parse_raw(doc, n, &e), NDEM_JOB_MALFORMED);
    ndem_job_errors_clear(&e);
    /* 900 levels parse, and are then an unknown field: no recursion on our side */
    memset(doc, 0, n);
    p = (size_t)sprintf(doc, "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}, \"x\": ");
    for (int i = 0; i < 900; i++) doc[p++] = '[';
    for (int i = 0; i < 900; i++) doc[p++] = ']';
    doc[p++] = '}';
    ck_assert_int_eq(parse_raw(doc, p, &e), NDEM_JOB_INVALID);
    ck_assert_str_eq(e.items[0].pointer, "/x");
    ndem_job_errors_clear(&e);
    ck_assert(seconds_since(&t0) < 5.0);
    free(doc);
}
END_TEST

START_TEST(huge_string)
{
    size_t n = 100u << 20;
    char *doc = malloc(n + 128);
    ck_assert_ptr_nonnull(doc);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t p =
        (size_t)sprintf(doc, "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}, \"name\": \"");
    memset(doc + p, 'x', n);
    p += n;
    p += (size_t)sprintf(doc + p, "\"}");
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_raw(doc, p, &e), NDEM_JOB_INVALID);
    ck_assert_int_eq(e.count, 1);
    ck_assert_str_eq(e.items[0].pointer, "/name");
    ndem_job_errors_clear(&e);
    /* unterminated: malformed */
    ck_assert_int_eq(parse_raw(doc, p - 2, &e), NDEM_JOB_MALFORMED);
    ndem_job_errors_clear(&e);
    ck_assert(seconds_since(&t0) < 10.0);
    free(doc);
}
END_TEST

START_TEST(odd_strings)
{
    /* invalid UTF-8 in a name, control characters and a long key in messages */
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    const char doc[] = "{\"scene\": {\"materials\": [{\"name\": \"\xc3\x28\"}]}, "
                       "\"k\\u0001\\\"\xff\": 1}";
    ck_assert_int_eq(ndem_job_parse(doc, strlen(doc), &job, &e), NDEM_JOB_INVALID);
    ck_assert(has_error(&e, "/scene/materials/0/name", "UTF-8"));
    char *j = ndem_job_errors_to_json(&e);
    ck_assert_ptr_nonnull(j);
    cJSON *arr = cJSON_Parse(j);
    ck_assert_ptr_nonnull(arr);
    ck_assert_int_eq(cJSON_GetArraySize(arr), e.count);
    cJSON_Delete(arr);
    free(j);
    ndem_job_errors_clear(&e);
    /* "\u0000" in a key cuts it short in cJSON: still a clean error */
    const char doc2[] = "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}, \"x\\u0000y\": 1}";
    ck_assert_int_eq(ndem_job_parse(doc2, strlen(doc2), &job, &e), NDEM_JOB_INVALID);
    ndem_job_errors_clear(&e);
}
END_TEST

START_TEST(read_file_errors)
{
    size_t len = 7;
    errno = 0;
    ck_assert_ptr_null(ndem_read_file("/nonexistent/ndem/job.json", &len));
    ck_assert_int_eq(errno, ENOENT);
    char path[512];
    char *t = ndem_read_file(ndem_test_bench("drum.json", path, sizeof path), &len);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(strlen(t), len);
    free(t);
    ndem_job_destroy(NULL);
    ndem_job_errors e = {0};
    ndem_job_errors_clear(&e);
    ndem_job_errors_clear(NULL);
    ck_assert_ptr_null(ndem_job_to_json(NULL));
}
END_TEST

/* ---- round trip ---- */

static void same_radius(const ndem_radius_dist *a, const ndem_radius_dist *b)
{
    ck_assert_int_eq(a->kind, b->kind);
    ck_assert_int_eq(a->count, b->count);
    ck_assert_double_eq(a->min, b->min);
    ck_assert_double_eq(a->max, b->max);
    for (int i = 0; i < NDEM_MAX_RADIUS_VALUES; i++) {
        ck_assert_double_eq(a->values[i], b->values[i]);
        ck_assert_double_eq(a->weights[i], b->weights[i]);
    }
}

static void same_vec(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++) ck_assert_double_eq(a[i], b[i]);
}

static void same_job(const ndem_job *x, const ndem_job *y)
{
    const ndem_scene_def *a = &x->scene, *b = &y->scene;
    ck_assert_str_eq(x->name, y->name);
    ck_assert_double_eq(x->output.frame_interval, y->output.frame_interval);
    same_vec(a->gravity, b->gravity, 3);
    ck_assert_int_eq(a->material_count, b->material_count);
    for (int i = 0; i < a->material_count; i++) {
        const ndem_material_def *p = &a->materials[i], *q = &b->materials[i];
        ck_assert_str_eq(p->name, q->name);
        ck_assert_double_eq(p->density, q->density);
        ck_assert_double_eq(p->young_modulus, q->young_modulus);
        ck_assert_double_eq(p->poisson_ratio, q->poisson_ratio);
        ck_assert_double_eq(p->viscosity, q->viscosity);
    }
    ck_assert_int_eq(a->contact_material_count, b->contact_material_count);
    for (int i = 0; i < a->contact_material_count; i++) {
        const ndem_contact_material_def *p = &a->contact_materials[i],
                                        *q = &b->contact_materials[i];
        ck_assert_int_eq(p->material_a, q->material_a);
        ck_assert_int_eq(p->material_b, q->material_b);
        same_vec(&p->friction, &q->friction, 1);
        ck_assert_double_eq(p->rolling_resistance, q->rolling_resistance);
        ck_assert_double_eq(p->twisting_resistance, q->twisting_resistance);
        ck_assert_double_eq(p->restitution, q->restitution);
        ck_assert_double_eq(p->adhesion, q->adhesion);
        ck_assert_double_eq(p->adhesive_overlap, q->adhesive_overlap);
        ck_assert_double_eq(p->damping_time, q->damping_time);
        ck_assert_double_eq(p->young_modulus, q->young_modulus);
    }
    ck_assert_int_eq(a->geometry_count, b->geometry_count);
    for (int i = 0; i < a->geometry_count; i++) {
        const ndem_geometry_def *p = &a->geometry[i], *q = &b->geometry[i];
        ck_assert_int_eq(p->type, q->type);
        ck_assert_int_eq(p->material, q->material);
        ck_assert_int_eq(p->inside, q->inside);
        same_vec(p->point, q->point, 3);
        same_vec(p->normal, q->normal, 3);
        same_vec(p->min, q->min, 3);
        same_vec(p->max, q->max, 3);
        same_vec(p->center, q->center, 3);
        same_vec(p->axis, q->axis, 3);
        ck_assert_double_eq(p->radius, q->radius);
        ck_assert_double_eq(p->length, q->length);
        same_vec(p->velocity, q->velocity, 3);
        same_vec(p->angular_velocity, q->angular_velocity, 3);
    }
    ck_assert_int_eq(a->generator_count, b->generator_count);
    for (int i = 0; i < a->generator_count; i++) {
        const ndem_generator_def *p = &a->generators[i], *q = &b->generators[i];
        ck_assert_int_eq(p->type, q->type);
        ck_assert_int_eq(p->material, q->material);
        same_vec(p->min, q->min, 3);
        same_vec(p->max, q->max, 3);
        ck_assert_double_eq(p->spacing, q->spacing);
        ck_assert_int_eq(p->count, q->count);
        same_radius(&p->radius, &q->radius);
        ck_assert_uint_eq(p->seed, q->seed);
        same_vec(p->velocity, q->velocity, 3);
        ck_assert_int_eq(p->list_count, q->list_count);
        ck_assert_int_eq(p->spheres == NULL, q->spheres == NULL);
        ck_assert_int_eq(p->velocities == NULL, q->velocities == NULL);
        if (p->spheres) same_vec(p->spheres, q->spheres, 4 * (int)p->list_count);
        if (p->velocities) same_vec(p->velocities, q->velocities, 3 * (int)p->list_count);
    }
    ck_assert_int_eq(a->emitter_count, b->emitter_count);
    for (int i = 0; i < a->emitter_count; i++) {
        const ndem_emitter_def *p = &a->emitters[i], *q = &b->emitters[i];
        same_vec(p->min, q->min, 3);
        same_vec(p->max, q->max, 3);
        ck_assert_double_eq(p->rate, q->rate);
        ck_assert_double_eq(p->start, q->start);
        ck_assert_double_eq(p->stop, q->stop);
        ck_assert_int_eq(p->max_count, q->max_count);
        same_radius(&p->radius, &q->radius);
        ck_assert_int_eq(p->material, q->material);
        same_vec(p->velocity, q->velocity, 3);
        ck_assert_uint_eq(p->seed, q->seed);
    }
    const ndem_solver_def *s = &a->solver, *t = &b->solver;
    ck_assert_int_eq(s->method, t->method);
    ck_assert_double_eq(s->time_step, t->time_step);
    ck_assert_double_eq(s->duration, t->duration);
    ck_assert_int_eq(s->iterations, t->iterations);
    ck_assert_int_eq(s->impact_iterations, t->impact_iterations);
    ck_assert_int_eq(s->warm_start, t->warm_start);
    ck_assert_double_eq(s->warm_start_factor, t->warm_start_factor);
    ck_assert_double_eq(s->impact_velocity, t->impact_velocity);
    ck_assert_double_eq(s->tolerance, t->tolerance);
    ck_assert_double_eq(s->damping_steps, t->damping_steps);
    ck_assert_double_eq(s->friction_compliance, t->friction_compliance);
    ck_assert_int_eq(s->threads, t->threads);
}

/* parse(to_json(job)) equals job, field by field and as text. */
static void round_trip_check(const ndem_job *job)
{
    char *text = ndem_job_to_json(job);
    ck_assert_ptr_nonnull(text);
    ndem_job *again = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = ndem_job_parse(text, strlen(text), &again, &e);
    if (st != NDEM_JOB_OK) {
        fprintf(stderr, "%s\n", text);
        dump_errors(&e);
    }
    ck_assert_int_eq(st, NDEM_JOB_OK);
    same_job(job, again);
    char *text2 = ndem_job_to_json(again);
    ck_assert_ptr_nonnull(text2);
    ck_assert_str_eq(text, text2);
    free(text2);
    free(text);
    ndem_job_destroy(again);
}

START_TEST(round_trip_bench)
{
    for (int i = 0; i < N_BENCH; i++) {
        ndem_job *job = parse_file(bench_files[i]);
        round_trip_check(job);
        ndem_job_destroy(job);
    }
}
END_TEST

START_TEST(round_trip_features)
{
    ndem_job *job = parse_ok(feature_doc);
    round_trip_check(job);
    char *text = ndem_job_to_json(job);
    /* automatic values are null, explicit ones numbers */
    cJSON *doc = cJSON_Parse(text);
    ck_assert_ptr_nonnull(doc);
    const cJSON *solver = cJSON_GetObjectItem(doc, "solver");
    ck_assert_double_eq(cJSON_GetObjectItem(solver, "impact_velocity")->valuedouble, 0.7);
    const cJSON *cm = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "scene"), "contact_materials"), 0);
    ck_assert_double_eq(cJSON_GetObjectItem(cm, "damping_time")->valuedouble, 0.001);
    cJSON_Delete(doc);
    free(text);
    ndem_job_destroy(job);

    job = parse_ok(contract_doc);
    round_trip_check(job);
    text = ndem_job_to_json(job);
    doc = cJSON_Parse(text);
    solver = cJSON_GetObjectItem(doc, "solver");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(solver, "impact_velocity")));
    cm = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "scene"), "contact_materials"), 0);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cm, "damping_time")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cm, "young_modulus")));
    cJSON_Delete(doc);
    free(text);
    ndem_job_destroy(job);

    job = parse_ok("{'scene': {'materials': [{'name': 'a'}]}}");
    round_trip_check(job);
    ndem_job_destroy(job);
}
END_TEST

/* ---- error lists and frames as JSON ---- */

START_TEST(errors_json)
{
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_sq("{'scene': {'materials': [{'name': 'a', 'density': -1}]},"
                              " 'x\\\"y': 1}",
                              &job, &e),
                     NDEM_JOB_INVALID);
    char *text = ndem_job_errors_to_json(&e);
    ck_assert_ptr_nonnull(text);
    cJSON *arr = cJSON_Parse(text);
    ck_assert_ptr_nonnull(arr);
    ck_assert(cJSON_IsArray(arr));
    ck_assert_int_eq(cJSON_GetArraySize(arr), 2);
    int found = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const char *p = cJSON_GetObjectItem(it, "pointer")->valuestring;
        const char *m = cJSON_GetObjectItem(it, "message")->valuestring;
        ck_assert_ptr_nonnull(m);
        if (strcmp(p, "/scene/materials/0/density") == 0 || strcmp(p, "/x\"y") == 0) found++;
    }
    ck_assert_int_eq(found, 2);
    cJSON_Delete(arr);
    free(text);
    ndem_job_errors_clear(&e);
    text = ndem_job_errors_to_json(&e);
    ck_assert_str_eq(text, "[]");
    free(text);
}
END_TEST

START_TEST(frame_json)
{
    double pos[6] = {0.1, -2.5, 3e-7, 1e10, 0.0, NAN};
    double rad[2] = {0.0065, 0.005};
    double vel[6] = {1, 2, 3, -4, -5, INFINITY};
    double ang[6] = {0.25, 0, 0, 0, 0, -123456.789};
    ndem_frame f;
    memset(&f, 0, sizeof f);
    f.step = 42;
    f.time = 0.21000000000000002;
    f.count = 2;
    f.positions = pos;
    f.radii = rad;
    f.velocities = vel;
    f.angular_velocities = ang;
    char *text = ndem_frame_to_json(&f, 7);
    ck_assert_ptr_nonnull(text);
    cJSON *doc = cJSON_Parse(text);
    if (!doc) fprintf(stderr, "%s\n", text);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "index")->valueint, 7);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "step")->valueint, 42);
    ck_assert_double_eq(cJSON_GetObjectItem(doc, "time")->valuedouble, 0.21000000000000002);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "particles")->valueint, 2);
    const char *names[] = {"positions", "radii", "velocities", "angular_velocities"};
    const double *arrays[] = {pos, rad, vel, ang};
    const int counts[] = {6, 2, 6, 6};
    for (int k = 0; k < 4; k++) {
        const cJSON *a = cJSON_GetObjectItem(doc, names[k]);
        ck_assert(cJSON_IsArray(a));
        ck_assert_int_eq(cJSON_GetArraySize(a), counts[k]);
        for (int i = 0; i < counts[k]; i++) {
            const cJSON *v = cJSON_GetArrayItem(a, i);
            if (!isfinite(arrays[k][i])) {
                ck_assert(cJSON_IsNull(v));
            } else {
                ck_assert(cJSON_IsNumber(v));
                ck_assert_double_eq_tol(v->valuedouble, arrays[k][i],
                                        1e-8 * fabs(arrays[k][i]) + 1e-300);
            }
        }
    }
    cJSON_Delete(doc);
    free(text);
    /* an empty frame */
    memset(&f, 0, sizeof f);
    text = ndem_frame_to_json(&f, 0);
    ck_assert_str_eq(text, "{\"index\": 0, \"step\": 0, \"time\": 0, \"particles\": 0, "
                           "\"positions\": [], \"radii\": [], \"velocities\": [], "
                           "\"angular_velocities\": []}");
    free(text);
}
END_TEST

START_TEST(nine_digit_format)
{
    /* The fast formatter reads back like "%.9g" across magnitudes. */
    unsigned long long s = 88172645463325252ULL;
    char mine[64], ref[64];
    for (int i = 0; i < 50000; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double m = (double)(s >> 11) / 9007199254740992.0;
        int e10 = (int)(s % 24) - 12;
        double x = (s & 1 ? -1 : 1) * m * pow(10.0, e10);
        if (i % 1000 == 0) x = pow(10.0, e10); /* exact powers of ten */
        if (i % 1000 == 1) x = 0.999999999 * pow(10.0, e10) + 0.0000000005 * pow(10.0, e10);
        ndem_jw_format_g9(mine, x);
        snprintf(ref, sizeof ref, "%.9g", x);
        double a = strtod(mine, NULL), b = strtod(ref, NULL);
        if (!(fabs(a - b) <= 1e-9 * fabs(b))) fprintf(stderr, "%.17g: %s vs %s\n", x, mine, ref);
        ck_assert(fabs(a - b) <= 1e-9 * fabs(b));
        ck_assert_uint_le(strlen(mine), NDEM_JW_G9_MAX);
    }
    ndem_jw_format_g9(mine, -0.0);
    ck_assert(strtod(mine, NULL) == 0.0);
    ndem_jw_format_g9(mine, 1e-300);
    ck_assert_str_eq(mine, "1e-300");
    ndem_jw_format_g9(mine, 0.5);
    ck_assert_str_eq(mine, "0.5");
    ndem_jw_format_g9(mine, 12.0);
    ck_assert_str_eq(mine, "12");
    ndem_jw_format_g9(mine, 0.000123);
    ck_assert_str_eq(mine, "0.000123");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("parser");
    TCase *tc = tcase_create("scenes");
    tcase_add_test(tc, bench_scenes_parse);
    tcase_add_test(tc, bench_column);
    tcase_add_test(tc, bench_drum);
    tcase_add_test(tc, bench_beds_and_pile);
    tcase_add_test(tc, contract_example);
    tcase_add_test(tc, docs_example);
    tcase_add_test(tc, minimal_defaults);
    tcase_add_test(tc, item_defaults);
    tcase_add_test(tc, normalisation);
    tcase_add_test(tc, particle_estimate);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_loop_test(tc, broken_document, 0, N_BROKEN);
    tcase_add_test(tc, all_errors_reported);
    tcase_add_test(tc, errors_in_document_order);
    tcase_add_test(tc, no_spurious_errors_without_materials);
    tcase_add_test(tc, error_count_is_bounded);
    suite_add_tcase(s, tc);

    tc = tcase_create("hostile");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, malformed_documents);
    tcase_add_test(tc, length_bounds_the_text);
    tcase_add_test(tc, deep_nesting);
    tcase_add_test(tc, huge_string);
    tcase_add_test(tc, odd_strings);
    tcase_add_test(tc, read_file_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("json");
    tcase_add_test(tc, round_trip_bench);
    tcase_add_test(tc, round_trip_features);
    tcase_add_test(tc, errors_json);
    tcase_add_test(tc, frame_json);
    tcase_add_test(tc, nine_digit_format);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
