/* shape_geo_scenes.h - shaped particles against scene geometry, the scenes
 * validated once per method: by test_shape_geometry (smooth DEM) and
 * test_shape_ndem (NDEM). Each takes the solver's method members as JSON
 * text (as shape_scenes.h's), so both suites run the same scene. */
#ifndef NDEM_TEST_SHAPE_GEO_SCENES_H
#define NDEM_TEST_SHAPE_GEO_SCENES_H

#include "shape_scenes.h"
#include "textbuf.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

/* A mesh of the rectangle [-u0, u0] x [-w, w] cut into squares of side
 * cell (two triangles each), its u axis along (cos th, 0, sin th): th = 0 a
 * flat tray at z = 0, else an incline whose normal is (-sin th, 0, cos th). */
static inline void shape_slab_mesh(test_text *t, double u0, double w, double cell, double th)
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
 * onto `geometry` (geometry 0) under `solver` at step h for 0.4 s rests at
 * 0.05 minus the Hertz overlap of its weight (its 4 corners each carry
 * m g / 4 on a quarter of the stiffness: delta = (m g / k_n)^(2/3), d* its
 * volume-equivalent diameter) within 1%, level (slower than 1e-6 rad/s)
 * and without drifting (1e-9 m). Returns the vertical load on the geometry
 * over the cube's weight. */
static inline double shape_cube_rests_on(const char *what, const char *geometry, double x0,
                                         double y0, const char *solver, double h)
{
    const double edge = 0.1, rho = 2700, e_mod = 1e8, nu = 0.3;
    const double r = 0.5 * edge * sqrt(3.0), gap = 1e-3;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"s\", \"density\": %g, "
        "\"young_modulus\": %g, \"poisson_ratio\": %g}], \"contact_materials\": [{\"materials\": "
        "[\"s\", \"s\"], \"restitution\": 0.2}], \"geometry\": [%s], \"particles\": [{\"type\": "
        "\"list\", \"spheres\": [[%.17g,%.17g,%g,%g]], \"shape\": " CUBE "}]}, \"solver\": "
        "{%s, \"time_step\": %g, \"duration\": 0.4}}",
        -G, rho, e_mod, nu, geometry, x0, y0, 0.5 * edge + gap, r, solver, h);
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
    double load[3], torque[3];
    ck_assert_int_eq(ndem_sim_geometry_load(sim, 0, load, torque), 0);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return -load[2] / (m * G);
}

/* A cube (edge 0.1, mu 0.5) at rest on the incline of 29 degrees made of
 * triangles (cells of 0.05, so its corners cross shared edges as it
 * slides) under `solver` at step h: its acceleration down the slope from
 * 0.25 s to 0.5 s, over g (sin - mu cos) (the analytic plane's). */
static inline double shape_cube_slides_on_mesh(const char *solver, double h)
{
    const double th = 29 * M_PI / 180, mu = 0.5, s = 0.05;
    double n[3] = {-sin(th), 0, cos(th)}, down[3] = {-cos(th), 0, -sin(th)}, x[3];
    for (int q = 0; q < 3; q++)
        x[q] = (s + 1e-6) * n[q] + 0.3 * cos(th) * (q == 0) + 0.3 * sin(th) * (q == 2);
    test_text t = {0};
    shape_slab_mesh(&t, 0.5, 0.15, 0.05, th);
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"s\", \"density\": 2700, "
        "\"young_modulus\": 1e8}], \"contact_materials\": [{\"materials\": [\"s\", \"s\"], "
        "\"friction\": %g, \"restitution\": 0.2}], \"geometry\": [%s], \"particles\": "
        "[{\"type\": \"list\", \"spheres\": [[%.17g,%.17g,%.17g,%.17g]], \"orientations\": "
        "[[%.17g,0,%.17g,0]], \"shape\": " CUBE "}]}, \"solver\": {%s, \"time_step\": %g, "
        "\"duration\": 0.5}}",
        -G, mu, t.s, x[0], x[1], x[2], s * sqrt(3.0), cos(-th / 2), sin(-th / 2), solver, h);
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
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return (v2 - v1) / 0.25 / (G * (sin(th) - mu * cos(th)));
}

/* The geometry of the scenes above. */
#define SHAPE_SOLID_BOX                                                                            \
    "{\"type\": \"box\", \"min\": [-0.3,-0.3,-0.2], \"max\": [0.3,0.3,0], \"material\": \"s\"}"
/* a box top smaller than the cube's face: its 4 top corners carry the cube */
#define SHAPE_SMALL_BOX                                                                            \
    "{\"type\": \"box\", \"min\": [-0.03,-0.03,-0.2], \"max\": [0.03,0.03,0], \"material\": "      \
    "\"s\"}"
#define SHAPE_INSIDE_CYLINDER                                                                      \
    "{\"type\": \"cylinder\", \"inside\": true, \"center\": [0,0,0.25], \"axis\": [0,0,1], "       \
    "\"radius\": 0.2, \"length\": 0.5, \"material\": \"s\"}"
#define SHAPE_SOLID_CYLINDER                                                                       \
    "{\"type\": \"cylinder\", \"center\": [0,0,-0.25], \"axis\": [0,0,1], \"radius\": 0.2, "       \
    "\"length\": 0.5, \"material\": \"s\"}"
/* lying (axis y): the bottom face's two edges across the axis carry the
 * cube at their points nearest the axis */
#define SHAPE_LYING_CYLINDER                                                                       \
    "{\"type\": \"cylinder\", \"center\": [0,0,-0.2], \"axis\": [0,1,0], \"radius\": 0.2, "        \
    "\"length\": 0.5, \"material\": \"s\"}"

#endif
