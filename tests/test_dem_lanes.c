/* test_dem_lanes.c - smooth DEM's hertz law in vector lanes (dem_lanes.c,
 * issue 15): every contact's force, torques, history and energies are the
 * bits of the scalar law (NDEM_DEM_LANES=0), step by step, on each copy of
 * the kernel the CPU runs (AVX2, AVX-512), in a scene whose packets mix
 * material pairs, first and last contact steps, sliding and rolling cuts,
 * wall contacts (their own packets since session 12) and open listed pairs, and in head-on pairs
 * whose last steps' shares set the force. */
#include "dem_private.h"
#include "rows.h" /* ndem_solver_isa */
#include "scene.h"
#include "sim.h" /* internal: the contacts and the per-contact arrays */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 1500

/* Two particle materials (three particle pairs, each with its own
 * restitution, so its own dashpot table), a slippery pair that slides and
 * a rolling resistance that cuts; spheres of both fall onto a layer. */
static ndem_job *mixed_job(void)
{
    return test_job(
        "{\"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, "
        "\"young_modulus\": 1e7}, {\"name\": \"glass\", \"density\": 2200, \"young_modulus\": "
        "5e7, \"poisson_ratio\": 0.22}, {\"name\": \"steel\", \"density\": 7800, "
        "\"young_modulus\": 2e11}], \"contact_materials\": ["
        "{\"materials\": [\"ore\", \"ore\"], \"friction\": 0.5, \"rolling_resistance\": 0.3, "
        "\"restitution\": 0.3},"
        "{\"materials\": [\"ore\", \"glass\"], \"friction\": 0.05, \"rolling_resistance\": 0.02, "
        "\"restitution\": 0.6},"
        "{\"materials\": [\"glass\", \"glass\"], \"friction\": 0.3, \"restitution\": 0.8},"
        "{\"materials\": [\"ore\", \"steel\"], \"friction\": 0.5, \"restitution\": 0.3},"
        "{\"materials\": [\"glass\", \"steel\"], \"friction\": 0.2, \"restitution\": 0.5}],"
        "\"geometry\": [{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.12, 0.12, 0.4], "
        "\"inside\": true, \"material\": \"steel\"}],"
        "\"particles\": [{\"type\": \"lattice\", \"min\": [0.006, 0.006, 0.006], \"max\": "
        "[0.114, 0.114, 0.03], \"spacing\": 0.012, \"count\": 240, \"radius\": 0.006, "
        "\"material\": \"ore\"},"
        "{\"type\": \"random\", \"min\": [0.01, 0.01, 0.04], \"max\": [0.11, 0.11, 0.09], "
        "\"count\": 80, \"radius\": {\"min\": 0.004, \"max\": 0.006}, \"material\": \"glass\", "
        "\"velocity\": [0.3, 0, -0.5], \"seed\": 5},"
        "{\"type\": \"random\", \"min\": [0.01, 0.01, 0.1], \"max\": [0.11, 0.11, 0.14], "
        "\"count\": 80, \"radius\": {\"min\": 0.004, \"max\": 0.006}, \"material\": \"ore\", "
        "\"seed\": 6}]},"
        "\"solver\": {\"method\": \"dem\", \"contact_model\": \"hertz\", \"time_step\": 0.00005, "
        "\"duration\": 1.0, \"threads\": 2}}");
}

/* What the scalar run's contacts did, to show the lanes met every branch. */
typedef struct seen {
    long touching, first, sliding, rolling_cut, open, walls;
} seen;

/* Last step's springs (keys, CSR by body a, history), copied before a step. */
typedef struct last_springs {
    ndem_dem d;
} last_springs;

static void keep_last(const ndem_dem *d, last_springs *l)
{
    free(l->d.hist_key);
    free(l->d.hist);
    free(l->d.hist_start);
    l->d = (ndem_dem){.hist_bodies = d->hist_bodies, .hist_count = d->hist_count};
    size_t nk = (size_t)(d->hist_count > 0 ? d->hist_count : 1);
    l->d.hist_key = malloc(sizeof *l->d.hist_key * nk);
    l->d.hist = malloc(sizeof(double) * NDEM_DEM_HIST * nk);
    l->d.hist_start = malloc(sizeof(long) * (size_t)(d->hist_bodies + 1));
    ck_assert(l->d.hist_key && l->d.hist && l->d.hist_start);
    if (d->hist_count > 0) {
        memcpy(l->d.hist_key, d->hist_key, sizeof *d->hist_key * (size_t)d->hist_count);
        memcpy(l->d.hist, d->hist, sizeof(double) * NDEM_DEM_HIST * (size_t)d->hist_count);
    }
    if (d->hist_start)
        memcpy(l->d.hist_start, d->hist_start, sizeof(long) * (size_t)(d->hist_bodies + 1));
}

static void tally(const ndem_sim *sim, const last_springs *last, seen *s)
{
    const ndem_dem *d = sim->dem;
    const ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    for (long k = 0; k < c->count; k++) {
        ndem_contact_key key = c->key[k];
        const double *f = &d->force[NDEM_DEM_FORCE * k];
        double delta = d->energy[3 * k + 2];
        if (!ndem_key_is_particle(key)) {
            s->walls++;
            continue;
        }
        if (delta <= 0) {
            s->open++;
            continue;
        }
        s->touching++;
        const double *old = ndem_dem_hist_find(&last->d, k, key);
        s->first += !old || old[7] == 0;
        const ndem_pair_params *pp =
            ndem_pair(&sim->materials, b->material[key.a], b->material[key.b]);
        /* force on a = -f_n n + f_t */
        double fn = f[13], ft2 = 0, mu = pp->friction * fn;
        for (int q = 0; q < 3; q++) ft2 += pow(f[q] + fn * f[9 + q], 2);
        s->sliding += fn > 0 && ft2 >= mu * mu * (1 - 1e-9);
        /* rolling torque m_r from the torques la ta + m_r on a and lb ta - m_r on b */
        double ra = b->radius[key.a], rb = b->radius[key.b], la = f[12], lb = ra + rb - delta - la;
        double mr2 = 0, lim = pp->rolling * ra * rb / (ra + rb) * fn;
        for (int q = 0; q < 3; q++) mr2 += pow((lb * f[3 + q] - la * f[6 + q]) / (la + lb), 2);
        s->rolling_cut += fn > 0 && lim > 0 && mr2 >= lim * lim * (1 - 1e-6);
    }
}

static int same_contacts(const ndem_sim *x, const ndem_sim *y)
{
    long nc = x->contacts.count;
    if (nc != y->contacts.count) return 0;
    const ndem_dem *a = x->dem, *b = y->dem;
    return !memcmp(x->contacts.key, y->contacts.key, sizeof *x->contacts.key * (size_t)nc) &&
           !memcmp(a->force, b->force, sizeof(double) * NDEM_DEM_FORCE * (size_t)nc) &&
           !memcmp(a->hist, b->hist, sizeof(double) * NDEM_DEM_HIST * (size_t)nc) &&
           !memcmp(a->energy, b->energy, sizeof(double) * 3 * (size_t)nc);
}

START_TEST(lanes_give_the_scalar_law_bits)
{
    static const char *names[] = {"v3", "v4"}; /* the copies of the kernel */
    char err[256];
    ndem_job *job = mixed_job();
    setenv("NDEM_DEM_LANES", "0", 1);
    ndem_sim *ref = test_sim(job);
    unsetenv("NDEM_DEM_LANES");
    ck_assert_int_eq(ref->dem->lanes, 0);
    /* baseline x86-64 has no copy: the scalar law */
    setenv("NDEM_ISA", "base", 1);
    ndem_sim *base = test_sim(job);
    ck_assert_int_eq(base->dem->lanes, 0);
    ndem_sim_destroy(base);
    ndem_sim *lanes[2] = {NULL, NULL};
    int ran = 0;
    for (int i = 0; i < 2; i++) {
        if (ndem_solver_isa(names[i], err, sizeof err) < 0) {
            fprintf(stderr, "dem lanes variant %s skipped: %s\n", names[i], err);
            continue;
        }
        setenv("NDEM_ISA", names[i], 1);
        lanes[i] = test_sim(job);
        ck_assert_int_eq(lanes[i]->dem->lanes, 1);
        ran++;
    }
    unsetenv("NDEM_ISA");
    if (ran == 0) { /* no AVX2: the lanes never run on this CPU */
        fprintf(stderr, "dem lanes: no kernel copy for this CPU, nothing to compare\n");
        ndem_sim_destroy(ref);
        ndem_job_destroy(job);
        return;
    }
    seen s = {0};
    last_springs last = {0};
    for (int step = 0; step < STEPS; step++) {
        keep_last(ref->dem, &last);
        test_step(ref);
        tally(ref, &last, &s);
        for (int i = 0; i < 2; i++) {
            if (!lanes[i]) continue;
            test_step(lanes[i]);
            ck_assert_msg(same_contacts(ref, lanes[i]),
                          "step %d: variant %s's contacts differ from the scalar law's", step,
                          names[i]);
        }
    }
    for (int i = 0; i < 2; i++)
        if (lanes[i]) {
            ck_assert_uint_eq(ndem_sim_state_hash(lanes[i]), ndem_sim_state_hash(ref));
            ndem_sim_destroy(lanes[i]);
        }
    fprintf(stderr,
            "dem lanes: %ld touching, %ld first steps, %ld sliding, %ld rolling cut, "
            "%ld open, %ld wall contacts\n",
            s.touching, s.first, s.sliding, s.rolling_cut, s.open, s.walls);
    free(last.d.hist_key);
    free(last.d.hist);
    free(last.d.hist_start);
    ck_assert_int_gt(s.touching, 100 * STEPS);
    ck_assert_int_gt(s.first, 200);
    ck_assert_int_gt(s.sliding, 1000);
    ck_assert_int_gt(s.rolling_cut, 1000);
    ck_assert_int_gt(s.open, 1000);
    ck_assert_int_gt(s.walls, 1000);
    ndem_sim_destroy(ref);
    ndem_job_destroy(job);
}
END_TEST

/* 48 head-on hertz pairs side by side (no gravity), e 0.9 (ore) or 0.6
 * (glass), 0.05 to 2 m/s, each first touching at its own phase of a step,
 * at h = 0.1 ms (omega h up to about 0.35): the spring still outweighs the
 * dashpot at their last steps, so the last step's share (ndem_dem_last_share:
 * the root, the clamped branch, the pair the dashpot decides) sets a force
 * that is not clamped to 0. mixed_job's pile seldom has one: a wrong root, a
 * wrong choice of the clamped branch or of the staying share in the lane copy
 * each passed it and fail here (checked once). */
#define HEAD_ON 48

static ndem_job *head_on_job(double h)
{
    static const double speeds[] = {0.05, 0.5, 2.0};
    char spheres[2][HEAD_ON * 64], vel[2][HEAD_ON * 40]; /* [0]: ore, [1]: glass */
    size_t ns[2] = {0, 0}, nv[2] = {0, 0};
    for (int i = 0; i < HEAD_ON; i++) {
        int m = i % 2;
        double v = speeds[i % 3], gap = (2.0 + (i + 0.5) / HEAD_ON) * v * h, y = 0.02 * i;
        for (int side = -1; side <= 1; side += 2) {
            ns[m] += (size_t)snprintf(spheres[m] + ns[m], sizeof spheres[m] - ns[m],
                                      "%s[%.17g, %g, 0, 0.005]", ns[m] ? ", " : "",
                                      side * (0.005 + gap), y);
            nv[m] += (size_t)snprintf(vel[m] + nv[m], sizeof vel[m] - nv[m], "%s[%g, 0, 0]",
                                      nv[m] ? ", " : "", -side * v);
        }
    }
    return test_job(
        "{\"scene\": {\"gravity\": [0, 0, 0], \"materials\": [{\"name\": \"ore\", \"density\": "
        "2500, \"young_modulus\": 1e7}, {\"name\": \"glass\", \"density\": 2200, "
        "\"young_modulus\": 5e7}], \"contact_materials\": [{\"materials\": [\"ore\", \"ore\"], "
        "\"restitution\": 0.9}, {\"materials\": [\"glass\", \"glass\"], \"restitution\": 0.6}], "
        "\"particles\": [{\"type\": \"list\", \"spheres\": [%s], \"velocities\": [%s], "
        "\"material\": \"ore\"}, {\"type\": \"list\", \"spheres\": [%s], \"velocities\": [%s], "
        "\"material\": \"glass\"}]}, \"solver\": {\"method\": \"dem\", \"contact_model\": "
        "\"hertz\", \"time_step\": %.17g, \"duration\": 1.0}}",
        spheres[0], vel[0], spheres[1], vel[1], h);
}

START_TEST(lanes_give_the_last_steps_bits)
{
    static const char *names[] = {"v3", "v4"};
    char err[256];
    ndem_job *job = head_on_job(1e-4);
    setenv("NDEM_DEM_LANES", "0", 1);
    ndem_sim *ref = test_sim(job);
    unsetenv("NDEM_DEM_LANES");
    ndem_sim *lanes[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        if (ndem_solver_isa(names[i], err, sizeof err) < 0) continue;
        setenv("NDEM_ISA", names[i], 1);
        lanes[i] = test_sim(job);
        ck_assert_int_eq(lanes[i]->dem->lanes, 1);
    }
    unsetenv("NDEM_ISA");
    long parted = 0, touching = 0;
    for (int step = 0; step < 200; step++) {
        test_step(ref);
        long now = ndem_sim_stats(ref)->contacts;
        parted += now < touching ? touching - now : 0;
        touching = now;
        for (int i = 0; i < 2; i++) {
            if (!lanes[i]) continue;
            test_step(lanes[i]);
            ck_assert_msg(same_contacts(ref, lanes[i]), "step %d: variant %s differs", step,
                          names[i]);
        }
    }
    ck_assert_int_eq(parted, HEAD_ON); /* every pair met and parted */
    for (int i = 0; i < 2; i++) ndem_sim_destroy(lanes[i]);
    ndem_sim_destroy(ref);
    ndem_job_destroy(job);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dem_lanes");
    TCase *tc = tcase_create("dem_lanes");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, lanes_give_the_scalar_law_bits);
    tcase_add_test(tc, lanes_give_the_last_steps_bits);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
