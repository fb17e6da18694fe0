/* The database side of `arena ladder`: the standings of a ladder, its
 * export and the import of a file (docs/ratings.md, docs/database.md), as a
 * library so that tests and the server reach it.
 *
 * It comes in two steps (docs/architecture.md, "Errors").
 * arena_ladder_prepare checks and opens what the subcommand needs: the
 * database and the ladder selected in it (show, export), or the file to
 * import, read and checked whole before the database is touched, and the
 * database (import). Nothing is written yet. arena_ladder_run does the
 * work and writes to out. Each step returns JA_OK or the failure's code
 * with one line in err; neither prints an error.
 *
 * Which failures are the user's (exit 2), the others being the run's
 * (exit 1):
 *  - of the preparation, all but JA_EDB (the database failing): a
 *    database that is missing, not a database file, of another
 *    version or unreadable (JA_EIO, JA_EVERSION, JA_EFORMAT, as
 *    arena_db_status judges them), several ladders matching, --anchor
 *    without results, an unknown --game, a file to import that is
 *    malformed;
 *  - of the run of show, JA_EINVAL: a bad --anchor (standings.h);
 *  - of the run of export, none;
 *  - of the run of deals, JA_ENOTFOUND: the ladder has no deal played by
 *    two bots;
 *  - of the run of import, JA_EINVAL and JA_ESTATE (the database refuses the
 *    file's matches, or has them already), the database file's own
 *    (arena_db_status) and, merging another arena database, JA_EMISMATCH
 *    (its tournaments differ from those of the same name here). */
#ifndef ARENA_LADDER_CMD_H
#define ARENA_LADDER_CMD_H

#include "jackarena/ja_rules.h"
#include "interop.h"
#include "ladder_db.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum arena_ladder_what {
    ARENA_LADDER_SHOW,           /* `arena ladder GAME` */
    ARENA_LADDER_EXPORT,         /* `arena ladder export GAME` */
    ARENA_LADDER_IMPORT,         /* `arena ladder import FILE` */
    ARENA_LADDER_DEALS           /* `arena ladder deals GAME --top N -o FILE` */
} arena_ladder_what;

/* What to do, as the parser checked it (cmd_ladder.c shows how); it
 * outlives the steps. */
typedef struct arena_ladder_args {
    arena_ladder_what what;
    const char *db_path;         /* the database (--db) */
    /* show, export: the ladder of game asked for by the --opt settings
     * `given` and --seats want_seats (0: any) */
    const ja_game_rules *game;
    ja_options given;
    uint32_t want_seats;
    bool fit;                    /* show: the official ratings, not the live Elo */
    const char *anchor;          /* show with fit: BOT[=ELO], or NULL */
    const char *model;           /* show with fit: a ladder_fit_model_name, or
                                    NULL for LADDER_FIT_DEFAULT_MODEL */
    bool adjusted;               /* show with fit: the luck-adjusted fit beside it */
    bool cross_validate;         /* show: the models' cross-validation instead */
    uint32_t folds;              /* with cross_validate: 0 for the default */
    bool pgn;                    /* export: PGN, not JSON Lines */
    const char *out_path;        /* export, deals: written whole at the end; NULL or "-": out */
    uint32_t top;                /* deals: how many (the best separating first) */
    const char *path;            /* import: PGN, JSON Lines, or another arena database */
    const char *import_game;     /* import: the game of PGN games without a [Game] tag, or NULL */
    bool json;                   /* show, import: one JSON document */
} arena_ladder_args;

/* What arena_ladder_prepare opened and found, the run's to use and
 * arena_ladder_close's to release. */
typedef struct arena_ladder {
    const arena_ladder_args *a;
    ladder_db *db;               /* NULL until open; a merge opens its own */
    uint32_t seats;              /* show, export: the ladder selected ... */
    char opts[LADDER_OPTIONS_MAX];
    bool found;                  /* ... and whether it has results */
    bool merge;                  /* import: the file is another arena database */
    ladder_import_set *set;      /* import: the file read */
} arena_ladder;

/* The ladder, the database or the file: see above. Whatever it returns, l
 * is then closed with arena_ladder_close. */
int arena_ladder_prepare(arena_ladder *l, const arena_ladder_args *a, char *err, size_t cap);

/* show: the live table (standings.h) or, with fit, the official ratings of
 * the ladder; deals: the ladder's deals that separated its bots most as a
 * deal set (deals.h), and one line on stderr saying how many; export: every match of the ladder as PGN or JSON Lines, a
 * failed export leaving no file; import: the file's matches (or, another
 * arena database, merged: docs/scale.md) into the database, and the report
 * (text or JSON). */
int arena_ladder_run(arena_ladder *l, FILE *out, char *err, size_t cap);

/* Closes the database and frees what is left. */
void arena_ladder_close(arena_ladder *l);

#endif /* ARENA_LADDER_CMD_H */
