/* test_solver.c - the serial overflow path of the solver as a reference
 * (issue 13, "make room in core/"): NDEM_OVERFLOW=all puts every row into
 * the overflow set, solved by one thread in pair order; the coloured
 * parallel solve must agree with it physically, and a body with rows of
 * more colours than NDEM_COLORS must still be solved (its extra rows go to
 * the overflow set). NDEM_SWEEP=walls-first and walls-last colour the rows on
 * static geometry apart from the particle rows, before or after them, with
 * the same bits for any thread count. NDEM_PROJECTION=box clamps each
 * friction row alone: on a slope at 45 degrees to the rows' tangents it
 * brakes with sqrt(2) mu N where the disc brakes with mu N. */
#include "scene.h"
#include "sim.h"
#include "testutil.h"

#include <math.h>

/* Runs the column of bench/column-25.json to its end with converged solves
 * (500 cold iterations) and returns its top; *sets gets the colour sets of
 * the last step and *overflow_first the first packet of the overflow set. */
static double column_top(int overflow_all, int *sets, long *overflow_first)
{
    char path[512];
    ndem_job *job = test_job_file(ndem_test_bench("column-25.json", path, sizeof path));
    job->scene.solver.iterations = 500;
    job->scene.solver.warm_start = 0;
    if (overflow_all) setenv("NDEM_OVERFLOW", "all", 1);
    ndem_sim *sim = test_sim(job);
    unsetenv("NDEM_OVERFLOW");
    long n = ndem_sim_total_steps(sim);
    for (long i = 0; i < n; i++) test_step(sim);
    ndem_frame f;
    test_frame(sim, &f);
    double top = 0;
    for (long i = 0; i < f.count; i++) top = fmax(top, f.positions[3 * i + 2] + f.radii[i]);
    ndem_frame_free(&f);
    *sets = sim->contacts.color_count;
    *overflow_first = sim->contacts.color_count == NDEM_COLOR_SETS
                          ? sim->contacts.color_start[NDEM_COLOR_OVERFLOW]
                          : -1;
    ck_assert_double_lt(ndem_sim_stats(sim)->kinetic_energy, 1e-12); /* at rest */
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return top;
}

/* The column solved with every row serial and with colours settles to the
 * same height. Both are converged solves of the same complementarity
 * problem; each lies within 1% of the Hertz compression of the theory
 * (test_physics' bound for 500 iterations), so they agree within 2% of it
 * whatever the sweep order. */
START_TEST(column_serial_agrees_with_coloured)
{
    char path[512];
    ndem_job *job = test_job_file(ndem_test_bench("column-25.json", path, sizeof path));
    double theory = hertz_column_height(job, 25);
    double stacked = 25 * 2 * job->scene.generators[0].spheres[3], c_theory = stacked - theory;
    ndem_job_destroy(job);
    int sets_c, sets_s;
    long first_c, first_s;
    double top_c = column_top(0, &sets_c, &first_c);
    double top_s = column_top(1, &sets_s, &first_s);
    fprintf(stderr,
            "column: Hertz compression %.6f mm; coloured %.6f mm (%d colours), serial %.6f mm\n",
            1e3 * c_theory, 1e3 * (stacked - top_c), sets_c, 1e3 * (stacked - top_s));
    /* a chain on a plane needs 2 colours; nothing overflows */
    ck_assert_int_le(sets_c, 3);
    ck_assert_int_eq(first_c, -1);
    /* forced: the colours are empty, every row is in the overflow set */
    ck_assert_int_eq(sets_s, NDEM_COLOR_SETS);
    ck_assert_int_eq(first_s, 0);
    ck_assert_double_lt(fabs(top_c - theory) / c_theory, 0.01);
    ck_assert_double_lt(fabs(top_s - theory) / c_theory, 0.01);
    ck_assert_double_lt(fabs(top_s - top_c) / c_theory, 0.02);
}
END_TEST

/* A big sphere (R = 5 cm) on a plane carries N small ones (r = 4 mm) on its
 * upper cap, each touching it at the start: the big sphere has N rows, more
 * than NDEM_COLORS, so N - 64 of them can only be solved in the overflow
 * set. Hertz puts a small sphere ~6 um into the big one (E = 1e7 Pa); a row
 * left unsolved would let it fall g t^2 / 2 = 12 mm in 0.05 s. */
#define CAP_N 100
static void cap_scene(int overflow_all)
{
    const double R = 0.05, r = 0.004, golden = M_PI * (3.0 - sqrt(5.0));
    static char spheres[(CAP_N + 1) * 128];
    size_t len = 0;
    len += (size_t)snprintf(spheres + len, sizeof spheres - len, "[0, 0, %.17g, %.17g]", R, R);
    for (int i = 0; i < CAP_N; i++) {
        /* Fibonacci points on the cap of polar angle < 60 degrees: about
         * 9.6 mm apart, more than a small diameter */
        double z = 1.0 - 0.5 * (i + 0.5) / CAP_N, s = sqrt(1.0 - z * z), phi = golden * i;
        double d = R + r;
        len +=
            (size_t)snprintf(spheres + len, sizeof spheres - len, ", [%.17g, %.17g, %.17g, %.17g]",
                             d * s * cos(phi), d * s * sin(phi), R + d * z, r);
    }
    ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS ","
                             " \"contact_materials\": [{\"materials\": [\"ore\", \"ore\"],"
                             " \"friction\": 0.5, \"restitution\": 0.2},"
                             " {\"materials\": [\"ore\", \"steel\"], \"friction\": 0.5,"
                             " \"restitution\": 0.2}],"
                             " \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0],"
                             " \"normal\": [0, 0, 1], \"material\": \"steel\"}],"
                             " \"particles\": [{\"type\": \"list\", \"material\": \"ore\","
                             " \"spheres\": [%s]}]},"
                             " \"solver\": {\"time_step\": 1e-4, \"duration\": 0.05}}",
                             spheres);
    if (overflow_all) setenv("NDEM_OVERFLOW", "all", 1);
    setenv("NDEM_PARALLEL_MIN", "16", 1); /* a test-size scene, threaded loops */
    ndem_sim *sim = test_sim(job);
    unsetenv("NDEM_OVERFLOW");
    unsetenv("NDEM_PARALLEL_MIN");
    long n = ndem_sim_total_steps(sim), overflowed = 0;
    for (long i = 0; i < n; i++) {
        test_step(sim);
        const ndem_contacts *c = &sim->contacts;
        if (c->color_count == NDEM_COLOR_SETS)
            overflowed = c->color_start[NDEM_COLOR_SETS] - c->color_start[NDEM_COLOR_OVERFLOW];
    }
    ndem_frame f;
    test_frame(sim, &f);
    double worst = 0; /* deepest small sphere in the big one */
    for (long i = 1; i < f.count; i++) {
        const double *x = &f.positions[3 * i], *c = &f.positions[0];
        double d = sqrt((x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) +
                        (x[2] - c[2]) * (x[2] - c[2]));
        worst = fmax(worst, R + r - d);
    }
    fprintf(stderr, "cap (%s): %ld rows in the overflow set, deepest overlap %.3g m\n",
            overflow_all ? "all serial" : "coloured", overflowed, worst);
    /* at the end, rows past 64 colours are still in the overflow set (the
     * small spheres still rest on the big one) and were solved */
    ck_assert_int_ge(overflowed, overflow_all ? CAP_N : CAP_N - NDEM_COLORS);
    ck_assert_double_lt(worst, 0.05 * r);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(more_rows_than_colours_are_solved)
{
    cap_scene(0);
    cap_scene(1);
}
END_TEST

/* An environment switch set to a value it does not know makes creation fail
 * with `want` in the reason. */
static void check_switch_rejects(const char *name, const char *value, const char *want)
{
    char path[512], err[256] = "";
    ndem_job *job = test_job_file(ndem_test_bench("column-25.json", path, sizeof path));
    setenv(name, value, 1);
    ndem_sim *sim = ndem_sim_create(&job->scene, err, sizeof err);
    unsetenv(name);
    ck_assert_ptr_null(sim);
    ck_assert_msg(strstr(err, want) != NULL, "%s", err);
    ndem_job_destroy(job);
}

START_TEST(overflow_switch_rejects_other_values)
{
    check_switch_rejects("NDEM_OVERFLOW", "some", "NDEM_OVERFLOW=some");
}
END_TEST

/* A box (floor and four walls, 8 cm wide) holding a 4 x 4 layer of spheres
 * (r = 1 cm, 0.5% overlaps) with a 3 x 3 layer dropped 5 cm above its
 * hollows (1 m/s at landing, 0.7 m/s along the normals: above v_imp =
 * 0.02 d / h = 0.4 m/s, so the impact stage runs): corner spheres touch
 * three walls, so the wall rows need three colours. */
static ndem_sim *corner_sim(const char *order, int threads)
{
    const double r = 0.01, s = 1.99 * r, x0 = 0.995 * r;
    static char spheres[25 * 96];
    size_t len = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            len += (size_t)snprintf(spheres + len, sizeof spheres - len,
                                    "%s[%.17g, %.17g, %.17g, %.17g]", len ? ", " : "", x0 + i * s,
                                    x0 + j * s, x0, r);
    double dz = sqrt(4 * r * r - s * s / 2) + 0.05, w = 2 * x0 + 3 * s;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            len += (size_t)snprintf(spheres + len, sizeof spheres - len,
                                    ", [%.17g, %.17g, %.17g, %.17g]", x0 + (i + 0.5) * s,
                                    x0 + (j + 0.5) * s, x0 + dz, r);
    ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS ","
                             " \"contact_materials\": [{\"materials\": [\"ore\", \"ore\"],"
                             " \"friction\": 0.5, \"restitution\": 0.2},"
                             " {\"materials\": [\"ore\", \"steel\"], \"friction\": 0.5,"
                             " \"restitution\": 0.2}],"
                             " \"geometry\": ["
                             "{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1],"
                             " \"material\": \"steel\"},"
                             " {\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [1, 0, 0],"
                             " \"material\": \"steel\"},"
                             " {\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 1, 0],"
                             " \"material\": \"steel\"},"
                             " {\"type\": \"plane\", \"point\": [%.17g, %.17g, 0],"
                             " \"normal\": [-1, 0, 0], \"material\": \"steel\"},"
                             " {\"type\": \"plane\", \"point\": [%.17g, %.17g, 0],"
                             " \"normal\": [0, -1, 0], \"material\": \"steel\"}],"
                             " \"particles\": [{\"type\": \"list\", \"material\": \"ore\","
                             " \"spheres\": [%s]}]},"
                             " \"solver\": {\"time_step\": 1e-3, \"duration\": 0.5,"
                             " \"iterations\": 30, \"threads\": %d}}",
                             w, w, w, w, spheres, threads);
    if (order) setenv("NDEM_SWEEP", order, 1);
    setenv("NDEM_PARALLEL_MIN", "16", 1); /* a test-size scene, threaded loops */
    ndem_sim *sim = test_sim(job);
    unsetenv("NDEM_SWEEP");
    unsetenv("NDEM_PARALLEL_MIN");
    ndem_job_destroy(job);
    return sim;
}

/* The colours of the wall rows and of the particle rows this step:
 * lowest and highest of each (-1 when there is none). */
static void row_colours(const ndem_contacts *c, int wall[2], int part[2])
{
    wall[0] = part[0] = NDEM_COLORS, wall[1] = part[1] = -1;
    for (int q = 0; q < c->color_count && q < NDEM_COLORS; q++)
        for (long p = c->color_start[q]; p < c->color_start[q + 1]; p++)
            for (int l = 0; l < c->fill[p]; l++) {
                int *m = c->cold[p * NDEM_LANES + l].geo ? wall : part;
                m[0] = q < m[0] ? q : m[0], m[1] = q > m[1] ? q : m[1];
            }
}

/* walls-first: every wall row is in a colour below every particle row's
 * (a forward sweep solves them first); walls-last: above. Three wall colours
 * (the corner sphere), then the particle rows' own. */
START_TEST(walls_orders_colour_wall_rows_apart)
{
    const char *orders[] = {"walls-first", "walls-last"};
    for (int o = 0; o < 2; o++) {
        ndem_sim *sim = corner_sim(orders[o], 1);
        int wall_colours = 0;
        for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
            test_step(sim);
            int wall[2], part[2];
            row_colours(&sim->contacts, wall, part);
            ck_assert_int_ge(wall[1], 0);
            ck_assert_int_ge(part[1], 0);
            if (o == 0) ck_assert_int_lt(wall[1], part[0]);
            else ck_assert_int_lt(part[1], wall[0]);
            wall_colours = wall[1] - wall[0] + 1;
        }
        fprintf(stderr, "corner, NDEM_SWEEP=%s: %d wall colours\n", orders[o], wall_colours);
        ck_assert_int_eq(wall_colours, 3);
        /* landed and resting: under 1e-3 of the top layer's fall, 9 m g 5 cm */
        double m = 2500 * 4 / 3.0 * M_PI * 1e-6, fall = 9 * m * 9.81 * 0.05;
        fprintf(stderr, "  kinetic energy %.3g J of %.3g J\n", ndem_sim_stats(sim)->kinetic_energy,
                fall);
        ck_assert_double_lt(ndem_sim_stats(sim)->kinetic_energy, 1e-3 * fall);
        ndem_sim_destroy(sim);
    }
}
END_TEST

/* The two runs' frames hold the same bits (positions and velocities); both freed. */
static void same_frames_then_free(ndem_frame f[2])
{
    ck_assert_int_eq(f[0].count, f[1].count);
    ck_assert_mem_eq(f[0].positions, f[1].positions, 3 * sizeof(double) * (size_t)f[0].count);
    ck_assert_mem_eq(f[0].velocities, f[1].velocities, 3 * sizeof(double) * (size_t)f[0].count);
    ndem_frame_free(&f[0]);
    ndem_frame_free(&f[1]);
}

/* The colouring's passes run serially in pair order: one thread and two
 * give the same bits (positions and velocities), impact stage included. */
START_TEST(walls_orders_same_bits_any_thread_count)
{
    const char *orders[] = {"walls-first", "walls-last"};
    for (int o = 0; o < 2; o++) {
        ndem_frame f[2];
        long impacts = 0;
        for (int t = 0; t < 2; t++) {
            ndem_sim *sim = corner_sim(orders[o], t + 1);
            for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
                test_step(sim);
                impacts += ndem_sim_stats(sim)->impacts;
            }
            test_frame(sim, &f[t]);
            ndem_sim_destroy(sim);
        }
        ck_assert_int_gt(impacts, 0);
        same_frames_then_free(f);
    }
}
END_TEST

/* A sphere sliding down a 45 degree slope, the slope's fall line at 45
 * degrees to the contact's tangents t1 = x, t2 = y (ndem_row_tangent of
 * n = z): a tilted gravity over a horizontal plane, friction 0.1, no
 * rolling resistance. It slips all along (tan 45 = 1 > 3.5 sqrt(2) mu), so
 * the friction saturates: the disc's force is mu m g cos(theta) along the
 * fall line; the box clamps both rows, sqrt(2) mu m g cos(theta). Returns
 * the friction force over m g cos(theta), from the acceleration along the
 * fall line between t = 0.1 s and 0.3 s (after the contact has settled),
 * and *cross gets the speed across it at 0.3 s. */
static double slope_friction(const char *projection, double *cross)
{
    const double G = 9.81, th = M_PI / 4, r = 0.01, mu = 0.1;
    const double g[3] = {G * sin(th) / sqrt(2), G * sin(th) / sqrt(2), -G * cos(th)};
    double m = 2500 * 4.0 / 3.0 * M_PI * r * r * r;
    double e_w = 2.0 * 1e7 * 2e11 / (1e7 + 2e11), k = e_w * sqrt(2.0 * 2.0 * r) / (3.0 * 0.91);
    double delta = pow(m * G * cos(th) / k, 2.0 / 3.0); /* Hertz rest overlap */
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [%.17g, %.17g, %.17g], " TEST_MATERIALS
        ", \"contact_materials\": [{\"materials\": [\"ore\", \"steel\"], \"friction\": %g,"
        " \"restitution\": 0.2}],"
        " \"geometry\": [{\"type\": \"plane\", \"point\": [0,0,0], \"normal\": [0,0,1],"
        " \"material\": \"steel\"}],"
        " \"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [[0, 0, %.17g,"
        " %g]]}]}, \"solver\": {\"time_step\": 1e-3, \"duration\": 0.3, \"iterations\": 30}}",
        g[0], g[1], g[2], mu, r - delta, r);
    if (projection) setenv("NDEM_PROJECTION", projection, 1);
    ndem_sim *sim = test_sim(job);
    unsetenv("NDEM_PROJECTION");
    double v[2] = {0, 0}, t[2] = {0, 0};
    ndem_frame f;
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        if (i + 1 != 100 && i + 1 != ndem_sim_total_steps(sim)) continue;
        test_frame(sim, &f);
        int w = i + 1 != 100;
        v[w] = (f.velocities[0] + f.velocities[1]) / sqrt(2); /* along the fall line */
        t[w] = f.time;
        *cross = (f.velocities[0] - f.velocities[1]) / sqrt(2);
        ndem_frame_free(&f);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    double a = (v[1] - v[0]) / (t[1] - t[0]);
    return (G * sin(th) - a) / (G * cos(th)); /* friction / (m g cos theta) */
}

START_TEST(projection_box_brakes_sqrt2_harder_on_the_diagonal)
{
    const double mu = 0.1;
    double cross_d = 1, cross_b = 1;
    double disc = slope_friction(NULL, &cross_d), box = slope_friction("box", &cross_b);
    double prev = slope_friction("disc-previous", &cross_d);
    fprintf(stderr,
            "slope at 45 degrees to the tangents: friction / (m g cos) disc %.6f, box %.6f"
            " (theory %.6f, %.6f), disc-previous %.6f\n",
            disc, box, mu, sqrt(2) * mu, prev);
    ck_assert_double_lt(fabs(disc - mu) / mu, 1e-3);
    ck_assert_double_lt(fabs(box - sqrt(2) * mu) / (sqrt(2) * mu), 1e-3);
    ck_assert_double_lt(fabs(prev - mu) / mu, 1e-3); /* at rest on the normal: the same bound */
    /* both stay on the fall line */
    ck_assert_double_lt(fabs(cross_d), 1e-6);
    ck_assert_double_lt(fabs(cross_b), 1e-6);
}
END_TEST

START_TEST(projection_switch_rejects_other_values)
{
    check_switch_rejects("NDEM_PROJECTION", "cone", "NDEM_PROJECTION=cone: not a projection");
}
END_TEST

/* The box and the previous normal's disc: one thread and two give the same
 * bits in the corner box (impact stage included). */
START_TEST(projections_same_bits_any_thread_count)
{
    const char *projections[] = {"box", "disc-previous"};
    for (int o = 0; o < 2; o++) {
        ndem_frame f[2];
        for (int t = 0; t < 2; t++) {
            setenv("NDEM_PROJECTION", projections[o], 1);
            ndem_sim *sim = corner_sim(NULL, t + 1);
            unsetenv("NDEM_PROJECTION");
            for (long i = 0; i < ndem_sim_total_steps(sim); i++) test_step(sim);
            test_frame(sim, &f[t]);
            ndem_sim_destroy(sim);
        }
        same_frames_then_free(f);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("solver");
    TCase *tc = tcase_create("overflow");
    tcase_add_test(tc, column_serial_agrees_with_coloured);
    tcase_add_test(tc, more_rows_than_colours_are_solved);
    tcase_add_test(tc, overflow_switch_rejects_other_values);
    tcase_add_test(tc, walls_orders_colour_wall_rows_apart);
    tcase_add_test(tc, walls_orders_same_bits_any_thread_count);
    tcase_add_test(tc, projection_box_brakes_sqrt2_harder_on_the_diagonal);
    tcase_add_test(tc, projection_switch_rejects_other_values);
    tcase_add_test(tc, projections_same_bits_any_thread_count);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
