/* store.c - a job's files and the thread that writes them.
 *
 * DATA/jobs/<id>/ holds frames/NNNNNN.ndf (binary frames with every field,
 * the format of `ndem run`), with output.contacts contacts/NNNNNN.ndc (NDC1
 * contact networks, encoded by the worker), series.csv (the columns of `ndem run`) and
 * checkpoint.ndck. Workers never touch the disk while a job runs: they hand
 * frames, series rows, progress records (SQLite with fsync) and checkpoints
 * to one writer thread through a FIFO, so a step never waits on a disk. The FIFO keeps order, which
 * is what makes resuming exact: when a checkpoint reaches the disk, every frame and series row
 * before it already has, and the checkpoint records how far they went (frame count, series.csv
 * length) so a resume can cut them back. The FIFO is bounded in bytes; a worker that outruns the
 * disk waits (output is the record, it is never dropped). A frame's index row goes into SQLite
 * after its file is written, so an indexed frame always has a complete file. Checkpoints are
 * durable writes: temporary file, fsync, rename, fsync of the directory; a half-written checkpoint
 * never carries the final name, and the generation before it is kept (store_check.c verifies
 * both on resume). Frames and rows are not fsynced one by one: the file system is synced before
 * each checkpoint and before a job is recorded as finished.
 *
 * Each running job has a state here (ndem_store_begin .. ndem_store_end): the bytes of output
 * it has queued against its budget (--max-output) and its first write error. A job whose write
 * failed (ENOSPC, EROFS, EIO, ...) or whose output passed its budget is failed: the writer
 * skips its further files, and its worker, which asks ndem_store_error after every step, stops
 * it with that message. */
#define _GNU_SOURCE /* nftw, syncfs */
#include "store_priv.h"

#include "frame_bin.h"
#include "jobdir.h"
#include "series.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PENDING_MAX (256u << 20) /* bytes queued before workers wait */

typedef enum {
    T_FRAME,
    T_CONTACTS,
    T_SERIES,
    T_PROGRESS,
    T_CHECKPOINT,
    T_DROP_CHECKPOINT,
    T_SYNC
} task_kind;

typedef struct task {
    struct task *next;
    task_kind kind;
    char id[NDEM_ID_LEN + 1];
    long index;
    ndem_frame frame;
    ndem_resume resume;
    ndem_progress progress;
    void *data;
    size_t len;
    size_t cost;
} task;

/* A running job's account (under the store lock). */
typedef struct job_state {
    struct job_state *next;
    char id[NDEM_ID_LEN + 1];
    uint64_t max_bytes; /* 0: no budget */
    uint64_t bytes;     /* output queued, and on disk before a resume */
    int failed;
    char error[400]; /* the first failure */
} job_state;

struct ndem_store {
    char root[1024];
    ndem_db *db;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    task *head, *tail;
    size_t pending;
    unsigned long queued_seq, done_seq;
    int stopping;
    job_state *jobs;
    int write_failed;      /* the last write of any job failed */
    char write_error[400]; /* ... and why */
};

void ndem_store_path(const ndem_store *s, const char *id, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/jobs/%s%s%s", s->root, id, name[0] ? "/" : "", name);
}

ndem_db *ndem_store_db(ndem_store *s) { return s->db; }

static int make_dir(const char *path) { return mkdir(path, 0755) && errno != EEXIST ? -1 : 0; }

int ndem_store_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) errno = ENOSPC; /* a regular file writes something or fails */
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static job_state *state_of(ndem_store *s, const char *id)
{
    for (job_state *j = s->jobs; j; j = j->next)
        if (!strcmp(j->id, id)) return j;
    return NULL;
}

/* Records a job's first failure (lock held). */
static void fail_locked(job_state *j, const char *why)
{
    if (!j || j->failed) return;
    j->failed = 1;
    snprintf(j->error, sizeof j->error, "%s", why);
}

/* Each do_* returns 0, or -1 with why set (the file and strerror). */
static int do_frame(ndem_store *s, task *t, char *why, size_t why_len)
{
    char path[1200], name[64];
    snprintf(name, sizeof name, "frames/%06ld.ndf", t->index);
    ndem_store_path(s, t->id, name, path, sizeof path);
    size_t size = ndem_frame_bin_size(&t->frame, NDEM_FRAME_ALL);
    void *buf = malloc(size);
    int rc = -1;
    errno = ENOMEM;
    if (buf) {
        size_t n = ndem_frame_bin_encode(&t->frame, t->index, NDEM_FRAME_ALL, buf);
        ndem_frame_bin_seal(buf, n);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            rc = ndem_store_write_all(fd, buf, n);
            int saved = errno;
            if (close(fd) && !rc) rc = -1, saved = errno;
            errno = saved;
        }
        free(buf);
    }
    if (rc) {
        snprintf(why, why_len, "writing %s failed: %s", name, strerror(errno));
        return -1;
    }
    ndem_frame_row row = {t->index, t->frame.step, t->frame.count, t->frame.time};
    if (ndem_db_frame_add(s->db, t->id, &row)) {
        snprintf(why, why_len, "recording frame %ld in the job database failed", t->index);
        return -1;
    }
    return 0;
}

/* contacts/NNNNNN.ndc: an encoded NDC1 record, written before its frame's
 * (the FIFO keeps the order), so an indexed frame has its contacts too. */
static int do_contacts(ndem_store *s, task *t, char *why, size_t why_len)
{
    char path[1200], name[64];
    ndem_store_path(s, t->id, "contacts", path, sizeof path);
    int rc = make_dir(path);
    snprintf(name, sizeof name, "contacts/%06ld.ndc", t->index);
    ndem_store_path(s, t->id, name, path, sizeof path);
    int fd = rc ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    rc = fd < 0 ? -1 : ndem_store_write_all(fd, t->data, t->len);
    int saved = errno;
    if (fd >= 0 && close(fd) && !rc) rc = -1, saved = errno;
    if (rc) snprintf(why, why_len, "writing %s failed: %s", name, strerror(saved));
    return rc;
}

static int do_series(ndem_store *s, task *t, char *why, size_t why_len)
{
    char path[1200];
    ndem_store_path(s, t->id, "series.csv", path, sizeof path);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    int rc = fd < 0 ? -1 : ndem_store_write_all(fd, t->data, t->len);
    int saved = errno;
    if (fd >= 0 && close(fd) && !rc) rc = -1, saved = errno;
    if (rc) snprintf(why, why_len, "writing series.csv failed: %s", strerror(saved));
    return rc;
}

/* Frames and series rows are written without fsync, which is enough for a
 * crashed process (the kernel keeps them). For a power cut, everything of
 * the file system is flushed before a checkpoint that vouches for it, and
 * before a job is recorded as finished. */
static int sync_job(ndem_store *s, const char *id, char *why, size_t why_len)
{
    char dir[1200];
    ndem_store_path(s, id, "", dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    int rc = fd < 0 ? -1 : syncfs(fd);
    int saved = errno;
    if (fd >= 0) close(fd);
    if (rc) snprintf(why, why_len, "syncing the job's files failed: %s", strerror(saved));
    return rc;
}

static int do_checkpoint(ndem_store *s, task *t, char *why, size_t why_len)
{
    char path[1200], prev[1200];
    struct stat st;
    if (sync_job(s, t->id, why, why_len)) return -1;
    ndem_store_path(s, t->id, "series.csv", path, sizeof path);
    t->resume.series_bytes = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    ndem_store_path(s, t->id, NDEM_CKPT_FILE, path, sizeof path);
    ndem_store_path(s, t->id, NDEM_CKPT_PREV, prev, sizeof prev);
    if (ndem_store_write_checkpoint(path, prev, &t->resume, t->data, t->len)) {
        snprintf(why, why_len, "writing %s failed: %s", NDEM_CKPT_FILE, strerror(errno));
        return -1;
    }
    return 0;
}

static void drop_checkpoints(ndem_store *s, const char *id)
{
    char path[1200];
    ndem_store_path(s, id, NDEM_CKPT_FILE, path, sizeof path);
    if (unlink(path) && errno != ENOENT)
        ndem_log("job %s: removing its checkpoint failed: %s", id, strerror(errno));
    ndem_store_path(s, id, NDEM_CKPT_PREV, path, sizeof path);
    if (unlink(path) && errno != ENOENT)
        ndem_log("job %s: removing its checkpoint failed: %s", id, strerror(errno));
}

static void task_free(task *t)
{
    if (t->kind == T_FRAME) ndem_frame_free(&t->frame);
    free(t->data);
    free(t);
}

/* One task; returns 0, or -1 with why. Output of a failed job is skipped. */
static int run_task(ndem_store *s, task *t, int job_failed, char *why, size_t why_len)
{
    switch (t->kind) {
    case T_FRAME:
        return job_failed ? 0 : do_frame(s, t, why, why_len);
    case T_CONTACTS:
        return job_failed ? 0 : do_contacts(s, t, why, why_len);
    case T_SERIES:
        return job_failed ? 0 : do_series(s, t, why, why_len);
    case T_CHECKPOINT:
        return job_failed ? 0 : do_checkpoint(s, t, why, why_len);
    case T_SYNC:
        return sync_job(s, t->id, why, why_len);
    case T_DROP_CHECKPOINT:
        drop_checkpoints(s, t->id);
        return 0;
    case T_PROGRESS:
        if (!ndem_db_progress(s->db, t->id, &t->progress)) return 0;
        snprintf(why, why_len, "recording progress in the job database failed");
        return -1;
    }
    return 0;
}

static void *writer_main(void *arg)
{
    ndem_store *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->head && !s->stopping) pthread_cond_wait(&s->changed, &s->lock);
        task *t = s->head;
        if (!t) break;
        const job_state *before = state_of(s, t->id);
        int job_failed = before && before->failed;
        pthread_mutex_unlock(&s->lock);
        char why[400] = "";
        int rc = run_task(s, t, job_failed, why, sizeof why);
        if (rc) ndem_log("job %s: %s", t->id, why);
        pthread_mutex_lock(&s->lock);
        if (t->kind != T_PROGRESS && t->kind != T_DROP_CHECKPOINT && !job_failed) {
            s->write_failed = rc != 0;
            if (rc) snprintf(s->write_error, sizeof s->write_error, "%s", why);
        }
        if (rc) {
            /* state_of again: the job may have ended meanwhile */
            job_state *j = state_of(s, t->id);
            if (!j && (j = calloc(1, sizeof *j))) { /* a job without begin still fails */
                memcpy(j->id, t->id, sizeof j->id);
                j->next = s->jobs;
                s->jobs = j;
            }
            fail_locked(j, why);
        }
        s->head = t->next;
        if (!s->head) s->tail = NULL;
        s->pending -= t->cost;
        s->done_seq++;
        pthread_cond_broadcast(&s->changed);
        pthread_mutex_unlock(&s->lock);
        task_free(t);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

ndem_store *ndem_store_open(const char *data_dir, ndem_db *db, char *err, size_t err_len)
{
    ndem_store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    snprintf(s->root, sizeof s->root, "%s", data_dir);
    s->db = db;
    char jobs[1200];
    snprintf(jobs, sizeof jobs, "%s/jobs", data_dir);
    if (make_dir(jobs)) {
        snprintf(err, err_len, "cannot create %s: %s", jobs, strerror(errno));
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    if (pthread_create(&s->thread, NULL, writer_main, s)) {
        snprintf(err, err_len, "cannot start the disk writer");
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->changed);
        free(s);
        return NULL;
    }
    return s;
}

void ndem_store_close(ndem_store *s)
{
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    while (s->jobs) {
        job_state *j = s->jobs;
        s->jobs = j->next;
        free(j);
    }
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s);
}

/* Queues t; output (bytes > 0) counts against the job's budget first. */
static void enqueue(ndem_store *s, task *t, uint64_t bytes)
{
    pthread_mutex_lock(&s->lock);
    job_state *j = bytes ? state_of(s, t->id) : NULL;
    if (j && !j->failed) {
        j->bytes += bytes;
        if (j->max_bytes && j->bytes > j->max_bytes) {
            char why[400];
            snprintf(why, sizeof why,
                     "the job's output passed its budget of %llu bytes (--max-output); "
                     "a longer output.frame_interval writes less",
                     (unsigned long long)j->max_bytes);
            fail_locked(j, why);
            ndem_log("job %s: %s", t->id, why);
        }
    }
    /* back-pressure: wait while the disk is far behind (never with an empty FIFO) */
    while (s->pending > PENDING_MAX && s->head) pthread_cond_wait(&s->changed, &s->lock);
    if (s->tail) s->tail->next = t;
    else s->head = t;
    s->tail = t;
    s->pending += t->cost;
    s->queued_seq++;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static task *new_task(task_kind kind, const char *id)
{
    task *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->kind = kind;
    snprintf(t->id, sizeof t->id, "%s", id);
    return t;
}

void ndem_store_frame(ndem_store *s, const char *id, long index, ndem_frame *frame)
{
    task *t = new_task(T_FRAME, id);
    if (!t) {
        ndem_frame_free(frame);
        return;
    }
    t->index = index;
    t->frame = *frame;
    t->cost = (size_t)frame->count * 128 + 256;
    memset(frame, 0, sizeof *frame);
    enqueue(s, t, ndem_frame_bin_size(&t->frame, NDEM_FRAME_ALL));
}

void ndem_store_contacts(ndem_store *s, const char *id, long index, void *buf, size_t len)
{
    task *t = new_task(T_CONTACTS, id);
    if (!t) {
        free(buf);
        return;
    }
    t->index = index;
    t->data = buf;
    t->len = t->cost = len;
    enqueue(s, t, len);
}

void ndem_store_series(ndem_store *s, const char *id, char *text, size_t len)
{
    task *t = new_task(T_SERIES, id);
    if (!t) {
        free(text);
        return;
    }
    t->data = text;
    t->len = t->cost = len;
    enqueue(s, t, len);
}

void ndem_store_checkpoint(ndem_store *s, const char *id, const ndem_resume *r, void *buf,
                           size_t len)
{
    task *t = new_task(T_CHECKPOINT, id);
    if (!t) {
        free(buf);
        return;
    }
    t->resume = *r;
    t->data = buf;
    t->len = t->cost = len;
    enqueue(s, t, 0);
}

void ndem_store_drop_checkpoint(ndem_store *s, const char *id)
{
    task *t = new_task(T_DROP_CHECKPOINT, id);
    if (t) enqueue(s, t, 0);
}

void ndem_store_progress(ndem_store *s, const char *id, const ndem_progress *p)
{
    task *t = new_task(T_PROGRESS, id);
    if (!t) return;
    t->progress = *p;
    enqueue(s, t, 0);
}

void ndem_store_sync(ndem_store *s, const char *id)
{
    task *t = new_task(T_SYNC, id);
    if (t) enqueue(s, t, 0);
}

void ndem_store_begin(ndem_store *s, const char *id, uint64_t max_bytes)
{
    job_state *j = calloc(1, sizeof *j);
    pthread_mutex_lock(&s->lock);
    job_state *old = state_of(s, id);
    if (old) {
        free(j);
        j = old;
        memset(j->error, 0, sizeof j->error);
        j->failed = 0;
        j->bytes = 0;
    } else if (j) {
        snprintf(j->id, sizeof j->id, "%s", id);
        j->next = s->jobs;
        s->jobs = j;
    }
    if (j) j->max_bytes = max_bytes;
    pthread_mutex_unlock(&s->lock);
}

void ndem_store_set_bytes(ndem_store *s, const char *id, uint64_t bytes)
{
    pthread_mutex_lock(&s->lock);
    job_state *j = state_of(s, id);
    if (j) j->bytes = bytes;
    pthread_mutex_unlock(&s->lock);
}

int ndem_store_error(ndem_store *s, const char *id, char *why, size_t why_len)
{
    pthread_mutex_lock(&s->lock);
    job_state *j = state_of(s, id);
    int failed = j && j->failed;
    if (failed && why) snprintf(why, why_len, "%s", j->error);
    pthread_mutex_unlock(&s->lock);
    return failed;
}

void ndem_store_end(ndem_store *s, const char *id)
{
    pthread_mutex_lock(&s->lock);
    for (job_state **p = &s->jobs; *p; p = &(*p)->next)
        if (!strcmp((*p)->id, id)) {
            job_state *j = *p;
            *p = j->next;
            free(j);
            break;
        }
    pthread_mutex_unlock(&s->lock);
}

int ndem_store_flush(ndem_store *s, const char *id)
{
    pthread_mutex_lock(&s->lock);
    unsigned long target = s->queued_seq;
    while (s->done_seq < target) pthread_cond_wait(&s->changed, &s->lock);
    job_state *j = state_of(s, id);
    int failed = j && j->failed;
    pthread_mutex_unlock(&s->lock);
    return failed;
}

int ndem_store_write_failed(ndem_store *s, char *why, size_t why_len)
{
    pthread_mutex_lock(&s->lock);
    int failed = s->write_failed;
    if (failed) snprintf(why, why_len, "%s", s->write_error);
    pthread_mutex_unlock(&s->lock);
    return failed;
}

int ndem_store_reset(ndem_store *s, const char *id, const char *header)
{
    char path[1200];
    ndem_store_path(s, id, "", path, sizeof path);
    if (make_dir(path)) return -1;
    ndem_store_path(s, id, "frames", path, sizeof path);
    if (make_dir(path)) return -1;
    ndem_store_remove_frames(s, id, 0);
    if (ndem_db_frames_truncate(s->db, id, 0)) return -1;
    ndem_store_path(s, id, NDEM_CKPT_FILE, path, sizeof path);
    unlink(path);
    ndem_store_path(s, id, NDEM_CKPT_PREV, path, sizeof path);
    unlink(path);
    ndem_store_path(s, id, "series.csv", path, sizeof path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    size_t n = strlen(header);
    int rc = ndem_store_write_all(fd, header, n);
    if (close(fd) || rc) return -1;
    ndem_store_set_bytes(s, id, n);
    return 0;
}

char *ndem_store_read_whole(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1))) {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += (size_t)n;
        }
        buf[got] = 0;
        *len = got;
    }
    close(fd);
    return buf;
}

FILE *ndem_store_open_file(ndem_store *s, const char *id, const char *name)
{
    char path[1200];
    ndem_store_path(s, id, name, path, sizeof path);
    return fopen(path, "rb");
}

int ndem_store_decode_frame(const void *buf, size_t len, ndem_frame *f, long *index)
{
    return ndem_frame_bin_decode(buf, len, f, index);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

int ndem_store_remove(ndem_store *s, const char *id)
{
    char path[1200];
    ndem_store_path(s, id, "", path, sizeof path);
    int rc = nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc && errno != ENOENT ? -1 : 0;
}

int ndem_store_sweep(ndem_store *s)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/jobs", s->root);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        /* only a tombstone (written by DELETE) lets files go: a directory
         * the database does not know is a job to recover */
        if (strlen(e->d_name) != NDEM_ID_LEN || !ndem_jobdir_tombstoned(s->root, e->d_name))
            continue;
        ndem_job_row row;
        int rc = ndem_db_get(s->db, e->d_name, &row);
        if (rc == 0) {
            /* the delete stopped before its rows went: it never happened */
            ndem_job_row_free(&row);
            ndem_jobdir_tombstone(s->root, e->d_name, 0);
        }
        if (rc == 1 && ndem_store_remove(s, e->d_name) == 0) {
            ndem_log("job %s: removed files left by an interrupted delete", e->d_name);
            removed++;
        }
    }
    closedir(d);
    return removed;
}
