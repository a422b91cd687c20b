/* test_impact.c - the impact stage's reach (issue 15, NDEM_IMPACT_REACH):
 * by default (and with NDEM_IMPACT_REACH=N) it sweeps only the rows within
 * NDEM_IMPACT_REACH_DEFAULT (N) contacts of an impacting one; with
 * NDEM_IMPACT_REACH=island every island that holds an impacting contact.
 * The scene is a resting bed of 1500 spheres (one island) that three
 * spheres fall onto. */
#include "scene.h"
#include "sim.h" /* internal: the rows' impact classes */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static ndem_sim *bed_with_fallers(ndem_job **job, const char *reach)
{
    *job = test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": ["
        "{\"materials\": [\"ore\", \"ore\"], \"friction\": 0.5, \"restitution\": 0.5},"
        "{\"materials\": [\"ore\", \"steel\"], \"friction\": 0.5, \"restitution\": 0.5}],"
        "\"geometry\": [{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.25, 0.25, 0.6], "
        "\"inside\": true, \"material\": \"steel\"}],"
        "\"particles\": [{\"type\": \"lattice\", \"min\": [0.006, 0.006, 0.006], \"max\": "
        "[0.244, 0.244, 0.1], \"spacing\": 0.012, \"count\": 1500, \"radius\": 0.006, "
        "\"material\": \"ore\"},"
        "{\"type\": \"random\", \"min\": [0.05, 0.05, 0.2], \"max\": [0.2, 0.2, 0.3], "
        "\"count\": 3, \"radius\": 0.006, \"material\": \"ore\", \"seed\": 5}]},"
        "\"solver\": {\"time_step\": 0.002, \"iterations\": 20, \"duration\": 1.0, "
        "\"threads\": 2}}");
    if (reach) setenv("NDEM_IMPACT_REACH", reach, 1);
    ndem_sim *sim = test_sim(*job);
    unsetenv("NDEM_IMPACT_REACH");
    return sim;
}

/* Rows the impact stage kept (impact class 1 or 2) that touch a body of an
 * impacting contact (class 2): what reach 1 keeps. */
static long rows_at_impacting_bodies(const ndem_sim *sim)
{
    const ndem_contacts *c = &sim->contacts;
    long nb = sim->bodies.count, kept = 0;
    char *hit = calloc((size_t)nb, 1);
    ck_assert_ptr_nonnull(hit);
    for (long k = 0; k < c->count; k++)
        if (c->cold[c->slot[k]].impact == 2) {
            hit[c->key[k].a] = 1;
            if (ndem_key_is_particle(c->key[k])) hit[c->key[k].b] = 1;
        }
    for (long k = 0; k < c->count; k++) {
        ndem_contact_key key = c->key[k];
        if (c->cold[c->slot[k]].impact == 0) continue;
        kept += hit[key.a] || (ndem_key_is_particle(key) && hit[key.b]);
    }
    free(hit);
    return kept;
}

/* Rows the impact stage kept within `reach` contacts of an impacting body,
 * by an independent count: hop counts relaxed over the touching particle
 * pairs until none changes (Bellman-Ford), a row kept when one of its bodies
 * is fewer than `reach` contacts away. */
static long rows_within_reach(const ndem_sim *sim, int reach)
{
    const ndem_contacts *c = &sim->contacts;
    long nb = sim->bodies.count, kept = 0;
    int *hops = malloc(sizeof(int) * (size_t)nb);
    ck_assert_ptr_nonnull(hops);
    for (long i = 0; i < nb; i++) hops[i] = 1 << 30;
    for (long k = 0; k < c->count; k++)
        if (c->cold[c->slot[k]].impact == 2) {
            hops[c->key[k].a] = 0;
            if (ndem_key_is_particle(c->key[k])) hops[c->key[k].b] = 0;
        }
    for (int changed = 1; changed;) {
        changed = 0;
        for (long k = 0; k < c->count; k++) {
            ndem_contact_key key = c->key[k];
            if (!ndem_key_is_particle(key) || c->cold[c->slot[k]].impact == 0) continue;
            int lo = hops[key.a] < hops[key.b] ? hops[key.a] : hops[key.b];
            if (hops[key.a] > lo + 1) hops[key.a] = lo + 1, changed = 1;
            if (hops[key.b] > lo + 1) hops[key.b] = lo + 1, changed = 1;
        }
    }
    for (long k = 0; k < c->count; k++) {
        ndem_contact_key key = c->key[k];
        if (c->cold[c->slot[k]].impact == 0) continue;
        int h = hops[key.a];
        if (ndem_key_is_particle(key) && hops[key.b] < h) h = hops[key.b];
        kept += h < reach;
    }
    free(hops);
    return kept;
}

/* Island mode and reach 1 step together until the first impact: there the
 * island keeps the whole bed, reach 1 only the rows at the impacting bodies
 * (counted from the island run's rows). */
START_TEST(reach_one_keeps_the_rows_at_impacting_bodies)
{
    ndem_job *j1, *j2;
    ndem_sim *island = bed_with_fallers(&j1, "island"), *near = bed_with_fallers(&j2, "1");
    int seen = 0;
    for (long i = 0; i < 200 && !seen; i++) {
        test_step(island);
        test_step(near);
        const ndem_step_stats *a = ndem_sim_stats(island), *b = ndem_sim_stats(near);
        ck_assert_int_eq(a->impacts, b->impacts);
        if (a->impacts == 0) {
            /* no impact stage yet: the same states */
            ck_assert_uint_eq(ndem_sim_state_hash(island), ndem_sim_state_hash(near));
            continue;
        }
        seen = 1;
        long want = rows_at_impacting_bodies(island);
        fprintf(stderr, "step %ld: %ld impacts, island %ld rows, reach 1 %ld rows (want %ld)\n",
                a->step, a->impacts, a->impact_rows, b->impact_rows, want);
        ck_assert_int_gt(a->impact_rows, 1000); /* the bed is one island */
        ck_assert_int_gt(want, 0);
        ck_assert_int_lt(want, 20);
        ck_assert_int_eq(b->impact_rows, want);
    }
    ck_assert_msg(seen, "no impact in 200 steps");
    ndem_sim_destroy(island);
    ndem_sim_destroy(near);
    ndem_job_destroy(j1);
    ndem_job_destroy(j2);
}
END_TEST

/* Reaches of several contacts step beside the island run until the first
 * impact: each keeps the rows that the independent count finds within its
 * reach in the island run's rows, more for every longer reach. */
START_TEST(reach_keeps_the_rows_within_its_hop_count)
{
    static const char *reach[] = {"2", "4", "7"};
    ndem_job *ji, *jr[3];
    ndem_sim *island = bed_with_fallers(&ji, "island"), *near[3];
    for (int r = 0; r < 3; r++) near[r] = bed_with_fallers(&jr[r], reach[r]);
    int seen = 0;
    for (long i = 0; i < 200 && !seen; i++) {
        test_step(island);
        for (int r = 0; r < 3; r++) test_step(near[r]);
        const ndem_step_stats *a = ndem_sim_stats(island);
        if (a->impacts == 0) continue;
        seen = 1;
        long last = 0;
        for (int r = 0; r < 3; r++) {
            long want = rows_within_reach(island, atoi(reach[r]));
            long got = ndem_sim_stats(near[r])->impact_rows;
            fprintf(stderr, "step %ld: reach %s keeps %ld rows (want %ld, island %ld)\n", a->step,
                    reach[r], got, want, a->impact_rows);
            ck_assert_int_eq(got, want);
            ck_assert_int_gt(want, last);
            last = want;
        }
        ck_assert_int_lt(last, a->impact_rows);
    }
    ck_assert_msg(seen, "no impact in 200 steps");
    ndem_sim_destroy(island);
    ndem_job_destroy(ji);
    for (int r = 0; r < 3; r++) ndem_sim_destroy(near[r]), ndem_job_destroy(jr[r]);
}
END_TEST

/* A reach longer than any path in the bed is the island: the same rows
 * every step and the same bits. */
START_TEST(unbounded_reach_is_the_island)
{
    ndem_job *j1, *j2;
    ndem_sim *island = bed_with_fallers(&j1, "island"), *far = bed_with_fallers(&j2, "1000000");
    long impact_steps = 0;
    for (long i = 0; i < 150; i++) {
        test_step(island);
        test_step(far);
        const ndem_step_stats *a = ndem_sim_stats(island), *b = ndem_sim_stats(far);
        ck_assert_int_eq(a->impact_rows, b->impact_rows);
        impact_steps += a->impacts > 0;
    }
    ck_assert_int_gt(impact_steps, 0);
    ck_assert_uint_eq(ndem_sim_state_hash(island), ndem_sim_state_hash(far));
    ndem_sim_destroy(island);
    ndem_sim_destroy(far);
    ndem_job_destroy(j1);
    ndem_job_destroy(j2);
}
END_TEST

START_TEST(reach_switch_rejects_other_values)
{
    char e[64] = "";
    ck_assert_int_eq(ndem_impact_reach_switch(NULL, e, sizeof e), NDEM_IMPACT_REACH_DEFAULT);
    ck_assert_int_eq(ndem_impact_reach_switch("", e, sizeof e), NDEM_IMPACT_REACH_DEFAULT);
    ck_assert_int_eq(ndem_impact_reach_switch("island", e, sizeof e), 0);
    ck_assert_int_eq(ndem_impact_reach_switch("12", e, sizeof e), 12);
    const char *bad[] = {"0", "-3", "near", "5x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ndem_job *job = test_job("{\"scene\": {" TEST_MATERIALS ", \"particles\": [{\"type\": "
                                 "\"list\", \"material\": \"ore\", \"spheres\": "
                                 "[[0, 0, 0.1, 0.01]]}]}, \"solver\": {\"time_step\": 1e-3}}");
        char err[256] = "";
        setenv("NDEM_IMPACT_REACH", bad[i], 1);
        ndem_sim *sim = ndem_sim_create(&job->scene, err, sizeof err);
        unsetenv("NDEM_IMPACT_REACH");
        ck_assert_ptr_null(sim);
        ck_assert_msg(strstr(err, "NDEM_IMPACT_REACH=") && strstr(err, bad[i]), "%s", err);
        ndem_job_destroy(job);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("impact");
    TCase *tc = tcase_create("reach");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, reach_one_keeps_the_rows_at_impacting_bodies);
    tcase_add_test(tc, reach_keeps_the_rows_within_its_hop_count);
    tcase_add_test(tc, unbounded_reach_is_the_island);
    tcase_add_test(tc, reach_switch_rejects_other_values);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
