/* test_walls.c - the stress-controlled box (`walls`, the triaxial cell,
 * issue 13). Every expected number comes from statics or
 * Newton's second law: a sample under a hydrostatic stress pushes each
 * wall back with that stress once it is still, a driven pair closes at
 * exactly its speed while the side walls keep their stress, an empty cell's
 * walls accelerate at stress times area over mass, checkpoints restore the
 * walls bit for bit, and the parser says what and where. */
#include "frame_bin.h"
#include "frame_json.h"
#include "parser_util.h"
#include "rigid.h"
#include "rigid_scenes.h"
#include "scene.h"
#include "series.h"
#include "sim.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cell "cell" of side L = 0.08 m around a random sample of n spheres
 * (radius 4 to 5 mm), no gravity (the walls then carry only the applied
 * stress), walls of `mass` with `stress` (three numbers) and `velocity`
 * (three entries) from `start`. */
static ndem_job *cell_job(const char *method, int n, double mass, const char *stress,
                          const char *velocity, double start, double duration)
{
    return test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"gravity\": [0, 0, 0], \"geometry\": [{\"type\": "
        "\"box\", \"name\": \"cell\", \"inside\": true, \"min\": [0, 0, 0], \"max\": [0.08, "
        "0.08, 0.08], \"material\": \"steel\", \"walls\": {\"mass\": %g, \"stress\": [%s], "
        "\"velocity\": [%s], \"start\": %g}}], \"particles\": [{\"type\": \"random\", \"min\": "
        "[0.006, 0.006, 0.006], \"max\": [0.074, 0.074, 0.074], \"count\": %d, \"radius\": "
        "{\"min\": 0.004, \"max\": 0.005}, \"material\": \"ore\", \"seed\": 3}]}, \"solver\": "
        "{%s, \"duration\": %g}}",
        mass, stress, velocity, start, n, method, duration);
}

/* The walls' stress and size now. */
static void walls_now(const ndem_sim *sim, double stress[3], double size[3])
{
    ck_assert_int_eq(ndem_sim_walls(sim, 0, stress, size), 0);
}

/* Runs to time t (s), summing each pair's stress over the steps after
 * `from` into sum[0..2] and its motor reading into sum[3..5] (count in
 * *n). */
static void run_to(ndem_sim *sim, double t, double from, double sum[6], long *n)
{
    while (sim->time < t - 0.5 * sim->solver.time_step) {
        test_step(sim);
        double s[3], z[3], m[3];
        walls_now(sim, s, z);
        ck_assert_int_eq(ndem_sim_walls_motor(sim, 0, m), 0);
        if (sum && sim->time > from) {
            for (int k = 0; k < 3; k++) sum[k] += s[k], sum[3 + k] += m[k];
            (*n)++;
        }
    }
}

/* The motor reading (the seed's sigma_i = f_i / A_i) against the contact
 * stress over the same steps: a wall at rest is in equilibrium, its motor
 * force balances its contact force, so the means agree within 2%. */
static void motor_agrees(const double sum[6], long n, const char *what)
{
    for (int k = 0; k < 3; k++) {
        double contact = sum[k] / (double)n, motor = sum[3 + k] / (double)n;
        fprintf(stderr, "%s: pair %d: contact %.5g Pa, motor %.5g Pa\n", what, k, contact, motor);
        ck_assert_msg(fabs(motor - contact) < 0.02 * contact,
                      "%s: pair %d: motor %.5g Pa, contact %.5g Pa", what, k, motor, contact);
    }
}

/* ---- (a) hydrostatic: each pair pushes back with the applied stress ---- */

START_TEST(hydrostatic_sample_carries_the_stress)
{
    /* walls of 1 kg: 100 Pa on 64 cm^2 closes the cell in about 0.2 s */
    ndem_job *job = cell_job(NDEM_SOLVER, 200, 1, "100, 100, 100", "null, null, null", 0, 1.6);
    ndem_sim *sim = test_sim(job);
    double sum[6] = {0, 0, 0, 0, 0, 0}, s[3], before[3], after[3];
    long n = 0;
    /* this sample rearranges once near 1 s (the motor rows' solve order
     * changed its path from the old push's): judged after that */
    run_to(sim, 1.2, 1.2, NULL, NULL);
    walls_now(sim, s, before);
    run_to(sim, 1.6, 1.2, sum, &n);
    walls_now(sim, s, after);
    for (int k = 0; k < 3; k++) {
        double mean = sum[k] / (double)n;
        fprintf(stderr, "hydrostatic: pair %d: mean stress %.4g Pa, size %.6g -> %.6g m\n", k, mean,
                before[k], after[k]);
        /* a still wall: its contact force balances stress times area */
        ck_assert_msg(fabs(mean - 100.0) < 2.0, "pair %d: %.4g Pa", k, mean);
        /* the sample closed the cell from 0.08 m, then stopped (creep of
         * a few micrometres over 0.4 s) */
        ck_assert_double_lt(after[k], 0.07);
        ck_assert_msg(fabs(after[k] - before[k]) < 5e-5, "pair %d still moves: %.3g m", k,
                      after[k] - before[k]);
    }
    motor_agrees(sum, n, "hydrostatic");
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* Smooth DEM: the walls move explicitly from the step's contact forces;
 * a smaller sample (the automatic step is about 10 us) and a looser bound
 * for its single steps' rattle, the mean as tight. */
START_TEST(hydrostatic_sample_carries_the_stress_dem)
{
    ndem_job *job = cell_job(DEM_SOLVER, 150, 1, "100, 100, 100", "null, null, null", 0, 1.6);
    ndem_sim *sim = test_sim(job);
    double sum[6] = {0, 0, 0, 0, 0, 0};
    long n = 0;
    run_to(sim, 1.6, 1.0, sum, &n);
    motor_agrees(sum, n, "hydrostatic (dem)");
    for (int k = 0; k < 3; k++) {
        fprintf(stderr, "hydrostatic (dem): pair %d: mean stress %.4g Pa\n", k, sum[k] / (double)n);
        ck_assert_msg(fabs(sum[k] / (double)n - 100.0) < 2.0, "pair %d: %.4g Pa", k,
                      sum[k] / (double)n);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- (b) a driven pair closes at its speed, the sides keep their stress ---- */

START_TEST(driven_pair_closes_at_its_speed)
{
    const double v = 0.01, t0 = 0.8;
    ndem_job *job = cell_job(NDEM_SOLVER, 200, 0.1, "100, 100, 100", "null, null, 0.01", t0, 1.4);
    ndem_sim *sim = test_sim(job);
    double s[3], z0[3], z[3], sum[6] = {0, 0, 0, 0, 0, 0};
    long n = 0;
    run_to(sim, t0, t0, NULL, NULL);
    walls_now(sim, s, z0);
    run_to(sim, 1.4, t0 + 0.1, sum, &n);
    walls_now(sim, s, z);
    double dt = sim->time - t0;
    fprintf(stderr,
            "driven: size_z %.6g -> %.6g m in %.3g s (want %.6g); sides %.4g %.4g Pa, "
            "top/bottom %.4g Pa\n",
            z0[2], z[2], dt, z0[2] - 2 * v * dt, sum[0] / (double)n, sum[1] / (double)n,
            sum[2] / (double)n);
    /* kinematic walls: size_z(t) = size_z(start) - 2 v (t - start) */
    ck_assert_double_eq_tol(z[2], z0[2] - 2.0 * v * dt, 1e-12);
    for (int k = 0; k < 2; k++)
        ck_assert_msg(fabs(sum[k] / (double)n - 100.0) < 5.0, "side %d: %.4g Pa", k,
                      sum[k] / (double)n);
    /* the sample resists: the driven pair carries more than the sides */
    ck_assert_double_gt(sum[2] / (double)n, 100.0);
    /* a driven (kinematic) wall's motor force is what holds its speed:
     * the contact force itself */
    ck_assert_double_eq_tol(sum[5] / (double)n, sum[2] / (double)n, 1e-9 * sum[2] / (double)n);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A driven pair's ramp: from `start` its speed grows linearly to
 * `velocity` over `ramp` (the speed at each step's midpoint), so the face
 * has moved v R / 2 by the ramp's end and v (t - start - R / 2) after it.
 * An empty cell without stress: nothing else moves. */
START_TEST(driven_pair_ramps_its_speed)
{
    const double v = 0.01, t0 = 0.1, R = 0.2, h = 0.005;
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", \"name\": \"cell\", "
        "\"inside\": true, \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"material\": \"steel\", "
        "\"walls\": {\"mass\": 100, \"stress\": [0, 0, 0], \"velocity\": [null, null, %g], "
        "\"start\": %g, \"ramp\": %g}}]}, \"solver\": {\"iterations\": 10, \"time_step\": %g, "
        "\"duration\": 1}}",
        v, t0, R, h);
    ndem_sim *sim = test_sim(job);
    const ndem_geometry_def *g = ndem_sim_geometry(sim, 0);
    const ndem_rigid_body *w = &sim->rigid->body[sim->rigid->first[0]];
    long n0 = lround(t0 / h), nr = lround(R / h);
    for (long i = 0; i < n0; i++) test_step(sim);
    ck_assert_double_eq(g->min[2], 0.0); /* still before start */
    for (long i = 0; i < nr; i++) {
        test_step(sim);
        /* the step's speed: v (i + 1/2) h / R, then the next's */
        double next = fmin(1.0, ((double)i + 1.5) * h / R);
        ck_assert_double_eq_tol(w[4].v[2], v * next, 1e-15);
        ck_assert_double_eq_tol(w[5].v[2], -v * next, 1e-15);
    }
    ck_assert_double_eq_tol(g->min[2], v * R / 2.0, 1e-15);
    ck_assert_double_eq_tol(g->max[2], 1.0 - v * R / 2.0, 1e-15);
    for (long i = 0; i < 40; i++) test_step(sim);
    ck_assert_double_eq_tol(g->min[2], v * R / 2.0 + v * 40.0 * h, 1e-14);
    for (int k = 0; k < 2; k++) {
        ck_assert_double_eq(g->min[k], 0.0);
        ck_assert_double_eq(g->max[k], 1.0);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- (c) an empty cell: Newton's second law ---- */

/* Walls of mass M under stress [S, 0, 0]: the x walls accelerate inward at
 * S A / M (A = 1 m^2, constant: the other walls stay), the others never
 * move; gravity does not pull walls. Symplectic Euler: after N steps
 * v = N h a, the face at h^2 a N (N + 1) / 2. */
static void check_empty(const char *method, double h)
{
    const double M = 50, S = 10, a = S * 1.0 / M;
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", \"name\": \"cell\", "
        "\"inside\": true, \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"material\": \"steel\", "
        "\"walls\": {\"mass\": %g, \"stress\": [%g, 0, 0]}}]}, \"solver\": {%s, \"time_step\": "
        "%g, \"duration\": 1}}",
        M, S, method, h);
    ndem_sim *sim = test_sim(job);
    const long N = 200;
    for (long i = 0; i < N; i++) test_step(sim);
    const ndem_geometry_def *g = ndem_sim_geometry(sim, 0);
    double x = h * h * a * (double)(N * (N + 1)) / 2.0;
    ck_assert_double_eq_tol(g->min[0], x, 1e-12);
    ck_assert_double_eq_tol(g->max[0], 1.0 - x, 1e-12);
    const ndem_rigid_body *w = &sim->rigid->body[sim->rigid->first[0]];
    ck_assert_double_eq_tol(w[0].v[0], (double)N * h * a, 1e-12);
    ck_assert_double_eq_tol(w[1].v[0], -(double)N * h * a, 1e-12);
    for (int k = 1; k < 3; k++) {
        ck_assert_double_eq(g->min[k], 0.0);
        ck_assert_double_eq(g->max[k], 1.0);
    }
    double s[3], z[3];
    walls_now(sim, s, z);
    ck_assert_double_eq_tol(z[0], 1.0 - 2.0 * x, 1e-12);
    for (int k = 0; k < 3; k++) ck_assert_double_eq(s[k], 0.0); /* no contacts */
    /* the walls' kinetic energy is the scene's: 2 x M v^2 / 2 */
    double v = (double)N * h * a;
    ck_assert_double_eq_tol(ndem_sim_stats(sim)->kinetic_energy, M * v * v, 1e-12);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(empty_cell_walls_accelerate_ndem) { check_empty("\"iterations\": 10", 0.001); }
END_TEST

START_TEST(empty_cell_walls_accelerate_dem) { check_empty("\"method\": \"dem\"", 0.001); }
END_TEST

/* A driven pair from start 0: the z walls close at exactly their speed and
 * the x walls' push shrinks with their area 1 x size_z(t) (x reaches 0.3
 * m/s: the speed cap is raised above it). */
START_TEST(driven_pair_shrinks_the_side_area)
{
    const double M = 10, S = 10, v = 0.1, h = 0.001;
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", \"name\": \"cell\", "
        "\"inside\": true, \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"material\": \"steel\", "
        "\"walls\": {\"mass\": %g, \"stress\": [%g, 0, 5], \"velocity\": [null, null, %g], "
        "\"max_speed\": 1}}]}, "
        "\"solver\": {\"time_step\": %g, \"duration\": 1}}",
        M, S, v, h);
    ndem_sim *sim = test_sim(job);
    double vx = 0, x = 0;
    for (long i = 0; i < 300; i++) {
        double area = 1.0 * (1.0 - 2.0 * v * (double)i * h); /* size_y size_z at step i */
        vx += h * S * area / M;
        x += h * vx;
        test_step(sim);
    }
    const ndem_geometry_def *g = ndem_sim_geometry(sim, 0);
    ck_assert_double_eq_tol(g->max[2] - g->min[2], 1.0 - 2.0 * v * 0.3, 1e-12);
    ck_assert_double_eq_tol(g->min[0], x, 1e-12);
    ck_assert_double_eq_tol(sim->rigid->body[sim->rigid->first[0]].v[0], vx, 1e-12);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The motor's brake: an empty cell's x walls under stress S accelerate at
 * S A / M until their inward speed reaches max_speed, then hold it exactly
 * (NDEM: the motor row at its bound; smooth DEM: the explicit cap). */
static void check_speed_cap(const char *method)
{
    const double M = 1, S = 10, cap = 0.05, h = 0.001, a = S / M;
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", \"name\": \"cell\", "
        "\"inside\": true, \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"material\": \"steel\", "
        "\"walls\": {\"mass\": %g, \"stress\": [%g, 0, 0], \"max_speed\": %g}}]}, \"solver\": "
        "{%s, \"time_step\": %g, \"duration\": 1}}",
        M, S, cap, method, h);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *w = &sim->rigid->body[sim->rigid->first[0]];
    double x = 0.0, v = 0.0;
    for (long i = 0; i < 100; i++) {
        test_step(sim);
        v = fmin(v + h * a, cap); /* 5 steps to the cap */
        x += h * v;
        ck_assert_double_eq_tol(w[0].v[0], v, 1e-12);
        ck_assert_double_eq_tol(w[1].v[0], -v, 1e-12);
    }
    ck_assert_double_eq(v, cap);
    ck_assert_double_eq_tol(ndem_sim_geometry(sim, 0)->min[0], x, 1e-12);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(wall_speed_is_capped_ndem) { check_speed_cap("\"iterations\": 10"); }
END_TEST

START_TEST(wall_speed_is_capped_dem) { check_speed_cap("\"method\": \"dem\""); }
END_TEST

/* An empty cell under stress closes until its walls meet: the run ends
 * there with an error naming the geometry and the axis. */
START_TEST(walls_that_meet_end_the_run)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", \"inside\": true, "
        "\"min\": [0, 0, 0], \"max\": [0.1, 1, 1], \"material\": \"steel\", \"walls\": "
        "{\"mass\": 1, \"stress\": [1, 0, 0], \"max_speed\": 1}}]}, \"solver\": {\"time_step\": "
        "0.001, \"duration\": 10}}");
    ndem_sim *sim = test_sim(job);
    ndem_status st = NDEM_OK;
    long steps = 0;
    /* a = 1 m/s^2 per wall: they meet at 0.05 m after sqrt(0.1) s, ~317 steps */
    while (st == NDEM_OK && steps < 1000) {
        st = ndem_sim_step(sim);
        steps++;
    }
    ck_assert_int_ne(st, NDEM_OK);
    ck_assert_msg(steps > 300 && steps < 330, "ended after %ld steps", steps);
    ck_assert_msg(strstr(ndem_sim_error(sim), "geometry 0: its walls normal to x met") != NULL,
                  "%s", ndem_sim_error(sim));
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A wall's rows see the wall's velocity (the box's pose has none): what
 * smooth DEM's dashpot and NDEM's impact stage read. */
START_TEST(wall_rows_move_with_their_wall)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"gravity\": [0, 0, 0], \"geometry\": [{\"type\": "
        "\"box\", \"inside\": true, \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"material\": "
        "\"steel\", \"walls\": {\"mass\": 1, \"stress\": [1, 1, 1]}}], \"particles\": "
        "[{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [[0.0099, 0.5, 0.5, "
        "0.01]]}]}, \"solver\": {\"time_step\": 0.001, \"duration\": 1}}");
    ndem_sim *sim = test_sim(job);
    test_step(sim);
    const ndem_contacts *c = &sim->contacts;
    int found = 0;
    for (long k = 0; k < c->count; k++) {
        ndem_contact_key key = c->key[k];
        if (ndem_key_is_particle(key) || key.feature != 0) continue;
        ndem_rigid_body *wall = &sim->rigid->body[sim->rigid->first[0]];
        wall->v[0] = 0.25;
        ndem_contact_geom geom;
        ndem_contact_geometry(sim, key, &geom);
        ck_assert_double_eq(geom.ug[0], 0.25);
        ck_assert_double_eq(geom.ug[1], 0.0);
        found = 1;
    }
    ck_assert_msg(found, "no row on the wall at min x");
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- (d) the parser: what and where ---- */

#define CELL "{'type': 'box', 'inside': true, 'min': [0, 0, 0], 'max': [1, 1, 1], "
#define W "/scene/geometry/0/walls"

START_TEST(walls_errors_name_their_pointer)
{
    test_geometry_error(CELL "'walls': {'stress': [1, 1, 1]}}", W "/mass", "required");
    test_geometry_error(CELL "'walls': {'mass': 0, 'stress': [1, 1, 1]}}", W "/mass", "positive");
    test_geometry_error(CELL "'walls': {'mass': 1}}", W "/stress", "required");
    test_geometry_error(CELL "'walls': {'mass': 1, 'stress': [1, -1, 1]}}", W "/stress/1", "");
    test_geometry_error(CELL "'walls': {'mass': 1, 'stress': [1, 1]}}", W "/stress", "");
    test_geometry_error(CELL
                        "'walls': {'mass': 1, 'stress': [1, 1, 1], 'velocity': [null, 'x', 1]}}",
                        W "/velocity/1", "number");
    test_geometry_error(CELL "'walls': {'mass': 1, 'stress': [1, 1, 1], 'velocity': [null, 1]}}",
                        W "/velocity", "");
    test_geometry_error(CELL "'walls': {'mass': 1, 'stress': [1, 1, 1], 'start': -1}}", W "/start",
                        "");
    test_geometry_error(CELL "'walls': {'mass': 1, 'stress': [1, 1, 1], 'ramp': -0.5}}", W "/ramp",
                        ">= 0");
    test_geometry_error(CELL "'walls': {'mass': 1, 'stress': [1, 1, 1], 'ramp': 'x'}}", W "/ramp",
                        "number");
    test_geometry_error(CELL "'walls': {'mass': 1, 'stress': [1, 1, 1], 'push': 1}}", W "/push",
                        "unknown");
    test_geometry_error(CELL "'walls': {'mass': 1, 'stress': [1, 1, 1], 'max_speed': 0}}",
                        W "/max_speed", "positive");
    test_geometry_error(CELL "'walls': 3}", W, "object");
    test_geometry_error("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'walls': {'mass': 1, "
                        "'stress': [1, 1, 1]}}",
                        W, "inside");
    test_geometry_error(
        "{'type': 'cylinder', 'inside': true, 'center': [0, 0, 0], 'axis': [0, 0, 1], "
        "'radius': 1, 'length': 1, 'walls': {'mass': 1, 'stress': [1, 1, 1]}}",
        W, "only a box");
    test_geometry_error(CELL "'walls': {'mass': 1, 'stress': [1, 1, 1]}, 'dynamic': {'mass': 1}}",
                        W, "\"dynamic\"");
    test_geometry_error(CELL "'walls': {'mass': 1, 'stress': [1, 1, 1]}, 'velocity': [0, 0, 1]}", W,
                        "\"velocity\"");
    test_geometry_error(CELL
                        "'walls': {'mass': 1, 'stress': [1, 1, 1]}, 'motion': {'velocity': [0, 0, "
                        "1]}}",
                        W, "\"motion\"");
}
END_TEST

/* The normalised document writes the walls back (null for a pair without
 * a velocity) and reads the same. */
START_TEST(walls_round_trip)
{
    ndem_job *job = parse_ok(DOC(", 'geometry': [" CELL "'name': 'cell', 'walls': {'mass': 100, "
                                 "'stress': [100, 100, 50], 'velocity': [null, null, 0.01], "
                                 "'start': 2, 'ramp': 0.5, 'max_speed': 0.02}}]"));
    const ndem_walls_def *w = &job->scene.geometry[0].walls;
    ck_assert(w->enabled);
    ck_assert_double_eq(w->mass, 100);
    ck_assert_double_eq(w->stress[2], 50);
    ck_assert(!w->driven[0] && !w->driven[1] && w->driven[2]);
    ck_assert_double_eq(w->velocity[2], 0.01);
    ck_assert_double_eq(w->start, 2);
    ck_assert_double_eq(w->max_speed, 0.02);
    ck_assert_double_eq(w->ramp, 0.5);
    char *text = ndem_job_to_json(job);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "\"velocity\": [null, null, 0.01]") != NULL, "%s", text);
    ndem_job *again = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(text, strlen(text), &again, &e), NDEM_JOB_OK);
    char *text2 = ndem_job_to_json(again);
    ck_assert_str_eq(text, text2);
    ck_assert(again->scene.geometry[0].walls.driven[2]);
    free(text);
    free(text2);
    ndem_job_destroy(again);
    ndem_job_destroy(job);
    /* without max_speed: the documented default */
    job = parse_ok(DOC(", 'geometry': [" CELL "'walls': {'mass': 1, 'stress': [1, 1, 1]}}]"));
    ck_assert_double_eq(job->scene.geometry[0].walls.max_speed, NDEM_WALLS_MAX_SPEED);
    ck_assert_double_eq(job->scene.geometry[0].walls.ramp, 0.0); /* at once */
    ndem_job_destroy(job);
}
END_TEST

/* ---- (e) checkpoints restore the walls bit for bit ---- */

START_TEST(checkpoint_restores_the_walls)
{
    /* across the start of the driven pair */
    ndem_job *job = cell_job(NDEM_SOLVER, 200, 1, "100, 100, 100", "null, null, 0.01", 0.2, 1);
    ndem_sim *a = test_sim(job);
    for (int i = 0; i < 180; i++) test_step(a);
    void *buf;
    size_t len;
    ck_assert_int_eq(ndem_sim_checkpoint(a, &buf, &len), 0);
    char err[256];
    ndem_sim *b = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(b != NULL, "%s", err);
    free(buf);
    for (int i = 0; i < 40; i++) {
        test_step(a);
        test_step(b);
    }
    ck_assert(ndem_sim_state_hash(a) == ndem_sim_state_hash(b));
    const ndem_geometry_def *ga = ndem_sim_geometry(a, 0), *gb = ndem_sim_geometry(b, 0);
    ck_assert(memcmp(ga->min, gb->min, sizeof ga->min) == 0);
    ck_assert(memcmp(ga->max, gb->max, sizeof ga->max) == 0);
    double sa[3], sb[3], za[3], zb[3];
    walls_now(a, sa, za);
    walls_now(b, sb, zb);
    ck_assert(memcmp(sa, sb, sizeof sa) == 0);
    for (int f = 0; f < 6; f++)
        ck_assert(memcmp(a->rigid->body[f].v, b->rigid->body[f].v, 3 * sizeof(double)) == 0);
    ndem_sim_destroy(a);
    ndem_sim_destroy(b);
    ndem_job_destroy(job);
}
END_TEST

/* ---- the series columns ---- */

START_TEST(walls_series_columns)
{
    ndem_job *job = cell_job(NDEM_SOLVER, 50, 1, "100, 100, 100", "null, null, null", 0, 1);
    ndem_series_cols cols;
    ck_assert_int_eq(ndem_series_cols_init(&cols, &job->scene), 0);
    char *header = ndem_series_header_of(&cols);
    ck_assert_ptr_nonnull(header);
    ck_assert_msg(strstr(header, "cell_fx,cell_fy,cell_fz,cell_tx,cell_ty,cell_tz,cell_stress_x,"
                                 "cell_stress_y,cell_stress_z,cell_size_x,cell_size_y,cell_size_z,"
                                 "cell_motor_stress_x,cell_motor_stress_y,cell_motor_stress_z,"
                                 "crc32c\n") != NULL,
                  "header: %s", header);
    ndem_sim *sim = test_sim(job);
    for (int i = 0; i < 100; i++) test_step(sim);
    ndem_series_cols_sample(&cols, sim);
    char row[2048];
    int n = ndem_series_row(row, sizeof row, ndem_sim_stats(sim), &cols);
    ck_assert(n > 0 && (size_t)n < sizeof row);
    ck_assert_int_eq(ndem_series_check_row(row, (size_t)n), 0);
    /* the last numbers before the checksum: size_z, then the motor
     * stresses */
    const char *p = row + n;
    for (int k = 0; k < 5; k++)
        while (p > row && *--p != ',') continue;
    double s[3], z[3], m[3];
    walls_now(sim, s, z);
    ck_assert_int_eq(ndem_sim_walls_motor(sim, 0, m), 0);
    ck_assert_double_eq_tol(strtod(p + 1, NULL), z[2], 1e-9);
    for (int k = 0; k < 3; k++) {
        while (*++p != ',') continue;
        ck_assert_double_eq_tol(strtod(p + 1, NULL), m[k], 1e-6 * fabs(m[k]));
    }
    ck_assert_double_lt(z[2], 0.08); /* the walls moved in */
    free(header);
    ndem_series_cols_free(&cols);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- frames (issue 13): the box's faces where the walls are ---- */

/* The empty cell of check_empty: after N steps the frame's extents are the
 * walls' faces from Newton's second law (min_x = h^2 a N (N + 1) / 2), so
 * that max - min is ndem_sim_walls' size and the series' size columns at
 * that step; the NDF1 record carries them exactly (bit 9) and so does the
 * JSON frame. A scene without walls has no extents. */
START_TEST(frames_carry_the_walls_faces)
{
    const double M = 50, S = 10, a = S / M, h = 0.001;
    const long N = 150;
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, "
        "-1], \"normal\": [0, 0, 1]}, {\"type\": \"box\", \"name\": \"cell\", \"inside\": true, "
        "\"min\": [0, 0, 0], \"max\": [1, 1, 1], \"material\": \"steel\", \"walls\": {\"mass\": "
        "%g, "
        "\"stress\": [%g, 0, 0]}}]}, \"solver\": {\"time_step\": %g, \"duration\": 1}}",
        M, S, h);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < N; i++) test_step(sim);
    ndem_frame f;
    ck_assert_int_eq(ndem_sim_copy_motion(sim, &f), 0);
    ck_assert_ptr_nonnull(f.geometry_extents);
    ck_assert(isnan(f.geometry_extents[0])); /* the plane has no walls */
    const double *e = f.geometry_extents + 6, x = h * h * a * (double)(N * (N + 1)) / 2.0;
    ck_assert_double_eq_tol(e[0], x, 1e-12);
    ck_assert_double_eq_tol(e[3], 1.0 - x, 1e-12);
    double stress[3], size[3];
    ck_assert_int_eq(ndem_sim_walls(sim, 1, stress, size), 0);
    for (int k = 0; k < 3; k++) ck_assert_double_eq(e[3 + k] - e[k], size[k]);
    /* the series row of this step: its size columns */
    ndem_series_cols cols;
    ck_assert_int_eq(ndem_series_cols_init(&cols, &job->scene), 0);
    ndem_series_cols_sample(&cols, sim);
    char row[2048];
    int n = ndem_series_row(row, sizeof row, ndem_sim_stats(sim), &cols);
    const char *p = row + n;
    for (int k = 0; k < 7; k++)
        while (p > row && *--p != ',') continue;
    for (int k = 0; k < 3; k++) { /* size_x, size_y, size_z */
        ck_assert_double_eq_tol(strtod(p + 1, NULL), e[3 + k] - e[k], 1e-9);
        p = strchr(p + 1, ',');
    }
    /* the motor stresses: no contact, so the motors alone accelerate the
     * walls, M a / A = S on the x pair (the contact stress is zero) */
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq_tol(strtod(p + 1, NULL), k == 0 ? S : 0.0, 1e-9);
        ck_assert_double_eq(stress[k], 0.0);
        p = strchr(p + 1, ',');
    }
    ndem_series_cols_free(&cols);
    /* bit 9: the doubles exactly */
    size_t len = ndem_frame_bin_size(&f, NDEM_FRAME_ALL);
    unsigned char *buf = malloc(len);
    ndem_frame_bin_encode(&f, 0, NDEM_FRAME_ALL, buf);
    uint32_t fields;
    memcpy(&fields, buf + 32, 4);
    ck_assert_uint_eq(fields, 127 | NDEM_FRAME_EXTENTS);
    ndem_frame g;
    long index;
    ck_assert_int_eq(ndem_frame_bin_decode(buf, len, &g, &index), 0);
    ck_assert_mem_eq(g.geometry_extents + 6, e, 6 * sizeof(double));
    ck_assert(isnan(g.geometry_extents[0]));
    char *json = ndem_frame_to_json(&g, 0, NULL);
    cJSON *doc = cJSON_Parse(json),
          *cell = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "geometry"), 1);
    ck_assert_double_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(cell, "min"), 0)->valuedouble, e[0]);
    ck_assert_double_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(cell, "max"), 0)->valuedouble, e[3]);
    cJSON_Delete(doc);
    free(json);
    ndem_frame_free(&g);
    free(buf);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    /* no walls, no extents: the record of earlier versions */
    job =
        test_job("{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", \"inside\": "
                 "true, \"min\": [0, 0, 0], \"max\": [1, 1, 1]}]}, \"solver\": {\"time_step\": "
                 "0.001, \"duration\": 1}}");
    sim = test_sim(job);
    ck_assert_int_eq(ndem_sim_copy_motion(sim, &f), 0);
    ck_assert_ptr_null(f.geometry_extents);
    ck_assert_uint_eq(ndem_frame_bin_fields(&f, NDEM_FRAME_ALL), 127);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The engine refuses walls on anything but a still inside box. */
START_TEST(engine_refuses_bad_walls)
{
    ndem_job *job = cell_job(NDEM_SOLVER, 10, 1, "100, 100, 100", "null, null, null", 0, 1);
    ndem_scene_def scene = job->scene;
    ndem_geometry_def g = scene.geometry[0];
    scene.geometry = &g;
    char err[256];
    g.inside = 0;
    ck_assert_ptr_null(ndem_sim_create(&scene, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "inside"));
    g.inside = 1;
    g.walls.mass = 0;
    ck_assert_ptr_null(ndem_sim_create(&scene, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "mass"));
    g.walls.mass = 1;
    g.walls.ramp = -1;
    ck_assert_ptr_null(ndem_sim_create(&scene, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "ramp"));
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("walls");
    TCase *tc = tcase_create("walls");
    tcase_add_test(tc, hydrostatic_sample_carries_the_stress);
    tcase_add_test(tc, hydrostatic_sample_carries_the_stress_dem);
    tcase_add_test(tc, driven_pair_closes_at_its_speed);
    tcase_add_test(tc, driven_pair_ramps_its_speed);
    tcase_add_test(tc, empty_cell_walls_accelerate_ndem);
    tcase_add_test(tc, empty_cell_walls_accelerate_dem);
    tcase_add_test(tc, driven_pair_shrinks_the_side_area);
    tcase_add_test(tc, wall_speed_is_capped_ndem);
    tcase_add_test(tc, wall_speed_is_capped_dem);
    tcase_add_test(tc, walls_that_meet_end_the_run);
    tcase_add_test(tc, wall_rows_move_with_their_wall);
    tcase_add_test(tc, walls_errors_name_their_pointer);
    tcase_add_test(tc, walls_round_trip);
    tcase_add_test(tc, checkpoint_restores_the_walls);
    tcase_add_test(tc, walls_series_columns);
    tcase_add_test(tc, frames_carry_the_walls_faces);
    tcase_add_test(tc, engine_refuses_bad_walls);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
