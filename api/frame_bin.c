/* frame_bin.c - encoder of the binary frame format (frame_bin.h). */
#include "frame_bin.h"

#include "crc32c.h"

#include <math.h>
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

static unsigned char *put_f32(unsigned char *p, double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return put_u32(p, u);
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const unsigned char *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* 4-byte words per particle of the fields' per-particle arrays. */
static int popcount_weights(uint32_t fields)
{
    int w = 0;
    if (fields & NDEM_FRAME_POSITIONS) w += 3;
    if (fields & NDEM_FRAME_RADII) w += 1;
    if (fields & NDEM_FRAME_SCALAR) w += 1;
    if (fields & NDEM_FRAME_VELOCITIES) w += 3;
    if (fields & NDEM_FRAME_ANGULAR) w += 3;
    if (fields & NDEM_FRAME_MATERIALS) w += 1;
    return w;
}

uint32_t ndem_frame_bin_fields(const ndem_frame *f, uint32_t fields)
{
    if (!f->materials) fields &= ~NDEM_FRAME_MATERIALS;
    if (!f->geometry_poses || f->geometry_count < 0) fields &= ~NDEM_FRAME_GEOMETRY;
    return fields & NDEM_FRAME_ALL;
}

size_t ndem_frame_bin_particle_bytes(uint32_t fields)
{
    return 4u * (size_t)popcount_weights(fields);
}

size_t ndem_frame_bin_size(const ndem_frame *f, uint32_t fields)
{
    fields = ndem_frame_bin_fields(f, fields);
    size_t size = NDEM_FRAME_HEADER + ndem_frame_bin_particle_bytes(fields) * (size_t)f->count;
    if (fields & NDEM_FRAME_GEOMETRY) size += 8 + NDEM_FRAME_POSE_BYTES * (size_t)f->geometry_count;
    return size;
}

size_t ndem_frame_bin_encode(const ndem_frame *f, long index, uint32_t fields, void *buf)
{
    unsigned char *p = buf;
    long n = f->count;
    uint64_t t;
    double time = f->time;
    fields = ndem_frame_bin_fields(f, fields);
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
    if (fields & NDEM_FRAME_MATERIALS)
        for (long i = 0; i < n; i++) p = put_u32(p, (uint32_t)f->materials[i]);
    if (fields & NDEM_FRAME_GEOMETRY) {
        p = put_u32(p, (uint32_t)f->geometry_count);
        p = put_u32(p, 0);
        for (long g = 0; g < f->geometry_count; g++) {
            p = put_u32(p, (uint32_t)g);
            p = put_u32(p, 0);
            for (int k = 0; k < 7; k++) {
                uint64_t u;
                memcpy(&u, &f->geometry_poses[7 * g + k], 8);
                p = put_u64(p, u);
            }
        }
    }
    return (size_t)(p - (unsigned char *)buf);
}

void ndem_frame_bin_seal(void *buf, size_t len)
{
    unsigned char *p = buf;
    put_u32(p + 40, 0);
    put_u32(p + 44, NDEM_FRAME_FLAG_CRC);
    put_u32(p + 40, ndem_crc32c(0, p, len));
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
    size_t want = header + ndem_frame_bin_particle_bytes(fields) * get_u32(p + 12);
    if ((fields & NDEM_FRAME_GEOMETRY) && want <= len && len - want >= 8)
        want += 8 + NDEM_FRAME_POSE_BYTES * (size_t)get_u32(p + want);
    else if (fields & NDEM_FRAME_GEOMETRY) want += 8; /* not even the section's count: truncated */
    if (fields & ~NDEM_FRAME_ALL) {
        snprintf(why, why_len, "unknown fields 0x%x", (unsigned)(fields & ~NDEM_FRAME_ALL));
        return -1;
    }
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

/* n float32 from *p as doubles. */
static double *get_f32s(const unsigned char **p, long n)
{
    double *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    for (long i = 0; out && i < n; i++, *p += 4) {
        uint32_t u = get_u32(*p);
        float v;
        memcpy(&v, &u, 4);
        out[i] = v;
    }
    return out;
}

/* The arrays decode allocates (free(NULL) for those it did not). */
static void release(ndem_frame *f)
{
    free(f->positions);
    free(f->radii);
    free(f->velocities);
    free(f->angular_velocities);
    free(f->materials);
    free(f->geometry_poses);
    memset(f, 0, sizeof *f);
}

int ndem_frame_bin_decode(const void *buf, size_t len, ndem_frame *f, long *index)
{
    const unsigned char *p = buf;
    char why[128];
    memset(f, 0, sizeof *f);
    if (ndem_frame_bin_check(buf, len, why, sizeof why)) return -1;
    uint32_t fields = get_u32(p + 32);
    const uint32_t need =
        NDEM_FRAME_POSITIONS | NDEM_FRAME_RADII | NDEM_FRAME_VELOCITIES | NDEM_FRAME_ANGULAR;
    if ((fields & need) != need) return -1;
    *index = get_u32(p + 8);
    long n = get_u32(p + 12);
    f->count = n;
    f->step = (long)get_u64(p + 16);
    uint64_t t = get_u64(p + 24);
    memcpy(&f->time, &t, 8);
    p += get_u32(p + 4);
    f->positions = get_f32s(&p, 3 * n);
    f->radii = get_f32s(&p, n);
    if (fields & NDEM_FRAME_SCALAR) p += 4u * (size_t)n;
    f->velocities = get_f32s(&p, 3 * n);
    f->angular_velocities = get_f32s(&p, 3 * n);
    int ok = f->positions && f->radii && f->velocities && f->angular_velocities;
    if (ok && (fields & NDEM_FRAME_MATERIALS)) {
        f->materials = malloc((size_t)(n > 0 ? n : 1) * sizeof *f->materials);
        for (long i = 0; f->materials && i < n; i++, p += 4) f->materials[i] = (int)get_u32(p);
        ok = f->materials != NULL;
    }
    if (ok && (fields & NDEM_FRAME_GEOMETRY)) {
        long g = get_u32(p);
        p += 8;
        f->geometry_count = g;
        f->geometry_poses = malloc((size_t)(g > 0 ? g : 1) * 7 * sizeof(double));
        for (long i = 0; f->geometry_poses && i < g; i++, p += NDEM_FRAME_POSE_BYTES) {
            /* records in index order, as written; an index out of place is
             * a record of another writer: refuse it rather than guess */
            if (get_u32(p) != (uint32_t)i) {
                ok = 0;
                break;
            }
            for (int k = 0; k < 7; k++) {
                uint64_t u = get_u64(p + 8 + 8 * k);
                memcpy(&f->geometry_poses[7 * i + k], &u, 8);
            }
        }
        ok = ok && f->geometry_poses != NULL;
    }
    if (!ok) release(f);
    return ok ? 0 : -1;
}
