/* xoshiro256** seeded by SplitMix64, stream derivation and shuffling.
 * See ja_rng.h for the references. Known-answer tests: tests/unit/test_rng.c. */
#include "jackarena/ja_rng.h"

uint64_t ja_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void ja_rng_seed(ja_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = ja_splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* The generator's step, inline here (the exported functions may be
 * interposed in the shared library, so the compiler would not inline them
 * into each other). */
static inline uint64_t next(ja_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t ja_rng_next(ja_rng *r) { return next(r); }

/* Draws below 2^64 mod n are rejected. That bound is below n, so a draw at
 * or above n (all but n in 2^64 of them) is accepted without computing it:
 * the same draws accepted and the same values as with the bound computed
 * first, one 64-bit division fewer a call. */
static inline uint32_t below(ja_rng *r, uint32_t n)
{
    if (n <= 1)
        return 0;
    for (;;) {
        uint64_t x = next(r);
        if (x >= n || x >= (uint64_t)(-(uint64_t)n) % n)
            return (uint32_t)(x % n);
    }
}

uint32_t ja_rng_below(ja_rng *r, uint32_t n) { return below(r, n); }

/* The SplitMix64 output function as a stateless mixer. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t ja_seed_derive(uint64_t seed, uint64_t purpose, uint64_t index)
{
    uint64_t x = mix64(seed + UINT64_C(0x9E3779B97F4A7C15));
    x = mix64(x ^ (purpose * UINT64_C(0xD1B54A32D192ED03)));
    x = mix64(x ^ (index * UINT64_C(0x8CB92BA72F3D8DD7) + UINT64_C(0x632BE59BD9B4E019)));
    return x;
}

void ja_rng_stream(ja_rng *r, uint64_t seed, uint64_t purpose, uint64_t index)
{
    ja_rng_seed(r, ja_seed_derive(seed, purpose, index));
}

void ja_shuffle_u8(ja_rng *r, uint8_t *a, uint32_t n)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = below(r, i);
        uint8_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}
