/* sweep.h - parameter sweeps (docs/api.md, "Sweeps"): a base job document
 * expanded over parameters, each a JSON Pointer (RFC 6901) into the
 * document and a list of values, either as the product of the lists (every
 * combination, the last parameter varying fastest) or zipped (the i-th
 * value of each list together). No I/O: JSON in, JSON out. */
#ifndef NDEM_SWEEP_H
#define NDEM_SWEEP_H

#include "job.h"

#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct ndem_sweep_param {
    const char *pointer; /* into the base document (borrowed from body) */
    const cJSON *values; /* a non-empty array (borrowed from body) */
    int count;
} ndem_sweep_param;

typedef struct ndem_sweep {
    cJSON *body;       /* the whole request body (owned) */
    const cJSON *base; /* its "base" member */
    int zip;           /* 1: zip, 0: product */
    int nparams;
    ndem_sweep_param *params;
    long variants;
} ndem_sweep;

/* Reads a sweep body {"base", "parameters": [{"pointer", "values"}], "mode"}
 * (taken: freed by ndem_sweep_free, also on failure). Every error goes to
 * errs with a pointer into the body (/parameters/1/values, ...); zip lists
 * of different lengths and more than max_variants variants are errors
 * (at /parameters). Pointers are only checked for syntax here; whether they
 * reach into the base is ndem_sweep_variant's to say. 0, or -1 with errs. */
int ndem_sweep_read(cJSON *body, long max_variants, ndem_sweep *out, ndem_job_errors *errs);
void ndem_sweep_free(ndem_sweep *s);

/* The values of variant k (0 <= k < variants) as an index per parameter. */
void ndem_sweep_indices(const ndem_sweep *s, long k, int *index);

/* Variant k: a copy of the base with each parameter's value set (the
 * caller cJSON_Deletes it), *values the array of the values it took (in
 * the order of the parameters; caller deletes). NULL when a pointer cannot
 * be set: *bad_param its index, why the reason, and *values still the
 * variant's values (caller deletes; NULL when out of memory). */
cJSON *ndem_sweep_variant(const ndem_sweep *s, long k, cJSON **values, int *bad_param, char *why,
                          size_t why_len);

/* Sets the value at pointer in root (RFC 6901: "/a/b~1c/0", ~1 is "/" and
 * ~0 is "~"). The parent must exist; an object member is replaced or
 * created, an array element must exist (index without leading zeros) or be
 * "-" (appended). value is taken (deleted on failure). 0, or -1 with why. */
int ndem_json_pointer_set(cJSON *root, const char *pointer, cJSON *value, char *why,
                          size_t why_len);

#endif
