/* `arena serve`'s connections (docs/server.md, "Connections"): what stands
 * between libmicrohttpd and the routes, so that no client can starve the
 * others and no connection costs a thread.
 *
 * The daemon runs a few polling threads (epoll) that must never block; a
 * connection is one of:
 *  - waiting for a request's headers, or reading its body: each under a
 *    deadline (SRV_HEADER_MS from the connection's start or its last
 *    answer, SRV_BODY_MS for the body), which a slow client that sends a
 *    header line every few seconds cannot stretch: past it the watchdog
 *    shuts the socket down;
 *  - a request being answered: admitted first against --max-clients in
 *    all and --max-per-address for its client address, answered at once
 *    when it is cheap (a constant page), else by one of a few worker
 *    threads while its connection is suspended (a worker may read a
 *    database or a file; the polling threads go on meanwhile);
 *  - an event stream: admitted against --max-streams and
 *    --max-per-address apart from requests, so spectators and page
 *    requests never take each other's places; parked (suspended) while it
 *    has nothing to send and resumed by the ticker when its source has
 *    something, or for a keep-alive comment every SRV_KEEPALIVE_MS.
 * A client address is the peer's (an IPv6 one by its /64), or, for a
 * connection from the configured trusted proxy, the last address of its
 * X-Forwarded-For.
 *
 * Threads: the ticker (every SRV_TICK_MS: streams to resume, deadlines),
 * the workers, and libmicrohttpd's; everything here locks its own mutex. */
#ifndef ARENA_SERVE_CONN_H
#define ARENA_SERVE_CONN_H

#include "serve/serve_util.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

#define SRV_HEADER_MS 10000   /* a request's headers, from connect or the last answer */
#define SRV_BODY_MS 120000    /* a request's body, from its headers */
#define SRV_KEEPALIVE_MS 15000
#define SRV_TICK_MS 100
#define SRV_WORKERS 4
#define SRV_WORK_QUEUE 256    /* requests waiting for a worker; more get 503 */
#define SRV_STREAM_BLOCK 8192 /* bytes a stream hands libmicrohttpd at once */

typedef struct srv_http_limits {
    uint32_t max_requests;    /* requests being answered at once (--max-clients) */
    uint32_t max_streams;     /* event streams at once (--max-streams) */
    uint32_t per_address;     /* of each kind, for one client address (--max-per-address) */
    const char *trusted_proxy; /* numeric address whose X-Forwarded-For is believed, or NULL */
} srv_http_limits;

typedef struct srv_conns srv_conns;
typedef struct srv_conn srv_conn;

/* A parked-capable event stream, embedded first in the caller's stream
 * state. ready says (cheaply, from any thread) whether the stream has
 * something to send; the ticker resumes a parked stream when it does. */
typedef struct srv_stream {
    struct MHD_Connection *c;
    bool (*ready)(struct srv_stream *st);
    srv_conns *owner;
    bool parked, listed;
    int64_t last_ms;          /* when it last sent anything (keep-alives) */
    struct srv_stream *prev, *next;
} srv_stream;

/* A request for a worker: run(arg) answers it, then the connection is
 * resumed (the route's answer is queued in the next access-handler call). */
typedef void (*srv_work_fn)(void *arg);

/* Starts the ticker and the workers. JA_OK, or JA_EIO when no thread can start. */
int srv_conns_new(const srv_http_limits *lim, srv_conns **out);
/* Stops taking work (later submits fail), answers nothing more, waits for
 * the requests in the workers, resumes every parked stream (they must end
 * their streams once srv_conns_closing says so) and joins the threads:
 * call before MHD_stop_daemon, which may not stop with suspended
 * connections. */
void srv_conns_stop(srv_conns *cs);
void srv_conns_free(srv_conns **cs);
bool srv_conns_closing(srv_conns *cs);

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback (cls: the
 * srv_conns): a connection's start and end. */
void srv_conns_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                      enum MHD_ConnectionNotificationCode code);

/* The MHD_OPTION_PER_IP_CONNECTION_LIMIT to give the daemon: sockets of
 * one address, both kinds and the idle ones (0: none, behind a proxy). */
unsigned srv_conns_socket_limit(const srv_http_limits *lim);

/* Admits the request just arrived on c (its headers read) as a stream or a
 * request. 0, or the HTTP status that refuses it (429: its address is at
 * --max-per-address; 503: the server is at --max-clients or
 * --max-streams) with a one-line reason in *msg. On 0, *conn is the
 * connection, to be given back with srv_conns_done when the request
 * completes. */
int srv_conns_admit(srv_conns *cs, struct MHD_Connection *c, bool stream, srv_conn **conn,
                    const char **msg);
/* The request's body has arrived (its deadline is over). */
void srv_conns_body_done(srv_conns *cs, srv_conn *conn);
/* A request on c has completed (MHD_OPTION_NOTIFY_COMPLETED), admitted or
 * refused: its place is free, and the connection waits for its next
 * request's headers under the header deadline. */
void srv_conns_done(srv_conns *cs, struct MHD_Connection *c);

/* Runs fn(arg) in a worker after suspending c (call from the access
 * handler). JA_OK; JA_EBUSY when the queue is full or the server is
 * stopping (c not suspended: answer 503 at once). */
int srv_conns_submit(srv_conns *cs, struct MHD_Connection *c, srv_work_fn fn, void *arg);

/* Streams: list st (its c, ready set) when its response is queued, and
 * unlist it when the response is freed. */
void srv_stream_add(srv_conns *cs, srv_stream *st);
void srv_stream_remove(srv_stream *st);
/* From the stream's content reader when it has nothing to send: parks
 * (suspends) the connection unless st became ready meanwhile or the
 * server is closing. True when parked: the reader then returns 0. */
bool srv_stream_park(srv_stream *st);
/* Notes that st sent something now (its keep-alive clock restarts);
 * whether a keep-alive comment is due. */
void srv_stream_sent(srv_stream *st);
bool srv_stream_keepalive_due(srv_stream *st);

/* A stream's source: sets out's pending text to its next event (an
 * arena_sse_set) and says SRV_NEXT_SET, or says there is none yet
 * (SRV_NEXT_NONE), that the stream is over (SRV_NEXT_END), or that it
 * failed (SRV_NEXT_ERROR, out of memory). */
enum { SRV_NEXT_NONE = 0, SRV_NEXT_SET = 1, SRV_NEXT_END = -1, SRV_NEXT_ERROR = -2 };
typedef int (*srv_stream_next)(srv_stream *st, arena_sse_out *out);

/* A stream's content reader (libmicrohttpd's): as many events as fit in
 * buf, or a keep-alive comment when one is due, else the stream parked
 * (0); the end of the stream once next says so or the server closes. */
ssize_t srv_stream_read(srv_stream *st, arena_sse_out *out, srv_stream_next next, char *buf,
                        size_t max);

/* Counts, for /api/server and the tests: requests and streams admitted
 * now, and connections open. */
void srv_conns_counts(srv_conns *cs, uint32_t *requests, uint32_t *streams, uint32_t *open);

/* Monotonic milliseconds. */
int64_t srv_now_ms(void);

#endif /* ARENA_SERVE_CONN_H */
