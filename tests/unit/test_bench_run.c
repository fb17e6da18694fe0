/* The bench runner (arena/run/bench_run.h), linked directly: random against
 * random on taylor-blackjack with a fixed seed, into a memory stream, as
 * JSON and as text; the same seed gives the same report; the SPRT's verdict
 * and bounds; the reference opponents of the build; a bot that does not
 * load fails the preparation (the user's error). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "arena_test.h"
#include "run/bench_run.h"

#include "jackarena/ja_error.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static arena_bots g_bots; /* large */

/* A bench of bot against opp: prepares it (its code in *prepared) and, when
 * that succeeds, runs it, which must succeed; returns the report (free()),
 * NULL when nothing ran. */
static char *bench(const char *bot, const char *opp, uint32_t deals, bool sprt, bool json,
                   int *prepared)
{
    const ja_game_rules *g = ja_game_find("taylor-blackjack");
    assert_non_null(g);
    memset(&g_bots, 0, sizeof g_bots);
    char err[ARENA_BOTS_ERR_CAP];
    assert_int_equal(arena_bots_add(&g_bots, bot, err, sizeof err), JA_OK);
    assert_int_equal(arena_bots_add(&g_bots, opp, err, sizeof err), JA_OK);
    assert_int_equal(arena_bots_finish_names(&g_bots, err, sizeof err), JA_OK);
    arena_bench_args a = {.game = g, .bots = &g_bots, .seats = 2, .deals = deals, .seed = 42,
                          .sprt = sprt, .elo0 = 0, .elo1 = 50, .alpha = 0.05, .beta = 0.05,
                          .json = json, .quiet = true};
    assert_int_equal(arena_test_options(g, 2, &a.options), JA_OK);
    arena_bench b;
    char *buf;
    ARENA_TEST_STEPS(buf, *prepared, arena_bench_prepare(&b, &a, err, sizeof err),
                     arena_bench_run(&b, out, err, sizeof err), arena_bench_close(&b), err);
    return buf;
}

static void test_json(void **state)
{
    (void)state;
    int prepared;
    char *s = bench("random", "random", 6, false, true, &prepared);
    assert_int_equal(prepared, JA_OK);
    json_error_t e;
    json_t *v = json_loads(s, 0, &e);
    assert_non_null(v);
    assert_string_equal(json_string_value(json_object_get(v, "bot")), "random");
    assert_string_equal(json_string_value(json_object_get(v, "game")), "taylor-blackjack");
    assert_string_equal(json_string_value(json_object_get(v, "seed")), "42");
    assert_int_equal(json_integer_value(json_object_get(v, "seats")), 2);
    assert_true(json_is_null(json_object_get(v, "sprt")));
    json_t *ops = json_object_get(v, "opponents");
    assert_int_equal(json_array_size(ops), 1);
    json_t *op = json_array_get(ops, 0);
    /* The same bot twice is two players (botspec.h). */
    assert_string_equal(json_string_value(json_object_get(op, "bot")), "random#2");
    assert_int_equal(json_integer_value(json_object_get(op, "deals")), 6);
    assert_int_equal(json_integer_value(json_object_get(op, "games")), 12);
    json_int_t w = json_integer_value(json_object_get(op, "wins")),
               d = json_integer_value(json_object_get(op, "draws")),
               l = json_integer_value(json_object_get(op, "losses"));
    assert_int_equal(w + d + l, 12); /* one pair per match with 2 seats */
    /* The pentanomial counts every deal once; the score is the bot's mean. */
    json_t *penta = json_object_get(op, "pentanomial");
    assert_int_equal(json_array_size(penta), 5);
    json_int_t deals = 0, halves = 0;
    for (size_t i = 0; i < 5; i++) {
        deals += json_integer_value(json_array_get(penta, i));
        halves += (json_int_t)i * json_integer_value(json_array_get(penta, i));
    }
    assert_int_equal(deals, 6);
    assert_int_equal(halves, 2 * w + d);
    assert_true(fabs(json_number_value(json_object_get(op, "score")) - (w + d / 2.0) / 12.0) <
                1e-9);
    json_decref(v);
    /* The same seed, the same report, byte for byte. */
    char *again = bench("random", "random", 6, false, true, &prepared);
    assert_int_equal(prepared, JA_OK);
    assert_string_equal(s, again);
    free(again);
    free(s);
}

static void test_text(void **state)
{
    (void)state;
    int prepared;
    char *s = bench("random", "greedy", 4, false, false, &prepared);
    assert_int_equal(prepared, JA_OK);
    const char *head = "bench random on taylor-blackjack: 2 seats, up to 4 duplicate deals per "
                       "opponent (each played from all 2 seats), seed 42\noptions: ";
    assert_memory_equal(s, head, strlen(head));
    const char *row = strstr(s, "\n  greedy ");
    assert_non_null(row);
    /* opponent, games, deals */
    char name[32];
    unsigned games = 0, deals = 0;
    assert_int_equal(sscanf(row + 1, "%31s %u %u", name, &games, &deals), 3);
    assert_int_equal(games, 8);
    assert_int_equal(deals, 4);
    assert_null(strstr(s, "SPRT"));
    free(s);
}

static void test_sprt(void **state)
{
    (void)state;
    int prepared;
    char *s = bench("random", "random", 50, true, true, &prepared);
    assert_int_equal(prepared, JA_OK);
    json_error_t e;
    json_t *v = json_loads(s, 0, &e);
    assert_non_null(v);
    json_t *sp = json_object_get(v, "sprt");
    assert_true(json_is_object(sp));
    /* Wald's bounds: log(beta / (1 - alpha)), log((1 - beta) / alpha). */
    json_t *b = json_object_get(sp, "bounds");
    assert_true(fabs(json_number_value(json_array_get(b, 0)) - log(0.05 / 0.95)) < 1e-9);
    assert_true(fabs(json_number_value(json_array_get(b, 1)) - log(0.95 / 0.05)) < 1e-9);
    const char *res = json_string_value(json_object_get(sp, "result"));
    assert_non_null(res);
    double llr = json_number_value(json_object_get(sp, "llr"));
    json_int_t deals = json_integer_value(json_object_get(sp, "deals"));
    /* It stops at the first deal that decides, or after the 50. */
    if (deals < 50)
        assert_true(llr <= log(0.05 / 0.95) || llr >= log(0.95 / 0.05));
    assert_int_equal(json_integer_value(json_object_get(sp, "games")), 2 * deals);
    json_decref(v);
    free(s);
}

static void test_reference_opponents(void **state)
{
    (void)state;
    memset(&g_bots, 0, sizeof g_bots);
    char err[1400];
    assert_int_equal(arena_bench_reference_opponents(&g_bots, ja_game_find("taylor-blackjack"),
                                                     err, sizeof err),
                     JA_OK);
    bool random = false, greedy = false;
    for (int i = 0; i < g_bots.n; i++) {
        assert_string_not_equal(g_bots.b[i].name, "ismcts");
        random |= strcmp(g_bots.b[i].name, "random") == 0;
        greedy |= strcmp(g_bots.b[i].name, "greedy") == 0;
        if (i)
            assert_true(strcmp(g_bots.b[i - 1].name, g_bots.b[i].name) < 0);
    }
    assert_true(random && greedy);
}

static void test_bad_bot(void **state)
{
    (void)state;
    int prepared;
    char *s = bench("./no-such-bot.so", "random", 2, false, false, &prepared);
    assert_int_not_equal(prepared, JA_OK);
    assert_null(s); /* nothing ran */
    free(s);
}

int main(void)
{
    arena_test_bots_dir();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_sprt),
        cmocka_unit_test(test_reference_opponents),
        cmocka_unit_test(test_bad_bot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
