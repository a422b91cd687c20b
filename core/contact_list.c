/* contact_list.c - the contact network of the last step (ndem.h,
 * ndem_sim_copy_contacts): each active contact's bodies, point, normal and
 * forces, for force-chain analysis. NDEM reads the rows' impulses as the
 * geometry loads do (loads.c), smooth DEM the forces dem.c kept. Both walk
 * the contacts serially in pair order, so every thread count gives the
 * same list. */
#include "dem_private.h"
#include "loads.h"
#include "sim.h"
#include "vec.h"

#include <stdlib.h>
#include <string.h>

/* One contact as the set stores it; forces on b. */
typedef struct contact_row {
    double n[3], la, fn, ft[3], tr[3];
} contact_row;

/* NDEM row k: 1 when active (a nonzero normal or friction impulse). */
static int ndem_row(const ndem_sim *sim, long k, contact_row *r)
{
    double t1[3], t2[3], lam[6];
    ndem_row_impulses(sim, k, r->n, t1, t2, lam, &r->la);
    if (lam[0] == 0.0 && lam[1] == 0.0 && lam[2] == 0.0) return 0;
    const double inv_h = 1.0 / sim->solver.time_step;
    r->fn = lam[0] * inv_h;
    for (int q = 0; q < 3; q++) {
        r->ft[q] = (lam[1] * t1[q] + lam[2] * t2[q]) * inv_h;
        r->tr[q] = (lam[3] * t1[q] + lam[4] * t2[q] + lam[5] * r->n[q]) * inv_h;
    }
    return 1;
}

/* Smooth DEM contact k (dem.c's force record): 1 when its force is not
 * zero. The record holds the force and torque on a; b gets the opposite
 * friction and the opposite rolling torque. */
static int dem_row(const ndem_sim *sim, long k, contact_row *r)
{
    const double *f = &sim->dem->force[NDEM_DEM_FORCE * k];
    if (f[0] == 0.0 && f[1] == 0.0 && f[2] == 0.0) return 0;
    memcpy(r->n, &f[9], sizeof r->n);
    r->la = f[12];
    r->fn = f[13];
    double ft_a[3], lever[3];
    for (int q = 0; q < 3; q++) ft_a[q] = f[q] + r->fn * r->n[q]; /* f_a = -fn n + ft_a */
    ndem_cross(r->n, ft_a, lever);
    for (int q = 0; q < 3; q++) {
        r->ft[q] = -ft_a[q];
        r->tr[q] = -(f[3 + q] - r->la * lever[q]); /* torque on a = la n x ft_a + m_r */
    }
    return 1;
}

/* Contact k of the step into r; 1 when active. */
static int row_of(const ndem_sim *sim, long k, contact_row *r)
{
    return sim->dem ? dem_row(sim, k, r) : ndem_row(sim, k, r);
}

static int allocate(ndem_contact_set *s, long n)
{
    size_t m = (size_t)(n > 0 ? n : 1);
    s->a = malloc(m * sizeof *s->a);
    s->b = malloc(m * sizeof *s->b);
    s->feature = malloc(m * sizeof *s->feature);
    s->points = malloc(3 * m * sizeof(double));
    s->normals = malloc(3 * m * sizeof(double));
    s->normal_forces = malloc(m * sizeof(double));
    s->tangential_forces = malloc(3 * m * sizeof(double));
    s->rolling_torques = malloc(3 * m * sizeof(double));
    return s->a && s->b && s->feature && s->points && s->normals && s->normal_forces &&
                   s->tangential_forces && s->rolling_torques
               ? 0
               : -1;
}

int ndem_sim_copy_contacts(const ndem_sim *sim, ndem_contact_set *out)
{
    const ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    memset(out, 0, sizeof *out);
    out->step = sim->step;
    out->time = sim->time;
    /* contacts are last step's: none before a step or after a restore (not
     * checkpointed), none after a failed step (it may have stopped halfway) */
    long nc = sim->step > 0 && !sim->failed && c->start && c->count > 0 ? c->count : 0;
    if (sim->dem && (!sim->dem->force || sim->dem->cap < nc)) nc = 0;
    long active = 0;
    contact_row r;
    for (long k = 0; k < nc; k++) active += row_of(sim, k, &r);
    /* NDEM's shaped pairs (rows_general.h), after the SIMD rows */
    const ndem_general *g = sim->step > 0 && !sim->failed ? sim->general : NULL;
    long ng = g ? g->pair_count : 0;
    long ids[2];
    int feature;
    double gx[3], gn[3], gfn, gft[3];
    for (long k = 0; k < ng; k++)
        active += ndem_general_contact(sim, k, ids, &feature, gx, gn, &gfn, gft);
    if (allocate(out, active)) {
        ndem_contact_set_free(out);
        return -1;
    }
    long j = 0;
    for (long k = 0; k < nc && j < active; k++) {
        if (!row_of(sim, k, &r)) continue;
        ndem_contact_key key = c->key[k];
        const double *xa = &b->pos[3 * key.a];
        out->a[j] = b->id[key.a];
        out->b[j] = ndem_key_is_particle(key) ? b->id[key.b] : -1L - key.b;
        out->feature[j] = ndem_key_is_particle(key) ? -1 : key.feature;
        for (int q = 0; q < 3; q++) {
            out->points[3 * j + q] = xa[q] + r.la * r.n[q];
            out->normals[3 * j + q] = r.n[q];
            out->tangential_forces[3 * j + q] = r.ft[q];
            out->rolling_torques[3 * j + q] = r.tr[q];
        }
        out->normal_forces[j] = r.fn;
        j++;
    }
    for (long k = 0; k < ng && j < active; k++) {
        if (!ndem_general_contact(sim, k, ids, &feature, gx, gn, &gfn, gft)) continue;
        out->a[j] = ids[0];
        out->b[j] = ids[1];
        out->feature[j] = feature;
        for (int q = 0; q < 3; q++) {
            out->points[3 * j + q] = gx[q];
            out->normals[3 * j + q] = gn[q];
            out->tangential_forces[3 * j + q] = gft[q];
            out->rolling_torques[3 * j + q] = 0.0;
        }
        out->normal_forces[j] = gfn;
        j++;
    }
    out->count = j;
    return 0;
}

void ndem_contact_set_free(ndem_contact_set *s)
{
    if (!s) return;
    free(s->a);
    free(s->b);
    free(s->feature);
    free(s->points);
    free(s->normals);
    free(s->normal_forces);
    free(s->tangential_forces);
    free(s->rolling_torques);
    memset(s, 0, sizeof *s);
}
