/* `arena serve`'s connections (serve_conn.h). */
#include "serve/serve_conn.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

enum { PHASE_HEADERS, PHASE_BODY, PHASE_BUSY };
enum { KIND_NONE, KIND_REQUEST, KIND_STREAM };

/* A client address as counted: 4 bytes of IPv4, or the 8 of an IPv6 /64
 * (one subscriber holds a whole /64). */
typedef struct addr_key {
    uint8_t len;
    uint8_t b[8];
} addr_key;

struct srv_conn {
    int fd;
    addr_key peer;            /* the socket's peer */
    addr_key client;          /* whom the request is counted to (the peer, or forwarded) */
    int phase, kind;
    int64_t since;            /* when the phase began */
    bool cut;                 /* shut down by the watchdog */
    struct srv_conn *prev, *next;
};

typedef struct job {
    struct MHD_Connection *c;
    srv_work_fn fn;
    void *arg;
} job;

struct srv_conns {
    srv_http_limits lim;
    bool have_proxy;
    addr_key proxy;
    /* mu guards the connections, the counts and the streams. */
    pthread_mutex_t mu;
    pthread_cond_t tick;      /* the ticker's sleep, cut short by srv_conns_stop */
    srv_conn *conns;
    uint32_t n_open, n_requests, n_streams;
    srv_stream *streams;
    bool closing;
    pthread_t ticker;
    bool ticker_started;
    /* wmu guards the work queue. */
    pthread_mutex_t wmu;
    pthread_cond_t wcond;
    job queue[SRV_WORK_QUEUE];
    uint32_t q_head, q_n;
    bool wstop;
    pthread_t workers[SRV_WORKERS];
    uint32_t n_workers;
};

int64_t srv_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void key_v4(const void *addr, addr_key *k)
{
    memset(k, 0, sizeof *k);
    k->len = 4;
    memcpy(k->b, addr, 4);
}

static void key_v6(const struct in6_addr *a, addr_key *k)
{
    if (IN6_IS_ADDR_V4MAPPED(a)) {
        key_v4(a->s6_addr + 12, k);
        return;
    }
    memset(k, 0, sizeof *k);
    k->len = 8;
    memcpy(k->b, a->s6_addr, 8);
}

static bool key_of(const struct sockaddr *sa, addr_key *k)
{
    memset(k, 0, sizeof *k);
    if (sa != NULL && sa->sa_family == AF_INET)
        key_v4(&((const struct sockaddr_in *)sa)->sin_addr, k);
    else if (sa != NULL && sa->sa_family == AF_INET6)
        key_v6(&((const struct sockaddr_in6 *)sa)->sin6_addr, k);
    return k->len != 0;
}

/* A numeric address (IPv4, or IPv6 with or without brackets) as a key. */
static bool key_parse(const char *text, addr_key *k)
{
    char buf[64];
    size_t n = strlen(text);
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, text, n + 1);
    if (buf[0] == '[' && buf[n - 1] == ']') {
        buf[n - 1] = '\0';
        memmove(buf, buf + 1, n - 1);
    }
    struct in_addr v4;
    struct in6_addr v6;
    if (inet_pton(AF_INET, buf, &v4) == 1)
        key_v4(&v4, k);
    else if (inet_pton(AF_INET6, buf, &v6) == 1)
        key_v6(&v6, k);
    else
        return false;
    return true;
}

static bool key_eq(const addr_key *a, const addr_key *b)
{
    return a->len == b->len && memcmp(a->b, b->b, a->len) == 0;
}

/* ---- the workers ---------------------------------------------------------------- */

static void *worker(void *arg)
{
    srv_conns *cs = arg;
    pthread_mutex_lock(&cs->wmu);
    for (;;) {
        while (cs->q_n == 0 && !cs->wstop)
            pthread_cond_wait(&cs->wcond, &cs->wmu);
        if (cs->q_n == 0)
            break; /* stopping, and nothing left: every suspended request resumed */
        job j = cs->queue[cs->q_head];
        cs->q_head = (cs->q_head + 1) % SRV_WORK_QUEUE;
        cs->q_n--;
        pthread_mutex_unlock(&cs->wmu);
        j.fn(j.arg);
        MHD_resume_connection(j.c);
        pthread_mutex_lock(&cs->wmu);
    }
    pthread_mutex_unlock(&cs->wmu);
    return NULL;
}

int srv_conns_submit(srv_conns *cs, struct MHD_Connection *c, srv_work_fn fn, void *arg)
{
    pthread_mutex_lock(&cs->wmu);
    if (cs->wstop || cs->q_n == SRV_WORK_QUEUE) {
        pthread_mutex_unlock(&cs->wmu);
        return JA_EBUSY;
    }
    /* Suspended before a worker can see it, so that its resume always
     * comes after (resuming a connection never suspended is undefined). */
    MHD_suspend_connection(c);
    cs->queue[(cs->q_head + cs->q_n) % SRV_WORK_QUEUE] = (job){c, fn, arg};
    cs->q_n++;
    pthread_cond_signal(&cs->wcond);
    pthread_mutex_unlock(&cs->wmu);
    return JA_OK;
}

/* ---- the ticker ------------------------------------------------------------------ */

/* Resumes the parked streams that have something to send or a keep-alive
 * due (all of them when closing), and shuts down the connections past
 * their deadline. cs->mu held. */
static void tick(srv_conns *cs)
{
    int64_t now = srv_now_ms();
    for (srv_stream *st = cs->streams; st; st = st->next)
        if (st->parked && (cs->closing || now - st->last_ms >= SRV_KEEPALIVE_MS || st->ready(st))) {
            st->parked = false;
            MHD_resume_connection(st->c);
        }
    for (srv_conn *c = cs->conns; c; c = c->next) {
        int64_t limit = c->phase == PHASE_HEADERS ? SRV_HEADER_MS
                        : c->phase == PHASE_BODY  ? SRV_BODY_MS
                                                  : -1;
        if (!c->cut && limit >= 0 && now - c->since > limit) {
            /* The fd is open: a connection's CLOSED notice (which unlists
             * it, under mu) comes before libmicrohttpd closes its socket.
             * A shut down socket reads as the client gone. */
            shutdown(c->fd, SHUT_RDWR);
            c->cut = true;
        }
    }
}

static void *ticker(void *arg)
{
    srv_conns *cs = arg;
    pthread_mutex_lock(&cs->mu);
    while (!cs->closing) {
        tick(cs);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += SRV_TICK_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&cs->tick, &cs->mu, &ts);
    }
    pthread_mutex_unlock(&cs->mu);
    return NULL;
}

/* ---- lifetime ------------------------------------------------------------------- */

int srv_conns_new(const srv_http_limits *lim, srv_conns **out)
{
    *out = NULL;
    srv_conns *cs = ja_xcalloc(1, sizeof *cs);
    cs->lim = *lim;
    cs->have_proxy = lim->trusted_proxy && key_parse(lim->trusted_proxy, &cs->proxy);
    cs->lim.trusted_proxy = NULL; /* the key is kept; the text may not live */
    pthread_mutex_init(&cs->mu, NULL);
    pthread_cond_init(&cs->tick, NULL);
    pthread_mutex_init(&cs->wmu, NULL);
    pthread_cond_init(&cs->wcond, NULL);
    cs->ticker_started = pthread_create(&cs->ticker, NULL, ticker, cs) == 0;
    for (uint32_t i = 0; i < SRV_WORKERS; i++)
        if (pthread_create(&cs->workers[cs->n_workers], NULL, worker, cs) == 0)
            cs->n_workers++;
    if (!cs->ticker_started || cs->n_workers == 0) { /* no thread could start */
        srv_conns_stop(cs);
        srv_conns_free(&cs);
        return JA_EIO;
    }
    *out = cs;
    return JA_OK;
}

void srv_conns_stop(srv_conns *cs)
{
    pthread_mutex_lock(&cs->wmu);
    cs->wstop = true;
    pthread_cond_broadcast(&cs->wcond);
    pthread_mutex_unlock(&cs->wmu);
    for (uint32_t i = 0; i < cs->n_workers; i++)
        pthread_join(cs->workers[i], NULL);
    cs->n_workers = 0;
    pthread_mutex_lock(&cs->mu);
    cs->closing = true;
    tick(cs); /* every parked stream resumed, to end */
    pthread_cond_broadcast(&cs->tick);
    pthread_mutex_unlock(&cs->mu);
    if (cs->ticker_started)
        pthread_join(cs->ticker, NULL);
    cs->ticker_started = false;
}

void srv_conns_free(srv_conns **p)
{
    srv_conns *cs = *p;
    if (cs == NULL)
        return;
    /* The daemon has stopped: every connection was noted closed. */
    while (cs->conns) {
        srv_conn *c = cs->conns;
        cs->conns = c->next;
        free(c);
    }
    pthread_mutex_destroy(&cs->mu);
    pthread_cond_destroy(&cs->tick);
    pthread_mutex_destroy(&cs->wmu);
    pthread_cond_destroy(&cs->wcond);
    free(cs);
    *p = NULL;
}

bool srv_conns_closing(srv_conns *cs)
{
    pthread_mutex_lock(&cs->mu);
    bool c = cs->closing;
    pthread_mutex_unlock(&cs->mu);
    return c;
}

unsigned srv_conns_socket_limit(const srv_http_limits *lim)
{
    /* Behind a proxy every socket is the proxy's: counted by request. */
    if (lim->trusted_proxy)
        return 0;
    /* Both kinds, and a few idle or half-sent ones (a browser keeps some
     * connections open between requests). */
    return 2 * lim->per_address + 4;
}

/* ---- connections ---------------------------------------------------------------- */

void srv_conns_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                      enum MHD_ConnectionNotificationCode code)
{
    srv_conns *cs = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        srv_conn *conn = ja_xcalloc(1, sizeof *conn);
        *socket_context = conn;
        const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c,
                                                                     MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ad = MHD_get_connection_info(c,
                                                                     MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        conn->fd = fd ? fd->connect_fd : -1;
        key_of(ad ? ad->client_addr : NULL, &conn->peer);
        conn->client = conn->peer;
        conn->phase = conn->fd >= 0 ? PHASE_HEADERS : PHASE_BUSY;
        conn->since = srv_now_ms();
        pthread_mutex_lock(&cs->mu);
        conn->next = cs->conns;
        if (cs->conns)
            cs->conns->prev = conn;
        cs->conns = conn;
        cs->n_open++;
        pthread_mutex_unlock(&cs->mu);
        return;
    }
    srv_conn *conn = *socket_context;
    if (conn == NULL)
        return;
    pthread_mutex_lock(&cs->mu);
    if (conn->kind == KIND_REQUEST) /* completed is noted first; never twice */
        cs->n_requests--;
    else if (conn->kind == KIND_STREAM)
        cs->n_streams--;
    if (conn->prev)
        conn->prev->next = conn->next;
    else
        cs->conns = conn->next;
    if (conn->next)
        conn->next->prev = conn->prev;
    cs->n_open--;
    pthread_mutex_unlock(&cs->mu);
    free(conn);
    *socket_context = NULL;
}

/* The client address of a request on conn: the last address of
 * X-Forwarded-For when the peer is the trusted proxy (it appends the
 * address it saw), else the peer. */
static addr_key client_of(srv_conns *cs, struct MHD_Connection *c, const srv_conn *conn)
{
    if (!cs->have_proxy || !key_eq(&conn->peer, &cs->proxy))
        return conn->peer;
    const char *xff = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Forwarded-For");
    const char *last = xff ? strrchr(xff, ',') : NULL;
    last = last ? last + 1 : xff;
    char buf[64];
    addr_key k;
    if (last) {
        while (*last == ' ' || *last == '\t')
            last++;
        size_t n = strcspn(last, " \t");
        if (n < sizeof buf) {
            memcpy(buf, last, n);
            buf[n] = '\0';
            if (key_parse(buf, &k))
                return k;
        }
    }
    return conn->peer;
}

int srv_conns_admit(srv_conns *cs, struct MHD_Connection *c, bool stream, srv_conn **out,
                    const char **msg)
{
    const union MHD_ConnectionInfo *sc = MHD_get_connection_info(c,
                                                                 MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    srv_conn *conn = sc ? sc->socket_context : NULL;
    *out = NULL;
    if (conn == NULL) {
        *msg = "the server does not know this connection";
        return 503;
    }
    addr_key who = client_of(cs, c, conn);
    int kind = stream ? KIND_STREAM : KIND_REQUEST;
    pthread_mutex_lock(&cs->mu);
    uint32_t mine = 0;
    for (const srv_conn *o = cs->conns; o; o = o->next)
        mine += o != conn && o->kind == kind && key_eq(&o->client, &who);
    int code = 0;
    if (cs->closing) {
        *msg = "the server is stopping";
        code = 503;
    } else if (mine >= cs->lim.per_address) {
        *msg = stream ? "too many event streams from your address (--max-per-address)"
                      : "too many requests at once from your address (--max-per-address)";
        code = 429;
    } else if (stream ? cs->n_streams >= cs->lim.max_streams
                      : cs->n_requests >= cs->lim.max_requests) {
        *msg = stream ? "the server has as many event streams as it takes (--max-streams); try "
                        "again later"
                      : "the server is answering as many requests as it takes (--max-clients); "
                        "try again later";
        code = 503;
    } else {
        if (conn->kind == KIND_REQUEST) /* a request not noted completed: never */
            cs->n_requests--;
        else if (conn->kind == KIND_STREAM)
            cs->n_streams--;
        conn->kind = kind;
        conn->client = who;
        conn->phase = PHASE_BODY;
        conn->since = srv_now_ms();
        if (stream)
            cs->n_streams++;
        else
            cs->n_requests++;
        *out = conn;
    }
    pthread_mutex_unlock(&cs->mu);
    return code;
}

void srv_conns_body_done(srv_conns *cs, srv_conn *conn)
{
    if (conn == NULL)
        return;
    pthread_mutex_lock(&cs->mu);
    conn->phase = PHASE_BUSY;
    pthread_mutex_unlock(&cs->mu);
}

void srv_conns_done(srv_conns *cs, struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *sc = MHD_get_connection_info(c,
                                                                 MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    srv_conn *conn = sc ? sc->socket_context : NULL;
    if (conn == NULL)
        return;
    pthread_mutex_lock(&cs->mu);
    if (conn->kind == KIND_REQUEST)
        cs->n_requests--;
    else if (conn->kind == KIND_STREAM)
        cs->n_streams--;
    conn->kind = KIND_NONE;
    conn->phase = PHASE_HEADERS; /* the next request's, on a kept-alive connection */
    conn->since = srv_now_ms();
    pthread_mutex_unlock(&cs->mu);
}

void srv_conns_counts(srv_conns *cs, uint32_t *requests, uint32_t *streams, uint32_t *open)
{
    pthread_mutex_lock(&cs->mu);
    *requests = cs->n_requests;
    *streams = cs->n_streams;
    *open = cs->n_open;
    pthread_mutex_unlock(&cs->mu);
}

/* ---- streams -------------------------------------------------------------------- */

void srv_stream_add(srv_conns *cs, srv_stream *st)
{
    pthread_mutex_lock(&cs->mu);
    st->owner = cs;
    st->parked = false;
    st->last_ms = srv_now_ms();
    st->prev = NULL;
    st->next = cs->streams;
    if (cs->streams)
        cs->streams->prev = st;
    cs->streams = st;
    st->listed = true;
    pthread_mutex_unlock(&cs->mu);
}

void srv_stream_remove(srv_stream *st)
{
    srv_conns *cs = st->owner;
    if (cs == NULL)
        return;
    pthread_mutex_lock(&cs->mu);
    if (st->listed) {
        if (st->prev)
            st->prev->next = st->next;
        else
            cs->streams = st->next;
        if (st->next)
            st->next->prev = st->prev;
        st->listed = false;
    }
    pthread_mutex_unlock(&cs->mu);
}

bool srv_stream_park(srv_stream *st)
{
    srv_conns *cs = st->owner;
    pthread_mutex_lock(&cs->mu);
    /* Checked again under mu: what became ready since the reader looked
     * is either seen here or resumes the stream at the next tick. */
    bool park = !cs->closing && !st->ready(st) &&
                srv_now_ms() - st->last_ms < SRV_KEEPALIVE_MS;
    if (park) {
        st->parked = true;
        MHD_suspend_connection(st->c);
    }
    pthread_mutex_unlock(&cs->mu);
    return park;
}

void srv_stream_sent(srv_stream *st)
{
    srv_conns *cs = st->owner;
    pthread_mutex_lock(&cs->mu);
    st->last_ms = srv_now_ms();
    pthread_mutex_unlock(&cs->mu);
}

bool srv_stream_keepalive_due(srv_stream *st)
{
    srv_conns *cs = st->owner;
    pthread_mutex_lock(&cs->mu);
    bool due = srv_now_ms() - st->last_ms >= SRV_KEEPALIVE_MS;
    pthread_mutex_unlock(&cs->mu);
    return due;
}

ssize_t srv_stream_read(srv_stream *st, arena_sse_out *out, srv_stream_next next, char *buf,
                        size_t max)
{
    for (;;) {
        size_t n = 0;
        int rc = SRV_NEXT_SET;
        while (n < max) {
            if (out->pending) {
                n += arena_sse_copy(out, buf + n, max - n);
                continue;
            }
            if ((rc = next(st, out)) != SRV_NEXT_SET)
                break;
        }
        if (n) {
            srv_stream_sent(st);
            return (ssize_t)n;
        }
        if (rc == SRV_NEXT_ERROR)
            return MHD_CONTENT_READER_END_WITH_ERROR;
        if (rc == SRV_NEXT_END || srv_conns_closing(st->owner))
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (srv_stream_keepalive_due(st)) {
            arena_sse_set(out, 0, NULL);
            continue;
        }
        if (srv_stream_park(st))
            return 0; /* resumed by the ticker */
        /* Became ready (or due) while parking: read again. */
    }
}
