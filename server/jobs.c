/* jobs.c - the job service (jobs.h): one job's way from a document to the
 * queue, and the owner's checks of reading, cancelling and deleting it.
 * Sweeps (jobs_sweeps.c) validate and build their variants with the same
 * ndem_jobs_prepare and ndem_jobs_row_of as a single job. */
#include "jobs_priv.h"

#include "jobdir.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

ndem_caller ndem_caller_of(const ndem_request *req)
{
    return (ndem_caller){req->owner, req->admin};
}

int ndem_may_see(const ndem_caller *who, const char *owner)
{
    return who->admin || (owner[0] && !strcmp(owner, who->owner));
}

const char *ndem_list_owner(const ndem_caller *who) { return who->admin ? NULL : who->owner; }

void ndem_jobs_resolver(ndem_mesh_resolver *r, ndem_app *app, const ndem_caller *who)
{
    r->visible = ndem_meshes_visible;
    r->visible_ctx = app->meshes;
    r->owner = ndem_list_owner(who);
}

int ndem_new_id(char *id)
{
    unsigned char r[NDEM_ID_LEN / 2];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
    for (size_t i = 0; i < sizeof r; i++) snprintf(id + 2 * i, 3, "%02x", r[i]);
    return 0;
}

long ndem_jobs_prepare(ndem_app *app, const ndem_job *job, const char *text, size_t len,
                       ndem_job_errors *errs)
{
    long steps = ndem_job_steps(job);
    ndem_check_limits(&app->cfg, job, steps, errs);
    ndem_job_errors_sort(errs, text, len);
    return steps;
}

int ndem_jobs_row_of(ndem_job_row *row, const ndem_job *job, long steps)
{
    row->document = ndem_job_to_json(job);
    snprintf(row->name, sizeof row->name, "%s", job->name);
    row->steps_total = steps;
    row->duration = job->scene.solver.duration;
    row->warnings = ndem_job_warnings_to_json(job);
    snprintf(row->status, sizeof row->status, "queued");
    return row->document && row->warnings ? 0 : -1;
}

/* ---- submitting one job ---- */

/* A job's uploaded meshes stay until it ends: its references are held
 * (pending) before it is queued. 0, or -1 with p. */
static int hold_meshes(ndem_app *app, const char *id, const ndem_mesh_resolver *res,
                       ndem_problem *p)
{
    int missing = -1;
    int rc = res->failed ? -1 : ndem_meshes_hold(app->meshes, id, res->ids, res->count, &missing);
    if (rc == 1)
        ndem_problem_set(p, 409, "mesh %s was deleted while the job was submitted",
                         res->ids[missing]);
    else if (rc) ndem_problem_set(p, 500, "the mesh index failed");
    return rc ? -1 : 0;
}

/* The parsed and checked job as a queued row of who's, or -1 with p (400
 * not JSON, 422 its errors, or the parse budget's refusal). */
static int parse_job(ndem_app *app, const ndem_caller *who, const char *text, size_t len,
                     ndem_job_row *row, ndem_mesh_resolver *res, ndem_problem *p)
{
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    ndem_job_status st;
    ndem_job_parse_opts opts = ndem_mesh_resolver_opts(res, app->cfg.data);
    ndem_jobs_resolver(res, app, who);
    if (ndem_intake_job(&app->parse_budget, app->cfg.max_particles, &opts, text, len, &job, &errs,
                        &st, p))
        return -1;
    long steps = 0;
    if (st == NDEM_JOB_OK) steps = ndem_jobs_prepare(app, job, text, len, &errs);
    if (st != NDEM_JOB_OK || errs.count) {
        const char *first = errs.count ? errs.items[0].message : "?";
        p->errors = ndem_job_errors_to_json(&errs);
        if (st == NDEM_JOB_MALFORMED) ndem_problem_set(p, 400, "the body is not JSON: %s", first);
        else
            ndem_problem_set(p, 422, "the job has %d error%s; the first: %s%s%s", errs.count,
                             errs.count == 1 ? "" : "s",
                             errs.items[0].pointer[0] ? errs.items[0].pointer : "",
                             errs.items[0].pointer[0] ? ": " : "", first);
        ndem_job_errors_clear(&errs);
        ndem_job_destroy(job);
        return -1;
    }
    int bad = ndem_jobs_row_of(row, job, steps);
    ndem_job_destroy(job);
    snprintf(row->owner, sizeof row->owner, "%s", who->owner);
    row->created_us = ndem_now_us();
    if (bad || ndem_new_id(row->id)) {
        ndem_problem_set(p, 500, "out of memory or randomness");
        return -1;
    }
    return 0;
}

int ndem_jobs_submit(ndem_app *app, const ndem_caller *who, const char *text, size_t len,
                     char id[NDEM_ID_LEN + 1], ndem_problem *p)
{
    ndem_job_row row = {0};
    ndem_mesh_resolver res; /* the meshes the job names, to hold for it */
    int bad = parse_job(app, who, text, len, &row, &res, p);
    if (!bad) bad = hold_meshes(app, row.id, &res, p);
    ndem_mesh_resolver_free(&res);
    if (bad) {
        ndem_job_row_free(&row);
        return -1;
    }
    /* the directory first: a job in the index always has its record on disk */
    if (ndem_jobdir_create(app->cfg.data, &row)) {
        /* the disk, not the document: 503 (a full disk frees up when jobs are deleted) */
        const char *why = strerror(errno);
        ndem_log("job %s: cannot write its directory: %s", row.id, why);
        ndem_job_row_free(&row);
        ndem_store_remove(app->store, row.id);
        ndem_meshes_release(app->meshes, row.id);
        p->retry_after = 30;
        ndem_problem_set(p, 503, "cannot write the job's directory: %s (GET /health says more)",
                         why);
        return -1;
    }
    int rc = ndem_db_insert(app->db, &row, app->cfg.max_queued);
    ndem_job_row_free(&row);
    if (rc) ndem_store_remove(app->store, row.id);
    if (rc) ndem_meshes_release(app->meshes, row.id);
    else ndem_meshes_settle(app->meshes, row.id);
    if (rc == 1) {
        p->retry_after = 10;
        ndem_problem_set(p, 503, "%ld jobs are queued already (--max-queued); try later",
                         app->cfg.max_queued);
        return -1;
    }
    if (rc) {
        ndem_problem_set(p, 500, "the job database failed");
        return -1;
    }
    ndem_log("job %s: queued ('%s', %ld steps)", row.id, row.name, row.steps_total);
    ndem_pool_wake(app->pool);
    memcpy(id, row.id, sizeof row.id);
    return 0;
}

/* ---- reading, cancelling, deleting ---- */

int ndem_jobs_get(ndem_app *app, const ndem_caller *who, const char *id, ndem_job_row *row,
                  ndem_problem *p)
{
    int rc = ndem_jobdir_is_id(id) ? ndem_db_get(app->db, id, row) : 1;
    if (rc == 0 && !ndem_may_see(who, row->owner)) {
        ndem_job_row_free(row);
        rc = 1;
    }
    if (rc > 0) ndem_problem_set(p, 404, "no job with id '%s'", id);
    if (rc < 0) ndem_problem_set(p, 500, "the job database failed");
    return rc ? -1 : 0;
}

int ndem_jobs_list(ndem_app *app, const ndem_caller *who, const char *status, long before,
                   int limit, ndem_job_row **rows, int *n, ndem_problem *p)
{
    if (ndem_db_list(app->db, status, ndem_list_owner(who), before, limit, rows, n) == 0) return 0;
    ndem_problem_set(p, 500, "the job database failed");
    return -1;
}

int ndem_jobs_cancel(ndem_app *app, const ndem_caller *who, const char *id, ndem_problem *p)
{
    ndem_job_row row;
    if (ndem_jobs_get(app, who, id, &row, p)) return -1; /* another owner's: 404 */
    ndem_job_row_free(&row);
    int rc = ndem_pool_cancel(app->pool, id);
    switch (rc) {
    case NDEM_CANCEL_QUEUED:
        ndem_log("job %s: cancelled while queued", id);
        return rc;
    case NDEM_CANCEL_RUNNING:
        ndem_log("job %s: cancel requested", id);
        return rc;
    case NDEM_CANCEL_FINISHED:
        ndem_problem_set(p, 409,
                         "job %s has finished; only queued or running jobs can be cancelled", id);
        return -1;
    case NDEM_CANCEL_UNKNOWN:
        ndem_problem_set(p, 404, "no job with id '%s'", id);
        return -1;
    default:
        ndem_problem_set(p, 500, "the job database failed");
        return -1;
    }
}

int ndem_jobs_delete(ndem_app *app, const ndem_caller *who, const char *id, ndem_problem *p)
{
    ndem_job_row row;
    int rc = ndem_jobdir_is_id(id) ? ndem_db_get(app->db, id, &row) : 1;
    if (rc == 0) {
        rc = !ndem_may_see(who, row.owner) ? 1 : ndem_job_row_finished(&row) ? 0 : 2;
        ndem_job_row_free(&row);
    }
    /* The tombstone before anything is removed: it is the only mark that
     * lets start-up finish an interrupted delete; without it a directory is
     * a job to recover, never waste. */
    if (rc == 0 && ndem_jobdir_tombstone(app->cfg.data, id, 1)) {
        ndem_log("job %s: cannot write its tombstone: %s", id, strerror(errno));
        rc = -1;
    } else if (rc == 0) {
        rc = ndem_db_delete(app->db, id);
        if (rc) ndem_jobdir_tombstone(app->cfg.data, id, 0);
    }
    if (rc == 0) {
        if (ndem_store_remove(app->store, id))
            ndem_log("job %s: could not remove all its files", id);
        ndem_log("job %s: deleted", id);
        return 0;
    }
    if (rc == 1) ndem_problem_set(p, 404, "no job with id '%s'", id);
    else if (rc == 2) ndem_problem_set(p, 409, "job %s is queued or running: cancel it first", id);
    else ndem_problem_set(p, 500, "the job database failed");
    return -1;
}
