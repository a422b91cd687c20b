/* publish.c - the stream messages of a running job (publish.h). */
#include "publish.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

/* "geometry": {"NAME": {"force": [..], "torque": [..], "position": [..]}}
 * (and "stress", "size", "motor_stress" for a stress-controlled box) for the named geometry: the
 * last step's values (docs/protocol.md). */
static void add_geometry(cJSON *o, const ndem_series_cols *cols)
{
    cJSON *geo = cJSON_AddObjectToObject(o, "geometry");
    for (int i = 0; geo && i < cols->count; i++) {
        const ndem_series_geo *g = &cols->geo[i];
        cJSON *e = cJSON_AddObjectToObject(geo, g->name);
        if (!e) continue;
        cJSON_AddItemToObject(e, "force", cJSON_CreateDoubleArray(g->force, 3));
        cJSON_AddItemToObject(e, "torque", cJSON_CreateDoubleArray(g->torque, 3));
        if (g->moving)
            cJSON_AddItemToObject(e, "position", cJSON_CreateDoubleArray(g->position, 3));
        if (g->walls) { /* a stress-controlled box */
            cJSON_AddItemToObject(e, "stress", cJSON_CreateDoubleArray(g->stress, 3));
            cJSON_AddItemToObject(e, "size", cJSON_CreateDoubleArray(g->size, 3));
            cJSON_AddItemToObject(e, "motor_stress", cJSON_CreateDoubleArray(g->motor, 3));
        }
    }
}

void ndem_publish_progress(ndem_stream *s, const char *id, double duration, const ndem_progress *p,
                           const ndem_series_cols *geo)
{
    cJSON *o = cJSON_CreateObject(), *pr = cJSON_CreateObject(), *st = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "progress");
    cJSON_AddStringToObject(o, "job", id);
    cJSON_AddNumberToObject(pr, "step", (double)p->step);
    cJSON_AddNumberToObject(pr, "steps_total", (double)p->steps_total);
    cJSON_AddNumberToObject(pr, "time", p->time);
    cJSON_AddNumberToObject(pr, "duration", duration);
    cJSON_AddNumberToObject(pr, "fraction",
                            p->steps_total > 0 ? (double)p->step / (double)p->steps_total : 1.0);
    cJSON_AddItemToObject(o, "progress", pr);
    cJSON_AddNumberToObject(st, "particles", (double)p->particles);
    cJSON_AddNumberToObject(st, "contacts", (double)p->contacts);
    cJSON_AddNumberToObject(st, "kinetic_energy", p->kinetic_energy);
    cJSON_AddNumberToObject(st, "wall_seconds", p->wall_seconds);
    cJSON_AddItemToObject(o, "stats", st);
    if (geo && geo->count > 0) add_geometry(o, geo);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (text) ndem_stream_progress(s, id, text);
    free(text);
}

void ndem_publish_status(ndem_stream *s, const char *id, const char *status, const char *error)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "status");
    cJSON_AddStringToObject(o, "job", id);
    cJSON_AddStringToObject(o, "status", status);
    if (error) cJSON_AddStringToObject(o, "error", error);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (text) ndem_stream_status(s, id, text);
    free(text);
}
