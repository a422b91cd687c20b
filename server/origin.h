/* origin.h - which web origins may change jobs and open streams (origin.c). */
#ifndef NDEM_SERVER_ORIGIN_H
#define NDEM_SERVER_ORIGIN_H

#include "config.h"

/* 1 when an Origin header value names the served origin (--public-url, or
 * http://LISTEN and its localhost twin) or one of --allow-origin. */
int ndem_origin_allowed(const ndem_config *c, const char *origin);

#endif
