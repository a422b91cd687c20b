/* jobs_sweeps.c - a sweep in the job service (jobs.h): its body expanded
 * over its parameters (api/sweep.c), every variant parsed and checked as
 * one job is (ndem_jobs_prepare, ndem_jobs_row_of), all queued in one
 * transaction or none; cancel and delete act on every job of the sweep. */
#include "jobs_priv.h"

#include "jobdir.h"
#include "log.h"
#include "sweep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTED 200 /* errors listed in one 422 */

void ndem_jobs_free(ndem_job_row *jobs, int n)
{
    for (int i = 0; i < n; i++) ndem_job_row_free(&jobs[i]);
    free(jobs);
}

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
static int build_variant(ndem_app *app, const ndem_caller *who, const ndem_sweep *s, long k,
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
    ndem_jobs_resolver(&meshes, app, who);
    ndem_job_status st =
        text ? ndem_job_parse_with(text, strlen(text), &opts, &job, &errs) : NDEM_JOB_MALFORMED;
    ndem_mesh_resolver_free(&meshes);
    long steps = 0;
    if (st == NDEM_JOB_OK) steps = ndem_jobs_prepare(app, job, text, strlen(text), &errs);
    free(text);
    int rc = 0;
    if (st != NDEM_JOB_OK || errs.count) {
        for (int i = 0; i < errs.count; i++)
            note_variant(ve, k, values, errs.items[i].pointer, errs.items[i].message);
        if (!errs.count) note_variant(ve, k, values, "", "out of memory");
        ve->variants_bad++;
        rc = -1;
    } else {
        row->sweep_index = (int)k;
        row->sweep_values = cJSON_PrintUnformatted(values);
        if (ndem_jobs_row_of(row, job, steps) || !row->sweep_values) rc = -2;
    }
    ndem_job_errors_clear(&errs);
    ndem_job_destroy(job);
    cJSON_Delete(values);
    return rc;
}

/* The 422 of a body that is not a sweep (errors point into it). */
static void body_errors(ndem_problem *p, ndem_job_errors *errs)
{
    p->errors = ndem_job_errors_to_json(errs);
    ndem_problem_set(p, 422, "the sweep has %d error%s; the first: %s%s%s", errs->count,
                     errs->count == 1 ? "" : "s", errs->items[0].pointer,
                     errs->items[0].pointer[0] ? ": " : "", errs->items[0].message);
}

/* Writes every job's directory (a job in the index always has its record
 * on disk), each with the sweep's record (--recover restores the sweep from
 * it); on failure removes those written: 503 in p. */
static int create_dirs(ndem_app *app, const ndem_sweep_row *sw, ndem_job_row *rows, long n,
                       ndem_problem *p)
{
    for (long i = 0; i < n; i++) {
        if (ndem_jobdir_create(app->cfg.data, &rows[i]) == 0 &&
            ndem_jobdir_save_sweep(app->cfg.data, rows[i].id, sw) == 0)
            continue;
        const char *why = strerror(errno);
        ndem_log("sweep: cannot write the directory of job %s: %s", rows[i].id, why);
        for (long j = 0; j <= i; j++) ndem_store_remove(app->store, rows[j].id);
        p->retry_after = 30;
        ndem_problem_set(p, 503, "cannot write a job's directory: %s (GET /health says more)", why);
        return -1;
    }
    return 0;
}

static void free_rows(ndem_job_row *rows, long n)
{
    for (long i = 0; i < n; i++) ndem_job_row_free(&rows[i]);
    free(rows);
}

/* Every variant as a row, each validated before any is queued: 0, or -1
 * with p (500, 422 the variants' errors, 413 over --parse-budget). */
static int build_variants(ndem_app *app, const ndem_caller *who, const ndem_sweep *s,
                          ndem_job_row *rows, ndem_problem *p)
{
    variant_errors ve = {cJSON_CreateArray(), 0, 0, ""};
    double bytes = 0;
    int oom = !rows;
    for (long k = 0; !oom && k < s->variants; k++) {
        int rc = build_variant(app, who, s, k, &rows[k], &ve);
        oom = rc == -2;
        if (rc == 0) bytes += (double)strlen(rows[k].document);
    }
    if (oom) {
        ndem_problem_set(p, 500, "out of memory");
    } else if (ve.errors) {
        p->errors = cJSON_PrintUnformatted(ve.list);
        ndem_problem_set(p, 422, "%ld of %ld variants have errors (%ld in all%s); the first: %s",
                         ve.variants_bad, s->variants, ve.errors,
                         ve.errors > MAX_REPORTED ? ", the first 200 listed" : "", ve.first);
    } else if (bytes > (double)app->cfg.parse_budget) {
        ndem_problem_set(p, 413,
                         "the sweep's %ld documents take %.0f MiB, more than this server holds "
                         "at once (--parse-budget %ld MiB)",
                         s->variants, bytes / 1048576, app->cfg.parse_budget >> 20);
    }
    cJSON_Delete(ve.list);
    return oom || ve.errors || bytes > (double)app->cfg.parse_budget ? -1 : 0;
}

/* The sweep's row and its jobs', their directories, then all inserted in
 * one transaction: 0 with sw's id, or -1 with p. */
static int queue_sweep(ndem_app *app, const ndem_caller *who, ndem_sweep *s,
                       char id[NDEM_ID_LEN + 1], ndem_problem *p)
{
    ndem_job_row *rows = calloc((size_t)s->variants, sizeof *rows);
    if (build_variants(app, who, s, rows, p)) {
        free_rows(rows, rows ? s->variants : 0);
        return -1;
    }
    ndem_sweep_row sw = {0};
    cJSON *params = cJSON_GetObjectItemCaseSensitive(s->body, "parameters");
    sw.parameters = cJSON_PrintUnformatted(params);
    snprintf(sw.mode, sizeof sw.mode, "%s", s->zip ? "zip" : "product");
    sw.created_us = ndem_now_us();
    snprintf(sw.owner, sizeof sw.owner, "%s", who->owner);
    int bad = !sw.parameters || ndem_new_id(sw.id), rc = -1;
    for (long k = 0; !bad && k < s->variants; k++) {
        rows[k].created_us = sw.created_us;
        snprintf(rows[k].owner, sizeof rows[k].owner, "%s", sw.owner);
        snprintf(rows[k].sweep, sizeof rows[k].sweep, "%s", sw.id); /* for status.json */
        bad = ndem_new_id(rows[k].id);
    }
    if (bad) {
        ndem_problem_set(p, 500, "out of memory or randomness");
    } else if (create_dirs(app, &sw, rows, s->variants, p) == 0) {
        int in = ndem_db_sweep_insert(app->db, &sw, rows, (int)s->variants, app->cfg.max_queued);
        if (in)
            for (long k = 0; k < s->variants; k++) ndem_store_remove(app->store, rows[k].id);
        if (in == 1) {
            p->retry_after = 10;
            ndem_problem_set(p, 503,
                             "the sweep's %ld jobs would pass --max-queued (%ld jobs may wait); "
                             "try later",
                             s->variants, app->cfg.max_queued);
        } else if (in) {
            ndem_problem_set(p, 500, "the job database failed");
        } else {
            ndem_log("sweep %s: queued %ld jobs (%s)", sw.id, s->variants, sw.mode);
            ndem_pool_wake(app->pool);
            memcpy(id, sw.id, sizeof sw.id);
            rc = 0;
        }
    }
    ndem_sweep_row_free(&sw);
    free_rows(rows, s->variants);
    return rc;
}

int ndem_jobs_submit_sweep(ndem_app *app, const ndem_caller *who, const char *text, size_t len,
                           char id[NDEM_ID_LEN + 1], ndem_problem *p)
{
    cJSON *body;
    long long held;
    ndem_job_errors errs = {0};
    ndem_job_status st;
    /* the tree, and one variant's tree at a time */
    if (ndem_intake_json(&app->parse_budget, app->cfg.max_particles, text, len, 2, &body, &held,
                         &errs, &st, p))
        return -1;
    if (st != NDEM_JOB_OK) {
        body_errors(p, &errs);
        ndem_job_errors_clear(&errs);
        return -1;
    }
    ndem_sweep s;
    int rc = -1;
    if (ndem_sweep_read(body, app->cfg.max_sweep_jobs, &s, &errs)) body_errors(p, &errs);
    else rc = queue_sweep(app, who, &s, id, p);
    ndem_job_errors_clear(&errs);
    ndem_sweep_free(&s);
    ndem_intake_release(&app->parse_budget, held);
    return rc;
}

/* ---- reading, cancelling, deleting ---- */

int ndem_jobs_sweep_get(ndem_app *app, const ndem_caller *who, const char *id, ndem_sweep_row *sw,
                        ndem_job_row **jobs, int *n, ndem_problem *p)
{
    int rc = ndem_jobdir_is_id(id) ? ndem_db_sweep_get(app->db, id, sw) : 1;
    if (rc == 0 && !ndem_may_see(who, sw->owner)) { /* another owner's: as unknown */
        ndem_sweep_row_free(sw);
        rc = 1;
    }
    if (rc == 0 && ndem_db_sweep_jobs(app->db, id, jobs, n)) {
        ndem_sweep_row_free(sw);
        rc = -1;
    }
    if (rc > 0) ndem_problem_set(p, 404, "no sweep with id '%s'", id);
    if (rc < 0) ndem_problem_set(p, 500, "the job database failed");
    return rc ? -1 : 0;
}

int ndem_jobs_sweep_list(ndem_app *app, const ndem_caller *who, long before, int limit,
                         ndem_sweep_entry **list, int *n, ndem_problem *p)
{
    ndem_sweep_row *rows;
    *list = NULL;
    *n = 0;
    if (ndem_db_sweep_list(app->db, ndem_list_owner(who), before, limit, &rows, n)) {
        free(rows);
        ndem_problem_set(p, 500, "the job database failed");
        return -1;
    }
    *list = calloc((size_t)(*n > 0 ? *n : 1), sizeof **list);
    for (int i = 0; i < *n; i++) {
        if (*list) {
            (*list)[i].sweep = rows[i];
            /* a sweep whose jobs cannot be read lists with none, as before */
            if (ndem_db_sweep_jobs(app->db, rows[i].id, &(*list)[i].jobs, &(*list)[i].n))
                (*list)[i].n = 0;
        } else {
            ndem_sweep_row_free(&rows[i]);
        }
    }
    free(rows);
    if (*list) return 0;
    *n = 0;
    ndem_problem_set(p, 500, "out of memory");
    return -1;
}

void ndem_jobs_sweeps_free(ndem_sweep_entry *list, int n)
{
    for (int i = 0; i < n; i++) {
        ndem_sweep_row_free(&list[i].sweep);
        ndem_jobs_free(list[i].jobs, list[i].n);
    }
    free(list);
}

int ndem_jobs_cancel_sweep(ndem_app *app, const ndem_caller *who, const char *id, int *running,
                           ndem_problem *p)
{
    ndem_sweep_row sw;
    ndem_job_row *jobs;
    int n, failed = 0;
    *running = 0;
    if (ndem_jobs_sweep_get(app, who, id, &sw, &jobs, &n, p)) return -1;
    const char **live = calloc((size_t)n + 1, sizeof *live);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (ndem_job_row_finished(&jobs[i])) continue;
        int rc = ndem_pool_cancel(app->pool, jobs[i].id);
        *running += rc == NDEM_CANCEL_RUNNING;
        failed += rc < 0;
        if (live) live[k++] = jobs[i].id;
    }
    /* after the jobs' own cancels, so that their workers expect the end */
    if (live) ndem_pool_cancel_arrays(app->pool, live, k);
    free(live);
    ndem_log("sweep %s: cancel (%d running jobs stop after their step)", sw.id, *running);
    if (failed) ndem_problem_set(p, 500, "the job database failed");
    ndem_sweep_row_free(&sw);
    ndem_jobs_free(jobs, n);
    return failed ? -1 : 0;
}

int ndem_jobs_delete_sweep(ndem_app *app, const ndem_caller *who, const char *id, ndem_problem *p)
{
    ndem_sweep_row sw;
    ndem_job_row *jobs;
    int n, rc = 0, tombs = 0;
    if (ndem_jobs_sweep_get(app, who, id, &sw, &jobs, &n, p)) return -1;
    for (int i = 0; i < n; i++)
        if (!ndem_job_row_finished(&jobs[i])) rc = 2;
    /* tombstones first, as a job's delete does: start-up finishes an
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
    } else {
        for (int i = 0; i < tombs; i++) ndem_jobdir_tombstone(app->cfg.data, jobs[i].id, 0);
        if (rc == 2)
            ndem_problem_set(p, 409, "sweep %s has queued or running jobs: cancel it first", sw.id);
        else if (rc == 1) ndem_problem_set(p, 404, "no sweep with id '%s'", sw.id);
        else ndem_problem_set(p, 500, "the job database failed");
    }
    ndem_sweep_row_free(&sw);
    ndem_jobs_free(jobs, n);
    return rc ? -1 : 0;
}
