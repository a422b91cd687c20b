/* slurm_job.c - DATA/jobs/<id>/slurm.json (slurm_job.h). It holds the job's
 * report secret, so it is written 0600: only ndemd's user reads it, as only
 * that user can read the Slurm job's environment, where the secret travels. */
#include "slurm_job.h"

#include "jobdir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_NAME "slurm.json"

static void copy_text(const cJSON *o, const char *name, char *out, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    snprintf(out, len, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

static double get_number(const cJSON *o, const char *name, double def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : def;
}

int ndem_slurm_job_load(const char *data, const char *id, ndem_slurm_job *sj)
{
    memset(sj, 0, sizeof *sj);
    sj->array_task = -1;
    if (!ndem_jobdir_is_id(id)) return -1;
    char *text = ndem_jobdir_read(data, id, FILE_NAME);
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return 1;
    }
    copy_text(o, "job_id", sj->job_id, sizeof sj->job_id);
    copy_text(o, "array_job_id", sj->array_id, sizeof sj->array_id);
    sj->array_task = (long)get_number(o, "array_task_id", -1);
    copy_text(o, "secret", sj->secret, sizeof sj->secret);
    if (strlen(sj->secret) != NDEM_SECRET_LEN) sj->secret[0] = 0;
    sj->run = (long)get_number(o, "run", 0);
    sj->wall_before = get_number(o, "wall_before", 0);
    copy_text(o, "state", sj->state, sizeof sj->state);
    copy_text(o, "reason", sj->reason, sizeof sj->reason);
    cJSON_Delete(o);
    return sj->job_id[0] || sj->secret[0] ? 0 : 1;
}

cJSON *ndem_slurm_job_json(const ndem_slurm_job *sj)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", "slurm");
    cJSON_AddStringToObject(o, "job_id", sj->job_id);
    if (sj->array_id[0]) {
        cJSON_AddStringToObject(o, "array_job_id", sj->array_id);
        cJSON_AddNumberToObject(o, "array_task_id", (double)sj->array_task);
    } else {
        cJSON_AddNullToObject(o, "array_job_id");
        cJSON_AddNullToObject(o, "array_task_id");
    }
    cJSON_AddStringToObject(o, "state", sj->state);
    cJSON_AddStringToObject(o, "reason", sj->reason);
    return o;
}

int ndem_slurm_job_save(const char *data, const char *id, const ndem_slurm_job *sj)
{
    cJSON *o = ndem_slurm_job_json(sj);
    cJSON_DeleteItemFromObjectCaseSensitive(o, "kind");
    if (sj->secret[0]) cJSON_AddStringToObject(o, "secret", sj->secret);
    cJSON_AddNumberToObject(o, "run", (double)sj->run);
    cJSON_AddNumberToObject(o, "wall_before", sj->wall_before);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    int rc = text ? ndem_jobdir_write(data, id, FILE_NAME, text, 0600) : -1;
    free(text);
    return rc;
}
