/* The hot paths do not allocate: every engine's legal, apply, observe,
 * default_action and to_act, its public observation (JA_EXT_OBSERVE_PUBLIC)
 * and its chance interface (JA_EXT_CHANCE: unseen, progress, reshuffle of a
 * copy) at every decision, and the referee's match loop per decision.
 * Allocation calls from this binary's own objects (the engines and the
 * referee are static libraries) are counted through the linker's --wrap
 * (tests/CMakeLists.txt); the bots' plugins are not ours and not counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"

/* Plays seeded random matches of every game through the bare engine and
 * checks that no call allocated. Buffers come from the test, before. */
static void test_engines(void **state)
{
    for (int i = 0; ja_games[i]; i++) {
        const ja_game_rules *g = ja_games[i];
        void *st = malloc(g->state_size);
        void *obs = malloc(g->obs_size), *cp = malloc(g->state_size);
        uint8_t cards[256];
        const ja_ext_chance *ch = ja_rules_extension(g, JA_EXT_CHANCE);
        assert_non_null(ch);
        ja_action *legal = malloc(sizeof *legal * g->max_actions);
        const ja_ext_observe_public *op = ja_rules_extension(g, JA_EXT_OBSERVE_PUBLIC);
        assert_non_null(op);
        for (uint32_t seats = g->min_seats; seats <= g->max_seats; seats++) {
            ja_options o;
            char err[256];
            ja_options_init(g, &o);
            if (ja_options_resolve(g, &o, seats, err, sizeof err) != JA_OK)
                continue;
            ja_rng rng;
            ja_rng_seed(&rng, seats);
            long before = g_allocs;
            assert_int_equal(g->setup(st, &o, seats, 1000 + seats), JA_OK);
            uint32_t mask, steps = 0;
            while ((mask = g->to_act(st)) != 0 && steps++ < 200000) {
                ja_action by_seat[JA_MAX_SEATS] = {{0}};
                op->observe_public(st, obs);
                ja_outcome so_far;
                (void)ch->unseen(st, cards, sizeof cards);
                (void)ch->progress(st, &so_far);
                memcpy(cp, st, g->state_size);
                ch->reshuffle(cp, steps);
                for (uint32_t s = 0; s < seats; s++)
                    if (mask & (1u << s)) {
                        uint32_t n = g->legal(st, (int)s, legal, g->max_actions);
                        g->observe(st, (int)s, obs);
                        (void)g->default_action(st, (int)s);
                        by_seat[s] = legal[ja_rng_below(&rng, n)];
                    }
                assert_int_equal(g->apply(st, mask, by_seat), JA_OK);
            }
            ja_outcome out;
            assert_int_equal(g->outcome(st, &out), JA_OK);
            if (g_allocs != before)
                fail_msg("%s with %u seats allocated %ld times in a match", g->name, seats,
                         g_allocs - before);
        }
        free(st);
        free(obs);
        free(cp);
        free(legal);
    }
}

/* Allocations of one whole match through the referee with plugin seats. */
static long match_allocs(ref_bot *bot, const ja_game_rules *g, uint32_t seats, const char *games,
                         uint32_t *decisions)
{
    ref_match_config cfg = {0};
    char err[512], kv[64];
    cfg.game = g;
    cfg.n_seats = seats;
    cfg.seed = 99;
    cfg.match_id = "t";
    ja_options_init(g, &cfg.options);
    snprintf(kv, sizeof kv, "games=%s", games);
    assert_int_equal(ja_options_set(g, &cfg.options, kv, err, sizeof err), JA_OK);
    assert_int_equal(ja_options_resolve(g, &cfg.options, seats, err, sizeof err), JA_OK);
    ref_bot *bots[JA_MAX_SEATS];
    for (uint32_t s = 0; s < seats; s++)
        bots[s] = bot;
    ref_match_result res;
    long before = g_allocs;
    cfg.bots = bots;
    assert_int_equal(ref_match_run(&cfg, &res, err, sizeof err), JA_OK);
    *decisions = res.decisions;
    return g_allocs - before;
}

/* A match twenty times longer allocates exactly as often: the loop's
 * allocations are per match, none per decision. A first match is played
 * before both: its seats' memory is kept by the bot for the next ones
 * (seat_plugin.c), so the first match of a bot allocates more. */
static void test_match_loop(void **state)
{
    const char *dir = getenv("JA_BUILD_DIR");
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s/bots/ja_random.so", dir ? dir : ".");
    ref_bot *bot = NULL;
    assert_int_equal(ref_bot_plugin_open(path, NULL, &bot, err, sizeof err), JA_OK);
    const ja_game_rules *g = ja_game_find("taylor-blackjack");
    assert_non_null(g);
    uint32_t d0, d1, d2;
    (void)match_allocs(bot, g, 3, "1", &d0);
    long a1 = match_allocs(bot, g, 3, "1", &d1);
    long a2 = match_allocs(bot, g, 3, "20", &d2);
    assert_true(d2 > 5 * d1);
    if (a1 != a2)
        fail_msg("a match of %u decisions allocated %ld times, one of %u decisions %ld times", d1,
                 a1, d2, a2);
    ref_bot_destroy(&bot);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engines),
        cmocka_unit_test(test_match_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
