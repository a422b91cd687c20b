/* defaults.c - the documented defaults of every definition struct.
 * docs/job.md lists the same values; keep them in step. */
#include "ndem.h"

#include <string.h>

ndem_material_def ndem_default_material_def(void)
{
    ndem_material_def m;
    memset(&m, 0, sizeof m);
    m.density = 2500.0;
    m.young_modulus = 1e8;
    m.poisson_ratio = 0.3;
    m.viscosity = 0.0;
    return m;
}

ndem_contact_material_def ndem_default_contact_material_def(void)
{
    ndem_contact_material_def c;
    memset(&c, 0, sizeof c);
    c.material_a = c.material_b = -1;
    c.friction = 0.5;
    c.rolling_resistance = 0.0;
    c.twisting_resistance = -1.0; /* equal to rolling_resistance (AGX 35.4.4) */
    c.restitution = 0.5;
    c.adhesion = 0.0;
    c.adhesive_overlap = 0.0;
    c.damping_time = 0.0;
    c.young_modulus = 0.0;
    c.stiffness_ratio = 0.2;
    c.stiffness = 0.0;
    c.exponent = 1.5;
    c.velocity_friction = 0;
    c.char_len = 0.0;
    c.dynamic_friction = -1.0;
    c.bond_stiffness = 0.0;
    c.bond_damping = 0.5;
    c.bond_max_force = 0.0;
    c.bond_max_torque = 0.0;
    c.hamaker = 0.0;
    c.vdw_saturation = 0.4e-9;
    return c;
}

ndem_geometry_def ndem_default_geometry_def(void)
{
    ndem_geometry_def g;
    memset(&g, 0, sizeof g);
    g.type = NDEM_GEOMETRY_PLANE;
    g.normal[2] = 1.0;
    g.axis[2] = 1.0;
    return g;
}

static ndem_radius_dist default_radius(void)
{
    ndem_radius_dist r;
    memset(&r, 0, sizeof r);
    r.kind = NDEM_RADIUS_FIXED;
    r.count = 1;
    r.values[0] = 0.005;
    r.weights[0] = 1.0;
    r.min = r.max = 0.005;
    return r;
}

ndem_generator_def ndem_default_generator_def(void)
{
    ndem_generator_def g;
    memset(&g, 0, sizeof g);
    g.type = NDEM_GENERATOR_LATTICE;
    g.radius = default_radius();
    g.seed = 1;
    return g;
}

ndem_emitter_def ndem_default_emitter_def(void)
{
    ndem_emitter_def e;
    memset(&e, 0, sizeof e);
    e.rate = 100.0;
    e.start = 0.0;
    e.stop = 1e30;
    e.max_count = 1000000000L;
    e.radius = default_radius();
    e.seed = 1;
    return e;
}

ndem_solver_def ndem_default_solver_def(void)
{
    ndem_solver_def s;
    memset(&s, 0, sizeof s);
    s.method = NDEM_METHOD_NDEM;
    s.time_step = 0.001;
    s.duration = 1.0;
    s.iterations = 25;
    s.impact_iterations = 10;
    s.warm_start = 1;
    s.warm_start_factor = 0.85;
    s.impact_velocity = 0.0;
    s.tolerance = 0.0;
    s.damping_steps = 2.0;
    s.friction_compliance = 1e-6;
    s.threads = 0;
    s.contact_model = NDEM_MODEL_HERTZ;
    return s;
}

ndem_scene_def ndem_default_scene_def(void)
{
    ndem_scene_def d;
    memset(&d, 0, sizeof d);
    d.gravity[2] = -9.81;
    d.solver = ndem_default_solver_def();
    return d;
}
