/* Private to hub.c and seat_zmq.c: the messages between the hub's thread and
 * the threads that use it (seats, control calls), over inproc sockets of the
 * hub's ZeroMQ context.
 *
 * A request is one frame: a hub_req, then the wire bytes to forward (start,
 * act, end, raw) if any. A reply is one frame holding a hub_rep. Both are
 * plain structs copied byte for byte within one process. */
#ifndef REF_HUB_INT_H
#define REF_HUB_INT_H

#include "hub.h"

/* The inproc endpoint of the hub's control ROUTER (one per context). */
#define HUB_CTL_ENDPOINT "inproc://jackarena-hub"

typedef enum hub_op {
    HUB_OPEN,    /* a seat opens: name, match; payload: start. Reply OK/FAIL */
    HUB_ACT,     /* turn, n_legal, deadline_ns; payload: act. Reply ANSWER/FAULT later */
    HUB_CANCEL,  /* turn: the seat's deadline passed. Reply OK after any answer */
    HUB_END,     /* payload: end. No reply */
    HUB_CLOSE,   /* the seat closes. Reply OK (so a later OPEN of the same match
                  * id on another socket cannot overtake it) */
    HUB_CLAIM,   /* name, pid; payload: a token or nothing. Reply OK (with
                  * identity), NOTYET (others; msg: why a hello as wanted was
                  * refused), REFUSED (msg: a hello of the bot's refused for good) */
    HUB_GRANT,   /* name (who); payload: the token. Reply OK */
    HUB_STATUS,  /* name. Reply OK (status) or FAIL */
    HUB_RAW,     /* name; payload: bytes to send. Reply OK/FAIL */
    HUB_BYE_ALL, /* Reply OK once sent */
    HUB_ALLOW,   /* name ("" removes); payload: a Z85 key. Reply OK/FAIL */
    HUB_QUIT     /* the thread ends. Reply OK */
} hub_op;

typedef struct hub_req {
    uint32_t op;
    uint32_t turn;
    uint32_t n_legal;
    uint32_t flags;
    int64_t deadline_ns;      /* 0 = none */
    int32_t pid;              /* CLAIM: the bot's process (every process of it descends
                               * from it), 0 = none */
    char name[REF_WIRE_NAME_MAX];
    char match[REF_WIRE_MATCH_MAX];
} hub_req;

typedef enum hub_rep_kind {
    HUB_REP_OK,
    HUB_REP_FAIL,    /* msg says why */
    HUB_REP_NOTYET,  /* claim: no such hello yet */
    HUB_REP_REFUSED, /* claim: the bot's own hello was refused, not for a name held */
    HUB_REP_ANSWER,  /* turn, index, at_ns */
    HUB_REP_FAULT    /* turn, fault */
} hub_rep_kind;

typedef struct hub_rep {
    uint32_t kind;
    uint32_t turn;
    uint32_t index;
    uint32_t fault;           /* ja_fault */
    int32_t error;            /* FAULT `error`: the code act() returned, 0 = not said */
    int64_t at_ns;            /* arrival of the answer at the hub */
    uint32_t dead;            /* OPEN: the bot is not connected (the seat opens dead) */
    uint32_t bin;             /* OPEN: its connection takes the compact act (REF_WIRE_BIN) */
    /* ANSWER, and a FAULT decided by the bot's own action (`error`,
     * `illegal`): the action's "log", as the wire decoder left it
     * (ref_wire_msg.log). An ANSWER or FAULT is sent and copied only up to
     * the end of its log (hub_rep_size). */
    uint32_t log_cut;
    uint32_t log_len;
    char log[JA_DECLOG_MAX];
    char name[REF_WIRE_NAME_MAX];
    char others[256];         /* CLAIM NOTYET: names of unclaimed hellos */
    ref_hub_bot_status status;
    uint32_t n_games;
    char games[REF_WIRE_MAX_GAMES][REF_WIRE_NAME_MAX];
    char msg[256];
} hub_rep;

/* The bytes of an ANSWER or FAULT: the leading fields and its log. */
static inline size_t hub_rep_size(const hub_rep *r)
{
    return offsetof(hub_rep, log) + r->log_len;
}

/* ---- The direct path ----------------------------------------------------
 *
 * The hub's sockets and state belong to whoever holds the hub's baton (a
 * mutex-guarded flag; taking and giving it are the memory barriers that
 * move ZeroMQ sockets between threads). The hub's thread holds it while it
 * runs the loop. A direct seat (ref_hub_set_direct) takes it for each of
 * its calls and runs the hub's loop itself while it waits for its answer:
 * it handles everything the hub's thread would meanwhile (hellos,
 * heartbeats, disconnects, ZAP, late or stale answers, control calls and
 * inproc seats), and the answer needs no hop between threads. A taker
 * kicks the holder out of its wait (an eventfd among the polled items);
 * the hub's thread then hands the baton over and takes it back only once
 * no direct seat has used it for a moment, so a match that asks and
 * collects in turn keeps it without waking that thread. A direct wait that
 * is kicked hands the baton over and takes it back after the taker is
 * done. Replies to a direct seat go to its mailbox (its last ANSWER or
 * FAULT) instead of a socket. */

typedef struct hub_seat hub_seat;

/* Whether seats opened now are direct (ref_hub_set_direct). */
bool ref_hub__direct(ref_hub *h);

/* A request of a direct seat, handled in the calling thread: HUB_OPEN
 * (after what came on the hub's sockets before it; *s: the new seat, or
 * NULL and r says why), HUB_ACT, HUB_END, HUB_CLOSE (*s becomes NULL).
 * Fills r and returns whether the request has a reply (as over the control
 * socket). */
bool ref_hub__direct_call(ref_hub *h, hub_seat **s, const hub_req *q, const void *payload,
                          size_t n, hub_rep *r);

/* Runs the hub's loop in the calling thread until the direct seat s has
 * the reply to its request of turn `turn`: r is an ANSWER (at_ns: when the
 * hub read it, by the deadline), a FAULT, or, once deadline_ns (0: none)
 * passed with neither, OK: the request is closed as timed out, and an
 * answer coming later is late. */
void ref_hub__direct_wait(ref_hub *h, hub_seat *s, uint32_t turn, int64_t deadline_ns,
                          hub_rep *r);

/* Whether ref_hub__direct_wait(h, s, turn, deadline_ns, ...) would return
 * at once: the reply is there or the deadline has passed. By the baton's
 * holder. */
bool ref_hub__direct_ready(const hub_seat *s, uint32_t turn, int64_t deadline_ns);

/* Milliseconds to wait for deadline_ns (CLOCK_MONOTONIC; 0: none, -1
 * returned), rounded up (poll counts whole milliseconds): never returns
 * early, overshoots by under 1 ms. */
long ref_hub__wait_ms(int64_t deadline_ns, int64_t now);

/* The hub's ZeroMQ context, for seats to make their inproc socket. */
void *ref_hub__ctx(ref_hub *h);
unsigned ref_hub__wire_flags(const ref_hub *h);

/* A request/reply on a fresh inproc DEALER of the calling thread: sends req
 * and payload, waits up to timeout_ms for the reply. JA_OK, JA_ETIMEOUT,
 * JA_EIO. */
int ref_hub__call(ref_hub *h, const hub_req *req, const void *payload, size_t n, hub_rep *rep,
                  int timeout_ms);

/* Sends req and payload on socket sock (a DEALER connected to the hub). */
int ref_hub__send(void *sock, const hub_req *req, const void *payload, size_t n);

#endif /* REF_HUB_INT_H */
