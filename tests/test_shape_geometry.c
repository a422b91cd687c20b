/* test_shape_geometry.c - shaped particles against scene geometry in smooth
 * DEM (docs/shapes.md, "Shapes against geometry"): a cube resting on a
 * solid box's top, on the floor of an inside cylinder, on a solid
 * cylinder's top and on a triangulated tray at the Hertz height of its
 * weight (1%), against the side wall of an inside cylinder, and sliding on
 * a triangulated incline at the analytic plane's g (sin - mu cos) (2%). */
#include "scene.h"
#include "shape_scenes.h"
#include "testutil.h"
#include "textbuf.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A mesh of the rectangle [-u0, u0] x [-w, w] cut into squares of side
 * cell (two triangles each), its u axis along (cos th, 0, sin th): th = 0 a
 * flat tray at z = 0, else an incline whose normal is (-sin th, 0, cos th). */
static void slab_mesh(test_text *t, double u0, double w, double cell, double th)
{
    int nu = (int)lround(2 * u0 / cell), nw = (int)lround(2 * w / cell);
    test_tprintf(t, "{\"type\": \"mesh\", \"material\": \"s\", \"vertices\": [");
    for (int j = 0; j <= nw; j++)
        for (int i = 0; i <= nu; i++) {
            double u = -u0 + i * cell, y = -w + j * cell;
            test_tprintf(t, "%s[%.17g, %.17g, %.17g]", i + j ? ", " : "", u * cos(th), y,
                         u * sin(th));
        }
    test_tprintf(t, "], \"triangles\": [");
    for (int j = 0; j < nw; j++)
        for (int i = 0; i < nu; i++) {
            int a = j * (nu + 1) + i, b = a + 1, c = a + nu + 2, d = a + nu + 1;
            test_tprintf(t, "%s[%d, %d, %d], [%d, %d, %d]", i + j ? ", " : "", a, b, c, a, c, d);
        }
    test_tprintf(t, "]}");
}

/* A cube of edge 0.1 (2.7 kg) dropped flat from 1 mm at (x0, y0, 0.05)
 * onto `geometry` rests at 0.05 minus the Hertz overlap of its weight (its
 * 4 corners each carry m g / 4 on a quarter of the stiffness: delta =
 * (m g / k_n)^(2/3), d* its volume-equivalent diameter) within 1%, level
 * and without drifting. */
static void cube_rests_on(const char *what, const char *geometry, double x0, double y0,
                          const char *model)
{
    const double edge = 0.1, rho = 2700, e_mod = 1e8, nu = 0.3;
    const double r = 0.5 * edge * sqrt(3.0), gap = 1e-3, h = 2e-5;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"s\", \"density\": %g, "
        "\"young_modulus\": %g, \"poisson_ratio\": %g}], \"contact_materials\": [{\"materials\": "
        "[\"s\", \"s\"], \"restitution\": 0.2}], \"geometry\": [%s], \"particles\": [{\"type\": "
        "\"list\", \"spheres\": [[%.17g,%.17g,%g,%g]], \"shape\": " CUBE "}]}, \"solver\": "
        "{\"method\": \"dem\", \"contact_model\": \"%s\", \"time_step\": %g, \"duration\": 0.4}}",
        -G, rho, e_mod, nu, geometry, x0, y0, 0.5 * edge + gap, r, model, h);
    ndem_sim *sim = test_sim(job);
    for (long k = 0; k < ndem_sim_total_steps(sim); k++) test_step(sim);
    double m = rho * edge * edge * edge, d_eq = 2 * cbrt(3 * edge * edge * edge / (4 * M_PI));
    double kn = e_mod * sqrt(2 * d_eq) / (3 * (1 - nu * nu));
    double delta = pow(m * G / kn, 2.0 / 3.0);
    ndem_frame f;
    test_frame(sim, &f);
    double z = f.positions[2],
           w = sqrt(pow(f.angular_velocities[0], 2) + pow(f.angular_velocities[1], 2) +
                    pow(f.angular_velocities[2], 2));
    ck_assert_msg(fabs((0.5 * edge - z) / delta - 1) < 0.01, "%s: overlap %g, Hertz %g", what,
                  0.5 * edge - z, delta);
    ck_assert_msg(w < 1e-6, "%s: still turning at %g rad/s", what, w);
    ck_assert_msg(fabs(f.positions[0] - x0) < 1e-9 && fabs(f.positions[1] - y0) < 1e-9,
                  "%s: drifted to %g, %g", what, f.positions[0], f.positions[1]);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

START_TEST(cube_rests_on_solid_box)
{
    cube_rests_on("solid box",
                  "{\"type\": \"box\", \"min\": [-0.3,-0.3,-0.2], \"max\": [0.3,0.3,0], "
                  "\"material\": \"s\"}",
                  0.01, -0.02, "hertz");
    /* a box top smaller than the cube's face: its 4 top corners carry the
     * cube instead (the separating-axis manifold), the same height */
    cube_rests_on("small box",
                  "{\"type\": \"box\", \"min\": [-0.03,-0.03,-0.2], \"max\": [0.03,0.03,0], "
                  "\"material\": \"s\"}",
                  0, 0, "hunt_crossley");
}
END_TEST

START_TEST(cube_rests_in_and_on_cylinders)
{
    cube_rests_on("inside cylinder",
                  "{\"type\": \"cylinder\", \"inside\": true, \"center\": [0,0,0.25], \"axis\": "
                  "[0,0,1], \"radius\": 0.2, \"length\": 0.5, \"material\": \"s\"}",
                  0.03, 0.02, "hertz");
    cube_rests_on("solid cylinder",
                  "{\"type\": \"cylinder\", \"center\": [0,0,-0.25], \"axis\": [0,0,1], "
                  "\"radius\": 0.2, \"length\": 0.5, \"material\": \"s\"}",
                  0.03, 0.02, "hertz");
    /* across a lying solid cylinder (axis y): the bottom face's two edges
     * across the axis carry it at their points nearest the axis */
    cube_rests_on("lying cylinder",
                  "{\"type\": \"cylinder\", \"center\": [0,0,-0.2], \"axis\": [0,1,0], "
                  "\"radius\": 0.2, \"length\": 0.5, \"material\": \"s\"}",
                  0, 0.02, "hertz");
}
END_TEST

START_TEST(cube_rests_on_mesh_tray)
{
    /* cells of 0.04: the cube's corners sit on different triangles, and its
     * face spans the shared edges between them */
    test_text t = {0};
    slab_mesh(&t, 0.2, 0.2, 0.04, 0);
    cube_rests_on("mesh tray", t.s, 0.013, -0.007, "hertz");
    cube_rests_on("mesh tray", t.s, 0.013, -0.007, "hunt_crossley");
    free(t.s);
}
END_TEST

/* A cube (edge 0.1, mu 0.5) at rest on the incline of 29 degrees made of
 * triangles (cells of 0.05, so its corners cross shared edges as it
 * slides) accelerates at g (sin - mu cos) within 2% from 0.25 s to 0.5 s,
 * as on the analytic plane (test_shape_body's slope_stick_slide_tip). */
START_TEST(cube_slides_on_mesh_incline)
{
    const double th = 29 * M_PI / 180, mu = 0.5, s = 0.05, h = 1e-4;
    double n[3] = {-sin(th), 0, cos(th)}, down[3] = {-cos(th), 0, -sin(th)}, x[3];
    for (int q = 0; q < 3; q++)
        x[q] = (s + 1e-6) * n[q] + 0.3 * cos(th) * (q == 0) + 0.3 * sin(th) * (q == 2);
    test_text t = {0};
    slab_mesh(&t, 0.5, 0.15, 0.05, th);
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"s\", \"density\": 2700, "
        "\"young_modulus\": 1e8}], \"contact_materials\": [{\"materials\": [\"s\", \"s\"], "
        "\"friction\": %g, \"restitution\": 0.2}], \"geometry\": [%s], \"particles\": "
        "[{\"type\": \"list\", \"spheres\": [[%.17g,%.17g,%.17g,%.17g]], \"orientations\": "
        "[[%.17g,0,%.17g,0]], \"shape\": " CUBE "}]}, \"solver\": {\"method\": \"dem\", "
        "\"contact_model\": \"hunt_crossley\", \"time_step\": %g, \"duration\": 0.5}}",
        -G, mu, t.s, x[0], x[1], x[2], s * sqrt(3.0), cos(-th / 2), sin(-th / 2), h);
    free(t.s);
    ndem_sim *sim = test_sim(job);
    long at1 = (long)(0.25 / h + 0.5);
    double v1 = 0, v2 = 0;
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        ndem_frame f;
        test_frame(sim, &f);
        double v = f.velocities[0] * down[0] + f.velocities[2] * down[2];
        if (i + 1 == at1) v1 = v;
        v2 = v;
        ndem_frame_free(&f);
    }
    double a = (v2 - v1) / 0.25, want = G * (sin(th) - mu * cos(th));
    ck_assert_msg(fabs(a / want - 1) < 0.02, "mesh incline: %g m/s^2 down, want %g", a, want);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

static Suite *shape_geometry_suite(void)
{
    Suite *s = suite_create("shape_geometry");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, cube_rests_on_solid_box);
    tcase_add_test(tc, cube_rests_in_and_on_cylinders);
    tcase_add_test(tc, cube_rests_on_mesh_tray);
    tcase_add_test(tc, cube_slides_on_mesh_incline);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(shape_geometry_suite()); }
