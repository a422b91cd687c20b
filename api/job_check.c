/* job_check.c - pointers, errors and typed member readers of the job parser
 * (see job_check.h). */
#include "job_check.h"
#include "jsonw.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const ndem_jc_bound ndem_jc_any = {-INFINITY, INFINITY, 0, 0, "must be a finite number"};
const ndem_jc_bound ndem_jc_positive = {0.0, INFINITY, 1, 0, "must be a positive number"};
const ndem_jc_bound ndem_jc_nonneg = {0.0, INFINITY, 0, 0, "must be a number >= 0"};
const ndem_jc_bound ndem_jc_unit = {0.0, 1.0, 0, 0, "must be a number in [0, 1]"};

void ndem_jc_init(ndem_jc *c, ndem_job_errors *errs)
{
    memset(c, 0, sizeof *c);
    c->errs = errs;
    c->first_error = errs->count;
    c->ptr = malloc(256);
    if (c->ptr) {
        c->cap = 256;
        c->ptr[0] = '\0';
    } else {
        c->oom = 1;
    }
}

void ndem_jc_free(ndem_jc *c)
{
    free(c->ptr);
    c->ptr = NULL;
    c->len = c->cap = 0;
}

int ndem_jc_failed(const ndem_jc *c) { return c->oom || c->errs->count > c->first_error; }

/* ---- JSON Pointer of the current value ---- */

static int jc_reserve(ndem_jc *c, size_t extra)
{
    if (!c->ptr) return -1;
    if (extra < c->cap - c->len) return 0;
    size_t cap = c->cap;
    while (cap - c->len <= extra) {
        if (cap > SIZE_MAX / 2) goto fail;
        cap *= 2;
    }
    char *p = realloc(c->ptr, cap);
    if (!p) goto fail;
    c->ptr = p;
    c->cap = cap;
    return 0;
fail:
    c->oom = 1;
    return -1;
}

size_t ndem_jc_push_key(ndem_jc *c, const char *key)
{
    size_t mark = c->len;
    size_t n = strlen(key), extra = 0;
    for (size_t i = 0; i < n; i++) extra += key[i] == '~' || key[i] == '/';
    if (extra > SIZE_MAX - n - 2 || jc_reserve(c, n + extra + 1) != 0) return mark;
    char *p = c->ptr + c->len;
    *p++ = '/';
    for (size_t i = 0; i < n; i++) { /* RFC 6901: "~" -> "~0", "/" -> "~1" */
        if (key[i] == '~') {
            *p++ = '~';
            *p++ = '0';
        } else if (key[i] == '/') {
            *p++ = '~';
            *p++ = '1';
        } else {
            *p++ = key[i];
        }
    }
    *p = '\0';
    c->len = (size_t)(p - c->ptr);
    return mark;
}

size_t ndem_jc_push_index(ndem_jc *c, int index)
{
    size_t mark = c->len;
    char b[24];
    int n = snprintf(b, sizeof b, "/%d", index);
    if (jc_reserve(c, (size_t)n) != 0) return mark;
    memcpy(c->ptr + c->len, b, (size_t)n + 1);
    c->len += (size_t)n;
    return mark;
}

void ndem_jc_pop(ndem_jc *c, size_t mark)
{
    if (c->ptr && mark <= c->len) {
        c->len = mark;
        c->ptr[mark] = '\0';
    }
}

/* ---- errors ---- */

#define NDEM_JC_STR2(x) #x
#define NDEM_JC_STR(x) NDEM_JC_STR2(x)

static void jc_add(ndem_jc *c, const char *pointer, const char *message)
{
    ndem_job_errors *e = c->errs;
    int mine = e->count - c->first_error;
    if (mine > NDEM_JOB_MAX_ERRORS) {
        c->dropped++;
        return;
    }
    if (mine == NDEM_JOB_MAX_ERRORS) {
        pointer = "";
        message = "too many errors: only the first " NDEM_JC_STR(NDEM_JOB_MAX_ERRORS) " are listed";
        c->dropped++;
    }
    if (e->count == e->capacity) {
        int cap = e->capacity ? e->capacity * 2 : 8;
        ndem_job_error *items = realloc(e->items, (size_t)cap * sizeof *items);
        if (!items) {
            c->oom = 1;
            return;
        }
        e->items = items;
        e->capacity = cap;
    }
    char *p = strdup(pointer ? pointer : "");
    char *m = strdup(message);
    if (!p || !m) {
        free(p);
        free(m);
        c->oom = 1;
        return;
    }
    e->items[e->count].pointer = p;
    e->items[e->count].message = m;
    e->count++;
}

static void jc_vadd(ndem_jc *c, const char *pointer, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    jc_add(c, pointer, msg);
}

void ndem_jc_error(ndem_jc *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jc_vadd(c, c->ptr ? c->ptr : "", fmt, ap);
    va_end(ap);
}

void ndem_jc_error_at(ndem_jc *c, const char *key, const char *fmt, ...)
{
    size_t mark = ndem_jc_push_key(c, key);
    va_list ap;
    va_start(ap, fmt);
    jc_vadd(c, c->ptr ? c->ptr : "", fmt, ap);
    va_end(ap);
    ndem_jc_pop(c, mark);
}

void ndem_jc_error_ptr(ndem_jc *c, const char *pointer, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jc_vadd(c, pointer, fmt, ap);
    va_end(ap);
}

const char *ndem_jc_type_name(const cJSON *v)
{
    if (!v) return "nothing";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    return "an unknown value";
}

const char *ndem_jc_quote(const char *s, char *buf, size_t n)
{
    const size_t limit = 40;
    size_t chars = 0, o = 0;
    if (n < 8) {
        if (n) buf[0] = '\0';
        return buf;
    }
    while (*s && chars < limit && o + 5 < n) {
        int len = ndem_jw_utf8_len(s);
        if (len == 0 || (unsigned char)*s < 0x20 || *s == 0x7f) {
            buf[o++] = '?';
            s++;
        } else {
            if (o + (size_t)len + 4 >= n) break;
            memcpy(buf + o, s, (size_t)len);
            o += (size_t)len;
            s += len;
        }
        chars++;
    }
    if (*s && o + 4 <= n) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

/* ---- object members ---- */

static int jc_find(const char *const *names, const char *key)
{
    if (!names) return -1;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], key) == 0) return i;
    return -1;
}

void ndem_jc_members(ndem_jc *c, const cJSON *obj, const char *const *allowed,
                     const char *const *known, const char *context)
{
    uint32_t seen = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, obj)
    {
        const char *key = m->string ? m->string : "";
        char q[128];
        int i = jc_find(allowed, key);
        if (i < 0) {
            if (context && jc_find(known, key) >= 0)
                ndem_jc_error_at(c, key, "unknown field '%s' (%s)", ndem_jc_quote(key, q, sizeof q),
                                 context);
            else ndem_jc_error_at(c, key, "unknown field '%s'", ndem_jc_quote(key, q, sizeof q));
        } else if (i < 32) {
            if (seen & (UINT32_C(1) << i))
                ndem_jc_error_at(c, key, "duplicate field '%s'", ndem_jc_quote(key, q, sizeof q));
            seen |= UINT32_C(1) << i;
        }
    }
}

int ndem_jc_expect_object(ndem_jc *c, const cJSON *v)
{
    if (cJSON_IsObject(v)) return 1;
    ndem_jc_error(c, "must be an object (got %s)", ndem_jc_type_name(v));
    return 0;
}

/* ---- typed readers ---- */

int ndem_jc_array(ndem_jc *c, const cJSON *obj, const char *key, int min_n, int max_n, int flags,
                  const cJSON **out)
{
    *out = NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (flags & NDEM_JC_REQUIRED) {
            ndem_jc_error_at(c, key, "is required");
            return -1;
        }
        return 0;
    }
    if (!cJSON_IsArray(v)) {
        ndem_jc_error_at(c, key, "must be an array (got %s)", ndem_jc_type_name(v));
        return -1;
    }
    int n = cJSON_GetArraySize(v);
    if (n < min_n) {
        ndem_jc_error_at(c, key, "must not be empty");
        return -1;
    }
    if (n > max_n) {
        ndem_jc_error_at(c, key, "must have at most %d entries (got %d)", max_n, n);
        return -1;
    }
    *out = v;
    return n;
}

/* Finds `key`; reports a missing required member. NULL when absent. */
static const cJSON *jc_member(ndem_jc *c, const cJSON *obj, const char *key, int flags)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v && (flags & NDEM_JC_REQUIRED)) ndem_jc_error_at(c, key, "is required");
    return v;
}

int ndem_jc_number_value(ndem_jc *c, const cJSON *v, double *out, const ndem_jc_bound *b)
{
    if (!cJSON_IsNumber(v)) {
        ndem_jc_error(c, "must be a number (got %s)", ndem_jc_type_name(v));
        return NDEM_JC_BAD;
    }
    double x = v->valuedouble;
    if (!isfinite(x)) {
        ndem_jc_error(c, "must be a finite number");
        return NDEM_JC_BAD;
    }
    int below = b->lo_open ? !(x > b->lo) : !(x >= b->lo);
    int above = b->hi_open ? !(x < b->hi) : !(x <= b->hi);
    if (below || above) {
        ndem_jc_error(c, "%s", b->message);
        return NDEM_JC_BAD;
    }
    *out = x;
    return NDEM_JC_OK;
}

int ndem_jc_number(ndem_jc *c, const cJSON *obj, const char *key, double *out,
                   const ndem_jc_bound *b, int flags)
{
    const cJSON *v = jc_member(c, obj, key, flags);
    if (!v) return (flags & NDEM_JC_REQUIRED) ? NDEM_JC_BAD : NDEM_JC_ABSENT;
    if ((flags & NDEM_JC_NULLABLE) && cJSON_IsNull(v)) {
        *out = 0.0;
        return NDEM_JC_OK;
    }
    size_t mark = ndem_jc_push_key(c, key);
    int r = ndem_jc_number_value(c, v, out, b);
    ndem_jc_pop(c, mark);
    return r;
}

int ndem_jc_integer(ndem_jc *c, const cJSON *obj, const char *key, long long *out, long long lo,
                    long long hi, int flags)
{
    const cJSON *v = jc_member(c, obj, key, flags);
    if (!v) return (flags & NDEM_JC_REQUIRED) ? NDEM_JC_BAD : NDEM_JC_ABSENT;
    char range[64];
    if (hi >= NDEM_JC_INT_MAX) snprintf(range, sizeof range, ">= %lld", lo);
    else snprintf(range, sizeof range, "in [%lld, %lld]", lo, hi);
    if (!cJSON_IsNumber(v)) {
        ndem_jc_error_at(c, key, "must be an integer %s (got %s)", range, ndem_jc_type_name(v));
        return NDEM_JC_BAD;
    }
    double x = v->valuedouble;
    /* The range test comes first, so the cast below is always defined. */
    if (!isfinite(x) || x < (double)lo || x > (double)hi || x != floor(x)) {
        ndem_jc_error_at(c, key, "must be an integer %s", range);
        return NDEM_JC_BAD;
    }
    *out = (long long)x;
    return NDEM_JC_OK;
}

int ndem_jc_bool(ndem_jc *c, const cJSON *obj, const char *key, int *out, int flags)
{
    const cJSON *v = jc_member(c, obj, key, flags);
    if (!v) return (flags & NDEM_JC_REQUIRED) ? NDEM_JC_BAD : NDEM_JC_ABSENT;
    if (!cJSON_IsBool(v)) {
        ndem_jc_error_at(c, key, "must be true or false (got %s)", ndem_jc_type_name(v));
        return NDEM_JC_BAD;
    }
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return NDEM_JC_OK;
}

int ndem_jc_string(ndem_jc *c, const cJSON *obj, const char *key, const char **out, size_t min_len,
                   size_t max_len, int flags)
{
    const cJSON *v = jc_member(c, obj, key, flags);
    if (!v) return (flags & NDEM_JC_REQUIRED) ? NDEM_JC_BAD : NDEM_JC_ABSENT;
    if (!cJSON_IsString(v) || !v->valuestring) {
        ndem_jc_error_at(c, key, "must be a string (got %s)", ndem_jc_type_name(v));
        return NDEM_JC_BAD;
    }
    const char *s = v->valuestring;
    /* strnlen: a 100 MB string is rejected after max_len + 1 bytes. */
    size_t n = strnlen(s, max_len + 1);
    if (n < min_len || n > max_len) {
        ndem_jc_error_at(c, key, "must be %zu to %zu bytes long", min_len, max_len);
        return NDEM_JC_BAD;
    }
    for (size_t i = 0; i < n;) {
        int k = ndem_jw_utf8_len(s + i);
        if (k == 0) {
            ndem_jc_error_at(c, key, "must be valid UTF-8");
            return NDEM_JC_BAD;
        }
        i += (size_t)k;
    }
    *out = s;
    return NDEM_JC_OK;
}

void ndem_jc_numbers(ndem_jc *c, const cJSON *obj, const char *key, int n, double *out,
                     const ndem_jc_bound *b, int flags)
{
    const cJSON *arr, *e;
    if (ndem_jc_array(c, obj, key, n, n, flags, &arr) != n) return;
    size_t mark = ndem_jc_push_key(c, key);
    int i = 0;
    cJSON_ArrayForEach(e, arr)
    {
        size_t m2 = ndem_jc_push_index(c, i);
        ndem_jc_number_value(c, e, &out[i], b);
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
}

int ndem_jc_vec3_value(ndem_jc *c, const cJSON *v, double out[3])
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) {
        ndem_jc_error(c, "must be an array of 3 numbers [x, y, z]");
        return NDEM_JC_BAD;
    }
    double tmp[3];
    int i = 0, r = NDEM_JC_OK;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        size_t mark = ndem_jc_push_index(c, i);
        if (ndem_jc_number_value(c, e, &tmp[i], &ndem_jc_any) != NDEM_JC_OK) r = NDEM_JC_BAD;
        ndem_jc_pop(c, mark);
        i++;
    }
    if (r == NDEM_JC_OK) memcpy(out, tmp, sizeof tmp);
    return r;
}

int ndem_jc_vec3(ndem_jc *c, const cJSON *obj, const char *key, double out[3], int flags)
{
    const cJSON *v = jc_member(c, obj, key, flags);
    if (!v) return (flags & NDEM_JC_REQUIRED) ? NDEM_JC_BAD : NDEM_JC_ABSENT;
    size_t mark = ndem_jc_push_key(c, key);
    int r = ndem_jc_vec3_value(c, v, out);
    ndem_jc_pop(c, mark);
    return r;
}

int ndem_jc_enum(ndem_jc *c, const cJSON *obj, const char *key, const char *const *names,
                 const char *expected, int *out, int flags)
{
    const cJSON *v = jc_member(c, obj, key, flags);
    if (!v) return (flags & NDEM_JC_REQUIRED) ? NDEM_JC_BAD : NDEM_JC_ABSENT;
    if (cJSON_IsString(v) && v->valuestring) {
        int i = jc_find(names, v->valuestring);
        if (i >= 0) {
            *out = i;
            return NDEM_JC_OK;
        }
        ndem_jc_error_at(c, key, "must be %s", expected);
    } else {
        ndem_jc_error_at(c, key, "must be %s (got %s)", expected, ndem_jc_type_name(v));
    }
    return NDEM_JC_BAD;
}

/* ---- malformed documents ---- */

void ndem_jc_malformed(ndem_jc *c, const char *text, size_t len, size_t offset, const char *what)
{
    /* Line, column and nesting depth at the failure, for the message. */
    size_t line = 1, col = 1;
    long depth = 0;
    int in_string = 0, escaped = 0;
    if (offset > len) offset = len;
    for (size_t i = 0; i < offset; i++) {
        char ch = text[i];
        if (ch == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
        if (in_string) {
            if (escaped) escaped = 0;
            else if (ch == '\\') escaped = 1;
            else if (ch == '"') in_string = 0;
        } else if (ch == '"') {
            in_string = 1;
        } else if (ch == '[' || ch == '{') {
            depth++;
        } else if (ch == ']' || ch == '}') {
            depth--;
        }
    }
    char msg[256];
    if (depth >= CJSON_NESTING_LIMIT)
        snprintf(msg, sizeof msg,
                 "not valid JSON: nested deeper than %d levels at byte %zu (line %zu, column %zu)",
                 CJSON_NESTING_LIMIT, offset, line, col);
    else
        snprintf(msg, sizeof msg, "not valid JSON: %s at byte %zu (line %zu, column %zu)", what,
                 offset, line, col);
    jc_add(c, "", msg);
}
