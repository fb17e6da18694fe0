/* Unit tests of the paired statistics and the generalized SPRT
 * (ladders/sprt.h): Wald's bounds, the log-likelihood ratio in cases solved
 * by hand (two and three support points), the regularised pentanomial LLR
 * against an independent implementation of fishtest's algorithm, the
 * normalized-Elo LLR against an independent maximisation of the likelihood,
 * the decision, the gauntlet's bounds and decision, and the Elo and
 * normalized Elo intervals and LOS of paired results. The source of every
 * expected value is written next to it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "sprt.h"
#include "stats.h"

static void near(double got, double want, double eps)
{
    if (!(fabs(got - want) <= eps))
        fail_msg("got %.12f, want %.12f (+-%g)", got, want, eps);
}

static void test_bounds(void **state)
{
    (void)state;
    double lo, hi;
    /* Wald (1945): ln(beta / (1 - alpha)) and ln((1 - beta) / alpha); with
     * alpha = beta = 0.05 they are -+ln 19 = -+2.944438979166. */
    assert_int_equal(ladder_sprt_bounds(0.05, 0.05, &lo, &hi), JA_OK);
    near(lo, -2.944438979166, 1e-12);
    near(hi, 2.944438979166, 1e-12);
    /* alpha 0.05, beta 0.1: ln(0.1 / 0.95) = -2.251291798606, ln 18 = 2.890371757896. */
    assert_int_equal(ladder_sprt_bounds(0.05, 0.1, &lo, &hi), JA_OK);
    near(lo, -2.251291798606, 1e-12);
    near(hi, 2.890371757896, 1e-12);
    assert_int_equal(ladder_sprt_bounds(0.0, 0.05, &lo, &hi), JA_EINVAL);
    assert_int_equal(ladder_sprt_bounds(0.6, 0.5, &lo, &hi), JA_EINVAL);
    assert_int_equal(ladder_sprt_bounds(0.05, 0.05, NULL, &hi), JA_EINVAL);
}

/* With two support points {0, 1} the distribution of mean s is forced
 * (p1 = s), so the generalized LLR is the classical binomial one:
 * 70 ln(0.6 / 0.5) + 30 ln(0.4 / 0.5) = 12.762509 - 6.694307 = 6.068202436. */
static void test_llr_two_points(void **state)
{
    (void)state;
    double v[2] = {0.0, 1.0}, c[2] = {30, 70}, llr;
    assert_int_equal(ladder_gsprt_llr(v, c, 2, 0.5, 0.6, &llr), JA_OK);
    near(llr, 6.068202436150, 1e-9);
    /* Values in another order, and an empty cell: the same. */
    double v2[3] = {1.0, 0.5, 0.0}, c2[3] = {70, 0, 30};
    assert_int_equal(ladder_gsprt_llr(v2, c2, 3, 0.5, 0.6, &llr), JA_OK);
    near(llr, 6.068202436150, 1e-9);
}

/* Three support points {0, 1/2, 1} with counts 1, 2, 1 (mean 1/2):
 * under s0 = 1/2 the multiplier is x0 = 0 (the observed distribution
 * already has that mean). Under s1 = 0.6, with d = a - s = -0.6, -0.1, 0.4,
 * the secular equation
 *     0.25 (-0.6)/(1 - 0.6x) + 0.5 (-0.1)/(1 - 0.1x) + 0.25 (0.4)/(1 + 0.4x) = 0
 * times the three denominators is 0.024 x^2 - 0.105 x - 0.1 = 0, whose root
 * with every 1 + x d > 0 is x1 = (0.105 - sqrt(0.020625)) / 0.048
 * = -0.804459712. Then LLR = -N sum p_i ln(1 + x1 d_i)
 * = -4 (0.25 ln 1.482676 + 0.5 ln 1.080446 + 0.25 ln 0.678216)
 * = -0.160306943. */
static void test_llr_three_points(void **state)
{
    (void)state;
    double v[3] = {0.0, 0.5, 1.0}, c[3] = {1, 2, 1}, llr;
    assert_int_equal(ladder_gsprt_llr(v, c, 3, 0.5, 0.6, &llr), JA_OK);
    near(llr, -0.160306943223, 1e-9);
    /* The ratio is antisymmetric in (s0, s1). */
    double back;
    assert_int_equal(ladder_gsprt_llr(v, c, 3, 0.6, 0.5, &back), JA_OK);
    near(back, -llr, 1e-12);
}

static void test_llr_errors(void **state)
{
    (void)state;
    double v[2] = {0.0, 1.0}, c[2] = {0, 5}, llr;
    /* All results at 1: no distribution on {1} has mean 0.5. */
    assert_int_equal(ladder_gsprt_llr(v, c, 2, 0.5, 0.6, &llr), JA_ERANGE);
    double z[2] = {0, 0};
    assert_int_equal(ladder_gsprt_llr(v, z, 2, 0.5, 0.6, &llr), JA_EINVAL);
    double neg[2] = {-1, 3};
    assert_int_equal(ladder_gsprt_llr(v, neg, 2, 0.5, 0.6, &llr), JA_EINVAL);
    assert_int_equal(ladder_gsprt_llr(NULL, c, 2, 0.5, 0.6, &llr), JA_EINVAL);
    assert_int_equal(ladder_sprt_llr(c, 1, 0, 50, &llr), JA_EINVAL);
    assert_int_equal(ladder_sprt_llr(c, 2, 50, 0, &llr), JA_EINVAL);
    /* An empty histogram has LLR 0. */
    double e[5] = {0};
    assert_int_equal(ladder_sprt_llr(e, 5, 0, 50, &llr), JA_OK);
    near(llr, 0.0, 0);
}

/* The regularised pentanomial LLR, H0: 0 Elo (s0 = 1/2), H1: 50 Elo
 * (s1 = L(50) = 0.571463117408) or 10 Elo (s1 = 0.514387184166). Expected
 * values from an independent Python implementation of fishtest's
 * LLRcalc.py (regularize, MLE_expected via the secular equation, LLRjumps,
 * LLR * N), written for this test:
 *   [0,0,0,0,10]   0,50: 1.336164862350   0,10:  0.283737482840
 *   [0,0,10,0,0]   0,50: -1.534915898589  0,10: -0.285795862019
 *   [3,10,20,12,5] 0,50: -0.306603874893  0,10:  0.244589077113
 * and for a 3-seat grid of 13 cells (scores i/12) with counts 1 at 3/12,
 * 4 at 6/12, 3 at 8/12 and 1 at 12/12, 0,50: 0.837675655905. */
static void test_llr_pentanomial(void **state)
{
    (void)state;
    static const struct {
        double c[5], l50, l10;
    } cases[] = {
        {{0, 0, 0, 0, 10}, 1.336164862350, 0.283737482840},
        {{0, 0, 10, 0, 0}, -1.534915898589, -0.285795862019},
        {{3, 10, 20, 12, 5}, -0.306603874893, 0.244589077113},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double llr;
        assert_int_equal(ladder_sprt_llr(cases[i].c, 5, 0, 50, &llr), JA_OK);
        near(llr, cases[i].l50, 1e-9);
        assert_int_equal(ladder_sprt_llr(cases[i].c, 5, 0, 10, &llr), JA_OK);
        near(llr, cases[i].l10, 1e-9);
    }
    double g[13] = {0}, llr;
    g[3] = 1;
    g[6] = 4;
    g[8] = 3;
    g[12] = 1;
    assert_int_equal(ladder_sprt_llr(g, 13, 0, 50, &llr), JA_OK);
    near(llr, 0.837675655905, 1e-9);
}

/* The normalized-Elo LLR (t-value hypotheses, ref 1/2, t = sqrt(G) nElo /
 * (800 / ln 10)). Expected values from an independent Python (numpy)
 * maximisation written for this test, not Van den Bergh's fixed point: for
 * each candidate mean m, the empirical-likelihood dual (A. B. Owen,
 * "Empirical likelihood ratio confidence intervals for a single
 * functional", Biometrika 75(2), 1988) with the two constraints E[X] = m
 * and Var[X] = ((m - 1/2) / t)^2, solved by damped Newton, then the best m
 * by a grid and golden-section search; regularised as fishtest does:
 *   [3,10,20,12,5]  G 2, 0,50:    0.147663462510
 *   [0,0,0,0,10]    G 2, 0,50:    1.818531253769
 *   [0,0,10,0,0]    G 2, 0,50:   -0.399812584075
 *   [1,4,12,8,2]    G 2, -20,30:  1.165484771602
 * and the 3-seat grid of test_llr_pentanomial, G 3, 0,50: 0.691504587343. */
static void test_llr_nelo(void **state)
{
    (void)state;
    static const struct {
        double c[5], e0, e1, llr;
    } cases[] = {
        {{3, 10, 20, 12, 5}, 0, 50, 0.147663462510},
        {{0, 0, 0, 0, 10}, 0, 50, 1.818531253769},
        {{0, 0, 10, 0, 0}, 0, 50, -0.399812584075},
        {{1, 4, 12, 8, 2}, -20, 30, 1.165484771602},
    };
    double llr;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(ladder_sprt_llr_model(cases[i].c, 5, LADDER_SPRT_NELO, 2, cases[i].e0,
                                               cases[i].e1, &llr),
                         JA_OK);
        near(llr, cases[i].llr, 1e-8);
    }
    double g[13] = {0};
    g[3] = 1;
    g[6] = 4;
    g[8] = 3;
    g[12] = 1;
    assert_int_equal(ladder_sprt_llr_model(g, 13, LADDER_SPRT_NELO, 3, 0, 50, &llr), JA_OK);
    near(llr, 0.691504587343, 1e-8);
    /* The logistic model through the same entry is ladder_sprt_llr. */
    double c[5] = {3, 10, 20, 12, 5}, want;
    assert_int_equal(ladder_sprt_llr(c, 5, 0, 50, &want), JA_OK);
    assert_int_equal(ladder_sprt_llr_model(c, 5, LADDER_SPRT_LOGISTIC, 0, 0, 50, &llr), JA_OK);
    near(llr, want, 0);
    /* Antisymmetric in (t0, t1), as any likelihood ratio. */
    double v[5] = {0, 0.25, 0.5, 0.75, 1}, back;
    assert_int_equal(ladder_gsprt_llr_t(v, c, 5, 0.5, 0.0, 0.2, &llr), JA_OK);
    assert_int_equal(ladder_gsprt_llr_t(v, c, 5, 0.5, 0.2, 0.0, &back), JA_OK);
    near(back, -llr, 1e-9);
    /* Errors: no matches a deal, elo0 >= elo1, a bad count; an empty
     * histogram is 0. */
    assert_int_equal(ladder_sprt_llr_model(c, 5, LADDER_SPRT_NELO, 0, 0, 50, &llr), JA_EINVAL);
    assert_int_equal(ladder_sprt_llr_model(c, 5, LADDER_SPRT_NELO, 2, 50, 50, &llr), JA_EINVAL);
    double neg[5] = {1, -1, 0, 0, 0}, none[5] = {0};
    assert_int_equal(ladder_sprt_llr_model(neg, 5, LADDER_SPRT_NELO, 2, 0, 50, &llr), JA_EINVAL);
    assert_int_equal(ladder_sprt_llr_model(none, 5, LADDER_SPRT_NELO, 2, 0, 50, &llr), JA_OK);
    near(llr, 0.0, 0);
    /* One support point has no standard deviation: no t-value. */
    double one[5] = {0, 0, 4, 0, 0};
    assert_int_equal(ladder_gsprt_llr_t(v, one, 5, 0.5, 0.0, 0.2, &llr), JA_ERANGE);
    assert_string_equal(ladder_sprt_model_name(LADDER_SPRT_NELO), "nelo");
    assert_string_equal(ladder_sprt_model_name(LADDER_SPRT_LOGISTIC), "logistic");
}

/* A gauntlet of k tests: each at alpha and beta / k. For k = 2 and
 * alpha = beta = 0.05: ln(0.025 / 0.95) = -3.637586159726 and
 * ln(0.975 / 0.05) = 2.970414465570; k = 1 is the single test. */
static void test_gauntlet(void **state)
{
    (void)state;
    double lo, hi;
    assert_int_equal(ladder_gauntlet_bounds(0.05, 0.05, 2, &lo, &hi), JA_OK);
    near(lo, -3.637586159726, 1e-12);
    near(hi, 2.970414465570, 1e-12);
    assert_int_equal(ladder_gauntlet_bounds(0.05, 0.05, 1, &lo, &hi), JA_OK);
    near(lo, -2.944438979166, 1e-12);
    assert_int_equal(ladder_gauntlet_bounds(0.05, 0.05, 0, &lo, &hi), JA_EINVAL);
    const ladder_sprt_decision C = LADDER_SPRT_CONTINUE, H0 = LADDER_SPRT_H0,
                               H1 = LADDER_SPRT_H1;
    ladder_sprt_decision all1[3] = {H1, H1, H1}, some[3] = {H1, C, H1}, one0[3] = {H1, C, H0};
    assert_int_equal(ladder_gauntlet_decide(all1, 3), LADDER_SPRT_H1);
    assert_int_equal(ladder_gauntlet_decide(some, 3), LADDER_SPRT_CONTINUE);
    assert_int_equal(ladder_gauntlet_decide(one0, 3), LADDER_SPRT_H0);
    assert_int_equal(ladder_gauntlet_decide(all1, 0), LADDER_SPRT_CONTINUE);
}

static void test_decide(void **state)
{
    (void)state;
    double lo = -2.944438979166, hi = 2.944438979166;
    assert_int_equal(ladder_sprt_decide(0.0, lo, hi), LADDER_SPRT_CONTINUE);
    assert_int_equal(ladder_sprt_decide(2.95, lo, hi), LADDER_SPRT_H1);
    assert_int_equal(ladder_sprt_decide(hi, lo, hi), LADDER_SPRT_H1);
    assert_int_equal(ladder_sprt_decide(-3.0, lo, hi), LADDER_SPRT_H0);
    assert_string_equal(ladder_sprt_decision_name(LADDER_SPRT_H1), "H1");
    assert_string_equal(ladder_sprt_decision_name(LADDER_SPRT_H0), "H0");
    assert_string_equal(ladder_sprt_decision_name(LADDER_SPRT_CONTINUE), "inconclusive");
}

/* Paired statistics of the pentanomial [0, 1, 2, 4, 3] (10 deals), by hand:
 * mean = (0.25 + 2 * 0.5 + 4 * 0.75 + 3 * 1) / 10 = 0.725;
 * sum c (a - mean)^2 = 0.225625 + 0.10125 + 0.0025 + 0.226875 = 0.55625,
 * sd = sqrt(0.55625 / 9) = 0.248607232, se = sd / sqrt 10 = 0.078616509;
 * interval 0.725 -+ 1.959964 se = [0.570914473, 0.879085527];
 * Elo 400 log10(0.725 / 0.275) = 168.402125, interval [49.610875,
 * 344.621137]; LOS = Phi(0.225 / 0.078616509) = Phi(2.862 ...) = 0.997895077. */
static void test_paired_stats(void **state)
{
    (void)state;
    double c[5] = {0, 1, 2, 4, 3};
    ladder_paired_stats st;
    assert_int_equal(ladder_paired_stats_compute(c, 5, LADDER_Z95, &st), JA_OK);
    near(st.n, 10, 0);
    near(st.mean, 0.725, 1e-12);
    near(st.sd, 0.248607231503, 1e-9);
    near(st.se, 0.078616509434, 1e-9);
    near(st.score_lo, 0.570914472919, 1e-9);
    near(st.score_hi, 0.879085527081, 1e-9);
    near(st.elo, 168.402125096, 1e-6);
    near(st.elo_lo, 49.610874611, 1e-6);
    near(st.elo_hi, 344.621137195, 1e-6);
    near(st.los, 0.997895077451, 1e-9);
    assert_false(st.conservative);
    /* Normalized Elo with two matches a deal: (mean - 1/2) / (sd sqrt 2)
     * times 800 / ln 10 = 0.225 / 0.351582... * 347.435586 = 222.345355,
     * and the same map of the score interval: [70.077794, 374.612916]. */
    double ne, nlo, nhi;
    assert_true(ladder_paired_nelo(&st, 2, &ne, &nlo, &nhi));
    near(ne, 222.345355118, 1e-6);
    near(nlo, 70.077794063, 1e-6);
    near(nhi, 374.612916173, 1e-6);

    /* Every deal a full win: no finite Elo; Wilson's interval over n = 20
     * deals at z = 1.959964: the lower end n / (n + z^2) = 20 / 23.841459
     * = 0.838873, that is 400 log10(0.838873 / 0.161127) = 286.613525 Elo.
     * The LOS is the score test at 1/2 with variance 1/4:
     * Phi(2 * 0.5 * sqrt 20) = Phi(4.472136) = 0.999996128. */
    double w[5] = {0, 0, 0, 0, 20};
    assert_int_equal(ladder_paired_stats_compute(w, 5, LADDER_Z95, &st), JA_OK);
    assert_true(st.conservative);
    assert_true(isinf(st.elo) && st.elo > 0);
    assert_true(isinf(st.elo_hi));
    near(st.score_lo, 20.0 / (20.0 + LADDER_Z95 * LADDER_Z95), 1e-12);
    near(st.elo_lo, 286.613525, 1e-5);
    near(st.los, 0.999996128, 1e-9);
    /* No spread, no t-value: no normalized Elo. */
    assert_false(ladder_paired_nelo(&st, 2, &ne, &nlo, &nhi));
    assert_true(isnan(ne) && isnan(nlo) && isnan(nhi));

    /* Every deal exactly even: Elo 0, a symmetric Wilson interval. */
    double d[5] = {0, 0, 20, 0, 0};
    assert_int_equal(ladder_paired_stats_compute(d, 5, LADDER_Z95, &st), JA_OK);
    near(st.elo, 0.0, 1e-12);
    near(st.elo_lo, -st.elo_hi, 1e-9);
    near(st.los, 0.5, 1e-12);
    double none[5] = {0};
    assert_int_equal(ladder_paired_stats_compute(none, 5, LADDER_Z95, &st), JA_EINVAL);
}

/* Deal scores off the grid (bench --adjusted): on grid values they give
 * what the histogram gives; the LLR of values with two regularising
 * results at 0 and 1 is the histogram's with those cells; a value not
 * finite is refused. */
static void test_values(void **state)
{
    (void)state;
    double c[5] = {3, 10, 20, 12, 5}, x[50];
    size_t n = 0;
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < (int)c[i]; k++)
            x[n++] = i / 4.0;
    ladder_paired_stats h, v;
    assert_int_equal(ladder_paired_stats_compute(c, 5, LADDER_Z95, &h), JA_OK);
    assert_int_equal(ladder_paired_stats_values(x, n, LADDER_Z95, &v), JA_OK);
    near(v.mean, h.mean, 1e-12);
    near(v.sd, h.sd, 1e-12);
    near(v.elo_lo, h.elo_lo, 1e-9);
    near(v.los, h.los, 1e-12);
    assert_false(v.conservative);
    double vals[5] = {0, 0.25, 0.5, 0.75, 1}, llr_h, llr_v;
    assert_int_equal(ladder_sprt_llr_model(c, 5, LADDER_SPRT_LOGISTIC, 2, 0, 50, &llr_h), JA_OK);
    assert_int_equal(ladder_sprt_llr_values(vals, c, 5, LADDER_SPRT_LOGISTIC, 2, 0, 50, &llr_v),
                     JA_OK);
    near(llr_v, llr_h, 1e-9);
    assert_int_equal(ladder_sprt_llr_model(c, 5, LADDER_SPRT_NELO, 2, 0, 50, &llr_h), JA_OK);
    assert_int_equal(ladder_sprt_llr_values(vals, c, 5, LADDER_SPRT_NELO, 2, 0, 50, &llr_v),
                     JA_OK);
    near(llr_v, llr_h, 1e-9);
    /* Off the grid, and outside [0, 1]: a normal interval. */
    double y[4] = {-0.1, 0.4, 0.9, 1.2};
    assert_int_equal(ladder_paired_stats_values(y, 4, LADDER_Z95, &v), JA_OK);
    near(v.mean, 0.6, 1e-12);
    assert_false(v.conservative);
    double z[3] = {0.75, 0.75, 0.75};
    assert_int_equal(ladder_paired_stats_values(z, 3, LADDER_Z95, &v), JA_OK);
    assert_true(v.conservative);
    y[2] = NAN;
    assert_int_equal(ladder_paired_stats_values(y, 4, LADDER_Z95, &v), JA_EINVAL);
    assert_int_equal(ladder_paired_stats_values(y, 0, LADDER_Z95, &v), JA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds),         cmocka_unit_test(test_llr_two_points),
        cmocka_unit_test(test_llr_three_points), cmocka_unit_test(test_llr_errors),
        cmocka_unit_test(test_llr_pentanomial), cmocka_unit_test(test_llr_nelo),
        cmocka_unit_test(test_gauntlet),        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_paired_stats),    cmocka_unit_test(test_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
