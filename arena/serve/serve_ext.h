/* Inside `arena serve`: external bots (docs/server.md, "External bots").
 *
 * With --listen the server runs the referee's hub (hub.h) on that tcp
 * endpoint with CurveZMQ: its key pair lives in DATA/curve (arena.key mode
 * 0600, made once, kept across restarts), and its ZAP allow-list holds
 * exactly the client keys of the external versions that are validating,
 * active or suspended, each bound to its author's name (srv_ext_sync). An
 * external version is a row of the versions table whose file is
 * "zmq:KEY" (serve_db.h); its bot says hello under its author's name.
 *
 * The hub's participant for a name is claimed once (ref_hub_claim) and
 * kept until the server stops: its seats reach whichever connection holds
 * the name when each seat opens, so a bot that reconnects plays on. Every
 * function is safe to call from any thread. */
#ifndef ARENA_SERVE_EXT_H
#define ARENA_SERVE_EXT_H

#include "serve/serve_int.h"

#include "seat.h"

/* Prefix of an external version's file column. */
#define SRV_EXT_FILE "zmq:"

/* Starts the hub when --listen was given (JA_OK and nothing else without
 * it), binding the keys already registered. JA_EINVAL / JA_EIO with one
 * line in err. */
int srv_ext_start(arena_server *s, char *err, size_t cap);

/* The note on standard error: where external bots connect, the key. */
void srv_ext_note(arena_server *s);

/* Says `bye` to every bot and stops the hub: after every match ended. */
void srv_ext_stop(arena_server *s);

/* Whether v is an external version. */
bool srv_ext_is(const arena_serve_version *v);

/* Whether the external version v's bot is connected: a connection said
 * hello under its author's name with v's key. */
bool srv_ext_connected(arena_server *s, const arena_serve_version *v);

/* Drops the external versions whose bot is not connected from v[0..n-1]
 * (order kept); the count left. */
uint32_t srv_ext_filter(arena_server *s, arena_serve_version *v, uint32_t n);

/* The participant of external version v (borrowed: never destroy it).
 * JA_OK; JA_ENOTFOUND (err says why) when its bot is not connected. */
int srv_ext_bot(arena_server *s, const arena_serve_version *v, ref_bot **out, char *err,
                size_t cap);

/* Whether batch b may play now: every external bot of it connected
 * (READY); one is not, and the batch waits for it (WAIT: nothing is
 * played, nobody faulted); it has been waiting longer than the grace, the
 * server has no --listen, or one of its external versions was retired
 * (GIVE_UP: the batch is given up, its pending matches never played). */
enum { SRV_EXT_READY, SRV_EXT_WAIT, SRV_EXT_GIVE_UP };
int srv_ext_ready(arena_server *s, const arena_serve_batch *b);

/* Makes the hub's allow-list the keys of the external versions that are
 * validating, active or suspended (after a registration or a retirement). */
void srv_ext_sync(arena_server *s);

/* POST /api/external for author (id, name) with the Z85 key: an HTTP
 * status, and with 202 the new version's id and number; otherwise a
 * one-line reason in err. */
int srv_ext_register(arena_server *s, int64_t author, const char *name, const char *key,
                     int64_t *id, int64_t *number, char *err, size_t cap);

/* GET /api/server: the game and, with --listen, where and how external
 * bots connect. New reference. */
json_t *srv_ext_server_json(arena_server *s);

/* Writes the "External bots" paragraph of the submit page (HTML) into f. */
void srv_ext_page(arena_server *s, FILE *f);

#endif /* ARENA_SERVE_EXT_H */
