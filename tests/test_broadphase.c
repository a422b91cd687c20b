/* test_broadphase.c - the broad phase with huge radius ratios (issue 12
 * item 2): the Verlet lists hold exactly the pairs within reach whatever
 * the radii (checked against a brute-force search of all pairs), the work
 * of a list build grows linearly with the particle count when one 100 m
 * sphere sits among millimetre ones (it grew quadratically: every small
 * sphere shared one cell sized by the big one), and a small sphere pressed
 * onto the big one comes to rest on its surface (the contact is found). */
#include "scene.h"
#include "sim.h"
#include "testutil.h"

#include <math.h>

static double rand01(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * 0x1.0p-53;
}

/* A list scene of `n` spheres (x, y, z, r); no gravity, no walls. */
static ndem_sim *list_sim(const double *spheres, long n, ndem_material_def *m,
                          ndem_generator_def *g)
{
    *m = ndem_default_material_def();
    *g = ndem_default_generator_def();
    g->type = NDEM_GENERATOR_LIST;
    g->spheres = spheres;
    g->list_count = n;
    ndem_scene_def s = ndem_default_scene_def();
    for (int k = 0; k < 3; k++) s.gravity[k] = 0.0;
    s.material_count = 1;
    s.materials = m;
    s.generator_count = 1;
    s.generators = g;
    s.solver.time_step = 1e-4;
    s.solver.duration = 1.0;
    s.solver.threads = 1;
    char err[256] = "";
    ndem_sim *sim = ndem_sim_create(&s, err, sizeof err);
    ck_assert_msg(sim != NULL, "create failed: %s", err);
    return sim;
}

/* Every pair i < j within reach at the build (positions x0) is in i's list
 * and every listed pair is within reach: the same arithmetic as ndem_within. */
static void check_lists_exact(const ndem_sim *sim)
{
    const ndem_neighbours *nl = &sim->neighbours;
    const ndem_bodies *b = &sim->bodies;
    long n = b->count, found = 0;
    ck_assert(nl->valid);
    ck_assert_int_eq(nl->bodies, n);
    double rmax = 0.0;
    for (long i = 0; i < n; i++) rmax = fmax(rmax, b->radius[i]);
    for (long i = 0; i < n; i++) {
        long k = nl->start[i];
        for (long j = i + 1; j < n; j++) {
            const double *xi = &nl->x0[3 * i], *xj = &nl->x0[3 * j];
            double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
            double ri = b->radius[i], rj = b->radius[j];
            double reach = ri + rj + (nl->skin - 0.05 * (rmax - (ri < rj ? ri : rj)));
            int near = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach;
            int listed = k < nl->start[i + 1] && nl->j[k] == j;
            if (near != listed) /* one call per pair would dominate the test's time */
                ck_abort_msg("pair %ld %ld: within reach %d, listed %d", i, j, near, listed);
            if (listed) k++, found++;
        }
        ck_assert_int_eq(k, nl->start[i + 1]); /* sorted, nothing else listed */
    }
    ck_assert_int_eq(found, nl->count);
}

/* Mixed scenes against the brute force: small spheres (r 1 mm) in a dense
 * block or in two clusters 50 m apart (hashed cells), with big spheres of
 * 1 cm to 100 m (two overlapping each other, the 100 m one spanning more
 * cells than there are bodies), moving so that the lists are rebuilt. */
START_TEST(lists_match_brute_force)
{
    const long n = 1500;
    double *sp = malloc(sizeof(double) * 4 * (size_t)n);
    uint64_t seed = 7 + (uint64_t)_i;
    for (long i = 0; i < n; i++) {
        double *s = &sp[4 * i];
        double off = _i == 1 && i % 2 ? 50.0 : 0.0; /* two far clusters: hashed cells */
        for (int k = 0; k < 3; k++) s[k] = 0.06 * rand01(&seed) + (k == 0 ? off : 0.0);
        s[3] = 0.001;
    }
    /* big ones at the ends of the index range and in between */
    static const double big[][4] = {{0.03, 0.03, 0.03, 0.01},  {0.04, 0.03, 0.03, 0.012},
                                    {0.0, 0.0, -100.0, 100.0}, {0.06, 0.06, 0.07, 0.015},
                                    {50.03, 0.03, 0.03, 0.02}, {0.02, 0.05, 0.0, 0.01}};
    static const long at[] = {0, 3, 700, 701, 1200, 1499};
    for (int q = 0; q < 6; q++)
        for (int k = 0; k < 4; k++) sp[4 * at[q] + k] = big[q][k];
    ndem_material_def m;
    ndem_generator_def g;
    ndem_sim *sim = list_sim(sp, n, &m, &g);
    double r_cell, split; /* the six are big, the rest in the cells */
    ndem_grid_radii(&sim->bodies, &r_cell, &split);
    ck_assert_double_eq(r_cell, 0.001);
    ck_assert_double_lt(split, 0.01);
    /* every body drifts at its own speed: builds at several steps */
    for (long i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) sim->bodies.vel[6 * i + k] = 2.0 * (rand01(&seed) - 0.5);
    long builds = 0, checked = 0;
    for (int step = 0; step < 12; step++) {
        test_step(sim);
        if (sim->neighbours.builds != builds && checked < 3) {
            builds = sim->neighbours.builds;
            check_lists_exact(sim);
            checked++;
        }
    }
    ck_assert_int_ge(checked, 2);
    ck_assert(sim->grid.big == NULL); /* the grid's memory went back after the build */
    ndem_sim_destroy(sim);
    free(sp);
}
END_TEST

/* One 100 m sphere under n small ones (r 1 mm) in a layer whose area grows
 * with n (constant density). Returns the pairs tested by the first build,
 * and the listed pairs in *listed. */
static long big_among_small(long n, long *listed)
{
    double *sp = malloc(sizeof(double) * 4 * (size_t)(n + 1));
    uint64_t seed = 11;
    double half = 0.05 * sqrt((double)n / 2000.0);
    sp[0] = sp[1] = 0.0, sp[2] = -100.0, sp[3] = 100.0;
    for (long i = 1; i <= n; i++) { /* 4 % packing, a few overlaps do not matter here */
        sp[4 * i] = half * (2.0 * rand01(&seed) - 1.0);
        sp[4 * i + 1] = half * (2.0 * rand01(&seed) - 1.0);
        sp[4 * i + 2] = 0.002 + 0.02 * rand01(&seed);
        sp[4 * i + 3] = 0.001;
    }
    ndem_material_def m;
    ndem_generator_def g;
    ndem_sim *sim = list_sim(sp, n + 1, &m, &g);
    test_step(sim);
    ck_assert_int_eq(sim->neighbours.builds, 1);
    long tested = sim->neighbours.tested;
    *listed = sim->neighbours.count;
    ndem_sim_destroy(sim);
    free(sp);
    return tested;
}

START_TEST(work_grows_linearly_with_a_huge_radius_ratio)
{
    long l2, l8;
    long t2 = big_among_small(2000, &l2), t8 = big_among_small(8000, &l8);
    fprintf(stderr, "radius ratio 1e5: 2000 small: %ld tested, %ld listed; 8000: %ld, %ld\n", t2,
            l2, t8, l8);
    /* linear: 4; quadratic (one cell for all): 16 */
    ck_assert_double_lt((double)t8 / (double)t2, 6.0);
    ck_assert_double_lt((double)l8 / (double)l2, 6.0);
    /* and small in absolute terms: a few dozen candidates per sphere */
    ck_assert_int_lt(t8, 100L * 8000);
}
END_TEST

/* A small sphere pressed onto the top of a 100 m sphere by a force equal to
 * its weight (no gravity, so the big sphere stays where it is) comes to rest
 * on the surface: centre at 100 + r less a Hertz overlap far below 1 um. */
START_TEST(small_sphere_rests_on_big_one)
{
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], " TEST_MATERIALS ", \"particles\": ["
        "{\"type\": \"list\", \"spheres\": [[0, 0, 0, 100]], \"material\": \"steel\"},"
        "{\"type\": \"list\", \"spheres\": [[0, 0, 100.004, 0.001]], \"material\": \"ore\","
        " \"force\": [0, 0, -1.0271e-4]}]},"
        " \"solver\": {\"time_step\": 1e-4, \"duration\": 0.15}}");
    ndem_sim *sim = test_sim(job);
    long n = ndem_sim_total_steps(sim);
    for (long i = 0; i < n; i++) test_step(sim);
    ndem_frame f;
    ck_assert_int_eq(ndem_sim_copy_frame(sim, &f), 0);
    ck_assert_int_eq(f.count, 2);
    double z = f.positions[5];
    fprintf(stderr, "small sphere at z = %.9f, v = %.3g m/s\n", z, f.velocities[5]);
    ck_assert_double_lt(fabs(z - 100.001), 1e-6);
    ck_assert_double_lt(fabs(f.velocities[5]), 1e-4);
    ck_assert_double_lt(fabs(f.positions[2]), 1e-9); /* the big one did not move */
    ck_assert_int_eq(ndem_sim_stats(sim)->contacts, 1);
    ndem_frame_free(&f);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The narrow phase's key blocks start in slices of the velocity slots'
 * buffer, 4 keys a body (contacts.c); an FCC packing has 6 contacts a body
 * with a higher index inside, so blocks outgrow their slices and move to
 * their own allocations: the contacts found must still be every pair closer
 * than the contact test's reach, no more and no fewer (a brute-force count;
 * the spheres overlap by 0.1% of a diameter, the next neighbours are 41%
 * of a diameter apart). */
START_TEST(key_blocks_outgrow_their_slices)
{
    const int cells = 10;
    const double r = 0.01, dnn = 2.0 * r * 0.999, a = dnn * sqrt(2.0);
    const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    long n = 4L * cells * cells * cells, m = 0;
    double *sp = malloc(sizeof(double) * 4 * (size_t)n);
    ck_assert(sp != NULL);
    for (int x = 0; x < cells; x++)
        for (int y = 0; y < cells; y++)
            for (int z = 0; z < cells; z++)
                for (int q = 0; q < 4; q++, m++) {
                    sp[4 * m] = (x + basis[q][0]) * a;
                    sp[4 * m + 1] = (y + basis[q][1]) * a;
                    sp[4 * m + 2] = (z + basis[q][2]) * a;
                    sp[4 * m + 3] = r;
                }
    long touching = 0;
    for (long i = 0; i < n; i++)
        for (long j = i + 1; j < n; j++) {
            double d2 = 0.0;
            for (int k = 0; k < 3; k++) d2 += pow(sp[4 * j + k] - sp[4 * i + k], 2);
            touching += d2 < pow(2.0 * r * 1.025, 2); /* r_i + r_j + 0.05 r */
        }
    /* nearest neighbours of an FCC block: 6 bond directions, each joining the
     * points of a (L - 1) x (L - 1) x L box of half cells, half of them on
     * the lattice (L = 2 cells, even): 3 L (L - 1)^2 pairs */
    const long L = 2 * cells;
    ck_assert_int_eq(touching, 3 * L * (L - 1) * (L - 1));
    ndem_material_def mat;
    ndem_generator_def gen;
    ndem_sim *sim = list_sim(sp, n, &mat, &gen);
    ck_assert_int_eq(ndem_sim_step(sim), NDEM_OK);
    const ndem_contacts *c = &sim->contacts;
    long own = 0;
    for (long bi = 0; bi < (n + NDEM_PAIR_BLOCK - 1) / NDEM_PAIR_BLOCK; bi++)
        own += c->blocks[bi].own;
    fprintf(stderr,
            "FCC of %ld spheres: %ld contacts (brute force %ld), %ld of %ld key blocks "
            "outgrew their slices\n",
            n, c->count, touching, own, (n + NDEM_PAIR_BLOCK - 1) / NDEM_PAIR_BLOCK);
    ck_assert_int_gt(own, 0);
    ck_assert_int_eq(c->count, touching);
    ndem_sim_destroy(sim);
    free(sp);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("broadphase");
    TCase *tc = tcase_create("radius ratios");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, lists_match_brute_force, 0, 2);
    tcase_add_test(tc, work_grows_linearly_with_a_huge_radius_ratio);
    tcase_add_test(tc, small_sphere_rests_on_big_one);
    tcase_add_test(tc, key_blocks_outgrow_their_slices);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
