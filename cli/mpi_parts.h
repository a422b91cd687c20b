/* mpi_parts.h (internal to cli/mpi*.c) - the state of one rank of an MPI
 * run (ndem_mpi.h) and the helpers its modules share: the blocks and their
 * neighbours, particles and warm-start entries by global id. */
#ifndef NDEM_CLI_MPI_PARTS_H
#define NDEM_CLI_MPI_PARTS_H

#include "decomp_grid.h"
#include "ndem_mpi.h"

#include <mpi.h>

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

/* The shared bodies with one neighbouring block, each list in global id
 * order (both sides agree): mine, this rank's own particles the neighbour
 * holds as ghosts; theirs, this rank's ghosts the neighbour owns. Local
 * creation ids. */
typedef struct side {
    int rank;
    long *mine, n_mine;
    long *theirs, n_theirs;
    float *buf_out, *buf_in; /* 6 floats per shared body */
} side;

struct ndem_mpi {
    int rank, size;
    ndem_sim *sim;
    ndem_grid grid; /* the blocks: block r is rank r's */
    double halo;    /* ghosts: within this of a block */
    double margin;  /* halo beyond the contact reach: how far pairs may close */
    long owned, count;
    long total;  /* particles over all ranks (global ids 0..total-1) */
    long *gid;   /* per local creation id */
    float *base; /* 6 per local creation id: shared bodies' slots after the last exchange */
    int *share;  /* per local creation id: copies whose rows act on it (>= 1) */
    side *nb;    /* the neighbouring blocks (ndem_grid_near), in rank order */
    int n_nb;
    MPI_Request *rq; /* 2 n_nb */
    long *shared;    /* own particles some neighbour holds as ghosts, ascending */
    long n_shared;
    long balance_steps; /* re-balance every this many steps (0: never) */
    ndem_mpi_costs costs;
};

/* The rank owning p, and whether p lies within the halo of rank r's block. */
int ndem_mpi_owner(const ndem_mpi *m, const double p[3]);
int ndem_mpi_within(const ndem_mpi *m, int r, const double p[3]);
/* The neighbours anew: every other rank (all) or the blocks near this one;
 * their lists empty. 0 or -1 (out of memory). */
int ndem_mpi_set_neighbours(ndem_mpi *m, int all);
/* m->shared from the neighbours' `mine` lists. 0 or -1. */
int ndem_mpi_index_shared(ndem_mpi *m);
/* gid, base and share grown to hold count local particles (+1, so that
 * none is empty). 0 or -1 (out of memory; what did grow is kept). */
int ndem_mpi_reserve_local(ndem_mpi *m, long count);
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

/* Own particles that left the block to their new owner, ghosts and
 * warm-start entries sent anew (collective; mpi_migrate.c). */
int ndem_mpi_migrate(ndem_mpi *m, char *err, size_t err_len);
/* New cuts at equal counts of the particles where they are now, and a
 * migration to them (collective; --mpi-balance). 0, or -1 with err. */
int ndem_mpi_rebalance(ndem_mpi *m, char *err, size_t err_len);
void ndem_mpi_free_sides(ndem_mpi *m);
/* Every rank's n records of `record` bytes to every rank, in rank order
 * (malloc'd, *total records); aborts every rank when out of memory or past
 * MPI's int counts (2^31 - 1 records in all), saying which. */
void *ndem_mpi_allgather(int size, const void *mine, long n, size_t record, long *total);
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
