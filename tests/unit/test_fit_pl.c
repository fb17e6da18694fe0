/* Unit tests of the Plackett-Luce fit (ladders/fit_pl.h, fit.h with
 * LADDER_FIT_PLACKETT_LUCE) and of the models' cross-validation
 * (ladders/fit_cv.h): the probability of an order and of a tie worked out
 * by hand, the analytic gradient and information against finite
 * differences, two seats without draws giving Bradley-Terry's fit exactly,
 * the model's names, and the cross-validation's folds, skips and scores.
 * tests/ratings/test_pl_reference.py checks the whole fit, intervals
 * included, against an independent implementation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fit.h"
#include "fit_cv.h"
#include "fit_pl.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "stats.h"

static void near(double got, double want, double eps)
{
    if (!(fabs(got - want) <= eps))
        fail_msg("got %.12f, want %.12f (+-%g)", got, want, eps);
}

static ladder_fit_match match_of(uint32_t n, const uint32_t *p, const uint8_t *pl, int64_t deal)
{
    ladder_fit_match m;
    memset(&m, 0, sizeof m);
    m.cluster = deal;
    m.n_seats = n;
    for (uint32_t i = 0; i < n; i++) {
        m.player[i] = p[i];
        m.place[i] = pl[i];
    }
    return m;
}

/* Strengths g = 1, 2, 3 (Elo = 400 log10 g).
 *  - 2 first, 0 second, 1 last: P = 3/6 * 1/3 = 1/6.
 *  - 1 and 2 tied first, 0 last: Efron's term is g1 g2 / (S (S - (g1 +
 *    g2)/2)) = 6 / (6 * 3.5) = 2/7, times 2! = 4/7 (the exact chance
 *    that they take the first two places, 2/6 * 3/4 + 3/6 * 2/3 = 7/12,
 *    is close).
 *  - all three tied: Efron's term is 6 / (6 * 4 * 2) = 1/8, times 3! =
 *    3/4.
 *  - equal ratings, 4 seats with places 1, 2, 2, 4: exactly the uniform
 *    chance 1/4 * 1/C(3, 2) = 1/12. */
static void test_log_prob(void **state)
{
    (void)state;
    double elo[4] = {0.0, 400.0 * log10(2.0), 400.0 * log10(3.0), 0.0};
    uint32_t p[4] = {0, 1, 2, 3};
    ladder_fit_match m = match_of(3, p, (const uint8_t[]){2, 3, 1}, 0);
    near(ladder_pl_log_prob(&m, elo), log(1.0 / 6.0), 1e-12);
    m = match_of(3, p, (const uint8_t[]){3, 1, 1}, 0);
    near(ladder_pl_log_prob(&m, elo), log(4.0 / 7.0), 1e-12);
    m = match_of(3, p, (const uint8_t[]){1, 1, 1}, 0);
    near(ladder_pl_log_prob(&m, elo), log(3.0 / 4.0), 1e-12);
    double equal[4] = {1500.0, 1500.0, 1500.0, 1500.0};
    m = match_of(4, p, (const uint8_t[]){2, 1, 4, 2}, 0);
    near(ladder_pl_log_prob(&m, equal), log(1.0 / 12.0), 1e-12);
    /* One player in every seat: no comparison. */
    m = match_of(2, (const uint32_t[]){1, 1}, (const uint8_t[]){1, 2}, 0);
    near(ladder_pl_log_prob(&m, elo), 0.0, 0.0);
}

/* The gradient and the information of ladder_pl_match against central
 * differences of the log-likelihood and of the gradient, on a match with
 * a tie in the middle, a tie at the end and a player in two seats, with a
 * player left out (loc -1) and a weight. */
static void test_derivatives(void **state)
{
    (void)state;
    ladder_fit_match m = match_of(6, (const uint32_t[]){0, 1, 2, 3, 1, 4},
                                  (const uint8_t[]){2, 1, 2, 5, 5, 4}, 0);
    int32_t loc[5] = {0, 1, 2, 3, -1};
    double th[4] = {0.3, -0.2, 0.5, 0.1}, w = 0.5, g[4] = {0}, h[16] = {0};
    double ll = ladder_pl_match(&m, loc, 4, th, w, g, h);
    near(ladder_pl_match(&m, loc, 4, th, w, NULL, NULL), ll, 1e-15);
    for (int i = 0; i < 4; i++) {
        double t[4], e = 1e-6, ga[4] = {0}, gb[4] = {0};
        memcpy(t, th, sizeof t);
        t[i] += e;
        double a = ladder_pl_match(&m, loc, 4, t, w, ga, NULL);
        t[i] -= 2 * e;
        double b = ladder_pl_match(&m, loc, 4, t, w, gb, NULL);
        near(g[i], (a - b) / (2 * e), 1e-8);
        for (int j = 0; j < 4; j++)
            near(h[i * 4 + j], -(ga[j] - gb[j]) / (2 * e), 1e-7);
    }
    /* The log-likelihood does not change when every theta does. */
    double s = 0.0;
    for (int i = 0; i < 4; i++)
        s += g[i];
    near(s, 0.0, 1e-12);
    /* Fewer than two players fitted: nothing. */
    int32_t one[5] = {0, -1, -1, -1, -1};
    near(ladder_pl_match(&m, one, 4, th, 1.0, g, h), 0.0, 0.0);
}

/* Two seats without draws: Plackett-Luce is Bradley-Terry, and the two fits
 * agree in everything (three players, uneven results, deals of two
 * matches). */
static void test_two_seats_is_bradley_terry(void **state)
{
    (void)state;
    ladder_fit_match m[60];
    size_t n = 0;
    uint32_t seed = 99;
    for (int d = 0; d < 30; d++)
        for (int r = 0; r < 2; r++) {
            seed = seed * 1103515245u + 12345u;
            uint32_t a = (seed >> 8) % 3, b = (a + 1 + (seed >> 12) % 2) % 3;
            bool a_wins = (seed >> 16) % 5 < 1 + a;
            m[n++] = match_of(2, (const uint32_t[]){a, b}, (const uint8_t[]){a_wins ? 1 : 2,
                                                                            a_wins ? 2 : 1}, d);
        }
    ladder_fit_opts o;
    ladder_fit_opts_init(&o);
    ladder_fit *bt = NULL, *pl = NULL;
    o.model = LADDER_FIT_BRADLEY_TERRY;
    assert_int_equal(ladder_fit_run(m, n, 3, &o, &bt), JA_OK);
    o.model = LADDER_FIT_PLACKETT_LUCE;
    assert_int_equal(ladder_fit_run(m, n, 3, &o, &pl), JA_OK);
    for (int p = 0; p < 3; p++) {
        assert_int_equal(pl->players[p].status, LADDER_FIT_RATED);
        near(pl->players[p].elo, bt->players[p].elo, 1e-8);
        near(pl->players[p].se, bt->players[p].se, 1e-8);
        for (int q = 0; q < 3; q++)
            near(pl->cov[p * 3 + q], bt->cov[p * 3 + q], 1e-6);
    }
    assert_true(pl->parts[0].converged);
    assert_int_equal(pl->parts[0].clusters, 30);
    ladder_fit_free(&bt);
    ladder_fit_free(&pl);
}

static void test_model_names(void **state)
{
    (void)state;
    ladder_fit_model md = LADDER_FIT_MODEL_COUNT;
    assert_int_equal(ladder_fit_model_parse("plackett-luce", &md), JA_OK);
    assert_int_equal(md, LADDER_FIT_PLACKETT_LUCE);
    assert_int_equal(ladder_fit_model_parse("bradley-terry", &md), JA_OK);
    assert_int_equal(md, LADDER_FIT_BRADLEY_TERRY);
    assert_int_equal(ladder_fit_model_parse("elo", &md), JA_EINVAL);
    assert_int_equal(ladder_fit_model_parse(NULL, &md), JA_EINVAL);
    assert_string_equal(ladder_fit_model_name(LADDER_FIT_PLACKETT_LUCE), "plackett-luce");
    assert_null(ladder_fit_model_name(LADDER_FIT_MODEL_COUNT));
    ladder_fit_opts o;
    ladder_fit_opts_init(&o);
    assert_int_equal(o.model, LADDER_FIT_DEFAULT_MODEL);
    o.model = LADDER_FIT_MODEL_COUNT;
    ladder_fit_match m = match_of(2, (const uint32_t[]){0, 1}, (const uint8_t[]){1, 2}, 0);
    ladder_fit *f = NULL;
    assert_int_equal(ladder_fit_run(&m, 1, 2, &o, &f), JA_EINVAL);
    assert_null(f);
}

/* Orders of 4 seats from Plackett-Luce with strengths 200 Elo apart, 6
 * players, n deals of one match each. */
static size_t simulate(ladder_fit_match *m, size_t n, uint64_t seed)
{
    ja_rng r;
    ja_rng_seed(&r, seed);
    for (size_t d = 0; d < n; d++) {
        uint32_t p[4], k = 0;
        while (k < 4) {
            uint32_t x = (uint32_t)(ja_rng_next(&r) % 6), dup = 0;
            for (uint32_t j = 0; j < k; j++)
                dup |= p[j] == x;
            if (!dup)
                p[k++] = x;
        }
        uint8_t pl[4] = {0};
        for (uint8_t place = 1; place <= 4; place++) {
            double tot = 0.0, u;
            for (uint32_t j = 0; j < 4; j++)
                tot += pl[j] ? 0.0 : pow(10.0, p[j] * 200.0 / 400.0);
            u = (double)(ja_rng_next(&r) >> 11) * 0x1.0p-53 * tot;
            for (uint32_t j = 0; j < 4; j++) {
                if (pl[j])
                    continue;
                u -= pow(10.0, p[j] * 200.0 / 400.0);
                if (u < 0.0 || place == 4 || j == 3) {
                    pl[j] = place;
                    break;
                }
            }
        }
        m[d] = match_of(4, p, pl, (int64_t)d);
    }
    return n;
}

static void test_crossval(void **state)
{
    (void)state;
    static ladder_fit_match m[400];
    size_t n = simulate(m, 400, 7);
    ladder_cv cv;
    assert_int_equal(ladder_fit_crossval(m, n, 6, 5, &cv), JA_OK);
    assert_int_equal(cv.folds, 5);
    assert_int_equal(cv.clusters, 400);
    assert_int_equal(cv.scored + cv.skipped, 400);
    assert_int_equal(cv.skipped, 0);
    near(cv.weight, 400.0, 1e-9);
    near(cv.pairs, 2400.0, 1e-9);
    /* Equal ratings: log 4! per order, log 2 per pair, top-1 1/4. */
    near(cv.equal.order_logloss, log(24.0), 1e-12);
    near(cv.equal.pair_logloss, log(2.0), 1e-12);
    near(cv.equal.top1, 0.25, 1e-12);
    for (unsigned md = 0; md < LADDER_FIT_MODEL_COUNT; md++) {
        assert_true(cv.model[md].order_logloss < cv.equal.order_logloss - 0.3);
        assert_true(cv.model[md].pair_logloss < cv.equal.pair_logloss - 0.05);
        assert_true(cv.model[md].top1 > 0.4);
    }
    /* Both estimate the same ratings here (Plackett-Luce's pairs are
     * Bradley-Terry's): their predictions are close. */
    near(cv.model[LADDER_FIT_PLACKETT_LUCE].order_logloss,
         cv.model[LADDER_FIT_BRADLEY_TERRY].order_logloss, 0.02);
    print_message("order log-loss: equal %.4f, bradley-terry %.4f, plackett-luce %.4f\n",
                  cv.equal.order_logloss, cv.model[LADDER_FIT_BRADLEY_TERRY].order_logloss,
                  cv.model[LADDER_FIT_PLACKETT_LUCE].order_logloss);

    /* A player seen only in held-out matches is skipped, by every model. */
    m[0].player[0] = 6;
    assert_int_equal(ladder_fit_crossval(m, n, 7, 5, &cv), JA_OK);
    assert_int_equal(cv.skipped, 1);
    assert_int_equal(cv.scored, 399);

    /* Folds: at most one a deal; fewer than two deals, or one fold, refused. */
    assert_int_equal(ladder_fit_crossval(m, 3, 7, 0, &cv), JA_OK);
    assert_int_equal(cv.folds, 3);
    assert_int_equal(ladder_fit_crossval(m, 1, 7, 0, &cv), JA_EINVAL);
    assert_int_equal(ladder_fit_crossval(m, n, 7, 1, &cv), JA_EINVAL);
    assert_int_equal(ladder_fit_crossval(m, n, 0, 5, &cv), JA_EINVAL);
    assert_int_equal(ladder_fit_crossval(m, n, LADDER_FIT_MAX_PLAYERS + 1, 5, &cv), JA_ERANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_prob),
        cmocka_unit_test(test_derivatives),
        cmocka_unit_test(test_two_seats_is_bradley_terry),
        cmocka_unit_test(test_model_names),
        cmocka_unit_test(test_crossval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
