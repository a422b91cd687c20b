/* slurm_priv.h - the two ways to reach Slurm (slurm.c): its commands
 * (sbatch, scontrol, scancel) or slurmrestd's REST API (slurm_rest.c), a
 * row each of a table; --slurm-rest chooses. Not for other modules. */
#ifndef NDEM_SERVER_SLURM_PRIV_H
#define NDEM_SERVER_SLURM_PRIV_H

#include "slurm.h"

/* One submission: the batch script's command line (run by /bin/sh), the
 * array's task list ("0-2%3") or NULL, and "NAME=value" variables added
 * to ndemd's environment for the job (NULL-terminated). */
typedef struct ndem_slurm_submission {
    const char *name;
    const char *array;
    const char *command;
    char *const *env;
} ndem_slurm_submission;

typedef struct ndem_slurm_backend {
    const char *name;
    int (*submit)(const ndem_config *c, const ndem_slurm_submission *s, char *slurm_id,
                  size_t slurm_id_len, char *err, size_t err_len);
    int (*query)(const ndem_config *c, const char *slurm_id, ndem_slurm_state *st, char *err,
                 size_t err_len);
    int (*cancel)(const ndem_config *c, const char *slurm_id, char *err, size_t err_len);
} ndem_slurm_backend;

extern const ndem_slurm_backend ndem_slurm_rest_backend;

/* 1 when ndemd's environment variable `var` ("NAME=value") stays out of a
 * job's environment: the report secrets of other jobs, slurmrestd's token. */
int ndem_slurm_private_var(const char *var);
/* The output file of a job (--slurm-log), with Slurm's %j or %A_%a. */
void ndem_slurm_output(const ndem_config *c, int array, char *buf, size_t len);

#endif
