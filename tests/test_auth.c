/* test_auth.c - bearer tokens and owners against the real ndemd on a real
 * SQLite file (issue 16, docs/api.md "Authentication"). The daemon listens
 * on 0.0.0.0, so authentication is on by default. Tokens are made with
 * `ndemd token create` on its data directory before it starts, and one is
 * revoked while it runs.
 *
 * A table of every route (method, path template) is driven with no token,
 * a malformed one, an unknown one and a revoked one (401 problem+json with
 * WWW-Authenticate: Bearer), the owner's token (its success status),
 * another owner's (404, the same body as an unknown id) and an admin's
 * (the owner's status). The table is checked against `ndemd routes`, the
 * daemon's own routing table: a route added there and not here fails the
 * suite. Then: lists are filtered by owner (cursors page over the owner's
 * rows only), a job naming another owner's mesh is 422 at its pointer, a
 * running job of another owner cannot be cancelled, the stream needs a
 * token (?token= or the header) and refuses other owners, the token
 * commands' output and exit codes, the --auth decision (default off on
 * loopback, --auth off beyond loopback refused without --insecure), and
 * jobs made without authentication (owner null) are visible to admins
 * only once it is on. */
#include "authutil.h"
#include "daemon.h"
#include "raw.h"
#include "testutil.h"

static td_daemon ad; /* authentication on (0.0.0.0), shared by the cases */
static char tok_alice[128], tok_bob[128], tok_root[128], tok_carol[128];

/* The same on the shared daemon. */
static auth_resp call(const char *token, const char *method, const char *path, const char *type,
                      const char *body, size_t len)
{
    return call_d(&ad, token, method, path, type, body, len);
}

/* GET path as token, expecting 200; the body as JSON. */
static cJSON *get_json(const char *token, const char *path)
{
    auth_resp a = call(token, "GET", path, NULL, NULL, 0);
    expect(&a, 200, path);
    cJSON *o = cJSON_Parse(a.r.body);
    ck_assert_ptr_nonnull(o);
    td_resp_free(&a.r);
    return o;
}

/* ---- resources ---- */

/* POSTs and returns the new resource's id (into id, 64 bytes); checks its owner. */
static void create(const char *token, const char *owner, const char *path, const char *type,
                   const char *body, size_t len, char *id)
{
    auth_resp a = call(token, "POST", path, type, body, len);
    expect(&a, 201, path);
    cJSON *o = cJSON_Parse(a.r.body);
    snprintf(id, 64, "%s", td_str(o, "id"));
    ck_assert_msg(id[0], "%s: no id", path);
    ck_assert_str_eq(td_str(o, "owner"), owner);
    cJSON_Delete(o);
    td_resp_free(&a.r);
}

/* The jobs of the route table keep their contact networks, so that the
 * contacts route answers its owner 200 (404 for a job without them). */
static char *auth_job_doc(void)
{
    char *doc = td_job_doc("auth", 0.02, 0.01);
    const char *key = "\"output\": {";
    char *at = strstr(doc, key);
    ck_assert_ptr_nonnull(at);
    size_t n = strlen(doc) + 32;
    char *out = malloc(n);
    snprintf(out, n, "%.*s\"contacts\": true, %s", (int)(at - doc + strlen(key)), doc,
             at + strlen(key));
    free(doc);
    return out;
}

static void new_job(const char *token, const char *owner, char *id)
{
    char *doc = auth_job_doc();
    create(token, owner, "/api/v1/jobs", "application/json", doc, strlen(doc), id);
    free(doc);
}

static void new_sweep(const char *token, const char *owner, char *id)
{
    char *base = td_job_doc("auth-sweep", 0.02, 0.01), body[4096];
    snprintf(body, sizeof body,
             "{\"base\": %s, \"parameters\": [{\"pointer\": \"/solver/iterations\", "
             "\"values\": [10, 20]}]}",
             base);
    free(base);
    create(token, owner, "/api/v1/sweeps", "application/json", body, strlen(body), id);
}

static void new_mesh(const char *token, const char *owner, char *id)
{
    size_t len;
    char *stl = slurp("tests/stl/cube_ascii.stl", &len);
    create(token, owner, "/api/v1/meshes", "model/stl", stl, len, id);
    free(stl);
}

/* Polls (as the admin) until the job has ended. */
static void wait_job(const char *id)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    double end = td_now() + 120;
    for (;;) {
        cJSON *o = get_json(tok_root, path);
        int done = !strcmp(td_str(o, "status"), "succeeded");
        ck_assert_msg(strcmp(td_str(o, "status"), "failed"), "job %s failed", id);
        cJSON_Delete(o);
        if (done) return;
        ck_assert_msg(td_now() < end, "job %s did not finish in 120 s", id);
        td_sleep(0.1);
    }
}

static void wait_sweep(const char *id)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/sweeps/%s", id);
    double end = td_now() + 120;
    for (;;) {
        cJSON *o = get_json(tok_root, path);
        int done = !strcmp(td_str(o, "status"), "done");
        ck_assert_msg(strcmp(td_str(o, "status"), "failed"), "sweep %s failed", id);
        cJSON_Delete(o);
        if (done) return;
        ck_assert_msg(td_now() < end, "sweep %s did not finish in 120 s", id);
        td_sleep(0.1);
    }
}

/* ---- the daemon ---- */

static void auth_start(void)
{
    static const char *const extra[] = {"--workers", "2", NULL};
    static char hostports[2][64];
    prepare_exposed(&ad, hostports, extra);
    create_token(ad.dir, "alice", 0, tok_alice);
    create_token(ad.dir, "bob", 0, tok_bob);
    create_token(ad.dir, "root", 1, tok_root);
    create_token(ad.dir, "carol", 0, tok_carol);
    td_spawn(&ad);
}

static void auth_stop(void) { td_stop_status(&ad); }

/* ---- every route ---- */

enum { R_NONE, R_JOB, R_SWEEP, R_MESH };

typedef struct route_case {
    const char *method, *pattern;
    const char *access; /* as `ndemd routes` prints it */
    int res;            /* what {id} names (R_*) */
    int fresh;          /* the call uses the resource up: each caller gets its own */
    long ok;            /* the owner's (and an admin's) status */
    const char *body;   /* "job", "sweep", "stl" or NULL */
} route_case;

/* Every route of the daemon. A cancel of a finished job is 409 and of a
 * finished sweep 200: both reached the handler (cancelling a running job is
 * its own case below). */
static const route_case routes[] = {
    {"POST", "/api/v1/jobs", "token", R_NONE, 0, 201, "job"},
    {"GET", "/api/v1/jobs", "token", R_NONE, 0, 200, NULL},
    {"GET", "/api/v1/jobs/{id}", "token", R_JOB, 0, 200, NULL},
    {"DELETE", "/api/v1/jobs/{id}", "token", R_JOB, 1, 204, NULL},
    {"POST", "/api/v1/jobs/{id}/cancel", "token", R_JOB, 0, 409, NULL},
    {"GET", "/api/v1/jobs/{id}/frames", "token", R_JOB, 0, 200, NULL},
    {"GET", "/api/v1/jobs/{id}/frames/{n}", "token", R_JOB, 0, 200, NULL},
    {"GET", "/api/v1/jobs/{id}/frames/{n}/contacts", "token", R_JOB, 0, 200, NULL},
    {"GET", "/api/v1/jobs/{id}/archive", "token", R_JOB, 0, 200, NULL},
    {"GET", "/api/v1/jobs/{id}/series", "token", R_JOB, 0, 200, NULL},
    {"POST", "/api/v1/sweeps", "token", R_NONE, 0, 201, "sweep"},
    {"GET", "/api/v1/sweeps", "token", R_NONE, 0, 200, NULL},
    {"GET", "/api/v1/sweeps/{id}", "token", R_SWEEP, 0, 200, NULL},
    {"DELETE", "/api/v1/sweeps/{id}", "token", R_SWEEP, 1, 204, NULL},
    {"POST", "/api/v1/sweeps/{id}/cancel", "token", R_SWEEP, 0, 200, NULL},
    {"GET", "/api/v1/sweeps/{id}/results", "token", R_SWEEP, 0, 200, NULL},
    {"POST", "/api/v1/meshes", "token", R_NONE, 0, 201, "stl"},
    {"GET", "/api/v1/meshes", "token", R_NONE, 0, 200, NULL},
    {"GET", "/api/v1/meshes/{id}", "token", R_MESH, 0, 200, NULL},
    {"DELETE", "/api/v1/meshes/{id}", "token", R_MESH, 1, 204, NULL},
    /* its own secret, no bearer token: 404 here (no Slurm run) for everyone */
    {"POST", "/internal/v1/jobs/{id}/report", "internal", R_JOB, 0, 404, NULL},
    {"GET", "/health", "public", R_NONE, 0, 200, NULL},
    {"GET", "/openapi.json", "token", R_NONE, 0, 200, NULL},
    {"GET", "/metrics", "admin", R_NONE, 0, 200, NULL},
};
#define NROUTES (sizeof routes / sizeof routes[0])

/* `ndemd routes` and the table above name the same routes with the same
 * access: a route added to the daemon must be added here (and tested). */
START_TEST(the_table_has_every_route_of_the_daemon)
{
    char cmd[512], line[512];
    snprintf(cmd, sizeof cmd, "%s routes", td_bin());
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    int seen[NROUTES] = {0}, n = 0;
    char missing[4096] = "";
    while (fgets(line, sizeof line, p)) {
        char method[16], pattern[256], access[16];
        ck_assert_int_eq(sscanf(line, "%15s %255s %15s", method, pattern, access), 3);
        n++;
        size_t i = 0;
        while (i < NROUTES &&
               (strcmp(routes[i].method, method) || strcmp(routes[i].pattern, pattern)))
            i++;
        if (i == NROUTES) {
            size_t k = strlen(missing);
            snprintf(missing + k, sizeof missing - k, " %s %s (%s);", method, pattern, access);
            continue;
        }
        seen[i] = 1;
        ck_assert_msg(!strcmp(routes[i].access, access), "%s %s: access %s, the table says %s",
                      method, pattern, access, routes[i].access);
    }
    ck_assert_int_eq(WEXITSTATUS(pclose(p)), 0);
    ck_assert_msg(!missing[0], "routes of the daemon not in tests/test_auth.c:%s", missing);
    for (size_t i = 0; i < NROUTES; i++)
        ck_assert_msg(seen[i], "%s %s is not a route of the daemon", routes[i].method,
                      routes[i].pattern);
    ck_assert_int_eq(n, (int)NROUTES);
}
END_TEST

/* The path of a case for resource id. */
static void path_of(const route_case *c, const char *id, char *path, size_t len)
{
    const char *p = c->pattern, *brace;
    size_t o = 0;
    path[0] = 0;
    while ((brace = strchr(p, '{'))) {
        o += (size_t)snprintf(path + o, len - o, "%.*s", (int)(brace - p), p);
        o += (size_t)snprintf(path + o, len - o, "%s", !strncmp(brace, "{n}", 3) ? "0" : id);
        p = strchr(brace, '}') + 1;
    }
    snprintf(path + o, len - o, "%s", p);
}

/* A call of case c as token on the resource id (body made as the case says). */
static auth_resp call_case(const route_case *c, const char *token, const char *id)
{
    char path[256], *body = NULL;
    const char *type = NULL;
    size_t len = 0;
    path_of(c, id, path, sizeof path);
    if (c->body && !strcmp(c->body, "job")) {
        body = auth_job_doc();
    } else if (c->body && !strcmp(c->body, "sweep")) {
        char *base = td_job_doc("s", 0.02, 0.01);
        body = malloc(strlen(base) + 128);
        sprintf(body,
                "{\"base\": %s, \"parameters\": [{\"pointer\": \"/solver/iterations\", "
                "\"values\": [10]}]}",
                base);
        free(base);
    } else if (c->body && !strcmp(c->body, "stl")) {
        body = slurp("tests/stl/cube_ascii.stl", &len);
        type = "model/stl";
    }
    if (body && !len) len = strlen(body);
    auth_resp a = call(token, c->method, path, type, body, len);
    free(body);
    return a;
}

/* A resource of kind res owned by alice, finished. */
static void alice_resource(int res, char *id)
{
    id[0] = 0;
    if (res == R_JOB) {
        new_job(tok_alice, "alice", id);
        wait_job(id);
    } else if (res == R_SWEEP) {
        new_sweep(tok_alice, "alice", id);
        wait_sweep(id);
    } else if (res == R_MESH) {
        new_mesh(tok_alice, "alice", id);
    }
}

static void expect_401(auth_resp *a, const char *what)
{
    expect(a, 401, what);
    ck_assert_str_eq(a->r.type, "application/problem+json");
    ck_assert_msg(a->bearer_challenge, "%s: 401 without WWW-Authenticate: Bearer", what);
    ck_assert_msg(strstr(a->r.body, "\"status\":401"), "%s: %s", what, a->r.body);
}

START_TEST(every_route_needs_a_valid_token_and_hides_other_owners)
{
    /* carol's token works, then is revoked while the daemon runs */
    auth_resp a = call(tok_carol, "GET", "/api/v1/jobs", NULL, NULL, 0);
    expect(&a, 200, "carol before revoke");
    td_resp_free(&a.r);
    ck_assert_int_eq(token_cmd(ad.dir, "revoke carol", NULL, 0), 0);
    char unknown[49];
    memcpy(unknown, tok_alice, 49);
    unknown[10] = unknown[10] == 'A' ? 'B' : 'A'; /* well formed, not a token of ours */
    const char *bad[] = {NULL, "not-a-token", unknown, tok_carol};
    const char *bad_name[] = {"no token", "a malformed token", "an unknown token",
                              "a revoked token"};
    char job[64], sweep[64], mesh[64];
    alice_resource(R_JOB, job);
    alice_resource(R_SWEEP, sweep);
    alice_resource(R_MESH, mesh);
    for (size_t i = 0; i < NROUTES; i++) {
        const route_case *c = &routes[i];
        const char *shared = c->res == R_JOB ? job : c->res == R_SWEEP ? sweep : mesh;
        char what[300], id[64];
        int guarded = !strcmp(c->access, "token") || !strcmp(c->access, "admin");
        for (int b = 0; b < 4; b++) {
            snprintf(what, sizeof what, "%s %s with %s", c->method, c->pattern, bad_name[b]);
            a = call_case(c, bad[b], shared);
            if (guarded) expect_401(&a, what);
            else expect(&a, c->ok, what); /* public and internal routes take no bearer token */
            td_resp_free(&a.r);
        }
        if (!guarded) continue;
        /* another owner: 404 with the body of an id that does not exist */
        if (c->res != R_NONE) {
            if (c->fresh) alice_resource(c->res, id);
            else snprintf(id, sizeof id, "%s", shared);
            snprintf(what, sizeof what, "%s %s as another owner", c->method, c->pattern);
            a = call_case(c, tok_bob, id);
            expect(&a, 404, what);
            auth_resp none = call_case(c, tok_bob, "0123456789abcdef");
            expect(&none, 404, what);
            char *other = strstr(a.r.body, "\"detail\""),
                 *missing = strstr(none.r.body, "\"detail\"");
            ck_assert_ptr_nonnull(other);
            ck_assert_ptr_nonnull(missing);
            /* the detail names the id asked for, and nothing else differs */
            char *at = strstr(other, id);
            ck_assert_msg(at, "%s: %s", what, a.r.body);
            ck_assert_int_eq(strncmp(other, missing, (size_t)(at - other)), 0);
            td_resp_free(&a.r);
            td_resp_free(&none.r);
        } else if (!strcmp(c->access, "admin")) {
            snprintf(what, sizeof what, "%s %s without admin", c->method, c->pattern);
            a = call_case(c, tok_alice, "");
            expect(&a, 403, what);
            td_resp_free(&a.r);
        }
        /* the owner (for admin routes only the admin is one) */
        if (strcmp(c->access, "admin")) {
            if (c->fresh) alice_resource(c->res, id);
            else snprintf(id, sizeof id, "%s", shared);
            snprintf(what, sizeof what, "%s %s as the owner", c->method, c->pattern);
            a = call_case(c, tok_alice, id);
            expect(&a, c->ok, what);
            td_resp_free(&a.r);
        }
        /* an admin acts on alice's resource as she does */
        if (c->fresh) alice_resource(c->res, id);
        else snprintf(id, sizeof id, "%s", shared);
        snprintf(what, sizeof what, "%s %s as an admin", c->method, c->pattern);
        a = call_case(c, tok_root, id);
        expect(&a, c->ok, what);
        td_resp_free(&a.r);
    }
}
END_TEST

/* The token is checked from the request's head, before the body is read
 * or parsed: 4 MiB of spaces (400, not JSON, with a token) is 401 without
 * one. Over --max-body the gate's 413 comes first, token or not (gate.c
 * refuses it from the Content-Length before any route is known). */
START_TEST(no_token_is_refused_before_the_body)
{
    size_t len = 4u << 20;
    char *big = malloc(len);
    memset(big, ' ', len);
    auth_resp a = call(NULL, "POST", "/api/v1/jobs", "application/json", big, len);
    long without = a.r.status;
    int challenge = a.bearer_challenge;
    td_resp_free(&a.r);
    a = call(tok_alice, "POST", "/api/v1/jobs", "application/json", big, len);
    long with = a.r.status;
    td_resp_free(&a.r);
    free(big);
    ck_assert_msg(without == 401 && challenge, "4 MiB without a token: %ld", without);
    ck_assert_msg(with == 400, "4 MiB of spaces with a token: %ld", with);
}
END_TEST

/* ---- lists ---- */

/* Every id of GET path as token, paged with ?limit=1 and the cursor;
 * each item's owner must be want_owner (NULL: any). The count. */
static int list_all(const char *token, const char *path, const char *key, const char *want_owner,
                    char ids[][64], int max)
{
    char url[512], cursor[64] = "";
    int n = 0;
    for (int page = 0; page < 200; page++) {
        snprintf(url, sizeof url, "%s?limit=1%s%s", path, cursor[0] ? "&cursor=" : "", cursor);
        cJSON *o = get_json(token, url);
        const cJSON *item;
        cJSON_ArrayForEach(item, cJSON_GetObjectItem(o, key))
        {
            if (want_owner) ck_assert_str_eq(td_str(item, "owner"), want_owner);
            ck_assert_int_lt(n, max);
            snprintf(ids[n++], 64, "%s", td_str(item, "id"));
        }
        const cJSON *next = cJSON_GetObjectItem(o, "next_cursor");
        int more = cJSON_IsString(next);
        if (more) snprintf(cursor, sizeof cursor, "%s", next->valuestring);
        cJSON_Delete(o);
        if (!more) return n;
    }
    ck_abort_msg("%s: more than 200 pages", path);
    return n;
}

static int has(char ids[][64], int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(ids[i], id)) return 1;
    return 0;
}

START_TEST(lists_show_each_owner_its_own_and_admins_all)
{
    static char a[3][64], b[2][64], ids[400][64];
    new_job(tok_alice, "alice", a[0]);
    new_job(tok_bob, "bob", b[0]);
    new_job(tok_alice, "alice", a[1]);
    new_job(tok_bob, "bob", b[1]);
    new_job(tok_alice, "alice", a[2]);
    int n = list_all(tok_alice, "/api/v1/jobs", "jobs", "alice", ids, 400);
    for (int i = 0; i < 3; i++) ck_assert_msg(has(ids, n, a[i]), "alice misses her job %s", a[i]);
    for (int i = 0; i < 2; i++) ck_assert_msg(!has(ids, n, b[i]), "alice sees bob's job %s", b[i]);
    n = list_all(tok_bob, "/api/v1/jobs", "jobs", "bob", ids, 400);
    ck_assert(has(ids, n, b[0]) && has(ids, n, b[1]) && !has(ids, n, a[0]));
    n = list_all(tok_root, "/api/v1/jobs", "jobs", NULL, ids, 400);
    for (int i = 0; i < 3; i++) ck_assert(has(ids, n, a[i]));
    for (int i = 0; i < 2; i++) ck_assert(has(ids, n, b[i]));
    for (int i = 0; i < 3; i++) wait_job(a[i]);
    for (int i = 0; i < 2; i++) wait_job(b[i]);
    /* with a status filter too */
    n = list_all(tok_bob, "/api/v1/jobs?status=succeeded&x=1", "jobs", "bob", ids, 400);
    ck_assert(has(ids, n, b[0]) && !has(ids, n, a[2]));

    char sa[64], sb[64], ma[64], mb[64];
    new_sweep(tok_alice, "alice", sa);
    new_sweep(tok_bob, "bob", sb);
    n = list_all(tok_alice, "/api/v1/sweeps", "sweeps", "alice", ids, 400);
    ck_assert(has(ids, n, sa) && !has(ids, n, sb));
    n = list_all(tok_root, "/api/v1/sweeps", "sweeps", NULL, ids, 400);
    ck_assert(has(ids, n, sa) && has(ids, n, sb));
    /* a sweep's jobs are its owner's */
    char path[128];
    snprintf(path, sizeof path, "/api/v1/sweeps/%s", sb);
    cJSON *o = get_json(tok_bob, path);
    const cJSON *j = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "jobs"), 0);
    snprintf(path, sizeof path, "/api/v1/jobs/%s", td_str(j, "id"));
    cJSON_Delete(o);
    o = get_json(tok_bob, path);
    ck_assert_str_eq(td_str(o, "owner"), "bob");
    cJSON_Delete(o);
    auth_resp r = call(tok_alice, "GET", path, NULL, NULL, 0);
    expect(&r, 404, "alice reads a job of bob's sweep");
    td_resp_free(&r.r);
    wait_sweep(sa);
    wait_sweep(sb);

    new_mesh(tok_alice, "alice", ma);
    new_mesh(tok_bob, "bob", mb);
    n = list_all(tok_alice, "/api/v1/meshes", "meshes", "alice", ids, 400);
    ck_assert(has(ids, n, ma) && !has(ids, n, mb));
    n = list_all(tok_root, "/api/v1/meshes", "meshes", NULL, ids, 400);
    ck_assert(has(ids, n, ma) && has(ids, n, mb));
}
END_TEST

/* A job naming an uploaded mesh: its owner and admins may, others get the
 * 422 of an unknown id, at the mesh's pointer. */
START_TEST(another_owners_mesh_is_an_unknown_mesh)
{
    char mesh[64], id[64];
    new_mesh(tok_alice, "alice", mesh);
    static const char fmt[] =
        "{\"name\": \"m\", \"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, "
        "\"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1]}, {\"type\": \"mesh\", \"mesh\": \"%s\", \"scale\": 0.05, "
        "\"position\": [0.5, 0.5, 0.5]}], \"particles\": [{\"type\": \"list\", \"spheres\": "
        "[[0, 0, 0.0099, 0.01]]}]}, \"solver\": {\"time_step\": 0.005, \"duration\": 0.02}, "
        "\"output\": {\"frame_interval\": 0.01}}";
    char doc[2048];
    snprintf(doc, sizeof doc, fmt, mesh);
    auth_resp a = call(tok_bob, "POST", "/api/v1/jobs", "application/json", doc, strlen(doc));
    expect(&a, 422, "bob's job with alice's mesh");
    cJSON *o = cJSON_Parse(a.r.body);
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "errors"), 0);
    ck_assert_str_eq(td_str(e, "pointer"), "/scene/geometry/1/mesh");
    ck_assert_msg(strstr(td_str(e, "message"), mesh), "%s", a.r.body);
    cJSON_Delete(o);
    td_resp_free(&a.r);
    /* the same in a sweep's base */
    char body[4096];
    snprintf(body, sizeof body,
             "{\"base\": %s, \"parameters\": [{\"pointer\": \"/solver/iterations\", \"values\": "
             "[10]}]}",
             doc);
    a = call(tok_bob, "POST", "/api/v1/sweeps", "application/json", body, strlen(body));
    expect(&a, 422, "bob's sweep with alice's mesh");
    ck_assert_msg(strstr(a.r.body, "/scene/geometry/1/mesh"), "%s", a.r.body);
    td_resp_free(&a.r);
    create(tok_alice, "alice", "/api/v1/jobs", "application/json", doc, strlen(doc), id);
    wait_job(id);
    create(tok_root, "root", "/api/v1/jobs", "application/json", doc, strlen(doc), id);
    wait_job(id);
}
END_TEST

/* Cancelling a running job: another owner gets 404 and the job runs on. */
START_TEST(another_owner_cannot_cancel_a_running_job)
{
    char id[64], path[128];
    char *doc = td_long_job_doc("long", 100, 1);
    create(tok_alice, "alice", "/api/v1/jobs", "application/json", doc, strlen(doc), id);
    free(doc);
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    double end = td_now() + 60;
    for (;;) {
        cJSON *o = get_json(tok_alice, path);
        int running = !strcmp(td_str(o, "status"), "running");
        cJSON_Delete(o);
        if (running) break;
        ck_assert_msg(td_now() < end, "job %s did not start in 60 s", id);
        td_sleep(0.05);
    }
    snprintf(path, sizeof path, "/api/v1/jobs/%s/cancel", id);
    auth_resp a = call(tok_bob, "POST", path, NULL, NULL, 0);
    expect(&a, 404, "bob cancels alice's running job");
    td_resp_free(&a.r);
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    cJSON *o = get_json(tok_alice, path);
    ck_assert_str_eq(td_str(o, "status"), "running");
    cJSON_Delete(o);
    snprintf(path, sizeof path, "/api/v1/jobs/%s/cancel", id);
    a = call(tok_alice, "POST", path, NULL, NULL, 0);
    expect(&a, 202, "alice cancels her running job");
    td_resp_free(&a.r);
}
END_TEST

/* ---- the stream ---- */

/* The answer to a WebSocket handshake for job id (query appended to the
 * path, header added), read for `wait` s. malloc'd. */
static char *handshake(const char *id, const char *query, const char *header, double wait)
{
    char req[1024];
    snprintf(req, sizeof req,
             "GET /api/v1/jobs/%s/stream%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
             "Upgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
             "%s\r\n",
             id, query, ad.ws_port, header);
    double took;
    return raw_exchange(ad.ws_port, req, strlen(req), wait, &took);
}

static void expect_handshake(const char *id, const char *query, const char *header,
                             const char *status, const char *what)
{
    char *ans = handshake(id, query, header, strcmp(status, "101") ? 10 : 3);
    /* libwebsockets answers refusals as HTTP/1.0 */
    int ok = !strncmp(ans, "HTTP/1.", 7) && !strncmp(ans + 9, status, 3);
    char got[96];
    snprintf(got, sizeof got, "%.80s", ans);
    if (!ok) free(ans);
    ck_assert_msg(ok, "%s: wanted %s, got '%s'", what, status, got);
    if (!strcmp(status, "101"))
        ck_assert_msg(strstr(ans, "\"type\":\"hello\"") && strstr(ans, id),
                      "%s: no hello for the job", what);
    free(ans);
}

START_TEST(the_stream_needs_a_token_and_the_owner)
{
    char id[64], q[200], h[200];
    new_job(tok_alice, "alice", id);
    wait_job(id);
    expect_handshake(id, "", "", "401", "no token");
    expect_handshake(id, "?token=nope", "", "401", "a bad token");
    snprintf(q, sizeof q, "?token=%s", tok_bob);
    expect_handshake(id, q, "", "404", "another owner");
    snprintf(q, sizeof q, "?token=%s", tok_alice);
    expect_handshake(id, q, "", "101", "the owner with ?token=");
    snprintf(h, sizeof h, "Authorization: Bearer %s\r\n", tok_alice);
    expect_handshake(id, "", h, "101", "the owner with the header");
    snprintf(q, sizeof q, "?token=%s", tok_root);
    expect_handshake(id, q, "", "101", "an admin");
    snprintf(q, sizeof q, "?token=%s", tok_alice);
    expect_handshake("0123456789abcdef", q, "", "404", "an unknown job");
    /* the Origin check is still there */
    snprintf(q, sizeof q, "?token=%s", tok_alice);
    expect_handshake(id, q, "Origin: http://evil.example\r\n", "403", "a foreign origin");
}
END_TEST

/* ---- the token commands ---- */

START_TEST(token_commands_keep_hashes_and_say_what_went_wrong)
{
    td_daemon d;
    td_make_dir(&d);
    char out[4096], tok[128];
    create_token(d.dir, "dave", 0, tok);
    char other[128];
    create_token(d.dir, "erin", 1, other);
    ck_assert_str_ne(tok, other);
    ck_assert_int_eq(token_cmd(d.dir, "create dave", out, sizeof out), 3); /* duplicate */
    ck_assert_str_eq(out, "");                                             /* no token */
    ck_assert_int_eq(token_cmd(d.dir, "create 'bad name'", NULL, 0), 2);   /* invalid */
    ck_assert_int_eq(token_cmd(d.dir, "create", NULL, 0), 2);              /* no name */
    ck_assert_int_eq(token_cmd(d.dir, "revoke nobody", NULL, 0), 4);       /* unknown */
    ck_assert_int_eq(token_cmd(d.dir, "frobnicate x", NULL, 0), 2);        /* usage */
    ck_assert_int_eq(token_cmd(d.dir, "revoke dave", NULL, 0), 0);
    ck_assert_int_eq(token_cmd(d.dir, "revoke dave", NULL, 0), 5); /* already */
    ck_assert_int_eq(token_cmd(d.dir, "create dave", NULL, 0), 3); /* never reused */
    ck_assert_int_eq(token_cmd(d.dir, "list", out, sizeof out), 0);
    ck_assert_msg(!strstr(out, tok) && !strstr(out, other) && !strstr(out, "ndem_"),
                  "list shows a token: %s", out);
    /* dave: not admin, revoked (a date); erin: admin, in use ("-") */
    char *dave = strstr(out, "\ndave "), *erin = strstr(out, "\nerin ");
    ck_assert_msg(dave && erin, "%s", out);
    char name[32], admin[8], created[40], revoked[40];
    ck_assert_int_eq(sscanf(dave + 1, "%31s %7s %39s %39s", name, admin, created, revoked), 4);
    ck_assert_str_eq(admin, "no");
    ck_assert_msg(!strncmp(revoked, "20", 2), "dave not shown revoked: %s", out);
    ck_assert_int_eq(sscanf(erin + 1, "%31s %7s %39s %39s", name, admin, created, revoked), 4);
    ck_assert_str_eq(admin, "yes");
    ck_assert_str_eq(revoked, "-");
    /* the database holds the hash, never the token */
    static const char *const files[] = {"ndem.db", "ndem.db-wal"};
    for (int k = 0; k < 2; k++) {
        char path[400];
        snprintf(path, sizeof path, "%s/var/%s", d.dir, files[k]);
        if (access(path, R_OK)) continue;
        size_t len;
        char *bytes = slurp(path, &len);
        ck_assert_msg(!contains(bytes, len, tok) && !contains(bytes, len, other + 5),
                      "a token's text is in %s", path);
        free(bytes);
    }
    td_stop(&d); /* no daemon: removes the directory */
}
END_TEST

/* ---- the --auth decision ---- */

START_TEST(auth_is_off_on_loopback_and_refused_off_beyond_it)
{
    /* loopback, default: off; a job made now has no owner */
    td_daemon d;
    td_start(&d, (char *)NULL);
    char id[64];
    char *doc = td_job_doc("open", 0.02, 0.01);
    td_resp r = td_post_job(&d, doc);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    cJSON *o = cJSON_Parse(r.body);
    snprintf(id, sizeof id, "%s", td_str(o, "id"));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "owner")));
    cJSON_Delete(o);
    td_resp_free(&r);
    free(doc);
    r = td_http(&d, "GET", "/metrics", NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    td_resp_free(&r);
    td_wait_status(&d, id, "succeeded", 120);
    int st = td_signal(&d, SIGTERM, 30); /* its directory stays for the restart */
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "ndemd stopped with %d", st);

    /* the same data with --auth on: the job without owner is an admin's to see */
    char alice[128], root[128], path[400];
    create_token(d.dir, "alice", 0, alice);
    create_token(d.dir, "root", 1, root);
    d.args[d.nargs++] = "--auth";
    d.args[d.nargs++] = "on";
    td_spawn(&d);
    snprintf(path, sizeof path, "/api/v1/jobs/%s", id);
    auth_resp a = call_d(&d, NULL, "GET", path, NULL, NULL, 0);
    expect(&a, 401, "--auth on, no token");
    td_resp_free(&a.r);
    a = call_d(&d, alice, "GET", path, NULL, NULL, 0);
    expect(&a, 404, "a job without owner, as alice");
    td_resp_free(&a.r);
    a = call_d(&d, alice, "GET", "/api/v1/jobs", NULL, NULL, 0);
    expect(&a, 200, "alice's list");
    ck_assert_msg(!strstr(a.r.body, id), "alice lists a job without owner: %s", a.r.body);
    td_resp_free(&a.r);
    a = call_d(&d, root, "GET", path, NULL, NULL, 0);
    expect(&a, 200, "a job without owner, as an admin");
    o = cJSON_Parse(a.r.body);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "owner")));
    cJSON_Delete(o);
    td_resp_free(&a.r);

    /* --auth off beyond loopback: refused at start-up, unless --insecure */
    char cmd[1200], err[2048] = "";
    snprintf(cmd, sizeof cmd,
             "%s --listen 0.0.0.0:0 --auth off --data %s/var2 --web %s 2>%s/refused.err", td_bin(),
             d.dir, d.dir, d.dir);
    st = system(cmd);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "ndemd --auth off on 0.0.0.0: %d", st);
    snprintf(path, sizeof path, "%s/refused.err", d.dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(err, 1, sizeof err - 1, f);
    err[n] = 0;
    fclose(f);
    ck_assert_msg(strstr(err, "--insecure") && strstr(err, "0.0.0.0:0"), "%s", err);
    td_stop(&d);
    td_daemon open;
    static const char *const insecure[] = {"--auth", "off", "--insecure", NULL};
    char hostports[2][64];
    prepare_exposed(&open, hostports, insecure);
    td_spawn(&open);
    a = call_d(&open, NULL, "GET", "/api/v1/jobs", NULL, NULL, 0);
    expect(&a, 200, "--auth off --insecure on 0.0.0.0, no token");
    td_resp_free(&a.r);
    td_stop(&open);
}
END_TEST

static Suite *auth_suite(void)
{
    Suite *s = suite_create("auth");
    TCase *tc = tcase_create("routes");
    tcase_add_unchecked_fixture(tc, auth_start, auth_stop);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, the_table_has_every_route_of_the_daemon);
    tcase_add_test(tc, every_route_needs_a_valid_token_and_hides_other_owners);
    tcase_add_test(tc, no_token_is_refused_before_the_body);
    tcase_add_test(tc, lists_show_each_owner_its_own_and_admins_all);
    tcase_add_test(tc, another_owners_mesh_is_an_unknown_mesh);
    tcase_add_test(tc, another_owner_cannot_cancel_a_running_job);
    tcase_add_test(tc, the_stream_needs_a_token_and_the_owner);
    suite_add_tcase(s, tc);
    TCase *cli = tcase_create("commands");
    tcase_set_timeout(cli, 300);
    tcase_add_test(cli, token_commands_keep_hashes_and_say_what_went_wrong);
    tcase_add_test(cli, auth_is_off_on_loopback_and_refused_off_beyond_it);
    suite_add_tcase(s, cli);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = ndem_test_run_suite(auth_suite());
    rc = td_exit_code(rc);
    curl_global_cleanup();
    return rc;
}
