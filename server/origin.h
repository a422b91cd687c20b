/* origin.h - which web origins may change jobs and open streams (origin.c). */
#ifndef NDEM_SERVER_ORIGIN_H
#define NDEM_SERVER_ORIGIN_H

#include "config.h"

/* 1 when an Origin header value names the served origin (--public-url, or
 * http://LISTEN and its localhost twin) or one of --allow-origin. */
int ndem_origin_allowed(const ndem_config *c, const char *origin);

/* 1 when a Host header names this server: an IP address, localhost, the
 * host of --public-url or of an --allow-origin entry. A DNS name that
 * merely resolves here (DNS rebinding) is refused. */
int ndem_host_allowed(const ndem_config *c, const char *host);

#endif
