/* scene.h - builds jobs for the tests from JSON text (through the real
 * parser) and runs them. */
#ifndef NDEM_TEST_SCENE_H
#define NDEM_TEST_SCENE_H

#include "job.h"
#include "ndem.h"

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses a printf-formatted job document; fails the test on any error. */
static inline ndem_job *test_job(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    ndem_job_status st = ndem_job_parse(text, (size_t)n, &job, &errs);
    for (int i = 0; i < errs.count; i++)
        fprintf(stderr, "test job: %s: %s\n", errs.items[i].pointer, errs.items[i].message);
    ndem_job_errors_clear(&errs);
    free(text);
    ck_assert_int_eq(st, NDEM_JOB_OK);
    return job;
}

static inline ndem_job *test_job_file(const char *path)
{
    size_t len;
    char *text = ndem_read_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    ndem_job_status st = ndem_job_parse(text, len, &job, &errs);
    ndem_job_errors_clear(&errs);
    free(text);
    ck_assert_int_eq(st, NDEM_JOB_OK);
    return job;
}

static inline ndem_sim *test_sim(const ndem_job *job)
{
    char err[256] = "";
    ndem_sim *sim = ndem_sim_create(&job->scene, err, sizeof err);
    ck_assert_msg(sim != NULL, "create failed: %s", err);
    return sim;
}

static inline void test_step(ndem_sim *sim)
{
    ndem_status st = ndem_sim_step(sim);
    ck_assert_msg(st == NDEM_OK, "step failed: %s", ndem_sim_error(sim));
}

/* The current frame (ndem_frame_free); fails the test when it cannot be
 * copied. */
static inline void test_frame(const ndem_sim *sim, ndem_frame *f)
{
    ck_assert_msg(ndem_sim_copy_frame(sim, f) == 0, "ndem_sim_copy_frame failed");
}

/* Runs a dropped sphere (body 0) to the end: *landing gets its fastest
 * downward vz before it first moves up, *rebound its fastest upward vz
 * after. Returns 1 when it bounced. */
static inline int test_drop(ndem_sim *sim, double *landing, double *rebound)
{
    double vmin = 0, vmax_after = 0;
    int bounced = 0;
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) {
        test_step(sim);
        ndem_frame f;
        test_frame(sim, &f);
        double vz = f.velocities[2];
        ndem_frame_free(&f);
        if (!bounced && vz < vmin) vmin = vz;
        if (vz > 0) bounced = 1;
        if (bounced && vz > vmax_after) vmax_after = vz;
    }
    *landing = vmin;
    *rebound = vmax_after;
    return bounced;
}

/* Hertz height of a column of n spheres (the first generator's radius, the
 * first two materials: spheres and plane) on a plane under the scene's
 * gravity: each contact carries the weight above it, k delta^(3/2) = load,
 * k = E sqrt(2 d*) / (3 (1 - nu^2)). */
static inline double hertz_column_height(const ndem_job *job, int n)
{
    const ndem_scene_def *s = &job->scene;
    double r = s->generators[0].spheres[3];
    const ndem_material_def *ore = &s->materials[0], *steel = &s->materials[1];
    double nu = ore->poisson_ratio;
    double m = ore->density * 4.0 / 3.0 * M_PI * r * r * r, w = m * -s->gravity[2];
    double k_pp = ore->young_modulus * sqrt(2.0 * r) / (3.0 * (1 - nu * nu));
    double e_w = 2.0 * ore->young_modulus * steel->young_modulus /
                 (ore->young_modulus + steel->young_modulus);
    double k_w = e_w * sqrt(2.0 * 2.0 * r) / (3.0 * (1 - nu * nu));
    double h = 2.0 * r * n - pow(n * w / k_w, 2.0 / 3.0);
    for (int k = 1; k < n; k++) h -= pow((n - k) * w / k_pp, 2.0 / 3.0);
    return h;
}

/* Materials shared by the validation scenes: ore on steel as in Wang et al. */
#define TEST_MATERIALS                                                                             \
    "\"materials\": [{\"name\": \"ore\", \"density\": 2500, \"young_modulus\": 1e7},"              \
    " {\"name\": \"steel\", \"density\": 7800, \"young_modulus\": 2e11}]"

#endif
