/* curl_call.h - one HTTP request through libcurl's functions as a table
 * (ndem_curl), shared by `ndem run --report` (cli/report.c, the table from
 * dlopen: cli/curl_dl.c) and ndemd's slurmrestd client
 * (server/slurm_rest.c, the table of the library it links). Only types and
 * constants of <curl/curl.h> are used here, never a libcurl symbol, so
 * whoever links this links no libcurl. */
#ifndef NDEM_CURL_CALL_H
#define NDEM_CURL_CALL_H

#include <curl/curl.h>
#include <stddef.h>

typedef struct ndem_curl {
    void *lib; /* dlopen handle (NULL: linked) */
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

/* An answer's body as it comes: text NUL-terminated (NULL: nothing yet),
 * at most max bytes (0: no bound; more fails the request). The caller
 * frees text. */
typedef struct ndem_curl_answer {
    char *text;
    size_t len, max;
} ndem_curl_answer;

/* Sends method (body NULL: none) to url with headers on handle c, within
 * timeout seconds: the body that comes back is appended to *a, the HTTP
 * status put in *code (0 without one). CURLE_OK, or libcurl's error. */
CURLcode ndem_curl_call(const ndem_curl *api, CURL *c, const char *method, const char *url,
                        struct curl_slist *headers, const char *body, long timeout,
                        ndem_curl_answer *a, long *code);

#endif
