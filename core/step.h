/* step.h (internal) - the stages of a step that are not a concept of their
 * own (emission, external forces, initial generation) and the threading
 * rule every stage's loops follow. Included by sim.h after struct ndem_sim. */
#ifndef NDEM_STEP_H
#define NDEM_STEP_H

#include "hash.h"

#include <stddef.h>
#include <stdint.h>

/* Threads for a loop of `work` items: small loops run on one thread, where a
 * barrier would cost more than the work (results are identical anyway). The
 * bound is 4096 items; tests lower it (NDEM_PARALLEL_MIN, read once at
 * creation) so that scenes of test size run every loop threaded. */
#define NDEM_PARALLEL_MIN_DEFAULT 4096
static inline int ndem_threads_for(const struct ndem_sim *sim, long work)
{
    return work < sim->parallel_min ? 1 : sim->threads;
}

/* External forces of generators (ndem_generator_def.force): v += h F(t) / m
 * on their particles, called once per step by NDEM and smooth DEM. */
void ndem_apply_external_forces(ndem_sim *sim);

int ndem_generate_initial(ndem_sim *sim, const ndem_scene_def *def, char *err, size_t err_len);
/* The emit stage: emitters place this step's particles (generate.c). */
int ndem_emit(ndem_sim *sim);

#endif
