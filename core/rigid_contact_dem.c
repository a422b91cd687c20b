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
 * by its load (force, and torque about its centre of mass). Serial, in
 * pair order: any thread count gives the same bits. */
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
    const int mb = sim->geometry[bd->geometry].material, mg = sim->geometry[pr->geometry].material;
    ndem_contact_point pts[NDEM_CONTACT_POINTS];
    int n = ndem_rc_pair_points(sim, pr, 0.0, pts), touching = 0;
    for (int j = 0; j < n; j++) touching += pts[j].depth > 0;
    double next[NDEM_RC_POINTS][NDEM_SHAPE_HIST];
    memset(next, 0, sizeof next);
    if (touching > 0) {
        const double d = c->d_eq[pr->body], l = 0.5 * d, none[3] = {0, 0, 0};
        const double *young = sim->materials.young;
        ndem_dem_point in = {.pp = ndem_pair(&sim->materials, mb, mg),
                             .m = 1.0 / (bd->inv_mass * touching),
                             .split = 1.0 / touching,
                             .d_eff = d,
                             /* the linear law's connector: the body's half size on both sides, as
                              * a shaped particle against geometry */
                             .kn_linear =
                                 sim->solver.contact_model == NDEM_MODEL_LINEAR
                                     ? ndem_dem_linear_connector(l, l, young[mb], young[mg])
                                     : 0.0,
                             .pair = mb * sim->materials.count + mg};
        int slot = 0;
        for (int j = 0; j < n; j++) {
            const ndem_contact_point *pt = &pts[j];
            if (pt->depth <= 0) continue;
            double ua[3], ub[3], u[3];
            ndem_rc_body_velocity(sim, bd, pt->x, ua);
            ndem_geometry_surface_velocity(&sim->pose[pr->geometry], pt->x, ub);
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

void ndem_rcontact_dem_forces(ndem_sim *sim)
{
    ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    if (!c) return;
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
}

size_t ndem_rcontact_dem_state_size(const ndem_sim *sim)
{
    const ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    return c ? (size_t)c->pair_count * NDEM_RC_POINTS * NDEM_SHAPE_HIST : 0;
}

void ndem_rcontact_dem_state_write(const ndem_sim *sim, double *out)
{
    const ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    for (int k = 0; c && k < c->pair_count; k++)
        memcpy(out + (size_t)k * NDEM_RC_POINTS * NDEM_SHAPE_HIST, c->pair[k].dem,
               sizeof c->pair[k].dem);
}

int ndem_rcontact_dem_state_read(ndem_sim *sim, const void *in, size_t count)
{
    ndem_rcontact *c = sim->rigid ? sim->rigid->contact : NULL;
    if (count != ndem_rcontact_dem_state_size(sim)) return -1;
    const unsigned char *p = in;
    for (int k = 0; c && k < c->pair_count; k++)
        memcpy(c->pair[k].dem, p + (size_t)k * sizeof c->pair[k].dem, sizeof c->pair[k].dem);
    return 0;
}
