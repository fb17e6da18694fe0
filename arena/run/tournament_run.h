/* A tournament run: what `arena tournament` does once its flags are parsed
 * and checked, as a library so that tests and other commands reach it
 * (docs/tournament-plan.md).
 *
 * It comes in two steps (docs/architecture.md, "Errors").
 * arena_tournament_prepare loads the bots, makes the replay directory,
 * opens the decision export, takes the database under its lock (db_lock.h)
 * and finds the tournament there again (--seed, --resume) or plans it into
 * it; nothing is written to out yet. arena_tournament_run plays the pending
 * matches through an executor (scale.h), records each result, and writes
 * to out: text (a header before play, the standings after), or one JSON
 * object and a newline with json. Progress goes to stderr unless quiet or
 * json. SIGINT and SIGTERM stop the run after the matches in flight (the
 * handlers are restored after play); the standings are then written and
 * the run fails with JA_EAGAIN (the same command finishes the tournament).
 *
 * Each step returns JA_OK or the failure's code with its line in the
 * caller's err; neither prints an error. A failure to prepare is the
 * user's (exit 2: a bot that does not load, an output or a database file
 * that cannot be used, --resume with nothing to resume) except two that
 * are not: JA_EBUSY, the database is in use by another arena, and JA_EDB,
 * the database failed otherwise (its lock file, an error of SQLite's);
 * those, like any failure of the run, are exit 1. */
#ifndef ARENA_TOURNAMENT_RUN_H
#define ARENA_TOURNAMENT_RUN_H

#include "core/db_lock.h"
#include "run/botspec.h"
#include "run/export.h"
#include "run/extbots.h"
#include "run/scale.h"

#include "jackarena/ja_rules.h"
#include "ladder_db.h"
#include "plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What to play. Every field has been checked by the caller (cmd_tournament.c
 * shows how): the game plays plan.n_seats seats, the bots are named
 * (arena_bots_finish_names) and not yet loaded, plan.n_participants is
 * bots->n, the plan counts (ladder_plan_count), the outputs are checked
 * (arena_outputs_check), ext and scale are checked (arena_scale_check).
 * The args outlive the tournament's steps. */
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
    /* A failure that does not stop the run (a reproduction bundle not
     * written, a bot that cannot be restarted, the export when the play
     * failed too): its line, for the caller to print when it comes. NULL:
     * not said. */
    void (*on_error)(const char *line);
    /* plan.seating was chosen (--seating): only a tournament of that
     * seating is found again. False: plan.seating for a new tournament,
     * and one of either seating is found again (one planned before
     * balanced seating was the default keeps its cyclic plan). */
    bool seating_given;
    /* The curated deal set (--deals FILE, deals.h), plan.deals too; NULL:
     * deals derived from the seed. deals_path names it in the header. */
    const char *deals_path;
} arena_tournament_args;

/* A tournament prepared: what arena_tournament_prepare opened and found,
 * the run's to use and arena_tournament_close's to release. It points into
 * itself: not to be copied. */
typedef struct arena_tournament {
    const arena_tournament_args *a;
    ladder_db *db;                       /* the database, under lock */
    arena_db_lock lock;
    arena_export *xf;                    /* the decision export; NULL: none */
    char opts_text[LADDER_OPTIONS_MAX];  /* the options, as the database keeps them */
    ladder_bot lb[ARENA_MAX_BOTS];       /* the participants, as the database knows them */
    ladder_tournament_spec spec;         /* the tournament, with its seed */
    int64_t tid;                         /* its id in the database */
    bool found;                          /* found again, not planned by this run */
} arena_tournament;

/* Prepares the tournament of a. JA_OK, or the code of the first failure.
 * Whatever it returns, t is then closed with arena_tournament_close. */
int arena_tournament_prepare(arena_tournament *t, const arena_tournament_args *a, char *err,
                             size_t cap);

/* Plays what is pending and writes the standings to out. JA_OK, or the
 * code of the failure (JA_EAGAIN: interrupted by a signal). */
int arena_tournament_run(arena_tournament *t, FILE *out, char *err, size_t cap);

/* Releases what is left open (an unfinished export is removed), the
 * database and its lock, and frees the bots. */
void arena_tournament_close(arena_tournament *t);

#endif /* ARENA_TOURNAMENT_RUN_H */
