/* store_check.c - the parts of a job's files that must be verified before
 * they are trusted: checkpoint files (two generations, each with a CRC-32C),
 * frame records (the CRC of their NDF1 header) and series rows (their CRC
 * column).
 *
 * Resuming picks the newest checkpoint generation that is sound AND whose
 * outputs are: every frame it counts verifies, and series.csv verifies up to
 * the length it recorded. Anything else would resume into files with a hole
 * (a short series.csv used to be padded with NUL bytes by truncate()). When
 * no generation qualifies the job starts from zero, which costs time but
 * never gives a wrong result. Readers (the frames and series routes) serve
 * verified records only. */
#define _GNU_SOURCE
#include "store_priv.h"

#include "crc32c.h"
#include "contact_bin.h"
#include "frame_bin.h"
#include "log.h"
#include "series.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Checkpoint file: a 56-byte little-endian header, then the engine state.
 *   0 "NDCK"  4 u8 version (2)  8 i64 step  16 i64 frames  24 f64 next frame time
 *  32 u64 series.csv length  40 u64 state length  48 u32 CRC-32C of the
 *  header (this field as 0) and the state  52 u32 0 */
#define CKPT_MAGIC "NDCK"
#define CKPT_VERSION 2u
#define CKPT_HEADER 56u

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int fsync_dir(const char *file)
{
    char dir[1300];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* temp + fsync, newest -> prev, temp -> newest, fsync dir: a crash between
 * the renames leaves prev (and a stray temp), never a half-written newest. */
int ndem_store_write_checkpoint(const char *path, const char *prev, const ndem_resume *r,
                                const void *state, size_t len)
{
    unsigned char h[CKPT_HEADER] = {0};
    memcpy(h, CKPT_MAGIC, 4);
    h[4] = (unsigned char)CKPT_VERSION;
    uint64_t next;
    memcpy(&next, &r->next_frame, 8);
    put64(h + 8, (uint64_t)r->step);
    put64(h + 16, (uint64_t)r->frames);
    put64(h + 24, next);
    put64(h + 32, r->series_bytes);
    put64(h + 40, (uint64_t)len);
    put32(h + 48, ndem_crc32c(ndem_crc32c(0, h, sizeof h), state, len));
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    int rc =
        ndem_store_write_all(fd, h, sizeof h) || ndem_store_write_all(fd, state, len) || fsync(fd)
            ? -1
            : 0;
    int saved = errno;
    if (close(fd) && !rc) rc = -1, saved = errno;
    if (!rc && rename(path, prev) && errno != ENOENT) rc = -1, saved = errno;
    if (!rc && rename(tmp, path)) rc = -1, saved = errno;
    if (!rc && fsync_dir(path)) rc = -1, saved = errno;
    if (rc) unlink(tmp);
    errno = saved;
    return rc;
}

/* Checks a checkpoint file and splits it: 0 and r, state offset; -1 and why. */
static int parse_checkpoint(const unsigned char *d, size_t n, ndem_resume *r, char *why,
                            size_t why_len)
{
    if (n < CKPT_HEADER || memcmp(d, CKPT_MAGIC, 4)) {
        snprintf(why, why_len, "not a checkpoint file (%zu bytes)", n);
        return -1;
    }
    if (d[4] != CKPT_VERSION) {
        snprintf(why, why_len, "version %u, this daemon writes %u", d[4], CKPT_VERSION);
        return -1;
    }
    if (get64(d + 40) != n - CKPT_HEADER) {
        snprintf(why, why_len, "truncated: %zu of %llu bytes", n,
                 (unsigned long long)(get64(d + 40) + CKPT_HEADER));
        return -1;
    }
    unsigned char h[CKPT_HEADER];
    memcpy(h, d, sizeof h);
    put32(h + 48, 0);
    if (ndem_crc32c(ndem_crc32c(0, h, sizeof h), d + CKPT_HEADER, n - CKPT_HEADER) !=
        get32(d + 48)) {
        snprintf(why, why_len, "damaged (checksum mismatch)");
        return -1;
    }
    r->step = (long)get64(d + 8);
    r->frames = (long)get64(d + 16);
    uint64_t next = get64(d + 24);
    memcpy(&r->next_frame, &next, 8);
    r->series_bytes = get64(d + 32);
    return 0;
}

/* Length of the verified start of series.csv, reading no further than
 * `need` bytes: the header and every complete row whose CRC matches, up to
 * the first that does not. Files of older writers (no CRC column) are
 * trusted up to their last newline. */
static uint64_t series_verified(const char *path, uint64_t need)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, f);
    uint64_t ok = 0;
    int checked = 0;
    if (n > 0 && line[n - 1] == '\n') {
        /* the header has no CRC of its own; its last column says whether rows do */
        checked = ndem_series_has_crc(line, (size_t)n);
        ok = memchr(line, 0, (size_t)n) ? 0 : (uint64_t)n;
    }
    while (ok > 0 && ok < need && (n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] != '\n' || memchr(line, 0, (size_t)n) ||
            (checked && ndem_series_check_row(line, (size_t)n)))
            break;
        ok += (uint64_t)n;
    }
    free(line);
    fclose(f);
    return ok;
}

/* Bytes of frames 0 .. count-1 (and of their contact networks) when every
 * frame verifies, else -1 (and why). */
static int64_t frames_verified(ndem_store *s, const char *id, long count, char *why, size_t why_len)
{
    int64_t bytes = 0;
    for (long i = 0; i < count; i++) {
        void *buf;
        size_t len;
        int rc = ndem_store_read_frame(s, id, i, &buf, &len);
        if (rc) {
            snprintf(why, why_len, "frame %ld is %s", i, rc == -1 ? "missing" : "damaged");
            return -1;
        }
        free(buf);
        bytes += (int64_t)len;
        /* a frame's contact network counts against the budget too (checked
         * when served, not here: a resume does not depend on it) */
        char name[64], path[1200];
        struct stat st;
        snprintf(name, sizeof name, "contacts/%06ld.ndc", i);
        ndem_store_path(s, id, name, path, sizeof path);
        if (stat(path, &st) == 0) bytes += (int64_t)st.st_size;
    }
    return bytes;
}

int ndem_store_load_checkpoint(ndem_store *s, const char *id, ndem_resume *r, void **buf,
                               size_t *len)
{
    static const char *const names[] = {NDEM_CKPT_FILE, NDEM_CKPT_PREV};
    char path[1200], series[1200], why[300];
    ndem_store_path(s, id, "series.csv", series, sizeof series);
    int seen = 0;
    for (int g = 0; g < 2; g++) {
        ndem_store_path(s, id, names[g], path, sizeof path);
        size_t n = 0;
        unsigned char *d = (unsigned char *)ndem_store_read_whole(path, &n);
        if (!d) continue;
        seen++;
        int64_t frame_bytes = -1;
        if (parse_checkpoint(d, n, r, why, sizeof why) == 0) {
            uint64_t ok = series_verified(series, r->series_bytes);
            if (ok < r->series_bytes)
                snprintf(why, sizeof why,
                         "series.csv verifies for %llu of the %llu bytes it counts",
                         (unsigned long long)ok, (unsigned long long)r->series_bytes);
            else frame_bytes = frames_verified(s, id, r->frames, why, sizeof why);
        }
        if (frame_bytes < 0) {
            ndem_log("job %s: checkpoint %s not usable: %s", id, names[g], why);
            free(d);
            continue;
        }
        if (g > 0) {
            /* the newest is damaged: the next checkpoint must not keep it as prev */
            ndem_store_path(s, id, names[0], path, sizeof path);
            unlink(path);
            ndem_log("job %s: falling back to the previous checkpoint (step %ld)", id, r->step);
        }
        ndem_store_set_bytes(s, id, r->series_bytes + (uint64_t)frame_bytes);
        *len = n - CKPT_HEADER;
        memmove(d, d + CKPT_HEADER, *len);
        *buf = d;
        return 0;
    }
    if (seen) ndem_log("job %s: no usable checkpoint; starting from zero", id);
    return 1;
}

/* Removes frames/NNNNNN.ndf files with NNNNNN >= from. */
/* Removes DIR/NNNNNN.EXT (and .EXT.tmp) files with NNNNNN >= from. */
static void remove_numbered(ndem_store *s, const char *id, const char *sub, const char *ext,
                            long from)
{
    char dir[1200], tmp[16];
    snprintf(tmp, sizeof tmp, "%s.tmp", ext);
    ndem_store_path(s, id, sub, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long n = strtol(e->d_name, &end, 10);
        if (end == e->d_name || (strcmp(end, ext) && strcmp(end, tmp)) || n < from) continue;
        char path[1500];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

void ndem_store_remove_frames(ndem_store *s, const char *id, long from)
{
    remove_numbered(s, id, "frames", ".ndf", from);
    remove_numbered(s, id, "contacts", ".ndc", from);
}

int ndem_store_rewind(ndem_store *s, const char *id, const ndem_resume *r)
{
    char path[1200];
    struct stat st;
    ndem_store_path(s, id, "series.csv", path, sizeof path);
    /* never lengthen: truncate() would pad a short file with NUL bytes */
    if (stat(path, &st) || (uint64_t)st.st_size < r->series_bytes ||
        truncate(path, (off_t)r->series_bytes))
        return -1;
    ndem_store_remove_frames(s, id, r->frames);
    return ndem_db_frames_truncate(ndem_store_db(s), id, r->frames);
}

int ndem_store_read_frame(ndem_store *s, const char *id, long index, void **buf, size_t *len)
{
    char path[1200], name[64], why[160];
    snprintf(name, sizeof name, "frames/%06ld.ndf", index);
    ndem_store_path(s, id, name, path, sizeof path);
    *buf = ndem_store_read_whole(path, len);
    if (!*buf) return -1;
    if (ndem_frame_bin_check(*buf, *len, why, sizeof why) == 0) return 0;
    ndem_log("job %s: %s is damaged: %s", id, name, why);
    free(*buf);
    *buf = NULL;
    return -2;
}

int ndem_store_read_contacts(ndem_store *s, const char *id, long index, void **buf, size_t *len)
{
    char path[1200], name[64], why[160];
    snprintf(name, sizeof name, "contacts/%06ld.ndc", index);
    ndem_store_path(s, id, name, path, sizeof path);
    *buf = ndem_store_read_whole(path, len);
    if (!*buf) return -1;
    if (ndem_contact_bin_check(*buf, *len, why, sizeof why) == 0) return 0;
    ndem_log("job %s: %s is damaged: %s", id, name, why);
    free(*buf);
    *buf = NULL;
    return -2;
}

int ndem_store_read_series(ndem_store *s, const char *id, char **text, size_t *len,
                           long *damaged_row)
{
    char path[1200];
    ndem_store_path(s, id, "series.csv", path, sizeof path);
    *damaged_row = -1;
    *text = ndem_store_read_whole(path, len);
    if (!*text) return -1;
    char *t = *text;
    while (*len > 0 && t[*len - 1] != '\n') (*len)--; /* a row being appended */
    t[*len] = 0;
    char *nl = strchr(t, '\n');
    if (!nl) return 0;
    size_t header = (size_t)(nl + 1 - t);
    if (!ndem_series_has_crc(t, header)) return 0; /* an older writer's file: unchecked */
    size_t at = header;
    for (long row = 0; at < *len; row++) {
        char *end = memchr(t + at, '\n', *len - at);
        size_t n = (size_t)(end - (t + at)) + 1;
        if (memchr(t + at, 0, n) || ndem_series_check_row(t + at, n)) {
            ndem_log("job %s: series.csv is damaged at row %ld; served up to it", id, row);
            *damaged_row = row;
            *len = at;
            t[at] = 0;
            break;
        }
        at += n;
    }
    return 0;
}
