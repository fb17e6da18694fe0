/* A tournament run: what `arena tournament` does once its flags are parsed
 * and checked, as a library so that tests and other commands reach it
 * (docs/tournament-plan.md).
 *
 * arena_tournament_run loads the bots, plans the tournament into the
 * database (or finds it again: --seed, --resume), plays the pending matches
 * through an executor (scale.h) under a lock on the database (db_lock.h),
 * records each result, and writes the standings to out: text (a header
 * before play, the standings after), or one JSON object and a newline with
 * json. Progress goes to stderr unless quiet or json. SIGINT and SIGTERM
 * stop the run after the matches in flight (the handlers are restored
 * after play); the standings are then written and the status is
 * EXIT_RUNTIME. Errors are printed as one line (util.h). Returns the exit
 * status: EXIT_OK, EXIT_USAGE (a bot that does not load, an output or a
 * database that cannot be used, --resume with nothing to resume),
 * EXIT_RUNTIME (a failure during the run, or an interrupted run). */
#ifndef ARENA_TOURNAMENT_RUN_H
#define ARENA_TOURNAMENT_RUN_H

#include "run/botspec.h"
#include "run/extbots.h"
#include "run/scale.h"

#include "jackarena/ja_rules.h"
#include "plan.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What to play. Every field has been checked by the caller (cmd_tournament.c
 * shows how): the game plays plan.n_seats seats, the bots are named
 * (arena_bots_finish_names) and not yet loaded, plan.n_participants is
 * bots->n, the plan counts (ladder_plan_count), the outputs are checked
 * (arena_outputs_check), ext and scale are checked (arena_scale_check).
 * The run loads bots and frees them before it returns. */
typedef struct arena_tournament_args {
    const ja_game_rules *game;
    ja_options options;
    arena_bots *bots;            /* bots->ext == ext */
    arena_ext *ext;
    const arena_scale *scale;
    ladder_plan_params plan;     /* its seed is not read: have_seed, seed */
    bool have_seed;              /* false: a random seed, unless a tournament is resumed */
    uint64_t seed;
    const char *db_path;         /* the ladder database */
    const char *replay_dir;      /* NULL: no replays */
    const char *export_path;     /* NULL: no decision export; "-": stdout */
    uint32_t move_ms;            /* per-decision limit; REF_MOVE_MS_KIND: by kind */
    uint32_t jobs;               /* matches at once (0 only with scale->workers) */
    bool resume, json, quiet;
} arena_tournament_args;

int arena_tournament_run(FILE *out, const arena_tournament_args *a);

#endif /* ARENA_TOURNAMENT_RUN_H */
