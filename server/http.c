/* http.c - the HTTP side of ndemd, on libmicrohttpd with its own thread
 * pool (epoll, a connection limit, a per-address limit and an idle
 * timeout, so slow clients cannot take every connection). It does not
 * listen: the gate (gate.c) accepts, checks each request head and hands
 * good connections over; every answer closes its connection, so that each
 * request passes the gate. Routing is a
 * table (routes.c): method, path pattern, handler. This file owns what
 * every route shares, so handlers never repeat it: malformed framing is
 * refused before routing (400: HTTP/1.1 without Host, two Host or two
 * different Content-Length headers, Content-Length with
 * Transfer-Encoding), a Host that names another server gets 421 (DNS
 * rebinding), state-changing routes (POST, PUT, PATCH, DELETE)
 * refuse a foreign Origin with 403 and any Content-Type but their route's
 * (application/json; model/stl for uploads) with 415, so no cross-site
 * form can reach them, the
 * body is gathered up to --max-body (413 at once when Content-Length says
 * more; any chunked body gets 411 before a chunk is read, as
 * libmicrohttpd tells no chunk sizes and waited forever for a chunk of
 * 2^64 - 1 bytes), a route that needs a bearer token (its access in the
 * table, NDEM_ACCESS_*) gets 401 without a valid one before its body is
 * read, unknown paths get 404 and known paths with
 * the wrong method 405 (with Allow), every error of ours is
 * application/problem+json (RFC 9457) with a valid UTF-8 detail, and every
 * request ends with one log line: method, path, status, bytes, time. */
#include "http.h"

#include "gate.h"
#include "jsonw.h"
#include "log.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct ndem_http {
    struct MHD_Daemon *daemon;
    ndem_gate *gate; /* listens and checks each request head first */
    const ndem_route *routes;
    ndem_fallback fallback;
    void *app;
    size_t max_body;
    int (*origin_ok)(void *app, const char *origin);
    int (*host_ok)(void *app, const char *host);
    int (*authenticate)(void *app, const char *token, char *owner, int *admin);
    atomic_long requests;
};

const char *ndem_http_header(ndem_request *req, const char *name)
{
    return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *ndem_http_query(ndem_request *req, const char *name)
{
    return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

static void stream_free(struct ndem_http_stream *st);

void ndem_http_reply(ndem_request *req, int status, const char *type, char *body, size_t len)
{
    stream_free(req->stream); /* a plain answer replaces a streamed one */
    req->stream = NULL;
    free(req->resp);
    req->status = status;
    req->resp = body;
    req->resp_len = body ? len : 0;
    req->resp_type = type;
}

typedef struct ndem_http_stream {
    long (*read)(void *ctx, char *buf, size_t max);
    void (*done)(void *ctx);
    void *ctx;
} ndem_http_stream;

static void stream_free(struct ndem_http_stream *st)
{
    if (!st) return;
    if (st->done) st->done(st->ctx);
    free(st);
}

void ndem_http_reply_stream(ndem_request *req, int status, const char *type,
                            long (*read)(void *ctx, char *buf, size_t max), void (*done)(void *ctx),
                            void *ctx)
{
    ndem_http_stream *st = calloc(1, sizeof *st);
    if (!st) {
        if (done) done(ctx);
        ndem_http_problem(req, 500, NULL, "out of memory");
        return;
    }
    st->read = read, st->done = done, st->ctx = ctx;
    stream_free(req->stream);
    free(req->resp);
    req->resp = NULL;
    req->resp_len = 0;
    req->stream = st;
    req->status = status;
    req->resp_type = type;
}

/* libmicrohttpd's reader and its release, over ndem_http_stream. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    ndem_http_stream *st = cls;
    long n = st->read(st->ctx, buf, max);
    return n > 0    ? (ssize_t)n
           : n == 0 ? MHD_CONTENT_READER_END_OF_STREAM
                    : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void stream_release(void *cls) { stream_free(cls); }

const char *ndem_http_status_title(int status)
{
    switch (status) {
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 411:
        return "Length Required";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 415:
        return "Unsupported Media Type";
    case 421:
        return "Misdirected Request";
    case 422:
        return "Unprocessable Content";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Error";
    }
}

/* Copies s with every byte that is not part of valid UTF-8 replaced by
 * U+FFFD: details echo what clients sent, and the answer must stay JSON. */
static void utf8_clean(const char *s, char *out, size_t n)
{
    size_t o = 0;
    while (*s && o + 4 < n) {
        int len = ndem_jw_utf8_len(s);
        if (len <= 0) {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            s++;
        } else {
            memcpy(out + o, s, (size_t)len);
            o += (size_t)len;
            s += len;
        }
    }
    out[o] = 0;
}

char *ndem_http_problem_text(int status, const char *errors_json, const char *detail)
{
    char clean[3 * 1024];
    utf8_clean(detail, clean, sizeof clean);
    cJSON *o = cJSON_CreateObject();
    char type[64];
    snprintf(type, sizeof type, "https://ndem.dev/problems/%d", status);
    cJSON_AddStringToObject(o, "type", type);
    cJSON_AddStringToObject(o, "title", ndem_http_status_title(status));
    cJSON_AddNumberToObject(o, "status", status);
    cJSON_AddStringToObject(o, "detail", clean);
    cJSON *errs = errors_json ? cJSON_Parse(errors_json) : NULL;
    if (errs) cJSON_AddItemToObject(o, "errors", errs);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

void ndem_http_problem(ndem_request *req, int status, const char *errors_json, const char *fmt, ...)
{
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    char *text = ndem_http_problem_text(status, errors_json, detail);
    ndem_http_reply(req, status, "application/problem+json", text, text ? strlen(text) : 0);
}

void ndem_problem_set(ndem_problem *p, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->detail, sizeof p->detail, fmt, ap);
    va_end(ap);
    p->status = status;
}

void ndem_http_reply_problem(ndem_request *req, ndem_problem *p)
{
    if (p->retry_after) req->retry_after = p->retry_after;
    ndem_http_problem(req, p->status, p->errors, "%s", p->detail);
    free(p->errors);
    p->errors = NULL;
}

/* Matches path against pattern; fills req->params. */
static int match(const char *pattern, const char *path, ndem_request *req, char *scratch)
{
    int nparams = 0;
    const char *p = pattern, *u = path;
    char *out = scratch;
    while (*p && *u) {
        if (*p != '/' || *u != '/') return 0;
        p++, u++;
        const char *pe = strchr(p, '/'), *ue = strchr(u, '/');
        size_t pl = pe ? (size_t)(pe - p) : strlen(p), ul = ue ? (size_t)(ue - u) : strlen(u);
        if (pl > 1 && p[0] == '{') {
            if (ul == 0 || nparams == NDEM_ROUTE_PARAMS) return 0;
            memcpy(out, u, ul);
            out[ul] = 0;
            req->params[nparams++] = out;
            out += ul + 1;
        } else if (pl != ul || strncmp(p, u, pl)) {
            return 0;
        }
        p += pl, u += ul;
    }
    return !*p && !*u;
}

/* The route for the request; *path_known when some route has this path
 * (for 405), with its methods in req->allow. */
static const ndem_route *route_of(ndem_http *h, ndem_request *req, int *path_known)
{
    *path_known = 0;
    req->allow[0] = 0;
    const ndem_route *found = NULL;
    char *scratch = req->path + strlen(req->path) + 1; /* params live after the path */
    for (const ndem_route *r = h->routes; r->method; r++) {
        if (!match(r->pattern, req->path, req, scratch)) continue;
        *path_known = 1;
        size_t n = strlen(req->allow);
        snprintf(req->allow + n, sizeof req->allow - n, "%s%s", n ? ", " : "", r->method);
        int head = !strcmp(req->method, "HEAD") && !strcmp(r->method, "GET"); /* no body */
        if (!found && (head || !strcmp(r->method, req->method))) found = r;
    }
    if (found) match(found->pattern, req->path, req, scratch);
    return found;
}

/* The Content-Types each NDEM_BODY_* accepts (parameters after ';' are
 * ignored). STL comes as model/stl or application/octet-stream: neither
 * can be sent by a cross-site form without a CORS preflight. */
static const char *const body_types[][3] = {
    [NDEM_BODY_NONE] = {"application/json", NULL},
    [NDEM_BODY_JSON] = {"application/json", NULL},
    [NDEM_BODY_STL] = {"model/stl", "application/octet-stream", NULL},
};

static int type_is(const char *type, const char *want)
{
    size_t n = strlen(want);
    if (strncasecmp(type, want, n)) return 0;
    return type[n] == 0 || type[n] == ';' || type[n] == ' ';
}

static int body_type_ok(int body, const char *type)
{
    for (int i = 0; type && body_types[body][i]; i++)
        if (type_is(type, body_types[body][i])) return 1;
    return 0;
}

/* Counts of the framing headers, which libmicrohttpd does not check. */
typedef struct framing {
    int host, length, chunked;
    const char *first_length;
    int lengths_differ;
} framing;

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    framing *f = cls;
    if (!strcasecmp(key, MHD_HTTP_HEADER_HOST)) f->host++;
    if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) f->chunked = 1; /* any coding */
    if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
        if (f->length++ && strcmp(value, f->first_length)) f->lengths_differ = 1;
        if (!f->first_length) f->first_length = value;
    }
    return MHD_YES;
}

/* 400 for framing that two parties could read differently (smuggling) or
 * that HTTP/1.1 forbids; NULL when the request is well framed. */
static const char *framing_fault(struct MHD_Connection *conn, const char *version, framing *f)
{
    memset(f, 0, sizeof *f);
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_header, f);
    if (f->host > 1) return "the request has more than one Host header";
    if (!f->host && !strcmp(version, MHD_HTTP_VERSION_1_1))
        return "an HTTP/1.1 request must have a Host header";
    if (f->lengths_differ) return "the request has Content-Length headers that differ";
    if (f->length && f->chunked) return "the request has both Content-Length and Transfer-Encoding";
    return NULL;
}

static int state_changing(const char *method)
{
    return strcmp(method, "GET") && strcmp(method, "HEAD") && strcmp(method, "OPTIONS");
}

/* The checks of a routed request before its body: 0 to go on, else the
 * status of the problem it got. */
static int refuse_early(ndem_http *h, ndem_request *req, const ndem_route *r, const framing *f)
{
    if (state_changing(req->method)) {
        const char *origin = ndem_http_header(req, "Origin");
        if (origin && h->origin_ok && !h->origin_ok(h->app, origin)) {
            ndem_http_problem(req, 403, NULL,
                              "requests from origin '%.200s' may not change jobs here "
                              "(see --public-url and --allow-origin)",
                              origin);
            return 403;
        }
        if (!body_type_ok(r->body, ndem_http_header(req, MHD_HTTP_HEADER_CONTENT_TYPE))) {
            if (r->body == NDEM_BODY_STL)
                ndem_http_problem(req, 415, NULL,
                                  "%s %s needs Content-Type: model/stl or "
                                  "application/octet-stream",
                                  req->method, req->path);
            else
                ndem_http_problem(req, 415, NULL,
                                  "%s %s needs Content-Type: application/json, with or without "
                                  "a body",
                                  req->method, req->path);
            return 415;
        }
    }
    if (r->body == NDEM_BODY_NONE) return 0;
    const char *len = f->first_length;
    if (len && strtoull(len, NULL, 10) > h->max_body) {
        ndem_http_problem(req, 413, NULL, "the body is %.40s bytes; the limit is %zu", len,
                          h->max_body);
        return 413;
    }
    return 0;
}

const char *ndem_http_bearer(const char *authorization)
{
    if (!authorization || strncasecmp(authorization, "Bearer ", 7)) return NULL;
    const char *t = authorization + 7;
    while (*t == ' ') t++;
    return *t ? t : NULL;
}

/* Who asks, for the route's access (NDEM_ACCESS_*): 0 to go on, else the
 * status of the problem it got (401 without a valid token, 403 for a
 * non-admin token on an admin route). Without authentication every
 * request may see everything. */
static int refuse_unauthorized(ndem_http *h, ndem_request *req, const ndem_route *r)
{
    req->owner[0] = 0;
    req->admin = 1;
    if (!h->authenticate || r->access == NDEM_ACCESS_PUBLIC || r->access == NDEM_ACCESS_INTERNAL)
        return 0;
    req->admin = 0;
    const char *token = ndem_http_bearer(ndem_http_header(req, MHD_HTTP_HEADER_AUTHORIZATION));
    int rc = token ? h->authenticate(h->app, token, req->owner, &req->admin) : 1;
    if (rc < 0) {
        ndem_http_problem(req, 500, NULL, "the token store failed");
        return 500;
    }
    if (rc > 0) {
        req->unauthorized = 1;
        ndem_http_problem(req, 401, NULL,
                          token ? "the bearer token is not valid (unknown or revoked)"
                                : "%s %s needs Authorization: Bearer TOKEN (ndemd token create)",
                          req->method, req->path);
        return 401;
    }
    if (r->access == NDEM_ACCESS_ADMIN && !req->admin) {
        ndem_http_problem(req, 403, NULL, "%s %s needs an admin token (ndemd token create --admin)",
                          req->method, req->path);
        return 403;
    }
    return 0;
}

static enum MHD_Result send_response(ndem_request *req)
{
    struct MHD_Response *r;
    if (req->stream) {
        r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, stream_read, req->stream,
                                              stream_release);
        if (!r) return MHD_NO;
        req->stream = NULL; /* libmicrohttpd releases it now */
    } else {
        r = MHD_create_response_from_buffer(req->resp_len, req->resp ? req->resp : (void *)"",
                                            req->resp ? MHD_RESPMEM_MUST_FREE
                                                      : MHD_RESPMEM_PERSISTENT);
        if (!r) return MHD_NO;
        req->resp = NULL; /* libmicrohttpd frees it now */
    }
    if (req->resp_type) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, req->resp_type);
    /* one request per connection: a second one on a kept-alive connection
     * would not pass the gate (gate.c, docs/api.md) */
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    if (req->location[0]) MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, req->location);
    if (req->unauthorized)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"ndem\"");
    if (req->status == 405 && req->allow[0])
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, req->allow);
    if (req->retry_after > 0) {
        char s[16];
        snprintf(s, sizeof s, "%d", req->retry_after);
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, s);
    }
    enum MHD_Result rc = MHD_queue_response(req->conn, (unsigned)req->status, r);
    MHD_destroy_response(r);
    req->responded = 1;
    return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    ndem_http *h = cls;
    ndem_request *req = *con_cls;
    if (!req) { /* first call: headers only */
        size_t ulen = strlen(url);
        if (ulen >= 500) url = "(too long)", ulen = strlen(url); /* a 404 */
        req = calloc(1, sizeof *req);
        if (!req) return MHD_NO;
        *con_cls = req;
        req->conn = conn;
        req->method = method;
        req->started = ndem_mono();
        memcpy(req->path, url, ulen);
        atomic_fetch_add(&h->requests, 1);
        framing f;
        const char *fault = framing_fault(conn, version, &f);
        if (fault) {
            ndem_http_problem(req, 400, NULL, "%s", fault);
            return send_response(req);
        }
        const char *host = ndem_http_header(req, MHD_HTTP_HEADER_HOST);
        if (host && h->host_ok && !h->host_ok(h->app, host)) {
            ndem_http_problem(req, 421, NULL,
                              "this server does not answer to the name '%.200s' (see "
                              "--public-url and --allow-origin)",
                              host);
            return send_response(req);
        }
        if (f.chunked) { /* before libmicrohttpd reads (or waits for) a chunk */
            ndem_http_problem(req, 411, NULL,
                              "send the body with Content-Length: chunked bodies are not "
                              "accepted");
            return send_response(req);
        }
        int known;
        const ndem_route *r = route_of(h, req, &known);
        if (r && (refuse_unauthorized(h, req, r) || refuse_early(h, req, r, &f)))
            return send_response(req);
        return MHD_YES;
    }
    if (req->responded) { /* an early answer: ignore the rest of the body */
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (req->too_large || req->body_len + n > h->max_body) {
            req->too_large = 1;
            return MHD_YES;
        }
        if (req->body_len + n + 1 > req->body_cap) {
            size_t cap = req->body_cap ? req->body_cap : 4096;
            while (cap < req->body_len + n + 1) cap *= 2;
            char *grown = realloc(req->body, cap);
            if (!grown) return MHD_NO;
            req->body = grown;
            req->body_cap = cap;
        }
        memcpy(req->body + req->body_len, upload, n);
        req->body_len += n;
        req->body[req->body_len] = 0;
        return MHD_YES;
    }
    /* the whole request is in */
    if (req->too_large) {
        ndem_http_problem(req, 413, NULL, "the body is larger than the limit of %zu bytes",
                          h->max_body);
        return send_response(req);
    }
    int known;
    const ndem_route *r = route_of(h, req, &known);
    if (r) r->handler(h->app, req);
    else if (known) ndem_http_problem(req, 405, NULL, "%s is not allowed on %s", method, req->path);
    else if (h->fallback && (!strcmp(method, "GET") || !strcmp(method, "HEAD")))
        h->fallback(h->app, req);
    else ndem_http_problem(req, 404, NULL, "no resource at %s", req->path);
    if (!req->status) ndem_http_problem(req, 500, NULL, "the handler gave no answer");
    return send_response(req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    ndem_request *req = *con_cls;
    if (!req) return;
    ndem_log("http %s %s %d %zu %.1fms%s", req->method, req->path, req->status, req->resp_len,
             1e3 * (ndem_mono() - req->started),
             code == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (aborted)");
    free(req->body);
    free(req->resp);
    stream_free(req->stream);
    free(req);
    *con_cls = NULL;
}

/* The gate's hooks: a connection whose head passed, and the count the
 * connection limit includes. */
static void hand_over(void *ctx, int fd, const struct sockaddr *sa, socklen_t len)
{
    ndem_http *h = ctx;
    if (MHD_add_connection(h->daemon, fd, sa, len) != MHD_YES) /* it closed fd */
        ndem_log("http: a connection was refused (connection limits)");
}

static long held(void *ctx)
{
    ndem_http *h = ctx;
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? (long)info->num_connections : 0;
}

ndem_http *ndem_http_start(const char *host, int port, const ndem_http_opts *opts,
                           const ndem_route *routes, ndem_fallback fallback, void *app, char *err,
                           size_t err_len)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, strcmp(host, "localhost") ? host : "127.0.0.1", &sa.sin_addr) != 1) {
        snprintf(err, err_len, "--listen wants an IPv4 address, not '%s'", host);
        return NULL;
    }
    ndem_http *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    h->routes = routes;
    h->fallback = fallback;
    h->app = app;
    h->max_body = (size_t)opts->max_body;
    h->origin_ok = opts->origin_ok;
    h->host_ok = opts->host_ok;
    h->authenticate = opts->authenticate;
    /* epoll: no FD_SETSIZE ceiling of about 1020 connections; the limits
     * and the idle timeout bound what slow or many clients can hold (a
     * client sending one byte just before each timeout still keeps its
     * connection: the timeout is libmicrohttpd's idle timeout). The gate
     * listens and hands connections over (MHD_add_connection, which needs
     * the inter-thread channel); a head fills at most NDEM_GATE_HEAD_MAX of
     * a connection's memory, with room left for its header records. */
    h->daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC | MHD_USE_ERROR_LOG,
        0, NULL, NULL, on_request, h, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)opts->threads,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)opts->timeout, MHD_OPTION_CONNECTION_LIMIT, (unsigned)opts->connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)opts->per_ip_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(4 * NDEM_GATE_HEAD_MAX), MHD_OPTION_END);
    if (!h->daemon) {
        snprintf(err, err_len, "cannot start the HTTP server");
        free(h);
        return NULL;
    }
    ndem_gate_opts gate = {opts->max_body,
                           opts->head_timeout,
                           opts->connection_limit,
                           opts->per_ip_limit,
                           hand_over,
                           held,
                           h};
    if (!(h->gate = ndem_gate_start(&sa, &gate, err, err_len))) {
        MHD_stop_daemon(h->daemon);
        free(h);
        return NULL;
    }
    return h;
}

int ndem_http_port(const ndem_http *h) { return ndem_gate_port(h->gate); }

long ndem_http_requests(ndem_http *h) { return atomic_load(&h->requests); }

void ndem_http_stop(ndem_http *h)
{
    if (!h) return;
    ndem_gate_stop(h->gate); /* first: it hands connections to the daemon */
    MHD_stop_daemon(h->daemon);
    free(h);
}
