/* test_shape_collide.c - core/shape_collide*.c, the narrow phase between
 * shapes, against geometry: a cube face-down on a plane and on a cube, two
 * edges crossing, a sphere at a cube's face, edge and vertex, clumps
 * through their members, the reduction to 4 points, persistent ids, and
 * random convex pairs against the Minkowski difference built by qhull. */
#include "geometry.h"
#include "rng.h"
#include "shape_collide.h"
#include "testutil.h"
#include "vec.h"

#include <math.h>
#include <string.h>

static const double no_turn[4] = {1, 0, 0, 0};

/* A cube of half side h centred on its origin. */
static void cube(double h, ndem_shape *s)
{
    double p[24];
    char err[256];
    for (int i = 0; i < 8; i++)
        for (int a = 0; a < 3; a++) p[3 * i + a] = (i >> a & 1) ? h : -h;
    ck_assert_int_eq(ndem_shape_polyhedron(p, 8, h * sqrt(3.0), s, err, sizeof err), 0);
}

static void axis_quat(const double *axis, double angle, double q[4])
{
    double n = ndem_norm(axis), s = sin(0.5 * angle) / n;
    q[0] = cos(0.5 * angle), q[1] = s * axis[0], q[2] = s * axis[1], q[3] = s * axis[2];
}

/* Index of the point at (x, y, z) within tol, or -1. */
static int find_point(const ndem_contact_point *c, int n, const double *x, double tol)
{
    for (int k = 0; k < n; k++)
        if (fabs(c[k].x[0] - x[0]) <= tol && fabs(c[k].x[1] - x[1]) <= tol &&
            fabs(c[k].x[2] - x[2]) <= tol)
            return k;
    return -1;
}

static void check_normal(const ndem_contact_point *c, const double *n, double tol)
{
    for (int i = 0; i < 3; i++) ck_assert_double_le(fabs(c->n[i] - n[i]), tol);
}

static void check_distinct_ids(const ndem_contact_point *c, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) ck_assert_uint_ne(c[i].id, c[j].id);
}

START_TEST(cube_on_plane)
{
    ndem_shape s;
    cube(0.5, &s);
    double delta = 0.01;
    ndem_collider a, b;
    ndem_collider_place(&a, &s, (double[3]){2, 3, 0.5 - delta}, no_turn);
    ndem_collider_plane(&b, (double[3]){0, 0, 0}, (double[3]){0, 0, 1});
    ndem_contact_point c[NDEM_CONTACT_POINTS];
    int n = ndem_shape_collide(&a, &b, 0.0, c);
    ck_assert_int_eq(n, 4);
    for (int k = 0; k < 4; k++) {
        ck_assert_double_eq_tol(c[k].depth, delta, 1e-15);
        check_normal(&c[k], (double[3]){0, 0, -1}, 0.0);
    }
    for (int k = 0; k < 4; k++) { /* the bottom corners, midway into the plane */
        double x[3] = {2 + ((k & 1) ? 0.5 : -0.5), 3 + ((k & 2) ? 0.5 : -0.5), -0.5 * delta};
        ck_assert_int_ge(find_point(c, n, x, 1e-14), 0);
    }
    check_distinct_ids(c, n);
    /* the other way round: the normal turns */
    ck_assert_int_eq(ndem_shape_collide(&b, &a, 0.0, c), 4);
    check_normal(&c[0], (double[3]){0, 0, 1}, 0.0);
    /* lifted clear of the plane: nothing, or a gap within a margin */
    ndem_collider_place(&a, &s, (double[3]){2, 3, 0.52}, no_turn);
    ck_assert_int_eq(ndem_shape_collide(&a, &b, 0.0, c), 0);
    ck_assert_int_eq(ndem_shape_collide(&a, &b, 0.05, c), 4);
    ck_assert_double_eq_tol(c[0].depth, -0.02, 1e-15);
    ndem_shape_clear(&s);
}
END_TEST

START_TEST(hexagon_reduced_to_four)
{
    /* a hexagonal prism (circumradius 1) face-down, tipped a little about
     * y: 6 corners below the plane, the deepest at angle 0 (x = 1). Kept:
     * that corner and the 3 making the largest quadrilateral with it, a
     * rectangle of sides 1 and sqrt 3. */
    double p[36];
    char err[256];
    for (int i = 0; i < 12; i++) {
        double a = M_PI / 3.0 * (i % 6);
        p[3 * i] = cos(a), p[3 * i + 1] = sin(a), p[3 * i + 2] = i < 6 ? -0.5 : 0.5;
    }
    ndem_shape s;
    ck_assert_int_eq(ndem_shape_polyhedron(p, 12, sqrt(1.25), &s, err, sizeof err), 0);
    double q[4];
    axis_quat((double[3]){0, 1, 0}, 1e-3, q); /* x = 1 goes down */
    ndem_collider a, b;
    ndem_collider_place(&a, &s, (double[3]){0, 0, 0.49}, q);
    ndem_collider_plane(&b, (double[3]){0, 0, 0}, (double[3]){0, 0, 1});
    ndem_contact_point c[NDEM_CONTACT_POINTS];
    int n = ndem_shape_collide(&a, &b, 0.0, c);
    ck_assert_int_eq(n, 4);
    ck_assert_double_gt(c[0].x[0], 0.99); /* the deepest first */
    for (int k = 1; k < 4; k++) ck_assert_double_lt(c[k].depth, c[0].depth);
    /* shoelace area of the 4 points in x, y, in angular order */
    double ang[4], area = 0.0;
    int ord[4] = {0, 1, 2, 3};
    for (int k = 0; k < 4; k++) ang[k] = atan2(c[k].x[1], c[k].x[0]);
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (ang[ord[j]] < ang[ord[i]]) {
                int t = ord[i];
                ord[i] = ord[j];
                ord[j] = t;
            }
    for (int k = 0; k < 4; k++) {
        const double *u = c[ord[k]].x, *v = c[ord[(k + 1) % 4]].x;
        area += 0.5 * (u[0] * v[1] - v[0] * u[1]);
    }
    ck_assert_double_eq_tol(area, sqrt(3.0), 1e-5);
    ndem_shape_clear(&s);
}
END_TEST

START_TEST(cube_on_cube_offset)
{
    ndem_shape s;
    cube(0.5, &s);
    double delta = 0.02;
    ndem_collider a, b;
    ndem_collider_place(&a, &s, (double[3]){0, 0, 0}, no_turn);
    ndem_collider_place(&b, &s, (double[3]){0.3, 0.2, 1.0 - delta}, no_turn);
    ndem_contact_point c[NDEM_CONTACT_POINTS];
    int n = ndem_shape_collide(&a, &b, 0.0, c);
    ck_assert_int_eq(n, 4);
    /* the overlap of the squares: x in [-0.2, 0.5], y in [-0.3, 0.5] */
    double xs[2] = {-0.2, 0.5}, ys[2] = {-0.3, 0.5};
    for (int k = 0; k < 4; k++) {
        double x[3] = {xs[k & 1], ys[k >> 1], 0.5 - 0.5 * delta};
        int i = find_point(c, n, x, 1e-14);
        ck_assert_int_ge(i, 0);
        ck_assert_double_eq_tol(c[i].depth, delta, 1e-14);
        check_normal(&c[i], (double[3]){0, 0, 1}, 1e-15);
    }
    check_distinct_ids(c, n);
    unsigned ids[4];
    for (int k = 0; k < 4; k++) ids[k] = c[k].id;
    /* a little slide and turn: the same features, the same ids */
    double q[4];
    axis_quat((double[3]){0, 0, 1}, 1e-3, q);
    ndem_collider_place(&b, &s, (double[3]){0.3 + 1e-4, 0.2 - 2e-4, 1.0 - delta + 1e-5}, q);
    ck_assert_int_eq(ndem_shape_collide(&a, &b, 0.0, c), 4);
    for (int k = 0; k < 4; k++) {
        int seen = 0;
        for (int j = 0; j < 4; j++) seen += c[j].id == ids[k];
        ck_assert_int_eq(seen, 1);
    }
    /* and the point that moved is the one with its id: the corner of b's
     * face at (-0.2, -0.3) goes with b */
    ndem_collider_place(&b, &s, (double[3]){0.3, 0.2, 1.0 - delta}, no_turn);
    ndem_shape_collide(&a, &b, 0.0, c);
    int corner = find_point(c, 4, (double[3]){-0.2, -0.3, 0.5 - 0.5 * delta}, 1e-14);
    unsigned id = c[corner].id;
    ndem_collider_place(&b, &s, (double[3]){0.3 + 1e-4, 0.2, 1.0 - delta}, no_turn);
    ndem_shape_collide(&a, &b, 0.0, c);
    corner = find_point(c, 4, (double[3]){-0.2 + 1e-4, -0.3, 0.5 - 0.5 * delta}, 1e-12);
    ck_assert_int_ge(corner, 0);
    ck_assert_uint_eq(c[corner].id, id);
    /* apart: nothing */
    ndem_collider_place(&b, &s, (double[3]){0.3, 0.2, 1.001}, no_turn);
    ck_assert_int_eq(ndem_shape_collide(&a, &b, 0.0, c), 0);
    ndem_shape_clear(&s);
}
END_TEST

START_TEST(edges_crossing)
{
    /* a cube turned 45 deg about y has a top edge along y at z = sqrt(1/2);
     * one turned 45 deg about x, above, a bottom edge along x: they cross
     * at one point on the z axis */
    ndem_shape s;
    cube(0.5, &s);
    double qa[4], qb[4], delta = 0.01, top = sqrt(0.5);
    axis_quat((double[3]){0, 1, 0}, M_PI / 4, qa);
    axis_quat((double[3]){1, 0, 0}, M_PI / 4, qb);
    ndem_collider a, b;
    ndem_collider_place(&a, &s, (double[3]){0, 0, 0}, qa);
    ndem_collider_place(&b, &s, (double[3]){0.05, -0.03, 2 * top - delta}, qb);
    double n[3], depth;
    ck_assert_int_eq(ndem_polyhedra_axis(&a, &b, n, &depth), 2);
    ck_assert_double_eq_tol(depth, delta, 1e-14);
    ndem_contact_point c[NDEM_CONTACT_POINTS];
    ck_assert_int_eq(ndem_shape_collide(&a, &b, 0.0, c), 1);
    ck_assert_double_eq_tol(c[0].depth, delta, 1e-14);
    check_normal(&c[0], (double[3]){0, 0, 1}, 1e-14);
    /* a's edge is x = 0, b's y = -0.03: midway between the edges */
    double x[3] = {0, -0.03, top - 0.5 * delta};
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(c[0].x[i], x[i], 1e-14);
    ndem_shape_clear(&s);
}
END_TEST

START_TEST(sphere_face_edge_vertex)
{
    /* cube of half 0.5 turned and moved; sphere r = 0.2 placed in its frame */
    ndem_shape s, ball;
    char err[256];
    cube(0.5, &s);
    ck_assert_int_eq(ndem_shape_sphere(0.2, &ball, err, sizeof err), 0);
    double q[4], rot[9], at[3] = {1, -2, 0.5};
    axis_quat((double[3]){1, 2, 3}, 0.9, q);
    ndem_quat_matrix(q, rot);
    const double a = 0.1, r = 0.2;
    struct {
        double local[3], n_out[3], dist;
    } cases[4] = {
        {{0, 0, 0.65}, {0, 0, 1}, 0.15},                                 /* face */
        {{0.5 + a, 0, 0.5 + a}, {M_SQRT1_2, 0, M_SQRT1_2}, a * M_SQRT2}, /* edge */
        {{0.5 + a, 0.5 + a, 0.5 + a}, {1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)}, a * sqrt(3.0)},
        {{0.1, 0, 0.4}, {0, 0, 1}, -0.1}, /* centre inside, nearest the top */
    };
    unsigned ids[4];
    for (int k = 0; k < 4; k++) {
        double w[3], n[3];
        for (int i = 0; i < 3; i++) {
            w[i] = at[i] + ndem_dot(rot + 3 * i, cases[k].local);
            n[i] = -ndem_dot(rot + 3 * i, cases[k].n_out); /* sphere into cube */
        }
        ndem_collider cs, cc;
        ndem_collider_place(&cs, &ball, w, no_turn);
        ndem_collider_place(&cc, &s, at, q);
        ndem_contact_point c[NDEM_CONTACT_POINTS];
        ck_assert_int_eq(ndem_shape_collide(&cs, &cc, 0.0, c), 1);
        ck_assert_double_eq_tol(c[0].depth, r - cases[k].dist, 1e-14);
        check_normal(&c[0], n, 1e-14);
        /* midway between the sphere's deepest point and the cube's surface */
        double mid = 0.5 * (r + cases[k].dist);
        for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(c[0].x[i], w[i] + mid * n[i], 1e-14);
        ids[k] = c[0].id;
        /* the other way round */
        ck_assert_int_eq(ndem_shape_collide(&cc, &cs, 0.0, c), 1);
        ck_assert_double_eq_tol(c[0].n[0], -n[0], 1e-14);
    }
    /* face, edge and vertex are different features; the inside case is
     * the same top face */
    ck_assert_uint_ne(ids[0], ids[1]);
    ck_assert_uint_ne(ids[1], ids[2]);
    ck_assert_uint_ne(ids[0], ids[2]);
    ck_assert_uint_eq(ids[0], ids[3]);
    ndem_shape_clear(&s);
    ndem_shape_clear(&ball);
}
END_TEST

START_TEST(clumps_through_members)
{
    /* a dumbbell: unit-radius members at x = +-1, scaled to radius 1 (so
     * r = 0.5 at x = +-0.5), lying on the plane 0.01 deep */
    ndem_shape cl, ball;
    char err[256];
    ck_assert_int_eq(
        ndem_shape_clump((double[8]){1, 0, 0, 1, -1, 0, 0, 1}, 2, 1.0, &cl, err, sizeof err), 0);
    ck_assert_int_eq(ndem_shape_sphere(0.5, &ball, err, sizeof err), 0);
    ndem_collider a, b;
    ndem_collider_place(&a, &cl, (double[3]){0, 0, 0.49}, no_turn);
    ndem_collider_plane(&b, (double[3]){0, 0, 0}, (double[3]){0, 0, 1});
    ndem_contact_point c[NDEM_CONTACT_POINTS];
    ck_assert_int_eq(ndem_shape_collide(&a, &b, 0.0, c), 2);
    for (int k = 0; k < 2; k++) {
        ck_assert_double_eq_tol(c[k].depth, 0.01, 1e-15);
        ck_assert_double_eq_tol(fabs(c[k].x[0]), 0.5, 1e-15);
        check_normal(&c[k], (double[3]){0, 0, -1}, 0.0);
    }
    check_distinct_ids(c, 2);
    /* a sphere on the +x member only, from above: normal clump -> sphere */
    ndem_collider_place(&b, &ball, (double[3]){0.5, 0, 0.49 + 0.95}, no_turn);
    ck_assert_int_eq(ndem_shape_collide(&a, &b, 0.0, c), 1);
    ck_assert_double_eq_tol(c[0].depth, 0.05, 1e-14);
    check_normal(&c[0], (double[3]){0, 0, 1}, 1e-15);
    ck_assert_int_eq(ndem_shape_collide(&b, &a, 0.0, c), 1);
    check_normal(&c[0], (double[3]){0, 0, -1}, 1e-15);
    /* a second dumbbell turned 90 deg about z, dz above: its members at
     * y = +-0.5 meet the lower ones at x = +-0.5 in 4 pairs, each at
     * distance sqrt(0.5 + dz^2) */
    double q[4], dz = 0.6;
    axis_quat((double[3]){0, 0, 1}, M_PI / 2, q);
    ndem_collider_place(&b, &cl, (double[3]){0, 0, 0.49 + dz}, q);
    int n = ndem_shape_collide(&a, &b, 0.0, c);
    ck_assert_int_eq(n, 4);
    for (int k = 0; k < n; k++)
        ck_assert_double_eq_tol(c[k].depth, 1.0 - sqrt(0.5 + dz * dz), 1e-14);
    check_distinct_ids(c, n);
    /* a cube resting on the +x member only (the other is 0.69 from it) */
    ndem_shape box;
    cube(0.5, &box);
    ndem_collider_place(&b, &box, (double[3]){0.5, 0, 0.49 + 0.5 + 0.5 - 0.03}, no_turn);
    ck_assert_int_eq(ndem_shape_collide(&a, &b, 0.0, c), 1);
    ck_assert_double_eq_tol(c[0].depth, 0.03, 1e-14);
    check_normal(&c[0], (double[3]){0, 0, 1}, 1e-15);
    ndem_shape_clear(&box);
    ndem_shape_clear(&cl);
    ndem_shape_clear(&ball);
}
END_TEST

/* A random convex polyhedron: 6 to 16 points in the unit ball. */
static void random_poly(ndem_rng *g, ndem_shape *s)
{
    double p[48];
    char err[256];
    int n = 6 + (int)(ndem_rng_uniform(g) * 11);
    for (;;) {
        for (int i = 0; i < n; i++) {
            double v[3];
            do {
                for (int a = 0; a < 3; a++) v[a] = 2.0 * ndem_rng_uniform(g) - 1.0;
            } while (ndem_dot(v, v) > 1.0);
            memcpy(p + 3 * i, v, sizeof v);
        }
        double r = 0.5 + ndem_rng_uniform(g);
        if (ndem_shape_polyhedron(p, n, r, s, err, sizeof err) == 0) return;
    }
}

static void random_quat(ndem_rng *g, double q[4])
{
    double n;
    do {
        for (int i = 0; i < 4; i++) q[i] = 2.0 * ndem_rng_uniform(g) - 1.0;
        n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (n > 1.0 || n < 0.1);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

static void world_vertices(const ndem_collider *c, double *out)
{
    const ndem_polyhedron *p = &c->shape->poly;
    for (int v = 0; v < p->n_vertices; v++)
        for (int i = 0; i < 3; i++)
            out[3 * v + i] = c->x[i] + ndem_dot(c->rot + 3 * i, p->vertices + 3 * v);
}

START_TEST(random_pairs_against_minkowski)
{
    /* Reference: the hull of all differences b_j - a_i (qhull, through
     * ndem_shape_polyhedron at scale 1) is B - A; it holds the origin iff
     * they overlap, and the penetration depth is the origin's distance to
     * its nearest face: min face_d. */
    ndem_rng g;
    ndem_rng_seed(&g, 18);
    int overlapping = 0, separated = 0, edges = 0;
    for (int trial = 0; trial < 400; trial++) {
        ndem_shape sa, sb, md;
        random_poly(&g, &sa);
        random_poly(&g, &sb);
        double qa[4], qb[4], xb[3], dir[3];
        random_quat(&g, qa);
        random_quat(&g, qb);
        do {
            for (int i = 0; i < 3; i++) dir[i] = 2.0 * ndem_rng_uniform(&g) - 1.0;
        } while (ndem_dot(dir, dir) > 1.0 || ndem_dot(dir, dir) < 1e-3);
        double len = (sa.radius + sb.radius) * ndem_rng_uniform(&g) / ndem_norm(dir);
        for (int i = 0; i < 3; i++) xb[i] = 0.3 + len * dir[i];
        ndem_collider a, b;
        ndem_collider_place(&a, &sa, (double[3]){0.3, 0, 0}, qa);
        ndem_collider_place(&b, &sb, xb, qb);
        int na = sa.poly.n_vertices, nb = sb.poly.n_vertices;
        double va[48], vb[48], diff[3 * 256], reach = 0.0;
        world_vertices(&a, va);
        world_vertices(&b, vb);
        for (int i = 0; i < na; i++)
            for (int j = 0; j < nb; j++)
                for (int k = 0; k < 3; k++)
                    diff[3 * (i * nb + j) + k] = vb[3 * j + k] - va[3 * i + k];
        for (int m = 0; m < na * nb; m++) reach = ndem_max(reach, ndem_norm(diff + 3 * m));
        char err[256];
        ck_assert_int_eq(ndem_shape_polyhedron(diff, na * nb, reach, &md, err, sizeof err), 0);
        double ref = INFINITY;
        for (int f = 0; f < md.poly.n_faces; f++) ref = ndem_min(ref, md.poly.face_d[f]);
        ndem_shape_clear(&md);
        double scale = sa.radius + sb.radius;
        ndem_contact_point c[NDEM_CONTACT_POINTS];
        int n = ndem_shape_collide(&a, &b, 0.0, c);
        if (fabs(ref) < 1e-9 * scale) goto next; /* touching: either answer */
        if (ref < 0.0) {
            ck_assert_int_eq(n, 0);
            separated++;
            goto next;
        }
        overlapping++;
        double nn[3], depth;
        edges += ndem_polyhedra_axis(&a, &b, nn, &depth) == 2;
        ck_assert_double_eq_tol(depth, ref, 1e-9 * scale);
        /* the axis is really one of that overlap: projections by brute force */
        double hi_a = -INFINITY, lo_b = INFINITY;
        for (int i = 0; i < na; i++) hi_a = ndem_max(hi_a, ndem_dot(nn, va + 3 * i));
        for (int j = 0; j < nb; j++) lo_b = ndem_min(lo_b, ndem_dot(nn, vb + 3 * j));
        ck_assert_double_eq_tol(hi_a - lo_b, ref, 1e-9 * scale);
        ck_assert_int_ge(n, 1);
        ck_assert_int_le(n, NDEM_MANIFOLD_POINTS);
        double deepest = -INFINITY;
        for (int k = 0; k < n; k++) {
            check_normal(&c[k], nn, 1e-15);
            ck_assert_double_le(c[k].depth, ref + 1e-9 * scale);
            deepest = ndem_max(deepest, c[k].depth);
        }
        ck_assert_double_gt(deepest, 0.0);
        check_distinct_ids(c, n);
    next:
        ndem_shape_clear(&sa);
        ndem_shape_clear(&sb);
    }
    /* the draw covers both outcomes and edge-edge axes */
    ck_assert_int_gt(overlapping, 100);
    ck_assert_int_gt(separated, 50);
    ck_assert_int_gt(edges, 10);
}
END_TEST

static Suite *collide_suite(void)
{
    Suite *s = suite_create("shape_collide");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, cube_on_plane);
    tcase_add_test(tc, hexagon_reduced_to_four);
    tcase_add_test(tc, cube_on_cube_offset);
    tcase_add_test(tc, edges_crossing);
    tcase_add_test(tc, sphere_face_edge_vertex);
    tcase_add_test(tc, clumps_through_members);
    tcase_add_test(tc, random_pairs_against_minkowski);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(collide_suite()); }
