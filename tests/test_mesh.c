/* test_mesh.c - STL parsing, base64, welding, topology and mass properties
 * of core/mesh.c against shapes whose answers are known in closed form. */
#include "base64.h"
#include "mesh.h"
#include "stl.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- shapes ---- */

/* Corner i of the unit cube is (i & 1, i >> 1 & 1, i >> 2 & 1); each face a
 * quad walked counter-clockwise seen from outside, split along a diagonal. */
static const int cube_quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                     {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};

static void cube_soup(double s[108])
{
    for (int f = 0; f < 6; f++) {
        const int *q = cube_quads[f];
        int tri[2][3] = {{q[0], q[1], q[2]}, {q[0], q[2], q[3]}};
        for (int h = 0; h < 2; h++)
            for (int k = 0; k < 3; k++)
                for (int a = 0; a < 3; a++) s[(f * 2 + h) * 9 + 3 * k + a] = tri[h][k] >> a & 1;
    }
}

/* Every triangle of soup split in 4 at its edge midpoints (same orientation). */
static double *split4(const double *s, long n)
{
    double *o = malloc((size_t)n * 36 * sizeof *o);
    for (long t = 0; t < n; t++) {
        double p[6][3]; /* a, b, c, ab, bc, ca */
        for (int a = 0; a < 3; a++) {
            for (int k = 0; k < 3; k++) p[k][a] = s[9 * t + 3 * k + a];
            for (int k = 0; k < 3; k++) p[3 + k][a] = 0.5 * (p[k][a] + p[(k + 1) % 3][a]);
        }
        static const int sub[4][3] = {{0, 3, 5}, {3, 1, 4}, {5, 4, 2}, {3, 4, 5}};
        for (int q = 0; q < 4; q++)
            for (int k = 0; k < 3; k++)
                memcpy(o + 36 * t + 9 * q + 3 * k, p[sub[q][k]], sizeof p[0]);
    }
    return o;
}

/* An n x n square of side 1 at z = 0, two triangles per cell, as a soup. */
static double *floor_soup(int n)
{
    double *s = malloc((size_t)n * n * 18 * sizeof *s), *w = s;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double x0 = (double)i / n, x1 = (double)(i + 1) / n;
            double y0 = (double)j / n, y1 = (double)(j + 1) / n;
            double t[18] = {x0, y0, 0, x1, y0, 0, x1, y1, 0, x0, y0, 0, x1, y1, 0, x0, y1, 0};
            memcpy(w, t, sizeof t);
            w += 18;
        }
    return s;
}

/* ---- STL writers ---- */

static char *ascii_stl(const double *s, long n)
{
    size_t cap = 64 + (size_t)n * 300, len = 0;
    char *b = malloc(cap);
    len += (size_t)snprintf(b + len, cap - len, "solid cube\n");
    for (long t = 0; t < n; t++) {
        len += (size_t)snprintf(b + len, cap - len, "  facet normal 0 0 0\n    outer loop\n");
        for (int k = 0; k < 3; k++)
            len += (size_t)snprintf(b + len, cap - len, "      vertex %.9g %.9g %.9g\n",
                                    s[9 * t + 3 * k], s[9 * t + 3 * k + 1], s[9 * t + 3 * k + 2]);
        len += (size_t)snprintf(b + len, cap - len, "    endloop\n  endfacet\n");
    }
    snprintf(b + len, cap - len, "endsolid cube\n");
    return b;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Binary STL; the header starts with "solid" on purpose (exporters do). */
static unsigned char *binary_stl(const double *s, long n, size_t *len)
{
    *len = 84 + 50 * (size_t)n;
    unsigned char *b = calloc(1, *len);
    memcpy(b, "solid binary header", 19);
    put32(b + 80, (uint32_t)n);
    for (long t = 0; t < n; t++)
        for (int i = 0; i < 9; i++) {
            float f = (float)s[9 * t + i];
            uint32_t u;
            memcpy(&u, &f, 4);
            put32(b + 84 + 50 * t + 12 + 4 * i, u);
        }
    return b;
}

/* ---- checks ---- */

static ndem_mesh *build(const double *s, long n, double tol, ndem_mesh_report *r)
{
    ndem_mesh *m = NULL;
    char err[256] = "";
    int rc = ndem_mesh_build(s, n, tol, &m, r, err, sizeof err);
    ck_assert_msg(rc == 0, "build failed: %s", err);
    return m;
}

static void assert_unit_cube(const ndem_mesh *m)
{
    ck_assert_int_eq(m->n_vertices, 8);
    ck_assert_int_eq(m->n_triangles, 12);
    ck_assert(m->closed && m->oriented);
    ck_assert_double_eq_tol(m->volume, 1.0, 1e-12);
    ck_assert_double_eq_tol(m->area, 6.0, 1e-12);
    for (int a = 0; a < 3; a++) {
        ck_assert_double_eq_tol(m->centroid[a], 0.5, 1e-12);
        ck_assert_double_eq(m->bounds_min[a], 0.0);
        ck_assert_double_eq(m->bounds_max[a], 1.0);
    }
    /* solid cube of side 1, density 1: m (1 + 1) / 12 = 1/6, no products */
    double mass, I[9];
    ck_assert_int_eq(ndem_mesh_mass_properties(m, 1.0, &mass, I), 0);
    ck_assert_double_eq_tol(mass, 1.0, 1e-12);
    for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(I[i], i % 4 == 0 ? 1.0 / 6 : 0.0, 1e-12);
}

/* Every distinct edge has exactly one owner, the same seen from each of its
 * triangles, and that owner holds the edge; likewise every vertex. Neighbours
 * across an edge hold the same two nodes. */
static void assert_owners(const ndem_mesh *m)
{
    int nt = m->n_triangles;
    for (int t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) {
            int a = m->triangles[3 * t + k], b = m->triangles[3 * t + (k + 1) % 3];
            int owner = m->edge_owner[3 * t + k], holders = 0, owner_holds = 0, lowest = nt;
            int other = -1;
            for (int u = 0; u < nt; u++)
                for (int j = 0; j < 3; j++) {
                    int c = m->triangles[3 * u + j], d = m->triangles[3 * u + (j + 1) % 3];
                    if (!((c == a && d == b) || (c == b && d == a))) continue;
                    holders++;
                    if (u < lowest) lowest = u;
                    if (u == owner) owner_holds = 1;
                    if (u != t) other = u;
                    ck_assert_int_eq(m->edge_owner[3 * u + j], owner); /* one owner */
                }
            ck_assert(owner_holds);
            ck_assert_int_eq(owner, lowest);
            int want = holders == 1 ? -1 : holders == 2 ? other : NDEM_MESH_NON_MANIFOLD;
            ck_assert_int_eq(m->neighbours[3 * t + k], want);
        }
    for (int v = 0; v < m->n_vertices; v++) {
        int o = m->vertex_owner[v], first = -1;
        for (int i = 0; i < 3 * nt && first < 0; i++)
            if (m->triangles[i] == v) first = i / 3;
        ck_assert_int_ge(first, 0); /* no unused vertex is kept */
        ck_assert_int_eq(o, first);
    }
}

static void assert_error(int rc, const char *err, const char *want)
{
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, want) != NULL, "error '%s' lacks '%s'", err, want);
}

/* ---- mesh ---- */

START_TEST(cube_from_ascii_and_binary_stl)
{
    double s[108];
    cube_soup(s);
    char *text = ascii_stl(s, 12);
    size_t blen;
    unsigned char *bin = binary_stl(s, 12, &blen);
    const unsigned char *in[2] = {(const unsigned char *)text, bin};
    size_t len[2] = {strlen(text), blen};
    for (int f = 0; f < 2; f++) {
        double *soup;
        long n;
        char err[256] = "";
        ck_assert_msg(ndem_stl_parse(in[f], len[f], &soup, &n, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(n, 12);
        ndem_mesh_report r;
        ndem_mesh *m = build(soup, n, 1e-7, &r);
        assert_unit_cube(m);
        assert_owners(m);
        ck_assert_int_eq(m->n_groups, 6);
        ck_assert_int_eq(r.merged_nodes, 36 - 8);
        ck_assert_int_eq(r.degenerate + r.duplicate + r.flipped, 0);
        ndem_mesh_destroy(m);
        free(soup);
    }
    free(text);
    free(bin);
}
END_TEST

/* The committed fuzz seeds (tests/stl/) are the same unit cube; the third is
 * written inside out and comes back reversed. */
START_TEST(committed_seeds_are_the_cube)
{
    const char *files[] = {"tests/stl/cube_ascii.stl", "tests/stl/cube_binary.stl",
                           "tests/stl/cube_inside_out.stl"};
    for (int f = 0; f < 3; f++) {
        FILE *fp = fopen(files[f], "rb");
        ck_assert_msg(fp != NULL, "%s", files[f]);
        unsigned char buf[4096];
        size_t len = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        double *soup;
        long n;
        char err[256] = "";
        ck_assert_msg(ndem_stl_parse(buf, len, &soup, &n, err, sizeof err) == 0, "%s", err);
        ndem_mesh_report r;
        ndem_mesh *m = build(soup, n, 0.0, &r);
        assert_unit_cube(m);
        ck_assert_int_eq(r.flipped, f == 2);
        ndem_mesh_destroy(m);
        free(soup);
    }
}
END_TEST

/* The seed of fuzz_stl's soup-of-doubles path: 108 little-endian doubles,
 * the same unit cube (the engine targets x86-64 only). */
START_TEST(committed_double_seed_is_the_cube)
{
    FILE *fp = fopen("tests/stl/cube_f64.bin", "rb");
    ck_assert(fp != NULL);
    double s[108], want[108];
    ck_assert_uint_eq(fread(s, sizeof s[0], 108, fp), 108);
    ck_assert_int_eq(fgetc(fp), EOF);
    fclose(fp);
    cube_soup(want);
    ck_assert_mem_eq(s, want, sizeof s);
}
END_TEST

START_TEST(inside_out_cube_is_reversed)
{
    double s[108];
    cube_soup(s);
    for (int t = 0; t < 12; t++)
        for (int a = 0; a < 3; a++) {
            double x = s[9 * t + 3 + a];
            s[9 * t + 3 + a] = s[9 * t + 6 + a];
            s[9 * t + 6 + a] = x;
        }
    ndem_mesh_report r;
    ndem_mesh *m = build(s, 12, 0.0, &r);
    ck_assert_int_eq(r.flipped, 1);
    assert_unit_cube(m);
    assert_owners(m);
    ndem_mesh_destroy(m);
}
END_TEST

START_TEST(split_cube_keeps_volume_and_six_planes)
{
    double s[108];
    cube_soup(s);
    double *q = split4(s, 12);
    ndem_mesh *m = build(q, 48, 1e-9, NULL);
    ck_assert_int_eq(m->n_triangles, 48);
    ck_assert_int_eq(m->n_vertices, 8 + 12 + 6); /* corners, edge and diagonal midpoints */
    ck_assert(m->closed && m->oriented);
    ck_assert_double_eq_tol(m->volume, 1.0, 1e-12);
    ck_assert_int_eq(m->n_groups, 6);
    /* each face's 8 triangles share one group id, distinct per face */
    for (int t = 0; t < 48; t++) ck_assert_int_eq(m->group[t], m->group[t / 8 * 8]);
    for (int f = 1; f < 6; f++) ck_assert_int_ne(m->group[8 * f], m->group[8 * (f - 1)]);
    assert_owners(m);
    ndem_mesh_destroy(m);
    free(q);
}
END_TEST

/* Unit right tetrahedron: V = 1/6, centroid 1/4, and about the centroid
 * I_xx = 2/60 - V (2/16) = 1/80, I_xy = -(1/120 - V/16) = 1/480; far from the
 * origin the same (the box centre is the integration origin). */
START_TEST(tetrahedron_inertia_off_diagonal)
{
    static const double p[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    static const int f[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    for (int shifted = 0; shifted < 2; shifted++) {
        double s[36];
        for (int t = 0; t < 4; t++)
            for (int k = 0; k < 3; k++)
                for (int a = 0; a < 3; a++) s[9 * t + 3 * k + a] = p[f[t][k]][a] + 1e4 * shifted;
        ndem_mesh *m = build(s, 4, 0.0, NULL);
        ck_assert(m->closed && m->oriented);
        ck_assert_double_eq_tol(m->volume, 1.0 / 6, 1e-10);
        for (int a = 0; a < 3; a++)
            ck_assert_double_eq_tol(m->centroid[a], 0.25 + 1e4 * shifted, 1e-9);
        double mass, I[9];
        ck_assert_int_eq(ndem_mesh_mass_properties(m, 2.0, &mass, I), 0);
        ck_assert_double_eq_tol(mass, 2.0 / 6, 1e-10);
        for (int i = 0; i < 9; i++)
            ck_assert_double_eq_tol(I[i], 2.0 * (i % 4 == 0 ? 1.0 / 80 : 1.0 / 480), 1e-10);
        ck_assert_int_eq(m->n_groups, 4);
        ndem_mesh_destroy(m);
    }
}
END_TEST

/* A tetrahedron whose fourth corner is 1e-14 above the other three's plane:
 * closed and oriented, but flat (its face sums cancel to noise): no inside. */
START_TEST(flat_closed_mesh_has_no_inside)
{
    static const double p[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 1e-14}};
    static const int f[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    double s[36];
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 3; k++) memcpy(s + 9 * t + 3 * k, p[f[t][k]], sizeof p[0]);
    ndem_mesh *m = build(s, 4, 0.0, NULL);
    ck_assert(m->closed && m->oriented);
    ck_assert_double_eq(m->volume, 0.0);
    double mass, I[9];
    ck_assert_int_eq(ndem_mesh_mass_properties(m, 1.0, &mass, I), -1);
    ndem_mesh_destroy(m);
}
END_TEST

START_TEST(floor_is_one_group_and_open)
{
    double *s = floor_soup(20);
    ndem_mesh *m = build(s, 800, 1e-9, NULL);
    ck_assert_int_eq(m->n_vertices, 21 * 21);
    ck_assert_int_eq(m->n_triangles, 800);
    ck_assert_int_eq(m->n_groups, 1);
    ck_assert_int_eq(m->boundary_edges, 80);
    ck_assert(!m->closed && m->oriented);
    ck_assert_double_eq_tol(m->area, 1.0, 1e-12);
    double mass, I[9];
    ck_assert_int_eq(ndem_mesh_mass_properties(m, 1.0, &mass, I), -1); /* no inside */
    assert_owners(m);
    ndem_mesh_destroy(m);
    free(s);
}
END_TEST

/* A floor bent by 0.01 rad along x = 0.5: two groups, not one. */
START_TEST(bent_floor_is_two_groups)
{
    double *s = floor_soup(10);
    for (int i = 0; i < 1800; i += 3)
        if (s[i] > 0.5) s[i + 2] = (s[i] - 0.5) * 0.01;
    ndem_mesh *m = build(s, 200, 1e-9, NULL);
    ck_assert_int_eq(m->n_groups, 2);
    ndem_mesh_destroy(m);
    free(s);
}
END_TEST

/* 200 strips around a cylinder of radius 1, each turned 1e-4 rad from the
 * last (1 - cos = 5e-9, within the 1e-8 bound): neighbour by neighbour the
 * whole 0.02 rad would drift into one group; against each group's first
 * triangle only the next strip joins (2e-4 rad is past it): 100 groups. */
START_TEST(curved_surface_does_not_drift_into_one_group)
{
    double *s = malloc(400 * 9 * sizeof *s), *w = s;
    for (int k = 0; k < 200; k++) {
        double a0 = 1e-4 * k, a1 = 1e-4 * (k + 1);
        double p[4][3] = {{cos(a0), sin(a0), 0},
                          {cos(a1), sin(a1), 0},
                          {cos(a1), sin(a1), 0.01},
                          {cos(a0), sin(a0), 0.01}};
        int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
        for (int h = 0; h < 2; h++)
            for (int c = 0; c < 3; c++, w += 3) memcpy(w, p[tri[h][c]], sizeof p[0]);
    }
    ndem_mesh *m = build(s, 400, 0.0, NULL);
    ck_assert_int_eq(m->n_groups, 100);
    for (int t = 0; t < 400; t++) ck_assert_int_eq(m->group[t], t / 4);
    ndem_mesh_destroy(m);
    free(s);
}
END_TEST

START_TEST(duplicates_and_degenerates_are_counted)
{
    double s[108 + 6 * 9];
    cube_soup(s);
    double *x = s + 108;
    /* triangle 0 again, rotated and reversed: a duplicate */
    double d[9] = {s[6], s[7], s[8], s[3], s[4], s[5], s[0], s[1], s[2]};
    memcpy(x, d, sizeof d);
    /* triangle 5 again as it is: a duplicate */
    memcpy(x + 9, s + 45, 9 * sizeof *s);
    /* a repeated node after welding (1e-10 apart) */
    double r[9] = {0, 0, 0, 1e-10, 0, 0, 1, 1, 1};
    memcpy(x + 18, r, sizeof r);
    /* collinear: zero area */
    double c[9] = {0, 0, 0, 0.5, 0.5, 0.5, 1, 1, 1};
    memcpy(x + 27, c, sizeof c);
    /* a sliver: area 1e-12 of edges ~1 */
    double v[9] = {0, 0, 0, 1, 0, 0, 0.5, 1e-12, 0};
    memcpy(x + 36, v, sizeof v);
    /* collinear and tiny: 1e-10 times its squared edges (~1e-320) underflows to 0 */
    double u[9] = {0, 0, 0, 1e-160, 0, 0, 2e-160, 0, 0};
    memcpy(x + 45, u, sizeof u);
    ndem_mesh_report r0;
    ndem_mesh *m = build(s, 18, 0.0, &r0);
    ck_assert_int_eq(r0.input_triangles, 18);
    ck_assert_int_eq(r0.duplicate, 2);
    ck_assert_int_eq(r0.degenerate, 4);
    ndem_mesh_destroy(m);
    m = build(s, 17, 1e-9, &r0);
    ck_assert_int_eq(r0.duplicate, 2);
    ck_assert_int_eq(r0.degenerate, 3);
    assert_unit_cube(m);
    ndem_mesh_destroy(m);
    /* only bad triangles: a clear error with the counts */
    char err[256] = "";
    assert_error(ndem_mesh_build(x + 18, 3, 1e-9, &m, &r0, err, sizeof err), err,
                 "no triangle left: 3 degenerate and 0 duplicate");
    ck_assert_ptr_null(m);
}
END_TEST

START_TEST(near_nodes_merge_within_tolerance_only)
{
    /* two triangles sharing an edge whose copies are 1e-9 apart */
    double s[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1 + 1e-9, 0, 0, 1, 1, 0, 0, 1 - 1e-9, 1e-9};
    ndem_mesh_report r;
    ndem_mesh *m = build(s, 2, 1e-7, &r);
    ck_assert_int_eq(m->n_vertices, 4);
    ck_assert_int_eq(r.merged_nodes, 2);
    ck_assert_int_eq(m->neighbours[1], 1); /* edge 1 -> 2 of triangle 0 */
    ndem_mesh_destroy(m);
    m = build(s, 2, 1e-12, &r);
    ck_assert_int_eq(m->n_vertices, 6);
    ck_assert_int_eq(r.merged_nodes, 0);
    ck_assert_int_eq(m->boundary_edges, 6);
    ndem_mesh_destroy(m);
}
END_TEST

/* Every corner of a 10 x 10 floor moved by up to 0.28 tol per axis (so two
 * copies of a node are within 0.97 tol): each node welds back into one,
 * whichever side of a hash cell's face its copies fell. */
START_TEST(welding_across_cell_faces)
{
    double *s = floor_soup(10);
    const double tol = 1e-7;
    uint32_t x = 12345;
    for (int i = 0; i < 1800; i++) {
        x = x * 1664525u + 1013904223u; /* LCG: the same offsets on every run */
        s[i] += 0.28 * tol * ((double)(x >> 8) / (1 << 24) * 2.0 - 1.0);
    }
    ndem_mesh_report r;
    ndem_mesh *m = build(s, 200, tol, &r);
    ck_assert_int_eq(m->n_vertices, 121);
    ck_assert_int_eq(r.merged_nodes, 600 - 121);
    ck_assert_int_eq(m->boundary_edges, 40);
    ndem_mesh_destroy(m);
    m = build(s, 200, 1e-10, &r); /* far below the offsets: nothing merges */
    ck_assert_int_eq(m->n_vertices, 600);
    ndem_mesh_destroy(m);
    free(s);
}
END_TEST

START_TEST(non_manifold_edge_is_marked)
{
    /* three triangles on the edge (0,0,0)-(1,0,0) */
    double s[27] = {0, 0, 0,  1,   0, 0, 0, 1, 0, 1, 0, 0, 0, 0,
                    0, 0, -1, 0.5, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    ndem_mesh *m = build(s, 3, 0.0, NULL);
    ck_assert_int_eq(m->non_manifold_edges, 1);
    ck_assert_int_eq(m->neighbours[0], NDEM_MESH_NON_MANIFOLD);
    ck_assert(!m->closed);
    assert_owners(m);
    ndem_mesh_destroy(m);
}
END_TEST

START_TEST(build_errors_name_the_triangle)
{
    double s[108];
    cube_soup(s);
    ndem_mesh *m = NULL;
    char err[256];
    s[9 * 7 + 4] = NAN;
    assert_error(ndem_mesh_build(s, 12, 0.0, &m, NULL, err, sizeof err), err,
                 "triangle 7, vertex 1: coordinate is not finite");
    s[9 * 7 + 4] = -INFINITY;
    assert_error(ndem_mesh_build(s, 12, 0.0, &m, NULL, err, sizeof err), err,
                 "triangle 7, vertex 1");
    s[9 * 7 + 4] = 2e9;
    assert_error(ndem_mesh_build(s, 12, 0.0, &m, NULL, err, sizeof err), err,
                 "triangle 7, vertex 1: coordinate 2e+09 is beyond");
    s[9 * 7 + 4] = 0;
    /* the count is checked before the soup is read */
    assert_error(ndem_mesh_build(s, 10000000L, 0.0, &m, NULL, err, sizeof err), err,
                 "10000000 triangles: more than the limit of 5000000");
    assert_error(ndem_mesh_build(s, 0, 0.0, &m, NULL, err, sizeof err), err, "no triangles");
    assert_error(ndem_mesh_build(s, 12, -1.0, &m, NULL, err, sizeof err), err, "weld tolerance");
    assert_error(ndem_mesh_build(s, 12, NAN, &m, NULL, err, sizeof err), err, "weld tolerance");
    ck_assert_ptr_null(m);
}
END_TEST

/* ---- STL errors ---- */

static void stl_error(const void *bytes, size_t len, const char *want)
{
    double *soup = (double *)1;
    long n = -1;
    char err[256] = "";
    assert_error(ndem_stl_parse(bytes, len, &soup, &n, err, sizeof err), err, want);
    ck_assert_ptr_null(soup);
    ck_assert_int_eq(n, 0);
}

#define TXT(s) s, strlen(s)

START_TEST(ascii_errors_name_the_line)
{
    const char *f = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n";
    stl_error(TXT(f), "line 6: unexpected end of file, expected 'vertex'");
    stl_error(TXT("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                  "vertex 0 1 nan\nendloop\nendfacet\nendsolid t\n"),
              "line 6: coordinate 'nan' is not finite");
    stl_error(TXT("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                  "vertex 0 1 1e999\nendloop\nendfacet\nendsolid t\n"),
              "line 6: coordinate '1e999' is not finite");
    stl_error(TXT("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0x 0\n"),
              "line 5: '0x' is not a number");
    stl_error(TXT("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvortex 1 0 0\n"),
              "line 5: expected 'vertex', found 'vortex'");
    stl_error(TXT("solid t\r\n\r\nbanana\r\n"),
              "line 3: expected 'facet' or 'endsolid', found 'banana'");
    stl_error(TXT("solid t\nendsolid t\n"), "ASCII STL: 0 triangles");
    stl_error(TXT("solid t\nendsolid t\nxyz\n"), "line 3: expected 'solid', found 'xyz'");
    stl_error(TXT("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                  "vertex 0 1 0\nendloop\nendfacet\n"),
              "line 9: unexpected end of file, expected 'endsolid'");
    stl_error(TXT(""), "empty file");
    stl_error(TXT("hello"), "5 bytes: too short for binary STL");
}
END_TEST

START_TEST(ascii_accepts_crlf_capitals_and_two_solids)
{
    const char *f = "solid a\r\n facet normal 0 0 1\r\n  outer loop\r\n vertex 0 0 0\r\n"
                    "vertex 1 0 0\r\nvertex 0 1 0\r\nendloop\r\nendfacet\r\nendsolid a\r\n"
                    "SOLID\nFACET NORMAL 0 0 0 OUTER LOOP VERTEX 0 0 1 VERTEX 1 0 1 Vertex 0 1 1"
                    " ENDLOOP ENDFACET ENDSOLID";
    double *soup;
    long n;
    char err[256] = "";
    ck_assert_msg(ndem_stl_parse((const unsigned char *)f, strlen(f), &soup, &n, err, sizeof err) ==
                      0,
                  "%s", err);
    ck_assert_int_eq(n, 2);
    ck_assert_double_eq(soup[9 + 8], 1.0);
    free(soup);
}
END_TEST

START_TEST(binary_errors_name_the_triangle)
{
    double s[108];
    cube_soup(s);
    size_t len;
    unsigned char *b = binary_stl(s, 12, &len);
    /* truncated in triangle 11 (of 0..11) */
    stl_error(b, len - 7,
              "truncated: the header says 12 triangles (684 bytes) but the file has "
              "677 bytes (triangle 11 is incomplete)");
    /* header count not matching the size (no "solid": the size decides) */
    unsigned char *c = malloc(len + 10);
    memcpy(c, b, len);
    memset(c + len, 0, 10);
    memcpy(c, "binary", 6);
    stl_error(c, len + 10, "the header says 12 triangles (684 bytes) but the file has 694 bytes");
    /* a NaN in triangle 3, vertex 2, y: byte 84 + 150 + 12 + 28 */
    float nan = NAN;
    uint32_t u;
    memcpy(&u, &nan, 4);
    put32(b + 84 + 3 * 50 + 12 + 28, u);
    stl_error(b, len, "triangle 3 (byte offset 274): vertex 2 coordinate is not finite");
    /* 0 triangles; over the limit */
    put32(c + 80, 0);
    stl_error(c, 84, "binary STL: 0 triangles");
    put32(c + 80, 10000000u);
    stl_error(c, 84 + 50, "the header says 10000000 triangles, more than the limit of 5000000");
    free(b);
    free(c);
}
END_TEST

/* ---- base64 ---- */

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const unsigned char *in, size_t n)
{
    char *o = malloc((n + 2) / 3 * 4 + 1), *w = o;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        for (int k = 0; k < 4; k++)
            *w++ = (size_t)k <= n - i ? b64_chars[v >> (18 - 6 * k) & 63] : '=';
    }
    *w = 0;
    return o;
}

START_TEST(base64_rfc4648_vectors)
{
    /* RFC 4648 section 10 */
    static const char *enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    static const char *dec[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    for (int i = 0; i < 7; i++) {
        unsigned char *o;
        size_t n;
        char err[128] = "";
        ck_assert_msg(ndem_base64_decode(enc[i], strlen(enc[i]), &o, &n, err, sizeof err) == 0,
                      "%s: %s", enc[i], err);
        ck_assert_uint_eq(n, strlen(dec[i]));
        ck_assert_mem_eq(o, dec[i], n);
        free(o);
    }
}
END_TEST

START_TEST(base64_bad_input_names_the_offset)
{
    static const struct {
        const char *in, *want;
    } bad[] = {
        {"Zm9", "length 3 is not a multiple of 4"},
        {"Zm9\nYmFy", "offset 3: whitespace (0x0a)"},
        {"Zm9vY*Fy", "offset 5: byte 0x2a is not base64"},
        {"Zg=A", "offset 2: '=' padding before the end"},
        {"Z===", "offset 1: '=' padding before the end"},
        {"Zg==Zg==", "offset 2: '=' padding before the end"},
        {"Zh==", "offset 1: unused bits of the last group are not zero"},
        {"Zm9=", "offset 2: unused bits"},
        {"Zm9v-_==", "offset 4: byte 0x2d"}, /* base64url is not accepted */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned char *o = (unsigned char *)1;
        size_t n = 7;
        char err[128] = "";
        assert_error(ndem_base64_decode(bad[i].in, strlen(bad[i].in), &o, &n, err, sizeof err), err,
                     bad[i].want);
        ck_assert_ptr_null(o);
        ck_assert_uint_eq(n, 0);
    }
}
END_TEST

START_TEST(base64_binary_stl_round_trip)
{
    double s[108];
    cube_soup(s);
    size_t len, n;
    unsigned char *b = binary_stl(s, 12, &len), *o;
    char *text = b64_encode(b, len), err[128] = "";
    ck_assert_int_eq(ndem_base64_decode(text, strlen(text), &o, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, len);
    ck_assert_mem_eq(o, b, len);
    double *soup;
    long nt;
    ck_assert_int_eq(ndem_stl_parse(o, n, &soup, &nt, err, sizeof err), 0);
    ndem_mesh *m = build(soup, nt, 0.0, NULL);
    assert_unit_cube(m);
    ndem_mesh_destroy(m);
    free(soup);
    free(o);
    free(text);
    free(b);
}
END_TEST

/* Welding is a hash, not a pairwise search: a 200 x 200 floor (80,000
 * triangles, 240,000 corners) builds, with its counts exact. */
START_TEST(large_floor_welds)
{
    double *s = floor_soup(200);
    ndem_mesh_report r;
    ndem_mesh *m = build(s, 80000, 1e-9, &r);
    ck_assert_int_eq(m->n_vertices, 201 * 201);
    ck_assert_int_eq(r.merged_nodes, 240000 - 201 * 201);
    ck_assert_int_eq(m->n_groups, 1);
    ck_assert_int_eq(m->boundary_edges, 800);
    ndem_mesh_destroy(m);
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mesh");
    TCase *tm = tcase_create("mesh");
    tcase_add_test(tm, cube_from_ascii_and_binary_stl);
    tcase_add_test(tm, committed_seeds_are_the_cube);
    tcase_add_test(tm, committed_double_seed_is_the_cube);
    tcase_add_test(tm, inside_out_cube_is_reversed);
    tcase_add_test(tm, split_cube_keeps_volume_and_six_planes);
    tcase_add_test(tm, tetrahedron_inertia_off_diagonal);
    tcase_add_test(tm, flat_closed_mesh_has_no_inside);
    tcase_add_test(tm, floor_is_one_group_and_open);
    tcase_add_test(tm, bent_floor_is_two_groups);
    tcase_add_test(tm, curved_surface_does_not_drift_into_one_group);
    tcase_add_test(tm, duplicates_and_degenerates_are_counted);
    tcase_add_test(tm, near_nodes_merge_within_tolerance_only);
    tcase_add_test(tm, welding_across_cell_faces);
    tcase_add_test(tm, non_manifold_edge_is_marked);
    tcase_add_test(tm, build_errors_name_the_triangle);
    tcase_add_test(tm, large_floor_welds);
    suite_add_tcase(s, tm);
    TCase *ts = tcase_create("stl");
    tcase_add_test(ts, ascii_errors_name_the_line);
    tcase_add_test(ts, ascii_accepts_crlf_capitals_and_two_solids);
    tcase_add_test(ts, binary_errors_name_the_triangle);
    tcase_add_test(ts, base64_rfc4648_vectors);
    tcase_add_test(ts, base64_bad_input_names_the_offset);
    tcase_add_test(ts, base64_binary_stl_round_trip);
    suite_add_tcase(s, ts);
    return ndem_test_run_suite(s);
}
