/* store.h - job files under DATA/jobs/<id>/ and the disk writer (store.c). */
#ifndef NDEM_SERVER_STORE_H
#define NDEM_SERVER_STORE_H

#include "db.h"
#include "ndem.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ndem_store ndem_store;

/* What a checkpoint carries besides the engine's state: where the job's
 * output stood at that step, so a resume can cut the files back to it. */
typedef struct ndem_resume {
    long step;             /* engine step of the checkpoint */
    long frames;           /* frames written up to it */
    double next_frame;     /* simulated time of the next frame */
    uint64_t series_bytes; /* length of series.csv at the checkpoint (filled by the writer) */
} ndem_resume;

ndem_store *ndem_store_open(const char *data_dir, ndem_db *db, char *err, size_t err_len);
/* Writes everything still queued, then stops the writer thread. */
void ndem_store_close(ndem_store *s);

/* ---- called by a worker; the writes happen in order on the writer thread ---- */
/* Starts a job's output from nothing: directory, empty series.csv with its
 * header, no frames, no checkpoint. */
int ndem_store_reset(ndem_store *s, const char *id);
/* Reads the checkpoint: 0 found (*buf malloc'd engine state), 1 none or unreadable. */
int ndem_store_load_checkpoint(ndem_store *s, const char *id, ndem_resume *r, void **buf,
                               size_t *len);
/* Cuts series.csv and the frames back to a checkpoint. */
int ndem_store_rewind(ndem_store *s, const char *id, const ndem_resume *r);
/* Queued writes. Each takes ownership of what it is given. */
void ndem_store_frame(ndem_store *s, const char *id, long index, ndem_frame *frame);
void ndem_store_series(ndem_store *s, const char *id, char *text, size_t len);
void ndem_store_checkpoint(ndem_store *s, const char *id, const ndem_resume *r, void *buf,
                           size_t len);
void ndem_store_drop_checkpoint(ndem_store *s, const char *id);
/* Records a running job's progress in the database. */
void ndem_store_progress(ndem_store *s, const char *id, const ndem_progress *p);
/* Makes everything written so far durable (before a job is recorded done). */
void ndem_store_sync(ndem_store *s, const char *id);
/* Waits until everything queued so far is on disk; nonzero if a write failed
 * since the last call for this job. */
int ndem_store_flush(ndem_store *s, const char *id);

/* ---- reading (HTTP threads) ---- */
/* The whole NDF1 file of frame `index` (malloc'd). 0 ok, -1 missing. */
int ndem_store_read_frame(ndem_store *s, const char *id, long index, void **buf, size_t *len);
/* series.csv up to its last complete line (malloc'd). */
int ndem_store_read_series(ndem_store *s, const char *id, char **text, size_t *len);
/* Decodes an NDF1 buffer into a frame (ndem_frame_free). */
int ndem_store_decode_frame(const void *buf, size_t len, ndem_frame *f, long *index);
/* Removes DATA/jobs/<id> and everything in it. */
int ndem_store_remove(ndem_store *s, const char *id);
/* Start-up: removes job directories that carry a DELETE's tombstone and
 * whose job is gone (an interrupted delete); clears a tombstone whose job
 * is still there. Never removes an untombstoned directory. The number
 * removed. */
int ndem_store_sweep(ndem_store *s);

#endif
