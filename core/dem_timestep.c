/* dem_timestep.c - the stable time step of smooth DEM, computed from the
 * scene definition alone so the job validator can refuse a step before any
 * simulation exists (issue 5: "reject a job whose time_step exceeds it"). */
#include "material.h"
#include "ndem.h"

#include <math.h>

static double dist_min_radius(const ndem_radius_dist *r)
{
    if (r->kind == NDEM_RADIUS_UNIFORM) return r->min;
    double m = INFINITY;
    int n = r->kind == NDEM_RADIUS_VALUES ? r->count : 1;
    for (int i = 0; i < n; i++) m = fmin(m, r->values[i]);
    return m;
}

/* pi sqrt(m / k): m the mass of the smallest particle, k the stiffness of
 * the stiffest pair it can form (the stiffest modulus). Hertz stiffness is
 * its tangent 3/2 k_n delta^(1/2) at an overlap of 5% of that radius. */
/* Modulus of a material pair as the engine mixes it (material.c). */
static double pair_modulus(const ndem_scene_def *def, int a, int b)
{
    for (int i = 0; i < def->contact_material_count; i++) {
        const ndem_contact_material_def *c = &def->contact_materials[i];
        if (((c->material_a == a && c->material_b == b) ||
             (c->material_a == b && c->material_b == a)) &&
            c->young_modulus > 0)
            return c->young_modulus;
    }
    double ea = def->materials[a].young_modulus, eb = def->materials[b].young_modulus;
    return 2.0 * ea * eb / (ea + eb);
}

double ndem_dem_stable_step(const ndem_scene_def *def)
{
    double rmin = INFINITY, rho_min = INFINITY, emax = 0;
    int nm = def->material_count;
    char used[256] = {0}, wall[256] = {0}; /* materials of particles, of geometry */
    for (int i = 0; i < def->generator_count; i++) {
        const ndem_generator_def *g = &def->generators[i];
        if (g->type == NDEM_GENERATOR_LIST) {
            for (long k = 0; k < g->list_count; k++) rmin = fmin(rmin, g->spheres[4 * k + 3]);
        } else {
            rmin = fmin(rmin, dist_min_radius(&g->radius));
        }
        rho_min = fmin(rho_min, def->materials[g->material].density);
        if (g->material < 256) used[g->material] = 1;
    }
    for (int i = 0; i < def->emitter_count; i++) {
        rmin = fmin(rmin, dist_min_radius(&def->emitters[i].radius));
        rho_min = fmin(rho_min, def->materials[def->emitters[i].material].density);
        if (def->emitters[i].material < 256) used[def->emitters[i].material] = 1;
    }
    for (int i = 0; i < def->geometry_count; i++)
        if (def->geometry[i].material < 256) wall[def->geometry[i].material] = 1;
    for (int a = 0; a < nm && a < 256; a++)
        for (int b = 0; b < nm && b < 256; b++)
            if (used[a] && (used[b] || wall[b])) emax = fmax(emax, pair_modulus(def, a, b));
    if (!isfinite(rmin) || !isfinite(rho_min) || emax <= 0) return INFINITY;
    int bonded = 0;
    for (int i = 0; i < def->generator_count; i++) bonded |= def->generators[i].bonded;
    double m = rho_min * 4.0 / 3.0 * M_PI * rmin * rmin * rmin, k;
    if (def->solver.contact_model == NDEM_MODEL_LINEAR ||
        def->solver.contact_model == NDEM_MODEL_LINEAR_ELASTIC6 ||
        def->solver.contact_model == NDEM_MODEL_LUDING) {
        /* seed 002 eq. (3) with both lengths rmin: pi rmin E / 2 */
        k = 0.5 * M_PI * rmin * emax;
    } else {
        /* the stiffest contact is against a wall (d* = 2 rmin) */
        k = 1.5 * ndem_hertz_stiffness(emax, 0.0, 2.0 * rmin) * sqrt(0.05 * rmin);
        if (def->solver.contact_model == NDEM_MODEL_HUNT_CROSSLEY)
            for (int i = 0; i < def->contact_material_count; i++) {
                const ndem_contact_material_def *c = &def->contact_materials[i];
                double ex = c->exponent, kk = c->stiffness;
                if (kk > 0) k = fmax(k, ex * kk * pow(0.05 * rmin, ex - 1.0));
            }
    }
    if (bonded) k = fmax(k, 0.5 * M_PI * rmin * emax); /* a bond: E pi r^2 / (2 r) */
    for (int i = 0; i < def->contact_material_count; i++)
        if (bonded) k = fmax(k, def->contact_materials[i].bond_stiffness);
    return M_PI * sqrt(m / k);
}
