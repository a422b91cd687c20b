/* raw.h - HTTP over raw sockets for the daemon suites: requests no client
 * library would send (malformed framing, huge heads) and their answers. */
#ifndef NDEM_TESTS_RAW_H
#define NDEM_TESTS_RAW_H

#include "daemon.h"

#include <poll.h>

/* strstr ignoring case (strcasestr is a GNU extension). */
static inline const char *find_ci(const char *s, const char *needle)
{
    size_t n = strlen(needle);
    for (; *s; s++)
        if (!strncasecmp(s, needle, n)) return s;
    return NULL;
}

/* A TCP connection to 127.0.0.1:port from the loopback address `from`
 * (127.0.0.x: every one of them is this machine on Linux). */
static inline int connect_from(const char *from, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    if (from) {
        inet_pton(AF_INET, from, &sa.sin_addr);
        ck_assert_msg(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "bind %s: %s", from,
                      strerror(errno));
    }
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_msg(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect: %s",
                  strerror(errno));
    return fd;
}

/* Sends raw bytes, then reads until the server closes or `wait` s pass
 * without an answer; the answer (malloc'd) and the seconds it took. */
static inline char *raw_exchange(int port, const char *data, size_t len, double wait, double *took)
{
    int fd = connect_from(NULL, port);
    double t0 = td_now();
    ck_assert_int_eq(send(fd, data, len, MSG_NOSIGNAL), (ssize_t)len);
    size_t cap = 65536, n = 0;
    char *out = malloc(cap + 1);
    double end = t0 + wait;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int left = (int)((end - td_now()) * 1000);
        if (left <= 0 || poll(&p, 1, left) <= 0) break;
        ssize_t k = recv(fd, out + n, cap - n, 0);
        if (k <= 0) break;
        n += (size_t)k;
        /* a whole answer: headers and a body of its Content-Length */
        out[n] = 0;
        const char *head_end = strstr(out, "\r\n\r\n"), *cl = find_ci(out, "Content-Length:");
        if (head_end && cl && cl < head_end &&
            n >= (size_t)(head_end + 4 - out) + strtoul(cl + 15, NULL, 10))
            break;
        if (n == cap) break;
    }
    *took = td_now() - t0;
    out[n] = 0;
    close(fd);
    return out;
}

/* The status of a raw answer (0 when there is none) and its body as JSON
 * problem (checked: Content-Type application/problem+json). */
static inline cJSON *raw_problem(const char *answer, int want)
{
    int status = 0;
    sscanf(answer, "HTTP/1.%*d %d", &status);
    ck_assert_msg(status == want, "status %d, wanted %d: %.300s", status, want, answer);
    const char *head_end = strstr(answer, "\r\n\r\n");
    ck_assert_ptr_nonnull(head_end);
    const char *type = find_ci(answer, "Content-Type: ");
    ck_assert_msg(type && type < head_end && !strncmp(type + 14, "application/problem+json", 24),
                  "not problem+json: %.300s", answer);
    cJSON *o = cJSON_Parse(head_end + 4);
    ck_assert_msg(o != NULL, "body not JSON: %s", head_end + 4);
    ck_assert_int_eq((long)td_num(o, "status"), want);
    return o;
}

#endif
