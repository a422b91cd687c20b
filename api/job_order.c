/* job_order.c - job errors in document order (docs/job.md "Errors"): the
 * parser reads a document part by part (materials before the geometry that
 * names them), so its errors come out in reading order; a user reads the
 * document top to bottom. Each error's JSON Pointer is ranked segment by
 * segment: a member by its position in its object as the document wrote it,
 * an array element by its index; a segment the document does not have (a
 * missing required member) comes after the ones it has, and such segments
 * compare as numbers when both are numbers, else as strings. Errors at the
 * same pointer keep their order (the sort is stable). */
#include "job_parts.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define NDEM_RANK_ABSENT LONG_MAX

typedef struct ndem_keyed_error {
    ndem_job_error err;
    int orig;   /* position before sorting: the tie-break */
    int depth;  /* number of segments */
    long *rank; /* per segment */
    int *start; /* offset of each segment's first character in err.pointer */
} ndem_keyed_error;

/* A segment (up to '/' or the end) as a whole number, or -1. */
static long segment_index(const char *s)
{
    if (!(*s >= '0' && *s <= '9') || (s[0] == '0' && s[1] && s[1] != '/')) return -1;
    long v = 0;
    for (; *s && *s != '/'; s++) {
        if (*s < '0' || *s > '9' || v > (LONG_MAX - 9) / 10) return -1;
        v = 10 * v + (*s - '0');
    }
    return v;
}

/* Whether the raw segment at s (RFC 6901 escapes ~0 and ~1) spells key. */
static int segment_is(const char *s, const char *key)
{
    for (; *s && *s != '/'; s++, key++) {
        char ch = *s;
        if (ch == '~' && (s[1] == '0' || s[1] == '1')) ch = *++s == '0' ? '~' : '/';
        if (ch != *key) return 0;
    }
    return *key == '\0';
}

/* The child of node that segment s names, and its rank. */
static const cJSON *descend(const cJSON *node, const char *s, long *rank)
{
    *rank = NDEM_RANK_ABSENT;
    if (cJSON_IsArray(node)) {
        long i = segment_index(s);
        if (i < 0 || i > INT_MAX) return NULL;
        *rank = i;
        return cJSON_GetArrayItem(node, (int)i);
    }
    if (!cJSON_IsObject(node)) return NULL;
    long k = 0;
    for (const cJSON *m = node->child; m; m = m->next, k++)
        if (m->string && segment_is(s, m->string)) {
            *rank = k;
            return m;
        }
    return NULL;
}

/* Fills rank and start of k from its pointer and the document (may be NULL).
 * Returns -1 when out of memory. */
static int key_error(ndem_keyed_error *k, const cJSON *root)
{
    const char *p = k->err.pointer ? k->err.pointer : "";
    int depth = 0;
    for (const char *s = p; *s; s++) depth += *s == '/';
    k->depth = depth;
    k->rank = malloc((size_t)(depth ? depth : 1) * sizeof *k->rank);
    k->start = malloc((size_t)(depth ? depth : 1) * sizeof *k->start);
    if (!k->rank || !k->start) return -1;
    const cJSON *node = root;
    int i = 0;
    for (const char *s = p; *s && i < depth; i++) {
        s++; /* the '/' */
        k->start[i] = (int)(s - p);
        node = descend(node, s, &k->rank[i]);
        while (*s && *s != '/') s++;
    }
    return 0;
}

static int compare_absent(const char *a, const char *b)
{
    long x = segment_index(a), y = segment_index(b);
    if (x >= 0 && y >= 0) return (x > y) - (x < y);
    for (; *a && *a != '/' && *a == *b; a++, b++) {
    }
    int ca = (*a == '/') ? 0 : (unsigned char)*a, cb = (*b == '/') ? 0 : (unsigned char)*b;
    return (ca > cb) - (ca < cb);
}

static int compare_keyed(const void *pa, const void *pb)
{
    const ndem_keyed_error *a = pa, *b = pb;
    int n = a->depth < b->depth ? a->depth : b->depth;
    for (int i = 0; i < n; i++) {
        if (a->rank[i] != b->rank[i]) return a->rank[i] < b->rank[i] ? -1 : 1;
        if (a->rank[i] == NDEM_RANK_ABSENT) {
            int c = compare_absent(a->err.pointer + a->start[i], b->err.pointer + b->start[i]);
            if (c) return c;
        }
    }
    if (a->depth != b->depth) return a->depth < b->depth ? -1 : 1;
    return (a->orig > b->orig) - (a->orig < b->orig);
}

void ndem_job_errors_order(ndem_job_errors *errs, int from, int to, const cJSON *root)
{
    if (!errs || from < 0 || to > errs->count || to - from < 2) return;
    int n = to - from;
    ndem_keyed_error *k = calloc((size_t)n, sizeof *k);
    int ok = k != NULL;
    for (int i = 0; ok && i < n; i++) {
        k[i].err = errs->items[from + i];
        k[i].orig = i;
        ok = key_error(&k[i], root) == 0;
    }
    if (ok) { /* out of memory leaves the reading order, which is still correct */
        qsort(k, (size_t)n, sizeof *k, compare_keyed);
        for (int i = 0; i < n; i++) errs->items[from + i] = k[i].err;
    }
    for (int i = 0; k && i < n; i++) {
        free(k[i].rank);
        free(k[i].start);
    }
    free(k);
}

void ndem_job_errors_sort(ndem_job_errors *errs, const char *text, size_t len)
{
    if (!errs) return;
    cJSON *root = (text && len > 0) ? cJSON_ParseWithLength(text, len) : NULL;
    ndem_job_errors_order(errs, 0, errs->count, root);
    cJSON_Delete(root);
}
