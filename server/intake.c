/* intake.c - the parse budget. cJSON builds a node of about 64 bytes (plus
 * the allocator's header and the key) for every value, so a body of small
 * numbers takes some 40 times its size as a tree: an 8 MB body of 4 million
 * numbers took 320 MiB, and a few at once took gigabytes. The raw text is
 * scanned first (ndem_job_scan: values counted, over-long arrays refused),
 * the tree's size estimated from the count, and that much reserved from a
 * budget all requests share before cJSON runs. Freed trees are small
 * blocks in the heap arenas of the HTTP threads, which glibc keeps after
 * free: after a large parse malloc_trim() gives them back. */
#include "intake.h"

#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Bytes per value of a cJSON tree: the 64-byte node, the allocator's
 * header, and key or string copies (measured: 8 MB of "0," took ~80 B per
 * value; numbers in objects take more). */
#define NODE_BYTES 96
/* Parses that held more than this give freed memory back to the system. */
#define TRIM_AFTER (4LL << 20)

static int take(ndem_parse_budget *b, long long n)
{
    long long used = atomic_load(&b->used);
    do {
        if (used + n > b->limit) return 0;
    } while (!atomic_compare_exchange_weak(&b->used, &used, used + n));
    return 1;
}

/* Takes the budget for parsing copies of a body of len bytes and `values`
 * JSON values: the bytes taken, or -1 with 413 (never fits) or 503 (busy
 * now) in p. */
static long long reserve(ndem_parse_budget *budget, ndem_problem *p, size_t values, size_t len,
                         int copies)
{
    long long need = ((long long)values * NODE_BYTES + (long long)len) * copies;
    if (need > budget->limit) {
        ndem_problem_set(p, 413,
                         "the %s has %zu JSON values; parsing it%s would take about %lld MiB, "
                         "more than this server parses at once (--parse-budget %lld MiB)",
                         copies > 1 ? "sweep" : "document", values,
                         copies > 1 ? " and its variants" : "", need >> 20, budget->limit >> 20);
        return -1;
    }
    if (!take(budget, need)) {
        p->retry_after = 1;
        ndem_problem_set(p, 503,
                         "other job documents are being parsed (--parse-budget %lld MiB is in "
                         "use); try again",
                         budget->limit >> 20);
        return -1;
    }
    return need;
}

int ndem_intake_job(ndem_parse_budget *budget, long max_particles, const ndem_job_parse_opts *opts,
                    const char *text, size_t len, ndem_job **job, ndem_job_errors *errs,
                    ndem_job_status *st, ndem_problem *p)
{
    size_t values = 0;
    *job = NULL;
    *st = ndem_job_scan(text, len, max_particles, &values, errs);
    if (*st != NDEM_JOB_OK) return 0;
    long long need = reserve(budget, p, values, len, 1);
    if (need < 0) return 1;
    *st = ndem_job_parse_with(text, len, opts, job, errs);
    atomic_fetch_sub(&budget->used, need);
#ifdef __GLIBC__
    if (need > TRIM_AFTER) malloc_trim(0);
#endif
    return 0;
}

int ndem_intake_json(ndem_parse_budget *budget, long max_particles, const char *text, size_t len,
                     int copies, cJSON **tree, long long *held, ndem_job_errors *errs,
                     ndem_job_status *st, ndem_problem *p)
{
    size_t values = 0;
    *tree = NULL;
    *held = 0;
    *st = ndem_job_scan(text, len, max_particles, &values, errs);
    if (*st != NDEM_JOB_OK) return 0;
    long long need = reserve(budget, p, values, len, copies);
    if (need < 0) return 1;
    const char *end = NULL;
    *tree = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    /* nothing but white space may follow the value */
    while (*tree && end && end < text + len && strchr(" \t\r\n", *end)) end++;
    if (*tree && end != text + len) {
        cJSON_Delete(*tree);
        *tree = NULL;
    }
    if (!*tree) {
        ndem_intake_release(budget, need);
        size_t at = end && end >= text ? (size_t)(end - text) : 0;
        ndem_problem_set(p, 400, "the body is not JSON (at byte %zu)", at);
        return 1;
    }
    *held = need;
    return 0;
}

void ndem_intake_release(ndem_parse_budget *budget, long long held)
{
    atomic_fetch_sub(&budget->used, held);
#ifdef __GLIBC__
    if (held > TRIM_AFTER) malloc_trim(0);
#endif
}
