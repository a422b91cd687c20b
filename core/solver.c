/* solver.c - the NDEM solve stage (seed 003 Algorithm 1): impact stage,
 * SPOOK right-hand side, gravity pre-step, warm start, and the projected
 * Gauss-Seidel sweeps with friction and rolling resistance on discs bounded
 * by the physical normal impulse (PHYSICS.md).
 *
 * Parallel PGS: geometry contacts first (one particle's wall contacts in one
 * task), then one colour at a time; contacts of a colour share no particle,
 * so any thread count gives the serial sweep bit for bit. */
#include "sim.h"
#include "vec.h"
#include "wide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { STAGE_IMPACT, STAGE_WARM, STAGE_CONTINUOUS } stage;

/* The sweep is compiled once per stage (the stage a constant), so the
 * continuous sweep carries no impact-stage branches or divisions. */
#if defined(__GNUC__)
#define NDEM_INLINE static inline __attribute__((always_inline))
#else
#define NDEM_INLINE static inline
#endif

/* Per-sweep constants of a stage. */
typedef struct sweep_ctx {
    ndem_contacts *c;
    double *vel;
    const double *inv_mass, *inv_inertia;
    double sig_t, sig_r; /* friction and rolling compliance / h */
} sweep_ctx;

static inline void project_disc(double *x, double *y, double lim)
{
    double len2 = *x * *x + *y * *y;
    if (len2 > lim * lim) {
        double f = lim > 0 ? lim / sqrt(len2) : 0.0;
        *x *= f;
        *y *= f;
    }
}

/* Applies impulse changes (normal scaled by s, t1, t2, r1, r2, twist). */
static inline void apply(const ndem_row *r, const double *t1, const double *t2, double *va,
                         double *vb, double ima, double iia, double imb, double iib,
                         const double *d)
{
    const double *n = r->n;
    for (int q = 0; q < 3; q++) {
        double lin = d[0] * n[q] + d[1] * t1[q] + d[2] * t2[q];
        /* lever terms: d_a x t1 = la t2, d_a x t2 = -la t1 (d_a = la n) */
        double ang_a = r->la * (d[1] * t2[q] - d[2] * t1[q]);
        double ang_b = r->lb * (d[1] * t2[q] - d[2] * t1[q]);
        double rot = d[3] * t1[q] + d[4] * t2[q] + d[5] * n[q];
        va[q] -= ima * lin;
        va[3 + q] -= iia * (ang_a + rot);
        vb[q] += imb * lin;
        vb[3 + q] += iib * (rot - ang_b);
    }
}

/* One contact, all six rows, in the given stage. Returns the residuals
 * (normal, friction, rolling) seen before the update. For a geometry row
 * ug is the geometry's velocity (written to a scratch copy, never back). */
NDEM_INLINE void solve_contact(const sweep_ctx *x, ndem_row *r, double *lamp, const double *ug,
                                 double v_target, stage st, double *res)
{
    double scratch[6];
    double *va = &x->vel[6 * r->a], *vb;
    double ima = x->inv_mass[r->a], iia = x->inv_inertia[r->a], imb, iib;
    if (r->b >= 0) {
        vb = &x->vel[6 * r->b];
        imb = x->inv_mass[r->b];
        iib = x->inv_inertia[r->b];
    } else {
        memcpy(scratch, ug, sizeof scratch);
        vb = scratch;
        imb = 0.0;
        iib = 0.0;
    }
    const double *n = r->n;
    double t1[3], t2[3];
    ndem_row_tangents(n, t1, t2);
    double d[6] = {0, 0, 0, 0, 0, 0};
    double L[6];
    if (st == STAGE_WARM) {
        apply(r, t1, t2, va, vb, ima, iia, imb, iib,
              (double[6]){r->s * lamp[0], lamp[1], lamp[2], lamp[3], lamp[4], lamp[5]});
        return;
    }
    memcpy(L, lamp, sizeof L);
    double dv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
    double dw[3];
    double F;
    if (st == STAGE_IMPACT) {
        /* Newton impact law, unregularised rows (seed 000 eq. 35.6). */
        double rn = ndem_dot(n, dv) - v_target;
        double ln = ndem_max(L[0] - rn / (ima + imb), 0.0);
        d[0] = ln - L[0];
        L[0] = ln;
        F = ln;
        res[0] = fabs(rn);
    } else {
        double rn = r->s * ndem_dot(n, dv) - r->q_n + r->sig_n * L[0];
        double ln = ndem_max(L[0] - rn * r->inv_dn, r->lo_n);
        d[0] = r->s * (ln - L[0]);
        L[0] = ln;
        F = r->s * ln; /* the physical normal impulse bounds friction */
        res[0] = fabs(rn);
    }
    /* Apply the normal change before the tangential rows (Gauss-Seidel). */
    for (int q = 0; q < 3; q++) {
        dv[q] += (imb + ima) * d[0] * n[q];
    }
    double sig_t = st == STAGE_IMPACT ? 0.0 : x->sig_t;
    double sig_r = st == STAGE_IMPACT ? 0.0 : x->sig_r;
    double inv_dt = st == STAGE_IMPACT
                        ? 1.0 / (ima + imb + iia * r->la * r->la + iib * r->lb * r->lb)
                        : r->inv_dt;
    double inv_dr = st == STAGE_IMPACT ? 1.0 / (iia + iib) : r->inv_dr;
    /* Friction rows: G_t1 v = t1.(vb - va) - la t2.wa - lb t2.wb, and
     * G_t2 v = t2.(vb - va) + la t1.wa + lb t1.wb (seed 003 eq. 18). */
    double wa_t1 = ndem_dot(&va[3], t1), wa_t2 = ndem_dot(&va[3], t2);
    double wb_t1 = ndem_dot(&vb[3], t1), wb_t2 = ndem_dot(&vb[3], t2);
    double r1 = ndem_dot(t1, dv) - r->la * wa_t2 - r->lb * wb_t2 + sig_t * L[1];
    double r2 = ndem_dot(t2, dv) + r->la * wa_t1 + r->lb * wb_t1 + sig_t * L[2];
    double l1 = L[1] - r1 * inv_dt, l2 = L[2] - r2 * inv_dt;
    project_disc(&l1, &l2, r->mu * ndem_max(F, 0.0));
    d[1] = l1 - L[1];
    d[2] = l2 - L[2];
    L[1] = l1;
    L[2] = l2;
    res[1] = sqrt(r1 * r1 + r2 * r2);
    /* Rolling and twisting rows act on the relative angular velocity; apply
     * the friction change to it first. */
    for (int q = 0; q < 3; q++) {
        double ang = d[1] * t2[q] - d[2] * t1[q];
        double wa = va[3 + q] - iia * r->la * ang;
        double wb = vb[3 + q] - iib * r->lb * ang;
        dw[q] = wb - wa;
    }
    double q1 = ndem_dot(t1, dw) + sig_r * L[3];
    double q2 = ndem_dot(t2, dw) + sig_r * L[4];
    double q3 = ndem_dot(n, dw) + sig_r * L[5];
    double m1 = L[3] - q1 * inv_dr, m2 = L[4] - q2 * inv_dr, m3 = L[5] - q3 * inv_dr;
    project_disc(&m1, &m2, r->mur * ndem_max(F, 0.0));
    double tl = r->mut * ndem_max(F, 0.0);
    m3 = ndem_min(ndem_max(m3, -tl), tl);
    d[3] = m1 - L[3];
    d[4] = m2 - L[4];
    d[5] = m3 - L[5];
    L[3] = m1;
    L[4] = m2;
    L[5] = m3;
    res[2] = sqrt(q1 * q1 + q2 * q2 + q3 * q3);
    apply(r, t1, t2, va, vb, ima, iia, imb, iib, d);
    memcpy(lamp, L, sizeof L);
}

/* Row k of the stage. The impact stage runs on lam from zero (the warm
 * start is not applied there, PHYSICS.md) and is overwritten by it after. */
NDEM_INLINE void solve_row(const sweep_ctx *x, long k, stage st, int want_residual)
{
    ndem_contacts *c = x->c;
    double tmp[3];
    if (st == STAGE_IMPACT && c->cold[k].impact == 0) return;
    double *lam = c->rows[k].lam;
    const double *ug = k < c->geometry_rows ? &c->ug[6 * k] : NULL;
    double v_target = st == STAGE_IMPACT ? c->cold[k].v_target : 0.0;
    solve_contact(x, &c->rows[k], lam, ug, v_target, st, want_residual ? &c->residual[3 * k] : tmp);
}


#ifdef NDEM_WIDE
/* project_disc of NDEM_W lanes: the same operations, selected per lane. */
static inline void project_disc_w(ndem_wide *x, ndem_wide *y, ndem_wide lim)
{
    ndem_wide len2 = *x * *x + *y * *y;
    ndem_wmask clamp = len2 > lim * lim;
    ndem_wide f = ndem_w_sel(lim > 0, lim / ndem_w_sqrt(len2), ndem_w_set(0.0));
    *x = ndem_w_sel(clamp, *x * f, *x);
    *y = ndem_w_sel(clamp, *y * f, *y);
}

/* solve_contact of the continuous stage for NDEM_W particle rows k0.. of one
 * colour at once (they share no body), lane by lane the scalar arithmetic. */
NDEM_INLINE void solve_packet(const sweep_ctx *x, long k0, int want_residual)
{
    ndem_contacts *c = x->c;
    ndem_row *r[NDEM_W];
    double *va[NDEM_W], *vb[NDEM_W];
    ndem_wide ima = {0}, iia = {0}, imb = {0}, iib = {0}, la = {0}, lb = {0}, rs = {0};
    ndem_wide inv_dn = {0}, inv_dt = {0}, inv_dr = {0}, sig_n = {0}, q_n = {0};
    ndem_wide mu = {0}, mur = {0}, mut = {0}, lo_n = {0};
    ndem_wide n[3] = {{0}}, L[6] = {{0}}, A[6] = {{0}}, B[6] = {{0}};
    for (int l = 0; l < NDEM_W; l++) {
        ndem_row *p = r[l] = &c->rows[k0 + l];
        va[l] = &x->vel[6 * p->a];
        vb[l] = &x->vel[6 * p->b];
        ima[l] = x->inv_mass[p->a], iia[l] = x->inv_inertia[p->a];
        imb[l] = x->inv_mass[p->b], iib[l] = x->inv_inertia[p->b];
        for (int q = 0; q < 3; q++) n[q][l] = p->n[q];
        la[l] = p->la, lb[l] = p->lb, rs[l] = p->s;
        inv_dn[l] = p->inv_dn, inv_dt[l] = p->inv_dt, inv_dr[l] = p->inv_dr;
        sig_n[l] = p->sig_n, q_n[l] = p->q_n;
        mu[l] = p->mu, mur[l] = p->mur, mut[l] = p->mut, lo_n[l] = p->lo_n;
        for (int q = 0; q < 6; q++) {
            L[q][l] = p->lam[q];
            A[q][l] = va[l][q];
            B[q][l] = vb[l][q];
        }
    }
    /* ndem_row_tangents (vec.h), lane by lane */
    ndem_wide t1[3], t2[3];
    ndem_wide s = ndem_w_sel(n[2] >= 0.0, ndem_w_set(1.0), ndem_w_set(-1.0));
    ndem_wide a = -1.0 / (s + n[2]);
    ndem_wide b = n[0] * n[1] * a;
    t1[0] = 1.0 + s * n[0] * n[0] * a;
    t1[1] = s * b;
    t1[2] = -s * n[0];
    t2[0] = n[1] * t1[2] - n[2] * t1[1];
    t2[1] = n[2] * t1[0] - n[0] * t1[2];
    t2[2] = n[0] * t1[1] - n[1] * t1[0];

    ndem_wide zero = ndem_w_set(0.0), d[6];
    ndem_wide dv[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
    ndem_wide rn = rs * ndem_w_dot(n, dv) - q_n + sig_n * L[0];
    ndem_wide ln = ndem_w_max(L[0] - rn * inv_dn, lo_n);
    d[0] = rs * (ln - L[0]);
    L[0] = ln;
    ndem_wide F = ndem_w_max(rs * ln, zero);
    for (int q = 0; q < 3; q++) dv[q] += (imb + ima) * d[0] * n[q];
    ndem_wide sig_t = ndem_w_set(x->sig_t), sig_r = ndem_w_set(x->sig_r);
    ndem_wide wa_t1 = ndem_w_dot(&A[3], t1), wa_t2 = ndem_w_dot(&A[3], t2);
    ndem_wide wb_t1 = ndem_w_dot(&B[3], t1), wb_t2 = ndem_w_dot(&B[3], t2);
    ndem_wide r1 = ndem_w_dot(t1, dv) - la * wa_t2 - lb * wb_t2 + sig_t * L[1];
    ndem_wide r2 = ndem_w_dot(t2, dv) + la * wa_t1 + lb * wb_t1 + sig_t * L[2];
    ndem_wide l1 = L[1] - r1 * inv_dt, l2 = L[2] - r2 * inv_dt;
    project_disc_w(&l1, &l2, mu * F);
    d[1] = l1 - L[1];
    d[2] = l2 - L[2];
    L[1] = l1;
    L[2] = l2;
    ndem_wide dw[3];
    for (int q = 0; q < 3; q++) {
        ndem_wide ang = d[1] * t2[q] - d[2] * t1[q];
        ndem_wide wa = A[3 + q] - iia * la * ang;
        ndem_wide wb = B[3 + q] - iib * lb * ang;
        dw[q] = wb - wa;
    }
    ndem_wide q1 = ndem_w_dot(t1, dw) + sig_r * L[3];
    ndem_wide q2 = ndem_w_dot(t2, dw) + sig_r * L[4];
    ndem_wide q3 = ndem_w_dot(n, dw) + sig_r * L[5];
    ndem_wide m1 = L[3] - q1 * inv_dr, m2 = L[4] - q2 * inv_dr, m3 = L[5] - q3 * inv_dr;
    project_disc_w(&m1, &m2, mur * F);
    ndem_wide tl = mut * F;
    m3 = ndem_w_min(ndem_w_max(m3, -tl), tl);
    d[3] = m1 - L[3];
    d[4] = m2 - L[4];
    d[5] = m3 - L[5];
    L[3] = m1;
    L[4] = m2;
    L[5] = m3;
    for (int q = 0; q < 3; q++) { /* apply() */
        ndem_wide lin = d[0] * n[q] + d[1] * t1[q] + d[2] * t2[q];
        ndem_wide ang_a = la * (d[1] * t2[q] - d[2] * t1[q]);
        ndem_wide ang_b = lb * (d[1] * t2[q] - d[2] * t1[q]);
        ndem_wide rot = d[3] * t1[q] + d[4] * t2[q] + d[5] * n[q];
        A[q] -= ima * lin;
        A[3 + q] -= iia * (ang_a + rot);
        B[q] += imb * lin;
        B[3 + q] += iib * (rot - ang_b);
    }
    ndem_wide res0 = zero, res1 = zero, res2 = zero;
    if (want_residual) {
        res0 = ndem_w_abs(rn);
        res1 = ndem_w_sqrt(r1 * r1 + r2 * r2);
        res2 = ndem_w_sqrt(q1 * q1 + q2 * q2 + q3 * q3);
    }
    for (int l = 0; l < NDEM_W; l++) {
        for (int q = 0; q < 6; q++) {
            r[l]->lam[q] = L[q][l];
            va[l][q] = A[q][l];
            vb[l][q] = B[q][l];
        }
        if (want_residual) {
            double *res = &c->residual[3 * (k0 + l)];
            res[0] = res0[l], res[1] = res1[l], res[2] = res2[l];
        }
    }
}
#endif

/* One sweep over every row of the stage: geometry groups, then colours.
 * Called by every thread of the enclosing parallel region. */
NDEM_INLINE void sweep_stage(const sweep_ctx *x, stage st, int want_residual)
{
    ndem_contacts *c = x->c;
#pragma omp for schedule(static)
    for (long g = 0; g < c->group_count; g++)
        for (long k = c->group_start[g]; k < c->group_start[g + 1]; k++)
            solve_row(x, k, st, want_residual);
    for (int q = 0; q < c->color_count; q++) {
        long lo = c->color_start[q], hi = c->color_start[q + 1];
        if (q == 64) {
            /* overflow set: no colour was left, one thread solves it in order */
#pragma omp single
            for (long k = lo; k < hi; k++) solve_row(x, k, st, want_residual);
            continue;
        }
#ifdef NDEM_WIDE
        if (st == STAGE_CONTINUOUS) {
            /* packets of NDEM_W rows, then the rest one by one; rows of a
             * colour are independent, so any split gives the same result */
            long packets = (hi - lo) / NDEM_W, units = packets + (hi - lo) % NDEM_W;
#pragma omp for schedule(static)
            for (long u = 0; u < units; u++) {
                if (u < packets) solve_packet(x, lo + u * NDEM_W, want_residual);
                else solve_row(x, lo + packets * NDEM_W + (u - packets), st, want_residual);
            }
            continue;
        }
#endif
#pragma omp for schedule(static)
        for (long k = lo; k < hi; k++) solve_row(x, k, st, want_residual);
    }
}

static void sweep(const sweep_ctx *x, stage st, int want_residual)
{
    if (st == STAGE_CONTINUOUS && want_residual) sweep_stage(x, STAGE_CONTINUOUS, 1);
    else if (st == STAGE_CONTINUOUS) sweep_stage(x, STAGE_CONTINUOUS, 0);
    else if (st == STAGE_WARM) sweep_stage(x, STAGE_WARM, 0);
    else sweep_stage(x, STAGE_IMPACT, 0);
}

/* Mean residuals per row type, summed in row order so the result (and an
 * early exit that depends on it) is the same for every thread count. */
static void residuals(const ndem_contacts *c, double *out)
{
    double s[3] = {0, 0, 0};
    for (long k = 0; k < c->count; k++)
        for (int q = 0; q < 3; q++) s[q] += c->residual[3 * k + q];
    for (int q = 0; q < 3; q++) out[q] = c->count ? s[q] / (double)c->count : 0.0;
}

static int island_root(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]]; /* path halving */
        i = parent[i];
    }
    return i;
}

/* The impact stage acts only on the islands that hold an impacting contact:
 * "the impact forces are propagated instantaneously in the contact network"
 * (seed 000, 35.3), so they reach every contact of the impacting contact's
 * connected component (union-find over touching particle pairs; geometry has
 * infinite mass and joins nothing) and no other. Rows of the other islands
 * are dropped from this step's impact stage (impact = 0). Returns the rows
 * left in the stage; serial and order independent, so deterministic. */
static long impact_islands(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    long nb = sim->bodies.count;
    if (2 * nb > c->island_capacity) {
        int *p = realloc(c->island, 2 * sizeof(int) * (size_t)nb);
        if (!p) return -1; /* keep every row: the unrestricted stage */
        c->island = p;
        c->island_capacity = 2 * nb;
    }
    int *parent = c->island, *hit = c->island + nb;
    for (long i = 0; i < nb; i++) parent[i] = (int)i, hit[i] = 0;
    for (long k = 0; k < c->count; k++) {
        const ndem_row *r = &c->rows[k];
        if (c->cold[k].impact == 0 || r->b < 0) continue;
        int ra = island_root(parent, r->a), rb = island_root(parent, r->b);
        if (ra != rb) parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
    }
    for (long k = 0; k < c->count; k++)
        if (c->cold[k].impact == 2) hit[island_root(parent, c->rows[k].a)] = 1;
    long kept = 0;
    for (long k = 0; k < c->count; k++) {
        ndem_row_cold *r = &c->cold[k];
        if (r->impact == 0) continue;
        if (hit[island_root(parent, c->rows[k].a)]) kept++;
        else r->impact = 0;
    }
    return kept;
}

void ndem_solve(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
    const long nrows = c->count, nb = b->count;
    long impacts = 0;
    for (long k = 0; k < nrows; k++) impacts += c->cold[k].impact == 2;
    long impact_rows = impacts > 0 ? impact_islands(sim) : 0;
    const int max_it = sim->solver.iterations, imp_it = sim->solver.impact_iterations;
    const double tol = sim->solver.tolerance;
    const int warm = sim->solver.warm_start;
    int iters_used = 0, stop = 0;
    double res[3] = {0, 0, 0};
    sweep_ctx x = {c, b->vel, b->inv_mass, b->inv_inertia, sim->solver.friction_compliance / h,
                   sim->solver.friction_compliance / h};

#pragma omp parallel num_threads(ndem_threads_for(sim, nrows))
    {
        if (impacts > 0)
            for (int it = 0; it < imp_it; it++) sweep(&x, STAGE_IMPACT, 0);
        /* The impact impulses are dropped; lam takes the warm start. */
#pragma omp for schedule(static)
        for (long k = 0; k < nrows; k++) ndem_row_warm_start(sim, &c->rows[k], c->cold[k].hist);

        /* SPOOK right-hand side with the post-impact velocities, Algorithm 1
         * line 7: q_n = -(4/h) Upsilon phi + Upsilon G_n v+. */
#pragma omp for schedule(static)
        for (long k = 0; k < nrows; k++) {
            ndem_row *r = &c->rows[k];
            const ndem_row_cold *o = &c->cold[k];
            const double *va = &b->vel[6 * r->a];
            const double *vb = r->b >= 0 ? &b->vel[6 * r->b] : &c->ug[6 * k];
            double dv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
            if (o->gap) r->q_n = -o->phi / h; /* speculative: v_sep >= -gap / h */
            else r->q_n = -(4.0 / h) * o->ups * o->phi + o->ups * r->s * ndem_dot(r->n, dv);
        }
        /* Pre-step: external forces (gravity). */
#pragma omp for schedule(static)
        for (long i = 0; i < nb; i++)
            for (int q = 0; q < 3; q++) b->vel[6 * i + q] += h * sim->gravity[q];
        if (sim->forced_count > 0) {
#pragma omp single
            ndem_apply_external_forces(sim);
        }
        /* Warm step, seed 003 eq. (8): v += M^-1 G^T lambda_0. */
        if (warm) sweep(&x, STAGE_WARM, 0);

        for (int it = 0; it < max_it; it++) {
            int want = it == max_it - 1 || tol > 0;
            sweep(&x, STAGE_CONTINUOUS, want);
            if (want) {
#pragma omp single
                {
                    residuals(c, res);
                    iters_used = it + 1;
                    if (tol > 0 && res[0] + res[1] + res[2] < tol) stop = 1;
                }
                if (stop) break;
            }
        }
    }
    if (iters_used == 0) iters_used = max_it;
    sim->stats.impacts = impacts;
    sim->stats.impact_rows = impact_rows;
    sim->stats.iterations = iters_used;
    sim->stats.residual_normal = res[0];
    sim->stats.residual_friction = res[1];
    sim->stats.residual_rolling = res[2];
}
