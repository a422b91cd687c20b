/* slurm_rest.c - Slurm through slurmrestd's REST API (--slurm-rest; the
 * backend table of slurm_priv.h), version v0.0.38 of Slurm 22.05: POST
 * /job/submit, GET /job/{id}, DELETE /job/{id}, over libcurl. Every request
 * names the Slurm user (X-SLURM-USER-NAME) and carries its JWT
 * (X-SLURM-USER-TOKEN), read from --slurm-token-file at each request (a
 * token is renewed by rewriting the file) or from $SLURM_JWT. The job gets
 * ndemd's environment (less its private variables) like sbatch
 * --export=ALL, and runs in /tmp: nothing of ndemd's own directory need
 * exist on the compute node. */
#include "slurm_priv.h"

#include "curl_call.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

#define API "/slurm/v0.0.38"
#define TIMEOUT 60L /* seconds, as for the commands */

/* libcurl as linked, in the table of curl_call.h */
static const ndem_curl linked = {
    NULL,
    curl_global_init,
    curl_global_cleanup,
    curl_easy_init,
    curl_easy_cleanup,
    curl_easy_setopt,
    curl_easy_perform,
    curl_easy_getinfo,
    curl_easy_strerror,
    curl_slist_append,
    curl_slist_free_all,
};

/* The JWT: the file's content (as `scontrol token` prints it, with or
 * without "SLURM_JWT="), or $SLURM_JWT. 0, or -1 with err. */
static int token(const ndem_config *c, char *out, size_t len, char *err, size_t err_len)
{
    out[0] = 0;
    if (c->slurm_token_file[0]) {
        FILE *f = fopen(c->slurm_token_file, "r");
        if (!f || !fgets(out, (int)len, f)) out[0] = 0;
        if (f) fclose(f);
        if (!strncmp(out, "SLURM_JWT=", 10)) memmove(out, out + 10, strlen(out + 10) + 1);
        out[strcspn(out, "\r\n ")] = 0;
    } else if (getenv("SLURM_JWT")) {
        snprintf(out, len, "%s", getenv("SLURM_JWT"));
    }
    if (out[0]) return 0;
    snprintf(err, err_len, "no JWT for slurmrestd in %s",
             c->slurm_token_file[0] ? c->slurm_token_file : "$SLURM_JWT");
    return -1;
}

static void user_name(const ndem_config *c, char *out, size_t len)
{
    struct passwd pw, *found = NULL;
    char buf[1024];
    if (c->slurm_user[0]) snprintf(out, len, "%s", c->slurm_user);
    else if (!getpwuid_r(geteuid(), &pw, buf, sizeof buf, &found) && found)
        snprintf(out, len, "%s", pw.pw_name);
    else snprintf(out, len, "%ld", (long)geteuid());
}

/* Slurm's words in an answer's "errors", or "" when there are none. */
static void errors_of(const cJSON *o, char *out, size_t len)
{
    out[0] = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "errors"))
    {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "description");
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(e, "error");
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%s%s%s", n ? "; " : "",
                 cJSON_IsString(w) ? w->valuestring : "error",
                 cJSON_IsString(d) && d->valuestring[0] ? ": " : "",
                 cJSON_IsString(d) ? d->valuestring : "");
    }
}

/* One request; *out is the parsed answer (whatever the status), NULL with
 * err when there is none. The HTTP status, or -1. */
static long request(const ndem_config *c, const char *method, const char *path, const char *body,
                    cJSON **out, char *err, size_t err_len)
{
    char jwt[4096], user[128], url[700], h_user[200], h_token[4200];
    *out = NULL;
    if (token(c, jwt, sizeof jwt, err, err_len)) return -1;
    user_name(c, user, sizeof user);
    size_t n = strlen(c->slurm_rest);
    while (n > 0 && c->slurm_rest[n - 1] == '/') n--;
    snprintf(url, sizeof url, "%.*s%s%s", (int)n, c->slurm_rest, API, path);
    snprintf(h_user, sizeof h_user, "X-SLURM-USER-NAME: %s", user);
    snprintf(h_token, sizeof h_token, "X-SLURM-USER-TOKEN: %s", jwt);
    CURL *curl = curl_easy_init();
    struct curl_slist *h = NULL, *h2;
    ndem_curl_answer a = {NULL, 0, 8u << 20}; /* a job record is kilobytes */
    long code = -1;
    if (!curl) {
        snprintf(err, err_len, "cannot start an HTTP request");
        return -1;
    }
    h = curl_slist_append(h, "Content-Type: application/json");
    if (h && (h2 = curl_slist_append(h, h_user))) h = h2;
    if (h && (h2 = curl_slist_append(h, h_token))) h = h2;
    CURLcode rc = ndem_curl_call(&linked, curl, method, url, h, body, TIMEOUT, &a, &code);
    if (rc != CURLE_OK) {
        snprintf(err, err_len, "slurmrestd %s %s: %s", method, url, curl_easy_strerror(rc));
    } else {
        *out = a.text ? cJSON_Parse(a.text) : NULL;
        if (!*out)
            snprintf(err, err_len, "slurmrestd %s %s answered %ld: %.200s", method, url, code,
                     a.text ? a.text : "(nothing)");
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(curl);
    free(a.text);
    return *out ? code : -1;
}

/* sbatch --time's forms (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S) in whole
 * minutes, rounded up; -1 when text is none of them. */
static long minutes_of(const char *text)
{
    long v[4] = {0}, days = 0;
    int k = 0;
    const char *p = text, *dash = strchr(text, '-');
    char *end;
    if (dash) {
        days = strtol(text, &end, 10);
        if (end != dash) return -1;
        p = dash + 1;
    }
    for (; k < 3; k++) {
        v[k] = strtol(p, &end, 10);
        if (end == p || v[k] < 0) return -1;
        if (!*end) break;
        if (*end != ':') return -1;
        p = end + 1;
    }
    if (k == 3) return -1;
    long seconds;
    if (dash) seconds = ((days * 24 + v[0]) * 60 + (k >= 1 ? v[1] : 0)) * 60 + (k >= 2 ? v[2] : 0);
    else if (k == 0) seconds = v[0] * 60;
    else if (k == 1) seconds = v[0] * 60 + v[1];
    else seconds = (v[0] * 60 + v[1]) * 60 + v[2];
    return (seconds + 59) / 60;
}

static int rest_submit(const ndem_config *c, const ndem_slurm_submission *s, char *slurm_id,
                       size_t slurm_id_len, char *err, size_t err_len)
{
    cJSON *req = cJSON_CreateObject(), *job = cJSON_AddObjectToObject(req, "job");
    size_t len = strlen(s->command) + 32;
    char *script = malloc(len), output[1200];
    if (!script) {
        cJSON_Delete(req);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    snprintf(script, len, "#!/bin/sh\n%s\n", s->command);
    cJSON_AddStringToObject(req, "script", script);
    free(script);
    cJSON_AddStringToObject(job, "name", s->name);
    cJSON_AddStringToObject(job, "current_working_directory", "/tmp");
    ndem_slurm_output(c, s->array != NULL, output, sizeof output);
    cJSON_AddStringToObject(job, "standard_output", output);
    cJSON_AddBoolToObject(job, "requeue", 1); /* a node failure puts it back in Slurm's queue */
    if (s->array) cJSON_AddStringToObject(job, "array", s->array);
    if (c->slurm_partition[0]) cJSON_AddStringToObject(job, "partition", c->slurm_partition);
    long minutes = c->slurm_time[0] ? minutes_of(c->slurm_time) : -1;
    if (minutes > 0) cJSON_AddNumberToObject(job, "time_limit", (double)minutes);
    if (c->threads > 0) cJSON_AddNumberToObject(job, "cpus_per_task", (double)c->threads);
    /* what sbatch --export=ALL would pass, then the job's own variables */
    cJSON *env = cJSON_AddObjectToObject(job, "environment");
    for (int pass = 0; pass < 2; pass++)
        for (char *const *e = pass ? s->env : environ; *e; e++) {
            const char *eq = strchr(*e, '=');
            if (!eq || (!pass && ndem_slurm_private_var(*e))) continue;
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
            cJSON_DeleteItemFromObjectCaseSensitive(env, name);
            cJSON_AddStringToObject(env, name, eq + 1);
        }
    char *body = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    cJSON *a = NULL;
    long code = body ? request(c, "POST", "/job/submit", body, &a, err, err_len) : -1;
    free(body);
    if (code < 0) return -1;
    char words[600];
    errors_of(a, words, sizeof words);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(a, "job_id");
    int rc = code == 200 && !words[0] && cJSON_IsNumber(id) && id->valuedouble > 0 ? 0 : -1;
    if (rc)
        snprintf(err, err_len, "slurmrestd job/submit (%ld): %s", code,
                 words[0] ? words : "no job_id");
    else snprintf(slurm_id, slurm_id_len, "%ld", (long)id->valuedouble);
    cJSON_Delete(a);
    return rc;
}

static const char *text_of(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static long number_of(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
}

/* GET /job/{id} of an array's task answers every record of the array:
 * the task's own once it runs, else the array's pending one. */
static const cJSON *record_of(const cJSON *jobs, const char *slurm_id)
{
    const char *us = strchr(slurm_id, '_');
    long id = strtol(slurm_id, NULL, 10), task = us ? strtol(us + 1, NULL, 10) : -1;
    const cJSON *r, *pending = NULL;
    cJSON_ArrayForEach(r, jobs)
    {
        if (!us && number_of(r, "job_id") == id) return r;
        if (us && number_of(r, "array_job_id") == id && number_of(r, "array_task_id") == task)
            return r;
        if (us && number_of(r, "job_id") == id) pending = r; /* the array's meta record */
    }
    return pending;
}

static int rest_query(const ndem_config *c, const char *slurm_id, ndem_slurm_state *st, char *err,
                      size_t err_len)
{
    char path[96], words[600];
    snprintf(path, sizeof path, "/job/%s", slurm_id);
    cJSON *a = NULL;
    long code = request(c, "GET", path, NULL, &a, err, err_len);
    if (code < 0) return -1;
    errors_of(a, words, sizeof words);
    const cJSON *r = record_of(cJSON_GetObjectItemCaseSensitive(a, "jobs"), slurm_id);
    int rc = 0;
    if (strstr(words, "Invalid job id")) {
        snprintf(st->state, sizeof st->state, "GONE");
        st->cls = NDEM_SLURM_GONE;
    } else if (!r) {
        snprintf(err, err_len, "slurmrestd job/%s (%ld): %s", slurm_id, code,
                 words[0] ? words : "no record of the job");
        rc = -1;
    } else {
        snprintf(st->state, sizeof st->state, "%s", text_of(r, "job_state"));
        snprintf(st->reason, sizeof st->reason, "%s", text_of(r, "state_reason"));
        long status = number_of(r, "exit_code"); /* a wait status, as scontrol's "4:0" */
        if (status >= 0)
            snprintf(st->exit_code, sizeof st->exit_code, "%ld:%ld", (status >> 8) & 0xff,
                     status & 0x7f);
    }
    cJSON_Delete(a);
    return rc;
}

static int rest_cancel(const ndem_config *c, const char *slurm_id, char *err, size_t err_len)
{
    char path[96], words[600];
    snprintf(path, sizeof path, "/job/%s", slurm_id); /* SIGKILL: scancel's own default */
    cJSON *a = NULL;
    long code = request(c, "DELETE", path, NULL, &a, err, err_len);
    if (code < 0) return -1;
    errors_of(a, words, sizeof words);
    cJSON_Delete(a);
    if (code == 200 && !words[0]) return 0;
    snprintf(err, err_len, "slurmrestd DELETE job/%s (%ld): %s", slurm_id, code,
             words[0] ? words : "refused");
    return -1;
}

const ndem_slurm_backend ndem_slurm_rest_backend = {"slurmrestd", rest_submit, rest_query,
                                                    rest_cancel};
