/* ctest-label: slow
 *
 * Error rates of the SPRT (ladders/sprt.h) measured on many synthetic
 * paired results, no games played: when H0 is true, H1 must be accepted at
 * most alpha of the time; when H1 is true, H0 at most beta of the time.
 * Wald's bounds are built to hold these rates (the overshoot past a bound
 * only lowers them), and the generalized LLR is asymptotically the true
 * one (Van den Bergh), so a correct implementation lands at or a little
 * below alpha and beta.
 *
 * The paired results are pentanomial (two-seat duplicate deals): a
 * realistic shape, 5/25/40/25/5 % at equal strength (a strong correlation
 * between the two games of a deal, as duplicate deals give), tilted
 * exponentially to the expected score L(elo) of the true Elo difference.
 * One run plays on until the test decides (a cap of 200000 deals is never
 * reached in practice). Also a 3-seat grid (13 cells), from a trinomial
 * game model.
 *
 * Tolerance: a rate measured over R runs has a Monte Carlo standard error
 * of at most sqrt(0.05 * 0.95 / R) (0.0034 for R = 4000); the measured rate
 * must not exceed the nominal one by more than two such errors. The
 * average number of deals (ASN) is printed for docs/ratings.md. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "sprt.h"
#include "stats.h"

#define CAP 200000

static double uniform(ja_rng *r)
{
    return (double)(ja_rng_next(r) >> 11) * 0x1.0p-53;
}

/* p = base tilted by exp(t a_i), with t such that the mean is s. */
static void tilt(const double *base, size_t n, double s, double *p)
{
    double lo = -200, hi = 200;
    for (int it = 0; it < 200; it++) {
        double t = 0.5 * (lo + hi), z = 0, m = 0;
        for (size_t i = 0; i < n; i++) {
            double a = (double)i / (double)(n - 1), w = base[i] * exp(t * a);
            z += w;
            m += w * a;
        }
        if (m / z < s)
            lo = t;
        else
            hi = t;
    }
    double t = 0.5 * (lo + hi), z = 0;
    for (size_t i = 0; i < n; i++) {
        p[i] = base[i] * exp(t * (double)i / (double)(n - 1));
        z += p[i];
    }
    for (size_t i = 0; i < n; i++)
        p[i] /= z;
}

typedef struct rates {
    int h0, h1, undecided;
    double deals;
} rates;

/* Runs `runs` SPRTs of elo0 against elo1 on results drawn from p. */
static rates simulate(const double *p, size_t n, double elo0, double elo1, int runs, uint64_t seed)
{
    double lo, hi;
    assert_int_equal(ladder_sprt_bounds(0.05, 0.05, &lo, &hi), JA_OK);
    ja_rng r;
    ja_rng_seed(&r, seed);
    rates out = {0, 0, 0, 0};
    for (int run = 0; run < runs; run++) {
        double c[LADDER_SPRT_MAX_CELLS] = {0};
        ladder_sprt_decision d = LADDER_SPRT_CONTINUE;
        int k;
        for (k = 1; k <= CAP && d == LADDER_SPRT_CONTINUE; k++) {
            double u = uniform(&r);
            size_t i = 0;
            while (i + 1 < n && u >= p[i]) {
                u -= p[i];
                i++;
            }
            c[i]++;
            double llr;
            assert_int_equal(ladder_sprt_llr(c, n, elo0, elo1, &llr), JA_OK);
            d = ladder_sprt_decide(llr, lo, hi);
        }
        out.deals += k - 1;
        out.h0 += d == LADDER_SPRT_H0;
        out.h1 += d == LADDER_SPRT_H1;
        out.undecided += d == LADDER_SPRT_CONTINUE;
    }
    out.deals /= runs;
    return out;
}

static void report(const char *name, rates x, int runs, bool h0_true, double nominal)
{
    double wrong = (double)(h0_true ? x.h1 : x.h0) / runs;
    double tol = 2.0 * sqrt(nominal * (1.0 - nominal) / runs);
    printf("%-44s %s accepted %.4f of %d runs (nominal %.2f), ASN %.0f deals, undecided %d\n",
           name, h0_true ? "H1" : "H0", wrong, runs, nominal, x.deals, x.undecided);
    if (wrong > nominal + tol)
        fail_msg("%s: error rate %.4f above %.2f + %.4f", name, wrong, nominal, tol);
    assert_int_equal(x.undecided, 0);
}

static const double BASE5[5] = {0.05, 0.25, 0.40, 0.25, 0.05};

static void test_pentanomial_h0(void **state)
{
    (void)state;
    double p[5];
    tilt(BASE5, 5, ladder_score_of_elo(0.0), p);
    enum { RUNS = 4000 };
    report("pentanomial, true 0, SPRT(0, 50)", simulate(p, 5, 0, 50, RUNS, 1), RUNS, true, 0.05);
    /* A true difference just below elo0 is also H0's side. */
    tilt(BASE5, 5, ladder_score_of_elo(-5.0), p);
    report("pentanomial, true -5, SPRT(0, 50)", simulate(p, 5, 0, 50, RUNS, 2), RUNS, true, 0.05);
    enum { RUNS10 = 1000 };
    tilt(BASE5, 5, ladder_score_of_elo(0.0), p);
    report("pentanomial, true 0, SPRT(0, 10)", simulate(p, 5, 0, 10, RUNS10, 3), RUNS10, true,
           0.05);
}

static void test_pentanomial_h1(void **state)
{
    (void)state;
    double p[5];
    tilt(BASE5, 5, ladder_score_of_elo(50.0), p);
    enum { RUNS = 4000 };
    report("pentanomial, true 50, SPRT(0, 50)", simulate(p, 5, 0, 50, RUNS, 4), RUNS, false, 0.05);
}

/* Three seats: a deal is 3 rotations x 2 opponent seats of trinomial games
 * (draws 20%, wins and losses 40% each at equal strength), i.e. 6 games,
 * summed in halves on a grid of 13 cells; then tilted as above. */
static void test_three_seat_grid(void **state)
{
    (void)state;
    double g[3] = {0.4, 0.2, 0.4}, base[13] = {1.0}, next[13];
    size_t cells = 1;
    for (int game = 0; game < 6; game++) {
        memset(next, 0, sizeof next);
        for (size_t i = 0; i < cells; i++)
            for (int o = 0; o < 3; o++)
                next[i + (size_t)o] += base[i] * g[o];
        cells += 2;
        memcpy(base, next, sizeof base);
    }
    double p[13];
    tilt(base, 13, ladder_score_of_elo(0.0), p);
    enum { RUNS = 2000 };
    report("3 seats (13 cells), true 0, SPRT(0, 50)", simulate(p, 13, 0, 50, RUNS, 5), RUNS, true,
           0.05);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pentanomial_h0),
        cmocka_unit_test(test_pentanomial_h1),
        cmocka_unit_test(test_three_seat_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
