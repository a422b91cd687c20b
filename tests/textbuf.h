/* textbuf.h - a growing string, for tests that generate long job documents
 * (meshes written out triangle by triangle). The owner frees t.s. */
#ifndef NDEM_TEST_TEXTBUF_H
#define NDEM_TEST_TEXTBUF_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct test_text {
    char *s;
    size_t len, cap;
} test_text;

/* Appends printf-formatted text; fails the test when out of memory. */
static inline void test_tprintf(test_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void test_tprintf(test_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = 2 * (t->len + (size_t)n + 1);
        t->s = realloc(t->s, t->cap);
        ck_assert_ptr_nonnull(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

#endif
