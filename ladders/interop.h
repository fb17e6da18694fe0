/* Results in the field's formats: PGN (two-player results, which Ordo and
 * BayesElo read) and the project's JSON Lines (whole matches, any number
 * of seats). docs/ratings.md specifies both mappings.
 *
 * Readers turn a whole file into a ladder_import (ladder_db.h) ready for
 * ladder_db_import, validating everything first: a malformed file is
 * refused with one line "FILE:LINE: reason" and nothing is built. The
 * ladders library knows no game rules, so the reader asks a resolver
 * (supplied by the caller) to check a game and its options and to give
 * their canonical ladder form. JSON is parsed by Jansson (the Debian
 * libjansson package); PGN, for which no such library exists in C, by the
 * small reader here, after the PGN standard (S. J. Edwards, "Portable Game
 * Notation Specification and Implementation Guide", 1994: tag pairs,
 * movetext, comments, recursive variations and game termination markers).
 *
 * Writers print one match at a time: PGN as one game per pair of seats
 * (the pairwise decomposition the ratings use), JSON Lines as one line per
 * match. Both are deterministic for the same input.
 *
 * Threading: no globals; one set per thread. */
#ifndef JA_LADDER_INTEROP_H
#define JA_LADDER_INTEROP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ladder_db.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks a game and its options as a file gives them and writes their
 * canonical ladder form: the game's name into game_out and the full option
 * text ("k=v k=v" with defaults for n_seats filled in) into options_out.
 * opts holds n_opts "key=value" strings. Returns JA_OK, or JA_EINVAL with
 * a one-line reason in err (unknown game, unknown option or value, a seat
 * count the game does not allow). */
typedef int (*ladder_resolve_fn)(void *ctx, const char *game, const char *const *opts,
                                 uint32_t n_opts, uint32_t n_seats,
                                 char game_out[LADDER_NAME_MAX],
                                 char options_out[LADDER_OPTIONS_MAX], char *err, size_t cap);

typedef struct ladder_reader_opts {
    /* The game of results that do not name one (`--game`). A result that
     * names another game is an error. NULL: every result must name its game. */
    const char *game;
    ladder_resolve_fn resolve; /* required */
    void *ctx;
} ladder_reader_opts;

/* A file's results, read. Owned: ladder_import_set_free. `imp` points into
 * the set's own storage and is ready for ladder_db_import. */
typedef struct ladder_import_set ladder_import_set;

/* Reads the file at path: PGN when its first non-blank byte is '[' (or
 * the name ends in .pgn), JSON Lines when it is '{' (or the name ends in
 * .jsonl or .ndjson). Returns JA_OK with *out; JA_EIO (err: the file and
 * the system's reason) when it cannot be read; JA_EFORMAT for a malformed
 * or empty file and JA_EINVAL for a result the resolver refused, with
 * "PATH:LINE: reason" in err. (The readers allocate through ja_xalloc.h:
 * out of memory ends the process with one line.) */
int ladder_import_read(const char *path, const ladder_reader_opts *o, ladder_import_set **out,
                       char *err, size_t cap);

/* As ladder_import_read, from memory: name stands for the file in
 * messages and in the import record; format is "pgn", "jsonl" or NULL
 * (guess from the content). The sha256 is that of buf. */
int ladder_import_parse(const char *name, const char *format, const char *buf, size_t len,
                        const ladder_reader_opts *o, ladder_import_set **out, char *err,
                        size_t cap);

/* The import, borrowed until ladder_import_set_free. */
const ladder_import *ladder_import_set_get(const ladder_import_set *s);

void ladder_import_set_free(ladder_import_set **p);

/* ---- Writers ------------------------------------------------------------ */

typedef struct ladder_export_seat {
    const char *bot;     /* the name written (unique within the export) */
    const char *version; /* "" or NULL: none */
    const char *sha256;  /* NULL or "": none */
    int64_t score;       /* units of 1/JA_SCORE_UNIT */
    uint8_t place;
} ladder_export_seat;

typedef struct ladder_export_match {
    const char *game;
    const char *options;   /* canonical "k=v k=v" */
    int64_t tournament;    /* the tournament (PGN Round; JSON Lines "tournament"
                              unless tournament_text) */
    const char *tournament_text; /* non-NULL: JSON Lines "tournament" is this
                                    string (an imported source's name) */
    uint32_t number;       /* match number in it */
    bool has_seed;
    uint64_t seed;
    int64_t turns;         /* -1: unknown */
    const char *digest;    /* NULL or "": unknown */
    const char *finished;  /* ISO 8601 time, "" or NULL: unknown (PGN Date) */
    uint32_t n_seats;
    ladder_export_seat seat[JA_MAX_SEATS];
} ladder_export_match;

/* Writes the match as PGN games, one per pair of seats (i < j) held by
 * different bots: White is seat i, Black seat j, the result from their
 * places, no moves. Tags: the seven-tag roster (Event, Site, Date, Round,
 * White, Black, Result), then Game, Options, Seats and Seed (when known),
 * which `ladder import` reads back. Returns JA_OK or JA_EIO. */
int ladder_pgn_write(FILE *f, const ladder_export_match *m);

/* Writes the match as one JSON line: {"game", "options": {k: v},
 * "tournament", "match", "seed" (a decimal string, or null), "seats": [{"bot",
 * "version", "sha256" (when known), "score", "place"}], "turns" (when
 * known), "digest" (when known)}. Returns JA_OK; JA_EINVAL for text that is
 * not valid UTF-8; JA_EIO; JA_ENOMEM when Jansson's own allocation fails. */
int ladder_jsonl_write(FILE *f, const ladder_export_match *m);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_INTEROP_H */
