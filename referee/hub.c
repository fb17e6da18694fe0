/* The hub (hub.h): the loop that owns the bots' ROUTER socket, judges
 * every bot message, and routes between bots and the seats of running
 * matches; the hub's thread runs it, or a direct seat's while it waits.
 *
 * Invariants:
 *  - Only the holder of the baton (hub_int.h) touches the bots' ROUTER, its
 *    monitor, the ZAP and control sockets and the state below after
 *    ref_hub_start returns (they were created and bound by the starting
 *    thread; pthread_create is the memory barrier that hands them over, and
 *    the baton's mutex each later hand-over's).
 *  - A connection (conn) is known by its ROUTER routing id. It is NEW until
 *    its hello is accepted, READY after, DEAD once gone (freed at the end of
 *    the loop turn). At most one READY connection has a given name: a hello
 *    for a name a READY connection holds is refused (admit), and the holder
 *    is never touched by it.
 *  - A grant (a cmd: bot's token) lives until ref_hub_stop; at most one
 *    grant holds a given name. A connection points at the grant whose token
 *    its hello carried.
 *  - A seat (hub_seat) is known by the routing id of its inproc socket and
 *    points at the connection it plays through, or at NULL once that
 *    connection is gone (every request then faults `disconnect`).
 *  - A seat has at most one pending request. An answer is on time when it
 *    reaches the hub by the request's deadline; the seat accepts exactly
 *    those (the hub forwards nothing else), so the referee never waits past
 *    a deadline for a bot and never takes a late answer.
 *  - Disconnects: the monitor reports ACCEPTED and DISCONNECTED events with
 *    the file descriptor; a message's ZMQ_SRCFD ties a connection to its
 *    descriptor. Descriptor numbers are reused, so each ACCEPTED bumps the
 *    descriptor's generation, and a connection records the generation
 *    current when its first message is read (the monitor is drained before
 *    a new connection's first message is handled, and libzmq emits ACCEPTED
 *    before it delivers any message of that connection). DISCONNECTED(fd)
 *    ends the connection with that descriptor and the current generation. */
#include "hub_int.h"
#include "ja_mp.h"
#include "zap.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_version.h"
#include "ja_xalloc.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define HUB_MON_ENDPOINT "inproc://jackarena-hub-monitor"
#define HUB_ZAP_ENDPOINT REF_ZAP_ENDPOINT
#define HUB_TICK_MS 100
#define HUB_GRACE_MS 2   /* the hub thread waits this long after a direct seat's call */
#define HUB_PROBE_MS 100 /* a name's holder is pinged for a competing hello at most this often */
#define RID_MAX 256

enum { C_NEW, C_READY, C_DEAD };

/* A cmd: bot's credential (ref_hub_grant). */
typedef struct grant {
    struct grant *next;
    char who[REF_WIRE_NAME_MAX];   /* the name it was granted for */
    char name[REF_WIRE_NAME_MAX];  /* the name it holds: who until a hello says another */
    bool spoke;                    /* a hello with its token was accepted: name is final */
    char token[REF_WIRE_TOKEN_MAX];
    size_t token_len;
} grant;

#define HUB_LINEAGE 32 /* ancestors of a refused hello's process kept */

typedef struct conn {
    struct conn *next;
    unsigned char rid[RID_MAX];
    size_t rid_len;
    int state;
    int fd;
    uint32_t gen;
    char name[REF_WIRE_NAME_MAX];
    char version[REF_WIRE_VERSION_MAX];
    uint32_t capacity;
    bool bin;                    /* its hello asked for the compact act */
    uint32_t n_games;
    char games[REF_WIRE_MAX_GAMES][REF_WIRE_NAME_MAX];
    int64_t hello_ns, last_seen_ns, last_ping_ns;
    uint32_t errors[REF_WIRE_ERR_COUNT];
    uint32_t pongs;
    char key[REF_HUB_KEY_Z85];   /* its Curve client key (ZAP's user id), "" if unknown */
    grant *g;                    /* READY: the grant its hello proved, or NULL */
    /* Its last refused hello (NEW): the name asked, the grant its token
     * proved (by_token) or its name named (or NULL), the error code, why;
     * the arena's log has the first refusal. */
    char asked[REF_WIRE_NAME_MAX];
    grant *tried;
    bool by_token;
    ref_wire_err refused_code;
    char refused[300];
    bool logged;
    int pid;                     /* the peer's process on ipc (SO_PEERCRED), else 0 */
    int lineage[HUB_LINEAGE];    /* at its refused hello: pid and its ancestors */
    int n_lineage;
} conn;

typedef struct hub_seat {
    struct hub_seat *next;
    unsigned char sid[RID_MAX];
    size_t sid_len;
    conn *c;                     /* NULL: the bot is gone */
    char match[REF_WIRE_MATCH_MAX];
    bool pending;
    uint32_t turn, n_legal;
    int64_t deadline_ns, asked_ns;
    uint32_t timed_out_turn;     /* the last turn closed by its deadline, 0 if none */
    bool direct;                 /* a direct seat (ref_hub__direct): replies go to rep */
    bool has_rep;                /* direct: rep holds a reply not yet taken */
    hub_rep rep;                 /* direct: the last ANSWER or FAULT (leading fields) */
} hub_seat;

typedef struct claimed_name {
    struct claimed_name *next;
    char name[REF_WIRE_NAME_MAX];
} claimed_name;

struct ref_hub {
    ref_hub_config cfg;
    void *ctx;
    void *router, *ctl, *mon, *zap;
    pthread_t thread;
    bool running;
    char endpoint[512];          /* for bots */
    char private_dir[256];       /* "" unless we made it */
    char server_key[REF_HUB_KEY_Z85];
    char **allow;                /* copies of cfg.allow */
    char **allow_names;          /* copies of cfg.allow_names (NULL entries: bare keys) */
    uint32_t allow_cap;          /* entries allocated in allow and allow_names */
    /* thread state */
    conn *conns;
    hub_seat *seats;
    claimed_name *claimed;
    grant *grants;
    uint32_t *fdgen;
    size_t n_fdgen;
    msgpack_sbuffer out;
    bool quit;
    /* The baton (hub_int.h, "The direct path"): whoever holds it owns the
     * sockets and the state above. All under lk. */
    pthread_mutex_t lk;
    pthread_cond_t cv;
    bool lk_ready;               /* lk and cv were initialised */
    bool direct;                 /* seats opened from now on are direct */
    bool busy;                   /* a thread holds the baton */
    bool kicked;                 /* wake_fd was written and not yet read */
    uint32_t want;               /* threads waiting to take the baton */
    uint32_t yielded;            /* direct waits that handed it over and want it back */
    int64_t left_ns;             /* when a direct seat last gave it back */
    int wake_fd;                 /* eventfd: a kick to whoever pumps */
    /* What pump() waits on (baton holder only): each socket's ZMQ_FD, the
     * descriptor of its command mailbox, and which sockets may hold
     * something to read (MAY_*). A socket's bit is cleared only by a receive
     * that found nothing (EAGAIN), which leaves its mailbox asleep: from
     * then on anything that arrives for it makes its descriptor readable.
     * Any other call on the socket may take that signal (a send processes
     * commands), so each send sets the bit again. The bits spare a receive
     * on every socket at every turn, and zmq_poll's ZMQ_EVENTS check of each
     * before and after it waits: two system calls each (libzmq checks its
     * mailbox with a poll and a getpid). */
    int fd_mon, fd_router, fd_ctl, fd_zap;
    unsigned may;
    bool gone;                   /* a receive said ETERM: the context is ending */
};

enum { MAY_MON = 1, MAY_ROUTER = 2, MAY_CTL = 4, MAY_ZAP = 8, MAY_ALL = 15 };

/* After a receive on sock (bit) that failed: EAGAIN means drained. */
static void drained(ref_hub *h, unsigned bit)
{
    if (zmq_errno() == ETERM)
        h->gone = true;
    else
        h->may &= ~bit;
}

void *ref_hub__ctx(ref_hub *h) { return h->ctx; }
unsigned ref_hub__wire_flags(const ref_hub *h) { return h->cfg.wire_flags; }
const char *ref_hub_endpoint(const ref_hub *h) { return h->endpoint; }
const char *ref_hub_server_key(const ref_hub *h) { return h->cfg.curve ? h->server_key : NULL; }

/* ---- the hub thread: helpers ----------------------------------------------- */

static conn *conn_by_rid(ref_hub *h, const void *rid, size_t len)
{
    for (conn *c = h->conns; c; c = c->next)
        if (c->state != C_DEAD && c->rid_len == len && memcmp(c->rid, rid, len) == 0)
            return c;
    return NULL;
}

static conn *conn_by_name(ref_hub *h, const char *name)
{
    for (conn *c = h->conns; c; c = c->next)
        if (c->state == C_READY && strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

static bool is_claimed(ref_hub *h, const char *name)
{
    for (claimed_name *k = h->claimed; k; k = k->next)
        if (strcmp(k->name, name) == 0)
            return true;
    return false;
}

static hub_seat *seat_by_sid(ref_hub *h, const void *sid, size_t len)
{
    for (hub_seat *s = h->seats; s; s = s->next)
        if (s->sid_len == len && memcmp(s->sid, sid, len) == 0)
            return s;
    return NULL;
}

static hub_seat *seat_by_match(ref_hub *h, const conn *c, const char *match)
{
    for (hub_seat *s = h->seats; s; s = s->next)
        if (s->c == c && strcmp(s->match, match) == 0)
            return s;
    return NULL;
}

/* The request a message that names no (known) match is charged to: the
 * connection's oldest request still within its deadline. */
static hub_seat *oldest_pending(ref_hub *h, const conn *c, int64_t now)
{
    hub_seat *best = NULL;
    for (hub_seat *s = h->seats; s; s = s->next)
        if (s->c == c && s->pending && (!s->deadline_ns || now <= s->deadline_ns) &&
            (!best || s->asked_ns < best->asked_ns))
            best = s;
    return best;
}

/* Sends one reply frame to a seat or control socket; a vanished peer (a
 * closed seat) is not an error. ANSWER and FAULT replies carry only the
 * leading fields and their log. */
static void to_peer(ref_hub *h, const void *id, size_t id_len, const hub_rep *r)
{
    size_t n = (r->kind == HUB_REP_ANSWER || r->kind == HUB_REP_FAULT) ? hub_rep_size(r)
                                                                       : sizeof *r;
    h->may |= MAY_CTL;
    if (zmq_send(h->ctl, id, id_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) == (int)id_len)
        zmq_send(h->ctl, r, n, ZMQ_DONTWAIT);
}

/* An ANSWER or FAULT for a seat: to its inproc socket, or into a direct
 * seat's mailbox. */
static void seat_reply(ref_hub *h, hub_seat *s, const hub_rep *r)
{
    if (!s->direct) {
        to_peer(h, s->sid, s->sid_len, r);
        return;
    }
    memcpy(&s->rep, r, hub_rep_size(r));
    s->has_rep = true;
}

/* Fills the leading fields of r (kind, the seat's turn) and the log of
 * the bot's message m (NULL: none). */
static void rep_for(hub_rep *r, const hub_seat *s, hub_rep_kind kind, const ref_wire_msg *m)
{
    memset(r, 0, offsetof(hub_rep, log));
    r->kind = kind;
    r->turn = s->turn;
    if (m) {
        memcpy(r->log, m->log, m->log_len);
        r->log_len = m->log_len;
        r->log_cut = m->log_cut;
    }
}

/* The pending request of s ends in fault f; m: the bot's own action that
 * decided it (its log goes with the fault, and with an `error` the code its
 * act() returned when the action said), or NULL. */
static void seat_fault_of(ref_hub *h, hub_seat *s, ja_fault f, const ref_wire_msg *m)
{
    hub_rep r;
    rep_for(&r, s, HUB_REP_FAULT, m);
    r.fault = (uint32_t)f;
    r.error = m && m->has_error ? m->code : 0;
    s->pending = false;
    seat_reply(h, s, &r);
}

static void seat_fault(ref_hub *h, hub_seat *s, ja_fault f)
{
    seat_fault_of(h, s, f, NULL);
}

static void conn_dead(ref_hub *h, conn *c)
{
    if (c->state == C_DEAD)
        return;
    c->state = C_DEAD;
    for (hub_seat *s = h->seats; s; s = s->next)
        if (s->c == c) {
            if (s->pending)
                seat_fault(h, s, JA_FAULT_DISCONNECT);
            s->c = NULL;
        }
}

/* Non-blocking send of one wire message to a bot. A vanished peer ends the
 * connection; a full queue drops the message (the request then times out). */
static int send_bot(ref_hub *h, conn *c, const void *buf, size_t n)
{
    if (c->state == C_DEAD)
        return JA_EIO;
    h->may |= MAY_ROUTER;
    if (zmq_send(h->router, c->rid, c->rid_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) != (int)c->rid_len) {
        if (zmq_errno() == EHOSTUNREACH)
            conn_dead(h, c);
        return JA_EIO;
    }
    if (zmq_send(h->router, buf, n, ZMQ_DONTWAIT) != (int)n)
        return JA_EIO;
    return JA_OK;
}

static void send_error(ref_hub *h, conn *c, ref_wire_err code, const char *match, uint32_t turn,
                       const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void send_error(ref_hub *h, conn *c, ref_wire_err code, const char *match, uint32_t turn,
                       const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->errors[code]++;
    ref_wire_error(&h->out, code, msg, match, turn);
    send_bot(h, c, h->out.data, h->out.size);
}

/* ---- the hub thread: who may say hello as whom ------------------------------- */

/* The grant whose token is tok (n bytes), or NULL. Every grant is compared,
 * each in constant time (sodium_memcmp): the time taken tells nothing of
 * how much of a token was right. */
static grant *grant_by_token(ref_hub *h, const void *tok, size_t n)
{
    grant *found = NULL;
    for (grant *g = h->grants; g; g = g->next)
        if (n && g->token_len == n && sodium_memcmp(g->token, tok, n) == 0)
            found = g;
    return found;
}

static grant *grant_by_name(ref_hub *h, const char *name)
{
    for (grant *g = h->grants; g; g = g->next)
        if (strcmp(g->name, name) == 0)
            return g;
    return NULL;
}

/* Whether Curve client key may say hello as name (ref_hub_config's
 * allow_names): a name bound to keys only by them; an unbound name by a
 * bare key. Without an allow-list, any key any name. */
static bool key_may_use(const ref_hub *h, const char *key, const char *name)
{
    if (!h->allow || !h->allow_names)
        return true;
    bool bound = false;
    for (uint32_t i = 0; i < h->cfg.n_allow; i++)
        if (h->allow_names[i] && strcmp(h->allow_names[i], name) == 0) {
            bound = true;
            if (strcmp(h->allow[i], key) == 0)
                return true;
        }
    if (bound)
        return false;
    for (uint32_t i = 0; i < h->cfg.n_allow; i++)
        if (!h->allow_names[i] && strcmp(h->allow[i], key) == 0)
            return true;
    return false;
}

static void read_monitor(ref_hub *h);

/* Whether the READY connection holding a name is still there: the monitor
 * is read again and the holder pinged (a send to a vanished peer ends it),
 * so that a bot whose old connection has just died gets its name back. The
 * holder is pinged at most every HUB_PROBE_MS, however many hellos ask. */
static bool holder_alive(ref_hub *h, conn *old)
{
    read_monitor(h);
    int64_t now = ref_now_ns();
    if (old->state == C_READY && now - old->last_ping_ns >= (int64_t)HUB_PROBE_MS * 1000000) {
        old->last_ping_ns = now;
        ref_wire_ping(&h->out);
        send_bot(h, old, h->out.data, h->out.size);
    }
    return old->state == C_READY;
}

/* Whether the hello m on connection c may take its name: JA_OK (with *g the
 * grant its token proved, or NULL), or the code of the refusal and why. */
static int admit(ref_hub *h, conn *c, const ref_wire_msg *m, grant **g, ref_wire_err *code,
                 char *why, size_t cap)
{
    *g = NULL;
    *code = REF_WIRE_ERR_UNAUTHORIZED;
    if (m->token[0]) {
        *g = grant_by_token(h, m->token, strlen(m->token));
        if (!*g) {
            snprintf(why, cap, "the token is not one this arena gave (a restarted bot gets a new "
                               "one in $JACKARENA_TOKEN)");
            return JA_EINVAL;
        }
        if ((*g)->spoke && strcmp((*g)->name, m->name) != 0) {
            snprintf(why, cap, "the token belongs to the bot that said hello as '%s'; it says "
                               "hello under that name only", (*g)->name);
            return JA_EINVAL;
        }
    }
    grant *owner = grant_by_name(h, m->name);
    if (owner && owner != *g) {
        snprintf(why, cap, "the name '%s' belongs to a bot the arena started: only a hello with "
                           "that bot's token ($JACKARENA_TOKEN) may use it", m->name);
        return JA_EINVAL;
    }
    if (h->allow && !key_may_use(h, c->key, m->name)) {
        snprintf(why, cap, "the name '%s' is not this client key's (%s binds it to other "
                           "keys, or this key to other names)", m->name,
                 h->cfg.allow_live ? "the server" : "--curve-allow");
        return JA_EINVAL;
    }
    conn *old = conn_by_name(h, m->name);
    if (old && holder_alive(h, old)) {
        *code = REF_WIRE_ERR_NAME_TAKEN;
        snprintf(why, cap, "the name '%s' is held by another live connection; a second hello "
                           "never replaces it (say hello again once that connection is gone)",
                 m->name);
        return JA_EINVAL;
    }
    return JA_OK;
}

/* Refuses the hello m on c (g: the grant its token proved, or NULL): an
 * `error` to it, the arena's log once per connection, and a note for the
 * claim that waits for that name or grant; the connection stays NEW and may
 * say hello again. */
/* pid and its parents up to init (/proc/PID/stat), into c->lineage: read
 * at the refusal, while the process waits for the answer (it may exit once
 * it has it, and its parents with it). */
static void read_lineage(conn *c, int pid)
{
    c->n_lineage = 0;
    while (pid > 1 && c->n_lineage < HUB_LINEAGE) {
        c->lineage[c->n_lineage++] = pid;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        const char *close = strrchr(buf, ')');
        if (!close || sscanf(close + 1, " %*c %d", &pid) != 1)
            return;
    }
}

static void refuse(ref_hub *h, conn *c, const ref_wire_msg *m, grant *g, ref_wire_err code,
                   const char *why)
{
    snprintf(c->asked, sizeof c->asked, "%s", m->name);
    snprintf(c->refused, sizeof c->refused, "%s", why);
    c->refused_code = code;
    c->by_token = g != NULL;
    c->tried = g ? g : grant_by_name(h, m->name); /* its token's grant, or the name's */
    if (c->pid > 0)
        read_lineage(c, c->pid);
    send_error(h, c, code, NULL, 0, "%s", why);
    if (h->cfg.log && !c->logged) {
        char line[512];
        snprintf(line, sizeof line, "refused a hello as '%s' (%s): %s", m->name,
                 ref_wire_error_code(code), why);
        h->cfg.log(h->cfg.log_ctx, line);
    }
    c->logged = true;
}

/* ---- the hub thread: bot messages ------------------------------------------- */

static void on_hello(ref_hub *h, conn *c, const ref_wire_msg *m)
{
    if (c->state == C_READY) {
        send_error(h, c, REF_WIRE_ERR_UNEXPECTED, NULL, 0, "already said hello as '%s'", c->name);
        return;
    }
    grant *g;
    ref_wire_err code;
    char why[300];
    if (m->protocol != JA_PROTOCOL) {
        snprintf(why, sizeof why, "this referee speaks protocol %d, the hello asks for %llu",
                 JA_PROTOCOL, (unsigned long long)m->protocol);
        refuse(h, c, m, m->token[0] ? grant_by_token(h, m->token, strlen(m->token)) : NULL,
               REF_WIRE_ERR_PROTOCOL_VERSION, why);
        return;
    }
    if (admit(h, c, m, &g, &code, why, sizeof why) != JA_OK) {
        refuse(h, c, m, g, code, why);
        return;
    }
    if (c->state != C_NEW)
        return; /* it went while its holder was checked */
    if (g) {
        snprintf(g->name, sizeof g->name, "%s", m->name);
        g->spoke = true;
    }
    c->g = g;
    c->refused[0] = '\0';
    c->tried = NULL;
    c->state = C_READY;
    snprintf(c->name, sizeof c->name, "%s", m->name);
    snprintf(c->version, sizeof c->version, "%s", m->version);
    c->capacity = m->capacity;
    c->bin = m->bin;
    c->n_games = m->n_games;
    memcpy(c->games, m->games, sizeof c->games);
    c->hello_ns = c->last_seen_ns;
    ref_wire_welcome(&h->out, c->name, c->capacity);
    send_bot(h, c, h->out.data, h->out.size);
}

static void on_action(ref_hub *h, conn *c, const ref_wire_msg *m, int64_t now)
{
    hub_seat *s = seat_by_match(h, c, m->match);
    uint32_t turn = m->turn > UINT32_MAX ? UINT32_MAX : (uint32_t)m->turn;
    if (!s) {
        send_error(h, c, REF_WIRE_ERR_UNKNOWN_MATCH, m->match, 0,
                   "this bot plays no match '%s'", m->match);
        hub_seat *o = oldest_pending(h, c, now);
        if (o)
            seat_fault(h, o, JA_FAULT_PROTOCOL);
        return;
    }
    if (s->pending && s->deadline_ns && now > s->deadline_ns) {
        /* Its deadline passed: the seat has timed out on its own. */
        s->pending = false;
        s->timed_out_turn = s->turn;
    }
    if (!s->pending) {
        if (turn == s->timed_out_turn && turn != 0)
            send_error(h, c, REF_WIRE_ERR_LATE, s->match, turn,
                       "turn %u was answered after its deadline; the default action was played",
                       (unsigned)turn);
        else
            send_error(h, c, REF_WIRE_ERR_UNEXPECTED, s->match, turn,
                       "nothing is asked in match '%s' now", s->match);
        return;
    }
    if (turn != s->turn) {
        if (turn == s->timed_out_turn && turn != 0) {
            send_error(h, c, REF_WIRE_ERR_LATE, s->match, turn,
                       "turn %u was answered after its deadline; the default action was played",
                       (unsigned)turn);
            return;
        }
        send_error(h, c, REF_WIRE_ERR_STALE_TURN, s->match, turn,
                   "the request pending in match '%s' is turn %u, not %llu", s->match,
                   (unsigned)s->turn, (unsigned long long)m->turn);
        seat_fault(h, s, JA_FAULT_PROTOCOL);
        return;
    }
    if (m->has_error) {
        /* The bot says it could not choose: its own error, no reply owed. */
        seat_fault_of(h, s, JA_FAULT_ERROR, m);
        return;
    }
    if (m->index >= s->n_legal) {
        if (m->index == UINT64_MAX)
            send_error(h, c, REF_WIRE_ERR_ILLEGAL_INDEX, s->match, turn,
                       "index is negative; the legal list has %u entries", (unsigned)s->n_legal);
        else
            send_error(h, c, REF_WIRE_ERR_ILLEGAL_INDEX, s->match, turn,
                       "index %llu is out of range; the legal list has %u entries",
                       (unsigned long long)m->index, (unsigned)s->n_legal);
        seat_fault_of(h, s, JA_FAULT_ILLEGAL, m);
        return;
    }
    hub_rep r;
    rep_for(&r, s, HUB_REP_ANSWER, m);
    r.index = (uint32_t)m->index;
    r.at_ns = now;
    s->pending = false;
    seat_reply(h, s, &r);
}

/* The process of the peer that sent msg on an ipc endpoint: libzmq's
 * Peer-Address there ends with ":UID:GID:PID" (SO_PEERCRED). 0 when
 * unknown (tcp, whose address may hold colons too). */
static int peer_pid(const ref_hub *h, zmq_msg_t *msg)
{
    if (strncmp(h->endpoint, "ipc://", 6) != 0)
        return 0;
    const char *a = zmq_msg_gets(msg, "Peer-Address");
    const char *colon = a ? strrchr(a, ':') : NULL;
    char *end;
    long pid = colon ? strtol(colon + 1, &end, 10) : 0;
    return pid > 0 && pid <= INT32_MAX && !*end ? (int)pid : 0;
}

static void on_bot_message(ref_hub *h, const void *rid, size_t rid_len, zmq_msg_t *msg,
                           bool multipart)
{
    int64_t now = ref_now_ns();
    conn *c = conn_by_rid(h, rid, rid_len);
    if (!c) {
        c = ja_xcalloc(1, sizeof *c);
        memcpy(c->rid, rid, rid_len);
        c->rid_len = rid_len;
        c->state = C_NEW;
        /* Its ACCEPTED is on the monitor by now (the invariants): read
         * it, whether or not the monitor's descriptor said so yet. */
        read_monitor(h);
        c->fd = zmq_msg_get(msg, ZMQ_SRCFD);
        c->gen = c->fd >= 0 && (size_t)c->fd < h->n_fdgen ? h->fdgen[c->fd] : 0;
        c->last_ping_ns = now;
        /* With the ZAP handler, the client key it let in (zap.h). */
        const char *uid = h->zap ? zmq_msg_gets(msg, "User-Id") : NULL;
        if (uid && strlen(uid) == REF_HUB_KEY_Z85 - 1)
            memcpy(c->key, uid, REF_HUB_KEY_Z85);
        c->pid = peer_pid(h, msg);
        c->next = h->conns;
        h->conns = c;
    }
    c->last_seen_ns = now;
    ref_wire_msg m;
    char why[256];
    int rc;
    if (multipart) {
        snprintf(why, sizeof why, "a message must be one frame");
        memset(&m, 0, sizeof m);
        rc = JA_EFORMAT;
    } else {
        rc = ref_wire_decode(zmq_msg_data(msg), zmq_msg_size(msg), &m, why, sizeof why);
    }
    if (rc != JA_OK) {
        send_error(h, c, REF_WIRE_ERR_MALFORMED, m.has_match ? m.match : NULL, 0, "%s", why);
        if (c->state == C_READY) {
            hub_seat *s = m.has_match ? seat_by_match(h, c, m.match) : NULL;
            if (!s || !s->pending || (s->deadline_ns && now > s->deadline_ns))
                s = oldest_pending(h, c, now);
            if (s)
                seat_fault(h, s, JA_FAULT_MALFORMED);
        }
        return;
    }
    if (m.type == REF_WIRE_HELLO) {
        on_hello(h, c, &m);
        return;
    }
    if (c->state != C_READY) {
        send_error(h, c, REF_WIRE_ERR_NO_HELLO, NULL, 0, "say hello first (a '%s' came)",
                   m.type_name);
        return;
    }
    switch (m.type) {
    case REF_WIRE_ACTION: on_action(h, c, &m, now); break;
    case REF_WIRE_PONG: c->pongs++; break;
    case REF_WIRE_BYE:
        ref_wire_bye(&h->out);
        send_bot(h, c, h->out.data, h->out.size);
        conn_dead(h, c);
        break;
    default:
        send_error(h, c, REF_WIRE_ERR_UNKNOWN_TYPE, NULL, 0, "unknown message type '%s' (ignored)",
                   m.type_name);
        break;
    }
}

static void read_bots(ref_hub *h)
{
    for (;;) {
        zmq_msg_t id, body;
        zmq_msg_init(&id);
        if (zmq_msg_recv(&id, h->router, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&id);
            drained(h, MAY_ROUTER);
            return;
        }
        zmq_msg_init(&body);
        bool extra = false;
        if (zmq_msg_more(&id) && zmq_msg_recv(&body, h->router, 0) >= 0) {
            /* Drain any further frames: a message is one frame. */
            while (zmq_msg_more(&body)) {
                zmq_msg_t more;
                zmq_msg_init(&more);
                zmq_msg_recv(&more, h->router, 0);
                int again = zmq_msg_more(&more);
                zmq_msg_close(&more);
                extra = true;
                if (!again)
                    break;
            }
            if (zmq_msg_size(&id) <= RID_MAX)
                on_bot_message(h, zmq_msg_data(&id), zmq_msg_size(&id), &body, extra);
        }
        zmq_msg_close(&body);
        zmq_msg_close(&id);
    }
}

/* ---- the hub thread: the monitor and ZAP ----------------------------------- */

static void read_monitor(ref_hub *h)
{
    for (;;) {
        zmq_msg_t ev, addr;
        zmq_msg_init(&ev);
        if (zmq_msg_recv(&ev, h->mon, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&ev);
            drained(h, MAY_MON);
            return;
        }
        zmq_msg_init(&addr);
        if (zmq_msg_more(&ev))
            zmq_msg_recv(&addr, h->mon, 0);
        if (zmq_msg_size(&ev) >= 6) {
            const unsigned char *p = zmq_msg_data(&ev);
            uint16_t event;
            uint32_t value;
            memcpy(&event, p, 2);
            memcpy(&value, p + 2, 4);
            int fd = (int)value;
            if (event == ZMQ_EVENT_ACCEPTED && fd >= 0) {
                if ((size_t)fd >= h->n_fdgen) {
                    size_t n = (size_t)fd * 2 + 16;
                    h->fdgen = ja_xrealloc(h->fdgen, n * sizeof *h->fdgen);
                    memset(h->fdgen + h->n_fdgen, 0, (n - h->n_fdgen) * sizeof *h->fdgen);
                    h->n_fdgen = n;
                }
                h->fdgen[fd]++;
            } else if (event == ZMQ_EVENT_DISCONNECTED && fd >= 0) {
                uint32_t gen = (size_t)fd < h->n_fdgen ? h->fdgen[fd] : 0;
                for (conn *c = h->conns; c; c = c->next)
                    if (c->fd == fd && c->gen == gen)
                        conn_dead(h, c);
            }
        }
        zmq_msg_close(&addr);
        zmq_msg_close(&ev);
    }
}

/* The ZAP handler's question: is this client key in --curve-allow? */
static bool key_allowed(void *ctx, const char *z85)
{
    ref_hub *h = ctx;
    return ref_zap_key_listed((const char *const *)h->allow, h->cfg.n_allow, z85);
}

static void read_zap(ref_hub *h)
{
    ref_zap_serve(h->zap, key_allowed, h);
    drained(h, MAY_ZAP); /* it returns after a receive that failed */
}

/* ---- the hub thread: control and seat requests ------------------------------ */

static void fill_status(const conn *c, hub_rep *r)
{
    r->status.connected = c->state == C_READY;
    snprintf(r->status.version, sizeof r->status.version, "%s", c->version);
    r->status.capacity = c->capacity;
    memcpy(r->status.errors, c->errors, sizeof r->status.errors);
    r->status.pongs = c->pongs;
    memcpy(r->status.key, c->key, sizeof r->status.key);
    snprintf(r->name, sizeof r->name, "%s", c->name);
    r->n_games = c->n_games;
    memcpy(r->games, c->games, sizeof r->games);
}

/* Whether connection k's refused hello ends the claim of grant g (NULL:
 * none) for the bot whose processes descend from root (0: none): it was
 * the bot's own, as its token proved or its process shows (on ipc), and
 * not for a name still held (which a retry may get). Anything else may be
 * another process's, or fixed by a second hello: the claim waits on. */
static bool refused_for_good(const conn *k, const grant *g, int root)
{
    if (k->refused_code == REF_WIRE_ERR_NAME_TAKEN)
        return false;
    for (int i = 0; root > 0 && i < k->n_lineage; i++)
        if (k->lineage[i] == root)
            return true;
    return g && k->tried == g && k->by_token;
}

/* A claim: by name, or (with a token) the connection whose hello proved
 * that token's grant. */
static void on_claim(ref_hub *h, const hub_req *q, const void *token, size_t n, hub_rep *r)
{
    grant *g = n ? grant_by_token(h, token, n) : NULL;
    conn *c = NULL;
    if (!n)
        c = conn_by_name(h, q->name);
    else if (g)
        for (conn *k = h->conns; k && !c; k = k->next)
            if (k->state == C_READY && k->g == g)
                c = k;
    if (c && is_claimed(h, c->name))
        c = NULL;
    if (!c) {
        r->kind = HUB_REP_NOTYET;
        /* Why a hello as wanted was refused, if one was; refused for good
         * when it was surely the bot's own. */
        for (conn *k = h->conns; k; k = k->next)
            if (k->state == C_NEW && k->refused[0] &&
                (n ? g && k->tried == g : strcmp(k->asked, q->name) == 0)) {
                bool good = refused_for_good(k, g, q->pid);
                snprintf(r->msg, sizeof r->msg, "a hello as '%s' was refused%s%s%s: %s", k->asked,
                         good ? " (" : "", good ? ref_wire_error_code(k->refused_code) : "",
                         good ? ")" : "", k->refused);
                if (good)
                    r->kind = HUB_REP_REFUSED;
            }
        size_t used = 0;
        for (conn *k = h->conns; k; k = k->next)
            if (k->state == C_READY && !is_claimed(h, k->name) && used < sizeof r->others - 70) {
                int w = snprintf(r->others + used, sizeof r->others - used, "%s'%s'",
                                 used ? ", " : "", k->name);
                used += w > 0 ? (size_t)w : 0;
            }
        return;
    }
    claimed_name *k = ja_xcalloc(1, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", c->name);
    k->next = h->claimed;
    h->claimed = k;
    r->kind = HUB_REP_OK;
    fill_status(c, r);
}

static void on_grant(ref_hub *h, const hub_req *q, const void *token, size_t n, hub_rep *r)
{
    grant *g = h->grants;
    while (g && strcmp(g->who, q->name) != 0)
        g = g->next;
    if (!g && grant_by_name(h, q->name)) {
        /* Another cmd: bot took this name with its own token first. */
        r->kind = HUB_REP_FAIL;
        snprintf(r->msg, sizeof r->msg, "its name '%s' was taken first by another bot the arena "
                                        "started", q->name);
        return;
    }
    if (!g) {
        g = ja_xcalloc(1, sizeof *g);
        snprintf(g->who, sizeof g->who, "%s", q->name);
        snprintf(g->name, sizeof g->name, "%s", q->name);
        g->next = h->grants;
        h->grants = g;
    }
    if (n == 0 || n >= sizeof g->token) {
        r->kind = HUB_REP_FAIL;
        snprintf(r->msg, sizeof r->msg, "a token is 1 to %d bytes", REF_WIRE_TOKEN_MAX - 1);
        return;
    }
    sodium_memzero(g->token, sizeof g->token);
    memcpy(g->token, token, n);
    g->token_len = n;
    r->kind = HUB_REP_OK;
}

/* ref_hub_allow_set: the key (payload) bound to q->name, or removed. */
static void on_allow(ref_hub *h, const hub_req *q, const void *payload, size_t n, hub_rep *r)
{
    char key[REF_HUB_KEY_Z85];
    uint8_t bin[32];
    r->kind = HUB_REP_FAIL;
    if (!h->cfg.allow_live || !h->allow || n != REF_HUB_KEY_Z85 - 1)
        return;
    memcpy(key, payload, n);
    key[n] = '\0';
    if (!zmq_z85_decode(bin, key))
        return;
    uint32_t i = 0;
    while (i < h->cfg.n_allow && strcmp(h->allow[i], key) != 0)
        i++;
    if (!q->name[0]) {
        if (i < h->cfg.n_allow) {
            free(h->allow[i]);
            free(h->allow_names[i]);
            h->cfg.n_allow--;
            h->allow[i] = h->allow[h->cfg.n_allow];
            h->allow_names[i] = h->allow_names[h->cfg.n_allow];
        }
        ref_wire_bye(&h->out);
        for (conn *c = h->conns; c; c = c->next)
            if (c->state != C_DEAD && strcmp(c->key, key) == 0) {
                send_bot(h, c, h->out.data, h->out.size);
                conn_dead(h, c);
            }
        r->kind = HUB_REP_OK;
        return;
    }
    char *name = ja_xstrdup(q->name);
    if (i == h->cfg.n_allow) {
        if (i == h->allow_cap) {
            uint32_t cap = h->allow_cap ? 2 * h->allow_cap : 16;
            h->allow = ja_xrealloc(h->allow, cap * sizeof *h->allow);
            h->allow_names = ja_xrealloc(h->allow_names, cap * sizeof *h->allow_names);
            h->allow_cap = cap;
        }
        h->allow[i] = ja_xstrdup(key);
        h->allow_names[i] = NULL;
        h->cfg.n_allow++;
    }
    free(h->allow_names[i]);
    h->allow_names[i] = name;
    r->kind = HUB_REP_OK;
}

/* A seat opens (sid: its inproc socket's routing id; none for a direct
 * seat): the new seat, or NULL with r saying why. */
static hub_seat *on_open(ref_hub *h, const void *sid, size_t sid_len, const hub_req *q,
                         const void *payload, size_t n, hub_rep *r)
{
    conn *c = conn_by_name(h, q->name);
    if (c && seat_by_match(h, c, q->match)) {
        r->kind = HUB_REP_FAIL;
        snprintf(r->msg, sizeof r->msg,
                 "bot '%s' already sits in match '%s' (an external bot plays one seat per match)",
                 q->name, q->match);
        return NULL;
    }
    if (sid_len > RID_MAX) { /* never: the hub's own inproc ids */
        r->kind = HUB_REP_FAIL;
        snprintf(r->msg, sizeof r->msg, "the seat's id is too long");
        return NULL;
    }
    hub_seat *s = ja_xcalloc(1, sizeof *s);
    if (sid_len) /* none for a direct seat */
        memcpy(s->sid, sid, sid_len);
    s->sid_len = sid_len;
    snprintf(s->match, sizeof s->match, "%s", q->match);
    s->c = c;
    s->next = h->seats;
    h->seats = s;
    if (c && send_bot(h, c, payload, n) != JA_OK && c->state == C_DEAD)
        s->c = NULL;
    r->kind = HUB_REP_OK;
    r->dead = s->c == NULL;
    r->bin = s->c && s->c->bin;
    return s;
}

static void on_act(ref_hub *h, hub_seat *s, const hub_req *q, const void *payload, size_t n)
{
    if (s->pending) {
        s->timed_out_turn = s->turn; /* its seat stopped waiting: it timed out */
        s->pending = false;
    }
    s->turn = q->turn;
    s->n_legal = q->n_legal;
    s->deadline_ns = q->deadline_ns;
    s->asked_ns = ref_now_ns();
    if (!s->c) {
        seat_fault(h, s, JA_FAULT_DISCONNECT);
        return;
    }
    s->pending = true;
    send_bot(h, s->c, payload, n); /* a failure to a vanished peer faults it in conn_dead */
}

static void remove_seat(ref_hub *h, hub_seat *s)
{
    for (hub_seat **p = &h->seats; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            free(s);
            return;
        }
}

/* One request (hub_int.h) of the seat s (NULL: none; a seat's request
 * then does nothing) or of a control call; sid is the sender's routing id
 * on the control socket (none for a direct seat). Fills r and returns
 * whether a reply is owed; *opened is the seat HUB_OPEN made. */
static bool on_request(ref_hub *h, const void *sid, size_t sid_len, hub_seat *s,
                       const hub_req *q, const void *payload, size_t n, hub_rep *r,
                       hub_seat **opened)
{
    conn *c = NULL;
    switch ((hub_op)q->op) {
    case HUB_OPEN: *opened = on_open(h, sid, sid_len, q, payload, n, r); return true;
    case HUB_ACT:
        if (s)
            on_act(h, s, q, payload, n);
        return false;
    case HUB_CANCEL:
        /* An answer the hub took in time was forwarded before this
         * reply, on the same pipe: the seat sees it first. */
        if (s && s->pending && s->turn == q->turn) {
            s->pending = false;
            s->timed_out_turn = s->turn;
        }
        r->kind = HUB_REP_OK;
        r->turn = q->turn;
        return true;
    case HUB_END:
        if (s) {
            s->pending = false;
            if (s->c)
                send_bot(h, s->c, payload, n);
        }
        return false;
    case HUB_CLOSE:
        if (s)
            remove_seat(h, s);
        r->kind = HUB_REP_OK;
        r->turn = UINT32_MAX; /* never a request's turn */
        return true;
    case HUB_CLAIM: on_claim(h, q, payload, n, r); return true;
    case HUB_GRANT: on_grant(h, q, payload, n, r); return true;
    case HUB_ALLOW: on_allow(h, q, payload, n, r); return true;
    case HUB_STATUS:
        if ((c = conn_by_name(h, q->name))) {
            r->kind = HUB_REP_OK;
            fill_status(c, r);
        } else {
            r->kind = HUB_REP_FAIL;
        }
        return true;
    case HUB_RAW:
        c = conn_by_name(h, q->name);
        r->kind = c && send_bot(h, c, payload, n) == JA_OK ? HUB_REP_OK : HUB_REP_FAIL;
        return true;
    case HUB_BYE_ALL:
        ref_wire_bye(&h->out);
        for (c = h->conns; c; c = c->next)
            if (c->state != C_DEAD) /* also those that never said hello */
                send_bot(h, c, h->out.data, h->out.size);
        r->kind = HUB_REP_OK;
        return true;
    case HUB_QUIT:
        pthread_mutex_lock(&h->lk);
        h->quit = true;
        pthread_mutex_unlock(&h->lk);
        r->kind = HUB_REP_OK;
        return true;
    default: return false;
    }
}

static void read_ctl(ref_hub *h)
{
    for (;;) {
        zmq_msg_t id, body;
        zmq_msg_init(&id);
        if (zmq_msg_recv(&id, h->ctl, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&id);
            drained(h, MAY_CTL);
            return;
        }
        zmq_msg_init(&body);
        if (!zmq_msg_more(&id) || zmq_msg_recv(&body, h->ctl, 0) < 0 ||
            zmq_msg_size(&body) < sizeof(hub_req)) {
            zmq_msg_close(&body);
            zmq_msg_close(&id);
            continue;
        }
        hub_req q;
        memcpy(&q, zmq_msg_data(&body), sizeof q);
        q.name[sizeof q.name - 1] = '\0';
        q.match[sizeof q.match - 1] = '\0';
        const unsigned char *payload = (const unsigned char *)zmq_msg_data(&body) + sizeof q;
        size_t n = zmq_msg_size(&body) - sizeof q;
        const void *sid = zmq_msg_data(&id);
        size_t sid_len = zmq_msg_size(&id);
        hub_rep r;
        memset(&r, 0, sizeof r);
        hub_seat *s = q.op == HUB_OPEN ? NULL : seat_by_sid(h, sid, sid_len), *opened = NULL;
        if (on_request(h, sid, sid_len, s, &q, payload, n, &r, &opened))
            to_peer(h, sid, sid_len, &r);
        zmq_msg_close(&body);
        zmq_msg_close(&id);
    }
}

/* ---- the hub thread: liveness and the loop --------------------------------- */

static void tick(ref_hub *h, int64_t now)
{
    const int64_t ping = (int64_t)(h->cfg.ping_ms ? h->cfg.ping_ms : REF_HUB_PING_MS) * 1000000;
    const int64_t dead = (int64_t)(h->cfg.dead_ms ? h->cfg.dead_ms : REF_HUB_DEAD_MS) * 1000000;
    for (conn *c = h->conns; c; c = c->next) {
        if (c->state != C_READY)
            continue;
        bool thinking = false;
        for (hub_seat *s = h->seats; s && !thinking; s = s->next)
            thinking = s->c == c && s->pending && (!s->deadline_ns || now <= s->deadline_ns);
        if (!thinking && now - c->last_seen_ns > dead) {
            conn_dead(h, c);
            continue;
        }
        if (now - c->last_seen_ns >= ping && now - c->last_ping_ns >= ping) {
            c->last_ping_ns = now;
            ref_wire_ping(&h->out);
            send_bot(h, c, h->out.data, h->out.size);
        }
    }
    /* Free connections that are gone; seats no longer point at them. */
    for (conn **p = &h->conns; *p;) {
        if ((*p)->state == C_DEAD) {
            conn *d = *p;
            *p = d->next;
            free(d);
        } else {
            p = &(*p)->next;
        }
    }
}

/* Whatever came on the hub's sockets, without waiting, in the order the
 * invariants need (the monitor first: ACCEPTED before that connection's
 * messages). */
static void handle_all(ref_hub *h)
{
    if (h->may & MAY_MON)
        read_monitor(h);
    if (!h->zap)
        h->may &= ~MAY_ZAP;
    else if (h->may & MAY_ZAP)
        read_zap(h);
    if (h->may & MAY_ROUTER)
        read_bots(h);
    if (h->may & MAY_CTL)
        read_ctl(h);
}

/* One turn of the hub's loop, by whichever thread holds the baton: waits up
 * to ms (-1: no limit) for a socket or a kick, handles what came, runs the
 * liveness tick. 1 when a kick came (someone wants the baton), 0 if not,
 * -1 when the context is gone. */
static int pump(ref_hub *h, long ms)
{
    /* The descriptors, not zmq_poll: see ref_hub's may. What may hold
     * something is read without waiting. */
    struct pollfd p[5] = {
        {h->fd_mon, POLLIN, 0},
        {h->fd_router, POLLIN, 0},
        {h->fd_ctl, POLLIN, 0},
        {h->wake_fd, POLLIN, 0},
        {h->fd_zap, POLLIN, 0},
    };
    static const unsigned bit[5] = {MAY_MON, MAY_ROUTER, MAY_CTL, 0, MAY_ZAP};
    const nfds_t n = h->zap ? 5 : 4;
    int timeout = h->may ? 0 : ms < 0 ? -1 : ms > INT_MAX ? INT_MAX : (int)ms;
    int kicked = 0;
    int ready = poll(p, n, timeout);
    /* A wait that ran out reads every socket once: should a signal ever be
     * taken where the bits do not know it, that costs a wait, never a
     * message (zmq_poll checks every socket at every call). */
    if (ready == 0 && timeout != 0)
        h->may = MAY_ALL;
    if (ready > 0) {
        for (nfds_t i = 0; i < n; i++)
            if (p[i].revents)
                h->may |= bit[i];
        if (p[3].revents & POLLIN) {
            uint64_t v;
            if (read(h->wake_fd, &v, sizeof v) < 0 && errno != EAGAIN)
                v = 0;
            pthread_mutex_lock(&h->lk);
            h->kicked = false;
            kicked = h->want > 0;
            pthread_mutex_unlock(&h->lk);
        }
    }
    handle_all(h);
    tick(h, ref_now_ns());
    return h->gone ? -1 : kicked;
}

/* ---- the baton ---------------------------------------------------------------- */

/* The hub whose baton this thread holds for good (ref_hub_hold): its
 * direct calls and waits then neither take nor give it. */
static _Thread_local ref_hub *tl_held;

/* Takes the baton: kicks the holder out of its wait if there is one (a
 * holder hands it over on a kick), then waits for it. */
static void baton_take(ref_hub *h)
{
    if (tl_held == h)
        return;
    pthread_mutex_lock(&h->lk);
    if (h->busy) {
        h->want++;
        if (h->busy && !h->kicked) {
            h->kicked = true;
            uint64_t one = 1;
            if (write(h->wake_fd, &one, sizeof one) < 0)
                h->kicked = false; /* cannot happen with an eventfd below its maximum */
        }
        while (h->busy)
            pthread_cond_wait(&h->cv, &h->lk);
        h->want--;
    }
    h->busy = true;
    pthread_mutex_unlock(&h->lk);
}

/* Gives the baton back after a direct seat's call. The hub thread takes it
 * again only once no direct seat has used it for HUB_GRACE_MS. */
static void baton_give(ref_hub *h)
{
    if (tl_held == h)
        return;
    pthread_mutex_lock(&h->lk);
    h->busy = false;
    h->left_ns = ref_now_ns();
    if (h->want || h->yielded)
        pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->lk);
}

/* A direct wait was kicked: hands the baton to those who want it, and takes
 * it back once they are done. */
static void baton_yield(ref_hub *h)
{
    pthread_mutex_lock(&h->lk);
    h->busy = false;
    h->yielded++;
    pthread_cond_broadcast(&h->cv);
    while (h->busy || h->want)
        pthread_cond_wait(&h->cv, &h->lk);
    h->yielded--;
    h->busy = true;
    pthread_mutex_unlock(&h->lk);
}

static struct timespec abs_time(int64_t ns)
{
    return (struct timespec){(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
}

/* The hub's thread: runs the loop while it holds the baton. It hands the
 * baton over on a kick; with direct seats it takes it back only when nobody
 * wants it and no direct seat has used it for HUB_GRACE_MS (so a match that
 * asks and collects in turn keeps it without waking this thread). */
static void *hub_main(void *arg)
{
    ref_hub *h = arg;
    const int64_t grace = (int64_t)HUB_GRACE_MS * 1000000;
    pthread_mutex_lock(&h->lk);
    for (;;) {
        for (;;) {
            int64_t now = ref_now_ns();
            if (h->quit)
                break;
            if (h->busy || h->want || h->yielded) {
                struct timespec t = abs_time(now + grace);
                pthread_cond_timedwait(&h->cv, &h->lk, &t);
            } else if (h->direct && now < h->left_ns + grace) {
                struct timespec t = abs_time(h->left_ns + grace);
                pthread_cond_timedwait(&h->cv, &h->lk, &t);
            } else {
                break;
            }
        }
        if (h->quit)
            break;
        h->busy = true;
        pthread_mutex_unlock(&h->lk);
        int k;
        do
            k = pump(h, HUB_TICK_MS);
        while (k == 0 && !h->quit);
        pthread_mutex_lock(&h->lk);
        h->busy = false;
        if (h->want || h->yielded)
            pthread_cond_broadcast(&h->cv);
        if (k < 0)
            break;
    }
    h->quit = true;
    pthread_mutex_unlock(&h->lk);
    return NULL;
}

/* ---- direct seats (hub_int.h) --------------------------------------------------- */

void ref_hub_set_direct(ref_hub *h, bool on)
{
    pthread_mutex_lock(&h->lk);
    h->direct = on;
    pthread_mutex_unlock(&h->lk);
}

bool ref_hub__direct(ref_hub *h)
{
    pthread_mutex_lock(&h->lk);
    bool on = h->direct;
    pthread_mutex_unlock(&h->lk);
    return on;
}

bool ref_hub__direct_call(ref_hub *h, hub_seat **s, const hub_req *q, const void *payload,
                          size_t n, hub_rep *r)
{
    memset(r, 0, sizeof *r);
    baton_take(h);
    /* A seat opens after what came meanwhile (a bot that said hello again
     * between matches, a disconnect) is handled, as the hub's loop would
     * have. */
    if (q->op == HUB_OPEN) {
        h->may = MAY_ALL;
        handle_all(h);
    }
    hub_seat *opened = NULL;
    if (q->op == HUB_ACT && *s)
        (*s)->has_rep = false;
    bool reply = on_request(h, NULL, 0, *s, q, payload, n, r, &opened);
    if (q->op == HUB_OPEN && opened)
        opened->direct = true;
    if (q->op == HUB_OPEN)
        *s = opened;
    else if (q->op == HUB_CLOSE)
        *s = NULL;
    baton_give(h);
    return reply;
}


void ref_hub__direct_wait(ref_hub *h, hub_seat *s, uint32_t turn, int64_t deadline_ns,
                          hub_rep *r)
{
    memset(r, 0, sizeof *r);
    baton_take(h);
    for (;;) {
        if (s->has_rep && s->rep.turn == turn) {
            memcpy(r, &s->rep, hub_rep_size(&s->rep));
            s->has_rep = false;
            break;
        }
        int64_t now = ref_now_ns();
        if (deadline_ns && now >= deadline_ns) {
            /* The deadline passed with no answer taken in time: the
             * request is closed, as a cancel would. */
            if (s->pending && s->turn == turn) {
                s->pending = false;
                s->timed_out_turn = s->turn;
            }
            r->kind = HUB_REP_OK;
            r->turn = turn;
            break;
        }
        long ms = ref_hub__wait_ms(deadline_ns, now);
        int k = pump(h, ms < 0 || ms > HUB_TICK_MS ? HUB_TICK_MS : ms);
        if (k < 0) {
            r->kind = HUB_REP_FAULT;
            r->turn = turn;
            r->fault = JA_FAULT_DISCONNECT;
            break;
        }
        if (k > 0)
            baton_yield(h);
    }
    baton_give(h);
}

bool ref_hub__direct_ready(const hub_seat *s, uint32_t turn, int64_t deadline_ns)
{
    return (s->has_rep && s->rep.turn == turn) || (deadline_ns && ref_now_ns() >= deadline_ns);
}

void ref_hub_hold(ref_hub *h)
{
    baton_take(h);
    tl_held = h;
}

void ref_hub_release(ref_hub *h)
{
    if (tl_held != h)
        return;
    tl_held = NULL;
    baton_give(h);
}

int ref_hub_run_once(ref_hub *h, int64_t until_ns)
{
    long ms = ref_hub__wait_ms(until_ns, ref_now_ns());
    int k = pump(h, ms < 0 || ms > HUB_TICK_MS ? HUB_TICK_MS : ms);
    if (k > 0)
        baton_yield(h);
    return k < 0 ? -1 : 0;
}

void ref_hub_wake(ref_hub *h)
{
    uint64_t one = 1;
    if (write(h->wake_fd, &one, sizeof one) < 0)
        return; /* cannot happen with an eventfd below its maximum */
}

long ref_hub__wait_ms(int64_t deadline_ns, int64_t now)
{
    if (!deadline_ns)
        return -1;
    if (now >= deadline_ns)
        return 0;
    return (long)((deadline_ns - now + 999999) / 1000000);
}

/* ---- starting and stopping ---------------------------------------------------- */

static bool loopback_host(const char *host, size_t len)
{
    return (len >= 4 && strncmp(host, "127.", 4) == 0) ||
           (len == 9 && strncmp(host, "localhost", 9) == 0) ||
           (len == 5 && strncmp(host, "[::1]", 5) == 0) || (len == 3 && strncmp(host, "::1", 3) == 0);
}

static int check_endpoint(const ref_hub_config *cfg, char *err, size_t cap)
{
    const char *e = cfg->endpoint;
    if (strncmp(e, "ipc://", 6) == 0)
        return e[6] ? JA_OK : (snprintf(err, cap, "--listen '%s' names no path", e), JA_EINVAL);
    if (strncmp(e, "tcp://", 6) != 0) {
        snprintf(err, cap, "--listen '%s': use ipc://PATH or tcp://HOST:PORT", e);
        return JA_EINVAL;
    }
    const char *host = e + 6, *colon = strrchr(host, ':');
    if (!colon || colon == host || !colon[1]) {
        snprintf(err, cap, "--listen '%s': a tcp endpoint needs HOST:PORT", e);
        return JA_EINVAL;
    }
    if (cfg->curve)
        return JA_OK;
    if (!cfg->plain_tcp) {
        snprintf(err, cap, "--listen '%s': plain tcp is refused; use --curve (CurveZMQ), or "
                           "--plain-tcp for a loopback address", e);
        return JA_EINVAL;
    }
    if (!cfg->plain_tcp_remote && !loopback_host(host, (size_t)(colon - host))) {
        snprintf(err, cap, "--listen '%s': plain tcp only on a loopback address (127.0.0.1, "
                           "[::1]); use --curve, or --plain-tcp-remote to allow it", e);
        return JA_EINVAL;
    }
    return JA_OK;
}

int ref_hub_check_endpoint(const ref_hub_config *cfg, char *err, size_t cap)
{
    return cfg->endpoint && cfg->endpoint[0] ? check_endpoint(cfg, err, cap) : JA_OK;
}

static void free_hub(ref_hub *h)
{
    for (uint32_t i = 0; i < h->cfg.n_allow; i++) {
        if (h->allow)
            free(h->allow[i]);
        if (h->allow_names)
            free(h->allow_names[i]);
    }
    free(h->allow);
    free(h->allow_names);
    while (h->conns) {
        conn *c = h->conns;
        h->conns = c->next;
        free(c);
    }
    while (h->seats) {
        hub_seat *s = h->seats;
        h->seats = s->next;
        free(s);
    }
    while (h->claimed) {
        claimed_name *k = h->claimed;
        h->claimed = k->next;
        free(k);
    }
    while (h->grants) {
        grant *g = h->grants;
        h->grants = g->next;
        sodium_memzero(g, sizeof *g);
        free(g);
    }
    free(h->fdgen);
    msgpack_sbuffer_destroy(&h->out);
    if (h->lk_ready) {
        pthread_cond_destroy(&h->cv);
        pthread_mutex_destroy(&h->lk);
    }
    if (h->wake_fd >= 0)
        close(h->wake_fd);
    free(h);
}

static void close_sockets(ref_hub *h)
{
    void **socks[] = {&h->router, &h->ctl, &h->mon, &h->zap};
    for (size_t i = 0; i < sizeof socks / sizeof *socks; i++)
        if (*socks[i]) {
            int zero = 0;
            if (socks[i] != &h->router)
                zmq_setsockopt(*socks[i], ZMQ_LINGER, &zero, sizeof zero);
            zmq_close(*socks[i]);
            *socks[i] = NULL;
        }
}

static void remove_private_dir(ref_hub *h)
{
    if (!h->private_dir[0])
        return;
    char path[300];
    snprintf(path, sizeof path, "%s/hub", h->private_dir);
    unlink(path);
    rmdir(h->private_dir);
    h->private_dir[0] = '\0';
}

/* The endpoint bots on this machine use: a tcp wildcard becomes loopback. */
static void public_endpoint(ref_hub *h)
{
    char last[512] = "";
    size_t n = sizeof last;
    if (zmq_getsockopt(h->router, ZMQ_LAST_ENDPOINT, last, &n) != 0 || !last[0])
        return;
    if (strncmp(last, "tcp://0.0.0.0:", 14) == 0)
        snprintf(h->endpoint, sizeof h->endpoint, "tcp://127.0.0.1:%s", last + 14);
    else if (strncmp(last, "tcp://[::]:", 11) == 0)
        snprintf(h->endpoint, sizeof h->endpoint, "tcp://[::1]:%s", last + 11);
    else
        snprintf(h->endpoint, sizeof h->endpoint, "%s", last);
}

/* Releases a hub that is not running, however far its start got: its
 * sockets, its context, its private directory, its memory. */
static void discard_hub(ref_hub *h)
{
    close_sockets(h);
    if (h->ctx)
        zmq_ctx_term(h->ctx);
    remove_private_dir(h);
    free_hub(h);
}

/* The hub's lock, the condition its callers wait on (timed on the
 * monotonic clock, which no change of the date moves) and the eventfd that
 * wakes whoever pumps. JA_OK, or JA_ENOMEM/JA_EIO with err. */
static int init_sync(ref_hub *h, char *err, size_t cap)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0) {
        snprintf(err, cap, "cannot start the hub: out of memory");
        return JA_ENOMEM;
    }
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    h->lk_ready = pthread_mutex_init(&h->lk, NULL) == 0;
    if (h->lk_ready && pthread_cond_init(&h->cv, &ca) != 0) {
        pthread_mutex_destroy(&h->lk);
        h->lk_ready = false;
    }
    pthread_condattr_destroy(&ca);
    if (!h->lk_ready || (h->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
        snprintf(err, cap, "cannot start the hub: %s", h->lk_ready ? strerror(errno)
                                                                   : "out of memory");
        return JA_EIO;
    }
    return JA_OK;
}

/* Where the router listens, into bind_ep: the endpoint given (checked), or
 * by default an ipc socket in a private directory of our own, which no
 * other user can reach. JA_OK, or JA_EINVAL/JA_EIO with err. */
static int bind_address(ref_hub *h, const ref_hub_config *cfg, char *bind_ep, size_t n, char *err,
                        size_t cap)
{
    if (cfg->endpoint && cfg->endpoint[0]) {
        int rc = check_endpoint(cfg, err, cap);
        if (rc == JA_OK)
            snprintf(bind_ep, n, "%s", cfg->endpoint);
        return rc;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(h->private_dir, sizeof h->private_dir, "%s/jackarena-XXXXXX",
             tmp && *tmp && strlen(tmp) < 80 ? tmp : "/tmp");
    if (!mkdtemp(h->private_dir)) { /* mkdtemp makes it 0700 */
        snprintf(err, cap, "cannot create a private directory for the bots' endpoint: %s",
                 strerror(errno));
        h->private_dir[0] = '\0';
        return JA_EIO;
    }
    snprintf(bind_ep, n, "ipc://%s/hub", h->private_dir);
    return JA_OK;
}

/* The hub's own copy of the allow list, which only CurveZMQ can check
 * (without it the list is dropped, and so is a live one). JA_OK. */
static int copy_allow(ref_hub *h, const ref_hub_config *cfg, char *err, size_t cap)
{
    h->cfg.allow = NULL;
    h->cfg.allow_names = NULL;
    if (!cfg->curve || !(cfg->n_allow || cfg->allow_live)) {
        h->cfg.n_allow = 0;
        h->cfg.allow_live = false;
        return JA_OK;
    }
    /* A live list has names (NULL entries: bare keys) and room to grow. */
    h->allow_cap = cfg->n_allow ? cfg->n_allow : 1;
    h->allow = ja_xcalloc(h->allow_cap, sizeof *h->allow);
    if (cfg->allow_names || cfg->allow_live)
        h->allow_names = ja_xcalloc(h->allow_cap, sizeof *h->allow_names);
    for (uint32_t i = 0; i < cfg->n_allow; i++) {
        h->allow[i] = ja_xstrdup(cfg->allow[i]);
        if (cfg->allow_names && cfg->allow_names[i])
            h->allow_names[i] = ja_xstrdup(cfg->allow_names[i]);
    }
    (void)err, (void)cap;
    return JA_OK;
}

/* The ZeroMQ context and its two routers with their options: the bots'
 * (a send to a peer that is gone fails rather than vanish; a peer sending
 * more than the wire allows is cut off) and the control one, the match
 * threads' way in. JA_OK or JA_EIO with err. */
static int open_sockets(ref_hub *h, char *err, size_t cap)
{
    h->ctx = zmq_ctx_new();
    if (!h->ctx) {
        snprintf(err, cap, "cannot create a ZeroMQ context: %s", zmq_strerror(zmq_errno()));
        return JA_EIO;
    }
    h->router = zmq_socket(h->ctx, ZMQ_ROUTER);
    h->ctl = zmq_socket(h->ctx, ZMQ_ROUTER);
    h->mon = NULL;
    int one = 1, linger = 500;
    int64_t maxmsg = REF_WIRE_MAX_IN;
    int hwm = 100000;
    zmq_setsockopt(h->router, ZMQ_ROUTER_MANDATORY, &one, sizeof one);
    zmq_setsockopt(h->router, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    zmq_setsockopt(h->router, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(h->ctl, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(h->ctl, ZMQ_RCVHWM, &hwm, sizeof hwm);
    return JA_OK;
}

/* With CurveZMQ: the router as a Curve server with the secret key, and,
 * with an allow list, the authenticator (ZAP) that checks each client's
 * key against it. JA_OK (nothing without curve), or an error with err. */
static int set_curve(ref_hub *h, const ref_hub_config *cfg, char *err, size_t cap)
{
    if (!cfg->curve)
        return JA_OK;
    if (h->allow) {
        h->zap = zmq_socket(h->ctx, ZMQ_REP);
        if (!h->zap || zmq_bind(h->zap, HUB_ZAP_ENDPOINT) != 0) {
            snprintf(err, cap, "cannot start the CurveZMQ authenticator: %s",
                     zmq_strerror(zmq_errno()));
            return JA_EIO;
        }
        zmq_setsockopt(h->router, ZMQ_ZAP_DOMAIN, "jackarena", 9);
    }
    int one = 1;
    zmq_setsockopt(h->router, ZMQ_CURVE_SERVER, &one, sizeof one);
    if (zmq_setsockopt(h->router, ZMQ_CURVE_SECRETKEY, cfg->curve_secret,
                       strlen(cfg->curve_secret)) != 0) {
        snprintf(err, cap, "the CurveZMQ secret key is not valid Z85: %s",
                 zmq_strerror(zmq_errno()));
        return JA_EINVAL;
    }
    snprintf(h->server_key, sizeof h->server_key, "%s", cfg->curve_public);
    return JA_OK;
}

/* The router's monitor (its connections and disconnections), the control
 * endpoint, and the router listening on bind_ep; then the endpoint the bots
 * are told. JA_OK, or an error with err (JA_EINVAL for an endpoint given
 * that cannot be listened on). */
static int bind_sockets(ref_hub *h, const ref_hub_config *cfg, const char *bind_ep, char *err,
                        size_t cap)
{
    if (zmq_socket_monitor(h->router, HUB_MON_ENDPOINT,
                           ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) != 0 ||
        !(h->mon = zmq_socket(h->ctx, ZMQ_PAIR)) || zmq_connect(h->mon, HUB_MON_ENDPOINT) != 0 ||
        zmq_bind(h->ctl, HUB_CTL_ENDPOINT) != 0) {
        snprintf(err, cap, "cannot set up the hub's sockets: %s", zmq_strerror(zmq_errno()));
        return JA_EIO;
    }
    if (zmq_bind(h->router, bind_ep) != 0) {
        snprintf(err, cap, "cannot listen on '%s': %s", bind_ep, zmq_strerror(zmq_errno()));
        return cfg->endpoint && cfg->endpoint[0] ? JA_EINVAL : JA_EIO;
    }
    public_endpoint(h);
    return JA_OK;
}

/* The descriptors the hub's thread polls, one a socket (-1 for a socket
 * not opened: the authenticator without an allow list). JA_OK or JA_EIO
 * with err. */
static int socket_fds(ref_hub *h, char *err, size_t cap)
{
    void *const socks[4] = {h->mon, h->router, h->ctl, h->zap};
    int *const fds[4] = {&h->fd_mon, &h->fd_router, &h->fd_ctl, &h->fd_zap};
    for (int i = 0; i < 4; i++) {
        size_t len = sizeof *fds[i];
        *fds[i] = -1;
        if (socks[i] && zmq_getsockopt(socks[i], ZMQ_FD, fds[i], &len) != 0) {
            snprintf(err, cap, "cannot set up the hub's sockets: %s", zmq_strerror(zmq_errno()));
            return JA_EIO;
        }
    }
    return JA_OK;
}

/* The hub's thread, which from now on alone uses its sockets. JA_OK or
 * JA_EIO with err. */
static int start_thread(ref_hub *h, char *err, size_t cap)
{
    h->may = MAY_ALL;
    if (pthread_create(&h->thread, NULL, hub_main, h) != 0) {
        snprintf(err, cap, "cannot start the hub thread");
        return JA_EIO;
    }
    h->running = true;
    return JA_OK;
}

int ref_hub_start(const ref_hub_config *cfg, ref_hub **out, char *err, size_t cap)
{
    *out = NULL;
    ref_hub *h = ja_xcalloc(1, sizeof *h);
    h->cfg = *cfg;
    msgpack_sbuffer_init(&h->out);
    h->wake_fd = -1;
    char bind_ep[512];
    int rc = init_sync(h, err, cap);
    if (rc == JA_OK)
        rc = bind_address(h, cfg, bind_ep, sizeof bind_ep, err, cap);
    if (rc == JA_OK)
        rc = copy_allow(h, cfg, err, cap);
    if (rc == JA_OK)
        rc = open_sockets(h, err, cap);
    if (rc == JA_OK)
        rc = set_curve(h, cfg, err, cap);
    if (rc == JA_OK)
        rc = bind_sockets(h, cfg, bind_ep, err, cap);
    if (rc == JA_OK)
        rc = socket_fds(h, err, cap);
    if (rc == JA_OK)
        rc = start_thread(h, err, cap);
    if (rc != JA_OK) {
        discard_hub(h);
        return rc;
    }
    *out = h;
    return JA_OK;
}

void ref_hub_stop(ref_hub **hp)
{
    if (!hp || !*hp)
        return;
    ref_hub *h = *hp;
    if (h->running) {
        hub_req q;
        memset(&q, 0, sizeof q);
        q.op = HUB_QUIT;
        hub_rep r;
        if (ref_hub__call(h, &q, NULL, 0, &r, 10000) != JA_OK)
            h->quit = true; /* the thread is stuck: still try to end it */
        pthread_join(h->thread, NULL);
        h->running = false;
    }
    discard_hub(h);
    *hp = NULL;
}

/* ---- calls from other threads -------------------------------------------------- */

int ref_hub__send(void *sock, const hub_req *req, const void *payload, size_t n)
{
    zmq_msg_t m;
    if (zmq_msg_init_size(&m, sizeof *req + n) != 0)
        return JA_ENOMEM;
    memcpy(zmq_msg_data(&m), req, sizeof *req);
    if (n)
        memcpy((unsigned char *)zmq_msg_data(&m) + sizeof *req, payload, n);
    if (zmq_msg_send(&m, sock, 0) < 0) {
        zmq_msg_close(&m);
        return JA_EIO;
    }
    return JA_OK;
}

int ref_hub__call(ref_hub *h, const hub_req *req, const void *payload, size_t n, hub_rep *rep,
                  int timeout_ms)
{
    void *s = zmq_socket(h->ctx, ZMQ_DEALER);
    if (!s)
        return JA_EIO;
    int zero = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
    int rc = JA_EIO;
    if (zmq_connect(s, HUB_CTL_ENDPOINT) == 0 && ref_hub__send(s, req, payload, n) == JA_OK) {
        zmq_pollitem_t it = {s, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, timeout_ms) <= 0) {
            rc = JA_ETIMEOUT;
        } else {
            memset(rep, 0, sizeof *rep);
            int got = zmq_recv(s, rep, sizeof *rep, 0);
            rc = got > 0 ? JA_OK : JA_EIO;
        }
    }
    zmq_close(s);
    return rc;
}

int ref_hub_new_token(char out[REF_HUB_TOKEN_CHARS + 1])
{
    out[0] = '\0';
    if (sodium_init() < 0) /* idempotent and thread-safe */
        return JA_EIO;
    unsigned char raw[REF_HUB_TOKEN_CHARS / 2];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(out, REF_HUB_TOKEN_CHARS + 1, raw, sizeof raw);
    sodium_memzero(raw, sizeof raw);
    return JA_OK;
}

int ref_hub_grant(ref_hub *h, const char *who, const char *token, char *err, size_t cap)
{
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_GRANT;
    snprintf(q.name, sizeof q.name, "%s", who);
    hub_rep r;
    if (ref_hub__call(h, &q, token, strlen(token), &r, 10000) != JA_OK) {
        snprintf(err, cap, "the referee's hub is not answering");
        return JA_EIO;
    }
    r.msg[sizeof r.msg - 1] = '\0';
    if (r.kind != HUB_REP_OK) {
        snprintf(err, cap, "%s", r.msg);
        return JA_EINVAL;
    }
    return JA_OK;
}

int ref_hub_allow_set(ref_hub *h, const char *key, const char *name)
{
    if (!key || strlen(key) != REF_HUB_KEY_Z85 - 1 ||
        (name && (!name[0] || strlen(name) >= REF_WIRE_NAME_MAX)))
        return JA_EINVAL;
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_ALLOW;
    if (name)
        snprintf(q.name, sizeof q.name, "%s", name);
    hub_rep r;
    if (ref_hub__call(h, &q, key, strlen(key), &r, 10000) != JA_OK)
        return JA_EIO;
    return r.kind == HUB_REP_OK ? JA_OK : JA_EINVAL;
}

int ref_hub_bot_status_get(ref_hub *h, const char *name, ref_hub_bot_status *out)
{
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_STATUS;
    snprintf(q.name, sizeof q.name, "%s", name);
    hub_rep r;
    memset(out, 0, sizeof *out);
    if (ref_hub__call(h, &q, NULL, 0, &r, 10000) != JA_OK)
        return JA_EIO;
    if (r.kind != HUB_REP_OK)
        return JA_ENOTFOUND;
    *out = r.status;
    return JA_OK;
}

int ref_hub_send_raw(ref_hub *h, const char *name, const void *bytes, size_t n)
{
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_RAW;
    snprintf(q.name, sizeof q.name, "%s", name);
    hub_rep r;
    if (ref_hub__call(h, &q, bytes, n, &r, 10000) != JA_OK)
        return JA_EIO;
    return r.kind == HUB_REP_OK ? JA_OK : JA_ENOTFOUND;
}

void ref_hub_bye_all(ref_hub *h)
{
    hub_req q;
    memset(&q, 0, sizeof q);
    q.op = HUB_BYE_ALL;
    hub_rep r;
    ref_hub__call(h, &q, NULL, 0, &r, 10000);
}
