/* test_motion.c - moving geometry (issue 13): keyframes reach their poses
 * and interpolate as the formula says, turned boxes and planes collide as
 * turned shapes, moving walls carry what rests on them at their velocity,
 * `motion` equals the shorthand, poses survive checkpoints (formats 3 and
 * 4), and every new member of the document is checked with a pointer.
 * Expected numbers come from geometry and mechanics, never from a run. */
#include "ckpt3.h" /* format 3 checkpoints */
#include "parser_util.h"
#include "scene.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const double G = 9.81;

#define ORE_STEEL(friction, restitution)                                                           \
    "\"contact_materials\": [{\"materials\": [\"ore\", \"steel\"], \"friction\": " #friction       \
    ", \"restitution\": " #restitution "}]"

/* One sphere of radius 0.01 (ore) at (x, y, z) on or in one geometry (steel). */
static ndem_job *one_sphere(const char *geometry, double x, double y, double z, const char *extra,
                            double h, double duration, const char *method)
{
    return test_job(
        "{\"scene\": {" TEST_MATERIALS ", " ORE_STEEL(
            0.5, 0.1) ", \"geometry\": [%s],"
                      "\"particles\": [{\"type\": \"list\", \"spheres\": [[%.17g, %.17g, %.17g, "
                      "0.01]], \"material\": \"ore\"%s}]},"
                      "\"solver\": {\"time_step\": %.17g, \"duration\": %g%s}}",
        geometry, x, y, z, extra, h, duration, method);
}

static double ndem_norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static void run_to_end(ndem_sim *sim)
{
    for (long i = ndem_sim_stats(sim)->step; i < ndem_sim_total_steps(sim); i++) test_step(sim);
}

/* Position and velocity of body 0. */
static void body0(const ndem_sim *sim, double x[3], double v[3])
{
    ndem_frame f;
    test_frame(sim, &f);
    memcpy(x, f.positions, 3 * sizeof(double));
    memcpy(v, f.velocities, 3 * sizeof(double));
    ndem_frame_free(&f);
}

/* R(q) v, written out here (not the engine's helper). */
static void rotate(const double q[4], const double v[3], double out[3])
{
    double w = q[0], a[3] = {q[1], q[2], q[3]}, t[3], u[3];
    t[0] = 2 * (a[1] * v[2] - a[2] * v[1]);
    t[1] = 2 * (a[2] * v[0] - a[0] * v[2]);
    t[2] = 2 * (a[0] * v[1] - a[1] * v[0]);
    u[0] = a[1] * t[2] - a[2] * t[1];
    u[1] = a[2] * t[0] - a[0] * t[2];
    u[2] = a[0] * t[1] - a[1] * t[0];
    for (int k = 0; k < 3; k++) out[k] = v[k] + w * t[k] + u[k];
}

/* ---- keyframes: exact at their times, the formula in between ---- */

/* Slerp by the textbook formula (sin((1-s)θ) q0 + sin(sθ) q1) / sin θ, the
 * shorter arc; the engine uses the exponential form. */
static void slerp(const double *q0, const double *q1in, double s, double out[4])
{
    double q1[4], d = 0;
    for (int k = 0; k < 4; k++) d += q0[k] * q1in[k];
    for (int k = 0; k < 4; k++) q1[k] = d < 0 ? -q1in[k] : q1in[k];
    d = fabs(d);
    double th = acos(fmin(d, 1.0));
    for (int k = 0; k < 4; k++)
        out[k] = th < 1e-12 ? q0[k] : (sin((1 - s) * th) * q0[k] + sin(s * th) * q1[k]) / sin(th);
}

START_TEST(keyframes_reach_each_pose_and_interpolate)
{
    /* h = 2^-10 s lands exactly on the keyframe times 0.0625, 0.25, 0.375 */
    const double h = 1.0 / 1024, c45 = sqrt(0.5);
    const double kt[3] = {0.0625, 0.25, 0.375};
    const double kp[3][3] = {{1, 0, 0}, {1.5, 0.25, -0.5}, {1.5, 1.0, 0}};
    const double kq[3][4] = {{1, 0, 0, 0}, {c45, 0, 0, c45}, {0.5, 0.5, 0.5, 0.5}};
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", \"min\": [0.9, -0.2, "
        "-0.3], \"max\": [1.1, 0.2, 0.3], \"motion\": {\"keyframes\": ["
        "{\"time\": 0.0625, \"position\": [1, 0, 0], \"orientation\": [1, 0, 0, 0]},"
        "{\"time\": 0.25, \"position\": [1.5, 0.25, -0.5], \"orientation\": [%.17g, 0, 0, %.17g]},"
        "{\"time\": 0.375, \"position\": [1.5, 1.0, 0], \"orientation\": [0.5, 0.5, 0.5, "
        "0.5]}]}}]},"
        "\"solver\": {\"time_step\": %.17g, \"duration\": 0.5}}",
        c45, c45, h);
    ndem_sim *sim = test_sim(job);
    const double corner[3] = {1.1, 0.2, 0.3}, rel[3] = {0.1, 0.2, 0.3}; /* corner - centre */
    int at_keyframe = 0;
    for (long i = 0; i <= ndem_sim_total_steps(sim); i++) {
        if (i > 0) test_step(sim);
        double t = (double)i * h, p[3], q[4], tr[3], ep[3], eq[4];
        ndem_sim_geometry_position(sim, 0, p);
        ndem_sim_geometry_pose(sim, 0, tr, q);
        int seg = t < kt[1] ? 0 : 1;
        if (t <= kt[0] || t >= kt[2]) { /* held: the first before it, the last after */
            int k = t <= kt[0] ? 0 : 2;
            memcpy(ep, kp[k], sizeof ep);
            memcpy(eq, kq[k], sizeof eq);
        } else {
            double s = (t - kt[seg]) / (kt[seg + 1] - kt[seg]);
            for (int k = 0; k < 3; k++) ep[k] = kp[seg][k] + s * (kp[seg + 1][k] - kp[seg][k]);
            slerp(kq[seg], kq[seg + 1], s, eq);
        }
        for (int j = 0; j < 3; j++)
            if (t == kt[j]) { /* at a keyframe: its pose exactly */
                at_keyframe++;
                for (int k = 0; k < 3; k++) ck_assert_double_eq(p[k], kp[j][k]);
                for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(q[k], kq[j][k], 1e-15);
            }
        for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(p[k], ep[k], 1e-14);
        double dot = 0;
        for (int k = 0; k < 4; k++) dot += q[k] * eq[k];
        ck_assert_msg(fabs(dot) > 1 - 1e-13, "t = %g: orientation off the slerp (dot %.17g)", t,
                      dot);
        /* world = R x + t maps the box's corner to reference point + R (corner - centre) */
        double wc[3], wr[3];
        rotate(q, corner, wc);
        rotate(q, rel, wr);
        for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(wc[k] + tr[k], p[k] + wr[k], 1e-14);
    }
    ck_assert_int_eq(at_keyframe, 3);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* Frames (what ndem run, ndemd and the stream write) carry every
 * geometry's pose: a keyframed box's is the keyframes' interpolation at the
 * frame's time, the static plane's its point and no turn; and each
 * particle's material is its generator's (ore 0, steel 1, in the order
 * TEST_MATERIALS lists them). */
START_TEST(frames_carry_keyframed_poses_and_materials)
{
    const double h = 1.0 / 1024, c45 = sqrt(0.5);
    const double p0[3] = {1, 0, 0}, p1[3] = {1.5, 0.25, -0.5};
    const double q0[4] = {1, 0, 0, 0}, q1[4] = {c45, 0, 0, c45};
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, "
        "-1], \"normal\": [0, 0, 1]}, {\"type\": \"box\", \"min\": [0.9, -0.2, -0.3], \"max\": "
        "[1.1, 0.2, 0.3], \"motion\": {\"keyframes\": ["
        "{\"time\": 0, \"position\": [1, 0, 0], \"orientation\": [1, 0, 0, 0]},"
        "{\"time\": 0.25, \"position\": [1.5, 0.25, -0.5], \"orientation\": [%.17g, 0, 0, "
        "%.17g]}]}}], \"particles\": [{\"type\": \"list\", \"spheres\": [[-1, 0, 0, 0.01], [-1, "
        "0.1, 0, 0.01]], \"material\": \"steel\"}, {\"type\": \"list\", \"spheres\": [[-1, 0.2, 0, "
        "0.01]], \"material\": \"ore\"}]},"
        "\"solver\": {\"time_step\": %.17g, \"duration\": 0.5}}",
        c45, c45, h);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i <= 320; i++) {
        if (i > 0) test_step(sim);
        if (i % 40) continue;
        ndem_frame f;
        ck_assert_int_eq(ndem_sim_copy_motion(sim, &f), 0);
        double t = f.time, s = fmin(t / 0.25, 1.0), ep[3], eq[4], dot = 0;
        for (int k = 0; k < 3; k++) ep[k] = p0[k] + s * (p1[k] - p0[k]);
        slerp(q0, q1, s, eq);
        ck_assert_int_eq(f.geometry_count, 2);
        const double *plane = f.geometry_poses, *box = f.geometry_poses + 7;
        const double still[7] = {0, 0, -1, 1, 0, 0, 0};
        for (int k = 0; k < 7; k++) ck_assert_double_eq(plane[k], still[k]);
        for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(box[k], ep[k], 1e-14);
        for (int k = 0; k < 4; k++) dot += box[3 + k] * eq[k];
        ck_assert_msg(fabs(dot) > 1 - 1e-13, "t = %g: orientation off the slerp", t);
        ck_assert_int_eq(f.count, 3);
        const int want[3] = {1, 1, 0};
        for (int k = 0; k < 3; k++) ck_assert_int_eq(f.materials[k], want[k]);
        ndem_frame_free(&f);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- turned shapes collide as turned shapes ---- */

/* A cube container turned 45 degrees about x: its bottom is the edge of two
 * walls at 45 degrees, and a sphere rests in that V touching both, its
 * centre r sqrt(2) above the edge (the unturned box would hold it at the
 * bottom face, 0.41). */
START_TEST(sphere_rests_in_the_v_of_a_turned_box)
{
    double a = M_PI / 8; /* half of 45 degrees */
    char geo[400];
    snprintf(
        geo, sizeof geo,
        "{\"type\": \"box\", \"min\": [-0.1, -0.1, -0.1], \"max\": [0.1, 0.1, 0.1], "
        "\"inside\": true, \"material\": \"steel\", \"motion\": {\"keyframes\": [{\"time\": 0, "
        "\"position\": [0, 0, 0.5], \"orientation\": [%.17g, %.17g, 0, 0]}]}}",
        cos(a), sin(a));
    ndem_job *job = one_sphere(geo, 0, 0, 0.45, "", 1e-3, 1.0, "");
    ndem_sim *sim = test_sim(job);
    run_to_end(sim);
    double x[3], v[3];
    body0(sim, x, v);
    double want = 0.5 - 0.1 * sqrt(2.0) + 0.01 * sqrt(2.0);
    fprintf(stderr, "V of a turned box: z %.6f (geometry: %.6f), y %.2e\n", x[2], want, x[1]);
    /* Hertz sag of ore on steel under this weight is about 2e-5 m */
    ck_assert_double_eq_tol(x[2], want, 1e-4);
    ck_assert_double_eq_tol(x[1], 0.0, 1e-4);
    ck_assert_double_lt(ndem_norm3(v), 1e-3);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A solid box 0.4 x 0.2 x 0.1 turned a quarter turn about x in its first
 * 0.1 s: its top is then 0.1 above its centre (not 0.05), and a sphere
 * dropped on it comes to rest there. */
START_TEST(sphere_lands_on_a_box_turned_90_degrees)
{
    double c = sqrt(0.5);
    char geo[500];
    snprintf(geo, sizeof geo,
             "{\"type\": \"box\", \"min\": [-0.2, -0.1, -0.05], \"max\": [0.2, 0.1, 0.05], "
             "\"material\": \"steel\", \"motion\": {\"keyframes\": [{\"time\": 0, \"position\": "
             "[0, 0, 0], \"orientation\": [1, 0, 0, 0]}, {\"time\": 0.1, \"position\": [0, 0, 0], "
             "\"orientation\": [%.17g, %.17g, 0, 0]}]}}",
             c, c);
    ndem_job *job = one_sphere(geo, 0, 0, 0.2, "", 1e-3, 0.8, "");
    ndem_sim *sim = test_sim(job);
    run_to_end(sim);
    double x[3], v[3];
    body0(sim, x, v);
    fprintf(stderr, "box turned 90 degrees: sphere at z %.6f (geometry: 0.11)\n", x[2]);
    ck_assert_double_eq_tol(x[2], 0.1 + 0.01, 1e-4);
    ck_assert_double_eq_tol(x[1], 0.0, 1e-6);
    ck_assert_double_lt(ndem_norm3(v), 1e-3);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A floor turned 30 degrees about x by its keyframe: a sphere on it rolls
 * down the slope (friction 0.5 > 2/7 tan 30) with 5/7 g sin 30. */
START_TEST(sphere_rolls_down_a_turned_plane)
{
    double th = M_PI / 6, T = 0.3;
    char geo[400];
    snprintf(geo, sizeof geo,
             "{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1], \"material\": "
             "\"steel\", \"motion\": {\"keyframes\": [{\"time\": 0, \"position\": [0, 0, 0], "
             "\"orientation\": [%.17g, %.17g, 0, 0]}]}}",
             cos(th / 2), sin(th / 2));
    double n[3] = {0, -sin(th), cos(th)}, down[3] = {0, -cos(th), -sin(th)};
    ndem_job *job = one_sphere(geo, 0, 0.01 * n[1], 0.01 * n[2], "", 1e-3, T, "");
    ndem_sim *sim = test_sim(job);
    run_to_end(sim);
    double x[3], v[3];
    body0(sim, x, v);
    double along = x[1] * down[1] + x[2] * down[2] - 0.01 * (n[1] * down[1] + n[2] * down[2]);
    double want = 0.5 * 5.0 / 7.0 * G * sin(th) * T * T;
    fprintf(stderr, "turned plane: %.5f m down the slope (rolling: %.5f)\n", along, want);
    ck_assert_double_eq_tol(along, want, 0.02 * want);
    ck_assert_double_eq_tol(x[1] * n[1] + x[2] * n[2], 0.01, 1e-4); /* still on it */
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- moving walls carry what rests on them ---- */

/* A floor rising at 0.05 m/s (constant motion, or keyframes) lifts a
 * sphere resting on it at that velocity, in both methods. */
static void lift(const char *motion, const char *method, double h, double tol_v)
{
    char geo[300];
    snprintf(geo, sizeof geo,
             "{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1], \"material\": "
             "\"steel\", \"motion\": %s}",
             motion);
    ndem_job *job = one_sphere(geo, 0, 0, 0.01, "", h, 0.4, method);
    ndem_sim *sim = test_sim(job);
    run_to_end(sim);
    double x[3], v[3], p[3];
    body0(sim, x, v);
    ndem_sim_geometry_position(sim, 0, p);
    double t = ndem_sim_stats(sim)->time;
    fprintf(stderr, "lift %s%s: vz %.6f, z %.6f, floor %.6f\n", motion, method, v[2], x[2], p[2]);
    ck_assert_double_eq_tol(p[2], 0.05 * t, 1e-12);
    ck_assert_double_eq_tol(v[2], 0.05, tol_v);
    ck_assert_double_eq_tol(x[2], 0.01 + 0.05 * t, 1e-4); /* Hertz sag ~1e-5 */
    ck_assert_double_eq_tol(v[0], 0.0, 1e-9);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(rising_floor_lifts_a_sphere)
{
    lift("{\"velocity\": [0, 0, 0.05]}", "", 1e-3, 5e-4);
    lift("{\"keyframes\": [{\"time\": 0, \"position\": [0, 0, 0], \"orientation\": [1, 0, 0, 0]},"
         "{\"time\": 1, \"position\": [0, 0, 0.05], \"orientation\": [1, 0, 0, 0]}]}",
         "", 1e-3, 5e-4);
    /* smooth DEM: a spring carries it, ringing a little about 0.05 */
    lift("{\"velocity\": [0, 0, 0.05]}", ", \"method\": \"dem\"", 2e-5, 5e-3);
}
END_TEST

/* A turntable (the floor turning at 1 rad/s about the vertical through a
 * pivot off the origin) drags a sphere by friction until it turns with it:
 * its velocity approaches w x (x - pivot). The sphere's rotation is locked:
 * a free ball rolling on a turntable orbits at 2/7 w about a fixed point
 * instead (a classic result), which is not what this checks. */
START_TEST(turntable_drags_a_sphere_by_friction)
{
    const double w = 1.0, px = 0.3, py = 0.2, R = 0.1;
    ndem_job *job = one_sphere("{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1], "
                               "\"material\": \"steel\", \"motion\": {\"angular_velocity\": [0, "
                               "0, 1], \"pivot\": [0.3, 0.2, 0]}}",
                               px + R, py, 0.01, ", \"fixed_rotation\": true", 1e-3, 1.0, "");
    ndem_sim *sim = test_sim(job);
    /* slipping ends after w R / (mu g) = 0.02 s; then the velocity lags
     * w x r by about w^2 R h (the wall velocity is taken where the contact
     * is at the start of each step) */
    run_to_end(sim);
    double x[3], v[3];
    body0(sim, x, v);
    double rx = x[0] - px, ry = x[1] - py, u[2] = {-w * ry, w * rx};
    fprintf(stderr, "turntable: v (%.5f, %.5f), w x r (%.5f, %.5f), radius %.5f\n", v[0], v[1],
            u[0], u[1], hypot(rx, ry));
    double h = 1e-3, tol = 5 * w * w * R * h;
    ck_assert_double_eq_tol(v[0], u[0], tol);
    ck_assert_double_eq_tol(v[1], u[1], tol);
    ck_assert_double_eq_tol(hypot(rx, ry), R, 0.02 * R);
    /* it went round with the table: the angle is w t less the slip */
    double angle = atan2(ry, rx);
    ck_assert_double_eq_tol(angle, w * 1.0, 0.05);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- motion equals the shorthand; turns do not drift ---- */

static uint64_t drum_hash(const char *spin, long steps)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"cylinder\", \"center\": "
        "[0, 0, 0], \"axis\": [0, 1, 0], \"radius\": 0.05, \"length\": 0.04, \"inside\": true, "
        "\"material\": \"steel\", %s}], \"particles\": [{\"type\": \"random\", \"min\": [-0.03, "
        "-0.015, -0.03], \"max\": [0.03, 0.015, 0.03], \"count\": 60, \"radius\": 0.004, "
        "\"material\": \"ore\", \"seed\": 5}]}, \"solver\": {\"time_step\": 1e-3, \"duration\": "
        "1}}",
        spin);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < steps; i++) test_step(sim);
    uint64_t hash = ndem_sim_state_hash(sim);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return hash;
}

START_TEST(drum_motion_equals_the_shorthand)
{
    uint64_t still = drum_hash("\"velocity\": [0, 0, 0]", 150);
    uint64_t shorthand = drum_hash("\"angular_velocity\": 3", 150);
    ck_assert_uint_ne(shorthand, still); /* the turn matters */
    ck_assert_uint_eq(drum_hash("\"motion\": {\"angular_velocity\": [0, 3, 0]}", 150), shorthand);
    ck_assert_uint_eq(
        drum_hash("\"motion\": {\"angular_velocity\": [0, 3, 0], \"pivot\": [0, 0, 0]}", 150),
        shorthand);
}
END_TEST

/* 50000 steps of a turning box: the orientation is the exact turn w t, not
 * a product of 50000 small turns. */
START_TEST(constant_turn_does_not_drift)
{
    ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", "
                             "\"min\": [-1, -1, -1], \"max\": [1, 1, 1], \"motion\": "
                             "{\"angular_velocity\": [0.3, -1.2, 2.0], \"pivot\": [1, 2, 3]}}]},"
                             "\"solver\": {\"time_step\": 1e-3, \"duration\": 50}}");
    ndem_sim *sim = test_sim(job);
    run_to_end(sim);
    double w[3] = {0.3, -1.2, 2.0}, a = sqrt(0.09 + 1.44 + 4.0), t = ndem_sim_stats(sim)->time;
    double tr[3], q[4], p[3], c[3];
    ndem_sim_geometry_pose(sim, 0, tr, q);
    ndem_sim_geometry_pivot(sim, 0, p);
    ndem_sim_geometry_position(sim, 0, c);
    ck_assert_double_eq_tol(t, 50.0, 1e-9);
    ck_assert_double_eq_tol(q[0], cos(0.5 * a * t), 1e-13);
    for (int k = 0; k < 3; k++)
        ck_assert_double_eq_tol(q[k + 1], sin(0.5 * a * t) * w[k] / a, 1e-13);
    /* the pivot stays where it is and is a fixed point of the pose; the
     * centre (the origin as defined) has gone round it to t */
    double pivot[3] = {1, 2, 3}, img[3], arm[3] = {-1, -2, -3}, carm[3];
    rotate(q, pivot, img);
    rotate(q, arm, carm);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq(p[k], pivot[k]);
        ck_assert_double_eq_tol(img[k] + tr[k], pivot[k], 1e-12);
        ck_assert_double_eq_tol(c[k], pivot[k] + carm[k], 1e-12);
        ck_assert_double_eq_tol(c[k], tr[k], 1e-12);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- checkpoints ---- */

static ndem_job *moving_scene(void)
{
    return test_job("{\"scene\": {" TEST_MATERIALS ", " ORE_STEEL(
        0.5,
        0.3) ", \"geometry\": ["
             "{\"type\": \"box\", \"min\": [-0.1, -0.1, 0], \"max\": [0.1, 0.1, 0.2], \"inside\": "
             "true,"
             " \"material\": \"steel\", \"motion\": {\"keyframes\": ["
             "{\"time\": 0, \"position\": [0, 0, 0.1], \"orientation\": [1, 0, 0, 0]},"
             "{\"time\": 0.5, \"position\": [0.01, 0, 0.12], \"orientation\": [0.9, 0.1, 0.3, "
             "0.2]}]}},"
             "{\"type\": \"plane\", \"point\": [0, 0, 0.02], \"normal\": [0, 0.1, 1], "
             "\"material\": "
             "\"steel\", \"motion\": {\"velocity\": [0, 0, 0.02], \"angular_velocity\": [0.5, 0, "
             "1], "
             "\"pivot\": [0.01, 0.02, 0.03]}}],"
             "\"particles\": [{\"type\": \"random\", \"min\": [-0.06, -0.06, 0.06], \"max\": "
             "[0.06, "
             "0.06, 0.15], \"count\": 80, \"radius\": 0.006, \"material\": \"ore\", \"seed\": 3}]},"
             "\"solver\": {\"time_step\": 1e-3, \"duration\": 1}}");
}

/* tol 0: bit for bit */
static void same_poses(const ndem_sim *a, const ndem_sim *b, int n, double tol)
{
    for (int g = 0; g < n; g++) {
        double ta[3], qa[4], tb[3], qb[4];
        ndem_sim_geometry_pose(a, g, ta, qa);
        ndem_sim_geometry_pose(b, g, tb, qb);
        if (tol == 0) {
            ck_assert_mem_eq(ta, tb, sizeof ta);
            ck_assert_mem_eq(qa, qb, sizeof qa);
            continue;
        }
        for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(ta[k], tb[k], tol);
        for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(qa[k], qb[k], tol);
    }
}

START_TEST(checkpoint_keeps_the_poses)
{
    ndem_job *job = moving_scene();
    ndem_sim *sim = test_sim(job);
    for (int i = 0; i < 40; i++) test_step(sim);
    void *buf;
    size_t len;
    ck_assert_int_eq(ndem_sim_checkpoint(sim, &buf, &len), 0);
    char err[256];
    ndem_sim *back = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(back != NULL, "%s", err);
    same_poses(sim, back, 2, 0);
    for (int i = 0; i < 40; i++) {
        test_step(sim);
        test_step(back);
    }
    same_poses(sim, back, 2, 0);
    ck_assert_uint_eq(ndem_sim_state_hash(back), ndem_sim_state_hash(sim));
    free(buf);
    ndem_sim_destroy(back);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The shorthand scene of test_determinism in small (a moving box, a drum
 * turning in it): a format 3 checkpoint restores and then steps bit for
 * bit as never stopping. */
START_TEST(format3_checkpoint_still_restores)
{
    ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS ", " ORE_STEEL(
        0.7,
        0.3) ", \"geometry\": ["
             "{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.25, 0.25, 0.6], \"inside\": "
             "true, "
             "\"material\": \"steel\", \"velocity\": [0.01, 0, 0]},"
             "{\"type\": \"cylinder\", \"center\": [0.125, 0.125, 0.1], \"axis\": [1, 0, 0], "
             "\"radius\": 0.02, \"length\": 0.2, \"angular_velocity\": 3.0, \"material\": "
             "\"steel\"}],"
             "\"particles\": [{\"type\": \"random\", \"min\": [0.01, 0.01, 0.15], \"max\": [0.24, "
             "0.24, 0.3], \"count\": 150, \"radius\": 0.006, \"material\": \"ore\", \"seed\": 7}]},"
             "\"solver\": {\"time_step\": 0.002, \"duration\": 1}}");
    ndem_sim *sim = test_sim(job);
    for (int i = 0; i < 30; i++) test_step(sim);
    void *buf;
    size_t len;
    ck_assert_int_eq(ndem_sim_checkpoint(sim, &buf, &len), 0);
    bytes v3 = ndem_test_to_format3(buf, len, ndem_sim_particle_count(sim), 2, 0);
    free(buf);
    buf = v3.p;
    len = v3.len;
    char err[256];
    ndem_sim *back = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(back != NULL, "%s", err);
    /* format 3 kept only the moved shapes: the shift is recomputed from
     * them, equal up to rounding */
    same_poses(sim, back, 2, 1e-15);
    for (int i = 0; i < 30; i++) {
        test_step(sim);
        test_step(back);
    }
    ck_assert_uint_eq(ndem_sim_state_hash(back), ndem_sim_state_hash(sim));
    /* format 2 stays refused */
    uint32_t v2 = 2;
    memcpy((unsigned char *)buf + 8, &v2, 4);
    ck_assert_ptr_null(ndem_sim_restore(&job->scene, buf, len, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "checkpoint version 2 is not supported"));
    free(buf);
    ndem_sim_destroy(back);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- the document ---- */

#define GEO(g) DOC(", 'geometry': [" g "]")

static const struct motion_error {
    const char *doc, *pointer, *message;
} motion_errors[] = {
    {GEO("{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 0, 1], 'velocity': [0, 0, 1], "
         "'motion': {'velocity': [0, 0, 1]}}"),
     "/scene/geometry/0/motion", "not both"},
    {GEO("{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 0, 1], 'angular_velocity': 1, "
         "'motion': {}}"),
     "/scene/geometry/0/motion", "not both"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': [1, 2]}"),
     "/scene/geometry/0/motion", "must be an object"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'spin': 1}}"),
     "/scene/geometry/0/motion/spin", "unknown field"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'velocity': [1, 2]}}"),
     "/scene/geometry/0/motion/velocity", "3 numbers"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'angular_velocity': "
         "1}}"),
     "/scene/geometry/0/motion/angular_velocity", "3 numbers"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'pivot': [0, 'a', "
         "0]}}"),
     "/scene/geometry/0/motion/pivot/1", ""},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'pivot': [0, 0, 0], "
         "'keyframes': [{'time': 0, 'position': [0, 0, 0], 'orientation': [1, 0, 0, 0]}]}}"),
     "/scene/geometry/0/motion/pivot", "not with \"keyframes\""},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': []}}"),
     "/scene/geometry/0/motion/keyframes", "must not be empty"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': {}}}"),
     "/scene/geometry/0/motion/keyframes", "array"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': [3]}}"),
     "/scene/geometry/0/motion/keyframes/0", "must be an object"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'time': 1, 'position': [0, 0, 0], 'orientation': [1, 0, 0, 0]},"
         "{'time': 1, 'position': [0, 0, 0], 'orientation': [1, 0, 0, 0]}]}}"),
     "/scene/geometry/0/motion/keyframes/1/time", "strictly increase"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'time': 1, 'position': [0, 0, 0], 'orientation': [1, 0, 0, 0]},"
         "{'time': 2, 'position': [0, 0, 0], 'orientation': [1, 0, 0, 0]},"
         "{'time': 1.5, 'position': [0, 0, 0], 'orientation': [1, 0, 0, 0]}]}}"),
     "/scene/geometry/0/motion/keyframes/2/time", "greater than the time of the keyframe before"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'time': 'soon', 'position': [0, 0, 0], 'orientation': [1, 0, 0, 0]}]}}"),
     "/scene/geometry/0/motion/keyframes/0/time", "number"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'position': [0, 0, 0], 'orientation': [1, 0, 0, 0]}]}}"),
     "/scene/geometry/0/motion/keyframes/0/time", "is required"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'time': 0, 'orientation': [1, 0, 0, 0]}]}}"),
     "/scene/geometry/0/motion/keyframes/0/position", "is required"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'time': 0, 'position': [0, 0]}]}}"),
     "/scene/geometry/0/motion/keyframes/0/position", "3 numbers"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'time': 0, 'position': [0, 0, 0]}]}}"),
     "/scene/geometry/0/motion/keyframes/0/orientation", "is required"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'time': 0, 'position': [0, 0, 0], 'orientation': [0, 0, 0, 0]}]}}"),
     "/scene/geometry/0/motion/keyframes/0/orientation", "zero quaternion"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'time': 0, 'position': [0, 0, 0], 'orientation': [1, 0, 0]}]}}"),
     "/scene/geometry/0/motion/keyframes/0/orientation", "4 numbers"},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'time': 0, 'position': [0, 0, 0], 'orientation': [1, 0, 'x', 0]}]}}"),
     "/scene/geometry/0/motion/keyframes/0/orientation/2", ""},
    {GEO("{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'motion': {'keyframes': ["
         "{'time': 0, 'position': [0, 0, 0], 'orientation': [1, 0, 0, 0], 'scale': 2}]}}"),
     "/scene/geometry/0/motion/keyframes/0/scale", "unknown field"},
};

START_TEST(motion_errors_have_pointers)
{
    const struct motion_error *b = &motion_errors[_i];
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(b->doc, &job, &e);
    if (st != NDEM_JOB_INVALID || !has_error(&e, b->pointer, b->message)) {
        fprintf(stderr, "case %d: want %s: %s\n", _i, b->pointer, b->message);
        dump_errors(&e);
    }
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    ck_assert(has_error(&e, b->pointer, b->message));
    ck_assert_ptr_null(job);
    ndem_job_errors_clear(&e);
}
END_TEST

static Suite *motion_suite(void)
{
    Suite *s = suite_create("motion");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, keyframes_reach_each_pose_and_interpolate);
    tcase_add_test(tc, frames_carry_keyframed_poses_and_materials);
    tcase_add_test(tc, sphere_rests_in_the_v_of_a_turned_box);
    tcase_add_test(tc, sphere_lands_on_a_box_turned_90_degrees);
    tcase_add_test(tc, sphere_rolls_down_a_turned_plane);
    tcase_add_test(tc, rising_floor_lifts_a_sphere);
    tcase_add_test(tc, turntable_drags_a_sphere_by_friction);
    tcase_add_test(tc, drum_motion_equals_the_shorthand);
    tcase_add_test(tc, constant_turn_does_not_drift);
    tcase_add_test(tc, checkpoint_keeps_the_poses);
    tcase_add_test(tc, format3_checkpoint_still_restores);
    tcase_add_loop_test(tc, motion_errors_have_pointers, 0,
                        (int)(sizeof motion_errors / sizeof motion_errors[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(motion_suite()); }
