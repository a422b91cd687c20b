/* jsonw.h - a small JSON text writer shared by api/: a growing buffer,
 * optional indentation, string escaping and two number formats (exact
 * shortest round trip for job documents, fast 9 digits for frames).
 * Internal to api/; not part of the public surface. */
#ifndef NDEM_JSONW_H
#define NDEM_JSONW_H

#include <stddef.h>

#define NDEM_JW_MAX_DEPTH 32
/* Enough for any formatted double or long, with room to spare. */
#define NDEM_JW_NUM_MAX 40

typedef struct ndem_jw {
    char *buf;
    size_t len, cap;
    int failed; /* an allocation failed: the text is incomplete */
    int depth;
    int pretty;                             /* newlines and two-space indentation */
    unsigned char first[NDEM_JW_MAX_DEPTH]; /* no item yet at this depth */
    unsigned char inl[NDEM_JW_MAX_DEPTH];   /* container written on one line */
    char close[NDEM_JW_MAX_DEPTH];
} ndem_jw;

void ndem_jw_init(ndem_jw *w, int pretty);
/* Makes room for `extra` more bytes; 0 on success. */
int ndem_jw_reserve(ndem_jw *w, size_t extra);
void ndem_jw_raw(ndem_jw *w, const char *s, size_t n);
/* Opens '{' or '['; `inl` keeps the container (and all inside) on one line. */
void ndem_jw_begin(ndem_jw *w, char open, int inl);
void ndem_jw_end(ndem_jw *w);
/* Separator and "key": before an object member's value. */
void ndem_jw_key(ndem_jw *w, const char *key);
/* Separator before an array item. */
void ndem_jw_next(ndem_jw *w);

/* Values (call ndem_jw_key or ndem_jw_next first inside a container). */
void ndem_jw_string(ndem_jw *w, const char *s);
void ndem_jw_number(ndem_jw *w, double x); /* exact; null when not finite */
void ndem_jw_long(ndem_jw *w, long long v);
void ndem_jw_bool(ndem_jw *w, int b);
void ndem_jw_null(ndem_jw *w);
void ndem_jw_vec(ndem_jw *w, const double *v, int n); /* n numbers on one line */
void ndem_jw_vec3(ndem_jw *w, const double v[3]);     /* [x, y, z] on one line */

/* Member shortcuts: key then value. */
void ndem_jw_kstring(ndem_jw *w, const char *key, const char *s);
void ndem_jw_knumber(ndem_jw *w, const char *key, double x);
void ndem_jw_klong(ndem_jw *w, const char *key, long long v);
void ndem_jw_kbool(ndem_jw *w, const char *key, int b);
void ndem_jw_kvec3(ndem_jw *w, const char *key, const double v[3]);
void ndem_jw_kquat(ndem_jw *w, const char *key, const double q[4]); /* [w, x, y, z] */

/* The NUL-terminated text (caller frees), or NULL when anything failed. */
char *ndem_jw_finish(ndem_jw *w);

/* Shortest text that parses back to exactly x ("null" when not finite).
 * dst holds at least NDEM_JW_NUM_MAX bytes; returns the length. */
size_t ndem_jw_format_exact(char *dst, double x);
/* Length of the valid UTF-8 sequence at s (1..4), 0 when s starts an
 * invalid one (overlong, surrogate, beyond U+10FFFF, truncated by NUL). */
int ndem_jw_utf8_len(const char *s);

/* Nine significant digits, like "%.9g" but several times faster. Writes at
 * most NDEM_JW_G9_MAX characters plus a NUL ("-1.23456789e-308" is 16). */
#define NDEM_JW_G9_MAX 24
size_t ndem_jw_format_g9(char *dst, double x);

#endif
