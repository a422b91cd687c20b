/* job_check.h - the validation context of the job parser: the JSON Pointer
 * of the value being read, the error list, and typed readers for object
 * members that report every problem at its pointer. Internal to api/. */
#ifndef NDEM_JOB_CHECK_H
#define NDEM_JOB_CHECK_H

#include "job.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* Errors kept per parse; one more says the rest were dropped. Bounds the
 * memory and time spent on a document made of nothing but mistakes. */
#define NDEM_JOB_MAX_ERRORS 100

/* Largest integer a double holds exactly: the upper bound of counts and
 * seeds, so that every accepted integer survives the JSON round trip. */
#define NDEM_JC_INT_MAX 9007199254740992LL

typedef struct ndem_jc {
    ndem_job_errors *errs;
    int first_error; /* errs->count when this parse started */
    int dropped;     /* errors past NDEM_JOB_MAX_ERRORS */
    int oom;         /* an allocation failed */
    char *ptr;       /* JSON Pointer of the current value, NUL-terminated */
    size_t len, cap;
    const struct ndem_job_parse_opts *opts; /* references outside the document (may be NULL) */
} ndem_jc;

/* Results of the member readers. */
enum { NDEM_JC_BAD = -1, NDEM_JC_ABSENT = 0, NDEM_JC_OK = 1 };

/* Reader flags. */
enum { NDEM_JC_REQUIRED = 1, NDEM_JC_NULLABLE = 2 };

/* An interval a number must lie in, and how to say so. */
typedef struct ndem_jc_bound {
    double lo, hi;
    int lo_open, hi_open;
    const char *message;
} ndem_jc_bound;

extern const ndem_jc_bound ndem_jc_any;      /* finite */
extern const ndem_jc_bound ndem_jc_positive; /* > 0 */
extern const ndem_jc_bound ndem_jc_nonneg;   /* >= 0 */
extern const ndem_jc_bound ndem_jc_unit;     /* [0, 1] */

void ndem_jc_init(ndem_jc *c, ndem_job_errors *errs);
void ndem_jc_free(ndem_jc *c);
/* Errors added by this parse (oom counts as one). */
int ndem_jc_failed(const ndem_jc *c);

/* Descends into a member or array element; returns the mark for pop. */
size_t ndem_jc_push_key(ndem_jc *c, const char *key);
size_t ndem_jc_push_index(ndem_jc *c, int index);
void ndem_jc_pop(ndem_jc *c, size_t mark);

/* Adds an error at the current pointer (printf-style message). */
void ndem_jc_error(ndem_jc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds an error at the member `key` of the current value. */
void ndem_jc_error_at(ndem_jc *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Adds an error at an absolute pointer. */
void ndem_jc_error_ptr(ndem_jc *c, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "a string", "an array", ... for messages. */
const char *ndem_jc_type_name(const cJSON *v);
/* s quoted for a message: at most about 40 characters, control characters
 * and invalid UTF-8 replaced, "..." when cut. */
const char *ndem_jc_quote(const char *s, char *buf, size_t n);

/* Reports members of obj that are not in `allowed` (NULL-terminated, at
 * most 32 names) and members given twice. An unknown member found in `known`
 * (may be NULL) gets `context` appended to its message in parentheses, e.g.
 * "unknown field 'radius' (not a field of a plane)". */
void ndem_jc_members(ndem_jc *c, const cJSON *obj, const char *const *allowed,
                     const char *const *known, const char *context);

/* The current value must be an object: reports and returns 0 if not. */
int ndem_jc_expect_object(ndem_jc *c, const cJSON *v);

/* Member readers. Each looks up `key` in obj; when absent leaves *out alone
 * (the caller filled the default) and reports it only with NDEM_JC_REQUIRED.
 * Errors are reported at /…/key. Returns NDEM_JC_OK, _ABSENT or _BAD. */
int ndem_jc_number(ndem_jc *c, const cJSON *obj, const char *key, double *out,
                   const ndem_jc_bound *b, int flags);
int ndem_jc_integer(ndem_jc *c, const cJSON *obj, const char *key, long long *out, long long lo,
                    long long hi, int flags);
int ndem_jc_bool(ndem_jc *c, const cJSON *obj, const char *key, int *out, int flags);
/* A string of min_len..max_len bytes of valid UTF-8; *out points into obj. */
int ndem_jc_string(ndem_jc *c, const cJSON *obj, const char *key, const char **out, size_t min_len,
                   size_t max_len, int flags);
int ndem_jc_vec3(ndem_jc *c, const cJSON *obj, const char *key, double out[3], int flags);
/* A string that must be one of `names` (NULL-terminated): its index into
 * *out. Otherwise reports "must be <expected>". */
int ndem_jc_enum(ndem_jc *c, const cJSON *obj, const char *key, const char *const *names,
                 const char *expected, int *out, int flags);

/* An array member of min_n..max_n entries: its size, 0 when absent and not
 * required (*out NULL), -1 after reporting a problem. */
int ndem_jc_array(ndem_jc *c, const cJSON *obj, const char *key, int min_n, int max_n, int flags,
                  const cJSON **out);

/* An array member of exactly n numbers, each within b, into out (errors at
 * each entry's pointer); nothing is read when it is absent and not required. */
void ndem_jc_numbers(ndem_jc *c, const cJSON *obj, const char *key, int n, double *out,
                     const ndem_jc_bound *b, int flags);

/* Reads the current value v (already pushed) as a number / vector. */
int ndem_jc_number_value(ndem_jc *c, const cJSON *v, double *out, const ndem_jc_bound *b);
int ndem_jc_vec3_value(ndem_jc *c, const cJSON *v, double out[3]);

/* A one-line description of where a cJSON parse failed. */
void ndem_jc_malformed(ndem_jc *c, const char *text, size_t len, size_t offset, const char *what);

#endif
