/* db_priv.h - what db.c (the job queue) and db_sweeps.c (sweeps) share; not
 * for other modules. One connection, one mutex, every statement prepared
 * once at open: the jobs' first, then the sweeps'. */
#ifndef NDEM_SERVER_DB_PRIV_H
#define NDEM_SERVER_DB_PRIV_H

#include "db.h"

#include <pthread.h>
#include <sqlite3.h>

#define NDEM_DB_JOB_COLUMNS                                                                        \
    "seq, id, name, status, document, created_us, started_us, finished_us, step, steps_total, "    \
    "sim_time, duration, particles, contacts, kinetic_energy, wall_seconds, attempts, error, "     \
    "interrupted, sweep_id, sweep_index, sweep_values, owner"

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
/* A row of NDEM_DB_JOB_COLUMNS. */
void ndem_db_read_row(sqlite3_stmt *st, ndem_job_row *r);

#endif
