/* routes.h - what the route handlers (routes.c, routes_sweeps.c) share. */
#ifndef NDEM_SERVER_ROUTES_H
#define NDEM_SERVER_ROUTES_H

#include "app.h"
#include "job.h"
#include "jobs.h"

/* Answers with o as JSON (o is deleted). */
void ndem_reply_json(ndem_request *req, int status, cJSON *o);
/* A whole number of s in [min, max]: 0, else -1. */
int ndem_parse_long(const char *s, long min, long max, long *out);
/* ?limit= (1..1000, default 50) and ?cursor= of a list route: 0, or -1
 * after answering 400. */
int ndem_list_page(ndem_request *req, long *limit, long *before);
/* 1 when the Accept header names type. */
int ndem_accepts(ndem_request *req, const char *type);

/* owner ("" none) as the "owner" member of o: a string or null. */
void ndem_add_owner(cJSON *o, const char *owner);

/* Reads the job of the {id} parameter (ndem_jobs_get); answers 404 (or
 * 500) itself and returns nonzero when there is none or it is another
 * owner's. */
int ndem_load_job(ndem_app *app, ndem_request *req, ndem_job_row *row);

/* Frame handlers (routes_frames.c). */
void ndem_list_frames(void *app, ndem_request *req);
void ndem_get_frame(void *app, ndem_request *req);
/* A frame's contact network (routes_contacts.c). */
void ndem_get_frame_contacts(void *app, ndem_request *req);
/* GET /api/v1/jobs/{id}/archive (archive.c). */
void ndem_get_archive(void *app, ndem_request *req);

/* Sweep handlers (routes_sweeps.c). */
void ndem_post_sweep(void *app, ndem_request *req);
void ndem_list_sweeps(void *app, ndem_request *req);
void ndem_get_sweep(void *app, ndem_request *req);
void ndem_sweep_results(void *app, ndem_request *req);
void ndem_cancel_sweep(void *app, ndem_request *req);
void ndem_delete_sweep(void *app, ndem_request *req);

#endif
