/* Unit tests of tournament plan generation (ladders/plan.h): counts,
 * rotations, the lexicographic order, gauntlets, duplicate seeds, stable
 * seeds (literal values checked in), the agreement of the two generation
 * paths, the rejection of plans that make no sense, and balanced seating
 * (every ordered pair of a combination neighbours as equally often as the
 * seat count allows, for 2 to 20 seats). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "plan.h"

static ladder_plan_params params(uint32_t n, uint32_t k, uint32_t rounds, ladder_format f,
                                 bool dup, uint64_t seed)
{
    ladder_plan_params p;
    memset(&p, 0, sizeof p);
    p.n_participants = n;
    p.n_seats = k;
    p.rounds = rounds;
    p.format = f;
    p.duplicate = dup;
    p.seed = seed;
    return p;
}

static uint32_t binom(uint32_t n, uint32_t k)
{
    uint64_t c = 1;
    for (uint32_t i = 1; i <= k; i++)
        c = c * (n - k + i) / i;
    return (uint32_t)c;
}

/* Generates p into a new array, asserting success. */
static ladder_plan_match *gen(const ladder_plan_params *p, uint32_t *n)
{
    ladder_plan_match *m = NULL;
    assert_int_equal(ladder_plan_new(p, &m, n), JA_OK);
    assert_non_null(m);
    return m;
}

static void test_counts(void **state)
{
    (void)state;
    /* C(N,K) * K * R for round-robin, C(N-1,K-1) * K * R for gauntlet. */
    struct { uint32_t n, k, r; ladder_format f; uint32_t want; } cases[] = {
        {2, 2, 1, LADDER_FORMAT_ROUND_ROBIN, 2},      /* C(2,2)*2 */
        {3, 2, 1, LADDER_FORMAT_ROUND_ROBIN, 6},      /* C(3,2)*2 */
        {4, 2, 1, LADDER_FORMAT_ROUND_ROBIN, 12},     /* C(4,2)*2 */
        {5, 3, 2, LADDER_FORMAT_ROUND_ROBIN, 60},     /* C(5,3)*3*2 */
        {6, 6, 3, LADDER_FORMAT_ROUND_ROBIN, 18},     /* 1*6*3 */
        {12, 12, 1, LADDER_FORMAT_ROUND_ROBIN, 12},
        {10, 4, 1, LADDER_FORMAT_ROUND_ROBIN, 840},   /* 210*4 */
        {5, 3, 1, LADDER_FORMAT_GAUNTLET, 18},        /* C(4,2)*3 */
        {5, 2, 4, LADDER_FORMAT_GAUNTLET, 32},        /* C(4,1)*2*4 */
        {4, 4, 1, LADDER_FORMAT_GAUNTLET, 4},         /* C(3,3)*4 */
        {1000, 2, 1, LADDER_FORMAT_ROUND_ROBIN, 999000}, /* just under the limit */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ladder_plan_params p = params(cases[i].n, cases[i].k, cases[i].r, cases[i].f, false, 1);
        uint32_t n = 0;
        assert_int_equal(ladder_plan_count(&p, &n, NULL, 0), JA_OK);
        assert_int_equal(n, cases[i].want);
        uint32_t combos = cases[i].f == LADDER_FORMAT_GAUNTLET
                              ? binom(cases[i].n - 1, cases[i].k - 1)
                              : binom(cases[i].n, cases[i].k);
        assert_int_equal(n, combos * cases[i].k * cases[i].r);
    }
}

static void test_order_three_choose_two(void **state)
{
    (void)state;
    /* Combinations (0,1), (0,2), (1,2); rotation 1 swaps the two seats. */
    static const uint16_t want[6][2] = {{0, 1}, {1, 0}, {0, 2}, {2, 0}, {1, 2}, {2, 1}};
    ladder_plan_params p = params(3, 2, 1, LADDER_FORMAT_ROUND_ROBIN, false, 7);
    uint32_t n;
    ladder_plan_match *m = gen(&p, &n);
    assert_int_equal(n, 6);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(m[i].number, i);
        assert_int_equal(m[i].round, 0);
        assert_int_equal(m[i].combo, i / 2);
        assert_int_equal(m[i].rotation, i % 2);
        assert_int_equal(m[i].n_seats, 2);
        assert_int_equal(m[i].slot[0], want[i][0]);
        assert_int_equal(m[i].slot[1], want[i][1]);
        for (int s = 2; s < JA_MAX_SEATS; s++)
            assert_int_equal(m[i].slot[s], 0);
    }
    ladder_plan_free(&m);
    assert_null(m);
}

static void test_rotations(void **state)
{
    (void)state;
    /* N=4, K=3: combination 0 is (0,1,2); seat i takes combo[(i + r) % 3]. */
    ladder_plan_params p = params(4, 3, 1, LADDER_FORMAT_ROUND_ROBIN, false, 7);
    uint32_t n;
    ladder_plan_match *m = gen(&p, &n);
    assert_int_equal(n, 12);
    static const uint16_t first[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++)
            assert_int_equal(m[r].slot[s], first[r][s]);
    /* Then (0,1,3), (0,2,3), (1,2,3): lexicographic. */
    static const uint16_t combos[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    for (int c = 0; c < 4; c++)
        for (int s = 0; s < 3; s++)
            assert_int_equal(m[c * 3].slot[s], combos[c][s]);
    ladder_plan_free(&m);
}

/* Seat balance: over a round-robin round, every participant sits in every
 * seat equally often, C(N-1, K-1) times. This is why rotations exist. */
static void test_seat_balance(void **state)
{
    (void)state;
    ladder_plan_params p = params(7, 4, 1, LADDER_FORMAT_ROUND_ROBIN, false, 3);
    uint32_t n;
    ladder_plan_match *m = gen(&p, &n);
    uint32_t count[7][4] = {{0}};
    for (uint32_t i = 0; i < n; i++) {
        /* No participant twice in one match. */
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++)
                assert_int_not_equal(m[i].slot[a], m[i].slot[b]);
        for (int s = 0; s < 4; s++)
            count[m[i].slot[s]][s]++;
    }
    for (int who = 0; who < 7; who++)
        for (int s = 0; s < 4; s++)
            assert_int_equal(count[who][s], binom(6, 3));
    ladder_plan_free(&m);
}

static void test_rounds_repeat(void **state)
{
    (void)state;
    ladder_plan_params p = params(4, 2, 3, LADDER_FORMAT_ROUND_ROBIN, false, 99);
    uint32_t n;
    ladder_plan_match *m = gen(&p, &n);
    assert_int_equal(n, 36);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(m[i].round, i / 12);
        assert_memory_equal(m[i].slot, m[i % 12].slot, sizeof m[i].slot);
        /* Every round has its own deals. */
        if (i >= 12)
            assert_true(m[i].seed != m[i % 12].seed);
    }
    ladder_plan_free(&m);
}

static void test_gauntlet(void **state)
{
    (void)state;
    ladder_plan_params p = params(5, 3, 1, LADDER_FORMAT_GAUNTLET, false, 11);
    uint32_t n;
    ladder_plan_match *m = gen(&p, &n);
    assert_int_equal(n, 18);
    /* Combinations {0} + (1,2), (1,3), (1,4), (2,3), (2,4), (3,4). */
    static const uint16_t combos[6][3] = {{0, 1, 2}, {0, 1, 3}, {0, 1, 4},
                                          {0, 2, 3}, {0, 2, 4}, {0, 3, 4}};
    uint32_t seat_of_0[3] = {0};
    uint32_t others[5] = {0};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = i / 3, r = i % 3;
        int zero = 0;
        for (int s = 0; s < 3; s++) {
            assert_int_equal(m[i].slot[s], combos[c][(s + r) % 3]);
            if (m[i].slot[s] == 0) {
                zero++;
                seat_of_0[s]++;
            } else {
                others[m[i].slot[s]]++;
            }
        }
        assert_int_equal(zero, 1); /* participant 0 is in every match */
    }
    /* 0 takes every seat equally; each other appears in C(3,1)=3 combos x 3. */
    for (int s = 0; s < 3; s++)
        assert_int_equal(seat_of_0[s], 6);
    for (int who = 1; who < 5; who++)
        assert_int_equal(others[who], 9);
    ladder_plan_free(&m);
}

static void test_seeds_derive(void **state)
{
    (void)state;
    ladder_plan_params p = params(5, 3, 2, LADDER_FORMAT_ROUND_ROBIN, false, 42);
    uint32_t n;
    ladder_plan_match *m = gen(&p, &n);
    for (uint32_t i = 0; i < n; i++)
        assert_true(m[i].seed == ja_seed_derive(42, JA_STREAM_MATCH, i));
    /* Literal values computed once with ja_seed_derive (sdk/src/rng.c) and
     * checked in: a change of derivation would silently change every
     * stored tournament, so it must fail here. */
    assert_true(m[0].seed == UINT64_C(6848288534160935820)); /* 0x5f0a0223560b0b8c */
    assert_true(m[1].seed == UINT64_C(9873201748228333942)); /* 0x8904a8adf6ea6176 */
    assert_true(m[2].seed == UINT64_C(5556161476695799679)); /* 0x4d1b736cdd29b77f */
    assert_true(m[3].seed == UINT64_C(3811019394427790514)); /* 0x34e375f294fe24b2 */
    ladder_plan_free(&m);

    p = params(2, 2, 2, LADDER_FORMAT_ROUND_ROBIN, false, UINT64_MAX);
    m = gen(&p, &n);
    assert_int_equal(n, 4);
    assert_true(m[0].seed == UINT64_C(17137648746089140686)); /* 0xedd528bc440fd1ce */
    assert_true(m[1].seed == UINT64_C(10750035439532734885)); /* 0x952fcc46b03579a5 */
    assert_true(m[2].seed == UINT64_C(9902879925501536276));  /* 0x896e18d314dda814 */
    assert_true(m[3].seed == UINT64_C(1012956366680213206));  /* 0x0e0ebe72d8f1c6d6 */
    ladder_plan_free(&m);
}

static void test_duplicate(void **state)
{
    (void)state;
    ladder_plan_params p = params(4, 3, 2, LADDER_FORMAT_ROUND_ROBIN, true, 20240611);
    uint32_t n;
    ladder_plan_match *m = gen(&p, &n);
    assert_int_equal(n, 24);
    for (uint32_t i = 0; i < n; i++) {
        /* Rotations of one combination share the seed of rotation 0. */
        uint32_t first = i - m[i].rotation;
        assert_int_equal(m[first].rotation, 0);
        assert_true(m[i].seed == ja_seed_derive(20240611, JA_STREAM_MATCH, first));
        assert_true(m[i].seed == m[first].seed);
        /* Different combinations (and rounds) have different seeds. */
        if (m[i].rotation == 0 && i > 0)
            assert_true(m[i].seed != m[i - 1].seed);
    }
    /* Literal: the first combination plays ja_seed_derive(20240611, MTCH, 0)
     * three times, the second ja_seed_derive(.., 3). */
    for (int r = 0; r < 3; r++) {
        assert_true(m[r].seed == UINT64_C(2390757034915505753));      /* 0x212dacdb4267a659 */
        assert_true(m[3 + r].seed == UINT64_C(16904535706403916169)); /* 0xea98f9a9311cc989 */
    }
    /* Without duplicate, the same plan has a seed per match. */
    ladder_plan_params q = p;
    q.duplicate = false;
    ladder_plan_match *o = gen(&q, &n);
    assert_true(o[1].seed == UINT64_C(8345349671687040351)); /* 0x73d0a34f93542d5f */
    for (uint32_t i = 0; i < n; i++) {
        assert_memory_equal(o[i].slot, m[i].slot, sizeof o[i].slot);
        if (m[i].rotation == 0)
            assert_true(o[i].seed == m[i].seed);
        else
            assert_true(o[i].seed != m[i].seed);
    }
    ladder_plan_free(&o);
    ladder_plan_free(&m);
}

/* The unranking path (match_at) and the iterating path (generate) agree on
 * every match of many plans. */
static void test_match_at_agrees(void **state)
{
    (void)state;
    for (uint32_t n = 2; n <= 8; n++) {
        for (uint32_t k = 2; k <= n && k <= 6; k++) {
            for (int f = 0; f <= LADDER_FORMAT_GAUNTLET; f++) { /* swiss, knockout: pairing */
                for (int dup = 0; dup < 4; dup++) {
                    ladder_plan_params p =
                        params(n, k, 1 + (n + k) % 3, (ladder_format)f, dup % 2, n * 1000 + k);
                    p.seating = dup / 2 ? LADDER_SEATING_BALANCED : LADDER_SEATING_CYCLIC;
                    uint32_t count;
                    ladder_plan_match *m = gen(&p, &count);
                    for (uint32_t i = 0; i < count; i++) {
                        ladder_plan_match one;
                        assert_int_equal(ladder_plan_match_at(&p, i, &one), JA_OK);
                        assert_memory_equal(&one, &m[i], sizeof one);
                    }
                    ladder_plan_match one;
                    assert_int_equal(ladder_plan_match_at(&p, count, &one), JA_ERANGE);
                    ladder_plan_free(&m);
                }
            }
        }
    }
    /* A large plan, by unranking alone: the last match of C(30,5)*5. */
    ladder_plan_params p = params(30, 5, 1, LADDER_FORMAT_ROUND_ROBIN, false, 5);
    uint32_t count;
    assert_int_equal(ladder_plan_count(&p, &count, NULL, 0), JA_OK);
    assert_int_equal(count, 142506 * 5);
    ladder_plan_match last;
    assert_int_equal(ladder_plan_match_at(&p, count - 1, &last), JA_OK);
    /* Last combination (25..29), rotation 4: seat i takes combo[(i+4)%5]. */
    static const uint16_t want[5] = {29, 25, 26, 27, 28};
    for (int s = 0; s < 5; s++)
        assert_int_equal(last.slot[s], want[s]);
}

static void test_rejects(void **state)
{
    (void)state;
    char err[200];
    uint32_t n = 12345;
    struct { uint32_t n, k, r; int f; int rc; const char *msg; } cases[] = {
        {1, 2, 1, LADDER_FORMAT_ROUND_ROBIN, JA_EINVAL, "at least 2 participants"},
        {3, 1, 1, LADDER_FORMAT_ROUND_ROBIN, JA_EINVAL, "seats must be between 2 and 20"},
        {3, 4, 1, LADDER_FORMAT_ROUND_ROBIN, JA_EINVAL, "4 seats need at least 4 participants"},
        {30, 21, 1, LADDER_FORMAT_ROUND_ROBIN, JA_EINVAL, "seats must be between"},
        {3, 2, 0, LADDER_FORMAT_ROUND_ROBIN, JA_EINVAL, "rounds must be at least 1"},
        {3, 2, 1, LADDER_FORMAT_COUNT, JA_EINVAL, "unknown tournament format"},
        {2000, 2, 1, LADDER_FORMAT_ROUND_ROBIN, JA_EINVAL, "more than the limit of 1024"},
        {1000, 2, 2, LADDER_FORMAT_ROUND_ROBIN, JA_ERANGE, "the plan has 1998000 matches"},
        {1024, 6, 1, LADDER_FORMAT_ROUND_ROBIN, JA_ERANGE, "in one round"},
        {1024, 12, 1, LADDER_FORMAT_GAUNTLET, JA_ERANGE, "in one round"},
        {3, 2, UINT32_MAX, LADDER_FORMAT_ROUND_ROBIN, JA_ERANGE, "the plan has 25769803770"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ladder_plan_params p = params(cases[i].n, cases[i].k, cases[i].r,
                                      (ladder_format)cases[i].f, false, 1);
        err[0] = '\0';
        assert_int_equal(ladder_plan_count(&p, &n, err, sizeof err), cases[i].rc);
        assert_non_null(strstr(err, cases[i].msg));
        assert_int_equal(n, 12345); /* untouched */
        static ladder_plan_match dummy;
        ladder_plan_match *m = &dummy;
        uint32_t cnt;
        assert_int_equal(ladder_plan_new(&p, &m, &cnt), cases[i].rc);
        assert_null(m);
        ladder_plan_match one;
        assert_int_equal(ladder_plan_match_at(&p, 0, &one), cases[i].rc);
    }
    assert_int_equal(ladder_plan_count(NULL, &n, err, sizeof err), JA_EINVAL);
    /* err may be NULL, and a tiny buffer is still terminated. */
    ladder_plan_params p = params(1, 2, 1, LADDER_FORMAT_ROUND_ROBIN, false, 1);
    assert_int_equal(ladder_plan_count(&p, NULL, NULL, 0), JA_EINVAL);
    char tiny[4] = "xxx";
    assert_int_equal(ladder_plan_count(&p, NULL, tiny, sizeof tiny), JA_EINVAL);
    assert_string_equal(tiny, "a t");
}

static void test_generate_capacity(void **state)
{
    (void)state;
    ladder_plan_params p = params(4, 2, 1, LADDER_FORMAT_ROUND_ROBIN, false, 1);
    ladder_plan_match buf[12];
    memset(buf, 0xAB, sizeof buf);
    uint32_t n = 0;
    assert_int_equal(ladder_plan_generate(&p, buf, 11, &n), JA_ERANGE);
    assert_int_equal(n, 12);
    assert_int_equal(buf[0].number, 0xABABABABu); /* nothing written */
    assert_int_equal(ladder_plan_generate(&p, buf, 12, &n), JA_OK);
    assert_int_equal(n, 12);
    assert_int_equal(buf[11].number, 11);
    assert_int_equal(ladder_plan_generate(&p, buf, 12, NULL), JA_EINVAL);
    ladder_plan_free(NULL);
    ladder_plan_match *none = NULL;
    ladder_plan_free(&none);
}

static void test_format_names(void **state)
{
    (void)state;
    ladder_format f;
    assert_int_equal(ladder_format_parse("round-robin", &f), JA_OK);
    assert_int_equal(f, LADDER_FORMAT_ROUND_ROBIN);
    assert_int_equal(ladder_format_parse("gauntlet", &f), JA_OK);
    assert_int_equal(f, LADDER_FORMAT_GAUNTLET);
    assert_int_equal(ladder_format_parse("swiss", &f), JA_OK);
    assert_int_equal(f, LADDER_FORMAT_SWISS);
    assert_int_equal(ladder_format_parse("knockout", &f), JA_OK);
    assert_int_equal(f, LADDER_FORMAT_KNOCKOUT);
    assert_int_equal(ladder_format_parse("Swiss", &f), JA_EINVAL);
    assert_int_equal(ladder_format_parse(NULL, &f), JA_EINVAL);
    assert_string_equal(ladder_format_name(LADDER_FORMAT_ROUND_ROBIN), "round-robin");
    assert_string_equal(ladder_format_name(LADDER_FORMAT_GAUNTLET), "gauntlet");
    assert_null(ladder_format_name(LADDER_FORMAT_COUNT));
}

static void test_seating_names(void **state)
{
    (void)state;
    ladder_seating s = LADDER_SEATING_COUNT;
    assert_int_equal(ladder_seating_parse("cyclic", &s), JA_OK);
    assert_int_equal(s, LADDER_SEATING_CYCLIC);
    assert_int_equal(ladder_seating_parse("balanced", &s), JA_OK);
    assert_int_equal(s, LADDER_SEATING_BALANCED);
    assert_int_equal(ladder_seating_parse("Balanced", &s), JA_EINVAL);
    assert_int_equal(ladder_seating_parse(NULL, &s), JA_EINVAL);
    assert_int_equal(s, LADDER_SEATING_BALANCED);
    assert_string_equal(ladder_seating_name(LADDER_SEATING_CYCLIC), "cyclic");
    assert_string_equal(ladder_seating_name(LADDER_SEATING_BALANCED), "balanced");
    assert_null(ladder_seating_name(LADDER_SEATING_COUNT));
    /* A zero-initialised plan is cyclic, as every plan was before. */
    ladder_plan_params p;
    memset(&p, 0, sizeof p);
    assert_int_equal(p.seating, LADDER_SEATING_CYCLIC);
    p = params(3, 3, 1, LADDER_FORMAT_ROUND_ROBIN, false, 1);
    p.seating = LADDER_SEATING_COUNT;
    char err[100];
    assert_int_equal(ladder_plan_count(&p, NULL, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "unknown seating 2");
    uint16_t o[JA_MAX_SEATS];
    assert_int_equal(ladder_seating_order(LADDER_SEATING_BALANCED, 5, 4, o), JA_EINVAL);
    assert_int_equal(ladder_seating_order(LADDER_SEATING_BALANCED, 21, 0, o), JA_EINVAL);
    assert_int_equal(ladder_seating_order(LADDER_SEATING_BALANCED, 1, 0, o), JA_EINVAL);
    assert_int_equal(ladder_seating_order(LADDER_SEATING_BALANCED, 5, 0, NULL), JA_EINVAL);
    assert_int_equal(ladder_seating_orders(LADDER_SEATING_COUNT, 5), 0);
    assert_int_equal(ladder_seating_orders(LADDER_SEATING_CYCLIC, 1), 0);
}

/* Counts: combinations x orders x seats x rounds. */
static void test_seating_counts(void **state)
{
    (void)state;
    static const uint32_t orders[21] = {0, 0, 1, 2, 4, 4, 6, 6, 8, 8, 10,
                                        10, 12, 12, 14, 14, 16, 16, 18, 18, 20};
    for (uint32_t k = 2; k <= JA_MAX_SEATS; k++) {
        assert_int_equal(ladder_seating_orders(LADDER_SEATING_CYCLIC, k), 1);
        assert_int_equal(ladder_seating_orders(LADDER_SEATING_BALANCED, k), orders[k]);
        ladder_plan_params p = params(k + 1, k, 2, LADDER_FORMAT_ROUND_ROBIN, false, 1);
        p.seating = LADDER_SEATING_BALANCED;
        uint32_t n = 0;
        assert_int_equal(ladder_plan_count(&p, &n, NULL, 0), JA_OK);
        assert_int_equal(n, (k + 1) * orders[k] * k * 2);
        p.format = LADDER_FORMAT_GAUNTLET;
        assert_int_equal(ladder_plan_count(&p, &n, NULL, 0), JA_OK);
        assert_int_equal(n, k * orders[k] * k * 2);
    }
    /* The limit counts the orders: C(110,3) = 215820 combinations make
     * 647460 cyclic matches, twice that balanced. */
    ladder_plan_params p = params(110, 3, 1, LADDER_FORMAT_ROUND_ROBIN, false, 1);
    uint32_t n = 0;
    assert_int_equal(ladder_plan_count(&p, &n, NULL, 0), JA_OK);
    assert_int_equal(n, 647460);
    p.seating = LADDER_SEATING_BALANCED;
    char err[200];
    assert_int_equal(ladder_plan_count(&p, &n, err, sizeof err), JA_ERANGE);
    assert_string_equal(err, "the plan has 1294920 matches, more than the limit of 1000000");
}

/* Literal plans: three seats play both directions (all six orders), four
 * seats the two closed Walecki paths in both directions. Order 0 is the
 * cyclic seating, so a balanced plan begins as the cyclic one. */
static void test_seating_literal(void **state)
{
    (void)state;
    static const uint16_t three[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                         {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    ladder_plan_params p = params(3, 3, 1, LADDER_FORMAT_ROUND_ROBIN, false, 7);
    p.seating = LADDER_SEATING_BALANCED;
    uint32_t n;
    ladder_plan_match *m = gen(&p, &n);
    assert_int_equal(n, 6);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(m[i].rotation, i);
        assert_int_equal(m[i].combo, 0);
        for (int s = 0; s < 3; s++)
            assert_int_equal(m[i].slot[s], three[i][s]);
    }
    ladder_plan_free(&m);
    static const uint16_t four[4][4] = {{0, 1, 2, 3}, {0, 3, 2, 1}, {1, 3, 0, 2}, {1, 2, 0, 3}};
    for (uint32_t o = 0; o < 4; o++) {
        uint16_t got[JA_MAX_SEATS];
        assert_int_equal(ladder_seating_order(LADDER_SEATING_BALANCED, 4, o, got), JA_OK);
        for (int s = 0; s < 4; s++)
            assert_int_equal(got[s], four[o][s]);
    }
    /* The cyclic plan is the balanced one's order 0, match by match. */
    ladder_plan_params c = params(6, 4, 2, LADDER_FORMAT_GAUNTLET, true, 99);
    p = c;
    p.seating = LADDER_SEATING_BALANCED;
    uint32_t nc, nb;
    ladder_plan_match *mc = gen(&c, &nc), *mb = gen(&p, &nb);
    assert_int_equal(nb, nc * 4);
    for (uint32_t i = 0; i < nc; i++) {
        const ladder_plan_match *b = &mb[(i / 4) * 16 + i % 4];
        assert_memory_equal(b->slot, mc[i].slot, sizeof b->slot);
        assert_int_equal(b->rotation, mc[i].rotation);
        assert_true(b->seed == ja_seed_derive(99, JA_STREAM_MATCH, (i / 4) * 16));
    }
    ladder_plan_free(&mc);
    ladder_plan_free(&mb);
}

/* Neighbour counts within one combination's matches (m[0 .. per-1]):
 * next[a][b] = how often the participant at position b of the combination
 * sits right after (seat + 1 mod K) the one at position a; seat[a][s] how
 * often position a sits in seat s. The combination is read from the
 * participants' slots in ascending order. */
static void count_block(const ladder_plan_match *m, uint32_t per, uint32_t k,
                        uint32_t next[JA_MAX_SEATS][JA_MAX_SEATS],
                        uint32_t seat[JA_MAX_SEATS][JA_MAX_SEATS])
{
    uint16_t combo[JA_MAX_SEATS];
    memcpy(combo, m[0].slot, sizeof combo);
    for (uint32_t i = 1; i < k; i++) /* insertion sort: the combination */
        for (uint32_t j = i; j > 0 && combo[j - 1] > combo[j]; j--) {
            uint16_t t = combo[j];
            combo[j] = combo[j - 1];
            combo[j - 1] = t;
        }
    memset(next, 0, sizeof(uint32_t) * JA_MAX_SEATS * JA_MAX_SEATS);
    memset(seat, 0, sizeof(uint32_t) * JA_MAX_SEATS * JA_MAX_SEATS);
    for (uint32_t i = 0; i < per; i++) {
        uint32_t pos[JA_MAX_SEATS];
        for (uint32_t s = 0; s < k; s++) {
            pos[s] = k;
            for (uint32_t x = 0; x < k; x++)
                if (combo[x] == m[i].slot[s])
                    pos[s] = x;
            assert_true(pos[s] < k); /* the same combination throughout */
            seat[pos[s]][s]++;
        }
        for (uint32_t s = 0; s < k; s++)
            next[pos[s]][pos[(s + 1) % k]]++;
    }
}

/* The bound of balanced seating for one combination of k seats played in
 * its `orders` seat orders times k rotations: every position in every seat
 * `orders` times; every ordered pair next to each other exactly k times
 * (once per order, in each of its k rotations) for k = 2 and odd k; for
 * even k >= 4, k times, but 2k for each position's one partner (a perfect
 * matching, symmetric), the spread of one order that k orders cannot avoid
 * (k^2 neighbour pairs over k(k-1) ordered pairs). Previous neighbours are
 * the same counts read the other way (prev[b][a] = next[a][b]), so every
 * bot also has every other as its previous neighbour equally often. */
static void assert_balanced_block(const ladder_plan_match *m, uint32_t k)
{
    uint32_t orders = ladder_seating_orders(LADDER_SEATING_BALANCED, k);
    uint32_t next[JA_MAX_SEATS][JA_MAX_SEATS], seat[JA_MAX_SEATS][JA_MAX_SEATS];
    count_block(m, orders * k, k, next, seat);
    for (uint32_t a = 0; a < k; a++) {
        for (uint32_t s = 0; s < k; s++)
            assert_int_equal(seat[a][s], orders);
        assert_int_equal(next[a][a], 0);
        uint32_t twice = 0;
        for (uint32_t b = 0; b < k; b++) {
            if (b == a)
                continue;
            if (k % 2 == 1 || k == 2) {
                assert_int_equal(next[a][b], k);
                continue;
            }
            assert_true(next[a][b] == k || next[a][b] == 2 * k);
            if (next[a][b] == 2 * k) {
                twice++;
                assert_int_equal(next[b][a], 2 * k); /* a matching: symmetric */
            }
        }
        assert_int_equal(twice, k % 2 == 1 || k == 2 ? 0 : 1);
    }
}

/* Every seat count from 2 to 20, alone (one combination) and in plans of
 * several combinations and rounds, both formats, with and without
 * duplicate: the bound above, per combination. */
static void test_seating_neighbours(void **state)
{
    (void)state;
    for (uint32_t k = 2; k <= JA_MAX_SEATS; k++) {
        uint32_t per = ladder_seating_orders(LADDER_SEATING_BALANCED, k) * k;
        /* Larger plans for small k only: the count is cubic in k. */
        int variants = k <= 10 ? 3 : 2;
        for (int f = 0; f <= LADDER_FORMAT_GAUNTLET; f++) {
            for (int v = 0; v < variants; v++) {
                ladder_plan_params p = params(k + (uint32_t)v, k, 1 + (v == 2), (ladder_format)f,
                                              v == 1, k);
                p.seating = LADDER_SEATING_BALANCED;
                uint32_t n;
                ladder_plan_match *m = gen(&p, &n);
                assert_int_equal(n % per, 0);
                for (uint32_t i = 0; i < n; i += per) {
                    assert_int_equal(m[i].rotation, 0);
                    assert_balanced_block(&m[i], k);
                    /* Duplicate: the whole block plays one deal. */
                    for (uint32_t j = 1; p.duplicate && j < per; j++)
                        assert_true(m[i + j].seed == m[i].seed);
                }
                ladder_plan_free(&m);
            }
        }
    }
    /* The bound can fail: cyclic seating gives each position one next
     * neighbour only (k times), and none for the others. */
    ladder_plan_params p = params(5, 5, 1, LADDER_FORMAT_ROUND_ROBIN, false, 1);
    uint32_t n, next[JA_MAX_SEATS][JA_MAX_SEATS], seat[JA_MAX_SEATS][JA_MAX_SEATS];
    ladder_plan_match *m = gen(&p, &n);
    count_block(m, n, 5, next, seat);
    assert_int_equal(next[0][1], 5);
    assert_int_equal(next[0][2], 0);
    ladder_plan_free(&m);
}

/* The same parameters give the same plan, byte for byte; the seating is
 * part of the parameters. */
static void test_seating_deterministic(void **state)
{
    (void)state;
    for (uint32_t k = 3; k <= JA_MAX_SEATS; k += 5) {
        ladder_plan_params p = params(k + 1, k, 1, LADDER_FORMAT_ROUND_ROBIN, true, 77);
        p.seating = LADDER_SEATING_BALANCED;
        uint32_t n1, n2;
        ladder_plan_match *a = gen(&p, &n1), *b = gen(&p, &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, n1 * sizeof *a);
        ladder_plan_free(&a);
        ladder_plan_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_order_three_choose_two),
        cmocka_unit_test(test_rotations),
        cmocka_unit_test(test_seat_balance),
        cmocka_unit_test(test_rounds_repeat),
        cmocka_unit_test(test_gauntlet),
        cmocka_unit_test(test_seeds_derive),
        cmocka_unit_test(test_duplicate),
        cmocka_unit_test(test_match_at_agrees),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_generate_capacity),
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_seating_names),
        cmocka_unit_test(test_seating_counts),
        cmocka_unit_test(test_seating_literal),
        cmocka_unit_test(test_seating_neighbours),
        cmocka_unit_test(test_seating_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
