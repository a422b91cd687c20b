/* rigid_contact_dem.c - a dynamic body against static geometry under smooth
 * DEM (rigid_contact.h; docs/physics.md, "Dynamic geometry").
 *
 * The points are NDEM's (the geometry type's table, at most
 * NDEM_RC_POINTS per pair); each touching point gets the pair's contact
 * law as a shaped particle's point against geometry does (dem_shape.c's
 * ndem_dem_point_law): its depth, the closing speed and tangential
 * velocity of the geometry's surface against the body's at the point, the
 * pair's stiffness and the body's mass shared among the touching points
 * (a face lying on a face is not n times stiffer), d* the body's
 * volume-equivalent diameter, and a tangential spring kept per point id
 * from step to step. The force adds to the geometry's load and its
 * opposite to the body's, at the point; ndem_rigid_dem then moves the body
 * by its load (force, and torque about its centre of mass). Two bodies
 * (the pairs after the geometry's) as two shaped particles (dem_shape.c):
 * d* and the mass the pair's reduced ones, the second body's velocity at
 * the point, the force on its load. Serial, in pair order: any thread
 * count gives the same bits. */
#include "dem.h"
#include "dem_private.h"
#include "dem_shape.h"
#include "loads.h"
#include "rigid_contact_private.h"
#include "sim.h"
#include "vec.h"

#include <math.h>
#include <string.h>

/* Last step's entry of point `id` in the pair's history, or NULL. */
static const double *old_point(const ndem_rc_pair *pr, unsigned id)
{
    for (int t = 0; t < NDEM_RC_POINTS; t++)
        if (pr->dem[t][1] != 0 && pr->dem[t][0] == (double)id) return pr->dem[t];
    return NULL;
}

/* Pair pr's forces into the loads; its energies added; 1 when it touches,
 * *deepest its deepest point. */
static int pair_forces(ndem_sim *sim, ndem_rc_pair *pr, double *elastic, double *dissip,
                       double *deepest)
{
    const ndem_rcontact *c = sim->rigid->contact;
    const ndem_rigid_body *bd = &sim->rigid->body[pr->body];
    const ndem_rigid_body *bo = pr->other >= 0 ? &sim->rigid->body[pr->other] : NULL;
    const int mb = sim->geometry[bd->geometry].material, mg = sim->geometry[pr->geometry].material;
    ndem_contact_point pts[NDEM_CONTACT_POINTS];
    int n = ndem_rc_pair_points(sim, pr, 0.0, pts), touching = 0;
    for (int j = 0; j < n; j++) touching += pts[j].depth > 0;
    double next[NDEM_RC_POINTS][NDEM_SHAPE_HIST];
    memset(next, 0, sizeof next);
    if (touching > 0) {
        /* two bodies: the reduced mass and size, as two shaped particles
         * (dem_shape.c); geometry: the body's own */
        const double dp = c->d_eq[pr->body], dq = bo ? c->d_eq[pr->other] : dp;
        const double lp = 0.5 * dp, lq = 0.5 * dq, none[3] = {0, 0, 0};
        const double *young = sim->materials.young;
        const double im = bd->inv_mass + (bo ? bo->inv_mass : 0.0);
        ndem_dem_point in = {.pp = ndem_pair(&sim->materials, mb, mg),
                             .m = 1.0 / (im * touching),
                             .split = 1.0 / touching,
                             .d_eff = bo ? 1.0 / (1.0 / dp + 1.0 / dq) : dp,
                             /* the linear law's connector: each side's half size (the body's on
                              * both sides against geometry, as a shaped particle) */
                             .kn_linear =
                                 sim->solver.contact_model == NDEM_MODEL_LINEAR
                                     ? ndem_dem_linear_connector(lp, lq, young[mb], young[mg])
                                     : 0.0,
                             .pair = mb * sim->materials.count + mg};
        int slot = 0;
        for (int j = 0; j < n; j++) {
            const ndem_contact_point *pt = &pts[j];
            if (pt->depth <= 0) continue;
            double ua[3], ub[3], u[3];
            ndem_rc_body_velocity(sim, bd, pt->x, ua);
            if (bo) ndem_rc_body_velocity(sim, bo, pt->x, ub);
            else ndem_geometry_surface_velocity(&sim->pose[pr->geometry], pt->x, ub);
            for (int q = 0; q < 3; q++) u[q] = ub[q] - ua[q];
            ndem_dem_point_motion(&in, pt, u);
            double *hp = next[slot++];
            hp[0] = (double)pt->id;
            hp[1] = 1;
            double fn, ft[3], f[3], fg[3];
            ndem_dem_point_law(sim, &in, old_point(pr, pt->id), hp, &fn, ft, elastic, dissip);
            for (int q = 0; q < 3; q++) {
                f[q] = -fn * pt->n[q] + ft[q]; /* on the body */
                fg[q] = -f[q];
            }
            ndem_loads_add(sim, pr->geometry, pt->x, fg, none);
            ndem_loads_add(sim, bd->geometry, pt->x, f, none);
            *deepest = fmax(*deepest, pt->depth);
        }
    }
    memcpy(pr->dem, next, sizeof next);
    return touching > 0;
}

int ndem_rcontact_dem_forces(ndem_sim *sim)
{
    ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    if (!c) return 0;
    if (ndem_rc_body_pairs(sim, 0)) return -1; /* two bodies touching now */
    double elastic = 0, dissip = 0, deepest = 0;
    long touching = 0;
    for (int k = 0; k < c->pair_count; k++)
        touching += pair_forces(sim, &c->pair[k], &elastic, &dissip, &deepest);
    ndem_step_stats *s = &sim->stats;
    sim->dem->dissipated += dissip;
    s->contacts += touching;
    s->geometry_contacts += touching;
    s->max_overlap = fmax(s->max_overlap, deepest);
    s->elastic_energy += elastic;
    s->dissipated_energy = sim->dem->dissipated;
    return 0;
}

size_t ndem_rcontact_dem_state_size(const ndem_sim *sim)
{
    const ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    return c ? (size_t)c->geo_pairs * NDEM_RC_POINTS * NDEM_SHAPE_HIST : 0;
}

void ndem_rcontact_dem_state_write(const ndem_sim *sim, double *out)
{
    const ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    for (int k = 0; c && k < c->geo_pairs; k++)
        memcpy(out + (size_t)k * NDEM_RC_POINTS * NDEM_SHAPE_HIST, c->pair[k].dem,
               sizeof c->pair[k].dem);
}

int ndem_rcontact_dem_state_read(ndem_sim *sim, const void *in, size_t count)
{
    ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    if (count != ndem_rcontact_dem_state_size(sim)) return -1;
    const unsigned char *p = in;
    for (int k = 0; c && k < c->geo_pairs; k++)
        memcpy(c->pair[k].dem, p + (size_t)k * sizeof c->pair[k].dem, sizeof c->pair[k].dem);
    return 0;
}

_Static_assert(NDEM_RC_BODY_ENTRY == 2 + NDEM_RC_POINTS * NDEM_SHAPE_HIST,
               "a checkpoint entry is the two bodies and the pair's history");

/* A pair of two bodies with a point kept from this step. */
static int pair_in_use(const ndem_rc_pair *pr)
{
    for (int t = 0; t < NDEM_RC_POINTS; t++)
        if (pr->dem[t][1] != 0) return 1;
    return 0;
}

int ndem_rcontact_dem_has_body_pairs(const ndem_sim *sim)
{
    const ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    return c && c->hull_bodies >= 2;
}

size_t ndem_rcontact_dem_body_entries(const ndem_sim *sim)
{
    const ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    size_t n = 0;
    for (int k = c ? c->geo_pairs : 0; c && k < c->pair_count; k++) n += pair_in_use(&c->pair[k]);
    return n;
}

void ndem_rcontact_dem_body_write(const ndem_sim *sim, double *out)
{
    const ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    for (int k = c ? c->geo_pairs : 0; c && k < c->pair_count; k++) {
        const ndem_rc_pair *pr = &c->pair[k];
        if (!pair_in_use(pr)) continue;
        out[0] = pr->body;
        out[1] = pr->other;
        memcpy(out + 2, pr->dem, sizeof pr->dem);
        out += NDEM_RC_BODY_ENTRY;
    }
}

int ndem_rcontact_dem_body_read(ndem_sim *sim, const void *in, size_t entries)
{
    ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    if (!c) return entries ? -1 : 0;
    if (entries > (size_t)c->body_count * (size_t)c->body_count ||
        ndem_rc_body_pairs_set(c, (long)entries))
        return -1;
    /* the entries become the list of pairs of two bodies, as written: in
     * (body, other) order, each a pair of two bodies with hulls */
    for (size_t e = 0; e < entries; e++) {
        double head[2];
        const unsigned char *p =
            (const unsigned char *)in + e * NDEM_RC_BODY_ENTRY * sizeof(double);
        memcpy(head, p, sizeof head);
        if (!(head[0] >= 0 && head[0] < head[1] && head[1] < c->body_count)) return -1;
        int b = (int)head[0], q = (int)head[1];
        if (b != head[0] || q != head[1] || c->shape[b].radius <= 0 || c->shape[q].radius <= 0)
            return -1;
        ndem_rc_pair *pr = &c->pair[c->geo_pairs + e];
        if (e > 0 && (pr[-1].body > b || (pr[-1].body == b && pr[-1].other >= q))) return -1;
        memset(pr, 0, sizeof *pr);
        *pr = (ndem_rc_pair){
            .body = b, .other = q, .feature = -1, .geometry = sim->rigid->body[q].geometry};
        memcpy(pr->dem, p + sizeof head, sizeof pr->dem);
    }
    return 0;
}
