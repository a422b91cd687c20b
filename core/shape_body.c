/* shape_body.c - shaped particles as rigid bodies (shape_body.h): the
 * scene's templates with their mass and full inertia, each particle's
 * template, and the rotation step with the gyroscopic term. */
#include "shape_body.h"
#include "geometry.h"
#include "sim.h"
#include "vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The inverse of a 3x3 (row-major) by cofactors; 0, or -1 when singular. */
static int invert3(const double m[9], double out[9])
{
    double c[9] = {m[4] * m[8] - m[5] * m[7], m[5] * m[6] - m[3] * m[8], m[3] * m[7] - m[4] * m[6],
                   m[2] * m[7] - m[1] * m[8], m[0] * m[8] - m[2] * m[6], m[1] * m[6] - m[0] * m[7],
                   m[1] * m[5] - m[2] * m[4], m[2] * m[3] - m[0] * m[5], m[0] * m[4] - m[1] * m[3]};
    double det = m[0] * c[0] + m[1] * c[1] + m[2] * c[2];
    if (!(fabs(det) > 0) || !isfinite(det)) return -1;
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) out[3 * r + k] = c[3 * k + r] / det;
    return 0;
}

static void mat_vec(const double m[9], const double v[3], double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m[3 * r] * v[0] + m[3 * r + 1] * v[1] + m[3 * r + 2] * v[2];
}

static void mat_t_vec(const double m[9], const double v[3], double out[3])
{
    for (int r = 0; r < 3; r++) out[r] = m[r] * v[0] + m[3 + r] * v[1] + m[6 + r] * v[2];
}

static double distance(const double *p, const double *c)
{
    double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    return ndem_norm(d);
}

static const char *source_name(int source, int *index)
{
    *index = source >= 0 ? source : -1 - source;
    return source >= 0 ? "particles" : "emitters";
}

/* The template of `source` at radius r, built once. Returns its index, or
 * -1 with a message. */
static int template_of(ndem_shapes *s, const ndem_particle_shape_def *def, int source, double r,
                       double density, char *err, size_t err_len)
{
    int mine = 0, index;
    for (int i = 0; i < s->count; i++) {
        if (s->t[i].source == source && s->t[i].radius == r) return i;
        mine += s->t[i].source == source;
    }
    const char *what = source_name(source, &index);
    if (mine == NDEM_SHAPE_RADII_MAX) {
        snprintf(err, err_len,
                 "%s %d: shaped particles take at most %d different radii (one "
                 "template each)",
                 what, index, NDEM_SHAPE_RADII_MAX);
        return -1;
    }
    if (s->count == s->capacity) {
        int cap = s->capacity ? 2 * s->capacity : 8;
        ndem_body_shape *t = realloc(s->t, sizeof *t * (size_t)cap);
        if (!t) {
            snprintf(err, err_len, "out of memory building particle shapes");
            return -1;
        }
        s->t = t;
        s->capacity = cap;
    }
    ndem_body_shape *b = &s->t[s->count];
    memset(b, 0, sizeof *b);
    char why[200];
    if (ndem_shape_from_def(def, r, &b->shape, why, sizeof why)) {
        snprintf(err, err_len, "%s %d: shape: %s", what, index, why);
        return -1;
    }
    const ndem_mass_props *mp = &b->shape.mass;
    memcpy(b->centroid, mp->centroid, sizeof b->centroid);
    b->mass = density * mp->volume;
    for (int k = 0; k < 9; k++) b->inertia[k] = density * mp->inertia[k];
    if (!(b->mass > 0) || invert3(b->inertia, b->inv_inertia)) {
        snprintf(err, err_len, "%s %d: shape has no mass or inertia", what, index);
        ndem_shape_clear(&b->shape);
        return -1;
    }
    double bound = 0;
    const ndem_shape *sh = &b->shape;
    if (sh->type == NDEM_SHAPE_CLUMP)
        for (int m = 0; m < sh->n_spheres; m++)
            bound = ndem_max(bound,
                             distance(sh->spheres + 4 * m, b->centroid) + sh->spheres[4 * m + 3]);
    for (int v = 0; v < sh->poly.n_vertices; v++)
        bound = ndem_max(bound, distance(sh->poly.vertices + 3 * v, b->centroid));
    for (int k = 0; k < sh->n_pieces; k++)
        for (int v = 0; v < sh->pieces[k].poly.n_vertices; v++)
            bound = ndem_max(bound, distance(sh->pieces[k].poly.vertices + 3 * v, b->centroid));
    b->bound = bound;
    b->d_eq = 2.0 * cbrt(3.0 * mp->volume / (4.0 * M_PI));
    b->radius = r;
    b->source = source;
    return s->count++;
}

/* Every template one generator or emitter can need: one per radius value. */
static int source_templates(ndem_shapes *s, const ndem_particle_shape_def *shape, int source,
                            const ndem_radius_dist *dist, const ndem_generator_def *list,
                            double density, char *err, size_t err_len)
{
    int index;
    const char *what = source_name(source, &index);
    if (list) {
        for (long k = 0; k < list->list_count; k++)
            if (template_of(s, shape, source, list->spheres[4 * k + 3], density, err, err_len) < 0)
                return -1;
        return 0;
    }
    if (dist->kind == NDEM_RADIUS_UNIFORM) {
        snprintf(err, err_len,
                 "%s %d: a shaped particle needs a fixed radius or a list of radius values "
                 "(one template per radius), not a uniform distribution",
                 what, index);
        return -1;
    }
    int n = dist->kind == NDEM_RADIUS_VALUES ? dist->count : 1;
    for (int i = 0; i < n; i++)
        if (template_of(s, shape, source, dist->values[i], density, err, err_len) < 0) return -1;
    return 0;
}

/* What this version runs shaped particles with; a message otherwise. */
static int scene_supported(const ndem_sim *sim, const ndem_scene_def *def, char *err,
                           size_t err_len)
{
    const ndem_solver_def *sv = &def->solver;
    if (sv->method == NDEM_METHOD_DEM && sv->contact_model != NDEM_MODEL_HERTZ &&
        sv->contact_model != NDEM_MODEL_HUNT_CROSSLEY && sv->contact_model != NDEM_MODEL_LINEAR) {
        snprintf(err, err_len,
                 "particle shapes run with \"method\": \"ndem\", or \"dem\" with "
                 "\"contact_model\" \"hertz\", \"hunt_crossley\" or \"linear\", only in this "
                 "version (docs/shapes.md)");
        return 0;
    }
    return !ndem_shapes_geometry_refused(sv->method, sim->geometry, sim->geometry_count, err,
                                         err_len);
}

/* Each solid box as a polyhedron: its corners about its centre. */
static int solid_boxes(const ndem_sim *sim, ndem_shapes *s, char *err, size_t err_len)
{
    s->boxes = calloc((size_t)sim->geometry_count + 1, sizeof *s->boxes);
    if (!s->boxes) {
        snprintf(err, err_len, "out of memory building particle shapes");
        return -1;
    }
    s->box_count = sim->geometry_count;
    for (int g = 0; g < sim->geometry_count; g++) {
        const ndem_geometry_def *geo = &sim->geometry[g];
        if (geo->type != NDEM_GEOMETRY_BOX || geo->inside) continue;
        double pts[24], half[3];
        for (int k = 0; k < 3; k++) half[k] = 0.5 * (geo->max[k] - geo->min[k]);
        for (int i = 0; i < 8; i++)
            for (int k = 0; k < 3; k++) pts[3 * i + k] = (i >> k & 1) ? half[k] : -half[k];
        char why[200];
        if (ndem_shape_polyhedron(pts, 8, ndem_norm(half), &s->boxes[g], why, sizeof why)) {
            snprintf(err, err_len, "geometry %d: %s", g, why);
            return -1;
        }
    }
    return 0;
}

int ndem_shapes_create(const ndem_sim *sim, const ndem_scene_def *def, ndem_shapes **out, char *err,
                       size_t err_len)
{
    *out = NULL;
    int any = 0;
    for (int i = 0; i < def->generator_count; i++)
        any |= def->generators[i].shape.type != NDEM_PARTICLE_SPHERE;
    for (int i = 0; i < def->emitter_count; i++)
        any |= def->emitters[i].shape.type != NDEM_PARTICLE_SPHERE;
    if (!any) return 0;
    if (!scene_supported(sim, def, err, err_len)) return -1;
    ndem_shapes *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_len, "out of memory building particle shapes");
        return -1;
    }
    for (int i = 0; i < def->generator_count; i++) {
        const ndem_generator_def *g = &def->generators[i];
        if (g->shape.type == NDEM_PARTICLE_SPHERE) continue;
        if (g->bonded || g->bond_pair_count > 0) {
            snprintf(err, err_len, "particles %d: bonds join spheres, not shaped particles", i);
            ndem_shapes_destroy(s);
            return -1;
        }
        if (source_templates(s, &g->shape, i, &g->radius, g->type == NDEM_GENERATOR_LIST ? g : NULL,
                             sim->materials.density[g->material], err, err_len)) {
            ndem_shapes_destroy(s);
            return -1;
        }
    }
    for (int i = 0; i < def->emitter_count; i++) {
        const ndem_emitter_def *e = &def->emitters[i];
        if (e->shape.type != NDEM_PARTICLE_SPHERE &&
            source_templates(s, &e->shape, -1 - i, &e->radius, NULL,
                             sim->materials.density[e->material], err, err_len)) {
            ndem_shapes_destroy(s);
            return -1;
        }
    }
    if (solid_boxes(sim, s, err, err_len)) {
        ndem_shapes_destroy(s);
        return -1;
    }
    /* a source's templates are consecutive, generators' before emitters' */
    for (int i = 0, listed = -1; i < s->count; i++) {
        if (i == 0 || s->t[i].source != s->t[i - 1].source) listed++;
        s->t[i].listed = listed;
    }
    *out = s;
    return 0;
}

void ndem_shapes_destroy(ndem_shapes *s)
{
    if (!s) return;
    for (int i = 0; i < s->count; i++) ndem_shape_clear(&s->t[i].shape);
    free(s->t);
    for (int g = 0; g < s->box_count; g++) ndem_shape_clear(&s->boxes[g]);
    free(s->boxes);
    free(s->hist);
    free(s->next);
    free(s);
}

void ndem_shapes_assign(ndem_sim *sim, long first, long end, int source, int fixed_rotation)
{
    ndem_shapes *s = sim->shapes;
    ndem_bodies *b = &sim->bodies;
    if (!s) return;
    for (long i = first; i < end; i++) {
        int t = -1;
        for (int k = 0; k < s->count && t < 0; k++)
            if (s->t[k].source == source && s->t[k].radius == b->radius[i]) t = k;
        if (t < 0) continue; /* a plain sphere's source */
        const ndem_body_shape *bs = &s->t[t];
        b->shape[i] = t;
        b->radius[i] = bs->bound;
        b->inv_mass[i] = 1.0 / bs->mass;
        /* the scalar is read by sphere-only code paths; the largest inverse
         * principal moment bounds every direction */
        double tr = bs->inv_inertia[0] + bs->inv_inertia[4] + bs->inv_inertia[8];
        b->inv_inertia[i] = fixed_rotation ? 0.0 : tr;
    }
}

void ndem_shapes_inv_inertia(const ndem_sim *sim, long i, double out[9])
{
    const ndem_bodies *b = &sim->bodies;
    if (b->inv_inertia[i] == 0) {
        memset(out, 0, 9 * sizeof(double));
        return;
    }
    const ndem_body_shape *bs = &sim->shapes->t[b->shape[i]];
    double r[9], t[9];
    ndem_quat_matrix(&b->quat[4 * i], r);
    for (int p = 0; p < 3; p++) /* t = R I^-1 */
        for (int q = 0; q < 3; q++)
            t[3 * p + q] = r[3 * p] * bs->inv_inertia[q] + r[3 * p + 1] * bs->inv_inertia[3 + q] +
                           r[3 * p + 2] * bs->inv_inertia[6 + q];
    for (int p = 0; p < 3; p++) /* t R^T */
        for (int q = 0; q < 3; q++)
            out[3 * p + q] =
                t[3 * p] * r[3 * q] + t[3 * p + 1] * r[3 * q + 1] + t[3 * p + 2] * r[3 * q + 2];
}

void ndem_shapes_turn(ndem_sim *sim, long i, const double tau[3], double h)
{
    ndem_bodies *b = &sim->bodies;
    if (b->inv_inertia[i] == 0) return; /* fixed rotation */
    const ndem_body_shape *bs = &sim->shapes->t[b->shape[i]];
    const double *in = bs->inertia;
    double r[9], w0[3], tb[3], w1[3];
    double *w = &b->vel[6 * i + 3];
    ndem_quat_matrix(&b->quat[4 * i], r);
    mat_t_vec(r, w, w0);
    mat_t_vec(r, tau, tb);
    memcpy(w1, w0, sizeof w1);
    /* F(w1) = I (w1 - w0) - h tau + h wm x I wm = 0, wm = (w0 + w1) / 2;
     * J = I + h/2 ([wm] I - [I wm]) */
    for (int it = 0; it < 20; it++) {
        double wm[3] = {0.5 * (w0[0] + w1[0]), 0.5 * (w0[1] + w1[1]), 0.5 * (w0[2] + w1[2])};
        double iwm[3], gyro[3], d[3] = {w1[0] - w0[0], w1[1] - w0[1], w1[2] - w0[2]}, id[3];
        mat_vec(in, wm, iwm);
        ndem_cross(wm, iwm, gyro);
        mat_vec(in, d, id);
        double f[3], jac[9], jinv[9], dw[3];
        for (int q = 0; q < 3; q++) f[q] = id[q] - h * tb[q] + h * gyro[q];
        for (int col = 0; col < 3; col++) {
            double icol[3] = {in[col], in[3 + col], in[6 + col]}, e[3] = {0, 0, 0}, c1[3], c2[3];
            e[col] = 1;
            ndem_cross(wm, icol, c1); /* [wm] I e */
            ndem_cross(e, iwm, c2);   /* -[I wm] e = e x I wm */
            for (int row = 0; row < 3; row++)
                jac[3 * row + col] = in[3 * row + col] + 0.5 * h * (c1[row] + c2[row]);
        }
        if (invert3(jac, jinv)) break;
        mat_vec(jinv, f, dw);
        for (int q = 0; q < 3; q++) w1[q] -= dw[q];
        if (ndem_norm(dw) <= 1e-15 * (ndem_norm(w1) + 1e-300)) break;
    }
    mat_vec(r, w1, w);
}

double ndem_shapes_rot_energy(const ndem_sim *sim, long i)
{
    const ndem_bodies *b = &sim->bodies;
    if (b->inv_inertia[i] == 0) return 0;
    const ndem_body_shape *bs = &sim->shapes->t[b->shape[i]];
    double r[9], wb[3], iw[3];
    ndem_quat_matrix(&b->quat[4 * i], r);
    mat_t_vec(r, &b->vel[6 * i + 3], wb);
    mat_vec(bs->inertia, wb, iw);
    return 0.5 * ndem_dot(wb, iw);
}

void ndem_shapes_collider(const ndem_sim *sim, long i, ndem_shape *ball, ndem_collider *c)
{
    const ndem_bodies *b = &sim->bodies;
    const double *x = &b->pos[3 * i], *q = &b->quat[4 * i];
    int t = sim->shapes ? b->shape[i] : -1;
    if (t < 0) {
        memset(ball, 0, sizeof *ball);
        ball->type = NDEM_SHAPE_SPHERE;
        ball->radius = b->radius[i];
        ndem_collider_place(c, ball, x, q);
        return;
    }
    const ndem_body_shape *bs = &sim->shapes->t[t];
    double r[9], rc[3], origin[3];
    ndem_quat_matrix(q, r);
    mat_vec(r, bs->centroid, rc);
    for (int k = 0; k < 3; k++) origin[k] = x[k] - rc[k];
    ndem_collider_place(c, &bs->shape, origin, q);
}
