/* authutil.h - helpers of tests/test_auth.c: the token commands, HTTP with
 * a bearer token (and whether the answer named the Bearer scheme), files,
 * and a daemon listening on 0.0.0.0, where authentication is on by
 * default. */
#ifndef NDEM_TESTS_AUTHUTIL_H
#define NDEM_TESTS_AUTHUTIL_H

#include "daemon.h"

/* ---- the token commands ---- */

/* Runs `ndemd token ARGS --data DIR`; its stdout into out (may be NULL),
 * its exit status returned. */
static inline int token_cmd(const char *dir, const char *args, char *out, size_t len)
{
    char cmd[1024];
    ck_assert(dir[0]); /* never the system's /var */
    snprintf(cmd, sizeof cmd, "%s token %s --data %s/var 2>%s/token.err", td_bin(), args, dir, dir);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = 0;
    int st = pclose(p);
    if (out) snprintf(out, len, "%s", buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `ndemd token create` must succeed; the token (one line) into tok. */
static inline void create_token(const char *dir, const char *name, int admin, char *tok)
{
    char args[128];
    snprintf(args, sizeof args, "create %s%s", name, admin ? " --admin" : "");
    ck_assert_int_eq(token_cmd(dir, args, tok, 128), 0);
    tok[strcspn(tok, "\n")] = 0;
    ck_assert_msg(strlen(tok) == 48 && !strncmp(tok, "ndem_", 5), "token '%s'", tok);
}

/* ---- HTTP with a token ---- */

typedef struct auth_resp {
    td_resp r;
    int bearer_challenge; /* a WWW-Authenticate: Bearer header came */
} auth_resp;

static inline size_t header_cb(char *data, size_t size, size_t n, void *user)
{
    auth_resp *a = user;
    size_t len = size * n;
    if (len > 24 && !strncasecmp(data, "WWW-Authenticate: Bearer", 24)) a->bearer_challenge = 1;
    return td_header_cb(data, size, n, &a->r);
}

/* method path of d with "Authorization: Bearer token" (token NULL: none). */
static inline auth_resp call_d(const td_daemon *d, const char *token, const char *method,
                               const char *path, const char *type, const char *body, size_t len)
{
    auth_resp a;
    memset(&a, 0, sizeof a);
    struct curl_slist *hdrs;
    CURL *c = td_easy(d, &a.r, method, path, type, body, len, NULL, &hdrs);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &a);
    if (token) {
        char h[256];
        snprintf(h, sizeof h, "Authorization: Bearer %s", token);
        hdrs = curl_slist_append(hdrs, h);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    }
    CURLcode rc = curl_easy_perform(c);
    ck_assert_msg(rc == CURLE_OK, "%s %s: %s", method, path, curl_easy_strerror(rc));
    td_finish(c, &a.r);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
    return a;
}

static inline void expect(auth_resp *a, long status, const char *what)
{
    ck_assert_msg(a->r.status == status, "%s: %ld, wanted %ld: %s", what, a->r.status, status,
                  a->r.body ? a->r.body : "");
}

static inline char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    ck_assert_int_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

/* 1 when the bytes hold text (memmem is a GNU extension). */
static inline int contains(const char *bytes, size_t len, const char *text)
{
    size_t n = strlen(text);
    for (size_t i = 0; i + n <= len; i++)
        if (!memcmp(bytes + i, text, n)) return 1;
    return 0;
}

/* Prepares d (a fresh directory, fresh ports) for ndemd on 0.0.0.0, HTTP
 * and streams, with the extra options (NULL ended); hostports keeps the
 * two addresses as long as d's arguments are used (restarts too). The
 * caller makes tokens in d->dir, then td_spawn(d). */
static inline void prepare_exposed(td_daemon *d, char hostports[2][64], const char *const *extra)
{
    td_make_dir(d);
    snprintf(d->log, sizeof d->log, "%s/ndemd.log", d->dir);
    d->port = td_free_ports();
    ck_assert_int_gt(d->port, 0);
    d->ws_port = d->port + 1;
    snprintf(d->base, sizeof d->base, "http://127.0.0.1:%d", d->port);
    snprintf(hostports[0], 64, "0.0.0.0:%d", d->port);
    snprintf(hostports[1], 64, "0.0.0.0:%d", d->ws_port);
    d->args[d->nargs++] = "--listen";
    d->args[d->nargs++] = hostports[0];
    d->args[d->nargs++] = "--ws-listen";
    d->args[d->nargs++] = hostports[1];
    for (; extra && *extra; extra++) d->args[d->nargs++] = *extra;
}

#endif
