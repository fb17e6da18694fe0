/* The ladder database: bots, tournaments and their plans, match results,
 * and live Elo ratings, in one SQLite file (docs/database.md).
 *
 * Guarantees:
 *  - No lost and no half-written result. Every write is one transaction
 *    (BEGIN IMMEDIATE ... COMMIT) in WAL mode with synchronous=FULL: a
 *    tournament and its whole plan are stored at once, before play, and a
 *    finished match's results, its fault counts, its live Elo updates and
 *    its "done" mark are stored at once. A crash between two calls loses
 *    nothing that a call reported as done; a failed call changes nothing.
 *  - Idempotence. Recording a match that is already done returns
 *    JA_ESTATE and changes nothing, so a resumed run can never count a
 *    match twice.
 *  - Clear failures. Another process holding the write lock past the busy
 *    timeout (LADDER_DB_BUSY_MS by default) gives JA_EBUSY; a read-only file
 *    or directory gives JA_EIO; a file written by a newer schema gives
 *    JA_EVERSION; a file that is not a Jack Arena database gives JA_EFORMAT.
 *    ladder_db_errmsg() then holds one line that names the file.
 *  - Schema versions. PRAGMA user_version holds the schema version;
 *    opening an older database applies the numbered migrations in order,
 *    one transaction each.
 *
 * Threading: a handle is used by one thread at a time; different handles
 * (in one or several processes) may use the same file at once. Never use a
 * handle in a child after fork(): open a new one there.
 *
 * Ownership: strings passed in are borrowed for the duration of the call.
 * Arrays returned through `**out` are single heap blocks of plain values
 * (structs, or the match numbers of ladder_db_pending), owned by the caller
 * and released with free(). A handle keeps the SQL statements it has
 * prepared, for reuse by later calls; close releases them. */
#ifndef JA_LADDER_DB_H
#define JA_LADDER_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "jackarena/ja_bot.h"
#include "jackarena/ja_common.h"
#include "jackarena/ja_rules.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The schema version this code writes (PRAGMA user_version). */
#define LADDER_DB_SCHEMA_VERSION 7

/* PRAGMA application_id of a Jack Arena database: "JARN". */
#define LADDER_DB_APPLICATION_ID 0x4A41524E

/* How long a write waits for another writer before JA_EBUSY. */
#define LADDER_DB_BUSY_MS 5000

/* Fixed text capacities, NUL included. Longer input is JA_EINVAL. */
#define LADDER_NAME_MAX 128     /* bot names, game names */
#define LADDER_VERSION_MAX 64   /* bot versions */
#define LADDER_OPTIONS_MAX 512  /* canonical options text */
#define LADDER_SHA256_HEX 65    /* 64 lowercase hex digits */
#define LADDER_SOURCE_MAX 64    /* an import's source tournament name */

typedef struct ladder_db ladder_db;

/* A bot's identity and how it was given. Identity is (name, version,
 * sha256): a changed plugin file is a new entry with its own rating. */
typedef struct ladder_bot {
    const char *name;    /* display name, unique within a tournament ("fast", "random#2") */
    const char *version; /* the bot's own version string; NULL means "" */
    const char *kind;    /* "builtin", "plugin", "hosted", "cmd" or "zmq" (free text, non-empty) */
    const char *spec;    /* the specifier as given on the command line; NULL means "" */
    const char *sha256;  /* 64 lowercase hex digits of the plugin file, or NULL */
} ladder_bot;

/* A ladder: the game, the seat count and the full canonical option set
 * ("k=v k=v" with defaults filled in, as ja_options_format writes it; ""
 * for a game without options). Strings borrowed. */
typedef struct ladder_key {
    const char *game;
    uint32_t n_seats;
    const char *options;
} ladder_key;

/* Everything that defines a tournament. Two runs with equal specs are the
 * same tournament (ladder_db_tournament_find). */
typedef struct ladder_tournament_spec {
    ladder_key ladder;       /* ladder.n_seats is the seats per match */
    uint64_t seed;           /* tournament seed */
    ladder_format format;
    uint32_t rounds;         /* >= 1 */
    bool duplicate;
    uint32_t n_bots;         /* participants */
    const ladder_bot *bots;  /* participants in slot order (the order given) */
    ladder_seating seating;  /* the plan's seat orders; zero: cyclic */
    /* The curated deal set (--deals; plan.h), kept by its hash
     * (deals.h): NULL for deals derived from the seed. Swiss and knockout
     * are always duplicate (pairing.h): their `duplicate` is stored 1. */
    const uint64_t *deals;
    uint32_t n_deals;
} ladder_tournament_spec;

/* A stored tournament's state. */
typedef struct ladder_tournament_info {
    int64_t id;
    int64_t ladder_id;
    uint64_t seed;
    ladder_format format;
    uint32_t rounds;
    bool duplicate;
    ladder_seating seating;  /* as stored ('cyclic' for every tournament of a
                                file older than schema version 6) */
    uint32_t n_seats;
    uint32_t n_participants;
    uint32_t n_matches;      /* planned in all (swiss, knockout: the whole
                                tournament's, stored one round at a time) */
    uint32_t n_stored;       /* matches stored so far (n_matches but for swiss
                                and knockout) */
    uint32_t n_done;         /* recorded so far */
    bool done;               /* n_done == n_matches */
    char deals[65];          /* the deal set's hash (deals.h); "" for none */
    bool imported;           /* results imported from a file (ladder_db_import):
                                seed 0, format meaningless, no plan to play */
} ladder_tournament_info;

/* One finished match, as the runner reports it. */
typedef struct ladder_match_result {
    ja_outcome outcome;  /* n_seats, score (units of 1/JA_SCORE_UNIT), place (1 = best) */
    /* Fault counts by seat and kind (ja_fault); the JA_FAULT_NONE column is ignored. */
    uint32_t faults[JA_MAX_SEATS][JA_FAULT_COUNT];
    uint32_t turns;          /* decisions played */
    const char *digest;      /* hex digest of the game content, or NULL */
    const char *replay_path; /* replay file written, or NULL */
} ladder_match_result;

/* One row of a ladder, best first. */
typedef struct ladder_rating {
    int64_t bot_id;
    char bot[LADDER_NAME_MAX];
    char version[LADDER_VERSION_MAX];
    int64_t games;               /* matches */
    double elo;                  /* live Elo */
    int64_t wins, draws, losses; /* pairwise results */
} ladder_rating;

/* A ladder, with its size. */
typedef struct ladder_summary {
    int64_t id;
    char game[LADDER_NAME_MAX];
    uint32_t n_seats;
    char options[LADDER_OPTIONS_MAX];
    int64_t bots;    /* rated bots */
    int64_t matches; /* finished matches in all tournaments of the ladder */
} ladder_summary;

/* One participant's standing in a tournament. */
typedef struct ladder_standing {
    uint32_t slot;
    int64_t bot_id;
    char bot[LADDER_NAME_MAX]; /* display name in the tournament (participants.name;
                                  for a played tournament also the stored name) */
    char version[LADDER_VERSION_MAX]; /* the bot's version */
    char sha256[LADDER_SHA256_HEX];   /* and plugin hash, "" when none */
    int64_t games;   /* finished matches of this tournament played */
    int64_t wins;    /* of those, finished in place 1 (a shared first place counts) */
    int64_t score;   /* sum of scores, units of 1/JA_SCORE_UNIT */
    int64_t faults;  /* sum of faults of every kind */
    double elo;      /* live Elo in the tournament's ladder now (all tournaments) */
    int64_t elo_games; /* matches behind that Elo */
} ladder_standing;

/* Bytes of a match digest in hex, with the NUL (REF_DIGEST_HEX). */
#define LADDER_DIGEST_HEX 65

/* One finished match of a ladder, for fits and exports. */
typedef struct ladder_match_row {
    int64_t match_id;
    int64_t tournament_id;
    uint32_t number;
    uint32_t n_seats;
    int64_t bot_id[JA_MAX_SEATS];
    int64_t score[JA_MAX_SEATS];
    uint8_t place[JA_MAX_SEATS];
    /* The deal: matches of a ladder with equal `deal` were dealt the same
     * cards (the same match seed, in any of the ladder's tournaments: a
     * duplicate set, or a deal replayed by a tournament with the same
     * seed); it is the id of the deal's first finished match, or match_id
     * for a match without a seed. deal_tournament is the first (lowest)
     * tournament that played it: tournament_id unless an earlier
     * tournament had played the deal already. */
    int64_t deal;
    int64_t deal_tournament;
    /* For a match of an imported tournament, the source tournament as its
     * file named it (tournaments.source): source_kind 'i' an integer
     * (source_int), 's' a string (source_text), 0 none (a played
     * tournament, or a file that named none). */
    char source_kind;
    int64_t source_int;
    char source_text[LADDER_SOURCE_MAX];
    bool has_seed;
    uint64_t seed;                 /* the match seed when has_seed */
    int64_t turns;                 /* decisions played; -1 when unknown */
    char digest[LADDER_DIGEST_HEX]; /* "" when unknown */
    char finished[24];             /* ISO 8601 UTC time recorded; "" if unknown */
    /* Each seat's live Elo update (results.elo_before, elo_delta,
     * games_before): its bot's live Elo before the match, the change the
     * seat brought, and the bot's finished matches in the ladder before this
     * one (its place in the bot's rating sequence; -1 when unknown).
     * ladder_match_elo_after gives the bot's Elo after the match. */
    double elo_before[JA_MAX_SEATS];
    double elo_delta[JA_MAX_SEATS];
    int64_t games_before[JA_MAX_SEATS];
} ladder_match_row;

/* The live Elo after match m of the bot in seat `seat`: its Elo before
 * plus the change of each of its seats (a bot may hold several), summed
 * as the store sums them, so that the value is exactly the one stored for
 * the bot (and the elo_before of its next match). */
double ladder_match_elo_after(const ladder_match_row *m, uint32_t seat);

/* Called once per match by ladder_db_foreach_match; a non-zero return stops
 * the walk and is returned by it. m is borrowed for the call. */
typedef int (*ladder_match_fn)(void *ctx, const ladder_match_row *m);

/* ---- The handle ---------------------------------------------------------- */

/* Opens (creating if missing) the database at path for reading and writing,
 * in WAL mode with foreign keys on and a LADDER_DB_BUSY_MS busy timeout, and
 * brings its schema to LADDER_DB_SCHEMA_VERSION.
 * Returns JA_OK; JA_EINVAL (path or out NULL, nothing allocated); JA_EIO for
 * a file or directory that cannot be opened or written (read-only, missing
 * directory); JA_EBUSY when another process holds the write lock during a
 * migration; JA_EVERSION for a schema newer than this code; JA_EFORMAT for
 * a file that is not a Jack Arena database; JA_EDB otherwise (SQLite's
 * own allocation failures among them).
 * As with sqlite3_open, *out is set even on failure (except JA_EINVAL,
 * where it is NULL): the handle then serves only
 * ladder_db_errmsg() and ladder_db_close(), and every other call returns
 * JA_ESTATE. Always close it. */
int ladder_db_open(const char *path, ladder_db **out);

/* Finalizes the handle's kept statements, closes the handle and sets *p to
 * NULL. Accepts NULL and a pointer to NULL. Never fails: an open transaction
 * (there is none between calls) would be rolled back by SQLite. */
void ladder_db_close(ladder_db **p);

/* One line describing the last failure of a call on db, naming the file;
 * "" after a call that succeeded, and after a failure whose code says all
 * there is: JA_EINVAL for a NULL argument or a negative busy timeout, a
 * callback's own non-zero return. (The store allocates through
 * ja_xalloc.h: out of memory ends the process with one line.)
 * Borrowed until the next call on db. */
const char *ladder_db_errmsg(const ladder_db *db);

/* The path given to ladder_db_open. Borrowed until close. */
const char *ladder_db_path(const ladder_db *db);

/* Sets how long writes wait for another writer before JA_EBUSY (ms >= 0;
 * 0 fails at once). JA_OK or JA_EINVAL. */
int ladder_db_set_busy_timeout(ladder_db *db, int ms);

/* The schema version of the open file (PRAGMA user_version) into *out. */
int ladder_db_schema_version(ladder_db *db, int *out);

/* ---- Bots ---------------------------------------------------------------- */

/* The id of the bot with bot's identity, adding it if it is new (kind and
 * spec are stored with a new entry and kept as they were otherwise).
 * JA_OK; JA_EINVAL for a missing or too long name, a too long version, an
 * empty kind, or a sha256 that is not 64 lowercase hex digits; the write
 * errors of the file comment. */
int ladder_db_bot_get_or_add(ladder_db *db, const ladder_bot *bot, int64_t *out_id);

/* The id of the bot with bot's identity (kind and spec ignored), without
 * adding it. JA_OK, JA_ENOTFOUND, JA_EINVAL. */
int ladder_db_bot_find(ladder_db *db, const ladder_bot *bot, int64_t *out_id);

/* ---- Tournaments --------------------------------------------------------- */

/* Stores a new tournament in one transaction: its ladder (created if new),
 * its bots (ladder_db_bot_get_or_add), its participants in slot order, and
 * its whole plan (plan.h; every match "planned"), before any is played;
 * swiss and knockout: their first round only (pairing.h; the others by
 * ladder_db_plan_round as the results come), with n_matches the whole
 * tournament's.
 * Validates everything before writing: JA_EINVAL or JA_ERANGE (with the
 * plan's message, e.g. "the plan has 3921225 matches, more than the limit
 * of 1000000") for a spec that makes no plan, duplicate participant names,
 * or bad text; then the write errors of the file comment. *out_id gets the
 * new tournament's id. */
int ladder_db_tournament_create(ladder_db *db, const ladder_tournament_spec *spec,
                                int64_t *out_id);

/* Flags for ladder_db_tournament_find. */
#define LADDER_FIND_ANY_SEED 1u   /* ignore spec->seed (resume without --seed) */
#define LADDER_FIND_UNFINISHED 2u /* only tournaments with matches still planned */
#define LADDER_FIND_ANY_SEATING 4u /* ignore spec->seating (a run that did not choose one
                                      resumes a tournament of either) */

/* Finds the newest stored tournament with spec's ladder, seed, format,
 * rounds, duplicate flag, seating and participants (the same bot identities and
 * display names in the same slots), for --resume. JA_OK with *out_id;
 * JA_ENOTFOUND (errmsg says so) when none; JA_EINVAL. */
int ladder_db_tournament_find(ladder_db *db, const ladder_tournament_spec *spec,
                              unsigned flags, int64_t *out_id);

/* Stores the next round of a swiss or knockout tournament (pairing.h):
 * its n matches, numbered from the count stored before, in one
 * transaction. JA_OK; JA_ESTATE (nothing written) when a match of that
 * number is stored already (another run planned the round first) or the
 * tournament would exceed its n_matches; the write errors. */
int ladder_db_plan_round(ladder_db *db, int64_t tournament_id, const ladder_plan_match *plan,
                         uint32_t n);

/* Every stored match of a tournament in number order, with the results
 * of those done (pairing.h's history), into a new array *out of *out_n
 * (free()). JA_OK, JA_ENOTFOUND, the read errors. */
struct ladder_played;
int ladder_db_played(ladder_db *db, int64_t tournament_id, struct ladder_played **out,
                     uint32_t *out_n);

/* The state of tournament id into *out. JA_OK, JA_ENOTFOUND; JA_EFORMAT
 * for a stored seed or format that does not parse. */
int ladder_db_tournament_get(ladder_db *db, int64_t id, ladder_tournament_info *out);

/* Planned match `number` of a tournament (seats, seed, round, rotation) as
 * stored, into *out. JA_OK, JA_ENOTFOUND; JA_EFORMAT for a malformed stored
 * match (a bad seed, seats out of order). */
int ladder_db_match_get(ladder_db *db, int64_t tournament_id, uint32_t number,
                        ladder_plan_match *out);

/* ladder_db_match_get of n matches, numbers[i] into out[i], in one read
 * transaction: one lock taken and released for all of them instead of one
 * for each. Stops at the first failure and returns it (with *got, when not
 * NULL, the matches read before it); JA_OK when all n were read. */
int ladder_db_match_get_many(ladder_db *db, int64_t tournament_id, const uint32_t *numbers,
                             uint32_t n, ladder_plan_match *out, uint32_t *got);

/* The numbers of the matches of a tournament not yet recorded, ascending.
 * On JA_OK, *out (NULL when *out_n is 0) is owned by the caller: free().
 * JA_ENOTFOUND for an unknown tournament. */
int ladder_db_pending(ladder_db *db, int64_t tournament_id, uint32_t **out, uint32_t *out_n);

/* Records one finished match in one transaction: its per-seat results and
 * fault counts, its "done" mark with turns, digest and replay path, and the
 * live Elo updates (elo.h) of its bots in the tournament's ladder; when it
 * is the last planned match, the tournament is marked done too.
 * Returns JA_OK; JA_ESTATE if the match is already recorded (nothing
 * changes: recording is idempotent); JA_ENOTFOUND for an unknown tournament
 * or match number; JA_EINVAL for a result whose seat count differs from
 * the ladder's or whose places are not in 1..n_seats; the write errors of
 * the file comment, with nothing written. */
int ladder_db_record_match(ladder_db *db, int64_t tournament_id, uint32_t number,
                           const ladder_match_result *r);

/* Several finished matches in one transaction, each recorded exactly as
 * ladder_db_record_match would record it, with its own code in rcs[i]
 * (JA_ESTATE, JA_ENOTFOUND and JA_EINVAL refuse that match alone: they
 * are found before it writes anything); one commit for them all, which is
 * what makes it cheaper (a tournament records together the results that
 * arrived together). When a write fails, nothing of the batch is kept from
 * it and each match is then recorded on its own, rcs[i] saying how that
 * went; the return value is then the failure. JA_OK otherwise; the
 * message (ladder_db_errmsg) is that of the first refused match. */
int ladder_db_record_matches(ladder_db *db, int64_t tournament_id, uint32_t n,
                             const uint32_t *numbers, const ladder_match_result *const *results,
                             int *rcs);

/* The standings of a tournament, one row per participant, best first: by
 * mean score per finished match (participants without one last), then
 * wins, then live Elo, then slot. On JA_OK *out (n_participants rows) is
 * owned by the caller: free(). JA_ENOTFOUND for an unknown tournament. */
int ladder_db_standings(ladder_db *db, int64_t tournament_id, ladder_standing **out,
                        uint32_t *out_n);

/* Fault totals of a tournament by kind (indexed by ja_fault) into out. */
int ladder_db_tournament_faults(ladder_db *db, int64_t tournament_id,
                                uint64_t out[JA_FAULT_COUNT]);

/* Fault counts by kind (indexed by ja_fault) of participant `slot` of a
 * tournament into out; out[JA_FAULT_FORFEIT] counts its forfeited matches. */
int ladder_db_slot_faults(ladder_db *db, int64_t tournament_id, uint32_t slot,
                          uint64_t out[JA_FAULT_COUNT]);

/* The same for bot bot_id (bots.id) over every match of the ladder key. */
int ladder_db_bot_faults(ladder_db *db, const ladder_key *key, int64_t bot_id,
                         uint64_t out[JA_FAULT_COUNT]);

/* ---- Ladders ------------------------------------------------------------- */

/* The live ratings of a ladder, best first (Elo descending, then games
 * descending, then name). An unknown ladder gives JA_OK with no rows.
 * On JA_OK *out (NULL when *out_n is 0) is owned by the caller: free(). */
int ladder_db_ratings(ladder_db *db, const ladder_key *key, ladder_rating **out,
                      uint32_t *out_n);

/* The ladders that exist, for one game (or all when game is NULL), ordered
 * by game, seat count and options. *out as for ladder_db_ratings. */
int ladder_db_ladders(ladder_db *db, const char *game, ladder_summary **out, uint32_t *out_n);

/* Calls fn for every finished match of a ladder, ordered by tournament id
 * then match number (deterministic; not the order of recording), inside one
 * read transaction (a consistent snapshot). fn must not use db. Returns
 * JA_OK, fn's first non-zero return, JA_EINVAL, or a database error. */
int ladder_db_foreach_match(ladder_db *db, const ladder_key *key, ladder_match_fn fn,
                            void *ctx);

/* The most rows ladder_db_match_page returns at once. */
#define LADDER_PAGE_MAX 1000

/* A page of a ladder's finished matches, newest first (match id descending):
 * those in which a bot named `name` (any version) sat, or every match of
 * the ladder when name is NULL; only matches with id < before (before <= 0:
 * from the newest); at most limit rows (1 to LADDER_PAGE_MAX).
 * Found through indexes (results_bot for a name), never a scan of the
 * ladder's matches: the cost grows with limit and the name's bot versions,
 * not with the ladder (and with matches of other ladders newer than the
 * page, which the walk steps over). Rows as ladder_db_foreach_match fills
 * them, except deal and deal_tournament, which are the match's own id and
 * tournament. *more is true when older matches of the same selection exist.
 * An unknown ladder or name gives JA_OK with no rows. On JA_OK *out (NULL
 * when *out_n is 0) is owned by the caller: free(). JA_EINVAL for a bad
 * argument (a NULL out, out_n or more, a bad key, a limit outside 1 to
 * LADDER_PAGE_MAX, an empty or too long name). One read transaction. */
int ladder_db_match_page(ladder_db *db, const ladder_key *key, const char *name, int64_t before,
                         uint32_t limit, ladder_match_row **out, uint32_t *out_n, bool *more);

/* One finished match of a ladder by (tournament, number), as a row of
 * ladder_db_match_page. JA_ENOTFOUND when there is no such finished match
 * in that ladder (a planned one, a missing one, one of another ladder);
 * JA_EINVAL for a bad key or a NULL out. One read transaction. */
int ladder_db_match_row(ladder_db *db, const ladder_key *key, int64_t tournament_id,
                        uint32_t number, ladder_match_row *out);

/* One step of a bot's live Elo: one finished match of it (a bot holding
 * several seats of a match has one step for them). Plain value. */
typedef struct ladder_elo_step {
    int64_t bot_id;
    int64_t match_id;
    int64_t tournament_id;
    uint32_t number;
    int64_t games_before; /* the bot's finished matches in the ladder before this one */
    double elo_before;    /* its live Elo before the match */
    double elo_after;     /* after it, as ladder_match_elo_after gives it */
} ladder_elo_step;

/* The live Elo history of every bot named `name` (each version) in a
 * ladder: one step per finished match of each bot, each bot's steps in the
 * order its rating took them (games_before ascending: matches played at
 * once are rated in the order they ended, not by id), the bots' steps
 * together ordered by tournament, then games_before, then match id. Found
 * through indexes (bots_identity, results_bot, primary keys): the cost
 * grows with the name's results, not with the ladder. An unknown ladder
 * or name gives JA_OK with no steps. On JA_OK *out (NULL when *out_n is 0)
 * is owned by the caller: free(). JA_EINVAL for a NULL out or out_n, a bad
 * key, an empty or too long name. One read transaction. */
int ladder_db_elo_history(ladder_db *db, const ladder_key *key, const char *name,
                          ladder_elo_step **out, uint32_t *out_n);

/* A bot's identity as stored. */
typedef struct ladder_bot_row {
    int64_t id;
    char name[LADDER_NAME_MAX];
    char version[LADDER_VERSION_MAX];
    char kind[32];
    char sha256[LADDER_SHA256_HEX]; /* "" when none */
} ladder_bot_row;

/* The stored identity of bot id (the primary key: constant time). JA_OK,
 * JA_ENOTFOUND, JA_EINVAL. */
int ladder_db_bot_row(ladder_db *db, int64_t id, ladder_bot_row *out);

/* The bots with at least one finished match in a ladder, by id. An unknown
 * ladder gives JA_OK with no rows. On JA_OK *out (NULL when *out_n is 0) is
 * owned by the caller: free(). */
int ladder_db_ladder_bots(ladder_db *db, const ladder_key *key, ladder_bot_row **out,
                          uint32_t *out_n);

/* Room for a stored replay path, NUL included (longer paths are cut). */
#define LADDER_PATH_MAX 4096

/* One seat of a finished match, with what a report shows beyond
 * ladder_match_row: the live Elo before the match and the change the seat
 * brought (results.elo_before, elo_delta), its faults by kind and the
 * match's replay file. Plain value, borrowed by the callback. */
typedef struct ladder_seat_detail {
    int64_t match_id;
    int64_t tournament_id;
    uint32_t number;
    uint32_t seat;
    int64_t bot_id;
    double elo_before, elo_delta;
    uint32_t faults[JA_FAULT_COUNT]; /* by ja_fault; kinds this build lacks skipped */
    char replay[LADDER_PATH_MAX];    /* as stored; "" when none */
} ladder_seat_detail;

typedef int (*ladder_seat_fn)(void *ctx, const ladder_seat_detail *s);

/* Calls fn for every seat of every finished match of a ladder (of one of
 * its tournaments when tournament_id > 0), in the order of
 * ladder_db_foreach_match (tournament id, match number, then seat), in one
 * read transaction. Read-only. fn must not use db. Returns JA_OK, fn's
 * first non-zero return, JA_EINVAL, or a database error. */
int ladder_db_foreach_seat(ladder_db *db, const ladder_key *key, int64_t tournament_id,
                           ladder_seat_fn fn, void *ctx);

/* ---- Imports (schema version 2) ------------------------------------------- */

/* One seat of an imported match. */
typedef struct ladder_import_seat {
    uint32_t bot;   /* index into ladder_import.bots */
    int64_t score;  /* units of 1/JA_SCORE_UNIT */
    uint8_t place;  /* 1 = best, competition ranking */
} ladder_import_seat;

/* A source tournament as a file names it (JSON Lines "tournament").
 * Plain value. */
typedef struct ladder_import_source {
    const char *label; /* 1 .. LADDER_SOURCE_MAX - 1 bytes: a JSON string, or
                          the decimal text of a JSON integer */
    bool integer;      /* it was an integer (then stored as one) */
} ladder_import_source;

/* One imported match. Plain value. */
typedef struct ladder_import_match {
    uint32_t line;       /* where it starts in the file, for messages */
    uint32_t ladder;     /* index into ladder_import.ladders */
    uint32_t source;     /* the tournament of the file it came from:
                            ladder_import.sources[source - 1], 0 when none
                            is named; the matches of one ladder and one
                            source become one imported tournament, which
                            keeps the source's name (tournaments.source) */
    int64_t number;      /* its number in the source (JSON Lines "match"),
                            -1 when none: kept as the match number when every
                            match of its imported tournament has a distinct
                            one in 0 .. INT32_MAX, else the matches are
                            numbered in file order */
    uint32_t n_seats;    /* must equal its ladder's n_seats */
    uint32_t first_seat; /* its seats: seats[first_seat .. first_seat + n_seats - 1] */
    bool has_seed;
    uint64_t seed;       /* the match seed: matches of a ladder with the
                            same seed are one deal (docs/ratings.md) */
    int64_t turns;       /* -1 when unknown */
    char digest[LADDER_DIGEST_HEX]; /* "" when unknown */
} ladder_import_match;

/* A whole file's results, as a reader (interop.h) builds them. Everything
 * is borrowed for the call. */
typedef struct ladder_import {
    const char *file;      /* the path as given, stored for provenance */
    const char *format;    /* "pgn" or "jsonl" */
    const char *sha256;    /* of the file's bytes: one file is imported once */
    uint32_t skipped;      /* results the reader left out (PGN "*"), stored */
    uint32_t n_ladders;
    const ladder_key *ladders;
    uint32_t n_bots;
    const ladder_bot *bots; /* identities; kind non-empty */
    uint32_t n_sources;
    const ladder_import_source *sources; /* named source tournaments */
    uint32_t n_matches;
    const ladder_import_match *matches; /* in file order */
    uint32_t n_seats;      /* rows in seats */
    const ladder_import_seat *seats;
} ladder_import;

/* What an import stored. */
typedef struct ladder_import_result {
    int64_t import_id;
    uint32_t tournaments;  /* imported tournaments created */
    uint32_t matches;
} ladder_import_result;

/* Stores a file's results in one transaction: an `imports` row, then per
 * (ladder, source) in order of first appearance one tournament of format
 * 'import' (no seed; participants in order of first appearance, a repeated
 * display name getting "#2", "#3"), its matches in file order, each
 * recorded as a played match is (results, live Elo in file order, "done").
 * Validates everything first: JA_EINVAL for a match with a bad ladder
 * index, seat count, bot index or place, or fewer than two different bots
 * (errmsg "FILE:LINE: reason"), and for a bad ladder or bot identity;
 * JA_ESTATE when a file with the same sha256 was imported before (nothing
 * is written); then the write errors of the file comment, with nothing
 * written. out may be NULL. */
int ladder_db_import(ladder_db *db, const ladder_import *imp, ladder_import_result *out);

/* ---- Helpers ------------------------------------------------------------- */

/* Seeds are stored as decimal text (they exceed SQLite's signed 64-bit
 * integers). Writes the decimal form of seed (at most 20 digits and a NUL)
 * to buf; returns buf. */
char *ladder_seed_format(uint64_t seed, char buf[21]);

/* Parses a canonical decimal seed (1..20 digits, no sign, no leading zero
 * unless "0", at most 2^64-1). JA_OK or JA_EINVAL. */
int ladder_seed_parse(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_DB_H */
