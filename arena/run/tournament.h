/* Playing a stored tournament: every pending match of its plan goes through
 * an executor, and every result is recorded in the ladder database as soon
 * as it arrives (one transaction each, idempotent), so a run stopped at any
 * point loses nothing and a later run finishes the plan. */
#ifndef ARENA_TOURNAMENT_H
#define ARENA_TOURNAMENT_H

#include "run/executor.h"
#include "ladder_db.h"

#include <signal.h>

/* Called after each recorded match with the matches done and planned. */
typedef void (*arena_progress_fn)(void *ctx, uint32_t done, uint32_t total);

/* Plays the pending matches of tournament tid through x. When *stop (may be
 * NULL) becomes non-zero, no new match starts; the matches in flight are
 * still collected and recorded. Returns JA_OK (all played, or stopped), or
 * an error with a one-line message in err: a match that could not be played
 * (a bot refused its seat, a replay could not be written) or a result that
 * could not be recorded; the matches recorded before stay recorded. With
 * x->export, each recorded match's decisions are appended to it here,
 * in this thread, one whole match at a time (in the order matches finish). */
int arena_tournament_play(ladder_db *db, int64_t tid, arena_executor *x,
                          volatile sig_atomic_t *stop, arena_progress_fn progress, void *ctx,
                          char *err, size_t cap);

/* The same for one shard of the plan (--shard I/N, docs/scale.md): only the
 * pending matches whose number (counted from 0) has number % shard_n ==
 * shard_i - 1.
 * shard_n 0: every pending match. */
int arena_tournament_play_part(ladder_db *db, int64_t tid, arena_executor *x, uint32_t shard_i,
                               uint32_t shard_n, volatile sig_atomic_t *stop,
                               arena_progress_fn progress, void *ctx, char *err, size_t cap);

#endif /* ARENA_TOURNAMENT_H */
