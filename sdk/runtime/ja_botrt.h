/* One bot runtime: the bot's side of a seat, whatever carries the messages.
 *
 * Three places run a bot plugin's descriptor (ja_bot.h): the in-process
 * `plugin` seat (referee/seat_plugin.c), the sandboxed child of a `hosted`
 * seat (referee/host/ja_host.c) and the C client library of external bots
 * (sdk/client/ja_client.c). All three drive the bot through this module, so
 * the bot sees the same host services (log, its own random stream, the time
 * left, the forward model, its parameters), the same create/act/end/destroy
 * sequence and the same decisions wherever it runs; only the transport and
 * where log lines go differ (the owner's log callback).
 *
 * Life of a runtime: ja_botrt_init once, then per match ja_botrt_start
 * (creates the instance), ja_botrt_act per decision, ja_botrt_end (end() and
 * destroy()), and ja_botrt_free (frees the decoding buffers; destroys the
 * instance if the match never ended). A runtime serves one match at a time
 * and is used by one thread.
 *
 * Decoding (client and child): ja_botrt_decode_act turns an `act` message
 * (docs/protocol.md) into a ja_decision over the runtime's own buffers, by
 * the game's field table; ja_botrt_decode_outcome an `end` message into a
 * ja_outcome. Both check every value's type and range before use.
 *
 * Internal to the project (not installed): its symbols carry the ja_
 * prefix because the client library, which is installed, contains it. */
#ifndef JA_BOTRT_H
#define JA_BOTRT_H

#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_params.h"
#include "jackarena/ja_rng.h"
#include "ja_declog.h"

#include <msgpack.h>

/* Where the bot's log() lines go: the owner decides (a ring for the plugin
 * seat, a bounded stderr for the child, stderr for the client). Each line
 * also goes into the runtime's decision log when it has one (declog). */
typedef void (*ja_botrt_log_fn)(void *ctx, int level, const char *msg);

/* Bytes of a bot's parameters, NUL included (ja_host_api.params). */
#define JA_BOTRT_PARAMS_MAX JA_PARAMS_MAX

typedef struct ja_botrt {
    const ja_bot_desc *desc;
    ja_botrt_log_fn log;
    void *log_ctx;
    /* The log of the decision to come (ja_declog.h), set by an owner that
     * keeps one; NULL (ja_botrt_init): none. Every line the bot logs goes
     * in, whatever its level, until the owner takes it: the lines of
     * create() and of act() for a decision (docs/replay-format.md). */
    ja_declog *declog;
    /* The match being played (set by ja_botrt_start). */
    const ja_game_rules *g;   /* NULL: a game this build does not know (client) */
    char game[64];
    int32_t seat;
    uint32_t n_seats;
    void *bot;                /* the instance; NULL when create() failed */
    ja_rng rng;               /* the instance's own stream (rng_next) */
    char params[JA_BOTRT_PARAMS_MAX];
    /* The decision being answered: time_left_ms counts from asked_ns. */
    uint32_t deadline_ms;
    int64_t asked_ns;
    /* Its observation, what ja_host_api.observe gives during act() (NULL
     * outside it): d->obs, or, when that is NULL, what obs_source gives at
     * the bot's first call (kept for the act's later calls). */
    const void *act_obs;
    bool acting;
    /* Where a decision handed without its observation gets it (ABI 1.3,
     * JA_BOT_OBS_ON_DEMAND): set by an owner that hands such decisions
     * (the in-process seat, whose match builds the observation then);
     * NULL: none (observe() gives d->obs alone). Kept by ja_botrt_start. */
    const void *(*obs_source)(void *ctx);
    void *obs_source_ctx;
    /* Decoding buffers (ja_botrt_start with buffers = true). */
    bool compact;             /* ja_botrt_decode_act takes the compact act
                               * too (ja_host; the C client, which asks for it) */
    void *obs;
    ja_action *legal;
    uint32_t cap_legal;
} ja_botrt;

/* The host services every bot gets, with hctx = the runtime. */
extern const ja_host_api ja_botrt_host_api;

/* Clears rt for bot desc (borrowed; must outlive rt); log may be NULL. */
void ja_botrt_init(ja_botrt *rt, const ja_bot_desc *desc, ja_botrt_log_fn log, void *log_ctx);

/* Checks parameters params (NULL = none) for bot desc before anything of
 * the bot runs: JA_OK, or JA_EINVAL with one line in err: "parameters too
 * long (at most N bytes)", or the bot's own reason from check_params (ABI
 * 1.2), cut to one printable line ("the bot refused them" when it gave
 * none). A descriptor without check_params accepts any parameters. Runs the
 * bot's code: call it where the bot may run (in-process, the sandboxed
 * child after its filters, the client). */
int ja_botrt_check_params(const ja_bot_desc *desc, const char *params, char *err, size_t cap);

/* Starts a match: one instance for seat of n_seats in game (a name the
 * build may not know: then g is NULL and decisions carry no observation).
 * rng_seed seeds the instance's stream; params (NULL = none) is copied and
 * must pass ja_botrt_check_params (else the reason goes to the log at
 * JA_LOG_ERROR and no instance is created). buffers: allocate what
 * ja_botrt_decode_act needs. Returns create()'s result: JA_OK, or its error
 * with rt->bot NULL (the match goes on, every decision an error); JA_ENOMEM,
 * JA_EINVAL (parameters refused) likewise. A previous match's instance is destroyed first. */
int ja_botrt_start(ja_botrt *rt, const char *game, int32_t seat, uint32_t n_seats,
                   uint64_t rng_seed, const char *params, bool buffers);

/* Asks the instance decision d, asked at asked_ns (CLOCK_MONOTONIC: what
 * time_left_ms counts from). d->obs may be NULL only for a bot with
 * JA_BOT_OBS_ON_DEMAND whose owner set obs_source. JA_OK with *index as
 * act() wrote it (the caller judges its range), act()'s own error, or
 * JA_EBOT when there is no instance. */
static inline int ja_botrt_act(ja_botrt *rt, const ja_decision *d, int64_t asked_ns,
                               uint32_t *index)
{
    if (!rt->bot)
        return JA_EBOT;
    rt->deadline_ms = d->deadline_ms;
    rt->asked_ns = asked_ns;
    rt->act_obs = d->obs;
    rt->acting = true;
    int rc = rt->desc->act(rt->bot, d, index);
    rt->acting = false;
    rt->act_obs = NULL;
    return rc;
}

/* An `act` message's turn, deadline, legal list and observation into *d,
 * over rt's buffers (valid until the next call). JA_OK, or JA_EFORMAT with
 * a one-line reason: a key missing or of the wrong type, more legal
 * actions than the game has, a field that does not fit its C type. Reads
 * the protocol's "obs" and "legal", or, when rt->compact (the hosted child;
 * never the client, which speaks the protocol alone), the hosted channel's
 * compact "x_obs_bin" and "x_legal_bin" (referee/wire.h, REF_WIRE_BIN) into
 * the same decision. */
int ja_botrt_decode_act(ja_botrt *rt, const msgpack_object *msg, ja_decision *d, char *why,
                        size_t cap);

/* An `end` message's scores and places into *out (zeroed first; what is
 * missing or out of range stays zero). */
void ja_botrt_decode_outcome(const msgpack_object *msg, ja_outcome *out);

/* The match is over: end() (when the bot has it) with o, then destroy(). */
void ja_botrt_end(ja_botrt *rt, const ja_outcome *o);

/* Destroys an instance still alive (a match that never ended) and frees the
 * buffers. rt may be started again. */
void ja_botrt_free(ja_botrt *rt);

/* Writes a whole `action` message answering turn of match: the index act()
 * wrote when rc is JA_OK (its range is the referee's to judge: out of it is
 * `illegal`), else `error` in place of the index ("act() returned JA_EINVAL
 * (invalid argument)"), the protocol's "could not choose", charged as an
 * `error` fault, and `code`, rc itself, which the fault then carries; and
 * the decision's log as `log` when log is not NULL and not empty. */
void ja_botrt_pack_action(msgpack_packer *pk, const char *match, uint64_t turn, int rc,
                          uint32_t index, const ja_declog *log);

/* Writes the hello's "games" key and value: the games of this build the
 * bot plays (supports(), every game without it). An empty list would mean
 * "every game" on the wire, so a bot that plays none of them gets [""]. */
void ja_botrt_pack_games(msgpack_packer *pk, const ja_bot_desc *desc);

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t ja_botrt_now_ns(void);

#endif /* JA_BOTRT_H */
