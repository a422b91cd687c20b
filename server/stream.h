/* stream.h - live WebSocket streams of jobs (stream.c, docs/protocol.md). */
#ifndef NDEM_SERVER_STREAM_H
#define NDEM_SERVER_STREAM_H

#include "ndem.h"

#include <stddef.h>

typedef struct ndem_stream ndem_stream;

/* What the stream asks the rest of the daemon, from its own thread. */
typedef struct ndem_stream_hooks {
    void *ctx;
    /* The job resource as JSON text (malloc'd), or NULL for an unknown id. */
    char *(*describe)(void *ctx, const char *id);
    /* The job's latest stored frame as NDF1 with the stream fields
     * (malloc'd), for late clients of jobs that are not running. */
    void *(*latest_frame)(void *ctx, const char *id, size_t *len);
    /* 1 when a handshake's Origin header may open a stream (pages of other
     * sites may not read jobs through a visitor's browser). */
    int (*origin_ok)(void *ctx, const char *origin);
    /* 0 when the handshake's bearer token (?token= or Authorization:
     * Bearer; NULL when it has none) may open the stream of job id, else
     * the HTTP status it is refused with (401, 404). NULL: anyone may. */
    int (*may_open)(void *ctx, const char *id, const char *token);
} ndem_stream_hooks;

/* At most max_clients clients at once; more are refused (1013, try again). */
ndem_stream *ndem_stream_start(const char *host, int port, long max_clients,
                               const ndem_stream_hooks *hooks, char *err, size_t err_len);
/* Closes every connection and stops the thread. */
void ndem_stream_stop(ndem_stream *s);
/* The port really bound (port 0 asks the system for one). */
int ndem_stream_port(const ndem_stream *s);
long ndem_stream_clients(ndem_stream *s);
/* Bytes of messages queued for clients and not yet handed to a socket. */
size_t ndem_stream_pending_bytes(ndem_stream *s);

/* Called by a worker: a job starts and ends being live; between the two its
 * latest frame is kept for late clients. */
void ndem_stream_begin(ndem_stream *s, const char *id);
void ndem_stream_end(ndem_stream *s, const char *id);
/* Publishes a frame (encoded here with NDEM_FRAME_STREAM fields). */
void ndem_stream_frame(ndem_stream *s, const char *id, const ndem_frame *f, long index);
/* Publishes a JSON text message; progress messages replace unsent older
 * ones, status messages are all delivered. */
void ndem_stream_progress(ndem_stream *s, const char *id, const char *json);
void ndem_stream_status(ndem_stream *s, const char *id, const char *json);

#endif
