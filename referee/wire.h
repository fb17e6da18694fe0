/* The wire protocol, version JA_PROTOCOL (docs/protocol.md): the referee's
 * encoders of every message it sends, and its decoder of the messages bots
 * send.
 *
 * Every message is one ZeroMQ frame holding one msgpack map with a string
 * key "type". The encoders write into a caller-owned msgpack_sbuffer (reset
 * by each call), so a sender reuses one buffer and allocates only while it
 * grows. Observations are written generically from the game's field table
 * (ja_game_rules.obs_fields): no game is named here, so every game in
 * ja_games[] is on the wire the moment its table exists.
 *
 * The decoder takes untrusted bytes: it runs ja_mp_scan (declared sizes and
 * depth checked against the bytes present) before msgpack-c unpacks
 * anything, type-checks every value before reading it, and bounds every
 * string. It never fails on content in a way that loses the match id: a bad
 * `action` still reports which match it named, so the fault lands on the
 * right seat. tests/fuzz/fuzz_wire.c fuzzes it.
 *
 * Threading: every function is reentrant (no global state). */
#ifndef REF_WIRE_H
#define REF_WIRE_H

#include "jackarena/ja_bot.h"
#include "jackarena/ja_rules.h"
#include "ja_declog.h"

#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>

/* Size cap of a message from a bot (ZMQ_MAXMSGSIZE on the referee's socket):
 * the largest legitimate one (a hello with a long token) is far below. */
#define REF_WIRE_MAX_IN (64 * 1024)

/* Bounds of decoded strings, NUL included. Longer is malformed. */
#define REF_WIRE_NAME_MAX 64
#define REF_WIRE_VERSION_MAX 64
#define REF_WIRE_MATCH_MAX 64
#define REF_WIRE_TOKEN_MAX 512
#define REF_WIRE_TYPE_MAX 32
#define REF_WIRE_ERROR_MAX 256 /* an action's "error" text: longer is cut, not refused */
#define REF_WIRE_MAX_GAMES 32
/* The largest capacity a bot may announce (more is clamped to this). */
#define REF_WIRE_MAX_CAPACITY 256

/* Error codes of `error` messages: X(enum suffix, code on the wire, meaning). */
#define REF_WIRE_ERRORS(X)                                                                   \
    X(MALFORMED, "malformed", "not one msgpack map with a string \"type\", or a field "      \
                              "missing or of the wrong type")                              \
    X(NO_HELLO, "no_hello", "a message other than hello before the hello")                  \
    X(PROTOCOL_VERSION, "protocol_version", "the hello asks for a protocol this referee "  \
                                            "does not speak")                              \
    X(NAME_TAKEN, "name_taken", "another live connection holds that name (a second hello "  \
                                "never replaces it)")                                      \
    X(UNAUTHORIZED, "unauthorized", "the hello lacks the credential its name is bound to "  \
                                    "(a cmd: bot's token, a --curve-allow key)")          \
    X(UNKNOWN_TYPE, "unknown_type", "a message type the referee does not know (ignored)")   \
    X(UNEXPECTED, "unexpected", "a known message that makes no sense now (a second hello, " \
                                "an action with nothing asked)")                           \
    X(UNKNOWN_MATCH, "unknown_match", "an action names a match this bot is not playing")    \
    X(STALE_TURN, "stale_turn", "an action whose turn is not the one asked")                \
    X(ILLEGAL_INDEX, "illegal_index", "an index outside the act's legal list")              \
    X(LATE, "late", "the answer came after the deadline; the default action was played")    \
    X(FORFEIT, "forfeit", "past the fault limit: the bot forfeited the match")

typedef enum ref_wire_err {
#define REF__WIRE_ERR_ENUM(e, code, doc) REF_WIRE_ERR_##e,
    REF_WIRE_ERRORS(REF__WIRE_ERR_ENUM)
#undef REF__WIRE_ERR_ENUM
    REF_WIRE_ERR_COUNT
} ref_wire_err;

/* The wire code of e ("stale_turn"). Static storage. */
const char *ref_wire_error_code(ref_wire_err e);

/* ---- Encoders (referee -> bot) -------------------------------------------- */

/* What a `start` message says. Strings borrowed for the call. */
typedef struct ref_wire_start_info {
    const char *match;
    const ja_game_rules *game;
    const ja_options *options;     /* resolved */
    int32_t seat;
    uint32_t n_seats;
    const char *const *players;    /* n_seats display names; NULL: "seat0", "seat1"... */
    uint32_t move_ms;              /* 0 = no deadline */
    const char *params;            /* the bot's parameters; NULL: "" */
    uint64_t seed;                 /* the seat's own stream seed (ref_bot_seed) */
} ref_wire_start_info;

/* What an `end` message says. */
typedef struct ref_wire_end_info {
    const char *match;
    const ja_outcome *outcome;
    const uint32_t *faults;        /* n_seats counts; NULL: all zero */
    const char *replay;            /* replay id or path; NULL or "": none */
} ref_wire_end_info;

/* Flags of the encoders. */
#define REF_WIRE_PROBE 1u /* add a key no client knows ("x_probe"): they must ignore it */
/* The compact act: "x_obs_bin" (the observation's bytes as
 * ja_obs_canonical makes them) and "x_legal_bin" (the legal codes, uint32
 * little-endian) in place of "obs" and "legal"; ja_botrt_decode_act reads
 * either form into the same ja_decision. The hosted channel always uses
 * it (seat_hosted.c to its own ja_host); an external bot only when its
 * hello asked for it ("x_bin", docs/protocol.md: the C client does).
 * Not with REF_WIRE_PROBE. */
#define REF_WIRE_BIN 2u

void ref_wire_welcome(msgpack_sbuffer *b, const char *name, uint32_t capacity);
/* match NULL: an error about no match; turn 0: about no turn. */
void ref_wire_error(msgpack_sbuffer *b, ref_wire_err code, const char *message,
                    const char *match, uint32_t turn);
void ref_wire_start(msgpack_sbuffer *b, const ref_wire_start_info *si, unsigned flags);
/* The act of decision d in match `match` of game g: the observation from the
 * field table and the legal list with each action's code and label.
 * JA_OK, or JA_EINVAL when d's observation is not g's (obs_size). */
int ref_wire_act(msgpack_sbuffer *b, const char *match, const ja_game_rules *g,
                 const ja_decision *d, unsigned flags);
void ref_wire_end(msgpack_sbuffer *b, const ref_wire_end_info *ei);
void ref_wire_ping(msgpack_sbuffer *b);
void ref_wire_bye(msgpack_sbuffer *b);

/* Writes observation obs of game g as a msgpack map: one key per field of
 * g->obs_fields, an integer for a scalar, an array of integers for an array,
 * in table order. */
void ref_wire_put_obs(msgpack_packer *pk, const ja_game_rules *g, const void *obs);

/* ---- Decoder (bot -> referee) --------------------------------------------- */

typedef enum ref_wire_type {
    REF_WIRE_HELLO,
    REF_WIRE_ACTION,
    REF_WIRE_PONG,
    REF_WIRE_BYE,
    REF_WIRE_OTHER, /* a well-formed map with a type this referee does not know */
    REF_WIRE_TYPE_COUNT
} ref_wire_type;

/* A decoded bot message. Fields not given keep their defaults (zero, "",
 * capacity 1). */
typedef struct ref_wire_msg {
    ref_wire_type type;
    char type_name[REF_WIRE_TYPE_MAX]; /* as sent (truncated for OTHER) */
    /* hello */
    uint64_t protocol;
    char name[REF_WIRE_NAME_MAX];
    char version[REF_WIRE_VERSION_MAX];
    char token[REF_WIRE_TOKEN_MAX];
    uint32_t capacity;                 /* 1..REF_WIRE_MAX_CAPACITY */
    uint32_t n_games;                  /* 0: the bot did not say (it plays every game) */
    char games[REF_WIRE_MAX_GAMES][REF_WIRE_NAME_MAX];
    bool bin;                          /* "x_bin": true: it takes the compact act
                                        * (REF_WIRE_BIN; docs/protocol.md) */
    /* action */
    bool has_match;                    /* match decoded (also when JA_EFORMAT) */
    char match[REF_WIRE_MATCH_MAX];
    uint64_t turn;                     /* UINT64_MAX for a negative turn */
    uint64_t index;                    /* UINT64_MAX for a negative index */
    bool has_error;                    /* "error" in place of "index": the bot
                                        * could not choose (a fault `error`);
                                        * in a hello, "x_params_error": a
                                        * hosted child's bot refused its
                                        * parameters */
    char error[REF_WIRE_ERROR_MAX];    /* its text, cut to fit, one line */
    int32_t code;                      /* "code" beside "error": what the bot's
                                        * act() returned (a JA_E* code), as the
                                        * C SDK sends it; 0 when absent (or not
                                        * a non-zero 32-bit integer: it is
                                        * information, never a fault) */
    /* An action's "log" (what the bot logged for the decision), as sent:
     * its first JA_DECLOG_MAX bytes, not yet cleaned (ja_declog_add does),
     * log_cut when it was longer. Last: the decoder zeroes only what
     * precedes it. */
    uint32_t log_len;
    bool log_cut;
    char log[JA_DECLOG_MAX];
} ref_wire_msg;

/* Decodes one message from a bot. Returns JA_OK, or JA_EFORMAT with a
 * one-line reason in why: bytes that are not exactly one msgpack map (with
 * nothing after it), no string "type", or a field of a known type missing,
 * of the wrong type or too long. Even then out->type is set when the type
 * was readable, and out->has_match when the match was. Out-of-range
 * integers (a negative index) are not decoding errors: the caller judges
 * them in context. Never allocates more than the bytes warrant. */
int ref_wire_decode(const void *buf, size_t len, ref_wire_msg *out, char *why, size_t cap);

#endif /* REF_WIRE_H */
