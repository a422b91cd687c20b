/* rigid_scenes.h - what the dynamic-geometry suites (test_rigid,
 * test_rigid_contact, test_walls) share: the two solvers' members, running
 * a scene for a time, a geometry's body, the ore particles' momentum, and
 * the parser's what-and-where check of one geometry entry. */
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
