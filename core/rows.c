/* rows.c - the solver's rows: colour the contact graph into packets of
 * NDEM_LANES rows, prepare the SPOOK rows with the Hertz mapping, warm start
 * them from last step's impulses and store the impulses for the next step.
 *
 * Contacts arrive in pair order (contacts.c); every loop here either runs in
 * that order or writes each row's own lanes, so the thread count never
 * changes a result. */
#include "sim.h"
#include "vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define E_H                                                                                        \
    1.25 /* Hertz mapping exponent, AGX eq. (35.3); prepare_row takes its                          \
          * powers by square roots */

int ndem_overflow_switch(const char *value, int *all, char *err, size_t err_len)
{
    *all = value && !strcmp(value, "all");
    if (!value || !value[0] || *all) return 0;
    snprintf(err, err_len, "NDEM_OVERFLOW=%s: not a setting (\"all\", or unset)", value);
    return -1;
}

int ndem_warm_rows_switch(const char *value, char *err, size_t err_len)
{
    if (!value || !value[0] || !strcmp(value, "all")) return 0;
    if (!strcmp(value, "normal")) return 1;
    snprintf(err, err_len, "NDEM_WARM_ROWS=%s: not a setting (\"all\", \"normal\", or unset)",
             value);
    return -1;
}

/* A row on static geometry (a plane, a wall, a mesh; moving or not): the
 * rows NDEM_SWEEP=walls-first and walls-last colour apart. Rows on a
 * dynamic body (rigid.c) stay with the particle rows. */
static int wall_row(const ndem_sim *sim, ndem_contact_key key)
{
    return !ndem_key_is_particle(key) && ndem_rigid_body_of(sim->rigid, key.b, key.feature) < 0;
}

/* Greedy colouring in pair order with a colour mask per body (contacts.h):
 * contacts of one colour share no particle, so each colour is solved in
 * parallel, NDEM_LANES rows at a time, and the sweep equals a serial
 * Gauss-Seidel sweep in colour order (AGX 35.6). A geometry row
 * occupies its particle only. Contacts that find no colour go to a last
 * set solved serially, one row per packet. NDEM_SWEEP=walls-first (or
 * walls-last) colours the wall rows (the particle rows) in a first pass,
 * and the other rows in a second one above every colour the first took, so
 * a forward sweep solves the wall rows before (after) every particle row;
 * both passes run in pair order, serially: the same colours for any thread
 * count. */
int ndem_contacts_color(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    long n = sim->bodies.count;
    /* the masks in the last step's packets, dead until the packets are
     * rewritten below (ndem_contacts_spent); before the first step's, a
     * buffer of their own, given back once the packets can hold them */
    size_t spent_bytes = 0;
    ndem_color_mask *mask = ndem_contacts_spent(sim, &spent_bytes);
    if (spent_bytes >= sizeof(ndem_color_mask) * (size_t)n) {
        free(c->color_mask);
        c->color_mask = NULL;
        c->mask_capacity = 0;
    } else {
        if (ndem_ensure((void **)&c->color_mask, &c->mask_capacity, n, sizeof(ndem_color_mask)))
            return -1;
        mask = c->color_mask;
    }
    if (n > 0) memset(mask, 0, sizeof(ndem_color_mask) * (size_t)n); /* NULL while empty */
    long counts[NDEM_COLOR_SETS] = {0}, geo = 0;
    const int walls = ndem_sweep_walls(sim->sweep_order);
    ndem_color_mask below = 0; /* the colours of the first pass, closed to the second */
    for (int pass = 0; pass < (walls == NDEM_WALLS_MIXED ? 1 : 2); pass++) {
        int top = -1; /* the highest colour this pass gave */
        for (long k = 0; k < c->count; k++) {
            ndem_contact_key key = c->key[k];
            if (walls != NDEM_WALLS_MIXED &&
                wall_row(sim, key) != ((pass == 0) == (walls == NDEM_WALLS_FIRST)))
                continue; /* the other pass's row */
            int a = key.a, b = key.b, particle = ndem_key_is_particle(key);
            ndem_color_mask used = mask[a] | (particle ? mask[b] : 0) | below;
            int color = used == NDEM_COLOR_MASK_FULL || sim->overflow_all ? NDEM_COLOR_OVERFLOW
                                                                          : __builtin_ctzll(~used);
            if (color < NDEM_COLORS) {
                mask[a] |= (ndem_color_mask)1 << color;
                if (particle) mask[b] |= (ndem_color_mask)1 << color;
                if (color > top) top = color;
            }
            c->slot[k] = color; /* temporarily the colour */
            counts[color]++;
            geo += !particle;
        }
        below = top < 0                  ? 0
                : top >= NDEM_COLORS - 1 ? NDEM_COLOR_MASK_FULL
                                         : ((ndem_color_mask)1 << (top + 1)) - 1;
    }
    int colors = 0;
    for (int q = 0; q < NDEM_COLOR_SETS; q++)
        if (counts[q]) colors = q + 1;
    c->color_count = colors;
    c->geometry_rows = geo;
    long packets = 0;
    for (int q = 0; q <= colors; q++) {
        c->color_start[q] = packets;
        if (q < colors)
            packets += q < NDEM_COLORS ? (counts[q] + NDEM_LANES - 1) / NDEM_LANES : counts[q];
    }
    if (packets > c->packet_capacity) {
        /* rebuilt every step: the old arrays go first, so the peak memory
         * never holds both */
        free(c->packets), free(c->bounds), free(c->fill), free(c->cold), free(c->residual);
        free(c->impact_v);
        long cap = packets + packets / 4 + 64;
        int bounds = sim->materials.row_bounds;
        c->packets = aligned_alloc(64, sizeof(ndem_packet) * (size_t)cap);
        c->bounds = bounds ? aligned_alloc(64, sizeof(ndem_packet_bounds) * (size_t)cap) : NULL;
        c->fill = malloc((size_t)cap);
        c->cold = malloc(sizeof(ndem_row_cold) * NDEM_LANES * (size_t)cap);
        c->residual = malloc(3 * sizeof(float) * (size_t)cap);
        c->impact_v = aligned_alloc(64, sizeof(ndem_fv) * (size_t)cap);
        c->packet_capacity =
            c->packets && (c->bounds || !bounds) && c->fill && c->cold && c->residual && c->impact_v
                ? cap
                : 0;
        if (!c->packet_capacity) return -1;
    }
    c->packet_count = packets;
    long slots = n + geo + 1; /* bodies, geometry rows, one zero slot */
    if (ndem_ensure_aligned((void **)&c->vs, &c->slot_capacity, slots, sizeof(ndem_f8))) return -1;
    c->slot_count = slots;
    if (ndem_ensure((void **)&c->ug, &c->ug_capacity, 6 * geo + 6, sizeof(double))) return -1;

    /* Rows of a colour fill its packets lane after lane in pair order. */
    long next[NDEM_COLOR_SETS];
    for (int q = 0; q < colors; q++) next[q] = c->color_start[q] * NDEM_LANES;
    long g = 0;
    for (long k = 0; k < c->count; k++) {
        int q = (int)c->slot[k];
        long at = next[q];
        next[q] += q < NDEM_COLORS ? 1 : NDEM_LANES; /* overflow: one row per packet */
        c->slot[k] = (int)at;
        /* a geometry row's slot (its index past the bodies), read by prepare_row */
        c->cold[at].geo = !ndem_key_is_particle(c->key[k]);
        if (c->cold[at].geo) c->packets[at / NDEM_LANES].b[at % NDEM_LANES] = (int)(n + g++);
    }
    for (int q = 0; q < colors; q++)
        for (long p = c->color_start[q]; p < c->color_start[q + 1]; p++) {
            long left = q < NDEM_COLORS ? counts[q] - (p - c->color_start[q]) * NDEM_LANES : 1;
            c->fill[p] = (unsigned char)(left < NDEM_LANES ? left : NDEM_LANES);
        }
    return 0;
}

/* Finds last step's entry of the contact for the warm start. */
static int history_find(const ndem_history *hist, ndem_contact_key key)
{
    if (key.a >= hist->bodies) return -1;
    for (long k = hist->start[key.a]; k < hist->start[key.a + 1]; k++)
        if (hist->key[k].b == key.b && hist->key[k].feature == key.feature) return (int)k;
    return -1;
}

/* Clears lane l of every field of a packet and points it at the zero slot:
 * an unused lane computes zeros and is never stored. */
static void clear_lane(ndem_packet *p, ndem_packet_bounds *bd, ndem_fv *v_target, int l,
                       int zero_slot)
{
    unsigned char *field = (unsigned char *)p;
    for (size_t f = 0; f < sizeof *p; f += NDEM_LANES * sizeof(float))
        memset(field + f + (size_t)l * sizeof(float), 0, sizeof(float));
    p->a[l] = p->b[l] = zero_slot;
    if (bd) bd->mut[l] = bd->lo_n[l] = bd->twist[l] = 0.0f;
    (*v_target)[l] = 0.0f;
}

/* History-based warm start, Wang et al. eq. (7): last step's impulses
 * re-projected on this step's basis, then clamped to this step's bounds.
 * The impact stage keeps impulses of its own and never sees these
 * (docs/physics.md, "Warm start"). Runs in pair order, so the history streams by. */
static void warm_start(const ndem_sim *sim, ndem_packet *row, ndem_packet_bounds *bd, int l,
                       int hist_index)
{
    for (int q = 0; q < 5; q++) row->lam[q][l] = 0.0f;
    if (bd) bd->twist[l] = 0.0f;
    if (hist_index < 0) return;
    double beta = sim->solver.warm_start_factor;
    const float *hf = sim->history.lam + 7 * (size_t)hist_index;
    double hist[7];
    for (int q = 0; q < 7; q++) hist[q] = hf[q];
    const double *rot = hist + 4; /* rolling and twisting impulse vector */
    float nf[3], tf[3];
    double n[3], t1[3], t2[3];
    for (int q = 0; q < 3; q++) nf[q] = row->n[q][l];
    ndem_row_tangent(nf, tf);
    for (int q = 0; q < 3; q++) n[q] = nf[q], t1[q] = tf[q];
    ndem_cross(n, t1, t2);
    double s = row->s[l], mu = row->mu[l], mur = row->mur[l];
    double mut = bd ? bd->mut[l] : 0.0, lo = bd ? bd->lo_n[l] : 0.0;
    double lam0 = ndem_max(beta * hist[0] / s, lo);
    double F = ndem_max(s * lam0, 0.0);
    double f1 = beta * ndem_dot(hist + 1, t1), f2 = beta * ndem_dot(hist + 1, t2);
    double lim = mu * F, len = sqrt(f1 * f1 + f2 * f2);
    if (len > lim) f1 *= lim / len, f2 *= lim / len;
    double r1 = beta * ndem_dot(rot, t1), r2 = beta * ndem_dot(rot, t2);
    lim = mur * F;
    len = sqrt(r1 * r1 + r2 * r2);
    if (len > lim) r1 *= lim / len, r2 *= lim / len;
    double tl = mut * F, tw = ndem_min(ndem_max(beta * ndem_dot(rot, n), -tl), tl);
    double lam[6] = {lam0, f1, f2, r1, r2, tw};
    /* NDEM_WARM_ROWS=normal: the paper's "normal forces only" variant (section 4.2) */
    int kept = sim->warm_normal_only ? 1 : 6;
    for (int q = 0; q < kept && q < 5; q++) row->lam[q][l] = (float)lam[q];
    if (bd && kept == 6) bd->twist[l] = (float)lam[5]; /* else tw is +0 (rows.h) */
}

static void prepare_row(ndem_sim *sim, long k)
{
    ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    double h = sim->solver.time_step;
    ndem_contact_key key = c->key[k];
    int a = key.a;
    long at = c->slot[k];
    ndem_packet *row = &c->packets[at / NDEM_LANES];
    ndem_packet_bounds *bd = c->bounds ? &c->bounds[at / NDEM_LANES] : NULL;
    int l = (int)(at % NDEM_LANES);
    ndem_row_cold *cold = &c->cold[at];
    float *v_target = (float *)&c->impact_v[at / NDEM_LANES] + l; /* impact stage's target */
    const double *va = &b->vel[6 * a];
    ndem_contact_geom geom;
    ndem_contact_geometry(sim, key, &geom);
    double d_eff = geom.d_eff, vb[3], delta = geom.delta;
    const ndem_pair_params *pp = ndem_pair(&sim->materials, b->material[a], geom.material_b);
    row->a[l] = a;
    for (int q = 0; q < 3; q++) row->n[q][l] = (float)geom.n[q];
    row->la[l] = (float)geom.la;
    row->lb[l] = (float)geom.lb;
    if (ndem_key_is_particle(key)) {
        row->b[l] = key.b;
        memcpy(vb, &b->vel[6 * key.b], sizeof vb);
    } else {
        /* the geometry's own slot (the colouring's): its velocity, zero inverse masses */
        long slot = row->b[l];
        memcpy(&c->ug[6 * (slot - b->count)], geom.ug, sizeof geom.ug);
        for (int q = 0; q < 6; q++) c->vs[slot][q] = (float)geom.ug[q];
        c->vs[slot][6] = c->vs[slot][7] = 0.0f;
        memcpy(vb, geom.ug, sizeof vb);
    }
    cold->delta = (float)delta;

    /* Hertz mapping, AGX eq. (35.3) with the exponent of Wang et al. */
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
    double de = delta - pp->adhesive_overlap; /* adhesion, AGX 35.4.6 */
    double mag = fabs(de), s, sig_n;
    cold->gap = delta < 0;
    if (cold->gap) {
        /* Apart: a speculative row lets the gap close within the step and no
         * further, so free flight is untouched until the bodies meet; the
         * impact stage has already handled a fast arrival. */
        cold->phi = (float)-delta;
        s = 1.0;
        cold->ups = 0.0f;
        sig_n = 0.0;
    } else {
        /* x^(1/4) as two square roots: E_H = 5/4 (pow costs ten times more) */
        double q4 = sqrt(sqrt(mag));
        cold->phi = (float)(de > 0 ? -mag * q4 : mag * q4);
        /* The row scale vanishes with the overlap; a floor keeps it solvable. */
        s = E_H * (mag > 1e-6 * d_eff ? q4 : sqrt(sqrt(1e-6 * d_eff)));
        double ups = 1.0 / (1.0 + 4.0 * tau / h);
        cold->ups = (float)ups;
        sig_n = 4.0 / (h * h) * eps * ups;
    }
    double r_eff = 0.5 * d_eff;
    row->s[l] = (float)s;
    row->sig_n[l] = (float)sig_n;
    row->mu[l] = (float)pp->friction;
    row->mur[l] = (float)(pp->rolling * r_eff);
    if (bd) { /* else both are +0 for every pair (material.c) */
        bd->mut[l] = (float)(pp->twisting * r_eff);
        bd->lo_n[l] =
            (pp->adhesion > 0 && delta > 0 && de < 0) ? (float)(-pp->adhesion * h / s) : 0.0f;
    }

    /* Impact stage classification (AGX eq. 35.6). */
    double dv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
    double vsep = ndem_dot(geom.n, dv);
    cold->impact = 0;
    *v_target = 0.0f;
    /* Impacting: approaching faster than v_imp and meeting within this step
     * (gravity's pull during the step counted in). */
    double g = sqrt(ndem_dot(sim->gravity, sim->gravity));
    if (-vsep > sim->v_imp && delta - h * vsep + h * h * g > 0) {
        cold->impact = 2;
        *v_target = (float)(pp->restitution * -vsep);
    } else if (delta >= 0) {
        cold->impact = 1;
    }

    warm_start(sim, row, bd, l, sim->solver.warm_start ? history_find(&sim->history, key) : -1);
}

int ndem_contacts_prepare(ndem_sim *sim)
{
    ndem_contacts *c = &sim->contacts;
    int zero_slot = (int)(c->slot_count - 1);
    memset(&c->vs[zero_slot], 0, sizeof c->vs[zero_slot]);
#pragma omp parallel num_threads(ndem_threads_for(sim, c->count))
    {
#pragma omp for schedule(static)
        for (long k = 0; k < c->count; k++) prepare_row(sim, k);
#pragma omp for schedule(static)
        for (long p = 0; p < c->packet_count; p++)
            for (int l = c->fill[p]; l < NDEM_LANES; l++)
                clear_lane(&c->packets[p], c->bounds ? &c->bounds[p] : NULL, &c->impact_v[p], l,
                           zero_slot);
    }
    /* dynamic geometry: its rows become proxies of the bodies (rigid.c) */
    return sim->rigid ? ndem_rigid_rows(sim) : 0;
}

/* The impulses of this step become the next step's warm start (physical
 * normal impulse, friction and rolling impulses as world vectors). */
int ndem_contacts_store_history(ndem_sim *sim)
{
    const ndem_contacts *c = &sim->contacts;
    ndem_history *h = &sim->history;
    long nb = sim->bodies.count;
    if (ndem_ensure((void **)&h->start, &h->start_capacity, nb + 1, sizeof(long))) return -1;
    if (c->count > h->capacity) {
        long cap = c->count + c->count / 2 + 256;
        ndem_hist_key *kb = realloc(h->key, sizeof *kb * (size_t)cap);
        if (!kb) return -1;
        h->key = kb;
        h->capacity = cap;
    }
    /* the impulses' buffer held the impact stage's (solver.c): nothing to keep */
    if (7 * sizeof(float) * (size_t)c->count > h->lam_bytes &&
        ndem_history_lam_reserve(h, 7 * sizeof(float) * (size_t)h->capacity))
        return -1;
    memcpy(h->start, c->start, sizeof(long) * (size_t)(nb + 1));
    h->bodies = nb;
    h->count = c->count;
#pragma omp parallel for schedule(static) num_threads(ndem_threads_for(sim, c->count))
    for (long k = 0; k < c->count; k++) {
        long at = c->slot[k];
        const ndem_packet *r = &c->packets[at / NDEM_LANES];
        const ndem_packet_bounds *bd = c->bounds ? &c->bounds[at / NDEM_LANES] : NULL;
        int l = (int)(at % NDEM_LANES);
        h->key[k] = ndem_hist_key_of(c->key[k]);
        float nf[3], tf[3], *o = &h->lam[7 * k];
        double n[3], t1[3], t2[3], lam[6];
        for (int q = 0; q < 3; q++) nf[q] = r->n[q][l];
        ndem_row_tangent(nf, tf);
        for (int q = 0; q < 3; q++) n[q] = nf[q], t1[q] = tf[q];
        for (int q = 0; q < 5; q++) lam[q] = r->lam[q][l];
        lam[5] = bd ? bd->twist[l] : 0.0f;
        ndem_cross(n, t1, t2);
        o[0] = (float)((double)r->s[l] * lam[0]);
        for (int q = 0; q < 3; q++) {
            o[1 + q] = (float)(lam[1] * t1[q] + lam[2] * t2[q]);
            o[4 + q] = (float)(lam[3] * t1[q] + lam[4] * t2[q] + lam[5] * n[q]);
        }
    }
    return 0;
}
