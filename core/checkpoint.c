/* checkpoint.c - the whole simulation state as one byte buffer: particles,
 * contact history (the warm-start cache), geometry positions, emitter and
 * RNG state, step counter and last statistics. Restoring into the scene it
 * came from and stepping gives bit for bit the states of never stopping.
 *
 * Layout (host byte order, little-endian on every supported machine):
 *   "NDEMCKPT" u32 version, u32 0, u64 scene hash, i64 step, i64 bodies,
 *   particle arrays (internal order) and their creation ids, geometry
 *   positions and (format 4) poses, (format 5) dynamic bodies' velocities,
 *   emitter states, history, stats, and
 *   last a u32 CRC-32C of
 *   every byte before it: a damaged checkpoint is refused as damaged, never
 *   restored into a state that fails later for a misleading reason. */
#include "crc32c.h"
#include "dem.h"
#include "dem_shape.h"
#include "rigid_contact.h"
#include "shape_body.h"
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CKPT_MAGIC "NDEMCKPT"
/* 2: creation ids of the internal order (reorder.c); 3: CRC trailer;
 * 4: geometry poses, and keys as two ints (geometry index, feature: mesh
 * features exceed 8); 5: after the poses, v and w of each dynamic body
 * (rigid.c; nothing for a scene without one, so a format 4 checkpoint reads
 * the same way); 6: each particle's shape index after the creation ids, and
 * after the smooth-DEM state the shaped contacts' point history
 * (dem_shape.c; none in a scene of plain spheres); 7: under NDEM with
 * shapes, after the stats the general rows' point history (rows_general.h:
 * length in bytes, then the entries; none in a scene of plain spheres);
 * 8: under smooth DEM, after the shaped contacts' point history that of
 * the dynamic bodies' points on static geometry (rigid_contact.h: count
 * of doubles, then the doubles; nothing in a scene without such pairs, so
 * format 7 reads the same way there); 9: under smooth DEM, after that, in
 * a scene with pairs of two bodies, those touching (rigid_contact.h: a
 * count of entries, then each entry's doubles: the two bodies, their
 * points' history; format 8 reads the same way, its body pairs afresh). */
#define CKPT_VERSION 9u
#define CKPT_OLDEST 3u /* the oldest format restored */

typedef struct writer {
    unsigned char *buf;
    size_t len, cap;
    int failed;
} writer;

static void put(writer *w, const void *p, size_t n)
{
    if (w->failed) return;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->len + n) cap *= 2;
        unsigned char *b = realloc(w->buf, cap);
        if (!b) {
            w->failed = 1;
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
    if (n) memcpy(w->buf + w->len, p, n);
    w->len += n;
}

typedef struct reader {
    const unsigned char *buf;
    size_t len, pos;
    int failed;
} reader;

static void get(reader *r, void *p, size_t n)
{
    if (r->failed || n > r->len - r->pos) {
        r->failed = 1;
        if (n) memset(p, 0, n);
        return;
    }
    if (n) memcpy(p, r->buf + r->pos, n);
    r->pos += n;
}

int ndem_sim_checkpoint(const ndem_sim *sim, void **buffer, size_t *length)
{
    writer w = {0};
    uint32_t version = CKPT_VERSION, zero = 0;
    int64_t step = sim->step, n = sim->bodies.count;
    const ndem_bodies *b = &sim->bodies;
    const ndem_history *h = &sim->history;
    put(&w, CKPT_MAGIC, 8);
    put(&w, &version, 4);
    put(&w, &zero, 4);
    put(&w, &sim->scene_hash, 8);
    put(&w, &step, 8);
    put(&w, &n, 8);
    put(&w, b->pos, 3 * sizeof(double) * (size_t)n);
    put(&w, b->quat, 4 * sizeof(double) * (size_t)n);
    put(&w, b->vel, 6 * sizeof(double) * (size_t)n);
    put(&w, b->radius, sizeof(double) * (size_t)n);
    put(&w, b->inv_mass, sizeof(double) * (size_t)n);
    put(&w, b->inv_inertia, sizeof(double) * (size_t)n);
    put(&w, b->material, sizeof(int) * (size_t)n);
    put(&w, b->id, sizeof(long) * (size_t)n);
    put(&w, b->shape, sizeof(int) * (size_t)n);
    for (int g = 0; g < sim->geometry_count; g++) {
        const ndem_geometry_def *geo = &sim->geometry[g];
        put(&w, geo->point, sizeof geo->point);
        put(&w, geo->min, sizeof geo->min);
        put(&w, geo->max, sizeof geo->max);
        put(&w, geo->center, sizeof geo->center);
        const ndem_geometry_pose *p = &sim->pose[g]; /* its state; the rest is derived */
        put(&w, p->q, sizeof p->q);
        put(&w, p->to, sizeof p->to);
        put(&w, p->shift, sizeof p->shift);
    }
    size_t bodies = ndem_rigid_state_size(sim->rigid);
    if (bodies > 0) {
        double *state = malloc(bodies * sizeof(double));
        if (!state) w.failed = 1;
        else ndem_rigid_state_write(sim->rigid, state);
        if (state) put(&w, state, bodies * sizeof(double));
        free(state);
    }
    for (int e = 0; e < sim->emitter_count; e++) {
        const ndem_emitter_state *s = &sim->emitter_state[e];
        put(&w, s->rng.s, sizeof s->rng.s);
        put(&w, &s->pending, sizeof s->pending);
        put(&w, &s->emitted, sizeof s->emitted);
    }
    int64_t hb = h->bodies, hc = h->count;
    put(&w, &hb, 8);
    put(&w, &hc, 8);
    if (hb > 0) put(&w, h->start, sizeof(long) * (size_t)(hb + 1));
    for (int64_t k = 0; k < hc; k++) {
        int two[NDEM_KEY_INTS];
        ndem_key_put(ndem_key_with_a(0, h->key[k]), two); /* a is not stored */
        put(&w, two, sizeof two);
    }
    for (int64_t k = 0; k < 7 * hc; k++) { /* stored as doubles (format 2) */
        double v = h->lam[k];
        put(&w, &v, sizeof v);
    }
    put(&w, &sim->stats, sizeof sim->stats);
    if (sim->dem) {
        /* smooth DEM: the spring history, length first */
        uint64_t dl = ndem_dem_state_size(sim);
        unsigned char *blob = malloc(dl ? dl : 1);
        if (!blob) w.failed = 1;
        else ndem_dem_state_write(sim, blob);
        put(&w, &dl, 8);
        if (blob) put(&w, blob, dl);
        free(blob);
        uint64_t sl = ndem_dem_shape_state_size(sim);
        put(&w, &sl, 8);
        if (sl > 0) put(&w, ndem_dem_shape_state(sim), sl * sizeof(double));
        uint64_t rl = ndem_rcontact_dem_state_size(sim); /* bodies on geometry */
        if (rl > 0) {
            double *rs = malloc(rl * sizeof(double));
            if (!rs) w.failed = 1;
            else ndem_rcontact_dem_state_write(sim, rs);
            put(&w, &rl, 8);
            if (rs) put(&w, rs, rl * sizeof(double));
            free(rs);
        }
        if (ndem_rcontact_dem_has_body_pairs(sim)) { /* two bodies: the pairs touching */
            uint64_t be = ndem_rcontact_dem_body_entries(sim);
            double *bs = malloc((be ? be : 1) * NDEM_RC_BODY_ENTRY * sizeof(double));
            if (!bs) w.failed = 1;
            else ndem_rcontact_dem_body_write(sim, bs);
            put(&w, &be, 8);
            if (bs) put(&w, bs, be * NDEM_RC_BODY_ENTRY * sizeof(double));
            free(bs);
        }
    } else if (sim->general) {
        uint64_t gl = ndem_general_state_size(sim->general);
        put(&w, &gl, 8);
        if (gl > 0) put(&w, ndem_general_state(sim->general), gl);
    }
    uint32_t crc = ndem_crc32c(0, w.buf, w.len);
    put(&w, &crc, 4);
    if (w.failed) {
        free(w.buf);
        return -1;
    }
    *buffer = w.buf;
    *length = w.len;
    return 0;
}

ndem_sim *ndem_sim_restore(const ndem_scene_def *def, const void *buffer, size_t length, char *err,
                           size_t err_len)
{
    reader r = {buffer, length >= 4 ? length - 4 : 0, 0, 0}; /* the CRC trailer is not state */
    char magic[8];
    uint32_t version, zero;
    uint64_t hash;
    int64_t step, n;
    get(&r, magic, 8);
    get(&r, &version, 4);
    get(&r, &zero, 4);
    if (r.failed || memcmp(magic, CKPT_MAGIC, 8) != 0) {
        snprintf(err, err_len, "not an ndem checkpoint (bad magic)");
        return NULL;
    }
    if (version < CKPT_OLDEST || version > CKPT_VERSION) {
        snprintf(err, err_len, "checkpoint version %u is not supported (this build reads %u to %u)",
                 version, CKPT_OLDEST, CKPT_VERSION);
        return NULL;
    }
    uint32_t crc;
    memcpy(&crc, (const unsigned char *)buffer + r.len, 4);
    if (crc != ndem_crc32c(0, buffer, r.len)) {
        snprintf(err, err_len, "checkpoint is damaged (checksum mismatch)");
        return NULL;
    }
    length = r.len;
    ndem_sim *sim = ndem_sim_create(def, err, err_len);
    if (!sim) return NULL;
    double *body_state = NULL; /* dynamic bodies' v and w (format 5), set after the poses */
    get(&r, &hash, 8);
    get(&r, &step, 8);
    get(&r, &n, 8);
    if (!r.failed && hash != sim->scene_hash) {
        snprintf(err, err_len, "checkpoint belongs to another scene (scene hash differs)");
        goto fail;
    }
    if (r.failed || n < 0 || (uint64_t)n > length / (16 * sizeof(double)) + 1 || step < 0) {
        snprintf(err, err_len, "checkpoint is truncated or corrupt");
        goto fail;
    }
    ndem_bodies *b = &sim->bodies;
    if (ndem_bodies_reserve(b, n)) goto oom;
    b->count = n;
    get(&r, b->pos, 3 * sizeof(double) * (size_t)n);
    get(&r, b->quat, 4 * sizeof(double) * (size_t)n);
    get(&r, b->vel, 6 * sizeof(double) * (size_t)n);
    get(&r, b->radius, sizeof(double) * (size_t)n);
    get(&r, b->inv_mass, sizeof(double) * (size_t)n);
    get(&r, b->inv_inertia, sizeof(double) * (size_t)n);
    get(&r, b->material, sizeof(int) * (size_t)n);
    get(&r, b->id, sizeof(long) * (size_t)n);
    if (version >= 6) get(&r, b->shape, sizeof(int) * (size_t)n);
    else /* before shapes: every particle a plain sphere */
        for (long i = 0; i < n; i++) b->shape[i] = -1;
    for (long i = 0; i < n; i++) {
        int top = sim->shapes ? sim->shapes->count : 0;
        if (b->shape[i] < -1 || b->shape[i] >= top) r.failed = 1;
    }
    /* ids must be a permutation of the creation indices */
    for (long i = 0; i < n; i++) b->where[i] = -1;
    for (long i = 0; i < n && !r.failed; i++) {
        if (b->id[i] < 0 || b->id[i] >= n || b->where[b->id[i]] >= 0) r.failed = 1;
        else b->where[b->id[i]] = i;
    }
    for (int g = 0; g < sim->geometry_count; g++) {
        ndem_geometry_def *geo = &sim->geometry[g];
        get(&r, geo->point, sizeof geo->point);
        get(&r, geo->min, sizeof geo->min);
        get(&r, geo->max, sizeof geo->max);
        get(&r, geo->center, sizeof geo->center);
        if (version >= 4) {
            ndem_geometry_pose *p = &sim->pose[g];
            get(&r, p->q, sizeof p->q);
            get(&r, p->to, sizeof p->to);
            get(&r, p->shift, sizeof p->shift);
        }
    }
    /* a scene with dynamic bodies has no checkpoint of a format before 5:
     * its hash is not an older scene's */
    size_t bodies = ndem_rigid_state_size(sim->rigid);
    if (bodies > 0 && !(body_state = malloc(bodies * sizeof(double)))) goto oom;
    if (bodies > 0) get(&r, body_state, bodies * sizeof(double));
    for (int e = 0; e < sim->emitter_count; e++) {
        ndem_emitter_state *s = &sim->emitter_state[e];
        get(&r, s->rng.s, sizeof s->rng.s);
        get(&r, &s->pending, sizeof s->pending);
        get(&r, &s->emitted, sizeof s->emitted);
    }
    for (long i = 0; i < n; i++)
        if (b->material[i] < 0 || b->material[i] >= sim->materials.count) r.failed = 1;
    int64_t hb, hc;
    get(&r, &hb, 8);
    get(&r, &hc, 8);
    if (r.failed || hb < 0 || hb > n || hc < 0 || (uint64_t)hc > length / sizeof(double)) {
        snprintf(err, err_len, "checkpoint is truncated or corrupt");
        goto fail;
    }
    ndem_history *h = &sim->history;
    h->start = malloc(sizeof(long) * (size_t)(hb + 1));
    h->key = malloc(sizeof *h->key * (size_t)(hc + 1));
    if (!h->start || !h->key || ndem_history_lam_reserve(h, 7 * sizeof(float) * (size_t)(hc + 1)))
        goto oom;
    h->start_capacity = hb + 1;
    h->capacity = hc + 1;
    h->bodies = hb;
    h->count = hc;
    h->start[0] = 0;
    if (hb > 0) get(&r, h->start, sizeof(long) * (size_t)(hb + 1));
    int key_ints = version == 3u ? 1 : NDEM_KEY_INTS;
    for (int64_t k = 0; k < hc; k++) {
        int two[NDEM_KEY_INTS];
        get(&r, two, sizeof(int) * (size_t)key_ints);
        /* a from start */
        h->key[k] =
            ndem_hist_key_of(key_ints == 1 ? ndem_key_unpack3(0, two[0]) : ndem_key_get(0, two));
    }
    for (int64_t k = 0; k < 7 * hc && !r.failed; k++) {
        double v;
        get(&r, &v, sizeof v);
        h->lam[k] = (float)v; /* exact: written from floats */
    }
    for (long i = 0; i < hb && !r.failed; i++)
        if (h->start[i] < 0 || h->start[i] > h->start[i + 1] || h->start[i + 1] > hc) r.failed = 1;
        else
            for (long k = h->start[i]; k < h->start[i + 1]; k++) {
                ndem_contact_key key = ndem_key_with_a((int)i, h->key[k]);
                /* the reorder indexes bodies by b: it must be one */
                long top = ndem_key_is_particle(key) ? n : sim->geometry_count;
                if (key.b < 0 || key.b >= top) r.failed = 1;
                else if (!ndem_key_is_particle(key) &&
                         key.feature >= ndem_geometry_feature_count(&sim->geometry[key.b]))
                    r.failed = 1;
            }
    get(&r, &sim->stats, sizeof sim->stats);
    if (sim->dem && !r.failed) {
        uint64_t dl = 0;
        get(&r, &dl, 8);
        if (r.failed || dl > length - r.pos ||
            ndem_dem_state_read(sim, (const unsigned char *)buffer + r.pos, dl, key_ints))
            r.failed = 1;
        else r.pos += dl;
        uint64_t sl = 0;
        if (version >= 6) get(&r, &sl, 8);
        if (!r.failed && sl > 0) {
            if (!sim->shapes || sl > (length - r.pos) / sizeof(double) ||
                ndem_dem_shape_state_read(sim, (const unsigned char *)buffer + r.pos, (size_t)sl))
                r.failed = 1;
            else r.pos += sl * sizeof(double);
        }
        /* bodies on geometry (before format 8 their points start afresh) */
        if (version >= 8 && ndem_rcontact_dem_state_size(sim) > 0 && !r.failed) {
            uint64_t rl = 0;
            get(&r, &rl, 8);
            if (r.failed || rl > (length - r.pos) / sizeof(double) ||
                ndem_rcontact_dem_state_read(sim, (const unsigned char *)buffer + r.pos,
                                             (size_t)rl))
                r.failed = 1;
            else r.pos += rl * sizeof(double);
        }
        /* two bodies' pairs (before format 9 they start afresh) */
        if (version >= 9 && ndem_rcontact_dem_has_body_pairs(sim) && !r.failed) {
            uint64_t be = 0;
            const size_t entry = NDEM_RC_BODY_ENTRY * sizeof(double);
            get(&r, &be, 8);
            if (r.failed || be > (length - r.pos) / entry ||
                ndem_rcontact_dem_body_read(sim, (const unsigned char *)buffer + r.pos, (size_t)be))
                r.failed = 1;
            else r.pos += be * entry;
        }
    } else if (sim->general && version >= 7 && !r.failed) {
        uint64_t gl = 0;
        get(&r, &gl, 8);
        if (r.failed || gl > length - r.pos ||
            ndem_general_state_read(sim, (const unsigned char *)buffer + r.pos, (size_t)gl))
            r.failed = 1;
        else r.pos += gl;
    }
    if (r.failed || r.pos != length) {
        snprintf(err, err_len, "checkpoint is truncated or corrupt");
        goto fail;
    }
    sim->step = step;
    sim->time = (double)step * sim->solver.time_step;
    for (int g = 0; g < sim->geometry_count; g++)
        if (version >= 4) ndem_geometry_derive(&sim->geometry[g], &sim->pose[g], sim->time);
        else ndem_geometry_pose_v3(&def->geometry[g], &sim->geometry[g], &sim->pose[g], sim->time);
    if (body_state) ndem_rigid_state_read(sim, body_state); /* after the poses */
    free(body_state);
    return sim;
oom:
    snprintf(err, err_len, "out of memory restoring the checkpoint");
fail:
    free(body_state);
    ndem_sim_destroy(sim);
    return NULL;
}
