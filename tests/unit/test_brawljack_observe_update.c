/* ctest-requires-game: brawljack */
/* BrawlJack's incremental observation (JA_EXT_OBSERVE_UPDATE) where random
 * play seldom or never goes. The property suite (tests/rules/test_all_games.c)
 * checks the update at every step of random matches; these two positions,
 * built from the stacked decks of two rules scenarios, are beyond it:
 *
 *  - the stock running out (022-stock-runs-out.scn: 2 seats, 50 draws
 *    parked by splits, 41 hands LIVE when the stock runs out). STOCK_OUT
 *    stays every LIVE hand at once without an event naming any of them, and
 *    random play never empties the stock (no STOCK_OUT in 12000 random
 *    matches of 2, 4 and 8 seats). With the dealer on, the deal goes on
 *    after it, to the dealer phase played by seat 1; a second deal is then
 *    played at random to the end;
 *  - a blind tiebreak of three rounds (027-blind-narrows-then-all-bust.scn:
 *    3 seats; the second reveal shows three cards of seats 0 and 1 and none
 *    of seat 2, which showed two at the first; the third shows one card of
 *    seats 0 and 1). Only a reveal followed by another blind round, or by
 *    the end of the match, is seen within its deal, where the update may go
 *    by what changed; each must clear what the last reveal showed.
 *
 * Each seat keeps buffers brought up to date by update() after every step,
 * every 2nd and every 3rd; each must equal observe() byte for byte. Each
 * test requires that updates across its event (the STOCK_OUT, the second
 * and third REVEALs) were made from a buffer of the same deal a few events
 * before.
 *
 * Budget: milliseconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_brawljack.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"

#include "bot_harness.h"

#define MAX_SEATS 3
#define LAGS 3 /* buffers per seat: updated every 1, 2, 3 steps */

/* Scenario 022's deck: seat 0 AC 7C, seat 1 8C 9C, then the stock. */
static const char *const DECK =
    "AC 8C 7C 9C AD AH AS 2C 2D 2H 2S 3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H 5S 6C 6D 6H 6S 7D 7H 7S "
    "TC TD TH TS 8D 8H 8S JC JD JH JS 9D 9H 9S QC QD QH QS KC KD KH KS XB XR";
/* The dealer's deck: no joker on top (a joker alone is a 21, which would
 * meet the target of one 21 at once and end the deal). */
static const char *const DEALER_DECK = "2C 3C 4C 5C 6C";

/* Scenario 022's draws, in order: each is put on (owner, hand k) by the
 * seat to act, which then ends its turn. */
static const struct {
    uint8_t owner, k, times;
} DRAWS[] = {{0, 0, 23}, {0, 1, 7}, {1, 0, 7}, {1, 1, 7}, {0, 20, 4}, {0, 2, 1}, {0, 3, 1}};

static uint32_t parse_deck(const char *labels, uint8_t *out)
{
    char buf[256], *save = NULL;
    uint32_t k = 0;
    snprintf(buf, sizeof buf, "%s", labels);
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        int c = ja_card_parse(t);
        assert_true(c >= 0 && c < JA_BRAWLJACK_DECK);
        out[k++] = (uint8_t)c;
    }
    return k;
}

typedef struct run {
    const ja_game_rules *g;
    const ja_ext_observe_update *ou;
    const ja_ext_test_deal *td;
    void *st;
    int n;
    ja_brawljack_obs buf[MAX_SEATS][LAGS], want;
    uint32_t step;
    uint32_t in_deal; /* updates across a watched step from the same deal */
} run;

/* After a step: the buffers whose turn it is brought up to date, each
 * checked against observe(). */
static void check(run *r, int watch)
{
    r->step++;
    for (int s = 0; s < r->n; s++)
        for (uint32_t l = 0; l < LAGS; l++) {
            if (r->step % (l + 1) != 0)
                continue;
            ja_brawljack_obs *o = &r->buf[s][l];
            const uint32_t deal = o->deal, seq = o->event_seq;
            r->ou->update(r->st, s, o);
            r->g->observe(r->st, s, &r->want);
            if (memcmp(o, &r->want, sizeof *o) != 0)
                fail_msg("step %u: seat %d's buffer (updated every %u steps) differs from "
                         "observe()",
                         (unsigned)r->step, s, (unsigned)(l + 1));
            /* Across the watched step, from a buffer of the same deal a few
             * events before: where the update may go by what changed. */
            if (watch && seq > 0 && deal == r->want.deal && r->want.event_seq - seq <= 8)
                r->in_deal++;
        }
}

/* The seat to act (it must be `seat`, or any when -1) applies code. */
static void act(run *r, int seat, uint32_t code, int watch)
{
    ja_action by[JA_MAX_SEATS] = {{0}};
    uint32_t mask = r->g->to_act(r->st);
    assert_true(mask != 0);
    if (seat >= 0)
        assert_int_equal(mask, 1u << seat);
    by[__builtin_ctz(mask)].code = code;
    assert_int_equal(r->g->apply(r->st, mask, by), JA_OK);
    check(r, watch);
}

/* n seats with options kv; the current deal re-dealt from `deck` with seat
 * 0 first; the decks of `more` (NULL-terminated) stacked as the next fresh
 * ones; every buffer brought up to date from zeros. */
static void run_open(run *r, int n, const char *const *kv, const char *deck,
                     const char *const *more)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->g = ja_game_find("brawljack");
    assert_non_null(r->g);
    assert_int_equal(r->g->obs_size, sizeof(ja_brawljack_obs));
    r->ou = ja_rules_extension(r->g, JA_EXT_OBSERVE_UPDATE);
    assert_true(r->ou && r->ou->update);
    r->td = ja_rules_extension(r->g, JA_EXT_TEST_DEAL);
    assert_non_null(r->td);
    r->st = malloc(r->g->state_size);
    assert_non_null(r->st);
    ja_options o = make_options(r->g, (uint32_t)n, kv);
    assert_int_equal(r->g->setup(r->st, &o, (uint32_t)n, 1), JA_OK);
    uint8_t cards[JA_BRAWLJACK_DECK];
    uint32_t k = parse_deck(deck, cards);
    assert_int_equal(r->td->test_deal(r->st, 0, cards, k), JA_OK);
    for (; more && *more; more++) {
        k = parse_deck(*more, cards);
        assert_int_equal(r->td->test_deal(r->st, -1, cards, k), JA_OK);
    }
    check(r, 0);
}

static void test_stock_out(void **state)
{
    (void)state;
    run r;
    const char *kv[] = {"dealer=on", "hands=2", NULL};
    const char *more[] = {DEALER_DECK, NULL};
    run_open(&r, 2, kv, DECK, more);

    uint32_t draws = 0;
    for (size_t i = 0; i < sizeof DRAWS / sizeof DRAWS[0]; i++)
        for (uint32_t t = 0; t < DRAWS[i].times; t++, draws++) {
            act(&r, (int)(draws % 2), JA_BRAWLJACK_HIT(DRAWS[i].owner, DRAWS[i].k), 0);
            assert_int_equal(r.want.stage, JA_BRAWLJACK_STAGE_STAY);
            if (draws + 1 < 50)
                act(&r, (int)(draws % 2), JA_BRAWLJACK_END_TURN, 0);
        }
    assert_int_equal(r.want.deck_count, 0);
    uint32_t live = 0;
    for (int h = 0; h < r.want.n_hands; h++)
        live += r.want.hand_state[h] == JA_BRAWLJACK_HAND_LIVE;
    assert_int_equal(live, 41);

    /* The next turn finds the stock empty: every LIVE hand stayed, the
     * result (seat 0 leads with one 21), the dealer phase, seat 1 to hit. */
    act(&r, 1, JA_BRAWLJACK_END_TURN, 1);
    assert_int_equal(r.want.deal, 0);
    assert_int_equal(r.want.stage, JA_BRAWLJACK_STAGE_DEALER_HIT);
    assert_int_equal(r.want.to_act, 1);
    uint32_t stock_out = 0;
    for (uint32_t i = 0; i < JA_BRAWLJACK_EVENTS; i++)
        stock_out += r.want.ev_kind[i] == JA_BRAWLJACK_EV_STOCK_OUT && r.want.ev_value[i] == 41;
    assert_int_equal(stock_out, 1);
    live = 0;
    for (int h = 0; h < r.want.n_hands; h++)
        if (r.want.hand_owner[h] == JA_BRAWLJACK_DEALER)
            live += r.want.hand_state[h] == JA_BRAWLJACK_HAND_LIVE;
        else
            assert_int_not_equal(r.want.hand_state[h], JA_BRAWLJACK_HAND_LIVE);
    assert_int_equal(live, 2); /* the dealer's two hands, the only LIVE ones */
    assert_true(r.in_deal >= 2);

    /* The rest of the match at random. */
    ja_rng rng;
    ja_rng_seed(&rng, 22);
    ja_action l[JA_MAX_ACTIONS];
    while (r.g->to_act(r.st)) {
        int s = __builtin_ctz(r.g->to_act(r.st));
        uint32_t n = r.g->legal(r.st, s, l, JA_MAX_ACTIONS);
        assert_true(n > 0);
        act(&r, -1, l[ja_rng_below(&rng, n)].code, 0);
    }
    assert_int_equal(r.want.stage, JA_BRAWLJACK_STAGE_OVER);
    print_message("%u steps, %u updates across the STOCK_OUT within the deal\n",
                  (unsigned)r.step, (unsigned)r.in_deal);
    free(r.st);
}

/* The blind tiebreak of scenario 027: three seats tie at 20; round 1 shows
 * 9-T, 9-T, 7-Q (19 19 17); round 2 (seats 0 and 1) shows K-Q-5, K-J-6
 * (both bust), seat 2's cards no longer shown; round 3 (seats 0 and 1
 * again) shows 2 and 3: seat 1 wins the match's one deal. */
static void test_blind_rounds(void **state)
{
    (void)state;
    run r;
    const char *kv[] = {"hands=1", NULL};
    const char *more[] = {"9C 9D 7S TD TH QS", "KH KS QH JC 5H 6S", "2C 3C", NULL};
    run_open(&r, 3, kv, "KS QD JH 5C 9H 4D TH TC KC", more);
    for (int s = 0; s < 3; s++) {
        act(&r, s, JA_BRAWLJACK_HIT(s, 0), 0);
        act(&r, s, JA_BRAWLJACK_STAY(s, 0), 0);
        act(&r, s, JA_BRAWLJACK_STAY(s, 1), 0);
    }
    assert_int_equal(r.want.stage, JA_BRAWLJACK_STAGE_BLIND);
    for (int s = 0; s < 3; s++)
        act(&r, s, JA_BRAWLJACK_BLIND_HIT, 0);
    for (int s = 0; s < 3; s++)
        act(&r, s, JA_BRAWLJACK_BLIND_STAY, 0);
    static const uint8_t one[] = {2, 2, 2}, two[] = {3, 3, 0}, three[] = {1, 1, 0};
    assert_memory_equal(r.want.shown_count, one, 3);
    for (int k = 0; k < 2; k++) {
        act(&r, 0, JA_BRAWLJACK_BLIND_HIT, 0);
        act(&r, 1, JA_BRAWLJACK_BLIND_HIT, 0);
    }
    act(&r, 0, JA_BRAWLJACK_BLIND_STAY, 0);
    act(&r, 1, JA_BRAWLJACK_BLIND_STAY, 1); /* the second reveal, round 3 */
    assert_int_equal(r.want.blind_round, 3);
    assert_memory_equal(r.want.shown_count, two, 3);
    const uint32_t second = r.in_deal;
    assert_true(second >= 3);
    act(&r, 0, JA_BRAWLJACK_BLIND_STAY, 0);
    act(&r, 1, JA_BRAWLJACK_BLIND_STAY, 1); /* the third, and the end */
    assert_int_equal(r.want.stage, JA_BRAWLJACK_STAGE_OVER);
    assert_int_equal(r.want.deal, 0);
    assert_memory_equal(r.want.shown_count, three, 3);
    assert_true(r.in_deal - second >= 3);
    free(r.st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stock_out),
        cmocka_unit_test(test_blind_rounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
