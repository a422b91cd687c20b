/* store_priv.h - what store.c (the writer) and store_check.c (checkpoint
 * files, verification, resume) share; not for other modules. */
#ifndef NDEM_SERVER_STORE_PRIV_H
#define NDEM_SERVER_STORE_PRIV_H

#include "store.h"

#include <stddef.h>
#include <stdint.h>

#define NDEM_CKPT_FILE "checkpoint.ndck"
#define NDEM_CKPT_PREV "checkpoint.prev.ndck" /* the generation before */

/* DATA/jobs/<id>/<name> ("" names the directory). */
void ndem_store_path(const ndem_store *s, const char *id, const char *name, char *buf, size_t len);
int ndem_store_write_all(int fd, const void *buf, size_t len);
/* The whole file, NUL-terminated (malloc'd); NULL when unreadable. */
char *ndem_store_read_whole(const char *path, size_t *len);
/* Encodes a checkpoint file (header with CRC + engine state) and writes it
 * durably as the newest generation, the previous one kept. -1 with errno. */
int ndem_store_write_checkpoint(const char *path, const char *prev, const ndem_resume *r,
                                const void *state, size_t len);
/* Bytes of output already on disk for a job resumed at r (the budget's
 * starting point); set by the resume. */
void ndem_store_set_bytes(ndem_store *s, const char *id, uint64_t bytes);
ndem_db *ndem_store_db(ndem_store *s);
/* Removes frames/NNNNNN.ndf and contacts/NNNNNN.ndc files with NNNNNN >=
 * from. */
void ndem_store_remove_frames(ndem_store *s, const char *id, long from);

#endif
