/* The replay commands: what `arena replay verify|show|html` do once their
 * flags are parsed, as a library so that tests reach them
 * (docs/replay-format.md, docs/viewer.md).
 *
 * Each prints its errors as one line (util.h) and returns an exit status. */
#ifndef ARENA_REPLAY_CMD_H
#define ARENA_REPLAY_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Re-simulates the replay at path under its game's rules and writes to out
 * "ok: GAME, K seats, seed N, D decisions" and the digest of its game
 * content, or with json one JSON object and a newline (ok, game,
 * decisions, move_ms, bank_ms, on_fault, digest or null and error).
 * Returns EXIT_OK when it verifies, EXIT_RUNTIME when it does not (an
 * error line too, unless json), EXIT_USAGE when the file is missing or not
 * a readable replay. */
int arena_replay_verify(FILE *out, const char *path, bool json);

/* Draws the match of the replay at path as text to out: every seat's cards,
 * or with have_seat only what seat saw. When out is stdout and both stdin
 * and stdout are terminals, keys step through it (the terminal is put back
 * on return and on SIGINT, SIGTERM, SIGHUP and SIGQUIT); otherwise the
 * whole match is written. Returns EXIT_USAGE for a replay that does not
 * open or re-simulate, or a seat out of range; EXIT_RUNTIME when out
 * cannot be written. */
int arena_replay_show(FILE *out, const char *path, bool have_seat, uint32_t seat);

/* Writes the self-contained HTML page of the replay at path to out_path
 * ("-": stdout; otherwise replaced whole at the end). Returns EXIT_USAGE
 * for a replay that does not open or an output that cannot be written. */
int arena_replay_html(const char *path, const char *out_path);

#endif /* ARENA_REPLAY_CMD_H */
