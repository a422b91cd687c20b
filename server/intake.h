/* intake.h - job documents from POST bodies, parsed within a memory budget
 * shared by all requests (intake.c). */
#ifndef NDEM_SERVER_INTAKE_H
#define NDEM_SERVER_INTAKE_H

#include "http.h"
#include "job.h"

#include <cjson/cJSON.h>

#include <stdatomic.h>

/* Bytes of parse trees that may exist at once (--parse-budget). */
typedef struct ndem_parse_budget {
    long long limit;
    atomic_llong used;
} ndem_parse_budget;

/* Scans and parses the body text[0..len) like ndem_job_parse_with(opts),
 * holding the bytes the tree will take from budget meanwhile. Returns 1
 * with the refusal in p (413: the document could never fit; 503 with
 * Retry-After: other parses hold the budget now), else 0 with *st, *job
 * and errs as ndem_job_parse leaves them. Arrays longer than the schema
 * allows with max_particles are errors before anything is built. */
int ndem_intake_job(ndem_parse_budget *budget, long max_particles, const ndem_job_parse_opts *opts,
                    const char *text, size_t len, ndem_job **job, ndem_job_errors *errs,
                    ndem_job_status *st, ndem_problem *p);

/* The body as a JSON tree (a sweep), scanned and budgeted like
 * ndem_intake_job, with copies times the tree's bytes held from budget
 * (room for the variants parsed while the tree lives) until
 * ndem_intake_release(budget, *held). Returns 1 with the refusal in p (400
 * not JSON, 413, 503), else 0 with *tree, or with NDEM_JOB_INVALID in *st
 * and errs filled by the scan. */
int ndem_intake_json(ndem_parse_budget *budget, long max_particles, const char *text, size_t len,
                     int copies, cJSON **tree, long long *held, ndem_job_errors *errs,
                     ndem_job_status *st, ndem_problem *p);
void ndem_intake_release(ndem_parse_budget *budget, long long held);

#endif
