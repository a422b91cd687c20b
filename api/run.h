/* run.h - the one run loop of a job, shared by `ndem run` (cli/ndem.c) and
 * the daemon's workers (server/worker.c): step, frame schedule, series rows
 * and a stop check before every step. What each caller does with a frame,
 * a row or the time between steps (progress, checkpoints) is a hook. */
#ifndef NDEM_RUN_H
#define NDEM_RUN_H

#include "ndem.h"

/* How a run ended: NDEM_RUN_DONE (every step taken), NDEM_RUN_ENGINE (the
 * engine failed: ndem_sim_error), NDEM_RUN_HOOK (a hook failed), or the
 * positive value the stop hook returned. */
enum { NDEM_RUN_DONE = 0, NDEM_RUN_ENGINE = -1, NDEM_RUN_HOOK = -2 };

typedef struct ndem_run_hooks {
    void *ctx;
    /* Before every step: 0 goes on, a positive value ends the run with it
     * (cancel, shutdown). May be NULL. */
    int (*stop)(void *ctx);
    /* After every step: its series row. Nonzero: the run ends with
     * NDEM_RUN_HOOK after this step. May be NULL. */
    int (*row)(void *ctx, const ndem_step_stats *s);
    /* A frame is due (time k * interval, and the last step). Nonzero: as row. */
    int (*frame)(void *ctx, ndem_sim *sim);
    /* After every step's row and frame: progress, checkpoints. Nonzero: as
     * row. May be NULL. */
    int (*tick)(void *ctx, ndem_sim *sim);
} ndem_run_hooks;

/* Simulated time of the first frame after the one at time t: the smallest
 * k * interval above t + h / 2. One division, never a loop, so any
 * interval ends (the parser also refuses one below the time step). */
double ndem_run_next_frame(double t, double h, double interval);

/* Steps sim to its end. *next_frame is the simulated time of the next
 * frame (interval for a fresh run, the checkpoint's value on a resume) and
 * is kept up to date, so a checkpoint taken from a hook can record it. */
int ndem_run_loop(ndem_sim *sim, double h, double interval, double *next_frame,
                  const ndem_run_hooks *hooks);

#endif
