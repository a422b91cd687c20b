/* rows_general.c - NDEM's general rows (rows_general.h): the contacts of
 * shaped particles, per manifold point a normal and two friction rows with
 * vector lever arms, prepared once per step and swept after the SIMD
 * packets. The pair's Hertz-mapped compliance is split among its touching
 * points (a face lying on a face is not n times stiffer: dem_shape.c's
 * rule), d* from the volume-equivalent diameter. No rolling or twisting
 * rows: a shape resists rolling by its points' lever arms.
 *
 * Every loop either runs in pair order or writes its own pair's rows, and
 * the pairs of one colour share no body, so any thread count gives the
 * serial sweep bit for bit. */
#include "rows_general.h"

#include "dem_shape.h"
#include "shape_body.h"
#include "sim.h"
#include "vec.h"
#include "walls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define E_H 1.25 /* Hertz mapping exponent, as rows.c */

ndem_general *ndem_general_create(void) { return calloc(1, sizeof(ndem_general)); }

void ndem_general_destroy(ndem_general *g)
{
    if (!g) return;
    free(g->pair), free(g->row), free(g->pts), free(g->iw), free(g->order), free(g->mask);
    free(g->res), free(g->hist), free(g->next), free(g->blk);
    free(g);
}

long ndem_general_work(const ndem_sim *sim) { return sim->general ? sim->general->row_count : 0; }

int ndem_general_split(ndem_sim *sim)
{
    ndem_general *g = sim->general;
    if (!g) return 0;
    ndem_contacts *c = &sim->contacts;
    long n = sim->bodies.count, kept = 0, moved = 0;
    for (long k = 0; k < c->count; k++) moved += ndem_dem_shape_pair(sim, c->key[k]);
    if (ndem_ensure((void **)&g->pair, &g->pair_cap, moved, sizeof *g->pair)) return -1;
    g->pair_count = 0;
    /* in place, as decomp.c's filter: start[a] is rewritten after it is read */
    for (long a = 0; a < n; a++) {
        long from = c->start[a], to = c->start[a + 1];
        c->start[a] = kept;
        for (long k = from; k < to; k++) {
            ndem_contact_key key = c->key[k];
            if (ndem_dem_shape_pair(sim, key)) g->pair[g->pair_count++] = (ndem_gpair){.key = key};
            else c->key[kept++] = key;
        }
    }
    c->start[n] = kept;
    c->count = kept;
    return 0;
}

static double body_size(const ndem_sim *sim, long i)
{
    int t = sim->bodies.shape[i];
    return t >= 0 ? sim->shapes->t[t].d_eq : 2.0 * sim->bodies.radius[i];
}

/* The two colliders of pair k in collider order (cq unset for geometry);
 * p, q and the pair's material, d* and reach of the margin. */
typedef struct pair_setup {
    ndem_shape ball_p, ball_q;
    ndem_collider cp, cq;
    int p, q, material_q;
    double d_eff, margin;
} pair_setup;

static void setup_pair(const ndem_sim *sim, ndem_contact_key key, pair_setup *s)
{
    const ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step, *grav = sim->gravity;
    int a = key.a;
    double reach = h * h * sqrt(ndem_dot(grav, grav));
    if (ndem_key_is_particle(key)) {
        int lo = b->id[a] < b->id[key.b] ? a : key.b;
        s->p = lo;
        s->q = lo == a ? key.b : a;
        ndem_shapes_collider(sim, s->p, &s->ball_p, &s->cp);
        ndem_shapes_collider(sim, s->q, &s->ball_q, &s->cq);
        s->material_q = b->material[s->q];
        s->d_eff = 1.0 / (1.0 / body_size(sim, a) + 1.0 / body_size(sim, key.b));
        const double *vp = &b->vel[6 * s->p], *vq = &b->vel[6 * s->q];
        double dv[3] = {vq[0] - vp[0], vq[1] - vp[1], vq[2] - vp[2]};
        reach += h * (ndem_norm(dv) + ndem_norm(&vp[3]) * b->radius[s->p] +
                      ndem_norm(&vq[3]) * b->radius[s->q]);
    } else { /* geometry: its points come from dem_shape_geo.c's table */
        ndem_contact_geom gm;
        ndem_contact_geometry(sim, key, &gm);
        double ug[3];
        s->p = a;
        s->q = -1;
        ndem_shapes_collider(sim, a, &s->ball_p, &s->cp);
        s->material_q = gm.material_b;
        s->d_eff = body_size(sim, a);
        const double *vp = &b->vel[6 * a];
        for (int d = 0; d < 3; d++) ug[d] = gm.ug[d] - vp[d];
        reach += h * (ndem_norm(ug) + ndem_norm(&vp[3]) * b->radius[a]);
    }
    /* points that can meet within the step get (speculative) rows */
    s->margin = 2.0 * reach;
}

/* The surface velocity of pair k's geometry at x (walls: the face's). */
static void geometry_velocity(const ndem_sim *sim, ndem_contact_key key, const double *x, double *u)
{
    ndem_geometry_surface_velocity(&sim->pose[key.b], x, u);
    if (sim->geometry[key.b].walls.enabled)
        ndem_walls_face_velocity(sim->rigid, key.b, key.feature, u);
}

/* Frisvad's tangent of a unit normal (vec.h's construction, in double). */
static void tangents(const double *n, double *t1, double *t2)
{
    double s = n[2] >= 0.0 ? 1.0 : -1.0, a = -1.0 / (s + n[2]);
    t1[0] = 1.0 + s * n[0] * n[0] * a;
    t1[1] = s * (n[0] * n[1] * a);
    t1[2] = -s * n[0];
    ndem_cross(n, t1, t2);
}

static void mat_vec(const double *m, const double *v, double *o)
{
    for (int r = 0; r < 3; r++) o[r] = m[3 * r] * v[0] + m[3 * r + 1] * v[1] + m[3 * r + 2] * v[2];
}

/* Body i's world inverse inertia: a shaped body's R I^-1 R^T, a sphere's
 * scalar times the identity. */
static void world_inv_inertia(const ndem_sim *sim, long i, double *out)
{
    const ndem_bodies *b = &sim->bodies;
    if (b->shape[i] >= 0) {
        ndem_shapes_inv_inertia(sim, i, out);
        return;
    }
    memset(out, 0, 9 * sizeof(double));
    out[0] = out[4] = out[8] = b->inv_inertia[i];
}

void ndem_grow_normal(const ndem_sim *sim, const ndem_pair_params *pp, double d_eff, double split,
                      int apart, double delta, ndem_grow *r)
{
    const double h = sim->solver.time_step;
    r->delta = delta;
    double nu = pp->poisson_ratio, kn = ndem_hertz_stiffness(pp->young_modulus, nu, d_eff);
    double eps = split * E_H / kn; /* each point's share of the pair's stiffness */
    double tau = sim->solver.damping_steps * h;
    if (pp->viscosity > 0 && nu > 0) {
        double cdamp = 4.0 * (1 - nu * nu) * (1 - 2 * nu) * pp->viscosity /
                       (15.0 * pp->young_modulus * nu * nu);
        tau = ndem_max(tau, cdamp / E_H);
    }
    if (pp->damping_time > 0) tau = pp->damping_time;
    /* Speculative rows (the gap may close within the step, no further) only
     * while the whole pair is apart: a gap point of a touching pair, or one
     * apart by rounding, gets the compliant row (phi > 0), else the points
     * that happen to be a rounding error apart would hold the body rigidly
     * at zero overlap. */
    r->gap = delta < -1e-6 * d_eff && apart;
    if (r->gap) {
        r->phi = -delta;
        r->s = 1.0;
    } else {
        double mag = fabs(delta), q4 = sqrt(sqrt(mag));
        r->phi = delta > 0 ? -mag * q4 : mag * q4;
        r->s = E_H * (mag > 1e-6 * d_eff ? q4 : sqrt(sqrt(1e-6 * d_eff)));
        r->ups = 1.0 / (1.0 + 4.0 * tau / h);
        r->sig_n = 4.0 / (h * h) * eps * r->ups;
    }
    /* Rigid friction rows (no friction_compliance): with compliance each
     * point's row creeps at sig_t lambda, which a manifold's rigid body
     * cannot follow; a cube at rest kept turning at 1e-5 rad/s on its face. */
    r->mu = pp->friction;
}

/* Point j of pair k into its rows: lever arms, Hertz mapping with the
 * pair's compliance split among its touching points, impact class. */
static void prepare_point(const ndem_sim *sim, const ndem_gpair *pr, const pair_setup *s,
                          const ndem_contact_point *pt, ndem_grow *r)
{
    const ndem_general *g = sim->general;
    const ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
    const ndem_pair_params *pp = ndem_pair(&sim->materials, b->material[s->p], s->material_q);
    const double *iwp = &g->iw[9 * s->p], *iwq = s->q >= 0 ? &g->iw[9 * s->q] : NULL;
    const double imp = b->inv_mass[s->p], imq = s->q >= 0 ? b->inv_mass[s->q] : 0.0;
    const double split = pr->touching > 0 ? pr->touching : 1;
    memset(r, 0, sizeof *r);
    r->p = s->p;
    r->q = s->q;
    r->id = pt->id;
    memcpy(r->x, pt->x, sizeof r->x);
    memcpy(r->n, pt->n, sizeof r->n);
    memcpy(r->t[0], pt->n, sizeof r->n);
    tangents(pt->n, r->t[1], r->t[2]);
    double rp[3], rq[3] = {0, 0, 0}, vp[3], vq[3], w[3];
    for (int d = 0; d < 3; d++) rp[d] = pt->x[d] - b->pos[3 * s->p + d];
    if (s->q >= 0)
        for (int d = 0; d < 3; d++) rq[d] = pt->x[d] - b->pos[3 * s->q + d];
    for (int e = 0; e < 3; e++) {
        ndem_cross(rp, r->t[e], r->jp[e]);
        mat_vec(iwp, r->jp[e], r->mp[e]);
        if (iwq) {
            ndem_cross(rq, r->t[e], r->jq[e]);
            mat_vec(iwq, r->jq[e], r->mq[e]);
        }
    }
    /* the relative velocity at the point (impact classification) */
    const double *va = &b->vel[6 * s->p];
    ndem_cross(&va[3], rp, w);
    for (int d = 0; d < 3; d++) vp[d] = va[d] + w[d];
    if (s->q >= 0) {
        const double *vb = &b->vel[6 * s->q];
        ndem_cross(&vb[3], rq, w);
        for (int d = 0; d < 3; d++) vq[d] = vb[d] + w[d];
    } else {
        geometry_velocity(sim, pr->key, pt->x, r->ug);
        memcpy(vq, r->ug, sizeof vq);
    }
    const double delta = pt->depth;
    ndem_grow_normal(sim, pp, s->d_eff, split, pr->touching == 0, delta, r);
    for (int e = 0; e < 3; e++) {
        double k = imp + imq + ndem_dot(r->jp[e], r->mp[e]) + ndem_dot(r->jq[e], r->mq[e]);
        r->inv_k[e] = 1.0 / k;
        r->inv_d[e] = e == 0 ? 1.0 / (r->s * r->s * k + r->sig_n) : 1.0 / k;
    }
    /* impact stage classification, as rows.c (AGX eq. 35.6) */
    double dv[3] = {vq[0] - vp[0], vq[1] - vp[1], vq[2] - vp[2]};
    double vsep = ndem_dot(pt->n, dv), gl = sqrt(ndem_dot(sim->gravity, sim->gravity));
    if (-vsep > sim->v_imp && delta - h * vsep + h * h * gl > 0) {
        r->impact = 2;
        r->v_target = pp->restitution * -vsep;
    } else if (delta >= 0) {
        r->impact = 1;
    }
    /* warm start (rows.c's rule): last step's impulses on this basis, clamped */
    if (!sim->solver.warm_start) return;
    const ndem_bodies *bb = &sim->bodies;
    int64_t hp = bb->id[s->p], hq = s->q >= 0 ? bb->id[s->q] : -1 - pr->key.b;
    int32_t feat = s->q >= 0 ? -1 : pr->key.feature;
    const ndem_ghist *o = ndem_general_history_find(g, hp, hq, feat, pt->id);
    if (!o) return;
    double beta = sim->solver.warm_start_factor;
    double l0 = ndem_max(beta * o->n / r->s, 0.0), F = r->s * l0;
    double f1 = beta * ndem_dot(o->f, r->t[1]), f2 = beta * ndem_dot(o->f, r->t[2]);
    double lim = r->mu * F, len = sqrt(f1 * f1 + f2 * f2);
    if (len > lim) f1 *= lim / len, f2 *= lim / len;
    r->lam[0] = l0;
    if (!sim->warm_normal_only) r->lam[1] = f1, r->lam[2] = f2;
}

/* Greedy colouring in pair order (rows.c's rule): no body twice in a
 * colour; pairs finding no colour go to the serial overflow set. A pair
 * without points (apart beyond the margin) takes no colour. */
static int color_pairs(ndem_sim *sim)
{
    ndem_general *g = sim->general;
    long n = sim->bodies.count, np = g->pair_count;
    if (ndem_ensure((void **)&g->mask, &g->mask_cap, n, sizeof *g->mask) ||
        ndem_ensure((void **)&g->order, &g->order_cap, np, sizeof *g->order) ||
        ndem_ensure((void **)&g->res, &g->res_cap, 2 * np, sizeof *g->res))
        return -1;
    if (n > 0) memset(g->mask, 0, sizeof *g->mask * (size_t)n);
    long counts[NDEM_COLOR_SETS + 1] = {0};
    int *color = malloc(sizeof(int) * (size_t)(np > 0 ? np : 1));
    if (!color) return -1;
    for (long k = 0; k < np; k++) {
        color[k] = -1;
        if (g->pair[k].count == 0) continue;
        ndem_contact_key key = g->pair[k].key;
        int a = key.a, particle = ndem_key_is_particle(key);
        ndem_color_mask used = g->mask[a] | (particle ? g->mask[key.b] : 0);
        int q = used == NDEM_COLOR_MASK_FULL || sim->overflow_all ? NDEM_COLOR_OVERFLOW
                                                                  : __builtin_ctzll(~used);
        if (q < NDEM_COLORS) {
            g->mask[a] |= (ndem_color_mask)1 << q;
            if (particle) g->mask[key.b] |= (ndem_color_mask)1 << q;
        }
        color[k] = q;
        counts[q + 1]++;
    }
    g->color_count = 0;
    for (int q = 0; q < NDEM_COLOR_SETS; q++)
        if (counts[q + 1]) g->color_count = q + 1;
    for (int q = 0; q < NDEM_COLOR_SETS; q++) counts[q + 1] += counts[q];
    memcpy(g->color_start, counts, sizeof g->color_start);
    for (long k = 0; k < np; k++)
        if (color[k] >= 0) g->order[counts[color[k]]++] = k;
    free(color);
    return 0;
}

int ndem_general_prepare(ndem_sim *sim)
{
    ndem_general *g = sim->general;
    if (!g) return 0;
    const ndem_bodies *b = &sim->bodies;
    long np = g->pair_count, nb = b->count;
    g->row_count = 0;
    if (ndem_ensure((void **)&g->pts, &g->pts_cap, NDEM_CONTACT_POINTS * np, sizeof *g->pts) ||
        ndem_ensure((void **)&g->iw, &g->iw_cap, 9 * nb, sizeof(double)))
        return -1;
    if (np == 0) return color_pairs(sim);
        /* each body's world inverse inertia, once per step */
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, np))
    for (long i = 0; i < nb; i++) world_inv_inertia(sim, i, &g->iw[9 * i]);
        /* the narrow phase of every pair */
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, np))
    for (long k = 0; k < np; k++) {
        pair_setup s;
        ndem_gpair *pr = &g->pair[k];
        setup_pair(sim, pr->key, &s);
        ndem_contact_point *pts = &g->pts[NDEM_CONTACT_POINTS * k];
        /* one narrow phase for both methods: smooth DEM's against geometry */
        pr->count = s.q >= 0 ? ndem_shape_collide(&s.cp, &s.cq, s.margin, pts)
                             : ndem_dem_shape_geometry_points(sim, pr->key, &s.cp, s.margin, pts);
        pr->touching = 0;
        for (int j = 0; j < pr->count; j++) pr->touching += pts[j].depth > 0;
    }
    long rows = 0, blk = 0;
    for (long k = 0; k < np; k++) {
        g->pair[k].first = rows;
        rows += g->pair[k].count;
        g->pair[k].blk = blk;
        blk += ndem_general_block_size(g->pair[k].count);
    }
    if (ndem_ensure((void **)&g->row, &g->row_cap, rows, sizeof *g->row) ||
        ndem_ensure((void **)&g->blk, &g->blk_cap, blk, sizeof *g->blk))
        return -1;
    g->row_count = rows;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, np))
    for (long k = 0; k < np; k++) {
        pair_setup s;
        const ndem_gpair *pr = &g->pair[k];
        setup_pair(sim, pr->key, &s);
        for (int j = 0; j < pr->count; j++)
            prepare_point(sim, pr, &s, &g->pts[NDEM_CONTACT_POINTS * k + j],
                          &g->row[pr->first + j]);
        if (ndem_general_block_size(pr->count) > 0) {
            const double *im = sim->bodies.inv_mass;
            ndem_general_block_form(&g->row[pr->first], pr->count,
                                    im[s.p] + (s.q >= 0 ? im[s.q] : 0.0), &g->blk[pr->blk]);
        }
    }
    return color_pairs(sim);
}

/* ---- the sweep ---- */

/* Body i from its slot, or (i < 0) geometry moving at ug. */
static void load_body(const ndem_sim *sim, int i, const double ug[3], ndem_general_body *o)
{
    if (i < 0) {
        for (int d = 0; d < 3; d++) o->v[d] = ug[d], o->w[d] = 0.0;
        o->im = 0.0;
        o->slot = -1;
        return;
    }
    const ndem_f8 s = sim->contacts.vs[i];
    for (int d = 0; d < 3; d++) o->v[d] = s[d], o->w[d] = s[3 + d];
    o->im = s[6];
    o->slot = i;
}

static void store_body(ndem_sim *sim, const ndem_general_body *o)
{
    if (o->slot < 0) return;
    ndem_f8 *s = &sim->contacts.vs[o->slot];
    for (int d = 0; d < 3; d++) (*s)[d] = (float)o->v[d], (*s)[3 + d] = (float)o->w[d];
}

void ndem_general_point_solve(ndem_grow *r, ndem_general_body *P, ndem_general_body *Q, int st,
                              double *res)
{
    if (st == NDEM_GENERAL_WARM) {
        ndem_general_apply(r, P, Q, 0, r->s * r->lam[0]);
        ndem_general_apply(r, P, Q, 1, r->lam[1]);
        ndem_general_apply(r, P, Q, 2, r->lam[2]);
        return;
    }
    int impact = st == NDEM_GENERAL_IMPACT;
    if (impact && !r->impact) return;
    double *L = impact ? r->imp : r->lam;
    double rn, ln, F;
    const double *inv = impact ? r->inv_k : r->inv_d;
    if (impact) { /* Newton's impact law on unregularised rows */
        rn = ndem_general_rel_vel(r, P, Q, 0) - r->v_target;
        ln = ndem_max(L[0] - rn * inv[0], 0.0);
        ndem_general_apply(r, P, Q, 0, ln - L[0]);
        F = ln;
    } else {
        rn = r->s * ndem_general_rel_vel(r, P, Q, 0) - r->q_n + r->sig_n * L[0];
        ln = ndem_max(L[0] - rn * inv[0], 0.0);
        ndem_general_apply(r, P, Q, 0, r->s * (ln - L[0]));
        F = r->s * ln; /* the physical normal impulse bounds friction */
    }
    L[0] = ln;
    double r1 = ndem_general_rel_vel(r, P, Q, 1), r2 = ndem_general_rel_vel(r, P, Q, 2);
    double l1 = L[1] - r1 * inv[1], l2 = L[2] - r2 * inv[2];
    double lim = r->mu * F, len = sqrt(l1 * l1 + l2 * l2);
    if (len > lim) {
        double f = lim > 0 ? lim / len : 0.0;
        l1 *= f, l2 *= f;
    }
    ndem_general_apply(r, P, Q, 1, l1 - L[1]);
    ndem_general_apply(r, P, Q, 2, l2 - L[2]);
    L[1] = l1, L[2] = l2;
    if (res) res[0] += fabs(rn), res[1] += sqrt(r1 * r1 + r2 * r2);
}

static void solve_pair(ndem_sim *sim, long k, int st, int want_residual)
{
    ndem_general *g = sim->general;
    const ndem_gpair *pr = &g->pair[k];
    ndem_grow *r0 = &g->row[pr->first];
    ndem_general_body P, Q;
    load_body(sim, r0->p, r0->ug, &P); /* p is a particle: ug unread */
    double res[2] = {0, 0};
    /* a block where every point touches or none does (a face on a face); a
     * pair rocking on an edge, part apart, keeps the point sweep */
    if (st == NDEM_GENERAL_CONTINUOUS && ndem_general_block_size(pr->count) > 0 &&
        (pr->touching == pr->count || pr->touching == 0)) {
        /* the block (rows_general_block.c): geometry as each point's
         * surface velocity, a particle loaded once */
        ndem_general_body qs[NDEM_GENERAL_BLOCK];
        int per_point = r0->q < 0;
        for (int j = 0; j < (per_point ? pr->count : 1); j++)
            load_body(sim, r0[j].q, r0[j].ug, &qs[j]);
        if (ndem_general_block_solve(r0, pr->count, &g->blk[pr->blk], &P, qs, per_point,
                                     want_residual ? res : NULL)) {
            store_body(sim, &qs[0]);
            store_body(sim, &P);
            if (want_residual) g->res[2 * k] = res[0], g->res[2 * k + 1] = res[1];
            return;
        }
        /* (no memory of a failed block within the step: a landing face's
         * first sweeps give way, and its later ones must not) */
    }
    /* The impact stage passes over a pair's points three times a sweep: its
     * ten sweeps left the impulses of a face's four corners uneven, and a
     * cube landing flat at 5 m/s (e 0.5) spinning at 0.02 rad/s (30 passes:
     * 3e-8 rad/s); the stage is short and rare. */
    int passes = st == NDEM_GENERAL_IMPACT ? 3 : 1;
    for (int pass = 0; pass < passes; pass++)
        for (int j = 0; j < pr->count; j++) {
            ndem_grow *r = &r0[j];
            load_body(sim, r->q, r->ug, &Q); /* geometry: this point's surface velocity */
            ndem_general_point_solve(r, &P, &Q, st, want_residual ? res : NULL);
            store_body(sim, &Q);
        }
    store_body(sim, &P);
    if (want_residual) g->res[2 * k] = res[0], g->res[2 * k + 1] = res[1];
}

void ndem_general_sweep(ndem_sim *sim, int stage, int reverse, int want_residual)
{
    ndem_general *g = sim->general;
    if (!g || g->row_count == 0) return;
    int want = stage == NDEM_GENERAL_CONTINUOUS && want_residual;
    for (int i = 0; i < g->color_count; i++) {
        int q = reverse ? g->color_count - 1 - i : i;
        long lo = g->color_start[q], hi = g->color_start[q + 1];
        if (lo == hi) continue;
        if (q == NDEM_COLOR_OVERFLOW) {
#pragma omp single
            for (long j = 0; j < hi - lo; j++)
                solve_pair(sim, g->order[reverse ? hi - 1 - j : lo + j], stage, want);
            continue;
        }
#pragma omp for schedule(static)
        for (long j = lo; j < hi; j++) solve_pair(sim, g->order[j], stage, want);
    }
}

void ndem_general_right_hand_side(ndem_sim *sim)
{
    ndem_general *g = sim->general;
    if (!g) return;
    const ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
#pragma omp for schedule(static)
    for (long k = 0; k < g->row_count; k++) {
        ndem_grow *r = &g->row[k];
        double vp[3], vq[3], w[3], rp[3], rq[3];
        const double *va = &b->vel[6 * r->p];
        for (int d = 0; d < 3; d++) rp[d] = r->x[d] - b->pos[3 * r->p + d];
        ndem_cross(&va[3], rp, w);
        for (int d = 0; d < 3; d++) vp[d] = va[d] + w[d];
        if (r->q >= 0) {
            const double *vb = &b->vel[6 * r->q];
            for (int d = 0; d < 3; d++) rq[d] = r->x[d] - b->pos[3 * r->q + d];
            ndem_cross(&vb[3], rq, w);
            for (int d = 0; d < 3; d++) vq[d] = vb[d] + w[d];
        } else {
            memcpy(vq, r->ug, sizeof vq);
        }
        double vn = 0;
        for (int d = 0; d < 3; d++) vn += r->n[d] * (vq[d] - vp[d]);
        r->q_n = r->gap ? -r->phi / h : -(4.0 / h) * r->ups * r->phi + r->ups * r->s * vn;
    }
}

void ndem_general_pre_step(ndem_sim *sim)
{
    if (!sim->general) return;
    const double zero[3] = {0, 0, 0};
#pragma omp for schedule(static)
    for (long i = 0; i < sim->bodies.count; i++)
        if (sim->bodies.shape[i] >= 0) ndem_shapes_turn(sim, i, zero, sim->solver.time_step);
}

long ndem_general_residuals(const ndem_sim *sim, double s[2])
{
    const ndem_general *g = sim->general;
    if (!g) return 0;
    for (long k = 0; k < g->pair_count; k++)
        if (g->pair[k].count) s[0] += g->res[2 * k], s[1] += g->res[2 * k + 1];
    return g->row_count;
}
