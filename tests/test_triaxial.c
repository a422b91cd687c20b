/* test_triaxial.c - the triaxial test of Wang, Servin and Berglund, "Warm
 * starting the projected Gauss-Seidel algorithm for granular matter
 * simulation" (2016), section 4.4, with its pellets (Table 1, E = 60 MPa,
 * h = 5 ms): walls of 100 kg hold a hydrostatic 100 Pa without bouncing,
 * and a small dense sample sheared at 0.01 m/s keeps its sides and fails at
 * the paper's deviator; sheared with 100 kg walls, its sides feel the
 * motors' stress less the walls' inertia (issue 13, validation 6; the
 * stress-controlled box's own checks are in test_walls.c, the full study
 * in make validate). */
#include "rigid.h"
#include "scene.h"
#include "sim.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>

/* The walls' stress and size now. */
static void walls_now(const ndem_sim *sim, double stress[3], double size[3])
{
    ck_assert_int_eq(ndem_sim_walls(sim, 0, stress, size), 0);
}

/* Runs to time t (s). */
static void run_to(ndem_sim *sim, double t)
{
    while (sim->time < t - 0.5 * sim->solver.time_step) test_step(sim);
}

/* The paper's walls of 100 kg (Wang et al., "warm starting", section 4.4:
 * E = 60 MPa, bi-disperse 13/10 mm, density 3700, mu 0.91, mu_r 0.32, e
 * 0.18, h 5 ms) around 400 spheres: the walls close the loose sample in
 * about 4 s (their push accelerates 100 kg at 1 to 1.4 N), then hold 100
 * Pa within 2 % with the walls still. */
START_TEST(heavy_walls_hold_the_hydrostatic_stress)
{
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], \"materials\": [{\"name\": \"ore\", \"density\": "
        "3700, \"young_modulus\": 6e7}, {\"name\": \"steel\", \"density\": 7800, "
        "\"young_modulus\": 2e11}], \"contact_materials\": [{\"materials\": [\"ore\", \"ore\"], "
        "\"friction\": 0.91, \"restitution\": 0.18, \"rolling_resistance\": 0.32}, "
        "{\"materials\": [\"ore\", \"steel\"], \"friction\": 0, \"restitution\": 0.18}], "
        "\"geometry\": [{\"type\": \"box\", \"name\": \"cell\", \"inside\": true, \"min\": [0, 0, "
        "0], \"max\": [0.12, 0.12, 0.12], \"material\": \"steel\", \"walls\": {\"mass\": 100, "
        "\"stress\": [100, 100, 100]}}], \"particles\": [{\"type\": \"random\", \"min\": "
        "[0.0069, 0.0069, 0.0069], \"max\": [0.1131, 0.1131, 0.1131], \"count\": 400, "
        "\"radius\": {\"values\": [0.0065, 0.005], \"weights\": [0.5, 0.5]}, \"material\": "
        "\"ore\", \"seed\": 1}]}, \"solver\": {\"time_step\": 0.005, \"iterations\": 100, "
        "\"duration\": 6}}");
    ndem_sim *sim = test_sim(job);
    double sum[3] = {0, 0, 0}, s[3], before[3], after[3], vmax = 0.0;
    long n = 0;
    run_to(sim, 5.0);
    walls_now(sim, s, before);
    while (sim->time < 6.0 - 0.5 * sim->solver.time_step) {
        test_step(sim);
        walls_now(sim, s, after);
        for (int k = 0; k < 3; k++) sum[k] += s[k];
        n++;
        for (int f = 0; f < 6; f++)
            vmax = fmax(vmax, fabs(sim->rigid->body[sim->rigid->first[0] + f].v[f / 2]));
    }
    fprintf(stderr, "heavy hydrostatic: fastest wall in the last second %.3g m/s\n", vmax);
    for (int k = 0; k < 3; k++) {
        double mean = sum[k] / (double)n;
        fprintf(stderr, "heavy hydrostatic: pair %d: mean stress %.4g Pa, size %.6g -> %.6g m\n", k,
                mean, before[k], after[k]);
        ck_assert_msg(fabs(mean - 100.0) < 2.0, "pair %d: %.4g Pa", k, mean);
        ck_assert_double_lt(after[k], 0.1); /* closed from 0.12 m */
        /* no bounce: a wall bouncing off this sample moves millimetres at
         * about 1 cm/s; what is left is the sample's creep (measured
         * below 0.2 mm a second for a pair) */
        ck_assert_msg(fabs(after[k] - before[k]) < 5e-4, "pair %d still moves: %.3g m", k,
                      after[k] - before[k]);
    }
    ck_assert_msg(vmax < 1e-3, "a wall still moves at %.3g m/s", vmax);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* Table 1's pellets between themselves (friction, rolling resistance) and
 * against the walls (wall friction, wall rolling resistance). */
#define TRIAX_MATERIALS                                                                            \
    "\"materials\": [{\"name\": \"ore\", \"density\": 3700, \"young_modulus\": 6e7}, {\"name\": "  \
    "\"steel\", \"density\": 7800, \"young_modulus\": 2e11}], \"contact_materials\": "             \
    "[{\"materials\": [\"ore\", \"ore\"], \"friction\": %g, \"restitution\": 0.18, "               \
    "\"rolling_resistance\": %g}, {\"materials\": [\"ore\", \"steel\"], \"friction\": %g, "        \
    "\"restitution\": 0.18, \"rolling_resistance\": %g}]"

/* When the shear jobs' drive starts (s). */
#define SHEAR_START 0.5

/* The dense preparation of tools/validate/triaxial.py's QUICK pass: 400
 * spheres placed at random in a cube of 0.12 m, compressed by 100 Pa on
 * every side with no friction and no rolling resistance (walls of 1 kg,
 * 3 s, 100 iterations). Returns the sample: its frame (the caller frees
 * it) and the cell's faces. */
static void dense_sample(ndem_frame *f, double lo[3], double hi[3])
{
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], " TRIAX_MATERIALS ", \"geometry\": [{\"type\": "
        "\"box\", \"name\": \"cell\", \"inside\": true, \"min\": [0, 0, 0], \"max\": [0.12, 0.12, "
        "0.12], \"material\": \"steel\", \"walls\": {\"mass\": 1, \"stress\": [100, 100, 100]}}], "
        "\"particles\": [{\"type\": \"random\", \"min\": [0.006825, 0.006825, 0.006825], "
        "\"max\": [0.113175, 0.113175, 0.113175], \"count\": 400, \"radius\": {\"values\": "
        "[0.0065, 0.005], \"weights\": [0.5, 0.5]}, \"material\": \"ore\", \"seed\": 1}]}, "
        "\"solver\": {\"time_step\": 0.005, \"iterations\": 100, \"duration\": 3}}",
        0.0, 0.0, 0.0, 0.0);
    ndem_sim *sim = test_sim(job);
    run_to(sim, 3.0);
    ck_assert_int_eq(ndem_sim_copy_motion(sim, f), 0);
    for (int k = 0; k < 3; k++) {
        lo[k] = sim->geometry[0].min[k];
        hi[k] = sim->geometry[0].max[k];
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

/* The shear job of the sample f in the cell [lo, hi] (Table 1's friction,
 * and on the walls too; walls of `mass` kg): 0.5 s at rest under 100 Pa,
 * then z driven at 0.01 m/s (to 3 s). */
static ndem_job *shear_job(const ndem_frame *f, const double lo[3], const double hi[3], double mass,
                           int iterations, int warm)
{
    /* four numbers of at most 24 characters, brackets and commas */
    size_t cap = 112 * (size_t)f->count + 1, at = 0;
    char *spheres = malloc(cap);
    ck_assert_ptr_nonnull(spheres);
    spheres[0] = 0;
    for (long i = 0; i < f->count; i++) {
        int m = snprintf(spheres + at, cap - at, "%s[%.17g, %.17g, %.17g, %.17g]", i ? ", " : "",
                         f->positions[3 * i], f->positions[3 * i + 1], f->positions[3 * i + 2],
                         f->radii[i]);
        ck_assert(m > 0 && (size_t)m < cap - at);
        at += (size_t)m;
    }
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], " TRIAX_MATERIALS ", \"geometry\": [{\"type\": "
        "\"box\", \"name\": \"cell\", \"inside\": true, \"min\": [%.17g, %.17g, %.17g], \"max\": "
        "[%.17g, %.17g, %.17g], \"material\": \"steel\", \"walls\": {\"mass\": %g, \"stress\": "
        "[100, 100, 100], \"velocity\": [null, null, 0.01], \"start\": %g}}], \"particles\": "
        "[{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [%s]}]}, \"solver\": "
        "{\"time_step\": 0.005, \"iterations\": %d, \"warm_start\": %s, \"duration\": 3}}",
        0.91, 0.32, 0.91, 0.32, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], mass, SHEAR_START,
        spheres, iterations, warm ? "true" : "false");
    free(spheres);
    return job;
}

/* Shears the sample f in the cell [lo, hi] with walls of 1 kg to 25 %
 * axial strain. The means between 10 % and 25 % of the deviator sigma_z -
 * 100 Pa into *dev and of the sides into side[2]. */
static void shear(const ndem_frame *f, const double lo[3], const double hi[3], int iterations,
                  int warm, double *dev, double side[2])
{
    const double start = SHEAR_START;
    ndem_job *job = shear_job(f, lo, hi, 1.0, iterations, warm);
    ndem_sim *sim = test_sim(job);
    double s[3], z0[3], z[3], sum[3] = {0, 0, 0};
    long n = 0;
    run_to(sim, start);
    walls_now(sim, s, z0);
    double eps = 0.0;
    while (eps < 0.25 && sim->time < 3.0) { /* 25 %: about 1.5 s */
        test_step(sim);
        walls_now(sim, s, z);
        eps = 1.0 - z[2] / z0[2];
        if (eps >= 0.10)
            for (int k = 0; k < 3; k++) sum[k] += s[k];
        n += eps >= 0.10;
    }
    ck_assert_double_ge(eps, 0.25);
    *dev = sum[2] / (double)n - 100.0;
    side[0] = sum[0] / (double)n;
    side[1] = sum[1] / (double)n;
    fprintf(stderr,
            "triaxial (%d iterations, %s): %ld steps in 10..25%% strain: sides %.4g %.4g Pa, "
            "deviator %.4g Pa\n",
            iterations, warm ? "warm" : "cold", n, side[0], side[1], *dev);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

/* The paper's test on the QUICK pass's dense sample (validation 6, issue
 * 13), with light walls: 100 kg walls are thrown off so small a sample
 * (docs/validation.md, section 4). The frictionless preparation packs the
 * spheres densely: the cell's solid fraction above 0.55 (measured 0.571;
 * 0.616 one diameter in from the walls, near random close packing; the
 * random fill compacted with the friction on stays near 0.47). Sheared,
 * warm starting at 25 iterations: the sides keep 100 Pa within 5 % on
 * average and the critical deviator is the paper's 1 +- 0.2 kPa, widened
 * to 0.8-1.6 kPa by the scatter of one small sample (the medium pass
 * measures 1.19-1.59 kPa warm over 25 to 1000 iterations, a mobilised
 * friction angle near 56 degrees); cold starting at 25 iterations is far
 * from converged (Fig. 15): below 60 % of the warm deviator (measured
 * 479 and 1082 Pa, medium 461 and 1189 Pa). */
START_TEST(dense_sample_fails_at_the_papers_deviator)
{
    ndem_frame f;
    double lo[3], hi[3], vol = 0.0, dev_warm, dev_cold, side[2], cold_side[2];
    dense_sample(&f, lo, hi);
    for (long i = 0; i < f.count; i++) vol += 4.0 / 3.0 * M_PI * pow(f.radii[i], 3);
    double phi = vol / ((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
    fprintf(stderr, "triaxial: prepared cell %.4g x %.4g x %.4g m, solid fraction %.4g\n",
            hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], phi);
    ck_assert_msg(phi > 0.55 && phi < 0.64, "solid fraction %.4g", phi);
    shear(&f, lo, hi, 25, 1, &dev_warm, side);
    shear(&f, lo, hi, 25, 0, &dev_cold, cold_side);
    ndem_frame_free(&f);
    ck_assert_msg(fabs(side[0] - 100.0) < 5.0 && fabs(side[1] - 100.0) < 5.0, "sides %.4g %.4g Pa",
                  side[0], side[1]);
    ck_assert_msg(dev_warm > 800.0 && dev_warm < 1600.0, "deviator %.4g Pa", dev_warm);
    ck_assert_msg(dev_cold > 0.0 && dev_cold < 0.6 * dev_warm, "cold %.4g Pa, warm %.4g Pa",
                  dev_cold, dev_warm);
}
END_TEST

/* The wall's inward speed (feature f: +1 at min[k], -1 at max[k]). */
static double inward_speed(const ndem_rigid_body *w, int f)
{
    return (f % 2 ? -1.0 : 1.0) * w[f].v[f / 2];
}

/* The paper's 100 kg walls on the QUICK pass's sample: a side wall's motor
 * pushes with the stress (its reading 100 Pa: the seed's sigma_i = f_i /
 * A_i) and the particles' stress on it is the motor's less M a / A
 * (docs/validation.md, section 4, "The wall mass"). Impulse and momentum
 * for each side pair, over the whole shear and over the window of 10 % to
 * 25 % strain: the sum of h A (motor - contact stress) is half of M times
 * the change of the pair's two inward speeds; the solve's impulses, the
 * stress outputs and the walls' motion must agree (measured to 6 digits;
 * in this cell at 25 warm iterations the sides' contact stress in the
 * window is 90 and 70 Pa, the motors' 100 Pa less the walls' deceleration;
 * a cell holds 100 kg walls within 5 % from about 0.3 m on: too large for
 * this suite). */
START_TEST(heavy_walls_press_by_their_motor_less_their_inertia)
{
    const double M = 100.0, h = 0.005;
    ndem_frame f;
    double lo[3], hi[3];
    dense_sample(&f, lo, hi);
    ndem_job *job = shear_job(&f, lo, hi, M, 25, 1);
    ndem_frame_free(&f);
    ndem_sim *sim = test_sim(job);
    run_to(sim, SHEAR_START);
    const ndem_rigid_body *w = &sim->rigid->body[sim->rigid->first[0]];
    double s[3], m[3], z0[3], z[3], u0[4], uw[4], push[2] = {0, 0}, win[2] = {0, 0};
    double sum_m[2] = {0, 0}, sum_c[2] = {0, 0};
    long n = 0;
    walls_now(sim, s, z0);
    for (int b = 0; b < 4; b++) u0[b] = inward_speed(w, b);
    double eps = 0.0;
    while (eps < 0.25 && sim->time < 3.0) {
        if (eps < 0.10) /* the speeds as the window's next step starts */
            for (int b = 0; b < 4; b++) uw[b] = inward_speed(w, b);
        test_step(sim);
        walls_now(sim, s, z);
        ck_assert_int_eq(ndem_sim_walls_motor(sim, 0, m), 0);
        eps = 1.0 - z[2] / z0[2];
        for (int k = 0; k < 2; k++) {
            double area = z[(k + 1) % 3] * z[(k + 2) % 3];
            /* the motor at its bound, stress x the area at the step's
             * start, read over the area after it (measured up to 100.12 Pa) */
            ck_assert_double_eq_tol(m[k], 100.0, 0.5);
            push[k] += h * area * (m[k] - s[k]);
            if (eps >= 0.10) {
                win[k] += h * area * (m[k] - s[k]);
                sum_m[k] += m[k];
                sum_c[k] += s[k];
            }
        }
        n += eps >= 0.10;
    }
    ck_assert_double_ge(eps, 0.25);
    for (int k = 0; k < 2; k++) {
        double du = 0.0, duw = 0.0;
        for (int b = 2 * k; b < 2 * k + 2; b++) {
            du += inward_speed(w, b) - u0[b];
            duw += inward_speed(w, b) - uw[b];
        }
        fprintf(stderr,
                "heavy shear: pair %d: sum h A (motor - contact) %.6g N s, M du / 2 %.6g N s; "
                "10..25%%: %.6g N s, %.6g N s; motor %.4g Pa, contact %.4g Pa\n",
                k, push[k], 0.5 * M * du, win[k], 0.5 * M * duw, sum_m[k] / (double)n,
                sum_c[k] / (double)n);
        ck_assert_double_eq_tol(push[k], 0.5 * M * du, 1e-6 * fabs(M * du) + 1e-9);
        ck_assert_double_eq_tol(win[k], 0.5 * M * duw, 1e-6 * fabs(M * duw) + 1e-9);
        /* the walls did move (the identity is not 0 = 0) */
        ck_assert_double_gt(fabs(push[k]), 0.1);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("triaxial");
    TCase *tc = tcase_create("triaxial");
    tcase_add_test(tc, heavy_walls_hold_the_hydrostatic_stress);
    tcase_add_test(tc, dense_sample_fails_at_the_papers_deviator);
    tcase_add_test(tc, heavy_walls_press_by_their_motor_less_their_inertia);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
