/* job_lattice.c - a lattice generator may not pack its particles closer
 * than their size (docs/job.md, `spacing`). Neighbouring sites lie
 * `spacing` apart along x, y or z and the lattice places every particle
 * unrotated with its centre of mass on a site, so two particles of radii
 * r_i, r_j <= r_max at sites s apart along axis k occupy disjoint slabs
 * when s >= r_max * w_k, w_k being the shape's extent along k at radius 1
 * (its axis-aligned box: the centre of mass lies inside it). A sphere's
 * w_k is 2 (spacing >= 2 r_max, touching allowed); a shape's is at most 2
 * (its bounding sphere about the body-frame origin has radius 1), so
 * cubes may sit face to face (spacing = their edge). A lattice packed
 * closer starts every particle inside hundreds of others (a fuzzed job:
 * 1056 cubes of radius 1.015 m at 35 mm, 96 s for 3 steps). */
#include "job_parts.h"

#include <math.h>
#include <string.h>

/* Relative slack for a pitch written as the diameter (0.013 for r 0.0065). */
#define LATTICE_TOUCH_TOLERANCE 1e-9

/* The axis-aligned extent of a shape at radius 1, unrotated: its points
 * (a clump: its spheres' boxes) scaled as core/shape.c scales them. */
static void shape_extent(const ndem_particle_shape_def *def, double w[3])
{
    int n = def->count, stride = 3;
    if (def->type == NDEM_PARTICLE_SPHERE || !def->data || n <= 0) {
        w[0] = w[1] = w[2] = 2.0;
        return;
    }
    if (def->type == NDEM_PARTICLE_CLUMP) {
        stride = 4;
    } else if (def->type == NDEM_PARTICLE_COMPOUND) {
        int points = 0;
        for (int k = 0; k < def->count; k++) points += def->piece_sizes[k];
        n = points;
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double reach = 0.0;
    for (int i = 0; i < n; i++) {
        const double *p = def->data + (size_t)stride * (size_t)i;
        double r = stride == 4 ? p[3] : 0.0;
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], p[k] - r);
            hi[k] = fmax(hi[k], p[k] + r);
        }
        reach = fmax(reach, sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) + r);
    }
    for (int k = 0; k < 3; k++) w[k] = (hi[k] - lo[k]) / reach;
}

void ndem_job_check_lattice(ndem_jc *c, const ndem_generator_def *g, int shape_given)
{
    double s = g->spacing, rmax = g->radius.max;
    if (g->type != NDEM_GENERATOR_LATTICE || !(s > 0.0) || !(rmax > 0.0)) return;
    if (shape_given && g->shape.type == NDEM_PARTICLE_SPHERE) return; /* the shape failed */
    /* the sites generate.c fills (x fastest); which axes hold two neighbours */
    double n[3], total = 1.0;
    for (int k = 0; k < 3; k++) {
        n[k] = floor((g->max[k] - g->min[k]) / s + 1e-9) + 1.0;
        total *= n[k];
    }
    if (g->count > 0) total = fmin(total, (double)g->count);
    int pairs[3] = {n[0] >= 2 && total >= 2, n[1] >= 2 && total > n[0],
                    n[2] >= 2 && total > n[0] * n[1]};
    double w[3];
    shape_extent(&g->shape, w);
    static const char axis[] = "xyz";
    int sphere = g->shape.type == NDEM_PARTICLE_SPHERE;
    for (int k = 0; k < 3; k++) {
        double need = rmax * w[k];
        if (!pairs[k] || s >= need * (1.0 - LATTICE_TOUCH_TOLERANCE)) continue;
        if (sphere)
            ndem_jc_error_at(c, "spacing",
                             "%g m is less than the spheres' largest diameter, %g m (2 x radius "
                             "%g m): neighbouring particles would start inside each other; "
                             "the pitch must be at least the diameter (touching is allowed)",
                             s, need, rmax);
        else
            ndem_jc_error_at(c, "spacing",
                             "%g m is less than the particles' extent along %c, %g m (the shape "
                             "unrotated at the largest radius, %g m, as the lattice places it): "
                             "neighbours along %c would start inside each other; the pitch "
                             "must be at least that extent (touching is allowed)",
                             s, axis[k], need, rmax, axis[k]);
        return; /* one error a generator */
    }
}
