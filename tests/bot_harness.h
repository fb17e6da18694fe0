/* Shared by the cmocka tests that play matches with the reference bots:
 * load ja_greedy.so and ja_random.so from $JA_BUILD_DIR/bots (ctest sets it)
 * as a group fixture, and resolve game options from "k=v" strings. Include
 * after <cmocka.h> and referee/seat.h. */
#ifndef JA_TESTS_BOT_HARNESS_H
#define JA_TESTS_BOT_HARNESS_H

#include "jackarena/ja_error.h"
#include "jackarena/ja_rules.h"
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

#endif /* JA_TESTS_BOT_HARNESS_H */
