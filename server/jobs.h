/* jobs.h - the job service (jobs.c, jobs_sweeps.c, jobs_meshes.c): what a
 * client may ask of jobs, sweeps and uploaded meshes, between the routes
 * and the database; every owner's check and list filter is made here.
 * Submitting a job (parse, limits, ownership of its meshes, directory,
 * insert, a worker woken), expanding a sweep into jobs through the same
 * steps, listing, reading, cancelling and deleting, each with its owner's
 * checks. The routes turn HTTP into these calls and the results into
 * responses; a refusal comes back as an ndem_problem (status, detail,
 * errors), answered as it is. */
#ifndef NDEM_SERVER_JOBS_H
#define NDEM_SERVER_JOBS_H

#include "app.h"
#include "job.h"

/* Who asks (docs/api.md, "Authentication"): a token's name ("" none) and
 * whether it is an admin's (every request is when authentication is off). */
typedef struct ndem_caller {
    const char *owner;
    int admin;
} ndem_caller;

/* The caller of a request. */
ndem_caller ndem_caller_of(const ndem_request *req);
/* 1 when who may see a resource of owner ("" when it has none): admins see
 * all, other tokens their own. */
int ndem_may_see(const ndem_caller *who, const char *owner);
/* The owner filter of a list for who: NULL (all) or its token name. */
const char *ndem_list_owner(const ndem_caller *who);

/* A new random id (NDEM_ID_LEN hex digits and NUL); -1 without randomness. */
int ndem_new_id(char *id);
/* Steps of a job: ceil(duration / time_step), saturated (limits.c). */
long ndem_job_steps(const ndem_job *job);
/* The daemon's limits (--max-*), as errors with pointers like the parser's
 * (limits.c). */
void ndem_check_limits(const ndem_config *cfg, const ndem_job *job, long steps,
                       ndem_job_errors *errs);

/* Queues the job document text[0..len) for who: 0 with its id, or -1 with
 * the refusal in p (400 not JSON, 413/503 the parse budget, 422 the
 * document's errors, 409 a mesh deleted meanwhile, 503 disk or
 * --max-queued, 500). */
int ndem_jobs_submit(ndem_app *app, const ndem_caller *who, const char *text, size_t len,
                     char id[NDEM_ID_LEN + 1], ndem_problem *p);
/* Reads job id for who: 0, or -1 with 404 (unknown, or another owner's:
 * an id says nothing about whether it exists) or 500 in p. */
int ndem_jobs_get(ndem_app *app, const ndem_caller *who, const char *id, ndem_job_row *row,
                  ndem_problem *p);
/* Lists who's jobs (every owner's for an admin), newest first: status
 * NULL for any, before 0 from the newest, at most limit. 0 with rows[0..n)
 * (free with ndem_jobs_free), or -1 with 500 in p. */
int ndem_jobs_list(ndem_app *app, const ndem_caller *who, const char *status, long before,
                   int limit, ndem_job_row **rows, int *n, ndem_problem *p);
/* Cancels job id for who: NDEM_CANCEL_QUEUED (cancelled) or
 * NDEM_CANCEL_RUNNING (it stops after its step), or -1 with the refusal
 * in p (404, 409 finished, 500). */
int ndem_jobs_cancel(ndem_app *app, const ndem_caller *who, const char *id, ndem_problem *p);
/* Deletes finished job id and its files for who: 0, or -1 with 404, 409
 * (queued or running) or 500 in p. */
int ndem_jobs_delete(ndem_app *app, const ndem_caller *who, const char *id, ndem_problem *p);

/* ---- sweeps (jobs_sweeps.c) ---- */

/* Expands the sweep body text[0..len) into jobs, validates every variant
 * as ndem_jobs_submit does one job, and queues all in one transaction (or
 * none): 0 with the sweep's id, or -1 with the refusal in p (the variants'
 * errors each name their variant and values). */
int ndem_jobs_submit_sweep(ndem_app *app, const ndem_caller *who, const char *text, size_t len,
                           char id[NDEM_ID_LEN + 1], ndem_problem *p);
/* Reads sweep id and its jobs (by index) for who: 0, or -1 with 404 or 500
 * in p. Free with ndem_sweep_row_free and ndem_jobs_free. */
int ndem_jobs_sweep_get(ndem_app *app, const ndem_caller *who, const char *id, ndem_sweep_row *sw,
                        ndem_job_row **jobs, int *n, ndem_problem *p);
void ndem_jobs_free(ndem_job_row *jobs, int n);
/* A sweep as a list shows it: its row and its jobs (by index). */
typedef struct ndem_sweep_entry {
    ndem_sweep_row sweep;
    ndem_job_row *jobs;
    int n;
} ndem_sweep_entry;
/* Lists who's sweeps (every owner's for an admin) with their jobs, newest
 * first, as ndem_jobs_list does jobs: 0 with list[0..n) (free with
 * ndem_jobs_sweeps_free), or -1 with 500 in p. */
int ndem_jobs_sweep_list(ndem_app *app, const ndem_caller *who, long before, int limit,
                         ndem_sweep_entry **list, int *n, ndem_problem *p);
void ndem_jobs_sweeps_free(ndem_sweep_entry *list, int n);
/* Cancels every unfinished job of sweep id (and scancels its job arrays):
 * 0 with *running, the jobs that stop after their step, or -1 with p. */
int ndem_jobs_cancel_sweep(ndem_app *app, const ndem_caller *who, const char *id, int *running,
                           ndem_problem *p);
/* Deletes finished sweep id with its jobs and their files: 0, or -1 with
 * 404, 409 (a job is queued or running) or 500 in p. */
int ndem_jobs_delete_sweep(ndem_app *app, const ndem_caller *who, const char *id, ndem_problem *p);

/* ---- uploaded meshes (jobs_meshes.c) ---- */

/* Lists who's meshes (every owner's for an admin), newest first, as
 * ndem_jobs_list: 0 with rows[0..n) and their seqs (both malloc'd), or -1
 * with 500 in p. */
int ndem_jobs_mesh_list(ndem_app *app, const ndem_caller *who, long before, int limit,
                        ndem_mesh_info **rows, long **seqs, int *n, ndem_problem *p);
/* Reads mesh id for who: 0, or -1 with 404 (unknown or another owner's)
 * or 500 in p. */
int ndem_jobs_mesh_get(ndem_app *app, const ndem_caller *who, const char *id, ndem_mesh_info *info,
                       ndem_problem *p);
/* Deletes mesh id and its file for who: 0, or -1 with 404, 409 (a queued
 * or running job uses it) or 500 in p. */
int ndem_jobs_mesh_delete(ndem_app *app, const ndem_caller *who, const char *id, ndem_problem *p);

#endif
