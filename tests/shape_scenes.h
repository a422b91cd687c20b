/* shape_scenes.h - the shaped-particle scenes validated once per method, by
 * test_shape_body (smooth DEM) and test_shape_ndem (NDEM). Each takes the
 * solver's method members as JSON text ("\"method\": \"ndem\"", or
 * "\"method\": \"dem\", \"contact_model\": \"hunt_crossley\""), so that both
 * suites run the same scene and differ only where the methods do. */
#ifndef NDEM_TEST_SHAPE_SCENES_H
#define NDEM_TEST_SHAPE_SCENES_H

#include "scene.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define G 9.81
#define CUBE                                                                                       \
    "{\"type\": \"polyhedron\", \"vertices\": [[-1,-1,-1],[1,-1,-1],[1,1,-1],[-1,1,-1],"           \
    "[-1,-1,1],[1,-1,1],[1,1,1],[-1,1,1]]}"

/* The seed's non-convex block (Muth et al., section 6): an L of volume
 * 0.001 m^3 (2.7 kg), a compound of a base 2a x a x a and an upright
 * a x a x a on its back half (3 a^3 = 0.001), sent up the incline lying on
 * its base: the stop does not depend on the shape of a block sliding on a
 * face, so it stops at the cube's times within 2% and slides back or rests
 * as the cube does. Its centre of mass is 5a/6 above the base (body frame:
 * base z in [-a, 0], centroid at z = -a/6); its bounding radius about the
 * body-frame origin |(a, a/2, a)| = 1.5 a. */
#define L_BLOCK                                                                                    \
    "{\"type\": \"compound\", \"pieces\": [[[-1,-0.5,-1],[1,-0.5,-1],[1,0.5,-1],[-1,0.5,-1],"      \
    "[-1,-0.5,0],[1,-0.5,0],[1,0.5,0],[-1,0.5,0]], [[-1,-0.5,0],[0,-0.5,0],[0,0.5,0],[-1,0.5,0],"  \
    "[-1,-0.5,1],[0,-0.5,1],[0,0.5,1],[-1,0.5,1]]]}"

/* The cube dropped flat on a plane and what theory says of its rest. */
typedef struct shape_cube_rest {
    double edge, m;      /* edge length, mass */
    double delta;        /* the Hertz overlap of its weight on its 4 corners */
    double delta_linear; /* the linear law's: m g / k_n (Woo's connector, k_n = E pi r_eq / 2) */
} shape_cube_rest;

/* A 0.1 m cube 1 mm above a plane (restitution 0.2) under `solver` at step
 * h for `duration`; *want: its edge, mass and Hertz overlap (each corner
 * carries m g / 4 on a quarter of the stiffness: delta = (m g / K)^(2/3)). */
static inline ndem_job *shape_cube_on_plane(const char *solver, double h, double duration,
                                            shape_cube_rest *want)
{
    const double edge = 0.1, rho = 2700, e_mod = 1e8, nu = 0.3;
    const double r = 0.5 * edge * sqrt(3.0), gap = 1e-3;
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"s\", \"density\": %g, "
        "\"young_modulus\": %g, \"poisson_ratio\": %g}], \"contact_materials\": [{\"materials\": "
        "[\"s\", \"s\"], \"restitution\": 0.2}], \"geometry\": [{\"type\": \"plane\", \"point\": "
        "[0,0,0], \"normal\": [0,0,1], \"material\": \"s\"}], \"particles\": [{\"type\": "
        "\"list\", \"spheres\": [[0,0,%g,%g]], \"shape\": " CUBE "}]}, \"solver\": {%s, "
        "\"time_step\": %g, \"duration\": %g}}",
        -G, rho, e_mod, nu, 0.5 * edge + gap, r, solver, h, duration);
    double m = rho * edge * edge * edge, d_eq = 2 * cbrt(3 * edge * edge * edge / (4 * M_PI));
    double kn = e_mod * sqrt(2 * d_eq) / (3 * (1 - nu * nu)); /* the wall counts as flat: d* = d */
    want->edge = edge;
    want->m = m;
    want->delta = pow(m * G / kn, 2.0 / 3.0);
    /* two lengths r_eq = d_eq / 2 in series, cross-section pi r_eq^2 */
    want->delta_linear = m * G / (e_mod * M_PI * 0.25 * d_eq);
    return job;
}

/* The block of Muth et al. (section 6): `shape` (bounding radius r, its
 * centre of mass `height` above its base) sent up a 30 degree incline at
 * 5 m/s with friction mu under `solver` at step h for `duration` stops
 * after `want` s within 2%; then it slides back down over the last 0.25 s
 * at g (sin - mu cos) within 2% (mu below tan 30 = 0.577) or rests, slower
 * than rest_tol m/s at the end. */
static inline void shape_incline(const char *solver, const char *shape, double r, double height,
                                 double mu, double want, double h, double duration, double rest_tol)
{
    const double th = M_PI / 6, v0 = 5;
    double n[3] = {-sin(th), 0, cos(th)}, up[3] = {cos(th), 0, sin(th)};
    double x[3];
    for (int k = 0; k < 3; k++) x[k] = (height + 1e-6) * n[k];
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"s\", \"density\": 2700, "
        "\"young_modulus\": 1e8}], \"contact_materials\": [{\"materials\": [\"s\", \"s\"], "
        "\"friction\": %g, \"restitution\": 0.2}], \"geometry\": [{\"type\": \"plane\", "
        "\"point\": [0,0,0], \"normal\": [%.17g,0,%.17g], \"material\": \"s\"}], \"particles\": "
        "[{\"type\": \"list\", \"spheres\": [[%.17g,%.17g,%.17g,%.17g]], \"velocities\": "
        "[[%.17g,0,%.17g]], \"orientations\": [[%.17g,0,%.17g,0]], \"shape\": %s}]}, "
        "\"solver\": {%s, \"time_step\": %g, \"duration\": %g}}",
        -G, mu, n[0], n[2], x[0], x[1], x[2], r, v0 * up[0], v0 * up[2], cos(-th / 2), sin(-th / 2),
        shape, solver, h, duration);
    ndem_sim *sim = test_sim(job);
    double t_stop = -1, vend = 0, v_late = 0;
    long late = (long)((duration - 0.25) / h + 0.5);
    for (long k = 0; k < ndem_sim_total_steps(sim); k++) {
        test_step(sim);
        ndem_frame f;
        test_frame(sim, &f);
        double v = f.velocities[0] * up[0] + f.velocities[2] * up[2];
        if (t_stop < 0 && v <= 0) t_stop = f.time;
        vend = v;
        if (k + 1 == late) v_late = v;
        ndem_frame_free(&f);
    }
    ck_assert_msg(fabs(t_stop / want - 1) < 0.02, "mu %g: stopped at %g s, want %g", mu, t_stop,
                  want);
    if (mu < tan(th)) { /* slides back over the last 0.25 s at g (sin - mu cos) */
        double acc = (vend - v_late) / 0.25, back = -G * (sin(th) - mu * cos(th));
        ck_assert_msg(vend < 0 && fabs(acc / back - 1) < 0.02, "mu %g: %g m/s^2 back, want %g", mu,
                      acc, back);
    } else {
        ck_assert_msg(fabs(vend) < rest_tol, "mu %g: still moving at %g m/s", mu, vend);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

/* A box of half extents s (1, 1, k) at rest on a plane tilted by th (about
 * y), friction mu, under `solver` at step h for `duration`: its speed down
 * the slope at t1 and at the end, the angle between its axis and the
 * plane's normal at the end and (where tilt_max is not NULL) its largest. */
static inline void shape_on_slope(const char *solver, double th, double mu, double s, double k,
                                  double h, double duration, double t1, double *v1, double *v2,
                                  double *tilt, double *tilt_max)
{
    if (tilt_max) *tilt_max = 0;
    const double r = s * sqrt(2.0 + k * k);
    double n[3] = {-sin(th), 0, cos(th)}, down[3] = {-cos(th), 0, -sin(th)}, x[3];
    for (int q = 0; q < 3; q++) x[q] = (k * s + 1e-6) * n[q];
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"s\", \"density\": 2700, "
        "\"young_modulus\": 1e8}], \"contact_materials\": [{\"materials\": [\"s\", \"s\"], "
        "\"friction\": %g, \"restitution\": 0.2}], \"geometry\": [{\"type\": \"plane\", "
        "\"point\": [0,0,0], \"normal\": [%.17g,0,%.17g], \"material\": \"s\"}], \"particles\": "
        "[{\"type\": \"list\", \"spheres\": [[%.17g,%.17g,%.17g,%.17g]], \"orientations\": "
        "[[%.17g,0,%.17g,0]], \"shape\": {\"type\": \"polyhedron\", \"vertices\": [[-1,-1,-%g],"
        "[1,-1,-%g],[1,1,-%g],[-1,1,-%g],[-1,-1,%g],[1,-1,%g],[1,1,%g],[-1,1,%g]]}}]}, \"solver\": "
        "{%s, \"time_step\": %g, \"duration\": %g}}",
        -G, mu, n[0], n[2], x[0], x[1], x[2], r, cos(-th / 2), sin(-th / 2), k, k, k, k, k, k, k, k,
        solver, h, duration);
    ndem_sim *sim = test_sim(job);
    long at1 = (long)(t1 / h + 0.5);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        ndem_frame f;
        test_frame(sim, &f);
        double v = f.velocities[0] * down[0] + f.velocities[2] * down[2];
        if (i + 1 == at1) *v1 = v;
        *v2 = v;
        const double *q = f.orientations; /* the box's axis R e_z against n */
        double ez[3] = {2 * (q[1] * q[3] + q[0] * q[2]), 2 * (q[2] * q[3] - q[0] * q[1]),
                        1 - 2 * (q[1] * q[1] + q[2] * q[2])};
        *tilt = acos(fmin(1.0, ez[0] * n[0] + ez[1] * n[1] + ez[2] * n[2]));
        if (tilt_max) *tilt_max = fmax(*tilt_max, *tilt);
        ndem_frame_free(&f);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

/* Mixed pairs at rest and their Hertz sinkings: the clump's (members of
 * radius rs), the cube's under the sphere, the sphere's on the cube. */
typedef struct shape_mixed_rest {
    double rs, delta_c, delta_q, delta_s;
} shape_mixed_rest;

/* A clump of two spheres lying on a plane (each member carries half the
 * weight on half the stiffness, d* its volume-equivalent diameter) and a
 * sphere on a cube on the plane (the sphere-cube pair's d* from the
 * sphere's diameter and the cube's d_eq; the cube carries both weights),
 * under `solver` at step h for `duration`; *want: their Hertz sinkings. */
static inline ndem_job *shape_mixed_on_plane(const char *solver, double h, double duration,
                                             shape_mixed_rest *want)
{
    const double e_mod = 1e8, nu = 0.3, rho = 2700;
    const double rs = 0.01; /* the clump: members r 1 at x = +-1.5, bounding radius 0.025 */
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,%g], \"materials\": [{\"name\": \"s\", \"density\": %g, "
        "\"young_modulus\": %g, \"poisson_ratio\": %g}], \"contact_materials\": [{\"materials\": "
        "[\"s\", \"s\"], \"restitution\": 0.2}], \"geometry\": [{\"type\": \"plane\", \"point\": "
        "[0,0,0], \"normal\": [0,0,1], \"material\": \"s\"}], \"particles\": [{\"type\": "
        "\"list\", \"spheres\": [[0,0,%g,0.025]], \"shape\": {\"type\": \"clump\", \"spheres\": "
        "[[-1.5,0,0,1],[1.5,0,0,1]]}}, {\"type\": \"list\", \"spheres\": [[0.2,0,%g,%g]], "
        "\"shape\": " CUBE "}, {\"type\": \"list\", \"spheres\": [[0.2,0,%g,0.02]]}]}, "
        "\"solver\": {%s, \"time_step\": %g, \"duration\": %g}}",
        -G, rho, e_mod, nu, rs + 2e-4, 0.05 + 2e-4, 0.05 * sqrt(3.0), 0.1 + 0.02 + 5e-4, solver, h,
        duration);
    double k_of = 1.0 / (3 * (1 - nu * nu)); /* k_n = E sqrt(2 d*) k_of */
    double mc = 2 * rho * 4.0 / 3.0 * M_PI * rs * rs * rs;
    double dc = 2 * cbrt(3 * mc / rho / (4 * M_PI));
    double kc = e_mod * sqrt(2 * dc) * k_of;
    double mcube = rho * 1e-3, ms = rho * 4.0 / 3.0 * M_PI * 0.02 * 0.02 * 0.02;
    double dq = 2 * cbrt(3 * 1e-3 / (4 * M_PI)), ds = 0.04;
    double kq = e_mod * sqrt(2 * dq) * k_of, dqs = 1.0 / (1.0 / dq + 1.0 / ds);
    double kqs = e_mod * sqrt(2 * dqs) * k_of;
    want->rs = rs;
    want->delta_c = pow(mc * G / kc, 2.0 / 3.0);
    want->delta_q = pow((mcube + ms) * G / kq, 2.0 / 3.0);
    want->delta_s = pow(ms * G / kqs, 2.0 / 3.0);
    return job;
}

/* Runs the mixed pairs to the end into *f (the caller frees it): the
 * shape indices are the clump's, the cube's and none, and the clump and
 * the cube sink by their Hertz overlaps within 1%; the sphere on the cube
 * is left to the caller. */
static inline void shape_mixed_rest_run(const char *solver, double h, double duration,
                                        ndem_frame *f, shape_mixed_rest *w)
{
    ndem_job *job = shape_mixed_on_plane(solver, h, duration, w);
    ndem_sim *sim = test_sim(job);
    for (long k = 0; k < ndem_sim_total_steps(sim); k++) test_step(sim);
    test_frame(sim, f);
    ck_assert_ptr_nonnull(f->shapes);
    ck_assert_int_eq(f->shapes[0], 0);
    ck_assert_int_eq(f->shapes[1], 1);
    ck_assert_int_eq(f->shapes[2], -1);
    const double rs = w->rs, delta_c = w->delta_c, delta_q = w->delta_q;
    ck_assert_msg(fabs((rs - f->positions[2]) / delta_c - 1) < 0.01, "clump sank %g, Hertz %g",
                  rs - f->positions[2], delta_c);
    ck_assert_msg(fabs((0.05 - f->positions[5]) / delta_q - 1) < 0.01, "cube sank %g, Hertz %g",
                  0.05 - f->positions[5], delta_q);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

/* Runs job to step `at`, checkpoints, restores the checkpoint into a new
 * simulation and runs that on to step `steps`: its state hash, to compare
 * with a run never stopped. */
static inline uint64_t shape_restored_hash(const ndem_job *job, long at, long steps)
{
    ndem_sim *sim = test_sim(job);
    for (long k = 0; k < at; k++) test_step(sim);
    void *buf;
    size_t len;
    ck_assert_int_eq(ndem_sim_checkpoint(sim, &buf, &len), 0);
    ndem_sim_destroy(sim);
    char err[256] = "";
    sim = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(sim != NULL, "restore: %s", err);
    free(buf);
    for (long k = at; k < steps; k++) test_step(sim);
    uint64_t hsh = ndem_sim_state_hash(sim);
    ndem_sim_destroy(sim);
    return hsh;
}

#endif
