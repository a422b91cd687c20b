/* test_parser_scene.c - job documents that parse: the standard scenes of
 * bench/, the documented examples, defaults filled in for the document and
 * each item, normalisation, the particle estimate, and the round trip (a
 * parsed job written back as JSON parses to the same job). */
#include "job.h"
#include "parser_util.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <string.h>

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
    "  {'type': 'cylinder', 'center': [0, 0, 0], 'axis': [0, 3, 4], 'radius': 1, 'length': 2},"
    "  {'type': 'plane', 'point': [0, 0, -1], 'normal': [0, 0, 1], 'motion': {'velocity': [0, 0,"
    "   0.1], 'angular_velocity': [0, 0, 2], 'pivot': [0.5, 0.25, 0]}},"
    "  {'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'inside': true, 'motion': {"
    "   'keyframes': [{'time': 0.1, 'position': [0.5, 0.5, 0.5], 'orientation': [2, 0, 0, 0]},"
    "   {'time': 0.2, 'position': [0.5, 0.5, 0.7], 'orientation': [0.6, 0, 0.8, 0]}]}}],"
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
    /* keyframe orientations: normalised, a unit one kept as written */
    const ndem_geometry_def *kb = &job->scene.geometry[4];
    ck_assert_int_eq(kb->keyframe_count, 2);
    ck_assert_double_eq(kb->keyframes[0].orientation[0], 1.0);
    ck_assert_double_eq(kb->keyframes[1].orientation[2], 0.8);
    ck_assert_int_eq(job->scene.geometry[3].has_pivot, 1);
    ck_assert_int_eq(job->scene.geometry[2].has_pivot, 0);
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
        ck_assert_int_eq(p->has_pivot, q->has_pivot);
        same_vec(p->pivot, q->pivot, 3);
        ck_assert_int_eq(p->keyframe_count, q->keyframe_count);
        for (int k = 0; k < p->keyframe_count; k++) {
            const ndem_keyframe *f = &p->keyframes[k], *h = &q->keyframes[k];
            ck_assert_double_eq(f->time, h->time);
            same_vec(f->position, h->position, 3);
            same_vec(f->orientation, h->orientation, 4);
        }
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

int main(void)
{
    Suite *s = suite_create("parser_scene");
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

    tc = tcase_create("round_trip");
    tcase_add_test(tc, round_trip_bench);
    tcase_add_test(tc, round_trip_features);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
