/* decomp.h (internal) - the engine's side of domain decomposition
 * (ndem_sim_decompose, ndem.h; docs/scale-out.md): which particles are
 * ghosts, which contacts this process solves, and the hooks the NDEM solve
 * calls. A simulation without it (sim->decomp NULL) takes none of these
 * branches. */
#ifndef NDEM_DECOMP_H
#define NDEM_DECOMP_H

#include "ndem.h"

struct ndem_sim;
struct ndem_contacts;

typedef struct ndem_decomp {
    ndem_decomp_hooks hooks;
    long first_ghost; /* creation ids from here on are ghosts */
    double *x0;       /* 3 per creation id: positions at ndem_sim_set_particles */
    long x0_capacity;
    unsigned char *touched; /* per body (internal index): a row of this process acts on it */
    long touched_capacity;
} ndem_decomp;

static inline int ndem_decomp_is_ghost(const ndem_decomp *d, long id)
{
    return d && id >= d->first_ghost;
}
/* Drops the contacts this process does not solve (the "own" stage): pairs
 * whose contact point another process owns, geometry contacts of ghosts. */
int ndem_decomp_filter(struct ndem_sim *sim);
/* The residual means over every process's rows (ndem_step_stats). */
void ndem_decomp_residuals(const struct ndem_sim *sim, double out[3]);
/* Which bodies this process's rows act on (the slots_loaded hook's
 * `touched`); NULL when out of memory. */
const unsigned char *ndem_decomp_touched(struct ndem_sim *sim);
void ndem_decomp_destroy(ndem_decomp *d);

#endif
