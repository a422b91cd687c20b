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

#include <math.h>
#include <string.h>

typedef enum { STAGE_IMPACT, STAGE_WARM, STAGE_CONTINUOUS } stage;

/* Velocity of body b at a row: a particle's state or the geometry's. */
static inline double *body_b(const ndem_row *r, double *vel, double *scratch)
{
    if (r->b >= 0) return &vel[6 * r->b];
    memcpy(scratch, r->ug, 6 * sizeof(double));
    return scratch;
}

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
static inline void apply(const ndem_row *r, double *va, double *vb, double ima, double iia,
                         double imb, double iib, const double *d)
{
    const double *n = r->n, *t1 = r->t1, *t2 = r->t2;
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
 * (normal, friction, rolling) seen before the update. */
static void solve_contact(ndem_row *r, double *lamp, double *vel, const ndem_bodies *b,
                          stage st, double *res)
{
    double scratch[6];
    double *va = &vel[6 * r->a];
    double *vb = body_b(r, vel, scratch);
    double ima = b->inv_mass[r->a], iia = b->inv_inertia[r->a];
    double imb = r->b >= 0 ? b->inv_mass[r->b] : 0.0;
    double iib = r->b >= 0 ? b->inv_inertia[r->b] : 0.0;
    const double *n = r->n, *t1 = r->t1, *t2 = r->t2;
    double d[6] = {0, 0, 0, 0, 0, 0};
    double lam[6];
    double *L = lam;
    if (st == STAGE_WARM) {
        apply(r, va, vb, ima, iia, imb, iib, (double[6]){r->s * lamp[0], lamp[1], lamp[2],
                                                          lamp[3], lamp[4], lamp[5]});
        return;
    }
    memcpy(lam, lamp, sizeof lam);
    double dv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
    double dw[3] = {vb[3] - va[3], vb[4] - va[4], vb[5] - va[5]};
    double F;
    if (st == STAGE_IMPACT) {
        /* Newton impact law, unregularised rows (seed 000 eq. 35.6). */
        double rn = ndem_dot(n, dv) - r->v_target;
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
    double sig_t = st == STAGE_IMPACT ? 0.0 : r->sig_t;
    double sig_r = st == STAGE_IMPACT ? 0.0 : r->sig_r;
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
    double wa[3], wb[3];
    for (int q = 0; q < 3; q++) {
        double ang = d[1] * t2[q] - d[2] * t1[q];
        wa[q] = va[3 + q] - iia * r->la * ang;
        wb[q] = vb[3 + q] - iib * r->lb * ang;
        dw[q] = wb[q] - wa[q];
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
    apply(r, va, vb, ima, iia, imb, iib, d);
    memcpy(lamp, lam, sizeof lam);
}

/* One sweep over every row of the stage: geometry groups, then colours.
 * Called by every thread of the enclosing parallel region. */
static void sweep(ndem_sim *sim, stage st, int want_residual)
{
    ndem_contacts *c = &sim->contacts;
    ndem_bodies *b = &sim->bodies;
    double *vel = b->vel;
    double *res = c->residual;
    double *imp = c->impact_lam;
#define NDEM_SOLVE_ROW(k)                                                                          \
    do {                                                                                           \
        ndem_row *r_ = &c->rows[k];                                                                \
        double tmp_[3];                                                                            \
        if (st == STAGE_IMPACT && r_->impact == 0) break;                                          \
        double *lam_ = st == STAGE_IMPACT ? &imp[6 * (k)] : r_->lam;                               \
        solve_contact(r_, lam_, vel, b, st, want_residual ? &res[3 * (k)] : tmp_);                 \
    } while (0)
#pragma omp for schedule(static)
    for (long g = 0; g < c->group_count; g++)
        for (long k = c->group_start[g]; k < c->group_start[g + 1]; k++) NDEM_SOLVE_ROW(k);
    for (int q = 0; q < c->color_count; q++) {
        long lo = c->color_start[q], hi = c->color_start[q + 1];
        if (q == 64) {
            /* overflow set: no colour was left, one thread solves it in order */
#pragma omp single
            for (long k = lo; k < hi; k++) NDEM_SOLVE_ROW(k);
            continue;
        }
#pragma omp for schedule(static)
        for (long k = lo; k < hi; k++) NDEM_SOLVE_ROW(k);
    }
#undef NDEM_SOLVE_ROW
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

void ndem_solve(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
    const long nrows = c->count, nb = b->count;
    long impacts = 0;
    for (long k = 0; k < nrows; k++) impacts += c->rows[k].impact == 2;
    if (impacts > 0) memset(c->impact_lam, 0, 6 * sizeof(double) * (size_t)nrows);
    const int max_it = sim->solver.iterations, imp_it = sim->solver.impact_iterations;
    const double tol = sim->solver.tolerance;
    const int warm = sim->solver.warm_start;
    int iters_used = 0, stop = 0;
    double res[3] = {0, 0, 0};

#pragma omp parallel num_threads(ndem_threads_for(sim, nrows))
    {
        if (impacts > 0)
            for (int it = 0; it < imp_it; it++) sweep(sim, STAGE_IMPACT, 0);

        /* SPOOK right-hand side with the post-impact velocities, Algorithm 1
         * line 7: q_n = -(4/h) Upsilon phi + Upsilon G_n v+. */
#pragma omp for schedule(static)
        for (long k = 0; k < nrows; k++) {
            ndem_row *r = &c->rows[k];
            const double *va = &b->vel[6 * r->a];
            const double *vb = r->b >= 0 ? &b->vel[6 * r->b] : r->ug;
            double dv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
            if (r->gap) r->q_n = -r->phi / h; /* speculative: v_sep >= -gap / h */
            else r->q_n = -(4.0 / h) * r->ups * r->phi + r->ups * r->s * ndem_dot(r->n, dv);
        }
        /* Pre-step: external forces (gravity). */
#pragma omp for schedule(static)
        for (long i = 0; i < nb; i++)
            for (int q = 0; q < 3; q++) b->vel[6 * i + q] += h * sim->gravity[q];
        /* Warm step, seed 003 eq. (8): v += M^-1 G^T lambda_0. */
        if (warm) sweep(sim, STAGE_WARM, 0);

        for (int it = 0; it < max_it; it++) {
            int want = it == max_it - 1 || tol > 0;
            sweep(sim, STAGE_CONTINUOUS, want);
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
    sim->stats.iterations = iters_used;
    sim->stats.residual_normal = res[0];
    sim->stats.residual_friction = res[1];
    sim->stats.residual_rolling = res[2];
}
