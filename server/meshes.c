/* meshes.c - the index of uploaded meshes. It has its own connection to
 * the daemon's database (WAL: the job queue's connection is not held up by
 * it) behind its own mutex; every statement is prepared once at open. The
 * check that a mesh is unreferenced and its delete are one statement, and
 * a submission's references are held (pending) before its job is queued,
 * so a delete can never slip between a job's parse and its queueing. */
#include "meshes.h"

#include "log.h"
#include "mesh.h"
#include "stl.h"

#include <dirent.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MESH_COLUMNS                                                                               \
    "id, name, created_us, bytes, format, input_triangles, triangles, vertices, welded, "          \
    "degenerate, duplicate, closed, oriented, min_x, min_y, min_z, max_x, max_y, max_z, area, "    \
    "volume, seq, owner"

/* a reference that blocks a delete: being submitted, or its job waits or runs */
#define BLOCKING_REF                                                                               \
    " FROM job_meshes r LEFT JOIN jobs j ON j.id = r.job_id WHERE r.mesh_id = ?1 AND"              \
    " (r.pending = 1 OR j.status IN ('queued', 'running'))"

enum {
    Q_INSERT,
    Q_GET,
    Q_LIST,
    Q_DELETE,
    Q_BLOCKER,
    Q_HOLD,
    Q_SETTLE,
    Q_RELEASE,
    Q_BEGIN,
    Q_COMMIT,
    Q_ROLLBACK,
    Q_N
};

static const char *const sql_text[Q_N] = {
    [Q_INSERT] = "INSERT INTO meshes (id, name, created_us, bytes, format, input_triangles,"
                 " triangles, vertices, welded, degenerate, duplicate, closed, oriented, min_x,"
                 " min_y, min_z, max_x, max_y, max_z, area, volume, owner) VALUES (?1, ?2, ?3, ?4,"
                 " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,"
                 " nullif(?22, ''))",
    [Q_GET] = "SELECT " MESH_COLUMNS " FROM meshes WHERE id = ?1",
    /* ?3 NULL: every owner */
    [Q_LIST] = "SELECT " MESH_COLUMNS " FROM meshes WHERE seq < ?1 AND (?3 IS NULL OR owner = ?3)"
               " ORDER BY seq DESC LIMIT ?2",
    [Q_DELETE] = "DELETE FROM meshes WHERE id = ?1 AND NOT EXISTS (SELECT 1" BLOCKING_REF ")",
    [Q_BLOCKER] = "SELECT r.job_id" BLOCKING_REF " LIMIT 1",
    [Q_HOLD] = "INSERT OR IGNORE INTO job_meshes (job_id, mesh_id, pending)"
               " SELECT ?1, id, 1 FROM meshes WHERE id = ?2",
    [Q_SETTLE] = "UPDATE job_meshes SET pending = 0 WHERE job_id = ?1",
    [Q_RELEASE] = "DELETE FROM job_meshes WHERE job_id = ?1",
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_COMMIT] = "COMMIT",
    [Q_ROLLBACK] = "ROLLBACK",
};

struct ndem_meshes {
    sqlite3 *conn;
    pthread_mutex_t lock;
    sqlite3_stmt *q[Q_N];
};

int ndem_mesh_inspect(const void *bytes, size_t len, ndem_mesh_info *info, char *err,
                      size_t err_len)
{
    double *soup = NULL;
    long n = 0;
    if (ndem_stl_parse(bytes, len, &soup, &n, err, err_len)) return -1;
    ndem_mesh *mesh = NULL;
    ndem_mesh_report rep;
    int rc = ndem_mesh_build(soup, n, 0.0, &mesh, &rep, err, err_len);
    free(soup);
    if (rc) return -1;
    const unsigned char *b = bytes;
    unsigned long count = len >= 84 ? (unsigned long)b[80] | (unsigned long)b[81] << 8 |
                                          (unsigned long)b[82] << 16 | (unsigned long)b[83] << 24
                                    : 0;
    /* the parser's rule (api/stl.h): binary when the size fits the count */
    snprintf(info->format, sizeof info->format, "%s",
             len >= 84 && (len - 84) % 50 == 0 && (len - 84) / 50 == count ? "binary" : "ascii");
    info->bytes = (long)len;
    info->input_triangles = rep.input_triangles;
    info->triangles = mesh->n_triangles;
    info->vertices = mesh->n_vertices;
    info->welded = rep.merged_nodes;
    info->degenerate = rep.degenerate;
    info->duplicate = rep.duplicate;
    info->closed = mesh->closed;
    info->oriented = mesh->oriented;
    for (int k = 0; k < 3; k++) {
        info->min[k] = mesh->bounds_min[k];
        info->max[k] = mesh->bounds_max[k];
    }
    info->area = mesh->area;
    info->volume = mesh->volume;
    ndem_mesh_destroy(mesh);
    return 0;
}

static void fail_log(ndem_meshes *m, const char *what)
{
    ndem_log("meshes: %s: %s", what, sqlite3_errmsg(m->conn));
}

ndem_meshes *ndem_meshes_open(const char *db_path, char *err, size_t err_len)
{
    ndem_meshes *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&m->lock, NULL);
    if (sqlite3_open_v2(db_path, &m->conn, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        snprintf(err, err_len, "cannot open %s for meshes: %s", db_path,
                 m->conn ? sqlite3_errmsg(m->conn) : "out of memory");
        ndem_meshes_close(m);
        return NULL;
    }
    sqlite3_busy_timeout(m->conn, 5000);
    char *msg = NULL;
    if (sqlite3_exec(m->conn,
                     "PRAGMA synchronous = FULL;"
                     " DELETE FROM job_meshes WHERE job_id NOT IN (SELECT id FROM jobs);"
                     " UPDATE job_meshes SET pending = 0 WHERE pending = 1;",
                     NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, err_len, "meshes: %s", msg ? msg : "?");
        sqlite3_free(msg);
        ndem_meshes_close(m);
        return NULL;
    }
    for (int i = 0; i < Q_N; i++)
        if (sqlite3_prepare_v3(m->conn, sql_text[i], -1, SQLITE_PREPARE_PERSISTENT, &m->q[i],
                               NULL) != SQLITE_OK) {
            snprintf(err, err_len, "meshes: cannot prepare statement %d: %s", i,
                     sqlite3_errmsg(m->conn));
            ndem_meshes_close(m);
            return NULL;
        }
    return m;
}

void ndem_meshes_close(ndem_meshes *m)
{
    if (!m) return;
    for (int i = 0; i < Q_N; i++) sqlite3_finalize(m->q[i]);
    sqlite3_close(m->conn);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* The statement, reset and unbound, with the lock held. */
static sqlite3_stmt *stmt(ndem_meshes *m, int which)
{
    pthread_mutex_lock(&m->lock);
    sqlite3_stmt *st = m->q[which];
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return st;
}

static void done(ndem_meshes *m, sqlite3_stmt *st)
{
    sqlite3_reset(st);
    pthread_mutex_unlock(&m->lock);
}

static int step_done(ndem_meshes *m, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    if (rc) fail_log(m, what);
    return rc;
}

int ndem_meshes_add(ndem_meshes *m, const ndem_mesh_info *in)
{
    sqlite3_stmt *st = stmt(m, Q_INSERT);
    sqlite3_bind_text(st, 1, in->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, in->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, in->created_us);
    sqlite3_bind_int64(st, 4, in->bytes);
    sqlite3_bind_text(st, 5, in->format, -1, SQLITE_STATIC);
    const long counts[] = {in->input_triangles, in->triangles, in->vertices, in->welded,
                           in->degenerate,      in->duplicate, in->closed,   in->oriented};
    for (int i = 0; i < 8; i++) sqlite3_bind_int64(st, 6 + i, counts[i]);
    for (int k = 0; k < 3; k++) {
        sqlite3_bind_double(st, 14 + k, in->min[k]);
        sqlite3_bind_double(st, 17 + k, in->max[k]);
    }
    sqlite3_bind_double(st, 20, in->area);
    sqlite3_bind_double(st, 21, in->volume);
    sqlite3_bind_text(st, 22, in->owner, -1, SQLITE_STATIC);
    int rc = step_done(m, st, "insert");
    done(m, st);
    return rc;
}

static void read_row(sqlite3_stmt *st, ndem_mesh_info *o, long *seq)
{
    memset(o, 0, sizeof *o);
    const unsigned char *t = sqlite3_column_text(st, 0);
    snprintf(o->id, sizeof o->id, "%s", t ? (const char *)t : "");
    t = sqlite3_column_text(st, 1);
    snprintf(o->name, sizeof o->name, "%s", t ? (const char *)t : "");
    o->created_us = sqlite3_column_int64(st, 2);
    o->bytes = (long)sqlite3_column_int64(st, 3);
    t = sqlite3_column_text(st, 4);
    snprintf(o->format, sizeof o->format, "%s", t ? (const char *)t : "");
    long *counts[] = {&o->input_triangles, &o->triangles,  &o->vertices,
                      &o->welded,          &o->degenerate, &o->duplicate};
    for (int i = 0; i < 6; i++) *counts[i] = (long)sqlite3_column_int64(st, 5 + i);
    o->closed = sqlite3_column_int(st, 11);
    o->oriented = sqlite3_column_int(st, 12);
    for (int k = 0; k < 3; k++) {
        o->min[k] = sqlite3_column_double(st, 13 + k);
        o->max[k] = sqlite3_column_double(st, 16 + k);
    }
    o->area = sqlite3_column_double(st, 19);
    o->volume = sqlite3_column_double(st, 20);
    if (seq) *seq = (long)sqlite3_column_int64(st, 21);
    t = sqlite3_column_text(st, 22);
    snprintf(o->owner, sizeof o->owner, "%s", t ? (const char *)t : "");
}

int ndem_meshes_visible(void *ctx, const char *id, const char *owner)
{
    ndem_mesh_info info;
    if (ndem_meshes_get(ctx, id, &info)) return 0;
    return !owner || !strcmp(info.owner, owner);
}

int ndem_meshes_get(ndem_meshes *m, const char *id, ndem_mesh_info *info)
{
    sqlite3_stmt *st = stmt(m, Q_GET);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) read_row(st, info, NULL);
    else if (rc != SQLITE_DONE) fail_log(m, "get");
    done(m, st);
    return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

int ndem_meshes_list(ndem_meshes *m, const char *owner, long before_seq, int limit,
                     ndem_mesh_info **rows, long **seqs, int *count)
{
    *rows = NULL;
    *count = 0;
    if (seqs) *seqs = NULL;
    ndem_mesh_info *r = malloc((size_t)(limit > 0 ? limit : 1) * sizeof *r);
    long *s = malloc((size_t)(limit > 0 ? limit : 1) * sizeof *s);
    if (!r || !s) {
        free(r);
        free(s);
        return -1;
    }
    sqlite3_stmt *st = stmt(m, Q_LIST);
    sqlite3_bind_int64(st, 1, before_seq > 0 ? before_seq : INT64_MAX);
    sqlite3_bind_int(st, 2, limit);
    if (owner) sqlite3_bind_text(st, 3, owner, -1, SQLITE_STATIC);
    int n = 0, rc = SQLITE_DONE;
    while (n < limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        read_row(st, &r[n], &s[n]);
        n++;
    }
    int ok = n == limit || rc == SQLITE_DONE;
    if (!ok) fail_log(m, "list");
    done(m, st);
    if (!ok) {
        free(r);
        free(s);
        return -1;
    }
    *rows = r;
    *count = n;
    if (seqs) *seqs = s;
    else free(s);
    return 0;
}

int ndem_meshes_delete(ndem_meshes *m, const char *id, char *blocker, size_t blocker_len)
{
    sqlite3_stmt *st = stmt(m, Q_DELETE);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = step_done(m, st, "delete");
    int changed = sqlite3_changes(m->conn);
    done(m, st);
    if (rc) return -1;
    if (changed) return 0;
    ndem_mesh_info info;
    rc = ndem_meshes_get(m, id, &info);
    if (rc) return rc; /* 1 unknown, -1 error */
    st = stmt(m, Q_BLOCKER);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    snprintf(blocker, blocker_len, "?");
    if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(blocker, blocker_len, "%s", t ? (const char *)t : "?");
    }
    done(m, st);
    return 2;
}

/* One statement with the lock held (a transaction's BEGIN or COMMIT). */
static int exec_locked(ndem_meshes *m, int which)
{
    sqlite3_stmt *st = m->q[which];
    sqlite3_reset(st);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(st);
    return rc;
}

int ndem_meshes_hold(ndem_meshes *m, const char *job_id, char (*ids)[NDEM_MESH_ID_LEN + 1],
                     int count, int *missing)
{
    *missing = -1;
    if (count == 0) return 0;
    pthread_mutex_lock(&m->lock);
    int rc = exec_locked(m, Q_BEGIN);
    for (int i = 0; rc == 0 && i < count; i++) {
        sqlite3_stmt *st = m->q[Q_HOLD];
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, job_id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, ids[i], -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) rc = -1;
        else if (sqlite3_changes(m->conn) == 0) rc = 1, *missing = i;
        sqlite3_reset(st);
    }
    if (rc == 0) rc = exec_locked(m, Q_COMMIT);
    if (rc) {
        if (rc < 0) fail_log(m, "hold");
        exec_locked(m, Q_ROLLBACK);
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

static int by_job(ndem_meshes *m, int which, const char *job_id)
{
    sqlite3_stmt *st = stmt(m, which);
    sqlite3_bind_text(st, 1, job_id, -1, SQLITE_STATIC);
    int rc = step_done(m, st, which == Q_SETTLE ? "settle" : "release");
    done(m, st);
    return rc;
}

int ndem_meshes_settle(ndem_meshes *m, const char *job_id) { return by_job(m, Q_SETTLE, job_id); }

int ndem_meshes_release(ndem_meshes *m, const char *job_id) { return by_job(m, Q_RELEASE, job_id); }

/* One file without a row: removed, or (reindex) checked and indexed. */
static int reconcile_one(ndem_meshes *m, const char *data, const char *id, int reindex)
{
    if (!reindex) {
        ndem_log("mesh %s: its delete was interrupted; removing its file", id);
        return ndem_mesh_file_remove(data, id) == 0;
    }
    char *bytes, err[512], path[1200];
    size_t len;
    if (ndem_mesh_file_read(data, id, &bytes, &len)) return 0;
    ndem_mesh_info info;
    memset(&info, 0, sizeof info);
    int rc = ndem_mesh_inspect(bytes, len, &info, err, sizeof err);
    free(bytes);
    if (rc) {
        ndem_log("recover: mesh %s: not indexed: %s", id, err);
        return 0;
    }
    snprintf(info.id, sizeof info.id, "%s", id);
    struct stat st;
    ndem_mesh_file_path(data, id, path, sizeof path);
    info.created_us = stat(path, &st) == 0 ? (int64_t)st.st_mtime * 1000000 : ndem_now_us();
    if (ndem_meshes_add(m, &info)) return 0;
    ndem_log("recover: mesh %s: indexed again (%ld triangles)", id, info.triangles);
    return 1;
}

int ndem_meshes_reconcile(ndem_meshes *m, const char *data, int reindex)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int done_count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char id[NDEM_MESH_ID_LEN + 1];
        size_t n = strlen(e->d_name);
        if (n != NDEM_MESH_ID_LEN + 4 || strcmp(e->d_name + NDEM_MESH_ID_LEN, ".stl")) continue;
        memcpy(id, e->d_name, NDEM_MESH_ID_LEN);
        id[NDEM_MESH_ID_LEN] = 0;
        ndem_mesh_info info;
        if (!ndem_mesh_id_valid(id) || ndem_meshes_get(m, id, &info) != 1) continue;
        done_count += reconcile_one(m, data, id, reindex);
    }
    closedir(d);
    return done_count;
}

int ndem_meshes_rehold(ndem_meshes *m, ndem_db *db, const char *data)
{
    static const char *const statuses[] = {"queued", "running"};
    enum { PAGE = 100 };
    int held = 0;
    for (int k = 0; k < 2; k++) {
        long before = 0;
        for (int n = PAGE; n == PAGE;) {
            ndem_job_row *rows;
            if (ndem_db_list(db, statuses[k], NULL, before, PAGE, &rows, &n)) return -1;
            for (int i = 0; i < n; i++) {
                ndem_mesh_resolver r;
                ndem_job_parse_opts opts = ndem_mesh_resolver_opts(&r, data);
                ndem_job *job = NULL;
                const char *doc = rows[i].document ? rows[i].document : "";
                int missing,
                    ok = ndem_job_parse_with(doc, strlen(doc), &opts, &job, NULL) == NDEM_JOB_OK &&
                         r.count > 0;
                if (ok && ndem_meshes_hold(m, rows[i].id, r.ids, r.count, &missing) == 0 &&
                    ndem_meshes_settle(m, rows[i].id) == 0)
                    held++;
                ndem_job_destroy(job);
                ndem_mesh_resolver_free(&r);
                before = rows[i].seq;
                ndem_job_row_free(&rows[i]);
            }
            free(rows);
        }
    }
    if (held) ndem_log("recover: %d queued or running job(s) hold their meshes again", held);
    return held;
}
