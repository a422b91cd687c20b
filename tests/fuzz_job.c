/* fuzz_job.c - libFuzzer target for the job parser (`make fuzz`). Besides
 * "no crash, no leak, no hang" it checks the parser's promises: a failure
 * always carries errors whose list is valid JSON, and a parsed job written
 * back with ndem_job_to_json parses again to the same text. */
#include "job.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ndem_job *job = NULL;
    ndem_job_errors errs = {0};
    ndem_job_status st = ndem_job_parse((const char *)data, size, &job, &errs);
    if (st == NDEM_JOB_OK) {
        if (!job || errs.count != 0) abort();
        (void)ndem_job_particle_estimate(job);
        char *text = ndem_job_to_json(job);
        if (!text) abort();
        ndem_job *again = NULL;
        ndem_job_errors e2 = {0};
        if (ndem_job_parse(text, strlen(text), &again, &e2) != NDEM_JOB_OK) abort();
        char *text2 = ndem_job_to_json(again);
        if (!text2 || strcmp(text, text2) != 0) abort();
        free(text2);
        free(text);
        ndem_job_destroy(again);
        ndem_job_errors_clear(&e2);
    } else {
        if (job || errs.count == 0) abort();
        if (st == NDEM_JOB_MALFORMED && errs.count != 1) abort();
        for (int i = 0; i < errs.count; i++) {
            const char *p = errs.items[i].pointer;
            if (!p || !errs.items[i].message || (p[0] != '\0' && p[0] != '/')) abort();
        }
        char *list = ndem_job_errors_to_json(&errs);
        cJSON *parsed = list ? cJSON_Parse(list) : NULL;
        if (!parsed || cJSON_GetArraySize(parsed) != errs.count) abort();
        cJSON_Delete(parsed);
        free(list);
    }
    ndem_job_destroy(job);
    ndem_job_errors_clear(&errs);
    return 0;
}
