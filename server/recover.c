/* recover.c - the database is an index; the job directories are the
 * record (jobdir.c). When the index is lost (an empty or missing file
 * beside job directories) or damaged (PRAGMA quick_check), ndemd refuses to
 * start rather than run with an empty queue, and `ndemd --recover` rebuilds
 * the index from the directories before it starts as usual. The damaged
 * file is kept aside, never deleted. */
#include "recover.h"

#include "db.h"
#include "jobdir.h"
#include "log.h"
#include "store.h"

#include "job.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ndem_recover_check_lost(const char *data, char *err, size_t err_len)
{
    char path[1100];
    struct stat st;
    snprintf(path, sizeof path, "%s/ndem.db", data);
    int missing = stat(path, &st) != 0;
    if (!missing && st.st_size > 0) return 0;
    long dirs = ndem_jobdir_count(data);
    if (dirs == 0) return 0;
    snprintf(err, err_len,
             "%s is %s but %s/jobs holds %ld job director%s: the job database was lost. "
             "Nothing was changed; start once with --recover to rebuild it from the job "
             "directories",
             path, missing ? "missing" : "empty (0 bytes)", data, dirs, dirs == 1 ? "y" : "ies");
    return -1;
}

/* The frames index of one job from its frame files. */
static long index_frames(ndem_db *db, const char *data, const char *id)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/jobs/%s/frames", data, id);
    DIR *d = opendir(dir);
    if (!d) return 0;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        strtol(e->d_name, &end, 10);
        if (end == e->d_name || strcmp(end, ".ndf")) continue;
        char path[1500];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *buf = ndem_read_file(path, &len);
        ndem_frame f;
        long index;
        if (buf && ndem_store_decode_frame(buf, len, &f, &index) == 0) {
            ndem_frame_row row = {index, f.step, f.count, f.time};
            n += ndem_db_frame_add(db, id, &row) == 0;
            ndem_frame_free(&f);
        } else {
            ndem_log("recover: job %s: frame file %s is unreadable; not indexed", id, path);
        }
        free(buf);
    }
    closedir(d);
    return n;
}

/* By creation; a sweep's jobs (created together) by their place in it. */
static int by_creation(const void *a, const void *b)
{
    const ndem_job_row *x = a, *y = b;
    if (x->created_us != y->created_us) return x->created_us < y->created_us ? -1 : 1;
    return x->sweep_index < y->sweep_index ? -1 : x->sweep_index > y->sweep_index;
}

/* The row of the sweep job r belongs to, from its sweep.json (the first of
 * its jobs inserts it, the others find it there). Without that record the
 * job is restored outside any sweep rather than lost. */
static void restore_sweep(ndem_db *db, const char *data, ndem_job_row *r)
{
    ndem_sweep_row sw;
    int rc = ndem_jobdir_load_sweep(data, r->id, &sw);
    if (rc == 0 && strcmp(sw.id, r->sweep)) rc = -1;
    if (rc == 0) rc = ndem_db_sweep_restore(db, &sw);
    ndem_sweep_row_free(&sw);
    if (rc == 0) return;
    ndem_log("recover: job %s: no record of its sweep %s (sweep.json); restored outside any sweep",
             r->id, r->sweep);
    r->sweep[0] = 0;
    r->sweep_index = -1;
    free(r->sweep_values);
    r->sweep_values = NULL;
}

int ndem_recover_rebuild(const char *data, char *err, size_t err_len)
{
    char db_path[1100], suffix[64], jobs[1100];
    snprintf(db_path, sizeof db_path, "%s/ndem.db", data);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(suffix, sizeof suffix, ".damaged-%Y%m%dT%H%M%SZ", &tm);
    /* the -wal and -shm files go with their database: ndem.db.damaged-T-wal */
    static const char *const parts[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char from[1200], to[1200];
        snprintf(from, sizeof from, "%s%s", db_path, parts[i]);
        snprintf(to, sizeof to, "%s%s%s", db_path, suffix, parts[i]);
        if (rename(from, to) == 0) {
            ndem_log("recover: moved %s aside to %s", from, to);
        } else if (errno != ENOENT) {
            snprintf(err, err_len, "cannot move %s to %s: %s", from, to, strerror(errno));
            return -1;
        }
    }
    int damaged;
    ndem_db *db = ndem_db_open(db_path, &damaged, err, err_len);
    if (!db) return -1;
    snprintf(jobs, sizeof jobs, "%s/jobs", data);
    DIR *d = opendir(jobs);
    ndem_job_row *rows = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!ndem_jobdir_is_id(e->d_name) || ndem_jobdir_tombstoned(data, e->d_name)) continue;
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            ndem_job_row *grown = realloc(rows, cap * sizeof *rows);
            if (!grown) break;
            rows = grown;
        }
        char why[512];
        if (ndem_jobdir_load(data, e->d_name, &rows[count], why, sizeof why)) {
            ndem_log("recover: job %s: skipped: %s", e->d_name, why);
            continue;
        }
        ndem_job_row *r = &rows[count++];
        /* a job that was waiting or running waits again; a worker resumes
         * it from its checkpoint, if any */
        if (!strcmp(r->status, "running")) snprintf(r->status, sizeof r->status, "queued");
        int known = 0;
        for (int i = 0; i < NDEM_STATUS_COUNT; i++)
            known |= !strcmp(r->status, ndem_status_names[i]);
        if (!known) snprintf(r->status, sizeof r->status, "queued");
    }
    if (d) closedir(d);
    if (count) qsort(rows, count, sizeof *rows, by_creation);
    long restored = 0, frames = 0;
    for (size_t i = 0; i < count; i++) {
        if (rows[i].sweep[0]) restore_sweep(db, data, &rows[i]);
        if (ndem_db_restore(db, &rows[i]) == 0) {
            restored++;
            frames += index_frames(db, data, rows[i].id);
            if (ndem_jobdir_save_status(data, &rows[i]))
                ndem_log("recover: job %s: cannot write status.json: %s", rows[i].id,
                         strerror(errno));
            ndem_log("recover: job %s: restored as %s", rows[i].id, rows[i].status);
        }
        ndem_job_row_free(&rows[i]);
    }
    free(rows);
    ndem_db_close(db);
    ndem_log("recover: rebuilt %s from %ld job director%s (%ld frames indexed)", db_path, restored,
             restored == 1 ? "y" : "ies", frames);
    return 0;
}

/* A sweep job from before sweep.json: its sweep's record and a status.json
 * that names the sweep. 1 when written. */
static int backfill_sweep(const char *data, ndem_db *db, const ndem_job_row *r)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/jobs/%s/sweep.json", data, r->id);
    if (!r->sweep[0] || access(path, F_OK) == 0) return 0;
    snprintf(path, sizeof path, "%s/jobs/%s", data, r->id);
    if (access(path, F_OK)) return 0; /* no directory to complete */
    ndem_sweep_row sw;
    if (ndem_db_sweep_get(db, r->sweep, &sw)) return 0;
    int rc = ndem_jobdir_save_sweep(data, r->id, &sw) || ndem_jobdir_save_status(data, r);
    ndem_sweep_row_free(&sw);
    if (rc) ndem_log("job %s: cannot write sweep.json: %s", r->id, strerror(errno));
    return !rc;
}

int ndem_recover_backfill(const char *data, ndem_db *db)
{
    long before = 0, written = 0, swept = 0;
    for (;;) {
        ndem_job_row *rows;
        int n;
        if (ndem_db_list(db, NULL, NULL, before, 500, &rows, &n)) return -1;
        for (int i = 0; i < n; i++) {
            char path[1200];
            snprintf(path, sizeof path, "%s/jobs/%s/job.json", data, rows[i].id);
            if (access(path, F_OK) && rows[i].document) {
                if (ndem_jobdir_create(data, &rows[i]) == 0) written++;
                else ndem_log("job %s: cannot write job.json: %s", rows[i].id, strerror(errno));
            }
            swept += backfill_sweep(data, db, &rows[i]);
            before = rows[i].seq;
            ndem_job_row_free(&rows[i]);
        }
        free(rows);
        if (n < 500) break;
    }
    if (written) ndem_log("recover: wrote job.json and status.json for %ld older job(s)", written);
    if (swept) ndem_log("recover: wrote the sweep's record for %ld older sweep job(s)", swept);
    return 0;
}
