/* frame_bin.c - encoder of the binary frame format (frame_bin.h). */
#include "frame_bin.h"

#include <math.h>
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
    p = put_u64(p, 0);
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
