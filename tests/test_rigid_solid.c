/* test_rigid_solid.c - a dynamic body on a solid static cylinder (issue 13;
 * core/rigid_contact.c's solid_points, the cylinder as the prism of its
 * 16-gon rims, a ridge on top; docs/engine.md "Body against geometry"),
 * under NDEM and smooth DEM: a box dropped flat on a lying cylinder's top
 * (a line contact, two points symmetric about its centre of mass) leaves
 * at the pair's e, and a box resting there loads the cylinder with m g. */
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

#define E_PAIR 0.5
#define R_CYL 0.05
#define V0 2.0 /* above NDEM's v_imp at h 2e-4 (0.02 d / h = 1 m/s) */

/* A steel cylinder (radius 5 cm, 30 cm long) lying along y, its top line
 * at z = 0; a 10 x 10 x 2 cm wood box of 1 kg centred above it, its bottom
 * gap above the top, falling at v0. */
static ndem_job *cylinder_job(const char *solver, double gz, double gap, double v0)
{
    char cylinder[160];
    snprintf(cylinder, sizeof cylinder,
             "{\"type\": \"cylinder\", \"center\": [0, 0, %g], \"axis\": [0, 1, 0], \"radius\": "
             "%g, \"length\": 0.3, \"material\": \"steel\"}",
             -R_CYL, R_CYL);
    return test_wood_box_job(cylinder, gz, E_PAIR, 0.5, gap, gap + 0.02, v0, solver);
}

/* Flying at V0 without gravity onto the top line: the two points land
 * together, symmetric about the centre of mass, so the box leaves at e v0
 * within 2% (NDEM: Newton's law of the impact stage; smooth DEM: the
 * point law on half the mass each, about 100 steps a contact), without
 * turning (|w| < 1e-6 rad/s). The old code let it through the cylinder
 * (it never came back up). */
static void check_rebound(const char *solver, long max_steps)
{
    ndem_job *job = cylinder_job(solver, 0.0, 0.0011, -V0);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *bd = test_body_of(sim, 1);
    long touched = 0;
    for (long i = 0; i < max_steps; i++) { /* until it is apart again */
        double f[3], t[3];
        test_step(sim);
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
        if (f[2] != 0) touched++;
        else if (touched) break;
    }
    fprintf(stderr,
            "solid cylinder rebound (%s): out %.6f m/s (e v0 %.3f), |w| %.3g, touched %ld\n",
            solver, bd->v[2], E_PAIR * V0, ndem_norm(bd->w), touched);
    ck_assert_int_gt(touched, 0);
    ck_assert_msg(fabs(bd->v[2] - E_PAIR * V0) < 0.02 * E_PAIR * V0, "rebound %g, want %g",
                  bd->v[2], E_PAIR * V0);
    ck_assert_double_lt(ndem_norm(bd->w), 1e-6);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

/* Placed 0.5 mm above the top line under gravity: after `seconds` the box
 * rests on the line (|v| < 1e-3 m/s) and the cylinder carries m g within
 * 1%, its bottom at the top line to 1e-4 m. */
static void check_rest(const char *solver, double seconds)
{
    ndem_job *job = cylinder_job(solver, -9.81, 0.0005, 0.0);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *bd = test_body_of(sim, 1);
    test_run_for(sim, seconds);
    double f[3], t[3], mg = -sim->gravity[2];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
    double bottom = sim->pose[1].to[2] - 0.01;
    fprintf(stderr,
            "box on a solid cylinder (%s): load %.6g N (m g %.6g), bottom %.3g m, |v| %.3g\n",
            solver, f[2], mg, bottom, ndem_norm(bd->v));
    ck_assert_msg(fabs(-f[2] - mg) < 0.01 * mg, "load %g, want %g", -f[2], mg); /* pressed down */
    ck_assert_double_lt(fabs(bottom), 1e-4);
    ck_assert_double_lt(ndem_norm(bd->v), 1e-3);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

#define NDEM_STEP "\"time_step\": 2e-4"
#define DEM_STEP "\"method\": \"dem\", \"contact_model\": \"hertz\", \"time_step\": 1e-5"

START_TEST(ndem_box_rebounds_from_a_solid_cylinder) { check_rebound(NDEM_STEP, 100); }
END_TEST

START_TEST(ndem_box_rests_on_a_solid_cylinder) { check_rest(NDEM_STEP, 0.5); }
END_TEST

START_TEST(dem_box_rebounds_from_a_solid_cylinder) { check_rebound(DEM_STEP, 2000); }
END_TEST

START_TEST(dem_box_rests_on_a_solid_cylinder) { check_rest(DEM_STEP, 0.3); }
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("rigid_solid");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, ndem_box_rebounds_from_a_solid_cylinder);
    tcase_add_test(tc, ndem_box_rests_on_a_solid_cylinder);
    tcase_add_test(tc, dem_box_rebounds_from_a_solid_cylinder);
    tcase_add_test(tc, dem_box_rests_on_a_solid_cylinder);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(suite()); }
