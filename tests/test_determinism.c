/* test_determinism.c - bit-for-bit reproducibility (issue 2, validation 6):
 * any thread count gives the same particle states, and a checkpoint restored
 * and stepped gives the states of never stopping. The scene has enough
 * contacts (> 4096) for the solver to really run in parallel, plus an
 * emitter, a moving box and a turning cylinder, so that every piece of state
 * a checkpoint must hold is in play. */
#include "scene.h"
#include "sim.h" /* internal: the broad phase's Verlet lists */
#include "testutil.h"

#include <string.h>

#define STEPS 40

#define EMITTER                                                                                    \
    ", \"emitters\": [{\"min\": [0.05, 0.05, 0.5], \"max\": [0.2, 0.2, 0.55], \"rate\": 2000, "    \
    "\"radius\": {\"values\": [0.005, 0.006], \"weights\": [1, 2]}, \"material\": \"ore\", "       \
    "\"velocity\": [0, 0, -1], \"seed\": 3}]"

/* emit: with the emitter (bodies appear every step, so the Verlet lists
 * are rebuilt every step) or without */
static ndem_job *busy_scene(int threads, double friction, int emit)
{
    return test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": ["
        "{\"materials\": [\"ore\", \"ore\"], \"friction\": %g, \"rolling_resistance\": 0.2, "
        "\"twisting_resistance\": 0.05, \"restitution\": 0.3},"
        "{\"materials\": [\"ore\", \"steel\"], \"friction\": 0.7, \"restitution\": 0.3}],"
        "\"geometry\": [{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.25, 0.25, 0.6], "
        "\"inside\": true, \"material\": \"steel\", \"velocity\": [0.01, 0, 0]},"
        "{\"type\": \"cylinder\", \"center\": [0.125, 0.125, 0.3], \"axis\": [1, 0, 0], "
        "\"radius\": 0.02, \"length\": 0.2, \"angular_velocity\": 3.0, \"material\": "
        "\"steel\"}],"
        "\"particles\": [{\"type\": \"lattice\", \"min\": [0.006, 0.006, 0.006], \"max\": "
        "[0.244, 0.244, 0.2], \"spacing\": 0.012, \"count\": 1700, \"radius\": 0.006, "
        "\"material\": \"ore\"},"
        "{\"type\": \"random\", \"min\": [0.01, 0.01, 0.36], \"max\": [0.24, 0.24, 0.45], "
        "\"count\": 400, \"radius\": {\"min\": 0.004, \"max\": 0.006}, \"material\": \"ore\", "
        "\"seed\": 7}]%s},"
        "\"solver\": {\"time_step\": 0.002, \"duration\": 1.0, \"iterations\": 20, "
        "\"threads\": %d}}",
        friction, emit ? EMITTER : "", threads);
}

static ndem_job *busy_job(int threads, double friction) { return busy_scene(threads, friction, 1); }

static uint64_t run_hash(int threads, long steps, long *rows)
{
    ndem_job *job = busy_job(threads, 0.6);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < steps; i++) test_step(sim);
    if (rows) *rows = ndem_sim_stats(sim)->rows;
    uint64_t h = ndem_sim_state_hash(sim);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return h;
}

START_TEST(thread_count_does_not_change_states)
{
    long rows = 0;
    uint64_t h1 = run_hash(1, STEPS, &rows);
    ck_assert_int_gt(rows, 4096); /* the parallel path really ran */
    ck_assert_uint_eq(run_hash(2, STEPS, NULL), h1);
    ck_assert_uint_eq(run_hash(3, STEPS, NULL), h1);
}
END_TEST

/* The Verlet lists are kept across steps only while no missing pair can
 * reach the contact test: the states must equal those of a run that
 * searches the grid afresh every step (lists invalidated before each). */
START_TEST(kept_neighbour_lists_equal_a_fresh_search)
{
    uint64_t hash[2];
    long builds[2];
    for (int fresh = 0; fresh < 2; fresh++) {
        ndem_job *job = busy_scene(2, 0.6, 0);
        ndem_sim *sim = test_sim(job);
        for (long i = 0; i < 3 * STEPS; i++) {
            if (fresh) sim->neighbours.valid = 0;
            test_step(sim);
        }
        hash[fresh] = ndem_sim_state_hash(sim);
        builds[fresh] = sim->neighbours.builds;
        ndem_sim_destroy(sim);
        ndem_job_destroy(job);
    }
    ck_assert_int_eq(builds[1], 3 * STEPS);
    ck_assert_int_lt(builds[0], 3 * STEPS - 20); /* the lists were really kept */
    ck_assert_uint_eq(hash[0], hash[1]);
}
END_TEST

START_TEST(checkpoint_restore_equals_uninterrupted)
{
    uint64_t straight = run_hash(2, STEPS, NULL);
    ndem_job *job = busy_job(2, 0.6);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < STEPS / 2; i++) test_step(sim);
    long particles = ndem_sim_particle_count(sim);
    void *buf = NULL;
    size_t len = 0;
    ck_assert_int_eq(ndem_sim_checkpoint(sim, &buf, &len), 0);
    ndem_sim_destroy(sim);
    char err[256] = "";
    sim = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(sim != NULL, "restore failed: %s", err);
    ck_assert_int_eq(ndem_sim_particle_count(sim), particles);
    ck_assert_int_eq(ndem_sim_stats(sim)->step, STEPS / 2);
    for (long i = STEPS / 2; i < STEPS; i++) test_step(sim);
    ck_assert_uint_eq(ndem_sim_state_hash(sim), straight);
    /* the emitter kept going after the restore */
    ck_assert_int_gt(ndem_sim_particle_count(sim), particles);
    ndem_sim_destroy(sim);
    free(buf);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(checkpoint_refuses_what_it_cannot_restore)
{
    ndem_job *job = busy_job(1, 0.6);
    ndem_sim *sim = test_sim(job);
    for (long i = 0; i < 3; i++) test_step(sim);
    void *buf = NULL;
    size_t len = 0;
    ck_assert_int_eq(ndem_sim_checkpoint(sim, &buf, &len), 0);
    ndem_sim_destroy(sim);
    char err[256];
    /* another scene */
    ndem_job *other = busy_job(1, 0.5);
    ck_assert_ptr_null(ndem_sim_restore(&other->scene, buf, len, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "another scene"));
    /* truncated, at several lengths */
    size_t cuts[] = {0, 7, 20, 40, len / 2, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        err[0] = 0;
        ck_assert_ptr_null(ndem_sim_restore(&job->scene, buf, cuts[i], err, sizeof err));
        /* a cut past the head fails the CRC trailer first */
        ck_assert_msg(strstr(err, "damaged (checksum mismatch)") || strstr(err, "magic"),
                      "cut %zu: %s", cuts[i], err);
    }
    /* not a checkpoint */
    ck_assert_ptr_null(
        ndem_sim_restore(&job->scene, "hello world, not a checkpoint", 29, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "not an ndem checkpoint"));
    /* a flipped version number */
    ((unsigned char *)buf)[8] ^= 0x7f;
    ck_assert_ptr_null(ndem_sim_restore(&job->scene, buf, len, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "version"));
    free(buf);
    ndem_job_destroy(other);
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("determinism");
    TCase *tc = tcase_create("bitwise");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, thread_count_does_not_change_states);
    tcase_add_test(tc, kept_neighbour_lists_equal_a_fresh_search);
    tcase_add_test(tc, checkpoint_restore_equals_uninterrupted);
    tcase_add_test(tc, checkpoint_refuses_what_it_cannot_restore);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
