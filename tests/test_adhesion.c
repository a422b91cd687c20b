/* test_adhesion.c - a pair's `adhesion` and `adhesive_overlap` (AGX
 * 35.4.6, docs/physics.md): the normal row works on delta - delta_a, and
 * while 0 < delta < delta_a its force may pull, down to -adhesion. NDEM
 * only: smooth DEM refuses both fields (tests/test_parser_methods.c). */
#include "scene.h"
#include "testutil.h"

static const double G = 9.81, R = 0.01;
static const double DELTA_A = 5e-5; /* adhesive overlap (m) */
static const double ADHESION = 0.2; /* N */

/* Hertz stiffness of an ore sphere of radius R on the steel plane, and its
 * mass (TEST_MATERIALS). */
static double stiffness(void)
{
    double e_w = 2.0 * 1e7 * 2e11 / (1e7 + 2e11);
    return e_w * sqrt(2.0 * 2.0 * R) / (3.0 * (1 - 0.09));
}

static double mass(void) { return 2500 * 4.0 / 3.0 * M_PI * R * R * R; }

/* A sphere on the plane pulled up by `pull` N, started at overlap delta0
 * and run for t_end: its final overlap, and its final vertical speed. */
static double overlap_under(double pull, double delta0, double t_end, double *vz)
{
    ndem_job *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": [{\"materials\": [\"ore\", "
        "\"steel\"], \"adhesion\": %g, \"adhesive_overlap\": %g, \"restitution\": 0.2}],"
        "\"geometry\": [{\"type\": \"plane\", \"point\": [0,0,0], \"normal\": [0,0,1], "
        "\"material\": \"steel\"}],"
        "\"particles\": [{\"type\": \"list\", \"material\": \"ore\", \"force\": [0, 0, %.17g], "
        "\"spheres\": [[0, 0, %.17g, %g]]}]}, \"solver\": {\"time_step\": 5e-4, \"duration\": %g, "
        "\"iterations\": 30}}",
        ADHESION, DELTA_A, pull, R - delta0, R, t_end);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < ndem_sim_total_steps(sim); i++) test_step(sim);
    ndem_frame f;
    test_frame(sim, &f);
    double delta = R - f.positions[2];
    *vz = f.velocities[2];
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return delta;
}

/* At rest under its weight the row carries k (delta - delta_a)^(3/2) = m g:
 * the overlap is delta_a plus the Hertz overlap. */
START_TEST(rest_overlap_is_adhesive_plus_hertz)
{
    double k = stiffness(), w = mass() * G;
    double want = DELTA_A + pow(w / k, 2.0 / 3.0);
    double vz, got = overlap_under(0.0, want, 0.5, &vz);
    fprintf(stderr, "adhesion at rest: overlap %.5g m, theory %.5g m\n", got, want);
    ck_assert_double_lt(fabs(got - want) / want, 0.01);
    ck_assert_double_lt(fabs(vz), 1e-4);
}
END_TEST

/* Pulled up with a net tension T = pull - m g below the adhesion, the
 * contact holds at k (delta_a - delta)^(3/2) = T; above it, the sphere
 * leaves the plane. */
START_TEST(pull_below_adhesion_holds_above_leaves)
{
    double k = stiffness(), w = mass() * G;
    double rest = DELTA_A + pow(w / k, 2.0 / 3.0);
    double t_hold = 0.5 * ADHESION;
    double want = DELTA_A - pow(t_hold / k, 2.0 / 3.0);
    double vz, got = overlap_under(w + t_hold, rest, 0.5, &vz);
    fprintf(stderr, "adhesion, tension %.3g N: overlap %.5g m, theory %.5g m\n", t_hold, got, want);
    ck_assert_double_gt(want, 0.0);
    ck_assert_double_lt(fabs(got - want) / want, 0.02);
    ck_assert_double_lt(fabs(vz), 1e-4);
    /* 1.5 times the adhesion: off the plane and rising */
    got = overlap_under(w + 1.5 * ADHESION, rest, 0.2, &vz);
    fprintf(stderr, "adhesion, tension %.3g N: overlap %.4g m, vz %.3g m/s\n", 1.5 * ADHESION, got,
            vz);
    ck_assert_double_lt(got, 0.0);
    ck_assert_double_gt(vz, 0.0);
    /* the free sphere accelerates at (pull - m g) / m once it has left:
     * gone far beyond the adhesive range within 0.2 s */
    ck_assert_double_lt(got, -100 * DELTA_A);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("adhesion");
    TCase *tc = tcase_create("adhesion");
    tcase_add_test(tc, rest_overlap_is_adhesive_plus_hertz);
    tcase_add_test(tc, pull_below_adhesion_holds_above_leaves);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
