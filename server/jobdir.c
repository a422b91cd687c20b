/* jobdir.c - the part of a job's record that lives beside its output, so a
 * lost or damaged database never loses a job (ndemd --recover rebuilds the
 * index from it):
 *
 *   job.json     the normalized document, written once when it is accepted
 *   status.json  status, times, attempts, error, the last recorded
 *                progress, owner and sweep membership (id, index, values),
 *                rewritten at every transition
 *   sweep.json   the sweep the job belongs to (id, mode, parameters,
 *                created_us, owner), written once when the sweep is queued,
 *                so --recover can restore the sweep's row with its jobs
 *   warnings.json  what the parser changed but did not refuse (meshes'
 *                dropped triangles), written once when accepted; absent: none
 *   .deleted     the tombstone a DELETE writes before it removes anything
 *
 * Each file is written atomically (temporary file, fsync, rename, fsync of
 * the directory), so a crash leaves the old version or the new one. The
 * start-up sweep removes a directory only when it carries a tombstone:
 * a directory the database does not know is a job to recover, not waste. */
#include "jobdir.h"

#include "job.h"
#include "log.h"
#include "mesh_files.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOMBSTONE ".deleted"

static void path_of(const char *data, const char *id, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/jobs/%s%s%s", data, id, name[0] ? "/" : "", name);
}

int ndem_jobdir_is_id(const char *name)
{
    if (strlen(name) != NDEM_ID_LEN) return 0;
    for (const char *p = name; *p; p++)
        if (!isxdigit((unsigned char)*p) || isupper((unsigned char)*p)) return 0;
    return 1;
}

static int fsync_dir_of(const char *path)
{
    char dir[1300];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static int write_atomic(const char *path, const char *text, mode_t mode)
{
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    unlink(tmp); /* open's mode applies only to a new file */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) return -1;
    size_t len = strlen(text), done = 0;
    int rc = 0;
    while (done < len && rc == 0) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) rc = -1;
        else done += (size_t)n;
    }
    if (rc == 0) rc = fsync(fd);
    if (close(fd)) rc = -1;
    if (rc == 0) rc = rename(tmp, path);
    if (rc) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return fsync_dir_of(path);
}

/* Writes o (taken: deleted here) as the job's file name, atomically: 0, or
 * -1 with errno (ENOMEM when it cannot be printed). */
static int write_json(const char *data, const char *id, const char *name, cJSON *o)
{
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    if (!text) {
        errno = ENOMEM;
        return -1;
    }
    char path[1200];
    path_of(data, id, name, path, sizeof path);
    int rc = write_atomic(path, text, 0644);
    free(text);
    return rc;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

int ndem_jobdir_save_status(const char *data, const ndem_job_row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", r->id);
    cJSON_AddStringToObject(o, "name", r->name);
    cJSON_AddStringToObject(o, "status", r->status);
    cJSON_AddNumberToObject(o, "created_us", (double)r->created_us);
    cJSON_AddNumberToObject(o, "started_us", (double)r->started_us);
    cJSON_AddNumberToObject(o, "finished_us", (double)r->finished_us);
    cJSON_AddNumberToObject(o, "attempts", (double)r->attempts);
    cJSON_AddNumberToObject(o, "interrupted", (double)r->interrupted);
    if (r->error) cJSON_AddStringToObject(o, "error", r->error);
    else cJSON_AddNullToObject(o, "error");
    cJSON_AddNumberToObject(o, "step", (double)r->step);
    cJSON_AddNumberToObject(o, "steps_total", (double)r->steps_total);
    cJSON_AddNumberToObject(o, "time", r->time);
    cJSON_AddNumberToObject(o, "duration", r->duration);
    cJSON_AddNumberToObject(o, "particles", (double)r->particles);
    cJSON_AddNumberToObject(o, "contacts", (double)r->contacts);
    cJSON_AddNumberToObject(o, "kinetic_energy", r->kinetic_energy);
    cJSON_AddNumberToObject(o, "wall_seconds", r->wall_seconds);
    if (r->owner[0]) cJSON_AddStringToObject(o, "owner", r->owner); /* --recover keeps it */
    if (r->sweep[0]) { /* and its sweep membership (the sweep's own record: sweep.json) */
        cJSON *sw = cJSON_AddObjectToObject(o, "sweep");
        cJSON_AddStringToObject(sw, "id", r->sweep);
        cJSON_AddNumberToObject(sw, "index", r->sweep_index);
        cJSON *values = cJSON_Parse(r->sweep_values ? r->sweep_values : "[]");
        cJSON_AddItemToObject(sw, "values", values ? values : cJSON_CreateArray());
    }
    return write_json(data, r->id, "status.json", o);
}

int ndem_jobdir_create(const char *data, const ndem_job_row *row)
{
    char path[1200];
    path_of(data, row->id, "", path, sizeof path);
    if (mkdir(path, 0755) && errno != EEXIST) return -1;
    path_of(data, row->id, "job.json", path, sizeof path);
    if (write_atomic(path, row->document, 0644)) return -1;
    /* written once, like job.json: the normalized document has the mesh as
     * built, so parsing it again would not find what the build dropped */
    if (row->warnings && strcmp(row->warnings, "[]")) {
        path_of(data, row->id, "warnings.json", path, sizeof path);
        if (write_atomic(path, row->warnings, 0644)) return -1;
    }
    return ndem_jobdir_save_status(data, row);
}

int ndem_jobdir_save_sweep(const char *data, const char *id, const ndem_sweep_row *sw)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", sw->id);
    cJSON_AddStringToObject(o, "mode", sw->mode);
    cJSON *params = cJSON_Parse(sw->parameters ? sw->parameters : "[]");
    cJSON_AddItemToObject(o, "parameters", params ? params : cJSON_CreateArray());
    cJSON_AddNumberToObject(o, "created_us", (double)sw->created_us);
    if (sw->owner[0]) cJSON_AddStringToObject(o, "owner", sw->owner);
    return write_json(data, id, "sweep.json", o);
}

int ndem_jobdir_load_sweep(const char *data, const char *id, ndem_sweep_row *sw)
{
    memset(sw, 0, sizeof *sw);
    char path[1200];
    size_t len;
    path_of(data, id, "sweep.json", path, sizeof path);
    char *text = ndem_read_file(path, &len);
    cJSON *o = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(o, "id");
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(o, "mode");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(o, "parameters");
    const cJSON *owner = cJSON_GetObjectItemCaseSensitive(o, "owner");
    int ok = cJSON_IsString(sid) && ndem_jobdir_is_id(sid->valuestring) && cJSON_IsString(mode) &&
             (!strcmp(mode->valuestring, "product") || !strcmp(mode->valuestring, "zip")) &&
             cJSON_IsArray(params);
    if (ok) {
        snprintf(sw->id, sizeof sw->id, "%s", sid->valuestring);
        snprintf(sw->mode, sizeof sw->mode, "%s", mode->valuestring);
        sw->parameters = cJSON_PrintUnformatted(params);
        sw->created_us = (int64_t)num(o, "created_us");
        if (cJSON_IsString(owner)) snprintf(sw->owner, sizeof sw->owner, "%s", owner->valuestring);
        ok = sw->parameters != NULL;
    }
    cJSON_Delete(o);
    return ok ? 0 : -1;
}

cJSON *ndem_jobdir_warnings(const char *data, const char *id)
{
    char path[1200];
    size_t len;
    path_of(data, id, "warnings.json", path, sizeof path);
    char *text = ndem_read_file(path, &len);
    cJSON *o = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    if (o && !cJSON_IsArray(o)) {
        cJSON_Delete(o);
        o = NULL;
    }
    return o ? o : cJSON_CreateArray();
}

int ndem_jobdir_write(const char *data, const char *id, const char *name, const char *text,
                      mode_t mode)
{
    char path[1200];
    path_of(data, id, name, path, sizeof path);
    return write_atomic(path, text, mode);
}

char *ndem_jobdir_read(const char *data, const char *id, const char *name)
{
    char path[1200];
    path_of(data, id, name, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t len = 0;
    for (size_t cap = 0;;) {
        if (cap - len < 2) {
            char *grown = realloc(buf, cap + 4096);
            if (!grown) break;
            buf = grown;
            cap += 4096;
        }
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (n) continue;
        buf[len] = 0;
        int bad = ferror(f);
        fclose(f);
        if (!bad) return buf;
        free(buf);
        return NULL;
    }
    fclose(f);
    free(buf);
    return NULL;
}

void ndem_jobdir_sync(const char *data, ndem_db *db, const char *id)
{
    ndem_job_row row;
    if (ndem_db_get(db, id, &row)) {
        ndem_log("job %s: cannot read its row to write status.json", id);
        return;
    }
    if (ndem_jobdir_save_status(data, &row))
        ndem_log("job %s: cannot write status.json: %s", id, strerror(errno));
    ndem_job_row_free(&row);
}

/* The directory's entry is what counts (the file is empty): one fsync of
 * the directory makes it durable before the rows go. */
int ndem_jobdir_tombstone(const char *data, const char *id, int set)
{
    char path[1200];
    path_of(data, id, TOMBSTONE, path, sizeof path);
    if (!set) return unlink(path) && errno != ENOENT ? -1 : 0;
    char dir[1200];
    path_of(data, id, "", dir, sizeof dir);
    if (mkdir(dir, 0755) && errno != EEXIST) return -1; /* a job whose files were lost */
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || close(fd)) return -1;
    return fsync_dir_of(path);
}

int ndem_jobdir_tombstoned(const char *data, const char *id)
{
    char path[1200];
    path_of(data, id, TOMBSTONE, path, sizeof path);
    return access(path, F_OK) == 0;
}

long ndem_jobdir_count(const char *data)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/jobs", data);
    DIR *d = opendir(dir);
    if (!d) return 0;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[1200];
        if (!ndem_jobdir_is_id(e->d_name) || ndem_jobdir_tombstoned(data, e->d_name)) continue;
        path_of(data, e->d_name, "job.json", path, sizeof path);
        n += access(path, F_OK) == 0;
    }
    closedir(d);
    return n;
}

int ndem_jobdir_load(const char *data, const char *id, ndem_job_row *row, char *err, size_t err_len)
{
    memset(row, 0, sizeof *row);
    row->sweep_index = -1;
    char path[1200];
    size_t len;
    path_of(data, id, "job.json", path, sizeof path);
    char *doc = ndem_read_file(path, &len);
    if (!doc) {
        snprintf(err, err_len, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    ndem_job *job = NULL;
    ndem_mesh_resolver meshes; /* uploaded meshes the document names */
    ndem_job_parse_opts opts = ndem_mesh_resolver_opts(&meshes, data);
    ndem_job_status parsed = ndem_job_parse_with(doc, len, &opts, &job, NULL);
    ndem_mesh_resolver_free(&meshes);
    if (parsed != NDEM_JOB_OK) {
        snprintf(err, err_len, "%s is not a valid job document", path);
        free(doc);
        return -1;
    }
    snprintf(row->id, sizeof row->id, "%s", id);
    snprintf(row->name, sizeof row->name, "%s", job->name);
    row->duration = job->scene.solver.duration;
    row->steps_total = (long)ceil(job->scene.solver.duration / job->scene.solver.time_step - 1e-9);
    ndem_job_destroy(job);
    row->document = doc;
    snprintf(row->status, sizeof row->status, "queued");
    path_of(data, id, "status.json", path, sizeof path);
    char *text = ndem_read_file(path, &len);
    cJSON *o = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    if (!o) {
        /* accepted, never recorded further: a queued job from its document */
        struct stat st;
        path_of(data, id, "job.json", path, sizeof path);
        row->created_us = stat(path, &st) == 0 ? (int64_t)st.st_mtime * 1000000 : ndem_now_us();
        return 0;
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "status");
    if (cJSON_IsString(s)) snprintf(row->status, sizeof row->status, "%s", s->valuestring);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
    if (cJSON_IsString(e)) row->error = strdup(e->valuestring);
    const cJSON *owner = cJSON_GetObjectItemCaseSensitive(o, "owner");
    if (cJSON_IsString(owner)) snprintf(row->owner, sizeof row->owner, "%s", owner->valuestring);
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(o, "sweep");
    const cJSON *sw_id = cJSON_GetObjectItemCaseSensitive(sw, "id");
    const cJSON *sw_values = cJSON_GetObjectItemCaseSensitive(sw, "values");
    if (cJSON_IsString(sw_id) && ndem_jobdir_is_id(sw_id->valuestring) &&
        cJSON_IsArray(sw_values)) {
        snprintf(row->sweep, sizeof row->sweep, "%s", sw_id->valuestring);
        row->sweep_index = (int)num(sw, "index");
        row->sweep_values = cJSON_PrintUnformatted(sw_values);
    }
    row->created_us = (int64_t)num(o, "created_us");
    row->started_us = (int64_t)num(o, "started_us");
    row->finished_us = (int64_t)num(o, "finished_us");
    row->attempts = (long)num(o, "attempts");
    row->interrupted = (long)num(o, "interrupted");
    row->step = (long)num(o, "step");
    if (num(o, "steps_total") > 0) row->steps_total = (long)num(o, "steps_total");
    row->time = num(o, "time");
    row->particles = (long)num(o, "particles");
    row->contacts = (long)num(o, "contacts");
    row->kinetic_energy = num(o, "kinetic_energy");
    row->wall_seconds = num(o, "wall_seconds");
    cJSON_Delete(o);
    return 0;
}
