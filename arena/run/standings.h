/* Standings of a ladder: what `arena ladder GAME [--fit]` prints, as a
 * library so that tests and other commands reach it (docs/ratings.md).
 *
 * Both functions write to out (text, or one JSON object and a newline with
 * json) and return JA_OK, or the code of a failure with its line in err
 * (docs/architecture.md, "Errors"), out then untouched: JA_EINVAL for a bad
 * --anchor (the user's), another code for the database or the fit
 * failing (JA_EDB for the database's own). */
#ifndef ARENA_STANDINGS_H
#define ARENA_STANDINGS_H

#include "fit.h"
#include "core/json_w.h"
#include "jackarena/ja_rules.h"
#include "ladder_db.h"
#include "names.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The live Elo table of the ladder (g, seats, opts) of db: every rated bot
 * with its games, Elo, pairwise wins-draws-losses and faults by kind. found
 * false: the ladder has no results ("no results yet" as text, an empty
 * ratings array as JSON). */
int arena_standings_live(FILE *out, ladder_db *db, const ja_game_rules *g, uint32_t seats,
                         const char *opts, bool found, bool json, char *err, size_t cap);

/* The official ratings of the ladder (g, seats, opts) of db: the
 * Bradley-Terry or Plackett-Luce fit (fit.h, model) of every match, with 95%
 * intervals clustered by deal, one table per group, each strongly connected part rated on its own.
 * anchor (NULL: none): BOT or BOT=ELO, BOT any name the table prints
 * (ladders/names.h); the bot's part is fixed to ELO (default: the mean).
 * adjusted: the same fit on luck-adjusted results follows (Bradley-Terry
 * only; view/adjust_ladder.h), from the matches' replays (those without one,
 * or whose replay fails, keep their raw result and are counted); JA_EINVAL
 * when no match could be adjusted. */
int arena_standings_fit(FILE *out, ladder_db *db, const ja_game_rules *g, uint32_t seats,
                        const char *opts, const char *anchor, ladder_fit_model model,
                        bool adjusted, bool json, char *err, size_t cap);

/* The cross-validation of the rating models on the ladder (fit_cv.h):
 * held-out log-loss of finishing orders and of pairs, and top-1, for each
 * model and for equal ratings, with `folds` folds by deal (0: the
 * default). JA_EINVAL (the user's) when the ladder has fewer than 2
 * deals. */
int arena_standings_cv(FILE *out, ladder_db *db, const ja_game_rules *g, uint32_t seats,
                       const char *opts, uint32_t folds, bool json, char *err, size_t cap);

/* The bots with results in a ladder (by id) and their display names into
 * *bots, *names (both owned: free()) and *n. JA_OK, or JA_EDB (the
 * database) with the line in err. */
int arena_ladder_names(ladder_db *db, const ladder_key *key, ladder_bot_row **bots,
                       ladder_display_name **names, uint32_t *n, char *err, size_t cap);

/* Appends row's match to the fit's matches *m (*n of *cap, grown by
 * doubling), seat s played by player[s]. */
void arena_fit_add(ladder_fit_match **m, size_t *n, size_t *cap, const ladder_match_row *row,
                   const uint32_t *player);

/* The option text "k=v k=v" as a JSON object member "options". */
void arena_jw_options(json_w *w, const char *text);

#endif /* ARENA_STANDINGS_H */
