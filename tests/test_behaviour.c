/* test_behaviour.c - behaviours of the job document that no other suite
 * checks (issue 20, item 9), each against a number from theory or from the
 * document's own definition: the twisting bound, the solver's tolerance
 * early stop and its residuals, the emitter's rate, window and max_count,
 * moving planes and boxes, solid boxes and outside cylinders, and the
 * content of the frame files `ndem run` writes (NDF and VTP read back). */
#include "crc32c.h"
#include "scene.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const double G = 9.81;

/* ---- twisting resistance ---- */

/* A sphere at rest on a plane that turns about its normal (through the
 * sphere's centre, so no point of the contact slides): only the twisting
 * row couples the two. Its bound |lambda_r3| <= mu_t r* F, with r* = r on a
 * wall and F = m g h per step, is a torque mu_t r m g; the sphere spins up
 * at alpha = mu_t r m g / (2/5 m r^2) = 5 mu_t g / (2 r) until it turns with
 * the plane. Returns the sphere's spin about z after t_end. */
static double twist_spin_pair(const char *pair, double w_plane, double t_end)
{
    const double r = 0.01, m = 2500 * 4.0 / 3.0 * M_PI * r * r * r;
    double e_w = 2.0 * 1e7 * 2e11 / (1e7 + 2e11);
    double k = e_w * sqrt(2.0 * 2.0 * r) / (3.0 * (1 - 0.09));
    double delta = pow(m * G / k, 2.0 / 3.0); /* Hertz rest overlap */
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"steel\"], \"friction\": 0.5, %s, \"restitution\": 0.2}],"
        "\"geometry\": [{\"type\": \"plane\", \"point\": [0,0,0], \"normal\": [0,0,1], "
        "\"angular_velocity\": %g, \"material\": \"steel\"}],"
        "\"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [[0, 0, %.17g, "
        "%g]]}]}, \"solver\": {\"time_step\": 2e-4, \"duration\": %g, \"iterations\": 30}}",
        pair, w_plane, r - delta, r, t_end);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) test_step(sim);
    ndem_frame f;
    test_frame(sim, &f);
    double wz = f.angular_velocities[2];
    /* the sphere stayed where it was: no sliding force acted */
    ck_assert_double_lt(hypot(f.positions[0], f.positions[1]), 1e-6 * r);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return wz;
}

static double twist_spin(double mu_t, double w_plane, double t_end)
{
    char pair[64];
    snprintf(pair, sizeof pair, "\"twisting_resistance\": %g", mu_t);
    return twist_spin_pair(pair, w_plane, t_end);
}

START_TEST(twisting_resistance_spins_up_at_the_bound)
{
    const double mu_t = 0.05, r = 0.01, w_plane = 10.0;
    const double alpha = 5.0 * mu_t * G / (2.0 * r); /* 122.6 rad/s^2 */
    /* halfway to the plane's rate: still slipping, w = alpha t */
    double t = 0.5 * w_plane / alpha, w = twist_spin(mu_t, w_plane, t);
    fprintf(stderr, "twist: w_z %.4f rad/s after %.4f s, theory %.4f\n", w, t, alpha * t);
    ck_assert_double_lt(fabs(w - alpha * t) / (alpha * t), 0.03);
    /* well past the time to catch up: turns with the plane */
    w = twist_spin(mu_t, w_plane, 2.0 * w_plane / alpha);
    ck_assert_double_lt(fabs(w - w_plane) / w_plane, 0.01);
    /* without twisting resistance nothing turns it */
    ck_assert_double_lt(fabs(twist_spin(0.0, w_plane, t)), 1e-9);
}
END_TEST

/* A pair that sets rolling_resistance and not twisting_resistance gets
 * mu_t = mu_r (AGX 35.4.4, Wang et al. eqs. 28-34): the sphere spins up at
 * 5 mu_r g / (2 r), and the filled-in document shows the resolved value. An
 * explicit 0 stays 0; so does null rolling with no twist. */
START_TEST(twisting_resistance_defaults_to_rolling_resistance)
{
    const double mu_r = 0.05, r = 0.01, w_plane = 10.0;
    const double alpha = 5.0 * mu_r * G / (2.0 * r);
    double t = 0.5 * w_plane / alpha;
    double w = twist_spin_pair("\"rolling_resistance\": 0.05", w_plane, t);
    fprintf(stderr, "twist by default: w_z %.4f rad/s after %.4f s, theory %.4f\n", w, t,
            alpha * t);
    ck_assert_double_lt(fabs(w - alpha * t) / (alpha * t), 0.03);
    w = twist_spin_pair("\"rolling_resistance\": 0.05, \"twisting_resistance\": null", w_plane, t);
    ck_assert_double_lt(fabs(w - alpha * t) / (alpha * t), 0.03);
    /* an explicit 0 turns the twist off; the rolling rows do not turn it */
    w = twist_spin_pair("\"rolling_resistance\": 0.05, \"twisting_resistance\": 0", w_plane, t);
    ck_assert_double_lt(fabs(w), 1e-9);

    /* the filled-in document */
    ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": ["
                             "{\"materials\": [\"ore\", \"steel\"], \"rolling_resistance\": 0.25},"
                             "{\"materials\": [\"ore\", \"ore\"], \"rolling_resistance\": 0.25, "
                             "\"twisting_resistance\": 0}]}}");
    ck_assert_double_eq(job->scene.contact_materials[0].twisting_resistance, 0.25);
    ck_assert_double_eq(job->scene.contact_materials[1].twisting_resistance, 0.0);
    char *text = ndem_job_to_json(job);
    ck_assert_ptr_nonnull(text);
    const char *first = strstr(text, "\"twisting_resistance\"");
    ck_assert_ptr_nonnull(first);
    ck_assert_msg(strncmp(first, "\"twisting_resistance\": 0.25", 27) == 0, "%.40s", first);
    const char *second = strstr(first + 1, "\"twisting_resistance\"");
    ck_assert_ptr_nonnull(second);
    ck_assert_msg(strncmp(second, "\"twisting_resistance\": 0,", 25) == 0, "%.40s", second);
    free(text);
    ndem_job_destroy(job);
    /* a pair not listed: rolling 0, so no twist */
    ndem_contact_material_def d = ndem_default_contact_material_def();
    ck_assert_double_lt(d.twisting_resistance, 0.0);
}
END_TEST

/* ---- the solver's tolerance early stop and its residuals ---- */

/* Six spheres stacked on a plane, settled for `steps` steps with the given
 * tolerance; the last step's statistics into st. */
static void stack_stats(double tolerance, int iterations, long steps, ndem_step_stats *st)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"plane\", \"point\": "
        "[0,0,0], \"normal\": [0,0,1], \"material\": \"steel\"}], \"particles\": [{\"type\": "
        "\"list\", \"material\": \"ore\", \"spheres\": [[0,0,0.01,0.01], [0,0,0.03,0.01], "
        "[0,0,0.05,0.01], [0,0,0.07,0.01], [0,0,0.09,0.01], [0,0,0.11,0.01]]}]}, "
        "\"solver\": {\"time_step\": 1e-3, \"duration\": 1, \"iterations\": %d, "
        "\"tolerance\": %g}}",
        iterations, tolerance);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < steps; i++) test_step(sim);
    *st = *ndem_sim_stats(sim);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(tolerance_stops_the_sweeps_early)
{
    ndem_step_stats full, loose, tight;
    /* tolerance 0: every iteration runs; the residuals are reported */
    stack_stats(0.0, 200, 300, &full);
    ck_assert_int_eq(full.iterations, 200);
    double res = full.residual_normal + full.residual_friction + full.residual_rolling;
    ck_assert(isfinite(res) && res >= 0);
    /* a tolerance ten times the converged residual: the sweeps stop early,
     * at the first sweep whose residual falls below it */
    double tol = fmax(10.0 * res, 1e-12);
    stack_stats(tol, 200, 300, &loose);
    double res_loose = loose.residual_normal + loose.residual_friction + loose.residual_rolling;
    fprintf(stderr, "tolerance %.3g: %d of 200 sweeps, residual %.3g (converged %.3g)\n", tol,
            loose.iterations, res_loose, res);
    ck_assert_int_lt(loose.iterations, 200);
    ck_assert_int_ge(loose.iterations, 1);
    ck_assert_double_lt(res_loose, tol);
    /* a tolerance no residual reaches: all sweeps again */
    stack_stats(1e-300, 200, 300, &tight);
    ck_assert_int_eq(tight.iterations, 200);
    /* the residual is the solve's error: 5 sweeps leave more than 200 */
    ndem_step_stats few;
    stack_stats(0.0, 5, 300, &few);
    double res_few = few.residual_normal + few.residual_friction + few.residual_rolling;
    fprintf(stderr, "residual after 5 sweeps %.3g, after 200 %.3g\n", res_few, res);
    ck_assert_int_eq(few.iterations, 5);
    ck_assert_double_gt(res_few, 10.0 * res);
}
END_TEST

/* ---- emitters: rate, window and max_count as applied ---- */

/* Particles emitted after each step into counts[0 .. steps-1]: a box of
 * 1 m^3 for particles of 5 mm (no insertion is ever blocked), no gravity. */
static void emitted(double rate, double start, double stop, long max_count, long steps,
                    long *counts)
{
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,0], " TEST_MATERIALS ", \"emitters\": [{\"min\": "
        "[0,0,0], \"max\": [1,1,1], \"rate\": %g, \"start\": %g, \"stop\": %g, \"max_count\": "
        "%ld, \"radius\": 0.005, \"seed\": 5}]}, \"solver\": {\"time_step\": 1e-3, "
        "\"duration\": %g}}",
        rate, start, stop, max_count, (double)steps * 1e-3);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < steps; i++) {
        test_step(sim);
        counts[i] = ndem_sim_particle_count(sim);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(emitter_rate_window_and_max_count)
{
    enum { STEPS = 400 };
    long n[STEPS];
    const double h = 1e-3, rate = 250, start = 0.05, stop = 0.25;
    emitted(rate, start, stop, 1000000, STEPS, n);
    for (long i = 0; i < STEPS; i++) {
        /* step i emits at t = i h when start <= t < stop: rate h each */
        double t = (double)(i + 1) * h;
        double want = rate * (fmin(t, stop) - start);
        if (want < 0) want = 0;
        ck_assert_msg(fabs((double)n[i] - want) <= 1.0, "after step %ld (t = %.3f): %ld, want %.2f",
                      i, t, n[i], want);
    }
    ck_assert_int_eq(n[(long)(start / h) - 2], 0);                 /* nothing before start */
    ck_assert_int_eq(n[STEPS - 1], n[(long)(stop / h) + 5]);       /* nothing after stop */
    ck_assert_int_eq(n[STEPS - 1], (long)(rate * (stop - start))); /* 50 in the window */
    /* max_count cuts it */
    emitted(rate, start, stop, 7, STEPS, n);
    ck_assert_int_eq(n[STEPS - 1], 7);
    ck_assert_int_eq(n[(long)((start + 7.0 / rate) / h) + 2], 7);
    ck_assert_int_lt(n[(long)((start + 6.0 / rate) / h) - 2], 7);
}
END_TEST

/* ---- landings slower than the impact velocity ---- */

/* A sphere dropped from 1 cm (landing at 0.44 m/s) onto a plane with
 * restitution e; impact_velocity <= 0: the automatic 0.02 d / h = 0.8 m/s.
 * Returns the rebound speed over the landing speed (the rebound taken at
 * its peak plus the gravity of the step, as in test_physics). */
static double rebound_mat(double e, double impact_velocity, const char *mat_extra,
                          const char *pair_extra, const char *solver_extra)
{
    char iv[64] = "";
    if (impact_velocity > 0) snprintf(iv, sizeof iv, ", \"impact_velocity\": %g", impact_velocity);
    ndem_job *job = test_job(
        "{\"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, "
        "\"young_modulus\": 1e7%s}, {\"name\": \"steel\", \"density\": 7800, "
        "\"young_modulus\": 2e11%s}], \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"steel\"], \"restitution\": %g, \"friction\": 0.5%s}], \"geometry\": [{\"type\": "
        "\"plane\", \"point\": [0,0,0], \"normal\": [0,0,1], \"material\": \"steel\"}], "
        "\"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [[0, 0, 0.02, "
        "0.01]]}]}, \"solver\": {\"time_step\": 5e-4, \"duration\": 0.1%s%s}}",
        mat_extra, mat_extra, e, pair_extra, iv, solver_extra);
    ndem_sim *sim = test_sim(job);
    double vmin, vmax_after, h = job->scene.solver.time_step;
    int bounced = test_drop(sim, &vmin, &vmax_after);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    ck_assert_double_lt(fabs(vmin + sqrt(2 * G * 0.01)), 0.02 * sqrt(2 * G * 0.01));
    return bounced ? (vmax_after + G * h) / -vmin : 0.0;
}

static double rebound_with(double e, double impact_velocity, const char *pair_extra,
                           const char *solver_extra)
{
    return rebound_mat(e, impact_velocity, "", pair_extra, solver_extra);
}

static double rebound(double e, double impact_velocity)
{
    return rebound_with(e, impact_velocity, "", "");
}

START_TEST(slow_landings_ignore_restitution)
{
    /* below v_imp the continuous stage resolves the landing: its SPOOK
     * spring-damper sets the rebound (measured 0.27 here; docs/physics.md
     * said about 0.6), whatever the restitution: the same bits */
    double low = rebound(0.3, 0), high = rebound(0.9, 0);
    fprintf(stderr, "slow landing: rebound %.3f (e = 0.3), %.3f (e = 0.9)\n", low, high);
    ck_assert_double_eq(low, high);
    ck_assert(low > 0.0 && low < 0.9); /* it bounces, below the elastic e */
    /* an impact velocity below the landing speed makes it an impact: e */
    double e = 0.3, r = rebound(e, 0.2);
    ck_assert_msg(fabs(r - e) / e < 0.02, "impact: rebound %g, e %g", r, e);
}
END_TEST

/* The SPOOK damping time tau_n: a pair's damping_time, else
 * solver.damping_steps times the step (docs/job.md). The same tau either
 * way gives the same bits; a longer tau damps the slow landing more. */
START_TEST(damping_time_and_damping_steps)
{
    double steps2 = rebound_with(0.3, 0, "", ", \"damping_steps\": 2");
    double time2 = rebound_with(0.3, 0, ", \"damping_time\": 1e-3", "");
    double steps8 = rebound_with(0.3, 0, "", ", \"damping_steps\": 8");
    double time8 = rebound_with(0.3, 0, ", \"damping_time\": 4e-3", ", \"damping_steps\": 2");
    fprintf(stderr, "slow landing rebound: tau = 2 h %.3f, 8 h %.3f\n", steps2, steps8);
    ck_assert_double_eq(steps2, rebound(0.3, 0)); /* 2 is the default */
    ck_assert_double_eq(steps2, time2);
    ck_assert_double_eq(steps8, time8);
    ck_assert_double_lt(steps8, steps2);
}
END_TEST

/* Material viscosity eta sets tau_n = max(n_s h, c / e_H), c = 4 (1 - nu^2)
 * (1 - 2 nu) eta / (15 E nu^2) with the pair's E and nu (docs/physics.md):
 * eta giving c / e_H = 8 h damps like damping_steps 8; one giving h leaves
 * the default 2 h. */
START_TEST(viscosity_sets_the_damping_time)
{
    const double h = 5e-4, nu = 0.3, e_h = 1.25, E = 2.0 * 1e7 * 2e11 / (1e7 + 2e11);
    const double per_tau = 4 * (1 - nu * nu) * (1 - 2 * nu) / (15 * E * nu * nu) / e_h;
    char mat[64];
    snprintf(mat, sizeof mat, ", \"viscosity\": %.17g", 8 * h / per_tau);
    double visc8 = rebound_mat(0.3, 0, mat, "", "");
    double steps8 = rebound_with(0.3, 0, "", ", \"damping_steps\": 8");
    fprintf(stderr, "viscosity %s: rebound %.4f, damping_steps 8: %.4f\n", mat + 15, visc8, steps8);
    ck_assert_double_lt(fabs(visc8 - steps8), 1e-6);
    snprintf(mat, sizeof mat, ", \"viscosity\": %.17g", h / per_tau);
    ck_assert_double_eq(rebound_mat(0.3, 0, mat, "", ""), rebound(0.3, 0));
}
END_TEST

/* ---- moving geometry and solid shapes ---- */

/* Hertz rest overlap of a 10 mm ore sphere on steel under gravity. */
static double rest_overlap(void)
{
    const double r = 0.01, m = 2500 * 4.0 / 3.0 * M_PI * r * r * r;
    double e_w = 2.0 * 1e7 * 2e11 / (1e7 + 2e11);
    double k = e_w * sqrt(2.0 * 2.0 * r) / (3.0 * (1 - 0.09));
    return pow(m * G / k, 2.0 / 3.0);
}

/* ---- friction compliance ---- */

/* A sphere held on a plane by friction against a sideways gravity g_x
 * (well inside the friction and rolling bounds): the friction row
 * v_t + (gamma / h) lambda_t = 0 (docs/physics.md) lets the contact creep at
 * v_t = gamma f with f = m g_x the friction force; the rolling row adds
 * gamma f r^2 (1e-4 of it for r = 1 cm). Returns the mean x velocity over the
 * last 0.1 s of 0.3 s and the force f. */
static double creep(double gamma, double *f)
{
    const double r = 0.01, m = 2500 * 4.0 / 3.0 * M_PI * r * r * r, gx = 0.2 * G;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [%.17g, 0, %.17g], " TEST_MATERIALS
        ", \"contact_materials\": [{\"materials\": [\"ore\", \"steel\"], \"friction\": 0.8, "
        "\"rolling_resistance\": 0.8, \"restitution\": 0.2}], \"geometry\": [{\"type\": "
        "\"plane\", \"point\": [0,0,0], \"normal\": [0,0,1], \"material\": \"steel\"}], "
        "\"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [[0, 0, %.17g, "
        "%g]]}]}, \"solver\": {\"time_step\": 1e-3, \"duration\": 0.3, \"iterations\": 50, "
        "\"friction_compliance\": %g}}",
        gx, -G, r - rest_overlap(), r, gamma);
    ndem_sim *sim = test_sim(job);
    long n = ndem_sim_total_steps(sim), late = 0;
    double x0 = 0, t0 = 0, v = 0;
    for (long i = 0; i < n; i++) {
        test_step(sim);
        if (i == n - 101) {
            ndem_frame fr;
            test_frame(sim, &fr);
            x0 = fr.positions[0];
            t0 = fr.time;
            ndem_frame_free(&fr);
            late = 1;
        }
    }
    ck_assert(late);
    ndem_frame fr;
    test_frame(sim, &fr);
    v = (fr.positions[0] - x0) / (fr.time - t0);
    ndem_frame_free(&fr);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    *f = m * gx;
    return v;
}

START_TEST(friction_compliance_sets_the_creep)
{
    const double gammas[] = {1e-3, 1e-2};
    for (int i = 0; i < 2; i++) {
        double f, v = creep(gammas[i], &f);
        fprintf(stderr, "friction_compliance %g: creep %.4g m/s, gamma f %.4g m/s\n", gammas[i], v,
                gammas[i] * f);
        ck_assert_msg(fabs(v - gammas[i] * f) < 0.02 * gammas[i] * f,
                      "compliance %g: creep %g m/s, theory %g", gammas[i], v, gammas[i] * f);
    }
}
END_TEST

/* A sphere at rest on a surface that moves along x at u (a plane, or the
 * top face of a solid box): friction drags it until it rolls on the belt,
 * like a sphere launched at -u on a still floor seen from the belt: it
 * rolls at 5/7 (-u) relative to the belt, that is at 2/7 u, after
 * t = 2 u / (7 mu g). `surface` is the geometry entry, its top at z = 0. */
static void belt(const char *surface, double u, double mu, double *t_roll, double *v_roll)
{
    const double r = 0.01;
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"steel\"], \"friction\": %g, \"restitution\": 0.2}], \"geometry\": [%s], "
        "\"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [[0, 0, %.17g, "
        "%g]]}]}, \"solver\": {\"time_step\": 2e-4, \"duration\": 0.2, \"iterations\": 30}}",
        mu, surface, r - rest_overlap(), r);
    ndem_sim *sim = test_sim(job);
    *t_roll = -1;
    ndem_frame f;
    for (long i = 0; i < ndem_sim_total_steps(sim) && *t_roll < 0; i++) {
        test_step(sim);
        test_frame(sim, &f);
        /* contact point velocity v - w_y r against the belt's u */
        double slip = u - (f.velocities[0] - r * f.angular_velocities[1]);
        if (fabs(slip) < 1e-3 * u) {
            *t_roll = f.time;
            *v_roll = f.velocities[0];
        }
        ndem_frame_free(&f);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(moving_plane_and_box_drag_a_sphere_to_rolling)
{
    const double u = 0.5, mu = 0.3, h = 2e-4;
    const double t_theory = 2 * u / (7 * mu * G), v_theory = 2.0 / 7.0 * u;
    char geo[2][400];
    snprintf(geo[0], sizeof geo[0],
             "{\"type\": \"plane\", \"point\": [0,0,0], \"normal\": [0,0,1], \"velocity\": "
             "[%g,0,0], \"material\": \"steel\"}",
             u);
    /* a solid box (inside false) long enough for the run, its top at z = 0 */
    snprintf(geo[1], sizeof geo[1],
             "{\"type\": \"box\", \"min\": [-1,-0.1,-0.1], \"max\": [1,0.1,0], \"velocity\": "
             "[%g,0,0], \"material\": \"steel\"}",
             u);
    for (int k = 0; k < 2; k++) {
        double t, v;
        belt(geo[k], u, mu, &t, &v);
        fprintf(stderr, "%s belt: rolls at %.4f m/s after %.4f s (theory %.4f, %.4f)\n",
                k ? "box" : "plane", v, t, v_theory, t_theory);
        ck_assert_double_gt(t, 0);
        ck_assert_double_lt(fabs(t - t_theory), 0.02 * t_theory + h);
        ck_assert_double_lt(fabs(v - v_theory), 0.02 * v_theory);
    }
}
END_TEST

/* A sphere dropped onto a solid box and onto an outside cylinder (axis
 * along y) comes to rest on top, Hertz-compressed: centre at the top plus
 * r minus the rest overlap. A wall is flat to the contact (r* = r), so the
 * overlap is the plane's; allowed 10% of it. */
static double rest_height(const char *shape)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"steel\"], \"friction\": 0.8, \"rolling_resistance\": 0.5, \"restitution\": 0.2}], "
        "\"geometry\": [%s], \"particles\": [{\"type\": \"list\", \"material\": \"ore\", "
        "\"spheres\": [[0, 0, 0.02, 0.01]]}]}, \"solver\": {\"time_step\": 1e-3, "
        "\"duration\": 1.0, \"iterations\": 50}}",
        shape);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) test_step(sim);
    ndem_frame f;
    test_frame(sim, &f);
    double z = f.positions[2];
    ck_assert_double_lt(hypot(f.positions[0], f.positions[1]), 1e-4); /* stayed on top */
    ck_assert_double_lt(fabs(f.velocities[2]), 1e-4);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return z;
}

START_TEST(solid_box_and_outside_cylinder_carry_a_sphere)
{
    const double r = 0.01, delta = rest_overlap();
    double z = rest_height("{\"type\": \"box\", \"min\": [-0.1,-0.1,-0.1], \"max\": [0.1,0.1,0], "
                           "\"material\": \"steel\"}");
    fprintf(stderr, "solid box: overlap %.3g m, Hertz %.3g m\n", r - z, delta);
    ck_assert_double_lt(fabs((r - z) - delta), 0.1 * delta);
    z = rest_height("{\"type\": \"cylinder\", \"center\": [0,0,-0.05], \"axis\": [0,1,0], "
                    "\"radius\": 0.05, \"length\": 0.2, \"material\": \"steel\"}");
    fprintf(stderr, "outside cylinder: overlap %.3g m, Hertz %.3g m\n", r - z, delta);
    ck_assert_double_lt(fabs((r - z) - delta), 0.1 * delta);
}
END_TEST

/* ---- the frame files of `ndem run`, read back ---- */

static uint32_t u32_at(const unsigned char *b, size_t o)
{
    uint32_t v;
    memcpy(&v, b + o, 4);
    return v;
}

static float f32_at(const unsigned char *b, size_t o)
{
    float v;
    memcpy(&v, b + o, 4);
    return v;
}

/* The numbers of the VTP's DataArray named `name` (or the first Points
 * array when name is NULL) into out; returns how many. */
static long vtp_array(const char *text, const char *name, double *out, long max)
{
    char tag[96];
    snprintf(tag, sizeof tag, "Name=\"%s\"", name ? name : "");
    const char *p = name ? strstr(text, tag) : strstr(text, "<Points>");
    ck_assert_msg(p != NULL, "VTP has no %s array", name ? name : "Points");
    if (!name) p = strstr(p, "<DataArray");
    ck_assert_ptr_nonnull(p);
    p = strchr(p, '>');
    ck_assert_ptr_nonnull(p);
    p++;
    const char *end = strstr(p, "</DataArray>");
    long n = 0;
    char *q;
    while (p < end && n < max) {
        double v = strtod(p, &q);
        if (q == p) break;
        out[n++] = v;
        p = q;
    }
    return n;
}

START_TEST(frame_files_read_back)
{
    const char *bin = getenv("NDEM_BIN");
    if (!bin || !bin[0]) bin = "build/asan/ndem";
    ck_assert_msg(access(bin, X_OK) == 0, "no ndem at %s: set NDEM_BIN", bin);
    char dir[] = "/tmp/ndem-frames-XXXXXX", path[300], cmd[1200];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* three spheres in free flight (no gravity, far apart): at frame 1,
     * t = 0.05 s after 5 steps, each is at x0 + v t */
    static const double x0[3][4] = {{0, 0, 0, 0.01}, {0.5, 0, 0, 0.02}, {0, 0.5, 0.25, 0.005}};
    static const double v[3][3] = {{1, 0, 0}, {0, -2, 0.5}, {0.25, 0.125, -1}};
    snprintf(path, sizeof path, "%s/job.json", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "{\"scene\": {\"gravity\": [0,0,0], " TEST_MATERIALS ", \"particles\": "
               "[{\"type\": \"list\", \"spheres\": [");
    for (int i = 0; i < 3; i++)
        fprintf(f, "%s[%g,%g,%g,%g]", i ? "," : "", x0[i][0], x0[i][1], x0[i][2], x0[i][3]);
    fprintf(f, "], \"velocities\": [");
    for (int i = 0; i < 3; i++) fprintf(f, "%s[%g,%g,%g]", i ? "," : "", v[i][0], v[i][1], v[i][2]);
    fprintf(f, "]}]}, \"solver\": {\"time_step\": 0.01, \"duration\": 0.1}, "
               "\"output\": {\"frame_interval\": 0.05}}");
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' run '%s/job.json' --out '%s/out' --quiet > '%s/log' 2>&1", bin,
             dir, dir, dir);
    ck_assert_int_eq(system(cmd), 0);

    const long n = 3;
    for (int frame = 0; frame < 2; frame++) {
        const double t = 0.05 * frame;
        size_t len;
        snprintf(path, sizeof path, "%s/out/frames/%06d.ndf", dir, frame);
        unsigned char *b = (unsigned char *)ndem_read_file(path, &len);
        ck_assert_msg(b != NULL, "cannot read %s", path);
        /* header (docs/frames.md) */
        ck_assert_int_eq(memcmp(b, "NDF1", 4), 0);
        uint32_t hs = u32_at(b, 4);
        ck_assert_uint_eq(hs, 48);
        ck_assert_uint_eq(u32_at(b, 8), (uint32_t)frame);
        ck_assert_uint_eq(u32_at(b, 12), (uint32_t)n);
        int64_t step;
        double time;
        memcpy(&step, b + 16, 8);
        memcpy(&time, b + 24, 8);
        ck_assert_int_eq(step, 5 * frame);
        ck_assert_double_eq_tol(time, t, 1e-12);
        ck_assert_uint_eq(u32_at(b, 32), 127); /* every field */
        ck_assert_uint_eq(u32_at(b, 36), 1);   /* scalar: speed */
        /* CRC-32C of the whole record with this field as 0, and the flag
         * saying it is set (docs/frames.md) */
        ck_assert_uint_eq(u32_at(b, 44), 1);
        uint32_t crc = u32_at(b, 40);
        memset(b + 40, 0, 4);
        ck_assert_uint_eq(ndem_crc32c(0, b, len), crc);
        /* and the geometry section: its count (0: no geometry) and a 0 */
        ck_assert_uint_eq(len, hs + 4 * (size_t)(3 * n + n + n + 3 * n + 3 * n + n) + 8);
        /* arrays, in field order: positions, radii, speed, velocities, spin,
         * materials (the list's, the first: 0) */
        size_t o_pos = hs, o_rad = o_pos + 12 * n, o_spd = o_rad + 4 * n, o_vel = o_spd + 4 * n,
               o_ang = o_vel + 12 * n, o_mat = o_ang + 12 * n;
        for (long i = 0; i < n; i++) ck_assert_uint_eq(u32_at(b, o_mat + 4 * i), 0);
        ck_assert_uint_eq(u32_at(b, o_mat + 4 * n), 0);
        snprintf(path, sizeof path, "%s/out/paraview/particles_%06d.vtp", dir, frame);
        char *vtp = ndem_read_file(path, &len);
        ck_assert_msg(vtp != NULL, "cannot read %s", path);
        char np[64];
        snprintf(np, sizeof np, "NumberOfPoints=\"%ld\"", n);
        ck_assert_ptr_nonnull(strstr(vtp, np));
        double vp[9], vr[3], vv[9];
        ck_assert_int_eq(vtp_array(vtp, NULL, vp, 9), 9);
        ck_assert_int_eq(vtp_array(vtp, "radius", vr, 3), 3);
        ck_assert_int_eq(vtp_array(vtp, "velocity", vv, 9), 9);
        for (long i = 0; i < n; i++) {
            double speed = 0;
            for (int k = 0; k < 3; k++) {
                double want = x0[i][k] + v[i][k] * t;
                ck_assert_double_eq_tol(f32_at(b, o_pos + 4 * (3 * i + k)), want, 1e-6);
                ck_assert_double_eq_tol(f32_at(b, o_vel + 4 * (3 * i + k)), v[i][k], 1e-6);
                ck_assert(f32_at(b, o_ang + 4 * (3 * i + k)) == 0.0f); /* no spin */
                ck_assert_double_eq_tol(vp[3 * i + k], want, 1e-8);
                ck_assert_double_eq_tol(vv[3 * i + k], v[i][k], 1e-8);
                speed += v[i][k] * v[i][k];
            }
            ck_assert_double_eq_tol(f32_at(b, o_rad + 4 * i), x0[i][3], 1e-9);
            ck_assert_double_eq_tol(vr[i], x0[i][3], 1e-12);
            ck_assert_double_eq_tol(f32_at(b, o_spd + 4 * i), sqrt(speed), 1e-6);
        }
        free(vtp);
        free(b);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("behaviour");
    TCase *tc = tcase_create("behaviour");
    tcase_add_test(tc, twisting_resistance_spins_up_at_the_bound);
    tcase_add_test(tc, twisting_resistance_defaults_to_rolling_resistance);
    tcase_add_test(tc, tolerance_stops_the_sweeps_early);
    tcase_add_test(tc, emitter_rate_window_and_max_count);
    tcase_add_test(tc, slow_landings_ignore_restitution);
    tcase_add_test(tc, damping_time_and_damping_steps);
    tcase_add_test(tc, viscosity_sets_the_damping_time);
    tcase_add_test(tc, friction_compliance_sets_the_creep);
    tcase_add_test(tc, moving_plane_and_box_drag_a_sphere_to_rolling);
    tcase_add_test(tc, solid_box_and_outside_cylinder_carry_a_sphere);
    tcase_add_test(tc, frame_files_read_back);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
