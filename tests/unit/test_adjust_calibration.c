/* ctest-label: slow (ctest-requires-game: brawljack)
 * Calibration of the luck-adjusted fit (docs/ratings.md, "Luck-adjusted
 * fit and bench"), the companion of test_calibration (whose results are
 * synthetic: here they are played): BrawlJack matches of one deal
 * (hands=1, 2 seats) between two fixed reference policies, the random bot
 * (seat 0) against the greedy bot's heuristic (seat 1), each match adjusted
 * as `arena ladder --fit --adjusted` adjusts it (adjust_opts_ranking:
 * shares, the players' playouts to the end of the match).
 *
 * LADDERS ladders of MATCHES matches each are fitted (Bradley-Terry, one
 * cluster a match) raw and adjusted. The truth is the Elo difference of
 * the mean raw share over all the matches (its own standard error is
 * 1/sqrt(LADDERS) of a ladder's, so it is taken as known). Checks:
 *  - unbiased: over all the matches, the terms' mean (adjusted minus raw
 *    share) is within 4 standard errors of 0, and the adjusted and raw mean
 *    shares agree within their 95% intervals;
 *  - calibrated: the adjusted 95% intervals of the Elo difference cover
 *    the truth in 88% to 99% of the rated ladders (95 expected; the
 *    binomial standard error is 2.2 ladders of 100, so the band is 3 of
 *    them below and fails intervals that are far too wide), printed beside
 *    the raw intervals' coverage and the mean widths. Greedy wins about 90%
 *    of the matches, so a ladder of 60 all won (no finite rating) is rare:
 *    95 of the 100 at least must be rated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "adjust_match.h"
#include "fit.h"
#include "stats.h"
#include "view/adjust_ladder.h"

#define LADDERS 100
#define MATCHES 60
#define OPTIONS "hands=1"
#define SEAT1 greedy_brawljack_act

/* The Elo difference (player 1 - player 0) of a fit of two players and
 * its standard error; false when either is not rated. */
static bool diff_of(const ladder_fit_match *m, size_t n, double *d, double *se)
{
    ladder_fit *f = NULL;
    assert_int_equal(ladder_fit_run(m, n, 2, NULL, &f), JA_OK);
    bool ok = f->players[0].status == LADDER_FIT_RATED && f->players[1].status == LADDER_FIT_RATED;
    if (ok) {
        *d = f->players[1].elo - f->players[0].elo;
        *se = sqrt(f->cov[3] + f->cov[0] - 2 * f->cov[1]);
    }
    ladder_fit_free(&f);
    return ok;
}

static double mean_se(const double *x, size_t n, double *se)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    double m = s / n;
    for (size_t i = 0; i < n; i++)
        q += (x[i] - m) * (x[i] - m);
    *se = sqrt(q / (n - 1) / n);
    return m;
}

static void test_adjusted_coverage(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_game_find("brawljack");
    adjust_opts o;
    adjust_opts_ranking(&o);
    static ladder_fit_match raw[LADDERS * MATCHES], adj[LADDERS * MATCHES];
    static double terms[LADDERS * MATCHES][2];
    static double share_raw[LADDERS * MATCHES], share_adj[LADDERS * MATCHES],
        term[LADDERS * MATCHES];
    size_t n = LADDERS * MATCHES;
    for (size_t k = 0; k < n; k++) {
        ref_replay *r = am_play(g, OPTIONS, 2, ja_seed_derive(4403, 3, k), SEAT1);
        adjust_result a;
        char err[256];
        assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_OK);
        raw[k] = (ladder_fit_match){.cluster = (int64_t)k, .n_seats = 2, .player = {0, 1}};
        for (int s = 0; s < 2; s++)
            raw[k].place[s] = r->outcome.place[s];
        adj[k] = raw[k];
        for (int s = 0; s < 2; s++)
            terms[k][s] = a.raw[s] - a.adjusted[s];
        adj[k].term = terms[k];
        share_raw[k] = a.raw[1];
        share_adj[k] = a.adjusted[1];
        term[k] = a.adjusted[1] - a.raw[1];
        ref_replay_free(&r);
    }
    double se_r, se_a, se_t;
    double mr = mean_se(share_raw, n, &se_r), ma = mean_se(share_adj, n, &se_a);
    double mt = mean_se(term, n, &se_t);
    print_message("  greedy's share over %zu matches: raw %.4f (se %.4f), adjusted %.4f (se "
                  "%.4f), terms' mean %+.4f (se %.4f)\n", n, mr, se_r, ma, se_a, mt, se_t);
    assert_true(fabs(mt) < 4 * se_t);
    assert_true(fabs(ma - mr) < LADDER_Z95 * (se_r + se_a));
    double truth = ladder_elo_of_score(mr);
    int cov_r = 0, cov_a = 0, rated = 0;
    double w_r = 0, w_a = 0;
    for (int l = 0; l < LADDERS; l++) {
        double dr, sr, da, sa;
        bool ok_r = diff_of(raw + l * MATCHES, MATCHES, &dr, &sr);
        bool ok_a = diff_of(adj + l * MATCHES, MATCHES, &da, &sa);
        assert_true(ok_a); /* the parts are the raw places': both or neither */
        if (!ok_r)
            continue;
        rated++;
        cov_r += fabs(dr - truth) <= LADDER_Z95 * sr;
        cov_a += fabs(da - truth) <= LADDER_Z95 * sa;
        w_r += 2 * LADDER_Z95 * sr;
        w_a += 2 * LADDER_Z95 * sa;
    }
    print_message("  %d of %d ladders of %d matches rated; truth %+.1f Elo; 95%% coverage raw "
                  "%d, adjusted %d; mean width raw %.0f, adjusted %.0f Elo\n",
                  rated, LADDERS, MATCHES, truth, cov_r, cov_a, w_r / rated, w_a / rated);
    assert_true(rated >= LADDERS - 5);
    assert_true(100 * cov_a >= 88 * rated && 100 * cov_a <= 99 * rated);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_adjusted_coverage)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
