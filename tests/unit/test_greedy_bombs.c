/* ctest-requires-game: bombs */
/* Unit tests of the `greedy` heuristic for Bombs (bots/greedy/greedy_bombs.c),
 * loaded as a plugin from $JA_BUILD_DIR/bots/ja_greedy.so next to
 * ja_random.so, exactly as the arena loads it, and played through the real
 * match loop (ref_match_run).
 *
 *  - supports: it plays bombs, and refuses another observation version;
 *  - legality: over matches at 3 to 10 seats and every combination of
 *    out_of_turn and interrupt_after_pass (and tables where several are
 *    possible), greedy alone among random bots, on every other seat and on
 *    every seat, never faults; and at each of its decisions (checked against
 *    the state it was asked in) it goes out whenever one of its legal plays
 *    empties its hand, and revolts whenever it may;
 *  - determinism: the same seed gives the same digest twice;
 *  - chosen positions: a lead that goes out, a completion of a low pair in a
 *    window, no bomb out of turn without a threat, a bomb against an opponent
 *    about to go out;
 *  - strength: 3 seats, greedy against two random bots, default options
 *    (12 hands), greedy's seat rotated over the three seats, fixed seeds.
 *    Per match, greedy's points
 *    minus the mean of the random bots' points; the 95% confidence interval
 *    of its mean must exclude zero. The figure is printed (and quoted in
 *    docs/bots.md).
 *
 * Budget: a few seconds under ASan. */
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

#include "jackarena/ja_bombs.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"

#include "bot_harness.h"

static const ja_game_rules *bombs(void)
{
    const ja_game_rules *g = ja_game_find("bombs");
    assert_non_null(g);
    return g;
}

/* Resolved options from "k=v" strings (NULL-terminated); false when the
 * combination is refused (a tables value for this seat count). */
static bool try_options(const ja_game_rules *g, uint32_t n, const char *const *kv, ja_options *o)
{
    char err[256];
    ja_options_init(g, o);
    for (; kv && *kv; kv++)
        if (ja_options_set(g, o, *kv, err, sizeof err) != JA_OK)
            fail_msg("option %s: %s", *kv, err);
    return ja_options_resolve(g, o, n, err, sizeof err) == JA_OK;
}

/* ---- supports ------------------------------------------------------------------ */

static void test_supports(void **state)
{
    bots *b = *state;
    const ja_game_rules *g = bombs();
    assert_int_equal(ref_bot_supports(b->greedy, g), 1);
    ja_game_rules newer = *g;
    newer.obs_version = g->obs_version + 1;
    assert_int_equal(ref_bot_supports(b->greedy, &newer), 0);
}

/* ---- legality and behaviour ------------------------------------------------------ */

/* Follows a match: before each step it keeps a copy of the state, so that
 * greedy's answers can be checked against what it was asked. */
typedef struct watch {
    uint32_t greedy_mask;
    unsigned char *prev;     /* the state before the step (state_size bytes) */
    uint32_t checked;        /* greedy decisions checked */
    uint32_t out_chances;    /* of which a legal play emptied the hand */
    uint32_t revolts;        /* REVOLT offered to greedy */
} watch;

static uint32_t hand_size(const ja_bombs_obs *o)
{
    uint32_t n = 0;
    for (int c = 0; c < JA_BOMBS_CARDS; c++)
        n += o->hand[c];
    return n;
}

/* Cards a play code takes from the hand (plays only; 0 otherwise). */
static uint32_t play_cards(uint32_t c)
{
    if (c >= JA_BOMBS_SINGLE(0) && c <= JA_BOMBS_SINGLE(JA_BOMBS_R_XR))
        return 1;
    if ((c >= JA_BOMBS_PAIR(0) && c <= JA_BOMBS_PAIR(JA_BOMBS_R_2)) ||
        (c >= JA_BOMBS_COMPLETE(0) && c <= JA_BOMBS_COMPLETE(JA_BOMBS_R_2)) ||
        c == JA_BOMBS_SUPER)
        return 2;
    if (c >= JA_BOMBS_RUN(0, 3) && c < JA_BOMBS_RUN(0, JA_BOMBS_MAX_RUN + 1))
        return 3 + (c - JA_BOMBS_RUN(0, 3)) / JA_BOMBS_RUN_STRIDE;
    if (c >= JA_BOMBS_DRUN(0, 3) && c < JA_BOMBS_DRUN(0, JA_BOMBS_MAX_RUN + 1))
        return 2 * (3 + (c - JA_BOMBS_DRUN(0, 3)) / JA_BOMBS_RUN_STRIDE);
    if (c >= JA_BOMBS_BOMB(0) && c <= JA_BOMBS_BOMB(JA_BOMBS_R_2))
        return 3;
    if (c >= JA_BOMBS_BIG(0) && c <= JA_BOMBS_BIG(JA_BOMBS_R_2))
        return 4;
    return 0;
}

static void on_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    watch *w = ctx;
    ja_action legal[JA_MAX_ACTIONS];
    ja_bombs_obs o;
    for (uint32_t i = 0; i < info->n_recs; i++) {
        const ref_replay_rec *r = &info->recs[i];
        if (!((w->greedy_mask >> r->seat) & 1u))
            continue;
        assert_int_equal(r->fault, JA_FAULT_NONE);
        if (r->forced)
            continue;
        w->checked++;
        g->observe(w->prev, r->seat, &o);
        uint32_t n = g->legal(w->prev, r->seat, legal, g->max_actions), held = hand_size(&o);
        bool can_out = false, revolt = false;
        for (uint32_t k = 0; k < n; k++) {
            can_out |= play_cards(legal[k].code) == held;
            revolt |= legal[k].code == JA_BOMBS_REVOLT;
        }
        if (can_out) {
            w->out_chances++;
            assert_int_equal(play_cards(r->code), held);
        }
        if (revolt) {
            w->revolts++;
            assert_int_equal(r->code, JA_BOMBS_REVOLT);
        }
    }
    memcpy(w->prev, info->state, g->state_size);
}

/* Plays one match; greedy sits where greedy_mask says, random elsewhere.
 * With a watch, every greedy decision is checked. */
static void play(bots *b, uint32_t n, const ja_options *o, uint64_t seed, uint32_t greedy_mask,
                 watch *w, ref_match_result *res)
{
    const ja_game_rules *g = bombs();
    if (w) {
        w->greedy_mask = greedy_mask;
        assert_int_equal(g->setup(w->prev, o, n, seed), JA_OK);
    }
    const bot_match m = {.g = g, .options = *o, .n = n, .seed = seed, .greedy_mask = greedy_mask,
                         .match_id = "test-greedy-bombs", .on_step = w ? on_step : NULL,
                         .step_ctx = w};
    play_bot_match(b, &m, res);
}

static void test_legal_everywhere(void **state)
{
    bots *b = *state;
    static const char *const oot[] = {"out_of_turn=on", "out_of_turn=off"};
    static const char *const after[] = {"interrupt_after_pass=off", "interrupt_after_pass=on"};
    static const char *const tables[] = {"tables=auto", "tables=2", "tables=3"};
    watch w;
    memset(&w, 0, sizeof w);
    w.prev = malloc(bombs()->state_size);
    assert_non_null(w.prev);
    uint32_t matches = 0;
    uint64_t seed = 1000;
    static const uint32_t seat_counts[] = {3, 4, 5, 6, 7, 9, 10};
    for (size_t si = 0; si < sizeof seat_counts / sizeof seat_counts[0]; si++) {
        uint32_t n = seat_counts[si];
        for (int a = 0; a < 2; a++)
            for (int p = 0; p < 2; p++)
                for (int t = 0; t < 3; t++) {
                    const char *kv[] = {oot[a], after[p], tables[t], "hands=2", NULL};
                    ja_options o;
                    if (!try_options(bombs(), n, kv, &o))
                        continue;
                    /* greedy alone among random bots, then on every other
                     * seat, then everywhere */
                    uint32_t masks[3] = {1u << (seed % n), 0x55555u & ((1u << n) - 1),
                                         (1u << n) - 1};
                    for (int m = 0; m < 3; m++) {
                        ref_match_result res;
                        play(b, n, &o, seed++, masks[m], &w, &res);
                        matches++;
                    }
                }
    }
    free(w.prev);
    print_message("greedy legality: %u matches, %u greedy decisions checked, %u chances to go "
                  "out, %u revolts\n",
                  (unsigned)matches, (unsigned)w.checked, (unsigned)w.out_chances,
                  (unsigned)w.revolts);
    assert_true(w.checked > 10000);
    assert_true(w.out_chances > 100);
}

static void test_deterministic(void **state)
{
    bots *b = *state;
    const char *kv[] = {"hands=2", NULL};
    ja_options o;
    assert_true(try_options(bombs(), 4, kv, &o));
    ref_match_result r1, r2;
    play(b, 4, &o, 4242, 0xfu, NULL, &r1);
    play(b, 4, &o, 4242, 0xfu, NULL, &r2);
    assert_memory_equal(r1.digest, r2.digest, sizeof r1.digest);
    assert_memory_equal(&r1.outcome, &r2.outcome, sizeof r1.outcome);
}

/* ---- chosen positions ------------------------------------------------------------ */

/* A position: a 3-seat hand 1 dealt from a stacked deck (dealer 0, top
 * first, ja_rules.h JA_EXT_TEST_DEAL) and played to the decision to test by the
 * actions named ("seat:label", applied one decision at a time; a joint
 * decision lists every asked seat). */
typedef struct position {
    const ja_game_rules *g;
    unsigned char *st;
} position;

static void deal(position *p, const char *const *cards)
{
    p->g = bombs();
    p->st = malloc(p->g->state_size);
    assert_non_null(p->st);
    ja_options o;
    assert_true(try_options(p->g, 3, NULL, &o));
    assert_int_equal(p->g->setup(p->st, &o, 3, 1), JA_OK);
    uint8_t deck[JA_BOMBS_CARDS];
    uint32_t n = 0;
    for (; *cards; cards++) {
        int c = ja_card_parse(*cards);
        assert_true(c >= 0);
        deck[n++] = (uint8_t)c;
    }
    const ja_ext_test_deal *td = ja_rules_extension(p->g, JA_EXT_TEST_DEAL);
    assert_non_null(td);
    assert_int_equal(td->test_deal(p->st, 0, deck, n), JA_OK);
}

/* The legal code of seat labelled text. */
static uint32_t code_of(const position *p, int seat, const char *text)
{
    ja_action l[JA_MAX_ACTIONS];
    char buf[64];
    uint32_t n = p->g->legal(p->st, seat, l, p->g->max_actions);
    for (uint32_t i = 0; i < n; i++)
        if (p->g->label(l[i], buf, sizeof buf) > 0 && strcmp(buf, text) == 0)
            return l[i].code;
    fail_msg("'%s' is not legal for seat %d", text, seat);
    return 0;
}

/* Applies one decision: "seat:label" for each asked seat, NULL-terminated. */
static void act(position *p, const char *const *answers)
{
    ja_action by[JA_MAX_SEATS];
    memset(by, 0, sizeof by);
    uint32_t mask = 0;
    for (; *answers; answers++) {
        int seat = (*answers)[0] - '0';
        by[seat].code = code_of(p, seat, *answers + 2);
        mask |= 1u << seat;
    }
    assert_int_equal(mask, p->g->to_act(p->st));
    assert_int_equal(p->g->apply(p->st, mask, by), JA_OK);
}

/* Greedy's answer, as a label, for seat in the position. */
static void ask(bots *b, const position *p, int seat, char *label, size_t cap)
{
    ref_seat_ctx sc = {.game = p->g, .seat = seat, .n_seats = 3, .match_seed = 1,
                       .match_id = ""};
    ref_seat *s = NULL;
    char err[256];
    assert_int_equal(ref_seat_open(b->greedy, &sc, &s, err, sizeof err), JA_OK);
    ja_bombs_obs o;
    ja_action legal[JA_MAX_ACTIONS];
    p->g->observe(p->st, seat, &o);
    uint32_t n = p->g->legal(p->st, seat, legal, p->g->max_actions);
    assert_true(n >= 2);
    ja_decision d = {.struct_size = sizeof d, .turn = 1, .seat = seat, .n_seats = 3,
                     .game = p->g->name, .obs_version = p->g->obs_version,
                     .obs_size = p->g->obs_size, .obs = &o, .legal = legal, .n_legal = n};
    ref_answer a;
    assert_int_equal(ref_seat_ask(s, &d, true), JA_OK);
    ref_seat_collect(s, 0, &a);
    assert_int_equal(a.fault, JA_FAULT_NONE);
    assert_true(a.index < n);
    p->g->label(legal[a.index], label, cap);
    ref_seat_close(&s);
}

static void expect_answer(bots *b, const position *p, int seat, const char *want)
{
    char got[64];
    ask(b, p, seat, got, sizeof got);
    if (strcmp(got, want) != 0)
        fail_msg("greedy (seat %d) answered '%s', expected '%s'", seat, got, want);
}

/* The decks below are dealt by seat 0 (top first, to seats 0, 2, 1, 0, 2,
 * ...); the comments give the hands. */
static void test_positions(void **state)
{
    bots *b = *state;
    position p;

    /* A lead that empties the hand: the double run 3-J. */
    /* seat 0: 3C 3D 4C 4D 5C 5D 6C 6D 7C 7D 8C 8D 9C 9D TC TD JC JD
     * seat 1: 3H 4H 5H 6H 7H 8H 9H TH QC QD KC KD AC AD AH 2C 2D 2H
     * seat 2: 3S 4S 5S 6S 7S 8S 9S TS JH JS QH QS KH KS AS 2S XB XR */
    static const char *const d1[] = {
        "3C", "JH", "AC", "3D", "QH", "2C", "4C", "KH", "QC", "4D", "AS", "KC",
        "5C", "2S", "AD", "5D", "3S", "2D", "6C", "4S", "QD", "6D", "5S", "KD",
        "7C", "6S", "AH", "7D", "7S", "2H", "8C", "8S", "3H", "8D", "9S", "4H",
        "9C", "TS", "5H", "9D", "JS", "6H", "TC", "QS", "7H", "TD", "KS", "8H",
        "JC", "XB", "9H", "JD", "XR", "TH",
        NULL};
    deal(&p, d1);
    expect_answer(b, &p, 0, "lead double run of 9");
    free(p.st);

    /* A window after seat 0's single 5: seat 2 completes its low pair. */
    /* seat 0: 3C 3D 4C 4D 5C 6C 6D 7C 8C 9C TC JC QC KC AC AD 2C 2D
     * seat 1: 4H 4S 5S 6H 6S 7H 8H 9D 9H TD TH JD QD QS KD 2S XB XR
     * seat 2: 3H 3S 5D 5H 7D 7S 8D 8S 9S TS JH JS QH KH KS AH AS 2H */
    static const char *const d2[] = {
        "3C", "5D", "9D", "5C", "5H", "TD", "9C", "3H", "JD", "AC", "3S", "QD",
        "2C", "7D", "KD", "4C", "7S", "4H", "6C", "8D", "6H", "7C", "8S", "7H",
        "8C", "9S", "8H", "TC", "TS", "9H", "JC", "JH", "TH", "QC", "JS", "2S",
        "KC", "QH", "4S", "AD", "KH", "5S", "2D", "KS", "6S", "3D", "AH", "QS",
        "4D", "AS", "XB", "6D", "2H", "XR",
        NULL};
    deal(&p, d2);
    act(&p, (const char *const[]){"0:lead single", NULL});
    act(&p, (const char *const[]){"0:single 5", NULL});
    expect_answer(b, &p, 2, "complete 5");
    free(p.st);

    /* No bomb out of turn on a plain single when nobody is about to go out. */
    /* seat 0: 3C 3D 4C 5C 5D 6C 6D 7C 8C 9C TC JC QC KC AC AD 2C 2D
     * seat 1: 5H 5S 7H 7S 8D 8H 9D 9H 9S TD TH JD QD KD 2H 2S XB XR
     * seat 2: 3H 3S 4D 4H 4S 6H 6S 7D 8S TS JH JS QH QS KH KS AH AS */
    static const char *const d3[] = {
        "3C", "4D", "8D", "9C", "4H", "9D", "AC", "4S", "TD", "2C", "6S", "JD",
        "4C", "7D", "QD", "5C", "8S", "KD", "6C", "TS", "2H", "7C", "JS", "5H",
        "8C", "QS", "7H", "TC", "KS", "8H", "JC", "AS", "9H", "QC", "3S", "TH",
        "KC", "3H", "2S", "AD", "6H", "5S", "2D", "JH", "7S", "3D", "QH", "9S",
        "5D", "KH", "XB", "6D", "AH", "XR",
        NULL};
    deal(&p, d3);
    act(&p, (const char *const[]){"0:lead single", NULL});
    act(&p, (const char *const[]){"0:single 9", NULL});
    expect_answer(b, &p, 2, "decline");
    free(p.st);

    /* Seat 0 leads a double run of 8 and keeps 2 cards: seat 2 bombs it out
     * of turn, with its cheapest bomb (not the super bomb). */
    /* seat 0: 3C 3D 4C 4D 5C 5D 6C 6D 7C 7D 8C 8D 9C 9D TC TD QC KC
     * seat 1: 3H 4H 5H 6H 7H 8H 9H TH JC JD JH QD QH KD AC AD AH 2C
     * seat 2: 3S 4S 5S 6S 7S 8S 9S TS JS QS KH KS AS 2D 2H 2S XB XR */
    static const char *const d4[] = {
        "3C", "2D", "AC", "3D", "2H", "2C", "4C", "2S", "JC", "4D", "KH", "AD",
        "5C", "AS", "JD", "5D", "3S", "QD", "6C", "4S", "KD", "6D", "5S", "AH",
        "7C", "6S", "3H", "7D", "7S", "4H", "8C", "8S", "5H", "8D", "9S", "6H",
        "9C", "TS", "7H", "9D", "JS", "8H", "TC", "QS", "9H", "TD", "KS", "TH",
        "QC", "XB", "JH", "KC", "XR", "QH",
        NULL};
    deal(&p, d4);
    act(&p, (const char *const[]){"0:lead double run of 8", NULL});
    act(&p, (const char *const[]){"0:double run 3-10", NULL});
    expect_answer(b, &p, 2, "bomb 2");
    free(p.st);
}

/* ---- strength ---------------------------------------------------------------------- */

#define STRENGTH_SEEDS 40 /* x 3 seat rotations */

static void test_strength_vs_random(void **state)
{
    bots *b = *state;
    ja_options o;
    assert_true(try_options(bombs(), 3, NULL, &o));
    double sum = 0, sum2 = 0, greedy = 0, all = 0;
    uint32_t n = 0;
    for (uint64_t s = 0; s < STRENGTH_SEEDS; s++)
        for (uint32_t seat = 0; seat < 3; seat++) {
            ref_match_result res;
            play(b, 3, &o, 0x5eed0000u + s, 1u << seat, NULL, &res);
            double pts[3], others = 0;
            for (uint32_t i = 0; i < 3; i++) {
                pts[i] = (double)res.outcome.score[i] / JA_SCORE_UNIT;
                all += pts[i];
                if (i != seat)
                    others += pts[i] / 2;
            }
            greedy += pts[seat];
            double m = pts[seat] - others;
            sum += m;
            sum2 += m * m;
            n++;
        }
    double mean = sum / n, sd = sqrt((sum2 - n * mean * mean) / (n - 1)), half = 1.96 * sd / sqrt(n);
    print_message("greedy vs random vs random: %u matches (12 hands); greedy's margin over the "
                  "random mean %.2f points a match, 95%% CI [%.2f, %.2f]; share of points %.3f "
                  "(chance 0.333)\n",
                  (unsigned)n, mean, mean - half, mean + half, greedy / all);
    assert_true(mean - half > 0);
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
