/* probe.h (internal) - the convergence probe of ndem_sim_probe_step: what
 * the continuous stage records after each sweep while a probe is attached
 * (docs/engine.md, "Convergence probe"). */
#ifndef NDEM_PROBE_H
#define NDEM_PROBE_H

#include "ndem.h"

typedef struct ndem_probe {
    ndem_probe_row *rows; /* the caller's, capacity entries */
    int capacity, count;
    long lam_rows; /* normal multipliers kept per sweep */
    float *lam;    /* [sweep][row], owned; NULL when out of memory */
    int failed;    /* out of memory: rows carry residuals only */
} ndem_probe;

/* After sweep `it` (from 0): the mean residuals and the normal multipliers
 * of every row, in packet order. Serial (called by one thread). */
void ndem_probe_record(ndem_sim *sim, int it, const double res[3]);

#endif
