/* dem_shape.c - smooth DEM contacts of shaped particles (docs/shapes.md):
 * the narrow phase's manifold (shape_collide.c) gives up to 4 points (a
 * clump up to 16), each point its own normal force from its depth and its
 * own tangential spring kept by the point's persistent id; the sums act on
 * both bodies with the torques of the real lever arms. The pair's stiffness
 * is split among its points (a face lying on a face is not n times stiffer
 * than the law says) and the Hertz size d* is the volume-equivalent diameter
 * of a shaped body. Laws: hertz, linear and hunt_crossley, each point's
 * normal force with the first and last step's share (ndem_dem_edge_force);
 * no rolling resistance (a flat face resists rolling by its points' lever
 * arms). */
#include "dem_private.h"
#include "dem_shape.h"
#include "shape_body.h"
#include "sim.h"
#include "vec.h"
#include "walls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ndem_dem_shape_pair(const ndem_sim *sim, ndem_contact_key key)
{
    const int *s = sim->bodies.shape;
    return s[key.a] >= 0 || (ndem_key_is_particle(key) && s[key.b] >= 0);
}

static double body_size(const ndem_sim *sim, long i)
{
    int t = sim->bodies.shape[i];
    return t >= 0 ? sim->shapes->t[t].d_eq : 2.0 * sim->bodies.radius[i];
}

double ndem_dem_linear_connector(double la, double lb, double ea, double eb)
{
    double l = fmin(la, lb), area = M_PI * l * l;
    return 1.0 / (la / (ea * area) + lb / (eb * area));
}

/* The linear law's k_n (Woo eq. 3, as dem.c for spheres): a connector of
 * the two bodies' volume-equivalent radii in series, of cross-section
 * pi min(l)^2; against geometry the other length is the body's own. */
static double linear_stiffness(const ndem_sim *sim, long a, ndem_contact_key key, int mb)
{
    if (sim->solver.contact_model != NDEM_MODEL_LINEAR) return 0;
    double la = 0.5 * body_size(sim, a);
    double lb = ndem_key_is_particle(key) ? 0.5 * body_size(sim, key.b) : la;
    return ndem_dem_linear_connector(la, lb, sim->materials.young[sim->bodies.material[a]],
                                     sim->materials.young[mb]);
}

/* Last step's points of the contact with this key, or NULL. */
static const double *old_points(const ndem_sim *sim, ndem_contact_key key)
{
    const ndem_dem *d = sim->dem;
    const ndem_shapes *s = sim->shapes;
    if (key.a >= d->hist_bodies || !s->hist) return NULL;
    for (long k = d->hist_start[key.a]; k < d->hist_start[key.a + 1]; k++)
        if (ndem_key_same(d->hist_key[k], key)) return &s->hist[NDEM_SHAPE_HIST_CONTACT * k];
    return NULL;
}

static void limit(double *v, double lim)
{
    double len = ndem_norm(v);
    if (len > lim) {
        double f = len > 0 ? lim / len : 0;
        for (int q = 0; q < 3; q++) v[q] *= f;
    }
}

/* The step's dashpot h g / m of a continuous dashpot g on stiffness k, mass m
 * (as dem.c's laws make theirs). */
static double step_damping(double g, double k, double m, double h)
{
    if (g <= 0) return 0;
    double zeta = g / (2.0 * sqrt(m * k)), wh = h * sqrt(k / m);
    return k > 0 ? ndem_dem_discrete_damping(zeta, wh) : g * h / m;
}

void ndem_dem_point_motion(ndem_dem_point *p, const ndem_contact_point *pt, const double u[3])
{
    double vn = ndem_dot(u, pt->n);
    memcpy(p->n, pt->n, sizeof p->n);
    p->delta = pt->depth;
    p->ddelta = -vn;
    for (int q = 0; q < 3; q++) p->ut[q] = u[q] - vn * pt->n[q];
}

void ndem_dem_point_law(const ndem_sim *sim, const ndem_dem_point *p, const double *old,
                        double *hist, double *fn_out, double ft[3], double *elastic, double *dissip)
{
    const double h = sim->solver.time_step;
    const ndem_pair_params *pp = p->pp;
    double delta = p->delta, nu = pp->poisson_ratio, fn, kt, m = p->m;
    double spring[3] = {0, 0, 0};
    if (old) {
        memcpy(spring, &old[3], sizeof spring);
        double len = ndem_norm(spring), sn = ndem_dot(spring, p->n);
        for (int q = 0; q < 3; q++) spring[q] -= sn * p->n[q];
        double l2 = ndem_norm(spring);
        for (int q = 0; q < 3 && l2 > 0; q++) spring[q] *= len / l2;
    }
    double u_old, u_new;
    /* the point's own first and last step (a point new to the manifold is
     * a first step; its mass share m moves it) */
    const ndem_dem_edge edge = {delta, p->ddelta, h, 1.0 / m, old == NULL};
    if (sim->solver.contact_model == NDEM_MODEL_HUNT_CROSSLEY) {
        double kn =
            p->split * (pp->stiffness > 0 ? pp->stiffness
                                          : ndem_hertz_stiffness(pp->young_modulus, nu, p->d_eff));
        double ex = pp->exponent, dn = pow(delta, ex);
        double v0 = old ? old[2] : ndem_max(p->ddelta, 1e-3);
        hist[2] = v0;
        double ktan = ex * kn * pow(delta, ex - 1.0);
        double gc = kn * dn * sim->dem->damp[p->pair] / v0;
        double dashpot = m / h * ndem_min(step_damping(gc, ktan, m, h), 0.25);
        fn = ndem_dem_edge_force(&edge, kn * dn, dashpot, 1);
        *dissip += (fn - kn * dn) * p->ddelta * h;
        *elastic += kn * dn * delta / (ex + 1.0);
        kt = pp->stiffness_ratio * ktan;
        double lim = pp->friction * fn, trial[3];
        u_old = 0.5 * kt * ndem_dot(spring, spring);
        /* Brendel-Dippel, as dem.c: the spring stretches while it sticks */
        for (int q = 0; q < 3; q++) trial[q] = spring[q] + p->ut[q] * h;
        if (kt * ndem_norm(trial) <= lim || ndem_norm(trial) < ndem_norm(spring))
            memcpy(spring, trial, sizeof spring);
        if (kt * ndem_norm(spring) > lim) limit(spring, kt > 0 ? lim / kt : 0);
        double gt = ndem_min(2.0 * sqrt(m * kt), 0.15 * m / h);
        for (int q = 0; q < 3; q++) ft[q] = kt * spring[q] + gt * p->ut[q];
        limit(ft, lim);
    } else if (sim->solver.contact_model == NDEM_MODEL_LINEAR) {
        /* dem.c's linear law per point: k_n split among the points, the
         * dashpot of the point's mass share mapped onto e, a tangential
         * spring k_t = stiffness_ratio k_n cut at mu f_n; no clamp, as for
         * spheres (the dashpot's pull at the end is what gives e) */
        double kn = p->split * p->kn_linear;
        double dashpot = m / h * step_damping(sim->dem->damp[p->pair] * sqrt(m * kn), kn, m, h);
        fn = ndem_dem_edge_force(&edge, kn * delta, dashpot, 0);
        *dissip += fabs((fn - kn * delta) * p->ddelta * h);
        *elastic += 0.5 * kn * delta * delta;
        kt = pp->stiffness_ratio * kn;
        u_old = 0.5 * kt * ndem_dot(spring, spring);
        for (int q = 0; q < 3; q++) spring[q] += p->ut[q] * h;
        for (int q = 0; q < 3; q++) ft[q] = kt * spring[q];
        limit(ft, pp->friction * fmax(fn, 0.0));
        for (int q = 0; q < 3; q++) spring[q] = kt > 0 ? ft[q] / kt : 0;
    } else { /* hertz, AGX eq. 35.1 with Tsuji's dashpot and Mindlin's spring */
        double kn = p->split * ndem_hertz_stiffness(pp->young_modulus, nu, p->d_eff);
        double sd = sqrt(delta), ktan = 1.5 * kn * sd;
        double gc = sim->dem->damp[p->pair] * sqrt(m * kn * sd);
        double bh =
            gc <= 0 ? 0 : ndem_damp_table_eval(&sim->dem->dashpot[p->pair], h * sqrt(ktan / m));
        double dashpot = m / h * ndem_min(bh, 0.25);
        fn = ndem_dem_edge_force(&edge, kn * delta * sd, dashpot, 1);
        *dissip += (fn - kn * delta * sd) * p->ddelta * h;
        *elastic += 0.4 * kn * delta * delta * sd;
        double gmod = pp->young_modulus / (2.0 * (1.0 + nu));
        kt = p->split * 8.0 * gmod / (2.0 * (2.0 - nu)) * sqrt(0.5 * p->d_eff * delta);
        u_old = 0.5 * kt * ndem_dot(spring, spring);
        for (int q = 0; q < 3; q++) spring[q] += p->ut[q] * h;
        for (int q = 0; q < 3; q++) ft[q] = kt * spring[q];
        limit(ft, pp->friction * fn);
        for (int q = 0; q < 3; q++) spring[q] = kt > 0 ? ft[q] / kt : 0;
    }
    memcpy(&hist[3], spring, sizeof spring);
    u_new = 0.5 * kt * ndem_dot(spring, spring);
    *elastic += u_new;
    *dissip += ndem_dot(ft, p->ut) * h - (u_new - u_old);
    *fn_out = fn;
}

/* b's velocity at world point x: a particle's rigid motion, or the
 * geometry's surface. */
static void velocity_at(const ndem_sim *sim, ndem_contact_key key, const double *x, double *u)
{
    const ndem_bodies *b = &sim->bodies;
    if (ndem_key_is_particle(key)) {
        const double *v = &b->vel[6 * key.b], *xb = &b->pos[3 * key.b];
        double r[3] = {x[0] - xb[0], x[1] - xb[1], x[2] - xb[2]}, wr[3];
        ndem_cross(&v[3], r, wr);
        for (int q = 0; q < 3; q++) u[q] = v[q] + wr[q];
        return;
    }
    ndem_geometry_surface_velocity(&sim->pose[key.b], x, u);
    if (sim->geometry[key.b].walls.enabled)
        ndem_walls_face_velocity(sim->rigid, key.b, key.feature, u);
}

void ndem_dem_shape_force(const ndem_sim *sim, long k, double *out, double *energy)
{
    const ndem_bodies *b = &sim->bodies;
    ndem_contact_key key = sim->contacts.key[k];
    int a = key.a, particle = ndem_key_is_particle(key);
    double *hist = &sim->shapes->next[NDEM_SHAPE_HIST_CONTACT * k];
    memset(hist, 0, NDEM_SHAPE_HIST_CONTACT * sizeof(double));
    ndem_shape ball_a, ball_b;
    ndem_collider ca, cb;
    ndem_shapes_collider(sim, a, &ball_a, &ca);
    int mb;
    double m_eff, d_eff;
    if (particle) {
        ndem_shapes_collider(sim, key.b, &ball_b, &cb);
        mb = b->material[key.b];
        m_eff = 1.0 / (b->inv_mass[a] + b->inv_mass[key.b]);
        d_eff = 1.0 / (1.0 / body_size(sim, a) + 1.0 / body_size(sim, key.b));
    } else { /* the geometry's points (dem_shape_geo.c) */
        mb = sim->geometry[key.b].material;
        m_eff = 1.0 / b->inv_mass[a];
        d_eff = body_size(sim, a);
    }
    ndem_contact_point pts[NDEM_CONTACT_POINTS];
    int np = particle ? ndem_shape_collide(&ca, &cb, 0.0, pts)
                      : ndem_dem_shape_geometry_points(sim, key, &ca, 0.0, pts);
    int touching = 0;
    for (int j = 0; j < np; j++) touching += pts[j].depth > 0;
    if (touching == 0) return;
    const double *old = old_points(sim, key);
    const double *xa = &b->pos[3 * a], *va = &b->vel[6 * a];
    ndem_dem_point in = {.pp = ndem_pair(&sim->materials, b->material[a], mb),
                         .m = m_eff / touching,
                         .split = 1.0 / touching,
                         .d_eff = d_eff,
                         .kn_linear = linear_stiffness(sim, a, key, mb),
                         .pair = b->material[a] * sim->materials.count + mb};
    const double *xb = particle ? &b->pos[3 * key.b] : xa;
    double fsum = 0, deepest = 0, elastic = 0, dissip = 0;
    int slot = 0;
    for (int j = 0; j < np; j++) {
        const ndem_contact_point *pt = &pts[j];
        if (pt->depth <= 0) continue;
        double ra[3], rb[3], wa[3], ua[3], ub[3], u[3];
        for (int q = 0; q < 3; q++) {
            ra[q] = pt->x[q] - xa[q];
            rb[q] = pt->x[q] - xb[q];
        }
        ndem_cross(&va[3], ra, wa);
        for (int q = 0; q < 3; q++) ua[q] = va[q] + wa[q];
        velocity_at(sim, key, pt->x, ub);
        for (int q = 0; q < 3; q++) u[q] = ub[q] - ua[q];
        ndem_dem_point_motion(&in, pt, u);
        const double *o = NULL;
        for (int t = 0; old && t < NDEM_CONTACT_POINTS && !o; t++) {
            const double *e = &old[NDEM_SHAPE_HIST * t];
            if (e[1] != 0 && e[0] == (double)pt->id) o = e;
        }
        double *hp = &hist[NDEM_SHAPE_HIST * slot++];
        hp[0] = (double)pt->id;
        hp[1] = 1;
        double fn, ft[3], f[3], ta[3], tb[3];
        ndem_dem_point_law(sim, &in, o, hp, &fn, ft, &elastic, &dissip);
        for (int q = 0; q < 3; q++) f[q] = -fn * pt->n[q] + ft[q]; /* on a */
        ndem_cross(ra, f, ta);
        ndem_cross(rb, f, tb);
        for (int q = 0; q < 3; q++) {
            out[q] += f[q];
            out[3 + q] += ta[q];
            if (particle) out[6 + q] -= tb[q];
        }
        fsum += fn;
        if (pt->depth > deepest) { /* the contact network's point and normal */
            deepest = pt->depth;
            memcpy(&out[9], pt->n, 3 * sizeof(double));
            out[12] = ndem_dot(ra, pt->n);
        }
    }
    out[13] = fsum;
    energy[0] = elastic;
    energy[1] = dissip;
    energy[2] = deepest;
}

int ndem_dem_shape_reserve(ndem_sim *sim)
{
    ndem_shapes *s = sim->shapes;
    long nc = sim->contacts.count;
    if (nc <= s->next_cap && s->next) return 0;
    long cap = nc + nc / 2 + 64;
    double *p = realloc(s->next, sizeof(double) * NDEM_SHAPE_HIST_CONTACT * (size_t)cap);
    if (!p) return -1;
    s->next = p;
    s->next_cap = cap;
    return 0;
}

void ndem_dem_shape_keep(ndem_sim *sim)
{
    ndem_shapes *s = sim->shapes;
    double *t = s->hist;
    long tc = s->hist_cap;
    s->hist = s->next;
    s->hist_cap = s->next_cap;
    s->next = t;
    s->next_cap = tc;
}

size_t ndem_dem_shape_state_size(const ndem_sim *sim)
{
    return sim->shapes && sim->dem && sim->shapes->hist
               ? (size_t)sim->dem->hist_count * NDEM_SHAPE_HIST_CONTACT
               : 0;
}

const double *ndem_dem_shape_state(const ndem_sim *sim) { return sim->shapes->hist; }

int ndem_dem_shape_state_read(ndem_sim *sim, const void *in, size_t count)
{
    ndem_shapes *s = sim->shapes;
    long contacts = sim->dem->hist_count;
    if (count != (size_t)contacts * NDEM_SHAPE_HIST_CONTACT) return -1;
    if (count == 0) return 0;
    s->hist = malloc(count * sizeof(double));
    if (!s->hist) return -1;
    memcpy(s->hist, in, count * sizeof(double));
    s->hist_cap = contacts;
    return 0;
}
