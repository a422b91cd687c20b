/* test_shape.c - core/shape.c: shape templates. Hulls of known solids
 * (faces merged into polygons, counter-clockwise loops, outward normals,
 * edges with their two faces, Euler), scaling to the bounding radius, mass
 * properties, degenerate inputs refused with their reason, the table. */
#include "shape.h"
#include "testutil.h"
#include "vec.h"

#include <math.h>
#include <string.h>

/* The 8 corners (+-1, +-1, +-1). */
static void cube_points(double p[24])
{
    for (int i = 0; i < 8; i++)
        for (int a = 0; a < 3; a++) p[3 * i + a] = (i >> a & 1) ? 1.0 : -1.0;
}

/* Loops turn counter-clockwise about the outward normal, lie on their
 * plane, and every other vertex is below every face; each edge is walked
 * a -> b by its first face and b -> a by its second. */
static void check_polyhedron(const ndem_polyhedron *p)
{
    for (int f = 0; f < p->n_faces; f++) {
        const double *n = p->face_normal + 3 * f;
        ck_assert_double_eq_tol(ndem_norm(n), 1.0, 1e-12);
        int s = p->face_start[f], m = p->face_start[f + 1] - s;
        ck_assert_int_ge(m, 3);
        for (int k = 0; k < m; k++) {
            const double *a = p->vertices + 3 * p->face_vertices[s + k];
            const double *b = p->vertices + 3 * p->face_vertices[s + (k + 1) % m];
            const double *c = p->vertices + 3 * p->face_vertices[s + (k + 2) % m];
            double e1[3], e2[3], x[3];
            for (int i = 0; i < 3; i++) e1[i] = b[i] - a[i], e2[i] = c[i] - b[i];
            ndem_cross(e1, e2, x);
            ck_assert_double_gt(ndem_dot(x, n), 0.0);
            ck_assert_double_eq_tol(ndem_dot(a, n), p->face_d[f], 1e-12);
            int e = p->face_edge[s + k], va = p->face_vertices[s + k],
                vb = p->face_vertices[s + (k + 1) % m];
            if (p->edge_faces[2 * e] == f) {
                ck_assert_int_eq(p->edges[2 * e], va);
                ck_assert_int_eq(p->edges[2 * e + 1], vb);
            } else {
                ck_assert_int_eq(p->edge_faces[2 * e + 1], f);
                ck_assert_int_eq(p->edges[2 * e], vb);
                ck_assert_int_eq(p->edges[2 * e + 1], va);
            }
        }
        for (int v = 0; v < p->n_vertices; v++)
            ck_assert_double_le(ndem_dot(p->vertices + 3 * v, n), p->face_d[f] + 1e-12);
    }
    ck_assert_int_eq(p->n_vertices - p->n_edges + p->n_faces, 2);
}

START_TEST(cube_hull)
{
    /* the corners, plus points inside, on a face and on an edge: the hull
     * is the cube, its coplanar triangles merged into 6 squares */
    double pts[36];
    cube_points(pts);
    double extra[12] = {0.1, -0.2, 0.3, 0, 0, 1, 1, 0.5, 1, -1, 0, 0.25};
    memcpy(pts + 24, extra, sizeof extra);
    ndem_shape s;
    char err[256];
    ck_assert_int_eq(ndem_shape_polyhedron(pts, 12, sqrt(3.0), &s, err, sizeof err), 0);
    ck_assert_int_eq(s.type, NDEM_SHAPE_POLYHEDRON);
    ck_assert_int_eq(s.poly.n_vertices, 8);
    ck_assert_int_eq(s.poly.n_faces, 6);
    ck_assert_int_eq(s.poly.n_edges, 12);
    for (int f = 0; f < 6; f++) {
        ck_assert_int_eq(s.poly.face_start[f + 1] - s.poly.face_start[f], 4);
        ck_assert_double_eq_tol(s.poly.face_d[f], 1.0, 1e-12);
    }
    check_polyhedron(&s.poly);
    /* side 2, V 8, I = V (4 + 4) / 12 */
    ck_assert_double_eq_tol(s.mass.volume, 8.0, 1e-12);
    ck_assert_double_eq_tol(s.mass.inertia[0], 8.0 * 8.0 / 12.0, 1e-12);
    ck_assert_double_eq_tol(s.mass.inertia[1], 0.0, 1e-12);
    ndem_shape_clear(&s);

    /* radius 1: scaled by 1/sqrt 3 about the origin; the extra points
     * change nothing */
    ck_assert_int_eq(ndem_shape_polyhedron(pts, 12, 1.0, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.poly.n_vertices, 8);
    ck_assert_int_eq(s.poly.n_faces, 6);
    double h = 1.0 / sqrt(3.0);
    for (int v = 0; v < 8; v++)
        for (int a = 0; a < 3; a++)
            ck_assert_double_eq_tol(fabs(s.poly.vertices[3 * v + a]), h, 1e-15);
    ck_assert_double_eq_tol(s.mass.volume, 8.0 * h * h * h, 1e-14);
    ck_assert_double_eq(s.radius, 1.0);
    /* support: the corner along (1, 2, 3) */
    int k = ndem_polyhedron_support(&s.poly, (double[3]){1, 2, 3});
    for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(s.poly.vertices[3 * k + a], h, 1e-15);
    ndem_shape_clear(&s);
}
END_TEST

START_TEST(octahedron_and_prism)
{
    /* a regular octahedron off-centre: 8 triangles, 12 edges; V = 4/3 */
    double oct[18] = {0};
    for (int k = 0; k < 3; k++) oct[3 * (2 * k) + k] = 1.0, oct[3 * (2 * k + 1) + k] = -1.0;
    for (int v = 0; v < 6; v++) oct[3 * v] += 0.5;
    ndem_shape s;
    char err[256];
    ck_assert_int_eq(ndem_shape_polyhedron(oct, 6, 1.5, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.poly.n_faces, 8);
    ck_assert_int_eq(s.poly.n_edges, 12);
    check_polyhedron(&s.poly);
    ck_assert_double_eq_tol(s.mass.volume, 4.0 / 3.0, 1e-12);
    ck_assert_double_eq_tol(s.mass.centroid[0], 0.5, 1e-12);
    ndem_shape_clear(&s);
    /* a hexagonal prism: 2 hexagons and 6 squares, 18 edges */
    double hex[36];
    for (int i = 0; i < 12; i++) {
        double a = M_PI / 3.0 * (i % 6);
        hex[3 * i] = cos(a), hex[3 * i + 1] = sin(a), hex[3 * i + 2] = i < 6 ? -0.5 : 0.5;
    }
    ck_assert_int_eq(ndem_shape_polyhedron(hex, 12, 2.0, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.poly.n_faces, 8);
    ck_assert_int_eq(s.poly.n_edges, 18);
    int hexagons = 0;
    for (int f = 0; f < 8; f++) hexagons += s.poly.face_start[f + 1] - s.poly.face_start[f] == 6;
    ck_assert_int_eq(hexagons, 2);
    check_polyhedron(&s.poly);
    /* scaled by 2 / sqrt(1.25): V = (3 sqrt 3 / 2) (side 1) x height 1, cubed scale */
    double sc = 2.0 / sqrt(1.25);
    ck_assert_double_eq_tol(s.mass.volume, 1.5 * sqrt(3.0) * sc * sc * sc, 1e-11);
    ndem_shape_clear(&s);
}
END_TEST

START_TEST(degenerate_refused)
{
    ndem_shape s;
    char err[256];
    double pts[24];
    cube_points(pts);
    ck_assert_int_eq(ndem_shape_polyhedron(pts, 3, 1.0, &s, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "at least 4 points"));
    /* the bottom 4 corners and their centre: one plane */
    double flat[15] = {-1, -1, -1, 1, -1, -1, -1, 1, -1, 1, 1, -1, 0, 0, -1};
    ck_assert_int_eq(ndem_shape_polyhedron(flat, 5, 1.0, &s, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no solid"));
    /* all on one line */
    double line[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    ck_assert_int_eq(ndem_shape_polyhedron(line, 4, 1.0, &s, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no solid"));
    double dup[24];
    memcpy(dup, pts, sizeof dup);
    memcpy(dup + 15, dup + 3, 3 * sizeof *dup); /* point 5 = point 1 */
    ck_assert_int_eq(ndem_shape_polyhedron(dup, 8, 1.0, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "points 1 and 5 are the same");
    pts[7] = NAN;
    ck_assert_int_eq(ndem_shape_polyhedron(pts, 8, 1.0, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "point 2 is not finite");
    cube_points(pts);
    ck_assert_int_eq(ndem_shape_polyhedron(pts, 8, 0.0, &s, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "radius"));
    double bad[4] = {0, 0, 0, 0};
    ck_assert_int_eq(ndem_shape_clump(bad, 1, 1.0, &s, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "sphere 0"));
    ck_assert_int_eq(ndem_shape_clump(bad, 0, 1.0, &s, err, sizeof err), -1);
}
END_TEST

/* A box's points: corners of [lo, hi], 3 per corner. */
static void box_points(const double lo[3], const double hi[3], double *p)
{
    for (int i = 0; i < 8; i++)
        for (int a = 0; a < 3; a++) p[3 * i + a] = (i >> a & 1) ? hi[a] : lo[a];
}

/* Volume V, centroid c and inertia about c of the box [lo, hi]
 * (V (b^2 + c^2) / 12 on the diagonal) moved to the point o by parallel
 * axes: the analytic value the union is compared with. */
static void box_about(const double lo[3], const double hi[3], const double o[3], double *v,
                      double in[9])
{
    double e[3], c[3];
    for (int a = 0; a < 3; a++) e[a] = hi[a] - lo[a], c[a] = 0.5 * (hi[a] + lo[a]) - o[a];
    *v = e[0] * e[1] * e[2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double own =
                i == j ? *v * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2] - e[i] * e[i]) / 12 : 0;
            in[3 * i + j] = own + *v * ((i == j ? ndem_dot(c, c) : 0) - c[i] * c[j]);
        }
}

/* An L of two boxes that share a face (the seed's non-convex block): the
 * compound's volume, centroid and inertia are the two boxes' by parallel
 * axes (1e-12); each piece keeps its own hull; scaling is one for all;
 * overlapping pieces, a flat piece and too few points are refused with the
 * piece named. */
START_TEST(compound_l_block)
{
    const double lo0[3] = {-1, -0.5, -1}, hi0[3] = {1, 0.5, 0};
    const double lo1[3] = {-1, -0.5, 0}, hi1[3] = {0, 0.5, 1};
    double pts[48];
    int sizes[2] = {8, 8};
    box_points(lo0, hi0, pts);
    box_points(lo1, hi1, pts + 24);
    ndem_shape s;
    char err[256];
    ck_assert_int_eq(ndem_shape_compound(pts, sizes, 2, 1.5, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.type, NDEM_SHAPE_COMPOUND);
    ck_assert_int_eq(s.n_pieces, 2);
    ck_assert_int_eq(s.pieces[0].poly.n_faces, 6);
    ck_assert_int_eq(s.pieces[1].poly.n_vertices, 8);
    check_polyhedron(&s.pieces[1].poly);
    /* the farthest point is at |(1, 0.5, 1)| = 1.5: radius 1.5 keeps the size */
    ck_assert_double_eq_tol(s.pieces[0].radius, 1.5, 1e-12);
    ck_assert_double_eq_tol(s.pieces[1].radius, sqrt(2.25), 1e-12);
    double c[3] = {-1.0 / 6, 0, -1.0 / 6}, v0, v1, i0[9], i1[9];
    box_about(lo0, hi0, c, &v0, i0);
    box_about(lo1, hi1, c, &v1, i1);
    ck_assert_double_eq_tol(s.mass.volume, 3.0, 1e-12);
    for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(s.mass.centroid[a], c[a], 1e-12);
    for (int k = 0; k < 9; k++) ck_assert_double_eq_tol(s.mass.inertia[k], i0[k] + i1[k], 1e-12);
    ck_assert_double_ne(s.mass.inertia[2], 0.0); /* the L is not symmetric in x-z */
    ndem_shape_clear(&s);
    /* at radius 3 everything doubles: the volume 8 times */
    ck_assert_int_eq(ndem_shape_compound(pts, sizes, 2, 3.0, &s, err, sizeof err), 0);
    ck_assert_double_eq_tol(s.mass.volume, 24.0, 1e-11);
    ndem_shape_clear(&s);
    /* the upright pushed 0.25 into the base */
    double low[3] = {-1, -0.5, -0.25};
    box_points(low, hi1, pts + 24);
    ck_assert_int_eq(ndem_shape_compound(pts, sizes, 2, 1.5, &s, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "pieces 0 and 1 overlap"));
    box_points(lo1, hi1, pts + 24);
    sizes[1] = 4; /* the upright's bottom face only: flat */
    ck_assert_int_eq(ndem_shape_compound(pts, sizes, 2, 1.5, &s, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "piece 1: the points span no solid"));
    sizes[1] = 3;
    ck_assert_int_eq(ndem_shape_compound(pts, sizes, 2, 1.5, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "piece 1: a polyhedron needs at least 4 points (got 3)");
}
END_TEST

START_TEST(clump_and_sphere)
{
    /* two touching unit spheres at x = +-1: reach 2, so radius 1 halves them */
    double sp[8] = {1, 0, 0, 1, -1, 0, 0, 1};
    ndem_shape s;
    char err[256];
    ck_assert_int_eq(ndem_shape_clump(sp, 2, 1.0, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n_spheres, 2);
    ck_assert_double_eq(s.spheres[0], 0.5);
    ck_assert_double_eq(s.spheres[3], 0.5);
    ck_assert_double_eq(s.spheres[4], -0.5);
    double v = 2.0 * 4.0 / 3.0 * M_PI * 0.125;
    ck_assert_double_eq_tol(s.mass.volume, v, 1e-14);
    /* I_yy: 2 (2/5 m r^2 + m d^2), m = v / 2, r = d = 0.5 */
    ck_assert_double_eq_tol(s.mass.inertia[4], v * (0.4 * 0.25 + 0.25), 1e-14);
    ndem_shape_clear(&s);
    ck_assert_int_eq(ndem_shape_sphere(0.3, &s, err, sizeof err), 0);
    ck_assert_double_eq_tol(s.mass.volume, 4.0 / 3.0 * M_PI * 0.027, 1e-15);
    ck_assert_str_eq(ndem_shape_type_name(s.type), "sphere");
    ndem_shape_clear(&s);
}
END_TEST

START_TEST(table)
{
    ndem_shape_table *t = ndem_shape_table_create();
    ck_assert_ptr_nonnull(t);
    char err[256];
    double pts[24];
    cube_points(pts);
    for (int i = 0; i < 9; i++) { /* past the first growth */
        ndem_shape s;
        if (i % 3 == 0) ck_assert_int_eq(ndem_shape_sphere(1.0 + i, &s, err, sizeof err), 0);
        else if (i % 3 == 1)
            ck_assert_int_eq(ndem_shape_polyhedron(pts, 8, 1.0 + i, &s, err, sizeof err), 0);
        else
            ck_assert_int_eq(
                ndem_shape_clump((double[4]){0, 0, 1, 1}, 1, 1.0 + i, &s, err, sizeof err), 0);
        ck_assert_int_eq(ndem_shape_table_add(t, &s), i);
        ck_assert_ptr_null(s.spheres); /* moved */
        ck_assert_ptr_null(s.poly.vertices);
    }
    ck_assert_int_eq(t->count, 9);
    const ndem_shape *g = ndem_shape_table_get(t, 4);
    ck_assert_int_eq(g->type, NDEM_SHAPE_POLYHEDRON);
    ck_assert_double_eq(g->radius, 5.0);
    ck_assert_int_eq(g->poly.n_faces, 6);
    ck_assert_int_eq(ndem_shape_table_get(t, 8)->type, NDEM_SHAPE_CLUMP);
    ck_assert_ptr_null(ndem_shape_table_get(t, 9));
    ck_assert_ptr_null(ndem_shape_table_get(t, -1));
    ndem_shape_table_destroy(t);
}
END_TEST

static Suite *shape_suite(void)
{
    Suite *s = suite_create("shape");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, cube_hull);
    tcase_add_test(tc, octahedron_and_prism);
    tcase_add_test(tc, degenerate_refused);
    tcase_add_test(tc, clump_and_sphere);
    tcase_add_test(tc, compound_l_block);
    tcase_add_test(tc, table);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(shape_suite()); }
