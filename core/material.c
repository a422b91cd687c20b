/* material.c - the material pair table (AGX 35.4). */
#include "material.h"

#include <math.h>
#include <stdlib.h>

double ndem_hertz_stiffness(double young_modulus, double poisson_ratio, double d_eff)
{
    return young_modulus * sqrt(2.0 * d_eff) / (3.0 * (1.0 - poisson_ratio * poisson_ratio));
}

/* +0 exactly: the row bounds it gives are +0 too (rows.h, ndem_packet_bounds) */
static int plus_zero(double v) { return v == 0 && !signbit(v); }

int ndem_material_table_init(ndem_material_table *t, const ndem_scene_def *def)
{
    int n = def->material_count;
    t->count = n;
    t->row_bounds = 0;
    t->density = calloc((size_t)(n > 0 ? n : 1), sizeof *t->density);
    t->young = calloc((size_t)(n > 0 ? n : 1), sizeof *t->young);
    t->pairs = calloc((size_t)(n > 0 ? n * n : 1), sizeof *t->pairs);
    if (!t->density || !t->young || !t->pairs) {
        ndem_material_table_destroy(t);
        return -1;
    }
    ndem_contact_material_def dflt = ndem_default_contact_material_def();
    for (int a = 0; a < n; a++) {
        const ndem_material_def *ma = &def->materials[a];
        t->density[a] = ma->density;
        t->young[a] = ma->young_modulus;
        for (int b = 0; b < n; b++) {
            const ndem_material_def *mb = &def->materials[b];
            const ndem_contact_material_def *c = &dflt;
            for (int i = 0; i < def->contact_material_count; i++) {
                const ndem_contact_material_def *ci = &def->contact_materials[i];
                if ((ci->material_a == a && ci->material_b == b) ||
                    (ci->material_a == b && ci->material_b == a))
                    c = ci;
            }
            ndem_pair_params *p = &t->pairs[a * n + b];
            double ea = ma->young_modulus, eb = mb->young_modulus;
            p->young_modulus = c->young_modulus > 0 ? c->young_modulus : 2.0 * ea * eb / (ea + eb);
            p->poisson_ratio = 0.5 * (ma->poisson_ratio + mb->poisson_ratio);
            p->viscosity = 0.5 * (ma->viscosity + mb->viscosity);
            p->friction = c->friction;
            p->rolling = c->rolling_resistance;
            /* one coefficient bounds all three rolling rows unless the pair
             * sets the twist (AGX 35.4.4, Wang et al. eqs. 28-34) */
            p->twisting =
                c->twisting_resistance >= 0 ? c->twisting_resistance : c->rolling_resistance;
            p->restitution = c->restitution;
            p->adhesion = c->adhesion;
            p->adhesive_overlap = c->adhesive_overlap;
            p->damping_time = c->damping_time;
            p->stiffness_ratio = c->stiffness_ratio;
            p->stiffness = c->stiffness;
            p->exponent = c->exponent;
            p->velocity_friction = c->velocity_friction;
            p->hamaker = c->hamaker;
            p->bond_stiffness = c->bond_stiffness;
            p->char_len = c->char_len;
            p->dynamic_friction = c->dynamic_friction >= 0 ? c->dynamic_friction : c->friction;
            p->bond_damping = c->bond_damping;
            p->bond_max_force = c->bond_max_force;
            p->bond_max_torque = c->bond_max_torque;
            p->vdw_saturation = c->vdw_saturation;
            t->row_bounds |= !plus_zero(p->twisting) || p->adhesion > 0;
        }
    }
    return 0;
}

void ndem_material_table_destroy(ndem_material_table *t)
{
    free(t->density);
    free(t->young);
    free(t->pairs);
    t->density = NULL;
    t->young = NULL;
    t->pairs = NULL;
    t->count = 0;
}
