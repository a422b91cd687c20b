/* gate.h - ndemd's listening socket and the check of every request head
 * before libmicrohttpd sees it (gate.c). libmicrohttpd answers its own
 * errors (bad Content-Length, long request line, large headers, unknown
 * HTTP version) in text/html with no hook to change that; the gate peeks at
 * the head, answers those as application/problem+json itself, and hands
 * every well-formed connection over. */
#ifndef NDEM_SERVER_GATE_H
#define NDEM_SERVER_GATE_H

#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

/* Bytes of a request line, bytes of a whole head (request line and
 * headers) and header fields of one head (docs/api.md). */
enum { NDEM_GATE_LINE_MAX = 8192, NDEM_GATE_HEAD_MAX = 16384, NDEM_GATE_FIELDS_MAX = 100 };

/* ndem_gate_check: the head is not complete yet, or is good to hand over;
 * any other value is the HTTP status of the answer. */
enum { NDEM_GATE_WAIT = 0, NDEM_GATE_PASS = 1 };

typedef struct ndem_gate ndem_gate;

typedef struct ndem_gate_opts {
    long max_body;         /* a Content-Length above this is 413 */
    double head_timeout;   /* seconds a connection may take to send its head */
    long connection_limit; /* connections at once: at the gate and handed over */
    long per_ip_limit;     /* connections waiting at the gate from one address */
    /* Takes a socket whose head passed (it must close it when it fails). */
    void (*hand_over)(void *ctx, int fd, const struct sockaddr *sa, socklen_t len);
    /* Connections held by the server the gate hands over to. */
    long (*held)(void *ctx);
    void *ctx;
} ndem_gate_opts;

/* Listens on sa (port 0: any free port) and starts the gate's thread. NULL
 * with a message in err when it cannot. */
ndem_gate *ndem_gate_start(const struct sockaddr_in *sa, const ndem_gate_opts *opts, char *err,
                           size_t err_len);
/* The port listened on (the real one when 0 was asked for). */
int ndem_gate_port(const ndem_gate *g);
/* Stops listening, closes the connections still at the gate, joins. */
void ndem_gate_stop(ndem_gate *g);

/* The verdict on the n bytes a connection sent so far (full: n is all the
 * gate reads of a head); a status writes its reason into detail. */
int ndem_gate_check(const char *buf, size_t n, int full, size_t max_body, char *detail,
                    size_t detail_len);

#endif
