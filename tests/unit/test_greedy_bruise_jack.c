/* ctest-requires-game: bruise_jack */
/* Unit tests of the `greedy` heuristic for Bruise Jack
 * (bots/greedy/greedy_bruise_jack.c), loaded as a plugin from
 * $JA_BUILD_DIR/bots/ja_greedy.so next to ja_random.so, exactly as the arena
 * loads it, and played through the real match loop (ref_match_run, no
 * replay).
 *
 *  - supports: it plays bruise-jack with observation version 1, and refuses
 *    another version;
 *  - legality: over every combination of way, guile and ties, at 2..6 seats,
 *    greedy alone among random bots, on every other seat and on every seat,
 *    never faults;
 *  - determinism: the same seed gives the same digest twice;
 *  - chosen positions: the row for a card, standing on high rows and hitting
 *    on low ones, keeping a Way 2 Bruise Jack, and the end game (stand when
 *    won, hit when lost);
 *  - strength: 3 seats, greedy against two random bots, greedy's seat rotated
 *    over the three seats, fixed seeds, Way 1 and Way 2. The margin is
 *    greedy's share of the points minus 1/3 (its share by chance), per match;
 *    its 95% confidence interval must exclude zero. The figure is printed
 *    (and quoted in docs/bots.md).
 *
 * It also checks the one hidden-information constraint of the game that the
 * generic suite (tests/rules/test_all_games.c) cannot see, because it is
 * about cards the observing seat does not see: in Way 1, a centre dealt by
 * sample() or determinize() to another seat never makes a Bruise Jack with
 * the first up card of one of that seat's unclaimed rows (spec §7, Hidden
 * information). This file is the game's only C test.
 *
 * Budget: a few seconds under ASan (small `hands` options). */
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

#include "jackarena/ja_bruise_jack.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"

#define UP JA_BRUISE_JACK_MAX_UP

#include "bot_harness.h"

static const ja_game_rules *game(void)
{
    const ja_game_rules *g = ja_game_find("bruise-jack");
    assert_non_null(g);
    return g;
}


/* Plays one match; greedy sits where greedy_mask says, random elsewhere. Any
 * fault fails the test. */
static void play(bots *b, uint32_t n, const char *const *kv, uint64_t seed, uint32_t greedy_mask,
                 ref_match_result *res)
{
    const ja_game_rules *g = game();
    const bot_match m = {.g = g, .options = make_options(g, n, kv), .n = n, .seed = seed,
                         .greedy_mask = greedy_mask, .match_id = "test-greedy-bruise-jack"};
    play_bot_match(b, &m, res);
}

/* ---- supports ------------------------------------------------------------------ */

static void test_supports(void **state)
{
    bots *b = *state;
    const ja_game_rules *g = game();
    assert_int_equal(ref_bot_supports(b->greedy, g), 1);
    ja_game_rules newer = *g;
    newer.obs_version = g->obs_version + 1;
    assert_int_equal(ref_bot_supports(b->greedy, &newer), 0);
}

/* ---- legality ---------------------------------------------------------------------- */

static void test_legal_everywhere(void **state)
{
    bots *b = *state;
    static const char *const way[] = {"way=1", "way=2"};
    static const char *const guile[] = {"guile=off", "guile=on"};
    static const char *const ties[] = {"ties=split", "ties=replay"};
    uint32_t matches = 0, decisions = 0;
    uint64_t seed = 7000;
    for (uint32_t n = 2; n <= 6; n++)
        for (int w = 0; w < 2; w++)
            for (int gu = 0; gu < 2; gu++)
                for (int t = 0; t < 2; t++) {
                    const char *kv[] = {way[w], guile[gu], ties[t], "hands=2", NULL};
                    uint32_t masks[3] = {1u << (seed % n), 0x15u & ((1u << n) - 1),
                                         (1u << n) - 1};
                    for (int m = 0; m < 3; m++) {
                        ref_match_result res;
                        play(b, n, kv, seed++, masks[m], &res);
                        matches++;
                        decisions += res.asked;
                    }
                }
    print_message("greedy legality: %u matches, %u decisions asked, no fault\n",
                  (unsigned)matches, (unsigned)decisions);
    assert_true(decisions > 1000);
}

static void test_deterministic(void **state)
{
    bots *b = *state;
    const char *kv[] = {"hands=3", NULL};
    ref_match_result r1, r2;
    play(b, 4, kv, 4242, 0xfu, &r1);
    play(b, 4, kv, 4242, 0xfu, &r2);
    assert_memory_equal(r1.digest, r2.digest, sizeof r1.digest);
    assert_memory_equal(&r1.outcome, &r2.outcome, sizeof r1.outcome);
}

/* ---- chosen positions ------------------------------------------------------------ */

/* A 2-seat Way 1 position for seat 0 at D1: centre and one up card per row
 * for each seat (card ids), nothing claimed, the stock full but for them. */
static void position(ja_bruise_jack_obs *o, int way, uint8_t centre, const uint8_t mine[3],
                     const uint8_t theirs[3])
{
    memset(o, 0, sizeof *o);
    o->n_seats = 2;
    o->way = (uint8_t)way;
    o->hands = 4;
    o->active = 3;
    o->to_act = 0;
    o->stage = JA_BRUISE_JACK_STAGE_HIT;
    o->drawn = JA_BRUISE_JACK_NONE;
    o->centre = centre;
    o->has_centre[0] = o->has_centre[1] = 1;
    o->stock_count = JA_BRUISE_JACK_CARDS - 8;
    for (int r = 0; r < 3; r++) {
        o->up[r * UP] = mine[r];
        o->up[(3 + r) * UP] = theirs[r];
        o->up_count[r] = o->up_count[3 + r] = 1;
        o->shown[r] = (uint8_t)ja_bruise_jack_hard(mine[r], r);
        o->shown[3 + r] = (uint8_t)ja_bruise_jack_hard(theirs[r], r);
        o->open[r] = o->open[3 + r] = 1;
    }
}

/* Adds card c to row r of seat p (up cards, shown, open as the engine keeps them). */
static void add_up(ja_bruise_jack_obs *o, int p, int r, uint8_t c)
{
    int i = p * 3 + r;
    o->up[i * UP + o->up_count[i]++] = c;
    o->shown[i] = (uint8_t)(o->shown[i] + ja_bruise_jack_hard(c, r));
    o->open[i] = o->shown[i] <= 10;
    o->stock_count--;
}

/* Greedy's answer in the position, as an action code. */
static uint32_t ask(ref_seat *seat, const ja_bruise_jack_obs *o)
{
    ja_action legal[3];
    uint32_t n = 0;
    if (o->stage == JA_BRUISE_JACK_STAGE_HIT) {
        legal[n++].code = JA_BRUISE_JACK_HIT;
        legal[n++].code = JA_BRUISE_JACK_STAND;
    } else {
        for (int r = 0; r < 3; r++)
            if (o->open[r])
                legal[n++].code = JA_BRUISE_JACK_PLACE(r);
    }
    ja_decision d = {sizeof d, 1, 0, 0, o->n_seats, "bruise-jack", JA_BRUISE_JACK_OBS_VERSION,
                     (uint32_t)sizeof *o, o, legal, n};
    ref_answer a;
    assert_int_equal(ref_seat_ask(seat, &d, true), JA_OK);
    ref_seat_collect(seat, 0, &a);
    assert_int_equal(a.fault, JA_FAULT_NONE);
    assert_true(a.index < n);
    return legal[a.index].code;
}

/* A card by its levels: colour, number, suit (0 = wild .. 4). */
static uint8_t C(int colour, int number, int suit)
{
    return ja_bruise_jack_card(colour, number, suit);
}

static void test_positions(void **state)
{
    bots *b = *state;
    ref_seat_ctx sc = {.game = game(), .seat = 0, .n_seats = 2, .match_seed = 1, .move_ms = 0,
                       .match_id = ""};
    ref_seat *seat = NULL;
    char err[256];
    assert_int_equal(ref_seat_open(b->greedy, &sc, &seat, err, sizeof err), JA_OK);
    ja_bruise_jack_obs o;
    /* The other seat shows 3, 4, 4 (no wild, no level 4). */
    const uint8_t theirs[3] = {C(2, 2, 2), C(1, 3, 1), C(3, 1, 3)};

    /* Rows of 4 (centre 2 + up 2 in each): hit. */
    const uint8_t low[3] = {C(1, 2, 2), C(2, 1, 2), C(2, 2, 1)};
    position(&o, 1, C(1, 1, 1), low, theirs);
    assert_int_equal(ask(seat, &o), JA_BRUISE_JACK_HIT);
    /* Rows of 10 (centre 5 + up 5 in each): stand. */
    const uint8_t high[3] = {C(4, 3, 3), C(3, 4, 3), C(3, 3, 4)};
    position(&o, 1, C(4, 4, 4), high, theirs);
    assert_int_equal(ask(seat, &o), JA_BRUISE_JACK_STAND);

    /* Rows 9, 9, 4 (centre 5, 5, 2); a card worth 5, 5, 3 would bust the
     * first two: it goes to SUIT. */
    const uint8_t nine[3] = {C(3, 2, 2), C(2, 3, 2), C(2, 2, 1)};
    position(&o, 1, C(4, 4, 1), nine, theirs);
    o.stage = JA_BRUISE_JACK_STAGE_PLACE;
    o.drawn = C(4, 4, 2);
    assert_int_equal(ask(seat, &o), JA_BRUISE_JACK_PLACE(JA_BRUISE_JACK_SUIT));

    /* Way 2: a hidden Bruise Jack in COLOUR (wild centre + Blue, 16) is kept;
     * a card worth 2, 2, 4 goes to another row. */
    const uint8_t bj[3] = {C(4, 1, 1), C(1, 2, 1), C(1, 1, 2)};
    position(&o, 2, C(0, 1, 1), bj, theirs);
    o.stage = JA_BRUISE_JACK_STAGE_PLACE;
    o.drawn = C(1, 1, 3);
    assert_true(ask(seat, &o) != JA_BRUISE_JACK_PLACE(JA_BRUISE_JACK_COLOUR));

    /* The end game, Way 2, the other seat stood. Our 10 + 10 + 10 beats
     * whatever its centre (at most 9 + 10 + 10, with an all-wild centre): it
     * has won, so it stands. */
    position(&o, 2, C(4, 4, 4), high, theirs);
    o.stood[1] = 1;
    assert_int_equal(ask(seat, &o), JA_BRUISE_JACK_STAND);
    /* Our 4 + 4 + 4 loses to up cards of 5 in each row whatever their centre:
     * standing loses for sure, so it hits. */
    const uint8_t strong[3] = {C(4, 1, 1), C(1, 4, 1), C(1, 1, 4)};
    position(&o, 2, C(1, 1, 1), low, strong);
    o.stood[1] = 1;
    assert_int_equal(ask(seat, &o), JA_BRUISE_JACK_HIT);

    /* A row bust through the centre takes the cards nobody wants: rows of 10
     * and a COLOUR of 5 + 5 + 5 that still shows 10, so it keeps hitting. */
    position(&o, 2, C(4, 4, 4), high, theirs);
    add_up(&o, 0, JA_BRUISE_JACK_COLOUR, C(4, 0, 0));
    assert_int_equal(ask(seat, &o), JA_BRUISE_JACK_HIT);

    ref_seat_close(&seat);
}

/* ---- the engine: Way 1's hidden-information constraint ------------------------------ */

/* True if no seat p != seat in hand of state st holds a centre that pairs
 * with the first up card of one of its unclaimed rows (seen through p's own
 * observation of st). */
static bool claims_respected(const ja_game_rules *g, const void *st, int seat, uint32_t n,
                             ja_bruise_jack_obs *ob)
{
    for (int p = 0; p < (int)n; p++) {
        if (p == seat)
            continue;
        g->observe(st, p, ob);
        if (ob->centre == JA_BRUISE_JACK_NONE)
            continue;
        for (int r = 0; r < 3; r++) {
            int i = p * 3 + r;
            if (!ob->claimed[i] && ob->up_count[i] > 0 &&
                ja_bruise_jack_pair(ob->centre, ob->up[i * UP], r))
                return false;
        }
    }
    return true;
}

static void test_sample_respects_claims(void **state)
{
    (void)state;
    const ja_game_rules *g = game();
    void *st = malloc(g->state_size), *tmp = malloc(g->state_size);
    ja_bruise_jack_obs obs, ob;
    ja_action legal[3];
    uint32_t checked = 0;
    assert_non_null(st);
    assert_non_null(tmp);
    for (uint32_t n = 2; n <= 6; n++) {
        const char *kv[] = {"way=1", "hands=3", NULL};
        ja_options o = make_options(g, n, kv);
        ja_rng r;
        ja_rng_seed(&r, 900 + n);
        assert_int_equal(g->setup(st, &o, n, 31 * n), JA_OK);
        for (uint32_t mask; (mask = g->to_act(st)) != 0;) {
            for (int s = 0; s < (int)n; s++) {
                g->observe(st, s, &obs);
                assert_int_equal(g->sample(&obs, s, ja_rng_next(&r), tmp), JA_OK);
                assert_true(claims_respected(g, tmp, s, n, &ob));
                memcpy(tmp, st, g->state_size);
                g->determinize(tmp, s, ja_rng_next(&r));
                assert_true(claims_respected(g, tmp, s, n, &ob));
                checked += 2;
            }
            int s = __builtin_ctz(mask);
            uint32_t k = g->legal(st, s, legal, 3);
            ja_action by[JA_MAX_SEATS] = {{0}};
            by[s] = legal[ja_rng_below(&r, k)];
            assert_int_equal(g->apply(st, mask, by), JA_OK);
        }
    }
    print_message("Way 1 claim constraint: %u sampled or determinized states checked\n",
                  (unsigned)checked);
    free(st);
    free(tmp);
}

/* ---- strength ------------------------------------------------------------------------ */

#define STRENGTH_SEEDS 40 /* x 3 seat rotations x 2 ways = 240 matches of 6 hands */

static void test_strength_vs_random(void **state)
{
    bots *b = *state;
    static const char *const ways[] = {"way=1", "way=2"};
    double sum = 0, sum2 = 0, points = 0;
    uint32_t matches = 0;
    for (int w = 0; w < 2; w++)
        for (uint64_t s = 0; s < STRENGTH_SEEDS; s++)
            for (uint32_t seat = 0; seat < 3; seat++) {
                const char *kv[] = {ways[w], NULL};
                ref_match_result res;
                play(b, 3, kv, 0xb1ac0000u + s, 1u << seat, &res);
                double total = 0;
                for (uint32_t i = 0; i < 3; i++)
                    total += (double)res.outcome.score[i] / JA_SCORE_UNIT;
                assert_true(total > 5.99 && total < 6.01); /* one point per hand */
                double share = (double)res.outcome.score[seat] / JA_SCORE_UNIT / total;
                double margin = share - 1.0 / 3.0;
                sum += margin;
                sum2 += margin * margin;
                points += (double)res.outcome.score[seat] / JA_SCORE_UNIT;
                matches++;
            }
    double mean = sum / matches, var = (sum2 - matches * mean * mean) / (matches - 1);
    double half = 1.96 * sqrt(var / matches);
    print_message("greedy vs random vs random: share %.3f of %.0f points in %u matches (chance "
                  "0.333): margin %+.3f, 95%% interval [%+.3f, %+.3f]\n",
                  points / (6.0 * matches), 6.0 * matches, (unsigned)matches, mean, mean - half,
                  mean + half);
    assert_true(mean - half > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_supports),
        cmocka_unit_test(test_legal_everywhere),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_sample_respects_claims),
        cmocka_unit_test(test_strength_vs_random),
    };
    return cmocka_run_group_tests(tests, setup_bots, teardown_bots);
}
