/* archive.c - GET /api/v1/jobs/{id}/archive: the whole job as one tar.gz
 * (docs/api.md, "Job archive"), made while it is sent: job.json (the
 * document), summary.json (the job resource), series.csv, frames/ (the
 * stored NDF1 records and index.csv) and paraview/ (api/paraview.h: the
 * particles and the job's geometry at each frame's pose, and frames.pvd).
 * Memory is that of one frame and its files, whatever the job's size: the
 * archive is a sequence of stages, each adding entries when the sent bytes
 * ran out. A running job's archive holds the frames stored so far. */
#include "routes.h"

#include "frame_bin.h"
#include "job_shapes.h"
#include "log.h"
#include "mesh_files.h"
#include "paraview.h"
#include "targz.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SERIES_CHUNK (64 * 1024)

typedef enum stage { S_DOCUMENTS, S_SERIES, S_FRAMES, S_INDEX, S_END, S_DONE } stage;

typedef struct archive {
    ndem_app *app;
    char id[NDEM_ID_LEN + 1];
    ndem_targz *tz;
    stage at;
    char *document, *summary;
    FILE *series;
    uint64_t series_left;
    ndem_frame_row *frames;
    long n_frames, next, skipped;
    ndem_job *job; /* the geometry, NULL when the document no longer parses */
    ndem_paraview pv;
    char *pvd, *index; /* frames.pvd's entries, frames/index.csv's rows */
    size_t pvd_len, pvd_cap, index_len, index_cap;
} archive;

static int grow_append(char **buf, size_t *len, size_t *cap, const char *text, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < *len + n + 1) c *= 2;
        char *grown = realloc(*buf, c);
        if (!grown) return -1;
        *buf = grown;
        *cap = c;
    }
    memcpy(*buf + *len, text, n);
    *len += n;
    (*buf)[*len] = 0;
    return 0;
}

static int put_paraview(void *ctx, const char *name, const char *text, size_t len)
{
    archive *a = ctx;
    char path[128];
    snprintf(path, sizeof path, "paraview/%s", name);
    return ndem_targz_file(a->tz, path, text, len);
}

/* One stored frame: its record, its row of index.csv, its ParaView files. */
static int add_frame(archive *a, const ndem_frame_row *fr)
{
    void *buf;
    size_t len;
    ndem_frame f;
    long index;
    if (ndem_store_read_frame(a->app->store, a->id, fr->index, &buf, &len)) {
        a->skipped++; /* missing or damaged: the others still make a series */
        return 0;
    }
    int rc = 0;
    if (ndem_frame_bin_decode(buf, len, &f, &index) == 0) {
        char name[64], row[160];
        snprintf(name, sizeof name, "frames/%06ld.ndf", fr->index);
        char *entries = NULL;
        size_t entries_len = 0;
        int n = snprintf(row, sizeof row, "%ld,%ld,%.9g,%ld,%06ld.ndf\n", fr->index, f.step, f.time,
                         f.count, fr->index);
        rc = ndem_targz_file(a->tz, name, buf, len);
        if (!rc)
            rc =
                ndem_paraview_frame(&a->pv, &f, fr->index, put_paraview, a, &entries, &entries_len);
        if (!rc) rc = grow_append(&a->pvd, &a->pvd_len, &a->pvd_cap, entries, entries_len);
        if (!rc) rc = grow_append(&a->index, &a->index_len, &a->index_cap, row, (size_t)n);
        free(entries);
        ndem_frame_free(&f);
    } else a->skipped++;
    free(buf);
    return rc;
}

/* Adds the next entries; -1 on a failure (the body is then cut short). */
static int produce(archive *a)
{
    switch (a->at) {
    case S_DOCUMENTS: {
        if (ndem_targz_file(a->tz, "job.json", a->document, strlen(a->document)) ||
            ndem_targz_file(a->tz, "summary.json", a->summary, strlen(a->summary)))
            return -1;
        a->series = ndem_store_open_file(a->app->store, a->id, "series.csv");
        long size = -1;
        if (a->series && !fseek(a->series, 0, SEEK_END)) size = ftell(a->series);
        if (a->series && size >= 0 && !fseek(a->series, 0, SEEK_SET)) {
            a->series_left = (uint64_t)size; /* rows written later: the next archive */
            if (ndem_targz_begin(a->tz, "series.csv", a->series_left)) return -1;
            a->at = S_SERIES;
        } else a->at = S_FRAMES;
        return 0;
    }
    case S_SERIES: {
        char buf[SERIES_CHUNK];
        size_t want = a->series_left < sizeof buf ? (size_t)a->series_left : sizeof buf;
        size_t got = want ? fread(buf, 1, want, a->series) : 0;
        if (got && ndem_targz_data(a->tz, buf, got)) return -1;
        a->series_left -= got;
        if (got < want || a->series_left == 0) { /* cut back meanwhile: zeros fill the rest */
            if (ndem_targz_end(a->tz)) return -1;
            fclose(a->series);
            a->series = NULL;
            a->at = S_FRAMES;
        }
        return 0;
    }
    case S_FRAMES:
        if (a->next < a->n_frames) return add_frame(a, &a->frames[a->next++]);
        a->at = S_INDEX;
        return 0;
    case S_INDEX: {
        static const char head[] = "index,step,time,particles,file\n";
        size_t pvd_len = strlen(ndem_pvd_head) + a->pvd_len + strlen(ndem_pvd_tail);
        if (ndem_targz_begin(a->tz, "frames/index.csv", strlen(head) + a->index_len) ||
            ndem_targz_data(a->tz, head, strlen(head)) ||
            ndem_targz_data(a->tz, a->index ? a->index : "", a->index_len) ||
            ndem_targz_end(a->tz) || ndem_targz_begin(a->tz, "paraview/frames.pvd", pvd_len) ||
            ndem_targz_data(a->tz, ndem_pvd_head, strlen(ndem_pvd_head)) ||
            ndem_targz_data(a->tz, a->pvd ? a->pvd : "", a->pvd_len) ||
            ndem_targz_data(a->tz, ndem_pvd_tail, strlen(ndem_pvd_tail)) || ndem_targz_end(a->tz))
            return -1;
        a->at = S_END;
        return 0;
    }
    case S_END:
        if (a->skipped)
            ndem_log("job %s: archive without %ld unreadable frame(s)", a->id, a->skipped);
        a->at = S_DONE;
        return ndem_targz_finish(a->tz);
    case S_DONE:
        return 0;
    }
    return -1;
}

static long read_archive(void *ctx, char *buf, size_t max)
{
    archive *a = ctx;
    while (ndem_targz_pending(a->tz) == 0 && a->at != S_DONE)
        if (produce(a)) {
            ndem_log("job %s: the archive failed (out of memory?)", a->id);
            return -1;
        }
    return (long)ndem_targz_take(a->tz, buf, max);
}

static void free_archive(void *ctx)
{
    archive *a = ctx;
    if (a->series) fclose(a->series);
    ndem_targz_free(a->tz);
    free(a->document);
    free(a->summary);
    free(a->frames);
    ndem_paraview_free(&a->pv);
    if (a->job) ndem_job_destroy(a->job);
    free(a->pvd);
    free(a->index);
    free(a);
}

/* The job's scene, meshes resolved as the worker does; NULL when it does
 * not parse (the archive then has no geometry). */
static ndem_job *parse_job(ndem_app *app, const char *document)
{
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    ndem_mesh_resolver meshes;
    ndem_job_parse_opts opts = ndem_mesh_resolver_opts(&meshes, app->cfg.data);
    if (ndem_job_parse_with(document, strlen(document), &opts, &job, &errs) != NDEM_JOB_OK)
        job = NULL;
    ndem_mesh_resolver_free(&meshes);
    ndem_job_errors_clear(&errs);
    return job;
}

void ndem_get_archive(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_job_row row;
    if (ndem_load_job(app, req, &row)) return;
    archive *a = calloc(1, sizeof *a);
    if (!a) {
        ndem_job_row_free(&row);
        ndem_http_problem(req, 500, NULL, "out of memory");
        return;
    }
    a->app = app;
    snprintf(a->id, sizeof a->id, "%s", row.id);
    if (ndem_db_frames(app->db, row.id, &a->frames, &a->n_frames)) {
        ndem_http_problem(req, 500, NULL, "the job database failed");
        ndem_job_row_free(&row);
        free_archive(a);
        return;
    }
    if (a->n_frames == 0) {
        ndem_http_problem(req, 409, NULL, "job %s has no frames yet (it is %s): nothing to archive",
                          row.id, row.status);
        ndem_job_row_free(&row);
        free_archive(a);
        return;
    }
    cJSON *resource = ndem_resource(app, &row);
    a->summary = resource ? cJSON_Print(resource) : NULL;
    cJSON_Delete(resource);
    a->document = row.document ? strdup(row.document) : NULL;
    a->job = a->document ? parse_job(app, a->document) : NULL;
    a->pv.scene = a->job ? &a->job->scene : NULL;
    cJSON *parsed = a->document ? cJSON_Parse(a->document) : NULL;
    a->pv.shapes = parsed ? ndem_job_shape_table(parsed) : NULL; /* shapes_NNNNNN.vtp */
    cJSON_Delete(parsed);
    a->tz = ndem_targz_new((int64_t)time(NULL));
    ndem_job_row_free(&row);
    if (!a->summary || !a->document || !a->tz) {
        ndem_http_problem(req, 500, NULL, "out of memory");
        free_archive(a);
        return;
    }
    ndem_http_reply_stream(req, 200, "application/gzip", read_archive, free_archive, a);
}
