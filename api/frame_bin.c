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

/* 4-byte words per particle of each per-particle field (bits 0-5, 7, 8),
 * by bit: a table, so that a new array is one entry. */
static const int particle_words[] = {3, 1, 1, 3, 3, 1, 0, 4, 1};
#define PARTICLE_BITS (int)(sizeof particle_words / sizeof particle_words[0])

/* The first bit whose section is "u32 count, u32 record size, records". */
#define FIRST_SECTION_BIT 9

static int popcount_weights(uint32_t fields)
{
    int w = 0;
    for (int b = 0; b < PARTICLE_BITS; b++)
        if (fields & (1u << b)) w += particle_words[b];
    return w;
}

/* Whether geometry g has extents (a box with walls; NaN for the others). */
static int has_extents(const ndem_frame *f, long g)
{
    return f->geometry_extents && !isnan(f->geometry_extents[6 * g]);
}

static long extent_count(const ndem_frame *f)
{
    long w = 0;
    for (long g = 0; g < f->geometry_count; g++) w += has_extents(f, g);
    return w;
}

uint32_t ndem_frame_bin_fields(const ndem_frame *f, uint32_t fields)
{
    if (!f->materials) fields &= ~NDEM_FRAME_MATERIALS;
    if (!f->geometry_poses || f->geometry_count < 0) fields &= ~NDEM_FRAME_GEOMETRY;
    if (!f->shapes) fields &= ~(NDEM_FRAME_SHAPES | NDEM_FRAME_ORIENTATIONS);
    if (!f->orientations) fields &= ~NDEM_FRAME_ORIENTATIONS;
    /* extent records name geometry: only beside the poses */
    if (!f->geometry_extents || !(fields & NDEM_FRAME_GEOMETRY)) fields &= ~NDEM_FRAME_EXTENTS;
    return fields & NDEM_FRAME_KNOWN;
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
    if (fields & NDEM_FRAME_EXTENTS) size += 8 + NDEM_FRAME_EXTENT_BYTES * (size_t)extent_count(f);
    return size;
}

/* The 48-byte header of a record of n particles (CRC and flags 0). */
static unsigned char *encode_header(const ndem_frame *f, long n, long index, uint32_t fields,
                                    unsigned char *p)
{
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
    return put_u32(p, 0);
}

/* Particles lo .. hi - 1 of f in the per-particle field bit b. */
static unsigned char *encode_particles(const ndem_frame *f, int b, long lo, long hi,
                                       unsigned char *p)
{
    int w = particle_words[b];
    switch (b) {
    case 0:
        for (long i = w * lo; i < w * hi; i++) p = put_f32(p, f->positions[i]);
        break;
    case 1:
        for (long i = lo; i < hi; i++) p = put_f32(p, f->radii[i]);
        break;
    case 2:
        for (long i = lo; i < hi; i++) {
            const double *v = &f->velocities[3 * i];
            p = put_f32(p, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        }
        break;
    case 3:
        for (long i = w * lo; i < w * hi; i++) p = put_f32(p, f->velocities[i]);
        break;
    case 4:
        for (long i = w * lo; i < w * hi; i++) p = put_f32(p, f->angular_velocities[i]);
        break;
    case 5:
        for (long i = lo; i < hi; i++) p = put_u32(p, (uint32_t)f->materials[i]);
        break;
    case 7:
        for (long i = w * lo; i < w * hi; i++) p = put_f32(p, f->orientations[i]);
        break;
    case 8:
        for (long i = lo; i < hi; i++) p = put_u32(p, (uint32_t)f->shapes[i]);
        break;
    default:
        break;
    }
    return p;
}

static size_t section_bytes(const ndem_frame *f, int b)
{
    return b == 6 ? 8 + NDEM_FRAME_POSE_BYTES * (size_t)f->geometry_count
                  : 8 + NDEM_FRAME_EXTENT_BYTES * (size_t)extent_count(f);
}

/* The section of bit 6 (geometry poses) or 9 (extents). */
static unsigned char *encode_section(const ndem_frame *f, int b, unsigned char *p)
{
    if (b == 6) {
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
        return p;
    }
    p = put_u32(p, (uint32_t)extent_count(f));
    p = put_u32(p, NDEM_FRAME_EXTENT_BYTES);
    for (long g = 0; g < f->geometry_count; g++) {
        if (!has_extents(f, g)) continue;
        p = put_u32(p, (uint32_t)g);
        p = put_u32(p, 0);
        for (int k = 0; k < 6; k++) {
            uint64_t u;
            memcpy(&u, &f->geometry_extents[6 * g + k], 8);
            p = put_u64(p, u);
        }
    }
    return p;
}

static int is_particle_bit(int b) { return b < PARTICLE_BITS && b != 6; }

size_t ndem_frame_bin_encode(const ndem_frame *f, long index, uint32_t fields, void *buf)
{
    fields = ndem_frame_bin_fields(f, fields);
    unsigned char *p = encode_header(f, f->count, index, fields, buf);
    for (int b = 0; b < FIRST_SECTION_BIT + 1; b++) {
        if (!(fields & (1u << b))) continue;
        p = is_particle_bit(b) ? encode_particles(f, b, 0, f->count, p) : encode_section(f, b, p);
    }
    return (size_t)(p - (unsigned char *)buf);
}

/* particles encoded per write of ndem_frame_bin_write */
#define NDEM_FRAME_PIECE 4096L

/* Writes buf[0, len) and continues the CRC. */
static int put_piece(FILE *fp, const unsigned char *buf, size_t len, uint32_t *crc)
{
    *crc = ndem_crc32c(*crc, buf, len);
    return fwrite(buf, 1, len, fp) == len ? 0 : -1;
}

long ndem_frame_bin_write(FILE *fp, long index, long n, uint32_t fields, long chunk,
                          ndem_frame_chunk_fn get, void *arg)
{
    ndem_frame c;
    long held = 0; /* first particle of the chunk at hand */
    if (chunk < 1) chunk = 1;
    long got = n < chunk ? n : chunk;
    long start = ftell(fp);
    if (start < 0 || get(arg, 0, got, &c)) return -1;
    fields = ndem_frame_bin_fields(&c, fields);
    size_t cap = NDEM_FRAME_HEADER + 16 * (size_t)NDEM_FRAME_PIECE;
    for (int b = 6; b <= FIRST_SECTION_BIT; b += FIRST_SECTION_BIT - 6)
        if (fields & (1u << b) && section_bytes(&c, b) > cap) cap = section_bytes(&c, b);
    unsigned char *buf = malloc(cap);
    if (!buf) return -1;
    uint32_t crc = 0;
    unsigned char *p = encode_header(&c, n, index, fields, buf);
    put_u32(buf + 44, NDEM_FRAME_FLAG_CRC); /* sealed: the CRC is set below */
    int rc = put_piece(fp, buf, (size_t)(p - buf), &crc);
    long total = (long)(p - buf);
    for (int b = 0; b <= FIRST_SECTION_BIT && rc == 0; b++) {
        if (!(fields & (1u << b))) continue;
        if (!is_particle_bit(b)) {
            p = encode_section(&c, b, buf);
            rc = put_piece(fp, buf, (size_t)(p - buf), &crc);
            total += (long)(p - buf);
            continue;
        }
        long lo = 0;
        while (lo < n && rc == 0) {
            if (lo < held || lo >= held + got) { /* the chunk that holds lo */
                held = lo / chunk * chunk;
                got = n - held < chunk ? n - held : chunk;
                if (get(arg, held, got, &c)) {
                    rc = -1;
                    break;
                }
            }
            long hi = lo + NDEM_FRAME_PIECE < held + got ? lo + NDEM_FRAME_PIECE : held + got;
            p = encode_particles(&c, b, lo - held, hi - held, buf);
            rc = put_piece(fp, buf, (size_t)(p - buf), &crc);
            total += (long)(p - buf);
            lo = hi;
        }
    }
    free(buf);
    unsigned char w[4];
    put_u32(w, crc);
    if (rc == 0 &&
        (fseek(fp, start + 40, SEEK_SET) || fwrite(w, 1, 4, fp) != 4 || fseek(fp, 0, SEEK_END)))
        rc = -1;
    return rc == 0 ? total : -1;
}

void ndem_frame_bin_seal(void *buf, size_t len)
{
    unsigned char *p = buf;
    put_u32(p + 40, 0);
    put_u32(p + 44, NDEM_FRAME_FLAG_CRC);
    put_u32(p + 40, ndem_crc32c(0, p, len));
}

/* Where each field's section starts (offset[b] for bit b, 0 when absent)
 * and the record's whole length *want, walking the bits in order: fixed
 * arrays, the geometry section by its count, and from bit 9 on sections of
 * "count, record size, records". A length it cannot read (the record ends
 * inside a section's count) counts as truncated: *want goes past len.
 * -1 with why when a section's sizes make no sense. */
static int layout(const unsigned char *p, size_t len, size_t offset[32], size_t *want, char *why,
                  size_t why_len)
{
    uint32_t fields = get_u32(p + 32);
    uint64_t n = get_u32(p + 12), at = get_u32(p + 4);
    if (offset) memset(offset, 0, 32 * sizeof *offset);
    for (int b = 0; b < 32; b++) {
        if (!(fields & (1u << b))) continue;
        if (offset) offset[b] = (size_t)at;
        if (b < PARTICLE_BITS && b != 6) {
            at += 4 * n * (uint64_t)particle_words[b];
            continue;
        }
        if (at + 8 > len) { /* not even the section's count: truncated */
            *want = (size_t)(at + 8);
            return 0;
        }
        uint64_t count = get_u32(p + at), record = NDEM_FRAME_POSE_BYTES;
        if (b >= FIRST_SECTION_BIT) {
            record = get_u32(p + at + 4);
            if (record < 4 || record % 4) {
                snprintf(why, why_len, "field bit %d: record size %u", b, (unsigned)record);
                return -1;
            }
        }
        at += 8;
        if (count > (len - at) / record) {   /* more records than bytes left */
            uint64_t bytes = count * record; /* both below 2^32: no overflow */
            *want = bytes > SIZE_MAX - at ? SIZE_MAX : (size_t)(at + bytes);
            return 0;
        }
        at += count * record;
    }
    *want = (size_t)at;
    return 0;
}

int ndem_frame_bin_check(const void *buf, size_t len, char *why, size_t why_len)
{
    const unsigned char *p = buf;
    if (len < NDEM_FRAME_HEADER || memcmp(p, NDEM_FRAME_MAGIC, 4)) {
        snprintf(why, why_len, "not an NDF1 record (%zu bytes)", len);
        return -1;
    }
    uint32_t header = get_u32(p + 4);
    if (header < NDEM_FRAME_HEADER || header > len) {
        snprintf(why, why_len, "header size %u does not fit %zu bytes", header, len);
        return -1;
    }
    size_t want;
    if (layout(p, len, NULL, &want, why, why_len)) return -1;
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
    free(f->orientations);
    free(f->shapes);
    free(f->geometry_extents);
    memset(f, 0, sizeof *f);
}

/* The extents section at p (checked length) into f: 6 per geometry, NaN
 * where no record; records in increasing geometry index, each finite, as
 * written. -1 for anything else (a record of another writer). */
static int get_extents(const unsigned char *p, ndem_frame *f)
{
    long w = get_u32(p), record = get_u32(p + 4), g = f->geometry_count, last = -1;
    if (!f->geometry_poses || record < NDEM_FRAME_EXTENT_BYTES || w > g) return -1;
    f->geometry_extents = malloc((size_t)(g > 0 ? g : 1) * 6 * sizeof(double));
    if (!f->geometry_extents) return -1;
    for (long k = 0; k < 6 * g; k++) f->geometry_extents[k] = NAN;
    p += 8;
    for (long i = 0; i < w; i++, p += record) {
        long at = get_u32(p);
        if (at <= last || at >= g) return -1;
        last = at;
        for (int k = 0; k < 6; k++) {
            uint64_t u = get_u64(p + 8 + 8 * k);
            double v;
            memcpy(&v, &u, 8);
            if (!isfinite(v)) return -1;
            f->geometry_extents[6 * at + k] = v;
        }
    }
    return 0;
}

int ndem_frame_bin_decode(const void *buf, size_t len, ndem_frame *f, long *index)
{
    const unsigned char *p = buf, *base = buf;
    char why[128];
    size_t offset[32], want;
    memset(f, 0, sizeof *f);
    if (ndem_frame_bin_check(buf, len, why, sizeof why)) return -1;
    uint32_t fields = get_u32(p + 32);
    const uint32_t need =
        NDEM_FRAME_POSITIONS | NDEM_FRAME_RADII | NDEM_FRAME_VELOCITIES | NDEM_FRAME_ANGULAR;
    if ((fields & need) != need) return -1;
    layout(base, len, offset, &want, why, sizeof why);
    *index = get_u32(p + 8);
    long n = get_u32(p + 12);
    f->count = n;
    f->step = (long)get_u64(p + 16);
    uint64_t t = get_u64(p + 24);
    memcpy(&f->time, &t, 8);
    p = base + offset[0];
    f->positions = get_f32s(&p, 3 * n);
    p = base + offset[1];
    f->radii = get_f32s(&p, n);
    p = base + offset[3];
    f->velocities = get_f32s(&p, 3 * n);
    p = base + offset[4];
    f->angular_velocities = get_f32s(&p, 3 * n);
    int ok = f->positions && f->radii && f->velocities && f->angular_velocities;
    if (ok && (fields & NDEM_FRAME_MATERIALS)) {
        p = base + offset[5];
        f->materials = malloc((size_t)(n > 0 ? n : 1) * sizeof *f->materials);
        for (long i = 0; f->materials && i < n; i++, p += 4) f->materials[i] = (int)get_u32(p);
        ok = f->materials != NULL;
    }
    if (ok && (fields & NDEM_FRAME_GEOMETRY)) {
        p = base + offset[6];
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
    if (ok && (fields & NDEM_FRAME_ORIENTATIONS)) {
        p = base + offset[7];
        f->orientations = get_f32s(&p, 4 * n);
        ok = f->orientations != NULL;
    }
    if (ok && (fields & NDEM_FRAME_SHAPES)) {
        p = base + offset[8];
        f->shapes = malloc((size_t)(n > 0 ? n : 1) * sizeof *f->shapes);
        for (long i = 0; f->shapes && i < n; i++, p += 4) f->shapes[i] = (int32_t)get_u32(p);
        ok = f->shapes != NULL;
    }
    if (ok && (fields & NDEM_FRAME_EXTENTS)) ok = get_extents(base + offset[9], f) == 0;
    if (!ok) release(f);
    return ok ? 0 : -1;
}
