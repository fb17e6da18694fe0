/* ctest-requires-game: taylor */
/* The observations the referee gives its seats when the game updates them
 * incrementally (JA_EXT_OBSERVE_UPDATE; Taylor Blackjack offers it):
 *
 *  - the extension itself: on a zero buffer (a seat never observed) update()
 *    writes the whole observation, byte for byte what observe() writes,
 *    deep into a match (stock rebuilt, cards known in hands, a long event
 *    history) and for every seat; for a seat out of range it leaves the
 *    buffer all zeros, as observe() does;
 *  - through the real match loop (ref_match_run, `random` plugin seats):
 *    every observation a seat is given, as the observer (on_step) sees it,
 *    equals observe() of the state the seat was asked in. The matches
 *    include a seat's first question (its buffer zero), questions after
 *    more events than the ring holds (a full observe, whatever the update
 *    does) and after one or two (the incremental path), all three counted
 *    and required.
 *
 * Budget: well under a second under ASan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "match.h"
#include "seat.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_taylor.h"

#include "bot_harness.h"

static const ja_game_rules *taylor(void)
{
    const ja_game_rules *g = ja_game_find("taylor-blackjack");
    assert_non_null(g);
    assert_int_equal(g->obs_size, sizeof(ja_taylor_obs));
    return g;
}

/* Plays `steps` random legal decisions of st (fewer if the match ends). */
static void play_random(const ja_game_rules *g, void *st, uint32_t steps, ja_rng *r)
{
    ja_action l[JA_MAX_ACTIONS], by[JA_MAX_SEATS];
    for (uint32_t i = 0; i < steps; i++) {
        uint32_t mask = g->to_act(st);
        if (!mask)
            return;
        memset(by, 0, sizeof by);
        for (uint32_t m = mask; m; m &= m - 1) {
            int s = __builtin_ctz(m);
            uint32_t n = g->legal(st, s, l, JA_MAX_ACTIONS);
            assert_true(n > 0);
            by[s] = l[ja_rng_below(r, n)];
        }
        assert_int_equal(g->apply(st, mask, by), JA_OK);
    }
}

/* A seat observed for the first time (zero buffer) gets the whole
 * observation; a seat out of range gets zeros. */
static void test_first_update(void **state)
{
    (void)state;
    const ja_game_rules *g = taylor();
    const ja_ext_observe_update *ou = ja_rules_extension(g, JA_EXT_OBSERVE_UPDATE);
    assert_non_null(ou);
    assert_non_null(ou->update);
    const uint32_t n = 4;
    const char *kv[] = {"games=3", NULL};
    ja_options o = make_options(g, n, kv);
    void *st = malloc(g->state_size);
    assert_non_null(st);
    ja_taylor_obs got, want, zero;
    memset(&zero, 0, sizeof zero);
    ja_rng r;
    ja_rng_seed(&r, 2024);
    uint32_t deep = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        assert_int_equal(g->setup(st, &o, n, seed), JA_OK);
        for (uint32_t k = 0; k < 8 && g->to_act(st); k++) {
            for (uint32_t s = 0; s < n; s++) {
                memset(&got, 0, sizeof got);
                ou->update(st, (int)s, &got);
                g->observe(st, (int)s, &want);
                assert_memory_equal(&got, &want, sizeof got);
                /* Deep: a public rebuilt stock, cards known in another hand,
                 * more events than the ring holds. */
                if (want.stock_known && want.stock_count > 0 && want.event_seq > JA_TAYLOR_EVENTS)
                    for (int i = 0; i < JA_TAYLOR_MAX_SEATS * 52; i++)
                        if (want.known[i]) {
                            deep++;
                            break;
                        }
            }
            for (int s = -1; s <= (int)n; s += (int)n + 1) {
                memset(&got, 0, sizeof got);
                ou->update(st, s, &got);
                assert_memory_equal(&got, &zero, sizeof got);
            }
            play_random(g, st, 40, &r);
        }
    }
    free(st);
    print_message("first updates: %u of a deep state\n", (unsigned)deep);
    assert_true(deep > 10);
}

/* What the observer of the match loop checks. */
typedef struct tally {
    const ja_game_rules *g;
    uint32_t n;
    void *prev;                      /* the state the step was asked in */
    uint32_t seen;                   /* bit s: seat s was asked before */
    uint32_t last_seq[JA_MAX_SEATS]; /* event_seq of seat s's last observation */
    ja_taylor_obs want;
    uint32_t given, first, gap, near, other;
} tally;

static void on_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    tally *t = ctx;
    for (uint32_t s = 0; s < t->n; s++) {
        if (!((info->observed >> s) & 1u))
            continue;
        const unsigned char *given = info->obs + (size_t)s * g->obs_size;
        g->observe(t->prev, (int)s, &t->want);
        if (memcmp(given, &t->want, sizeof t->want) != 0)
            fail_msg("step %u: seat %u was given an observation other than observe()'s",
                     (unsigned)info->step, (unsigned)s);
        t->given++;
        if (!((t->seen >> s) & 1u))
            t->first++;
        else if (t->want.event_seq - t->last_seq[s] > JA_TAYLOR_EVENTS)
            t->gap++;
        else if (t->want.event_seq - t->last_seq[s] <= 2)
            t->near++;
        else
            t->other++;
        t->seen |= 1u << s;
        t->last_seq[s] = t->want.event_seq;
    }
    memcpy(t->prev, info->state, g->state_size);
}

/* Every observation the match loop gives equals observe() of its state. */
static void test_match_observations(void **state)
{
    bots *b = *state;
    const ja_game_rules *g = taylor();
    tally t = {.g = g};
    t.prev = malloc(g->state_size);
    assert_non_null(t.prev);
    static const uint32_t seat_counts[] = {2, 5, 12};
    static const char *const rebuild[] = {"rebuild=noshuffle", "rebuild=shuffle"};
    char err[512] = "";
    ref_bot *seats[JA_MAX_SEATS];
    uint64_t seed = 500;
    for (size_t i = 0; i < sizeof seat_counts / sizeof seat_counts[0]; i++)
        for (int k = 0; k < 2; k++, seed++) {
            const uint32_t n = seat_counts[i];
            const char *kv[] = {"games=2", rebuild[k], NULL};
            ja_options o = make_options(g, n, kv);
            ref_match_config cfg = {.game = g, .options = o, .n_seats = n, .seed = seed,
                                    .match_id = "test-observe"};
            for (uint32_t s = 0; s < n; s++)
                seats[s] = b->random;
            t.n = n;
            t.seen = 0;
            assert_int_equal(g->setup(t.prev, &o, n, seed), JA_OK);
            ref_match_result res;
            cfg.bots = seats;
            cfg.on_step = on_step;
            cfg.step_ctx = &t;
            if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK)
                fail_msg("match (n=%u seed=%llu): %s", (unsigned)n, (unsigned long long)seed,
                         err);
        }
    free(t.prev);
    print_message("observations given: %u (%u first, %u after more events than the ring "
                  "holds, %u after one or two, %u others)\n",
                  (unsigned)t.given, (unsigned)t.first, (unsigned)t.gap, (unsigned)t.near,
                  (unsigned)t.other);
    assert_true(t.first >= 2 * (2 + 5 + 12) - 2);
    assert_true(t.gap > 0);
    assert_true(t.near > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_update),
        cmocka_unit_test(test_match_observations),
    };
    return cmocka_run_group_tests(tests, setup_bots, teardown_bots);
}
