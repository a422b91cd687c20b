/* ckpt3.h - turns a current (format 9: for spheres the bytes of format 6)
 * checkpoint of spheres into format 3
 * for the tests that check old checkpoints still restore
 * (test_mesh_contact, test_motion). */
#ifndef NDEM_TEST_CKPT3_H
#define NDEM_TEST_CKPT3_H

#include "crc32c.h"
#include "ndem.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct bytes {
    unsigned char *p;
    size_t len;
} bytes;

static inline void ckpt3_put(bytes *o, const void *p, size_t n)
{
    o->p = realloc(o->p, o->len + n);
    ck_assert_ptr_nonnull(o->p);
    memcpy(o->p + o->len, p, n);
    o->len += n;
}

/* Copies count keys of format 4 (two ints) at in as format 3 (one packed
 * int each); returns the bytes read. */
static inline size_t ckpt3_keys(bytes *o, const unsigned char *in, int64_t count)
{
    for (int64_t k = 0; k < count; k++) {
        int two[2];
        memcpy(two, in + 8 * k, 8);
        int packed = two[1] < 0 ? two[0] : -1 - (two[0] * 8 + two[1]);
        ckpt3_put(o, &packed, 4);
    }
    return 8 * (size_t)count;
}

/* A format 6 or 7 checkpoint (core/checkpoint.c) of plain spheres rewritten as
 * format 3 had it: no shape indices (one int per particle after the ids)
 * and no shaped contacts' history length (8 bytes after the smooth-DEM
 * state), no geometry poses (10 doubles after each geometry's 12 position
 * doubles) and one int per history key (and per smooth-DEM spring key).
 * n particles, no emitters, no dynamic bodies. The caller frees .p. */
static inline bytes ndem_test_to_format3(const unsigned char *c, size_t len, long n, int geometry,
                                         int dem)
{
    bytes o = {0};
    uint32_t v3 = 3;
    ckpt3_put(&o, c, 8);
    ckpt3_put(&o, &v3, 4);
    size_t at = 12;
    size_t head = 4 + 8 + 8 + 8 + (16 * 8 + 4 + 8) * (size_t)n;
    ckpt3_put(&o, c + at, head);
    at += head + 4 * (size_t)n; /* format 6: the shape indices */
    for (int g = 0; g < geometry; g++) {
        ckpt3_put(&o, c + at, 96);
        at += 96 + 80; /* the pose: q, to, shift */
    }
    int64_t hb, hc;
    memcpy(&hb, c + at, 8);
    memcpy(&hc, c + at + 8, 8);
    size_t starts = 16 + (hb > 0 ? 8 * (size_t)(hb + 1) : 0);
    ckpt3_put(&o, c + at, starts);
    at += starts;
    at += ckpt3_keys(&o, c + at, hc);
    size_t rest = 7 * 8 * (size_t)hc + sizeof(ndem_step_stats);
    ckpt3_put(&o, c + at, rest);
    at += rest;
    if (dem) {
        uint64_t dl;
        memcpy(&dl, c + at, 8);
        const unsigned char *b = c + at + 8;
        int64_t dhb, dhc;
        memcpy(&dhb, b, 8);
        memcpy(&dhc, b + 8, 8);
        uint64_t dl3 = dl - 4 * (uint64_t)dhc;
        ckpt3_put(&o, &dl3, 8);
        size_t pre = 24 + sizeof(long) * (size_t)(dhb + 1);
        ckpt3_put(&o, b, pre);
        size_t k = ckpt3_keys(&o, b + pre, dhc);
        ckpt3_put(&o, b + pre + k, dl - pre - k);
        at += 8 + dl + 8; /* format 6: the shaped history's length (0) */
    }
    ck_assert_uint_eq(at, len - 4); /* everything but the CRC was read */
    uint32_t crc = ndem_crc32c(0, o.p, o.len);
    ckpt3_put(&o, &crc, 4);
    return o;
}

#endif
