/* resource.c - the job resource (docs/api.md, "The job resource"), built from a
 * row of the jobs table in one place, so that GET /jobs/{id}, the listing,
 * POST's answer and the stream's hello show the same thing. Timestamps are
 * RFC 3339 in UTC, null until they happen; links.stream is absolute
 * (ws://host:port/...) because it is on another port than the API: its
 * host is that of --public-url (or --listen), never the request's Host
 * header, which a DNS-rebinding page controls. */
#include "app.h"

#include "frame_bin.h"
#include "jobdir.h"
#include "log.h"
#include "routes.h"
#include "slurm_job.h"
#include "job_shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_time(cJSON *o, const char *key, int64_t us)
{
    char buf[40];
    if (us > 0) cJSON_AddStringToObject(o, key, ndem_rfc3339(us, buf, sizeof buf));
    else cJSON_AddNullToObject(o, key);
}

cJSON *ndem_resource(const ndem_app *app, const ndem_job_row *row)
{
    cJSON *o = cJSON_CreateObject();
    /* the Slurm job that runs it (--executor slurm), as last seen; the
     * status is the database's, where a job Slurm holds PENDING is still
     * queued (db.h), as lists and counts see it */
    ndem_slurm_job sj;
    int in_slurm = ndem_slurm_job_load(app->cfg.data, row->id, &sj) == 0 && sj.job_id[0];
    cJSON_AddStringToObject(o, "id", row->id);
    cJSON_AddStringToObject(o, "name", row->name);
    ndem_add_owner(o, row->owner);
    cJSON_AddStringToObject(o, "status", row->status);
    add_time(o, "created_at", row->created_us);
    add_time(o, "started_at", row->started_us);
    add_time(o, "finished_at", row->finished_us);
    cJSON *p = cJSON_AddObjectToObject(o, "progress");
    cJSON_AddNumberToObject(p, "step", (double)row->step);
    cJSON_AddNumberToObject(p, "steps_total", (double)row->steps_total);
    cJSON_AddNumberToObject(p, "time", row->time);
    cJSON_AddNumberToObject(p, "duration", row->duration);
    double fraction = !strcmp(row->status, "succeeded") ? 1.0
                      : row->steps_total > 0 ? (double)row->step / (double)row->steps_total
                                             : 0.0;
    cJSON_AddNumberToObject(p, "fraction", fraction);
    cJSON *s = cJSON_AddObjectToObject(o, "stats");
    cJSON_AddNumberToObject(s, "particles", (double)row->particles);
    cJSON_AddNumberToObject(s, "contacts", (double)row->contacts);
    cJSON_AddNumberToObject(s, "kinetic_energy", row->kinetic_energy);
    cJSON_AddNumberToObject(s, "wall_seconds", row->wall_seconds);
    cJSON_AddNumberToObject(o, "attempts", (double)row->attempts);
    cJSON_AddItemToObject(o, "executor", in_slurm ? ndem_slurm_job_json(&sj) : cJSON_CreateNull());
    if (row->error) cJSON_AddStringToObject(o, "error", row->error);
    else cJSON_AddNullToObject(o, "error");
    /* what the parser changed but did not refuse, kept beside the job */
    cJSON *w = row->warnings ? cJSON_Parse(row->warnings) : NULL;
    cJSON_AddItemToObject(o, "warnings", w ? w : ndem_jobdir_warnings(app->cfg.data, row->id));
    /* the sweep it belongs to: its id, its place and the values it took */
    if (row->sweep[0]) {
        cJSON *sw = cJSON_AddObjectToObject(o, "sweep");
        cJSON_AddStringToObject(sw, "id", row->sweep);
        cJSON_AddNumberToObject(sw, "index", row->sweep_index);
        cJSON *values = cJSON_Parse(row->sweep_values ? row->sweep_values : "[]");
        cJSON_AddItemToObject(sw, "values", values ? values : cJSON_CreateArray());
    } else {
        cJSON_AddNullToObject(o, "sweep");
    }
    cJSON *doc = row->document ? cJSON_Parse(row->document) : NULL;
    /* the templates a frame's `shapes` index (docs/shapes.md, "Output") */
    cJSON *shapes = doc ? ndem_job_shape_list(doc) : NULL;
    cJSON_AddItemToObject(o, "shapes", shapes ? shapes : cJSON_CreateArray());
    if (doc) cJSON_AddItemToObject(o, "job", doc);
    else cJSON_AddNullToObject(o, "job");
    char base[64], ws[400];
    snprintf(base, sizeof base, "/api/v1/jobs/%s", row->id);
    cJSON *l = cJSON_AddObjectToObject(o, "links");
    cJSON_AddStringToObject(l, "self", base);
    snprintf(ws, sizeof ws, "%s/frames", base);
    cJSON_AddStringToObject(l, "frames", ws);
    snprintf(ws, sizeof ws, "%s/series", base);
    cJSON_AddStringToObject(l, "series", ws);
    snprintf(ws, sizeof ws, "%s://%s:%d%s/stream", app->cfg.public_tls ? "wss" : "ws",
             app->cfg.public_host, app->stream ? ndem_stream_port(app->stream) : app->cfg.ws_port,
             base);
    cJSON_AddStringToObject(l, "stream", ws);
    return o;
}

int ndem_resource_may_stream(void *ctx, const char *id, const char *token)
{
    ndem_app *app = ctx;
    if (!app->cfg.auth) return 0;
    char owner[65] = "";
    ndem_caller who = {owner, 0};
    int rc = token ? ndem_auth_check(app->auth, token, owner, &who.admin) : 1;
    if (rc) return rc < 0 ? 500 : 401;
    ndem_job_row row;
    ndem_problem p = {0};
    if (ndem_jobs_get(app, &who, id, &row, &p)) return p.status; /* 404 another owner's */
    ndem_job_row_free(&row);
    return 0;
}

char *ndem_resource_describe(void *ctx, const char *id)
{
    ndem_app *app = ctx;
    ndem_job_row row;
    if (ndem_db_get(app->db, id, &row)) return NULL;
    cJSON *o = ndem_resource(app, &row);
    ndem_job_row_free(&row);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

void *ndem_resource_latest_frame(void *ctx, const char *id, size_t *len)
{
    ndem_app *app = ctx;
    ndem_frame_row fr;
    void *file = NULL, *out = NULL;
    size_t flen = 0;
    if (ndem_db_frame(app->db, id, -1, &fr) ||
        ndem_store_read_frame(app->store, id, fr.index, &file, &flen))
        return NULL;
    ndem_frame f;
    long index;
    if (ndem_store_decode_frame(file, flen, &f, &index) == 0) {
        *len = ndem_frame_bin_size(&f, NDEM_FRAME_STREAM);
        out = malloc(*len);
        if (out) ndem_frame_bin_encode(&f, index, NDEM_FRAME_STREAM, out);
        ndem_frame_free(&f);
    }
    free(file);
    return out;
}
