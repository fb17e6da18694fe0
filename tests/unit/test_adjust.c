/* ctest-requires-game: brawljack
 * The luck adjustment of replays (arena/view/adjust.h; docs/ratings.md,
 * "Luck-adjusted results"), on BrawlJack matches played here between the
 * random and greedy reference bots (tests/adjust_match.h):
 *  - the terms taken out have mean zero: over 160 matches, the mean of each
 *    seat's terms, and of their difference between the seats (the
 *    adjusted minus the raw score difference), lies within 4 standard
 *    errors of 0, and the terms are not all 0 (chance events were found);
 *    (the random seat's action terms among them: their own mean is checked
 *    too, and that there were some);
 *  - the action term's expectation over the random bot's policy is exactly
 *    0: at a decision of the random seat, the terms of decision t alone
 *    (adjust_decision) with each legal action in turn in the replay average
 *    to 0 per seat (to rounding), and are not all 0; and the per-decision
 *    terms add up to adjust_replay's;
 *  - in a replay without the bots' own names, the random bot is known by
 *    its display name, "random" or "random#2" (the same bot at a second
 *    seat), and no other;
 *  - the adjustment of a replay is reproducible, and raw - deal - chance -
 *    action is the adjusted score;
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
    adjust_opts o = {.rollouts = 4, .samples = 2, .policy = ADJUST_POLICY_RANDOM, .horizon = ADJUST_HORIZON_DEAL};
    double sum[4] = {0}, sq[4] = {0};
    uint32_t events = 0, actions = 0;
    for (uint32_t m = 0; m < MATCHES; m++) {
        ref_replay *r = am_play(g, "hands=2", 2, ja_seed_derive(7, 1, m), greedy_brawljack_act);
        assert_non_null(r);
        adjust_result a;
        char err[256];
        assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_OK);
        double t[4] = {a.deal[0] + a.chance[0] + a.action[0],
                       a.deal[1] + a.chance[1] + a.action[1], 0, a.action[0] - a.action[1]};
        t[2] = t[0] - t[1];
        for (int k = 0; k < 4; k++) {
            sum[k] += t[k];
            sq[k] += t[k] * t[k];
        }
        events += a.events;
        actions += a.actions;
        ref_replay_free(&r);
    }
    assert_true(events > MATCHES);
    assert_true(actions > MATCHES);
    static const char *const NAMES[4] = {"seat 0", "seat 1", "seat 0 - seat 1",
                                         "actions, seat 0 - seat 1"};
    for (int k = 0; k < 4; k++) {
        double mean = sum[k] / MATCHES, var = (sq[k] - MATCHES * mean * mean) / (MATCHES - 1);
        double se = sqrt(var / MATCHES);
        print_message("  terms %s: mean %+.4f, standard error %.4f\n", NAMES[k], mean, se);
        assert_true(se > 0);
        assert_true(fabs(mean) < 4 * se);
    }
}

static void test_reproducible(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_game_find("brawljack");
    ref_replay *r = am_play(g, "", 2, 99, greedy_brawljack_act);
    adjust_opts o = {.rollouts = 3, .samples = 2, .policy = ADJUST_POLICY_PLAYERS, .horizon = ADJUST_HORIZON_MATCH};
    adjust_result a, b;
    char err[256];
    assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_OK);
    assert_int_equal(adjust_replay(r, &o, &b, err, sizeof err), JA_OK);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(a.n_seats, 2);
    assert_int_equal(a.decisions, r->n_steps);
    for (uint32_t s = 0; s < 2; s++) {
        assert_true(a.raw[s] == (double)r->outcome.score[s] / JA_SCORE_UNIT);
        assert_true(a.adjusted[s] == a.raw[s] - a.deal[s] - a.chance[s] - a.action[s]);
    }
    ref_replay_free(&r);
}

/* The state before decision t of r (re-simulated) into st. */
static void state_before(const ref_replay *r, uint32_t t, void *st)
{
    const ja_game_rules *g = r->game;
    g->setup(st, &r->h.options, r->h.n_seats, r->h.seed);
    for (uint32_t u = 0; u < t; u++) {
        ja_action by[JA_MAX_SEATS] = {{0}};
        for (uint32_t k = 0; k < r->steps[u].n; k++)
            by[r->recs[r->steps[u].first + k].seat].code = r->recs[r->steps[u].first + k].code;
        assert_int_equal(g->apply(st, r->steps[u].seats, by), JA_OK);
    }
}

/* The mean over seat 0's nl legal actions l at decision t of r (each put
 * in the replay in turn) of its action term, per seat, into mean; returns
 * the sum of the terms' absolute values. */
static double terms_over_actions(ref_replay *r, const adjust_opts *o, uint32_t t,
                                 const ja_action *l, uint32_t nl, double mean[2])
{
    ref_replay_rec *rec = &r->recs[r->steps[t].first];
    uint32_t code = rec->code;
    double size = 0;
    char err[256];
    mean[0] = mean[1] = 0;
    for (uint32_t j = 0; j < nl; j++) {
        rec->code = l[j].code;
        adjust_result a;
        assert_int_equal(adjust_decision(r, o, t, &a, err, sizeof err), JA_OK);
        assert_int_equal(a.actions, 1);
        for (int s = 0; s < 2; s++) {
            mean[s] += a.action[s] / nl;
            size += fabs(a.action[s]);
        }
    }
    rec->code = code;
    return size;
}

/* With --horizon deal, at a decision where one of the random seat's
 * actions ends the deal (BrawlJack, 2 hands), every action is valued to
 * the end of the deal in play (the one ending it at its scores, without
 * the next deal's): the terms still average to 0 over the actions. */
static void test_action_deal_end(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_game_find("brawljack");
    const ja_ext_chance *ch = ja_rules_extension(g, JA_EXT_CHANCE);
    adjust_opts o = {.rollouts = 3, .samples = 2, .policy = ADJUST_POLICY_PLAYERS,
                     .horizon = ADJUST_HORIZON_DEAL};
    uint8_t *st = ja_xcalloc(2, g->state_size), *x = st + g->state_size;
    ja_action *l = ja_xcalloc(g->max_actions, sizeof *l);
    uint32_t checked = 0, nonzero = 0;
    for (uint64_t seed = 1; seed < 40 && checked < 3; seed++) {
        ref_replay *r = am_play(g, "hands=2", 2, seed, greedy_brawljack_act);
        for (uint32_t t = 0; t < r->n_steps && checked < 3; t++) {
            if (r->steps[t].seats != 1u || r->recs[r->steps[t].first].n_legal < 2)
                continue;
            state_before(r, t, st);
            ja_outcome so;
            uint32_t nl = g->legal(st, 0, l, g->max_actions), ends = 0;
            uint32_t deal = ch->progress(st, &so);
            for (uint32_t j = 0; j < nl; j++) {
                memcpy(x, st, g->state_size);
                assert_int_equal(g->apply(x, 1u, l + j), JA_OK);
                ends += g->to_act(x) != 0 && ch->progress(x, &so) != deal;
            }
            if (ends == 0 || ends == nl)
                continue;
            double mean[2], size = terms_over_actions(r, &o, t, l, nl, mean);
            print_message("  seed %llu decision %u: %u actions, %u end the deal, mean term "
                          "%+.2e %+.2e, mean |term| %.3f\n", (unsigned long long)seed, t, nl, ends,
                          mean[0], mean[1], size / (2 * nl));
            nonzero += size > 0;
            assert_true(fabs(mean[0]) < 1e-9 && fabs(mean[1]) < 1e-9);
            checked++;
        }
        ref_replay_free(&r);
    }
    assert_int_equal(checked, 3);
    assert_true(nonzero > 0);
    free(st);
    free(l);
}

/* At the random seat's first 4 decisions among 2 actions or more: the
 * mean of decision t's action term over its legal actions (each put in the
 * replay in turn) is 0, since every alternative is valued on the same seeds
 * (the digest does not change). Then the per-decision terms of the
 * recorded match sum to adjust_replay's. */
static void test_action_exact(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_game_find("brawljack");
    ref_replay *r = am_play(g, "hands=1", 2, 17, greedy_brawljack_act);
    assert_non_null(r);
    adjust_opts o = {.rollouts = 3, .samples = 2, .policy = ADJUST_POLICY_PLAYERS,
                     .horizon = ADJUST_HORIZON_DEAL};
    uint8_t *st = ja_xcalloc(1, g->state_size);
    ja_action *l = ja_xcalloc(g->max_actions, sizeof *l);
    char err[256];
    uint32_t checked = 0, nonzero = 0;
    for (uint32_t t = 0; t < r->n_steps && checked < 4; t++) {
        ref_replay_rec *rec = &r->recs[r->steps[t].first];
        if (r->steps[t].seats != 1u || rec->n_legal < 2)
            continue;
        state_before(r, t, st);
        uint32_t nl = g->legal(st, 0, l, g->max_actions);
        double mean[2], size = terms_over_actions(r, &o, t, l, nl, mean);
        adjust_result a; /* no term: a fault's default, or asked not to */
        rec->fault = JA_FAULT_TIMEOUT;
        assert_int_equal(adjust_decision(r, &o, t, &a, err, sizeof err), JA_OK);
        assert_int_equal(a.actions, 0);
        rec->fault = JA_FAULT_NONE;
        o.skip = ADJUST_TERM_ACTION;
        assert_int_equal(adjust_decision(r, &o, t, &a, err, sizeof err), JA_OK);
        assert_true(a.actions == 0 && a.action[0] == 0 && a.action[1] == 0);
        o.skip = 0;
        print_message("  decision %u: %u actions, mean term %+.2e %+.2e, mean |term| %.3f\n", t,
                      nl, mean[0], mean[1], size / (2 * nl));
        assert_true(fabs(mean[0]) < 1e-9 && fabs(mean[1]) < 1e-9);
        nonzero += size > 0;
        checked++;
    }
    assert_int_equal(checked, 4);
    assert_true(nonzero > 0);
    adjust_result all, one;
    assert_int_equal(adjust_replay(r, &o, &all, err, sizeof err), JA_OK);
    double sum[2] = {all.deal[0], all.deal[1]};
    for (uint32_t t = 0; t < r->n_steps; t++) {
        assert_int_equal(adjust_decision(r, &o, t, &one, err, sizeof err), JA_OK);
        for (int s = 0; s < 2; s++)
            sum[s] += one.chance[s] + one.action[s];
    }
    for (int s = 0; s < 2; s++)
        assert_true(fabs(all.raw[s] - sum[s] - all.adjusted[s]) < 1e-9);
    assert_int_equal(adjust_decision(r, &o, r->n_steps, &one, err, sizeof err), JA_EINVAL);
    free(st);
    free(l);
    ref_replay_free(&r);
}

/* A replay without the bots' own names (written before they were kept)
 * names the random bot by its display name, with the arena's suffix for a
 * second appearance of the same bot ("random#2": the two random seats of a
 * Bombs match of random,greedy,random): the same terms as "random";
 * another name takes no action term (and its playouts are greedy's). */
static void test_random_names(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_game_find("brawljack");
    ref_replay *r = am_play(g, "hands=1", 2, 23, greedy_brawljack_act);
    assert_non_null(r);
    adjust_opts o = {.rollouts = 2, .samples = 2, .policy = ADJUST_POLICY_PLAYERS,
                     .horizon = ADJUST_HORIZON_DEAL};
    adjust_result a, b;
    char err[256];
    assert_int_equal(adjust_replay(r, &o, &a, err, sizeof err), JA_OK);
    assert_true(a.actions > 0);
    snprintf(r->h.players[0].name, sizeof r->h.players[0].name, "random#2");
    assert_int_equal(adjust_replay(r, &o, &b, err, sizeof err), JA_OK);
    assert_memory_equal(&a, &b, sizeof a);
    static const char *const OTHERS[] = {"random#", "random#2x", "randomx", "rand"};
    for (size_t k = 0; k < sizeof OTHERS / sizeof OTHERS[0]; k++) {
        snprintf(r->h.players[0].name, sizeof r->h.players[0].name, "%s", OTHERS[k]);
        assert_int_equal(adjust_replay(r, &o, &b, err, sizeof err), JA_OK);
        assert_int_equal(b.actions, 0);
    }
    ref_replay_free(&r);
}

static void test_errors(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_game_find("brawljack");
    ref_replay *r = am_play(g, "", 2, 5, NULL);
    adjust_opts o = {.rollouts = 2, .samples = 2, .policy = ADJUST_POLICY_RANDOM, .horizon = ADJUST_HORIZON_DEAL};
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
        cmocka_unit_test(test_action_exact),
        cmocka_unit_test(test_action_deal_end),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_random_names),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
