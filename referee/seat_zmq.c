/* The `zmq` seat: an external bot process over ZeroMQ, through the hub.
 *
 * A zmq bot (a participant) is a hello name; each seat reaches whichever
 * connection holds that name when the seat opens, so a bot that reconnects
 * between matches plays on.
 *
 * A direct seat (the hub made direct when it opened: one match at a time)
 * calls the hub in its match's thread (hub_int.h, "The direct path"):
 * ask() hands the act to the hub there, and collect() runs the hub's loop
 * until the answer, a fault or the deadline; the hub judges the answer
 * exactly as below.
 *
 * Otherwise each seat owns one inproc DEALER to the hub, created, used and
 * closed by the thread of its match: seats of matches in different threads
 * never share a socket.
 *
 * ask() encodes the act message here (in the match's thread, so encoding
 * runs in parallel across matches) and hands it to the hub with the
 * request's absolute deadline. collect() waits on the seat's socket until the
 * deadline and no longer; the hub forwards only answers that reached it by
 * then, so the first reply for the current turn decides. At the deadline the
 * seat closes the request with the hub (a local round trip, never a wait for
 * the bot): an answer the hub took in time but had not yet forwarded arrives
 * before the hub's reply, so the hub and the seat always agree on whether
 * the bot answered in time. think_us is the time from ask to the answer's
 * arrival at the hub.
 *
 * Logs (ref_seat_ctx.logs): a decision's log is the `log` of the bot's
 * answer (the hub passes it on with the answer, or with the `error` or
 * `illegal` fault its answer made), then, for a cmd: bot, what the process
 * wrote to its standard output and error since the last decision was
 * collected (its tail's fresh bytes, after ref_tail_sync has taken what
 * was written before the answer and is still in the pipe). That output is one
 * stream for the whole process, so it is kept only while the process plays
 * this one seat alone: once another seat of the same bot opened while this
 * one was open (a capacity above 1, or the bot in two seats of a match),
 * the seat drops it (the bot's own `log` is kept still). */
#include "hub_int.h"
#include "proc.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

typedef struct zmq_bot {
    ref_bot base;
    ref_hub *hub;
    char name[REF_WIRE_NAME_MAX];
    char hello_version[REF_WIRE_VERSION_MAX];
    char version[REF_WIRE_VERSION_MAX + REF_ZMQ_PARAMS_MAX]; /* "VERSION[:PARAMS]" */
    char kind[8];
    char params[REF_ZMQ_PARAMS_MAX]; /* sent in every start; "" for none */
    uint32_t capacity;
    uint32_t n_games;
    char games[REF_WIRE_MAX_GAMES][REF_WIRE_NAME_MAX];
    ref_tail *tail;            /* a cmd: bot's output, or NULL */
    /* Seats open at once (with a tail): how many, and how many times one
     * opened while another was open (see "Logs" above). */
    pthread_mutex_t seats_mu;
    uint32_t open_seats;
    uint64_t overlaps;
} zmq_bot;

typedef struct zmq_seat {
    ref_seat base;
    zmq_bot *zb;
    void *sock;                /* the inproc DEALER to the hub (NULL when direct) */
    hub_seat *hs;              /* a direct seat (hub_int.h), or NULL */
    bool dead;                 /* the bot was gone when asked: fault at once */
    unsigned act_flags;        /* the wire flags of its acts (REF_WIRE_BIN if asked for) */
    uint32_t turn;             /* of the pending request */
    uint32_t move_ms;
    uint32_t n_seats;
    const ja_game_rules *game;
    const uint32_t *faults;
    char match[REF_WIRE_MATCH_MAX];
    char replay[256];
    msgpack_sbuffer buf;
    bool keep_log;             /* ref_seat_ctx.logs */
    bool counted;              /* in zb->open_seats */
    bool shared;               /* it opened while another seat of the bot was open */
    uint64_t overlaps0;        /* zb->overlaps when it opened */
    ja_declog log;             /* the last collected decision's, until taken */
} zmq_seat;

static const ref_bot_ops zmq_ops;

/* How long a seat waits for the hub itself (a local thread) before calling
 * it broken: only a bug gets near this. */
#define HUB_REPLY_MS 30000

static int zmq_supports(ref_bot *rb, const ja_game_rules *g)
{
    zmq_bot *b = (zmq_bot *)rb;
    if (!b->n_games)
        return 1; /* the hello did not say: it plays anything */
    for (uint32_t i = 0; i < b->n_games; i++)
        if (strcmp(b->games[i], g->name) == 0)
            return 1;
    return 0;
}

static uint32_t zmq_capacity(ref_bot *rb)
{
    return ((zmq_bot *)rb)->capacity;
}

/* A seat of a cmd: bot opens or closes: the count of its open seats, and
 * whether the seat shares the process's output with another. */
static void count_seat(zmq_seat *s, bool open)
{
    zmq_bot *b = s->zb;
    if (!b->tail || s->counted == open)
        return;
    pthread_mutex_lock(&b->seats_mu);
    if (open) {
        s->shared = b->open_seats++ > 0;
        b->overlaps += s->shared;
        s->overlaps0 = b->overlaps;
    } else {
        b->open_seats--;
    }
    pthread_mutex_unlock(&b->seats_mu);
    s->counted = open;
}

/* Whether the process's output since the seat's last decision is its own:
 * no other seat of the bot was open at the same time. */
static bool output_alone(zmq_seat *s)
{
    zmq_bot *b = s->zb;
    pthread_mutex_lock(&b->seats_mu);
    bool alone = !s->shared && b->overlaps == s->overlaps0;
    pthread_mutex_unlock(&b->seats_mu);
    return alone;
}

static void close_seat(zmq_seat *s)
{
    count_seat(s, false);
    if (s->sock)
        zmq_close(s->sock);
    msgpack_sbuffer_destroy(&s->buf);
    free(s);
}

static int zmq_seat_open(ref_bot *rb, const ref_seat_ctx *ctx, ref_seat **out, char *err,
                         size_t cap)
{
    zmq_bot *b = (zmq_bot *)rb;
    zmq_seat *s = ja_xcalloc(1, sizeof *s);
    msgpack_sbuffer_init(&s->buf);
    s->base.bot = rb;
    s->base.seat = ctx->seat;
    s->zb = b;
    s->move_ms = ctx->move_ms;
    s->n_seats = ctx->n_seats;
    s->game = ctx->game;
    s->faults = ctx->faults;
    s->keep_log = ctx->logs;
    snprintf(s->match, sizeof s->match, "%s", ctx->match_id);
    snprintf(s->replay, sizeof s->replay, "%s", ctx->replay ? ctx->replay : "");
    if (strlen(ctx->match_id) >= sizeof s->match) {
        snprintf(err, cap, "match id '%s' is too long for the wire", ctx->match_id);
        close_seat(s);
        return JA_EINVAL;
    }
    bool direct = ref_hub__direct(b->hub);
    if (!direct && (!(s->sock = zmq_socket(ref_hub__ctx(b->hub), ZMQ_DEALER)) ||
                    zmq_connect(s->sock, HUB_CTL_ENDPOINT) != 0)) {
        snprintf(err, cap, "cannot reach the referee's hub: %s", zmq_strerror(zmq_errno()));
        close_seat(s);
        return JA_EIO;
    }
    ja_options none;
    const ja_options *opts = ctx->options ? ctx->options : &none;
    if (opts == &none) { /* not told: the game's defaults */
        char why[256];
        ja_options_init(ctx->game, &none);
        ja_options_resolve(ctx->game, &none, ctx->n_seats, why, sizeof why);
    }
    ref_wire_start_info si = {s->match, ctx->game, opts, ctx->seat, ctx->n_seats,
                              ctx->players, ctx->move_ms, b->params,
                              ref_bot_seed(ctx->match_seed, ctx->seat)};
    ref_wire_start(&s->buf, &si, ref_hub__wire_flags(b->hub));
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_OPEN;
    snprintf(q.name, sizeof q.name, "%s", b->name);
    snprintf(q.match, sizeof q.match, "%s", s->match);
    hub_rep r;
    memset(&r, 0, sizeof r);
    zmq_pollitem_t it = {s->sock, 0, ZMQ_POLLIN, 0};
    if (direct) {
        ref_hub__direct_call(b->hub, &s->hs, &q, s->buf.data, s->buf.size, &r);
    } else if (ref_hub__send(s->sock, &q, s->buf.data, s->buf.size) != JA_OK ||
               zmq_poll(&it, 1, HUB_REPLY_MS) <= 0 || zmq_recv(s->sock, &r, sizeof r, 0) <= 0) {
        snprintf(err, cap, "the referee's hub did not answer");
        close_seat(s);
        return JA_EIO;
    }
    if (r.kind != HUB_REP_OK) {
        r.msg[sizeof r.msg - 1] = '\0';
        snprintf(err, cap, "%s", r.msg);
        close_seat(s);
        return JA_EBOT;
    }
    s->dead = r.dead != 0;
    count_seat(s, true);
    if (b->tail && !s->shared) { /* what the process wrote before: not this match's */
        bool cut;
        ref_tail_take(b->tail, s->log.text, sizeof s->log.text, &cut);
    }
    /* The compact act when the connection asked for it, except under a
     * conformance probe (which needs the full act). */
    unsigned flags = ref_hub__wire_flags(b->hub);
    s->act_flags = flags | (r.bin && !(flags & REF_WIRE_PROBE) ? REF_WIRE_BIN : 0);
    *out = &s->base;
    return JA_OK;
}

static int zmq_ask(ref_seat *rs, const ja_decision *d)
{
    zmq_seat *s = (zmq_seat *)rs;
    s->turn = d->turn;
    if (s->dead)
        return JA_EIO; /* the match loop records a disconnect */
    if (ref_wire_act(&s->buf, s->match, s->game, d, s->act_flags) != JA_OK)
        return JA_EINVAL;
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_ACT;
    q.turn = d->turn;
    q.n_legal = d->n_legal;
    /* The decision's allowance (move_ms plus the bank left), as the bot
     * was told in deadline_ms: the hub cuts it off then. */
    q.deadline_ns = d->deadline_ms ? rs->asked_ns + (int64_t)d->deadline_ms * 1000000 : 0;
    if (s->hs) {
        hub_rep r;
        ref_hub__direct_call(s->zb->hub, &s->hs, &q, s->buf.data, s->buf.size, &r);
        return JA_OK;
    }
    return ref_hub__send(s->sock, &q, s->buf.data, s->buf.size);
}

/* The answer or fault of r (an ANSWER or FAULT for the current turn), and
 * the log that came with it. */
static void take_reply(zmq_seat *s, const hub_rep *r, ref_answer *out)
{
    ref_seat *rs = &s->base;
    if (s->keep_log && r->log_len <= sizeof r->log) {
        ja_declog_add(&s->log, r->log, r->log_len);
        if (r->log_cut)
            ja_declog_cut(&s->log, JA_DECLOG_MAX, JA_DECLOG_CUT);
    }
    if (r->kind == HUB_REP_ANSWER) {
        *out = (ref_answer){
            .index = r->index,
            .fault = JA_FAULT_NONE,
            .think_us = (uint64_t)(r->at_ns > rs->asked_ns ? r->at_ns - rs->asked_ns : 0) / 1000};
        return;
    }
    *out = (ref_answer){.fault = (ja_fault)r->fault,
                        .think_us = (uint64_t)(ref_now_ns() - rs->asked_ns) / 1000,
                        .error = r->error};
    if (r->fault == JA_FAULT_DISCONNECT)
        s->dead = true;
}

/* A timeout at deadline_ns. */
static ref_answer timed_out(const zmq_seat *s, int64_t deadline_ns)
{
    return (ref_answer){.fault = JA_FAULT_TIMEOUT,
                        .think_us = (uint64_t)(deadline_ns - s->base.asked_ns) / 1000};
}

/* The deadline passed with nothing on the seat's socket: tells the hub,
 * then takes an answer for this turn if one comes before the hub's reply. */
static void cancel(zmq_seat *s, int64_t deadline_ns, ref_answer *out)
{
    *out = timed_out(s, deadline_ns);
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_CANCEL;
    q.turn = s->turn;
    if (ref_hub__send(s->sock, &q, NULL, 0) != JA_OK)
        return;
    zmq_pollitem_t it = {s->sock, 0, ZMQ_POLLIN, 0};
    while (zmq_poll(&it, 1, HUB_REPLY_MS) > 0) {
        hub_rep r;
        memset(&r, 0, sizeof r);
        if (zmq_recv(s->sock, &r, sizeof r, 0) <= 0 || r.turn != s->turn)
            continue;
        if (r.kind == HUB_REP_OK)
            return; /* the hub agrees: no answer in time */
        if (r.kind == HUB_REP_ANSWER && r.at_ns <= deadline_ns) {
            take_reply(s, &r, out);
        } else if (r.kind == HUB_REP_FAULT) {
            out->fault = (ja_fault)r.fault;
            out->error = r.error;
            if (r.fault == JA_FAULT_DISCONNECT)
                s->dead = true;
        }
        /* keep reading until the hub's reply to the cancel */
    }
}

/* The answer or fault, from the hub (see the file comment). */
static void collect_reply(zmq_seat *s, int64_t deadline_ns, ref_answer *out)
{
    if (s->hs) {
        /* Direct: this thread runs the hub's loop until the answer. */
        hub_rep r;
        ref_hub__direct_wait(s->zb->hub, s->hs, s->turn, deadline_ns, &r);
        if (r.kind == HUB_REP_OK)
            *out = timed_out(s, deadline_ns);
        else
            take_reply(s, &r, out);
        return;
    }
    zmq_pollitem_t it = {s->sock, 0, ZMQ_POLLIN, 0};
    for (;;) {
        int64_t now = ref_now_ns();
        long ms = ref_hub__wait_ms(deadline_ns, now);
        int ready = zmq_poll(&it, 1, ms);
        hub_rep r;
        memset(&r, 0, sizeof r);
        if (ready > 0 && zmq_recv(s->sock, &r, sizeof r, ZMQ_DONTWAIT) > 0) {
            if (r.turn != s->turn || (r.kind != HUB_REP_ANSWER && r.kind != HUB_REP_FAULT))
                continue; /* about an earlier request */
            take_reply(s, &r, out);
            return;
        }
        if (deadline_ns && ref_now_ns() >= deadline_ns && ready == 0) {
            cancel(s, deadline_ns, out);
            return;
        }
        if (ready < 0 && zmq_errno() != EINTR) {
            *out = (ref_answer){.fault = JA_FAULT_DISCONNECT};
            s->dead = true;
            return;
        }
    }
}

/* A cmd: bot's output since its last decision, after the answer's log,
 * when the process plays this seat alone (see "Logs" above); dropped
 * otherwise. */
static void take_output(zmq_seat *s)
{
    zmq_bot *b = s->zb;
    char buf[REF_TAIL_FRESH];
    bool cut;
    ref_tail_sync(b->tail);
    size_t n = ref_tail_take(b->tail, buf, sizeof buf, &cut);
    if (!output_alone(s))
        return;
    ja_declog_add(&s->log, buf, n);
    if (cut)
        ja_declog_cut(&s->log, JA_DECLOG_MAX, JA_DECLOG_CUT);
}

static void zmq_collect(ref_seat *rs, int64_t deadline_ns, ref_answer *out)
{
    zmq_seat *s = (zmq_seat *)rs;
    collect_reply(s, deadline_ns, out);
    if (s->keep_log && s->zb->tail)
        take_output(s);
}

static void zmq_take_log(ref_seat *rs, ja_declog *out)
{
    ja_declog_take(out, &((zmq_seat *)rs)->log);
}

/* Direct: whether the answer (or a fault) is there or the deadline past.
 * An inproc seat waits in collect (a thread per match). */
static bool zmq_ready(ref_seat *rs, int64_t deadline_ns)
{
    zmq_seat *s = (zmq_seat *)rs;
    return !s->hs || ref_hub__direct_ready(s->hs, s->turn, deadline_ns);
}

static void zmq_end(ref_seat *rs, const ja_outcome *o)
{
    zmq_seat *s = (zmq_seat *)rs;
    ref_wire_end_info ei = {s->match, o, s->faults, s->replay};
    ref_wire_end(&s->buf, &ei);
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_END;
    hub_rep r;
    if (s->hs)
        ref_hub__direct_call(s->zb->hub, &s->hs, &q, s->buf.data, s->buf.size, &r);
    else
        ref_hub__send(s->sock, &q, s->buf.data, s->buf.size);
}

/* Waits for the hub to forget the seat: a match id is free again only then. */
static void zmq_seat_close(ref_seat *rs)
{
    zmq_seat *s = (zmq_seat *)rs;
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_CLOSE;
    if (s->hs) {
        hub_rep r;
        ref_hub__direct_call(s->zb->hub, &s->hs, &q, NULL, 0, &r);
    } else if (s->sock && ref_hub__send(s->sock, &q, NULL, 0) == JA_OK) {
        zmq_pollitem_t it = {s->sock, 0, ZMQ_POLLIN, 0};
        while (zmq_poll(&it, 1, HUB_REPLY_MS) > 0) {
            hub_rep r;
            memset(&r, 0, sizeof r);
            if (zmq_recv(s->sock, &r, sizeof r, 0) > 0 && r.kind == HUB_REP_OK &&
                r.turn == UINT32_MAX)
                break;
        }
    }
    close_seat(s);
}

static size_t zmq_stderr_tail(ref_seat *rs, char *buf, size_t cap)
{
    zmq_bot *b = ((zmq_seat *)rs)->zb;
    if (!b->tail || !cap)
        return 0;
    return ref_tail_get(b->tail, buf, cap);
}

void ref_bot_zmq_set_tail(ref_bot *rb, struct ref_tail *tail)
{
    ((zmq_bot *)rb)->tail = tail;
}

void ref_bot_zmq_set_params(ref_bot *rb, const char *params)
{
    zmq_bot *b = (zmq_bot *)rb;
    snprintf(b->params, sizeof b->params, "%s", params ? params : "");
    snprintf(b->version, sizeof b->version, "%s%s%s", b->hello_version, b->params[0] ? ":" : "",
             b->params);
}

static void zmq_destroy(ref_bot *rb)
{
    pthread_mutex_destroy(&((zmq_bot *)rb)->seats_mu);
    free(rb);
}

static const ref_bot_ops zmq_ops = {
    .kind = "zmq",
    .supports = zmq_supports,
    .seat_open = zmq_seat_open,
    .ask = zmq_ask,
    .collect = zmq_collect,
    .end = zmq_end,
    .seat_close = zmq_seat_close,
    .destroy = zmq_destroy,
    .capacity = zmq_capacity,
    .default_move_ms = 1000,
    .stderr_tail = zmq_stderr_tail,
    .ready = zmq_ready,
    .take_log = zmq_take_log,
};

/* A participant named `name` (its hello), as found by ref_hub_claim. */
static ref_bot *zmq_bot_new(ref_hub *h, const char *name, const char *kind,
                            const char *version, uint32_t capacity, uint32_t n_games,
                            const char (*games)[REF_WIRE_NAME_MAX])
{
    zmq_bot *b = ja_xcalloc(1, sizeof *b);
    pthread_mutex_init(&b->seats_mu, NULL);
    b->hub = h;
    snprintf(b->name, sizeof b->name, "%s", name);
    snprintf(b->hello_version, sizeof b->hello_version, "%s", version ? version : "");
    snprintf(b->version, sizeof b->version, "%s", b->hello_version);
    snprintf(b->kind, sizeof b->kind, "%s", kind && *kind ? kind : "zmq");
    b->capacity = capacity ? capacity : 1;
    b->n_games = n_games > REF_WIRE_MAX_GAMES ? REF_WIRE_MAX_GAMES : n_games;
    for (uint32_t i = 0; i < b->n_games; i++)
        snprintf(b->games[i], sizeof b->games[i], "%s", games[i]);
    b->base.ops = &zmq_ops;
    b->base.info = (ref_bot_info){b->kind, b->name, b->version, "", ""};
    return &b->base;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

int ref_hub_claim(ref_hub *h, const ref_hub_claim_req *req, ref_bot **out, char *err, size_t cap)
{
    *out = NULL;
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_CLAIM;
    snprintf(q.name, sizeof q.name, "%s", req->name);
    q.pid = req->pid;
    size_t n_token = req->token ? strlen(req->token) : 0;
    hub_rep r;
    for (;;) {
        int rc = ref_hub__call(h, &q, req->token, n_token, &r, 10000);
        if (rc != JA_OK) {
            snprintf(err, cap, "the referee's hub is not answering");
            return JA_EIO;
        }
        if (r.kind == HUB_REP_OK)
            break;
        if (r.kind == HUB_REP_FAIL) {
            snprintf(err, cap, "%s", r.msg);
            return JA_EIO;
        }
        r.msg[sizeof r.msg - 1] = '\0';
        r.others[sizeof r.others - 1] = '\0';
        if (r.kind == HUB_REP_REFUSED) {
            snprintf(err, cap, "%s", r.msg);
            return JA_EINVAL;
        }
        if (req->gone && req->gone(req->gone_ctx)) {
            snprintf(err, cap, "exited before saying hello%s%s", r.msg[0] ? "; " : "", r.msg);
            return JA_EBOT;
        }
        if (ref_now_ns() >= req->deadline_ns) {
            if (r.msg[0])
                snprintf(err, cap, "never said hello: %s", r.msg);
            else if (r.others[0] && req->token)
                snprintf(err, cap, "never said hello: no hello carried its token, "
                                   "$JACKARENA_TOKEN (hellos came from %s)", r.others);
            else if (r.others[0])
                snprintf(err, cap, "never said hello as '%s' (hellos came from %s)", req->name,
                         r.others);
            else
                snprintf(err, cap, "never said hello");
            return JA_ETIMEOUT;
        }
        sleep_ms(10);
    }
    r.name[sizeof r.name - 1] = '\0';
    *out = zmq_bot_new(h, r.name, req->kind, r.status.version, r.status.capacity, r.n_games,
                       (const char(*)[REF_WIRE_NAME_MAX])r.games);
    return JA_OK;
}
