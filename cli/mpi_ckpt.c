/* mpi_ckpt.c - checkpoints of an MPI run (ndem_mpi.h, docs/scale-out.md).
 *
 * At a checkpoint every rank gets the whole scene (its own particles and
 * warm-start entries by global id, from every rank in rank order), rank 0
 * writes it as one ordinary checkpoint of the scene, and every rank
 * rebuilds its block from it. A resumed run restores that checkpoint on
 * every rank and rebuilds the same way, so with the same cuts it goes on
 * with the same bits as the run that wrote it; any other rank count (one
 * process too) restores it as a scene of its own. */
#include "mpi_parts.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void *ndem_mpi_allgather(int size, const void *mine, long n, size_t record, long *total)
{
    int *cnt = malloc(sizeof(int) * (size_t)size), *at = malloc(sizeof(int) * (size_t)size);
    long *each = malloc(sizeof(long) * (size_t)size);
    if (!cnt || !at || !each) ndem_mpi_abort(1); /* a collective cannot be left half-way */
    /* counts and displacements are ints, in records (not bytes): past
     * 2^31 - 1 records in all, say so rather than wrap */
    MPI_Allgather(&n, 1, MPI_LONG, each, 1, MPI_LONG, MPI_COMM_WORLD);
    long off = 0;
    for (int r = 0; r < size; r++) off += each[r];
    if (off > INT_MAX) {
        if (ndem_mpi_world_rank() == 0)
            fprintf(stderr,
                    "ndem: gathering %ld records of %zu bytes: more than MPI's 2^31 - 1 "
                    "(a checkpoint of this scene over MPI is not supported)\n",
                    off, record);
        ndem_mpi_abort(1);
    }
    for (int r = 0, o = 0; r < size; o += cnt[r++]) cnt[r] = (int)each[r], at[r] = o;
    char *all = malloc((size_t)off * record + 1);
    if (!all) ndem_mpi_abort(1);
    MPI_Datatype t;
    MPI_Type_contiguous((int)record, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    MPI_Allgatherv(mine, (int)n, t, all, cnt, at, t, MPI_COMM_WORLD);
    MPI_Type_free(&t);
    free(cnt), free(at), free(each);
    *total = off;
    return all;
}

int ndem_mpi_rebuild(ndem_mpi *m, long n, const ndem_particle_state *g, long nh,
                     const ndem_history_entry *h, char *err, size_t err_len)
{
    part *all = malloc(sizeof *all * (size_t)(n + 1));
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(n + 1));
    ndem_history_entry *ent = malloc(sizeof *ent * (size_t)(nh + 1));
    int *owner = malloc(sizeof(int) * (size_t)(n + 1));
    int rc = -1;
    if (!all || !st || !ent || !owner) goto done;
    /* own particles, then the other blocks' within the halo, each by gid */
    long owned = 0, count;
    for (long i = 0; i < n; i++)
        if (ndem_mpi_owner(m, g[i].x) == m->rank)
            all[owned].gid = i, all[owned].s = g[i], owner[owned++] = m->rank;
    count = owned;
    for (long i = 0; i < n; i++) {
        int o = ndem_mpi_owner(m, g[i].x);
        if (o != m->rank && ndem_mpi_within(m, m->rank, g[i].x))
            all[count].gid = i, all[count].s = g[i], owner[count++] = o;
    }
    /* the shared lists, as a migration makes them */
    for (int s = 0; s < m->n_nb; s++) {
        side *sd = &m->nb[s];
        int nb = sd->rank;
        free(sd->mine), free(sd->theirs), free(sd->buf_out), free(sd->buf_in);
        sd->mine = malloc(sizeof(long) * (size_t)(owned + 1));
        sd->theirs = malloc(sizeof(long) * (size_t)(count - owned + 1));
        sd->buf_out = malloc(6 * sizeof(float) * (size_t)(count + 1));
        sd->buf_in = malloc(6 * sizeof(float) * (size_t)(count + 1));
        sd->n_mine = sd->n_theirs = 0;
        if (!sd->mine || !sd->theirs || !sd->buf_out || !sd->buf_in) goto done;
        for (long k = 0; k < owned; k++)
            if (ndem_mpi_within(m, nb, all[k].s.x)) sd->mine[sd->n_mine++] = k;
        for (long k = owned; k < count; k++)
            if (owner[k] == nb) sd->theirs[sd->n_theirs++] = k;
    }
    long used = 0;
    for (long k = 0; k < nh; k++) {
        long a = ndem_mpi_local_of(all, owned, count, h[k].a), b = h[k].b;
        if (b >= 0) b = ndem_mpi_local_of(all, owned, count, b);
        if (a < 0 || (h[k].b >= 0 && b < 0)) continue; /* not held here */
        ent[used] = h[k];
        ent[used].a = a;
        ent[used].b = b;
        used++;
    }
    if (ndem_mpi_reserve_local(m, count)) goto done;
    for (long i = 0; i < count; i++) st[i] = all[i].s, m->gid[i] = all[i].gid;
    err[0] = 0;
    rc = ndem_sim_set_particles(m->sim, count, owned, st, used, ent, err, err_len);
    if (rc == 0) {
        m->owned = owned, m->count = count, m->total = n;
        rc = ndem_mpi_index_shared(m);
    }
done:
    if (rc && !err[0]) snprintf(err, err_len, "out of memory rebuilding the blocks");
    free(all), free(st), free(ent), free(owner);
    return rc;
}

int ndem_mpi_checkpoint(ndem_mpi *m, void **buffer, size_t *length)
{
    char err[256] = "";
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(m->count + 1));
    part *mine = malloc(sizeof *mine * (size_t)(m->owned + 1));
    ndem_history_entry *he = NULL;
    long nh = ndem_sim_get_history(m->sim, &he);
    if (!st || !mine || nh < 0) ndem_mpi_abort(1);
    ndem_sim_get_particles(m->sim, st);
    for (long i = 0; i < m->owned; i++) mine[i].gid = m->gid[i], mine[i].s = st[i];
    /* each contact's entry lives on the one rank that solved it */
    for (long k = 0; k < nh; k++) {
        he[k].a = m->gid[he[k].a];
        if (he[k].b >= 0) he[k].b = m->gid[he[k].b];
    }
    long pb, hb;
    part *parts = ndem_mpi_allgather(m->size, mine, m->owned, sizeof(part), &pb);
    ndem_history_entry *hist_all =
        ndem_mpi_allgather(m->size, he, nh, sizeof(ndem_history_entry), &hb);
    free(mine), free(he);
    long n = pb, nt = hb;
    ndem_particle_state *g = realloc(st, sizeof *g * (size_t)(n + 1));
    unsigned char *seen = calloc((size_t)n + 1, 1);
    if (!g || !seen) ndem_mpi_abort(1);
    for (long k = 0; k < n; k++) {
        long id = parts[k].gid;
        if (id < 0 || id >= n || seen[id]) { /* ids are 0..n-1, each once */
            fprintf(stderr, "ndem: rank %d: particle id %ld twice or out of range\n", m->rank, id);
            ndem_mpi_abort(1);
        }
        seen[id] = 1;
        g[id] = parts[k].s;
    }
    free(parts), free(seen);
    int rc = 0;
    if (m->rank == 0) rc = ndem_sim_checkpoint_of(m->sim, n, g, nt, hist_all, buffer, length);
    if (ndem_mpi_rebuild(m, n, g, nt, hist_all, err, sizeof err)) {
        fprintf(stderr, "ndem: rank %d: %s\n", m->rank, err);
        ndem_mpi_abort(1);
    }
    free(g), free(hist_all);
    return rc;
}

const ndem_grid *ndem_mpi_grid(const ndem_mpi *m) { return &m->grid; }
