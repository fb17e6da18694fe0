/* ctest-label: slow
 *
 * Calibration of the Bradley-Terry and Plackett-Luce fits (ladders/fit.h)
 * on synthetic results drawn from known strengths: the fitted ratings must
 * recover the truth, and the 95% intervals must cover it about 95% of the
 * time over many replicas.
 *
 * Scenarios (true ratings have mean 0, and the fit is anchored on the mean
 * at 0, so estimate and truth are on the same footing):
 *  1. Two players per match, round robin of 8 bots 100 Elo apart, with
 *     draws (30% at equal strength): the expected score of every game is
 *     exactly the logistic L(R_i - R_j), so the half-point model is right.
 *  2. 3 to 6 seats per match, 10 bots: finishing orders drawn from the
 *     Plackett-Luce model (an exponential race with rates 10^(R/400)),
 *     whose pairwise marginals are exactly Bradley-Terry (R. D. Luce,
 *     "Individual Choice Behavior", 1959; the race is why: P(T_i < T_j) =
 *     g_i / (g_i + g_j)), while the pairs of one match are dependent;
 *     fitted by Bradley-Terry, and at 3 and 6 seats by Plackett-Luce.
 *  3. Duplicate sets: two-player deals of two matches whose results are
 *     positively correlated (with probability 0.7 the second copies the
 *     first), marginals still exact. Clustering on the deal must keep the
 *     coverage; treating the matches as independent must not (shown).
 *
 * Tolerances, and why: with R replicas and B bots the coverage is a mean of
 * R*B indicators that are correlated within a replica; its Monte Carlo
 * standard error is at most sqrt(0.95 * 0.05 / R) = 0.0069 for R = 1000
 * (each replica counted as one observation), so [0.93, 0.97] is about three
 * such errors wide on each side, while still failing an interval that is
 * 15% too narrow (coverage ~0.92) or too wide (~0.975). Bias: the MLE is
 * biased away from the mean by a few Elo at these sample sizes (its
 * O(1/n) bias), so every bot's mean error must be within 12 Elo, far below
 * its standard error (~40-60 Elo), and the root mean square error must be
 * within 15% of the mean reported standard error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fit.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "stats.h"

#define MAX_BOTS 10

static double uniform(ja_rng *r)
{
    return (double)(ja_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Accumulated errors and coverage of a scenario. */
typedef struct tally {
    uint32_t n_bots;
    double sum_err[MAX_BOTS], sum_sq[MAX_BOTS], sum_se[MAX_BOTS];
    uint32_t covered[MAX_BOTS], covered_model[MAX_BOTS], n[MAX_BOTS];
    uint32_t unrated;
} tally;

static void record(tally *t, const ladder_fit *f, const ladder_fit *fm, const double *truth)
{
    for (uint32_t b = 0; b < t->n_bots; b++) {
        const ladder_fit_player *p = &f->players[b];
        if (p->status != LADDER_FIT_RATED) {
            t->unrated++;
            continue;
        }
        double e = p->elo - truth[b];
        t->sum_err[b] += e;
        t->sum_sq[b] += e * e;
        t->sum_se[b] += p->se;
        t->covered[b] += fabs(e) <= LADDER_Z95 * p->se;
        if (fm != NULL)
            t->covered_model[b] +=
                fabs(fm->players[b].elo - truth[b]) <= LADDER_Z95 * fm->players[b].se;
        t->n[b]++;
    }
}

/* Prints the scenario and checks the tolerances of the file comment.
 * Returns the overall coverage. */
static double check(const char *name, const tally *t, bool with_model, bool assert_it)
{
    uint32_t cov = 0, covm = 0, n = 0;
    double sq = 0, se = 0, worst_bias = 0;
    for (uint32_t b = 0; b < t->n_bots; b++) {
        cov += t->covered[b];
        covm += t->covered_model[b];
        n += t->n[b];
        sq += t->sum_sq[b];
        se += t->sum_se[b];
        double bias = t->sum_err[b] / t->n[b];
        if (fabs(bias) > fabs(worst_bias))
            worst_bias = bias;
    }
    double coverage = (double)cov / n, rmse = sqrt(sq / n), mean_se = se / n;
    printf("%-34s coverage %.4f", name, coverage);
    if (with_model)
        printf(" (model-based %.4f)", (double)covm / n);
    printf(", rmse %.1f Elo, mean se %.1f, worst bias %+.1f, unrated %u\n", rmse, mean_se,
           worst_bias, t->unrated);
    if (assert_it) {
        if (!(coverage >= 0.93 && coverage <= 0.97))
            fail_msg("%s: coverage %.4f outside [0.93, 0.97]", name, coverage);
        if (fabs(worst_bias) > 12.0)
            fail_msg("%s: a bot's mean error is %.1f Elo", name, worst_bias);
        if (fabs(rmse / mean_se - 1.0) > 0.15)
            fail_msg("%s: rmse %.1f against mean se %.1f", name, rmse, mean_se);
        if (t->unrated > n / 100)
            fail_msg("%s: %u unrated estimates", name, t->unrated);
    }
    return coverage;
}

static void fit_both(const ladder_fit_match *m, size_t n, uint32_t np, ladder_fit_model model,
                     ladder_fit **f, ladder_fit **fm)
{
    ladder_fit_opts o;
    ladder_fit_opts_init(&o);
    o.model = model;
    o.mean_elo = 0.0;
    assert_int_equal(ladder_fit_run(m, n, np, &o, f), JA_OK);
    if (fm != NULL) {
        o.model_cov = true;
        assert_int_equal(ladder_fit_run(m, n, np, &o, fm), JA_OK);
    }
}

/* One two-player game: a's result with P(win) + P(draw)/2 = L(ra - rb)
 * and draws 30% of the time between equals (q = 0.3 * 4 p (1 - p)). */
static double game(ja_rng *r, double ra, double rb)
{
    double p = ladder_score_of_elo(ra - rb), q = 1.2 * p * (1.0 - p);
    double u = uniform(r);
    if (u < q)
        return 0.5;
    return uniform(r) < (p - q / 2.0) / (1.0 - q) ? 1.0 : 0.0;
}

static void set2(ladder_fit_match *m, int64_t cluster, uint32_t a, uint32_t b, double s)
{
    memset(m, 0, sizeof *m);
    m->cluster = cluster;
    m->n_seats = 2;
    m->player[0] = a;
    m->player[1] = b;
    m->place[0] = s == 0.0 ? 2 : 1;
    m->place[1] = s == 1.0 ? 2 : 1;
}

static void test_two_player(void **state)
{
    (void)state;
    enum { BOTS = 8, PER_PAIR = 40, REPLICAS = 1000 };
    double truth[BOTS];
    for (int b = 0; b < BOTS; b++)
        truth[b] = -350.0 + 100.0 * b;
    size_t n = (size_t)BOTS * (BOTS - 1) / 2 * PER_PAIR;
    ladder_fit_match *m = malloc(n * sizeof *m);
    assert_non_null(m);
    tally t = {.n_bots = BOTS};
    ja_rng r;
    ja_rng_seed(&r, 20250101);
    for (int rep = 0; rep < REPLICAS; rep++) {
        size_t k = 0;
        for (uint32_t a = 0; a < BOTS; a++)
            for (uint32_t b = a + 1; b < BOTS; b++)
                for (int g = 0; g < PER_PAIR; g++, k++)
                    set2(&m[k], (int64_t)k, g % 2 ? b : a, g % 2 ? a : b,
                         game(&r, truth[g % 2 ? b : a], truth[g % 2 ? a : b]));
        ladder_fit *f = NULL, *fm = NULL;
        fit_both(m, n, BOTS, LADDER_FIT_BRADLEY_TERRY, &f, &fm);
        record(&t, f, fm, truth);
        ladder_fit_free(&f);
        ladder_fit_free(&fm);
    }
    check("2 seats, draws, 8 bots", &t, true, true);
    free(m);
}

/* Plackett-Luce finishing orders of k seats by an exponential race,
 * fitted by `model`. */
static void multi(int k, int replicas, int matches, ladder_fit_model model)
{
    enum { BOTS = 10 };
    double truth[BOTS];
    for (int b = 0; b < BOTS; b++)
        truth[b] = -300.0 + 600.0 * b / (BOTS - 1);
    ladder_fit_match *m = malloc((size_t)matches * sizeof *m);
    assert_non_null(m);
    tally t = {.n_bots = BOTS};
    ja_rng r;
    ja_rng_seed(&r, 777 + (uint64_t)k);
    for (int rep = 0; rep < replicas; rep++) {
        for (int i = 0; i < matches; i++) {
            uint8_t pool[BOTS];
            for (int b = 0; b < BOTS; b++)
                pool[b] = (uint8_t)b;
            ja_shuffle_u8(&r, pool, BOTS); /* k distinct bots in random seats */
            double time[JA_MAX_SEATS];
            memset(&m[i], 0, sizeof m[i]);
            m[i].cluster = i;
            m[i].n_seats = (uint32_t)k;
            for (int s = 0; s < k; s++) {
                m[i].player[s] = pool[s];
                time[s] = -log(1.0 - uniform(&r)) / pow(10.0, truth[pool[s]] / 400.0);
            }
            for (int s = 0; s < k; s++) {
                int better = 0;
                for (int u = 0; u < k; u++)
                    better += time[u] < time[s];
                m[i].place[s] = (uint8_t)(better + 1);
            }
        }
        ladder_fit *f = NULL, *fm = NULL;
        fit_both(m, (size_t)matches, BOTS, model, &f, &fm);
        record(&t, f, fm, truth);
        ladder_fit_free(&f);
        ladder_fit_free(&fm);
    }
    char name[64];
    snprintf(name, sizeof name, "%d seats, Plackett-Luce, %s fit", k,
             model == LADDER_FIT_PLACKETT_LUCE ? "PL" : "BT");
    check(name, &t, true, true);
    free(m);
}

static void test_multiplayer(void **state)
{
    (void)state;
    for (int k = 3; k <= 6; k++)
        multi(k, 500, 240, LADDER_FIT_BRADLEY_TERRY);
    /* The Plackett-Luce fit of the same orders: its own model, so its
     * intervals must cover too (and be narrower: it uses the whole order). */
    multi(3, 500, 240, LADDER_FIT_PLACKETT_LUCE);
    multi(6, 500, 240, LADDER_FIT_PLACKETT_LUCE);
}

/* Duplicate sets of two correlated matches. */
static void test_duplicate_sets(void **state)
{
    (void)state;
    enum { BOTS = 6, DEALS_PER_PAIR = 30, REPLICAS = 1000 };
    double truth[BOTS];
    for (int b = 0; b < BOTS; b++)
        truth[b] = -250.0 + 100.0 * b;
    size_t n = (size_t)BOTS * (BOTS - 1) / 2 * DEALS_PER_PAIR * 2;
    ladder_fit_match *m = malloc(n * sizeof *m);
    assert_non_null(m);
    tally t = {.n_bots = BOTS}, naive = {.n_bots = BOTS};
    ja_rng r;
    ja_rng_seed(&r, 4242);
    for (int rep = 0; rep < REPLICAS; rep++) {
        size_t k = 0;
        for (uint32_t a = 0; a < BOTS; a++)
            for (uint32_t b = a + 1; b < BOTS; b++)
                for (int d = 0; d < DEALS_PER_PAIR; d++) {
                    double s1 = game(&r, truth[a], truth[b]);
                    double s2 = uniform(&r) < 0.7 ? s1 : game(&r, truth[a], truth[b]);
                    int64_t deal = (int64_t)k;
                    set2(&m[k++], deal, a, b, s1);
                    set2(&m[k++], deal, b, a, 1.0 - s2);
                }
        ladder_fit *f = NULL;
        fit_both(m, n, BOTS, LADDER_FIT_BRADLEY_TERRY, &f, NULL);
        record(&t, f, NULL, truth);
        ladder_fit_free(&f);
        for (size_t i = 0; i < n; i++)
            m[i].cluster = (int64_t)i;
        fit_both(m, n, BOTS, LADDER_FIT_BRADLEY_TERRY, &f, NULL);
        record(&naive, f, NULL, truth);
        ladder_fit_free(&f);
    }
    check("duplicate sets, clustered by deal", &t, false, true);
    double c = check("duplicate sets, matches as independent", &naive, false, false);
    if (!(c < 0.92))
        fail_msg("ignoring the deals should under-cover (got %.4f)", c);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_player),
        cmocka_unit_test(test_multiplayer),
        cmocka_unit_test(test_duplicate_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
