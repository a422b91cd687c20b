/* prof.c - profiling driver: settles a job for N steps and saves a
 * checkpoint, or restores that checkpoint and runs M steps, so callgrind
 * (--toggle-collect=ndem_sim_step) counts instructions in a settled bed.
 * With "mem" last it prints the engine's NDEM arrays after the steps: bytes
 * in use (what a step touches, so what is resident) and allocated, per
 * particle (docs/performance.md, "Session 10").
 * usage: prof JOB.json CKPT settle|measure STEPS [THREADS] [mem]
 * build: see docs/performance.md (not part of the engine or of make). */
#include "job.h"
#include "ndem.h"
#include "sim.h" /* the breakdown reads the engine's arrays, the lists' build count */

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One array of the breakdown: used and allocated elements of `elem` bytes. */
static void mem_line(const char *name, double used, double cap, double elem, long n, double *sum)
{
    printf("  %-34s %9.2f MB %9.2f MB %7.1f B/particle\n", name, used * elem / 1048576.0,
           cap * elem / 1048576.0, used * elem / (double)n);
    *sum += used * elem;
}

/* The process's resident and peak resident kB (/proc/self/status). */
static void mem_status(long *rss, long *hwm)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    *rss = *hwm = 0;
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "VmRSS:", 6)) *rss = atol(line + 6);
        if (!strncmp(line, "VmHWM:", 6)) *hwm = atol(line + 6);
    }
    fclose(f);
}

/* The peak so far forgotten (Linux 4.0+): the restore's own buffers do not count. */
static void mem_reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) fputs("5", f), fclose(f);
}

/* After a step: where the peak rose, and what kind of step it was. */
static void mem_step(const ndem_sim *sim, long builds_before)
{
    static long last_hwm; /* a profiling driver's own state, one sim */
    long rss, hwm;
    mem_status(&rss, &hwm);
    printf("  step %ld: resident %.1f MB, peak %.1f MB%s%s%s\n", sim->step, rss / 1024.0,
           hwm / 1024.0, hwm > last_hwm ? " (peak rose)" : "",
           sim->neighbours.builds != builds_before ? ", lists rebuilt" : "",
           (sim->step - 1) % NDEM_REORDER_STEPS == 0 ? ", reorder" : "");
    last_hwm = hwm;
}

static void mem_breakdown(const ndem_sim *sim)
{
    const ndem_bodies *b = &sim->bodies;
    const ndem_contacts *c = &sim->contacts;
    const ndem_history *h = &sim->history;
    const ndem_neighbours *nl = &sim->neighbours;
    long n = b->count, rows = c->packet_count * NDEM_LANES, kb = 0, kbc = 0;
    for (long i = 0; i < c->block_capacity; i++) /* a block in the slots' buffer costs nothing */
        if (c->blocks[i].own) kb += c->blocks[i].count, kbc += c->blocks[i].capacity;
    double s = 0;
    printf("arrays after the steps: %ld particles, %ld contacts, %ld packets (%ld lanes), %ld "
           "listed pairs\n  %-34s %12s %12s\n",
           n, c->count, c->packet_count, rows, nl->count, "array", "in use", "allocated");
    mem_line("bodies (pos quat vel r m I mat shape)", (double)n, (double)b->capacity,
             8 * (3 + 4 + 6 + 3) + 4 + 4, n, &s);
    mem_line("bodies id + where", (double)n, (double)b->capacity, 2 * sizeof *b->id, n, &s);
    mem_line("contacts key", (double)c->count, (double)c->capacity, sizeof *c->key, n, &s);
    mem_line("contacts slot", (double)c->count, (double)c->capacity, sizeof *c->slot, n, &s);
    mem_line("contacts start", (double)n + 1, (double)c->start_capacity, sizeof *c->start, n, &s);
    mem_line("key blocks outside the slots", (double)kb, (double)kbc, sizeof(ndem_hist_key), n, &s);
    mem_line("packets", (double)c->packet_count, (double)c->packet_capacity, sizeof(ndem_packet), n,
             &s);
    if (c->bounds)
        mem_line("packet bounds (mut, lo_n)", (double)c->packet_count, (double)c->packet_capacity,
                 sizeof(ndem_packet_bounds), n, &s);
    mem_line("cold rows", (double)rows, (double)c->packet_capacity * NDEM_LANES,
             sizeof(ndem_row_cold), n, &s);
    mem_line("fill + residual", (double)c->packet_count, (double)c->packet_capacity, 1 + 12, n, &s);
    mem_line("impact v (with the packets)", (double)c->packet_count, (double)c->packet_capacity,
             sizeof(ndem_fv), n, &s);
    mem_line("impact lanes (impulses: in history lam)", (double)c->packet_count,
             (double)c->impact_capacity, sizeof(unsigned), n, &s);
    mem_line("velocity slots", (double)c->slot_count, (double)c->slot_capacity, sizeof(ndem_f8), n,
             &s);
    mem_line("colour masks outside the packets", c->color_mask ? (double)n : 0.0,
             (double)c->mask_capacity, sizeof(ndem_color_mask), n, &s);
    mem_line("history key (b, feature)", (double)h->count, (double)h->capacity, sizeof *h->key, n,
             &s);
    /* the impulses' buffer is the impact stage's scratch too: the larger in use */
    double impact_bytes = 6.0 * sizeof(ndem_fv) * (double)c->packet_count;
    double lam_bytes = 7.0 * sizeof(float) * (double)h->count;
    mem_line("history lam / impact impulses", impact_bytes > lam_bytes ? impact_bytes : lam_bytes,
             (double)h->lam_bytes, 1, n, &s);
    mem_line("history start", (double)n + 1, (double)h->start_capacity, sizeof *h->start, n, &s);
    mem_line("Verlet lists j", (double)nl->count, (double)nl->capacity, sizeof *nl->j, n, &s);
    mem_line("Verlet lists start + x0", (double)n + 1, (double)nl->start_capacity,
             sizeof(long) + 3 * sizeof(double), n, &s);
    printf("  %-34s %9.2f MB %12s %7.1f B/particle\n", "sum", s / 1048576.0, "", s / (double)n);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: prof JOB.json CKPT settle|measure STEPS [THREADS] [mem]\n");
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
    int mem = argc > 6 && strcmp(argv[6], "mem") == 0;
    if (mem) mallopt(M_MMAP_THRESHOLD, 256 * 1024); /* as ndem run (cli/ndem.c) */
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
    if (mem) mem_reset_peak();
    for (long i = 0; i < steps; i++) {
        long builds = sim->neighbours.builds;
        if (ndem_sim_step(sim) != NDEM_OK) {
            fprintf(stderr, "prof: %s\n", ndem_sim_error(sim));
            return 1;
        }
        if (mem) mem_step(sim, builds);
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
    if (mem) mem_breakdown(sim);
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
