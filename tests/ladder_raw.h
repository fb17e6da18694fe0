/* Raw SQLite access for the ladder database's unit tests: each call opens
 * its own connection to the file (created when missing), runs one
 * statement and closes it, so that a check sees only what is on disk, not
 * what a ladder_db handle holds. Needs cmocka.h; a failing statement fails
 * the test with its SQL and SQLite's message. */
#ifndef JA_TESTS_LADDER_RAW_H
#define JA_TESTS_LADDER_RAW_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#define RAW_MAX 128 /* the rows raw_ints reads at most */

static inline sqlite3 *raw_open(const char *path)
{
    sqlite3 *s = NULL;
    assert_int_equal(
        sqlite3_open_v2(path, &s, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(s, 2000);
    return s;
}

static inline void raw_exec(const char *path, const char *sql)
{
    sqlite3 *s = raw_open(path);
    char *err = NULL;
    if (sqlite3_exec(s, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("%.60s...: %s", sql, err);
    sqlite3_close(s);
}

/* sql prepared on a new connection to path, its first row stepped to
 * unless `all` (raw_ints steps itself). */
static inline sqlite3_stmt *raw_query(const char *path, const char *sql, sqlite3 **s, int all)
{
    *s = raw_open(path);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(*s, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(*s));
    if (!all)
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    return st;
}

static inline void raw_done(sqlite3 *s, sqlite3_stmt *st)
{
    sqlite3_finalize(st);
    sqlite3_close(s);
}

/* The first column of the first row of sql, as an integer. */
static inline int64_t raw_int(const char *path, const char *sql)
{
    sqlite3 *s;
    sqlite3_stmt *st = raw_query(path, sql, &s, 0);
    int64_t v = sqlite3_column_int64(st, 0);
    raw_done(s, st);
    return v;
}

/* The same as a double. */
static inline double raw_double(const char *path, const char *sql)
{
    sqlite3 *s;
    sqlite3_stmt *st = raw_query(path, sql, &s, 0);
    double v = sqlite3_column_double(st, 0);
    raw_done(s, st);
    return v;
}

/* The same as text into buf ("(null)" for NULL, cut at cap); returns buf. */
static inline const char *raw_text(const char *path, const char *sql, char *buf, size_t cap)
{
    sqlite3 *s;
    sqlite3_stmt *st = raw_query(path, sql, &s, 0);
    const unsigned char *t = sqlite3_column_text(st, 0);
    snprintf(buf, cap, "%s", t != NULL ? (const char *)t : "(null)");
    raw_done(s, st);
    return buf;
}

/* The first column of every row of sql into out (at most RAW_MAX rows; NULL
 * reads -1); returns how many. */
static inline uint32_t raw_ints(const char *path, const char *sql, int64_t out[RAW_MAX])
{
    sqlite3 *s;
    sqlite3_stmt *st = raw_query(path, sql, &s, 1);
    uint32_t n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        assert_true(n < RAW_MAX);
        out[n++] = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
    }
    assert_int_equal(rc, SQLITE_DONE);
    raw_done(s, st);
    return n;
}

#endif /* JA_TESTS_LADDER_RAW_H */
