/* dem_lanes.c - smooth DEM's hertz law over packets of NDEM_DLANES particle
 * contacts in vector lanes (docs/physics.md "Smooth DEM", docs/performance.md).
 * A packet gathers its contacts' bodies and last step's springs into lanes,
 * computes the pair geometry, the relative motion, the Hertz force with
 * Tsuji's dashpot and the edge share, the Mindlin spring cut at Coulomb and
 * the rolling spring, and scatters force, history and energies per contact
 * (gather and scatter by 4 x 4 transposes in registers, one call a packet).
 * Every lane performs the IEEE operations of dem.c's scalar hertz path in
 * the same order (its branches become selects; divisions and square roots
 * are correctly rounded; -ffp-contract=off), so the states are the same bits
 * as the scalar law's, on every instruction set and thread count. Particles
 * on geometry run in packets of their own: ndem_contact_geometry per lane,
 * then the same law. Contacts the kernel does not cover (shaped particles,
 * scenes with bonds' particle pairs) and each range's remainders take the
 * scalar ndem_dem_contact_force. */
#include "dem.h"
#include "dem_private.h"
#include "dem_shape.h"
#include "lanes.h"
#include "sim.h"

#include <string.h>

#define L NDEM_DLANES
#define DV_INLINE NDEM_DV_INLINE

/* A packet's inputs, one row of L lanes per quantity (gathered). */
typedef struct packet {
    long k[L];
    int ia[L], ib[L]; /* the contacts' bodies (ib: a geometry's index) */
    double xa[3][L], xb[3][L], va[6][L], vb[6][L];
    double ra[L], rb[L], ima[L], imb[L];
    double fric[L], rollc[L], damp[L], kn[L], kt[L]; /* the pair's constants */
    double tab_end[L], tab_inv[L];                   /* its dashpot table's end and 1 / step */
    double spring[3][L], roll[3][L], old[L];         /* last step's springs; old: 1 if any */
    const ndem_damp_table *tab[L];
    /* geometry packets: where each touches (ndem_contact_geometry); vb holds
     * the surface's velocity and spin there */
    double n[3][L], delta[L], la[L], lb[L], d_eff[L];
} packet;

/* A packet's results, rows of L lanes, scattered per contact. */
typedef struct packet_out {
    double f[NDEM_DEM_FORCE][L], hist[6][L], e[3][L], touch[L];
} packet_out;

DV_INLINE ndem_dv ld(const double *row)
{
    ndem_dv v;
    memcpy(&v, row, sizeof v);
    return v;
}

DV_INLINE void st(double *row, ndem_dv v) { memcpy(row, &v, sizeof v); }

/* four ints, a lane each (the dashpot's node indices) */
typedef int ndem_di __attribute__((vector_size(L * sizeof(int))));

DV_INLINE ndem_dv bc(double x) { return x - (ndem_dv){0}; }

/* dem.c's rotate_into_plane: the spring in the new tangent plane, its length kept */
DV_INLINE void rotate(ndem_dv *s, const ndem_dv *n)
{
    ndem_dv len2 = ndem_dv_dot(s, s), sn = ndem_dv_dot(s, n), t[3];
    for (int q = 0; q < 3; q++) t[q] = s[q] - sn * n[q];
    ndem_dv l2 = ndem_dv_dot(t, t);
    ndem_dm pos = l2 > 0, keep = len2 == 0;
    ndem_dv f = ndem_dv_sqrt(len2 / ndem_dv_sel(pos, l2, bc(1.0)));
    for (int q = 0; q < 3; q++) s[q] = ndem_dv_sel(keep, s[q], ndem_dv_sel(pos, t[q] * f, t[q]));
}

/* dem.c's cut_to and the spring that follows a sliding force: v cut to
 * length lim where longer, and there spring = v / k (0 when k is 0) */
DV_INLINE void cut_spring(ndem_dv *v, ndem_dv *spring, ndem_dv lim, ndem_dv k)
{
    ndem_dv l2 = ndem_dv_dot(v, v);
    ndem_dm slide = l2 > lim * lim, kpos = k > 0;
    ndem_dv f = lim / ndem_dv_sqrt(ndem_dv_sel(slide, l2, bc(1.0)));
    ndem_dv ks = ndem_dv_sel(kpos, k, bc(1.0));
    for (int q = 0; q < 3; q++) {
        v[q] = ndem_dv_sel(slide, v[q] * f, v[q]);
        spring[q] = ndem_dv_sel(slide, ndem_dv_sel(kpos, v[q] / ks, bc(0.0)), spring[q]);
    }
}

/* out[q][l] = r[l][q]: four rows to four lanes, or back */
DV_INLINE void tr4(const ndem_dv *r, ndem_dv *out)
{
    ndem_dv t0 = __builtin_shufflevector(r[0], r[1], 0, 4, 2, 6),
            t1 = __builtin_shufflevector(r[0], r[1], 1, 5, 3, 7);
    ndem_dv t2 = __builtin_shufflevector(r[2], r[3], 0, 4, 2, 6),
            t3 = __builtin_shufflevector(r[2], r[3], 1, 5, 3, 7);
    out[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5),
    out[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    out[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7),
    out[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

/* ndem_damp_table_eval lane by lane: the nodes gathered, the cubic in lanes;
 * lanes outside the table (and gc <= 0: 0) are answered one by one, open
 * lanes (no contact: their force is dropped) not at all */
DV_INLINE ndem_dv dashpot_b(const packet *p, ndem_dv gc, ndem_dv wh, ndem_dm open)
{
    static const double none[4] = {0, 0, 0, 0}; /* the nodes of a lane off the table */
    double out[L];
    ndem_dv rows[4], g[4];
    ndem_dm in = (gc > 0) & (wh < ld(p->tab_end)) & ~(wh < 0);
    ndem_dv x = ndem_dv_sel(in, wh * ld(p->tab_inv), bc(0.0));
    /* j = (int)x - 1 clamped to [0, nodes - 4], in lanes (0 <= x < nodes) */
    ndem_di j = __builtin_convertvector(x, ndem_di) - 1;
    j &= ~(j < 0);
    ndem_di hi = j > NDEM_DAMP_NODES - 4;
    j = (j & ~hi) | ((NDEM_DAMP_NODES - 4) & hi);
#pragma GCC unroll 4
    for (int l = 0; l < L; l++) rows[l] = ld(in[l] ? &p->tab[l]->g[j[l]] : none);
    tr4(rows, g); /* g[i][l]: lane l's node j + i */
    ndem_dv u = x - __builtin_convertvector(j, ndem_dv), u1 = u - 1, u2 = u - 2, u3 = u - 3;
    ndem_dv v = -u1 * u2 * u3 / 6 * g[0] + u * u2 * u3 / 2 * g[1] - u * u1 * u3 / 2 * g[2] +
                u * u1 * u2 / 6 * g[3];
    st(out, v * wh);
    ndem_dm off = ~in & ~open;
    for (int l = 0; l < L; l++)
        if (off[l]) out[l] = gc[l] <= 0 ? 0 : ndem_damp_table_eval(p->tab[l], wh[l]);
    return ld(out);
}

/* ndem_dem_edge_force (dem_private.h) with clamp: the dashpot g scaled for a
 * contact's first and last step (ndem_dem_last_share's operations), and
 * never pulling */
DV_INLINE ndem_dv edge_force(ndem_dv delta, ndem_dv v, ndem_dm first, ndem_dv inv_m, double h,
                             ndem_dv fel, ndem_dv g)
{
    ndem_dv one = bc(1.0), vh = v * h;
    ndem_dm c1 = first & (v > 0) & (delta < vh), c2 = ~first & (v < 0);
    ndem_dv s1 = 0.5 + delta / ndem_dv_sel(c1, vh, one);
    ndem_dv k = h * inv_m, d = delta / h, a = k * fel - v, b = -k * g * v;
    ndem_dv q = a - 0.5 * b, disc = q * q - 4.0 * b * d;
    ndem_dm real = disc >= 0;
    ndem_dv den = a + 0.5 * b + ndem_dv_sqrt(ndem_dv_sel(real, disc, bc(0.0)));
    ndem_dv sp = (a + 2.0 * d) / ndem_dv_sel(c2, den, one);
    ndem_dv s2 = ndem_dv_sel(real & (sp > 0.5), sp, bc(2.0));
    ndem_dv sl = 0.5 + d / ndem_dv_sel(c2, -v, one);
    s2 = ndem_dv_sel((d < -v) & ~(s2 < sl), sl, s2);
    ndem_dv sm = (a - d) / ndem_dv_sel(b > 0, b, one);
    ndem_dv sg = ndem_dv_sel((b > 0) & (sm > 1), ndem_dv_sel(sm >= 1.25, sm, sm + 1e-6), one);
    s2 = ndem_dv_sel(s2 < 1.5, s2, sg);
    ndem_dv s = ndem_dv_sel(c1, s1, ndem_dv_sel(c2, s2, one));
    ndem_dv fn = fel + s * g * v;
    return ndem_dv_sel(fn < 0, bc(0.0), fn);
}

/* Where a pair touches and how b's surface moves against a's there: the
 * contact geometry, and u, w_rel the relative velocity and spin. */
typedef struct lane_touch {
    ndem_dv n[3], delta, la, lb, d_eff, inv_m, u[3], w_rel[3];
} lane_touch;

/* A particle pair's (dem.c's ndem_contact_force with ndem_pair_geometry). */
DV_INLINE __attribute__((unused)) void pair_touch(const packet *p, lane_touch *t)
{
    ndem_dv d[3], va[3], wa[3], vb[3], wb[3];
    for (int q = 0; q < 3; q++) {
        d[q] = ld(p->xb[q]) - ld(p->xa[q]);
        va[q] = ld(p->va[q]), wa[q] = ld(p->va[3 + q]);
        vb[q] = ld(p->vb[q]), wb[q] = ld(p->vb[3 + q]);
    }
    /* ndem_pair_geometry */
    ndem_dv dist = ndem_dv_sqrt(ndem_dv_dot(d, d)), ra = ld(p->ra), rb = ld(p->rb);
    ndem_dm dpos = dist > 0;
    ndem_dv dsafe = ndem_dv_sel(dpos, dist, bc(1.0));
    for (int q = 0; q < 3; q++) t->n[q] = ndem_dv_sel(dpos, d[q] / dsafe, bc(q == 2));
    t->delta = ra + rb - dist;
    t->la = ra - 0.5 * t->delta, t->lb = rb - 0.5 * t->delta;
    t->d_eff = 2.0 * ra * rb / (ra + rb);
    /* relative motion of b's surface to a's at the contact */
    t->inv_m = ld(p->ima) + ld(p->imb);
    ndem_dv wx[3], wa_x[3];
    ndem_dv_cross(wb, t->n, wx);
    ndem_dv_cross(wa, t->n, wa_x);
    for (int q = 0; q < 3; q++) {
        t->u[q] = (vb[q] - t->lb * wx[q]) - (va[q] + t->la * wa_x[q]);
        t->w_rel[q] = wb[q] - wa[q];
    }
}

/* A particle on geometry (the geometry from ndem_contact_geometry, in the
 * packet): b's surface moves at the geometry's velocity and spin there,
 * the force moves a alone (dem.c's geometry branch). */
DV_INLINE __attribute__((unused)) void geo_touch(const packet *p, lane_touch *t)
{
    ndem_dv wa_x[3], wa[3];
    for (int q = 0; q < 3; q++) t->n[q] = ld(p->n[q]), wa[q] = ld(p->va[3 + q]);
    t->delta = ld(p->delta), t->la = ld(p->la), t->lb = ld(p->lb), t->d_eff = ld(p->d_eff);
    t->inv_m = ld(p->ima);
    ndem_dv_cross(wa, t->n, wa_x);
    for (int q = 0; q < 3; q++) {
        t->u[q] = ld(p->vb[q]) - (ld(p->va[q]) + t->la * wa_x[q]);
        t->w_rel[q] = ld(p->vb[3 + q]) - wa[q];
    }
}

/* The packet's law: dem.c's ndem_dem_contact_force and hertz_law for
 * touching contacts without van der Waals, as lanes, from where they touch
 * (pair_touch, geo_touch). Unused where no instruction-set copy is compiled
 * (clang's fuzz build, NDEM_NO_CLONES). */
DV_INLINE __attribute__((unused)) void hertz_lanes(const packet *p, const lane_touch *t, double h,
                                                   packet_out *o)
{
    const ndem_dv *n = t->n, *u = t->u, *w_rel = t->w_rel;
    ndem_dv delta = t->delta, la = t->la, lb = t->lb, d_eff = t->d_eff, inv_m = t->inv_m;
    ndem_dv m_eff = 1.0 / inv_m, ut[3], wr[3];
    ndem_dv vn = ndem_dv_dot(u, n), ddelta = -vn, wn = ndem_dv_dot(w_rel, n);
    for (int q = 0; q < 3; q++) {
        ut[q] = u[q] - vn * n[q];
        wr[q] = w_rel[q] - wn * n[q];
    }
    ndem_dv spring[3], roll[3];
    for (int q = 0; q < 3; q++) spring[q] = ld(p->spring[q]), roll[q] = ld(p->roll[q]);
    rotate(spring, n);
    rotate(roll, n);
    ndem_dv r_eff = 0.5 * d_eff;
    ndem_dm first = ld(p->old) == 0;
    /* hertz_law */
    ndem_dv sr = ndem_dv_sqrt(r_eff), sd = ndem_dv_sqrt(delta), ksd = ld(p->kn) * sr * sd;
    ndem_dv qd = ndem_dv_sqrt(m_eff * ksd), gc = ld(p->damp) * qd;
    ndem_dm open = delta <= 0; /* no contact: outputs zero below */
    ndem_dv bh = dashpot_b(p, gc, h * __builtin_sqrt(1.5) * qd * inv_m, open);
    ndem_dv dashpot = m_eff * ndem_dv_sel(bh < 0.25, bh, bc(0.25)) / h;
    ndem_dv fel = ksd * delta, fn = edge_force(delta, ddelta, first, inv_m, h, fel, dashpot);
    ndem_dv dissip = (fn - fel) * ddelta * h, elastic = 0.4 * fel * delta;
    ndem_dv kt = ld(p->kt) * sr * sd, ft[3], mr[3];
    ndem_dv u_old = 0.5 * kt * ndem_dv_dot(spring, spring);
    for (int q = 0; q < 3; q++) {
        spring[q] += ut[q] * h;
        ft[q] = kt * spring[q];
    }
    cut_spring(ft, spring, ld(p->fric) * fn, kt);
    ndem_dv u_new = 0.5 * kt * ndem_dv_dot(spring, spring);
    dissip += ndem_dv_dot(ft, ut) * h - (u_new - u_old);
    elastic += u_new;
    ndem_dv rc = ld(p->rollc), kr = 2.25 * 1.5 * ksd * rc * rc * r_eff * r_eff;
    u_old = 0.5 * kr * ndem_dv_dot(roll, roll);
    for (int q = 0; q < 3; q++) {
        roll[q] += wr[q] * h;
        mr[q] = kr * roll[q];
    }
    cut_spring(mr, roll, rc * r_eff * fn, kr);
    u_new = 0.5 * kr * ndem_dv_dot(roll, roll);
    dissip += ndem_dv_dot(mr, wr) * h - (u_new - u_old);
    elastic += u_new;
    dissip = 0.0 + dissip; /* the caller's sum from 0 (a -0 becomes +0) */
    /* out, as ndem_dem_contact_force writes it (fvdw = 0); open lanes
     * (delta <= 0) give no force, an empty history and no energy */
    ndem_dv zero = bc(0.0), ta[3];
    ndem_dv_cross(n, ft, ta);
    for (int q = 0; q < 3; q++) {
        st(o->f[q], ndem_dv_sel(open, 0.0 * n[q], -(fn - 0.0) * n[q] + ft[q]));
        st(o->f[3 + q], ndem_dv_sel(open, zero, la * ta[q] + mr[q]));
        st(o->f[6 + q], ndem_dv_sel(open, zero, lb * ta[q] - mr[q]));
        st(o->f[9 + q], n[q]);
        st(o->hist[q], ndem_dv_sel(open, zero, spring[q]));
        st(o->hist[3 + q], ndem_dv_sel(open, zero, roll[q]));
    }
    st(o->f[12], la);
    st(o->f[13], ndem_dv_sel(open, bc(-0.0), fn - 0.0));
    st(o->e[0], ndem_dv_sel(open, zero, elastic));
    st(o->e[1], ndem_dv_sel(open, zero, dissip));
    st(o->e[2], ndem_dv_sel(open, zero, delta));
    st(o->touch, ndem_dv_sel(open, zero, bc(1.0)));
}

/* The packet's gather and scatter move rows of four doubles between the
 * arrays (a contact's or a body's numbers side by side) and the lanes (one
 * number of four contacts) by 4 x 4 transposes in registers. Only moves:
 * the bits are those of the arrays. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(NDEM_NO_CLONES)
#define NDEM_LANE_COPIES 3
typedef double ndem_d2 __attribute__((vector_size(2 * sizeof(double))));
#define SHUF __builtin_shufflevector

DV_INLINE ndem_d2 ld2(const double *x)
{
    ndem_d2 v;
    memcpy(&v, x, sizeof v);
    return v;
}

/* two numbers at x[l], lane l's, into two rows of lanes */
DV_INLINE void tr2(const double *const *x, double *o0, double *o1)
{
    ndem_dv c02 = SHUF(ld2(x[0]), ld2(x[2]), 0, 1, 2, 3);
    ndem_dv c13 = SHUF(ld2(x[1]), ld2(x[3]), 0, 1, 2, 3);
    st(o0, SHUF(c02, c13, 0, 4, 2, 6));
    st(o1, SHUF(c02, c13, 1, 5, 3, 7));
}

/* one body per lane (index i[l]): position, velocity, radius, inverse mass */
DV_INLINE void gather_bodies(const ndem_bodies *b, const int *i, double (*x)[L], double (*v)[L],
                             double *r, double *im)
{
    const double *px[L], *pv[L];
    ndem_dv rows[4], cols[4];
#pragma GCC unroll 4
    for (int l = 0; l < L; l++) px[l] = &b->pos[3 * i[l]], pv[l] = &b->vel[6 * i[l]] + 4;
    tr2(px, x[0], x[1]);
#pragma GCC unroll 4
    for (int l = 0; l < L; l++) {
        x[2][l] = b->pos[3 * i[l] + 2];
        r[l] = b->radius[i[l]];
        im[l] = b->inv_mass[i[l]];
        rows[l] = ld(&b->vel[6 * i[l]]);
    }
    tr4(rows, cols);
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) st(v[q], cols[q]);
    tr2(pv, v[4], v[5]);
}

/* The packet's last springs: contact k's history at k when the list did
 * not change (rows of 8 to lanes), else found by its key. */
DV_INLINE void gather_hist(const ndem_dem *d, const ndem_contact_key *keys, packet *p)
{
    if (d->hist_same) {
        ndem_dv rows[4], s[4], r[4];
#pragma GCC unroll 4
        for (int l = 0; l < L; l++) rows[l] = ld(&d->hist[NDEM_DEM_HIST * p->k[l]]);
        tr4(rows, s); /* spring[3], roll[0] */
#pragma GCC unroll 4
        for (int l = 0; l < L; l++) rows[l] = ld(&d->hist[NDEM_DEM_HIST * p->k[l] + 4]);
        tr4(rows, r);            /* roll[1], roll[2], the model's, touched */
        ndem_dm old = r[3] != 0; /* listed, but not touching before: none */
        ndem_dv zero = bc(0.0);
        st(p->old, ndem_dv_sel(old, bc(1.0), zero));
#pragma GCC unroll 4
        for (int q = 0; q < 3; q++) st(p->spring[q], ndem_dv_sel(old, s[q], zero));
        st(p->roll[0], ndem_dv_sel(old, s[3], zero));
        st(p->roll[1], ndem_dv_sel(old, r[0], zero));
        st(p->roll[2], ndem_dv_sel(old, r[1], zero));
        return;
    }
#pragma GCC unroll 4
    for (int l = 0; l < L; l++) {
        const double *old = ndem_dem_hist_find(d, p->k[l], keys[p->k[l]]);
        if (old && old[7] == 0) old = NULL; /* listed, but not touching before */
        p->old[l] = old != NULL;
#pragma GCC unroll 4
        for (int q = 0; q < 3; q++) {
            p->spring[q][l] = old ? old[q] : 0.0;
            p->roll[q][l] = old ? old[3 + q] : 0.0;
        }
    }
}

/* The lanes' material pairs' constants: most packets (most scenes) have one pair. */
DV_INLINE void gather_pair(const ndem_sim *sim, const int *pair, packet *p)
{
    const ndem_dem *d = sim->dem;
    int one = 1;
#pragma GCC unroll 4
    for (int l = 1; l < L; l++) one &= pair[l] == pair[0];
    if (one) {
        const ndem_pair_params *pp = &sim->materials.pairs[pair[0]];
        ndem_dv fric = bc(pp->friction), rollc = bc(pp->rolling), damp = bc(d->damp[pair[0]]);
        ndem_dv kn = bc(d->hertz[NDEM_DEM_HERTZ * pair[0]]);
        ndem_dv kt = bc(d->hertz[NDEM_DEM_HERTZ * pair[0] + 1]);
        const ndem_damp_table *tab = &d->dashpot[pair[0]];
        st(p->fric, fric), st(p->rollc, rollc), st(p->damp, damp), st(p->kn, kn), st(p->kt, kt);
        st(p->tab_end, bc(tab->end)), st(p->tab_inv, bc(tab->inv_step));
#pragma GCC unroll 4
        for (int l = 0; l < L; l++) p->tab[l] = tab;
        return;
    }
#pragma GCC unroll 4
    for (int l = 0; l < L; l++) {
        int pr = pair[l];
        const ndem_pair_params *pp = &sim->materials.pairs[pr];
        p->fric[l] = pp->friction, p->rollc[l] = pp->rolling, p->damp[l] = d->damp[pr];
        p->kn[l] = d->hertz[NDEM_DEM_HERTZ * pr], p->kt[l] = d->hertz[NDEM_DEM_HERTZ * pr + 1];
        p->tab[l] = &d->dashpot[pr];
        p->tab_end[l] = p->tab[l]->end, p->tab_inv[l] = p->tab[l]->inv_step;
    }
}

/* The packet's lanes: its contacts' (p->k) bodies, pair constants and last
 * springs. Inlined into each instruction-set copy with the law and the
 * scatter, so the arrays' addresses are loaded once a packet. */
DV_INLINE void hertz_gather(const ndem_sim *sim, packet *p)
{
    const ndem_bodies *b = &sim->bodies;
    const ndem_contact_key *keys = sim->contacts.key;
    const int nm = sim->materials.count;
    const int *ia = p->ia, *ib = p->ib;
    int pair[L] = {0};
    const int one = sim->dem->particle_pair; /* every body's material the same */
    if (nm > 1 && one >= 0) {
#pragma GCC unroll 4
        for (int l = 0; l < L; l++) pair[l] = one;
    } else if (nm > 1) { /* else one particle material: pair 0 */
#pragma GCC unroll 4
        for (int l = 0; l < L; l++) pair[l] = b->material[ia[l]] * nm + b->material[ib[l]];
    }
    gather_bodies(b, ia, p->xa, p->va, p->ra, p->ima);
    gather_bodies(b, ib, p->xb, p->vb, p->rb, p->imb);
    gather_hist(sim->dem, keys, p);
    gather_pair(sim, pair, p);
}

/* A geometry packet's lanes: where each particle touches its geometry
 * (ndem_contact_geometry, one by one: planes, boxes, cylinders, meshes),
 * the surface's motion there (in vb), particle a, springs and constants. */
DV_INLINE void geo_gather(const ndem_sim *sim, packet *p)
{
    const ndem_bodies *b = &sim->bodies;
    const ndem_contact_key *keys = sim->contacts.key;
    const int nm = sim->materials.count;
    int ia[L], pair[L];
    for (int l = 0; l < L; l++) {
        ndem_contact_key key = keys[p->k[l]];
        ndem_contact_geom g;
        ndem_contact_geometry(sim, key, &g);
        ia[l] = key.a;
        pair[l] = b->material[key.a] * nm + g.material_b;
        for (int q = 0; q < 3; q++) p->n[q][l] = g.n[q];
        p->delta[l] = g.delta, p->la[l] = g.la, p->lb[l] = g.lb, p->d_eff[l] = g.d_eff;
        for (int q = 0; q < 6; q++) p->vb[q][l] = g.ug[q];
    }
    gather_bodies(b, ia, p->xa, p->va, p->ra, p->ima);
    gather_hist(sim->dem, keys, p);
    gather_pair(sim, pair, p);
}

/* Each lane's force (NDEM_DEM_FORCE), history (NDEM_DEM_HIST) and energies
 * (3) into its contact's rows. */
DV_INLINE void scatter(ndem_dem *d, const packet *p, const packet_out *o)
{
    double *f[L], *hist[L], *e[L];
#pragma GCC unroll 4
    for (int l = 0; l < L; l++) {
        f[l] = &d->force[NDEM_DEM_FORCE * p->k[l]];
        hist[l] = &d->next[NDEM_DEM_HIST * p->k[l]];
        e[l] = &d->energy[3 * p->k[l]];
    }
    ndem_dv rows[4], cols[4];
#pragma GCC unroll 4
    for (int i = 0; i + 4 <= NDEM_DEM_FORCE; i += 4) { /* 0..11 */
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++) rows[q] = ld(o->f[i + q]);
        tr4(rows, cols);
#pragma GCC unroll 4
        for (int l = 0; l < L; l++) memcpy(f[l] + i, &cols[l], sizeof cols[l]);
    }
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) rows[q] = ld(o->hist[q]);
    tr4(rows, cols);
#pragma GCC unroll 4
    for (int l = 0; l < L; l++) memcpy(hist[l], &cols[l], sizeof cols[l]);
    rows[0] = ld(o->hist[4]), rows[1] = ld(o->hist[5]), rows[2] = bc(0.0), rows[3] = ld(o->touch);
    tr4(rows, cols);
#pragma GCC unroll 4
    for (int l = 0; l < L; l++) memcpy(hist[l] + 4, &cols[l], sizeof cols[l]);
    /* the last two force numbers and the energies: pairs and singles (a row
     * of four would write into the next contact's) */
    ndem_dv f12 = ld(o->f[12]), f13 = ld(o->f[13]), e0 = ld(o->e[0]), e1 = ld(o->e[1]);
    ndem_d2 t;
#define NDEM_SCATTER_LANE(l)                                                                       \
    t = SHUF(f12, f13, l, 4 + l), memcpy(f[l] + 12, &t, sizeof t);                                 \
    t = SHUF(e0, e1, l, 4 + l), memcpy(e[l], &t, sizeof t);                                        \
    e[l][2] = o->e[2][l];
    NDEM_SCATTER_LANE(0)
    NDEM_SCATTER_LANE(1)
    NDEM_SCATTER_LANE(2)
    NDEM_SCATTER_LANE(3)
#undef NDEM_SCATTER_LANE
}

/* Compiled for AVX-512 and AVX2 as the solver's sweep is (solver.c), chosen
 * by sim->isa (NDEM_ISA): the same bits on each. Baseline x86-64 (SSE2) has
 * no copy: split into SSE registers the kernel took 1.8 times the scalar
 * law's CPU (docs/performance.md), so there the scalar law runs. A copy runs
 * one packet: gather, law, scatter. */
#define NDEM_DEFINE_HERTZ(name, geo, ...)                                                          \
    __VA_ARGS__ static void name(const ndem_sim *sim, packet *p)                                   \
    {                                                                                              \
        packet_out o;                                                                              \
        lane_touch t;                                                                              \
        hertz_gather(sim, p);                                                                      \
        pair_touch(p, &t);                                                                         \
        hertz_lanes(p, &t, sim->solver.time_step, &o);                                             \
        scatter(sim->dem, p, &o);                                                                  \
    }                                                                                              \
    __VA_ARGS__ static void geo(const ndem_sim *sim, packet *p)                                    \
    {                                                                                              \
        packet_out o;                                                                              \
        lane_touch t;                                                                              \
        geo_gather(sim, p);                                                                        \
        geo_touch(p, &t);                                                                          \
        hertz_lanes(p, &t, sim->solver.time_step, &o);                                             \
        scatter(sim->dem, p, &o);                                                                  \
    }
NDEM_DEFINE_HERTZ(hertz_v3, hertz_geo_v3, __attribute__((target("arch=x86-64-v3"))))
NDEM_DEFINE_HERTZ(hertz_v4, hertz_geo_v4, __attribute__((target("arch=x86-64-v4"))))
#else
#define NDEM_LANE_COPIES 1
#endif

/* The models with a lane kernel: a packet's run (gather, law, scatter) per
 * instruction-set copy (index sim->isa). A model not listed, or without a
 * copy for the CPU's (NULL), keeps the scalar law. */
static const struct lane_model {
    ndem_contact_model model;
    void (*run[NDEM_LANE_COPIES])(const ndem_sim *, packet *);     /* particle pairs */
    void (*run_geo[NDEM_LANE_COPIES])(const ndem_sim *, packet *); /* particles on geometry */
} lane_models[] = {
#if NDEM_LANE_COPIES == 3
    {NDEM_MODEL_HERTZ, {NULL, hertz_v3, hertz_v4}, {NULL, hertz_geo_v3, hertz_geo_v4}},
#else
    {NDEM_MODEL_HERTZ, {NULL}, {NULL}},
#endif
};

int ndem_dem_lanes_usable(const ndem_sim *sim)
{
    for (int i = 0; i < sim->materials.count * sim->materials.count; i++)
        if (sim->materials.pairs[i].hamaker > 0) return 0; /* van der Waals: scalar */
    const int isa = sim->isa >= 0 && sim->isa < NDEM_LANE_COPIES ? sim->isa : 0;
    for (int m = 0; m < (int)(sizeof lane_models / sizeof *lane_models); m++)
        if (lane_models[m].model == sim->solver.contact_model)
            return lane_models[m].run[isa] ? m + 1 : 0;
    return 0;
}

/* The scalar law for contact k (shaped particles, bonded scenes' pairs, a
 * packet's remainders): not inlined, so that the lane loop's registers do
 * not carry its addresses. */
static __attribute__((noinline)) void scalar_one(const ndem_sim *sim, long k)
{
    ndem_dem *d = sim->dem;
    ndem_dem_contact_force(sim, k, &d->force[NDEM_DEM_FORCE * k], &d->next[NDEM_DEM_HIST * k],
                           &d->energy[3 * k]);
}

/* A copy's run of one full packet (gather, law, scatter). */
typedef void (*packet_run)(const ndem_sim *, packet *);

/* Contact k into lane `fill` of the packet; a full packet runs. Returns
 * the new fill. Both lane loops (particle pairs, particles on geometry)
 * are this one. */
static inline int packet_add(const ndem_sim *sim, packet *p, int fill, packet_run run, long k,
                             ndem_contact_key key)
{
    p->k[fill] = k, p->ia[fill] = key.a, p->ib[fill] = key.b;
    if (++fill < L) return fill;
    run(sim, p);
    return 0;
}

/* A range's last, partial packet: its contacts one by one. */
static void packet_rest(const ndem_sim *sim, const packet *p, int fill)
{
    for (int l = 0; l < fill; l++) scalar_one(sim, p->k[l]);
}

void ndem_dem_lanes_range(const ndem_sim *sim, long lo, long hi)
{
    const ndem_dem *d = sim->dem;
    const struct lane_model *lm = &lane_models[d->lanes - 1];
    const int isa = sim->isa >= 0 && sim->isa < NDEM_LANE_COPIES ? sim->isa : 0;
    const int bonds = d->bond_count > 0, shapes = sim->shapes != NULL;
    const ndem_contact_key *key = sim->contacts.key;
    const packet_run run = lm->run[isa], run_geo = lm->run_geo[isa];
    packet p, pg; /* particle pairs; particles on geometry */
    int fill = 0, fill_geo = 0;
    for (long k = lo; k < hi; k++) {
        ndem_contact_key kk = key[k];
        if (shapes && ndem_dem_shape_pair(sim, kk)) scalar_one(sim, k); /* per manifold point */
        else if (!ndem_key_is_particle(kk))
            fill_geo = packet_add(sim, &pg, fill_geo, run_geo, k, kk);
        else if (!bonds) fill = packet_add(sim, &p, fill, run, k, kk);
        else scalar_one(sim, k); /* a bonded pair's law is its bond's (dem.c) */
    }
    packet_rest(sim, &p, fill);
    packet_rest(sim, &pg, fill_geo);
}
