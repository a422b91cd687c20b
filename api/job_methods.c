/* job_methods.c - fields that only some methods or contact models read.
 * A job that sets such a field to anything but its neutral value under a
 * method or model that would ignore it is refused (422), with the field's
 * pointer and the methods that use it: a silently ignored parameter is a
 * wrong result the user cannot see. New fields join the table. */
#include "job_parts.h"

#include <stdio.h>

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
typedef enum { AT_SOLVER, AT_MATERIALS, AT_CONTACT_MATERIALS, AT_PARTICLES } field_place;
static const char *const place_path[][2] = {
    [AT_SOLVER] = {"solver", NULL},
    [AT_MATERIALS] = {"scene", "materials"},
    [AT_CONTACT_MATERIALS] = {"scene", "contact_materials"},
    [AT_PARTICLES] = {"scene", "particles"},
};

/* The value that asks for nothing: null always does, and then a number
 * equal to `number`, false, true, or an empty array (the field's default). */
typedef enum {
    NEUTRAL_NUMBER,
    NEUTRAL_NULL,
    NEUTRAL_FALSE,
    NEUTRAL_TRUE,
    NEUTRAL_EMPTY
} neutral_kind;

typedef struct method_field {
    field_place place;
    const char *key;
    unsigned used_by; /* V_ bits */
    neutral_kind neutral;
    double number;
} method_field;

/* Found by reading what core/rows.c (NDEM) and each model of core/dem.c
 * read. twisting_resistance is left out: its default is the pair's
 * rolling_resistance, so a neutral value is not a constant (it applies to
 * NDEM and luding). */
static const method_field fields[] = {
    /* smooth DEM only */
    {AT_PARTICLES, "bonded", V_DEM, NEUTRAL_FALSE, 0},
    {AT_PARTICLES, "bonds", V_DEM, NEUTRAL_EMPTY, 0},
    {AT_CONTACT_MATERIALS, "hamaker", V_DEM, NEUTRAL_NUMBER, 0},
    {AT_CONTACT_MATERIALS, "vdw_saturation", V_DEM, NEUTRAL_NUMBER, 0.4e-9},
    {AT_CONTACT_MATERIALS, "bond_stiffness", V_DEM, NEUTRAL_NULL, 0},
    {AT_CONTACT_MATERIALS, "bond_damping", V_DEM, NEUTRAL_NUMBER, 0.5},
    {AT_CONTACT_MATERIALS, "bond_max_force", V_DEM, NEUTRAL_NULL, 0},
    {AT_CONTACT_MATERIALS, "bond_max_torque", V_DEM, NEUTRAL_NULL, 0},
    /* one smooth-DEM model or a few */
    {AT_CONTACT_MATERIALS, "velocity_friction", V_HUNT_CROSSLEY, NEUTRAL_FALSE, 0},
    {AT_CONTACT_MATERIALS, "exponent", V_HUNT_CROSSLEY, NEUTRAL_NUMBER, 1.5},
    {AT_CONTACT_MATERIALS, "stiffness", V_HUNT_CROSSLEY | V_LUDING, NEUTRAL_NULL, 0},
    {AT_CONTACT_MATERIALS, "dynamic_friction", V_LUDING, NEUTRAL_NULL, 0},
    {AT_CONTACT_MATERIALS, "char_len", V_LINEAR_ELASTIC6, NEUTRAL_NULL, 0},
    {AT_CONTACT_MATERIALS, "stiffness_ratio",
     V_LINEAR | V_HUNT_CROSSLEY | V_LINEAR_ELASTIC6 | V_LUDING, NEUTRAL_NUMBER, 0.2},
    /* linear_elastic6 is purely elastic: no friction, damping or rolling limit */
    {AT_CONTACT_MATERIALS, "friction", V_NDEM | V_HERTZ | V_LINEAR | V_HUNT_CROSSLEY | V_LUDING,
     NEUTRAL_NUMBER, 0.5},
    {AT_CONTACT_MATERIALS, "restitution", V_NDEM | V_HERTZ | V_LINEAR | V_HUNT_CROSSLEY | V_LUDING,
     NEUTRAL_NUMBER, 0.5},
    {AT_CONTACT_MATERIALS, "rolling_resistance", V_NDEM | V_HERTZ | V_LUDING, NEUTRAL_NUMBER, 0},
    /* NDEM only */
    {AT_CONTACT_MATERIALS, "adhesion", V_NDEM, NEUTRAL_NUMBER, 0},
    {AT_CONTACT_MATERIALS, "adhesive_overlap", V_NDEM, NEUTRAL_NUMBER, 0},
    {AT_CONTACT_MATERIALS, "damping_time", V_NDEM, NEUTRAL_NULL, 0},
    {AT_MATERIALS, "viscosity", V_NDEM, NEUTRAL_NUMBER, 0},
    {AT_SOLVER, "iterations", V_NDEM, NEUTRAL_NUMBER, 25},
    {AT_SOLVER, "impact_iterations", V_NDEM, NEUTRAL_NUMBER, 10},
    {AT_SOLVER, "warm_start", V_NDEM, NEUTRAL_TRUE, 0},
    {AT_SOLVER, "warm_start_factor", V_NDEM, NEUTRAL_NUMBER, 0.85},
    {AT_SOLVER, "impact_velocity", V_NDEM, NEUTRAL_NULL, 0},
    {AT_SOLVER, "tolerance", V_NDEM, NEUTRAL_NUMBER, 0},
    {AT_SOLVER, "damping_steps", V_NDEM, NEUTRAL_NUMBER, 2},
    {AT_SOLVER, "friction_compliance", V_NDEM, NEUTRAL_NUMBER, 1e-6},
};

/* Of the field's type: a value of another type is the reader's error already. */
static int typed(const method_field *f, const cJSON *v)
{
    switch (f->neutral) {
    case NEUTRAL_NUMBER:
    case NEUTRAL_NULL:
        return cJSON_IsNumber(v);
    case NEUTRAL_FALSE:
    case NEUTRAL_TRUE:
        return cJSON_IsBool(v);
    case NEUTRAL_EMPTY:
        return cJSON_IsArray(v);
    }
    return 0;
}

static int is_neutral(const method_field *f, const cJSON *v)
{
    if (cJSON_IsNull(v)) return 1;
    switch (f->neutral) {
    case NEUTRAL_NUMBER:
        return cJSON_IsNumber(v) && v->valuedouble == f->number;
    case NEUTRAL_FALSE:
        return cJSON_IsFalse(v);
    case NEUTRAL_TRUE:
        return cJSON_IsTrue(v);
    case NEUTRAL_EMPTY:
        return cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0;
    case NEUTRAL_NULL:
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

static void check_object(ndem_jc *c, const cJSON *obj, const method_field *f, unsigned variant)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, f->key);
    if (!v || is_neutral(f, v) || !typed(f, v)) return;
    char runs[64], needs[256];
    /* an NDEM-only field is ignored by smooth DEM as a whole, not by one model */
    if (!(f->used_by & V_DEM) && (variant & V_DEM))
        snprintf(runs, sizeof runs, "\"method\": \"dem\"");
    else describe_variant(variant, runs, sizeof runs);
    describe_users(f->used_by, needs, sizeof needs);
    ndem_jc_error_at(c, f->key, "is ignored by %s; it needs %s", runs, needs);
}

void ndem_job_check_methods(ndem_jc *c, const cJSON *root, const ndem_solver_def *s)
{
    unsigned variant = s->method == NDEM_METHOD_NDEM ? V_NDEM : 1u << (1 + (int)s->contact_model);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const method_field *f = &fields[i];
        if (f->used_by & variant) continue;
        const char *const *path = place_path[f->place];
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(root, path[0]);
        if (!cJSON_IsObject(at)) continue;
        size_t mark = ndem_jc_push_key(c, path[0]);
        if (!path[1]) {
            check_object(c, at, f, variant);
        } else {
            const cJSON *arr = cJSON_GetObjectItemCaseSensitive(at, path[1]);
            size_t m2 = ndem_jc_push_key(c, path[1]);
            int k = 0;
            const cJSON *item = cJSON_IsArray(arr) ? arr->child : NULL;
            for (; item; item = item->next) {
                size_t m3 = ndem_jc_push_index(c, k++);
                if (cJSON_IsObject(item)) check_object(c, item, f, variant);
                ndem_jc_pop(c, m3);
            }
            ndem_jc_pop(c, m2);
        }
        ndem_jc_pop(c, mark);
    }
}
