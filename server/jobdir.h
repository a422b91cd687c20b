/* jobdir.h - what a job directory keeps besides its output, so that the
 * index can be rebuilt from the directories (jobdir.c). */
#ifndef NDEM_SERVER_JOBDIR_H
#define NDEM_SERVER_JOBDIR_H

#include "db.h"

#include <cjson/cJSON.h>
#include <sys/types.h>

/* A new job: DATA/jobs/<id>/ with job.json (row->document), warnings.json
 * (row->warnings, when it lists any) and status.json. 0, or -1 with errno
 * set. */
int ndem_jobdir_create(const char *data, const ndem_job_row *row);
/* sweep.json of job id: the record of the sweep it belongs to, written
 * once when the sweep is queued (and by start-up for older sweep jobs). 0,
 * or -1 with errno set. */
int ndem_jobdir_save_sweep(const char *data, const char *id, const ndem_sweep_row *sw);
/* Reads it into sw (ndem_sweep_row_free): 0, or -1 when missing or not a
 * sweep record. */
int ndem_jobdir_load_sweep(const char *data, const char *id, ndem_sweep_row *sw);
/* The job's warnings (warnings.json) as a new array, empty when it has none. */
cJSON *ndem_jobdir_warnings(const char *data, const char *id);
/* Rewrites status.json from the job's row (after every transition). */
int ndem_jobdir_save_status(const char *data, const ndem_job_row *row);
/* The same, reading the row first; logs what fails. */
void ndem_jobdir_sync(const char *data, ndem_db *db, const char *id);
/* Another file of the job's directory, written atomically with mode (0,
 * or -1 with errno set), or read whole (malloc'd text; NULL when it is
 * missing or unreadable). */
int ndem_jobdir_write(const char *data, const char *id, const char *name, const char *text,
                      mode_t mode);
char *ndem_jobdir_read(const char *data, const char *id, const char *name);
/* The tombstone DATA/jobs/<id>/.deleted: set (written durably) or cleared.
 * Only a tombstoned directory may ever be removed by start-up. */
int ndem_jobdir_tombstone(const char *data, const char *id, int set);
int ndem_jobdir_tombstoned(const char *data, const char *id);
/* Directories under DATA/jobs that hold a job.json and no tombstone. */
long ndem_jobdir_count(const char *data);
/* A job from its directory: job.json and status.json into row (free with
 * ndem_job_row_free). 0, or -1 with the reason in err. */
int ndem_jobdir_load(const char *data, const char *id, ndem_job_row *row, char *err,
                     size_t err_len);
/* 1 when name looks like a job directory (NDEM_ID_LEN hex digits). */
int ndem_jobdir_is_id(const char *name);

#endif
