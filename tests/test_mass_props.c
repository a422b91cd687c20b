/* test_mass_props.c - core/mass_props_shape.c against closed forms: closed
 * triangle meshes (cube, box, tetrahedron, octahedron; inside-out refused),
 * clumps of spheres (disjoint, one lens, three pairwise lenses through the
 * octree) and the principal axes of a turned box. */
#include "geometry.h"
#include "mass_props.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

#define TOL 1e-12

/* Corner i of the unit cube is (i & 1, i >> 1 & 1, i >> 2 & 1); each face a
 * quad counter-clockwise seen from outside, split in two triangles. */
static const int cube_quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                     {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};

/* A box [o, o + size] as 8 vertices and 12 triangles. */
static void box_mesh(const double o[3], const double size[3], double v[24], int t[36])
{
    for (int i = 0; i < 8; i++)
        for (int a = 0; a < 3; a++) v[3 * i + a] = o[a] + size[a] * (i >> a & 1);
    for (int f = 0; f < 6; f++) {
        const int *q = cube_quads[f];
        int tri[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
        memcpy(t + 6 * f, tri, sizeof tri);
    }
}

static void check_props(const ndem_mass_props *p, double v, const double c[3], const double in[9],
                        double tol)
{
    ck_assert_double_eq_tol(p->volume, v, tol * fabs(v));
    for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(p->centroid[a], c[a], tol);
    double scale = fabs(in[0]) + fabs(in[4]) + fabs(in[8]);
    for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(p->inertia[i], in[i], tol * scale);
}

START_TEST(mesh_cube_and_box)
{
    double v[24], c[3], in[9] = {0};
    int t[36];
    char err[256];
    ndem_mass_props p;
    /* unit cube: V 1, centroid at its centre, I = (1 + 1) / 12 on the diagonal */
    box_mesh((double[3]){0, 0, 0}, (double[3]){1, 1, 1}, v, t);
    ck_assert_int_eq(ndem_mass_props_mesh(v, 8, t, 12, &p, err, sizeof err), 0);
    in[0] = in[4] = in[8] = 1.0 / 6.0;
    check_props(&p, 1.0, (double[3]){0.5, 0.5, 0.5}, in, TOL);
    /* a 2 x 3 x 5 box far from the origin: I_xx = V (b^2 + c^2) / 12 */
    double o[3] = {100, -50, 7}, s[3] = {2, 3, 5}, vol = 30.0;
    box_mesh(o, s, v, t);
    ck_assert_int_eq(ndem_mass_props_mesh(v, 8, t, 12, &p, err, sizeof err), 0);
    for (int a = 0; a < 3; a++) c[a] = o[a] + 0.5 * s[a];
    in[0] = vol * (9 + 25) / 12.0, in[4] = vol * (4 + 25) / 12.0, in[8] = vol * (4 + 9) / 12.0;
    check_props(&p, vol, c, in, 1e-10);
}
END_TEST

START_TEST(mesh_tetrahedron)
{
    /* (0,0,0), e_x, e_y, e_z: V 1/6, centroid 1/4; int x^2 = 1/60 and
     * int xy = 1/120 (monomials over the simplex: a! b! c! / (a+b+c+3)!),
     * so about the centroid int x^2 = 1/160, int xy = -1/480: I_xx = 1/80,
     * I_xy = 1/480 */
    double v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    int t[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    char err[256];
    ndem_mass_props p;
    ck_assert_int_eq(ndem_mass_props_mesh(v, 4, t, 4, &p, err, sizeof err), 0);
    double d = 1.0 / 80.0, o = 1.0 / 480.0;
    double in[9] = {d, o, o, o, d, o, o, o, d};
    check_props(&p, 1.0 / 6.0, (double[3]){0.25, 0.25, 0.25}, in, TOL);
    /* turned inside out: refused */
    int r[12] = {0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2};
    ck_assert_int_eq(ndem_mass_props_mesh(v, 4, r, 4, &p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "inside out"));
    /* an open mesh (one face missing) is not a solid either */
    ck_assert_int_eq(ndem_mass_props_mesh(v, 4, t, 3, &p, err, sizeof err), -1);
    /* a vertex index out of range names its triangle */
    int bad[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 4};
    ck_assert_int_eq(ndem_mass_props_mesh(v, 4, bad, 4, &p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "triangle 3"));
}
END_TEST

START_TEST(mesh_octahedron)
{
    /* |x| + |y| + |z| <= a: 8 simplices of volume a^3/6 and int x^2 =
     * a^5/60 each: V = 4a^3/3, I = 8 (2 a^5/60) = V a^2/5 on the diagonal */
    double a = 1.7, v[18] = {0};
    for (int k = 0; k < 3; k++) v[3 * (2 * k) + k] = a, v[3 * (2 * k + 1) + k] = -a;
    int t[24], n = 0;
    for (int s = 0; s < 8; s++) {
        int x = s & 1, y = s >> 1 & 1, z = s >> 2 & 1; /* 1: the minus vertex */
        int tri[3] = {x, 2 + y, 4 + z};
        if ((x + y + z) % 2) { /* an odd number of mirrors turns the loop */
            int tmp = tri[1];
            tri[1] = tri[2];
            tri[2] = tmp;
        }
        memcpy(t + 3 * n++, tri, sizeof tri);
    }
    char err[256];
    ndem_mass_props p;
    ck_assert_int_eq(ndem_mass_props_mesh(v, 6, t, 8, &p, err, sizeof err), 0);
    double vol = 4.0 * a * a * a / 3.0, d = vol * a * a / 5.0;
    double in[9] = {d, 0, 0, 0, d, 0, 0, 0, d};
    check_props(&p, vol, (double[3]){0, 0, 0}, in, TOL);
}
END_TEST

/* Textbook cap of height h on a sphere of radius r: volume, distance of its
 * centroid from the sphere's centre, moment about its axis (unit density). */
static double cap_volume(double r, double h) { return M_PI * h * h * (3 * r - h) / 3.0; }
static double cap_centroid(double r, double h)
{
    return 3.0 * (2 * r - h) * (2 * r - h) / (4.0 * (3 * r - h));
}
static double cap_axial(double r, double h)
{
    return M_PI * h * h * h * (3 * h * h - 15 * r * h + 20 * r * r) / 30.0;
}

START_TEST(clump_disjoint_and_lens)
{
    char err[256];
    ndem_mass_props p;
    /* two disjoint spheres: parallel axes only */
    double two[8] = {-2, 0, 0, 1, 3, 0, 0, 0.5};
    ck_assert_int_eq(ndem_mass_props_clump(two, 2, &p, err, sizeof err), 0);
    double v1 = 4.0 / 3.0 * M_PI, v2 = v1 / 8.0, v = v1 + v2, cx = (-2 * v1 + 3 * v2) / v;
    double ixx = 0.4 * v1 + 0.4 * v2 * 0.25;
    double iyy = ixx + v1 * (2 + cx) * (2 + cx) + v2 * (3 - cx) * (3 - cx);
    check_props(&p, v, (double[3]){cx, 0, 0}, (double[9]){ixx, 0, 0, 0, iyy, 0, 0, 0, iyy}, TOL);

    /* radii R = 1 at 0 and r = 0.6 at d = 1.2 on z: the plane of the lens
     * is at z0 = (d^2 + R^2 - r^2) / 2d; the lens is a cap of height
     * R - z0 of the big sphere and one of height r - (d - z0) of the small */
    double R = 1.0, r = 0.6, d = 1.2, z0 = (d * d + R * R - r * r) / (2 * d);
    double hb = R - z0, hs = r - (d - z0);
    double lens = cap_volume(R, hb) + cap_volume(r, hs);
    /* the closed form of the lens volume agrees (a check of the check) */
    double lens_closed = M_PI * (R + r - d) * (R + r - d) *
                         (d * d + 2 * d * r - 3 * r * r + 2 * d * R + 6 * r * R - 3 * R * R) /
                         (12 * d);
    ck_assert_double_eq_tol(lens, lens_closed, 1e-14);
    double vb = 4.0 / 3.0 * M_PI, vs = vb * r * r * r;
    double vol = vb + vs - lens;
    double mz = vs * d - (cap_volume(R, hb) * cap_centroid(R, hb) +
                          cap_volume(r, hs) * (d - cap_centroid(r, hs)));
    double iz = 0.4 * vb + 0.4 * vs * r * r - cap_axial(R, hb) - cap_axial(r, hs);
    double s2[8] = {0, 0, 0, R, 0, 0, d, r};
    ck_assert_int_eq(ndem_mass_props_clump(s2, 2, &p, err, sizeof err), 0);
    ck_assert_double_eq_tol(p.volume, vol, 1e-13);
    ck_assert_double_eq_tol(p.centroid[2], mz / vol, 1e-13);
    ck_assert_double_eq_tol(p.centroid[0], 0.0, 1e-15);
    ck_assert_double_eq_tol(p.inertia[8], iz, 1e-13);
    ck_assert_double_eq_tol(p.inertia[0], p.inertia[4], 1e-13);
    ck_assert_double_eq_tol(p.inertia[1], 0.0, 1e-15);

    /* a sphere inside another counts once */
    double in2[8] = {0, 0, 0, 1, 0.2, 0, 0, 0.3};
    ck_assert_int_eq(ndem_mass_props_clump(in2, 2, &p, err, sizeof err), 0);
    ck_assert_double_eq_tol(p.volume, vb, 1e-14);
    ck_assert_double_eq_tol(p.centroid[0], 0.0, 1e-15);

    double bad[4] = {0, 0, 0, -1};
    ck_assert_int_eq(ndem_mass_props_clump(bad, 1, &p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "sphere 0"));
}
END_TEST

START_TEST(clump_three_overlapping)
{
    /* three unit spheres at the corners of a triangle of side s = 1.9: each
     * pair overlaps, yet the circumradius s / sqrt 3 > 1, so no point is in
     * all three and the union is 3 spheres - 3 lenses exactly. The graph has
     * a triangle, so the octree integrates it: it must agree closely. */
    double s = 1.9, h = 1.0 - s / 2.0, rc = s / sqrt(3.0);
    double sp[12];
    for (int k = 0; k < 3; k++) {
        double a = 2.0 * M_PI * k / 3.0;
        double c[4] = {rc * cos(a), rc * sin(a), 0.0, 1.0};
        memcpy(sp + 4 * k, c, sizeof c);
    }
    double vol = 3.0 * (4.0 / 3.0 * M_PI) - 3.0 * 2.0 * cap_volume(1.0, h);
    char err[256];
    ndem_mass_props p;
    ck_assert_int_eq(ndem_mass_props_clump(sp, 3, &p, err, sizeof err), 0);
    /* docs/shapes.md: the octree leaves are at most r / 64; measured 2e-6 */
    ck_assert_double_eq_tol(p.volume, vol, 1e-4 * vol);
    for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(p.centroid[a], 0.0, 1e-3);
    /* symmetric about z through the centroid: I_xx = I_yy */
    ck_assert_double_eq_tol(p.inertia[0], p.inertia[4], 2e-3 * p.inertia[0]);
}
END_TEST

START_TEST(principal_turned_box)
{
    double v[24], in[9];
    int t[36];
    char err[256];
    ndem_mass_props p;
    box_mesh((double[3]){-1, -2, -3}, (double[3]){2, 4, 6}, v, t);
    ck_assert_int_eq(ndem_mass_props_mesh(v, 8, t, 12, &p, err, sizeof err), 0);
    /* turn the tensor: I' = R I R^T, R about the axis (1, 2, 3) by 0.7 */
    double ax[3] = {1, 2, 3}, n = sqrt(14.0), ang = 0.7;
    double q[4] = {cos(ang / 2), sin(ang / 2) * ax[0] / n, sin(ang / 2) * ax[1] / n,
                   sin(ang / 2) * ax[2] / n};
    double rm[9];
    ndem_quat_matrix(q, rm);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += rm[3 * i + k] * p.inertia[4 * k] * rm[3 * j + k];
            in[3 * i + j] = sum;
        }
    double m[3], qp[4], pm[9];
    ndem_mass_props_principal(in, m, qp);
    /* 2 x 4 x 6, V = 48: V (b^2 + c^2) / 12 ascending: z, y, x axes */
    ck_assert_double_eq_tol(m[0], 48.0 * (4 + 16) / 12.0, 1e-11);
    ck_assert_double_eq_tol(m[1], 48.0 * (4 + 36) / 12.0, 1e-11);
    ck_assert_double_eq_tol(m[2], 48.0 * (16 + 36) / 12.0, 1e-11);
    ck_assert_double_eq_tol(qp[0] * qp[0] + qp[1] * qp[1] + qp[2] * qp[2] + qp[3] * qp[3], 1.0,
                            1e-14);
    /* the rotation puts the principal frame back: R' diag(m) R'^T = I' */
    ndem_quat_matrix(qp, pm);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += pm[3 * i + k] * m[k] * pm[3 * j + k];
            ck_assert_double_eq_tol(sum, in[3 * i + j], 1e-11);
        }
    /* and axis k of it is, up to sign, the turned box's axis 2, 1, 0 */
    for (int k = 0; k < 3; k++) {
        int b = 2 - k;
        double dot = 0;
        for (int i = 0; i < 3; i++) dot += pm[3 * i + k] * rm[3 * i + b];
        ck_assert_double_eq_tol(fabs(dot), 1.0, 1e-12);
    }
    /* already diagonal: identity turn (w >= 0), moments sorted */
    double diag[9] = {3, 0, 0, 0, 1, 0, 0, 0, 2};
    ndem_mass_props_principal(diag, m, qp);
    ck_assert_double_eq(m[0], 1.0);
    ck_assert_double_eq(m[1], 2.0);
    ck_assert_double_eq(m[2], 3.0);
    ndem_quat_matrix(qp, pm);
    ck_assert_double_eq_tol(fabs(pm[3 * 1 + 0]), 1.0, 1e-15); /* axis of 1: y */
}
END_TEST

static Suite *mass_props_suite(void)
{
    Suite *s = suite_create("mass_props");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, mesh_cube_and_box);
    tcase_add_test(tc, mesh_tetrahedron);
    tcase_add_test(tc, mesh_octahedron);
    tcase_add_test(tc, clump_disjoint_and_lens);
    tcase_add_test(tc, clump_three_overlapping);
    tcase_add_test(tc, principal_turned_box);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(mass_props_suite()); }
