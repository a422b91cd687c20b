/* test_recovery.c - ndemd keeps every job through bad input, hung or
 * crashing jobs and a lost or damaged database (issue 12, items 1 and 6),
 * against the real daemon:
 *   - an output.frame_interval below the time step is a 422 with its
 *     pointer (1e-300 used to spin a worker forever);
 *   - a running job is cancelled within about a second, and SIGTERM stops
 *     the daemon within a few seconds while a job runs;
 *   - a job found running at start-up --max-attempts times (kill -9 each
 *     time) fails with a clear error instead of going back to the queue;
 *   - /health lists the workers and reports one stuck when its job makes
 *     no step for longer than --stuck-after;
 *   - an emptied (truncate -s 0) or damaged (random bytes) ndem.db stops
 *     the start with a message, leaves every job file in place, and
 *     `--recover` brings the jobs back with their statuses and frames;
 *   - start-up removes only directories a DELETE tombstoned, and completes
 *     job directories that lack job.json and status.json;
 *   - `--recover` keeps sweeps: the sweep resource, its results and each
 *     job's sweep are the same after the index is rebuilt, also for a job
 *     whose directory an older ndemd left without sweep.json (issue 16);
 *   - SIGTERM with a step that outlasts --stop-timeout exits anyway, and
 *     the job counts as interrupted at the next start. */
#include "daemon.h"
#include "job.h"
#include "testutil.h"

#include <dirent.h>

static void path_in(const td_daemon *d, char *buf, size_t len, const char *fmt, const char *id)
{
    char rel[300];
    snprintf(rel, sizeof rel, fmt, id);
    snprintf(buf, len, "%s/var/%s", d->dir, rel);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Runs ndemd on d's directory (d must be stopped) with one extra option
 * (or NULL), expecting it to refuse to start; its exit status. */
static int start_refused(td_daemon *d, const char *extra)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "timeout 60 '%s' --listen 127.0.0.1:%d --data '%s/var' --web '%s/web' %s >> '%s' "
             "2>&1",
             td_bin(), d->port, d->dir, d->dir, extra ? extra : "", d->log);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Restarts d with --recover added for this start only. */
static void spawn_recover(td_daemon *d)
{
    d->args[d->nargs++] = "--recover";
    td_spawn(d);
    d->nargs--;
}

static long frame_count(const td_daemon *d, const char *id)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames", id);
    cJSON *o = td_get_json(d, path, 200);
    long n = (long)td_num(o, "count");
    cJSON_Delete(o);
    return n;
}

static char *status_of(const td_daemon *d, const char *id, char *buf, size_t len)
{
    cJSON *o = td_job(d, id);
    snprintf(buf, len, "%s", td_str(o, "status"));
    cJSON_Delete(o);
    return buf;
}

/* ---- item 1 ---- */

START_TEST(frame_interval_below_the_step_is_refused)
{
    td_daemon d;
    td_start(&d, (char *)NULL);
    const double bad[] = {1e-300, 0.004}; /* the time step of td_job_doc is 0.005 */
    for (int i = 0; i < 2; i++) {
        char *doc = td_job_doc("tiny-frames", 0.1, bad[i]);
        td_resp r = td_post_job(&d, doc);
        free(doc);
        ck_assert_msg(r.status == 422, "frame_interval %g: %ld %s", bad[i], r.status, r.body);
        cJSON *o = cJSON_Parse(r.body);
        const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "errors"), 0);
        ck_assert_str_eq(td_str(e, "pointer"), "/output/frame_interval");
        ck_assert_msg(strstr(td_str(e, "message"), "time step") != NULL, "%s",
                      td_str(e, "message"));
        cJSON_Delete(o);
        td_resp_free(&r);
    }
    /* exactly one step is fine: a frame every step */
    char id[64];
    char *doc = td_job_doc("step-frames", 0.05, 0.005);
    td_submit(&d, doc, id);
    free(doc);
    td_wait_status(&d, id, "succeeded", 60);
    ck_assert_int_eq(frame_count(&d, id), 11); /* t = 0 and 10 steps */
    td_stop(&d);
}
END_TEST

START_TEST(cancel_and_sigterm_reach_a_running_job)
{
    td_daemon d;
    /* an endless job: its output would pass the default budget, so none */
    td_start(&d, "--workers", "1", "--checkpoint-interval", "60", "--max-output", "0",
             (char *)NULL);
    char a[64], b[64];
    char *doc = td_long_job_doc("endless", 1000, 0.002);
    td_submit(&d, doc, a);
    td_wait_step(&d, a, 5, 60);
    char path[128];
    snprintf(path, sizeof path, "/api/v1/jobs/%s/cancel", a);
    double t0 = td_now();
    td_resp r = td_http(&d, "POST", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 202);
    td_resp_free(&r);
    td_wait_status(&d, a, "cancelled", 5);
    ck_assert_msg(td_now() - t0 < 2.0, "cancel took %.2f s", td_now() - t0);
    /* a cancelled job is finished: DELETE works and removes its files */
    snprintf(path, sizeof path, "/api/v1/jobs/%s", a);
    r = td_http(&d, "DELETE", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 204);
    td_resp_free(&r);
    char dir[600];
    path_in(&d, dir, sizeof dir, "jobs/%s", a);
    ck_assert(!exists(dir));
    /* SIGTERM while a job runs: the daemon is gone within a few seconds */
    td_submit(&d, doc, b);
    free(doc);
    td_wait_step(&d, b, 5, 60);
    t0 = td_now();
    int st = td_signal(&d, SIGTERM, 10);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "ndemd did not exit cleanly");
    ck_assert_msg(td_now() - t0 < 5, "SIGTERM took %.2f s", td_now() - t0);
    char status[32];
    td_spawn(&d);
    ck_assert(!strcmp(status_of(&d, b, status, sizeof status), "queued") ||
              !strcmp(status, "running"));
    td_stop(&d);
}
END_TEST

START_TEST(poison_job_fails_after_max_attempts)
{
    td_daemon d;
    td_start(&d, "--workers", "1", "--max-attempts", "2", (char *)NULL);
    char a[64];
    char *doc = td_long_job_doc("crasher", 1000, 0.05);
    td_submit(&d, doc, a);
    free(doc);
    /* two crashes while it runs: the first requeues it, the second fails it */
    for (int crash = 1; crash <= 2; crash++) {
        td_wait_step(&d, a, 3, 60);
        td_signal(&d, SIGKILL, 5);
        td_spawn(&d);
    }
    cJSON *o = td_job(&d, a);
    ck_assert_str_eq(td_str(o, "status"), "failed");
    ck_assert_str_eq(td_str(o, "error"),
                     "interrupted 2 times while running (crash or restart); not retried");
    ck_assert_int_eq((long)td_num(o, "attempts"), 2);
    cJSON_Delete(o);
    /* its directory says so too (what --recover would rebuild from) */
    char path[600];
    path_in(&d, path, sizeof path, "jobs/%s/status.json", a);
    size_t len;
    char *text = ndem_read_file(path, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "\"status\":\t\"failed\"") != NULL, "%s", text);
    free(text);
    /* it stays failed: nothing runs after one more restart */
    ck_assert_int_eq(td_signal(&d, SIGTERM, 10), 0);
    td_spawn(&d);
    o = td_job(&d, a);
    ck_assert_str_eq(td_str(o, "status"), "failed");
    cJSON_Delete(o);
    cJSON *h = td_get_json(&d, "/health", 200);
    ck_assert_int_eq((long)td_num(h, "running"), 0);
    cJSON_Delete(h);
    td_stop(&d);
}
END_TEST

START_TEST(health_reports_a_stuck_worker)
{
    td_daemon d;
    /* a scene whose steps take far longer than 0.05 s under the sanitizers */
    td_start(&d, "--workers", "1", "--stuck-after", "0.05", "--progress-interval", "0.05",
             "--stop-timeout", "0.1", (char *)NULL);
    cJSON *h = td_get_json(&d, "/health", 200);
    ck_assert_str_eq(td_str(h, "status"), "ok");
    ck_assert_int_eq((long)td_num(h, "stuck_workers"), 0);
    const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(h, "worker_states"), 0);
    ck_assert_ptr_nonnull(w);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(w, "job")));
    cJSON_Delete(h);
    static const char big[] =
        "{\"name\": \"slow\", \"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": "
        "2500, \"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"box\", \"min\": [0, 0, 0], "
        "\"max\": [1, 1, 1], \"inside\": true}], \"particles\": [{\"type\": \"lattice\", "
        "\"min\": [0.01, 0.01, 0.01], \"max\": [0.99, 0.99, 0.99], \"spacing\": 0.021, "
        "\"count\": 60000, \"radius\": 0.01}]}, \"solver\": {\"time_step\": 0.001, "
        "\"duration\": 10, \"iterations\": 1000, \"threads\": 1}}";
    char a[64];
    td_submit(&d, big, a);
    td_wait_step(&d, a, 1, 120); /* in a step now, not in the scene's set-up */
    double end = td_now() + 60;
    int seen = 0;
    while (!seen && td_now() < end) {
        td_resp r = td_http(&d, "GET", "/health", NULL, NULL, 0, NULL);
        cJSON *o = r.body ? cJSON_Parse(r.body) : NULL;
        if (o && !strcmp(td_str(o, "status"), "stuck")) {
            ck_assert_int_eq(r.status, 503);
            ck_assert_int_eq((long)td_num(o, "stuck_workers"), 1);
            const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "worker_states"), 0);
            ck_assert_str_eq(td_str(s, "job"), a);
            ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(s, "stuck")));
            ck_assert(td_num(s, "seconds_since_step") > 0.05);
            seen = 1;
        }
        cJSON_Delete(o);
        td_resp_free(&r);
        td_sleep(0.02);
    }
    ck_assert_msg(seen, "/health never reported the worker stuck");
    /* SIGTERM in the middle of a step of seconds: the daemon does not wait
     * past --stop-timeout, and the job counts as interrupted next time */
    cJSON *j = td_job(&d, a);
    long step0 = (long)td_num(cJSON_GetObjectItem(j, "progress"), "step");
    cJSON_Delete(j);
    double t0 = td_now();
    int st = td_signal(&d, SIGTERM, 10);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
    ck_assert_msg(td_now() - t0 < 5, "SIGTERM took %.2f s", td_now() - t0);
    char needle[128];
    snprintf(needle, sizeof needle, "job %s did not stop within 0.1 s", a);
    ck_assert_int_eq(td_log_count(&d, needle), 1);
    td_spawn(&d);
    ck_assert_int_eq(td_log_count(&d, "recovery: 1 interrupted job(s) back in the queue"), 1);
    /* the resumed job is again in a step of seconds (past the step it had
     * reached, so past its set-up, which a stop request ends cleanly):
     * the same deliberate exit 1 */
    td_wait_step(&d, a, step0 + 1, 180);
    st = td_signal(&d, SIGTERM, 10);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
    td_stop(&d); /* no sanitizer report in the log, directory removed */
}
END_TEST

/* ---- item 6 ---- */

/* Two jobs: a finished one (with frames) and one still running, then a
 * clean stop. */
static void two_jobs(td_daemon *d, char *done, char *running, long *frames)
{
    td_start(d, "--workers", "1", (char *)NULL);
    char *doc = td_job_doc("finished", 0.2, 0.05);
    td_submit(d, doc, done);
    free(doc);
    td_wait_status(d, done, "succeeded", 60);
    *frames = frame_count(d, done);
    ck_assert_int_eq(*frames, 5);
    doc = td_long_job_doc("long", 1000, 0.05);
    td_submit(d, doc, running);
    free(doc);
    td_wait_step(d, running, 3, 60);
    ck_assert_int_eq(td_signal(d, SIGTERM, 10), 0);
}

static void expect_both_back(td_daemon *d, const char *done, const char *running, long frames)
{
    char status[32];
    ck_assert_str_eq(status_of(d, done, status, sizeof status), "succeeded");
    ck_assert_int_eq(frame_count(d, done), frames);
    status_of(d, running, status, sizeof status);
    ck_assert_msg(!strcmp(status, "queued") || !strcmp(status, "running"), "%s", status);
    /* the damaged file was kept aside */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls '%s'/var/ndem.db.damaged-* > /dev/null 2>&1", d->dir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(emptied_database_refuses_then_recovers)
{
    td_daemon d;
    char done[64], running[64], path[600];
    long frames;
    two_jobs(&d, done, running, &frames);
    path_in(&d, path, sizeof path, "%s", "ndem.db");
    ck_assert_int_eq(truncate(path, 0), 0);
    ck_assert_int_eq(start_refused(&d, NULL), 1);
    ck_assert_int_eq(td_log_count(&d, "the job database was lost"), 1);
    ck_assert_int_eq(td_log_count(&d, "--recover"), 1);
    /* nothing was touched: both directories are there */
    path_in(&d, path, sizeof path, "jobs/%s/frames/000004.ndf", done);
    ck_assert_msg(exists(path), "%s is gone", path);
    path_in(&d, path, sizeof path, "jobs/%s/job.json", running);
    ck_assert_msg(exists(path), "%s is gone", path);
    spawn_recover(&d);
    expect_both_back(&d, done, running, frames);
    td_stop(&d);
}
END_TEST

START_TEST(damaged_database_refuses_then_recovers)
{
    td_daemon d;
    char done[64], running[64], path[600];
    long frames;
    two_jobs(&d, done, running, &frames);
    path_in(&d, path, sizeof path, "%s", "ndem.db");
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_gt(st.st_size, 8192);
    /* random bytes over every page but the first (the tables' b-trees) */
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 4096, SEEK_SET);
    unsigned int seed = 12;
    for (long i = 4096; i < st.st_size; i++) fputc(rand_r(&seed) & 0xff, f);
    fclose(f);
    ck_assert_int_eq(start_refused(&d, NULL), 1);
    ck_assert_int_eq(td_log_count(&d, "ndem.db is damaged (PRAGMA quick_check"), 1);
    ck_assert_int_eq(td_log_count(&d, "start once with --recover"), 1);
    ck_assert_int_eq(td_log_count(&d, "Success"), 0); /* no errno after an SQLite error */
    spawn_recover(&d);
    expect_both_back(&d, done, running, frames);
    td_stop(&d);
}
END_TEST

static cJSON *get_path(const td_daemon *d, const char *fmt, const char *id)
{
    char path[160];
    snprintf(path, sizeof path, fmt, id);
    return td_get_json(d, path, 200);
}

/* --recover keeps sweeps (issue 16): a sweep of two jobs, both finished, is
 * the same resource after the index is rebuilt (mode, parameters, created_at,
 * owner, its jobs with their places, values and statuses), its results
 * list both, and each job still names its sweep. */
START_TEST(recover_keeps_sweep_membership)
{
    td_daemon d;
    td_start(&d, "--workers", "1", (char *)NULL);
    char *base = td_job_doc("swept", 0.1, 0.05), body[4096];
    snprintf(body, sizeof body,
             "{\"base\": %s, \"parameters\": [{\"pointer\": \"/solver/duration\", "
             "\"values\": [0.1, 0.15]}], \"mode\": \"product\"}",
             base);
    free(base);
    td_resp r = td_http(&d, "POST", "/api/v1/sweeps", "application/json", body, strlen(body), NULL);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    cJSON *sweep = cJSON_Parse(r.body);
    td_resp_free(&r);
    char sid[64], jid[2][64];
    snprintf(sid, sizeof sid, "%s", td_str(sweep, "id"));
    cJSON_Delete(sweep);
    sweep = get_path(&d, "/api/v1/sweeps/%s", sid);
    for (int i = 0; i < 2; i++) {
        const cJSON *j = cJSON_GetArrayItem(cJSON_GetObjectItem(sweep, "jobs"), i);
        snprintf(jid[i], sizeof jid[i], "%s", td_str(j, "id"));
        td_wait_status(&d, jid[i], "succeeded", 120);
    }
    cJSON_Delete(sweep);
    sweep = get_path(&d, "/api/v1/sweeps/%s", sid);
    cJSON *results = get_path(&d, "/api/v1/sweeps/%s/results", sid), *member[2];
    for (int i = 0; i < 2; i++) {
        cJSON *job = get_path(&d, "/api/v1/jobs/%s", jid[i]);
        member[i] = cJSON_DetachItemFromObject(job, "sweep");
        ck_assert_int_eq((long)td_num(member[i], "index"), i);
        cJSON_Delete(job);
    }
    /* the first job's directory as an older ndemd left it (no sweep.json,
     * no sweep in status.json): the next start completes it */
    ck_assert_int_eq(td_signal(&d, SIGTERM, 30), 0);
    char path[600];
    path_in(&d, path, sizeof path, "jobs/%s/sweep.json", jid[0]);
    ck_assert_int_eq(unlink(path), 0);
    path_in(&d, path, sizeof path, "jobs/%s/status.json", jid[0]);
    size_t len;
    char *text = ndem_read_file(path, &len);
    cJSON *status = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(status, "sweep"));
    cJSON_DeleteItemFromObject(status, "sweep");
    text = cJSON_Print(status);
    cJSON_Delete(status);
    FILE *f = fopen(path, "w");
    ck_assert(f && fputs(text, f) >= 0 && fclose(f) == 0);
    free(text);
    td_spawn(&d);
    ck_assert_int_eq(td_log_count(&d, "wrote the sweep's record for 1 older sweep job"), 1);
    ck_assert_int_eq(td_signal(&d, SIGTERM, 30), 0);
    path_in(&d, path, sizeof path, "%s", "ndem.db");
    ck_assert_int_eq(truncate(path, 0), 0);
    spawn_recover(&d);
    cJSON *got = get_path(&d, "/api/v1/sweeps/%s", sid);
    char *want_s = cJSON_PrintUnformatted(sweep), *got_s = cJSON_PrintUnformatted(got);
    ck_assert_msg(cJSON_Compare(got, sweep, 1), "sweep after --recover:\n%.1500s\nbefore:\n%.1500s",
                  got_s, want_s);
    free(want_s);
    free(got_s);
    cJSON_Delete(got);
    got = get_path(&d, "/api/v1/sweeps/%s/results", sid);
    ck_assert(cJSON_Compare(got, results, 1));
    cJSON_Delete(got);
    for (int i = 0; i < 2; i++) {
        cJSON *job = get_path(&d, "/api/v1/jobs/%s", jid[i]);
        ck_assert_msg(cJSON_Compare(cJSON_GetObjectItem(job, "sweep"), member[i], 1),
                      "job %d: sweep %s", i,
                      cJSON_PrintUnformatted(cJSON_GetObjectItem(job, "sweep")));
        cJSON_Delete(job);
        cJSON_Delete(member[i]);
    }
    cJSON *list = get_path(&d, "/api/v1/sweeps%s", "");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(list, "sweeps")), 1);
    cJSON_Delete(list);
    cJSON_Delete(sweep);
    cJSON_Delete(results);
    td_stop(&d);
}
END_TEST

START_TEST(only_tombstoned_directories_are_swept)
{
    td_daemon d;
    td_start(&d, "--workers", "1", (char *)NULL);
    char a[64], b[64], path[600];
    char *doc = td_job_doc("keep", 0.05, 0.05);
    td_submit(&d, doc, a);
    td_submit(&d, doc, b);
    free(doc);
    td_wait_status(&d, a, "succeeded", 60);
    td_wait_status(&d, b, "succeeded", 60);
    snprintf(path, sizeof path, "/api/v1/jobs/%s", b);
    td_resp r = td_http(&d, "DELETE", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 204);
    td_resp_free(&r);
    ck_assert_int_eq(td_signal(&d, SIGTERM, 10), 0);
    /* a delete interrupted after its tombstone: swept; a directory the
     * database does not know, without a tombstone: kept; a tombstone on a
     * job still in the database (the delete never happened): cleared */
    char gone[600], unknown[600], mark[700];
    path_in(&d, gone, sizeof gone, "jobs/%s", "00000000deadbeef");
    path_in(&d, unknown, sizeof unknown, "jobs/%s", "00000000cafef00d");
    ck_assert_int_eq(mkdir(gone, 0755), 0);
    ck_assert_int_eq(mkdir(unknown, 0755), 0);
    snprintf(mark, sizeof mark, "%s/.deleted", gone);
    fclose(fopen(mark, "w"));
    path_in(&d, path, sizeof path, "jobs/%s/.deleted", a);
    fclose(fopen(path, "w"));
    /* a directory from before job.json and status.json: start-up writes them */
    char doc_path[600], status_path[600];
    path_in(&d, doc_path, sizeof doc_path, "jobs/%s/job.json", a);
    path_in(&d, status_path, sizeof status_path, "jobs/%s/status.json", a);
    ck_assert_int_eq(unlink(doc_path), 0);
    ck_assert_int_eq(unlink(status_path), 0);
    td_spawn(&d);
    ck_assert_msg(exists(doc_path) && exists(status_path), "job.json, status.json not rewritten");
    ck_assert_msg(!exists(gone), "the tombstoned directory is still there");
    ck_assert_msg(exists(unknown), "an untombstoned directory was removed");
    ck_assert_msg(!exists(path), "the stale tombstone is still there");
    char status[32];
    ck_assert_str_eq(status_of(&d, a, status, sizeof status), "succeeded");
    path_in(&d, path, sizeof path, "jobs/%s/frames/000001.ndf", a);
    ck_assert(exists(path));
    r = td_http(&d, "GET", "/api/v1/jobs/00000000cafef00d", NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 404);
    td_resp_free(&r);
    /* a job whose directory was lost can still be deleted */
    char cmd[700];
    path_in(&d, path, sizeof path, "jobs/%s", a);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "/api/v1/jobs/%s", a);
    r = td_http(&d, "DELETE", cmd, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 204);
    td_resp_free(&r);
    ck_assert(!exists(path));
    td_stop(&d);
}
END_TEST

static Suite *recovery_suite(void)
{
    Suite *s = suite_create("recovery");
    TCase *tc = tcase_create("jobs");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, frame_interval_below_the_step_is_refused);
    tcase_add_test(tc, cancel_and_sigterm_reach_a_running_job);
    tcase_add_test(tc, poison_job_fails_after_max_attempts);
    tcase_add_test(tc, health_reports_a_stuck_worker);
    suite_add_tcase(s, tc);
    tc = tcase_create("database");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, emptied_database_refuses_then_recovers);
    tcase_add_test(tc, damaged_database_refuses_then_recovers);
    tcase_add_test(tc, only_tombstoned_directories_are_swept);
    tcase_add_test(tc, recover_keeps_sweep_membership);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = ndem_test_run_suite(recovery_suite());
    td_kill_children();
    curl_global_cleanup();
    return rc;
}
