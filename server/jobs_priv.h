/* jobs_priv.h - what jobs.c (one job) and jobs_sweeps.c (a sweep's jobs)
 * share: the one way a document becomes a queued row. Not for other
 * modules. */
#ifndef NDEM_SERVER_JOBS_PRIV_H
#define NDEM_SERVER_JOBS_PRIV_H

#include "jobs.h"

/* Limits r to the meshes who may use: another owner's mesh id resolves as
 * an unknown one (422 with the pointer). */
void ndem_jobs_resolver(ndem_mesh_resolver *r, ndem_app *app, const ndem_caller *who);
/* The daemon's checks of a parsed job (--max-*, --executor), added to errs
 * and all sorted in the order of the document text[0..len): its steps. */
long ndem_jobs_prepare(ndem_app *app, const ndem_job *job, const char *text, size_t len,
                       ndem_job_errors *errs);
/* Fills the queued row of an accepted job (document, name, steps,
 * duration, warnings, status): 0, or -1 out of memory. */
int ndem_jobs_row_of(ndem_job_row *row, const ndem_job *job, long steps);

#endif
