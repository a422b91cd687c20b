/* origin.c - the Origin check that stops cross-site requests: a browser
 * names the page's origin in every cross-site POST or DELETE and in every
 * WebSocket handshake, so a page elsewhere cannot cancel or delete jobs or
 * read streams through a user's browser. Clients that are not browsers
 * send no Origin and are not affected. The Host check stops DNS
 * rebinding: a page of evil.example whose name is made to resolve to this
 * machine is same-origin to the browser and sends no foreign Origin, but
 * its requests carry "Host: evil.example". */
#include "origin.h"

#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

/* s[0..n) equals an origin, ignoring case and trailing slashes. */
static int same(const char *s, size_t n, const char *origin)
{
    while (n > 0 && (s[n - 1] == '/' || s[n - 1] == ' ')) n--;
    while (n > 0 && s[0] == ' ') s++, n--;
    return n > 0 && strlen(origin) == n && !strncasecmp(s, origin, n);
}

int ndem_origin_allowed(const ndem_config *c, const char *origin)
{
    if (!origin) return 0;
    if ((c->origin[0] && same(c->origin, strlen(c->origin), origin)) ||
        (c->alt_origin[0] && same(c->alt_origin, strlen(c->alt_origin), origin)))
        return 1;
    for (const char *p = c->allow_origin; *p;) {
        size_t k = strcspn(p, ",");
        if (same(p, k, origin)) return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}

/* The host of "host[:port]" or "[v6]:port" into out; 0 when it does not fit. */
static int host_part(const char *s, size_t n, char *out, size_t cap)
{
    while (n > 0 && s[0] == ' ') s++, n--;
    const char *scheme = memchr(s, ':', n);
    if (scheme && scheme + 2 < s + n && scheme[1] == '/' && scheme[2] == '/') {
        n -= (size_t)(scheme + 3 - s);
        s = scheme + 3;
    }
    while (n > 0 && (s[n - 1] == '/' || s[n - 1] == ' ')) n--;
    size_t k = n;
    if (n > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close) return 0;
        s++;
        k = (size_t)(close - s);
    } else {
        const char *colon = memchr(s, ':', n);
        if (colon) k = (size_t)(colon - s);
    }
    if (k == 0 || k >= cap) return 0;
    memcpy(out, s, k);
    out[k] = 0;
    return 1;
}

int ndem_host_allowed(const ndem_config *c, const char *host)
{
    char h[256], a[256];
    unsigned char addr[16];
    if (!host || !host_part(host, strlen(host), h, sizeof h)) return 0;
    if (inet_pton(AF_INET, h, addr) == 1 || inet_pton(AF_INET6, h, addr) == 1) return 1;
    if (!strcasecmp(h, "localhost") || !strcasecmp(h, c->public_host)) return 1;
    for (const char *p = c->allow_origin; *p;) {
        size_t k = strcspn(p, ",");
        if (host_part(p, k, a, sizeof a) && !strcasecmp(h, a)) return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}
