/* The ladder database on SQLite (see ladder_db.h and docs/database.md).
 *
 * Invariants:
 *  - Every write runs between BEGIN IMMEDIATE and COMMIT, and every failure
 *    inside one rolls it back before returning, so a call either happens
 *    whole or not at all. BEGIN IMMEDIATE takes the write lock first, so two
 *    writers never both read a state and then race to change it (which is
 *    what makes record_match's "already done" check sound), and a lock held
 *    by another process surfaces at BEGIN, as JA_EBUSY, before any work.
 *  - The error message is composed before any rollback, since the rollback
 *    would replace SQLite's own message.
 *  - No statement stays in use past the call that took it: every ldb_prepare()
 *    is matched by a ldb_finish() before the call returns, which resets the
 *    statement, so no call leaves a read open. The prepared statements
 *    themselves are kept: a handle caches up to LDB_STMT_CACHE of them for later
 *    calls (ldb_prepare() below) and finalizes them at close. Beyond that cache
 *    a handle holds only the connection, its path, the busy timeout and the
 *    last message. */
#include "ladder_db.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "elo.h"
#include "jackarena/ja_error.h"
#include "ladder_db_int.h"

#define LDB_ERRMSG_MAX 512

/* ISO 8601 UTC, second resolution. */
#define LDB_SQL_NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

/* Prepared statements kept for reuse, keyed by the address of their SQL
 * text: every statement this file prepares is a string literal, so the
 * address names the statement. Parsing the same dozen statements again for
 * every recorded match was most of the arena's CPU time per match. */
#define LDB_STMT_CACHE 64

struct ladder_db {
    sqlite3 *sql;  /* NULL once an open has failed */
    char *path;    /* as given */
    int busy_ms;
    char errmsg[LDB_ERRMSG_MAX];
    struct {
        const char *sql;
        sqlite3_stmt *st;
        bool busy;     /* handed out by prepare, not yet given back by finish */
    } cache[LDB_STMT_CACHE];
};

/* ---- Messages and error mapping -------------------------------------------- */

__attribute__((format(printf, 2, 3))) static void ldb_set_msg(ladder_db *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(db->errmsg, sizeof db->errmsg, fmt, ap);
    va_end(ap);
    /* One line: SQLite messages have no newlines, but paths might. */
    for (char *c = db->errmsg; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

static int map_sqlite(int src)
{
    switch (src & 0xff) {
    case SQLITE_OK:
    case SQLITE_DONE:
    case SQLITE_ROW:
        return JA_OK;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return JA_EBUSY;
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_PERM:
        return JA_EIO;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return JA_EFORMAT;
    case SQLITE_NOMEM:
        return JA_ENOMEM;
    default:
        return JA_EDB;
    }
}

/* Records the failure src of a SQLite call made while doing `what` (a
 * phrase: "recording match 3 of tournament 1") and returns the JA_E* code.
 * Each class of failure gets a message a user can act on. */
static int ldb_sql_fail(ladder_db *db, int src, const char *what)
{
    int rc = map_sqlite(src);
    if (rc == JA_OK)
        rc = JA_EDB; /* a step that returned ROW/DONE where it should not */
    const char *m = db->sql != NULL ? sqlite3_errmsg(db->sql) : sqlite3_errstr(src);
    int sys = db->sql != NULL ? sqlite3_system_errno(db->sql) : 0;
    switch (rc) {
    case JA_EBUSY:
        ldb_set_msg(db,
                    "database '%s' is locked by another process: gave up after %d ms "
                    "(%s)",
                    db->path, db->busy_ms, what);
        break;
    case JA_EIO:
        if ((src & 0xff) == SQLITE_READONLY)
            ldb_set_msg(db, "database '%s' is read-only (%s%s%s): cannot write while %s", db->path,
                        m, sys ? ": " : "", sys ? strerror(sys) : "", what);
        else
            ldb_set_msg(db, "database '%s': %s%s%s (%s)", db->path, m, sys ? ": " : "",
                        sys ? strerror(sys) : "", what);
        break;
    case JA_EFORMAT:
        ldb_set_msg(db, "'%s' is not a usable database: %s (%s)", db->path, m, what);
        break;
    case JA_ENOMEM:
        ldb_set_msg(db, "out of memory (%s)", what);
        break;
    default:
        ldb_set_msg(db, "database '%s': %s (%s)", db->path, m, what);
        break;
    }
    return rc;
}

/* Every call but open and close starts here: checks the handle and clears
 * the last message. A failed open keeps its message for errmsg(). */
static int ldb_enter(ladder_db *db)
{
    if (db == NULL)
        return JA_EINVAL;
    if (db->sql == NULL)
        return JA_ESTATE;
    db->errmsg[0] = '\0';
    return JA_OK;
}

/* ---- Small SQL helpers ----------------------------------------------------- */

/* A statement for sql (a string literal), from the cache when it holds one
 * not in use; give it back with ldb_finish(). */
static int ldb_prepare(ladder_db *db, const char *sql, sqlite3_stmt **st, const char *what)
{
    int free_slot = -1;
    for (int i = 0; i < LDB_STMT_CACHE; i++) {
        if (db->cache[i].sql == sql && !db->cache[i].busy) {
            db->cache[i].busy = true;
            *st = db->cache[i].st;
            return JA_OK;
        }
        if (!db->cache[i].sql && free_slot < 0)
            free_slot = i;
    }
    int src = sqlite3_prepare_v3(db->sql, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
    if (src != SQLITE_OK) {
        *st = NULL;
        return ldb_sql_fail(db, src, what);
    }
    if (free_slot >= 0) {
        db->cache[free_slot].sql = sql;
        db->cache[free_slot].st = *st;
        db->cache[free_slot].busy = true;
    }
    return JA_OK;
}

/* Gives a statement of ldb_prepare() back: reset for reuse when cached (which
 * also ends its read of the database), finalized otherwise. */
static void ldb_finish(ladder_db *db, sqlite3_stmt *st)
{
    if (st == NULL)
        return;
    for (int i = 0; i < LDB_STMT_CACHE; i++)
        if (db->cache[i].st == st && db->cache[i].busy) {
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
            db->cache[i].busy = false;
            return;
        }
    sqlite3_finalize(st);
}

/* Runs a statement that returns no row; resets it for reuse. */
static int ldb_step_done(ladder_db *db, sqlite3_stmt *st, const char *what)
{
    int src = sqlite3_step(st);
    int rc = src == SQLITE_DONE ? JA_OK : ldb_sql_fail(db, src, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

/* Runs an INSERT (from ldb_prepare()) and gives it back (ldb_finish); on JA_OK the
 * new row's id goes to *out_id. */
static int ldb_insert_row(ladder_db *db, sqlite3_stmt *st, int64_t *out_id, const char *what)
{
    int rc = ldb_step_done(db, st, what);
    ldb_finish(db, st);
    if (rc == JA_OK)
        *out_id = sqlite3_last_insert_rowid(db->sql);
    return rc;
}

static int ldb_exec(ladder_db *db, const char *sql, const char *what)
{
    int src = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);
    return src == SQLITE_OK ? JA_OK : ldb_sql_fail(db, src, what);
}

static int ldb_begin_write(ladder_db *db, const char *what)
{
    return ldb_exec(db, "BEGIN IMMEDIATE", what);
}

/* Rolls back the open transaction, if any, keeping the current message. */
static void ldb_rollback(ladder_db *db)
{
    if (!sqlite3_get_autocommit(db->sql))
        sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

static int ldb_commit(ladder_db *db, const char *what)
{
    int rc = ldb_exec(db, "COMMIT", what);
    if (rc != JA_OK)
        ldb_rollback(db);
    return rc;
}

static int ldb_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s == NULL ? sqlite3_bind_null(st, i) : sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

/* Binds a ladder key's game, seat count and options to parameters i,
 * i + 1 and i + 2 (borrowed: the key must outlive the statement's use). */
static void ldb_bind_key(sqlite3_stmt *st, int i, const ladder_key *k)
{
    ldb_bind_text(st, i, k->game);
    sqlite3_bind_int64(st, i + 1, k->n_seats);
    ldb_bind_text(st, i + 2, k->options);
}

/* Steps st (bound, from ldb_prepare()) once and gives it back (ldb_finish): JA_OK
 * with the first column of its first row in *out; JA_ENOTFOUND, without a
 * message, when it has no row; the step's error otherwise. */
static int ldb_step_int(ladder_db *db, sqlite3_stmt *st, int64_t *out, const char *what)
{
    int src = sqlite3_step(st);
    int rc;
    if (src == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        rc = JA_OK;
    } else if (src == SQLITE_DONE) {
        rc = JA_ENOTFOUND;
    } else {
        rc = ldb_sql_fail(db, src, what);
    }
    ldb_finish(db, st);
    return rc;
}

/* A single integer from a query with no parameters (that always has a row). */
static int query_int(ladder_db *db, const char *sql, int64_t *out, const char *what)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db, sql, &st, what);
    if (rc != JA_OK)
        return rc;
    rc = ldb_step_int(db, st, out, what);
    return rc == JA_ENOTFOUND ? ldb_sql_fail(db, SQLITE_DONE, what) : rc;
}

/* Copies column i as text into a fixed buffer (truncating, NUL-terminated). */
static void ldb_column_copy(sqlite3_stmt *st, int i, char *buf, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(buf, cap, "%s", t != NULL ? (const char *)t : "");
}

/* qsort's comparison of int64_t, ascending. */
static int ldb_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Fills *row, zeroed by ldb_collect_rows, from the current row of st. */
typedef void (*ldb_read_row_fn)(sqlite3_stmt *st, void *row);

/* Steps st to its end and collects its result rows into one heap array of
 * row_size-byte elements, each zeroed and then filled by read_row; the
 * array starts at 16 elements and doubles as needed. Gives st back
 * (ldb_finish) in every case. On JA_OK, *out is the array (NULL when there is
 * no row), owned by the caller (free()), and *out_n its length. On failure
 * (JA_ENOMEM, or a step's error, whose message names `what`) nothing stays
 * allocated and *out and *out_n are not touched. */
static int ldb_collect_rows(ladder_db *db, sqlite3_stmt *st, const char *what, size_t row_size,
                            ldb_read_row_fn read_row, void **out, uint32_t *out_n)
{
    unsigned char *a = NULL;
    size_t n = 0, cap = 0;
    int rc = JA_OK, src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            size_t c = cap ? cap * 2 : 16;
            void *p = realloc(a, c * row_size);
            if (p == NULL) {
                rc = JA_ENOMEM;
                break;
            }
            a = p;
            cap = c;
        }
        void *row = a + n++ * row_size;
        memset(row, 0, row_size);
        read_row(st, row);
    }
    if (rc == JA_OK && src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    ldb_finish(db, st);
    if (rc != JA_OK) {
        free(a);
        return rc;
    }
    *out = a;
    *out_n = (uint32_t)n;
    return JA_OK;
}

/* ---- Seeds ----------------------------------------------------------------- */

char *ladder_seed_format(uint64_t seed, char buf[21])
{
    snprintf(buf, 21, "%" PRIu64, seed);
    return buf;
}

int ladder_seed_parse(const char *s, uint64_t *out)
{
    if (s == NULL || out == NULL)
        return JA_EINVAL;
    size_t n = strlen(s);
    if (n < 1 || n > 20 || (n > 1 && s[0] == '0'))
        return JA_EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return JA_EINVAL;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return JA_EINVAL;
        v = v * 10 + d;
    }
    *out = v;
    return JA_OK;
}

/* ---- Opening, schema and migrations --------------------------------------- */

/* Applies the migrations from the file's version to the current one. Each
 * runs in its own transaction and re-reads the version under the write
 * lock, so two processes opening an old file at once migrate it once. */
static int migrate_steps(ladder_db *db);

/* Migrations may rebuild tables (schema.c, version 2), which SQLite allows
 * only with foreign keys off; PRAGMA foreign_keys is a no-op inside a
 * transaction, so it is switched around the whole run, and each step checks
 * the keys itself before committing. */
static int migrate(ladder_db *db)
{
    int rc = ldb_exec(db, "PRAGMA foreign_keys = OFF", "upgrading the schema");
    if (rc != JA_OK)
        return rc;
    rc = migrate_steps(db);
    int rc2 = ldb_exec(db, "PRAGMA foreign_keys = ON", "upgrading the schema");
    return rc != JA_OK ? rc : rc2;
}

/* Fails with JA_EFORMAT when the database breaks a foreign key. */
static int check_foreign_keys(ladder_db *db, const char *what)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db, "PRAGMA foreign_key_check", &st, what);
    if (rc != JA_OK)
        return rc;
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        ldb_set_msg(db, "database '%s': table %s breaks a foreign key (%s)", db->path,
                    (const char *)sqlite3_column_text(st, 0), what);
        rc = JA_EFORMAT;
    } else if (src != SQLITE_DONE) {
        rc = ldb_sql_fail(db, src, what);
    }
    ldb_finish(db, st);
    return rc;
}

static int migrate_steps(ladder_db *db)
{
    for (;;) {
        int rc = ldb_begin_write(db, "upgrading the schema");
        if (rc != JA_OK)
            return rc;
        int64_t v;
        rc = query_int(db, "PRAGMA user_version", &v, "reading the schema version");
        if (rc != JA_OK) {
            ldb_rollback(db);
            return rc;
        }
        if (v >= LADDER_DB_SCHEMA_VERSION)
            return ldb_commit(db, "upgrading the schema");
        const ladder__migration *m = &ladder__migrations[v];
        char what[160];
        snprintf(what, sizeof what, "schema migration %d: %s", m->version, m->what);
        rc = ldb_exec(db, m->sql, what);
        if (rc == JA_OK)
            rc = check_foreign_keys(db, what);
        if (rc == JA_OK) {
            char pragma[64];
            snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", m->version);
            rc = ldb_exec(db, pragma, what);
        }
        if (rc == JA_OK)
            rc = ldb_commit(db, what);
        else
            ldb_rollback(db);
        if (rc != JA_OK)
            return rc;
    }
}

static bool is_memory_path(const char *path)
{
    return path[0] == '\0' || strcmp(path, ":memory:") == 0;
}

/* The body of ladder_db_open once the handle exists. The order matters:
 * nothing is written (not even the journal mode, which rewrites the file
 * header) before the file is known to be ours and not too new. */
static int open_file(ladder_db *db)
{
    int src = sqlite3_open_v2(db->path, &db->sql,
                              SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXRESCODE,
                              NULL);
    if (db->sql == NULL) {
        ldb_set_msg(db, "out of memory opening database '%s'", db->path);
        return JA_ENOMEM;
    }
    if (src != SQLITE_OK) {
        int rc = ldb_sql_fail(db, src, "opening");
        if (rc == JA_EIO && (src & 0xff) == SQLITE_CANTOPEN) {
            int sys = sqlite3_system_errno(db->sql);
            ldb_set_msg(db, "cannot open database '%s': %s", db->path,
                        sys ? strerror(sys) : sqlite3_errmsg(db->sql));
        }
        return rc;
    }
    sqlite3_extended_result_codes(db->sql, 1);
    sqlite3_busy_timeout(db->sql, db->busy_ms);

    /* SQLite silently falls back to read-only when the file is not
     * writable; the arena must write, so say so now rather than at the
     * first match. */
    if (sqlite3_db_readonly(db->sql, "main") == 1) {
        ldb_set_msg(db, "database '%s' is read-only: no permission to write it", db->path);
        return JA_EIO;
    }

    int64_t app_id, version, objects;
    int rc = query_int(db, "PRAGMA application_id", &app_id, "reading the file header");
    if (rc == JA_OK)
        rc = query_int(db, "PRAGMA user_version", &version, "reading the schema version");
    if (rc == JA_OK)
        rc = query_int(db, "SELECT count(*) FROM sqlite_master", &objects,
                       "reading the schema");
    if (rc != JA_OK)
        return rc;
    if (app_id != 0 && app_id != LADDER_DB_APPLICATION_ID) {
        ldb_set_msg(db,
                    "'%s' is a SQLite database of another program (application_id 0x%08" PRIx64
                    "), not a Jack Arena database",
                    db->path, (uint64_t)app_id);
        return JA_EFORMAT;
    }
    if (app_id == 0 && (version != 0 || objects != 0)) {
        ldb_set_msg(db,
                    "'%s' is a SQLite database with tables of its own, not a Jack Arena database",
                    db->path);
        return JA_EFORMAT;
    }
    if (version > LADDER_DB_SCHEMA_VERSION) {
        ldb_set_msg(db,
                    "database '%s' has schema version %" PRId64
                    ", newer than this build of Jack Arena knows (%d): use a newer arena",
                    db->path, version, LADDER_DB_SCHEMA_VERSION);
        return JA_EVERSION;
    }

    sqlite3_stmt *st;
    rc = ldb_prepare(db, "PRAGMA journal_mode = WAL", &st, "switching to WAL mode");
    if (rc != JA_OK)
        return rc;
    src = sqlite3_step(st);
    if (src != SQLITE_ROW) {
        rc = ldb_sql_fail(db, src, "switching to WAL mode");
        ldb_finish(db, st);
        return rc;
    }
    char mode[16];
    ldb_column_copy(st, 0, mode, sizeof mode);
    ldb_finish(db, st);
    if (strcmp(mode, "wal") != 0 && !is_memory_path(db->path)) {
        ldb_set_msg(db, "database '%s' cannot use WAL mode (the journal mode stays '%s')", db->path,
                    mode);
        return JA_EIO;
    }
    /* FULL: a commit survives a power cut, not only a crash of the
     * process; one fsync per finished match is cheap next to a match. */
    rc = ldb_exec(db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", "configuring");
    if (rc != JA_OK)
        return rc;
    if (version < LADDER_DB_SCHEMA_VERSION)
        return migrate(db);
    return JA_OK;
}

/* After an I/O failure while opening, replaces SQLite's message with the
 * actual cause when the file system shows one. SQLite's own words can
 * mislead here: creating a file in a read-only directory reports "No such
 * file or directory" (its read-only retry is what failed last), and a
 * read-only directory breaks WAL, whose -wal and -shm files live next to
 * the database. */
static void diagnose_io(ladder_db *db)
{
    if (is_memory_path(db->path))
        return;
    char *copy = strdup(db->path);
    if (copy == NULL)
        return;
    const char *dir = dirname(copy);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        ldb_set_msg(db, "cannot open database '%s': directory '%s' does not exist", db->path, dir);
    else if (access(db->path, F_OK) == 0 && access(db->path, W_OK) != 0)
        ldb_set_msg(db, "database '%s' is read-only: no permission to write it", db->path);
    else if (access(dir, W_OK | X_OK) != 0)
        ldb_set_msg(db,
                    "cannot write database '%s': directory '%s' is not writable (SQLite keeps "
                    "the -wal and -shm files next to the database)",
                    db->path, dir);
    free(copy);
}

int ladder_db_open(const char *path, ladder_db **out)
{
    if (out == NULL)
        return JA_EINVAL;
    *out = NULL;
    if (path == NULL)
        return JA_EINVAL;
    ladder_db *db = calloc(1, sizeof *db);
    if (db == NULL)
        return JA_ENOMEM;
    db->path = strdup(path);
    if (db->path == NULL) {
        free(db);
        return JA_ENOMEM;
    }
    db->busy_ms = LADDER_DB_BUSY_MS;
    *out = db;
    int rc = open_file(db);
    if (rc == JA_EIO)
        diagnose_io(db);
    if (rc != JA_OK && db->sql != NULL) {
        sqlite3_close_v2(db->sql);
        db->sql = NULL;
    }
    return rc;
}

void ladder_db_close(ladder_db **p)
{
    if (p == NULL || *p == NULL)
        return;
    ladder_db *db = *p;
    for (int i = 0; i < LDB_STMT_CACHE; i++)
        if (db->cache[i].st)
            sqlite3_finalize(db->cache[i].st);
    if (db->sql != NULL)
        sqlite3_close_v2(db->sql);
    free(db->path);
    free(db);
    *p = NULL;
}

const char *ladder_db_errmsg(const ladder_db *db)
{
    if (db == NULL)
        return "no database handle";
    return db->errmsg;
}

const char *ladder_db_path(const ladder_db *db)
{
    return db != NULL ? db->path : NULL;
}

int ladder_db_set_busy_timeout(ladder_db *db, int ms)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (ms < 0)
        return JA_EINVAL;
    db->busy_ms = ms;
    sqlite3_busy_timeout(db->sql, ms);
    return JA_OK;
}

int ladder_db_schema_version(ladder_db *db, int *out)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    int64_t v = 0;
    rc = query_int(db, "PRAGMA user_version", &v, "reading the schema version");
    if (rc == JA_OK)
        *out = (int)v;
    return rc;
}

/* ---- Bots ------------------------------------------------------------------ */

static bool ldb_is_sha256_hex(const char *s)
{
    if (strlen(s) != 64)
        return false;
    for (const char *c = s; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return false;
    return true;
}

/* Checks a bot's identity (and kind when need_kind); sets the message. */
static int ldb_check_bot(ladder_db *db, const ladder_bot *b, bool need_kind)
{
    if (b == NULL || b->name == NULL || b->name[0] == '\0') {
        ldb_set_msg(db, "a bot needs a name");
        return JA_EINVAL;
    }
    if (strlen(b->name) >= LADDER_NAME_MAX) {
        ldb_set_msg(db, "bot name '%.40s...' is longer than %d bytes", b->name,
                    LADDER_NAME_MAX - 1);
        return JA_EINVAL;
    }
    if (b->version != NULL && strlen(b->version) >= LADDER_VERSION_MAX) {
        ldb_set_msg(db, "version of bot '%s' is longer than %d bytes", b->name,
                    LADDER_VERSION_MAX - 1);
        return JA_EINVAL;
    }
    if (need_kind && (b->kind == NULL || b->kind[0] == '\0')) {
        ldb_set_msg(db, "bot '%s' has no kind", b->name);
        return JA_EINVAL;
    }
    if (b->sha256 != NULL && !ldb_is_sha256_hex(b->sha256)) {
        ldb_set_msg(db, "sha256 of bot '%s' is not 64 lowercase hex digits", b->name);
        return JA_EINVAL;
    }
    return JA_OK;
}

static int bot_lookup(ladder_db *db, const ladder_bot *b, int64_t *out_id)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT id FROM bots WHERE name = ?1 AND version = ?2"
                         " AND IFNULL(sha256, '') = IFNULL(?3, '')",
                         &st, "looking up a bot");
    if (rc != JA_OK)
        return rc;
    ldb_bind_text(st, 1, b->name);
    ldb_bind_text(st, 2, b->version != NULL ? b->version : "");
    ldb_bind_text(st, 3, b->sha256);
    return ldb_step_int(db, st, out_id, "looking up a bot");
}

/* Inside a write transaction. */
static int ldb_bot_get_or_add(ladder_db *db, const ladder_bot *b, int64_t *out_id)
{
    int rc = bot_lookup(db, b, out_id);
    if (rc != JA_ENOTFOUND)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "INSERT INTO bots (name, version, kind, spec, sha256, created_at)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, " LDB_SQL_NOW ")",
                     &st, "adding a bot");
    if (rc != JA_OK)
        return rc;
    ldb_bind_text(st, 1, b->name);
    ldb_bind_text(st, 2, b->version != NULL ? b->version : "");
    ldb_bind_text(st, 3, b->kind);
    ldb_bind_text(st, 4, b->spec != NULL ? b->spec : "");
    ldb_bind_text(st, 5, b->sha256);
    return ldb_insert_row(db, st, out_id, "adding a bot");
}

int ladder_db_bot_get_or_add(ladder_db *db, const ladder_bot *bot, int64_t *out_id)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out_id == NULL)
        return JA_EINVAL;
    if ((rc = ldb_check_bot(db, bot, true)) != JA_OK)
        return rc;
    /* The common case, a known bot, needs no write lock. */
    rc = bot_lookup(db, bot, out_id);
    if (rc != JA_ENOTFOUND)
        return rc;
    if ((rc = ldb_begin_write(db, "adding a bot")) != JA_OK)
        return rc;
    rc = ldb_bot_get_or_add(db, bot, out_id);
    if (rc == JA_OK)
        return ldb_commit(db, "adding a bot");
    ldb_rollback(db);
    return rc;
}

int ladder_db_bot_find(ladder_db *db, const ladder_bot *bot, int64_t *out_id)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out_id == NULL)
        return JA_EINVAL;
    if ((rc = ldb_check_bot(db, bot, false)) != JA_OK)
        return rc;
    rc = bot_lookup(db, bot, out_id);
    if (rc == JA_ENOTFOUND)
        ldb_set_msg(db, "no bot '%s' version '%s' in database '%s'", bot->name,
                    bot->version != NULL ? bot->version : "", db->path);
    return rc;
}

/* ---- Ladders --------------------------------------------------------------- */

static int ldb_check_key(ladder_db *db, const ladder_key *k)
{
    if (k == NULL || k->game == NULL || k->game[0] == '\0') {
        ldb_set_msg(db, "a ladder needs a game");
        return JA_EINVAL;
    }
    if (strlen(k->game) >= LADDER_NAME_MAX) {
        ldb_set_msg(db, "game name is longer than %d bytes", LADDER_NAME_MAX - 1);
        return JA_EINVAL;
    }
    if (k->n_seats < 2 || k->n_seats > JA_MAX_SEATS) {
        ldb_set_msg(db, "seats must be between 2 and %d, not %u", JA_MAX_SEATS, k->n_seats);
        return JA_EINVAL;
    }
    if (k->options == NULL || strlen(k->options) >= LADDER_OPTIONS_MAX) {
        ldb_set_msg(db, "options of a ladder must be text of at most %d bytes",
                    LADDER_OPTIONS_MAX - 1);
        return JA_EINVAL;
    }
    return JA_OK;
}

/* A ladder's id from its key bound to ?1, ?2, ?3 (one statement for
 * ladder_lookup and begin_ladder_read: the cache keys on the address). */
static const char ldb_ladder_lookup_sql[] =
    "SELECT id FROM ladders WHERE game = ?1 AND n_seats = ?2 AND options = ?3";

static int ladder_lookup(ladder_db *db, const ladder_key *k, int64_t *out_id)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db, ldb_ladder_lookup_sql, &st, "looking up a ladder");
    if (rc != JA_OK)
        return rc;
    ldb_bind_key(st, 1, k);
    return ldb_step_int(db, st, out_id, "looking up a ladder");
}

/* Inside a write transaction. */
static int ldb_ladder_get_or_add(ladder_db *db, const ladder_key *k, int64_t *out_id)
{
    int rc = ladder_lookup(db, k, out_id);
    if (rc != JA_ENOTFOUND)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db, "INSERT INTO ladders (game, n_seats, options) VALUES (?1, ?2, ?3)", &st,
                     "adding a ladder");
    if (rc != JA_OK)
        return rc;
    ldb_bind_key(st, 1, k);
    return ldb_insert_row(db, st, out_id, "adding a ladder");
}

/* ---- Tournaments ----------------------------------------------------------- */

static void spec_params(const ladder_tournament_spec *s, ladder_plan_params *p)
{
    memset(p, 0, sizeof *p);
    p->n_participants = s->n_bots;
    p->n_seats = s->ladder.n_seats;
    p->rounds = s->rounds;
    p->format = s->format;
    p->duplicate = s->duplicate;
    p->seed = s->seed;
}

/* Everything about a spec that can be checked without the database. */
static int check_spec(ladder_db *db, const ladder_tournament_spec *s, bool need_kind)
{
    if (s == NULL) {
        ldb_set_msg(db, "no tournament given");
        return JA_EINVAL;
    }
    int rc = ldb_check_key(db, &s->ladder);
    if (rc != JA_OK)
        return rc;
    ladder_plan_params p;
    spec_params(s, &p);
    char err[200];
    rc = ladder_plan_count(&p, NULL, err, sizeof err);
    if (rc != JA_OK) {
        ldb_set_msg(db, "%s", err);
        return rc;
    }
    if (s->bots == NULL) {
        ldb_set_msg(db, "no participants given");
        return JA_EINVAL;
    }
    for (uint32_t i = 0; i < s->n_bots; i++) {
        if ((rc = ldb_check_bot(db, &s->bots[i], need_kind)) != JA_OK)
            return rc;
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(s->bots[i].name, s->bots[j].name) == 0) {
                ldb_set_msg(db, "participant name '%s' is given twice", s->bots[i].name);
                return JA_EINVAL;
            }
        }
    }
    return JA_OK;
}

/* Inserts the plan's rows (inside the tournament's transaction). */
static int store_plan(ladder_db *db, int64_t tid, const ladder_plan_match *plan, uint32_t n)
{
    static const char what[] = "storing the tournament plan";
    sqlite3_stmt *m = NULL, *s = NULL;
    int rc = ldb_prepare(db,
                         "INSERT INTO matches (tournament_id, number, round, combo, rotation, seed)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                         &m, what);
    if (rc == JA_OK)
        rc = ldb_prepare(db, "INSERT INTO match_seats (match_id, seat, slot) VALUES (?1, ?2, ?3)",
                         &s, what);
    for (uint32_t i = 0; rc == JA_OK && i < n; i++) {
        const ladder_plan_match *pm = &plan[i];
        char seed[21];
        ladder_seed_format(pm->seed, seed);
        sqlite3_bind_int64(m, 1, tid);
        sqlite3_bind_int64(m, 2, pm->number);
        sqlite3_bind_int64(m, 3, pm->round);
        sqlite3_bind_int64(m, 4, pm->combo);
        sqlite3_bind_int64(m, 5, pm->rotation);
        sqlite3_bind_text(m, 6, seed, -1, SQLITE_TRANSIENT);
        rc = ldb_step_done(db, m, what);
        int64_t mid = sqlite3_last_insert_rowid(db->sql);
        for (uint32_t seat = 0; rc == JA_OK && seat < pm->n_seats; seat++) {
            sqlite3_bind_int64(s, 1, mid);
            sqlite3_bind_int64(s, 2, seat);
            sqlite3_bind_int64(s, 3, pm->slot[seat]);
            rc = ldb_step_done(db, s, what);
        }
    }
    ldb_finish(db, m);
    ldb_finish(db, s);
    return rc;
}

/* The writes of ladder_db_tournament_create, inside its transaction. */
static int create_tournament(ladder_db *db, const ladder_tournament_spec *spec,
                             const ladder_plan_match *plan, uint32_t n_plan, int64_t *out_id)
{
    static const char what[] = "storing a new tournament";
    int64_t ladder_id = 0;
    int rc = ldb_ladder_get_or_add(db, &spec->ladder, &ladder_id);
    if (rc != JA_OK)
        return rc;

    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "INSERT INTO tournaments (ladder_id, seed, format, rounds, duplicate,"
                     " n_participants, n_matches, status, created_at)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', " LDB_SQL_NOW ")",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    char seed[21];
    sqlite3_bind_int64(st, 1, ladder_id);
    ldb_bind_text(st, 2, ladder_seed_format(spec->seed, seed));
    ldb_bind_text(st, 3, ladder_format_name(spec->format));
    sqlite3_bind_int64(st, 4, spec->rounds);
    sqlite3_bind_int(st, 5, spec->duplicate ? 1 : 0);
    sqlite3_bind_int64(st, 6, spec->n_bots);
    sqlite3_bind_int64(st, 7, n_plan);
    int64_t tid;
    if ((rc = ldb_insert_row(db, st, &tid, what)) != JA_OK)
        return rc;

    rc = ldb_prepare(db,
                     "INSERT INTO participants (tournament_id, slot, bot_id, name)"
                     " VALUES (?1, ?2, ?3, ?4)",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    for (uint32_t i = 0; rc == JA_OK && i < spec->n_bots; i++) {
        int64_t bot_id;
        rc = ldb_bot_get_or_add(db, &spec->bots[i], &bot_id);
        if (rc != JA_OK)
            break;
        sqlite3_bind_int64(st, 1, tid);
        sqlite3_bind_int64(st, 2, i);
        sqlite3_bind_int64(st, 3, bot_id);
        ldb_bind_text(st, 4, spec->bots[i].name);
        rc = ldb_step_done(db, st, what);
    }
    ldb_finish(db, st);
    if (rc == JA_OK)
        rc = store_plan(db, tid, plan, n_plan);
    if (rc == JA_OK)
        *out_id = tid;
    return rc;
}

int ladder_db_tournament_create(ladder_db *db, const ladder_tournament_spec *spec,
                                int64_t *out_id)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out_id == NULL)
        return JA_EINVAL;
    if ((rc = check_spec(db, spec, true)) != JA_OK)
        return rc;
    ladder_plan_params p;
    spec_params(spec, &p);
    ladder_plan_match *plan;
    uint32_t n;
    rc = ladder_plan_new(&p, &plan, &n);
    if (rc != JA_OK) {
        ldb_set_msg(db, "cannot generate the plan: %s", ja_strerror(rc));
        return rc;
    }
    rc = ldb_begin_write(db, "storing a new tournament");
    if (rc == JA_OK) {
        rc = create_tournament(db, spec, plan, n, out_id);
        if (rc == JA_OK)
            rc = ldb_commit(db, "storing a new tournament");
        else
            ldb_rollback(db);
    }
    ladder_plan_free(&plan);
    return rc;
}

/* True when the participants of tournament tid are exactly bot_ids (and
 * display names) in slot order. */
static int same_participants(ladder_db *db, int64_t tid, const ladder_tournament_spec *spec,
                             const int64_t *bot_ids, bool *same)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT slot, bot_id, name FROM participants WHERE tournament_id = ?1"
                         " ORDER BY slot",
                         &st, "reading participants");
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tid);
    uint32_t i = 0;
    *same = true;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 2);
        if (i >= spec->n_bots || sqlite3_column_int64(st, 0) != i ||
            sqlite3_column_int64(st, 1) != bot_ids[i] || name == NULL ||
            strcmp((const char *)name, spec->bots[i].name) != 0) {
            *same = false;
            break;
        }
        i++;
    }
    if (src != SQLITE_ROW && src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, "reading participants");
    else if (i != spec->n_bots)
        *same = false;
    ldb_finish(db, st);
    return rc;
}

int ladder_db_tournament_find(ladder_db *db, const ladder_tournament_spec *spec, unsigned flags,
                              int64_t *out_id)
{
    static const char what[] = "looking for the tournament to resume";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out_id == NULL)
        return JA_EINVAL;
    if ((rc = check_spec(db, spec, false)) != JA_OK)
        return rc;
    char seed[21];
    ladder_seed_format(spec->seed, seed);

    int64_t ladder_id = 0;
    int64_t *bot_ids = calloc(spec->n_bots, sizeof *bot_ids);
    if (bot_ids == NULL)
        return JA_ENOMEM;
    rc = ladder_lookup(db, &spec->ladder, &ladder_id);
    for (uint32_t i = 0; rc == JA_OK && i < spec->n_bots; i++)
        rc = bot_lookup(db, &spec->bots[i], &bot_ids[i]);

    sqlite3_stmt *st = NULL;
    if (rc == JA_OK)
        rc = ldb_prepare(db,
                         "SELECT id FROM tournaments WHERE ladder_id = ?1"
                         " AND (?2 IS NULL OR seed = ?2) AND format = ?3 AND rounds = ?4"
                         " AND duplicate = ?5 AND n_participants = ?6"
                         " AND (?7 = 0 OR status = 'running') ORDER BY id DESC",
                         &st, what);
    if (rc == JA_OK) {
        sqlite3_bind_int64(st, 1, ladder_id);
        ldb_bind_text(st, 2, (flags & LADDER_FIND_ANY_SEED) ? NULL : seed);
        ldb_bind_text(st, 3, ladder_format_name(spec->format));
        sqlite3_bind_int64(st, 4, spec->rounds);
        sqlite3_bind_int(st, 5, spec->duplicate ? 1 : 0);
        sqlite3_bind_int64(st, 6, spec->n_bots);
        sqlite3_bind_int(st, 7, (flags & LADDER_FIND_UNFINISHED) ? 1 : 0);
        rc = JA_ENOTFOUND;
        int src;
        while ((src = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t tid = sqlite3_column_int64(st, 0);
            bool same;
            int r2 = same_participants(db, tid, spec, bot_ids, &same);
            if (r2 != JA_OK) {
                rc = r2;
                break;
            }
            if (same) {
                *out_id = tid;
                rc = JA_OK;
                break;
            }
        }
        if (src != SQLITE_ROW && src != SQLITE_DONE)
            rc = ldb_sql_fail(db, src, what);
    }
    ldb_finish(db, st);
    free(bot_ids);
    if (rc == JA_ENOTFOUND)
        ldb_set_msg(db, "no %stournament of %s with %s and these participants in database '%s'",
                    (flags & LADDER_FIND_UNFINISHED) ? "unfinished " : "", spec->ladder.game,
                    (flags & LADDER_FIND_ANY_SEED) ? "any seed" : "this seed", db->path);
    return rc;
}

int ladder_db_tournament_get(ladder_db *db, int64_t id, ladder_tournament_info *out)
{
    static const char what[] = "reading a tournament";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT t.ladder_id, t.seed, t.format, t.rounds, t.duplicate, l.n_seats,"
                     " t.n_participants, t.n_matches,"
                     " (SELECT count(*) FROM matches m WHERE m.tournament_id = t.id"
                     "  AND m.status = 'planned')"
                     " FROM tournaments t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = ?1",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        out->id = id;
        out->ladder_id = sqlite3_column_int64(st, 0);
        const char *seed = (const char *)sqlite3_column_text(st, 1);
        char format[32];
        ldb_column_copy(st, 2, format, sizeof format);
        /* An import has no seed and no plan format (schema version 2). */
        out->imported = strcmp(format, "import") == 0;
        if (out->imported ? seed != NULL
                          : (ladder_seed_parse(seed, &out->seed) != JA_OK ||
                             ladder_format_parse(format, &out->format) != JA_OK)) {
            ldb_set_msg(db, "database '%s': tournament %" PRId64 " has a malformed seed or format",
                        db->path, id);
            rc = JA_EFORMAT;
        } else {
            out->rounds = (uint32_t)sqlite3_column_int64(st, 3);
            out->duplicate = sqlite3_column_int(st, 4) != 0;
            out->n_seats = (uint32_t)sqlite3_column_int64(st, 5);
            out->n_participants = (uint32_t)sqlite3_column_int64(st, 6);
            out->n_matches = (uint32_t)sqlite3_column_int64(st, 7);
            out->n_done = out->n_matches - (uint32_t)sqlite3_column_int64(st, 8);
            out->done = out->n_done == out->n_matches;
        }
    } else if (src == SQLITE_DONE) {
        ldb_set_msg(db, "no tournament %" PRId64 " in database '%s'", id, db->path);
        rc = JA_ENOTFOUND;
    } else {
        rc = ldb_sql_fail(db, src, what);
    }
    ldb_finish(db, st);
    return rc;
}

int ladder_db_match_get(ladder_db *db, int64_t tournament_id, uint32_t number,
                        ladder_plan_match *out)
{
    static const char what[] = "reading a planned match";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT m.round, m.combo, m.rotation, m.seed, s.seat, s.slot"
                     " FROM matches m JOIN match_seats s ON s.match_id = m.id"
                     " WHERE m.tournament_id = ?1 AND m.number = ?2 ORDER BY s.seat",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    sqlite3_bind_int64(st, 2, number);
    ladder_plan_match m;
    memset(&m, 0, sizeof m);
    m.number = number;
    int src = SQLITE_DONE;
    while (rc == JA_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t seat = sqlite3_column_int64(st, 4);
        if (m.n_seats == 0) {
            m.round = (uint32_t)sqlite3_column_int64(st, 0);
            m.combo = (uint32_t)sqlite3_column_int64(st, 1);
            m.rotation = (uint32_t)sqlite3_column_int64(st, 2);
            if (ladder_seed_parse((const char *)sqlite3_column_text(st, 3), &m.seed) != JA_OK)
                rc = JA_EFORMAT;
        }
        if (seat != m.n_seats || m.n_seats >= JA_MAX_SEATS)
            rc = JA_EFORMAT;
        else
            m.slot[m.n_seats++] = (uint16_t)sqlite3_column_int64(st, 5);
    }
    if (rc == JA_EFORMAT)
        ldb_set_msg(db, "database '%s': match %u of tournament %" PRId64 " is malformed", db->path,
                    number, tournament_id);
    else if (src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    else if (m.n_seats == 0) {
        ldb_set_msg(db, "no match %u of tournament %" PRId64 " in database '%s'", number,
                    tournament_id, db->path);
        rc = JA_ENOTFOUND;
    }
    ldb_finish(db, st);
    if (rc == JA_OK)
        *out = m;
    return rc;
}

int ladder_db_match_get_many(ladder_db *db, int64_t tournament_id, const uint32_t *numbers,
                             uint32_t n, ladder_plan_match *out, uint32_t *got)
{
    static const char what[] = "reading planned matches";
    uint32_t i = 0;
    int rc = ldb_enter(db);
    if (rc == JA_OK && n > 0 && (numbers == NULL || out == NULL))
        rc = JA_EINVAL;
    /* One transaction when there is more than one to read, and none of the
     * caller's is open (the statements would then be inside that one). */
    bool own = rc == JA_OK && n > 1 && sqlite3_get_autocommit(db->sql);
    if (own)
        rc = ldb_exec(db, "BEGIN", what);
    for (; rc == JA_OK && i < n; i++)
        if ((rc = ladder_db_match_get(db, tournament_id, numbers[i], &out[i])) != JA_OK)
            break;
    if (own && rc == JA_OK)
        rc = ldb_commit(db, what);
    else if (own)
        ldb_rollback(db); /* a read: nothing to undo, the message stays */
    if (got)
        *got = i;
    return rc;
}

static int ldb_tournament_exists(ladder_db *db, int64_t tid)
{
    sqlite3_stmt *st;
    int rc =
        ldb_prepare(db, "SELECT 1 FROM tournaments WHERE id = ?1", &st, "reading a tournament");
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tid);
    int64_t one;
    rc = ldb_step_int(db, st, &one, "reading a tournament");
    if (rc == JA_ENOTFOUND)
        ldb_set_msg(db, "no tournament %" PRId64 " in database '%s'", tid, db->path);
    return rc;
}

static void read_pending(sqlite3_stmt *st, void *row)
{
    *(uint32_t *)row = (uint32_t)sqlite3_column_int64(st, 0);
}

int ladder_db_pending(ladder_db *db, int64_t tournament_id, uint32_t **out, uint32_t *out_n)
{
    static const char what[] = "listing pending matches";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL || out_n == NULL)
        return JA_EINVAL;
    *out = NULL;
    *out_n = 0;
    if ((rc = ldb_tournament_exists(db, tournament_id)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT number FROM matches WHERE tournament_id = ?1 AND status = 'planned'"
                     " ORDER BY number",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **out, read_pending, &rows, out_n)) == JA_OK)
        *out = rows;
    return rc;
}

/* ---- Recording a match ----------------------------------------------------- */

static int check_result(ladder_db *db, const ladder_match_result *r)
{
    if (r == NULL) {
        ldb_set_msg(db, "no result given");
        return JA_EINVAL;
    }
    uint32_t n = r->outcome.n_seats;
    if (n < 2 || n > JA_MAX_SEATS) {
        ldb_set_msg(db, "a result must have between 2 and %d seats, not %u", JA_MAX_SEATS, n);
        return JA_EINVAL;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (r->outcome.place[i] < 1 || r->outcome.place[i] > n) {
            ldb_set_msg(db, "seat %u has place %u, outside 1..%u", i, r->outcome.place[i], n);
            return JA_EINVAL;
        }
    }
    return JA_OK;
}

/* What record_match learns about the match before writing. */
typedef struct match_ctx {
    int64_t tid;
    uint32_t number;
    int64_t match_id;
    int64_t ladder_id;
    uint32_t n_seats;
    int64_t bot[JA_MAX_SEATS];
    ladder_elo_seat elo[JA_MAX_SEATS];
    int64_t wins[JA_MAX_SEATS], draws[JA_MAX_SEATS], losses[JA_MAX_SEATS]; /* before */
    bool turns_unknown; /* imported without a turn count: store NULL */
    char what[96];
} match_ctx;

/* Finds the match, refuses one already recorded, and reads its seats' bots. */
static int load_match(ladder_db *db, match_ctx *c, const ladder_match_result *r)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT m.id, m.status, l.n_seats, t.ladder_id FROM matches m"
                         " JOIN tournaments t ON t.id = m.tournament_id"
                         " JOIN ladders l ON l.id = t.ladder_id"
                         " WHERE m.tournament_id = ?1 AND m.number = ?2",
                         &st, c->what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, c->tid);
    sqlite3_bind_int64(st, 2, c->number);
    int src = sqlite3_step(st);
    char status[16] = "";
    if (src == SQLITE_ROW) {
        c->match_id = sqlite3_column_int64(st, 0);
        ldb_column_copy(st, 1, status, sizeof status);
        c->n_seats = (uint32_t)sqlite3_column_int64(st, 2);
        c->ladder_id = sqlite3_column_int64(st, 3);
    } else if (src == SQLITE_DONE) {
        rc = ldb_tournament_exists(db, c->tid);
        if (rc == JA_OK) {
            ldb_set_msg(db, "tournament %" PRId64 " has no match %u", c->tid, c->number);
            rc = JA_ENOTFOUND;
        }
    } else {
        rc = ldb_sql_fail(db, src, c->what);
    }
    ldb_finish(db, st);
    if (rc != JA_OK)
        return rc;
    if (strcmp(status, "planned") != 0) {
        ldb_set_msg(db, "match %u of tournament %" PRId64 " is already recorded", c->number,
                    c->tid);
        return JA_ESTATE;
    }
    if (r->outcome.n_seats != c->n_seats) {
        ldb_set_msg(db, "the result has %u seats, tournament %" PRId64 " plays with %u",
                    r->outcome.n_seats, c->tid, c->n_seats);
        return JA_EINVAL;
    }

    rc = ldb_prepare(db,
                     "SELECT s.seat, p.bot_id, IFNULL(rt.elo, ?4), IFNULL(rt.games, 0),"
                     " IFNULL(rt.wins, 0), IFNULL(rt.draws, 0), IFNULL(rt.losses, 0)"
                     " FROM match_seats s"
                     " JOIN participants p ON p.tournament_id = ?1 AND p.slot = s.slot"
                     " LEFT JOIN ratings rt ON rt.ladder_id = ?3 AND rt.bot_id = p.bot_id"
                     " WHERE s.match_id = ?2 ORDER BY s.seat",
                     &st, c->what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, c->tid);
    sqlite3_bind_int64(st, 2, c->match_id);
    sqlite3_bind_int64(st, 3, c->ladder_id);
    sqlite3_bind_double(st, 4, LADDER_ELO_INITIAL);
    uint32_t n = 0;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        if (n >= c->n_seats || sqlite3_column_int64(st, 0) != n) {
            n = UINT32_MAX;
            break;
        }
        c->bot[n] = sqlite3_column_int64(st, 1);
        c->elo[n].who = c->bot[n];
        c->elo[n].rating = sqlite3_column_double(st, 2);
        c->elo[n].games = sqlite3_column_int64(st, 3);
        c->elo[n].place = r->outcome.place[n];
        c->wins[n] = sqlite3_column_int64(st, 4);
        c->draws[n] = sqlite3_column_int64(st, 5);
        c->losses[n] = sqlite3_column_int64(st, 6);
        n++;
    }
    if (n != c->n_seats) {
        ldb_set_msg(db,
                    "database '%s': the seats of match %u of tournament %" PRId64 " are malformed",
                    db->path, c->number, c->tid);
        rc = JA_EFORMAT;
    } else if (src != SQLITE_DONE) {
        rc = ldb_sql_fail(db, src, c->what);
    }
    ldb_finish(db, st);
    return rc;
}

static int insert_results(ladder_db *db, const match_ctx *c, const ladder_match_result *r)
{
    sqlite3_stmt *res = NULL, *flt = NULL;
    int rc = ldb_prepare(db,
                         "INSERT INTO results (match_id, seat, bot_id, score, place, faults,"
                         " elo_before, elo_delta) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                         &res, c->what);
    if (rc == JA_OK)
        rc = ldb_prepare(db,
                         "INSERT INTO result_faults (match_id, seat, kind, count)"
                         " VALUES (?1, ?2, ?3, ?4)",
                         &flt, c->what);
    for (uint32_t s = 0; rc == JA_OK && s < c->n_seats; s++) {
        int64_t total = 0;
        for (int k = 1; k < JA_FAULT_COUNT; k++)
            total += r->faults[s][k];
        sqlite3_bind_int64(res, 1, c->match_id);
        sqlite3_bind_int64(res, 2, s);
        sqlite3_bind_int64(res, 3, c->bot[s]);
        sqlite3_bind_int64(res, 4, r->outcome.score[s]);
        sqlite3_bind_int64(res, 5, r->outcome.place[s]);
        sqlite3_bind_int64(res, 6, total);
        sqlite3_bind_double(res, 7, c->elo[s].rating);
        sqlite3_bind_double(res, 8, c->elo[s].delta);
        rc = ldb_step_done(db, res, c->what);
        /* JA_FAULT_NONE (0) is not a fault. Kinds are stored by name, so
         * the table survives a renumbering of the enum. */
        for (int k = 1; rc == JA_OK && k < JA_FAULT_COUNT; k++) {
            if (r->faults[s][k] == 0)
                continue;
            sqlite3_bind_int64(flt, 1, c->match_id);
            sqlite3_bind_int64(flt, 2, s);
            ldb_bind_text(flt, 3, ja_fault_name(k));
            sqlite3_bind_int64(flt, 4, r->faults[s][k]);
            rc = ldb_step_done(db, flt, c->what);
        }
    }
    ldb_finish(db, res);
    ldb_finish(db, flt);
    return rc;
}

/* Adds the match's Elo changes to its bots' ratings. A bot holding several
 * seats gets the sum of their changes and one game. */
static int update_ratings(ladder_db *db, const match_ctx *c)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "INSERT INTO ratings (ladder_id, bot_id, games, elo, wins, draws, losses,"
                         " updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, " LDB_SQL_NOW ")"
                         " ON CONFLICT (ladder_id, bot_id) DO UPDATE SET games = excluded.games,"
                         " elo = excluded.elo, wins = excluded.wins, draws = excluded.draws,"
                         " losses = excluded.losses, updated_at = excluded.updated_at",
                         &st, c->what);
    if (rc != JA_OK)
        return rc;
    for (uint32_t s = 0; rc == JA_OK && s < c->n_seats; s++) {
        bool first = true;
        for (uint32_t t = 0; t < s; t++)
            if (c->bot[t] == c->bot[s])
                first = false;
        if (!first)
            continue;
        double delta = 0.0;
        int64_t w = c->wins[s], d = c->draws[s], l = c->losses[s];
        for (uint32_t t = s; t < c->n_seats; t++) {
            if (c->bot[t] != c->bot[s])
                continue;
            delta += c->elo[t].delta;
            w += c->elo[t].wins;
            d += c->elo[t].draws;
            l += c->elo[t].losses;
        }
        sqlite3_bind_int64(st, 1, c->ladder_id);
        sqlite3_bind_int64(st, 2, c->bot[s]);
        sqlite3_bind_int64(st, 3, c->elo[s].games + 1);
        sqlite3_bind_double(st, 4, c->elo[s].rating + delta);
        sqlite3_bind_int64(st, 5, w);
        sqlite3_bind_int64(st, 6, d);
        sqlite3_bind_int64(st, 7, l);
        rc = ldb_step_done(db, st, c->what);
    }
    ldb_finish(db, st);
    return rc;
}

static int mark_done(ladder_db *db, const match_ctx *c, const ladder_match_result *r)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "UPDATE matches SET status = 'done', turns = ?2, digest = ?3, replay = ?4,"
                         " finished_at = " LDB_SQL_NOW " WHERE id = ?1 AND status = 'planned'",
                         &st, c->what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, c->match_id);
    if (c->turns_unknown)
        sqlite3_bind_null(st, 2);
    else
        sqlite3_bind_int64(st, 2, r->turns);
    ldb_bind_text(st, 3, r->digest);
    ldb_bind_text(st, 4, r->replay_path);
    rc = ldb_step_done(db, st, c->what);
    ldb_finish(db, st);
    if (rc == JA_OK && sqlite3_changes(db->sql) != 1) {
        ldb_set_msg(db, "match %u of tournament %" PRId64 " changed while being recorded",
                    c->number, c->tid);
        rc = JA_ESTATE;
    }
    if (rc != JA_OK)
        return rc;
    /* The last match closes the tournament, in the same transaction. */
    rc = ldb_prepare(db,
                     "UPDATE tournaments SET status = 'done', finished_at = " LDB_SQL_NOW
                     " WHERE id = ?1 AND status = 'running' AND NOT EXISTS"
                     " (SELECT 1 FROM matches WHERE tournament_id = ?1 AND status = 'planned')",
                     &st, c->what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, c->tid);
    rc = ldb_step_done(db, st, c->what);
    ldb_finish(db, st);
    return rc;
}

/* The writes of recording one match, inside the caller's transaction:
 * shared by ladder_db_record_match and ladder_db_import, so an imported
 * match is stored, rated and closed exactly as a played one. */
static int record_in_tx(ladder_db *db, match_ctx *c, const ladder_match_result *r)
{
    int rc = load_match(db, c, r);
    if (rc == JA_OK)
        rc = ladder_elo_match(c->elo, c->n_seats);
    if (rc == JA_OK)
        rc = insert_results(db, c, r);
    if (rc == JA_OK)
        rc = update_ratings(db, c);
    if (rc == JA_OK)
        rc = mark_done(db, c, r);
    return rc;
}

int ladder_db_record_match(ladder_db *db, int64_t tournament_id, uint32_t number,
                           const ladder_match_result *r)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if ((rc = check_result(db, r)) != JA_OK)
        return rc;
    match_ctx c;
    memset(&c, 0, sizeof c);
    c.tid = tournament_id;
    c.number = number;
    snprintf(c.what, sizeof c.what, "recording match %u of tournament %" PRId64, number,
             tournament_id);

    if ((rc = ldb_begin_write(db, c.what)) != JA_OK)
        return rc;
    rc = record_in_tx(db, &c, r);
    if (rc == JA_OK)
        return ldb_commit(db, c.what);
    ldb_rollback(db);
    return rc;
}

int ladder_db_record_matches(ladder_db *db, int64_t tournament_id, uint32_t n,
                             const uint32_t *numbers, const ladder_match_result *const *results,
                             int *rcs)
{
    int rc = ldb_enter(db);
    if (rc == JA_OK && n == 0)
        return JA_OK;
    char what[96];
    snprintf(what, sizeof what, "recording %u matches of tournament %" PRId64, n, tournament_id);
    if (rc == JA_OK)
        rc = ldb_begin_write(db, what);
    char first[LDB_ERRMSG_MAX] = "";
    for (uint32_t i = 0; rc == JA_OK && i < n; i++) {
        match_ctx c;
        memset(&c, 0, sizeof c);
        c.tid = tournament_id;
        c.number = numbers[i];
        snprintf(c.what, sizeof c.what, "recording match %u of tournament %" PRId64, numbers[i],
                 tournament_id);
        rcs[i] = check_result(db, results[i]);
        if (rcs[i] == JA_OK)
            rcs[i] = record_in_tx(db, &c, results[i]);
        if (rcs[i] == JA_OK)
            continue;
        if (rcs[i] != JA_ESTATE && rcs[i] != JA_EINVAL && rcs[i] != JA_ENOTFOUND)
            rc = rcs[i]; /* a write failed: the transaction is lost */
        else if (!first[0])
            snprintf(first, sizeof first, "%s", db->errmsg); /* refused before any write */
    }
    if (rc == JA_OK)
        rc = ldb_commit(db, what);
    else
        ldb_rollback(db);
    if (rc != JA_OK) {
        /* Nothing of the batch is written: each match on its own, so that
         * one failure does not take the others with it. */
        char why[LDB_ERRMSG_MAX];
        snprintf(why, sizeof why, "%s", db->errmsg);
        for (uint32_t i = 0; i < n; i++)
            rcs[i] = ladder_db_record_match(db, tournament_id, numbers[i], results[i]);
        snprintf(db->errmsg, sizeof db->errmsg, "%s", why);
        return rc;
    }
    if (first[0])
        snprintf(db->errmsg, sizeof db->errmsg, "%s", first);
    return JA_OK;
}

/* ---- Queries --------------------------------------------------------------- */

static void read_standing(sqlite3_stmt *st, void *row)
{
    ladder_standing *s = row;
    s->slot = (uint32_t)sqlite3_column_int64(st, 0);
    s->bot_id = sqlite3_column_int64(st, 1);
    ldb_column_copy(st, 2, s->bot, sizeof s->bot);
    s->games = sqlite3_column_int64(st, 3);
    s->wins = sqlite3_column_int64(st, 4);
    s->score = sqlite3_column_int64(st, 5);
    s->faults = sqlite3_column_int64(st, 6);
    s->elo = sqlite3_column_double(st, 7);
    s->elo_games = sqlite3_column_int64(st, 8);
    ldb_column_copy(st, 9, s->version, sizeof s->version);
    ldb_column_copy(st, 10, s->sha256, sizeof s->sha256);
}

int ladder_db_standings(ladder_db *db, int64_t tournament_id, ladder_standing **out,
                        uint32_t *out_n)
{
    static const char what[] = "computing standings";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL || out_n == NULL)
        return JA_EINVAL;
    *out = NULL;
    *out_n = 0;
    if ((rc = ldb_tournament_exists(db, tournament_id)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(
        db,
        "SELECT p.slot, p.bot_id, p.name, IFNULL(s.games, 0) AS g, IFNULL(s.wins, 0) AS w,"
        " IFNULL(s.score, 0) AS sc, IFNULL(s.faults, 0), IFNULL(rt.elo, ?2) AS e,"
        " IFNULL(rt.games, 0), b.version, IFNULL(b.sha256, '')"
        " FROM participants p JOIN tournaments t ON t.id = p.tournament_id"
        " JOIN bots b ON b.id = p.bot_id"
        " LEFT JOIN (SELECT ms.slot AS slot, count(*) AS games, sum(r.place = 1) AS wins,"
        "            sum(r.score) AS score, sum(r.faults) AS faults"
        "            FROM matches m JOIN match_seats ms ON ms.match_id = m.id"
        "            JOIN results r ON r.match_id = m.id AND r.seat = ms.seat"
        "            WHERE m.tournament_id = ?1 GROUP BY ms.slot) s ON s.slot = p.slot"
        " LEFT JOIN ratings rt ON rt.ladder_id = t.ladder_id AND rt.bot_id = p.bot_id"
        " WHERE p.tournament_id = ?1"
        " ORDER BY g = 0, CAST(sc AS REAL) / max(g, 1) DESC, w DESC, e DESC, p.slot",
        &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    sqlite3_bind_double(st, 2, LADDER_ELO_INITIAL);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **out, read_standing, &rows, out_n)) == JA_OK)
        *out = rows;
    return rc;
}

/* Sums the (kind, count) rows of a prepared statement into out by kind;
 * gives st back (ldb_finish). */
static int sum_fault_rows(ladder_db *db, sqlite3_stmt *st, const char *what,
                          uint64_t out[JA_FAULT_COUNT])
{
    uint64_t counts[JA_FAULT_COUNT] = {0};
    int rc = JA_OK, src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        const char *kind = (const char *)sqlite3_column_text(st, 0);
        /* Kinds unknown to this build (written by a newer one) are skipped. */
        for (int k = 1; kind != NULL && k < JA_FAULT_COUNT; k++)
            if (strcmp(kind, ja_fault_name(k)) == 0)
                counts[k] += (uint64_t)sqlite3_column_int64(st, 1);
    }
    if (src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    ldb_finish(db, st);
    if (rc == JA_OK)
        memcpy(out, counts, sizeof counts);
    return rc;
}

int ladder_db_tournament_faults(ladder_db *db, int64_t tournament_id,
                                uint64_t out[JA_FAULT_COUNT])
{
    static const char what[] = "counting faults";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    if ((rc = ldb_tournament_exists(db, tournament_id)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT f.kind, sum(f.count) FROM result_faults f"
                     " JOIN matches m ON m.id = f.match_id WHERE m.tournament_id = ?1"
                     " GROUP BY f.kind",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    return sum_fault_rows(db, st, what, out);
}

int ladder_db_slot_faults(ladder_db *db, int64_t tournament_id, uint32_t slot,
                          uint64_t out[JA_FAULT_COUNT])
{
    static const char what[] = "counting a participant's faults";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    if ((rc = ldb_tournament_exists(db, tournament_id)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT f.kind, sum(f.count) FROM result_faults f"
                     " JOIN matches m ON m.id = f.match_id"
                     " JOIN match_seats ms ON ms.match_id = f.match_id AND ms.seat = f.seat"
                     " WHERE m.tournament_id = ?1 AND ms.slot = ?2 GROUP BY f.kind",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    sqlite3_bind_int64(st, 2, slot);
    return sum_fault_rows(db, st, what, out);
}

int ladder_db_bot_faults(ladder_db *db, const ladder_key *key, int64_t bot_id,
                         uint64_t out[JA_FAULT_COUNT])
{
    static const char what[] = "counting a bot's faults";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    if ((rc = ldb_check_key(db, key)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT f.kind, sum(f.count) FROM result_faults f"
                     " JOIN results r ON r.match_id = f.match_id AND r.seat = f.seat"
                     " JOIN matches m ON m.id = f.match_id"
                     " JOIN tournaments t ON t.id = m.tournament_id"
                     " JOIN ladders l ON l.id = t.ladder_id"
                     " WHERE r.bot_id = ?1 AND l.game = ?2 AND l.n_seats = ?3 AND l.options = ?4"
                     " GROUP BY f.kind",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, bot_id);
    ldb_bind_key(st, 2, key);
    return sum_fault_rows(db, st, what, out);
}

static void read_rating(sqlite3_stmt *st, void *row)
{
    ladder_rating *r = row;
    r->bot_id = sqlite3_column_int64(st, 0);
    ldb_column_copy(st, 1, r->bot, sizeof r->bot);
    ldb_column_copy(st, 2, r->version, sizeof r->version);
    r->games = sqlite3_column_int64(st, 3);
    r->elo = sqlite3_column_double(st, 4);
    r->wins = sqlite3_column_int64(st, 5);
    r->draws = sqlite3_column_int64(st, 6);
    r->losses = sqlite3_column_int64(st, 7);
}

int ladder_db_ratings(ladder_db *db, const ladder_key *key, ladder_rating **out, uint32_t *out_n)
{
    static const char what[] = "reading ratings";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL || out_n == NULL)
        return JA_EINVAL;
    *out = NULL;
    *out_n = 0;
    if ((rc = ldb_check_key(db, key)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT b.id, b.name, b.version, r.games, r.elo, r.wins, r.draws, r.losses"
                     " FROM ratings r JOIN ladders l ON l.id = r.ladder_id"
                     " JOIN bots b ON b.id = r.bot_id"
                     " WHERE l.game = ?1 AND l.n_seats = ?2 AND l.options = ?3"
                     " ORDER BY r.elo DESC, r.games DESC, b.name, b.id",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    ldb_bind_key(st, 1, key);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **out, read_rating, &rows, out_n)) == JA_OK)
        *out = rows;
    return rc;
}

static void read_summary(sqlite3_stmt *st, void *row)
{
    ladder_summary *s = row;
    s->id = sqlite3_column_int64(st, 0);
    ldb_column_copy(st, 1, s->game, sizeof s->game);
    s->n_seats = (uint32_t)sqlite3_column_int64(st, 2);
    ldb_column_copy(st, 3, s->options, sizeof s->options);
    s->bots = sqlite3_column_int64(st, 4);
    s->matches = sqlite3_column_int64(st, 5);
}

int ladder_db_ladders(ladder_db *db, const char *game, ladder_summary **out, uint32_t *out_n)
{
    static const char what[] = "listing ladders";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL || out_n == NULL)
        return JA_EINVAL;
    *out = NULL;
    *out_n = 0;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT l.id, l.game, l.n_seats, l.options,"
                     " (SELECT count(*) FROM ratings r WHERE r.ladder_id = l.id),"
                     " (SELECT count(*) FROM matches m JOIN tournaments t ON t.id = m.tournament_id"
                     "  WHERE t.ladder_id = l.id AND m.status = 'done')"
                     " FROM ladders l WHERE ?1 IS NULL OR l.game = ?1"
                     " ORDER BY l.game, l.n_seats, l.options",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    ldb_bind_text(st, 1, game);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **out, read_summary, &rows, out_n)) == JA_OK)
        *out = rows;
    return rc;
}

/* The start of a walk over a ladder's rows (the foreach calls, and the
 * pages through begin_ladder_read): checks the handle, the caller's own
 * pointer arguments (args_ok false, a callback or an out missing: JA_EINVAL
 * without a message) and the key, opens one read transaction (a consistent
 * snapshot even while another process records matches: WAL readers do not
 * block the writer), and prepares sql with the key bound to ?1, ?2, ?3. On
 * JA_OK the caller steps *st, gives it back (ldb_finish) and ends the
 * transaction with ldb_rollback(); on failure nothing is left open. */
static int begin_ladder_walk(ladder_db *db, const ladder_key *key, bool args_ok,
                             const char *sql, sqlite3_stmt **st, const char *what)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (!args_ok)
        return JA_EINVAL;
    if ((rc = ldb_check_key(db, key)) != JA_OK)
        return rc;
    if ((rc = ldb_exec(db, "BEGIN", what)) != JA_OK)
        return rc;
    if ((rc = ldb_prepare(db, sql, st, what)) != JA_OK) {
        ldb_rollback(db);
        return rc;
    }
    ldb_bind_key(*st, 1, key);
    return JA_OK;
}

/* Adds the current row of st, one seat of a match in the columns of
 * ladder_db_foreach_match's statement, to *row; on the match's first seat
 * (first, *row zeroed) the match's own fields too. */
static void read_match_seat(sqlite3_stmt *st, ladder_match_row *row, bool first)
{
    if (first) {
        row->match_id = sqlite3_column_int64(st, 0);
        row->tournament_id = sqlite3_column_int64(st, 1);
        row->number = (uint32_t)sqlite3_column_int64(st, 2);
        row->has_seed = sqlite3_column_type(st, 7) != SQLITE_NULL &&
                        ladder_seed_parse((const char *)sqlite3_column_text(st, 7),
                                          &row->seed) == JA_OK;
        row->deal = sqlite3_column_int64(st, 8);
        row->deal_tournament = sqlite3_column_int64(st, 12);
        switch (sqlite3_column_type(st, 13)) {
        case SQLITE_INTEGER:
            row->source_kind = 'i';
            row->source_int = sqlite3_column_int64(st, 13);
            break;
        case SQLITE_TEXT:
            row->source_kind = 's';
            ldb_column_copy(st, 13, row->source_text, sizeof row->source_text);
            break;
        default: row->source_kind = 0;
        }
        row->turns = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 9);
        ldb_column_copy(st, 10, row->digest, sizeof row->digest);
        ldb_column_copy(st, 11, row->finished, sizeof row->finished);
    }
    int64_t seat = sqlite3_column_int64(st, 3);
    if (seat < 0 || seat >= JA_MAX_SEATS)
        return;
    row->bot_id[seat] = sqlite3_column_int64(st, 4);
    row->score[seat] = sqlite3_column_int64(st, 5);
    row->place[seat] = (uint8_t)sqlite3_column_int(st, 6);
    if ((uint32_t)seat + 1 > row->n_seats)
        row->n_seats = (uint32_t)seat + 1;
}

int ladder_db_foreach_match(ladder_db *db, const ladder_key *key, ladder_match_fn fn, void *ctx)
{
    static const char what[] = "reading match results";
    sqlite3_stmt *st;
    int rc = begin_ladder_walk(
        db, key, fn != NULL,
        /* The deal: the first finished match of the ladder with
         * the seed, in any tournament (a window over the rows of
         * this ladder, one sort). */
        "SELECT m.id, m.tournament_id, m.number, r.seat, r.bot_id, r.score, r.place,"
        " m.seed,"
        " CASE WHEN m.seed IS NULL THEN m.id"
        "  ELSE min(m.id) OVER (PARTITION BY m.seed) END,"
        " m.turns, m.digest, m.finished_at,"
        " CASE WHEN m.seed IS NULL THEN m.tournament_id"
        "  ELSE min(m.tournament_id) OVER (PARTITION BY m.seed) END,"
        " t.source"
        " FROM ladders l JOIN tournaments t ON t.ladder_id = l.id"
        " JOIN matches m ON m.tournament_id = t.id"
        " JOIN results r ON r.match_id = m.id"
        " WHERE l.game = ?1 AND l.n_seats = ?2 AND l.options = ?3"
        " AND m.status = 'done' ORDER BY t.id, m.number, r.seat",
        &st, what);
    if (rc != JA_OK)
        return rc;
    ladder_match_row row;
    memset(&row, 0, sizeof row);
    bool have = false;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        bool first = !have || sqlite3_column_int64(st, 0) != row.match_id;
        if (have && first) {
            if ((rc = fn(ctx, &row)) != 0)
                break;
            memset(&row, 0, sizeof row);
        }
        read_match_seat(st, &row, first);
        have = true;
    }
    if (rc == JA_OK && src != SQLITE_ROW && src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    else if (rc == JA_OK && have)
        rc = fn(ctx, &row);
    ldb_finish(db, st);
    ldb_rollback(db); /* ends the read transaction */
    return rc;
}

/* ---- Pages of matches, through indexes ------------------------------------- */

/* begin_ladder_walk for the calls that find a ladder's rows through its
 * id: on JA_OK the read transaction is open (end it with ldb_rollback()) and
 * *ladder_id is the ladder's id, 0 for an unknown ladder. */
static int begin_ladder_read(ladder_db *db, const ladder_key *key, bool args_ok,
                             int64_t *ladder_id, const char *what)
{
    sqlite3_stmt *st;
    int rc = begin_ladder_walk(db, key, args_ok, ldb_ladder_lookup_sql, &st, what);
    if (rc != JA_OK)
        return rc;
    *ladder_id = 0;
    rc = ldb_step_int(db, st, ladder_id, what);
    if (rc == JA_ENOTFOUND)
        rc = JA_OK;
    if (rc != JA_OK)
        ldb_rollback(db);
    return rc;
}

/* Finished match `id` of ladder ladder_id into *row, its seats in order,
 * deal being the match itself: a few primary-key searches. JA_ENOTFOUND,
 * without a message, when there is no such finished match in the ladder. */
static int fetch_match(ladder_db *db, int64_t ladder_id, int64_t id, ladder_match_row *row,
                       const char *what)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT m.id, m.tournament_id, m.number, r.seat, r.bot_id, r.score,"
                         " r.place, m.seed, m.id, m.turns, m.digest, m.finished_at,"
                         " m.tournament_id, t.source"
                         " FROM matches m JOIN tournaments t ON t.id = m.tournament_id"
                         " JOIN results r ON r.match_id = m.id"
                         " WHERE m.id = ?1 AND t.ladder_id = ?2 AND m.status = 'done'"
                         " ORDER BY r.seat",
                         &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, ladder_id);
    memset(row, 0, sizeof *row);
    bool first = true;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        read_match_seat(st, row, first);
        first = false;
    }
    rc = src != SQLITE_DONE ? ldb_sql_fail(db, src, what) : first ? JA_ENOTFOUND : JA_OK;
    ldb_finish(db, st);
    return rc;
}

static void read_id(sqlite3_stmt *st, void *row)
{
    *(int64_t *)row = sqlite3_column_int64(st, 0);
}

/* The newest finished matches of ladder ?1 with id < ?2, at most ?3, of
 * bot ?4 (when `bot` is "r.bot_id = ?4 AND "), each once (GROUP BY: a bot
 * may hold two seats of a match). Results exist only for finished matches,
 * so the walk down results_bot (bot_id, match_id, seat) or the primary key
 * of results (match_id, seat) never steps over a planned match, where a
 * walk down matches would step over a whole unplayed plan. CROSS JOIN fixes the
 * join order: left to itself, SQLite starts from the ladder's tournaments
 * and sorts every match of the ladder, the scan this exists to avoid. */
#define PAGE_SQL(bot)                                                                             \
    "SELECT r.match_id FROM results r CROSS JOIN matches m CROSS JOIN tournaments t"             \
    " WHERE " bot "r.match_id < ?2 AND m.id = r.match_id AND t.id = m.tournament_id"            \
    " AND t.ladder_id = ?1 AND m.status = 'done'"                                                 \
    " GROUP BY r.match_id ORDER BY r.match_id DESC LIMIT ?3"

/* Appends the ids PAGE_SQL selects (at most n) to ids[*n_ids]. */
static int page_ids(ladder_db *db, int64_t ladder_id, int64_t before, uint32_t n,
                    const int64_t *bot_id, int64_t *ids, uint32_t *n_ids, const char *what)
{
    sqlite3_stmt *st;
    int rc =
        ldb_prepare(db, bot_id != NULL ? PAGE_SQL("r.bot_id = ?4 AND ") : PAGE_SQL(""), &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, ladder_id);
    sqlite3_bind_int64(st, 2, before);
    sqlite3_bind_int64(st, 3, n);
    if (bot_id != NULL)
        sqlite3_bind_int64(st, 4, *bot_id);
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW)
        ids[(*n_ids)++] = sqlite3_column_int64(st, 0);
    if (src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    ldb_finish(db, st);
    return rc;
}

static int cmp_i64_desc(const void *a, const void *b)
{
    return ldb_cmp_i64(b, a);
}

/* Sorts ids newest first and drops repeats; returns how many stay. */
static uint32_t newest_distinct(int64_t *ids, uint32_t n)
{
    if (n > 1) /* ids is NULL when there are none */
        qsort(ids, n, sizeof *ids, cmp_i64_desc);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (k == 0 || ids[i] != ids[k - 1])
            ids[k++] = ids[i];
    return k;
}

/* The ids of the page: the limit + 1 newest of each bot named `name` (or
 * of the whole ladder), merged, so that *n_ids > limit says there are
 * more. Every match of the true page is among them: a match that is among
 * the limit + 1 newest of the union is among the limit + 1 newest of each
 * of its bots. On JA_OK *ids is owned by the caller (NULL when none). */
static int page_select(ladder_db *db, int64_t ladder_id, const char *name, int64_t before,
                       uint32_t limit, int64_t **ids, uint32_t *n_ids, const char *what)
{
    int64_t *bots = NULL;
    uint32_t n_bots = ladder_id != 0;
    int rc = JA_OK;
    *ids = NULL;
    *n_ids = 0;
    if (name != NULL && ladder_id != 0) {
        /* bots_identity leads with the name: one search finds every version. */
        sqlite3_stmt *st;
        rc = ldb_prepare(db, "SELECT id FROM bots WHERE name = ?1", &st, what);
        if (rc != JA_OK)
            return rc;
        ldb_bind_text(st, 1, name);
        void *rows;
        if ((rc = ldb_collect_rows(db, st, what, sizeof *bots, read_id, &rows, &n_bots)) != JA_OK)
            return rc;
        bots = rows;
    }
    if (n_bots > 0 && (*ids = malloc((size_t)n_bots * (limit + 1) * sizeof **ids)) == NULL)
        rc = JA_ENOMEM;
    for (uint32_t i = 0; rc == JA_OK && i < n_bots; i++)
        rc = page_ids(db, ladder_id, before, limit + 1, name != NULL ? &bots[i] : NULL, *ids,
                      n_ids, what);
    free(bots);
    if (rc != JA_OK) {
        free(*ids);
        *ids = NULL;
        return rc;
    }
    *n_ids = newest_distinct(*ids, *n_ids);
    return JA_OK;
}

int ladder_db_match_page(ladder_db *db, const ladder_key *key, const char *name, int64_t before,
                         uint32_t limit, ladder_match_row **out, uint32_t *out_n, bool *more)
{
    static const char what[] = "reading a page of matches";
    int64_t ladder_id;
    int rc = begin_ladder_read(db, key, out != NULL && out_n != NULL && more != NULL,
                               &ladder_id, what);
    if (rc != JA_OK)
        return rc;
    if (limit < 1 || limit > LADDER_PAGE_MAX ||
        (name != NULL && (name[0] == '\0' || strlen(name) >= LADDER_NAME_MAX))) {
        ldb_set_msg(db, "a page of matches takes 1 to %d of them and a bot name of 1 to %d bytes",
                    LADDER_PAGE_MAX, LADDER_NAME_MAX - 1);
        ldb_rollback(db);
        return JA_EINVAL;
    }
    int64_t *ids = NULL;
    uint32_t n = 0;
    rc = page_select(db, ladder_id, name, before > 0 ? before : INT64_MAX, limit, &ids, &n, what);
    ladder_match_row *rows = NULL;
    bool over = rc == JA_OK && n > limit;
    if (over)
        n = limit;
    if (rc == JA_OK && n > 0 && (rows = malloc(n * sizeof *rows)) == NULL)
        rc = JA_ENOMEM;
    for (uint32_t i = 0; rc == JA_OK && i < n; i++)
        /* Found a moment ago in the same snapshot: missing now is a fault. */
        if ((rc = fetch_match(db, ladder_id, ids[i], &rows[i], what)) == JA_ENOTFOUND)
            rc = ldb_sql_fail(db, SQLITE_DONE, what);
    free(ids);
    ldb_rollback(db); /* ends the read transaction */
    if (rc != JA_OK) {
        free(rows);
        return rc;
    }
    *out = rows;
    *out_n = n;
    *more = over;
    return JA_OK;
}

int ladder_db_match_row(ladder_db *db, const ladder_key *key, int64_t tournament_id,
                        uint32_t number, ladder_match_row *out)
{
    static const char what[] = "reading a match";
    int64_t ladder_id, id = 0;
    int rc = begin_ladder_read(db, key, out != NULL, &ladder_id, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db, "SELECT id FROM matches WHERE tournament_id = ?1 AND number = ?2", &st,
                     what);
    if (rc == JA_OK) {
        sqlite3_bind_int64(st, 1, tournament_id);
        sqlite3_bind_int64(st, 2, number);
        rc = ldb_step_int(db, st, &id, what);
    }
    /* fetch_match checks the ladder and that the match is finished. */
    ladder_match_row row;
    if (rc == JA_OK)
        rc = fetch_match(db, ladder_id, id, &row, what);
    if (rc == JA_ENOTFOUND)
        ldb_set_msg(db,
                    "no finished match %u of tournament %" PRId64 " in the ladder of %s with %u"
                    " seats and options '%s' in database '%s'",
                    number, tournament_id, key->game, key->n_seats, key->options, db->path);
    ldb_rollback(db); /* ends the read transaction */
    if (rc == JA_OK)
        *out = row;
    return rc;
}

static void read_bot_row(sqlite3_stmt *st, void *row)
{
    ladder_bot_row *b = row;
    b->id = sqlite3_column_int64(st, 0);
    ldb_column_copy(st, 1, b->name, sizeof b->name);
    ldb_column_copy(st, 2, b->version, sizeof b->version);
    ldb_column_copy(st, 3, b->kind, sizeof b->kind);
    ldb_column_copy(st, 4, b->sha256, sizeof b->sha256);
}

int ladder_db_bot_row(ladder_db *db, int64_t id, ladder_bot_row *out)
{
    static const char what[] = "reading a bot";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT id, name, version, kind, IFNULL(sha256, '') FROM bots WHERE id = ?1",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        read_bot_row(st, out);
    }
    rc = src == SQLITE_ROW    ? JA_OK
         : src == SQLITE_DONE ? JA_ENOTFOUND
                              : ldb_sql_fail(db, src, what);
    ldb_finish(db, st);
    return rc;
}

int ladder_db_ladder_bots(ladder_db *db, const ladder_key *key, ladder_bot_row **out,
                          uint32_t *out_n)
{
    static const char what[] = "reading the bots of a ladder";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL || out_n == NULL)
        return JA_EINVAL;
    *out = NULL;
    *out_n = 0;
    if ((rc = ldb_check_key(db, key)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT b.id, b.name, b.version, b.kind, IFNULL(b.sha256, '') FROM bots b"
                     " WHERE b.id IN (SELECT r.bot_id FROM ladders l"
                     "  JOIN tournaments t ON t.ladder_id = l.id"
                     "  JOIN matches m ON m.tournament_id = t.id"
                     "  JOIN results r ON r.match_id = m.id"
                     "  WHERE l.game = ?1 AND l.n_seats = ?2 AND l.options = ?3)"
                     " ORDER BY b.id",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    ldb_bind_key(st, 1, key);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **out, read_bot_row, &rows, out_n)) == JA_OK)
        *out = rows;
    return rc;
}

int ladder_db_foreach_seat(ladder_db *db, const ladder_key *key, int64_t tournament_id,
                           ladder_seat_fn fn, void *ctx)
{
    static const char what[] = "reading match details";
    sqlite3_stmt *st;
    int rc = begin_ladder_walk(
        db, key, fn != NULL,
        "SELECT m.id, m.tournament_id, m.number, r.seat, r.bot_id, r.elo_before,"
        " r.elo_delta, IFNULL(m.replay, ''),"
        " (SELECT group_concat(f.kind || '=' || f.count, ' ') FROM result_faults f"
        "  WHERE f.match_id = r.match_id AND f.seat = r.seat)"
        " FROM ladders l JOIN tournaments t ON t.ladder_id = l.id"
        " JOIN matches m ON m.tournament_id = t.id"
        " JOIN results r ON r.match_id = m.id"
        " WHERE l.game = ?1 AND l.n_seats = ?2 AND l.options = ?3"
        " AND m.status = 'done' AND (?4 <= 0 OR t.id = ?4)"
        " ORDER BY t.id, m.number, r.seat",
        &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 4, tournament_id);
    ladder_seat_detail *d = malloc(sizeof *d);
    int src = SQLITE_DONE;
    if (d == NULL)
        rc = JA_ENOMEM;
    while (rc == JA_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        memset(d, 0, sizeof *d);
        d->match_id = sqlite3_column_int64(st, 0);
        d->tournament_id = sqlite3_column_int64(st, 1);
        d->number = (uint32_t)sqlite3_column_int64(st, 2);
        d->seat = (uint32_t)sqlite3_column_int64(st, 3);
        d->bot_id = sqlite3_column_int64(st, 4);
        d->elo_before = sqlite3_column_double(st, 5);
        d->elo_delta = sqlite3_column_double(st, 6);
        ldb_column_copy(st, 7, d->replay, sizeof d->replay);
        /* "kind=count kind=count"; kinds unknown to this build are skipped. */
        char kinds[512];
        ldb_column_copy(st, 8, kinds, sizeof kinds);
        char *save = NULL;
        for (char *kv = strtok_r(kinds, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
            char *eq = strchr(kv, '=');
            if (eq == NULL)
                continue;
            *eq = '\0';
            for (int k = 1; k < JA_FAULT_COUNT; k++)
                if (strcmp(kv, ja_fault_name(k)) == 0)
                    d->faults[k] += (uint32_t)strtoul(eq + 1, NULL, 10);
        }
        rc = fn(ctx, d);
    }
    if (rc == JA_OK && src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    free(d);
    ldb_finish(db, st);
    ldb_rollback(db); /* ends the read transaction */
    return rc;
}

/* ---- Imports ----------------------------------------------------------------- */

/* Everything about an import that can be checked without the database;
 * messages name the file and line. */
static int check_import(ladder_db *db, const ladder_import *imp)
{
    if (imp == NULL || imp->file == NULL || imp->format == NULL || imp->sha256 == NULL ||
        (imp->n_matches && (imp->matches == NULL || imp->seats == NULL)) ||
        (imp->n_ladders && imp->ladders == NULL) || (imp->n_bots && imp->bots == NULL) ||
        (imp->n_sources && imp->sources == NULL)) {
        ldb_set_msg(db, "no import given");
        return JA_EINVAL;
    }
    if (strcmp(imp->format, "pgn") != 0 && strcmp(imp->format, "jsonl") != 0) {
        ldb_set_msg(db, "%s: unknown import format '%s'", imp->file, imp->format);
        return JA_EINVAL;
    }
    if (!ldb_is_sha256_hex(imp->sha256)) {
        ldb_set_msg(db, "%s: the file hash is not 64 lowercase hex digits", imp->file);
        return JA_EINVAL;
    }
    if (imp->n_matches == 0) {
        ldb_set_msg(db, "%s: no results to import", imp->file);
        return JA_EINVAL;
    }
    int rc;
    for (uint32_t i = 0; i < imp->n_ladders; i++)
        if ((rc = ldb_check_key(db, &imp->ladders[i])) != JA_OK)
            return rc;
    for (uint32_t i = 0; i < imp->n_bots; i++)
        if ((rc = ldb_check_bot(db, &imp->bots[i], true)) != JA_OK)
            return rc;
    for (uint32_t i = 0; i < imp->n_sources; i++) {
        const char *l = imp->sources[i].label;
        if (l == NULL || l[0] == '\0' || strlen(l) >= LADDER_SOURCE_MAX) {
            ldb_set_msg(db, "%s: a source tournament name is empty or longer than %d bytes",
                        imp->file, LADDER_SOURCE_MAX - 1);
            return JA_EINVAL;
        }
    }
    for (uint32_t k = 0; k < imp->n_matches; k++) {
        const ladder_import_match *m = &imp->matches[k];
        const char *bad = NULL;
        if (m->ladder >= imp->n_ladders)
            bad = "no such ladder";
        else if (m->n_seats != imp->ladders[m->ladder].n_seats)
            bad = "the seat count differs from its ladder's";
        else if ((uint64_t)m->first_seat + m->n_seats > imp->n_seats)
            bad = "its seats are outside the seat table";
        else if (m->source > imp->n_sources)
            bad = "no such source tournament";
        for (uint32_t s = 0; bad == NULL && s < m->n_seats; s++) {
            const ladder_import_seat *st = &imp->seats[m->first_seat + s];
            if (st->bot >= imp->n_bots)
                bad = "no such bot";
            else if (st->place < 1 || st->place > m->n_seats)
                bad = "a place outside 1..seats";
        }
        bool two = false;
        for (uint32_t s = 1; bad == NULL && s < m->n_seats; s++)
            if (imp->seats[m->first_seat + s].bot != imp->seats[m->first_seat].bot)
                two = true;
        if (bad == NULL && !two)
            bad = "a match needs at least two different bots";
        if (bad != NULL) {
            ldb_set_msg(db, "%s:%u: %s", imp->file, m->line, bad);
            return JA_EINVAL;
        }
    }
    return JA_OK;
}

static int check_not_imported(ladder_db *db, const ladder_import *imp)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db, "SELECT id, file, created_at FROM imports WHERE sha256 = ?1", &st,
                         "looking for an earlier import");
    if (rc != JA_OK)
        return rc;
    ldb_bind_text(st, 1, imp->sha256);
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        ldb_set_msg(db, "%s: this file was already imported into '%s' (import %lld of '%s', %s)",
                    imp->file, db->path, (long long)sqlite3_column_int64(st, 0),
                    (const char *)sqlite3_column_text(st, 1),
                    (const char *)sqlite3_column_text(st, 2));
        rc = JA_ESTATE;
    } else if (src != SQLITE_DONE) {
        rc = ldb_sql_fail(db, src, "looking for an earlier import");
    }
    ldb_finish(db, st);
    return rc;
}

/* True when the matches of imp with ladder and source as first's each have
 * a number of their own in the file (0 .. INT32_MAX, distinct): the
 * imported tournament then keeps them. *ok false on ENOMEM too. */
static int file_numbers(const ladder_import *imp, uint32_t first, bool *ok)
{
    const ladder_import_match *m0 = &imp->matches[first];
    *ok = false;
    int64_t *num = malloc(imp->n_matches * sizeof *num);
    if (num == NULL)
        return JA_ENOMEM;
    uint32_t n = 0;
    for (uint32_t k = first; k < imp->n_matches; k++) {
        const ladder_import_match *m = &imp->matches[k];
        if (m->ladder != m0->ladder || m->source != m0->source)
            continue;
        if (m->number < 0 || m->number > INT32_MAX) {
            free(num);
            return JA_OK;
        }
        num[n++] = m->number;
    }
    qsort(num, n, sizeof *num, ldb_cmp_i64);
    *ok = true;
    for (uint32_t i = 1; i < n; i++)
        if (num[i] == num[i - 1])
            *ok = false;
    free(num);
    return JA_OK;
}

/* Stores one imported tournament: the matches of imp with ladder `lad` and
 * source `src` (first is the first of them). slot is scratch of n_bots. */
static int import_tournament(ladder_db *db, const ladder_import *imp, int64_t import_id,
                             uint32_t first, int32_t *slot, int64_t *bot_id)
{
    static const char what[] = "importing results";
    const ladder_import_match *m0 = &imp->matches[first];
    int64_t ladder_id = 0;
    int rc = ldb_ladder_get_or_add(db, &imp->ladders[m0->ladder], &ladder_id);
    if (rc != JA_OK)
        return rc;
    /* Participants in order of first appearance; matches and shared seeds. */
    for (uint32_t b = 0; b < imp->n_bots; b++)
        slot[b] = -1;
    uint32_t n_part = 0, n_m = 0;
    for (uint32_t k = first; k < imp->n_matches; k++) {
        const ladder_import_match *m = &imp->matches[k];
        if (m->ladder != m0->ladder || m->source != m0->source)
            continue;
        n_m++;
        for (uint32_t s = 0; s < m->n_seats; s++) {
            uint32_t b = imp->seats[m->first_seat + s].bot;
            if (slot[b] < 0)
                slot[b] = (int32_t)n_part++;
        }
    }
    bool keep_numbers;
    if ((rc = file_numbers(imp, first, &keep_numbers)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "INSERT INTO tournaments (ladder_id, seed, format, rounds, duplicate,"
                     " n_participants, n_matches, status, created_at, import_id, source)"
                     " VALUES (?1, NULL, 'import', 1, 0, ?2, ?3, 'running', " LDB_SQL_NOW
                     ", ?4, ?5)",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, ladder_id);
    sqlite3_bind_int64(st, 2, n_part);
    sqlite3_bind_int64(st, 3, n_m);
    sqlite3_bind_int64(st, 4, import_id);
    /* The source's name as the file gave it: an integer stays one. */
    if (m0->source > 0) {
        const ladder_import_source *so = &imp->sources[m0->source - 1];
        char *end = NULL;
        errno = 0;
        long long v = so->integer ? strtoll(so->label, &end, 10) : 0;
        if (so->integer && errno == 0 && end != so->label && *end == '\0')
            sqlite3_bind_int64(st, 5, v);
        else
            ldb_bind_text(st, 5, so->label);
    }
    int64_t tid;
    if ((rc = ldb_insert_row(db, st, &tid, what)) != JA_OK)
        return rc;

    /* Participants: display names unique in the tournament. */
    rc = ldb_prepare(db,
                     "INSERT INTO participants (tournament_id, slot, bot_id, name)"
                     " VALUES (?1, ?2, ?3, ?4)",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    for (uint32_t b = 0; rc == JA_OK && b < imp->n_bots; b++) {
        if (slot[b] < 0)
            continue;
        if ((rc = ldb_bot_get_or_add(db, &imp->bots[b], &bot_id[b])) != JA_OK)
            break;
        char name[LADDER_NAME_MAX];
        int count = 1;
        for (uint32_t c = 0; c < imp->n_bots; c++)
            if (slot[c] >= 0 && slot[c] < slot[b] &&
                strcmp(imp->bots[c].name, imp->bots[b].name) == 0)
                count++;
        if (count == 1)
            snprintf(name, sizeof name, "%s", imp->bots[b].name);
        else
            snprintf(name, sizeof name, "%.118s#%d", imp->bots[b].name, count);
        sqlite3_bind_int64(st, 1, tid);
        sqlite3_bind_int64(st, 2, slot[b]);
        sqlite3_bind_int64(st, 3, bot_id[b]);
        sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
        rc = ldb_step_done(db, st, what);
    }
    ldb_finish(db, st);
    if (rc != JA_OK)
        return rc;

    /* The "plan": the matches in file order, then each recorded. */
    sqlite3_stmt *mst = NULL, *sst = NULL;
    rc = ldb_prepare(db,
                     "INSERT INTO matches (tournament_id, number, round, combo, rotation, seed)"
                     " VALUES (?1, ?2, 0, ?2, 0, ?3)",
                     &mst, what);
    if (rc == JA_OK)
        rc = ldb_prepare(db, "INSERT INTO match_seats (match_id, seat, slot) VALUES (?1, ?2, ?3)",
                         &sst, what);
    uint32_t number = 0;
    for (uint32_t k = first; rc == JA_OK && k < imp->n_matches; k++) {
        const ladder_import_match *m = &imp->matches[k];
        if (m->ladder != m0->ladder || m->source != m0->source)
            continue;
        char seed[21];
        uint32_t num = keep_numbers ? (uint32_t)m->number : number;
        sqlite3_bind_int64(mst, 1, tid);
        sqlite3_bind_int64(mst, 2, num);
        ldb_bind_text(mst, 3, m->has_seed ? ladder_seed_format(m->seed, seed) : NULL);
        rc = ldb_step_done(db, mst, what);
        int64_t mid = sqlite3_last_insert_rowid(db->sql);
        for (uint32_t s = 0; rc == JA_OK && s < m->n_seats; s++) {
            sqlite3_bind_int64(sst, 1, mid);
            sqlite3_bind_int64(sst, 2, s);
            sqlite3_bind_int64(sst, 3, slot[imp->seats[m->first_seat + s].bot]);
            rc = ldb_step_done(db, sst, what);
        }
        if (rc != JA_OK)
            break;
        ladder_match_result r;
        memset(&r, 0, sizeof r);
        r.outcome.n_seats = m->n_seats;
        for (uint32_t s = 0; s < m->n_seats; s++) {
            r.outcome.score[s] = imp->seats[m->first_seat + s].score;
            r.outcome.place[s] = imp->seats[m->first_seat + s].place;
        }
        r.turns = m->turns >= 0 ? (uint32_t)m->turns : 0;
        r.digest = m->digest[0] ? m->digest : NULL;
        match_ctx c;
        memset(&c, 0, sizeof c);
        c.tid = tid;
        c.number = num;
        c.turns_unknown = m->turns < 0;
        snprintf(c.what, sizeof c.what, "importing %s:%u", imp->file, m->line);
        rc = record_in_tx(db, &c, &r);
        number++;
    }
    ldb_finish(db, mst);
    ldb_finish(db, sst);
    return rc;
}

int ladder_db_import(ladder_db *db, const ladder_import *imp, ladder_import_result *out)
{
    static const char what[] = "importing results";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if ((rc = check_import(db, imp)) != JA_OK)
        return rc;
    int32_t *slot = malloc((imp->n_bots ? imp->n_bots : 1) * sizeof *slot);
    int64_t *bot_id = malloc((imp->n_bots ? imp->n_bots : 1) * sizeof *bot_id);
    bool *done = calloc(imp->n_matches, sizeof *done);
    if (slot == NULL || bot_id == NULL || done == NULL) {
        free(slot);
        free(bot_id);
        free(done);
        return JA_ENOMEM;
    }
    ladder_import_result res = {0, 0, imp->n_matches};
    if ((rc = ldb_begin_write(db, what)) != JA_OK)
        goto out;
    rc = check_not_imported(db, imp);
    sqlite3_stmt *st = NULL;
    if (rc == JA_OK)
        rc = ldb_prepare(db,
                         "INSERT INTO imports (file, format, sha256, matches, skipped, created_at)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, " LDB_SQL_NOW ")",
                         &st, what);
    if (rc == JA_OK) {
        ldb_bind_text(st, 1, imp->file);
        ldb_bind_text(st, 2, imp->format);
        ldb_bind_text(st, 3, imp->sha256);
        sqlite3_bind_int64(st, 4, imp->n_matches);
        sqlite3_bind_int64(st, 5, imp->skipped);
        rc = ldb_step_done(db, st, what);
        res.import_id = sqlite3_last_insert_rowid(db->sql);
    }
    ldb_finish(db, st);
    /* One tournament per (ladder, source), in order of first appearance. */
    for (uint32_t k = 0; rc == JA_OK && k < imp->n_matches; k++) {
        if (done[k])
            continue;
        for (uint32_t j = k; j < imp->n_matches; j++)
            if (imp->matches[j].ladder == imp->matches[k].ladder &&
                imp->matches[j].source == imp->matches[k].source)
                done[j] = true;
        rc = import_tournament(db, imp, res.import_id, k, slot, bot_id);
        res.tournaments++;
    }
    if (rc == JA_OK)
        rc = ldb_commit(db, what);
    else
        ldb_rollback(db);
out:
    free(slot);
    free(bot_id);
    free(done);
    if (rc == JA_OK && out != NULL)
        *out = res;
    return rc;
}
