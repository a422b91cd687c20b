/* store.c - a job's files and the thread that writes them.
 *
 * DATA/jobs/<id>/ holds frames/NNNNNN.ndf (binary frames with every field,
 * the format of `ndem run`), series.csv (the columns of `ndem run`) and
 * checkpoint.ndck. Workers never touch the disk while a job runs: they hand
 * frames, series rows, progress records (SQLite with fsync) and checkpoints
 * to one writer thread through a FIFO, so a step never waits on a disk. The FIFO keeps order, which
 * is what makes resuming exact: when a checkpoint reaches the disk, every frame and series row
 * before it already has, and the checkpoint records how far they went (frame count, series.csv
 * length) so a resume can cut them back. The FIFO is bounded in bytes; a worker that outruns the
 * disk waits (output is the record, it is never dropped). A frame's index row goes into SQLite
 * after its file is written, so an indexed frame always has a complete file. Checkpoints are
 * durable writes: temporary file, fsync, rename, fsync of the directory; a half-written checkpoint
 * never carries the final name. Frames and rows are not fsynced one by one: the file system is
 * synced before each checkpoint and before a job is recorded as finished. */
#define _GNU_SOURCE /* nftw, syncfs */
#include "store.h"

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
#define CKPT_MAGIC "NDCK"
#define CKPT_VERSION 1u
#define CKPT_HEADER 48u
#define DB_FAILED (-2) /* a task's SQLite part failed (not an errno failure) */

typedef enum { T_FRAME, T_SERIES, T_PROGRESS, T_CHECKPOINT, T_DROP_CHECKPOINT, T_SYNC } task_kind;

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

typedef struct failure {
    struct failure *next;
    char id[NDEM_ID_LEN + 1];
} failure;

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
    failure *failures;
};

static void job_path(const ndem_store *s, const char *id, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/jobs/%s%s%s", s->root, id, name[0] ? "/" : "", name);
}

static int make_dir(const char *path)
{
    return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int fsync_dir(const char *file)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* temp + fsync + rename + fsync dir */
static int write_durable(const char *path, const void *a, size_t alen, const void *b, size_t blen)
{
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    int rc = write_all(fd, a, alen) || write_all(fd, b, blen) || fsync(fd) ? -1 : 0;
    if (close(fd)) rc = -1;
    if (rc == 0) rc = rename(tmp, path);
    if (rc == 0) rc = fsync_dir(path);
    if (rc) unlink(tmp);
    return rc;
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int do_frame(ndem_store *s, task *t)
{
    char path[1200], name[64];
    snprintf(name, sizeof name, "frames/%06ld.ndf", t->index);
    job_path(s, t->id, name, path, sizeof path);
    size_t size = ndem_frame_bin_size(t->frame.count, NDEM_FRAME_ALL);
    void *buf = malloc(size);
    int rc = -1;
    if (buf) {
        size_t n = ndem_frame_bin_encode(&t->frame, t->index, NDEM_FRAME_ALL, buf);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            rc = write_all(fd, buf, n);
            if (close(fd)) rc = -1;
        }
        free(buf);
    }
    if (rc == 0) {
        ndem_frame_row row = {t->index, t->frame.step, t->frame.count, t->frame.time};
        rc = ndem_db_frame_add(s->db, t->id, &row) ? DB_FAILED : 0;
    }
    return rc;
}

static int do_series(ndem_store *s, task *t)
{
    char path[1200];
    job_path(s, t->id, "series.csv", path, sizeof path);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) return -1;
    int rc = write_all(fd, t->data, t->len);
    if (close(fd)) rc = -1;
    return rc;
}

/* Frames and series rows are written without fsync, which is enough for a
 * crashed process (the kernel keeps them). For a power cut, everything of
 * the file system is flushed before a checkpoint that vouches for it, and
 * before a job is recorded as finished. */
static int sync_job(ndem_store *s, const char *id)
{
    char dir[1200];
    job_path(s, id, "", dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return -1;
    int rc = syncfs(fd);
    close(fd);
    return rc;
}

static int do_checkpoint(ndem_store *s, task *t)
{
    char path[1200];
    struct stat st;
    if (sync_job(s, t->id)) return -1;
    job_path(s, t->id, "series.csv", path, sizeof path);
    t->resume.series_bytes = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    unsigned char h[CKPT_HEADER] = {0};
    memcpy(h, CKPT_MAGIC, 4);
    h[4] = (unsigned char)CKPT_VERSION;
    uint64_t next;
    memcpy(&next, &t->resume.next_frame, 8);
    put64(h + 8, (uint64_t)t->resume.step);
    put64(h + 16, (uint64_t)t->resume.frames);
    put64(h + 24, next);
    put64(h + 32, t->resume.series_bytes);
    put64(h + 40, (uint64_t)t->len);
    job_path(s, t->id, "checkpoint.ndck", path, sizeof path);
    return write_durable(path, h, sizeof h, t->data, t->len);
}

static void task_free(task *t)
{
    if (t->kind == T_FRAME) ndem_frame_free(&t->frame);
    free(t->data);
    free(t);
}

static void *writer_main(void *arg)
{
    ndem_store *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->head && !s->stopping)
            pthread_cond_wait(&s->changed, &s->lock);
        task *t = s->head;
        if (!t) break;
        pthread_mutex_unlock(&s->lock);
        int rc = 0;
        char path[1200];
        switch (t->kind) {
        case T_FRAME: rc = do_frame(s, t); break;
        case T_SERIES: rc = do_series(s, t); break;
        case T_CHECKPOINT: rc = do_checkpoint(s, t); break;
        case T_SYNC: rc = sync_job(s, t->id); break;
        case T_PROGRESS:
            rc = ndem_db_progress(s->db, t->id, &t->progress) ? DB_FAILED : 0;
            break;
        case T_DROP_CHECKPOINT:
            job_path(s, t->id, "checkpoint.ndck", path, sizeof path);
            rc = unlink(path) && errno != ENOENT ? -1 : 0;
            break;
        }
        failure *f = NULL;
        if (rc && (t->kind == T_CHECKPOINT || t->kind == T_DROP_CHECKPOINT)) {
            /* not fatal: the previous checkpoint is intact and still consistent */
            ndem_log("job %s: writing its checkpoint failed: %s", t->id, strerror(errno));
        } else if (rc == DB_FAILED) {
            /* errno means nothing after SQLite: db.c logged sqlite3_errmsg */
            ndem_log("job %s: recording its output in the database failed", t->id);
            f = calloc(1, sizeof *f);
            if (f) memcpy(f->id, t->id, sizeof f->id);
        } else if (rc) {
            ndem_log("job %s: writing its output failed: %s", t->id, strerror(errno));
            f = calloc(1, sizeof *f);
            if (f) memcpy(f->id, t->id, sizeof f->id);
        }
        pthread_mutex_lock(&s->lock);
        if (f) f->next = s->failures, s->failures = f;
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
    while (s->failures) {
        failure *f = s->failures;
        s->failures = f->next;
        free(f);
    }
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s);
}

static void enqueue(ndem_store *s, task *t)
{
    pthread_mutex_lock(&s->lock);
    /* back-pressure: wait while the disk is far behind (never with an empty FIFO) */
    while (s->pending > PENDING_MAX && s->head)
        pthread_cond_wait(&s->changed, &s->lock);
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
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
    enqueue(s, t);
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
    enqueue(s, t);
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
    enqueue(s, t);
}

void ndem_store_drop_checkpoint(ndem_store *s, const char *id)
{
    task *t = new_task(T_DROP_CHECKPOINT, id);
    if (t) enqueue(s, t);
}

void ndem_store_progress(ndem_store *s, const char *id, const ndem_progress *p)
{
    task *t = new_task(T_PROGRESS, id);
    if (!t) return;
    t->progress = *p;
    enqueue(s, t);
}

void ndem_store_sync(ndem_store *s, const char *id)
{
    task *t = new_task(T_SYNC, id);
    if (t) enqueue(s, t);
}

int ndem_store_flush(ndem_store *s, const char *id)
{
    pthread_mutex_lock(&s->lock);
    unsigned long target = s->queued_seq;
    while (s->done_seq < target)
        pthread_cond_wait(&s->changed, &s->lock);
    int failed = 0;
    for (failure **p = &s->failures; *p;) {
        if (!strcmp((*p)->id, id)) {
            failure *f = *p;
            *p = f->next;
            free(f);
            failed = 1;
        } else {
            p = &(*p)->next;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return failed;
}

/* Removes frames/NNNNNN.ndf files with NNNNNN >= from. */
static void remove_frames_from(ndem_store *s, const char *id, long from)
{
    char dir[1200];
    job_path(s, id, "frames", dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long n = strtol(e->d_name, &end, 10);
        if (end == e->d_name || (strcmp(end, ".ndf") && strcmp(end, ".ndf.tmp")) || n < from)
            continue;
        char path[1500];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

int ndem_store_reset(ndem_store *s, const char *id)
{
    char path[1200];
    job_path(s, id, "", path, sizeof path);
    if (make_dir(path)) return -1;
    job_path(s, id, "frames", path, sizeof path);
    if (make_dir(path)) return -1;
    remove_frames_from(s, id, 0);
    if (ndem_db_frames_truncate(s->db, id, 0)) return -1;
    job_path(s, id, "checkpoint.ndck", path, sizeof path);
    unlink(path);
    job_path(s, id, "series.csv", path, sizeof path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    int rc = write_all(fd, ndem_series_header, strlen(ndem_series_header));
    return close(fd) || rc ? -1 : 0;
}

static char *read_whole(const char *path, size_t *len)
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

int ndem_store_load_checkpoint(ndem_store *s, const char *id, ndem_resume *r, void **buf,
                               size_t *len)
{
    char path[1200];
    job_path(s, id, "checkpoint.ndck", path, sizeof path);
    size_t n = 0;
    unsigned char *data = (unsigned char *)read_whole(path, &n);
    if (!data) return 1;
    if (n < CKPT_HEADER || memcmp(data, CKPT_MAGIC, 4) || data[4] != CKPT_VERSION ||
        get64(data + 40) != n - CKPT_HEADER) {
        ndem_log("job %s: checkpoint %s is not one this daemon wrote; ignored", id, path);
        free(data);
        return 1;
    }
    r->step = (long)get64(data + 8);
    r->frames = (long)get64(data + 16);
    uint64_t next = get64(data + 24);
    memcpy(&r->next_frame, &next, 8);
    r->series_bytes = get64(data + 32);
    *len = n - CKPT_HEADER;
    memmove(data, data + CKPT_HEADER, *len);
    *buf = data;
    return 0;
}

int ndem_store_rewind(ndem_store *s, const char *id, const ndem_resume *r)
{
    char path[1200];
    job_path(s, id, "series.csv", path, sizeof path);
    if (truncate(path, (off_t)r->series_bytes)) return -1;
    remove_frames_from(s, id, r->frames);
    return ndem_db_frames_truncate(s->db, id, r->frames);
}

int ndem_store_read_frame(ndem_store *s, const char *id, long index, void **buf, size_t *len)
{
    char path[1200], name[64];
    snprintf(name, sizeof name, "frames/%06ld.ndf", index);
    job_path(s, id, name, path, sizeof path);
    *buf = read_whole(path, len);
    return *buf ? 0 : -1;
}

int ndem_store_read_series(ndem_store *s, const char *id, char **text, size_t *len)
{
    char path[1200];
    job_path(s, id, "series.csv", path, sizeof path);
    *text = read_whole(path, len);
    if (!*text) return -1;
    while (*len > 0 && (*text)[*len - 1] != '\n')
        (*len)--; /* a row being appended */
    (*text)[*len] = 0;
    return 0;
}

static int get_f32s(const unsigned char **p, const unsigned char *end, double **out, long n)
{
    if ((size_t)(end - *p) < 4u * (size_t)n) return -1;
    *out = malloc((size_t)(n > 0 ? n : 1) * sizeof **out);
    if (!*out) return -1;
    for (long i = 0; i < n; i++, *p += 4) {
        uint32_t u = get32(*p);
        float f;
        memcpy(&f, &u, 4);
        (*out)[i] = f;
    }
    return 0;
}

int ndem_store_decode_frame(const void *buf, size_t len, ndem_frame *f, long *index)
{
    const unsigned char *p = buf, *end = p + len;
    memset(f, 0, sizeof *f);
    if (len < NDEM_FRAME_HEADER || memcmp(p, NDEM_FRAME_MAGIC, 4) ||
        get32(p + 4) != NDEM_FRAME_HEADER)
        return -1;
    *index = get32(p + 8);
    long n = get32(p + 12);
    f->count = n;
    f->step = (long)get64(p + 16);
    uint64_t t = get64(p + 24);
    memcpy(&f->time, &t, 8);
    uint32_t fields = get32(p + 32);
    double *scalar = NULL;
    p += NDEM_FRAME_HEADER;
    int rc = 0;
    if (fields & NDEM_FRAME_POSITIONS) rc |= get_f32s(&p, end, &f->positions, 3 * n);
    if (!rc && (fields & NDEM_FRAME_RADII)) rc |= get_f32s(&p, end, &f->radii, n);
    if (!rc && (fields & NDEM_FRAME_SCALAR)) rc |= get_f32s(&p, end, &scalar, n);
    if (!rc && (fields & NDEM_FRAME_VELOCITIES)) rc |= get_f32s(&p, end, &f->velocities, 3 * n);
    if (!rc && (fields & NDEM_FRAME_ANGULAR))
        rc |= get_f32s(&p, end, &f->angular_velocities, 3 * n);
    free(scalar);
    if (!rc && (!f->positions || !f->radii || !f->velocities || !f->angular_velocities)) rc = -1;
    if (rc) ndem_frame_free(f);
    return rc;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

int ndem_store_remove(ndem_store *s, const char *id)
{
    char path[1200];
    job_path(s, id, "", path, sizeof path);
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
