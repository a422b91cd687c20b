/* test_rigid_pairs.c - two dynamic bodies under NDEM (issue 13; core/
 * rigid_contact.c, the pairs of two bodies: their polyhedra through the
 * shapes' narrow phase, general rows on both bodies' velocities; docs/
 * engine.md "Body against geometry"): a box dropped on a resting box comes
 * to rest on it with each load its weight's share; two boxes colliding in
 * free flight keep the pair's momentum and part at the pair's e; 1 and 2
 * threads give the same bits. Before, the two passed through each other. */
#include <check.h>

#include "crc32c.h"
#include "job.h"
#include "rigid.h"
#include "rigid_contact.h"
#include "rigid_contact_private.h"
#include "rigid_scenes.h"
#include "scene.h"
#include "sim.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MATS                                                                                       \
    "\"materials\": [{\"name\": \"steel\", \"density\": 7800, \"young_modulus\": 2e11},"           \
    " {\"name\": \"wood\", \"density\": 700, \"young_modulus\": 1e9}], \"contact_materials\": "    \
    "[{\"materials\": [\"steel\", \"wood\"], \"restitution\": 0.5, \"friction\": 0.5}, "           \
    "{\"materials\": [\"wood\", \"wood\"], \"restitution\": %g, \"friction\": 0.5}]"

/* The two solvers' members: NDEM, and smooth DEM (hertz) at a step of
 * over 100 per contact of the 1 m/s drop (test_rigid_contact's). */
#define PAIR_NDEM_H 2e-4
#define PAIR_DEM_H 1e-5
#define PAIR_NDEM "\"time_step\": 2e-4"
#define PAIR_DEM "\"method\": \"dem\", \"contact_model\": \"hertz\", \"time_step\": 1e-5"

/* A steel floor (plane z = 0); a 10 x 10 x 2 cm wood box of 1 kg lying on
 * it; a second one, 8 x 8 x 2 cm and 1 kg, its bottom 1 cm above the
 * first's top, dropped at 1 m/s (sliding at vx). */
static ndem_job *stack_job(const char *solver, double vx, int threads)
{
    return test_job(
        "{\"scene\": {" MATS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1], \"material\": \"steel\"}, {\"type\": \"box\", \"min\": [-0.05, "
        "-0.05, 0], \"max\": [0.05, 0.05, 0.02], \"material\": \"wood\", \"dynamic\": {\"mass\": "
        "1}}, {\"type\": \"box\", \"min\": [-0.04, -0.04, 0.03], \"max\": [0.04, 0.04, 0.05], "
        "\"material\": \"wood\", \"dynamic\": {\"mass\": 1, \"velocity\": [%g, 0, -1]}}], "
        "\"particles\": []}, \"solver\": {%s, \"duration\": 1, \"threads\": %d}}",
        0.3, vx, solver, threads);
}

/* The stack 0.6 s after the drop: both at rest (|v|, |w| under v_rest),
 * the top box's bottom on the lower's top and the lower's on the floor
 * (within gap: NDEM's rows hold them exactly, smooth DEM's springs
 * overlap by micrometres), the top box carried by the lower (its load + m
 * g within 1%), the floor carrying both (its load -2 m g within 1%). */
static void check_stack(const char *solver, double h, double gap_tol, double v_rest)
{
    ndem_job *job = stack_job(solver, 0.0, 1);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *low = test_body_of(sim, 1), *top = test_body_of(sim, 2);
    int met = 0;
    for (long i = 0; i < lround(0.6 / h); i++) {
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
            "stack (%s): floor %.6g N (2 m g %.6g), top box %.6g N (m g %.6g), gap %.3g m, "
            "|v| %.3g %.3g, |w| %.3g %.3g\n",
            solver, f0[2], 2 * g, f2[2], g, gap, ndem_norm(low->v), ndem_norm(top->v),
            ndem_norm(low->w), ndem_norm(top->w));
    ck_assert(met);
    ck_assert_msg(fabs(f2[2] - g) < 0.01 * g, "top load %g", f2[2]);
    ck_assert_msg(fabs(-f0[2] - 2 * g) < 0.01 * 2 * g, "floor load %g", f0[2]);
    ck_assert_double_lt(fabs(gap), gap_tol);
    ck_assert_double_lt(fabs(sim->pose[1].to[2] - 0.01), gap_tol);
    ck_assert_double_lt(ndem_norm(top->v), v_rest);
    ck_assert_double_lt(ndem_norm(low->v), v_rest);
    ck_assert_double_lt(ndem_norm(top->w), v_rest);
    ck_assert_double_lt(ndem_norm(low->w), v_rest);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(box_dropped_on_a_box_rests_with_the_stack_weight)
{
    check_stack(PAIR_NDEM, PAIR_NDEM_H, 1e-4, 1e-4);
}
END_TEST

/* Smooth DEM: the same stack on the pair's hertz law at each point (the
 * overlaps are micrometres: Hertz at 1e9 Pa under 10-20 N). Before, the
 * top box fell through the lower one. */
START_TEST(dem_box_dropped_on_a_box_rests_with_the_stack_weight)
{
    check_stack(PAIR_DEM, PAIR_DEM_H, 1e-4, 1e-4);
}
END_TEST

/* Without gravity a 1 kg box at 2 m/s along x meets a 3 kg box at rest
 * face to face, the second's centre `off` to the side in y, until they
 * part. Returns both bodies' velocities along x and their spins; fails
 * unless the pair's momentum stayed to 1e-9 of m1 v. */
/* The angular momentum about the origin's z axis of body bd (geometry g,
 * mass m) turning about z only (the flight's boxes, flat in z). */
static double spin_z(const ndem_sim *sim, const ndem_rigid_body *bd, int g, double m)
{
    const double *c = sim->pose[g].to;
    return bd->inertia[8] * bd->w[2] + m * (c[0] * bd->v[1] - c[1] * bd->v[0]);
}

static void flight(const char *solver, double off, double e, double v1[2], double w[2])
{
    const double v = 2.0, m1 = 1.0, m2 = 3.0;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], " MATS ", \"geometry\": [{\"type\": \"box\", "
        "\"min\": [-0.05, -0.05, -0.01], \"max\": [0.05, 0.05, 0.01], \"material\": \"wood\", "
        "\"dynamic\": {\"mass\": %g, \"velocity\": [%g, 0, 0]}}, {\"type\": \"box\", \"min\": "
        "[0.0511, %.17g, -0.01], \"max\": [0.1511, %.17g, 0.01], \"material\": \"wood\", "
        "\"dynamic\": {\"mass\": %g}}], \"particles\": []}, \"solver\": {%s, "
        "\"duration\": 1}}",
        e, m1, v, off - 0.05, off + 0.05, m2, solver);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *a = test_body_of(sim, 0), *b = test_body_of(sim, 1);
    double p0[3], l0 = spin_z(sim, a, 0, m1) + spin_z(sim, b, 1, m2);
    for (int q = 0; q < 3; q++) p0[q] = m1 * a->v[q] + m2 * b->v[q];
    int met = 0, apart = 0;
    for (int i = 0; i < 20000 && apart < 5; i++) { /* on 5 steps past the last touch */
        test_step(sim);
        double f[3], t[3];
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 1, f, t), 0);
        met |= f[0] != 0;
        apart = met && f[0] == 0 ? apart + 1 : 0;
    }
    double dp = 0;
    for (int q = 0; q < 3; q++) dp = fmax(dp, fabs(m1 * a->v[q] + m2 * b->v[q] - p0[q]));
    double dl = spin_z(sim, a, 0, m1) + spin_z(sim, b, 1, m2) - l0;
    fprintf(stderr, "flight (%s) off %g: v1 %.9f, v2 %.9f, |dp| %.3g, dL %.3g, w %.6g %.6g\n",
            solver, off, a->v[0], b->v[0], dp, dl, a->w[2], b->w[2]);
    ck_assert(met);
    ck_assert_msg(dp < 1e-9 * m1 * v, "momentum changed by %g", dp);
    ck_assert_msg(fabs(dl) < 1e-9 * m1 * v * 0.1, "angular momentum changed by %g", dl);
    v1[0] = a->v[0], v1[1] = b->v[0];
    w[0] = ndem_norm(a->w), w[1] = ndem_norm(b->w);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

/* Centred (off 0): no turn (|w| < 1e-9), and Newton's law on the pair
 * gives the centres v1' = (m1 - e m2) v / (m1 + m2) and v2' = (1 + e) m1 v
 * / (m1 + m2) (e 0.6: -0.4 and 0.8 m/s) within 2% of v2'. Off centre by 2
 * cm: both turn, the momentum still holds (flight's check). Smooth DEM's
 * hertz law gives e for a sphere; the four corners of the face land in one
 * step and share the pair's reduced mass and stiffness, each a sphere's law
 * on a quarter of both, so the face parts at e too (the 2% of
 * test_rigid_contact's flat drop). */
static void check_flight(const char *solver)
{
    const double e = 0.6, v = 2.0, m1 = 1.0, m2 = 3.0;
    double u[2], w[2];
    flight(solver, 0.0, e, u, w);
    double want1 = (m1 - e * m2) * v / (m1 + m2), want2 = (1 + e) * m1 * v / (m1 + m2);
    fprintf(stderr, "centred: want v1 %.6f, v2 %.6f\n", want1, want2);
    ck_assert_msg(fabs(u[1] - want2) < 0.02 * want2, "v2 %g, want %g", u[1], want2);
    ck_assert_msg(fabs(u[0] - want1) < 0.02 * want2, "v1 %g, want %g", u[0], want1);
    ck_assert_double_lt(w[0] + w[1], 1e-9);
    flight(solver, 0.02, e, u, w);
    ck_assert_double_gt(w[0], 1e-3);
    ck_assert_double_gt(w[1], 1e-3);
}

START_TEST(boxes_colliding_in_flight_keep_momentum) { check_flight(PAIR_NDEM); }
END_TEST

START_TEST(dem_boxes_colliding_in_flight_keep_momentum) { check_flight(PAIR_DEM); }
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
static void check_threads(const char *solver, int steps)
{
    ndem_job *j1 = stack_job(solver, 0.0, 1), *j2 = stack_job(solver, 0.0, 2);
    ndem_sim *a = test_sim(j1), *b = test_sim(j2);
    int touched = 0;
    for (int i = 0; i < steps; i++) {
        test_step(a);
        test_step(b);
        for (int g = 0; g < 3; g++) {
            double fa[3], fb[3], ta[3], tb[3];
            ck_assert_int_eq(ndem_sim_geometry_load(a, g, fa, ta), 0);
            ck_assert_int_eq(ndem_sim_geometry_load(b, g, fb, tb), 0);
            ck_assert(memcmp(fa, fb, sizeof fa) == 0);
            ck_assert(memcmp(ta, tb, sizeof ta) == 0);
            touched |= g == 2 && fa[2] != 0;
        }
    }
    ck_assert(touched);
    test_same_bodies_then_free(a, b, 1, 2, j1, j2);
}

START_TEST(one_and_two_threads_give_the_same_bits) { check_threads(PAIR_NDEM, 600); }
END_TEST

/* Smooth DEM: the top box lands about 1000 steps in; 3000 steps. */
START_TEST(dem_one_and_two_threads_give_the_same_bits) { check_threads(PAIR_DEM, 3000); }
END_TEST

/* Smooth DEM, the top box landing while sliding at 0.2 m/s (its points'
 * springs stretched: it bounces twice, the springs turn it back, and 0.17 s in it
 * rests on them, ringing by millimetres a second): checkpoint, restore,
 * 2000 steps more; the same bits of both bodies as never stopping (format
 * 9 keeps the two bodies' springs). The same checkpoint made format 8 (the
 * two bodies' section out, the version 8, the CRC anew) still restores,
 * those springs afresh: its bits then differ from never stopping. */
START_TEST(dem_checkpoint_keeps_the_two_bodies_springs)
{
    ndem_job *job = stack_job(PAIR_DEM, 0.2, 1);
    ndem_sim *a = test_sim(job);
    for (int i = 0; i < 17000; i++) test_step(a);
    size_t entries = ndem_rcontact_dem_body_entries(a);
    ck_assert_uint_eq(entries, 1); /* the top box on the lower, touching */
    void *buf;
    size_t len;
    ndem_sim *b = test_checkpoint_restore(a, job, 9, &buf, &len);
    uint32_t version;
    char err[256];
    /* format 8: the body section (last before the CRC) out */
    size_t section = 8 + entries * NDEM_RC_BODY_ENTRY * sizeof(double), len8 = len - section;
    unsigned char *old = malloc(len8);
    ck_assert_ptr_nonnull(old);
    memcpy(old, buf, len8 - 4);
    version = 8;
    memcpy(old + 8, &version, 4);
    uint32_t crc = ndem_crc32c(0, old, len8 - 4);
    memcpy(old + len8 - 4, &crc, 4);
    ndem_sim *c = ndem_sim_restore(&job->scene, old, len8, err, sizeof err);
    ck_assert_msg(c != NULL, "format 8: %s", err);
    ck_assert_uint_eq(ndem_rcontact_dem_body_entries(c), 0);
    free(buf);
    free(old);
    for (int i = 0; i < 2000; i++) {
        test_step(a);
        test_step(b);
        test_step(c);
    }
    fprintf(stderr, "dem checkpoint: top x %.12g, restored %.12g, format 8 %.12g\n",
            a->pose[2].to[0], b->pose[2].to[0], c->pose[2].to[0]);
    test_same_body(a, b, 1);
    test_same_body(a, b, 2);
    ck_assert(memcmp(a->pose[2].to, c->pose[2].to, 3 * sizeof(double)) != 0);
    ndem_sim_destroy(a);
    ndem_sim_destroy(b);
    ndem_sim_destroy(c);
    ndem_job_destroy(job);
}
END_TEST

/* The broad phase of two bodies (core/rigid_broad.c) on a random cloud of
 * 2000 spheres (centres in a 1 m cube, radii 5 mm to 4 cm, every 7th left
 * out with a negative radius): exactly the pairs of the n^2 test |x_i -
 * x_j| <= r_i + r_j, in (i, j) order; twice the same. */
START_TEST(broad_phase_finds_the_pairs_of_the_n2_test)
{
    enum { N = 2000 };
    static double x[3 * N], r[N];
    unsigned long long s = 12345;
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 4; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(s >> 11) / 9007199254740992.0;
            if (k < 3) x[3 * i + k] = u;
            else r[i] = i % 7 == 3 ? -1.0 : 0.005 + 0.035 * u;
        }
    }
    int *pairs = NULL;
    long cap = 0, n = ndem_rc_sweep_pairs(x, r, N, &pairs, &cap);
    long want = 0;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N && r[i] >= 0; j++) {
            if (r[j] < 0) continue;
            double d[3] = {x[3 * j] - x[3 * i], x[3 * j + 1] - x[3 * i + 1],
                           x[3 * j + 2] - x[3 * i + 2]};
            if (ndem_norm(d) > r[i] + r[j]) continue;
            ck_assert_int_lt(want, n);
            ck_assert_int_eq(pairs[2 * want], i);
            ck_assert_int_eq(pairs[2 * want + 1], j);
            want++;
        }
    fprintf(stderr, "broad phase: %ld pairs of %d spheres (n^2 test: %ld)\n", n, N, want);
    ck_assert_int_eq(n, want);
    ck_assert_int_gt(n, 500);
    int *again = NULL;
    long cap2 = 0;
    ck_assert_int_eq(ndem_rc_sweep_pairs(x, r, N, &again, &cap2), n);
    ck_assert(memcmp(pairs, again, 2 * (size_t)n * sizeof(int)) == 0);
    free(pairs);
    free(again);
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
    tcase_add_test(tc, dem_box_dropped_on_a_box_rests_with_the_stack_weight);
    tcase_add_test(tc, dem_boxes_colliding_in_flight_keep_momentum);
    tcase_add_test(tc, dem_one_and_two_threads_give_the_same_bits);
    tcase_add_test(tc, dem_checkpoint_keeps_the_two_bodies_springs);
    tcase_add_test(tc, broad_phase_finds_the_pairs_of_the_n2_test);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(suite()); }
