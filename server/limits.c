/* limits.c - the daemon's per-job limits (--max-particles, --max-duration,
 * --max-steps, --max-output; docs/api.md), checked after the parser has
 * accepted a job, as errors with pointers like the parser's. */
#include "jobs.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Memory: --max-particles is also a job's budget, that many particles'
 * worth (NDEM_JOB_PARTICLE_BYTES each); the particles the job can hold and
 * its meshes' bytes spend it, in document order, so the error names the
 * mesh that passes it. Over the particle limit alone is reported as such. */
static void check_memory(const ndem_config *cfg, const ndem_job *job, long particles,
                         ndem_job_errors *errs)
{
    if (particles > cfg->max_particles) return;
    double budget = (double)cfg->max_particles * NDEM_JOB_PARTICLE_BYTES;
    double used = (double)particles * NDEM_JOB_PARTICLE_BYTES;
    for (int g = 0; g < job->scene.geometry_count; g++) {
        long tri = 0;
        double bytes = ndem_job_mesh_bytes(&job->scene.geometry[g], &tri);
        used += bytes;
        if (bytes == 0 || used <= budget) continue;
        char at[64];
        snprintf(at, sizeof at, "/scene/geometry/%d", g);
        ndem_job_errors_add(
            errs, at,
            "this mesh's %ld triangles take %.0f bytes (%.0f a triangle: the mesh, its placed "
            "copy, "
            "contact tables and grid); with the job's %ld particles (%.0f bytes each) and the "
            "meshes before it the job needs %.0f bytes, more than the %.0f this server allows a "
            "job (--max-particles %ld, %.0f bytes each): use a coarser mesh",
            tri, bytes, bytes / (double)tri, particles, NDEM_JOB_PARTICLE_BYTES, used, budget,
            cfg->max_particles, NDEM_JOB_PARTICLE_BYTES);
        return;
    }
}

/* The daemon's limits (--max-*), as errors with pointers like the parser's. */
void ndem_check_limits(const ndem_config *cfg, const ndem_job *job, long steps,
                       ndem_job_errors *errs)
{
    long particles = ndem_job_particle_estimate(job);
    if (particles > cfg->max_particles)
        ndem_job_errors_add(
            errs, "/scene/particles",
            "the job can hold up to %ld particles; this server allows %ld (--max-particles)",
            particles, cfg->max_particles);
    check_memory(cfg, job, particles, errs);
    if (job->scene.solver.duration > cfg->max_duration)
        ndem_job_errors_add(errs, "/solver/duration",
                            "%g s of simulated time; this server allows %g s (--max-duration)",
                            job->scene.solver.duration, cfg->max_duration);
    if (steps > cfg->max_steps)
        ndem_job_errors_add(
            errs, "/solver/time_step",
            "duration / time_step is %ld steps; this server allows %ld (--max-steps)", steps,
            cfg->max_steps);
    double bytes = ndem_job_output_estimate(job);
    if (cfg->max_output > 0 && bytes > (double)cfg->max_output)
        ndem_job_errors_add(
            errs, "/output/frame_interval",
            "the job would write about %.0f bytes of frames%s and series (%.0f frames of up "
            "to %ld particles, one series row per step); this server allows %ld bytes "
            "(--max-output): a longer frame_interval%s writes less",
            bytes, job->output.contacts ? ", contacts" : "",
            fmin(floor(job->scene.solver.duration / job->output.frame_interval + 1e-9),
                 (double)steps) +
                1,
            particles, cfg->max_output,
            job->output.contacts ? " or output.contacts false (3.5 contacts a particle)" : "");
    /* a Slurm run reports frames and series, not contact networks (docs/scale-out.md) */
    if (job->output.contacts && !strcmp(cfg->executor, "slurm"))
        ndem_job_errors_add(errs, "/output/contacts",
                            "this server runs jobs through Slurm (--executor slurm), whose runs "
                            "do not report contact networks; set it to false, or use a local "
                            "ndemd");
}

long ndem_job_steps(const ndem_job *job)
{
    double h = job->scene.solver.time_step, d = job->scene.solver.duration;
    double s = ceil(d / h - 1e-9);
    return s > (double)LONG_MAX / 2 ? LONG_MAX / 2 : (long)s;
}
