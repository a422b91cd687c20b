/* store.h - job files under DATA/jobs/<id>/ and the disk writer (store.c). */
#ifndef NDEM_SERVER_STORE_H
#define NDEM_SERVER_STORE_H

#include "db.h"
#include "ndem.h"

#include <stddef.h>
#include <stdio.h>
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
/* A job's account while it runs: its output budget in bytes (0: none) and
 * its first write error; begin before its files are touched, end after it
 * is recorded finished. */
void ndem_store_begin(ndem_store *s, const char *id, uint64_t max_bytes);
void ndem_store_end(ndem_store *s, const char *id);
/* Nonzero when the job must stop: a write of its output failed or the
 * output passed its budget; why gets the message (naming the file and the
 * system's reason). Cheap: asked after every step. */
int ndem_store_error(ndem_store *s, const char *id, char *why, size_t why_len);
/* Starts a job's output from nothing: directory, empty series.csv with the
 * given header line (ndem_series_header_of), no frames, no checkpoint. */
int ndem_store_reset(ndem_store *s, const char *id, const char *header);
/* Reads the newest sound checkpoint generation whose frames and series rows
 * verify (store_check.c): 0 found (*buf malloc'd engine state), 1 none. */
int ndem_store_load_checkpoint(ndem_store *s, const char *id, ndem_resume *r, void **buf,
                               size_t *len);
/* Cuts series.csv and the frames back to a checkpoint (never lengthens). */
int ndem_store_rewind(ndem_store *s, const char *id, const ndem_resume *r);
/* Queued writes. Each takes ownership of what it is given. */
void ndem_store_frame(ndem_store *s, const char *id, long index, ndem_frame *frame);
/* An encoded, sealed NDC1 record of frame `index` (contacts/NNNNNN.ndc);
 * queue it before the frame itself. */
void ndem_store_contacts(ndem_store *s, const char *id, long index, void *buf, size_t len);
void ndem_store_series(ndem_store *s, const char *id, char *text, size_t len);
void ndem_store_checkpoint(ndem_store *s, const char *id, const ndem_resume *r, void *buf,
                           size_t len);
void ndem_store_drop_checkpoint(ndem_store *s, const char *id);
/* Records a running job's progress in the database. */
void ndem_store_progress(ndem_store *s, const char *id, const ndem_progress *p);
/* Makes everything written so far durable (before a job is recorded done). */
void ndem_store_sync(ndem_store *s, const char *id);
/* Waits until everything queued so far is on disk; nonzero if the job has
 * failed (ndem_store_error says why). */
int ndem_store_flush(ndem_store *s, const char *id);
/* Nonzero when the writer's last write (any job) failed; why says which. */
int ndem_store_write_failed(ndem_store *s, char *why, size_t why_len);

/* ---- reading (HTTP threads) ---- */
/* The whole NDF1 file of frame `index` (malloc'd), verified (length and
 * CRC). 0 ok, -1 missing, -2 damaged. */
int ndem_store_read_frame(ndem_store *s, const char *id, long index, void **buf, size_t *len);
/* The whole NDC1 file of frame `index` (malloc'd), verified (length and
 * CRC). 0 ok, -1 missing, -2 damaged. */
int ndem_store_read_contacts(ndem_store *s, const char *id, long index, void **buf, size_t *len);
/* series.csv up to its last complete row whose CRC matches (malloc'd);
 * *damaged_row is the first row that does not (0 = first data row), or -1
 * when all do. -1 when there is no file. */
int ndem_store_read_series(ndem_store *s, const char *id, char **text, size_t *len,
                           long *damaged_row);
/* One of a job's files (e.g. "series.csv") opened for reading; NULL when
 * it is not there. */
FILE *ndem_store_open_file(ndem_store *s, const char *id, const char *name);
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
