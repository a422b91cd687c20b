/* routes_contacts.c - GET /api/v1/jobs/{id}/frames/{n}/contacts: the
 * contact network stored with a frame of a job that asked for it
 * (output.contacts; docs/frames.md, "Contact network (NDC1)"), as the
 * stored NDC1 record or exported (?format=csv, json; api/contact_export.c).
 * The formats are a table: name, media type, writer. */
#include "routes.h"

#include "contact_bin.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static char *write_csv(const ndem_contact_set *s, long index, size_t *len)
{
    return ndem_contacts_to_csv(s, len);
}

typedef struct contact_format {
    const char *name, *type;
    char *(*write)(const ndem_contact_set *s, long index, size_t *len);
} contact_format;

static const contact_format contact_formats[] = {
    {"ndc", "application/octet-stream", NULL},
    {"csv", "text/csv", write_csv},
    {"json", "application/json", ndem_contacts_to_json},
};

/* 1 when the job's document has output.contacts true. */
static int asked_for_contacts(const ndem_job_row *row)
{
    cJSON *doc = row->document ? cJSON_Parse(row->document) : NULL;
    const cJSON *on = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "output"), "contacts");
    int yes = cJSON_IsTrue(on);
    cJSON_Delete(doc);
    return yes;
}

void ndem_get_frame_contacts(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    const char *format = ndem_http_query(req, "format");
    const contact_format *want = &contact_formats[0];
    if (format) {
        want = NULL;
        for (size_t i = 0; i < sizeof contact_formats / sizeof contact_formats[0]; i++)
            if (!strcmp(format, contact_formats[i].name)) want = &contact_formats[i];
        if (!want) {
            ndem_http_problem(req, 400, NULL, "format must be ndc, csv or json, not '%s'", format);
            return;
        }
    }
    ndem_job_row row;
    if (ndem_load_job(app, req, &row)) return;
    int asked = asked_for_contacts(&row);
    ndem_job_row_free(&row);
    if (!asked) {
        ndem_http_problem(req, 404, NULL,
                          "job %s stores no contacts: its document did not set output.contacts",
                          row.id);
        return;
    }
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
    int got = ndem_store_read_contacts(app->store, row.id, fr.index, &buf, &len);
    if (got) { /* never 200 with bytes that fail their checksum */
        ndem_http_problem(req, 500, NULL, "the contacts of frame %ld are %s", fr.index,
                          got == -2 ? "damaged (their file fails its length or checksum check)"
                                    : "missing (their file is gone)");
        return;
    }
    if (!want->write) {
        ndem_http_reply(req, 200, want->type, buf, len);
        return;
    }
    ndem_contact_set s;
    long index;
    int rc = ndem_contact_bin_decode(buf, len, &s, &index);
    free(buf);
    if (rc) {
        ndem_http_problem(req, 500, NULL, "out of memory");
        return;
    }
    size_t text_len = 0;
    char *text = want->write(&s, index, &text_len);
    ndem_contact_set_free(&s);
    if (!text) ndem_http_problem(req, 500, NULL, "out of memory");
    else ndem_http_reply(req, 200, want->type, text, text_len);
}
