/* daemon.h - helpers for the suites that test ndemd as a user meets it: the
 * real binary (NDEMD_BIN, the sanitizer build) started as a child process
 * on a free loopback port with a temporary data directory, HTTP through
 * libcurl and the stream through a libwebsockets client. Every daemon a
 * test starts is also killed at exit, so a failing test never leaves one
 * behind. Every wait is bounded. Every stop checks the daemon's exit status
 * and scans its log for sanitizer reports (td_stop); failed daemons' logs
 * are kept (td_keep_log). */
#ifndef NDEM_TEST_DAEMON_H
#define NDEM_TEST_DAEMON_H

#include <arpa/inet.h>
#include <check.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TD_MAX_ARGS 24

typedef struct td_daemon {
    pid_t pid;
    int port, ws_port;
    char dir[256];                 /* data directory */
    char log[300];                 /* its stderr */
    char base[64];                 /* http://127.0.0.1:PORT */
    const char *args[TD_MAX_ARGS]; /* extra options, kept for restarts */
    int nargs;
} td_daemon;

static pid_t td_children[16];
static char td_dirs[16][256]; /* data directories not yet removed */
static int td_quiet;          /* no complaints while waiting for start-up */

static int td_bad_exits; /* daemons that exited non-zero or wrote a sanitizer report */

/* Keeps a failed daemon's log: copied to $NDEM_TEST_LOGS (run_all.sh sets
 * build/test-logs) as ndemd-XXXXXX.log, else left in its directory. */
static inline void td_keep_log(const char *dir)
{
    const char *logs = getenv("NDEM_TEST_LOGS");
    if (!logs || !logs[0]) {
        fprintf(stderr, "ndemd log kept: %s/ndemd.log\n", dir);
        return;
    }
    const char *base = strrchr(dir, '/');
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s/ndemd.log' '%s/%s.log'", logs, dir, logs,
             base ? base + 1 : dir);
    if (system(cmd)) fprintf(stderr, "could not keep %s/ndemd.log\n", dir);
    else fprintf(stderr, "ndemd log kept: %s/%s.log\n", logs, base ? base + 1 : dir);
}

/* At exit (and at the end of main): kills every daemon still running and
 * removes the directories of daemons a failed test left behind, after
 * printing the end of their log and keeping it (td_keep_log). */
static inline void td_kill_children(void)
{
    for (int i = 0; i < 16; i++)
        if (td_children[i] > 0) {
            kill(td_children[i], SIGKILL);
            waitpid(td_children[i], NULL, 0);
            td_children[i] = 0;
        }
    for (int i = 0; i < 16; i++)
        if (td_dirs[i][0]) {
            char cmd[700];
            fprintf(stderr, "---- end of %s/ndemd.log ----\n", td_dirs[i]);
            snprintf(cmd, sizeof cmd, "tail -n 25 '%s/ndemd.log' >&2", td_dirs[i]);
            if (system(cmd)) fprintf(stderr, "no log in %s\n", td_dirs[i]);
            td_keep_log(td_dirs[i]);
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", td_dirs[i]);
            if (system(cmd)) fprintf(stderr, "could not remove %s\n", td_dirs[i]);
            td_dirs[i][0] = 0;
        }
}

/* The end of main: td_kill_children, then the suite's exit code, made a
 * failure when any daemon exited badly (also one stopped by a fixture,
 * where no case can fail). */
static inline int td_exit_code(int rc)
{
    td_kill_children();
    if (td_bad_exits) fprintf(stderr, "%d ndemd run(s) did not exit cleanly\n", td_bad_exits);
    return td_bad_exits ? EXIT_FAILURE : rc;
}

static inline void td_track(pid_t pid, int add)
{
    static int registered;
    if (!registered) registered = !atexit(td_kill_children);
    for (int i = 0; i < 16; i++)
        if (add ? td_children[i] == 0 : td_children[i] == pid) {
            td_children[i] = add ? pid : 0;
            return;
        }
}

static inline void td_track_dir(const char *dir, int add)
{
    for (int i = 0; i < 16; i++)
        if (add ? !td_dirs[i][0] : !strcmp(td_dirs[i], dir)) {
            snprintf(td_dirs[i], sizeof td_dirs[i], "%s", add ? dir : "");
            return;
        }
}

static inline double td_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void td_sleep(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static inline int td_bind(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
        getsockname(fd, (struct sockaddr *)&sa, &len)) {
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    return ntohs(sa.sin_port);
}

/* A port p with p + 1 free too (HTTP and stream). */
static inline int td_free_ports(void)
{
    for (int tries = 0; tries < 100; tries++) {
        int p = td_bind(0);
        if (p > 0 && p < 65535 && td_bind(p + 1) == p + 1) return p;
    }
    return -1;
}

/* ---- HTTP ---- */

typedef struct td_resp {
    long status;
    char *body;
    size_t len;
    char type[128];
    char location[256];
} td_resp;

static inline size_t td_write_cb(char *data, size_t size, size_t n, void *user)
{
    td_resp *r = user;
    size_t add = size * n;
    char *grown = realloc(r->body, r->len + add + 1);
    if (!grown) return 0;
    r->body = grown;
    memcpy(r->body + r->len, data, add);
    r->len += add;
    r->body[r->len] = 0;
    return add;
}

static inline size_t td_header_cb(char *data, size_t size, size_t n, void *user)
{
    td_resp *r = user;
    size_t len = size * n;
    if (len > 10 && !strncasecmp(data, "Location: ", 10)) {
        size_t k = len - 10;
        while (k > 0 && (data[10 + k - 1] == '\r' || data[10 + k - 1] == '\n')) k--;
        if (k >= sizeof r->location) k = sizeof r->location - 1;
        memcpy(r->location, data + 10, k);
        r->location[k] = 0;
    }
    return len;
}

static inline CURL *td_easy(const td_daemon *d, td_resp *r, const char *method, const char *path,
                            const char *type, const char *body, size_t len, const char *accept,
                            struct curl_slist **hdrs)
{
    char url[1024], h[256];
    snprintf(url, sizeof url, "%s%s", d->base, path);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (!strcmp(method, "HEAD")) curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, td_write_cb);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, td_header_cb);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    *hdrs = NULL;
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        snprintf(h, sizeof h, "Content-Type: %s", type ? type : "application/json");
        *hdrs = curl_slist_append(*hdrs, h);
        /* large bodies: let the server refuse before they are sent */
        if (len > 65536) *hdrs = curl_slist_append(*hdrs, "Expect: 100-continue");
    } else if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
        /* state-changing routes want application/json even without a body */
        snprintf(h, sizeof h, "Content-Type: %s", type ? type : "application/json");
        *hdrs = curl_slist_append(*hdrs, h);
    }
    if (accept) {
        snprintf(h, sizeof h, "Accept: %s", accept);
        *hdrs = curl_slist_append(*hdrs, h);
    }
    if (*hdrs) curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hdrs);
    return c;
}

static inline void td_finish(CURL *c, td_resp *r)
{
    char *type = NULL;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type);
    snprintf(r->type, sizeof r->type, "%s", type ? type : "");
}

static inline td_resp td_http(const td_daemon *d, const char *method, const char *path,
                              const char *type, const char *body, size_t len, const char *accept)
{
    td_resp r;
    memset(&r, 0, sizeof r);
    struct curl_slist *hdrs;
    CURL *c = td_easy(d, &r, method, path, type, body, len, accept, &hdrs);
    CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_OK) td_finish(c, &r);
    else if (!td_quiet)
        fprintf(stderr, "td_http %s %s: %s\n", method, path, curl_easy_strerror(rc));
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
    return r;
}

static inline void td_resp_free(td_resp *r)
{
    free(r->body);
    r->body = NULL;
}

/* GET path, expecting `status`; the body as JSON (cJSON_Delete). */
static inline cJSON *td_get_json(const td_daemon *d, const char *path, long status)
{
    td_resp r = td_http(d, "GET", path, NULL, NULL, 0, NULL);
    ck_assert_msg(r.status == status, "GET %s: %ld, wanted %ld: %s", path, r.status, status,
                  r.body ? r.body : "");
    cJSON *o = r.body ? cJSON_Parse(r.body) : NULL;
    ck_assert_msg(o != NULL, "GET %s: not JSON", path);
    td_resp_free(&r);
    return o;
}

/* POST a job; returns the answer (status and body). */
static inline td_resp td_post_job(const td_daemon *d, const char *json)
{
    return td_http(d, "POST", "/api/v1/jobs", "application/json", json, strlen(json), NULL);
}

/* POSTs a job that must be accepted; its id into id (17 bytes). */
static inline void td_submit(const td_daemon *d, const char *json, char *id)
{
    td_resp r = td_post_job(d, json);
    ck_assert_msg(r.status == 201, "POST /jobs: %ld %s", r.status, r.body ? r.body : "");
    cJSON *o = cJSON_Parse(r.body);
    ck_assert_ptr_nonnull(o);
    const cJSON *jid = cJSON_GetObjectItem(o, "id");
    ck_assert(cJSON_IsString(jid) && strlen(jid->valuestring) < 64);
    snprintf(id, 64, "%s", jid->valuestring);
    cJSON_Delete(o);
    td_resp_free(&r);
}

/* A job's resource (cJSON_Delete). */
static inline cJSON *td_job(const td_daemon *d, const char *id)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    return td_get_json(d, path, 200);
}

static inline const char *td_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static inline double td_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Polls until the job's status is `want` (or another final one); fails
 * after `timeout` seconds. */
static inline void td_wait_status(const td_daemon *d, const char *id, const char *want,
                                  double timeout)
{
    double end = td_now() + timeout;
    char last[32] = "";
    for (;;) {
        cJSON *o = td_job(d, id);
        snprintf(last, sizeof last, "%s", td_str(o, "status"));
        int done = !strcmp(last, want);
        int final =
            !strcmp(last, "succeeded") || !strcmp(last, "failed") || !strcmp(last, "cancelled");
        if (final && !done)
            fprintf(stderr, "job %s: %s (error: %s)\n", id, last, td_str(o, "error"));
        cJSON_Delete(o);
        if (done) return;
        ck_assert_msg(!final, "job %s ended %s, wanted %s", id, last, want);
        ck_assert_msg(td_now() < end, "job %s still %s after %.0f s, wanted %s", id, last, timeout,
                      want);
        td_sleep(0.05);
    }
}

/* Polls until the job has taken at least `step` steps (and is running). */
static inline void td_wait_step(const td_daemon *d, const char *id, long step, double timeout)
{
    double end = td_now() + timeout;
    for (;;) {
        cJSON *o = td_job(d, id);
        long s = (long)td_num(cJSON_GetObjectItem(o, "progress"), "step");
        int running = !strcmp(td_str(o, "status"), "running");
        cJSON_Delete(o);
        if (running && s >= step) return;
        ck_assert_msg(td_now() < end, "job %s did not reach step %ld in %.0f s", id, step, timeout);
        td_sleep(0.02);
    }
}

/* ---- the daemon ---- */

/* The binary under test: $NDEMD_BIN (`make test` sets it), else the
 * sanitizer build. */
static inline const char *td_bin(void)
{
    const char *bin = getenv("NDEMD_BIN");
    if (!bin || !bin[0]) bin = "build/asan/ndemd";
    ck_assert_msg(access(bin, X_OK) == 0, "no ndemd at %s: set NDEMD_BIN", bin);
    return bin;
}

static inline void td_spawn(td_daemon *d)
{
    const char *bin = td_bin();
    char listen[64], data[300], web[300];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", d->port);
    snprintf(data, sizeof data, "%s/var", d->dir);
    snprintf(web, sizeof web, "%s/web", d->dir);
    const char *argv[TD_MAX_ARGS + 12] = {bin, "--listen", listen, "--data", data, "--web", web};
    int n = 7;
    for (int i = 0; i < d->nargs; i++) argv[n++] = d->args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    d->pid = pid;
    td_track(pid, 1);
    double end = td_now() + 30;
    for (;;) {
        td_quiet = 1;
        td_resp r = td_http(d, "GET", "/health", NULL, NULL, 0, NULL);
        td_quiet = 0;
        long status = r.status;
        td_resp_free(&r);
        if (status == 200) return;
        int st;
        ck_assert_msg(waitpid(pid, &st, WNOHANG) == 0,
                      "ndemd exited at start-up (%s is printed at exit)", d->log);
        ck_assert_msg(td_now() < end,
                      "ndemd did not answer /health in 30 s (%s is printed at exit)", d->log);
        td_sleep(0.05);
    }
}

/* A fresh, tracked test directory for d (the daemon's data go in DIR/var). */
static inline void td_make_dir(td_daemon *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->dir, sizeof d->dir, "/tmp/ndemd-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d->dir));
    td_track_dir(d->dir, 1);
}

/* Starts ndemd in d's directory (td_make_dir) with the NULL-terminated
 * extra options of ap, on fresh ports. */
static inline void td_launch(td_daemon *d, va_list ap)
{
    snprintf(d->log, sizeof d->log, "%s/ndemd.log", d->dir);
    const char *a;
    while ((a = va_arg(ap, const char *)) && d->nargs < TD_MAX_ARGS) d->args[d->nargs++] = a;
    d->port = td_free_ports();
    ck_assert_int_gt(d->port, 0);
    d->ws_port = d->port + 1;
    snprintf(d->base, sizeof d->base, "http://127.0.0.1:%d", d->port);
    td_spawn(d);
}

/* Starts ndemd with extra options (NULL-terminated) on fresh ports and a
 * fresh data directory. */
static inline void td_start(td_daemon *d, ...)
{
    td_make_dir(d);
    va_list ap;
    va_start(ap, d);
    td_launch(d, ap);
    va_end(ap);
}

/* Sends sig and waits up to timeout s; then SIGKILL. The exit status. */
static inline int td_signal(td_daemon *d, int sig, double timeout)
{
    if (d->pid <= 0) return -1;
    kill(d->pid, sig);
    double end = td_now() + timeout;
    int st = 0;
    pid_t got;
    while ((got = waitpid(d->pid, &st, WNOHANG)) == 0 && td_now() < end) td_sleep(0.02);
    if (got == 0) {
        kill(d->pid, SIGKILL);
        waitpid(d->pid, &st, 0);
        st = -1;
    }
    td_track(d->pid, 0);
    d->pid = 0;
    return st;
}

/* The first sanitizer report line in the daemon's log (ASan, LSan, UBSan,
 * TSan) into line; 0 when there is none. */
static inline int td_log_report(const td_daemon *d, char *line, size_t n)
{
    static const char *marks[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                                  "runtime error:", "WARNING: ThreadSanitizer"};
    FILE *f = fopen(d->log, "r");
    if (!f) return 0;
    int found = 0;
    while (!found && fgets(line, (int)n, f))
        for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
            found |= strstr(line, marks[i]) != NULL;
    fclose(f);
    return found;
}

/* Stops the daemon with SIGTERM and checks how it ended: exit status 0 (a
 * leak found at exit or a sanitizer error makes it 1 under ASan) and no sanitizer
 * report anywhere in its log (restarts included). A bad end is counted
 * (td_exit_code), printed, and its log kept; the directory is removed.
 * Returns 1 for a clean end. */
static inline int td_stop_status(td_daemon *d)
{
    int ok = 1;
    char why[600] = "";
    if (d->pid > 0) {
        int st = td_signal(d, SIGTERM, 30);
        if (st == -1) snprintf(why, sizeof why, "did not exit within 30 s of SIGTERM");
        else if (WIFSIGNALED(st)) snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(st));
        else if (WEXITSTATUS(st) != 0) snprintf(why, sizeof why, "exit status %d", WEXITSTATUS(st));
        ok = why[0] == 0;
    }
    char line[512];
    if (d->dir[0] && td_log_report(d, line, sizeof line)) {
        line[strcspn(line, "\n")] = 0;
        size_t k = strlen(why);
        snprintf(why + k, sizeof why - k, "%ssanitizer report: %s", k ? "; " : "", line);
        ok = 0;
    }
    if (!ok) {
        td_bad_exits++;
        fprintf(stderr, "ndemd (%s) did not exit cleanly: %s\n", d->dir, why);
    }
    if (d->dir[0]) {
        if (!ok) td_keep_log(d->dir);
        td_track_dir(d->dir, 0);
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->dir);
        if (system(cmd)) fprintf(stderr, "could not remove %s\n", d->dir);
        d->dir[0] = 0;
    }
    return ok;
}

/* td_stop_status inside a case: a bad end fails the case. */
static inline void td_stop(td_daemon *d)
{
    ck_assert_msg(td_stop_status(d), "ndemd did not exit cleanly (its log is kept, see above)");
}

/* Lines of the daemon's log that contain `needle`. */
static inline int td_log_count(const td_daemon *d, const char *needle)
{
    FILE *f = fopen(d->log, "r");
    if (!f) return -1;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f)) n += strstr(line, needle) != NULL;
    fclose(f);
    return n;
}

/* The number after `after` on the first log line containing `needle`. */
static inline long td_log_number(const td_daemon *d, const char *needle, const char *after)
{
    FILE *f = fopen(d->log, "r");
    if (!f) return -1;
    char line[4096];
    long v = -1;
    while (v < 0 && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, needle) ? strstr(line, after) : NULL;
        if (p) v = atol(p + strlen(after));
    }
    fclose(f);
    return v;
}

static inline long td_count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long n = 0;
    int c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

/* A small job document: a few spheres on a plane (two touching it from
 * the start) and an emitter. */
static inline char *td_job_doc(const char *name, double duration, double frame_interval)
{
    static const char fmt[] =
        "{\"name\": \"%s\", \"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, "
        "\"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1]}], \"particles\": [{\"type\": \"list\", \"spheres\": "
        "[[0, 0, 0.0099, 0.01], [0.03, 0, 0.0099, 0.01], [0, 0.03, 0.08, 0.01]]}], "
        "\"emitters\": [{\"min\": [0.1, 0.1, 0.1], \"max\": [0.12, 0.12, 0.12], \"rate\": 20, "
        "\"max_count\": 2, \"radius\": 0.008, \"seed\": 2}]}, "
        "\"solver\": {\"time_step\": 0.005, \"duration\": %g}, "
        "\"output\": {\"frame_interval\": %g}}";
    size_t n = sizeof fmt + strlen(name) + 64;
    char *s = malloc(n);
    snprintf(s, n, fmt, name, duration, frame_interval);
    return s;
}

/* A job of a few hundred particles in a box that runs for seconds. */
static inline char *td_long_job_doc(const char *name, double duration, double frame_interval)
{
    static const char fmt[] =
        "{\"name\": \"%s\", \"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, "
        "\"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"box\", \"min\": [0, 0, 0], "
        "\"max\": [0.2, 0.2, 0.4], \"inside\": true}], \"particles\": [{\"type\": \"lattice\", "
        "\"min\": [0.01, 0.01, 0.0079], \"max\": [0.19, 0.19, 0.3], \"spacing\": 0.02, "
        "\"count\": 600, \"radius\": 0.008}], \"emitters\": [{\"min\": [0.05, 0.05, 0.35], "
        "\"max\": [0.15, 0.15, 0.38], \"rate\": 20, \"max_count\": 4, \"radius\": 0.008, "
        "\"seed\": 2}]}, \"solver\": {\"time_step\": 0.002, \"duration\": %g, \"iterations\": 10, "
        "\"threads\": 1}, \"output\": {\"frame_interval\": %g}}";
    size_t n = sizeof fmt + strlen(name) + 64;
    char *s = malloc(n);
    snprintf(s, n, fmt, name, duration, frame_interval);
    return s;
}

/* Every frame file of a job (binary, as stored), and its series without the
 * wall-time columns: what a resumed job must reproduce exactly. */
static inline void td_job_output(const td_daemon *d, const char *id, char ***frames, size_t **lens,
                                 long *count, char **series)
{
    char path[256];
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames", id);
    cJSON *o = td_get_json(d, path, 200);
    *count = (long)td_num(o, "count");
    cJSON_Delete(o);
    *frames = calloc((size_t)*count, sizeof **frames);
    *lens = calloc((size_t)*count, sizeof **lens);
    for (long i = 0; i < *count; i++) {
        snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/%ld", id, i);
        td_resp r = td_http(d, "GET", path, NULL, NULL, 0, "application/octet-stream");
        ck_assert_int_eq(r.status, 200);
        (*frames)[i] = r.body;
        (*lens)[i] = r.len;
    }
    snprintf(path, sizeof path, "/api/v1/jobs/%s/series", id);
    td_resp r = td_http(d, "GET", path, NULL, NULL, 0, "text/csv");
    ck_assert_int_eq(r.status, 200);
    ck_assert_msg(memchr(r.body, 0, r.len) == NULL, "series.csv holds NUL bytes");
    /* keep the first 14 columns (step .. colors); the rest are wall times */
    char *out = malloc(r.len + 1), *w = out;
    int col = 0;
    for (const char *c = r.body; *c; c++) {
        if (*c == '\n') col = 0, *w++ = '\n';
        else if (*c == ',' && ++col >= 14) continue;
        else if (col < 14) *w++ = *c;
    }
    *w = 0;
    *series = out;
    td_resp_free(&r);
}

/* A resumed job (a) against an uninterrupted one (b): the same frames, bit
 * for bit, and the same series rows (wall times aside). */
static inline void td_same_output(const td_daemon *d, const char *a, const char *b)
{
    char **fa, **fb, *sa, *sb;
    size_t *la, *lb;
    long na, nb;
    td_job_output(d, a, &fa, &la, &na, &sa);
    td_job_output(d, b, &fb, &lb, &nb, &sb);
    ck_assert_int_eq(na, nb);
    ck_assert_int_gt(na, 10);
    for (long i = 0; i < na; i++) {
        ck_assert_msg(la[i] == lb[i] && !memcmp(fa[i], fb[i], la[i]),
                      "frame %ld differs from the uninterrupted run", i);
        free(fa[i]);
        free(fb[i]);
    }
    ck_assert_str_eq(sa, sb);
    free(fa), free(fb), free(la), free(lb), free(sa), free(sb);
}

#endif
