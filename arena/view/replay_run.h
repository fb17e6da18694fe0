/* The replay commands: what `arena replay verify|show|html` do once their
 * flags are parsed, as a library so that tests reach them
 * (docs/replay-format.md, docs/viewer.md).
 *
 * Each comes in two steps (docs/architecture.md, "Errors"). Its prepare
 * step opens the replay (show and html also re-simulate it into its model):
 * its failures are the user's, nothing written yet. Its run step does the
 * work. Each step returns JA_OK or the failure's code with its line in the
 * caller's err; the line is "" when there is nothing to add (verify --json
 * says why in its object; a stream that failed). Whatever a prepare step
 * returns, the replay is then closed with arena_replay_close. */
#ifndef ARENA_REPLAY_CMD_H
#define ARENA_REPLAY_CMD_H

#include "view/viewer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A replay opened by a prepare step, for the run step of the same command. */
typedef struct arena_replay {
    const char *path;  /* the file, as given */
    ref_replay *r;     /* the replay loaded; NULL before */
    viewer_model m;    /* show, html: its model (viewer.h) */
    int seat;          /* show: the seat whose view is drawn, VIEWER_ALL or VIEWER_PUBLIC */
} arena_replay;

/* verify: loads the replay at path. JA_OK, or ref_replay_load's code (a
 * file missing or not a readable replay). */
int arena_replay_verify_prepare(arena_replay *c, const char *path, char *err, size_t cap);

/* Re-simulates the replay under its game's rules and writes to out
 * "ok: GAME, K seats, seed N, D decisions" and the digest of its game
 * content, or with json one JSON object and a newline (ok, game,
 * decisions, move_ms, bank_ms, on_fault, digest or null and error), the
 * object also when it does not verify. JA_OK, or ref_replay_verify's code
 * with "replay 'PATH' does not verify: WHY" in err ("" with json). */
int arena_replay_verify_run(arena_replay *c, FILE *out, bool json, char *err, size_t cap);

/* show: opens the replay at path and its model, and checks the seat whose
 * view is drawn (have_seat; public_view: the public view, which the caller
 * does not ask together with a seat; otherwise every seat's cards). JA_OK,
 * a code of viewer_load or viewer_resimulate (viewer.h), JA_ERANGE for a
 * seat the match does not have, or JA_EUNSUPPORTED for a public view of a
 * game that offers none. */
int arena_replay_show_prepare(arena_replay *c, const char *path, bool have_seat, uint32_t seat,
                              bool public_view, char *err, size_t cap);

/* Draws the match as text to out. When out is stdout and both stdin and
 * stdout are terminals, keys step through it (the terminal is put back on
 * return and on SIGINT, SIGTERM, SIGHUP and SIGQUIT); otherwise the whole
 * match is written. JA_OK, or JA_EIO when out cannot be written (no line:
 * the stream's failure is all there is to say). */
int arena_replay_show_run(arena_replay *c, FILE *out, char *err, size_t cap);

/* html: opens the replay at path and its model. JA_OK, or a code of
 * viewer_load or viewer_resimulate (viewer.h). */
int arena_replay_html_prepare(arena_replay *c, const char *path, char *err, size_t cap);

/* Writes the self-contained HTML page of the replay to out_path ("-":
 * stdout; otherwise replaced whole at the end). JA_OK, or the code of
 * viewer_html_replay (viewer.h): an output that cannot be written. */
int arena_replay_html_run(arena_replay *c, const char *out_path, char *err, size_t cap);

/* Frees what a prepare step opened. */
void arena_replay_close(arena_replay *c);

#endif /* ARENA_REPLAY_CMD_H */
