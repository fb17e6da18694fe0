/* The database side of `arena ladder`: the standings of a ladder, its
 * export and the import of a file (docs/ratings.md, docs/database.md).
 *
 * Every function prints its errors as one line (util.h) and returns an exit
 * status: EXIT_OK; EXIT_USAGE for bad input (a missing or unusable
 * database, several ladders matching, a malformed import file); EXIT_RUNTIME
 * for a failure during the run. Nothing is written on a usage error. */
#ifndef ARENA_LADDER_CMD_H
#define ARENA_LADDER_CMD_H

#include "jackarena/ja_rules.h"
#include "ladder_db.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Opens the database at path into *db. With must_exist, a missing file is
 * a usage error; so is a path that is there and not a regular file
 * (arena_db_check). */
int arena_ladder_open(const char *path, bool must_exist, ladder_db **db);

/* The ladder of g asked for by the --opt settings `given` and --seats
 * want_seats (0: any): its seat count and option text into *seats and opts.
 * *found is false when no ladder has results yet (seats and opts then
 * describe the one asked for, as far as known). Several ladders matching
 * is a usage error. */
int arena_ladder_select(ladder_db *db, const ja_game_rules *g, const ja_options *given,
                        uint32_t want_seats, uint32_t *seats, char opts[LADDER_OPTIONS_MAX],
                        bool *found);

/* `arena ladder GAME`: the live table, or with fit the official ratings
 * (anchor: BOT[=ELO] or NULL), of the ladder selected from the database at
 * db_path, to out (standings.h). */
int arena_ladder_show(FILE *out, const char *db_path, const ja_game_rules *g,
                      const ja_options *given, uint32_t want_seats, bool fit, const char *anchor,
                      bool json);

/* `arena ladder export`: every match of the selected ladder as PGN (pgn)
 * or JSON Lines, to out_path written whole at the end (NULL or "-": out).
 * A failed export leaves no file. */
int arena_ladder_export(FILE *out, const char *db_path, const ja_game_rules *g,
                        const ja_options *given, uint32_t want_seats, bool pgn,
                        const char *out_path);

/* `arena ladder import`: the file at path (PGN or JSON Lines, read and
 * checked whole before the database is touched; game: the game of PGN games
 * without a [Game] tag, or NULL), or another arena database (merged,
 * docs/scale.md), into the database at db_path; the report (text or JSON)
 * to out. */
int arena_ladder_import(FILE *out, const char *path, const char *game, const char *db_path,
                        bool json);

#endif /* ARENA_LADDER_CMD_H */
