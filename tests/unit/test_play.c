/* One match through the play library (arena/run/play_run.h), linked directly:
 * random against greedy on taylor-blackjack with a fixed seed, into a
 * memory stream. The same seed gives the same result, digest and output;
 * the JSON and the text agree; the replay written verifies to the same
 * digest; a seat count the game refuses is not this library's to check,
 * but a bot that does not load fails the preparation (the user's error). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "arena_test.h"
#include "run/play_run.h"

#include "jackarena/ja_error.h"
#include "replay.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static arena_bots g_bots; /* large */
static arena_ext g_ext;

/* Plays a, b at seed 7: prepares the match (its code in *prepared) and, when
 * that succeeds, runs it, which must succeed; returns the output (free()),
 * NULL when nothing ran. */
static char *play(const char *a0, const char *a1, const char *replay, bool json, bool quiet,
                  ref_match_result *res, int *prepared)
{
    const ja_game_rules *g = ja_game_find("taylor-blackjack");
    assert_non_null(g);
    memset(&g_bots, 0, sizeof g_bots);
    memset(&g_ext, 0, sizeof g_ext);
    g_bots.ext = &g_ext;
    char err[ARENA_BOTS_ERR_CAP];
    assert_int_equal(arena_bots_add(&g_bots, a0, err, sizeof err), JA_OK);
    assert_int_equal(arena_bots_add(&g_bots, a1, err, sizeof err), JA_OK);
    assert_int_equal(arena_bots_finish_names(&g_bots, err, sizeof err), JA_OK);
    arena_play_args a = {.game = g, .bots = &g_bots, .ext = &g_ext, .seed = 7,
                         .move_ms = REF_MOVE_MS_KIND, .replay_path = replay, .json = json,
                         .quiet = quiet, .result = res};
    assert_int_equal(arena_test_options(g, 2, &a.options), JA_OK);
    arena_play p;
    char *buf;
    ARENA_TEST_STEPS(buf, *prepared, arena_play_prepare(&p, &a, err, sizeof err),
                     arena_play_run(&p, out, err, sizeof err), arena_play_close(&p), err);
    return buf;
}

static void test_deterministic(void **state)
{
    (void)state;
    ref_match_result r1, r2;
    int prepared;
    char *s1 = play("random", "greedy", NULL, true, false, &r1, &prepared);
    assert_int_equal(prepared, JA_OK);
    char *s2 = play("random", "greedy", NULL, true, false, &r2, &prepared);
    assert_int_equal(prepared, JA_OK);
    assert_string_equal(s1, s2);
    assert_memory_equal(r1.digest, r2.digest, REF_DIGEST_BYTES);
    assert_int_equal(r1.decisions, r2.decisions);
    assert_true(r1.decisions > 0);

    json_error_t e;
    json_t *v = json_loads(s1, 0, &e);
    assert_non_null(v);
    assert_string_equal(json_string_value(json_object_get(v, "game")), "taylor-blackjack");
    assert_string_equal(json_string_value(json_object_get(v, "seed")), "7");
    char hex[REF_DIGEST_HEX];
    ref_digest_hex(r1.digest, hex);
    assert_string_equal(json_string_value(json_object_get(v, "digest")), hex);
    assert_int_equal(json_integer_value(json_object_get(v, "turns")), r1.decisions);
    json_t *seats = json_object_get(v, "seats");
    assert_int_equal(json_array_size(seats), 2);
    for (size_t s = 0; s < 2; s++) {
        json_t *x = json_array_get(seats, s);
        assert_string_equal(json_string_value(json_object_get(x, "bot")),
                            s == 0 ? "random" : "greedy");
        assert_int_equal(json_integer_value(json_object_get(x, "place")), r1.outcome.place[s]);
        assert_int_equal(json_integer_value(json_object_get(x, "faults")), 0);
    }
    json_decref(v);
    free(s1);
    free(s2);
}

static void test_text_and_replay(void **state)
{
    (void)state;
    char dir[] = "/tmp/ja_play_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.rpl", dir);
    ref_match_result res;
    int prepared;
    char *s = play("random", "greedy", path, false, false, &res, &prepared);
    assert_int_equal(prepared, JA_OK);
    const char *head = "taylor-blackjack, 2 seats, seed 7\noptions: ";
    assert_memory_equal(s, head, strlen(head));
    assert_non_null(strstr(s, "\n  seat 0: random (random)\n  seat 1: greedy (greedy)\n\n"));
    assert_non_null(strstr(s, "\n    1  ")); /* the first line of moves */
    char hex[REF_DIGEST_HEX], line[200];
    ref_digest_hex(res.digest, hex);
    snprintf(line, sizeof line, "\ndigest %s\nreplay written to %s\n", hex, path);
    assert_non_null(strstr(s, line));
    free(s);

    /* The replay re-simulates to the match's digest. */
    ref_replay *r = NULL;
    char err[600];
    if (ref_replay_load(path, &r, err, sizeof err) != JA_OK)
        fail_msg("%s", err);
    uint8_t d[REF_DIGEST_BYTES];
    int rc = ref_replay_verify(r, d, err, sizeof err);
    if (rc != JA_OK)
        fail_msg("%s: %s", path, err);
    assert_memory_equal(d, res.digest, REF_DIGEST_BYTES);
    ref_replay_free(&r);
    unlink(path);
    rmdir(dir);

    /* Quiet: the same result without the moves. */
    s = play("random", "greedy", NULL, false, true, &res, &prepared);
    assert_int_equal(prepared, JA_OK);
    assert_null(strstr(s, "\n    1  "));
    assert_non_null(strstr(s, hex));
    free(s);
}

static void test_bad_bot(void **state)
{
    (void)state;
    ref_match_result res;
    int prepared;
    char *s = play("random", "./no-such-bot.so", NULL, false, false, &res, &prepared);
    assert_int_not_equal(prepared, JA_OK);
    assert_null(s); /* nothing ran */
    free(s);
}

int main(void)
{
    arena_test_bots_dir();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_text_and_replay),
        cmocka_unit_test(test_bad_bot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
