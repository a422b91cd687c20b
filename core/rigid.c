/* rigid.c - rigid bodies of finite mass (`dynamic` geometry, rigid.h).
 *
 * NDEM couples a body into the unchanged SIMD kernel through proxy rows: a
 * row on a body's geometry keeps its own velocity slot, which holds the
 * body's velocity at the contact point (v + w x r) and its spin, with
 * scalar inverse masses that bound the body's true effective inverse mass
 * there from above, times the number of the body's rows in the row's set
 * (mass splitting, Tonge et al. 2012). The rows of a set run in parallel,
 * each against the body as it was when the set began; after the set, one
 * thread sums their impulse changes into the body in row order and the next
 * set's proxies start from the new velocity. A larger diagonal only
 * under-relaxes projected Gauss-Seidel (its fixed point does not depend on
 * it), and the sums run in a fixed order, so any thread count gives the
 * same bits. docs/engine.md, "Dynamic bodies"; docs/physics.md. */
#include "rigid.h"

#include "geometry_mesh.h"
#include "mass_props.h"
#include "rigid_contact.h"
#include "sim.h"
#include "vec.h"
#include "walls.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* m v for a 3x3 row-major m */
static void mat_vec(const double *m, const double *v, double *out)
{
    double r[3];
    for (int i = 0; i < 3; i++) r[i] = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
    memcpy(out, r, sizeof r);
}

/* R I R^T: the body-frame inertia in the world */
static void world_inertia(const double *rot, const double *inertia, double *out)
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * i + j] = rot[3 * i] * inertia[j] + rot[3 * i + 1] * inertia[3 + j] +
                           rot[3 * i + 2] * inertia[6 + j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = t[3 * i] * rot[3 * j] + t[3 * i + 1] * rot[3 * j + 1] +
                             t[3 * i + 2] * rot[3 * j + 2];
}

/* Largest absolute row sum: an upper bound of the largest eigenvalue
 * (Gershgorin), all a proxy's diagonal needs. */
static double row_sum_bound(const double *m)
{
    double b = 0.0;
    for (int i = 0; i < 3; i++)
        b = fmax(b, fabs(m[3 * i]) + fabs(m[3 * i + 1]) + fabs(m[3 * i + 2]));
    return b;
}

/* inv_world = S (S^T I_w S)^-1 S^T for the free turns S (world axes): the
 * locked axes take whatever torque holds them. */
static void update_inertia(const ndem_sim *sim, ndem_rigid_body *bd)
{
    double iw[9], a[9] = {0};
    world_inertia(sim->pose[bd->geometry].rot, bd->inertia, iw);
    int f[3] = {0, 1, 2}, n = 0;
    for (int k = 0; k < 3; k++)
        if (!(bd->rot_lock & (NDEM_LOCK_RX << k))) f[n++] = k;
    memset(bd->inv_world, 0, sizeof bd->inv_world);
    if (n == 1) a[0] = 1.0 / iw[4 * f[0]];
    else if (n == 2) {
        double p = iw[4 * f[0]], q = iw[3 * f[0] + f[1]], s = iw[4 * f[1]], det = p * s - q * q;
        a[0] = s / det, a[1] = a[2] = -q / det, a[3] = p / det;
    } else if (n == 3) {
        double c[9] = {iw[4] * iw[8] - iw[5] * iw[7], iw[2] * iw[7] - iw[1] * iw[8],
                       iw[1] * iw[5] - iw[2] * iw[4], iw[5] * iw[6] - iw[3] * iw[8],
                       iw[0] * iw[8] - iw[2] * iw[6], iw[2] * iw[3] - iw[0] * iw[5],
                       iw[3] * iw[7] - iw[4] * iw[6], iw[1] * iw[6] - iw[0] * iw[7],
                       iw[0] * iw[4] - iw[1] * iw[3]};
        double det = iw[0] * c[0] + iw[1] * c[3] + iw[2] * c[6];
        for (int k = 0; k < 9; k++) a[k] = c[k] / det;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            bd->inv_world[3 * f[i] + f[j]] = a[n == 3 ? 3 * i + j : 2 * i + j];
    bd->im_rot = row_sum_bound(bd->inv_world);
}

/* The body's pose follows its velocities (the pose layer's velocity and
 * spin are the body's). */
static void sync_pose(ndem_sim *sim, const ndem_rigid_body *bd)
{
    ndem_geometry_pose *p = &sim->pose[bd->geometry];
    memcpy(p->velocity, bd->v, sizeof p->velocity);
    memcpy(p->spin, bd->w, sizeof p->spin);
}

/* Mass properties of the shape (a mesh: when closed and oriented), or -1
 * when it has none. */
static int shape_props(const ndem_geometry_def *g, ndem_mass_props *mp)
{
    if (g->type == NDEM_GEOMETRY_BOX) {
        double half[3];
        for (int k = 0; k < 3; k++) half[k] = 0.5 * (g->max[k] - g->min[k]);
        ndem_mass_props_box(half, mp);
        return 0;
    }
    if (g->type == NDEM_GEOMETRY_CYLINDER) {
        ndem_mass_props_cylinder(g->radius, g->length, g->axis, mp);
        return 0;
    }
    if (g->type == NDEM_GEOMETRY_MESH) {
        /* a closed, oriented mesh: the properties its placement computed
         * (core/mesh.c, Eberly's integrals), about its centroid */
        const ndem_mesh *m = g->mesh->mesh;
        if (!m->closed || !m->oriented || !(m->volume > 0)) return -1;
        mp->volume = m->volume;
        for (int k = 0; k < 3; k++) mp->centroid[k] = m->centroid[k] + g->point[k];
        memcpy(mp->inertia, m->inertia, sizeof mp->inertia);
        return 0;
    }
    return -1; /* a plane has no volume */
}

void ndem_rigid_place_pivot(ndem_geometry_def *g)
{
    ndem_mass_props mp;
    if (!g->dynamic.enabled || g->type != NDEM_GEOMETRY_MESH || shape_props(g, &mp)) return;
    memcpy(g->pivot, mp.centroid, sizeof g->pivot);
    g->has_pivot = 1;
}

/* Free translations: the unlocked world axes; a plane moves only along its
 * normal (moving along itself changes nothing), if the locks allow it. */
static void linear_freedom(const ndem_geometry_def *g, unsigned lock, double *pr)
{
    memset(pr, 0, 9 * sizeof(double));
    if (g->type != NDEM_GEOMETRY_PLANE) {
        for (int k = 0; k < 3; k++) pr[4 * k] = lock & (NDEM_LOCK_X << k) ? 0.0 : 1.0;
        return;
    }
    for (int k = 0; k < 3; k++)
        if ((lock & (NDEM_LOCK_X << k)) && g->normal[k] != 0.0) return;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) pr[3 * i + j] = g->normal[i] * g->normal[j];
}

static int body_init(ndem_sim *sim, int gi, ndem_rigid_body *bd, char *err, size_t err_len)
{
    const ndem_geometry_def *g = &sim->geometry[gi];
    const ndem_dynamic_def *d = &g->dynamic;
    memset(bd, 0, sizeof *bd);
    bd->geometry = gi;
    bd->feature = -1;
    if (!(d->mass > 0) || !isfinite(d->mass)) {
        snprintf(err, err_len, "geometry %d: a dynamic body's mass must be positive and finite",
                 gi);
        return -1;
    }
    bd->inv_mass = 1.0 / d->mass;
    bd->rot_lock = d->lock & NDEM_LOCK_ROTATION;
    int given = d->inertia[0] != 0 || d->inertia[1] != 0 || d->inertia[2] != 0;
    for (int k = 0; k < 3 && given; k++)
        if (!(d->inertia[k] > 0) || !isfinite(d->inertia[k])) {
            snprintf(err, err_len,
                     "geometry %d: a dynamic body's inertia must be three positive finite moments "
                     "(or all zero: from the shape)",
                     gi);
            return -1;
        }
    if (given) {
        for (int k = 0; k < 3; k++) bd->inertia[4 * k] = d->inertia[k];
    } else if (bd->rot_lock != NDEM_LOCK_ROTATION) {
        ndem_mass_props mp;
        if (shape_props(g, &mp) || !(mp.volume > 0)) {
            snprintf(err, err_len,
                     "geometry %d: a dynamic %s needs its inertia (or every rotation locked)", gi,
                     ndem_geometry_ops_of(g)->name);
            return -1;
        }
        for (int k = 0; k < 9; k++) bd->inertia[k] = d->mass / mp.volume * mp.inertia[k];
    } else {
        for (int k = 0; k < 3; k++) bd->inertia[4 * k] = 1.0; /* never turns: unused */
    }
    linear_freedom(g, d->lock, bd->lin_free);
    bd->im_lin = row_sum_bound(bd->lin_free) > 0 ? bd->inv_mass : 0.0;
    memcpy(bd->force, d->force, sizeof bd->force);
    update_inertia(sim, bd);
    double iw[9], l[3];
    mat_vec(bd->lin_free, g->velocity, bd->v);
    /* the initial spin on the free turns: w = inv_world I_w w0 */
    world_inertia(sim->pose[gi].rot, bd->inertia, iw);
    mat_vec(iw, g->angular_velocity, l);
    mat_vec(bd->inv_world, l, bd->w);
    sync_pose(sim, bd);
    return 0;
}

int ndem_rigid_create(ndem_sim *sim, char *err, size_t err_len)
{
    int n = 0;
    for (int g = 0; g < sim->geometry_count; g++)
        n += (sim->geometry[g].dynamic.enabled != 0) + ndem_walls_count(&sim->geometry[g]);
    if (n == 0) return 0;
    ndem_rigid *r = calloc(1, sizeof *r);
    if (!r) goto oom;
    sim->rigid = r;
    r->body = calloc((size_t)n, sizeof *r->body);
    r->first = malloc(sizeof(int) * (size_t)sim->geometry_count);
    r->seen = calloc((size_t)n, sizeof(int));
    if (!r->body || !r->first || !r->seen) goto oom;
    for (int g = 0; g < sim->geometry_count; g++) {
        r->first[g] = -1;
        if (sim->geometry[g].walls.enabled) {
            r->first[g] = r->count;
            if (ndem_walls_init(sim, g, &r->body[r->count], err, err_len)) return -1;
            r->count += 6;
            continue;
        }
        if (!sim->geometry[g].dynamic.enabled) continue;
        r->first[g] = r->count;
        if (body_init(sim, g, &r->body[r->count++], err, err_len)) return -1;
    }
    return ndem_rcontact_create(sim, r, err, err_len);
oom:
    snprintf(err, err_len, "out of memory creating the simulation");
    return -1;
}

void ndem_rigid_destroy(ndem_rigid *r)
{
    if (!r) return;
    free(r->body);
    free(r->first);
    free(r->rows);
    free(r->seen);
    ndem_rcontact_destroy(r->contact);
    free(r);
}

int ndem_rigid_body_of(const ndem_rigid *r, int g, int feature)
{
    if (!r || r->first[g] < 0) return -1;
    for (int i = r->first[g]; i < r->count && r->body[i].geometry == g; i++)
        if (r->body[i].feature < 0 || r->body[i].feature == feature) return i;
    return -1;
}

/* The set (colour, or the overflow set) of the packet a row is in. */
static int set_of(const ndem_contacts *c, long packet)
{
    int lo = 0, hi = c->color_count - 1;
    while (lo < hi) { /* the last set starting at or before the packet */
        int mid = (lo + hi + 1) / 2;
        if (c->color_start[mid] <= packet) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

int ndem_rigid_rows(ndem_sim *sim)
{
    ndem_rigid *r = sim->rigid;
    const ndem_contacts *c = &sim->contacts;
    long count = 0, at_set[NDEM_COLOR_SETS + 1] = {0};
    for (long k = 0; k < c->count; k++)
        if (!ndem_key_is_particle(c->key[k]) &&
            ndem_rigid_body_of(r, c->key[k].b, c->key[k].feature) >= 0) {
            at_set[set_of(c, c->slot[k] / NDEM_LANES) + 1]++;
            count++;
        }
    if (ndem_ensure((void **)&r->rows, &r->row_capacity, count + 1, sizeof *r->rows)) return -1;
    for (int q = 0; q < NDEM_COLOR_SETS; q++) at_set[q + 1] += at_set[q];
    memcpy(r->set_start, at_set, sizeof r->set_start);
    r->row_count = count;
    /* by set, pair order within a set */
    for (long k = 0; k < c->count; k++) {
        ndem_contact_key key = c->key[k];
        int body = ndem_key_is_particle(key) ? -1 : ndem_rigid_body_of(r, key.b, key.feature);
        if (body < 0) continue;
        ndem_rigid_row *row = &r->rows[at_set[set_of(c, c->slot[k] / NDEM_LANES)]++];
        ndem_contact_geom geom;
        ndem_contact_geometry(sim, key, &geom);
        const double *xa = sim->bodies.pos + 3 * (size_t)key.a, *cm = sim->pose[key.b].to;
        for (int q = 0; q < 3; q++) row->r[q] = xa[q] + geom.la * geom.n[q] - cm[q];
        row->at = c->slot[k];
        row->body = body;
    }
    /* mass splitting: each row's share is its body's row count in the set */
    for (int q = 0; q < NDEM_COLOR_SETS; q++) {
        for (long i = r->set_start[q]; i < r->set_start[q + 1]; i++) r->seen[r->rows[i].body]++;
        for (long i = r->set_start[q]; i < r->set_start[q + 1]; i++)
            r->rows[i].split = r->seen[r->rows[i].body];
        for (long i = r->set_start[q]; i < r->set_start[q + 1]; i++) r->seen[r->rows[i].body] = 0;
    }
    return 0;
}

int ndem_rigid_set_has_rows(const ndem_rigid *r, int set)
{
    return r->set_start[set + 1] > r->set_start[set];
}

/* the multipliers a stage works on (solver.c): the impact stage's own; the
 * twist beside the packets, or +0 without row bounds (rows.h) */
static float row_lam(const ndem_contacts *c, long at, int stage, int q)
{
    long p = at / NDEM_LANES;
    int l = (int)(at % NDEM_LANES);
    if (stage == NDEM_RIGID_IMPACT) return c->impact_lam[6 * p + q][l];
    if (q < 5) return c->packets[p].lam[q][l];
    return c->bounds ? c->bounds[p].twist[l] : 0.0f;
}

static void point_velocity(const ndem_rigid_body *bd, const double *r, double *u)
{
    double wr[3];
    ndem_cross(bd->w, r, wr);
    for (int q = 0; q < 3; q++) u[q] = bd->v[q] + wr[q];
}

void ndem_rigid_set_begin(ndem_sim *sim, int set, int stage)
{
    ndem_rigid *r = sim->rigid;
    ndem_contacts *c = &sim->contacts;
    for (long i = r->set_start[set]; i < r->set_start[set + 1]; i++) {
        ndem_rigid_row *row = &r->rows[i];
        const ndem_rigid_body *bd = &r->body[row->body];
        double u[3];
        point_velocity(bd, row->r, u);
        long slot = c->packets[row->at / NDEM_LANES].b[row->at % NDEM_LANES];
        for (int q = 0; q < 3; q++) {
            c->vs[slot][q] = (float)u[q];
            c->vs[slot][3 + q] = (float)bd->w[q];
        }
        /* A bound of the body's 6 x 6 block at r: an impulse (a, b) (force,
         * couple) changes the velocities by a work a^2 / M + (r x a +
         * b)^T I^-1 (r x a + b) <= a^2 (1/M + 2 r^2 l) + b^2 (2 l), l the
         * largest eigenvalue of I^-1 ((x + y)^2 <= 2 x^2 + 2 y^2): without
         * the 2 the diagonal can fall below the block when a friction and
         * a rolling impulse turn the body the same way, and Jacobi-like
         * updates are only sure to converge above it. */
        double k = row->split, l2 = 2.0 * bd->im_rot;
        c->vs[slot][6] = (float)(k * (bd->im_lin + ndem_dot(row->r, row->r) * l2));
        c->vs[slot][7] = (float)(k * l2);
        for (int q = 0; q < 6; q++)
            row->snap[q] = stage == NDEM_RIGID_WARM ? 0.0f : row_lam(c, row->at, stage, q);
    }
}

void ndem_rigid_set_end(ndem_sim *sim, int set, int stage)
{
    ndem_rigid *r = sim->rigid;
    ndem_contacts *c = &sim->contacts;
    for (long i = r->set_start[set]; i < r->set_start[set + 1]; i++) {
        const ndem_rigid_row *row = &r->rows[i];
        ndem_rigid_body *bd = &r->body[row->body];
        const ndem_packet *P = &c->packets[row->at / NDEM_LANES];
        int l = (int)(row->at % NDEM_LANES);
        float nf[3], tf[3];
        double n[3], t1[3], t2[3], dl[6], lin[3], rot[3], m[3];
        for (int q = 0; q < 3; q++) nf[q] = P->n[q][l];
        ndem_row_tangent(nf, tf); /* the kernel's basis */
        for (int q = 0; q < 3; q++) n[q] = nf[q], t1[q] = tf[q];
        ndem_cross(n, t1, t2);
        for (int q = 0; q < 6; q++) dl[q] = (double)row_lam(c, row->at, stage, q) - row->snap[q];
        if (stage != NDEM_RIGID_IMPACT) dl[0] *= (double)P->s[l]; /* the row scale */
        for (int q = 0; q < 3; q++) {
            lin[q] = dl[0] * n[q] + dl[1] * t1[q] + dl[2] * t2[q];
            rot[q] = dl[3] * t1[q] + dl[4] * t2[q] + dl[5] * n[q];
        }
        ndem_cross(row->r, lin, m);
        for (int q = 0; q < 3; q++) {
            bd->sum_lin[q] += lin[q];
            bd->sum_rot[q] += m[q] + rot[q];
        }
    }
    for (int b = 0; b < r->count; b++) {
        ndem_rigid_body *bd = &r->body[b];
        double dv[3], dw[3];
        mat_vec(bd->lin_free, bd->sum_lin, dv);
        mat_vec(bd->inv_world, bd->sum_rot, dw);
        for (int q = 0; q < 3; q++) {
            bd->v[q] += bd->inv_mass * dv[q];
            bd->w[q] += dw[q];
            bd->sum_lin[q] = bd->sum_rot[q] = 0.0;
        }
        /* a wall's motor row answers the set's impulses (not in the
         * impact stage: the motor is a continuous row) */
        if (bd->feature >= 0 && stage != NDEM_RIGID_IMPACT) ndem_walls_motor_solve(bd);
    }
}

void ndem_rigid_refresh_rows(ndem_sim *sim)
{
    ndem_rigid *r = sim->rigid;
    ndem_contacts *c = &sim->contacts;
    for (long i = 0; i < r->row_count; i++) {
        const ndem_rigid_row *row = &r->rows[i];
        const ndem_rigid_body *bd = &r->body[row->body];
        double *ug = &c->ug[6 * ndem_row_geometry(c->packets, row->at, sim->bodies.count)];
        point_velocity(bd, row->r, ug);
        memcpy(ug + 3, bd->w, 3 * sizeof(double));
    }
}

/* v += h P (g + F / M) on the free translations */
static void free_push(const ndem_sim *sim, ndem_rigid_body *bd, const double *contact)
{
    const double h = sim->solver.time_step;
    double a[3], da[3];
    for (int q = 0; q < 3; q++)
        a[q] = sim->gravity[q] + (bd->force[q] + (contact ? contact[q] : 0.0)) * bd->inv_mass;
    mat_vec(bd->lin_free, a, da);
    for (int q = 0; q < 3; q++) bd->v[q] += h * da[q];
}

void ndem_rigid_free_velocity(ndem_sim *sim)
{
    for (int b = 0; b < sim->rigid->count; b++) {
        ndem_rigid_body *bd = &sim->rigid->body[b];
        if (bd->feature >= 0) ndem_walls_motor_begin(sim, bd);
        else free_push(sim, bd, NULL);
    }
}

void ndem_rigid_dem(ndem_sim *sim)
{
    ndem_rigid *r = sim->rigid;
    const double h = sim->solver.time_step;
    for (int b = 0; b < r->count; b++) {
        ndem_rigid_body *bd = &r->body[b];
        if (bd->feature >= 0) { /* a wall: its own contact force (walls.c) */
            ndem_walls_dem(sim, bd);
            continue;
        }
        /* the particles' load on the geometry (dem.c), torque about the
         * centre of mass (the pivot) */
        const double *load = &sim->loads[NDEM_LOAD_STRIDE * bd->geometry];
        double dw[3];
        free_push(sim, bd, load);
        mat_vec(bd->inv_world, load + 3, dw);
        for (int q = 0; q < 3; q++) bd->w[q] += h * dw[q];
    }
}

/* The turn by w h applied to q (unit quaternion kept unit). */
static void turn_quat(const double *w, double h, double *q)
{
    double a = ndem_norm(w);
    if (!(a * h > 0.0)) return;
    double half = 0.5 * a * h, s = sin(half) / a;
    double dq[4] = {cos(half), w[0] * s, w[1] * s, w[2] * s}, out[4];
    ndem_quat_mul(dq, q, out);
    double len = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    for (int k = 0; k < 4; k++) q[k] = out[k] / len;
}

void ndem_rigid_integrate(ndem_sim *sim)
{
    ndem_rigid *r = sim->rigid;
    const double h = sim->solver.time_step, t = (double)(sim->step + 1) * h;
    for (int b = 0; b < r->count; b++) {
        ndem_rigid_body *bd = &r->body[b];
        if (bd->feature >= 0) { /* a wall moves its face (walls.c) */
            ndem_walls_move(sim, bd);
            continue;
        }
        ndem_geometry_pose *p = &sim->pose[bd->geometry];
        /* angular momentum on the free turns is what the turn keeps: w
         * after it is inv_world' I_w w (this is the w x I w term, exactly
         * conservative for a free body) */
        double iw[9], l[3];
        world_inertia(p->rot, bd->inertia, iw);
        mat_vec(iw, bd->w, l);
        for (int q = 0; q < 3; q++) p->to[q] += h * bd->v[q];
        turn_quat(bd->w, h, p->q);
        ndem_geometry_derive(&sim->geometry[bd->geometry], p, t);
        update_inertia(sim, bd);
        mat_vec(bd->inv_world, l, bd->w);
        sync_pose(sim, bd);
    }
}

/* Half the diagonal of the reference bounds: how far the surface is from
 * the centre of mass (a plane: its turn is not counted). */
static double extent(const ndem_geometry_def *g)
{
    if (g->type == NDEM_GEOMETRY_PLANE) return 0.0;
    double lo[3], hi[3], d[3];
    ndem_geometry_ops_of(g)->bounds(g, lo, hi);
    for (int k = 0; k < 3; k++) d[k] = hi[k] - lo[k];
    return 0.5 * ndem_norm(d);
}

double ndem_rigid_reach(const ndem_sim *sim)
{
    const ndem_rigid *r = sim->rigid;
    double m = 0.0;
    for (int b = 0; r && b < r->count; b++) {
        const ndem_rigid_body *bd = &r->body[b];
        m = fmax(m, ndem_norm(bd->v) + ndem_norm(bd->w) * extent(&sim->geometry[bd->geometry]));
    }
    return 2.0 * sim->solver.time_step * m;
}

double ndem_rigid_kinetic_energy(const ndem_sim *sim)
{
    const ndem_rigid *r = sim->rigid;
    double ke = 0.0;
    for (int b = 0; r && b < r->count; b++) {
        const ndem_rigid_body *bd = &r->body[b];
        const ndem_geometry_def *g = &sim->geometry[bd->geometry];
        /* a driven wall keeps its mass (its inverse is zero while driven) */
        double m = bd->feature >= 0 ? g->walls.mass : 1.0 / bd->inv_mass, iw[9], l[3];
        ke += 0.5 * m * ndem_dot(bd->v, bd->v);
        if (bd->feature >= 0) continue; /* a wall never turns */
        world_inertia(sim->pose[bd->geometry].rot, bd->inertia, iw);
        mat_vec(iw, bd->w, l);
        ke += 0.5 * ndem_dot(bd->w, l);
    }
    return ke;
}

int ndem_rigid_bad(const ndem_rigid *r)
{
    for (int b = 0; r && b < r->count; b++)
        for (int q = 0; q < 3; q++)
            if (!isfinite(r->body[b].v[q]) || !isfinite(r->body[b].w[q])) return b;
    return -1;
}

size_t ndem_rigid_state_size(const ndem_rigid *r) { return r ? 6 * (size_t)r->count : 0; }

void ndem_rigid_state_write(const ndem_rigid *r, double *out)
{
    for (int b = 0; r && b < r->count; b++) {
        memcpy(out + 6 * b, r->body[b].v, 3 * sizeof(double));
        memcpy(out + 6 * b + 3, r->body[b].w, 3 * sizeof(double));
        if (r->body[b].feature >= 0) out[6 * b + 3] = r->body[b].motor; /* w is zero */
    }
}

void ndem_rigid_state_read(ndem_sim *sim, const double *in)
{
    ndem_rigid *r = sim->rigid;
    for (int b = 0; r && b < r->count; b++) {
        ndem_rigid_body *bd = &r->body[b];
        memcpy(bd->v, in + 6 * b, 3 * sizeof(double));
        memcpy(bd->w, in + 6 * b + 3, 3 * sizeof(double));
        if (bd->feature >= 0) {   /* a wall: its face is the restored def's */
            bd->motor = bd->w[0]; /* its motor's warm start in w's place */
            bd->w[0] = 0.0;
            ndem_walls_mode(sim, bd, sim->time);
            continue;
        }
        update_inertia(sim, bd); /* from the restored pose */
        sync_pose(sim, bd);
    }
}
