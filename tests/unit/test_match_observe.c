/* ctest-requires-game: taylor */
/* The observations the referee gives its seats when the game updates them
 * incrementally (JA_EXT_OBSERVE_UPDATE), for each game of GAMES below
 * (Taylor Blackjack; Bombs when it is built):
 *
 *  - the extension itself: on a zero buffer (a seat never observed) update()
 *    writes the whole observation, byte for byte what observe() writes,
 *    deep into a match (Taylor Blackjack: stock rebuilt, cards known in
 *    hands; Bombs: a later hand, with its exchange pairs, of a match of
 *    several tables; all a long event history) and for every seat; for a
 *    seat out of range it leaves the buffer all zeros, as observe() does;
 *  - through the real match loop (ref_match_run, `random` plugin seats):
 *    every observation a seat is given, as the observer (on_step) sees it,
 *    equals observe() of the state the seat was asked in. The matches
 *    include a seat's first question (its buffer zero), questions after
 *    more events than the ring holds (a full observe, whatever the update
 *    does) and after one or two (the incremental path), all three counted
 *    and required for each game.
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

#include "jackarena/ja_bombs.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_taylor.h"

#include "bot_harness.h"

/* Taylor Blackjack, deep: a public rebuilt stock, cards known in another
 * hand, more events than the ring holds. */
static bool taylor_deep(const void *obs)
{
    const ja_taylor_obs *o = obs;
    if (!o->stock_known || o->stock_count == 0 || o->event_seq <= JA_TAYLOR_EVENTS)
        return false;
    for (int i = 0; i < JA_TAYLOR_MAX_SEATS * 52; i++)
        if (o->known[i])
            return true;
    return false;
}

/* Bombs, deep: a hand after the first (exchange pairs) of a match of
 * several tables, more events than the ring holds. */
static bool bombs_deep(const void *obs)
{
    const ja_bombs_obs *o = obs;
    return o->hand_no > 0 && o->n_tables > 1 && o->table != 0xFF &&
           o->table_master[o->table] != 0xFF && o->event_seq > JA_BOMBS_EVENTS;
}

typedef struct game_case {
    const char *name;
    uint32_t obs_size, seq_at; /* the observation's size, offset of its event_seq */
    /* test_first_update: seats, options, steps between two rounds of
     * updates, what makes an observation deep and how many are required. */
    uint32_t first_n;
    const char *first_kv[5];
    uint32_t stride;
    bool (*deep)(const void *obs);
    uint32_t min_deep;
    /* test_match_observations: three seat counts, two option sets, each
     * played once; a question after more than `far` events is after many,
     * and min_near questions after one or two events are required. */
    uint32_t seats[3];
    const char *match_kv[2][5];
    uint32_t far, min_near;
} game_case;

static const game_case GAMES[] = {
    {.name = "taylor-blackjack",
     .obs_size = sizeof(ja_taylor_obs),
     .seq_at = offsetof(ja_taylor_obs, event_seq),
     .first_n = 4,
     .first_kv = {"games=3", NULL},
     .stride = 40,
     .deep = taylor_deep,
     .min_deep = 10,
     .seats = {2, 5, 12},
     .match_kv = {{"games=2", "rebuild=noshuffle", NULL}, {"games=2", "rebuild=shuffle", NULL}},
     .far = JA_TAYLOR_EVENTS,
     .min_near = 1000},
    /* Two tables in test_first_update (windows after passes too); the
     * bench's seat counts, one table to four, with windows and without. */
    {.name = "bombs",
     .obs_size = sizeof(ja_bombs_obs),
     .seq_at = offsetof(ja_bombs_obs, event_seq),
     .first_n = 8,
     .first_kv = {"hands=3", "interrupt_after_pass=on", NULL},
     .stride = 80,
     .deep = bombs_deep,
     .min_deep = 10,
     .seats = {3, 4, 20},
     .match_kv = {{"hands=4", NULL}, {"hands=3", "out_of_turn=off", NULL}},
     .far = JA_BOMBS_EVENTS,
     .min_near = 300},
};
#define N_GAMES (sizeof GAMES / sizeof GAMES[0])

/* The game of c and its update; false (with a message) when the engine is
 * not built (JA_ONLY_GAMES); Taylor Blackjack always is (first line). */
static bool game_of(const game_case *c, const ja_game_rules **g, const ja_ext_observe_update **ou)
{
    *g = ja_game_find(c->name);
    if (!*g) {
        assert_string_not_equal(c->name, "taylor-blackjack");
        print_message("%s: not built, skipped\n", c->name);
        return false;
    }
    assert_int_equal((*g)->obs_size, c->obs_size);
    *ou = ja_rules_extension(*g, JA_EXT_OBSERVE_UPDATE);
    assert_non_null(*ou);
    assert_non_null((*ou)->update);
    return true;
}

typedef void check_fn(const game_case *c, const ja_game_rules *g,
                      const ja_ext_observe_update *ou, void *ctx);

/* check for every game of GAMES that is built. */
static void each_game(check_fn *check, void *ctx)
{
    for (size_t k = 0; k < N_GAMES; k++) {
        const ja_game_rules *g;
        const ja_ext_observe_update *ou;
        if (game_of(&GAMES[k], &g, &ou))
            check(&GAMES[k], g, ou, ctx);
    }
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
static void first_update(const game_case *c, const ja_game_rules *g,
                         const ja_ext_observe_update *ou, void *ctx)
{
    (void)ctx;
    const uint32_t n = c->first_n;
    ja_options o = make_options(g, n, c->first_kv);
    void *st = malloc(g->state_size);
    unsigned char *got = malloc(g->obs_size), *want = malloc(g->obs_size);
    unsigned char *zero = calloc(1, g->obs_size);
    assert_true(st && got && want && zero);
    ja_rng r;
    ja_rng_seed(&r, 2024);
    uint32_t deep = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        assert_int_equal(g->setup(st, &o, n, seed), JA_OK);
        for (uint32_t round = 0; round < 8 && g->to_act(st); round++) {
            for (uint32_t s = 0; s < n; s++) {
                memset(got, 0, g->obs_size);
                ou->update(st, (int)s, got);
                g->observe(st, (int)s, want);
                assert_memory_equal(got, want, g->obs_size);
                deep += c->deep(want);
            }
            for (int s = -1; s <= (int)n; s += (int)n + 1) {
                memset(got, 0, g->obs_size);
                ou->update(st, s, got);
                assert_memory_equal(got, zero, g->obs_size);
            }
            play_random(g, st, c->stride, &r);
        }
    }
    free(st);
    free(got);
    free(want);
    free(zero);
    print_message("%s: first updates: %u of a deep state\n", g->name, (unsigned)deep);
    assert_true(deep > c->min_deep);
}

static void test_first_update(void **state)
{
    (void)state;
    each_game(first_update, NULL);
}

/* What the observer of the match loop checks. */
typedef struct tally {
    const ja_game_rules *g;
    uint32_t n;
    void *prev;                      /* the state the step was asked in */
    unsigned char *want;             /* observe() of it */
    uint32_t seq_at, far;            /* offset of event_seq, game_case.far */
    uint32_t seen;                   /* bit s: seat s was asked before */
    uint32_t last_seq[JA_MAX_SEATS]; /* event_seq of seat s's last observation */
    uint32_t given, first, gap, near, other;
} tally;

static void on_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    tally *t = ctx;
    for (uint32_t s = 0; s < t->n; s++) {
        if (!((info->observed >> s) & 1u))
            continue;
        const unsigned char *given = info->obs + (size_t)s * g->obs_size;
        g->observe(t->prev, (int)s, t->want);
        if (memcmp(given, t->want, g->obs_size) != 0)
            fail_msg("%s step %u: seat %u was given an observation other than observe()'s",
                     g->name, (unsigned)info->step, (unsigned)s);
        uint32_t seq;
        memcpy(&seq, t->want + t->seq_at, sizeof seq);
        t->given++;
        if (!((t->seen >> s) & 1u))
            t->first++;
        else if (seq - t->last_seq[s] > t->far)
            t->gap++;
        else if (seq - t->last_seq[s] <= 2)
            t->near++;
        else
            t->other++;
        t->seen |= 1u << s;
        t->last_seq[s] = seq;
    }
    memcpy(t->prev, info->state, g->state_size);
}

/* Every observation the match loop gives equals observe() of its state. */
static void match_observations(const game_case *c, const ja_game_rules *g,
                               const ja_ext_observe_update *ou, void *ctx)
{
    (void)ou; /* the match loop finds it */
    bots *b = ctx;
    tally t = {.g = g, .seq_at = c->seq_at, .far = c->far};
    t.prev = malloc(g->state_size);
    t.want = malloc(g->obs_size);
    assert_true(t.prev && t.want);
    char err[512] = "";
    ref_bot *seats[JA_MAX_SEATS];
    uint64_t seed = 500;
    uint32_t seat_sum = 0;
    for (size_t i = 0; i < 3; i++)
        for (int v = 0; v < 2; v++, seed++) {
            const uint32_t n = c->seats[i];
            ja_options o = make_options(g, n, c->match_kv[v]);
            ref_match_config cfg = {.game = g, .options = o, .n_seats = n, .seed = seed,
                                    .match_id = "test-observe"};
            for (uint32_t s = 0; s < n; s++)
                seats[s] = b->random;
            t.n = n;
            t.seen = 0;
            seat_sum += n;
            assert_int_equal(g->setup(t.prev, &o, n, seed), JA_OK);
            ref_match_result res;
            cfg.bots = seats;
            cfg.on_step = on_step;
            cfg.step_ctx = &t;
            if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK)
                fail_msg("%s match (n=%u seed=%llu): %s", g->name, (unsigned)n,
                         (unsigned long long)seed, err);
        }
    free(t.prev);
    free(t.want);
    print_message("%s: observations given: %u (%u first, %u after more than %u events, "
                  "%u after one or two, %u others)\n",
                  g->name, (unsigned)t.given, (unsigned)t.first, (unsigned)t.gap,
                  (unsigned)t.far, (unsigned)t.near, (unsigned)t.other);
    assert_true(t.first >= seat_sum - 2);
    assert_true(t.gap > 0);
    assert_true(t.near > c->min_near);
}

static void test_match_observations(void **state)
{
    each_game(match_observations, *state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_update),
        cmocka_unit_test(test_match_observations),
    };
    return cmocka_run_group_tests(tests, setup_bots, teardown_bots);
}
