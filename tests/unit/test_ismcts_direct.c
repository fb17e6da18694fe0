/* The `ismcts` bot compiled into this binary (tests/CMakeLists.txt) and
 * called through its descriptor with a host of the test's own, so that:
 *
 *  - allocation: act() never allocates (malloc, calloc, realloc counted
 *    through the linker's --wrap, as in test_no_alloc.c) over whole matches
 *    of every game, with random and greedy playouts, with a node pool so
 *    small that it fills (the search goes on without expanding), and with
 *    the paired rollout test (verify=30);
 *  - hidden information: at decisions all through matches of every game, a
 *    second real state is made from the first by determinize(), which
 *    re-deals everything the deciding seat cannot see. The two observations
 *    must be byte-identical, and two bot instances with the same stream,
 *    one asked on each state, must answer identically (the bot sees only
 *    the observation; sample() rebuilds the rest), the paired rollout test
 *    (verify=30) included, whose determinizations come from sample() too. Some of the second states
 *    must really differ from the first, or the test would prove nothing;
 *  - answers are always legal indices.
 *
 * Small budgets keep it to a few seconds under ASan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_rules.h"

#include "alloc_count.h"

/* The plugin's entry point, compiled in. */
const ja_bot_desc *ja_bot_entry_v1(void);

/* ---- a host of our own --------------------------------------------------------- */

typedef struct host_ctx {
    ja_rng rng;
    const char *params;
} host_ctx;

static void h_log(void *hctx, int level, const char *msg)
{
    (void)hctx;
    (void)level;
    fprintf(stderr, "ismcts: %s\n", msg);
}

static uint64_t h_rng(void *hctx)
{
    return ja_rng_next(&((host_ctx *)hctx)->rng);
}

static int64_t h_left(void *hctx)
{
    (void)hctx;
    return -1;
}

static const char *h_params(void *hctx)
{
    return ((host_ctx *)hctx)->params;
}

static const ja_host_api HOST = {
    .struct_size = sizeof(ja_host_api),
    .log = h_log,
    .rng_next = h_rng,
    .time_left_ms = h_left,
    .rules = ja_game_find,
    .params = h_params,
};

/* Game cases: a game, a seat count, options. */
typedef struct gcase {
    const char *game;
    uint32_t seats;
    const char *opts[4];
} gcase;

static const gcase CASES[] = {
    {"taylor-blackjack", 3, {"games=1", "turn_cap=60"}},
    {"brawljack", 3, {"hands=1", "dealer=on"}},
    {"bruise-jack", 2, {"hands=1", "way=2", "guile=on"}},
    {"bruise-jack", 3, {"hands=1"}},
    {"jack-in-the-box", 4, {"games=1", "teams=on"}},
    {"jack-in-the-box", 3, {"games=1", "variant=v2"}},
    {"bombs", 4, {"hands=1"}},
};

static ja_options options(const ja_game_rules *g, const gcase *c)
{
    ja_options o;
    char err[256];
    ja_options_init(g, &o);
    for (int i = 0; i < 4 && c->opts[i]; i++)
        if (ja_options_set(g, &o, c->opts[i], err, sizeof err) != JA_OK)
            fail_msg("%s: %s", c->opts[i], err);
    if (ja_options_resolve(g, &o, c->seats, err, sizeof err) != JA_OK)
        fail_msg("%s: %s", g->name, err);
    return o;
}

static void *new_bot(host_ctx *h, const char *params, uint64_t seed, const ja_game_rules *g,
                     int seat, uint32_t n)
{
    h->params = params;
    ja_rng_seed(&h->rng, seed);
    void *bot = NULL;
    assert_int_equal(ja_bot_entry_v1()->create(&HOST, h, g->name, seat, n, &bot), JA_OK);
    return bot;
}

static ja_decision decision(const ja_game_rules *g, int seat, uint32_t n_seats, const void *obs,
                            const ja_action *legal, uint32_t n)
{
    return (ja_decision){.struct_size = sizeof(ja_decision), .turn = 1, .seat = seat,
                         .n_seats = n_seats, .game = g->name, .obs_version = g->obs_version,
                         .obs_size = g->obs_size, .obs = obs, .legal = legal, .n_legal = n};
}

/* ---- allocation ---------------------------------------------------------------- */

/* Seat 0 is the bot; the others play at random. */
static void alloc_match(const gcase *c, const char *params)
{
    const ja_game_rules *g = ja_game_find(c->game);
    if (!g)
        return; /* compiled out */
    const ja_bot_desc *d = ja_bot_entry_v1();
    ja_options o = options(g, c);
    void *st = malloc(g->state_size), *obs = malloc(g->obs_size);
    ja_action *legal = malloc(sizeof *legal * g->max_actions);
    host_ctx h;
    void *bot = new_bot(&h, params, 5, g, 0, c->seats);
    ja_rng rng;
    ja_rng_seed(&rng, 77);
    assert_int_equal(g->setup(st, &o, c->seats, 1234), JA_OK);
    uint32_t mask, asked = 0;
    while ((mask = g->to_act(st)) != 0) {
        ja_action by_seat[JA_MAX_SEATS] = {{0}};
        for (uint32_t s = 0; s < c->seats; s++) {
            if (!(mask & (1u << s)))
                continue;
            uint32_t n = g->legal(st, (int)s, legal, g->max_actions);
            by_seat[s] = legal[ja_rng_below(&rng, n)];
            if (s != 0 || n < 2)
                continue;
            g->observe(st, 0, obs);
            ja_decision dec = decision(g, 0, c->seats, obs, legal, n);
            uint32_t index = UINT32_MAX;
            long before = g_allocs;
            assert_int_equal(d->act(bot, &dec, &index), JA_OK);
            if (g_allocs != before)
                fail_msg("%s (%s): act allocated %ld times", g->name, params, g_allocs - before);
            assert_true(index < n);
            by_seat[0] = legal[index];
            asked++;
        }
        assert_int_equal(g->apply(st, mask, by_seat), JA_OK);
    }
    assert_true(asked > 0);
    d->destroy(bot);
    free(st);
    free(obs);
    free(legal);
}

static void test_no_alloc_per_decision(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        alloc_match(&CASES[i], "iters=30:verify=0");
        alloc_match(&CASES[i], "iters=30:nodes=16:verify=0");
        alloc_match(&CASES[i], "iters=10:rollout=greedy:verify=0");
        alloc_match(&CASES[i], "iters=10:verify=30");
    }
}

/* ---- hidden information -------------------------------------------------------- */

static void test_hidden_information(void **state)
{
    (void)state;
    const ja_bot_desc *d = ja_bot_entry_v1();
    uint32_t checks = 0, differ = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const gcase *c = &CASES[i];
        const ja_game_rules *g = ja_game_find(c->game);
        if (!g)
            continue;
        ja_options o = options(g, c);
        unsigned char *st = malloc(g->state_size), *st2 = malloc(g->state_size);
        unsigned char *obs = malloc(g->obs_size), *obs2 = malloc(g->obs_size);
        ja_action *legal = malloc(sizeof *legal * g->max_actions);
        ja_action *legal2 = malloc(sizeof *legal2 * g->max_actions);
        ja_rng rng;
        ja_rng_seed(&rng, 900 + i);
        assert_int_equal(g->setup(st, &o, c->seats, 4321 + i), JA_OK);
        uint32_t mask, step = 0;
        while ((mask = g->to_act(st)) != 0) {
            ja_action by_seat[JA_MAX_SEATS] = {{0}};
            for (uint32_t s = 0; s < c->seats; s++) {
                if (!(mask & (1u << s)))
                    continue;
                uint32_t n = g->legal(st, (int)s, legal, g->max_actions);
                by_seat[s] = legal[ja_rng_below(&rng, n)];
                if (n < 2 || step++ % 4 != 0)
                    continue;
                memcpy(st2, st, g->state_size);
                g->determinize(st2, (int)s, ja_rng_next(&rng));
                differ += memcmp(st, st2, g->state_size) != 0;
                g->observe(st, (int)s, obs);
                g->observe(st2, (int)s, obs2);
                if (memcmp(obs, obs2, g->obs_size) != 0)
                    fail_msg("%s: determinize changed what seat %u sees", g->name, s);
                uint32_t n2 = g->legal(st2, (int)s, legal2, g->max_actions);
                assert_int_equal(n, n2);
                assert_memory_equal(legal, legal2, sizeof *legal * n);
                /* Two instances with the same stream, one per real state. */
                host_ctx h1, h2;
                void *b1 = new_bot(&h1, "iters=20:verify=30", step, g, (int)s, c->seats);
                void *b2 = new_bot(&h2, "iters=20:verify=30", step, g, (int)s, c->seats);
                ja_decision d1 = decision(g, (int)s, c->seats, obs, legal, n);
                ja_decision d2 = decision(g, (int)s, c->seats, obs2, legal2, n2);
                uint32_t i1 = UINT32_MAX, i2 = UINT32_MAX;
                assert_int_equal(d->act(b1, &d1, &i1), JA_OK);
                assert_int_equal(d->act(b2, &d2, &i2), JA_OK);
                if (i1 != i2)
                    fail_msg("%s: seat %u answered %u on one real state and %u on the other",
                             g->name, s, i1, i2);
                assert_true(i1 < n);
                d->destroy(b1);
                d->destroy(b2);
                checks++;
            }
            assert_int_equal(g->apply(st, mask, by_seat), JA_OK);
        }
        free(st);
        free(st2);
        free(obs);
        free(obs2);
        free(legal);
        free(legal2);
    }
    printf("hidden information: %u decisions checked, %u with a different real state\n", checks,
           differ);
    assert_true(checks >= 20);
    assert_true(differ * 2 >= checks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_alloc_per_decision),
        cmocka_unit_test(test_hidden_information),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
