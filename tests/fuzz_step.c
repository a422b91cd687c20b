/* fuzz_step.c - libFuzzer target for parse-and-step (`make fuzz`): every
 * document the parser accepts is built into a simulation and stepped a few
 * times under AddressSanitizer and UndefinedBehaviorSanitizer. Large scenes
 * are skipped (the fuzzer must stay fast, and their size is bounded by the
 * parser already); one thread, at most FUZZ_STEPS steps. Besides "no crash,
 * no undefined behaviour, no leak" it checks that a refused scene says why
 * and that a failed step reports an error message. (A lattice packed closer
 * than its particles' size, a found input that took 96 s for 3 steps, is
 * refused by the parser: api/job_lattice.c.) */
#include "job.h"
#include "ndem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_PARTICLES 3000
#define FUZZ_STEPS 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ndem_job *job = NULL;
    if (ndem_job_parse((const char *)data, size, &job, NULL) != NDEM_JOB_OK) {
        if (job) abort();
        return 0;
    }
    if (ndem_job_particle_estimate(job) > FUZZ_MAX_PARTICLES) {
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
