/* broadphase_lll.h (internal) - the Linked Linear List broad phase
 * (broadphase_lll.c; `"broad_phase": "lll"`): sorted box ends on three
 * axes kept across builds, re-sorted by insertion sort, the overlapping
 * pairs updated at the swaps. It fills the Verlet lists exactly as the
 * grid does (broadphase.c), so both give the same contacts and bits. */
#ifndef NDEM_BROADPHASE_LLL_H
#define NDEM_BROADPHASE_LLL_H

#include "broadphase.h"

struct ndem_sim;
typedef struct ndem_lll ndem_lll;

/* The lists of nl (start: its n + 1 entries already allocated; j, count,
 * tested) for pairs within skin, rmax as ndem_within takes them; the
 * state in sim->lll (made on the first call). 0, or -1: out of memory. */
int ndem_lll_lists(struct ndem_sim *sim, double skin, double rmax, ndem_neighbours *nl);
/* How many swaps the last build's insertion sorts made (its work). */
long ndem_lll_swaps(const ndem_lll *l);
void ndem_lll_destroy(ndem_lll *l);

#endif
