/* gate.c - the listening socket of ndemd's HTTP API (gate.h). One thread
 * accepts connections and keeps each in an epoll set until its request head
 * is in: it only peeks (MSG_PEEK), so a good connection goes to
 * libmicrohttpd with every byte still unread, and a bad one is answered
 * here with application/problem+json and closed. Slow clients are bounded
 * as in libmicrohttpd: a head deadline (--head-timeout), and caps on the
 * connections in total (with those already handed over) and per address;
 * past them a connection is closed without an answer. */
#define _GNU_SOURCE /* accept4: the flags in the same call as the accept */
#include "gate.h"

#include "http.h"
#include "log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

enum { TAG_LISTEN = 0, TAG_WAKE = 1, TAG_SLOT = 2 }; /* epoll data: slot i is TAG_SLOT + i */

/* After an answer the gate reads what the client still sends (up to this
 * long) before closing: closing with unread bytes would reset the
 * connection, and the client could lose the answer. */
#define LINGER_SECONDS 2.0
#define SWEEP_SECONDS 0.25

typedef struct slot {
    int fd; /* -1: free */
    int answered;
    double deadline;
    struct sockaddr_in addr;
} slot;

struct ndem_gate {
    ndem_gate_opts o;
    int listen_fd, epoll_fd, wake_fd, port;
    int paused; /* out of descriptors: accepting resumes at the next sweep */
    pthread_t thread;
    atomic_int stop;
    slot *slots;
    int *free_slots;
    long cap, nfree;
    char buf[NDEM_GATE_HEAD_MAX];
};

/* ---- the check of a head ---- */

static int fail(char *detail, size_t len, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *detail, size_t len, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, len, fmt, ap);
    va_end(ap);
    return status;
}

/* The next line of [p, end): its length without CR LF, or -1 when its LF
 * has not arrived. */
static long line_len(const char *p, const char *end, const char **next)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return -1;
    *next = nl + 1;
    return nl > p && nl[-1] == '\r' ? nl - p - 1 : nl - p;
}

/* A header value without the spaces and tabs around it. */
static const char *trim(const char *v, int *n)
{
    while (*n > 0 && (*v == ' ' || *v == '\t')) v++, (*n)--;
    while (*n > 0 && (v[*n - 1] == ' ' || v[*n - 1] == '\t')) (*n)--;
    return v;
}

/* A Content-Length value: digits only (saturating), else -1. */
static int parse_length(const char *v, size_t n, uint64_t *out)
{
    if (!n) return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9') return -1;
        unsigned d = (unsigned)(v[i] - '0');
        x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
    }
    *out = x;
    return 0;
}

int ndem_gate_check(const char *buf, size_t n, int full, size_t max_body, char *detail, size_t dlen)
{
    const char *p = buf, *end = buf + n, *next;
    while (p < end && (*p == '\r' || *p == '\n')) /* blank lines before a request are allowed */
        p++;
    long l = line_len(p, end, &next);
    if (l < 0 ? end - p > NDEM_GATE_LINE_MAX || full : l > NDEM_GATE_LINE_MAX)
        return fail(detail, dlen, 414, "the request line is longer than %d bytes",
                    NDEM_GATE_LINE_MAX);
    if (l < 0) return NDEM_GATE_WAIT;
    const char *sp = memchr(p, ' ', (size_t)l), *version = p + l;
    while (version > p && version[-1] != ' ') version--;
    int vlen = (int)(p + l - version);
    if (!sp || version - 1 == sp)
        return fail(detail, dlen, 400, "the request line is not METHOD TARGET HTTP/1.x");
    if (vlen < 5 || strncmp(version, "HTTP/", 5))
        return fail(detail, dlen, 400, "the request line ends in '%.*s', not HTTP/1.x",
                    vlen > 40 ? 40 : vlen, version);
    if (vlen != 8 || (strncmp(version + 5, "1.1", 3) && strncmp(version + 5, "1.0", 3)))
        return fail(detail, dlen, 505, "%.*s is not supported: send HTTP/1.1 or HTTP/1.0",
                    vlen > 40 ? 40 : vlen, version);
    uint64_t length = 0;
    int lengths = 0, fields = 0;
    const char *length_text = NULL;
    int length_text_len = 0;
    for (p = next;; p = next) {
        l = line_len(p, end, &next);
        if (l < 0) {
            if (!full) return NDEM_GATE_WAIT;
            return fail(detail, dlen, 431, "the request head is longer than %d bytes",
                        NDEM_GATE_HEAD_MAX);
        }
        if (l == 0) break; /* the end of the head */
        if (++fields > NDEM_GATE_FIELDS_MAX)
            return fail(detail, dlen, 431, "the request has more than %d header fields",
                        NDEM_GATE_FIELDS_MAX);
        if (l < 15 || strncasecmp(p, "Content-Length:", 15)) continue;
        int value_len = (int)l - 15;
        const char *value = trim(p + 15, &value_len);
        uint64_t v;
        if (parse_length(value, (size_t)value_len, &v))
            return fail(detail, dlen, 400, "Content-Length '%.*s' is not a number of bytes",
                        value_len > 40 ? 40 : value_len, value);
        if (lengths++ && v != length)
            return fail(detail, dlen, 400, "the request has Content-Length headers that differ");
        length = v;
        length_text = value;
        length_text_len = value_len;
    }
    if (lengths && length > max_body) {
        snprintf(detail, dlen, "the body is %.*s bytes; the limit is %zu",
                 length_text_len > 40 ? 40 : length_text_len, length_text, max_body);
        return 413;
    }
    return NDEM_GATE_PASS;
}

/* ---- connections at the gate ---- */

static void drop(ndem_gate *g, long i, int close_it)
{
    slot *s = &g->slots[i];
    epoll_ctl(g->epoll_fd, EPOLL_CTL_DEL, s->fd, NULL);
    if (close_it) close(s->fd);
    s->fd = -1;
    g->free_slots[g->nfree++] = (int)i;
}

/* Writes the problem (the socket is fresh: its buffer takes it at once),
 * then waits for the client's FIN (lingering close). */
static void answer(ndem_gate *g, long i, int status, const char *detail)
{
    slot *s = &g->slots[i];
    char *body = ndem_http_problem_text(status, NULL, detail);
    size_t blen = body ? strlen(body) : 0;
    char head[256];
    int hlen = snprintf(head, sizeof head,
                        "HTTP/1.1 %d %s\r\nContent-Type: application/problem+json\r\n"
                        "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                        status, ndem_http_status_title(status), blen);
    struct iovec iov[2] = {{head, (size_t)hlen}, {body, blen}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = body ? 2 : 1};
    sendmsg(s->fd, &m, MSG_NOSIGNAL);
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &s->addr.sin_addr, ip, sizeof ip);
    ndem_log("http (gate) %s %d %zu: %s", ip, status, blen, detail);
    free(body);
    shutdown(s->fd, SHUT_WR);
    s->answered = 1;
    s->deadline = ndem_mono() + LINGER_SECONDS;
}

/* New bytes (or a hang-up) on slot i. */
static void examine(ndem_gate *g, long i, uint32_t events)
{
    slot *s = &g->slots[i];
    if (s->answered) { /* discard until the client closes; a bounded share per event */
        ssize_t k = 0;
        for (int r = 0; r < 16 && (k = recv(s->fd, g->buf, sizeof g->buf, 0)) > 0; r++) {
        }
        if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) drop(g, i, 1);
        return;
    }
    ssize_t n = recv(s->fd, g->buf, sizeof g->buf, MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
        drop(g, i, 1);
        return;
    }
    char detail[256];
    int v = ndem_gate_check(g->buf, (size_t)n, n == (ssize_t)sizeof g->buf, (size_t)g->o.max_body,
                            detail, sizeof detail);
    if (v == NDEM_GATE_PASS) {
        int fd = s->fd;
        struct sockaddr_in addr = s->addr;
        drop(g, i, 0);
        g->o.hand_over(g->o.ctx, fd, (const struct sockaddr *)&addr, sizeof addr);
    } else if (v != NDEM_GATE_WAIT) {
        answer(g, i, v, detail);
        examine(g, i, 0); /* the peeked bytes: no new edge will report them */
    } else if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
        drop(g, i, 1); /* the head can no longer come */
    }
}

static long from_address(const ndem_gate *g, const struct sockaddr_in *a)
{
    long n = 0;
    for (long i = 0; i < g->cap; i++)
        n += g->slots[i].fd >= 0 && g->slots[i].addr.sin_addr.s_addr == a->sin_addr.s_addr;
    return n;
}

static void accept_all(ndem_gate *g)
{
    for (;;) {
        struct sockaddr_in a;
        socklen_t alen = sizeof a;
        int fd = accept4(g->listen_fd, (struct sockaddr *)&a, &alen, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* the listening socket stays readable: stop watching it */
                struct epoll_event ev = {0, {.u64 = TAG_LISTEN}};
                epoll_ctl(g->epoll_fd, EPOLL_CTL_MOD, g->listen_fd, &ev);
                g->paused = 1;
                ndem_log("http (gate): accept: %s: paused for %.2f s", strerror(errno),
                         SWEEP_SECONDS);
            }
            return;
        }
        long waiting = g->cap - g->nfree;
        if (!g->nfree || a.sin_family != AF_INET ||
            waiting + g->o.held(g->o.ctx) >= g->o.connection_limit ||
            from_address(g, &a) >= g->o.per_ip_limit) {
            close(fd); /* as libmicrohttpd does past its limits */
            continue;
        }
        long i = g->free_slots[--g->nfree];
        slot *s = &g->slots[i];
        *s = (slot){fd, 0, ndem_mono() + g->o.head_timeout, a};
        /* edge-triggered: peeked bytes stay readable, and only new ones
         * should wake the gate again */
        struct epoll_event ev = {EPOLLIN | EPOLLRDHUP | EPOLLET, {.u64 = TAG_SLOT + (uint64_t)i}};
        if (epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, fd, &ev)) drop(g, i, 1);
    }
}

/* Closes every connection past its deadline (a head too slow, or a client
 * that does not close after an answer). */
static void sweep(ndem_gate *g, double now)
{
    for (long i = 0; i < g->cap; i++)
        if (g->slots[i].fd >= 0 && now >= g->slots[i].deadline) drop(g, i, 1);
    if (g->paused) {
        struct epoll_event ev = {EPOLLIN, {.u64 = TAG_LISTEN}};
        epoll_ctl(g->epoll_fd, EPOLL_CTL_MOD, g->listen_fd, &ev);
        g->paused = 0;
    }
}

static void *gate_main(void *arg)
{
    ndem_gate *g = arg;
    struct epoll_event evs[64];
    double next_sweep = ndem_mono() + SWEEP_SECONDS;
    while (!atomic_load(&g->stop)) {
        int wait_ms = (int)((next_sweep - ndem_mono()) * 1e3) + 1;
        int n = epoll_wait(g->epoll_fd, evs, 64, wait_ms > 0 ? wait_ms : 0);
        for (int k = 0; k < n; k++) {
            uint64_t tag = evs[k].data.u64;
            if (tag == TAG_LISTEN) accept_all(g);
            else if (tag >= TAG_SLOT && g->slots[tag - TAG_SLOT].fd >= 0)
                examine(g, (long)(tag - TAG_SLOT), evs[k].events);
        }
        double now = ndem_mono();
        if (now >= next_sweep) {
            sweep(g, now);
            next_sweep = now + SWEEP_SECONDS;
        }
    }
    return NULL;
}

static void destroy(ndem_gate *g)
{
    for (long i = 0; g->slots && i < g->cap; i++)
        if (g->slots[i].fd >= 0) close(g->slots[i].fd);
    if (g->listen_fd >= 0) close(g->listen_fd);
    if (g->epoll_fd >= 0) close(g->epoll_fd);
    if (g->wake_fd >= 0) close(g->wake_fd);
    free(g->slots);
    free(g->free_slots);
    free(g);
}

ndem_gate *ndem_gate_start(const struct sockaddr_in *sa, const ndem_gate_opts *opts, char *err,
                           size_t err_len)
{
    ndem_gate *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    g->o = *opts;
    g->cap = opts->connection_limit;
    g->listen_fd = g->epoll_fd = g->wake_fd = -1;
    g->slots = malloc((size_t)g->cap * sizeof *g->slots);
    g->free_slots = malloc((size_t)g->cap * sizeof *g->free_slots);
    if (!g->slots || !g->free_slots) {
        snprintf(err, err_len, "out of memory");
        destroy(g);
        return NULL;
    }
    for (long i = 0; i < g->cap; i++) {
        g->slots[i].fd = -1;
        g->free_slots[g->nfree++] = (int)(g->cap - 1 - i);
    }
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof ip);
    int one = 1;
    g->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (g->listen_fd < 0 || setsockopt(g->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(g->listen_fd, (const struct sockaddr *)sa, sizeof *sa) || listen(g->listen_fd, 1024)) {
        snprintf(err, err_len, "cannot listen on %s:%d: %s", ip, ntohs(sa->sin_port),
                 strerror(errno));
        destroy(g);
        return NULL;
    }
    struct sockaddr_in bound;
    socklen_t blen = sizeof bound;
    getsockname(g->listen_fd, (struct sockaddr *)&bound, &blen);
    g->port = ntohs(bound.sin_port);
    g->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    g->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event lev = {EPOLLIN, {.u64 = TAG_LISTEN}}, wev = {EPOLLIN, {.u64 = TAG_WAKE}};
    if (g->epoll_fd < 0 || g->wake_fd < 0 ||
        epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, g->listen_fd, &lev) ||
        epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, g->wake_fd, &wev) ||
        pthread_create(&g->thread, NULL, gate_main, g)) {
        snprintf(err, err_len, "cannot start the HTTP gate: %s", strerror(errno));
        destroy(g);
        return NULL;
    }
    return g;
}

int ndem_gate_port(const ndem_gate *g) { return g->port; }

void ndem_gate_stop(ndem_gate *g)
{
    if (!g) return;
    atomic_store(&g->stop, 1);
    uint64_t one = 1;
    if (write(g->wake_fd, &one, sizeof one) < 0) { /* the loop still ends within a sweep */
    }
    pthread_join(g->thread, NULL);
    destroy(g);
}
