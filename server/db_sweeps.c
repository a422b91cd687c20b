/* db_sweeps.c - sweeps in the job database: a sweep row and its jobs are
 * inserted in one transaction (all queued or none), read back in the order
 * of the expansion, and deleted together. Same connection, lock and
 * prepared statements as db.c (db_priv.h). */
#include "db_priv.h"

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ndem_db_sweep_sql[NDEM_DB_Q_ALL - Q_N] = {
    [QS_INSERT_SWEEP - Q_N] = "INSERT INTO sweeps (id, mode, parameters, created_us, owner)"
                              " VALUES (?1, ?2, ?3, ?4, nullif(?5, ''))",
    [QS_INSERT_JOB - Q_N] =
        "INSERT INTO jobs (id, name, status, document, created_us, steps_total, duration,"
        " sweep_id, sweep_index, sweep_values, owner) VALUES (?1, ?2, 'queued', ?3, ?4, ?5, ?6,"
        " ?7, ?8, ?9, nullif(?10, ''))",
    [QS_GET - Q_N] =
        "SELECT seq, id, mode, parameters, created_us, owner FROM sweeps WHERE id = ?1",
    /* ?3 NULL: every owner */
    [QS_LIST - Q_N] = "SELECT seq, id, mode, parameters, created_us, owner FROM sweeps"
                      " WHERE seq < ?1 AND (?3 IS NULL OR owner = ?3) ORDER BY seq DESC LIMIT ?2",
    /* the document is left out (NULL): a table of jobs never needs it */
    [QS_JOBS - Q_N] = "SELECT " NDEM_DB_JOB_COLUMNS_OF(
        NDEM_DB_VISIBLE_STATUS, "NULL") " FROM jobs WHERE sweep_id = ?1 ORDER BY sweep_index",
    [QS_UNFINISHED - Q_N] = "SELECT count(*) FROM jobs WHERE sweep_id = ?1 AND status IN"
                            " ('queued', 'running')",
    [QS_DELETE_FRAMES - Q_N] = "DELETE FROM frames WHERE job_id IN"
                               " (SELECT id FROM jobs WHERE sweep_id = ?1)",
    [QS_DELETE_JOBS - Q_N] = "DELETE FROM jobs WHERE sweep_id = ?1",
    [QS_DELETE - Q_N] = "DELETE FROM sweeps WHERE id = ?1",
    [QS_RESTORE - Q_N] = "INSERT OR IGNORE INTO sweeps (id, mode, parameters, created_us, owner)"
                         " VALUES (?1, ?2, ?3, ?4, nullif(?5, ''))",
};

void ndem_sweep_row_free(ndem_sweep_row *row)
{
    free(row->parameters);
    row->parameters = NULL;
}

static void drop_sweep(void *row) { ndem_sweep_row_free(row); }

static void read_sweep(sqlite3_stmt *st, void *row)
{
    ndem_sweep_row *r = row;
    memset(r, 0, sizeof *r);
    r->seq = (long)sqlite3_column_int64(st, 0);
    ndem_db_copy_text(st, 1, r->id, sizeof r->id);
    ndem_db_copy_text(st, 2, r->mode, sizeof r->mode);
    const unsigned char *t = sqlite3_column_text(st, 3);
    r->parameters = strdup(t ? (const char *)t : "[]");
    r->created_us = sqlite3_column_int64(st, 4);
    ndem_db_copy_text(st, 5, r->owner, sizeof r->owner);
}

/* Steps an insert to its end and resets it (lock held). */
static int step_done(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int ndem_db_sweep_insert(ndem_db *db, const ndem_sweep_row *sw, const ndem_job_row *jobs, int n,
                         long max_queued)
{
    pthread_mutex_lock(&db->lock);
    int rc = -1;
    if (ndem_db_exec_locked(db, Q_BEGIN)) goto out;
    sqlite3_stmt *st = db->q[Q_COUNT_QUEUED];
    long queued = sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    if (queued < 0 || queued + n > max_queued) {
        rc = queued < 0 ? -1 : 1;
        goto rollback;
    }
    st = db->q[QS_INSERT_SWEEP];
    sqlite3_bind_text(st, 1, sw->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, sw->mode, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, sw->parameters, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, sw->created_us);
    sqlite3_bind_text(st, 5, sw->owner, -1, SQLITE_STATIC);
    if (step_done(st)) goto fail;
    st = db->q[QS_INSERT_JOB];
    for (int i = 0; i < n; i++) {
        const ndem_job_row *r = &jobs[i];
        sqlite3_bind_text(st, 1, r->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, r->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, r->document, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, r->created_us);
        sqlite3_bind_int64(st, 5, r->steps_total);
        sqlite3_bind_double(st, 6, r->duration);
        sqlite3_bind_text(st, 7, sw->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 8, r->sweep_index);
        sqlite3_bind_text(st, 9, r->sweep_values ? r->sweep_values : "[]", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 10, sw->owner, -1, SQLITE_STATIC);
        if (step_done(st)) goto fail;
    }
    if (ndem_db_exec_locked(db, Q_COMMIT)) goto fail;
    rc = 0;
    goto out;
fail:
    ndem_db_error(db, "inserting a sweep");
rollback:
    ndem_db_exec_locked(db, Q_ROLLBACK);
out:
    pthread_mutex_unlock(&db->lock);
    return rc;
}

int ndem_db_sweep_restore(ndem_db *db, const ndem_sweep_row *sw)
{
    pthread_mutex_lock(&db->lock);
    sqlite3_stmt *st = db->q[QS_RESTORE];
    sqlite3_bind_text(st, 1, sw->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, sw->mode, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, sw->parameters ? sw->parameters : "[]", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, sw->created_us);
    sqlite3_bind_text(st, 5, sw->owner, -1, SQLITE_STATIC);
    int rc = step_done(st);
    if (rc) ndem_db_error(db, "restoring a sweep");
    pthread_mutex_unlock(&db->lock);
    return rc;
}

int ndem_db_sweep_get(ndem_db *db, const char *id, ndem_sweep_row *row)
{
    pthread_mutex_lock(&db->lock);
    sqlite3_stmt *st = db->q[QS_GET];
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int s = sqlite3_step(st), rc = s == SQLITE_ROW ? 0 : s == SQLITE_DONE ? 1 : -1;
    if (rc == 0) read_sweep(st, row);
    if (rc < 0) ndem_db_error(db, "reading a sweep");
    ndem_db_done(db, st);
    return rc;
}

int ndem_db_sweep_list(ndem_db *db, const char *owner, long before_seq, int limit,
                       ndem_sweep_row **rows, int *count)
{
    pthread_mutex_lock(&db->lock);
    sqlite3_stmt *st = db->q[QS_LIST];
    sqlite3_bind_int64(st, 1, before_seq > 0 ? before_seq : INT64_MAX);
    sqlite3_bind_int(st, 2, limit);
    if (owner) sqlite3_bind_text(st, 3, owner, -1, SQLITE_STATIC);
    int rc = ndem_db_read_rows(st, sizeof **rows, limit > 0 ? limit : 1, read_sweep, drop_sweep,
                               (void **)rows, count);
    if (rc) ndem_db_error(db, "listing sweeps");
    ndem_db_done(db, st);
    return rc;
}

int ndem_db_sweep_jobs(ndem_db *db, const char *id, ndem_job_row **rows, int *count)
{
    pthread_mutex_lock(&db->lock);
    sqlite3_stmt *st = db->q[QS_JOBS];
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = ndem_db_read_rows(st, sizeof **rows, 0, ndem_db_read_row, ndem_db_drop_row,
                               (void **)rows, count);
    if (rc) ndem_db_error(db, "reading a sweep's jobs");
    ndem_db_done(db, st);
    return rc;
}

int ndem_db_sweep_delete(ndem_db *db, const char *id)
{
    pthread_mutex_lock(&db->lock);
    int rc = -1;
    if (ndem_db_exec_locked(db, Q_BEGIN)) goto out;
    sqlite3_stmt *st = db->q[QS_GET];
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (s != SQLITE_ROW) {
        rc = s == SQLITE_DONE ? 1 : -1;
        goto rollback;
    }
    st = db->q[QS_UNFINISHED];
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    long unfinished = sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (unfinished != 0) {
        rc = unfinished > 0 ? 2 : -1;
        goto rollback;
    }
    for (int q = QS_DELETE_FRAMES; q <= QS_DELETE; q++) {
        sqlite3_bind_text(db->q[q], 1, id, -1, SQLITE_STATIC);
        if (step_done(db->q[q])) goto rollback;
    }
    rc = ndem_db_exec_locked(db, Q_COMMIT) ? -1 : 0;
    if (rc == 0) goto out;
rollback:
    if (rc < 0) ndem_db_error(db, "deleting a sweep");
    ndem_db_exec_locked(db, Q_ROLLBACK);
out:
    pthread_mutex_unlock(&db->lock);
    return rc;
}
