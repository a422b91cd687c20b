/* remote.c - a claimed job run by Slurm (remote.h). The worker thread that
 * claimed it stays with it, as for a local job, so --workers bounds the
 * jobs in Slurm at once and cancel, shutdown and /health work unchanged.
 * It submits `ndem run --report URL` (slurm.c), then waits: the compute
 * node's reports (remote_report.c) write the job's files through the same store
 * and stream as a local worker; every --slurm-poll seconds scontrol says
 * whether the Slurm job still lives. A run that ends without reporting its
 * end (the process was killed, the node failed, the time limit passed)
 * is submitted again, up to --max-attempts times, and the new run resumes
 * from the last checkpoint exactly as a local restart does.
 *
 * The Slurm job, the secret and the run number are kept in the job's
 * slurm.json (slurm_job.h): at shutdown ndemd leaves its Slurm jobs
 * running and puts their jobs back in the queue; the worker that claims
 * one again finds the record and follows the same Slurm job (its run's
 * reports wait meanwhile: 503). A job of a sweep is submitted with the
 * sweep's other waiting jobs as one job array; each gets its record then,
 * and the workers that claim them follow their tasks. */
#include "remote_priv.h"

#include "jobdir.h"
#include "log.h"
#include "publish.h"
#include "slurm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

ndem_remote *ndem_remote_create(const ndem_config *cfg, ndem_db *db, ndem_store *store,
                                ndem_stream *stream)
{
    ndem_remote *rm = calloc(1, sizeof *rm);
    if (!rm) return NULL;
    rm->cfg = cfg;
    rm->db = db;
    rm->store = store;
    rm->stream = stream;
    pthread_mutex_init(&rm->lock, NULL);
    pthread_mutex_init(&rm->submit, NULL);
    pthread_cond_init(&rm->changed, NULL);
    return rm;
}

void ndem_remote_destroy(ndem_remote *rm)
{
    if (!rm) return;
    pthread_mutex_destroy(&rm->lock);
    pthread_mutex_destroy(&rm->submit);
    pthread_cond_destroy(&rm->changed);
    free(rm);
}

static int new_secret(char *out)
{
    unsigned char raw[NDEM_SECRET_LEN / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++) snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

/* How the wait for a Slurm run ended. */
typedef struct outcome {
    const char *status; /* NULL while running */
    char error[512];
} outcome;

/* The status a run's own end report gives, or NULL to go on waiting for
 * Slurm's word (a run stopped by a signal ndemd did not send). */
static const char *reported_status(const remote_job *j, int cancel_sent)
{
    if (!strcmp(j->end_status, "succeeded") || !strcmp(j->end_status, "failed"))
        return j->end_status;
    return cancel_sent ? "cancelled" : NULL;
}

/* The job reads as queued while Slurm holds it PENDING: the database says
 * so, where every list and count reads a job's status (db.h). */
static void mark_pending(ndem_remote *rm, const remote_job *j)
{
    ndem_db_set_pending(rm->db, j->id, !strcmp(j->sj.state, "PENDING"));
}

void ndem_remote_save(ndem_remote *rm, const remote_job *j)
{
    if (ndem_slurm_job_save(rm->cfg->data, j->id, &j->sj))
        ndem_log("job %s: cannot write slurm.json: %s", j->id, strerror(errno));
    mark_pending(rm, j);
}

void ndem_remote_set_state(ndem_remote *rm, remote_job *j, const char *state, const char *reason)
{
    if (!strcmp(j->sj.state, state) && !strcmp(j->sj.reason, reason)) return;
    int was_pending = !strcmp(j->sj.state, "PENDING"), pending = !strcmp(state, "PENDING");
    snprintf(j->sj.state, sizeof j->sj.state, "%s", state);
    snprintf(j->sj.reason, sizeof j->sj.reason, "%s", reason);
    ndem_remote_save(rm, j);
    /* an end (CANCELLED after a PENDING, say) is published by finish() */
    if (was_pending != pending && ndem_slurm_classify(state) == NDEM_SLURM_ACTIVE)
        ndem_publish_status(rm->stream, j->id, pending ? "queued" : "running", NULL);
}

static void slurm_words(char *buf, size_t len, const char *slurm_id, const ndem_slurm_state *st)
{
    snprintf(buf, len, "Slurm job %s: %s (reason %s, exit code %s)", slurm_id, st->state,
             st->reason[0] ? st->reason : "none", st->exit_code[0] ? st->exit_code : "none");
}

/* A Slurm job that is no more, whose run did not report its end, and that
 * is not submitted again: cancelled outside ndemd, or ended silently. */
static void ended_silently(const char *words, const ndem_slurm_state *st, outcome *o)
{
    if (st->cls == NDEM_SLURM_CANCELLED) {
        o->status = "cancelled";
        snprintf(o->error, sizeof o->error, "cancelled in Slurm, not through ndemd: %s", words);
    } else {
        o->status = "failed";
        snprintf(o->error, sizeof o->error, "%s, but its run never reported its end", words);
    }
}

/* ndemd as compute nodes reach it, without a trailing slash. */
static void report_base(const ndem_config *c, char *base, size_t len)
{
    snprintf(base, len, "%s", c->slurm_report_url[0] ? c->slurm_report_url : c->origin);
    size_t n = strlen(base);
    while (n > 0 && base[n - 1] == '/') base[--n] = 0;
}

/* Builds the URL compute nodes report to. */
static void report_url(const ndem_config *c, const char *id, char *url, size_t len)
{
    char base[300];
    report_base(c, base, sizeof base);
    snprintf(url, len, "%s/internal/v1/jobs/%s/report", base, id);
}

/* A fresh record of a Slurm job just submitted (under rm->lock when j is
 * registered). */
static void submitted(ndem_slurm_job *sj, const char *job_id, const char *array_id, long task)
{
    snprintf(sj->job_id, sizeof sj->job_id, "%s", job_id);
    snprintf(sj->array_id, sizeof sj->array_id, "%s", array_id);
    sj->array_task = task;
    snprintf(sj->state, sizeof sj->state, "PENDING");
    sj->reason[0] = 0;
}

/* Copies the secret of job id when a worker has registered it: 1, else 0. */
static int registered_secret(ndem_remote *rm, const char *id, char *out)
{
    pthread_mutex_lock(&rm->lock);
    remote_job *r = rm->jobs;
    while (r && strcmp(r->id, id)) r = r->next;
    if (r) memcpy(out, r->sj.secret, sizeof r->sj.secret);
    pthread_mutex_unlock(&rm->lock);
    return r != NULL;
}

/* Before an array's sbatch (keep 1): each task's record but the claiming
 * job's, with its secret and no Slurm job id yet; after a failed one (keep
 * 0): the same without the secret. */
static void presubmit(const ndem_config *c, const ndem_slurm_task *tasks, int n, const char *self,
                      int keep)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(tasks[i].job, self)) continue;
        ndem_slurm_job sj = {.array_task = tasks[i].index};
        if (keep) memcpy(sj.secret, tasks[i].secret, sizeof sj.secret);
        if (ndem_slurm_job_save(c->data, tasks[i].job, &sj))
            ndem_log("job %s: cannot write slurm.json: %s", tasks[i].job, strerror(errno));
    }
}

/* A job of a sweep: submits it with the sweep's other jobs that wait and
 * have no Slurm job yet as one array, task i running the job of index i,
 * and writes each one's slurm.json (under rm->submit). */
static int submit_sweep(ndem_remote *rm, const ndem_job_row *row, remote_job *j, char *err,
                        size_t err_len)
{
    const ndem_config *c = rm->cfg;
    ndem_job_row *rows = NULL;
    int n = 0, k = 0, rc = -1;
    if (ndem_db_sweep_jobs(rm->db, row->sweep, &rows, &n)) {
        snprintf(err, err_len, "cannot list the jobs of sweep %s", row->sweep);
        return -1;
    }
    ndem_slurm_task *tasks = calloc((size_t)n + 1, sizeof *tasks);
    char(*secrets)[NDEM_SECRET_LEN + 1] = calloc((size_t)n + 1, sizeof *secrets);
    if (!tasks || !secrets) {
        snprintf(err, err_len, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        ndem_slurm_job sj;
        int self = !strcmp(rows[i].id, row->id);
        int open = !strcmp(rows[i].status, "queued") || !strcmp(rows[i].status, "running");
        if (!self && (!open || (ndem_slurm_job_load(c->data, rows[i].id, &sj) == 0 &&
                                sj.secret[0] && sj.job_id[0])))
            continue;
        /* a job another worker has claimed keeps the secret it registered */
        if (self || registered_secret(rm, rows[i].id, secrets[k])) {
            if (self) memcpy(secrets[k], j->sj.secret, sizeof secrets[k]);
        } else if (new_secret(secrets[k])) {
            snprintf(err, err_len, "cannot make a report secret");
            goto out;
        }
        tasks[k] = (ndem_slurm_task){rows[i].sweep_index, rows[i].id, secrets[k]};
        k++;
    }
    /* the other jobs' secrets are on disk before a task can run: its
     * reports wait (503) instead of meeting a job this daemon does not know */
    presubmit(c, tasks, k, row->id, 1);
    char base[300], name[64], array_id[32];
    report_base(c, base, sizeof base);
    snprintf(name, sizeof name, "ndem-sweep-%s", row->sweep);
    if (ndem_slurm_submit_array(c, name, base, tasks, k, c->workers, array_id, sizeof array_id, err,
                                err_len)) {
        presubmit(c, tasks, k, row->id, 0);
        goto out;
    }
    ndem_log("sweep %s: submitted to Slurm as job array %s (%d task(s), at most %ld at once)",
             row->sweep, array_id, k, c->workers);
    for (int i = 0; i < k; i++) {
        char task_id[48];
        snprintf(task_id, sizeof task_id, "%s_%ld", array_id, tasks[i].index);
        if (!strcmp(tasks[i].job, row->id)) {
            pthread_mutex_lock(&rm->lock);
            submitted(&j->sj, task_id, array_id, tasks[i].index);
            ndem_remote_save(rm, j);
            pthread_mutex_unlock(&rm->lock);
            continue;
        }
        ndem_slurm_job sj = {0};
        memcpy(sj.secret, tasks[i].secret, sizeof sj.secret);
        submitted(&sj, task_id, array_id, tasks[i].index);
        if (ndem_slurm_job_save(c->data, tasks[i].job, &sj))
            ndem_log("job %s: cannot write slurm.json: %s", tasks[i].job, strerror(errno));
    }
    rc = 0;
out:
    for (int i = 0; i < n; i++) ndem_job_row_free(&rows[i]);
    free(rows);
    free(tasks);
    free(secrets);
    return rc;
}

/* Finds the job's Slurm job in its slurm.json (left running by an earlier
 * ndemd, or a task of its sweep's array) and follows it (*attached = 1),
 * or submits one. 0, or -1 with err. */
static int attach_or_submit(ndem_remote *rm, const ndem_job_row *row, remote_job *j,
                            const char *url, int *attached, char *err, size_t err_len)
{
    const ndem_config *c = rm->cfg;
    ndem_slurm_job sj;
    int rc = 0;
    *attached = 0;
    pthread_mutex_lock(&rm->submit);
    if (ndem_slurm_job_load(c->data, row->id, &sj) == 0 && sj.secret[0] && sj.job_id[0]) {
        ndem_frame_row last;
        int got = ndem_db_frame(rm->db, row->id, -1, &last);
        pthread_mutex_lock(&rm->lock);
        j->sj = sj;
        j->run = sj.run;
        j->wall_before = sj.wall_before;
        j->frames = got == 0 ? last.index + 1 : 0;
        mark_pending(rm, j);
        pthread_mutex_unlock(&rm->lock);
        *attached = 1;
        if (sj.array_id[0] && sj.run == 0)
            ndem_log("job %s: runs as task %ld of Slurm job array %s", row->id, sj.array_task,
                     sj.array_id);
        else
            ndem_log("job %s: follows Slurm job %s again (run %ld, %ld frame(s) reported)", row->id,
                     sj.job_id, sj.run, j->frames);
    } else if (row->sweep[0]) {
        rc = submit_sweep(rm, row, j, err, err_len);
    } else {
        char slurm_id[48];
        rc = ndem_slurm_submit(c, row->id, url, j->sj.secret, slurm_id, sizeof slurm_id, err,
                               err_len);
        if (!rc) {
            pthread_mutex_lock(&rm->lock);
            submitted(&j->sj, slurm_id, "", -1);
            j->sj.run = j->run;
            ndem_remote_save(rm, j);
            pthread_mutex_unlock(&rm->lock);
        }
    }
    pthread_mutex_unlock(&rm->submit);
    return rc;
}

/* Submits (or finds its Slurm job again), then waits for the run's end;
 * o says how it ended. */
static void follow(ndem_remote *rm, const ndem_job_row *row, remote_job *j,
                   const ndem_remote_ctl *ctl, outcome *o)
{
    const ndem_config *c = rm->cfg;
    char url[600], err[512], why[400];
    int attached;
    report_url(c, row->id, url, sizeof url);
    if (attach_or_submit(rm, row, j, url, &attached, err, sizeof err)) {
        o->status = "failed";
        snprintf(o->error, sizeof o->error, "%s", err);
        return;
    }
    if (!attached && j->sj.array_id[0])
        ndem_log("job %s: runs as task %ld of Slurm job array %s", row->id, j->sj.array_task,
                 j->sj.array_id);
    else if (!attached)
        ndem_log("job %s: submitted to Slurm as job %s (report to %s)", row->id, j->sj.job_id, url);
    long interruptions = 0;
    int cancel_sent = 0, output_failed = 0;
    /* a Slurm job found again is asked about at once: it may have ended
     * while no ndemd listened */
    double next_poll = ndem_mono() + (attached ? 0 : c->slurm_poll);
    char last_state[32] = "";
    pthread_mutex_lock(&rm->lock);
    while (!o->status) {
        if (j->ended && (o->status = reported_status(j, cancel_sent))) {
            if (!strcmp(o->status, "failed"))
                snprintf(o->error, sizeof o->error, "%s", j->end_error);
            break;
        }
        int cancel = atomic_load(ctl->cancel), stopping = atomic_load(ctl->stopping);
        if (!output_failed && ndem_store_error(rm->store, row->id, why, sizeof why))
            output_failed = 1;
        /* shutdown: the Slurm job goes on; the next ndemd follows it again
         * (one being cancelled, after a failed write, ends as it would) */
        if (stopping && cancel_sent) {
            o->status = output_failed ? "failed" : "cancelled";
            if (output_failed) snprintf(o->error, sizeof o->error, "%s", why);
            break;
        }
        if (stopping && !output_failed) {
            o->status = "queued";
            ndem_log("job %s: Slurm job %s left running; it is followed again at the next start",
                     row->id, j->sj.job_id);
            break;
        }
        if ((cancel || output_failed == 1) && !cancel_sent) {
            /* held in Slurm's queue: no run to stop, cancelled once scancelled */
            int held = cancel && !output_failed && !strcmp(j->sj.state, "PENDING");
            pthread_mutex_unlock(&rm->lock);
            int refused = ndem_slurm_cancel(c, j->sj.job_id, err, sizeof err);
            if (refused) ndem_log("job %s: %s", row->id, err);
            pthread_mutex_lock(&rm->lock);
            if (output_failed) output_failed = 2;
            cancel_sent = 1;
            if (held && !refused) {
                ndem_log("job %s: cancelled while Slurm held it PENDING: scancel %s", row->id,
                         j->sj.job_id);
                o->status = "cancelled";
                break;
            }
        }
        if (output_failed && j->ended) {
            o->status = "failed";
            snprintf(o->error, sizeof o->error, "%s", why);
            break;
        }
        if (ndem_mono() >= next_poll) {
            ndem_slurm_state st;
            char slurm_id[48];
            snprintf(slurm_id, sizeof slurm_id, "%s", j->sj.job_id);
            pthread_mutex_unlock(&rm->lock);
            int rc = ndem_slurm_query(c, slurm_id, &st, err, sizeof err);
            pthread_mutex_lock(&rm->lock);
            next_poll = ndem_mono() + c->slurm_poll;
            /* waiting in Slurm's queue is not being stuck (/health) */
            if (!rc && st.cls == NDEM_SLURM_ACTIVE && strcmp(st.state, "RUNNING"))
                atomic_store(ctl->last_seen, ndem_mono());
            if (rc) {
                ndem_log("job %s: %s", row->id, err);
            } else {
                if (strcmp(st.state, last_state)) {
                    snprintf(last_state, sizeof last_state, "%s", st.state);
                    ndem_log("job %s: Slurm job %s is %s (%s)", row->id, slurm_id, st.state,
                             st.reason);
                }
                ndem_remote_set_state(rm, j, st.state, st.reason);
            }
            /* an end report that came in meanwhile decides (top of the loop); a
             * run that ended "stopped" by a signal ndemd did not send (Slurm's
             * time limit, preemption) is decided by Slurm's state, like one
             * that ended without a word */
            if (j->ended && reported_status(j, cancel_sent)) continue;
            if (!rc && st.cls != NDEM_SLURM_ACTIVE) {
                if (cancel_sent) {
                    o->status = output_failed ? "failed" : "cancelled";
                    if (output_failed) snprintf(o->error, sizeof o->error, "%s", why);
                    break;
                }
                char words[400];
                slurm_words(words, sizeof words, slurm_id, &st);
                /* found again but ended meanwhile: its end report may have
                 * found no ndemd, so it counts as interrupted */
                int lost = attached && st.cls == NDEM_SLURM_ENDED;
                if (st.cls != NDEM_SLURM_INTERRUPTED && st.cls != NDEM_SLURM_GONE && !lost) {
                    ended_silently(words, &st, o);
                    break;
                }
                if (++interruptions >= c->max_attempts) {
                    o->status = "failed";
                    snprintf(o->error, sizeof o->error,
                             "%s; interrupted %ld time(s), not retried (--max-attempts)", words,
                             interruptions);
                    break;
                }
                ndem_log("job %s: %s; submitting it again (it resumes from its last checkpoint)",
                         row->id, words);
                char secret[NDEM_SECRET_LEN + 1], new_id[48];
                memcpy(secret, j->sj.secret, sizeof secret);
                pthread_mutex_unlock(&rm->lock);
                int sub = ndem_slurm_submit(c, row->id, url, secret, new_id, sizeof new_id, err,
                                            sizeof err);
                pthread_mutex_lock(&rm->lock);
                if (sub) {
                    o->status = "failed";
                    snprintf(o->error, sizeof o->error, "%.200s; submitting it again: %.280s",
                             words, err);
                    break;
                }
                /* an array's task comes back as a Slurm job of its own */
                submitted(&j->sj, new_id, "", -1);
                ndem_remote_save(rm, j);
                ndem_log("job %s: submitted to Slurm again as job %s", row->id, new_id);
                last_state[0] = 0;
                attached = 0;
            } else if (!rc) {
                attached = 0; /* seen alive: its end is its own again */
            }
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&rm->changed, &rm->lock, &until);
    }
    pthread_mutex_unlock(&rm->lock);
}

#define END_WAIT 10.0 /* seconds Slurm may take to end a job whose run reported its end */

/* The run has ended (it reported so, or it was cancelled): Slurm's final
 * word on its Slurm job (COMPLETED, FAILED, CANCELLED) into slurm.json,
 * asked until the Slurm job is no longer active, for up to END_WAIT
 * seconds (one question at shutdown), so that executor.state is not the
 * RUNNING of the last poll. GONE (slurmctld forgot it) leaves the last word. */
static void final_state(ndem_remote *rm, remote_job *j, const ndem_remote_ctl *ctl)
{
    char err[512];
    double until = ndem_mono() + END_WAIT;
    for (;;) {
        ndem_slurm_state st;
        if (ndem_slurm_query(rm->cfg, j->sj.job_id, &st, err, sizeof err)) {
            ndem_log("job %s: %s", j->id, err);
            return;
        }
        if (st.cls == NDEM_SLURM_GONE) return;
        if (st.cls != NDEM_SLURM_ACTIVE || ndem_mono() >= until || atomic_load(ctl->stopping)) {
            pthread_mutex_lock(&rm->lock);
            ndem_remote_set_state(rm, j, st.state, st.reason);
            pthread_mutex_unlock(&rm->lock);
            return;
        }
        nanosleep(&(struct timespec){0, 250000000L}, NULL);
    }
}

/* Ends the job: its files, and Slurm's last word on it, are complete
 * before the status says so. */
static void finish(ndem_remote *rm, const ndem_job_row *row, remote_job *j, const outcome *o,
                   const ndem_remote_ctl *ctl)
{
    const char *id = row->id, *status = o->status, *error = o->error[0] ? o->error : NULL;
    /* no report is taken from here on */
    pthread_mutex_lock(&rm->lock);
    for (remote_job **p = &rm->jobs; *p; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            break;
        }
    /* the record stays for the resource; its secret only while the Slurm
     * job may still report (left running at shutdown) */
    int ended_in_slurm = j->sj.job_id[0] && strcmp(status, "queued") &&
                         ndem_slurm_classify(j->sj.state) == NDEM_SLURM_ACTIVE;
    if (j->sj.job_id[0]) {
        if (strcmp(status, "queued")) j->sj.secret[0] = 0;
        ndem_remote_save(rm, j);
    }
    pthread_mutex_unlock(&rm->lock);
    if (ended_in_slurm) final_state(rm, j, ctl);
    if (strcmp(status, "queued")) {
        ndem_store_sync(rm->store, id);
        ndem_store_drop_checkpoint(rm->store, id);
    }
    char why[400];
    if (ndem_store_flush(rm->store, id) && strcmp(status, "failed") &&
        ndem_store_error(rm->store, id, why, sizeof why)) {
        status = "failed";
        error = why;
    }
    ndem_db_finish(rm->db, id, status, error, &j->last);
    if (ctl->recorded) ctl->recorded(ctl->ctx);
    ndem_jobdir_sync(rm->cfg->data, rm->db, id);
    if (j->last.steps_total) ndem_publish_progress(rm->stream, id, j->duration, &j->last, NULL);
    ndem_publish_status(rm->stream, id, status, error);
    ndem_log("job %s: %s at step %ld/%ld (%.2f s wall)%s%s", id, status, j->last.step,
             j->last.steps_total, j->last.wall_seconds, error ? ": " : "", error ? error : "");
}

void ndem_remote_run(ndem_remote *rm, const ndem_job_row *row, const ndem_remote_ctl *ctl)
{
    remote_job *j = calloc(1, sizeof *j);
    outcome o = {0};
    ndem_log("job %s: running in Slurm (attempt %ld)", row->id, row->attempts);
    ndem_stream_begin(rm->stream, row->id);
    ndem_store_begin(rm->store, row->id, (uint64_t)rm->cfg->max_output);
    remote_job none = {0};
    /* The secret is settled before the job is registered, under rm->submit:
     * that of its Slurm job when slurm.json names one (a run may report at
     * once, and must not meet another secret), else a fresh one that an
     * array submitted meanwhile by another worker takes over. */
    ndem_slurm_job sj;
    pthread_mutex_lock(&rm->submit);
    int bad = !j;
    if (j && ndem_slurm_job_load(rm->cfg->data, row->id, &sj) == 0 && sj.secret[0])
        memcpy(j->sj.secret, sj.secret, sizeof sj.secret);
    else if (j) bad = new_secret(j->sj.secret) != 0;
    if (bad) {
        pthread_mutex_unlock(&rm->submit);
        o.status = "failed";
        snprintf(o.error, sizeof o.error, "cannot make the job's report secret");
        none.last.step = row->step;
        finish(rm, row, j ? j : &none, &o, ctl);
    } else {
        memcpy(j->id, row->id, sizeof j->id);
        j->document = row->document;
        j->duration = row->duration;
        j->wall_before = row->wall_seconds;
        j->last =
            (ndem_progress){row->step,     row->steps_total,    row->time,        row->particles,
                            row->contacts, row->kinetic_energy, row->wall_seconds};
        j->last_seen = ctl->last_seen;
        pthread_mutex_lock(&rm->lock);
        j->next = rm->jobs;
        rm->jobs = j;
        pthread_mutex_unlock(&rm->lock);
        pthread_mutex_unlock(&rm->submit);
        follow(rm, row, j, ctl, &o);
        finish(rm, row, j, &o, ctl);
    }
    ndem_store_end(rm->store, row->id);
    ndem_stream_end(rm->stream, row->id);
    free(j);
}

int ndem_remote_cancelling(ndem_remote *rm, const char *id)
{
    int held = 0;
    pthread_mutex_lock(&rm->lock);
    for (remote_job *j = rm->jobs; j; j = j->next)
        if (!strcmp(j->id, id)) held = !strcmp(j->sj.state, "PENDING");
    pthread_cond_broadcast(&rm->changed); /* its worker sees the cancel now */
    pthread_mutex_unlock(&rm->lock);
    return held;
}

void ndem_remote_forget(ndem_remote *rm, const char *id)
{
    ndem_slurm_job sj;
    char err[512];
    pthread_mutex_lock(&rm->submit); /* an array's submission writes it meanwhile */
    if (ndem_slurm_job_load(rm->cfg->data, id, &sj) == 0 && sj.secret[0] && sj.job_id[0]) {
        if (ndem_slurm_cancel(rm->cfg, sj.job_id, err, sizeof err)) ndem_log("job %s: %s", id, err);
        else ndem_log("job %s: cancelled while queued: scancel %s", id, sj.job_id);
        sj.secret[0] = 0;
        snprintf(sj.state, sizeof sj.state, "CANCELLED");
        sj.reason[0] = 0;
        if (ndem_slurm_job_save(rm->cfg->data, id, &sj))
            ndem_log("job %s: cannot write slurm.json: %s", id, strerror(errno));
    }
    pthread_mutex_unlock(&rm->submit);
}

void ndem_remote_cancel_arrays(ndem_remote *rm, const char *const *ids, int n)
{
    char(*done)[24] = calloc((size_t)n + 1, sizeof *done), err[512];
    int k = 0;
    for (int i = 0; done && i < n; i++) {
        ndem_slurm_job sj;
        if (ndem_slurm_job_load(rm->cfg->data, ids[i], &sj) || !sj.array_id[0]) continue;
        int seen = 0;
        for (int m = 0; m < k; m++) seen |= !strcmp(done[m], sj.array_id);
        if (seen) continue;
        memcpy(done[k++], sj.array_id, sizeof done[0]);
        if (ndem_slurm_cancel(rm->cfg, sj.array_id, err, sizeof err))
            ndem_log("job array %s: %s", sj.array_id, err);
        else ndem_log("job array %s: scancel (its sweep was cancelled)", sj.array_id);
    }
    free(done);
}
