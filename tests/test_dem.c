/* test_dem.c - smooth DEM (issue 5) against theory: binary collisions of the
 * hertz and linear models (contact duration and restitution), the stable
 * time step and "auto", the restitution grid of every model (pairs and a
 * sphere on a plane), the Hertz energy books, the soft column's settling,
 * the Hertz column against NDEM, and bitwise restore. The other laws and
 * forces are in test_dem_laws.c. */
#include "dem.h"
#include "geometry.h"
#include "scene.h"
#include "testutil.h"

#include <float.h>
#include <math.h>

static const double R = 0.01, RHO = 2500, E = 1e7, NU = 0.3;

/* Two equal spheres meeting head-on at relative speed 2 v0, no gravity.
 * Returns the contact duration and the speed each leaves with. */
static void collide(const char *model, double e, double h, double *duration, double *v_out)
{
    const double v0 = 1.0;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,0], \"materials\": [{\"name\": \"ore\", \"density\": %g, "
        "\"young_modulus\": %g, \"poisson_ratio\": %g}], \"contact_materials\": [{\"materials\": "
        "[\"ore\", \"ore\"], \"restitution\": %g}], \"particles\": [{\"type\": \"list\", "
        "\"spheres\": [[%g, 0, 0, %g], [%g, 0, 0, %g]], \"velocities\": [[%g,0,0], [%g,0,0]]}]},"
        "\"solver\": {\"method\": \"dem\", \"contact_model\": \"%s\", \"time_step\": %g, "
        "\"duration\": 0.006}}",
        RHO, E, NU, e, -R - 0.001, R, R + 0.001, R, v0, -v0, model, h);
    ndem_sim *sim = test_sim(job);
    long touching = 0;
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        touching += ndem_sim_stats(sim)->contacts > 0;
    }
    ndem_frame f;
    test_frame(sim, &f);
    *duration = (double)touching * h;
    *v_out = f.velocities[3];
    ck_assert_double_lt(fabs(f.velocities[0] + f.velocities[3]), 1e-9); /* momentum */
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(hertz_collision_duration)
{
    double t, v;
    collide("hertz", 1.0, 1e-6, &t, &v);
    /* Hertz: t = 2.87 (m*^2 / (R* E*^2 v))^(1/5), E* = E / (2 (1 - nu^2)) */
    double m = RHO * 4.0 / 3.0 * M_PI * R * R * R, ms = m / 2, rs = R / 2;
    double es = E / (2 * (1 - NU * NU));
    double theory = 2.87 * pow(ms * ms / (rs * es * es * 2.0), 0.2);
    ck_assert_double_lt(fabs(t - theory) / theory, 0.03);
    ck_assert_double_lt(fabs(v - 1.0), 0.01); /* elastic */
}
END_TEST

START_TEST(hertz_restitution)
{
    const double es[] = {0.18, 0.5, 0.9};
    for (int i = 0; i < 3; i++) {
        double t, v;
        collide("hertz", es[i], 2e-6, &t, &v);
        ck_assert_msg(fabs(v - es[i]) / es[i] < 0.03, "e = %g: rebound %g", es[i], v);
    }
}
END_TEST

START_TEST(linear_collision)
{
    double t, v;
    collide("linear", 1.0, 1e-6, &t, &v);
    /* Woo eq. (3): k_n = E A / (l1 + l2) = E pi R / 2; t = pi sqrt(m* / k_n) */
    double m = RHO * 4.0 / 3.0 * M_PI * R * R * R;
    double theory = M_PI * sqrt(0.5 * m / (E * M_PI * R / 2));
    ck_assert_double_lt(fabs(t - theory) / theory, 0.03);
    ck_assert_double_lt(fabs(v - 1.0), 0.01);
    collide("linear", 0.5, 1e-6, &t, &v);
    ck_assert_double_lt(fabs(v - 0.5) / 0.5, 0.03);
}
END_TEST

START_TEST(time_step_bound_and_auto)
{
    const char *doc =
        "{\"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, \"young_modulus\": "
        "1e7}], \"particles\": [{\"type\": \"list\", \"spheres\": [[0, 0, 0, 0.01]]}]},"
        "\"solver\": {\"method\": \"dem\", \"time_step\": %s, \"duration\": 0.1}}";
    char text[512];
    snprintf(text, sizeof text, doc, "0.01");
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    ck_assert_int_eq(ndem_job_parse(text, strlen(text), &job, &errs), NDEM_JOB_INVALID);
    ck_assert_int_eq(errs.count, 1);
    ck_assert_str_eq(errs.items[0].pointer, "/solver/time_step");
    ck_assert_ptr_nonnull(strstr(errs.items[0].message, "exceeds the stable step"));
    ndem_job_errors_clear(&errs);
    snprintf(text, sizeof text, doc, "\"auto\"");
    job = test_job("%s", text);
    double bound = ndem_dem_stable_step(&job->scene);
    /* symplectic Euler with the damping from the old velocity is stable while
     * omega h < 2 (sqrt(1 + zeta^2) - zeta); the stiffest contact is a pair of
     * these spheres (m* = m/2, d* = r) at the Hertz tangent stiffness at an
     * overlap of 5% of r; zeta = p / (2 sqrt(3/2)) of the default e = 0.5 */
    double m = 2500 * 4.0 / 3.0 * M_PI * 1e-6;
    double kn = 1e7 * sqrt(2.0 * 0.01) / (3.0 * (1 - 0.09)), k = 1.5 * kn * sqrt(0.05 * 0.01);
    double p = ndem_dem_law_damping(NDEM_MODEL_HERTZ, 0.5, 1.5);
    ck_assert_double_lt(fabs(ndem_dem_law_restitution(NDEM_MODEL_HERTZ, p, 1.5) - 0.5), 1e-6);
    double zeta = p / (2.0 * sqrt(1.5));
    double limit = 2.0 * (sqrt(1 + zeta * zeta) - zeta) / sqrt(k / (0.5 * m));
    ck_assert_double_lt(fabs(bound - limit) / limit, 1e-9);
    ck_assert_double_eq_tol(job->scene.solver.time_step, 0.05 * bound, 1e-15);
    ndem_job_destroy(job);
    /* a low restitution: the first and last step of a contact act for the
     * part of the step in contact (dem.c), so "auto" keeps 0.05 of the bound
     * for the linear law, which is never overdamped (before, kappa 1 held
     * its dashpot 2 zeta omega h at 1.5%: 0.011 of the bound at e = 0.1) */
    const char *low = "{\"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, "
                      "\"young_modulus\": 1e7}], \"contact_materials\": [{\"materials\": "
                      "[\"ore\", \"ore\"], \"restitution\": 0.1}], \"particles\": [{\"type\": "
                      "\"list\", \"spheres\": [[0, 0, 0, 0.01]]}]}, \"solver\": {\"method\": "
                      "\"dem\", \"contact_model\": \"%s\", \"time_step\": \"auto\", "
                      "\"duration\": 0.1}}";
    job = test_job(low, "linear");
    double lz = -log(0.1) / sqrt(M_PI * M_PI + log(0.1) * log(0.1));
    double lw = sqrt(0.5 * M_PI * 0.01 * 1e7 / (0.5 * m)); /* Woo: k = pi r E / 2, m* = m / 2 */
    double lbound = 2.0 * (sqrt(1 + lz * lz) - lz) / lw;
    ck_assert_double_lt(fabs(ndem_dem_stable_step(&job->scene) / lbound - 1), 1e-9);
    ck_assert_double_lt(fabs(job->scene.solver.time_step / (0.05 * lbound) - 1), 1e-9);
    ndem_job_destroy(job);
    /* luding at e = 0.1 is overdamped (zeta = p / 2 > 1): there the clamp
     * still moves e by about kappa b, kappa 0.25, and "auto" keeps
     * 0.25 * 2 zeta omega h at 1.5%, below 0.05 of the bound */
    job = test_job(low, "luding");
    double uz = 0.5 * ndem_dem_law_damping(NDEM_MODEL_LUDING, 0.1, 1.5);
    ck_assert_double_gt(uz, 1.0);
    double ubound = 2.0 * (sqrt(1 + uz * uz) - uz) / lw;
    ck_assert_double_lt(fabs(ndem_dem_stable_step(&job->scene) / ubound - 1), 1e-9);
    ck_assert_double_lt(fabs(job->scene.solver.time_step / (0.015 / (2 * 0.25 * uz * lw)) - 1),
                        1e-9);
    ck_assert_double_lt(job->scene.solver.time_step, 0.75 * 0.05 * ubound);
    ndem_job_destroy(job);
    /* contact_model and "auto" belong to method "dem" */
    const char *bad = "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}, \"solver\": "
                      "{\"contact_model\": \"hertz\", \"time_step\": \"auto\"}}";
    ck_assert_int_eq(ndem_job_parse(bad, strlen(bad), &job, &errs), NDEM_JOB_INVALID);
    ck_assert_int_eq(errs.count, 2);
    ndem_job_errors_clear(&errs);
}
END_TEST

/* A sphere resting on a stiff plane oscillates about its rest overlap,
 * gravity chosen so that the rest overlap is the 5% of r at which the step
 * bound takes the Hertz stiffness. Returns the largest overlap deviation in
 * the last half of the run over that of the first 20 steps. */
static double rest_oscillation(const char *model, double e, double h_over_bound, double *bound)
{
    const double r = 0.01, dr = 0.05 * r, rho = 2500, eo = 1e7, es = 2e11;
    double m = rho * 4.0 / 3.0 * M_PI * r * r * r;
    double e_w = 2.0 * eo * es / (eo + es), g, k;
    if (!strcmp(model, "linear") || !strcmp(model, "luding")) {
        k = M_PI * r * eo * es / (eo + es); /* Woo connector, wall length r */
        g = k * dr / m;
    } else {
        double kn = e_w * sqrt(2.0 * 2.0 * r) / (3.0 * (1 - 0.09));
        k = 1.5 * kn * sqrt(dr); /* tangent stiffness at the rest overlap */
        g = kn * pow(dr, 1.5) / m;
    }
    double w = sqrt(k / m), amp = 0.1 * dr;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%.17g], \"materials\": [{\"name\": \"ore\", \"density\": "
        "%g, \"young_modulus\": %g}, {\"name\": \"steel\", \"young_modulus\": %g}], "
        "\"contact_materials\": [{\"materials\": [\"ore\", \"ore\"], \"restitution\": %g}, "
        "{\"materials\": [\"ore\", \"steel\"], \"restitution\": %g, \"friction\": 0}], "
        "\"geometry\": [{\"type\": \"plane\", \"point\": [0,0,0], \"normal\": [0,0,1], "
        "\"material\": \"steel\"}], \"particles\": [{\"type\": \"list\", \"spheres\": "
        "[[0, 0, %.17g, %g]], \"velocities\": [[0,0,%.17g]]}]}, \"solver\": {\"method\": "
        "\"dem\", \"contact_model\": \"%s\", \"time_step\": \"auto\", \"duration\": 1}}",
        -g, rho, eo, es, e, e, r - dr, r, -w * amp, model);
    *bound = ndem_dem_stable_step(&job->scene);
    job->scene.solver.time_step = h_over_bound * *bound;
    job->scene.solver.duration = 2000 * job->scene.solver.time_step;
    ndem_sim *sim = test_sim(job);
    double first = 0, last = 0;
    for (long i = 0; i < 2000; i++) {
        if (ndem_sim_step(sim) != NDEM_OK) {
            last = INFINITY; /* blew up past what the engine accepts */
            break;
        }
        ndem_frame f;
        test_frame(sim, &f);
        double dev = fabs(r - f.positions[2] - dr);
        ndem_frame_free(&f);
        if (!isfinite(dev)) dev = INFINITY;
        if (i < 20) first = fmax(first, dev);
        if (i >= 1000) last = fmax(last, dev);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    /* the bound is that contact's limit: 2 / omega undamped (the stiff wall
     * makes it the stiffest contact; the ore pair ties it for linear) */
    if (e >= 1.0)
        ck_assert_msg(fabs(*bound * w / 2.0 - 1.0) < 1e-3, "%s: bound %g, 2/omega %g", model,
                      *bound, 2.0 / w);
    return last / first;
}

START_TEST(stable_step_is_the_stability_limit)
{
    static const char *const models[] = {"linear", "luding", "hertz", "hunt_crossley"};
    for (int i = 0; i < 4; i++) {
        double bound, grow;
        /* undamped: bounded at 0.9 of the bound, blows up at 1.2 of it */
        grow = rest_oscillation(models[i], 1.0, 0.9, &bound);
        ck_assert_msg(grow < 1.05, "%s e = 1 at 0.9 of the bound: grows %g", models[i], grow);
        grow = rest_oscillation(models[i], 1.0, 1.2, &bound);
        ck_assert_msg(grow > 10, "%s e = 1 at 1.2 of the bound: only %g", models[i], grow);
        /* damped (the bound shrinks with zeta): bounded and decaying at 0.9 */
        grow = rest_oscillation(models[i], 0.3, 0.9, &bound);
        ck_assert_msg(grow < 0.5, "%s e = 0.3 at 0.9 of the bound: %g", models[i], grow);
    }
}
END_TEST

/* A head-on pair (r = 5 mm, E = 10 MPa, no gravity) of restitution e. */
static const char *const PAIR_DOC =
    "{\"scene\": {\"gravity\": [0,0,0], \"materials\": [{\"name\": \"ore\", \"density\": 2500, "
    "\"young_modulus\": 1e7}], \"contact_materials\": [{\"materials\": [\"ore\", \"ore\"], "
    "\"restitution\": %g}], \"particles\": [{\"type\": \"list\", \"spheres\": [[%.17g, 0, 0, %g], "
    "[%.17g, 0, 0, %g]], \"velocities\": [[%g,0,0], [%g,0,0]]}]}, \"solver\": {\"method\": "
    "\"dem\", \"contact_model\": \"%s\", \"time_step\": \"auto\", \"duration\": 1}}";
static const double PAIR_R = 0.005;

/* The pair's step: "auto" (frac 0) or frac of the stable step. */
static double pair_step(const char *model, double e, double frac)
{
    ndem_job *job =
        test_job(PAIR_DOC, e, -2 * PAIR_R, PAIR_R, 2 * PAIR_R, PAIR_R, 1.0, -1.0, model);
    double h = frac > 0 ? frac * ndem_dem_stable_step(&job->scene) : job->scene.solver.time_step;
    ndem_job_destroy(job);
    return h;
}

/* Steps sim until its contacts have formed and opened again (at most
 * max_steps), then returns velocity component `component` of its frame. */
static double through_contact(ndem_sim *sim, long max_steps, int component)
{
    int touched = 0;
    for (long i = 0; i < max_steps; i++) {
        test_step(sim);
        int c = ndem_sim_stats(sim)->contacts > 0;
        touched |= c;
        if (touched && !c) break;
    }
    ndem_frame f;
    test_frame(sim, &f);
    double out = f.velocities[component];
    ndem_frame_free(&f);
    return out;
}

/* Rebound over approach speed when they meet at v each, at the pair's
 * "auto" step, first touching `phase` of a step into a step. */
static double pair_restitution(const char *model, double e, double v, double phase)
{
    const double r = PAIR_R, h = pair_step(model, e, 0);
    /* each closes (2 + phase) steps of its speed before they touch */
    double gap = (2.0 + phase) * v * h;
    ndem_job *job = test_job(PAIR_DOC, e, -r - gap, r, r + gap, r, v, -v, model);
    job->scene.solver.time_step = h;
    ndem_sim *sim = test_sim(job);
    double out = through_contact(sim, 2000000, 3) / v;
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return out;
}

/* Every smooth law, e in es, impact speeds 0.01 to 5 m/s, first touch at each
 * of phases: `rebound` gives e within 2% (issue 14's grid); prints the worst. */
static void restitution_grid(const char *what,
                             double (*rebound)(const char *, double, double, double),
                             const double *es, int n_e, const double *phases, int n_phase)
{
    static const char *const models[] = {"hertz", "linear", "luding", "hunt_crossley"};
    static const double vs[] = {0.01, 0.1, 1, 5};
    for (int m = 0; m < 4; m++) {
        double worst = 0;
        for (int i = 0; i < n_e; i++)
            for (int j = 0; j < 4; j++)
                for (int k = 0; k < n_phase; k++) {
                    double got = rebound(models[m], es[i], vs[j], phases[k]);
                    worst = fmax(worst, fabs(got / es[i] - 1));
                    ck_assert_msg(fabs(got - es[i]) <= 0.02 * es[i],
                                  "%s, %s e = %g at %g m/s, phase %g: %.5f", what, models[m], es[i],
                                  vs[j], phases[k], got);
                }
        fprintf(stderr, "%s, %s: worst %.2f%%\n", what, models[m], 100 * worst);
    }
}

/* Issue 14 item 1: every smooth law restitutes its e at every impact speed
 * at "auto" (the damping from the exact mapping of dem_models.c, made exact
 * for the explicit step). A full step of dashpot at a contact's first and
 * last step moved e by about kappa 2 zeta omega h: at 0.05 of the stable
 * step that was up to 6% at e = 0.1 and 4% at 0.3 for linear, 6% for luding,
 * and "auto" took up to 4 times the steps to hold it; now those steps act
 * for the part of the step in contact (dem.c) and "auto" keeps 0.05 of the
 * stable step unless a dashpot is overdamped. Two phases of the first touch
 * within a step, either side of the half step (the worst of eight in the
 * measurement of docs/physics.md is within 1.3%); without the share, at
 * this "auto", the late phase 0.9375 leaves linear 5.9% low at e = 0.1 and
 * luding 3.9%. */
START_TEST(restitution_exact_in_every_model)
{
    static const double es[] = {0.1, 0.2, 0.3, 0.6, 0.9, 0.95}, phases[] = {0.1875, 0.9375};
    restitution_grid("pair", pair_restitution, es, 6, phases, 2);
    /* the scaled collision of each law gives back the e it was mapped from */
    static const int laws[] = {NDEM_MODEL_HERTZ, NDEM_MODEL_LUDING, NDEM_MODEL_HUNT_CROSSLEY};
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < 6; i++) {
            double p = ndem_dem_law_damping(laws[m], es[i], 1.5);
            ck_assert_double_lt(fabs(ndem_dem_law_restitution(laws[m], p, 1.5) - es[i]), 1e-6);
        }
}
END_TEST

/* A sphere (r = 5 mm, E = 10 MPa, no gravity) falling onto a plane of its
 * own material, restitution e (m* = m: the plane does not move). */
static const char *const PLANE_DOC =
    "{\"scene\": {\"gravity\": [0,0,0], \"materials\": [{\"name\": \"ore\", \"density\": 2500, "
    "\"young_modulus\": 1e7}], \"contact_materials\": [{\"materials\": [\"ore\", \"ore\"], "
    "\"restitution\": %g}], \"geometry\": [{\"type\": \"plane\", \"point\": [0,0,0], \"normal\": "
    "[0,0,1], \"material\": \"ore\"}], \"particles\": [{\"type\": \"list\", \"spheres\": [[0, 0, "
    "%.17g, %g]], \"velocities\": [[0,0,%g]]}]}, \"solver\": {\"method\": \"dem\", "
    "\"contact_model\": \"%s\", \"time_step\": \"auto\", \"duration\": 1}}";

/* Rebound over impact speed of the sphere landing at v on the plane at its
 * "auto" step, first touching `phase` of a step into a step. */
static double plane_restitution(const char *model, double e, double v, double phase)
{
    ndem_job *job = test_job(PLANE_DOC, e, 2 * PAIR_R, PAIR_R, -v, model);
    double h = job->scene.solver.time_step;
    ndem_job_destroy(job);
    /* it closes (2 + phase) steps of its speed before it touches */
    job = test_job(PLANE_DOC, e, PAIR_R + (2.0 + phase) * v * h, PAIR_R, -v, model);
    ck_assert_double_eq(job->scene.solver.time_step, h);
    ndem_sim *sim = test_sim(job);
    double out = through_contact(sim, 100000, 2) / v;
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return out;
}

/* Issue 14: the sphere on a plane (m* = m) over the grid, at five phases of
 * the first touch, three of them 0.19-0.2 and one 0.5875: there the last
 * step's share decided from the speed the unshared force leaves (a linear
 * dashpot pulls, so the shared force was smaller) kept linear pairs that it
 * said part for another half step of damping: 0.1956-0.1957 at e = 0.2 and
 * 0.0976 at e = 0.1 (-2.2%, -2.4%). The share is now the fixed point of the
 * force with it (ndem_dem_last_share, dem_private.h); worst measured 0.91%. */
START_TEST(plane_restitution_grid)
{
    static const double es[] = {0.1, 0.2, 0.5, 0.9, 0.95};
    static const double phases[] = {0.1875, 0.19, 0.2, 0.5875, 0.9375};
    restitution_grid("sphere on plane", plane_restitution, es, 5, phases, 5);
}
END_TEST

/* The step's dashpot b = h g / m (dem_models.c): symplectic Euler with it
 * restitutes what the continuous law does. Its eigenvalues z = s e^(i theta)
 * (z^2 - (2 - a - b) z + 1 - b = 0, a = (omega h)^2) must shrink by
 * s = exp(-q theta), q = zeta / sqrt(1 - zeta^2), per turn theta; overdamped,
 * the slow real root must be exp(-omega h (zeta - sqrt(zeta^2 - 1))). The
 * fixed-point iteration used before was off by up to 7 times above zeta 0.75. */
START_TEST(step_dashpot_restitutes_the_law)
{
    const double zs[] = {0.05, 0.3, 0.6, 0.8, 0.9, 0.95, 0.99, 0.999},
                 ws[] = {0.005, 0.02, 0.1, 0.3};
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) {
            double zeta = zs[i], w = ws[j], a = w * w, b = ndem_dem_discrete_damping(zeta, w);
            double c = (2.0 - a - b) / 2.0, s = sqrt(1.0 - b), th = acos(c / s);
            double q = zeta / sqrt(1.0 - zeta * zeta);
            ck_assert_msg(b > 0 && c * c < 1.0 - b, "zeta %g, omega h %g: b %g not oscillating",
                          zeta, w, b);
            /* (acos near 1 leaves about 1e-8 of theta at zeta 0.999) */
            ck_assert_msg(fabs(-log(s) / th / q - 1.0) < 1e-6,
                          "zeta %g, omega h %g: decay %g, law %g", zeta, w, -log(s) / th, q);
        }
    const double over[] = {1.2, 2.0, 5.0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            double zeta = over[i], w = ws[j], a = w * w, b = ndem_dem_discrete_damping(zeta, w);
            double c = 2.0 - a - b, slow = 0.5 * (c + sqrt(c * c - 4.0 * (1.0 - b)));
            double want = exp(-w * (zeta - sqrt(zeta * zeta - 1.0)));
            ck_assert_msg(fabs(slow / want - 1.0) < 1e-12, "zeta %g, omega h %g: slow root %g, %g",
                          zeta, w, slow, want);
        }
}
END_TEST

/* Issue 20 item 9: Hertz books its elastic energy 2/5 k_n delta^(5/2) and
 * its dissipation. A head-on pair (R, E as above) at 1 m/s each, at "auto".
 * Symplectic Euler holds kinetic energy half a step apart from the overlap,
 * which moves kinetic + elastic by up to h/2 |f . v| = (omega h / 2) of the
 * energy of the contact (omega at the deepest overlap, where f v peaks
 * within a factor of order 1); the dashpot's power, booked from the same
 * velocity, adds up to 2 zeta of that: the tolerance is (1 + 2 zeta) omega h / 2. */
START_TEST(hertz_energy_books)
{
    const double v0 = 1.0, es[] = {1.0, 0.6, 0.2};
    double m = RHO * 4.0 / 3.0 * M_PI * R * R * R, ms = 0.5 * m;
    double kn = E * sqrt(2.0 * R) / (3.0 * (1 - NU * NU)); /* d* = R */
    /* deepest overlap of the elastic impact at 2 v0: 2/5 k d^(5/2) = m* (2 v0)^2 / 2 */
    double dmax = pow(1.25 * ms * 4 * v0 * v0 / kn, 0.4);
    double w = sqrt(1.5 * kn * sqrt(dmax) / ms);
    for (int i = 0; i < 3; i++) {
        ndem_job *job = test_job(
            "{\"scene\": {\"gravity\": [0,0,0], \"materials\": [{\"name\": \"ore\", \"density\": "
            "%g, \"young_modulus\": %g, \"poisson_ratio\": %g}], \"contact_materials\": "
            "[{\"materials\": [\"ore\", \"ore\"], \"restitution\": %g}], \"particles\": "
            "[{\"type\": "
            "\"list\", \"spheres\": [[%g, 0, 0, %g], [%g, 0, 0, %g]], \"velocities\": [[%g,0,0], "
            "[%g,0,0]]}]}, \"solver\": {\"method\": \"dem\", \"contact_model\": \"hertz\", "
            "\"time_step\": \"auto\", \"duration\": 0.01}}",
            RHO, E, NU, es[i], -R - 1e-5, R, R + 1e-5, R, v0, -v0);
        double p = ndem_dem_law_damping(NDEM_MODEL_HERTZ, es[i], 1.5);
        double zeta = ndem_dem_law_zeta(NDEM_MODEL_HERTZ, p, 1.5, 1.0);
        double h = job->scene.solver.time_step, tol = (1 + 2 * zeta) * 0.5 * w * h;
        ndem_sim *sim = test_sim(job);
        double ke0 = m * v0 * v0, dev = 0, el_max = 0;
        int touched = 0;
        const ndem_step_stats *st = NULL;
        for (long k = 0; k < ndem_sim_total_steps(sim); k++) {
            test_step(sim);
            st = ndem_sim_stats(sim);
            double tot = st->kinetic_energy + st->elastic_energy + st->dissipated_energy;
            dev = fmax(dev, fabs(tot - ke0) / ke0);
            el_max = fmax(el_max, st->elastic_energy);
            touched |= st->contacts > 0;
            if (touched && st->contacts == 0) break;
        }
        ck_assert_msg(touched && st->contacts == 0, "the pair did not separate");
        /* the spring really held the energy: 2/5 k dmax^(5/2) = KE0 at the turn (e = 1) */
        if (es[i] == 1.0) ck_assert_double_lt(fabs(el_max - ke0) / ke0, tol);
        ck_assert_msg(dev < tol, "e = %g: kinetic + elastic + dissipated off by %g of KE0 (tol %g)",
                      es[i], dev, tol);
        /* after the contact: dissipated = (1 - e^2) KE0 (e within the 2% of
         * the restitution test, so e^2 within 4%) */
        double lost = 1.0 - es[i] * es[i];
        ck_assert_msg(fabs(st->dissipated_energy / ke0 - lost) < 0.04 * es[i] * es[i] + tol,
                      "e = %g: dissipated %g of KE0, expected %g", es[i],
                      st->dissipated_energy / ke0, lost);
        printf("hertz energy e = %g: balance within %.4f of KE0 (tol %.4f), dissipated %.4f "
               "(1 - e^2 = %.4f)\n",
               es[i], dev, tol, st->dissipated_energy / ke0, lost);
        ndem_sim_destroy(sim);
        ndem_job_destroy(job);
    }
}
END_TEST

static double column_top(ndem_job *job)
{
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) test_step(sim);
    ndem_frame f;
    test_frame(sim, &f);
    double top = 0;
    for (long i = 0; i < f.count; i++) top = fmax(top, f.positions[3 * i + 2] + f.radii[i]);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    return top;
}

START_TEST(hertz_column_matches_ndem)
{
    char path[512];
    ndem_test_bench("column-25.json", path, sizeof path);
    ndem_job *ndem = test_job_file(path);
    ndem->scene.solver.iterations = 500;
    ndem->scene.solver.warm_start = 0;
    double top_ndem = column_top(ndem);
    ndem_job *dem = test_job_file(path);
    dem->scene.solver.method = NDEM_METHOD_DEM;
    dem->scene.solver.contact_model = NDEM_MODEL_HERTZ;
    dem->scene.solver.time_step = 0.1 * ndem_dem_stable_step(&dem->scene);
    dem->scene.solver.duration = 4.0;
    double top_dem = column_top(dem);
    /* against Hertz itself, as a fraction of the effect (the compression,
     * about 3.9 mm of the 325 mm stack): smooth DEM's Hertz springs settle to
     * the Hertz law (1%); NDEM, converged, within 1% too (test_physics) */
    double theory = hertz_column_height(dem, 25);
    double stacked = 25 * 2 * dem->scene.generators[0].spheres[3], c = stacked - theory;
    fprintf(stderr, "column: compression Hertz %.4f mm, NDEM %.4f mm, hertz DEM %.4f mm\n", 1e3 * c,
            1e3 * (stacked - top_ndem), 1e3 * (stacked - top_dem));
    ck_assert_double_lt(fabs(top_dem - theory) / c, 0.01);
    ck_assert_double_lt(fabs(top_dem - top_ndem) / c, 0.02);
    ndem_job_destroy(ndem);
    ndem_job_destroy(dem);
}
END_TEST

/* Slowest decay rate of a column of n spheres (mass m) on a plane at rest
 * under gravity, linearised: contact j (0: the plane) carries the weight of
 * the n - j spheres above, has the Hertz tangent stiffness 3/2 k delta^(1/2)
 * and the hertz dashpot p sqrt(m* k) delta^(1/4) (m* = m on the plane, m/2
 * between spheres). The lowest mode phi of the chain (inverse iteration on
 * the tridiagonal stiffness) is lightly damped, so it decays at the Rayleigh
 * rate sigma = phi.C phi / (2 m phi.phi); *w its frequency. */
static double column_decay(int n, double m, double g, double k_w, double k_p, double p, double *w)
{
    double kt[64], gm[64], x[64], a[64], bb[64], c[64], cp[64], dp[64];
    for (int j = 0; j < n; j++) {
        double kn = j ? k_p : k_w, ms = j ? 0.5 * m : m, d = pow((n - j) * m * g / kn, 2.0 / 3);
        kt[j] = 1.5 * kn * sqrt(d);
        gm[j] = p * sqrt(ms * kn) * pow(d, 0.25);
        x[j] = 1;
    }
    for (int it = 0; it < 200; it++) { /* x = K^-1 x, Thomas algorithm */
        for (int j = 0; j < n; j++) a[j] = bb[j] = c[j] = 0;
        bb[0] = kt[0];
        for (int j = 1; j < n; j++) {
            bb[j] += kt[j];
            bb[j - 1] += kt[j];
            a[j] = c[j - 1] = -kt[j];
        }
        cp[0] = c[0] / bb[0];
        dp[0] = x[0] / bb[0];
        for (int j = 1; j < n; j++) {
            double den = bb[j] - a[j] * cp[j - 1];
            cp[j] = c[j] / den;
            dp[j] = (x[j] - a[j] * dp[j - 1]) / den;
        }
        x[n - 1] = dp[n - 1];
        for (int j = n - 2; j >= 0; j--) x[j] = dp[j] - cp[j] * x[j + 1];
        double norm = 0;
        for (int j = 0; j < n; j++) norm += x[j] * x[j];
        for (int j = 0; j < n; j++) x[j] /= sqrt(norm);
    }
    double xkx = kt[0] * x[0] * x[0], xcx = gm[0] * x[0] * x[0];
    for (int j = 1; j < n; j++) {
        double dx = x[j] - x[j - 1];
        xkx += kt[j] * dx * dx;
        xcx += gm[j] * dx * dx;
    }
    *w = sqrt(xkx / m);
    return xcx / (2 * m);
}

/* Issue 14 item 2: a soft hertz column (30 spheres of 6.5 mm, E = 1 MPa,
 * e = 0.2), stacked touching, falls onto its springs and rings down in its
 * slowest mode: the top's distance from the Hertz height, as a fraction of
 * the compression (1 at the start), decays as exp(-sigma t). By
 * t = ln(1/0.02) / sigma (4.8 s) it is within 2% (2.5% allowed for the
 * mode's share of the start), and not much inside it either (above
 * 0.5 exp(-sigma t) over the next period): resting contacts are damped as
 * the law says, neither less (the stored-speed damping settled by 8 s only)
 * nor more. */
START_TEST(soft_column_settles_in_its_slowest_mode)
{
    const int n = 30;
    const double r = 0.0065, rho = 3700, eo = 1e6, es = 2e11, g = 9.81, e = 0.2, f = 0.02;
    char spheres[4096] = "";
    for (int i = 0; i < n; i++) {
        char one[64];
        snprintf(one, sizeof one, "%s[0, 0, %.17g, %g]", i ? ", " : "", r + 2 * r * i, r);
        strcat(spheres, one);
    }
    double m = rho * 4.0 / 3.0 * M_PI * r * r * r, w;
    double k_p = eo * sqrt(2.0 * r) / (3.0 * (1 - NU * NU));
    double k_w = 2.0 * eo * es / (eo + es) * sqrt(4.0 * r) / (3.0 * (1 - NU * NU));
    double sigma =
        column_decay(n, m, g, k_w, k_p, ndem_dem_law_damping(NDEM_MODEL_HERTZ, e, 1.5), &w);
    double t_f = log(1.0 / f) / sigma, period = 2 * M_PI / w;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"ore\", \"density\": %g, "
        "\"young_modulus\": %g}, {\"name\": \"steel\", \"density\": 7800, \"young_modulus\": %g}], "
        "\"contact_materials\": [{\"materials\": [\"ore\", \"ore\"], \"friction\": 0.91, "
        "\"restitution\": %g}, {\"materials\": [\"ore\", \"steel\"], \"friction\": 0.91, "
        "\"restitution\": %g}], \"geometry\": [{\"type\": \"plane\", \"point\": [0,0,0], "
        "\"normal\": [0,0,1], \"material\": \"steel\"}], \"particles\": [{\"type\": \"list\", "
        "\"spheres\": [%s]}]}, \"solver\": {\"method\": \"dem\", \"contact_model\": \"hertz\", "
        "\"time_step\": \"auto\", \"duration\": %g}}",
        -g, rho, eo, es, e, e, spheres, t_f + period);
    /* 0.05 of the stable step, "auto" before its restitution bound (issue 14):
     * the settling is slow, not a collision, and this keeps the test's time */
    job->scene.solver.time_step = 0.05 * ndem_dem_stable_step(&job->scene);
    double theory = hertz_column_height(job, n), c = 2 * r * n - theory, worst = 0;
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        if ((i + 1) * job->scene.solver.time_step < t_f) continue;
        ndem_frame fr;
        test_frame(sim, &fr);
        double top = 0;
        for (long k = 0; k < fr.count; k++) top = fmax(top, fr.positions[3 * k + 2] + fr.radii[k]);
        ndem_frame_free(&fr);
        worst = fmax(worst, fabs(top - theory) / c);
    }
    fprintf(stderr, "soft column: sigma %.3f 1/s, t(2%%) %.2f s, off by %.4f of the compression\n",
            sigma, t_f, worst);
    ck_assert_double_lt(worst, 1.25 * f);
    ck_assert_double_gt(worst, 0.5 * f * exp(-sigma * period));
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The lattice's radii (0.004976 to 0.005 m at a 0.01 m pitch) leave every
 * neighbour within the 1% gap that bonds (dem.c, ndem_dem_bond_range)
 * without packing it closer than its largest diameter (job_lattice.c). */
START_TEST(dem_restore_equals_uninterrupted)
{
    const char *doc =
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"ore\"], \"friction\": 0.5%s}],"
        "\"geometry\": [{\"type\": \"box\", \"min\": [0,0,0], \"max\": [0.1,0.1,0.3], "
        "\"inside\": true, \"material\": \"steel\"}],"
        "\"particles\": [{\"type\": \"lattice\", \"min\": [0.005,0.005,0.005], \"max\": "
        "[0.095,0.095,0.05], \"spacing\": 0.01, \"radius\": {\"min\": 0.004976, \"max\": "
        "0.005}, \"velocity\": [0.1, 0, 0], \"material\": \"ore\", \"bonded\": %s}], \"emitters\": "
        "[{\"min\": [0.02,0.02,0.2], \"max\": "
        "[0.08,0.08,0.25], \"rate\": 2000, \"radius\": 0.005, \"material\": \"ore\"}]},"
        "\"solver\": {\"method\": \"dem\", \"contact_model\": \"%s\", \"time_step\": \"auto\", "
        "\"duration\": 1}}";
    const char *models[] = {"hertz", "linear", "hunt_crossley", "luding", "linear_elastic6"};
    /* each model gets the pair fields it reads (others are refused) */
    const char *pairs[] = {", \"rolling_resistance\": 0.1, \"restitution\": 0.4",
                           ", \"restitution\": 0.4", ", \"restitution\": 0.4",
                           ", \"rolling_resistance\": 0.1, \"restitution\": 0.4", ""};
    for (int m = 0; m < 5; m++) {
        /* the lattice is one bonded block for hertz, loose for the others */
        ndem_job *job = test_job(doc, pairs[m], m == 0 ? "true" : "false", models[m]);
        ndem_sim *sim = test_sim(job);
        for (int i = 0; i < 400; i++) test_step(sim);
        uint64_t straight = ndem_sim_state_hash(sim);
        ndem_sim_destroy(sim);
        sim = test_sim(job);
        for (int i = 0; i < 200; i++) test_step(sim);
        void *buf;
        size_t len;
        ck_assert_int_eq(ndem_sim_checkpoint(sim, &buf, &len), 0);
        ndem_sim_destroy(sim);
        char err[256];
        sim = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
        ck_assert_msg(sim != NULL, "%s", err);
        for (int i = 200; i < 400; i++) test_step(sim);
        ck_assert_uint_eq(ndem_sim_state_hash(sim), straight);
        ck_assert_int_gt(ndem_sim_stats(sim)->contacts, 0);
        free(buf);
        ndem_sim_destroy(sim);
        ndem_job_destroy(job);
    }
}
END_TEST

/* A free sphere spinning at a constant w turns as q(t) = [cos(|w| t / 2),
 * w / |w| sin(|w| t / 2)] q(0) exactly. Integration turns it by the step's
 * rotation, from the series of cos and sin below a half angle of 0.05 and
 * from libm above (step.c, turn_quat): each step's rotation is exact to a
 * rounding or two, so after n steps q is off by at most a few roundings a
 * step (checked: 4 n DBL_EPSILON) on both paths and across their threshold. */
START_TEST(free_spin_turns_exactly)
{
    const double h = 1e-4;
    /* half angles |w| h / 2: 1.9e-5 (series), 0.04995 (series, at the
     * threshold), 0.05005 and 0.1 (libm) */
    const double w[4][3] = {{0.3, -0.1, 0.2}, {0, 999, 0}, {0, 0, -1001}, {1200, 0, -1600}};
    const double q0[4] = {0.5, 0.5, -0.5, 0.5};
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,0], \"materials\": [{\"name\": \"ore\", \"density\": "
        "2500, \"young_modulus\": 1e7}], \"particles\": [{\"type\": \"list\", \"spheres\": "
        "[[0,0,0,0.01], [1,0,0,0.01], [2,0,0,0.01], [3,0,0,0.01]], \"orientations\": "
        "[[%g,%g,%g,%g], "
        "[%g,%g,%g,%g], [%g,%g,%g,%g], [%g,%g,%g,%g]], \"angular_velocities\": [[%g,%g,%g], "
        "[%g,%g,%g], [%g,%g,%g], [%g,%g,%g]]}]}, \"solver\": {\"method\": \"dem\", "
        "\"contact_model\": \"hertz\", \"time_step\": %g, \"duration\": 1}}",
        q0[0], q0[1], q0[2], q0[3], q0[0], q0[1], q0[2], q0[3], q0[0], q0[1], q0[2], q0[3], q0[0],
        q0[1], q0[2], q0[3], w[0][0], w[0][1], w[0][2], w[1][0], w[1][1], w[1][2], w[2][0], w[2][1],
        w[2][2], w[3][0], w[3][1], w[3][2], h);
    ndem_sim *sim = test_sim(job);
    const long checks[] = {1, 10, 1000, 10000};
    long n = 0;
    for (int c = 0; c < 4; c++) {
        while (n < checks[c]) test_step(sim), n++;
        ndem_frame f;
        test_frame(sim, &f);
        for (int i = 0; i < 4; i++) {
            double wl = sqrt(w[i][0] * w[i][0] + w[i][1] * w[i][1] + w[i][2] * w[i][2]);
            double half = 0.5 * wl * (double)n * h, s = sin(half) / wl;
            double dq[4] = {cos(half), w[i][0] * s, w[i][1] * s, w[i][2] * s}, want[4];
            ndem_quat_mul(dq, q0, want);
            double err = 0;
            for (int k = 0; k < 4; k++) err = fmax(err, fabs(f.orientations[4 * i + k] - want[k]));
            ck_assert_msg(err <= 4.0 * (double)n * DBL_EPSILON,
                          "sphere %d after %ld steps: q off by %.3g", i, n, err);
            ck_assert_double_eq(f.angular_velocities[3 * i + 1], w[i][1]); /* no torque */
        }
        ndem_frame_free(&f);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dem");
    TCase *tc = tcase_create("smooth");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, hertz_collision_duration);
    tcase_add_test(tc, hertz_restitution);
    tcase_add_test(tc, linear_collision);
    tcase_add_test(tc, time_step_bound_and_auto);
    tcase_add_test(tc, stable_step_is_the_stability_limit);
    tcase_add_test(tc, restitution_exact_in_every_model);
    tcase_add_test(tc, plane_restitution_grid);
    tcase_add_test(tc, step_dashpot_restitutes_the_law);
    tcase_add_test(tc, hertz_energy_books);
    tcase_add_test(tc, soft_column_settles_in_its_slowest_mode);
    tcase_add_test(tc, hertz_column_matches_ndem);
    tcase_add_test(tc, dem_restore_equals_uninterrupted);
    tcase_add_test(tc, free_spin_turns_exactly);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
