/* test_frames.c - what frames carry for shapes and moving box walls
 * (issues 18 and 13; docs/frames.md bits 7-9, "Versions"), without the
 * engine: NDF1 records built from frames made here, their byte lengths
 * against the documented layout, a record written in Python from the
 * documentation alone (tests/ndf/shapes_walls.ndf), a section of a later
 * version skipped by its length, the JSON/CSV/VTP exports, the job
 * document's shape templates (the job resource's `shapes`) and the
 * shaped particles' ParaView file, checked by tests/paraview_check.py. */
#include "frame_bin.h"
#include "frame_export.h"
#include "frame_json.h"
#include "job_shapes.h"
#include "paraview.h"
#include "scene.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* Two particles (a sphere, then one of template 0), two geometry (only
 * geometry 1 has walls): every field of this version. */
static double pos[6] = {0, 0, 0.5, 0.1, 0.2, 0.3}, rad[2] = {0.01, 0.02},
              vel[6] = {1, 0, 0, 0, 2, 0}, ang[6] = {0, 0, 1, 0, 0, 0},
              quat[8] = {1, 0, 0, 0, 0.5, 0.5, 0.5, 0.5},
              poses[14] = {0, 0, 0, 1, 0, 0, 0, 0.05, 0.05, 0.05, 1, 0, 0, 0};
static int mats[2] = {0, 1}, shapes[2] = {-1, 0};

static ndem_frame full_frame(double *ext)
{
    for (int k = 0; k < 6; k++) ext[k] = NAN; /* geometry 0: no walls */
    const double box[6] = {0.01, 0.02, 0.03, 0.09, 0.08, 0.07};
    memcpy(ext + 6, box, sizeof box);
    ndem_frame f = {.count = 2, .step = 100, .time = 0.25};
    f.positions = pos, f.radii = rad, f.velocities = vel, f.angular_velocities = ang;
    f.orientations = quat, f.materials = mats, f.shapes = shapes;
    f.geometry_count = 2, f.geometry_poses = poses, f.geometry_extents = ext;
    return f;
}

static unsigned char *encode(const ndem_frame *f, uint32_t fields, size_t *size)
{
    *size = ndem_frame_bin_size(f, fields);
    unsigned char *buf = malloc(*size);
    ck_assert_uint_eq(ndem_frame_bin_encode(f, 5, fields, buf), *size);
    return buf;
}

static uint32_t u32_at(const unsigned char *b, size_t at)
{
    uint32_t v;
    memcpy(&v, b + at, 4);
    return v;
}

/* Bits 7-9 after bit 6, in bit order, with the lengths docs/frames.md
 * gives; decoded back exactly (orientations are float32 of these values). */
START_TEST(bits_7_to_9_round_trip)
{
    double ext[12];
    ndem_frame f = full_frame(ext);
    size_t size;
    unsigned char *buf = encode(&f, NDEM_FRAME_ALL, &size);
    const size_t geo_at = 48 + 2 * 4 * 12, orient_at = geo_at + 8 + 2 * 64;
    ck_assert_uint_eq(size, orient_at + 2 * 4 * 5 + 8 + 56);
    ck_assert_uint_eq(u32_at(buf, 32), 1023);
    ck_assert_uint_eq(u32_at(buf, orient_at + 2 * 16 + 4), 0);       /* shapes[1] = 0 */
    ck_assert_uint_eq(u32_at(buf, orient_at + 2 * 16), 0xffffffffu); /* -1 */
    const size_t ext_at = orient_at + 2 * 20;
    ck_assert_uint_eq(u32_at(buf, ext_at), 1);      /* one box with walls */
    ck_assert_uint_eq(u32_at(buf, ext_at + 4), 56); /* its record size */
    ck_assert_uint_eq(u32_at(buf, ext_at + 8), 1);  /* geometry 1 */
    ndem_frame_bin_seal(buf, size);
    char why[160];
    ck_assert_int_eq(ndem_frame_bin_check(buf, size, why, sizeof why), 0);
    ndem_frame g;
    long index;
    ck_assert_int_eq(ndem_frame_bin_decode(buf, size, &g, &index), 0);
    ck_assert_mem_eq(g.orientations, quat, sizeof quat);
    ck_assert_int_eq(g.shapes[0], -1);
    ck_assert_int_eq(g.shapes[1], 0);
    ck_assert(isnan(g.geometry_extents[0]) && isnan(g.geometry_extents[5]));
    ck_assert_mem_eq(g.geometry_extents + 6, ext + 6, 6 * sizeof(double));
    ndem_frame_free(&g);
    /* cut inside the extents section */
    ck_assert_int_eq(ndem_frame_bin_check(buf, size - 8, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "truncated") != NULL, "%s", why);
    free(buf);
}
END_TEST

/* Spheres without walls write what earlier versions wrote, byte for byte:
 * orientations only beside shapes (a sphere's turn is invisible), no
 * extents without walls; so old readers keep reading sphere-only scenes. */
START_TEST(sphere_frames_are_unchanged)
{
    double ext[12];
    ndem_frame f = full_frame(ext);
    f.shapes = NULL, f.geometry_extents = NULL;
    size_t size, old_size;
    unsigned char *buf = encode(&f, NDEM_FRAME_ALL, &size);
    ck_assert_uint_eq(u32_at(buf, 32), 127);
    unsigned char *old = encode(&f, NDEM_FRAME_SPHERES, &old_size);
    ck_assert_uint_eq(size, old_size);
    ck_assert_mem_eq(buf, old, size);
    free(buf);
    free(old);
    /* the stream: the same rule */
    buf = encode(&f, NDEM_FRAME_STREAM, &size);
    ck_assert_uint_eq(u32_at(buf, 32), 1 | 2 | 4 | 32 | 64);
    free(buf);
}
END_TEST

/* tests/ndf/shapes_walls.ndf was written in Python from docs/frames.md's
 * tables alone: the decoder reads the documented layout. */
START_TEST(documented_layout_decodes)
{
    FILE *in = fopen("tests/ndf/shapes_walls.ndf", "rb");
    ck_assert_ptr_nonnull(in);
    unsigned char buf[512];
    size_t len = fread(buf, 1, sizeof buf, in);
    fclose(in);
    ck_assert_uint_eq(len, 384);
    ndem_frame g;
    long index;
    ck_assert_int_eq(ndem_frame_bin_decode(buf, len, &g, &index), 0);
    ck_assert_int_eq(index, 5);
    ck_assert_mem_eq(g.orientations, quat, sizeof quat);
    ck_assert_int_eq(g.shapes[0], -1);
    ck_assert_int_eq(g.shapes[1], 0);
    double ext[12];
    full_frame(ext);
    ck_assert_mem_eq(g.geometry_extents + 6, ext + 6, 6 * sizeof(double));
    ck_assert_mem_eq(g.geometry_poses, poses, sizeof poses);
    /* and the encoder writes those very bytes (the file is unsealed) */
    size_t size;
    unsigned char *again = encode(&g, NDEM_FRAME_ALL, &size);
    ck_assert_uint_eq(size, len);
    ck_assert_mem_eq(again, buf, len);
    free(again);
    ndem_frame_free(&g);
}
END_TEST

/* A record of a later version: bit 12 set and its section ("count, record
 * size, records") at the end. It is sound, decodes as without it, and the
 * CRC covers it; a record size that is not a multiple of 4, or more records
 * than bytes, is refused. */
START_TEST(later_sections_are_skipped_by_length)
{
    double ext[12];
    ndem_frame f = full_frame(ext);
    size_t size;
    unsigned char *buf = encode(&f, NDEM_FRAME_ALL, &size);
    unsigned char *later = calloc(1, size + 8 + 3 * 12);
    memcpy(later, buf, size);
    uint32_t fields = 1023u | (1u << 12), count = 3, record = 12;
    memcpy(later + 32, &fields, 4);
    memcpy(later + size, &count, 4);
    memcpy(later + size + 4, &record, 4);
    size_t len = size + 8 + 3 * 12;
    memset(later + size + 8, 0x5a, 3 * 12);
    ndem_frame_bin_seal(later, len);
    char why[160];
    ck_assert_int_eq(ndem_frame_bin_check(later, len, why, sizeof why), 0);
    ndem_frame g;
    long index;
    ck_assert_int_eq(ndem_frame_bin_decode(later, len, &g, &index), 0);
    ck_assert_int_eq(g.shapes[1], 0);
    ck_assert_mem_eq(g.geometry_extents + 6, ext + 6, 6 * sizeof(double));
    ndem_frame_free(&g);
    later[len - 1] ^= 1; /* the CRC covers the later section too */
    ck_assert_int_eq(ndem_frame_bin_check(later, len, why, sizeof why), -1);
    ck_assert_str_eq(why, "checksum mismatch");
    memset(later + 40, 0, 8);
    record = 10;
    memcpy(later + size + 4, &record, 4);
    ck_assert_int_eq(ndem_frame_bin_check(later, len, why, sizeof why), -1);
    ck_assert_str_eq(why, "field bit 12: record size 10");
    record = 12, count = 4;
    memcpy(later + size, &count, 4);
    memcpy(later + size + 4, &record, 4);
    ck_assert_int_eq(ndem_frame_bin_check(later, len, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "truncated") != NULL, "%s", why);
    free(later);
    free(buf);
}
END_TEST

/* Extent records as written: in increasing geometry index, naming a
 * geometry of the poses, finite. Anything else is another writer's. */
START_TEST(bad_extent_records_are_refused)
{
    double ext[12];
    ndem_frame f = full_frame(ext);
    size_t size;
    unsigned char *buf = encode(&f, NDEM_FRAME_ALL, &size);
    const size_t rec = size - 56;
    ndem_frame g;
    long index;
    uint32_t two = 2;
    memcpy(buf + rec, &two, 4); /* geometry 2 of 2 */
    ck_assert_int_eq(ndem_frame_bin_decode(buf, size, &g, &index), -1);
    uint32_t one = 1;
    memcpy(buf + rec, &one, 4);
    double inf = INFINITY;
    memcpy(buf + rec + 8 + 8 * 4, &inf, 8);
    ck_assert_int_eq(ndem_frame_bin_decode(buf, size, &g, &index), -1);
    memcpy(buf + rec + 8 + 8 * 4, &ext[6 + 4], 8);
    ck_assert_int_eq(ndem_frame_bin_decode(buf, size, &g, &index), 0);
    ndem_frame_free(&g);
    free(buf);
}
END_TEST

/* The exports name the new fields: JSON `orientations`, `shapes` and a
 * walls box's `min`/`max`; CSV columns qw..shape; VTP arrays orientation
 * (4 components) and shape. A sphere frame has none of them. */
START_TEST(exports_carry_orientations_shapes_and_extents)
{
    double ext[12];
    ndem_frame f = full_frame(ext);
    const char *names[] = {"floor", "cell"};
    char *json = ndem_frame_to_json(&f, 5, names);
    cJSON *doc = cJSON_Parse(json);
    ck_assert_ptr_nonnull(doc);
    cJSON *o = cJSON_GetObjectItem(doc, "orientations"), *s = cJSON_GetObjectItem(doc, "shapes");
    ck_assert_int_eq(cJSON_GetArraySize(o), 8);
    ck_assert_double_eq(cJSON_GetArrayItem(o, 5)->valuedouble, 0.5);
    ck_assert_int_eq(cJSON_GetArraySize(s), 2);
    ck_assert_int_eq(cJSON_GetArrayItem(s, 0)->valueint, -1);
    cJSON *geo = cJSON_GetObjectItem(doc, "geometry");
    ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetArrayItem(geo, 0), "min"));
    cJSON *cell = cJSON_GetArrayItem(geo, 1);
    ck_assert_double_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(cell, "min"), 2)->valuedouble, 0.03);
    ck_assert_double_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(cell, "max"), 0)->valuedouble, 0.09);
    cJSON_Delete(doc);
    free(json);
    size_t len;
    char *csv = ndem_frame_to_csv(&f, &len);
    ck_assert_msg(
        !strncmp(csv, "id,x,y,z,radius,vx,vy,vz,wx,wy,wz,material,qw,qx,qy,qz,shape\n", 61), "%s",
        csv);
    ck_assert_ptr_nonnull(strstr(csv, ",1,0.5,0.5,0.5,0.5,0\n"));
    ck_assert_ptr_nonnull(strstr(csv, ",0,1,0,0,0,-1\n"));
    free(csv);
    char *vtp = ndem_frame_to_vtp(&f, 5, &len);
    ck_assert_ptr_nonnull(strstr(vtp, "Name=\"orientation\" NumberOfComponents=\"4\""));
    ck_assert_ptr_nonnull(strstr(vtp, "Name=\"shape\" format=\"ascii\">\n          -1 0\n"));
    free(vtp);
    f.shapes = NULL, f.geometry_extents = NULL; /* spheres */
    json = ndem_frame_to_json(&f, 5, names);
    ck_assert_ptr_null(strstr(json, "orientations"));
    ck_assert_ptr_null(strstr(json, "\"min\""));
    free(json);
    csv = ndem_frame_to_csv(&f, &len);
    ck_assert_ptr_null(strstr(csv, "qw"));
    free(csv);
}
END_TEST

static const char shaped_doc[] =
    "{\"scene\": {\"particles\": [{\"type\": \"random\", \"radius\": 0.01},"
    " {\"type\": \"random\", \"shape\": {\"type\": \"polyhedron\", \"vertices\": [[-1, -1, -1],"
    " [1, -1, -1], [-1, 1, -1], [1, 1, -1], [-1, -1, 1], [1, -1, 1], [-1, 1, 1], [1, 1, 1],"
    " [0, 0, 0.5]]}}],"
    " \"emitters\": [{\"shape\": {\"type\": \"clump\", \"spheres\": [[0, 0, 0, 1], [1, 0, 0, "
    "1]]}}]}}";

/* The job resource's `shapes`: one template per `shape`, particles then
 * emitters, at bounding radius 1: the cube's corners at 1/sqrt(3), its
 * six faces of four corners (the inner point dropped), and the clump
 * scaled by 1 / max(|c| + r) = 1/2. */
START_TEST(shape_templates_are_listed)
{
    cJSON *doc = cJSON_Parse(shaped_doc);
    cJSON *list = ndem_job_shape_list(doc);
    ck_assert_int_eq(cJSON_GetArraySize(list), 2);
    cJSON *poly = cJSON_GetArrayItem(list, 0), *clump = cJSON_GetArrayItem(list, 1);
    ck_assert_int_eq(cJSON_GetObjectItem(poly, "index")->valueint, 0);
    ck_assert_str_eq(cJSON_GetObjectItem(poly, "type")->valuestring, "polyhedron");
    ck_assert_str_eq(cJSON_GetObjectItem(poly, "source")->valuestring, "/scene/particles/1/shape");
    ck_assert_double_eq(cJSON_GetObjectItem(poly, "radius")->valuedouble, 1.0);
    cJSON *verts = cJSON_GetObjectItem(poly, "vertices"),
          *faces = cJSON_GetObjectItem(poly, "faces");
    ck_assert_int_eq(cJSON_GetArraySize(verts), 8);
    ck_assert_int_eq(cJSON_GetArraySize(faces), 6);
    cJSON *v, *face;
    cJSON_ArrayForEach(v, verts) for (int k = 0; k < 3; k++)
        ck_assert_double_eq_tol(fabs(cJSON_GetArrayItem(v, k)->valuedouble), 1 / sqrt(3), 1e-15);
    cJSON_ArrayForEach(face, faces)
    {
        ck_assert_int_eq(cJSON_GetArraySize(face), 4);
        /* counter-clockwise seen from outside: (b - a) x (c - b) points away from the centre */
        double p[3][3];
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                p[c][k] = cJSON_GetArrayItem(
                              cJSON_GetArrayItem(verts, cJSON_GetArrayItem(face, c)->valueint), k)
                              ->valuedouble;
        double a[3], b[3], n[3];
        for (int k = 0; k < 3; k++) a[k] = p[1][k] - p[0][k], b[k] = p[2][k] - p[1][k];
        n[0] = a[1] * b[2] - a[2] * b[1], n[1] = a[2] * b[0] - a[0] * b[2];
        n[2] = a[0] * b[1] - a[1] * b[0];
        ck_assert_double_gt(n[0] * p[0][0] + n[1] * p[0][1] + n[2] * p[0][2], 0);
    }
    ck_assert_str_eq(cJSON_GetObjectItem(clump, "source")->valuestring, "/scene/emitters/0/shape");
    cJSON *sp = cJSON_GetObjectItem(clump, "spheres");
    /* listed about the centre of mass (the two equal members' midpoint), as
     * the engine places a shaped particle */
    const double want[2][4] = {{-0.25, 0, 0, 0.5}, {0.25, 0, 0, 0.5}};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 4; k++)
            ck_assert_double_eq_tol(cJSON_GetArrayItem(cJSON_GetArrayItem(sp, i), k)->valuedouble,
                                    want[i][k], 1e-15);
    /* the table behind ParaView's shapes file: the same templates, in order */
    ndem_shape_table *t = ndem_job_shape_table(doc);
    ck_assert_int_eq(t->count, 2);
    ck_assert_int_eq(ndem_shape_table_get(t, 0)->type, NDEM_SHAPE_POLYHEDRON);
    ck_assert_int_eq(ndem_shape_table_get(t, 1)->n_spheres, 2);
    ndem_shape_table_destroy(t);
    cJSON_Delete(list);
    /* a shape that does not build keeps its index and says why */
    cJSON *bad = cJSON_Parse("{\"scene\": {\"particles\": [{\"shape\": {\"type\": \"polyhedron\","
                             " \"vertices\": [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}}]}}");
    list = ndem_job_shape_list(bad);
    ck_assert_int_eq(cJSON_GetArraySize(list), 1);
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "error"));
    cJSON_Delete(list);
    cJSON_Delete(bad);
    /* no shapes: an empty list */
    list = ndem_job_shape_list(cJSON_GetObjectItem(doc, "scene"));
    ck_assert_int_eq(cJSON_GetArraySize(list), 0);
    cJSON_Delete(list);
    cJSON_Delete(doc);
}
END_TEST

static int write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int rc = fwrite(text, 1, len, f) == len ? 0 : -1;
    return fclose(f) ? -1 : rc;
}

/* Shaped particles for ParaView: a frame made here of a sphere, the cube
 * (template 0) and the clump (template 1), turned and scaled; the file
 * and the frame (as JSON, with the templates) go to
 * tests/paraview_check.py --shapes --vtk, which places every template's
 * points itself and finds them in the file, and has VTK's reader read it.
 * Counts here: the cube's 8 corners and 6 faces, each clump member 2 + 8 x
 * 3 points and 8 x 4 facets. */
START_TEST(shapes_for_paraview)
{
    cJSON *doc = cJSON_Parse(shaped_doc);
    ndem_shape_table *t = ndem_job_shape_table(doc);
    const double c = sqrt(0.5);
    double p[9] = {0, 0, 0, 1, 2, 3, -1, 0, 0.5}, r[3] = {0.1, 0.2, 0.3}, v[9] = {0},
           q[12] = {1, 0, 0, 0, c, 0, 0, c, c, c, 0, 0};
    int sh[3] = {-1, 0, 1};
    ndem_frame f = {.count = 3, .step = 4, .time = 0.125};
    f.positions = p, f.radii = r, f.velocities = v, f.angular_velocities = v;
    f.orientations = q, f.shapes = sh;
    size_t len;
    char *vtp = ndem_shapes_to_vtp(&f, t, 2, &len);
    ck_assert_ptr_nonnull(strstr(vtp, "NumberOfPoints=\"60\""));
    ck_assert_ptr_nonnull(strstr(vtp, "NumberOfPolys=\"70\""));
    char dir[] = "/tmp/ndem-frames-XXXXXX", path[64], spec[64], cmd[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/shapes.vtp", dir);
    snprintf(spec, sizeof spec, "%s/frame.json", dir);
    ck_assert_int_eq(write_text(path, vtp, len), 0);
    char *frame = ndem_frame_to_json(&f, 2, NULL);
    cJSON *fj = cJSON_Parse(frame);
    cJSON_AddItemToObject(fj, "templates", ndem_job_shape_list(doc));
    char *text = cJSON_PrintUnformatted(fj);
    ck_assert_int_eq(write_text(spec, text, strlen(text)), 0);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/paraview_check.py --shapes %s %s --vtk", path,
             spec);
    int rc = system(cmd);
    ck_assert_int_eq(rc, 0);
    /* no templates or no shapes: an empty file, still well formed */
    f.shapes = NULL;
    free(vtp);
    vtp = ndem_shapes_to_vtp(&f, t, 2, &len);
    ck_assert_ptr_nonnull(strstr(vtp, "NumberOfPoints=\"0\""));
    free(vtp);
    unlink(path);
    unlink(spec);
    rmdir(dir);
    free(text);
    free(frame);
    cJSON_Delete(fj);
    ndem_shape_table_destroy(t);
    cJSON_Delete(doc);
}
END_TEST

/* A frame of n particles whose every field differs per particle. */
static ndem_frame varied_frame(long n, double *ext)
{
    ndem_frame f = full_frame(ext);
    f.count = n;
    f.positions = malloc(3 * sizeof(double) * (size_t)n);
    f.radii = malloc(sizeof(double) * (size_t)n);
    f.velocities = malloc(3 * sizeof(double) * (size_t)n);
    f.angular_velocities = malloc(3 * sizeof(double) * (size_t)n);
    f.orientations = malloc(4 * sizeof(double) * (size_t)n);
    f.materials = malloc(sizeof(int) * (size_t)n);
    f.shapes = malloc(sizeof(int) * (size_t)n);
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            f.positions[3 * i + k] = 0.001 * (double)i + k;
            f.velocities[3 * i + k] = 0.5 - 1e-4 * (double)(i * (k + 1));
            f.angular_velocities[3 * i + k] = 3.0 * k - 1e-3 * (double)i;
        }
        for (int k = 0; k < 4; k++) f.orientations[4 * i + k] = 0.25 * k + 1e-5 * (double)i;
        f.radii[i] = 0.01 + 1e-6 * (double)i;
        f.materials[i] = (int)(i % 3);
        f.shapes[i] = (int)(i % 5) - 1;
    }
    return f;
}

static void varied_free(ndem_frame *f)
{
    free(f->positions), free(f->radii), free(f->velocities), free(f->angular_velocities);
    free(f->orientations), free(f->materials), free(f->shapes);
}

/* Hands out particles first .. first + count - 1 of the frame as a view. */
static int slice_of(void *arg, long first, long count, ndem_frame *chunk)
{
    const ndem_frame *f = arg;
    *chunk = *f;
    chunk->count = count;
    chunk->positions += 3 * first, chunk->radii += first, chunk->velocities += 3 * first;
    chunk->angular_velocities += 3 * first, chunk->orientations += 4 * first;
    chunk->materials += first, chunk->shapes += first;
    return 0;
}

/* ndem_frame_bin_write's record, read back from a temporary file. */
static unsigned char *written(const ndem_frame *f, long chunk, uint32_t fields, size_t *len)
{
    FILE *fp = tmpfile();
    ck_assert_ptr_nonnull(fp);
    long n = ndem_frame_bin_write(fp, 5, f->count, fields, chunk, slice_of, (void *)f);
    ck_assert_int_gt(n, 0);
    ck_assert_int_eq(ftell(fp), n);
    unsigned char *buf = malloc((size_t)n);
    rewind(fp);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

/* `ndem run` writes frame files in pieces (chunks of the engine's
 * particles, 4096 at a time per write): the bytes must be those of the
 * whole record encoded and sealed, for chunks that do and do not divide
 * the count or the writer's pieces, every field and the sphere fields. */
START_TEST(a_frame_written_in_pieces_is_the_sealed_record)
{
    double ext[12];
    ndem_frame f = varied_frame(9001, ext);
    const uint32_t sets[2] = {NDEM_FRAME_ALL, NDEM_FRAME_SPHERES};
    const long chunks[4] = {9001, 4096, 1000, 7};
    for (int s = 0; s < 2; s++) {
        size_t size;
        unsigned char *want = encode(&f, sets[s], &size);
        ndem_frame_bin_seal(want, size);
        for (int c = 0; c < 4; c++) {
            size_t len;
            unsigned char *got = written(&f, chunks[c], sets[s], &len);
            ck_assert_uint_eq(len, size);
            ck_assert_msg(memcmp(got, want, size) == 0, "fields %u, chunk %ld: bytes differ",
                          sets[s], chunks[c]);
            char why[128] = "";
            ck_assert_msg(ndem_frame_bin_check(got, len, why, sizeof why) == 0, "%s", why);
            free(got);
        }
        free(want);
    }
    varied_free(&f);
}
END_TEST

/* ndem_sim_copy_motion_part is the slice of ndem_sim_copy_motion in
 * creation order, also after NDEM's reorder (every 32 steps) has moved the
 * bodies inside the engine; a range past the end is refused; ndem_sim_finish
 * gives the whole motion (ASan: and frees everything). */
START_TEST(a_part_of_the_motion_is_its_slice_and_finish_the_whole)
{
    ndem_job *job =
        test_job("{\"scene\": {" TEST_MATERIALS ","
                 "\"geometry\": [{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.1, 0.1, 0.2], "
                 "\"inside\": true, \"material\": \"steel\"}],"
                 "\"particles\": [{\"type\": \"lattice\", \"min\": [0.01, 0.01, 0.01], \"max\": "
                 "[0.09, 0.09, 0.19], \"spacing\": 0.0085, \"count\": 300, \"radius\": 0.004, "
                 "\"material\": \"ore\"}]},"
                 "\"solver\": {\"time_step\": 0.001, \"duration\": 1.0}}");
    ndem_sim *sim = test_sim(job);
    for (int s = 0; s < 40; s++) test_step(sim);
    ndem_frame all, part;
    ck_assert_int_eq(ndem_sim_copy_motion(sim, &all), 0);
    const long first[3] = {0, 123, 299}, count[3] = {300, 100, 1};
    for (int t = 0; t < 3; t++) {
        long a = first[t], n = count[t];
        ck_assert_int_eq(ndem_sim_copy_motion_part(sim, a, n, &part), 0);
        ck_assert_int_eq(part.count, n);
        ck_assert_int_eq(part.step, all.step);
        ck_assert(memcmp(part.positions, &all.positions[3 * a], 3 * sizeof(double) * n) == 0);
        ck_assert(memcmp(part.velocities, &all.velocities[3 * a], 3 * sizeof(double) * n) == 0);
        ck_assert(memcmp(part.angular_velocities, &all.angular_velocities[3 * a],
                         3 * sizeof(double) * n) == 0);
        ck_assert(memcmp(part.radii, &all.radii[a], sizeof(double) * n) == 0);
        ck_assert(memcmp(part.materials, &all.materials[a], sizeof(int) * n) == 0);
        ck_assert(memcmp(part.geometry_poses, all.geometry_poses, 7 * sizeof(double)) == 0);
        ndem_frame_free(&part);
    }
    ck_assert_int_eq(ndem_sim_copy_motion_part(sim, 250, 51, &part), -1);
    ck_assert_int_eq(ndem_sim_copy_motion_part(sim, -1, 2, &part), -1);
    /* ndem_sim_finish: the same motion, copied after the work arrays went */
    ndem_frame fin;
    ck_assert_int_eq(ndem_sim_finish(sim, &fin), 0);
    ck_assert_int_eq(fin.count, all.count);
    ck_assert(memcmp(fin.positions, all.positions, 3 * sizeof(double) * 300) == 0);
    ck_assert(memcmp(fin.velocities, all.velocities, 3 * sizeof(double) * 300) == 0);
    ck_assert(memcmp(fin.angular_velocities, all.angular_velocities, 3 * sizeof(double) * 300) ==
              0);
    ck_assert(memcmp(fin.radii, all.radii, sizeof(double) * 300) == 0);
    ck_assert(memcmp(fin.geometry_poses, all.geometry_poses, 7 * sizeof(double)) == 0);
    ndem_frame_free(&fin);
    ndem_frame_free(&all);
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("frames");
    TCase *tc = tcase_create("frames");
    tcase_add_test(tc, bits_7_to_9_round_trip);
    tcase_add_test(tc, sphere_frames_are_unchanged);
    tcase_add_test(tc, documented_layout_decodes);
    tcase_add_test(tc, later_sections_are_skipped_by_length);
    tcase_add_test(tc, bad_extent_records_are_refused);
    tcase_add_test(tc, exports_carry_orientations_shapes_and_extents);
    tcase_add_test(tc, shape_templates_are_listed);
    tcase_add_test(tc, shapes_for_paraview);
    tcase_add_test(tc, a_frame_written_in_pieces_is_the_sealed_record);
    tcase_add_test(tc, a_part_of_the_motion_is_its_slice_and_finish_the_whole);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
