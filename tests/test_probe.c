/* test_probe.c - the convergence probe and the study switches of
 * `make validate` (issue 14, docs/validation.md): ndem_sim_probe_step
 * measures every sweep of one step without changing the step,
 * ndem_sim_set_solver changes only the PGS effort, NDEM_SWEEP orders the
 * colours and NDEM_WARM_ROWS=normal warm-starts the normal rows only. */
#include "scene.h"
#include "testutil.h"

#include <math.h>

#define SWEEPS 300

/* bench/column-25.json settled for 1 s with its 50 warm iterations, then
 * switched to SWEEPS iterations, warm or cold. */
static ndem_sim *settled_column(ndem_job **job, int warm)
{
    char path[512];
    *job = test_job_file(ndem_test_bench("column-25.json", path, sizeof path));
    ndem_sim *sim = test_sim(*job);
    for (int i = 0; i < 200; i++) test_step(sim);
    ndem_solver_def s = (*job)->scene.solver;
    s.iterations = SWEEPS;
    s.warm_start = warm;
    char err[256] = "";
    ck_assert_msg(ndem_sim_set_solver(sim, &s, err, sizeof err) == 0, "%s", err);
    return sim;
}

/* The probed step is the ordinary step: same state, and its last sweep's
 * residual is the step's. The multipliers of a cold solve start far from
 * the converged ones (the column's load needs ~25 sweeps to reach its foot)
 * and approach them: eq. 13 is 0 at the last sweep by definition. */
START_TEST(probe_records_every_sweep_of_the_ordinary_step)
{
    ndem_job *job;
    ndem_sim *sim = settled_column(&job, 0);
    void *buf = NULL;
    size_t len = 0;
    ck_assert_int_eq(ndem_sim_checkpoint(sim, &buf, &len), 0);
    char err[256] = "";
    ndem_sim *twin = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(twin != NULL, "%s", err);
    free(buf);
    ndem_solver_def s = job->scene.solver;
    s.iterations = SWEEPS;
    s.warm_start = 0;
    ck_assert_int_eq(ndem_sim_set_solver(twin, &s, err, sizeof err), 0);
    test_step(sim);
    ndem_probe_row rows[SWEEPS];
    int count = -1;
    ck_assert_int_eq(ndem_sim_probe_step(twin, rows, SWEEPS, &count), NDEM_OK);
    ck_assert_int_eq(count, SWEEPS);
    ck_assert_uint_eq(ndem_sim_state_hash(sim), ndem_sim_state_hash(twin));
    ck_assert_double_eq(rows[SWEEPS - 1].residual_normal, ndem_sim_stats(twin)->residual_normal);
    ck_assert_double_eq(rows[SWEEPS - 1].multiplier_error, 0.0);
    ck_assert_double_eq(rows[SWEEPS - 1].multiplier_error_total, 0.0);
    /* a cold start: every loaded row starts at zero, both measures near 1 */
    ck_assert_double_gt(rows[0].multiplier_error_total, 0.5);
    ck_assert_double_lt(rows[99].multiplier_error_total, rows[9].multiplier_error_total);
    fprintf(stderr, "probe, cold column: eq. 13 after 1, 10, 100 sweeps: %.3f %.3f %.4f\n",
            rows[0].multiplier_error, rows[9].multiplier_error, rows[99].multiplier_error);
    ck_assert_double_gt(rows[0].multiplier_error, 0.5);
    ck_assert_double_lt(rows[99].multiplier_error, rows[9].multiplier_error);
    ck_assert_double_lt(rows[9].multiplier_error, rows[0].multiplier_error);
    ndem_sim_destroy(twin);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* Wang et al. Fig. 7: the warm-started solve starts several times closer to
 * the converged multipliers than the cold one (about 5 times in the paper). */
START_TEST(probe_warm_start_begins_closer)
{
    double first[2];
    for (int warm = 0; warm < 2; warm++) {
        ndem_job *job;
        ndem_sim *sim = settled_column(&job, warm);
        test_step(sim); /* the warm history of a SWEEPS-iteration step */
        ndem_probe_row rows[SWEEPS];
        int count = 0;
        ck_assert_int_eq(ndem_sim_probe_step(sim, rows, SWEEPS, &count), NDEM_OK);
        ck_assert_int_eq(count, SWEEPS);
        first[warm] = rows[0].multiplier_error;
        ndem_sim_destroy(sim);
        ndem_job_destroy(job);
    }
    fprintf(stderr, "probe: eq. 13 after the first sweep: cold %.3f, warm %.3f\n", first[0],
            first[1]);
    ck_assert_double_lt(first[1], 0.5 * first[0]);
}
END_TEST

START_TEST(set_solver_changes_only_the_effort)
{
    ndem_job *job;
    ndem_sim *sim = settled_column(&job, 1);
    ndem_solver_def s = job->scene.solver;
    s.time_step *= 2;
    char err[256] = "";
    ck_assert_int_eq(ndem_sim_set_solver(sim, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "only iterations, impact_iterations, warm_start, warm_start_factor and "
                          "tolerance may change");
    s = job->scene.solver;
    s.iterations = 0;
    ck_assert_int_eq(ndem_sim_set_solver(sim, &s, err, sizeof err), -1);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* Every sweep order solves the same problem: the converged column (500 cold
 * iterations, 5 s) lies within 1% of the Hertz compression (test_physics'
 * bound) whichever colour comes first. */
static double column_compression_error(const char *order)
{
    char path[512];
    ndem_job *job = test_job_file(ndem_test_bench("column-25.json", path, sizeof path));
    job->scene.solver.iterations = 500;
    job->scene.solver.warm_start = 0;
    setenv("NDEM_SWEEP", order, 1);
    ndem_sim *sim = test_sim(job);
    unsetenv("NDEM_SWEEP");
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) test_step(sim);
    ndem_frame f;
    test_frame(sim, &f);
    double top = 0;
    for (long i = 0; i < f.count; i++) top = fmax(top, f.positions[3 * i + 2] + f.radii[i]);
    ndem_frame_free(&f);
    double theory = hertz_column_height(job, 25);
    double c = 25 * 2 * job->scene.generators[0].spheres[3] - theory;
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return fabs(top - theory) / c;
}

START_TEST(sweep_orders_converge_to_hertz)
{
    const char *orders[] = {"forward", "reverse", "symmetric", "walls-first", "walls-last"};
    for (int i = 0; i < 5; i++) {
        double e = column_compression_error(orders[i]);
        fprintf(stderr, "NDEM_SWEEP=%s: column %.4f%% of the Hertz compression off\n", orders[i],
                100 * e);
        ck_assert_double_lt(e, 0.01);
    }
}
END_TEST

START_TEST(study_switches_reject_other_values)
{
    char path[512];
    ndem_job *job = test_job_file(ndem_test_bench("column-25.json", path, sizeof path));
    char err[256] = "";
    setenv("NDEM_SWEEP", "sideways", 1);
    ck_assert_ptr_null(ndem_sim_create(&job->scene, err, sizeof err));
    unsetenv("NDEM_SWEEP");
    ck_assert_str_eq(err, "NDEM_SWEEP=sideways: not a sweep order (forward, reverse, symmetric, "
                          "walls-first or walls-last)");
    setenv("NDEM_WARM_ROWS", "friction", 1);
    ck_assert_ptr_null(ndem_sim_create(&job->scene, err, sizeof err));
    unsetenv("NDEM_WARM_ROWS");
    ck_assert_str_eq(err, "NDEM_WARM_ROWS=friction: not a setting (\"all\", \"normal\", or unset)");
    ndem_job_destroy(job);
}
END_TEST

/* A sphere resting on a 1:0.3 incline (tilted gravity) carries friction and
 * rolling impulses. Warm-starting them (the default) leaves the first
 * sweep little friction error (the factor 0.85 of it); warm-starting the
 * normal only (NDEM_WARM_ROWS=normal) leaves the friction row to start from
 * zero, several times further off. */
static double first_friction_residual(const char *rows_env)
{
    const double th = atan(0.3), g = 9.81;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [%.17g, 0, %.17g], " TEST_MATERIALS
        ", \"contact_materials\": [{\"materials\": [\"ore\", \"steel\"], \"friction\": 0.91, "
        "\"rolling_resistance\": 0.32}], \"geometry\": [{\"type\": \"plane\", \"point\": [0,0,0], "
        "\"normal\": [0,0,1], \"material\": \"steel\"}], \"particles\": [{\"type\": \"list\", "
        "\"material\": \"ore\", \"spheres\": [[0, 0, 0.01, 0.01]]}]}, \"solver\": {\"time_step\": "
        "0.005, \"duration\": 1, \"iterations\": 20}}",
        g * sin(th), -g * cos(th));
    if (rows_env) setenv("NDEM_WARM_ROWS", rows_env, 1);
    ndem_sim *sim = test_sim(job);
    unsetenv("NDEM_WARM_ROWS");
    for (int i = 0; i < 100; i++) test_step(sim);
    ndem_probe_row rows[20];
    int count = 0;
    ck_assert_int_eq(ndem_sim_probe_step(sim, rows, 20, &count), NDEM_OK);
    ck_assert_int_eq(count, 20);
    ck_assert_double_lt(ndem_sim_stats(sim)->kinetic_energy, 1e-10); /* at rest */
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return rows[0].residual_friction;
}

START_TEST(warm_rows_normal_leaves_friction_cold)
{
    double all = first_friction_residual(NULL), normal = first_friction_residual("normal");
    fprintf(stderr, "incline: first-sweep friction residual, warm all %.3g, normal only %.3g\n",
            all, normal);
    ck_assert_double_gt(normal, 3 * all);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("probe");
    TCase *tc = tcase_create("probe");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, probe_records_every_sweep_of_the_ordinary_step);
    tcase_add_test(tc, probe_warm_start_begins_closer);
    tcase_add_test(tc, set_solver_changes_only_the_effort);
    tcase_add_test(tc, sweep_orders_converge_to_hertz);
    tcase_add_test(tc, study_switches_reject_other_values);
    tcase_add_test(tc, warm_rows_normal_leaves_friction_cold);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
