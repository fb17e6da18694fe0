/* ctest-requires-game: taylor */
/* The observations the referee gives its seats when the game updates them
 * incrementally (JA_EXT_OBSERVE_UPDATE), for each game that offers it
 * (Taylor Blackjack; BrawlJack, skipped in a build without it):
 *
 *  - the extension itself: on a zero buffer (a seat never observed) update()
 *    writes the whole observation, byte for byte what observe() writes,
 *    deep into a match (the game's own test of depth: for Taylor Blackjack a
 *    public rebuilt stock and cards known in another hand, for BrawlJack a
 *    later deal with a split or the dealer's hands on the table; both past
 *    a long event history) and for every seat; for a seat out of range it
 *    leaves the buffer all zeros, as observe() does;
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

#include "jackarena/ja_brawljack.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_taylor.h"

#include "bot_harness.h"

/* Taylor Blackjack, deep: a public rebuilt stock, cards known in another
 * hand, more events than the ring holds. */
static int taylor_deep(const void *obs)
{
    const ja_taylor_obs *o = obs;
    if (!o->stock_known || o->stock_count == 0 || o->event_seq <= JA_TAYLOR_EVENTS)
        return 0;
    for (int i = 0; i < JA_TAYLOR_MAX_SEATS * 52; i++)
        if (o->known[i])
            return 1;
    return 0;
}

/* BrawlJack, deep: a later deal, more hands than the deal began with (a
 * split, or the dealer's), more events than the ring holds. */
static int brawljack_deep(const void *obs)
{
    const ja_brawljack_obs *o = obs;
    return o->deal > 0 && o->n_hands > 2 * o->n_seats && o->event_seq > JA_BRAWLJACK_EVENTS;
}

/* A game, and how it is played here. */
typedef struct game_case {
    const char *name;
    uint32_t obs_size;             /* the size of the game's observation struct */
    /* test_first_update: options and seats; a state deep into a match */
    const char *first_kv[4];
    uint32_t first_seats;
    int (*deep)(const void *obs);
    /* test_match_observations: every option set (up to the first empty one)
     * with every seat count; at least min_first first questions */
    const char *match_kv[3][4];
    uint32_t seats[3];
    uint32_t min_first;
} game_case;

static const game_case TAYLOR = {
    .name = "taylor-blackjack", .obs_size = sizeof(ja_taylor_obs),
    .first_kv = {"games=3"}, .first_seats = 4, .deep = taylor_deep,
    .match_kv = {{"games=2", "rebuild=noshuffle"}, {"games=2", "rebuild=shuffle"}},
    .seats = {2, 5, 12}, .min_first = 2 * (2 + 5 + 12) - 2,
};
/* BrawlJack without the virtual dealer (more ties, so more blind rounds and
 * reveals) and with it, played by a seat and by the auto policy (the
 * dealer's deck and hands). */
static const game_case BRAWLJACK = {
    .name = "brawljack", .obs_size = sizeof(ja_brawljack_obs),
    .first_kv = {"dealer=on", "hands=6"}, .first_seats = 4, .deep = brawljack_deep,
    .match_kv = {{"hands=40"},
                 {"dealer=on", "hands=40"},
                 {"dealer=on", "dealer_control=auto", "hands=40"}},
    .seats = {2, 5, 8}, .min_first = 3 * (2 + 5 + 8) - 3,
};

/* The game of gc, or a skip when this build has no such engine (the
 * first one, Taylor Blackjack, is required: see the first line). */
static const game_case *game_of(void **state, const game_case *gc, const ja_game_rules **g)
{
    (void)state;
    *g = ja_game_find(gc->name);
    if (!*g && gc != &TAYLOR)
        skip();
    assert_non_null(*g);
    assert_int_equal((*g)->obs_size, gc->obs_size);
    return gc;
}

/* The byte offset of the observation's event count, and the event ring's
 * capacity (the length of ev_seq), from the game's field table. */
static void event_fields(const ja_game_rules *g, uint32_t *seq_at, uint32_t *cap)
{
    *seq_at = UINT32_MAX;
    *cap = 0;
    for (uint32_t i = 0; i < g->n_obs_fields; i++) {
        const ja_field *f = &g->obs_fields[i];
        if (strcmp(f->name, "event_seq") == 0 && f->type == JA_FT_U32 && f->count == 1)
            *seq_at = f->offset;
        if (strcmp(f->name, "ev_seq") == 0)
            *cap = f->count;
    }
    assert_true(*seq_at != UINT32_MAX && *cap > 0);
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
static void first_update(void **state, const game_case *gc0)
{
    const ja_game_rules *g;
    const game_case *gc = game_of(state, gc0, &g);
    const ja_ext_observe_update *ou = ja_rules_extension(g, JA_EXT_OBSERVE_UPDATE);
    assert_non_null(ou);
    assert_non_null(ou->update);
    const uint32_t n = gc->first_seats;
    ja_options o = make_options(g, n, gc->first_kv);
    void *st = malloc(g->state_size);
    unsigned char *got = malloc(g->obs_size), *want = malloc(g->obs_size);
    unsigned char *zero = calloc(1, g->obs_size);
    assert_true(st && got && want && zero);
    ja_rng r;
    ja_rng_seed(&r, 2024);
    uint32_t deep = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        assert_int_equal(g->setup(st, &o, n, seed), JA_OK);
        for (uint32_t k = 0; k < 8 && g->to_act(st); k++) {
            for (uint32_t s = 0; s < n; s++) {
                memset(got, 0, g->obs_size);
                ou->update(st, (int)s, got);
                g->observe(st, (int)s, want);
                assert_memory_equal(got, want, g->obs_size);
                deep += gc->deep(want) != 0;
            }
            for (int s = -1; s <= (int)n; s += (int)n + 1) {
                memset(got, 0, g->obs_size);
                ou->update(st, s, got);
                assert_memory_equal(got, zero, g->obs_size);
            }
            play_random(g, st, 40, &r);
        }
    }
    free(st);
    free(got);
    free(want);
    free(zero);
    print_message("%s: first updates: %u of a deep state\n", gc->name, (unsigned)deep);
    assert_true(deep > 10);
}

static void test_first_update_taylor(void **state) { first_update(state, &TAYLOR); }
static void test_first_update_brawljack(void **state) { first_update(state, &BRAWLJACK); }

/* What the observer of the match loop checks. */
typedef struct tally {
    const ja_game_rules *g;
    uint32_t n;
    uint32_t seq_at, cap;            /* event_seq's offset, the ring's capacity */
    void *prev;                      /* the state the step was asked in */
    uint32_t seen;                   /* bit s: seat s was asked before */
    uint32_t last_seq[JA_MAX_SEATS]; /* event_seq of seat s's last observation */
    unsigned char *want;
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
            fail_msg("step %u: seat %u was given an observation other than observe()'s",
                     (unsigned)info->step, (unsigned)s);
        uint32_t seq;
        memcpy(&seq, t->want + t->seq_at, sizeof seq);
        t->given++;
        if (!((t->seen >> s) & 1u))
            t->first++;
        else if (seq - t->last_seq[s] > t->cap)
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
static void match_observations(void **state, const game_case *gc0)
{
    bots *b = *state;
    const ja_game_rules *g;
    const game_case *gc = game_of(state, gc0, &g);
    tally t = {.g = g};
    event_fields(g, &t.seq_at, &t.cap);
    t.prev = malloc(g->state_size);
    t.want = malloc(g->obs_size);
    assert_true(t.prev && t.want);
    char err[512] = "";
    ref_bot *seats[JA_MAX_SEATS];
    uint64_t seed = 500;
    for (size_t i = 0; i < sizeof gc->seats / sizeof gc->seats[0]; i++)
        for (size_t k = 0; k < sizeof gc->match_kv / sizeof gc->match_kv[0] && gc->match_kv[k][0];
             k++, seed++) {
            const uint32_t n = gc->seats[i];
            ja_options o = make_options(g, n, gc->match_kv[k]);
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
                fail_msg("%s match (n=%u seed=%llu): %s", gc->name, (unsigned)n,
                         (unsigned long long)seed, err);
        }
    free(t.prev);
    free(t.want);
    print_message("%s: observations given: %u (%u first, %u after more events than the ring "
                  "holds, %u after one or two, %u others)\n",
                  gc->name, (unsigned)t.given, (unsigned)t.first, (unsigned)t.gap,
                  (unsigned)t.near, (unsigned)t.other);
    assert_true(t.first >= gc->min_first);
    assert_true(t.gap > 0);
    assert_true(t.near > 1000);
}

static void test_match_observations_taylor(void **state) { match_observations(state, &TAYLOR); }
static void test_match_observations_brawljack(void **state)
{
    match_observations(state, &BRAWLJACK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_update_taylor),
        cmocka_unit_test(test_first_update_brawljack),
        cmocka_unit_test(test_match_observations_taylor),
        cmocka_unit_test(test_match_observations_brawljack),
    };
    return cmocka_run_group_tests(tests, setup_bots, teardown_bots);
}
