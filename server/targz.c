/* targz.c - tar.gz as it goes (targz.h). The tar side is POSIX ustar
 * (pax's ancestor, read by every tar and Python's tarfile): a 512-byte
 * header per file, the data padded to 512 bytes, two zero blocks at the
 * end. The gzip side is zlib's deflate with a gzip wrapper. */
#include "targz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct ndem_targz {
    z_stream z;
    int64_t mtime;
    uint64_t left, written; /* of the current entry */
    int in_entry, failed;
    char *out; /* compressed bytes not yet taken: out[head .. len) */
    size_t head, len, cap;
};

ndem_targz *ndem_targz_new(int64_t mtime)
{
    ndem_targz *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->mtime = mtime;
    /* 15 + 16: a gzip header and trailer around the deflate stream */
    if (deflateInit2(&t->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(t);
        return NULL;
    }
    return t;
}

void ndem_targz_free(ndem_targz *t)
{
    if (!t) return;
    deflateEnd(&t->z);
    free(t->out);
    free(t);
}

/* Deflates len bytes (flush: Z_NO_FLUSH or Z_FINISH) into out. */
static int deflate_into(ndem_targz *t, const void *data, size_t len, int flush)
{
    if (t->failed) return -1;
    t->z.next_in = (Bytef *)data;
    t->z.avail_in = (uInt)len;
    int rc;
    do {
        if (t->cap - t->len < 16384) {
            if (t->head) { /* the taken front first */
                memmove(t->out, t->out + t->head, t->len - t->head);
                t->len -= t->head;
                t->head = 0;
            }
            if (t->cap - t->len < 16384) {
                size_t cap = t->cap ? 2 * t->cap : 65536;
                char *grown = realloc(t->out, cap);
                if (!grown) return t->failed = 1, -1;
                t->out = grown;
                t->cap = cap;
            }
        }
        t->z.next_out = (Bytef *)t->out + t->len;
        t->z.avail_out = (uInt)(t->cap - t->len);
        rc = deflate(&t->z, flush);
        t->len = t->cap - t->z.avail_out;
        if (rc == Z_STREAM_ERROR) return t->failed = 1, -1;
    } while (t->z.avail_in > 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return 0;
}

/* An octal field of width w (w - 1 digits and a NUL). */
static void octal(char *field, int w, uint64_t v)
{
    field[w - 1] = 0;
    for (int i = w - 2; i >= 0; i--, v >>= 3) field[i] = (char)('0' + (v & 7));
}

int ndem_targz_begin(ndem_targz *t, const char *name, uint64_t size)
{
    if (t->in_entry) return -1;
    unsigned char h[512] = {0};
    size_t n = strlen(name);
    const char *base = name;
    if (n >= 100) { /* ustar: prefix (155) '/' name (100) */
        const char *cut = strchr(name + (n > 100 ? n - 100 : 0), '/');
        if (!cut || cut - name > 155 || n - (size_t)(cut - name) - 1 >= 100 || cut == name)
            return -1;
        memcpy(h + 345, name, (size_t)(cut - name));
        base = cut + 1;
    }
    memcpy(h, base, strlen(base));
    octal((char *)h + 100, 8, 0644);
    octal((char *)h + 108, 8, 0);
    octal((char *)h + 116, 8, 0);
    if (size >= (uint64_t)1 << 33) return -1; /* 11 octal digits */
    octal((char *)h + 124, 12, size);
    octal((char *)h + 136, 12, (uint64_t)(t->mtime > 0 ? t->mtime : 0));
    h[156] = '0';
    memcpy(h + 257, "ustar", 6); /* magic "ustar\0", version "00" */
    memcpy(h + 263, "00", 2);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++) sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
    t->in_entry = 1;
    t->left = size;
    t->written = 0;
    return deflate_into(t, h, sizeof h, Z_NO_FLUSH);
}

int ndem_targz_data(ndem_targz *t, const void *data, size_t len)
{
    if (!t->in_entry || len > t->left) return -1;
    t->left -= len;
    t->written += len;
    return deflate_into(t, data, len, Z_NO_FLUSH);
}

int ndem_targz_end(ndem_targz *t)
{
    static const char zeros[512];
    if (!t->in_entry) return -1;
    while (t->left > 0) { /* data came short: zeros, as the header said */
        size_t k = t->left < sizeof zeros ? (size_t)t->left : sizeof zeros;
        if (ndem_targz_data(t, zeros, k)) return -1;
    }
    t->in_entry = 0;
    size_t pad = (512 - (size_t)(t->written % 512)) % 512;
    return deflate_into(t, zeros, pad, Z_NO_FLUSH);
}

int ndem_targz_file(ndem_targz *t, const char *name, const void *data, size_t len)
{
    if (ndem_targz_begin(t, name, len) || ndem_targz_data(t, data, len)) return -1;
    return ndem_targz_end(t);
}

int ndem_targz_finish(ndem_targz *t)
{
    static const char zeros[1024];
    if (t->in_entry) return -1;
    return deflate_into(t, zeros, sizeof zeros, Z_FINISH);
}

size_t ndem_targz_pending(const ndem_targz *t) { return t->len - t->head; }

size_t ndem_targz_take(ndem_targz *t, char *buf, size_t max)
{
    size_t n = t->len - t->head;
    if (n > max) n = max;
    memcpy(buf, t->out + t->head, n);
    t->head += n;
    if (t->head == t->len) t->head = t->len = 0;
    return n;
}
