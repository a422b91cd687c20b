/* job_scan.c - one pass over the raw text of a job document before cJSON
 * builds its tree (see ndem_job_scan in job.h). cJSON takes about 80 bytes
 * per value, so an 8 MB body of small numbers becomes some 320 MiB: the
 * scan counts the values first (the daemon's parse budget), refuses arrays
 * longer than any the schema allows while it reads, before anything is
 * allocated for them, and finds "\u0000" inside strings, which cJSON would
 * silently cut the string at. It is only a scan: text that is not JSON is
 * left to cJSON to report. */
#include "job.h"
#include "job_check.h"
#include "mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One open array or object. */
typedef struct scan_level {
    char object;
    char want_key;       /* object: the next string is a key */
    long count;          /* array: elements so far (commas + 1 once one began) */
    size_t key, key_len; /* object: the current member's key in the text */
    long limit;          /* array: most elements the schema allows */
} scan_level;

/* The longest arrays of a valid job are named; any other array of the
 * schema is far shorter (materials, entries, pairs, vectors). */
static long array_limit(const char *text, const scan_level *parent, long max_particles)
{
    static const struct {
        const char *key;
        long per_particle;
    } named[] = {{"spheres", 1},
                 {"velocities", 1},
                 {"orientations", 1},
                 {"angular_velocities", 1},
                 {"bonds", NDEM_JOB_BONDS_PER_SPHERE}};
    /* a mesh's inline arrays: as many entries as the mesh limit allows (the
     * body size and the value budget bound them first in the daemon) */
    static const struct {
        const char *key;
        long limit;
    } fixed[] = {{"vertices", 3 * NDEM_MESH_MAX_TRIANGLES}, {"triangles", NDEM_MESH_MAX_TRIANGLES}};
    if (parent && parent->object) {
        for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
            if (parent->key_len == strlen(named[i].key) &&
                !strncmp(text + parent->key, named[i].key, parent->key_len))
                return max_particles * named[i].per_particle;
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            if (parent->key_len == strlen(fixed[i].key) &&
                !strncmp(text + parent->key, fixed[i].key, parent->key_len))
                return fixed[i].limit;
    }
    return NDEM_JOB_MAX_ARRAY;
}

/* The JSON Pointer of the current member of levels[0..depth) (keys as
 * written, "~" and "/" escaped as RFC 6901 says). */
static void pointer_of(const char *text, const scan_level *lv, int depth, char *out, size_t n)
{
    size_t o = 0;
    out[0] = 0;
    for (int d = 0; d < depth && o + 16 < n; d++) {
        if (!lv[d].object) {
            o += (size_t)snprintf(out + o, n - o, "/%ld", lv[d].count > 0 ? lv[d].count - 1 : 0);
            continue;
        }
        out[o++] = '/';
        for (size_t i = 0; i < lv[d].key_len && o + 3 < n; i++) {
            char ch = text[lv[d].key + i];
            if (ch == '~' || ch == '/') {
                out[o++] = '~';
                out[o++] = ch == '~' ? '0' : '1';
            } else {
                out[o++] = ch;
            }
        }
        out[o] = 0;
    }
}

static int is_nul_escape(const char *text, size_t len, size_t i)
{
    return i + 5 < len && text[i + 1] == 'u' && !strncmp(text + i + 2, "0000", 4);
}

ndem_job_status ndem_job_scan(const char *text, size_t len, long max_particles, size_t *values,
                              ndem_job_errors *errs)
{
    scan_level *lv = malloc(CJSON_NESTING_LIMIT * sizeof *lv);
    size_t count = 1;
    int depth = 0, bad = 0;
    char ptr[512];
    if (values) *values = 0;
    if (!lv) return NDEM_JOB_OK; /* the parse will run out of memory and say so */
    for (size_t i = 0; i < len && !bad; i++) {
        char ch = text[i];
        scan_level *top = depth ? &lv[depth - 1] : NULL;
        if (ch == '"') {
            int key = top && top->object && top->want_key;
            if (top && !top->object && top->count == 0) top->count = 1;
            size_t start = i + 1;
            for (i = start; i < len && text[i] != '"'; i++) {
                if (text[i] != '\\') continue;
                if (is_nul_escape(text, len, i)) {
                    if (key) top->key = start, top->key_len = i - start;
                    pointer_of(text, lv, depth, ptr, sizeof ptr);
                    if (errs) {
                        ndem_jc c;
                        ndem_jc_init(&c, errs);
                        ndem_jc_error_ptr(&c, ptr,
                                          "%s holds \\u0000 at byte %zu: NUL is not "
                                          "allowed in strings",
                                          key ? "the key" : "the string", i);
                        ndem_jc_free(&c);
                    }
                    bad = 1;
                    break;
                }
                i++; /* the escaped character */
            }
            if (key) top->key = start, top->key_len = i - start, top->want_key = 0;
        } else if (ch == '[' || ch == '{') {
            if (top && !top->object && top->count == 0) top->count = 1;
            if (depth == CJSON_NESTING_LIMIT) break; /* cJSON refuses it */
            scan_level *l = &lv[depth];
            memset(l, 0, sizeof *l);
            l->object = ch == '{';
            l->want_key = l->object;
            if (!l->object) l->limit = array_limit(text, top, max_particles);
            depth++;
            count++;
        } else if (ch == ']' || ch == '}') {
            if (depth) depth--;
        } else if (ch == ',') {
            count++;
            if (!top) continue;
            if (top->object) {
                top->want_key = 1;
            } else if (++top->count > top->limit && max_particles > 0) {
                pointer_of(text, lv, depth - 1, ptr, sizeof ptr);
                if (errs) {
                    ndem_jc c;
                    ndem_jc_init(&c, errs);
                    ndem_jc_error_ptr(&c, ptr,
                                      "the array has more than %ld elements, the most this "
                                      "server allows here",
                                      top->limit);
                    ndem_jc_free(&c);
                }
                bad = 1;
            }
        } else if (top && !top->object && top->count == 0 && ch != ' ' && ch != '\t' &&
                   ch != '\n' && ch != '\r') {
            top->count = 1; /* the first element, a scalar */
        }
    }
    free(lv);
    if (values) *values = count;
    return bad ? NDEM_JOB_INVALID : NDEM_JOB_OK;
}
