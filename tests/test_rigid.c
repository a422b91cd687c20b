/* test_rigid.c - dynamic geometry: rigid bodies of finite mass moved by
 * their contacts (issue 13, validation 4). Every expected number comes from
 * Newton's laws or the textbook mass properties, never from an earlier run:
 * a plate resting on a bed carries its weight, momentum balances over an
 * impact, a free box keeps its angular momentum and falls at g, a drum
 * spun by a force turns at torque / I, locks hold, one thread and two give
 * the same bits, checkpoints restore bodies, and the parser says what and
 * where for bad input. */
#include "mass_props.h"
#include "parser_util.h"
#include "rigid.h"
#include "rigid_scenes.h"
#include "scene.h"
#include "series.h"
#include "sim.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81;

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
    ck_assert_double_eq_tol(mp.inertia[8], v * 0.25 / 2.0, 1e-15); /* m r^2 / 2 */
    ck_assert_double_eq_tol(mp.inertia[0], v * (3 * 0.25 + 4.0) / 12.0,
                            1e-14); /* m (3r^2+L^2)/12 */
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
    test_run_for(sim, settle);
    double f[3], t[3], c[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 1, f, t), 0);
    ndem_sim_geometry_position(sim, 1, c);
    const ndem_rigid_body *bd = test_body_of(sim, 1);
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

/* ---- (b) momentum over an impact ---- */

/* A box of 0.3 kg dropped at 1 m/s onto a 4 x 4 layer of spheres resting on
 * the plane "floor": over the impact, the change of the body's and the
 * particles' momentum is gravity's impulse plus the floor's (minus the
 * particles' impulses on it, as the floor reports them); and in every step
 * the body's velocity changes by exactly what its rows say (their
 * impulses, the reported load times h) plus gravity. */
START_TEST(momentum_balances_over_an_impact)
{
    const double M = 0.3;
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"plane\", \"name\": "
        "\"floor\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1], \"material\": \"steel\"},"
        "{\"type\": \"box\", \"name\": \"lid\", \"min\": [-0.02, -0.02, 0.0103], \"max\": [0.03, "
        "0.025, 0.0163], \"material\": \"steel\", \"dynamic\": {\"mass\": %g, \"velocity\": [0, 0, "
        "-1]}}], \"particles\": [{\"type\": \"lattice\", \"min\": [-0.018, -0.018, 0.005], "
        "\"max\": [0.018, 0.018, 0.0051], \"spacing\": 0.0105, \"radius\": 0.005, \"material\": "
        "\"ore\"}]}, \"solver\": {" NDEM_SOLVER ", \"duration\": 1}}",
        M);
    ndem_sim *sim = test_sim(job);
    const double h = sim->solver.time_step;
    double mp = 0;
    {
        ndem_frame f;
        test_frame(sim, &f);
        for (long i = 0; i < f.count; i++) mp += 2500 * 4.0 / 3.0 * M_PI * pow(f.radii[i], 3);
        ndem_frame_free(&f);
    }
    double p0[3], p1[3], floor_imp[3] = {0, 0, 0}, v0[3];
    test_ore_momentum(sim, p0);
    const ndem_rigid_body *bd = test_body_of(sim, 1);
    memcpy(v0, bd->v, sizeof v0);
    double vmin = 0, worst = 0;
    int steps = 60, touched = 0;
    for (int i = 0; i < steps; i++) {
        double vb[3], f[3], t[3];
        memcpy(vb, bd->v, sizeof vb);
        test_step(sim);
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
        for (int q = 0; q < 3; q++) floor_imp[q] += h * f[q];
        /* the body: M dv = h (M g + its rows' impulses / h) */
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 1, f, t), 0);
        touched |= f[2] != 0;
        for (int q = 0; q < 3; q++) {
            double want = vb[q] + h * (f[q] / M + sim->gravity[q]);
            worst = fmax(worst, fabs(bd->v[q] - want));
        }
        vmin = fmin(vmin, bd->v[2]);
    }
    test_ore_momentum(sim, p1);
    double dp[3], want[3], scale = M * 1.0; /* the impact's momentum */
    for (int q = 0; q < 3; q++) {
        dp[q] = p1[q] - p0[q] + M * (bd->v[q] - v0[q]);
        /* gravity on both, and the floor pushes the particles with minus
         * the load they put on it */
        want[q] = steps * h * (mp + M) * sim->gravity[q] - floor_imp[q];
    }
    fprintf(stderr,
            "impact: dP = (%.6g, %.6g, %.6g), gravity + floor = (%.6g, %.6g, %.6g) kg m/s; body v "
            "%.4g -> %.4g m/s; worst |dv - rows| %.3g m/s\n",
            dp[0], dp[1], dp[2], want[0], want[1], want[2], v0[2], bd->v[2], worst);
    ck_assert(touched);
    ck_assert_double_gt(bd->v[2], -0.5); /* it was stopped */
    for (int q = 0; q < 3; q++)
        ck_assert_msg(fabs(dp[q] - want[q]) < 1e-3 * scale, "axis %d: dP %.8g, impulses %.8g", q,
                      dp[q], want[q]);
    ck_assert_double_lt(worst, 1e-12);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- (c) a free body keeps its angular momentum and falls at g ---- */

static void world_l(const ndem_sim *sim, const ndem_rigid_body *bd, double l[3])
{
    const double *r = sim->pose[bd->geometry].rot;
    double iw[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                for (int m = 0; m < 3; m++)
                    s += r[3 * i + k] * bd->inertia[3 * k + m] * r[3 * j + m];
            iw[3 * i + j] = s;
        }
    for (int i = 0; i < 3; i++)
        l[i] = iw[3 * i] * bd->w[0] + iw[3 * i + 1] * bd->w[1] + iw[3 * i + 2] * bd->w[2];
}

/* A 1 x 2 x 3 box spinning about a skew axis in vacuum: it tumbles (w
 * moves in the world and in the body), its world angular momentum stays
 * (|L| within 1e-6 and every component) over 1000 steps, and its centre
 * falls as symplectic Euler under g says: z_n = z_0 - g h^2 n (n + 1) / 2. */
START_TEST(free_box_keeps_its_angular_momentum)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", \"min\": [-0.5, -1, "
        "-1.5], \"max\": [0.5, 1, 1.5], \"material\": \"steel\", \"dynamic\": {\"mass\": 6, "
        "\"angular_velocity\": [3, 0.2, 1]}}]}, \"solver\": {\"time_step\": 0.001, \"duration\": "
        "1}}");
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *bd = test_body_of(sim, 0);
    /* the textbook inertia of the box, from its shape: m (b^2 + c^2) / 12 */
    ck_assert_double_eq_tol(bd->inertia[0], 6.0 * (4 + 9) / 12.0, 1e-12);
    ck_assert_double_eq_tol(bd->inertia[4], 6.0 * (1 + 9) / 12.0, 1e-12);
    ck_assert_double_eq_tol(bd->inertia[8], 6.0 * (1 + 4) / 12.0, 1e-12);
    double l0[3], w0[3], l[3];
    world_l(sim, bd, l0);
    memcpy(w0, bd->w, sizeof w0);
    double n0 = ndem_norm(l0), worst = 0, wchange = 0;
    const int n = 1000;
    for (int i = 0; i < n; i++) {
        test_step(sim);
        world_l(sim, bd, l);
        worst = fmax(worst, fabs(ndem_norm(l) - n0) / n0);
        for (int q = 0; q < 3; q++) {
            ck_assert_double_lt(fabs(l[q] - l0[q]), 1e-6 * n0);
            wchange = fmax(wchange, fabs(bd->w[q] - w0[q]));
        }
    }
    double c[3], h = 0.001;
    ndem_sim_geometry_position(sim, 0, c);
    fprintf(stderr, "free box: |L| drift %.3g, w moved by %.3g rad/s, z %.9g m, vz %.9g m/s\n",
            worst, wchange, c[2], bd->v[2]);
    ck_assert_double_lt(worst, 1e-6);
    ck_assert_double_gt(wchange, 0.1); /* it tumbled: the test is not a constant spin */
    ck_assert_double_eq_tol(bd->v[2], -9.81 * n * h, 1e-12);
    ck_assert_double_eq_tol(c[2], -9.81 * h * h * n * (n + 1) / 2.0, 1e-9);
    ck_assert_double_eq_tol(c[0], 0.0, 1e-15);
    ck_assert_double_eq_tol(bd->v[0], 0.0, 1e-15);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- (d) a drum turned by a sphere: torque = I alpha ---- */

/* A drum (cylinder r = 0.05 m, length 0.1 m, axis x, 2 kg) free to turn
 * about x only, and a steel sphere dropped on it off the top: the sphere
 * pushes the drum round. In every step the drum's angular velocity changes
 * by T_x h / I with T_x the torque its rows report about its centre and I
 * the textbook m r^2 / 2; the drum never moves or turns otherwise. */
static void check_drum(const char *solver)
{
    const double M = 2.0, R = 0.05, I = 0.5 * M * R * R;
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"cylinder\", \"name\": "
        "\"drum\", \"center\": [0, 0, 0], \"axis\": [1, 0, 0], \"radius\": %g, \"length\": 0.1, "
        "\"material\": \"steel\", \"dynamic\": {\"mass\": %g, \"lock\": [\"x\", \"y\", \"z\", "
        "\"ry\", \"rz\"]}}], \"particles\": [{\"type\": \"list\", \"spheres\": [[0, 0.02, "
        "0.0612, 0.01]], \"material\": \"steel\"}]}, \"solver\": {%s, \"duration\": 1}}",
        R, M, solver);
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *bd = test_body_of(sim, 0);
    ck_assert_double_eq_tol(bd->inv_world[0], 1.0 / I, 1e-9 / I);
    const double h = sim->solver.time_step;
    double worst = 0, tmax = 0;
    long n = (long)llround(0.1 / h);
    for (long i = 0; i < n; i++) {
        double w0 = bd->w[0], f[3], t[3];
        test_step(sim);
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
        worst = fmax(worst, fabs((bd->w[0] - w0) * I - t[0] * h));
        tmax = fmax(tmax, fabs(t[0]));
        for (int q = 0; q < 3; q++) ck_assert_double_eq(bd->v[q], 0.0);
        ck_assert_double_eq(bd->w[1], 0.0);
        ck_assert_double_eq(bd->w[2], 0.0);
    }
    double c[3];
    ndem_sim_geometry_position(sim, 0, c);
    fprintf(stderr, "drum (%s): w %.5g rad/s, largest torque %.4g N m, worst |I dw - T h| %.3g\n",
            solver, bd->w[0], tmax, worst);
    ck_assert_double_gt(tmax, 1e-3);      /* the sphere did push it */
    ck_assert_double_lt(bd->w[0], -1e-3); /* round, the way the sphere rolls off (+y: about -x) */
    /* the rows' lever arms are float32 in the loads, double in the body */
    ck_assert_double_lt(worst, 1e-6 * tmax * h);
    for (int q = 0; q < 3; q++) ck_assert_double_eq(c[q], 0.0);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(drum_turns_at_torque_over_inertia_ndem) { check_drum(NDEM_SOLVER); }
END_TEST

START_TEST(drum_turns_at_torque_over_inertia_dem) { check_drum(DEM_SOLVER); }
END_TEST

/* ---- (e) one thread and two give the same bits ---- */

static ndem_job *big_plate_job(int threads)
{
    /* 11 x 11 x 17 = 2057 spheres in a bin, a plate over all of them
     * driven into them at 0.3 m/s (no gravity: the bed stands as placed) */
    return test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], " TEST_MATERIALS ", \"geometry\": ["
        "{\"type\": \"box\", \"min\": [-0.06, -0.06, 0], \"max\": [0.06, 0.06, 0.3], "
        "\"inside\": true, \"material\": \"steel\"},"
        "{\"type\": \"box\", \"name\": \"plate\", \"min\": [-0.058, -0.058, 0.1785], \"max\": "
        "[0.058, 0.058, 0.1845], \"material\": \"steel\", \"dynamic\": {\"mass\": 2, \"velocity\": "
        "[0, 0, -0.3]}}],"
        "\"particles\": [{\"type\": \"lattice\", \"min\": [-0.0525, -0.0525, 0.0052], \"max\": "
        "[0.0525, 0.0525, 0.174], \"spacing\": 0.0105, \"radius\": 0.005, \"material\": "
        "\"ore\"}]}, \"solver\": {\"time_step\": 0.001, \"duration\": 1, \"threads\": %d}}",
        threads);
}

START_TEST(one_and_two_threads_give_the_same_bits)
{
    setenv("NDEM_PARALLEL_MIN", "1", 1); /* every loop threaded, however short */
    uint64_t hash[2];
    double v[2][6], f[2][3];
    long rows = 0;
    int sets = 0;
    for (int k = 0; k < 2; k++) {
        ndem_job *job = big_plate_job(k + 1);
        ndem_sim *sim = test_sim(job);
        ck_assert_int_eq(ndem_sim_particle_count(sim), 2057);
        for (int i = 0; i < 25; i++) test_step(sim);
        rows = sim->rigid->row_count;
        sets = 0;
        for (int q = 0; q < NDEM_COLOR_SETS; q++) sets += ndem_rigid_set_has_rows(sim->rigid, q);
        const ndem_rigid_body *bd = test_body_of(sim, 1);
        memcpy(v[k], bd->v, 3 * sizeof(double));
        memcpy(v[k] + 3, bd->w, 3 * sizeof(double));
        double t[3];
        ndem_sim_geometry_load(sim, 1, f[k], t);
        hash[k] = ndem_sim_state_hash(sim);
        ndem_sim_destroy(sim);
        ndem_job_destroy(job);
    }
    unsetenv("NDEM_PARALLEL_MIN");
    fprintf(stderr, "threads: %ld plate rows in %d colours, Fz %.6g N, vz %.6g m/s\n", rows, sets,
            f[0][2], v[0][2]);
    ck_assert_int_ge(rows, 100); /* the plate touches the whole top layer */
    ck_assert_int_ge(sets, 2);   /* in several colours, many rows per colour */
    ck_assert(f[0][2] > 0.1);    /* and pushes into it */
    ck_assert(hash[0] == hash[1]);
    ck_assert(memcmp(v[0], v[1], sizeof v[0]) == 0);
    ck_assert(memcmp(f[0], f[1], sizeof f[0]) == 0);
}
END_TEST

/* ---- (f) locks ---- */

/* The plate pushed sideways by a force along (1, 1) with x locked: its
 * centre never moves in x (every bit), it does move in y; rz locked: it
 * never turns about z, though it started spinning about z. */
START_TEST(locked_axes_never_move)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": ["
        "{\"type\": \"box\", \"name\": \"bin\", \"min\": [-0.03, -0.03, 0], \"max\": [0.03, "
        "0.03, 0.2], \"inside\": true, \"material\": \"steel\"},"
        "{\"type\": \"box\", \"name\": \"plate\", \"min\": [-0.02, -0.02, 0.0105], \"max\": "
        "[0.02, 0.02, 0.0165], \"material\": \"steel\", \"dynamic\": {\"mass\": 0.2, \"lock\": "
        "[\"x\", \"rz\"], \"force\": [0.1, 0.1, 0], \"angular_velocity\": [0, 0, 5]}}],"
        "\"particles\": [{\"type\": \"lattice\", \"min\": [-0.018, -0.018, 0.0052], \"max\": "
        "[0.018, 0.018, 0.0053], \"spacing\": 0.0105, \"radius\": 0.005, \"material\": "
        "\"ore\"}]}, \"solver\": {" NDEM_SOLVER ", \"duration\": 1}}");
    ndem_sim *sim = test_sim(job);
    const ndem_rigid_body *bd = test_body_of(sim, 1);
    double c0[3], c[3];
    ndem_sim_geometry_position(sim, 1, c0);
    ck_assert_double_eq(bd->w[2], 0.0); /* the locked part of the initial spin is dropped */
    for (int i = 0; i < 200; i++) {
        test_step(sim);
        ndem_sim_geometry_position(sim, 1, c);
        ck_assert_double_eq(c[0], c0[0]);
        ck_assert_double_eq(bd->v[0], 0.0);
        ck_assert_double_eq(bd->w[2], 0.0);
    }
    double t[3], q[4];
    ndem_sim_geometry_pose(sim, 1, t, q);
    fprintf(stderr, "locks: y moved %.4g m, z %.4g m, q = (%.6g, %.3g, %.3g, %.3g)\n", c[1] - c0[1],
            c[2] - c0[2], q[0], q[1], q[2], q[3]);
    ck_assert_double_gt(c[1] - c0[1], 1e-3);  /* y is free: the force moved it */
    ck_assert_double_lt(c[2] - c0[2], -1e-4); /* z is free: it fell onto the spheres */
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- checkpoints ---- */

/* Stop, checkpoint, restore, go on: the same bits as never stopping,
 * bodies included (format 5 added their velocities; 9 is the latest). */
START_TEST(checkpoint_restores_the_bodies)
{
    ndem_job *job = plate_job(NDEM_SOLVER, 0.2, "", 1);
    ndem_sim *a = test_sim(job);
    for (int i = 0; i < 30; i++) test_step(a);
    void *buf;
    size_t len;
    ndem_sim *b = test_checkpoint_restore(a, job, 9, &buf, &len);
    free(buf);
    for (int i = 0; i < 30; i++) {
        test_step(a);
        test_step(b);
    }
    ck_assert(ndem_sim_state_hash(a) == ndem_sim_state_hash(b));
    ck_assert(memcmp(test_body_of(a, 1)->w, test_body_of(b, 1)->w, 3 * sizeof(double)) == 0);
    ck_assert(memcmp(test_body_of(a, 1)->v, test_body_of(b, 1)->v, 3 * sizeof(double)) == 0);
    ndem_sim_destroy(a);
    ndem_sim_destroy(b);
    ndem_job_destroy(job);
}
END_TEST

/* ---- (g) the parser: what and where ---- */

#define BOX "{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], "

START_TEST(dynamic_errors_name_their_pointer)
{
    const char *p = "/scene/geometry/0/dynamic";
    test_geometry_error(BOX "'dynamic': {}}", "/scene/geometry/0/dynamic/mass", "required");
    test_geometry_error(BOX "'dynamic': {'mass': -1}}", "/scene/geometry/0/dynamic/mass",
                        "positive");
    test_geometry_error(BOX "'dynamic': {'mass': 0}}", "/scene/geometry/0/dynamic/mass",
                        "positive");
    test_geometry_error(BOX "'dynamic': {'mass': 1, 'inertia': [1, 0, 1]}}",
                        "/scene/geometry/0/dynamic/inertia/1", "positive");
    test_geometry_error(BOX "'dynamic': {'mass': 1, 'inertia': [1, 1]}}",
                        "/scene/geometry/0/dynamic/inertia", "");
    test_geometry_error(BOX "'dynamic': {'mass': 1, 'lock': ['x', 'q']}}",
                        "/scene/geometry/0/dynamic/lock/1", "must be one of");
    test_geometry_error(BOX "'dynamic': {'mass': 1, 'lock': ['rx', 'rx']}}",
                        "/scene/geometry/0/dynamic/lock/1", "listed twice");
    test_geometry_error(BOX "'dynamic': {'mass': 1, 'spin': 1}}", "/scene/geometry/0/dynamic/spin",
                        "unknown");
    test_geometry_error(BOX "'dynamic': 3}", p, "object");
    test_geometry_error(BOX "'dynamic': {'mass': 1}, 'velocity': [1, 0, 0]}", p, "\"velocity\"");
    test_geometry_error(BOX "'dynamic': {'mass': 1}, 'motion': {'velocity': [1, 0, 0]}}", p,
                        "\"motion\"");
    test_geometry_error("{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 0, 1], 'dynamic': "
                        "{'mass': 1}}",
                        p, "lock its turns");
    /* an open mesh (the tetrahedron without its slanted face) has no inside */
    test_geometry_error(
        "{'type': 'mesh', 'vertices': [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], "
        "'triangles': [[0, 2, 1], [0, 1, 3], [0, 3, 2]], 'dynamic': {'mass': 1}}",
        p, "not closed");
}
END_TEST

/* What a plane, a mesh and a box accept, and the normalised document
 * writes it back the same. */
START_TEST(dynamic_round_trips)
{
    ndem_job *job = parse_ok(DOC(
        ", 'geometry': [{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 0, 1], 'dynamic': "
        "{'mass': 1, 'lock': ['rx', 'ry', 'rz']}}, " BOX "'dynamic': {'mass': 2, 'inertia': [1, "
        "2, 3], 'lock': ['z', 'x'], 'force': [0, 1, 0], 'velocity': [1, 0, 0], "
        "'angular_velocity': [0, 0, 2]}}]"));
    const ndem_geometry_def *g = &job->scene.geometry[1];
    ck_assert(g->dynamic.enabled);
    ck_assert_double_eq(g->dynamic.mass, 2);
    ck_assert_double_eq(g->dynamic.inertia[2], 3);
    ck_assert_uint_eq(g->dynamic.lock, NDEM_LOCK_X | NDEM_LOCK_Z);
    ck_assert_double_eq(g->dynamic.force[1], 1);
    ck_assert_double_eq(g->velocity[0], 1);
    ck_assert_double_eq(g->angular_velocity[2], 2);
    ck_assert_uint_eq(job->scene.geometry[0].dynamic.lock, NDEM_LOCK_ROTATION);
    char *text = ndem_job_to_json(job);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "\"lock\": [\"x\", \"z\"]"));
    ndem_job *again = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(text, strlen(text), &again, &e), NDEM_JOB_OK);
    char *text2 = ndem_job_to_json(again);
    ck_assert_str_eq(text, text2);
    ck_assert_uint_eq(again->scene.geometry[1].dynamic.lock, NDEM_LOCK_X | NDEM_LOCK_Z);
    free(text);
    free(text2);
    ndem_job_destroy(again);
    ndem_job_destroy(job);
}
END_TEST

/* A named dynamic geometry writes its contact force, its torque and its
 * centre of mass (NAME_x..z, moving) in the series. */
START_TEST(dynamic_geometry_series_columns)
{
    ndem_job *job = plate_job(NDEM_SOLVER, 0.2, "", 1);
    ndem_series_cols cols;
    ck_assert_int_eq(ndem_series_cols_init(&cols, &job->scene), 0);
    char *header = ndem_series_header_of(&cols);
    ck_assert_ptr_nonnull(header);
    ck_assert_msg(strstr(header, "plate_fx,plate_fy,plate_fz,plate_tx,plate_ty,plate_tz,plate_x,"
                                 "plate_y,plate_z,crc32c\n") != NULL,
                  "header: %s", header);
    ndem_sim *sim = test_sim(job);
    for (int i = 0; i < 20; i++) test_step(sim);
    ndem_series_cols_sample(&cols, sim);
    char row[2048];
    int n = ndem_series_row(row, sizeof row, ndem_sim_stats(sim), &cols);
    ck_assert(n > 0 && (size_t)n < sizeof row);
    /* the last three numbers before the checksum: the centre of mass */
    const char *p = row + n;
    for (int k = 0; k < 4; k++)
        while (p > row && *--p != ',') continue;
    double c[3];
    ndem_sim_geometry_position(sim, 1, c);
    ck_assert_double_eq_tol(strtod(p + 1, NULL), c[0], 1e-12);
    ck_assert_double_lt(c[2], 0.0135); /* it fell from 0.0135 */
    free(header);
    ndem_series_cols_free(&cols);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A dynamic plane moves along its normal only: pushed along x and tilted
 * by gravity's pull along its (skew) normal, it falls at g n.n_z along n;
 * a dynamic mesh with its inertia falls at g, its centroid (a closed
 * mesh's centre of mass) on the parabola. No particles: free flight. */
START_TEST(plane_and_mesh_bodies_fly_free)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, "
        "0], \"normal\": [0, 0.6, 0.8], \"material\": \"steel\", \"dynamic\": {\"mass\": 2, "
        "\"lock\": [\"rx\", \"ry\", \"rz\"], \"force\": [5, 0, 0]}}, {\"type\": \"mesh\", "
        "\"vertices\": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], \"triangles\": [[0, 2, 1], "
        "[0, 1, 3], [0, 3, 2], [1, 2, 3]], \"position\": [3, 0, 0], \"material\": \"steel\", "
        "\"dynamic\": {\"mass\": 1, \"inertia\": [0.1, 0.1, 0.1], \"angular_velocity\": [0, 0, "
        "1]}}]}, \"solver\": {\"time_step\": 0.001, \"duration\": 1}}");
    ndem_sim *sim = test_sim(job);
    const int n = 100;
    const double h = 0.001;
    for (int i = 0; i < n; i++) test_step(sim);
    double c[3], m[3], q[4], t[3];
    ndem_sim_geometry_position(sim, 0, c);
    ndem_sim_geometry_pivot(sim, 1, m); /* the closed mesh turns about its centroid */
    /* along n: gravity's component -g n_z (the force is across n) */
    double a = -9.81 * 0.8, fall = a * h * h * n * (n + 1) / 2.0;
    ck_assert_double_eq_tol(c[0], 0.0, 1e-15);
    ck_assert_double_eq_tol(c[1], 0.6 * fall, 1e-12);
    ck_assert_double_eq_tol(c[2], 0.8 * fall, 1e-12);
    ck_assert_double_eq_tol(m[0], 3.25, 1e-12);
    ck_assert_double_eq_tol(m[1], 0.25, 1e-12);
    ck_assert_double_eq_tol(m[2], 0.25 - 9.81 * h * h * n * (n + 1) / 2.0, 1e-12);
    ndem_sim_geometry_pose(sim, 1, t, q);
    ck_assert_double_eq_tol(q[3], sin(0.5 * n * h), 1e-12); /* a turn of 0.1 rad about z */
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A closed mesh's inertia comes from the mesh: a 1 x 2 x 3 brick as a mesh
 * (its corner at the origin, so its centroid is not its position) and as a
 * box, both dynamic with the same mass and spin about a skew axis in free
 * flight, turn alike (the same tensor, M (b^2 + c^2) / 12, ...) about their
 * centres; a wrong inertia or pivot would make them precess apart. */
START_TEST(closed_mesh_turns_like_its_box)
{
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], " TEST_MATERIALS ", \"geometry\": [{\"type\": "
        "\"mesh\", \"vertices\": [[0, 0, 0], [1, 0, 0], [1, 2, 0], [0, 2, 0], [0, 0, 3], [1, 0, "
        "3], "
        "[1, 2, 3], [0, 2, 3]], \"triangles\": [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, "
        "5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]], "
        "\"position\": [10, 0, 0], \"material\": \"steel\", \"dynamic\": {\"mass\": 6, "
        "\"angular_velocity\": [1, 2, 3]}}, {\"type\": \"box\", \"min\": [-0.5, -1, -1.5], "
        "\"max\": [0.5, 1, 1.5], \"material\": \"steel\", \"dynamic\": {\"mass\": 6, "
        "\"angular_velocity\": [1, 2, 3]}}]}, \"solver\": {\"time_step\": 0.001, \"duration\": "
        "1}}");
    ndem_sim *sim = test_sim(job);
    for (int i = 0; i < 500; i++) test_step(sim);
    double cm[3], cb[3], qm[4], qb[4], t[3];
    ndem_sim_geometry_pivot(sim, 0, cm);
    ndem_sim_geometry_pivot(sim, 1, cb);
    ck_assert_double_eq_tol(cm[0], 10.5, 1e-12); /* the centroid stays put */
    ck_assert_double_eq_tol(cm[1], 1.0, 1e-12);
    ck_assert_double_eq_tol(cm[2], 1.5, 1e-12);
    for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(cb[k], 0.0, 1e-12);
    ndem_sim_geometry_pose(sim, 0, t, qm);
    ndem_sim_geometry_pose(sim, 1, t, qb);
    for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(qm[k], qb[k], 1e-9);
    /* a skew spin about a brick's non-principal axis precesses: the turn is
     * not about the initial axis (so the test sees the tensor, not only
     * its trace) */
    double s = sqrt(1.0 - qb[0] * qb[0]);
    ck_assert(fabs(qb[1] / s - 1.0 / sqrt(14.0)) > 1e-3);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The engine refuses what the parser would (a caller of the C API): a
 * partial inertia, a mass that is not positive. */
START_TEST(engine_refuses_bad_bodies)
{
    ndem_job *job = plate_job(NDEM_SOLVER, 0.2, "", 1);
    ndem_geometry_def *g = (ndem_geometry_def *)&job->scene.geometry[1];
    char err[256] = "";
    g->dynamic.inertia[0] = 1.0; /* the other two zero */
    ck_assert_ptr_null(ndem_sim_create(&job->scene, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "geometry 1: a dynamic body's inertia"));
    g->dynamic.inertia[0] = 0.0;
    g->dynamic.mass = 0.0;
    ck_assert_ptr_null(ndem_sim_create(&job->scene, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "geometry 1: a dynamic body's mass"));
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rigid");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, box_mass_props_are_the_textbook_ones);
    tcase_add_test(tc, cylinder_mass_props_are_the_textbook_ones);
    tcase_add_test(tc, plate_rests_on_a_bed_ndem);
    tcase_add_test(tc, plate_rests_on_a_bed_dem);
    tcase_add_test(tc, momentum_balances_over_an_impact);
    tcase_add_test(tc, free_box_keeps_its_angular_momentum);
    tcase_add_test(tc, drum_turns_at_torque_over_inertia_ndem);
    tcase_add_test(tc, drum_turns_at_torque_over_inertia_dem);
    tcase_add_test(tc, one_and_two_threads_give_the_same_bits);
    tcase_add_test(tc, locked_axes_never_move);
    tcase_add_test(tc, checkpoint_restores_the_bodies);
    tcase_add_test(tc, dynamic_errors_name_their_pointer);
    tcase_add_test(tc, dynamic_round_trips);
    tcase_add_test(tc, dynamic_geometry_series_columns);
    tcase_add_test(tc, plane_and_mesh_bodies_fly_free);
    tcase_add_test(tc, closed_mesh_turns_like_its_box);
    tcase_add_test(tc, engine_refuses_bad_bodies);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
