/* mpi.c - one scene over MPI ranks (ndem_mpi.h, docs/scale-out.md).
 *
 * Slabs along the longest axis of the initial particles, cut at equal
 * particle counts. Each rank's simulation holds its own particles (creation
 * ids 0..owned-1, by global id) and ghosts, the other ranks' particles
 * within `halo` of its slab (by global id after them). A global id is the
 * creation index one process would give. Everything goes to the two
 * neighbouring ranks only; the outputs' totals and frames go to rank 0.
 * Messages are raw bytes: the ranks are assumed to share one binary layout. */
#include "mpi_parts.h"
#include "ndem_mpi.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ndem_mpi_init(int *argc, char ***argv, char *err, size_t err_len)
{
    /* Open MPI and PMIx set these in every process mpirun starts */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_RANK")) {
        snprintf(err, err_len,
                 "--mpi runs under mpirun: mpirun -np 2 ndem run JOB.json --mpi "
                 "(without --mpi, ndem run uses one process)");
        return -1;
    }
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    return 0;
}

void ndem_mpi_finalize(void) { MPI_Finalize(); }
void ndem_mpi_abort(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code); /* MPI_Abort does not return in Open MPI; the standard does not say */
}
int ndem_mpi_world_rank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
int ndem_mpi_world_size(void)
{
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}
int ndem_mpi_rank(const ndem_mpi *m) { return m->rank; }
int ndem_mpi_size(const ndem_mpi *m) { return m->size; }
void ndem_mpi_get_costs(const ndem_mpi *m, ndem_mpi_costs *c)
{
    *c = m->costs;
    c->owned = m->owned;
    c->ghosts = m->count - m->owned;
}

int ndem_mpi_supported(const ndem_job *job, char *err, size_t err_len)
{
    const ndem_scene_def *s = &job->scene;
    const char *what = NULL;
    if (s->solver.method != NDEM_METHOD_NDEM) what = "smooth DEM (solver.method \"dem\")";
    else if (job->output.contacts) what = "output.contacts";
    for (int g = 0; !what && g < s->geometry_count; g++)
        if (s->geometry[g].dynamic.enabled) what = "dynamic geometry";
        else if (s->geometry[g].walls.enabled) what = "stress-controlled walls";
    for (int g = 0; !what && g < s->generator_count; g++) {
        const ndem_generator_def *d = &s->generators[g];
        if (d->fixed_rotation) what = "generators with fixed_rotation";
        else if (d->bonded) what = "bonds";
        else if (d->shape.type != NDEM_PARTICLE_SPHERE) what = "particle shapes";
        for (int k = 0; k < 3; k++)
            if (d->force[k] != 0 || d->force_rate[k] != 0) what = "generators with a force";
    }
    if (!what) return 0;
    snprintf(err, err_len,
             "--mpi does not support %s yet (docs/scale-out.md lists what it runs); "
             "run the job without --mpi",
             what);
    return -1;
}

int ndem_mpi_slab_of(const ndem_mpi *m, double x)
{
    int k = 0;
    while (k < m->size - 1 && x >= m->cut[k + 1]) k++;
    return k;
}

/* ---- neighbour messages: both neighbours at once, never a chain ---- */

/* Sends out[s] (bytes) to side s and receives from it into *in[s] (grown
 * with realloc), sizes first. 0, or -1 when out of memory. */
static int swap_bytes(ndem_mpi *m, int tag, void *const out[2], const long nout[2], void *in[2],
                      long nin[2])
{
    MPI_Request rq[4];
    int k = 0;
    for (int s = 0; s < 2; s++) {
        MPI_Irecv(&nin[s], 1, MPI_LONG, m->side[s].rank, TAG_N, MPI_COMM_WORLD, &rq[k++]);
        MPI_Isend(&nout[s], 1, MPI_LONG, m->side[s].rank, TAG_N, MPI_COMM_WORLD, &rq[k++]);
    }
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    int failed = 0;
    k = 0;
    for (int s = 0; s < 2; s++) {
        if (m->side[s].rank == MPI_PROC_NULL) nin[s] = 0;
        void *p = realloc(in[s], (size_t)nin[s] + 1);
        if (!p) failed = 1, nin[s] = 0;
        else in[s] = p;
        /* messages above 2 GB would need splitting; migrations are far smaller */
        MPI_Irecv(in[s], (int)nin[s], MPI_BYTE, m->side[s].rank, tag, MPI_COMM_WORLD, &rq[k++]);
        MPI_Isend(out[s], (int)nout[s], MPI_BYTE, m->side[s].rank, tag, MPI_COMM_WORLD, &rq[k++]);
        if (m->side[s].rank != MPI_PROC_NULL) {
            m->costs.migrate_bytes += (double)nout[s];
            m->costs.migrate_messages += 2;
        }
    }
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    return failed ? -1 : 0;
}

/* ---- the velocity exchange of every sweep (HCSITS) ---- */

static void exchange_floats(ndem_mpi *m, int tag, const long count_out[2], const long count_in[2])
{
    double t0 = MPI_Wtime();
    MPI_Request rq[4];
    int k = 0;
    for (int s = 0; s < 2; s++) {
        side *sd = &m->side[s];
        MPI_Irecv(sd->buf_in, (int)(6 * count_in[s]), MPI_FLOAT, sd->rank, tag, MPI_COMM_WORLD,
                  &rq[k++]);
        MPI_Isend(sd->buf_out, (int)(6 * count_out[s]), MPI_FLOAT, sd->rank, tag, MPI_COMM_WORLD,
                  &rq[k++]);
        if (sd->rank != MPI_PROC_NULL) {
            m->costs.sweep_bytes += 24.0 * (double)count_out[s];
            m->costs.sweep_messages += 1;
        }
    }
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    m->costs.exchange_seconds += MPI_Wtime() - t0;
}

/* Mass splitting (Tonge et al. 2012, as the engine splits dynamic bodies):
 * a shared body that rows on both of its copies' ranks act on (slabs are
 * at least two halos wide, so no body has more than two copies) sweeps
 * with half its mass on each, and after every sweep both copies take the
 * mean of their velocity changes: the sum of both sides' impulses on the
 * whole mass. Summed at full mass, both sides would cancel the same
 * approach speed and overshoot (a bed would never rest at the cut). A body
 * only one side acts on keeps its mass and the plain sum. k: the copies
 * whose rows act on it, per shared body, agreed when the slots load. */
static void hook_loaded(void *ctx, float *slots, const long *where, const unsigned char *touched)
{
    ndem_mpi *m = ctx;
    long nt[2] = {m->side[0].n_theirs, m->side[1].n_theirs};
    long nm[2] = {m->side[0].n_mine, m->side[1].n_mine};
    /* ghosts tell their owners whether they are touched; owners answer k */
    for (int s = 0; s < 2; s++)
        for (long k = 0; k < nt[s]; k++) {
            long id = m->side[s].theirs[k];
            m->side[s].buf_out[6 * k] = touched ? touched[where[id]] : 1;
        }
    exchange_floats(m, TAG_DV, nt, nm);
    for (int s = 0; s < 2; s++)
        for (long k = 0; k < nm[s]; k++) {
            long id = m->side[s].mine[k];
            float mine = touched ? touched[where[id]] : 1;
            m->share[id] = mine + m->side[s].buf_in[6 * k] > 1.5f ? 2 : 1;
            m->side[s].buf_out[6 * k] = (float)m->share[id];
        }
    exchange_floats(m, TAG_V, nm, nt);
    for (int s = 0; s < 2; s++)
        for (long k = 0; k < nt[s]; k++)
            m->share[m->side[s].theirs[k]] = (int)m->side[s].buf_in[6 * k];
    for (int s = 0; s < 2; s++)
        for (int w = 0; w < 2; w++) {
            long n = w ? nm[s] : nt[s];
            const long *ids = w ? m->side[s].mine : m->side[s].theirs;
            for (long k = 0; k < n; k++) {
                float *v = &slots[NDEM_SLOT_FLOATS * where[ids[k]]];
                memcpy(&m->base[6 * ids[k]], v, 6 * sizeof(float));
                if (m->share[ids[k]] == 2) v[6] *= 2.0f, v[7] *= 2.0f;
            }
        }
}

/* Ghosts' changes since the last exchange go to their owners, which add
 * them (over k, above); the result comes back into the ghost. */
static void hook_sweep(void *ctx, float *slots, const long *where)
{
    ndem_mpi *m = ctx;
    long nt[2] = {m->side[0].n_theirs, m->side[1].n_theirs};
    long nm[2] = {m->side[0].n_mine, m->side[1].n_mine};
    for (int s = 0; s < 2; s++)
        for (long k = 0; k < nt[s]; k++) {
            long id = m->side[s].theirs[k];
            const float *v = &slots[NDEM_SLOT_FLOATS * where[id]];
            for (int q = 0; q < 6; q++) m->side[s].buf_out[6 * k + q] = v[q] - m->base[6 * id + q];
        }
    exchange_floats(m, TAG_DV, nt, nm);
    for (int s = 0; s < 2; s++)
        for (long k = 0; k < nm[s]; k++) {
            long id = m->side[s].mine[k];
            float *v = &slots[NDEM_SLOT_FLOATS * where[id]], *b = &m->base[6 * id];
            float f = m->share[id] == 2 ? 0.5f : 1.0f;
            for (int q = 0; q < 6; q++) {
                v[q] = b[q] + f * ((v[q] - b[q]) + m->side[s].buf_in[6 * k + q]);
                b[q] = v[q];
            }
            memcpy(&m->side[s].buf_out[6 * k], v, 6 * sizeof(float));
        }
    exchange_floats(m, TAG_V, nm, nt);
    for (int s = 0; s < 2; s++)
        for (long k = 0; k < nt[s]; k++) {
            long id = m->side[s].theirs[k];
            memcpy(&slots[NDEM_SLOT_FLOATS * where[id]], &m->side[s].buf_in[6 * k],
                   6 * sizeof(float));
            memcpy(&m->base[6 * id], &m->side[s].buf_in[6 * k], 6 * sizeof(float));
        }
    m->costs.sweeps++;
}

static int hook_owns(void *ctx, const double p[3])
{
    const ndem_mpi *m = ctx;
    return ndem_mpi_slab_of(m, p[m->axis]) == m->rank;
}

/* Sum over the ranks in rank order on every rank: the same bits everywhere
 * (decisions such as the early exit must agree). */
static double hook_sum(void *ctx, double v)
{
    const ndem_mpi *m = ctx;
    double *all = malloc(sizeof(double) * (size_t)m->size), s = 0;
    if (!all) ndem_mpi_abort(1);
    MPI_Allgather(&v, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < m->size; r++) s += all[r];
    free(all);
    return s;
}

/* ---- migration ---- */

int ndem_mpi_cmp_part(const void *x, const void *y)
{
    long a = ((const part *)x)->gid, b = ((const part *)y)->gid;
    return (a > b) - (a < b);
}

long ndem_mpi_find_gid(const part *p, long n, long gid)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (p[mid].gid < gid) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && p[lo].gid == gid ? lo : -1;
}

/* The local creation id of a global id in all (own particles, then
 * ghosts, each sorted), or -1. */
long ndem_mpi_local_of(const part *all, long owned, long count, long gid)
{
    long k = ndem_mpi_find_gid(all, owned, gid);
    if (k >= 0) return k;
    k = ndem_mpi_find_gid(all + owned, count - owned, gid);
    return k >= 0 ? owned + k : -1;
}

int ndem_mpi_within(const ndem_mpi *m, int slab, double x)
{
    return slab >= 0 && slab < m->size && x >= m->cut[slab] - m->halo &&
           x < m->cut[slab + 1] + m->halo;
}

/* Rebuilds this rank's particles: own particles that left the slab go to
 * the neighbour, then ghost copies to each neighbour, then the warm-start
 * entries a neighbour may need. Collective over the ranks. */
int ndem_mpi_migrate(ndem_mpi *m, char *err, size_t err_len)
{
    double t0 = MPI_Wtime();
    long n = ndem_sim_particle_count(m->sim);
    part *cur = malloc(sizeof *cur * (size_t)(n + 1));
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(n + 1));
    ndem_history_entry *he = NULL;
    long nh = ndem_sim_get_history(m->sim, &he);
    vec out[2] = {{0}}, keep = {0}, hout[2] = {{0}}, hkeep = {0};
    void *in[2] = {NULL, NULL}, *gin[2] = {NULL, NULL}, *hin[2] = {NULL, NULL};
    long nin[2], gnin[2], hnin[2];
    part *all = NULL;
    int rc = -1;
    err[0] = 0;
    if (!cur || !st || nh < 0) goto done;
    ndem_sim_get_particles(m->sim, st);
    for (long i = 0; i < n; i++) cur[i].gid = m->gid[i], cur[i].s = st[i];
    /* 1. own particles to their new owner */
    for (long i = 0; i < m->owned; i++) {
        int to = ndem_mpi_slab_of(m, cur[i].s.x[m->axis]);
        if (to == m->rank) {
            if (push(&keep, &cur[i], sizeof(part))) goto done;
        } else if (to == m->rank - 1 || to == m->rank + 1) {
            if (push(&out[to > m->rank], &cur[i], sizeof(part))) goto done;
        } else {
            snprintf(err, err_len,
                     "particle %ld crossed more than one slab between two migrations; "
                     "use fewer ranks",
                     cur[i].gid);
            ndem_mpi_abort(1);
        }
    }
    void *o1[2] = {out[0].p, out[1].p};
    long no1[2] = {out[0].n, out[1].n};
    if (swap_bytes(m, TAG_MIGRATE, o1, no1, in, nin)) goto done;
    for (int s = 0; s < 2; s++)
        if (nin[s] > 0 && push(&keep, in[s], (size_t)nin[s])) goto done;
    long owned = keep.n / (long)sizeof(part);
    qsort(keep.p, (size_t)owned, sizeof(part), ndem_mpi_cmp_part);
    /* 2. ghost copies of own particles near each neighbour's slab */
    const part *own = keep.p;
    for (int s = 0; s < 2; s++) {
        out[s].n = 0;
        int nb = m->rank + (s ? 1 : -1);
        for (long i = 0; i < owned; i++)
            if (ndem_mpi_within(m, nb, own[i].s.x[m->axis]) && push(&out[s], &own[i], sizeof(part)))
                goto done;
    }
    void *o2[2] = {out[0].p, out[1].p};
    long no2[2] = {out[0].n, out[1].n};
    if (swap_bytes(m, TAG_GHOST, o2, no2, gin, gnin)) goto done;
    long ng[2] = {gnin[0] / (long)sizeof(part), gnin[1] / (long)sizeof(part)};
    long count = owned + ng[0] + ng[1];
    all = malloc(sizeof *all * (size_t)(count + 1));
    if (!all) goto done;
    memcpy(all, keep.p, sizeof(part) * (size_t)owned);
    for (int s = 0; s < 2; s++)
        if (ng[s] > 0) memcpy(all + owned + (s ? ng[0] : 0), gin[s], sizeof(part) * (size_t)ng[s]);
    qsort(all + owned, (size_t)(ng[0] + ng[1]), sizeof(part), ndem_mpi_cmp_part);
    /* the shared lists, in global id order on both sides */
    for (int s = 0; s < 2; s++) {
        side *sd = &m->side[s];
        free(sd->mine), free(sd->theirs), free(sd->buf_out), free(sd->buf_in);
        long nm = no2[s] / (long)sizeof(part), most = nm > ng[s] ? nm : ng[s];
        sd->mine = malloc(sizeof(long) * (size_t)(nm + 1));
        sd->theirs = malloc(sizeof(long) * (size_t)(ng[s] + 1));
        sd->buf_out = malloc(6 * sizeof(float) * (size_t)(most + 1));
        sd->buf_in = malloc(6 * sizeof(float) * (size_t)(most + 1));
        if (!sd->mine || !sd->theirs || !sd->buf_out || !sd->buf_in) goto done;
        const part *sent = out[s].p, *got = gin[s];
        for (long k = 0; k < nm; k++) sd->mine[k] = ndem_mpi_find_gid(all, owned, sent[k].gid);
        for (long k = 0; k < ng[s]; k++)
            sd->theirs[k] = owned + ndem_mpi_find_gid(all + owned, count - owned, got[k].gid);
        sd->n_mine = nm;
        sd->n_theirs = ng[s];
    }
    /* 3. warm-start entries: those a neighbour may solve next go to it too;
     * each rank keeps the entries whose particles it holds */
    for (long k = 0; k < nh; k++) {
        hist h = {m->gid[he[k].a], he[k].b >= 0 ? m->gid[he[k].b] : he[k].b, he[k]};
        if (push(&hkeep, &h, sizeof h)) goto done;
        for (int s = 0; s < 2; s++) {
            int nb = m->rank + (s ? 1 : -1);
            int near = ndem_mpi_within(m, nb, st[he[k].a].x[m->axis]) ||
                       (he[k].b >= 0 && ndem_mpi_within(m, nb, st[he[k].b].x[m->axis]));
            if (near && push(&hout[s], &h, sizeof h)) goto done;
        }
    }
    void *o3[2] = {hout[0].p, hout[1].p};
    long no3[2] = {hout[0].n, hout[1].n};
    if (swap_bytes(m, TAG_HISTORY, o3, no3, hin, hnin)) goto done;
    for (int s = 0; s < 2; s++)
        if (hnin[s] > 0 && push(&hkeep, hin[s], (size_t)hnin[s])) goto done;
    long nk = hkeep.n / (long)sizeof(hist), used = 0;
    hist *hk = hkeep.p;
    ndem_history_entry *ent = malloc(sizeof *ent * (size_t)(nk + 1));
    ndem_particle_state *ps = realloc(st, sizeof *ps * (size_t)(count + 1));
    if (!ent || !ps) {
        free(ent);
        goto done;
    }
    st = ps;
    long *gid = realloc(m->gid, sizeof(long) * (size_t)(count + 1));
    float *base = realloc(m->base, 6 * sizeof(float) * (size_t)(count + 1));
    int *share = realloc(m->share, sizeof(int) * (size_t)(count + 1));
    if (gid) m->gid = gid;
    if (base) m->base = base;
    if (share) m->share = share;
    if (!gid || !base || !share) {
        free(ent);
        goto done;
    }
    for (long i = 0; i < count; i++) st[i] = all[i].s, m->gid[i] = all[i].gid;
    for (long k = 0; k < nk; k++) {
        long a = ndem_mpi_local_of(all, owned, count, hk[k].ga), b = hk[k].gb;
        if (b >= 0) b = ndem_mpi_local_of(all, owned, count, b);
        if (a < 0 || (hk[k].gb >= 0 && b < 0)) continue; /* not held here */
        ent[used] = hk[k].e;
        ent[used].a = a;
        ent[used].b = b;
        used++;
    }
    rc = ndem_sim_set_particles(m->sim, count, owned, st, used, ent, err, err_len);
    free(ent);
    if (rc == 0) {
        m->owned = owned;
        m->count = count;
        m->costs.migrations++;
    }
done:
    if (rc && !err[0]) snprintf(err, err_len, "out of memory migrating particles");
    free(cur), free(st), free(he), free(all);
    for (int s = 0; s < 2; s++)
        free(out[s].p), free(in[s]), free(gin[s]), free(hin[s]), free(hout[s].p);
    free(keep.p), free(hkeep.p);
    m->costs.migrate_seconds += MPI_Wtime() - t0;
    return rc;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

ndem_mpi *ndem_mpi_create(ndem_sim *sim, const double gravity[3], int axis, const double *cuts,
                          int resume, char *err, size_t err_len)
{
    ndem_mpi *m = calloc(1, sizeof *m);
    long n = ndem_sim_particle_count(sim);
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(n + 1));
    double *xs = malloc(sizeof(double) * (size_t)(n + 1));
    if (!m || !st || !xs) goto oom;
    m->sim = sim;
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    ndem_sim_get_particles(sim, st);
    /* the longest extent of the initial particles; the largest radius */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double rmax = 0;
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], st[i].x[k]), hi[k] = fmax(hi[k], st[i].x[k]);
        rmax = fmax(rmax, st[i].radius);
    }
    /* the longest extent, but not along gravity's main axis: a settling
     * scene would pour through the slabs' faces and pile up in one */
    int down = -1;
    if (gravity[0] != 0 || gravity[1] != 0 || gravity[2] != 0) {
        down = 0;
        for (int k = 1; k < 3; k++)
            if (fabs(gravity[k]) > fabs(gravity[down])) down = k;
    }
    m->axis = down == 0 ? 1 : 0;
    for (int k = 0; k < 3; k++)
        if (k != down && hi[k] - lo[k] > hi[m->axis] - lo[m->axis]) m->axis = k;
    if (axis >= 0) m->axis = axis; /* --mpi-axis */
    /* a pair is a contact candidate within 2.05 rmax plus what closes in a
     * step; the margin is how far pairs may close between migrations */
    m->margin = rmax;
    m->halo = 2.1 * rmax + m->margin;
    m->cut = malloc(sizeof(double) * (size_t)(m->size + 1));
    if (!m->cut) goto oom;
    for (long i = 0; i < n; i++) xs[i] = st[i].x[m->axis];
    qsort(xs, (size_t)n, sizeof(double), cmp_double);
    m->cut[0] = -INFINITY;
    m->cut[m->size] = INFINITY;
    for (int k = 1; k < m->size; k++) /* equal particle counts, or the checkpoint's */
        m->cut[k] = cuts ? cuts[k - 1] : n > 0 ? xs[(long)((double)n * k / m->size)] : (double)k;
    for (int k = 1; k + 1 < m->size; k++)
        if (m->cut[k + 1] - m->cut[k] < 2.0 * m->halo + m->margin) {
            snprintf(err, err_len,
                     "%d ranks cut this scene into slabs of %.3g m along %c, below the halo "
                     "of %.3g m: use fewer ranks",
                     m->size, m->cut[k + 1] - m->cut[k], "xyz"[m->axis], m -> halo + m -> margin);
            goto fail;
        }
    m->side[0].rank = m->rank > 0 ? m->rank - 1 : MPI_PROC_NULL;
    m->side[1].rank = m->rank + 1 < m->size ? m->rank + 1 : MPI_PROC_NULL;
    ndem_decomp_hooks hooks = {m,
                               hook_owns,
                               hook_loaded,
                               hook_sweep,
                               hook_sum,
                               ndem_mpi_hook_region,
                               ndem_mpi_hook_emitted};
    m->total = n;
    if (resume) { /* the whole scene of a checkpoint: rebuilt as the writer did */
        ndem_history_entry *he = NULL;
        long nh = ndem_sim_get_history(sim, &he);
        if (nh < 0) goto oom;
        int rc =
            ndem_sim_decompose(sim, &hooks, n) || ndem_mpi_rebuild(m, n, st, nh, he, err, err_len);
        free(he);
        if (rc) goto fail;
        free(st), free(xs);
        return m;
    }
    /* every rank made every particle: keep the own ones, then migrate
     * (which finds the ghosts) */
    m->gid = malloc(sizeof(long) * (size_t)(n + 1));
    if (!m->gid) goto oom;
    long own = 0;
    for (long i = 0; i < n; i++)
        if (ndem_mpi_slab_of(m, st[i].x[m->axis]) == m->rank) m->gid[own] = i, st[own++] = st[i];
    if (ndem_sim_decompose(sim, &hooks, own)) {
        snprintf(err, err_len, "this scene cannot be decomposed (NDEM on particles only)");
        goto fail;
    }
    if (ndem_sim_set_particles(sim, own, own, st, 0, NULL, err, err_len)) goto fail;
    m->owned = m->count = own;
    free(st), free(xs);
    st = NULL, xs = NULL;
    if (ndem_mpi_migrate(m, err, err_len)) goto fail;
    return m;
oom:
    snprintf(err, err_len, "out of memory splitting the scene");
fail:
    free(st), free(xs);
    ndem_mpi_destroy(m);
    return NULL;
}

void ndem_mpi_destroy(ndem_mpi *m)
{
    if (!m) return;
    for (int s = 0; s < 2; s++)
        free(m->side[s].mine), free(m->side[s].theirs), free(m->side[s].buf_out),
            free(m->side[s].buf_in);
    free(m->cut), free(m->gid), free(m->base), free(m->share);
    free(m);
}

int ndem_mpi_before_step(ndem_mpi *m, int stop)
{
    /* a pair not held together closes by at most twice the largest drift */
    double mine[2] = {(double)stop, ndem_sim_drift(m->sim)}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (all[0] > 0) return (int)all[0];
    if (2.0 * all[1] > m->margin) {
        char err[256] = "";
        if (ndem_mpi_migrate(m, err, sizeof err)) {
            fprintf(stderr, "ndem: rank %d: %s\n", m->rank, err);
            ndem_mpi_abort(1);
        }
    }
    return 0;
}

/* Statistics that add up over ranks, and those that take the largest. */
void ndem_mpi_after_step(ndem_mpi *m)
{
    const ndem_step_stats *s = ndem_sim_stats(m->sim);
    int ng = ndem_sim_geometry_count(m->sim), stride = ndem_sim_load_stride();
    const double *loads = ndem_sim_geometry_loads(m->sim);
    enum { NSUM = 6, NMAX = 8 };
    long len = NSUM + 6L * ng;
    double *sum = malloc(sizeof(double) * (size_t)(2 * len)), mx[NMAX], mxo[NMAX];
    if (!sum) {
        ndem_mpi_abort(1);
        return;
    }
    double *tot = sum + len;
    double v[NSUM] = {(double)m->owned,   (double)s->contacts, (double)s->geometry_contacts,
                      (double)s->impacts, (double)s->rows,     s->kinetic_energy};
    memcpy(sum, v, sizeof v);
    for (int g = 0; g < ng; g++) memcpy(&sum[NSUM + 6 * g], &loads[stride * g], 6 * sizeof(double));
    double w[NMAX] = {s->max_overlap,      (double)s->colors,     s->wall_broadphase,
                      s->wall_narrowphase, s->wall_solve,         s->wall_integrate,
                      s->wall_total,       (double)s->impact_rows};
    memcpy(mx, w, sizeof w);
    /* gathered and added in rank order: the same bits for any reduction
     * algorithm the MPI library picks (MPI_Reduce does not promise one) */
    double *each = m->rank == 0 ? malloc(sizeof(double) * (size_t)(len * m->size)) : NULL;
    if (m->rank == 0 && !each) ndem_mpi_abort(1);
    MPI_Gather(sum, (int)len, MPI_DOUBLE, each, (int)len, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (long k = 0; m->rank == 0 && k < len; k++) {
        tot[k] = 0;
        for (int r = 0; r < m->size; r++) tot[k] += each[len * r + k];
    }
    free(each);
    MPI_Reduce(mx, mxo, NMAX, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (m->rank == 0) {
        ndem_step_stats t = *s;
        t.particles = (long)tot[0];
        t.contacts = (long)tot[1];
        t.geometry_contacts = (long)tot[2];
        t.impacts = (long)tot[3];
        t.rows = (long)tot[4];
        t.kinetic_energy = tot[5];
        t.max_overlap = mxo[0];
        t.colors = (int)mxo[1];
        t.wall_broadphase = mxo[2], t.wall_narrowphase = mxo[3], t.wall_solve = mxo[4];
        t.wall_integrate = mxo[5], t.wall_total = mxo[6];
        t.impact_rows = (long)mxo[7];
        double *all = malloc(sizeof(double) * (size_t)(stride * ng + 1));
        if (!all) ndem_mpi_abort(1);
        for (int g = 0; g < ng; g++) {
            memcpy(&all[stride * g], &loads[stride * g], sizeof(double) * (size_t)stride);
            memcpy(&all[stride * g], &tot[NSUM + 6 * g], 6 * sizeof(double));
        }
        ndem_sim_set_totals(m->sim, &t, all);
        free(all);
    }
    free(sum);
}

/* One particle of a frame: global id, position, radius, v, w. */
typedef struct motion {
    long gid;
    double x[3], r, v[3], w[3];
    int material;
} motion;

int ndem_mpi_gather_frame(ndem_mpi *m, ndem_frame *f)
{
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(m->count + 1));
    motion *mine = malloc(sizeof *mine * (size_t)(m->owned + 1));
    int mine_bytes = (int)(sizeof(motion) * (size_t)m->owned), *bytes = NULL, *at = NULL;
    motion *all = NULL;
    int rc = -1;
    if (!st || !mine) ndem_mpi_abort(1);
    ndem_sim_get_particles(m->sim, st);
    for (long i = 0; i < m->owned; i++) {
        mine[i].gid = m->gid[i];
        memcpy(mine[i].x, st[i].x, sizeof mine[i].x);
        mine[i].r = st[i].radius;
        memcpy(mine[i].v, st[i].v, 3 * sizeof(double));
        memcpy(mine[i].w, &st[i].v[3], 3 * sizeof(double));
        mine[i].material = st[i].material;
    }
    long total = 0;
    if (m->rank == 0) {
        bytes = malloc(sizeof(int) * (size_t)m->size);
        at = malloc(sizeof(int) * (size_t)m->size);
        if (!bytes || !at) ndem_mpi_abort(1);
    }
    MPI_Gather(&mine_bytes, 1, MPI_INT, bytes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (m->rank == 0) {
        long off = 0;
        for (int r = 0; r < m->size; r++) at[r] = (int)off, off += bytes[r];
        total = off / (long)sizeof(motion);
        all = malloc(sizeof *all * (size_t)(total + 1));
        if (!all) ndem_mpi_abort(1);
    }
    MPI_Gatherv(mine, mine_bytes, MPI_BYTE, all, bytes, at, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (m->rank == 0 && ndem_sim_copy_motion(m->sim, f) == 0) {
        free(f->positions), free(f->radii), free(f->velocities), free(f->angular_velocities);
        free(f->materials);
        f->positions = malloc(3 * sizeof(double) * (size_t)(total + 1));
        f->radii = malloc(sizeof(double) * (size_t)(total + 1));
        f->velocities = malloc(3 * sizeof(double) * (size_t)(total + 1));
        f->angular_velocities = malloc(3 * sizeof(double) * (size_t)(total + 1));
        f->materials = malloc(sizeof(int) * (size_t)(total + 1));
        f->count = total;
        rc = f->positions && f->radii && f->velocities && f->angular_velocities && f->materials
                 ? 0
                 : -1;
        for (long k = 0; rc == 0 && k < total; k++) {
            long g = all[k].gid;
            if (g < 0 || g >= total) { /* ids are 0..total-1, each once */
                rc = -1;
                break;
            }
            memcpy(&f->positions[3 * g], all[k].x, 3 * sizeof(double));
            f->radii[g] = all[k].r;
            f->materials[g] = all[k].material;
            memcpy(&f->velocities[3 * g], all[k].v, 3 * sizeof(double));
            memcpy(&f->angular_velocities[3 * g], all[k].w, 3 * sizeof(double));
        }
        if (rc) ndem_frame_free(f);
    } else if (m->rank != 0) {
        rc = 0;
    }
    free(st), free(mine), free(bytes), free(at), free(all);
    return rc;
}

void ndem_mpi_gather_doubles(const double *mine, int n, double *all)
{
    MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
