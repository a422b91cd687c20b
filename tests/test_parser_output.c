/* test_parser_output.c - what the api module writes as JSON: a job's error
 * list (problem+json errors[] with pointers), a frame, and the nine-digit
 * number format behind both. */
#include "frame_json.h"
#include "job.h"
#include "jsonw.h"
#include "parser_util.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

/* ---- error lists and frames as JSON ---- */

START_TEST(errors_json)
{
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_sq("{'scene': {'materials': [{'name': 'a', 'density': -1}]},"
                              " 'x\\\"y': 1}",
                              &job, &e),
                     NDEM_JOB_INVALID);
    char *text = ndem_job_errors_to_json(&e);
    ck_assert_ptr_nonnull(text);
    cJSON *arr = cJSON_Parse(text);
    ck_assert_ptr_nonnull(arr);
    ck_assert(cJSON_IsArray(arr));
    ck_assert_int_eq(cJSON_GetArraySize(arr), 2);
    int found = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const char *p = cJSON_GetObjectItem(it, "pointer")->valuestring;
        const char *m = cJSON_GetObjectItem(it, "message")->valuestring;
        ck_assert_ptr_nonnull(m);
        if (strcmp(p, "/scene/materials/0/density") == 0 || strcmp(p, "/x\"y") == 0) found++;
    }
    ck_assert_int_eq(found, 2);
    cJSON_Delete(arr);
    free(text);
    ndem_job_errors_clear(&e);
    text = ndem_job_errors_to_json(&e);
    ck_assert_str_eq(text, "[]");
    free(text);
}
END_TEST

START_TEST(frame_json)
{
    double pos[6] = {0.1, -2.5, 3e-7, 1e10, 0.0, NAN};
    double rad[2] = {0.0065, 0.005};
    double vel[6] = {1, 2, 3, -4, -5, INFINITY};
    double ang[6] = {0.25, 0, 0, 0, 0, -123456.789};
    ndem_frame f;
    memset(&f, 0, sizeof f);
    f.step = 42;
    f.time = 0.21000000000000002;
    f.count = 2;
    f.positions = pos;
    f.radii = rad;
    f.velocities = vel;
    f.angular_velocities = ang;
    int mat[2] = {3, 0};
    double poses[14] = {0.5, -1, 1.0 / 3.0, 1, 0, 0, 0, 0, 0, 0.1, 0.6, 0, 0.8, 0};
    const char *gnames[2] = {"", "lid"};
    f.materials = mat;
    f.geometry_poses = poses;
    f.geometry_count = 2;
    char *text = ndem_frame_to_json(&f, 7, gnames);
    ck_assert_ptr_nonnull(text);
    cJSON *doc = cJSON_Parse(text);
    if (!doc) fprintf(stderr, "%s\n", text);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "index")->valueint, 7);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "step")->valueint, 42);
    ck_assert_double_eq(cJSON_GetObjectItem(doc, "time")->valuedouble, 0.21000000000000002);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "particles")->valueint, 2);
    const char *names[] = {"positions", "radii", "velocities", "angular_velocities"};
    const double *arrays[] = {pos, rad, vel, ang};
    const int counts[] = {6, 2, 6, 6};
    for (int k = 0; k < 4; k++) {
        const cJSON *a = cJSON_GetObjectItem(doc, names[k]);
        ck_assert(cJSON_IsArray(a));
        ck_assert_int_eq(cJSON_GetArraySize(a), counts[k]);
        for (int i = 0; i < counts[k]; i++) {
            const cJSON *v = cJSON_GetArrayItem(a, i);
            if (!isfinite(arrays[k][i])) {
                ck_assert(cJSON_IsNull(v));
            } else {
                ck_assert(cJSON_IsNumber(v));
                ck_assert_double_eq_tol(v->valuedouble, arrays[k][i],
                                        1e-8 * fabs(arrays[k][i]) + 1e-300);
            }
        }
    }
    /* materials as integers; the poses exact, a name only where given */
    const cJSON *m = cJSON_GetObjectItem(doc, "materials");
    ck_assert_int_eq(cJSON_GetArraySize(m), 2);
    ck_assert_int_eq(cJSON_GetArrayItem(m, 0)->valueint, 3);
    ck_assert_int_eq(cJSON_GetArrayItem(m, 1)->valueint, 0);
    const cJSON *geo = cJSON_GetObjectItem(doc, "geometry");
    ck_assert_int_eq(cJSON_GetArraySize(geo), 2);
    for (int g = 0; g < 2; g++) {
        const cJSON *e = cJSON_GetArrayItem(geo, g);
        ck_assert_int_eq(cJSON_GetObjectItem(e, "index")->valueint, g);
        ck_assert_int_eq(cJSON_HasObjectItem(e, "name"), g == 1);
        const cJSON *p = cJSON_GetObjectItem(e, "position"),
                    *q = cJSON_GetObjectItem(e, "orientation");
        for (int k = 0; k < 3; k++)
            ck_assert_double_eq(cJSON_GetArrayItem(p, k)->valuedouble, poses[7 * g + k]);
        for (int k = 0; k < 4; k++)
            ck_assert_double_eq(cJSON_GetArrayItem(q, k)->valuedouble, poses[7 * g + 3 + k]);
    }
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(geo, 1), "name")->valuestring, "lid");
    cJSON_Delete(doc);
    free(text);
    /* an empty frame */
    memset(&f, 0, sizeof f);
    text = ndem_frame_to_json(&f, 0, NULL);
    ck_assert_str_eq(text, "{\"index\": 0, \"step\": 0, \"time\": 0, \"particles\": 0, "
                           "\"positions\": [], \"radii\": [], \"velocities\": [], "
                           "\"angular_velocities\": [], \"materials\": [], \"geometry\": []}");
    free(text);
}
END_TEST

START_TEST(nine_digit_format)
{
    /* The fast formatter reads back like "%.9g" across magnitudes. */
    unsigned long long s = 88172645463325252ULL;
    char mine[64], ref[64];
    for (int i = 0; i < 50000; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double m = (double)(s >> 11) / 9007199254740992.0;
        int e10 = (int)(s % 24) - 12;
        double x = (s & 1 ? -1 : 1) * m * pow(10.0, e10);
        if (i % 1000 == 0) x = pow(10.0, e10); /* exact powers of ten */
        if (i % 1000 == 1) x = 0.999999999 * pow(10.0, e10) + 0.0000000005 * pow(10.0, e10);
        ndem_jw_format_g9(mine, x);
        snprintf(ref, sizeof ref, "%.9g", x);
        double a = strtod(mine, NULL), b = strtod(ref, NULL);
        if (!(fabs(a - b) <= 1e-9 * fabs(b))) fprintf(stderr, "%.17g: %s vs %s\n", x, mine, ref);
        ck_assert(fabs(a - b) <= 1e-9 * fabs(b));
        ck_assert_uint_le(strlen(mine), NDEM_JW_G9_MAX);
    }
    ndem_jw_format_g9(mine, -0.0);
    ck_assert(strtod(mine, NULL) == 0.0);
    ndem_jw_format_g9(mine, 1e-300);
    ck_assert_str_eq(mine, "1e-300");
    ndem_jw_format_g9(mine, 0.5);
    ck_assert_str_eq(mine, "0.5");
    ndem_jw_format_g9(mine, 12.0);
    ck_assert_str_eq(mine, "12");
    ndem_jw_format_g9(mine, 0.000123);
    ck_assert_str_eq(mine, "0.000123");
}
END_TEST

/* ---- output.contacts (issue 16) ---- */

#define OUT_MAT "'materials': [{'name': 'm', 'density': 1000, 'young_modulus': 1e7}]"

#define EST_DOC(on)                                                                                \
    "{'scene': {" OUT_MAT ", 'particles': [{'type': 'list', 'material': 'm', 'spheres': [[0, 0, "  \
    "0, 0.1], [1, 0, 0, 0.1]]}]}, 'solver': {'time_step': 0.001, 'duration': 1}, 'output': "       \
    "{'frame_interval': 0.1, 'contacts': " on "}}"

/* false by default, true when asked; the normalised document writes it back
 * and parses to the same job; the estimate grows by the contact records */
START_TEST(output_contacts_default_and_round_trip)
{
    ndem_job *off = parse_ok("{'scene': {" OUT_MAT "}}");
    ck_assert_int_eq(off->output.contacts, 0);
    ndem_job *on = parse_ok("{'scene': {" OUT_MAT "}, 'output': {'contacts': true}}");
    ck_assert_int_eq(on->output.contacts, 1);
    char *text = ndem_job_to_json(on);
    ck_assert_ptr_nonnull(text);
    cJSON *doc = cJSON_Parse(text);
    const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "output"), "contacts");
    ck_assert(cJSON_IsTrue(c));
    ndem_job *back = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(text, strlen(text), &back, &e), NDEM_JOB_OK);
    ck_assert_int_eq(back->output.contacts, 1);
    char *t_off = ndem_job_to_json(off);
    cJSON *d_off = cJSON_Parse(t_off);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(d_off, "output"), "contacts")));
    /* eleven frames (1 s every 0.1 s), each with a 48-byte header and 64
     * bytes for each of 3.5 contacts per particle, 2 particles */
    ndem_job *j0 = parse_ok(EST_DOC("false")), *j1 = parse_ok(EST_DOC("true"));
    ck_assert_double_eq_tol(ndem_job_output_estimate(j1) - ndem_job_output_estimate(j0),
                            11 * (48 + 3.5 * 64 * 2), 1e-6);
    ndem_job_destroy(j0);
    ndem_job_destroy(j1);
    cJSON_Delete(doc);
    cJSON_Delete(d_off);
    free(text);
    free(t_off);
    ndem_job_destroy(off);
    ndem_job_destroy(on);
    ndem_job_destroy(back);
}
END_TEST

/* a non-boolean and a misspelt member are refused at their pointers */
START_TEST(output_contacts_errors)
{
    static const struct {
        const char *doc, *pointer, *message;
    } bad[] = {
        {"{'scene': {" OUT_MAT "}, 'output': {'contacts': 1}}", "/output/contacts",
         "must be true or false (got a number)"},
        {"{'scene': {" OUT_MAT "}, 'output': {'contacts': 'yes'}}", "/output/contacts",
         "must be true or false (got a string)"},
        {"{'scene': {" OUT_MAT "}, 'output': {'contact': true}}", "/output/contact",
         "unknown field 'contact'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ndem_job *job = NULL;
        ndem_job_errors e = {0};
        ck_assert_int_eq(parse_sq(bad[i].doc, &job, &e), NDEM_JOB_INVALID);
        if (!has_error(&e, bad[i].pointer, bad[i].message)) dump_errors(&e);
        ck_assert_msg(has_error(&e, bad[i].pointer, bad[i].message), "case %zu", i);
        ndem_job_errors_clear(&e);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("parser_output");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, errors_json);
    tcase_add_test(tc, frame_json);
    tcase_add_test(tc, nine_digit_format);
    tcase_add_test(tc, output_contacts_default_and_round_trip);
    tcase_add_test(tc, output_contacts_errors);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
