/* contact_bin.c - the NDC1 record of a contact network (contact_bin.h). */
#include "contact_bin.h"

#include "crc32c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
    return p + 4;
}

static unsigned char *put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
    return p + 8;
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const unsigned char *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* The fields in record order: bit, values per contact, and where a set
 * keeps them (integers: a, b, feature; the rest float32 of doubles). */
typedef struct field {
    uint32_t bit;
    int per;
} field;
static const field fields_table[] = {
    {NDEM_CONTACT_PAIRS, 2},   {NDEM_CONTACT_FEATURE, 1},      {NDEM_CONTACT_POINTS, 3},
    {NDEM_CONTACT_NORMALS, 3}, {NDEM_CONTACT_NORMAL_FORCE, 1}, {NDEM_CONTACT_TANGENTIAL, 3},
    {NDEM_CONTACT_ROLLING, 3},
};
#define FIELD_COUNT (sizeof fields_table / sizeof fields_table[0])

/* A set's doubles of float field f (index 2..6 of the table). */
static double *doubles_of(const ndem_contact_set *s, size_t f)
{
    double *const a[FIELD_COUNT] = {NULL,
                                    NULL,
                                    s->points,
                                    s->normals,
                                    s->normal_forces,
                                    s->tangential_forces,
                                    s->rolling_torques};
    return a[f];
}

static size_t values_per_contact(uint32_t fields)
{
    size_t w = 0;
    for (size_t f = 0; f < FIELD_COUNT; f++)
        if (fields & fields_table[f].bit) w += (size_t)fields_table[f].per;
    return w;
}

size_t ndem_contact_bin_size(long n, uint32_t fields)
{
    return NDEM_CONTACT_HEADER + 4u * values_per_contact(fields) * (size_t)(n > 0 ? n : 0);
}

static unsigned char *put_ints(unsigned char *p, const long *v, long n)
{
    for (long i = 0; i < n; i++) p = put_u32(p, (uint32_t)(int32_t)v[i]);
    return p;
}

size_t ndem_contact_bin_encode(const ndem_contact_set *s, long index, uint32_t fields, void *buf)
{
    unsigned char *p = buf;
    long n = s->count > 0 ? s->count : 0;
    uint64_t t;
    double time = s->time;
    memcpy(&t, &time, 8);
    memcpy(p, NDEM_CONTACT_MAGIC, 4);
    p = put_u32(p + 4, NDEM_CONTACT_HEADER);
    p = put_u32(p, (uint32_t)index);
    p = put_u32(p, (uint32_t)n);
    p = put_u64(p, (uint64_t)s->step);
    p = put_u64(p, t);
    p = put_u32(p, fields & NDEM_CONTACT_ALL);
    p = put_u32(p, 0);
    p = put_u32(p, 0); /* CRC and flags, below */
    p = put_u32(p, 0);
    if (fields & NDEM_CONTACT_PAIRS) {
        p = put_ints(p, s->a, n);
        p = put_ints(p, s->b, n);
    }
    if (fields & NDEM_CONTACT_FEATURE)
        for (long i = 0; i < n; i++) p = put_u32(p, (uint32_t)(int32_t)s->feature[i]);
    for (size_t f = 2; f < FIELD_COUNT; f++) {
        if (!(fields & fields_table[f].bit)) continue;
        const double *d = doubles_of(s, f);
        for (long i = 0; i < fields_table[f].per * n; i++) {
            float x = (float)d[i];
            uint32_t u;
            memcpy(&u, &x, 4);
            p = put_u32(p, u);
        }
    }
    size_t len = (size_t)(p - (unsigned char *)buf);
    unsigned char *b = buf;
    put_u32(b + 44, NDEM_CONTACT_FLAG_CRC);
    put_u32(b + 40, ndem_crc32c(0, b, len));
    return len;
}

int ndem_contact_bin_check(const void *buf, size_t len, char *why, size_t why_len)
{
    const unsigned char *p = buf;
    if (len < NDEM_CONTACT_HEADER || memcmp(p, NDEM_CONTACT_MAGIC, 4)) {
        snprintf(why, why_len, "not an NDC1 record (%zu bytes)", len);
        return -1;
    }
    uint32_t header = get_u32(p + 4), fields = get_u32(p + 32);
    if (header < NDEM_CONTACT_HEADER || header > len) {
        snprintf(why, why_len, "header size %u does not fit %zu bytes", header, len);
        return -1;
    }
    size_t want = header + 4u * values_per_contact(fields) * get_u32(p + 12);
    if (len != want) {
        snprintf(why, why_len, "%s: %zu of %zu bytes", len < want ? "truncated" : "too long", len,
                 want);
        return -1;
    }
    if (!(get_u32(p + 44) & NDEM_CONTACT_FLAG_CRC)) {
        snprintf(why, why_len, "no checksum");
        return -1;
    }
    static const unsigned char zero[4] = {0};
    uint32_t crc = ndem_crc32c(0, p, 40);
    crc = ndem_crc32c(crc, zero, 4);
    crc = ndem_crc32c(crc, p + 44, len - 44);
    if (crc != get_u32(p + 40)) {
        snprintf(why, why_len, "checksum mismatch");
        return -1;
    }
    return 0;
}

int ndem_contact_bin_decode(const void *buf, size_t len, ndem_contact_set *out, long *index)
{
    const unsigned char *p = buf;
    memset(out, 0, sizeof *out);
    (void)len; /* checked by ndem_contact_bin_check */
    uint32_t fields = get_u32(p + 32);
    long n = (long)get_u32(p + 12);
    uint64_t t = get_u64(p + 24);
    *index = (long)get_u32(p + 8);
    out->step = (long)get_u64(p + 16);
    memcpy(&out->time, &t, 8);
    size_t m = (size_t)(n > 0 ? n : 1);
    out->a = calloc(m, sizeof *out->a);
    out->b = calloc(m, sizeof *out->b);
    out->feature = malloc(m * sizeof *out->feature);
    out->points = calloc(3 * m, sizeof(double));
    out->normals = calloc(3 * m, sizeof(double));
    out->normal_forces = calloc(m, sizeof(double));
    out->tangential_forces = calloc(3 * m, sizeof(double));
    out->rolling_torques = calloc(3 * m, sizeof(double));
    if (!out->a || !out->b || !out->feature || !out->points || !out->normals ||
        !out->normal_forces || !out->tangential_forces || !out->rolling_torques) {
        ndem_contact_set_free(out);
        return -1;
    }
    out->count = n;
    p += get_u32(p + 4);
    for (long i = 0; i < n; i++) out->feature[i] = -1;
    if (fields & NDEM_CONTACT_PAIRS) {
        for (long i = 0; i < n; i++, p += 4) out->a[i] = (int32_t)get_u32(p);
        for (long i = 0; i < n; i++, p += 4) out->b[i] = (int32_t)get_u32(p);
    }
    if (fields & NDEM_CONTACT_FEATURE)
        for (long i = 0; i < n; i++, p += 4) out->feature[i] = (int32_t)get_u32(p);
    for (size_t f = 2; f < FIELD_COUNT; f++) {
        if (!(fields & fields_table[f].bit)) continue;
        double *d = doubles_of(out, f);
        for (long i = 0; i < fields_table[f].per * n; i++, p += 4) {
            uint32_t u = get_u32(p);
            float x;
            memcpy(&x, &u, 4);
            d[i] = x;
        }
    }
    return 0;
}
