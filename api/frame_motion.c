/* frame_motion.c - a frame's motion in full precision (frame_motion.h). */
#include "frame_motion.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t ndem_frame_motion_size(long n) { return (size_t)n * 10 * sizeof(double); }

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
    put(p, f->angular_velocities, 3 * f->count);
}

int ndem_frame_motion_decode(const unsigned char *buf, size_t len, ndem_frame *f)
{
    if (f->count < 0 || len != ndem_frame_motion_size(f->count)) return -1;
    const unsigned char *p = get(buf, &f->positions, 3 * f->count);
    if (p) p = get(p, &f->radii, f->count);
    if (p) p = get(p, &f->velocities, 3 * f->count);
    if (p) p = get(p, &f->angular_velocities, 3 * f->count);
    if (!p) {
        ndem_frame_free(f);
        return -1;
    }
    return 0;
}
