/* test_parser.c - job documents that the parser refuses: every kind of
 * broken document with the JSON Pointer and message of its error, all errors
 * reported in document order and bounded in number, malformed and hostile
 * input (length, nesting, huge and odd strings, unreadable files). The
 * standard scenes, defaults and round trip are in test_parser_scene.c, errors
 * and frames as JSON in test_parser_output.c, fields of one method in
 * test_parser_methods.c. */
#include "job.h"
#include "parser_util.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <time.h>

/* ---- broken documents ---- */

typedef struct broken {
    const char *doc;
    const char *pointer;
    const char *message;
} broken;

static const broken broken_docs[] = {
    /* document level */
    {"[1, 2]", "", "must be a JSON object"},
    {"'job'", "", "must be a JSON object"},
    {"{}", "/scene", "is required"},
    {"{'scene': 5}", "/scene", "must be an object"},
    {"{'nam': 'x', 'scene': {" MAT "}}", "/nam", "unknown field 'nam'"},
    {"{'name': 5, 'scene': {" MAT "}}", "/name", "must be a string"},
    {"{'name': '', 'scene': {" MAT "}}", "/name", "1 to 127"},
    {"{'name': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'scene': {" MAT "}}",
     "/name", "1 to 127"},
    {"{'name': 'a', 'name': 'b', 'scene': {" MAT "}}", "/name", "duplicate field 'name'"},
    {"{'a/b': 1, 'scene': {" MAT "}}", "/a~1b", "unknown field 'a/b'"},
    {"{'scene': {" MAT ", 'particle': []}}", "/scene/particle", "unknown field 'particle'"},
    /* materials */
    {"{'scene': {'materials': []}}", "/scene/materials", "must not be empty"},
    {"{'scene': {}}", "/scene/materials", "is required"},
    {"{'scene': {'materials': {'name': 'a'}}}", "/scene/materials", "must be an array"},
    {"{'scene': {'materials': [5]}}", "/scene/materials/0", "must be an object"},
    {"{'scene': {'materials': [{'density': 1}]}}", "/scene/materials/0/name", "is required"},
    {"{'scene': {'materials': [{'name': 'a', 'densty': 1}]}}", "/scene/materials/0/densty",
     "unknown field 'densty'"},
    {"{'scene': {'materials': [{'name': 'a', 'x~y': 1}]}}", "/scene/materials/0/x~0y",
     "unknown field 'x~y'"},
    {"{'scene': {'materials': [{'name': 'a', 'density': -1}]}}", "/scene/materials/0/density",
     "must be a positive number"},
    {"{'scene': {'materials': [{'name': 'a', 'density': 0}]}}", "/scene/materials/0/density",
     "must be a positive number"},
    {"{'scene': {'materials': [{'name': 'a', 'density': '2500'}]}}", "/scene/materials/0/density",
     "must be a number (got a string)"},
    {"{'scene': {'materials': [{'name': 'a', 'density': 1e999}]}}", "/scene/materials/0/density",
     "must be a finite number"},
    {"{'scene': {'materials': [{'name': 'a', 'young_modulus': -1e999}]}}",
     "/scene/materials/0/young_modulus", "must be a finite number"},
    {"{'scene': {'materials': [{'name': 'a', 'density': 1, 'density': 2}]}}",
     "/scene/materials/0/density", "duplicate field"},
    {"{'scene': {'materials': [{'name': 'a', 'poisson_ratio': 0.5}]}}",
     "/scene/materials/0/poisson_ratio", "[0, 0.5)"},
    {"{'scene': {'materials': [{'name': 'a', 'poisson_ratio': -0.1}]}}",
     "/scene/materials/0/poisson_ratio", "[0, 0.5)"},
    {"{'scene': {'materials': [{'name': 'a', 'viscosity': -1}]}}", "/scene/materials/0/viscosity",
     ">= 0"},
    {"{'scene': {'materials': [{'name': 'a'}, {'name': 'a'}]}}", "/scene/materials/1/name",
     "duplicate material name 'a'"},
    {"{'scene': {'materials': [{'name': "
     "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'}]}}",
     "/scene/materials/0/name", "1 to 63"},
    {"{'scene': {'materials': [{'name': null}]}}", "/scene/materials/0/name",
     "must be a string (got null)"},
    /* gravity */
    {DOC(", 'gravity': [0, 0]"), "/scene/gravity", "array of 3 numbers"},
    {DOC(", 'gravity': [0, 0, 'x']"), "/scene/gravity/2", "must be a number"},
    {DOC(", 'gravity': {'z': 1}"), "/scene/gravity", "array of 3 numbers"},
    /* contact materials */
    {DOC(", 'contact_materials': [{'materials': ['a', 'c']}]"),
     "/scene/contact_materials/0/materials/1", "unknown material 'c'"},
    {DOC(", 'contact_materials': [{'materials': ['a', 'b']}, {'materials': ['b', 'a']}]"),
     "/scene/contact_materials/1/materials", "already listed at /scene/contact_materials/0"},
    {DOC(", 'contact_materials': [{'materials': ['a']}]"), "/scene/contact_materials/0/materials",
     "two material names"},
    {DOC(", 'contact_materials': [{'friction': 1}]"), "/scene/contact_materials/0/materials",
     "is required"},
    {DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'restitution': 1.5}]"),
     "/scene/contact_materials/0/restitution", "[0, 1]"},
    {DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'friction': -0.1}]"),
     "/scene/contact_materials/0/friction", ">= 0"},
    {DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'damping_time': 0}]"),
     "/scene/contact_materials/0/damping_time", "positive"},
    {DOC(", 'contact_materials': [{'materials': ['a', 'a'], 'frction': 0}]"),
     "/scene/contact_materials/0/frction", "unknown field"},
    /* geometry */
    {DOC(", 'geometry': [{'type': 'sphere'}]"), "/scene/geometry/0/type", "must be one of"},
    {DOC(", 'geometry': [{'point': [0, 0, 0]}]"), "/scene/geometry/0/type", "is required"},
    {DOC(", 'geometry': [{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 0, 0]}]"),
     "/scene/geometry/0/normal", "non-zero"},
    {DOC(", 'geometry': [{'type': 'plane', 'point': [0, 0, 0]}]"), "/scene/geometry/0/normal",
     "is required"},
    {DOC(", 'geometry': [{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 0, 1],"
         " 'radius': 1}]"),
     "/scene/geometry/0/radius", "not a field of a plane"},
    {DOC(", 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 0, 1]}]"),
     "/scene/geometry/0/max", "greater than"},
    {DOC(", 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'angular_velocity': 1}]"),
     "/scene/geometry/0/angular_velocity", "for a box"},
    {DOC(", 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1], 'inside': 1}]"),
     "/scene/geometry/0/inside", "true or false"},
    {DOC(", 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'velocity': [1, 2, 3, 4]}]"),
     "/scene/geometry/0/velocity", "array of 3 numbers"},
    {DOC(", 'geometry': [{'type': 'box', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'material': 'zz'}]"),
     "/scene/geometry/0/material", "unknown material 'zz'"},
    {DOC(", 'geometry': [{'type': 'cylinder', 'center': [0, 0, 0], 'axis': [0, 0, 1],"
         " 'radius': 0, 'length': 1}]"),
     "/scene/geometry/0/radius", "must be a positive number"},
    {DOC(", 'geometry': [{'type': 'cylinder', 'center': [0, 0, 0], 'axis': [0, 0, 1],"
         " 'radius': 1}]"),
     "/scene/geometry/0/length", "is required"},
    {DOC(", 'geometry': [{'type': 'cylinder', 'center': [0, 0, 0], 'axis': [0, 0, 1],"
         " 'radius': 1, 'length': 1, 'angular_velocity': -1e999}]"),
     "/scene/geometry/0/angular_velocity", "finite"},
    /* particles */
    {DOC(", 'particles': {'type': 'list'}"), "/scene/particles", "must be an array"},
    {DOC(", 'particles': ['x']"), "/scene/particles/0", "must be an object"},
    {DOC(", 'particles': [{'min': [0, 0, 0], 'max': [1, 1, 1]}]"), "/scene/particles/0/type",
     "is required"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, -1, 1]}]"),
     "/scene/particles/0/max", "at least \"min\""},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'material': 'q'}]"),
     "/scene/particles/0/material", "unknown material 'q'"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'spacing': -1}]"),
     "/scene/particles/0/spacing", ">= 0"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'count': -5}]"),
     "/scene/particles/0/count", "integer >= 0"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'radius': {'min': 2, 'max': 1}}]"),
     "/scene/particles/0/radius/max", "at least \"min\""},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'radius': -1}]"),
     "/scene/particles/0/radius", "must be a positive number"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'radius': 'big'}]"),
     "/scene/particles/0/radius", "{\"min\": a, \"max\": b}"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'radius': {'min': 1}}]"),
     "/scene/particles/0/radius/max", "is required"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [0.1, 0.2], 'weights': [1]}}]"),
     "/scene/particles/0/radius/weights", "one entry per value"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [0.1, 0.2], 'weights': [0, 0]}}]"),
     "/scene/particles/0/radius/weights", "must not all be zero"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [0.1, 0.2], 'weights': [1, -1]}}]"),
     "/scene/particles/0/radius/weights/1", ">= 0"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}}]"),
     "/scene/particles/0/radius/values", "at most 16"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': []}}]"),
     "/scene/particles/0/radius/values", "must not be empty"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [0.1, 0]}}]"),
     "/scene/particles/0/radius/values/1", "must be a positive number"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': {'values': [0.1], 'min': 0.1}}]"),
     "/scene/particles/0/radius/min", "unknown field 'min'"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1]}]"),
     "/scene/particles/0/count", "is required"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 0}]"),
     "/scene/particles/0/count", "integer >= 1"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'count': 2.5}]"),
     "/scene/particles/0/count", "integer >= 1"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'seed': -1}]"),
     "/scene/particles/0/seed", "integer >= 0"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'spacing': 1}]"),
     "/scene/particles/0/spacing", "not a field of a random generator"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, 1], [0, 0, 1]]}]"),
     "/scene/particles/0/spheres/1", "array of 4 numbers"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, 0]]}]"),
     "/scene/particles/0/spheres/0/3", "must be a positive number"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': []}]"), "/scene/particles/0/spheres",
     "must not be empty"},
    {DOC(", 'particles': [{'type': 'list'}]"), "/scene/particles/0/spheres", "is required"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, 1], [0, 0, 3, 1]],"
         " 'velocities': [[0, 0, 0]]}]"),
     "/scene/particles/0/velocities", "one entry per sphere (2)"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, 1]],"
         " 'velocities': [[0, 0]]}]"),
     "/scene/particles/0/velocities/0", "array of 3 numbers"},
    {DOC(", 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, 1]], 'radius': 1}]"),
     "/scene/particles/0/radius", "not a field of a list generator"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1],"
         " 'count': 60000000}]"),
     "/scene/particles", "at most 50000000"},
    {DOC(", 'particles': [{'type': 'lattice', 'min': [0, 0, 0], 'max': [10, 10, 10],"
         " 'spacing': 0.001}]"),
     "/scene/particles", "at most 50000000"},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1e9}]"), "/scene/particles",
     "at most 50000000"},
    /* regions beyond +-1e6 m (issue 12 item 7: signed overflow in generate.c) */
    {DOC(", 'particles': [{'type': 'lattice', 'min': [-1e300, 0, 0], 'max': [1e300, 1, 1],"
         " 'count': 10}]"),
     "/scene/particles/0/min/0", "within +-1e+06 m"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 2e6],"
         " 'count': 10}]"),
     "/scene/particles/0/max/2", "within +-1e+06 m"},
    {DOC(", 'emitters': [{'min': [0, -1.5e6, 0], 'max': [1, 1, 1], 'rate': 1}]"),
     "/scene/emitters/0/min/1", "within +-1e+06 m"},
    {DOC(", 'particles': [{'type': 'random', 'min': [0, 0, 0], 'max': [1, 1, 1], 'count': 1,"
         " 'radius': 2e6}]"),
     "/scene/particles/0/radius", "at most 1e6 m"},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1,"
         " 'radius': {'values': [0.1, 1e7]}}]"),
     "/scene/emitters/0/radius/values/1", "at most 1e6 m"},
    /* emitters */
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 0}]"),
     "/scene/emitters/0/rate", "must be a positive number"},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1]}]"), "/scene/emitters/0/rate",
     "is required"},
    {DOC(", 'emitters': [{'max': [1, 1, 1], 'rate': 1}]"), "/scene/emitters/0/min", "is required"},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1, 'start': 2,"
         " 'stop': 1}]"),
     "/scene/emitters/0/stop", "greater than \"start\""},
    {DOC(", 'emitters': [{'type': 'cone', 'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1}]"),
     "/scene/emitters/0/type", "must be \"box\""},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1, 'material': 'x'}]"),
     "/scene/emitters/0/material", "unknown material 'x'"},
    {DOC(", 'emitters': [{'min': [0, 0, 0], 'max': [1, 1, 1], 'rate': 1, 'max_count': 0}]"),
     "/scene/emitters/0/max_count", "integer >= 1"},
    /* solver */
    {"{'scene': {" MAT "}, 'solver': 'fast'}", "/solver", "must be an object"},
    {"{'scene': {" MAT "}, 'solver': {'method': 'dme'}}", "/solver/method", "must be"},
    {"{'scene': {" MAT "}, 'solver': {'method': 'pgs'}}", "/solver/method", "must be \"ndem\""},
    {"{'scene': {" MAT "}, 'solver': {'contact_model': 'hertz'}}", "/solver/contact_model",
     "applies to \"method\": \"dem\" only"},
    {"{'scene': {" MAT "}, 'solver': {'method': 'dem', 'contact_model': 'hooke'}}",
     "/solver/contact_model", "must be"},
    {"{'scene': {" MAT ", 'particles': [{'type': 'list', 'spheres': [[0,0,0,1], [3,0,0,1]],"
     " 'bonds': [[0, 0]]}]}}",
     "/scene/particles/0/bonds/0", "two different spheres"},
    {"{'scene': {" MAT ", 'particles': [{'type': 'list', 'spheres': [[0,0,0,1], [3,0,0,1]],"
     " 'bonds': [[0, 1], [1, 2.5]]}]}}",
     "/scene/particles/0/bonds/1", "two different spheres"},
    {"{'scene': {" MAT ", 'particles': [{'type': 'list', 'spheres': [[0,0,0,1]],"
     " 'bonds': [[0]]}]}}",
     "/scene/particles/0/bonds/0", "a pair [i, j]"},
    {"{'scene': {" MAT "}, 'solver': {'time_step': 'auto'}}", "/solver/time_step",
     "applies to \"method\": \"dem\" only"},
    {"{'scene': {" MAT "}, 'solver': {'itterations': 10}}", "/solver/itterations",
     "unknown field 'itterations'"},
    {"{'scene': {" MAT "}, 'solver': {'time_step': -0.001}}", "/solver/time_step",
     "must be a positive number"},
    {"{'scene': {" MAT "}, 'solver': {'time_step': 1e-3, 'duration': 1e7}}", "/solver/duration",
     "at most 1e+09 steps"},
    {"{'scene': {" MAT "}, 'solver': {'iterations': 2.5}}", "/solver/iterations",
     "integer in [1, 100000]"},
    {"{'scene': {" MAT "}, 'solver': {'iterations': 0}}", "/solver/iterations",
     "integer in [1, 100000]"},
    {"{'scene': {" MAT "}, 'solver': {'iterations': '25'}}", "/solver/iterations",
     "(got a string)"},
    {"{'scene': {" MAT "}, 'solver': {'threads': 2000}}", "/solver/threads",
     "integer in [0, 1024]"},
    {"{'scene': {" MAT "}, 'solver': {'warm_start': 1}}", "/solver/warm_start", "true or false"},
    {"{'scene': {" MAT "}, 'solver': {'warm_start_factor': 1.5}}", "/solver/warm_start_factor",
     "[0, 1]"},
    {"{'scene': {" MAT "}, 'solver': {'impact_velocity': -1}}", "/solver/impact_velocity",
     "must be a positive number"},
    {"{'scene': {" MAT "}, 'solver': {'damping_steps': 0}}", "/solver/damping_steps",
     "must be a positive number"},
    /* output */
    {"{'scene': {" MAT "}, 'output': {'frame_interval': 0}}", "/output/frame_interval",
     "must be a positive number"},
    {"{'scene': {" MAT "}, 'output': {'format': 'csv'}}", "/output/format",
     "unknown field 'format'"},
    {"{'scene': {" MAT "}, 'output': []}", "/output", "must be an object"},
};
#define N_BROKEN ((int)(sizeof broken_docs / sizeof broken_docs[0]))

START_TEST(broken_document)
{
    const broken *b = &broken_docs[_i];
    ndem_job *job = (ndem_job *)1;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(b->doc, &job, &e);
    if (st != NDEM_JOB_INVALID || !has_error(&e, b->pointer, b->message)) {
        fprintf(stderr, "case %d: %s\n  want %s: %s\n", _i, b->doc, b->pointer, b->message);
        dump_errors(&e);
    }
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    ck_assert_ptr_null(job);
    ck_assert(has_error(&e, b->pointer, b->message));
    ndem_job_errors_clear(&e);
    ck_assert_int_eq(e.count, 0);
}
END_TEST

START_TEST(all_errors_reported)
{
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(
        "{'name': 3, 'scene': {'materials': [{'name': 'a', 'densty': 1, 'poisson_ratio': 0.5}],"
        " 'geometry': [{'type': 'plane', 'point': [0, 0], 'normal': [0, 0, 1],"
        "   'material': 'steel'}],"
        " 'particles': [{'type': 'list', 'spheres': [[0, 0, 0, -1]]}]},"
        " 'solver': {'iterations': 2.5, 'method': 'dme'}, 'output': {'frame_interval': -1},"
        " 'extra': 1}",
        &job, &e);
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    const char *want[] = {"/name",
                          "/scene/materials/0/densty",
                          "/scene/materials/0/poisson_ratio",
                          "/scene/geometry/0/point",
                          "/scene/geometry/0/material",
                          "/scene/particles/0/spheres/0/3",
                          "/solver/iterations",
                          "/solver/method",
                          "/output/frame_interval",
                          "/extra"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!has_error(&e, want[i], "")) fprintf(stderr, "missing %s\n", want[i]);
        ck_assert(has_error(&e, want[i], ""));
    }
    ck_assert_int_eq(e.count, (int)(sizeof want / sizeof want[0]));
    ndem_job_errors_clear(&e);
}
END_TEST

/* Errors come in document order (docs/job.md "Errors"), not the parser's
 * reading order (materials first): members as the document orders them,
 * indices as numbers (2 before 10), absent members after present ones. */
START_TEST(errors_in_document_order)
{
    char spheres[1024] = "";
    for (int i = 0; i < 11; i++)
        snprintf(spheres + strlen(spheres), sizeof spheres - strlen(spheres), "%s[%d, 0, 0, %s]",
                 i ? ", " : "", i, i == 2 || i == 10 ? "-1" : "0.01");
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{'solver': {'time_step': -1, 'method': 'dme'}, 'name': 3,"
             " 'scene': {'particles': [{'type': 'list', 'material': 'ore', 'spheres': [%s]}],"
             "  'materials': [{'name': 'ore', 'densty': 1, 'density': -1}]},"
             " 'extra': 1}",
             spheres);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_sq(doc, &job, &e), NDEM_JOB_INVALID);
    const char *want[] = {"/solver/time_step",
                          "/solver/method",
                          "/name",
                          "/scene/particles/0/spheres/2/3",
                          "/scene/particles/0/spheres/10/3",
                          "/scene/materials/0/densty",
                          "/scene/materials/0/density",
                          "/extra"};
    int n = (int)(sizeof want / sizeof want[0]);
    if (e.count != n) dump_errors(&e);
    ck_assert_int_eq(e.count, n);
    for (int i = 0; i < n; i++) ck_assert_str_eq(e.items[i].pointer, want[i]);
    ndem_job_errors_clear(&e);

    /* Errors added after the parse (the daemon's limits), one of them at a
     * member the document lacks: present members first, in their order. */
    const char *text = "{\"solver\": {\"duration\": 9, \"time_step\": 1}, \"scene\": {}}";
    const char *added[] = {"/scene/particles", "/solver/time_step", "/solver/duration"};
    for (int i = 0; i < 3; i++) {
        e.items = realloc(e.items, (size_t)(i + 1) * sizeof *e.items);
        ck_assert_ptr_nonnull(e.items);
        e.items[i].pointer = strdup(added[i]);
        e.items[i].message = strdup("limit");
        e.count = e.capacity = i + 1;
    }
    ndem_job_errors_sort(&e, text, strlen(text));
    ck_assert_str_eq(e.items[0].pointer, "/solver/duration");
    ck_assert_str_eq(e.items[1].pointer, "/solver/time_step");
    ck_assert_str_eq(e.items[2].pointer, "/scene/particles");
    ndem_job_errors_clear(&e);
}
END_TEST

START_TEST(no_spurious_errors_without_materials)
{
    /* A broken material table is one error; references to it are not more. */
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st =
        parse_sq("{'scene': {'materials': [], 'geometry': [{'type': 'box', 'min': [0, 0, 0],"
                 " 'max': [1, 1, 1], 'material': 'steel'}],"
                 " 'contact_materials': [{'materials': ['a', 'b']}]}}",
                 &job, &e);
    ck_assert_int_eq(st, NDEM_JOB_INVALID);
    if (e.count != 1) dump_errors(&e);
    ck_assert_int_eq(e.count, 1);
    ck_assert_str_eq(e.items[0].pointer, "/scene/materials");
    ndem_job_errors_clear(&e);
}
END_TEST

START_TEST(error_count_is_bounded)
{
    /* 5000 bad entries: the list stops at 100 plus one closing remark. */
    size_t n = 5000, cap = n * 64 + 256;
    char *doc = malloc(cap);
    ck_assert_ptr_nonnull(doc);
    size_t len = (size_t)snprintf(doc, cap,
                                  "{\"scene\": {\"materials\": [{\"name\": \"a\"}], "
                                  "\"geometry\": [");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(doc + len, cap - len, "%s{\"type\": \"cone\"}", i ? ", " : "");
    len += (size_t)snprintf(doc + len, cap - len, "]}}");
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(doc, len, &job, &e), NDEM_JOB_INVALID);
    /* 5000 > NDEM_JOB_MAX_ENTRIES? no: 10000 allowed, so every entry errs */
    ck_assert_int_eq(e.count, 101);
    ck_assert_str_eq(e.items[100].pointer, "");
    ck_assert(strstr(e.items[100].message, "too many errors") != NULL);
    ndem_job_errors_clear(&e);
    free(doc);
}
END_TEST

/* ---- malformed and hostile input ---- */

static ndem_job_status parse_raw(const char *t, size_t len, ndem_job_errors *e)
{
    ndem_job *job = (ndem_job *)1;
    ndem_job_status st = ndem_job_parse(t, len, &job, e);
    if (st != NDEM_JOB_OK) ck_assert_ptr_null(job);
    ndem_job_destroy(job);
    return st;
}

START_TEST(malformed_documents)
{
    static const char *const docs[] = {
        "",          "   ",
        "{",         "{\"scene\": }",
        "nul",       "{'a': 1}",
        "[1,]",      "{} x",
        "{}{}",      "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}},",
        "\"abc",     "0x10",
        "{\"a\" 1}", "\xff\xfe{}"};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        ndem_job_errors e = {0};
        ndem_job_status st = parse_raw(docs[i], strlen(docs[i]), &e);
        if (st != NDEM_JOB_MALFORMED) fprintf(stderr, "not malformed: %s\n", docs[i]);
        ck_assert_int_eq(st, NDEM_JOB_MALFORMED);
        ck_assert_int_eq(e.count, 1);
        ck_assert_str_eq(e.items[0].pointer, "");
        ck_assert(strstr(e.items[0].message, "not valid JSON") != NULL);
        ndem_job_errors_clear(&e);
    }
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_raw("{\n  \"scene\": ]}", 15, &e), NDEM_JOB_MALFORMED);
    ck_assert(strstr(e.items[0].message, "line 2") != NULL);
    ndem_job_errors_clear(&e);
    ck_assert_int_eq(parse_raw(NULL, 0, &e), NDEM_JOB_MALFORMED);
    ck_assert(strstr(e.items[0].message, "empty") != NULL);
    ndem_job_errors_clear(&e);
    ck_assert_int_eq(parse_raw("{} x", 4, &e), NDEM_JOB_MALFORMED);
    ck_assert(strstr(e.items[0].message, "after the document at byte 3") != NULL);
    ndem_job_errors_clear(&e);
}
END_TEST

START_TEST(length_bounds_the_text)
{
    /* Not NUL-terminated: the bytes after len are never read. */
    const char doc[] = "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}} \n garbage";
    size_t len = strlen("{\"scene\": {\"materials\": [{\"name\": \"a\"}]}} \n");
    char *copy = malloc(len);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, doc, len);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(copy, len, &job, &e), NDEM_JOB_OK);
    ndem_job_destroy(job);
    ck_assert_int_eq(ndem_job_parse(doc, strlen(doc), &job, &e), NDEM_JOB_MALFORMED);
    ndem_job_errors_clear(&e);
    free(copy);
}
END_TEST

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

START_TEST(deep_nesting)
{
    size_t n = 1000000;
    char *doc = malloc(n + 32);
    ck_assert_ptr_nonnull(doc);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(doc, '[', n);
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_raw(doc, n, &e), NDEM_JOB_MALFORMED);
    ck_assert(strstr(e.items[0].message, "nested deeper than") != NULL);
    ndem_job_errors_clear(&e);
    /* the same below a valid prefix, with objects */
    size_t p = (size_t)sprintf(doc, "{\"scene\": ");
    for (size_t i = p; i < n; i += 5) memcpy(doc + i, "{\"a\":", 5);
    ck_assert_int_eq(parse_raw(doc, n, &e), NDEM_JOB_MALFORMED);
    ndem_job_errors_clear(&e);
    /* 900 levels parse, and are then an unknown field: no recursion on our side */
    memset(doc, 0, n);
    p = (size_t)sprintf(doc, "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}, \"x\": ");
    for (int i = 0; i < 900; i++) doc[p++] = '[';
    for (int i = 0; i < 900; i++) doc[p++] = ']';
    doc[p++] = '}';
    ck_assert_int_eq(parse_raw(doc, p, &e), NDEM_JOB_INVALID);
    ck_assert_str_eq(e.items[0].pointer, "/x");
    ndem_job_errors_clear(&e);
    ck_assert(seconds_since(&t0) < 5.0);
    free(doc);
}
END_TEST

START_TEST(huge_string)
{
    size_t n = 100u << 20;
    char *doc = malloc(n + 128);
    ck_assert_ptr_nonnull(doc);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t p =
        (size_t)sprintf(doc, "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}, \"name\": \"");
    memset(doc + p, 'x', n);
    p += n;
    p += (size_t)sprintf(doc + p, "\"}");
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_raw(doc, p, &e), NDEM_JOB_INVALID);
    ck_assert_int_eq(e.count, 1);
    ck_assert_str_eq(e.items[0].pointer, "/name");
    ndem_job_errors_clear(&e);
    /* unterminated: malformed */
    ck_assert_int_eq(parse_raw(doc, p - 2, &e), NDEM_JOB_MALFORMED);
    ndem_job_errors_clear(&e);
    ck_assert(seconds_since(&t0) < 10.0);
    free(doc);
}
END_TEST

START_TEST(odd_strings)
{
    /* invalid UTF-8 in a name, control characters and a long key in messages */
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    const char doc[] = "{\"scene\": {\"materials\": [{\"name\": \"\xc3\x28\"}]}, "
                       "\"k\\u0001\\\"\xff\": 1}";
    ck_assert_int_eq(ndem_job_parse(doc, strlen(doc), &job, &e), NDEM_JOB_INVALID);
    ck_assert(has_error(&e, "/scene/materials/0/name", "UTF-8"));
    char *j = ndem_job_errors_to_json(&e);
    ck_assert_ptr_nonnull(j);
    cJSON *arr = cJSON_Parse(j);
    ck_assert_ptr_nonnull(arr);
    ck_assert_int_eq(cJSON_GetArraySize(arr), e.count);
    cJSON_Delete(arr);
    free(j);
    ndem_job_errors_clear(&e);
    /* "\u0000" in a key cuts it short in cJSON: still a clean error */
    const char doc2[] = "{\"scene\": {\"materials\": [{\"name\": \"a\"}]}, \"x\\u0000y\": 1}";
    ck_assert_int_eq(ndem_job_parse(doc2, strlen(doc2), &job, &e), NDEM_JOB_INVALID);
    ndem_job_errors_clear(&e);
}
END_TEST

START_TEST(read_file_errors)
{
    size_t len = 7;
    errno = 0;
    ck_assert_ptr_null(ndem_read_file("/nonexistent/ndem/job.json", &len));
    ck_assert_int_eq(errno, ENOENT);
    char path[512];
    char *t = ndem_read_file(ndem_test_bench("drum.json", path, sizeof path), &len);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(strlen(t), len);
    free(t);
    ndem_job_destroy(NULL);
    ndem_job_errors e = {0};
    ndem_job_errors_clear(&e);
    ndem_job_errors_clear(NULL);
    ck_assert_ptr_null(ndem_job_to_json(NULL));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("parser");
    TCase *tc = tcase_create("errors");
    tcase_add_loop_test(tc, broken_document, 0, N_BROKEN);
    tcase_add_test(tc, all_errors_reported);
    tcase_add_test(tc, errors_in_document_order);
    tcase_add_test(tc, no_spurious_errors_without_materials);
    tcase_add_test(tc, error_count_is_bounded);
    suite_add_tcase(s, tc);

    tc = tcase_create("hostile");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, malformed_documents);
    tcase_add_test(tc, length_bounds_the_text);
    tcase_add_test(tc, deep_nesting);
    tcase_add_test(tc, huge_string);
    tcase_add_test(tc, odd_strings);
    tcase_add_test(tc, read_file_errors);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
