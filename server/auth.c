/* auth.c - the token store. A token is 256 bits from getrandom(), shown
 * once as "ndem_" and base64url; the table keeps its SHA-256 only (a
 * random 256-bit secret needs no salt or slow hash: nothing can be guessed
 * from its hash). A check hashes the presented token and compares it with
 * every token in use, each with CRYPTO_memcmp and without stopping at the
 * first match, so the time taken says nothing about which bytes matched.
 * Nothing is cached: `ndemd token revoke` (another process, same file)
 * takes effect on the next request. */
#include "auth.h"

#include "log.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define HASH_LEN 32

enum { Q_INSERT, Q_ACTIVE, Q_REVOKE, Q_STATE, Q_LIST, Q_N };

static const char *const sql_text[Q_N] = {
    [Q_INSERT] = "INSERT INTO tokens (name, hash, admin, created_us) VALUES (?1, ?2, ?3, ?4)"
                 " ON CONFLICT (name) DO NOTHING",
    [Q_ACTIVE] = "SELECT name, admin, hash FROM tokens WHERE revoked_us IS NULL",
    [Q_REVOKE] = "UPDATE tokens SET revoked_us = ?2 WHERE name = ?1 AND revoked_us IS NULL",
    [Q_STATE] = "SELECT revoked_us IS NOT NULL FROM tokens WHERE name = ?1",
    [Q_LIST] = "SELECT name, admin, created_us, coalesce(revoked_us, 0) FROM tokens"
               " ORDER BY rowid",
};

struct ndem_auth {
    sqlite3 *conn;
    pthread_mutex_t lock;
    sqlite3_stmt *q[Q_N];
};

int ndem_token_name_valid(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > NDEM_OWNER_MAX) return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            return 0;
    return 1;
}

ndem_auth *ndem_auth_open(const char *db_path, char *err, size_t err_len)
{
    ndem_auth *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&a->lock, NULL);
    if (sqlite3_open_v2(db_path, &a->conn, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        snprintf(err, err_len, "cannot open %s: %s", db_path,
                 a->conn ? sqlite3_errmsg(a->conn) : "out of memory");
        ndem_auth_close(a);
        return NULL;
    }
    sqlite3_busy_timeout(a->conn, 5000);
    for (int i = 0; i < Q_N; i++)
        if (sqlite3_prepare_v3(a->conn, sql_text[i], -1, SQLITE_PREPARE_PERSISTENT, &a->q[i],
                               NULL) != SQLITE_OK) {
            snprintf(err, err_len, "cannot prepare '%s': %s", sql_text[i], sqlite3_errmsg(a->conn));
            ndem_auth_close(a);
            return NULL;
        }
    return a;
}

void ndem_auth_close(ndem_auth *a)
{
    if (!a) return;
    for (int i = 0; i < Q_N; i++) sqlite3_finalize(a->q[i]);
    sqlite3_close(a->conn);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

static sqlite3_stmt *use(ndem_auth *a, int q)
{
    pthread_mutex_lock(&a->lock);
    return a->q[q];
}

static void done(ndem_auth *a, sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    pthread_mutex_unlock(&a->lock);
}

static int sha256(const char *text, unsigned char out[HASH_LEN])
{
    unsigned int n = 0;
    return EVP_Digest(text, strlen(text), out, &n, EVP_sha256(), NULL) == 1 && n == HASH_LEN ? 0
                                                                                             : -1;
}

/* "ndem_" and the 32 bytes in base64url without padding (43 characters). */
static void encode(const unsigned char raw[32], char *out)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char *o = out + 5;
    memcpy(out, "ndem_", 5);
    unsigned bits = 0;
    int have = 0;
    for (int i = 0; i < 32; i++) {
        bits = (bits << 8) | raw[i];
        have += 8;
        while (have >= 6) *o++ = b64[(bits >> (have -= 6)) & 63];
    }
    if (have) *o++ = b64[(bits << (6 - have)) & 63];
    *o = 0;
}

int ndem_auth_create(ndem_auth *a, const char *name, int admin, char *token)
{
    unsigned char raw[32], hash[HASH_LEN];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    encode(raw, token);
    if (sha256(token, hash)) return -1;
    sqlite3_stmt *st = use(a, Q_INSERT);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, hash, HASH_LEN, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, admin ? 1 : 0);
    sqlite3_bind_int64(st, 4, ndem_now_us());
    int rc = sqlite3_step(st) == SQLITE_DONE ? sqlite3_changes(a->conn) ? 0 : 1 : -1;
    if (rc < 0) ndem_log("auth: creating a token: %s", sqlite3_errmsg(a->conn));
    done(a, st);
    if (rc) memset(token, 0, NDEM_TOKEN_LEN + 1);
    return rc;
}

int ndem_auth_revoke(ndem_auth *a, const char *name)
{
    sqlite3_stmt *st = use(a, Q_REVOKE);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, ndem_now_us());
    int rc = sqlite3_step(st) == SQLITE_DONE ? sqlite3_changes(a->conn) ? 0 : 1 : -1;
    done(a, st);
    if (rc != 1) return rc;
    st = use(a, Q_STATE); /* unknown, or revoked before? */
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    rc = s == SQLITE_ROW ? 2 : s == SQLITE_DONE ? 1 : -1;
    done(a, st);
    return rc;
}

int ndem_auth_list(ndem_auth *a, ndem_token_info **rows, int *count)
{
    int cap = 16, n = 0, rc = 0;
    ndem_token_info *r = malloc((size_t)cap * sizeof *r);
    *rows = NULL;
    *count = 0;
    if (!r) return -1;
    sqlite3_stmt *st = use(a, Q_LIST);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            ndem_token_info *grown = realloc(r, (size_t)(cap *= 2) * sizeof *r);
            if (!grown) {
                rc = -1;
                break;
            }
            r = grown;
        }
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(r[n].name, sizeof r[n].name, "%s", t ? (const char *)t : "");
        r[n].admin = sqlite3_column_int(st, 1);
        r[n].created_us = sqlite3_column_int64(st, 2);
        r[n].revoked_us = sqlite3_column_int64(st, 3);
        n++;
    }
    if (s != SQLITE_DONE && s != SQLITE_ROW) rc = -1;
    done(a, st);
    if (rc) {
        free(r);
        return -1;
    }
    *rows = r;
    *count = n;
    return 0;
}

int ndem_auth_check(ndem_auth *a, const char *token, char *name, int *admin)
{
    unsigned char hash[HASH_LEN];
    name[0] = 0;
    *admin = 0;
    /* the length is not secret (every token has the same); anything else is no token */
    if (strlen(token) != NDEM_TOKEN_LEN || sha256(token, hash)) return 1;
    int found = 0;
    sqlite3_stmt *st = use(a, Q_ACTIVE);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const void *h = sqlite3_column_blob(st, 2);
        int same =
            sqlite3_column_bytes(st, 2) == HASH_LEN && h && CRYPTO_memcmp(h, hash, HASH_LEN) == 0;
        if (same && !found) { /* names are unique, hashes too: at most one */
            const unsigned char *t = sqlite3_column_text(st, 0);
            snprintf(name, NDEM_OWNER_MAX + 1, "%s", t ? (const char *)t : "");
            *admin = sqlite3_column_int(st, 1);
            found = 1;
        }
    }
    int rc = s == SQLITE_DONE ? !found : -1;
    if (rc < 0) ndem_log("auth: reading the tokens: %s", sqlite3_errmsg(a->conn));
    done(a, st);
    if (rc) {
        name[0] = 0;
        *admin = 0;
    }
    return rc;
}
