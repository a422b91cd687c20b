/* probe.c - the convergence probe (docs/engine.md, "Convergence probe"):
 * per-sweep residuals and the normal multiplier error of Wang et al.
 * eq. (13) for one step, for tools/validate. The sweeps record into a probe
 * attached to the simulation for that step only; the step itself is
 * unchanged (the residuals only cost their sums). */
#include "probe.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int ndem_sim_set_solver(ndem_sim *sim, const ndem_solver_def *solver, char *err, size_t err_len)
{
    const ndem_solver_def *o = &sim->solver;
    /* the fields that change the scene, its step or its threads stay */
    if (solver->method != o->method || solver->time_step != o->time_step ||
        solver->duration != o->duration || solver->impact_velocity != o->impact_velocity ||
        solver->damping_steps != o->damping_steps ||
        solver->friction_compliance != o->friction_compliance || solver->threads != o->threads ||
        solver->contact_model != o->contact_model) {
        snprintf(err, err_len,
                 "only iterations, impact_iterations, warm_start, "
                 "warm_start_factor and tolerance may change");
        return -1;
    }
    if (solver->iterations < 1 || solver->impact_iterations < 0 || solver->warm_start_factor < 0 ||
        solver->warm_start_factor > 1 || solver->tolerance < 0) {
        snprintf(err, err_len, "solver settings out of range (docs/job.md)");
        return -1;
    }
    sim->solver.iterations = solver->iterations;
    sim->solver.impact_iterations = solver->impact_iterations;
    sim->solver.warm_start = solver->warm_start;
    sim->solver.warm_start_factor = solver->warm_start_factor;
    sim->solver.tolerance = solver->tolerance;
    return 0;
}

void ndem_probe_record(ndem_sim *sim, int it, const double res[3])
{
    ndem_probe *pr = sim->probe;
    if (it >= pr->capacity) return;
    ndem_probe_row *r = &pr->rows[it];
    r->residual_normal = res[0], r->residual_friction = res[1], r->residual_rolling = res[2];
    r->multiplier_error = r->multiplier_error_total = -1.0;
    pr->count = it + 1;
    const ndem_contacts *c = &sim->contacts;
    long rows = 0;
    for (long p = 0; p < c->packet_count; p++) rows += c->fill[p];
    if (it == 0) { /* the rows are fixed for the step: size the history once */
        pr->lam_rows = rows;
        pr->lam = malloc(sizeof(float) * (size_t)(rows > 0 ? rows : 1) * (size_t)pr->capacity);
        pr->failed = pr->lam == NULL;
    }
    if (pr->failed || rows != pr->lam_rows) return;
    float *out = pr->lam + (size_t)it * (size_t)rows;
    for (long p = 0; p < c->packet_count; p++)
        for (int l = 0; l < c->fill[p]; l++) *out++ = c->packets[p].lam[0][l];
}

/* eq. (13) against the last sweep recorded */
static void multiplier_errors(ndem_probe *pr)
{
    if (pr->failed || !pr->lam || pr->count == 0) return;
    const long n = pr->lam_rows;
    const float *last = pr->lam + (size_t)(pr->count - 1) * (size_t)n;
    for (int k = 0; k < pr->count; k++) {
        const float *lk = pr->lam + (size_t)k * (size_t)n;
        double sum = 0, diff = 0, load = 0;
        long used = 0;
        for (long i = 0; i < n; i++) {
            if (last[i] == 0.0f) continue; /* separated or unloaded: no relative error */
            double d = fabs((double)last[i] - (double)lk[i]);
            sum += d / fabs((double)last[i]);
            diff += d;
            load += fabs((double)last[i]);
            used++;
        }
        pr->rows[k].multiplier_error = used ? sum / (double)used : 0.0;
        pr->rows[k].multiplier_error_total = used ? diff / load : 0.0;
    }
}

ndem_status ndem_sim_probe_step(ndem_sim *sim, ndem_probe_row *rows, int capacity, int *count)
{
    ndem_probe pr = {rows, capacity > 0 ? capacity : 0, 0, 0, NULL, 0};
    sim->probe = &pr;
    ndem_status st = ndem_sim_step(sim);
    sim->probe = NULL;
    multiplier_errors(&pr);
    free(pr.lam);
    *count = pr.count;
    return st;
}
