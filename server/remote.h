/* remote.h - jobs run by Slurm (--executor slurm): one Slurm job each,
 * running `ndem run --report`, which reports its frames, series rows,
 * checkpoints, progress and end back to ndemd over HTTP with a secret of
 * its own (remote.c, docs/scale-out.md). */
#ifndef NDEM_SERVER_REMOTE_H
#define NDEM_SERVER_REMOTE_H

#include "config.h"
#include "db.h"
#include "store.h"
#include "stream.h"

#include <stdatomic.h>
#include <stddef.h>

typedef struct ndem_remote ndem_remote;

ndem_remote *ndem_remote_create(const ndem_config *cfg, ndem_db *db, ndem_store *store,
                                ndem_stream *stream);
void ndem_remote_destroy(ndem_remote *rm);

/* What the worker thread that claimed the job shares with its run. */
typedef struct ndem_remote_ctl {
    atomic_int *cancel;        /* set by a cancel request */
    atomic_int *stopping;      /* set at shutdown */
    _Atomic double *last_seen; /* ndem_mono() of the job's last report */
    /* called once the job is recorded finished, before its status is
     * published: from then on a cancel must find it finished, not running */
    void (*recorded)(void *ctx);
    void *ctx;
} ndem_remote_ctl;

/* Runs a claimed job through Slurm to its end: submits it, follows its
 * state, resubmits it after an interruption (it resumes from its last
 * checkpoint), scancels it on cancel or shutdown, and records the end. */
void ndem_remote_run(ndem_remote *rm, const ndem_job_row *row, const ndem_remote_ctl *ctl);

/* A cancel of job id was asked (its worker's cancel flag is set): 1 when
 * Slurm holds the job PENDING, so that its worker scancels it and records
 * it cancelled at once (no run to stop), else 0. Wakes the worker. */
int ndem_remote_cancelling(ndem_remote *rm, const char *id);
/* A queued job was cancelled: scancel the Slurm job its slurm.json names
 * (a task of its sweep's array, or one left running across a restart). */
void ndem_remote_forget(ndem_remote *rm, const char *id);
/* A sweep was cancelled: scancel each job array the jobs ids[0..n) are
 * tasks of, once. */
void ndem_remote_cancel_arrays(ndem_remote *rm, const char *const *ids, int n);

/* One report of a job's Slurm run (POST /internal/v1/jobs/{id}/report):
 * the HTTP status; *reply (malloc'd JSON) on 200, else why says what. */
int ndem_remote_report(ndem_remote *rm, const char *id, const char *secret, const char *body,
                       size_t len, char **reply, char *why, size_t why_len);

#endif
