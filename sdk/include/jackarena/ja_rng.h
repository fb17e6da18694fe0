/* Deterministic pseudo-random numbers.
 *
 * Generator: xoshiro256** 1.0 (D. Blackman and S. Vigna, "Scrambled linear
 * pseudorandom number generators", ACM TOMS 47(4), 2021; reference code at
 * prng.di.unimi.it), seeded by expanding one 64-bit seed with SplitMix64
 * (G. Steele, D. Lea, C. Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014), as the xoshiro authors recommend.
 *
 * Streams: every independent use of randomness (a game's shuffle, a bot's own
 * stream, a tournament's match seeds) gets its own stream derived from a seed
 * and a (purpose, index) pair by ja_seed_derive, so turning on one use never
 * moves the numbers another use sees.
 *
 * Everything here is integer arithmetic on uint64_t: the same seed gives the
 * same numbers on every machine and compiler. The state is a plain value;
 * copying it copies the stream. */
#ifndef JA_RNG_H
#define JA_RNG_H

#include "ja_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ja_rng {
    uint64_t s[4];
} ja_rng;

/* Stream purposes: four ASCII characters packed big-endian, so they read as
 * text in a hex dump. Games may define their own the same way. */
#define JA_TAG(a, b, c, d) \
    (((uint64_t)(a) << 24) | ((uint64_t)(b) << 16) | ((uint64_t)(c) << 8) | (uint64_t)(d))
#define JA_STREAM_MATCH JA_TAG('M', 'T', 'C', 'H') /* tournament -> match seeds */
#define JA_STREAM_BOT   JA_TAG('B', 'O', 'T', ' ') /* external bots (client seed); plugins: ref_bot_seed */
#define JA_STREAM_DEAL  JA_TAG('D', 'E', 'A', 'L') /* a game's shuffle, per game */
#define JA_STREAM_MISC  JA_TAG('M', 'I', 'S', 'C') /* other chance events, per game */
#define JA_STREAM_DETZ  JA_TAG('D', 'E', 'T', 'Z') /* determinize / sample */
#define JA_STREAM_CHNC  JA_TAG('C', 'H', 'N', 'C') /* chance reshuffles (JA_EXT_CHANCE) */
#define JA_STREAM_FALT  JA_TAG('F', 'A', 'L', 'T') /* --on-fault random, per seat */

/* One SplitMix64 step: advances *x and returns the next output. */
JA_API uint64_t ja_splitmix64(uint64_t *x);

/* Seeds r with four consecutive SplitMix64 outputs from seed. */
JA_API void ja_rng_seed(ja_rng *r, uint64_t seed);

/* Next 64-bit output of xoshiro256**. */
JA_API uint64_t ja_rng_next(ja_rng *r);

/* Uniform integer in [0, n) for n >= 1 (n == 0 returns 0), without modulo
 * bias: outputs below 2^64 mod n are rejected and drawn again. */
JA_API uint32_t ja_rng_below(ja_rng *r, uint32_t n);

/* A 64-bit seed for (purpose, index) under seed: a SplitMix64-finaliser
 * mix, stable forever (changing it would change every recorded match). */
JA_API uint64_t ja_seed_derive(uint64_t seed, uint64_t purpose, uint64_t index);

/* ja_rng_seed(r, ja_seed_derive(seed, purpose, index)). */
JA_API void ja_rng_stream(ja_rng *r, uint64_t seed, uint64_t purpose, uint64_t index);

/* Fisher-Yates shuffle (Durstenfeld's form: for i = n-1 down to 1, swap a[i]
 * with a[j], j uniform in [0, i]). */
JA_API void ja_shuffle_u8(ja_rng *r, uint8_t *a, uint32_t n);

#ifdef __cplusplus
}
#endif
#endif /* JA_RNG_H */
