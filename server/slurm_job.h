/* slurm_job.h - the record of the Slurm job that runs an ndem job
 * (slurm_job.c): DATA/jobs/<id>/slurm.json, mode 0600. It outlives ndemd's
 * restarts, so a restarted daemon follows the same Slurm job again instead of
 * submitting a new one, and it feeds the job resource's `executor`. */
#ifndef NDEM_SERVER_SLURM_JOB_H
#define NDEM_SERVER_SLURM_JOB_H

#include <cjson/cJSON.h>

#define NDEM_SECRET_LEN 64 /* hex digits of a job's report secret */

typedef struct ndem_slurm_job {
    char job_id[48];                  /* what scontrol and scancel take: "17", "16_2" */
    char array_id[32];                /* the array's Slurm job id; "" outside an array */
    long array_task;                  /* the task of the array; -1 outside one */
    char secret[NDEM_SECRET_LEN + 1]; /* the job's report secret; "" once the job ended */
    long run;                         /* the run number the last `start` gave */
    double wall_before;               /* wall seconds of the runs before that one */
    char state[32];                   /* Slurm's JobState, as last seen */
    char reason[160];                 /* Slurm's Reason */
} ndem_slurm_job;

/* 0 loaded, 1 none (or not readable as one), -1 on an impossible id. A
 * record may have a secret and no job_id yet: a task of an array whose
 * sbatch has not answered (its run may report already). */
int ndem_slurm_job_load(const char *data, const char *id, ndem_slurm_job *sj);
/* Writes it atomically; 0, or -1 with errno set. */
int ndem_slurm_job_save(const char *data, const char *id, const ndem_slurm_job *sj);
/* The job resource's `executor` object (never the secret). */
cJSON *ndem_slurm_job_json(const ndem_slurm_job *sj);

#endif
