/* job_mesh.c - a mesh geometry of a job document (docs/meshes.md): its
 * triangles from exactly one source (inline vertices and triangles, STL
 * text or base64, an uploaded mesh's id, a file next to the job), placed by
 * position, orientation and scale; built once here, owned by the job. */
#include "base64.h"
#include "geometry_mesh.h"
#include "job_parts.h"
#include "jsonw.h"
#include "stl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest placement scale: placed coordinates stay far from overflow. */
#define MESH_MAX_SCALE 1e6

static const ndem_jc_bound scale_bound = {0.0, MESH_MAX_SCALE, 1, 0,
                                          "must be a number above 0 and at most 1e6"};
static const ndem_jc_bound weld_bound = {0.0, NDEM_MESH_MAX_COORD, 0, 0,
                                         "must be a number from 0 to 1e9"};

/* Keeps a warning for the job ("<pointer>: <message>"). */
static void warn(ndem_jc *c, ndem_job *job, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(msg, sizeof msg, "%s: ", c->ptr);
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    char **w = realloc(job->warnings, (size_t)(job->warning_count + 1) * sizeof *w);
    char *copy = strdup(msg);
    if (w) job->warnings = w;
    if (!w || !copy) {
        free(copy);
        c->oom = 1;
        return;
    }
    job->warnings[job->warning_count++] = copy;
}

/* "vertices" and "triangles" into a soup (malloc'd, 9 doubles per
 * triangle); NULL after reporting. */
static double *inline_soup(ndem_jc *c, const cJSON *item, long *n_tri)
{
    const cJSON *va, *ta, *e;
    int nv = ndem_jc_array(c, item, "vertices", 1, 3 * (int)NDEM_MESH_MAX_TRIANGLES,
                           NDEM_JC_REQUIRED, &va);
    int nt =
        ndem_jc_array(c, item, "triangles", 1, (int)NDEM_MESH_MAX_TRIANGLES, NDEM_JC_REQUIRED, &ta);
    if (nv <= 0 || nt <= 0) return NULL;
    double *v = malloc(3 * (size_t)nv * sizeof *v), *soup = malloc(9 * (size_t)nt * sizeof *soup);
    int ok = v && soup, i = 0;
    if (!ok) c->oom = 1;
    size_t mark = ndem_jc_push_key(c, "vertices");
    cJSON_ArrayForEach(e, va)
    {
        size_t m2 = ndem_jc_push_index(c, i);
        if (ok && ndem_jc_vec3_value(c, e, v + 3 * i) != NDEM_JC_OK) ok = 0;
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
    mark = ndem_jc_push_key(c, "triangles");
    i = 0;
    cJSON_ArrayForEach(e, ta)
    {
        size_t m2 = ndem_jc_push_index(c, i);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3) {
            ndem_jc_error(c, "must be an array of 3 vertex indices [i, j, k]");
            ok = 0;
        } else {
            int k = 0;
            const cJSON *x;
            cJSON_ArrayForEach(x, e)
            {
                size_t m3 = ndem_jc_push_index(c, k);
                double d = cJSON_IsNumber(x) ? x->valuedouble : -1.0;
                if (!cJSON_IsNumber(x) || d != floor(d)) {
                    ndem_jc_error(c, "must be a vertex index (an integer, got %s)",
                                  cJSON_IsNumber(x) ? "a fraction" : ndem_jc_type_name(x));
                    ok = 0;
                } else if (d < 0 || d >= nv) {
                    ndem_jc_error(c, "index %.0f out of range (%d vertices: 0 to %d)", d, nv,
                                  nv - 1);
                    ok = 0;
                } else if (ok) {
                    memcpy(soup + 9 * i + 3 * k, v + 3 * (long)d, 3 * sizeof *v);
                }
                ndem_jc_pop(c, m3);
                k++;
            }
        }
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
    free(v);
    if (!ok) {
        free(soup);
        return NULL;
    }
    *n_tri = nt;
    return soup;
}

/* STL bytes into a soup; errors at the member key. */
static double *stl_soup(ndem_jc *c, const char *key, const unsigned char *bytes, size_t len,
                        long *n_tri)
{
    char err[256];
    double *soup = NULL;
    if (ndem_stl_parse(bytes, len, &soup, n_tri, err, sizeof err) != 0) {
        ndem_jc_error_at(c, key, "%s", err);
        return NULL;
    }
    return soup;
}

/* "stl": ASCII STL text (begins with "solid" and a space or line break),
 * else binary STL as base64. */
static double *text_soup(ndem_jc *c, const cJSON *item, long *n_tri)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(item, "stl");
    if (!cJSON_IsString(s) || !s->valuestring) {
        ndem_jc_error_at(c, "stl", "must be a string: ASCII STL, or binary STL as base64 (got %s)",
                         ndem_jc_type_name(s));
        return NULL;
    }
    const char *t = s->valuestring;
    size_t len = strlen(t);
    if (len >= 6 && !strncmp(t, "solid", 5) && strchr(" \t\r\n", t[5]))
        return stl_soup(c, "stl", (const unsigned char *)t, len, n_tri);
    unsigned char *bin = NULL;
    size_t blen = 0;
    char err[256];
    if (ndem_base64_decode(t, len, &bin, &blen, err, sizeof err) != 0) {
        ndem_jc_error_at(
            c, "stl", "%s (not ASCII STL, which begins with \"solid \", so read as base64)", err);
        return NULL;
    }
    double *soup = stl_soup(c, "stl", bin, blen, n_tri);
    free(bin);
    return soup;
}

/* "mesh": an uploaded mesh's id, through the daemon's resolver. */
static double *id_soup(ndem_jc *c, const cJSON *item, long *n_tri)
{
    const char *id = NULL;
    char q[64];
    if (ndem_jc_string(c, item, "mesh", &id, 1, 256, 0) != NDEM_JC_OK) return NULL;
    if (!c->opts || !c->opts->mesh_bytes) {
        ndem_jc_error_at(c, "mesh",
                         "uploaded meshes are named by id only in jobs submitted to the daemon "
                         "(ndem run: give \"file\", \"stl\" or \"vertices\" and \"triangles\")");
        return NULL;
    }
    char *bytes = NULL;
    size_t len = 0;
    if (c->opts->mesh_bytes(c->opts->mesh_ctx, id, &bytes, &len) != 0) {
        ndem_jc_error_at(c, "mesh", "no uploaded mesh has the id '%s'",
                         ndem_jc_quote(id, q, sizeof q));
        return NULL;
    }
    double *soup = stl_soup(c, "mesh", (const unsigned char *)bytes, len, n_tri);
    free(bytes);
    return soup;
}

/* "file": an STL file relative to the job file's directory. */
static double *file_soup(ndem_jc *c, const cJSON *item, long *n_tri)
{
    const char *name = NULL;
    char q[64];
    if (ndem_jc_string(c, item, "file", &name, 1, 4096, 0) != NDEM_JC_OK) return NULL;
    if (!c->opts || !c->opts->base_dir) {
        ndem_jc_error_at(c, "file",
                         "is read by `ndem run` only: a server never reads a client's paths "
                         "(upload the STL with POST /api/v1/meshes and give its id in \"mesh\")");
        return NULL;
    }
    size_t n = strlen(c->opts->base_dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path) {
        c->oom = 1;
        return NULL;
    }
    if (name[0] == '/') snprintf(path, n, "%s", name);
    else snprintf(path, n, "%s/%s", c->opts->base_dir, name);
    size_t len = 0;
    char *bytes = ndem_read_file(path, &len);
    double *soup = NULL;
    if (!bytes)
        ndem_jc_error_at(c, "file", "cannot read '%s': %s", ndem_jc_quote(path, q, sizeof q),
                         strerror(errno));
    else soup = stl_soup(c, "file", (const unsigned char *)bytes, len, n_tri);
    free(bytes);
    free(path);
    return soup;
}

/* The sources, one reader each; "vertices" stands for the inline pair. */
static const struct {
    const char *key;
    double *(*read)(ndem_jc *c, const cJSON *item, long *n_tri);
} sources[] = {
    {"vertices", inline_soup}, {"stl", text_soup}, {"mesh", id_soup}, {"file", file_soup}};
#define SOURCE_COUNT (int)(sizeof sources / sizeof sources[0])

/* Exactly one source present: its index, else -1 after reporting. */
static int one_source(ndem_jc *c, const cJSON *item)
{
    int found = -1, count = 0;
    char names[128] = "";
    for (int i = 0; i < SOURCE_COUNT; i++) {
        int has = cJSON_GetObjectItemCaseSensitive(item, sources[i].key) != NULL;
        if (i == 0) has |= cJSON_GetObjectItemCaseSensitive(item, "triangles") != NULL;
        if (!has) continue;
        if (count++ == 0) found = i;
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s\"%s\"", l ? " and " : "",
                 i == 0 ? "vertices/triangles" : sources[i].key);
    }
    if (count == 1) return found;
    if (count == 0)
        ndem_jc_error(c, "a mesh needs its triangles: \"vertices\" and \"triangles\", \"stl\", "
                         "\"mesh\" (an uploaded mesh's id) or \"file\"");
    else
        ndem_jc_error(c,
                      "a mesh takes exactly one of \"vertices\" and \"triangles\", \"stl\", "
                      "\"mesh\" or \"file\" (got %s)",
                      names);
    return -1;
}

void ndem_job_read_mesh(ndem_jc *c, const cJSON *item, ndem_job *job, ndem_geometry_def *g)
{
    double position[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0}, scale = 1.0, weld = 0.0;
    ndem_jc_vec3(c, item, "position", position, 0);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(item, "orientation");
    int ok = 1;
    if (o) {
        size_t mark = ndem_jc_push_key(c, "orientation");
        ok &= ndem_job_quaternion_value(c, o, q) == NDEM_JC_OK;
        ndem_jc_pop(c, mark);
    }
    ok &= ndem_jc_number(c, item, "scale", &scale, &scale_bound, 0) != NDEM_JC_BAD;
    ok &= ndem_jc_number(c, item, "weld_tolerance", &weld, &weld_bound, 0) != NDEM_JC_BAD;
    int src = one_source(c, item);
    if (src < 0) return;
    long n_tri = 0;
    double *soup = sources[src].read(c, item, &n_tri);
    if (!soup || !ok) {
        free(soup);
        return;
    }
    char err[256];
    const char *at = src == 0 ? "triangles" : sources[src].key;
    ndem_mesh *m = NULL;
    ndem_mesh_report rep;
    int built = ndem_mesh_build(soup, n_tri, weld, &m, &rep, err, sizeof err);
    free(soup);
    if (built != 0) {
        ndem_jc_error_at(c, at, "%s", err);
        return;
    }
    long total = m->n_triangles; /* one limit for the whole job: memory grows with it */
    for (int i = 0; i < job->mesh_count; i++) total += job->meshes[i]->mesh->n_triangles;
    if (total > NDEM_MESH_MAX_TRIANGLES) {
        ndem_jc_error_at(c, at, "the job's meshes hold %ld triangles, more than the limit of %ld",
                         total, NDEM_MESH_MAX_TRIANGLES);
        ndem_mesh_destroy(m);
        return;
    }
    if (rep.degenerate || rep.duplicate)
        warn(c, job, "mesh: dropped %ld degenerate and %ld duplicate of %ld triangles",
             rep.degenerate, rep.duplicate, rep.input_triangles);
    ndem_mesh_shape *s = NULL;
    struct ndem_mesh_shape **list =
        realloc(job->meshes, (size_t)(job->mesh_count + 1) * sizeof *list);
    if (list) job->meshes = list;
    if (!list || ndem_mesh_shape_create(m, position, q, scale, &s, err, sizeof err) != 0) {
        ndem_mesh_destroy(m);
        c->oom = 1;
        return;
    }
    s->source = m; /* written back by ndem_job_emit_mesh */
    job->meshes[job->mesh_count++] = s;
    g->mesh = s;
}

/* mesh_alloc's arrays (core/mesh.c): per vertex 3 doubles and its owner,
 * per triangle its vertices, neighbours, edge owners (3 ints each) and
 * group. */
static double built_bytes(const ndem_mesh *m)
{
    return (double)sizeof *m + (double)m->n_vertices * (3 * sizeof(double) + sizeof(int)) +
           (double)m->n_triangles * 10 * sizeof(int);
}

double ndem_job_mesh_bytes(const ndem_geometry_def *g, long *triangles)
{
    const ndem_mesh_shape *s = g->type == NDEM_GEOMETRY_MESH ? g->mesh : NULL;
    if (triangles) *triangles = s ? s->mesh->n_triangles : 0;
    if (!s) return 0;
    const ndem_mesh *m = s->mesh;
    double nt = m->n_triangles, nv = m->n_vertices;
    double cells = (double)s->dim[0] * s->dim[1] * s->dim[2];
    /* ndem_mesh_shape_create's arrays (core/geometry_mesh.c) */
    double tables = 4.0 * m->n_groups * sizeof(double) +              /* plane */
                    nt * (3 + 3 + 3) * sizeof(int) +                  /* edge_id, fan, tri_cell0 */
                    (nv + 1) * sizeof(int) +                          /* fan_start */
                    nt * (4 * sizeof(double) + 1) +                   /* tri_sphere, flat */
                    (2 * cells + 1) * sizeof(int) +                   /* cell_start, cell_group */
                    (double)s->cell_start[(long)cells] * sizeof(int); /* cell_tri */
    return (double)sizeof *s + built_bytes(m) + (s->source ? built_bytes(s->source) : 0) + tables;
}

/* The mesh as built from the document (welded, bad triangles dropped) with
 * its placement, and weld_tolerance 0: parsing it again builds the same
 * mesh and places it the same, so a keyframe still finds the mesh's own
 * position and orientation. */
void ndem_job_emit_mesh(ndem_jw *w, const ndem_geometry_def *g)
{
    const ndem_mesh_shape *s = g->mesh;
    const ndem_mesh *m = s->source ? s->source : s->mesh;
    ndem_jw_key(w, "vertices");
    ndem_jw_begin(w, '[', 0);
    for (int v = 0; v < m->n_vertices; v++) {
        ndem_jw_next(w);
        ndem_jw_vec3(w, m->vertices + 3 * v);
    }
    ndem_jw_end(w);
    ndem_jw_key(w, "triangles");
    ndem_jw_begin(w, '[', 0);
    for (int t = 0; t < m->n_triangles; t++) {
        ndem_jw_next(w);
        ndem_jw_begin(w, '[', 1);
        for (int k = 0; k < 3; k++) {
            ndem_jw_next(w);
            ndem_jw_long(w, m->triangles[3 * t + k]);
        }
        ndem_jw_end(w);
    }
    ndem_jw_end(w);
    if (!s->source) return; /* already placed */
    ndem_jw_kvec3(w, "position", s->position);
    ndem_jw_kquat(w, "orientation", s->orientation);
    ndem_jw_knumber(w, "scale", s->scale);
    ndem_jw_knumber(w, "weld_tolerance", 0.0);
}
