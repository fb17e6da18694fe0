/* ctest-requires-game: taylor */
/* What the match loop keeps from one match for the next gives every match
 * what a first match would get:
 *
 *  - the digest's options text, kept per thread for the next match of the
 *    same game and options (replay.c): matches with other options in
 *    between, and the same matches first in a fresh thread, have the same
 *    digests; another game's match in between too;
 *  - a plugin bot's closed seats, kept for its next seats (seat_plugin.c):
 *    two threads playing matches of one bot at once, its seats taken and
 *    given back by both, give each match the digest and decisions it has
 *    alone (under ASan, a seat used by two matches at once would show).
 *
 * Budget: well under a second under ASan. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "match.h"

#define MATCHES 6

static ref_bot *g_bot;

/* One match of game with options kv ("" for the defaults) and seed; its
 * digest into out, its decisions returned. */
static uint32_t play(const char *game, const char *kv, uint64_t seed, uint8_t out[REF_DIGEST_BYTES])
{
    const ja_game_rules *g = ja_game_find(game);
    assert_non_null(g);
    ref_match_config cfg = {0};
    char err[512];
    cfg.game = g;
    cfg.n_seats = 2;
    cfg.seed = seed;
    cfg.match_id = "reuse";
    ja_options_init(g, &cfg.options);
    if (*kv)
        assert_int_equal(ja_options_set(g, &cfg.options, kv, err, sizeof err), JA_OK);
    assert_int_equal(ja_options_resolve(g, &cfg.options, 2, err, sizeof err), JA_OK);
    ref_bot *bots[2] = {g_bot, g_bot};
    cfg.bots = bots;
    ref_match_result res;
    if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK)
        fail_msg("%s", err);
    memcpy(out, res.digest, REF_DIGEST_BYTES);
    return res.decisions;
}

/* The matches of one thread: Taylor Blackjack's seeds 1..MATCHES, with one
 * game a match, their options alternating with three games a match. */
typedef struct run {
    uint8_t digest[MATCHES][REF_DIGEST_BYTES];
    uint32_t decisions[MATCHES];
} run;

static void *play_run(void *arg)
{
    run *r = arg;
    for (int i = 0; i < MATCHES; i++)
        r->decisions[i] = play("taylor-blackjack", i % 2 ? "games=3" : "games=1",
                               (uint64_t)i + 1, r->digest[i]);
    return NULL;
}

/* The options' text kept per thread: the digests of a thread that played
 * other options and another game first are those of a fresh thread. */
static void test_options_text(void **state)
{
    (void)state;
    uint8_t d1[REF_DIGEST_BYTES], d3[REF_DIGEST_BYTES], again[REF_DIGEST_BYTES];
    uint8_t fresh[REF_DIGEST_BYTES];
    play("taylor-blackjack", "games=1", 7, d1);
    play("taylor-blackjack", "games=3", 7, d3);
    assert_memory_not_equal(d1, d3, REF_DIGEST_BYTES);
    if (ja_game_find("bruise-jack"))
        play("bruise-jack", "", 7, again);
    play("taylor-blackjack", "games=1", 7, again);
    assert_memory_equal(d1, again, REF_DIGEST_BYTES);
    /* The same match first in a new thread (an empty cache). */
    run first;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, play_run, &first), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    play("taylor-blackjack", "games=3", 2, again);
    assert_memory_equal(first.digest[1], again, REF_DIGEST_BYTES);
    play("taylor-blackjack", "games=1", 1, fresh);
    assert_memory_equal(first.digest[0], fresh, REF_DIGEST_BYTES);
}

/* Two threads playing the same bot's matches at once, its closed seats
 * kept and taken by both: every match as it is alone. */
static void test_seats_kept(void **state)
{
    (void)state;
    run alone, a, b;
    play_run(&alone);
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, play_run, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, play_run, &b), 0);
    assert_int_equal(pthread_join(ta, NULL), 0);
    assert_int_equal(pthread_join(tb, NULL), 0);
    for (int i = 0; i < MATCHES; i++) {
        assert_memory_equal(alone.digest[i], a.digest[i], REF_DIGEST_BYTES);
        assert_memory_equal(alone.digest[i], b.digest[i], REF_DIGEST_BYTES);
        assert_int_equal(alone.decisions[i], a.decisions[i]);
        assert_int_equal(alone.decisions[i], b.decisions[i]);
    }
}

static int open_bot(void **state)
{
    (void)state;
    const char *dir = getenv("JA_BUILD_DIR");
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s/bots/ja_random.so", dir ? dir : ".");
    return ref_bot_plugin_open(path, NULL, &g_bot, err, sizeof err) == JA_OK ? 0 : -1;
}

static int close_bot(void **state)
{
    (void)state;
    ref_bot_destroy(&g_bot);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_text),
        cmocka_unit_test(test_seats_kept),
    };
    return cmocka_run_group_tests(tests, open_bot, close_bot);
}
