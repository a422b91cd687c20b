/* test_list_state.c - a list generator's "orientations" and
 * "angular_velocities" (docs/job.md): their errors with JSON Pointers, the
 * normalisation of quaternions, the round trip through the filled-in
 * document, and what the engine does with them: a spun sphere on a
 * frictional plane ends rolling at 2/7 r w0, a free spinning sphere turns
 * its given orientation, and spin about the normal is braked by the
 * twisting bound (mu_t defaulting to mu_r). */
#include "scene.h"
#include "testutil.h"

static const double G = 9.81;

/* ---- the document ---- */

/* One list generator of two spheres; `extra` is spliced into it. */
static ndem_job_status parse_list(const char *extra, ndem_job **job, ndem_job_errors *e)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"scene\": {\"materials\": [{\"name\": \"a\"}], \"particles\": [{\"type\": "
             "\"list\", \"material\": \"a\", \"spheres\": [[0, 0, 1, 0.01], [0, 0, 2, 0.01]]%s}]}}",
             extra);
    return ndem_job_parse(text, strlen(text), job, e);
}

typedef struct bad_list {
    const char *extra, *pointer, *message;
} bad_list;

#define AT "/scene/particles/0/"
static const bad_list bad_lists[] = {
    {", \"orientations\": [[1, 0, 0, 0]]", AT "orientations",
     "must have one entry per sphere (2), got 1"},
    {", \"orientations\": [[1, 0, 0, 0], [0, 0, 0, 0]]", AT "orientations/1",
     "must not be the zero quaternion"},
    {", \"orientations\": [[1, 0, 0], [1, 0, 0, 0]]", AT "orientations/0",
     "must be an array of 4 numbers [w, x, y, z]"},
    {", \"orientations\": [[1, 0, \"0\", 0], [1, 0, 0, 0]]", AT "orientations/0/2",
     "must be a number"},
    {", \"orientations\": [[1, 0, 0, 1e999], [1, 0, 0, 0]]", AT "orientations/0/3",
     "must be a finite number"},
    {", \"orientations\": {}", AT "orientations", "must be an array"},
    {", \"angular_velocities\": [[1, 2, 3], [1, 2, 3], [1, 2, 3]]", AT "angular_velocities",
     "must have one entry per sphere (2), got 3"},
    {", \"angular_velocities\": [[1, 2, 3], [1, 2]]", AT "angular_velocities/1",
     "must be an array of 3 numbers"},
    {", \"angular_velocities\": [[1, 2, 3], [1, null, 3]]", AT "angular_velocities/1/1",
     "must be a number"},
};
#define N_BAD ((int)(sizeof bad_lists / sizeof bad_lists[0]))

START_TEST(bad_orientations_and_spins_are_errors_at_their_pointer)
{
    const bad_list *b = &bad_lists[_i];
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_list(b->extra, &job, &e), NDEM_JOB_INVALID);
    if (e.count != 1 || strcmp(e.items[0].pointer, b->pointer))
        for (int i = 0; i < e.count; i++)
            fprintf(stderr, "  got %s: %s\n", e.items[i].pointer, e.items[i].message);
    ck_assert_int_eq(e.count, 1);
    ck_assert_str_eq(e.items[0].pointer, b->pointer);
    ck_assert_msg(strstr(e.items[0].message, b->message), "want '%s'", b->message);
    ndem_job_errors_clear(&e);
}
END_TEST

START_TEST(orientations_belong_to_list_generators)
{
    const char *text = "{\"scene\": {\"materials\": [{\"name\": \"a\"}], \"particles\": "
                       "[{\"type\": \"lattice\", \"material\": \"a\", \"min\": [0, 0, 0], "
                       "\"max\": [0.1, 0.1, 0.1], \"orientations\": [[1, 0, 0, 0]]}]}}";
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(ndem_job_parse(text, strlen(text), &job, &e), NDEM_JOB_INVALID);
    ck_assert_int_eq(e.count, 1);
    ck_assert_str_eq(e.items[0].pointer, AT "orientations");
    ck_assert_ptr_nonnull(strstr(e.items[0].message, "not a field of a lattice generator"));
    ndem_job_errors_clear(&e);
}
END_TEST

/* Quaternions are normalised, without underflow or overflow for tiny or
 * huge ones; the filled-in document carries both arrays and parses back to
 * the same values. */
START_TEST(quaternions_are_normalised_and_round_trip)
{
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ck_assert_int_eq(parse_list(", \"orientations\": [[1e-200, 0, 0, 1e-200], [2e200, 2e200, "
                                "-2e200, 2e200]], \"angular_velocities\": [[0, 0, 5], [-1, 2.5, "
                                "0]]",
                                &job, &e),
                     NDEM_JOB_OK);
    const ndem_generator_def *g = &job->scene.generators[0];
    const double want_q[8] = {M_SQRT1_2, 0, 0, M_SQRT1_2, 0.5, 0.5, -0.5, 0.5};
    const double want_w[6] = {0, 0, 5, -1, 2.5, 0};
    for (int k = 0; k < 8; k++) ck_assert_double_eq_tol(g->orientations[k], want_q[k], 1e-15);
    for (int k = 0; k < 6; k++) ck_assert_double_eq(g->angular_velocities[k], want_w[k]);

    char *text = ndem_job_to_json(job);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "\"orientations\""));
    ck_assert_ptr_nonnull(strstr(text, "\"angular_velocities\""));
    ndem_job *again = NULL;
    ck_assert_int_eq(ndem_job_parse(text, strlen(text), &again, &e), NDEM_JOB_OK);
    const ndem_generator_def *h = &again->scene.generators[0];
    for (int k = 0; k < 8; k++) ck_assert_double_eq_tol(h->orientations[k], want_q[k], 1e-15);
    for (int k = 0; k < 6; k++) ck_assert_double_eq(h->angular_velocities[k], want_w[k]);
    free(text);
    ndem_job_destroy(again);
    ndem_job_destroy(job);
}
END_TEST

/* ---- the engine ---- */

/* A free sphere (no gravity, nothing to touch) given orientation q0 and
 * spin w about z: the engine's frames start with them, and after t its
 * orientation is the turn by w t about z applied to q0 (constant spin, so
 * the exact exponential map). */
START_TEST(free_sphere_turns_its_given_orientation)
{
    const double c = cos(0.3), s = sin(0.3), w = 4.0, t = 0.25;
    const double q0[4] = {c, s, 0, 0}; /* 0.6 rad about x */
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], \"materials\": [{\"name\": \"a\"}], \"particles\": "
        "[{\"type\": \"list\", \"material\": \"a\", \"spheres\": [[0, 0, 1, 0.01]], "
        "\"orientations\": [[%.17g, %.17g, 0, 0]], \"angular_velocities\": [[0, 0, %g]]}]}, "
        "\"solver\": {\"time_step\": 0.001, \"duration\": %g}}",
        q0[0], q0[1], w, t);
    ndem_sim *sim = test_sim(job);
    ndem_frame f;
    test_frame(sim, &f);
    for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(f.orientations[k], q0[k], 1e-15);
    ck_assert_double_eq(f.angular_velocities[2], w);
    ndem_frame_free(&f);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) test_step(sim);
    test_frame(sim, &f);
    /* qz = [cos(w t / 2), 0, 0, sin(w t / 2)]; qz * q0 */
    double a = cos(0.5 * w * t), b = sin(0.5 * w * t);
    double want[4] = {a * q0[0], a * q0[1], b * q0[1], b * q0[0]};
    fprintf(stderr, "free spin: q = [%.9f, %.9f, %.9f, %.9f], theory [%.9f, %.9f, %.9f, %.9f]\n",
            f.orientations[0], f.orientations[1], f.orientations[2], f.orientations[3], want[0],
            want[1], want[2], want[3]);
    for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(f.orientations[k], want[k], 1e-9);
    ck_assert_double_eq_tol(f.angular_velocities[2], w, 1e-12);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* A sphere of radius r resting on a plane with spin `spin` (rad/s, a
 * vector) and no velocity; the pair fragment sets friction and
 * resistance. Returns the frame after t_end (ndem_frame_free). */
static void spun_sphere(const char *pair, const double spin[3], double t_end, ndem_frame *f)
{
    const double r = 0.01, m = 2500 * 4.0 / 3.0 * M_PI * r * r * r;
    double e_w = 2.0 * 1e7 * 2e11 / (1e7 + 2e11);
    double k = e_w * sqrt(2.0 * 2.0 * r) / (3.0 * (1 - 0.09));
    double delta = pow(m * G / k, 2.0 / 3.0); /* Hertz rest overlap */
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"steel\"], %s, \"restitution\": 0.2}],"
        "\"geometry\": [{\"type\": \"plane\", \"point\": [0,0,0], \"normal\": [0,0,1], "
        "\"material\": \"steel\"}],"
        "\"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"spheres\": [[0, 0, %.17g, "
        "%g]], \"angular_velocities\": [[%g, %g, %g]]}]}, \"solver\": {\"time_step\": 2e-4, "
        "\"duration\": %g, \"iterations\": 30}}",
        pair, r - delta, r, spin[0], spin[1], spin[2], t_end);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) test_step(sim);
    test_frame(sim, f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}

/* Spun in place about y on a plane with friction mu, the sphere slides
 * while friction mu m g speeds it up (v = mu g t) and slows its spin, until
 * it rolls without slip: angular momentum about the contact point is kept,
 * 2/5 m r^2 w0 = 7/5 m r^2 w, so v = 2/7 r w0 after t = 2 r w0 / (7 mu g). */
START_TEST(spun_sphere_ends_rolling_at_two_sevenths)
{
    const double r = 0.01, mu = 0.3, w0 = 20.0, spin[3] = {0, w0, 0};
    const double t_roll = 2.0 * r * w0 / (7.0 * mu * G), v_roll = 2.0 / 7.0 * r * w0;
    ndem_frame f;
    /* halfway: still sliding, v = mu g t (w x (-r z) = -r w0 x slides
     * backwards, so friction pushes +x) */
    double t = 0.5 * t_roll;
    spun_sphere("\"friction\": 0.3", spin, t, &f);
    fprintf(stderr, "spun sphere: v_x %.5f m/s after %.4f s, theory %.5f\n", f.velocities[0], t,
            mu * G * t);
    ck_assert_double_lt(fabs(f.velocities[0] - mu * G * t) / (mu * G * t), 0.03);
    ndem_frame_free(&f);
    /* well past t_roll: rolling, v = 2/7 r w0 and v = w r */
    spun_sphere("\"friction\": 0.3", spin, 3.0 * t_roll, &f);
    fprintf(stderr, "spun sphere: rolls at %.5f m/s (w r = %.5f), theory %.5f\n", f.velocities[0],
            f.angular_velocities[1] * r, v_roll);
    ck_assert_double_lt(fabs(f.velocities[0] - v_roll) / v_roll, 0.02);
    ck_assert_double_lt(fabs(f.angular_velocities[1] * r - v_roll) / v_roll, 0.02);
    ndem_frame_free(&f);
}
END_TEST

/* Spun about the plane's normal, only the twisting row brakes the sphere:
 * torque mu_t r m g, so w = w0 - 5 mu_t g t / (2 r) until it stops. With
 * only rolling_resistance set, mu_t = mu_r. */
START_TEST(spin_about_the_normal_brakes_at_the_twist_bound)
{
    const double r = 0.01, mu_r = 0.05, w0 = 10.0, spin[3] = {0, 0, w0};
    const double alpha = 5.0 * mu_r * G / (2.0 * r), t = 0.5 * w0 / alpha;
    ndem_frame f;
    spun_sphere("\"rolling_resistance\": 0.05", spin, t, &f);
    double w = f.angular_velocities[2];
    fprintf(stderr, "spin-down: w_z %.4f rad/s after %.4f s, theory %.4f\n", w, t, w0 - alpha * t);
    ck_assert_double_lt(fabs(w - (w0 - alpha * t)) / (w0 - alpha * t), 0.03);
    ndem_frame_free(&f);
    /* past w0 / alpha: stopped, and not turned backwards */
    spun_sphere("\"rolling_resistance\": 0.05", spin, 1.5 * w0 / alpha, &f);
    ck_assert_double_lt(fabs(f.angular_velocities[2]), 1e-3 * w0);
    ndem_frame_free(&f);
    /* an explicit 0: nothing brakes it */
    spun_sphere("\"rolling_resistance\": 0.05, \"twisting_resistance\": 0", spin, t, &f);
    ck_assert_double_lt(fabs(f.angular_velocities[2] - w0), 1e-9);
    ndem_frame_free(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("list_state");
    TCase *tc = tcase_create("list_state");
    tcase_add_loop_test(tc, bad_orientations_and_spins_are_errors_at_their_pointer, 0, N_BAD);
    tcase_add_test(tc, orientations_belong_to_list_generators);
    tcase_add_test(tc, quaternions_are_normalised_and_round_trip);
    tcase_add_test(tc, free_sphere_turns_its_given_orientation);
    tcase_add_test(tc, spun_sphere_ends_rolling_at_two_sevenths);
    tcase_add_test(tc, spin_about_the_normal_brakes_at_the_twist_bound);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
