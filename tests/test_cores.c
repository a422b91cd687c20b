/* test_cores.c - ndemd's thread budget (--cores, issue 15): the running
 * jobs share the cores, each getting cores / running jobs threads (the
 * remainder to the first workers, never more than the job asks for), set
 * anew at every step boundary; /health shows each worker's current threads
 * and the log says every change. A job's results do not depend on its
 * thread count: one that ran beside another, then alone, ends with the
 * frames and series of the same job run alone, bit for bit. Loops run
 * threaded at test size (NDEM_PARALLEL_MIN=1), so the split is real.
 *
 * Other processes' load (--adapt-load, server/load.c): the cores that they
 * keep busy are left to them. The arithmetic is checked on fixed texts of
 * /proc/stat; a real daemon beside a real busy process gives it a core and
 * takes it back. Those cases use --adapt-load 0 that test the budget alone,
 * so that the load of the machine running the tests does not change it. */
#define _GNU_SOURCE /* sched_setaffinity */
#include "daemon.h"
#include "load.h"
#include "testutil.h"

#include <sched.h>

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
             "--adapt-load", "0", (char *)NULL);
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
    td_start(&d, "--workers", "2", "--cores", "3", "--progress-interval", "0.05", "--adapt-load",
             "0", (char *)NULL);
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

/* Three CPUs' lines as /proc/stat has them: user nice system idle iowait
 * irq softirq steal guest guest_nice. */
static const char stat_text[] = "cpu  600 60 300 9000 90 6 3 30 0 0\n"
                                "cpu0 100 10 50 3000 30 1 1 10 7 0\n"
                                "cpu1 200 20 100 3000 30 2 1 10 0 0\n"
                                "cpu2 300 30 150 3000 30 3 1 10 0 0\n"
                                "intr 12345 0 0\n"
                                "ctxt 999\n"
                                "procs_running 3\n";

START_TEST(the_busy_time_of_our_cpus_is_read_from_proc_stat)
{
    unsigned char on[8] = {1, 0, 1}; /* cpu0 and cpu2, not cpu1 nor the sum line */
    unsigned long long busy = 0;
    ck_assert_int_eq(ndem_load_parse(stat_text, on, 8, &busy), 0);
    /* user + nice + system + irq + softirq + steal (guest is in user) */
    ck_assert_uint_eq(busy, (100 + 10 + 50 + 1 + 1 + 10) + (300 + 30 + 150 + 3 + 1 + 10));
    unsigned char none[8] = {0, 0, 0, 1};
    ck_assert_int_eq(ndem_load_parse(stat_text, none, 8, &busy), -1);
    ck_assert_int_eq(ndem_load_parse("", on, 8, &busy), -1);
}
END_TEST

START_TEST(whole_cores_are_left_to_others_past_a_band_around_the_halves)
{
    ck_assert_int_eq(ndem_load_round(0, 0.0), 0);
    ck_assert_int_eq(ndem_load_round(0, 0.55), 0);
    /* one busy process beside two spinning threads of ours: 2/3 of a core */
    ck_assert_int_eq(ndem_load_round(0, 0.67), 1);
    ck_assert_int_eq(ndem_load_round(1, 0.45), 1); /* kept while near the half */
    ck_assert_int_eq(ndem_load_round(1, 0.39), 0);
    ck_assert_int_eq(ndem_load_round(0, 2.7), 3);
    ck_assert_int_eq(ndem_load_round(3, 0.2), 0);
    ck_assert_int_eq(ndem_load_round(2, 1.45), 2);
    ck_assert_int_eq(ndem_load_round(2, 2.55), 2);
    ck_assert_int_eq(ndem_load_round(2, 2.61), 3);
}
END_TEST

/* Readings of a stat file that the test writes: a jump of others' busy
 * time leaves them cores (all but one), its end gives them back, and no
 * file at all means no outside load, whatever came before. */
START_TEST(readings_follow_the_busy_time_and_a_missing_file_is_no_load)
{
    char path[] = "/tmp/ndem-stat-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ndem_test_write_file(path, stat_text);
    ndem_load l;
    ndem_load_init(&l, path);
    memset(l.on, 0, sizeof l.on);
    l.on[0] = l.on[1] = l.on[2] = 1, l.cpus = 3;
    ck_assert_int_eq(ndem_load_update(&l, 0), 0); /* the baseline */
    ck_assert(l.readable);
    /* 100 s of CPU time on cpu1 in well under the 10 s it would take */
    ndem_test_write_file(path, "cpu0 100 10 50 3000 30 1 1 10 7 0\n"
                               "cpu1 10200 20 100 3000 30 2 1 10 0 0\n"
                               "cpu2 300 30 150 3000 30 3 1 10 0 0\n");
    td_sleep(0.05);
    ck_assert_int_eq(ndem_load_update(&l, 0), 1);
    ck_assert_double_gt(l.outside, 10);
    ck_assert_int_eq(l.taken, 2);                  /* one core stays ours */
    ck_assert_int_eq(ndem_load_update(&l, 60), 0); /* not read again before the interval */
    td_sleep(0.05);
    ck_assert_int_eq(ndem_load_update(&l, 0), 1); /* no change in the file: no load */
    ck_assert_double_lt(l.outside, 0.4);
    ck_assert_int_eq(l.taken, 0);
    ndem_test_write_file(path, "cpu0 100 10 50 3000 30 1 1 10 7 0\n"
                               "cpu1 20200 20 100 3000 30 2 1 10 0 0\n");
    td_sleep(0.05);
    ck_assert_int_eq(ndem_load_update(&l, 0), 1);
    ck_assert_int_eq(l.taken, 2);
    unlink(path);
    ck_assert_int_eq(ndem_load_update(&l, 0), 1); /* taken back: the static budget */
    ck_assert(!l.readable);
    ck_assert_int_eq(l.taken, 0);
    ck_assert_int_eq(ndem_load_update(&l, 0), 0);
    ndem_load_init(&l, "/nonexistent/proc/stat");
    ck_assert_int_eq(ndem_load_update(&l, 0), 0);
    ck_assert(!l.readable);
    ck_assert_int_eq(l.taken, 0);
}
END_TEST

/* A child that keeps one core busy until killed (or for two minutes at
 * most, should the test die first). */
static pid_t start_busy_process(void)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(120);
        for (volatile unsigned long i = 0;; i++) continue;
    }
    td_track(pid, 1); /* killed at exit if the test fails first */
    return pid;
}

/* /health of a daemon running one job: its threads, and the cores
 * section's reading. 0 when no job runs. */
static int job_threads(const td_daemon *d, double *outside, long *left)
{
    cJSON *h = td_get_json(d, "/health", 200);
    const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(h, "worker_states"), 0);
    int threads = cJSON_IsString(cJSON_GetObjectItem(w, "job")) ? (int)td_num(w, "threads") : 0;
    const cJSON *c = cJSON_GetObjectItem(h, "cores");
    ck_assert_msg(cJSON_IsTrue(cJSON_GetObjectItem(c, "adapting")), "/health: not adapting");
    *outside = td_num(c, "outside_load");
    *left = (long)td_num(c, "left_to_others");
    ck_assert_int_eq((long)td_num(c, "cpus"), 2);
    /* the reading and the cores left are one snapshot: past the band */
    if (*left > 0) ck_assert_double_gt(*outside, *left - 0.6);
    else ck_assert_double_lt(*outside, 0.6);
    cJSON_Delete(h);
    return threads;
}

/* ndemd and a busy process on the same two CPUs: the job drops to one
 * thread while the process runs, and takes its second thread back once the
 * daemon reads the core free again. The machine running the test may be
 * busy with other work too: then the daemon must keep the core left for as
 * long as its readings say so, which is what is checked. The job ends with
 * the output of the same job run before, bit for bit. */
START_TEST(a_busy_process_gets_a_core_while_it_runs)
{
    cpu_set_t all, two;
    ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
    CPU_ZERO(&two);
    for (int i = 0, n = 0; i < CPU_SETSIZE && n < 2; i++)
        if (CPU_ISSET(i, &all)) CPU_SET(i, &two), n++;
    if (CPU_COUNT(&two) < 2) {
        fprintf(stderr, "a_busy_process_gets_a_core_while_it_runs: one CPU, nothing to share\n");
        return;
    }
    ck_assert_int_eq(sched_setaffinity(0, sizeof two, &two), 0); /* inherited by both */
    td_daemon d;
    td_start(&d, "--workers", "1", "--threads", "2", "--adapt-load", "0.2", "--progress-interval",
             "0.05", (char *)NULL);
    ck_assert_int_eq(td_log_count(&d, "at most 2 core(s) / running jobs"), 1);
    char *doc = td_long_job_doc("beside", 3.0, 0.1);
    char ref[64], id[64];
    td_submit(&d, doc, ref);
    td_wait_status(&d, ref, "succeeded", 240);
    td_submit(&d, doc, id);
    double outside = 0, until = td_now() + 60;
    long left = 0;
    while (job_threads(&d, &outside, &left) == 0) {
        ck_assert_msg(td_now() < until, "the job never ran");
        td_sleep(0.02);
    }
    pid_t busy = start_busy_process();
    /* while it runs: one thread, one core left to it (or more load) */
    until = td_now() + 60;
    while (job_threads(&d, &outside, &left) != 1 || left < 1) {
        ck_assert_msg(td_now() < until,
                      "the job kept more than one thread beside a busy process (outside load "
                      "%.2f, %ld core(s) left)",
                      outside, left);
        td_sleep(0.02);
    }
    kill(busy, SIGKILL);
    waitpid(busy, NULL, 0);
    td_track(busy, 0);
    /* after: two threads again once a reading finds the core free */
    int threads, back = 0;
    until = td_now() + 60;
    while ((threads = job_threads(&d, &outside, &left)) > 0 && td_now() < until)
        if ((back = threads == 2)) break;
        else td_sleep(0.02);
    if (!back)
        fprintf(stderr,
                "a_busy_process_gets_a_core_while_it_runs: the job ended on one thread: "
                "other processes took %.2f core(s) at the last reading (%ld left)\n",
                outside, left);
    td_wait_status(&d, id, "succeeded", 240);
    ck_assert(has_line(&d, id,
                       "1 thread(s) per step (1 running job(s) share 1 core(s), 1 left "
                       "to other processes)"));
    ck_assert_int_ge(td_log_count(&d, "ndemd: other processes take "), 1);
    if (back)
        ck_assert(has_line(&d, id, "2 thread(s) per step (1 running job(s) share 2 core(s))"));
    td_same_output(&d, id, ref);
    free(doc);
    td_stop(&d);
    ck_assert_int_eq(sched_setaffinity(0, sizeof all, &all), 0);
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
    TCase *load = tcase_create("outside load");
    tcase_set_timeout(load, 300);
    tcase_add_test(load, the_busy_time_of_our_cpus_is_read_from_proc_stat);
    tcase_add_test(load, whole_cores_are_left_to_others_past_a_band_around_the_halves);
    tcase_add_test(load, readings_follow_the_busy_time_and_a_missing_file_is_no_load);
    tcase_add_test(load, a_busy_process_gets_a_core_while_it_runs);
    suite_add_tcase(s, load);
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
