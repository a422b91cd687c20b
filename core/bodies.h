/* bodies.h (internal) - the particles, stored as arrays per quantity
 * (structure of arrays), and the emitters' state. */
#ifndef NDEM_BODIES_H
#define NDEM_BODIES_H

#include "ndem.h"
#include "rng.h"

#include <stddef.h>

struct ndem_sim;

/* Particles. Indices are stable: particles are only ever appended. */
typedef struct ndem_bodies {
    long count, capacity;
    double *pos;  /* 3 per body */
    double *quat; /* 4 per body: w, x, y, z */
    double *vel;  /* 6 per body: linear v, angular w */
    double *radius;
    double *inv_mass;
    double *inv_inertia; /* solid sphere: 1 / (2/5 m r^2) */
    int *material;
    int *shape;  /* template index (shape_body.h), -1: a plain sphere */
    long *id;    /* creation index of each internal index (reorder.c) */
    long *where; /* internal index of each creation index */
} ndem_bodies;

int ndem_bodies_reserve(ndem_bodies *b, long capacity);
/* Sorts the particles by grid cell (Morton order), keeping ids and the
 * warm-start history consistent. */
int ndem_bodies_reorder(struct ndem_sim *sim);
#define NDEM_REORDER_STEPS 32
long ndem_bodies_add(ndem_bodies *b, const double *pos, double radius, const double *vel,
                     int material, double density);
void ndem_bodies_destroy(ndem_bodies *b);

typedef struct ndem_emitter_state {
    ndem_rng rng;
    double pending; /* particles owed by the rate but not yet placed */
    long emitted;
} ndem_emitter_state;

/* Grows *p to hold `need` elements of `elem` bytes, keeping its contents
 * (capacity doubles); 0, or -1 when out of memory. *p is never NULL after
 * a success, even for need 0 (empty scenes). */
int ndem_ensure(void **p, long *cap, long need, size_t elem);
/* The same for 64-byte aligned arrays whose contents need not be kept (a
 * step rewrites them): the old array goes first, so the peak never holds
 * both; capacity doubles from 64. */
int ndem_ensure_aligned(void **p, long *cap, long need, size_t elem);

#endif
