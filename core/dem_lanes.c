/* dem_lanes.c - smooth DEM's hertz law over packets of NDEM_DLANES particle
 * contacts in vector lanes (docs/physics.md "Smooth DEM", docs/performance.md).
 * A packet gathers its contacts' bodies and last step's springs into lanes,
 * computes the pair geometry, the relative motion, the Hertz force with
 * Tsuji's dashpot and the edge share, the Mindlin spring cut at Coulomb and
 * the rolling spring, and scatters force, history and energies per contact.
 * Every lane performs the IEEE operations of dem.c's scalar hertz path in
 * the same order (its branches become selects; divisions and square roots
 * are correctly rounded; -ffp-contract=off), so the states are the same bits
 * as the scalar law's, on every instruction set and thread count. Contacts
 * the kernel does not cover (geometry, shaped particles, bonds) and each
 * range's remainder take the scalar ndem_dem_contact_force. */
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
    double xa[3][L], xb[3][L], va[6][L], vb[6][L];
    double ra[L], rb[L], ima[L], imb[L];
    double fric[L], rollc[L], damp[L], kn[L], kt[L]; /* the pair's constants */
    double spring[3][L], roll[3][L], old[L];         /* last step's springs; old: 1 if any */
    const ndem_damp_table *tab[L];
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

/* ndem_damp_table_eval lane by lane: the nodes gathered, the cubic in lanes;
 * lanes outside the table (and gc <= 0: 0) are answered one by one */
DV_INLINE ndem_dv dashpot_b(const packet *p, ndem_dv gc, ndem_dv wh)
{
    double g[4][L], jd[L], inv[L], out[L];
    int table[L];
    for (int l = 0; l < L; l++) {
        const ndem_damp_table *t = p->tab[l];
        table[l] = gc[l] > 0 && wh[l] < t->end && !(wh[l] < 0);
        inv[l] = t->inv_step;
        jd[l] = 0;
        for (int i = 0; i < 4; i++) g[i][l] = 0;
        if (!table[l]) continue;
        int j = (int)(wh[l] * t->inv_step) - 1;
        j = j < 0 ? 0 : j > NDEM_DAMP_NODES - 4 ? NDEM_DAMP_NODES - 4 : j;
        jd[l] = j;
        for (int i = 0; i < 4; i++) g[i][l] = t->g[j + i];
    }
    ndem_dv u = wh * ld(inv) - ld(jd), u1 = u - 1, u2 = u - 2, u3 = u - 3;
    ndem_dv v = -u1 * u2 * u3 / 6 * ld(g[0]) + u * u2 * u3 / 2 * ld(g[1]) -
                u * u1 * u3 / 2 * ld(g[2]) + u * u1 * u2 / 6 * ld(g[3]);
    st(out, v * wh);
    for (int l = 0; l < L; l++)
        if (!table[l]) out[l] = gc[l] <= 0 ? 0 : ndem_damp_table_eval(p->tab[l], wh[l]);
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

/* The packet's law: dem.c's ndem_dem_contact_force and hertz_law for
 * touching particle pairs without van der Waals, as lanes. Unused where no
 * instruction-set copy is compiled (clang's fuzz build, NDEM_NO_CLONES). */
DV_INLINE __attribute__((unused)) void hertz_lanes(const packet *p, double h, packet_out *o)
{
    ndem_dv d[3], n[3], va[3], wa[3], vb[3], wb[3];
    for (int q = 0; q < 3; q++) {
        d[q] = ld(p->xb[q]) - ld(p->xa[q]);
        va[q] = ld(p->va[q]), wa[q] = ld(p->va[3 + q]);
        vb[q] = ld(p->vb[q]), wb[q] = ld(p->vb[3 + q]);
    }
    /* ndem_pair_geometry */
    ndem_dv dist = ndem_dv_sqrt(ndem_dv_dot(d, d)), ra = ld(p->ra), rb = ld(p->rb);
    ndem_dm dpos = dist > 0;
    ndem_dv dsafe = ndem_dv_sel(dpos, dist, bc(1.0));
    for (int q = 0; q < 3; q++) n[q] = ndem_dv_sel(dpos, d[q] / dsafe, bc(q == 2));
    ndem_dv delta = ra + rb - dist;
    ndem_dv la = ra - 0.5 * delta, lb = rb - 0.5 * delta;
    ndem_dv d_eff = 2.0 * ra * rb / (ra + rb);
    /* relative motion of b's surface to a's at the contact */
    ndem_dv inv_m = ld(p->ima) + ld(p->imb), m_eff = 1.0 / inv_m;
    ndem_dv wx[3], wa_x[3], u[3], w_rel[3], ut[3], wr[3];
    ndem_dv_cross(wb, n, wx);
    ndem_dv_cross(wa, n, wa_x);
    for (int q = 0; q < 3; q++) {
        u[q] = (vb[q] - lb * wx[q]) - (va[q] + la * wa_x[q]);
        w_rel[q] = wb[q] - wa[q];
    }
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
    ndem_dv bh = dashpot_b(p, gc, h * __builtin_sqrt(1.5) * qd * inv_m);
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
    ndem_dm open = delta <= 0;
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

/* Compiled for AVX-512 and AVX2 as the solver's sweep is (solver.c), chosen
 * by sim->isa (NDEM_ISA): the same bits on each. Baseline x86-64 (SSE2) has
 * no copy: split into SSE registers the kernel took 1.8 times the scalar
 * law's CPU (docs/performance.md), so there the scalar law runs. */
#define NDEM_DEFINE_HERTZ(name, ...)                                                               \
    __VA_ARGS__ static void name(const packet *p, double h, packet_out *o) { hertz_lanes(p, h, o); }
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(NDEM_NO_CLONES)
NDEM_DEFINE_HERTZ(hertz_v3, __attribute__((target("arch=x86-64-v3"))))
NDEM_DEFINE_HERTZ(hertz_v4, __attribute__((target("arch=x86-64-v4"))))
#define NDEM_LANE_COPIES 3
#else
#define NDEM_LANE_COPIES 1
#endif

/* Lane l of the packet: contact k's bodies, pair constants and last springs. */
static void hertz_gather(const ndem_sim *sim, packet *p, int l, long k)
{
    const ndem_bodies *b = &sim->bodies;
    const ndem_dem *d = sim->dem;
    ndem_contact_key key = sim->contacts.key[k];
    int a = key.a, c = key.b, pair = b->material[a] * sim->materials.count + b->material[c];
    const ndem_pair_params *pp = &sim->materials.pairs[pair];
    p->k[l] = k;
    for (int q = 0; q < 3; q++) p->xa[q][l] = b->pos[3 * a + q], p->xb[q][l] = b->pos[3 * c + q];
    for (int q = 0; q < 6; q++) p->va[q][l] = b->vel[6 * a + q], p->vb[q][l] = b->vel[6 * c + q];
    p->ra[l] = b->radius[a], p->rb[l] = b->radius[c];
    p->ima[l] = b->inv_mass[a], p->imb[l] = b->inv_mass[c];
    p->fric[l] = pp->friction, p->rollc[l] = pp->rolling, p->damp[l] = d->damp[pair];
    p->kn[l] = d->hertz[NDEM_DEM_HERTZ * pair], p->kt[l] = d->hertz[NDEM_DEM_HERTZ * pair + 1];
    p->tab[l] = &d->dashpot[pair];
    const double *old = ndem_dem_hist_find(d, k, key);
    if (old && old[7] == 0) old = NULL; /* listed, but not touching before */
    p->old[l] = old != NULL;
    for (int q = 0; q < 3; q++) {
        p->spring[q][l] = old ? old[q] : 0.0;
        p->roll[q][l] = old ? old[3 + q] : 0.0;
    }
}

static void scatter(ndem_dem *d, const packet *p, const packet_out *o)
{
    for (int l = 0; l < L; l++) {
        long k = p->k[l];
        double *f = &d->force[NDEM_DEM_FORCE * k], *hist = &d->next[NDEM_DEM_HIST * k];
        double *e = &d->energy[3 * k];
        for (int i = 0; i < NDEM_DEM_FORCE; i++) f[i] = o->f[i][l];
        for (int i = 0; i < 6; i++) hist[i] = o->hist[i][l];
        hist[6] = 0;
        hist[7] = o->touch[l];
        for (int i = 0; i < 3; i++) e[i] = o->e[i][l];
    }
}

/* The models with a lane kernel: how a packet's lane is filled, and the
 * kernel per instruction-set copy (index sim->isa). A model not listed, or
 * without a copy for the CPU's (NULL), keeps the scalar law. */
static const struct lane_model {
    ndem_contact_model model;
    void (*gather)(const ndem_sim *, packet *, int, long);
    void (*law[NDEM_LANE_COPIES])(const packet *, double, packet_out *);
} lane_models[] = {
#if NDEM_LANE_COPIES == 3
    {NDEM_MODEL_HERTZ, hertz_gather, {NULL, hertz_v3, hertz_v4}},
#else
    {NDEM_MODEL_HERTZ, hertz_gather, {NULL}},
#endif
};

int ndem_dem_lanes_usable(const ndem_sim *sim)
{
    for (int i = 0; i < sim->materials.count * sim->materials.count; i++)
        if (sim->materials.pairs[i].hamaker > 0) return 0; /* van der Waals: scalar */
    const int isa = sim->isa >= 0 && sim->isa < NDEM_LANE_COPIES ? sim->isa : 0;
    for (int m = 0; m < (int)(sizeof lane_models / sizeof *lane_models); m++)
        if (lane_models[m].model == sim->solver.contact_model)
            return lane_models[m].law[isa] ? m + 1 : 0;
    return 0;
}

void ndem_dem_lanes_range(const ndem_sim *sim, long lo, long hi)
{
    ndem_dem *d = sim->dem;
    const ndem_contacts *c = &sim->contacts;
    const struct lane_model *lm = &lane_models[d->lanes - 1];
    const int isa = sim->isa >= 0 && sim->isa < NDEM_LANE_COPIES ? sim->isa : 0;
    const int bonds = d->bond_count > 0;
    packet p;
    packet_out o;
    int fill = 0;
    for (long k = lo; k < hi; k++) {
        ndem_contact_key key = c->key[k];
        if (!ndem_key_is_particle(key) || bonds || (sim->shapes && ndem_dem_shape_pair(sim, key))) {
            ndem_dem_contact_force(sim, k, &d->force[NDEM_DEM_FORCE * k],
                                   &d->next[NDEM_DEM_HIST * k], &d->energy[3 * k]);
            continue;
        }
        lm->gather(sim, &p, fill++, k);
        if (fill < L) continue;
        lm->law[isa](&p, sim->solver.time_step, &o);
        scatter(d, &p, &o);
        fill = 0;
    }
    for (int l = 0; l < fill; l++) /* the remainder, one by one */
        ndem_dem_contact_force(sim, p.k[l], &d->force[NDEM_DEM_FORCE * p.k[l]],
                               &d->next[NDEM_DEM_HIST * p.k[l]], &d->energy[3 * p.k[l]]);
}
