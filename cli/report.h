/* report.h - `ndem run --report URL` (report.c): a job run for ndemd's
 * Slurm executor. The job document, where to resume and how often to
 * report come from ndemd; frames, series rows, checkpoints, progress and
 * the end go back to it over HTTP (docs/scale-out.md). Nothing is written
 * on the compute node. */
#ifndef NDEM_CLI_REPORT_H
#define NDEM_CLI_REPORT_H

#include <signal.h>

/* Runs the job behind url, authenticated by secret; threads > 0 overrides
 * the job's solver.threads; *stop is the signal that asks to stop (0:
 * none), read before every step. The exit code of `ndem run`. */
int ndem_report_run(const char *url, const char *secret, int threads,
                    const volatile sig_atomic_t *stop);

#endif
