/* routes_sweeps.c - parameter sweeps (docs/api.md, "Sweeps"): POST expands a
 * base document over parameters (api/sweep.c), validates every variant
 * like POST /jobs does one job, and queues all of them in one transaction
 * or none; the sweep's status and counts are derived from its jobs on every
 * read, so a sweep never disagrees with its jobs. Cancel and delete act on
 * every job of the sweep; results are one row per job. */
#include "routes.h"

#include "jobdir.h"
#include "log.h"
#include "mesh_files.h"
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTED 200 /* errors listed in one 422 */

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
    const char *id = req->params[0];
    int rc = ndem_valid_id(id) ? ndem_db_sweep_get(app->db, id, sw) : 1;
    if (rc == 0 && !ndem_may_see(req, sw->owner)) { /* another owner's: as unknown */
        ndem_sweep_row_free(sw);
        rc = 1;
    }
    if (rc == 0 && ndem_db_sweep_jobs(app->db, id, jobs, n)) {
        ndem_sweep_row_free(sw);
        rc = -1;
    }
    if (rc > 0) ndem_http_problem(req, 404, NULL, "no sweep with id '%s'", id);
    if (rc < 0) ndem_http_problem(req, 500, NULL, "the job database failed");
    return rc;
}

static void free_jobs(ndem_job_row *jobs, int n)
{
    for (int i = 0; i < n; i++) ndem_job_row_free(&jobs[i]);
    free(jobs);
}

static void reply_sweep(ndem_app *app, ndem_request *req, int status, const char *id)
{
    ndem_sweep_row sw;
    ndem_job_row *jobs = NULL;
    int n = 0;
    if (ndem_db_sweep_get(app->db, id, &sw) || ndem_db_sweep_jobs(app->db, id, &jobs, &n)) {
        free(jobs);
        ndem_http_problem(req, 500, NULL, "sweep %s vanished", id);
        return;
    }
    ndem_reply_json(req, status, sweep_resource(&sw, jobs, n, 1));
    ndem_sweep_row_free(&sw);
    free_jobs(jobs, n);
}

/* ---- POST /api/v1/sweeps ---- */

/* Errors of the variants, as the 422's list: each names its variant, the
 * values it took and the pointer inside its document. */
typedef struct variant_errors {
    cJSON *list;
    long variants_bad, errors;
    char first[700]; /* the detail's first error */
} variant_errors;

static void note_variant(variant_errors *ve, long k, const cJSON *values, const char *pointer,
                         const char *message)
{
    if (ve->errors++ == 0) {
        char *v = cJSON_PrintUnformatted(values);
        snprintf(ve->first, sizeof ve->first, "variant %ld (values %s): %s%s%s", k, v ? v : "?",
                 pointer, pointer[0] ? ": " : "", message);
        free(v);
    }
    if (cJSON_GetArraySize(ve->list) >= MAX_REPORTED) return;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "variant", (double)k);
    cJSON_AddItemToObject(e, "values", cJSON_Duplicate(values, 1));
    cJSON_AddStringToObject(e, "pointer", pointer);
    cJSON_AddStringToObject(e, "message", message);
    cJSON_AddItemToArray(ve->list, e);
}

/* Variant k as a queued job row (document, name, steps), or its errors in ve. */
static int build_variant(ndem_app *app, const ndem_request *req, const ndem_sweep *s, long k,
                         ndem_job_row *row, variant_errors *ve)
{
    cJSON *values = NULL;
    int bad = -1;
    char why[700];
    cJSON *doc = ndem_sweep_variant(s, k, &values, &bad, why, sizeof why);
    if (!doc) {
        char at[64];
        snprintf(at, sizeof at, "/parameters/%d/pointer", bad);
        cJSON *vals = values ? values : cJSON_CreateArray();
        note_variant(ve, k, vals, at, why);
        cJSON_Delete(vals);
        ve->variants_bad++;
        return -1;
    }
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    /* uploaded meshes resolve as for POST /jobs; the normalised document
     * carries them inline, so the sweep's jobs need not hold them */
    ndem_mesh_resolver meshes;
    ndem_job_parse_opts opts = ndem_mesh_resolver_opts(&meshes, app->cfg.data);
    ndem_resolver_limit(&meshes, app, req);
    ndem_job_status st =
        text ? ndem_job_parse_with(text, strlen(text), &opts, &job, &errs) : NDEM_JOB_MALFORMED;
    ndem_mesh_resolver_free(&meshes);
    long steps = 0;
    if (st == NDEM_JOB_OK) {
        steps = ndem_job_steps(job);
        ndem_check_limits(&app->cfg, job, steps, &errs);
        ndem_job_errors_sort(&errs, text, strlen(text));
    }
    free(text);
    int rc = 0;
    if (st != NDEM_JOB_OK || errs.count) {
        for (int i = 0; i < errs.count; i++)
            note_variant(ve, k, values, errs.items[i].pointer, errs.items[i].message);
        if (!errs.count) note_variant(ve, k, values, "", "out of memory");
        ve->variants_bad++;
        rc = -1;
    } else {
        row->document = ndem_job_to_json(job);
        snprintf(row->name, sizeof row->name, "%s", job->name);
        row->steps_total = steps;
        row->duration = job->scene.solver.duration;
        row->sweep_index = (int)k;
        row->sweep_values = cJSON_PrintUnformatted(values);
        row->warnings = ndem_job_warnings_to_json(job);
        snprintf(row->status, sizeof row->status, "queued");
        if (!row->document || !row->sweep_values || !row->warnings) rc = -2;
    }
    ndem_job_errors_clear(&errs);
    ndem_job_destroy(job);
    cJSON_Delete(values);
    return rc;
}

/* Answers the 422 of a body that is not a sweep (errors point into it). */
static void reply_body_errors(ndem_request *req, ndem_job_errors *errs)
{
    char *list = ndem_job_errors_to_json(errs);
    ndem_http_problem(req, 422, list, "the sweep has %d error%s; the first: %s%s%s", errs->count,
                      errs->count == 1 ? "" : "s", errs->items[0].pointer,
                      errs->items[0].pointer[0] ? ": " : "", errs->items[0].message);
    free(list);
}

/* Writes every job's directory (a job in the index always has its record
 * on disk), each with the sweep's record (--recover restores the sweep from
 * it); on failure removes those written and answers 503. */
static int create_dirs(ndem_app *app, ndem_request *req, const ndem_sweep_row *sw,
                       ndem_job_row *rows, long n)
{
    for (long i = 0; i < n; i++) {
        if (ndem_jobdir_create(app->cfg.data, &rows[i]) == 0 &&
            ndem_jobdir_save_sweep(app->cfg.data, rows[i].id, sw) == 0)
            continue;
        const char *why = strerror(errno);
        ndem_log("sweep: cannot write the directory of job %s: %s", rows[i].id, why);
        for (long j = 0; j <= i; j++) ndem_store_remove(app->store, rows[j].id);
        req->retry_after = 30;
        ndem_http_problem(req, 503, NULL,
                          "cannot write a job's directory: %s (GET /health says more)", why);
        return -1;
    }
    return 0;
}

static void free_rows(ndem_job_row *rows, long n)
{
    for (long i = 0; i < n; i++) ndem_job_row_free(&rows[i]);
    free(rows);
}

/* Every variant is validated before any is queued; then all are inserted
 * in one transaction. */
static void queue_sweep(ndem_app *app, ndem_request *req, ndem_sweep *s)
{
    ndem_job_row *rows = calloc((size_t)s->variants, sizeof *rows);
    variant_errors ve = {cJSON_CreateArray(), 0, 0, ""};
    double bytes = 0;
    int oom = !rows;
    for (long k = 0; !oom && k < s->variants; k++) {
        int rc = build_variant(app, req, s, k, &rows[k], &ve);
        oom = rc == -2;
        if (rc == 0) bytes += (double)strlen(rows[k].document);
    }
    if (oom) {
        ndem_http_problem(req, 500, NULL, "out of memory");
    } else if (ve.errors) {
        char *list = cJSON_PrintUnformatted(ve.list);
        ndem_http_problem(req, 422, list,
                          "%ld of %ld variants have errors (%ld in all%s); the first: %s",
                          ve.variants_bad, s->variants, ve.errors,
                          ve.errors > MAX_REPORTED ? ", the first 200 listed" : "", ve.first);
        free(list);
    } else if (bytes > (double)app->cfg.parse_budget) {
        ndem_http_problem(req, 413, NULL,
                          "the sweep's %ld documents take %.0f MiB, more than this server holds "
                          "at once (--parse-budget %ld MiB)",
                          s->variants, bytes / 1048576, app->cfg.parse_budget >> 20);
    }
    cJSON_Delete(ve.list);
    if (oom || ve.errors || bytes > (double)app->cfg.parse_budget) {
        free_rows(rows, rows ? s->variants : 0);
        return;
    }
    ndem_sweep_row sw = {0};
    cJSON *params = cJSON_GetObjectItemCaseSensitive(s->body, "parameters");
    sw.parameters = cJSON_PrintUnformatted(params);
    snprintf(sw.mode, sizeof sw.mode, "%s", s->zip ? "zip" : "product");
    sw.created_us = ndem_now_us();
    snprintf(sw.owner, sizeof sw.owner, "%s", req->owner);
    int bad = !sw.parameters || ndem_new_id(sw.id);
    for (long k = 0; !bad && k < s->variants; k++) {
        rows[k].created_us = sw.created_us;
        snprintf(rows[k].owner, sizeof rows[k].owner, "%s", sw.owner);
        snprintf(rows[k].sweep, sizeof rows[k].sweep, "%s", sw.id); /* for status.json */
        bad = ndem_new_id(rows[k].id);
    }
    if (bad) {
        ndem_http_problem(req, 500, NULL, "out of memory or randomness");
    } else if (create_dirs(app, req, &sw, rows, s->variants) == 0) {
        int rc = ndem_db_sweep_insert(app->db, &sw, rows, (int)s->variants, app->cfg.max_queued);
        if (rc)
            for (long k = 0; k < s->variants; k++) ndem_store_remove(app->store, rows[k].id);
        if (rc == 1) {
            req->retry_after = 10;
            ndem_http_problem(req, 503, NULL,
                              "the sweep's %ld jobs would pass --max-queued (%ld jobs may wait); "
                              "try later",
                              s->variants, app->cfg.max_queued);
        } else if (rc) {
            ndem_http_problem(req, 500, NULL, "the job database failed");
        } else {
            ndem_log("sweep %s: queued %ld jobs (%s)", sw.id, s->variants, sw.mode);
            ndem_pool_wake(app->pool);
            snprintf(req->location, sizeof req->location, "/api/v1/sweeps/%s", sw.id);
            reply_sweep(app, req, 201, sw.id);
        }
    }
    ndem_sweep_row_free(&sw);
    free_rows(rows, s->variants);
}

void ndem_post_sweep(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    cJSON *body;
    long long held;
    ndem_job_errors errs = {0};
    ndem_job_status st;
    /* the tree, and one variant's tree at a time */
    if (ndem_intake_json(&app->parse_budget, app->cfg.max_particles, req, 2, &body, &held, &errs,
                         &st))
        return;
    if (st != NDEM_JOB_OK) {
        reply_body_errors(req, &errs);
        ndem_job_errors_clear(&errs);
        return;
    }
    ndem_sweep s;
    if (ndem_sweep_read(body, app->cfg.max_sweep_jobs, &s, &errs)) reply_body_errors(req, &errs);
    else queue_sweep(app, req, &s);
    ndem_job_errors_clear(&errs);
    ndem_sweep_free(&s);
    ndem_intake_release(&app->parse_budget, held);
}

/* ---- GET /api/v1/sweeps, /api/v1/sweeps/{id} ---- */

void ndem_list_sweeps(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    long limit, before;
    if (ndem_list_page(req, &limit, &before)) return;
    ndem_sweep_row *rows;
    int n;
    if (ndem_db_sweep_list(app->db, ndem_list_owner(req), before, (int)limit, &rows, &n)) {
        free(rows);
        ndem_http_problem(req, 500, NULL, "the job database failed");
        return;
    }
    cJSON *o = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(o, "sweeps");
    for (int i = 0; i < n; i++) {
        ndem_job_row *jobs = NULL;
        int nj = 0;
        if (ndem_db_sweep_jobs(app->db, rows[i].id, &jobs, &nj)) nj = 0;
        cJSON_AddItemToArray(list, sweep_resource(&rows[i], jobs, nj, 0));
        free_jobs(jobs, nj);
    }
    if (n == limit && n > 0) {
        char next[32];
        snprintf(next, sizeof next, "%ld", rows[n - 1].seq);
        cJSON_AddStringToObject(o, "next_cursor", next);
    } else {
        cJSON_AddNullToObject(o, "next_cursor");
    }
    for (int i = 0; i < n; i++) ndem_sweep_row_free(&rows[i]);
    free(rows);
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
    free_jobs(jobs, n);
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
    free_jobs(jobs, n);
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
    ndem_sweep_row sw;
    ndem_job_row *jobs;
    int n, running = 0, failed = 0;
    if (load_sweep(app, req, &sw, &jobs, &n)) return;
    const char **live = calloc((size_t)n + 1, sizeof *live);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (ndem_job_row_finished(&jobs[i])) continue;
        int rc = ndem_pool_cancel(app->pool, jobs[i].id);
        running += rc == NDEM_CANCEL_RUNNING;
        failed += rc < 0;
        if (live) live[k++] = jobs[i].id;
    }
    /* after the jobs' own cancels, so that their workers expect the end */
    if (live) ndem_pool_cancel_arrays(app->pool, live, k);
    free(live);
    ndem_log("sweep %s: cancel (%d running jobs stop after their step)", sw.id, running);
    if (failed) ndem_http_problem(req, 500, NULL, "the job database failed");
    else reply_sweep(app, req, running ? 202 : 200, sw.id);
    ndem_sweep_row_free(&sw);
    free_jobs(jobs, n);
}

void ndem_delete_sweep(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_sweep_row sw;
    ndem_job_row *jobs;
    int n, rc = 0, tombs = 0;
    if (load_sweep(app, req, &sw, &jobs, &n)) return;
    for (int i = 0; i < n; i++)
        if (!ndem_job_row_finished(&jobs[i])) rc = 2;
    /* tombstones first, as DELETE /jobs/{id} does: start-up finishes an
     * interrupted delete and never takes an untombstoned directory */
    for (; rc == 0 && tombs < n; tombs++)
        if (ndem_jobdir_tombstone(app->cfg.data, jobs[tombs].id, 1)) {
            ndem_log("job %s: cannot write its tombstone: %s", jobs[tombs].id, strerror(errno));
            rc = -1;
        }
    if (rc == 0) rc = ndem_db_sweep_delete(app->db, sw.id);
    if (rc == 0) {
        for (int i = 0; i < n; i++)
            if (ndem_store_remove(app->store, jobs[i].id))
                ndem_log("job %s: could not remove all its files", jobs[i].id);
        ndem_log("sweep %s: deleted with its %d jobs", sw.id, n);
        ndem_http_reply(req, 204, NULL, NULL, 0);
    } else {
        for (int i = 0; i < tombs; i++) ndem_jobdir_tombstone(app->cfg.data, jobs[i].id, 0);
        if (rc == 2)
            ndem_http_problem(req, 409, NULL,
                              "sweep %s has queued or running jobs: cancel it first", sw.id);
        else if (rc == 1) ndem_http_problem(req, 404, NULL, "no sweep with id '%s'", sw.id);
        else ndem_http_problem(req, 500, NULL, "the job database failed");
    }
    ndem_sweep_row_free(&sw);
    free_jobs(jobs, n);
}
