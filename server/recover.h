/* recover.h - start-up checks of the database against the job directories
 * and `ndemd --recover` (recover.c). */
#ifndef NDEM_SERVER_RECOVER_H
#define NDEM_SERVER_RECOVER_H

#include "db.h"

#include <stddef.h>

/* Before the database is opened: -1 (with the reason in err) when
 * DATA/ndem.db is missing or empty while job directories exist, i.e. the
 * database was lost; starting would show an empty queue. */
int ndem_recover_check_lost(const char *data, char *err, size_t err_len);

/* ndemd --recover: moves DATA/ndem.db (and its -wal, -shm) aside to
 * ndem.db.damaged-<UTC time>, creates a fresh database and fills it from
 * the job directories (queued and running jobs queued again, finished ones
 * as they ended, frames indexed from frames/NNNNNN.ndf). 0, or -1 with err. */
int ndem_recover_rebuild(const char *data, char *err, size_t err_len);

/* Start-up: writes job.json and status.json for jobs of the database whose
 * directory lacks them (jobs accepted before the directories kept them),
 * so every job can be recovered. 0 or -1. */
int ndem_recover_backfill(const char *data, ndem_db *db);

#endif
