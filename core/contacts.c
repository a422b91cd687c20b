/* contacts.c - find contacts: the narrow phase over the grid's candidate
 * pairs and every geometry, and where each contact touches. rows.c turns
 * them into solver rows.
 *
 * Contacts are listed in "pair order": by the lower body index, then by key.
 * That order does not depend on the thread count, which keeps every result
 * bit-for-bit reproducible. */
#include "sim.h"
#include "vec.h"
#include "walls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ndem_ensure(void **p, long *cap, long need, size_t elem)
{
    /* never left NULL, even for need 0: an empty scene's arrays still reach
     * memcpy and memset, which must not see a null pointer */
    if (need <= *cap && *p) return 0;
    long c = *cap > 0 ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, elem * (size_t)c);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

int ndem_ensure_aligned(void **p, long *cap, long need, size_t elem)
{
    if (need <= *cap) return 0;
    long c = *cap > 0 ? *cap : 64;
    while (c < need) c *= 2;
    size_t bytes = (elem * (size_t)c + 63) / 64 * 64;
    free(*p);
    *p = aligned_alloc(64, bytes);
    *cap = *p ? c : 0;
    return *p ? 0 : -1;
}

/* A pair is a contact when it overlaps, is within a small gap, or will close
 * the gap within this step at its current approach speed (so the impact
 * stage sees it, AGX eq. 35.6). */
static int keep_pair(double gap, double approach, double rmin, double h)
{
    return gap < 0.05 * rmin + h * ndem_max(approach, 0.0);
}

static int pair_contact(const ndem_bodies *b, long i, long j, double h)
{
    const double *xi = &b->pos[3 * i], *xj = &b->pos[3 * j];
    double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
    double rr = b->radius[i] + b->radius[j];
    double dist2 = ndem_dot(d, d);
    double reach = rr + 0.05 * ndem_min(b->radius[i], b->radius[j]);
    if (dist2 < reach * reach) return 1;
    const double *vi = &b->vel[6 * i], *vj = &b->vel[6 * j];
    double dv[3] = {vi[0] - vj[0], vi[1] - vj[1], vi[2] - vj[2]};
    double closing = ndem_dot(dv, d);
    if (closing <= 0) return 0; /* apart beyond the reach and not approaching */
    double dist = sqrt(dist2);
    double approach = closing / dist;
    return keep_pair(dist - rr, approach, ndem_min(b->radius[i], b->radius[j]), h);
}

static int geometry_hits(const ndem_sim *sim, long i, double skin, int g, ndem_geo_hit *hits)
{
    const ndem_bodies *b = &sim->bodies;
    const double *x = &b->pos[3 * i], *v = &b->vel[6 * i];
    double r = b->radius[i], h = sim->solver.time_step;
    int n = ndem_geometry_collide(&sim->geometry[g], &sim->pose[g], x, r, skin, hits), kept = 0;
    for (int k = 0; k < n; k++) {
        double p[3], u[3];
        for (int c = 0; c < 3; c++) p[c] = x[c] + (r - hits[k].delta) * hits[k].n[c];
        ndem_geometry_surface_velocity(&sim->pose[g], p, u);
        double dv[3] = {v[0] - u[0], v[1] - u[1], v[2] - u[2]};
        if (keep_pair(-hits[k].delta, ndem_dot(dv, hits[k].n), r, h)) hits[kept++] = hits[k];
    }
    return kept;
}

/* One pass over the candidates: each block of NDEM_PAIR_BLOCK bodies
 * (contacts.h) writes its contacts into its own buffer; the buffers are then
 * joined in block order, so the pair order does not depend on the thread
 * count. */

int ndem_pair_block_push(ndem_pair_block *blk, int key)
{
    if (blk->count == blk->capacity) {
        long cap = blk->capacity > 0 ? 2 * blk->capacity : 4 * NDEM_PAIR_BLOCK;
        int *k = blk->own ? realloc(blk->key, sizeof(int) * (size_t)cap)
                          : malloc(sizeof(int) * (size_t)cap);
        if (!k) return -1;
        if (!blk->own && blk->count > 0) memcpy(k, blk->key, sizeof(int) * (size_t)blk->count);
        blk->key = k;
        blk->capacity = cap;
        blk->own = 1;
    }
    blk->key[blk->count++] = key;
    return 0;
}

void *ndem_contacts_spent(const ndem_sim *sim, size_t *bytes)
{
    const ndem_contacts *c = &sim->contacts;
    *bytes = c->packets ? sizeof(ndem_packet) * (size_t)c->packet_count : 0;
    return c->packets;
}

int ndem_key_block_grow(ndem_key_block *blk)
{
    long cap = blk->capacity > 0 ? 2 * blk->capacity : 4 * NDEM_PAIR_BLOCK;
    ndem_hist_key *k =
        blk->own ? realloc(blk->key, sizeof *k * (size_t)cap) : malloc(sizeof *k * (size_t)cap);
    if (!k) return -1;
    if (!blk->own && blk->count > 0) memcpy(k, blk->key, sizeof *k * (size_t)blk->count);
    blk->key = k;
    blk->capacity = cap;
    blk->own = 1;
    return 0;
}

/* NDEM: each block starts in its slice of the velocity slots' buffer (one
 * slot, 32 bytes, a body: room for 4 keys a body, about 2.5 in a packed bed),
 * which is dead from the end of the step's solve to the next prepare; the
 * join has taken the keys by then. A block that outgrows its slice moves to
 * an allocation of its own (ndem_key_block_grow) for that step. Smooth DEM
 * has no velocity slots: its blocks keep buffers of their own. */
static int blocks_in_slots(ndem_sim *sim, long nblocks)
{
    ndem_contacts *c = &sim->contacts;
    if (!sim->dem && ndem_ensure_aligned((void **)&c->vs, &c->slot_capacity,
                                         nblocks * NDEM_PAIR_BLOCK, sizeof(ndem_f8)))
        return -1;
    for (long bi = 0; bi < nblocks; bi++) {
        ndem_key_block *blk = &c->blocks[bi];
        if (sim->dem && blk->own) continue;
        if (blk->own) free(blk->key);
        blk->key = NULL;
        blk->capacity = 0;
        blk->own = 0;
        if (sim->dem) continue;
        blk->key = (ndem_hist_key *)&c->vs[bi * NDEM_PAIR_BLOCK];
        blk->capacity = (long)(NDEM_PAIR_BLOCK * sizeof(ndem_f8) / sizeof(ndem_hist_key));
    }
    return 0;
}

int ndem_key_blocks_reserve(ndem_key_block **blocks, long *capacity, long n)
{
    if (n <= *capacity) return 0;
    ndem_key_block *blk = realloc(*blocks, sizeof(ndem_key_block) * (size_t)n);
    if (!blk) return -1;
    memset(blk + *capacity, 0, sizeof(ndem_key_block) * (size_t)(n - *capacity));
    *blocks = blk;
    *capacity = n;
    return 0;
}

int ndem_pair_blocks_reserve(ndem_pair_block **blocks, long *capacity, long n)
{
    if (n <= *capacity) return 0;
    ndem_pair_block *blk = realloc(*blocks, sizeof(ndem_pair_block) * (size_t)n);
    if (!blk) return -1;
    memset(blk + *capacity, 0, sizeof(ndem_pair_block) * (size_t)(n - *capacity));
    *blocks = blk;
    *capacity = n;
    return 0;
}

int ndem_body_geometry_contacts(const ndem_sim *sim, long i, double skin, ndem_key_block *blk)
{
    ndem_geo_hit hits[NDEM_GEO_HITS];
    int failed = 0;
    for (int q = 0; q < sim->geometry_count; q++) {
        int m = geometry_hits(sim, i, skin, q, hits);
        for (int t = 0; t < m; t++)
            failed |= ndem_key_block_push(blk, (ndem_contact_key){(int)i, q, hits[t].feature});
    }
    return failed;
}

/* The blocks' contacts joined in block order; start[i + 1] holds body i's
 * count on entry. */
int ndem_contacts_join(ndem_sim *sim, long nblocks)
{
    ndem_contacts *c = &sim->contacts;
    long n = sim->bodies.count, *start = c->start;
    for (long i = 0; i < n; i++) start[i + 1] += start[i];
    long total = start[n];
    if (total > c->capacity) {
        long cap = total + total / 4 + 256;
        ndem_contact_key *ky = realloc(c->key, sizeof *ky * (size_t)cap);
        if (ky) c->key = ky;
        int *sl = realloc(c->slot, sizeof(int) * (size_t)cap);
        if (sl) c->slot = sl;
        if (!ky || !sl) return -1;
        c->capacity = cap;
    }
    c->count = total;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, n))
    for (long bi = 0; bi < nblocks; bi++) {
        const ndem_key_block *blk = &c->blocks[bi];
        long lo = bi * NDEM_PAIR_BLOCK, hi = lo + NDEM_PAIR_BLOCK < n ? lo + NDEM_PAIR_BLOCK : n;
        for (long i = lo; i < hi; i++)
            for (long k = start[i]; k < start[i + 1]; k++)
                c->key[k] = ndem_key_with_a((int)i, blk->key[k - start[lo]]);
    }
    return 0;
}

int ndem_block_loop(ndem_sim *sim, ndem_candidates cand, ndem_body_pass pass, void *arg,
                    long *count)
{
    ndem_contacts *c = &sim->contacts;
    long n = sim->bodies.count, nblocks = (n + NDEM_PAIR_BLOCK - 1) / NDEM_PAIR_BLOCK;
    if (ndem_key_blocks_reserve(&c->blocks, &c->block_capacity, nblocks) ||
        blocks_in_slots(sim, nblocks))
        return -1;
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(ndem_threads_for(sim, n))                \
    reduction(|                                                                                    \
              : failed)
    for (long bi = 0; bi < nblocks; bi++) {
        ndem_key_block *blk = &c->blocks[bi];
        blk->count = 0;
        long hi = (bi + 1) * NDEM_PAIR_BLOCK < n ? (bi + 1) * NDEM_PAIR_BLOCK : n;
        for (long i = bi * NDEM_PAIR_BLOCK; i < hi; i++) {
            long first = blk->count, k0 = cand.start[i];
            failed |= pass(sim, i, &cand.j[k0], cand.start[i + 1] - k0, blk, arg);
            count[i + 1] = blk->count - first;
        }
    }
    return failed ? -1 : 0;
}

/* The search pass: body i's geometry, then its listed pairs that pass the
 * contact test (the lists are sorted by j: contacts come out in pair order). */
static int search_body(const ndem_sim *sim, long i, const int *cj, long m, ndem_key_block *blk,
                       void *arg)
{
    const ndem_bodies *b = &sim->bodies;
    double h = sim->solver.time_step;
    int failed = ndem_body_geometry_contacts(sim, i, *(const double *)arg, blk);
    const ndem_neighbours *nl = &sim->neighbours;
    long e = nl->extra_count > 0 ? nl->extra_first[i] : -1, ee = nl->extra_count;
    if (e < 0) { /* the usual body: its list */
        for (long k = 0; k < m; k++)
            if (pair_contact(b, i, cj[k], h))
                failed |=
                    ndem_key_block_push(blk, (ndem_contact_key){(int)i, cj[k], NDEM_KEY_PARTICLE});
        return failed;
    }
    for (long k = 0; k < m || (e < ee && nl->extra[2 * e] == i);) {
        /* the list and the fast bodies' pairs (broadphase_fast.c), merged by j */
        int j;
        if (e >= ee || nl->extra[2 * e] != i) j = cj[k++];
        else if (k >= m || nl->extra[2 * e + 1] < cj[k]) j = nl->extra[2 * e++ + 1];
        else {
            j = cj[k++];
            if (nl->extra[2 * e + 1] == j) e++; /* in both */
        }
        if (pair_contact(b, i, j, h))
            failed |= ndem_key_block_push(blk, (ndem_contact_key){(int)i, j, NDEM_KEY_PARTICLE});
    }
    return failed;
}

int ndem_contacts_build(ndem_sim *sim, double skin)
{
    ndem_contacts *c = &sim->contacts;
    const ndem_neighbours *nl = &sim->neighbours;
    long n = sim->bodies.count;
    if (ndem_ensure((void **)&c->start, &c->start_capacity, n + 1, sizeof(long))) return -1;
    if (sim->dem) { /* smooth DEM: through the contact skin where it applies */
        int rc = ndem_contact_skin_build(sim, skin);
        if (rc != 0) return rc < 0 ? -1 : 0;
    }
    c->start[0] = 0;
    if (ndem_block_loop(sim, (ndem_candidates){nl->start, nl->j}, search_body, &skin, c->start))
        return -1;
    return ndem_contacts_join(sim, (n + NDEM_PAIR_BLOCK - 1) / NDEM_PAIR_BLOCK);
}

void ndem_contact_geometry(const ndem_sim *sim, ndem_contact_key key, ndem_contact_geom *g)
{
    const ndem_bodies *b = &sim->bodies;
    const double *xa = &b->pos[3 * key.a];
    double ra = b->radius[key.a];
    if (ndem_key_is_particle(key)) {
        ndem_pair_geometry(b, key.a, key.b, g);
        memset(g->ug, 0, sizeof g->ug);
        return;
    }
    int feature = key.feature;
    const ndem_geometry_def *geo = &sim->geometry[key.b];
    const ndem_geometry_pose *pose = &sim->pose[key.b];
    ndem_geo_hit hit; /* no search: the feature itself */
    ndem_geometry_feature_hit(geo, pose, xa, ra, feature, &hit);
    memcpy(g->n, hit.n, sizeof g->n);
    g->delta = hit.delta;
    g->la = ra - 0.5 * g->delta;
    g->lb = 0.0;
    g->d_eff = 2.0 * ra;
    g->material_b = geo->material;
    double p[3];
    for (int q = 0; q < 3; q++) p[q] = xa[q] + g->la * g->n[q];
    ndem_geometry_surface_velocity(pose, p, g->ug);
    memcpy(&g->ug[3], pose->spin, 3 * sizeof(double));
    if (geo->walls.enabled) /* a wall moves its face, not the pose (walls.c) */
        ndem_walls_face_velocity(sim->rigid, key.b, feature, g->ug);
}

int ndem_history_lam_reserve(ndem_history *h, size_t bytes)
{
    if (h->lam && bytes <= h->lam_bytes) return 0;
    size_t size = (bytes + 63) / 64 * 64; /* aligned_alloc wants a multiple */
    free(h->lam);                         /* first: the peak never holds both */
    h->lam = aligned_alloc(64, size > 0 ? size : 64);
    h->lam_bytes = h->lam ? size : 0;
    return h->lam ? 0 : -1;
}

void *ndem_history_scratch(ndem_history *h, size_t bytes)
{
    /* never NULL on success, even for 0 bytes (a step without sphere rows) */
    if ((bytes > h->lam_bytes || !h->lam) && ndem_history_lam_reserve(h, bytes + bytes / 4))
        return NULL;
    return h->lam;
}

void ndem_contacts_destroy(ndem_contacts *c, ndem_history *h)
{
    free(c->key);
    free(c->slot);
    free(c->start);
    free(c->packets);
    free(c->bounds);
    free(c->fill);
    free(c->cold);
    free(c->residual);
    free(c->vs);
    free(c->ug);
    free(c->impact_v);
    free(c->impact_lanes); /* impact_lam is the history's buffer */
    free(c->color_mask);
    for (long i = 0; i < c->block_capacity; i++)
        if (c->blocks[i].own) free(c->blocks[i].key);
    free(c->blocks);
    ndem_contact_skin_destroy(&c->skin);
    memset(c, 0, sizeof *c);
    free(h->start);
    free(h->key);
    free(h->lam);
    memset(h, 0, sizeof *h);
}
