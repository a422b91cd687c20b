/* prof.c - profiling driver: settles a job for N steps and saves a
 * checkpoint, or restores that checkpoint and runs M steps, so callgrind
 * (--toggle-collect=ndem_sim_step) counts instructions in a settled bed.
 * usage: prof JOB.json CKPT settle|measure STEPS [THREADS]
 * build: see docs/performance.md (not part of the engine or of make). */
#include "job.h"
#include "ndem.h"
#include "sim.h" /* the lists' build count (internal) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: prof JOB.json CKPT settle|measure STEPS [THREADS]\n");
        return 2;
    }
    size_t len = 0;
    char *text = ndem_read_file(argv[1], &len);
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    if (!text || ndem_job_parse(text, len, &job, &errs) != 0) {
        fprintf(stderr, "prof: cannot read job %s\n", argv[1]);
        return 3;
    }
    free(text);
    if (argc > 5) job->scene.solver.threads = atoi(argv[5]);
    long steps = atol(argv[4]);
    char err[256];
    ndem_sim *sim = NULL;
    if (strcmp(argv[3], "settle") == 0) {
        sim = ndem_sim_create(&job->scene, err, sizeof err);
    } else {
        FILE *f = fopen(argv[2], "rb");
        if (!f) return 4;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        void *buf = malloc((size_t)n);
        if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) return 4;
        fclose(f);
        sim = ndem_sim_restore(&job->scene, buf, (size_t)n, err, sizeof err);
        free(buf);
    }
    if (!sim) {
        fprintf(stderr, "prof: %s\n", err);
        return 1;
    }
    double wall = 0, ws = 0, wn = 0, wb = 0, wi = 0;
    long builds0 = sim->neighbours.builds, impact_steps = 0, impact_rows = 0;
    for (long i = 0; i < steps; i++) {
        if (ndem_sim_step(sim) != NDEM_OK) {
            fprintf(stderr, "prof: %s\n", ndem_sim_error(sim));
            return 1;
        }
        const ndem_step_stats *s = ndem_sim_stats(sim);
        wall += s->wall_total, ws += s->wall_solve, wn += s->wall_narrowphase;
        wb += s->wall_broadphase;
        wi += s->wall_integrate;
        impact_steps += s->impacts > 0;
        impact_rows += s->impact_rows;
    }
    const ndem_step_stats *s = ndem_sim_stats(sim);
    printf("step %ld rows %ld contacts %ld colors %d impacts %ld: %.2f ms/step (broad %.2f narrow "
           "%.2f solve %.2f integrate %.2f) hash %016llx\n",
           s->step, s->rows, s->contacts, s->colors, s->impacts, 1e3 * wall / (double)steps,
           1e3 * wb / (double)steps, 1e3 * wn / (double)steps, 1e3 * ws / (double)steps,
           1e3 * wi / (double)steps, (unsigned long long)ndem_sim_state_hash(sim));
    printf("list builds %ld, steps with impacts %ld, impact rows per step %.0f (of %ld steps)\n",
           sim->neighbours.builds - builds0, impact_steps, (double)impact_rows / (double)steps,
           steps);
    if (strcmp(argv[3], "settle") == 0) {
        void *buf = NULL;
        size_t n = 0;
        if (ndem_sim_checkpoint(sim, &buf, &n)) return 1;
        FILE *f = fopen(argv[2], "wb");
        if (!f || fwrite(buf, 1, n, f) != n) return 4;
        fclose(f);
        free(buf);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return 0;
}
