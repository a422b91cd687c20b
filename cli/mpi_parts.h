/* mpi_parts.h (internal to cli/mpi*.c) - the state of one rank of an MPI
 * run (ndem_mpi.h) and the helpers its modules share: slabs, particles and
 * warm-start entries by global id. */
#ifndef NDEM_CLI_MPI_PARTS_H
#define NDEM_CLI_MPI_PARTS_H

#include "ndem_mpi.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_MIGRATE = 11, TAG_GHOST = 12, TAG_HISTORY = 13, TAG_DV = 14, TAG_V = 15, TAG_N = 16 };

typedef struct part {
    long gid;
    ndem_particle_state s;
} part;

typedef struct hist {
    long ga, gb; /* global ids; gb < 0: -1 - geometry */
    ndem_history_entry e;
} hist;

/* The shared bodies with one neighbour, each list in global id order (both
 * sides agree): mine, this rank's own particles the neighbour holds as
 * ghosts; theirs, this rank's ghosts the neighbour owns. Local creation ids. */
typedef struct side {
    int rank; /* MPI_PROC_NULL at the ends */
    long *mine, n_mine;
    long *theirs, n_theirs;
    float *buf_out, *buf_in; /* 6 floats per shared body */
} side;

struct ndem_mpi {
    int rank, size, axis;
    ndem_sim *sim;
    double *cut;   /* size + 1 slab bounds along axis (-inf, ..., +inf) */
    double halo;   /* ghosts: within this of a slab */
    double margin; /* halo beyond the contact reach: how far pairs may close */
    long owned, count;
    long total;  /* particles over all ranks (global ids 0..total-1) */
    long *gid;   /* per local creation id */
    float *base; /* 6 per local creation id: shared bodies' slots after the last exchange */
    int *share;  /* per local creation id: copies whose rows act on it (1 or 2) */
    side side[2];
    ndem_mpi_costs costs;
};

int ndem_mpi_slab_of(const ndem_mpi *m, double x);
/* x within the halo of slab `slab` (0 for a slab that does not exist) */
int ndem_mpi_within(const ndem_mpi *m, int slab, double x);
int ndem_mpi_cmp_part(const void *x, const void *y);
/* The index of gid in p[0..n) sorted by gid, or -1. */
long ndem_mpi_find_gid(const part *p, long n, long gid);
/* The local creation id of a global id in all (own particles, then
 * ghosts, each sorted), or -1. */
long ndem_mpi_local_of(const part *all, long owned, long count, long gid);

/* This rank's particles and ghosts from the whole scene: g[0..n) by
 * global id, h the warm-start entries in global ids (mpi_ckpt.c). */
int ndem_mpi_rebuild(ndem_mpi *m, long n, const ndem_particle_state *g, long nh,
                     const ndem_history_entry *h, char *err, size_t err_len);

/* Own particles that left the slab to their neighbour, ghosts and
 * warm-start entries sent anew (collective; mpi.c). */
int ndem_mpi_migrate(ndem_mpi *m, char *err, size_t err_len);
/* Every rank's n bytes to every rank, in rank order (malloc'd, *total
 * bytes); aborts every rank when out of memory. */
void *ndem_mpi_allgather_bytes(int size, const void *mine, long n, long *total);
/* The engine's emitter hooks (mpi_emit.c, ndem_decomp_hooks). */
long ndem_mpi_hook_region(void *ctx, const double lo[3], const double hi[3], double *reach,
                          double **out);
int ndem_mpi_hook_emitted(void *ctx, long first, long count);

typedef struct vec {
    void *p;
    long n, cap; /* bytes */
} vec;

static inline int push(vec *v, const void *x, size_t size)
{
    if (v->n + (long)size > v->cap) {
        long cap = 2 * v->cap + (long)size + 4096;
        void *q = realloc(v->p, (size_t)cap);
        if (!q) return -1;
        v->p = q, v->cap = cap;
    }
    memcpy((char *)v->p + v->n, x, size);
    v->n += (long)size;
    return 0;
}

#endif
