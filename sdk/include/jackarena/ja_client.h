/* The C client library for external bots (libja_client): a bot in its own
 * process that plays over ZeroMQ and msgpack (docs/protocol.md).
 *
 * A bot is written exactly like a plugin, as a ja_bot_desc (ja_bot.h): the
 * client connects, says hello, and for every match the referee starts it
 * creates an instance (desc->create), calls desc->act for each decision with
 * a ja_decision whose observation is the game's C struct (decoded from the
 * wire by the game's field table) and whose legal list holds the action
 * codes, and calls desc->end and desc->destroy when the match ends. So the
 * same source can be built as a plugin (JA_BOT_DECLARE) and as an external
 * bot (ja_client_main), and sdk/examples/example_bot.c is both.
 *
 * Many matches at once: the client announces `capacity` and keeps one
 * instance per running match; messages of all matches arrive on one socket
 * and act() is called for each in turn, from the thread that called
 * ja_client_run. A game this build of the library does not know is still
 * played: d->obs is then NULL (obs_size 0) and the bot must choose from the
 * legal list alone.
 *
 * Host services for the bot: log() writes to stderr; rng_next() is the
 * instance's own stream, seeded from the `seed` of the match's start
 * message: the same numbers a plugin's rng_next() gives at that seat, so a
 * bot plays the same match in-process, hosted and as an external process
 * (a referee that sends no seed: from the config's seed, the match id and
 * the seat); time_left_ms() counts down from the act's deadline_ms as
 * received; rules() is the forward model; params() the bot's parameters.
 *
 * Errors: functions return JA_OK or a negative JA_E* code; ja_client_errmsg
 * says why in one line. Ownership: ja_client_new copies what it needs from
 * the config; desc must outlive the client. Threading: one thread per
 * client. Only <stdint.h>, <stddef.h> and <stdbool.h> are included (through
 * ja_common.h), never zmq.h or msgpack.h. */
#ifndef JA_CLIENT_H
#define JA_CLIENT_H

#include "ja_common.h"
#include "ja_bot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ja_client ja_client;

typedef struct ja_client_config {
    uint32_t struct_size;   /* sizeof(ja_client_config) */
    const char *endpoint;   /* NULL: $JACKARENA_ENDPOINT */
    const char *name;       /* hello name; NULL: $JACKARENA_NAME, else the descriptor's */
    const char *version;    /* NULL: the descriptor's version */
    const char *token;      /* NULL: $JACKARENA_TOKEN, else none */
    uint32_t capacity;      /* matches at once; 0: 1 */
    /* CurveZMQ: the arena's public key (Z85). NULL: $JACKARENA_SERVER_KEY;
     * none = plain (ipc, or tcp the arena allows in plain). */
    const char *server_key;
    /* This client's key pair (Z85). NULL: $JACKARENA_PUBLIC_KEY and
     * $JACKARENA_SECRET_KEY, else a fresh pair (fine unless the arena keeps
     * an allow-list). */
    const char *public_key, *secret_key;
    uint64_t seed;          /* root of the instances' random streams when the
                             * referee sends none (start.seed) */
    int verbose;            /* 1: log every error message of the referee to stderr */
    /* Appended (bot ABI 1.2; read only when struct_size covers it): the
     * bot's parameters, "k=v:k=v" (ja_params.h). NULL: $JACKARENA_PARAMS,
     * else none. A match whose `start` carries non-empty `params` plays
     * with those instead. */
    const char *params;
} ja_client_config;

/* Fills cfg with defaults (everything from the environment). */
JA_API void ja_client_config_init(ja_client_config *cfg);

/* A client for bot desc. JA_OK with *out owned by the caller
 * (ja_client_destroy); JA_EINVAL (a bad config or descriptor, or
 * parameters the bot's check_params refuses), JA_ENOMEM. On failure *out
 * is NULL and nothing is connected. A config built before `params` was
 * appended (a smaller struct_size) is read without it. */
JA_API int ja_client_new(const ja_client_config *cfg, const ja_bot_desc *desc, ja_client **out);

/* Connects, says hello, plays every match the referee starts until the
 * referee says bye. JA_OK after bye; JA_EIO (connection trouble, no welcome
 * within 30 s), JA_EVERSION (the referee refused the protocol), JA_EBOT (the
 * referee refused the hello) otherwise, with ja_client_errmsg. */
JA_API int ja_client_run(ja_client *c);

/* One line describing the last failure. Borrowed until the next call. */
JA_API const char *ja_client_errmsg(const ja_client *c);

/* Matches played to their end so far. */
JA_API uint32_t ja_client_matches(const ja_client *c);

/* Disconnects and frees (NULL allowed); nulls the pointer. */
JA_API void ja_client_destroy(ja_client **c);

/* A whole main(): options --endpoint E, --name N, --capacity K, --seed S,
 * --server-key Z85, --params TEXT, --verbose (the environment otherwise),
 * then run. The parameters (--params, else $JACKARENA_PARAMS) are checked
 * by the bot (check_params) before anything is connected: refused, it
 * prints "NAME: REASON" on stderr and returns 2 (the protocol's contract,
 * docs/protocol.md: the arena reports that line). Returns the process exit
 * status: 0 after bye, 1 on failure (one line on stderr), 2 for a bad
 * option or refused parameters. */
JA_API int ja_client_main(const ja_bot_desc *desc, int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif /* JA_CLIENT_H */
