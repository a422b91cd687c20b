/* test_mesh_contact.c - spheres against triangle meshes (docs/meshes.md),
 * from theory and against the analytic geometry: rolling down a finely
 * triangulated incline, restitution on a face, an edge and a vertex of a
 * cube, a bed settled in a mesh box and in the analytic box, and a
 * checkpoint round trip with a mesh scene. */
#include "crc32c.h"
#include "dem_private.h"
#include "geometry.h"
#include "scene.h"
#include "sim.h"
#include "ckpt3.h"
#include "testutil.h"
#include "textbuf.h"

#include <math.h>

static const double G = 9.81;

/* "vertices" and "triangles" of a flat rectangle [x0, x1] x [y0, y1] at
 * z = 0 cut into squares of side `cell`, two triangles each. */
static void floor_mesh(test_text *t, double x0, double x1, double y0, double y1, double cell)
{
    int nx = (int)lround((x1 - x0) / cell), ny = (int)lround((y1 - y0) / cell);
    test_tprintf(t, "\"vertices\": [");
    for (int j = 0; j <= ny; j++)
        for (int i = 0; i <= nx; i++)
            test_tprintf(t, "%s[%.17g, %.17g, 0]", i + j ? ", " : "", x0 + i * cell, y0 + j * cell);
    test_tprintf(t, "], \"triangles\": [");
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            int a = j * (nx + 1) + i, b = a + 1, c = a + nx + 2, d = a + nx + 1;
            test_tprintf(t, "%s[%d, %d, %d], [%d, %d, %d]", i + j ? ", " : "", a, b, c, a, c, d);
        }
    test_tprintf(t, "]");
}

/* A closed cube [-h, h]^3 as 12 outward triangles. */
#define CUBE_MESH                                                                                  \
    "\"vertices\": [[-%g,-%g,-%g], [%g,-%g,-%g], [%g,%g,-%g], [-%g,%g,-%g], [-%g,-%g,%g], "        \
    "[%g,-%g,%g], [%g,%g,%g], [-%g,%g,%g]], \"triangles\": [[0,2,1], [0,3,2], [4,5,6], [4,6,7], "  \
    "[0,1,5], [0,5,4], [1,2,6], [1,6,5], [2,3,7], [2,7,6], [3,0,4], [3,4,7]]"
#define CUBE_ARGS(h) h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h

/* ---- the broad phase finds what the plane finds ---- */

/* At 200,000 random spheres over and near a floor of 2 x 90^2 triangles
 * (a grid that does not divide the floor evenly), with random reaches, the
 * mesh gives exactly the hits of the analytic plane: same count, overlap and
 * normal. Catches a triangle the grid search skips. */
START_TEST(floor_hits_equal_the_plane)
{
    const double L = 1.0153;
    test_text t = {0};
    test_tprintf(&t, "{\"scene\": {" TEST_MATERIALS ", \"geometry\": [{\"type\": \"plane\", "
                     "\"point\": [0, 0, 0], \"normal\": [0, 0, 1]}, {\"type\": \"mesh\", ");
    floor_mesh(&t, 0, L, 0, L, L / 90);
    test_tprintf(&t, "}]}}");
    ndem_job *job = test_job("%s", t.s);
    free(t.s);
    const ndem_geometry_def *plane = &job->scene.geometry[0], *mesh = &job->scene.geometry[1];
    ndem_geometry_pose pp, pm; /* both at rest */
    ndem_geometry_pose_init(plane, &pp);
    ndem_geometry_pose_init(mesh, &pm);
    uint64_t seed = 12345;
    long hits = 0;
    for (int i = 0; i < 200000; i++) {
        double u[6];
        for (int k = 0; k < 6; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            u[k] = (double)(seed >> 11) / 9007199254740992.0;
        }
        /* centres over the floor, 2 mm past its edges at most where the plane
         * and the finite floor still agree for spheres above it */
        double x[3] = {u[0] * L, u[1] * L, 0.03 * u[2]}, r = 0.002 + 0.008 * u[3],
               margin = 0.01 * u[4];
        ndem_geo_hit hp[NDEM_GEO_HITS], hm[NDEM_GEO_HITS];
        int np = ndem_geometry_collide(plane, &pp, x, r, margin, hp);
        int nm = ndem_geometry_collide(mesh, &pm, x, r, margin, hm);
        /* the finite floor ends: only spheres whose reach stays inside it */
        double reach = r + margin;
        if (x[0] < reach || x[1] < reach || x[0] > L - reach || x[1] > L - reach) continue;
        ck_assert_msg(np == nm, "at (%g, %g, %g), r %g, margin %g: plane %d hits, mesh %d", x[0],
                      x[1], x[2], r, margin, np, nm);
        if (np) {
            ck_assert_double_eq(hp[0].delta, hm[0].delta);
            ck_assert_double_eq(hp[0].n[2], hm[0].n[2]);
            ck_assert_int_eq(hm[0].feature, 0);
            hits++;
        }
    }
    fprintf(stderr, "floor: %ld hits, the plane's\n", hits);
    ck_assert_int_gt(hits, 10000);
    ndem_job_destroy(job);
}
END_TEST

/* ---- (a) rolling down a triangulated incline ---- */

START_TEST(incline_rolls_across_edges)
{
    /* A floor cut every 2 cm, tilted by theta about y with "orientation":
     * its normal n = (sin, 0, cos), downhill s = (cos, 0, -sin). */
    const double th = 20.0 * M_PI / 180.0, r = 0.01, T = 0.5;
    double n[3] = {sin(th), 0, cos(th)}, s[3] = {cos(th), 0, -sin(th)};
    double m = 2500 * 4.0 / 3.0 * M_PI * r * r * r;
    double e_w = 2.0 * 1e7 * 2e11 / (1e7 + 2e11);
    double k = e_w * sqrt(2.0 * 2.0 * r) / (3.0 * (1 - 0.09));
    double delta = pow(m * G * cos(th) / k, 2.0 / 3.0); /* Hertz rest overlap */
    test_text t = {0};
    test_tprintf(&t,
                 "{\"scene\": {" TEST_MATERIALS
                 ", \"contact_materials\": [{\"materials\": [\"ore\", "
                 "\"steel\"], \"friction\": 0.5, \"rolling_resistance\": 0, \"restitution\": 0.2}],"
                 "\"geometry\": [{\"type\": \"mesh\", \"material\": \"steel\", \"orientation\": "
                 "[%.17g, 0, %.17g, 0], ",
                 cos(th / 2), sin(th / 2));
    floor_mesh(&t, -0.05, 0.45, -0.04, 0.04, 0.02);
    test_tprintf(
        &t,
        "}], \"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"spheres\": "
        "[[%.17g, 0.005, %.17g, %g]]}]}, \"solver\": {\"time_step\": 2e-4, \"duration\": %g, "
        "\"iterations\": 30}}",
        (r - delta) * n[0] + 0.003 * s[0], (r - delta) * n[2] + 0.003 * s[2], r, T);
    ndem_job *job = test_job("%s", t.s);
    free(t.s);
    ck_assert_int_eq(job->scene.geometry[0].type, NDEM_GEOMETRY_MESH);
    ndem_sim *sim = test_sim(job);
    double x0[3], vn_prev = 0, jump = 0;
    ndem_frame f;
    test_frame(sim, &f);
    memcpy(x0, f.positions, sizeof x0);
    ndem_frame_free(&f);
    long steps = ndem_sim_total_steps(sim), edges = 0;
    double along_prev = 0;
    for (long i = 0; i < steps; i++) {
        test_step(sim);
        /* one contact all the way: no second one at the edges it crosses, and
         * the same key (the floor's coplanar group), so its history goes on */
        ck_assert_int_eq(ndem_sim_stats(sim)->geometry_contacts, 1);
        ck_assert_int_eq(sim->contacts.count, 1);
        ck_assert_int_eq(sim->contacts.key[0].feature, 0);
        test_frame(sim, &f);
        double vn = f.velocities[0] * n[0] + f.velocities[2] * n[2];
        double along = (f.positions[0] - x0[0]) * s[0] + (f.positions[2] - x0[2]) * s[2];
        /* the contact point's distance along s crosses an edge every 2 cm */
        if (floor((along + 0.003) / 0.02) != floor((along_prev + 0.003) / 0.02)) edges++;
        if (i > 0) jump = fmax(jump, fabs(vn - vn_prev));
        vn_prev = vn;
        along_prev = along;
        ndem_frame_free(&f);
    }
    double theory = 5.0 / 7.0 * G * sin(th) * T * T / 2;
    fprintf(stderr,
            "incline: travel %.6f m, theory %.6f m, %ld edges crossed, largest normal "
            "velocity change %.3g m/s\n",
            along_prev, theory, edges, jump);
    ck_assert_int_ge(edges, 10);
    ck_assert_double_lt(fabs(along_prev - theory) / theory, 0.01);
    ck_assert_double_lt(jump, 1e-3);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* ---- (b) restitution on a face, an edge and a vertex ---- */

/* Drops a sphere from 0.1 m above the top of a cube of side 0.1 turned by
 * q; returns the rebound ratio as test_physics's restitution test measures
 * it and the largest horizontal speed seen (0 when the normal is vertical). */
static double drop_on_cube(const double q[4], double top, double x, double *horizontal)
{
    const double e = 0.5, r = 0.01;
    char geo[2048];
    snprintf(geo, sizeof geo,
             "{\"type\": \"mesh\", \"material\": \"steel\", \"orientation\": [%.17g, %.17g, "
             "%.17g, %.17g], " CUBE_MESH "}",
             q[0], q[1], q[2], q[3], CUBE_ARGS(0.05));
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"steel\"], \"restitution\": %g, \"friction\": 0.5}], \"geometry\": [%s],"
        "\"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [[%.17g, 0, "
        "%.17g, %g]]}]}, \"solver\": {\"time_step\": 5e-4, \"duration\": 0.3}}",
        e, geo, x, top + 0.1 + r, r);
    ndem_sim *sim = test_sim(job);
    double vmin = 0, vmax_after = 0, hmax = 0;
    int bounced = 0;
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        ndem_frame f;
        test_frame(sim, &f);
        double vz = f.velocities[2];
        hmax = fmax(hmax, hypot(f.velocities[0], f.velocities[1]));
        ndem_frame_free(&f);
        if (!bounced && vz < vmin) vmin = vz;
        if (vz > 0) bounced = 1;
        if (bounced && vz > vmax_after) vmax_after = vz;
    }
    double h = job->scene.solver.time_step;
    ck_assert_double_lt(fabs(vmin + sqrt(2 * G * 0.1)) / sqrt(2 * G * 0.1), 0.01);
    *horizontal = hmax;
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return (vmax_after + G * h) / -vmin;
}

START_TEST(restitution_on_face_edge_vertex)
{
    const double e = 0.5, hside = 0.05;
    /* face: the cube as it is, dropped on the top face's diagonal (the edge
     * between its two coplanar triangles) */
    const double q_face[4] = {1, 0, 0, 0};
    /* edge: turned 45 degrees about y, an edge on top at z = h sqrt 2 */
    const double q_edge[4] = {cos(M_PI / 8), 0, sin(M_PI / 8), 0};
    /* vertex: (1, 1, 1) turned onto z, about (1, -1, 0), a corner on top at
     * z = h sqrt 3 */
    double a = acos(1 / sqrt(3.0));
    const double q_vertex[4] = {cos(a / 2), sin(a / 2) / sqrt(2.0), -sin(a / 2) / sqrt(2.0), 0};
    double hz[3], ratio[3];
    ratio[0] = drop_on_cube(q_face, hside, 0.0, &hz[0]);
    ratio[1] = drop_on_cube(q_edge, hside * sqrt(2.0), 0.0, &hz[1]);
    ratio[2] = drop_on_cube(q_vertex, hside * sqrt(3.0), 0.0, &hz[2]);
    for (int i = 0; i < 3; i++) {
        fprintf(stderr, "restitution on the cube's %s: %.4f (e = %g), horizontal speed %.2g\n",
                i == 0   ? "face"
                : i == 1 ? "edge"
                         : "vertex",
                ratio[i], e, hz[i]);
        ck_assert_double_lt(fabs(ratio[i] - e) / e, 0.02);
        /* the normal is vertical: the sphere comes straight back up */
        ck_assert_double_lt(hz[i], 1e-6);
    }
}
END_TEST

/* A sphere resting on a cube near its convex edges and corners, within
 * reach of them, feels only what it rests on: on the top face 2 mm from an
 * edge and from a corner, on a side face (gravity along -x) 2 mm from a
 * vertical edge, and on that vertical edge (gravity diagonal) 2 mm above the
 * bottom corner. One contact and one solver row (no near edge or corner
 * kept), no sideways push. */
START_TEST(near_convex_edge_only_the_face)
{
    const double r = 0.01, s2 = sqrt(0.5), g = 9.81;
    const struct {
        const char *what;
        double x[3], g[3];
    } cases[] = {
        {"top face near an edge", {0.048, 0, 0.05 + r - 1e-5}, {0, 0, -g}},
        {"top face near a corner", {0.048, 0.048, 0.05 + r - 1e-5}, {0, 0, -g}},
        {"side face near a vertical edge", {0.05 + r - 1e-5, -0.048, 0}, {-g, 0, 0}},
        {"vertical edge near a corner",
         {0.05 + s2 * (r - 1e-5), -0.05 - s2 * (r - 1e-5), -0.048},
         {-g * s2, g * s2, 0}},
    };
    for (int c = 0; c < 4; c++) {
        const double *x = cases[c].x, *gv = cases[c].g;
        ndem_job *job = test_job(
            "{\"scene\": {\"gravity\": [%.17g, %.17g, %.17g], " TEST_MATERIALS
            ", \"contact_materials\": [{\"materials\": [\"ore\", \"steel\"], \"restitution\": "
            "0.2, \"friction\": 0.5}], \"geometry\": [{\"type\": \"mesh\", \"material\": "
            "\"steel\", " CUBE_MESH "}], \"particles\": [{\"type\": \"list\", \"material\": "
            "\"ore\", \"spheres\": [[%.17g, %.17g, %.17g, %g]]}]}, \"solver\": {\"time_step\": "
            "5e-4, \"duration\": 0.1}}",
            gv[0], gv[1], gv[2], CUBE_ARGS(0.05), x[0], x[1], x[2], r);
        ndem_sim *sim = test_sim(job);
        double drift = 0, gn = sqrt(gv[0] * gv[0] + gv[1] * gv[1] + gv[2] * gv[2]);
        for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
            test_step(sim);
            ck_assert_int_eq(ndem_sim_stats(sim)->geometry_contacts, 1);
            ck_assert_int_eq(ndem_sim_stats(sim)->rows, 1);
            ndem_frame f;
            test_frame(sim, &f);
            double d[3], along = 0;
            for (int k = 0; k < 3; k++) d[k] = f.positions[k] - x[k], along += d[k] * gv[k] / gn;
            for (int k = 0; k < 3; k++) drift = fmax(drift, fabs(d[k] - along * gv[k] / gn));
            ndem_frame_free(&f);
        }
        fprintf(stderr, "%s: one contact, drift across gravity %.3g m\n", cases[c].what, drift);
        ck_assert_double_lt(drift, 1e-9);
        ndem_sim_destroy(sim);
        ndem_job_destroy(job);
    }
}
END_TEST

/* ---- (c) a bed in a mesh box and in the analytic box ---- */

/* A 5 x 5 x 8 lattice of spheres of radius 4 mm touching one another and
 * the walls of a 4 cm wide container settles under gravity by the Hertz
 * compression of its contacts; returns the mean centre height. The corner
 * columns touch two walls and the floor at once. */
static double bed_height(const char *container, double *top)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"ore\"], \"friction\": 0.5, \"restitution\": 0.2}, {\"materials\": [\"ore\", "
        "\"steel\"], \"friction\": 0.5, \"restitution\": 0.2}], \"geometry\": [%s],"
        "\"particles\": [{\"type\": \"lattice\", \"material\": \"ore\", \"min\": [0.004, "
        "0.004, 0.004], \"max\": [0.036, 0.036, 0.06], \"spacing\": 0.008, \"radius\": "
        "0.004}]}, \"solver\": {\"time_step\": 5e-4, \"duration\": 0.5, \"iterations\": 50}}",
        container);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) test_step(sim);
    ndem_frame f;
    test_frame(sim, &f);
    double mean = 0;
    *top = 0;
    for (long i = 0; i < f.count; i++) {
        mean += f.positions[3 * i + 2] / f.count;
        *top = fmax(*top, f.positions[3 * i + 2] + f.radii[i]);
    }
    ck_assert_int_eq(f.count, 200);
    ndem_frame_free(&f);
    ck_assert_double_lt(ndem_sim_stats(sim)->kinetic_energy, 1e-6);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return mean;
}

START_TEST(bed_in_mesh_box_as_in_box)
{
    char mesh[2048];
    /* the box [0, 0.04]^2 x [0, 0.12] as a closed cube mesh of side 0.12,
     * scaled by 1/3 and moved: the particles are inside it */
    snprintf(mesh, sizeof mesh,
             "{\"type\": \"mesh\", \"material\": \"steel\", \"position\": [0.02, 0.02, 0.06], "
             "\"scale\": %.17g, " CUBE_MESH "}",
             1.0 / 3.0, 0.06, 0.06, 0.18, 0.06, 0.06, 0.18, 0.06, 0.06, 0.18, 0.06, 0.06, 0.18,
             0.06, 0.06, 0.18, 0.06, 0.06, 0.18, 0.06, 0.06, 0.18, 0.06, 0.06, 0.18);
    double top_box, top_mesh;
    double h_box = bed_height("{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.04, 0.04, "
                              "0.12], \"inside\": true, \"material\": \"steel\"}",
                              &top_box);
    double h_mesh = bed_height(mesh, &top_mesh);
    fprintf(stderr,
            "bed: mean height %.6f m, top %.6f m in the box; %.6f m, %.6f m in the mesh box\n",
            h_box, top_box, h_mesh, top_mesh);
    /* settled below the 64 mm the lattice was built to (Hertz compression) */
    ck_assert_double_lt(top_box, 0.064);
    ck_assert_double_gt(top_box, 0.060);
    ck_assert_double_lt(fabs(h_mesh - h_box) / h_box, 0.005);
    ck_assert_double_lt(fabs(top_mesh - top_box) / top_box, 0.005);
}
END_TEST

/* ---- smooth DEM: the same hits ---- */

/* A sphere dropped with smooth DEM (Hertz) onto a 2 x 2 cm triangulated
 * floor comes to rest as on the analytic plane. */
static void dem_drop(const char *floor, double *z, double *vz_max)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"steel\"], \"restitution\": 0.5, \"friction\": 0.5}], \"geometry\": [%s],"
        "\"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [[0.013, "
        "0.007, 0.03, 0.01]]}]}, \"solver\": {\"method\": \"dem\", \"time_step\": 2e-5, "
        "\"duration\": 0.25}}",
        floor);
    ndem_sim *sim = test_sim(job);
    *vz_max = 0;
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        ndem_frame f;
        test_frame(sim, &f);
        *vz_max = fmax(*vz_max, f.velocities[2]);
        *z = f.positions[2];
        ndem_frame_free(&f);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(smooth_dem_on_mesh_as_on_plane)
{
    test_text t = {0};
    test_tprintf(&t, "{\"type\": \"mesh\", \"material\": \"steel\", ");
    floor_mesh(&t, -0.1, 0.1, -0.1, 0.1, 0.02);
    test_tprintf(&t, "}");
    double z_mesh, z_plane, up_mesh, up_plane;
    dem_drop(t.s, &z_mesh, &up_mesh);
    free(t.s);
    dem_drop("{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1], "
             "\"material\": \"steel\"}",
             &z_plane, &up_plane);
    fprintf(stderr,
            "smooth DEM: rest height %.9f m on the mesh, %.9f m on the plane; rebound "
            "%.4f, %.4f m/s\n",
            z_mesh, z_plane, up_mesh, up_plane);
    ck_assert_double_gt(up_plane, 0.1); /* it bounced */
    ck_assert_double_lt(fabs(up_mesh - up_plane), 1e-6);
    ck_assert_double_lt(fabs(z_mesh - z_plane), 1e-9);
    ck_assert_double_lt(z_plane, 0.01); /* resting on the floor, compressed */
}
END_TEST

/* ---- (e) checkpoint round trip ---- */

START_TEST(checkpoint_round_trip_with_mesh)
{
    test_text t = {0};
    test_tprintf(&t,
                 "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": "
                 "[\"ore\", \"steel\"], \"friction\": 0.5}], \"geometry\": [{\"type\": \"mesh\", "
                 "\"material\": \"steel\", ");
    floor_mesh(&t, 0, 0.1, 0, 0.1, 0.01);
    test_tprintf(&t,
                 "}], \"particles\": [{\"type\": \"random\", \"material\": \"ore\", \"min\": "
                 "[0.01, 0.01, 0.005], \"max\": [0.09, 0.09, 0.05], \"count\": 60, \"radius\": "
                 "0.004, \"seed\": 3}]}, \"solver\": {\"time_step\": 5e-4, \"duration\": 0.2}}");
    ndem_job *job = test_job("%s", t.s);
    free(t.s);
    ndem_sim *a = test_sim(job);
    for (int i = 0; i < 150; i++) test_step(a); /* landed: contacts with history */
    ck_assert_int_gt(ndem_sim_stats(a)->geometry_contacts, 0);
    void *buf;
    size_t len;
    ck_assert_int_eq(ndem_sim_checkpoint(a, &buf, &len), 0);
    char err[256] = "";
    ndem_sim *b = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(b != NULL, "restore failed: %s", err);
    ck_assert_uint_eq(ndem_sim_state_hash(a), ndem_sim_state_hash(b));
    for (int i = 0; i < 100; i++) {
        test_step(a);
        test_step(b);
    }
    ck_assert_uint_eq(ndem_sim_state_hash(a), ndem_sim_state_hash(b));
    /* the document written back (the placed mesh inline) is the same scene */
    char *doc = ndem_job_to_json(job);
    ndem_job *again = test_job("%s", doc);
    free(doc);
    ndem_sim *c = ndem_sim_restore(&again->scene, buf, len, err, sizeof err);
    ck_assert_msg(c != NULL, "restore into the reparsed job failed: %s", err);
    ndem_sim_destroy(c);
    ndem_job_destroy(again);
    free(buf);
    ndem_sim_destroy(a);
    ndem_sim_destroy(b);
    ndem_job_destroy(job);
}
END_TEST

/* ---- format 3 checkpoints still restore ---- */

START_TEST(checkpoint_format_3_still_restores)
{
    for (int dem = 0; dem < 2; dem++) {
        ndem_job *job = test_job(
            "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": "
            "[\"ore\", \"steel\"], \"friction\": 0.5}], \"geometry\": [{\"type\": \"box\", "
            "\"min\": [0, 0, 0], \"max\": [0.1, 0.1, 0.2], \"inside\": true, \"material\": "
            "\"steel\"}], \"particles\": [{\"type\": \"random\", \"material\": \"ore\", "
            "\"min\": [0.01, 0.01, 0.005], \"max\": [0.09, 0.09, 0.05], \"count\": 60, "
            "\"radius\": 0.004, \"seed\": 3}]}, \"solver\": {\"method\": \"%s\", "
            "\"time_step\": %g, \"duration\": 0.2}}",
            dem ? "dem" : "ndem", dem ? 2e-5 : 5e-4);
        ndem_sim *a = test_sim(job);
        for (int i = 0; i < (dem ? 5000 : 150); i++) test_step(a);
        ck_assert_int_gt(ndem_sim_stats(a)->geometry_contacts, 0);
        void *buf;
        size_t len;
        ck_assert_int_eq(ndem_sim_checkpoint(a, &buf, &len), 0);
        bytes old = ndem_test_to_format3(buf, len, ndem_sim_stats(a)->particles, 1, dem);
        ck_assert_uint_lt(old.len, len); /* the keys took 4 bytes less each */
        char err[256] = "";
        ndem_sim *b = ndem_sim_restore(&job->scene, old.p, old.len, err, sizeof err);
        ck_assert_msg(b != NULL, "format 3 restore failed: %s", err);
        ck_assert_uint_eq(ndem_sim_state_hash(a), ndem_sim_state_hash(b));
        for (int i = 0; i < 50; i++) {
            test_step(a);
            test_step(b);
        }
        ck_assert_uint_eq(ndem_sim_state_hash(a), ndem_sim_state_hash(b));
        free(old.p);
        free(buf);
        ndem_sim_destroy(a);
        ndem_sim_destroy(b);
        ndem_job_destroy(job);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mesh_contact");
    TCase *tc = tcase_create("contact");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, floor_hits_equal_the_plane);
    tcase_add_test(tc, incline_rolls_across_edges);
    tcase_add_test(tc, restitution_on_face_edge_vertex);
    tcase_add_test(tc, near_convex_edge_only_the_face);
    tcase_add_test(tc, bed_in_mesh_box_as_in_box);
    tcase_add_test(tc, smooth_dem_on_mesh_as_on_plane);
    tcase_add_test(tc, checkpoint_round_trip_with_mesh);
    tcase_add_test(tc, checkpoint_format_3_still_restores);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
