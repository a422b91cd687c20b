/* test_decomp.c - the engine's side of domain decomposition (ndem.h,
 * "Domain decomposition"; docs/engine.md), without MPI: the particle and
 * warm-start state a caller moves between processes comes back as it went,
 * a pair given the other way round keeps its impulses, one "process" that
 * owns everything and exchanges nothing steps to the bits of an ordinary
 * simulation, a cut drops the contacts of the other side, and the slice
 * refuses what it cannot split. The grid of blocks (decomp_grid.h): every
 * point has one block, neighbours across faces, edges and corners, cuts at
 * equal counts (slabs as before, a bed on one side balanced), the grid
 * chosen from the rank count. tests/cli_mpi.sh runs the MPI side. */
#include "decomp_grid.h"
#include "scene.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 30

/* A falling bed of 600 spheres in a box: contacts with the floor, walls
 * and each other, impacts in its first steps. */
static ndem_job *bed_job(const char *extra)
{
    return test_job("{\"scene\": {" TEST_MATERIALS ", "
                    "\"geometry\": [{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.12, "
                    "0.12, 0.3], \"inside\": true, \"material\": \"steel\"}],"
                    "\"particles\": [{\"type\": \"lattice\", \"min\": [0.006, 0.006, 0.006], "
                    "\"max\": [0.114, 0.114, 0.2], \"spacing\": 0.0121, \"count\": 600, "
                    "\"radius\": 0.006, \"material\": \"ore\", \"velocity\": [0.05, -0.03, 0]}]%s},"
                    "\"solver\": {\"time_step\": 0.002, \"iterations\": 20, \"duration\": 1.0, "
                    "\"threads\": 1}}",
                    extra);
}

typedef struct fake {
    double cut; /* owns_point: x < cut (INFINITY: everything) */
    long loaded, sweeps, sums;
} fake;

static int fake_owns(void *ctx, const double p[3]) { return p[0] < ((fake *)ctx)->cut; }
static void fake_loaded(void *ctx, float *slots, const long *where, const unsigned char *touched)
{
    (void)slots, (void)where, (void)touched;
    ((fake *)ctx)->loaded++;
}
static void fake_sweep(void *ctx, float *slots, const long *where)
{
    (void)slots, (void)where;
    ((fake *)ctx)->sweeps++;
}
static double fake_sum(void *ctx, double v)
{
    ((fake *)ctx)->sums++;
    return v; /* one process: its own value */
}

static long fake_region(void *ctx, const double lo[3], const double hi[3], double *reach,
                        double **out)
{
    (void)ctx, (void)lo, (void)hi, (void)reach;
    *out = NULL;
    return 0;
}
static int fake_emitted(void *ctx, long first, long count)
{
    (void)ctx, (void)first, (void)count;
    return 0;
}

static void install(ndem_sim *sim, fake *f, long first_ghost)
{
    ndem_decomp_hooks hk = {f, fake_owns, fake_loaded, fake_sweep, fake_sum, NULL, NULL};
    ck_assert_int_eq(ndem_sim_decompose(sim, &hk, first_ghost), 0);
}

/* One "process" holding every particle, owning every contact, with hooks
 * that exchange nothing: the same bits as the ordinary step, the hooks
 * called after the warm step and every sweep. */
START_TEST(one_process_decomposed_steps_to_the_same_bits)
{
    ndem_job *job = bed_job("");
    ndem_sim *plain = test_sim(job), *dec = test_sim(job);
    fake f = {INFINITY, 0, 0, 0};
    install(dec, &f, ndem_sim_particle_count(dec));
    for (int i = 0; i < STEPS; i++) {
        test_step(plain);
        test_step(dec);
        const ndem_step_stats *a = ndem_sim_stats(plain), *b = ndem_sim_stats(dec);
        ck_assert_int_eq(a->rows, b->rows);
        ck_assert(a->kinetic_energy == b->kinetic_energy);
        ck_assert(a->residual_normal == b->residual_normal);
    }
    ck_assert_uint_eq(ndem_sim_state_hash(plain), ndem_sim_state_hash(dec));
    /* 20 sweeps a step at least (and the warm step); the slots load once per stage */
    ck_assert_int_ge(f.sweeps, STEPS * 20);
    ck_assert_int_ge(f.loaded, STEPS);
    ck_assert_int_ge(f.sums, STEPS); /* the impact decision, the residuals */
    ndem_sim_destroy(plain);
    ndem_sim_destroy(dec);
    ndem_job_destroy(job);
}
END_TEST

/* A cut at x = 0.06: the pairs whose contact point lies beyond it are not
 * solved here, nor the geometry contacts of ghosts; every row left is one
 * the undivided step also has. */
START_TEST(a_cut_drops_the_other_sides_contacts)
{
    ndem_job *job = bed_job("");
    ndem_sim *plain = test_sim(job), *dec = test_sim(job);
    fake f = {0.06, 0, 0, 0};
    install(dec, &f, ndem_sim_particle_count(dec)); /* no ghosts: pairs only */
    test_step(plain);
    test_step(dec);
    long all = ndem_sim_stats(plain)->rows, mine = ndem_sim_stats(dec)->rows;
    ck_assert_int_gt(mine, all / 4);
    ck_assert_int_lt(mine, 3 * all / 4);
    /* ghosts from the middle on: their geometry contacts go too */
    ndem_sim *gh = test_sim(job);
    fake g = {INFINITY, 0, 0, 0};
    install(gh, &g, ndem_sim_particle_count(gh) / 2);
    for (int i = 0; i < STEPS; i++) test_step(gh), test_step(plain); /* onto the floor */
    ck_assert_int_gt(ndem_sim_stats(plain)->geometry_contacts, 50);
    ck_assert_int_lt(ndem_sim_stats(gh)->geometry_contacts,
                     ndem_sim_stats(plain)->geometry_contacts);
    ndem_sim_destroy(gh);
    ndem_sim_destroy(plain);
    ndem_sim_destroy(dec);
    ndem_job_destroy(job);
}
END_TEST

static int cmp_entry(const void *x, const void *y)
{
    const ndem_history_entry *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return (p->feature > q->feature) - (p->feature < q->feature);
}

/* A pair's entry under its lower id; its impulse vectors act on b, so
 * they turn with the pair. */
static void canonical(ndem_history_entry *e)
{
    if (e->b < 0 || e->a < e->b) return;
    long t = e->a;
    e->a = e->b, e->b = t;
    for (int q = 1; q < 7; q++) e->lam[q] = -e->lam[q];
}

/* Particles and warm-start history out, back in reversed order (so every
 * pair arrives the other way round), out again: the same states, and the
 * same entries once mapped back, impulses turned back with their pair. */
START_TEST(particles_and_history_survive_a_move)
{
    ndem_job *job = bed_job("");
    ndem_sim *sim = test_sim(job);
    for (int i = 0; i < STEPS; i++) test_step(sim);
    long n = ndem_sim_particle_count(sim);
    ndem_particle_state *p = malloc(sizeof *p * (size_t)n), *r = malloc(sizeof *r * (size_t)n);
    ndem_particle_state *back = malloc(sizeof *back * (size_t)n);
    ndem_sim_get_particles(sim, p);
    ndem_history_entry *h = NULL, *h2 = NULL;
    long nh = ndem_sim_get_history(sim, &h);
    ck_assert_int_gt(nh, 500);
    for (long i = 0; i < n; i++) r[i] = p[n - 1 - i];
    ndem_history_entry *rh = malloc(sizeof *rh * (size_t)nh);
    for (long k = 0; k < nh; k++) {
        rh[k] = h[k];
        rh[k].a = n - 1 - h[k].a;
        if (h[k].b >= 0) rh[k].b = n - 1 - h[k].b;
    }
    char err[256];
    ck_assert_int_eq(ndem_sim_set_particles(sim, n, n, r, nh, rh, err, sizeof err), 0);
    ndem_sim_get_particles(sim, back);
    for (long i = 0; i < n; i++) { /* field by field: the struct has padding */
        ck_assert_int_eq(memcmp(back[i].x, r[i].x, sizeof r[i].x), 0);
        ck_assert_int_eq(memcmp(back[i].q, r[i].q, sizeof r[i].q), 0);
        ck_assert_int_eq(memcmp(back[i].v, r[i].v, sizeof r[i].v), 0);
        ck_assert(back[i].radius == r[i].radius && back[i].inv_mass == r[i].inv_mass &&
                  back[i].inv_inertia == r[i].inv_inertia && back[i].material == r[i].material);
    }
    ck_assert_int_eq(ndem_sim_get_history(sim, &h2), nh);
    /* map back to the first numbering; both lists with each pair under its
     * lower id (the engine keeps it under the lower internal index) */
    for (long k = 0; k < nh; k++) {
        h2[k].a = n - 1 - h2[k].a;
        if (h2[k].b >= 0) h2[k].b = n - 1 - h2[k].b;
        canonical(&h2[k]);
        canonical(&h[k]);
    }
    qsort(h, (size_t)nh, sizeof *h, cmp_entry);
    qsort(h2, (size_t)nh, sizeof *h2, cmp_entry);
    for (long k = 0; k < nh; k++) {
        ck_assert_int_eq(h[k].a, h2[k].a);
        ck_assert_int_eq(h[k].b, h2[k].b);
        ck_assert_int_eq(h[k].feature, h2[k].feature);
        for (int q = 0; q < 7; q++) ck_assert(h[k].lam[q] == h2[k].lam[q]);
    }
    /* an entry naming a particle that is not there is refused, with its index */
    rh[3].a = n + 5;
    ck_assert_int_eq(ndem_sim_set_particles(sim, n, n, r, nh, rh, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "warm-start entry 3"));
    free(p), free(r), free(back), free(h), free(h2), free(rh);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

/* The gathered checkpoint (ndem_sim_checkpoint_of): particles and entries
 * given in reversed order come back from ndem_sim_restore as one
 * simulation of the scene, at the step it was written, with those
 * particles and entries, impulses turned with their pairs. */
START_TEST(a_gathered_checkpoint_restores_as_one_simulation)
{
    ndem_job *job = bed_job("");
    ndem_sim *sim = test_sim(job);
    for (int i = 0; i < STEPS; i++) test_step(sim);
    long n = ndem_sim_particle_count(sim);
    ndem_particle_state *p = malloc(sizeof *p * (size_t)n), *r = malloc(sizeof *r * (size_t)n);
    ndem_particle_state *back = malloc(sizeof *back * (size_t)n);
    ndem_sim_get_particles(sim, p);
    ndem_history_entry *h = NULL, *h2 = NULL;
    long nh = ndem_sim_get_history(sim, &h);
    ck_assert_int_gt(nh, 500);
    for (long i = 0; i < n; i++) r[i] = p[n - 1 - i];
    ndem_history_entry *rh = malloc(sizeof *rh * (size_t)nh);
    for (long k = 0; k < nh; k++) {
        rh[k] = h[nh - 1 - k];
        rh[k].a = n - 1 - rh[k].a;
        if (rh[k].b >= 0) rh[k].b = n - 1 - rh[k].b;
    }
    void *buf = NULL;
    size_t len = 0;
    ck_assert_int_eq(ndem_sim_checkpoint_of(sim, n, r, nh, rh, &buf, &len), 0);
    char err[256];
    ndem_sim *back_sim = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(back_sim != NULL, "%s", err);
    ck_assert_int_eq(ndem_sim_stats(back_sim)->step, STEPS);
    ck_assert_int_eq(ndem_sim_particle_count(back_sim), n);
    ndem_sim_get_particles(back_sim, back);
    for (long i = 0; i < n; i++) {
        ck_assert_int_eq(memcmp(back[i].x, r[i].x, sizeof r[i].x), 0);
        ck_assert_int_eq(memcmp(back[i].v, r[i].v, sizeof r[i].v), 0);
        ck_assert(back[i].radius == r[i].radius && back[i].material == r[i].material);
    }
    ck_assert_int_eq(ndem_sim_get_history(back_sim, &h2), nh);
    for (long k = 0; k < nh; k++) {
        h2[k].a = n - 1 - h2[k].a;
        if (h2[k].b >= 0) h2[k].b = n - 1 - h2[k].b;
        canonical(&h2[k]);
        canonical(&h[k]);
    }
    qsort(h, (size_t)nh, sizeof *h, cmp_entry);
    qsort(h2, (size_t)nh, sizeof *h2, cmp_entry);
    for (long k = 0; k < nh; k++) {
        ck_assert(h[k].a == h2[k].a && h[k].b == h2[k].b && h[k].feature == h2[k].feature);
        for (int q = 0; q < 7; q++) ck_assert(h[k].lam[q] == h2[k].lam[q]);
    }
    /* an entry out of range: no checkpoint */
    free(buf);
    rh[2].b = n + 1;
    ck_assert_int_eq(ndem_sim_checkpoint_of(sim, n, r, nh, rh, &buf, &len), -1);
    free(p), free(r), free(back), free(h), free(h2), free(rh);
    ndem_sim_destroy(back_sim);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(the_slice_refuses_what_it_cannot_split)
{
    fake f = {INFINITY, 0, 0, 0};
    ndem_decomp_hooks hk = {&f, fake_owns, fake_loaded, fake_sweep, fake_sum, NULL, NULL};
    ndem_job *emit = bed_job(", \"emitters\": [{\"min\": [0.02, 0.02, 0.25], \"max\": [0.1, 0.1, "
                             "0.28], \"rate\": 100, \"radius\": {\"min\": 0.005, \"max\": 0.005}, "
                             "\"material\": \"ore\"}]");
    ndem_sim *sim = test_sim(emit);
    ck_assert_int_eq(ndem_sim_decompose(sim, &hk, 0), -1); /* emitters need the two hooks */
    ndem_decomp_hooks with = hk;
    with.region = fake_region, with.emitted = fake_emitted;
    ck_assert_int_eq(ndem_sim_decompose(sim, &with, 0), 0);
    ndem_sim_destroy(sim);
    ndem_job_destroy(emit);
    ndem_job *dem = test_job("{\"scene\": {" TEST_MATERIALS ", \"particles\": [{\"type\": "
                             "\"list\", \"spheres\": [[0, 0, 0.01, 0.005]], \"material\": "
                             "\"ore\"}]}, \"solver\": {\"method\": \"dem\", \"time_step\": 1e-5, "
                             "\"duration\": 0.001}}");
    sim = test_sim(dem);
    ck_assert_int_eq(ndem_sim_decompose(sim, &hk, 0), -1);
    ndem_sim_destroy(sim);
    ndem_job_destroy(dem);
}
END_TEST

/* n points uniform in [lo, hi] (a fixed LCG: the same points everywhere) */
static double *points(long n, const double lo[3], const double hi[3], unsigned seed)
{
    double *x = malloc(3 * sizeof(double) * (size_t)n);
    ck_assert_ptr_nonnull(x);
    for (long i = 0; i < 3 * n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = lo[i % 3] + (hi[i % 3] - lo[i % 3]) * ((seed >> 8) / 16777216.0);
    }
    return x;
}

static void no_sum(void *ctx, long *counts, int n) { (void)ctx, (void)counts, (void)n; }

static void owned_counts(const ndem_grid *g, long n, const double *x, long *cnt)
{
    for (int b = 0; b < ndem_grid_size(g); b++) cnt[b] = 0;
    for (long i = 0; i < n; i++) {
        int b = ndem_grid_owner(g, &x[3 * i]);
        double lo[3], hi[3];
        ndem_grid_box(g, b, lo, hi);
        for (int a = 0; a < 3; a++) /* the owner's box holds the point */
            ck_assert(x[3 * i + a] >= lo[a] && x[3 * i + a] < hi[a]);
        ck_assert(ndem_grid_within(g, b, &x[3 * i], 0));
        cnt[b]++;
    }
}

START_TEST(a_grid_of_blocks_has_neighbours_across_faces_edges_and_corners)
{
    long n = 27000;
    double lo[3] = {0, 0, 0}, hi[3] = {0.3, 0.3, 0.3};
    double *x = points(n, lo, hi, 7);
    ndem_grid g;
    ck_assert_int_eq(ndem_grid_init(&g, (int[3]){3, 3, 3}), 0);
    ck_assert_int_eq(ndem_grid_balance(&g, n, x, no_sum, NULL), 0);
    long cnt[27];
    owned_counts(&g, n, x, cnt);
    for (int b = 0; b < 27; b++) ck_assert_int_eq(cnt[b], 1000); /* n / 27 each, exactly */
    /* halo 1 cm against blocks of about 10 cm: the centre block (1, 1, 1)
     * has all 26 around it, a corner block the 7 of its octant */
    int centre = (1 * 3 + 1) * 3 + 1, around = 0, corner = 0;
    for (int b = 0; b < 27; b++) {
        around += b != centre && ndem_grid_near(&g, centre, b, 0.01);
        corner += b != 0 && ndem_grid_near(&g, 0, b, 0.01);
        ck_assert_int_eq(ndem_grid_near(&g, 0, b, 0.01), ndem_grid_near(&g, b, 0, 0.01));
    }
    ck_assert_int_eq(around, 26);
    ck_assert_int_eq(corner, 7);
    /* a point just past a corner of block 0 lies within the halo of 0 and
     * of the 7 blocks that meet there */
    double lo0[3], hi0[3], p[3];
    ndem_grid_box(&g, 0, lo0, hi0);
    for (int a = 0; a < 3; a++) p[a] = hi0[a] + 0.001;
    int holders = 0;
    for (int b = 0; b < 27; b++) holders += ndem_grid_within(&g, b, p, 0.01);
    ck_assert_int_eq(holders, 8);
    /* the cuts go through a checkpoint and come back */
    int nc = ndem_grid_cut_count(&g);
    ck_assert_int_eq(nc, 2 + 3 * 2 + 9 * 2);
    double *c = malloc(sizeof(double) * (size_t)nc);
    ndem_grid_get_cuts(&g, c);
    ndem_grid h;
    ck_assert_int_eq(ndem_grid_init(&h, g.dims), 0);
    ndem_grid_set_cuts(&h, c);
    for (long i = 0; i < n; i++)
        ck_assert_int_eq(ndem_grid_owner(&h, &x[3 * i]), ndem_grid_owner(&g, &x[3 * i]));
    free(c), free(x);
    ndem_grid_free(&g), ndem_grid_free(&h);
}
END_TEST

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(one_axis_is_the_slabs_cut_at_equal_counts)
{
    long n = 2001;
    double lo[3] = {0, 0, 0}, hi[3] = {0.2, 0.1, 0.5};
    double *x = points(n, lo, hi, 3), *xs = malloc(sizeof(double) * (size_t)n);
    ndem_grid g;
    ck_assert_int_eq(ndem_grid_init(&g, (int[3]){4, 1, 1}), 0);
    ck_assert_int_eq(ndem_grid_balance(&g, n, x, no_sum, NULL), 0);
    for (long i = 0; i < n; i++) xs[i] = x[3 * i];
    qsort(xs, (size_t)n, sizeof(double), cmp_d);
    double c[3];
    ck_assert_int_eq(ndem_grid_cut_count(&g), 3);
    ndem_grid_get_cuts(&g, c);
    /* the slabs' rule: the (n k / size)-th smallest x, to the bit */
    for (int k = 1; k < 4; k++) ck_assert(c[k - 1] == xs[(long)((double)n * k / 4)]);
    free(x), free(xs);
    ndem_grid_free(&g);
}
END_TEST

START_TEST(cuts_balance_a_bed_that_sits_on_one_side)
{
    /* 4000 points in the left quarter of a 0.2 m bin, half of them in its
     * front tenth: 2 x 2 blocks own 1000 each (equal fixed cuts would put
     * every point in the two left blocks) */
    long n = 4000;
    double lo[3] = {0, 0, 0}, hi[3] = {0.05, 0.1, 0.3}, hi2[3] = {0.05, 0.01, 0.3};
    double *x = points(n, lo, hi, 11), *y = points(n / 2, lo, hi2, 5);
    memcpy(x, y, 3 * sizeof(double) * (size_t)(n / 2));
    ndem_grid g;
    ck_assert_int_eq(ndem_grid_init(&g, (int[3]){2, 2, 1}), 0);
    ck_assert_int_eq(ndem_grid_balance(&g, n, x, no_sum, NULL), 0);
    long cnt[4];
    owned_counts(&g, n, x, cnt);
    for (int b = 0; b < 4; b++) ck_assert(labs(cnt[b] - n / 4) <= n / 40); /* within 10% */
    free(x), free(y);
    ndem_grid_free(&g);
}
END_TEST

START_TEST(the_grid_follows_the_rank_count_and_the_scene)
{
    int d[3];
    double bed[3] = {0.2, 0.1, 0.5}, cube[3] = {1, 1, 1};
    ndem_grid_auto_dims(2, bed, 2, d); /* the slab across the longest axis but gravity's */
    ck_assert(d[0] == 2 && d[1] == 1 && d[2] == 1);
    ndem_grid_auto_dims(4, bed, 2, d); /* 2 x 2 and 4 x 1 cut the same area: the first */
    ck_assert(d[0] == 2 && d[1] == 2 && d[2] == 1);
    ndem_grid_auto_dims(8, cube, -1, d);
    ck_assert(d[0] == 2 && d[1] == 2 && d[2] == 2);
    ndem_grid_auto_dims(8, cube, 2, d);
    ck_assert(d[0] * d[1] == 8 && d[2] == 1);
    ndem_grid_auto_dims(1, cube, 2, d);
    ck_assert(d[0] == 1 && d[1] == 1 && d[2] == 1);
    ck_assert_int_eq(ndem_grid_parse("2x2x1", d), 0);
    ck_assert(d[0] == 2 && d[1] == 2 && d[2] == 1);
    ck_assert_int_eq(ndem_grid_parse("2x2", d), -1);
    ck_assert_int_eq(ndem_grid_parse("2x0x1", d), -1);
    ck_assert_int_eq(ndem_grid_parse("2x2x1y", d), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("decomp");
    TCase *tc = tcase_create("decomp");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, one_process_decomposed_steps_to_the_same_bits);
    tcase_add_test(tc, a_cut_drops_the_other_sides_contacts);
    tcase_add_test(tc, particles_and_history_survive_a_move);
    tcase_add_test(tc, a_gathered_checkpoint_restores_as_one_simulation);
    tcase_add_test(tc, the_slice_refuses_what_it_cannot_split);
    tcase_add_test(tc, a_grid_of_blocks_has_neighbours_across_faces_edges_and_corners);
    tcase_add_test(tc, one_axis_is_the_slabs_cut_at_equal_counts);
    tcase_add_test(tc, cuts_balance_a_bed_that_sits_on_one_side);
    tcase_add_test(tc, the_grid_follows_the_rank_count_and_the_scene);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
