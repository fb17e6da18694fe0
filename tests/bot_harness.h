/* Shared by the cmocka tests that play matches with the reference bots:
 * load ja_greedy.so and ja_random.so from $JA_BUILD_DIR/bots (ctest sets it)
 * as a group fixture, resolve game options from "k=v" strings, and play a
 * match of greedy against random through the real match loop. Include
 * after <cmocka.h>. */
#ifndef JA_TESTS_BOT_HARNESS_H
#define JA_TESTS_BOT_HARNESS_H

#include "jackarena/ja_error.h"
#include "jackarena/ja_rules.h"
#include "match.h"
#include "seat.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct bots {
    ref_bot *greedy, *random;
} bots;

/* A reference bot's plugin from the build tree; fails the test otherwise. */
static inline ref_bot *open_bot(const char *file)
{
    const char *dir = getenv("JA_BUILD_DIR");
    if (!dir)
        fail_msg("JA_BUILD_DIR is not set (run this test through ctest)");
    char path[4096], err[1200];
    snprintf(path, sizeof path, "%s/bots/%s", dir, file);
    ref_bot *b = NULL;
    if (ref_bot_plugin_open(path, NULL, &b, err, sizeof err) != JA_OK)
        fail_msg("%s", err);
    return b;
}

/* Group fixture: *state becomes a bots with greedy and random loaded. */
static inline int setup_bots(void **state)
{
    bots *b = calloc(1, sizeof *b);
    if (!b)
        return -1;
    b->greedy = open_bot("ja_greedy.so");
    b->random = open_bot("ja_random.so");
    *state = b;
    return 0;
}

static inline int teardown_bots(void **state)
{
    bots *b = *state;
    ref_bot_destroy(&b->greedy);
    ref_bot_destroy(&b->random);
    free(b);
    return 0;
}

/* Resolved options from "k=v" strings (NULL-terminated). */
static inline ja_options make_options(const ja_game_rules *g, uint32_t n, const char *const *kv)
{
    ja_options o;
    char err[256];
    ja_options_init(g, &o);
    for (; kv && *kv; kv++)
        if (ja_options_set(g, &o, *kv, err, sizeof err) != JA_OK)
            fail_msg("option %s: %s", *kv, err);
    if (ja_options_resolve(g, &o, n, err, sizeof err) != JA_OK)
        fail_msg("options: %s", err);
    return o;
}

/* A match of the fixture's bots: greedy at the seats of greedy_mask, random
 * at the others. */
typedef struct bot_match {
    const ja_game_rules *g;
    ja_options options;  /* resolved (make_options) */
    uint32_t n;          /* seats */
    uint64_t seed;
    uint32_t greedy_mask;
    const char *match_id;
    ref_step_fn on_step; /* NULL = none; called with step_ctx after every step */
    void *step_ctx;
} bot_match;

/* Plays m through ref_match_run into *res, without a replay; fails the test
 * when the match fails or any seat faults. */
static inline void play_bot_match(const bots *b, const bot_match *m, ref_match_result *res)
{
    ref_match_config cfg = {.game = m->g, .options = m->options, .n_seats = m->n,
                            .seed = m->seed, .match_id = m->match_id};
    ref_bot *seats[JA_MAX_SEATS];
    const char *names[JA_MAX_SEATS];
    for (uint32_t s = 0; s < m->n; s++) {
        bool gr = (m->greedy_mask >> s) & 1u;
        seats[s] = gr ? b->greedy : b->random;
        names[s] = gr ? "greedy" : "random";
    }
    char err[512] = "";
    cfg.bots = seats;
    cfg.names = names;
    cfg.on_step = m->on_step;
    cfg.step_ctx = m->step_ctx;
    if (ref_match_run(&cfg, res, err, sizeof err) != JA_OK)
        fail_msg("match (n=%u seed=%llu): %s", (unsigned)m->n, (unsigned long long)m->seed, err);
    for (uint32_t s = 0; s < m->n; s++)
        if (res->faults[s])
            fail_msg("seat %u (%s) faulted %u times (n=%u seed=%llu)", (unsigned)s, names[s],
                     (unsigned)res->faults[s], (unsigned)m->n, (unsigned long long)m->seed);
}

#endif /* JA_TESTS_BOT_HARNESS_H */
