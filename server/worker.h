/* worker.h - the worker pool that runs queued jobs (worker.c). */
#ifndef NDEM_SERVER_WORKER_H
#define NDEM_SERVER_WORKER_H

#include "config.h"
#include "db.h"
#include "store.h"
#include "stream.h"

#include <stddef.h>

typedef struct ndem_pool ndem_pool;

ndem_pool *ndem_pool_start(const ndem_config *cfg, ndem_db *db, ndem_store *store,
                           ndem_stream *stream, char *err, size_t err_len);
/* A job was queued: a sleeping worker looks now. */
void ndem_pool_wake(ndem_pool *p);

enum { NDEM_CANCEL_QUEUED, NDEM_CANCEL_RUNNING, NDEM_CANCEL_FINISHED, NDEM_CANCEL_UNKNOWN };
/* Cancels a queued job at once (also one that Slurm holds PENDING: its
 * worker scancels it, waited for here), or asks the worker of a running one
 * to stop after the current step. NDEM_CANCEL_* or -1 on a database error. */
int ndem_pool_cancel(ndem_pool *p, const char *id);
/* A sweep was cancelled (--executor slurm): scancel the job arrays its
 * jobs ids[0..n) run in; nothing with the local executor. */
void ndem_pool_cancel_arrays(ndem_pool *p, const char *const *ids, int n);

/* A report of a job's Slurm run (--executor slurm; remote.h): the HTTP
 * status, *reply (malloc'd JSON) on 200, else why. 404 with the local
 * executor. */
int ndem_pool_report(ndem_pool *p, const char *id, const char *secret, const char *body, size_t len,
                     char **reply, char *why, size_t why_len);

/* Stops taking jobs; running jobs checkpoint and go back to the queue.
 * Waits up to timeout seconds for the workers: the number still in a step
 * then (the pool is left allocated, since they still use it), else 0. */
int ndem_pool_stop(ndem_pool *p, double timeout);

typedef struct ndem_pool_stats {
    long workers, busy;
    long steps_total;        /* steps taken since start-up */
    double steps_per_second; /* summed over running jobs, recent */
} ndem_pool_stats;
void ndem_pool_stats_get(ndem_pool *p, ndem_pool_stats *out);

/* One worker as /health shows it. */
typedef struct ndem_worker_state {
    char job[NDEM_ID_LEN + 1]; /* "" when idle */
    double idle_seconds;       /* wall seconds since its job's last step (or its claim) */
    int stuck;                 /* a job, and no step for longer than --stuck-after */
    int threads;               /* OpenMP threads of its job's next step (0: none, or Slurm) */
} ndem_worker_state;
/* Fills up to max states, one per worker; the number filled. */
int ndem_pool_workers(ndem_pool *p, ndem_worker_state *out, long max);

/* The cores the running jobs share, as /health shows them. */
typedef struct ndem_pool_cores {
    long shared;    /* --cores, less those left to other processes */
    int cpus;       /* the CPUs ndemd may run on */
    double outside; /* cores' worth other processes took over the last --adapt-load interval */
    int left;       /* whole cores left to them */
    int adapting;   /* --adapt-load is on and /proc/stat readable */
} ndem_pool_cores;
void ndem_pool_cores_get(ndem_pool *p, ndem_pool_cores *out);

#endif
