/* db.c - the job queue and the job record, in one SQLite database in WAL
 * mode (readers never wait for the writer; a crash loses nothing that was
 * committed). The schema comes from the numbered files of migrations/,
 * embedded in the binary and applied in order at start-up, each in its own
 * transaction, with PRAGMA user_version as the applied count. Every
 * statement is prepared once at open and bound, never formatted. One
 * connection serves the daemon behind one mutex: each call is a handful of
 * microseconds, and serialising them makes claiming a job trivially atomic
 * on top of the UPDATE ... WHERE status = 'queued' ... RETURNING that would
 * already be atomic across processes. */
#include "db_priv.h"

#include "embedded.h"
#include "log.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ndem_status_names[NDEM_STATUS_COUNT] = {"queued", "running", "succeeded",
                                                          "failed", "cancelled"};

#define JOB_COLUMNS NDEM_DB_JOB_COLUMNS

static const char *const sql_text[Q_N] = {
    [Q_INSERT] = "INSERT INTO jobs (id, name, status, document, created_us, steps_total, duration,"
                 " owner) VALUES (?1, ?2, 'queued', ?3, ?4, ?5, ?6, nullif(?7, ''))",
    [Q_COUNT_QUEUED] = "SELECT count(*) FROM jobs WHERE status = 'queued'",
    [Q_GET] = "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?1",
    /* ?4 NULL: every owner */
    [Q_LIST] = "SELECT " JOB_COLUMNS " FROM jobs WHERE seq < ?1 AND (?4 IS NULL OR owner = ?4)"
               " ORDER BY seq DESC LIMIT ?2",
    /* the stored status narrows the rows (jobs_by_status), the status a
     * user sees picks them */
    [Q_LIST_STATUS] = "SELECT " JOB_COLUMNS " FROM jobs WHERE seq < ?1"
                      " AND status IN (?3, CASE ?3 WHEN 'queued' THEN 'running' END)"
                      " AND " NDEM_DB_VISIBLE_STATUS " = ?3"
                      " AND (?4 IS NULL OR owner = ?4) ORDER BY seq DESC LIMIT ?2",
    [Q_CLAIM] = "UPDATE jobs SET status = 'running', attempts = attempts + 1,"
                " started_us = coalesce(started_us, ?1)"
                " WHERE seq = (SELECT seq FROM jobs WHERE status = 'queued' ORDER BY seq LIMIT 1)"
                " AND status = 'queued' RETURNING " JOB_COLUMNS,
    [Q_PROGRESS] = "UPDATE jobs SET step = ?2, steps_total = ?3, sim_time = ?4, particles = ?5,"
                   " contacts = ?6, kinetic_energy = ?7, wall_seconds = ?8"
                   " WHERE id = ?1 AND status = 'running'",
    [Q_FINISH] = "UPDATE jobs SET status = ?2, error = ?3, step = ?4, steps_total = ?5,"
                 " sim_time = ?6, particles = ?7, contacts = ?8, kinetic_energy = ?9,"
                 " wall_seconds = ?10, finished_us = ?11, executor_pending = 0"
                 " WHERE id = ?1 AND status = 'running'",
    [Q_CANCEL] = "UPDATE jobs SET status = 'cancelled', finished_us = ?2"
                 " WHERE id = ?1 AND status = 'queued'",
    [Q_INTERRUPTED] = "UPDATE jobs SET interrupted = interrupted + 1 WHERE status = 'running'",
    [Q_POISON] = "UPDATE jobs SET status = 'failed', finished_us = ?1, executor_pending = 0,"
                 " error = 'interrupted ' || interrupted || ' times while running (crash or"
                 " restart); not retried' WHERE status = 'running' AND interrupted >= ?2"
                 " RETURNING id",
    [Q_REQUEUE] = "UPDATE jobs SET status = 'queued', executor_pending = 0 WHERE status = 'running'"
                  " RETURNING id",
    [Q_RESTORE] = "INSERT INTO jobs (id, name, status, document, created_us, started_us,"
                  " finished_us, step, steps_total, sim_time, duration, particles, contacts,"
                  " kinetic_energy, wall_seconds, attempts, error, interrupted, owner, sweep_id,"
                  " sweep_index, sweep_values) VALUES (?1, ?2, ?3, ?4, ?5, nullif(?6, 0),"
                  " nullif(?7, 0), ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
                  " nullif(?19, ''), nullif(?20, ''), ?21, ?22)",
    [Q_STATUS_OF] = "SELECT status FROM jobs WHERE id = ?1",
    [Q_DELETE_FRAMES] = "DELETE FROM frames WHERE job_id = ?1",
    [Q_DELETE] = "DELETE FROM jobs WHERE id = ?1",
    [Q_COUNT_BY_STATUS] = "SELECT " NDEM_DB_VISIBLE_STATUS ", count(*) FROM jobs GROUP BY 1",
    [Q_PENDING] = "UPDATE jobs SET executor_pending = ?2 WHERE id = ?1 AND status = 'running'",
    [Q_FRAME_ADD] = "INSERT OR REPLACE INTO frames (job_id, idx, step, time, particles)"
                    " VALUES (?1, ?2, ?3, ?4, ?5)",
    [Q_FRAMES_TRUNCATE] = "DELETE FROM frames WHERE job_id = ?1 AND idx >= ?2",
    [Q_FRAMES] = "SELECT idx, step, time, particles FROM frames WHERE job_id = ?1 ORDER BY idx",
    [Q_FRAME] = "SELECT idx, step, time, particles FROM frames WHERE job_id = ?1 AND idx = ?2",
    [Q_FRAME_LATEST] = "SELECT idx, step, time, particles FROM frames WHERE job_id = ?1"
                       " ORDER BY idx DESC LIMIT 1",
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_COMMIT] = "COMMIT",
    [Q_ROLLBACK] = "ROLLBACK",
};

void ndem_db_error(ndem_db *db, const char *what)
{
    ndem_log("db: %s: %s", what, sqlite3_errmsg(db->conn));
}

/* Applies every embedded NNN_*.sql above PRAGMA user_version, in order. */
static int migrate(sqlite3 *conn, char *err, size_t err_len)
{
    sqlite3_stmt *st;
    int version = 0;
    if (sqlite3_prepare_v2(conn, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) goto fail;
    if (sqlite3_step(st) == SQLITE_ROW) version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    for (const ndem_embedded_file *f = ndem_embedded; f->name; f++) {
        size_t n = strlen(f->name);
        if (n < 5 || strcmp(f->name + n - 4, ".sql")) continue;
        int number = atoi(f->name);
        if (number <= version) continue;
        if (number != version + 1) {
            snprintf(err, err_len, "migration %s does not follow version %d", f->name, version);
            return -1;
        }
        char *msg = NULL;
        char set[64];
        snprintf(set, sizeof set, "PRAGMA user_version = %d; COMMIT;", number);
        if (sqlite3_exec(conn, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_exec(conn, f->text, NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_exec(conn, set, NULL, NULL, &msg) != SQLITE_OK) {
            snprintf(err, err_len, "migration %s failed: %s", f->name, msg ? msg : "?");
            sqlite3_free(msg);
            sqlite3_exec(conn, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
        ndem_log("db: applied migration %s", f->name);
        version = number;
    }
    return 0;
fail:
    snprintf(err, err_len, "%s", sqlite3_errmsg(conn));
    return -1;
}

/* PRAGMA quick_check before anything writes: a damaged file (random bytes,
 * not a database at all) is refused at start-up instead of failing jobs one
 * by one later. */
static int check_integrity(sqlite3 *conn, const char *path, int *damaged, char *err, size_t err_len)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(conn, "PRAGMA quick_check", -1, &st, NULL);
    char first[256] = "";
    int rows = 0, ok = 0;
    if (rc == SQLITE_OK) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const unsigned char *t = sqlite3_column_text(st, 0);
            if (rows++ == 0) snprintf(first, sizeof first, "%s", t ? (const char *)t : "?");
            ok = rows == 1 && t && !strcmp((const char *)t, "ok");
        }
        if (rc == SQLITE_DONE) rc = SQLITE_OK;
    }
    int code = sqlite3_extended_errcode(conn) & 0xff;
    if (rc != SQLITE_OK && code != SQLITE_CORRUPT && code != SQLITE_NOTADB) {
        snprintf(err, err_len, "cannot check %s: %s", path, sqlite3_errmsg(conn));
    } else if (rc != SQLITE_OK || !ok) {
        *damaged = 1;
        snprintf(err, err_len, "%s is damaged (PRAGMA quick_check: %s)", path,
                 rc != SQLITE_OK ? sqlite3_errmsg(conn) : first);
    }
    sqlite3_finalize(st);
    return rc != SQLITE_OK || !ok ? -1 : 0;
}

ndem_db *ndem_db_open(const char *path, int *damaged, char *err, size_t err_len)
{
    *damaged = 0;
    ndem_db *db = calloc(1, sizeof *db);
    if (!db) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&db->lock, NULL);
    if (sqlite3_open_v2(path, &db->conn,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        snprintf(err, err_len, "cannot open %s: %s", path,
                 db->conn ? sqlite3_errmsg(db->conn) : "out of memory");
        ndem_db_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db->conn, 5000);
    if (check_integrity(db->conn, path, damaged, err, err_len)) {
        ndem_db_close(db);
        return NULL;
    }
    char *msg = NULL;
    /* WAL: readers never block the writer. synchronous=FULL: a 201 means the
     * job survives a power cut, not only a crash. */
    if (sqlite3_exec(db->conn,
                     "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                     " PRAGMA foreign_keys = ON;",
                     NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, err_len, "cannot configure %s: %s", path, msg ? msg : "?");
        sqlite3_free(msg);
        ndem_db_close(db);
        return NULL;
    }
    if (migrate(db->conn, err, err_len)) {
        ndem_db_close(db);
        return NULL;
    }
    for (int i = 0; i < NDEM_DB_Q_ALL; i++) {
        const char *sql = i < Q_N ? sql_text[i] : ndem_db_sweep_sql[i - Q_N];
        if (sqlite3_prepare_v3(db->conn, sql, -1, SQLITE_PREPARE_PERSISTENT, &db->q[i], NULL) !=
            SQLITE_OK) {
            snprintf(err, err_len, "cannot prepare '%s': %s", sql, sqlite3_errmsg(db->conn));
            ndem_db_close(db);
            return NULL;
        }
    }
    return db;
}

void ndem_db_close(ndem_db *db)
{
    if (!db) return;
    for (int i = 0; i < NDEM_DB_Q_ALL; i++) sqlite3_finalize(db->q[i]);
    sqlite3_close(db->conn);
    pthread_mutex_destroy(&db->lock);
    free(db);
}

void ndem_job_row_free(ndem_job_row *row)
{
    free(row->document);
    free(row->error);
    free(row->sweep_values);
    free(row->warnings);
    row->document = row->error = row->sweep_values = row->warnings = NULL;
}

void ndem_db_drop_row(void *row) { ndem_job_row_free(row); }

int ndem_job_row_finished(const ndem_job_row *row)
{
    return strcmp(row->status, "queued") && strcmp(row->status, "running");
}

static char *dup_text(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? strdup((const char *)t) : NULL;
}

void ndem_db_copy_text(sqlite3_stmt *st, int col, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
}

void ndem_db_read_row(sqlite3_stmt *st, void *row)
{
    ndem_job_row *r = row;
    memset(r, 0, sizeof *r);
    r->seq = (long)sqlite3_column_int64(st, 0);
    ndem_db_copy_text(st, 1, r->id, sizeof r->id);
    ndem_db_copy_text(st, 2, r->name, sizeof r->name);
    ndem_db_copy_text(st, 3, r->status, sizeof r->status);
    r->document = dup_text(st, 4);
    r->created_us = sqlite3_column_int64(st, 5);
    r->started_us = sqlite3_column_int64(st, 6);
    r->finished_us = sqlite3_column_int64(st, 7);
    r->step = (long)sqlite3_column_int64(st, 8);
    r->steps_total = (long)sqlite3_column_int64(st, 9);
    r->time = sqlite3_column_double(st, 10);
    r->duration = sqlite3_column_double(st, 11);
    r->particles = (long)sqlite3_column_int64(st, 12);
    r->contacts = (long)sqlite3_column_int64(st, 13);
    r->kinetic_energy = sqlite3_column_double(st, 14);
    r->wall_seconds = sqlite3_column_double(st, 15);
    r->attempts = (long)sqlite3_column_int64(st, 16);
    r->error = dup_text(st, 17);
    r->interrupted = (long)sqlite3_column_int64(st, 18);
    ndem_db_copy_text(st, 19, r->sweep, sizeof r->sweep);
    r->sweep_index = sqlite3_column_type(st, 20) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 20);
    r->sweep_values = dup_text(st, 21);
    ndem_db_copy_text(st, 22, r->owner, sizeof r->owner);
}

int ndem_db_read_rows(sqlite3_stmt *st, size_t size, int limit,
                      void (*read)(sqlite3_stmt *st, void *row), void (*drop)(void *row),
                      void **rows, int *count)
{
    int cap = limit > 0 ? limit : 16, n = 0, s = SQLITE_DONE;
    char *out = malloc((size_t)cap * size);
    int rc = out ? 0 : -1;
    while (!rc && (limit <= 0 || n < limit) && (s = sqlite3_step(st)) == SQLITE_ROW) {
        char *grown = n < cap ? out : realloc(out, (size_t)(cap *= 2) * size);
        if (!grown) {
            rc = -1;
            break;
        }
        out = grown;
        read(st, out + (size_t)n++ * size);
    }
    if (s != SQLITE_ROW && s != SQLITE_DONE) rc = -1;
    if (rc) {
        for (int i = 0; drop && i < n; i++) drop(out + (size_t)i * size);
        free(out);
        out = NULL;
        n = 0;
    }
    *rows = out;
    *count = n;
    return rc;
}

/* Takes the lock and hands out a reset statement; done() releases both. */
static sqlite3_stmt *use(ndem_db *db, int q)
{
    pthread_mutex_lock(&db->lock);
    return db->q[q];
}

void ndem_db_done(ndem_db *db, sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    pthread_mutex_unlock(&db->lock);
}

int ndem_db_exec_locked(ndem_db *db, int q)
{
    int rc = sqlite3_step(db->q[q]);
    sqlite3_reset(db->q[q]);
    return rc == SQLITE_DONE ? 0 : -1;
}

int ndem_db_insert(ndem_db *db, const ndem_job_row *row, long max_queued)
{
    pthread_mutex_lock(&db->lock);
    int rc = -1;
    if (ndem_db_exec_locked(db, Q_BEGIN)) goto out;
    sqlite3_stmt *st = db->q[Q_COUNT_QUEUED];
    long queued = sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    if (queued < 0 || queued >= max_queued) {
        rc = queued < 0 ? -1 : 1;
        ndem_db_exec_locked(db, Q_ROLLBACK);
        goto out;
    }
    st = db->q[Q_INSERT];
    sqlite3_bind_text(st, 1, row->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, row->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, row->document, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, row->created_us);
    sqlite3_bind_int64(st, 5, row->steps_total);
    sqlite3_bind_double(st, 6, row->duration);
    sqlite3_bind_text(st, 7, row->owner, -1, SQLITE_STATIC);
    int step_rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (step_rc != SQLITE_DONE || ndem_db_exec_locked(db, Q_COMMIT)) {
        ndem_db_error(db, "inserting a job");
        ndem_db_exec_locked(db, Q_ROLLBACK);
        goto out;
    }
    rc = 0;
out:
    pthread_mutex_unlock(&db->lock);
    return rc;
}

int ndem_db_get(ndem_db *db, const char *id, ndem_job_row *row)
{
    sqlite3_stmt *st = use(db, Q_GET);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int s = sqlite3_step(st), rc = s == SQLITE_ROW ? 0 : s == SQLITE_DONE ? 1 : -1;
    if (rc == 0) ndem_db_read_row(st, row);
    if (rc < 0) ndem_db_error(db, "reading a job");
    ndem_db_done(db, st);
    return rc;
}

int ndem_db_list(ndem_db *db, const char *status, const char *owner, long before_seq, int limit,
                 ndem_job_row **rows, int *count)
{
    sqlite3_stmt *st = use(db, status ? Q_LIST_STATUS : Q_LIST);
    sqlite3_bind_int64(st, 1, before_seq > 0 ? before_seq : INT64_MAX);
    sqlite3_bind_int(st, 2, limit);
    if (status) sqlite3_bind_text(st, 3, status, -1, SQLITE_STATIC);
    if (owner) sqlite3_bind_text(st, 4, owner, -1, SQLITE_STATIC);
    int rc = ndem_db_read_rows(st, sizeof **rows, limit > 0 ? limit : 1, ndem_db_read_row,
                               ndem_db_drop_row, (void **)rows, count);
    if (rc) ndem_db_error(db, "listing jobs");
    ndem_db_done(db, st);
    return rc;
}

int ndem_db_claim(ndem_db *db, ndem_job_row *row)
{
    sqlite3_stmt *st = use(db, Q_CLAIM);
    sqlite3_bind_int64(st, 1, ndem_now_us());
    int s = sqlite3_step(st), rc = s == SQLITE_ROW ? 0 : s == SQLITE_DONE ? 1 : -1;
    if (rc == 0) {
        ndem_db_read_row(st, row);
        /* RETURNING rows are committed when the statement runs to its end */
        sqlite3_step(st);
    }
    if (rc < 0) ndem_db_error(db, "claiming a job");
    ndem_db_done(db, st);
    return rc;
}

static void bind_progress(sqlite3_stmt *st, int first, const ndem_progress *p)
{
    sqlite3_bind_int64(st, first, p->step);
    sqlite3_bind_int64(st, first + 1, p->steps_total);
    sqlite3_bind_double(st, first + 2, p->time);
    sqlite3_bind_int64(st, first + 3, p->particles);
    sqlite3_bind_int64(st, first + 4, p->contacts);
    sqlite3_bind_double(st, first + 5, p->kinetic_energy);
    sqlite3_bind_double(st, first + 6, p->wall_seconds);
}

int ndem_db_progress(ndem_db *db, const char *id, const ndem_progress *p)
{
    sqlite3_stmt *st = use(db, Q_PROGRESS);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    bind_progress(st, 2, p);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    if (rc) ndem_db_error(db, "recording progress");
    ndem_db_done(db, st);
    return rc;
}

int ndem_db_finish(ndem_db *db, const char *id, const char *status, const char *error,
                   const ndem_progress *p)
{
    sqlite3_stmt *st = use(db, Q_FINISH);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, status, -1, SQLITE_STATIC);
    if (error) sqlite3_bind_text(st, 3, error, -1, SQLITE_TRANSIENT);
    bind_progress(st, 4, p);
    if (strcmp(status, "queued")) sqlite3_bind_int64(st, 11, ndem_now_us());
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    if (rc) ndem_db_error(db, "finishing a job");
    ndem_db_done(db, st);
    return rc;
}

int ndem_db_set_pending(ndem_db *db, const char *id, int pending)
{
    sqlite3_stmt *st = use(db, Q_PENDING);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, pending != 0);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    if (rc) ndem_db_error(db, "marking a job pending");
    ndem_db_done(db, st);
    return rc;
}

int ndem_db_cancel_queued(ndem_db *db, const char *id)
{
    sqlite3_stmt *st = use(db, Q_CANCEL);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, ndem_now_us());
    int rc = sqlite3_step(st) == SQLITE_DONE ? sqlite3_changes(db->conn) > 0 : -1;
    ndem_db_done(db, st);
    return rc;
}

/* Steps q to its end, appending each returned id to *ids. */
static int collect_ids(sqlite3_stmt *q, ndem_id **ids, int *n, int *cap)
{
    int s;
    while ((s = sqlite3_step(q)) == SQLITE_ROW) {
        if (*n == *cap) {
            int c = *cap ? 2 * *cap : 16;
            ndem_id *grown = realloc(*ids, (size_t)c * sizeof *grown);
            if (!grown) return -1;
            *ids = grown;
            *cap = c;
        }
        ndem_db_copy_text(q, 0, (*ids)[(*n)++], sizeof **ids);
    }
    sqlite3_reset(q);
    return s == SQLITE_DONE ? 0 : -1;
}

int ndem_db_recover_running(ndem_db *db, long max_attempts, ndem_id **ids, int *failed,
                            int *requeued)
{
    int cap = 0, n = 0, rc = -1;
    *ids = NULL;
    *failed = *requeued = 0;
    pthread_mutex_lock(&db->lock);
    if (ndem_db_exec_locked(db, Q_BEGIN)) goto out;
    sqlite3_bind_int64(db->q[Q_POISON], 1, ndem_now_us());
    sqlite3_bind_int64(db->q[Q_POISON], 2, max_attempts);
    if (ndem_db_exec_locked(db, Q_INTERRUPTED) || collect_ids(db->q[Q_POISON], ids, &n, &cap))
        goto fail;
    *failed = n;
    if (collect_ids(db->q[Q_REQUEUE], ids, &n, &cap)) goto fail;
    *requeued = n - *failed;
    if (ndem_db_exec_locked(db, Q_COMMIT)) goto fail;
    rc = 0;
    goto out;
fail:
    ndem_db_error(db, "recovering interrupted jobs");
    ndem_db_exec_locked(db, Q_ROLLBACK);
out:
    sqlite3_clear_bindings(db->q[Q_POISON]);
    pthread_mutex_unlock(&db->lock);
    return rc;
}

int ndem_db_restore(ndem_db *db, const ndem_job_row *r)
{
    sqlite3_stmt *st = use(db, Q_RESTORE);
    sqlite3_bind_text(st, 1, r->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->status, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, r->document, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, r->created_us);
    sqlite3_bind_int64(st, 6, r->started_us);
    sqlite3_bind_int64(st, 7, r->finished_us);
    sqlite3_bind_int64(st, 8, r->step);
    sqlite3_bind_int64(st, 9, r->steps_total);
    sqlite3_bind_double(st, 10, r->time);
    sqlite3_bind_double(st, 11, r->duration);
    sqlite3_bind_int64(st, 12, r->particles);
    sqlite3_bind_int64(st, 13, r->contacts);
    sqlite3_bind_double(st, 14, r->kinetic_energy);
    sqlite3_bind_double(st, 15, r->wall_seconds);
    sqlite3_bind_int64(st, 16, r->attempts);
    if (r->error) sqlite3_bind_text(st, 17, r->error, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 18, r->interrupted);
    sqlite3_bind_text(st, 19, r->owner, -1, SQLITE_STATIC);
    if (r->sweep[0]) { /* its sweep's row must be restored first (ndem_db_sweep_restore) */
        sqlite3_bind_text(st, 20, r->sweep, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 21, r->sweep_index);
        sqlite3_bind_text(st, 22, r->sweep_values ? r->sweep_values : "[]", -1, SQLITE_STATIC);
    }
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    if (rc) ndem_db_error(db, "restoring a job");
    ndem_db_done(db, st);
    return rc;
}

int ndem_db_delete(ndem_db *db, const char *id)
{
    pthread_mutex_lock(&db->lock);
    int rc = -1;
    if (ndem_db_exec_locked(db, Q_BEGIN)) goto out;
    sqlite3_stmt *st = db->q[Q_STATUS_OF];
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    char status[16] = "";
    if (s == SQLITE_ROW) ndem_db_copy_text(st, 0, status, sizeof status);
    sqlite3_reset(st);
    if (s != SQLITE_ROW) {
        rc = s == SQLITE_DONE ? 1 : -1;
    } else if (!strcmp(status, "queued") || !strcmp(status, "running")) {
        rc = 2;
    } else {
        for (int q = Q_DELETE_FRAMES; q <= Q_DELETE; q++) {
            sqlite3_bind_text(db->q[q], 1, id, -1, SQLITE_STATIC);
            s = sqlite3_step(db->q[q]);
            sqlite3_reset(db->q[q]);
            if (s != SQLITE_DONE) break;
        }
        rc = s == SQLITE_DONE && !ndem_db_exec_locked(db, Q_COMMIT) ? 0 : -1;
    }
    if (rc) ndem_db_exec_locked(db, Q_ROLLBACK);
out:
    pthread_mutex_unlock(&db->lock);
    return rc;
}

int ndem_db_count_by_status(ndem_db *db, long counts[NDEM_STATUS_COUNT])
{
    memset(counts, 0, sizeof(long) * NDEM_STATUS_COUNT);
    sqlite3_stmt *st = use(db, Q_COUNT_BY_STATUS);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        for (int i = 0; name && i < NDEM_STATUS_COUNT; i++)
            if (!strcmp(name, ndem_status_names[i])) counts[i] = (long)sqlite3_column_int64(st, 1);
    }
    ndem_db_done(db, st);
    return s == SQLITE_DONE ? 0 : -1;
}

int ndem_db_frame_add(ndem_db *db, const char *id, const ndem_frame_row *f)
{
    sqlite3_stmt *st = use(db, Q_FRAME_ADD);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, f->index);
    sqlite3_bind_int64(st, 3, f->step);
    sqlite3_bind_double(st, 4, f->time);
    sqlite3_bind_int64(st, 5, f->particles);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    if (rc) ndem_db_error(db, "indexing a frame");
    ndem_db_done(db, st);
    return rc;
}

int ndem_db_frames_truncate(ndem_db *db, const char *id, long from)
{
    sqlite3_stmt *st = use(db, Q_FRAMES_TRUNCATE);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, from);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    ndem_db_done(db, st);
    return rc;
}

static void read_frame(sqlite3_stmt *st, void *row)
{
    ndem_frame_row *f = row;
    f->index = (long)sqlite3_column_int64(st, 0);
    f->step = (long)sqlite3_column_int64(st, 1);
    f->time = sqlite3_column_double(st, 2);
    f->particles = (long)sqlite3_column_int64(st, 3);
}

int ndem_db_frames(ndem_db *db, const char *id, ndem_frame_row **rows, long *count)
{
    sqlite3_stmt *st = use(db, Q_FRAMES);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int n, rc = ndem_db_read_rows(st, sizeof **rows, 0, read_frame, NULL, (void **)rows, &n);
    ndem_db_done(db, st);
    *count = n;
    return rc;
}

int ndem_db_frame(ndem_db *db, const char *id, long index, ndem_frame_row *row)
{
    sqlite3_stmt *st = use(db, index < 0 ? Q_FRAME_LATEST : Q_FRAME);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    if (index >= 0) sqlite3_bind_int64(st, 2, index);
    int s = sqlite3_step(st), rc = s == SQLITE_ROW ? 0 : s == SQLITE_DONE ? 1 : -1;
    if (rc == 0) read_frame(st, row);
    ndem_db_done(db, st);
    return rc;
}

/* A commit that changes nothing (user_version rewritten with its own value)
 * still appends to the WAL: it fails when the disk is full or read-only. */
int ndem_db_probe_write(ndem_db *db)
{
    pthread_mutex_lock(&db->lock);
    sqlite3_stmt *st = NULL;
    int version = -1;
    if (sqlite3_prepare_v2(db->conn, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    char sql[96];
    snprintf(sql, sizeof sql, "BEGIN IMMEDIATE; PRAGMA user_version = %d; COMMIT;", version);
    int rc = version >= 0 && sqlite3_exec(db->conn, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    if (rc) {
        ndem_db_error(db, "write probe");
        sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
    }
    pthread_mutex_unlock(&db->lock);
    return rc;
}
