/* base64.c - strict base64 decoding (RFC 4648 section 4): anything a
 * canonical encoder would not write is refused, with its offset; and that
 * canonical encoder. */
#include "fail.h"
#include "base64.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int sextet(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

int ndem_base64_decode(const char *in, size_t len, unsigned char **out, size_t *out_len, char *err,
                       size_t err_len)
{
    *out = NULL;
    *out_len = 0;
    if (len % 4 != 0)
        return ndem_fail(err, err_len,
                         "base64: length %zu is not a multiple of 4 (missing padding?)", len);
    size_t pad = 0;
    if (len >= 1 && in[len - 1] == '=') pad = 1;
    if (pad && in[len - 2] == '=') pad = 2;
    unsigned char *o = malloc(len / 4 * 3 + 1);
    if (!o) return ndem_fail(err, err_len, "base64: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < len; i += 4) {
        unsigned v = 0;
        for (size_t j = i; j < i + 4; j++) {
            unsigned char c = (unsigned char)in[j];
            int s = sextet(c);
            if (s < 0 && !(c == '=' && j >= len - pad)) {
                free(o);
                if (c == '=')
                    return ndem_fail(err, err_len, "base64: offset %zu: '=' padding before the end",
                                     j);
                if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
                    return ndem_fail(
                        err, err_len,
                        "base64: offset %zu: whitespace (0x%02x) is not allowed (encode "
                        "with base64 -w0)",
                        j, c);
                return ndem_fail(err, err_len, "base64: offset %zu: byte 0x%02x is not base64", j,
                                 c);
            }
            v = v << 6 | (unsigned)(s < 0 ? 0 : s);
        }
        size_t keep = i + 4 == len ? 3 - pad : 3;
        /* canonical: the bits that padding leaves unused are zero */
        if (keep < 3 && (v >> (8 * (3 - keep))) << (8 * (3 - keep)) != v) {
            free(o);
            return ndem_fail(err, err_len,
                             "base64: offset %zu: unused bits of the last group are not zero",
                             len - pad - 1);
        }
        for (size_t k = 0; k < keep; k++) o[n++] = (unsigned char)(v >> (16 - 8 * k));
    }
    o[n] = 0;
    *out = o;
    *out_len = n;
    return 0;
}

char *ndem_base64_encode(const void *in, size_t len)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = in;
    char *o = malloc((len + 2) / 3 * 4 + 1);
    if (!o) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i += 3) {
        size_t k = len - i < 3 ? len - i : 3;
        unsigned v = (unsigned)p[i] << 16;
        if (k > 1) v |= (unsigned)p[i + 1] << 8;
        if (k > 2) v |= p[i + 2];
        o[n++] = abc[v >> 18 & 63];
        o[n++] = abc[v >> 12 & 63];
        o[n++] = k > 1 ? abc[v >> 6 & 63] : '=';
        o[n++] = k > 2 ? abc[v & 63] : '=';
    }
    o[n] = 0;
    return o;
}
