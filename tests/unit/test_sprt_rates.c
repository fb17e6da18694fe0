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
 * The same for the SPRT in normalized Elo (hypotheses on the t-value of a
 * deal score; the results tilted to the true nElo's t-value), and for the
 * gauntlet (one test per opponent, alpha and beta / k each, a deal of each
 * in turn, decided at the end of a round: as `arena bench` plays it): its
 * H1 ("at least elo1 against every opponent") must be accepted at most
 * alpha of the time when one opponent sits at elo0 and the others far
 * above it (the least favourable case for a false H1), and its H0 at most
 * beta of the time when every opponent sits at elo1.
 *
 * Tolerance: a rate measured over R runs has a Monte Carlo standard error
 * of at most sqrt(0.05 * 0.95 / R) (0.0034 for R = 4000); the measured rate
 * must not exceed the nominal one by more than two such errors. The
 * average number of deals (ASN, over all opponents of a gauntlet) is
 * printed for docs/ratings.md. */
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

/* p tilted as tilt() so that its t-value (mean - 1/2) / sd is t. */
static void tilt_t(const double *base, size_t n, double t, double *p)
{
    double lo = 0.02, hi = 0.98;
    for (int it = 0; it < 100; it++) {
        double s = 0.5 * (lo + hi), m = 0, v = 0;
        tilt(base, n, s, p);
        for (size_t i = 0; i < n; i++)
            m += p[i] * (double)i / (double)(n - 1);
        for (size_t i = 0; i < n; i++)
            v += p[i] * pow((double)i / (double)(n - 1) - m, 2);
        if ((m - 0.5) / sqrt(v) < t)
            lo = s;
        else
            hi = s;
    }
    tilt(base, n, 0.5 * (lo + hi), p);
}

/* The results at a true difference e (in the model's units) of deals of
 * `games` matches. */
static void truth(const double *base, size_t n, ladder_sprt_model m, double games, double e,
                  double *p)
{
    if (m == LADDER_SPRT_NELO)
        tilt_t(base, n, sqrt(games) * e / LADDER_NELO_PER_T, p);
    else
        tilt(base, n, ladder_score_of_elo(e), p);
}

typedef struct rates {
    int h0, h1, undecided;
    double deals;
} rates;

#define MAX_OPP 4

/* A test: its model and bounds, and each opponent's distribution of deal
 * scores (k = 1: the single SPRT). */
typedef struct sim {
    ladder_sprt_model model;
    double games, e0, e1;
    size_t n, k;
    double p[MAX_OPP][LADDER_SPRT_MAX_CELLS];
} sim;

/* One result drawn from p. */
static size_t draw(ja_rng *r, const double *p, size_t n)
{
    double u = uniform(r);
    size_t i = 0;
    while (i + 1 < n && u >= p[i]) {
        u -= p[i];
        i++;
    }
    return i;
}

/* One run: a deal of each opponent whose test goes on, in turn, until the
 * gauntlet decides at the end of a round. Adds the deals played to *deals. */
static ladder_sprt_decision run_once(const sim *s, ja_rng *r, double lo, double hi, double *deals)
{
    static double c[MAX_OPP][LADDER_SPRT_MAX_CELLS];
    ladder_sprt_decision each[MAX_OPP], d = LADDER_SPRT_CONTINUE;
    memset(c, 0, sizeof c);
    for (size_t j = 0; j < s->k; j++)
        each[j] = LADDER_SPRT_CONTINUE;
    for (int round = 0; round < CAP && d == LADDER_SPRT_CONTINUE; round++) {
        for (size_t j = 0; j < s->k; j++) {
            if (each[j] != LADDER_SPRT_CONTINUE)
                continue;
            c[j][draw(r, s->p[j], s->n)]++;
            (*deals)++;
            double llr;
            assert_int_equal(
                ladder_sprt_llr_model(c[j], s->n, s->model, s->games, s->e0, s->e1, &llr), JA_OK);
            each[j] = ladder_sprt_decide(llr, lo, hi);
        }
        d = ladder_gauntlet_decide(each, s->k);
    }
    return d;
}

/* Runs `runs` tests (or gauntlets) s. */
static rates simulate(const sim *s, int runs, uint64_t seed)
{
    double lo, hi;
    assert_int_equal(ladder_gauntlet_bounds(0.05, 0.05, s->k, &lo, &hi), JA_OK);
    ja_rng r;
    ja_rng_seed(&r, seed);
    rates out = {0, 0, 0, 0};
    for (int run = 0; run < runs; run++) {
        ladder_sprt_decision d = run_once(s, &r, lo, hi, &out.deals);
        out.h0 += d == LADDER_SPRT_H0;
        out.h1 += d == LADDER_SPRT_H1;
        out.undecided += d == LADDER_SPRT_CONTINUE;
    }
    out.deals /= runs;
    return out;
}

/* A single test of elo0 against elo1 (logistic) on results drawn from p. */
static rates simulate1(const double *p, size_t n, double elo0, double elo1, int runs,
                       uint64_t seed)
{
    static sim s;
    s = (sim){.model = LADDER_SPRT_LOGISTIC, .e0 = elo0, .e1 = elo1, .n = n, .k = 1};
    memcpy(s.p[0], p, n * sizeof *p);
    return simulate(&s, runs, seed);
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
    report("pentanomial, true 0, SPRT(0, 50)", simulate1(p, 5, 0, 50, RUNS, 1), RUNS, true, 0.05);
    /* A true difference just below elo0 is also H0's side. */
    tilt(BASE5, 5, ladder_score_of_elo(-5.0), p);
    report("pentanomial, true -5, SPRT(0, 50)", simulate1(p, 5, 0, 50, RUNS, 2), RUNS, true, 0.05);
    enum { RUNS10 = 1000 };
    tilt(BASE5, 5, ladder_score_of_elo(0.0), p);
    report("pentanomial, true 0, SPRT(0, 10)", simulate1(p, 5, 0, 10, RUNS10, 3), RUNS10, true,
           0.05);
}

static void test_pentanomial_h1(void **state)
{
    (void)state;
    double p[5];
    tilt(BASE5, 5, ladder_score_of_elo(50.0), p);
    enum { RUNS = 4000 };
    report("pentanomial, true 50, SPRT(0, 50)", simulate1(p, 5, 0, 50, RUNS, 4), RUNS, false, 0.05);
}

/* Three seats: a deal is 3 rotations x 2 opponent seats of trinomial games
 * (draws 20%, wins and losses 40% each at equal strength), i.e. 6 games,
 * summed in halves on a grid of 13 cells. */
static void three_seat_base(double *base)
{
    double g[3] = {0.4, 0.2, 0.4}, next[13];
    size_t cells = 1;
    memset(base, 0, 13 * sizeof *base);
    base[0] = 1.0;
    for (int game = 0; game < 6; game++) {
        memset(next, 0, sizeof next);
        for (size_t i = 0; i < cells; i++)
            for (int o = 0; o < 3; o++)
                next[i + (size_t)o] += base[i] * g[o];
        cells += 2;
        memcpy(base, next, sizeof next);
    }
}

/* The 3-seat grid, tilted as above. */
static void test_three_seat_grid(void **state)
{
    (void)state;
    double base[13];
    three_seat_base(base);
    double p[13];
    tilt(base, 13, ladder_score_of_elo(0.0), p);
    enum { RUNS = 2000 };
    report("3 seats (13 cells), true 0, SPRT(0, 50)", simulate1(p, 13, 0, 50, RUNS, 5), RUNS, true,
           0.05);
}

/* A test (or gauntlet) of s->e0 against s->e1 in model m with opponents at
 * the true differences truths[0 .. k-1]. */
static sim *setup(ladder_sprt_model m, const double *base, size_t n, double games, double e0,
                  double e1, const double *truths, size_t k)
{
    static sim s;
    s = (sim){.model = m, .games = games, .e0 = e0, .e1 = e1, .n = n, .k = k};
    for (size_t j = 0; j < k; j++)
        truth(base, n, m, games, truths[j], s.p[j]);
    return &s;
}

static void test_nelo(void **state)
{
    (void)state;
    enum { RUNS = 4000, RUNS2 = 2000 };
    const ladder_sprt_model N = LADDER_SPRT_NELO;
    report("nelo, pentanomial, true 0, SPRT(0, 50)",
           simulate(setup(N, BASE5, 5, 2, 0, 50, (double[]){0}, 1), RUNS, 11), RUNS, true, 0.05);
    report("nelo, pentanomial, true 50, SPRT(0, 50)",
           simulate(setup(N, BASE5, 5, 2, 0, 50, (double[]){50}, 1), RUNS, 12), RUNS, false, 0.05);
    /* Bounds away from 0: the t-value's scale matters at both. */
    report("nelo, pentanomial, true -20, SPRT(-20, 20)",
           simulate(setup(N, BASE5, 5, 2, -20, 20, (double[]){-20}, 1), RUNS2, 13), RUNS2, true,
           0.05);
    report("nelo, pentanomial, true 20, SPRT(-20, 20)",
           simulate(setup(N, BASE5, 5, 2, -20, 20, (double[]){20}, 1), RUNS2, 14), RUNS2, false,
           0.05);
    double base[13];
    three_seat_base(base);
    report("nelo, 3 seats (13 cells), true 0, SPRT(0, 50)",
           simulate(setup(N, base, 13, 3, 0, 50, (double[]){0}, 1), RUNS2, 15), RUNS2, true, 0.05);
    report("nelo, 3 seats (13 cells), true 50, SPRT(0, 50)",
           simulate(setup(N, base, 13, 3, 0, 50, (double[]){50}, 1), RUNS2, 16), RUNS2, false,
           0.05);
}

static void test_gauntlet(void **state)
{
    (void)state;
    /* The false H0 of three tests at beta / 3 adds up close to beta: more
     * runs there, so that the tolerance is tighter (0.0015). */
    enum { RUNS = 4000, RUNS2 = 2000, RUNS_BIG = 20000 };
    const ladder_sprt_model L = LADDER_SPRT_LOGISTIC, N = LADDER_SPRT_NELO;
    report("gauntlet of 3, true 0/+200/+200, SPRT(0, 50)",
           simulate(setup(L, BASE5, 5, 2, 0, 50, (double[]){0, 200, 200}, 3), RUNS, 21), RUNS,
           true, 0.05);
    report("gauntlet of 3, true 50/50/50, SPRT(0, 50)",
           simulate(setup(L, BASE5, 5, 2, 0, 50, (double[]){50, 50, 50}, 3), RUNS_BIG, 22),
           RUNS_BIG, false, 0.05);
    report("gauntlet of 2, nelo, true 0/+200, SPRT(0, 50)",
           simulate(setup(N, BASE5, 5, 2, 0, 50, (double[]){0, 200}, 2), RUNS2, 23), RUNS2, true,
           0.05);
    report("gauntlet of 2, nelo, true 50/50, SPRT(0, 50)",
           simulate(setup(N, BASE5, 5, 2, 0, 50, (double[]){50, 50}, 2), RUNS2, 24), RUNS2, false,
           0.05);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pentanomial_h0),
        cmocka_unit_test(test_pentanomial_h1),
        cmocka_unit_test(test_three_seat_grid),
        cmocka_unit_test(test_nelo),
        cmocka_unit_test(test_gauntlet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
