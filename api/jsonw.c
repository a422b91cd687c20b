/* jsonw.c - the JSON text writer of api/ (see jsonw.h). */
#include "jsonw.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ndem_jw_init(ndem_jw *w, int pretty)
{
    memset(w, 0, sizeof *w);
    w->pretty = pretty;
}

int ndem_jw_reserve(ndem_jw *w, size_t extra)
{
    if (w->failed) return -1;
    if (extra < w->cap - w->len) return 0; /* one byte always stays free for the final NUL */
    size_t cap = w->cap ? w->cap : 256;
    while (cap - w->len <= extra) {
        if (cap > SIZE_MAX / 2) {
            w->failed = 1;
            return -1;
        }
        cap *= 2;
    }
    char *b = realloc(w->buf, cap);
    if (!b) {
        w->failed = 1;
        return -1;
    }
    w->buf = b;
    w->cap = cap;
    return 0;
}

void ndem_jw_raw(ndem_jw *w, const char *s, size_t n)
{
    if (ndem_jw_reserve(w, n) != 0) return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static void jw_char(ndem_jw *w, char c)
{
    if (ndem_jw_reserve(w, 1) != 0) return;
    w->buf[w->len++] = c;
}

static void jw_newline(ndem_jw *w, int depth)
{
    if (ndem_jw_reserve(w, 1 + 2 * (size_t)depth) != 0) return;
    w->buf[w->len++] = '\n';
    memset(w->buf + w->len, ' ', 2 * (size_t)depth);
    w->len += 2 * (size_t)depth;
}

/* Comma and line break (or space) before the next item of the open container. */
static void jw_separator(ndem_jw *w)
{
    int d = w->depth;
    if (d == 0) return;
    int first = w->first[d];
    w->first[d] = 0;
    if (!first) jw_char(w, ',');
    if (w->pretty && !w->inl[d]) jw_newline(w, d);
    else if (!first) jw_char(w, ' ');
}

void ndem_jw_begin(ndem_jw *w, char open, int inl)
{
    jw_char(w, open);
    if (w->depth + 1 >= NDEM_JW_MAX_DEPTH) {
        w->failed = 1; /* the writers in api/ never nest this deep */
        return;
    }
    int d = ++w->depth;
    w->first[d] = 1;
    w->inl[d] = (unsigned char)(inl || w->inl[d - 1]);
    w->close[d] = open == '{' ? '}' : ']';
}

void ndem_jw_end(ndem_jw *w)
{
    int d = w->depth;
    if (d == 0) {
        w->failed = 1;
        return;
    }
    if (w->pretty && !w->inl[d] && !w->first[d]) jw_newline(w, d - 1);
    jw_char(w, w->close[d]);
    w->depth--;
}

void ndem_jw_next(ndem_jw *w) { jw_separator(w); }

void ndem_jw_key(ndem_jw *w, const char *key)
{
    jw_separator(w);
    ndem_jw_string(w, key);
    ndem_jw_raw(w, ": ", 2);
}

int ndem_jw_utf8_len(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    /* A NUL fails the continuation test, so this never reads past it. */
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

void ndem_jw_string(ndem_jw *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    jw_char(w, '"');
    const char *run = s; /* bytes copied as they are, flushed in one go */
    while (*s) {
        unsigned char c = (unsigned char)*s;
        const char *esc = NULL;
        char ubuf[7];
        int n = 1;
        if (c == '"') esc = "\\\"";
        else if (c == '\\') esc = "\\\\";
        else if (c == '\n') esc = "\\n";
        else if (c == '\t') esc = "\\t";
        else if (c == '\r') esc = "\\r";
        else if (c < 0x20) {
            memcpy(ubuf, "\\u00", 4);
            ubuf[4] = hex[c >> 4];
            ubuf[5] = hex[c & 15];
            ubuf[6] = '\0';
            esc = ubuf;
        } else if (c >= 0x80) {
            n = ndem_jw_utf8_len(s);
            if (n == 0) {
                esc = "\\ufffd"; /* keep the output valid UTF-8 */
                n = 1;
            }
        }
        if (esc) {
            ndem_jw_raw(w, run, (size_t)(s - run));
            ndem_jw_raw(w, esc, strlen(esc));
            s += n;
            run = s;
        } else {
            s += n;
        }
    }
    ndem_jw_raw(w, run, (size_t)(s - run));
    jw_char(w, '"');
}

void ndem_jw_number(ndem_jw *w, double x)
{
    char b[NDEM_JW_NUM_MAX];
    size_t n = ndem_jw_format_exact(b, x);
    ndem_jw_raw(w, b, n);
}

void ndem_jw_long(ndem_jw *w, long long v)
{
    char b[NDEM_JW_NUM_MAX];
    int n = snprintf(b, sizeof b, "%lld", v);
    ndem_jw_raw(w, b, (size_t)n);
}

void ndem_jw_bool(ndem_jw *w, int b)
{
    if (b) ndem_jw_raw(w, "true", 4);
    else ndem_jw_raw(w, "false", 5);
}

void ndem_jw_null(ndem_jw *w) { ndem_jw_raw(w, "null", 4); }

void ndem_jw_vec(ndem_jw *w, const double *v, int n)
{
    ndem_jw_begin(w, '[', 1);
    for (int i = 0; i < n; i++) {
        ndem_jw_next(w);
        ndem_jw_number(w, v[i]);
    }
    ndem_jw_end(w);
}

void ndem_jw_vec3(ndem_jw *w, const double v[3]) { ndem_jw_vec(w, v, 3); }

void ndem_jw_kstring(ndem_jw *w, const char *key, const char *s)
{
    ndem_jw_key(w, key);
    ndem_jw_string(w, s);
}

void ndem_jw_knumber(ndem_jw *w, const char *key, double x)
{
    ndem_jw_key(w, key);
    ndem_jw_number(w, x);
}

void ndem_jw_klong(ndem_jw *w, const char *key, long long v)
{
    ndem_jw_key(w, key);
    ndem_jw_long(w, v);
}

void ndem_jw_kbool(ndem_jw *w, const char *key, int b)
{
    ndem_jw_key(w, key);
    ndem_jw_bool(w, b);
}

void ndem_jw_kvec3(ndem_jw *w, const char *key, const double v[3])
{
    ndem_jw_key(w, key);
    ndem_jw_vec3(w, v);
}

void ndem_jw_kquat(ndem_jw *w, const char *key, const double q[4])
{
    ndem_jw_key(w, key);
    ndem_jw_vec(w, q, 4);
}

char *ndem_jw_finish(ndem_jw *w)
{
    if (w->failed || w->depth != 0 || ndem_jw_reserve(w, 1) != 0) {
        free(w->buf);
        memset(w, 0, sizeof *w);
        return NULL;
    }
    w->buf[w->len] = '\0';
    char *out = w->buf;
    memset(w, 0, sizeof *w);
    return out;
}

size_t ndem_jw_format_exact(char *dst, double x)
{
    if (!isfinite(x)) {
        memcpy(dst, "null", 5);
        return 4;
    }
    if (x == 0.0) { /* keep the sign of zero */
        const char *z = signbit(x) ? "-0" : "0";
        size_t n = strlen(z);
        memcpy(dst, z, n + 1);
        return n;
    }
    /* Most numbers in a job have few digits: the fast nine-digit form is
     * exact for them. Otherwise 17 significant digits always round-trip;
     * fewer usually do and read better: take the first of 15, 16, 17 that
     * parses back to exactly x. */
    size_t fast = ndem_jw_format_g9(dst, x);
    if (strtod(dst, NULL) == x) return fast;
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(dst, NDEM_JW_NUM_MAX, "%.*g", prec, x);
        if (strtod(dst, NULL) == x) break;
    }
    return (size_t)n;
}

size_t ndem_jw_format_g9(char *dst, double x)
{
    static const double pow10[] = {1e0, 1e1, 1e2, 1e3,  1e4,  1e5,  1e6,
                                   1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13};
    if (!isfinite(x)) {
        memcpy(dst, "null", 5);
        return 4;
    }
    if (x == 0.0) {
        dst[0] = '0';
        dst[1] = '\0';
        return 1;
    }
    double a = fabs(x);
    /* Outside [1e-4, 1e8) "%.9g" switches to exponent notation: rare in a
     * frame, so leave those to snprintf. */
    if (a < 1e-4 || a >= 1e8) return (size_t)snprintf(dst, NDEM_JW_NUM_MAX, "%.9g", x);
    int e = (int)floor(log10(a)); /* 10^e <= a < 10^(e+1), up to rounding */
    if (e < -4) e = -4;
    if (e > 7) e = 7;
    /* m: the nine significant digits as an integer in [1e8, 1e9). */
    double m = nearbyint(a * pow10[8 - e]);
    if (m >= 1e9 && e < 7) {
        e++;
        m = nearbyint(a * pow10[8 - e]);
    } else if (m < 1e8 && e > -4) {
        e--;
        m = nearbyint(a * pow10[8 - e]);
    }
    if (m >= 1e9 || m < 1e8) /* log10 far off: should not happen */
        return (size_t)snprintf(dst, NDEM_JW_NUM_MAX, "%.9g", x);
    char digits[10];
    long v = (long)m;
    for (int i = 8; i >= 0; i--) {
        digits[i] = (char)('0' + v % 10);
        v /= 10;
    }
    int last = 8; /* drop trailing zeros of the fraction */
    char *p = dst;
    if (x < 0) *p++ = '-';
    if (e >= 0) {
        while (last > e && digits[last] == '0') last--;
        memcpy(p, digits, (size_t)e + 1);
        p += e + 1;
        if (last > e) {
            *p++ = '.';
            memcpy(p, digits + e + 1, (size_t)(last - e));
            p += last - e;
        }
    } else {
        while (digits[last] == '0') last--;
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -e - 1; i++) *p++ = '0';
        memcpy(p, digits, (size_t)last + 1);
        p += last + 1;
    }
    *p = '\0';
    return (size_t)(p - dst);
}
