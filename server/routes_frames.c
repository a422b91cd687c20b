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

/* ?format= of a frame: its media type and writer (NULL: the stored NDF1 bytes). */
static char *write_json(const ndem_frame *f, long index, size_t *len)
{
    char *text = ndem_frame_to_json(f, index);
    *len = text ? strlen(text) : 0;
    return text;
}

static char *write_csv(const ndem_frame *f, long index, size_t *len)
{
    return ndem_frame_to_csv(f, len);
}

typedef struct frame_format {
    const char *name, *type;
    char *(*write)(const ndem_frame *f, long index, size_t *len);
} frame_format;

static const frame_format frame_formats[] = {
    {"json", "application/json", write_json},
    {"ndf", "application/octet-stream", NULL},
    {"vtp", "application/xml", ndem_frame_to_vtp},
    {"csv", "text/csv", write_csv},
};

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
    ndem_job_row_free(&row);
    const char *n_s = req->params[1];
    long n = -1;
    if (strcmp(n_s, "latest") && ndem_parse_long(n_s, 0, LONG_MAX, &n)) {
        ndem_http_problem(req, 404, NULL, "frame '%s': want a frame index or 'latest'", n_s);
        return;
    }
    ndem_frame_row fr;
    if (ndem_db_frame(app->db, row.id, n, &fr)) {
        ndem_http_problem(req, 404, NULL, "job %s has no frame %s (yet)", row.id, n_s);
        return;
    }
    void *buf;
    size_t len;
    int got = ndem_store_read_frame(app->store, row.id, fr.index, &buf, &len);
    if (got) {
        /* never 200 with bytes that fail their checksum */
        ndem_http_problem(req, 500, NULL, "frame %ld is %s", fr.index,
                          got == -2 ? "damaged (its file fails its length or checksum check)"
                                    : "missing (its file is gone)");
        return;
    }
    const frame_format *ff = want;
    if (!ff->write) {
        ndem_http_reply(req, 200, ff->type, buf, len);
        return;
    }
    ndem_frame f;
    long index;
    int rc = ndem_store_decode_frame(buf, len, &f, &index);
    free(buf);
    if (rc) {
        ndem_http_problem(req, 500, NULL, "the file of frame %ld is damaged", fr.index);
        return;
    }
    size_t text_len = 0;
    char *text = ff->write(&f, index, &text_len);
    ndem_frame_free(&f);
    if (!text) ndem_http_problem(req, 500, NULL, "out of memory");
    else ndem_http_reply(req, 200, ff->type, text, text_len);
}
