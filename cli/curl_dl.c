/* curl_dl.c - libcurl's functions from dlopen (curl_dl.h). */
#include "curl_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* libcurl's soname since 7.16 (CFLAGS=-DNDEM_LIBCURL=... for another) */
#ifndef NDEM_LIBCURL
#define NDEM_LIBCURL "libcurl.so.4"
#endif

/* name in libcurl, and where its address goes in ndem_curl */
static const struct {
    const char *name;
    size_t offset;
} symbols[] = {
    {"curl_global_init", offsetof(ndem_curl, global_init)},
    {"curl_global_cleanup", offsetof(ndem_curl, global_cleanup)},
    {"curl_easy_init", offsetof(ndem_curl, easy_init)},
    {"curl_easy_cleanup", offsetof(ndem_curl, easy_cleanup)},
    {"curl_easy_setopt", offsetof(ndem_curl, easy_setopt)},
    {"curl_easy_perform", offsetof(ndem_curl, easy_perform)},
    {"curl_easy_getinfo", offsetof(ndem_curl, easy_getinfo)},
    {"curl_easy_strerror", offsetof(ndem_curl, easy_strerror)},
    {"curl_slist_append", offsetof(ndem_curl, slist_append)},
    {"curl_slist_free_all", offsetof(ndem_curl, slist_free_all)},
};

int ndem_curl_load(ndem_curl *api, char *err, size_t err_len)
{
    memset(api, 0, sizeof *api);
    api->lib = dlopen(NDEM_LIBCURL, RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        const char *why = dlerror();
        snprintf(err, err_len, "--report needs libcurl (%s): %s", NDEM_LIBCURL,
                 why ? why : "not found");
        return -1;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *f = dlsym(api->lib, symbols[i].name);
        if (!f) {
            snprintf(err, err_len, "--report: %s has no %s", NDEM_LIBCURL, symbols[i].name);
            ndem_curl_unload(api);
            return -1;
        }
        /* POSIX: a function's address from dlsym is stored as a data pointer */
        memcpy((char *)api + symbols[i].offset, &f, sizeof f);
    }
    return 0;
}

void ndem_curl_unload(ndem_curl *api)
{
    if (api->lib) dlclose(api->lib);
    memset(api, 0, sizeof *api);
}
