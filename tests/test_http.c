/* test_http.c - the HTTP layer of ndemd under hostile clients (issue 12,
 * items 3, 8, 9 and 10): cross-site requests and foreign Host headers,
 * malformed framing sent over raw sockets, thousands of slow connections,
 * and the memory taken by huge job documents. Each case starts its own
 * daemon (the real binary, as in test_api.c). */
#include "daemon.h"
#include "job.h"
#include "raw.h"
#include "testutil.h"

#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>

#define MIB (1024.0 * 1024.0)

/* ---- helpers ---- */

/* Checks a problem+json answer: status, type, and that the body is JSON. */
static cJSON *expect_problem(const td_resp *r, long status)
{
    ck_assert_msg(r->status == status, "status %ld, wanted %ld: %s", r->status, status,
                  r->body ? r->body : "");
    ck_assert_str_eq(r->type, "application/problem+json");
    cJSON *o = cJSON_Parse(r->body);
    ck_assert_msg(o != NULL, "not JSON: %s", r->body);
    ck_assert_int_eq((long)td_num(o, "status"), status);
    return o;
}

/* A request with the header lines given ("Name: value", NULL-terminated)
 * and, unless one of them names a Content-Type, application/json on all
 * but GET; "Content-Type:" sends none at all. */
static td_resp http_with(const td_daemon *d, const char *method, const char *path, const char *body,
                         ...)
{
    td_resp r;
    memset(&r, 0, sizeof r);
    struct curl_slist *hdrs = NULL;
    CURL *c = td_easy(d, &r, method, path, NULL, body, body ? strlen(body) : 0, NULL, &hdrs);
    curl_slist_free_all(hdrs);
    hdrs = NULL;
    int typed = 0;
    va_list ap;
    va_start(ap, body);
    const char *h;
    while ((h = va_arg(ap, const char *))) {
        typed |= !strncasecmp(h, "Content-Type:", 13);
        hdrs = curl_slist_append(hdrs, h);
    }
    va_end(ap);
    if (!typed && strcmp(method, "GET"))
        hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    td_finish(c, &r);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
    return r;
}

/* Valid UTF-8 all through (RFC 3629: no overlongs, surrogates or > U+10FFFF). */
static int valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!k || i + k > n || (k == 2 && c < 0xc2)) return 0;
        unsigned cp = k == 1 ? c : c & (0x7f >> k);
        for (size_t j = 1; j < k; j++) {
            if ((s[i + j] & 0xc0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + j] & 0x3f);
        }
        if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
            return 0;
        i += k;
    }
    return 1;
}

/* A line of /proc/PID/status in kB ("VmRSS:", "VmHWM:"). */
static long proc_kb(pid_t pid, const char *key)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) kb = strtol(line + strlen(key), NULL, 10);
    fclose(f);
    ck_assert_int_ge(kb, 0);
    return kb;
}

/* ---- item 8: cross-site requests and host names ---- */

START_TEST(cross_site_requests_are_refused)
{
    td_daemon d;
    td_start(&d, "--workers", "1", "--threads", "1", (char *)NULL);
    char origin[96], id[64], path[160];
    snprintf(origin, sizeof origin, "Origin: http://127.0.0.1:%d", d.port);
    char *doc = td_long_job_doc("victim", 30, 1);
    td_submit(&d, doc, id);
    free(doc);
    snprintf(path, sizeof path, "/api/v1/jobs/%s/cancel", id);

    /* the form POST of another site: refused, and the job is untouched */
    td_resp r = http_with(&d, "POST", path, NULL, "Origin: http://evil.example",
                          "Content-Type: application/x-www-form-urlencoded", (char *)NULL);
    cJSON *p = expect_problem(&r, 403);
    ck_assert_ptr_nonnull(strstr(td_str(p, "detail"), "http://evil.example"));
    cJSON_Delete(p);
    td_resp_free(&r);
    /* a form type without Origin (an old browser, a plain form): 415 */
    r = http_with(&d, "POST", path, NULL, "Content-Type: text/plain", (char *)NULL);
    cJSON_Delete(expect_problem(&r, 415));
    td_resp_free(&r);
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    r = http_with(&d, "DELETE", path, NULL, "Content-Type:", (char *)NULL);
    cJSON_Delete(expect_problem(&r, 415));
    td_resp_free(&r);
    /* even a JSON POST from a foreign origin */
    snprintf(path, sizeof path, "/api/v1/jobs/%s/cancel", id);
    r = http_with(&d, "POST", path, NULL, "Origin: http://evil.example", (char *)NULL);
    cJSON_Delete(expect_problem(&r, 403));
    td_resp_free(&r);
    cJSON *job = td_job(&d, id);
    ck_assert_msg(!strcmp(td_str(job, "status"), "queued") ||
                      !strcmp(td_str(job, "status"), "running"),
                  "status %s", td_str(job, "status"));
    cJSON_Delete(job);

    /* the daemon's own page (its origin, JSON): the cancel goes through */
    r = http_with(&d, "POST", path, NULL, origin, (char *)NULL);
    ck_assert_msg(r.status == 200 || r.status == 202, "own origin: %ld %s", r.status, r.body);
    td_resp_free(&r);

    /* DNS rebinding: a name that merely resolves here is not answered */
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    r = http_with(&d, "GET", path, NULL, "Host: evil.example:80", (char *)NULL);
    p = expect_problem(&r, 421);
    ck_assert_ptr_null(strstr(r.body, "links"));
    cJSON_Delete(p);
    td_resp_free(&r);
    /* and a name it answers to is still not copied into links */
    char host[64];
    snprintf(host, sizeof host, "Host: localhost:%d", d.port);
    r = http_with(&d, "GET", path, NULL, host, (char *)NULL);
    ck_assert_int_eq(r.status, 200);
    job = cJSON_Parse(r.body);
    char want[200];
    snprintf(want, sizeof want, "ws://127.0.0.1:%d/api/v1/jobs/%s/stream", d.ws_port, id);
    ck_assert_str_eq(td_str(cJSON_GetObjectItem(job, "links"), "stream"), want);
    cJSON_Delete(job);
    td_resp_free(&r);
    td_stop(&d);
}
END_TEST

/* A WebSocket handshake with an Origin header: the status line's code. */
static int ws_handshake(int port, const char *id, const char *origin)
{
    char req[600];
    int n =
        snprintf(req, sizeof req,
                 "GET /api/v1/jobs/%s/stream HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                 "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 "Sec-WebSocket-Version: 13\r\n%s%s%s\r\n",
                 id, port, origin ? "Origin: " : "", origin ? origin : "", origin ? "\r\n" : "");
    double took;
    char *answer = raw_exchange(port, req, (size_t)n, 5, &took);
    int status = 0;
    sscanf(answer, "HTTP/1.%*d %d", &status);
    free(answer);
    return status;
}

START_TEST(public_url_and_allowed_origins)
{
    td_daemon d;
    td_start(&d, "--public-url", "https://ndem.example:9443/", "--allow-origin",
             "http://app.example, http://other.example:8000", (char *)NULL);
    char id[64], path[160];
    char *doc = td_job_doc("public", 0.02, 0.01);
    td_submit(&d, doc, id);
    free(doc);
    td_wait_status(&d, id, "succeeded", 60);
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    cJSON *job = td_get_json(&d, path, 200);
    char want[200];
    snprintf(want, sizeof want, "wss://ndem.example:%d/api/v1/jobs/%s/stream", d.ws_port, id);
    ck_assert_str_eq(td_str(cJSON_GetObjectItem(job, "links"), "stream"), want);
    cJSON_Delete(job);
    /* the names of --public-url and --allow-origin are answered */
    td_resp r = http_with(&d, "GET", "/health", NULL, "Host: ndem.example:9443", (char *)NULL);
    ck_assert_int_eq(r.status, 200);
    td_resp_free(&r);
    r = http_with(&d, "GET", "/health", NULL, "Host: APP.example", (char *)NULL);
    ck_assert_int_eq(r.status, 200);
    td_resp_free(&r);
    r = http_with(&d, "GET", "/health", NULL, "Host: evil.example", (char *)NULL);
    cJSON_Delete(expect_problem(&r, 421));
    td_resp_free(&r);

    /* the served origin is now the public one, plus the allow-list */
    doc = td_job_doc("x", 0.01, 0.01);
    r = http_with(&d, "POST", "/api/v1/jobs", doc, "Origin: https://ndem.example:9443",
                  (char *)NULL);
    ck_assert_int_eq(r.status, 201);
    td_resp_free(&r);
    r = http_with(&d, "POST", "/api/v1/jobs", doc, "Origin: http://other.example:8000",
                  (char *)NULL);
    ck_assert_int_eq(r.status, 201);
    td_resp_free(&r);
    char local[96];
    snprintf(local, sizeof local, "Origin: http://127.0.0.1:%d", d.port);
    r = http_with(&d, "POST", "/api/v1/jobs", doc, local, (char *)NULL);
    cJSON_Delete(expect_problem(&r, 403));
    td_resp_free(&r);
    free(doc);

    /* the stream: a foreign origin is refused before the upgrade, an
     * allowed one and none (not a browser) are upgraded */
    ck_assert_int_eq(ws_handshake(d.ws_port, id, "http://evil.example"), 403);
    ck_assert_int_eq(ws_handshake(d.ws_port, id, "http://app.example"), 101);
    ck_assert_int_eq(ws_handshake(d.ws_port, id, NULL), 101);
    td_stop(&d);
}
END_TEST

/* ---- item 10: leniency ---- */

START_TEST(nul_and_invalid_utf8_in_documents)
{
    td_daemon d;
    td_start(&d, (char *)NULL);
    /* "t\u0000iny" was cut to "t" and accepted */
    char *doc = td_job_doc("t\\u0000iny", 0.01, 0.01);
    td_resp r = td_post_job(&d, doc);
    free(doc);
    cJSON *p = expect_problem(&r, 422);
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "errors"), 0);
    ck_assert_str_eq(td_str(e, "pointer"), "/name");
    ck_assert_ptr_nonnull(strstr(td_str(e, "message"), "\\u0000"));
    cJSON_Delete(p);
    td_resp_free(&r);
    /* in a key, deeper down */
    static const char in_key[] = "{\"scene\": {\"materials\": [{\"na\\u0000me\": \"a\"}]}}";
    r = td_post_job(&d, in_key);
    p = expect_problem(&r, 422);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "errors"), 0);
    ck_assert_str_eq(td_str(e, "pointer"), "/scene/materials/0/na");
    cJSON_Delete(p);
    td_resp_free(&r);
    /* an escaped backslash before u0000 is no NUL: an ordinary name */
    doc = td_job_doc("back\\\\u0000slash", 0.01, 0.01);
    r = td_post_job(&d, doc);
    free(doc);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    td_resp_free(&r);

    /* a key that is not UTF-8: the answer stays valid UTF-8 JSON */
    static const char bad_key[] = "{\"name\": \"x\", \"sc\xff\xfe"
                                  "ene\": 1}";
    r = td_post_job(&d, bad_key);
    ck_assert_msg(valid_utf8((const unsigned char *)r.body, r.len), "not UTF-8: %s", r.body);
    p = expect_problem(&r, 422);
    ck_assert_ptr_nonnull(strstr(td_str(p, "detail"), "sc\xef\xbf\xbd\xef\xbf\xbd"
                                                      "ene"));
    cJSON_Delete(p);
    td_resp_free(&r);
    td_stop(&d);
}
END_TEST

START_TEST(malformed_framing_gets_problem_json_at_once)
{
    td_daemon d;
    td_start(&d, (char *)NULL);
    static const struct {
        const char *name, *request;
        int status;
    } cases[] = {
        {"two Content-Length",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}x",
         400},
        {"two Host", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: b\r\n\r\n", 400},
        {"HTTP/1.1 without Host", "GET /health HTTP/1.1\r\n\r\n", 400},
        {"Content-Length with chunked",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
         400},
        {"chunk of 2^64 - 1 bytes",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         "Transfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nabc",
         411},
        {"bad chunk",
         "POST /api/v1/jobs/0123456789abcdef/cancel HTTP/1.1\r\nHost: 127.0.0.1\r\n"
         "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
         411},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double took;
        char *answer = raw_exchange(d.port, cases[i].request, strlen(cases[i].request), 10, &took);
        fprintf(stderr, "%s: %.3f s\n", cases[i].name, took);
        cJSON *p = raw_problem(answer, cases[i].status);
        ck_assert_msg(took < 5, "%s: answered after %.1f s", cases[i].name, took);
        cJSON_Delete(p);
        free(answer);
    }
    /* HTTP/1.0 needs no Host */
    double took;
    char *answer = raw_exchange(d.port, "GET /health HTTP/1.0\r\n\r\n", 24, 10, &took);
    ck_assert_msg(!strncmp(answer, "HTTP/1.0 200", 12) || !strncmp(answer, "HTTP/1.1 200", 12),
                  "%.200s", answer);
    free(answer);
    td_stop(&d);
}
END_TEST

/* ---- item 10: errors libmicrohttpd answered in text/html (the gate) ---- */

/* tmpl with its "%s" replaced by pad bytes c (malloc'd). */
static char *padded(const char *tmpl, char c, size_t pad)
{
    const char *at = strstr(tmpl, "%s");
    size_t n = strlen(tmpl) - 2 + pad;
    char *out = malloc(n + 1);
    memcpy(out, tmpl, (size_t)(at - tmpl));
    memset(out + (at - tmpl), c, pad);
    strcpy(out + (at - tmpl) + pad, at + 2);
    return out;
}

START_TEST(http_level_errors_are_problem_json)
{
    td_daemon d;
    td_start(&d, (char *)NULL);
    char *long_line = padded("GET /%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 'a', 9000);
    char *big_head =
        padded("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: %s\r\n\r\n", 'b', 20000);
    char many[64 + 120 * 8];
    int k = snprintf(many, sizeof many, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (int i = 0; i < 120; i++) k += snprintf(many + k, sizeof many - (size_t)k, "X-A: b\r\n");
    snprintf(many + k, sizeof many - (size_t)k, "\r\n");
    const struct {
        const char *name, *request, *detail;
        int status;
    } cases[] = {
        {"Content-Length: -1",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         "Content-Length: -1\r\n\r\n{}",
         "Content-Length '-1' is not a number", 400},
        {"Content-Length: 2^70",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         "Content-Length: 1180591620717411303424\r\n\r\n{}",
         "the body is 1180591620717411303424 bytes; the limit is 8388608", 413},
        {"request line of 9 kB", long_line, "request line is longer than 8192 bytes", 414},
        {"head of 20 kB", big_head, "head is longer than 16384 bytes", 431},
        {"120 header fields", many, "more than 100 header fields", 431},
        {"HTTP/2.0", "GET / HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/2.0 is not supported", 505},
        {"HTTP/1.7", "GET /health HTTP/1.7\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/1.7 is not supported",
         505},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double took;
        char *answer = raw_exchange(d.port, cases[i].request, strlen(cases[i].request), 10, &took);
        fprintf(stderr, "%s: %.3f s: %.*s\n", cases[i].name, took, (int)strcspn(answer, "\r"),
                answer);
        cJSON *p = raw_problem(answer, cases[i].status);
        ck_assert_msg(strstr(td_str(p, "detail"), cases[i].detail), "%s: %s", cases[i].name,
                      td_str(p, "detail"));
        ck_assert_ptr_nonnull(find_ci(answer, "\r\nConnection: close\r\n"));
        ck_assert_msg(took < 5, "%s: answered after %.1f s", cases[i].name, took);
        cJSON_Delete(p);
        free(answer);
    }
    free(long_line);
    free(big_head);
    td_stop(&d);
}
END_TEST

START_TEST(good_requests_pass_the_gate)
{
    td_daemon d;
    td_start(&d, "--head-timeout", "1.5", (char *)NULL);
    /* a head in two parts, 0.3 s apart: the gate waits for the rest */
    int fd = connect_from(NULL, d.port);
    const char *req = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    ck_assert_int_eq(send(fd, req, 10, MSG_NOSIGNAL), 10);
    td_sleep(0.3);
    ck_assert_int_eq(send(fd, req + 10, strlen(req) - 10, MSG_NOSIGNAL), (ssize_t)strlen(req) - 10);
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf - 1, MSG_WAITALL);
    ck_assert_int_gt(n, 12);
    buf[n] = 0;
    ck_assert_msg(!strncmp(buf, "HTTP/1.1 200", 12), "%.200s", buf);
    close(fd);
    /* just under the limits: a head of 16000 bytes, a request line of 8000 */
    char *near = padded("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: %s\r\n\r\n", 'b', 16000);
    double took;
    char *answer = raw_exchange(d.port, near, strlen(near), 10, &took);
    ck_assert_msg(!strncmp(answer, "HTTP/1.1 200", 12), "%.200s", answer);
    free(answer);
    free(near);
    near = padded("GET /%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 'a', 7900);
    answer = raw_exchange(d.port, near, strlen(near), 10, &took);
    ck_assert_msg(!strncmp(answer, "HTTP/1.1 404", 12), "%.200s", answer); /* routed */
    free(answer);
    free(near);
    /* two requests on one connection: one answer, then the connection is
     * closed (the second never reaches the daemon without the gate) */
    char two[256];
    snprintf(two, sizeof two, "%s%s", req, "GET / HTTP/1.7\r\nHost: 127.0.0.1\r\n\r\n");
    answer = raw_exchange(d.port, two, strlen(two), 10, &took);
    ck_assert_msg(!strncmp(answer, "HTTP/1.1 200", 12), "%.200s", answer);
    ck_assert_ptr_null(strstr(answer + 12, "HTTP/1."));
    free(answer);
    /* a client that keeps its connection (curl, one handle): every request
     * is answered, each on a new connection */
    td_resp r;
    memset(&r, 0, sizeof r);
    struct curl_slist *hdrs;
    CURL *c = td_easy(&d, &r, "GET", "/health", NULL, NULL, 0, NULL, &hdrs);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
        long status, connects;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &connects);
        ck_assert_int_eq(status, 200);
        ck_assert_int_eq(connects, 1);
    }
    curl_easy_cleanup(c);
    td_resp_free(&r);
    /* a POST with a body, and the stream of its job (its own port) */
    char id[64];
    char *doc = td_long_job_doc("gate", 30, 1);
    td_submit(&d, doc, id);
    free(doc);
    ck_assert_int_eq(ws_handshake(d.ws_port, id, NULL), 101);
    /* a head that does not come within --head-timeout: closed, no answer */
    fd = connect_from(NULL, d.port);
    ck_assert_int_eq(send(fd, req, 10, MSG_NOSIGNAL), 10);
    double t0 = td_now();
    struct pollfd pf = {fd, POLLIN, 0};
    ck_assert_int_eq(poll(&pf, 1, 10000), 1);
    double waited = td_now() - t0;
    /* closed with the peeked bytes unread: a reset, or an end */
    n = recv(fd, buf, sizeof buf, 0);
    ck_assert_msg(n == 0 || (n < 0 && errno == ECONNRESET), "recv %zd: %s", n, strerror(errno));
    fprintf(stderr, "half a head closed after %.2f s (--head-timeout 1.5)\n", waited);
    ck_assert_msg(waited > 1.2 && waited < 5, "closed after %.2f s", waited);
    close(fd);
    td_stop(&d);
}
END_TEST

/* ---- item 9: slow connections ---- */

enum { SLOW = 2000, PER_ADDRESS = 50 };

static int open_count(const int *fds, int n)
{
    int open = 0;
    for (int i = 0; i < n; i++) {
        struct pollfd p = {fds[i], POLLIN, 0};
        char c;
        if (poll(&p, 1, 0) == 0 || recv(fds[i], &c, 1, MSG_DONTWAIT | MSG_PEEK) > 0) open++;
    }
    return open;
}

static double health_ms(const td_daemon *d)
{
    double t0 = td_now();
    td_resp r = td_http(d, "GET", "/health", NULL, NULL, 0, NULL);
    double ms = 1e3 * (td_now() - t0);
    ck_assert_int_eq(r.status, 200);
    td_resp_free(&r);
    return ms;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(slow_connections_do_not_deny_the_api)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    ck_assert_msg(rl.rlim_cur >= SLOW + 200, "need %d descriptors, have %ld", SLOW + 200,
                  (long)rl.rlim_cur);
    td_daemon d;
    td_start(&d, "--http-timeout", "4", "--head-timeout", "4", "--per-ip-limit", "64",
             (char *)NULL);
    /* 2000 connections from 40 addresses (50 each, under the per-address
     * limit), each with half a request line */
    static int fds[SLOW];
    for (int i = 0; i < SLOW; i++) {
        char from[32];
        snprintf(from, sizeof from, "127.0.1.%d", 1 + i / PER_ADDRESS);
        fds[i] = connect_from(from, d.port);
        ck_assert_int_eq(send(fds[i], "GET /health HTTP/1.1\r\nHo", 24, MSG_NOSIGNAL), 24);
    }
    double opened = td_now();
    td_sleep(0.5);
    ck_assert_int_eq(open_count(fds, SLOW), SLOW);
    /* /health meanwhile: the median of 5 tries (the machine is shared) */
    double ms[5];
    for (int i = 0; i < 5; i++) ms[i] = health_ms(&d);
    qsort(ms, 5, sizeof ms[0], cmp_double);
    fprintf(stderr, "/health with %d slow connections: median %.1f ms (%.1f .. %.1f)\n", SLOW,
            ms[2], ms[0], ms[4]);
    ck_assert_msg(ms[2] < 100, "/health took %.1f ms (median)", ms[2]);

    /* one address over its limit: the connections past 64 are closed */
    static int more[80];
    for (int i = 0; i < 80; i++) more[i] = connect_from("127.0.2.1", d.port);
    td_sleep(1.0);
    int open = open_count(more, 80);
    fprintf(stderr, "80 connections from one address: %d kept open\n", open);
    ck_assert_int_eq(open, 64);
    for (int i = 0; i < 80; i++) close(more[i]);

    /* the head deadline (4 s) closes every slow connection */
    double end = opened + 4 + 10;
    int left = SLOW;
    while ((left = open_count(fds, SLOW)) > 0 && td_now() < end) td_sleep(0.25);
    fprintf(stderr, "slow connections closed %.1f s after they went quiet (%d left)\n",
            td_now() - opened, left);
    ck_assert_int_eq(left, 0);
    for (int i = 0; i < SLOW; i++) close(fds[i]);
    td_stop(&d);
}
END_TEST

/* ---- item 3: memory of big documents ---- */

/* ASan keeps freed blocks in a quarantine (256 MiB by default) before
 * reusing them, so sequential parses would pile up in RSS as if they ran
 * at once: the daemons of these cases get a small one. */
static void small_quarantine(int on)
{
    static char saved[512];
    static int had;
    if (on) {
        const char *o = getenv("ASAN_OPTIONS");
        had = o != NULL;
        snprintf(saved, sizeof saved, "%s", o ? o : "");
        char opts[600];
        snprintf(opts, sizeof opts, "%s%squarantine_size_mb=4", saved, saved[0] ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
    } else if (had) {
        setenv("ASAN_OPTIONS", saved, 1);
    } else {
        unsetenv("ASAN_OPTIONS");
    }
}

/* About 8 MB: a list generator whose spheres are 4.1 million zeros. */
static char *huge_array_doc(size_t *len)
{
    static const char head[] =
        "{\"name\": \"huge\", \"scene\": {\"materials\": [{\"name\": \"m\"}], "
        "\"particles\": [{\"type\": \"list\", \"spheres\": [";
    static const char tail[] = "0]}]}, \"solver\": {\"time_step\": 0.001, \"duration\": 0.01}}";
    size_t n = 4100000;
    char *s = malloc(sizeof head + 2 * n + sizeof tail);
    char *p = s + sizeof head - 1;
    memcpy(s, head, sizeof head - 1);
    for (size_t i = 0; i < n; i++) *p++ = '0', *p++ = ',';
    memcpy(p, tail, sizeof tail);
    *len = (size_t)(p - s) + sizeof tail - 1;
    return s;
}

START_TEST(huge_arrays_are_refused_before_parsing)
{
    td_daemon d;
    small_quarantine(1);
    td_start(&d, (char *)NULL);
    small_quarantine(0);
    size_t len;
    char *doc = huge_array_doc(&len);
    ck_assert_uint_lt(len, 8388608); /* under --max-body */
    long rss0 = proc_kb(d.pid, "VmRSS:"), hwm0 = proc_kb(d.pid, "VmHWM:");
    for (int i = 0; i < 3; i++) {
        double t0 = td_now();
        td_resp r = td_http(&d, "POST", "/api/v1/jobs", "application/json", doc, len, NULL);
        cJSON *p = expect_problem(&r, 422);
        const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "errors"), 0);
        ck_assert_str_eq(td_str(e, "pointer"), "/scene/particles/0/spheres");
        ck_assert_ptr_nonnull(strstr(td_str(e, "message"), "2000000"));
        fprintf(stderr, "8 MB body of 4.1 M values: %ld in %.2f s\n", r.status, td_now() - t0);
        cJSON_Delete(p);
        td_resp_free(&r);
    }
    long rss1 = proc_kb(d.pid, "VmRSS:"), hwm1 = proc_kb(d.pid, "VmHWM:");
    fprintf(stderr, "RSS %.0f -> %.0f MiB, peak %.0f -> %.0f MiB\n", rss0 / 1024.0, rss1 / 1024.0,
            hwm0 / 1024.0, hwm1 / 1024.0);
    /* the body buffer (16 MiB at most) and the sanitizer's bookkeeping; a
     * parse tree of 4.1 M values would take 320 MiB (more under ASan) */
    ck_assert_msg(hwm1 - hwm0 < 150 * 1024, "peak RSS grew by %.0f MiB", (hwm1 - hwm0) / 1024.0);
    free(doc);
    td_stop(&d);
}
END_TEST

/* n spheres in a list: about 5 n values, 9 bytes a sphere. */
static char *spheres_doc(long n, size_t *len)
{
    static const char head[] = "{\"name\": \"many\", \"scene\": {\"particles\": [{\"type\": "
                               "\"list\", \"spheres\": [";
    static const char tail[] = "[0,0,0,1]]}]}}";
    char *s = malloc(sizeof head + 10 * (size_t)n + sizeof tail);
    char *p = s + sizeof head - 1;
    memcpy(s, head, sizeof head - 1);
    for (long i = 0; i < n - 1; i++) {
        memcpy(p, "[0,0,0,1],", 10);
        p += 10;
    }
    memcpy(p, tail, sizeof tail);
    *len = (size_t)(p - s) + sizeof tail - 1;
    return s;
}

typedef struct post_arg {
    const td_daemon *d;
    const char *doc;
    size_t len;
    td_resp r;
} post_arg;

static void *post_thread(void *arg)
{
    post_arg *a = arg;
    a->r = td_http(a->d, "POST", "/api/v1/jobs", "application/json", a->doc, a->len, NULL);
    return NULL;
}

START_TEST(parse_budget_bounds_concurrent_parses)
{
    /* 400,000 spheres (4 MB): about 2 M values, an estimate of about 196 MiB */
    size_t len;
    char *doc = spheres_doc(400000, &len);
    td_daemon d;
    td_start(&d, "--parse-budget", "67108864", (char *)NULL);
    td_resp r = td_http(&d, "POST", "/api/v1/jobs", "application/json", doc, len, NULL);
    cJSON *p = expect_problem(&r, 413);
    ck_assert_ptr_nonnull(strstr(td_str(p, "detail"), "--parse-budget 64 MiB"));
    cJSON_Delete(p);
    td_resp_free(&r);
    td_stop(&d);

    /* a budget one such parse fits in, not two: four at once are either
     * parsed (422: no materials) or sent back with 503 */
    small_quarantine(1);
    td_start(&d, "--parse-budget", "250000000", (char *)NULL);
    small_quarantine(0);
    long hwm0 = proc_kb(d.pid, "VmHWM:");
    enum { N = 4 };
    post_arg args[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        args[i] = (post_arg){&d, doc, len, {0}};
        ck_assert_int_eq(pthread_create(&th[i], NULL, post_thread, &args[i]), 0);
    }
    int busy = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(args[i].r.status == 422 || args[i].r.status == 503, "%ld %s",
                      args[i].r.status, args[i].r.body);
        cJSON_Delete(expect_problem(&args[i].r, args[i].r.status));
        busy += args[i].r.status == 503;
        td_resp_free(&args[i].r);
    }
    long hwm1 = proc_kb(d.pid, "VmHWM:");
    fprintf(stderr, "4 parallel parses of 2 M values: %d sent back (503); peak RSS +%.0f MiB\n",
            busy, (hwm1 - hwm0) / 1024.0);
    /* one tree at a time: under ASan about 260 MiB; four at once (when
     * the requests overlap, as they mostly do) took about 490 MiB */
    ck_assert_msg(hwm1 - hwm0 < 380 * 1024, "peak RSS grew by %.0f MiB", (hwm1 - hwm0) / 1024.0);
    free(doc);
    td_stop(&d);
}
END_TEST

/* The scan itself (api/job_scan.c), without a daemon: value counts,
 * pointers of over-long arrays and of NULs, and escapes that are not NULs. */
START_TEST(scan_counts_values_and_finds_nul_and_long_arrays)
{
    ndem_job_errors errs = {0};
    size_t values = 0;
    static const char small[] = "{\"a\": [1, 2, [3, 4]], \"b\": {\"c\": \"x,y\"}}";
    ck_assert_int_eq(ndem_job_scan(small, strlen(small), 10, &values, &errs), NDEM_JOB_OK);
    ck_assert_uint_eq(values, 9); /* root, a, 1, 2, [3, 4], 3, 4, b, c */
    ck_assert_int_eq(errs.count, 0);

    /* spheres may hold max_particles entries, not one more */
    static const char three[] =
        "{\"scene\": {\"particles\": [{}, {\"spheres\": [[0,0,0,1], [0,0,1,1], [0,1,0,1]]}]}}";
    ck_assert_int_eq(ndem_job_scan(three, strlen(three), 3, NULL, &errs), NDEM_JOB_OK);
    ck_assert_int_eq(ndem_job_scan(three, strlen(three), 2, NULL, &errs), NDEM_JOB_INVALID);
    ck_assert_int_eq(errs.count, 1);
    ck_assert_str_eq(errs.items[0].pointer, "/scene/particles/1/spheres");
    ndem_job_errors_clear(&errs);
    /* any other array: NDEM_JOB_MAX_ARRAY */
    size_t n = NDEM_JOB_MAX_ARRAY + 1;
    char *wide = malloc(2 * n + 16);
    char *w = wide + sprintf(wide, "{\"x~/\": [");
    for (size_t i = 0; i < n; i++) *w++ = '0', *w++ = ',';
    strcpy(w - 1, "]}");
    ck_assert_int_eq(ndem_job_scan(wide, strlen(wide), 1000000, NULL, &errs), NDEM_JOB_INVALID);
    ck_assert_str_eq(errs.items[0].pointer, "/x~0~1");
    ndem_job_errors_clear(&errs);
    /* without a particle limit (the command line) arrays are not checked */
    ck_assert_int_eq(ndem_job_scan(wide, strlen(wide), 0, NULL, &errs), NDEM_JOB_OK);
    free(wide);

    /* NUL in a value, in a key, and an escaped backslash that is no NUL */
    static const char nul[] = "{\"m\": [{\"name\": \"ok\"}, {\"name\": \"t\\u0000iny\"}]}";
    ck_assert_int_eq(ndem_job_scan(nul, strlen(nul), 0, NULL, &errs), NDEM_JOB_INVALID);
    ck_assert_str_eq(errs.items[0].pointer, "/m/1/name");
    ndem_job_errors_clear(&errs);
    static const char not_nul[] = "{\"name\": \"a\\\\u0000\"}";
    ck_assert_int_eq(ndem_job_scan(not_nul, strlen(not_nul), 0, NULL, &errs), NDEM_JOB_OK);
    /* ndem_job_parse (the command line too) refuses NULs */
    ndem_job *job = NULL;
    ck_assert_int_eq(ndem_job_parse(nul, strlen(nul), &job, &errs), NDEM_JOB_INVALID);
    ck_assert_ptr_null(job);
    ck_assert_str_eq(errs.items[0].pointer, "/m/1/name");
    ndem_job_errors_clear(&errs);
}
END_TEST

static Suite *http_suite(void)
{
    Suite *s = suite_create("http");
    TCase *tc = tcase_create("scan");
    tcase_add_test(tc, scan_counts_values_and_finds_nul_and_long_arrays);
    suite_add_tcase(s, tc);
    tc = tcase_create("origin");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cross_site_requests_are_refused);
    tcase_add_test(tc, public_url_and_allowed_origins);
    suite_add_tcase(s, tc);
    tc = tcase_create("leniency");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, nul_and_invalid_utf8_in_documents);
    tcase_add_test(tc, malformed_framing_gets_problem_json_at_once);
    tcase_add_test(tc, http_level_errors_are_problem_json);
    tcase_add_test(tc, good_requests_pass_the_gate);
    suite_add_tcase(s, tc);
    tc = tcase_create("slow");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, slow_connections_do_not_deny_the_api);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, huge_arrays_are_refused_before_parsing);
    tcase_add_test(tc, parse_budget_bounds_concurrent_parses);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = ndem_test_run_suite(http_suite());
    td_kill_children();
    curl_global_cleanup();
    return rc;
}
