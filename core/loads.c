/* loads.c - the force and torque on each geometry (loads.h). */
#include "loads.h"

#include "sim.h"
#include "vec.h"
#include "walls.h"

void ndem_loads_clear(ndem_sim *sim)
{
    ndem_walls_clear_loads(sim->rigid);
    for (int g = 0; g < sim->geometry_count; g++) {
        double *o = &sim->loads[NDEM_LOAD_STRIDE * g];
        for (int q = 0; q < 6; q++) o[q] = 0.0;
        ndem_sim_geometry_pivot(sim, g, o + 6);
    }
}

void ndem_loads_add(ndem_sim *sim, int g, const double *xa, const double *f, const double *ta)
{
    double *o = &sim->loads[NDEM_LOAD_STRIDE * g];
    double rel[3] = {xa[0] - o[6], xa[1] - o[7], xa[2] - o[8]}, m[3];
    ndem_cross(rel, f, m);
    for (int q = 0; q < 3; q++) {
        o[q] += f[q];
        o[3 + q] += ta[q] + m[q];
    }
}

void ndem_row_impulses(const ndem_sim *sim, long k, double n[3], double t1[3], double t2[3],
                       double lam[6], double *la)
{
    const ndem_contacts *c = &sim->contacts;
    /* the step's impact impulses, in the packets' spent fields (rows.h) */
    const int impact = sim->stats.impacts > 0;
    long at = c->slot[k], p = at / NDEM_LANES;
    int l = (int)(at % NDEM_LANES);
    const ndem_packet *P = &c->packets[p];
    float nf[3], tf[3];
    for (int q = 0; q < 3; q++) nf[q] = P->n[q][l];
    ndem_row_tangent(nf, tf);
    for (int q = 0; q < 3; q++) n[q] = nf[q], t1[q] = tf[q];
    ndem_cross(n, t1, t2);
    for (int q = 0; q < 5; q++) lam[q] = P->lam[q][l];
    lam[5] = c->bounds ? c->bounds[p].twist[l] : 0.0f; /* else +0 (rows.h) */
    lam[0] *= (double)P->s[l];
    if (impact)
        for (int q = 0; q < 6; q++) lam[q] += P->impact[q][l];
    *la = P->la[l];
}

void ndem_loads_ndem(ndem_sim *sim)
{
    ndem_loads_clear(sim);
    const ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    const double inv_h = 1.0 / sim->solver.time_step;
    if (sim->geometry_count == 0) return;
    for (long i = 0; i < b->count; i++)
        /* a body's geometry contacts come first in pair order (contacts.h) */
        for (long k = c->start[i]; k < c->start[i + 1] && !ndem_key_is_particle(c->key[k]); k++) {
            double n[3], t1[3], t2[3], lam[6], la;
            ndem_row_impulses(sim, k, n, t1, t2, lam, &la);
            double f[3], ta[3], nf_[3];
            for (int q = 0; q < 3; q++)
                f[q] = (lam[0] * n[q] + lam[1] * t1[q] + lam[2] * t2[q]) * inv_h;
            ndem_cross(n, f, nf_);
            for (int q = 0; q < 3; q++)
                ta[q] = la * nf_[q] + (lam[3] * t1[q] + lam[4] * t2[q] + lam[5] * n[q]) * inv_h;
            ndem_loads_add(sim, c->key[k].b, &b->pos[3 * i], f, ta);
            ndem_walls_add_load(sim->rigid, c->key[k].b, c->key[k].feature, f);
        }
}
