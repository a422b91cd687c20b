/* test_stream.c - ndemd's live WebSocket stream (issue 3, docs/protocol.md)
 * through a libwebsockets client: hello with the job resource, progress and
 * status text messages, binary NDF1 frames with the stream fields, the
 * latest frame first for a late client, refusal of unknown jobs and of
 * clients beyond --max-stream-clients; and a client that never reads holds
 * at most a frame or two in the daemon's memory and does not slow the job.
 * Also the named geometry's loads in progress messages and the series route. */
#include "daemon.h"
#include "testutil.h"

#include <netdb.h>

/* ---- a small libwebsockets client that records every message ---- */

typedef struct ws_msg {
    int binary;
    size_t len;
    unsigned char *data;
} ws_msg;

typedef struct ws_client {
    struct lws_context *ctx;
    struct lws *wsi;
    int established, closed;
    ws_msg msgs[4096];
    int n;
    unsigned char *part; /* the message being received */
    size_t part_len;
} ws_client;

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                       size_t len)
{
    ws_client *c = user;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        c->established = 1;
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE: {
        unsigned char *grown = realloc(c->part, c->part_len + len + 1);
        ck_assert_ptr_nonnull(grown);
        c->part = grown;
        memcpy(c->part + c->part_len, in, len);
        c->part_len += len;
        c->part[c->part_len] = 0;
        if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi) && c->n < 4096) {
            c->msgs[c->n++] = (ws_msg){lws_frame_is_binary(wsi), c->part_len, c->part};
            c->part = NULL;
            c->part_len = 0;
        }
        break;
    }
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
    case LWS_CALLBACK_CLIENT_CLOSED:
        c->closed = 1;
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols ws_protocols[] = {
    {"test", ws_callback, 0, 65536, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* Connects to ws://127.0.0.1:PORT/PATH (url is the job's links.stream). */
static void ws_open(ws_client *c, const char *url)
{
    memset(c, 0, sizeof *c);
    int port;
    char path[256];
    ck_assert_int_eq(sscanf(url, "ws://127.0.0.1:%d%255s", &port, path), 2);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = ws_protocols;
    info.gid = (gid_t)-1;
    info.uid = (uid_t)-1;
    c->ctx = lws_create_context(&info);
    ck_assert_ptr_nonnull(c->ctx);
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = c->ctx;
    ci.address = "127.0.0.1";
    ci.port = port;
    ci.path = path;
    ci.host = "127.0.0.1";
    /* as a browser on the daemon's page: lws sends "Origin: http://" this,
     * the served origin (the API is on the port below the stream's) */
    char origin[64];
    snprintf(origin, sizeof origin, "127.0.0.1:%d", port - 1);
    ci.origin = origin;
    ci.local_protocol_name = "test";
    ci.userdata = c;
    ci.pwsi = &c->wsi;
    ck_assert_ptr_nonnull(lws_client_connect_via_info(&ci));
}

/* Services the connection until pred(c) or the timeout. */
static int ws_until(ws_client *c, int (*pred)(const ws_client *), double timeout)
{
    double end = td_now() + timeout;
    while (!pred(c) && !c->closed && td_now() < end) lws_service(c->ctx, 50);
    return pred(c);
}

static void ws_close(ws_client *c)
{
    lws_context_destroy(c->ctx);
    for (int i = 0; i < c->n; i++) free(c->msgs[i].data);
    free(c->part);
}

static const char *type_of(const ws_msg *m, cJSON **o)
{
    *o = m->binary ? NULL : cJSON_Parse((const char *)m->data);
    return *o ? td_str(*o, "type") : "";
}

/* Is the last message a status message saying the job is over? */
static int final_status(const ws_client *c)
{
    for (int i = 0; i < c->n; i++) {
        cJSON *o;
        int done = !strcmp(type_of(&c->msgs[i], &o), "status") &&
                   strcmp(td_str(o, "status"), "running") && strcmp(td_str(o, "status"), "queued");
        cJSON_Delete(o);
        if (done) return 1;
    }
    return 0;
}

static int three_messages(const ws_client *c) { return c->n >= 3; }

static uint32_t u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A binary stream frame: NDF1, 48-byte header, positions + radii + scalar +
 * materials, then the geometry poses: their count and 64 bytes each (the
 * jobs it is used on have one geometry and one material). */
static long check_frame(const ws_msg *m)
{
    ck_assert(m->len >= 48);
    ck_assert(!memcmp(m->data, "NDF1", 4));
    ck_assert_uint_eq(u32(m->data + 4), 48);
    uint32_t n = u32(m->data + 12);
    ck_assert_uint_eq(u32(m->data + 32), 1 | 2 | 4 | 32 | 64);
    ck_assert(m->len >= 48 + 24 * (size_t)n + 8);
    ck_assert_uint_eq(u32(m->data + 48 + 24 * (size_t)n), 1); /* one geometry */
    ck_assert_uint_eq(m->len, 48 + 24 * (size_t)n + 8 + 64);
    for (uint32_t i = 0; i < n; i++) /* the only material */
        ck_assert_uint_eq(u32(m->data + 48 + 20 * (size_t)n + 4 * i), 0);
    return (long)u32(m->data + 8);
}

static char *stream_url(const td_daemon *d, const char *id)
{
    cJSON *o = td_job(d, id);
    char *url = strdup(td_str(cJSON_GetObjectItem(o, "links"), "stream"));
    cJSON_Delete(o);
    return url;
}

static td_daemon sd;

static void stream_start(void)
{
    td_start(&sd, "--workers", "1", "--progress-interval", "0.05", "--max-stream-clients", "4",
             (char *)NULL);
}

/* a bad end fails the suite (td_exit_code) */
static void stream_stop(void) { td_stop_status(&sd); }

START_TEST(hello_progress_frames_and_status)
{
    char id[64];
    char *doc = td_long_job_doc("watched", 0.3, 0.02);
    td_submit(&sd, doc, id);
    free(doc);
    char *url = stream_url(&sd, id);
    static ws_client c;
    ws_open(&c, url);
    ck_assert_msg(ws_until(&c, final_status, 60), "no final status (%d messages)", c.n);
    cJSON *o;
    ck_assert_str_eq(type_of(&c.msgs[0], &o), "hello");
    const cJSON *job = cJSON_GetObjectItem(o, "job");
    ck_assert_str_eq(td_str(job, "id"), id);
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(job, "links"));
    cJSON_Delete(o);
    int progress = 0, frames = 0;
    long last_index = -1;
    for (int i = 1; i < c.n; i++) {
        if (c.msgs[i].binary) {
            long index = check_frame(&c.msgs[i]);
            ck_assert_int_gt(index, last_index); /* in order, maybe with gaps */
            last_index = index;
            frames++;
            continue;
        }
        const char *t = type_of(&c.msgs[i], &o);
        if (!strcmp(t, "progress")) {
            const cJSON *p = cJSON_GetObjectItem(o, "progress");
            ck_assert(td_num(p, "fraction") >= 0 && td_num(p, "fraction") <= 1);
            ck_assert(td_num(cJSON_GetObjectItem(o, "stats"), "particles") > 0);
            progress++;
        }
        cJSON_Delete(o);
    }
    ck_assert_int_ge(progress, 1);
    ck_assert_int_ge(frames, 1);
    ck_assert_str_eq(type_of(&c.msgs[c.n - 1], &o), "status");
    ck_assert_str_eq(td_str(o, "status"), "succeeded");
    cJSON_Delete(o);
    ws_close(&c);

    /* a late client: hello, then at once the latest (final) frame */
    char path[128];
    snprintf(path, sizeof path, "/api/v1/jobs/%s/frames/latest", id);
    cJSON *latest = td_get_json(&sd, path, 200);
    long final_index = (long)td_num(latest, "index");
    cJSON_Delete(latest);
    ws_open(&c, url);
    ck_assert(ws_until(&c, three_messages, 30));
    ck_assert_str_eq(type_of(&c.msgs[0], &o), "hello");
    cJSON_Delete(o);
    ck_assert(c.msgs[1].binary);
    ck_assert_int_eq(check_frame(&c.msgs[1]), final_index);
    ws_close(&c);
    free(url);
}
END_TEST

/* Named geometry (issue 13): the progress messages carry each named
 * geometry's force and torque (and a moving one's position), the series
 * route serves the same columns, and the last progress message and the last
 * series row agree; a duplicate name is a 422 with its pointer. */
static char *named_doc(const char *name, double duration, double frame_interval)
{
    static const char fmt[] =
        "{\"name\": \"%s\", \"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, "
        "\"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"box\", \"name\": \"bin\", \"min\": "
        "[0, 0, 0], \"max\": [0.2, 0.2, 0.4], \"inside\": true}, {\"type\": \"plane\", \"name\": "
        "\"lid\", \"point\": [0, 0, 1], \"normal\": [0, 0, -1], \"velocity\": [0, 0, 0.1]}%s], "
        "\"particles\": [{\"type\": \"lattice\", \"min\": [0.01, 0.01, 0.0079], \"max\": [0.19, "
        "0.19, 0.3], \"spacing\": 0.02, \"count\": 600, \"radius\": 0.008}]}, \"solver\": "
        "{\"time_step\": 0.002, \"duration\": %g, \"iterations\": 10, \"threads\": 1}, "
        "\"output\": {\"frame_interval\": %g}}";
    size_t n = sizeof fmt + strlen(name) + 256;
    char *s = malloc(n);
    snprintf(s, n, fmt, name,
             frame_interval < 0 ? ", {\"type\": \"plane\", \"name\": \"bin\", "
                                  "\"point\": [0, 0, 0], \"normal\": [0, 0, 1]}"
                                : "",
             duration, frame_interval < 0 ? 0.1 : frame_interval);
    return s;
}

/* The last entry of a series route's column. */
static double series_last(const cJSON *series, const char *col)
{
    const cJSON *a = cJSON_GetObjectItem(cJSON_GetObjectItem(series, "series"), col);
    ck_assert_msg(cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0, "no column %s", col);
    return cJSON_GetArrayItem(a, cJSON_GetArraySize(a) - 1)->valuedouble;
}

START_TEST(named_geometry_on_stream_and_series)
{
    char id[64];
    /* a duplicate name: 422 at the second one's pointer */
    char *doc = named_doc("dup", 0.1, -1);
    td_resp r = td_post_job(&sd, doc);
    free(doc);
    ck_assert_int_eq(r.status, 422);
    ck_assert_msg(strstr(r.body, "\"pointer\":\"/scene/geometry/2/name\"") &&
                      strstr(r.body, "duplicate geometry name 'bin' (also /scene/geometry/0)"),
                  "%s", r.body);
    td_resp_free(&r);

    doc = named_doc("named", 0.3, 0.1);
    td_submit(&sd, doc, id);
    free(doc);
    char *url = stream_url(&sd, id);
    static ws_client c;
    ws_open(&c, url);
    ck_assert_msg(ws_until(&c, final_status, 60), "no final status (%d messages)", c.n);
    cJSON *o, *last = NULL;
    int with_geometry = 0;
    for (int i = 1; i < c.n; i++) {
        if (c.msgs[i].binary) continue;
        if (strcmp(type_of(&c.msgs[i], &o), "progress")) {
            cJSON_Delete(o);
            continue;
        }
        const cJSON *geo = cJSON_GetObjectItem(o, "geometry");
        const cJSON *bin = cJSON_GetObjectItem(geo, "bin"), *lid = cJSON_GetObjectItem(geo, "lid");
        ck_assert_msg(bin && lid, "progress without the named geometry: %s", c.msgs[i].data);
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(bin, "force")), 3);
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(bin, "torque")), 3);
        ck_assert_ptr_null(cJSON_GetObjectItem(bin, "position")); /* it does not move */
        /* the lid's reference point rises at 0.1 m/s from z = 1 */
        double t = td_num(cJSON_GetObjectItem(o, "progress"), "time");
        const cJSON *pos = cJSON_GetObjectItem(lid, "position");
        ck_assert_int_eq(cJSON_GetArraySize(pos), 3);
        ck_assert_double_eq_tol(cJSON_GetArrayItem(pos, 2)->valuedouble, 1 + 0.1 * t, 1e-9);
        with_geometry++;
        cJSON_Delete(last);
        last = o;
    }
    ck_assert_int_ge(with_geometry, 1);
    ws_close(&c);
    free(url);
    td_wait_status(&sd, id, "succeeded", 60);

    char path[128];
    snprintf(path, sizeof path, "/api/v1/jobs/%s/series", id);
    cJSON *series = td_get_json(&sd, path, 200);
    const char *cols[] = {"bin_fx", "bin_fy", "bin_fz", "bin_tx", "bin_ty",
                          "bin_tz", "lid_fx", "lid_fy", "lid_fz", "lid_tx",
                          "lid_ty", "lid_tz", "lid_x",  "lid_y",  "lid_z"};
    const cJSON *names = cJSON_GetObjectItem(series, "columns");
    int n = cJSON_GetArraySize(names);
    ck_assert_int_ge(n, 15);
    for (int k = 0; k < 15; k++) /* in order, last of all */
        ck_assert_str_eq(cJSON_GetArrayItem(names, n - 15 + k)->valuestring, cols[k]);
    ck_assert_int_eq(
        cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(series, "series"), "bin_fz")),
        (int)td_num(series, "count"));
    /* the last row is the last progress message's step: the same loads */
    const cJSON *geo = cJSON_GetObjectItem(last, "geometry");
    const cJSON *bf = cJSON_GetObjectItem(cJSON_GetObjectItem(geo, "bin"), "force");
    const cJSON *bt = cJSON_GetObjectItem(cJSON_GetObjectItem(geo, "bin"), "torque");
    ck_assert_int_eq((long)td_num(cJSON_GetObjectItem(last, "progress"), "step"),
                     (long)series_last(series, "step"));
    for (int k = 0; k < 3; k++) {
        double f = cJSON_GetArrayItem(bf, k)->valuedouble,
               t = cJSON_GetArrayItem(bt, k)->valuedouble;
        ck_assert_double_eq_tol(series_last(series, cols[k]), f, 1e-8 * fabs(f) + 1e-12);
        ck_assert_double_eq_tol(series_last(series, cols[3 + k]), t, 1e-8 * fabs(t) + 1e-12);
    }
    ck_assert_double_lt(series_last(series, "bin_fz"), 0); /* the bed presses on the bottom */
    ck_assert_double_eq_tol(series_last(series, "lid_z"), 1 + 0.1 * 0.3, 1e-9);
    ck_assert(series_last(series, "lid_fz") == 0); /* nothing reaches it */
    cJSON_Delete(series);
    cJSON_Delete(last);
    r = td_http(&sd, "GET", path, NULL, NULL, 0, "text/csv");
    ck_assert_int_eq(r.status, 200);
    ck_assert_msg(strstr(r.body, ",wall_seconds,bin_fx,") && strstr(r.body, ",lid_z,crc32c\n"),
                  "%.400s", r.body);
    td_resp_free(&r);
}
END_TEST

START_TEST(unknown_job_is_refused)
{
    char url[128];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/api/v1/jobs/0123456789abcdef/stream", sd.ws_port);
    static ws_client c;
    ws_open(&c, url);
    ws_until(&c, three_messages, 5);
    ck_assert(c.closed);
    ck_assert_int_eq(c.n, 0);
    ws_close(&c);
}
END_TEST

/* A raw WebSocket client that completes the handshake and then never reads. */
static int stuck_client(int port, const char *path)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int small = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n",
                     path, port);
    ck_assert_int_eq(write(fd, req, (size_t)n), n);
    char resp[64] = "";
    ck_assert_int_gt(read(fd, resp, sizeof resp - 1), 12);
    ck_assert(!strncmp(resp, "HTTP/1.1 101", 12));
    return fd;
}

static long metric(const td_daemon *d, const char *name)
{
    td_resp r = td_http(d, "GET", "/metrics", NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    char needle[128];
    snprintf(needle, sizeof needle, "\n%s ", name);
    const char *p = strstr(r.body, needle);
    ck_assert_msg(p != NULL, "no metric %s", name);
    long v = atol(p + strlen(needle));
    td_resp_free(&r);
    return v;
}

static double wall_of(const td_daemon *d, const char *id)
{
    cJSON *o = td_job(d, id);
    double w = td_num(cJSON_GetObjectItem(o, "stats"), "wall_seconds");
    cJSON_Delete(o);
    return w;
}

START_TEST(stuck_client_neither_slows_nor_grows)
{
    /* a frame every step: ~12 kB each, far more than a socket buffers */
    char *flood = td_long_job_doc("flood", 0.4, 0.002);
    char alone[64], watched[64];
    td_submit(&sd, flood, alone);
    td_wait_status(&sd, alone, "succeeded", 90);
    td_submit(&sd, flood, watched);
    char *url = stream_url(&sd, watched);
    char path[256];
    int port;
    ck_assert_int_eq(sscanf(url, "ws://127.0.0.1:%d%255s", &port, path), 2);
    int fds[3];
    for (int i = 0; i < 3; i++) fds[i] = stuck_client(port, path);
    long max_pending = 0;
    double end = td_now() + 90;
    for (;;) {
        long pending = metric(&sd, "ndem_stream_pending_bytes");
        if (pending > max_pending) max_pending = pending;
        cJSON *o = td_job(&sd, watched);
        int done = !strcmp(td_str(o, "status"), "succeeded");
        cJSON_Delete(o);
        if (done) break;
        ck_assert_msg(td_now() < end, "the watched job did not finish");
        td_sleep(0.1);
    }
    fprintf(stderr, "stuck clients: at most %ld bytes pending; job %.2f s alone, %.2f s watched\n",
            max_pending, wall_of(&sd, alone), wall_of(&sd, watched));
    /* per client at most one frame and a few small text messages wait */
    ck_assert_int_le(max_pending, 3 * (48 + 24 * 610 + 8 + 64 + 4096));
    double a = wall_of(&sd, alone), w = wall_of(&sd, watched);
    /* a worker that waited on a socket would hang, not run a little slower:
     * the bound is loose because the machine may be busy */
    ck_assert_msg(w < 3 * a + 2, "watched job took %.2f s, alone %.2f s", w, a);
    for (int i = 0; i < 3; i++) close(fds[i]);
    free(url);
    free(flood);
}
END_TEST

static void wait_clients(long n)
{
    double end = td_now() + 10;
    while (metric(&sd, "ndem_stream_clients") != n) {
        ck_assert_msg(td_now() < end, "the daemon does not count %ld stream clients", n);
        td_sleep(0.02);
    }
}

START_TEST(clients_beyond_the_limit_are_refused)
{
    char id[64];
    char *doc = td_job_doc("crowded", 0.05, 0.05);
    td_submit(&sd, doc, id);
    free(doc);
    td_wait_status(&sd, id, "succeeded", 60);
    char *url = stream_url(&sd, id), path[256];
    int port, fds[4];
    ck_assert_int_eq(sscanf(url, "ws://127.0.0.1:%d%255s", &port, path), 2);
    wait_clients(0);
    for (int i = 0; i < 4; i++) fds[i] = stuck_client(port, path);
    wait_clients(4); /* --max-stream-clients 4 */
    static ws_client c;
    ws_open(&c, url);
    ws_until(&c, three_messages, 10);
    ck_assert(c.closed);
    ck_assert_int_eq(c.n, 0);
    ws_close(&c);
    for (int i = 0; i < 4; i++) close(fds[i]);
    wait_clients(0);
    free(url);
}
END_TEST

static Suite *stream_suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("stream");
    tcase_add_unchecked_fixture(tc, stream_start, stream_stop);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, hello_progress_frames_and_status);
    tcase_add_test(tc, unknown_job_is_refused);
    tcase_add_test(tc, named_geometry_on_stream_and_series);
    tcase_add_test(tc, stuck_client_neither_slows_nor_grows);
    tcase_add_test(tc, clients_beyond_the_limit_are_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    lws_set_log_level(LLL_ERR, NULL);
    int rc = ndem_test_run_suite(stream_suite());
    rc = td_exit_code(rc);
    curl_global_cleanup();
    return rc;
}
