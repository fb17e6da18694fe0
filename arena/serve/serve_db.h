/* The server's own state (docs/server.md, "State"): authors, versions and
 * batches, in a SQLite database of its own (DATA/serve.db). The ladder
 * itself (matches, ratings) stays in the ladder database (--db); a batch
 * names the ladder tournament that holds its matches.
 *
 * Every function is safe to call from any thread: one connection, one
 * mutex inside. Errors: JA_EDB (a database failure; a line in the err of
 * arena_serve_db_open, or on stderr later), JA_ENOTFOUND, JA_EBUSY
 * (a unique name or file taken). */
#ifndef ARENA_SERVE_DB_H
#define ARENA_SERVE_DB_H

#include "serve/serve_util.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct arena_serve_db arena_serve_db;

/* Version statuses, as stored and shown. */
#define ARENA_V_VALIDATING "validating"
#define ARENA_V_ACTIVE "active"
#define ARENA_V_REJECTED "rejected"
#define ARENA_V_SUSPENDED "suspended"
#define ARENA_V_RETIRED "retired"

/* Opens (makes) the database at path. JA_OK or JA_EDB with a line in err. */
int arena_serve_db_open(const char *path, arena_serve_db **out, char *err, size_t cap);
void arena_serve_db_close(arena_serve_db **db);

/* The server seed: the stored one, or seed stored when there is none yet
 * (have_seed: seed asked for; a different stored seed is an error). */
int arena_serve_db_seed(arena_serve_db *db, bool have_seed, uint64_t seed, uint64_t *out,
                        char *err, size_t cap);

/* A new author with the hash of its token. JA_EBUSY: the name is taken. */
int arena_serve_db_author_add(arena_serve_db *db, const char *name, const char *token_hash);
/* The author whose token this is (constant-time hash compare): id and
 * name. JA_ENOTFOUND for any other token. */
int arena_serve_db_author_auth(arena_serve_db *db, const char *token, int64_t *id,
                               char name[ARENA_SERVE_NAME_MAX + 1]);
/* The author of that name: its id. */
int arena_serve_db_author_find(arena_serve_db *db, const char *name, int64_t *id);

/* Versions uploaded by the author since `since` (unix seconds), the
 * versions of every author waiting for validation, and the author's. */
int arena_serve_db_counts(arena_serve_db *db, int64_t author, int64_t since, int64_t *recent,
                          int64_t *validating, int64_t *author_validating);

/* A new version of the author: file (relative to the data folder) with
 * SHA-256 sha and parameters params (NULL or "": none; checked by the
 * caller, arena_serve_params_ok), status validating, number one more than
 * its last. JA_EBUSY with *id, *number of the version when the author
 * already uploaded that file with those parameters. */
int arena_serve_db_version_add(arena_serve_db *db, int64_t author, const char *sha,
                               const char *file, const char *params, int64_t *id,
                               int64_t *number);

/* One version, as the scheduler and the validator need it. */
typedef struct arena_serve_version {
    int64_t id, author_id, number, faults;
    char author[ARENA_SERVE_NAME_MAX + 1];
    char sha256[65];
    char file[128];
    char status[16];
    char params[ARENA_SERVE_PARAMS_MAX + 1];
} arena_serve_version;

/* The version with the lowest id in status `status`, or JA_ENOTFOUND. */
int arena_serve_db_version_next(arena_serve_db *db, const char *status,
                                arena_serve_version *out);
int arena_serve_db_version_get(arena_serve_db *db, int64_t id, arena_serve_version *out);
/* Every version in status `status`, by id, into *out (malloc'ed; free()). */
int arena_serve_db_versions(arena_serve_db *db, const char *status, arena_serve_version **out,
                            uint32_t *n);
/* Sets a version's status, reason and report (JSON text; NULL: keeps the
 * one there). With only_from, only a version in that status changes
 * (*changed says whether it did). */
int arena_serve_db_version_set(arena_serve_db *db, int64_t id, const char *status,
                               const char *reason, const char *report, const char *only_from,
                               bool *changed);
/* Validation passed for version id (still validating; otherwise nothing
 * changes and status is ""): it becomes active with its report, and in the
 * same transaction the author's versions with a lower number that are
 * active or validating are retired, "replaced by version N" (one active
 * version per author, docs/server.md); their numbers go to retired[0 ..
 * *n_retired) (at most cap kept). When a version of the author with a
 * higher number is active already, this one is retired instead. status
 * receives what it became. */
int arena_serve_db_version_activate(arena_serve_db *db, int64_t id, const char *report,
                                    char status[16], int64_t *retired, uint32_t cap,
                                    uint32_t *n_retired);
/* Retires every version of the author that is validating, active or
 * suspended; *n how many. */
int arena_serve_db_retire(arena_serve_db *db, int64_t author, int64_t *n);

/* The author of the version (any status) whose file is `file`: *author.
 * JA_ENOTFOUND when none is. */
int arena_serve_db_file_owner(arena_serve_db *db, const char *file, int64_t *author);
/* Retires, as superseded by version keep, every other version of the
 * author whose file starts with prefix and that is validating, active or
 * suspended; *n how many. */
int arena_serve_db_supersede(arena_serve_db *db, int64_t author, int64_t keep,
                             const char *prefix, int64_t *n);

/* Every version of one author (author > 0) or of all (0), as a JSON array
 * of objects (id, author, version, kind ("plugin", or "external" with its
 * "key"), params, sha256, status, reason, report (parsed), faults,
 * created, updated). New reference, NULL on failure. */
json_t *arena_serve_db_versions_json(arena_serve_db *db, int64_t author);

/* ---- batches ----------------------------------------------------------------- */

/* A batch: one small tournament of the ladder database (docs/server.md,
 * "Scheduler"). Its state: planned (tournament not yet known), running,
 * done, or failed (with its reason). */
typedef struct arena_serve_batch {
    int64_t id;
    uint64_t seed;
    int64_t tournament;          /* 0 while planned */
    uint32_t n;                  /* versions, in slot order */
    int64_t version[16];
} arena_serve_batch;

/* A new planned batch of versions v[0..n-1]; its id into b->id and its
 * seed, arena_serve_seed(server seed, "SRVB", id) (one-way), into b->seed.
 * JA_ENOTFOUND (nothing added) when one of them is no longer active, or
 * two are of one author. */
int arena_serve_db_batch_add(arena_serve_db *db, uint64_t server_seed, arena_serve_batch *b);
int arena_serve_db_batch_set_tournament(arena_serve_db *db, int64_t batch, int64_t tournament);
/* The unfinished batch with the lowest id, or JA_ENOTFOUND. */
int arena_serve_db_batch_unfinished(arena_serve_db *db, arena_serve_batch *out);
/* Marks the batch done and adds faults[i] to version[i]'s fault count, in
 * one transaction; a batch already ended changes nothing. */
int arena_serve_db_batch_done(arena_serve_db *db, const arena_serve_batch *b,
                              const int64_t *faults);
/* The same for a batch that failed, with its reason (one line); faults
 * may be NULL (none counted). */
int arena_serve_db_batch_fail(arena_serve_db *db, const arena_serve_batch *b, const char *reason,
                              const int64_t *faults);
/* The author's last `limit` batches, newest first, as a JSON array of
 * {id, tournament, state, reason, created, ended, versions}. New reference,
 * NULL on failure. */
json_t *arena_serve_db_batches_json(arena_serve_db *db, int64_t author, uint32_t limit);
/* Whether tournament is one of the server's batches: JA_OK with *ended
 * (done or failed), JA_ENOTFOUND, JA_EDB. */
int arena_serve_db_batch_of(arena_serve_db *db, int64_t tournament, bool *ended);

#endif /* ARENA_SERVE_DB_H */
