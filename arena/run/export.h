/* Training data for learning bots: `--export-decisions FILE` on `play` and
 * `tournament` (docs/training-data.md).
 *
 * Two parts. An arena_export_match collects one match's decision records
 * while the match runs (its step function is a ref_step_fn) and, when the
 * match has ended, turns them into one self-contained msgpack chunk: the
 * match's header map and one map per decision, each carrying the final
 * outcome of its seat. An arena_export is the file: chunks are appended
 * whole to a temporary file beside FILE (outfile.h), which is renamed to
 * FILE when the command finishes; "-" is the standard output, where chunks
 * appear as they are appended.
 *
 * Threading: a match's collector is used by the thread that plays the match
 * only; the file is written by one thread (the tournament loop or `play`).
 * So with --jobs each job buffers its own match and the single-threaded
 * loop that records results appends the chunks: a match's records are never
 * interleaved with another's. */
#ifndef ARENA_EXPORT_H
#define ARENA_EXPORT_H

#include "match.h"

#include <stddef.h>
#include <stdint.h>

/* The format version written in every header (docs/training-data.md). */
#define ARENA_EXPORT_VERSION 1

typedef struct arena_export arena_export;
typedef struct arena_export_match arena_export_match;

/* Creates the temporary file for path (path itself is untouched until
 * finish; "-": the standard output). JA_OK, or JA_EIO with a one-line
 * message (path is there and not a regular file, the directory does not
 * exist or is not writable). */
int arena_export_open(const char *path, arena_export **out, char *err, size_t cap);
/* Appends one match's chunk. JA_OK or JA_EIO. */
int arena_export_append(arena_export *x, const void *data, size_t len);
/* Flushes, syncs and puts the file in place. *x is NULL afterwards.
 * JA_OK, or JA_EIO with a message (the temporary file is then removed). */
int arena_export_finish(arena_export **x, char *err, size_t cap);
/* Removes the temporary file (nothing written). NULL-safe. */
void arena_export_abort(arena_export **x);

/* A collector for one match: its config (borrowed for the match), its
 * number in the tournament (0 for `play`) and the seats' display names
 * (copied). */
arena_export_match *arena_export_match_new(const ref_match_config *cfg, uint32_t number,
                                           const char *const *names);
/* The ref_step_fn to give the match (ctx: the collector). */
void arena_export_match_step(void *ctx, const ja_game_rules *g, const ref_step_info *info);
/* The match ended with res: builds its chunk into a malloc'ed buffer that
 * the caller owns (*data, *len). JA_OK, or JA_ENOMEM when msgpack-c's
 * buffer could not grow (here or in a step). */
int arena_export_match_end(arena_export_match *m, const ref_match_result *res, void **data,
                           size_t *len);
/* NULL-safe. */
void arena_export_match_free(arena_export_match *m);

#endif /* ARENA_EXPORT_H */
