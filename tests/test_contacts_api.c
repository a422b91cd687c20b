/* test_contacts_api.c - the daemon's contact networks (issue 16): a job
 * with output.contacts stores an NDC1 record beside every frame, served at
 * GET /api/v1/jobs/{id}/frames/{n}/contacts as the sealed record (count and
 * weights as statics says), as CSV and as JSON; a damaged record is a 500,
 * never 200; a job without the option, a frame that does not exist and an
 * unknown format are answered with problems; --max-output counts the
 * contacts at submission; a Slurm daemon refuses the option; a job killed
 * and resumed stores the contacts of an uninterrupted run. */
#include "contact_bin.h"
#include "daemon.h"
#include "job.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>

static td_daemon api;
static char budget[32];

/* Three spheres (r 0.01 m, 2500 kg/m^3) stacked on a plane; frames at 0,
 * 0.1 and 0.2 s. */
static char *column_doc(int contacts)
{
    static const char fmt[] =
        "{\"name\": \"column\", \"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, "
        "\"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1]}], \"particles\": [{\"type\": \"list\", \"spheres\": [[0, 0, "
        "0.0099999, 0.01], [0, 0, 0.0299997, 0.01], [0, 0, 0.0499995, 0.01]]}]}, \"solver\": "
        "{\"time_step\": 0.001, \"duration\": 0.2}, \"output\": {\"frame_interval\": 0.1, "
        "\"contacts\": %s}}";
    size_t n = sizeof fmt + 8;
    char *s = malloc(n);
    snprintf(s, n, fmt, contacts ? "true" : "false");
    return s;
}

static double estimate(int contacts)
{
    char *doc = column_doc(contacts);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(doc, strlen(doc), &job, &e), NDEM_JOB_OK);
    double b = ndem_job_output_estimate(job);
    ndem_job_destroy(job);
    free(doc);
    return b;
}

static void api_start(void) { td_start(&api, "--workers", "1", (char *)NULL); }

static void api_stop(void) { td_stop_status(&api); }

static void expect_problem(td_resp *r, long status, const char *detail)
{
    ck_assert_msg(r->status == status, "status %ld, wanted %ld: %s", r->status, status,
                  r->body ? r->body : "");
    ck_assert_str_eq(r->type, "application/problem+json");
    cJSON *o = cJSON_Parse(r->body);
    ck_assert_ptr_nonnull(o);
    ck_assert_msg(strstr(td_str(o, "detail"), detail) != NULL, "detail: %s", td_str(o, "detail"));
    cJSON_Delete(o);
}

static td_resp get(const char *id, const char *rest)
{
    char path[200];
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/%s", id, rest);
    return td_http(&api, "GET", path, NULL, NULL, 0, NULL);
}

START_TEST(contacts_are_stored_and_served)
{
    char id[64];
    char *doc = column_doc(1);
    td_submit(&api, doc, id);
    free(doc);
    td_wait_status(&api, id, "succeeded", 120);

    /* the record of frame 2: sealed, three contacts, 48 + 64 n bytes */
    td_resp r = get(id, "2/contacts");
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "application/octet-stream");
    ck_assert_uint_eq(r.len, 48 + 64 * 3);
    char why[128] = "";
    ck_assert_msg(ndem_contact_bin_check(r.body, r.len, why, sizeof why) == 0, "%s", why);
    ndem_contact_set s;
    long index = -1;
    ck_assert_int_eq(ndem_contact_bin_decode(r.body, r.len, &s, &index), 0);
    td_resp_free(&r);
    ck_assert_int_eq(index, 2);
    ck_assert_int_eq(s.count, 3);
    ck_assert_int_eq(s.step, 200);
    /* the floor carries all three weights, the middle contact two, the top one */
    const double mg = 2500 * 4.0 / 3.0 * M_PI * 1e-6 * 9.81;
    int seen = 0;
    for (long k = 0; k < s.count; k++) {
        long lo = s.b[k] < 0 ? -1 : (s.a[k] < s.b[k] ? s.a[k] : s.b[k]);
        double want = (lo < 0 ? 3 : lo == 0 ? 2 : 1) * mg;
        ck_assert_double_lt(fabs(s.normal_forces[k] - want), 0.005 * want);
        seen |= 1 << (lo + 1);
    }
    ck_assert_int_eq(seen, 7);
    ndem_contact_set_free(&s);

    /* frame 0 is the state before any step: a record of no contacts */
    r = get(id, "0/contacts");
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(r.len, 48);
    ck_assert(!memcmp(r.body, "NDC1", 4));
    td_resp_free(&r);

    r = get(id, "latest/contacts?format=json");
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "application/json");
    cJSON *o = cJSON_Parse(r.body);
    td_resp_free(&r);
    ck_assert_int_eq((long)td_num(o, "index"), 2);
    ck_assert_int_eq((long)td_num(o, "contacts"), 3);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "normals")), 9);
    cJSON_Delete(o);

    r = get(id, "1/contacts?format=csv");
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "text/csv");
    ck_assert(!strncmp(r.body, "a,b,feature,px,py,pz,", 21));
    long lines = 0;
    for (size_t i = 0; i < r.len; i++) lines += r.body[i] == '\n';
    ck_assert_int_eq(lines, 4);
    td_resp_free(&r);

    r = get(id, "1/contacts?format=vtp");
    expect_problem(&r, 400, "format must be ndc, csv or json, not 'vtp'");
    td_resp_free(&r);
    r = get(id, "3/contacts");
    expect_problem(&r, 404, "has no frame 3");
    td_resp_free(&r);

    /* one flipped byte in the stored record: 500, never the bytes */
    char path[512];
    snprintf(path, sizeof path, "%s/var/jobs/%s/contacts/000001.ndc", api.dir, id);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 60, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 60, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
    r = get(id, "1/contacts");
    expect_problem(&r, 500, "fails its length or checksum check");
    td_resp_free(&r);
    r = get(id, "1/contacts?format=csv");
    expect_problem(&r, 500, "damaged");
    td_resp_free(&r);
    ck_assert_int_eq(unlink(path), 0); /* gone: 500 too */
    r = get(id, "1/contacts");
    expect_problem(&r, 500, "missing (their file is gone)");
    td_resp_free(&r);
}
END_TEST

START_TEST(no_contacts_without_the_option)
{
    char id[64];
    char *doc = column_doc(0);
    td_submit(&api, doc, id);
    free(doc);
    td_wait_status(&api, id, "succeeded", 120);
    td_resp r = get(id, "1/contacts");
    expect_problem(&r, 404, "did not set output.contacts");
    td_resp_free(&r);
    /* the frame itself is there */
    r = get(id, "1");
    ck_assert_int_eq(r.status, 200);
    td_resp_free(&r);
    char dir[512];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/var/jobs/%s/contacts", api.dir, id);
    ck_assert_int_ne(stat(dir, &st), 0);
    r = get("0123456789abcdef", "0/contacts");
    expect_problem(&r, 404, "no job with id");
    td_resp_free(&r);
    /* the route is described */
    cJSON *o = td_get_json(&api, "/openapi.json", 200);
    const cJSON *paths = cJSON_GetObjectItem(o, "paths");
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(paths, "/api/v1/jobs/{id}/frames/{n}/contacts"));
    cJSON_Delete(o);
}
END_TEST

/* A daemon whose budget lies between the column's estimates without and
 * with contacts: with them the job is refused at submission, at
 * /output/frame_interval, naming the option; without them it is taken. */
START_TEST(max_output_counts_contacts)
{
    double off = estimate(0), on = estimate(1);
    ck_assert_double_gt(on, off);
    snprintf(budget, sizeof budget, "%.0f", 0.5 * (on + off));
    td_daemon lim = {0};
    td_start(&lim, "--workers", "1", "--max-output", budget, (char *)NULL);
    char *doc = column_doc(1);
    td_resp r = td_post_job(&lim, doc);
    free(doc);
    ck_assert_msg(r.status == 422, "status %ld: %s", r.status, r.body ? r.body : "");
    ck_assert_ptr_nonnull(strstr(r.body, "/output/frame_interval"));
    ck_assert_ptr_nonnull(strstr(r.body, "output.contacts false"));
    td_resp_free(&r);
    doc = column_doc(0);
    r = td_post_job(&lim, doc);
    free(doc);
    ck_assert_msg(r.status == 201, "status %ld: %s", r.status, r.body ? r.body : "");
    td_resp_free(&r);
    td_stop(&lim);
}
END_TEST

/* Slurm runs report no contact networks: such a daemon refuses the option
 * at submission, at its pointer, rather than losing the contacts. */
START_TEST(slurm_executor_refuses_contacts)
{
    td_daemon sl = {0};
    td_start(&sl, "--executor", "slurm", "--slurm-bin", "/nonexistent", (char *)NULL);
    char *doc = column_doc(1);
    td_resp r = td_post_job(&sl, doc);
    free(doc);
    ck_assert_msg(r.status == 422, "status %ld: %s", r.status, r.body ? r.body : "");
    cJSON *o = cJSON_Parse(r.body);
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "errors"), 0);
    ck_assert_str_eq(td_str(e, "pointer"), "/output/contacts");
    ck_assert_ptr_nonnull(strstr(td_str(e, "message"), "--executor slurm"));
    cJSON_Delete(o);
    td_resp_free(&r);
    td_stop(&sl);
}
END_TEST

/* Killed (SIGKILL) between two checkpoints and resumed: every frame's
 * contact network equals an uninterrupted run's, bit for bit (the resume
 * cuts the records past its checkpoint back with the frames). */
START_TEST(kill9_resume_keeps_the_contacts)
{
    td_daemon d;
    td_start(&d, "--workers", "1", "--checkpoint-interval", "0.5", "--progress-interval", "0.05",
             (char *)NULL);
    char *plain = td_long_job_doc("crash", 1.5, 0.05);
    char *at = strstr(plain, "\"output\": {\"frame_interval\": 0.05}");
    ck_assert_ptr_nonnull(at);
    size_t n = strlen(plain) + 32;
    char *doc = malloc(n);
    snprintf(doc, n, "%.*s\"output\": {\"frame_interval\": 0.05, \"contacts\": true}}",
             (int)(at - plain), plain);
    free(plain);
    char a[64], b[64], ckpt[400];
    td_submit(&d, doc, a);
    cJSON *o = td_job(&d, a);
    long total = (long)td_num(cJSON_GetObjectItem(o, "progress"), "steps_total");
    cJSON_Delete(o);
    td_wait_step(&d, a, total / 3, 60);
    snprintf(ckpt, sizeof ckpt, "%s/var/jobs/%s/checkpoint.ndck", d.dir, a);
    struct stat st;
    double end = td_now() + 20;
    while (stat(ckpt, &st)) {
        ck_assert_msg(td_now() < end, "no checkpoint written");
        td_sleep(0.02);
    }
    struct timespec first = st.st_mtim;
    while (!stat(ckpt, &st) && st.st_mtim.tv_sec == first.tv_sec &&
           st.st_mtim.tv_nsec == first.tv_nsec) {
        ck_assert_msg(td_now() < end, "no second checkpoint written");
        td_sleep(0.01);
    }
    td_sleep(0.25);
    td_signal(&d, SIGKILL, 5);
    td_spawn(&d);
    td_wait_status(&d, a, "succeeded", 120);
    char needle[128];
    snprintf(needle, sizeof needle, "job %s: resumed from its checkpoint", a);
    ck_assert_int_eq(td_log_count(&d, needle), 1);
    td_submit(&d, doc, b);
    free(doc);
    td_wait_status(&d, b, "succeeded", 120);
    char path[200];
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames", a);
    o = td_get_json(&d, path, 200);
    long frames = (long)td_num(o, "count");
    cJSON_Delete(o);
    ck_assert_int_eq(frames, 31);
    long touching = 0;
    for (long i = 0; i < frames; i++) {
        char rest[32];
        snprintf(rest, sizeof rest, "%ld/contacts", i);
        char p1[200], p2[200];
        snprintf(p1, sizeof p1, "/api/v1/jobs/%s/frames/%s", a, rest);
        snprintf(p2, sizeof p2, "/api/v1/jobs/%s/frames/%s", b, rest);
        td_resp ra = td_http(&d, "GET", p1, NULL, NULL, 0, NULL);
        td_resp rb = td_http(&d, "GET", p2, NULL, NULL, 0, NULL);
        ck_assert_int_eq(ra.status, 200);
        ck_assert_int_eq(rb.status, 200);
        ck_assert_msg(ra.len == rb.len && !memcmp(ra.body, rb.body, ra.len),
                      "the contacts of frame %ld differ from the uninterrupted run", i);
        touching += (long)(ra.len - 48) / 64;
        td_resp_free(&ra);
        td_resp_free(&rb);
    }
    ck_assert_int_gt(touching, 1000); /* the bed rests on its box and on itself */
    td_stop(&d);
}
END_TEST

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    Suite *s = suite_create("contacts_api");
    TCase *tc = tcase_create("routes");
    tcase_add_unchecked_fixture(tc, api_start, api_stop);
    tcase_add_test(tc, contacts_are_stored_and_served);
    tcase_add_test(tc, no_contacts_without_the_option);
    tcase_add_test(tc, max_output_counts_contacts);
    tcase_add_test(tc, slurm_executor_refuses_contacts);
    tcase_add_test(tc, kill9_resume_keeps_the_contacts);
    suite_add_tcase(s, tc);
    int rc = td_exit_code(ndem_test_run_suite(s));
    curl_global_cleanup();
    return rc;
}
