/* The C client library for external bots (ja_client.h).
 *
 * One DEALER socket, one thread. Messages from the referee are trusted no
 * more than the referee trusts bots': each is checked by ja_mp_scan before
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
#include "ja_botrt.h"
#include "ja_mp.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

/* The compact act (docs/protocol.md, "x_bin"): the observation as the C
 * struct's bytes, little-endian. This library asks for it where its own
 * structs are laid out that way, and decodes the full act otherwise. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JA_CLIENT_BIN 1
#else
#define JA_CLIENT_BIN 0
#endif

#define WELCOME_MS 30000
#define MAX_IN (16 * 1024 * 1024) /* cap on a message from the referee */

typedef struct cmatch {
    struct cmatch *next;
    struct ja_client *c;
    char id[64];
    ja_botrt rt;             /* the instance, its services and decoding buffers */
    ja_declog declog;        /* what the bot logged for its next answer */
} cmatch;

struct ja_client {
    const ja_bot_desc *desc;
    char endpoint[512], name[64], version[64], token[512];
    char params[JA_BOTRT_PARAMS_MAX]; /* for matches whose start names none */
    char server_key[41], public_key[41], secret_key[41];
    uint32_t capacity;
    uint64_t seed;
    int verbose;
    void *zctx, *sock;
    int fd;                  /* the socket's ZMQ_FD (recv_msg) */
    cmatch *matches;
    uint32_t done;
    msgpack_sbuffer out;
    long arena_pid;          /* $JACKARENA_ARENA_PID: leave when that process is gone */
    char *in;                /* the message being handled: unpacked objects point into it */
    size_t in_cap;
    char err[512];
};

static int fail(ja_client *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(ja_client *c, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- where the bot's log goes ---------------------------------------------------- */

/* Every line goes with the next answer (`log`, docs/protocol.md), which
 * the referee keeps in the replay beside the decision; stderr gets it too
 * with verbose, and warnings and errors that no answer will carry (those of
 * end()). */
static void match_log(void *ctx, int level, const char *msg)
{
    cmatch *m = ctx;
    if ((level <= JA_LOG_WARN && !m->rt.declog) || m->c->verbose)
        fprintf(stderr, "%s (match %s, seat %d): %s\n", m->c->name, m->id, (int)m->rt.seat, msg);
}

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

/* The size of ja_client_config before `params` was appended: the least a
 * caller's config may have. */
#define CONFIG_V1_SIZE offsetof(ja_client_config, params)

/* cfg->params when the caller's config has the member, else NULL. */
static const char *config_params(const ja_client_config *cfg)
{
    return cfg->struct_size >= offsetof(ja_client_config, params) + sizeof cfg->params
               ? cfg->params
               : NULL;
}

int ja_client_new(const ja_client_config *cfg, const ja_bot_desc *desc, ja_client **out)
{
    *out = NULL;
    if (!cfg || cfg->struct_size < CONFIG_V1_SIZE || !desc || !desc->create || !desc->act ||
        !desc->destroy || !desc->name)
        return JA_EINVAL;
    char why[256];
    const char *params = config_params(cfg);
    if (!params)
        params = getenv("JACKARENA_PARAMS");
    if (ja_botrt_check_params(desc, params, why, sizeof why) != JA_OK)
        return JA_EINVAL;
    ja_client *c = calloc(1, sizeof *c);
    if (!c)
        return JA_ENOMEM;
    c->desc = desc;
    pick(c->endpoint, sizeof c->endpoint, cfg->endpoint, "JACKARENA_ENDPOINT", NULL);
    pick(c->name, sizeof c->name, cfg->name, "JACKARENA_NAME", desc->name);
    pick(c->version, sizeof c->version, cfg->version, NULL, desc->version ? desc->version : "0");
    pick(c->token, sizeof c->token, cfg->token, "JACKARENA_TOKEN", NULL);
    pick(c->params, sizeof c->params, params, NULL, NULL);
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
    ja_botrt_free(&m->rt);
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
    ja_mp_put_kv_str(pk, "type", type);
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
    /* A bot that says which games it plays (supports()) lists them, so the
     * arena never seats it in another; without supports() it plays every
     * game, those this library does not know included. */
    bool games = JA_BOT_HAS(c->desc, supports);
    begin(c, &pk, 4 + (c->token[0] != 0) + games + JA_CLIENT_BIN, "hello");
    ja_mp_put_kv_u64(&pk, "protocol", JA_PROTOCOL);
    ja_mp_put_kv_str(&pk, "name", c->name);
    ja_mp_put_kv_str(&pk, "version", c->version);
    ja_mp_put_kv_u64(&pk, "capacity", c->capacity);
    if (c->token[0])
        ja_mp_put_kv_str(&pk, "token", c->token);
    if (games)
        ja_botrt_pack_games(&pk, c->desc);
    if (JA_CLIENT_BIN) {
        ja_mp_put_str(&pk, "x_bin");
        msgpack_pack_true(&pk);
    }
    return flush(c);
}

/* An answer (ja_botrt_pack_action: the index, or `error`), with what the
 * bot logged for it (log, then emptied; NULL: none). */
static int send_action(ja_client *c, const char *match, uint64_t turn, int rc, uint32_t index,
                       ja_declog *log)
{
    msgpack_sbuffer_clear(&c->out);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &c->out, msgpack_sbuffer_write);
    ja_botrt_pack_action(&pk, match, turn, rc, index, log);
    if (log)
        ja_declog_clear(log);
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

static cmatch *unlink_match(ja_client *c, const char *id)
{
    for (cmatch **p = &c->matches; *p; p = &(*p)->next)
        if (strcmp((*p)->id, id) == 0) {
            cmatch *m = *p;
            *p = m->next;
            return m;
        }
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
    char id[64], game[64], params[JA_BOTRT_PARAMS_MAX] = "";
    uint64_t seat, seats;
    if (!ja_mp_get_str(o, "match", id, sizeof id) || !ja_mp_get_str(o, "game", game, sizeof game) ||
        !ja_mp_get_u64(o, "seat", &seat) || !ja_mp_get_u64(o, "seats", &seats) || seats == 0 ||
        seats > JA_MAX_SEATS || seat >= seats ||
        (ja_mp_get(o, "params") && !ja_mp_get_str(o, "params", params, sizeof params))) {
        fprintf(stderr, "%s: ignoring a malformed start message\n", c->name);
        return;
    }
    cmatch *m = unlink_match(c, id);
    if (m) /* the referee restarted a match id: start over */
        free_match(m);
    m = calloc(1, sizeof *m);
    if (!m)
        return;
    m->c = c;
    snprintf(m->id, sizeof m->id, "%s", id);
    ja_botrt_init(&m->rt, c->desc, match_log, m);
    ja_declog_clear(&m->declog);
    m->rt.declog = &m->declog;
    m->rt.compact = JA_CLIENT_BIN; /* the hello asked for the compact act */
    /* The seat's own stream: the referee's `seed` (the numbers a plugin
     * draws in-process, so the bot plays the same way wherever it runs), or,
     * from a referee that sends none, one of the config's seed. */
    uint64_t seed;
    if (!ja_mp_get_u64(o, "seed", &seed))
        seed = ja_seed_derive(match_seed(c->seed, id), JA_STREAM_BOT, seat);
    int rc = ja_botrt_start(&m->rt, game, (int32_t)seat, (uint32_t)seats, seed,
                            params[0] ? params : c->params, true);
    if (rc != JA_OK)
        fprintf(stderr, "%s: cannot play seat %d of match %s (%s): %s\n", c->name, (int)seat, id,
                game, ja_strerror(rc));
    m->next = c->matches;
    c->matches = m;
}

static int on_act(ja_client *c, const msgpack_object *o, int64_t received)
{
    char id[64], why[128];
    uint64_t turn;
    if (!ja_mp_get_str(o, "match", id, sizeof id) || !ja_mp_get_u64(o, "turn", &turn)) {
        fprintf(stderr, "%s: ignoring a malformed act message\n", c->name);
        return JA_OK;
    }
    cmatch *m = find_match(c, id);
    if (!m) /* never started: the bot cannot choose */
        return send_action(c, id, turn, JA_EBOT, 0, NULL);
    ja_decision d;
    if (ja_botrt_decode_act(&m->rt, o, &d, why, sizeof why) != JA_OK) {
        fprintf(stderr, "%s: ignoring %s (match %s)\n", c->name, why, id);
        return JA_OK;
    }
    uint32_t index = 0;
    int rc = ja_botrt_act(&m->rt, &d, received, &index);
    if (rc != JA_OK && m->rt.bot)
        fprintf(stderr, "%s: act() failed in match %s: %s\n", c->name, id, ja_strerror(rc));
    return send_action(c, id, turn, rc, index, &m->declog);
}

static void on_end(ja_client *c, const msgpack_object *o)
{
    char id[64];
    if (!ja_mp_get_str(o, "match", id, sizeof id))
        return;
    cmatch *m = unlink_match(c, id);
    if (!m)
        return;
    ja_outcome out;
    ja_botrt_decode_outcome(o, &out);
    m->rt.declog = NULL; /* no answer will carry what end() logs: stderr */
    ja_botrt_end(&m->rt, &out);
    free_match(m);
    c->done++;
}

/* Reads one message (waiting up to timeout_ms; -1 forever). Returns 1 with
 * the message unpacked into *u, 0 on timeout, or a negative JA_E*. */
static int recv_msg(ja_client *c, msgpack_unpacked *u, int timeout_ms, int64_t *at)
{
    /* A message already queued (several matches in flight) is taken
     * without polling first. A receive that finds nothing (EAGAIN) leaves
     * the socket's command mailbox asleep, so that anything arriving from
     * then on makes its descriptor (ZMQ_FD) readable: the wait polls that
     * descriptor itself, then receives again (a readable descriptor may
     * bring no message: then it waits for the time left). zmq_poll would
     * check the socket's events before and after it waits, two system
     * calls each, at every decision. */
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    int got = zmq_msg_recv(&msg, c->sock, ZMQ_DONTWAIT);
    int64_t until = 0;
    if (got < 0 && zmq_errno() == EAGAIN && timeout_ms >= 0)
        until = ja_botrt_now_ns() + (int64_t)timeout_ms * 1000000;
    while (got < 0 && zmq_errno() == EAGAIN) {
        int wait_ms = -1;
        if (timeout_ms >= 0) {
            int64_t left = until - ja_botrt_now_ns();
            wait_ms = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
        }
        struct pollfd p = {c->fd, POLLIN, 0};
        int r = poll(&p, 1, wait_ms);
        if (r < 0 && errno != EINTR) {
            zmq_msg_close(&msg);
            return fail(c, JA_EIO, "polling %s: %s", c->endpoint, strerror(errno));
        }
        got = zmq_msg_recv(&msg, c->sock, ZMQ_DONTWAIT);
        if (got < 0 && zmq_errno() == EAGAIN && r == 0) {
            zmq_msg_close(&msg);
            return 0;
        }
    }
    if (got < 0) {
        zmq_msg_close(&msg);
        return fail(c, JA_EIO, "receiving from %s: %s", c->endpoint, zmq_strerror(zmq_errno()));
    }
    *at = ja_botrt_now_ns();
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
    int ok = len && ja_mp_scan(c->in, len, 0, &end) == 1 && end == len &&
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
    size_t fd_len = sizeof c->fd;
    if (zmq_getsockopt(c->sock, ZMQ_FD, &c->fd, &fd_len) != 0)
        return fail(c, JA_EIO, "cannot read the socket's ZMQ_FD: %s", zmq_strerror(zmq_errno()));
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
    int64_t started = ja_botrt_now_ns();
    for (;;) {
        msgpack_unpacked u;
        msgpack_unpacked_init(&u);
        int64_t at = 0;
        /* Once welcomed, wake each second to see whether the arena that
         * started this bot still exists (one killed outright sends no bye). */
        int wait = welcomed ? 1000 : (int)(WELCOME_MS - (ja_botrt_now_ns() - started) / 1000000);
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
        ja_mp_get_str(o, "type", type, sizeof type);
        rc = JA_OK;
        if (strcmp(type, "welcome") == 0) {
            welcomed = true;
        } else if (strcmp(type, "error") == 0) {
            char code[32] = "", msg[300] = "";
            ja_mp_get_str(o, "code", code, sizeof code);
            ja_mp_get_str(o, "message", msg, sizeof msg);
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
        {"params", required_argument, NULL, 'p'}, {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
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
        case 'p': cfg.params = optarg; break;
        case 'h':
            printf("usage: %s [--endpoint E] [--name N] [--capacity K] [--seed S] "
                   "[--server-key Z85] [--params K=V:K=V] [--verbose]\n"
                   "An external Jack Arena bot (%s %s). Without options it reads\n"
                   "JACKARENA_ENDPOINT, JACKARENA_NAME, JACKARENA_SERVER_KEY and\n"
                   "JACKARENA_PARAMS.\n",
                   argv[0], desc->name, desc->version ? desc->version : "");
            return 0;
        default: return 2;
        }
    }
    /* Refused parameters: one line and status 2, before any hello. */
    char why[256];
    const char *params = cfg.params ? cfg.params : getenv("JACKARENA_PARAMS");
    if (ja_botrt_check_params(desc, params, why, sizeof why) != JA_OK) {
        const char *name = cfg.name ? cfg.name : getenv("JACKARENA_NAME");
        fprintf(stderr, "%s: %s\n", name && *name ? name : desc->name, why);
        return 2;
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
