/* dem_models.c - how each smooth-DEM normal law maps a restitution e onto its
 * damping, and how a dashpot is made exact for the explicit step.
 *
 * Every normal law scales, with x = L y and t = T s, to a dimensionless
 * collision y'' = -F(y, y'; p), y(0) = 0, y'(0) = 1, whose rebound speed is
 * the restitution: a function e(p) of the law's damping parameter p alone.
 * It is integrated once per material pair and inverted by bisection, so every
 * model restitutes its e exactly whatever the impact speed:
 *   linear        F = y + p y'                 (may pull at the end, p = 2 zeta)
 *   luding        F = max(y + p y', 0)         (never pulls: Schwager and
 *                                               Poeschel 2007, e(zeta) differs)
 *   hertz         F = max(y^1.5 + p y^0.25 y', 0)   (Tsuji et al. 1992 eq. 10:
 *                 the dashpot p sqrt(m* k_n) delta^(1/4) keeps one damping
 *                 ratio at every overlap, so e does not depend on the impact
 *                 speed and a contact that forms at rest is damped like one
 *                 that forms in a collision)
 *   hunt_crossley F = max(y^n + p y^n y', 0)   (Muth et al. eq. 3 with
 *                 3 (1 - e^2) / 4 replaced by the exact p: chi = p / v0)
 * Table rows, not if-chains: a new law adds a row. */
#include "dem.h"

#include <math.h>
#include <stdlib.h>

typedef struct dem_law {
    int model;
    int clamp; /* 1: the force never pulls */
    /* elastic force and damping coefficient of the scaled law at y */
    double (*elastic)(double y, double n);
    double (*damper)(double y, double n);
    /* scaled tangent stiffness dF/dy at y, for the damping ratio */
    double (*tangent)(double y, double n);
    /* how much of e an overdamped dashpot (zeta >= 1) b = h g / m still
     * moves, kappa b, once the first and last step of a contact act for the
     * part of the step in contact (dem.c): the worst over the phases of the
     * restitution test at 0.05 of the stable step was 0.22 b for luding at
     * e = 0.1 (the clamp parts the pair within a step), 0.31 b for hertz (at
     * 5 m/s); underdamped, every law stays within 0.13 b, about 1% at 0.05
     * of the stable step, and the linear law is never overdamped */
    double edge;
} dem_law;

static double lin_el(double y, double n) { return (void)n, y; }
static double lin_damp(double y, double n) { return (void)y, (void)n, 1.0; }
static double lin_tan(double y, double n) { return (void)y, (void)n, 1.0; }
static double hz_el(double y, double n) { return (void)n, y * sqrt(y); }
static double hz_damp(double y, double n) { return (void)n, sqrt(sqrt(y)); }
static double hz_tan(double y, double n) { return (void)n, 1.5 * sqrt(y); }
static double hc_el(double y, double n) { return pow(y, n); }
static double hc_damp(double y, double n) { return pow(y, n); }
static double hc_tan(double y, double n) { return n * pow(y, n - 1.0); }

static const dem_law laws[] = {
    {NDEM_MODEL_LINEAR, 0, lin_el, lin_damp, lin_tan, 0.0},
    {NDEM_MODEL_LINEAR_ELASTIC6, 0, lin_el, lin_damp, lin_tan, 0.0},
    {NDEM_MODEL_LUDING, 1, lin_el, lin_damp, lin_tan, 0.25},
    {NDEM_MODEL_HERTZ, 1, hz_el, hz_damp, hz_tan, 0.35},
    {NDEM_MODEL_HUNT_CROSSLEY, 1, hc_el, hc_damp, hc_tan, 0.0},
};

static const dem_law *law_of(int model)
{
    for (size_t i = 0; i < sizeof laws / sizeof laws[0]; i++)
        if (laws[i].model == model) return &laws[i];
    return &laws[3];
}

static double accel(const dem_law *l, double p, double n, double y, double v)
{
    double yy = fmax(y, 0.0);
    double f = l->elastic(yy, n) + p * l->damper(yy, n) * v;
    if (l->clamp && f < 0) f = 0;
    return -f;
}

double ndem_dem_law_restitution(int model, double p, double n)
{
    const dem_law *l = law_of(model);
    /* RK4 at ds = 1e-3 of the scaled time (a contact lasts about 3): the
     * rebound is exact to about 1e-6, well inside the 2% asked of e */
    double y = 0, v = 1, ds = 1e-3;
    for (int i = 0; i < 400000; i++) {
        double k1y = v, k1v = accel(l, p, n, y, v);
        double k2y = v + 0.5 * ds * k1v, k2v = accel(l, p, n, y + 0.5 * ds * k1y, k2y);
        double k3y = v + 0.5 * ds * k2v, k3v = accel(l, p, n, y + 0.5 * ds * k2y, k3y);
        double k4y = v + ds * k3v, k4v = accel(l, p, n, y + ds * k3y, k4y);
        double y1 = y + ds / 6 * (k1y + 2 * k2y + 2 * k3y + k4y);
        double v1 = v + ds / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
        if (y1 <= 0 && i > 0) {
            /* the crossing of y = 0, linearly between the two points */
            double w = y / (y - y1);
            return fmin(-(v + w * (v1 - v)), 1.0);
        }
        y = y1;
        v = v1;
    }
    return 0.0;
}

double ndem_dem_law_damping(int model, double e, double n)
{
    if (e >= 1.0 || model == NDEM_MODEL_LINEAR_ELASTIC6) return 0.0;
    e = fmax(e, 1e-3);
    if (model == NDEM_MODEL_LINEAR) { /* closed form: e = exp(-pi zeta / sqrt(1 - zeta^2)) */
        double l = log(e);
        return -2.0 * l / sqrt(M_PI * M_PI + l * l);
    }
    double lo = 0, hi = 1;
    while (ndem_dem_law_restitution(model, hi, n) > e && hi < 1e6) hi *= 2;
    for (int i = 0; i < 48 && hi - lo > 1e-9 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (ndem_dem_law_restitution(model, mid, n) > e) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

double ndem_dem_law_zeta(int model, double p, double n, double y)
{
    const dem_law *l = law_of(model);
    double kt = l->tangent(y, n);
    return kt > 0 ? p * l->damper(y, n) / (2.0 * sqrt(kt)) : 0.0;
}

double ndem_dem_law_edge(int model) { return law_of(model)->edge; }

/* Symplectic Euler on m x'' = -k x - g x' with the damping from the old
 * velocity: per step the state turns by theta and shrinks by s = sqrt(1 - b),
 * b = h g / m: z = s e^(i theta) solves z^2 - (2 - a - b) z + (1 - b) = 0,
 * a = (omega h)^2. Half an oscillation then restitutes s^(pi / theta); the
 * continuous law restitutes exp(-pi zeta / sqrt(1 - zeta^2)). Equal when
 * s = exp(-q theta), q = zeta / sqrt(1 - zeta^2); the sum of the roots,
 * 2 s cos(theta) = 1 + s^2 - a, then says |1 - z|^2 = a:
 *   G(theta) = (1 - s)^2 + 4 s sin^2(theta / 2) = (omega h)^2,
 * smooth and increasing in theta, solved by Newton's method from the
 * continuous theta = omega h sqrt(1 - zeta^2). (A fixed-point iteration on
 * b diverged for zeta above about 0.75 and gave up to 7 times the dashpot:
 * hunt_crossley at e = 0.2 lost 3% of its e at any step.) Overdamped
 * (zeta >= 1, hertz and luding below e of about 0.12 and 0.14): the b whose
 * slow real root is the law's, z = exp(-omega h (zeta - sqrt(zeta^2 - 1))),
 * the mode that decides the rebound; it meets the critical b within
 * (omega h)^3. */
double ndem_dem_discrete_damping(double zeta, double omega_h)
{
    double a = omega_h * omega_h, b = 2.0 * zeta * omega_h;
    if (zeta <= 0 || !(omega_h < 2.0)) return b; /* 2: the undamped stability limit */
    if (zeta >= 1.0) {
        double zs = exp(-omega_h * (zeta - sqrt(zeta * zeta - 1.0)));
        return (zs * zs - (2.0 - a) * zs + 1.0) / (1.0 - zs);
    }
    double r = sqrt(1.0 - zeta * zeta), q = zeta / r, th = omega_h * r;
    for (int i = 0; i < 12; i++) {
        double om = -expm1(-q * th), s = 1.0 - om, sh = sin(0.5 * th);
        double g = om * om + 4.0 * s * sh * sh - a;
        double dg = 2.0 * s * (q * (cos(th) - s) + sin(th));
        if (!(dg > 0)) break;
        double d = g / dg;
        th = fmax(th - d, 0.5 * th);
        if (fabs(d) <= 1e-15 * th) break;
    }
    return -expm1(-2.0 * q * th);
}

/* b(w) / w is smooth in w = omega h (b(w) -> 2 zeta w as w -> 0): tabulated on
 * DAMP_NODES equal steps up to where b passes `cap` (beyond, the callers clamp;
 * the exact iteration still answers there) and read back by cubic Lagrange
 * interpolation on the four nearest nodes: about 30 flops in place of six
 * acos/exp rounds per contact and step (dem_lanes.c reads it lane by lane). */
#define DAMP_NODES NDEM_DAMP_NODES

int ndem_damp_table_init(ndem_damp_table *t, double zeta, double cap)
{
    t->zeta = zeta;
    t->end = 0; /* until checked: the exact iteration everywhere */
    t->g = malloc(sizeof(double) * DAMP_NODES);
    if (!t->g) return -1;
    /* up to the first w past the cap (b grows with w), at most omega h = 1 */
    double end = zeta > 0 ? 1.25 * cap / (2.0 * zeta) : 1.0;
    while (end < 1.0 && ndem_dem_discrete_damping(zeta, end) < cap) end *= 1.25;
    end = fmin(end, 1.0);
    double step = end / (DAMP_NODES - 1);
    t->g[0] = 2.0 * zeta;
    for (int j = 1; j < DAMP_NODES; j++)
        t->g[j] = ndem_dem_discrete_damping(zeta, j * step) / (j * step);
    t->inv_step = 1.0 / step;
    /* The iteration is smooth in w where it converges (zeta up to ~0.8);
     * near zeta = 1 its six rounds jump about, and the table is not used.
     * Checked between the nodes from 0.01 of the range on (below, the
     * iteration's own acos loses digits as 1e-16 / w^2). */
    for (int j = DAMP_NODES / 100; j < DAMP_NODES - 2; j++) {
        double w = (j + 0.5) * step, e = ndem_dem_discrete_damping(zeta, w);
        t->end = (DAMP_NODES - 2) * step; /* the last interval is not used */
        double v = ndem_damp_table_eval(t, w);
        t->end = 0;
        if (!(fabs(v - e) <= 1e-9 * e)) return 0;
    }
    t->end = (DAMP_NODES - 2) * step;
    return 0;
}

double ndem_damp_table_eval(const ndem_damp_table *t, double omega_h)
{
    if (!(omega_h < t->end) || omega_h < 0) return ndem_dem_discrete_damping(t->zeta, omega_h);
    double x = omega_h * t->inv_step;
    int j = (int)x - 1;
    j = j < 0 ? 0 : j > DAMP_NODES - 4 ? DAMP_NODES - 4 : j;
    double u = x - j, u1 = u - 1, u2 = u - 2, u3 = u - 3;
    const double *g = &t->g[j];
    double v = -u1 * u2 * u3 / 6 * g[0] + u * u2 * u3 / 2 * g[1] - u * u1 * u3 / 2 * g[2] +
               u * u1 * u2 / 6 * g[3];
    return v * omega_h;
}

void ndem_damp_table_free(ndem_damp_table *t)
{
    free(t->g);
    t->g = NULL;
}
