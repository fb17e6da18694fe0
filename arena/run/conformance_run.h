/* Conformance of an external bot: drives it through the protocol and
 * reports what it got wrong (`arena conformance`, docs/protocol.md,
 * "Conformance").
 *
 * Checks, in order:
 *  1. hello: the bot connects and says hello (protocol 1, a name) in time;
 *  2. ping: it answers a ping with a pong;
 *  3. robustness: an unknown message type and an `error` message do not
 *     upset it (it still pongs afterwards);
 *  4. each game it plays (every game of this build, or only one): matches
 *     against the `random` reference bot at every seat position, as many at
 *     once as its capacity (at most 8), with keys no client knows in every
 *     start and act: every decision answered in time, with the right match
 *     and turn and an index in range; no `error` sent to it;
 *  5. bye: on the referee's bye it leaves (a cmd: process exits).
 * The hub's error counters (what it had to tell the bot) back every verdict. */
#ifndef ARENA_CONFORMANCE_H
#define ARENA_CONFORMANCE_H

#include "run/botspec.h"

#include <stdint.h>
#include <stdio.h>

/* --rounds at most: matches per seat position and game. */
#define CONFORMANCE_MAX_ROUNDS 10000u

/* A conformance run. bots->b[0] is an external bot added but not loaded,
 * bots->b[1] the `random` bot; bots->ext's wire flags must include
 * REF_WIRE_PROBE. */
typedef struct arena_conformance_args {
    arena_bots *bots;
    const ja_game_rules *only;   /* one game, or NULL for every game the bot's hello lists */
    uint32_t rounds;             /* matches per seat position; 0: enough to fill its capacity */
    uint32_t move_ms;            /* of the matches */
    uint64_t seed;
    /* The line of a bot that does not load (botspec.h), for the caller to
     * print when it comes, before the check that fails on it. NULL: not
     * said. */
    void (*on_error)(const char *line);
} arena_conformance_args;

/* Runs the checks: prints one line per check and the verdict to out; loads
 * and frees the bots. A bot that does not load is a check that fails, not
 * an error of the call. Returns JA_OK when the bot conforms, JA_EBOT when
 * it does not. */
int arena_conformance_run(const arena_conformance_args *a, FILE *out);

#endif /* ARENA_CONFORMANCE_H */
