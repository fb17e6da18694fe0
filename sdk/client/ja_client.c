/* The C client library for external bots (ja_client.h).
 *
 * One DEALER socket, one thread. Messages from the referee are trusted no
 * more than the referee trusts bots': each is checked by mp_scan before
 * msgpack-c unpacks it, every value is type-checked and range-checked
 * before use, and an observation is decoded field by field from the game's
 * table into a zeroed struct (a missing field stays zero, a value out of its
 * C type's range makes the act malformed: it is logged and left unanswered).
 *
 * Per match: the bot instance, its random stream, and buffers for the
 * observation and the legal list, allocated when the match starts, freed
 * when it ends. */
#include "jackarena/ja_client.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_version.h"
#include "mp.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#define WELCOME_MS 30000
#define MAX_IN (16 * 1024 * 1024) /* cap on a message from the referee */

typedef struct cmatch {
    struct cmatch *next;
    struct ja_client *c;
    char id[64];
    char game[64];
    const ja_game_rules *g;  /* NULL: a game this build does not know */
    int32_t seat;
    uint32_t n_seats;
    void *instance;
    ja_rng rng;
    void *obs;
    ja_action *legal;
    uint32_t cap_legal;
    int64_t received_ns;     /* of the current act */
    uint32_t deadline_ms;
} cmatch;

struct ja_client {
    const ja_bot_desc *desc;
    char endpoint[512], name[64], version[64], token[512];
    char server_key[41], public_key[41], secret_key[41];
    uint32_t capacity;
    uint64_t seed;
    int verbose;
    void *zctx, *sock;
    cmatch *matches;
    uint32_t done;
    msgpack_sbuffer out;
    long arena_pid;          /* $JACKARENA_ARENA_PID: leave when that process is gone */
    char *in;                /* the message being handled: unpacked objects point into it */
    size_t in_cap;
    char err[512];
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int fail(ja_client *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(ja_client *c, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- host services ------------------------------------------------------------- */

static void host_log(void *hctx, int level, const char *msg)
{
    cmatch *m = hctx;
    if (level <= JA_LOG_WARN || m->c->verbose)
        fprintf(stderr, "%s (match %s, seat %d): %s\n", m->c->name, m->id, (int)m->seat,
                msg ? msg : "");
}

static uint64_t host_rng_next(void *hctx)
{
    return ja_rng_next(&((cmatch *)hctx)->rng);
}

static int64_t host_time_left_ms(void *hctx)
{
    cmatch *m = hctx;
    if (!m->deadline_ms)
        return -1;
    int64_t left = (int64_t)m->deadline_ms - (now_ns() - m->received_ns) / 1000000;
    return left < 0 ? 0 : left;
}

static const ja_host_api host_api = {
    .struct_size = sizeof(ja_host_api),
    .log = host_log,
    .rng_next = host_rng_next,
    .time_left_ms = host_time_left_ms,
    .rules = ja_game_find,
};

/* ---- setup ----------------------------------------------------------------------- */

static void pick(char *dst, size_t cap, const char *given, const char *env, const char *def)
{
    const char *e = env ? getenv(env) : NULL;
    snprintf(dst, cap, "%s", given ? given : e && *e ? e : def ? def : "");
}

void ja_client_config_init(ja_client_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->struct_size = sizeof *cfg;
}

int ja_client_new(const ja_client_config *cfg, const ja_bot_desc *desc, ja_client **out)
{
    *out = NULL;
    if (!cfg || cfg->struct_size < sizeof *cfg || !desc || !desc->create || !desc->act ||
        !desc->destroy || !desc->name)
        return JA_EINVAL;
    ja_client *c = calloc(1, sizeof *c);
    if (!c)
        return JA_ENOMEM;
    c->desc = desc;
    pick(c->endpoint, sizeof c->endpoint, cfg->endpoint, "JACKARENA_ENDPOINT", NULL);
    pick(c->name, sizeof c->name, cfg->name, "JACKARENA_NAME", desc->name);
    pick(c->version, sizeof c->version, cfg->version, NULL, desc->version ? desc->version : "0");
    pick(c->token, sizeof c->token, cfg->token, "JACKARENA_TOKEN", NULL);
    pick(c->server_key, sizeof c->server_key, cfg->server_key, "JACKARENA_SERVER_KEY", NULL);
    pick(c->public_key, sizeof c->public_key, cfg->public_key, "JACKARENA_PUBLIC_KEY", NULL);
    pick(c->secret_key, sizeof c->secret_key, cfg->secret_key, "JACKARENA_SECRET_KEY", NULL);
    c->capacity = cfg->capacity ? cfg->capacity : 1;
    const char *ap = getenv("JACKARENA_ARENA_PID");
    c->arena_pid = ap ? strtol(ap, NULL, 10) : 0;
    c->seed = cfg->seed;
    c->verbose = cfg->verbose;
    msgpack_sbuffer_init(&c->out);
    *out = c;
    return JA_OK; /* a missing endpoint is reported by ja_client_run */
}

const char *ja_client_errmsg(const ja_client *c)
{
    return c ? c->err : "no client";
}

uint32_t ja_client_matches(const ja_client *c)
{
    return c->done;
}

static void free_match(cmatch *m)
{
    if (m->instance)
        m->c->desc->destroy(m->instance);
    free(m->obs);
    free(m->legal);
    free(m);
}

void ja_client_destroy(ja_client **cp)
{
    if (!cp || !*cp)
        return;
    ja_client *c = *cp;
    while (c->matches) {
        cmatch *m = c->matches;
        c->matches = m->next;
        free_match(m);
    }
    if (c->sock)
        zmq_close(c->sock);
    if (c->zctx)
        zmq_ctx_term(c->zctx);
    msgpack_sbuffer_destroy(&c->out);
    free(c->in);
    free(c);
    *cp = NULL;
}

/* ---- sending ------------------------------------------------------------------------ */

static msgpack_packer *begin(ja_client *c, msgpack_packer *pk, uint32_t n_more, const char *type)
{
    msgpack_sbuffer_clear(&c->out);
    msgpack_packer_init(pk, &c->out, msgpack_sbuffer_write);
    msgpack_pack_map(pk, 1 + n_more);
    mp_put_kv_str(pk, "type", type);
    return pk;
}

static int flush(ja_client *c)
{
    if (zmq_send(c->sock, c->out.data, c->out.size, 0) != (int)c->out.size)
        return fail(c, JA_EIO, "cannot send to %s: %s", c->endpoint, zmq_strerror(zmq_errno()));
    return JA_OK;
}

static int send_hello(ja_client *c)
{
    msgpack_packer pk;
    begin(c, &pk, 4 + (c->token[0] != 0), "hello");
    mp_put_kv_u64(&pk, "protocol", JA_PROTOCOL);
    mp_put_kv_str(&pk, "name", c->name);
    mp_put_kv_str(&pk, "version", c->version);
    mp_put_kv_u64(&pk, "capacity", c->capacity);
    if (c->token[0])
        mp_put_kv_str(&pk, "token", c->token);
    return flush(c);
}

static int send_action(ja_client *c, const char *match, uint64_t turn, uint32_t index)
{
    msgpack_packer pk;
    begin(c, &pk, 3, "action");
    mp_put_kv_str(&pk, "match", match);
    mp_put_kv_u64(&pk, "turn", turn);
    mp_put_kv_u64(&pk, "index", index);
    return flush(c);
}

/* ---- receiving ------------------------------------------------------------------------ */

static cmatch *find_match(ja_client *c, const char *id)
{
    for (cmatch *m = c->matches; m; m = m->next)
        if (strcmp(m->id, id) == 0)
            return m;
    return NULL;
}

/* The instance's stream: FNV-1a of the match id, the seed and the seat. */
static uint64_t match_seed(uint64_t seed, const char *id)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h ^ seed;
}

static void on_start(ja_client *c, const msgpack_object *o)
{
    char id[64], game[64];
    uint64_t seat, seats;
    if (!mp_get_str(o, "match", id, sizeof id) || !mp_get_str(o, "game", game, sizeof game) ||
        !mp_get_u64(o, "seat", &seat) || !mp_get_u64(o, "seats", &seats) || seats == 0 ||
        seats > JA_MAX_SEATS || seat >= seats) {
        fprintf(stderr, "%s: ignoring a malformed start message\n", c->name);
        return;
    }
    cmatch *m = find_match(c, id);
    if (m) { /* the referee restarted a match id: start over */
        for (cmatch **p = &c->matches; *p; p = &(*p)->next)
            if (*p == m) {
                *p = m->next;
                break;
            }
        free_match(m);
    }
    m = calloc(1, sizeof *m);
    if (!m)
        return;
    m->c = c;
    snprintf(m->id, sizeof m->id, "%s", id);
    snprintf(m->game, sizeof m->game, "%s", game);
    m->g = ja_game_find(game);
    m->seat = (int32_t)seat;
    m->n_seats = (uint32_t)seats;
    ja_rng_stream(&m->rng, match_seed(c->seed, id), JA_STREAM_BOT, seat);
    if (m->g) {
        m->obs = calloc(1, m->g->obs_size);
        m->cap_legal = m->g->max_actions;
    } else {
        m->cap_legal = JA_MAX_ACTIONS;
    }
    m->legal = calloc(m->cap_legal, sizeof *m->legal);
    int rc = (m->g && !m->obs) || !m->legal
                 ? JA_ENOMEM
                 : c->desc->create(&host_api, m, m->g ? m->g->name : m->game, m->seat,
                                   m->n_seats, &m->instance);
    if (rc != JA_OK) {
        fprintf(stderr, "%s: cannot play seat %d of match %s (%s): %s\n", c->name, (int)m->seat,
                id, game, ja_strerror(rc));
        m->instance = NULL;
    }
    m->next = c->matches;
    c->matches = m;
}

static int on_act(ja_client *c, const msgpack_object *o, int64_t received)
{
    char id[64];
    uint64_t turn, deadline = 0;
    const msgpack_object *items;
    uint32_t n;
    if (!mp_get_str(o, "match", id, sizeof id) || !mp_get_u64(o, "turn", &turn) ||
        !mp_as_array(mp_get(o, "legal"), &items, &n) || n == 0) {
        fprintf(stderr, "%s: ignoring a malformed act message\n", c->name);
        return JA_OK;
    }
    mp_get_u64(o, "deadline_ms", &deadline);
    cmatch *m = find_match(c, id);
    if (!m || !m->instance) {
        /* No instance (never started, or create failed): any legal answer. */
        return send_action(c, id, turn, 0);
    }
    if (n > m->cap_legal) {
        fprintf(stderr, "%s: act with %u legal actions (at most %u expected)\n", c->name, n,
                m->cap_legal);
        return JA_OK;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t code;
        if (!mp_get_u64(&items[i], "code", &code) || code > UINT32_MAX) {
            fprintf(stderr, "%s: ignoring an act with a malformed legal list\n", c->name);
            return JA_OK;
        }
        m->legal[i].code = (uint32_t)code;
    }
    if (m->g && !mp_as_obs(mp_get(o, "obs"), m->g, m->obs)) {
        fprintf(stderr, "%s: ignoring an act with a malformed observation\n", c->name);
        return JA_OK;
    }
    m->received_ns = received;
    m->deadline_ms = deadline > UINT32_MAX ? UINT32_MAX : (uint32_t)deadline;
    ja_decision d = {
        .struct_size = sizeof d,
        .turn = turn > UINT32_MAX ? UINT32_MAX : (uint32_t)turn,
        .deadline_ms = m->deadline_ms,
        .seat = m->seat,
        .n_seats = m->n_seats,
        .game = m->g ? m->g->name : m->game,
        .obs_version = m->g ? m->g->obs_version : 0,
        .obs_size = m->g ? m->g->obs_size : 0,
        .obs = m->g ? m->obs : NULL,
        .legal = m->legal,
        .n_legal = n,
    };
    uint32_t index = 0;
    int rc = c->desc->act(m->instance, &d, &index);
    if (rc != JA_OK || index >= n) {
        fprintf(stderr, "%s: act() failed in match %s (%s); answering the first action\n",
                c->name, id, rc != JA_OK ? ja_strerror(rc) : "index out of range");
        index = 0;
    }
    return send_action(c, id, turn, index);
}

static void on_end(ja_client *c, const msgpack_object *o)
{
    char id[64];
    if (!mp_get_str(o, "match", id, sizeof id))
        return;
    cmatch *m = NULL;
    for (cmatch **p = &c->matches; *p; p = &(*p)->next)
        if (strcmp((*p)->id, id) == 0) {
            m = *p;
            *p = m->next;
            break;
        }
    if (!m)
        return;
    const msgpack_object *sc, *pl;
    uint32_t ns = 0, np = 0;
    ja_outcome out;
    memset(&out, 0, sizeof out);
    if (m->instance && JA_BOT_HAS(c->desc, end) && mp_as_array(mp_get(o, "scores"), &sc, &ns) &&
        mp_as_array(mp_get(o, "places"), &pl, &np) && ns == np && ns <= JA_MAX_SEATS) {
        out.n_seats = ns;
        for (uint32_t s = 0; s < ns; s++) {
            uint64_t p = 0;
            mp_as_i64(&sc[s], &out.score[s]);
            mp_as_u64(&pl[s], &p);
            out.place[s] = p > 255 ? 255 : (uint8_t)p;
        }
        c->desc->end(m->instance, &out);
    }
    free_match(m);
    c->done++;
}

/* Reads one message (waiting up to timeout_ms; -1 forever). Returns 1 with
 * the message unpacked into *u, 0 on timeout, or a negative JA_E*. */
static int recv_msg(ja_client *c, msgpack_unpacked *u, int timeout_ms, int64_t *at)
{
    zmq_pollitem_t it = {c->sock, 0, ZMQ_POLLIN, 0};
    int r = zmq_poll(&it, 1, timeout_ms);
    if (r == 0)
        return 0;
    if (r < 0)
        return fail(c, JA_EIO, "polling %s: %s", c->endpoint, zmq_strerror(zmq_errno()));
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, c->sock, 0) < 0) {
        zmq_msg_close(&msg);
        return fail(c, JA_EIO, "receiving from %s: %s", c->endpoint, zmq_strerror(zmq_errno()));
    }
    *at = now_ns();
    size_t len = zmq_msg_size(&msg), end = 0, off = 0;
    if (len > c->in_cap) {
        char *grown = realloc(c->in, len);
        if (!grown) {
            zmq_msg_close(&msg);
            return fail(c, JA_ENOMEM, "out of memory");
        }
        c->in = grown;
        c->in_cap = len;
    }
    if (len)
        memcpy(c->in, zmq_msg_data(&msg), len);
    zmq_msg_close(&msg);
    int ok = len && mp_scan(c->in, len, 0, &end) == 1 && end == len &&
             msgpack_unpack_next(u, c->in, len, &off) == MSGPACK_UNPACK_SUCCESS &&
             u->data.type == MSGPACK_OBJECT_MAP;
    if (!ok) {
        fprintf(stderr, "%s: ignoring a message from the referee that is not one msgpack map\n",
                c->name);
        return 2;
    }
    return 1;
}

static int connect_socket(ja_client *c)
{
    c->zctx = zmq_ctx_new();
    c->sock = c->zctx ? zmq_socket(c->zctx, ZMQ_DEALER) : NULL;
    if (!c->sock)
        return fail(c, JA_EIO, "cannot create a ZeroMQ socket: %s", zmq_strerror(zmq_errno()));
    int linger = 1000;
    int64_t maxmsg = MAX_IN;
    zmq_setsockopt(c->sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(c->sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    if (c->server_key[0]) {
        char pub[41], sec[41];
        if (c->public_key[0] && c->secret_key[0]) {
            snprintf(pub, sizeof pub, "%s", c->public_key);
            snprintf(sec, sizeof sec, "%s", c->secret_key);
        } else if (zmq_curve_keypair(pub, sec) != 0) {
            return fail(c, JA_EIO, "CurveZMQ is not available in this libzmq");
        }
        if (zmq_setsockopt(c->sock, ZMQ_CURVE_SERVERKEY, c->server_key, 40) != 0 ||
            zmq_setsockopt(c->sock, ZMQ_CURVE_PUBLICKEY, pub, 40) != 0 ||
            zmq_setsockopt(c->sock, ZMQ_CURVE_SECRETKEY, sec, 40) != 0)
            return fail(c, JA_EINVAL, "a CurveZMQ key is not valid Z85 (40 characters)");
    }
    if (zmq_connect(c->sock, c->endpoint) != 0)
        return fail(c, JA_EINVAL, "cannot connect to '%s': %s", c->endpoint,
                    zmq_strerror(zmq_errno()));
    return JA_OK;
}

int ja_client_run(ja_client *c)
{
    if (!c->endpoint[0])
        return fail(c, JA_EINVAL, "no endpoint: set JACKARENA_ENDPOINT or --endpoint");
    int rc = c->sock ? JA_OK : connect_socket(c);
    if (rc != JA_OK || (rc = send_hello(c)) != JA_OK)
        return rc;
    bool welcomed = false;
    int64_t started = now_ns();
    for (;;) {
        msgpack_unpacked u;
        msgpack_unpacked_init(&u);
        int64_t at = 0;
        /* Once welcomed, wake each second to see whether the arena that
         * started this bot still exists (one killed outright sends no bye). */
        int wait = welcomed ? 1000 : (int)(WELCOME_MS - (now_ns() - started) / 1000000);
        int r = wait < 0 && !welcomed ? 0 : recv_msg(c, &u, wait, &at);
        if (r == 0 && welcomed) {
            msgpack_unpacked_destroy(&u);
            if (c->arena_pid > 0 && kill((pid_t)c->arena_pid, 0) != 0 && errno == ESRCH)
                return fail(c, JA_EIO, "the arena (pid %ld) is gone", c->arena_pid);
            continue;
        }
        if (r <= 0) {
            msgpack_unpacked_destroy(&u);
            if (r < 0)
                return r;
            return fail(c, JA_EIO, "no welcome from %s within %d s", c->endpoint,
                        WELCOME_MS / 1000);
        }
        if (r == 2) {
            msgpack_unpacked_destroy(&u);
            continue;
        }
        const msgpack_object *o = &u.data;
        char type[32] = "";
        mp_get_str(o, "type", type, sizeof type);
        rc = JA_OK;
        if (strcmp(type, "welcome") == 0) {
            welcomed = true;
        } else if (strcmp(type, "error") == 0) {
            char code[32] = "", msg[300] = "";
            mp_get_str(o, "code", code, sizeof code);
            mp_get_str(o, "message", msg, sizeof msg);
            if (!welcomed) {
                rc = fail(c, strcmp(code, "protocol_version") == 0 ? JA_EVERSION : JA_EBOT,
                          "the referee refused the hello: %s: %s", code, msg);
            } else if (c->verbose) {
                fprintf(stderr, "%s: referee error %s: %s\n", c->name, code, msg);
            }
        } else if (strcmp(type, "start") == 0) {
            on_start(c, o);
        } else if (strcmp(type, "act") == 0) {
            rc = on_act(c, o, at);
        } else if (strcmp(type, "end") == 0) {
            on_end(c, o);
        } else if (strcmp(type, "ping") == 0) {
            msgpack_packer pk;
            begin(c, &pk, 0, "pong");
            rc = flush(c);
        } else if (strcmp(type, "bye") == 0) {
            msgpack_unpacked_destroy(&u);
            return JA_OK;
        } /* unknown types are ignored: that is how the protocol grows */
        msgpack_unpacked_destroy(&u);
        if (rc != JA_OK)
            return rc;
    }
}

int ja_client_main(const ja_bot_desc *desc, int argc, char **argv)
{
    static const struct option opts[] = {
        {"endpoint", required_argument, NULL, 'e'}, {"name", required_argument, NULL, 'n'},
        {"capacity", required_argument, NULL, 'c'}, {"seed", required_argument, NULL, 's'},
        {"server-key", required_argument, NULL, 'k'}, {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    ja_client_config cfg;
    ja_client_config_init(&cfg);
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'e': cfg.endpoint = optarg; break;
        case 'n': cfg.name = optarg; break;
        case 'c': cfg.capacity = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 's': cfg.seed = strtoull(optarg, NULL, 10); break;
        case 'k': cfg.server_key = optarg; break;
        case 'v': cfg.verbose = 1; break;
        case 'h':
            printf("usage: %s [--endpoint E] [--name N] [--capacity K] [--seed S] "
                   "[--server-key Z85] [--verbose]\n"
                   "An external Jack Arena bot (%s %s). Without options it reads\n"
                   "JACKARENA_ENDPOINT, JACKARENA_NAME and JACKARENA_SERVER_KEY.\n",
                   argv[0], desc->name, desc->version ? desc->version : "");
            return 0;
        default: return 2;
        }
    }
    ja_client *c = NULL;
    int rc = ja_client_new(&cfg, desc, &c);
    if (rc == JA_OK)
        rc = ja_client_run(c);
    if (rc != JA_OK)
        fprintf(stderr, "%s: %s\n", c ? c->name : desc->name,
                c ? ja_client_errmsg(c) : ja_strerror(rc));
    ja_client_destroy(&c);
    return rc == JA_OK ? 0 : 1;
}
