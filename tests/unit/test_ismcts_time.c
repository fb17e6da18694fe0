// ctest-label: slow
/* The `ismcts` bot with a time budget (ismcts:ms=20) keeps within a loose
 * multiple of it: at decisions through matches of every game, the plugin's
 * think time as the seat measures it stays under 25 times the budget (an
 * idle machine needs about one budget; the slack absorbs a loaded one and a
 * sanitizer build), and the answer is a legal index. A slow-label test: it
 * reads the clock, so it does not belong to the fast set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_rng.h"
#include "seat.h"

#include "bot_harness.h"

#define BUDGET_MS 20u
#define LOOSE 25u

static void test_ms_budget(void **state)
{
    (void)state;
    const char *dir = getenv("JA_BUILD_DIR");
    if (!dir)
        fail_msg("JA_BUILD_DIR is not set (run this test through ctest)");
    char path[4096], err[1200], params[32];
    snprintf(path, sizeof path, "%s/bots/ja_ismcts.so", dir);
    snprintf(params, sizeof params, "ms=%u", BUDGET_MS);
    ref_bot *bot = NULL;
    if (ref_bot_plugin_open(path, params, &bot, err, sizeof err) != JA_OK)
        fail_msg("%s", err);
    uint64_t worst = 0, asked = 0;
    for (int i = 0; ja_games[i]; i++) {
        const ja_game_rules *g = ja_games[i];
        uint32_t n = g->min_seats < 3 && g->max_seats >= 3 ? 3 : g->min_seats;
        ja_options o = make_options(g, n, NULL);
        void *st = malloc(g->state_size), *obs = malloc(g->obs_size);
        ja_action *legal = malloc(sizeof *legal * g->max_actions);
        assert_int_equal(g->setup(st, &o, n, 11), JA_OK);
        ja_rng rng;
        ja_rng_seed(&rng, 5);
        uint32_t mask, step = 0, here = 0;
        while ((mask = g->to_act(st)) != 0 && here < 8) {
            ja_action by_seat[JA_MAX_SEATS] = {{0}};
            for (uint32_t s = 0; s < n; s++) {
                if (!(mask & (1u << s)))
                    continue;
                uint32_t k = g->legal(st, (int)s, legal, g->max_actions);
                by_seat[s] = legal[ja_rng_below(&rng, k)];
                if (k < 2 || step++ % 5 != 0)
                    continue;
                g->observe(st, (int)s, obs);
                ref_seat_ctx sc = {.game = g, .seat = (int32_t)s, .n_seats = n,
                                   .match_seed = step, .match_id = "t"};
                ref_seat *seat = NULL;
                assert_int_equal(ref_seat_open(bot, &sc, &seat, err, sizeof err), JA_OK);
                ja_decision d = {.struct_size = sizeof d, .turn = 1, .seat = (int32_t)s,
                                 .n_seats = n, .game = g->name, .obs_version = g->obs_version,
                                 .obs_size = g->obs_size, .obs = obs, .legal = legal,
                                 .n_legal = k};
                assert_int_equal(ref_seat_ask(seat, &d, true), JA_OK);
                ref_answer a;
                ref_seat_collect(seat, 0, &a);
                ref_seat_close(&seat);
                assert_int_equal(a.fault, JA_FAULT_NONE);
                assert_true(a.index < k);
                if (a.think_us > worst)
                    worst = a.think_us;
                if (a.think_us > (uint64_t)BUDGET_MS * LOOSE * 1000)
                    fail_msg("%s: ismcts:ms=%u thought %llu us", g->name, BUDGET_MS,
                             (unsigned long long)a.think_us);
                here++;
                asked++;
            }
            assert_int_equal(g->apply(st, mask, by_seat), JA_OK);
        }
        free(st);
        free(obs);
        free(legal);
    }
    printf("ismcts:ms=%u: %llu decisions, the longest %.1f ms\n", BUDGET_MS,
           (unsigned long long)asked, worst / 1000.0);
    assert_true(asked >= 20);
    ref_bot_destroy(&bot);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_ms_budget)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
