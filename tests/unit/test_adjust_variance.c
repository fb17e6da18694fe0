/* ctest-label: slow (ctest-requires-game: brawljack)
 * The luck adjustment (arena/view/adjust.h) between fixed reference bots:
 * 200 BrawlJack matches (default options, 2 seats) of the random bot
 * (seat 0) against the greedy bot, adjusted with the players' playouts
 * (R 32, K 8, to the end of the deal; every kind of term, the random
 * seat's action terms included). The mean adjusted and mean raw score
 * differences agree (their difference, the terms' mean, within 4 standard
 * errors of 0), and the adjusted difference's variance is lower than the
 * raw one's (measured: 0.28 of it, 0.35 before the action terms' deal
 * horizon, 0.7 with the chance terms alone;
 * docs/ratings.md, "Luck-adjusted results"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "adjust_match.h"
#include "view/adjust.h"

#define MATCHES 200

static double variance(const double *x, int n, double *mean)
{
    double s = 0, q = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    *mean = s / n;
    for (int i = 0; i < n; i++)
        q += (x[i] - *mean) * (x[i] - *mean);
    return q / (n - 1);
}

static void test_variance_lower(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_game_find("brawljack");
    adjust_opts o = {.rollouts = 32, .samples = 8, .policy = ADJUST_POLICY_PLAYERS, .horizon = ADJUST_HORIZON_DEAL};
    static double raw[MATCHES], adj[MATCHES], terms[MATCHES];
    for (int m = 0; m < MATCHES; m++) {
        ref_replay *r = am_play(g, "", 2, ja_seed_derive(44, 2, (uint64_t)m), greedy_brawljack_act);
        adjust_result a;
        char err[256];
        assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_OK);
        raw[m] = a.raw[1] - a.raw[0];
        adj[m] = a.adjusted[1] - a.adjusted[0];
        terms[m] = adj[m] - raw[m];
        ref_replay_free(&r);
    }
    double mr, ma, mt;
    double vr = variance(raw, MATCHES, &mr), va = variance(adj, MATCHES, &ma);
    double vt = variance(terms, MATCHES, &mt), se = sqrt(vt / MATCHES);
    print_message("  greedy - random: raw %.3f (sd %.3f), adjusted %.3f (sd %.3f), variance "
                  "ratio %.2f; terms' mean %+.4f (se %.4f)\n",
                  mr, sqrt(vr), ma, sqrt(va), va / vr, mt, se);
    assert_true(fabs(mt) < 4 * se);
    assert_true(fabs(ma - mr) < 1.96 * (sqrt(vr / MATCHES) + sqrt(va / MATCHES)));
    assert_true(va < vr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_variance_lower)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
