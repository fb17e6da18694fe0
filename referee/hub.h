/* The hub: the referee's one ZeroMQ endpoint for external bots.
 *
 * Threads: one thread at a time owns every socket that faces bots (ZeroMQ
 * sockets are not thread-safe): a ROUTER bound at the listen endpoint, where
 * each bot is a DEALER identified by the name of its hello; its socket
 * monitor (to see disconnects); and, with an allow-list, the ZAP handler
 * that vets CurveZMQ client keys. Which thread is said by the hub's baton
 * (hub_int.h, "The direct path"). The hub's own thread holds it and runs the
 * hub's loop; each `zmq` seat (seat_zmq.c) of a match then owns an inproc
 * DEALER to the hub's control ROUTER, and the hub routes between the two
 * sides by (bot, match). One bot process may thus play up to its announced
 * capacity of matches at once, each seat in its own thread. A direct seat
 * (ref_hub_set_direct: one match at a time) instead takes the baton for
 * each of its calls and runs the hub's loop in its match's thread while it
 * waits for its answer, so a decision takes no hop between threads; the
 * hub's thread runs the loop again once no direct seat has used it for a
 * moment (between matches). The arena's event executor goes further: one
 * thread holds the baton for a whole run (ref_hub_hold) and plays many
 * matches on direct seats, running the loop itself (ref_hub_run_once).
 *
 * The hub is also the judge of every bot message (docs/protocol.md,
 * "Errors"): it decodes with ref_wire_decode, validates match, turn, index
 * and deadline against the pending request, answers an `error` to the bot
 * where it is still connected, and hands the seat either the answer (with
 * its arrival time) or a typed fault. It never blocks on a bot: sends are
 * non-blocking, and a bot whose queue is full is treated as not answering.
 *
 * Liveness: a bot silent for ping_ms gets a `ping`; one silent for dead_ms
 * while nothing is asked of it is dropped (a disconnect). A disconnect seen
 * by the monitor, a send to a vanished peer, or a `bye` from the bot ends
 * its connection: each of its pending requests faults with `disconnect`, and
 * later requests to it fault at once. A bot that connects again says hello
 * again and plays the matches that start after that.
 *
 * Seats and credentials (docs/security.md, "Seat identity"): a name is held
 * by at most one live connection, and a hello for a name a live connection
 * holds is refused (`name_taken`), never a replacement; the name is free
 * again once that connection is gone. A name may also be bound to a
 * credential, and a hello for it without that credential is refused
 * (`unauthorized`): a cmd: bot's token (ref_hub_grant), and with Curve the
 * client keys --curve-allow binds to the name (allow_names). A refused hello
 * leaves the holder alone; the refused connection may say hello again.
 *
 * Lifetime: ref_hub_start, then any number of ref_hub_claim (and seats), then
 * ref_hub_bye_all and ref_hub_stop after every seat is closed. The functions
 * below may be called from any thread, but each call from one thread at a
 * time per hub (they use a short-lived socket of the calling thread). */
#ifndef REF_HUB_H
#define REF_HUB_H

#include "seat.h"
#include "wire.h"

#include <stdbool.h>
#include <stdint.h>

#define REF_HUB_PING_MS 2000   /* ping a bot silent this long */
#define REF_HUB_DEAD_MS 60000  /* drop a bot silent this long with nothing asked */
#define REF_HUB_KEY_Z85 41     /* a CurveZMQ key in Z85, NUL included */

typedef struct ref_hub ref_hub;

typedef struct ref_hub_config {
    /* Where bots connect: ipc://PATH or tcp://HOST:PORT. NULL or "": a
     * private ipc endpoint in a new 0700 directory under $TMPDIR (or /tmp),
     * removed by ref_hub_stop. */
    const char *endpoint;
    /* CurveZMQ server with this key pair (Z85): required on tcp unless
     * plain_tcp. Clients then need the public key. */
    bool curve;
    char curve_public[REF_HUB_KEY_Z85], curve_secret[REF_HUB_KEY_Z85];
    /* With curve: the Z85 public keys of the clients allowed (ZAP); NULL:
     * any client that knows the server's key. Copied. */
    const char *const *allow;
    uint32_t n_allow;
    /* With allow: allow_names[i] is the hello name key allow[i] is bound to,
     * or NULL for a bare key. A name bound to keys may be said only by them;
     * a bare key may say any name bound to no key; a key listed only with
     * names says only those. NULL: every key bare. Copied. */
    const char *const *allow_names;
    /* With curve: the allow-list (and ZAP) is on even when empty, and
     * ref_hub_allow_set changes it while the hub runs (a server that
     * registers bots' keys). */
    bool allow_live;
    /* Called from the thread running the hub's loop (the hub's, or a direct
     * seat's) with one line (no newline) the first time a connection's hello
     * is refused; NULL: refusals are not logged. */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
    /* tcp without curve, for loopback addresses only; plain_tcp_remote
     * lifts the loopback restriction too. */
    bool plain_tcp, plain_tcp_remote;
    uint32_t ping_ms, dead_ms;     /* 0: the defaults above */
    unsigned wire_flags;           /* REF_WIRE_PROBE (conformance) */
} ref_hub_config;

/* Binds the endpoint and starts the hub's thread. Refuses (JA_EINVAL, err
 * says why) an endpoint that is not ipc or tcp, tcp without curve unless
 * plain_tcp, and plain tcp on a non-loopback address unless
 * plain_tcp_remote; JA_EIO when the bind fails (address in use...). The hub
 * is owned by the caller: ref_hub_stop. */
int ref_hub_start(const ref_hub_config *cfg, ref_hub **out, char *err, size_t cap);

/* The endpoint checks of ref_hub_start alone, binding nothing (for a usage
 * error before anything runs): JA_OK (also for no endpoint) or JA_EINVAL
 * with the reason in err. */
int ref_hub_check_endpoint(const ref_hub_config *cfg, char *err, size_t cap);

/* The endpoint bots on this machine should connect to (a wildcard address
 * resolved to loopback; the port chosen when 0 was asked). Borrowed until
 * ref_hub_stop. */
const char *ref_hub_endpoint(const ref_hub *h);

/* The server's public key (Z85) with curve, else NULL. Borrowed. */
const char *ref_hub_server_key(const ref_hub *h);

/* Characters of a token made by ref_hub_new_token (hex), NUL excluded. */
#define REF_HUB_TOKEN_CHARS 64

/* A fresh token for a cmd: bot: 32 bytes of libsodium's randombytes_buf in
 * hex, NUL-terminated. JA_OK, or JA_EIO when libsodium cannot start. */
int ref_hub_new_token(char out[REF_HUB_TOKEN_CHARS + 1]);

/* Binds the name `who` to token (1 to REF_WIRE_TOKEN_MAX - 1 bytes) before
 * the cmd: bot told so starts: from then on a hello for who is accepted
 * only with that token, compared in constant time (sodium_memcmp). The
 * token's first accepted hello may name another name that is free (a bot
 * that ignores JACKARENA_NAME); that name is then bound instead, and the
 * token says no other. Granting again for the same who replaces the token
 * (a restarted process): the old one is refused from then on, the bound
 * name stays. A hello with a token nobody was granted is refused. JA_OK;
 * JA_EINVAL when another grant's token took the name who first (or the
 * token's size is wrong), JA_EIO when the hub is not answering, with a
 * one-line message in err. */
int ref_hub_grant(ref_hub *h, const char *who, const char *token, char *err, size_t cap);

/* With allow_live: binds the client key (Z85, 40 characters) to name,
 * replacing the name it had; with name NULL, removes the key: from then on
 * ZAP refuses it, and its live connection, if any, is told `bye` and
 * dropped. JA_OK; JA_EINVAL for a key that is not Z85 or a hub without
 * allow_live; JA_EIO when the hub is not answering. */
int ref_hub_allow_set(ref_hub *h, const char *key, const char *name);

/* What the hub knows of the connection with that name. */
typedef struct ref_hub_bot_status {
    bool connected;
    char version[REF_WIRE_VERSION_MAX];
    uint32_t capacity;
    uint32_t errors[REF_WIRE_ERR_COUNT]; /* `error` messages sent to it, by code */
    uint32_t pongs;                      /* pongs received */
    char key[REF_HUB_KEY_Z85];           /* its Curve client key with ZAP, else "" */
} ref_hub_bot_status;

/* JA_OK, or JA_ENOTFOUND when no connection has said hello under name. */
int ref_hub_bot_status_get(ref_hub *h, const char *name, ref_hub_bot_status *out);

/* Sends raw bytes (one frame) to the named bot: conformance probes.
 * JA_OK, JA_ENOTFOUND, JA_EIO (not delivered). */
int ref_hub_send_raw(ref_hub *h, const char *name, const void *bytes, size_t n);

/* Makes the seats opened from now on direct (on) or not: a direct seat
 * runs the hub's loop in its own thread while it waits for its bot, so a
 * decision takes no hop between the match's thread and the hub's (see
 * "Threads" above). For one match at a time (the in-process executor,
 * `arena play`), or many in the one thread that holds the baton
 * (ref_hub_hold: the event executor). Direct seats of matches in several threads at once stay
 * correct (each answer is judged when it arrives, by whichever thread runs
 * the loop) but take turns with the hub's sockets: one may return after its
 * deadline while another waits. Off by default. */
void ref_hub_set_direct(ref_hub *h, bool on);

/* One thread playing many matches on direct seats (arena's event
 * executor): ref_hub_hold takes the baton for the calling thread until
 * ref_hub_release, and the seats' calls in that thread then neither take
 * nor give it. While it holds it, the thread runs the hub's loop with
 * ref_hub_run_once: one turn, waiting for something on the hub's sockets
 * until until_ns (0: no deadline; never longer than the hub's tick), a
 * wake-up (ref_hub_wake, from any thread) or another thread's wanting the
 * baton (it is handed over and taken back before the call returns). 0, or
 * -1 once the hub is gone. */
void ref_hub_hold(ref_hub *h);
void ref_hub_release(ref_hub *h);
int ref_hub_run_once(ref_hub *h, int64_t until_ns);
void ref_hub_wake(ref_hub *h);

/* Sends `bye` to every connected bot (a bot exits on it). */
void ref_hub_bye_all(ref_hub *h);

/* Stops the thread, closes every socket, removes a private ipc directory,
 * frees h (NULL allowed) and nulls the pointer. Every seat must be closed. */
void ref_hub_stop(ref_hub **h);

/* The `zmq` seat kind over a hub (seat_zmq.c, above the hub: the hub never
 * calls it). */

/* How to find a bot that says hello. */
typedef struct ref_hub_claim_req {
    const char *name;        /* the hello name wanted */
    /* Non-NULL: a cmd: bot granted this token (ref_hub_grant): take the
     * connection whose hello carried it, whatever its name, instead. */
    const char *token;
    const char *kind;        /* "cmd" or "zmq": ref_bot_info.kind */
    int64_t deadline_ns;     /* CLOCK_MONOTONIC; give up then */
    /* Called while waiting (may be NULL): non-zero stops the wait (the
     * bot's process died). */
    int (*gone)(void *ctx);
    void *gone_ctx;
    /* The process every process of the bot descends from (a cmd: bot's
     * keeper, proc.h), 0 for none: on an ipc endpoint, a hello of one of
     * them that is refused ends the wait at once. */
    int pid;
} ref_hub_claim_req;

/* Waits for a bot that has said hello as requested and makes it a
 * participant: a ref_bot of kind `zmq` whose seats reach the connection with
 * that name at the time each seat opens. Returns JA_OK with *out owned by the
 * caller (ref_bot_destroy), JA_ETIMEOUT when no such hello came by the
 * deadline, JA_EBOT when gone() said so, JA_EINVAL at once when a hello
 * surely the bot's was refused for good (it carried the token, or came from
 * a process of pid; any refusal but name_taken, which a second hello may
 * get past), with a one-line message in err. If hellos came under other
 * names, err names them; if a hello as wanted was refused, err says why
 * ("a hello as 'NAME' was refused: WHY"; refused for good, "... was refused
 * (CODE): WHY"). */
int ref_hub_claim(ref_hub *h, const ref_hub_claim_req *req, ref_bot **out, char *err,
                  size_t cap);

/* Gives a `zmq` participant the tail of its process's output (proc.h), for
 * its seats' stderr_tail (reproduction bundles); NULL: none. Borrowed: the
 * tail must outlive b. */
struct ref_tail;
void ref_bot_zmq_set_tail(ref_bot *b, struct ref_tail *tail);

/* Bytes of a `zmq` participant's parameters, NUL included (ja_params.h's
 * JA_PARAMS_MAX). */
#define REF_ZMQ_PARAMS_MAX 256

/* Gives a `zmq` participant (a cmd: bot) its parameters (copied; NULL or ""
 * for none, longer than REF_ZMQ_PARAMS_MAX - 1 cut): every `start` of its
 * seats carries them as `params`, and its version reads "VERSION:PARAMS"
 * (its identity, as for plugins). */
void ref_bot_zmq_set_params(ref_bot *b, const char *params);

#endif /* REF_HUB_H */
