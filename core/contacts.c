/* contacts.c - contact life cycle: find contacts (narrow phase over the
 * grid's candidate pairs and every geometry), colour the contact graph,
 * prepare the SPOOK rows with the Hertz mapping, warm start them from the
 * last step's impulses, and store the impulses for the next step.
 *
 * Contacts are listed in "pair order": by the lower body index, then by key.
 * That order does not depend on the thread count, which keeps every result
 * bit-for-bit reproducible. */
#include "grid.h"
#include "sim.h"
#include "vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define E_H 1.25 /* Hertz mapping exponent, seed 000 eq. (35.3) */

static int ensure(void **p, long *cap, long need, size_t elem)
{
    if (need <= *cap) return 0;
    long c = *cap > 0 ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, elem * (size_t)c);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* A pair is a contact when it overlaps, is within a small gap, or will close
 * the gap within this step at its current approach speed (so the impact
 * stage sees it, seed 000 eq. 35.6). */
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
    double dist = sqrt(dist2);
    const double *vi = &b->vel[6 * i], *vj = &b->vel[6 * j];
    double dv[3] = {vi[0] - vj[0], vi[1] - vj[1], vi[2] - vj[2]};
    double approach = ndem_dot(dv, d) / dist;
    return keep_pair(dist - rr, approach, ndem_min(b->radius[i], b->radius[j]), h);
}

static int geometry_hits(const ndem_sim *sim, long i, double skin, int g, ndem_geo_hit *hits)
{
    const ndem_bodies *b = &sim->bodies;
    const double *x = &b->pos[3 * i], *v = &b->vel[6 * i];
    double r = b->radius[i], h = sim->solver.time_step;
    int n = ndem_geometry_collide(&sim->geometry[g], x, r, skin, hits), kept = 0;
    for (int k = 0; k < n; k++) {
        double p[3], u[3];
        for (int c = 0; c < 3; c++) p[c] = x[c] + (r - hits[k].delta) * hits[k].n[c];
        ndem_geometry_surface_velocity(&sim->geometry[g], p, u);
        double dv[3] = {v[0] - u[0], v[1] - u[1], v[2] - u[2]};
        if (keep_pair(-hits[k].delta, ndem_dot(dv, hits[k].n), r, h)) hits[kept++] = hits[k];
    }
    return kept;
}

static void sort_keys(int *keys, long n)
{
    for (long i = 1; i < n; i++) {
        int v = keys[i];
        long j = i - 1;
        while (j >= 0 && keys[j] > v) {
            keys[j + 1] = keys[j];
            j--;
        }
        keys[j + 1] = v;
    }
}

/* One pass over the candidates: each block of NDEM_PAIR_BLOCK bodies writes
 * its contacts into its own buffer; the buffers are then joined in block
 * order, so the pair order does not depend on the thread count. */
#define NDEM_PAIR_BLOCK 512

static int push_key(ndem_pair_block *blk, int key)
{
    if (blk->count == blk->capacity) {
        long cap = blk->capacity > 0 ? 2 * blk->capacity : 4 * NDEM_PAIR_BLOCK;
        int *k = realloc(blk->key, sizeof(int) * (size_t)cap);
        if (!k) return -1;
        blk->key = k;
        blk->capacity = cap;
    }
    blk->key[blk->count++] = key;
    return 0;
}

int ndem_contacts_build(ndem_sim *sim, double skin)
{
    ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    const ndem_grid *g = &sim->grid;
    long n = b->count;
    double h = sim->solver.time_step;
    if (ensure((void **)&c->start, &c->start_capacity, n + 1, sizeof(long))) return -1;
    long nblocks = (n + NDEM_PAIR_BLOCK - 1) / NDEM_PAIR_BLOCK;
    if (nblocks > c->block_capacity) {
        ndem_pair_block *blk = realloc(c->blocks, sizeof(ndem_pair_block) * (size_t)nblocks);
        if (!blk) return -1;
        memset(blk + c->block_capacity, 0,
               sizeof(ndem_pair_block) * (size_t)(nblocks - c->block_capacity));
        c->blocks = blk;
        c->block_capacity = nblocks;
    }
    long *start = c->start;
    start[0] = 0;
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(ndem_threads_for(sim, n)) \
    reduction(| : failed)
    for (long bi = 0; bi < nblocks; bi++) {
        ndem_pair_block *blk = &c->blocks[bi];
        blk->count = 0;
        long hi = (bi + 1) * NDEM_PAIR_BLOCK < n ? (bi + 1) * NDEM_PAIR_BLOCK : n;
        for (long i = bi * NDEM_PAIR_BLOCK; i < hi; i++) {
            long first = blk->count;
            ndem_geo_hit hits[6];
            for (int q = 0; q < sim->geometry_count; q++) {
                int m = geometry_hits(sim, i, skin, q, hits);
                for (int t = 0; t < m; t++)
                    failed |= push_key(blk, -1 - (q * 8 + hits[t].feature));
            }
            long first_pair = blk->count;
            NDEM_GRID_FOR_NEIGHBOURS(g, i, j, {
                if (pair_contact(b, i, j, h)) failed |= push_key(blk, (int)j);
            });
            if (!failed) sort_keys(&blk->key[first_pair], blk->count - first_pair);
            start[i + 1] = blk->count - first;
        }
    }
    if (failed) return -1;
    for (long i = 0; i < n; i++) start[i + 1] += start[i];
    long total = start[n];
    if (total > c->capacity) {
        long cap = total + total / 4 + 256;
        int *ka = realloc(c->key_a, sizeof(int) * (size_t)cap);
        if (ka) c->key_a = ka;
        int *kb = realloc(c->key_b, sizeof(int) * (size_t)cap);
        if (kb) c->key_b = kb;
        int *sl = realloc(c->slot, sizeof(int) * (size_t)cap);
        if (sl) c->slot = sl;
        if (!ka || !kb || !sl) return -1;
        c->capacity = cap;
    }
    c->count = total;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, n))
    for (long bi = 0; bi < nblocks; bi++) {
        const ndem_pair_block *blk = &c->blocks[bi];
        long lo = bi * NDEM_PAIR_BLOCK, hi = lo + NDEM_PAIR_BLOCK < n ? lo + NDEM_PAIR_BLOCK : n;
        if (blk->count > 0)
            memcpy(&c->key_b[start[lo]], blk->key, sizeof(int) * (size_t)blk->count);
        for (long i = lo; i < hi; i++)
            for (long k = start[i]; k < start[i + 1]; k++) c->key_a[k] = (int)i;
    }
    return 0;
}

/* Greedy colouring in pair order with a 64-bit colour mask per body:
 * contacts of one colour share no particle, so each colour is solved in
 * parallel and the sweep equals a serial Gauss-Seidel sweep in colour order
 * (seed 000 35.6). Contacts that find no colour go to a last, serial set.
 * Geometry contacts come first, grouped by particle. */
int ndem_contacts_color(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    long n = sim->bodies.count;
    if (ensure((void **)&c->color_mask, &c->mask_capacity, n, sizeof(uint64_t))) return -1;
    memset(c->color_mask, 0, sizeof(uint64_t) * (size_t)n);
    long counts[66] = {0};
    long geo = 0, groups = 0;
    int last_geo_body = -1;
    for (long k = 0; k < c->count; k++) {
        if (c->key_b[k] < 0) {
            c->slot[k] = (int)geo++;
            if (c->key_a[k] != last_geo_body) {
                groups++;
                last_geo_body = c->key_a[k];
            }
            continue;
        }
        uint64_t used = c->color_mask[c->key_a[k]] | c->color_mask[c->key_b[k]];
        int color = used == ~0ULL ? 64 : __builtin_ctzll(~used);
        if (color < 64) {
            c->color_mask[c->key_a[k]] |= 1ULL << color;
            c->color_mask[c->key_b[k]] |= 1ULL << color;
        }
        c->slot[k] = color; /* temporarily the colour */
        counts[color]++;
    }
    int colors = 0;
    for (int q = 0; q < 65; q++)
        if (counts[q]) colors = q + 1;
    c->color_count = colors;
    c->geometry_rows = geo;
    long off = geo;
    for (int q = 0; q <= colors; q++) {
        c->color_start[q] = off;
        if (q < colors) off += counts[q];
    }
    long fill[66];
    memcpy(fill, c->color_start, sizeof fill);
    for (long k = 0; k < c->count; k++)
        if (c->key_b[k] >= 0) c->slot[k] = (int)fill[c->slot[k]]++;
    if (ensure((void **)&c->group_start, &c->group_capacity, groups + 1, sizeof(long))) return -1;
    c->group_count = groups;
    long gi = 0;
    last_geo_body = -1;
    for (long k = 0; k < c->count; k++) {
        if (c->key_b[k] >= 0 || c->key_a[k] == last_geo_body) continue;
        last_geo_body = c->key_a[k];
        c->group_start[gi++] = c->slot[k];
    }
    c->group_start[groups] = geo;
    return 0;
}

/* Finds last step's entry of the contact (a, key) for the warm start. */
static int history_find(const ndem_history *hist, int a, int key)
{
    if (a >= hist->bodies) return -1;
    for (long k = hist->start[a]; k < hist->start[a + 1]; k++)
        if (hist->key_b[k] == key) return (int)k;
    return -1;
}

void ndem_contact_geometry(const ndem_sim *sim, int a, int key, ndem_contact_geom *g)
{
    const ndem_bodies *b = &sim->bodies;
    const double *xa = &b->pos[3 * a];
    double ra = b->radius[a];
    if (key >= 0) {
        const double *xb = &b->pos[3 * key];
        double d[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
        double dist = ndem_norm(d), rb = b->radius[key];
        for (int q = 0; q < 3; q++) g->n[q] = dist > 0 ? d[q] / dist : (q == 2);
        g->b = key;
        g->delta = ra + rb - dist;
        g->la = ra - 0.5 * g->delta;
        g->lb = rb - 0.5 * g->delta;
        g->d_eff = 2.0 * ra * rb / (ra + rb); /* (1/d_a + 1/d_b)^-1 */
        g->material_b = b->material[key];
        memset(g->ug, 0, sizeof g->ug);
        return;
    }
    int gi = (-1 - key) / 8, feature = (-1 - key) % 8;
    const ndem_geometry_def *geo = &sim->geometry[gi];
    ndem_geo_hit hits[6];
    int m = ndem_geometry_collide(geo, xa, ra, INFINITY, hits), t = 0;
    while (t < m - 1 && hits[t].feature != feature) t++;
    memcpy(g->n, hits[t].n, sizeof g->n);
    g->b = -1 - gi;
    g->delta = hits[t].delta;
    g->la = ra - 0.5 * g->delta;
    g->lb = 0.0;
    g->d_eff = 2.0 * ra;
    g->material_b = geo->material;
    double p[3];
    for (int q = 0; q < 3; q++) p[q] = xa[q] + g->la * g->n[q];
    ndem_geometry_surface_velocity(geo, p, g->ug);
    memcpy(&g->ug[3], geo->angular_velocity, 3 * sizeof(double));
}

static void prepare_row(const ndem_sim *sim, long k, ndem_row *row, ndem_row_cold *cold,
                        double *ug)
{
    const ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    double h = sim->solver.time_step;
    int a = c->key_a[k], key = c->key_b[k];
    const double *va = &b->vel[6 * a];
    ndem_contact_geom geom;
    ndem_contact_geometry(sim, a, key, &geom);
    double d_eff = geom.d_eff, vb[3], delta = geom.delta;
    const ndem_pair_params *pp = ndem_pair(&sim->materials, b->material[a], geom.material_b);
    row->a = a;
    row->b = geom.b;
    memcpy(row->n, geom.n, sizeof row->n);
    row->la = geom.la;
    row->lb = geom.lb;
    if (key >= 0) {
        memcpy(vb, &b->vel[6 * key], sizeof vb);
    } else {
        memcpy(ug, geom.ug, sizeof geom.ug);
        memcpy(vb, ug, sizeof vb);
    }
    cold->delta = delta;

    /* Hertz mapping, seed 000 eq. (35.3) with the exponent of seed 003. */
    double nu = pp->poisson_ratio;
    double kn = ndem_hertz_stiffness(pp->young_modulus, nu, d_eff);
    double eps = E_H / kn;
    double tau = sim->solver.damping_steps * h;
    if (pp->viscosity > 0 && nu > 0) {
        double cdamp = 4.0 * (1 - nu * nu) * (1 - 2 * nu) * pp->viscosity /
                       (15.0 * pp->young_modulus * nu * nu);
        tau = ndem_max(tau, cdamp / E_H); /* eps_n / gamma_n = c / e_H, eq. (35.12) */
    }
    if (pp->damping_time > 0) tau = pp->damping_time;
    double de = delta - pp->adhesive_overlap; /* adhesion, seed 000 35.4.6 */
    double mag = fabs(de);
    cold->gap = delta < 0;
    if (cold->gap) {
        /* Apart: a speculative row lets the gap close within the step and no
         * further, so free flight is untouched until the bodies meet; the
         * impact stage has already handled a fast arrival. */
        cold->phi = -delta;
        row->s = 1.0;
        cold->ups = 0.0;
        row->sig_n = 0.0;
    } else {
        cold->phi = de > 0 ? -pow(mag, E_H) : pow(mag, E_H);
        /* The row scale vanishes with the overlap; a floor keeps it solvable. */
        row->s = E_H * pow(ndem_max(mag, 1e-6 * d_eff), E_H - 1.0);
        cold->ups = 1.0 / (1.0 + 4.0 * tau / h);
        row->sig_n = 4.0 / (h * h) * eps * cold->ups;
    }
    double sig_t = sim->solver.friction_compliance / h; /* gamma_t = gamma_r, PHYSICS.md */
    double sig_r = sig_t;
    double r_eff = 0.5 * d_eff;
    row->mu = pp->friction;
    row->mur = pp->rolling * r_eff;
    row->mut = pp->twisting * r_eff;
    row->lo_n = (pp->adhesion > 0 && delta > 0 && de < 0) ? -pp->adhesion * h / row->s : 0.0;

    double ima = b->inv_mass[a], iia = b->inv_inertia[a];
    double imb = key >= 0 ? b->inv_mass[key] : 0.0, iib = key >= 0 ? b->inv_inertia[key] : 0.0;
    row->inv_dn = 1.0 / (row->s * row->s * (ima + imb) + row->sig_n);
    row->inv_dt = 1.0 / (ima + imb + iia * row->la * row->la + iib * row->lb * row->lb + sig_t);
    row->inv_dr = 1.0 / (iia + iib + sig_r);

    /* Impact stage classification (seed 000 eq. 35.6). */
    double dv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
    double vsep = ndem_dot(row->n, dv);
    cold->impact = 0;
    cold->v_target = 0.0;
    /* Impacting: approaching faster than v_imp and meeting within this step
     * (gravity's pull during the step counted in). */
    double g = sqrt(ndem_dot(sim->gravity, sim->gravity));
    if (-vsep > sim->v_imp && delta - h * vsep + h * h * g > 0) {
        cold->impact = 2;
        cold->v_target = pp->restitution * -vsep;
    } else if (delta >= 0) {
        cold->impact = 1;
    }

    /* The impact stage starts from zero impulses in lam; the warm start
     * (ndem_row_warm_start) fills lam after it. */
    memset(row->lam, 0, sizeof row->lam);
    cold->hist = sim->solver.warm_start ? history_find(&sim->history, a, key) : -1;
}

/* History-based warm start, seed 003 eq. (7): impulses re-projected on this
 * step's basis, then clamped to this step's bounds. Runs after the impact
 * stage, which the warm start does not enter (PHYSICS.md). */
void ndem_row_warm_start(const ndem_sim *sim, ndem_row *row, int hist_index)
{
    memset(row->lam, 0, sizeof row->lam);
    if (hist_index >= 0) {
        const double *hist = sim->history.lam + 7 * (size_t)hist_index;
        const double *rot = hist + 4; /* rolling and twisting impulse vector */
        double t1[3], t2[3];
        ndem_row_tangents(row->n, t1, t2);
        double beta = sim->solver.warm_start_factor;
        double fn = beta * hist[0];
        row->lam[0] = ndem_max(fn / row->s, row->lo_n);
        double F = row->s * row->lam[0];
        double f1 = beta * ndem_dot(hist + 1, t1), f2 = beta * ndem_dot(hist + 1, t2);
        double lim = row->mu * ndem_max(F, 0.0), len = sqrt(f1 * f1 + f2 * f2);
        if (len > lim) { f1 *= lim / len; f2 *= lim / len; }
        row->lam[1] = f1;
        row->lam[2] = f2;
        double r1 = beta * ndem_dot(rot, t1), r2 = beta * ndem_dot(rot, t2);
        lim = row->mur * ndem_max(F, 0.0);
        len = sqrt(r1 * r1 + r2 * r2);
        if (len > lim) { r1 *= lim / len; r2 *= lim / len; }
        row->lam[3] = r1;
        row->lam[4] = r2;
        double tw = beta * ndem_dot(rot, row->n), tl = row->mut * ndem_max(F, 0.0);
        row->lam[5] = ndem_min(ndem_max(tw, -tl), tl);
    }
}

int ndem_contacts_prepare(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    if (c->count > c->row_capacity || !c->rows) {
        long cap = c->count + c->count / 2 + 256;
        ndem_row *rows = realloc(c->rows, sizeof(ndem_row) * (size_t)cap);
        if (rows) c->rows = rows;
        ndem_row_cold *cold = realloc(c->cold, sizeof(ndem_row_cold) * (size_t)cap);
        if (cold) c->cold = cold;
        double *res = realloc(c->residual, 3 * sizeof(double) * (size_t)cap);
        if (res) c->residual = res;
        if (!rows || !cold || !res) return -1;
        c->row_capacity = cap;
    }
    if (ensure((void **)&c->ug, &c->ug_capacity, 6 * c->geometry_rows + 6, sizeof(double)))
        return -1;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, c->count))
    for (long k = 0; k < c->count; k++) {
        long at = c->slot[k];
        prepare_row(sim, k, &c->rows[at], &c->cold[at], c->key_b[k] < 0 ? &c->ug[6 * at] : NULL);
    }
    return 0;
}

/* The impulses of this step become the next step's warm start (physical
 * normal impulse, friction and rolling impulses as world vectors). */
int ndem_contacts_store_history(ndem_sim *sim)
{
    const ndem_contacts *c = &sim->contacts;
    ndem_history *h = &sim->history;
    long n = sim->bodies.count;
    if (ensure((void **)&h->start, &h->start_capacity, n + 1, sizeof(long))) return -1;
    if (c->count > h->capacity) {
        long cap = c->count + c->count / 2 + 256;
        int *kb = realloc(h->key_b, sizeof(int) * (size_t)cap);
        if (kb) h->key_b = kb;
        double *lam = realloc(h->lam, 7 * sizeof(double) * (size_t)cap);
        if (lam) h->lam = lam;
        if (!kb || !lam) return -1;
        h->capacity = cap;
    }
    memcpy(h->start, c->start, sizeof(long) * (size_t)(n + 1));
    if (c->count > 0) memcpy(h->key_b, c->key_b, sizeof(int) * (size_t)c->count);
    h->bodies = n;
    h->count = c->count;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, c->count))
    for (long k = 0; k < c->count; k++) {
        const ndem_row *r = &c->rows[c->slot[k]];
        double *o = &h->lam[7 * k], t1[3], t2[3];
        ndem_row_tangents(r->n, t1, t2);
        o[0] = r->s * r->lam[0];
        for (int q = 0; q < 3; q++) {
            o[1 + q] = r->lam[1] * t1[q] + r->lam[2] * t2[q];
            o[4 + q] = r->lam[3] * t1[q] + r->lam[4] * t2[q] + r->lam[5] * r->n[q];
        }
    }
    return 0;
}

void ndem_contacts_destroy(ndem_contacts *c, ndem_history *h)
{
    free(c->key_a);
    free(c->key_b);
    free(c->slot);
    free(c->start);
    free(c->rows);
    free(c->cold);
    free(c->ug);
    free(c->group_start);
    free(c->color_mask);
    free(c->residual);
    free(c->island);
    for (long i = 0; i < c->block_capacity; i++) free(c->blocks[i].key);
    free(c->blocks);
    memset(c, 0, sizeof *c);
    free(h->start);
    free(h->key_b);
    free(h->lam);
    memset(h, 0, sizeof *h);
}
