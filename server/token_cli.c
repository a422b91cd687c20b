/* token_cli.c - `ndemd token create NAME [--admin]`, `ndemd token list`,
 * `ndemd token revoke NAME` (docs/cli.md) on the database of the data
 * directory (--data DIR, else NDEM_DATA, else ./var), with or without a
 * daemon running on it (SQLite takes the writes one at a time); and
 * `ndemd routes`, the routing table with each route's access. */
#include "app.h"
#include "auth.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] = "usage: ndemd token create NAME [--admin] [--data DIR]\n"
                            "       ndemd token list [--data DIR]\n"
                            "       ndemd token revoke NAME [--data DIR]\n";

/* Opens (creating and migrating) DATA/ndem.db and its token store. */
static ndem_auth *open_store(const char *data)
{
    char path[1100], err[1024];
    if (mkdir(data, 0755) && errno != EEXIST) {
        fprintf(stderr, "ndemd token: cannot create %s: %s\n", data, strerror(errno));
        return NULL;
    }
    snprintf(path, sizeof path, "%s/ndem.db", data);
    int damaged = 0;
    ndem_db *db = ndem_db_open(path, &damaged, err, sizeof err);
    if (!db) {
        fprintf(stderr, "ndemd token: %s\n", err);
        return NULL;
    }
    ndem_db_close(db);
    ndem_auth *a = ndem_auth_open(path, err, sizeof err);
    if (!a) fprintf(stderr, "ndemd token: %s\n", err);
    return a;
}

static int create(ndem_auth *a, const char *name, int admin)
{
    char token[NDEM_TOKEN_LEN + 1];
    int rc = ndem_auth_create(a, name, admin, token);
    if (rc == 1) {
        fprintf(stderr,
                "ndemd token: a token named '%s' exists already (names are never reused, "
                "revoked ones included)\n",
                name);
        return 3;
    }
    if (rc) {
        fprintf(stderr, "ndemd token: cannot create the token (see above)\n");
        return 1;
    }
    printf("%s\n", token);
    fprintf(stderr,
            "ndemd token: created %s%s; it is shown this once (only its hash is kept): send it "
            "as Authorization: Bearer TOKEN\n",
            name, admin ? " (admin)" : "");
    return 0;
}

static int list(ndem_auth *a)
{
    ndem_token_info *rows;
    int n;
    if (ndem_auth_list(a, &rows, &n)) {
        fprintf(stderr, "ndemd token: cannot read the tokens\n");
        return 1;
    }
    printf("%-24s %-6s %-26s %s\n", "NAME", "ADMIN", "CREATED", "REVOKED");
    for (int i = 0; i < n; i++) {
        char created[40], revoked[40] = "-";
        ndem_rfc3339(rows[i].created_us, created, sizeof created);
        if (rows[i].revoked_us) ndem_rfc3339(rows[i].revoked_us, revoked, sizeof revoked);
        printf("%-24s %-6s %-26s %s\n", rows[i].name, rows[i].admin ? "yes" : "no", created,
               revoked);
    }
    free(rows);
    return 0;
}

static int revoke(ndem_auth *a, const char *name)
{
    int rc = ndem_auth_revoke(a, name);
    if (rc == 1) fprintf(stderr, "ndemd token: no token named '%s'\n", name);
    else if (rc == 2) fprintf(stderr, "ndemd token: %s was revoked already\n", name);
    else if (rc) fprintf(stderr, "ndemd token: cannot revoke %s\n", name);
    else fprintf(stderr, "ndemd token: revoked %s; it is refused from now on\n", name);
    return rc == 0 ? 0 : rc == 1 ? 4 : rc == 2 ? 5 : 1;
}

int ndem_token_main(int argc, char **argv)
{
    const char *verb = argc > 1 ? argv[1] : "", *name = NULL;
    const char *data = getenv("NDEM_DATA");
    int admin = 0;
    if (!data || !data[0]) data = "./var";
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--admin")) admin = 1;
        else if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
        else if (!strncmp(argv[i], "--data=", 7)) data = argv[i] + 7;
        else if (argv[i][0] != '-' && !name) name = argv[i];
        else {
            fprintf(stderr, "ndemd token: unexpected '%s'\n%s", argv[i], usage);
            return 2;
        }
    }
    int needs_name = !strcmp(verb, "create") || !strcmp(verb, "revoke");
    if ((!needs_name && strcmp(verb, "list")) || (needs_name != (name != NULL)) ||
        (admin && strcmp(verb, "create"))) {
        fprintf(stderr, "%s", usage);
        return 2;
    }
    if (name && !ndem_token_name_valid(name)) {
        fprintf(stderr, "ndemd token: a name is 1 to %d of A-Z a-z 0-9 . _ -, not '%s'\n",
                NDEM_OWNER_MAX, name);
        return 2;
    }
    ndem_auth *a = open_store(data);
    if (!a) return 1;
    int rc = !strcmp(verb, "create") ? create(a, name, admin)
             : !strcmp(verb, "list") ? list(a)
                                     : revoke(a, name);
    ndem_auth_close(a);
    return rc;
}

int ndem_routes_main(void)
{
    static const char *const access[] = {"token", "admin", "public", "internal"};
    for (const ndem_route *r = ndem_routes; r->method; r++)
        printf("%s %s %s\n", r->method, r->pattern, access[r->access]);
    return 0;
}
