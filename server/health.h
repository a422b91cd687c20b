/* health.h - the storage side of GET /health (health.c): is the data
 * directory writable, is there free space, does the database commit. */
#ifndef NDEM_SERVER_HEALTH_H
#define NDEM_SERVER_HEALTH_H

#include "db.h"
#include "store.h"

#include <cjson/cJSON.h>

typedef struct ndem_health ndem_health;

ndem_health *ndem_health_create(const char *data_dir, long min_free);
void ndem_health_destroy(ndem_health *h);
/* Adds "storage" to o and one message per problem to problems; returns the
 * number of problems added. The probes that write (a temporary file in the
 * data directory, a database commit) run at most every few seconds; their
 * last result is reused in between. */
int ndem_health_storage(ndem_health *h, ndem_db *db, ndem_store *store, cJSON *o, cJSON *problems);

#endif
