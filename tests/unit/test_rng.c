/* Unit tests of the random streams (ja_rng.h).
 *
 * The generator answers are known answers from the literature, not values
 * printed by our own code: SplitMix64 from seed 1234567 is the vector of
 * Rosetta Code's "Pseudo-random numbers/Splitmix64" task; the xoshiro256**
 * outputs from the state {1, 2, 3, 4} are the vector of the Rust crate
 * rand_xoshiro, produced with Blackman and Vigna's reference code. Both were
 * also recomputed with an independent big-integer implementation. The values
 * of ja_seed_derive and ja_shuffle_u8 are ours (computed by that independent
 * implementation too), checked in: they must never change, because every
 * recorded match depends on them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_rng.h"

static void test_splitmix64_known_answers(void **state)
{
    (void)state;
    static const uint64_t expect[] = {
        UINT64_C(6457827717110365317), UINT64_C(3203168211198807973),
        UINT64_C(9817491932198370423), UINT64_C(4593380528125082431),
        UINT64_C(16408922859458223821),
    };
    uint64_t x = 1234567;
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
        assert_int_equal(ja_splitmix64(&x), expect[i]);
}

/* ja_rng_seed fills the four words with consecutive SplitMix64 outputs. */
static void test_seed_is_splitmix64(void **state)
{
    (void)state;
    ja_rng r;
    ja_rng_seed(&r, 1234567);
    assert_int_equal(r.s[0], UINT64_C(6457827717110365317));
    assert_int_equal(r.s[1], UINT64_C(3203168211198807973));
    assert_int_equal(r.s[2], UINT64_C(9817491932198370423));
    assert_int_equal(r.s[3], UINT64_C(4593380528125082431));
}

static void test_xoshiro256ss_known_answers(void **state)
{
    (void)state;
    static const uint64_t expect[] = {
        UINT64_C(11520), UINT64_C(0), UINT64_C(1509978240), UINT64_C(1215971899390074240),
        UINT64_C(1216172134540287360), UINT64_C(607988272756665600),
    };
    ja_rng r = {{1, 2, 3, 4}};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
        assert_int_equal(ja_rng_next(&r), expect[i]);
}

/* The state is a plain value: a copy continues the same stream. */
static void test_copy_copies_stream(void **state)
{
    (void)state;
    ja_rng a, b;
    ja_rng_seed(&a, 42);
    for (int i = 0; i < 10; i++)
        ja_rng_next(&a);
    b = a;
    for (int i = 0; i < 100; i++)
        assert_int_equal(ja_rng_next(&a), ja_rng_next(&b));
}

static void test_below_range(void **state)
{
    (void)state;
    static const uint32_t ns[] = {2, 3, 5, 7, 10, 52, 104, 1000, 65537, 0x7FFFFFFFu,
                                  0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    ja_rng r;
    ja_rng_seed(&r, 7);
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (int i = 0; i < 2000; i++)
            assert_true(ja_rng_below(&r, ns[k]) < ns[k]);
}

static void test_below_degenerate(void **state)
{
    (void)state;
    ja_rng r;
    ja_rng_seed(&r, 7);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(ja_rng_below(&r, 1), 0);
        assert_int_equal(ja_rng_below(&r, 0), 0);
    }
}

/* Outputs below 2^64 mod n are rejected. From {1, 0, 0, 0} the first output
 * is 0 and the second 5760; for n = 7, 2^64 mod 7 = 2, so 0 is rejected and
 * the answer is 5760 mod 7 = 6 (not 0 mod 7 = 0). */
static void test_below_rejects(void **state)
{
    (void)state;
    ja_rng r = {{1, 0, 0, 0}};
    assert_int_equal(ja_rng_below(&r, 7), 6);
    /* n = 2^32 - 1: 2^64 mod n = 1, so again only 0 is rejected. */
    ja_rng q = {{1, 0, 0, 0}};
    assert_int_equal(ja_rng_below(&q, 0xFFFFFFFFu), 5760);
    /* A draw below n is tested against the bound (the others need not be):
     * for n = 8, 2^64 mod 8 = 0, so the first output 0 is kept, and the
     * next call gets the second output (5760 mod 8 = 0, 5760 mod 7 = 6). */
    ja_rng e = {{1, 0, 0, 0}};
    assert_int_equal(ja_rng_below(&e, 8), 0);
    assert_int_equal(ja_rng_below(&e, 7), 6);
}

/* Chi-square goodness of fit over 10 cells, 9 degrees of freedom. The seed is
 * fixed, so the test is deterministic; the bound (p < 1e-6 for a fair
 * generator) only has to catch a gross bias such as a broken reduction. */
static void test_below_uniform(void **state)
{
    (void)state;
    enum { CELLS = 10, DRAWS = 200000 };
    uint32_t count[CELLS] = {0};
    ja_rng r;
    ja_rng_seed(&r, 20240601);
    for (int i = 0; i < DRAWS; i++)
        count[ja_rng_below(&r, CELLS)]++;
    double e = (double)DRAWS / CELLS, chi2 = 0;
    for (int c = 0; c < CELLS; c++)
        chi2 += ((double)count[c] - e) * ((double)count[c] - e) / e;
    assert_true(chi2 < 45.0);

    /* A range where a naive reduction shows: a 32-bit output taken modulo
     * n = 3 * 2^30 would make the lowest third twice as likely as the others.
     * Compare the thirds. */
    uint32_t third[3] = {0};
    const uint32_t n = 3u << 30;
    for (int i = 0; i < 60000; i++)
        third[ja_rng_below(&r, n) / (1u << 30)]++;
    e = 20000.0;
    chi2 = 0;
    for (int c = 0; c < 3; c++)
        chi2 += ((double)third[c] - e) * ((double)third[c] - e) / e;
    assert_true(chi2 < 30.0);
}

static void test_seed_derive_stable(void **state)
{
    (void)state;
    assert_int_equal(ja_seed_derive(0, 0, 0), UINT64_C(0x415bccaeb60eb558));
    assert_int_equal(ja_seed_derive(1234567, JA_STREAM_DEAL, 3), UINT64_C(0x1145ffef02ee4dd6));
    assert_int_equal(ja_seed_derive(UINT64_MAX, JA_STREAM_MATCH, 1000000),
                     UINT64_C(0xf1e79734f5d65657));
    assert_int_equal(JA_STREAM_DEAL, UINT64_C(0x4445414c)); /* "DEAL" big-endian */
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Different (seed, purpose, index) give different seeds: no collision among
 * 3 x 6 x 200 neighbouring inputs, which is where a weak mix would collide. */
static void test_seed_derive_distinct(void **state)
{
    (void)state;
    static const uint64_t seeds[] = {0, 1, 2};
    static const uint64_t purposes[] = {0, JA_STREAM_MATCH, JA_STREAM_BOT, JA_STREAM_DEAL,
                                        JA_STREAM_MISC, JA_STREAM_DETZ};
    enum { N_IDX = 200, TOTAL = 3 * 6 * N_IDX };
    uint64_t *v = malloc(TOTAL * sizeof *v);
    assert_non_null(v);
    size_t k = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 6; b++)
            for (uint64_t i = 0; i < N_IDX; i++)
                v[k++] = ja_seed_derive(seeds[a], purposes[b], i);
    qsort(v, k, sizeof *v, cmp_u64);
    for (size_t i = 1; i < k; i++)
        assert_true(v[i] != v[i - 1]);
    free(v);
}

static void test_stream_is_seed_of_derive(void **state)
{
    (void)state;
    ja_rng a, b;
    ja_rng_stream(&a, 99, JA_STREAM_BOT, 5);
    ja_rng_seed(&b, ja_seed_derive(99, JA_STREAM_BOT, 5));
    assert_memory_equal(&a, &b, sizeof a);
}

static void test_shuffle_known(void **state)
{
    (void)state;
    static const uint8_t expect[20] = {14, 3, 15, 0, 1, 8, 11, 19, 9, 2,
                                       6, 12, 16, 7, 4, 18, 5, 10, 13, 17};
    uint8_t a[20];
    for (int i = 0; i < 20; i++)
        a[i] = (uint8_t)i;
    ja_rng r;
    ja_rng_seed(&r, 20240601);
    ja_shuffle_u8(&r, a, 20);
    assert_memory_equal(a, expect, sizeof expect);
}

static void test_shuffle_permutation(void **state)
{
    (void)state;
    ja_rng r;
    ja_rng_seed(&r, 5);
    for (uint32_t n = 0; n <= 108; n++) {
        uint8_t a[108 + 1];
        for (uint32_t i = 0; i < n; i++)
            a[i] = (uint8_t)(i * 7 % 251); /* distinct values */
        a[n] = 0xEE;                      /* must stay untouched */
        ja_shuffle_u8(&r, a, n);
        assert_int_equal(a[n], 0xEE);
        uint8_t seen[256] = {0};
        for (uint32_t i = 0; i < n; i++) {
            uint8_t v = a[i];
            assert_int_equal(seen[v], 0);
            seen[v] = 1;
        }
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(seen[i * 7 % 251], 1);
    }
}

/* n = 0 and n = 1 change nothing and consume no randomness. */
static void test_shuffle_trivial(void **state)
{
    (void)state;
    ja_rng r, before;
    ja_rng_seed(&r, 11);
    before = r;
    uint8_t one = 9;
    ja_shuffle_u8(&r, &one, 1);
    ja_shuffle_u8(&r, NULL, 0);
    assert_int_equal(one, 9);
    assert_memory_equal(&r, &before, sizeof r);
}

/* All 6 orders of three cards are equally likely (chi-square, 5 degrees of
 * freedom, generous bound). */
static void test_shuffle_uniform(void **state)
{
    (void)state;
    uint32_t count[6] = {0};
    ja_rng r;
    ja_rng_seed(&r, 77);
    for (int i = 0; i < 60000; i++) {
        uint8_t a[3] = {0, 1, 2};
        ja_shuffle_u8(&r, a, 3);
        count[a[0] * 2 + (a[1] > a[2])]++;
    }
    double chi2 = 0;
    for (int c = 0; c < 6; c++)
        chi2 += ((double)count[c] - 10000.0) * ((double)count[c] - 10000.0) / 10000.0;
    assert_true(chi2 < 35.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitmix64_known_answers),
        cmocka_unit_test(test_seed_is_splitmix64),
        cmocka_unit_test(test_xoshiro256ss_known_answers),
        cmocka_unit_test(test_copy_copies_stream),
        cmocka_unit_test(test_below_range),
        cmocka_unit_test(test_below_degenerate),
        cmocka_unit_test(test_below_rejects),
        cmocka_unit_test(test_below_uniform),
        cmocka_unit_test(test_seed_derive_stable),
        cmocka_unit_test(test_seed_derive_distinct),
        cmocka_unit_test(test_stream_is_seed_of_derive),
        cmocka_unit_test(test_shuffle_known),
        cmocka_unit_test(test_shuffle_permutation),
        cmocka_unit_test(test_shuffle_trivial),
        cmocka_unit_test(test_shuffle_uniform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
