/* job_scene.c - the scene contents of a job document: geometry, particle
 * generators (with their radius distributions) and emitters. */
#include "job_parts.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GEOMETRY_COMMON                                                                            \
    "type", "name", "material", "velocity", "angular_velocity", "motion", "dynamic", "walls"
static const char *const plane_keys[] = {GEOMETRY_COMMON, "point", "normal", NULL};
static const char *const box_keys[] = {GEOMETRY_COMMON, "min", "max", "inside", NULL};
static const char *const cylinder_keys[] = {GEOMETRY_COMMON, "center", "axis", "radius",
                                            "length",        "inside", NULL};
static const char *const mesh_keys[] = {
    GEOMETRY_COMMON, "vertices", "triangles",      "stl", "mesh", "file", "position",
    "orientation",   "scale",    "weld_tolerance", NULL};
static const char *const geometry_keys[] = {
    GEOMETRY_COMMON, "point",  "normal",         "min",       "max", "inside", "center", "axis",
    "radius",        "length", "vertices",       "triangles", "stl", "mesh",   "file",   "position",
    "orientation",   "scale",  "weld_tolerance", NULL};

#define GENERATOR_COMMON                                                                           \
    "type", "material", "fixed_rotation", "bonded", "force", "force_rate", "shape"
static const char *const lattice_keys[] = {GENERATOR_COMMON, "min",    "max",      "spacing",
                                           "count",          "radius", "velocity", NULL};
static const char *const random_keys[] = {GENERATOR_COMMON, "min",  "max",      "count",
                                          "radius",         "seed", "velocity", NULL};
static const char *const list_keys[] = {
    GENERATOR_COMMON, "spheres", "velocities", "orientations", "angular_velocities", "bonds", NULL};
static const char *const generator_keys[] = {GENERATOR_COMMON,
                                             "min",
                                             "max",
                                             "spacing",
                                             "count",
                                             "radius",
                                             "velocity",
                                             "seed",
                                             "spheres",
                                             "velocities",
                                             "orientations",
                                             "angular_velocities",
                                             NULL};

static const char *const emitter_keys[] = {"type", "min",       "max",    "rate",     "start",
                                           "stop", "max_count", "radius", "material", "velocity",
                                           "seed", "shape",     NULL};

static const char *const uniform_keys[] = {"min", "max", NULL};
static const char *const values_keys[] = {"values", "weights", NULL};
static const char *const radius_keys[] = {"min", "max", "values", "weights", NULL};

/* Upper bound of long members (count, max_count) and of seeds. */
#define LONG_HI (LONG_MAX < NDEM_JC_INT_MAX ? (long long)LONG_MAX : NDEM_JC_INT_MAX)

/* ---- shared pieces ---- */

/* Scales v to unit length; 0 when v is zero. A vector already of unit length
 * up to rounding stays as it is, so that the JSON round trip is exact. */
static int normalise(double v[3])
{
    double n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if (fabs(sqrt(n2) - 1.0) <= 1e-12) return 1;
    double s = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    if (!(s > 0.0)) return 0;
    /* Dividing by the largest component first avoids overflow/underflow. */
    double a = v[0] / s, b = v[1] / s, c = v[2] / s;
    double n = sqrt(a * a + b * b + c * c);
    v[0] = a / n;
    v[1] = b / n;
    v[2] = c / n;
    return 1;
}

/* A unit vector member (plane normal, cylinder axis). */
static int read_direction(ndem_jc *c, const cJSON *obj, const char *key, double out[3])
{
    double v[3];
    int r = ndem_jc_vec3(c, obj, key, v, NDEM_JC_REQUIRED);
    if (r != NDEM_JC_OK) return r;
    if (!normalise(v)) {
        ndem_jc_error_at(c, key, "must be a non-zero vector");
        return NDEM_JC_BAD;
    }
    memcpy(out, v, sizeof v);
    return NDEM_JC_OK;
}

/* min and max members; strict: max > min, else max >= min, per component. */
static void read_bounds(ndem_jc *c, const cJSON *obj, double min[3], double max[3], int strict)
{
    int a = ndem_jc_vec3(c, obj, "min", min, NDEM_JC_REQUIRED);
    int b = ndem_jc_vec3(c, obj, "max", max, NDEM_JC_REQUIRED);
    if (a != NDEM_JC_OK || b != NDEM_JC_OK) return;
    for (int i = 0; i < 3; i++) {
        if (strict ? !(max[i] > min[i]) : !(max[i] >= min[i])) {
            ndem_jc_error_at(c, "max", "must be %s \"min\" in every component",
                             strict ? "greater than" : "at least");
            return;
        }
    }
}

/* Generator and emitter regions: every coordinate within
 * NDEM_MAX_COORDINATE of the origin (the engine's limit, ndem.h); reported
 * at /min/k or /max/k. Members that failed to read are left alone. */
static void check_region(ndem_jc *c, const double min[3], const double max[3])
{
    static const char *const keys[2] = {"min", "max"};
    const double *v[2] = {min, max};
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++) {
            if (fabs(v[s][k]) <= NDEM_MAX_COORDINATE) continue;
            size_t mark = ndem_jc_push_key(c, keys[s]);
            size_t m2 = ndem_jc_push_index(c, k);
            ndem_jc_error(c, "must lie within +-%g m of the origin (generator and emitter regions)",
                          NDEM_MAX_COORDINATE);
            ndem_jc_pop(c, m2);
            ndem_jc_pop(c, mark);
            break;
        }
}

/* Radii of generators and emitters: positive and at most NDEM_MAX_COORDINATE. */
static const ndem_jc_bound radius_bound = {0.0, NDEM_MAX_COORDINATE, 1, 0,
                                           "must be a positive number of at most 1e6 m"};

/* Which of `names` the string member `key` is; -1 after reporting. An
 * absent member is an error unless `dflt` >= 0, which is returned then. */
static int read_kind(ndem_jc *c, const cJSON *obj, const char *key, const char *const *names,
                     const char *expected, int dflt)
{
    int kind = dflt;
    int r = ndem_jc_enum(c, obj, key, names, expected, &kind, dflt < 0 ? NDEM_JC_REQUIRED : 0);
    return r == NDEM_JC_BAD ? -1 : kind;
}

/* Allocates n zeroed entries of size sz for an entry array; NULL on oom. */
static void *entries(ndem_jc *c, int n, size_t sz)
{
    void *p = calloc((size_t)n, sz);
    if (!p) c->oom = 1;
    return p;
}

/* Reads one object of a scene array into `entry` (already holding defaults). */
typedef void (*entry_reader)(ndem_jc *c, const cJSON *item, ndem_job *job, int materials_ok,
                             void *entry);

/* One reader for the scene's arrays of objects (geometry, particles,
 * emitters): n entries of `size` bytes, each starting from `defaults`;
 * *count is set once they exist. NULL when absent, empty or out of memory. */
static void *read_array(ndem_jc *c, const cJSON *scene, const char *key, ndem_job *job,
                        int materials_ok, size_t size, const void *defaults, entry_reader read,
                        int *count)
{
    const cJSON *arr, *item;
    char *out;
    int n = ndem_jc_array(c, scene, key, 0, NDEM_JOB_MAX_ENTRIES, 0, &arr);
    if (n <= 0 || !(out = entries(c, n, size))) return NULL;
    *count = n;
    size_t mark = ndem_jc_push_key(c, key);
    int i = 0;
    cJSON_ArrayForEach(item, arr)
    {
        memcpy(out + (size_t)i * size, defaults, size);
        size_t m2 = ndem_jc_push_index(c, i);
        if (ndem_jc_expect_object(c, item))
            read(c, item, job, materials_ok, out + (size_t)i * size);
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
    return out;
}

/* ---- radius ---- */

static void radius_values(ndem_jc *c, const cJSON *v, ndem_radius_dist *out)
{
    ndem_radius_dist r;
    memset(&r, 0, sizeof r);
    r.kind = NDEM_RADIUS_VALUES;
    int ok = 1;
    ndem_jc_members(c, v, values_keys, radius_keys,
                    "a radius with \"values\" takes only \"weights\"");
    const cJSON *vals, *wts, *e;
    int n = ndem_jc_array(c, v, "values", 1, NDEM_MAX_RADIUS_VALUES, NDEM_JC_REQUIRED, &vals);
    if (n <= 0) return;
    r.count = n;
    int i = 0;
    size_t mark = ndem_jc_push_key(c, "values");
    cJSON_ArrayForEach(e, vals)
    {
        size_t m2 = ndem_jc_push_index(c, i);
        if (ndem_jc_number_value(c, e, &r.values[i], &radius_bound) != NDEM_JC_OK) ok = 0;
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
    int nw = ndem_jc_array(c, v, "weights", 0, INT_MAX, 0, &wts);
    if (nw < 0) return;
    if (!wts) {
        for (i = 0; i < n; i++) r.weights[i] = 1.0 / n;
    } else if (nw != n) {
        ndem_jc_error_at(c, "weights", "must have one entry per value (%d), got %d", n, nw);
        return;
    } else {
        mark = ndem_jc_push_key(c, "weights");
        i = 0;
        cJSON_ArrayForEach(e, wts)
        {
            size_t m2 = ndem_jc_push_index(c, i);
            if (ndem_jc_number_value(c, e, &r.weights[i], &ndem_jc_nonneg) != NDEM_JC_OK) ok = 0;
            ndem_jc_pop(c, m2);
            i++;
        }
        ndem_jc_pop(c, mark);
        if (!ok) return;
        double wmax = 0.0, sum = 0.0, scaled = 0.0;
        for (i = 0; i < n; i++) {
            wmax = fmax(wmax, r.weights[i]);
            sum += r.weights[i];
        }
        if (!(wmax > 0.0)) {
            ndem_jc_error_at(c, "weights", "must not all be zero");
            return;
        }
        /* Normalise to sum 1, unless already there up to rounding: keeps the
         * JSON round trip exact. Dividing by wmax first avoids overflow. */
        if (!(fabs(sum - 1.0) <= 1e-12)) {
            for (i = 0; i < n; i++) scaled += r.weights[i] / wmax;
            for (i = 0; i < n; i++) r.weights[i] = r.weights[i] / wmax / scaled;
        }
    }
    if (!ok) return;
    r.min = r.max = r.values[0];
    for (i = 1; i < n; i++) {
        r.min = fmin(r.min, r.values[i]);
        r.max = fmax(r.max, r.values[i]);
    }
    *out = r;
}

static void radius_uniform(ndem_jc *c, const cJSON *v, ndem_radius_dist *out)
{
    ndem_jc_members(c, v, uniform_keys, radius_keys,
                    "a radius with \"min\" and \"max\" takes nothing else");
    double lo = 0.0, hi = 0.0;
    int a = ndem_jc_number(c, v, "min", &lo, &radius_bound, NDEM_JC_REQUIRED);
    int b = ndem_jc_number(c, v, "max", &hi, &radius_bound, NDEM_JC_REQUIRED);
    if (a != NDEM_JC_OK || b != NDEM_JC_OK) return;
    if (hi < lo) {
        ndem_jc_error_at(c, "max", "must be at least \"min\"");
        return;
    }
    memset(out, 0, sizeof *out);
    out->kind = NDEM_RADIUS_UNIFORM;
    out->min = lo;
    out->max = hi;
}

/* "radius": r, {"min", "max"} or {"values", "weights"}; absent keeps *out. */
static void read_radius(ndem_jc *c, const cJSON *obj, ndem_radius_dist *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "radius");
    if (!v) return;
    size_t mark = ndem_jc_push_key(c, "radius");
    if (cJSON_IsNumber(v)) {
        double r;
        if (ndem_jc_number_value(c, v, &r, &radius_bound) == NDEM_JC_OK) {
            memset(out, 0, sizeof *out);
            out->kind = NDEM_RADIUS_FIXED;
            out->count = 1;
            out->values[0] = r;
            out->weights[0] = 1.0;
            out->min = out->max = r;
        }
    } else if (cJSON_IsObject(v)) {
        if (cJSON_GetObjectItemCaseSensitive(v, "values")) radius_values(c, v, out);
        else radius_uniform(c, v, out);
    } else {
        ndem_jc_error(c,
                      "must be a positive number, {\"min\": a, \"max\": b} or "
                      "{\"values\": [...], \"weights\": [...]} (got %s)",
                      ndem_jc_type_name(v));
    }
    ndem_jc_pop(c, mark);
}

/* ---- geometry ---- */

static const char *const geometry_types[] = {"plane", "box", "cylinder", "mesh", NULL};

/* A geometry's name becomes the prefix of its series columns (NAME_fx, ...)
 * and a key of the stream's messages: a letter or '_' first, then letters,
 * digits, '_', '-' or '.', so that no CSV or JSON reader needs quoting. */
static void read_geometry_name(ndem_jc *c, const cJSON *item, ndem_geometry_def *g)
{
    const char *name;
    if (ndem_jc_string(c, item, "name", &name, 1, NDEM_NAME_MAX - 1, 0) != NDEM_JC_OK) return;
    int ok = 1;
    for (const char *p = name; *p && ok; p++) {
        char ch = *p; /* ASCII only, whatever the locale */
        ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
             (p > name && ((ch >= '0' && ch <= '9') || ch == '-' || ch == '.'));
    }
    if (!ok) {
        char q[128];
        ndem_jc_error_at(c, "name",
                         "'%s' is not a geometry name: a letter or '_' first, then letters, "
                         "digits, '_', '-' or '.'",
                         ndem_jc_quote(name, q, sizeof q));
        return;
    }
    memcpy(g->name, name, strlen(name) + 1);
}

static void read_geometry_item(ndem_jc *c, const cJSON *item, ndem_job *job, int materials_ok,
                               void *entry)
{
    ndem_geometry_def *g = entry;
    static const char *const *keys[] = {plane_keys, box_keys, cylinder_keys, mesh_keys};
    static const char *const context[] = {"not a field of a plane", "not a field of a box",
                                          "not a field of a cylinder", "not a field of a mesh"};
    int type = read_kind(c, item, "type", geometry_types,
                         "one of \"plane\", \"box\", \"cylinder\", \"mesh\"", -1);
    if (type < 0) {
        ndem_jc_members(c, item, geometry_keys, NULL, NULL);
        return;
    }
    g->type = (ndem_geometry_type)type;
    ndem_jc_members(c, item, keys[type], geometry_keys, context[type]);
    read_geometry_name(c, item, g);
    ndem_job_material_ref(c, item, "material", job, materials_ok, &g->material);
    ndem_jc_vec3(c, item, "velocity", g->velocity, 0);
    if (g->type == NDEM_GEOMETRY_BOX || g->type == NDEM_GEOMETRY_CYLINDER)
        ndem_jc_bool(c, item, "inside", &g->inside, 0);
    const double *spin_axis = NULL; /* direction of a scalar angular velocity */
    switch (g->type) {
    case NDEM_GEOMETRY_PLANE:
        ndem_jc_vec3(c, item, "point", g->point, NDEM_JC_REQUIRED);
        read_direction(c, item, "normal", g->normal);
        spin_axis = g->normal;
        break;
    case NDEM_GEOMETRY_BOX:
        read_bounds(c, item, g->min, g->max, 1);
        break;
    case NDEM_GEOMETRY_CYLINDER:
        ndem_jc_vec3(c, item, "center", g->center, NDEM_JC_REQUIRED);
        read_direction(c, item, "axis", g->axis);
        ndem_jc_number(c, item, "radius", &g->radius, &ndem_jc_positive, NDEM_JC_REQUIRED);
        ndem_jc_number(c, item, "length", &g->length, &ndem_jc_positive, NDEM_JC_REQUIRED);
        spin_axis = g->axis;
        break;
    case NDEM_GEOMETRY_MESH:
        ndem_job_read_mesh(c, item, job, g);
        break;
    }
    ndem_job_read_motion(c, item, job, g);
    ndem_job_read_dynamic(c, item, g);
    ndem_job_read_walls(c, item, g);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(item, "angular_velocity");
    if (!w) return;
    size_t mark = ndem_jc_push_key(c, "angular_velocity");
    if (cJSON_IsNumber(w) && !spin_axis) {
        ndem_jc_error(c,
                      "must be a vector [wx, wy, wz] for a %s (a single number is for "
                      "planes and cylinders)",
                      geometry_types[type]);
    } else if (cJSON_IsNumber(w)) {
        double s;
        if (ndem_jc_number_value(c, w, &s, &ndem_jc_any) == NDEM_JC_OK)
            for (int i = 0; i < 3; i++) g->angular_velocity[i] = spin_axis[i] * s;
    } else {
        ndem_jc_vec3_value(c, w, g->angular_velocity);
    }
    ndem_jc_pop(c, mark);
}

void ndem_job_read_geometry(ndem_jc *c, const cJSON *scene, ndem_job *job, int materials_ok)
{
    const ndem_geometry_def d = ndem_default_geometry_def();
    job->geometry = read_array(c, scene, "geometry", job, materials_ok, sizeof d, &d,
                               read_geometry_item, &job->scene.geometry_count);
    job->scene.geometry = job->geometry;
    /* names are unique: each names its own columns */
    size_t mark = ndem_jc_push_key(c, "geometry");
    for (int i = 0; job->geometry && i < job->scene.geometry_count; i++) {
        const char *name = job->geometry[i].name;
        int dup = -1;
        for (int j = 0; name[0] && j < i && dup < 0; j++)
            if (!strcmp(job->geometry[j].name, name)) dup = j;
        if (dup < 0) continue;
        char q[128];
        size_t m2 = ndem_jc_push_index(c, i);
        ndem_jc_error_at(c, "name", "duplicate geometry name '%s' (also /scene/geometry/%d)",
                         ndem_jc_quote(name, q, sizeof q), dup);
        ndem_jc_pop(c, m2);
    }
    ndem_jc_pop(c, mark);
}

/* ---- particle generators ---- */

/* Hands a malloc'd list array to the job (which frees it); NULL on oom. */
double *ndem_job_list_array(ndem_jc *c, ndem_job *job, size_t doubles)
{
    double **arrays =
        realloc(job->list_arrays, (size_t)(job->list_array_count + 1) * sizeof *arrays);
    if (!arrays) {
        c->oom = 1;
        return NULL;
    }
    job->list_arrays = arrays;
    double *a = doubles <= SIZE_MAX / sizeof(double) ? malloc(doubles * sizeof(double)) : NULL;
    if (!a) {
        c->oom = 1;
        return NULL;
    }
    job->list_arrays[job->list_array_count++] = a;
    return a;
}

/* [x, y, z, r] with finite numbers and r > 0: copied to out. */
static int sphere_ok(const cJSON *e, double out[4])
{
    const cJSON *x = cJSON_IsArray(e) ? e->child : NULL;
    int k = 0;
    for (; x && k < 4; x = x->next, k++) {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) return 0;
        out[k] = x->valuedouble;
    }
    return k == 4 && !x && out[3] > 0.0;
}

/* [w, x, y, z], finite and not all zero: normalised into out (scaled by its
 * largest component first, so that tiny or huge ones neither underflow nor
 * overflow). */
int ndem_job_quaternion_value(ndem_jc *c, const cJSON *v, double out[4])
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 4) {
        ndem_jc_error(c, "must be an array of 4 numbers [w, x, y, z]");
        return NDEM_JC_BAD;
    }
    double q[4], big = 0.0;
    int k = 0, r = NDEM_JC_OK;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        size_t mark = ndem_jc_push_index(c, k);
        if (ndem_jc_number_value(c, e, &q[k], &ndem_jc_any) != NDEM_JC_OK) r = NDEM_JC_BAD;
        else big = fmax(big, fabs(q[k]));
        ndem_jc_pop(c, mark);
        k++;
    }
    if (r != NDEM_JC_OK) return r;
    if (big == 0.0) {
        ndem_jc_error(c, "must not be the zero quaternion (no rotation is [1, 0, 0, 0])");
        return NDEM_JC_BAD;
    }
    double len = 0.0;
    for (k = 0; k < 4; k++) {
        q[k] /= big;
        len += q[k] * q[k];
    }
    len = sqrt(len);
    for (k = 0; k < 4; k++) out[k] = q[k] / len;
    return NDEM_JC_OK;
}

/* A list's optional per-sphere array `key` of `width` numbers each, read by
 * `value` (which reports at the element's pointer); NULL when absent or
 * wrong. */
static const double *read_per_sphere(ndem_jc *c, const cJSON *item, ndem_job *job, const char *key,
                                     int n, int width,
                                     int (*value)(ndem_jc *, const cJSON *, double *))
{
    const cJSON *arr, *e;
    int nv = ndem_jc_array(c, item, key, 0, INT_MAX, 0, &arr);
    if (nv <= 0 || !arr) return NULL;
    if (nv != n) {
        ndem_jc_error_at(c, key, "must have one entry per sphere (%d), got %d", n, nv);
        return NULL;
    }
    double *v = ndem_job_list_array(c, job, (size_t)width * (size_t)n);
    if (!v) return NULL;
    memset(v, 0, (size_t)width * (size_t)n * sizeof *v);
    size_t mark = ndem_jc_push_key(c, key);
    int i = 0;
    cJSON_ArrayForEach(e, arr)
    {
        size_t m2 = ndem_jc_push_index(c, i);
        value(c, e, &v[(size_t)width * (size_t)i]);
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
    return v;
}

static void read_list(ndem_jc *c, const cJSON *item, ndem_job *job, ndem_generator_def *g)
{
    const cJSON *sph, *e;
    int n = ndem_jc_array(c, item, "spheres", 1, INT_MAX, NDEM_JC_REQUIRED, &sph);
    if (n <= 0) return;
    double *s = ndem_job_list_array(c, job, 4 * (size_t)n);
    if (!s) return;
    memset(s, 0, 4 * (size_t)n * sizeof *s);
    size_t mark = ndem_jc_push_key(c, "spheres");
    int i = 0;
    cJSON_ArrayForEach(e, sph)
    {
        /* Lists can hold millions of spheres: the pointer is built only
         * for a sphere with a problem. */
        if (sphere_ok(e, &s[4 * (size_t)i])) {
            i++;
            continue;
        }
        size_t m2 = ndem_jc_push_index(c, i);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 4) {
            ndem_jc_error(c, "must be an array of 4 numbers [x, y, z, r]");
        } else {
            const cJSON *x;
            int k = 0;
            cJSON_ArrayForEach(x, e)
            {
                size_t m3 = ndem_jc_push_index(c, k);
                const ndem_jc_bound *b = k == 3 ? &ndem_jc_positive : &ndem_jc_any;
                ndem_jc_number_value(c, x, &s[4 * (size_t)i + (size_t)k], b);
                ndem_jc_pop(c, m3);
                k++;
            }
        }
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
    g->list_count = n;
    g->spheres = s;
    g->velocities = read_per_sphere(c, item, job, "velocities", n, 3, ndem_jc_vec3_value);
    g->orientations =
        read_per_sphere(c, item, job, "orientations", n, 4, ndem_job_quaternion_value);
    g->angular_velocities =
        read_per_sphere(c, item, job, "angular_velocities", n, 3, ndem_jc_vec3_value);
}

/* "bonds": [[i, j], ...], indices into this list's spheres (smooth DEM). */
static void read_list_bonds(ndem_jc *c, const cJSON *item, ndem_job *job, ndem_generator_def *g)
{
    const cJSON *arr, *e;
    int nb = ndem_jc_array(c, item, "bonds", 0, INT_MAX, 0, &arr);
    if (nb <= 0 || !arr) return;
    double *p = ndem_job_list_array(c, job, 2 * (size_t)nb);
    if (!p) return;
    size_t mark = ndem_jc_push_key(c, "bonds");
    int i = 0, ok = 1;
    cJSON_ArrayForEach(e, arr)
    {
        size_t m2 = ndem_jc_push_index(c, i);
        const cJSON *x, *y;
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 ||
            !cJSON_IsNumber(x = cJSON_GetArrayItem(e, 0)) ||
            !cJSON_IsNumber(y = cJSON_GetArrayItem(e, 1))) {
            ndem_jc_error(c, "must be a pair [i, j] of sphere indices");
            ok = 0;
        } else {
            double a = x->valuedouble, b = y->valuedouble, n = (double)g->list_count;
            if (a != floor(a) || b != floor(b) || a < 0 || b < 0 || a >= n || b >= n || a == b) {
                ndem_jc_error(c, "must name two different spheres of this list (0 to %ld)",
                              g->list_count - 1);
                ok = 0;
            }
            p[2 * i] = a;
            p[2 * i + 1] = b;
        }
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
    if (ok) {
        g->bond_pairs = p;
        g->bond_pair_count = nb;
    }
}

static const char *const generator_types[] = {"lattice", "random", "list", NULL};

static void read_generator(ndem_jc *c, const cJSON *item, ndem_job *job, int materials_ok,
                           void *entry)
{
    ndem_generator_def *g = entry;
    static const char *const *keys[] = {lattice_keys, random_keys, list_keys};
    static const char *const context[] = {"not a field of a lattice generator",
                                          "not a field of a random generator",
                                          "not a field of a list generator"};
    int type =
        read_kind(c, item, "type", generator_types, "one of \"lattice\", \"random\", \"list\"", -1);
    if (type < 0) {
        ndem_jc_members(c, item, generator_keys, NULL, NULL);
        return;
    }
    g->type = (ndem_generator_type)type;
    ndem_jc_members(c, item, keys[type], generator_keys, context[type]);
    ndem_job_material_ref(c, item, "material", job, materials_ok, &g->material);
    ndem_jc_bool(c, item, "fixed_rotation", &g->fixed_rotation, 0);
    ndem_jc_bool(c, item, "bonded", &g->bonded, 0);
    ndem_jc_vec3(c, item, "force", g->force, 0);
    ndem_jc_vec3(c, item, "force_rate", g->force_rate, 0);
    ndem_job_read_shape(c, item, job, &g->shape);
    if (g->type == NDEM_GENERATOR_LIST) {
        read_list(c, item, job, g);
        read_list_bonds(c, item, job, g);
        return;
    }
    read_bounds(c, item, g->min, g->max, 0);
    check_region(c, g->min, g->max);
    read_radius(c, item, &g->radius);
    ndem_jc_vec3(c, item, "velocity", g->velocity, 0);
    long long v;
    if (g->type == NDEM_GENERATOR_LATTICE) {
        ndem_jc_number(c, item, "spacing", &g->spacing, &ndem_jc_nonneg, 0);
        if (ndem_jc_integer(c, item, "count", &v, 0, LONG_HI, 0) == NDEM_JC_OK) g->count = (long)v;
        ndem_job_check_lattice(c, g, cJSON_GetObjectItemCaseSensitive(item, "shape") != NULL);
    } else {
        if (ndem_jc_integer(c, item, "count", &v, 1, LONG_HI, NDEM_JC_REQUIRED) == NDEM_JC_OK)
            g->count = (long)v;
        if (ndem_jc_integer(c, item, "seed", &v, 0, NDEM_JC_INT_MAX, 0) == NDEM_JC_OK)
            g->seed = (uint64_t)v;
    }
}

void ndem_job_read_particles(ndem_jc *c, const cJSON *scene, ndem_job *job, int materials_ok)
{
    const ndem_generator_def d = ndem_default_generator_def();
    job->generators = read_array(c, scene, "particles", job, materials_ok, sizeof d, &d,
                                 read_generator, &job->scene.generator_count);
    job->scene.generators = job->generators;
}

/* ---- emitters ---- */

static const char *const emitter_types[] = {"box", NULL};

static void read_emitter(ndem_jc *c, const cJSON *item, ndem_job *job, int materials_ok,
                         void *entry)
{
    ndem_emitter_def *e = entry;
    ndem_jc_members(c, item, emitter_keys, NULL, NULL);
    read_kind(c, item, "type", emitter_types, "\"box\"", 0);
    read_bounds(c, item, e->min, e->max, 0);
    check_region(c, e->min, e->max);
    ndem_jc_number(c, item, "rate", &e->rate, &ndem_jc_positive, NDEM_JC_REQUIRED);
    int a = ndem_jc_number(c, item, "start", &e->start, &ndem_jc_nonneg, 0);
    int b = ndem_jc_number(c, item, "stop", &e->stop, &ndem_jc_any, 0);
    if (a != NDEM_JC_BAD && b != NDEM_JC_BAD && !(e->stop > e->start))
        ndem_jc_error_at(c, "stop", "must be greater than \"start\" (%g)", e->start);
    long long v;
    if (ndem_jc_integer(c, item, "max_count", &v, 1, LONG_HI, 0) == NDEM_JC_OK)
        e->max_count = (long)v;
    read_radius(c, item, &e->radius);
    ndem_job_material_ref(c, item, "material", job, materials_ok, &e->material);
    ndem_jc_vec3(c, item, "velocity", e->velocity, 0);
    if (ndem_jc_integer(c, item, "seed", &v, 0, NDEM_JC_INT_MAX, 0) == NDEM_JC_OK)
        e->seed = (uint64_t)v;
    ndem_job_read_shape(c, item, job, &e->shape);
}

void ndem_job_read_emitters(ndem_jc *c, const cJSON *scene, ndem_job *job, int materials_ok)
{
    const ndem_emitter_def d = ndem_default_emitter_def();
    job->emitters = read_array(c, scene, "emitters", job, materials_ok, sizeof d, &d, read_emitter,
                               &job->scene.emitter_count);
    job->scene.emitters = job->emitters;
}
