/* solver.c - the NDEM solve stage (Wang et al. Algorithm 1): impact stage,
 * SPOOK right-hand side, gravity pre-step, warm start, and the projected
 * Gauss-Seidel sweeps with friction and rolling resistance on discs bounded
 * by the physical normal impulse (docs/physics.md, "Bounds").
 *
 * Parallel PGS: one colour at a time; rows of a colour share no particle,
 * so the colour's packets (NDEM_LANES rows each, rows.c) are solved in any
 * order and split, and any thread count gives the serial sweep bit for bit.
 * The sweeps run in float32 on velocity slots (sim.h); the double
 * velocities take the slots' change at the end, so bodies that no row
 * touched keep every bit. */
#include "probe.h"
#include "rigid_contact.h"
#include "sim.h"
#include "vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { STAGE_IMPACT, STAGE_WARM, STAGE_CONTINUOUS } stage;

/* The kernel is compiled once per stage (the stage a constant), so the
 * continuous sweep carries no impact-stage branches or divisions. */
#define NDEM_INLINE static inline __attribute__((always_inline))

/* Per-sweep constants. */
typedef struct sweep_ctx {
    ndem_contacts *c;
    ndem_fv sig_t, sig_r; /* friction and rolling compliance / h */
    ndem_sim *sim;
    const ndem_rigid *rigid; /* dynamic bodies (rigid.c), or NULL */
    int box;                 /* NDEM_PROJECTION: each tangent row clamped alone */
    int previous;            /* ... bounded by the normal impulse before this row's update */
} sweep_ctx;

/* rigid.c's name of a stage */
static int rigid_stage(stage st)
{
    return st == STAGE_IMPACT ? NDEM_RIGID_IMPACT
           : st == STAGE_WARM ? NDEM_RIGID_WARM
                              : NDEM_RIGID_CONTINUOUS;
}

/* (x, y) projected on the disc of radius lim, lane by lane (inlined, so each
 * ISA's sweep has its own copy: the same IEEE operations, fp-contract off) */
NDEM_INLINE void project_disc(ndem_fv *x, ndem_fv *y, ndem_fv lim)
{
    ndem_fv len2 = *x * *x + *y * *y;
    ndem_mv clamp = len2 > lim * lim;
    ndem_fv f = ndem_fv_sel(lim > 0, lim / ndem_fv_sqrt(len2), ndem_fv_set(0.0f));
    *x = ndem_fv_sel(clamp, *x * f, *x);
    *y = ndem_fv_sel(clamp, *y * f, *y);
}

/* (x, y) projected on the box [-lim, lim]^2: each row clamped alone
 * (NDEM_PROJECTION=box, Wang et al. 2016, Appendix A: "simply clamping lambda") */
static inline void project_box(ndem_fv *x, ndem_fv *y, ndem_fv lim)
{
    *x = ndem_fv_min(ndem_fv_max(*x, -lim), lim);
    *y = ndem_fv_min(ndem_fv_max(*y, -lim), lim);
}

/* The friction (rolling) pair onto its cone's cross-section: the disc, or
 * the box where NDEM_PROJECTION=box asks for it. */
static inline void project_pair(ndem_fv *x, ndem_fv *y, ndem_fv lim, int box)
{
    if (box) project_box(x, y, lim);
    else project_disc(x, y, lim);
}

/* One packet of rows, all six rows of each contact, in the given stage
 * (Wang et al. eqs. 16-18; the impact stage: AGX eq. 35.6). */
NDEM_INLINE void solve_packet(const sweep_ctx *x, long p, stage st, int want_residual)
{
    ndem_contacts *c = x->c;
    ndem_packet *P = &c->packets[p];
    ndem_mv active = {0};
    if (st == STAGE_IMPACT) {
        unsigned lanes = c->impact_lanes[p];
        if (!lanes) return;
        for (int l = 0; l < NDEM_LANES; l++) active[l] = (lanes >> l) & 1 ? -1 : 0;
    }
    /* without row bounds (rows.h) they are +0: the same operations on zeros */
    const ndem_fv zero = ndem_fv_set(0.0f);
    ndem_fv mut = zero, lo_n = zero;
    if (c->bounds) mut = c->bounds[p].mut, lo_n = c->bounds[p].lo_n;
    ndem_fv A[8], B[8];
    ndem_gather(c->vs, P->a, A);
    ndem_gather(c->vs, P->b, B);
    const ndem_fv ima = A[6], iia = A[7], imb = B[6], iib = B[7];
    const ndem_fv *n = P->n, la = P->la, lb = P->lb;
    /* ndem_row_tangent (sim.h), lane by lane */
    const ndem_fv one = ndem_fv_set(1.0f), sgn = ndem_fv_sel(n[2] >= 0.0f, one, -one);
    const ndem_fv ta = -1.0f / (sgn + n[2]);
    const ndem_fv t1[3] = {1.0f + sgn * n[0] * n[0] * ta, sgn * (n[0] * n[1] * ta), -sgn * n[0]};
    const ndem_fv t2[3] = {n[1] * t1[2] - n[2] * t1[1], n[2] * t1[0] - n[0] * t1[2],
                           n[0] * t1[1] - n[1] * t1[0]}; /* n x t1 */
    ndem_fv *lam = st == STAGE_IMPACT ? &c->impact_lam[6 * p] : P->lam;
    /* the twist impulse: the impact stage's own, beside the packet, or +0 (rows.h) */
    ndem_fv *twist = st == STAGE_IMPACT ? &lam[5] : c->bounds ? &c->bounds[p].twist : NULL;
    ndem_fv L[6], d[6];
    for (int q = 0; q < 5; q++) L[q] = lam[q];
    L[5] = twist ? *twist : zero;
    ndem_fv rn = zero, r1 = zero, r2 = zero, q1 = zero, q2 = zero, q3 = zero;
    if (st == STAGE_WARM) {
        /* warm step, Wang et al. eq. (8): v += M^-1 G^T lambda_0 */
        d[0] = P->s * L[0];
        for (int q = 1; q < 6; q++) d[q] = L[q];
    } else {
        ndem_fv dv[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
        ndem_fv ln, F, sig_t = zero, sig_r = zero;
        if (st == STAGE_IMPACT) {
            /* Newton impact law on unregularised rows */
            rn = ndem_fv_dot(n, dv) - c->impact_v[p];
            ln = ndem_fv_max(L[0] - rn / (ima + imb), zero);
            d[0] = ln - L[0];
            F = x->previous ? L[0] : ln;
        } else {
            /* the diagonal D = G M^-1 G^T + Sigma of each row, from the slots'
             * inverse masses: three divisions cost less than streaming it */
            ndem_fv inv_dn = 1.0f / (P->s * P->s * (ima + imb) + P->sig_n);
            rn = P->s * ndem_fv_dot(n, dv) - P->q_n + P->sig_n * L[0];
            ln = ndem_fv_max(L[0] - rn * inv_dn, lo_n);
            d[0] = P->s * (ln - L[0]);
            /* the physical normal impulse bounds friction: this sweep's, or
             * (NDEM_PROJECTION=disc-previous) the one before this row's update */
            F = ndem_fv_max(P->s * (x->previous ? L[0] : ln), zero);
            sig_t = x->sig_t, sig_r = x->sig_r;
        }
        ndem_fv inv_dt = 1.0f / (ima + imb + iia * la * la + iib * lb * lb + sig_t);
        ndem_fv ir = iia + iib + sig_r; /* zero for two rotation-locked bodies */
        ndem_fv inv_dr = ndem_fv_sel(ir > 0, 1.0f / ir, zero);
        L[0] = ln;
        /* The normal change acts before the tangential rows (Gauss-Seidel). */
        for (int q = 0; q < 3; q++) dv[q] += (imb + ima) * d[0] * n[q];
        /* Friction rows: G_t1 v = t1.(vb - va) - la t2.wa - lb t2.wb, and
         * G_t2 v = t2.(vb - va) + la t1.wa + lb t1.wb (Wang et al. eq. 18). */
        ndem_fv wa_t1 = ndem_fv_dot(&A[3], t1), wa_t2 = ndem_fv_dot(&A[3], t2);
        ndem_fv wb_t1 = ndem_fv_dot(&B[3], t1), wb_t2 = ndem_fv_dot(&B[3], t2);
        r1 = ndem_fv_dot(t1, dv) - la * wa_t2 - lb * wb_t2 + sig_t * L[1];
        r2 = ndem_fv_dot(t2, dv) + la * wa_t1 + lb * wb_t1 + sig_t * L[2];
        ndem_fv l1 = L[1] - r1 * inv_dt, l2 = L[2] - r2 * inv_dt;
        project_pair(&l1, &l2, P->mu * F, x->box);
        d[1] = l1 - L[1];
        d[2] = l2 - L[2];
        L[1] = l1;
        L[2] = l2;
        /* Rolling and twisting rows act on the relative angular velocity;
         * the friction change enters it first. */
        ndem_fv dw[3];
        for (int q = 0; q < 3; q++) {
            ndem_fv ang = d[1] * t2[q] - d[2] * t1[q];
            dw[q] = (B[3 + q] - iib * lb * ang) - (A[3 + q] - iia * la * ang);
        }
        q1 = ndem_fv_dot(t1, dw) + sig_r * L[3];
        q2 = ndem_fv_dot(t2, dw) + sig_r * L[4];
        q3 = ndem_fv_dot(n, dw) + sig_r * L[5];
        ndem_fv m1 = L[3] - q1 * inv_dr, m2 = L[4] - q2 * inv_dr, m3 = L[5] - q3 * inv_dr;
        project_pair(&m1, &m2, P->mur * F, x->box);
        ndem_fv tl = mut * F;
        m3 = ndem_fv_min(ndem_fv_max(m3, -tl), tl);
        d[3] = m1 - L[3];
        d[4] = m2 - L[4];
        d[5] = m3 - L[5];
        L[3] = m1;
        L[4] = m2;
        L[5] = m3;
        if (st == STAGE_IMPACT) /* lanes outside the stage keep everything */
            for (int q = 0; q < 6; q++) {
                d[q] = ndem_fv_sel(active, d[q], zero);
                L[q] = ndem_fv_sel(active, L[q], q < 5 ? lam[q] : *twist);
            }
        for (int q = 0; q < 5; q++) lam[q] = L[q];
        if (twist) *twist = L[5];
    }
    /* v += M^-1 G^T d: the lever terms d_a x t1 = la t2, d_a x t2 = -la t1 */
    for (int q = 0; q < 3; q++) {
        ndem_fv lin = d[0] * n[q] + d[1] * t1[q] + d[2] * t2[q];
        ndem_fv ang = d[1] * t2[q] - d[2] * t1[q];
        ndem_fv rot = d[3] * t1[q] + d[4] * t2[q] + d[5] * n[q];
        A[q] -= ima * lin;
        A[3 + q] -= iia * (la * ang + rot);
        B[q] += imb * lin;
        B[3 + q] += iib * (rot - lb * ang);
    }
    int fill = c->fill[p];
    ndem_scatter(c->vs, P->a, A, fill);
    ndem_scatter(c->vs, P->b, B, fill);
    if (st == STAGE_CONTINUOUS && want_residual) {
        /* residuals seen before the update, summed in lane order */
        ndem_fv e0 = ndem_fv_abs(rn), e1 = ndem_fv_sqrt(r1 * r1 + r2 * r2);
        ndem_fv e2 = ndem_fv_sqrt(q1 * q1 + q2 * q2 + q3 * q3);
        float s0 = 0, s1 = 0, s2 = 0;
        for (int l = 0; l < fill; l++) s0 += e0[l], s1 += e1[l], s2 += e2[l];
        float *res = &c->residual[3 * p];
        res[0] = s0, res[1] = s1, res[2] = s2;
    }
}

/* Packets ahead of the one being solved whose velocity slots are prefetched.
 * At 10^6 particles the packets (170 MB) and slots (34 MB) outgrow the L3,
 * so each packet's 32 slot gathers waited on DRAM; a packet takes several
 * DRAM latencies to solve (~0.8 us on one thread), so one packet ahead hides them
 * (docs/performance.md, "Session 12: the 10^6 solve"). */
#ifndef NDEM_PREFETCH_AHEAD
#define NDEM_PREFETCH_AHEAD 1
#endif
/* Only where a sweep's packets outgrow a 32 MiB L3 (the development VM's):
 * below it the slots stay cached and the prefetches only add 2% of the
 * instructions (callgrind, bed-10k). -DNDEM_PREFETCH_MIN_BYTES=0 forces them
 * on, to run the tests through this path. */
#ifndef NDEM_PREFETCH_MIN_BYTES
#define NDEM_PREFETCH_MIN_BYTES (32L << 20)
#endif

/* Brings packet p's velocity slots toward the cache, for writing (the sweep
 * scatters them back). A hint only: no value, so no bit, changes. In the
 * impact stage packets without an active lane are skipped, as the sweep
 * skips them. */
NDEM_INLINE void prefetch_slots(const ndem_contacts *c, long p, stage st)
{
    if (st == STAGE_IMPACT && !c->impact_lanes[p]) return;
    const ndem_packet *P = &c->packets[p];
    for (int l = 0; l < NDEM_LANES; l++) {
        __builtin_prefetch(&c->vs[P->a[l]], 1, 3);
        __builtin_prefetch(&c->vs[P->b[l]], 1, 3);
    }
}

/* One sweep over every packet of the stage, colour after colour, or from the
 * last colour back when `reverse` (NDEM_SWEEP; the rows of one colour share
 * no body, so their order within it changes no bit). Called by every
 * thread of the enclosing parallel region. A set holding rows of a dynamic
 * body starts from the body's velocity, and the body takes the set's
 * impulses once it is done (rigid.c): one thread, in row order, so the
 * result does not depend on the thread count. */
NDEM_INLINE void sweep_stage(const sweep_ctx *x, stage st, int want_residual, int reverse)
{
    ndem_contacts *c = x->c;
    int pending = -1; /* a solved set whose body impulses are not summed yet */
    const int ahead = c->packet_count > NDEM_PREFETCH_MIN_BYTES / (long)sizeof(ndem_packet);
    for (int i = 0; i < c->color_count; i++) {
        int q = reverse ? c->color_count - 1 - i : i;
        long lo = c->color_start[q], hi = c->color_start[q + 1];
        if (lo == hi) continue; /* an empty set costs no barrier (NDEM_OVERFLOW=all) */
        if (x->rigid && ndem_rigid_set_has_rows(x->rigid, q)) {
#pragma omp single
            {
                if (pending >= 0) ndem_rigid_set_end(x->sim, pending, rigid_stage(st));
                ndem_rigid_set_begin(x->sim, q, rigid_stage(st));
            }
            pending = q;
        }
        if (q == NDEM_COLOR_OVERFLOW) {
            /* overflow set: no colour was left, one thread solves it in order */
#pragma omp single
            for (long k = 0; k < hi - lo; k++)
                solve_packet(x, reverse ? hi - 1 - k : lo + k, st, want_residual);
            continue;
        }
#pragma omp for schedule(static)
        for (long p = lo; p < hi; p++) {
            if (ahead && p + NDEM_PREFETCH_AHEAD < hi)
                prefetch_slots(c, p + NDEM_PREFETCH_AHEAD, st);
            solve_packet(x, p, st, want_residual);
        }
    }
    if (pending >= 0) {
#pragma omp single
        ndem_rigid_set_end(x->sim, pending, rigid_stage(st));
    }
    /* shaped particles' rows after the packets (rows_general.c) */
    if (x->sim->general) {
        int gs = st == STAGE_IMPACT ? NDEM_GENERAL_IMPACT
                 : st == STAGE_WARM ? NDEM_GENERAL_WARM
                                    : NDEM_GENERAL_CONTINUOUS;
        ndem_general_sweep(x->sim, gs, reverse, want_residual);
    }
    /* dynamic bodies on static geometry (rigid_contact.c), on their own
     * velocities after every set's sums */
    if (x->rigid && ndem_rcontact_rows(x->sim) > 0) {
        int rs = st == STAGE_IMPACT ? NDEM_GENERAL_IMPACT
                 : st == STAGE_WARM ? NDEM_GENERAL_WARM
                                    : NDEM_GENERAL_CONTINUOUS;
#pragma omp single
        ndem_rcontact_sweep(x->sim, rs, reverse);
    }
}

/* Compiled for AVX-512, AVX2 and baseline x86-64: the same IEEE operations
 * on every path, so the results do not depend on the machine's vector unit.
 * Explicit copies rather than target_clones, so that NDEM_ISA can force each
 * one and the tests compare their bits (sim->isa, chosen at creation). */
#define NDEM_DEFINE_SWEEP(name, ...)                                                               \
    __VA_ARGS__ static void name(const sweep_ctx *x, stage st, int want_residual, int rev)         \
    {                                                                                              \
        if (st == STAGE_CONTINUOUS && want_residual) sweep_stage(x, STAGE_CONTINUOUS, 1, rev);     \
        else if (st == STAGE_CONTINUOUS) sweep_stage(x, STAGE_CONTINUOUS, 0, rev);                 \
        else if (st == STAGE_WARM) sweep_stage(x, STAGE_WARM, 0, 0);                               \
        else sweep_stage(x, STAGE_IMPACT, 0, rev);                                                 \
    }
NDEM_DEFINE_SWEEP(sweep_base)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(NDEM_NO_CLONES)
#define NDEM_SWEEP_VARIANTS 3
NDEM_DEFINE_SWEEP(sweep_v3, __attribute__((target("arch=x86-64-v3"))))

NDEM_DEFINE_SWEEP(sweep_v4, __attribute__((target("arch=x86-64-v4"))))

static int isa_supported(int isa)
{
    __builtin_cpu_init();
    if (isa == 2) return __builtin_cpu_supports("x86-64-v4");
    if (isa == 1) return __builtin_cpu_supports("x86-64-v3");
    return 1;
}
#else
#define NDEM_SWEEP_VARIANTS 1
static int isa_supported(int isa) { return isa == 0; }
#endif

typedef void (*sweep_fn)(const sweep_ctx *, stage, int, int);

/* Index = sim->isa: baseline, x86-64-v3, x86-64-v4. */
static const struct {
    const char *name;
    sweep_fn fn;
} sweep_variants[] = {
    {"base", sweep_base},
#if NDEM_SWEEP_VARIANTS == 3
    {"v3", sweep_v3},
    {"v4", sweep_v4},
#endif
};

int ndem_solver_isa(const char *name, char *err, size_t err_len)
{
    const int n = NDEM_SWEEP_VARIANTS;
    if (!name || !name[0]) { /* the best this CPU runs */
        int best = n - 1;
        while (best > 0 && !isa_supported(best)) best--;
        return best;
    }
    for (int i = 0; i < n; i++)
        if (!strcmp(name, sweep_variants[i].name)) {
            if (isa_supported(i)) return i;
            snprintf(err, err_len, "NDEM_ISA=%s: this CPU cannot run x86-64-%s code", name, name);
            return -1;
        }
    snprintf(err, err_len, "NDEM_ISA=%s: not a solver variant of this build (%s)", name,
             n == 3 ? "v4, v3 or base" : "base only");
    return -1;
}

const char *ndem_solver_isa_name(int isa)
{
    return isa >= 0 && isa < NDEM_SWEEP_VARIANTS ? sweep_variants[isa].name : "?";
}

/* Colour orders of the sweeps, by sweep parity (NDEM_SWEEP, read once at
 * creation; docs/testing.md): the study of docs/validation.md compares them.
 * `walls` moves the rows on static geometry into colours of their own
 * (ndem_contacts_color): before every particle-particle colour, so each
 * forward sweep solves them first, or after them (Box2D v3 gives its static
 * contacts the last colours, solved last). */
static const struct {
    const char *name;
    int reverse[2]; /* even, odd sweeps */
    int walls;      /* NDEM_WALLS_MIXED, _FIRST or _LAST */
} sweep_orders[] = {
    {"forward", {0, 0}, NDEM_WALLS_MIXED},     {"reverse", {1, 1}, NDEM_WALLS_MIXED},
    {"symmetric", {0, 1}, NDEM_WALLS_MIXED}, /* forward, then backward: symmetric Gauss-Seidel */
    {"walls-first", {0, 0}, NDEM_WALLS_FIRST}, {"walls-last", {0, 0}, NDEM_WALLS_LAST},
};

int ndem_sweep_order(const char *name, char *err, size_t err_len)
{
    if (!name || !name[0]) return 0;
    for (size_t i = 0; i < sizeof sweep_orders / sizeof sweep_orders[0]; i++)
        if (!strcmp(name, sweep_orders[i].name)) return (int)i;
    snprintf(err, err_len,
             "NDEM_SWEEP=%s: not a sweep order (forward, reverse, symmetric, walls-first or "
             "walls-last)",
             name);
    return -1;
}

int ndem_sweep_walls(int order)
{
    return order > 0 && order < (int)(sizeof sweep_orders / sizeof sweep_orders[0])
               ? sweep_orders[order].walls
               : NDEM_WALLS_MIXED;
}

/* Projections of the friction and rolling pairs (NDEM_PROJECTION, read once
 * at creation; docs/validation.md section 2 compares them). Wang et al. (2016)
 * eq. (7) bounds the tangential impulse by the cone |lambda_t| <= mu lambda_n, whose
 * cross-section is the disc; its Appendix A clamps each row alone, the box,
 * which lets the pair reach sqrt(2) mu lambda_n along a diagonal. Both bound
 * by the normal impulse of this sweep, just updated (Gauss-Seidel), or with
 * `previous` by the one the row held before. Twisting is one row: clamped. */
static const struct {
    const char *name;
    int box, previous;
} projections[] = {
    {"disc", 0, 0},
    {"box", 1, 0},
    {"disc-previous", 0, 1},
};

int ndem_projection_switch(const char *value, char *err, size_t err_len)
{
    if (!value || !value[0]) return 0;
    for (size_t i = 0; i < sizeof projections / sizeof projections[0]; i++)
        if (!strcmp(value, projections[i].name)) return (int)i;
    snprintf(err, err_len,
             "NDEM_PROJECTION=%s: not a projection (\"disc\", \"box\", \"disc-previous\", or "
             "unset)",
             value);
    return -1;
}

static void sweep(const ndem_sim *sim, const sweep_ctx *x, stage st, int want_residual, int it)
{
    int rev = sweep_orders[sim->sweep_order].reverse[it & 1];
    sweep_variants[sim->isa].fn(x, st, want_residual, rev);
}

/* Mean residuals per row type, summed in packet order so the result (and an
 * early exit that depends on it) is the same for every thread count. */
static void residuals(const ndem_sim *sim, const ndem_contacts *c, double *out)
{
    double s[3] = {0, 0, 0};
    for (long p = 0; p < c->packet_count; p++)
        for (int q = 0; q < 3; q++) s[q] += c->residual[3 * p + q];
    long rows = c->count + ndem_general_residuals(sim, s); /* general rows: per point */
    for (int q = 0; q < 3; q++) out[q] = rows ? s[q] / (double)rows : 0.0;
}

/* Body velocities into their slots (float32), with the inverse masses. */
static void load_slots(ndem_sim *sim)
{
    const ndem_bodies *b = &sim->bodies;
    ndem_f8 *vs = sim->contacts.vs;
#pragma omp for schedule(static)
    for (long i = 0; i < b->count; i++) {
        const double *v = &b->vel[6 * i];
        vs[i] =
            (ndem_f8){(float)v[0], (float)v[1], (float)v[2],           (float)v[3],
                      (float)v[4], (float)v[5], (float)b->inv_mass[i], (float)b->inv_inertia[i]};
    }
}

/* The slots' change since load_slots into the double velocities: zero, bit
 * for bit, for a body that no row touched. */
static void store_slots(ndem_sim *sim)
{
    ndem_bodies *b = &sim->bodies;
    const ndem_f8 *vs = sim->contacts.vs;
#pragma omp for schedule(static)
    for (long i = 0; i < b->count; i++) {
        double *v = &b->vel[6 * i];
        for (int q = 0; q < 6; q++) v[q] += (double)vs[i][q] - (double)(float)v[q];
    }
}

/* The impact stage acts only on the islands that hold an impacting contact:
 * "the impact forces are propagated instantaneously in the contact network"
 * (AGX, 35.3), so they reach every contact of the impacting contact's
 * connected component (union-find over touching particle pairs and the
 * particles touching one dynamic body; other geometry has infinite mass and
 * joins nothing) and no other. Rows of the other islands
 * are dropped from this step's impact stage (impact = 0). Returns the rows
 * left in the stage; serial and order independent, so deterministic. */
static long impact_islands(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    long nb = sim->bodies.count + (sim->rigid ? sim->rigid->count : 0); /* bodies next */
    /* 2 ints a body in the history's buffer, dead since the warm start: the
     * impact impulses take it over after this (impact_packets) */
    int *parent = ndem_history_scratch(&sim->history, 2 * sizeof(int) * (size_t)nb);
    if (!parent) return -1; /* keep every row: the unrestricted stage */
    int *hit = parent + nb;
    for (long i = 0; i < nb; i++) parent[i] = (int)i, hit[i] = 0;
    for (long k = 0; k < c->count; k++) {
        if (c->cold[c->slot[k]].impact == 0) continue;
        ndem_contact_key key = c->key[k];
        int other = ndem_key_is_particle(key) ? key.b : -1;
        if (other < 0) {
            int body = ndem_rigid_body_of(sim->rigid, key.b, key.feature);
            if (body < 0) continue;
            other = (int)sim->bodies.count + body;
        }
        int ra = ndem_uf_root(parent, key.a), rb = ndem_uf_root(parent, other);
        if (ra != rb) parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
    }
    ndem_general_island_union(sim, parent);
    for (long k = 0; k < c->count; k++)
        if (c->cold[c->slot[k]].impact == 2) hit[ndem_uf_root(parent, c->key[k].a)] = 1;
    ndem_general_island_mark(sim, parent, hit);
    long kept = ndem_rcontact_islands(sim, parent, hit); /* bodies on geometry */
    kept += ndem_general_island_keep(sim, parent, hit);
    for (long k = 0; k < c->count; k++) {
        ndem_row_cold *r = &c->cold[c->slot[k]];
        if (r->impact == 0) continue;
        if (hit[ndem_uf_root(parent, c->key[k].a)]) kept++;
        else r->impact = 0;
    }
    return kept;
}

int ndem_impact_reach_switch(const char *value, char *err, size_t err_len)
{
    if (!value || !value[0]) return NDEM_IMPACT_REACH_DEFAULT;
    if (!strcmp(value, "island")) return 0;
    char *end = NULL;
    long n = strtol(value, &end, 10);
    if (end != value && !*end && n >= 1 && n <= 1000000) return (int)n;
    snprintf(err, err_len,
             "NDEM_IMPACT_REACH=%s: not a setting (\"island\", a number of contacts from 1 "
             "to 1000000, or unset)",
             value);
    return -1;
}

/* A touching particle pair that the impact stage may keep (class 1 or 2). */
static inline int reach_row(const ndem_contacts *c, long k)
{
    return ndem_key_is_particle(c->key[k]) && c->cold[c->slot[k]].impact != 0;
}

/* The impact stage within `reach` contacts of an impacting one
 * (NDEM_IMPACT_REACH=N): hop counts from the bodies of impacting contacts
 * over touching particle pairs, capped at reach, by a breadth-first search
 * (the pairs of body x: its own CSR rows, where x is a, and the rows where x
 * is b, listed here in pair order). A touching row stays when one of its
 * bodies is fewer than `reach` contacts away: reach 1 keeps the rows of the
 * impacting bodies. "The impact forces are propagated instantaneously in the
 * contact network" (AGX 35.3), through "impact iterations" that set how far
 * (AGX 35.5.2): each iteration of a Jacobi sweep carries an impulse one
 * contact further. The counts are shortest paths, so they do not depend on
 * the order of the search: serial and deterministic. Spheres and static
 * geometry only (ndem_solve_impact). */
static long impact_reach(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    const long nb = sim->bodies.count;
    const int reach = sim->impact_reach;
    /* the history's buffer, as impact_islands uses it: hop counts, the
     * search's queue, and the rows by body b (starts, then partners a) */
    size_t ints = 3 * (size_t)nb + 1 + (size_t)c->count;
    int *hops = ndem_history_scratch(&sim->history, sizeof(int) * ints);
    if (!hops) return -1;
    int *queue = hops + nb, *bstart = queue + nb, *partner = bstart + nb + 1;
    for (long i = 0; i <= nb; i++) bstart[i] = 0;
    for (long k = 0; k < c->count; k++)
        if (reach_row(c, k)) bstart[c->key[k].b + 1]++;
    for (long i = 0; i < nb; i++) bstart[i + 1] += bstart[i];
    for (long i = 0; i < nb; i++) queue[i] = bstart[i]; /* fill cursors */
    for (long k = 0; k < c->count; k++)
        if (reach_row(c, k)) partner[queue[c->key[k].b]++] = c->key[k].a;
    long head = 0, tail = 0;
    for (long i = 0; i < nb; i++) hops[i] = reach;
    for (long k = 0; k < c->count; k++)
        if (c->cold[c->slot[k]].impact == 2) {
            ndem_contact_key key = c->key[k];
            if (hops[key.a]) hops[key.a] = 0, queue[tail++] = key.a;
            if (ndem_key_is_particle(key) && hops[key.b]) hops[key.b] = 0, queue[tail++] = key.b;
        }
    while (head < tail) {
        int x = queue[head++], h = hops[x] + 1;
        if (h >= reach) continue; /* the cap: counts of reach stay */
        for (long k = c->start[x]; k < c->start[x + 1]; k++)
            if (reach_row(c, k) && hops[c->key[k].b] > h) {
                hops[c->key[k].b] = h;
                queue[tail++] = c->key[k].b;
            }
        for (int j = bstart[x]; j < bstart[x + 1]; j++)
            if (hops[partner[j]] > h) hops[partner[j]] = h, queue[tail++] = partner[j];
    }
    long kept = 0;
    for (long k = 0; k < c->count; k++) {
        ndem_row_cold *r = &c->cold[c->slot[k]];
        if (r->impact == 0) continue;
        ndem_contact_key key = c->key[k];
        int h = hops[key.a];
        if (ndem_key_is_particle(key) && hops[key.b] < h) h = hops[key.b];
        if (h < reach) kept++;
        else r->impact = 0;
    }
    return kept;
}

/* Impact stage inputs per packet: which lanes take part (their targets are
 * in impact_v since prepare_row, rows.c). */
static int impact_packets(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    if (c->packet_count > c->impact_capacity) {
        long cap = c->packet_capacity;
        free(c->impact_lanes);
        c->impact_lanes = malloc(sizeof(unsigned) * (size_t)cap);
        c->impact_capacity = c->impact_lanes ? cap : 0;
        if (!c->impact_capacity) return -1;
    }
    /* the history is dead until its store: its buffer holds the impulses */
    c->impact_lam =
        ndem_history_scratch(&sim->history, 6 * sizeof(ndem_fv) * (size_t)c->packet_count);
    if (!c->impact_lam) return -1;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, c->count))
    for (long p = 0; p < c->packet_count; p++) {
        unsigned lanes = 0;
        for (int l = 0; l < c->fill[p]; l++)
            if (c->cold[p * NDEM_LANES + l].impact) lanes |= 1u << l;
        c->impact_lanes[p] = lanes;
        for (int q = 0; q < 6; q++) c->impact_lam[6 * p + q] = (ndem_fv){0};
    }
    return 0;
}

/* SPOOK right-hand side with the post-impact velocities, Algorithm 1 line 7:
 * q_n = -(4/h) Upsilon phi + Upsilon G_n v+. */
static void right_hand_side(ndem_sim *sim, long p)
{
    ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
    ndem_packet *P = &c->packets[p];
    for (int l = 0; l < c->fill[p]; l++) {
        const ndem_row_cold *o = &c->cold[p * NDEM_LANES + l];
        const double *va = &b->vel[6 * P->a[l]];
        const double *vb = o->geo ? &c->ug[6 * (P->b[l] - b->count)] : &b->vel[6 * P->b[l]];
        double vn = 0;
        for (int q = 0; q < 3; q++) vn += (double)P->n[q][l] * (vb[q] - va[q]);
        double q_n = o->gap ? -o->phi / h /* speculative: v_sep >= -gap / h */
                            : -(4.0 / h) * o->ups * o->phi + o->ups * (double)P->s[l] * vn;
        P->q_n[l] = (float)q_n;
    }
}

/* Decomposed scenes (decomp.h): after the slots are loaded (after = 0) or
 * after a sweep (1), the caller's hook sees them, on one thread, between
 * barriers. */
static void exchange(ndem_sim *sim, int after)
{
    const ndem_decomp_hooks *hk = &sim->decomp->hooks;
    float *slots = (float *)sim->contacts.vs;
#pragma omp barrier
#pragma omp single
    {
        if (after) hk->after_sweep(hk->ctx, slots, sim->bodies.where);
        else hk->slots_loaded(hk->ctx, slots, sim->bodies.where, ndem_decomp_touched(sim));
    }
}

static sweep_ctx make_ctx(ndem_sim *sim)
{
    const double h = sim->solver.time_step;
    float sig = (float)(sim->solver.friction_compliance / h);
    return (sweep_ctx){&sim->contacts,
                       ndem_fv_set(sig),
                       ndem_fv_set(sig),
                       sim,
                       sim->rigid,
                       projections[sim->projection].box,
                       projections[sim->projection].previous};
}

void ndem_solve_impact(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    long impacts = 0;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, c->count)) \
    reduction(+ : impacts)
    for (long p = 0; p < c->packet_count; p++)
        for (int l = 0; l < c->fill[p]; l++) impacts += c->cold[p * NDEM_LANES + l].impact == 2;
    impacts += ndem_general_impacts(sim) + ndem_rcontact_impacts(sim);
    /* decomposed: every process sweeps (and exchanges) when any has an impact */
    const ndem_decomp *d = sim->decomp;
    long any = d ? (long)d->hooks.sum(d->hooks.ctx, (double)impacts) : impacts;
    /* within a reach of contacts (spheres, static geometry), else by islands */
    int by_reach = sim->impact_reach > 0 && !d && !sim->rigid && !sim->general;
    long impact_rows = any == 0 ? 0 : by_reach ? impact_reach(sim) : impact_islands(sim);
    int skip = 0;
    if (any > 0 && impact_packets(sim)) {
        impacts = 0; /* out of memory: skip the impact stage this step */
        impact_rows = 0;
        skip = 1;
    }
    sim->stats.impacts = impacts;
    sim->stats.impact_rows = impact_rows;
    if (!d && impacts == 0) return;
    if (d && any == 0) return;
    const int imp_it = sim->solver.impact_iterations;
    sweep_ctx x = make_ctx(sim);
#pragma omp parallel num_threads(ndem_threads_for(sim, c->count + ndem_general_work(sim)))
    {
        load_slots(sim);
        if (d) exchange(sim, 0);
        for (int it = 0; it < imp_it; it++) {
            if (!skip) sweep(sim, &x, STAGE_IMPACT, 0, it);
            if (d) exchange(sim, 1);
        }
        store_slots(sim);
    }
}

/* The impact stage's impulses into the packets' fields the sweeps are done
 * with (ndem_packet.impact), for the loads and the contact list: their
 * buffer is the history's, which the step's store overwrites. The same
 * floats, so the same figures as when they had a buffer of their own. */
static void keep_impact(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    if (sim->stats.impacts > 0)
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, c->count))
        for (long p = 0; p < c->packet_count; p++)
            for (int q = 0; q < 6; q++) c->packets[p].impact[q] = c->impact_lam[6 * p + q];
    c->impact_lam = NULL;
}

void ndem_solve_continuous(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
    const long nb = b->count;
    const int max_it = sim->solver.iterations;
    const double tol = sim->solver.tolerance;
    const int warm = sim->solver.warm_start;
    const int probe = sim->probe != NULL; /* every sweep's residuals and multipliers */
    int iters_used = 0, stop = 0;
    double res[3] = {0, 0, 0};
    sweep_ctx x = make_ctx(sim);
    if (sim->rigid) {
        /* the right-hand side sees the bodies after the impact stage, the
         * sweeps their free velocities (gravity, force) */
        ndem_rigid_refresh_rows(sim);
        ndem_rcontact_right_hand_side(sim);
        ndem_rigid_free_velocity(sim);
    }

#pragma omp parallel num_threads(ndem_threads_for(sim, c->count + ndem_general_work(sim)))
    {
        /* The impact impulses are dropped (lam holds the warm start); the
         * right-hand side takes the post-impact velocities. */
#pragma omp for schedule(static)
        for (long p = 0; p < c->packet_count; p++) right_hand_side(sim, p);
        ndem_general_right_hand_side(sim);
        /* Pre-step: external forces (gravity); shaped bodies turn freely. */
#pragma omp for schedule(static)
        for (long i = 0; i < nb; i++)
            for (int q = 0; q < 3; q++) b->vel[6 * i + q] += h * sim->gravity[q];
        ndem_general_pre_step(sim);
        if (sim->forced_count > 0) {
#pragma omp single
            ndem_apply_external_forces(sim);
        }
        load_slots(sim);
        if (sim->decomp) exchange(sim, 0);
        /* Warm step, Wang et al. eq. (8): v += M^-1 G^T lambda_0. */
        if (warm) sweep(sim, &x, STAGE_WARM, 0, 0);
        if (warm && sim->decomp) exchange(sim, 1);

        for (int it = 0; it < max_it; it++) {
            int want = it == max_it - 1 || tol > 0 || probe;
            sweep(sim, &x, STAGE_CONTINUOUS, want, it);
            if (sim->decomp) exchange(sim, 1);
            if (want) {
#pragma omp single
                {
                    if (sim->decomp) ndem_decomp_residuals(sim, res);
                    else residuals(sim, c, res);
                    iters_used = it + 1;
                    if (probe) ndem_probe_record(sim, it, res);
                    if (tol > 0 && res[0] + res[1] + res[2] < tol) stop = 1;
                }
                if (stop) break;
            }
        }
        store_slots(sim);
    }
    keep_impact(sim);
    if (iters_used == 0) iters_used = max_it;
    sim->stats.iterations = iters_used;
    sim->stats.residual_normal = res[0];
    sim->stats.residual_friction = res[1];
    sim->stats.residual_rolling = res[2];
}
