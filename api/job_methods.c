/* job_methods.c - fields that only some methods or contact models read.
 * A job that sets such a field to anything but its neutral value under a
 * method or model that would ignore it is refused (422), with the field's
 * pointer and the methods that use it: a silently ignored parameter is a
 * wrong result the user cannot see. New fields join the table. */
#include "job_parts.h"
#include "rigid_contact.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The variants a field can apply to: NDEM, or smooth DEM with one model. */
enum {
    V_NDEM = 1 << 0,
    V_HERTZ = 1 << 1, /* smooth DEM, contact_model hertz ... */
    V_LINEAR = 1 << 2,
    V_HUNT_CROSSLEY = 1 << 3,
    V_LINEAR_ELASTIC6 = 1 << 4,
    V_LUDING = 1 << 5,
    V_DEM = V_HERTZ | V_LINEAR | V_HUNT_CROSSLEY | V_LINEAR_ELASTIC6 | V_LUDING,
    V_COUNT = 6
};
/* Names in bit order, for messages. */
static const char *const model_names[V_COUNT] = {
    NULL, "hertz", "linear", "hunt_crossley", "linear_elastic6", "luding"};

/* Where a field lives: an object, or every element of an array of objects. */
typedef enum {
    AT_SOLVER,
    AT_MATERIALS,
    AT_CONTACT_MATERIALS,
    AT_PARTICLES,
    AT_EMITTERS
} field_place;
static const char *const place_path[][2] = {
    [AT_SOLVER] = {"solver", NULL},
    [AT_MATERIALS] = {"scene", "materials"},
    [AT_CONTACT_MATERIALS] = {"scene", "contact_materials"},
    [AT_PARTICLES] = {"scene", "particles"},
    [AT_EMITTERS] = {"scene", "emitters"},
};

/* The value that asks for nothing: null always does, and then the field's
 * default from core/defaults.c (a double or an int member of the place's
 * default definition, at `offset`), false, true, or an empty array. */
typedef enum {
    NEUTRAL_NUMBER,
    NEUTRAL_INT,
    NEUTRAL_NULL,
    NEUTRAL_FALSE,
    NEUTRAL_TRUE,
    NEUTRAL_EMPTY,
    NEUTRAL_NONE_OBJECT /* an object: no neutral value; the variants not listed cannot run it yet */
} neutral_kind;

typedef struct method_field {
    field_place place;
    const char *key;
    unsigned used_by; /* V_ bits */
    neutral_kind neutral;
    size_t offset; /* NEUTRAL_NUMBER, NEUTRAL_INT: the default's member */
} method_field;

/* The defaults the filled-in document writes, one definition per place. */
typedef struct place_defaults {
    ndem_solver_def solver;
    ndem_material_def material;
    ndem_contact_material_def pair;
} place_defaults;

static const void *place_default(const place_defaults *d, field_place place)
{
    switch (place) {
    case AT_SOLVER:
        return &d->solver;
    case AT_MATERIALS:
        return &d->material;
    case AT_CONTACT_MATERIALS:
        return &d->pair;
    case AT_PARTICLES:
    case AT_EMITTERS:
        break;
    }
    return NULL; /* generator fields have no numeric neutral */
}

#define SOLVER_D(m) NEUTRAL_NUMBER, offsetof(ndem_solver_def, m)
#define SOLVER_I(m) NEUTRAL_INT, offsetof(ndem_solver_def, m)
#define MATERIAL_D(m) NEUTRAL_NUMBER, offsetof(ndem_material_def, m)
#define PAIR_D(m) NEUTRAL_NUMBER, offsetof(ndem_contact_material_def, m)

/* Found by reading what core/rows.c (NDEM) and each model of core/dem.c
 * read. twisting_resistance is left out: its default is the pair's
 * rolling_resistance, so a neutral value is not a constant (it applies to
 * NDEM and luding). */
static const method_field fields[] = {
    /* smooth DEM only */
    {AT_PARTICLES, "bonded", V_DEM, NEUTRAL_FALSE, 0},
    {AT_PARTICLES, "bonds", V_DEM, NEUTRAL_EMPTY, 0},
    {AT_CONTACT_MATERIALS, "hamaker", V_DEM, PAIR_D(hamaker)},
    {AT_CONTACT_MATERIALS, "vdw_saturation", V_DEM, PAIR_D(vdw_saturation)},
    {AT_CONTACT_MATERIALS, "bond_stiffness", V_DEM, NEUTRAL_NULL, 0},
    {AT_CONTACT_MATERIALS, "bond_damping", V_DEM, PAIR_D(bond_damping)},
    {AT_CONTACT_MATERIALS, "bond_max_force", V_DEM, NEUTRAL_NULL, 0},
    {AT_CONTACT_MATERIALS, "bond_max_torque", V_DEM, NEUTRAL_NULL, 0},
    /* one smooth-DEM model or a few */
    {AT_CONTACT_MATERIALS, "velocity_friction", V_HUNT_CROSSLEY, NEUTRAL_FALSE, 0},
    {AT_CONTACT_MATERIALS, "exponent", V_HUNT_CROSSLEY, PAIR_D(exponent)},
    {AT_CONTACT_MATERIALS, "stiffness", V_HUNT_CROSSLEY | V_LUDING, NEUTRAL_NULL, 0},
    {AT_CONTACT_MATERIALS, "dynamic_friction", V_LUDING, NEUTRAL_NULL, 0},
    {AT_CONTACT_MATERIALS, "char_len", V_LINEAR_ELASTIC6, NEUTRAL_NULL, 0},
    {AT_CONTACT_MATERIALS, "stiffness_ratio",
     V_LINEAR | V_HUNT_CROSSLEY | V_LINEAR_ELASTIC6 | V_LUDING, PAIR_D(stiffness_ratio)},
    /* linear_elastic6 is purely elastic: no friction, damping or rolling limit */
    {AT_CONTACT_MATERIALS, "friction", V_NDEM | V_HERTZ | V_LINEAR | V_HUNT_CROSSLEY | V_LUDING,
     PAIR_D(friction)},
    {AT_CONTACT_MATERIALS, "restitution", V_NDEM | V_HERTZ | V_LINEAR | V_HUNT_CROSSLEY | V_LUDING,
     PAIR_D(restitution)},
    {AT_CONTACT_MATERIALS, "rolling_resistance", V_NDEM | V_HERTZ | V_LUDING,
     PAIR_D(rolling_resistance)},
    /* particle shapes: the engine runs them with these laws so far (docs/shapes.md) */
    {AT_PARTICLES, "shape", V_NDEM | V_HERTZ | V_LINEAR | V_HUNT_CROSSLEY, NEUTRAL_NONE_OBJECT, 0},
    {AT_EMITTERS, "shape", V_NDEM | V_HERTZ | V_LINEAR | V_HUNT_CROSSLEY, NEUTRAL_NONE_OBJECT, 0},
    /* NDEM only */
    {AT_CONTACT_MATERIALS, "adhesion", V_NDEM, PAIR_D(adhesion)},
    {AT_CONTACT_MATERIALS, "adhesive_overlap", V_NDEM, PAIR_D(adhesive_overlap)},
    {AT_CONTACT_MATERIALS, "damping_time", V_NDEM, NEUTRAL_NULL, 0},
    {AT_MATERIALS, "viscosity", V_NDEM, MATERIAL_D(viscosity)},
    {AT_SOLVER, "iterations", V_NDEM, SOLVER_I(iterations)},
    {AT_SOLVER, "impact_iterations", V_NDEM, SOLVER_I(impact_iterations)},
    {AT_SOLVER, "warm_start", V_NDEM, NEUTRAL_TRUE, 0},
    {AT_SOLVER, "warm_start_factor", V_NDEM, SOLVER_D(warm_start_factor)},
    {AT_SOLVER, "impact_velocity", V_NDEM, NEUTRAL_NULL, 0},
    {AT_SOLVER, "tolerance", V_NDEM, SOLVER_D(tolerance)},
    {AT_SOLVER, "damping_steps", V_NDEM, SOLVER_D(damping_steps)},
    {AT_SOLVER, "friction_compliance", V_NDEM, SOLVER_D(friction_compliance)},
};

/* Of the field's type: a value of another type is the reader's error already. */
static int typed(const method_field *f, const cJSON *v)
{
    switch (f->neutral) {
    case NEUTRAL_NUMBER:
    case NEUTRAL_INT:
    case NEUTRAL_NULL:
        return cJSON_IsNumber(v);
    case NEUTRAL_FALSE:
    case NEUTRAL_TRUE:
        return cJSON_IsBool(v);
    case NEUTRAL_EMPTY:
        return cJSON_IsArray(v);
    case NEUTRAL_NONE_OBJECT:
        return cJSON_IsObject(v);
    }
    return 0;
}

static int is_neutral(const method_field *f, const cJSON *v, const place_defaults *d)
{
    if (cJSON_IsNull(v)) return 1;
    const char *def = place_default(d, f->place);
    switch (f->neutral) {
    case NEUTRAL_NUMBER: {
        double x;
        memcpy(&x, def + f->offset, sizeof x);
        return cJSON_IsNumber(v) && v->valuedouble == x;
    }
    case NEUTRAL_INT: {
        int i;
        memcpy(&i, def + f->offset, sizeof i);
        return cJSON_IsNumber(v) && v->valuedouble == i;
    }
    case NEUTRAL_FALSE:
        return cJSON_IsFalse(v);
    case NEUTRAL_TRUE:
        return cJSON_IsTrue(v);
    case NEUTRAL_EMPTY:
        return cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0;
    case NEUTRAL_NULL:
    case NEUTRAL_NONE_OBJECT:
        break;
    }
    return 0;
}

/* `"method": "ndem"`, `"contact_model": "luding"`: what the job runs. */
static void describe_variant(unsigned variant, char *buf, size_t n)
{
    if (variant == V_NDEM) {
        snprintf(buf, n, "\"method\": \"ndem\"");
        return;
    }
    for (int i = 1; i < V_COUNT; i++)
        if (variant == (1u << i)) snprintf(buf, n, "\"contact_model\": \"%s\"", model_names[i]);
}

/* "\"method\": \"dem\"", "\"method\": \"ndem\" or \"contact_model\": \"hertz\" or ...". */
static void describe_users(unsigned used_by, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    if (used_by & V_NDEM) len += (size_t)snprintf(buf + len, n - len, "\"method\": \"ndem\"");
    if ((used_by & V_DEM) == V_DEM) {
        snprintf(buf + len, n - len, "%s\"method\": \"dem\"", len ? " or " : "");
        return;
    }
    if (!(used_by & V_DEM)) return;
    len += (size_t)snprintf(buf + len, n - len, "%s\"method\": \"dem\" with \"contact_model\" ",
                            len ? " or " : "");
    int first = 1;
    for (int i = 1; i < V_COUNT && len < n; i++) {
        if (!(used_by & (1u << i))) continue;
        len +=
            (size_t)snprintf(buf + len, n - len, "%s\"%s\"", first ? "" : " or ", model_names[i]);
        first = 0;
    }
}

static void check_object(ndem_jc *c, const cJSON *obj, const method_field *f, unsigned variant,
                         const place_defaults *d)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, f->key);
    if (!v || is_neutral(f, v, d) || !typed(f, v)) return;
    char runs[64], needs[256];
    /* an NDEM-only field is ignored by smooth DEM as a whole, not by one model */
    if (!(f->used_by & V_DEM) && (variant & V_DEM))
        snprintf(runs, sizeof runs, "\"method\": \"dem\"");
    else describe_variant(variant, runs, sizeof runs);
    describe_users(f->used_by, needs, sizeof needs);
    if (f->neutral == NEUTRAL_NONE_OBJECT)
        ndem_jc_error_at(c, f->key, "is not supported by %s yet; it runs with %s", runs, needs);
    else ndem_jc_error_at(c, f->key, "is ignored by %s; it needs %s", runs, needs);
}

void ndem_job_check_methods(ndem_jc *c, const cJSON *root, const ndem_solver_def *s)
{
    unsigned variant = s->method == NDEM_METHOD_NDEM ? V_NDEM : 1u << (1 + (int)s->contact_model);
    const place_defaults d = {ndem_default_solver_def(), ndem_default_material_def(),
                              ndem_default_contact_material_def()};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const method_field *f = &fields[i];
        if (f->used_by & variant) continue;
        const char *const *path = place_path[f->place];
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(root, path[0]);
        if (!cJSON_IsObject(at)) continue;
        size_t mark = ndem_jc_push_key(c, path[0]);
        if (!path[1]) {
            check_object(c, at, f, variant, &d);
        } else {
            const cJSON *arr = cJSON_GetObjectItemCaseSensitive(at, path[1]);
            size_t m2 = ndem_jc_push_key(c, path[1]);
            int k = 0;
            const cJSON *item = cJSON_IsArray(arr) ? arr->child : NULL;
            for (; item; item = item->next) {
                size_t m3 = ndem_jc_push_index(c, k++);
                if (cJSON_IsObject(item)) check_object(c, item, f, variant, &d);
                ndem_jc_pop(c, m3);
            }
            ndem_jc_pop(c, m2);
        }
        ndem_jc_pop(c, mark);
    }
}

void ndem_job_check_body_contacts(ndem_jc *c, const ndem_scene_def *s)
{
    /* the variants with a law for a body against geometry, from the core's */
    unsigned used_by = V_NDEM;
    for (int i = 1; i < V_COUNT; i++)
        if (ndem_rcontact_model_supported((ndem_contact_model)(i - 1))) used_by |= 1u << i;
    unsigned variant =
        s->solver.method == NDEM_METHOD_NDEM ? V_NDEM : 1u << (1 + (int)s->solver.contact_model);
    if (used_by & variant) return;
    char runs[64], needs[256];
    describe_variant(variant, runs, sizeof runs);
    describe_users(used_by, needs, sizeof needs);
    for (int g = 0; g < s->geometry_count; g++) {
        int geometry = ndem_rcontact_can_touch(s->geometry, s->geometry_count, g);
        if (!geometry && !ndem_rcontact_can_touch_body(s->geometry, s->geometry_count, g)) continue;
        char ptr[64];
        snprintf(ptr, sizeof ptr, "/scene/geometry/%d/dynamic", g);
        ndem_jc_error_ptr(c, ptr,
                          "can touch %s, and a body's contacts with %s are not supported by %s "
                          "yet; they run with %s",
                          geometry ? "static geometry" : "another dynamic body",
                          geometry ? "geometry" : "bodies", runs, needs);
    }
}
