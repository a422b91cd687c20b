/* test_parser_methods.c - fields that only some methods or contact models
 * read (api/job_methods.c): set under a method or model that would ignore
 * them they are errors at their JSON Pointer that name what uses them; at
 * their neutral values (what the filled-in document writes) they pass; a
 * dynamic body that can touch static geometry or another body under a
 * model without a law for it is an error at its "dynamic". */
#include "job.h"
#include "testutil.h"

#include <string.h>

/* Test documents are written with ' for " to stay readable. */
static ndem_job_status parse_sq(const char *doc, ndem_job **job, ndem_job_errors *e)
{
    char *t = strdup(doc);
    ck_assert_ptr_nonnull(t);
    for (char *p = t; *p; p++)
        if (*p == '\'') *p = '"';
    ndem_job_status st = ndem_job_parse(t, strlen(t), job, e);
    free(t);
    return st;
}

static int has_error(const ndem_job_errors *e, const char *pointer, const char *msg)
{
    for (int i = 0; i < e->count; i++)
        if (strcmp(e->items[i].pointer, pointer) == 0 && strstr(e->items[i].message, msg)) return 1;
    return 0;
}

/* A document with one pair, one list generator and a solver: the three
 * parts are spliced in. */
static char *doc(const char *pair, const char *generator, const char *solver)
{
    const char *fmt = "{'scene': {'materials': [{'name': 'a'%s}], 'contact_materials': "
                      "[{'materials': ['a', 'a']%s}], 'particles': [{'type': 'list', 'material': "
                      "'a', 'spheres': [[0, 0, 0.01, 0.01], [0, 0, 0.03, 0.01]]%s}]}, "
                      "'solver': {'time_step': 1e-5, 'duration': 0.01%s}}";
    const char *material = "";
    if (strncmp(pair, "M", 1) == 0) { /* "M, 'viscosity': 1": a material field */
        material = pair + 1;
        pair = "";
    }
    size_t n = strlen(fmt) + strlen(material) + strlen(pair) + strlen(generator) + strlen(solver);
    char *t = malloc(n + 1);
    ck_assert_ptr_nonnull(t);
    snprintf(t, n + 1, fmt, material, pair, generator, solver);
    return t;
}

typedef struct refused {
    const char *pair, *generator, *solver; /* spliced into doc() */
    const char *pointer, *message;
} refused;

#define NDEM ""
#define DEM(model) ", 'method': 'dem', 'contact_model': '" model "'"
#define PAIR "/scene/contact_materials/0/"
#define GEN "/scene/particles/0/"

static const refused refused_docs[] = {
    /* the smooth-DEM features of the issue under NDEM */
    {"", ", 'bonds': [[0, 1]]", NDEM, GEN "bonds",
     "is ignored by \"method\": \"ndem\"; it needs \"method\": \"dem\""},
    {"", ", 'bonded': true", NDEM, GEN "bonded", "it needs \"method\": \"dem\""},
    {", 'hamaker': 1e-19", "", NDEM, PAIR "hamaker", "it needs \"method\": \"dem\""},
    {", 'vdw_saturation': 1e-9", "", NDEM, PAIR "vdw_saturation", "it needs \"method\": \"dem\""},
    {", 'bond_max_force': 3", "", NDEM, PAIR "bond_max_force", "it needs \"method\": \"dem\""},
    {", 'velocity_friction': true", "", NDEM, PAIR "velocity_friction",
     "it needs \"method\": \"dem\" with \"contact_model\" \"hunt_crossley\""},
    {", 'dynamic_friction': 0.3", "", NDEM, PAIR "dynamic_friction",
     "it needs \"method\": \"dem\" with \"contact_model\" \"luding\""},
    {", 'stiffness': 1e5", "", NDEM, PAIR "stiffness",
     "\"contact_model\" \"hunt_crossley\" or \"luding\""},
    {", 'exponent': 1.2", "", NDEM, PAIR "exponent", "\"hunt_crossley\""},
    {", 'char_len': 0.01", "", NDEM, PAIR "char_len", "\"linear_elastic6\""},
    {", 'stiffness_ratio': 0.3", "", NDEM, PAIR "stiffness_ratio",
     "\"linear\" or \"hunt_crossley\" or \"linear_elastic6\" or \"luding\""},
    /* one smooth-DEM model's field under another */
    {", 'velocity_friction': true", "", DEM("hertz"), PAIR "velocity_friction",
     "is ignored by \"contact_model\": \"hertz\"; it needs \"method\": \"dem\" with "
     "\"contact_model\" \"hunt_crossley\""},
    {", 'dynamic_friction': 0.3", "", DEM("hunt_crossley"), PAIR "dynamic_friction",
     "is ignored by \"contact_model\": \"hunt_crossley\""},
    {", 'rolling_resistance': 0.1", "", DEM("linear"), PAIR "rolling_resistance",
     "it needs \"method\": \"ndem\" or \"method\": \"dem\" with \"contact_model\" \"hertz\" or "
     "\"luding\""},
    {", 'friction': 0.3", "", DEM("linear_elastic6"), PAIR "friction",
     "is ignored by \"contact_model\": \"linear_elastic6\""},
    {", 'restitution': 0.9", "", DEM("linear_elastic6"), PAIR "restitution",
     "is ignored by \"contact_model\": \"linear_elastic6\""},
    /* NDEM's fields under smooth DEM */
    {", 'adhesion': 0.01", "", DEM("hertz"), PAIR "adhesion",
     "is ignored by \"method\": \"dem\"; it needs \"method\": \"ndem\""},
    {", 'adhesive_overlap': 1e-5", "", DEM("luding"), PAIR "adhesive_overlap",
     "it needs \"method\": \"ndem\""},
    {", 'damping_time': 0.001", "", DEM("hertz"), PAIR "damping_time",
     "it needs \"method\": \"ndem\""},
    {"M, 'viscosity': 100", "", DEM("hertz"), "/scene/materials/0/viscosity",
     "it needs \"method\": \"ndem\""},
    {"", "", DEM("hertz") ", 'iterations': 100", "/solver/iterations",
     "it needs \"method\": \"ndem\""},
    {"", "", DEM("hertz") ", 'warm_start': false", "/solver/warm_start",
     "it needs \"method\": \"ndem\""},
    {"", "", DEM("hertz") ", 'impact_velocity': 0.1", "/solver/impact_velocity",
     "it needs \"method\": \"ndem\""},
    {"", "", DEM("luding") ", 'tolerance': 1e-6", "/solver/tolerance",
     "it needs \"method\": \"ndem\""},
    {"", "", DEM("hertz") ", 'damping_steps': 4", "/solver/damping_steps",
     "it needs \"method\": \"ndem\""},
    {"", "", DEM("hertz") ", 'friction_compliance': 1e-4", "/solver/friction_compliance",
     "it needs \"method\": \"ndem\""},
    {"", "", DEM("hertz") ", 'impact_iterations': 3", "/solver/impact_iterations",
     "it needs \"method\": \"ndem\""},
    {"", "", DEM("hertz") ", 'warm_start_factor': 0.5", "/solver/warm_start_factor",
     "it needs \"method\": \"ndem\""},
};
#define N_REFUSED ((int)(sizeof refused_docs / sizeof refused_docs[0]))

START_TEST(ignored_field_is_refused)
{
    const refused *r = &refused_docs[_i];
    char *text = doc(r->pair, r->generator, r->solver);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(text, &job, &e);
    if (!has_error(&e, r->pointer, r->message)) {
        fprintf(stderr, "document %s\n", text);
        for (int i = 0; i < e.count; i++)
            fprintf(stderr, "  got %s: %s\n", e.items[i].pointer, e.items[i].message);
    }
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    ck_assert_ptr_null(job);
    ck_assert_msg(has_error(&e, r->pointer, r->message), "want %s: %s", r->pointer, r->message);
    ck_assert_int_eq(e.count, 1); /* and nothing else */
    ndem_job_errors_clear(&e);
    free(text);
}
END_TEST

/* The same fields under the method or model that reads them are accepted;
 * so is each at its neutral value under any method. */
static const char *const accepted[][3] = {
    {"", ", 'bonds': [[0, 1]], 'bonded': true", DEM("hertz")},
    {", 'hamaker': 1e-19, 'vdw_saturation': 1e-9, 'bond_max_force': 3", "", DEM("linear")},
    {", 'velocity_friction': true, 'exponent': 1.2, 'stiffness': 1e5", "", DEM("hunt_crossley")},
    {", 'dynamic_friction': 0.3, 'twisting_resistance': 0.1, 'rolling_resistance': 0.1", "",
     DEM("luding")},
    {", 'char_len': 0.01, 'stiffness_ratio': 0.3", "", DEM("linear_elastic6")},
    {", 'adhesion': 0.01, 'adhesive_overlap': 1e-5, 'damping_time': 0.001", "",
     ", 'iterations': 100, 'warm_start': false, 'tolerance': 1e-6"},
    /* neutral values: what a filled-in document of another method writes */
    {", 'hamaker': 0, 'velocity_friction': false, 'dynamic_friction': null, 'stiffness': null, "
     "'exponent': 1.5, 'stiffness_ratio': 0.2, 'bond_damping': 0.5, 'bond_stiffness': null",
     ", 'bonds': [], 'bonded': false", NDEM},
    {", 'adhesion': 0, 'adhesive_overlap': 0, 'damping_time': null", "",
     DEM("hertz") ", 'iterations': 25, 'warm_start': true, 'impact_velocity': null"},
};
#define N_ACCEPTED ((int)(sizeof accepted / sizeof accepted[0]))

START_TEST(used_or_neutral_field_is_accepted)
{
    char *text = doc(accepted[_i][0], accepted[_i][1], accepted[_i][2]);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(text, &job, &e);
    for (int i = 0; i < e.count; i++)
        fprintf(stderr, "unexpected %s: %s\n", e.items[i].pointer, e.items[i].message);
    ck_assert_int_eq(st, NDEM_JOB_OK);
    /* the filled-in document parses again: it writes every field, the
     * others at their neutral values */
    char *out = ndem_job_to_json(job);
    ck_assert_ptr_nonnull(out);
    ndem_job *again = NULL;
    ndem_job_errors e2 = {0};
    st = ndem_job_parse(out, strlen(out), &again, &e2);
    for (int i = 0; i < e2.count; i++)
        fprintf(stderr, "round trip: %s: %s\n", e2.items[i].pointer, e2.items[i].message);
    ck_assert_int_eq(st, NDEM_JOB_OK);
    ndem_job_destroy(again);
    free(out);
    ndem_job_destroy(job);
    ndem_job_errors_clear(&e);
    free(text);
}
END_TEST

/* A value of the wrong type gets the reader's error only. */
START_TEST(wrong_type_is_reported_once)
{
    char *text = doc(", 'hamaker': 'strong'", ", 'bonded': 1", "");
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_sq(text, &job, &e), NDEM_JOB_INVALID);
    ck_assert_int_eq(e.count, 2);
    ck_assert(has_error(&e, PAIR "hamaker", "must be a number"));
    ck_assert(has_error(&e, GEN "bonded", "must be"));
    ndem_job_errors_clear(&e);
    free(text);
}
END_TEST

/* Every ignored field gets its own error, in document order. */
START_TEST(every_ignored_field_is_reported)
{
    char *text = doc(", 'hamaker': 1e-19, 'dynamic_friction': 0.3", ", 'bonds': [[0, 1]]",
                     ", 'iterations': 50");
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_sq(text, &job, &e), NDEM_JOB_INVALID);
    ck_assert_int_eq(e.count, 3);
    ck_assert_str_eq(e.items[0].pointer, PAIR "hamaker");
    ck_assert_str_eq(e.items[1].pointer, PAIR "dynamic_friction");
    ck_assert_str_eq(e.items[2].pointer, GEN "bonds");
    ndem_job_errors_clear(&e);
    free(text);
}
END_TEST

/* A dynamic body that can touch static geometry (a box over a plane) under
 * a smooth-DEM model without a law for it (luding, linear_elastic6) is
 * refused at submission, at the body's "dynamic", naming what runs it (it
 * used to pass and fail as the run started); under hertz, or with nothing
 * static to touch (the plane dynamic too, locked), or a dynamic plane (no
 * hull) over a static one, it passes. */
static const struct {
    const char *model, *plane_dynamic, *body; /* spliced into the document */
    int refused;
} bodies[] = {
    {"luding", "", "'type': 'box', 'min': [-1, -1, 0.1], 'max': [1, 1, 0.2]", 1},
    {"linear_elastic6", "",
     "'type': 'cylinder', 'center': [0, 0, 0.5], 'axis': [0, 0, 1], "
     "'radius': 0.1, 'length': 0.1",
     1},
    {"hertz", "", "'type': 'box', 'min': [-1, -1, 0.1], 'max': [1, 1, 0.2]", 0},
    {"luding", ", 'dynamic': {'mass': 1, 'lock': ['rx', 'ry', 'rz']}",
     "'type': 'box', 'min': [-1, -1, 0.1], 'max': [1, 1, 0.2]", 0},
    {"luding", "", "'type': 'plane', 'point': [0, 0, 1], 'normal': [0, 0, -1]", 0},
};

START_TEST(body_against_geometry_needs_a_law)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{'scene': {'materials': [{'name': 'a'}], 'geometry': [{'type': 'plane', 'point': "
             "[0, 0, 0], 'normal': [0, 0, 1], 'material': 'a'%s}, {%s, 'material': 'a', "
             "'dynamic': {'mass': 1, 'lock': ['rx', 'ry', 'rz']}}], 'particles': [{'type': "
             "'list', 'material': 'a', 'spheres': [[0, 0, 0.5, 0.01]]}]}, 'solver': {'time_step': "
             "1e-5, 'duration': 0.01, 'method': 'dem', 'contact_model': '%s'}}",
             bodies[_i].plane_dynamic, bodies[_i].body, bodies[_i].model);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(text, &job, &e);
    for (int i = 0; i < e.count; i++)
        fprintf(stderr, "%s: %s: %s\n", bodies[_i].model, e.items[i].pointer, e.items[i].message);
    if (!bodies[_i].refused) {
        ck_assert_int_eq(st, NDEM_JOB_OK);
        ndem_job_destroy(job);
        return;
    }
    char msg[256];
    snprintf(msg, sizeof msg,
             "can touch static geometry, and a body's contacts with geometry are not supported "
             "by \"contact_model\": \"%s\" yet; they run with \"method\": \"ndem\" or "
             "\"method\": \"dem\" with \"contact_model\" \"hertz\" or \"linear\" or "
             "\"hunt_crossley\"",
             bodies[_i].model);
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    ck_assert_ptr_null(job);
    ck_assert_int_eq(e.count, 1);
    ck_assert_str_eq(e.items[0].pointer, "/scene/geometry/1/dynamic");
    ck_assert_str_eq(e.items[0].message, msg);
    ndem_job_errors_clear(&e);
}
END_TEST

/* Two dynamic boxes and nothing static under luding: each can touch the
 * other, and smooth DEM has no such law for luding: both refused at their
 * "dynamic" (they used to pass and go through each other); under hertz
 * they pass. */
START_TEST(body_against_body_needs_a_law)
{
    static const char *models[] = {"luding", "hertz"};
    for (int m = 0; m < 2; m++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{'scene': {'materials': [{'name': 'a'}], 'geometry': [{'type': 'box', 'min': "
                 "[0, 0, 0], 'max': [1, 1, 1], 'material': 'a', 'dynamic': {'mass': 1}}, "
                 "{'type': 'box', 'min': [2, 0, 0], 'max': [3, 1, 1], 'material': 'a', "
                 "'dynamic': {'mass': 1}}], 'particles': []}, 'solver': {'time_step': 1e-5, "
                 "'duration': 0.01, 'method': 'dem', 'contact_model': '%s'}}",
                 models[m]);
        ndem_job *job = NULL;
        ndem_job_errors e = {0};
        ndem_job_status st = parse_sq(text, &job, &e);
        for (int i = 0; i < e.count; i++)
            fprintf(stderr, "%s: %s: %s\n", models[m], e.items[i].pointer, e.items[i].message);
        if (m == 1) {
            ck_assert_int_eq(st, NDEM_JOB_OK);
            ndem_job_destroy(job);
            continue;
        }
        const char *msg = "can touch another dynamic body, and a body's contacts with bodies "
                          "are not supported by \"contact_model\": \"luding\" yet; they run "
                          "with \"method\": \"ndem\" or \"method\": \"dem\" with "
                          "\"contact_model\" \"hertz\" or \"linear\" or \"hunt_crossley\"";
        ck_assert_int_eq(st, NDEM_JOB_INVALID);
        ck_assert_ptr_null(job);
        ck_assert_int_eq(e.count, 2);
        ck_assert_str_eq(e.items[0].pointer, "/scene/geometry/0/dynamic");
        ck_assert_str_eq(e.items[1].pointer, "/scene/geometry/1/dynamic");
        ck_assert_str_eq(e.items[0].message, msg);
        ndem_job_errors_clear(&e);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("parser_methods");
    TCase *tc = tcase_create("methods");
    tcase_add_loop_test(tc, ignored_field_is_refused, 0, N_REFUSED);
    tcase_add_loop_test(tc, used_or_neutral_field_is_accepted, 0, N_ACCEPTED);
    tcase_add_test(tc, every_ignored_field_is_reported);
    tcase_add_test(tc, wrong_type_is_reported_once);
    tcase_add_test(tc, body_against_body_needs_a_law);
    tcase_add_loop_test(tc, body_against_geometry_needs_a_law, 0,
                        (int)(sizeof bodies / sizeof bodies[0]));
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
