/* dem_timestep.c - the stable time step of smooth DEM, computed from the
 * scene definition alone so the job validator can refuse a step before any
 * simulation exists (issue 5: "reject a job whose time_step exceeds it"). */
#include "dem.h"
#include "material.h"
#include "ndem.h"
#include "shape.h"
#include "vec.h"

#include <math.h>

static double dist_min_radius(const ndem_radius_dist *r)
{
    if (r->kind == NDEM_RADIUS_UNIFORM) return r->min;
    double m = INFINITY;
    int n = r->kind == NDEM_RADIUS_VALUES ? r->count : 1;
    for (int i = 0; i < n; i++) m = fmin(m, r->values[i]);
    return m;
}

/* How much lighter, at a contact point, a shaped particle is than the
 * sphere of its radius (docs/shapes.md): the sphere's volume over the
 * shape's, times 1 + V R^2 / I_min for a push at the bounding radius R
 * about the centre of mass that also turns the body (the effective mass
 * 1 / (1/m + R^2 / I) of a corner). 1 for a sphere or a shape that does not
 * build (the engine refuses it). */
static double shape_lightness(const ndem_particle_shape_def *p)
{
    if (p->type == NDEM_PARTICLE_SPHERE || !p->data) return 1.0;
    ndem_shape s;
    char err[200];
    if (ndem_shape_from_def(p, 1.0, &s, err, sizeof err)) return 1.0;
    double moments[3], q[4], c = ndem_norm(s.mass.centroid), v = s.mass.volume;
    ndem_mass_props_principal(s.mass.inertia, moments, q);
    double reach = 1.0 + c; /* the bounding radius about the centroid, at most */
    double f = v > 0 && moments[0] > 0
                   ? 4.0 / 3.0 * M_PI / v * (1.0 + v * reach * reach / moments[0])
                   : 1.0;
    ndem_shape_clear(&s);
    return f;
}

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

/* Restitution and exponent of a material pair as the engine takes them. */
static const ndem_contact_material_def *pair_def(const ndem_scene_def *def, int a, int b,
                                                 const ndem_contact_material_def *dflt)
{
    const ndem_contact_material_def *c = dflt;
    for (int i = 0; i < def->contact_material_count; i++) {
        const ndem_contact_material_def *ci = &def->contact_materials[i];
        if ((ci->material_a == a && ci->material_b == b) ||
            (ci->material_a == b && ci->material_b == a))
            c = ci;
    }
    return c;
}

/* Symplectic Euler (dem.c) on m x'' = -k x - g x', damping from the old
 * velocity, is stable while a + 2 b < 4 with a = (omega h)^2, b = h g / m
 * (Jury's test of z^2 - (2 - a - b) z + 1 - b): with g = 2 zeta m omega,
 * omega h < 2 (sqrt(1 + zeta^2) - zeta). Taken for the stiffest contact the
 * scene can make (the smallest, lightest particle, the stiffest pair modulus;
 * a particle pair has m* = m/2, a wall m* = m) and the largest damping ratio
 * of its material pairs. Hertz-like laws stiffen with the overlap: their
 * tangent stiffness is taken at an overlap of 5% of the smallest radius (an
 * impact at a few m/s on a soft material goes deeper; "auto" keeps a wide
 * margin for that and for particles with many contacts). */
static void stiffest(const ndem_scene_def *def, double *w2_out, double *zeta_out, double *edge_out)
{
    double rmin = INFINITY, rho_min = INFINITY, w2 = 0, zeta = 0, nu = 0, edge = 0;
    *w2_out = *zeta_out = *edge_out = 0;
    int nm = def->material_count, model = def->solver.contact_model;
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
    if (!isfinite(rmin) || !isfinite(rho_min)) return;
    for (int a = 0; a < nm && a < 256; a++)
        if (used[a]) nu = fmax(nu, def->materials[a].poisson_ratio);
    double light = 1.0;
    for (int i = 0; i < def->generator_count; i++)
        light = fmax(light, shape_lightness(&def->generators[i].shape));
    for (int i = 0; i < def->emitter_count; i++)
        light = fmax(light, shape_lightness(&def->emitters[i].shape));
    double m = rho_min * 4.0 / 3.0 * M_PI * rmin * rmin * rmin / light, dc = 0.05 * rmin;
    ndem_contact_material_def dflt = ndem_default_contact_material_def();
    double done_e[64], done_n[64];
    int nseen = 0;
    for (int a = 0; a < nm && a < 256; a++)
        for (int b = 0; b < nm && b < 256; b++) {
            if (!used[a] || !(used[b] || wall[b])) continue;
            double e = pair_modulus(def, a, b), k;
            const ndem_contact_material_def *c = pair_def(def, a, b, &dflt);
            /* a particle pair: d* = r, m* = m/2; a wall: d* = 2 r, m* = m */
            for (int w = 0; w < 2; w++) {
                if (w == 0 && !used[b]) continue;
                if (w == 1 && !wall[b]) continue;
                double d_eff = w ? 2.0 * rmin : rmin, m_eff = w ? m : 0.5 * m;
                if (model == NDEM_MODEL_LINEAR || model == NDEM_MODEL_LINEAR_ELASTIC6 ||
                    model == NDEM_MODEL_LUDING) {
                    /* Woo eq. (3), both lengths rmin: pi rmin E / 2 */
                    k = (model == NDEM_MODEL_LUDING && c->stiffness > 0) ? c->stiffness
                                                                         : 0.5 * M_PI * rmin * e;
                } else if (model == NDEM_MODEL_HUNT_CROSSLEY && c->stiffness > 0) {
                    k = c->exponent * c->stiffness * pow(dc, c->exponent - 1.0);
                } else {
                    double ex = model == NDEM_MODEL_HUNT_CROSSLEY ? c->exponent : 1.5;
                    k = ex * ndem_hertz_stiffness(e, nu, d_eff) * pow(dc, ex - 1.0);
                }
                w2 = fmax(w2, k / m_eff);
            }
            /* the mapping takes milliseconds: each (e, n) once */
            int seen = 0;
            for (int i = 0; i < nseen && !seen; i++)
                seen = done_e[i] == c->restitution && done_n[i] == c->exponent;
            if (seen) continue;
            if (nseen < 64) {
                done_e[nseen] = c->restitution;
                done_n[nseen++] = c->exponent;
            }
            double p = ndem_dem_law_damping(model, c->restitution, c->exponent);
            /* hunt_crossley's ratio grows with the overlap: taken at the deepest
             * scaled overlap of a collision, ((n + 1) / 2)^(1 / (n + 1)) (undamped) */
            double y = pow(0.5 * (c->exponent + 1.0), 1.0 / (c->exponent + 1.0));
            double zp = ndem_dem_law_zeta(model, p, c->exponent, y);
            zeta = fmax(zeta, zp);
            if (zp >= 1.0) edge = fmax(edge, ndem_dem_law_edge(model) * zp); /* overdamped */
        }
    if (w2 <= 0) return;
    int bonded = 0;
    double emax = 0;
    for (int a = 0; a < nm && a < 256; a++)
        if (used[a]) emax = fmax(emax, def->materials[a].young_modulus);
    for (int i = 0; i < def->generator_count; i++) bonded |= def->generators[i].bonded;
    if (bonded) w2 = fmax(w2, 0.5 * M_PI * rmin * emax / (0.5 * m)); /* a bond: E pi r^2 / (2 r) */
    for (int i = 0; i < def->contact_material_count; i++)
        if (bonded) w2 = fmax(w2, def->contact_materials[i].bond_stiffness / (0.5 * m));
    *w2_out = w2;
    *zeta_out = zeta;
    *edge_out = edge;
}

double ndem_dem_stable_step(const ndem_scene_def *def)
{
    double w2, zeta, edge;
    stiffest(def, &w2, &zeta, &edge);
    return w2 > 0 ? 2.0 * (sqrt(1.0 + zeta * zeta) - zeta) / sqrt(w2) : INFINITY;
}

/* "auto": 0.05 of the stable step (margin for deep impacts and many
 * contacts). The first and last step of a contact act for the part of the
 * step in contact (dem.c), which leaves an overdamped dashpot (zeta >= 1:
 * hertz below e of about 0.12, luding below 0.14) moving e by about kappa b,
 * b = h g / m = 2 zeta omega h (dem_models.c): there h <= 0.015 / (2 kappa
 * zeta omega), zeta the largest of the material pairs' and omega the
 * stiffest contact's, keeps it within 1.5%. */
double ndem_dem_auto_step(const ndem_scene_def *def)
{
    double w2, zeta, edge;
    stiffest(def, &w2, &zeta, &edge);
    if (!(w2 > 0)) return INFINITY;
    double h = 0.05 * 2.0 * (sqrt(1.0 + zeta * zeta) - zeta) / sqrt(w2);
    if (edge > 0) h = fmin(h, 0.015 / (2.0 * edge * sqrt(w2)));
    return h;
}
