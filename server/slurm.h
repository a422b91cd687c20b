/* slurm.h - Slurm's commands as ndemd's Slurm executor uses them (slurm.c):
 * sbatch to submit, scontrol to follow a job's state, scancel to stop it. */
#ifndef NDEM_SERVER_SLURM_H
#define NDEM_SERVER_SLURM_H

#include "config.h"

#include <stddef.h>

/* What a Slurm state means for the ndem job it runs. */
typedef enum {
    NDEM_SLURM_ACTIVE,      /* pending, running, requeued: wait */
    NDEM_SLURM_ENDED,       /* completed: the run reported its own end (or died silently) */
    NDEM_SLURM_INTERRUPTED, /* failed, node failure, timeout, preempted, ...: resume elsewhere */
    NDEM_SLURM_CANCELLED,   /* scancel */
    NDEM_SLURM_GONE         /* slurmctld no longer knows the job */
} ndem_slurm_class;

typedef struct ndem_slurm_state {
    char state[32];     /* JobState, "RUNNING" */
    char reason[160];   /* Reason, "None" */
    char exit_code[16]; /* ExitCode, "0:9" */
    ndem_slurm_class cls;
} ndem_slurm_state;

/* Submits `ndem run --report URL` for job id; the secret reaches the job in
 * its environment (NDEM_REPORT_SECRET), never on a command line. The Slurm
 * job id into slurm_id. 0, or -1 with the command's message in err. */
int ndem_slurm_submit(const ndem_config *c, const char *id, const char *url, const char *secret,
                      char *slurm_id, size_t slurm_id_len, char *err, size_t err_len);
/* One task of an array: its index, the ndem job it runs and that job's secret. */
typedef struct ndem_slurm_task {
    long index;
    const char *job;
    const char *secret;
} ndem_slurm_task;

/* Submits one job array (sbatch --array) whose task tasks[i].index runs
 * `ndem run --report REPORT_BASE/internal/v1/jobs/<tasks[i].job>/report`
 * with that job's secret; tasks ascend by index. Each secret travels in the
 * array's environment (NDEM_ARRAY_SECRET_<index>), never in argv; a task
 * keeps only its own. throttle > 0 bounds the tasks running at once (%N).
 * The array's job id into slurm_id; 0, or -1 with err. */
int ndem_slurm_submit_array(const ndem_config *c, const char *name, const char *report_base,
                            const ndem_slurm_task *tasks, int n, long throttle, char *slurm_id,
                            size_t slurm_id_len, char *err, size_t err_len);
/* The state of a Slurm job (scontrol show job). 0, or -1 with err. */
int ndem_slurm_query(const ndem_config *c, const char *slurm_id, ndem_slurm_state *st, char *err,
                     size_t err_len);
/* scancel (SIGTERM to the job's processes first: ndem stops after a step). */
int ndem_slurm_cancel(const ndem_config *c, const char *slurm_id, char *err, size_t err_len);
/* The class of a JobState name (a table; unknown names count as active). */
ndem_slurm_class ndem_slurm_classify(const char *state);

#endif
