/* stl.c - STL (ASCII and binary) to a triangle soup. Every refusal says what
 * and where: ASCII by line, binary by triangle and byte offset. */
#include "fail.h"
#include "stl.h"

#include "mesh.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define STL_HEADER 84
#define STL_RECORD 50

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- binary ---- */

static int parse_binary(const unsigned char *b, double **soup, long *n_tri, char *err,
                        size_t err_len)
{
    uint32_t n = le32(b + 80);
    if (n == 0) return ndem_fail(err, err_len, "binary STL: 0 triangles");
    if (n > NDEM_MESH_MAX_TRIANGLES)
        return ndem_fail(err, err_len, "binary STL: %lu triangles, more than the limit of %ld",
                         (unsigned long)n, NDEM_MESH_MAX_TRIANGLES);
    double *s = malloc((size_t)n * 9 * sizeof *s);
    if (!s)
        return ndem_fail(err, err_len, "binary STL: out of memory for %lu triangles",
                         (unsigned long)n);
    for (uint32_t t = 0; t < n; t++) {
        const unsigned char *r =
            b + STL_HEADER + (size_t)t * STL_RECORD + 12; /* after the normal */
        for (int i = 0; i < 9; i++) {
            uint32_t bits = le32(r + 4 * i);
            float f;
            memcpy(&f, &bits, sizeof f);
            if (!isfinite(f)) {
                free(s);
                return ndem_fail(
                    err, err_len,
                    "binary STL: triangle %lu (byte offset %zu): vertex %d coordinate is "
                    "not finite",
                    (unsigned long)t, (size_t)(r + 4 * i - b), i / 3);
            }
            s[9 * (size_t)t + i] = f;
        }
    }
    *soup = s;
    *n_tri = (long)n;
    return 0;
}

/* ---- ASCII ---- */

typedef struct lexer {
    const char *p, *end;
    long line;
    const char *tok; /* the current token: tok .. tok + tok_len */
    size_t tok_len;
} lexer;

/* Next whitespace-separated token; 0 at the end of input. */
static int next_token(lexer *lx)
{
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' ||
                               *lx->p == '\n' || *lx->p == '\f' || *lx->p == '\v')) {
        if (*lx->p == '\n') lx->line++;
        lx->p++;
    }
    lx->tok = lx->p;
    while (lx->p < lx->end && !(*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' ||
                                *lx->p == '\n' || *lx->p == '\f' || *lx->p == '\v'))
        lx->p++;
    lx->tok_len = (size_t)(lx->p - lx->tok);
    return lx->tok_len > 0;
}

/* Keywords in any case: some exporters write SOLID, FACET, ... */
static int is(const lexer *lx, const char *word)
{
    return lx->tok_len == strlen(word) && strncasecmp(lx->tok, word, lx->tok_len) == 0;
}

/* "found 'xyz'" with the token shortened and its unprintable bytes as '?' */
static const char *shown(const lexer *lx, char *buf, size_t n)
{
    size_t k = lx->tok_len < n - 1 ? lx->tok_len : n - 1;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)lx->tok[i];
        buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    buf[k] = 0;
    return buf;
}

static int expect(lexer *lx, const char *word, char *err, size_t err_len)
{
    char b[40];
    if (!next_token(lx))
        return ndem_fail(err, err_len, "ASCII STL: line %ld: unexpected end of file, expected '%s'",
                         lx->line, word);
    if (!is(lx, word))
        return ndem_fail(err, err_len, "ASCII STL: line %ld: expected '%s', found '%s'", lx->line,
                         word, shown(lx, b, sizeof b));
    return 0;
}

static int number(lexer *lx, double *v, char *err, size_t err_len)
{
    char b[64], *stop;
    if (!next_token(lx))
        return ndem_fail(err, err_len,
                         "ASCII STL: line %ld: unexpected end of file, expected a number",
                         lx->line);
    if (lx->tok_len >= sizeof b)
        return ndem_fail(err, err_len, "ASCII STL: line %ld: '%s...' is not a number", lx->line,
                         shown(lx, b, 24));
    memcpy(b, lx->tok, lx->tok_len);
    b[lx->tok_len] = 0;
    *v = strtod(b, &stop);
    if (stop != b + lx->tok_len || stop == b)
        return ndem_fail(err, err_len, "ASCII STL: line %ld: '%s' is not a number", lx->line, b);
    if (!isfinite(*v))
        return ndem_fail(err, err_len, "ASCII STL: line %ld: coordinate '%s' is not finite",
                         lx->line, b);
    return 0;
}

/* One facet after its "facet" token, into s[0..8]. */
static int facet(lexer *lx, double *s, char *err, size_t err_len)
{
    double normal;
    if (expect(lx, "normal", err, err_len) != 0) return -1;
    for (int i = 0; i < 3; i++)
        if (number(lx, &normal, err, err_len) != 0) return -1;
    if (expect(lx, "outer", err, err_len) != 0 || expect(lx, "loop", err, err_len) != 0) return -1;
    for (int k = 0; k < 3; k++) {
        if (expect(lx, "vertex", err, err_len) != 0) return -1;
        for (int i = 0; i < 3; i++)
            if (number(lx, &s[3 * k + i], err, err_len) != 0) return -1;
    }
    if (expect(lx, "endloop", err, err_len) != 0 || expect(lx, "endfacet", err, err_len) != 0)
        return -1;
    return 0;
}

/* Skips the rest of the current line (a solid's name). */
static void skip_line(lexer *lx)
{
    while (lx->p < lx->end && *lx->p != '\n') lx->p++;
}

/* solid <name> (facet ...)* endsolid [name], one or more solids. */
static int parse_ascii(const unsigned char *bytes, size_t len, double **soup, long *n_tri,
                       char *err, size_t err_len)
{
    lexer lx = {(const char *)bytes, (const char *)bytes + len, 1, NULL, 0};
    double *s = NULL;
    long n = 0, cap = 0;
    char b[40];
    int in_solid = 0;
    while (next_token(&lx)) {
        if (!in_solid) {
            if (!is(&lx, "solid")) {
                ndem_fail(err, err_len, "ASCII STL: line %ld: expected 'solid', found '%s'",
                          lx.line, shown(&lx, b, sizeof b));
                goto bad;
            }
            skip_line(&lx);
            in_solid = 1;
        } else if (is(&lx, "endsolid")) {
            skip_line(&lx);
            in_solid = 0;
        } else if (is(&lx, "facet")) {
            if (n == NDEM_MESH_MAX_TRIANGLES) {
                ndem_fail(err, err_len, "ASCII STL: line %ld: more than the limit of %ld triangles",
                          lx.line, NDEM_MESH_MAX_TRIANGLES);
                goto bad;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                if (cap > NDEM_MESH_MAX_TRIANGLES) cap = NDEM_MESH_MAX_TRIANGLES;
                double *g = realloc(s, (size_t)cap * 9 * sizeof *s);
                if (!g) {
                    ndem_fail(err, err_len, "ASCII STL: line %ld: out of memory", lx.line);
                    goto bad;
                }
                s = g;
            }
            if (facet(&lx, s + 9 * n, err, err_len) != 0) goto bad;
            n++;
        } else {
            ndem_fail(err, err_len,
                      "ASCII STL: line %ld: expected 'facet' or 'endsolid', found '%s'", lx.line,
                      shown(&lx, b, sizeof b));
            goto bad;
        }
    }
    if (in_solid) {
        ndem_fail(err, err_len, "ASCII STL: line %ld: unexpected end of file, expected 'endsolid'",
                  lx.line);
        goto bad;
    }
    if (n == 0) {
        ndem_fail(err, err_len, "ASCII STL: 0 triangles");
        goto bad;
    }
    *soup = s;
    *n_tri = n;
    return 0;
bad:
    free(s);
    return -1;
}

/* ---- either ---- */

static int starts_with_solid(const unsigned char *b, size_t len)
{
    size_t i = 0;
    while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) i++;
    return len - i >= 5 && strncasecmp((const char *)b + i, "solid", 5) == 0 &&
           (len - i == 5 || b[i + 5] == ' ' || b[i + 5] == '\t' || b[i + 5] == '\r' ||
            b[i + 5] == '\n');
}

/* Text has no control bytes but whitespace, and no bytes above 0x7e. */
static int looks_binary(const unsigned char *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((b[i] < 0x20 && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' && b[i] != '\f' &&
             b[i] != '\v') ||
            b[i] > 0x7e)
            return 1;
    return 0;
}

static int size_mismatch(const unsigned char *b, size_t len, char *err, size_t err_len)
{
    uint32_t n = le32(b + 80);
    unsigned long long want = STL_HEADER + (unsigned long long)n * STL_RECORD;
    if (n > NDEM_MESH_MAX_TRIANGLES)
        return ndem_fail(err, err_len,
                         "binary STL: the header says %lu triangles, more than the limit of %ld",
                         (unsigned long)n, NDEM_MESH_MAX_TRIANGLES);
    if (len < want)
        return ndem_fail(
            err, err_len,
            "binary STL: truncated: the header says %lu triangles (%llu bytes) but the "
            "file has %zu bytes (triangle %llu is incomplete)",
            (unsigned long)n, want, len, (unsigned long long)(len - STL_HEADER) / STL_RECORD);
    return ndem_fail(
        err, err_len,
        "binary STL: the header says %lu triangles (%llu bytes) but the file has %zu bytes",
        (unsigned long)n, want, len);
}

int ndem_stl_parse(const unsigned char *bytes, size_t len, double **soup, long *n_tri, char *err,
                   size_t err_len)
{
    *soup = NULL;
    *n_tri = 0;
    if (len >= STL_HEADER &&
        (unsigned long long)len == STL_HEADER + (unsigned long long)le32(bytes + 80) * STL_RECORD)
        return parse_binary(bytes, soup, n_tri, err, err_len);
    if (starts_with_solid(bytes, len)) {
        /* a binary file whose header begins with "solid" but whose size is
         * wrong: say that, not the ASCII parser's first complaint */
        if (len >= STL_HEADER && looks_binary(bytes, len))
            return size_mismatch(bytes, len, err, err_len);
        return parse_ascii(bytes, len, soup, n_tri, err, err_len);
    }
    if (len == 0) return ndem_fail(err, err_len, "STL: empty file");
    if (len < STL_HEADER)
        return ndem_fail(err, err_len,
                         "STL: %zu bytes: too short for binary STL (84-byte header) and not ASCII "
                         "(does not start with 'solid')",
                         len);
    return size_mismatch(bytes, len, err, err_len);
}
