/* Inside `arena serve`: the state its threads share (serve.c: the
 * validator, the scheduler, the events; serve_http.c: the HTTP side). */
#ifndef ARENA_SERVE_INT_H
#define ARENA_SERVE_INT_H

#include "serve/serve.h"
#include "core/db_lock.h"
#include "serve/serve_db.h"
#include "serve/serve_util.h"

#include "ladder_db.h"

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>

/* Events kept for SSE clients that fall behind (then they skip ahead). */
#define SRV_EVENT_RING 256
/* The shortest time between two `match` events (serve.c, on_match). */
#define SRV_MATCH_EVENT_MS 250

typedef struct arena_server {
    const arena_serve_args *a;
    char opts_text[LADDER_OPTIONS_MAX];
    char data[4096];          /* the data folder, absolute */
    char bots_dir[4200], replays_dir[4200], pages_dir[4200], tmp_dir[4200];
    arena_serve_db *sdb;
    uint64_t seed;            /* the server seed (serve_db.h) */
    volatile sig_atomic_t *stop;
    bool failed;              /* a thread stopped the server on an error ... */
    char fail_line[1400];     /* ... which this line says */
    ladder_db *db;            /* the ladder's, locked (lock) while the server runs */
    arena_db_lock lock;
    bool signals_set;         /* SIGINT, SIGTERM, SIGPIPE are the server's; the old: */
    struct sigaction old_int, old_term, old_pipe;
    uint32_t validate_failures; /* the validator's database failures in a row */
    /* The scheduler's `match` events: when the last went, and the matches
     * recorded since (serve.c, on_match). */
    int64_t match_event_ms;
    uint64_t match_events_held;
    /* Events and wake-ups: mu guards everything below. */
    pthread_mutex_t mu;
    pthread_cond_t cond;
    uint64_t ev_seq;          /* events sent so far; event k is ev[k % RING] */
    char *ev[SRV_EVENT_RING];
    bool closing;             /* the server stops: SSE streams end */
    uint64_t wake;            /* bumped when a version changes status */
    struct MHD_Daemon *mhd;
    struct srv_conns *conns;  /* admission, workers, parked streams (serve_conn.h) */
    /* GET /api/ladder's answer, made again only after an event and at most
     * once a second (serve_http.c): ladder_mu is held while it is made, so
     * requests in a burst share one fit. */
    pthread_mutex_t ladder_mu;
    char *ladder_text;
    uint64_t ladder_seq;
    int64_t ladder_ms;        /* when it was made (serve_conn.h's clock) */
    struct srv_live *live;    /* the live matches (serve_live.h) */
    struct srv_ext *ext;      /* external bots (serve_ext.h); NULL without --listen */
} arena_server;

/* A route's call: the connection it answers (for its headers), and the
 * answer it makes (srv_answer), queued by the HTTP side once the route
 * returns, in libmicrohttpd's thread (a route may run in a worker). */
typedef struct srv_call {
    struct MHD_Connection *conn;
    unsigned code;
    struct MHD_Response *resp; /* the answer; NULL: none (the connection is closed) */
} srv_call;

/* Takes r (NULL: out of memory) as c's answer with status code: MHD_YES,
 * or MHD_NO without one. */
static inline enum MHD_Result srv_answer(srv_call *c, unsigned code, struct MHD_Response *r)
{
    c->code = code;
    c->resp = r;
    return r ? MHD_YES : MHD_NO;
}

/* Sends an event to every SSE client (steals ev: a JSON object with at
 * least "type") and wakes the threads that wait for work. */
void srv_event(arena_server *s, json_t *ev);

/* A version's status changed: the event. */
void srv_event_version(arena_server *s, const char *author, int64_t number, const char *status,
                       const char *reason);

/* A batch started ("running") or ended ("done", or "failed" with its
 * reason): the event. */
void srv_event_batch(arena_server *s, const arena_serve_batch *b, const char *state,
                     const char *reason);

/* Starts and stops the HTTP daemon (serve_http.c). */
int srv_http_start(arena_server *s, char *err, size_t cap);
void srv_http_stop(arena_server *s);

#endif /* ARENA_SERVE_INT_H */
