/* test_parser_shape.c - the "shape" of generators and emitters
 * (docs/job.md, docs/shapes.md): every error with its JSON Pointer, the hull
 * checked as the engine builds it, and a valid shape refused at its pointer
 * while the engine takes no shapes. */
#include "parser_util.h"

#define GEN(shape)                                                                                 \
    DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': [1,1,1], 'count': 2, "         \
        "'shape': " shape "}]")
#define EMIT(shape)                                                                                \
    DOC(", 'emitters': [{'type': 'box', 'min': [0,0,0], 'max': [1,1,1], 'rate': 10, "              \
        "'shape': " shape "}]")
#define CUBE "[[0,0,0],[1,0,0],[0,1,0],[1,1,0],[0,0,1],[1,0,1],[0,1,1],[1,1,1]]"
#define P "/scene/particles/0/shape"

/* doc is invalid with an error at pointer whose message holds msg. */
static void expect_error(const char *doc, const char *pointer, const char *msg)
{
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(doc, &job, &e);
    if (!has_error(&e, pointer, msg)) {
        fprintf(stderr, "expected %s: %s\n", pointer, msg);
        dump_errors(&e);
    }
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    ck_assert_ptr_null(job);
    ck_assert(has_error(&e, pointer, msg));
    ndem_job_errors_clear(&e);
}

/* Exactly one error: the shape's own. */
static void expect_only(const char *doc, const char *pointer, const char *msg)
{
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_sq(doc, &job, &e), NDEM_JOB_INVALID);
    if (e.count != 1) dump_errors(&e);
    ck_assert_int_eq(e.count, 1);
    ck_assert_str_eq(e.items[0].pointer, pointer);
    ck_assert_ptr_nonnull(strstr(e.items[0].message, msg));
    ndem_job_errors_clear(&e);
}

START_TEST(valid_shapes_refused_at_their_pointer)
{
    expect_only(GEN("{'type': 'polyhedron', 'vertices': " CUBE "}"), P,
                "shape \"polyhedron\" is not supported by the engine yet");
    expect_only(GEN("{'type': 'clump', 'spheres': [[0,0,0,1], [1,0,0,0.5]]}"), P,
                "shape \"clump\" is not supported by the engine yet");
    expect_only(EMIT("{'type': 'clump', 'spheres': [[0,0,0,1]]}"), "/scene/emitters/0/shape",
                "not supported by the engine yet");
    expect_only(DOC(", 'particles': [{'type': 'list', 'spheres': [[0,0,0,1]], 'shape': {'type': "
                    "'polyhedron', 'vertices': " CUBE "}}]"),
                P, "not supported by the engine yet");
    /* no shape: spheres as before */
    ndem_job_destroy(parse_ok(DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': "
                                  "[1,1,1], 'count': 2}]")));
}
END_TEST

START_TEST(shape_errors_point_inside)
{
    expect_error(GEN("[1, 2]"), P, "must be an object");
    expect_error(GEN("{'vertices': " CUBE "}"), P "/type", "is required");
    expect_error(GEN("{'type': 'cone'}"), P "/type", "must be one of \"clump\", \"polyhedron\"");
    expect_only(GEN("{'type': 'clump', 'spheres': [[0,0,0,1]], 'vertices': " CUBE "}"),
                P "/vertices", "not a field of a clump");
    expect_error(GEN("{'type': 'polyhedron'}"), P "/vertices", "is required");
    expect_error(GEN("{'type': 'polyhedron', 'vertices': []}"), P "/vertices", "must not be empty");
    expect_error(GEN("{'type': 'polyhedron', 'vertices': [[0,0,0],[1,0,0],[0,1,0],[0,0]]}"),
                 P "/vertices/3", "must be an array of 3 numbers [x, y, z]");
    expect_error(GEN("{'type': 'polyhedron', 'vertices': [[0,0,0],[1,0,0],[0,'a',0],[0,0,1]]}"),
                 P "/vertices/2/1", "must be a number");
    expect_error(GEN("{'type': 'clump', 'spheres': [[0,0,0,1], [1,0,0,0]]}"), P "/spheres/1/3",
                 "must be a positive number");
    /* the hull as the engine builds it */
    expect_only(GEN("{'type': 'polyhedron', 'vertices': [[0,0,0],[1,0,0],[0,1,0]]}"), P "/vertices",
                "a polyhedron needs at least 4 points (got 3)");
    expect_only(GEN("{'type': 'polyhedron', 'vertices': [[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}"),
                P "/vertices", "the points span no solid");
    expect_only(GEN("{'type': 'polyhedron', 'vertices': [[0,0,0],[1,0,0],[0,1,0],[1,0,0],"
                    "[0,0,1]]}"),
                P "/vertices", "points 1 and 3 are the same");
    expect_error(EMIT("{'type': 'polyhedron', 'vertices': [[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}"),
                 "/scene/emitters/0/shape/vertices", "the points span no solid");
}
END_TEST

static Suite *parser_shape_suite(void)
{
    Suite *s = suite_create("parser_shape");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, valid_shapes_refused_at_their_pointer);
    tcase_add_test(tc, shape_errors_point_inside);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(parser_shape_suite()); }
