/* test_run.c - the run loop shared by `ndem run` and ndemd (api/run.c):
 * the frame schedule puts frame k at k * interval and ends for any
 * interval (issue 12: 1e-300 used to spin forever), the stop hook ends a
 * run before the next step with its own value, and a failing hook ends it
 * with NDEM_RUN_HOOK after the step it failed in. Also what the Slurm
 * executor's runs send ndemd besides: a frame's motion in full precision
 * (api/frame_motion.c) comes back bit for bit, and base64 encodes as RFC
 * 4648 says. */
#include "base64.h"
#include "frame_motion.h"
#include "run.h"
#include "scene.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct counter {
    long rows, frames, ticks, stop_after, fail_frame;
    double frame_times[64];
} counter;

static int c_stop(void *ctx)
{
    counter *c = ctx;
    return c->stop_after >= 0 && c->rows >= c->stop_after ? 7 : 0;
}

static int c_row(void *ctx, const ndem_step_stats *s)
{
    ((counter *)ctx)->rows++;
    return 0;
}

static int c_frame(void *ctx, ndem_sim *sim)
{
    counter *c = ctx;
    if (c->frames < 64) c->frame_times[c->frames] = ndem_sim_stats(sim)->time;
    c->frames++;
    return c->fail_frame >= 0 && c->frames > c->fail_frame ? -1 : 0;
}

static int c_tick(void *ctx, ndem_sim *sim)
{
    ((counter *)ctx)->ticks++;
    return 0;
}

static ndem_job *drop_job(double duration)
{
    return test_job("{\"scene\": {" TEST_MATERIALS ", \"particles\": [{\"type\": \"list\", "
                    "\"material\": \"ore\", \"spheres\": [[0, 0, 0.1, 0.01]]}]}, "
                    "\"solver\": {\"time_step\": 0.001, \"duration\": %g}}",
                    duration);
}

START_TEST(next_frame_is_the_next_multiple)
{
    const double h = 0.001, dt = 0.05;
    /* at (or within h/2 of) frame k, the next is frame k + 1 */
    for (int k = 0; k < 1000; k++) {
        double t = k * dt;
        ck_assert_double_eq_tol(ndem_run_next_frame(t, h, dt), (k + 1) * dt, 1e-12 * (k + 1));
        ck_assert_double_eq_tol(ndem_run_next_frame(t + 0.4 * h, h, dt), (k + 1) * dt,
                                1e-12 * (k + 1));
    }
    /* past frame k by more than h/2 but before k + 1: still k + 1 */
    ck_assert_double_eq_tol(ndem_run_next_frame(0.0499, h, dt), 0.1, 1e-15);
    /* any interval ends, and the answer is always ahead of t + h/2 */
    const double tiny[] = {1e-300, 1e-30, 1e-9, 0.0004999};
    for (int i = 0; i < 4; i++) {
        double next = ndem_run_next_frame(3600.0, h, tiny[i]);
        ck_assert_msg(next > 3600.0 + 0.5 * h, "interval %g: next %.17g", tiny[i], next);
    }
}
END_TEST

START_TEST(loop_writes_frames_at_multiples_and_the_end)
{
    ndem_job *job = drop_job(0.2);
    ndem_sim *sim = test_sim(job);
    counter c = {.stop_after = -1, .fail_frame = -1};
    ndem_run_hooks hooks = {&c, c_stop, c_row, c_frame, c_tick};
    double next = 0.03;
    ck_assert_int_eq(ndem_run_loop(sim, 0.001, 0.03, &next, &hooks), NDEM_RUN_DONE);
    ck_assert_int_eq(c.rows, 200);
    ck_assert_int_eq(c.ticks, 200);
    /* 0.03, 0.06, ..., 0.18 and the last step at 0.2 */
    ck_assert_int_eq(c.frames, 7);
    for (int k = 0; k < 6; k++) ck_assert_double_eq_tol(c.frame_times[k], 0.03 * (k + 1), 1e-9);
    ck_assert_double_eq_tol(c.frame_times[6], 0.2, 1e-9);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(stop_and_failing_hooks_end_the_run)
{
    ndem_job *job = drop_job(1.0);
    ndem_sim *sim = test_sim(job);
    counter c = {.stop_after = 25, .fail_frame = -1};
    ndem_run_hooks hooks = {&c, c_stop, c_row, c_frame, NULL};
    double next = 0.01;
    ck_assert_int_eq(ndem_run_loop(sim, 0.001, 0.01, &next, &hooks), 7);
    ck_assert_int_eq(ndem_sim_stats(sim)->step, 25); /* no step after the stop */
    /* the schedule carries on where it stood: frame 3 at 0.03 is next */
    ck_assert_double_eq_tol(next, 0.03, 1e-12);
    c.stop_after = -1;
    c.fail_frame = 4;
    ck_assert_int_eq(ndem_run_loop(sim, 0.001, 0.01, &next, &hooks), NDEM_RUN_HOOK);
    ck_assert_int_eq(ndem_sim_stats(sim)->step, 50); /* the step of the 5th frame */
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* Values a float32 or a short decimal would change: they must come back
 * bit for bit, and a length that does not fit the count is refused. */
START_TEST(frame_motion_round_trip_is_exact)
{
    double v[] = {0.1,      1.0 / 3.0, -0.0,  1e-300, -1.7976931348623157e308,
                  4.9e-324, 2.5,       -7.25, 0.3,    1e10};
    ndem_frame f = {.step = 9, .time = 0.1, .count = 2};
    double pos[6], rad[2], vel[6], ang[6];
    for (int i = 0; i < 6; i++) pos[i] = v[i], vel[i] = v[9 - i], ang[i] = v[(i + 3) % 10];
    rad[0] = v[6], rad[1] = v[7];
    f.positions = pos, f.radii = rad, f.velocities = vel, f.angular_velocities = ang;
    size_t len = ndem_frame_motion_size(&f);
    ck_assert_uint_eq(len, 2 * 10 * sizeof(double));
    unsigned char *buf = malloc(len);
    ndem_frame_motion_encode(&f, buf);
    ndem_frame g = {.count = 2};
    ck_assert_int_eq(ndem_frame_motion_decode(buf, len, &g), 0);
    ck_assert_mem_eq(g.positions, pos, sizeof pos);
    ck_assert_mem_eq(g.radii, rad, sizeof rad);
    ck_assert_mem_eq(g.velocities, vel, sizeof vel);
    ck_assert_mem_eq(g.angular_velocities, ang, sizeof ang);
    ndem_frame_free(&g);
    ndem_frame h = {.count = 3};
    ck_assert_int_eq(ndem_frame_motion_decode(buf, len, &h), -1);
    ck_assert_ptr_null(h.positions);
    free(buf);
    /* with materials and two geometry poses: they come back too, after
     * 4 + 4 n + 56 g more bytes; a tail that does not fit is refused */
    int mat[2] = {1, 0};
    double poses[14];
    for (int i = 0; i < 14; i++) poses[i] = v[i % 10] * (i + 1);
    f.materials = mat, f.geometry_poses = poses, f.geometry_count = 2;
    len = ndem_frame_motion_size(&f);
    ck_assert_uint_eq(len, 2 * 10 * sizeof(double) + 4 + 2 * 4 + 2 * 56);
    buf = malloc(len);
    ndem_frame_motion_encode(&f, buf);
    ndem_frame k = {.count = 2};
    ck_assert_int_eq(ndem_frame_motion_decode(buf, len, &k), 0);
    ck_assert_int_eq(k.geometry_count, 2);
    ck_assert_mem_eq(k.materials, mat, sizeof mat);
    ck_assert_mem_eq(k.geometry_poses, poses, sizeof poses);
    ck_assert_mem_eq(k.velocities, vel, sizeof vel);
    ndem_frame_free(&k);
    ndem_frame m = {.count = 2};
    ck_assert_int_eq(ndem_frame_motion_decode(buf, len - 8, &m), -1);
    ck_assert_ptr_null(m.materials);
    free(buf);
}
END_TEST

START_TEST(base64_encoder_is_rfc4648)
{
    /* RFC 4648 section 10 */
    static const char *enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    static const char *dec[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    for (int i = 0; i < 7; i++) {
        char *e = ndem_base64_encode(dec[i], strlen(dec[i]));
        ck_assert_str_eq(e, enc[i]);
        free(e);
    }
    unsigned char all[256], *back;
    for (int i = 0; i < 256; i++) all[i] = (unsigned char)(255 - i);
    char *e = ndem_base64_encode(all, sizeof all), err[128];
    size_t n;
    ck_assert_int_eq(ndem_base64_decode(e, strlen(e), &back, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, sizeof all);
    ck_assert_mem_eq(back, all, sizeof all);
    free(back);
    free(e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("run");
    TCase *tc = tcase_create("run");
    tcase_add_test(tc, next_frame_is_the_next_multiple);
    tcase_add_test(tc, loop_writes_frames_at_multiples_and_the_end);
    tcase_add_test(tc, stop_and_failing_hooks_end_the_run);
    tcase_add_test(tc, frame_motion_round_trip_is_exact);
    tcase_add_test(tc, base64_encoder_is_rfc4648);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
