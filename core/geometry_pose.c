/* geometry_pose.c - the motion side of the pose layer: where each geometry
 * is at time t. Constant motion turns by the exact rotation w t about the
 * pivot, which moves with v (so a turning drum never drifts); keyframes are
 * evaluated at t (linear position, slerp along the shorter arc, the first
 * before the first keyframe and the last after the last), so no error
 * accumulates. docs/engine.md, "Moving geometry". */
#include "geometry.h"
#include "vec.h"

#include <math.h>
#include <string.h>

void ndem_quat_mul(const double a[4], const double b[4], double out[4])
{
    double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    memcpy(out, r, sizeof r);
}

void ndem_quat_matrix(const double q[4], double m[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    m[0] = 1 - 2 * (y * y + z * z);
    m[1] = 2 * (x * y - w * z);
    m[2] = 2 * (x * z + w * y);
    m[3] = 2 * (x * y + w * z);
    m[4] = 1 - 2 * (x * x + z * z);
    m[5] = 2 * (y * z - w * x);
    m[6] = 2 * (x * z - w * y);
    m[7] = 2 * (y * z + w * x);
    m[8] = 1 - 2 * (x * x + y * y);
}

/* The rotation by angle |w| t about w: exact at t = 0 ([1, 0, 0, 0]). */
static void quat_of_turn(const double w[3], double t, double q[4])
{
    double a = ndem_norm(w);
    ndem_geo_no_turn(q);
    if (!(a * fabs(t) > 0.0)) return;
    double half = 0.5 * a * t, s = sin(half) / a;
    q[0] = cos(half);
    for (int k = 0; k < 3; k++) q[k + 1] = w[k] * s;
}

/* The keyframe segment of time t: the last keyframe at or before t (0 when
 * t is before the first). */
static int segment_of(const ndem_geometry_def *g, double t)
{
    int lo = 0, hi = g->keyframe_count - 1;
    while (lo < hi) { /* the largest i with time_i <= t, or 0 */
        int mid = (lo + hi + 1) / 2;
        if (g->keyframes[mid].time <= t) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Position, absolute orientation, velocity and angular velocity of the
 * keyframed motion at t. At a keyframe's time the pose is that keyframe's,
 * exactly (s = 0 of the segment it starts); the velocities are those of
 * the segment from t on (zero when held). */
static void keyframes_at(const ndem_geometry_def *g, double t, double pos[3], double q[4],
                         double v[3], double w[3])
{
    int i = segment_of(g, t);
    const ndem_keyframe *a = &g->keyframes[i];
    memcpy(pos, a->position, 3 * sizeof(double));
    memcpy(q, a->orientation, 4 * sizeof(double));
    memset(v, 0, 3 * sizeof(double));
    memset(w, 0, 3 * sizeof(double));
    if (i + 1 >= g->keyframe_count || t < a->time) return; /* held */
    const ndem_keyframe *b = &g->keyframes[i + 1];
    double dt = b->time - a->time, s = (t - a->time) / dt;
    for (int k = 0; k < 3; k++) {
        double d = b->position[k] - a->position[k];
        pos[k] = a->position[k] + s * d;
        v[k] = d / dt;
    }
    /* slerp: the relative turn b a^-1 (shorter arc), a fraction s of it */
    double qb[4],
        ca[4] = {a->orientation[0], -a->orientation[1], -a->orientation[2], -a->orientation[3]};
    double dot = 0.0;
    for (int k = 0; k < 4; k++) dot += a->orientation[k] * b->orientation[k];
    for (int k = 0; k < 4; k++) qb[k] = dot < 0 ? -b->orientation[k] : b->orientation[k];
    double rel[4];
    ndem_quat_mul(qb, ca, rel);
    double sn = ndem_norm(&rel[1]);
    if (!(sn > 0.0)) return;                /* no turn in this segment */
    double angle = 2.0 * atan2(sn, rel[0]); /* in [0, pi]: rel[0] = |dot| >= 0 */
    double axis[3] = {rel[1] / sn, rel[2] / sn, rel[3] / sn};
    for (int k = 0; k < 3; k++) w[k] = axis[k] * angle / dt;
    if (s == 0.0) return; /* exactly the keyframe's orientation */
    double part[4] = {cos(0.5 * s * angle), 0, 0, 0};
    for (int k = 0; k < 3; k++) part[k + 1] = axis[k] * sin(0.5 * s * angle);
    ndem_quat_mul(part, a->orientation, q);
}

/* The pivot at time 0 for constant motion. */
static void pivot0(const ndem_geometry_def *g, double c[3])
{
    double q[4];
    if (g->has_pivot) memcpy(c, g->pivot, 3 * sizeof(double));
    else ndem_geometry_ops_of(g)->reference(g, c, q);
}

void ndem_geometry_derive(const ndem_geometry_def *g, ndem_geometry_pose *p, double t)
{
    const ndem_geometry_ops *ops = ndem_geometry_ops_of(g);
    ndem_quat_matrix(p->q, p->rot);
    double q[4];
    if (g->dynamic.enabled) {
        /* a rigid body (rigid.c): pivot at its centre of mass (the reference
         * point, or a closed mesh's centroid); its velocity and spin are the
         * body's, set by rigid.c */
        pivot0(g, p->from);
    } else if (g->keyframe_count > 0) {
        double pos[3], qa[4];
        ops->reference(g, p->from, q);
        keyframes_at(g, t, pos, qa, p->velocity, p->spin);
    } else {
        if (ops->translate) memcpy(p->from, p->to, sizeof p->from);
        else pivot0(g, p->from);
        memcpy(p->velocity, g->velocity, sizeof p->velocity);
        memcpy(p->spin, g->angular_velocity, sizeof p->spin);
    }
    int identity = p->q[0] == 1.0 && p->q[1] == 0.0 && p->q[2] == 0.0 && p->q[3] == 0.0;
    /* a body's turn accumulates about changing axes: never the shortcut */
    int symmetric = g->keyframe_count == 0 && !g->dynamic.enabled && ops->symmetric &&
                    ops->symmetric(g, p->spin, p->to);
    p->rotate = !identity && !symmetric;
    p->offset = memcmp(p->from, p->to, sizeof p->from) != 0;
}

/* The pose of keyframed motion at t: R = q(t) q_ref^-1 about the reference
 * point, which is at position(t). */
static void keyframe_pose(const ndem_geometry_def *g, ndem_geometry_pose *p, double t)
{
    double c[3], qref[4], pos[3], qa[4], v[3], w[3];
    ndem_geometry_ops_of(g)->reference(g, c, qref);
    keyframes_at(g, t, pos, qa, v, w);
    double inv[4] = {qref[0], -qref[1], -qref[2], -qref[3]};
    ndem_quat_mul(qa, inv, p->q);
    memcpy(p->to, pos, sizeof pos);
}

void ndem_geometry_pose_init(const ndem_geometry_def *g, ndem_geometry_pose *p)
{
    memset(p, 0, sizeof *p);
    if (g->keyframe_count > 0) keyframe_pose(g, p, 0.0);
    else if (g->dynamic.enabled) {
        ndem_geo_no_turn(p->q);
        pivot0(g, p->to);
        memcpy(p->velocity, g->velocity, sizeof p->velocity); /* rigid.c applies the locks */
        memcpy(p->spin, g->angular_velocity, sizeof p->spin);
    } else {
        ndem_geo_no_turn(p->q);
        pivot0(g, p->to);
    }
    ndem_geometry_derive(g, p, 0.0);
}

void ndem_geometry_advance(ndem_geometry_def *g, ndem_geometry_pose *p, double h, double t)
{
    if (g->dynamic.enabled) return; /* its contacts move it: rigid.c */
    if (g->keyframe_count > 0) {
        keyframe_pose(g, p, t);
    } else {
        const ndem_geometry_ops *ops = ndem_geometry_ops_of(g);
        double d[3];
        for (int k = 0; k < 3; k++) d[k] = h * g->velocity[k];
        if (ops->translate) ops->translate(g, d);
        for (int k = 0; k < 3; k++) {
            p->to[k] += d[k];
            p->shift[k] += d[k];
        }
        quat_of_turn(g->angular_velocity, t, p->q);
    }
    ndem_geometry_derive(g, p, t);
}

void ndem_geometry_pose_v3(const ndem_geometry_def *g0, const ndem_geometry_def *g,
                           ndem_geometry_pose *p, double t)
{
    ndem_geometry_pose_init(g, p);
    if (g->keyframe_count > 0) keyframe_pose(g, p, t);
    else {
        double c0[3], c[3], q[4];
        ndem_geometry_ops_of(g)->reference(g0, c0, q);
        ndem_geometry_ops_of(g)->reference(g, c, q);
        pivot0(g0, p->to);
        for (int k = 0; k < 3; k++) {
            p->shift[k] = c[k] - c0[k];
            p->to[k] += p->shift[k];
        }
        quat_of_turn(g->angular_velocity, t, p->q);
    }
    ndem_geometry_derive(g, p, t);
}

void ndem_geometry_pose_of(const ndem_geometry_pose *p, double t[3], double q[4])
{
    /* world = to + R (x + shift - from) = R x + (to + R (shift - from)) */
    double d[3] = {p->shift[0] - p->from[0], p->shift[1] - p->from[1], p->shift[2] - p->from[2]};
    for (int i = 0; i < 3; i++)
        t[i] =
            p->to[i] + p->rot[3 * i] * d[0] + p->rot[3 * i + 1] * d[1] + p->rot[3 * i + 2] * d[2];
    memcpy(q, p->q, 4 * sizeof(double));
}

void ndem_geometry_reference_now(const ndem_geometry_def *g, const ndem_geometry_pose *p,
                                 double c[3])
{
    double r[3], q[4];
    ndem_geometry_ops_of(g)->reference(g, r, q);
    for (int k = 0; k < 3; k++) r[k] -= p->from[k];
    for (int i = 0; i < 3; i++)
        c[i] =
            p->to[i] + p->rot[3 * i] * r[0] + p->rot[3 * i + 1] * r[1] + p->rot[3 * i + 2] * r[2];
}

static void grow(double *lo, double *hi, const double *a, const double *b)
{
    for (int k = 0; k < 3; k++) {
        lo[k] = fmin(lo[k], a[k]);
        hi[k] = fmax(hi[k], b[k]);
    }
}

void ndem_geometry_sweep_bounds(const ndem_geometry_def *g, double duration, double *lo, double *hi)
{
    ndem_geometry_def d = *g; /* a copy to move: g stays as it is */
    ndem_geometry_pose p;
    double a[3], b[3];
    ndem_geometry_pose_init(&d, &p);
    ndem_geometry_bounds(&d, &p, lo, hi);
    for (int i = 0; i < g->keyframe_count; i++) {
        keyframe_pose(&d, &p, g->keyframes[i].time);
        ndem_geometry_derive(&d, &p, g->keyframes[i].time);
        ndem_geometry_bounds(&d, &p, a, b);
        grow(lo, hi, a, b);
    }
    if (g->keyframe_count == 0 && isfinite(duration) && duration > 0) {
        ndem_geometry_advance(&d, &p, duration, duration);
        ndem_geometry_bounds(&d, &p, a, b);
        grow(lo, hi, a, b);
    }
}
