/* report.c - `ndem run --report URL` (report.h). Every report is one POST
 * of a JSON object with the job's secret in X-Ndem-Job-Secret and the run
 * number ndemd gave at `start`; a transport failure or a 5xx answer is
 * tried again (ndemd may be restarting), anything else ends the run: a
 * 401, 404 or 409 means this run is no longer the job's (cancelled,
 * finished, or replaced by a newer run), and it must not go on writing. */
#include "report.h"

#include "base64.h"
#include "curl_dl.h"
#include "frame_motion.h"
#include "job.h"
#include "ndem.h"
#include "run.h"
#include "series.h"

#include <cjson/cJSON.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_SIM = 1, EXIT_JOB = 3, EXIT_IO = 4 };
#define SERIES_CHUNK (64 * 1024)
#define TRIES 6 /* about 30 s of waiting in all */

typedef struct reporter {
    const ndem_curl *api; /* libcurl, loaded for the run (curl_dl.h) */
    CURL *curl;
    const char *url;
    struct curl_slist *headers;
    long run;
    ndem_curl_answer answer;
    char *series;
    size_t series_len, series_cap;
    double progress_interval, checkpoint_interval, next_progress, next_checkpoint, t0;
    long frames, total;
    double next_frame; /* simulated time of the next frame, kept by the run loop */
    const volatile sig_atomic_t *stop;
    ndem_series_cols cols; /* the named geometry's series columns */
    const ndem_sim *sim;   /* the running simulation, for the rows' loads */
} reporter;

/* A double as C99 hex text ("0x1.999999999999ap-4"): exact, where cJSON's
 * printing of numbers may lose the last bit. */
static void add_exact(cJSON *o, const char *name, double v)
{
    char text[64];
    snprintf(text, sizeof text, "%a", v);
    cJSON_AddStringToObject(o, name, text);
}

static double get_exact(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? strtod(v->valuestring, NULL) : cJSON_GetNumberValue(v);
}

/* POSTs msg (taken) as report `type`; ndemd's answer, or NULL after
 * printing why. */
static cJSON *post(reporter *r, const char *type, cJSON *msg)
{
    cJSON_AddStringToObject(msg, "type", type);
    cJSON_AddNumberToObject(msg, "run", (double)r->run);
    char *body = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    if (!body) {
        fprintf(stderr, "ndem: report %s: out of memory\n", type);
        return NULL;
    }
    cJSON *answer = NULL;
    for (int i = 0; i < TRIES; i++) {
        if (i) sleep(1u << (i - 1));
        free(r->answer.text);
        r->answer = (ndem_curl_answer){0};
        long code;
        CURLcode rc = ndem_curl_call(r->api, r->curl, "POST", r->url, r->headers, body, 120L,
                                     &r->answer, &code);
        if (rc != CURLE_OK || code >= 500) {
            fprintf(stderr, "ndem: report %s to %s: %s (try %d of %d)\n", type, r->url,
                    rc != CURLE_OK   ? r->api->easy_strerror(rc)
                    : r->answer.text ? r->answer.text
                                     : "5xx",
                    i + 1, TRIES);
            continue;
        }
        if (code == 200) answer = cJSON_Parse(r->answer.text ? r->answer.text : "");
        if (!answer)
            fprintf(stderr, "ndem: report %s: ndemd answered %ld: %s\n", type, code,
                    r->answer.text ? r->answer.text : "");
        break;
    }
    free(body);
    return answer;
}

/* Sends a report whose answer is only a yes: 0, or -1. */
static int send_report(reporter *r, const char *type, cJSON *msg)
{
    cJSON *a = post(r, type, msg);
    cJSON_Delete(a);
    return a ? 0 : -1;
}

static int flush_series(reporter *r)
{
    if (!r->series_len) return 0;
    cJSON *m = cJSON_CreateObject();
    r->series[r->series_len] = 0;
    cJSON_AddStringToObject(m, "rows", r->series);
    r->series_len = 0;
    return send_report(r, "series", m);
}

static int send_frame(reporter *r, const ndem_sim *sim)
{
    ndem_frame f;
    if (flush_series(r) || ndem_sim_copy_motion(sim, &f)) return -1;
    size_t size = ndem_frame_motion_size(&f);
    unsigned char *buf = malloc(size ? size : 1);
    char *b64 = NULL;
    if (buf) {
        ndem_frame_motion_encode(&f, buf);
        b64 = ndem_base64_encode(buf, size);
    }
    free(buf);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "index", (double)r->frames);
    cJSON_AddNumberToObject(m, "step", (double)f.step);
    add_exact(m, "time", f.time);
    cJSON_AddNumberToObject(m, "count", (double)f.count);
    ndem_frame_free(&f);
    if (!b64) {
        cJSON_Delete(m);
        return -1;
    }
    cJSON_AddStringToObject(m, "motion", b64);
    free(b64);
    if (send_report(r, "frame", m)) return -1;
    r->frames++;
    return 0;
}

static int send_checkpoint(reporter *r, const ndem_sim *sim)
{
    void *buf = NULL;
    size_t len = 0;
    if (flush_series(r) || ndem_sim_checkpoint(sim, &buf, &len)) return -1;
    char *b64 = ndem_base64_encode(buf, len);
    free(buf);
    if (!b64) return -1;
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "step", (double)ndem_sim_stats(sim)->step);
    cJSON_AddNumberToObject(m, "frames", (double)r->frames);
    add_exact(m, "next_frame", r->next_frame);
    cJSON_AddStringToObject(m, "state", b64);
    free(b64);
    return send_report(r, "checkpoint", m);
}

static cJSON *progress_json(const reporter *r, const ndem_sim *sim)
{
    const ndem_step_stats *s = ndem_sim_stats(sim);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "step", (double)s->step);
    cJSON_AddNumberToObject(m, "steps_total", (double)r->total);
    cJSON_AddNumberToObject(m, "time", s->time);
    cJSON_AddNumberToObject(m, "particles", (double)s->particles);
    cJSON_AddNumberToObject(m, "contacts", (double)s->contacts);
    cJSON_AddNumberToObject(m, "kinetic_energy", s->kinetic_energy);
    cJSON_AddNumberToObject(m, "wall_seconds", omp_get_wtime() - r->t0);
    return m;
}

/* ---- the hooks of the shared run loop (api/run.h) ---- */
static int rep_stop(void *ctx) { return *((reporter *)ctx)->stop ? 1 : 0; }

static int rep_row(void *ctx, const ndem_step_stats *s)
{
    reporter *r = ctx;
    if (r->series_cap - r->series_len < 512) {
        size_t cap = r->series_cap ? r->series_cap * 2 : SERIES_CHUNK + 1024;
        char *grown = realloc(r->series, cap);
        if (!grown) return -1;
        r->series = grown;
        r->series_cap = cap;
    }
    if (r->sim) ndem_series_cols_sample(&r->cols, r->sim);
    int n =
        ndem_series_row(r->series + r->series_len, r->series_cap - r->series_len - 1, s, &r->cols);
    if (n > 0 && (size_t)n >= r->series_cap - r->series_len - 1) {
        /* more named geometry than the slack held: grow and write it again */
        size_t cap = r->series_len + (size_t)n + 1024;
        char *grown = realloc(r->series, cap);
        if (!grown) return -1;
        r->series = grown;
        r->series_cap = cap;
        n = ndem_series_row(r->series + r->series_len, r->series_cap - r->series_len - 1, s,
                            &r->cols);
    }
    if (n <= 0) return -1;
    r->series_len += (size_t)n;
    return r->series_len >= SERIES_CHUNK ? flush_series(r) : 0;
}

static int rep_frame(void *ctx, ndem_sim *sim) { return send_frame(ctx, sim); }

static int rep_tick(void *ctx, ndem_sim *sim)
{
    reporter *r = ctx;
    double now = omp_get_wtime();
    if (now >= r->next_progress) {
        r->next_progress = now + r->progress_interval;
        if (flush_series(r) || send_report(r, "progress", progress_json(r, sim))) return -1;
    }
    if (now >= r->next_checkpoint && ndem_sim_stats(sim)->step < r->total) {
        r->next_checkpoint = now + r->checkpoint_interval;
        if (send_checkpoint(r, sim)) return -1;
    }
    return 0;
}

/* The simulation from ndemd's checkpoint, or from zero (frame 0 sent). */
static ndem_sim *start_sim(reporter *r, const ndem_job *job, const cJSON *resume, char *err,
                           size_t err_len)
{
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(resume, "state");
    if (!cJSON_IsString(state)) {
        ndem_sim *sim = ndem_sim_create(&job->scene, err, err_len);
        if (sim && send_frame(r, sim)) {
            snprintf(err, err_len, "reporting frame 0 failed");
            ndem_sim_destroy(sim);
            return NULL;
        }
        return sim;
    }
    unsigned char *buf;
    size_t len;
    if (ndem_base64_decode(state->valuestring, strlen(state->valuestring), &buf, &len, err,
                           err_len))
        return NULL;
    ndem_sim *sim = ndem_sim_restore(&job->scene, buf, len, err, err_len);
    free(buf);
    r->frames = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(resume, "frames"));
    r->next_frame = get_exact(resume, "next_frame");
    if (sim)
        fprintf(stderr, "ndem: resuming from ndemd's checkpoint at step %ld\n",
                ndem_sim_stats(sim)->step);
    return sim;
}

static int end_report(reporter *r, const ndem_sim *sim, const char *status, const char *error)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "status", status);
    if (error) cJSON_AddStringToObject(m, "error", error);
    if (sim) cJSON_AddItemToObject(m, "progress", progress_json(r, sim));
    return send_report(r, "end", m);
}

/* Parses the document ndemd sent and runs it; the exit code. */
static int run_job(reporter *r, const cJSON *start, int threads)
{
    const cJSON *doc = cJSON_GetObjectItemCaseSensitive(start, "document");
    r->run = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(start, "run"));
    r->progress_interval =
        cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(start, "progress_interval"));
    r->checkpoint_interval =
        cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(start, "checkpoint_interval"));
    if (!cJSON_IsString(doc) || !(r->progress_interval > 0) || !(r->checkpoint_interval > 0)) {
        fprintf(stderr, "ndem: ndemd's start answer lacks the document or the intervals\n");
        return EXIT_IO;
    }
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    char err[512];
    if (ndem_job_parse(doc->valuestring, strlen(doc->valuestring), &job, &errs) != NDEM_JOB_OK) {
        snprintf(err, sizeof err, "the stored job document does not parse: %s",
                 errs.count ? errs.items[0].message : "?");
        ndem_job_errors_clear(&errs);
        end_report(r, NULL, "failed", err);
        fprintf(stderr, "ndem: %s\n", err);
        return EXIT_JOB;
    }
    if (threads > 0) job->scene.solver.threads = threads;
    r->next_frame = job->output.frame_interval;
    r->t0 = omp_get_wtime();
    r->next_checkpoint = r->t0 + r->checkpoint_interval;
    ndem_sim *sim =
        start_sim(r, job, cJSON_GetObjectItemCaseSensitive(start, "resume"), err, sizeof err);
    if (!sim) {
        fprintf(stderr, "ndem: %s\n", err);
        int rc = end_report(r, NULL, "failed", err) ? EXIT_IO : EXIT_SIM;
        ndem_job_destroy(job);
        return rc;
    }
    r->total = ndem_sim_total_steps(sim);
    if (ndem_series_cols_init(&r->cols, &job->scene)) {
        ndem_sim_destroy(sim);
        ndem_job_destroy(job);
        fprintf(stderr, "ndem: out of memory\n");
        return EXIT_IO;
    }
    r->sim = sim;
    ndem_run_hooks hooks = {r, rep_stop, rep_row, rep_frame, rep_tick};
    int end = ndem_run_loop(sim, job->scene.solver.time_step, job->output.frame_interval,
                            &r->next_frame, &hooks);
    int rc = 0;
    if (end == NDEM_RUN_HOOK) {
        rc = EXIT_IO; /* ndemd is gone or no longer takes this run: nothing more to say */
    } else if (end == NDEM_RUN_ENGINE) {
        const char *why = ndem_sim_error(sim);
        why = why && why[0] ? why : "the engine gave no reason";
        if (strstr(why, "step")) snprintf(err, sizeof err, "%s", why);
        else snprintf(err, sizeof err, "%s (step %ld)", why, ndem_sim_stats(sim)->step + 1);
        rc = flush_series(r) || end_report(r, sim, "failed", err) ? EXIT_IO : EXIT_SIM;
    } else if (end > 0) { /* a signal: checkpoint, so the next run loses nothing */
        int sig = *r->stop;
        rc = flush_series(r) || send_checkpoint(r, sim) || end_report(r, sim, "stopped", NULL)
                 ? EXIT_IO
                 : 128 + sig;
        fprintf(stderr, "ndem: stopped by signal %d at step %ld\n", sig, ndem_sim_stats(sim)->step);
    } else {
        rc = flush_series(r) || end_report(r, sim, "succeeded", NULL) ? EXIT_IO : 0;
    }
    r->sim = NULL;
    ndem_series_cols_free(&r->cols);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return rc;
}

int ndem_report_run(const char *url, const char *secret, int threads,
                    const volatile sig_atomic_t *stop)
{
    if (!secret || !secret[0]) {
        fprintf(stderr, "ndem: --report needs the job's secret in NDEM_REPORT_SECRET\n");
        return 2;
    }
    ndem_curl api;
    char err[512];
    if (ndem_curl_load(&api, err, sizeof err)) {
        fprintf(stderr, "ndem: %s\n", err);
        return EXIT_IO;
    }
    if (api.global_init(CURL_GLOBAL_DEFAULT)) {
        ndem_curl_unload(&api);
        return EXIT_IO;
    }
    reporter r = {.api = &api, .url = url, .stop = stop};
    char header[256];
    snprintf(header, sizeof header, "X-Ndem-Job-Secret: %s", secret);
    r.curl = api.easy_init();
    r.headers = api.slist_append(NULL, "Content-Type: application/json");
    r.headers = api.slist_append(r.headers, header);
    int rc = EXIT_IO;
    if (r.curl && r.headers) {
        cJSON *start = post(&r, "start", cJSON_CreateObject());
        if (start) rc = run_job(&r, start, threads);
        cJSON_Delete(start);
    }
    api.slist_free_all(r.headers);
    if (r.curl) api.easy_cleanup(r.curl);
    api.global_cleanup();
    ndem_curl_unload(&api);
    free(r.answer.text);
    free(r.series);
    return rc;
}
