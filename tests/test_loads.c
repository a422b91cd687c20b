/* test_loads.c - the force and torque the particles exert on a named
 * geometry (issue 13): a resting bed weighs on its floor, a sphere held by
 * friction on an incline loads it with m g cos(theta) and m g sin(theta),
 * a sphere at lever arm d turns its plane with m g d, a bouncing sphere's
 * impulses on the plane balance its change of momentum (impact stage
 * included), and every thread count gives the same bits. The expected
 * numbers come from statics and Newton's laws, never from an earlier run.
 * Also the named geometry's series columns and the "name" field's checks. */
#include "scene.h"
#include "series.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81;

#define NDEM_SOLVER "\"time_step\": 0.001"
#define DEM_SOLVER "\"method\": \"dem\", \"time_step\": \"auto\""

/* Total mass of the particles (kg), from the current frame. */
static double particle_mass(const ndem_sim *sim, double density)
{
    ndem_frame f;
    test_frame(sim, &f);
    double m = 0;
    for (long i = 0; i < f.count; i++) m += density * 4.0 / 3.0 * M_PI * pow(f.radii[i], 3);
    ndem_frame_free(&f);
    return m;
}

static void run_for(ndem_sim *sim, double seconds, double h)
{
    long n = (long)llround(seconds / h);
    for (long i = 0; i < n; i++) test_step(sim);
}

/* A 4 x 4 x 2 lattice bed (ore, 2500 kg/m^3) on the plane z = 0 named
 * "floor", or inside the box [-0.03, 0.03]^2 x [0, 0.2] named "bin". */
static ndem_job *bed_job(int in_box, const char *solver, int threads)
{
    const char *geo = in_box ? "{\"type\": \"box\", \"name\": \"bin\", \"min\": [-0.03, -0.03, 0], "
                               "\"max\": [0.03, 0.03, 0.2], \"inside\": true, \"material\": "
                               "\"steel\"}"
                             : "{\"type\": \"plane\", \"name\": \"floor\", \"point\": [0, 0, 0], "
                               "\"normal\": [0, 0, 1], \"material\": \"steel\"}";
    return test_job("{\"scene\": {" TEST_MATERIALS ", \"geometry\": [%s], \"particles\": "
                    "[{\"type\": \"lattice\", \"min\": [-0.018, -0.018, 0.0052], \"max\": "
                    "[0.018, 0.018, 0.016], \"spacing\": 0.0105, \"radius\": 0.005, "
                    "\"material\": \"ore\"}]}, \"solver\": {%s, \"duration\": 1, "
                    "\"threads\": %d}}",
                    geo, solver, threads);
}

/* The bed's weight on its floor, within 0.5%: in a resting state the
 * contacts carry exactly the weight (momentum balance over a step). */
static void check_bed_weight(int in_box, const char *solver, double settle)
{
    ndem_job *job = bed_job(in_box, solver, 0);
    ndem_sim *sim = test_sim(job);
    double h = job->scene.solver.time_step;
    run_for(sim, settle, h);
    double w = particle_mass(sim, 2500) * G, f[3], t[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
    fprintf(stderr, "bed %s (%s): %ld particles, weight %.6g N, F = (%.3g, %.3g, %.6g) N\n",
            in_box ? "in a box" : "on a plane", solver, ndem_sim_particle_count(sim), w, f[0], f[1],
            f[2]);
    ck_assert_int_eq(ndem_sim_particle_count(sim), 32);
    ck_assert_msg(fabs(-f[2] - w) < 0.005 * w, "Fz %.6g N, weight %.6g N", f[2], w);
    ck_assert_double_lt(fabs(f[0]), 0.005 * w);
    ck_assert_double_lt(fabs(f[1]), 0.005 * w);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(bed_weighs_on_its_floor_ndem) { check_bed_weight(0, NDEM_SOLVER, 0.5); }
END_TEST

START_TEST(bed_weighs_on_its_box_ndem) { check_bed_weight(1, NDEM_SOLVER, 0.5); }
END_TEST

START_TEST(bed_weighs_on_its_floor_dem) { check_bed_weight(0, DEM_SOLVER, 0.3); }
END_TEST

START_TEST(bed_weighs_on_its_box_dem) { check_bed_weight(1, DEM_SOLVER, 0.3); }
END_TEST

/* Validation 3 (issue 13): the same bed at rest in an open mesh tray named
 * "tray", a floor and four walls as one inline mesh (8 corners, 10
 * triangles, open at the top; the floor is [-0.03, 0.03]^2 at z = 0, the
 * walls 0.05 high). After settling, the tray's vertical force is minus the
 * bed's weight within 0.5%, its horizontal force within 0.5% of the weight
 * of zero (the walls' pushes cancel). */
START_TEST(bed_weighs_in_its_mesh_tray_ndem)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"mesh\", \"name\": "
        "\"tray\", \"material\": \"steel\", \"vertices\": [[-0.03, -0.03, 0], [0.03, -0.03, 0], "
        "[0.03, 0.03, 0], [-0.03, 0.03, 0], [-0.03, -0.03, 0.05], [0.03, -0.03, 0.05], "
        "[0.03, 0.03, 0.05], [-0.03, 0.03, 0.05]], \"triangles\": [[0, 2, 1], [0, 3, 2], "
        "[0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], "
        "[3, 4, 7]]}], \"particles\": [{\"type\": \"lattice\", \"min\": [-0.018, -0.018, "
        "0.0052], \"max\": [0.018, 0.018, 0.016], \"spacing\": 0.0105, \"radius\": 0.005, "
        "\"material\": \"ore\"}]}, \"solver\": {" NDEM_SOLVER ", \"duration\": 1}}");
    ck_assert_int_eq(job->scene.geometry[0].type, NDEM_GEOMETRY_MESH);
    ck_assert_str_eq(job->scene.geometry[0].name, "tray");
    ndem_sim *sim = test_sim(job);
    run_for(sim, 0.5, job->scene.solver.time_step);
    double w = particle_mass(sim, 2500) * G, f[3], t[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
    fprintf(stderr, "bed in a mesh tray: %ld particles, weight %.6g N, F = (%.3g, %.3g, %.6g) N\n",
            ndem_sim_particle_count(sim), w, f[0], f[1], f[2]);
    ck_assert_int_eq(ndem_sim_particle_count(sim), 32);
    ck_assert_msg(fabs(-f[2] - w) < 0.005 * w, "Fz %.6g N, weight %.6g N", f[2], w);
    ck_assert_double_lt(fabs(f[0]), 0.005 * w);
    ck_assert_double_lt(fabs(f[1]), 0.005 * w);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* One sphere (radius r, ore) resting on the plane through the origin with
 * normal (sin(theta), 0, cos(theta)), touching it at `at` along the slope
 * (x' direction); friction 0.6 > tan(theta) and locked rotation hold it
 * (a free sphere would roll). */
static ndem_job *incline_job(double theta, double at, const char *solver)
{
    const double r = 0.01;
    double n[3] = {sin(theta), 0, cos(theta)}, s[3] = {cos(theta), 0, -sin(theta)};
    double x[3];
    for (int k = 0; k < 3; k++) x[k] = at * s[k] + 0.99999 * r * n[k];
    return test_job("{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": "
                    "[\"ore\", \"steel\"], \"friction\": 0.6}], \"geometry\": [{\"type\": "
                    "\"plane\", \"name\": \"ramp\", \"point\": [0, 0, 0], \"normal\": [%.17g, 0, "
                    "%.17g], \"material\": \"steel\"}], \"particles\": [{\"type\": \"list\", "
                    "\"material\": \"ore\", \"fixed_rotation\": true, \"spheres\": [[%.17g, "
                    "%.17g, %.17g, %g]]}]}, \"solver\": {%s, \"duration\": 1}}",
                    n[0], n[2], x[0], x[1], x[2], r, solver);
}

static void check_incline(const char *solver, double settle)
{
    const double theta = 20 * M_PI / 180;
    ndem_job *job = incline_job(theta, 0.0, solver);
    ndem_sim *sim = test_sim(job);
    const double h = job->scene.solver.time_step;
    run_for(sim, settle, h);
    /* smooth DEM's undamped tangential spring rings about the static
     * value: the mean over 0.1 s (many of its periods) */
    double mg = particle_mass(sim, 2500) * G, f[3] = {0, 0, 0}, fs[3], t[3];
    long n = (long)llround(0.1 / h);
    for (long i = 0; i < n; i++) {
        test_step(sim);
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, fs, t), 0);
        for (int k = 0; k < 3; k++) f[k] += fs[k] / (double)n;
    }
    /* the load along the plane's normal and along its slope (downhill) */
    double fn = -(f[0] * sin(theta) + f[2] * cos(theta));
    double ft = f[0] * cos(theta) - f[2] * sin(theta);
    fprintf(stderr, "incline (%s): normal %.6g N (m g cos %.6g), tangential %.6g N (%.6g)\n",
            solver, fn, mg * cos(theta), ft, mg * sin(theta));
    ck_assert_double_lt(fabs(fn - mg * cos(theta)), 0.01 * mg * cos(theta));
    ck_assert_double_lt(fabs(ft - mg * sin(theta)), 0.01 * mg * sin(theta));
    ck_assert_double_lt(fabs(f[1]), 1e-6 * mg);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(incline_normal_and_tangential_ndem) { check_incline(NDEM_SOLVER, 0.3); }
END_TEST

START_TEST(incline_normal_and_tangential_dem) { check_incline(DEM_SOLVER, 0.2); }
END_TEST

/* A sphere at rest on the plane z = 0 at (d, 0): its weight on the plane
 * turns it about the plane's point (the origin) with m g d about y. */
START_TEST(torque_is_weight_times_lever_arm)
{
    const double d = 0.3;
    ndem_job *job = incline_job(0.0, d, NDEM_SOLVER);
    ndem_sim *sim = test_sim(job);
    run_for(sim, 0.3, job->scene.solver.time_step);
    double mg = particle_mass(sim, 2500) * G, f[3], t[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
    fprintf(stderr, "lever: torque (%.3g, %.6g, %.3g) N m, m g d = %.6g N m\n", t[0], t[1], t[2],
            mg * d);
    ck_assert_double_lt(fabs(t[1] - mg * d), 0.01 * mg * d);
    ck_assert_double_lt(fabs(t[0]), 1e-6 * mg * d);
    ck_assert_double_lt(fabs(t[2]), 1e-6 * mg * d);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The same scene in a named box: the torque about the box's centre. */
START_TEST(box_torque_about_its_centre)
{
    const double r = 0.01, x = 0.07;
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", \"name\": \"bin\", "
        "\"min\": [-0.1, -0.1, 0], \"max\": [0.1, 0.1, 0.3], \"inside\": true, \"material\": "
        "\"steel\"}], \"particles\": [{\"type\": \"list\", \"material\": \"ore\", "
        "\"spheres\": [[%g, 0, %.17g, %g]]}]}, \"solver\": {" NDEM_SOLVER ", \"duration\": 1}}",
        x, 0.99999 * r, r);
    ndem_sim *sim = test_sim(job);
    run_for(sim, 0.3, job->scene.solver.time_step);
    double mg = particle_mass(sim, 2500) * G, f[3], t[3], c[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
    ndem_geometry_reference_point(ndem_sim_geometry(sim, 0), c);
    ck_assert_double_eq_tol(c[2], 0.15, 1e-15);
    /* r x F with r = (x, 0, -0.15) from the centre, F = (0, 0, -m g) */
    ck_assert_double_lt(fabs(t[1] - mg * x), 0.01 * mg * x);
    ck_assert_double_lt(fabs(t[0]), 1e-6 * mg * x);
    ck_assert_double_lt(fabs(f[2] + mg), 0.01 * mg);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A sphere dropped onto the named plane bounces (restitution 0.5): over
 * the run, the impulses on the plane are minus the sphere's change of
 * momentum plus its weight's impulse, sum F h = -(m dv - m g T). The
 * landing is resolved by the impact stage, so this fails if its impulses
 * are left out of the step's force. */
START_TEST(impulses_balance_the_bounce)
{
    ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": "
                             "[{\"materials\": [\"ore\", \"steel\"], \"restitution\": 0.5}], "
                             "\"geometry\": [{\"type\": \"plane\", \"name\": \"floor\", \"point\": "
                             "[0, 0, 0], \"normal\": [0, 0, 1], \"material\": \"steel\"}], "
                             "\"particles\": [{\"type\": \"list\", \"material\": \"ore\", "
                             "\"spheres\": [[0, 0, 0.05, 0.01]], \"velocities\": [[0, 0, -1]]}]}, "
                             "\"solver\": {" NDEM_SOLVER ", \"duration\": 1}}");
    ndem_sim *sim = test_sim(job);
    const double h = job->scene.solver.time_step;
    const long steps = 60; /* lands at about 37 ms, then flies up */
    double m = particle_mass(sim, 2500), J = 0, f[3], t[3];
    long impacts = 0;
    for (long i = 0; i < steps; i++) {
        test_step(sim);
        impacts += ndem_sim_stats(sim)->impacts;
        ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
        J += f[2] * h;
    }
    ndem_frame fr;
    test_frame(sim, &fr);
    double dv = fr.velocities[2] - -1.0, T = (double)steps * h;
    ndem_frame_free(&fr);
    double want = -(m * dv + m * G * T);
    fprintf(stderr, "bounce: %ld impacts, v_end %.4g m/s, impulse on the plane %.6g N s (%.6g)\n",
            impacts, dv - 1.0, J, want);
    ck_assert_int_gt(impacts, 0);
    ck_assert_double_gt(dv, 1.0); /* it bounced: moving up at the end */
    ck_assert_double_lt(fabs(J - want), 1e-3 * fabs(want));
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* Loads of every step with 1 and with 2 threads, every loop threaded
 * (NDEM_PARALLEL_MIN=1): the same bits. */
static void check_threads(const char *solver)
{
    setenv("NDEM_PARALLEL_MIN", "1", 1);
    ndem_job *j1 = bed_job(1, solver, 1), *j2 = bed_job(1, solver, 2);
    ndem_sim *s1 = test_sim(j1), *s2 = test_sim(j2);
    unsetenv("NDEM_PARALLEL_MIN");
    int nonzero = 0;
    long steps = (long)llround(0.02 / j1->scene.solver.time_step); /* the bed lands */
    for (long i = 0; i < steps; i++) {
        test_step(s1);
        test_step(s2);
        double f1[3], t1[3], f2[3], t2[3];
        ck_assert_int_eq(ndem_sim_geometry_load(s1, 0, f1, t1), 0);
        ck_assert_int_eq(ndem_sim_geometry_load(s2, 0, f2, t2), 0);
        ck_assert_msg(!memcmp(f1, f2, sizeof f1) && !memcmp(t1, t2, sizeof t1),
                      "step %ld: Fz %.17g vs %.17g", i + 1, f1[2], f2[2]);
        nonzero |= f1[2] != 0;
    }
    ck_assert(nonzero);
    ndem_sim_destroy(s1);
    ndem_sim_destroy(s2);
    ndem_job_destroy(j1);
    ndem_job_destroy(j2);
}

START_TEST(loads_equal_on_any_thread_count_ndem) { check_threads(NDEM_SOLVER); }
END_TEST

START_TEST(loads_equal_on_any_thread_count_dem) { check_threads(DEM_SOLVER); }
END_TEST

START_TEST(load_of_an_unknown_geometry_is_refused)
{
    ndem_job *job = bed_job(0, NDEM_SOLVER, 1);
    ndem_sim *sim = test_sim(job);
    double f[3] = {1, 1, 1}, t[3] = {1, 1, 1};
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0); /* zero before a step */
    ck_assert(f[0] == 0 && f[1] == 0 && f[2] == 0 && t[0] == 0 && t[1] == 0 && t[2] == 0);
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 1, f, t), -1);
    ck_assert_int_eq(ndem_sim_geometry_load(sim, -1, f, t), -1);
    ck_assert_ptr_null(ndem_sim_geometry(sim, 1));
    ck_assert_int_eq(ndem_sim_geometry_count(sim), 1);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- series columns ---- */

/* The named geometry's columns: six for a still one, nine for a moving
 * one, in geometry order before the CRC; the unnamed one has none. */
START_TEST(series_columns_of_named_geometry)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"plane\", \"name\": "
        "\"floor\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1], \"material\": \"steel\"}, "
        "{\"type\": \"plane\", \"point\": [0, 0, 1], \"normal\": [0, 0, -1], \"material\": "
        "\"steel\"}, {\"type\": \"box\", \"name\": \"lid-2\", \"min\": [-1, -1, 0.5], \"max\": "
        "[1, 1, 0.6], \"velocity\": [0, 0, 0.5], \"material\": \"steel\"}], \"particles\": "
        "[{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [[0, 0, 0.00999, 0.01]]}]}, "
        "\"solver\": {" NDEM_SOLVER ", \"duration\": 1}}");
    ndem_series_cols cols;
    ck_assert_int_eq(ndem_series_cols_init(&cols, &job->scene), 0);
    ck_assert_int_eq(cols.count, 2);
    char *header = ndem_series_header_of(&cols);
    ck_assert_ptr_nonnull(header);
    const char *want = "wall_seconds,floor_fx,floor_fy,floor_fz,floor_tx,floor_ty,floor_tz,"
                       "lid-2_fx,lid-2_fy,lid-2_fz,lid-2_tx,lid-2_ty,lid-2_tz,lid-2_x,lid-2_y,"
                       "lid-2_z,crc32c\n";
    ck_assert_msg(strstr(header, want) != NULL, "header: %s", header);
    ck_assert_int_eq(strncmp(header, ndem_series_header, 5), 0);
    ck_assert(ndem_series_has_crc(header, strlen(header)));

    ndem_sim *sim = test_sim(job);
    for (int i = 0; i < 10; i++) test_step(sim);
    ndem_series_cols_sample(&cols, sim);
    char row[2048];
    int n = ndem_series_row(row, sizeof row, ndem_sim_stats(sim), &cols);
    ck_assert(n > 0 && (size_t)n < sizeof row);
    ck_assert_int_eq(ndem_series_check_row(row, (size_t)n), 0);
    /* as many fields as columns; the floor's fz and the lid's z */
    int fields = 1, hfields = 1;
    for (const char *p = row; *p; p++) fields += *p == ',';
    for (const char *p = header; *p; p++) hfields += *p == ',';
    ck_assert_int_eq(fields, hfields);
    double f[3], t[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, f, t), 0);
    const char *p = row;
    for (int k = 0; k < 21 + 2; k++) p = strchr(p, ',') + 1; /* floor_fz */
    ck_assert_double_eq_tol(strtod(p, NULL), f[2], 1e-8 * fabs(f[2]));
    ck_assert_double_lt(f[2], 0);
    for (int k = 0; k < 6 + 6; k++) p = strchr(p, ',') + 1; /* lid-2_z */
    ck_assert_double_eq_tol(strtod(p, NULL), 0.55 + 0.5 * 10 * 0.001, 1e-9);
    free(header);
    ndem_series_cols_free(&cols);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- the "name" field ---- */

static void expect_error(const char *geometry, const char *pointer, const char *message)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [%s]}, \"solver\": {\"duration\": "
             "0.01}}",
             geometry);
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    ck_assert_int_eq(ndem_job_parse(text, strlen(text), &job, &errs), NDEM_JOB_INVALID);
    int found = 0;
    for (int i = 0; i < errs.count; i++) {
        fprintf(stderr, "  %s: %s\n", errs.items[i].pointer, errs.items[i].message);
        found |= !strcmp(errs.items[i].pointer, pointer) &&
                 strstr(errs.items[i].message, message) != NULL;
    }
    ck_assert_msg(found, "no error at %s saying '%s'", pointer, message);
    ndem_job_errors_clear(&errs);
    ndem_job_destroy(job);
}

#define PLANE(name) "{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1]" name "}"

START_TEST(geometry_names_are_checked)
{
    expect_error(PLANE(", \"name\": 3"), "/scene/geometry/0/name", "string");
    expect_error(PLANE(", \"name\": \"\""), "/scene/geometry/0/name", "");
    expect_error(PLANE(", \"name\": \"floor plate\""), "/scene/geometry/0/name",
                 "'floor plate' is not a geometry name");
    expect_error(PLANE(", \"name\": \"a,b\""), "/scene/geometry/0/name", "not a geometry name");
    expect_error(PLANE(", \"name\": \"2nd\""), "/scene/geometry/0/name", "a letter or '_' first");
    expect_error(PLANE(", \"name\": \"x\"") ", " PLANE("") ", " PLANE(", \"name\": \"x\""),
                 "/scene/geometry/2/name", "duplicate geometry name 'x' (also /scene/geometry/0)");
    char longname[NDEM_NAME_MAX + 16];
    memset(longname, 'a', NDEM_NAME_MAX);
    longname[NDEM_NAME_MAX] = 0;
    char geo[256];
    snprintf(geo, sizeof geo, PLANE(", \"name\": \"%s\""), longname);
    expect_error(geo, "/scene/geometry/0/name", "");
}
END_TEST

/* A valid name is kept and written back with the job. */
START_TEST(geometry_name_round_trips)
{
    ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS ", \"geometry\": [" PLANE(
        ", \"name\": \"_Floor-1.a\"") ", " PLANE("") "]}, \"solver\": {\"duration\": 0.01}}");
    ck_assert_str_eq(job->scene.geometry[0].name, "_Floor-1.a");
    ck_assert_str_eq(job->scene.geometry[1].name, "");
    char *doc = ndem_job_to_json(job);
    ck_assert_ptr_nonnull(strstr(doc, "\"name\": \"_Floor-1.a\""));
    ndem_job *again = test_job("%s", doc);
    ck_assert_str_eq(again->scene.geometry[0].name, "_Floor-1.a");
    ck_assert_str_eq(again->scene.geometry[1].name, "");
    free(doc);
    ndem_job_destroy(again);
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("loads");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, bed_weighs_on_its_floor_ndem);
    tcase_add_test(tc, bed_weighs_on_its_box_ndem);
    tcase_add_test(tc, bed_weighs_on_its_floor_dem);
    tcase_add_test(tc, bed_weighs_on_its_box_dem);
    tcase_add_test(tc, bed_weighs_in_its_mesh_tray_ndem);
    tcase_add_test(tc, incline_normal_and_tangential_ndem);
    tcase_add_test(tc, incline_normal_and_tangential_dem);
    tcase_add_test(tc, torque_is_weight_times_lever_arm);
    tcase_add_test(tc, box_torque_about_its_centre);
    tcase_add_test(tc, impulses_balance_the_bounce);
    tcase_add_test(tc, loads_equal_on_any_thread_count_ndem);
    tcase_add_test(tc, loads_equal_on_any_thread_count_dem);
    tcase_add_test(tc, load_of_an_unknown_geometry_is_refused);
    tcase_add_test(tc, series_columns_of_named_geometry);
    tcase_add_test(tc, geometry_names_are_checked);
    tcase_add_test(tc, geometry_name_round_trips);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
