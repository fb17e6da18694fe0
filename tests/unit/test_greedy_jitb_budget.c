/* ctest-requires-game: jack_in_the_box */
/* The node budget of the Jack in the Box greedy's plan search
 * (bots/greedy/greedy_jack_in_the_box.c, GREEDY_JITB_BUDGET in greedy.h),
 * counted in nodes, never timed. The heuristic and the ismcts bot are
 * compiled into this binary (tests/CMakeLists.txt), and the linker wraps
 * greedy_jack_in_the_box_act so that every call ismcts makes is seen.
 *
 *  - decisions: all through matches of 4 seats, teams on, variant v3 (four
 *    boxes, two packs: the largest searches), every scoring and opening
 *    decision, plus the same decisions made larger still (ten available
 *    cards: the own hand topped up to five next to the partner's five). No
 *    decision expands more than GREEDY_JITB_BUDGET nodes, some reach it
 *    (the budget really binds), and the plugin's act() answers as the
 *    budgeted plan does;
 *  - ismcts: a whole match of the same game (small iterations, greedy
 *    playouts as rollout=auto takes them in Jack in the Box; the paired
 *    test, off here to keep the test short, continues its playouts with the
 *    same function) ends, and every greedy call inside it stays within the
 *    budget.
 *
 * Budget: a few seconds under ASan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "greedy.h"
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_jack_in_the_box.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_rules.h"

const ja_bot_desc *ja_bot_entry_v1(void);

/* ---- every greedy call ismcts makes ------------------------------------------ */

static uint32_t calls, max_nodes;

int __real_greedy_jack_in_the_box_act(const ja_decision *d, uint32_t *out_index);
int __wrap_greedy_jack_in_the_box_act(const ja_decision *d, uint32_t *out_index);
int __wrap_greedy_jack_in_the_box_act(const ja_decision *d, uint32_t *out_index)
{
    uint32_t i = UINT32_MAX, nodes = 0;
    int rc = __real_greedy_jack_in_the_box_act(d, out_index);
    assert_int_equal(greedy_jack_in_the_box_plan(d, GREEDY_JITB_BUDGET, &i, &nodes), rc);
    if (rc == JA_OK)
        assert_int_equal(i, *out_index);
    calls++;
    if (nodes > max_nodes)
        max_nodes = nodes;
    return rc;
}

/* ---- the game ---------------------------------------------------------------- */

static const ja_game_rules *jitb(void)
{
    const ja_game_rules *g = ja_game_find("jack-in-the-box");
    assert_non_null(g);
    return g;
}

static ja_options teams_v3(const ja_game_rules *g)
{
    static const char *const kv[] = {"teams=on", "variant=v3", "games=1"};
    ja_options o;
    char err[256];
    ja_options_init(g, &o);
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        assert_int_equal(ja_options_set(g, &o, kv[i], err, sizeof err), JA_OK);
    assert_int_equal(ja_options_resolve(g, &o, 4, err, sizeof err), JA_OK);
    return o;
}

/* Plans decision d within the budget and checks the count; returns the nodes. */
static uint32_t planned(const ja_decision *d)
{
    uint32_t i = UINT32_MAX, j = UINT32_MAX, nodes = UINT32_MAX;
    assert_int_equal(greedy_jack_in_the_box_plan(d, GREEDY_JITB_BUDGET, &i, &nodes), JA_OK);
    assert_true(i < d->n_legal);
    assert_true(nodes <= GREEDY_JITB_BUDGET);
    assert_int_equal(greedy_jack_in_the_box_act(d, &j), JA_OK);
    assert_int_equal(i, j);
    return nodes;
}

static void test_decisions_within_budget(void **state)
{
    (void)state;
    const ja_game_rules *g = jitb();
    ja_options opt = teams_v3(g);
    void *st = malloc(g->state_size);
    ja_action *legal = malloc(sizeof *legal * g->max_actions);
    assert_non_null(st);
    assert_non_null(legal);
    ja_rng rng;
    ja_rng_seed(&rng, 77);
    uint32_t decisions = 0, ten = 0, at_budget = 0, most = 0;
    for (uint64_t seed = 0; seed < 30; seed++) {
        assert_int_equal(g->setup(st, &opt, 4, 9000 + seed), JA_OK);
        uint32_t mask;
        while ((mask = g->to_act(st)) != 0) {
            ja_action by[JA_MAX_SEATS];
            memset(by, 0, sizeof by);
            for (int s = 0; s < 4; s++) {
                if (!(mask >> s & 1u))
                    continue;
                uint32_t n = g->legal(st, s, legal, g->max_actions);
                ja_jitb_obs o;
                g->observe(st, s, &o);
                ja_decision d = {.struct_size = sizeof d, .turn = 1, .seat = s, .n_seats = 4,
                                 .game = g->name, .obs_version = g->obs_version,
                                 .obs_size = g->obs_size, .obs = &o, .legal = legal,
                                 .n_legal = n};
                uint32_t i = 0;
                assert_int_equal(greedy_jack_in_the_box_act(&d, &i), JA_OK);
                if (o.stage <= JA_JITB_STAGE_OPEN) {
                    uint32_t nodes = planned(&d);
                    decisions++;
                    at_budget += nodes == GREEDY_JITB_BUDGET;
                    most = nodes > most ? nodes : most;
                }
                if (o.opened && o.stage == JA_JITB_STAGE_CHOOSE) {
                    /* Ten available cards: the own hand topped up to five. */
                    ja_jitb_obs big = o;
                    int own = 0;
                    for (int c = 0; c < 52; c++)
                        own += big.hand[c];
                    while (own < JA_JITB_HAND) {
                        uint32_t c = ja_rng_below(&rng, 52);
                        if (big.hand[c] < big.packs) {
                            big.hand[c]++;
                            own++;
                        }
                    }
                    ja_decision d10 = d;
                    d10.obs = &big;
                    uint32_t nodes = planned(&d10);
                    ten++;
                    at_budget += nodes == GREEDY_JITB_BUDGET;
                    most = nodes > most ? nodes : most;
                }
                /* Mostly greedy's own play, sometimes random: more kinds of hands. */
                by[s] = ja_rng_below(&rng, 8) == 0 ? legal[ja_rng_below(&rng, n)] : legal[i];
            }
            assert_int_equal(g->apply(st, mask, by), JA_OK);
        }
    }
    print_message("greedy jitb budget: %u decisions, %u with ten cards, %u reached the budget "
                  "of %u nodes, the most any took: %u\n",
                  (unsigned)decisions, (unsigned)ten, (unsigned)at_budget,
                  (unsigned)GREEDY_JITB_BUDGET, (unsigned)most);
    assert_true(decisions > 500);
    assert_true(ten > 25);
    assert_true(at_budget > 0);
    free(legal);
    free(st);
}

/* ---- a whole ismcts match ------------------------------------------------------ */

typedef struct host_ctx {
    ja_rng rng;
} host_ctx;

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
    (void)hctx;
    return "iters=10:verify=0";
}

static const ja_host_api HOST = {
    .struct_size = sizeof(ja_host_api),
    .rng_next = h_rng,
    .time_left_ms = h_left,
    .rules = ja_game_find,
    .params = h_params,
};

static void test_ismcts_match_within_budget(void **state)
{
    (void)state;
    const ja_game_rules *g = jitb();
    const ja_bot_desc *desc = ja_bot_entry_v1();
    ja_options opt = teams_v3(g);
    void *st = malloc(g->state_size), *obs = malloc(g->obs_size);
    ja_action *legal = malloc(sizeof *legal * g->max_actions);
    assert_non_null(st);
    assert_non_null(obs);
    assert_non_null(legal);
    host_ctx h[4];
    void *bot[4];
    for (int s = 0; s < 4; s++) {
        ja_rng_seed(&h[s].rng, 31 + (uint64_t)s);
        assert_int_equal(desc->create(&HOST, &h[s], g->name, s, 4, &bot[s]), JA_OK);
    }
    calls = max_nodes = 0;
    assert_int_equal(g->setup(st, &opt, 4, 4321), JA_OK);
    uint32_t mask, steps = 0;
    while ((mask = g->to_act(st)) != 0) {
        ja_action by[JA_MAX_SEATS];
        memset(by, 0, sizeof by);
        for (int s = 0; s < 4; s++) {
            if (!(mask >> s & 1u))
                continue;
            uint32_t n = g->legal(st, s, legal, g->max_actions), i = UINT32_MAX;
            g->observe(st, s, obs);
            ja_decision d = {.struct_size = sizeof d, .turn = 1, .seat = s, .n_seats = 4,
                             .game = g->name, .obs_version = g->obs_version,
                             .obs_size = g->obs_size, .obs = obs, .legal = legal, .n_legal = n};
            assert_int_equal(desc->act(bot[s], &d, &i), JA_OK);
            assert_true(i < n);
            by[s] = legal[i];
        }
        assert_int_equal(g->apply(st, mask, by), JA_OK);
        assert_true(++steps < 100000);
    }
    print_message("ismcts jitb teams v3: %u steps, %u greedy calls, the most nodes any took: "
                  "%u (budget %u)\n",
                  (unsigned)steps, (unsigned)calls, (unsigned)max_nodes,
                  (unsigned)GREEDY_JITB_BUDGET);
    assert_true(calls > 1000);
    assert_true(max_nodes <= GREEDY_JITB_BUDGET);
    for (int s = 0; s < 4; s++)
        desc->destroy(bot[s]);
    free(legal);
    free(obs);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decisions_within_budget),
        cmocka_unit_test(test_ismcts_match_within_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
