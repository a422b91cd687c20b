/* run.c - the run loop of a job (run.h). */
#include "run.h"

#include <math.h>

double ndem_run_next_frame(double t, double h, double interval)
{
    double k = floor((t + 0.5 * h) / interval) + 1.0;
    double next = k * interval;
    /* rounding of k * interval may land at or below t + h / 2 */
    if (next <= t + 0.5 * h) next = (k + 1.0) * interval;
    /* an interval below the precision of t: a frame every step */
    return next > t + 0.5 * h ? next : t + h;
}

int ndem_run_loop(ndem_sim *sim, double h, double interval, double *next_frame,
                  const ndem_run_hooks *hk)
{
    long total = ndem_sim_total_steps(sim);
    while (ndem_sim_stats(sim)->step < total) {
        int stop = hk->stop ? hk->stop(hk->ctx) : 0;
        if (stop > 0) return stop;
        if (ndem_sim_step(sim) != NDEM_OK) return NDEM_RUN_ENGINE;
        const ndem_step_stats *s = ndem_sim_stats(sim);
        int failed = hk->row ? hk->row(hk->ctx, s) != 0 : 0;
        if (s->time >= *next_frame - 0.5 * h || s->step == total) {
            failed |= hk->frame(hk->ctx, sim) != 0;
            if (*next_frame <= s->time + 0.5 * h)
                *next_frame = ndem_run_next_frame(s->time, h, interval);
        }
        if (hk->tick) failed |= hk->tick(hk->ctx, sim) != 0;
        if (failed) return NDEM_RUN_HOOK;
    }
    return NDEM_RUN_DONE;
}
