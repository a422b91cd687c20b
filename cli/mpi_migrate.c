/* mpi_migrate.c - the blocks' neighbours, migration and re-balancing of an
 * MPI run (ndem_mpi.h, docs/scale-out.md). Every message goes to a
 * neighbouring block only (a block within the halo of this one), except
 * for a re-balance, whose particles may go to any rank once. */
#include "mpi_parts.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int ndem_mpi_owner(const ndem_mpi *m, const double p[3]) { return ndem_grid_owner(&m->grid, p); }

int ndem_mpi_within(const ndem_mpi *m, int r, const double p[3])
{
    return ndem_grid_within(&m->grid, r, p, m->halo);
}

static void free_sides(ndem_mpi *m)
{
    for (int s = 0; s < m->n_nb; s++)
        free(m->nb[s].mine), free(m->nb[s].theirs), free(m->nb[s].buf_out), free(m->nb[s].buf_in);
    free(m->nb), free(m->rq);
    m->nb = NULL, m->rq = NULL, m->n_nb = 0;
}

int ndem_mpi_set_neighbours(ndem_mpi *m, int all)
{
    free_sides(m);
    m->nb = calloc((size_t)m->size + 1, sizeof *m->nb);
    m->rq = malloc(sizeof(MPI_Request) * (size_t)(2 * m->size + 2));
    if (!m->nb || !m->rq) return -1;
    for (int r = 0; r < m->size; r++)
        if (r != m->rank && (all || ndem_grid_near(&m->grid, m->rank, r, m->halo)))
            m->nb[m->n_nb++].rank = r;
    return 0;
}

/* The index of rank r among the neighbours, or -1. */
static int side_of(const ndem_mpi *m, int r)
{
    for (int s = 0; s < m->n_nb; s++)
        if (m->nb[s].rank == r) return s;
    return -1;
}

int ndem_mpi_reserve_local(ndem_mpi *m, long count)
{
    long *gid = realloc(m->gid, sizeof(long) * (size_t)(count + 1));
    if (gid) m->gid = gid;
    float *base = realloc(m->base, 6 * sizeof(float) * (size_t)(count + 1));
    if (base) m->base = base;
    int *share = realloc(m->share, sizeof(int) * (size_t)(count + 1));
    if (share) m->share = share;
    return gid && base && share ? 0 : -1;
}

int ndem_mpi_index_shared(ndem_mpi *m)
{
    unsigned char *mark = calloc((size_t)m->owned + 1, 1);
    long *sh = realloc(m->shared, sizeof(long) * (size_t)(m->owned + 1));
    if (sh) m->shared = sh;
    if (!mark || !sh) {
        free(mark);
        return -1;
    }
    for (int s = 0; s < m->n_nb; s++)
        for (long k = 0; k < m->nb[s].n_mine; k++) mark[m->nb[s].mine[k]] = 1;
    m->n_shared = 0;
    for (long i = 0; i < m->owned; i++)
        if (mark[i]) m->shared[m->n_shared++] = i;
    free(mark);
    return 0;
}

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

long ndem_mpi_local_of(const part *all, long owned, long count, long gid)
{
    long k = ndem_mpi_find_gid(all, owned, gid);
    if (k >= 0) return k;
    k = ndem_mpi_find_gid(all + owned, count - owned, gid);
    return k >= 0 ? owned + k : -1;
}

/* Sends out[s] (bytes) to every neighbour s and receives from it into
 * in[s] (grown with realloc), sizes first. 0, or -1 when out of memory. */
static int swap_bytes(ndem_mpi *m, int tag, const vec *out, void **in, long *nin)
{
    int k = 0, failed = 0;
    for (int s = 0; s < m->n_nb; s++) {
        MPI_Irecv(&nin[s], 1, MPI_LONG, m->nb[s].rank, TAG_N, MPI_COMM_WORLD, &m->rq[k++]);
        MPI_Isend(&out[s].n, 1, MPI_LONG, m->nb[s].rank, TAG_N, MPI_COMM_WORLD, &m->rq[k++]);
    }
    MPI_Waitall(k, m->rq, MPI_STATUSES_IGNORE);
    k = 0;
    for (int s = 0; s < m->n_nb; s++) {
        if (nin[s] > INT_MAX || out[s].n > INT_MAX) { /* MPI counts are ints */
            fprintf(stderr,
                    "ndem: rank %d: a migration message of more than 2 GB (%ld bytes) to rank "
                    "%d: use more ranks\n",
                    m->rank, nin[s] > out[s].n ? nin[s] : out[s].n, m->nb[s].rank);
            ndem_mpi_abort(1);
        }
        void *p = realloc(in[s], (size_t)nin[s] + 1);
        if (!p) failed = 1, nin[s] = 0;
        else in[s] = p;
        MPI_Irecv(in[s], (int)nin[s], MPI_BYTE, m->nb[s].rank, tag, MPI_COMM_WORLD, &m->rq[k++]);
        MPI_Isend(out[s].p, (int)out[s].n, MPI_BYTE, m->nb[s].rank, tag, MPI_COMM_WORLD,
                  &m->rq[k++]);
        m->costs.migrate_bytes += (double)out[s].n;
        m->costs.migrate_messages += 2;
    }
    MPI_Waitall(k, m->rq, MPI_STATUSES_IGNORE);
    return failed ? -1 : 0;
}

/* The scratch of one migration: per neighbour what goes and what came. */
typedef struct traffic {
    vec *out, *hout;
    void **in, **gin, **hin;
    long *nin, *gnin, *hnin, *ng;
} traffic;

static int traffic_alloc(traffic *t, int n)
{
    size_t k = (size_t)n + 1;
    t->out = calloc(k, sizeof(vec)), t->hout = calloc(k, sizeof(vec));
    t->in = calloc(k, sizeof(void *)), t->gin = calloc(k, sizeof(void *));
    t->hin = calloc(k, sizeof(void *));
    t->nin = calloc(k, sizeof(long)), t->gnin = calloc(k, sizeof(long));
    t->hnin = calloc(k, sizeof(long)), t->ng = calloc(k, sizeof(long));
    return t->out && t->hout && t->in && t->gin && t->hin && t->nin && t->gnin && t->hnin && t->ng
               ? 0
               : -1;
}

static void traffic_free(traffic *t, int n)
{
    for (int s = 0; t->out && s < n; s++) free(t->out[s].p), free(t->hout[s].p);
    for (int s = 0; t->in && s < n; s++) free(t->in[s]), free(t->gin[s]), free(t->hin[s]);
    free(t->out), free(t->hout), free(t->in), free(t->gin), free(t->hin);
    free(t->nin), free(t->gnin), free(t->hnin), free(t->ng);
}

/* Rebuilds this rank's particles: own particles that left the block go to
 * their new owner, then ghost copies to each neighbour, then the
 * warm-start entries a neighbour may need. Collective over the ranks. */
int ndem_mpi_migrate(ndem_mpi *m, char *err, size_t err_len)
{
    double t0 = MPI_Wtime();
    int nn = m->n_nb;
    long n = ndem_sim_particle_count(m->sim);
    part *cur = malloc(sizeof *cur * (size_t)(n + 1));
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(n + 1));
    ndem_history_entry *he = NULL;
    long nh = ndem_sim_get_history(m->sim, &he);
    vec keep = {0}, hkeep = {0};
    traffic t = {0};
    part *all = NULL;
    int rc = -1;
    err[0] = 0;
    if (!cur || !st || nh < 0 || traffic_alloc(&t, nn)) goto done;
    ndem_sim_get_particles(m->sim, st);
    for (long i = 0; i < n; i++) cur[i].gid = m->gid[i], cur[i].s = st[i];
    /* 1. own particles to their new owner */
    for (long i = 0; i < m->owned; i++) {
        int to = ndem_mpi_owner(m, cur[i].s.x), s = side_of(m, to);
        if (to == m->rank) {
            if (push(&keep, &cur[i], sizeof(part))) goto done;
        } else if (s >= 0) {
            if (push(&t.out[s], &cur[i], sizeof(part))) goto done;
        } else {
            fprintf(stderr,
                    "ndem: rank %d: particle %ld moved into the block of rank %d, not a "
                    "neighbour, between two migrations; use fewer ranks\n",
                    m->rank, cur[i].gid, to);
            ndem_mpi_abort(1);
        }
    }
    if (swap_bytes(m, TAG_MIGRATE, t.out, t.in, t.nin)) goto done;
    for (int s = 0; s < nn; s++)
        if (t.nin[s] > 0 && push(&keep, t.in[s], (size_t)t.nin[s])) goto done;
    long owned = keep.n / (long)sizeof(part);
    qsort(keep.p, (size_t)owned, sizeof(part), ndem_mpi_cmp_part);
    /* 2. ghost copies of own particles within each neighbour's halo */
    const part *own = keep.p;
    for (int s = 0; s < nn; s++) {
        t.out[s].n = 0;
        for (long i = 0; i < owned; i++)
            if (ndem_mpi_within(m, m->nb[s].rank, own[i].s.x) &&
                push(&t.out[s], &own[i], sizeof(part)))
                goto done;
    }
    if (swap_bytes(m, TAG_GHOST, t.out, t.gin, t.gnin)) goto done;
    long count = owned;
    for (int s = 0; s < nn; s++) t.ng[s] = t.gnin[s] / (long)sizeof(part), count += t.ng[s];
    all = malloc(sizeof *all * (size_t)(count + 1));
    if (!all) goto done;
    memcpy(all, keep.p, sizeof(part) * (size_t)owned);
    for (long s = 0, at = owned; s < nn; at += t.ng[s++])
        if (t.ng[s] > 0) memcpy(all + at, t.gin[s], sizeof(part) * (size_t)t.ng[s]);
    qsort(all + owned, (size_t)(count - owned), sizeof(part), ndem_mpi_cmp_part);
    /* the shared lists, in global id order on both sides */
    for (int s = 0; s < nn; s++) {
        side *sd = &m->nb[s];
        free(sd->mine), free(sd->theirs), free(sd->buf_out), free(sd->buf_in);
        long nm = t.out[s].n / (long)sizeof(part), most = nm > t.ng[s] ? nm : t.ng[s];
        sd->mine = malloc(sizeof(long) * (size_t)(nm + 1));
        sd->theirs = malloc(sizeof(long) * (size_t)(t.ng[s] + 1));
        sd->buf_out = malloc(6 * sizeof(float) * (size_t)(most + 1));
        sd->buf_in = malloc(6 * sizeof(float) * (size_t)(most + 1));
        sd->n_mine = sd->n_theirs = 0;
        if (!sd->mine || !sd->theirs || !sd->buf_out || !sd->buf_in) goto done;
        const part *sent = t.out[s].p, *got = t.gin[s];
        for (long k = 0; k < nm; k++) sd->mine[k] = ndem_mpi_find_gid(all, owned, sent[k].gid);
        for (long k = 0; k < t.ng[s]; k++)
            sd->theirs[k] = owned + ndem_mpi_find_gid(all + owned, count - owned, got[k].gid);
        sd->n_mine = nm;
        sd->n_theirs = t.ng[s];
    }
    /* 3. warm-start entries: those a neighbour may solve next go to it too;
     * each rank keeps the entries whose particles it holds */
    for (long k = 0; k < nh; k++) {
        hist h = {m->gid[he[k].a], he[k].b >= 0 ? m->gid[he[k].b] : he[k].b, he[k]};
        if (push(&hkeep, &h, sizeof h)) goto done;
        for (int s = 0; s < nn; s++) {
            int r = m->nb[s].rank;
            int near = ndem_mpi_within(m, r, st[he[k].a].x) ||
                       (he[k].b >= 0 && ndem_mpi_within(m, r, st[he[k].b].x));
            if (near && push(&t.hout[s], &h, sizeof h)) goto done;
        }
    }
    if (swap_bytes(m, TAG_HISTORY, t.hout, t.hin, t.hnin)) goto done;
    for (int s = 0; s < nn; s++)
        if (t.hnin[s] > 0 && push(&hkeep, t.hin[s], (size_t)t.hnin[s])) goto done;
    long nk = hkeep.n / (long)sizeof(hist), used = 0;
    hist *hk = hkeep.p;
    ndem_history_entry *ent = malloc(sizeof *ent * (size_t)(nk + 1));
    ndem_particle_state *ps = realloc(st, sizeof *ps * (size_t)(count + 1));
    if (ps) st = ps;
    int grown = ndem_mpi_reserve_local(m, count);
    if (!ent || !ps || grown) {
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
        rc = ndem_mpi_index_shared(m);
    }
done:
    if (rc && !err[0]) snprintf(err, err_len, "out of memory migrating particles");
    free(cur), free(st), free(he), free(all);
    traffic_free(&t, nn);
    free(keep.p), free(hkeep.p);
    m->costs.migrate_seconds += MPI_Wtime() - t0;
    return rc;
}

static void sum_counts(void *ctx, long *counts, int n)
{
    (void)ctx;
    MPI_Allreduce(MPI_IN_PLACE, counts, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
}

int ndem_mpi_rebalance(ndem_mpi *m, char *err, size_t err_len)
{
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(m->count + 1));
    double *x = malloc(3 * sizeof(double) * (size_t)(m->owned + 1));
    ndem_grid g;
    if (!st || !x || ndem_grid_init(&g, m->grid.dims)) {
        free(st), free(x);
        snprintf(err, err_len, "out of memory re-balancing");
        return -1;
    }
    ndem_sim_get_particles(m->sim, st);
    for (long i = 0; i < m->owned; i++) memcpy(&x[3 * i], st[i].x, sizeof st[i].x);
    int rc = ndem_grid_balance(&g, m->owned, x, sum_counts, m); /* collective: every rank */
    free(st), free(x);
    if (rc) {
        ndem_grid_free(&g);
        snprintf(err, err_len, "out of memory re-balancing");
        return -1;
    }
    ndem_grid_free(&m->grid);
    m->grid = g;
    /* particles may go to any rank once; then only the blocks near this
     * one keep sides (the others' lists are empty: ghosts and warm-start
     * entries went to ranks within the halo only) */
    if (ndem_mpi_set_neighbours(m, 1) || ndem_mpi_migrate(m, err, err_len)) return -1;
    int k = 0;
    for (int s = 0; s < m->n_nb; s++) {
        side *sd = &m->nb[s];
        if (ndem_grid_near(&m->grid, m->rank, sd->rank, m->halo)) {
            m->nb[k++] = *sd;
            continue;
        }
        if (sd->n_mine || sd->n_theirs) {
            snprintf(err, err_len, "rank %d shares particles with rank %d, not a neighbour",
                     m->rank, sd->rank);
            return -1;
        }
        free(sd->mine), free(sd->theirs), free(sd->buf_out), free(sd->buf_in);
    }
    m->n_nb = k;
    m->costs.rebalances++;
    return 0;
}

void ndem_mpi_free_sides(ndem_mpi *m) { free_sides(m); }
