/* routes_sweeps.c - parameter sweeps (docs/api.md, "Sweeps"): POST, cancel
 * and delete ask the job service (jobs_sweeps.c), which expands a base
 * document over parameters and queues every variant as one job or none;
 * the sweep's status and counts are derived from its jobs on every read, so
 * a sweep never disagrees with its jobs. Results are one row per job. */
#include "routes.h"

#include "log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the sweep resource ---- */

/* The summary columns of a result row, each read from a job row. */
typedef struct summary_col {
    const char *name;
    double (*get)(const ndem_job_row *r);
} summary_col;

static double col_step(const ndem_job_row *r) { return (double)r->step; }
static double col_steps_total(const ndem_job_row *r) { return (double)r->steps_total; }
static double col_time(const ndem_job_row *r) { return r->time; }
static double col_particles(const ndem_job_row *r) { return (double)r->particles; }
static double col_contacts(const ndem_job_row *r) { return (double)r->contacts; }
static double col_kinetic(const ndem_job_row *r) { return r->kinetic_energy; }
static double col_wall(const ndem_job_row *r) { return r->wall_seconds; }

static const summary_col summary_cols[] = {
    {"step", col_step},           {"steps_total", col_steps_total}, {"time", col_time},
    {"particles", col_particles}, {"contacts", col_contacts},       {"kinetic_energy", col_kinetic},
    {"wall_seconds", col_wall},
};
#define N_SUMMARY (sizeof summary_cols / sizeof summary_cols[0])

/* The sweep's status from its jobs' counts (ndem_status_names order). */
static const char *sweep_status(const long c[NDEM_STATUS_COUNT], long total)
{
    if (c[1] || (c[0] && c[0] < total)) return "running"; /* some started */
    if (c[0]) return "queued";
    if (c[3]) return "failed";
    if (c[4]) return "cancelled";
    return "done";
}

/* {pointer: value} of a job from its sweep_values and the sweep's pointers. */
static cJSON *job_parameters(const cJSON *params, const char *values_json)
{
    cJSON *o = cJSON_CreateObject(), *values = cJSON_Parse(values_json ? values_json : "[]");
    int i = 0;
    for (const cJSON *p = params ? params->child : NULL; p; p = p->next, i++) {
        const cJSON *ptr = cJSON_GetObjectItemCaseSensitive(p, "pointer");
        const cJSON *v = cJSON_GetArrayItem(values, i);
        if (cJSON_IsString(ptr))
            cJSON_AddItemToObject(o, ptr->valuestring,
                                  v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
    }
    cJSON_Delete(values);
    return o;
}

/* The sweep resource; with_jobs adds the jobs, in order, with their values
 * and statuses. */
static cJSON *sweep_resource(const ndem_sweep_row *sw, const ndem_job_row *jobs, int n,
                             int with_jobs)
{
    long counts[NDEM_STATUS_COUNT] = {0};
    for (int i = 0; i < n; i++)
        for (int s = 0; s < NDEM_STATUS_COUNT; s++)
            counts[s] += !strcmp(jobs[i].status, ndem_status_names[s]);
    cJSON *o = cJSON_CreateObject(), *params = cJSON_Parse(sw->parameters);
    char buf[96];
    cJSON_AddStringToObject(o, "id", sw->id);
    cJSON_AddStringToObject(o, "status", sweep_status(counts, n));
    cJSON_AddStringToObject(o, "mode", sw->mode);
    cJSON_AddStringToObject(o, "created_at", ndem_rfc3339(sw->created_us, buf, sizeof buf));
    ndem_add_owner(o, sw->owner);
    cJSON_AddNumberToObject(o, "total", n);
    cJSON *c = cJSON_AddObjectToObject(o, "counts");
    for (int s = 0; s < NDEM_STATUS_COUNT; s++)
        cJSON_AddNumberToObject(c, ndem_status_names[s], (double)counts[s]);
    if (with_jobs) {
        cJSON *list = cJSON_AddArrayToObject(o, "jobs");
        for (int i = 0; i < n; i++) {
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "id", jobs[i].id);
            cJSON_AddNumberToObject(j, "index", jobs[i].sweep_index);
            cJSON_AddStringToObject(j, "status", jobs[i].status);
            cJSON_AddItemToObject(j, "parameters", job_parameters(params, jobs[i].sweep_values));
            cJSON_AddItemToArray(list, j);
        }
    }
    cJSON_AddItemToObject(o, "parameters", params ? params : cJSON_CreateArray());
    cJSON *l = cJSON_AddObjectToObject(o, "links");
    snprintf(buf, sizeof buf, "/api/v1/sweeps/%s", sw->id);
    cJSON_AddStringToObject(l, "self", buf);
    snprintf(buf, sizeof buf, "/api/v1/sweeps/%s/results", sw->id);
    cJSON_AddStringToObject(l, "results", buf);
    return o;
}

/* Reads the sweep of {id} and its jobs; answers 404 or 500 itself (nonzero). */
static int load_sweep(ndem_app *app, ndem_request *req, ndem_sweep_row *sw, ndem_job_row **jobs,
                      int *n)
{
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    if (ndem_jobs_sweep_get(app, &who, req->params[0], sw, jobs, n, &p) == 0) return 0;
    ndem_http_reply_problem(req, &p);
    return -1;
}

/* The sweep id that who has just submitted or cancelled, as a reply. */
static void reply_sweep(ndem_app *app, ndem_request *req, int status, const char *id)
{
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    ndem_sweep_row sw;
    ndem_job_row *jobs = NULL;
    int n = 0;
    if (ndem_jobs_sweep_get(app, &who, id, &sw, &jobs, &n, &p)) {
        ndem_http_problem(req, 500, NULL, "sweep %s vanished", id);
        return;
    }
    ndem_reply_json(req, status, sweep_resource(&sw, jobs, n, 1));
    ndem_sweep_row_free(&sw);
    ndem_jobs_free(jobs, n);
}

/* ---- POST /api/v1/sweeps ---- */

void ndem_post_sweep(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    char id[NDEM_ID_LEN + 1];
    if (ndem_jobs_submit_sweep(app, &who, req->body ? req->body : "", req->body_len, id, &p)) {
        ndem_http_reply_problem(req, &p);
        return;
    }
    snprintf(req->location, sizeof req->location, "/api/v1/sweeps/%s", id);
    reply_sweep(app, req, 201, id);
}

/* ---- GET /api/v1/sweeps, /api/v1/sweeps/{id} ---- */

void ndem_list_sweeps(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    long limit, before;
    if (ndem_list_page(req, &limit, &before)) return;
    ndem_sweep_entry *rows;
    int n;
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    if (ndem_jobs_sweep_list(app, &who, before, (int)limit, &rows, &n, &p)) {
        ndem_http_reply_problem(req, &p);
        return;
    }
    cJSON *o = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(o, "sweeps");
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(list, sweep_resource(&rows[i].sweep, rows[i].jobs, rows[i].n, 0));
    if (n == limit && n > 0) {
        char next[32];
        snprintf(next, sizeof next, "%ld", rows[n - 1].sweep.seq);
        cJSON_AddStringToObject(o, "next_cursor", next);
    } else {
        cJSON_AddNullToObject(o, "next_cursor");
    }
    ndem_jobs_sweeps_free(rows, n);
    ndem_reply_json(req, 200, o);
}

void ndem_get_sweep(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_sweep_row sw;
    ndem_job_row *jobs;
    int n;
    if (load_sweep(app, req, &sw, &jobs, &n)) return;
    ndem_reply_json(req, 200, sweep_resource(&sw, jobs, n, 1));
    ndem_sweep_row_free(&sw);
    ndem_jobs_free(jobs, n);
}

/* ---- results ---- */

static void put(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 1024;
        while (c < *len + n + 1) c *= 2;
        char *grown = realloc(*buf, c);
        if (!grown) return;
        *buf = grown;
        *cap = c;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
}

/* One CSV field: text quoted when it must be (RFC 4180), null empty. */
static void csv_field(const cJSON *v, char **buf, size_t *len, size_t *cap)
{
    if (!v || cJSON_IsNull(v)) return;
    char *text = cJSON_IsString(v) ? strdup(v->valuestring) : cJSON_PrintUnformatted(v);
    if (!text) return;
    if (strpbrk(text, ",\"\r\n")) {
        put(buf, len, cap, "\"");
        for (char *p = text; *p; p++) put(buf, len, cap, *p == '"' ? "\"\"" : (char[]){*p, 0});
        put(buf, len, cap, "\"");
    } else {
        put(buf, len, cap, text);
    }
    free(text);
}

/* {"sweep", "columns", "rows"}: each row index, job, status, the parameter
 * values by pointer, then the summary columns and error. */
static cJSON *results_of(const ndem_sweep_row *sw, const ndem_job_row *jobs, int n)
{
    cJSON *o = cJSON_CreateObject(), *params = cJSON_Parse(sw->parameters);
    cJSON_AddStringToObject(o, "sweep", sw->id);
    cJSON *cols = cJSON_AddArrayToObject(o, "columns");
    cJSON_AddItemToArray(cols, cJSON_CreateString("index"));
    cJSON_AddItemToArray(cols, cJSON_CreateString("job"));
    cJSON_AddItemToArray(cols, cJSON_CreateString("status"));
    for (const cJSON *p = params ? params->child : NULL; p; p = p->next)
        cJSON_AddItemToArray(cols, cJSON_Duplicate(cJSON_GetObjectItem(p, "pointer"), 1));
    for (size_t c = 0; c < N_SUMMARY; c++)
        cJSON_AddItemToArray(cols, cJSON_CreateString(summary_cols[c].name));
    cJSON_AddItemToArray(cols, cJSON_CreateString("error"));
    cJSON *rows = cJSON_AddArrayToObject(o, "rows");
    for (int i = 0; i < n; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "index", jobs[i].sweep_index);
        cJSON_AddStringToObject(r, "job", jobs[i].id);
        cJSON_AddStringToObject(r, "status", jobs[i].status);
        cJSON *values = job_parameters(params, jobs[i].sweep_values);
        for (cJSON *v = values->child; v; v = v->next)
            cJSON_AddItemToObject(r, v->string, cJSON_Duplicate(v, 1));
        cJSON_Delete(values);
        for (size_t c = 0; c < N_SUMMARY; c++)
            cJSON_AddNumberToObject(r, summary_cols[c].name, summary_cols[c].get(&jobs[i]));
        if (jobs[i].error) cJSON_AddStringToObject(r, "error", jobs[i].error);
        else cJSON_AddNullToObject(r, "error");
        cJSON_AddItemToArray(rows, r);
    }
    cJSON_Delete(params);
    return o;
}

static char *results_csv(const cJSON *res, size_t *len)
{
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    const cJSON *cols = cJSON_GetObjectItem(res, "columns");
    for (const cJSON *c = cols->child; c; c = c->next) {
        if (c != cols->child) put(&buf, len, &cap, ",");
        csv_field(c, &buf, len, &cap);
    }
    put(&buf, len, &cap, "\n");
    for (const cJSON *r = cJSON_GetObjectItem(res, "rows")->child; r; r = r->next) {
        for (const cJSON *c = cols->child; c; c = c->next) {
            if (c != cols->child) put(&buf, len, &cap, ",");
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, c->valuestring);
            if (cJSON_IsNumber(v)) {
                /* the shortest text that reads back the same number, as JSON has */
                char num[40];
                snprintf(num, sizeof num, "%.15g", v->valuedouble);
                if (strtod(num, NULL) != v->valuedouble)
                    snprintf(num, sizeof num, "%.17g", v->valuedouble);
                put(&buf, len, &cap, num);
            } else {
                csv_field(v, &buf, len, &cap);
            }
        }
        put(&buf, len, &cap, "\n");
    }
    return buf;
}

void ndem_sweep_results(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_sweep_row sw;
    ndem_job_row *jobs;
    int n;
    if (load_sweep(app, req, &sw, &jobs, &n)) return;
    cJSON *res = results_of(&sw, jobs, n);
    ndem_sweep_row_free(&sw);
    ndem_jobs_free(jobs, n);
    if (!ndem_accepts(req, "text/csv")) {
        ndem_reply_json(req, 200, res);
        return;
    }
    size_t len;
    char *csv = results_csv(res, &len);
    cJSON_Delete(res);
    if (!csv) ndem_http_problem(req, 500, NULL, "out of memory");
    else ndem_http_reply(req, 200, "text/csv", csv, len);
}

/* ---- cancel and delete ---- */

void ndem_cancel_sweep(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    int running;
    if (ndem_jobs_cancel_sweep(app, &who, req->params[0], &running, &p))
        ndem_http_reply_problem(req, &p);
    else reply_sweep(app, req, running ? 202 : 200, req->params[0]);
}

void ndem_delete_sweep(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    if (ndem_jobs_delete_sweep(app, &who, req->params[0], &p)) ndem_http_reply_problem(req, &p);
    else ndem_http_reply(req, 204, NULL, NULL, 0);
}
