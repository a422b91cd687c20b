/* app.h - the parts of one running daemon, created and destroyed by main.c
 * and handed to the HTTP handlers and stream hooks as their context. */
#ifndef NDEM_SERVER_APP_H
#define NDEM_SERVER_APP_H

#include "auth.h"
#include "config.h"
#include "db.h"
#include "health.h"
#include "http.h"
#include "intake.h"
#include "meshes.h"
#include "store.h"
#include "stream.h"
#include "worker.h"

#include <cjson/cJSON.h>

typedef struct ndem_app {
    ndem_config cfg;
    ndem_db *db;
    ndem_store *store;
    ndem_meshes *meshes; /* the index of uploaded meshes */
    ndem_auth *auth;     /* the bearer tokens (checked only with cfg.auth) */
    ndem_stream *stream;
    ndem_pool *pool;
    ndem_http *http;
    ndem_health *health;            /* storage checks of /health */
    ndem_parse_budget parse_budget; /* job documents being parsed */
    double started;                 /* ndem_mono() at start-up */
} ndem_app;

/* `ndemd token ...` and `ndemd routes` (token_cli.c): exit codes. */
int ndem_token_main(int argc, char **argv);
int ndem_routes_main(void);

/* The route table (routes.c) and the static file handler. */
extern const ndem_route ndem_routes[];
void ndem_static_file(void *app, ndem_request *req);
/* /api/v1/meshes (routes_meshes.c). */
void ndem_post_mesh(void *app, ndem_request *req);
void ndem_list_meshes(void *app, ndem_request *req);
void ndem_get_mesh(void *app, ndem_request *req);
void ndem_delete_mesh(void *app, ndem_request *req);

/* The job resource of docs/api.md (resource.c). links.stream names the
 * host of --public-url (never the client's Host header). */
cJSON *ndem_resource(const ndem_app *app, const ndem_job_row *row);
/* Stream hooks (resource.c). may_stream: 0 when token (NULL: none) may
 * open the stream of job id, else the HTTP status of the refusal (401, or
 * 404 for an unknown job or another owner's); always 0 without --auth. */
int ndem_resource_may_stream(void *ctx, const char *id, const char *token);
/* Stream hooks (resource.c). */
char *ndem_resource_describe(void *app, const char *id);
void *ndem_resource_latest_frame(void *app, const char *id, size_t *len);

#endif
