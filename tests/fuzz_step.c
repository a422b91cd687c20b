/* fuzz_step.c - libFuzzer target for parse-and-step (`make fuzz`): every
 * document the parser accepts is built into a simulation and stepped a few
 * times under AddressSanitizer and UndefinedBehaviorSanitizer. Large scenes
 * are skipped (the fuzzer must stay fast, and their size is bounded by the
 * parser already); one thread, at most FUZZ_STEPS steps. Besides "no crash,
 * no undefined behaviour, no leak" it checks that a refused scene says why
 * and that a failed step reports an error message. Lattices packed closer
 * than their particles' size are skipped too: every particle then overlaps
 * hundreds of others, and a few thousand polyhedra cost O(N^2) narrow-phase
 * tests a step (a found input: 1056 cubes of radius 1 m at a 35 mm pitch,
 * 96 s for 3 steps). Such jobs are valid today; the parser refusing them is
 * the fix noted on issue 15/13. */
#include "job.h"
#include "ndem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_PARTICLES 3000
#define FUZZ_STEPS 3

/* a lattice whose pitch is under its largest particle's diameter */
static int overlapping_lattice(const ndem_scene_def *scene)
{
    for (int i = 0; i < scene->generator_count; i++) {
        const ndem_generator_def *g = &scene->generators[i];
        if (g->type == NDEM_GENERATOR_LATTICE && g->spacing > 0 && g->spacing < 2 * g->radius.max)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ndem_job *job = NULL;
    if (ndem_job_parse((const char *)data, size, &job, NULL) != NDEM_JOB_OK) {
        if (job) abort();
        return 0;
    }
    if (ndem_job_particle_estimate(job) > FUZZ_MAX_PARTICLES || overlapping_lattice(&job->scene)) {
        ndem_job_destroy(job);
        return 0;
    }
    job->scene.solver.threads = 1;
    char err[256] = "";
    ndem_sim *sim = ndem_sim_create(&job->scene, err, sizeof err);
    if (!sim) {
        if (!err[0]) /* a refusal always says why */
            abort();
        ndem_job_destroy(job);
        return 0;
    }
    for (int i = 0; i < FUZZ_STEPS; i++) {
        ndem_status st = ndem_sim_step(sim);
        if (st != NDEM_OK) {
            const char *e = ndem_sim_error(sim);
            if (!e || !e[0]) abort();
            break;
        }
    }
    ndem_frame f;
    if (ndem_sim_copy_frame(sim, &f) == 0) {
        if (f.count != ndem_sim_particle_count(sim)) abort();
        ndem_frame_free(&f);
    }
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return 0;
}
