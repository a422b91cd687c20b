/* job_shapes.c - the shape templates of a job document (job_shapes.h). */
#include "job_shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The arrays whose entries may hold a `shape`, in template order. */
static const char *const shape_holders[] = {"particles", "emitters"};

/* Called for each `shape` object of doc in template order. */
typedef int (*shape_visit)(void *ctx, const cJSON *shape, const char *pointer);

static int each_shape(const cJSON *doc, shape_visit visit, void *ctx)
{
    const cJSON *scene = cJSON_GetObjectItemCaseSensitive(doc, "scene");
    for (size_t h = 0; h < sizeof shape_holders / sizeof shape_holders[0]; h++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(scene, shape_holders[h]), *e;
        const cJSON *items = cJSON_IsArray(arr) ? arr : NULL;
        int i = 0;
        cJSON_ArrayForEach(e, items)
        {
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "shape");
            char pointer[64];
            snprintf(pointer, sizeof pointer, "/scene/%s/%d/shape", shape_holders[h], i++);
            if (s && visit(ctx, s, pointer)) return -1;
        }
    }
    return 0;
}

/* n tuples of `width` numbers of array arr, or NULL (and *n = 0) when any
 * is not a number. */
static double *tuples_of(const cJSON *arr, int width, int *n)
{
    const cJSON *e;
    *n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
    double *v = *n ? malloc((size_t)*n * (size_t)width * sizeof *v) : NULL;
    const cJSON *items = v ? arr : NULL;
    int i = 0;
    cJSON_ArrayForEach(e, items)
    {
        int k = 0;
        const cJSON *x;
        if (cJSON_GetArraySize(e) != width) break;
        cJSON_ArrayForEach(x, e)
        {
            if (!cJSON_IsNumber(x)) break;
            v[i * width + k++] = x->valuedouble;
        }
        if (k != width) break;
        i++;
    }
    if (i != *n) {
        free(v);
        *n = 0;
        return NULL;
    }
    return v;
}

static double *tuples(const cJSON *shape, const char *key, int width, int *n)
{
    return tuples_of(cJSON_GetObjectItemCaseSensitive(shape, key), width, n);
}

static void move_poly(ndem_polyhedron *p, const double *c)
{
    for (int i = 0; i < p->n_vertices; i++)
        for (int k = 0; k < 3; k++) p->vertices[3 * i + k] -= c[k];
    for (int f = 0; f < p->n_faces; f++)
        for (int k = 0; k < 3; k++) p->face_d[f] -= p->face_normal[3 * f + k] * c[k];
}

/* Moves a built template so that its centre of mass is the origin: the
 * engine places a shaped particle by its centre of mass (frames' positions),
 * and the centroid scales with the radius like every point. */
static void about_centroid(ndem_shape *s)
{
    const double *c = s->mass.centroid;
    for (int i = 0; i < s->n_spheres; i++)
        for (int k = 0; k < 3; k++) s->spheres[4 * i + k] -= c[k];
    move_poly(&s->poly, c);
    for (int i = 0; i < s->n_pieces; i++) move_poly(&s->pieces[i].poly, c);
    s->mass.centroid[0] = s->mass.centroid[1] = s->mass.centroid[2] = 0;
}

/* A compound's pieces as one array of points and their sizes (malloc'd),
 * or -1 when a piece is not an array of [x, y, z]. */
static int pieces_of(const cJSON *shape, double **pts, int **sizes, int *n)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(shape, "pieces"), *e;
    *n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
    *pts = NULL;
    *sizes = *n ? calloc((size_t)*n, sizeof **sizes) : NULL;
    if (!*sizes) return -1;
    int k = 0, total = 0;
    cJSON_ArrayForEach(e, arr)
    {
        int m;
        double *v = tuples_of(e, 3, &m);
        double *grown = v ? realloc(*pts, 3 * (size_t)(total + m) * sizeof *grown) : NULL;
        if (!grown) {
            free(v);
            return -1;
        }
        *pts = grown;
        memcpy(*pts + 3 * total, v, 3 * (size_t)m * sizeof *v);
        free(v);
        (*sizes)[k++] = m;
        total += m;
    }
    return 0;
}

/* The template of one `shape` at particle radius 1 (its bounding radius
 * about the body-frame origin), moved to its centre of mass; -1 and err
 * when it does not build. */
static int build(const cJSON *shape, ndem_shape *out, char *err, size_t err_len)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(shape, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    int clump = !strcmp(t, "clump"), poly = !strcmp(t, "polyhedron");
    int compound = !strcmp(t, "compound");
    int n, *sizes = NULL;
    double *v = NULL;
    int rc = -1;
    if (compound) {
        if (pieces_of(shape, &v, &sizes, &n) == 0)
            rc = ndem_shape_compound(v, sizes, n, 1.0, out, err, err_len);
        else snprintf(err, err_len, "pieces: not arrays of [x, y, z]");
    } else if (clump || poly) {
        v = clump ? tuples(shape, "spheres", 4, &n) : tuples(shape, "vertices", 3, &n);
        if (!v)
            snprintf(err, err_len, "%s: not an array of numbers", clump ? "spheres" : "vertices");
        else if (clump) rc = ndem_shape_clump(v, n, 1.0, out, err, err_len);
        else rc = ndem_shape_polyhedron(v, n, 1.0, out, err, err_len);
    } else {
        snprintf(err, err_len, "not a clump, a polyhedron or a compound");
    }
    free(v);
    free(sizes);
    if (rc == 0) about_centroid(out);
    return rc;
}

static int add_template(void *ctx, const cJSON *shape, const char *pointer)
{
    ndem_shape_table *t = ctx;
    ndem_shape s;
    char err[256];
    if (build(shape, &s, err, sizeof err) && ndem_shape_sphere(1.0, &s, err, sizeof err)) return -1;
    return ndem_shape_table_add(t, &s) < 0 ? -1 : 0;
}

ndem_shape_table *ndem_job_shape_table(const cJSON *doc)
{
    ndem_shape_table *t = ndem_shape_table_create();
    if (t && each_shape(doc, add_template, t)) {
        ndem_shape_table_destroy(t);
        return NULL;
    }
    return t;
}

static cJSON *numbers(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

/* A polyhedron's vertices and faces into the arrays (face indices offset
 * by base: a compound lists its pieces' hulls as one vertex list). */
static void describe_poly(cJSON *vs, cJSON *fs, const ndem_polyhedron *p, int base)
{
    for (int i = 0; vs && i < p->n_vertices; i++)
        cJSON_AddItemToArray(vs, numbers(p->vertices + 3 * i, 3));
    for (int f = 0; fs && f < p->n_faces; f++) {
        cJSON *loop = cJSON_CreateArray();
        for (int k = p->face_start[f]; loop && k < p->face_start[f + 1]; k++)
            cJSON_AddItemToArray(loop, cJSON_CreateNumber(base + p->face_vertices[k]));
        cJSON_AddItemToArray(fs, loop);
    }
}

/* The geometry of a built template into entry o. */
static void describe(cJSON *o, const ndem_shape *s)
{
    if (s->type == NDEM_SHAPE_CLUMP) {
        cJSON *sp = cJSON_AddArrayToObject(o, "spheres");
        for (int i = 0; sp && i < s->n_spheres; i++)
            cJSON_AddItemToArray(sp, numbers(s->spheres + 4 * i, 4));
        return;
    }
    cJSON *vs = cJSON_AddArrayToObject(o, "vertices"), *fs = cJSON_AddArrayToObject(o, "faces");
    if (s->type != NDEM_SHAPE_COMPOUND) {
        describe_poly(vs, fs, &s->poly, 0);
        return;
    }
    /* a compound: every piece's hull faces over one vertex list, and
     * "piece_faces": how many faces each piece has, in order */
    cJSON *pf = cJSON_AddArrayToObject(o, "piece_faces");
    for (int k = 0, base = 0; k < s->n_pieces; k++) {
        describe_poly(vs, fs, &s->pieces[k].poly, base);
        base += s->pieces[k].poly.n_vertices;
        if (pf) cJSON_AddItemToArray(pf, cJSON_CreateNumber(s->pieces[k].poly.n_faces));
    }
}

static int add_entry(void *ctx, const cJSON *shape, const char *pointer)
{
    cJSON *list = ctx, *o = cJSON_CreateObject();
    if (!o) return -1;
    cJSON_AddItemToArray(list, o);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(shape, "type");
    cJSON_AddNumberToObject(o, "index", cJSON_GetArraySize(list) - 1);
    cJSON_AddStringToObject(o, "type", cJSON_IsString(type) ? type->valuestring : "");
    cJSON_AddStringToObject(o, "source", pointer);
    ndem_shape s;
    char err[256];
    if (build(shape, &s, err, sizeof err)) {
        cJSON_AddStringToObject(o, "error", err);
        return 0;
    }
    cJSON_AddNumberToObject(o, "radius", s.radius);
    describe(o, &s);
    ndem_shape_clear(&s);
    return 0;
}

cJSON *ndem_job_shape_list(const cJSON *doc)
{
    cJSON *list = cJSON_CreateArray();
    if (list && each_shape(doc, add_entry, list)) {
        cJSON_Delete(list);
        return NULL;
    }
    return list;
}
