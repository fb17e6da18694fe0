/* The pure pieces of `arena serve` (docs/server.md): author names, tokens,
 * request routing, HTML escaping, the HOST:PORT flag and the pairing rule
 * of the scheduler. No I/O and no globals, except arena_serve_token_new
 * (libsodium's randombytes); tests/unit/test_serve_util.c holds the
 * contracts. */
#ifndef ARENA_SERVE_UTIL_H
#define ARENA_SERVE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An author name: 1 to ARENA_SERVE_NAME_MAX characters of [A-Za-z0-9_-],
 * the first a letter or digit. Nothing else is accepted, so a name is safe
 * in a URL, a file name, HTML and JSON as it is (pages escape it all the
 * same). */
#define ARENA_SERVE_NAME_MAX 32
bool arena_serve_name_ok(const char *name);

/* A submission's parameters (docs/server.md, "Parameters"): "" (none), or
 * KEY=VALUE items joined by ':' (ja_params.h's grammar), at most
 * ARENA_SERVE_PARAMS_MAX bytes of printable ASCII without spaces, each
 * item with a value. What the keys mean is the
 * bot's to say (its check_params, at validation). False, with a line in
 * err, for any other text. */
#define ARENA_SERVE_PARAMS_MAX 255 /* JA_PARAMS_MAX, its NUL aside */
bool arena_serve_params_ok(const char *params, char *err, size_t cap);

/* Tokens: ARENA_SERVE_TOKEN_BYTES random bytes (randombytes_buf) written
 * as lowercase hex. Only the token's hash is stored: BLAKE2b-256
 * (crypto_generichash) of the token text, as hex. */
#define ARENA_SERVE_TOKEN_BYTES 32
#define ARENA_SERVE_TOKEN_HEX (2 * ARENA_SERVE_TOKEN_BYTES + 1)
#define ARENA_SERVE_HASH_HEX 65
void arena_serve_token_new(char out[ARENA_SERVE_TOKEN_HEX]);
/* False for a text that is not a token's shape (64 lowercase hex digits):
 * it is never hashed or looked up. */
bool arena_serve_token_shape(const char *token);
void arena_serve_token_hash(const char *token, char out[ARENA_SERVE_HASH_HEX]);
/* True when token hashes to stored_hash; the hashes are compared in
 * constant time (sodium_memcmp). False for a malformed token or hash. */
bool arena_serve_token_check(const char *token, const char *stored_hash);

/* The token of an "Authorization: Bearer TOKEN" header value (NULL: no
 * header) into out; false when it is missing or not a token's shape. */
bool arena_serve_bearer(const char *header, char out[ARENA_SERVE_TOKEN_HEX]);

/* The server's seeds (docs/server.md, "Deals"): the seed for (purpose,
 * index) under the server seed, one-way: the first 8 bytes (little-endian)
 * of BLAKE2b-128 (libsodium's crypto_generichash) of the server seed, the
 * purpose and the index, each little-endian. ja_seed_derive, which the
 * plans use, can be run backwards (SplitMix64's finaliser is a bijection):
 * from one published match seed to its batch's seed, and from that to the
 * server seed. This cannot: a published seed gives away nothing above it. */
uint64_t arena_serve_seed(uint64_t server_seed, uint32_t purpose, uint64_t index);

/* ---- routing ----------------------------------------------------------------- */

typedef enum arena_route_kind {
    ARENA_ROUTE_NONE = 0,     /* no such page: 404 */
    ARENA_ROUTE_BAD_METHOD,   /* a known path asked with another method: 405 */
    ARENA_ROUTE_INDEX,        /* GET / */
    ARENA_ROUTE_SUBMIT_PAGE,  /* GET /submit */
    ARENA_ROUTE_BOT_PAGE,     /* GET /bots/NAME */
    ARENA_ROUTE_MATCH_PAGE,   /* GET /matches/T-N.html */
    ARENA_ROUTE_MATCH_REPLAY, /* GET /matches/T-N.replay */
    ARENA_ROUTE_REGISTER,     /* POST /api/register */
    ARENA_ROUTE_UPLOAD,       /* POST /api/bots */
    ARENA_ROUTE_LADDER,       /* GET /api/ladder */
    ARENA_ROUTE_BOT,          /* GET /api/bots/NAME */
    ARENA_ROUTE_RETIRE,       /* POST /api/bots/NAME/retire */
    ARENA_ROUTE_SMOKE_BUNDLE, /* GET /api/bots/NAME/versions/V/smoke/I */
    ARENA_ROUTE_MATCH,        /* GET /api/matches/T-N */
    ARENA_ROUTE_MATCH_LOGS,   /* GET /api/matches/T-N/logs */
    ARENA_ROUTE_EVENTS,       /* GET /api/events */
    ARENA_ROUTE_EXTERNAL,     /* POST /api/external */
    ARENA_ROUTE_SERVER,       /* GET /api/server */
    ARENA_ROUTE_STATIC,       /* GET /static/NAME, /matches/replay.{js,css}: asset `number` */
    ARENA_ROUTE_MATCHES,      /* GET /api/matches (?before=CURSOR&limit=N) */
    ARENA_ROUTE_BOT_MATCHES,  /* GET /api/bots/NAME/matches (the same query) */
    ARENA_ROUTE_MATCHES_PAGE, /* GET /matches (?before=CURSOR) */
    ARENA_ROUTE_BOT_MATCHES_PAGE, /* GET /bots/NAME/matches (?before=CURSOR) */
} arena_route_kind;

/* The server's static assets (its pages' scripts and style, and the replay
 * viewer's): the path each is served at and its Content-Type; an asset's
 * route carries its index here. */
typedef struct arena_serve_asset {
    const char *path, *type;
} arena_serve_asset;
extern const arena_serve_asset arena_serve_assets[];
extern const unsigned arena_serve_n_assets;

typedef struct arena_route {
    arena_route_kind kind;
    char name[ARENA_SERVE_NAME_MAX + 1]; /* BOT_PAGE, BOT, RETIRE, SMOKE_BUNDLE: a valid name */
    int64_t tournament;                  /* MATCH*: T >= 1 */
    uint32_t number;                     /* MATCH*: N; SMOKE_BUNDLE: I; STATIC: asset */
    uint32_t version;                    /* SMOKE_BUNDLE: V >= 1 */
} arena_route;

/* Routes a request by method ("GET", "HEAD" as GET, "POST") and decoded
 * path. Only the exact paths above match: a name must pass
 * arena_serve_name_ok, T and N are decimal numbers without signs or
 * leading zeros, an asset is one of arena_serve_assets, and nothing else
 * (no "..", no "%", no query: a query is the caller's, apart) is part of
 * a path. The route names no file: what is read is found from its
 * numbers and names alone. */
void arena_serve_route(const char *method, const char *path, arena_route *out);

/* Parses a match id "T-N" (as in the routes). */
bool arena_serve_match_id(const char *s, int64_t *tournament, uint32_t *number);

/* The folder of version id's smoke matches under the data folder (their
 * replays, and the reproduction bundles of the faulty ones):
 * DATA/validation/ID; and the bundle of smoke match i there (it exists
 * only when that match faulted). */
void arena_serve_smoke_dir(const char *data, int64_t id, char *out, size_t cap);
void arena_serve_smoke_bundle(const char *data, int64_t id, uint32_t i, char *out, size_t cap);

/* ---- server-sent events ---------------------------------------------------------- */

/* The text of a stream not yet sent: one event or comment at a time. */
typedef struct arena_sse_out {
    char *pending;            /* NULL: nothing; malloc'ed */
    size_t len, off;
} arena_sse_out;

/* Sets the pending text to event `id` with data (one line of JSON), or to
 * a keep-alive comment when data is NULL. */
void arena_sse_set(arena_sse_out *o, uint64_t id, const char *data);
/* Copies up to max bytes of the pending text into buf (a libmicrohttpd
 * content reader's answer), freeing it once all of it is out. */
size_t arena_sse_copy(arena_sse_out *o, char *buf, size_t max);

/* ---- --http ------------------------------------------------------------------- */

/* `arena serve --http HOST:PORT`: arena_http_addr (core/util.h) with a
 * port from 1 to 65535. */
bool arena_serve_http_addr(const char *s, char *host, size_t host_cap, uint16_t *port, bool *v6,
                           bool *loopback, char *err, size_t cap);

/* ---- pairing ------------------------------------------------------------------- */

/* One active version as the scheduler sees it. */
typedef struct arena_pair_cand {
    int64_t id;     /* the version id: unique, the last tie-break */
    int64_t author; /* its author: two versions of one author never meet */
    int64_t games;  /* matches played in the ladder */
    double elo;     /* its live Elo in the ladder (1500 before its first game) */
} arena_pair_cand;

/* The pairing rule (docs/server.md): the first seat goes to the candidate
 * with the fewest games (ties: the lowest id); each further seat to the
 * remaining candidate of an author not yet picked whose Elo is closest to
 * the first one's (ties: fewer games, then the lowest id). Writes n_seats
 * indexes into c to pick, in the order chosen. Needs n_seats >= 1 and
 * candidates of at least n_seats authors; returns false otherwise.
 * Deterministic: a function of the candidates alone. */
bool arena_serve_pair(const arena_pair_cand *c, uint32_t n, uint32_t n_seats, uint32_t *pick);

/* The fair validation queue (docs/server.md, "Validation"): of n waiting
 * versions, in id order, with their authors and whether each can be
 * validated now (an external one only while its bot is connected), the
 * index of the next one: the oldest eligible version of the first author
 * after `last` (the author served last; 0: none yet) in author id order,
 * wrapping around, so that one author's many uploads take turns with
 * everyone else's. -1 when none is eligible. */
int arena_serve_fair_next(const int64_t *author, const bool *eligible, uint32_t n, int64_t last);

#endif /* ARENA_SERVE_UTIL_H */
