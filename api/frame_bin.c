/* frame_bin.c - encoder of the binary frame format (frame_bin.h). */
#include "frame_bin.h"

#include "crc32c.h"

#include <math.h>
#include <stdio.h>
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

static unsigned char *put_f32(unsigned char *p, double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return put_u32(p, u);
}

static int popcount_weights(uint32_t fields)
{
    int w = 0;
    if (fields & NDEM_FRAME_POSITIONS) w += 3;
    if (fields & NDEM_FRAME_RADII) w += 1;
    if (fields & NDEM_FRAME_SCALAR) w += 1;
    if (fields & NDEM_FRAME_VELOCITIES) w += 3;
    if (fields & NDEM_FRAME_ANGULAR) w += 3;
    return w;
}

size_t ndem_frame_bin_size(long n, uint32_t fields)
{
    return NDEM_FRAME_HEADER + 4u * (size_t)popcount_weights(fields) * (size_t)n;
}

size_t ndem_frame_bin_encode(const ndem_frame *f, long index, uint32_t fields, void *buf)
{
    unsigned char *p = buf;
    long n = f->count;
    uint64_t t;
    double time = f->time;
    memcpy(&t, &time, 8);
    memcpy(p, NDEM_FRAME_MAGIC, 4);
    p = put_u32(p + 4, NDEM_FRAME_HEADER);
    p = put_u32(p, (uint32_t)index);
    p = put_u32(p, (uint32_t)n);
    p = put_u64(p, (uint64_t)f->step);
    p = put_u64(p, t);
    p = put_u32(p, fields);
    p = put_u32(p, 1u);
    p = put_u32(p, 0); /* CRC and flags: ndem_frame_bin_seal */
    p = put_u32(p, 0);
    if (fields & NDEM_FRAME_POSITIONS)
        for (long i = 0; i < 3 * n; i++) p = put_f32(p, f->positions[i]);
    if (fields & NDEM_FRAME_RADII)
        for (long i = 0; i < n; i++) p = put_f32(p, f->radii[i]);
    if (fields & NDEM_FRAME_SCALAR)
        for (long i = 0; i < n; i++) {
            const double *v = &f->velocities[3 * i];
            p = put_f32(p, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        }
    if (fields & NDEM_FRAME_VELOCITIES)
        for (long i = 0; i < 3 * n; i++) p = put_f32(p, f->velocities[i]);
    if (fields & NDEM_FRAME_ANGULAR)
        for (long i = 0; i < 3 * n; i++) p = put_f32(p, f->angular_velocities[i]);
    return (size_t)(p - (unsigned char *)buf);
}

void ndem_frame_bin_seal(void *buf, size_t len)
{
    unsigned char *p = buf;
    put_u32(p + 40, 0);
    put_u32(p + 44, NDEM_FRAME_FLAG_CRC);
    put_u32(p + 40, ndem_crc32c(0, p, len));
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int ndem_frame_bin_check(const void *buf, size_t len, char *why, size_t why_len)
{
    const unsigned char *p = buf;
    if (len < NDEM_FRAME_HEADER || memcmp(p, NDEM_FRAME_MAGIC, 4)) {
        snprintf(why, why_len, "not an NDF1 record (%zu bytes)", len);
        return -1;
    }
    uint32_t header = get_u32(p + 4), fields = get_u32(p + 32);
    if (header < NDEM_FRAME_HEADER || header > len) {
        snprintf(why, why_len, "header size %u does not fit %zu bytes", header, len);
        return -1;
    }
    size_t want = header + 4u * (size_t)popcount_weights(fields) * get_u32(p + 12);
    if (len != want) {
        snprintf(why, why_len, "%s: %zu of %zu bytes", len < want ? "truncated" : "too long", len,
                 want);
        return -1;
    }
    if (!(get_u32(p + 44) & NDEM_FRAME_FLAG_CRC)) return 0; /* an older writer's record */
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
