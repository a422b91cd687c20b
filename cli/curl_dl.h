/* curl_dl.h - libcurl loaded at run time (dlopen of libcurl.so.4) for
 * `ndem run --report` only: every other command starts without it and its
 * shared libraries (docs/performance.md: 6 MB of resident memory). The
 * header gives the types and constants; the functions come from the table. */
#ifndef NDEM_CURL_DL_H
#define NDEM_CURL_DL_H

#include <curl/curl.h>
#include <stddef.h>

typedef struct ndem_curl {
    void *lib; /* dlopen handle */
    CURLcode (*global_init)(long flags);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *curl);
    CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *curl);
    CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
} ndem_curl;

/* Loads libcurl.so.4 and its functions into *api: 0, or -1 with the reason
 * (the library or a function missing) in err. */
int ndem_curl_load(ndem_curl *api, char *err, size_t err_len);
void ndem_curl_unload(ndem_curl *api);

#endif
