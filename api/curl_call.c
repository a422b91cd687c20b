/* curl_call.c - one HTTP request through a table of libcurl's functions
 * (curl_call.h). */
#include "curl_call.h"

#include <stdlib.h>
#include <string.h>

static size_t take(char *data, size_t size, size_t n, void *ctx)
{
    ndem_curl_answer *a = ctx;
    if (a->max && a->len + size * n > a->max) return 0; /* fails the transfer */
    char *grown = realloc(a->text, a->len + size * n + 1);
    if (!grown) return 0;
    memcpy(grown + a->len, data, size * n);
    a->text = grown;
    a->len += size * n;
    a->text[a->len] = 0;
    return size * n;
}

CURLcode ndem_curl_call(const ndem_curl *api, CURL *c, const char *method, const char *url,
                        struct curl_slist *headers, const char *body, long timeout,
                        ndem_curl_answer *a, long *code)
{
    *code = 0;
    api->easy_setopt(c, CURLOPT_URL, url);
    api->easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    api->easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    if (body) {
        api->easy_setopt(c, CURLOPT_POSTFIELDS, body);
        api->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    }
    api->easy_setopt(c, CURLOPT_WRITEFUNCTION, take);
    api->easy_setopt(c, CURLOPT_WRITEDATA, a);
    api->easy_setopt(c, CURLOPT_TIMEOUT, timeout);
    api->easy_setopt(c, CURLOPT_NOSIGNAL, 1L); /* worker threads: no SIGALRM */
    CURLcode rc = api->easy_perform(c);
    api->easy_getinfo(c, CURLINFO_RESPONSE_CODE, code);
    return rc;
}
