/* auth.h - bearer tokens (auth.c, docs/api.md "Authentication"): made by
 * `ndemd token create`, kept as SHA-256 hashes in the `tokens` table,
 * checked on every request that needs one. A token's name is the owner of
 * what it creates. */
#ifndef NDEM_SERVER_AUTH_H
#define NDEM_SERVER_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define NDEM_OWNER_MAX 64 /* bytes of a token name, without the NUL */
#define NDEM_TOKEN_LEN 48 /* "ndem_" and 43 base64url characters (256 bits) */

typedef struct ndem_auth ndem_auth;

typedef struct ndem_token_info {
    char name[NDEM_OWNER_MAX + 1];
    int admin;
    int64_t created_us, revoked_us; /* revoked_us 0: in use */
} ndem_token_info;

/* 1 when name is 1 to NDEM_OWNER_MAX of [A-Za-z0-9._-] (it goes into
 * resources, logs and shell commands as it is). */
int ndem_token_name_valid(const char *name);

/* The token store on a connection of its own to the database at db_path
 * (migrated by ndem_db_open already). NULL with a message in err. */
ndem_auth *ndem_auth_open(const char *db_path, char *err, size_t err_len);
void ndem_auth_close(ndem_auth *a);

/* A new token for name: 0 with the token text in token (NDEM_TOKEN_LEN + 1
 * bytes), 1 when the name is taken (also by a revoked token), -1 on an
 * error (no randomness, the database). Only the hash is stored. */
int ndem_auth_create(ndem_auth *a, const char *name, int admin, char *token);
/* 0 revoked, 1 unknown name, 2 revoked already, -1 error. */
int ndem_auth_revoke(ndem_auth *a, const char *name);
/* Every token, oldest first (*rows malloc'd). 0 or -1. */
int ndem_auth_list(ndem_auth *a, ndem_token_info **rows, int *count);
/* 0 when token is one in use (its name into name, NDEM_OWNER_MAX + 1
 * bytes, and *admin), 1 when not, -1 on a database error. Reads the table
 * every time: a revoked token fails at once. The comparison takes the same
 * time wherever the hashes differ. */
int ndem_auth_check(ndem_auth *a, const char *token, char *name, int *admin);

#endif
