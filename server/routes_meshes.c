/* routes_meshes.c - /api/v1/meshes (docs/api.md, docs/meshes.md): STL
 * uploads checked as a job would load them, stored as DATA/meshes/<id>.stl
 * (mesh_files.c) with a row in the index (meshes.c), listed, served as
 * metadata or as the bytes, and deleted unless a queued or running job
 * references them. */
#include "app.h"

#include "jsonw.h"
#include "log.h"
#include "routes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *vec3(const double v[3]) { return cJSON_CreateDoubleArray(v, 3); }

static cJSON *mesh_resource(const ndem_mesh_info *m)
{
    cJSON *o = cJSON_CreateObject();
    char buf[64], path[128];
    cJSON_AddStringToObject(o, "id", m->id);
    cJSON_AddStringToObject(o, "name", m->name);
    cJSON_AddStringToObject(o, "created_at", ndem_rfc3339(m->created_us, buf, sizeof buf));
    ndem_add_owner(o, m->owner);
    cJSON_AddStringToObject(o, "format", m->format);
    cJSON_AddNumberToObject(o, "bytes", (double)m->bytes);
    cJSON_AddNumberToObject(o, "triangles", (double)m->triangles);
    cJSON_AddNumberToObject(o, "vertices", (double)m->vertices);
    cJSON_AddNumberToObject(o, "input_triangles", (double)m->input_triangles);
    cJSON *dropped = cJSON_AddObjectToObject(o, "dropped");
    cJSON_AddNumberToObject(dropped, "degenerate", (double)m->degenerate);
    cJSON_AddNumberToObject(dropped, "duplicate", (double)m->duplicate);
    cJSON_AddNumberToObject(o, "welded", (double)m->welded);
    cJSON_AddBoolToObject(o, "closed", m->closed);
    cJSON_AddBoolToObject(o, "oriented", m->oriented);
    cJSON *bounds = cJSON_AddObjectToObject(o, "bounds");
    cJSON_AddItemToObject(bounds, "min", vec3(m->min));
    cJSON_AddItemToObject(bounds, "max", vec3(m->max));
    cJSON_AddNumberToObject(o, "area", m->area);
    cJSON_AddNumberToObject(o, "volume", m->volume);
    cJSON *links = cJSON_AddObjectToObject(o, "links");
    snprintf(path, sizeof path, "/api/v1/meshes/%s", m->id);
    cJSON_AddStringToObject(links, "self", path);
    snprintf(path, sizeof path, "/api/v1/meshes/%s?format=stl", m->id);
    cJSON_AddStringToObject(links, "stl", path);
    return o;
}

static void reply_json(ndem_request *req, int status, cJSON *o)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text) ndem_http_problem(req, 500, NULL, "out of memory");
    else ndem_http_reply(req, status, "application/json", text, strlen(text));
}

/* The name of an upload: ?name=, else the filename of Content-Disposition
 * (quoted or a token), else "". Control characters and bytes that are not
 * UTF-8 are dropped; at most 255 bytes. */
static void upload_name(ndem_request *req, char *out, size_t len)
{
    out[0] = 0;
    const char *name = ndem_http_query(req, "name");
    size_t n = name ? strlen(name) : 0;
    if (!name) {
        const char *cd = ndem_http_header(req, "Content-Disposition");
        const char *f = cd ? strstr(cd, "filename=") : NULL;
        if (!f) return;
        f += 9;
        if (*f == '"') {
            f++;
            const char *q = strchr(f, '"');
            n = q ? (size_t)(q - f) : strlen(f);
        } else {
            n = strcspn(f, "; \t");
        }
        name = f;
    }
    char raw[1024];
    size_t r = 0;
    for (size_t i = 0; i < n && r + 1 < sizeof raw; i++)
        if ((unsigned char)name[i] >= 0x20 && name[i] != 0x7f) raw[r++] = name[i];
    raw[r] = 0;
    /* valid UTF-8 only (the name goes into JSON), never cut inside a character */
    size_t o = 0;
    for (const char *p = raw; *p;) {
        int k = ndem_jw_utf8_len(p);
        if (k <= 0) {
            p++;
            continue;
        }
        if (o + (size_t)k >= len) break;
        memcpy(out + o, p, (size_t)k);
        o += (size_t)k;
        p += k;
    }
    out[o] = 0;
}

void ndem_post_mesh(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_mesh_info info;
    memset(&info, 0, sizeof info);
    char err[512];
    if (ndem_mesh_inspect(req->body ? req->body : "", req->body_len, &info, err, sizeof err)) {
        ndem_http_problem(req, 422, NULL, "%s", err);
        return;
    }
    upload_name(req, info.name, sizeof info.name);
    snprintf(info.owner, sizeof info.owner, "%s", req->owner);
    info.created_us = ndem_now_us();
    if (ndem_mesh_new_id(info.id)) {
        ndem_http_problem(req, 500, NULL, "out of randomness");
        return;
    }
    /* the file first: a mesh in the index always has its bytes */
    if (ndem_mesh_file_write(app->cfg.data, info.id, req->body, req->body_len)) {
        const char *why = strerror(errno);
        ndem_log("mesh %s: cannot write its file: %s", info.id, why);
        req->retry_after = 30;
        ndem_http_problem(req, 503, NULL,
                          "cannot write the mesh's file: %s (GET /health says more)", why);
        return;
    }
    if (ndem_meshes_add(app->meshes, &info)) {
        ndem_mesh_file_remove(app->cfg.data, info.id);
        ndem_http_problem(req, 500, NULL, "the mesh index failed");
        return;
    }
    ndem_log("mesh %s: uploaded ('%s', %s, %ld bytes, %ld triangles kept of %ld)", info.id,
             info.name, info.format, info.bytes, info.triangles, info.input_triangles);
    snprintf(req->location, sizeof req->location, "/api/v1/meshes/%s", info.id);
    reply_json(req, 201, mesh_resource(&info));
}

void ndem_list_meshes(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    long limit, before;
    if (ndem_list_page(req, &limit, &before)) return;
    ndem_mesh_info *rows;
    long *seqs;
    int n;
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    if (ndem_jobs_mesh_list(app, &who, before, (int)limit, &rows, &seqs, &n, &p)) {
        ndem_http_reply_problem(req, &p);
        return;
    }
    cJSON *o = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(o, "meshes");
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(list, mesh_resource(&rows[i]));
    if (n == limit && n > 0) {
        char next[32];
        snprintf(next, sizeof next, "%ld", seqs[n - 1]);
        cJSON_AddStringToObject(o, "next_cursor", next);
    } else {
        cJSON_AddNullToObject(o, "next_cursor");
    }
    free(rows);
    free(seqs);
    reply_json(req, 200, o);
}

/* The mesh of the {id} parameter; answers 404 (or 500) when there is none. */
static int load_mesh(ndem_app *app, ndem_request *req, ndem_mesh_info *info)
{
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    if (ndem_jobs_mesh_get(app, &who, req->params[0], info, &p) == 0) return 0;
    ndem_http_reply_problem(req, &p);
    return -1;
}

void ndem_get_mesh(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    const char *format = ndem_http_query(req, "format");
    if (format && strcmp(format, "json") && strcmp(format, "stl")) {
        ndem_http_problem(req, 400, NULL, "format must be json or stl, not '%s'", format);
        return;
    }
    const char *accept = ndem_http_header(req, "Accept");
    int stl = format ? !strcmp(format, "stl") : accept && strstr(accept, "model/stl");
    ndem_mesh_info info;
    if (load_mesh(app, req, &info)) return;
    if (!stl) {
        reply_json(req, 200, mesh_resource(&info));
        return;
    }
    char *bytes;
    size_t len;
    int rc = ndem_mesh_file_read(app->cfg.data, info.id, &bytes, &len);
    if (rc) {
        ndem_http_problem(req, 500, NULL, "the file of mesh %s is %s", info.id,
                          rc > 0 ? "missing" : "unreadable");
        return;
    }
    ndem_http_reply(req, 200, "model/stl", bytes, len);
}

void ndem_delete_mesh(void *ctx, ndem_request *req)
{
    ndem_app *app = ctx;
    ndem_caller who = ndem_caller_of(req);
    ndem_problem p = {0};
    if (ndem_jobs_mesh_delete(app, &who, req->params[0], &p)) ndem_http_reply_problem(req, &p);
    else ndem_http_reply(req, 204, NULL, NULL, 0);
}
