/* test_sweeps.c - parameter sweeps and frame exports against the real
 * ndemd (issue 16). A product sweep of 2 x 2 small jobs runs, each job has
 * the values of its place in the expansion (the last parameter varying
 * fastest), names its sweep, and its row of the results (JSON and CSV)
 * holds exactly what the job's own resource says; a zip sweep pairs the
 * values; a bad variant, a zip of unequal lengths, bad pointers and too
 * many variants are 422 problem+json naming the variant, its values and
 * the pointer, and queue nothing; a sweep is cancelled and deleted as a
 * whole. A frame is exported as VTK XML PolyData, CSV, JSON and NDF1, and
 * each is read back and compared with the JSON frame. */
#include "daemon.h"
#include "testutil.h"

#include <math.h>

static td_daemon sd; /* shared by the cases */

static void sweeps_start(void)
{
    td_start(&sd, "--workers", "2", "--max-particles", "1000", "--max-duration", "100",
             "--max-sweep-jobs", "8", (char *)NULL);
}

static void sweeps_stop(void) { td_stop_status(&sd); }

/* A sweep body: base = td_job_doc(name, duration, interval), parameters as
 * JSON text, mode. malloc'd. */
static char *sweep_body(const char *name, double duration, const char *params, const char *mode)
{
    char *base = td_job_doc(name, duration, duration / 2);
    size_t n = strlen(base) + strlen(params) + 128;
    char *s = malloc(n);
    snprintf(s, n, "{\"base\": %s, \"parameters\": %s, \"mode\": \"%s\"}", base, params, mode);
    free(base);
    return s;
}

static td_resp post_sweep(const char *body)
{
    return td_http(&sd, "POST", "/api/v1/sweeps", "application/json", body, strlen(body), NULL);
}

static void expect_problem(td_resp *r, long status)
{
    ck_assert_msg(r->status == status, "status %ld, wanted %ld: %s", r->status, status,
                  r->body ? r->body : "");
    ck_assert_str_eq(r->type, "application/problem+json");
}

/* GET a sweep (cJSON_Delete). */
static cJSON *get_sweep(const char *id)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/sweeps/%s", id);
    return td_get_json(&sd, path, 200);
}

/* Polls until the sweep's status is want. */
static void wait_sweep(const char *id, const char *want, double timeout)
{
    double end = td_now() + timeout;
    for (;;) {
        cJSON *o = get_sweep(id);
        char status[32];
        snprintf(status, sizeof status, "%s", td_str(o, "status"));
        cJSON_Delete(o);
        if (!strcmp(status, want)) return;
        ck_assert_msg(td_now() < end, "sweep %s still %s after %.0f s, wanted %s", id, status,
                      timeout, want);
        td_sleep(0.1);
    }
}

static long count_of(const char *path, const char *key)
{
    cJSON *o = td_get_json(&sd, path, 200);
    long n = cJSON_GetArraySize(cJSON_GetObjectItem(o, key));
    cJSON_Delete(o);
    return n;
}

/* A value of a JSON document by a simple pointer (no escapes). */
static const cJSON *at(const cJSON *o, const char *pointer)
{
    char tok[128];
    const char *p = pointer;
    while (o && *p == '/') {
        size_t n = strcspn(p + 1, "/");
        snprintf(tok, sizeof tok, "%.*s", (int)n, p + 1);
        o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(tok)) : cJSON_GetObjectItem(o, tok);
        p += 1 + n;
    }
    return o;
}

START_TEST(product_sweep_runs_and_its_results_are_its_jobs)
{
    char *body = sweep_body("grid", 0.05,
                            "[{\"pointer\": \"/solver/iterations\", \"values\": [10, 20]},"
                            " {\"pointer\": \"/scene/materials/0/density\", \"values\": [2000, "
                            "3000]}]",
                            "product");
    td_resp r = post_sweep(body);
    free(body);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    cJSON *sw = cJSON_Parse(r.body);
    char id[32], path[256];
    snprintf(id, sizeof id, "%s", td_str(sw, "id"));
    snprintf(path, sizeof path, "/api/v1/sweeps/%s", id);
    ck_assert_str_eq(r.location, path);
    td_resp_free(&r);
    ck_assert_str_eq(td_str(sw, "mode"), "product");
    ck_assert_int_eq((long)td_num(sw, "total"), 4);
    const cJSON *jobs = cJSON_GetObjectItem(sw, "jobs");
    ck_assert_int_eq(cJSON_GetArraySize(jobs), 4);
    /* product order: the last parameter varies fastest */
    const double want[4][2] = {{10, 2000}, {10, 3000}, {20, 2000}, {20, 3000}};
    char ids[4][32];
    for (int k = 0; k < 4; k++) {
        const cJSON *j = cJSON_GetArrayItem(jobs, k);
        snprintf(ids[k], sizeof ids[k], "%s", td_str(j, "id"));
        ck_assert_int_eq((long)td_num(j, "index"), k);
        const cJSON *p = cJSON_GetObjectItem(j, "parameters");
        ck_assert(td_num(p, "/solver/iterations") == want[k][0]);
        ck_assert(td_num(p, "/scene/materials/0/density") == want[k][1]);
        /* the job's own resource names its sweep and runs the values */
        cJSON *job = td_job(&sd, ids[k]);
        const cJSON *s = cJSON_GetObjectItem(job, "sweep");
        ck_assert_str_eq(td_str(s, "id"), id);
        ck_assert_int_eq((long)td_num(s, "index"), k);
        ck_assert(cJSON_GetArrayItem(cJSON_GetObjectItem(s, "values"), 1)->valuedouble ==
                  want[k][1]);
        const cJSON *doc = cJSON_GetObjectItem(job, "job");
        ck_assert(at(doc, "/solver/iterations")->valuedouble == want[k][0]);
        ck_assert(at(doc, "/scene/materials/0/density")->valuedouble == want[k][1]);
        ck_assert(at(doc, "/scene/materials/0/young_modulus")->valuedouble == 1e7); /* kept */
        cJSON_Delete(job);
    }
    cJSON_Delete(sw);
    /* a job outside any sweep has "sweep": null */
    char *plain = td_job_doc("plain", 0.01, 0.01), pid[64];
    td_submit(&sd, plain, pid);
    free(plain);
    cJSON *pj = td_job(&sd, pid);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(pj, "sweep")));
    cJSON_Delete(pj);

    wait_sweep(id, "done", 120);
    sw = get_sweep(id);
    const cJSON *counts = cJSON_GetObjectItem(sw, "counts");
    ck_assert_int_eq((long)td_num(counts, "succeeded"), 4);
    ck_assert_int_eq((long)td_num(counts, "queued"), 0);
    cJSON_Delete(sw);

    /* results: one row per job, equal to the job's resource */
    snprintf(path, sizeof path, "/api/v1/sweeps/%s/results", id);
    cJSON *res = td_get_json(&sd, path, 200);
    const cJSON *rows = cJSON_GetObjectItem(res, "rows");
    const cJSON *cols = cJSON_GetObjectItem(res, "columns");
    ck_assert_int_eq(cJSON_GetArraySize(rows), 4);
    for (int k = 0; k < 4; k++) {
        const cJSON *row = cJSON_GetArrayItem(rows, k);
        ck_assert_str_eq(td_str(row, "job"), ids[k]);
        ck_assert_str_eq(td_str(row, "status"), "succeeded");
        ck_assert(td_num(row, "/solver/iterations") == want[k][0]);
        ck_assert(td_num(row, "/scene/materials/0/density") == want[k][1]);
        cJSON *job = td_job(&sd, ids[k]);
        const cJSON *pr = cJSON_GetObjectItem(job, "progress");
        const cJSON *st = cJSON_GetObjectItem(job, "stats");
        ck_assert(td_num(row, "step") == td_num(pr, "step"));
        ck_assert(td_num(row, "step") == 10);
        ck_assert(td_num(row, "time") == td_num(pr, "time"));
        ck_assert(td_num(row, "particles") == td_num(st, "particles"));
        ck_assert(td_num(row, "contacts") == td_num(st, "contacts"));
        ck_assert(td_num(row, "kinetic_energy") == td_num(st, "kinetic_energy"));
        ck_assert(td_num(row, "wall_seconds") == td_num(st, "wall_seconds"));
        ck_assert(cJSON_IsNull(cJSON_GetObjectItem(row, "error")));
        cJSON_Delete(job);
    }
    /* heavier spheres, same speeds: more kinetic energy (E ~ density) */
    ck_assert(td_num(cJSON_GetArrayItem(rows, 1), "kinetic_energy") >
              td_num(cJSON_GetArrayItem(rows, 0), "kinetic_energy"));

    /* CSV: the same columns and, parsed back, the same numbers */
    r = td_http(&sd, "GET", path, NULL, NULL, 0, "text/csv");
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "text/csv");
    char *save = NULL, *line = strtok_r(r.body, "\n", &save);
    int c = 0;
    for (char *f = line; f; c++) {
        char *comma = strchr(f, ',');
        if (comma) *comma = 0;
        ck_assert_str_eq(f, cJSON_GetArrayItem(cols, c)->valuestring);
        f = comma ? comma + 1 : NULL;
    }
    ck_assert_int_eq(c, cJSON_GetArraySize(cols));
    int k = 0;
    for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save), k++) {
        const cJSON *row = cJSON_GetArrayItem(rows, k);
        char *f = line;
        for (c = 0; c < cJSON_GetArraySize(cols); c++) {
            size_t n = strcspn(f, ",");
            char field[128];
            snprintf(field, sizeof field, "%.*s", (int)n, f);
            const cJSON *v = cJSON_GetObjectItem(row, cJSON_GetArrayItem(cols, c)->valuestring);
            /* the CSV is exact; cJSON prints 15 digits when they come within
             * an ulp or so of the number, so the JSON may be one ulp off */
            if (cJSON_IsNumber(v))
                ck_assert_msg(fabs(strtod(field, NULL) - v->valuedouble) <=
                                  4e-16 * fabs(v->valuedouble),
                              "row %d column %d: %s vs %.17g", k, c, field, v->valuedouble);
            else if (cJSON_IsString(v)) ck_assert_str_eq(field, v->valuestring);
            else ck_assert_str_eq(field, ""); /* null */
            f += n + (f[n] == ',');
        }
    }
    ck_assert_int_eq(k, 4);
    td_resp_free(&r);
    cJSON_Delete(res);

    /* the listing has it, with its counts */
    cJSON *list = td_get_json(&sd, "/api/v1/sweeps", 200);
    int found = 0;
    cJSON *item;
    cJSON_ArrayForEach(item,
                       cJSON_GetObjectItem(list, "sweeps")) if (!strcmp(td_str(item, "id"), id))
        found = td_num(cJSON_GetObjectItem(item, "counts"), "succeeded") == 4;
    ck_assert(found);
    cJSON_Delete(list);
}
END_TEST

START_TEST(zip_pairs_values_and_creates_members)
{
    /* solver.iterations is absent from the base: the pointer creates it */
    char *body = sweep_body("zip", 0.02,
                            "[{\"pointer\": \"/solver/iterations\", \"values\": [5, 15, 25]},"
                            " {\"pointer\": \"/name\", \"values\": [\"a\", \"b\", \"c\"]}]",
                            "zip");
    td_resp r = post_sweep(body);
    free(body);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    cJSON *sw = cJSON_Parse(r.body);
    td_resp_free(&r);
    ck_assert_str_eq(td_str(sw, "mode"), "zip");
    const cJSON *jobs = cJSON_GetObjectItem(sw, "jobs");
    ck_assert_int_eq(cJSON_GetArraySize(jobs), 3);
    const char *names[] = {"a", "b", "c"};
    for (int k = 0; k < 3; k++) {
        const cJSON *p = cJSON_GetObjectItem(cJSON_GetArrayItem(jobs, k), "parameters");
        ck_assert(td_num(p, "/solver/iterations") == 5 + 10 * k);
        ck_assert_str_eq(td_str(p, "/name"), names[k]);
        cJSON *job = td_job(&sd, td_str(cJSON_GetArrayItem(jobs, k), "id"));
        ck_assert_str_eq(td_str(job, "name"), names[k]);
        ck_assert(at(cJSON_GetObjectItem(job, "job"), "/solver/iterations")->valuedouble ==
                  5 + 10 * k);
        cJSON_Delete(job);
    }
    char id[32];
    snprintf(id, sizeof id, "%s", td_str(sw, "id"));
    cJSON_Delete(sw);
    wait_sweep(id, "done", 120);
}
END_TEST

/* The 422 of body; returns the problem (cJSON_Delete). */
static cJSON *refused(const char *body)
{
    td_resp r = post_sweep(body);
    expect_problem(&r, 422);
    cJSON *o = cJSON_Parse(r.body);
    td_resp_free(&r);
    ck_assert_ptr_nonnull(o);
    return o;
}

START_TEST(bad_sweeps_are_422_and_queue_nothing)
{
    long sweeps = count_of("/api/v1/sweeps", "sweeps");
    long jobs = count_of("/api/v1/jobs?limit=1000", "jobs");

    /* variant 2 of 3 is invalid: the variant, its values and the pointer */
    char *body =
        sweep_body("bad", 0.02, "[{\"pointer\": \"/solver/iterations\", \"values\": [10, 20, -5]}]",
                   "product");
    cJSON *p = refused(body);
    free(body);
    const cJSON *errs = cJSON_GetObjectItem(p, "errors");
    ck_assert_int_eq(cJSON_GetArraySize(errs), 1);
    const cJSON *e = cJSON_GetArrayItem(errs, 0);
    ck_assert_int_eq((long)td_num(e, "variant"), 2);
    ck_assert(cJSON_GetArrayItem(cJSON_GetObjectItem(e, "values"), 0)->valuedouble == -5);
    ck_assert_str_eq(td_str(e, "pointer"), "/solver/iterations");
    ck_assert(strstr(td_str(p, "detail"), "variant 2"));
    cJSON_Delete(p);

    /* an escaped member name (~1 is '/') is decoded: the job has no 'a/b' */
    body = sweep_body("esc", 0.02,
                      "[{\"pointer\": \"/scene/materials/0/a~1b~0\", \"values\": [1]}]", "product");
    p = refused(body);
    free(body);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "errors"), 0);
    ck_assert_str_eq(td_str(e, "pointer"), "/scene/materials/0/a~1b~0");
    ck_assert_msg(strstr(td_str(e, "message"), "'a/b~'"), "%s", td_str(e, "message"));
    cJSON_Delete(p);

    /* zip of unequal lengths */
    body = sweep_body("zip", 0.02,
                      "[{\"pointer\": \"/solver/iterations\", \"values\": [10, 20]},"
                      " {\"pointer\": \"/name\", \"values\": [\"a\"]}]",
                      "zip");
    p = refused(body);
    free(body);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "errors"), 0);
    ck_assert_str_eq(td_str(e, "pointer"), "/parameters");
    ck_assert(strstr(td_str(e, "message"), "has 2") && strstr(td_str(e, "message"), "has 1"));
    cJSON_Delete(p);

    /* pointers: a missing parent, an index past the array, no leading '/' */
    static const struct {
        const char *pointer, *message;
    } bad[] = {
        {"/solver/nope/x", "/solver/nope does not exist"},
        {"/scene/materials/3/density", "is not an index of that array of 1"},
        {"solver/iterations", "must start with '/'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char params[256];
        snprintf(params, sizeof params, "[{\"pointer\": \"%s\", \"values\": [1]}]", bad[i].pointer);
        body = sweep_body("ptr", 0.02, params, "product");
        p = refused(body);
        free(body);
        e = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "errors"), 0);
        ck_assert_str_eq(td_str(e, "pointer"), "/parameters/0/pointer");
        if (bad[i].pointer[0] == '/') { /* found setting variant 0, not in the body's syntax */
            ck_assert_int_eq((long)td_num(e, "variant"), 0);
            ck_assert(cJSON_GetArrayItem(cJSON_GetObjectItem(e, "values"), 0)->valuedouble == 1);
        }
        ck_assert_msg(strstr(td_str(e, "message"), bad[i].message), "%s: %s", bad[i].pointer,
                      td_str(e, "message"));
        cJSON_Delete(p);
    }

    /* 3 x 3 = 9 variants, over --max-sweep-jobs 8 */
    body = sweep_body("big", 0.02,
                      "[{\"pointer\": \"/solver/iterations\", \"values\": [1, 2, 3]},"
                      " {\"pointer\": \"/name\", \"values\": [\"a\", \"b\", \"c\"]}]",
                      "product");
    p = refused(body);
    free(body);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "errors"), 0);
    ck_assert_str_eq(td_str(e, "pointer"), "/parameters");
    ck_assert(strstr(td_str(e, "message"), "9 variants") && strstr(td_str(e, "message"), "8"));
    cJSON_Delete(p);

    /* nothing was queued by any of them */
    ck_assert_int_eq(count_of("/api/v1/sweeps", "sweeps"), sweeps);
    ck_assert_int_eq(count_of("/api/v1/jobs?limit=1000", "jobs"), jobs);

    /* not JSON: 400 */
    td_resp r = post_sweep("{\"base\": ");
    expect_problem(&r, 400);
    td_resp_free(&r);
}
END_TEST

START_TEST(cancel_and_delete_a_whole_sweep)
{
    char *base = td_long_job_doc("long", 20, 1);
    size_t n = strlen(base) + 256;
    char *body = malloc(n);
    snprintf(body, n,
             "{\"base\": %s, \"parameters\": [{\"pointer\": \"/solver/iterations\", \"values\": "
             "[10, 11, 12]}]}",
             base);
    free(base);
    td_resp r = post_sweep(body);
    free(body);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    cJSON *sw = cJSON_Parse(r.body);
    td_resp_free(&r);
    ck_assert_str_eq(td_str(sw, "mode"), "product"); /* the default */
    char id[32], path[400], ids[3][32];
    snprintf(id, sizeof id, "%s", td_str(sw, "id"));
    for (int k = 0; k < 3; k++)
        snprintf(ids[k], sizeof ids[k], "%s",
                 td_str(cJSON_GetArrayItem(cJSON_GetObjectItem(sw, "jobs"), k), "id"));
    cJSON_Delete(sw);
    td_wait_step(&sd, ids[0], 1, 60); /* two run (two workers), one waits */

    snprintf(path, sizeof path, "/api/v1/sweeps/%s", id);
    r = td_http(&sd, "DELETE", path, NULL, NULL, 0, NULL);
    expect_problem(&r, 409); /* running jobs: cancel first */
    td_resp_free(&r);

    snprintf(path, sizeof path, "/api/v1/sweeps/%s/cancel", id);
    r = td_http(&sd, "POST", path, NULL, NULL, 0, NULL);
    ck_assert_msg(r.status == 202 || r.status == 200, "%ld %s", r.status, r.body);
    td_resp_free(&r);
    wait_sweep(id, "cancelled", 60);
    for (int k = 0; k < 3; k++) td_wait_status(&sd, ids[k], "cancelled", 10);
    sw = get_sweep(id);
    ck_assert_int_eq((long)td_num(cJSON_GetObjectItem(sw, "counts"), "cancelled"), 3);
    cJSON_Delete(sw);

    snprintf(path, sizeof path, "/api/v1/sweeps/%s", id);
    r = td_http(&sd, "DELETE", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 204);
    td_resp_free(&r);
    r = td_http(&sd, "GET", path, NULL, NULL, 0, NULL);
    expect_problem(&r, 404);
    td_resp_free(&r);
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "/api/v1/jobs/%s", ids[k]);
        r = td_http(&sd, "GET", path, NULL, NULL, 0, NULL);
        expect_problem(&r, 404);
        td_resp_free(&r);
        snprintf(path, sizeof path, "%s/var/jobs/%s", sd.dir, ids[k]);
        struct stat st;
        ck_assert_msg(stat(path, &st) != 0, "%s is still there", path);
    }
    r = td_http(&sd, "GET", "/api/v1/sweeps/0123456789abcdef/results", NULL, NULL, 0, NULL);
    expect_problem(&r, 404);
    td_resp_free(&r);
}
END_TEST

/* The numbers of the VTK DataArray named name (whitespace-separated). */
static int vtp_array(const char *xml, const char *name, double *out, int max)
{
    char key[96];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    const char *p = strstr(xml, key);
    if (!p || !(p = strchr(p, '>'))) return -1;
    const char *end = strstr(p, "</DataArray>");
    int n = 0;
    for (p++; p < end && n < max;) {
        char *after;
        double v = strtod(p, &after);
        if (after == p) break;
        out[n++] = v;
        p = after;
    }
    return n;
}

START_TEST(frame_exports_read_back_as_the_json_frame)
{
    char *doc = td_job_doc("export", 0.1, 0.05), id[64], path[256];
    td_submit(&sd, doc, id);
    free(doc);
    td_wait_status(&sd, id, "succeeded", 60);
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/2", id);
    cJSON *f = td_get_json(&sd, path, 200);
    long n = (long)td_num(f, "particles");
    ck_assert_int_ge(n, 3);
    const cJSON *pos = cJSON_GetObjectItem(f, "positions"), *rad = cJSON_GetObjectItem(f, "radii");
    const cJSON *vel = cJSON_GetObjectItem(f, "velocities");
    const cJSON *ang = cJSON_GetObjectItem(f, "angular_velocities");

    /* ?format=json is the same frame */
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/2?format=json", id);
    cJSON *fj = td_get_json(&sd, path, 200);
    ck_assert(cJSON_Compare(f, fj, 1));
    cJSON_Delete(fj);

    /* vtp: points, radius, velocity, angular velocity, id; one vertex each */
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/2?format=vtp", id);
    td_resp r = td_http(&sd, "GET", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "application/xml");
    ck_assert(!strncmp(r.body, "<?xml", 5) && strstr(r.body, "<VTKFile type=\"PolyData\""));
    char attr[96];
    snprintf(attr, sizeof attr, "NumberOfPoints=\"%ld\" NumberOfVerts=\"%ld\"", n, n);
    ck_assert(strstr(r.body, attr));
    double *a = malloc((size_t)(3 * n + 1) * sizeof *a);
    const struct {
        const char *name;
        const cJSON *json;
        int comps;
    } arrays[] = {{"position", pos, 3},
                  {"radius", rad, 1},
                  {"velocity", vel, 3},
                  {"angular_velocity", ang, 3}};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        ck_assert_int_eq(vtp_array(r.body, arrays[i].name, a, (int)(3 * n + 1)),
                         arrays[i].comps * n);
        for (long k = 0; k < arrays[i].comps * n; k++)
            ck_assert(a[k] == cJSON_GetArrayItem(arrays[i].json, (int)k)->valuedouble);
    }
    /* materials: the JSON frame's, every particle of the document's one material */
    const cJSON *mat = cJSON_GetObjectItem(f, "materials");
    ck_assert_int_eq(cJSON_GetArraySize(mat), n);
    ck_assert_int_eq(vtp_array(r.body, "material", a, (int)n + 1), n);
    for (long k = 0; k < n; k++) {
        ck_assert(a[k] == 0);
        ck_assert_int_eq(cJSON_GetArrayItem(mat, (int)k)->valueint, 0);
    }
    ck_assert_int_eq(vtp_array(r.body, "id", a, (int)n + 1), n);
    ck_assert(a[n - 1] == (double)(n - 1));
    ck_assert_int_eq(vtp_array(r.body, "offsets", a, (int)n + 1), n);
    ck_assert(a[0] == 1 && a[n - 1] == (double)n);
    ck_assert_int_eq(vtp_array(r.body, "TimeValue", a, 1), 1);
    ck_assert(fabs(a[0] - td_num(f, "time")) < 1e-12);
    td_resp_free(&r);

    /* csv: a header, then id and the 10 numbers of each particle */
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/2?format=csv", id);
    r = td_http(&sd, "GET", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "text/csv");
    ck_assert(!strncmp(r.body, "id,x,y,z,radius,vx,vy,vz,wx,wy,wz,material\n", 43));
    const char *line = strchr(r.body, '\n') + 1;
    long rows = 0;
    for (; *line; rows++) {
        char *p;
        ck_assert_int_eq(strtol(line, &p, 10), rows);
        double v[10];
        for (int c = 0; c < 10; c++) {
            ck_assert_int_eq(*p, ',');
            v[c] = strtod(p + 1, &p);
        }
        for (int c = 0; c < 3; c++) {
            ck_assert(v[c] == cJSON_GetArrayItem(pos, (int)(3 * rows + c))->valuedouble);
            ck_assert(v[4 + c] == cJSON_GetArrayItem(vel, (int)(3 * rows + c))->valuedouble);
            ck_assert(v[7 + c] == cJSON_GetArrayItem(ang, (int)(3 * rows + c))->valuedouble);
        }
        ck_assert(v[3] == cJSON_GetArrayItem(rad, (int)rows)->valuedouble);
        ck_assert_int_eq(*p, ',');
        ck_assert_int_eq(strtol(p + 1, &p, 10), 0); /* the material */
        ck_assert_int_eq(*p, '\n');
        line = p + 1;
    }
    ck_assert_int_eq(rows, n);
    td_resp_free(&r);

    /* ndf: the stored NDF1 record; the JSON's nine digits read back as its float32 positions */
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/2?format=ndf", id);
    r = td_http(&sd, "GET", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "application/octet-stream");
    ck_assert_uint_eq(r.len, 48 + 48 * (size_t)n + 8 + 64); /* 12 words each, the plane's pose */
    ck_assert(!memcmp(r.body, "NDF1", 4));
    for (long k = 0; k < 3 * n; k++) {
        float x;
        memcpy(&x, r.body + 48 + 4 * k, 4);
        ck_assert(x == (float)cJSON_GetArrayItem(pos, (int)k)->valuedouble);
    }
    td_resp_free(&r);

    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/2?format=stl", id);
    r = td_http(&sd, "GET", path, NULL, NULL, 0, NULL);
    expect_problem(&r, 400);
    ck_assert(strstr(r.body, "'stl'"));
    td_resp_free(&r);
    free(a);
    cJSON_Delete(f);
}
END_TEST

static Suite *sweeps_suite(void)
{
    Suite *s = suite_create("sweeps");
    TCase *tc = tcase_create("sweeps");
    tcase_add_unchecked_fixture(tc, sweeps_start, sweeps_stop);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, product_sweep_runs_and_its_results_are_its_jobs);
    tcase_add_test(tc, zip_pairs_values_and_creates_members);
    tcase_add_test(tc, bad_sweeps_are_422_and_queue_nothing);
    tcase_add_test(tc, cancel_and_delete_a_whole_sweep);
    tcase_add_test(tc, frame_exports_read_back_as_the_json_frame);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = ndem_test_run_suite(sweeps_suite());
    rc = td_exit_code(rc);
    curl_global_cleanup();
    return rc;
}
