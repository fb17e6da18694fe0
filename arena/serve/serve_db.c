/* The server's own state (serve_db.h). */
#include "serve/serve_db.h"

#include "core/util.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "ja_xalloc.h"

#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct arena_serve_db {
    sqlite3 *sql;
    pthread_mutex_t mu;
};

/* Version 1 of the schema. A later change adds a migration after it. */
static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS authors ("
    "  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, token_id TEXT NOT NULL,"
    "  token_hash TEXT NOT NULL, created INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS authors_token ON authors(token_id);"
    "CREATE TABLE IF NOT EXISTS versions ("
    "  id INTEGER PRIMARY KEY, author INTEGER NOT NULL REFERENCES authors(id),"
    "  number INTEGER NOT NULL, sha256 TEXT NOT NULL, file TEXT NOT NULL,"
    "  status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', report TEXT,"
    "  faults INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL, updated INTEGER NOT NULL,"
    "  UNIQUE (author, number), UNIQUE (author, sha256));"
    "CREATE TABLE IF NOT EXISTS batches ("
    "  id INTEGER PRIMARY KEY, seed TEXT NOT NULL, tournament INTEGER,"
    "  state TEXT NOT NULL, versions TEXT NOT NULL, created INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS batches_state ON batches(state);"
    "CREATE INDEX IF NOT EXISTS batches_tournament ON batches(tournament);"
    "INSERT OR IGNORE INTO meta VALUES ('schema', '1');";

/* Version 2 (docs/server.md, "State"):
 *  - versions gain `params` (a submission's parameters, KEY=VALUE items
 *    joined by ':'), and the same file is a new version with other
 *    parameters: UNIQUE (author, sha256) becomes UNIQUE (author, sha256,
 *    params). SQLite cannot change a UNIQUE in place, so the table is
 *    rebuilt (sqlite.org/lang_altertable.html, section 7), ids kept; nothing
 *    references it yet, so foreign keys may stay on.
 *  - batches gain `reason` (why a batch failed) and `ended`, the state
 *    `failed`, and batch_versions: a batch's versions by slot, indexed by
 *    version, so that a bot's page finds its batches without a scan.
 *  - One active version per author: an author's older active versions are
 *    retired as replaced by the newest (schema 1 let them play each other,
 *    which stopped the server: "participant name given twice").
 *  - Every unfinished batch of schema 1 is failed: it was planned with
 *    duplicate deals, which the server no longer plays (docs/server.md,
 *    "Deals"). */
static const char SCHEMA_V2[] =
    "CREATE TABLE versions_v2 ("
    "  id INTEGER PRIMARY KEY, author INTEGER NOT NULL REFERENCES authors(id),"
    "  number INTEGER NOT NULL, sha256 TEXT NOT NULL, file TEXT NOT NULL,"
    "  params TEXT NOT NULL DEFAULT '',"
    "  status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', report TEXT,"
    "  faults INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL, updated INTEGER NOT NULL,"
    "  UNIQUE (author, number), UNIQUE (author, sha256, params));"
    "INSERT INTO versions_v2 (id, author, number, sha256, file, status, reason, report, faults,"
    "  created, updated) SELECT id, author, number, sha256, file, status, reason, report,"
    "  faults, created, updated FROM versions;"
    "DROP TABLE versions;"
    "ALTER TABLE versions_v2 RENAME TO versions;"
    "CREATE INDEX versions_status ON versions(status, id);"
    "ALTER TABLE batches ADD COLUMN reason TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE batches ADD COLUMN ended INTEGER;"
    "CREATE TABLE batch_versions ("
    "  batch INTEGER NOT NULL REFERENCES batches(id), slot INTEGER NOT NULL,"
    "  version INTEGER NOT NULL REFERENCES versions(id), PRIMARY KEY (batch, slot)"
    ") WITHOUT ROWID;"
    "CREATE INDEX batch_versions_version ON batch_versions(version, batch);"
    "WITH RECURSIVE split(batch, slot, rest, v) AS ("
    "  SELECT id, -1, versions || ',', NULL FROM batches"
    "  UNION ALL SELECT batch, slot + 1, substr(rest, instr(rest, ',') + 1),"
    "  CAST(substr(rest, 1, instr(rest, ',') - 1) AS INTEGER) FROM split WHERE rest != '')"
    "INSERT INTO batch_versions SELECT batch, slot, v FROM split"
    "  WHERE slot >= 0 AND v IN (SELECT id FROM versions);"
    "UPDATE batches SET state = 'failed', ended = strftime('%s', 'now'), reason = 'planned by"
    " an earlier server, with duplicate deals: not played on (a deal is played once)'"
    " WHERE state != 'done';"
    "CREATE TEMP TABLE newest AS SELECT author, max(number) AS number FROM versions"
    "  WHERE status = 'active' GROUP BY author;"
    "UPDATE versions SET status = 'retired', updated = strftime('%s', 'now'),"
    "  reason = 'replaced by version ' ||"
    "  (SELECT n.number FROM newest n WHERE n.author = versions.author)"
    "  WHERE status = 'active' AND number <"
    "  (SELECT n.number FROM newest n WHERE n.author = versions.author);"
    "DROP TABLE newest;"
    "UPDATE meta SET value = '2' WHERE key = 'schema';";

/* The schema this code reads and writes. */
#define SERVE_DB_SCHEMA 2

static void db_note(arena_serve_db *db, const char *what)
{
    arena_error("server database: %s: %s", what, sqlite3_errmsg(db->sql));
}

/* The stored schema version: 0 when unreadable. */
static int schema_version(arena_serve_db *db)
{
    sqlite3_stmt *st = NULL;
    int v = 0;
    if (sqlite3_prepare_v2(db->sql, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = "
                                    "'schema'", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Brings the schema to SERVE_DB_SCHEMA, each step in a transaction of its
 * own; a newer schema is refused with one line. */
static int migrate(arena_serve_db *db, const char *path, char *err, size_t cap)
{
    int v = schema_version(db);
    if (v > SERVE_DB_SCHEMA) {
        snprintf(err, cap, "server database '%s' has schema %d, newer than this arena's (%d): "
                 "run a newer arena on it", path, v, SERVE_DB_SCHEMA);
        return JA_EVERSION;
    }
    if (v < 1) {
        snprintf(err, cap, "server database '%s': no schema version (not a server database?)",
                 path);
        return JA_EFORMAT;
    }
    if (v == 1) {
        char *msg = NULL;
        if (sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_exec(db->sql, SCHEMA_V2, NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_exec(db->sql, "COMMIT", NULL, NULL, &msg) != SQLITE_OK) {
            snprintf(err, cap, "server database '%s': upgrading its schema from 1 to 2: %s",
                     path, msg ? msg : sqlite3_errmsg(db->sql));
            sqlite3_free(msg);
            sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
            return JA_EDB;
        }
    }
    return JA_OK;
}

int arena_serve_db_open(const char *path, arena_serve_db **out, char *err, size_t cap)
{
    *out = NULL;
    arena_serve_db *db = ja_xcalloc(1, sizeof *db);
    pthread_mutex_init(&db->mu, NULL);
    char *msg = NULL;
    if (sqlite3_open_v2(path, &db->sql,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX |
                            SQLITE_OPEN_NOFOLLOW,
                        NULL) != SQLITE_OK ||
        sqlite3_busy_timeout(db->sql, 10000) != SQLITE_OK ||
        sqlite3_exec(db->sql, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;", NULL, NULL,
                     &msg) != SQLITE_OK ||
        sqlite3_exec(db->sql, SCHEMA, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, cap, "server database '%s': %s", path,
                 msg ? msg : db->sql ? sqlite3_errmsg(db->sql) : "cannot open");
        sqlite3_free(msg);
        arena_serve_db_close(&db);
        return JA_EDB;
    }
    int rc = migrate(db, path, err, cap);
    if (rc != JA_OK) {
        arena_serve_db_close(&db);
        return rc;
    }
    *out = db;
    return JA_OK;
}

void arena_serve_db_close(arena_serve_db **p)
{
    if (p == NULL || *p == NULL)
        return;
    sqlite3_close((*p)->sql);
    pthread_mutex_destroy(&(*p)->mu);
    free(*p);
    *p = NULL;
}

/* Prepares sql; NULL (noted) on failure. Called with the mutex held. */
static sqlite3_stmt *prep(arena_serve_db *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK) {
        db_note(db, "prepare");
        return NULL;
    }
    return st;
}

/* Runs a statement without rows to its end; JA_OK or JA_EDB (noted). */
static int run(arena_serve_db *db, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        if ((rc & 0xff) == SQLITE_CONSTRAINT) {
            sqlite3_finalize(st);
            return JA_EBUSY;
        }
        db_note(db, "write");
        sqlite3_finalize(st);
        return JA_EDB;
    }
    sqlite3_finalize(st);
    return JA_OK;
}

static int exec(arena_serve_db *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db->sql, sql, NULL, NULL, &msg) != SQLITE_OK) {
        arena_error("server database: %s", msg ? msg : "failure");
        sqlite3_free(msg);
        return JA_EDB;
    }
    return JA_OK;
}

/* Ends the open transaction: COMMIT when rc is JA_OK, else ROLLBACK. */
static int end_tx(arena_serve_db *db, int rc)
{
    return exec(db, rc == JA_OK ? "COMMIT" : "ROLLBACK") == JA_OK ? rc : JA_EDB;
}

static void copy_col(sqlite3_stmt *st, int col, char *out, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(out, cap, "%s", t ? (const char *)t : "");
}

#define LOCK() pthread_mutex_lock(&db->mu)
#define UNLOCK() pthread_mutex_unlock(&db->mu)

int arena_serve_db_seed(arena_serve_db *db, bool have_seed, uint64_t seed, uint64_t *out,
                        char *err, size_t cap)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, "SELECT value FROM meta WHERE key = 'seed'");
    if (st == NULL)
        goto out;
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        char text[32];
        copy_col(st, 0, text, sizeof text);
        sqlite3_finalize(st);
        uint64_t stored = strtoull(text, NULL, 10);
        if (have_seed && stored != seed) {
            snprintf(err, cap, "--seed %" PRIu64 ": this server's data folder has seed %" PRIu64
                     " (a server keeps its seed)", seed, stored);
            rc = JA_EINVAL;
            goto out;
        }
        *out = stored;
        rc = JA_OK;
        goto out;
    }
    sqlite3_finalize(st);
    if (r != SQLITE_DONE || (st = prep(db, "INSERT INTO meta VALUES ('seed', ?)")) == NULL)
        goto out;
    uint64_t s = have_seed ? seed : arena_random_seed();
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, s);
    sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
    if ((rc = run(db, st)) == JA_OK)
        *out = s;
out:
    if (rc == JA_EDB)
        snprintf(err, cap, "server database: %s", sqlite3_errmsg(db->sql));
    UNLOCK();
    return rc;
}

int arena_serve_db_author_add(arena_serve_db *db, const char *name, const char *token_hash)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, "INSERT INTO authors (name, token_id, token_hash, created) "
                                "VALUES (?, ?, ?, ?)");
    if (st) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, token_hash, 16, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, token_hash, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 4, (int64_t)time(NULL));
        rc = run(db, st);
    }
    UNLOCK();
    return rc;
}

int arena_serve_db_author_auth(arena_serve_db *db, const char *token, int64_t *id,
                               char name[ARENA_SERVE_NAME_MAX + 1])
{
    if (!arena_serve_token_shape(token))
        return JA_ENOTFOUND;
    char h[ARENA_SERVE_HASH_HEX];
    arena_serve_token_hash(token, h);
    LOCK();
    int rc = JA_ENOTFOUND;
    /* Found by the first 64 bits of the hash, then the whole hash compared
     * in constant time (arena_serve_token_check). */
    sqlite3_stmt *st = prep(db, "SELECT id, name, token_hash FROM authors WHERE token_id = ?");
    if (st == NULL) {
        rc = JA_EDB;
        goto out;
    }
    sqlite3_bind_text(st, 1, h, 16, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) {
        char stored[ARENA_SERVE_HASH_HEX];
        copy_col(st, 2, stored, sizeof stored);
        if (arena_serve_token_check(token, stored)) {
            *id = sqlite3_column_int64(st, 0);
            copy_col(st, 1, name, ARENA_SERVE_NAME_MAX + 1);
            rc = JA_OK;
            break;
        }
    }
    sqlite3_finalize(st);
out:
    UNLOCK();
    return rc;
}

/* The integer of the first row of sql (one text parameter): JA_OK,
 * JA_ENOTFOUND without a row, JA_EDB. */
static int one_int(arena_serve_db *db, const char *sql, const char *text, int64_t *id)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, sql);
    if (st) {
        sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
        int r = sqlite3_step(st);
        rc = r == SQLITE_ROW ? JA_OK : r == SQLITE_DONE ? JA_ENOTFOUND : JA_EDB;
        if (rc == JA_OK)
            *id = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    UNLOCK();
    return rc;
}

int arena_serve_db_author_find(arena_serve_db *db, const char *name, int64_t *id)
{
    return one_int(db, "SELECT id FROM authors WHERE name = ?", name, id);
}

int arena_serve_db_counts(arena_serve_db *db, int64_t author, int64_t since, int64_t *recent,
                          int64_t *validating, int64_t *author_validating)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, "SELECT (SELECT count(*) FROM versions WHERE author = ?1 AND "
                                "created >= ?2), (SELECT count(*) FROM versions WHERE status = "
                                "?3), (SELECT count(*) FROM versions WHERE author = ?1 AND "
                                "status = ?3)");
    if (st) {
        sqlite3_bind_int64(st, 1, author);
        sqlite3_bind_int64(st, 2, since);
        sqlite3_bind_text(st, 3, ARENA_V_VALIDATING, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            *recent = sqlite3_column_int64(st, 0);
            *validating = sqlite3_column_int64(st, 1);
            *author_validating = sqlite3_column_int64(st, 2);
            rc = JA_OK;
        }
        sqlite3_finalize(st);
    }
    UNLOCK();
    return rc;
}

int arena_serve_db_version_add(arena_serve_db *db, int64_t author, const char *sha,
                               const char *file, const char *params, int64_t *id,
                               int64_t *number)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, "SELECT id, number FROM versions WHERE author = ? AND sha256 = ? "
                                "AND params = ?");
    if (st == NULL)
        goto out;
    sqlite3_bind_int64(st, 1, author);
    sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, params ? params : "", -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        *number = sqlite3_column_int64(st, 1);
        sqlite3_finalize(st);
        rc = JA_EBUSY;
        goto out;
    }
    sqlite3_finalize(st);
    int64_t now = (int64_t)time(NULL);
    st = prep(db, "INSERT INTO versions (author, number, sha256, file, params, status, created, "
                  "updated) VALUES (?1, (SELECT coalesce(max(number), 0) + 1 FROM versions "
                  "WHERE author = ?1), ?2, ?3, ?6, ?4, ?5, ?5) RETURNING id, number");
    if (st == NULL)
        goto out;
    sqlite3_bind_int64(st, 1, author);
    sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, file, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, ARENA_V_VALIDATING, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, now);
    sqlite3_bind_text(st, 6, params ? params : "", -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        *number = sqlite3_column_int64(st, 1);
        rc = JA_OK;
    } else
        db_note(db, "adding a version");
    sqlite3_finalize(st);
out:
    UNLOCK();
    return rc;
}

#define VERSION_COLS                                                                         \
    "v.id, v.author, a.name, v.number, v.sha256, v.file, v.status, v.faults, v.params "       \
    "FROM versions v JOIN authors a ON a.id = v.author "

static void read_version(sqlite3_stmt *st, arena_serve_version *v)
{
    memset(v, 0, sizeof *v);
    v->id = sqlite3_column_int64(st, 0);
    v->author_id = sqlite3_column_int64(st, 1);
    copy_col(st, 2, v->author, sizeof v->author);
    v->number = sqlite3_column_int64(st, 3);
    copy_col(st, 4, v->sha256, sizeof v->sha256);
    copy_col(st, 5, v->file, sizeof v->file);
    copy_col(st, 6, v->status, sizeof v->status);
    v->faults = sqlite3_column_int64(st, 7);
    copy_col(st, 8, v->params, sizeof v->params);
}

static int version_one(arena_serve_db *db, const char *sql, int64_t id, const char *status,
                       arena_serve_version *out)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, sql);
    if (st) {
        if (status)
            sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_int64(st, 1, id);
        int r = sqlite3_step(st);
        rc = r == SQLITE_ROW ? JA_OK : r == SQLITE_DONE ? JA_ENOTFOUND : JA_EDB;
        if (rc == JA_OK)
            read_version(st, out);
        sqlite3_finalize(st);
    }
    UNLOCK();
    return rc;
}

int arena_serve_db_version_next(arena_serve_db *db, const char *status,
                                arena_serve_version *out)
{
    return version_one(db, "SELECT " VERSION_COLS "WHERE v.status = ? ORDER BY v.id LIMIT 1", 0,
                       status, out);
}

int arena_serve_db_version_get(arena_serve_db *db, int64_t id, arena_serve_version *out)
{
    return version_one(db, "SELECT " VERSION_COLS "WHERE v.id = ?", id, NULL, out);
}

int arena_serve_db_versions(arena_serve_db *db, const char *status, arena_serve_version **out,
                            uint32_t *n)
{
    *out = NULL;
    *n = 0;
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, "SELECT " VERSION_COLS "WHERE v.status = ? ORDER BY v.id");
    if (st == NULL)
        goto out;
    sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
    uint32_t cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *out = ja_xrealloc(*out, cap * sizeof **out);
        }
        read_version(st, &(*out)[(*n)++]);
    }
    rc = r == SQLITE_DONE ? JA_OK : JA_EDB;
    sqlite3_finalize(st);
    if (rc != JA_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
out:
    UNLOCK();
    return rc;
}

int arena_serve_db_version_set(arena_serve_db *db, int64_t id, const char *status,
                               const char *reason, const char *report, const char *only_from,
                               bool *changed)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, "UPDATE versions SET status = ?1, reason = ?2, "
                                "report = coalesce(?3, report), updated = ?4 "
                                "WHERE id = ?5 AND (?6 IS NULL OR status = ?6)");
    if (st) {
        sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, reason ? reason : "", -1, SQLITE_TRANSIENT);
        if (report)
            sqlite3_bind_text(st, 3, report, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 4, (int64_t)time(NULL));
        sqlite3_bind_int64(st, 5, id);
        if (only_from)
            sqlite3_bind_text(st, 6, only_from, -1, SQLITE_TRANSIENT);
        rc = run(db, st);
        if (changed)
            *changed = rc == JA_OK && sqlite3_changes(db->sql) > 0;
    }
    UNLOCK();
    return rc;
}

/* The author of version id and its number, with the mutex held. */
static int version_owner(arena_serve_db *db, int64_t id, int64_t *author, int64_t *number)
{
    sqlite3_stmt *st = prep(db, "SELECT author, number FROM versions WHERE id = ?");
    if (st == NULL)
        return JA_EDB;
    sqlite3_bind_int64(st, 1, id);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        *author = sqlite3_column_int64(st, 0);
        *number = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return r == SQLITE_ROW ? JA_OK : r == SQLITE_DONE ? JA_ENOTFOUND : JA_EDB;
}

int arena_serve_db_version_activate(arena_serve_db *db, int64_t id, const char *report,
                                    char status[16], int64_t *retired, uint32_t cap,
                                    uint32_t *n_retired)
{
    *n_retired = 0;
    status[0] = '\0';
    LOCK();
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc != JA_OK)
        goto out;
    int64_t author = 0, number = 0, newer = 0;
    rc = version_owner(db, id, &author, &number);
    sqlite3_stmt *st = NULL;
    if (rc == JA_OK && (st = prep(db, "SELECT coalesce(max(number), 0) FROM versions WHERE "
                                      "author = ? AND status = 'active' AND number > ?")) == NULL)
        rc = JA_EDB;
    if (rc == JA_OK) {
        sqlite3_bind_int64(st, 1, author);
        sqlite3_bind_int64(st, 2, number);
        rc = sqlite3_step(st) == SQLITE_ROW ? JA_OK : JA_EDB;
        newer = rc == JA_OK ? sqlite3_column_int64(st, 0) : 0;
        sqlite3_finalize(st);
    }
    /* Passed, but a newer version of the author is active already (it was
     * validated first): this one is retired, not the newer one. */
    char why[96];
    if (newer)
        snprintf(why, sizeof why, "passed its validation, but version %" PRId64 " (newer) is "
                 "active", newer);
    const char *to = newer ? ARENA_V_RETIRED : ARENA_V_ACTIVE;
    if (rc == JA_OK && (st = prep(db, "UPDATE versions SET status = ?1, reason = ?2, report = "
                                      "?3, updated = ?4 WHERE id = ?5 AND status = 'validating'")) ==
                           NULL)
        rc = JA_EDB;
    bool changed = false;
    if (rc == JA_OK) {
        sqlite3_bind_text(st, 1, to, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, newer ? why : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, report, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 4, (int64_t)time(NULL));
        sqlite3_bind_int64(st, 5, id);
        rc = run(db, st);
        changed = rc == JA_OK && sqlite3_changes(db->sql) > 0;
    }
    /* The author's older versions that play or wait to be validated give
     * way: one active version per author (docs/server.md, "Versions"). */
    if (rc == JA_OK && changed && !newer) {
        st = prep(db, "UPDATE versions SET status = 'retired', reason = 'replaced by version ' "
                      "|| ?1, updated = ?2 WHERE author = ?3 AND number < ?1 AND status IN "
                      "('active', 'validating') RETURNING number");
        if (st == NULL)
            rc = JA_EDB;
        else {
            sqlite3_bind_int64(st, 1, number);
            sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
            sqlite3_bind_int64(st, 3, author);
            int r;
            while ((r = sqlite3_step(st)) == SQLITE_ROW)
                if (*n_retired < cap)
                    retired[(*n_retired)++] = sqlite3_column_int64(st, 0);
            if (r != SQLITE_DONE) {
                db_note(db, "retiring replaced versions");
                rc = JA_EDB;
            }
            sqlite3_finalize(st);
        }
    }
    if (rc == JA_OK && changed)
        snprintf(status, 16, "%s", to);
    rc = end_tx(db, rc);
    if (rc != JA_OK) {
        *n_retired = 0;
        status[0] = '\0';
    }
out:
    UNLOCK();
    return rc;
}

int arena_serve_db_retire(arena_serve_db *db, int64_t author, int64_t *n)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, "UPDATE versions SET status = 'retired', reason = 'retired by "
                                "its author', updated = ? WHERE author = ? AND status IN "
                                "('validating', 'active', 'suspended')");
    if (st) {
        sqlite3_bind_int64(st, 1, (int64_t)time(NULL));
        sqlite3_bind_int64(st, 2, author);
        rc = run(db, st);
        *n = rc == JA_OK ? sqlite3_changes(db->sql) : 0;
    }
    UNLOCK();
    return rc;
}

int arena_serve_db_file_owner(arena_serve_db *db, const char *file, int64_t *author)
{
    return one_int(db, "SELECT author FROM versions WHERE file = ? ORDER BY id LIMIT 1", file,
                   author);
}

int arena_serve_db_supersede(arena_serve_db *db, int64_t author, int64_t keep,
                             const char *prefix, int64_t *n)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, "UPDATE versions SET status = 'retired', reason = 'superseded "
                                "by version ' || (SELECT number FROM versions WHERE id = ?3), "
                                "updated = ?1 WHERE author = ?2 AND id != ?3 AND "
                                "substr(file, 1, length(?4)) = ?4 AND status IN "
                                "('validating', 'active', 'suspended')");
    if (st) {
        sqlite3_bind_int64(st, 1, (int64_t)time(NULL));
        sqlite3_bind_int64(st, 2, author);
        sqlite3_bind_int64(st, 3, keep);
        sqlite3_bind_text(st, 4, prefix, -1, SQLITE_TRANSIENT);
        rc = run(db, st);
        *n = rc == JA_OK ? sqlite3_changes(db->sql) : 0;
    }
    UNLOCK();
    return rc;
}

/* The rows of st (its parameters bound), each made a JSON object by row,
 * as an array; NULL (st finalized either way) on failure. With the mutex
 * held. */
static json_t *rows_json(sqlite3_stmt *st, json_t *(*row)(sqlite3_stmt *st))
{
    json_t *arr = json_array();
    int r = SQLITE_DONE;
    while (arr && (r = sqlite3_step(st)) == SQLITE_ROW)
        json_array_append_new(arr, row(st));
    if (arr && r != SQLITE_DONE) {
        json_decref(arr);
        arr = NULL;
    }
    sqlite3_finalize(st);
    return arr;
}

static json_t *version_row(sqlite3_stmt *st)
{
    const char *report = (const char *)sqlite3_column_text(st, 6);
    json_t *rep = report ? json_loads(report, 0, NULL) : NULL;
    /* An external version's file is "zmq:KEY" (serve_ext.h). */
    const char *file = (const char *)sqlite3_column_text(st, 10);
    bool ext = file && strncmp(file, "zmq:", 4) == 0;
    json_t *row = json_pack("{sI ss sI ss ss ss so sI sI sI}", "id",
                            (json_int_t)sqlite3_column_int64(st, 0), "author",
                            (const char *)sqlite3_column_text(st, 1), "version",
                            (json_int_t)sqlite3_column_int64(st, 2), "sha256",
                            (const char *)sqlite3_column_text(st, 3), "status",
                            (const char *)sqlite3_column_text(st, 4), "reason",
                            (const char *)sqlite3_column_text(st, 5), "report",
                            rep ? rep : json_null(), "faults",
                            (json_int_t)sqlite3_column_int64(st, 7), "created",
                            (json_int_t)sqlite3_column_int64(st, 8), "updated",
                            (json_int_t)sqlite3_column_int64(st, 9));
    json_object_set_new(row, "kind", json_string(ext ? "external" : "plugin"));
    json_object_set_new(row, "params", json_string((const char *)sqlite3_column_text(st, 11)));
    if (ext)
        json_object_set_new(row, "key", json_string(file + 4));
    return row;
}

json_t *arena_serve_db_versions_json(arena_serve_db *db, int64_t author)
{
    LOCK();
    json_t *arr = NULL;
    sqlite3_stmt *st = prep(db, "SELECT v.id, a.name, v.number, v.sha256, v.status, v.reason, "
                                "v.report, v.faults, v.created, v.updated, v.file, v.params FROM "
                                "versions v JOIN authors a ON a.id = v.author WHERE ?1 = 0 OR "
                                "v.author = ?1 ORDER BY v.id");
    if (st) {
        sqlite3_bind_int64(st, 1, author);
        arr = rows_json(st, version_row);
    }
    UNLOCK();
    return arr;
}

/* ---- batches ----------------------------------------------------------------- */

#define SRV_STREAM_BATCH JA_TAG('S', 'R', 'V', 'B')

static void versions_text(const arena_serve_batch *b, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < b->n && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%" PRId64, i ? "," : "",
                                 b->version[i]);
}

static bool parse_versions(const char *text, arena_serve_batch *b)
{
    b->n = 0;
    const char *p = text;
    while (*p && b->n < 16) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v <= 0)
            return false;
        b->version[b->n++] = v;
        p = *end == ',' ? end + 1 : end;
    }
    return b->n >= 2;
}

int arena_serve_db_batch_add(arena_serve_db *db, uint64_t server_seed, arena_serve_batch *b)
{
    char vt[16 * 21];
    versions_text(b, vt, sizeof vt);
    LOCK();
    int rc = JA_EDB;
    if (exec(db, "BEGIN IMMEDIATE") != JA_OK)
        goto out;
    /* Only active versions of as many authors start a batch: checked in
     * the transaction that adds it, so a version retired before is never
     * in a new batch, and two versions of one author never meet. */
    sqlite3_stmt *st = NULL;
    int64_t authors[16];
    for (uint32_t i = 0; i < b->n; i++) {
        if ((st = prep(db, "SELECT author FROM versions WHERE id = ? AND status = 'active'")) ==
            NULL)
            break;
        sqlite3_bind_int64(st, 1, b->version[i]);
        bool ok = sqlite3_step(st) == SQLITE_ROW;
        authors[i] = ok ? sqlite3_column_int64(st, 0) : 0;
        sqlite3_finalize(st);
        st = NULL;
        for (uint32_t j = 0; j < i && ok; j++)
            ok = authors[j] != authors[i];
        if (!ok) {
            exec(db, "ROLLBACK");
            rc = JA_ENOTFOUND;
            goto out;
        }
    }
    st = prep(db, "INSERT INTO batches (seed, state, versions, created) VALUES "
                  "('', 'planned', ?, ?) RETURNING id");
    if (st) {
        sqlite3_bind_text(st, 1, vt, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
        if (sqlite3_step(st) == SQLITE_ROW) {
            b->id = sqlite3_column_int64(st, 0);
            rc = JA_OK;
        }
        sqlite3_finalize(st);
    }
    for (uint32_t i = 0; rc == JA_OK && i < b->n; i++) {
        rc = JA_EDB;
        if ((st = prep(db, "INSERT INTO batch_versions VALUES (?, ?, ?)")) != NULL) {
            sqlite3_bind_int64(st, 1, b->id);
            sqlite3_bind_int(st, 2, (int)i);
            sqlite3_bind_int64(st, 3, b->version[i]);
            rc = run(db, st);
        }
    }
    if (rc == JA_OK) {
        b->seed = arena_serve_seed(server_seed, SRV_STREAM_BATCH, (uint64_t)b->id);
        b->tournament = 0;
        char s[24];
        snprintf(s, sizeof s, "%" PRIu64, b->seed);
        rc = JA_EDB;
        if ((st = prep(db, "UPDATE batches SET seed = ? WHERE id = ?")) != NULL) {
            sqlite3_bind_text(st, 1, s, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(st, 2, b->id);
            rc = run(db, st);
        }
    }
    rc = end_tx(db, rc);
out:
    UNLOCK();
    return rc;
}

int arena_serve_db_batch_set_tournament(arena_serve_db *db, int64_t batch, int64_t tournament)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, "UPDATE batches SET tournament = ?, state = 'running' "
                                "WHERE id = ?");
    if (st) {
        sqlite3_bind_int64(st, 1, tournament);
        sqlite3_bind_int64(st, 2, batch);
        rc = run(db, st);
    }
    UNLOCK();
    return rc;
}

int arena_serve_db_batch_unfinished(arena_serve_db *db, arena_serve_batch *out)
{
    LOCK();
    int rc = JA_ENOTFOUND;
    /* A stored batch whose versions cannot be read (or name fewer than
     * two) could never be played: it fails here, with its reason, and the
     * next one is looked at; it is never handed on, never retried. */
    for (;;) {
        sqlite3_stmt *st = prep(db, "SELECT id, seed, coalesce(tournament, 0), versions FROM "
                                    "batches WHERE state NOT IN ('done', 'failed') ORDER BY id "
                                    "LIMIT 1");
        if (st == NULL) {
            rc = JA_EDB;
            break;
        }
        int r = sqlite3_step(st);
        rc = r == SQLITE_ROW ? JA_OK : r == SQLITE_DONE ? JA_ENOTFOUND : JA_EDB;
        bool readable = true;
        if (rc == JA_OK) {
            memset(out, 0, sizeof *out);
            out->id = sqlite3_column_int64(st, 0);
            char text[16 * 21 + 32];
            copy_col(st, 1, text, sizeof text);
            out->seed = strtoull(text, NULL, 10);
            out->tournament = sqlite3_column_int64(st, 2);
            copy_col(st, 3, text, sizeof text);
            readable = parse_versions(text, out);
        }
        sqlite3_finalize(st);
        if (rc != JA_OK || readable)
            break;
        arena_error("server database: batch %" PRId64 " names no versions it can play: failed",
                    out->id);
        st = prep(db, "UPDATE batches SET state = 'failed', ended = ?, reason = 'its stored "
                      "versions cannot be read' WHERE id = ?");
        if (st == NULL) {
            rc = JA_EDB;
            break;
        }
        sqlite3_bind_int64(st, 1, (int64_t)time(NULL));
        sqlite3_bind_int64(st, 2, out->id);
        if ((rc = run(db, st)) != JA_OK)
            break;
    }
    UNLOCK();
    return rc;
}

/* Ends batch b in state `state` with reason, adding faults[i] to
 * version[i]'s count, in one transaction; a batch already ended changes
 * nothing. */
static int batch_end(arena_serve_db *db, const arena_serve_batch *b, const char *state,
                     const char *reason, const int64_t *faults)
{
    LOCK();
    int rc = JA_EDB;
    if (exec(db, "BEGIN IMMEDIATE") != JA_OK)
        goto out;
    sqlite3_stmt *st = prep(db, "UPDATE batches SET state = ?, reason = ?, ended = ? WHERE id = "
                                "? AND state NOT IN ('done', 'failed')");
    if (st) {
        sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, reason ? reason : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 3, (int64_t)time(NULL));
        sqlite3_bind_int64(st, 4, b->id);
        rc = run(db, st);
    }
    bool changed = rc == JA_OK && sqlite3_changes(db->sql) > 0;
    for (uint32_t i = 0; changed && rc == JA_OK && i < b->n; i++) {
        rc = JA_EDB;
        if ((st = prep(db, "UPDATE versions SET faults = faults + ? WHERE id = ?")) != NULL) {
            sqlite3_bind_int64(st, 1, faults ? faults[i] : 0);
            sqlite3_bind_int64(st, 2, b->version[i]);
            rc = run(db, st);
        }
    }
    rc = end_tx(db, rc);
out:
    UNLOCK();
    return rc;
}

int arena_serve_db_batch_done(arena_serve_db *db, const arena_serve_batch *b,
                              const int64_t *faults)
{
    return batch_end(db, b, "done", NULL, faults);
}

int arena_serve_db_batch_fail(arena_serve_db *db, const arena_serve_batch *b, const char *reason,
                              const int64_t *faults)
{
    return batch_end(db, b, "failed", reason, faults);
}

static json_t *batch_row(sqlite3_stmt *st)
{
    arena_serve_batch b;
    json_t *vs = json_array();
    if (parse_versions((const char *)sqlite3_column_text(st, 6), &b))
        for (uint32_t i = 0; i < b.n; i++)
            json_array_append_new(vs, json_integer(b.version[i]));
    json_t *row = json_pack("{sI sI ss ss sI so}", "id", (json_int_t)sqlite3_column_int64(st, 0),
                            "tournament", (json_int_t)sqlite3_column_int64(st, 1), "state",
                            (const char *)sqlite3_column_text(st, 2), "reason",
                            (const char *)sqlite3_column_text(st, 3), "created",
                            (json_int_t)sqlite3_column_int64(st, 4), "versions", vs);
    json_object_set_new(row, "ended", sqlite3_column_type(st, 5) == SQLITE_NULL
                                          ? json_null()
                                          : json_integer(sqlite3_column_int64(st, 5)));
    return row;
}

json_t *arena_serve_db_batches_json(arena_serve_db *db, int64_t author, uint32_t limit)
{
    LOCK();
    json_t *arr = NULL;
    /* The author's batches through batch_versions_version, newest first. */
    sqlite3_stmt *st = prep(db, "SELECT b.id, coalesce(b.tournament, 0), b.state, b.reason, "
                                "b.created, b.ended, b.versions FROM batches b WHERE b.id IN "
                                "(SELECT bv.batch FROM batch_versions bv JOIN versions v ON "
                                "v.id = bv.version WHERE v.author = ?1) ORDER BY b.id DESC "
                                "LIMIT ?2");
    if (st) {
        sqlite3_bind_int64(st, 1, author);
        sqlite3_bind_int64(st, 2, limit);
        arr = rows_json(st, batch_row);
    }
    UNLOCK();
    return arr;
}

int arena_serve_db_batch_of(arena_serve_db *db, int64_t tournament, bool *ended)
{
    LOCK();
    int rc = JA_EDB;
    sqlite3_stmt *st = prep(db, "SELECT state IN ('done', 'failed') FROM batches WHERE "
                                "tournament = ?");
    if (st) {
        sqlite3_bind_int64(st, 1, tournament);
        int r = sqlite3_step(st);
        rc = r == SQLITE_ROW ? JA_OK : r == SQLITE_DONE ? JA_ENOTFOUND : JA_EDB;
        if (rc == JA_OK)
            *ended = sqlite3_column_int(st, 0) != 0;
        sqlite3_finalize(st);
    }
    UNLOCK();
    return rc;
}
