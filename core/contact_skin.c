/* contact_skin.c - smooth DEM's narrow phase without a search every step.
 *
 * At LIGGGHTS' step a settled bed's bodies move micrometres a step, yet the
 * narrow phase tested every listed pair and every geometry each step (18%
 * of the step's instructions). The skin keeps, at its build, the particle
 * pairs whose centres are within r_i + r_j + reach, and marks the bodies
 * that had a geometry within reach. With d_i the distance body i moved
 * since, a pair left out still has a gap above reach - d_i - d_j > 0, and a
 * body not marked is still clear of the geometry by reach - d_i > 0, while
 * d_1 + d_2 (the two largest) < reach and the geometry has not moved. So
 * every touching pair is a contact; a listed pair that does not touch gives
 * zero force and an empty history (dem.c), which adds nothing to any sum:
 * the states are the bits of a search every step. The skin is not used when
 * a material pair attracts across a gap (van der Waals: there a listed open
 * pair pulls), and the geometry is searched every step when it moves.
 *
 * The pairs come from the Verlet lists (broadphase.c), which hold every
 * pair within their skin less 0.05 (r_max - r_min) (per-pair reach) less
 * the two largest displacements since their build: the reach is capped by
 * that, and the skin is rebuilt when the lists are. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the reach wanted, in smallest radii (NDEM_CONTACT_SKIN overrides; 0: off) */
#define NDEM_CONTACT_SKIN_DEFAULT 0.1

static void top2(double *t, double e)
{
    if (e > t[0]) t[1] = t[0], t[0] = e;
    else if (e > t[1]) t[1] = e;
}

/* The two largest distances of the bodies from x0 (3 per body), summed:
 * the same for any split of the bodies. */
static double moved(const ndem_sim *sim, const double *x0)
{
    const ndem_bodies *b = &sim->bodies;
    long n = b->count;
    double top[2] = {0.0, 0.0};
#pragma omp parallel num_threads(ndem_threads_for(sim, n))
    {
        double t[2] = {0.0, 0.0};
#pragma omp for schedule(static) nowait
        for (long i = 0; i < n; i++) {
            const double *x = &b->pos[3 * i], *o = &x0[3 * i];
            double d[3] = {x[0] - o[0], x[1] - o[1], x[2] - o[2]};
            top2(t, d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        }
#pragma omp critical
        top2(top, t[0]), top2(top, t[1]);
    }
    return sqrt(top[0]) + sqrt(top[1]);
}

static int attracts(const ndem_sim *sim)
{
    int nm = sim->materials.count;
    for (int i = 0; i < nm * nm; i++)
        if (sim->materials.pairs[i].hamaker > 0) return 1;
    return 0;
}

/* Geometry that cannot move under the skin: no walls, no dynamic bodies,
 * every pose at rest. */
static int geometry_at_rest(const ndem_sim *sim)
{
    if (sim->rigid) return 0;
    for (int g = 0; g < sim->geometry_count; g++) {
        const ndem_geometry_pose *p = &sim->pose[g];
        if (sim->geometry[g].walls.enabled || sim->geometry[g].keyframe_count > 0) return 0;
        for (int k = 0; k < 3; k++)
            if (p->velocity[k] != 0.0 || p->spin[k] != 0.0) return 0;
    }
    return 1;
}

static int grow(void **p, long *cap, long need, size_t elem)
{
    if (need <= *cap && *p) return 0;
    long c = need + need / 4 + 64;
    void *q = realloc(*p, elem * (size_t)c);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* The skin build's pass: body i's listed pairs within reach, whether a
 * geometry is within reach, and where the body is. */
typedef struct skin_pass {
    ndem_contact_skin *s;
    double reach;
} skin_pass;

static int skin_body(const ndem_sim *sim, long i, const int *cj, long m, ndem_key_block *blk,
                     void *arg)
{
    const skin_pass *p = arg;
    ndem_contact_skin *s = p->s;
    const ndem_bodies *b = &sim->bodies;
    const double *xi = &b->pos[3 * i];
    double ri = b->radius[i], reach = p->reach;
    int failed = 0;
    for (long k = 0; k < m; k++) {
        int j = cj[k];
        const double *xj = &b->pos[3 * j];
        double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
        double r = ri + b->radius[j] + reach;
        if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < r * r)
            failed |= ndem_key_block_push(blk, (ndem_contact_key){(int)i, j, NDEM_KEY_PARTICLE});
    }
    int near = !s->geo_static;
    ndem_geo_hit hits[NDEM_GEO_HITS];
    for (int g = 0; g < sim->geometry_count && !near; g++)
        near = ndem_geometry_collide(&sim->geometry[g], &sim->pose[g], xi, ri, reach, hits) > 0;
    s->near[i] = (unsigned char)near;
    memcpy(&s->x0[3 * i], xi, sizeof(double) * 3);
    return failed;
}

/* The skin afresh at the present positions; reach > 0. */
static int skin_build(ndem_sim *sim, ndem_contact_skin *s, double reach)
{
    const ndem_bodies *b = &sim->bodies;
    const ndem_neighbours *nl = &sim->neighbours;
    long n = b->count, nblocks = (n + NDEM_PAIR_BLOCK - 1) / NDEM_PAIR_BLOCK;
    if (n > s->body_capacity || !s->x0) {
        long cap = n + n / 4 + 64;
        double *x0 = realloc(s->x0, 3 * sizeof(double) * (size_t)cap);
        if (x0) s->x0 = x0;
        unsigned char *near = realloc(s->near, (size_t)cap);
        if (near) s->near = near;
        if (!x0 || !near) return -1;
        s->body_capacity = cap;
    }
    if (grow((void **)&s->start, &s->start_capacity, n + 1, sizeof(long))) return -1;
    s->geo_static = geometry_at_rest(sim);
    if (sim->geometry_count > s->pose_count) {
        void *p = realloc(s->pose, sizeof *s->pose * (size_t)sim->geometry_count);
        if (!p) return -1;
        s->pose = p;
        s->pose_count = sim->geometry_count;
    }
    if (sim->geometry_count > 0)
        memcpy(s->pose, sim->pose, sizeof *s->pose * (size_t)sim->geometry_count);
    /* the pairs go through the narrow phase's key blocks, which the keys of
     * this step then reuse */
    skin_pass pass = {s, reach};
    if (ndem_block_loop(sim, (ndem_candidates){nl->start, nl->j}, skin_body, &pass, s->start))
        return -1;
    s->start[0] = 0;
    for (long i = 0; i < n; i++) s->start[i + 1] += s->start[i];
    if (grow((void **)&s->j, &s->capacity, s->start[n], sizeof(int))) return -1;
    s->count = s->start[n];
    for (long bi = 0; bi < nblocks; bi++) {
        const ndem_key_block *blk = &sim->contacts.blocks[bi];
        int *j = &s->j[s->start[bi * NDEM_PAIR_BLOCK]];
        for (long t = 0; t < blk->count; t++) j[t] = blk->key[t].b;
    }
    s->reach = reach;
    s->bodies = n;
    s->list_builds = nl->builds;
    s->valid = 1;
    s->builds++;
    return 0;
}

/* Whether the skin still serves: same bodies and lists, the geometry where
 * it was, and no pair closer by its whole reach (1% kept for rounding). */
static int skin_holds(const ndem_sim *sim, const ndem_contact_skin *s)
{
    if (!s->valid || s->bodies != sim->bodies.count || s->list_builds != sim->neighbours.builds)
        return 0;
    if (s->geo_static) {
        if (!geometry_at_rest(sim)) return 0;
        if (sim->geometry_count > 0 &&
            memcmp(s->pose, sim->pose, sizeof *s->pose * (size_t)sim->geometry_count) != 0)
            return 0;
    }
    return moved(sim, s->x0) < 0.99 * s->reach;
}

/* The key pass: body i's geometry when it was near at the build, then
 * every pair of the skin (a pair that does not touch gives no force). */
static int emit_body(const ndem_sim *sim, long i, const int *cj, long m, ndem_key_block *blk,
                     void *arg)
{
    int failed = 0;
    if (sim->contacts.skin.near[i])
        failed |= ndem_body_geometry_contacts(sim, i, *(const double *)arg, blk);
    return failed | ndem_key_block_push_particles(blk, cj, m);
}

int ndem_contact_skin_build(ndem_sim *sim, double skin)
{
    ndem_contacts *c = &sim->contacts;
    ndem_contact_skin *s = &c->skin;
    const ndem_bodies *b = &sim->bodies;
    long n = b->count;
    if (!s->configured) {
        const char *e = getenv("NDEM_CONTACT_SKIN");
        s->target = e ? atof(e) : NDEM_CONTACT_SKIN_DEFAULT;
        s->configured = 1;
    }
    if (!(s->target > 0) || n == 0 || attracts(sim)) return 0;
    if (!skin_holds(sim, s)) {
        double rmin = INFINITY, rmax = 0.0;
        for (long i = 0; i < n; i++)
            rmin = fmin(rmin, b->radius[i]), rmax = fmax(rmax, b->radius[i]);
        const ndem_neighbours *nl = &sim->neighbours;
        /* what the lists are sure to hold now */
        double sure = nl->skin - 0.05 * (rmax - rmin) - moved(sim, nl->x0);
        double reach = fmin(s->target * rmin, sure);
        s->valid = 0;
        if (!(reach > 1e-3 * rmin)) return 0; /* the lists are nearly spent: search */
        if (skin_build(sim, s, reach)) return -1;
    }
    c->start[0] = 0;
    if (ndem_block_loop(sim, (ndem_candidates){s->start, s->j}, emit_body, &skin, c->start))
        return -1;
    return ndem_contacts_join(sim, (n + NDEM_PAIR_BLOCK - 1) / NDEM_PAIR_BLOCK) ? -1 : 1;
}

void ndem_contact_skin_destroy(ndem_contact_skin *s)
{
    free(s->x0);
    free(s->near);
    free(s->start);
    free(s->j);
    free(s->pose);
    memset(s, 0, sizeof *s);
}
