/* Unit tests of live Elo (ladders/elo.h): known answers computed by hand
 * (the arithmetic is in the comments), the K schedule, the pairwise
 * decomposition of multiplayer matches with its 1/(n-1) scaling, shared
 * places, simultaneity, and seats held by the same player. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "elo.h"
#include "jackarena/ja_error.h"

#define EPS 1e-6

static void assert_near(double got, double want)
{
    if (fabs(got - want) > EPS)
        fail_msg("got %.9f, want %.9f", got, want);
}

static ladder_elo_seat seat(int64_t who, double rating, int64_t games, uint8_t place)
{
    ladder_elo_seat s;
    memset(&s, 0, sizeof s);
    s.who = who;
    s.rating = rating;
    s.games = games;
    s.place = place;
    return s;
}

static void test_expected(void **state)
{
    (void)state;
    /* Equal ratings: 1 / (1 + 10^0) = 0.5. */
    assert_near(ladder_elo_expected(1500, 1500), 0.5);
    /* 200 points: 1 / (1 + 10^(-200/400)) = 1 / (1 + 0.316227766) = 0.759746927. */
    assert_near(ladder_elo_expected(1600, 1400), 0.759746927);
    assert_near(ladder_elo_expected(1400, 1600), 0.240253073);
    /* 400 points is 10:1 odds: 10/11 and 1/11. */
    assert_near(ladder_elo_expected(1900, 1500), 10.0 / 11.0);
    assert_near(ladder_elo_expected(1500, 1900), 1.0 / 11.0);
    /* 100 points: 1 / (1 + 10^(-0.25)) = 1 / 1.562341325 = 0.640065000. */
    assert_near(ladder_elo_expected(1600, 1500), 0.640065000);
    /* Symmetric: the two expectations sum to 1. */
    assert_near(ladder_elo_expected(1234, 1777) + ladder_elo_expected(1777, 1234), 1.0);
}

static void test_k_schedule(void **state)
{
    (void)state;
    assert_near(ladder_elo_k(0), 32.0);
    assert_near(ladder_elo_k(29), 32.0);
    assert_near(ladder_elo_k(30), 16.0);
    assert_near(ladder_elo_k(100000), 16.0);
    assert_near(LADDER_ELO_INITIAL, 1500.0);
}

static void test_pair_score(void **state)
{
    (void)state;
    assert_near(ladder_elo_pair_score(1, 2), 1.0);
    assert_near(ladder_elo_pair_score(2, 1), 0.0);
    assert_near(ladder_elo_pair_score(3, 3), 0.5);
}

static void test_two_players(void **state)
{
    (void)state;
    /* A 1600 beats B 1400, both new (K = 32), n - 1 = 1:
     * A: 32 * (1 - 0.759746927) = +7.688098347
     * B: 32 * (0 - 0.240253073) = -7.688098347 */
    ladder_elo_seat s[2] = {seat(1, 1600, 0, 1), seat(2, 1400, 0, 2)};
    assert_int_equal(ladder_elo_match(s, 2), JA_OK);
    assert_near(s[0].delta, 7.688098347);
    assert_near(s[1].delta, -7.688098347);
    assert_int_equal(s[0].wins, 1);
    assert_int_equal(s[0].losses, 0);
    assert_int_equal(s[1].losses, 1);
    /* Ratings themselves are not changed. */
    assert_near(s[0].rating, 1600);

    /* Equal ratings, a win: +-32 * 0.5 = 16. A draw: 0. */
    ladder_elo_seat w[2] = {seat(1, 1500, 0, 2), seat(2, 1500, 0, 1)};
    assert_int_equal(ladder_elo_match(w, 2), JA_OK);
    assert_near(w[0].delta, -16.0);
    assert_near(w[1].delta, 16.0);
    ladder_elo_seat d[2] = {seat(1, 1500, 0, 1), seat(2, 1500, 0, 1)};
    assert_int_equal(ladder_elo_match(d, 2), JA_OK);
    assert_near(d[0].delta, 0.0);
    assert_near(d[1].delta, 0.0);
    assert_int_equal(d[0].draws, 1);
    assert_int_equal(d[1].draws, 1);
}

static void test_k_per_player(void **state)
{
    (void)state;
    /* A 1500 with 30 games (K = 16) draws B 1700, new (K = 32):
     * A: 16 * (0.5 - 0.240253073) = +4.155950826
     * B: 32 * (0.5 - 0.759746927) = -8.311901653
     * Each player's own K: the update is not zero-sum while one is new. */
    ladder_elo_seat s[2] = {seat(1, 1500, 30, 1), seat(2, 1700, 0, 1)};
    assert_int_equal(ladder_elo_match(s, 2), JA_OK);
    assert_near(s[0].delta, 4.155950826);
    assert_near(s[1].delta, -8.311901653);
}

static void test_three_players(void **state)
{
    (void)state;
    /* Ratings 1600, 1500, 1400 finish 3rd, 1st, 2nd; all new, so each pair
     * moves by K/(n-1) = 32/2 = 16 times (S - E):
     *  seat 0 (1600, 3rd): (0 - 0.640065000) + (0 - 0.759746927)
     *                      = -1.399811927 -> -22.396990823
     *  seat 1 (1500, 1st): (1 - 0.359935000) + (1 - 0.640065000)
     *                      = 1.000000000 -> +16.000000000
     *  seat 2 (1400, 2nd): (1 - 0.240253073) + (0 - 0.359935000)
     *                      = 0.399811927 -> +6.396990823 */
    ladder_elo_seat s[3] = {seat(1, 1600, 0, 3), seat(2, 1500, 0, 1), seat(3, 1400, 0, 2)};
    assert_int_equal(ladder_elo_match(s, 3), JA_OK);
    assert_near(s[0].delta, -22.396990823);
    assert_near(s[1].delta, 16.0);
    assert_near(s[2].delta, 6.396990823);
    /* Equal K: zero-sum. */
    assert_near(s[0].delta + s[1].delta + s[2].delta, 0.0);
    assert_int_equal(s[0].losses, 2);
    assert_int_equal(s[1].wins, 2);
    assert_int_equal(s[2].wins, 1);
    assert_int_equal(s[2].losses, 1);
}

static void test_shared_places(void **state)
{
    (void)state;
    /* Places 1, 1, 3 at 1500, new: seats 0 and 1 draw each other (0) and
     * both beat seat 2: 16 * (0.5 - 0.5) + 16 * (1 - 0.5) = +8 each; seat 2
     * loses twice: 16 * (-0.5) * 2 = -16. */
    ladder_elo_seat s[3] = {seat(1, 1500, 0, 1), seat(2, 1500, 0, 1), seat(3, 1500, 0, 3)};
    assert_int_equal(ladder_elo_match(s, 3), JA_OK);
    assert_near(s[0].delta, 8.0);
    assert_near(s[1].delta, 8.0);
    assert_near(s[2].delta, -16.0);
    assert_int_equal(s[0].draws, 1);
    assert_int_equal(s[0].wins, 1);
}

/* The 1/(n-1) scaling: beating n-1 equal opponents moves a rating as much
 * as beating one in a two-player game, K * 0.5 = 16, whatever n is. */
static void test_scaling(void **state)
{
    (void)state;
    for (uint32_t n = 2; n <= JA_MAX_SEATS; n++) {
        ladder_elo_seat s[JA_MAX_SEATS];
        for (uint32_t i = 0; i < n; i++)
            s[i] = seat(i, 1500, 0, (uint8_t)(i + 1));
        assert_int_equal(ladder_elo_match(s, n), JA_OK);
        assert_near(s[0].delta, 16.0);
        assert_near(s[n - 1].delta, -16.0);
        double sum = 0;
        for (uint32_t i = 0; i < n; i++)
            sum += s[i].delta;
        assert_near(sum, 0.0);
    }
}

/* Simultaneous update: the seats' order does not matter, since every change
 * is computed from the ratings before the match. */
static void test_order_independent(void **state)
{
    (void)state;
    ladder_elo_seat a[4] = {seat(1, 1712, 3, 2), seat(2, 1498, 40, 1), seat(3, 1350, 0, 4),
                            seat(4, 1605, 31, 2)};
    ladder_elo_seat b[4] = {a[3], a[2], a[1], a[0]};
    assert_int_equal(ladder_elo_match(a, 4), JA_OK);
    assert_int_equal(ladder_elo_match(b, 4), JA_OK);
    for (int i = 0; i < 4; i++) {
        assert_near(a[i].delta, b[3 - i].delta);
        assert_int_equal(a[i].wins, b[3 - i].wins);
    }
}

static void test_same_player_twice(void **state)
{
    (void)state;
    /* Player 7 holds seats 0 and 1 (places 1 and 2), player 9 seat 2 (3rd),
     * all at 1500, new. The self-pair is skipped but n-1 stays 2:
     * seat 0: 16 * (1 - 0.5) = +8; seat 1: +8; seat 2: 16 * (-0.5) * 2 = -16. */
    ladder_elo_seat s[3] = {seat(7, 1500, 0, 1), seat(7, 1500, 0, 2), seat(9, 1500, 0, 3)};
    assert_int_equal(ladder_elo_match(s, 3), JA_OK);
    assert_near(s[0].delta, 8.0);
    assert_near(s[1].delta, 8.0);
    assert_near(s[2].delta, -16.0);
    assert_int_equal(s[0].wins + s[0].draws + s[0].losses, 1);
    assert_int_equal(s[2].losses, 2);
}

static void test_rejects(void **state)
{
    (void)state;
    ladder_elo_seat s[3] = {seat(1, 1500, 0, 1), seat(2, 1500, 0, 2), seat(3, 1500, 0, 0)};
    s[0].delta = 123.0;
    assert_int_equal(ladder_elo_match(s, 3), JA_EINVAL); /* place 0 */
    assert_near(s[0].delta, 123.0);                       /* nothing written */
    s[2].place = 4;
    assert_int_equal(ladder_elo_match(s, 3), JA_EINVAL); /* place above n */
    assert_int_equal(ladder_elo_match(s, 1), JA_EINVAL);
    assert_int_equal(ladder_elo_match(NULL, 2), JA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expected),
        cmocka_unit_test(test_k_schedule),
        cmocka_unit_test(test_pair_score),
        cmocka_unit_test(test_two_players),
        cmocka_unit_test(test_k_per_player),
        cmocka_unit_test(test_three_players),
        cmocka_unit_test(test_shared_places),
        cmocka_unit_test(test_scaling),
        cmocka_unit_test(test_order_independent),
        cmocka_unit_test(test_same_player_twice),
        cmocka_unit_test(test_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
