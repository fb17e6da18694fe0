/* Unit test of a bot's stream seed (seat.h: ref_bot_seed).
 *
 * A bot can recover the seed of its own stream from the numbers it draws
 * (xoshiro256** and SplitMix64 are invertible). That seed must therefore be
 * a one-way function of the match seed, or the bot could compute the match
 * seed and from it the deal. The known answers pin the documented function,
 * BLAKE2b-128 of (match seed LE64, "BOT ", seat LE32), first 8 bytes LE;
 * they were computed independently (Python's hashlib.blake2b). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "jackarena/ja_rng.h"
#include "seat.h"

static void known_answers(void **state)
{
    (void)state;
    assert_true(ref_bot_seed(1, 0) == UINT64_C(0xbe6d633f069ab829));
    assert_true(ref_bot_seed(UINT64_C(0x123456789abcdef0), 3) == UINT64_C(0xdb81910d95c4954d));
}

static void not_the_invertible_derivation(void **state)
{
    (void)state;
    for (uint64_t seed = 0; seed < 64; seed++)
        for (int32_t seat = 0; seat < JA_MAX_SEATS; seat++) {
            uint64_t v = ref_bot_seed(seed, seat);
            assert_true(v != ja_seed_derive(seed, JA_STREAM_BOT, (uint64_t)seat));
            if (seat > 0)
                assert_true(v != ref_bot_seed(seed, seat - 1)); /* seats differ */
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_answers),
        cmocka_unit_test(not_the_invertible_derivation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
