/* targz.h - a tar.gz written as it goes (targz.c): POSIX ustar entries
 * through zlib's gzip deflate into a buffer the caller drains, so that an
 * archive of any size is sent with the memory of one entry. */
#ifndef NDEM_SERVER_TARGZ_H
#define NDEM_SERVER_TARGZ_H

#include <stddef.h>
#include <stdint.h>

typedef struct ndem_targz ndem_targz;

/* NULL when out of memory. mtime: every entry's modification time. */
ndem_targz *ndem_targz_new(int64_t mtime);
void ndem_targz_free(ndem_targz *t);
/* A file entry: its header (name under 100 bytes, or up to 255 split at a
 * '/' into ustar's prefix; size in bytes), then ndem_targz_data with
 * exactly `size` bytes in all, then ndem_targz_end. 0, or -1 (a name too
 * long, out of memory, or data beyond the size). */
int ndem_targz_begin(ndem_targz *t, const char *name, uint64_t size);
int ndem_targz_data(ndem_targz *t, const void *data, size_t len);
/* Pads the entry to its 512-byte block (zeros for what data left short). */
int ndem_targz_end(ndem_targz *t);
/* A whole file entry at once. */
int ndem_targz_file(ndem_targz *t, const char *name, const void *data, size_t len);
/* The archive's end (two zero blocks) and the gzip trailer. */
int ndem_targz_finish(ndem_targz *t);
/* Compressed bytes waiting; ndem_targz_take moves up to max of them. */
size_t ndem_targz_pending(const ndem_targz *t);
size_t ndem_targz_take(ndem_targz *t, char *buf, size_t max);

#endif
