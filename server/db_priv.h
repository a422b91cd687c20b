/* db_priv.h - what db.c (the job queue) and db_sweeps.c (sweeps) share; not
 * for other modules. One connection, one mutex, every statement prepared
 * once at open: the jobs' first, then the sweeps'. */
#ifndef NDEM_SERVER_DB_PRIV_H
#define NDEM_SERVER_DB_PRIV_H

#include "db.h"

#include <pthread.h>
#include <sqlite3.h>

/* The status a user sees: a job claimed by a worker whose executor still
 * holds it in a queue of its own (Slurm's PENDING, executor_pending) is
 * queued. Lists, counts, sweeps and the resource all read it from here. */
#define NDEM_DB_VISIBLE_STATUS                                                                     \
    "(CASE WHEN status = 'running' AND executor_pending THEN 'queued' ELSE status END)"
/* The columns ndem_db_read_row reads, with `document` the document's
 * column ("NULL" where a table of jobs never needs it) and `status` the
 * status's (NDEM_DB_VISIBLE_STATUS, or the bare column for a claim). */
#define NDEM_DB_JOB_COLUMNS_OF(status, document)                                                   \
    "seq, id, name, " status ", " document ", created_us, started_us, finished_us, step, "         \
    "steps_total, sim_time, duration, particles, contacts, kinetic_energy, wall_seconds, "         \
    "attempts, error, interrupted, sweep_id, sweep_index, sweep_values, owner"
#define NDEM_DB_JOB_COLUMNS NDEM_DB_JOB_COLUMNS_OF(NDEM_DB_VISIBLE_STATUS, "document")

enum {
    Q_INSERT,
    Q_COUNT_QUEUED,
    Q_GET,
    Q_LIST,
    Q_LIST_STATUS,
    Q_CLAIM,
    Q_PROGRESS,
    Q_FINISH,
    Q_CANCEL,
    Q_INTERRUPTED,
    Q_POISON,
    Q_REQUEUE,
    Q_RESTORE,
    Q_STATUS_OF,
    Q_DELETE_FRAMES,
    Q_DELETE,
    Q_COUNT_BY_STATUS,
    Q_PENDING,
    Q_FRAME_ADD,
    Q_FRAMES_TRUNCATE,
    Q_FRAMES,
    Q_FRAME,
    Q_FRAME_LATEST,
    Q_BEGIN,
    Q_COMMIT,
    Q_ROLLBACK,
    Q_N
};

enum {
    QS_INSERT_SWEEP = Q_N,
    QS_INSERT_JOB,
    QS_GET,
    QS_LIST,
    QS_JOBS,
    QS_UNFINISHED,
    QS_DELETE_FRAMES,
    QS_DELETE_JOBS,
    QS_DELETE,
    QS_RESTORE,
    NDEM_DB_Q_ALL
};

/* The text of the sweeps' statements, QS_INSERT_SWEEP on (db_sweeps.c). */
extern const char *const ndem_db_sweep_sql[NDEM_DB_Q_ALL - Q_N];

struct ndem_db {
    sqlite3 *conn;
    pthread_mutex_t lock;
    sqlite3_stmt *q[NDEM_DB_Q_ALL];
};

void ndem_db_error(ndem_db *db, const char *what);
/* Steps statement q once and resets it (lock held): 0 when it is done. */
int ndem_db_exec_locked(ndem_db *db, int q);
/* Resets st, clears its bindings and releases the lock: the end of every
 * statement run under db->lock. */
void ndem_db_done(ndem_db *db, sqlite3_stmt *st);
/* Copies column col's text into buf ("" for NULL). */
void ndem_db_copy_text(sqlite3_stmt *st, int col, char *buf, size_t len);
/* A row of NDEM_DB_JOB_COLUMNS into *(ndem_job_row *)row. */
void ndem_db_read_row(sqlite3_stmt *st, void *row);
/* ndem_job_row_free of *(ndem_job_row *)row. */
void ndem_db_drop_row(void *row);
/* Steps st (lock held) to its end, or to limit rows when limit > 0,
 * reading each with read into a growing array of size-byte rows: 0 with
 * *rows (malloc'd, also when empty) and *count; on an error or out of
 * memory -1, with the rows read so far dropped (drop: NULL when a row owns
 * nothing), *rows NULL and *count 0. The one reader of every list of rows. */
int ndem_db_read_rows(sqlite3_stmt *st, size_t size, int limit,
                      void (*read)(sqlite3_stmt *st, void *row), void (*drop)(void *row),
                      void **rows, int *count);

#endif
