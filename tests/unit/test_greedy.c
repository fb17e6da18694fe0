/* Unit tests of the `greedy` reference bot (bots/greedy/greedy.c), loaded
 * as a plugin from $JA_BUILD_DIR/bots/ja_greedy.so next to ja_random.so,
 * exactly as the arena loads it, and played through the real match loop
 * (ref_match_run, no replay).
 *
 *  - supports: it plays taylor-blackjack, and refuses another game name, the
 *    same name with another observation version, and a seat of a game it
 *    does not play (a clear error, never a crash);
 *  - legality: over matches at 2..6 seats and every combination of
 *    last_card (explicit, auto), rebuild (noshuffle, shuffle) and decks
 *    (auto, 1, 2), greedy next to random and next to itself never faults.
 *    Every decision it is asked is also checked against the observation it
 *    was asked on: it always declares "Last card", names a suit when asked,
 *    and takes a way out when it has one (its last card is playable and not
 *    an 8, or a ten run can lay its whole hand);
 *  - determinism: the same seed gives the same digest twice;
 *  - strength: 3 seats, greedy against two random bots, greedy's seat
 *    rotated over the three seats, fixed seeds. Greedy's share of the points
 *    must be above 0.5 (chance is 1/3) and many standard deviations above
 *    chance. The measured share is printed (and quoted in docs/bots.md).
 *
 * Budget: a few seconds under ASan (small `games` options). */
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

#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_taylor.h"

#include "bot_harness.h"

static const ja_game_rules *taylor(void)
{
    const ja_game_rules *g = ja_game_find("taylor-blackjack");
    assert_non_null(g);
    return g;
}


/* ---- supports ---------------------------------------------------------------- */

static void test_supports(void **state)
{
    bots *b = *state;
    const ja_game_rules *g = taylor();
    assert_int_equal(ref_bot_supports(b->greedy, g), 1);
    assert_string_equal(ref_bot_get_info(b->greedy)->name, "greedy");

    ja_game_rules other = *g;
    other.name = "no-such-game";
    other.title = "No such game";
    assert_int_equal(ref_bot_supports(b->greedy, &other), 0);
    other.name = "";
    assert_int_equal(ref_bot_supports(b->greedy, &other), 0);

    ja_game_rules newer = *g;
    newer.obs_version = g->obs_version + 1;
    assert_int_equal(ref_bot_supports(b->greedy, &newer), 0);

    /* Asked to sit anyway, it refuses the seat with a message, not a crash. */
    ref_seat_ctx sc = {.game = &other, .seat = 0, .n_seats = 3, .match_seed = 1, .match_id = ""};
    other.name = "no-such-game";
    ref_seat *seat = NULL;
    char err[256] = "";
    assert_int_not_equal(ref_seat_open(b->greedy, &sc, &seat, err, sizeof err), JA_OK);
    assert_null(seat);
    assert_non_null(strstr(err, "no-such-game"));
}

/* ---- legality and behaviour ---------------------------------------------------- */

/* Follows a match step by step: before each step it keeps the observation of
 * the seat about to act, so that the answer can be checked against it. */
typedef struct watch {
    const ja_game_rules *g;
    uint32_t greedy_mask; /* seats played by greedy */
    ja_taylor_obs prev;   /* of the seat to act before the step */
    bool have_prev;
    uint32_t checked;     /* greedy decisions checked */
    uint32_t way_out;     /* of which: a way out was available */
} watch;

/* True if the hand (counts) can go out in one decision at this stage. */
static bool can_go_out(const ja_taylor_obs *o, uint32_t *card)
{
    int total = 0, last = -1;
    for (int c = 0; c < 52; c++)
        if (o->hand[c]) {
            total += o->hand[c];
            last = c;
        }
    if (total == 0)
        return false;
    if (o->stage == JA_TAYLOR_STAGE_RUN) {
        /* Every card of the run suit, at least one not an 8 to lay last. */
        bool non8 = false;
        for (int c = 0; c < 52; c++)
            if (o->hand[c]) {
                if (ja_card_suit((uint8_t)c) != o->run_suit)
                    return false;
                non8 |= ja_card_rank((uint8_t)c) != JA_RANK_8;
            }
        *card = UINT32_MAX; /* any card of the run, never FINISH */
        return non8;
    }
    if (total != 1 || ja_card_rank((uint8_t)last) == JA_RANK_8)
        return false;
    bool legal = false;
    switch (o->stage) {
    case JA_TAYLOR_STAGE_TURN:
        legal = ja_card_suit((uint8_t)last) == o->active_suit ||
                ja_card_rank((uint8_t)last) == ja_card_rank(o->top);
        break;
    case JA_TAYLOR_STAGE_PENALTY:
        legal = ja_card_rank((uint8_t)last) ==
                (o->penalty_kind == JA_TAYLOR_PEN_TWO ? JA_RANK_2 : JA_RANK_J);
        break;
    case JA_TAYLOR_STAGE_EIGHT: legal = true; break;
    default: break;
    }
    *card = (uint32_t)last;
    return legal;
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
        const ja_taylor_obs *o = &w->prev;
        w->checked++;
        switch (o->stage) {
        case JA_TAYLOR_STAGE_DECLARE: assert_int_equal(r->code, JA_TAYLOR_DECLARE); break;
        case JA_TAYLOR_STAGE_NOMINATE:
            assert_true(r->code >= JA_TAYLOR_SUIT(0) && r->code <= JA_TAYLOR_SUIT(3));
            break;
        default: {
            uint32_t card;
            if (can_go_out(o, &card)) {
                w->way_out++;
                if (card == UINT32_MAX)
                    assert_true(r->code < 52);
                else
                    assert_int_equal(r->code, card);
            }
            break;
        }
        }
    }
    w->have_prev = false;
    uint32_t mask = g->to_act(info->state);
    if (mask) {
        int seat = __builtin_ctz(mask);
        g->observe(info->state, seat, &w->prev);
        w->have_prev = true;
    }
}

/* Plays one match; greedy sits where greedy_mask says, random elsewhere. */
static void play(bots *b, uint32_t n, const char *const *kv, uint64_t seed, uint32_t greedy_mask,
                 watch *w, ref_match_result *res)
{
    const ja_game_rules *g = taylor();
    if (w) {
        w->g = g;
        w->greedy_mask = greedy_mask;
        w->have_prev = false;
    }
    const bot_match m = {.g = g, .options = make_options(g, n, kv), .n = n, .seed = seed,
                         .greedy_mask = greedy_mask, .match_id = "test-greedy",
                         .on_step = w ? on_step : NULL, .step_ctx = w};
    play_bot_match(b, &m, res);
}

static void test_legal_everywhere(void **state)
{
    bots *b = *state;
    static const char *const last[] = {"last_card=explicit", "last_card=auto"};
    static const char *const rebuild[] = {"rebuild=noshuffle", "rebuild=shuffle"};
    static const char *const decks[] = {"decks=auto", "decks=1", "decks=2"};
    watch w;
    memset(&w, 0, sizeof w);
    uint32_t matches = 0;
    uint64_t seed = 1000;
    for (uint32_t n = 2; n <= 6; n++)
        for (int l = 0; l < 2; l++)
            for (int r = 0; r < 2; r++)
                for (int d = 0; d < 3; d++) {
                    const char *kv[] = {last[l], rebuild[r], decks[d], "games=2", NULL};
                    /* greedy alone among random bots, then greedy on every
                     * other seat, then greedy everywhere */
                    uint32_t masks[3] = {1u << (seed % n), 0x555u & ((1u << n) - 1),
                                         (1u << n) - 1};
                    for (int m = 0; m < 3; m++) {
                        ref_match_result res;
                        play(b, n, kv, seed++, masks[m], &w, &res);
                        matches++;
                    }
                }
    print_message("greedy legality: %u matches, %u greedy decisions checked, %u with a way out\n",
                  (unsigned)matches, (unsigned)w.checked, (unsigned)w.way_out);
    assert_true(w.checked > 1000);
    assert_true(w.way_out > 10);
}

/* Larger tables and a short turn cap: still no fault. */
static void test_legal_large_tables(void **state)
{
    bots *b = *state;
    watch w;
    memset(&w, 0, sizeof w);
    for (uint32_t n = 7; n <= 12; n++) {
        const char *kv[] = {"games=1", n % 2 ? "rebuild=shuffle" : "rebuild=noshuffle",
                            n == 7 ? "decks=1" : "decks=2", NULL};
        ref_match_result res;
        play(b, n, kv, 77 + n, 0x249u & ((1u << n) - 1), &w, &res);
    }
    const char *cap[] = {"games=3", "turn_cap=25", NULL};
    ref_match_result res;
    play(b, 4, cap, 5, 0xfu, &w, &res);
    assert_true(w.checked > 0);
}

static void test_deterministic(void **state)
{
    bots *b = *state;
    const char *kv[] = {"games=2", NULL};
    ref_match_result r1, r2;
    play(b, 3, kv, 4242, 0x7u, NULL, &r1);
    play(b, 3, kv, 4242, 0x7u, NULL, &r2);
    assert_memory_equal(r1.digest, r2.digest, sizeof r1.digest);
    assert_memory_equal(&r1.outcome, &r2.outcome, sizeof r1.outcome);
}

/* ---- chosen positions ------------------------------------------------------------ */

/* A 3-seat position for seat 0: the cards in `hand` (labels), `top` on the
 * pile, 7 cards in every other hand, a face-down stock. */
static void position(ja_taylor_obs *o, int stage, const char *top, const char *const *hand)
{
    memset(o, 0, sizeof *o);
    o->n_seats = 3;
    o->decks = 1;
    o->turn_cap = 600;
    o->games = 1;
    o->to_act = 0;
    o->stage = (uint8_t)stage;
    o->direction = 1;
    o->top = (uint8_t)ja_card_parse(top);
    o->active_suit = (uint8_t)ja_card_suit(o->top);
    o->run_suit = JA_CARD_NONE;
    o->hand_count[1] = o->hand_count[2] = 7;
    o->pile_count = 1;
    o->pile[0] = o->top;
    o->stock_count = 20;
    for (; *hand; hand++) {
        int c = ja_card_parse(*hand);
        assert_true(c >= 0 && c < 52);
        o->hand[c]++;
        o->hand_count[0]++;
    }
}

/* The legal list of the position, as the engine would list it. */
static uint32_t legal_of(const ja_taylor_obs *o, ja_action *out)
{
    uint32_t n = 0;
    for (int c = 0; c < 52; c++) {
        if (!o->hand[c])
            continue;
        int r = ja_card_rank((uint8_t)c), s = ja_card_suit((uint8_t)c);
        bool ok = false;
        switch (o->stage) {
        case JA_TAYLOR_STAGE_TURN: ok = s == o->active_suit || r == ja_card_rank(o->top); break;
        case JA_TAYLOR_STAGE_PENALTY:
            ok = r == (o->penalty_kind == JA_TAYLOR_PEN_TWO ? JA_RANK_2 : JA_RANK_J);
            break;
        case JA_TAYLOR_STAGE_EIGHT: ok = true; break;
        case JA_TAYLOR_STAGE_RUN: ok = s == o->run_suit; break;
        default: break;
        }
        if (ok)
            out[n++].code = (uint32_t)c;
    }
    switch (o->stage) {
    case JA_TAYLOR_STAGE_TURN: out[n++].code = JA_TAYLOR_DRAW; break;
    case JA_TAYLOR_STAGE_PENALTY: out[n++].code = JA_TAYLOR_PICK_UP; break;
    case JA_TAYLOR_STAGE_RUN: out[n++].code = JA_TAYLOR_FINISH; break;
    case JA_TAYLOR_STAGE_NOMINATE:
        for (int i = 0; i < 4; i++)
            out[n++].code = JA_TAYLOR_SUIT(i);
        break;
    case JA_TAYLOR_STAGE_DECLARE:
        out[n++].code = JA_TAYLOR_DECLARE;
        out[n++].code = JA_TAYLOR_STAY_SILENT;
        break;
    default: break;
    }
    return n;
}

/* Greedy's answer in the position, as an action code. */
static uint32_t ask(ref_seat *seat, const ja_taylor_obs *o)
{
    ja_action legal[64];
    uint32_t n = legal_of(o, legal);
    assert_true(n >= 1);
    ja_decision d = {sizeof d, 1, 0, 0, o->n_seats, "taylor-blackjack", JA_TAYLOR_OBS_VERSION,
                     (uint32_t)sizeof *o, o, legal, n};
    ref_answer a;
    assert_int_equal(ref_seat_ask(seat, &d, true), JA_OK);
    ref_seat_collect(seat, 0, &a);
    assert_int_equal(a.fault, JA_FAULT_NONE);
    assert_true(a.index < n);
    return legal[a.index].code;
}

static uint32_t card(const char *label)
{
    int c = ja_card_parse(label);
    assert_true(c >= 0 && c < 52);
    return (uint32_t)c;
}

static void test_positions(void **state)
{
    bots *b = *state;
    ref_seat_ctx sc = {.game = taylor(), .seat = 0, .n_seats = 3, .match_seed = 1, .match_id = ""};
    ref_seat *seat = NULL;
    char err[256];
    assert_int_equal(ref_seat_open(b->greedy, &sc, &seat, err, sizeof err), JA_OK);
    ja_taylor_obs o;

    /* Under a penalty: pass it on with the black card, keep the red one. */
    position(&o, JA_TAYLOR_STAGE_PENALTY, "2S", (const char *[]){"2H", "2C", "5D", "9S", NULL});
    o.penalty_kind = JA_TAYLOR_PEN_TWO;
    o.penalty_k = 1;
    assert_int_equal(ask(seat, &o), card("2C"));
    /* Only a red one: cancel rather than pick up. */
    position(&o, JA_TAYLOR_STAGE_PENALTY, "JS", (const char *[]){"JD", "5D", "9S", NULL});
    o.penalty_kind = JA_TAYLOR_PEN_JACK;
    o.penalty_k = 1;
    assert_int_equal(ask(seat, &o), card("JD"));
    /* Nothing to answer with: pick up. */
    position(&o, JA_TAYLOR_STAGE_PENALTY, "JS", (const char *[]){"2D", "5D", NULL});
    o.penalty_kind = JA_TAYLOR_PEN_JACK;
    o.penalty_k = 2;
    assert_int_equal(ask(seat, &o), JA_TAYLOR_PICK_UP);

    /* Two seats, the opponent known to hold a black 2 and no 2 left after
     * passing it on: the penalty would come back bigger, so pick up now... */
    position(&o, JA_TAYLOR_STAGE_PENALTY, "2H", (const char *[]){"2C", "5D", "9H", NULL});
    o.n_seats = 2;
    o.hand_count[2] = 0;
    o.known[52 * 1 + card("2S")] = 1;
    o.penalty_kind = JA_TAYLOR_PEN_TWO;
    o.penalty_k = 1;
    assert_int_equal(ask(seat, &o), JA_TAYLOR_PICK_UP);
    /* ... but with a second 2 it answers (either 2 will do). */
    o.hand[card("2D")] = 1;
    o.hand_count[0]++;
    uint32_t a = ask(seat, &o);
    assert_true(a == card("2C") || a == card("2D"));

    /* Its last card is playable: go out. */
    position(&o, JA_TAYLOR_STAGE_TURN, "4H", (const char *[]){"KH", NULL});
    assert_int_equal(ask(seat, &o), card("KH"));
    /* Always declare. */
    position(&o, JA_TAYLOR_STAGE_DECLARE, "4H", (const char *[]){"9C", NULL});
    assert_int_equal(ask(seat, &o), JA_TAYLOR_DECLARE);
    /* Nominate the suit it holds most of. */
    position(&o, JA_TAYLOR_STAGE_NOMINATE, "AH", (const char *[]){"3S", "5S", "9S", "KD", NULL});
    assert_int_equal(ask(seat, &o), JA_TAYLOR_SUIT(JA_SUIT_S));
    /* A black Jack against a next seat about to go out, rather than a plain card. */
    position(&o, JA_TAYLOR_STAGE_TURN, "4C", (const char *[]){"JC", "6C", "9D", "3H", NULL});
    o.hand_count[1] = 2;
    assert_int_equal(ask(seat, &o), card("JC"));
    /* Keep the red Jack as a counter when a plain card can be played. */
    position(&o, JA_TAYLOR_STAGE_TURN, "4D", (const char *[]){"JD", "6D", "9C", "3H", NULL});
    assert_int_equal(ask(seat, &o), card("6D"));

    /* A ten run: from the 10, lay every heart, the Queen last (skip), then finish. */
    position(&o, JA_TAYLOR_STAGE_TURN, "4H",
             (const char *[]){"TH", "5H", "9H", "QH", "3C", "4D", NULL});
    assert_int_equal(ask(seat, &o), card("TH"));
    uint32_t laid[8], n_laid = 0, c = card("TH");
    for (;;) {
        o.hand[c]--;
        o.hand_count[0]--;
        o.top = (uint8_t)c;
        o.pile[o.pile_count++] = (uint8_t)c;
        o.stage = JA_TAYLOR_STAGE_RUN;
        o.run_suit = JA_SUIT_H;
        o.laid++;
        c = ask(seat, &o);
        if (c == JA_TAYLOR_FINISH)
            break;
        assert_true(c < 52 && n_laid < 8);
        laid[n_laid++] = c;
    }
    assert_int_equal(n_laid, 3);
    assert_int_equal(laid[2], card("QH"));
    assert_int_equal(o.hand[card("5H")] + o.hand[card("9H")], 0);
    /* After an 8: a run of the long suit is better than a single card. */
    position(&o, JA_TAYLOR_STAGE_EIGHT, "8D",
             (const char *[]){"TS", "3S", "6S", "9S", "4C", NULL});
    assert_int_equal(ask(seat, &o), card("TS"));

    ref_seat_close(&seat);
}

/* ---- strength ------------------------------------------------------------------ */

#define STRENGTH_SEEDS 40 /* x 3 seat rotations x 2 games = 240 games */

static void test_strength_vs_random(void **state)
{
    bots *b = *state;
    const char *kv[] = {"games=2", NULL};
    double greedy = 0, total = 0;
    uint32_t games = 0;
    for (uint64_t s = 0; s < STRENGTH_SEEDS; s++)
        for (uint32_t seat = 0; seat < 3; seat++) {
            ref_match_result res;
            play(b, 3, kv, 0x5eed0000u + s, 1u << seat, NULL, &res);
            for (uint32_t i = 0; i < 3; i++) {
                double v = (double)res.outcome.score[i] / JA_SCORE_UNIT;
                total += v;
                if (i == seat)
                    greedy += v;
            }
            games += 2;
        }
    assert_true(total > games - 0.5 && total < games + 0.5); /* one point per game */
    double share = greedy / total, p0 = 1.0 / 3.0;
    double sd = sqrt(p0 * (1 - p0) / games), z = (share - p0) / sd;
    print_message("greedy vs random vs random: greedy share %.3f of %u games (chance 0.333, "
                  "sd %.3f, z = %.1f)\n", share, (unsigned)games, sd, z);
    assert_true(share > 0.5);
    assert_true(z > 8.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_supports),
        cmocka_unit_test(test_legal_everywhere),
        cmocka_unit_test(test_legal_large_tables),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_strength_vs_random),
    };
    return cmocka_run_group_tests(tests, setup_bots, teardown_bots);
}
