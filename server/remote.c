/* remote.c - a claimed job run by Slurm (remote.h). The worker thread that
 * claimed it stays with it, as for a local job, so --workers bounds the
 * jobs in Slurm at once and cancel, shutdown and /health work unchanged.
 * It submits `ndem run --report URL` (slurm.c), then waits: the compute
 * node's reports (remote_report.c) write the job's files through the same store
 * and stream as a local worker; every --slurm-poll seconds scontrol says
 * whether the Slurm job still lives. A run that ends without reporting its
 * end (the process was killed, the node failed, the time limit passed)
 * is submitted again, up to --max-attempts times, and the new run resumes
 * from the last checkpoint exactly as a local restart does. */
#include "remote_priv.h"

#include "jobdir.h"
#include "log.h"
#include "publish.h"
#include "slurm.h"

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
    pthread_cond_init(&rm->changed, NULL);
    return rm;
}

void ndem_remote_destroy(ndem_remote *rm)
{
    if (!rm) return;
    pthread_mutex_destroy(&rm->lock);
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
static const char *reported_status(const remote_job *j, int cancel_sent, int stop_sent)
{
    if (!strcmp(j->end_status, "succeeded") || !strcmp(j->end_status, "failed"))
        return j->end_status;
    if (cancel_sent) return "cancelled";
    if (stop_sent) return "queued";
    return NULL;
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

/* Builds the URL compute nodes report to. */
static void report_url(const ndem_config *c, const char *id, char *url, size_t len)
{
    char base[300];
    snprintf(base, sizeof base, "%s", c->slurm_report_url[0] ? c->slurm_report_url : c->origin);
    size_t n = strlen(base);
    while (n > 0 && base[n - 1] == '/') base[--n] = 0;
    snprintf(url, len, "%s/internal/v1/jobs/%s/report", base, id);
}

/* Submits, then waits for the run's end; o says how it ended. */
static void follow(ndem_remote *rm, const ndem_job_row *row, remote_job *j,
                   const ndem_remote_ctl *ctl, outcome *o)
{
    const ndem_config *c = rm->cfg;
    char url[600], slurm_id[64], err[512], why[400];
    report_url(c, row->id, url, sizeof url);
    if (ndem_slurm_submit(c, row->id, url, j->secret, slurm_id, sizeof slurm_id, err, sizeof err)) {
        o->status = "failed";
        snprintf(o->error, sizeof o->error, "%s", err);
        return;
    }
    ndem_log("job %s: submitted to Slurm as job %s (report to %s)", row->id, slurm_id, url);
    long interruptions = 0;
    int cancel_sent = 0, stop_sent = 0, output_failed = 0;
    double stop_at = 0, next_poll = ndem_mono() + c->slurm_poll;
    char last_state[32] = "";
    pthread_mutex_lock(&rm->lock);
    while (!o->status) {
        if (j->ended && (o->status = reported_status(j, cancel_sent, stop_sent))) {
            if (!strcmp(o->status, "failed"))
                snprintf(o->error, sizeof o->error, "%s", j->end_error);
            break;
        }
        int cancel = atomic_load(ctl->cancel), stopping = atomic_load(ctl->stopping);
        if (!output_failed && ndem_store_error(rm->store, row->id, why, sizeof why))
            output_failed = 1;
        if ((cancel || stopping || output_failed == 1) && !cancel_sent && !stop_sent) {
            pthread_mutex_unlock(&rm->lock);
            if (ndem_slurm_cancel(c, slurm_id, err, sizeof err))
                ndem_log("job %s: %s", row->id, err);
            pthread_mutex_lock(&rm->lock);
            if (output_failed) output_failed = 2;
            if (cancel || output_failed) cancel_sent = 1;
            else stop_sent = 1, stop_at = ndem_mono();
        }
        if (output_failed && j->ended) {
            o->status = "failed";
            snprintf(o->error, sizeof o->error, "%s", why);
            break;
        }
        /* at shutdown, wait for the run's last checkpoint only so long */
        if (stop_sent && ndem_mono() - stop_at > c->stop_timeout / 2) {
            o->status = "queued";
            break;
        }
        if (ndem_mono() >= next_poll) {
            ndem_slurm_state st;
            pthread_mutex_unlock(&rm->lock);
            int rc = ndem_slurm_query(c, slurm_id, &st, err, sizeof err);
            pthread_mutex_lock(&rm->lock);
            next_poll = ndem_mono() + c->slurm_poll;
            /* waiting in Slurm's queue is not being stuck (/health) */
            if (!rc && st.cls == NDEM_SLURM_ACTIVE && strcmp(st.state, "RUNNING"))
                atomic_store(ctl->last_seen, ndem_mono());
            if (rc) {
                ndem_log("job %s: %s", row->id, err);
            } else if (strcmp(st.state, last_state)) {
                snprintf(last_state, sizeof last_state, "%s", st.state);
                ndem_log("job %s: Slurm job %s is %s (%s)", row->id, slurm_id, st.state, st.reason);
            }
            /* an end report that came in meanwhile decides (top of the loop); a
             * run that ended "stopped" by a signal ndemd did not send (Slurm's
             * time limit, preemption) is decided by Slurm's state, like one
             * that ended without a word */
            if (j->ended && reported_status(j, cancel_sent, stop_sent)) continue;
            if (!rc && st.cls != NDEM_SLURM_ACTIVE) {
                if (cancel_sent || stop_sent || output_failed) {
                    o->status = output_failed ? "failed" : cancel_sent ? "cancelled" : "queued";
                    if (output_failed) snprintf(o->error, sizeof o->error, "%s", why);
                    break;
                }
                char words[400];
                slurm_words(words, sizeof words, slurm_id, &st);
                if (st.cls != NDEM_SLURM_INTERRUPTED && st.cls != NDEM_SLURM_GONE) {
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
                pthread_mutex_unlock(&rm->lock);
                int sub = ndem_slurm_submit(c, row->id, url, j->secret, slurm_id, sizeof slurm_id,
                                            err, sizeof err);
                pthread_mutex_lock(&rm->lock);
                if (sub) {
                    o->status = "failed";
                    snprintf(o->error, sizeof o->error, "%.200s; submitting it again: %.280s",
                             words, err);
                    break;
                }
                ndem_log("job %s: submitted to Slurm again as job %s", row->id, slurm_id);
                last_state[0] = 0;
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

/* Ends the job: its files are complete before the status says so. */
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
    pthread_mutex_unlock(&rm->lock);
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
    ndem_publish_status(rm->stream, row->id, "running", NULL);
    remote_job none = {0};
    if (!j || new_secret(j->secret)) {
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
        follow(rm, row, j, ctl, &o);
        finish(rm, row, j, &o, ctl);
    }
    ndem_store_end(rm->store, row->id);
    ndem_stream_end(rm->stream, row->id);
    free(j);
}
