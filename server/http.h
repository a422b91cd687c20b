/* http.h - the HTTP layer over libmicrohttpd (http.c): requests, routing
 * by table, bodies with a size limit, responses and problem+json errors. */
#ifndef NDEM_SERVER_HTTP_H
#define NDEM_SERVER_HTTP_H

#include <stddef.h>

typedef struct ndem_http ndem_http;
typedef struct ndem_request ndem_request;

#define NDEM_ROUTE_PARAMS 4

struct ndem_request {
    void *conn; /* struct MHD_Connection */
    const char *method;
    char path[1024];
    char *params[NDEM_ROUTE_PARAMS]; /* {name} segments of the route, in order */
    char *body;
    size_t body_len, body_cap;
    int too_large;
    int responded;
    double started;
    /* the response */
    int status;
    char *resp;
    size_t resp_len;
    const char *resp_type;
    char location[256];
    char allow[64];
    int retry_after;
    int unauthorized; /* a 401: the answer names the Bearer scheme */
    /* who asks (filled before the handler runs): the token's name, "" when
     * authentication is off or the route is public; admin is 1 for admin
     * tokens and whenever authentication is off (everything is visible) */
    char owner[65];
    int admin;
    struct ndem_http_stream *stream; /* a body made while it is sent (ndem_http_reply_stream) */
};

/* What a route's body is: its Content-Types (http.c) and whether --max-body
 * is checked before it is read. A state-changing route without a body
 * still wants application/json (no cross-site form can send it). */
enum { NDEM_BODY_NONE = 0, NDEM_BODY_JSON = 1, NDEM_BODY_STL = 2 };

/* Who may call a route when authentication is on. The default (0, what a
 * route that says nothing gets) needs a valid bearer token: a new route is
 * protected unless it declares itself otherwise. */
enum {
    NDEM_ACCESS_TOKEN = 0,    /* any valid token; the handler filters by owner */
    NDEM_ACCESS_ADMIN = 1,    /* an admin token (403 for others) */
    NDEM_ACCESS_PUBLIC = 2,   /* no token (GET /health) */
    NDEM_ACCESS_INTERNAL = 3, /* no bearer token: the handler checks its own secret */
};

/* A route: method, pattern of "/"-separated segments where "{name}" matches
 * any one segment, handler, its body (NDEM_BODY_*) and who may call it
 * (NDEM_ACCESS_*). */
typedef struct ndem_route {
    const char *method;
    const char *pattern;
    void (*handler)(void *app, ndem_request *req);
    int body;
    int access;
} ndem_route;

typedef void (*ndem_fallback)(void *app, ndem_request *req);

/* How ndemd listens: threads, body limit, connection limits and timeout,
 * and which Origin headers may reach state-changing routes (origin_ok gets
 * app and the header; NULL lets every origin in). */
typedef struct ndem_http_opts {
    long threads;
    long max_body;
    long timeout;          /* seconds a connection may stay silent */
    double head_timeout;   /* seconds a connection may take to send its request head */
    long connection_limit; /* connections at once */
    long per_ip_limit;     /* connections at once from one address */
    int (*origin_ok)(void *app, const char *origin);
    /* 1 when a Host header names this server (NULL: any); others get 421 */
    int (*host_ok)(void *app, const char *host);
    /* NULL: no authentication (every request is admin). Else checks the
     * token of "Authorization: Bearer TOKEN" (NULL when there is none): 0
     * with owner (65 bytes) and *admin filled, 1 when it is no valid
     * token, -1 when the store failed. */
    int (*authenticate)(void *app, const char *token, char *owner, int *admin);
} ndem_http_opts;

/* The token of an "Authorization: Bearer TOKEN" header value, or NULL. */
const char *ndem_http_bearer(const char *authorization);

/* routes ends with an entry whose method is NULL; fallback answers GET
 * requests no route matches (static files). */
ndem_http *ndem_http_start(const char *host, int port, const ndem_http_opts *opts,
                           const ndem_route *routes, ndem_fallback fallback, void *app, char *err,
                           size_t err_len);
void ndem_http_stop(ndem_http *h);
int ndem_http_port(const ndem_http *h);
long ndem_http_requests(ndem_http *h);

/* Request headers and query arguments (NULL when absent). */
const char *ndem_http_header(ndem_request *req, const char *name);
const char *ndem_http_query(ndem_request *req, const char *name);

/* Answers with body (malloc'd, taken; may be NULL for an empty body). */
void ndem_http_reply(ndem_request *req, int status, const char *type, char *body, size_t len);
/* Answers with a body made while it is sent (chunked; memory stays that of
 * one piece): read fills buf with up to max bytes and returns how many, 0
 * at the end, -1 on an error (the connection is then closed: the client
 * sees a body cut short). done(ctx) is called once, when the response is
 * released (sent, aborted, or never sent). */
void ndem_http_reply_stream(ndem_request *req, int status, const char *type,
                            long (*read)(void *ctx, char *buf, size_t max), void (*done)(void *ctx),
                            void *ctx);
/* The reason phrase of a status ("Not Found"). */
const char *ndem_http_status_title(int status);
/* The application/problem+json text (malloc'd) of status with detail (made
 * valid UTF-8); errors_json is a JSON array text or NULL. Needs no request:
 * the gate answers with it before libmicrohttpd has one. */
char *ndem_http_problem_text(int status, const char *errors_json, const char *detail);
/* application/problem+json (RFC 9457); errors_json is a JSON array text or NULL. */
void ndem_http_problem(ndem_request *req, int status, const char *errors_json, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A refusal made where there is no request (the job service, jobs.c), to be
 * answered later with ndem_http_reply_problem. */
typedef struct ndem_problem {
    int status;      /* the HTTP status */
    int retry_after; /* seconds for Retry-After; 0: none */
    char *errors;    /* the `errors` list as JSON text (malloc'd), or NULL */
    char detail[1024];
} ndem_problem;
/* Sets p's status and detail (its errors and retry_after are left as they are). */
void ndem_problem_set(ndem_problem *p, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Answers p as ndem_http_problem does and frees its errors. */
void ndem_http_reply_problem(ndem_request *req, ndem_problem *p);

#endif
