/* frame_motion.c - a frame's motion in full precision (frame_motion.h). */
#include "frame_motion.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t plain_size(long n) { return (size_t)n * 10 * sizeof(double); }

static int has_tail(const ndem_frame *f) { return f->materials && f->geometry_poses; }

size_t ndem_frame_motion_size(const ndem_frame *f)
{
    size_t size = plain_size(f->count);
    if (has_tail(f)) size += 4 + 4 * (size_t)f->count + 56 * (size_t)f->geometry_count;
    return size;
}

static unsigned char *put_u32(unsigned char *p, uint32_t v)
{
    for (int b = 0; b < 4; b++) *p++ = (unsigned char)(v >> (8 * b));
    return p;
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned char *put(unsigned char *p, const double *v, long n)
{
    for (long i = 0; i < n; i++) {
        uint64_t u;
        memcpy(&u, &v[i], 8);
        for (int b = 0; b < 8; b++) *p++ = (unsigned char)(u >> (8 * b));
    }
    return p;
}

static const unsigned char *get(const unsigned char *p, double **out, long n)
{
    *out = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!*out) return NULL;
    for (long i = 0; i < n; i++) {
        uint64_t u = 0;
        for (int b = 7; b >= 0; b--) u = u << 8 | p[b];
        memcpy(&(*out)[i], &u, 8);
        p += 8;
    }
    return p;
}

void ndem_frame_motion_encode(const ndem_frame *f, unsigned char *buf)
{
    unsigned char *p = put(buf, f->positions, 3 * f->count);
    p = put(p, f->radii, f->count);
    p = put(p, f->velocities, 3 * f->count);
    p = put(p, f->angular_velocities, 3 * f->count);
    if (!has_tail(f)) return;
    p = put_u32(p, (uint32_t)f->geometry_count);
    for (long i = 0; i < f->count; i++) p = put_u32(p, (uint32_t)f->materials[i]);
    put(p, f->geometry_poses, 7 * f->geometry_count);
}

int ndem_frame_motion_decode(const unsigned char *buf, size_t len, ndem_frame *f)
{
    long n = f->count;
    if (n < 0 || len < plain_size(n)) return -1;
    size_t tail = len - plain_size(n);
    long g = tail >= 4 ? (long)get_u32(buf + plain_size(n)) : 0;
    if (tail && (tail < 4 || tail != 4 + 4 * (size_t)n + 56 * (size_t)g)) return -1;
    const unsigned char *p = get(buf, &f->positions, 3 * n);
    if (p) p = get(p, &f->radii, n);
    if (p) p = get(p, &f->velocities, 3 * n);
    if (p) p = get(p, &f->angular_velocities, 3 * n);
    if (p && tail) {
        p += 4;
        f->materials = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
        for (long i = 0; f->materials && i < n; i++, p += 4) f->materials[i] = (int)get_u32(p);
        f->geometry_count = g;
        p = f->materials ? get(p, &f->geometry_poses, 7 * g) : NULL;
    }
    if (!p) {
        ndem_frame_free(f);
        return -1;
    }
    return 0;
}
