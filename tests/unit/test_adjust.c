/* ctest-requires-game: brawljack
 * The luck adjustment of replays (arena/view/adjust.h; docs/ratings.md,
 * "Luck-adjusted results"), on BrawlJack matches played here between the
 * random and greedy reference bots (tests/adjust_match.h):
 *  - the terms taken out have mean zero: over 160 matches, the mean of each
 *    seat's terms, and of their difference between the seats (the
 *    adjusted minus the raw score difference), lies within 4 standard
 *    errors of 0, and the terms are not all 0 (chance events were found);
 *  - the adjustment of a replay is reproducible, and raw - deal - chance is
 *    the adjusted score;
 *  - errors: a game this build lacks, counts out of range, a recorded action
 *    the rules refuse, an outcome the rules do not give.
 * The variance it saves is measured by tests/unit/test_adjust_variance.c
 * (slow) and scripts/luck-bench.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "adjust_match.h"
#include "view/adjust.h"

#define MATCHES 160

static void test_zero_mean(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_game_find("brawljack");
    adjust_opts o = {4, 2, ADJUST_POLICY_RANDOM, ADJUST_HORIZON_DEAL};
    double sum[3] = {0}, sq[3] = {0};
    uint32_t events = 0;
    for (uint32_t m = 0; m < MATCHES; m++) {
        ref_replay *r = am_play(g, "hands=2", 2, ja_seed_derive(7, 1, m), greedy_brawljack_act);
        assert_non_null(r);
        adjust_result a;
        char err[256];
        assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_OK);
        double t[3] = {a.deal[0] + a.chance[0], a.deal[1] + a.chance[1], 0};
        t[2] = t[0] - t[1];
        for (int k = 0; k < 3; k++) {
            sum[k] += t[k];
            sq[k] += t[k] * t[k];
        }
        events += a.events;
        ref_replay_free(&r);
    }
    assert_true(events > MATCHES);
    for (int k = 0; k < 3; k++) {
        double mean = sum[k] / MATCHES, var = (sq[k] - MATCHES * mean * mean) / (MATCHES - 1);
        double se = sqrt(var / MATCHES);
        print_message("  terms %s: mean %+.4f, standard error %.4f\n",
                      k == 2 ? "seat 0 - seat 1" : k ? "seat 1" : "seat 0", mean, se);
        assert_true(se > 0);
        assert_true(fabs(mean) < 4 * se);
    }
}

static void test_reproducible(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_game_find("brawljack");
    ref_replay *r = am_play(g, "", 2, 99, greedy_brawljack_act);
    adjust_opts o = {3, 2, ADJUST_POLICY_PLAYERS, ADJUST_HORIZON_MATCH};
    adjust_result a, b;
    char err[256];
    assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_OK);
    assert_int_equal(adjust_replay(r, &o, &b, err, sizeof err), JA_OK);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(a.n_seats, 2);
    assert_int_equal(a.decisions, r->n_steps);
    for (uint32_t s = 0; s < 2; s++) {
        assert_true(a.raw[s] == (double)r->outcome.score[s] / JA_SCORE_UNIT);
        assert_true(a.adjusted[s] == a.raw[s] - a.deal[s] - a.chance[s]);
    }
    ref_replay_free(&r);
}

static void test_errors(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_game_find("brawljack");
    ref_replay *r = am_play(g, "", 2, 5, NULL);
    adjust_opts o = {2, 2, ADJUST_POLICY_RANDOM, ADJUST_HORIZON_DEAL};
    adjust_result a;
    char err[256];
    o.rollouts = 0;
    assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_EINVAL);
    o.rollouts = 2;
    o.policy = ADJUST_POLICIES;
    assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_EINVAL);
    o.policy = ADJUST_POLICY_RANDOM;
    r->outcome.score[0] += JA_SCORE_UNIT;
    assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_EMISMATCH);
    assert_non_null(strstr(err, "seat 0"));
    r->outcome.score[0] -= JA_SCORE_UNIT;
    r->recs[r->steps[0].first].code = 0xFFFFFFu;
    assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_EMISMATCH);
    assert_non_null(strstr(err, "decision 0"));
    r->game = NULL;
    assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_EUNSUPPORTED);
    assert_non_null(strstr(err, "brawljack"));
    ref_replay_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_mean),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
