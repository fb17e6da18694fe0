/* `arena serve`: a competition server (docs/server.md). Authors register
 * and upload plugin bots over HTTP; each new version is validated in a
 * background worker (ELF check, sandboxed load, supports(), smoke matches
 * against `random` with no fault allowed); a scheduler keeps batches of
 * matches running among the active versions, each batch a small duplicate
 * tournament of the ladder database, so that the ladder stays readable by
 * `arena ladder` and a server killed mid-batch resumes it exactly; pages
 * and a JSON API show the ladder, the bots and the replays, and /api/events
 * streams a server-sent event for every recorded match and every change
 * of a version's status.
 *
 * It comes in two steps (docs/architecture.md, "Errors"), neither printing
 * an error. arena_serve_prepare raises the open-files limit, makes the data
 * folder, takes the ladder database's lock and opens both databases, and
 * starts the hub of external bots and the HTTP side: its failures are the
 * user's (exit 2: a limit too low, a folder, a database file or an address
 * that cannot be used; nothing is written to the ladder yet) except
 * JA_EBUSY, the ladder database in use by another arena, and JA_EDB, the
 * ladder database failing. arena_serve_run serves until SIGINT or SIGTERM
 * (then it stops after the matches in flight): JA_OK after a signal, or the
 * failure that stopped it (exit 1). Each returns JA_OK or the code with one
 * line in err. arena_serve_close stops everything and frees the server,
 * whatever the steps returned. */
#ifndef ARENA_SERVE_H
#define ARENA_SERVE_H

#include "jackarena/ja_rules.h"
#include "plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What to serve. Every field has been checked by the caller (cmd_serve.c). */
typedef struct arena_serve_args {
    const ja_game_rules *game;
    ja_options options;       /* resolved for seats */
    uint32_t seats;
    const char *db_path;      /* the ladder database */
    const char *data_dir;     /* the server's folder (made when missing) */
    char host[64];            /* numeric address to bind */
    uint16_t port;
    bool v6;
    uint32_t concurrency;     /* matches at once */
    uint32_t rounds;          /* rounds of a batch (at least concurrency / seats) */
    ladder_seating seating;   /* the seat orders of a new batch's plan */
    uint32_t smoke;           /* smoke matches of a validation */
    uint32_t move_ms;         /* per-decision limit; REF_MOVE_MS_KIND: by kind */
    uint64_t max_upload;      /* bytes */
    uint32_t upload_rate;     /* uploads per author per hour */
    uint32_t queue_max;       /* versions waiting for validation, all authors */
    uint32_t author_queue;    /* versions of one author waiting (below queue_max) */
    uint32_t fault_limit;     /* ladder faults of a version before it is suspended */
    uint32_t max_clients;     /* page and API requests being answered at once */
    uint32_t max_streams;     /* event streams at once */
    uint32_t max_per_address; /* requests, and streams, of one client address */
    const char *trusted_proxy; /* numeric address of a reverse proxy, or NULL */
    uint32_t live_delay;      /* decisions a live match is shown behind (serve_live.h) */
    const char *listen;       /* tcp endpoint for external bots, or NULL */
    bool have_seed;
    uint64_t seed;
    bool quiet;
} arena_serve_args;

typedef struct arena_server arena_server;

int arena_serve_prepare(arena_server **s, const arena_serve_args *a, char *err, size_t cap);
int arena_serve_run(arena_server *s, char *err, size_t cap);
/* stopped: the run ended after a signal, which is then noted ("arena
 * serve: stopped") unless quiet. */
void arena_serve_close(arena_server **s, bool stopped);

#endif /* ARENA_SERVE_H */
