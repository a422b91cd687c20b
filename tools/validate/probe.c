/* tools/validate/probe.c - ndem-probe: runs one state through the phases of
 * the convergence study of `make validate` (docs/validation.md; Wang et al.
 * section 4): prepare a state, switch the PGS effort, run on, record, probe.
 *
 * usage: ndem-probe JOB.json [--load FILE | --prepare T] [--save FILE]
 *                   [--iterations N] [--cold] [--factor B]
 *                   [--impact-iterations M] [--settle T]
 *                   [--snapshots FILE --every K] [--sweeps K [--steps M] --out FILE.csv]
 *
 *  --prepare T    run the job's solver for T seconds (or --load a state that
 *                 --save wrote after its --prepare: a checkpoint, restored
 *                 under the same job)
 *  --iterations N, --cold, --factor B, --impact-iterations M
 *                 then the PGS effort: N iterations, no warm start, warm
 *                 start factor B, M impact sweeps (ndem_sim_set_solver; the
 *                 job's values otherwise)
 *  --settle T     run T seconds more with it; with --snapshots, every K
 *                 steps of them one CSV block of the particles (time, x, y,
 *                 z, vx, vy, vz, radius), for the drum's plug zone and angle
 *  --sweeps K     then --steps M (default 1) steps of K sweeps through
 *                 ndem_sim_probe_step: per sweep the mean residuals (eq. 6)
 *                 and the normal multiplier error against the last sweep
 *                 (eq. 13, and its load-weighted twin), averaged over the M
 *                 steps, into --out
 * Standard error gets the wall seconds of each phase. */
#include "job.h"
#include "ndem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct opts {
    const char *job, *load, *save, *snapshots, *out;
    double prepare, settle, factor;
    int iterations, cold, sweeps, every, steps, impact;
} opts;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int snapshot(FILE *f, const ndem_sim *sim)
{
    ndem_frame fr;
    if (ndem_sim_copy_motion(sim, &fr)) return -1;
    for (long i = 0; i < fr.count; i++) {
        const double *p = &fr.positions[3 * i], *v = &fr.velocities[3 * i];
        fprintf(f, "%.4f,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", fr.time, p[0], p[1], p[2], v[0],
                v[1], v[2], fr.radii[i]);
    }
    ndem_frame_free(&fr);
    return 0;
}

static int advance(ndem_sim *sim, double seconds, double h, FILE *snap, int every)
{
    long steps = (long)(seconds / h + 0.5);
    for (long i = 0; i < steps; i++) {
        if (ndem_sim_step(sim) != NDEM_OK) {
            fprintf(stderr, "ndem-probe: %s\n", ndem_sim_error(sim));
            return -1;
        }
        if (snap && every > 0 && (i + 1) % every == 0 && snapshot(snap, sim)) return -1;
    }
    return 0;
}

static int save(const ndem_sim *sim, const char *path)
{
    void *buf = NULL;
    size_t len = 0;
    FILE *f = NULL;
    int ok = ndem_sim_checkpoint(sim, &buf, &len) == 0 && (f = fopen(path, "wb")) &&
             fwrite(buf, 1, len, f) == len;
    if (f && fclose(f)) ok = 0;
    free(buf);
    if (!ok) fprintf(stderr, "ndem-probe: cannot save %s\n", path);
    return ok ? 0 : -1;
}

static ndem_sim *load(const ndem_scene_def *def, const char *path)
{
    size_t len;
    char *buf = ndem_read_file(path, &len), err[256] = "cannot read";
    ndem_sim *sim = buf ? ndem_sim_restore(def, buf, len, err, sizeof err) : NULL;
    if (!sim) fprintf(stderr, "ndem-probe: %s: %s\n", path, err);
    free(buf);
    return sim;
}

static int parse(int argc, char **argv, opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--cold")) o->cold = 1;
        else if (a[0] != '-' && !o->job) o->job = a;
        else if (!v) return -1;
        else if (!strcmp(a, "--prepare")) o->prepare = atof(v), i++;
        else if (!strcmp(a, "--settle")) o->settle = atof(v), i++;
        else if (!strcmp(a, "--iterations")) o->iterations = atoi(v), i++;
        else if (!strcmp(a, "--sweeps")) o->sweeps = atoi(v), i++;
        else if (!strcmp(a, "--every")) o->every = atoi(v), i++;
        else if (!strcmp(a, "--steps")) o->steps = atoi(v), i++;
        else if (!strcmp(a, "--factor")) o->factor = atof(v), i++;
        else if (!strcmp(a, "--impact-iterations")) o->impact = atoi(v), i++;
        else if (!strcmp(a, "--out")) o->out = v, i++;
        else if (!strcmp(a, "--load")) o->load = v, i++;
        else if (!strcmp(a, "--save")) o->save = v, i++;
        else if (!strcmp(a, "--snapshots")) o->snapshots = v, i++;
        else return -1;
    }
    return o->job && o->sweeps >= 0 ? 0 : -1;
}

static int probe(ndem_sim *sim, ndem_solver_def solver, const opts *o)
{
    char err[256];
    const int n = o->sweeps, steps = o->steps > 0 ? o->steps : 1;
    ndem_probe_row *rows = calloc((size_t)n, sizeof *rows), *sum = calloc((size_t)n, sizeof *sum);
    solver.iterations = n;
    solver.tolerance = 0;
    int count = n, rc = -1;
    double t0 = now(), before = ndem_sim_stats(sim)->kinetic_energy; /* of the settled state */
    double wall = 0;
    if (!rows || !sum) fprintf(stderr, "ndem-probe: out of memory\n");
    else if (ndem_sim_set_solver(sim, &solver, err, sizeof err))
        fprintf(stderr, "ndem-probe: %s\n", err);
    else rc = 0;
    for (int s = 0; s < steps && !rc; s++) {
        int got = 0;
        if (ndem_sim_probe_step(sim, rows, n, &got) != NDEM_OK) {
            fprintf(stderr, "ndem-probe: %s\n", ndem_sim_error(sim));
            rc = -1;
        }
        if (got < count) count = got; /* a step without rows records none */
        wall += ndem_sim_stats(sim)->wall_solve;
        for (int k = 0; k < got; k++) {
            sum[k].residual_normal += rows[k].residual_normal / steps;
            sum[k].residual_friction += rows[k].residual_friction / steps;
            sum[k].residual_rolling += rows[k].residual_rolling / steps;
            sum[k].multiplier_error += rows[k].multiplier_error / steps;
            sum[k].multiplier_error_total += rows[k].multiplier_error_total / steps;
        }
    }
    FILE *f = rc ? NULL : o->out ? fopen(o->out, "w") : stdout;
    if (!rc && !f) perror(o->out), rc = -1;
    if (f) {
        const ndem_step_stats *s = ndem_sim_stats(sim);
        fprintf(f,
                "# t=%.4f particles=%ld contacts=%ld warm=%d wall_solve=%.6f kinetic=%.6g "
                "steps=%d\n",
                s->time, s->particles, s->contacts, solver.warm_start, wall / steps, before, steps);
        fprintf(f, "sweep,residual_normal,residual_friction,residual_rolling,multiplier_error,"
                   "multiplier_error_total\n");
        for (int k = 0; k < count; k++)
            fprintf(f, "%d,%.9g,%.9g,%.9g,%.9g,%.9g\n", k + 1, sum[k].residual_normal,
                    sum[k].residual_friction, sum[k].residual_rolling, sum[k].multiplier_error,
                    sum[k].multiplier_error_total);
        if (f != stdout && fclose(f)) rc = -1;
    }
    fprintf(stderr, "ndem-probe: %d probe steps of %d sweeps: %.2f s\n", steps, n, now() - t0);
    free(rows);
    free(sum);
    return rc;
}

int main(int argc, char **argv)
{
    opts o = {0};
    o.impact = -1; /* the job's */
    if (parse(argc, argv, &o)) {
        fprintf(stderr,
                "usage: ndem-probe JOB.json [--load FILE | --prepare T] [--save FILE] "
                "[--iterations N] [--cold] [--factor B] [--impact-iterations M] [--settle T] "
                "[--snapshots FILE --every K] "
                "[--sweeps K [--steps M] --out FILE.csv]\n");
        return 2;
    }
    size_t len;
    char *text = ndem_read_file(o.job, &len);
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    if (!text || ndem_job_parse(text, len, &job, &errs) != NDEM_JOB_OK) {
        fprintf(stderr, "ndem-probe: %s: %s\n", o.job,
                errs.count ? errs.items[0].message : "cannot read");
        free(text);
        ndem_job_errors_clear(&errs);
        return 3;
    }
    free(text);
    char err[256];
    ndem_solver_def solver = job->scene.solver;
    const double h = solver.time_step;
    int rc = 1;
    FILE *snap = NULL;
    double t0 = now();
    ndem_sim *sim =
        o.load ? load(&job->scene, o.load) : ndem_sim_create(&job->scene, err, sizeof err);
    if (!sim && !o.load) fprintf(stderr, "ndem-probe: %s\n", err);
    if (!sim || (!o.load && advance(sim, o.prepare, h, NULL, 0))) goto done;
    if (o.save && save(sim, o.save)) goto done;
    fprintf(stderr, "ndem-probe: prepared t = %.3f s: %.2f s\n", ndem_sim_stats(sim)->time,
            now() - t0);
    if (o.iterations > 0) solver.iterations = o.iterations;
    if (o.factor > 0) solver.warm_start_factor = o.factor;
    if (o.impact >= 0) solver.impact_iterations = o.impact;
    solver.warm_start = !o.cold && solver.warm_start;
    if (ndem_sim_set_solver(sim, &solver, err, sizeof err)) {
        fprintf(stderr, "ndem-probe: %s\n", err);
        goto done;
    }
    if (o.snapshots && !(snap = fopen(o.snapshots, "w"))) {
        perror(o.snapshots);
        goto done;
    }
    if (snap) fprintf(snap, "time,x,y,z,vx,vy,vz,radius\n");
    t0 = now();
    if (advance(sim, o.settle, h, snap, o.every)) goto done;
    fprintf(stderr, "ndem-probe: settled %.3f s: %.2f s\n", o.settle, now() - t0);
    if (snap && fclose(snap)) {
        snap = NULL;
        goto done;
    }
    snap = NULL;
    rc = o.sweeps > 0 && probe(sim, solver, &o) ? 1 : 0;
done:
    if (snap) fclose(snap);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return rc;
}
