/* publish.h - the stream messages of a running job (publish.c), the same
 * for a job run by a local worker and one run by Slurm. */
#ifndef NDEM_SERVER_PUBLISH_H
#define NDEM_SERVER_PUBLISH_H

#include "db.h"
#include "series.h"
#include "stream.h"

/* {"type":"progress", ...} of docs/protocol.md; duration is the job's
 * simulated duration; geo (may be NULL: none) the named geometry's loads,
 * sampled after the step. */
void ndem_publish_progress(ndem_stream *s, const char *id, double duration, const ndem_progress *p,
                           const ndem_series_cols *geo);
/* {"type":"status", ...}; error may be NULL. */
void ndem_publish_status(ndem_stream *s, const char *id, const char *status, const char *error);

#endif
