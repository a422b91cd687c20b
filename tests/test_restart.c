/* test_restart.c - nothing lost when ndemd stops (issue 3): a daemon killed
 * with SIGKILL mid-job, or stopped with SIGTERM, resumes the job from its
 * checkpoint and ends with exactly the frames and series of an uninterrupted
 * run; a checkpoint of the previous format restarts the job from step 0. */
#include "crc32c.h"
#include "daemon.h"
#include "job.h"
#include "testutil.h"

static long steps_total_of(const td_daemon *d, const char *id)
{
    cJSON *o = td_job(d, id);
    long n = (long)td_num(cJSON_GetObjectItem(o, "progress"), "steps_total");
    cJSON_Delete(o);
    return n;
}

START_TEST(kill9_resumes_to_the_uninterrupted_result)
{
    td_daemon d;
    td_start(&d, "--workers", "1", "--checkpoint-interval", "0.5", "--progress-interval", "0.05",
             (char *)NULL);
    char a[64], b[64], ckpt[400];
    char *doc = td_long_job_doc("crash", 3.0, 0.05);
    td_submit(&d, doc, a);
    long total = steps_total_of(&d, a);
    td_wait_step(&d, a, total / 3, 60);
    snprintf(ckpt, sizeof ckpt, "%s/var/jobs/%s/checkpoint.ndck", d.dir, a);
    struct stat st;
    double end = td_now() + 20;
    while (stat(ckpt, &st)) {
        ck_assert_msg(td_now() < end, "no checkpoint written");
        td_sleep(0.02);
    }
    /* kill half-way between two checkpoints, so that frames and rows past the
     * last checkpoint are on disk and the resume has to cut them back */
    struct timespec first = st.st_mtim;
    while (!stat(ckpt, &st) && st.st_mtim.tv_sec == first.tv_sec &&
           st.st_mtim.tv_nsec == first.tv_nsec) {
        ck_assert_msg(td_now() < end, "no second checkpoint written");
        td_sleep(0.01);
    }
    td_sleep(0.25);
    td_signal(&d, SIGKILL, 5);
    /* the rows on disk now: the resume must cut those past its checkpoint */
    char series[400];
    snprintf(series, sizeof series, "%s/var/jobs/%s/series.csv", d.dir, a);
    long rows_at_kill = td_count_lines(series) - 1;
    td_spawn(&d);
    td_wait_status(&d, a, "succeeded", 90);
    cJSON *o = td_job(&d, a);
    ck_assert_int_eq((long)td_num(o, "attempts"), 2);
    cJSON_Delete(o);
    char needle[128];
    snprintf(needle, sizeof needle, "job %s: resumed from its checkpoint", a);
    ck_assert_int_eq(td_log_count(&d, needle), 1);
    long resumed_at = td_log_number(&d, needle, " at step ");
    ck_assert_int_gt(resumed_at, 0);
    ck_assert_msg(rows_at_kill > resumed_at, "%ld rows at the kill, checkpoint at step %ld",
                  rows_at_kill, resumed_at);
    ck_assert_int_ne(stat(ckpt, &st), 0); /* a finished job keeps no checkpoint */
    td_submit(&d, doc, b);
    free(doc);
    td_wait_status(&d, b, "succeeded", 90);
    td_same_output(&d, a, b);
    td_stop(&d);
}
END_TEST

/* A checkpoint of an engine format this build no longer reads (version 2;
 * it reads 5, 4 and 3) cannot be restored: the daemon says so, starts the job from zero and
 * ends with the output of an uninterrupted run; the job is not lost. */
START_TEST(previous_checkpoint_version_restarts_from_zero)
{
    td_daemon d;
    td_start(&d, "--workers", "1", "--checkpoint-interval", "0.3", "--progress-interval", "0.05",
             (char *)NULL);
    char a[64], b[64], ckpt[400];
    char *doc = td_long_job_doc("old-checkpoint", 2.0, 0.05);
    td_submit(&d, doc, a);
    td_wait_step(&d, a, steps_total_of(&d, a) / 3, 60);
    snprintf(ckpt, sizeof ckpt, "%s/var/jobs/%s/checkpoint.ndck", d.dir, a);
    struct stat st;
    double end = td_now() + 20;
    while (stat(ckpt, &st) || st.st_size < 64) {
        ck_assert_msg(td_now() < end, "no checkpoint written");
        td_sleep(0.02);
    }
    td_signal(&d, SIGKILL, 5);
    /* An engine state of a format this build no longer reads (2; formats 3
     * to 6, the ones before the current 7, still restore) inside a file that
     * verifies: the engine's version word sits after the daemon's 56-byte
     * header (server/store_check.c) and the engine buffer's 8-byte magic;
     * the daemon's CRC-32C (header offset 48, over the header with that field
     * 0, then the state) is sealed again so only the version is old. */
    FILE *f = fopen(ckpt, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_gt(n, 64 + 8);
    unsigned char *buf = malloc((size_t)n);
    ck_assert_int_eq(fseek(f, 0, SEEK_SET), 0);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    uint32_t version, previous = 2;
    memcpy(&version, buf + 56 + 8, 4);
    ck_assert_uint_eq(version, 9); /* the current format */
    memcpy(buf + 56 + 8, &previous, 4);
    memset(buf + 48, 0, 4);
    uint32_t crc = ndem_crc32c(ndem_crc32c(0, buf, 56), buf + 56, (size_t)n - 56);
    for (int i = 0; i < 4; i++) buf[48 + i] = (unsigned char)(crc >> (8 * i));
    ck_assert_int_eq(fseek(f, 0, SEEK_SET), 0);
    ck_assert_int_eq(fwrite(buf, 1, (size_t)n, f), (size_t)n);
    free(buf);
    ck_assert_int_eq(fclose(f), 0);
    td_spawn(&d);
    td_wait_status(&d, a, "succeeded", 90);
    char needle[160];
    snprintf(needle, sizeof needle, "job %s: checkpoint not usable (checkpoint version 2", a);
    ck_assert_int_eq(td_log_count(&d, needle), 1);
    snprintf(needle, sizeof needle, "job %s: resumed from its checkpoint", a);
    ck_assert_int_eq(td_log_count(&d, needle), 0);
    td_submit(&d, doc, b);
    free(doc);
    td_wait_status(&d, b, "succeeded", 90);
    td_same_output(&d, a, b);
    td_stop(&d);
}
END_TEST

START_TEST(sigterm_checkpoints_and_resumes)
{
    td_daemon d;
    td_start(&d, "--workers", "1", "--checkpoint-interval", "60", (char *)NULL);
    char a[64], b[64];
    char *doc = td_long_job_doc("stop", 0.6, 0.02);
    td_submit(&d, doc, a);
    td_wait_step(&d, a, steps_total_of(&d, a) / 3, 60);
    double t0 = td_now();
    int st = td_signal(&d, SIGTERM, 10);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "ndemd did not exit cleanly");
    ck_assert(td_now() - t0 < 5);
    /* files of a job whose delete was interrupted (its tombstone written)
     * are swept at start-up */
    char orphan[400], tomb[500];
    snprintf(orphan, sizeof orphan, "%s/var/jobs/00000000deadbeef", d.dir);
    ck_assert_int_eq(mkdir(orphan, 0755), 0);
    snprintf(tomb, sizeof tomb, "%s/.deleted", orphan);
    fclose(fopen(tomb, "w"));
    td_spawn(&d);
    struct stat sb;
    ck_assert_int_ne(stat(orphan, &sb), 0);
    td_wait_status(&d, a, "succeeded", 90);
    cJSON *o = td_job(&d, a);
    ck_assert_int_eq((long)td_num(o, "attempts"), 2);
    cJSON_Delete(o);
    char needle[128];
    snprintf(needle, sizeof needle, "job %s: resumed from its checkpoint", a);
    ck_assert_int_eq(td_log_count(&d, needle), 1);
    td_submit(&d, doc, b);
    free(doc);
    td_wait_status(&d, b, "succeeded", 90);
    td_same_output(&d, a, b);
    td_stop(&d);
}
END_TEST

/* ---- the program ---- */

static Suite *restart_suite(void)
{
    Suite *s = suite_create("restart");
    TCase *tc = tcase_create("restart");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, kill9_resumes_to_the_uninterrupted_result);
    tcase_add_test(tc, sigterm_checkpoints_and_resumes);
    tcase_add_test(tc, previous_checkpoint_version_restarts_from_zero);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = ndem_test_run_suite(restart_suite());
    rc = td_exit_code(rc);
    curl_global_cleanup();
    return rc;
}
