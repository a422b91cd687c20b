/* health.c - the storage checks of /health. A daemon whose disk is full or
 * read-only, or whose database cannot commit, still answers HTTP; /health
 * is what tells an operator (or a load balancer) that it cannot do its job.
 * Writing probes cost an fsync each, so they are rate-limited and cached
 * (a /health poll every second must not become a disk workload). */
#define _GNU_SOURCE
#include "health.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define PROBE_EVERY 2.0 /* seconds between writing probes */

struct ndem_health {
    char dir[1100]; /* DATA/jobs */
    long min_free;
    pthread_mutex_t lock;
    double probed_at; /* ndem_mono() of the last probes; 0 = never */
    char dir_error[300];
    char db_error[300];
};

ndem_health *ndem_health_create(const char *data_dir, long min_free)
{
    ndem_health *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    snprintf(h->dir, sizeof h->dir, "%s/jobs", data_dir); /* where job output goes */
    h->min_free = min_free;
    pthread_mutex_init(&h->lock, NULL);
    return h;
}

void ndem_health_destroy(ndem_health *h)
{
    if (!h) return;
    pthread_mutex_destroy(&h->lock);
    free(h);
}

/* Writes, fsyncs and removes a small file: what a job's files need. */
static void probe_dir(const char *dir, char *why, size_t why_len)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/.health-probe", dir);
    static const char block[4096];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = fd < 0 ? -1 : 0;
    if (!rc && write(fd, block, sizeof block) != (ssize_t)sizeof block) rc = -1;
    if (!rc && fsync(fd)) rc = -1;
    int saved = errno;
    if (fd >= 0 && close(fd) && !rc) rc = -1, saved = errno;
    if (fd >= 0) unlink(path);
    why[0] = 0;
    if (rc)
        snprintf(why, why_len, "the data directory is not writable: %s",
                 strerror(saved ? saved : ENOSPC));
}

int ndem_health_storage(ndem_health *h, ndem_db *db, ndem_store *store, cJSON *o, cJSON *problems)
{
    int n = 0;
    pthread_mutex_lock(&h->lock);
    double now = ndem_mono();
    if (h->probed_at == 0 || now - h->probed_at >= PROBE_EVERY) {
        probe_dir(h->dir, h->dir_error, sizeof h->dir_error);
        h->db_error[0] = 0;
        if (ndem_db_probe_write(db))
            snprintf(h->db_error, sizeof h->db_error, "the job database cannot commit a write");
        h->probed_at = now;
    }
    cJSON *st = cJSON_AddObjectToObject(o, "storage");
    cJSON_AddBoolToObject(st, "data_writable", !h->dir_error[0]);
    cJSON_AddBoolToObject(st, "database_writable", !h->db_error[0]);
    if (h->dir_error[0]) cJSON_AddItemToArray(problems, cJSON_CreateString(h->dir_error)), n++;
    if (h->db_error[0]) cJSON_AddItemToArray(problems, cJSON_CreateString(h->db_error)), n++;
    pthread_mutex_unlock(&h->lock);

    struct statvfs vfs;
    if (statvfs(h->dir, &vfs) == 0) {
        double free_bytes = (double)vfs.f_bavail * (double)vfs.f_frsize;
        cJSON_AddNumberToObject(st, "free_bytes", free_bytes);
        cJSON_AddNumberToObject(st, "min_free_bytes", (double)h->min_free);
        if (free_bytes < (double)h->min_free) {
            char msg[300];
            snprintf(msg, sizeof msg,
                     "%.0f bytes free in the data directory, below --min-free (%ld)", free_bytes,
                     h->min_free);
            cJSON_AddItemToArray(problems, cJSON_CreateString(msg)), n++;
        }
    } else {
        char msg[300];
        snprintf(msg, sizeof msg, "cannot read the free space of the data directory: %s",
                 strerror(errno));
        cJSON_AddItemToArray(problems, cJSON_CreateString(msg)), n++;
    }
    char why[400];
    int failing = ndem_store_write_failed(store, why, sizeof why);
    cJSON_AddBoolToObject(st, "last_write_ok", !failing);
    if (failing) {
        char msg[480];
        snprintf(msg, sizeof msg, "the last write of job output failed: %s", why);
        cJSON_AddItemToArray(problems, cJSON_CreateString(msg)), n++;
    }
    return n;
}
