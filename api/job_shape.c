/* job_shape.c - the optional "shape" of a generator or emitter (a clump of
 * spheres, a convex polyhedron or a compound of convex pieces,
 * docs/shapes.md). It is read and checked in
 * full, the template built as the engine will build it (so a flat or
 * repeated set of points is reported where it is), and handed to the engine
 * in the generator's or emitter's definition. What the engine cannot run
 * with it yet (a method or law, a radius distribution) is refused
 * at the shape's pointer (job_methods.c, job_scene.c). */
#include "job_parts.h"
#include "shape.h"
#include "shape_body.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most spheres or vertices one shape may list (qhull and the duplicate
 * check stay quick). */
#define SHAPE_MAX_ENTRIES 1024

static const char *const shape_types[] = {"clump", "polyhedron", "compound", NULL};
static const char *const clump_keys[] = {"type", "spheres", NULL};
static const char *const polyhedron_keys[] = {"type", "vertices", NULL};
static const char *const compound_keys[] = {"type", "pieces", NULL};
static const char *const shape_keys[] = {"type", "spheres", "vertices", "pieces", NULL};
static const char *const *const type_keys[] = {clump_keys, polyhedron_keys, compound_keys};
static const char *const not_field[] = {"not a field of a clump", "not a field of a polyhedron",
                                        "not a field of a compound"};

/* The width-tuples of numbers of array arr (the last > 0 when
 * last_positive, errors under the pointer pushed) into v. */
static void read_tuple_items(ndem_jc *c, const cJSON *arr, int width, int last_positive,
                             const char *what, double *v)
{
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, arr)
    {
        size_t m2 = ndem_jc_push_index(c, i);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != width) {
            ndem_jc_error(c, "must be an array of %d numbers %s", width, what);
        } else {
            const cJSON *x;
            int k = 0;
            cJSON_ArrayForEach(x, e)
            {
                size_t m3 = ndem_jc_push_index(c, k);
                const ndem_jc_bound *b =
                    last_positive && k == width - 1 ? &ndem_jc_positive : &ndem_jc_any;
                ndem_jc_number_value(c, x, &v[(size_t)i * (size_t)width + (size_t)k], b);
                ndem_jc_pop(c, m3);
                k++;
            }
        }
        ndem_jc_pop(c, m2);
        i++;
    }
}

/* The array member key of width-tuples of numbers (the last > 0 when
 * last_positive), malloc'd into *out; returns the count, or -1 after
 * reporting. */
static int read_tuples(ndem_jc *c, const cJSON *obj, ndem_job *job, const char *key, int width,
                       int last_positive, const char *what, double **out)
{
    const cJSON *arr;
    *out = NULL;
    int n = ndem_jc_array(c, obj, key, 1, SHAPE_MAX_ENTRIES, NDEM_JC_REQUIRED, &arr);
    if (n <= 0) return -1;
    /* owned by the job, which the engine's definition points into */
    double *v = ndem_job_list_array(c, job, (size_t)n * (size_t)width);
    if (!v) return -1;
    memset(v, 0, (size_t)n * (size_t)width * sizeof *v);
    int before = ndem_jc_failed(c);
    size_t mark = ndem_jc_push_key(c, key);
    read_tuple_items(c, arr, width, last_positive, what, v);
    ndem_jc_pop(c, mark);
    if (ndem_jc_failed(c) != before) return -1;
    *out = v;
    return n;
}

/* A compound's "pieces": 1 to NDEM_COMPOUND_PIECES_MAX arrays of [x, y, z]
 * (at least 4 each), all points into *out piece after piece and the sizes
 * into *sizes (both owned by the job); returns the piece count, or -1
 * after reporting. */
static int read_pieces(ndem_jc *c, const cJSON *obj, ndem_job *job, double **out, int **sizes)
{
    const cJSON *arr, *e;
    *out = NULL;
    *sizes = NULL;
    int n = ndem_jc_array(c, obj, "pieces", 1, NDEM_COMPOUND_PIECES_MAX, NDEM_JC_REQUIRED, &arr);
    if (n <= 0) return -1;
    int before = ndem_jc_failed(c), total = 0, i = 0;
    size_t mark = ndem_jc_push_key(c, "pieces");
    cJSON_ArrayForEach(e, arr)
    {
        size_t m2 = ndem_jc_push_index(c, i++);
        int m = cJSON_IsArray(e) ? cJSON_GetArraySize(e) : 0;
        if (m < 4 || m > SHAPE_MAX_ENTRIES)
            ndem_jc_error(c, "must be an array of 4 to %d points [x, y, z] (a convex piece)",
                          SHAPE_MAX_ENTRIES);
        total += m;
        ndem_jc_pop(c, m2);
    }
    if (ndem_jc_failed(c) != before) {
        ndem_jc_pop(c, mark);
        return -1;
    }
    /* the sizes as ints in a job-owned array of doubles (as keyframes are) */
    double *v = ndem_job_list_array(c, job, 3 * (size_t)total);
    void *raw = ndem_job_list_array(c, job, (size_t)n); /* n doubles hold n ints */
    int *sz = raw;
    if (!v || !sz) {
        ndem_jc_pop(c, mark);
        return -1;
    }
    memset(v, 0, 3 * (size_t)total * sizeof *v);
    size_t at = 0;
    i = 0;
    cJSON_ArrayForEach(e, arr)
    {
        size_t m2 = ndem_jc_push_index(c, i);
        sz[i] = cJSON_GetArraySize(e);
        read_tuple_items(c, e, 3, 0, "[x, y, z]", v + at);
        at += 3 * (size_t)sz[i++];
        ndem_jc_pop(c, m2);
    }
    ndem_jc_pop(c, mark);
    if (ndem_jc_failed(c) != before) return -1;
    *out = v;
    *sizes = sz;
    return n;
}

void ndem_job_read_shape(ndem_jc *c, const cJSON *item, ndem_job *job, ndem_particle_shape_def *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, "shape");
    if (!v) return;
    size_t mark = ndem_jc_push_key(c, "shape");
    if (!ndem_jc_expect_object(c, v)) {
        ndem_jc_pop(c, mark);
        return;
    }
    int before = ndem_jc_failed(c), type = -1;
    if (ndem_jc_enum(c, v, "type", shape_types, "one of \"clump\", \"polyhedron\", \"compound\"",
                     &type, NDEM_JC_REQUIRED) != NDEM_JC_OK) {
        ndem_jc_members(c, v, shape_keys, NULL, NULL);
        ndem_jc_pop(c, mark);
        return;
    }
    ndem_jc_members(c, v, type_keys[type], shape_keys, not_field[type]);
    static const char *const data_key[] = {"spheres", "vertices", "pieces"};
    double *data;
    int *sizes = NULL;
    int n = type == 0   ? read_tuples(c, v, job, "spheres", 4, 1, "[x, y, z, r]", &data)
            : type == 1 ? read_tuples(c, v, job, "vertices", 3, 0, "[x, y, z]", &data)
                        : read_pieces(c, v, job, &data, &sizes);
    ndem_particle_shape_def def = {.type = type == 0   ? NDEM_PARTICLE_CLUMP
                                           : type == 1 ? NDEM_PARTICLE_POLYHEDRON
                                                       : NDEM_PARTICLE_COMPOUND,
                                   .count = n,
                                   .data = data,
                                   .piece_sizes = sizes};
    if (n > 0) {
        /* built at radius 1: the shape is scaled to each particle's radius */
        ndem_shape s;
        char err[256];
        int piece;
        if (ndem_shape_from_def(&def, 1.0, &s, err, sizeof err) == 0) {
            ndem_shape_clear(&s);
        } else if (type == 2 && sscanf(err, "piece %d:", &piece) == 1) { /* at the piece */
            size_t m1 = ndem_jc_push_key(c, "pieces"), m2 = ndem_jc_push_index(c, piece);
            ndem_jc_error(c, "%s", strchr(err, ':') + 2);
            ndem_jc_pop(c, m2);
            ndem_jc_pop(c, m1);
        } else {
            ndem_jc_error_at(c, data_key[type], "%s", err);
        }
    }
    if (ndem_jc_failed(c) == before) *out = def;
    ndem_jc_pop(c, mark);
}

/* What the engine refuses for one shaped generator or emitter (shape_body.c
 * says the same), at its shape's pointer. */
static void check_source(ndem_jc *c, const ndem_job *job, const char *place, int index,
                         const ndem_radius_dist *radius, int bonded)
{
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/scene/%s/%d/shape", place, index);
    if (radius && radius->kind == NDEM_RADIUS_UNIFORM)
        ndem_jc_error_ptr(c, ptr,
                          "needs a fixed radius or a list of radius values (one template per "
                          "radius), not a uniform distribution");
    if (bonded) ndem_jc_error_ptr(c, ptr, "bonds join spheres, not shaped particles");
    const ndem_scene_def *s = &job->scene;
    char why[256];
    if (ndem_shapes_geometry_refused(s->solver.method, s->geometry, s->geometry_count, why,
                                     sizeof why))
        ndem_jc_error_ptr(c, ptr, "%s", why);
}

/* 1 when material m is the material of a shaped generator or emitter. */
static int shaped_material(const ndem_scene_def *s, int m)
{
    for (int i = 0; i < s->generator_count; i++)
        if (s->generators[i].shape.type != NDEM_PARTICLE_SPHERE && s->generators[i].material == m)
            return 1;
    for (int i = 0; i < s->emitter_count; i++)
        if (s->emitters[i].shape.type != NDEM_PARTICLE_SPHERE && s->emitters[i].material == m)
            return 1;
    return 0;
}

/* 1 when a list has more than NDEM_SHAPE_RADII_MAX different radii. */
static int too_many_radii(const ndem_generator_def *g)
{
    double seen[NDEM_SHAPE_RADII_MAX];
    int n = 0;
    for (long k = 0; k < g->list_count; k++) {
        double r = g->spheres[4 * k + 3];
        int found = 0;
        for (int i = 0; i < n && !found; i++) found = seen[i] == r;
        if (found) continue;
        if (n == NDEM_SHAPE_RADII_MAX) return 1;
        seen[n++] = r;
    }
    return 0;
}

void ndem_job_check_shapes(ndem_jc *c, const ndem_job *job)
{
    const ndem_scene_def *s = &job->scene;
    /* the pair laws a shaped contact does not take yet (dem_shape.c) */
    for (int i = 0; i < s->contact_material_count; i++) {
        const ndem_contact_material_def *cm = &s->contact_materials[i];
        if (!shaped_material(s, cm->material_a) && !shaped_material(s, cm->material_b)) continue;
        static const char *const why = "does not apply to shaped particles yet (docs/shapes.md)";
        char ptr[96];
        if (cm->rolling_resistance != 0) {
            snprintf(ptr, sizeof ptr, "/scene/contact_materials/%d/rolling_resistance", i);
            ndem_jc_error_ptr(c, ptr, "%s", why);
        }
        if (cm->hamaker != 0) {
            snprintf(ptr, sizeof ptr, "/scene/contact_materials/%d/hamaker", i);
            ndem_jc_error_ptr(c, ptr, "%s", why);
        }
        if (cm->velocity_friction) {
            snprintf(ptr, sizeof ptr, "/scene/contact_materials/%d/velocity_friction", i);
            ndem_jc_error_ptr(c, ptr, "%s", why);
        }
        /* NDEM's general rows: no adhesion, no twisting row */
        if (cm->adhesion != 0) {
            snprintf(ptr, sizeof ptr, "/scene/contact_materials/%d/adhesion", i);
            ndem_jc_error_ptr(c, ptr, "%s", why);
        }
        if (cm->adhesive_overlap != 0) {
            snprintf(ptr, sizeof ptr, "/scene/contact_materials/%d/adhesive_overlap", i);
            ndem_jc_error_ptr(c, ptr, "%s", why);
        }
        if (cm->twisting_resistance > 0 && cm->rolling_resistance == 0) { /* else it follows */
            snprintf(ptr, sizeof ptr, "/scene/contact_materials/%d/twisting_resistance", i);
            ndem_jc_error_ptr(c, ptr, "%s", why);
        }
    }
    for (int i = 0; i < s->generator_count; i++) {
        const ndem_generator_def *g = &s->generators[i];
        if (g->shape.type == NDEM_PARTICLE_SPHERE) continue;
        check_source(c, job, "particles", i, g->type == NDEM_GENERATOR_LIST ? NULL : &g->radius,
                     g->bonded || g->bond_pair_count > 0);
        if (g->type == NDEM_GENERATOR_LIST && g->spheres && too_many_radii(g)) {
            char ptr[64];
            snprintf(ptr, sizeof ptr, "/scene/particles/%d/shape", i);
            ndem_jc_error_ptr(c, ptr,
                              "shaped particles take at most %d different radii (one template "
                              "each); this list has more",
                              NDEM_SHAPE_RADII_MAX);
        }
    }
    for (int i = 0; i < s->emitter_count; i++)
        if (s->emitters[i].shape.type != NDEM_PARTICLE_SPHERE)
            check_source(c, job, "emitters", i, &s->emitters[i].radius, 0);
}
