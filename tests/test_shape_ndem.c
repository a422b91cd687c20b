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

static Suite *shape_ndem_suite(void)
{
    Suite *s = suite_create("shape_ndem");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, cube_rests_on_plane);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(shape_ndem_suite()); }
