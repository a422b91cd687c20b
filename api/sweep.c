/* sweep.c - expanding a base job document over parameters (sweep.h). */
#include "sweep.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const members[] = {"base", "parameters", "mode"};

static void read_param(const cJSON *p, int i, ndem_sweep_param *out, ndem_job_errors *errs)
{
    char where[64];
    snprintf(where, sizeof where, "/parameters/%d", i);
    if (!cJSON_IsObject(p)) {
        ndem_job_errors_add(errs, where, "a parameter must be an object {\"pointer\", \"values\"}");
        return;
    }
    for (const cJSON *m = p->child; m; m = m->next)
        if (strcmp(m->string, "pointer") && strcmp(m->string, "values")) {
            char at[600];
            snprintf(at, sizeof at, "%s/%s", where, m->string);
            ndem_job_errors_add(errs, at, "unknown field '%s' (a parameter has pointer and values)",
                                m->string);
        }
    const cJSON *ptr = cJSON_GetObjectItemCaseSensitive(p, "pointer");
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(p, "values");
    char at[96];
    snprintf(at, sizeof at, "%s/pointer", where);
    if (!cJSON_IsString(ptr))
        ndem_job_errors_add(errs, at,
                            "pointer must be a JSON Pointer string such as \"/solver/iterations\"");
    else if (ptr->valuestring[0] != '/')
        ndem_job_errors_add(errs, at, "pointer '%s' must start with '/' (a JSON Pointer into base)",
                            ptr->valuestring);
    else out->pointer = ptr->valuestring;
    if (ptr && cJSON_IsString(ptr))
        for (const char *c = ptr->valuestring; *c; c++)
            if (*c == '~' && c[1] != '0' && c[1] != '1') {
                ndem_job_errors_add(errs, at,
                                    "pointer '%s': '~' must be followed by 0 or 1 (RFC 6901)",
                                    ptr->valuestring);
                out->pointer = NULL;
                break;
            }
    snprintf(at, sizeof at, "%s/values", where);
    if (!cJSON_IsArray(vals) || cJSON_GetArraySize(vals) == 0)
        ndem_job_errors_add(errs, at, "values must be a non-empty array");
    else out->values = vals, out->count = cJSON_GetArraySize(vals);
}

int ndem_sweep_read(cJSON *body, long max_variants, ndem_sweep *s, ndem_job_errors *errs)
{
    memset(s, 0, sizeof *s);
    s->body = body;
    int before = errs->count;
    if (!cJSON_IsObject(body)) {
        ndem_job_errors_add(errs, "", "a sweep is an object {\"base\", \"parameters\", \"mode\"}");
        return -1;
    }
    for (const cJSON *m = body->child; m; m = m->next) {
        int known = 0;
        for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
            known |= !strcmp(m->string, members[i]);
        if (!known) {
            char at[600];
            snprintf(at, sizeof at, "/%s", m->string);
            ndem_job_errors_add(
                errs, at, "unknown field '%s' (a sweep has base, parameters and mode)", m->string);
        }
    }
    s->base = cJSON_GetObjectItemCaseSensitive(body, "base");
    if (!cJSON_IsObject(s->base))
        ndem_job_errors_add(errs, "/base", "base must be a job document (object)");
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(body, "mode");
    if (mode && !(cJSON_IsString(mode) &&
                  (!strcmp(mode->valuestring, "product") || !strcmp(mode->valuestring, "zip"))))
        ndem_job_errors_add(errs, "/mode", "mode must be \"product\" or \"zip\"");
    else s->zip = mode && !strcmp(mode->valuestring, "zip");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(body, "parameters");
    int n = cJSON_IsArray(params) ? cJSON_GetArraySize(params) : 0;
    if (n == 0) {
        ndem_job_errors_add(errs, "/parameters",
                            "parameters must be a non-empty array of {\"pointer\", "
                            "\"values\"}");
        return -1;
    }
    s->params = calloc((size_t)n, sizeof *s->params);
    if (!s->params) {
        ndem_job_errors_add(errs, "", "out of memory");
        return -1;
    }
    s->nparams = n;
    int i = 0;
    for (const cJSON *p = params->child; p; p = p->next, i++) read_param(p, i, &s->params[i], errs);
    for (i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (s->params[i].pointer && s->params[j].pointer &&
                !strcmp(s->params[i].pointer, s->params[j].pointer)) {
                char at[64];
                snprintf(at, sizeof at, "/parameters/%d/pointer", i);
                ndem_job_errors_add(errs, at, "pointer '%s' is already parameter %d",
                                    s->params[i].pointer, j);
            }
    if (errs->count > before) return -1;
    /* the number of variants, saturating above the cap */
    double variants = s->zip ? s->params[0].count : 1;
    for (i = 0; i < n; i++) {
        if (s->zip && s->params[i].count != s->params[0].count) {
            ndem_job_errors_add(
                errs, "/parameters",
                "zip needs values of one length: parameter 0 (%s) has %d, parameter %d "
                "(%s) has %d",
                s->params[0].pointer, s->params[0].count, i, s->params[i].pointer,
                s->params[i].count);
            return -1;
        }
        if (!s->zip) variants *= s->params[i].count;
    }
    if (variants > (double)max_variants) {
        ndem_job_errors_add(
            errs, "/parameters",
            "the sweep has %.0f variants; this server allows %ld (--max-sweep-jobs)", variants,
            max_variants);
        return -1;
    }
    s->variants = (long)variants;
    return 0;
}

void ndem_sweep_free(ndem_sweep *s)
{
    cJSON_Delete(s->body);
    free(s->params);
    memset(s, 0, sizeof *s);
}

void ndem_sweep_indices(const ndem_sweep *s, long k, int *index)
{
    for (int i = s->nparams - 1; i >= 0; i--) {
        if (s->zip) {
            index[i] = (int)k;
        } else {
            index[i] = (int)(k % s->params[i].count);
            k /= s->params[i].count;
        }
    }
}

/* The next reference token of *p (decoded ~1 and ~0) into tok; advances *p. */
static void next_token(const char **p, char *tok, size_t len)
{
    const char *s = *p + 1; /* past '/' */
    size_t n = 0;
    while (*s && *s != '/') {
        char c = *s++;
        if (c == '~') c = *s++ == '1' ? '/' : '~';
        if (n + 1 < len) tok[n++] = c;
    }
    tok[n] = 0;
    *p = s;
}

/* An array index: digits without leading zeros; -1 when not one. */
static long array_index(const char *tok)
{
    if (!*tok || (tok[0] == '0' && tok[1])) return -1;
    long v = 0;
    for (const char *c = tok; *c; c++) {
        if (!isdigit((unsigned char)*c) || v > 100000000) return -1;
        v = 10 * v + (*c - '0');
    }
    return v;
}

int ndem_json_pointer_set(cJSON *root, const char *pointer, cJSON *value, char *why, size_t why_len)
{
    const char *p = pointer;
    cJSON *node = root;
    char tok[512];
    if (*p != '/') {
        snprintf(why, why_len, "'%s' is not a JSON Pointer to a member (it must start with '/')",
                 pointer);
        cJSON_Delete(value);
        return -1;
    }
    while (*p) {
        next_token(&p, tok, sizeof tok);
        int last = !*p;
        size_t done = (size_t)(p - pointer);
        if (cJSON_IsObject(node)) {
            cJSON *child = cJSON_GetObjectItemCaseSensitive(node, tok);
            if (last) {
                /* ...InObject names the new item; ...ViaPointer would not */
                if (child) cJSON_ReplaceItemInObjectCaseSensitive(node, tok, value);
                else cJSON_AddItemToObject(node, tok, value);
                return 0;
            }
            if (!child) {
                snprintf(why, why_len,
                         "%.*s does not exist in base (only the last member of a "
                         "pointer is created)",
                         (int)done, pointer);
                break;
            }
            node = child;
        } else if (cJSON_IsArray(node)) {
            int size = cJSON_GetArraySize(node);
            if (last && !strcmp(tok, "-")) {
                cJSON_AddItemToArray(node, value);
                return 0;
            }
            long i = array_index(tok);
            if (i < 0 || i >= size) {
                snprintf(why, why_len, "%.*s: '%s' is not an index of that array of %d", (int)done,
                         pointer, tok, size);
                break;
            }
            cJSON *child = cJSON_GetArrayItem(node, (int)i);
            if (last) {
                cJSON_ReplaceItemViaPointer(node, child, value);
                return 0;
            }
            node = child;
        } else {
            snprintf(why, why_len, "%.*s: its parent is neither an object nor an array", (int)done,
                     pointer);
            break;
        }
    }
    cJSON_Delete(value);
    return -1;
}

cJSON *ndem_sweep_variant(const ndem_sweep *s, long k, cJSON **values, int *bad_param, char *why,
                          size_t why_len)
{
    int *index = malloc((size_t)s->nparams * sizeof *index);
    cJSON *doc = cJSON_Duplicate(s->base, 1), *vals = cJSON_CreateArray();
    *values = NULL;
    *bad_param = -1;
    if (!index || !doc || !vals) {
        snprintf(why, why_len, "out of memory");
        goto fail;
    }
    ndem_sweep_indices(s, k, index);
    for (int i = 0; i < s->nparams; i++) {
        const cJSON *v = cJSON_GetArrayItem(s->params[i].values, index[i]);
        cJSON_AddItemToArray(vals, cJSON_Duplicate(v, 1));
        if (ndem_json_pointer_set(doc, s->params[i].pointer, cJSON_Duplicate(v, 1), why, why_len)) {
            *bad_param = i;
            /* the values of every parameter, for the error */
            for (int j = i + 1; j < s->nparams; j++)
                cJSON_AddItemToArray(
                    vals, cJSON_Duplicate(cJSON_GetArrayItem(s->params[j].values, index[j]), 1));
            free(index);
            cJSON_Delete(doc);
            *values = vals;
            return NULL;
        }
    }
    free(index);
    *values = vals;
    return doc;
fail:
    free(index);
    cJSON_Delete(doc);
    cJSON_Delete(vals);
    return NULL;
}
