/* stream.c - live WebSocket streams (libwebsockets, on its own port).
 *
 * A client connects to ws://HOST:PORT/api/v1/jobs/<id>/stream and gets a
 * hello with the job resource, the job's latest frame, its status, then
 * progress and status text messages and each new frame as one binary NDF1
 * message (docs/protocol.md). libwebsockets runs one service thread; workers
 * only touch shared state under one mutex and wake that thread with
 * lws_cancel_service(), so a step never waits on a socket.
 *
 * Memory stays bounded whatever the clients do. Every message is one
 * reference-counted buffer shared by all clients of a job; each client has
 * a short queue in which a new frame replaces an unsent older frame and a
 * new progress message an unsent older progress message. A slow client thus
 * holds at most one frame besides the one libwebsockets is sending it, and
 * simply misses the frames in between. A handshake whose Origin is not
 * one the daemon serves (--public-url, --allow-origin) is refused; with
 * authentication on, so is one without a valid bearer token (?token= or
 * Authorization: 401) or for a job the token may not see (404). */
#include "stream.h"

#include "frame_bin.h"
#include "http.h"
#include "log.h"

#include <cjson/cJSON.h>
#include <libwebsockets.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE_MAX 16
#define ID_MAX 64
#define NDEM_STREAM_TOKEN_MAX 256 /* bytes of a token or Authorization header we read */

typedef enum { M_HELLO, M_STATUS, M_PROGRESS, M_FRAME } msg_kind;

typedef struct blob {
    int refs;
    int binary;
    size_t len;
    unsigned char data[]; /* LWS_PRE bytes of headroom, then the payload */
} blob;

typedef struct client client;

typedef struct channel {
    struct channel *next;
    char id[ID_MAX];
    int active;   /* a worker runs the job */
    blob *latest; /* its latest frame while active */
    client *clients;
} channel;

/* The per-session data libwebsockets allocates (zeroed) for each client. */
struct client {
    struct lws *wsi;
    channel *ch;
    client *next;
    int n, wake;
    blob *queue[QUEUE_MAX];
    msg_kind kinds[QUEUE_MAX];
};

struct ndem_stream {
    struct lws_context *ctx;
    pthread_t thread;
    pthread_mutex_t lock;
    int stopping;
    long clients, max_clients;
    channel *channels;
    ndem_stream_hooks hooks;
};

static blob *blob_new(size_t len, int binary)
{
    blob *b = malloc(sizeof *b + LWS_PRE + len);
    if (!b) return NULL;
    b->refs = 1;
    b->binary = binary;
    b->len = len;
    return b;
}

static blob *blob_text(const char *text)
{
    size_t n = strlen(text);
    blob *b = blob_new(n, 0);
    if (b) memcpy(b->data + LWS_PRE, text, n);
    return b;
}

/* lock held */
static void blob_unref(blob *b)
{
    if (b && --b->refs == 0) free(b);
}

/* lock held */
static channel *find_channel(ndem_stream *s, const char *id, int create)
{
    for (channel *c = s->channels; c; c = c->next)
        if (!strcmp(c->id, id)) return c;
    if (!create) return NULL;
    channel *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    snprintf(c->id, sizeof c->id, "%s", id);
    c->next = s->channels;
    s->channels = c;
    return c;
}

/* lock held: frees a channel nobody needs any more */
static void maybe_drop_channel(ndem_stream *s, channel *ch)
{
    if (ch->active || ch->clients) return;
    for (channel **p = &s->channels; *p; p = &(*p)->next)
        if (*p == ch) {
            *p = ch->next;
            break;
        }
    blob_unref(ch->latest);
    free(ch);
}

/* lock held: queues b (taking a new reference) for one client */
static void client_push(client *c, blob *b, msg_kind kind)
{
    if (kind == M_FRAME || kind == M_PROGRESS)
        for (int i = 0; i < c->n; i++)
            if (c->kinds[i] == kind) { /* the newest replaces the unsent */
                blob_unref(c->queue[i]);
                memmove(&c->queue[i], &c->queue[i + 1], (size_t)(c->n - i - 1) * sizeof(blob *));
                memmove(&c->kinds[i], &c->kinds[i + 1], (size_t)(c->n - i - 1) * sizeof(msg_kind));
                c->n--;
                break;
            }
    if (c->n == QUEUE_MAX) return; /* only status messages pile up: a stuck client */
    b->refs++;
    c->queue[c->n] = b;
    c->kinds[c->n++] = kind;
    c->wake = 1;
}

static void publish(ndem_stream *s, const char *id, blob *b, msg_kind kind)
{
    if (!b) return;
    pthread_mutex_lock(&s->lock);
    channel *ch = find_channel(s, id, 0);
    int any = 0;
    if (ch) {
        for (client *c = ch->clients; c; c = c->next, any = 1) client_push(c, b, kind);
        if (kind == M_FRAME && ch->active) {
            blob_unref(ch->latest);
            ch->latest = b;
            b->refs++;
        }
    }
    blob_unref(b);
    pthread_mutex_unlock(&s->lock);
    if (any) lws_cancel_service(s->ctx);
}

void ndem_stream_frame(ndem_stream *s, const char *id, const ndem_frame *f, long index)
{
    size_t n = ndem_frame_bin_size(f, NDEM_FRAME_STREAM);
    blob *b = blob_new(n, 1);
    if (!b) return;
    ndem_frame_bin_encode(f, index, NDEM_FRAME_STREAM, b->data + LWS_PRE);
    publish(s, id, b, M_FRAME);
}

void ndem_stream_progress(ndem_stream *s, const char *id, const char *json)
{
    publish(s, id, blob_text(json), M_PROGRESS);
}

void ndem_stream_status(ndem_stream *s, const char *id, const char *json)
{
    publish(s, id, blob_text(json), M_STATUS);
}

void ndem_stream_begin(ndem_stream *s, const char *id)
{
    pthread_mutex_lock(&s->lock);
    channel *ch = find_channel(s, id, 1);
    if (ch) ch->active = 1;
    pthread_mutex_unlock(&s->lock);
}

void ndem_stream_end(ndem_stream *s, const char *id)
{
    pthread_mutex_lock(&s->lock);
    channel *ch = find_channel(s, id, 0);
    if (ch) {
        ch->active = 0;
        blob_unref(ch->latest);
        ch->latest = NULL;
        maybe_drop_channel(s, ch);
    }
    pthread_mutex_unlock(&s->lock);
}

long ndem_stream_clients(ndem_stream *s)
{
    pthread_mutex_lock(&s->lock);
    long n = s->clients;
    pthread_mutex_unlock(&s->lock);
    return n;
}

size_t ndem_stream_pending_bytes(ndem_stream *s)
{
    size_t bytes = 0;
    pthread_mutex_lock(&s->lock);
    for (channel *ch = s->channels; ch; ch = ch->next)
        for (client *c = ch->clients; c; c = c->next)
            for (int i = 0; i < c->n; i++) bytes += c->queue[i]->len;
    pthread_mutex_unlock(&s->lock);
    return bytes;
}

/* "/api/v1/jobs/<id>/stream" -> id; 0 when the path is something else. */
static int job_of_path(const char *path, char *id, size_t len)
{
    static const char prefix[] = "/api/v1/jobs/", suffix[] = "/stream";
    size_t n = strlen(path), p = sizeof prefix - 1, q = sizeof suffix - 1;
    if (n <= p + q || strncmp(path, prefix, p) || strcmp(path + n - q, suffix)) return 0;
    size_t k = n - p - q;
    if (k >= len) return 0;
    for (size_t i = 0; i < k; i++)
        if (!((path[p + i] >= '0' && path[p + i] <= '9') ||
              (path[p + i] >= 'a' && path[p + i] <= 'z')))
            return 0;
    memcpy(id, path + p, k);
    id[k] = 0;
    return 1;
}

/* The job's status message from its resource text (NULL when out of memory);
 * *status gets the status name. */
static blob *status_blob(const char *id, const char *resource, char *status, size_t len)
{
    cJSON *res = cJSON_Parse(resource), *msg = cJSON_CreateObject();
    const cJSON *st = cJSON_GetObjectItem(res, "status"), *er = cJSON_GetObjectItem(res, "error");
    snprintf(status, len, "%s", cJSON_IsString(st) ? st->valuestring : "unknown");
    cJSON_AddStringToObject(msg, "type", "status");
    cJSON_AddStringToObject(msg, "job", id);
    cJSON_AddStringToObject(msg, "status", status);
    if (cJSON_IsString(er)) cJSON_AddStringToObject(msg, "error", er->valuestring);
    char *text = cJSON_PrintUnformatted(msg);
    cJSON_Delete(res);
    cJSON_Delete(msg);
    blob *b = text ? blob_text(text) : NULL;
    free(text);
    return b;
}

/* The job's latest stored frame (for jobs not running), or NULL. */
static blob *disk_frame(ndem_stream *s, const char *id)
{
    size_t len = 0;
    void *bin = s->hooks.latest_frame(s->hooks.ctx, id, &len);
    blob *b = bin ? blob_new(len, 1) : NULL;
    if (b) memcpy(b->data + LWS_PRE, bin, len);
    free(bin);
    return b;
}

static int on_established(ndem_stream *s, client *c, struct lws *wsi)
{
    char path[256] = "", id[ID_MAX], status[32], now[32];
    if (lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI) < 0 ||
        !job_of_path(path, id, sizeof id)) {
        ndem_log("stream: refused %s: not a job stream", path);
        lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, (unsigned char *)"no such stream",
                         14);
        return -1;
    }
    pthread_mutex_lock(&s->lock);
    int full = s->clients >= s->max_clients;
    pthread_mutex_unlock(&s->lock);
    if (full) { /* every client may hold a frame: their number is the bound */
        ndem_log("stream: refused job %s: %ld clients already", id, s->max_clients);
        lws_close_reason(wsi, (enum lws_close_status)1013 /* try again later */,
                         (unsigned char *)"too many clients", 16);
        return -1;
    }
    char *resource = s->hooks.describe(s->hooks.ctx, id);
    if (!resource) {
        ndem_log("stream: refused job %s: unknown", id);
        lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, (unsigned char *)"unknown job",
                         11);
        return -1;
    }
    size_t n = strlen(resource) + 32;
    char *hello = malloc(n);
    if (hello) snprintf(hello, n, "{\"type\":\"hello\",\"job\":%s}", resource);
    blob *hb = hello ? blob_text(hello) : NULL;
    blob *sb = status_blob(id, resource, status, sizeof status);
    free(hello);
    free(resource);
    pthread_mutex_lock(&s->lock);
    channel *ch = find_channel(s, id, 0);
    int running = ch && ch->latest;
    pthread_mutex_unlock(&s->lock);
    blob *disk = running ? NULL : disk_frame(s, id);
    pthread_mutex_lock(&s->lock);
    ch = hb && sb ? find_channel(s, id, 1) : NULL; /* it may have come or gone meanwhile */
    if (ch) {
        /* hello, the latest frame, the current status; from here on the
         * worker's messages reach this client too */
        c->wsi = wsi;
        c->ch = ch;
        c->next = ch->clients;
        ch->clients = c;
        s->clients++;
        client_push(c, hb, M_HELLO);
        if (ch->latest || disk) client_push(c, ch->latest ? ch->latest : disk, M_FRAME);
        client_push(c, sb, M_STATUS);
    }
    blob_unref(hb);
    blob_unref(sb);
    blob_unref(disk);
    pthread_mutex_unlock(&s->lock);
    if (!ch) return -1;
    /* A job that ended between the look-up and the registration published
     * its last frame and status to nobody: look again, and send them. */
    resource = s->hooks.describe(s->hooks.ctx, id);
    sb = resource ? status_blob(id, resource, now, sizeof now) : NULL;
    free(resource);
    if (sb && strcmp(now, status) && strcmp(now, "running") && strcmp(now, "queued")) {
        disk = disk_frame(s, id);
        pthread_mutex_lock(&s->lock);
        if (disk) client_push(c, disk, M_FRAME);
        client_push(c, sb, M_STATUS);
        blob_unref(disk);
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_lock(&s->lock);
    blob_unref(sb);
    pthread_mutex_unlock(&s->lock);
    ndem_log("stream: client for job %s", id);
    lws_callback_on_writable(wsi);
    return 0;
}

static void on_closed(ndem_stream *s, client *c)
{
    pthread_mutex_lock(&s->lock);
    if (c->ch) {
        for (client **p = &c->ch->clients; *p; p = &(*p)->next)
            if (*p == c) {
                *p = c->next;
                break;
            }
        s->clients--;
        for (int i = 0; i < c->n; i++) blob_unref(c->queue[i]);
        c->n = 0;
        maybe_drop_channel(s, c->ch);
        c->ch = NULL;
    }
    pthread_mutex_unlock(&s->lock);
}

static int on_writable(ndem_stream *s, client *c, struct lws *wsi)
{
    pthread_mutex_lock(&s->lock);
    blob *b = NULL;
    if (c->n > 0) {
        b = c->queue[0];
        memmove(&c->queue[0], &c->queue[1], (size_t)(c->n - 1) * sizeof(blob *));
        memmove(&c->kinds[0], &c->kinds[1], (size_t)(c->n - 1) * sizeof(msg_kind));
        c->n--;
    }
    int more = c->n > 0;
    pthread_mutex_unlock(&s->lock);
    if (!b) return 0;
    /* only this thread writes into the headroom of shared buffers */
    int len = (int)b->len;
    int rc =
        lws_write(wsi, b->data + LWS_PRE, b->len, b->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
    pthread_mutex_lock(&s->lock);
    blob_unref(b);
    pthread_mutex_unlock(&s->lock);
    if (rc < len) return -1;
    if (more) lws_callback_on_writable(wsi);
    return 0;
}

/* Before the handshake is answered, with authentication on: a bearer token
 * as ?token= (browsers cannot set headers on a WebSocket) or in an
 * Authorization header, for a job the token may see; else 401 or 404. */
static int access_refused(ndem_stream *s, struct lws *wsi)
{
    char path[256] = "", id[ID_MAX], query[NDEM_STREAM_TOKEN_MAX] = "",
         header[NDEM_STREAM_TOKEN_MAX];
    if (!s->hooks.may_open) return 0;
    if (lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI) < 0 ||
        !job_of_path(path, id, sizeof id))
        return 0; /* refused once established (not a job stream) */
    const char *token = lws_get_urlarg_by_name(wsi, "token=", query, sizeof query);
    if (!token && lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_AUTHORIZATION) > 0 &&
        lws_hdr_copy(wsi, header, sizeof header, WSI_TOKEN_HTTP_AUTHORIZATION) > 0)
        token = ndem_http_bearer(header);
    int status = s->hooks.may_open(s->hooks.ctx, id, token);
    if (!status) return 0;
    ndem_log("stream: refused job %s: %s", id,
             status == 401 ? "no valid token" : "unknown, or another owner's");
    lws_return_http_status(wsi, (unsigned)status,
                           status == 401 ? "a valid bearer token is needed (?token=)"
                                         : "no such job");
    return 1;
}

/* Before the handshake is answered: a browser names the page's origin, and
 * a page of another site must not read jobs through its visitor (clients
 * that are not browsers send no Origin). Refused handshakes get 403. */
static int origin_refused(ndem_stream *s, struct lws *wsi)
{
    char origin[512] = "";
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN);
    if (n <= 0 || !s->hooks.origin_ok) return 0;
    if (n >= (int)sizeof origin || lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) < 0 ||
        !s->hooks.origin_ok(s->hooks.ctx, origin)) {
        ndem_log("stream: refused a handshake from origin '%.100s'", origin);
        lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, "origin not allowed");
        return 1;
    }
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    ndem_stream *s = lws_context_user(lws_get_context(wsi));
    client *c = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return origin_refused(s, wsi) || access_refused(s, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        return on_established(s, c, wsi);
    case LWS_CALLBACK_CLOSED:
        on_closed(s, c);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return on_writable(s, c, wsi);
    case LWS_CALLBACK_RECEIVE:
        return 0; /* clients have nothing to say */
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        pthread_mutex_lock(&s->lock);
        for (channel *ch = s->channels; ch; ch = ch->next)
            for (client *k = ch->clients; k; k = k->next)
                if (k->wake) {
                    k->wake = 0;
                    lws_callback_on_writable(k->wsi);
                }
        pthread_mutex_unlock(&s->lock);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols protocols[] = {
    {"ndem-stream", callback, sizeof(client), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void *service_main(void *arg)
{
    ndem_stream *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        int stop = s->stopping;
        pthread_mutex_unlock(&s->lock);
        if (stop || lws_service(s->ctx, 0) < 0) break;
    }
    return NULL;
}

ndem_stream *ndem_stream_start(const char *host, int port, long max_clients,
                               const ndem_stream_hooks *hooks, char *err, size_t err_len)
{
    ndem_stream *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    s->hooks = *hooks;
    s->max_clients = max_clients;
    pthread_mutex_init(&s->lock, NULL);
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = port;
    /* lws takes an interface name or an address; "0.0.0.0" means all */
    info.iface = host[0] && strcmp(host, "0.0.0.0") ? host : NULL;
    info.protocols = protocols;
    info.user = s;
    info.gid = (gid_t)-1;
    info.uid = (uid_t)-1;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
    s->ctx = lws_create_context(&info);
    if (!s->ctx) {
        snprintf(err, err_len, "cannot listen for streams on %s:%d", host, port);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    if (pthread_create(&s->thread, NULL, service_main, s)) {
        snprintf(err, err_len, "cannot start the stream thread");
        lws_context_destroy(s->ctx);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    return s;
}

int ndem_stream_port(const ndem_stream *s)
{
    struct lws_vhost *vh = lws_get_vhost_by_name(s->ctx, "default");
    return vh ? lws_get_vhost_listen_port(vh) : -1;
}

void ndem_stream_stop(ndem_stream *s)
{
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_mutex_unlock(&s->lock);
    lws_cancel_service(s->ctx);
    pthread_join(s->thread, NULL);
    lws_context_destroy(s->ctx); /* closes every client (on_closed) */
    while (s->channels) {
        channel *ch = s->channels;
        s->channels = ch->next;
        blob_unref(ch->latest);
        free(ch);
    }
    pthread_mutex_destroy(&s->lock);
    free(s);
}
