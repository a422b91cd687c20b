/* remote_report.c - the reports of a job's Slurm run (remote.h): POST
 * /internal/v1/jobs/{id}/report, one JSON object each, authenticated by the
 * job's own secret (compared in constant time), never by a user's
 * credentials. Each type is a row of a table. A report is taken only while
 * the job is registered (between its claim and its end), and only from the
 * newest run: each `start` begins a new run number and the older run's
 * later reports get 409, so a run that Slurm has replaced cannot write.
 * What a report carries goes through the same store and stream as a local
 * worker's output: frames as base64 of their motion in full precision
 * (api/frame_motion.h), checkpoints as base64 of the engine's state, series
 * rows as text with their CRCs, all checked first. */
#include "remote_priv.h"

#include "base64.h"
#include "frame_motion.h"
#include "job.h"
#include "log.h"
#include "publish.h"
#include "series.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct report {
    ndem_remote *rm;
    remote_job *j;
    const cJSON *msg;
    cJSON *reply;
    char *why;
    size_t why_len;
} report;

static int fail(report *r, int status, const char *fmt, const char *arg)
{
    snprintf(r->why, r->why_len, fmt, arg);
    return status;
}

static double number(const cJSON *o, const char *name, double def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : def;
}

/* A double sent as C99 hex text ("%a"), exact where a JSON number printed
 * by cJSON may lose the last bit (a frame's time, the next frame's). */
static double exact(const cJSON *o, const char *name, double def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsString(v)) return def;
    char *end;
    double d = strtod(v->valuestring, &end);
    return end != v->valuestring && !*end && isfinite(d) ? d : def;
}

static void add_exact(cJSON *o, const char *name, double v)
{
    char hex[64];
    snprintf(hex, sizeof hex, "%a", v);
    cJSON_AddStringToObject(o, name, hex);
}

static const char *text(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* base64 field `name` of the report, decoded (malloc'd). */
static int binary(report *r, const char *name, unsigned char **buf, size_t *len)
{
    const char *b64 = text(r->msg, name);
    char err[200];
    if (!b64) return fail(r, 422, "/%s: missing (base64 text)", name);
    if (ndem_base64_decode(b64, strlen(b64), buf, len, err, sizeof err)) {
        snprintf(r->why, r->why_len, "/%s: %s", name, err);
        return 422;
    }
    return 0;
}

/* A new run: cut the files back to the newest sound checkpoint (or to
 * nothing) and tell the run where to begin. */
/* series.csv's header for a job's document: its named geometry's columns
 * as the node's `ndem run --report` writes its rows (malloc'd; NULL when the
 * document does not parse or memory ran out). */
static char *series_header(const char *document)
{
    ndem_job *job = NULL;
    if (ndem_job_parse(document, strlen(document), &job, NULL) != NDEM_JOB_OK) return NULL;
    ndem_series_cols cols;
    char *header = ndem_series_cols_init(&cols, &job->scene) ? NULL : ndem_series_header_of(&cols);
    ndem_series_cols_free(&cols);
    ndem_job_destroy(job);
    return header;
}

static int on_start(report *r)
{
    ndem_remote *rm = r->rm;
    remote_job *j = r->j;
    j->run++;
    j->ended = 0;
    if (j->run > 1) j->wall_before = j->last.wall_seconds;
    /* a restarted ndemd must know this run (its reports name it) */
    j->sj.run = j->run;
    j->sj.wall_before = j->wall_before;
    ndem_remote_save(rm, j);
    ndem_remote_set_state(rm, j, "RUNNING", "None"); /* whatever Slurm said last */
    ndem_store_flush(rm->store, j->id);              /* the last run's writes, all on disk */
    ndem_resume res;
    void *state = NULL;
    size_t len = 0;
    cJSON *resume = cJSON_CreateNull();
    if (ndem_store_load_checkpoint(rm->store, j->id, &res, &state, &len) == 0 &&
        ndem_store_rewind(rm->store, j->id, &res) == 0) {
        char *b64 = ndem_base64_encode(state, len);
        if (b64) {
            cJSON_Delete(resume);
            resume = cJSON_CreateObject();
            cJSON_AddNumberToObject(resume, "step", (double)res.step);
            cJSON_AddNumberToObject(resume, "frames", (double)res.frames);
            add_exact(resume, "next_frame", res.next_frame);
            cJSON_AddStringToObject(resume, "state", b64);
            free(b64);
            j->frames = res.frames;
            ndem_log("job %s: run %ld resumes from its checkpoint at step %ld", j->id, j->run,
                     res.step);
        }
    }
    free(state);
    if (cJSON_IsNull(resume)) {
        char *header = series_header(j->document);
        int reset = header ? ndem_store_reset(rm->store, j->id, header) : -1;
        free(header);
        if (reset) {
            cJSON_Delete(resume);
            return fail(r, 500, "cannot create the job's directory%s", "");
        }
        j->frames = 0;
    }
    cJSON_AddNumberToObject(r->reply, "run", (double)j->run);
    cJSON_AddStringToObject(r->reply, "document", j->document);
    cJSON_AddNumberToObject(r->reply, "progress_interval", rm->cfg->progress_interval);
    cJSON_AddNumberToObject(r->reply, "checkpoint_interval", rm->cfg->checkpoint_interval);
    cJSON_AddItemToObject(r->reply, "resume", resume);
    return 200;
}

static int on_frame(report *r)
{
    long index = (long)number(r->msg, "index", -1);
    ndem_frame f = {.step = (long)number(r->msg, "step", -1),
                    .time = exact(r->msg, "time", -1),
                    .count = (long)number(r->msg, "count", -1)};
    if (index < 0 || f.step < 0 || f.time < 0 || f.count < 0)
        return fail(r, 422, "/index, /step, /time, /count: %s", "wanted, not negative");
    if (index != r->j->frames) {
        snprintf(r->why, r->why_len, "/index: frame %ld, but frame %ld is next", index,
                 r->j->frames);
        return 409;
    }
    unsigned char *buf;
    size_t len;
    int rc = binary(r, "motion", &buf, &len);
    if (rc) return rc;
    rc = ndem_frame_motion_decode(buf, len, &f);
    free(buf);
    if (rc)
        return fail(r, 422, "/motion: %s",
                    "not 10 doubles a particle (then materials and geometry poses)");
    ndem_stream_frame(r->rm->stream, r->j->id, &f, index);
    ndem_store_frame(r->rm->store, r->j->id, index, &f); /* takes f */
    r->j->frames++;
    return 200;
}

static int on_series(report *r)
{
    const char *rows = text(r->msg, "rows");
    if (!rows) return fail(r, 422, "/rows: missing (text)%s", "");
    size_t len = strlen(rows);
    for (const char *p = rows; p < rows + len;) {
        const char *nl = memchr(p, '\n', (size_t)(rows + len - p));
        if (!nl || ndem_series_check_row(p, (size_t)(nl - p))) {
            snprintf(r->why, r->why_len, "/rows: row at offset %ld %s", (long)(p - rows),
                     nl ? "does not match its CRC" : "has no newline");
            return 422;
        }
        p = nl + 1;
    }
    char *copy = malloc(len ? len : 1);
    if (!copy) return fail(r, 500, "out of memory%s", "");
    memcpy(copy, rows, len);
    ndem_store_series(r->rm->store, r->j->id, copy, len); /* takes copy */
    return 200;
}

static int on_checkpoint(report *r)
{
    long frames = (long)number(r->msg, "frames", -1);
    ndem_resume res = {(long)number(r->msg, "step", -1), frames, exact(r->msg, "next_frame", -1),
                       0};
    if (res.step < 0 || res.next_frame < 0)
        return fail(r, 422, "/step, /next_frame: %s", "missing");
    if (frames != r->j->frames) {
        snprintf(r->why, r->why_len, "/frames: %ld, but %ld frames were reported", frames,
                 r->j->frames);
        return 409;
    }
    unsigned char *state;
    size_t len;
    int rc = binary(r, "state", &state, &len);
    if (rc) return rc;
    ndem_store_checkpoint(r->rm->store, r->j->id, &res, state, len); /* takes state */
    return 200;
}

static ndem_progress progress_of(const report *r, const cJSON *o)
{
    ndem_progress p = {(long)number(o, "step", 0),
                       (long)number(o, "steps_total", 0),
                       number(o, "time", 0),
                       (long)number(o, "particles", 0),
                       (long)number(o, "contacts", 0),
                       number(o, "kinetic_energy", 0),
                       r->j->wall_before + number(o, "wall_seconds", 0)};
    return p;
}

static int on_progress(report *r)
{
    ndem_progress p = progress_of(r, r->msg);
    r->j->last = p;
    ndem_store_progress(r->rm->store, r->j->id, &p);
    ndem_publish_progress(r->rm->stream, r->j->id, r->j->duration, &p, NULL);
    return 200;
}

static int on_end(report *r)
{
    const char *status = text(r->msg, "status"), *error = text(r->msg, "error");
    if (!status ||
        (strcmp(status, "succeeded") && strcmp(status, "failed") && strcmp(status, "stopped")))
        return fail(r, 422, "/status: wants succeeded, failed or stopped%s", "");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(r->msg, "progress");
    if (cJSON_IsObject(p)) r->j->last = progress_of(r, p);
    snprintf(r->j->end_status, sizeof r->j->end_status, "%s", status);
    snprintf(r->j->end_error, sizeof r->j->end_error, "%s", error ? error : "");
    r->j->ended = 1;
    pthread_cond_broadcast(&r->rm->changed);
    return 200;
}

static const struct {
    const char *type;
    int (*take)(report *r);
} types[] = {
    {"start", on_start},           {"frame", on_frame},       {"series", on_series},
    {"checkpoint", on_checkpoint}, {"progress", on_progress}, {"end", on_end},
};

/* Equal secrets, in a time that does not depend on where they differ. */
static int same_secret(const char *a, const char *b)
{
    if (!b || strlen(b) != NDEM_SECRET_LEN) return 0;
    unsigned char d = 0;
    for (size_t i = 0; i < NDEM_SECRET_LEN; i++) d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

/* A job with a Slurm job of its own that no worker follows yet: a task of
 * a sweep's array waiting for a worker, or a job left running in Slurm
 * across ndemd's restart. Its run is told to wait, not to stop. */
static int waiting(ndem_remote *rm, const char *id, const char *secret)
{
    ndem_slurm_job sj;
    return ndem_slurm_job_load(rm->cfg->data, id, &sj) == 0 && sj.secret[0] &&
           same_secret(sj.secret, secret);
}

int ndem_remote_report(ndem_remote *rm, const char *id, const char *secret, const char *body,
                       size_t len, char **reply, char *why, size_t why_len)
{
    *reply = NULL;
    cJSON *msg = cJSON_ParseWithLength(body, len);
    const char *type = msg ? text(msg, "type") : NULL;
    int status = 0;
    pthread_mutex_lock(&rm->lock);
    remote_job *j = rm->jobs;
    while (j && strcmp(j->id, id)) j = j->next;
    if (!j && waiting(rm, id, secret)) {
        status = 503; /* the node's ndem tries again */
        snprintf(why, why_len, "job %s waits for a worker of this daemon; try again", id);
    } else if (!j) {
        status = 404;
        snprintf(why, why_len, "job %s is not running in Slurm here", id);
    } else if (!same_secret(j->sj.secret, secret)) {
        status = 401;
        snprintf(why, why_len, "X-Ndem-Job-Secret is missing or not this job's");
    } else if (!msg || !cJSON_IsObject(msg)) {
        status = 400;
        snprintf(why, why_len, "the report is not a JSON object");
    } else if (!type) {
        status = 422;
        snprintf(why, why_len, "/type: missing");
    } else if (strcmp(type, "start") && (long)number(msg, "run", -1) != j->run) {
        status = 409;
        snprintf(why, why_len, "/run: run %ld of this job was started since; this one stops",
                 j->run);
    }
    if (!status) {
        report r = {rm, j, msg, cJSON_CreateObject(), why, why_len};
        status = 422;
        snprintf(why, why_len, "/type: unknown report type '%.40s'", type);
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
            if (!strcmp(types[i].type, type)) status = types[i].take(&r);
        if (status == 200) {
            if (j->last_seen) atomic_store(j->last_seen, ndem_mono());
            *reply = cJSON_PrintUnformatted(r.reply);
            if (!*reply) status = 500, snprintf(why, why_len, "out of memory");
        }
        cJSON_Delete(r.reply);
    }
    pthread_mutex_unlock(&rm->lock);
    cJSON_Delete(msg);
    return status;
}
