/* test_cores.c - ndemd's thread budget (--cores, issue 15): the running
 * jobs share the cores, each getting cores / running jobs threads (the
 * remainder to the first workers, never more than the job asks for), set
 * anew at every step boundary; /health shows each worker's current threads
 * and the log says every change. A job's results do not depend on its
 * thread count: one that ran beside another, then alone, ends with the
 * frames and series of the same job run alone, bit for bit. Loops run
 * threaded at test size (NDEM_PARALLEL_MIN=1), so the split is real. */
#include "daemon.h"
#include "testutil.h"

/* Waits (bounded) until /health shows `want` busy workers whose threads
 * are threads[0..want) in worker order; fails with what it saw last. */
static void wait_threads(const td_daemon *d, int want, const int *threads, double timeout)
{
    double end = td_now() + timeout;
    char seen[256] = "nothing";
    for (;;) {
        cJSON *h = td_get_json(d, "/health", 200);
        const cJSON *w;
        int busy = 0, match = 1;
        size_t at = 0;
        seen[0] = 0;
        cJSON_ArrayForEach(w, cJSON_GetObjectItem(h, "worker_states"))
        {
            int t = (int)td_num(w, "threads");
            if (!cJSON_IsString(cJSON_GetObjectItem(w, "job"))) continue;
            if (busy >= want || t != threads[busy]) match = 0;
            busy++;
            at += (size_t)snprintf(seen + at, sizeof seen - at, "%s%d", at ? " " : "", t);
        }
        cJSON_Delete(h);
        if (busy == want && match) return;
        ck_assert_msg(td_now() < end,
                      "/health never showed %d busy worker(s) with the budget's "
                      "threads (last seen: [%s])",
                      want, seen);
        td_sleep(0.02);
    }
}

static int has_line(const td_daemon *d, const char *id, const char *what)
{
    char needle[200];
    snprintf(needle, sizeof needle, "job %s: %s", id, what);
    return td_log_count(d, needle) > 0;
}

START_TEST(two_jobs_share_the_cores_and_keep_their_results)
{
    td_daemon d;
    td_start(&d, "--workers", "2", "--cores", "2", "--threads", "2", "--progress-interval", "0.05",
             (char *)NULL);
    ck_assert_int_eq(td_log_count(&d, "at most 2 core(s) / running jobs (--cores)"), 1);
    /* a alone; then c and b at once, c four times as long: it ends alone. c
     * goes first: a submission can take a second on a loaded disk, and c
     * still runs when b starts */
    char *shrt = td_long_job_doc("short", 0.4, 0.02), *full = td_long_job_doc("full", 1.6, 0.08);
    char a[64], b[64], c[64];
    td_submit(&d, full, a);
    const int two[] = {2};
    wait_threads(&d, 1, two, 60);
    td_wait_status(&d, a, "succeeded", 120);
    ck_assert(has_line(&d, a, "2 thread(s) per step (1 running job(s) share 2 core(s))"));
    ck_assert(!has_line(&d, a, "1 thread(s) per step"));
    /* both workers idle, so that b and c start together */
    wait_threads(&d, 0, NULL, 60);
    td_submit(&d, full, c);
    td_submit(&d, shrt, b);
    const int ones[] = {1, 1};
    wait_threads(&d, 2, ones, 60);
    td_wait_status(&d, b, "succeeded", 120);
    td_wait_status(&d, c, "succeeded", 120);
    ck_assert(has_line(&d, b, "1 thread(s) per step (2 running job(s) share 2 core(s))"));
    ck_assert(has_line(&d, c, "1 thread(s) per step (2 running job(s) share 2 core(s))"));
    /* b ended first: c took its core for the rest of its steps */
    ck_assert(has_line(&d, c, "2 thread(s) per step (1 running job(s) share 2 core(s))"));
    td_same_output(&d, c, a);
    cJSON *h = td_get_json(&d, "/health", 200);
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(h, "worker_states"))
        ck_assert_int_eq((long)td_num(w, "threads"), 0); /* idle */
    cJSON_Delete(h);
    free(shrt);
    free(full);
    td_stop(&d);
}
END_TEST

/* --cores 3 over two jobs: 2 and 1 threads; a job that asks for fewer
 * threads than its share (solver.threads) keeps to them. */
START_TEST(the_remainder_goes_to_the_first_worker_and_a_job_keeps_its_own_limit)
{
    td_daemon d;
    td_start(&d, "--workers", "2", "--cores", "3", "--progress-interval", "0.05", (char *)NULL);
    char *own = td_long_job_doc("own", 0.4, 0.1); /* solver.threads 1 */
    char *any = td_long_job_doc("any", 1.6, 0.4);
    char *p = strstr(any, "\"threads\": 1");
    ck_assert_ptr_nonnull(p);
    p[11] = '0'; /* "threads": 0: any number */
    char a[64], b[64];
    td_submit(&d, any, a);
    const int three[] = {3};
    wait_threads(&d, 1, three, 60);
    td_submit(&d, any, b);
    const int split[] = {2, 1};
    wait_threads(&d, 2, split, 60);
    td_wait_status(&d, a, "succeeded", 120);
    td_wait_status(&d, b, "succeeded", 120);
    ck_assert(has_line(&d, a, "3 thread(s) per step (1 running job(s) share 3 core(s))"));
    /* whichever job the first worker runs gets the third core */
    ck_assert_int_eq(td_log_count(&d, "2 thread(s) per step (2 running job(s) share 3 core(s))"),
                     1);
    ck_assert_int_eq(td_log_count(&d, "1 thread(s) per step (2 running job(s) share 3 core(s))"),
                     1);
    td_submit(&d, own, a);
    const int one[] = {1};
    wait_threads(&d, 1, one, 60);
    td_wait_status(&d, a, "succeeded", 120);
    ck_assert(has_line(&d, a, "1 thread(s) per step (1 running job(s) share 3 core(s))"));
    free(own);
    free(any);
    td_stop(&d);
}
END_TEST

static Suite *cores_suite(void)
{
    Suite *s = suite_create("cores");
    TCase *tc = tcase_create("budget");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, two_jobs_share_the_cores_and_keep_their_results);
    tcase_add_test(tc, the_remainder_goes_to_the_first_worker_and_a_job_keeps_its_own_limit);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    setenv("NDEM_PARALLEL_MIN", "1", 1); /* every loop threaded, in the daemons too */
    int rc = td_exit_code(ndem_test_run_suite(cores_suite()));
    curl_global_cleanup();
    return rc;
}
