/* test_robust.c - valid but unusual input runs without undefined behaviour
 * (issue 12 item 7): empty and emitter-only scenes step (NDEM and smooth
 * DEM, with a checkpoint round trip), wide generator regions place their
 * spheres without overflowing a cell count, and the engine itself refuses
 * regions it cannot resolve even when called without the job parser. Under
 * the sanitizer build of `make test` any overflow or memcpy(NULL) aborts. */
#include "scene.h"
#include "testutil.h"

#include <math.h>

#define SOLVER(method)                                                                             \
    "\"solver\": {\"method\": \"" method "\", \"time_step\": 0.001, \"duration\": 0.02}"

/* Steps a whole job; returns the particle count at the end. */
static long run_all_steps(const ndem_job *job)
{
    ndem_sim *sim = test_sim(job);
    long n = ndem_sim_total_steps(sim);
    for (long i = 0; i < n; i++) {
        test_step(sim);
        if (i == n / 2) { /* a checkpoint of whatever is there restores and runs on */
            void *buf = NULL;
            size_t len = 0;
            ck_assert_int_eq(ndem_sim_checkpoint(sim, &buf, &len), 0);
            char err[256] = "";
            ndem_sim *back = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
            ck_assert_msg(back != NULL, "restore failed: %s", err);
            ck_assert_uint_eq(ndem_sim_state_hash(back), ndem_sim_state_hash(sim));
            ndem_sim_destroy(sim);
            sim = back;
            free(buf);
        }
    }
    ndem_frame f;
    ck_assert_int_eq(ndem_sim_copy_frame(sim, &f), 0);
    long count = f.count;
    ck_assert_int_eq(count, ndem_sim_particle_count(sim));
    ck_assert_int_eq(ndem_sim_stats(sim)->contacts, 0); /* nothing touches: nothing is there */
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    return count;
}

static const char *const methods[] = {"ndem", "dem"};

START_TEST(empty_scene_steps)
{
    char solver[160];
    snprintf(solver, sizeof solver,
             "\"solver\": {\"method\": \"%s\", \"time_step\": 0.001, \"duration\": 0.02}",
             methods[_i]);
    ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS "}, %s}", solver);
    ck_assert_int_eq(run_all_steps(job), 0);
    ndem_job_destroy(job);
    /* with a wall but still no particles */
    job = test_job("{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"plane\", "
                   "\"point\": [0, 0, 0], \"normal\": [0, 0, 1]}]}, %s}",
                   solver);
    ck_assert_int_eq(run_all_steps(job), 0);
    ndem_job_destroy(job);
}
END_TEST

/* An emitter alone: the scene is empty for its first 5 steps (the emitter
 * starts at 0.5 ms), then fills at 10^4 per second: the 15 steps from
 * t = 0.5 ms to 1.9 ms owe one particle each (up to rounding of the debt). */
START_TEST(emitter_only_scene_steps)
{
    /* 5e-5 s: below smooth DEM's stable step for these 1 mm spheres (8.7e-5 s) */
    char solver[160];
    snprintf(solver, sizeof solver,
             "\"solver\": {\"method\": \"%s\", \"time_step\": 5e-5, \"duration\": 2e-3}",
             methods[_i]);
    ndem_job *job =
        test_job("{\"scene\": {" TEST_MATERIALS ", \"emitters\": [{\"min\": [0, 0, 0], "
                 "\"max\": [1, 1, 1], \"rate\": 1e4, \"start\": 5e-4, \"radius\": 0.001}]}, %s}",
                 solver);
    long n = run_all_steps(job);
    ck_assert_int_ge(n, 14);
    ck_assert_int_le(n, 15);
    ndem_job_destroy(job);
}
END_TEST

/* Particles with no neighbour at all: the first body of a block of the
 * list build finds no pair (its buffer is still unallocated); found by the
 * parse-and-step fuzzer (a column with one sphere moved away). */
START_TEST(isolated_particles_step)
{
    ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS ", \"particles\": [{\"type\": "
                             "\"list\", \"spheres\": [[0, 0, 0, 0.01], [1, 0, 0, 0.01]]}]}, %s}",
                             SOLVER("ndem"));
    ck_assert_int_eq(run_all_steps(job), 2);
    ndem_job_destroy(job);
}
END_TEST

/* Regions at the limit (+-1e6 m) with millimetre spheres: 1e9 lattice sites
 * per axis and 1e27 cells of random fill, which overflowed a long before;
 * and 1e300 sites per axis at a 1e-300 m pitch, which the parser refuses
 * (the spheres would overlap, job_lattice.c) but a caller of core/ndem.h
 * can still set. */
START_TEST(wide_regions_place_their_spheres)
{
    static const char *const gens[] = {
        "{\"type\": \"lattice\", \"min\": [-1e6, -1e6, -1e6], \"max\": [1e6, 1e6, 1e6], "
        "\"count\": 10, \"radius\": 0.001}",
        "{\"type\": \"random\", \"min\": [-1e6, -1e6, -1e6], \"max\": [1e6, 1e6, 1e6], "
        "\"count\": 10, \"radius\": 0.001}",
        "{\"type\": \"lattice\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"spacing\": 0.002, "
        "\"count\": 10, \"radius\": 0.001}"};
    for (int k = 0; k < 3; k++) {
        ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS ", \"particles\": [%s]}, %s}",
                                 gens[k], SOLVER("ndem"));
        if (k == 2) job->generators[0].spacing = 1e-300;
        ndem_sim *sim = test_sim(job);
        ck_assert_int_eq(ndem_sim_particle_count(sim), 10);
        ndem_frame f;
        ck_assert_int_eq(ndem_sim_copy_frame(sim, &f), 0);
        for (long i = 0; i < 3 * f.count; i++) {
            ck_assert(isfinite(f.positions[i]));
            ck_assert_double_le(fabs(f.positions[i]), 1e6);
        }
        if (k == 0) /* the first row of the lattice: x fastest, one diameter apart */
            for (long i = 0; i < f.count; i++) {
                ck_assert_double_eq(f.positions[3 * i], -1e6 + (double)i * 0.002);
                ck_assert_double_eq(f.positions[3 * i + 2], -1e6);
            }
        ndem_frame_free(&f);
        test_step(sim);
        ndem_sim_destroy(sim);
        ndem_job_destroy(job);
    }
}
END_TEST

/* The engine's own check, without the parser (a caller of core/ndem.h). */
START_TEST(engine_refuses_unusable_regions)
{
    ndem_material_def m = ndem_default_material_def();
    ndem_generator_def g = ndem_default_generator_def();
    ndem_emitter_def e = ndem_default_emitter_def();
    ndem_scene_def s = ndem_default_scene_def();
    s.material_count = 1;
    s.materials = &m;
    s.solver.time_step = 1e-3;
    s.solver.duration = 1e-2;
    g.type = NDEM_GENERATOR_LATTICE;
    g.count = 10;
    for (int k = 0; k < 3; k++) g.min[k] = -1e300, g.max[k] = 1e300;
    s.generator_count = 1;
    s.generators = &g;
    char err[256] = "";
    ck_assert_ptr_null(ndem_sim_create(&s, err, sizeof err));
    ck_assert_msg(strstr(err, "particles 0: region") != NULL, "%s", err);
    /* a lattice filling a 1 m cube at 1 um pitch: 1e18 sites */
    for (int k = 0; k < 3; k++) g.min[k] = 0.0, g.max[k] = 1.0;
    g.count = 0;
    g.spacing = 1e-6;
    ck_assert_ptr_null(ndem_sim_create(&s, err, sizeof err));
    ck_assert_msg(strstr(err, "sites") != NULL, "%s", err);
    s.generator_count = 0;
    e.max[2] = INFINITY;
    s.emitter_count = 1;
    s.emitters = &e;
    ck_assert_ptr_null(ndem_sim_create(&s, err, sizeof err));
    ck_assert_msg(strstr(err, "emitters 0: region") != NULL, "%s", err);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("robust");
    TCase *tc = tcase_create("edges");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, empty_scene_steps, 0, 2);
    tcase_add_loop_test(tc, emitter_only_scene_steps, 0, 2);
    tcase_add_test(tc, isolated_particles_step);
    tcase_add_test(tc, wide_regions_place_their_spheres);
    tcase_add_test(tc, engine_refuses_unusable_regions);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
