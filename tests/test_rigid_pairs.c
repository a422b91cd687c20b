/* test_rigid_pairs.c - two dynamic bodies under NDEM (issue 13; core/
 * rigid_contact.c, the pairs of two bodies: their polyhedra through the
 * shapes' narrow phase, general rows on both bodies' velocities; docs/
 * engine.md "Body against geometry"): a box dropped on a resting box comes
 * to rest on it with each load its weight's share; two boxes colliding in
 * free flight keep the pair's momentum and part at the pair's e; 1 and 2
 * threads give the same bits. Before, the two passed through each other. */
#include <check.h>

#include "job.h"
#include "rigid.h"
#include "rigid_scenes.h"
#include "scene.h"
#include "sim.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MATS                                                                                       \
    "\"materials\": [{\"name\": \"steel\", \"density\": 7800, \"young_modulus\": 2e11},"           \
    " {\"name\": \"wood\", \"density\": 700, \"young_modulus\": 1e9}], \"contact_materials\": "    \
    "[{\"materials\": [\"steel\", \"wood\"], \"restitution\": 0.5, \"friction\": 0.5}, "           \
    "{\"materials\": [\"wood\", \"wood\"], \"restitution\": %g, \"friction\": 0.5}]"

/* A steel floor (plane z = 0); a 10 x 10 x 2 cm wood box of 1 kg lying on
 * it; a second one, 8 x 8 x 2 cm and 1 kg, its bottom 1 cm above the
 * first's top, dropped at 1 m/s. */
static ndem_job *stack_job(int threads)
{
    return test_job(
        "{\"scene\": {" MATS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1], \"material\": \"steel\"}, {\"type\": \"box\", \"min\": [-0.05, "
        "-0.05, 0], \"max\": [0.05, 0.05, 0.02], \"material\": \"wood\", \"dynamic\": {\"mass\": "
        "1}}, {\"type\": \"box\", \"min\": [-0.04, -0.04, 0.03], \"max\": [0.04, 0.04, 0.05], "
        "\"material\": \"wood\", \"dynamic\": {\"mass\": 1, \"velocity\": [0, 0, -1]}}], "
        "\"particles\": []}, \"solver\": {\"time_step\": 2e-4, \"duration\": 1, \"threads\": %d}}",
        0.3, threads);
}

/* The stack 0.6 s after the drop: both at rest (|v|, |w| under 1e-4), the
 * top box's bottom on the lower's top (1e-4 m), the top box carried by
 * the lower (its load + m g within 1%), the floor carrying both (its load
 * -2 m g within 1%). */
START_TEST(box_dropped_on_a_box_rests_with_the_stack_weight)
{
    ndem_job *job = stack_job(1);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *low = test_body_of(sim, 1), *top = test_body_of(sim, 2);
    int met = 0;
    for (int i = 0; i < 3000; i++) {
        test_step(sim);
        double f[3], t[3];
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 2, f, t), 0);
        met |= f[2] > 0;
    }
    double g = -sim->gravity[2], f0[3], f2[3], t[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f0, t), 0);
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 2, f2, t), 0);
    double gap = (sim->pose[2].to[2] - 0.01) - (sim->pose[1].to[2] + 0.01);
    fprintf(stderr,
            "stack: floor %.6g N (2 m g %.6g), top box %.6g N (m g %.6g), gap %.3g m, |v| %.3g "
            "%.3g, |w| %.3g %.3g\n",
            f0[2], 2 * g, f2[2], g, gap, ndem_norm(low->v), ndem_norm(top->v), ndem_norm(low->w),
            ndem_norm(top->w));
    ck_assert(met);
    ck_assert_msg(fabs(f2[2] - g) < 0.01 * g, "top load %g", f2[2]);
    ck_assert_msg(fabs(-f0[2] - 2 * g) < 0.01 * 2 * g, "floor load %g", f0[2]);
    ck_assert_double_lt(fabs(gap), 1e-4);
    ck_assert_double_lt(fabs(sim->pose[1].to[2] - 0.01), 1e-4);
    ck_assert_double_lt(ndem_norm(top->v), 1e-4);
    ck_assert_double_lt(ndem_norm(low->v), 1e-4);
    ck_assert_double_lt(ndem_norm(top->w), 1e-4);
    ck_assert_double_lt(ndem_norm(low->w), 1e-4);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* Without gravity a 1 kg box at 2 m/s along x meets a 3 kg box at rest
 * face to face, the second's centre `off` to the side in y, until they
 * part. Returns both bodies' velocities along x and their spins; fails
 * unless the pair's momentum stayed to 1e-9 of m1 v. */
static void flight(double off, double e, double v1[2], double w[2])
{
    const double v = 2.0, m1 = 1.0, m2 = 3.0;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], " MATS ", \"geometry\": [{\"type\": \"box\", "
        "\"min\": [-0.05, -0.05, -0.01], \"max\": [0.05, 0.05, 0.01], \"material\": \"wood\", "
        "\"dynamic\": {\"mass\": %g, \"velocity\": [%g, 0, 0]}}, {\"type\": \"box\", \"min\": "
        "[0.0511, %.17g, -0.01], \"max\": [0.1511, %.17g, 0.01], \"material\": \"wood\", "
        "\"dynamic\": {\"mass\": %g}}], \"particles\": []}, \"solver\": {\"time_step\": 2e-4, "
        "\"duration\": 1}}",
        e, m1, v, off - 0.05, off + 0.05, m2);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *a = test_body_of(sim, 0), *b = test_body_of(sim, 1);
    double p0[3];
    for (int q = 0; q < 3; q++) p0[q] = m1 * a->v[q] + m2 * b->v[q];
    int met = 0, apart = 0;
    for (int i = 0; i < 200 && apart < 5; i++) { /* on 5 steps past the last touch */
        test_step(sim);
        double f[3], t[3];
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 1, f, t), 0);
        met |= f[0] != 0;
        apart = met && f[0] == 0 ? apart + 1 : 0;
    }
    double dp = 0;
    for (int q = 0; q < 3; q++) dp = fmax(dp, fabs(m1 * a->v[q] + m2 * b->v[q] - p0[q]));
    fprintf(stderr, "flight off %g: v1 %.9f, v2 %.9f, |dp| %.3g, |w| %.3g %.3g\n", off, a->v[0],
            b->v[0], dp, ndem_norm(a->w), ndem_norm(b->w));
    ck_assert(met);
    ck_assert_msg(dp < 1e-9 * m1 * v, "momentum changed by %g", dp);
    v1[0] = a->v[0], v1[1] = b->v[0];
    w[0] = ndem_norm(a->w), w[1] = ndem_norm(b->w);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

/* Centred (off 0): no turn (|w| < 1e-9), and Newton's law on the pair
 * gives the centres v1' = (m1 - e m2) v / (m1 + m2) and v2' = (1 + e) m1 v
 * / (m1 + m2) (e 0.6: -0.4 and 0.8 m/s) within 2% of v2'. Off centre by 2
 * cm: both turn, the momentum still holds (flight's check). */
START_TEST(boxes_colliding_in_flight_keep_momentum)
{
    const double e = 0.6, v = 2.0, m1 = 1.0, m2 = 3.0;
    double u[2], w[2];
    flight(0.0, e, u, w);
    double want1 = (m1 - e * m2) * v / (m1 + m2), want2 = (1 + e) * m1 * v / (m1 + m2);
    fprintf(stderr, "centred: want v1 %.6f, v2 %.6f\n", want1, want2);
    ck_assert_msg(fabs(u[1] - want2) < 0.02 * want2, "v2 %g, want %g", u[1], want2);
    ck_assert_msg(fabs(u[0] - want1) < 0.02 * want2, "v1 %g, want %g", u[0], want1);
    ck_assert_double_lt(w[0] + w[1], 1e-9);
    flight(0.02, e, u, w);
    ck_assert_double_gt(w[0], 1e-3);
    ck_assert_double_gt(w[1], 1e-3);
}
END_TEST

/* A kinematic solid box moving at 1 m/s along x (infinite mass) meets a
 * dynamic box at rest without gravity: it leaves at (1 + e) times the
 * kinematic box's speed within 2% (Newton's law against a moving wall),
 * without turning. */
START_TEST(kinematic_box_pushes_a_body)
{
    const double e = 0.6, v = 2.0;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], " MATS ", \"geometry\": [{\"type\": \"box\", "
        "\"min\": [-0.05, -0.05, -0.01], \"max\": [0.05, 0.05, 0.01], \"material\": \"wood\", "
        "\"velocity\": [%g, 0, 0]}, {\"type\": \"box\", \"min\": [0.0511, -0.05, -0.01], "
        "\"max\": [0.1511, 0.05, 0.01], \"material\": \"wood\", \"dynamic\": {\"mass\": 1}}], "
        "\"particles\": []}, \"solver\": {\"time_step\": 2e-4, \"duration\": 1}}",
        e, v);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *b = test_body_of(sim, 1);
    for (int i = 0; i < 100 && b->v[0] <= v; i++) test_step(sim);
    fprintf(stderr, "kinematic push: v %.9f (want %.6f), |w| %.3g\n", b->v[0], (1 + e) * v,
            ndem_norm(b->w));
    ck_assert_msg(fabs(b->v[0] - (1 + e) * v) < 0.02 * (1 + e) * v, "v %g", b->v[0]);
    ck_assert_double_lt(ndem_norm(b->w), 1e-9);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The drop onto the box and its first rebounds on 1 and 2 threads: the
 * same bits of both bodies and the loads. */
START_TEST(one_and_two_threads_give_the_same_bits)
{
    ndem_job *j1 = stack_job(1), *j2 = stack_job(2);
    ndem_sim *a = test_sim(j1), *b = test_sim(j2);
    for (int i = 0; i < 600; i++) {
        test_step(a);
        test_step(b);
        for (int g = 0; g < 3; g++) {
            double fa[3], fb[3], ta[3], tb[3];
            ck_assert_int_eq(ndem_sim_geometry_load(a, g, fa, ta), 0);
            ck_assert_int_eq(ndem_sim_geometry_load(b, g, fb, tb), 0);
            ck_assert(memcmp(fa, fb, sizeof fa) == 0);
            ck_assert(memcmp(ta, tb, sizeof ta) == 0);
        }
    }
    test_same_bodies_then_free(a, b, 1, 2, j1, j2);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("rigid_pairs");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, box_dropped_on_a_box_rests_with_the_stack_weight);
    tcase_add_test(tc, boxes_colliding_in_flight_keep_momentum);
    tcase_add_test(tc, kinematic_box_pushes_a_body);
    tcase_add_test(tc, one_and_two_threads_give_the_same_bits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(suite()); }
