/* remote_priv.h - what remote.c (the run of a job through Slurm) and
 * remote_report.c (the reports of its compute node) share; not for other modules. */
#ifndef NDEM_SERVER_REMOTE_PRIV_H
#define NDEM_SERVER_REMOTE_PRIV_H

#include "remote.h"
#include "slurm_job.h"

#include <pthread.h>

/* A job while Slurm runs it (under the registry's lock). */
typedef struct remote_job {
    struct remote_job *next;
    char id[NDEM_ID_LEN + 1];
    ndem_slurm_job sj;    /* its Slurm job and secret, as slurm.json keeps them */
    const char *document; /* the claimed row's, alive while the job is registered */
    double duration;      /* simulated seconds, for progress messages */
    long run;             /* runs started on compute nodes (each `start` report) */
    long frames;          /* index of the next frame */
    double wall_before;   /* wall seconds of the runs before the current one */
    ndem_progress last;   /* the last progress reported */
    _Atomic double *last_seen;
    int ended; /* the current run reported its end */
    char end_status[16];
    char end_error[400];
} remote_job;

struct ndem_remote {
    const ndem_config *cfg;
    ndem_db *db;
    ndem_store *store;
    ndem_stream *stream;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a job reported its end */
    remote_job *jobs;
    /* held while a job finds or makes its Slurm job: an array's submission
     * writes the slurm.json of jobs other workers may be claiming */
    pthread_mutex_t submit;
};

/* Writes j->sj to the job's slurm.json (under rm->lock); logs a failure. */
void ndem_remote_save(ndem_remote *rm, const remote_job *j);
/* Slurm's state of the job as last seen (under rm->lock), saved when it
 * changed; the stream hears `queued` while Slurm holds the job PENDING and
 * `running` after (the job resource shows the same, resource.c). */
void ndem_remote_set_state(ndem_remote *rm, remote_job *j, const char *state, const char *reason);

#endif
