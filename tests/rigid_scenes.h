/* rigid_scenes.h - what the dynamic-geometry suites (test_rigid,
 * test_rigid_contact, test_rigid_solid, test_rigid_pairs, test_walls)
 * share: the two solvers' members, running a scene for a time, a
 * geometry's body, two runs ending in the same bits, the wood box on steel
 * geometry, the ore particles' momentum, and the parser's what-and-where
 * check of one geometry entry. */
#ifndef NDEM_TEST_RIGID_SCENES_H
#define NDEM_TEST_RIGID_SCENES_H

#include "parser_util.h"
#include "rigid.h"
#include "scene.h"
#include "sim.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define NDEM_SOLVER "\"time_step\": 0.001"
#define DEM_SOLVER "\"method\": \"dem\", \"time_step\": \"auto\""

/* Steps for `seconds` of simulated time (rounded to whole steps). */
static inline void test_run_for(ndem_sim *sim, double seconds)
{
    long n = (long)llround(seconds / sim->solver.time_step);
    for (long i = 0; i < n; i++) test_step(sim);
}

/* The body of geometry g (all its features); fails the test without one. */
static inline const ndem_rigid_body *test_body_of(const ndem_sim *sim, int g)
{
    ck_assert_ptr_nonnull(sim->rigid);
    int b = ndem_rigid_body_of(sim->rigid, g, -1);
    ck_assert_int_ge(b, 0);
    return &sim->rigid->body[b];
}

/* Geometry g of a and b in the same state, bit for bit: the body's
 * velocities and the pose (a restored checkpoint, another thread count). */
static inline void test_same_body(const ndem_sim *a, const ndem_sim *b, int g)
{
    ck_assert(memcmp(test_body_of(a, g)->v, test_body_of(b, g)->v, 3 * sizeof(double)) == 0);
    ck_assert(memcmp(test_body_of(a, g)->w, test_body_of(b, g)->w, 3 * sizeof(double)) == 0);
    ck_assert(memcmp(a->pose[g].to, b->pose[g].to, 3 * sizeof(double)) == 0);
    ck_assert(memcmp(a->pose[g].q, b->pose[g].q, 4 * sizeof(double)) == 0);
}

/* The end of a test that ran a and b side by side (another thread count,
 * a restored checkpoint): geometry first..last in the same bits in both,
 * then both simulations and the jobs (jb NULL: one job ran both) freed. */
/* A checkpoint of `a` (its format version must be `version`) and the
 * simulation restored from it; the buffer is the caller's to free. */
static inline ndem_sim *test_checkpoint_restore(ndem_sim *a, const ndem_job *job, uint32_t version,
                                                void **buf, size_t *len)
{
    ck_assert_int_eq(ndem_sim_checkpoint(a, buf, len), 0);
    uint32_t got;
    memcpy(&got, (const char *)*buf + 8, 4);
    ck_assert_uint_eq(got, version);
    char err[256];
    ndem_sim *b = ndem_sim_restore(&job->scene, *buf, *len, err, sizeof err);
    ck_assert_msg(b != NULL, "%s", err);
    return b;
}

static inline void test_same_bodies_then_free(ndem_sim *a, ndem_sim *b, int first, int last,
                                              ndem_job *ja, ndem_job *jb)
{
    for (int g = first; g <= last; g++) test_same_body(a, b, g);
    ndem_sim_destroy(a);
    ndem_sim_destroy(b);
    ndem_job_destroy(ja);
    if (jb) ndem_job_destroy(jb);
}

/* Steel geometry and wood bodies; the pair's restitution and friction are
 * the document's next two numbers (%g, %g). */
#define STEEL_WOOD_MATS                                                                            \
    "\"materials\": [{\"name\": \"steel\", \"density\": 7800, \"young_modulus\": 2e11},"           \
    " {\"name\": \"wood\", \"density\": 700, \"young_modulus\": 1e9}], \"contact_materials\": "    \
    "[{\"materials\": [\"steel\", \"wood\"], \"restitution\": %g, \"friction\": %g}]"

/* A 10 x 10 x 2 cm wood box of 1 kg (dynamic, geometry 1) from z = bottom
 * to top (bottom + 0.02, written as the caller's numbers), centred over the
 * origin, moving at vz, above one steel
 * `geometry` entry (geometry 0), no particles, gravity gz, pair e and mu,
 * for a second of the `solver`'s members. */
static inline ndem_job *test_wood_box_job(const char *geometry, double gz, double e, double mu,
                                          double bottom, double top, double vz, const char *solver)
{
    return test_job("{\"scene\": {\"gravity\": [0, 0, %g], " STEEL_WOOD_MATS
                    ", \"geometry\": [%s, {\"type\": \"box\", \"min\": [-0.05, -0.05, %.17g], "
                    "\"max\": [0.05, 0.05, %.17g], \"material\": \"wood\", \"dynamic\": "
                    "{\"mass\": 1, \"velocity\": [0, 0, %g]}}], \"particles\": []}, \"solver\": "
                    "{%s, \"duration\": 1}}",
                    gz, e, mu, geometry, bottom, top, vz, solver);
}

/* Total momentum of the particles (kg m/s), ore at 2500 kg/m^3. */
static inline void test_ore_momentum(const ndem_sim *sim, double p[3])
{
    ndem_frame f;
    test_frame(sim, &f);
    p[0] = p[1] = p[2] = 0;
    for (long i = 0; i < f.count; i++) {
        double m = 2500 * 4.0 / 3.0 * M_PI * pow(f.radii[i], 3);
        for (int q = 0; q < 3; q++) p[q] += m * f.velocities[3 * i + q];
    }
    ndem_frame_free(&f);
}

/* A document with one geometry entry (single quotes for double) is
 * refused with msg at pointer. */
static inline void test_geometry_error(const char *geometry, const char *pointer, const char *msg)
{
    char doc[2048];
    snprintf(doc, sizeof doc, DOC(", 'geometry': [%s]"), geometry);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(doc, &job, &e);
    if (!has_error(&e, pointer, msg)) {
        fprintf(stderr, "wanted %s: %s\n", pointer, msg);
        dump_errors(&e);
    }
    ck_assert_int_ne(st, NDEM_JOB_OK);
    ck_assert(has_error(&e, pointer, msg));
    ck_assert_ptr_null(job);
    ndem_job_errors_clear(&e);
}

#endif
