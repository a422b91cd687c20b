/* ndem.c - the `ndem` command line (docs/cli.md): runs a job
 * document without the daemon, or validates one.
 *
 * Exit codes: 0 success (or a valid job), 1 the simulation failed,
 * 2 usage error, 3 the job document is malformed or invalid,
 * 4 a file could not be read or written, 130 / 143 stopped by SIGINT /
 * SIGTERM (128 + the signal, as a shell reports a killed command). */
#include "checkpoint_out.h"
#include "contacts_out.h"
#include "decomp_grid.h"
#include "frame_json.h"
#include "job.h"
#include "job_shapes.h"
#include "ndem_mpi.h"
#include "ndem.h"
#include "output.h"
#include "report.h"
#include "run.h"

#include <cjson/cJSON.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

enum { EXIT_SIM = 1, EXIT_USAGE = 2, EXIT_JOB = 3, EXIT_IO = 4 };

/* The signal that asked `ndem run` to stop (0: none). A signal handler can
 * only reach static storage, so this one flag is global; the run loop's
 * stop hook reads it before every step. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

/* SIGINT and SIGTERM stop the run at the next step. SA_RESETHAND puts the
 * default action back, so a second Ctrl-C kills at once. */
static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static void usage(FILE *to)
{
    fprintf(to, "usage: ndem run JOB.json [--out DIR] [--threads N] [--quiet] [--no-vtk] [--mpi]\n"
                "                [--checkpoint-steps N] [--resume]\n"
                "       ndem run --report URL [--threads N] [--quiet]\n"
                "       ndem validate JOB.json\n"
                "       ndem --help | --version\n"
                "\n"
                "run       runs the job; writes frames/, series.csv, final.json, summary.json\n"
                "          and job.json (the job with defaults) into DIR (default ./out)\n"
                "          --report: the job of ndemd's Slurm executor behind URL, whose\n"
                "          secret is in NDEM_REPORT_SECRET; everything goes back to ndemd\n"
                "          --mpi: one scene over the ranks of `mpirun -np N ndem run JOB --mpi`\n"
                "          (blocks at equal particle counts, the least cut area across gravity;\n"
                "          --mpi-grid PXxPYxPZ, --mpi-axis x|y|z for slabs; --mpi-balance N:\n"
                "          new cuts every N steps)\n"
                "          --checkpoint-steps N: DIR/checkpoint.ndck every N steps;\n"
                "          --resume: go on from DIR's checkpoint (any rank count)\n"
                "validate  prints every error of the job with its JSON Pointer\n"
                "\n"
                "exit codes: 0 ok, 1 simulation failed, 2 usage, 3 invalid job, 4 i/o error,\n"
                "            130 / 143 run stopped by SIGINT / SIGTERM (outputs kept whole)\n");
}

/* Reads and parses a job, printing every error as "FILE: POINTER: MESSAGE". */
static int load_job(const char *path, ndem_job **job)
{
    size_t len;
    char *text = ndem_read_file(path, &len);
    if (!text) {
        fprintf(stderr, "ndem: cannot read %s: %s\n", path, strerror(errno));
        return EXIT_IO;
    }
    ndem_job_errors errs = {0};
    /* a mesh's "file" is relative to the job file's directory */
    char *dir = strdup(path);
    if (!dir) {
        free(text);
        fprintf(stderr, "ndem: out of memory\n");
        return EXIT_IO;
    }
    char *slash = strrchr(dir, '/');
    if (!slash) strcpy(dir, ".");
    else if (slash == dir) dir[1] = 0;
    else *slash = 0;
    ndem_job_parse_opts opts = {.base_dir = dir};
    ndem_job_status st = ndem_job_parse_with(text, len, &opts, job, &errs);
    free(text);
    free(dir);
    if (st == NDEM_JOB_OK) {
        for (int i = 0; i < (*job)->warning_count; i++)
            fprintf(stderr, "%s: warning: %s\n", path, (*job)->warnings[i]);
        return 0;
    }
    fprintf(stderr, "%s: %s job document, %d error%s:\n", path,
            st == NDEM_JOB_MALFORMED ? "malformed" : "invalid", errs.count,
            errs.count == 1 ? "" : "s");
    for (int i = 0; i < errs.count; i++)
        fprintf(stderr, "  %s: %s\n", errs.items[i].pointer[0] ? errs.items[i].pointer : "(root)",
                errs.items[i].message);
    ndem_job_errors_clear(&errs);
    return EXIT_JOB;
}

static int cmd_validate(int argc, char **argv)
{
    if (argc != 3) {
        usage(stderr);
        return EXIT_USAGE;
    }
    ndem_job *job = NULL;
    int rc = load_job(argv[2], &job);
    if (rc == 0) {
        printf("%s: valid job '%s' (%ld particles at most)\n", argv[2], job->name,
               ndem_job_particle_estimate(job));
        ndem_job_destroy(job);
    }
    return rc;
}

typedef struct progress {
    int tty, quiet;
    double last_print, start;
} progress;

static void show_progress(progress *p, const ndem_step_stats *s, long total, int final)
{
    double now = omp_get_wtime();
    if (p->quiet || (!final && now - p->last_print < (p->tty ? 0.1 : 5.0))) return;
    p->last_print = now;
    double frac = total > 0 ? (double)s->step / (double)total : 1.0;
    double elapsed = now - p->start;
    double eta = frac > 0 ? elapsed * (1.0 - frac) / frac : 0.0;
    if (p->tty) {
        char bar[31];
        int fill = (int)(frac * 30);
        for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
        bar[30] = 0;
        fprintf(stderr,
                "\r[%s] %5.1f%% step %ld/%ld t=%.3f s  %ld particles  %ld contacts  "
                "%.1f ms/step  ETA %.0f s   %s",
                bar, 100 * frac, s->step, total, s->time, s->particles, s->contacts,
                1e3 * s->wall_total, eta, final ? "\n" : "");
    } else {
        fprintf(stderr,
                "progress %.1f%% step=%ld/%ld time=%.4f particles=%ld contacts=%ld "
                "kinetic_energy=%.4g iterations=%d elapsed=%.1fs eta=%.0fs\n",
                100 * frac, s->step, total, s->time, s->particles, s->contacts, s->kinetic_energy,
                s->iterations, elapsed, eta);
    }
    fflush(stderr);
}

static char *summary_json(const ndem_job *job, const ndem_step_stats *s, long total_steps,
                          const char *status, const char *error, double wall, long frames)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", job->name);
    cJSON_AddStringToObject(o, "status", status);
    if (error) cJSON_AddStringToObject(o, "error", error);
    cJSON_AddNumberToObject(o, "steps", (double)s->step);
    cJSON_AddNumberToObject(o, "steps_total", (double)total_steps);
    cJSON_AddNumberToObject(o, "time", s->time);
    cJSON_AddNumberToObject(o, "wall_seconds", wall);
    cJSON_AddNumberToObject(o, "ms_per_step", s->step > 0 ? 1e3 * wall / (double)s->step : 0);
    cJSON_AddNumberToObject(o, "particles", (double)s->particles);
    cJSON_AddNumberToObject(o, "contacts", (double)s->contacts);
    cJSON_AddNumberToObject(o, "geometry_contacts", (double)s->geometry_contacts);
    cJSON_AddNumberToObject(o, "kinetic_energy", s->kinetic_energy);
    cJSON_AddNumberToObject(o, "iterations", s->iterations);
    cJSON_AddNumberToObject(o, "residual_normal", s->residual_normal);
    cJSON_AddNumberToObject(o, "max_overlap", s->max_overlap);
    cJSON_AddNumberToObject(o, "frames", (double)frames);
    cJSON_AddNumberToObject(o, "threads",
                            job->scene.solver.threads > 0 ? job->scene.solver.threads
                                                          : omp_get_max_threads());
    cJSON_AddNumberToObject(o, "peak_memory_bytes", (double)ru.ru_maxrss * 1024.0);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}

static int write_text_or_warn(const ndem_output *out, const char *name, char *text)
{
    int rc = text ? ndem_output_text(out, name, text) : -1;
    if (rc) fprintf(stderr, "ndem: cannot write %s/%s: %s\n", out->dir, name, strerror(errno));
    return rc;
}

/* The hooks of the shared run loop (api/run.h): files and the progress line. */
typedef struct cli_run {
    ndem_output *out;
    progress *pr;
    long total;
    const ndem_sim *sim;
    int contacts;       /* output.contacts: the network with each frame */
    long ckpt_steps;    /* --checkpoint-steps (0: none) */
    double *next_frame; /* the run loop's, for the checkpoint */
} cli_run;

/* The checkpoint files at a step that is due (docs/cli.md, "Checkpoints"):
 * the state from the caller (one process's or gathered), where the outputs
 * stand, and an MPI run's cuts. */
static int write_checkpoint(ndem_output *out, long step, double next_frame, void *state, size_t len,
                            int ranks, const ndem_grid *grid)
{
    ndem_ckpt_meta meta = {step, next_frame, {0}, ranks, {0, 0, 0}, 0, NULL};
    if (grid) {
        memcpy(meta.grid, grid->dims, sizeof meta.grid);
        meta.n_cuts = ndem_grid_cut_count(grid);
        meta.cuts = malloc(sizeof(double) * (size_t)(meta.n_cuts + 1));
        if (!meta.cuts) {
            fprintf(stderr, "ndem: checkpoint: out of memory\n");
            free(state);
            return -1;
        }
        ndem_grid_get_cuts(grid, meta.cuts);
    }
    char err[4400];
    snprintf(err, sizeof err, "cannot write %s/series.csv: %s", out->dir, strerror(errno));
    int rc = ndem_output_mark_now(out, &meta.mark) ||
             ndem_ckpt_write(out->dir, state, len, &meta, err, sizeof err);
    if (rc) fprintf(stderr, "ndem: checkpoint: %s\n", err);
    free(state), free(meta.cuts);
    return rc;
}

static int checkpoint_due(long every, long step, long total)
{
    return every > 0 && step % every == 0 && step < total;
}

static int cli_stop(void *ctx)
{
    (void)ctx;
    return stop_signal ? 1 : 0;
}

static int cli_row(void *ctx, const ndem_step_stats *s)
{
    cli_run *r = ctx;
    (void)s; /* the row takes the named geometry's loads from the simulation too */
    return ndem_output_series_row(r->out, r->sim);
}

/* A frame, and with output.contacts the contact network under its number. */
static int cli_frame(void *ctx, ndem_sim *sim)
{
    cli_run *r = ctx;
    if (ndem_output_frame(r->out, sim)) return -1;
    if (r->contacts && ndem_output_contacts(r->out->dir, r->out->frames - 1, sim)) {
        fprintf(stderr, "ndem: cannot write %s/contacts: %s\n", r->out->dir, strerror(errno));
        return -1;
    }
    return 0;
}

static int cli_tick(void *ctx, ndem_sim *sim)
{
    cli_run *r = ctx;
    show_progress(r->pr, ndem_sim_stats(sim), r->total, 0);
    long step = ndem_sim_stats(sim)->step;
    if (!checkpoint_due(r->ckpt_steps, step, r->total)) return 0;
    void *buf;
    size_t len;
    if (ndem_sim_checkpoint(sim, &buf, &len)) return -1;
    return write_checkpoint(r->out, step, *r->next_frame, buf, len, 1, NULL);
}

/* --resume: the checkpoint in out_dir restored as the whole scene (NULL
 * with a message), its description in *meta. */
static ndem_sim *resume_sim(const ndem_job *job, const char *out_dir, ndem_ckpt_meta *meta,
                            char *err, size_t err_len)
{
    void *state;
    size_t len;
    if (ndem_ckpt_read(out_dir, &state, &len, meta, err, err_len)) return NULL;
    char why[256];
    ndem_sim *sim = ndem_sim_restore(&job->scene, state, len, why, sizeof why);
    free(state);
    if (!sim) snprintf(err, err_len, "cannot resume from %s/checkpoint.ndck: %s", out_dir, why);
    else if (ndem_sim_stats(sim)->step != meta->step) {
        snprintf(err, err_len, "%s/checkpoint.ndck is at step %ld, checkpoint.json says %ld",
                 out_dir, ndem_sim_stats(sim)->step, meta->step);
        ndem_sim_destroy(sim);
        sim = NULL;
    }
    if (!sim) ndem_ckpt_meta_free(meta);
    return sim;
}

/* How the MPI run is cut: --mpi-grid, --mpi-axis, --mpi-balance. */
typedef struct mpi_layout {
    int dims[3]; /* 0s: automatic */
    int axis;    /* -1, or slabs along this axis */
    long balance_steps;
} mpi_layout;

#ifdef NDEM_MPI
/* ---- `mpirun -np N ndem run JOB --mpi` (cli/mpi.c, docs/scale-out.md),
 * in the program ndem-mpi, the only one linked with Open MPI: every rank
 * steps its block; rank 0 writes the outputs from the totals and the
 * frames gathered at output steps. An error on one rank ends all. ---- */
typedef struct mpi_run {
    ndem_mpi *m;
    ndem_output *out; /* rank 0 only */
    progress *pr;
    long total;
    ndem_sim *sim;
    long ckpt_steps;
    double *next_frame;
} mpi_run;

static int mpi_stop(void *ctx) { return ndem_mpi_before_step(((mpi_run *)ctx)->m, stop_signal); }

static int mpi_row(void *ctx, const ndem_step_stats *s)
{
    mpi_run *r = ctx;
    (void)s;
    ndem_mpi_after_step(r->m);
    if (r->out && ndem_output_series_row(r->out, r->sim)) {
        fprintf(stderr, "ndem: cannot write %s/series.csv: %s\n", r->out->dir, strerror(errno));
        ndem_mpi_abort(EXIT_IO);
    }
    return 0;
}

static int mpi_frame(void *ctx, ndem_sim *sim)
{
    mpi_run *r = ctx;
    (void)sim;
    ndem_frame f;
    char err[256];
    if (ndem_mpi_gather_frame(r->m, &f, err, sizeof err)) {
        fprintf(stderr, "ndem: %s\n", err);
        ndem_mpi_abort(EXIT_SIM);
    }
    if (!r->out) return 0;
    int rc = ndem_output_frame_of(r->out, &f);
    ndem_frame_free(&f);
    if (rc) {
        fprintf(stderr, "ndem: cannot write %s/frames: %s\n", r->out->dir, strerror(errno));
        ndem_mpi_abort(EXIT_IO);
    }
    return 0;
}

static int mpi_tick(void *ctx, ndem_sim *sim)
{
    mpi_run *r = ctx;
    if (r->out) show_progress(r->pr, ndem_sim_stats(sim), r->total, 0);
    long step = ndem_sim_stats(sim)->step; /* the same on every rank */
    if (!checkpoint_due(r->ckpt_steps, step, r->total)) return 0;
    void *buf = NULL;
    size_t len = 0;
    int rc = ndem_mpi_checkpoint(r->m, &buf, &len); /* every rank: collective */
    if (r->out && (rc || write_checkpoint(r->out, step, *r->next_frame, buf, len,
                                          ndem_mpi_size(r->m), ndem_mpi_grid(r->m))))
        ndem_mpi_abort(EXIT_IO);
    return 0;
}

/* The ranks' costs into the summary: per rank its particles, migrations and
 * what it sent per sweep (docs/scale-out.md). */
static void mpi_costs_json(cJSON *o, const ndem_mpi *m, double wall, long steps)
{
    ndem_mpi_costs c;
    ndem_mpi_get_costs(m, &c);
    enum { N = 11 };
    double mine[N] = {(double)c.owned,
                      (double)c.ghosts,
                      (double)c.migrations,
                      c.sweeps > 0 ? c.sweep_bytes / (double)c.sweeps : 0,
                      c.sweeps > 0 ? c.sweep_messages / (double)c.sweeps : 0,
                      c.migrate_bytes,
                      c.migrate_messages,
                      (double)c.sweeps,
                      steps > 0 ? 1e3 * c.exchange_seconds / (double)steps : 0,
                      steps > 0 ? 1e3 * c.migrate_seconds / (double)steps : 0,
                      (double)c.rebalances};
    int size = ndem_mpi_size(m), rank = ndem_mpi_rank(m);
    double *all = rank == 0 ? malloc(sizeof mine * (size_t)size) : NULL;
    if (rank == 0 && !all) ndem_mpi_abort(EXIT_SIM);
    ndem_mpi_gather_doubles(mine, N, all);
    if (!o) return;
    cJSON *mp = cJSON_AddObjectToObject(o, "mpi");
    cJSON_AddNumberToObject(mp, "ranks", size);
    cJSON_AddNumberToObject(mp, "ms_per_step", steps > 0 ? 1e3 * wall / (double)steps : 0);
    cJSON *arr = cJSON_AddArrayToObject(mp, "per_rank");
    static const char *names[N] = {"owned",
                                   "ghosts",
                                   "migrations",
                                   "bytes_per_sweep",
                                   "messages_per_sweep",
                                   "migration_bytes",
                                   "migration_messages",
                                   "sweeps",
                                   "exchange_ms_per_step",
                                   "migration_ms_per_step",
                                   "rebalances"};
    for (int r = 0; r < size; r++) {
        cJSON *e = cJSON_CreateObject();
        for (int k = 0; k < N; k++) cJSON_AddNumberToObject(e, names[k], all[N * r + k]);
        cJSON_AddItemToArray(arr, e);
    }
    free(all);
}

static int cmd_run_mpi(int *argc, char ***argv, const char *job_path, const char *out_dir,
                       int threads, int quiet, int vtk, mpi_layout lay, long ckpt_steps, int resume)
{
    char err[512];
    if (ndem_mpi_init(argc, argv, err, sizeof err)) {
        fprintf(stderr, "ndem: %s\n", err);
        return EXIT_USAGE;
    }
    int rank = ndem_mpi_world_rank();
    ndem_job *job = NULL;
    int rc = load_job(job_path, &job); /* every rank reads it: the same answer */
    if (!rc && ndem_mpi_supported(job, err, sizeof err)) {
        if (rank == 0) fprintf(stderr, "ndem: %s\n", err);
        rc = EXIT_USAGE;
    }
    if (rc) {
        ndem_job_destroy(job);
        ndem_mpi_finalize();
        return rc;
    }
    /* one thread a rank unless asked: ranks share the cores */
    job->scene.solver.threads = threads > 0 ? threads : 1;
    /* --resume: every rank restores the whole scene (the directory is
     * shared), the cuts kept when the rank count and axis are the writer's */
    ndem_ckpt_meta meta = {0};
    ndem_sim *sim = NULL;
    if (resume && !(sim = resume_sim(job, out_dir, &meta, err, sizeof err))) {
        if (rank == 0) fprintf(stderr, "ndem: %s\n", err);
        ndem_job_destroy(job);
        ndem_mpi_finalize();
        return EXIT_IO;
    }
    int size = ndem_mpi_world_size(), *d = lay.dims;
    if (lay.axis >= 0) d[0] = d[1] = d[2] = 1, d[lay.axis] = size;
    /* not told otherwise, a resume keeps the checkpoint's grid if it fits */
    if (resume && d[0] < 1 && meta.cuts && meta.ranks == size)
        memcpy(d, meta.grid, sizeof meta.grid);
    const double *cuts =
        resume && meta.cuts && meta.ranks == size && !memcmp(d, meta.grid, sizeof meta.grid)
            ? meta.cuts
            : NULL;
    ndem_output out, *outp = NULL;
    if (rank == 0) {
        if (ndem_output_open(&out, out_dir, vtk, &job->scene, resume ? &meta.mark : NULL, err,
                             sizeof err)) {
            fprintf(stderr, "ndem: %s\n", err);
            ndem_mpi_abort(EXIT_IO);
        }
        outp = &out;
        char *doc = ndem_job_to_json(job);
        write_text_or_warn(&out, "job.json", doc);
        free(doc);
        if (ndem_output_meshes(&out, &job->scene))
            fprintf(stderr, "ndem: warning: cannot write %s/meshes: %s\n", out.dir,
                    strerror(errno));
    }
    catch_stop_signals();
    if (!sim) sim = ndem_sim_create(&job->scene, err, sizeof err); /* the same on every rank */
    ndem_mpi *m = sim ? ndem_mpi_create(sim, job->scene.gravity, d, cuts, lay.balance_steps, resume,
                                        err, sizeof err)
                      : NULL;
    ndem_ckpt_meta_free(&meta);
    if (!m) {
        if (rank == 0) fprintf(stderr, "ndem: %s\n", err);
        if (outp) ndem_output_close(outp);
        ndem_sim_destroy(sim);
        ndem_job_destroy(job);
        ndem_mpi_finalize();
        return EXIT_SIM;
    }
    progress pr = {isatty(fileno(stderr)), quiet, -1e9, omp_get_wtime()};
    long total = ndem_sim_total_steps(sim);
    double next_frame = resume ? meta.next_frame : job->output.frame_interval;
    mpi_run mr = {m, outp, &pr, total, sim, ckpt_steps, &next_frame};
    if (!resume) mpi_frame(&mr, sim);
    else if (rank == 0 && !quiet)
        fprintf(stderr, "ndem: resuming at step %ld of %ld on %d ranks%s\n",
                ndem_sim_stats(sim)->step, total, ndem_mpi_size(m),
                cuts ? " (the checkpoint's blocks)" : " (new blocks)");
    ndem_run_hooks hooks = {&mr, mpi_stop, mpi_row, mpi_frame, mpi_tick};
    int end = ndem_run_loop(sim, job->scene.solver.time_step, job->output.frame_interval,
                            &next_frame, &hooks);
    if (end == NDEM_RUN_ENGINE) {
        fprintf(stderr, "ndem: simulation failed on rank %d: %s\n", rank, ndem_sim_error(sim));
        ndem_mpi_abort(EXIT_SIM);
    }
    int stopped_by = end > 0 ? end : 0;
    double wall = omp_get_wtime() - pr.start;
    ndem_frame f;
    if (ndem_mpi_gather_frame(m, &f, err, sizeof err)) {
        fprintf(stderr, "ndem: %s\n", err);
        ndem_mpi_abort(EXIT_SIM);
    }
    ndem_step_stats last = *ndem_sim_stats(sim); /* rank 0: the totals */
    cJSON *costs = rank == 0 ? cJSON_CreateObject() : NULL;
    mpi_costs_json(costs, m, wall, last.step);
    rc = 0;
    if (rank == 0) {
        show_progress(&pr, &last, total, 1);
        const char **names = calloc((size_t)f.geometry_count + 1, sizeof *names);
        for (long g = 0; names && g < f.geometry_count; g++) names[g] = job->scene.geometry[g].name;
        char *fj = ndem_frame_to_json(&f, out.frames > 0 ? out.frames - 1 : 0, names);
        free(names);
        int io_failed = write_text_or_warn(&out, "final.json", fj) != 0;
        free(fj);
        ndem_frame_free(&f);
        const char *error = io_failed ? "writing the output failed" : NULL;
        const char *status = error ? "failed" : stopped_by ? "stopped" : "succeeded";
        char *sum = summary_json(job, &last, total, status, error, wall, out.frames);
        cJSON *doc = sum ? cJSON_Parse(sum) : NULL;
        free(sum);
        sum = NULL;
        if (doc) {
            cJSON_AddItemToObject(doc, "mpi", cJSON_DetachItemFromObject(costs, "mpi"));
            sum = cJSON_Print(doc);
            cJSON_Delete(doc);
        }
        write_text_or_warn(&out, "summary.json", sum);
        if (sum) printf("%s\n", sum);
        free(sum);
        rc = io_failed ? EXIT_IO : 0;
        ndem_output_close(&out);
    }
    cJSON_Delete(costs);
    if (stopped_by) {
        if (rank == 0)
            fprintf(stderr, "ndem: stopped by %s at step %ld, t = %.9g s; outputs in %s\n",
                    stopped_by == SIGINT ? "SIGINT" : "SIGTERM", last.step, last.time, out_dir);
        if (!rc) rc = 128 + stopped_by;
    }
    ndem_mpi_destroy(m);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    ndem_mpi_finalize();
    return rc;
}
#else
/* `ndem run --mpi` in ndem, which does not map Open MPI's libraries (about
 * 1.4 MB resident in every run, 14 B a particle of bed-100k's peak;
 * docs/performance.md, "Session 13: memory"): ndem-mpi, made beside it by
 * `make`, runs the same arguments. exec keeps the process, so the rank's
 * environment from mpirun stays. Returns only when it cannot be run. */
static int exec_mpi_build(char **argv)
{
    char self[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "ndem: --mpi: cannot find this program (/proc/self/exe): %s\n",
                strerror(errno));
        return EXIT_USAGE;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    int dir = slash ? (int)(slash - self) : 0;
    snprintf(path, sizeof path, "%.*s/ndem-mpi", dir, self);
    argv[0] = path;
    execv(path, argv);
    fprintf(stderr,
            "ndem: --mpi runs %s, the build of ndem with Open MPI (`make` builds it beside "
            "ndem when Open MPI's headers and libraries are installed: Debian's libopenmpi-dev, "
            "openmpi-bin): %s\n",
            path, strerror(errno));
    return EXIT_USAGE;
}
#endif

static int cmd_run(int argc, char **argv)
{
    const char *job_path = NULL, *out_dir = "out", *report = NULL;
    int threads = -1, quiet = 0, vtk = 1, mpi = 0, resume = 0;
    mpi_layout lay = {{0, 0, 0}, -1, 0};
    long ckpt_steps = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];
        else if (!strcmp(argv[i], "--report") && i + 1 < argc) report = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            char *end;
            long t = strtol(argv[++i], &end, 10);
            if (*end || t < 1 || t > 1024) {
                fprintf(stderr, "ndem: --threads wants a number from 1 to 1024, not '%s'\n",
                        argv[i]);
                return EXIT_USAGE;
            }
            threads = (int)t;
        } else if (!strcmp(argv[i], "--checkpoint-steps") && i + 1 < argc) {
            char *end;
            ckpt_steps = strtol(argv[++i], &end, 10);
            if (*end || ckpt_steps < 1) {
                fprintf(stderr, "ndem: --checkpoint-steps wants a positive number, not '%s'\n",
                        argv[i]);
                return EXIT_USAGE;
            }
        } else if (!strcmp(argv[i], "--resume")) resume = 1;
        else if (!strcmp(argv[i], "--quiet")) quiet = 1;
        else if (!strcmp(argv[i], "--no-vtk")) vtk = 0;
        else if (!strcmp(argv[i], "--mpi")) mpi = 1;
        else if (!strcmp(argv[i], "--mpi-axis") && i + 1 < argc) {
            const char *a = argv[++i];
            if (strlen(a) != 1 || !strchr("xyz", a[0])) {
                fprintf(stderr, "ndem: --mpi-axis wants x, y or z, not '%s'\n", a);
                return EXIT_USAGE;
            }
            lay.axis = a[0] - 'x';
        } else if (!strcmp(argv[i], "--mpi-grid") && i + 1 < argc) {
            if (ndem_grid_parse(argv[++i], lay.dims)) {
                fprintf(stderr,
                        "ndem: --mpi-grid wants PXxPYxPZ (blocks along x, y, z, e.g. "
                        "2x2x1), not '%s'\n",
                        argv[i]);
                return EXIT_USAGE;
            }
        } else if (!strcmp(argv[i], "--mpi-balance") && i + 1 < argc) {
            char *end;
            lay.balance_steps = strtol(argv[++i], &end, 10);
            if (*end || lay.balance_steps < 1) {
                fprintf(stderr, "ndem: --mpi-balance wants a positive number of steps, not '%s'\n",
                        argv[i]);
                return EXIT_USAGE;
            }
        } else if (argv[i][0] != '-' && !job_path) job_path = argv[i];
        else {
            fprintf(stderr, "ndem: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (report && (resume || ckpt_steps)) {
        fprintf(stderr, "ndem: --report takes ndemd's checkpoints, not --resume or "
                        "--checkpoint-steps\n");
        return EXIT_USAGE;
    }
    if (report && mpi) {
        fprintf(stderr, "ndem: --mpi runs a job file, not --report\n");
        return EXIT_USAGE;
    }
    if (report) {
        if (job_path) {
            fprintf(stderr, "ndem: --report takes the job from ndemd, not from '%s'\n", job_path);
            return EXIT_USAGE;
        }
        catch_stop_signals();
        return ndem_report_run(report, getenv("NDEM_REPORT_SECRET"), threads, &stop_signal);
    }
    if (!job_path) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *mpi_opt = lay.axis >= 0       ? "--mpi-axis"
                          : lay.dims[0] > 0   ? "--mpi-grid"
                          : lay.balance_steps ? "--mpi-balance"
                                              : NULL;
    if (mpi_opt && !mpi) {
        fprintf(stderr, "ndem: %s goes with --mpi\n", mpi_opt);
        return EXIT_USAGE;
    }
    if (lay.axis >= 0 && lay.dims[0] > 0) {
        fprintf(stderr, "ndem: --mpi-axis A is --mpi-grid with the ranks along A: give one\n");
        return EXIT_USAGE;
    }
#ifdef NDEM_MPI
    if (mpi)
        return cmd_run_mpi(&argc, &argv, job_path, out_dir, threads, quiet, vtk, lay, ckpt_steps,
                           resume);
#else
    if (mpi) return exec_mpi_build(argv);
#endif
    ndem_job *job = NULL;
    int rc = load_job(job_path, &job);
    if (rc) return rc;
    if (threads > 0) job->scene.solver.threads = threads;
    char err[512];
    ndem_ckpt_meta meta = {0};
    ndem_sim *sim = NULL;
    if (resume && !(sim = resume_sim(job, out_dir, &meta, err, sizeof err))) {
        fprintf(stderr, "ndem: %s\n", err);
        ndem_job_destroy(job);
        return EXIT_IO;
    }
    ndem_ckpt_meta_free(&meta); /* one process needs no cuts */
    ndem_output out;
    if (ndem_output_open(&out, out_dir, vtk, &job->scene, resume ? &meta.mark : NULL, err,
                         sizeof err)) {
        fprintf(stderr, "ndem: %s\n", err);
        ndem_sim_destroy(sim);
        ndem_job_destroy(job);
        return EXIT_IO;
    }
    char *doc = ndem_job_to_json(job);
    write_text_or_warn(&out, "job.json", doc);
    if (vtk) { /* the templates of shaped particles, for paraview/shapes_NNNNNN.vtp */
        cJSON *parsed = doc ? cJSON_Parse(doc) : NULL;
        out.pv.series.shapes = parsed ? ndem_job_shape_table(parsed) : NULL;
        cJSON_Delete(parsed);
    }
    free(doc);
    if (ndem_output_meshes(&out, &job->scene))
        fprintf(stderr, "ndem: warning: cannot write %s/meshes: %s\n", out.dir, strerror(errno));
    catch_stop_signals(); /* from here on a stop leaves whole outputs */
    if (!sim) sim = ndem_sim_create(&job->scene, err, sizeof err);
    if (!sim) {
        fprintf(stderr, "ndem: %s\n", err);
        ndem_output_close(&out);
        ndem_job_destroy(job);
        return EXIT_SIM;
    }
    progress pr = {isatty(fileno(stderr)), quiet, -1e9, omp_get_wtime()};
    long total = ndem_sim_total_steps(sim);
    double next_frame = resume ? meta.next_frame : job->output.frame_interval;
    cli_run cr = {&out, &pr, total, sim, job->output.contacts, ckpt_steps, &next_frame};
    int io_failed = resume ? 0 : cli_frame(&cr, sim) != 0;
    if (resume && !quiet)
        fprintf(stderr, "ndem: resuming at step %ld of %ld\n", ndem_sim_stats(sim)->step, total);
    ndem_run_hooks hooks = {&cr, cli_stop, cli_row, cli_frame, cli_tick};
    int end = ndem_run_loop(sim, job->scene.solver.time_step, job->output.frame_interval,
                            &next_frame, &hooks);
    io_failed |= end == NDEM_RUN_HOOK;
    int stopped_by = end > 0 ? stop_signal : 0; /* between two steps: every row is whole */
    const char *error = end == NDEM_RUN_ENGINE ? ndem_sim_error(sim) : NULL;
    show_progress(&pr, ndem_sim_stats(sim), total, 1);
    double wall = omp_get_wtime() - pr.start;
    /* The final frame as JSON is large (about 100 bytes a particle): the
     * engine's memory goes back first, so the run's peak stays the steps'. */
    ndem_step_stats last = *ndem_sim_stats(sim);
    long total_steps = ndem_sim_total_steps(sim);
    char engine_error[256] = "";
    if (error) snprintf(engine_error, sizeof engine_error, "%s", error), error = engine_error;
    ndem_frame f;
    int have_frame = ndem_sim_finish(sim, &f) == 0; /* the copy after the engine's work arrays */
    sim = NULL;
    if (have_frame) {
        const char **names = calloc((size_t)f.geometry_count + 1, sizeof *names);
        for (long g = 0; names && g < f.geometry_count; g++) names[g] = job->scene.geometry[g].name;
        char *fj = ndem_frame_to_json(&f, out.frames > 0 ? out.frames - 1 : 0, names);
        free(names);
        io_failed |= write_text_or_warn(&out, "final.json", fj) != 0;
        free(fj);
        ndem_frame_free(&f);
    }
    if (io_failed && !error) error = "writing the output failed";
    const char *status = error ? "failed" : stopped_by ? "stopped" : "succeeded";
    char *sum = summary_json(job, &last, total_steps, status, error, wall, out.frames);
    write_text_or_warn(&out, "summary.json", sum);
    if (sum) printf("%s\n", sum);
    free(sum);
    if (error) fprintf(stderr, "ndem: simulation failed: %s\n", error);
    rc = io_failed ? EXIT_IO : error ? EXIT_SIM : 0;
    ndem_output_close(&out); /* flushes series.csv */
    if (stopped_by) {
        fprintf(stderr, "ndem: stopped by %s at step %ld, t = %.9g s; outputs in %s\n",
                stopped_by == SIGINT ? "SIGINT" : "SIGTERM", last.step, last.time, out.dir);
        if (!rc) rc = 128 + stopped_by;
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return rc;
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* The engine's large arrays come and go (rows grow, lists are rebuilt):
     * a fixed threshold keeps them in mmap, so freed memory returns to the
     * system instead of fragmenting the heap (about 20% of a bed's peak). */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("ndem 0.1.0\n");
        return 0;
    }
    if (!strcmp(argv[1], "run")) return cmd_run(argc, argv);
    if (!strcmp(argv[1], "validate")) return cmd_validate(argc, argv);
    fprintf(stderr, "ndem: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
