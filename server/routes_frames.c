/* routes_frames.c - a job's frames: the list, and one frame as JSON, as the
 * stored NDF1 record, or exported for other programs (?format=vtp, csv;
 * api/frame_export.c). The formats are a table: name, media type, writer. */
#include "routes.h"

#include "frame_export.h"
#include "frame_json.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void ndem_list_frames(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_job_row row;
    if (ndem_load_job(app, req, &row)) return;
    ndem_job_row_free(&row);
    ndem_frame_row *frames;
    long n;
    if (ndem_db_frames(app->db, row.id, &frames, &n)) {
        free(frames);
        ndem_http_problem(req, 500, NULL, "the job database failed");
        return;
    }
    cJSON *o = cJSON_CreateObject(), *list = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "job", row.id);
    cJSON_AddNumberToObject(o, "count", (double)n);
    for (long i = 0; i < n; i++) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddNumberToObject(f, "index", (double)frames[i].index);
        cJSON_AddNumberToObject(f, "step", (double)frames[i].step);
        cJSON_AddNumberToObject(f, "time", frames[i].time);
        cJSON_AddNumberToObject(f, "particles", (double)frames[i].particles);
        cJSON_AddItemToArray(list, f);
    }
    cJSON_AddItemToObject(o, "frames", list);
    free(frames);
    ndem_reply_json(req, 200, o);
}

/* ?format= of a frame: its media type and writer (NULL: the stored NDF1
 * bytes); names are the geometry's names (the JSON frame's "name"). */
static char *write_json(const ndem_frame *f, long index, const char *const *names, size_t *len)
{
    char *text = ndem_frame_to_json(f, index, names);
    *len = text ? strlen(text) : 0;
    return text;
}

static char *write_vtp(const ndem_frame *f, long index, const char *const *names, size_t *len)
{
    return ndem_frame_to_vtp(f, index, len);
}

static char *write_csv(const ndem_frame *f, long index, const char *const *names, size_t *len)
{
    return ndem_frame_to_csv(f, len);
}

typedef struct frame_format {
    const char *name, *type;
    char *(*write)(const ndem_frame *f, long index, const char *const *names, size_t *len);
} frame_format;

static const frame_format frame_formats[] = {
    {"json", "application/json", write_json},
    {"ndf", "application/octet-stream", NULL},
    {"vtp", "application/xml", write_vtp},
    {"csv", "text/csv", write_csv},
};

/* The names of the document's geometry, count entries (NULL: none), each
 * pointing into *doc (cJSON_Delete after use). */
static const char **geometry_names(const char *document, long count, cJSON **doc)
{
    *doc = document ? cJSON_Parse(document) : NULL;
    const char **names = calloc((size_t)count + 1, sizeof *names);
    const cJSON *geo = cJSON_GetObjectItem(cJSON_GetObjectItem(*doc, "scene"), "geometry");
    for (long g = 0; names && g < count; g++) {
        const cJSON *name = cJSON_GetObjectItem(cJSON_GetArrayItem(geo, (int)g), "name");
        names[g] = cJSON_IsString(name) ? name->valuestring : NULL;
    }
    return names;
}

void ndem_get_frame(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    /* ?format= wins; without it Accept: application/octet-stream asks for ndf */
    const char *format = ndem_http_query(req, "format");
    const frame_format *want = &frame_formats[ndem_accepts(req, "application/octet-stream")];
    if (format) {
        want = NULL;
        for (size_t i = 0; i < sizeof frame_formats / sizeof frame_formats[0]; i++)
            if (!strcmp(format, frame_formats[i].name)) want = &frame_formats[i];
        if (!want) {
            ndem_http_problem(req, 400, NULL, "format must be json, ndf, vtp or csv, not '%s'",
                              format);
            return;
        }
    }
    ndem_job_row row;
    if (ndem_load_job(app, req, &row)) return;
    const char *n_s = req->params[1];
    long n = -1;
    if (strcmp(n_s, "latest") && ndem_parse_long(n_s, 0, LONG_MAX, &n)) {
        ndem_http_problem(req, 404, NULL, "frame '%s': want a frame index or 'latest'", n_s);
        ndem_job_row_free(&row);
        return;
    }
    ndem_frame_row fr;
    if (ndem_db_frame(app->db, row.id, n, &fr)) {
        ndem_http_problem(req, 404, NULL, "job %s has no frame %s (yet)", row.id, n_s);
        ndem_job_row_free(&row);
        return;
    }
    void *buf;
    size_t len;
    int got = ndem_store_read_frame(app->store, row.id, fr.index, &buf, &len);
    if (got) {
        ndem_job_row_free(&row);
        /* never 200 with bytes that fail their checksum */
        ndem_http_problem(req, 500, NULL, "frame %ld is %s", fr.index,
                          got == -2 ? "damaged (its file fails its length or checksum check)"
                                    : "missing (its file is gone)");
        return;
    }
    const frame_format *ff = want;
    if (!ff->write) {
        ndem_job_row_free(&row);
        ndem_http_reply(req, 200, ff->type, buf, len);
        return;
    }
    ndem_frame f;
    long index;
    int rc = ndem_store_decode_frame(buf, len, &f, &index);
    free(buf);
    if (rc) {
        ndem_job_row_free(&row);
        ndem_http_problem(req, 500, NULL, "the file of frame %ld is damaged", fr.index);
        return;
    }
    cJSON *doc = NULL;
    const char **names = geometry_names(row.document, f.geometry_count, &doc);
    ndem_job_row_free(&row);
    size_t text_len = 0;
    char *text = ff->write(&f, index, names, &text_len);
    free(names);
    cJSON_Delete(doc);
    ndem_frame_free(&f);
    if (!text) ndem_http_problem(req, 500, NULL, "out of memory");
    else ndem_http_reply(req, 200, ff->type, text, text_len);
}
