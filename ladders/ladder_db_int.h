/* Internals of the ladder store, shared by its files; not part of the API
 * (ladder_db.h). The store keeps, by file:
 *   ladder_db.c         the handle: open and close, messages, the statement
 *                       cache, transactions, the migrations driver, seeds
 *   ladder_db_plan.c    bots, ladders, tournaments and their plans
 *   ladder_db_record.c  results coming in: a played match (results, faults,
 *                       live Elo, "done"), and a file's results (imports)
 *   ladder_db_list.c    what is read out: standings, fault counts, ratings,
 *                       ladders, the walks and pages of matches, bots
 *   schema.c            the numbered migrations
 *
 * Invariants, in every file:
 *  - Every write runs between BEGIN IMMEDIATE and COMMIT, and every failure
 *    inside one rolls it back before returning, so a call either happens
 *    whole or not at all. BEGIN IMMEDIATE takes the write lock first, so two
 *    writers never both read a state and then race to change it (which is
 *    what makes record_match's "already done" check sound), and a lock held
 *    by another process surfaces at BEGIN, as JA_EBUSY, before any work.
 *  - The error message is composed before any rollback, since the rollback
 *    would replace SQLite's own message.
 *  - No statement stays in use past the call that took it: every
 *    ldb_prepare() is matched by an ldb_finish() before the call returns,
 *    which resets the statement, so no call leaves a read open. The prepared
 *    statements themselves are kept: a handle caches up to LDB_STMT_CACHE of
 *    them for later calls and finalizes them at close. Beyond that cache a
 *    handle holds only the connection, its path, the busy timeout and the
 *    last message. */
#ifndef JA_LADDER_DB_INT_H
#define JA_LADDER_DB_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "ladder_db.h"

/* ---- Migrations (schema.c) ------------------------------------------------- */

/* Migration i (0-based) takes a database from schema version i to i + 1.
 * Each is a script of SQL statements run by sqlite3_exec inside one
 * transaction, followed by PRAGMA user_version = i + 1 in the same
 * transaction. The table only grows: a released migration is never edited,
 * since databases in the field have already run it. */
typedef struct ladder__migration {
    int version;      /* the version it produces: its index + 1 */
    const char *what; /* one line, for error messages */
    const char *sql;
} ladder__migration;

extern const ladder__migration ladder__migrations[];
extern const int ladder__n_migrations; /* == LADDER_DB_SCHEMA_VERSION */

/* ---- The handle (ladder_db.c) ---------------------------------------------- */

#define LDB_ERRMSG_MAX 512

/* ISO 8601 UTC, second resolution, as SQL text to splice into a statement. */
#define LDB_SQL_NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

/* Prepared statements kept for reuse, keyed by the address of their SQL
 * text: every statement the store prepares is a string literal (or, for one
 * shared by two files, one array: ldb_ladder_lookup_sql), so the address
 * names the statement. Parsing the same dozen statements again for every
 * recorded match was most of the arena's CPU time per match. */
#define LDB_STMT_CACHE 64

struct ladder_db {
    sqlite3 *sql;  /* NULL once an open has failed */
    char *path;    /* as given */
    int busy_ms;
    char errmsg[LDB_ERRMSG_MAX];
    struct {
        const char *sql;
        sqlite3_stmt *st;
        bool busy;     /* handed out by ldb_prepare, not yet given back by ldb_finish */
    } cache[LDB_STMT_CACHE];
};

/* Sets the handle's message (printf-style), made one line. */
__attribute__((format(printf, 2, 3))) void ldb_set_msg(ladder_db *db, const char *fmt, ...);

/* Records the failure src of a SQLite call made while doing `what` (a
 * phrase: "recording match 3 of tournament 1") and returns the JA_E* code.
 * Each class of failure gets a message a user can act on. */
int ldb_sql_fail(ladder_db *db, int src, const char *what);

/* Every call but open and close starts here: checks the handle and clears
 * the last message. A failed open keeps its message for errmsg(). */
int ldb_enter(ladder_db *db);

/* A statement for sql (a string literal), from the cache when it holds one
 * not in use; give it back with ldb_finish(). */
int ldb_prepare(ladder_db *db, const char *sql, sqlite3_stmt **st, const char *what);

/* Gives a statement of ldb_prepare() back: reset for reuse when cached
 * (which also ends its read of the database), finalized otherwise. */
void ldb_finish(ladder_db *db, sqlite3_stmt *st);

/* Runs a statement that returns no row; resets it for reuse. */
int ldb_step_done(ladder_db *db, sqlite3_stmt *st, const char *what);

/* Runs an INSERT (from ldb_prepare()) and gives it back (ldb_finish); on
 * JA_OK the new row's id goes to *out_id. */
int ldb_insert_row(ladder_db *db, sqlite3_stmt *st, int64_t *out_id, const char *what);

/* Runs SQL text that returns no row (sqlite3_exec). */
int ldb_exec(ladder_db *db, const char *sql, const char *what);

/* Opens a write transaction (BEGIN IMMEDIATE). */
int ldb_begin_write(ladder_db *db, const char *what);

/* Rolls back the open transaction, if any, keeping the current message. */
void ldb_rollback(ladder_db *db);

/* Commits the open transaction; rolls it back when the commit fails. */
int ldb_commit(ladder_db *db, const char *what);

/* Binds s (borrowed for the statement's use), or NULL when s is NULL. */
int ldb_bind_text(sqlite3_stmt *st, int i, const char *s);

/* Binds a ladder key's game, seat count and options to parameters i,
 * i + 1 and i + 2 (borrowed: the key must outlive the statement's use). */
void ldb_bind_key(sqlite3_stmt *st, int i, const ladder_key *k);

/* Steps st (bound, from ldb_prepare()) once and gives it back (ldb_finish):
 * JA_OK with the first column of its first row in *out; JA_ENOTFOUND,
 * without a message, when it has no row; the step's error otherwise. */
int ldb_step_int(ladder_db *db, sqlite3_stmt *st, int64_t *out, const char *what);

/* Copies column i as text into a fixed buffer (truncating, NUL-terminated). */
void ldb_column_copy(sqlite3_stmt *st, int i, char *buf, size_t cap);

/* qsort's comparison of int64_t, ascending. */
int ldb_cmp_i64(const void *a, const void *b);

/* Fills *row, zeroed by ldb_collect_rows, from the current row of st. */
typedef void (*ldb_read_row_fn)(sqlite3_stmt *st, void *row);

/* Steps st to its end and collects its result rows into one heap array of
 * row_size-byte elements, each zeroed and then filled by read_row; the
 * array starts at 16 elements and doubles as needed. Gives st back
 * (ldb_finish) in every case. On JA_OK, *out is the array (NULL when there
 * is no row), owned by the caller (free()), and *out_n its length. On
 * failure (a step's error, whose message names `what`)
 * nothing stays allocated and *out and *out_n are not touched. */
int ldb_collect_rows(ladder_db *db, sqlite3_stmt *st, const char *what, size_t row_size,
                     ldb_read_row_fn read_row, void **out, uint32_t *out_n);

/* ---- Bots, ladders and tournaments (ladder_db_plan.c) ---------------------- */

/* True when s is 64 lowercase hex digits. */
bool ldb_is_sha256_hex(const char *s);

/* Checks a bot's identity (and kind when need_kind); sets the message. */
int ldb_check_bot(ladder_db *db, const ladder_bot *b, bool need_kind);

/* The id of the bot with b's identity, adding it if it is new. Inside a
 * write transaction. */
int ldb_bot_get_or_add(ladder_db *db, const ladder_bot *b, int64_t *out_id);

/* Checks a ladder key; sets the message. */
int ldb_check_key(ladder_db *db, const ladder_key *k);

/* A ladder's id from its key bound to ?1, ?2, ?3 (one statement for the
 * plan's lookups and the list's ladder reads: the cache keys on the
 * address). */
extern const char ldb_ladder_lookup_sql[];

/* The id of the ladder with key k, adding it if it is new. Inside a write
 * transaction. */
int ldb_ladder_get_or_add(ladder_db *db, const ladder_key *k, int64_t *out_id);

/* JA_OK when tournament tid exists; JA_ENOTFOUND, with a message naming
 * it, when not. */
int ldb_tournament_exists(ladder_db *db, int64_t tid);

/* The prologue of the functions that read rows into a new array (*out,
 * *out_n): ldb_enter; JA_EINVAL when an output is missing (out_ok false,
 * or out_n NULL); *out_n = 0; then the scope the rows belong to, when one
 * is given: tournament *tid (ldb_tournament_exists), or the ladder of key
 * (ldb_check_key). The caller clears *out (whose type is its own) before. */
int ldb_enter_rows(ladder_db *db, bool out_ok, uint32_t *out_n, const int64_t *tid,
                   const ladder_key *key);

#endif /* JA_LADDER_DB_INT_H */
