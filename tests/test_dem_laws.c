/* test_dem_laws.c - smooth DEM's other laws and forces (issues 5, 14, 20)
 * against theory: Muth et al.'s block with the Brendel-Dippel friction rule,
 * van der Waals' force against its potential and in the engine, a bonded
 * pair turning as one body, the linear law's energy balance in a settling
 * bed, linear_elastic6 conserving energy, luding's static-to-dynamic
 * friction. Run in both builds (docs/testing.md). */
#include "dem.h"
#include "scene.h"
#include "testutil.h"

#include <math.h>

/* Muth et al.'s block on a 30 degree incline, launched up the slope at 5 m/s:
 * a sphere of the block's volume and mass with its rotation locked, on a
 * plane under tilted gravity. Returns the time its velocity first reaches
 * zero and its velocity along the slope after `duration`. */
static void block_on_incline(double mu, int velocity_friction, double duration, double *t_stop,
                             double *v_end)
{
    const double a = M_PI / 6, g = 9.81, r = cbrt(3 * 0.001 / (4 * M_PI));
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [%.17g, 0, %.17g], \"materials\": [{\"name\": \"al\", "
        "\"density\": 2700, \"young_modulus\": 1e8}], \"contact_materials\": [{\"materials\": "
        "[\"al\", \"al\"], \"friction\": %g, \"velocity_friction\": %s}],"
        "\"geometry\": [{\"type\": \"plane\", \"point\": [0,0,0], \"normal\": [0,0,1]}],"
        "\"particles\": [{\"type\": \"list\", \"fixed_rotation\": true, \"spheres\": "
        "[[0, 0, %.17g, %.17g]], \"velocities\": [[5, 0, 0]]}]},"
        "\"solver\": {\"method\": \"dem\", \"contact_model\": \"hunt_crossley\", "
        "\"time_step\": 5e-5, \"duration\": %g}}",
        -g * sin(a), -g * cos(a), mu, velocity_friction ? "true" : "false", r - 1.17e-4, r,
        duration);
    ndem_sim *sim = test_sim(job);
    *t_stop = -1;
    ndem_frame f;
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        if (*t_stop >= 0) continue;
        test_frame(sim, &f);
        if (f.velocities[0] <= 0) *t_stop = f.time;
        ndem_frame_free(&f);
    }
    test_frame(sim, &f);
    *v_end = f.velocities[0];
    ck_assert_double_eq(f.angular_velocities[1], 0); /* locked */
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(block_on_incline_brendel_dippel)
{
    const double mus[] = {0.5, 0.58, 0.6}, g = 9.81, a = M_PI / 6;
    for (int i = 0; i < 3; i++) {
        double t, v;
        block_on_incline(mus[i], 0, 2.5, &t, &v);
        /* Muth et al.: 0.546, 0.508, 0.499 s */
        double theory = 5.0 / (g * sin(a) + mus[i] * g * cos(a));
        ck_assert_msg(fabs(t - theory) / theory < 0.02, "mu %g: stops at %g, theory %g", mus[i], t,
                      theory);
        if (mus[i] < tan(a)) ck_assert_double_lt(v, -0.5); /* slides back down */
        else ck_assert_msg(fabs(v) < 1e-6, "mu %g: still moving at %g m/s", mus[i], v);
    }
    /* a plain velocity-dependent friction never truly rests: it creeps */
    double t, v;
    block_on_incline(0.6, 1, 2.5, &t, &v);
    ck_assert_double_gt(fabs(v), 1e-6);
}
END_TEST

/* ---- van der Waals (libgran) ---- */

START_TEST(vdw_force_is_minus_the_potential_slope)
{
    const double A = 1e-19, r = 1e-5;
    const double gaps[] = {1e-9, 1e-8, 1e-7, 1e-6};
    for (int i = 0; i < 4; i++) {
        double g = gaps[i], dg = 1e-4 * g;
        double slope =
            (ndem_vdw_potential(A, r, g + dg) - ndem_vdw_potential(A, r, g - dg)) / (2 * dg);
        double f = ndem_vdw_force(A, r, g);
        ck_assert_msg(fabs(f - slope) / f < 1e-5, "gap %g: force %g, dU/dg %g", g, f, slope);
    }
    /* close spheres: the Derjaguin limit A R* / (6 g^2) with R* = r / 2 */
    double g = 1e-4 * r;
    ck_assert_double_lt(fabs(ndem_vdw_force(A, r, g) / (A * r / (12 * g * g)) - 1), 0.01);
}
END_TEST

/* Hamaker's attraction between two equal spheres of radius R, written here
 * from the potential (not the engine's function): with d = 2R + g,
 * U(d) = -(A/6) [2R^2/(d^2 - 4R^2) + 2R^2/d^2 + ln((d^2 - 4R^2)/d^2)], and the
 * attraction is dU/dd. */
static double hamaker_force(double A, double rad, double g)
{
    double d = 2 * rad + g, q = d * d - 4 * rad * rad, R2 = rad * rad;
    return -A / 6 * (-4 * R2 * d / (q * q) - 4 * R2 / (d * d * d) + 2 * d / q - 2 / d);
}

/* Two 10 um spheres at rest `gap` apart in zero gravity: after one step each
 * has the velocity F h / m of the closed-form attraction. */
static double vdw_measured(double gap, double *closed)
{
    const double A = 1e-19, r = 1e-5, rho = 2500, d0 = 0.4e-9;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,0], \"materials\": [{\"name\": \"si\", \"density\": %g, "
        "\"young_modulus\": 1e9}], \"contact_materials\": [{\"materials\": [\"si\", \"si\"], "
        "\"hamaker\": %g, \"vdw_saturation\": %g}], \"particles\": [{\"type\": \"list\", "
        "\"spheres\": [[0, 0, 0, %g], [%.17g, 0, 0, %g]]}]},"
        "\"solver\": {\"method\": \"dem\", \"time_step\": \"auto\", \"duration\": 1e-6}}",
        rho, A, d0, r, 2 * r + gap, r);
    ndem_sim *sim = test_sim(job);
    test_step(sim);
    ndem_frame f;
    test_frame(sim, &f);
    double m = rho * 4.0 / 3.0 * M_PI * r * r * r, h = job->scene.solver.time_step;
    double force = f.velocities[0] * m / h;
    ck_assert_double_eq(f.velocities[0], -f.velocities[3]);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    *closed = hamaker_force(A, r, fmax(gap, d0)); /* saturated below d0 */
    return force;
}

START_TEST(vdw_attraction_in_the_engine)
{
    const double gaps[] = {0.1e-9, 1e-9, 10e-9, 100e-9};
    for (int i = 0; i < 4; i++) {
        double closed, measured = vdw_measured(gaps[i], &closed);
        ck_assert_msg(measured > 0 && fabs(measured - closed) / closed < 1e-6,
                      "gap %g: measured %g, closed form %g", gaps[i], measured, closed);
    }
}
END_TEST

/* ---- bonds (libgran) ---- */

/* Two touching spheres, bonded or not, launched in a rigid-looking spin:
 * orbital speeds +-0.1 m/s about their contact, no own spin, no gravity.
 * Returns the centre distance after 1 s and fills the spins and the
 * orbital angular velocity. */
static double spinning_pair_doc(const char *bonded, const char *max_force, const char *gap_bond,
                                double *spin, double *orbital);

static double spinning_pair(const char *bonded, const char *max_force, double *spin,
                            double *orbital)
{
    return spinning_pair_doc(bonded, max_force, NULL, spin, orbital);
}

/* With gap_bond set, the spheres start 2 mm apart, bonded by the listed pair. */
static double spinning_pair_doc(const char *bonded, const char *max_force, const char *gap_bond,
                                double *spin, double *orbital)
{
    double x = gap_bond ? 0.011 : 0.01;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,0], \"materials\": [{\"name\": \"ore\", \"density\": "
        "2500, \"young_modulus\": 1e7}], \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"ore\"], \"bond_max_force\": %s}], \"particles\": [{\"type\": \"list\", \"bonded\": "
        "%s, %s \"spheres\": [[%g, 0, 0, 0.01], [%g, 0, 0, 0.01]], \"velocities\": "
        "[[0, -0.1, 0], [0, 0.1, 0]]}]},"
        "\"solver\": {\"method\": \"dem\", \"time_step\": \"auto\", \"duration\": 1.0}}",
        max_force, bonded, gap_bond ? gap_bond : "", -x, x);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) test_step(sim);
    ndem_frame f;
    test_frame(sim, &f);
    double d[3], dv[3], cr[3];
    for (int q = 0; q < 3; q++) {
        d[q] = f.positions[3 + q] - f.positions[q];
        dv[q] = f.velocities[3 + q] - f.velocities[q];
    }
    double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    cr[2] = d[0] * dv[1] - d[1] * dv[0];
    *orbital = cr[2] / (dist * dist);
    spin[0] = f.angular_velocities[2];
    spin[1] = f.angular_velocities[5];
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return dist;
}

START_TEST(bonded_pair_turns_as_one_body)
{
    const double r = 0.01;
    double spin[2], orbital;
    double dist = spinning_pair("true", "null", spin, &orbital);
    /* rigid: distance kept within 1% of r, and the angular momentum
     * L = 2 m (0.1 m/s)(r) shared as one rotation w = L / (2 m (r^2 + 2/5 r^2)) */
    double w = 2 * 0.1 * r / (2 * (r * r + 0.4 * r * r));
    ck_assert_double_lt(fabs(dist - 2 * r), 0.01 * r);
    ck_assert_double_lt(fabs(orbital - w) / w, 0.01);
    ck_assert_double_lt(fabs(spin[0] - w) / w, 0.01);
    ck_assert_double_lt(fabs(spin[1] - w) / w, 0.01);
    /* without the bond the pair flies apart */
    ck_assert_double_gt(spinning_pair("false", "null", spin, &orbital), 0.1);
    /* a bond weaker than the centripetal pull (m w^2 r ~ 0.01 N) breaks */
    ck_assert_double_gt(spinning_pair("true", "0.002", spin, &orbital), 0.1);
    /* (the first step shears it by 0.2 m/s through the dashpot: a few N) */
    ck_assert_double_lt(fabs(spinning_pair("true", "20.0", spin, &orbital) - 2 * r), 0.01 * r);
    /* a listed bond holds two spheres 2 mm apart at that distance */
    double d = spinning_pair_doc("false", "null", "\"bonds\": [[1, 0]],", spin, &orbital);
    ck_assert_double_lt(fabs(d - 0.022), 0.01 * r);
}
END_TEST

/* ---- energy (Woo) ---- */

/* Kinetic + gravitational (above z = 0) energy of a frame, one density. */
static double mechanical_energy(const ndem_frame *f, double rho, double g)
{
    double e = 0;
    for (long i = 0; i < f->count; i++) {
        double r = f->radii[i], m = rho * 4.0 / 3.0 * M_PI * r * r * r, in = 0.4 * m * r * r;
        const double *v = &f->velocities[3 * i], *w = &f->angular_velocities[3 * i];
        e += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
             0.5 * in * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) + m * g * f->positions[3 * i + 2];
    }
    return e;
}

START_TEST(linear_energy_balance_in_a_settling_bed)
{
    /* kinetic + gravitational + elastic + dissipated stays constant while a
     * bed of 150 spheres falls into a box and settles */
    const double rho = 2500, g = 9.81;
    ndem_job *job = test_job(
        "{\"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": %g, \"young_modulus\": "
        "1e7}], \"contact_materials\": [{\"materials\": [\"ore\", \"ore\"], \"friction\": 0.5, "
        "\"restitution\": 0.4}], \"geometry\": [{\"type\": \"box\", \"min\": [0,0,0], \"max\": "
        "[0.08,0.08,0.3], \"inside\": true}], \"particles\": [{\"type\": \"random\", \"min\": "
        "[0.006,0.006,0.006], \"max\": [0.074,0.074,0.15], \"count\": 150, \"radius\": 0.005, "
        "\"seed\": 4}]}, \"solver\": {\"method\": \"dem\", \"contact_model\": \"linear\", "
        "\"time_step\": 2e-5, \"duration\": 0.6}}",
        rho);
    ndem_sim *sim = test_sim(job);
    ndem_frame f;
    test_frame(sim, &f);
    double e0 = mechanical_energy(&f, rho, g), worst = 0, dissipated = 0;
    ndem_frame_free(&f);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        if (i % 500) continue;
        const ndem_step_stats *s = ndem_sim_stats(sim);
        test_frame(sim, &f);
        double e = mechanical_energy(&f, rho, g) + s->elastic_energy + s->dissipated_energy;
        ndem_frame_free(&f);
        worst = fmax(worst, fabs(e - e0) / e0);
        dissipated = s->dissipated_energy;
    }
    fprintf(stderr, "linear bed: dissipated %.3g of %.3g J, balance off by %.2g%%\n", dissipated,
            e0, 100 * worst);
    ck_assert_double_gt(dissipated, 0.2 * e0); /* the bed really settled */
    ck_assert_double_lt(worst, 0.01);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(elastic6_conserves_energy)
{
    /* an oblique, spinning collision: all six springs load and unload */
    const double rho = 2500;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,0], \"materials\": [{\"name\": \"ore\", \"density\": "
        "%g, \"young_modulus\": 1e7}], \"particles\": [{\"type\": \"list\", \"spheres\": [[0, 0, "
        "0, 0.01], [0.021, 0.006, 0, 0.01]], \"velocities\": [[0.5, 0.1, 0], [-0.5, 0, 0.05]]}]},"
        "\"solver\": {\"method\": \"dem\", \"contact_model\": \"linear_elastic6\", "
        "\"time_step\": 1e-6, \"duration\": 0.004}}",
        rho);
    ndem_sim *sim = test_sim(job);
    ndem_frame f;
    test_frame(sim, &f);
    double e0 = mechanical_energy(&f, rho, 0), worst = 0;
    ndem_frame_free(&f);
    long touching = 0;
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        const ndem_step_stats *s = ndem_sim_stats(sim);
        touching += s->contacts > 0;
        test_frame(sim, &f);
        double e = mechanical_energy(&f, rho, 0) + s->elastic_energy;
        ndem_frame_free(&f);
        worst = fmax(worst, fabs(e - e0) / e0);
    }
    ck_assert_int_gt(touching, 100);
    ck_assert_double_lt(worst, 0.01);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- Luding (libgran): static and dynamic friction ---- */

START_TEST(luding_static_to_dynamic)
{
    /* A sphere with locked rotation rests on a plane and is pushed sideways
     * by a force growing at 0.05 N/s: it sticks until the force reaches
     * mu_s m g, then slides against mu_d m g: a = (F(t) - mu_d m g) / m. */
    const double mus = 0.6, mud = 0.4, rate = 0.05, g = 9.81, r = 0.01;
    const double m = 2500 * 4.0 / 3.0 * M_PI * r * r * r;
    ndem_job *job = test_job(
        "{\"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, \"young_modulus\": "
        "1e7}], \"contact_materials\": [{\"materials\": [\"ore\", \"ore\"], \"friction\": %g, "
        "\"dynamic_friction\": %g, \"restitution\": 0.3}], \"geometry\": [{\"type\": \"plane\", "
        "\"point\": [0,0,0], \"normal\": [0,0,1]}], \"particles\": [{\"type\": \"list\", "
        "\"fixed_rotation\": true, \"force_rate\": [%g, 0, 0], \"spheres\": [[0, 0, 0.00999, "
        "0.01]]}]}, \"solver\": {\"method\": \"dem\", \"contact_model\": \"luding\", "
        "\"time_step\": 1e-5, \"duration\": 2.0}}",
        mus, mud, rate);
    ndem_sim *sim = test_sim(job);
    double t_break = -1, x_before = 0, v18 = 0, v20 = 0;
    ndem_frame f;
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        test_frame(sim, &f);
        double t = f.time, v = f.velocities[0];
        if (t_break < 0 && v > 1e-4) t_break = t;
        if (t_break < 0) x_before = f.positions[0];
        if (fabs(t - 1.8) < 5e-6) v18 = v;
        if (fabs(t - 2.0) < 5e-6) v20 = v;
        ndem_frame_free(&f);
    }
    double t_theory = mus * m * g / rate;
    ck_assert_double_lt(fabs(t_break - t_theory) / t_theory, 0.02);
    ck_assert_double_lt(fabs(x_before), 1e-5); /* static: only the spring gives */
    double a = (v20 - v18) / 0.2, a_theory = (rate * 1.9 - mud * m * g) / m;
    ck_assert_double_lt(fabs(a - a_theory) / a_theory, 0.02);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dem_laws");
    TCase *tc = tcase_create("laws");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, block_on_incline_brendel_dippel);
    tcase_add_test(tc, vdw_force_is_minus_the_potential_slope);
    tcase_add_test(tc, vdw_attraction_in_the_engine);
    tcase_add_test(tc, bonded_pair_turns_as_one_body);
    tcase_add_test(tc, linear_energy_balance_in_a_settling_bed);
    tcase_add_test(tc, elastic6_conserves_energy);
    tcase_add_test(tc, luding_static_to_dynamic);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
