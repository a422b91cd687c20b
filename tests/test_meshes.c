/* test_meshes.c - uploaded meshes (issue 13): the resolver the daemon hands
 * the job parser (server/mesh_files.c, linked directly), and
 * /api/v1/meshes against the real ndemd: ASCII and binary uploads with
 * what the build found (12 triangles, 8 vertices, the unit cube's bounds),
 * dropped triangles counted, bad STL 422 with the parser's message, other
 * content types 415, bodies over --max-body 413, metadata and the exact
 * bytes back, the list in pages, delete 204 then 404, a restart (SIGKILL)
 * keeps the mesh, a stray file is removed at start-up and --recover
 * indexes the files again (and finds the queued jobs' references), and a
 * job that references a mesh blocks its delete (409) until it is
 * cancelled. */
#include "daemon.h"
#include "job.h"
#include "db.h"
#include "mesh_files.h"
#include "meshes.h"
#include "testutil.h"

#include <dirent.h>

static td_daemon md; /* shared by the "routes" cases */

static void md_start(void) { td_start(&md, "--workers", "1", "--max-body", "4096", (char *)NULL); }
static void md_stop(void) { td_stop_status(&md); }

static char *slurp(const char *path, size_t *len)
{
    char *s = ndem_read_file(path, len);
    ck_assert_msg(s != NULL, "cannot read %s", path);
    return s;
}

static void expect_problem(const td_resp *r, long status, const char *detail_part)
{
    ck_assert_msg(r->status == status, "status %ld, wanted %ld: %s", r->status, status,
                  r->body ? r->body : "");
    ck_assert_str_eq(r->type, "application/problem+json");
    cJSON *o = cJSON_Parse(r->body);
    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq((long)td_num(o, "status"), status);
    if (detail_part)
        ck_assert_msg(strstr(td_str(o, "detail"), detail_part), "detail '%s' lacks '%s'",
                      td_str(o, "detail"), detail_part);
    cJSON_Delete(o);
}

/* POSTs bytes to /api/v1/meshes with a Content-Type (and optional
 * Content-Disposition); the answer. */
static td_resp upload(const td_daemon *d, const char *query, const char *type, const char *body,
                      size_t len, const char *disposition)
{
    td_resp r;
    memset(&r, 0, sizeof r);
    char path[256];
    snprintf(path, sizeof path, "/api/v1/meshes%s", query ? query : "");
    struct curl_slist *hdrs;
    CURL *c = td_easy(d, &r, "POST", path, type, body, len, NULL, &hdrs);
    if (disposition) {
        hdrs = curl_slist_append(hdrs, disposition);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    }
    if (curl_easy_perform(c) == CURLE_OK) td_finish(c, &r);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
    return r;
}

/* Uploads a file of tests/stl that must be accepted; the resource. */
static cJSON *upload_file(const td_daemon *d, const char *file, const char *type, const char *query)
{
    size_t len;
    char *bytes = slurp(file, &len);
    td_resp r = upload(d, query, type, bytes, len, NULL);
    free(bytes);
    ck_assert_msg(r.status == 201, "%s: %ld %s", file, r.status, r.body ? r.body : "");
    cJSON *o = cJSON_Parse(r.body);
    ck_assert_ptr_nonnull(o);
    char want[128];
    snprintf(want, sizeof want, "/api/v1/meshes/%s", td_str(o, "id"));
    ck_assert_str_eq(r.location, want);
    td_resp_free(&r);
    return o;
}

static void expect_vec(const cJSON *o, const char *key, double x, double y, double z)
{
    const cJSON *a = cJSON_GetObjectItem(o, key);
    ck_assert_int_eq(cJSON_GetArraySize(a), 3);
    double want[3] = {x, y, z};
    for (int k = 0; k < 3; k++)
        ck_assert_double_eq_tol(cJSON_GetArrayItem(a, k)->valuedouble, want[k], 1e-12);
}

/* The unit cube as ndem_mesh_build sees it (docs/meshes.md). */
static void expect_unit_cube(const cJSON *m, const char *format, long bytes)
{
    ck_assert(ndem_mesh_id_valid(td_str(m, "id")));
    ck_assert_str_eq(td_str(m, "format"), format);
    ck_assert_int_eq((long)td_num(m, "bytes"), bytes);
    ck_assert_int_eq((long)td_num(m, "triangles"), 12);
    ck_assert_int_eq((long)td_num(m, "input_triangles"), 12);
    ck_assert_int_eq((long)td_num(m, "vertices"), 8);
    ck_assert_int_eq((long)td_num(m, "welded"), 36 - 8);
    const cJSON *dropped = cJSON_GetObjectItem(m, "dropped");
    ck_assert_int_eq((long)td_num(dropped, "degenerate"), 0);
    ck_assert_int_eq((long)td_num(dropped, "duplicate"), 0);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(m, "closed")));
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(m, "oriented")));
    const cJSON *bounds = cJSON_GetObjectItem(m, "bounds");
    expect_vec(bounds, "min", 0, 0, 0);
    expect_vec(bounds, "max", 1, 1, 1);
    ck_assert_double_eq_tol(td_num(m, "volume"), 1.0, 1e-12);
    ck_assert_double_eq_tol(td_num(m, "area"), 6.0, 1e-12);
}

static void delete_mesh(const td_daemon *d, const char *id, long want)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/meshes/%s", id);
    td_resp r = td_http(d, "DELETE", path, NULL, NULL, 0, NULL);
    ck_assert_msg(r.status == want, "DELETE %s: %ld, wanted %ld: %s", path, r.status, want,
                  r.body ? r.body : "");
    td_resp_free(&r);
}

/* ---- the resolver, directly ---- */

START_TEST(resolver_reads_files_and_records_ids)
{
    char dir[] = "/tmp/ndem-meshes-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    td_track_dir(dir, 1);
    size_t len;
    char *cube = slurp("tests/stl/cube_binary.stl", &len);
    const char *id = "0123456789abcdef";
    ck_assert_int_eq(ndem_mesh_file_write(dir, id, cube, len), 0);
    ndem_mesh_resolver r;
    ndem_job_parse_opts opts = ndem_mesh_resolver_opts(&r, dir);
    ck_assert_ptr_null(opts.base_dir); /* a server never reads a client's paths */
    ck_assert_ptr_eq(opts.mesh_ctx, &r);
    char *bytes = NULL;
    size_t n = 0;
    for (int twice = 0; twice < 2; twice++) {
        ck_assert_int_eq(opts.mesh_bytes(opts.mesh_ctx, id, &bytes, &n), 0);
        ck_assert_uint_eq(n, len);
        ck_assert(memcmp(bytes, cube, len) == 0);
        free(bytes); /* the parser's to free */
    }
    ck_assert_int_eq(r.count, 1); /* one reference, however often it is named */
    ck_assert_str_eq(r.ids[0], id);
    /* unknown ids and anything that is not an id never reach the disk */
    const char *bad[] = {"fedcba9876543210", "../../etc/passwd", "0123456789ABCDEF",
                         "0123456789abcde", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bytes = (char *)1;
        ck_assert_int_eq(opts.mesh_bytes(opts.mesh_ctx, bad[i], &bytes, &n), -1);
        ck_assert_ptr_null(bytes);
    }
    ck_assert_int_eq(r.count, 1);
    /* no temporary file is left; a leftover one is swept */
    char path[400];
    snprintf(path, sizeof path, "%s/meshes/%s.stl.tmp", dir, id);
    ck_assert_int_ne(access(path, F_OK), 0);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(ndem_mesh_files_sweep(dir), 1);
    ck_assert_int_ne(access(path, F_OK), 0);
    /* a document that names the mesh: resolved when the parser knows mesh
     * geometry, refused at that entry while it does not */
    static const char doc[] =
        "{\"scene\": {\"materials\": [{\"name\": \"m\", \"density\": 1000, "
        "\"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"mesh\", \"mesh\": "
        "\"0123456789abcdef\"}]}, \"solver\": {\"time_step\": 0.001, \"duration\": 0.01}}";
    ndem_mesh_resolver_free(&r);
    opts = ndem_mesh_resolver_opts(&r, dir);
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    ndem_job_status st = ndem_job_parse_with(doc, strlen(doc), &opts, &job, &errs);
    if (st == NDEM_JOB_OK) {
        ck_assert_int_eq(r.count, 1);
        ck_assert_str_eq(r.ids[0], id);
        ndem_job_destroy(job);
    } else {
        ck_assert_int_eq(st, NDEM_JOB_INVALID);
        ck_assert_msg(!strncmp(errs.items[0].pointer, "/scene/geometry/0", 17), "%s: %s",
                      errs.items[0].pointer, errs.items[0].message);
    }
    ndem_job_errors_clear(&errs);
    ndem_mesh_resolver_free(&r);
    ck_assert_int_eq(ndem_mesh_file_remove(dir, id), 0);
    ck_assert_int_eq(ndem_mesh_resolve(&r, id, &bytes, &n), -1); /* r.data still dir */
    free(cube);
    snprintf(path, sizeof path, "%s/meshes", dir);
    ck_assert_int_eq(rmdir(path), 0); /* nothing else was left in it */
    ck_assert_int_eq(rmdir(dir), 0);
    td_track_dir(dir, 0);
}
END_TEST

/* The index's references, directly on a fresh database: a mesh held by a
 * submission in flight, or by a queued job, is not deleted; released,
 * cancelled or never held, it is. */
START_TEST(references_block_delete_until_the_job_ends)
{
    char dir[] = "/tmp/ndem-meshes-XXXXXX", path[300], err[256], blocker[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    td_track_dir(dir, 1);
    snprintf(path, sizeof path, "%s/ndem.db", dir);
    int damaged;
    ndem_db *db = ndem_db_open(path, &damaged, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    ndem_meshes *m = ndem_meshes_open(path, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    size_t len;
    char *cube = slurp("tests/stl/cube_ascii.stl", &len);
    ndem_mesh_info info;
    memset(&info, 0, sizeof info);
    ck_assert_int_eq(ndem_mesh_inspect(cube, len, &info, err, sizeof err), 0);
    free(cube);
    ck_assert_int_eq(info.triangles, 12);
    char ids[2][NDEM_MESH_ID_LEN + 1] = {"00000000000000aa", "00000000000000bb"};
    for (int i = 0; i < 2; i++) {
        memcpy(info.id, ids[i], sizeof ids[i]);
        ck_assert_int_eq(ndem_meshes_add(m, &info), 0);
    }
    const char *job = "0000000000000001";
    /* a submission holds both; a delete now names it */
    int missing;
    ck_assert_int_eq(ndem_meshes_hold(m, job, ids, 2, &missing), 0);
    ck_assert_int_eq(ndem_meshes_delete(m, ids[0], blocker, sizeof blocker), 2);
    ck_assert_str_eq(blocker, job);
    /* the submission failed: released, the mesh deletes */
    ck_assert_int_eq(ndem_meshes_release(m, job), 0);
    ck_assert_int_eq(ndem_meshes_delete(m, ids[0], blocker, sizeof blocker), 0);
    ck_assert_int_eq(ndem_meshes_delete(m, ids[0], blocker, sizeof blocker), 1);
    /* holding a mesh that is gone holds nothing and says which */
    memcpy(ids[0], "00000000000000cc", NDEM_MESH_ID_LEN + 1);
    ck_assert_int_eq(ndem_meshes_hold(m, job, ids, 2, &missing), 1);
    ck_assert_int_eq(missing, 0);
    ck_assert_int_eq(ndem_meshes_delete(m, ids[1], blocker, sizeof blocker), 0); /* not held */
    memcpy(info.id, ids[1], sizeof ids[1]);
    ck_assert_int_eq(ndem_meshes_add(m, &info), 0);
    /* a queued job holds it after settling; cancelled, it no longer does */
    ndem_job_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.id, sizeof row.id, "%s", job);
    snprintf(row.name, sizeof row.name, "j");
    char doc[] = "{}";
    row.document = doc;
    row.created_us = 1;
    row.steps_total = 1;
    row.duration = 1;
    ck_assert_int_eq(ndem_meshes_hold(m, job, &ids[1], 1, &missing), 0);
    ck_assert_int_eq(ndem_db_insert(db, &row, 10), 0);
    ck_assert_int_eq(ndem_meshes_settle(m, job), 0);
    ck_assert_int_eq(ndem_meshes_delete(m, ids[1], blocker, sizeof blocker), 2);
    /* a restart keeps the reference of a job that is still queued */
    ndem_meshes_close(m);
    m = ndem_meshes_open(path, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_int_eq(ndem_meshes_delete(m, ids[1], blocker, sizeof blocker), 2);
    ck_assert_int_eq(ndem_db_cancel_queued(db, job), 1);
    ck_assert_int_eq(ndem_meshes_delete(m, ids[1], blocker, sizeof blocker), 0);
    ndem_meshes_close(m);
    ndem_db_close(db);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    td_track_dir(dir, 0);
}
END_TEST

/* After --recover the queued jobs' documents are parsed again to find their
 * meshes: the job holds its mesh once the parser knows mesh geometry; until
 * then the document does not parse and nothing is held. */
START_TEST(rehold_finds_the_meshes_of_queued_jobs)
{
    char dir[] = "/tmp/ndem-meshes-XXXXXX", path[300], err[256], blocker[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    td_track_dir(dir, 1);
    snprintf(path, sizeof path, "%s/ndem.db", dir);
    int damaged;
    ndem_db *db = ndem_db_open(path, &damaged, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    ndem_meshes *m = ndem_meshes_open(path, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    size_t len;
    char *cube = slurp("tests/stl/cube_binary.stl", &len);
    ndem_mesh_info info;
    memset(&info, 0, sizeof info);
    ck_assert_int_eq(ndem_mesh_inspect(cube, len, &info, err, sizeof err), 0);
    snprintf(info.id, sizeof info.id, "00000000000000aa");
    ck_assert_int_eq(ndem_mesh_file_write(dir, info.id, cube, len), 0);
    free(cube);
    ck_assert_int_eq(ndem_meshes_add(m, &info), 0);
    char doc[] = "{\"scene\": {\"materials\": [{\"name\": \"m\", \"density\": 1000, "
                 "\"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"mesh\", \"mesh\": "
                 "\"00000000000000aa\"}]}, \"solver\": {\"time_step\": 0.001, \"duration\": 0.01}}";
    ndem_job_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.id, sizeof row.id, "0000000000000002");
    row.document = doc;
    row.created_us = row.steps_total = 1;
    row.duration = 1;
    ck_assert_int_eq(ndem_db_insert(db, &row, 10), 0);
    /* does this parser know mesh geometry? */
    ndem_mesh_resolver r;
    ndem_job_parse_opts opts = ndem_mesh_resolver_opts(&r, dir);
    ndem_job *job = NULL;
    int parses = ndem_job_parse_with(doc, strlen(doc), &opts, &job, NULL) == NDEM_JOB_OK;
    ndem_job_destroy(job);
    ndem_mesh_resolver_free(&r);
    ck_assert_int_eq(ndem_meshes_rehold(m, db, dir), parses ? 1 : 0);
    ck_assert_int_eq(ndem_meshes_delete(m, info.id, blocker, sizeof blocker), parses ? 2 : 0);
    if (parses) ck_assert_str_eq(blocker, row.id);
    ndem_meshes_close(m);
    ndem_db_close(db);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    td_track_dir(dir, 0);
}
END_TEST

/* ---- the routes ---- */

START_TEST(upload_ascii_and_binary)
{
    size_t alen, blen;
    free(slurp("tests/stl/cube_ascii.stl", &alen));
    free(slurp("tests/stl/cube_binary.stl", &blen));
    cJSON *a = upload_file(&md, "tests/stl/cube_ascii.stl", "model/stl", "?name=cube");
    expect_unit_cube(a, "ascii", (long)alen);
    ck_assert_str_eq(td_str(a, "name"), "cube");
    cJSON *b = upload_file(&md, "tests/stl/cube_binary.stl", "application/octet-stream", NULL);
    expect_unit_cube(b, "binary", (long)blen);
    ck_assert_str_eq(td_str(b, "name"), "");
    ck_assert_str_ne(td_str(a, "id"), td_str(b, "id"));
    /* the name from Content-Disposition, parameters on the type ignored */
    char *bytes = slurp("tests/stl/cube_binary.stl", &blen);
    td_resp r = upload(&md, NULL, "model/stl; charset=binary", bytes, blen,
                       "Content-Disposition: attachment; filename=\"bucket v2.stl\"");
    free(bytes);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    cJSON *c = cJSON_Parse(r.body);
    ck_assert_str_eq(td_str(c, "name"), "bucket v2.stl");
    td_resp_free(&r);
    /* names stay valid UTF-8 (they go into JSON): stray bytes and controls dropped */
    bytes = slurp("tests/stl/cube_binary.stl", &blen);
    r = upload(&md, "?name=caf%C3%A9%FF%01.stl", "model/stl", bytes, blen, NULL);
    free(bytes);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    cJSON *u = cJSON_Parse(r.body);
    ck_assert_str_eq(td_str(u, "name"), "caf\xc3\xa9.stl");
    delete_mesh(&md, td_str(u, "id"), 204);
    cJSON_Delete(u);
    td_resp_free(&r);
    /* the file is there, byte for byte */
    char path[512];
    snprintf(path, sizeof path, "%s/var/meshes/%s.stl", md.dir, td_str(a, "id"));
    char *disk = slurp(path, &blen);
    ck_assert_uint_eq(blen, alen);
    free(disk);
    const cJSON *ms[] = {a, b, c};
    for (int i = 0; i < 3; i++) delete_mesh(&md, td_str(ms[i], "id"), 204);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
}
END_TEST

/* The unit cube's ASCII with one facet repeated (reversed) and a sliver. */
START_TEST(dropped_triangles_are_reported)
{
    size_t len;
    char *cube = slurp("tests/stl/cube_ascii.stl", &len);
    char *end = strstr(cube, "endsolid");
    ck_assert_ptr_nonnull(end);
    *end = 0;
    char body[4096];
    snprintf(body, sizeof body,
             "%s facet normal 0 0 0\n outer loop\n vertex 0 0 0\n vertex 1 1 0\n vertex 0 1 0\n"
             " endloop\n endfacet\n facet normal 0 0 0\n outer loop\n vertex 0 0 0\n"
             " vertex 1 0 0\n vertex 2 0 0\n endloop\n endfacet\nendsolid\n",
             cube);
    free(cube);
    td_resp r = upload(&md, NULL, "model/stl", body, strlen(body), NULL);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    cJSON *m = cJSON_Parse(r.body);
    ck_assert_int_eq((long)td_num(m, "input_triangles"), 14);
    ck_assert_int_eq((long)td_num(m, "triangles"), 12);
    const cJSON *dropped = cJSON_GetObjectItem(m, "dropped");
    ck_assert_int_eq((long)td_num(dropped, "duplicate"), 1);
    ck_assert_int_eq((long)td_num(dropped, "degenerate"), 1);
    delete_mesh(&md, td_str(m, "id"), 204);
    cJSON_Delete(m);
    td_resp_free(&r);
}
END_TEST

START_TEST(bad_uploads_are_refused)
{
    /* the parser's message, line and all */
    static const char vortex[] = "solid x\nfacet normal 0 0 1\n outer loop\n  vortex 0 0 0\n";
    td_resp r = upload(&md, NULL, "model/stl", vortex, strlen(vortex), NULL);
    expect_problem(&r, 422, "ASCII STL: line 4: expected 'vertex', found 'vortex'");
    td_resp_free(&r);
    /* binary, one byte short of its count */
    size_t len;
    char *bin = slurp("tests/stl/cube_binary.stl", &len);
    r = upload(&md, NULL, "application/octet-stream", bin, len - 1, NULL);
    expect_problem(&r, 422, "binary STL: truncated: the header says 12 triangles");
    td_resp_free(&r);
    /* a soup the build refuses: every triangle degenerate */
    static const char flat[] = "solid f\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"
                               "vertex 1 0 0\nvertex 2 0 0\nendloop\nendfacet\nendsolid f\n";
    r = upload(&md, NULL, "model/stl", flat, strlen(flat), NULL);
    expect_problem(&r, 422, "no triangle left");
    td_resp_free(&r);
    r = upload(&md, NULL, "model/stl", "", 0, NULL);
    expect_problem(&r, 422, "STL");
    td_resp_free(&r);
    /* other types: 415, the STL types named */
    const char *types[] = {"text/plain", "application/json", "multipart/form-data; boundary=x",
                           "model/stlx"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        r = upload(&md, NULL, types[i], bin, len, NULL);
        expect_problem(&r, 415, "model/stl or application/octet-stream");
        td_resp_free(&r);
    }
    free(bin);
    /* over --max-body (4096) */
    char *big = malloc(6000);
    memset(big, ' ', 6000);
    memcpy(big, "solid big\n", 10);
    r = upload(&md, NULL, "model/stl", big, 6000, NULL);
    expect_problem(&r, 413, "4096");
    td_resp_free(&r);
    free(big);
    /* nothing was stored */
    cJSON *list = td_get_json(&md, "/api/v1/meshes", 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(list, "meshes")), 0);
    cJSON_Delete(list);
}
END_TEST

START_TEST(get_metadata_and_bytes)
{
    size_t len;
    char *bin = slurp("tests/stl/cube_binary.stl", &len);
    cJSON *m = upload_file(&md, "tests/stl/cube_binary.stl", "model/stl", "?name=b");
    char path[256];
    snprintf(path, sizeof path, "/api/v1/meshes/%s", td_str(m, "id"));
    cJSON *got = td_get_json(&md, path, 200);
    ck_assert(cJSON_Compare(got, m, 1)); /* the same resource as the upload's answer */
    cJSON_Delete(got);
    /* the OpenAPI document has both paths, and the resource every member its Mesh requires */
    cJSON *oa = td_get_json(&md, "/openapi.json", 200);
    const cJSON *paths = cJSON_GetObjectItem(oa, "paths");
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(paths, "/api/v1/meshes"));
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(paths, "/api/v1/meshes/{id}"));
    const cJSON *schema = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(oa, "components"), "schemas"), "Mesh");
    const cJSON *req;
    int required = 0;
    cJSON_ArrayForEach(req, cJSON_GetObjectItem(schema, "required"))
    {
        ck_assert_msg(cJSON_GetObjectItem(m, req->valuestring), "no %s", req->valuestring);
        required++;
    }
    ck_assert_int_eq(required, cJSON_GetArraySize(m)); /* and nothing it does not list */
    cJSON_Delete(oa);
    /* the bytes: by Accept or by ?format=stl */
    td_resp r = td_http(&md, "GET", path, NULL, NULL, 0, "model/stl");
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "model/stl");
    ck_assert_uint_eq(r.len, len);
    ck_assert(memcmp(r.body, bin, len) == 0);
    td_resp_free(&r);
    char stl[300];
    snprintf(stl, sizeof stl, "%s?format=stl", path);
    ck_assert_str_eq(td_str(cJSON_GetObjectItem(m, "links"), "stl"), stl);
    r = td_http(&md, "GET", stl, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(r.len, len);
    ck_assert(memcmp(r.body, bin, len) == 0);
    td_resp_free(&r);
    snprintf(stl, sizeof stl, "%s?format=obj", path);
    r = td_http(&md, "GET", stl, NULL, NULL, 0, NULL);
    expect_problem(&r, 400, "format must be json or stl");
    td_resp_free(&r);
    /* unknown and malformed ids */
    const char *missing[] = {"/api/v1/meshes/0123456789abcdef", "/api/v1/meshes/..%2f..%2fx",
                             "/api/v1/meshes/ABCDEF0123456789"};
    for (int i = 0; i < 3; i++) {
        r = td_http(&md, "GET", missing[i], NULL, NULL, 0, NULL);
        expect_problem(&r, 404, i == 1 ? NULL : "no mesh with id"); /* 1: no route at all */
        td_resp_free(&r);
    }
    delete_mesh(&md, td_str(m, "id"), 204);
    free(bin);
    cJSON_Delete(m);
}
END_TEST

START_TEST(list_pages_newest_first)
{
    char ids[3][32];
    for (int i = 0; i < 3; i++) {
        cJSON *m = upload_file(&md, "tests/stl/cube_binary.stl", "model/stl", NULL);
        snprintf(ids[i], sizeof ids[i], "%s", td_str(m, "id"));
        cJSON_Delete(m);
    }
    cJSON *all = td_get_json(&md, "/api/v1/meshes", 200);
    const cJSON *list = cJSON_GetObjectItem(all, "meshes");
    ck_assert_int_eq(cJSON_GetArraySize(list), 3);
    for (int i = 0; i < 3; i++)
        ck_assert_str_eq(td_str(cJSON_GetArrayItem(list, i), "id"), ids[2 - i]);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(all, "next_cursor")));
    cJSON_Delete(all);
    /* pages of two */
    cJSON *p1 = td_get_json(&md, "/api/v1/meshes?limit=2", 200);
    list = cJSON_GetObjectItem(p1, "meshes");
    ck_assert_int_eq(cJSON_GetArraySize(list), 2);
    ck_assert_str_eq(td_str(cJSON_GetArrayItem(list, 0), "id"), ids[2]);
    char path[128];
    snprintf(path, sizeof path, "/api/v1/meshes?limit=2&cursor=%s", td_str(p1, "next_cursor"));
    cJSON *p2 = td_get_json(&md, path, 200);
    list = cJSON_GetObjectItem(p2, "meshes");
    ck_assert_int_eq(cJSON_GetArraySize(list), 1);
    ck_assert_str_eq(td_str(cJSON_GetArrayItem(list, 0), "id"), ids[0]);
    cJSON_Delete(p1);
    cJSON_Delete(p2);
    td_resp r = td_http(&md, "GET", "/api/v1/meshes?limit=0", NULL, NULL, 0, NULL);
    expect_problem(&r, 400, "limit");
    td_resp_free(&r);
    for (int i = 0; i < 3; i++) delete_mesh(&md, ids[i], 204);
}
END_TEST

START_TEST(delete_then_404)
{
    cJSON *m = upload_file(&md, "tests/stl/cube_ascii.stl", "model/stl", NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/var/meshes/%s.stl", md.dir, td_str(m, "id"));
    ck_assert_int_eq(access(path, F_OK), 0);
    /* DELETE, like every state-changing route, wants application/json */
    char route[128];
    snprintf(route, sizeof route, "/api/v1/meshes/%s", td_str(m, "id"));
    td_resp r = td_http(&md, "DELETE", route, "text/plain", NULL, 0, NULL);
    expect_problem(&r, 415, "application/json");
    td_resp_free(&r);
    delete_mesh(&md, td_str(m, "id"), 204);
    ck_assert_int_ne(access(path, F_OK), 0); /* the file went with it */
    r = td_http(&md, "GET", route, NULL, NULL, 0, NULL);
    expect_problem(&r, 404, td_str(m, "id"));
    td_resp_free(&r);
    delete_mesh(&md, td_str(m, "id"), 404);
    delete_mesh(&md, "not-an-id", 404);
    cJSON_Delete(m);
}
END_TEST

/* A job with a box and the uploaded mesh; long enough to stay queued or
 * running while the test looks. */
static char *mesh_job_doc(const char *mesh_id)
{
    static const char fmt[] =
        "{\"name\": \"with mesh\", \"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": "
        "2500, \"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"box\", \"min\": [0, 0, 0], "
        "\"max\": [0.2, 0.2, 0.4], \"inside\": true}, {\"type\": \"mesh\", \"mesh\": \"%s\", "
        "\"scale\": 0.05, \"position\": [0.05, 0.05, 0]}], \"particles\": [{\"type\": "
        "\"lattice\", \"min\": [0.01, 0.01, 0.1], \"max\": [0.19, 0.19, 0.3], \"spacing\": 0.02, "
        "\"count\": 200, \"radius\": 0.008}]}, \"solver\": {\"time_step\": 1e-4, \"duration\": "
        "50}, \"output\": {\"frame_interval\": 1}}";
    char *s = malloc(sizeof fmt + 32);
    snprintf(s, sizeof fmt + 32, fmt, mesh_id);
    return s;
}

/* Passes both before and after the parser knows mesh geometry: while it
 * does not, the job is refused at its mesh entry and the mesh deletes;
 * once it does, the job holds the mesh (409) until it is cancelled. */
START_TEST(delete_while_referenced_is_409)
{
    cJSON *m = upload_file(&md, "tests/stl/cube_binary.stl", "model/stl", NULL);
    const char *mid = td_str(m, "id");
    char *doc = mesh_job_doc(mid);
    td_resp r = td_post_job(&md, doc);
    free(doc);
    if (r.status == 422) { /* the parser does not know "type": "mesh" yet */
        cJSON *p = cJSON_Parse(r.body);
        const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "errors"), 0);
        ck_assert_msg(!strncmp(td_str(e, "pointer"), "/scene/geometry/1", 17), "%s", r.body);
        cJSON_Delete(p);
        td_resp_free(&r);
        delete_mesh(&md, mid, 204);
        cJSON_Delete(m);
        return;
    }
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    cJSON *job = cJSON_Parse(r.body);
    char jid[64], path[128];
    snprintf(jid, sizeof jid, "%s", td_str(job, "id"));
    cJSON_Delete(job);
    td_resp_free(&r);
    snprintf(path, sizeof path, "/api/v1/meshes/%s", mid);
    r = td_http(&md, "DELETE", path, NULL, NULL, 0, NULL);
    expect_problem(&r, 409, jid); /* names the job that holds it */
    td_resp_free(&r);
    cJSON_Delete(td_get_json(&md, path, 200)); /* still there */
    /* an unknown mesh id is refused at its entry */
    doc = mesh_job_doc("0123456789abcdef");
    r = td_post_job(&md, doc);
    free(doc);
    ck_assert_msg(r.status == 422 && strstr(r.body, "/scene/geometry/1"), "%ld %s", r.status,
                  r.body);
    td_resp_free(&r);
    snprintf(path, sizeof path, "/api/v1/jobs/%s/cancel", jid);
    r = td_http(&md, "POST", path, NULL, NULL, 0, NULL);
    ck_assert_msg(r.status == 200 || r.status == 202, "%ld %s", r.status, r.body);
    td_resp_free(&r);
    td_wait_status(&md, jid, "cancelled", 60);
    delete_mesh(&md, mid, 204);
    cJSON_Delete(m);
}
END_TEST

/* A job whose geometry 2 is an inline mesh of the given "vertices" and
 * "triangles" members (after a box and a plane), one lattice of 8 spheres. */
static char *inline_mesh_doc(const char *members)
{
    static const char fmt[] =
        "{\"name\": \"inline mesh\", \"scene\": {\"materials\": [{\"name\": \"ore\", "
        "\"density\": 2500, \"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"box\", "
        "\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.4], \"inside\": true}, {\"type\": "
        "\"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1]}, {\"type\": \"mesh\", %s}], "
        "\"particles\": [{\"type\": \"lattice\", \"min\": [0.05, 0.05, 0.1], \"max\": "
        "[0.15, 0.15, 0.3], \"spacing\": 0.1, \"count\": 8, \"radius\": 0.01}]}, "
        "\"solver\": {\"time_step\": 1e-4, \"duration\": 50}, \"output\": "
        "{\"frame_interval\": 1}}";
    size_t n = sizeof fmt + strlen(members);
    char *s = malloc(n);
    ck_assert_ptr_nonnull(s);
    snprintf(s, n, fmt, members);
    return s;
}

/* The warnings of a resource: exactly one, at pointer, with message. */
static void expect_one_warning(const cJSON *job, const char *pointer, const char *message)
{
    const cJSON *w = cJSON_GetObjectItem(job, "warnings");
    ck_assert_msg(cJSON_IsArray(w) && cJSON_GetArraySize(w) == 1, "warnings: %s",
                  w ? cJSON_PrintUnformatted(w) : "absent");
    ck_assert_str_eq(td_str(cJSON_GetArrayItem(w, 0), "pointer"), pointer);
    ck_assert_str_eq(td_str(cJSON_GetArrayItem(w, 0), "message"), message);
}

static void cancel_job(const td_daemon *d, const char *id)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/jobs/%s/cancel", id);
    td_resp r = td_http(d, "POST", path, NULL, NULL, 0, NULL);
    ck_assert_msg(r.status == 200 || r.status == 202, "%ld %s", r.status, r.body);
    td_resp_free(&r);
    td_wait_status(d, id, "cancelled", 60);
}

/* What the mesh build dropped is a warning the daemon keeps with the job:
 * in POST's 201, in GET and in the list, at the mesh's pointer (issue 13). */
START_TEST(job_keeps_the_mesh_warnings)
{
    char *doc = inline_mesh_doc("\"vertices\": [[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0]], "
                                "\"triangles\": [[0, 1, 2], [2, 1, 0]]");
    td_resp r = td_post_job(&md, doc);
    free(doc);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    static const char msg[] = "mesh: dropped 0 degenerate and 1 duplicate of 2 triangles";
    cJSON *job = cJSON_Parse(r.body);
    td_resp_free(&r);
    expect_one_warning(job, "/scene/geometry/2", msg);
    char id[64], path[128];
    snprintf(id, sizeof id, "%s", td_str(job, "id"));
    cJSON_Delete(job);
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    job = td_get_json(&md, path, 200);
    expect_one_warning(job, "/scene/geometry/2", msg);
    cJSON_Delete(job);
    cJSON *list = td_get_json(&md, "/api/v1/jobs?limit=1", 200);
    expect_one_warning(cJSON_GetArrayItem(cJSON_GetObjectItem(list, "jobs"), 0),
                       "/scene/geometry/2", msg);
    cJSON_Delete(list);
    cancel_job(&md, id);
    /* a clean mesh: an empty list */
    doc = inline_mesh_doc("\"vertices\": [[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0]], "
                          "\"triangles\": [[0, 1, 2]]");
    r = td_post_job(&md, doc);
    free(doc);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    job = cJSON_Parse(r.body);
    td_resp_free(&r);
    const cJSON *w = cJSON_GetObjectItem(job, "warnings");
    ck_assert(cJSON_IsArray(w) && cJSON_GetArraySize(w) == 0);
    snprintf(id, sizeof id, "%s", td_str(job, "id"));
    cJSON_Delete(job);
    cancel_job(&md, id);
}
END_TEST

/* "vertices" and "triangles" of a flat k x k grid of squares, 2 k^2
 * triangles over [0, 0.2]^2 at z = 0.01 (malloc'd). */
static char *grid_members(int k)
{
    size_t cap = 64 + (size_t)(k + 1) * (k + 1) * 40 + (size_t)k * k * 60, n = 0;
    char *s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    n += (size_t)snprintf(s + n, cap - n, "\"vertices\": [");
    for (int j = 0; j <= k; j++)
        for (int i = 0; i <= k; i++)
            n += (size_t)snprintf(s + n, cap - n, "%s[%g, %g, 0.01]", i || j ? ", " : "",
                                  0.2 * i / k, 0.2 * j / k);
    n += (size_t)snprintf(s + n, cap - n, "], \"triangles\": [");
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++) {
            int a = j * (k + 1) + i, b = a + 1, c = a + k + 1, d = c + 1;
            n += (size_t)snprintf(s + n, cap - n, "%s[%d, %d, %d], [%d, %d, %d]",
                                  i || j ? ", " : "", a, b, d, a, d, c);
        }
    snprintf(s + n, cap - n, "]");
    return s;
}

/* A mesh's bytes count toward the job's memory, --max-particles particles'
 * worth: with --max-particles 20 (18,800 bytes) a job of 8 particles takes
 * a 2-triangle mesh but not a 200-triangle one (about 200 bytes a
 * triangle), refused at the mesh's pointer (issue 13). */
START_TEST(mesh_bytes_count_toward_the_budget)
{
    td_daemon d;
    td_start(&d, "--workers", "1", "--max-particles", "20", (char *)NULL);
    char *members = grid_members(10), *doc = inline_mesh_doc(members);
    td_resp r = td_post_job(&d, doc);
    free(doc);
    free(members);
    ck_assert_msg(r.status == 422, "%ld %.300s", r.status, r.body);
    cJSON *p = cJSON_Parse(r.body);
    const cJSON *errs = cJSON_GetObjectItem(p, "errors");
    ck_assert_int_eq(cJSON_GetArraySize(errs), 1);
    const cJSON *e = cJSON_GetArrayItem(errs, 0);
    ck_assert_str_eq(td_str(e, "pointer"), "/scene/geometry/2");
    const char *msg = td_str(e, "message");
    ck_assert_msg(strstr(msg, "this mesh's 200 triangles take") &&
                      strstr(msg, "the job's 8 particles") &&
                      strstr(msg, "more than the 18800 this server allows a job "
                                  "(--max-particles 20"),
                  "%s", msg);
    ck_assert_msg(strstr(td_str(p, "detail"), "/scene/geometry/2: this mesh's"), "%s",
                  td_str(p, "detail"));
    cJSON_Delete(p);
    td_resp_free(&r);
    members = grid_members(1);
    doc = inline_mesh_doc(members);
    r = td_post_job(&d, doc);
    free(doc);
    free(members);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    cJSON *job = cJSON_Parse(r.body);
    char id[64];
    snprintf(id, sizeof id, "%s", td_str(job, "id"));
    cJSON_Delete(job);
    td_resp_free(&r);
    cancel_job(&d, id);
    td_stop(&d);
}
END_TEST

START_TEST(restart_keeps_meshes)
{
    td_daemon d;
    td_start(&d, (char *)NULL);
    cJSON *m = upload_file(&d, "tests/stl/cube_ascii.stl", "model/stl", "?name=kept");
    td_signal(&d, SIGKILL, 5); /* no orderly shutdown: what was answered 201 is on disk */
    td_spawn(&d);
    char path[256];
    snprintf(path, sizeof path, "/api/v1/meshes/%s", td_str(m, "id"));
    cJSON *got = td_get_json(&d, path, 200);
    ck_assert(cJSON_Compare(got, m, 1));
    cJSON_Delete(got);
    size_t len;
    char *bytes = slurp("tests/stl/cube_ascii.stl", &len);
    td_resp r = td_http(&d, "GET", path, NULL, NULL, 0, "model/stl");
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(r.len, len);
    ck_assert(memcmp(r.body, bytes, len) == 0);
    td_resp_free(&r);
    free(bytes);
    cJSON *list = td_get_json(&d, "/api/v1/meshes", 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(list, "meshes")), 1);
    cJSON_Delete(list);
    /* a file without a row (a delete interrupted between the two) is removed */
    char orphan[512], cmd[1200];
    snprintf(orphan, sizeof orphan, "%s/var/meshes/00000000000000ff.stl", d.dir);
    snprintf(cmd, sizeof cmd, "cp tests/stl/cube_binary.stl '%s'", orphan);
    ck_assert_int_eq(td_signal(&d, SIGTERM, 30), 0);
    ck_assert_int_eq(system(cmd), 0);
    td_spawn(&d);
    ck_assert_int_ne(access(orphan, F_OK), 0);
    r = td_http(&d, "GET", "/api/v1/meshes/00000000000000ff", NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 404);
    td_resp_free(&r);
    /* --recover rebuilds the database: the files are the record, indexed again */
    ck_assert_int_eq(td_signal(&d, SIGTERM, 30), 0);
    d.args[d.nargs++] = "--recover";
    td_spawn(&d);
    got = td_get_json(&d, path, 200);
    ck_assert_int_eq((long)td_num(got, "triangles"), 12);
    ck_assert_int_eq((long)td_num(got, "bytes"), (long)len);
    ck_assert_str_eq(td_str(got, "format"), "ascii");
    ck_assert_str_eq(td_str(got, "name"), ""); /* the name was the index's */
    cJSON_Delete(got);
    cJSON_Delete(m);
    td_stop(&d);
}
END_TEST

static Suite *meshes_suite(void)
{
    Suite *s = suite_create("meshes");
    TCase *tc = tcase_create("units");
    tcase_add_test(tc, resolver_reads_files_and_records_ids);
    tcase_add_test(tc, references_block_delete_until_the_job_ends);
    tcase_add_test(tc, rehold_finds_the_meshes_of_queued_jobs);
    suite_add_tcase(s, tc);
    tc = tcase_create("routes");
    tcase_add_unchecked_fixture(tc, md_start, md_stop);
    tcase_add_test(tc, upload_ascii_and_binary);
    tcase_add_test(tc, dropped_triangles_are_reported);
    tcase_add_test(tc, bad_uploads_are_refused);
    tcase_add_test(tc, get_metadata_and_bytes);
    tcase_add_test(tc, list_pages_newest_first);
    tcase_add_test(tc, delete_then_404);
    tcase_add_test(tc, delete_while_referenced_is_409);
    tcase_add_test(tc, job_keeps_the_mesh_warnings);
    suite_add_tcase(s, tc);
    tc = tcase_create("restart");
    tcase_add_test(tc, restart_keeps_meshes);
    tcase_add_test(tc, mesh_bytes_count_toward_the_budget);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = ndem_test_run_suite(meshes_suite());
    rc = td_exit_code(rc);
    curl_global_cleanup();
    return rc;
}
