/* ctest-requires-game: jack_in_the_box */
/* Unit tests of the `greedy` heuristic for Jack in the Box
 * (bots/greedy/greedy_jack_in_the_box.c), loaded as a plugin from
 * $JA_BUILD_DIR/bots/ja_greedy.so next to ja_random.so, exactly as the arena
 * loads it, and played through the real match loop (ref_match_run).
 *
 *  - supports: greedy plays jack-in-the-box;
 *  - legality: over 2..4 seats, every variant, teams off and on (4 seats),
 *    greedy next to random and next to itself never faults. Every decision
 *    it is asked is also checked against the state it was asked in: it
 *    never exchanges when it could score, it puts its Jack in the Box when
 *    that is all it can do (unless that would close the last box), and it
 *    never marks a Jack for exchange while it still holds another card;
 *  - determinism: the same seed gives the same digest twice;
 *  - strength: greedy against random, fixed seeds, greedy's seat rotated:
 *    3 seats (greedy vs two random bots, every variant), and team mode
 *    (greedy partners vs random partners). The margin is greedy's points
 *    minus the mean of its opponents' per match; its 95% confidence interval
 *    must exclude zero. The measured figures are printed (and quoted in
 *    docs/bots.md).
 *
 * Budget: a few seconds under ASan (one game per match). */
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
#include "jackarena/ja_jack_in_the_box.h"

#include "bot_harness.h"

static const ja_game_rules *jitb(void)
{
    const ja_game_rules *g = ja_game_find("jack-in-the-box");
    assert_non_null(g);
    return g;
}


static void test_supports(void **state)
{
    bots *b = *state;
    assert_int_equal(ref_bot_supports(b->greedy, jitb()), 1);
    ja_game_rules newer = *jitb();
    newer.obs_version = JA_JITB_OBS_VERSION + 1;
    assert_int_equal(ref_bot_supports(b->greedy, &newer), 0);
}

/* ---- legality and behaviour ---------------------------------------------------- */

/* Follows a match step by step, keeping the state before each step so that
 * greedy's answer can be checked against what it was asked. */
typedef struct watch {
    const ja_game_rules *g;
    uint32_t greedy_mask;
    uint8_t *prev;        /* the state before the step (state_size bytes) */
    bool have_prev;
    uint32_t checked, scored, jack_ins, marks;
} watch;

static bool has_code(const ja_action *l, uint32_t n, uint32_t code)
{
    for (uint32_t i = 0; i < n; i++)
        if (l[i].code == code)
            return true;
    return false;
}

/* Would a Jack put into box b close the last open box? */
static bool closes_last(const ja_jitb_obs *o, int b)
{
    int open = 0, free_slots = 0;
    for (int i = 0; i < o->n_boxes; i++)
        open += o->box_open[i];
    for (int k = 2 * b; k < 2 * b + 2; k++)
        free_slots += o->slot_color[k] && o->slot_jack[k] == JA_CARD_NONE;
    return open == 1 && free_slots == 1;
}

static void check_answer(watch *w, int seat, uint32_t code)
{
    const ja_game_rules *g = w->g;
    ja_action legal[JA_MAX_ACTIONS];
    ja_jitb_obs o;
    uint32_t n = g->legal(w->prev, seat, legal, g->max_actions);
    g->observe(w->prev, seat, &o);
    assert_true(has_code(legal, n, code));
    w->checked++;
    bool target = n > 0 && legal[0].code < JA_JITB_JACK_IN(0, 0);
    if (o.stage == JA_JITB_STAGE_CHOOSE && target && o.matches == 0) {
        assert_int_not_equal(code, JA_JITB_EXCHANGE);
        w->scored++;
    }
    if (o.stage == JA_JITB_STAGE_CHOOSE && !target && n >= 2 &&
        legal[0].code < JA_JITB_EXCHANGE && !closes_last(&o, (int)(legal[0].code - 16) % 4)) {
        assert_true(code >= JA_JITB_JACK_IN(0, 0) && code < JA_JITB_EXCHANGE);
        w->jack_ins++;
    }
    if (o.stage == JA_JITB_STAGE_EXCHANGE && code != JA_JITB_CONFIRM) {
        uint8_t c = (uint8_t)(code - JA_JITB_MARK(0));
        int non_jacks = 0;
        for (int k = 0; k < 52; k++)
            non_jacks += ja_card_rank((uint8_t)k) != JA_RANK_J ? o.hand[k] : 0;
        if (ja_card_rank(c) == JA_RANK_J)
            assert_int_equal(non_jacks, 0);
        w->marks++;
    }
}

static void on_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    watch *w = ctx;
    for (uint32_t i = 0; i < info->n_recs; i++) {
        const ref_replay_rec *r = &info->recs[i];
        if (!((w->greedy_mask >> r->seat) & 1u))
            continue;
        assert_int_equal(r->fault, JA_FAULT_NONE);
        if (!r->forced && w->have_prev)
            check_answer(w, r->seat, r->code);
    }
    memcpy(w->prev, info->state, g->state_size);
    w->have_prev = true;
}

/* Plays one match; greedy sits where greedy_mask says, random elsewhere. */
static void play(bots *b, uint32_t n, const char *const *kv, uint64_t seed,
                 uint32_t greedy_mask, watch *w, ref_match_result *res)
{
    const ja_game_rules *g = jitb();
    const bot_match m = {.g = g, .options = make_options(g, n, kv), .n = n, .seed = seed,
                         .greedy_mask = greedy_mask, .match_id = "test-greedy-jitb",
                         .on_step = w ? on_step : NULL, .step_ctx = w};
    if (w) {
        w->g = g;
        w->greedy_mask = greedy_mask;
        w->have_prev = false;
        /* The loop reports steps only; the state before the first step is
         * the one setup made. */
        assert_int_equal(g->setup(w->prev, &m.options, n, seed), JA_OK);
        w->have_prev = true;
    }
    play_bot_match(b, &m, res);
}

static void test_legal_everywhere(void **state)
{
    bots *b = *state;
    static const char *const variants[] = {"variant=standard", "variant=v1", "variant=v2",
                                           "variant=v3"};
    watch w;
    memset(&w, 0, sizeof w);
    w.prev = malloc(jitb()->state_size);
    assert_non_null(w.prev);
    uint32_t matches = 0;
    uint64_t seed = 2000;
    for (uint32_t n = 2; n <= 4; n++)
        for (int v = 0; v < 4; v++)
            for (int t = 0; t < (n == 4 ? 2 : 1); t++) {
                const char *kv[] = {variants[v], t ? "teams=on" : "teams=off", "games=1", NULL};
                /* greedy alone among random bots, on every other seat, everywhere */
                uint32_t masks[3] = {1u << (seed % n), 0x5u & ((1u << n) - 1), (1u << n) - 1};
                for (int m = 0; m < 3; m++) {
                    ref_match_result res;
                    play(b, n, kv, seed++, masks[m], &w, &res);
                    matches++;
                }
            }
    print_message("greedy legality: %u matches, %u greedy decisions checked (%u scoring "
                  "choices, %u jacks in, %u marks)\n",
                  (unsigned)matches, (unsigned)w.checked, (unsigned)w.scored,
                  (unsigned)w.jack_ins, (unsigned)w.marks);
    free(w.prev);
    assert_true(w.checked > 1000);
    assert_true(w.scored > 100 && w.jack_ins > 5 && w.marks > 0);
}

static void test_deterministic(void **state)
{
    bots *b = *state;
    const char *kv[] = {"teams=on", "variant=v2", "games=2", NULL};
    ref_match_result r1, r2;
    play(b, 4, kv, 4242, 0xfu, NULL, &r1);
    play(b, 4, kv, 4242, 0xfu, NULL, &r2);
    assert_memory_equal(r1.digest, r2.digest, sizeof r1.digest);
    assert_memory_equal(&r1.outcome, &r2.outcome, sizeof r1.outcome);
}

/* ---- strength ------------------------------------------------------------------ */

/* Mean and 95% interval half-width of n samples. */
static void interval(const double *x, uint32_t n, double *mean, double *half)
{
    double s = 0, ss = 0;
    for (uint32_t i = 0; i < n; i++)
        s += x[i];
    *mean = s / n;
    for (uint32_t i = 0; i < n; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *half = 1.96 * sqrt(ss / (n - 1) / n);
}

#define STRENGTH_SEEDS 24 /* x 3 seat rotations = 72 matches */
#define TEAM_SEEDS 24     /* x 2 sides = 48 matches */

static void test_strength_vs_random(void **state)
{
    bots *b = *state;
    static const char *const variants[] = {"variant=standard", "variant=v1", "variant=v2",
                                           "variant=v3"};
    double margin[STRENGTH_SEEDS * 3], mean, half;
    uint32_t k = 0, wins = 0;
    for (uint64_t s = 0; s < STRENGTH_SEEDS; s++)
        for (uint32_t seat = 0; seat < 3; seat++) {
            const char *kv[] = {variants[s % 4], "games=1", NULL};
            ref_match_result res;
            play(b, 3, kv, 0x5eed0000u + s, 1u << seat, NULL, &res);
            double g = (double)res.outcome.score[seat] / JA_SCORE_UNIT, others = 0;
            for (uint32_t i = 0; i < 3; i++)
                if (i != seat)
                    others += (double)res.outcome.score[i] / JA_SCORE_UNIT;
            margin[k++] = g - others / 2;
            wins += res.outcome.place[seat] == 1;
        }
    interval(margin, k, &mean, &half);
    print_message("greedy vs random vs random (3 seats, every variant, %u matches): greedy "
                  "scores %.1f points more than a random opponent per game, 95%% interval "
                  "[%.1f, %.1f]; first place in %u of %u\n",
                  (unsigned)k, mean, mean - half, mean + half, (unsigned)wins, (unsigned)k);
    assert_true(mean - half > 0);

    double team[TEAM_SEEDS * 2];
    uint32_t t = 0, team_wins = 0;
    for (uint64_t s = 0; s < TEAM_SEEDS; s++)
        for (uint32_t side = 0; side < 2; side++) {
            const char *kv[] = {"teams=on", variants[s % 4], "games=1", NULL};
            ref_match_result res;
            play(b, 4, kv, 0x7ea70000u + s, side ? 0xau : 0x5u, NULL, &res);
            double g = (double)res.outcome.score[side] / JA_SCORE_UNIT;
            double r = (double)res.outcome.score[1 - side] / JA_SCORE_UNIT;
            team[t++] = g - r;
            team_wins += g > r;
        }
    interval(team, t, &mean, &half);
    print_message("greedy partners vs random partners (teams=on, every variant, %u matches): "
                  "%.1f points more per game, 95%% interval [%.1f, %.1f]; won %u of %u\n",
                  (unsigned)t, mean, mean - half, mean + half, (unsigned)team_wins, (unsigned)t);
    assert_true(mean - half > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_supports),
        cmocka_unit_test(test_legal_everywhere),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_strength_vs_random),
    };
    return cmocka_run_group_tests(tests, setup_bots, teardown_bots);
}
