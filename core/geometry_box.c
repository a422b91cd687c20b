/* geometry_box.c - a box, axis-aligned in its reference frame (the pose
 * layer turns it): a container (inside, six walls) or a solid obstacle. */
#include "geometry.h"
#include "vec.h"

#include <math.h>

static void box_bounds(const ndem_geometry_def *g, double *lo, double *hi)
{
    for (int k = 0; k < 3; k++) {
        lo[k] = g->min[k];
        hi[k] = g->max[k];
    }
}

/* Closest point of a solid box; pushes out through the nearest face when
 * the centre is inside. */
static int solid_box(const ndem_geometry_def *g, const double *x, double r, double margin,
                     ndem_geo_hit *hits)
{
    double q[3], d[3];
    int inside = 1;
    for (int k = 0; k < 3; k++) {
        q[k] = fmin(fmax(x[k], g->min[k]), g->max[k]);
        d[k] = x[k] - q[k];
        if (d[k] != 0.0) inside = 0;
    }
    if (!inside) {
        double dist = ndem_norm(d);
        double n[3] = {-d[0] / dist, -d[1] / dist, -d[2] / dist};
        return ndem_geo_add_hit(hits, 0, n, r - dist, 0, margin);
    }
    double best = INFINITY, n[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        double lo = x[k] - g->min[k], hi = g->max[k] - x[k];
        if (lo < best) {
            best = lo;
            n[0] = n[1] = n[2] = 0;
            n[k] = 1.0;
        }
        if (hi < best) {
            best = hi;
            n[0] = n[1] = n[2] = 0;
            n[k] = -1.0;
        }
    }
    return ndem_geo_add_hit(hits, 0, n, r + best, 0, margin);
}

/* A container: each wall is its own feature (2 k low, 2 k + 1 high). */
static int box_collide(const ndem_geometry_def *g, const double *x, double r, double margin,
                       ndem_geo_hit *hits)
{
    if (!g->inside) return solid_box(g, x, r, margin, hits);
    int n = 0;
    for (int k = 0; k < 3; k++) {
        double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
        lo[k] = -1.0;
        hi[k] = 1.0;
        n = ndem_geo_add_hit(hits, n, lo, r - (x[k] - g->min[k]), 2 * k, margin);
        n = ndem_geo_add_hit(hits, n, hi, r - (g->max[k] - x[k]), 2 * k + 1, margin);
    }
    return n;
}

/* A container wall's hit alone (feature 2 k: low, 2 k + 1: high), with
 * box_collide's operations: the smooth-DEM forces recompute each wall
 * contact's hit every step, and collide's six walls cost three times this.
 * The solid box (one feature) and a hit collide would drop (delta -inf)
 * go through collide. */
static int box_feature_hit(const ndem_geometry_def *g, const double *x, double r, int feature,
                           ndem_geo_hit *hit)
{
    if (!g->inside || feature < 0 || feature > 5) return 0;
    int k = feature / 2, high = feature & 1;
    double n[3] = {0, 0, 0};
    n[k] = high ? 1.0 : -1.0;
    double delta = high ? r - (g->max[k] - x[k]) : r - (x[k] - g->min[k]);
    return ndem_geo_add_hit(hit, 0, n, delta, feature, INFINITY);
}

/* The reference point is the centre. */
static void box_reference(const ndem_geometry_def *g, double c[3], double q[4])
{
    for (int k = 0; k < 3; k++) c[k] = 0.5 * (g->min[k] + g->max[k]);
    ndem_geo_no_turn(q);
}

static void box_translate(ndem_geometry_def *g, const double d[3])
{
    for (int k = 0; k < 3; k++) {
        g->min[k] += d[k];
        g->max[k] += d[k];
    }
}

const ndem_geometry_ops ndem_geometry_box_ops = {
    .name = "box",
    .bounds = box_bounds,
    .collide = box_collide,
    .reference = box_reference,
    .translate = box_translate,
    .symmetric = NULL, /* no turn leaves a box as it is but whole quarter turns */
    .feature_hit = box_feature_hit,
};
