/* test_dem_sum.c - the threaded smooth-DEM force step (issue 15): each body's
 * threaded sum equals the serial sum over the contacts in pair order bit for
 * bit, the hertz dashpot's table agrees with the iteration it replaces, the
 * contact skin (contact_skin.c) misses no touching pair, a box wall's hit
 * found alone is collide's, and the books summed per chunk of contacts do not
 * depend on the thread count. */
#include "dem_private.h"
#include "scene.h"
#include "sim.h" /* internal: the contacts and the per-contact forces */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 1500 spheres in a box, a lattice of touching spheres (the parser refuses
 * one packed closer, job_lattice.c) that gravity presses together, on 3
 * threads, every loop threaded (NDEM_PARALLEL_MIN=64): particle and wall
 * contacts. */
static ndem_job *bed_job(void)
{
    return test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": ["
        "{\"materials\": [\"ore\", \"ore\"], \"friction\": 0.5, \"rolling_resistance\": 0.1, "
        "\"restitution\": 0.3},"
        "{\"materials\": [\"ore\", \"steel\"], \"friction\": 0.5, \"restitution\": 0.3}],"
        "\"geometry\": [{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.4], "
        "\"inside\": true, \"material\": \"steel\"}],"
        "\"particles\": [{\"type\": \"lattice\", \"min\": [0.006, 0.006, 0.006], \"max\": "
        "[0.194, 0.194, 0.2], \"spacing\": 0.012, \"count\": 1500, \"radius\": 0.006, "
        "\"material\": \"ore\"}]},"
        "\"solver\": {\"method\": \"dem\", \"contact_model\": \"hertz\", \"time_step\": 0.0001, "
        "\"duration\": 1.0, \"threads\": 3}}");
}

/* The forces recompute each wall contact's hit by its feature alone
 * (geometry_box.c's box_feature_hit): for a container and a solid box, at
 * points inside, outside, on the faces and across the corners, every
 * feature's hit has the bits of collide's with an infinite margin, picked by
 * feature, as ndem_geometry_feature_hit found it before. */
START_TEST(box_wall_hit_equals_collide)
{
    ndem_job *job = bed_job();
    ndem_sim *sim = test_sim(job);
    ndem_geometry_def box = sim->geometry[0];
    const ndem_geometry_pose *pose = &sim->pose[0];
    long checked = 0;
    for (int solid = 0; solid < 2; solid++) {
        box.inside = !solid;
        for (int t = 0; t < 2000; t++) {
            /* a lattice of points from 0.1 outside to 0.1 beyond, some on a face */
            double x[3] = {-0.1 + 0.4 * (t % 11) / 10.0, -0.1 + 0.4 * (t / 11 % 13) / 12.0,
                           -0.1 + 0.6 * (t / 143 % 14) / 13.0};
            if (t % 7 == 0) x[t % 3] = box.max[t % 3];
            double r = 0.001 * (1 + t % 9);
            ndem_geo_hit all[NDEM_GEO_HITS];
            int m = ndem_geometry_collide(&box, pose, x, r, INFINITY, all);
            for (int f = 0; f < (solid ? 1 : 6); f++) {
                int at = 0;
                while (at < m - 1 && all[at].feature != f) at++;
                ck_assert_int_gt(m, 0);
                ndem_geo_hit hit;
                ndem_geometry_feature_hit(&box, pose, x, r, f, &hit);
                ck_assert_int_eq(hit.feature, f);
                ck_assert_msg(memcmp(hit.n, all[at].n, sizeof hit.n) == 0 &&
                                  memcmp(&hit.delta, &all[at].delta, sizeof hit.delta) == 0,
                              "%s box, point %d, feature %d: hit (%g %g %g, %g), collide's "
                              "(%g %g %g, %g)",
                              solid ? "solid" : "container", t, f, hit.n[0], hit.n[1], hit.n[2],
                              hit.delta, all[at].n[0], all[at].n[1], all[at].n[2], all[at].delta);
                checked++;
            }
        }
    }
    ck_assert_int_eq(checked, 2000 * 7);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(per_body_sums_equal_the_serial_pair_order_sum)
{
    setenv("NDEM_PARALLEL_MIN", "64", 1);
    ndem_job *job = bed_job();
    ndem_sim *sim = test_sim(job);
    unsetenv("NDEM_PARALLEL_MIN");
    long nb = sim->bodies.count, checked = 0, particle_pairs = 0;
    double *ref = malloc(sizeof(double) * 6 * (size_t)nb);
    ck_assert_ptr_nonnull(ref);
    for (int s = 0; s < 300; s++) {
        test_step(sim);
        if (s % 50 != 49) continue;
        /* the serial sum of the engine before issue 15: contacts in pair
         * order, force and torque to a, minus the force and b's torque to b */
        const ndem_contacts *c = &sim->contacts;
        const double *force = sim->dem->force;
        memset(ref, 0, sizeof(double) * 6 * (size_t)nb);
        for (long k = 0; k < c->count; k++) {
            const double *f = &force[NDEM_DEM_FORCE * k];
            ndem_contact_key key = c->key[k];
            for (int q = 0; q < 6; q++) ref[6 * key.a + q] += f[q];
            if (!ndem_key_is_particle(key)) continue;
            particle_pairs++;
            for (int q = 0; q < 3; q++) {
                ref[6 * key.b + q] -= f[q];
                ref[6 * key.b + 3 + q] += f[6 + q];
            }
        }
        ck_assert_msg(memcmp(ref, sim->dem->acc, sizeof(double) * 6 * (size_t)nb) == 0,
                      "step %d: a threaded body sum differs from the pair-order sum", s);
        checked++;
    }
    ck_assert_int_eq(checked, 6);
    ck_assert_int_gt(particle_pairs, 6 * nb); /* the bed touches: ~2 pairs per body and more */
    free(ref);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The hertz law's damping ratio for each restitution: the table answers what
 * the iteration does to 1e-9 from 1% of its range on (below, the iteration's
 * acos loses digits as 1e-16 / w^2), and the iteration itself past its end. */
START_TEST(hertz_dashpot_table_matches_the_iteration)
{
    const double es[] = {0.05, 0.18, 0.3, 0.5, 0.7, 0.9, 0.99};
    for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) {
        double p = ndem_dem_law_damping(NDEM_MODEL_HERTZ, es[i], 1.5);
        double zeta = ndem_dem_law_zeta(NDEM_MODEL_HERTZ, p, 1.5, 1.0);
        ndem_damp_table t;
        ck_assert_int_eq(ndem_damp_table_init(&t, zeta, 0.25), 0);
        /* used up to about where the clamped dashpot (0.25) takes over */
        ck_assert_msg(ndem_dem_discrete_damping(zeta, 1.01 * t.end) > 0.245 || t.end > 0.99,
                      "e = %g: table ends at omega h = %g", es[i], t.end);
        double worst = 0;
        for (int k = 0; k < 20000; k++) {
            double w = t.end * (0.01 + 0.99 * (k + 0.37) / 20000);
            double exact = ndem_dem_discrete_damping(zeta, w);
            worst = fmax(worst, fabs(ndem_damp_table_eval(&t, w) - exact) / exact);
        }
        ck_assert_msg(worst < 1e-9, "e = %g: table off by %g", es[i], worst);
        double past = 1.1 * t.end;
        ck_assert_double_eq(ndem_damp_table_eval(&t, past), ndem_dem_discrete_damping(zeta, past));
        ndem_damp_table_free(&t);
    }
    /* near zeta = 1 (Newton's method, dem_models.c) and overdamped the table
     * holds too (the fixed-point iteration it replaced jumped about there) */
    const double zs[] = {0.9, 0.999, 1.5};
    for (int i = 0; i < 3; i++) {
        ndem_damp_table t;
        ck_assert_int_eq(ndem_damp_table_init(&t, zs[i], 0.25), 0);
        ck_assert_msg(t.end > 0, "zeta %g: no table", zs[i]);
        ck_assert_double_lt(
            fabs(ndem_damp_table_eval(&t, 0.05) / ndem_dem_discrete_damping(zs[i], 0.05) - 1),
            1e-9);
        ndem_damp_table_free(&t);
    }
}
END_TEST

/* A settled layer and spheres falling onto it, in a box. */
static ndem_job *falling_job(void)
{
    return test_job(
        "{\"scene\": {" TEST_MATERIALS ", \"contact_materials\": ["
        "{\"materials\": [\"ore\", \"ore\"], \"friction\": 0.5, \"rolling_resistance\": 0.1, "
        "\"restitution\": 0.3},"
        "{\"materials\": [\"ore\", \"steel\"], \"friction\": 0.5, \"restitution\": 0.3}],"
        "\"geometry\": [{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.12, 0.12, 0.4], "
        "\"inside\": true, \"material\": \"steel\"}],"
        "\"particles\": [{\"type\": \"lattice\", \"min\": [0.006, 0.006, 0.006], \"max\": "
        "[0.114, 0.114, 0.03], \"spacing\": 0.012, \"count\": 240, \"radius\": 0.006, "
        "\"material\": \"ore\"},"
        "{\"type\": \"random\", \"min\": [0.01, 0.01, 0.04], \"max\": [0.11, 0.11, 0.09], "
        "\"count\": 120, \"radius\": {\"min\": 0.004, \"max\": 0.006}, \"material\": \"ore\", "
        "\"seed\": 5}]},"
        "\"solver\": {\"method\": \"dem\", \"contact_model\": \"hertz\", \"time_step\": 0.0001, "
        "\"duration\": 1.0, \"threads\": 2}}");
}

static int listed(const ndem_contacts *c, ndem_contact_key key)
{
    for (long k = c->start[key.a]; k < c->start[key.a + 1]; k++)
        if (ndem_key_same(c->key[k], key)) return 1;
    return 0;
}

/* Every touching pair and every sphere touching the box is a contact at every
 * step (all pairs tested), while the skin is searched afresh in far fewer
 * steps than there are; 1, 2 and 3 threads give the same bits, and these are
 * the states of a search every step. */
START_TEST(contact_skin_misses_no_touching_pair)
{
    const long steps = 1200;
    setenv("NDEM_PARALLEL_MIN", "64", 1);
    ndem_job *job = falling_job();
    ndem_sim *sim = test_sim(job);
    const ndem_bodies *b = &sim->bodies;
    long n = b->count, touching = 0, walls = 0;
    for (long s = 0; s < steps; s++) {
        test_step(sim);
        const ndem_contacts *c = &sim->contacts;
        for (long i = 0; i < n; i++) {
            const double *xi = &b->pos[3 * i];
            for (long j = i + 1; j < n; j++) {
                const double *xj = &b->pos[3 * j];
                double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
                double r = b->radius[i] + b->radius[j];
                if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] >= r * r) continue;
                touching++;
                ck_assert_msg(listed(c, (ndem_contact_key){(int)i, (int)j, NDEM_KEY_PARTICLE}),
                              "step %ld: touching pair %ld, %ld is not a contact", s, i, j);
            }
            ndem_geo_hit hits[NDEM_GEO_HITS];
            int m = ndem_geometry_collide(&sim->geometry[0], &sim->pose[0], xi, b->radius[i], 0.0,
                                          hits);
            for (int t = 0; t < m; t++) {
                if (!(hits[t].delta > 0)) continue;
                walls++;
                ck_assert_msg(listed(c, (ndem_contact_key){(int)i, 0, hits[t].feature}),
                              "step %ld: sphere %ld touches wall %d, not a contact", s, i,
                              hits[t].feature);
            }
        }
    }
    long builds = sim->contacts.skin.builds;
    uint64_t hash = ndem_sim_state_hash(sim);
    ndem_sim_destroy(sim);
    /* the spheres fell and landed: contacts came and went under the skin */
    ck_assert_int_gt(touching, 300 * steps);
    ck_assert_int_gt(walls, 40 * steps);
    ck_assert_msg(builds >= 5 && builds < steps / 2, "skin built %ld times in %ld steps", builds,
                  steps);
    /* 1 and 3 threads: the same skin builds and bits */
    for (int threads = 1; threads <= 3; threads += 2) {
        job->scene.solver.threads = threads;
        sim = test_sim(job);
        for (long s = 0; s < steps; s++) test_step(sim);
        ck_assert_int_eq(sim->contacts.skin.builds, builds);
        ck_assert_msg(ndem_sim_state_hash(sim) == hash, "%d threads: other states", threads);
        ndem_sim_destroy(sim);
    }
    setenv("NDEM_CONTACT_SKIN", "0", 1); /* a search every step */
    sim = test_sim(job);
    for (long s = 0; s < steps; s++) test_step(sim);
    ck_assert_int_eq(sim->contacts.skin.builds, 0);
    ck_assert_msg(ndem_sim_state_hash(sim) == hash, "the skin changed the states");
    ndem_sim_destroy(sim);
    unsetenv("NDEM_CONTACT_SKIN");
    unsetenv("NDEM_PARALLEL_MIN");
    ndem_job_destroy(job);
}
END_TEST

/* Body i's force and torque as the engine before issue 15 summed them: the
 * contacts in pair order, force and torque to a, minus the force and b's
 * torque to b. */
static void pair_order_sums(const ndem_sim *sim, double *ref)
{
    const ndem_contacts *c = &sim->contacts;
    const double *force = sim->dem->force;
    memset(ref, 0, sizeof(double) * 6 * (size_t)sim->bodies.count);
    for (long k = 0; k < c->count; k++) {
        const double *f = &force[NDEM_DEM_FORCE * k];
        ndem_contact_key key = c->key[k];
        for (int q = 0; q < 6; q++) ref[6 * key.a + q] += f[q];
        if (!ndem_key_is_particle(key)) continue;
        for (int q = 0; q < 3; q++) {
            ref[6 * key.b + q] -= f[q];
            ref[6 * key.b + 3 + q] += f[6 + q];
        }
    }
}

/* The books (elastic and dissipated energy, contact counts, deepest overlap)
 * summed per chunk of contacts on the threads, then chunk by chunk, and the
 * kinetic energy per chunk of bodies (integrate, step.c): the same
 * bits on 1 and 3 threads at every step, the counts and overlap exactly those
 * of the contacts, the energies their pair-order sums to rounding; and each
 * body's sum is the pair-order sum both at steps whose contacts are last
 * step's (the as-b CSR kept) and at steps whose contacts changed (rebuilt). */
START_TEST(books_per_chunk_do_not_depend_on_threads)
{
    const long steps = 800;
    setenv("NDEM_PARALLEL_MIN", "64", 1);
    ndem_job *job = falling_job();
    job->scene.solver.threads = 1;
    ndem_sim *one = test_sim(job);
    job->scene.solver.threads = 3;
    ndem_sim *three = test_sim(job);
    unsetenv("NDEM_PARALLEL_MIN");
    long nb = three->bodies.count, kept = 0, changed = 0, max_chunks = 0;
    double *ref = malloc(sizeof(double) * 6 * (size_t)nb);
    ndem_contact_key *last = NULL;
    long last_count = -1;
    ck_assert_ptr_nonnull(ref);
    for (long s = 0; s < steps; s++) {
        test_step(one);
        test_step(three);
        const ndem_step_stats *a = ndem_sim_stats(one), *b = ndem_sim_stats(three);
        ck_assert_msg(a->elastic_energy == b->elastic_energy &&
                          a->dissipated_energy == b->dissipated_energy &&
                          a->max_overlap == b->max_overlap && a->contacts == b->contacts &&
                          a->kinetic_energy == b->kinetic_energy &&
                          a->geometry_contacts == b->geometry_contacts,
                      "step %ld: the books differ on 1 and 3 threads", s);
        const ndem_contacts *c = &three->contacts;
        const double *e = three->dem->energy;
        double elastic = 0, scale = 0, maxov = 0;
        long touching = 0, geo = 0;
        for (long k = 0; k < c->count; k++) {
            elastic += e[3 * k], scale += fabs(e[3 * k]);
            if (e[3 * k + 2] > 0) {
                touching++;
                geo += !ndem_key_is_particle(c->key[k]);
                maxov = fmax(maxov, e[3 * k + 2]);
            }
        }
        ck_assert_int_eq(b->contacts, touching);
        ck_assert_int_eq(b->geometry_contacts, geo);
        ck_assert(b->max_overlap == maxov);
        ck_assert_msg(fabs(b->elastic_energy - elastic) <= 1e-13 * scale,
                      "step %ld: elastic energy %.17g, pair-order sum %.17g", s, b->elastic_energy,
                      elastic);
        const ndem_bodies *bd = &three->bodies;
        double ke = 0;
        for (long i = 0; i < nb; i++) {
            const double *v = &bd->vel[6 * i];
            ke += 0.5 / bd->inv_mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                  0.5 / bd->inv_inertia[i] * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
        }
        ck_assert_msg(fabs(b->kinetic_energy - ke) <= 1e-13 * ke,
                      "step %ld: kinetic energy %.17g, body-order sum %.17g", s, b->kinetic_energy,
                      ke);
        pair_order_sums(three, ref);
        ck_assert_msg(memcmp(ref, three->dem->acc, sizeof(double) * 6 * (size_t)nb) == 0,
                      "step %ld: a body's sum differs from the pair-order sum", s);
        int same = last_count == c->count &&
                   (c->count == 0 || memcmp(last, c->key, sizeof *last * (size_t)c->count) == 0);
        kept += same, changed += !same;
        long chunks = (c->count + 511) / 512;
        max_chunks = chunks > max_chunks ? chunks : max_chunks;
        last = realloc(last, sizeof *last * (size_t)(c->count + 1));
        ck_assert_ptr_nonnull(last);
        memcpy(last, c->key, sizeof *last * (size_t)c->count);
        last_count = c->count;
    }
    ck_assert_uint_eq(ndem_sim_state_hash(one), ndem_sim_state_hash(three));
    /* both paths ran many times, over more than one chunk */
    ck_assert_int_gt(kept, 100);
    ck_assert_int_gt(changed, 100);
    ck_assert_int_ge(max_chunks, 2);
    free(last);
    free(ref);
    ndem_sim_destroy(one);
    ndem_sim_destroy(three);
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dem_sum");
    TCase *tc = tcase_create("dem_sum");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, per_body_sums_equal_the_serial_pair_order_sum);
    tcase_add_test(tc, hertz_dashpot_table_matches_the_iteration);
    tcase_add_test(tc, contact_skin_misses_no_touching_pair);
    tcase_add_test(tc, box_wall_hit_equals_collide);
    tcase_add_test(tc, books_per_chunk_do_not_depend_on_threads);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
