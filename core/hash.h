/* hash.h (internal) - FNV-1a over bytes, for the scene and state hashes
 * (sim.c) and a mesh's hash (geometry_mesh.c). */
#ifndef NDEM_HASH_H
#define NDEM_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t ndem_hash_bytes(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

#endif
