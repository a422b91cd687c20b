/* test_contacts.c - the contact network of a step (ndem_sim_copy_contacts,
 * issue 16): in a resting column of spheres each contact carries the
 * weight of the spheres above it and the floor all of it, a sphere held by
 * friction on an incline is pressed with m g cos(theta) and dragged with
 * m g sin(theta), both methods; every thread count gives the same list;
 * none before the first step. Expected numbers come from statics. The
 * NDC1 record round-trips, and refuses a damaged or cut one. */
#include "contact_bin.h"
#include "scene.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81;
static const double R = 0.005, RHO = 2500;

#define NDEM_SOLVER "\"time_step\": 0.001"
#define DEM_SOLVER "\"method\": \"dem\", \"time_step\": \"auto\""

static double sphere_mass(double r) { return RHO * 4.0 / 3.0 * M_PI * r * r * r; }

static void run_for(ndem_sim *sim, double seconds, double h)
{
    long n = (long)llround(seconds / h);
    for (long i = 0; i < n; i++) test_step(sim);
}

static void copy(const ndem_sim *sim, ndem_contact_set *s)
{
    ck_assert_msg(ndem_sim_copy_contacts(sim, s) == 0, "ndem_sim_copy_contacts failed");
}

/* N spheres stacked on the plane z = 0, sphere 0 at the bottom. */
static ndem_job *column_job(int n, const char *solver)
{
    char spheres[1024] = "";
    size_t at = 0;
    for (int k = 0; k < n; k++)
        at += (size_t)snprintf(spheres + at, sizeof spheres - at, "%s[0, 0, %.17g, %g]",
                               k ? ", " : "", R * (1 + 2 * k) * 0.99999, R);
    return test_job("{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"plane\", "
                    "\"point\": [0, 0, 0], \"normal\": [0, 0, 1], \"material\": \"steel\"}], "
                    "\"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"spheres\": "
                    "[%s]}]}, \"solver\": {%s, \"duration\": 2}}",
                    spheres, solver);
}

/* Contact k of the column (k = 0: the floor under sphere 0; k > 0: spheres
 * k - 1 and k) must carry (n - k) m g along z, upward on the upper body,
 * and no friction. Forces are averaged over 0.1 s: smooth DEM's springs
 * ring about the static values. */
static void check_column(const char *solver, double settle)
{
    const int n = 5;
    ndem_job *job = column_job(n, solver);
    ndem_sim *sim = test_sim(job);
    const double h = job->scene.solver.time_step, mg = sphere_mass(R) * G;
    run_for(sim, settle, h);
    double up[5] = {0}, ft[5] = {0};
    long steps = (long)llround(0.1 / h);
    for (long i = 0; i < steps; i++) {
        test_step(sim);
        ndem_contact_set s;
        ndem_frame f;
        copy(sim, &s);
        test_frame(sim, &f);
        ck_assert_int_eq(s.count, n);
        for (long c = 0; c < s.count; c++) {
            int k;
            /* the force on the upper body, upward positive */
            double sign;
            if (s.b[c] == -1) { /* the floor (geometry 0) is b: a is the sphere above */
                ck_assert_int_eq(s.a[c], 0);
                ck_assert_int_ge(s.feature[c], 0);
                k = 0, sign = -1;
            } else {
                long lo = s.a[c] < s.b[c] ? s.a[c] : s.b[c], hi = s.a[c] + s.b[c] - lo;
                ck_assert_int_eq(hi, lo + 1);
                k = (int)hi, sign = s.b[c] == hi ? 1 : -1;
            }
            const double *nn = &s.normals[3 * c], *t = &s.tangential_forces[3 * c];
            ck_assert_double_lt(fabs(fabs(nn[2]) - 1), 1e-6);
            up[k] += sign * s.normal_forces[c] * nn[2] / (double)steps;
            ft[k] = fmax(ft[k], sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]));
            /* the point lies on the axis inside both bodies (the middle of
             * the overlap; the floor's surface is z = 0) */
            const double *p = &s.points[3 * c];
            ck_assert_double_lt(fabs(p[0]) + fabs(p[1]), 1e-9);
            ck_assert_double_le(fabs(p[2] - f.positions[3 * s.a[c] + 2]), R);
            if (k > 0) ck_assert_double_le(fabs(p[2] - f.positions[3 * s.b[c] + 2]), R);
            else ck_assert_double_lt(fabs(p[2]), 0.01 * R);
        }
        ndem_contact_set_free(&s);
        ndem_frame_free(&f);
    }
    for (int k = 0; k < n; k++) {
        double want = (n - k) * mg;
        fprintf(stderr, "column (%s) contact %d: %.6g N (want %.6g), friction %.3g N\n", solver, k,
                up[k], want, ft[k]);
        ck_assert_double_lt(fabs(up[k] - want), 0.005 * want);
        ck_assert_double_lt(ft[k], 1e-6 * mg);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(column_carries_weight_above_ndem) { check_column(NDEM_SOLVER, 0.3); }
END_TEST

START_TEST(column_carries_weight_above_dem) { check_column(DEM_SOLVER, 0.5); }
END_TEST

/* A sphere that cannot turn, held by friction (mu 0.6 > tan 20 deg) on a
 * plane: the plane (b) is pressed with m g cos(theta) and dragged downhill
 * with m g sin(theta). */
static void check_incline(const char *solver, double settle)
{
    const double theta = 20 * M_PI / 180, r = 0.01;
    double nrm[3] = {sin(theta), 0, cos(theta)}, down[3] = {cos(theta), 0, -sin(theta)};
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"steel\"], \"friction\": 0.6}], \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, "
        "0], \"normal\": [%.17g, 0, %.17g], \"material\": \"steel\"}], \"particles\": [{\"type\": "
        "\"list\", \"material\": \"ore\", \"fixed_rotation\": true, \"spheres\": [[%.17g, 0, "
        "%.17g, %g]]}]}, \"solver\": {%s, \"duration\": 1}}",
        nrm[0], nrm[2], 0.99999 * r * nrm[0], 0.99999 * r * nrm[2], r, solver);
    ndem_sim *sim = test_sim(job);
    const double h = job->scene.solver.time_step, mg = sphere_mass(r) * G;
    run_for(sim, settle, h);
    double fn = 0, fd = 0, fy = 0;
    long steps = (long)llround(0.1 / h);
    for (long i = 0; i < steps; i++) {
        test_step(sim);
        ndem_contact_set s;
        copy(sim, &s);
        ck_assert_int_eq(s.count, 1);
        ck_assert_int_eq(s.a[0], 0);
        ck_assert_int_eq(s.b[0], -1);
        const double *n = s.normals, *t = s.tangential_forces;
        /* the normal points from the sphere into the plane */
        ck_assert_double_lt(fabs(n[0] + nrm[0]) + fabs(n[2] + nrm[2]), 1e-6);
        fn += s.normal_forces[0] / (double)steps;
        fd += (t[0] * down[0] + t[2] * down[2]) / (double)steps;
        fy = fmax(fy, fabs(t[1]));
        /* friction lies in the plane */
        ck_assert_double_lt(fabs(t[0] * n[0] + t[1] * n[1] + t[2] * n[2]), 1e-6 * mg);
        ndem_contact_set_free(&s);
    }
    fprintf(stderr, "incline (%s): normal %.6g N (m g cos %.6g), friction %.6g N (%.6g)\n", solver,
            fn, mg * cos(theta), fd, mg * sin(theta));
    ck_assert_double_lt(fabs(fn - mg * cos(theta)), 0.005 * mg * cos(theta));
    ck_assert_double_lt(fabs(fd - mg * sin(theta)), 0.005 * mg * sin(theta));
    ck_assert_double_lt(fy, 1e-6 * mg);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(incline_friction_ndem) { check_incline(NDEM_SOLVER, 0.3); }
END_TEST

START_TEST(incline_friction_dem) { check_incline(DEM_SOLVER, 0.2); }
END_TEST

/* A 4 x 4 x 2 bed landing in a box, with 1 and with 2 threads, every loop
 * threaded (NDEM_PARALLEL_MIN=1): the same list, bit for bit, every step. */
static void check_threads(const char *solver)
{
    const char *doc =
        "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"box\", \"min\": [-0.03, "
        "-0.03, 0], \"max\": [0.03, 0.03, 0.2], \"inside\": true, \"material\": \"steel\"}], "
        "\"particles\": [{\"type\": \"lattice\", \"min\": [-0.018, -0.018, 0.0052], \"max\": "
        "[0.018, 0.018, 0.016], \"spacing\": 0.0105, \"radius\": 0.005, \"material\": "
        "\"ore\"}]}, \"solver\": {%s, \"duration\": 1, \"threads\": %d}}";
    setenv("NDEM_PARALLEL_MIN", "1", 1);
    ndem_job *j1 = test_job(doc, solver, 1), *j2 = test_job(doc, solver, 2);
    ndem_sim *s1 = test_sim(j1), *s2 = test_sim(j2);
    unsetenv("NDEM_PARALLEL_MIN");
    long most = 0, pairs = 0;
    long steps = (long)llround(0.05 / j1->scene.solver.time_step);
    for (long i = 0; i < steps; i++) {
        test_step(s1);
        test_step(s2);
        ndem_contact_set c1, c2;
        copy(s1, &c1);
        copy(s2, &c2);
        ck_assert_int_eq(c1.count, c2.count);
        size_t n = (size_t)c1.count;
        int same = !memcmp(c1.a, c2.a, n * sizeof(long)) && !memcmp(c1.b, c2.b, n * sizeof(long)) &&
                   !memcmp(c1.feature, c2.feature, n * sizeof(int)) &&
                   !memcmp(c1.points, c2.points, 3 * n * sizeof(double)) &&
                   !memcmp(c1.normals, c2.normals, 3 * n * sizeof(double)) &&
                   !memcmp(c1.normal_forces, c2.normal_forces, n * sizeof(double)) &&
                   !memcmp(c1.tangential_forces, c2.tangential_forces, 3 * n * sizeof(double)) &&
                   !memcmp(c1.rolling_torques, c2.rolling_torques, 3 * n * sizeof(double));
        ck_assert_msg(same, "step %ld: the lists differ", i + 1);
        most = c1.count > most ? c1.count : most;
        for (long k = 0; k < c1.count; k++) pairs += c1.b[k] >= 0;
        ndem_contact_set_free(&c1);
        ndem_contact_set_free(&c2);
    }
    ck_assert_int_gt(most, 16); /* the bed rests on the floor and on itself */
    ck_assert_int_gt(pairs, 0);
    ndem_sim_destroy(s1);
    ndem_sim_destroy(s2);
    ndem_job_destroy(j1);
    ndem_job_destroy(j2);
}

START_TEST(same_list_on_any_thread_count_ndem) { check_threads(NDEM_SOLVER); }
END_TEST

START_TEST(same_list_on_any_thread_count_dem) { check_threads(DEM_SOLVER); }
END_TEST

/* Before the first step there is no contact, and after a restore none
 * until the next step; then the restored run's list is the original's. */
START_TEST(empty_before_a_step_and_after_restore)
{
    ndem_job *job = column_job(3, NDEM_SOLVER);
    ndem_sim *sim = test_sim(job);
    ndem_contact_set s;
    copy(sim, &s);
    ck_assert_int_eq(s.count, 0);
    ck_assert_int_eq(s.step, 0);
    ndem_contact_set_free(&s);
    run_for(sim, 0.05, job->scene.solver.time_step);
    void *buf = NULL;
    size_t len = 0;
    ck_assert_int_eq(ndem_sim_checkpoint(sim, &buf, &len), 0);
    char err[256];
    ndem_sim *back = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(back != NULL, "%s", err);
    free(buf);
    copy(back, &s);
    ck_assert_int_eq(s.count, 0);
    ck_assert_int_eq(s.step, 50);
    ndem_contact_set_free(&s);
    test_step(sim);
    test_step(back);
    ndem_contact_set s2;
    copy(sim, &s);
    copy(back, &s2);
    ck_assert_int_eq(s.count, 3);
    ck_assert_int_eq(s2.count, 3);
    ck_assert_int_eq(s.step, 51);
    ck_assert(!memcmp(s.normal_forces, s2.normal_forces, 3 * sizeof(double)));
    ndem_contact_set_free(&s);
    ndem_contact_set_free(&s2);
    ndem_contact_set_free(&s2); /* a freed set may be freed again */
    ndem_sim_destroy(back);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The column's network as NDC1: sound, 48 + 64 n bytes, back as float32 of
 * the same numbers; one flipped byte or a cut record is refused; CSV and
 * JSON carry every contact. */
START_TEST(ndc1_round_trip_and_damage)
{
    ndem_job *job = column_job(3, NDEM_SOLVER);
    ndem_sim *sim = test_sim(job);
    run_for(sim, 0.1, job->scene.solver.time_step);
    ndem_contact_set s, d;
    copy(sim, &s);
    ck_assert_int_eq(s.count, 3);
    size_t size = ndem_contact_bin_size(s.count, NDEM_CONTACT_ALL);
    ck_assert_uint_eq(size, 48 + 64 * 3);
    ck_assert_uint_eq(size, NDEM_CONTACT_HEADER + NDEM_CONTACT_BYTES_ALL * 3);
    unsigned char *buf = malloc(size);
    ck_assert_uint_eq(ndem_contact_bin_encode(&s, 7, NDEM_CONTACT_ALL, buf), size);
    char why[128] = "";
    ck_assert_msg(ndem_contact_bin_check(buf, size, why, sizeof why) == 0, "%s", why);
    long index = -1;
    ck_assert_int_eq(ndem_contact_bin_decode(buf, size, &d, &index), 0);
    ck_assert_int_eq(index, 7);
    ck_assert_int_eq(d.count, 3);
    ck_assert_int_eq(d.step, 100);
    ck_assert(d.time == s.time);
    for (long k = 0; k < 3; k++) {
        ck_assert_int_eq(d.a[k], s.a[k]);
        ck_assert_int_eq(d.b[k], s.b[k]);
        ck_assert_int_eq(d.feature[k], s.feature[k]);
        ck_assert(d.normal_forces[k] == (double)(float)s.normal_forces[k]);
        for (int q = 0; q < 3; q++) {
            ck_assert(d.points[3 * k + q] == (double)(float)s.points[3 * k + q]);
            ck_assert(d.normals[3 * k + q] == (double)(float)s.normals[3 * k + q]);
            ck_assert(d.tangential_forces[3 * k + q] ==
                      (double)(float)s.tangential_forces[3 * k + q]);
            ck_assert(d.rolling_torques[3 * k + q] == (double)(float)s.rolling_torques[3 * k + q]);
        }
    }
    size_t len;
    char *csv = ndem_contacts_to_csv(&d, &len);
    ck_assert_ptr_nonnull(csv);
    ck_assert(!strncmp(csv, "a,b,feature,px,py,pz,nx,ny,nz,fn,ftx,fty,ftz,mrx,mry,mrz\n", 57));
    long rows = 0;
    for (const char *p = csv; *p; p++) rows += *p == '\n';
    ck_assert_int_eq(rows, 4);
    ck_assert_ptr_nonnull(strstr(csv, "\n0,-1,")); /* sphere 0 on geometry 0 */
    free(csv);
    char *json = ndem_contacts_to_json(&d, index, &len);
    cJSON *doc = cJSON_Parse(json);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "index")->valueint, 7);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "contacts")->valueint, 3);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "points")), 9);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "b")), 3);
    double fn = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "normal_forces"), 0)->valuedouble;
    ck_assert((float)fn == (float)d.normal_forces[0]); /* nine digits carry a float32 */
    cJSON_Delete(doc);
    free(json);
    buf[100] ^= 1;
    ck_assert_int_eq(ndem_contact_bin_check(buf, size, why, sizeof why), -1);
    ck_assert_str_eq(why, "checksum mismatch");
    buf[100] ^= 1;
    ck_assert_int_eq(ndem_contact_bin_check(buf, size - 4, why, sizeof why), -1);
    ck_assert_str_eq(why, "truncated: 236 of 240 bytes");
    ck_assert_int_eq(ndem_contact_bin_check(buf, 20, why, sizeof why), -1);
    ck_assert_str_eq(why, "not an NDC1 record (20 bytes)");
    free(buf);
    ndem_contact_set_free(&d);
    ndem_contact_set_free(&s);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("contacts");
    TCase *tc = tcase_create("network");
    tcase_add_test(tc, column_carries_weight_above_ndem);
    tcase_add_test(tc, column_carries_weight_above_dem);
    tcase_add_test(tc, incline_friction_ndem);
    tcase_add_test(tc, incline_friction_dem);
    tcase_add_test(tc, same_list_on_any_thread_count_ndem);
    tcase_add_test(tc, same_list_on_any_thread_count_dem);
    tcase_add_test(tc, empty_before_a_step_and_after_restore);
    tcase_add_test(tc, ndc1_round_trip_and_damage);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
