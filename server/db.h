/* db.h - the job queue and record in SQLite (db.c). */
#ifndef NDEM_SERVER_DB_H
#define NDEM_SERVER_DB_H

#include <stddef.h>
#include <stdint.h>

#define NDEM_ID_LEN 16 /* hex digits of a job id */

typedef struct ndem_db ndem_db;

/* One row of `jobs`; document and error are owned (ndem_job_row_free). */
typedef struct ndem_job_row {
    long seq;
    char id[NDEM_ID_LEN + 1];
    char name[256];
    char status[16];
    char *document;
    int64_t created_us, started_us, finished_us; /* 0 = not yet */
    long step, steps_total;
    double time, duration;
    long particles, contacts;
    double kinetic_energy, wall_seconds;
    long attempts;
    char *error;
    long interrupted;            /* times found running at start-up (crash or kill) */
    char sweep[NDEM_ID_LEN + 1]; /* the sweep it belongs to; "" none */
    int sweep_index;             /* its place in the sweep; -1 none */
    char *sweep_values;          /* its parameter values, a JSON array; NULL none */
    char owner[65];              /* the token name that made it; "" none (NULL) */
    /* The parser's warnings as a JSON array, set at submission and kept in
     * the job's directory (warnings.json, jobdir.c), not in a column: NULL
     * in rows read from the database. */
    char *warnings;
} ndem_job_row;

typedef char ndem_id[NDEM_ID_LEN + 1];

/* Progress of a running job, as recorded. */
typedef struct ndem_progress {
    long step, steps_total;
    double time;
    long particles, contacts;
    double kinetic_energy, wall_seconds;
} ndem_progress;

typedef struct ndem_frame_row {
    long index, step, particles;
    double time;
} ndem_frame_row;

enum { NDEM_STATUS_COUNT = 5 };
extern const char *const ndem_status_names[NDEM_STATUS_COUNT]; /* queued .. cancelled */

/* Opens (creating) and migrates the database. NULL on failure, with
 * *damaged set when PRAGMA quick_check found the file damaged. */
ndem_db *ndem_db_open(const char *path, int *damaged, char *err, size_t err_len);
void ndem_db_close(ndem_db *db);
void ndem_job_row_free(ndem_job_row *row);
int ndem_job_row_finished(const ndem_job_row *row);

/* Inserts a queued job (row: id, name, document, created_us, steps_total,
 * duration, owner). 0 when committed, 1 when max_queued jobs already wait, -1 on
 * error. */
int ndem_db_insert(ndem_db *db, const ndem_job_row *row, long max_queued);
/* 0 found, 1 unknown, -1 error. */
int ndem_db_get(ndem_db *db, const char *id, ndem_job_row *row);
/* Newest first; status (the status a user sees) may be NULL; before_seq 0
 * starts at the newest;
 * owner NULL lists every owner's jobs, else only those of owner.
 * *rows is malloc'd (free each with ndem_job_row_free, then free()). */
int ndem_db_list(ndem_db *db, const char *status, const char *owner, long before_seq, int limit,
                 ndem_job_row **rows, int *count);
/* Atomically moves the oldest queued job to running (attempts + 1,
 * started_us set the first time). 0 claimed into row, 1 none, -1 error. */
int ndem_db_claim(ndem_db *db, ndem_job_row *row);
int ndem_db_progress(ndem_db *db, const char *id, const ndem_progress *p);
/* A running job ends: status succeeded, failed or cancelled; error may be
 * NULL. Also used to put an interrupted job back to queued. */
int ndem_db_finish(ndem_db *db, const char *id, const char *status, const char *error,
                   const ndem_progress *p);
/* A running job's executor holds it in a queue of its own (Slurm's
 * PENDING, pending 1) or runs it (0): while it waits it reads, lists and
 * counts as queued (remote.c). Every end and requeue clears it. 0 or -1. */
int ndem_db_set_pending(ndem_db *db, const char *id, int pending);
/* queued -> cancelled; 1 when it was queued, 0 when not, -1 on error. */
int ndem_db_cancel_queued(ndem_db *db, const char *id);
/* Start-up: every job still `running` was interrupted (crash or kill):
 * its `interrupted` count goes up; at max_attempts it becomes failed with
 * an error saying so, else it goes back to queued. *ids (malloc'd) lists
 * the failed ones first, then the requeued. 0 or -1. */
int ndem_db_recover_running(ndem_db *db, long max_attempts, ndem_id **ids, int *failed,
                            int *requeued);
/* Inserts a job as it was (ndemd --recover): every field of row, its sweep
 * membership included (the sweep's row must exist). */
int ndem_db_restore(ndem_db *db, const ndem_job_row *row);
/* Deletes a finished job and its frame rows: 0 done, 1 unknown, 2 not
 * finished, -1 error. */
int ndem_db_delete(ndem_db *db, const char *id);
int ndem_db_count_by_status(ndem_db *db, long counts[NDEM_STATUS_COUNT]);

int ndem_db_frame_add(ndem_db *db, const char *id, const ndem_frame_row *f);
/* Removes frame rows with index >= from. */
int ndem_db_frames_truncate(ndem_db *db, const char *id, long from);
/* All frame rows in order (*rows malloc'd). */
int ndem_db_frames(ndem_db *db, const char *id, ndem_frame_row **rows, long *count);
/* One frame row; index < 0 means the latest. 0 found, 1 none, -1 error. */
int ndem_db_frame(ndem_db *db, const char *id, long index, ndem_frame_row *row);

/* ---- sweeps (db_sweeps.c) ---- */
/* One row of `sweeps`; parameters is owned (ndem_sweep_row_free). */
typedef struct ndem_sweep_row {
    long seq;
    char id[NDEM_ID_LEN + 1];
    char mode[8];     /* product or zip */
    char *parameters; /* the submitted [{"pointer", "values"}] as JSON text */
    int64_t created_us;
    char owner[65]; /* as a job's (its jobs have the same) */
} ndem_sweep_row;

void ndem_sweep_row_free(ndem_sweep_row *row);
/* Inserts the sweep and its n jobs (each as ndem_db_insert takes it, with
 * sweep_index and sweep_values) in one transaction: 0 when all are
 * committed, 1 when they would pass max_queued waiting jobs (nothing is),
 * -1 on error (nothing is). */
int ndem_db_sweep_insert(ndem_db *db, const ndem_sweep_row *sweep, const ndem_job_row *jobs, int n,
                         long max_queued);
/* Inserts a sweep as it was (ndemd --recover), unless its id is there
 * already: 0, or -1 on error. */
int ndem_db_sweep_restore(ndem_db *db, const ndem_sweep_row *sweep);
/* 0 found, 1 unknown, -1 error. */
int ndem_db_sweep_get(ndem_db *db, const char *id, ndem_sweep_row *row);
/* Newest first, like ndem_db_list (owner NULL: all; *rows malloc'd:
 * ndem_sweep_row_free each, then free()). */
int ndem_db_sweep_list(ndem_db *db, const char *owner, long before_seq, int limit,
                       ndem_sweep_row **rows, int *count);
/* The sweep's jobs by sweep_index, without their documents (*rows malloc'd). */
int ndem_db_sweep_jobs(ndem_db *db, const char *id, ndem_job_row **rows, int *count);
/* Deletes the sweep, its jobs and their frame rows in one transaction: 0
 * done, 1 unknown, 2 a job of it is queued or running (nothing deleted), -1
 * error. */
int ndem_db_sweep_delete(ndem_db *db, const char *id);

/* Commits an empty write: 0 when the database can write, -1 when not
 * (disk full, read-only; logged). For /health. */
int ndem_db_probe_write(ndem_db *db);

#endif
