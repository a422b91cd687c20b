/* routes.c - the REST API of docs/api.md, as a table of method, path and
 * handler (the table is at the end). Handlers read their inputs, ask the job
 * service (jobs.c, which decides what the caller owns) to submit, list,
 * read, cancel or delete, read the files (store.c), and answer through
 * http.c; they never block on a running simulation. Static files of --web are served at / by
 * ndem_static_file, which refuses any path that would leave that
 * directory. */
#include "routes.h"

#include "embedded.h"
#include "job.h"
#include "jobdir.h"
#include "log.h"
#include "series.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LIST_DEFAULT 50
#define LIST_MAX 1000

void ndem_reply_json(ndem_request *req, int status, cJSON *o)
{
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text) {
        ndem_http_problem(req, 500, NULL, "out of memory");
        return;
    }
    ndem_http_reply(req, status, "application/json", text, strlen(text));
}

void ndem_add_owner(cJSON *o, const char *owner)
{
    if (owner[0]) cJSON_AddStringToObject(o, "owner", owner);
    else cJSON_AddNullToObject(o, "owner");
}

int ndem_load_job(ndem_app *app, ndem_request *req, ndem_job_row *row)
{
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    if (ndem_jobs_get(app, &who, req->params[0], row, &p) == 0) return 0;
    ndem_http_reply_problem(req, &p);
    return -1;
}

/* The job id that the request's caller has just submitted or cancelled. */
static void reply_resource(ndem_app *app, ndem_request *req, int status, const char *id)
{
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    ndem_job_row row;
    if (ndem_jobs_get(app, &who, id, &row, &p)) {
        ndem_http_problem(req, 500, NULL, "job %s vanished", id);
        return;
    }
    ndem_reply_json(req, status, ndem_resource(app, &row));
    ndem_job_row_free(&row);
}

/* ---- POST /api/v1/jobs ---- */

static void post_job(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    char id[NDEM_ID_LEN + 1];
    if (ndem_jobs_submit(app, &who, req->body ? req->body : "", req->body_len, id, &p)) {
        ndem_http_reply_problem(req, &p);
        return;
    }
    snprintf(req->location, sizeof req->location, "/api/v1/jobs/%s", id);
    reply_resource(app, req, 201, id);
}

/* ---- GET /api/v1/jobs ---- */

int ndem_list_page(ndem_request *req, long *limit, long *before)
{
    const char *limit_s = ndem_http_query(req, "limit");
    const char *cursor = ndem_http_query(req, "cursor");
    *limit = LIST_DEFAULT;
    *before = 0;
    if (limit_s && ndem_parse_long(limit_s, 1, LIST_MAX, limit)) {
        ndem_http_problem(req, 400, NULL, "limit must be a whole number from 1 to %d", LIST_MAX);
        return -1;
    }
    if (cursor && ndem_parse_long(cursor, 1, LONG_MAX, before)) {
        ndem_http_problem(req, 400, NULL, "cursor '%s' is not one this server gave", cursor);
        return -1;
    }
    return 0;
}

int ndem_parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < min || v > max) return -1;
    *out = v;
    return 0;
}

static void list_jobs(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    const char *status = ndem_http_query(req, "status");
    const char *view = ndem_http_query(req, "view");
    long limit, before;
    /* summaries by default: a list of 100 documents of 10^4 spheres each
     * is megabytes nobody asked for; ?view=full includes them */
    int full = view && !strcmp(view, "full");
    if (view && !full && strcmp(view, "summary")) {
        ndem_http_problem(req, 400, NULL, "view must be summary or full, not '%s'", view);
        return;
    }
    if (status) {
        int ok = 0;
        for (int i = 0; i < NDEM_STATUS_COUNT; i++) ok |= !strcmp(status, ndem_status_names[i]);
        if (!ok) {
            ndem_http_problem(req, 400, NULL,
                              "status must be queued, running, succeeded, "
                              "failed or cancelled, not '%s'",
                              status);
            return;
        }
    }
    if (ndem_list_page(req, &limit, &before)) return;
    ndem_job_row *rows;
    int n;
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    if (ndem_jobs_list(app, &who, status, before, (int)limit, &rows, &n, &p)) {
        ndem_http_reply_problem(req, &p);
        return;
    }
    cJSON *o = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(o, "jobs");
    for (int i = 0; i < n; i++) {
        if (!full) { /* not parsed only to be dropped */
            free(rows[i].document);
            rows[i].document = NULL;
        }
        cJSON *item = ndem_resource(app, &rows[i]);
        if (!full) { /* the templates come from the document: both with ?view=full */
            cJSON_DeleteItemFromObjectCaseSensitive(item, "job");
            cJSON_DeleteItemFromObjectCaseSensitive(item, "shapes");
        }
        cJSON_AddItemToArray(list, item);
        ndem_job_row_free(&rows[i]);
    }
    if (n == limit && n > 0) {
        char next[32];
        snprintf(next, sizeof next, "%ld", rows[n - 1].seq);
        cJSON_AddStringToObject(o, "next_cursor", next);
    } else {
        cJSON_AddNullToObject(o, "next_cursor");
    }
    free(rows);
    ndem_reply_json(req, 200, o);
}

/* ---- /api/v1/jobs/{id} ---- */

static void get_job(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_job_row row;
    if (ndem_load_job(app, req, &row)) return;
    ndem_reply_json(req, 200, ndem_resource(app, &row));
    ndem_job_row_free(&row);
}

static void cancel_job(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    int rc = ndem_jobs_cancel(app, &who, req->params[0], &p);
    if (rc < 0) ndem_http_reply_problem(req, &p);
    else reply_resource(app, req, rc == NDEM_CANCEL_RUNNING ? 202 : 200, req->params[0]);
}

/* A report of a job's Slurm run (docs/scale-out.md), authenticated by the
 * job's own secret. */
static void report_job(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    const char *id = req->params[0];
    char why[512], *reply = NULL;
    int rc = 404;
    snprintf(why, sizeof why, "no job with id '%s'", id);
    if (ndem_jobdir_is_id(id))
        rc = ndem_pool_report(app->pool, id, ndem_http_header(req, "X-Ndem-Job-Secret"),
                              req->body ? req->body : "", req->body_len, &reply, why, sizeof why);
    if (rc == 200) ndem_http_reply(req, 200, "application/json", reply, strlen(reply));
    else ndem_http_problem(req, rc, NULL, "%s", why);
}

static void delete_job(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    if (ndem_jobs_delete(app, &who, req->params[0], &p)) ndem_http_reply_problem(req, &p);
    else ndem_http_reply(req, 204, NULL, NULL, 0);
}

/* ---- series (frames: routes_frames.c) ---- */

int ndem_accepts(ndem_request *req, const char *type)
{
    const char *accept = ndem_http_header(req, "Accept");
    return accept && strstr(accept, type);
}

/* A growing text buffer for answers written by hand. */
typedef struct text_buf {
    char *p;
    size_t len, cap;
    int failed;
} text_buf;

static void put(text_buf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1) cap *= 2;
        char *grown = realloc(b->p, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->p = grown;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void puts_(text_buf *b, const char *s) { put(b, s, strlen(s)); }

/* A header name as a JSON string: only [A-Za-z0-9_] survive. */
static void put_name(text_buf *b, const char *s, size_t n)
{
    put(b, "\"", 1);
    for (size_t i = 0; i < n; i++)
        if (isalnum((unsigned char)s[i]) || s[i] == '_') put(b, &s[i], 1);
    put(b, "\"", 1);
}

/* series.csv as JSON columns: {"job", "count", "columns": [...],
 * "series": {"step": [...], ...}}; ?every=N keeps every Nth row (and the
 * last); Accept: text/csv gets the file itself. Written straight from the
 * text, column after column (each number as the file spells it, null when
 * not finite), in memory about the size of the file. */
static void get_series(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_job_row row;
    if (ndem_load_job(app, req, &row)) return;
    ndem_job_row_free(&row);
    long every = 1;
    const char *every_s = ndem_http_query(req, "every");
    if (every_s && ndem_parse_long(every_s, 1, LONG_MAX, &every)) {
        ndem_http_problem(req, 400, NULL, "every must be a whole number of at least 1");
        return;
    }
    char *text;
    size_t len;
    long damaged = -1;
    if (ndem_store_read_series(app->store, row.id, &text, &len, &damaged)) {
        text = strdup("step,time\n"); /* queued: nothing yet */
        len = text ? strlen(text) : 0;
    }
    if (!text) {
        ndem_http_problem(req, 500, NULL, "out of memory");
        return;
    }
    if (ndem_accepts(req, "text/csv")) {
        ndem_http_reply(req, 200, "text/csv", text, len); /* the verified rows */
        return;
    }
    /* the rows kept, each with a cursor at its next field */
    long lines = 0, kept = 0;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    char **cur = malloc((size_t)(lines > 0 ? lines : 1) * sizeof *cur);
    if (!cur) {
        free(text);
        ndem_http_problem(req, 500, NULL, "out of memory");
        return;
    }
    char *header = text, *nl = strchr(text, '\n');
    if (nl) *nl = 0;
    if (ndem_series_has_crc(header, strlen(header)))
        *strrchr(header, ',') = 0; /* the CRC column is the file's, not a series */
    for (long r = 0; nl && nl[1]; r++) {
        char *line = nl + 1;
        nl = strchr(line, '\n');
        if (nl) *nl = 0;
        if (r % every == 0 || !nl || !nl[1]) cur[kept++] = line;
    }
    text_buf b = {0};
    char num[32];
    snprintf(num, sizeof num, "%ld", kept);
    puts_(&b, "{\"job\":\"");
    puts_(&b, row.id);
    puts_(&b, "\",\"count\":");
    puts_(&b, num);
    if (damaged >= 0) {
        snprintf(num, sizeof num, "%ld", damaged);
        puts_(&b, ",\"damaged_row\":");
        puts_(&b, num);
    }
    puts_(&b, ",\"columns\":[");
    for (const char *h = header; *h;) {
        size_t n = strcspn(h, ",");
        put_name(&b, h, n);
        h += n;
        if (*h) h++, put(&b, ",", 1);
    }
    puts_(&b, "],\"series\":{");
    for (const char *h = header; *h;) {
        size_t n = strcspn(h, ",");
        put_name(&b, h, n);
        put(&b, ":[", 2);
        for (long r = 0; r < kept; r++) {
            size_t k = strcspn(cur[r], ",");
            char *after;
            double v = strtod(cur[r], &after);
            if (r) put(&b, ",", 1);
            if (k > 0 && after == cur[r] + k && isfinite(v)) put(&b, cur[r], k);
            else puts_(&b, "null");
            cur[r] += k + (cur[r][k] == ',');
        }
        put(&b, "]", 1);
        h += n;
        if (*h) h++, put(&b, ",", 1);
    }
    puts_(&b, "}}");
    free(cur);
    free(text);
    if (b.failed) {
        free(b.p);
        ndem_http_problem(req, 500, NULL, "out of memory");
    } else {
        ndem_http_reply(req, 200, "application/json", b.p, b.len);
    }
}

/* ---- service routes ---- */

static void health(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    long counts[NDEM_STATUS_COUNT];
    int ok = ndem_db_count_by_status(app->db, counts) == 0;
    ndem_pool_stats ps;
    ndem_pool_stats_get(app->pool, &ps);
    /* each worker: its job and how long since that job's last step */
    ndem_worker_state *ws = calloc((size_t)ps.workers, sizeof *ws);
    int nw = ws ? ndem_pool_workers(app->pool, ws, ps.workers) : 0;
    cJSON *states = cJSON_CreateArray();
    long stuck = 0;
    for (int i = 0; i < nw; i++) {
        cJSON *w = cJSON_CreateObject();
        cJSON_AddNumberToObject(w, "worker", i);
        if (ws[i].job[0]) {
            cJSON_AddStringToObject(w, "job", ws[i].job);
            cJSON_AddNumberToObject(w, "seconds_since_step", ws[i].idle_seconds);
        } else {
            cJSON_AddNullToObject(w, "job");
            cJSON_AddNullToObject(w, "seconds_since_step");
        }
        cJSON_AddBoolToObject(w, "stuck", ws[i].stuck);
        cJSON_AddNumberToObject(w, "threads", ws[i].threads);
        stuck += ws[i].stuck;
        cJSON_AddItemToArray(states, w);
    }
    free(ws);
    cJSON *o = cJSON_CreateObject(), *problems = cJSON_CreateArray();
    if (!ok) cJSON_AddItemToArray(problems, cJSON_CreateString("the job database cannot be read"));
    if (ndem_health_storage(app->health, app->db, app->store, o, problems)) ok = 0;
    if (stuck)
        cJSON_AddItemToArray(problems, cJSON_CreateString("a worker made no step for longer than "
                                                          "--stuck-after (see worker_states)"));
    /* storage or database problems outrank a stuck worker */
    cJSON_AddStringToObject(o, "status", !ok ? "degraded" : stuck ? "stuck" : "ok");
    cJSON_AddItemToObject(o, "problems", problems);
    cJSON_AddStringToObject(o, "version", "0.1.0");
    cJSON_AddNumberToObject(o, "uptime_seconds", ndem_mono() - app->started);
    cJSON_AddNumberToObject(o, "queue_depth", (double)counts[0]);
    cJSON_AddNumberToObject(o, "running", (double)counts[1]);
    cJSON_AddNumberToObject(o, "workers", (double)ps.workers);
    cJSON_AddNumberToObject(o, "stream_clients", (double)ndem_stream_clients(app->stream));
    cJSON_AddNumberToObject(o, "stuck_workers", (double)stuck);
    cJSON_AddItemToObject(o, "worker_states", states);
    ndem_pool_cores pc;
    ndem_pool_cores_get(app->pool, &pc);
    cJSON *cores = cJSON_AddObjectToObject(o, "cores");
    cJSON_AddNumberToObject(cores, "shared", (double)pc.shared);
    cJSON_AddNumberToObject(cores, "cpus", pc.cpus);
    cJSON_AddBoolToObject(cores, "adapting", pc.adapting);
    cJSON_AddNumberToObject(cores, "outside_load", pc.outside);
    cJSON_AddNumberToObject(cores, "left_to_others", pc.left);
    ndem_reply_json(req, ok && !stuck ? 200 : 503, o);
}

static void openapi(void *ctx, ndem_request *req)
{
    for (const ndem_embedded_file *f = ndem_embedded; f->name; f++)
        if (!strcmp(f->name, "openapi.json")) {
            char *text = strdup(f->text);
            ndem_http_reply(req, 200, "application/json", text, text ? strlen(text) : 0);
            return;
        }
    ndem_http_problem(req, 500, NULL, "the OpenAPI document was not built in");
}

static void metrics(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    long counts[NDEM_STATUS_COUNT];
    ndem_db_count_by_status(app->db, counts);
    ndem_pool_stats ps;
    ndem_pool_stats_get(app->pool, &ps);
    size_t cap = 8192, n = 0;
    char *t = malloc(cap);
    if (!t) {
        ndem_http_problem(req, 500, NULL, "out of memory");
        return;
    }
#define OUT(...) n += (size_t)snprintf(t + n, cap - n, __VA_ARGS__)
    OUT("# HELP ndem_jobs Jobs by status.\n# TYPE ndem_jobs gauge\n");
    for (int i = 0; i < NDEM_STATUS_COUNT; i++)
        OUT("ndem_jobs{status=\"%s\"} %ld\n", ndem_status_names[i], counts[i]);
    OUT("# HELP ndem_queue_depth Jobs waiting to run.\n# TYPE ndem_queue_depth gauge\n"
        "ndem_queue_depth %ld\n",
        counts[0]);
    OUT("# HELP ndem_workers_busy Workers running a job.\n# TYPE ndem_workers_busy gauge\n"
        "ndem_workers_busy %ld\n",
        ps.busy);
    OUT("# HELP ndem_workers Worker threads.\n# TYPE ndem_workers gauge\nndem_workers %ld\n",
        ps.workers);
    OUT("# HELP ndem_steps_per_second Simulation steps per second, all running jobs.\n"
        "# TYPE ndem_steps_per_second gauge\nndem_steps_per_second %.3f\n",
        ps.steps_per_second);
    OUT("# HELP ndem_steps_total Simulation steps since start-up.\n"
        "# TYPE ndem_steps_total counter\nndem_steps_total %ld\n",
        ps.steps_total);
    OUT("# HELP ndem_stream_clients Connected WebSocket clients.\n"
        "# TYPE ndem_stream_clients gauge\nndem_stream_clients %ld\n",
        ndem_stream_clients(app->stream));
    OUT("# HELP ndem_stream_pending_bytes Bytes queued for stream clients.\n"
        "# TYPE ndem_stream_pending_bytes gauge\nndem_stream_pending_bytes %zu\n",
        ndem_stream_pending_bytes(app->stream));
    OUT("# HELP ndem_http_requests_total HTTP requests since start-up.\n"
        "# TYPE ndem_http_requests_total counter\nndem_http_requests_total %ld\n",
        ndem_http_requests(app->http));
    OUT("# HELP ndem_uptime_seconds Seconds since start-up.\n"
        "# TYPE ndem_uptime_seconds gauge\nndem_uptime_seconds %.1f\n",
        ndem_mono() - app->started);
#undef OUT
    ndem_http_reply(req, 200, "text/plain; version=0.0.4", t, n < cap ? n : cap - 1);
}

/* ---- static files ---- */

static const char placeholder[] =
    "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>ndem</title></head>\n"
    "<body><h1>ndem</h1><p>The simulation daemon is running. The API is at "
    "<a href=\"/api/v1/jobs\">/api/v1/jobs</a>, described by "
    "<a href=\"/openapi.json\">/openapi.json</a>.</p></body></html>\n";

static const char *mime_of(const char *path)
{
    static const char *const types[][2] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript"},
        {".mjs", "text/javascript"},
        {".css", "text/css"},
        {".json", "application/json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".wasm", "application/wasm"},
        {".txt", "text/plain; charset=utf-8"},
    };
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(dot, types[i][0])) return types[i][1];
    return "application/octet-stream";
}

void ndem_static_file(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    const char *path = req->path;
    /* no "..", no hidden files, no backslashes: nothing can leave --web */
    if (path[0] != '/' || strstr(path, "/.") || strchr(path, '\\')) {
        ndem_http_problem(req, 404, NULL, "no resource at %s", path);
        return;
    }
    char root[PATH_MAX], file[PATH_MAX + 1100], real[PATH_MAX];
    int have_root = realpath(app->cfg.web, root) != NULL;
    snprintf(file, sizeof file, "%s%s%s", app->cfg.web, path,
             path[strlen(path) - 1] == '/' ? "index.html" : "");
    struct stat st;
    size_t rl = have_root ? strlen(root) : 0;
    if (!have_root || !realpath(file, real) || strncmp(real, root, rl) ||
        (real[rl] != '/' && real[rl]) || stat(real, &st) || !S_ISREG(st.st_mode)) {
        if (!strcmp(path, "/")) {
            char *t = strdup(placeholder);
            ndem_http_reply(req, 200, "text/html; charset=utf-8", t, t ? strlen(t) : 0);
        } else {
            ndem_http_problem(req, 404, NULL, "no resource at %s", path);
        }
        return;
    }
    size_t len;
    char *data = ndem_read_file(real, &len);
    if (!data) ndem_http_problem(req, 500, NULL, "cannot read %s", path);
    else ndem_http_reply(req, 200, mime_of(real), data, len);
}

/* A route that names no access (the fifth field) needs a bearer token when
 * authentication is on (NDEM_ACCESS_TOKEN is 0): new routes are protected
 * unless they say otherwise, hence no warning for the missing field. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const ndem_route ndem_routes[] = {
    {"POST", "/api/v1/jobs", post_job, 1},
    {"GET", "/api/v1/jobs", list_jobs, 0},
    {"GET", "/api/v1/jobs/{id}", get_job, 0},
    {"DELETE", "/api/v1/jobs/{id}", delete_job, 0},
    {"POST", "/api/v1/jobs/{id}/cancel", cancel_job, 0},
    {"GET", "/api/v1/jobs/{id}/frames", ndem_list_frames, 0},
    {"GET", "/api/v1/jobs/{id}/frames/{n}", ndem_get_frame, 0},
    {"GET", "/api/v1/jobs/{id}/frames/{n}/contacts", ndem_get_frame_contacts, 0},
    {"GET", "/api/v1/jobs/{id}/series", get_series, 0},
    {"GET", "/api/v1/jobs/{id}/archive", ndem_get_archive, 0},
    {"POST", "/api/v1/sweeps", ndem_post_sweep, 1},
    {"GET", "/api/v1/sweeps", ndem_list_sweeps, 0},
    {"GET", "/api/v1/sweeps/{id}", ndem_get_sweep, 0},
    {"DELETE", "/api/v1/sweeps/{id}", ndem_delete_sweep, 0},
    {"POST", "/api/v1/sweeps/{id}/cancel", ndem_cancel_sweep, 0},
    {"GET", "/api/v1/sweeps/{id}/results", ndem_sweep_results, 0},
    {"POST", "/api/v1/meshes", ndem_post_mesh, NDEM_BODY_STL},
    {"GET", "/api/v1/meshes", ndem_list_meshes, 0},
    {"GET", "/api/v1/meshes/{id}", ndem_get_mesh, 0},
    {"DELETE", "/api/v1/meshes/{id}", ndem_delete_mesh, 0},
    /* the Slurm executor's compute nodes: the job's own secret, no bearer token */
    {"POST", "/internal/v1/jobs/{id}/report", report_job, 1, NDEM_ACCESS_INTERNAL},
    {"GET", "/health", health, 0, NDEM_ACCESS_PUBLIC},
    {"GET", "/openapi.json", openapi, 0},
    {"GET", "/metrics", metrics, 0, NDEM_ACCESS_ADMIN}, /* counts every owner's jobs */
    {NULL, NULL, NULL, 0, 0},
};
#pragma GCC diagnostic pop
