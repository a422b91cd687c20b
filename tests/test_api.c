/* test_api.c - ndemd's REST API as a client meets it (issue 3): the real
 * daemon on a loopback port, spoken to with libcurl. A job runs to success
 * and its frames and series are served; an engine error fails a job with
 * the engine's message; every error is problem+json with
 * the right status (400, 404, 405, 409, 413, 415, 422, 503) and
 * pointers; --help lists every option and bad options stop the program;
 * jobs are cancelled while queued and while running; 200 concurrent submissions
 * are all accepted and each job runs exactly once on two workers. Recovery
 * from SIGKILL and SIGTERM is in test_restart.c. */
#include "crc32c.h"
#include "daemon.h"
#include "job.h"
#include "testutil.h"

static td_daemon api; /* shared by the "api" cases */

static void api_start(void)
{
    td_start(&api, "--workers", "2", "--max-body", "65536", "--max-particles", "100",
             "--max-duration", "100", (char *)NULL);
}

/* a bad end fails the suite (td_exit_code) */
static void api_stop(void) { td_stop_status(&api); }

static void expect_problem(td_resp *r, long status)
{
    ck_assert_msg(r->status == status, "status %ld, wanted %ld: %s", r->status, status,
                  r->body ? r->body : "");
    ck_assert_str_eq(r->type, "application/problem+json");
    cJSON *o = cJSON_Parse(r->body);
    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq((long)td_num(o, "status"), status);
    ck_assert(strlen(td_str(o, "type")) > 0);
    ck_assert(strlen(td_str(o, "title")) > 0);
    ck_assert(strlen(td_str(o, "detail")) > 0);
    cJSON_Delete(o);
}

/* The pointer of error i of a problem body. */
static const char *pointer_of(cJSON *problem, int i)
{
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(problem, "errors"), i);
    return e ? td_str(e, "pointer") : "(none)";
}

/* doc is answered 422 with exactly one error, at pointer, its message
 * holding msg. */
static void expect_one_error(const char *doc, const char *pointer, const char *msg)
{
    td_resp r = td_post_job(&api, doc);
    expect_problem(&r, 422);
    cJSON *p = cJSON_Parse(r.body);
    td_resp_free(&r);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(p, "errors")), 1);
    ck_assert_str_eq(pointer_of(p, 0), pointer);
    const cJSON *m =
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(p, "errors"), 0), "message");
    ck_assert(cJSON_IsString(m) && strstr(m->valuestring, msg));
    cJSON_Delete(p);
}

START_TEST(job_runs_and_serves_frames_and_series)
{
    char *doc = td_job_doc("small", 0.2, 0.05);
    td_resp r = td_post_job(&api, doc);
    free(doc);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    ck_assert_str_eq(r.type, "application/json");
    cJSON *job = cJSON_Parse(r.body);
    char id[64], path[512], want[256];
    snprintf(id, sizeof id, "%s", td_str(job, "id"));
    snprintf(want, sizeof want, "/api/v1/jobs/%s", id);
    ck_assert_str_eq(r.location, want);
    td_resp_free(&r);
    ck_assert_str_eq(td_str(job, "name"), "small");
    ck_assert(strlen(td_str(job, "created_at")) >= 20);
    const cJSON *links = cJSON_GetObjectItem(job, "links");
    snprintf(want, sizeof want, "ws://127.0.0.1:%d/api/v1/jobs/%s/stream", api.ws_port, id);
    ck_assert_str_eq(td_str(links, "stream"), want);
    snprintf(want, sizeof want, "/api/v1/jobs/%s/frames", id);
    ck_assert_str_eq(td_str(links, "frames"), want);
    /* the normalized document has the defaults filled in */
    const cJSON *solver = cJSON_GetObjectItem(cJSON_GetObjectItem(job, "job"), "solver");
    ck_assert(td_num(solver, "iterations") > 0);
    ck_assert_int_eq((long)td_num(cJSON_GetObjectItem(job, "progress"), "steps_total"), 40);
    cJSON_Delete(job);

    td_wait_status(&api, id, "succeeded", 60);
    job = td_job(&api, id);
    const cJSON *progress = cJSON_GetObjectItem(job, "progress");
    ck_assert_int_eq((long)td_num(progress, "step"), 40);
    ck_assert(td_num(progress, "fraction") == 1.0);
    ck_assert_int_ge((long)td_num(cJSON_GetObjectItem(job, "stats"), "particles"), 3);
    ck_assert(strlen(td_str(job, "started_at")) >= 20 && strlen(td_str(job, "finished_at")) >= 20);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(job, "error")));
    cJSON_Delete(job);

    /* frames: t = 0, 0.05, ..., 0.2 */
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames", id);
    cJSON *frames = td_get_json(&api, path, 200);
    ck_assert_int_eq((long)td_num(frames, "count"), 5);
    const cJSON *last = cJSON_GetArrayItem(cJSON_GetObjectItem(frames, "frames"), 4);
    ck_assert_int_eq((long)td_num(last, "step"), 40);
    long particles = (long)td_num(last, "particles");
    cJSON_Delete(frames);
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/0", id);
    cJSON *f0 = td_get_json(&api, path, 200);
    ck_assert_int_eq((long)td_num(f0, "index"), 0);
    ck_assert_int_eq((long)td_num(f0, "particles"), 3);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(f0, "positions")), 9);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(f0, "velocities")), 9);
    /* every particle of td_job_doc is of its only material; the plane stays put */
    const cJSON *mats = cJSON_GetObjectItem(f0, "materials");
    ck_assert_int_eq(cJSON_GetArraySize(mats), 3);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(cJSON_GetArrayItem(mats, i)->valueint, 0);
    const cJSON *geo = cJSON_GetArrayItem(cJSON_GetObjectItem(f0, "geometry"), 0);
    ck_assert_int_eq((long)td_num(geo, "index"), 0);
    const double plane[7] = {0, 0, 0, 1, 0, 0, 0};
    for (int k = 0; k < 7; k++)
        ck_assert_double_eq(
            cJSON_GetArrayItem(cJSON_GetObjectItem(geo, k < 3 ? "position" : "orientation"),
                               k < 3 ? k : k - 3)
                ->valuedouble,
            plane[k]);
    cJSON_Delete(f0);
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/latest", id);
    cJSON *fl = td_get_json(&api, path, 200);
    ck_assert_int_eq((long)td_num(fl, "index"), 4);
    cJSON_Delete(fl);
    r = td_http(&api, "GET", path, NULL, NULL, 0, "application/octet-stream");
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "application/octet-stream");
    /* every field: 12 words a particle, then the plane's pose */
    ck_assert_uint_eq(r.len, 48 + 48 * (size_t)particles + 8 + 64);
    ck_assert(!memcmp(r.body, "NDF1", 4));
    td_resp_free(&r);
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/5", id);
    r = td_http(&api, "GET", path, NULL, NULL, 0, NULL);
    expect_problem(&r, 404);
    td_resp_free(&r);

    /* series: one row per step, the command line's columns */
    snprintf(path, sizeof path, "/api/v1/jobs/%s/series", id);
    cJSON *series = td_get_json(&api, path, 200);
    ck_assert_int_eq((long)td_num(series, "count"), 40);
    const cJSON *cols = cJSON_GetObjectItem(series, "series");
    const char *need[] = {"step",        "time",       "kinetic_energy",
                          "contacts",    "iterations", "residual_normal",
                          "wall_seconds"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cols, need[i])), 40);
    ck_assert_int_eq((long)cJSON_GetArrayItem(cJSON_GetObjectItem(cols, "step"), 39)->valuedouble,
                     40);
    cJSON_Delete(series);
    r = td_http(&api, "GET", path, NULL, NULL, 0, "text/csv");
    ck_assert_int_eq(r.status, 200);
    ck_assert(!strncmp(r.body, "step,time,", 10));
    td_resp_free(&r);

    /* a finished job can be deleted, with its files */
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    r = td_http(&api, "DELETE", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 204);
    td_resp_free(&r);
    r = td_http(&api, "GET", path, NULL, NULL, 0, NULL);
    expect_problem(&r, 404);
    td_resp_free(&r);
    snprintf(path, sizeof path, "%s/var/jobs/%s", api.dir, id);
    struct stat st;
    ck_assert_int_ne(stat(path, &st), 0);
}
END_TEST

START_TEST(errors_are_problem_json)
{
    td_resp r = td_post_job(&api, "{\"scene\": {\"materials\": [");
    expect_problem(&r, 400);
    td_resp_free(&r);

    r = td_post_job(&api, "{\"scene\": {\"materials\": [{\"name\": \"ore\", \"densty\": 2500}], "
                          "\"particles\": [{\"type\": \"list\", \"material\": \"rock\", "
                          "\"spheres\": [[0, 0, 0, 0.01]]}]}, \"solver\": {\"time_step\": -1}}");
    expect_problem(&r, 422);
    cJSON *p = cJSON_Parse(r.body);
    td_resp_free(&r);
    int n = cJSON_GetArraySize(cJSON_GetObjectItem(p, "errors"));
    ck_assert_int_ge(n, 3);
    const char *want[] = {"/scene/materials/0/densty", "/scene/particles/0/material",
                          "/solver/time_step"};
    for (size_t w = 0; w < 3; w++) {
        int found = 0;
        for (int i = 0; i < n; i++) found |= !strcmp(pointer_of(p, i), want[w]);
        ck_assert_msg(found, "no error at %s", want[w]);
    }
    cJSON_Delete(p);

    /* a smooth-DEM field under NDEM: 422 at its pointer, saying what it needs */
    expect_one_error("{\"scene\": {\"materials\": [{\"name\": \"ore\"}], "
                     "\"contact_materials\": [{\"materials\": [\"ore\", \"ore\"], "
                     "\"hamaker\": 1e-19}]}}",
                     "/scene/contact_materials/0/hamaker", "needs \"method\": \"dem\"");

    /* a dynamic box over a plane under luding (no law for a body against
     * geometry): 422 at the body's "dynamic", not a failed run */
    expect_one_error("{\"scene\": {\"materials\": [{\"name\": \"ore\"}], \"geometry\": "
                     "[{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1]}, "
                     "{\"type\": \"box\", \"min\": [0, 0, 0.1], \"max\": [0.1, 0.1, 0.2], "
                     "\"dynamic\": {\"mass\": 1}}]}, \"solver\": {\"method\": \"dem\", "
                     "\"contact_model\": \"luding\"}}",
                     "/scene/geometry/1/dynamic", "can touch static geometry");

    /* a lattice packed closer than its spheres (the fuzzer's 96 s job):
     * 422 at its spacing, with the diameter it must reach */
    expect_one_error("{\"scene\": {\"materials\": [{\"name\": \"ore\"}], \"particles\": "
                     "[{\"type\": \"lattice\", \"min\": [0, 0, 0], \"max\": [0.3, 0.3, 0.3], "
                     "\"spacing\": 0.035, \"radius\": 1.015}]}}",
                     "/scene/particles/0/spacing", "largest diameter, 2.03 m");

    /* over the daemon's limits: particles (100) and duration (100 s) */
    char *doc = td_long_job_doc("big", 500, 0.02);
    r = td_post_job(&api, doc);
    free(doc);
    expect_problem(&r, 422);
    p = cJSON_Parse(r.body);
    ck_assert_str_eq(pointer_of(p, 0), "/scene/particles");
    ck_assert_str_eq(pointer_of(p, 1), "/solver/duration");
    cJSON_Delete(p);
    td_resp_free(&r);

    r = td_http(&api, "POST", "/api/v1/jobs", "text/plain", "{}", 2, NULL);
    expect_problem(&r, 415);
    td_resp_free(&r);

    size_t big = 100000;
    char *body = malloc(big);
    memset(body, ' ', big);
    body[0] = '{', body[big - 1] = '}';
    r = td_http(&api, "POST", "/api/v1/jobs", "application/json", body, big, NULL);
    expect_problem(&r, 413);
    td_resp_free(&r);
    /* chunked: refused at once, before any chunk is read (411) */
    struct curl_slist *hdrs;
    memset(&r, 0, sizeof r);
    CURL *c = td_easy(&api, &r, "POST", "/api/v1/jobs", NULL, body, big, NULL, &hdrs);
    curl_slist_append(hdrs, "Transfer-Encoding: chunked");
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    td_finish(c, &r);
    curl_easy_cleanup(c);
    curl_slist_free_all(hdrs);
    free(body);
    expect_problem(&r, 411);
    td_resp_free(&r);

    r = td_http(&api, "GET", "/api/v1/jobs/0123456789abcdef", NULL, NULL, 0, NULL);
    expect_problem(&r, 404);
    td_resp_free(&r);
    r = td_http(&api, "GET", "/api/v1/jobs/..%2F..%2Fetc/frames", NULL, NULL, 0, NULL);
    expect_problem(&r, 404);
    td_resp_free(&r);
    r = td_http(&api, "POST", "/api/v1/jobs/0123456789abcdef/cancel", NULL, NULL, 0, NULL);
    expect_problem(&r, 404);
    td_resp_free(&r);
    r = td_http(&api, "PUT", "/api/v1/jobs", NULL, NULL, 0, NULL);
    expect_problem(&r, 405);
    td_resp_free(&r);
    r = td_http(&api, "GET", "/api/v1/jobs?limit=0", NULL, NULL, 0, NULL);
    expect_problem(&r, 400);
    td_resp_free(&r);
    r = td_http(&api, "GET", "/api/v1/jobs?status=sleeping", NULL, NULL, 0, NULL);
    expect_problem(&r, 400);
    td_resp_free(&r);
    r = td_http(&api, "GET", "/../../etc/passwd", NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 404);
    td_resp_free(&r);

    /* a job that is not finished cannot be deleted */
    char id[64], path[128];
    doc = td_job_doc("busy", 90, 1);
    td_submit(&api, doc, id);
    free(doc);
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    r = td_http(&api, "DELETE", path, NULL, NULL, 0, NULL);
    expect_problem(&r, 409);
    td_resp_free(&r);
    snprintf(path, sizeof path, "/api/v1/jobs/%s/cancel", id);
    r = td_http(&api, "POST", path, NULL, NULL, 0, NULL);
    ck_assert(r.status == 200 || r.status == 202);
    td_resp_free(&r);
    td_wait_status(&api, id, "cancelled", 30);
    r = td_http(&api, "POST", path, NULL, NULL, 0, NULL);
    expect_problem(&r, 409);
    td_resp_free(&r);
}
END_TEST

START_TEST(engine_error_fails_the_job)
{
    char id[64];
    td_submit(&api,
              "{\"name\": \"escape\", \"scene\": {\"materials\": [{\"name\": \"ore\", "
              "\"density\": 2500, \"young_modulus\": 1e7}], \"geometry\": [{\"type\": "
              "\"box\", \"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2], \"inside\": true}], "
              "\"particles\": [{\"type\": \"list\", \"spheres\": [[0.1, 0.1, 0.1, 0.01]], "
              "\"velocities\": [[0, 0, 1e9]]}]}, \"solver\": {\"time_step\": 0.001, "
              "\"duration\": 0.01}}",
              id);
    td_wait_status(&api, id, "failed", 60);
    cJSON *o = td_job(&api, id);
    const char *error = td_str(o, "error");
    ck_assert_msg(strstr(error, "step 1") && strstr(error, "left the scene"), "error: %s", error);
    ck_assert(strlen(td_str(o, "finished_at")) >= 20);
    cJSON_Delete(o);
}
END_TEST

START_TEST(listing_pages_newest_first)
{
    char ids[5][64];
    for (int i = 0; i < 5; i++) {
        char *doc = td_job_doc("list", 0.01, 0.01);
        td_submit(&api, doc, ids[i]);
        free(doc);
    }
    for (int i = 0; i < 5; i++) td_wait_status(&api, ids[i], "succeeded", 60);
    /* pages of two, newest first, with the cursor */
    char path[256] = "/api/v1/jobs?status=succeeded&limit=2";
    int seen = 0;
    for (int page = 0; page < 10 && path[0]; page++) {
        cJSON *o = td_get_json(&api, path, 200);
        const cJSON *jobs = cJSON_GetObjectItem(o, "jobs"), *j;
        ck_assert_int_le(cJSON_GetArraySize(jobs), 2);
        cJSON_ArrayForEach(j, jobs)
        {
            ck_assert_str_eq(td_str(j, "status"), "succeeded");
            if (seen < 5) ck_assert_str_eq(td_str(j, "id"), ids[4 - seen]);
            seen++;
        }
        const cJSON *next = cJSON_GetObjectItem(o, "next_cursor");
        if (cJSON_IsString(next))
            snprintf(path, sizeof path, "/api/v1/jobs?status=succeeded&limit=2&cursor=%s",
                     next->valuestring);
        else path[0] = 0;
        cJSON_Delete(o);
    }
    ck_assert_int_ge(seen, 5);

    /* summaries by default: the resource without its document; view=full
     * adds the document GET /jobs/{id} shows; other views are refused */
    const char *fields[] = {"id",          "name",     "status", "created_at", "started_at",
                            "finished_at", "progress", "stats",  "error",      "links"};
    cJSON *sum = td_get_json(&api, "/api/v1/jobs?status=succeeded&limit=1", 200);
    cJSON *full = td_get_json(&api, "/api/v1/jobs?status=succeeded&limit=1&view=full", 200);
    const cJSON *js = cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "jobs"), 0);
    const cJSON *jf = cJSON_GetArrayItem(cJSON_GetObjectItem(full, "jobs"), 0);
    ck_assert_str_eq(td_str(js, "id"), ids[4]);
    ck_assert_str_eq(td_str(jf, "id"), ids[4]);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        ck_assert_msg(cJSON_HasObjectItem(js, fields[i]), "summary lacks %s", fields[i]);
        ck_assert_msg(cJSON_HasObjectItem(jf, fields[i]), "full view lacks %s", fields[i]);
    }
    ck_assert(!cJSON_HasObjectItem(js, "job"));
    ck_assert(!cJSON_HasObjectItem(js, "shapes")); /* built from the document: full view only */
    cJSON *one = td_job(&api, ids[4]);
    ck_assert(cJSON_IsObject(cJSON_GetObjectItem(jf, "job")));
    ck_assert(cJSON_Compare(cJSON_GetObjectItem(jf, "job"), cJSON_GetObjectItem(one, "job"), 1));
    /* spheres: no shape templates (docs/shapes.md, "Output") */
    ck_assert(cJSON_IsArray(cJSON_GetObjectItem(one, "shapes")));
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(one, "shapes")), 0);
    ck_assert(
        cJSON_Compare(cJSON_GetObjectItem(jf, "shapes"), cJSON_GetObjectItem(one, "shapes"), 1));
    cJSON_Delete(one);
    cJSON_Delete(sum);
    cJSON_Delete(full);
    sum = td_get_json(&api, "/api/v1/jobs?limit=1&view=summary", 200);
    ck_assert(!cJSON_HasObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "jobs"), 0), "job"));
    cJSON_Delete(sum);
    td_resp r = td_http(&api, "GET", "/api/v1/jobs?view=everything", NULL, NULL, 0, NULL);
    expect_problem(&r, 400);
    ck_assert_msg(strstr(r.body, "view must be summary or full"), "%s", r.body);
    td_resp_free(&r);
}
END_TEST

START_TEST(service_routes)
{
    cJSON *h = td_get_json(&api, "/health", 200);
    ck_assert_str_eq(td_str(h, "status"), "ok");
    ck_assert(td_num(h, "queue_depth") >= 0);
    cJSON_Delete(h);
    cJSON *o = td_get_json(&api, "/openapi.json", 200);
    ck_assert(!strncmp(td_str(o, "openapi"), "3.", 2));
    const cJSON *paths = cJSON_GetObjectItem(o, "paths");
    const char *want[] = {"/api/v1/jobs",
                          "/api/v1/jobs/{id}",
                          "/api/v1/jobs/{id}/cancel",
                          "/api/v1/jobs/{id}/frames",
                          "/api/v1/jobs/{id}/frames/{n}",
                          "/api/v1/jobs/{id}/series",
                          "/api/v1/jobs/{id}/archive",
                          "/api/v1/sweeps",
                          "/api/v1/sweeps/{id}",
                          "/api/v1/sweeps/{id}/cancel",
                          "/api/v1/sweeps/{id}/results",
                          "/health",
                          "/metrics"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(cJSON_GetObjectItem(paths, want[i]) != NULL, "openapi lacks %s", want[i]);
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "components"), "schemas"));
    cJSON_Delete(o);
    td_resp r = td_http(&api, "GET", "/metrics", NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    const char *metrics[] = {"ndem_jobs{status=\"queued\"}", "ndem_jobs{status=\"succeeded\"}",
                             "ndem_queue_depth", "ndem_steps_per_second", "ndem_stream_clients"};
    for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
        ck_assert_msg(strstr(r.body, metrics[i]) != NULL, "metrics lack %s", metrics[i]);
    td_resp_free(&r);
    r = td_http(&api, "GET", "/", NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert(strstr(r.type, "text/html") != NULL); /* the placeholder: no web/ yet */
    td_resp_free(&r);
}
END_TEST

/* Static files of --web: served with their type, nothing outside it. */
START_TEST(static_files_stay_inside_web)
{
    char path[512], target[512];
    snprintf(path, sizeof path, "%s/web", api.dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/web/index.html", api.dir);
    ndem_test_write_file(path, "<p>viewer</p>");
    snprintf(path, sizeof path, "%s/web/app.js", api.dir);
    ndem_test_write_file(path, "console.log(1);");
    snprintf(path, sizeof path, "%s/secret.txt", api.dir);
    ndem_test_write_file(path, "secret");
    snprintf(target, sizeof target, "%s/secret.txt", api.dir);
    snprintf(path, sizeof path, "%s/web/link.txt", api.dir);
    ck_assert_int_eq(symlink(target, path), 0);
    td_resp r = td_http(&api, "GET", "/", NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "<p>viewer</p>");
    td_resp_free(&r);
    r = td_http(&api, "GET", "/app.js", NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "text/javascript");
    td_resp_free(&r);
    const char *bad[] = {"/link.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/.hidden"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = td_http(&api, "GET", bad[i], NULL, NULL, 0, NULL);
        ck_assert_msg(r.status == 404, "%s: %ld", bad[i], r.status);
        ck_assert(!r.body || strcmp(r.body, "secret"));
        td_resp_free(&r);
    }
    r = td_http(&api, "HEAD", "/health", NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    td_resp_free(&r);
}
END_TEST

/* ---- the queue ---- */

START_TEST(concurrent_submissions_each_run_once)
{
    enum { N = 200 };
    td_daemon d;
    td_start(&d, "--workers", "2", "--max-queued", "100000", "--threads", "1", (char *)NULL);
    char *doc = td_job_doc("swarm", 0.01, 0.01);
    CURLM *multi = curl_multi_init();
    static td_resp resp[N];
    CURL *easy[N];
    struct curl_slist *hdrs[N];
    for (int i = 0; i < N; i++) {
        memset(&resp[i], 0, sizeof resp[i]);
        easy[i] =
            td_easy(&d, &resp[i], "POST", "/api/v1/jobs", NULL, doc, strlen(doc), NULL, &hdrs[i]);
        curl_multi_add_handle(multi, easy[i]);
    }
    int running = 1;
    double end = td_now() + 60;
    while (running && td_now() < end) {
        curl_multi_perform(multi, &running);
        if (running) curl_multi_poll(multi, NULL, 0, 100, NULL);
    }
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(multi, &left)))
        if (msg->msg == CURLMSG_DONE && msg->data.result != CURLE_OK)
            fprintf(stderr, "submission failed: %s\n", curl_easy_strerror(msg->data.result));
    char(*ids)[64] = calloc(N, 64);
    for (int i = 0; i < N; i++) {
        td_finish(easy[i], &resp[i]);
        ck_assert_msg(resp[i].status == 201, "submission %d: %ld", i, resp[i].status);
        cJSON *o = cJSON_Parse(resp[i].body);
        snprintf(ids[i], 64, "%s", td_str(o, "id"));
        cJSON_Delete(o);
        for (int k = 0; k < i; k++) ck_assert_str_ne(ids[i], ids[k]);
        curl_multi_remove_handle(multi, easy[i]);
        curl_easy_cleanup(easy[i]);
        curl_slist_free_all(hdrs[i]);
        td_resp_free(&resp[i]);
    }
    curl_multi_cleanup(multi);
    free(doc);
    /* all run, each exactly once */
    end = td_now() + 120;
    long done = 0;
    while (done < N) {
        cJSON *o = td_get_json(&d, "/api/v1/jobs?status=succeeded&limit=1000", 200);
        done = cJSON_GetArraySize(cJSON_GetObjectItem(o, "jobs"));
        cJSON_Delete(o);
        ck_assert_msg(td_now() < end, "only %ld of %d jobs succeeded in time", done, N);
        if (done < N) td_sleep(0.2);
    }
    for (int i = 0; i < N; i++) {
        cJSON *o = td_job(&d, ids[i]);
        ck_assert_int_eq((long)td_num(o, "attempts"), 1);
        cJSON_Delete(o);
        char needle[128];
        snprintf(needle, sizeof needle, "job %s: running", ids[i]);
        ck_assert_int_eq(td_log_count(&d, needle), 1);
    }
    free(ids);
    td_stop(&d);
}
END_TEST

START_TEST(cancel_queued_and_running)
{
    td_daemon d;
    td_start(&d, "--workers", "1", "--max-queued", "2", (char *)NULL);
    char a[64], b[64], c[64], path[128];
    char *doc = td_long_job_doc("long", 60, 0.02);
    td_submit(&d, doc, a);
    free(doc);
    doc = td_job_doc("waiting", 0.2, 0.05);
    td_submit(&d, doc, b);
    free(doc);
    td_wait_step(&d, a, 3, 30);
    /* b and c wait behind a; the queue (--max-queued 2) is full */
    doc = td_job_doc("also waiting", 0.05, 0.05);
    td_submit(&d, doc, c);
    td_resp full = td_post_job(&d, doc);
    free(doc);
    expect_problem(&full, 503);
    td_resp_free(&full);
    /* b is cancelled at once */
    snprintf(path, sizeof path, "/api/v1/jobs/%s/cancel", b);
    td_resp r = td_http(&d, "POST", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    cJSON *o = cJSON_Parse(r.body);
    ck_assert_str_eq(td_str(o, "status"), "cancelled");
    cJSON_Delete(o);
    td_resp_free(&r);
    /* a is running: it stops within a step */
    snprintf(path, sizeof path, "/api/v1/jobs/%s/cancel", a);
    double t0 = td_now();
    r = td_http(&d, "POST", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 202);
    td_resp_free(&r);
    td_wait_status(&d, a, "cancelled", 10);
    ck_assert(td_now() - t0 < 5);
    o = td_job(&d, a);
    const cJSON *p = cJSON_GetObjectItem(o, "progress");
    ck_assert(td_num(p, "step") < td_num(p, "steps_total"));
    ck_assert(td_num(p, "step") >= 3);
    cJSON_Delete(o);
    /* b never ran */
    o = td_job(&d, b);
    ck_assert_int_eq((long)td_num(o, "attempts"), 0);
    cJSON_Delete(o);
    td_stop(&d);
}
END_TEST

static int run_ndemd(const char *env, const char *args, const char *out)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s '%s' %s > '%s' 2>&1", env, td_bin(), args, out);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
    size_t len;
    char *text = ndem_read_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    return text;
}

START_TEST(help_and_bad_options)
{
    char dir[] = "/tmp/ndemd-help-XXXXXX", out[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    td_track_dir(dir, 1); /* removed at exit if a check fails */
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(run_ndemd("", "--help", out), 0);
    char *help = slurp(out);
    const char *want[] = {"--listen",        "--data",         "--workers",
                          "--threads",       "--ws-listen",    "--max-body",
                          "--max-particles", "--max-queued",   "--checkpoint-interval",
                          "NDEM_LISTEN",     "NDEM_DATA",      "NDEM_WORKERS",
                          "NDEM_THREADS",    "127.0.0.1:8080", "./var"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(help, want[i]) != NULL, "--help does not mention %s", want[i]);
    free(help);
    ck_assert_int_eq(run_ndemd("", "--workers 0", out), 2);
    help = slurp(out);
    ck_assert_msg(strstr(help, "--workers") != NULL, "%s", help);
    free(help);
    ck_assert_int_eq(run_ndemd("NDEM_THREADS=many", "", out), 2);
    help = slurp(out);
    ck_assert_msg(strstr(help, "NDEM_THREADS") != NULL, "%s", help);
    free(help);
    ck_assert_int_eq(run_ndemd("", "--no-such-option", out), 2);
    ck_assert_int_eq(run_ndemd("", "--listen nowhere", out), 2);
    unlink(out);
    rmdir(dir);
    td_track_dir(dir, 0);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("api");
    tcase_add_unchecked_fixture(tc, api_start, api_stop);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, job_runs_and_serves_frames_and_series);
    tcase_add_test(tc, errors_are_problem_json);
    tcase_add_test(tc, engine_error_fails_the_job);
    tcase_add_test(tc, listing_pages_newest_first);
    tcase_add_test(tc, service_routes);
    tcase_add_test(tc, static_files_stay_inside_web);
    suite_add_tcase(s, tc);
    tc = tcase_create("program");
    tcase_add_test(tc, help_and_bad_options);
    suite_add_tcase(s, tc);
    tc = tcase_create("queue");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, concurrent_submissions_each_run_once);
    tcase_add_test(tc, cancel_queued_and_running);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = ndem_test_run_suite(api_suite());
    rc = td_exit_code(rc);
    curl_global_cleanup();
    return rc;
}
