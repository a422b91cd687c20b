/* origin.c - the Origin check that stops cross-site requests: a browser
 * names the page's origin in every cross-site POST or DELETE and in every
 * WebSocket handshake, so a page elsewhere cannot cancel or delete jobs or
 * read streams through a user's browser. Clients that are not browsers
 * send no Origin and are not affected. */
#include "origin.h"

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
