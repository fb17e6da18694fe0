/* The ladder store's handle on SQLite (see ladder_db.h and docs/database.md):
 * opening and closing, messages and error mapping, the statement cache and
 * the SQL helpers every file of the store shares (ladder_db_int.h, which
 * also states the invariants they all keep), transactions, the migrations
 * driver, and seeds. */
#include "ladder_db.h"

#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "jackarena/ja_error.h"
#include "ladder_db_int.h"
#include "ja_xalloc.h"

/* ---- Messages and error mapping -------------------------------------------- */

void ldb_set_msg(ladder_db *db, const char *fmt, ...)
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

int ldb_sql_fail(ladder_db *db, int src, const char *what)
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

int ldb_enter(ladder_db *db)
{
    if (db == NULL)
        return JA_EINVAL;
    if (db->sql == NULL)
        return JA_ESTATE;
    db->errmsg[0] = '\0';
    return JA_OK;
}

/* ---- Small SQL helpers ----------------------------------------------------- */

int ldb_prepare(ladder_db *db, const char *sql, sqlite3_stmt **st, const char *what)
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

void ldb_finish(ladder_db *db, sqlite3_stmt *st)
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

int ldb_step_done(ladder_db *db, sqlite3_stmt *st, const char *what)
{
    int src = sqlite3_step(st);
    int rc = src == SQLITE_DONE ? JA_OK : ldb_sql_fail(db, src, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

int ldb_insert_row(ladder_db *db, sqlite3_stmt *st, int64_t *out_id, const char *what)
{
    int rc = ldb_step_done(db, st, what);
    ldb_finish(db, st);
    if (rc == JA_OK)
        *out_id = sqlite3_last_insert_rowid(db->sql);
    return rc;
}

int ldb_exec(ladder_db *db, const char *sql, const char *what)
{
    int src = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);
    return src == SQLITE_OK ? JA_OK : ldb_sql_fail(db, src, what);
}

int ldb_begin_write(ladder_db *db, const char *what)
{
    return ldb_exec(db, "BEGIN IMMEDIATE", what);
}

void ldb_rollback(ladder_db *db)
{
    if (!sqlite3_get_autocommit(db->sql))
        sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

int ldb_commit(ladder_db *db, const char *what)
{
    int rc = ldb_exec(db, "COMMIT", what);
    if (rc != JA_OK)
        ldb_rollback(db);
    return rc;
}

int ldb_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s == NULL ? sqlite3_bind_null(st, i) : sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

void ldb_bind_key(sqlite3_stmt *st, int i, const ladder_key *k)
{
    ldb_bind_text(st, i, k->game);
    sqlite3_bind_int64(st, i + 1, k->n_seats);
    ldb_bind_text(st, i + 2, k->options);
}

int ldb_step_int(ladder_db *db, sqlite3_stmt *st, int64_t *out, const char *what)
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

void ldb_column_copy(sqlite3_stmt *st, int i, char *buf, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(buf, cap, "%s", t != NULL ? (const char *)t : "");
}

int ldb_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int ldb_collect_rows(ladder_db *db, sqlite3_stmt *st, const char *what, size_t row_size,
                     ldb_read_row_fn read_row, void **out, uint32_t *out_n)
{
    unsigned char *a = NULL;
    size_t n = 0, cap = 0;
    int rc = JA_OK, src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            size_t c = cap ? cap * 2 : 16;
            a = ja_xrealloc(a, c * row_size);
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

/* Opens the connection, read and write, with extended result codes and the
 * busy timeout. */
static int connect_file(ladder_db *db)
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
    return JA_OK;
}

/* Reads the file header: JA_EFORMAT for a file that is not ours (another
 * program's, or one with tables of its own), JA_EVERSION for a schema newer
 * than this code; else JA_OK with its schema version in *version. */
static int check_header(ladder_db *db, int64_t *version)
{
    int64_t app_id, objects;
    int rc = query_int(db, "PRAGMA application_id", &app_id, "reading the file header");
    if (rc == JA_OK)
        rc = query_int(db, "PRAGMA user_version", version, "reading the schema version");
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
    if (app_id == 0 && (*version != 0 || objects != 0)) {
        ldb_set_msg(db,
                    "'%s' is a SQLite database with tables of its own, not a Jack Arena database",
                    db->path);
        return JA_EFORMAT;
    }
    if (*version > LADDER_DB_SCHEMA_VERSION) {
        ldb_set_msg(db,
                    "database '%s' has schema version %" PRId64
                    ", newer than this build of Jack Arena knows (%d): use a newer arena",
                    db->path, *version, LADDER_DB_SCHEMA_VERSION);
        return JA_EVERSION;
    }
    return JA_OK;
}

/* Switches the file to WAL mode; JA_EIO when it stays in another mode,
 * which only an in-memory or temporary database (is_memory_path) may. */
static int use_wal(ladder_db *db)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db, "PRAGMA journal_mode = WAL", &st, "switching to WAL mode");
    if (rc != JA_OK)
        return rc;
    int src = sqlite3_step(st);
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
    return JA_OK;
}

/* The body of ladder_db_open once the handle exists. The order matters:
 * nothing is written (not even the journal mode, which rewrites the file
 * header) before the file is known to be ours and not too new. */
static int open_file(ladder_db *db)
{
    int64_t version = 0;
    int rc = connect_file(db);
    if (rc == JA_OK)
        rc = check_header(db, &version);
    if (rc == JA_OK)
        rc = use_wal(db);
    /* FULL: a commit survives a power cut, not only a crash of the
     * process; one fsync per finished match is cheap next to a match. */
    if (rc == JA_OK)
        rc = ldb_exec(db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", "configuring");
    if (rc == JA_OK && version < LADDER_DB_SCHEMA_VERSION)
        rc = migrate(db);
    return rc;
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
    char *copy = ja_xstrdup(db->path);
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
    ladder_db *db = ja_xcalloc(1, sizeof *db);
    db->path = ja_xstrdup(path);
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
