/* decomp.c - the engine's side of domain decomposition (ndem.h,
 * docs/scale-out.md): ghosts, one solving process per contact, the
 * particle and warm-start state a caller moves between processes, and the
 * totals its outputs show. No MPI here: the caller's hooks do the talking. */
#include "decomp.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ndem_sim_decompose(ndem_sim *sim, const ndem_decomp_hooks *hooks, long first_ghost)
{
    if (!hooks) {
        ndem_decomp_destroy(sim->decomp);
        sim->decomp = NULL;
        return 0;
    }
    /* the slice that exists: NDEM on particles and static or moving
     * geometry; the others keep state that would need a second owner */
    if (sim->dem || sim->rigid || sim->shapes || sim->forced_count > 0)
        return -1; /* shapes: the general rows' history is keyed, not moved between ranks */
    if (sim->emitter_count > 0 && (!hooks->region || !hooks->emitted)) return -1;
    if (!sim->decomp && !(sim->decomp = calloc(1, sizeof *sim->decomp))) return -1;
    sim->decomp->hooks = *hooks;
    sim->decomp->first_ghost = first_ghost;
    return 0;
}

void ndem_decomp_destroy(ndem_decomp *d)
{
    if (!d) return;
    free(d->x0);
    free(d->touched);
    free(d);
}

/* The middle of a pair's overlap, (x_a + x_b) / 2 + (r_a - r_b) / 2 n: the
 * same bits whichever particle is a, so two processes holding the pair
 * under different indices agree on its owner. */
static void pair_point(const ndem_bodies *b, long i, long j, double p[3])
{
    const double *xa = &b->pos[3 * i], *xb = &b->pos[3 * j];
    double d[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
    double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double half = 0.5 * (b->radius[i] - b->radius[j]);
    for (int q = 0; q < 3; q++)
        p[q] = 0.5 * (xa[q] + xb[q]) + (dist > 0 ? half * (d[q] / dist) : 0);
}

int ndem_decomp_filter(ndem_sim *sim)
{
    const ndem_decomp *d = sim->decomp;
    if (!d) return 0;
    ndem_contacts *c = &sim->contacts;
    const ndem_bodies *b = &sim->bodies;
    long n = b->count, kept = 0;
    /* in place: start[a] is rewritten only after start[a] and start[a + 1]
     * were read */
    for (long a = 0; a < n; a++) {
        long from = c->start[a], to = c->start[a + 1];
        c->start[a] = kept;
        for (long k = from; k < to; k++) {
            ndem_contact_key key = c->key[k];
            int own;
            if (ndem_key_is_particle(key)) {
                double p[3];
                pair_point(b, key.a, key.b, p);
                own = d->hooks.owns_point(d->hooks.ctx, p);
            } else {
                own = !ndem_decomp_is_ghost(d, b->id[key.a]); /* the particle's owner */
            }
            if (own) c->key[kept++] = key;
        }
    }
    c->start[n] = kept;
    c->count = kept;
    return 0;
}

const unsigned char *ndem_decomp_touched(ndem_sim *sim)
{
    ndem_decomp *d = sim->decomp;
    const ndem_contacts *c = &sim->contacts;
    long n = sim->bodies.count;
    if (ndem_ensure((void **)&d->touched, &d->touched_capacity, n, 1)) return NULL;
    if (n > 0) memset(d->touched, 0, (size_t)n);
    for (long k = 0; k < c->count; k++) {
        d->touched[c->key[k].a] = 1;
        if (ndem_key_is_particle(c->key[k])) d->touched[c->key[k].b] = 1;
    }
    return d->touched;
}

void ndem_decomp_residuals(const ndem_sim *sim, double out[3])
{
    const ndem_contacts *c = &sim->contacts;
    const ndem_decomp_hooks *hk = &sim->decomp->hooks;
    double s[3] = {0, 0, 0};
    for (long p = 0; p < c->packet_count; p++)
        for (int q = 0; q < 3; q++) s[q] += c->residual[3 * p + q];
    double rows = hk->sum(hk->ctx, (double)c->count);
    for (int q = 0; q < 3; q++) {
        double total = hk->sum(hk->ctx, s[q]);
        out[q] = rows > 0 ? total / rows : 0.0;
    }
}

/* ---- state a caller moves between processes ---- */

void ndem_sim_get_particles(const ndem_sim *sim, ndem_particle_state *p)
{
    const ndem_bodies *b = &sim->bodies;
    for (long id = 0; id < b->count; id++) {
        long i = b->where[id];
        ndem_particle_state *o = &p[id];
        memcpy(o->x, &b->pos[3 * i], sizeof o->x);
        memcpy(o->q, &b->quat[4 * i], sizeof o->q);
        memcpy(o->v, &b->vel[6 * i], sizeof o->v);
        o->radius = b->radius[i];
        o->inv_mass = b->inv_mass[i];
        o->inv_inertia = b->inv_inertia[i];
        o->material = b->material[i];
    }
}

long ndem_sim_get_history(const ndem_sim *sim, ndem_history_entry **out)
{
    const ndem_history *h = &sim->history;
    const long *id = sim->bodies.id;
    *out = malloc(sizeof **out * (size_t)(h->count + 1));
    if (!*out) return -1;
    for (long a = 0; a < h->bodies; a++)
        for (long k = h->start[a]; k < h->start[a + 1]; k++) {
            ndem_contact_key key = ndem_key_with_a((int)a, h->key[k]);
            ndem_history_entry *e = &(*out)[k];
            e->a = id[key.a];
            e->b = ndem_key_is_particle(key) ? id[key.b] : -1 - (long)key.b;
            e->feature = key.feature;
            memcpy(e->lam, &h->lam[7 * k], sizeof e->lam);
        }
    return h->count;
}

static int key_order(const void *x, const void *y)
{
    const ndem_contact_key *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (ndem_key_same(*p, *q)) return 0;
    return ndem_key_before(*p, *q) ? -1 : 1;
}

/* The history from entries in creation ids (= internal indices here): each
 * key under its lower particle, in pair order; a pair given the other way
 * round turns its impulse vectors (they act on b). */
static int set_history(ndem_sim *sim, long n, long count, const ndem_history_entry *e, char *err,
                       size_t err_len)
{
    ndem_history *h = &sim->history;
    if (ndem_ensure((void **)&h->start, &h->start_capacity, n + 1, sizeof(long))) goto oom;
    if (count + 1 > h->capacity) {
        ndem_hist_key *kb = realloc(h->key, sizeof *kb * (size_t)(count + 1));
        if (!kb) goto oom;
        h->key = kb;
        h->capacity = count + 1;
    }
    /* every entry is written below: nothing to keep */
    if (ndem_history_lam_reserve(h, 7 * sizeof(float) * (size_t)(count + 1))) goto oom;
    /* sort (key, entry index) pairs, then gather the impulses */
    struct item {
        ndem_contact_key key;
        long from;
        int flip;
    } *it = malloc(sizeof *it * (size_t)(count + 1));
    if (!it) goto oom;
    long m = 0;
    for (long k = 0; k < count; k++) {
        long a = e[k].a, b = e[k].b;
        int particle = b >= 0;
        if (a < 0 || a >= n || (particle && b >= n) ||
            (!particle && (-1 - b >= sim->geometry_count || e[k].feature < 0 ||
                           e[k].feature >= ndem_geometry_feature_count(&sim->geometry[-1 - b])))) {
            snprintf(err, err_len, "warm-start entry %ld (%ld, %ld, %d) is out of range", k, a, b,
                     e[k].feature);
            free(it);
            return -1;
        }
        int flip = particle && b < a;
        it[m].key = particle ? (ndem_contact_key){(int)(flip ? b : a), (int)(flip ? a : b),
                                                  NDEM_KEY_PARTICLE}
                             : (ndem_contact_key){(int)a, (int)(-1 - b), e[k].feature};
        it[m].from = k;
        it[m].flip = flip;
        m++;
    }
    qsort(it, (size_t)m, sizeof *it, key_order);
    for (long i = 0; i <= n; i++) h->start[i] = 0;
    for (long k = 0; k < m; k++) {
        h->key[k] = ndem_hist_key_of(it[k].key);
        const float *src = e[it[k].from].lam;
        float *dst = &h->lam[7 * k];
        dst[0] = src[0];
        for (int q = 1; q < 7; q++) dst[q] = it[k].flip ? -src[q] : src[q];
        h->start[it[k].key.a + 1]++;
    }
    for (long i = 0; i < n; i++) h->start[i + 1] += h->start[i];
    h->bodies = n;
    h->count = m;
    free(it);
    return 0;
oom:
    snprintf(err, err_len, "out of memory setting the particles");
    return -1;
}

/* Puts count particle states into b (reserved for them) as its bodies
 * 0 .. count - 1, each its own id and place. */
static void copy_states(ndem_bodies *b, long count, const ndem_particle_state *p)
{
    for (long i = 0; i < count; i++) {
        memcpy(&b->pos[3 * i], p[i].x, sizeof p[i].x);
        memcpy(&b->quat[4 * i], p[i].q, sizeof p[i].q);
        memcpy(&b->vel[6 * i], p[i].v, sizeof p[i].v);
        b->radius[i] = p[i].radius;
        b->inv_mass[i] = p[i].inv_mass;
        b->inv_inertia[i] = p[i].inv_inertia;
        b->material[i] = p[i].material;
        b->id[i] = b->where[i] = i;
        b->shape[i] = -1; /* decomposed scenes are spheres: reserve leaves new slots unset */
    }
    b->count = count;
}

int ndem_sim_set_particles(ndem_sim *sim, long count, long first_ghost,
                           const ndem_particle_state *p, long history_count,
                           const ndem_history_entry *h, char *err, size_t err_len)
{
    ndem_bodies *b = &sim->bodies;
    if (ndem_bodies_reserve(b, count)) {
        snprintf(err, err_len, "out of memory setting the particles");
        return -1;
    }
    copy_states(b, count, p);
    sim->neighbours.valid = 0; /* the lists hold the old indices */
    if (set_history(sim, count, history_count, h, err, err_len)) return -1;
    ndem_decomp *d = sim->decomp;
    if (d) {
        d->first_ghost = first_ghost;
        if (ndem_ensure((void **)&d->x0, &d->x0_capacity, 3 * count, sizeof(double))) {
            snprintf(err, err_len, "out of memory setting the particles");
            return -1;
        }
        if (count > 0) memcpy(d->x0, b->pos, 3 * sizeof(double) * (size_t)count);
    }
    return 0;
}

int ndem_sim_checkpoint_of(const ndem_sim *sim, long count, const ndem_particle_state *p,
                           long history_count, const ndem_history_entry *h, void **buffer,
                           size_t *length)
{
    /* sim's own checkpoint with the particles and history swapped for
     * these: a scratch copy of the struct whose bodies and history are its
     * own, everything else (step, geometry, statistics) sim's */
    ndem_sim tmp = *sim;
    memset(&tmp.bodies, 0, sizeof tmp.bodies);
    memset(&tmp.history, 0, sizeof tmp.history);
    tmp.decomp = NULL;
    char err[128];
    int rc = -1;
    if (ndem_bodies_reserve(&tmp.bodies, count) == 0) {
        ndem_bodies *b = &tmp.bodies;
        copy_states(b, count, p);
        if (set_history(&tmp, count, history_count, h, err, sizeof err) == 0)
            rc = ndem_sim_checkpoint(&tmp, buffer, length);
    }
    ndem_bodies_destroy(&tmp.bodies);
    free(tmp.history.start), free(tmp.history.key), free(tmp.history.lam);
    return rc;
}

double ndem_sim_drift(const ndem_sim *sim)
{
    const ndem_bodies *b = &sim->bodies;
    const ndem_decomp *d = sim->decomp;
    double worst = 0, h = sim->solver.time_step;
    for (long i = 0; d && i < b->count; i++) {
        const double *x = &b->pos[3 * i], *x0 = &d->x0[3 * b->id[i]], *v = &b->vel[6 * i];
        double e[3] = {x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]};
        double step = h * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        worst = fmax(worst, sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) + step);
    }
    return worst;
}

void ndem_sim_set_totals(ndem_sim *sim, const ndem_step_stats *stats, const double *loads)
{
    sim->stats = *stats;
    if (sim->geometry_count > 0)
        memcpy(sim->loads, loads, sizeof(double) * NDEM_LOAD_STRIDE * (size_t)sim->geometry_count);
}

const double *ndem_sim_geometry_loads(const ndem_sim *sim) { return sim->loads; }
int ndem_sim_load_stride(void) { return NDEM_LOAD_STRIDE; }
