/* test_routes.c - the daemon's routes and their two descriptions (issue
 * 16): every route that `ndemd routes` prints is an operation of the
 * OpenAPI document a real ndemd serves (GET /openapi.json) and a row of
 * docs/api.md's route table, and neither names a route the daemon does not
 * have. A route added to server/routes.c fails here until both describe it
 * (tests/test_auth.c checks the same list against its access table). */
#include "daemon.h"
#include "testutil.h"

#include <strings.h>

#define MAX_ROUTES 64

typedef struct route {
    char method[16], pattern[256];
    int in_openapi, in_docs;
} route;

/* The routes of `ndemd routes`: their count. */
static int daemon_routes(route *r)
{
    char cmd[512], line[512];
    snprintf(cmd, sizeof cmd, "%s routes", td_bin());
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        ck_assert_int_lt(n, MAX_ROUTES);
        memset(&r[n], 0, sizeof r[n]);
        ck_assert_int_eq(sscanf(line, "%15s %255s", r[n].method, r[n].pattern), 2);
        n++;
    }
    ck_assert_int_eq(WEXITSTATUS(pclose(p)), 0);
    ck_assert_int_gt(n, 20); /* jobs, sweeps, meshes, service routes */
    return n;
}

static route *find(route *r, int n, const char *method, const char *pattern)
{
    for (int i = 0; i < n; i++)
        if (!strcasecmp(r[i].method, method) && !strcmp(r[i].pattern, pattern)) return &r[i];
    return NULL;
}

START_TEST(openapi_has_every_route_and_no_other)
{
    route r[MAX_ROUTES];
    int n = daemon_routes(r);
    td_daemon d;
    td_start(&d, (char *)NULL);
    cJSON *o = td_get_json(&d, "/openapi.json", 200);
    static const char *const verbs[] = {"get", "put", "post", "delete", "patch", "head"};
    const cJSON *path;
    cJSON_ArrayForEach(path, cJSON_GetObjectItem(o, "paths"))
    {
        for (size_t v = 0; v < sizeof verbs / sizeof verbs[0]; v++) {
            if (!cJSON_GetObjectItem(path, verbs[v])) continue;
            route *hit = find(r, n, verbs[v], path->string);
            ck_assert_msg(hit, "the OpenAPI document has %s %s, which is not a route", verbs[v],
                          path->string);
            hit->in_openapi = 1;
        }
    }
    for (int i = 0; i < n; i++)
        ck_assert_msg(r[i].in_openapi, "the OpenAPI document lacks %s %s", r[i].method,
                      r[i].pattern);
    cJSON_Delete(o);
    td_stop(&d);
}
END_TEST

/* docs/api.md's table rows "| `METHOD /path` | ..." (the static files'
 * "GET /..." row is no route of the table). */
START_TEST(docs_api_has_every_route_and_no_other)
{
    route r[MAX_ROUTES];
    int n = daemon_routes(r);
    FILE *f = fopen("docs/api.md", "r");
    ck_assert_msg(f != NULL, "docs/api.md: run from the repository's root");
    char line[8192];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        char method[16], pattern[256];
        if (sscanf(line, "| `%15[A-Z] %255[^`]` |", method, pattern) != 2) continue;
        if (!strcmp(pattern, "/...")) continue;
        route *hit = find(r, n, method, pattern);
        ck_assert_msg(hit, "docs/api.md has %s %s, which is not a route", method, pattern);
        hit->in_docs = 1;
        rows++;
    }
    fclose(f);
    for (int i = 0; i < n; i++)
        ck_assert_msg(r[i].in_docs, "docs/api.md's route table lacks %s %s", r[i].method,
                      r[i].pattern);
    ck_assert_int_eq(rows, n);
}
END_TEST

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    Suite *s = suite_create("routes");
    TCase *tc = tcase_create("described");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, openapi_has_every_route_and_no_other);
    tcase_add_test(tc, docs_api_has_every_route_and_no_other);
    suite_add_tcase(s, tc);
    int rc = td_exit_code(ndem_test_run_suite(s));
    curl_global_cleanup();
    return rc;
}
