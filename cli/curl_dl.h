/* curl_dl.h - libcurl loaded at run time (dlopen of libcurl.so.4) for
 * `ndem run --report` only: every other command starts without it and its
 * shared libraries (docs/performance.md: 6 MB of resident memory). The
 * table's type is curl_call.h's, shared with ndemd's slurmrestd client. */
#ifndef NDEM_CURL_DL_H
#define NDEM_CURL_DL_H

#include "curl_call.h"

#include <stddef.h>

/* Loads libcurl.so.4 and its functions into *api: 0, or -1 with the reason
 * (the library or a function missing) in err. */
int ndem_curl_load(ndem_curl *api, char *err, size_t err_len);
void ndem_curl_unload(ndem_curl *api);

#endif
