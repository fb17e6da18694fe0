/* One match: what `arena play` does once its flags are parsed and checked,
 * as a library so that tests reach it.
 *
 * It comes in two steps (docs/architecture.md, "Errors").
 * arena_play_prepare loads the bots and opens the outputs: its failures are
 * the user's, and nothing is written yet. arena_play_run plays one match in
 * this process (ref_match_run) with the seats taking the bots in order, and
 * writes to out: text (the game, seed, options and seats; the match move by
 * move, consecutive decisions of a seat on one line, unless quiet; the
 * result and the digest), or one JSON object and a newline with json. With
 * a replay path it writes the replay and, after a fault, the reproduction
 * bundle next to it (repro.h); with an export path, every decision as
 * training data (export.h). With a human seat (human.h) the moves are not
 * printed and the seed comes with the result only (either would tell the
 * person what its seat may not know), and a person who leaves the match
 * fails the run with "match abandoned: ..." and nothing written. Each step
 * returns JA_OK or the failure's code with its line in the caller's err;
 * neither prints an error. Not reentrant: one match at a time. */
#ifndef ARENA_PLAY_H
#define ARENA_PLAY_H

#include "run/botspec.h"
#include "run/export.h"
#include "run/extbots.h"

#include "jackarena/ja_rules.h"
#include "match.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A match. The caller has checked every field (cmd_play.c shows how): the
 * game plays bots->n seats, the bots are named (arena_bots_finish_names)
 * and not yet loaded, the outputs are checked (arena_outputs_check). The
 * args outlive the match's steps. */
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
    ref_match_result *result;    /* NULL, or where the result goes when the run succeeds */
} arena_play_args;

/* A match prepared: what arena_play_prepare opened, the run's to use and
 * arena_play_close's to release. */
typedef struct arena_play {
    const arena_play_args *a;
    ref_replay_writer *rw;       /* the replay being written; NULL: none */
    arena_export *xf;            /* the decision export being written; NULL: none */
} arena_play;

/* Loads the bots (confining cmd: bots away from the outputs) and opens the
 * replay and the decision export. JA_OK, or the code of the first failure
 * (a bot that does not load, an output that cannot be opened). Whatever it
 * returns, p is then closed with arena_play_close. */
int arena_play_prepare(arena_play *p, const arena_play_args *a, char *err, size_t cap);

/* Plays the prepared match and writes it to out, with its replay, its
 * reproduction bundle and its decisions. JA_OK, or the code of a failed
 * match or output. */
int arena_play_run(arena_play *p, FILE *out, char *err, size_t cap);

/* Releases what is left open (an unfinished output is removed) and frees
 * the bots. */
void arena_play_close(arena_play *p);

#endif /* ARENA_PLAY_H */
