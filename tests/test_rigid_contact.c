/* test_rigid_contact.c - a dynamic body against static geometry under NDEM
 * (core/rigid_contact.c; docs/engine.md, "Body against geometry"), issue
 * 13's validation 4 as written: a box dropped on a plane (momentum through
 * the impact, restitution, rest, the plane's force), a box on an incline
 * (slides at g (sin - mu cos) or sticks), a box landing on a corner comes
 * to rest flat; a cylinder, a box on a solid box, a closed mesh, a box in a
 * drum and a box on a mesh floor rest with their weight; a box on the
 * plane and spheres balances momentum with both kinds of rows, the same
 * bits on 1 and 2 threads; smooth DEM and a body started deep in geometry
 * are errors. */
#include <check.h>

#include "job.h"
#include "rigid.h"
#include "rigid_scenes.h"
#include "rigid_contact.h"
#include "scene.h"
#include "sim.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MATS STEEL_WOOD_MATS

/* No particles: the body and the geometry alone. */
#define LONE "\"particles\": []"

/* A 10 x 10 x 2 cm wood box of 1 kg, dropped flat at 1 m/s onto a steel
 * plane (e 0.5, mu 0.3): through the impact the body's momentum changes by
 * gravity's impulse minus the plane's (its reported load times h) to 1e-6;
 * it rebounds at e times its impact speed (less the step's gravity) within
 * 2%; at rest its bottom face lies on the plane (overlap under 1e-4 m) and
 * the plane carries m g within 1%. */
START_TEST(box_dropped_flat_on_a_plane)
{
    const double M = 1.0, e = 0.5, h = 2e-4;
    ndem_job *job = test_job(
        "{\"scene\": {" MATS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1], \"material\": \"steel\"}, {\"type\": \"box\", \"min\": [-0.05, "
        "-0.05, 0.01], \"max\": [0.05, 0.05, 0.03], \"material\": \"wood\", \"dynamic\": "
        "{\"mass\": %g, \"velocity\": [0, 0, -1]}}], " LONE "}, \"solver\": {\"time_step\": %g, "
        "\"duration\": 1}}",
        e, 0.3, M, h);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *bd = test_body_of(sim, 1);
    double v_in = 0, v_out = 0, dp = 0, imp = 0, gz = sim->gravity[2];
    int impact_step = -1;
    for (int i = 0; i < 400; i++) {
        double vb = bd->v[2], f[3], t[3];
        test_step(sim);
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
        if (impact_step < 0 && f[2] != 0) {
            impact_step = i;
            v_in = vb;
            v_out = bd->v[2];
        }
        if (impact_step >= 0 && i < impact_step + 20) { /* through the impact */
            dp += M * (bd->v[2] - vb);
            imp += h * (M * gz - f[2]);
        }
    }
    fprintf(stderr,
            "box drop: impact at %.4f m/s, out %.5f m/s (e v_in - g h = %.5f); dp %.9g, "
            "impulses %.9g\n",
            v_in, v_out, -e * v_in + gz * h, dp, imp);
    ck_assert_int_ge(impact_step, 0);
    ck_assert_double_lt(v_in, -0.9);
    ck_assert_msg(fabs(dp - imp) < 1e-6 * fabs(dp), "dp %.10g impulses %.10g", dp, imp);
    ck_assert_msg(fabs((v_out - gz * h) - -e * v_in) < 0.02 * e * -v_in, "rebound %g, want %g",
                  v_out - gz * h, -e * v_in);
    test_run_for(sim, 0.9); /* the bounces die out */
    double f[3], t[3], pos[3], q[4];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
    ndem_sim_geometry_pose(sim, 1, pos, q);
    double bottom = sim->pose[1].to[2] - 0.01; /* the face's centre, the box level */
    fprintf(stderr, "box at rest: plane force %.6g N (m g %.6g), bottom at %.3g m, |v| %.3g\n",
            f[2], -M * gz, bottom, ndem_norm(bd->v));
    /* the load on the plane: the body's weight pressing it down */
    ck_assert_msg(fabs(f[2] - M * gz) < 0.01 * -M * gz, "plane force %g", f[2]);
    ck_assert_double_lt(fabs(bottom), 1e-4);
    ck_assert_double_lt(ndem_norm(bd->v), 1e-4);
    ck_assert_double_lt(ndem_norm(bd->w), 1e-4);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The box resting on a plane under gravity tilted by th (the incline).
 * One incline case per method: its step, the time before measuring, and
 * how still "sticks" and "flat" are (smooth DEM's springs stretch and ring
 * by micrometres; NDEM's rows hold the box exactly). */
typedef struct {
    const char *method;
    double h, settle, still, w_bound;
} incline_method;

static ndem_job *incline_job(const incline_method *m, double th_deg, double mu)
{
    const double g = 9.81, th = th_deg * M_PI / 180.0;
    return test_job(
        "{\"scene\": {\"gravity\": [%.17g, 0, %.17g], " MATS ", \"geometry\": [{\"type\": "
        "\"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1], \"material\": \"steel\"}, "
        "{\"type\": \"box\", \"min\": [-0.05, -0.05, 0], \"max\": [0.05, 0.05, 0.02], "
        "\"material\": \"wood\", \"dynamic\": {\"mass\": 1}}], " LONE
        "}, \"solver\": {\"method\": \"%s\", \"time_step\": %g, \"duration\": 2}}",
        g * sin(th), -g * cos(th), 0.2, mu, m->method, m->h);
}

/* Past tan th = mu the box slides at g (sin th - mu cos th) within 1%; below
 * it moves less than m->still over 0.2 s; either way it stays flat. */
static void check_incline(const incline_method *m, double th_deg, double mu)
{
    const double g = 9.81, th = th_deg * M_PI / 180.0;
    ndem_job *job = incline_job(m, th_deg, mu);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *bd = test_body_of(sim, 1);
    test_run_for(sim, m->settle);
    double t1 = sim->time, v1 = bd->v[0], x1 = sim->pose[1].to[0];
    test_run_for(sim, 0.2);
    double a = (bd->v[0] - v1) / (sim->time - t1), want = g * (sin(th) - mu * cos(th));
    double moved = fabs(sim->pose[1].to[0] - x1);
    fprintf(stderr,
            "%s incline %g deg, mu %g: a %.6g m/s^2 (theory %.6g), moved %.3g m, |w| %.3g\n",
            m->method, th_deg, mu, a, want, moved, ndem_norm(bd->w));
    if (tan(th) > mu) ck_assert_msg(fabs(a - want) < 0.01 * want, "a %g, want %g", a, want);
    else ck_assert_double_lt(moved, m->still);
    ck_assert_double_lt(ndem_norm(bd->w), m->w_bound); /* it slides flat */
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

/* NDEM: |v| < 1e-6 m/s over 0.2 s when it sticks */
static const incline_method NDEM_INCLINE = {"ndem", 5e-4, 0.1, 2e-7, 1e-4};

START_TEST(box_slides_down_a_steep_incline) { check_incline(&NDEM_INCLINE, 30.0, 0.3); }
END_TEST

START_TEST(box_sticks_on_a_gentle_incline) { check_incline(&NDEM_INCLINE, 10.0, 0.3); }
END_TEST

/* The box, spinning about a skew axis, lands on a corner and an edge from
 * 10 cm: within 2 s it lies flat on a face (a body axis along z to 1e-6,
 * its centre at half its height to 1e-4 m) and stops turning (|w| < 1e-4
 * rad/s): no endless rocking. */
START_TEST(box_landing_on_a_corner_comes_to_rest_flat)
{
    ndem_job *job = test_job(
        "{\"scene\": {" MATS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1], \"material\": \"steel\"}, {\"type\": \"box\", \"min\": [-0.05, "
        "-0.04, 0.1], \"max\": [0.05, 0.04, 0.12], \"material\": \"wood\", \"dynamic\": "
        "{\"mass\": 1, \"angular_velocity\": [7, 5, 1]}}], " LONE
        "}, \"solver\": {\"time_step\": 5e-4, \"duration\": 3}}",
        0.3, 0.5);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *bd = test_body_of(sim, 1);
    test_run_for(sim, 2.0);
    const double *R = sim->pose[1].rot;
    double up = fmax(fabs(R[6]), fmax(fabs(R[7]), fabs(R[8])));
    int axis = fabs(R[8]) == up ? 2 : fabs(R[7]) == up ? 1 : 0;
    double half[3] = {0.05, 0.04, 0.01};
    fprintf(stderr, "corner drop: |w| %.3g rad/s, |v| %.3g, up axis %d (%.9f), centre z %.6f\n",
            ndem_norm(bd->w), ndem_norm(bd->v), axis, up, sim->pose[1].to[2]);
    ck_assert_double_gt(up, 1 - 1e-6);
    ck_assert_double_lt(fabs(sim->pose[1].to[2] - half[axis]), 1e-4);
    ck_assert_double_lt(ndem_norm(bd->w), 1e-4);
    ck_assert_double_lt(ndem_norm(bd->v), 1e-4);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A standing cylinder (its rim's polygon) on the plane, and a box on a
 * solid static box: each rests with the support carrying m g within 1%. */
START_TEST(cylinder_and_box_on_a_box_rest_with_their_weight)
{
    ndem_job *job = test_job(
        "{\"scene\": {" MATS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1], \"material\": \"steel\"}, {\"type\": \"cylinder\", \"center\": "
        "[0, 0, 0.0305], \"axis\": [0, 0, 1], \"radius\": 0.03, \"length\": 0.06, \"material\": "
        "\"wood\", \"dynamic\": {\"mass\": 0.5}}, {\"type\": \"box\", \"min\": [0.5, 0, 0], "
        "\"max\": [0.7, 0.2, 0.1], \"material\": \"steel\"}, {\"type\": \"box\", \"min\": [0.55, "
        "0.05, 0.1005], \"max\": [0.65, 0.15, 0.1205], \"material\": \"wood\", \"dynamic\": "
        "{\"mass\": 2}}], " LONE "}, \"solver\": {\"time_step\": 5e-4, \"duration\": 1}}",
        0.3, 0.5);
    ndem_sim *sim = test_sim(job);
    test_run_for(sim, 0.5);
    double gz = -sim->gravity[2], f0[3], f2[3], t[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f0, t), 0);
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 2, f2, t), 0);
    fprintf(stderr, "rest: plane %.6g N (cylinder %.6g), box %.6g N (box %.6g); tops %.6f %.6f\n",
            f0[2], 0.5 * gz, f2[2], 2 * gz, sim->pose[1].to[2], sim->pose[3].to[2]);
    ck_assert_double_lt(fabs(-f0[2] - 0.5 * gz), 0.01 * 0.5 * gz); /* pressed down */
    ck_assert_double_lt(fabs(-f2[2] - 2.0 * gz), 0.01 * 2.0 * gz);
    ck_assert_double_lt(fabs(sim->pose[1].to[2] - 0.03), 1e-4);
    ck_assert_double_lt(fabs(sim->pose[3].to[2] - 0.11), 1e-4);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A closed mesh (a 10 x 6 x 2 cm brick, its corner at its position)
 * dropped from 1 mm rests on its hull's bottom face: the plane carries m g
 * within 1%, its centroid 1 cm up to 1e-4 m, still. */
START_TEST(closed_mesh_rests_on_a_plane)
{
    const double M = 0.8;
    ndem_job *job = test_job(
        "{\"scene\": {" MATS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1], \"material\": \"steel\"}, {\"type\": \"mesh\", \"vertices\": "
        "[[0, 0, 0], [0.1, 0, 0], [0.1, 0.06, 0], [0, 0.06, 0], [0, 0, 0.02], [0.1, 0, 0.02], "
        "[0.1, 0.06, 0.02], [0, 0.06, 0.02]], \"triangles\": [[0, 2, 1], [0, 3, 2], [4, 5, 6], "
        "[4, 6, 7], [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], "
        "[3, 4, 7]], \"position\": [0, 0, 0.001], \"material\": \"wood\", \"dynamic\": "
        "{\"mass\": %g}}], " LONE "}, \"solver\": {\"time_step\": 5e-4, \"duration\": 1}}",
        0.3, 0.5, M);
    ndem_sim *sim = test_sim(job);
    test_run_for(sim, 0.5);
    const ndem_rigid_body *bd = test_body_of(sim, 1);
    double f[3], t[3], c[3], gz = sim->gravity[2];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
    ndem_sim_geometry_pivot(sim, 1, c);
    fprintf(stderr, "mesh: plane %.6g N (m g %.6g), centroid z %.6f, |v| %.3g |w| %.3g\n", f[2],
            M * gz, c[2], ndem_norm(bd->v), ndem_norm(bd->w));
    ck_assert_double_lt(fabs(f[2] - M * gz), 0.01 * -M * gz);
    ck_assert_double_lt(fabs(c[2] - 0.01), 1e-4);
    ck_assert_double_lt(ndem_norm(bd->v) + ndem_norm(bd->w), 1e-4);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* Vertex probes (a cylinder, a mesh): a box of 1 kg dropped from 1 mm into
 * a static drum (an inside cylinder of radius 0.2 m, axis x) settles at its
 * bottom with two edges on the curved wall, and a box of 2 kg on a static
 * mesh floor of two triangles; each geometry carries m g within 1%, the
 * bodies still. */
START_TEST(box_rests_in_a_drum_and_on_a_mesh)
{
    ndem_job *job = test_job(
        "{\"scene\": {" MATS ", \"geometry\": [{\"type\": \"cylinder\", \"center\": [0, 0, "
        "0.2], \"axis\": [1, 0, 0], \"radius\": 0.2, \"length\": 0.3, \"inside\": true, "
        "\"material\": \"steel\"}, {\"type\": \"box\", \"min\": [-0.05, -0.05, 0.008], "
        "\"max\": [0.05, 0.05, 0.028], \"material\": \"wood\", \"dynamic\": {\"mass\": 1}}, "
        "{\"type\": \"mesh\", \"vertices\": [[1, -1, 0], [3, -1, 0], [3, 1, 0], [1, 1, 0]], "
        "\"triangles\": [[0, 1, 2], [0, 2, 3]], \"material\": \"steel\"}, {\"type\": \"box\", "
        "\"min\": [1.95, -0.05, 0.001], \"max\": [2.05, 0.05, 0.021], \"material\": \"wood\", "
        "\"dynamic\": {\"mass\": 2}}], " LONE "}, \"solver\": {\"time_step\": 5e-4, "
        "\"duration\": 1}}",
        0.3, 0.5);
    ndem_sim *sim = test_sim(job);
    test_run_for(sim, 0.6);
    const ndem_rigid_body *a = test_body_of(sim, 1), *b = test_body_of(sim, 3);
    double gz = sim->gravity[2], f0[3], f2[3], t[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f0, t), 0);
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 2, f2, t), 0);
    /* the box's corners on the wall: centre at sqrt(R^2 - (w/2)^2) - h/2 below the axis */
    double z_drum = 0.2 - sqrt(0.2 * 0.2 - 0.05 * 0.05) + 0.01;
    fprintf(stderr,
            "drum %.6g N (m g %.6g), box z %.6f (corners on the wall: %.6f); mesh %.6g N "
            "(%.6g), box z %.6f; |v| %.3g %.3g\n",
            f0[2], gz, sim->pose[1].to[2], z_drum, f2[2], 2 * gz, sim->pose[3].to[2],
            ndem_norm(a->v) + ndem_norm(a->w), ndem_norm(b->v) + ndem_norm(b->w));
    ck_assert_double_lt(fabs(f0[2] - gz), 0.01 * -gz);
    ck_assert_double_lt(fabs(f2[2] - 2 * gz), 0.01 * -2 * gz);
    ck_assert_double_lt(fabs(sim->pose[1].to[2] - z_drum), 1e-4);
    ck_assert_double_lt(fabs(sim->pose[3].to[2] - 0.01), 1e-4);
    ck_assert_double_lt(ndem_norm(a->v) + ndem_norm(a->w), 1e-4);
    ck_assert_double_lt(ndem_norm(b->v) + ndem_norm(b->w), 1e-4);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A box landing tilted on the plane and on a row of ore spheres lying on
 * it under one end, with particles and body rows in the same sweeps: over
 * the impact the body's and the particles' momentum change by gravity's
 * impulse minus the floor's load (which sums both kinds of rows) times h,
 * to 1e-3 of the impact's momentum (the particle rows run in float); one
 * thread and two give the same bits. */
static ndem_sim *mixed_sim(ndem_job **job, int threads)
{
    *job = test_job(
        "{\"scene\": {\"materials\": [{\"name\": \"steel\", \"density\": 7800, "
        "\"young_modulus\": 2e11}, {\"name\": \"ore\", \"density\": 2500, \"young_modulus\": "
        "1e7}], \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, "
        "1], \"material\": \"steel\"}, {\"type\": \"box\", \"min\": [-0.05, -0.03, 0.015], "
        "\"max\": [0.05, 0.03, 0.025], \"material\": \"steel\", \"dynamic\": {\"mass\": 0.5, "
        "\"velocity\": [0, 0, -0.5]}}], \"particles\": [{\"type\": \"lattice\", \"min\": "
        "[0.03, -0.025, 0.005], \"max\": [0.0301, 0.025, 0.0051], \"spacing\": 0.0105, "
        "\"radius\": 0.005, \"material\": \"ore\"}]}, \"solver\": {\"time_step\": 0.0005, "
        "\"duration\": 1, \"threads\": %d}}",
        threads);
    return test_sim(*job);
}

START_TEST(box_on_plane_and_particles_balances_momentum)
{
    ndem_job *job, *job2;
    ndem_sim *sim = mixed_sim(&job, 1), *two = mixed_sim(&job2, 2);
    const double h = sim->solver.time_step, M = 0.5;
    const ndem_rigid_body *bd = test_body_of(sim, 1), *bd2 = test_body_of(two, 1);
    double mp = 0, p0[3], p1[3], v0[3], floor_imp[3] = {0, 0, 0};
    ndem_frame f0;
    test_frame(sim, &f0);
    for (long i = 0; i < f0.count; i++) mp += 2500 * 4.0 / 3.0 * M_PI * pow(f0.radii[i], 3);
    ndem_frame_free(&f0);
    test_ore_momentum(sim, p0);
    memcpy(v0, bd->v, sizeof v0);
    int steps = 100, body_rows = 0;
    for (int i = 0; i < steps; i++) {
        double f[3], t[3];
        test_step(sim);
        test_step(two);
        body_rows |= ndem_rcontact_rows(sim) > 0;
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
        for (int q = 0; q < 3; q++) floor_imp[q] += h * f[q];
    }
    test_ore_momentum(sim, p1);
    double dp[3], want[3];
    for (int q = 0; q < 3; q++) {
        dp[q] = p1[q] - p0[q] + M * (bd->v[q] - v0[q]);
        want[q] = steps * h * (mp + M) * sim->gravity[q] - floor_imp[q];
    }
    fprintf(stderr,
            "mixed: dP (%.6g, %.6g, %.6g), gravity - floor (%.6g, %.6g, %.6g), body z %.5f "
            "tilt %.4f\n",
            dp[0], dp[1], dp[2], want[0], want[1], want[2], sim->pose[1].to[2],
            sim->pose[1].rot[2]);
    ck_assert(body_rows);
    for (int q = 0; q < 3; q++)
        ck_assert_msg(fabs(dp[q] - want[q]) < 1e-3 * M * 0.5, "axis %d: %g vs %g", q, dp[q],
                      want[q]);
    ck_assert_double_gt(fabs(sim->pose[1].rot[2]), 0.01); /* it rests tilted on the row */
    ck_assert(memcmp(bd->v, bd2->v, sizeof bd->v) == 0 && memcmp(bd->w, bd2->w, sizeof bd->w) == 0);
    ck_assert(memcmp(sim->bodies.pos, two->bodies.pos, 3 * sizeof(double) * sim->bodies.count) ==
              0);
    ndem_sim_destroy(sim);
    ndem_sim_destroy(two);
    ndem_job_destroy(job);
    ndem_job_destroy(job2);
}
END_TEST

/* Stop while the box bounces on the plane and the spheres, checkpoint,
 * restore, go on: the same bits as never stopping (the pairs keep no
 * state of their own: no warm start). */
START_TEST(checkpoint_restores_a_landing_box)
{
    ndem_job *job;
    ndem_sim *a = mixed_sim(&job, 1);
    for (int i = 0; i < 40; i++) test_step(a);
    ck_assert_int_gt(ndem_rcontact_rows(a), 0);
    void *buf;
    size_t len;
    ck_assert_int_eq(ndem_sim_checkpoint(a, &buf, &len), 0);
    char err[256];
    ndem_sim *b = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(b != NULL, "%s", err);
    free(buf);
    for (int i = 0; i < 60; i++) {
        test_step(a);
        test_step(b);
    }
    ck_assert(ndem_sim_state_hash(a) == ndem_sim_state_hash(b));
    test_same_bodies_then_free(a, b, 1, 1, job, NULL);
}
END_TEST

/* A body placed deep in a plane is refused at creation; so is a smooth DEM
 * law the points have none of (luding), naming the body: the parser refuses
 * that document (test_parser_methods), a scene definition set to it here. */
START_TEST(unsupported_cases_are_errors)
{
    ndem_job *job = test_job(
        "{\"scene\": {" MATS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1], \"material\": \"steel\"}, {\"type\": \"box\", \"min\": [-0.05, "
        "-0.05, -0.05], \"max\": [0.05, 0.05, 0.05], \"material\": \"wood\", \"dynamic\": "
        "{\"mass\": 1}}], " LONE "}, \"solver\": {}}",
        0.5, 0.3);
    char err[300] = "";
    ck_assert_ptr_null(ndem_sim_create(&job->scene, err, sizeof err));
    fprintf(stderr, "create: %s\n", err);
    ck_assert_ptr_nonnull(strstr(err, "geometry 1 (dynamic) starts 0.05 m deep in geometry 0"));
    ndem_job_destroy(job);
    job = test_job("{\"scene\": {" MATS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, "
                   "0], \"normal\": [0, 0, 1], \"material\": \"steel\"}, {\"type\": \"box\", "
                   "\"min\": [-0.05, -0.05, 0.01], \"max\": [0.05, 0.05, 0.03], \"material\": "
                   "\"wood\", \"dynamic\": {\"mass\": 1}}], " LONE "}, \"solver\": {\"method\": "
                   "\"dem\", \"contact_model\": \"hertz\", \"time_step\": 1e-5}}",
                   0.5, 0.3);
    job->scene.solver.contact_model = NDEM_MODEL_LUDING;
    err[0] = '\0';
    ck_assert_ptr_null(ndem_sim_create(&job->scene, err, sizeof err));
    fprintf(stderr, "create: %s\n", err);
    ck_assert_ptr_nonnull(strstr(err, "geometry 1 (dynamic) can touch static geometry"));
    ck_assert_ptr_nonnull(strstr(err, "\"hertz\", \"linear\" or \"hunt_crossley\" only"));
    ndem_job_destroy(job);
}
END_TEST

/* ---- smooth DEM: each point the pair's law (rigid_contact_dem.c) ---- */

#define DEM_H 1e-5 /* over 100 steps per contact of the 1 m/s drop */

static ndem_job *dem_drop_job(const char *model, double e, double gz, int threads)
{
    char solver[160];
    snprintf(solver, sizeof solver,
             "\"method\": \"dem\", \"contact_model\": \"%s\", \"time_step\": %g, \"threads\": %d",
             model, DEM_H, threads);
    return test_wood_box_job("{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1], "
                             "\"material\": \"steel\"}",
                             gz, e, 0.3, 0.01, 0.03, -1.0, solver);
}

/* The 1 kg box flying flat at 1 m/s onto the plane under smooth DEM
 * (hertz, hunt_crossley and linear), without gravity: it leaves at e
 * times its speed within 2%, the bound of the laws' e for a sphere at a
 * step this fine (about 100 steps a contact; docs/job.md "time_step"): the
 * four corners land in the same step and share the body's mass and the
 * pair's stiffness, each one the sphere's law on a quarter of both, so a
 * flat landing adds nothing but the four points' shares of the first and
 * last step (a landing on an edge or a corner would not be this law: the
 * point's mass share is the body's translational mass, not the effective
 * mass of its turn, so its damping and e differ); and through the contact its momentum changes by
 * minus the plane's load times h to 1e-9 (the load is exactly minus the
 * force on the body). Dropped at 1 m/s under gravity it comes to rest 0.5 s
 * later with the plane carrying m g within 1%, its face at the static
 * overlap (under 1e-4 m), not turning. */
static void check_dem_drop(const char *model)
{
    const double M = 1.0, e = 0.5, h = DEM_H;
    ndem_job *job = dem_drop_job(model, e, 0.0, 1);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *bd = test_body_of(sim, 1);
    double v_in = 0, v_out = 0, dp = 0, imp = 0;
    long first = -1, steps_in = 0;
    for (long i = 0; i < 40000 && (first < 0 || v_out == 0); i++) {
        double vb = bd->v[2], f[3], t[3];
        test_step(sim);
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
        if (f[2] != 0 && first < 0) first = i, v_in = vb;
        if (first < 0) continue;
        dp += M * (bd->v[2] - vb);
        imp -= h * f[2];
        if (f[2] != 0) steps_in++;
        else v_out = vb; /* apart: the velocity it left with */
    }
    fprintf(stderr,
            "dem box flight (%s): in %.6f m/s, out %.6f m/s after %ld steps (e v_in %.6f, "
            "%.3f%%); dp %.12g impulses %.12g\n",
            model, v_in, v_out, steps_in, -e * v_in, 100 * (v_out / (-e * v_in) - 1), dp, imp);
    ck_assert_int_ge(first, 0);
    ck_assert_double_eq(v_in, -1.0);
    ck_assert_msg(fabs(dp - imp) < 1e-9 * fabs(dp), "dp %.12g impulses %.12g", dp, imp);
    ck_assert_msg(fabs(v_out - -e * v_in) < 0.02 * e * -v_in, "rebound %g, want %g", v_out,
                  -e * v_in);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    job = dem_drop_job(model, e, -9.81, 1);
    sim = test_sim(job);
    bd = test_body_of(sim, 1);
    test_run_for(sim, 0.5); /* lands, bounces, the bounces die out */
    double f[3], t[3], gz = sim->gravity[2];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
    double bottom = sim->pose[1].to[2] - 0.01;
    fprintf(stderr, "dem box at rest (%s): plane %.6g N (m g %.6g), bottom %.3g m, |v| %.3g\n",
            model, f[2], M * gz, bottom, ndem_norm(bd->v));
    ck_assert_msg(fabs(f[2] - M * gz) < 0.01 * -M * gz, "plane force %g", f[2]);
    ck_assert_double_lt(bottom, 0);
    ck_assert_double_gt(bottom, -1e-4);
    ck_assert_double_lt(ndem_norm(bd->w), 1e-3);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(dem_box_dropped_flat_on_a_plane) { check_dem_drop("hertz"); }
END_TEST

START_TEST(dem_box_dropped_flat_hunt_crossley) { check_dem_drop("hunt_crossley"); }
END_TEST

START_TEST(dem_box_dropped_flat_linear) { check_dem_drop("linear"); }
END_TEST

/* The box on the plane under gravity tilted by th, smooth DEM (hertz): at
 * 30 deg with mu 0.3 it slides at g (sin th - mu cos th) within 1% (each
 * point's spring cut at mu f_n), flat; at 10 deg its springs hold it: over
 * 0.2 s it moves less than 1e-5 m (a slide would go 2.3 cm at the
 * frictionless g sin th, and the springs stretch by a few micrometres). */
static const incline_method DEM_INCLINE = {"dem", 2 * DEM_H, 0.05, 1e-5, 1e-3};

START_TEST(dem_box_slides_down_a_steep_incline) { check_incline(&DEM_INCLINE, 30.0, 0.3); }
END_TEST

START_TEST(dem_box_sticks_on_a_gentle_incline) { check_incline(&DEM_INCLINE, 10.0, 0.3); }
END_TEST

/* The box held on the 10 degree incline by its points' springs: stop,
 * checkpoint, restore, go on: the same bits as never stopping (format 8
 * keeps each point's spring; without it the restored box would slip again
 * by the springs' stretch). */
START_TEST(dem_checkpoint_keeps_the_springs)
{
    ndem_job *job = incline_job(&DEM_INCLINE, 10.0, 0.3);
    ndem_sim *a = test_sim(job);
    test_run_for(a, 0.02);
    void *buf;
    size_t len;
    ck_assert_int_eq(ndem_sim_checkpoint(a, &buf, &len), 0);
    char err[256];
    ndem_sim *b = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(b != NULL, "%s", err);
    free(buf);
    for (int i = 0; i < 500; i++) {
        test_step(a);
        test_step(b);
    }
    test_same_bodies_then_free(a, b, 1, 1, job, NULL);
}
END_TEST

/* The drop through its landing and first rebound on 1 and 2 threads: the
 * same bits of the body's state and the plane's load. */
START_TEST(dem_one_and_two_threads_give_the_same_bits)
{
    ndem_job *j1 = dem_drop_job("hertz", 0.5, -9.81, 1), *j2 = dem_drop_job("hertz", 0.5, -9.81, 2);
    ndem_sim *a = test_sim(j1), *b = test_sim(j2);
    int touched = 0;
    for (int i = 0; i < 2000; i++) {
        double fa[3], fb[3], t[3];
        test_step(a);
        test_step(b);
        ck_assert_int_eq(ndem_sim_geometry_load(a, 0, fa, t), 0);
        ck_assert_int_eq(ndem_sim_geometry_load(b, 0, fb, t), 0);
        touched |= fa[2] != 0;
        ck_assert(memcmp(fa, fb, sizeof fa) == 0);
    }
    ck_assert(touched);
    test_same_bodies_then_free(a, b, 1, 1, j1, j2);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("rigid_contact");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, box_dropped_flat_on_a_plane);
    tcase_add_test(tc, box_slides_down_a_steep_incline);
    tcase_add_test(tc, box_sticks_on_a_gentle_incline);
    tcase_add_test(tc, box_landing_on_a_corner_comes_to_rest_flat);
    tcase_add_test(tc, cylinder_and_box_on_a_box_rest_with_their_weight);
    tcase_add_test(tc, closed_mesh_rests_on_a_plane);
    tcase_add_test(tc, box_rests_in_a_drum_and_on_a_mesh);
    tcase_add_test(tc, unsupported_cases_are_errors);
    tcase_add_test(tc, box_on_plane_and_particles_balances_momentum);
    tcase_add_test(tc, checkpoint_restores_a_landing_box);
    tcase_add_test(tc, dem_box_dropped_flat_on_a_plane);
    tcase_add_test(tc, dem_box_dropped_flat_hunt_crossley);
    tcase_add_test(tc, dem_box_dropped_flat_linear);
    tcase_add_test(tc, dem_box_slides_down_a_steep_incline);
    tcase_add_test(tc, dem_box_sticks_on_a_gentle_incline);
    tcase_add_test(tc, dem_one_and_two_threads_give_the_same_bits);
    tcase_add_test(tc, dem_checkpoint_keeps_the_springs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(suite()); }
