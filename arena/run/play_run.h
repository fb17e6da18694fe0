/* One match: what `arena play` does once its flags are parsed and checked,
 * as a library so that tests reach it.
 *
 * arena_play_run loads the bots, plays one match in this process
 * (ref_match_run) with the seats taking the bots in order, and writes to
 * out: text (the game, seed, options and seats; the match move by move,
 * consecutive decisions of a seat on one line, unless quiet; the result
 * and the digest), or one JSON object and a newline with json. With a
 * replay path it writes the replay and, after a fault, the reproduction
 * bundle next to it (repro.h); with an export path, every decision as
 * training data (export.h). Errors are printed as one line (util.h).
 * Returns the exit status: EXIT_OK, EXIT_USAGE (a bot that does not load,
 * an output that cannot be opened), EXIT_RUNTIME (a failed match or
 * output). Not reentrant: one match at a time. */
#ifndef ARENA_PLAY_H
#define ARENA_PLAY_H

#include "run/botspec.h"
#include "run/extbots.h"

#include "jackarena/ja_rules.h"
#include "match.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A match. The caller has checked every field (cmd_play.c shows how): the
 * game plays bots->n seats, the bots are named (arena_bots_finish_names)
 * and not yet loaded, the outputs are checked (arena_outputs_check). The
 * run loads the bots and frees them before it returns. */
typedef struct arena_play_args {
    const ja_game_rules *game;
    ja_options options;
    arena_bots *bots;            /* bots->ext == ext */
    arena_ext *ext;
    uint64_t seed;               /* the match seed */
    uint32_t move_ms;            /* per-decision limit; REF_MOVE_MS_KIND: by kind */
    const char *replay_path;     /* NULL: no replay */
    const char *export_path;     /* NULL: no decision export; "-": stdout */
    bool json, quiet;
    ref_match_result *result;    /* NULL, or where the result goes on EXIT_OK */
} arena_play_args;

int arena_play_run(FILE *out, const arena_play_args *a);

#endif /* ARENA_PLAY_H */
