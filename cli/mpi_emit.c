/* mpi_emit.c - emitters over MPI ranks (docs/scale-out.md): every rank
 * runs every emitter with the same random state against every rank's
 * spheres near its region, so all place the same spheres one process would,
 * with the global ids one process gives them (after every particle there
 * was); each rank keeps those in its block and migrates, which sends the
 * ghosts on. */
#include "mpi_parts.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

long ndem_mpi_hook_region(void *ctx, const double lo[3], const double hi[3], double *reach,
                          double **out)
{
    ndem_mpi *m = ctx;
    double r = *reach;
    MPI_Allreduce(&r, reach, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(m->count + 1));
    double *mine = malloc(4 * sizeof(double) * (size_t)(m->owned + 1));
    if (!st || !mine) ndem_mpi_abort(1);
    ndem_sim_get_particles(m->sim, st);
    long n = 0;
    for (long i = 0; i < m->owned; i++) {
        const double *x = st[i].x;
        int in = 1;
        for (int k = 0; k < 3; k++) in &= x[k] >= lo[k] - *reach && x[k] <= hi[k] + *reach;
        if (!in) continue;
        memcpy(&mine[4 * n], x, 3 * sizeof(double));
        mine[4 * n++ + 3] = st[i].radius;
    }
    long got;
    *out = ndem_mpi_allgather(m->size, mine, n, 4 * sizeof(double), &got);
    free(st), free(mine);
    return got;
}

int ndem_mpi_hook_emitted(void *ctx, long first, long count)
{
    ndem_mpi *m = ctx;
    long n = first + count, owned = m->owned;
    ndem_particle_state *st = malloc(sizeof *st * (size_t)(n + 1));
    ndem_particle_state *keep = malloc(sizeof *keep * (size_t)(n + 1));
    long *to = malloc(sizeof(long) * (size_t)(n + 1)); /* old local id -> new, -1: dropped */
    long *gid = malloc(sizeof(long) * (size_t)(n + 1));
    ndem_history_entry *he = NULL;
    long nh = ndem_sim_get_history(m->sim, &he);
    char err[256] = "";
    int rc = -1;
    if (!st || !keep || !to || !gid || nh < 0) goto done;
    ndem_sim_get_particles(m->sim, st);
    /* own, the new ones in this block (global ids after every particle
     * there was, in emission order: one process's creation ids), ghosts */
    long k = 0;
    for (long i = 0; i < owned; i++) to[i] = k, gid[k] = m->gid[i], keep[k++] = st[i];
    for (long i = first; i < n; i++) {
        to[i] = -1;
        if (ndem_mpi_owner(m, st[i].x) != m->rank) continue;
        to[i] = k, gid[k] = m->total + (i - first), keep[k++] = st[i];
    }
    long own = k;
    for (long i = owned; i < first; i++) to[i] = k, gid[k] = m->gid[i], keep[k++] = st[i];
    long used = 0;
    for (long e = 0; e < nh; e++) {
        long a = to[he[e].a], b = he[e].b >= 0 ? to[he[e].b] : he[e].b;
        if (a < 0 || (he[e].b >= 0 && b < 0)) continue;
        he[used] = he[e];
        he[used].a = a, he[used].b = b;
        used++;
    }
    long *g2 = realloc(m->gid, sizeof(long) * (size_t)(k + 1));
    if (g2) m->gid = g2;
    float *base = realloc(m->base, 6 * sizeof(float) * (size_t)(k + 1));
    if (base) m->base = base;
    int *share = realloc(m->share, sizeof(int) * (size_t)(k + 1));
    if (share) m->share = share;
    if (!g2 || !base || !share) goto done;
    memcpy(m->gid, gid, sizeof(long) * (size_t)k);
    if (ndem_sim_set_particles(m->sim, k, own, keep, used, he, err, sizeof err)) goto done;
    m->owned = own, m->count = k, m->total += count;
    /* the ghosts of the new particles, and positions of the others as of
     * now: a full migration (the drift since the last one is kept safe) */
    rc = ndem_mpi_migrate(m, err, sizeof err);
done:
    if (rc) {
        fprintf(stderr, "ndem: rank %d: emitting: %s\n", m->rank, err[0] ? err : "out of memory");
        ndem_mpi_abort(1);
    }
    free(st), free(keep), free(to), free(gid), free(he);
    return rc;
}
