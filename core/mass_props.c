/* mass_props.c - volume, centre of mass and inertia per unit density of the
 * analytic shapes that become rigid bodies (`dynamic` boxes and cylinders):
 * the textbook formulas. Meshes and clumps: mass_props_shape.c. */
#include "mass_props.h"

#include <math.h>
#include <string.h>

void ndem_mass_props_box(const double half[3], ndem_mass_props *out)
{
    memset(out, 0, sizeof *out);
    double a2 = half[0] * half[0], b2 = half[1] * half[1], c2 = half[2] * half[2];
    out->volume = 8.0 * half[0] * half[1] * half[2];
    /* sides 2a, 2b, 2c: I_xx = m (4b^2 + 4c^2) / 12 */
    out->inertia[0] = out->volume * (b2 + c2) / 3.0;
    out->inertia[4] = out->volume * (a2 + c2) / 3.0;
    out->inertia[8] = out->volume * (a2 + b2) / 3.0;
}

void ndem_mass_props_cylinder(double radius, double length, const double axis[3],
                              ndem_mass_props *out)
{
    memset(out, 0, sizeof *out);
    double r2 = radius * radius;
    out->volume = M_PI * r2 * length;
    /* about the axis V r^2 / 2, across it V (3 r^2 + L^2) / 12:
     * I = I_perp (1 - u u^T) + I_axis u u^T */
    double ia = 0.5 * out->volume * r2, ip = out->volume * (3.0 * r2 + length * length) / 12.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out->inertia[3 * i + j] = (i == j ? ip : 0.0) + (ia - ip) * axis[i] * axis[j];
}
