/* fail.h (internal) - the one way core/ and api/ parsers write an error
 * message into a caller's buffer and fail. */
#ifndef NDEM_FAIL_H
#define NDEM_FAIL_H

#include <stdarg.h>
#include <stdio.h>

/* Formats the message into err (when given) and returns -1. */
static inline int ndem_fail(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int ndem_fail(char *err, size_t err_len, const char *fmt, ...)
{
    if (err && err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#endif
