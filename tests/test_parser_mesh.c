/* test_parser_mesh.c - the mesh geometry of job documents (docs/meshes.md):
 * its four sources, placement, the errors of each with their JSON Pointers,
 * warnings, and the round trip through ndem_job_to_json. */
#include "geometry_mesh.h"
#include "parser_util.h"

#include <math.h>

/* A document with one mesh geometry made of the members in `mesh` (' for "). */
#define MESH_DOC(mesh)                                                                             \
    DOC(", 'geometry': [{'type': 'plane', 'point': [0,0,0], 'normal': [0,0,1]}, {'type': "         \
        "'mesh', " mesh "}]")
#define TETRA                                                                                      \
    "'vertices': [[0,0,0], [1,0,0], [0,1,0], [0,0,1]], 'triangles': [[0,2,1], [0,1,3], [0,3,2], "  \
    "[1,2,3]]"
#define G "/scene/geometry/1"

static ndem_job_status parse_opts(const char *doc, const ndem_job_parse_opts *o, ndem_job **job,
                                  ndem_job_errors *e)
{
    char *t = dq(doc);
    ndem_job_status st = ndem_job_parse_with(t, strlen(t), o, job, e);
    free(t);
    return st;
}

/* Parses doc expecting it invalid with an error at pointer whose message
 * holds msg. */
static void expect_error_opts(const char *doc, const ndem_job_parse_opts *o, const char *pointer,
                              const char *msg)
{
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_opts(doc, o, &job, &e);
    if (!has_error(&e, pointer, msg)) {
        fprintf(stderr, "expected %s: %s\n", pointer, msg);
        dump_errors(&e);
    }
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    ck_assert_ptr_null(job);
    ck_assert(has_error(&e, pointer, msg));
    ndem_job_errors_clear(&e);
}
static void expect_error(const char *doc, const char *pointer, const char *msg)
{
    expect_error_opts(doc, NULL, pointer, msg);
}

static const ndem_mesh *mesh_of(const ndem_job *job, int g)
{
    ck_assert_int_eq(job->scene.geometry[g].type, NDEM_GEOMETRY_MESH);
    ck_assert_ptr_nonnull(job->scene.geometry[g].mesh);
    return job->scene.geometry[g].mesh->mesh;
}

START_TEST(inline_mesh_is_built_and_placed)
{
    ndem_job *job = parse_ok(MESH_DOC(TETRA));
    const ndem_mesh *m = mesh_of(job, 1);
    ck_assert_int_eq(m->n_triangles, 4);
    ck_assert_int_eq(m->n_vertices, 4);
    ck_assert(m->closed && m->oriented);
    ck_assert_double_eq_tol(m->volume, 1.0 / 6.0, 1e-15);
    ck_assert_int_eq(job->warning_count, 0);
    ndem_job_destroy(job);
    /* scale 2, a quarter turn about z, then moved by (1, 0, 0): vertex
     * (1, 0, 0), the mesh's vertex 2 (nodes are numbered as the triangles
     * first use them), goes to (1, 2, 0), the volume to 8 / 6 */
    job = parse_ok(MESH_DOC(TETRA ", 'scale': 2, 'orientation': [1, 0, 0, 1], "
                                  "'position': [1, 0, 0]"));
    m = mesh_of(job, 1);
    ck_assert_double_eq_tol(m->vertices[3 * 2 + 0], 1.0, 1e-15);
    ck_assert_double_eq_tol(m->vertices[3 * 2 + 1], 2.0, 1e-15);
    ck_assert_double_eq_tol(m->volume, 8.0 / 6.0, 1e-14);
    ck_assert_double_eq_tol(m->bounds_min[0], -1.0, 1e-15);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(dropped_triangles_are_warned)
{
    ndem_job *job = parse_ok(MESH_DOC("'vertices': [[0,0,0], [1,0,0], [0,1,0], [2,0,0]], "
                                      "'triangles': [[0,1,2], [2,1,0], [0,1,3]]"));
    ck_assert_int_eq(mesh_of(job, 1)->n_triangles, 1);
    ck_assert_int_eq(job->warning_count, 1);
    ck_assert_str_eq(job->warnings[0],
                     G ": mesh: dropped 1 degenerate and 1 duplicate of 3 triangles");
    ndem_job_destroy(job);
}
END_TEST

START_TEST(inline_errors_point_into_the_arrays)
{
    expect_error(MESH_DOC("'vertices': [[0,0,0], [1,0,0], [0,1,0]], 'triangles': [[0,1,2], "
                          "[0,1,12]]"),
                 G "/triangles/1/2", "index 12 out of range (3 vertices: 0 to 2)");
    expect_error(MESH_DOC("'vertices': [[0,0,0], [1,0,0], [0,1,0]], 'triangles': [[0,1,-1]]"),
                 G "/triangles/0/2", "index -1 out of range");
    expect_error(MESH_DOC("'vertices': [[0,0,0], [1,0,0], [0,1,0]], 'triangles': [[0,1.5,2]]"),
                 G "/triangles/0/1", "must be a vertex index");
    expect_error(MESH_DOC("'vertices': [[0,0,0], [1,0,0], [0,1,0]], 'triangles': [[0,1]]"),
                 G "/triangles/0", "must be an array of 3 vertex indices");
    expect_error(MESH_DOC("'vertices': [[0,0,0], [1,0,1e999], [0,1,0]], 'triangles': [[0,1,2]]"),
                 G "/vertices/1/2", "finite");
    expect_error(MESH_DOC("'vertices': [[0,0,0], [1,0], [0,1,0]], 'triangles': [[0,1,2]]"),
                 G "/vertices/1", "must be an array of 3 numbers");
    expect_error(MESH_DOC("'vertices': [[0,0,0], [1,0,0], [0,1,0]]"), G "/triangles",
                 "is required");
    expect_error(MESH_DOC("'triangles': [[0,1,2]]"), G "/vertices", "is required");
    expect_error(MESH_DOC("'vertices': [], 'triangles': [[0,1,2]]"), G "/vertices",
                 "must not be empty");
    /* everything dropped: the build's message at the triangles */
    expect_error(MESH_DOC("'vertices': [[0,0,0], [1,0,0], [2,0,0]], 'triangles': [[0,1,2]]"),
                 G "/triangles", "no triangle left: 1 degenerate and 0 duplicate dropped");
}
END_TEST

START_TEST(sources_exactly_one)
{
    expect_error(MESH_DOC("'position': [0,0,0]"), G, "a mesh needs its triangles");
    expect_error(MESH_DOC(TETRA ", 'stl': 'solid x\\nendsolid x'"), G,
                 "exactly one of \"vertices\" and \"triangles\", \"stl\", \"mesh\" or "
                 "\"file\" (got \"vertices/triangles\" and \"stl\")");
    expect_error(MESH_DOC("'stl': 'x', 'mesh': 'abc', 'file': 'a.stl'"), G,
                 "(got \"stl\" and \"mesh\" and \"file\")");
    expect_error(MESH_DOC(TETRA ", 'stl': 'x', 'mesh': 'abc', 'file': 'a.stl'"), G,
                 "(got \"vertices/triangles\" and \"stl\" and \"mesh\" and \"file\")");
    expect_error(MESH_DOC(TETRA ", 'radius': 1"), G "/radius",
                 "unknown field 'radius' (not a field of a mesh)");
    expect_error(MESH_DOC(TETRA ", 'inside': true"), G "/inside", "not a field of a mesh");
}
END_TEST

START_TEST(placement_errors)
{
    expect_error(MESH_DOC(TETRA ", 'orientation': [0, 0, 0, 0]"), G "/orientation",
                 "must not be the zero quaternion");
    expect_error(MESH_DOC(TETRA ", 'orientation': [1, 0, 0]"), G "/orientation",
                 "must be an array of 4 numbers");
    expect_error(MESH_DOC(TETRA ", 'scale': 0"), G "/scale", "above 0");
    expect_error(MESH_DOC(TETRA ", 'scale': -2"), G "/scale", "above 0");
    expect_error(MESH_DOC(TETRA ", 'weld_tolerance': -1"), G "/weld_tolerance", "from 0 to 1e9");
    expect_error(MESH_DOC(TETRA ", 'position': [0, 'a', 0]"), G "/position/1", "");
    expect_error(MESH_DOC(TETRA ", 'angular_velocity': 3"), G "/angular_velocity",
                 "must be a vector [wx, wy, wz] for a mesh");
}
END_TEST

START_TEST(stl_text_and_base64)
{
    ndem_job *job = parse_ok(MESH_DOC(
        "'stl': 'solid t\\n facet normal 0 0 -1\\n  outer loop\\n   vertex 0 0 0\\n   vertex 0 1 "
        "0\\n   vertex 1 0 0\\n  endloop\\n endfacet\\nendsolid t\\n'"));
    ck_assert_int_eq(mesh_of(job, 1)->n_triangles, 1);
    ndem_job_destroy(job);
    expect_error(
        MESH_DOC("'stl': 'solid t\\n facet normal 0 0 1\\n outer loop\\n vortex 0 0 0\\n'"),
        G "/stl", "ASCII STL: line 4: expected 'vertex', found 'vortex'");
    expect_error(MESH_DOC("'stl': 'AAA*'"), G "/stl", "base64: offset 3");
    /* 84 bytes of zeros, base64: a binary STL of 0 triangles */
    char b64[200] = "";
    for (int i = 0; i < 28; i++) strcat(b64, "AAAA");
    char doc[512];
    snprintf(doc, sizeof doc, MESH_DOC("'stl': '%s'"), b64);
    expect_error(doc, G "/stl", "binary STL: 0 triangles");
    expect_error(MESH_DOC("'stl': 5"), G "/stl", "must be a string");
}
END_TEST

/* Standard base64 of n bytes (malloc'd). */
static char *b64_encode(const unsigned char *p, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc(4 * ((n + 2) / 3) + 1), *q = o;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *q++ = a[v >> 18 & 63];
        *q++ = a[v >> 12 & 63];
        *q++ = i + 1 < n ? a[v >> 6 & 63] : '=';
        *q++ = i + 2 < n ? a[v & 63] : '=';
    }
    *q = 0;
    return o;
}

START_TEST(stl_binary_as_base64)
{
    size_t len = 0;
    char *bin = ndem_read_file("tests/stl/cube_binary.stl", &len);
    ck_assert_ptr_nonnull(bin);
    char *b64 = b64_encode((const unsigned char *)bin, len);
    size_t n = strlen(b64) + 512;
    char *doc = malloc(n);
    snprintf(doc, n, MESH_DOC("'stl': '%s'"), b64);
    ndem_job *job = parse_ok(doc);
    const ndem_mesh *m = mesh_of(job, 1);
    ck_assert_int_eq(m->n_triangles, 12);
    ck_assert(m->closed);
    ck_assert_double_eq_tol(m->volume, 1.0, 1e-12);
    ndem_job_destroy(job);
    free(doc);
    free(b64);
    free(bin);
}
END_TEST

START_TEST(file_needs_a_base_dir)
{
    expect_error(MESH_DOC("'file': 'cube_ascii.stl'"), G "/file",
                 "is read by `ndem run` only: a server never reads a client's paths");
    ndem_job_parse_opts o = {.base_dir = "tests/stl"};
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_opts(MESH_DOC("'file': 'cube_ascii.stl'"), &o, &job, &e), NDEM_JOB_OK);
    ck_assert_int_eq(mesh_of(job, 1)->n_triangles, 12);
    ndem_job_destroy(job);
    expect_error_opts(MESH_DOC("'file': 'missing.stl'"), &o, G "/file",
                      "cannot read 'tests/stl/missing.stl': No such file or directory");
    /* the bytes are parsed as STL, with the parser's message */
    expect_error_opts(MESH_DOC("'file': 'cube_f64.bin'"), &o, G "/file", "STL");
}
END_TEST

static int resolver(void *ctx, const char *id, char **bytes, size_t *len)
{
    (void)ctx;
    if (strcmp(id, "cube")) return -1;
    *bytes = ndem_read_file("tests/stl/cube_ascii.stl", len);
    return *bytes ? 0 : -1;
}

START_TEST(mesh_ids_need_a_resolver)
{
    expect_error(MESH_DOC("'mesh': 'cube'"), G "/mesh",
                 "uploaded meshes are named by id only in jobs submitted to the daemon");
    ndem_job_parse_opts o = {.mesh_bytes = resolver};
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_opts(MESH_DOC("'mesh': 'cube'"), &o, &job, &e), NDEM_JOB_OK);
    ck_assert_int_eq(mesh_of(job, 1)->n_triangles, 12);
    ndem_job_destroy(job);
    expect_error_opts(MESH_DOC("'mesh': 'nope'"), &o, G "/mesh",
                      "no uploaded mesh has the id 'nope'");
    expect_error_opts(MESH_DOC("'mesh': ''"), &o, G "/mesh", "");
}
END_TEST

START_TEST(round_trip_keeps_the_placed_mesh)
{
    ndem_job *job = parse_ok(MESH_DOC(TETRA ", 'scale': 0.5, 'orientation': [0.3, 0.1, -0.7, 0.2], "
                                            "'position': [1, -2, 3], 'velocity': [0, 0, 1]"));
    char *json = ndem_job_to_json(job);
    ndem_job *again = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(json, strlen(json), &again, &e), NDEM_JOB_OK);
    const ndem_mesh *a = mesh_of(job, 1), *b = mesh_of(again, 1);
    ck_assert_int_eq(a->n_vertices, b->n_vertices);
    ck_assert_int_eq(a->n_triangles, b->n_triangles);
    ck_assert_mem_eq(a->vertices, b->vertices, 3 * sizeof(double) * (size_t)a->n_vertices);
    ck_assert_mem_eq(a->triangles, b->triangles, 3 * sizeof(int) * (size_t)a->n_triangles);
    ck_assert(job->scene.geometry[1].mesh->hash == again->scene.geometry[1].mesh->hash);
    char *json2 = ndem_job_to_json(again);
    ck_assert_str_eq(json, json2);
    free(json2);
    free(json);
    ndem_job_destroy(again);
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("parser_mesh");
    TCase *tc = tcase_create("mesh");
    tcase_add_test(tc, inline_mesh_is_built_and_placed);
    tcase_add_test(tc, dropped_triangles_are_warned);
    tcase_add_test(tc, inline_errors_point_into_the_arrays);
    tcase_add_test(tc, sources_exactly_one);
    tcase_add_test(tc, placement_errors);
    tcase_add_test(tc, stl_text_and_base64);
    tcase_add_test(tc, stl_binary_as_base64);
    tcase_add_test(tc, file_needs_a_base_dir);
    tcase_add_test(tc, mesh_ids_need_a_resolver);
    tcase_add_test(tc, round_trip_keeps_the_placed_mesh);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
