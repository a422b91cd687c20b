/* dem.c - smooth (explicit, penalty) DEM beside NDEM, for comparison
 * (docs/physics.md, "Smooth DEM"). Same bodies, geometry, emitters, broad and
 * narrow phase as NDEM; instead of the constraint solve, every contact gives
 * a force from its overlap and a spring history, and bodies move by
 * symplectic Euler. Models (solver.contact_model):
 *   hertz  - AGX eq. 35.1: Hertz normal force with Tsuji's dashpot
 *            (dem_models.c), a Mindlin tangential spring on the friction
 *            cone, a rolling spring on mu_r r* |f_n|;
 *   linear - Woo (Cundall): connector stiffness from Young's moduli,
 *            k_t = ratio k_n, incremental tangential force cut by Coulomb;
 *   luding - libgran: normal, tangential, torsion and rolling springs with
 *            dashpots and Luding's static/dynamic slip rule;
 *   linear_elastic6 - Woo: purely elastic in all six directions;
 *   hunt_crossley - Muth et al. eq. (3): K delta^n with Hunt-Crossley damping
 *            from restitution and the arrival speed, and the Cundall-Strack
 *            spring with the Brendel-Dippel rule, eqs. (5)-(6).
 * Every model books its elastic energy and what it dissipated (dashpots,
 * slip) for the energy balance; each maps its restitution exactly
 * (dem_models.c). Every contact's force is computed on its own, and each body
 * sums its contacts' forces in pair order (dem_forces.c), so results do not
 * depend on the thread count. Bodies are never reordered
 * in this method, so the spring history is keyed by body indices. */
#include "dem.h"
#include "dem_private.h"

#include "dem_shape.h"
#include "shape_body.h"
#include "sim.h"
#include "vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Van der Waals force between two spheres of radius r whose surfaces are
 * `gap` apart: minus the derivative of Hamaker's potential (libgran),
 * U = -A/6 [2r^2/((4r+g)g) + 2r^2/(2r+g)^2 + ln((4r+g)g/(2r+g)^2)].
 * Returns the magnitude of the attraction. */
double ndem_vdw_force(double hamaker, double r, double g)
{
    double a = 4 * r + g, b = 2 * r + g;
    double bracket = (4 * r + 2 * g) / (a * g) - 2.0 / b - 4 * r * r / (b * b * b) -
                     2 * r * r * (4 * r + 2 * g) / (a * a * g * g);
    return hamaker / 6.0 * -bracket;
}

double ndem_vdw_potential(double hamaker, double r, double g)
{
    double a = 4 * r + g, b = 2 * r + g;
    return -hamaker / 6.0 * (2 * r * r / (a * g) + 2 * r * r / (b * b) + log(a * g / (b * b)));
}

/* hertz: the step's dashpot of each pair's zeta as a table (dem_models.c);
 * pairs with the same damping share one */
static int dashpot_tables(ndem_dem *d, int nm)
{
    d->dashpot = calloc((size_t)(nm > 0 ? nm * nm : 1), sizeof *d->dashpot);
    if (!d->dashpot) return -1;
    d->dashpot_count = nm * nm;
    for (int i = 0; i < nm * nm; i++) {
        for (int j = 0; j < i && !d->dashpot[i].g; j++)
            if (d->damp[j] == d->damp[i]) d->dashpot[i] = d->dashpot[j];
        if (d->dashpot[i].g) continue;
        double zeta = ndem_dem_law_zeta(NDEM_MODEL_HERTZ, d->damp[i], 1.5, 1.0);
        if (ndem_damp_table_init(&d->dashpot[i], zeta, 0.25)) return -1;
    }
    return 0;
}

/* hertz: each pair's stiffness constants (ndem_hertz_stiffness with
 * d* = 2 R*, and Mindlin's) once, not per contact and step */
static int hertz_constants(const ndem_sim *sim, ndem_dem *d)
{
    int nm = sim->materials.count;
    d->hertz = malloc(sizeof(double) * NDEM_DEM_HERTZ * (size_t)(nm > 0 ? nm * nm : 1));
    if (!d->hertz) return -1;
    for (int i = 0; i < nm * nm; i++) {
        const ndem_pair_params *p = &sim->materials.pairs[i];
        double e = p->young_modulus, nu = p->poisson_ratio, g = e / (2.0 * (1.0 + nu));
        d->hertz[NDEM_DEM_HERTZ * i] = 2.0 * e / (3.0 * (1.0 - nu * nu));
        d->hertz[NDEM_DEM_HERTZ * i + 1] = 8.0 * g / (2.0 * (2.0 - nu));
    }
    return 0;
}

ndem_dem *ndem_dem_create(const ndem_sim *sim)
{
    ndem_dem *d = calloc(1, sizeof *d);
    int nm = sim->materials.count, model = sim->solver.contact_model;
    if (!d) return NULL;
    d->particle_pair = -1; /* set by each forces stage */
    d->damp = malloc(sizeof(double) * (size_t)(nm > 0 ? nm * nm : 1));
    if (!d->damp) {
        free(d);
        return NULL;
    }
    /* each pair's restitution mapped once; pairs with the same e and
     * exponent share the (bisection) result */
    for (int i = 0; i < nm * nm; i++) {
        const ndem_pair_params *p = &sim->materials.pairs[i];
        d->damp[i] = -1;
        for (int j = 0; j < i && d->damp[i] < 0; j++) {
            const ndem_pair_params *q = &sim->materials.pairs[j];
            if (q->restitution == p->restitution && q->exponent == p->exponent)
                d->damp[i] = d->damp[j];
        }
        if (d->damp[i] < 0) d->damp[i] = ndem_dem_law_damping(model, p->restitution, p->exponent);
    }
    if (model == NDEM_MODEL_HERTZ && (dashpot_tables(d, nm) || hertz_constants(sim, d))) {
        ndem_dem_destroy(d);
        return NULL;
    }
    /* NDEM_DEM_LANES=0: the scalar law everywhere (tests compare the bits) */
    const char *lanes = getenv("NDEM_DEM_LANES");
    d->lanes = lanes && !strcmp(lanes, "0") ? 0 : ndem_dem_lanes_usable(sim);
    return d;
}

void ndem_dem_destroy(ndem_dem *d)
{
    if (!d) return;
    free(d->hist_start);
    free(d->hist_key);
    free(d->hist);
    free(d->next);
    free(d->as_b_start);
    free(d->as_b);
    free(d->book);
    free(d->geo_at);
    free(d->force);
    free(d->energy);
    free(d->acc);
    free(d->bond_a);
    free(d->bond_b);
    free(d->bond);
    free(d->bond_broken);
    for (long i = d->dashpot_count - 1; i >= 0; i--) { /* shared tables freed once, last first */
        int first = 1;
        for (long j = 0; j < i && first; j++) first = d->dashpot[j].g != d->dashpot[i].g;
        if (first) ndem_damp_table_free(&d->dashpot[i]);
    }
    free(d->dashpot);
    free(d->hertz);
    free(d->damp);
    free(d);
}

static double pair_damping(const ndem_sim *sim, int ma, int mb)
{
    return sim->dem->damp[ma * sim->materials.count + mb];
}

/* Index of the intact bond of a and b (a < b), or -1. */
static long bond_find(const ndem_dem *d, int a, int b)
{
    long lo = 0, hi = d->bond_count;
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (d->bond_a[mid] < a || (d->bond_a[mid] == a && d->bond_b[mid] < b)) lo = mid + 1;
        else hi = mid;
    }
    if (lo < d->bond_count && d->bond_a[lo] == a && d->bond_b[lo] == b && !d->bond_broken[lo])
        return lo;
    return -1;
}

/* Keeps a spring in the tangent plane of the new normal, with its length
 * (one square root and one division: the ratio of the squared lengths). */
static void rotate_into_plane(double *s, const double *n)
{
    double len2 = ndem_dot(s, s);
    if (len2 == 0) return;
    double sn = ndem_dot(s, n);
    for (int q = 0; q < 3; q++) s[q] -= sn * n[q];
    double l2 = ndem_dot(s, s);
    if (l2 > 0) {
        double f = sqrt(len2 / l2);
        for (int q = 0; q < 3; q++) s[q] *= f;
    }
}

/* Cuts v to length lim when longer: 1 when cut; |v|^2 on return in *v2.
 * The square root only when it slides. */
static inline int cut_to(double *v, double lim, double *v2)
{
    double l2 = ndem_dot(v, v);
    *v2 = l2;
    if (!(l2 > lim * lim)) return 0;
    double f = lim / sqrt(l2);
    for (int q = 0; q < 3; q++) v[q] *= f;
    *v2 = ndem_dot(v, v);
    return 1;
}

static void cut(double *v, double lim, double *excess)
{
    double len = ndem_norm(v);
    *excess = 0;
    if (len > lim) {
        *excess = len - lim;
        double f = len > 0 ? lim / len : 0;
        for (int q = 0; q < 3; q++) v[q] *= f;
    }
}

/* Luding's slip rule (libgran) on one spring-dashpot: the spring grows by
 * rate h; the test force f0 = k xi + g rate sticks while |f0| <= lim_s, else
 * the contact slides with |f| = lim_d and the spring is set back to
 * xi = (f - g rate) / k. */
static void luding_spring(double *xi, const double *rate, double k, double g, double lim_s,
                          double lim_d, double h, double *f)
{
    double trial[3], f0[3];
    for (int q = 0; q < 3; q++) {
        trial[q] = xi[q] + rate[q] * h;
        f0[q] = k * trial[q] + g * rate[q];
    }
    double m = ndem_norm(f0);
    if (m <= lim_s) {
        memcpy(xi, trial, sizeof trial);
        memcpy(f, f0, sizeof f0);
        return;
    }
    for (int q = 0; q < 3; q++) {
        f[q] = lim_d * f0[q] / m;
        xi[q] = k > 0 ? (f[q] - g * rate[q]) / k : 0;
    }
}

/* h g / m for a dashpot g (continuous) on a spring of tangent stiffness k
 * and mass m: the discrete dashpot that damps as g does (dem_models.c). */
static double step_damping(double g, double k, double m, double h)
{
    if (g <= 0) return 0;
    double zeta = g / (2.0 * sqrt(m * k)), wh = h * sqrt(k / m);
    return k > 0 ? ndem_dem_discrete_damping(zeta, wh) : g * h / m;
}

/* Energy a spring-dashpot-slider lost this step: the work h f . rate the
 * relative motion did on it less what its spring stored (u_new - u_old). */
static double spring_loss(const double *f, const double *rate, double h, double u_old, double u_new)
{
    return ndem_dot(f, rate) * h - (u_new - u_old);
}

/* What the hertz law needs of a contact beyond its motion. */
typedef struct hertz_in {
    const ndem_pair_params *pp;
    double m_eff, inv_m, delta, ddelta, r_eff;
    int pair;                  /* material pair index */
    const ndem_dem_edge *edge; /* the contact's first or last step */
} hertz_in;

/* AGX eq. (35.1): the Hertz normal force with Tsuji's dashpot, a Mindlin
 * spring cut at Coulomb and a rolling spring cut at mu_r r* f_n. The pair's
 * constants come from ndem_dem.hertz; square roots are shared (sqrt(r*),
 * sqrt(delta), one for the dashpot and its omega h) and the springs divide
 * once each, and only when they slide. */
static void hertz_law(const ndem_sim *sim, const hertz_in *in, const double *ut, const double *wr,
                      double *spring, double *roll, double *hist_out, double *fn_out, double *ft,
                      double *mr, double *elastic_out, double *dissip_out)
{
    const ndem_pair_params *pp = in->pp;
    const double *hz = &sim->dem->hertz[NDEM_DEM_HERTZ * in->pair];
    const double h = sim->solver.time_step, delta = in->delta, ddelta = in->ddelta;
    double sr = sqrt(in->r_eff), sd = sqrt(delta), ksd = hz[0] * sr * sd; /* k_n delta^(1/2) */
    /* Tsuji et al. (1992) eq. 10: the dashpot p sqrt(m* k_n) delta^(1/4) has
     * one damping ratio at every overlap, so e holds at every impact speed
     * and a contact formed at rest is damped like any other (AGX's
     * c delta^(1/2) with c = p sqrt(m* / k_n) delta^(-1/4)); its step
     * damping from the pair's table at omega h = h sqrt(3/2 k_n delta^(1/2) / m*) */
    double q = sqrt(in->m_eff * ksd), gc = sim->dem->damp[in->pair] * q;
    double bh =
        gc <= 0 ? 0
                : ndem_damp_table_eval(&sim->dem->dashpot[in->pair], h * sqrt(1.5) * q * in->inv_m);
    double dashpot = in->m_eff * ndem_min(bh, 0.25) / h;
    double fel = ksd * delta, fn = ndem_dem_edge_force(in->edge, fel, dashpot, 1);
    double dissip = (fn - fel) * ddelta * h; /* the dashpot as applied */
    double elastic = 0.4 * fel * delta;      /* integral of k_n delta^(3/2) */
    /* Mindlin: k_t = 8 G* sqrt(R* delta), G* = G / (2 (2 - nu)) */
    double kt = hz[1] * sr * sd, v2;
    double u_old = 0.5 * kt * ndem_dot(spring, spring);
    for (int q3 = 0; q3 < 3; q3++) {
        spring[q3] += ut[q3] * h;
        ft[q3] = kt * spring[q3];
    }
    if (cut_to(ft, pp->friction * fn, &v2)) /* slides: the spring follows the force */
        for (int q3 = 0; q3 < 3; q3++) spring[q3] = kt > 0 ? ft[q3] / kt : 0;
    memcpy(hist_out, spring, 3 * sizeof(double));
    double u_new = 0.5 * kt * ndem_dot(spring, spring);
    dissip += spring_loss(ft, ut, h, u_old, u_new);
    elastic += u_new;
    /* rolling spring, k_r = 2.25 k_n' mu_r^2 r*^2 with k_n' = 3/2 k_n delta^(1/2) */
    double kr = 2.25 * 1.5 * ksd * pp->rolling * pp->rolling * in->r_eff * in->r_eff;
    u_old = 0.5 * kr * ndem_dot(roll, roll);
    for (int q3 = 0; q3 < 3; q3++) {
        roll[q3] += wr[q3] * h;
        mr[q3] = kr * roll[q3];
    }
    if (cut_to(mr, pp->rolling * in->r_eff * fn, &v2))
        for (int q3 = 0; q3 < 3; q3++) roll[q3] = kr > 0 ? mr[q3] / kr : 0;
    memcpy(&hist_out[3], roll, 3 * sizeof(double));
    u_new = 0.5 * kr * ndem_dot(roll, roll);
    dissip += spring_loss(mr, wr, h, u_old, u_new);
    elastic += u_new;
    *fn_out = fn;
    *elastic_out = elastic;
    *dissip_out += dissip;
}

void ndem_dem_contact_force(const ndem_sim *sim, long k, double *out, double *hist_out,
                            double *energy)
{
    const ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
    ndem_contact_key key = c->key[k];
    int a = key.a, pb = ndem_key_is_particle(key) ? key.b : -1; /* b's particle, or -1 */
    const double *va = &b->vel[6 * a];
    ndem_contact_geom geom;
    double ra = b->radius[a], m_eff, inv_m, u_b[3], w_b[3], e_b, l_b_lin;
    const ndem_pair_params *pp;
    memset(hist_out, 0, NDEM_DEM_HIST * sizeof(double));
    energy[0] = energy[1] = energy[2] = 0;
    if (sim->shapes && ndem_dem_shape_pair(sim, key)) {  /* per manifold point (dem_shape.c) */
        memset(out, 0, NDEM_DEM_FORCE * sizeof(double)); /* it sums its points into out */
        ndem_dem_shape_force(sim, k, out, energy);
        return;
    }
    if (pb >= 0) ndem_pair_geometry(b, a, pb, &geom); /* (ug is for geometry only) */
    else ndem_contact_geometry(sim, key, &geom);
    const double *n = geom.n;
    double delta = geom.delta, la = geom.la, lb = geom.lb, d_eff = geom.d_eff;
    memcpy(&out[9], n, 3 * sizeof(double));
    out[12] = la;
    int mb = geom.material_b;
    if (pb >= 0) {
        const double *vb = &b->vel[6 * pb];
        inv_m = b->inv_mass[a] + b->inv_mass[pb];
        m_eff = 1.0 / inv_m;
        /* velocity of b's surface at the contact: v_b + w_b x (-lb n) */
        double wx[3];
        ndem_cross(&vb[3], n, wx);
        for (int q = 0; q < 3; q++) {
            u_b[q] = vb[q] - lb * wx[q];
            w_b[q] = vb[3 + q];
        }
        l_b_lin = b->radius[pb];
    } else {
        inv_m = b->inv_mass[a];
        m_eff = 1.0 / inv_m;
        memcpy(u_b, geom.ug, sizeof u_b);
        memcpy(w_b, &geom.ug[3], sizeof w_b);
        l_b_lin = ra; /* a flat wall uses the other's radius (Woo) */
    }
    /* an intact bond replaces the contact law (libgran) */
    if (pb >= 0 && sim->dem->bond_count > 0 && bond_find(sim->dem, a, pb) >= 0) {
        memset(out, 0, 9 * sizeof(double)); /* out is written on every path: no clear */
        out[13] = 0;
        return;
    }
    pp = ndem_pair(&sim->materials, b->material[a], mb);
    /* van der Waals attraction across the gap, saturated below delta_0
     * (libgran), between spheres of the pair's effective size */
    double fvdw = pp->hamaker > 0
                      ? ndem_vdw_force(pp->hamaker, d_eff, fmax(-delta, pp->vdw_saturation))
                      : 0.0;
    if (delta <= 0) { /* open: no contact force, springs reset */
        for (int q = 0; q < 3; q++) out[q] = fvdw * n[q]; /* pulls a towards b */
        memset(&out[3], 0, 6 * sizeof(double));
        out[13] = -fvdw;
        return;
    }
    energy[2] = delta;
    e_b = sim->materials.young[mb];
    double wa_x[3];
    ndem_cross(&va[3], n, wa_x);
    double u[3], w_rel[3];
    for (int q = 0; q < 3; q++) {
        u[q] = u_b[q] - (va[q] + la * wa_x[q]); /* b relative to a at the contact */
        w_rel[q] = w_b[q] - va[3 + q];
    }
    double vn = ndem_dot(u, n), ddelta = -vn;
    double ut[3], wr[3], wn = ndem_dot(w_rel, n);
    for (int q = 0; q < 3; q++) {
        ut[q] = u[q] - vn * n[q];
        wr[q] = w_rel[q] - wn * n[q];
    }
    const double *old = ndem_dem_hist_find(sim->dem, k, key);
    if (old && old[7] == 0) old = NULL; /* listed, but not touching before */
    hist_out[7] = 1;
    double spring[3] = {0, 0, 0}, roll[3] = {0, 0, 0};
    if (old) {
        memcpy(spring, old, sizeof spring);
        memcpy(roll, &old[3], sizeof roll);
        rotate_into_plane(spring, n);
        rotate_into_plane(roll, n);
    }
    double fn, kt, r_eff = 0.5 * d_eff, excess, dissip = 0, elastic = 0;
    const ndem_dem_edge edge = {delta, ddelta, h, inv_m, old == NULL};
    double ft[3], mr[3] = {0, 0, 0};
    double nu = pp->poisson_ratio;
    if (sim->solver.contact_model == NDEM_MODEL_HUNT_CROSSLEY) {
        double kn =
            pp->stiffness > 0 ? pp->stiffness : ndem_hertz_stiffness(pp->young_modulus, nu, d_eff);
        double ex = pp->exponent, dn = pow(delta, ex);
        double v0 = old ? old[6] : ndem_max(ddelta, 1e-3); /* speed at first touch */
        hist_out[6] = v0;
        /* Muth et al. eq. (3), f = K d^n (1 + chi d'), with chi = p / v0 from the
         * exact mapping in place of the first-order 3 (1 - e^2) / (4 v0) */
        double ktan = ex * kn * pow(delta, ex - 1.0);
        double gc = kn * dn * pair_damping(sim, b->material[a], mb) / v0;
        /* made exact for the step; capped at m* / (4 h) because a contact
         * that forms at a crawl (v0 -> 0) gets a dashpot no explicit step
         * can hold (this law ties the damping to v0, Muth et al.) */
        double dashpot = m_eff / h * ndem_min(step_damping(gc, ktan, m_eff, h), 0.25);
        fn = ndem_dem_edge_force(&edge, kn * dn, dashpot, 1);
        dissip += (fn - kn * dn) * ddelta * h; /* the dashpot as applied (never pulling) */
        elastic = kn * dn * delta / (ex + 1.0);
        kt = pp->stiffness_ratio * ktan;
        double lim = pp->friction * fn;
        if (pp->velocity_friction) {
            /* plain velocity friction with a Coulomb cut: -min(g |v_t|, mu f_n) v_t/|v_t|,
             * g the strongest dashpot an explicit step keeps stable */
            double g = 0.25 * m_eff / h, vt = ndem_norm(ut);
            double mag = ndem_min(g * vt, lim);
            for (int q = 0; q < 3; q++) ft[q] = vt > 0 ? mag * ut[q] / vt : 0;
            dissip += ndem_dot(ft, ut) * h;
        } else {
            double u_old = 0.5 * kt * ndem_dot(spring, spring);
            /* Brendel-Dippel: the spring stretches only while it sticks
             * (mu f_n > k_t |xi|, eq. 6) or while it relaxes; sliding keeps it */
            double trial[3];
            for (int q = 0; q < 3; q++) trial[q] = spring[q] + ut[q] * h;
            if (kt * ndem_norm(trial) <= lim || ndem_norm(trial) < ndem_norm(spring))
                memcpy(spring, trial, sizeof spring);
            if (kt * ndem_norm(spring) > lim) cut(spring, kt > 0 ? lim / kt : 0, &excess);
            /* a critical dashpot lets a sticking contact settle
             * instead of ringing on its spring; the sum stays on the cone */
            double iib = pb >= 0 ? b->inv_inertia[pb] : 0.0;
            double m_t = 1.0 / (1.0 / m_eff + la * la * b->inv_inertia[a] + lb * lb * iib);
            double gt = ndem_min(2.0 * sqrt(m_t * kt), 0.15 * m_t / h);
            for (int q = 0; q < 3; q++) ft[q] = kt * spring[q] + gt * ut[q];
            cut(ft, lim, &excess);
            memcpy(hist_out, spring, 3 * sizeof(double));
            double u_new = 0.5 * kt * ndem_dot(spring, spring);
            elastic += u_new;
            dissip += spring_loss(ft, ut, h, u_old, u_new);
        }
    } else if (sim->solver.contact_model == NDEM_MODEL_LUDING) {
        /* libgran: four spring-dashpots; the normal one is the linear
         * connector of Woo (or the pair's stiffness), the others
         * stiffness_ratio times it, all damped like the normal one */
        double l_a = ra, area = M_PI * fmin(l_a, l_b_lin) * fmin(l_a, l_b_lin);
        double ea = sim->materials.young[b->material[a]];
        double kn =
            pp->stiffness > 0 ? pp->stiffness : 1.0 / (l_a / (ea * area) + l_b_lin / (e_b * area));
        /* the dashpot's ratio from the mapping of the clamped law, which
         * restitutes less damping than the free one (dem_models.c) */
        double zeta = 0.5 * pair_damping(sim, b->material[a], mb);
        double gn =
            m_eff / h * ndem_min(step_damping(2.0 * zeta * sqrt(m_eff * kn), kn, m_eff, h), 0.25);
        fn = ndem_dem_edge_force(&edge, kn * delta, gn, 1); /* only while it pushes */
        dissip += (fn - kn * delta) * ddelta * h;
        elastic = 0.5 * kn * delta * delta;
        kt = pp->stiffness_ratio * kn;
        double iib = pb >= 0 ? b->inv_inertia[pb] : 0.0;
        double m_t = 1.0 / (1.0 / m_eff + la * la * b->inv_inertia[a] + lb * lb * iib);
        double gt = ndem_min(2.0 * zeta * sqrt(m_t * kt), 0.15 * m_t / h);
        double mus = pp->friction, mud = pp->dynamic_friction;
        double u_old = 0.5 * kt * ndem_dot(spring, spring);
        luding_spring(spring, ut, kt, gt, mus * fn, mud * fn, h, ft);
        memcpy(hist_out, spring, 3 * sizeof(double));
        double u_new = 0.5 * kt * ndem_dot(spring, spring);
        dissip += spring_loss(ft, ut, h, u_old, u_new);
        elastic += u_new;
        /* torsion and rolling quasi-forces: rates r* w_n n and w_roll x (r* n) */
        double iw = b->inv_inertia[a] + iib, i_eff = iw > 0 ? 1.0 / iw : 0;
        double gr = ndem_min(2.0 * zeta * sqrt(i_eff / (r_eff * r_eff) * kt),
                             0.15 * i_eff / (r_eff * r_eff) / h);
        double orate[3], rrate[3], tw[3], fo[3], fr[3], nfr[3];
        double xo = old ? old[6] : 0.0;
        u_old = 0.5 * kt * (xo * xo + ndem_dot(roll, roll));
        for (int q = 0; q < 3; q++) {
            orate[q] = r_eff * wn * n[q];
            tw[q] = xo * n[q];
        }
        ndem_cross(wr, n, rrate);
        for (int q = 0; q < 3; q++) rrate[q] *= r_eff;
        luding_spring(tw, orate, kt, gr, pp->twisting * fn, pp->twisting * fn, h, fo);
        luding_spring(roll, rrate, kt, gr, pp->rolling * fn, pp->rolling * fn, h, fr);
        hist_out[6] = ndem_dot(tw, n);
        memcpy(&hist_out[3], roll, 3 * sizeof(double));
        ndem_cross(n, fr, nfr);
        for (int q = 0; q < 3; q++) mr[q] = r_eff * (ndem_dot(fo, n) * n[q] + nfr[q]);
        u_new = 0.5 * kt * (hist_out[6] * hist_out[6] + ndem_dot(roll, roll));
        dissip += spring_loss(mr, w_rel, h, u_old, u_new);
        elastic += u_new;
    } else if (sim->solver.contact_model == NDEM_MODEL_LINEAR_ELASTIC6) {
        /* Woo, purely elastic 6-DOF: F_n = k_n u_n, F_t = k_t u_t,
         * T_n = k_w phi_n, T_b = k_b phi_t with k_w = l^2 k_n, k_b = l^2 k_t;
         * displacements and angles accumulate from the relative motion */
        double l_a = ra, area = M_PI * fmin(l_a, l_b_lin) * fmin(l_a, l_b_lin);
        double ea = sim->materials.young[b->material[a]];
        double kn = 1.0 / (l_a / (ea * area) + l_b_lin / (e_b * area));
        double len = pp->char_len > 0 ? pp->char_len : fmin(l_a, l_b_lin);
        kt = pp->stiffness_ratio * kn;
        /* Woo writes k_w = l k_n with its own units; with k_n in N/m a
         * torque per radian needs l^2 */
        double kw = len * len * kn, kb = len * len * kt;
        fn = kn * delta;
        double twist = (old ? old[6] : 0.0) + wn * h;
        for (int q = 0; q < 3; q++) {
            spring[q] += ut[q] * h;
            roll[q] += wr[q] * h;
            ft[q] = kt * spring[q];
            mr[q] = kb * roll[q] + kw * twist * n[q];
        }
        memcpy(hist_out, spring, 3 * sizeof(double));
        memcpy(&hist_out[3], roll, 3 * sizeof(double));
        hist_out[6] = twist;
        elastic = 0.5 * (fn * fn / kn + (kt > 0 ? ndem_dot(ft, ft) / kt : 0) + kw * twist * twist +
                         kb * ndem_dot(roll, roll));
    } else if (sim->solver.contact_model == NDEM_MODEL_LINEAR) {
        /* Woo eq. (3): connector of length l_a + l_b, area pi min(l)^2 */
        double l_a = ra, area = M_PI * fmin(l_a, l_b_lin) * fmin(l_a, l_b_lin);
        double ea = sim->materials.young[b->material[a]];
        double kn = 1.0 / (l_a / (ea * area) + l_b_lin / (e_b * area));
        double gamma =
            m_eff / h *
            step_damping(pair_damping(sim, b->material[a], mb) * sqrt(m_eff * kn), kn, m_eff, h);
        double fel = kn * delta;
        /* no clamp: the dashpot may pull at the end of a contact, which is
         * what gives the restitution e exactly (LIGGGHTS' limitForce off) */
        fn = ndem_dem_edge_force(&edge, fel, gamma, 0);
        dissip += fabs((fn - fel) * ddelta * h);
        kt = pp->stiffness_ratio * kn;
        /* incremental tangential force (the history holds the force) */
        for (int q = 0; q < 3; q++) ft[q] = spring[q] + kt * ut[q] * h;
        cut(ft, pp->friction * fmax(fn, 0.0), &excess);
        if (kt > 0) dissip += pp->friction * fmax(fn, 0.0) * excess / kt; /* plastic slip */
        memcpy(hist_out, ft, 3 * sizeof(double));
        elastic = 0.5 * kn * delta * delta + (kt > 0 ? 0.5 * ndem_dot(ft, ft) / kt : 0);
    } else {
        hertz_law(sim,
                  &(hertz_in){pp, m_eff, inv_m, delta, ddelta, r_eff,
                              b->material[a] * sim->materials.count + mb, &edge},
                  ut, wr, spring, roll, hist_out, &fn, ft, mr, &elastic, &dissip);
    }
    /* on a: normal push -fn n, friction ft (it drags a along with b), torques
     * d_a x ft with d_a = la n, and the rolling torque; on b the opposite
     * force with lever d_b = -lb n. */
    double ta[3], tb[3];
    ndem_cross(n, ft, ta);
    for (int q = 0; q < 3; q++) {
        out[q] = -(fn - fvdw) * n[q] + ft[q];
        out[3 + q] = la * ta[q] + mr[q];
        tb[q] = lb * ta[q] - mr[q];
        out[6 + q] = tb[q];
    }
    out[13] = fn - fvdw;
    energy[0] = elastic;
    energy[1] = dissip;
}

/* ---- bonds (libgran "Bonded contact force") ----
 * Four spring-dashpots tie a bonded pair: normal, tangential, torsion and
 * bending. Their stiffnesses are those of an elastic beam joining the
 * centres with the smaller sphere's cross-section A = pi r^2 and length
 * L = r_a + r_b (Woo's connector): k_n = E A / L (or the pair's
 * bond_stiffness), k_t = k_n / (2 (1 + nu)), torsion k_t r^2 / 2, bending
 * k_n r^2 / 4; each dashpot has the pair's bond_damping ratio. A bond breaks
 * for good when a force or torque exceeds the pair's bond_max_force or
 * bond_max_torque. */

/* Bonds a and b (a < b) at their present distance. */
static int bond_pair(ndem_sim *sim, long a, long b)
{
    ndem_dem *d = sim->dem;
    const double *pos = sim->bodies.pos;
    double dx[3];
    for (int q = 0; q < 3; q++) dx[q] = pos[3 * b + q] - pos[3 * a + q];
    if (d->bond_count == d->bond_cap) {
        long cap = d->bond_cap ? 2 * d->bond_cap : 64;
        int *ba = realloc(d->bond_a, sizeof(int) * (size_t)cap);
        if (ba) d->bond_a = ba;
        int *bb = realloc(d->bond_b, sizeof(int) * (size_t)cap);
        if (bb) d->bond_b = bb;
        int *br = realloc(d->bond_broken, sizeof(int) * (size_t)cap);
        if (br) d->bond_broken = br;
        double *bs = realloc(d->bond, NDEM_DEM_BOND * sizeof(double) * (size_t)cap);
        if (bs) d->bond = bs;
        if (!ba || !bb || !br || !bs) return -1;
        d->bond_cap = cap;
    }
    long k = d->bond_count++;
    d->bond_a[k] = (int)a;
    d->bond_b[k] = (int)b;
    d->bond_broken[k] = 0;
    memset(&d->bond[NDEM_DEM_BOND * k], 0, NDEM_DEM_BOND * sizeof(double));
    d->bond[NDEM_DEM_BOND * k] = ndem_norm(dx);
    return 0;
}

/* Keeps the bonds sorted by (a, b) for bond_find; a repeated pair is kept once. */
static void bonds_sort(ndem_dem *d)
{
    for (long i = 1; i < d->bond_count; i++) {
        int a = d->bond_a[i], b = d->bond_b[i];
        double st[NDEM_DEM_BOND];
        memcpy(st, &d->bond[NDEM_DEM_BOND * i], sizeof st);
        long j = i - 1;
        while (j >= 0 && (d->bond_a[j] > a || (d->bond_a[j] == a && d->bond_b[j] > b))) {
            d->bond_a[j + 1] = d->bond_a[j];
            d->bond_b[j + 1] = d->bond_b[j];
            memcpy(&d->bond[NDEM_DEM_BOND * (j + 1)], &d->bond[NDEM_DEM_BOND * j], sizeof st);
            j--;
        }
        d->bond_a[j + 1] = a;
        d->bond_b[j + 1] = b;
        memcpy(&d->bond[NDEM_DEM_BOND * (j + 1)], st, sizeof st);
    }
    long w = 0;
    for (long i = 0; i < d->bond_count; i++) {
        if (w > 0 && d->bond_a[w - 1] == d->bond_a[i] && d->bond_b[w - 1] == d->bond_b[i]) continue;
        d->bond_a[w] = d->bond_a[i];
        d->bond_b[w] = d->bond_b[i];
        d->bond_broken[w] = 0;
        memmove(&d->bond[NDEM_DEM_BOND * w], &d->bond[NDEM_DEM_BOND * i],
                NDEM_DEM_BOND * sizeof(double));
        w++;
    }
    d->bond_count = w;
}

int ndem_dem_bond_range(ndem_sim *sim, long first, long end)
{
    const ndem_bodies *b = &sim->bodies;
    for (long i = first; i < end; i++)
        for (long j = i + 1; j < end; j++) {
            const double *xi = &b->pos[3 * i], *xj = &b->pos[3 * j];
            double dx[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]}, dist = ndem_norm(dx);
            double gap = dist - b->radius[i] - b->radius[j];
            if (gap > 0.01 * fmin(b->radius[i], b->radius[j])) continue;
            if (bond_pair(sim, i, j)) return -1;
        }
    bonds_sort(sim->dem);
    return 0;
}

int ndem_dem_bond_list(ndem_sim *sim, long first, const double *pairs, long count)
{
    for (long k = 0; k < count; k++) {
        long i = first + (long)pairs[2 * k], j = first + (long)pairs[2 * k + 1];
        if (bond_pair(sim, i < j ? i : j, i < j ? j : i)) return -1;
    }
    bonds_sort(sim->dem);
    return 0;
}

void ndem_dem_bond_force(ndem_sim *sim, long k)
{
    ndem_dem *d = sim->dem;
    const ndem_bodies *b = &sim->bodies;
    const double h = sim->solver.time_step;
    int a = d->bond_a[k], c = d->bond_b[k];
    double *st = &d->bond[NDEM_DEM_BOND * k];
    const double *va = &b->vel[6 * a], *vb = &b->vel[6 * c];
    double ra = b->radius[a], rb = b->radius[c];
    ndem_contact_geom geom;
    ndem_contact_geometry(sim, (ndem_contact_key){a, c, NDEM_KEY_PARTICLE}, &geom);
    const double *n = geom.n;
    double dist = ra + rb - geom.delta, la = geom.la, lb = geom.lb;
    const ndem_pair_params *pp = ndem_pair(&sim->materials, b->material[a], b->material[c]);
    double rmin = fmin(ra, rb), area = M_PI * rmin * rmin;
    double kn = pp->bond_stiffness > 0 ? pp->bond_stiffness : pp->young_modulus * area / (ra + rb);
    double kt = kn / (2.0 * (1.0 + pp->poisson_ratio));
    double ko = 0.5 * kt * rmin * rmin, kr = 0.25 * kn * rmin * rmin;
    double ima = b->inv_mass[a], imb = b->inv_mass[c];
    double m_eff = 1.0 / (ima + imb);
    double iia = b->inv_inertia[a], iib = b->inv_inertia[c];
    double i_eff = iia + iib > 0 ? 1.0 / (iia + iib) : 0;
    /* Effective masses of each mode; the tangential one includes the spins
     * (lever r: 1/m_t = 1/m_a + 1/m_b + la^2/I_a + lb^2/I_b). Dashpots are
     * capped at 0.15 of mass / h: stable explicit damping with up to a dozen
     * bonds or contacts per particle. */
    double m_t = 1.0 / (ima + imb + la * la * iia + lb * lb * iib);
    double z = 2.0 * pp->bond_damping;
    double gn = ndem_min(z * sqrt(m_eff * kn), 0.15 * m_eff / h);
    double gt = ndem_min(z * sqrt(m_t * kt), 0.15 * m_t / h);
    double go = ndem_min(z * sqrt(i_eff * ko), 0.15 * i_eff / h);
    double gr = ndem_min(z * sqrt(i_eff * kr), 0.15 * i_eff / h);
    double wxa[3], wxb[3];
    ndem_cross(&va[3], n, wxa);
    ndem_cross(&vb[3], n, wxb);
    double u[3], w[3];
    for (int q = 0; q < 3; q++) {
        u[q] = (vb[q] - lb * wxb[q]) - (va[q] + la * wxa[q]);
        w[q] = vb[3 + q] - va[3 + q];
    }
    double un = ndem_dot(u, n), wn = ndem_dot(w, n), ut[3], wr[3];
    for (int q = 0; q < 3; q++) {
        ut[q] = u[q] - un * n[q];
        wr[q] = w[q] - wn * n[q];
    }
    rotate_into_plane(&st[1], n);
    rotate_into_plane(&st[5], n);
    st[4] += wn * h;
    double fn = kn * (dist - st[0]) + gn * un; /* pulls a towards b when stretched */
    double ft[3], mo[3], mr[3], ta[3];
    for (int q = 0; q < 3; q++) {
        st[1 + q] += ut[q] * h;
        st[5 + q] += wr[q] * h;
        ft[q] = kt * st[1 + q] + gt * ut[q];
        mo[q] = (ko * st[4] + go * wn) * n[q];
        mr[q] = kr * st[5 + q] + gr * wr[q];
    }
    double torque[3] = {mo[0] + mr[0], mo[1] + mr[1], mo[2] + mr[2]};
    if ((pp->bond_max_force > 0 &&
         (fabs(fn) > pp->bond_max_force || ndem_norm(ft) > pp->bond_max_force)) ||
        (pp->bond_max_torque > 0 && ndem_norm(torque) > pp->bond_max_torque)) {
        d->bond_broken[k] = 1; /* from now on the contact law applies */
        return;
    }
    ndem_cross(n, ft, ta);
    for (int q = 0; q < 3; q++) {
        double f = fn * n[q] + ft[q];
        d->acc[6 * a + q] += f;
        d->acc[6 * c + q] -= f;
        d->acc[6 * a + 3 + q] += la * ta[q] + torque[q];
        d->acc[6 * c + 3 + q] += lb * ta[q] - torque[q];
    }
}
