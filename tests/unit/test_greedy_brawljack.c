/* ctest-requires-game: brawljack */
/* Unit tests of the `greedy` heuristic for BrawlJack
 * (bots/greedy/greedy_brawljack.c), loaded as a plugin from
 * $JA_BUILD_DIR/bots/ja_greedy.so next to ja_random.so, exactly as the arena
 * loads it, and played through the real match loop (ref_match_run).
 *
 *  - supports: greedy plays brawljack with its observation version, and not
 *    another version;
 *  - legality: over 2..8 seats and every valid combination of dealer
 *    (off, on), dealer_control (seat, auto) and blind_rounds (default, 1),
 *    greedy alone among random bots, on every other seat and on every seat,
 *    never faults. Every decision it is asked is checked against the
 *    observation it was asked on: it stays a 21 first, keeps a dealer's 21,
 *    and in the blind tiebreak hits to two cards, then stays;
 *  - determinism: the same seed gives the same digest twice;
 *  - chosen positions, built with the engine from stacked decks: complete
 *    its own 21, bust an opponent's LIVE AK-47, stay the 21, play the
 *    dealer's hand that can reach the target, the blind policy;
 *  - strength: 3 seats, greedy against two random bots, greedy's seat
 *    rotated over the three seats, fixed seeds. Per match, greedy's points
 *    minus the random bots' mean; the 95% confidence interval of the mean
 *    margin must exclude zero. The figures are printed (and quoted in
 *    docs/bots.md).
 *
 * Budget: a few seconds under ASan (matches of 2 deals). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "match.h"
#include "seat.h"

#include "jackarena/ja_brawljack.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"

#include "bot_harness.h"

static const ja_game_rules *brawljack(void)
{
    const ja_game_rules *g = ja_game_find("brawljack");
    assert_non_null(g);
    return g;
}


/* ---- supports ------------------------------------------------------------------ */

static void test_supports(void **state)
{
    bots *b = *state;
    const ja_game_rules *g = brawljack();
    assert_int_equal(ref_bot_supports(b->greedy, g), 1);
    ja_game_rules newer = *g;
    newer.obs_version = g->obs_version + 1;
    assert_int_equal(ref_bot_supports(b->greedy, &newer), 0);
}

/* ---- legality and behaviour -------------------------------------------------------- */

/* Follows a match step by step, keeping the observation of the seat about to
 * act, so that each answer can be checked against it. */
typedef struct watch {
    uint32_t greedy_mask;
    ja_brawljack_obs prev;
    bool have_prev;
    uint32_t checked, stays21, blind;
} watch;

/* The hand (owner, k) of an observation, or -1. */
static int hand_of(const ja_brawljack_obs *o, uint32_t owner, uint32_t k)
{
    for (int i = 0; i < o->n_hands; i++)
        if (o->hand_owner[i] == owner && o->hand_index[i] == k)
            return i;
    return -1;
}

/* A LIVE 21 of owner that may be stayed now, or -1. */
static int live21(const ja_brawljack_obs *o, uint32_t owner)
{
    for (int i = 0; i < o->n_hands; i++)
        if (o->hand_owner[i] == owner && o->hand_state[i] == JA_BRAWLJACK_HAND_LIVE &&
            o->hand_value[i] == 21)
            return i;
    return -1;
}

static void on_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    watch *w = ctx;
    for (uint32_t i = 0; i < info->n_recs; i++) {
        const ref_replay_rec *r = &info->recs[i];
        if (!((w->greedy_mask >> r->seat) & 1u))
            continue;
        assert_int_equal(r->fault, JA_FAULT_NONE);
        if (r->forced || !w->have_prev || w->prev.to_act != r->seat)
            continue;
        const ja_brawljack_obs *o = &w->prev;
        w->checked++;
        switch (o->stage) {
        case JA_BRAWLJACK_STAGE_STAY:
        case JA_BRAWLJACK_STAGE_DEALER_STAY: {
            uint32_t owner = o->stage == JA_BRAWLJACK_STAGE_STAY ? o->seat : JA_BRAWLJACK_DEALER;
            if (live21(o, owner) >= 0) {
                assert_true(JA_BRAWLJACK_IS_STAY(r->code));
                int h = hand_of(o, owner, JA_BRAWLJACK_CODE_INDEX(r->code));
                assert_true(h >= 0);
                assert_int_equal(o->hand_value[h], 21);
                w->stays21++;
            }
            break;
        }
        case JA_BRAWLJACK_STAGE_BLIND:
            assert_int_equal(r->code, o->blind_count[o->seat] < 2 ? JA_BRAWLJACK_BLIND_HIT
                                                                   : JA_BRAWLJACK_BLIND_STAY);
            w->blind++;
            break;
        default: break;
        }
    }
    w->have_prev = false;
    uint32_t mask = g->to_act(info->state);
    if (mask) {
        g->observe(info->state, __builtin_ctz(mask), &w->prev);
        w->have_prev = true;
    }
}

/* Plays one match; greedy sits where greedy_mask says, random elsewhere. */
static void play(bots *b, uint32_t n, const char *const *kv, uint64_t seed, uint32_t greedy_mask,
                 watch *w, ref_match_result *res)
{
    const ja_game_rules *g = brawljack();
    if (w) {
        w->greedy_mask = greedy_mask;
        w->have_prev = false;
    }
    const bot_match m = {.g = g, .options = make_options(g, n, kv), .n = n, .seed = seed,
                         .greedy_mask = greedy_mask, .match_id = "test-greedy-brawljack",
                         .on_step = w ? on_step : NULL, .step_ctx = w};
    play_bot_match(b, &m, res);
}

static void test_legal_everywhere(void **state)
{
    bots *b = *state;
    static const char *const dealer[][2] = {
        {"dealer=off", "dealer_control=seat"},
        {"dealer=on", "dealer_control=seat"},
        {"dealer=on", "dealer_control=auto"},
    };
    static const char *const blind[] = {"blind_rounds=5", "blind_rounds=1"};
    watch w;
    memset(&w, 0, sizeof w);
    uint32_t matches = 0;
    uint64_t seed = 2000;
    for (uint32_t n = 2; n <= 8; n++)
        for (int d = 0; d < 3; d++)
            for (int r = 0; r < 2; r++) {
                const char *kv[] = {dealer[d][0], dealer[d][1], blind[r], "hands=2", NULL};
                uint32_t all = (1u << n) - 1;
                uint32_t masks[3] = {1u << (seed % n), 0x55u & all, all};
                for (int m = 0; m < 3; m++) {
                    ref_match_result res;
                    play(b, n, kv, seed++, masks[m], &w, &res);
                    matches++;
                }
            }
    print_message("greedy legality: %u matches, %u greedy decisions checked, %u 21s stayed, "
                  "%u blind decisions\n",
                  (unsigned)matches, (unsigned)w.checked, (unsigned)w.stays21,
                  (unsigned)w.blind);
    assert_true(w.checked > 1000);
    assert_true(w.stays21 > 20);
    assert_true(w.blind > 10);
}

static void test_deterministic(void **state)
{
    bots *b = *state;
    const char *kv[] = {"hands=3", "dealer=on", NULL};
    ref_match_result r1, r2;
    play(b, 4, kv, 4242, 0xfu, NULL, &r1);
    play(b, 4, kv, 4242, 0xfu, NULL, &r2);
    assert_memory_equal(r1.digest, r2.digest, sizeof r1.digest);
    assert_memory_equal(&r1.outcome, &r2.outcome, sizeof r1.outcome);
}

/* ---- chosen positions -------------------------------------------------------------- */

/* A match of the engine itself, for building positions from stacked decks. */
typedef struct position {
    const ja_game_rules *g;
    void *st;
    ref_seat *seat[JA_BRAWLJACK_MAX_SEATS];
} position;

static uint8_t card(const char *label)
{
    int c = ja_card_parse(label);
    assert_true(c >= 0 && c < JA_BRAWLJACK_DECK);
    return (uint8_t)c;
}

/* Sets up n seats (options kv) and re-deals with first player `first` from
 * the cards named (labels, NULL-terminated); then stacks each further deck
 * of `more` (one string of labels separated by blanks). */
static void position_open(position *p, bots *b, uint32_t n, const char *const *kv, int first,
                          const char *const *cards, const char *more)
{
    memset(p, 0, sizeof *p);
    p->g = brawljack();
    p->st = malloc(p->g->state_size);
    assert_non_null(p->st);
    ja_options o = make_options(p->g, n, kv);
    assert_int_equal(p->g->setup(p->st, &o, n, 1), JA_OK);
    uint8_t deck[JA_BRAWLJACK_DECK];
    uint32_t k = 0;
    for (; *cards; cards++)
        deck[k++] = card(*cards);
    const ja_ext_test_deal *td = ja_rules_extension(p->g, JA_EXT_TEST_DEAL);
    assert_non_null(td);
    assert_int_equal(td->test_deal(p->st, first, deck, k), JA_OK);
    if (more) {
        char buf[256], *save = NULL;
        snprintf(buf, sizeof buf, "%s", more);
        k = 0;
        for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
            deck[k++] = card(t);
        assert_int_equal(td->test_deal(p->st, -1, deck, k), JA_OK);
    }
    for (uint32_t s = 0; s < n; s++) {
        ref_seat_ctx sc = {.game = p->g, .seat = (int32_t)s, .n_seats = n, .match_seed = 1,
                           .match_id = ""};
        char err[256];
        assert_int_equal(ref_seat_open(b->greedy, &sc, &p->seat[s], err, sizeof err), JA_OK);
    }
}

static void position_close(position *p)
{
    for (int s = 0; s < JA_BRAWLJACK_MAX_SEATS; s++)
        ref_seat_close(&p->seat[s]);
    free(p->st);
}

/* Applies the action labelled `label` for the seat to act. */
static void apply_label(position *p, const char *label)
{
    uint32_t mask = p->g->to_act(p->st);
    assert_true(mask != 0);
    int s = __builtin_ctz(mask);
    ja_action legal[JA_MAX_ACTIONS], by[JA_MAX_SEATS];
    uint32_t n = p->g->legal(p->st, s, legal, JA_MAX_ACTIONS);
    for (uint32_t i = 0; i < n; i++) {
        char l[64];
        p->g->label(legal[i], l, sizeof l);
        if (strcmp(l, label) == 0) {
            memset(by, 0, sizeof by);
            by[s] = legal[i];
            assert_int_equal(p->g->apply(p->st, mask, by), JA_OK);
            return;
        }
    }
    fail_msg("'%s' is not legal for seat %d", label, s);
}

/* Greedy's answer for the seat to act, as a label. */
static const char *ask(position *p, char *buf, size_t cap)
{
    uint32_t mask = p->g->to_act(p->st);
    assert_true(mask != 0);
    int s = __builtin_ctz(mask);
    ja_action legal[JA_MAX_ACTIONS];
    uint32_t n = p->g->legal(p->st, s, legal, JA_MAX_ACTIONS);
    ja_brawljack_obs o;
    p->g->observe(p->st, s, &o);
    ja_decision d = {.struct_size = sizeof d, .turn = 1, .seat = s, .n_seats = o.n_seats,
                     .game = p->g->name, .obs_version = p->g->obs_version,
                     .obs_size = (uint32_t)sizeof o, .obs = &o, .legal = legal, .n_legal = n};
    ref_answer a;
    assert_int_equal(ref_seat_ask(p->seat[s], &d, true), JA_OK);
    ref_seat_collect(p->seat[s], 0, &a);
    assert_int_equal(a.fault, JA_FAULT_NONE);
    assert_true(a.index < n);
    p->g->label(legal[a.index], buf, cap);
    return buf;
}

static void test_positions(void **state)
{
    bots *b = *state;
    char l[64];
    position p;

    /* Its drawn ace makes its own 10 a 21: take it, then stay it. */
    position_open(&p, b, 3, NULL, 0,
                  (const char *const[]){"TC", "9S", "8C", "4H", "2D", "3S", "AD", NULL}, NULL);
    assert_string_equal(ask(&p, l, sizeof l), "hit seat 0 hand 0");
    apply_label(&p, l);
    assert_string_equal(ask(&p, l, sizeof l), "stay seat 0 hand 0");
    position_close(&p);

    /* Seat 1 left its AK-47 LIVE: bust it (A K 5 = 16). */
    position_open(&p, b, 3, NULL, 1,
                  (const char *const[]){"7C", "AS", "8C", "9D", "3H", "4S", "KH", "2C", "5H",
                                        NULL},
                  NULL);
    apply_label(&p, "hit seat 1 hand 0");
    apply_label(&p, "end turn");
    apply_label(&p, "hit seat 2 hand 1");
    apply_label(&p, "end turn");
    assert_string_equal(ask(&p, l, sizeof l), "hit seat 1 hand 0");
    position_close(&p);

    /* Playing the dealer (seat 1 controls it; target 19): only the 9 can
     * reach it with one card, not the 5 (the default). */
    position_open(&p, b, 3, (const char *const[]){"dealer=on", NULL}, 0,
                  (const char *const[]){"KS", "8D", "7H", "2C", "3C", "4C", "9S", "5D", "6H",
                                        NULL},
                  "5C 9C");
    for (int s = 0; s < 3; s++) {
        char hit[32], st0[32], st1[32];
        snprintf(hit, sizeof hit, "hit seat %d hand 0", s);
        snprintf(st0, sizeof st0, "stay seat %d hand 0", s);
        snprintf(st1, sizeof st1, "stay seat %d hand 1", s);
        apply_label(&p, hit);
        apply_label(&p, st0);
        apply_label(&p, st1);
    }
    assert_string_equal(ask(&p, l, sizeof l), "hit dealer hand 1");
    position_close(&p);

    /* The blind tiebreak (20 against 20): one more card, then stay. */
    position_open(&p, b, 2, NULL, 0,
                  (const char *const[]){"KS", "QD", "5C", "9H", "TH", "JC", NULL}, NULL);
    apply_label(&p, "hit seat 0 hand 0");
    apply_label(&p, "stay seat 0 hand 0");
    apply_label(&p, "stay seat 0 hand 1");
    apply_label(&p, "hit seat 1 hand 0");
    apply_label(&p, "stay seat 1 hand 0");
    apply_label(&p, "stay seat 1 hand 1");
    assert_string_equal(ask(&p, l, sizeof l), "blind hit");
    apply_label(&p, "blind hit");
    apply_label(&p, "blind stay");
    assert_string_equal(ask(&p, l, sizeof l), "blind stay");
    position_close(&p);
}

/* ---- strength ------------------------------------------------------------------------ */

#define STRENGTH_SEEDS 100 /* x 3 seat rotations, matches of 2 deals */

static void test_strength_vs_random(void **state)
{
    bots *b = *state;
    const char *kv[] = {"hands=2", NULL};
    double sum = 0, sum2 = 0, greedy = 0, total = 0;
    uint32_t m = 0;
    for (uint64_t s = 0; s < STRENGTH_SEEDS; s++)
        for (uint32_t seat = 0; seat < 3; seat++) {
            ref_match_result res;
            play(b, 3, kv, 0xb7a1000u + s, 1u << seat, NULL, &res);
            double g = 0, others = 0;
            for (uint32_t i = 0; i < 3; i++) {
                double v = (double)res.outcome.score[i] / JA_SCORE_UNIT;
                total += v;
                if (i == seat)
                    g = v;
                else
                    others += v / 2;
            }
            greedy += g;
            sum += g - others;
            sum2 += (g - others) * (g - others);
            m++;
        }
    double mean = sum / m, sd = sqrt((sum2 - m * mean * mean) / (m - 1));
    double half = 1.96 * sd / sqrt((double)m);
    print_message("greedy vs random vs random: %u matches of 2 deals; greedy's share of the points "
                  "%.3f (chance 0.333); margin per match over a random seat %.3f points, 95%% CI "
                  "[%.3f, %.3f]\n",
                  (unsigned)m, greedy / total, mean, mean - half, mean + half);
    assert_true(mean - half > 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_supports),
        cmocka_unit_test(test_legal_everywhere),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_strength_vs_random),
    };
    return cmocka_run_group_tests(tests, setup_bots, teardown_bots);
}
