/* mesh_files.c - uploaded STL files under DATA/meshes/ and the job
 * parser's resolver for mesh ids. A file is complete or absent: it is
 * written under a temporary name, synced and renamed into place. */
#include "mesh_files.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_SUFFIX ".stl.tmp"

int ndem_mesh_id_valid(const char *id)
{
    if (!id || strlen(id) != NDEM_MESH_ID_LEN) return 0;
    for (const char *p = id; *p; p++)
        if (!isxdigit((unsigned char)*p) || isupper((unsigned char)*p)) return 0;
    return 1;
}

int ndem_mesh_new_id(char *id)
{
    unsigned char r[NDEM_MESH_ID_LEN / 2];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
    for (size_t i = 0; i < sizeof r; i++) snprintf(id + 2 * i, 3, "%02x", r[i]);
    return 0;
}

static void dir_path(const char *data, char *buf, size_t len)
{
    snprintf(buf, len, "%s/meshes", data);
}

void ndem_mesh_file_path(const char *data, const char *id, char *buf, size_t len)
{
    snprintf(buf, len, "%s/meshes/%s.stl", data, id);
}

static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int ndem_mesh_file_write(const char *data, const char *id, const void *bytes, size_t len)
{
    if (!ndem_mesh_id_valid(id)) {
        errno = EINVAL;
        return -1;
    }
    char dir[1100], tmp[1200], path[1200];
    dir_path(data, dir, sizeof dir);
    if (mkdir(dir, 0755) && errno != EEXIST) return -1;
    snprintf(tmp, sizeof tmp, "%s/%s" TMP_SUFFIX, dir, id);
    ndem_mesh_file_path(data, id, path, sizeof path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    const char *p = bytes;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) goto fail;
        p += n;
        left -= (size_t)n;
    }
    if (fsync(fd)) goto fail;
    if (close(fd)) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) || sync_dir(dir)) goto fail;
    return 0;
fail:;
    int e = errno;
    if (fd >= 0) close(fd);
    unlink(tmp);
    errno = e ? e : EIO;
    return -1;
}

int ndem_mesh_file_read(const char *data, const char *id, char **bytes, size_t *len)
{
    *bytes = NULL;
    *len = 0;
    if (!ndem_mesh_id_valid(id)) return 1;
    char path[1200];
    ndem_mesh_file_path(data, id, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 1 : -1;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) || !(buf = malloc((size_t)st.st_size + 1))) goto fail;
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) goto fail;
        if (n == 0) break; /* shorter than it was: what is there */
        got += (size_t)n;
    }
    close(fd);
    buf[got] = 0;
    *bytes = buf;
    *len = got;
    return 0;
fail:;
    int e = errno;
    free(buf);
    close(fd);
    errno = e ? e : ENOMEM;
    return -1;
}

int ndem_mesh_file_remove(const char *data, const char *id)
{
    if (!ndem_mesh_id_valid(id)) return 0;
    char path[1200], dir[1100];
    ndem_mesh_file_path(data, id, path, sizeof path);
    if (unlink(path) && errno != ENOENT) return -1;
    dir_path(data, dir, sizeof dir);
    sync_dir(dir);
    return 0;
}

int ndem_mesh_files_sweep(const char *data)
{
    char dir[1100], path[1400];
    dir_path(data, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int removed = 0;
    size_t tl = strlen(TMP_SUFFIX);
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n <= tl || strcmp(e->d_name + n - tl, TMP_SUFFIX)) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        removed += unlink(path) == 0;
    }
    closedir(d);
    return removed;
}

ndem_job_parse_opts ndem_mesh_resolver_opts(ndem_mesh_resolver *r, const char *data)
{
    memset(r, 0, sizeof *r);
    r->data = data;
    ndem_job_parse_opts o = {.base_dir = NULL, .mesh_bytes = ndem_mesh_resolve, .mesh_ctx = r};
    return o;
}

static void record(ndem_mesh_resolver *r, const char *id)
{
    for (int i = 0; i < r->count; i++)
        if (!strcmp(r->ids[i], id)) return;
    if (r->count == r->capacity) {
        int cap = r->capacity ? 2 * r->capacity : 4;
        void *grown = realloc(r->ids, (size_t)cap * sizeof *r->ids);
        if (!grown) {
            r->failed = 1;
            return;
        }
        r->ids = grown;
        r->capacity = cap;
    }
    memcpy(r->ids[r->count++], id, NDEM_MESH_ID_LEN + 1);
}

int ndem_mesh_resolve(void *ctx, const char *id, char **bytes, size_t *len)
{
    ndem_mesh_resolver *r = ctx;
    *bytes = NULL;
    *len = 0;
    if (r->visible && r->owner && !r->visible(r->visible_ctx, id, r->owner)) return -1;
    if (ndem_mesh_file_read(r->data, id, bytes, len)) return -1;
    record(r, id);
    return 0;
}

void ndem_mesh_resolver_free(ndem_mesh_resolver *r)
{
    free(r->ids);
    r->ids = NULL;
    r->count = r->capacity = 0;
}
