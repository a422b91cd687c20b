/* parser_util.h - helpers of the job-document suites (test_parser*.c):
 * documents written with ' for " and their parse, error look-up. */
#ifndef NDEM_PARSER_UTIL_H
#define NDEM_PARSER_UTIL_H

#include "job.h"
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Test documents are written with ' for " to stay readable; copies s. */
static inline char *dq(const char *s)
{
    char *t = strdup(s);
    ck_assert_ptr_nonnull(t);
    for (char *p = t; *p; p++)
        if (*p == '\'') *p = '"';
    return t;
}

static inline ndem_job_status parse_sq(const char *doc, ndem_job **job, ndem_job_errors *e)
{
    char *t = dq(doc);
    ndem_job_status st = ndem_job_parse(t, strlen(t), job, e);
    free(t);
    return st;
}

static inline ndem_job *parse_ok(const char *doc)
{
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = parse_sq(doc, &job, &e);
    for (int i = 0; i < e.count; i++)
        fprintf(stderr, "unexpected error %s: %s\n", e.items[i].pointer, e.items[i].message);
    ck_assert_int_eq(st, NDEM_JOB_OK);
    ck_assert_int_eq(e.count, 0);
    ck_assert_ptr_nonnull(job);
    return job;
}

static inline int has_error(const ndem_job_errors *e, const char *pointer, const char *msg)
{
    for (int i = 0; i < e->count; i++)
        if (strcmp(e->items[i].pointer, pointer) == 0 && strstr(e->items[i].message, msg)) return 1;
    return 0;
}

static inline void dump_errors(const ndem_job_errors *e)
{
    for (int i = 0; i < e->count; i++)
        fprintf(stderr, "  got %s: %s\n", e->items[i].pointer, e->items[i].message);
}

/* rel: a path from the repository root, where the suites run. */
static inline ndem_job *parse_file(const char *rel)
{
    size_t len = 0;
    char *text = ndem_read_file(rel, &len);
    if (!text) fprintf(stderr, "%s: %s\n", rel, strerror(errno));
    ck_assert_ptr_nonnull(text);
    ndem_job *job = NULL;
    ndem_job_errors e = {0};
    ndem_job_status st = ndem_job_parse(text, len, &job, &e);
    dump_errors(&e);
    ck_assert_int_eq(st, NDEM_JOB_OK);
    ndem_job_errors_clear(&e);
    free(text);
    return job;
}

/* Two materials, and a document of a scene with them and more members. */
#define MAT "'materials': [{'name': 'a'}, {'name': 'b'}]"
#define DOC(scene) "{'scene': {" MAT scene "}}"

#endif
