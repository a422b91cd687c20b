/* rng.h (internal) - a small deterministic random generator (xoshiro256**,
 * seeded by splitmix64). Its state is plain data so checkpoints can hold it. */
#ifndef NDEM_RNG_H
#define NDEM_RNG_H

#include <stdint.h>

typedef struct ndem_rng {
    uint64_t s[4];
} ndem_rng;

static inline uint64_t ndem_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline void ndem_rng_seed(ndem_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = ndem_splitmix64(&seed);
}

static inline uint64_t ndem_rng_next(ndem_rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform in [0, 1). */
static inline double ndem_rng_uniform(ndem_rng *r)
{
    return (double)(ndem_rng_next(r) >> 11) * 0x1.0p-53;
}

#endif
