/* test_parser_shape.c - the "shape" of generators and emitters
 * (docs/job.md, docs/shapes.md): every error with its JSON Pointer, the hull
 * checked as the engine builds it, a valid shape handed to the engine under
 * the smooth-DEM laws that run it and refused at its pointer under the
 * others and with what the engine cannot run yet. */
#include "job_shapes.h"
#include "parser_util.h"

/* A scene under smooth DEM with a law that runs shapes (hertz), or NDEM (DOC). */
#define DEM_DOC(model, scene)                                                                      \
    "{'scene': {" MAT scene "}, 'solver': {'method': 'dem', 'contact_model': '" model "', "        \
    "'time_step': 'auto', 'duration': 0.01}}"
#define GEN_IN(doc, shape)                                                                         \
    doc(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': [1,1,1], 'count': 2, "         \
        "'shape': " shape "}]")
#define EMIT_IN(doc, shape)                                                                        \
    doc(", 'emitters': [{'type': 'box', 'min': [0,0,0], 'max': [1,1,1], 'rate': 10, "              \
        "'shape': " shape "}]")
#define HERTZ_DOC(scene) DEM_DOC("hertz", scene)
#define GEN(shape) GEN_IN(HERTZ_DOC, shape)
#define EMIT(shape) EMIT_IN(HERTZ_DOC, shape)
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
    /* NDEM runs shapes (general rows), but neither adhesion, nor a
     * twisting row, nor walls (docs/shapes.md, "NDEM rows") */
    ndem_job *ok = parse_ok(GEN_IN(DOC, "{'type': 'polyhedron', 'vertices': " CUBE "}"));
    ck_assert_int_eq(ok->scene.generators[0].shape.type, NDEM_PARTICLE_POLYHEDRON);
    ndem_job_destroy(ok);
    ok = parse_ok(EMIT_IN(DOC, "{'type': 'clump', 'spheres': [[0,0,0,1]]}"));
    ck_assert_int_eq(ok->scene.emitters[0].shape.type, NDEM_PARTICLE_CLUMP);
    ndem_job_destroy(ok);
#define SHAPED_GEN                                                                                 \
    "'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': [1,1,1], 'count': 2, 'shape': "      \
    "{'type': 'polyhedron', 'vertices': " CUBE "}}]"
    expect_only(
        DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'adhesion': 0.5}], " SHAPED_GEN),
        "/scene/contact_materials/0/adhesion", "does not apply to shaped particles yet");
    expect_only(DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'adhesive_overlap': "
                    "1e-4}], " SHAPED_GEN),
                "/scene/contact_materials/0/adhesive_overlap",
                "does not apply to shaped particles yet");
    expect_only(DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'twisting_resistance': "
                    "0.1}], " SHAPED_GEN),
                "/scene/contact_materials/0/twisting_resistance",
                "does not apply to shaped particles yet");
    expect_only(DOC(", 'geometry': [{'type': 'box', 'min': [-1,-1,-1], 'max': [2,2,2], 'inside': "
                    "true, 'walls': {'mass': 1, 'stress': [1000, 1000, 1000]}}], " SHAPED_GEN),
                P,
                "shaped particles meet walls and dynamic geometry under \"method\": \"dem\" only");
    expect_only(DOC(", 'geometry': [{'type': 'plane', 'point': [0,0,-1], 'normal': [0,0,1], "
                    "'dynamic': {'mass': 10, 'lock': ['rx', 'ry', 'rz']}}], " SHAPED_GEN),
                P, "/scene/geometry/0 has \"dynamic\"");
    /* every geometry type takes shapes under NDEM too (test_shape_ndem's
     * geometry tests): an inside cylinder, a solid box, a solid cylinder */
    ok = parse_ok(DOC(", 'geometry': [{'type': 'cylinder', 'center': [0,0,0], 'axis': [0,0,1], "
                      "'radius': 2, 'length': 2, 'inside': true}, {'type': 'box', 'min': [5,5,5], "
                      "'max': [6,6,6]}, {'type': 'cylinder', 'center': [9,9,9], 'axis': [0,0,1], "
                      "'radius': 1, 'length': 1}], " SHAPED_GEN));
    ck_assert_int_eq(ok->scene.geometry_count, 3);
    ndem_job_destroy(ok);
#undef SHAPED_GEN
    /* nor the smooth-DEM laws other than hertz, linear and hunt_crossley */
    expect_only(DEM_DOC("luding", ", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': "
                                  "[1,1,1], 'count': 2, 'shape': {'type': 'polyhedron', "
                                  "'vertices': " CUBE "}}]"),
                P,
                "is not supported by \"contact_model\": \"luding\" yet; it runs with \"method\": "
                "\"ndem\" or \"method\": \"dem\" with \"contact_model\" \"hertz\" or "
                "\"linear\" or \"hunt_crossley\"");
    /* no shape: spheres as before */
    ndem_job *job = parse_ok(DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': "
                                 "[1,1,1], 'count': 2}]"));
    ck_assert_int_eq(job->scene.generators[0].shape.type, NDEM_PARTICLE_SPHERE);
    ndem_job_destroy(job);
}
END_TEST

/* Under hertz and hunt_crossley the shape reaches the engine's definition
 * as given (the document's points, the job owning them). */
#define LBASE                                                                                      \
    "[[-1,-0.5,-1],[1,-0.5,-1],[1,0.5,-1],[-1,0.5,-1],[-1,-0.5,0],[1,-0.5,0],[1,0.5,0],[-1,0.5,0]" \
    "]"
#define LUP                                                                                        \
    "[[-1,-0.5,0],[0,-0.5,0],[0,0.5,0],[-1,0.5,0],[-1,-0.5,1],[0,-0.5,1],[0,0.5,1],[-1,0.5,1]]"

/* A compound (an L of two boxes) is read piece by piece, handed to the
 * engine as sizes and points, and given back by the filled-in document. */
START_TEST(compound_accepted_and_given_back)
{
    ndem_job *job = parse_ok(GEN("{'type': 'compound', 'pieces': [" LBASE ", " LUP "]}"));
    const ndem_particle_shape_def *p = &job->scene.generators[0].shape;
    ck_assert_int_eq(p->type, NDEM_PARTICLE_COMPOUND);
    ck_assert_int_eq(p->count, 2);
    ck_assert_int_eq(p->piece_sizes[0], 8);
    ck_assert_int_eq(p->piece_sizes[1], 8);
    ck_assert_double_eq(p->data[3 * 8 + 3 * 7 + 2], 1.0); /* the upright's last point */
    char *text = ndem_job_to_json(job);
    ck_assert_ptr_nonnull(text);
    ndem_job *again = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(text, strlen(text), &again, &e), NDEM_JOB_OK);
    const ndem_particle_shape_def *p2 = &again->scene.generators[0].shape;
    ck_assert_int_eq(p2->type, NDEM_PARTICLE_COMPOUND);
    ck_assert_int_eq(p2->count, 2);
    ck_assert_int_eq(p2->piece_sizes[1], 8);
    ck_assert(memcmp(p2->data, p->data, 48 * sizeof(double)) == 0);
    free(text);
    ndem_job_errors_clear(&e);
    ndem_job_destroy(again);
    ndem_job_destroy(job);
    /* the job resource lists it as its pieces' hulls over one vertex list,
     * about its centre of mass (the L's centroid is (-1/6, 0, -1/6) at
     * radius 1.5; the listing is at radius 1), and the table has it */
    cJSON *doc = cJSON_Parse("{\"scene\": {\"particles\": [{\"shape\": {\"type\": "
                             "\"compound\", \"pieces\": [" LBASE ", " LUP "]}}]}}");
    ck_assert_ptr_nonnull(doc);
    cJSON *list = ndem_job_shape_list(doc);
    const cJSON *o = cJSON_GetArrayItem(list, 0);
    ck_assert_str_eq(cJSON_GetObjectItem(o, "type")->valuestring, "compound");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "vertices")), 16);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "faces")), 12);
    const cJSON *pf = cJSON_GetObjectItem(o, "piece_faces");
    ck_assert_int_eq(cJSON_GetArraySize(pf), 2);
    ck_assert_int_eq(cJSON_GetArrayItem(pf, 1)->valueint, 6);
    double sum[3] = {0, 0, 0}; /* the base's 8 corners average to its centre */
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++)
            sum[k] +=
                cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "vertices"), i), k)
                    ->valuedouble /
                8;
    ck_assert_double_eq_tol(sum[0], (0 + 1.0 / 6) / 1.5, 1e-12);
    ck_assert_double_eq_tol(sum[2], (-0.5 + 1.0 / 6) / 1.5, 1e-12);
    ndem_shape_table *t = ndem_job_shape_table(doc);
    ck_assert_int_eq(ndem_shape_table_get(t, 0)->type, NDEM_SHAPE_COMPOUND);
    ck_assert_int_eq(ndem_shape_table_get(t, 0)->n_pieces, 2);
    ndem_shape_table_destroy(t);
    cJSON_Delete(list);
    cJSON_Delete(doc);
}
END_TEST

/* A compound's errors at the piece, the point or the number. */
START_TEST(compound_errors_point_inside)
{
    expect_error(GEN("{'type': 'compound'}"), P "/pieces", "is required");
    expect_only(GEN("{'type': 'compound', 'pieces': [" LBASE "], 'vertices': " CUBE "}"),
                P "/vertices", "not a field of a compound");
    expect_error(GEN("{'type': 'compound', 'pieces': [" LBASE ", [[0,0,0],[1,0,0],[0,1,0]]]}"),
                 P "/pieces/1", "must be an array of 4 to 1024 points");
    expect_error(GEN("{'type': 'compound', 'pieces': [" LBASE ", [[0,0,0],[1,0,0],[0,1,0],"
                     "[0,0,'z']]]}"),
                 P "/pieces/1/3/2", "must be a number");
    /* a flat piece: the hull's reason, at the piece */
    expect_only(GEN("{'type': 'compound', 'pieces': [" LBASE ", [[0,0,1],[1,0,1],[0,1,1],"
                    "[1,1,1]]]}"),
                P "/pieces/1", "the points span no solid");
    /* the upright pushed down into the base by 0.5 */
    expect_only(GEN("{'type': 'compound', 'pieces': [" LBASE ", [[-1,-0.5,-0.5],[0,-0.5,-0.5],"
                    "[0,0.5,-0.5],[-1,0.5,-0.5],[-1,-0.5,1],[0,-0.5,1],[0,0.5,1],[-1,0.5,1]]]}"),
                P "/pieces", "pieces 0 and 1 overlap");
}
END_TEST

START_TEST(valid_shapes_accepted_under_dem)
{
    ndem_job *job = parse_ok(DEM_DOC("hertz", ", 'particles': [{'type': 'lattice', 'min': [0,0,0], "
                                              "'max': [1,1,1], 'count': 2, 'shape': {'type': "
                                              "'polyhedron', 'vertices': " CUBE "}}]"));
    const ndem_particle_shape_def *p = &job->scene.generators[0].shape;
    ck_assert_int_eq(p->type, NDEM_PARTICLE_POLYHEDRON);
    ck_assert_int_eq(p->count, 8);
    ck_assert_double_eq(p->data[3 * 7 + 2], 1.0);
    ndem_job_destroy(job);
    job = parse_ok(DEM_DOC("hunt_crossley", ", 'emitters': [{'type': 'box', 'min': [0,0,0], "
                                            "'max': [1,1,1], 'rate': 10, 'shape': {'type': "
                                            "'clump', 'spheres': [[0,0,0,1], [1,0,0,0.5]]}}]"));
    p = &job->scene.emitters[0].shape;
    ck_assert_int_eq(p->type, NDEM_PARTICLE_CLUMP);
    ck_assert_int_eq(p->count, 2);
    ck_assert_double_eq(p->data[7], 0.5);
    /* the filled-in document gives the shape back, and reads as the same */
    char *text = ndem_job_to_json(job);
    ck_assert_ptr_nonnull(text);
    ndem_job *again = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(text, strlen(text), &again, &e), NDEM_JOB_OK);
    const ndem_particle_shape_def *p2 = &again->scene.emitters[0].shape;
    ck_assert_int_eq(p2->type, NDEM_PARTICLE_CLUMP);
    ck_assert_int_eq(p2->count, 2);
    ck_assert(memcmp(p2->data, p->data, 8 * sizeof(double)) == 0);
    free(text);
    ndem_job_errors_clear(&e);
    ndem_job_destroy(again);
    ndem_job_destroy(job);
}
END_TEST

/* What the engine cannot run with a shape yet, at the shape's pointer. */
START_TEST(shape_limits_at_their_pointer)
{
#define SHAPED "'shape': {'type': 'polyhedron', 'vertices': " CUBE "}"
    expect_only(DEM_DOC("hertz",
                        ", 'particles': [{'type': 'random', 'min': [0,0,0], 'max': "
                        "[1,1,1], 'count': 2, 'radius': {'min': 0.01, 'max': 0.02}, " SHAPED "}]"),
                P, "needs a fixed radius or a list of radius values");
    expect_only(DEM_DOC("hertz", ", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': "
                                 "[1,1,1], 'count': 2, 'bonded': true, " SHAPED "}]"),
                P, "bonds join spheres, not shaped particles");
    /* every geometry takes shapes now (test_shape_geometry) */
    ndem_job_destroy(parse_ok(DEM_DOC("hertz", ", 'geometry': [{'type': 'cylinder', 'center': "
                                               "[0,0,0], 'axis': [0,0,1], 'radius': 2, 'length': "
                                               "2, 'inside': true}, {'type': 'box', 'min': "
                                               "[5,5,5], 'max': [6,6,6]}], 'particles': [{'type': "
                                               "'lattice', 'min': [0,0,0], 'max': [1,1,1], "
                                               "'count': 2, " SHAPED "}]")));
    /* a list of 65 different radii would need 65 templates */
    {
        char doc[8192];
        int len = snprintf(doc, sizeof doc,
                           "{'scene': {" MAT ", 'particles': [{'type': 'list', 'spheres': [");
        for (int k = 0; k < 65; k++)
            len += snprintf(doc + len, sizeof doc - (size_t)len, "%s[%d,0,0,%g]", k ? "," : "", k,
                            0.1 + 0.001 * k);
        snprintf(doc + len, sizeof doc - (size_t)len,
                 "], " SHAPED "}]}, 'solver': {'method': 'dem', 'time_step': 'auto', "
                 "'duration': 0.01}}");
        expect_only(doc, P, "at most 64 different radii");
    }
    /* pair laws a shaped contact does not take yet, at the pair's field */
    expect_only(DEM_DOC("hertz", ", 'contact_materials': [{'materials': ['a', 'a'], "
                                 "'rolling_resistance': 0.1}], 'particles': [{'type': 'lattice', "
                                 "'min': [0,0,0], 'max': [1,1,1], 'count': 2, " SHAPED "}]"),
                "/scene/contact_materials/0/rolling_resistance",
                "does not apply to shaped particles yet");
#undef SHAPED
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

/* A lattice may not start its particles inside each other (job_lattice.c):
 * its pitch is at least the particles' extent along each axis that holds two
 * neighbours, 2 r_max for spheres; touching passes. */
#define LATTICE(spacing, more)                                                                     \
    DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': [0.3,0.3,0.3], "               \
        "'spacing': " spacing more "}]")
#define S "/scene/particles/0/spacing"
START_TEST(lattice_pitch_against_the_particles_size)
{
    /* the fuzzer's job: 1056 cubes of radius 1.015 m at 35 mm (96 s for 3 steps) */
    expect_only(LATTICE("0.035", ", 'radius': 1.015"), S,
                "0.035 m is less than the spheres' largest diameter, 2.03 m (2 x radius 1.015 m)");
    expect_only(LATTICE("0.035", ", 'count': 1056, 'radius': 1.015, 'shape': {'type': "
                                 "'polyhedron', 'vertices': [[-1,-1,-1],[1,-1,-1],[1,1,-1],"
                                 "[-1,1,-1],[-1,-1,1],[1,-1,1],[1,1,1],[-1,1,1]]}"),
                S, "less than the particles' extent along x, 1.17202 m");
    /* spheres: the largest radius counts; touching (2 r, as written) passes */
    expect_only(LATTICE("0.0199", ", 'radius': 0.01"), S, "largest diameter, 0.02 m");
    expect_only(LATTICE("0.015", ", 'radius': {'values': [0.005, 0.01]}"), S,
                "largest diameter, 0.02 m");
    expect_only(LATTICE("0.015", ", 'radius': {'min': 0.005, 'max': 0.01}"), S,
                "largest diameter, 0.02 m");
    ndem_job_destroy(parse_ok(LATTICE("0.02", ", 'radius': 0.01")));
    ndem_job_destroy(parse_ok(LATTICE("0.013", ", 'radius': 0.0065")));
    ndem_job_destroy(parse_ok(LATTICE("0.02", ", 'radius': {'values': [0.005, 0.01]}")));
    /* no two particles, no neighbours: one site, or a count of 1 */
    ndem_job_destroy(parse_ok(DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': "
                                  "[0,0,0], 'spacing': 0.001, 'radius': 0.01}]")));
    ndem_job_destroy(parse_ok(LATTICE("0.001", ", 'count': 1, 'radius': 0.01")));
    /* a row along x only (count <= sites along x): y and z hold no pair */
    ndem_job_destroy(parse_ok(DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': "
                                  "[0.1,0.001,0.001], 'spacing': 0.02, 'radius': 0.01}]")));
    /* the unit cube [0,1]^3 at radius 1 is scaled by 1/sqrt(3): 0.57735 on a side, so
     * cubes sit face to face at that pitch (bench/cubes-10k-lattice.json) */
    ndem_job_destroy(
        parse_ok(HERTZ_DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': [3,3,3], "
                           "'spacing': 0.5773502692, 'radius': 1, 'shape': {'type': 'polyhedron', "
                           "'vertices': " CUBE "}}]")));
    expect_only(HERTZ_DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': [3,3,3], "
                          "'spacing': 0.577, 'radius': 1, 'shape': {'type': 'polyhedron', "
                          "'vertices': " CUBE "}}]"),
                S, "extent along x, 0.57735 m");
    /* a flat clump (two unit spheres along z, scaled by 1/2): 1 wide in x, y and 2 in z;
     * a layer one site thick packs at 1, more layers need 2 */
#define ROD "'shape': {'type': 'clump', 'spheres': [[0,0,-1,1],[0,0,1,1]]}"
    ndem_job_destroy(parse_ok(HERTZ_DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], "
                                        "'max': [3,3,0], 'spacing': 1, 'radius': 1, " ROD "}]")));
    expect_only(HERTZ_DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': [3,3,3], "
                          "'spacing': 1, 'radius': 1, " ROD "}]"),
                S, "extent along z, 2 m");
#undef ROD
    /* a shape that fails is reported at the shape, not again at the spacing */
    expect_only(HERTZ_DOC(", 'particles': [{'type': 'lattice', 'min': [0,0,0], 'max': [3,3,3], "
                          "'spacing': 0.01, 'radius': 1, 'shape': {'type': 'polyhedron', "
                          "'vertices': [[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}}]"),
                P "/vertices", "the points span no solid");
}
END_TEST
#undef S
#undef LATTICE

static Suite *parser_shape_suite(void)
{
    Suite *s = suite_create("parser_shape");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, valid_shapes_refused_at_their_pointer);
    tcase_add_test(tc, valid_shapes_accepted_under_dem);
    tcase_add_test(tc, shape_limits_at_their_pointer);
    tcase_add_test(tc, shape_errors_point_inside);
    tcase_add_test(tc, compound_accepted_and_given_back);
    tcase_add_test(tc, compound_errors_point_inside);
    tcase_add_test(tc, lattice_pitch_against_the_particles_size);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(parser_shape_suite()); }
