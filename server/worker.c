/* worker.c - the worker pool: --workers threads, each taking the oldest
 * queued job (an atomic claim in SQLite, so no job ever runs twice at once)
 * and running it to its end with --threads OpenMP threads, within the
 * thread budget (--cores) that the running jobs share.
 *
 * A worker runs the loop of `ndem run` (api/run.c, shared): a frame at t = 0 and at
 * every output.frame_interval of simulated time, a series row per step.
 * Around it the daemon's concerns, each on its own wall-clock cadence:
 * progress into SQLite and onto the stream (--progress-interval), and a
 * checkpoint (--checkpoint-interval). Files and progress records are
 * written by the store's writer thread, never here; the only disk work on
 * this thread is setting a job up and recording its end. Cancellation and shutdown are flags read
 * once per step, so both take effect within one step.
 *
 * A claimed job with a checkpoint resumes from it: the engine restores its
 * state bit for bit, and the store cuts frames and series back to what they
 * were at that step, so a resumed job ends with exactly the files of an
 * uninterrupted run. Without a usable checkpoint it starts from zero. */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include "worker.h"

#include "contact_bin.h"
#include "job.h"
#include "jobdir.h"
#include "load.h"
#include "mesh_files.h"
#include "run.h"
#include "series.h"
#include "log.h"
#include "publish.h"
#include "remote.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SERIES_CHUNK (64 * 1024)

typedef struct worker {
    struct ndem_pool *pool;
    pthread_t thread;
    int started;
    char id[NDEM_ID_LEN + 1]; /* the running job, "" when idle (pool lock) */
    atomic_int cancel;
    int sharing;              /* runs a job here: counts in the thread budget (pool lock) */
    atomic_int threads;       /* OpenMP threads of its job's next step; 0 when idle */
    _Atomic double rate;      /* steps per second of the running job */
    _Atomic double last_step; /* ndem_mono() of its last step (or of the claim) */
} worker;

struct ndem_pool {
    const ndem_config *cfg;
    ndem_db *db;
    ndem_store *store;
    ndem_stream *stream;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_int stopping;
    atomic_long steps_total;
    long count;
    worker *workers;
    void (*run)(worker *w, const ndem_job_row *row); /* the executor's (executors[]) */
    ndem_remote *remote;                             /* --executor slurm: the jobs in Slurm */
    ndem_load load;                                  /* other processes' load (lock) */
};

/* A running job: everything run_job and its helpers share. */
typedef struct run {
    worker *w;
    const ndem_job_row *row;
    double wall_before; /* wall seconds of earlier attempts, when resumed */
    ndem_job *job;
    ndem_sim *sim;
    ndem_resume resume;
    long total;
    int want;              /* threads the job asks for (--threads, solver.threads); 0: any */
    ndem_series_cols cols; /* the named geometry's series columns */
    char *series;
    size_t series_len, series_cap;
    double t0, next_progress, next_checkpoint, rate_t; /* wall clock (ndem_mono) */
    long rate_steps;
} run;

static void series_flush(run *r)
{
    if (!r->series_len) return;
    ndem_store_series(r->w->pool->store, r->row->id, r->series, r->series_len);
    r->series = NULL;
    r->series_len = r->series_cap = 0;
}

static void series_append(run *r, const ndem_step_stats *st)
{
    /* a row: at most 512 bytes, and NDEM_SERIES_GEO_MAX_BYTES per named
     * geometry (a row that does not fit is lost) */
    size_t room = 512 + (size_t)r->cols.count * NDEM_SERIES_GEO_MAX_BYTES;
    ndem_series_cols_sample(&r->cols, r->sim);
    if (r->series_cap - r->series_len < room) {
        size_t cap = r->series_cap ? r->series_cap * 2 : SERIES_CHUNK + room;
        if (cap < r->series_len + room) cap = r->series_len + room;
        char *grown = realloc(r->series, cap);
        if (!grown) return;
        r->series = grown;
        r->series_cap = cap;
    }
    size_t left = r->series_cap - r->series_len;
    int n = ndem_series_row(r->series + r->series_len, left, st, &r->cols);
    if (n > 0 && (size_t)n < left) r->series_len += (size_t)n;
    if (r->series_len >= SERIES_CHUNK) series_flush(r);
}

/* With output.contacts, the frame's contact network as a sealed NDC1
 * record, queued before the frame so that an indexed frame has it. */
static void emit_contacts(run *r)
{
    ndem_contact_set s;
    if (ndem_sim_copy_contacts(r->sim, &s)) return;
    size_t size = ndem_contact_bin_size(s.count, NDEM_CONTACT_ALL);
    void *buf = malloc(size);
    if (buf) {
        size_t n = ndem_contact_bin_encode(&s, r->resume.frames, NDEM_CONTACT_ALL, buf);
        ndem_store_contacts(r->w->pool->store, r->row->id, r->resume.frames, buf, n);
    }
    ndem_contact_set_free(&s);
}

static void emit_frame(run *r)
{
    ndem_frame f;
    if (r->job->output.contacts) emit_contacts(r);
    if (ndem_sim_copy_motion(r->sim, &f)) return;
    ndem_stream_frame(r->w->pool->stream, r->row->id, &f, r->resume.frames);
    ndem_store_frame(r->w->pool->store, r->row->id, r->resume.frames, &f);
    r->resume.frames++;
}

static ndem_progress progress_of(const run *r, double wall)
{
    ndem_progress p = {0};
    p.steps_total = r->total;
    p.wall_seconds = r->wall_before + wall;
    if (r->sim) {
        const ndem_step_stats *s = ndem_sim_stats(r->sim);
        p.step = s->step;
        p.time = s->time;
        p.particles = s->particles;
        p.contacts = s->contacts;
        p.kinetic_energy = s->kinetic_energy;
    }
    return p;
}

static void publish_progress(run *r, const ndem_progress *p)
{
    if (r->sim && r->cols.count > 0) ndem_series_cols_sample(&r->cols, r->sim);
    ndem_publish_progress(r->w->pool->stream, r->row->id, r->row->duration, p,
                          r->sim ? &r->cols : NULL);
}

/* Ends a job: its files are complete before the status says so. */
static void finish(run *r, const char *status, const char *error, double wall)
{
    ndem_pool *p = r->w->pool;
    const char *id = r->row->id;
    series_flush(r);
    if (strcmp(status, "queued")) {
        ndem_store_sync(p->store, id);
        ndem_store_drop_checkpoint(p->store, id);
    }
    char why[400];
    if (ndem_store_flush(p->store, id) && strcmp(status, "failed") &&
        ndem_store_error(p->store, id, why, sizeof why)) {
        status = "failed";
        error = why;
    }
    ndem_progress pr = progress_of(r, wall);
    ndem_db_finish(p->db, id, status, error, &pr);
    /* from here on a cancel finds the job finished (409), not running */
    pthread_mutex_lock(&p->lock);
    r->w->id[0] = 0;
    pthread_mutex_unlock(&p->lock);
    ndem_jobdir_sync(p->cfg->data, p->db, id);
    if (r->sim) publish_progress(r, &pr);
    ndem_publish_status(p->stream, id, status, error);
    ndem_log("job %s: %s at step %ld/%ld (%.2f s wall)%s%s", id, status, pr.step, pr.steps_total,
             wall, error ? ": " : "", error ? error : "");
}

static void checkpoint(run *r)
{
    void *buf = NULL;
    size_t len = 0;
    series_flush(r); /* the checkpoint must follow every row before it */
    if (ndem_sim_checkpoint(r->sim, &buf, &len)) {
        ndem_log("job %s: checkpoint failed", r->row->id);
        return;
    }
    r->resume.step = ndem_sim_stats(r->sim)->step;
    ndem_store_checkpoint(r->w->pool->store, r->row->id, &r->resume, buf, len);
}

/* Restores from the checkpoint, or creates the simulation from zero. */
static int start_sim(run *r, char *err, size_t err_len)
{
    ndem_pool *p = r->w->pool;
    const char *id = r->row->id;
    void *buf = NULL;
    size_t len = 0;
    if (ndem_store_load_checkpoint(p->store, id, &r->resume, &buf, &len) == 0) {
        r->sim = ndem_sim_restore(&r->job->scene, buf, len, err, err_len);
        free(buf);
        if (r->sim && ndem_store_rewind(p->store, id, &r->resume)) {
            ndem_sim_destroy(r->sim);
            r->sim = NULL;
            snprintf(err, err_len, "cannot cut the output back to the checkpoint");
        }
        if (r->sim) {
            ndem_log("job %s: resumed from its checkpoint at step %ld", id, r->resume.step);
            r->wall_before = r->row->wall_seconds; /* about: up to its last progress record */
            return 0;
        }
        ndem_log("job %s: checkpoint not usable (%s); starting from zero", id, err);
    }
    char *header = ndem_series_header_of(&r->cols);
    int reset = header ? ndem_store_reset(p->store, id, header) : -1;
    free(header);
    if (reset) {
        snprintf(err, err_len, "cannot create the job's directory: %s", strerror(errno));
        return -1;
    }
    r->sim = ndem_sim_create(&r->job->scene, err, err_len);
    if (!r->sim) return -1;
    r->resume = (ndem_resume){0, 0, r->job->output.frame_interval, 0};
    emit_frame(r);
    return 0;
}

/* The cores the running jobs share: --cores, less those that other
 * processes keep busy (--adapt-load), read here at most every --adapt-load
 * seconds (pool lock held). One core always stays. */
static long shared_cores(ndem_pool *p, int *left)
{
    ndem_load *l = &p->load;
    int changed = p->cfg->adapt_load > 0 && ndem_load_update(l, p->cfg->adapt_load);
    long cores = p->cfg->cores;
    if (l->taken > 0 && cores > l->cpus - l->taken) cores = l->cpus - l->taken;
    if (cores < 1) cores = 1;
    if (changed)
        ndem_log("ndemd: other processes take %.2f core(s) of the %d CPU(s) ndemd may run on: "
                 "its jobs share %ld core(s)",
                 l->outside, l->cpus, cores);
    *left = l->taken;
    return cores;
}

/* This job's share of the cores: cores / running jobs (the remainder to
 * the first workers), at least 1, at most what the job asks for. Total
 * threads then never exceed the cores, so a spinning barrier never waits
 * for a thread of ours that has no core. */
static int budget_threads(const run *r, long *running, long *cores, int *left)
{
    ndem_pool *p = r->w->pool;
    long n = 0, rank = 0;
    pthread_mutex_lock(&p->lock);
    for (long i = 0; i < p->count; i++)
        if (p->workers[i].sharing) {
            if (&p->workers[i] == r->w) rank = n;
            n++;
        }
    *cores = shared_cores(p, left);
    pthread_mutex_unlock(&p->lock);
    if (n < 1) n = 1;
    long share = *cores / n + (rank < *cores % n);
    if (r->want > 0 && share > r->want) share = r->want;
    *running = n;
    return share < 1 ? 1 : (int)share;
}

/* Sets the job's team size for its next step when its share changed (a job
 * started or ended, other processes' load changed), and says so once per
 * change. */
static void apply_budget(run *r)
{
    long running, cores;
    int left;
    int n = budget_threads(r, &running, &cores, &left);
    if (r->sim) ndem_sim_set_threads(r->sim, n);
    if (atomic_exchange(&r->w->threads, n) == n) return;
    char others[64] = "";
    if (left) snprintf(others, sizeof others, ", %d left to other processes", left);
    ndem_log("job %s: %d thread(s) per step (%ld running job(s) share %ld core(s)%s)", r->row->id,
             n, running, cores, others);
}

/* The job's steps are over: its threads go to the others at their next
 * step, not after its files are synced (which can take seconds). */
static void leave_budget(worker *w)
{
    pthread_mutex_lock(&w->pool->lock);
    w->sharing = 0;
    pthread_mutex_unlock(&w->pool->lock);
    atomic_store(&w->threads, 0);
}

/* ---- the hooks of the shared run loop (api/run.h) ---- */
enum { RUN_CANCELLED = 1, RUN_STOPPING = 2, RUN_OUTPUT_FAILED = 3 };

/* Read before every step, so a cancel or a shutdown takes one step at most. */
static int run_stop(void *ctx)
{
    run *r = ctx;
    char why[8];
    if (atomic_load(&r->w->cancel)) return RUN_CANCELLED;
    /* a write failed or the output passed its budget: stop at once */
    if (ndem_store_error(r->w->pool->store, r->row->id, why, sizeof why)) return RUN_OUTPUT_FAILED;
    if (atomic_load(&r->w->pool->stopping)) return RUN_STOPPING;
    apply_budget(r); /* at a step boundary: the team size may change */
    return 0;
}

static int run_row(void *ctx, const ndem_step_stats *s)
{
    run *r = ctx;
    atomic_fetch_add(&r->w->pool->steps_total, 1);
    series_append(r, s);
    return 0;
}

static int run_frame(void *ctx, ndem_sim *sim)
{
    run *r = ctx;
    series_flush(r);
    emit_frame(r);
    return 0;
}

/* Progress and checkpoints, each on its own wall-clock cadence. */
static int run_tick(void *ctx, ndem_sim *sim)
{
    run *r = ctx;
    ndem_pool *p = r->w->pool;
    const ndem_step_stats *s = ndem_sim_stats(sim);
    double now = ndem_mono();
    atomic_store(&r->w->last_step, now);
    if (now >= r->next_progress) {
        r->next_progress = now + p->cfg->progress_interval;
        ndem_progress pr = progress_of(r, now - r->t0);
        series_flush(r);
        ndem_store_progress(p->store, r->row->id, &pr);
        publish_progress(r, &pr);
        if (now > r->rate_t) r->w->rate = (double)(s->step - r->rate_steps) / (now - r->rate_t);
        r->rate_steps = s->step;
        r->rate_t = now;
    }
    if (now >= r->next_checkpoint && s->step < r->total) {
        checkpoint(r);
        r->next_checkpoint = now + p->cfg->checkpoint_interval;
    }
    return 0;
}

static void run_job(worker *w, const ndem_job_row *row)
{
    ndem_pool *p = w->pool;
    run r = {.w = w, .row = row, .total = row->steps_total};
    double t0 = ndem_mono();
    char err[512] = "";
    ndem_log("job %s: running (attempt %ld)", row->id, row->attempts);
    ndem_stream_begin(p->stream, row->id);
    ndem_store_begin(p->store, row->id, (uint64_t)p->cfg->max_output);
    ndem_publish_status(p->stream, row->id, "running", NULL);
    ndem_job_errors errs = {0};
    ndem_mesh_resolver meshes; /* uploaded meshes the document names */
    ndem_job_parse_opts opts = ndem_mesh_resolver_opts(&meshes, p->cfg->data);
    ndem_job_status parsed =
        ndem_job_parse_with(row->document, strlen(row->document), &opts, &r.job, &errs);
    ndem_mesh_resolver_free(&meshes);
    if (parsed != NDEM_JOB_OK) {
        snprintf(err, sizeof err, "the stored job document does not parse: %s",
                 errs.count ? errs.items[0].message : "?");
        ndem_job_errors_clear(&errs);
        finish(&r, "failed", err, 0);
        ndem_store_end(p->store, row->id);
        ndem_stream_end(p->stream, row->id);
        return;
    }
    if (p->cfg->threads > 0) r.job->scene.solver.threads = (int)p->cfg->threads;
    r.want = r.job->scene.solver.threads;
    pthread_mutex_lock(&p->lock);
    w->sharing = 1;
    pthread_mutex_unlock(&p->lock);
    apply_budget(&r); /* creation runs threaded too */
    r.job->scene.solver.threads = atomic_load(&w->threads);
    if (ndem_series_cols_init(&r.cols, &r.job->scene) || start_sim(&r, err, sizeof err)) {
        if (!err[0]) snprintf(err, sizeof err, "out of memory");
        finish(&r, "failed", err, ndem_mono() - t0);
        goto out;
    }
    r.total = ndem_sim_total_steps(r.sim);
    r.t0 = t0;
    r.next_progress = 0;
    r.next_checkpoint = t0 + p->cfg->checkpoint_interval;
    r.rate_steps = ndem_sim_stats(r.sim)->step;
    r.rate_t = t0;
    ndem_run_hooks hooks = {&r, run_stop, run_row, run_frame, run_tick};
    int end = ndem_run_loop(r.sim, r.job->scene.solver.time_step, r.job->output.frame_interval,
                            &r.resume.next_frame, &hooks);
    leave_budget(w);
    const char *status = "succeeded";
    const char *error = NULL;
    if (end == RUN_CANCELLED) {
        status = "cancelled";
    } else if (end == RUN_OUTPUT_FAILED) {
        ndem_store_error(p->store, row->id, err, sizeof err);
        status = "failed"; /* a write failed or the output passed its budget */
        error = err;
    } else if (end == RUN_STOPPING) {
        checkpoint(&r);
        status = "queued";
    } else if (end != NDEM_RUN_DONE) {
        const char *why = ndem_sim_error(r.sim);
        long step = ndem_sim_stats(r.sim)->step;
        why = why && why[0] ? why : "the engine gave no reason";
        if (strstr(why, "step")) snprintf(err, sizeof err, "%s", why);
        else snprintf(err, sizeof err, "%s (step %ld)", why, step + 1);
        status = "failed";
        error = err;
    }
    finish(&r, status, error, ndem_mono() - t0);
out:
    leave_budget(w);
    ndem_store_end(p->store, row->id);
    w->rate = 0;
    free(r.series);
    ndem_series_cols_free(&r.cols);
    ndem_stream_end(p->stream, row->id);
    ndem_sim_destroy(r.sim);
    ndem_job_destroy(r.job);
}

/* --executor slurm: the claimed job runs in Slurm (remote.c); this thread
 * follows it to its end. */
static void slurm_recorded(void *ctx)
{
    worker *w = ctx;
    pthread_mutex_lock(&w->pool->lock);
    w->id[0] = 0;
    pthread_mutex_unlock(&w->pool->lock);
}

static void run_slurm(worker *w, const ndem_job_row *row)
{
    ndem_remote_ctl ctl = {&w->cancel, &w->pool->stopping, &w->last_step, slurm_recorded, w};
    ndem_remote_run(w->pool->remote, row, &ctl);
}

/* Who runs a claimed job, by --executor. */
static const struct {
    const char *name;
    void (*run)(worker *w, const ndem_job_row *row);
    int remote; /* needs the registry of jobs in Slurm */
} executors[] = {
    {"local", run_job, 0},
    {"slurm", run_slurm, 1},
};

static void *worker_main(void *arg)
{
    worker *w = arg;
    ndem_pool *p = w->pool;
    pthread_mutex_lock(&p->lock);
    while (!atomic_load(&p->stopping)) {
        ndem_job_row row;
        /* claimed under the pool lock, so a cancel sees it queued or ours */
        int rc = ndem_db_claim(p->db, &row);
        if (rc == 0) {
            memcpy(w->id, row.id, sizeof w->id);
            atomic_store(&w->cancel, 0);
            atomic_store(&w->last_step, ndem_mono());
            pthread_mutex_unlock(&p->lock);
            ndem_jobdir_sync(p->cfg->data, p->db, row.id);
            p->run(w, &row);
            ndem_job_row_free(&row);
            pthread_mutex_lock(&p->lock);
            w->id[0] = 0;
            continue;
        }
        /* nothing queued: sleep until woken (or a second, as a safety net) */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

ndem_pool *ndem_pool_start(const ndem_config *cfg, ndem_db *db, ndem_store *store,
                           ndem_stream *stream, char *err, size_t err_len)
{
    ndem_pool *p = calloc(1, sizeof *p);
    worker *ws = calloc((size_t)cfg->workers, sizeof *ws);
    if (!p || !ws) {
        free(p);
        free(ws);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    p->cfg = cfg;
    p->db = db;
    p->store = store;
    p->stream = stream;
    p->workers = ws;
    p->count = cfg->workers;
    for (size_t i = 0; i < sizeof executors / sizeof executors[0]; i++)
        if (!strcmp(executors[i].name, cfg->executor)) {
            p->run = executors[i].run;
            if (executors[i].remote) p->remote = ndem_remote_create(cfg, db, store, stream);
            if (executors[i].remote && !p->remote) p->run = NULL;
        }
    if (!p->run) {
        snprintf(err, err_len, "cannot start the executor '%s'", cfg->executor);
        free(ws);
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    ndem_load_init(&p->load, NULL);
    if (cfg->adapt_load > 0 && (ndem_load_update(&p->load, 0), !p->load.readable))
        ndem_log("ndemd: cannot read /proc/stat: the thread budget does not follow other "
                 "processes' load (--adapt-load)");
    for (long i = 0; i < p->count; i++) {
        ws[i].pool = p;
        if (pthread_create(&ws[i].thread, NULL, worker_main, &ws[i])) {
            snprintf(err, err_len, "cannot start worker %ld", i);
            ndem_pool_stop(p, 1e9);
            return NULL;
        }
        ws[i].started = 1;
    }
    return p;
}

void ndem_pool_wake(ndem_pool *p)
{
    pthread_mutex_lock(&p->lock);
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
}

#define CANCEL_HELD_WAIT 10.0 /* seconds: a scancel, then Slurm's last word (remote.c) */

/* 1 once job id is recorded cancelled without having run a step, within
 * seconds; 0 when it is not (its cancel is then answered as a running
 * job's). The step tells a held job from one that Slurm had started just
 * before ndemd's last poll saw it RUNNING: that one is cancelled too, but
 * as a running job is (202). */
static int cancelled_within(ndem_db *db, const char *id, double seconds)
{
    for (double until = ndem_mono() + seconds; ndem_mono() < until;) {
        ndem_job_row row;
        if (ndem_db_get(db, id, &row)) return 0;
        int finished = ndem_job_row_finished(&row),
            cancelled = !strcmp(row.status, "cancelled") && row.step == 0;
        ndem_job_row_free(&row);
        if (finished) return cancelled;
        nanosleep(&(struct timespec){0, 20000000L}, NULL);
    }
    return 0;
}

int ndem_pool_cancel(ndem_pool *p, const char *id)
{
    pthread_mutex_lock(&p->lock);
    int rc = ndem_db_cancel_queued(p->db, id), was_queued = rc == 1;
    if (rc == 1) {
        rc = NDEM_CANCEL_QUEUED;
        ndem_jobdir_sync(p->cfg->data, p->db, id);
    } else if (rc == 0) {
        rc = NDEM_CANCEL_UNKNOWN;
        for (long i = 0; i < p->count; i++)
            if (!strcmp(p->workers[i].id, id)) {
                atomic_store(&p->workers[i].cancel, 1);
                rc = NDEM_CANCEL_RUNNING;
            }
        if (rc == NDEM_CANCEL_UNKNOWN) {
            ndem_job_row row;
            int got = ndem_db_get(p->db, id, &row);
            if (got == 0) {
                rc = NDEM_CANCEL_FINISHED;
                ndem_job_row_free(&row);
            } else if (got < 0) {
                rc = -1;
            }
        }
    }
    pthread_mutex_unlock(&p->lock);
    /* a queued job may have a Slurm job already (an array's task) */
    if (was_queued && p->remote) ndem_remote_forget(p->remote, id);
    /* one that Slurm holds PENDING reads queued, and is cancelled as one
     * is: its worker scancels it and records it cancelled, waited for here */
    if (rc == NDEM_CANCEL_RUNNING && p->remote && ndem_remote_cancelling(p->remote, id) &&
        cancelled_within(p->db, id, CANCEL_HELD_WAIT))
        rc = NDEM_CANCEL_QUEUED;
    return rc;
}

void ndem_pool_cancel_arrays(ndem_pool *p, const char *const *ids, int n)
{
    if (p->remote) ndem_remote_cancel_arrays(p->remote, ids, n);
}

int ndem_pool_stop(ndem_pool *p, double timeout)
{
    if (!p) return 0;
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->stopping, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)timeout;
    until.tv_nsec += (long)((timeout - (double)(time_t)timeout) * 1e9);
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    int left = 0;
    for (long i = 0; i < p->count; i++) {
        if (!p->workers[i].started || !pthread_timedjoin_np(p->workers[i].thread, NULL, &until))
            continue;
        /* a step that does not end: this worker cannot checkpoint */
        pthread_mutex_lock(&p->lock);
        ndem_log("worker %ld: job %s did not stop within %g s", i,
                 p->workers[i].id[0] ? p->workers[i].id : "(none)", timeout);
        pthread_mutex_unlock(&p->lock);
        left++;
    }
    if (left) return left; /* the pool stays: its threads still use it */
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    ndem_remote_destroy(p->remote);
    free(p->workers);
    free(p);
    return 0;
}

void ndem_pool_stats_get(ndem_pool *p, ndem_pool_stats *out)
{
    memset(out, 0, sizeof *out);
    out->workers = p->count;
    out->steps_total = atomic_load(&p->steps_total);
    pthread_mutex_lock(&p->lock);
    for (long i = 0; i < p->count; i++)
        if (p->workers[i].id[0]) {
            out->busy++;
            out->steps_per_second += p->workers[i].rate;
        }
    pthread_mutex_unlock(&p->lock);
}

int ndem_pool_workers(ndem_pool *p, ndem_worker_state *out, long max)
{
    double now = ndem_mono();
    long n = 0;
    pthread_mutex_lock(&p->lock);
    for (long i = 0; i < p->count && n < max; i++, n++) {
        ndem_worker_state *ws = &out[n];
        memset(ws, 0, sizeof *ws);
        memcpy(ws->job, p->workers[i].id, sizeof ws->job);
        if (ws->job[0]) {
            ws->idle_seconds = now - atomic_load(&p->workers[i].last_step);
            ws->stuck = ws->idle_seconds > p->cfg->stuck_after;
            ws->threads = atomic_load(&p->workers[i].threads);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return (int)n;
}

void ndem_pool_cores_get(ndem_pool *p, ndem_pool_cores *out)
{
    pthread_mutex_lock(&p->lock);
    out->shared = shared_cores(p, &out->left);
    out->cpus = p->load.cpus;
    out->outside = p->load.outside;
    out->adapting = p->cfg->adapt_load > 0 && p->load.readable;
    pthread_mutex_unlock(&p->lock);
}

int ndem_pool_report(ndem_pool *p, const char *id, const char *secret, const char *body, size_t len,
                     char **reply, char *why, size_t why_len)
{
    *reply = NULL;
    if (!p->remote) {
        snprintf(why, why_len, "this daemon runs its jobs itself (--executor %s)",
                 p->cfg->executor);
        return 404;
    }
    return ndem_remote_report(p->remote, id, secret, body, len, reply, why, why_len);
}
