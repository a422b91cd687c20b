/* mpi.c - one scene over MPI ranks (ndem_mpi.h, docs/scale-out.md).
 *
 * A grid of blocks (core/decomp_grid.h; slabs are one axis of it), cut at
 * equal particle counts. Each rank's simulation holds its own particles
 * (creation ids 0..owned-1, by global id) and ghosts, the other ranks'
 * particles within `halo` of its block (by global id after them). A global
 * id is the creation index one process would give. Everything goes to the
 * neighbouring blocks only (mpi_migrate.c); the outputs' totals and frames
 * go to rank 0.
 * Messages are raw bytes: the ranks are assumed to share one binary layout. */
#include "mpi_parts.h"
#include "ndem_mpi.h"

#include <limits.h>
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

/* ---- the velocity exchange of every sweep (HCSITS) ---- */

/* 6 floats per shared body with every neighbour at once: ghosts to their
 * owners (to_owner) or owners to their ghosts. */
static void exchange_floats(ndem_mpi *m, int tag, int to_owner)
{
    double t0 = MPI_Wtime();
    int k = 0;
    for (int s = 0; s < m->n_nb; s++) {
        side *sd = &m->nb[s];
        long nout = to_owner ? sd->n_theirs : sd->n_mine,
             nin = to_owner ? sd->n_mine : sd->n_theirs;
        MPI_Irecv(sd->buf_in, (int)(6 * nin), MPI_FLOAT, sd->rank, tag, MPI_COMM_WORLD,
                  &m->rq[k++]);
        MPI_Isend(sd->buf_out, (int)(6 * nout), MPI_FLOAT, sd->rank, tag, MPI_COMM_WORLD,
                  &m->rq[k++]);
        m->costs.sweep_bytes += 24.0 * (double)nout;
        m->costs.sweep_messages += 1;
    }
    MPI_Waitall(k, m->rq, MPI_STATUSES_IGNORE);
    m->costs.exchange_seconds += MPI_Wtime() - t0;
}

/* Mass splitting (Tonge et al. 2012, as the engine splits dynamic bodies):
 * a shared body that rows on k > 1 of its copies' ranks act on (up to 8 at
 * a corner of blocks) sweeps with 1/k of its mass on each, and after every
 * sweep every copy takes the mean of their velocity changes: the sum of
 * all sides' impulses on the whole mass. Summed at full mass, the sides
 * would each cancel the same approach speed and overshoot (a bed would
 * never rest at a cut). A body only one rank acts on keeps its mass and
 * the plain sum. k per shared body, agreed when the slots load. */
static void hook_loaded(void *ctx, float *slots, const long *where, const unsigned char *touched)
{
    ndem_mpi *m = ctx;
    /* ghosts tell their owners whether they are touched; owners answer k */
    for (int s = 0; s < m->n_nb; s++)
        for (long k = 0; k < m->nb[s].n_theirs; k++) {
            long id = m->nb[s].theirs[k];
            m->nb[s].buf_out[6 * k] = touched ? touched[where[id]] : 1;
        }
    exchange_floats(m, TAG_DV, 1);
    for (long k = 0; k < m->n_shared; k++) {
        long id = m->shared[k];
        m->share[id] = touched ? touched[where[id]] : 1;
    }
    for (int s = 0; s < m->n_nb; s++)
        for (long k = 0; k < m->nb[s].n_mine; k++)
            m->share[m->nb[s].mine[k]] += (int)m->nb[s].buf_in[6 * k];
    for (long k = 0; k < m->n_shared; k++)
        if (m->share[m->shared[k]] < 1) m->share[m->shared[k]] = 1;
    for (int s = 0; s < m->n_nb; s++)
        for (long k = 0; k < m->nb[s].n_mine; k++)
            m->nb[s].buf_out[6 * k] = (float)m->share[m->nb[s].mine[k]];
    exchange_floats(m, TAG_V, 0);
    for (int s = 0; s < m->n_nb; s++)
        for (long k = 0; k < m->nb[s].n_theirs; k++)
            m->share[m->nb[s].theirs[k]] = (int)m->nb[s].buf_in[6 * k];
    /* every shared body once: own ones, then the ghosts (all are shared) */
    for (long k = 0; k < m->n_shared + m->count - m->owned; k++) {
        long id = k < m->n_shared ? m->shared[k] : m->owned + (k - m->n_shared);
        float *v = &slots[NDEM_SLOT_FLOATS * where[id]];
        memcpy(&m->base[6 * id], v, 6 * sizeof(float));
        if (m->share[id] > 1) v[6] *= (float)m->share[id], v[7] *= (float)m->share[id];
    }
}

/* Ghosts' changes since the last exchange go to their owners, which add
 * them (over k, above) in neighbour order; the result comes back into
 * every ghost. */
static void hook_sweep(void *ctx, float *slots, const long *where)
{
    ndem_mpi *m = ctx;
    for (int s = 0; s < m->n_nb; s++)
        for (long k = 0; k < m->nb[s].n_theirs; k++) {
            long id = m->nb[s].theirs[k];
            const float *v = &slots[NDEM_SLOT_FLOATS * where[id]];
            for (int q = 0; q < 6; q++) m->nb[s].buf_out[6 * k + q] = v[q] - m->base[6 * id + q];
        }
    exchange_floats(m, TAG_DV, 1);
    /* b + f (own change + each neighbour's): after the first neighbour
     * v = b, so the own change is counted once */
    for (int s = 0; s < m->n_nb; s++)
        for (long k = 0; k < m->nb[s].n_mine; k++) {
            long id = m->nb[s].mine[k];
            float *v = &slots[NDEM_SLOT_FLOATS * where[id]], *b = &m->base[6 * id];
            float f = 1.0f / (float)m->share[id];
            for (int q = 0; q < 6; q++) {
                v[q] = b[q] + f * ((v[q] - b[q]) + m->nb[s].buf_in[6 * k + q]);
                b[q] = v[q];
            }
        }
    for (int s = 0; s < m->n_nb; s++)
        for (long k = 0; k < m->nb[s].n_mine; k++)
            memcpy(&m->nb[s].buf_out[6 * k], &slots[NDEM_SLOT_FLOATS * where[m->nb[s].mine[k]]],
                   6 * sizeof(float));
    exchange_floats(m, TAG_V, 0);
    for (int s = 0; s < m->n_nb; s++)
        for (long k = 0; k < m->nb[s].n_theirs; k++) {
            long id = m->nb[s].theirs[k];
            memcpy(&slots[NDEM_SLOT_FLOATS * where[id]], &m->nb[s].buf_in[6 * k],
                   6 * sizeof(float));
            memcpy(&m->base[6 * id], &m->nb[s].buf_in[6 * k], 6 * sizeof(float));
        }
    m->costs.sweeps++;
}

static int hook_owns(void *ctx, const double p[3])
{
    const ndem_mpi *m = ctx;
    return ndem_mpi_owner(m, p) == m->rank;
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

static void sum_none(void *ctx, long *counts, int n) { (void)ctx, (void)counts, (void)n; }

ndem_mpi *ndem_mpi_create(ndem_sim *sim, const double gravity[3], const int dims[3],
                          const double *cuts, long balance_steps, int resume, char *err,
                          size_t err_len)
{
    ndem_mpi *m = calloc(1, sizeof *m);
    long n = ndem_sim_particle_count(sim);
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(n + 1));
    double *xs = malloc(3 * sizeof(double) * (size_t)(n + 1));
    if (!m || !st || !xs) goto oom;
    m->sim = sim;
    m->balance_steps = balance_steps;
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    ndem_sim_get_particles(sim, st);
    /* the extent of the initial particles; the largest radius */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double rmax = 0;
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], st[i].x[k]), hi[k] = fmax(hi[k], st[i].x[k]);
        rmax = fmax(rmax, st[i].radius);
        memcpy(&xs[3 * i], st[i].x, sizeof st[i].x);
    }
    /* the grid asked for, or the least cut area, not across gravity's
     * main axis: a settling scene would pour through the blocks' faces */
    int d[3] = {dims[0], dims[1], dims[2]};
    if (d[0] < 1 || d[1] < 1 || d[2] < 1) {
        int down = -1;
        if (gravity[0] != 0 || gravity[1] != 0 || gravity[2] != 0) {
            down = 0;
            for (int k = 1; k < 3; k++)
                if (fabs(gravity[k]) > fabs(gravity[down])) down = k;
        }
        double ext[3];
        for (int k = 0; k < 3; k++) ext[k] = n > 0 ? hi[k] - lo[k] + 2 * rmax : 1;
        ndem_grid_auto_dims(m->size, ext, down, d);
    }
    if (d[0] * d[1] * d[2] != m->size) {
        snprintf(err, err_len, "--mpi-grid %dx%dx%d has %d blocks, but mpirun started %d ranks",
                 d[0], d[1], d[2], d[0] * d[1] * d[2], m->size);
        goto fail;
    }
    if (ndem_grid_init(&m->grid, d)) goto oom;
    /* equal particle counts (every rank holds every particle: no sums), or
     * the checkpoint's cuts */
    if (cuts) ndem_grid_set_cuts(&m->grid, cuts);
    else if (ndem_grid_balance(&m->grid, n, xs, sum_none, NULL)) goto oom;
    /* a pair is a contact candidate within 2.05 rmax plus what closes in a
     * step; the margin is how far pairs may close between migrations */
    m->margin = rmax;
    m->halo = 2.1 * rmax + m->margin;
    if (ndem_mpi_set_neighbours(m, 0)) goto oom;
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
        if (ndem_mpi_owner(m, st[i].x) == m->rank) m->gid[own] = i, st[own++] = st[i];
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
    ndem_mpi_free_sides(m);
    ndem_grid_free(&m->grid);
    free(m->gid), free(m->base), free(m->share), free(m->shared);
    free(m);
}

int ndem_mpi_before_step(ndem_mpi *m, int stop)
{
    /* a pair not held together closes by at most twice the largest drift */
    double mine[2] = {(double)stop, ndem_sim_drift(m->sim)}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (all[0] > 0) return (int)all[0];
    long step = ndem_sim_stats(m->sim)->step; /* the same on every rank */
    char err[256] = "";
    if (m->balance_steps > 0 && step > 0 && step % m->balance_steps == 0) {
        if (ndem_mpi_rebalance(m, err, sizeof err)) { /* migrates too */
            fprintf(stderr, "ndem: rank %d: %s\n", m->rank, err);
            ndem_mpi_abort(1);
        }
    } else if (2.0 * all[1] > m->margin) {
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

/* MPI counts and displacements are ints: gathers count records of one
 * particle (not bytes), and a total past INT_MAX is refused by name. */
static MPI_Datatype record_type(size_t bytes)
{
    MPI_Datatype t;
    MPI_Type_contiguous((int)bytes, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
}

int ndem_mpi_gather_frame(ndem_mpi *m, ndem_frame *f, char *err, size_t err_len)
{
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(m->count + 1));
    motion *mine = malloc(sizeof *mine * (size_t)(m->owned + 1));
    int *cnt = NULL, *at = NULL, n_mine = (int)m->owned;
    motion *all = NULL;
    unsigned char *seen = NULL;
    int rc = -1;
    if (!st || !mine) ndem_mpi_abort(1);
    err[0] = 0;
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
        cnt = malloc(sizeof(int) * (size_t)m->size);
        at = malloc(sizeof(int) * (size_t)m->size);
        if (!cnt || !at) ndem_mpi_abort(1);
    }
    MPI_Gather(&n_mine, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (m->rank == 0) {
        for (int r = 0; r < m->size; r++) at[r] = (int)total, total += cnt[r];
        if (total > INT_MAX) { /* the displacements would not fit */
            fprintf(stderr, "ndem: a frame of %ld particles: more than MPI's 2^31 - 1\n", total);
            ndem_mpi_abort(1);
        }
        all = malloc(sizeof *all * (size_t)(total + 1));
        seen = calloc((size_t)total + 1, 1);
        if (!all || !seen) ndem_mpi_abort(1);
    }
    MPI_Datatype rec = record_type(sizeof(motion));
    MPI_Gatherv(mine, n_mine, rec, all, cnt, at, rec, 0, MPI_COMM_WORLD);
    MPI_Type_free(&rec);
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
        if (rc) snprintf(err, err_len, "out of memory gathering a frame");
        for (long k = 0; rc == 0 && k < total; k++) {
            long g = all[k].gid;
            if (g < 0 || g >= total || seen[g]) { /* ids are 0..total-1, each once */
                snprintf(err, err_len,
                         "gathering a frame: particle id %ld %s (%ld particles over the ranks)", g,
                         g < 0 || g >= total ? "out of range" : "sent twice", total);
                rc = -1;
                break;
            }
            seen[g] = 1;
            memcpy(&f->positions[3 * g], all[k].x, 3 * sizeof(double));
            f->radii[g] = all[k].r;
            f->materials[g] = all[k].material;
            memcpy(&f->velocities[3 * g], all[k].v, 3 * sizeof(double));
            memcpy(&f->angular_velocities[3 * g], all[k].w, 3 * sizeof(double));
        }
        if (rc) ndem_frame_free(f);
    } else if (m->rank == 0) {
        snprintf(err, err_len, "out of memory gathering a frame");
    } else {
        rc = 0;
    }
    free(st), free(mine), free(cnt), free(at), free(all), free(seen);
    return rc;
}

void ndem_mpi_gather_doubles(const double *mine, int n, double *all)
{
    MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
