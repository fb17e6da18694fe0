/* Flags shared by several commands: bots, game options, seed, move time. */
#ifndef ARENA_FLAGS_H
#define ARENA_FLAGS_H

#include "run/botspec.h"
#include "run/extbots.h"
#include "jackarena/ja_rules.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- flags shared by several commands --------------------------------------- */

/* getopt_long codes of the shared flags. */
#define ARENA_OPT_BOT 'b'     /* --bot SPEC */
#define ARENA_OPT_BOTS 'B'    /* --bots A,B */
#define ARENA_OPT_OPT 'o'     /* --opt K=V */
#define ARENA_OPT_SEED 's'    /* --seed N */
#define ARENA_OPT_MOVE_MS 'm' /* --move-ms MS */

typedef struct arena_common {
    arena_bots *bots;
    const char *opt_kv[64];
    int n_opt;
    uint64_t seed;
    bool have_seed;
    uint32_t move_ms;
} arena_common;

/* Handles one shared flag. Returns 1 if c was one (and valid), 0 if c is not
 * a shared flag, -1 after printing a usage error. */
int arena_common_flag(arena_common *co, int c, const char *arg);

/* The game options from the --opt flags, resolved for n_seats. Prints the
 * usage error and returns false on a bad option. */
bool arena_common_options(const arena_common *co, const ja_game_rules *g, uint32_t n_seats,
                          ja_options *o);

/* Handles one external-bot flag (run/extbots.h: ARENA_EXT_LONGOPTS,
 * ARENA_FAULT_LONGOPTS): 1 if c was one (and valid), 0 if not, -1 after
 * printing a usage error. */
int arena_ext_flag(arena_ext *e, int c, const char *arg);

/* True when rc (a library call's) is JA_OK; otherwise prints its line err
 * as the error (arena_error) and returns false. */
bool arena_cli_ok(int rc, const char *err);

/* Prints the usage error for getopt's '?' (unknown flag or missing value). */
void arena_getopt_error(const char *cmd, char **argv);

#endif /* ARENA_FLAGS_H */
