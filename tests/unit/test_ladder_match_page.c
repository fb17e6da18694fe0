/* Unit tests of the ladder database's indexed match reads
 * (ladders/ladder_db.h): ladder_db_match_page lists a ladder's finished
 * matches newest first, all of them or those of one bot name (any
 * version), page by page with before/limit, each match once, never one of
 * another ladder or one still planned; ladder_db_match_row finds one match
 * of a ladder and nothing else; bad arguments are JA_EINVAL.
 *
 * Both are checked against ladder_db_foreach_match, the full walk, as the
 * reference. That they never scan a ladder is checked two ways, without
 * anything exposed for it: an SQLite auto-extension traces the handle's own
 * connection, so every SELECT the calls run is seen and explained (EXPLAIN
 * QUERY PLAN on a second connection: no SCAN, no temporary B-tree, which
 * would sort the whole selection), and the virtual-machine steps those
 * statements take stay the same on a ladder 20 times larger with a large
 * unplayed plan on top, where a ladder_db_foreach_match grows with it.
 *
 * ladder_db_elo_history gives a bot name's live Elo step by step: checked
 * against the walk's rows (each seat's elo_before, elo_delta and
 * games_before) and the live ratings, the steps of each bot chained
 * exactly from 1500 to its rating; matches rated out of their plan's
 * order come in the order rated; its statements are searches too.
 *
 * Schema version 5 on a file of version 4 with data (build()'s, taken back
 * to version 4 by dropping the column): each result gets the count of its
 * bot's earlier finished matches in the ladder, the values the store wrote,
 * the same histories; the out-of-order file gets the plan's order, as
 * docs/database.md says. */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "jackarena/ja_error.h"
#include "elo.h"
#include "ladder_db.h"
#include "ladder_db_int.h"
#include "ladder_raw.h"

/* ---- Fixture: one temporary directory, a database file per test ----------- */

static char tmp_dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/ja-page-XXXXXX");
    return mkdtemp(tmp_dir) != NULL ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int remove_dir(void **state)
{
    (void)state;
    return nftw(tmp_dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* The database file `name` in the directory (its -wal and -shm beside it). */
static const char *db_file(const char *name, char buf[160])
{
    snprintf(buf, 160, "%s/%s.db", tmp_dir, name);
    return buf;
}

/* ---- Tracing the handle's connection --------------------------------------- */

#define TRACED_MAX 32

/* What the trace saw while `on`: the distinct SELECTs run, and the
 * virtual-machine steps of every statement run. */
static struct {
    bool on;
    int n;
    char sql[TRACED_MAX][1024];
    int64_t steps;
} traced;

static int trace_cb(unsigned type, void *ctx, void *p, void *x)
{
    (void)ctx;
    (void)x;
    sqlite3_stmt *st = p;
    if (type == SQLITE_TRACE_PROFILE) {
        /* Reset on every run, so that each run counts its own steps once. */
        int steps = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
        if (traced.on)
            traced.steps += steps;
        return 0;
    }
    const char *sql = sqlite3_sql(st);
    if (!traced.on || sql == NULL || strncmp(sql, "SELECT", 6) != 0)
        return 0;
    for (int i = 0; i < traced.n; i++)
        if (strcmp(traced.sql[i], sql) == 0)
            return 0;
    assert_true(traced.n < TRACED_MAX);
    assert_true(strlen(sql) < sizeof traced.sql[0]);
    snprintf(traced.sql[traced.n++], sizeof traced.sql[0], "%s", sql);
    return 0;
}

static int trace_ext(sqlite3 *s, const char **err, const struct sqlite3_api_routines *api)
{
    (void)err;
    (void)api;
    sqlite3_trace_v2(s, SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE, trace_cb, NULL);
    return SQLITE_OK;
}

/* Opens path with every statement of the handle traced (the extension is
 * registered around the open alone, so raw connections are not traced). */
static ladder_db *open_traced(const char *path)
{
    assert_int_equal(sqlite3_auto_extension((void (*)(void))trace_ext), SQLITE_OK);
    ladder_db *db = NULL;
    int rc = ladder_db_open(path, &db);
    sqlite3_cancel_auto_extension((void (*)(void))trace_ext);
    if (rc != JA_OK)
        fail_msg("open %s: %s", path, ladder_db_errmsg(db));
    memset(&traced, 0, sizeof traced);
    return db;
}

/* ---- Builders --------------------------------------------------------------- */

static ladder_db *open_ok(const char *path)
{
    ladder_db *db = NULL;
    int rc = ladder_db_open(path, &db);
    if (rc != JA_OK)
        fail_msg("open %s: %s: %s", path, ja_err_name(rc), ladder_db_errmsg(db));
    return db;
}

static const ladder_key KEY_A = {"taylor-blackjack", 2, "decks=auto way=2"};
static const ladder_key KEY_B = {"taylor-blackjack", 2, "decks=auto way=3"};
static const ladder_key KEY_C = {"taylor-blackjack", 3, "decks=auto way=2"};
static const ladder_key KEY_NONE = {"bombs", 4, ""}; /* no such ladder */

static const ladder_bot ALPHA1 = {"alpha", "1.0", "builtin", "alpha", NULL};
static const ladder_bot ALPHA2 = {"alpha", "2.0", "builtin", "alpha", NULL};
static const ladder_bot BETA = {"beta", "", "builtin", "random", NULL};
static const ladder_bot GAMMA = {"gamma", "2", "cmd", "cmd:python3 gamma.py", NULL};

/* A round-robin tournament of n bots in ladder key: n (n - 1) matches a
 * round. Its first `played` matches are recorded, all but `skip`. */
static int64_t tournament(ladder_db *db, const ladder_key *key, uint64_t seed, uint32_t rounds,
                          const ladder_bot *bots, uint32_t n, uint32_t played, uint32_t skip)
{
    ladder_tournament_spec s;
    memset(&s, 0, sizeof s);
    s.ladder = *key;
    s.seed = seed;
    s.format = LADDER_FORMAT_ROUND_ROBIN;
    s.rounds = rounds;
    s.n_bots = n;
    s.bots = bots;
    int64_t tid = -1;
    int rc = ladder_db_tournament_create(db, &s, &tid);
    if (rc != JA_OK)
        fail_msg("create: %s: %s", ja_err_name(rc), ladder_db_errmsg(db));
    for (uint32_t i = 0; i < played; i++) {
        if (i == skip)
            continue;
        ladder_match_result r;
        memset(&r, 0, sizeof r);
        r.outcome.n_seats = 2;
        r.outcome.score[i % 2] = 27720;
        r.outcome.place[i % 2] = 1;
        r.outcome.place[1 - i % 2] = 2;
        r.turns = 10 + i;
        r.digest = "00ff";
        if ((rc = ladder_db_record_match(db, tid, i, &r)) != JA_OK)
            fail_msg("record %u: %s: %s", i, ja_err_name(rc), ladder_db_errmsg(db));
    }
    return tid;
}

/* The tournaments of the shared data set. */
typedef struct data {
    char path[160]; /* the database file */
    int64_t t1, t2, t3, t4, t5;
} data;

/* Ladder A: t1 (alpha 1.0, beta, gamma; 6 matches, all played), t3
 * (alpha 2.0, beta, gamma; match 2 still planned), an import (alpha 1.0
 * against alpha 2.0, then beta against alpha 2.0) and t5 (two rounds of
 * t1's bots, only its first two matches played: a plan on top). Ladder B,
 * whose matches lie between and above A's: t2 and t4, with alpha 1.0.
 * Ladder C (3 seats), from the import: alpha 1.0 in two seats of one
 * match. */
static void build(ladder_db *db, data *d)
{
    const ladder_bot a1bg[3] = {ALPHA1, BETA, GAMMA}, a2bg[3] = {ALPHA2, BETA, GAMMA};
    const ladder_bot a1b[2] = {ALPHA1, BETA}, a1g[2] = {ALPHA1, GAMMA};
    d->t1 = tournament(db, &KEY_A, 5, 1, a1bg, 3, 6, 99);
    d->t2 = tournament(db, &KEY_B, 5, 1, a1b, 2, 2, 99);
    d->t3 = tournament(db, &KEY_A, 7, 1, a2bg, 3, 6, 2);

    const ladder_key keys[2] = {KEY_A, KEY_C};
    const ladder_bot bots[3] = {ALPHA1, ALPHA2, BETA};
    const ladder_import_seat seats[7] = {{0, 27720, 1}, {1, 0, 2}, {0, 0, 3}, {2, 27720, 1},
                                   {0, 100, 2},   {2, 0, 2}, {1, 27720, 1}};
    const ladder_import_match m[3] = {
        {.line = 1, .ladder = 0, .number = -1, .n_seats = 2, .first_seat = 0, .turns = 5},
        {.line = 2, .ladder = 1, .number = -1, .n_seats = 3, .first_seat = 2, .turns = -1},
        {.line = 3, .ladder = 0, .number = -1, .n_seats = 2, .first_seat = 5, .has_seed = true,
         .seed = 42, .turns = 9},
    };
    ladder_import imp = {"t.jsonl", "jsonl",
                         "3333333333333333333333333333333333333333333333333333333333333333",
                         0, 2, keys, 3, bots, 0, NULL, 3, m, 7, seats};
    int rc = ladder_db_import(db, &imp, NULL);
    if (rc != JA_OK)
        fail_msg("import: %s: %s", ja_err_name(rc), ladder_db_errmsg(db));

    d->t4 = tournament(db, &KEY_B, 6, 1, a1g, 2, 2, 99);
    d->t5 = tournament(db, &KEY_A, 8, 2, a1bg, 3, 2, 99);
}

/* A new database file `name` holding build()'s data, traced (open_traced)
 * when `trace`; its path and tournaments into *d. */
static ladder_db *open_built(const char *name, bool trace, data *d)
{
    db_file(name, d->path);
    ladder_db *db = trace ? open_traced(d->path) : open_ok(d->path);
    build(db, d);
    return db;
}

/* ---- The reference: every match of a ladder by ladder_db_foreach_match ---- */

#define ALL_MAX 64

typedef struct all {
    uint32_t n;
    ladder_match_row row[ALL_MAX];
} all;

static int collect_fn(void *ctx, const ladder_match_row *m)
{
    all *a = ctx;
    if (a->n == ALL_MAX)
        return -1;
    a->row[a->n++] = *m;
    return 0;
}

static int newest_first(const void *x, const void *y)
{
    int64_t a = ((const ladder_match_row *)x)->match_id;
    int64_t b = ((const ladder_match_row *)y)->match_id;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* Whether a bot named name sits in match m (names read directly). */
static bool sits(const char *path, const ladder_match_row *m, const char *name)
{
    sqlite3 *s = NULL;
    assert_int_equal(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(s, "SELECT count(*) FROM results r JOIN bots b"
                                           " ON b.id = r.bot_id WHERE r.match_id = ?1"
                                           " AND b.name = ?2",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, m->match_id);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    bool yes = sqlite3_column_int64(st, 0) > 0;
    sqlite3_finalize(st);
    sqlite3_close(s);
    return yes;
}

/* The expected selection: the ladder's matches (of name, when not NULL)
 * newest first, deal being each match's own. */
static void expected(ladder_db *db, const ladder_key *key, const char *name, all *out)
{
    all a = {0};
    assert_int_equal(ladder_db_foreach_match(db, key, collect_fn, &a), JA_OK);
    out->n = 0;
    for (uint32_t i = 0; i < a.n; i++) {
        if (name != NULL && !sits(ladder_db_path(db), &a.row[i], name))
            continue;
        ladder_match_row r = a.row[i];
        r.deal = r.match_id;
        r.deal_tournament = r.tournament_id;
        out->row[out->n++] = r;
    }
    qsort(out->row, out->n, sizeof out->row[0], newest_first);
}

static void assert_same_row(const ladder_match_row *a, const ladder_match_row *b)
{
    assert_int_equal(a->match_id, b->match_id);
    assert_int_equal(a->tournament_id, b->tournament_id);
    assert_int_equal(a->number, b->number);
    assert_int_equal(a->n_seats, b->n_seats);
    for (uint32_t s = 0; s < a->n_seats; s++) {
        assert_int_equal(a->bot_id[s], b->bot_id[s]);
        assert_int_equal(a->score[s], b->score[s]);
        assert_int_equal(a->place[s], b->place[s]);
        assert_true(a->elo_before[s] == b->elo_before[s]);
        assert_true(a->elo_delta[s] == b->elo_delta[s]);
        assert_int_equal(a->games_before[s], b->games_before[s]);
    }
    assert_int_equal(a->deal, b->deal);
    assert_int_equal(a->deal_tournament, b->deal_tournament);
    assert_int_equal(a->source_kind, b->source_kind);
    assert_int_equal(a->source_int, b->source_int);
    assert_string_equal(a->source_text, b->source_text);
    assert_int_equal(a->has_seed, b->has_seed);
    assert_true(a->seed == b->seed);
    assert_int_equal(a->turns, b->turns);
    assert_string_equal(a->digest, b->digest);
    assert_string_equal(a->finished, b->finished);
}

/* ladder_db_match_page, which must succeed; the rows (caller frees). */
static ladder_match_row *page_ok(ladder_db *db, const ladder_key *key, const char *name,
                                 int64_t before, uint32_t limit, uint32_t *n, bool *more)
{
    ladder_match_row *rows = (ladder_match_row *)n; /* must become NULL or an array */
    *n = UINT32_MAX;
    int rc = ladder_db_match_page(db, key, name, before, limit, &rows, n, more);
    if (rc != JA_OK)
        fail_msg("page: %s: %s", ja_err_name(rc), ladder_db_errmsg(db));
    assert_string_equal(ladder_db_errmsg(db), "");
    assert_true(*n <= limit);
    assert_true(*n == 0 ? rows == NULL : rows != NULL);
    for (uint32_t i = 1; i < *n; i++)
        assert_true(rows[i].match_id < rows[i - 1].match_id);
    return rows;
}

/* Every page of a selection, limit rows each, concatenated into *got;
 * checks each page's size and *more, and returns how many pages. */
static int walk_pages(ladder_db *db, const ladder_key *key, const char *name, uint32_t limit,
                      all *got)
{
    got->n = 0;
    int64_t before = 0;
    int pages = 0;
    for (;;) {
        uint32_t n;
        bool more;
        ladder_match_row *rows = page_ok(db, key, name, before, limit, &n, &more);
        pages++;
        assert_true(more ? n == limit : true);
        for (uint32_t i = 0; i < n; i++) {
            assert_true(got->n < ALL_MAX);
            if (before > 0)
                assert_true(rows[i].match_id < before);
            got->row[got->n++] = rows[i];
        }
        if (n > 0)
            before = rows[n - 1].match_id;
        free(rows);
        if (!more)
            return pages;
        assert_true(pages < 100);
    }
}

/* ---- Pages ------------------------------------------------------------------ */

static void test_page_all(void **state)
{
    (void)state;
    data d;
    ladder_db *db = open_built("all", false, &d);
    all want;
    expected(db, &KEY_A, NULL, &want);
    /* t1's 6, t3's 5, the import's 2 and t5's 2. */
    assert_int_equal(want.n, 15);
    uint32_t n;
    bool more;
    ladder_match_row *rows = page_ok(db, &KEY_A, NULL, 0, LADDER_PAGE_MAX, &n, &more);
    assert_int_equal(n, want.n);
    assert_false(more);
    for (uint32_t i = 0; i < n; i++) {
        assert_same_row(&rows[i], &want.row[i]);
        /* Never another ladder's; never a planned match. */
        assert_true(rows[i].tournament_id != d.t2 && rows[i].tournament_id != d.t4);
        assert_false(rows[i].tournament_id == d.t3 && rows[i].number == 2);
    }
    /* The newest are t5's, above t4's (ladder B). */
    assert_int_equal(rows[0].tournament_id, d.t5);
    assert_int_equal(rows[0].number, 1);
    free(rows);

    /* Ladder B alone, and an unknown ladder (no rows, no error). */
    rows = page_ok(db, &KEY_B, NULL, 0, 10, &n, &more);
    assert_int_equal(n, 4);
    assert_false(more);
    for (uint32_t i = 0; i < n; i++)
        assert_true(rows[i].tournament_id == d.t2 || rows[i].tournament_id == d.t4);
    free(rows);
    assert_null(page_ok(db, &KEY_NONE, NULL, 0, 10, &n, &more));
    assert_false(more);
    ladder_db_close(&db);
}

/* Every limit and selection: the pages reach every match once, in order,
 * *more false only on the last. */
static void test_pagination(void **state)
{
    (void)state;
    data d;
    ladder_db *db = open_built("pagination", false, &d);
    const char *names[] = {NULL, "alpha", "beta", "gamma"};
    const ladder_key *keys[] = {&KEY_A, &KEY_B, &KEY_C};
    all want, got;
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < 4; i++) {
            expected(db, keys[k], names[i], &want);
            for (uint32_t limit = 1; limit <= 7; limit++) {
                int pages = walk_pages(db, keys[k], names[i], limit, &got);
                assert_int_equal(got.n, want.n);
                /* *more is exact: no empty page after a full last one. */
                assert_int_equal(pages, want.n == 0 ? 1 : (want.n + limit - 1) / limit);
                for (uint32_t j = 0; j < got.n; j++)
                    assert_same_row(&got.row[j], &want.row[j]);
            }
        }
    /* before inside the list: exactly the older ones. */
    expected(db, &KEY_A, NULL, &want);
    uint32_t n;
    bool more;
    ladder_match_row *rows = page_ok(db, &KEY_A, NULL, want.row[4].match_id, 3, &n, &more);
    assert_int_equal(n, 3);
    assert_true(more);
    for (uint32_t j = 0; j < n; j++)
        assert_same_row(&rows[j], &want.row[5 + j]);
    free(rows);
    /* before at the oldest: nothing older. */
    assert_null(page_ok(db, &KEY_A, NULL, want.row[want.n - 1].match_id, 3, &n, &more));
    assert_false(more);
    ladder_db_close(&db);
}

static void test_by_name(void **state)
{
    (void)state;
    data d;
    ladder_db *db = open_built("by_name", false, &d);
    all want;
    expected(db, &KEY_A, "alpha", &want);
    uint32_t n;
    bool more;
    ladder_match_row *rows = page_ok(db, &KEY_A, "alpha", 0, 100, &n, &more);
    assert_false(more);
    /* Both versions: alpha 1.0's in t1 (4 of its 6), alpha 2.0's in t3,
     * both in the import; the import's alpha 1.0 against alpha 2.0 (the
     * match of 5 turns) once. */
    assert_int_equal(n, want.n);
    int v1 = 0, v2 = 0, imported = 0, both = 0;
    for (uint32_t i = 0; i < n; i++) {
        assert_same_row(&rows[i], &want.row[i]);
        v1 += rows[i].tournament_id == d.t1;
        v2 += rows[i].tournament_id == d.t3;
        imported += rows[i].tournament_id > d.t3 && rows[i].tournament_id < d.t4;
        both += rows[i].turns == 5 && rows[i].bot_id[0] != rows[i].bot_id[1];
    }
    assert_int_equal(v1, 4);
    assert_true(v2 >= 3);
    assert_int_equal(imported, 2);
    assert_int_equal(both, 1);
    free(rows);

    /* Ladder B: alpha 1.0 sat in all 4. Ladder C: alpha 1.0 in two seats of
     * its one match, listed once. */
    free(page_ok(db, &KEY_B, "alpha", 0, 100, &n, &more));
    assert_int_equal(n, 4);
    rows = page_ok(db, &KEY_C, "alpha", 0, 1, &n, &more);
    assert_int_equal(n, 1);
    assert_false(more);
    assert_int_equal(rows[0].n_seats, 3);
    assert_int_equal(rows[0].bot_id[0], rows[0].bot_id[2]);
    free(rows);

    /* A name nobody has, a prefix of one, another case of one; a bot of
     * other ladders only. */
    const char *nobody[] = {"nobody", "alph", "Alpha"};
    for (size_t i = 0; i < 3; i++) {
        assert_null(page_ok(db, &KEY_A, nobody[i], 0, 5, &n, &more));
        assert_false(more);
    }
    assert_null(page_ok(db, &KEY_C, "gamma", 0, 5, &n, &more));
    ladder_db_close(&db);
}

/* ---- One match ------------------------------------------------------------- */

static void test_match_row(void **state)
{
    (void)state;
    data d;
    ladder_db *db = open_built("match_row", false, &d);
    all want;
    expected(db, &KEY_A, NULL, &want);
    ladder_match_row row, keep;
    for (uint32_t i = 0; i < want.n; i++) {
        memset(&row, 0xa5, sizeof row);
        assert_int_equal(ladder_db_match_row(db, &KEY_A, want.row[i].tournament_id,
                                             want.row[i].number, &row),
                         JA_OK);
        assert_same_row(&row, &want.row[i]);
    }
    memset(&keep, 0x5a, sizeof keep);
    row = keep;
    /* Planned, missing, unknown tournament, another ladder's, unknown
     * ladder: not found, *out untouched, and the message names the match. */
    assert_int_equal(ladder_db_match_row(db, &KEY_A, d.t3, 2, &row), JA_ENOTFOUND);
    assert_non_null(strstr(ladder_db_errmsg(db), "no finished match 2 of tournament"));
    assert_non_null(strstr(ladder_db_errmsg(db), d.path));
    assert_int_equal(ladder_db_match_row(db, &KEY_A, d.t5, 5, &row), JA_ENOTFOUND);
    assert_int_equal(ladder_db_match_row(db, &KEY_A, d.t1, 6, &row), JA_ENOTFOUND);
    assert_int_equal(ladder_db_match_row(db, &KEY_A, 999, 0, &row), JA_ENOTFOUND);
    assert_int_equal(ladder_db_match_row(db, &KEY_A, d.t2, 0, &row), JA_ENOTFOUND);
    assert_int_equal(ladder_db_match_row(db, &KEY_NONE, d.t1, 0, &row), JA_ENOTFOUND);
    assert_memory_equal(&row, &keep, sizeof row);
    /* The same match through its own ladder. */
    assert_int_equal(ladder_db_match_row(db, &KEY_B, d.t2, 0, &row), JA_OK);
    assert_string_equal(ladder_db_errmsg(db), "");
    assert_int_equal(row.tournament_id, d.t2);
    assert_int_equal(row.deal, row.match_id);
    assert_int_equal(row.deal_tournament, d.t2);
    /* The handle is usable afterwards: its read transactions ended. */
    ladder_match_result r = {.outcome = {.n_seats = 2, .place = {1, 2}}};
    assert_int_equal(ladder_db_record_match(db, d.t3, 2, &r), JA_OK);
    assert_int_equal(ladder_db_match_row(db, &KEY_A, d.t3, 2, &row), JA_OK);
    assert_int_equal(row.turns, 0);
    ladder_db_close(&db);
}

/* Each result's games_before, by match and seat. */
#define STEPS_SQL "SELECT games_before FROM results ORDER BY match_id, seat"

/* What each should be when the matches were rated in match id order: the
 * bot's finished matches in the same ladder before this one (a match
 * counted once however many seats the bot held), by match and seat. */
#define COUNTED_SQL                                                                      \
    "SELECT (SELECT count(DISTINCT r2.match_id) FROM results r2"                         \
    "        JOIN matches m2 ON m2.id = r2.match_id"                                     \
    "        JOIN tournaments t2 ON t2.id = m2.tournament_id"                            \
    "        WHERE r2.bot_id = r.bot_id AND t2.ladder_id = t.ladder_id"                  \
    "          AND r2.match_id < r.match_id)"                                            \
    " FROM results r JOIN matches m ON m.id = r.match_id"                                \
    " JOIN tournaments t ON t.id = m.tournament_id ORDER BY r.match_id, r.seat"

/* Every result of path numbered as COUNTED_SQL counts, none NULL. */
static void assert_steps_counted(const char *path)
{
    int64_t steps[RAW_MAX], counted[RAW_MAX];
    uint32_t n = raw_ints(path, STEPS_SQL, steps);
    assert_true(n > 0);
    assert_int_equal(raw_ints(path, COUNTED_SQL, counted), n);
    for (uint32_t i = 0; i < n; i++)
        if (steps[i] != counted[i])
            fail_msg("result %u of %u: games_before %lld, %lld earlier matches", i, n,
                     (long long)steps[i], (long long)counted[i]);
}

/* Takes a closed file of the current version back to version 4: results
 * without games_before and tournaments without seating (version 6) and
 * deals (version 7), their
 * columns then those of a genuine version-4 file (migrations 1 to 4 run on
 * an empty one). */
static void downgrade_to_v4(const char *path)
{
    raw_exec(path, "ALTER TABLE tournaments DROP COLUMN deals;"
                   " ALTER TABLE tournaments DROP COLUMN seating;"
                   " ALTER TABLE results DROP COLUMN games_before; PRAGMA user_version = 4;");
    char v4[160];
    db_file("genuine_v4", v4);
    remove(v4);
    for (int i = 0; i < 4; i++)
        raw_exec(v4, ladder__migrations[i].sql);
    const char *cols[2] = {
        "SELECT group_concat(name || ' ' || type || ' ' || \"notnull\", ', ')"
        " FROM (SELECT * FROM pragma_table_info('results') ORDER BY cid)",
        "SELECT group_concat(name || ' ' || type || ' ' || \"notnull\", ', ')"
        " FROM (SELECT * FROM pragma_table_info('tournaments') ORDER BY cid)"};
    for (int i = 0; i < 2; i++) {
        char a[512], b[512];
        assert_string_equal(raw_text(path, cols[i], a, sizeof a),
                            raw_text(v4, cols[i], b, sizeof b));
    }
    assert_int_equal(raw_int(path, "SELECT count(*) FROM pragma_table_info('results')"
                                   " WHERE name = 'games_before'"),
                     0);
    assert_int_equal(raw_int(path, "PRAGMA user_version"), 4);
    remove(v4);
}

/* ---- A bot's live Elo ------------------------------------------------------------ */

/* ladder_db_elo_history, which must succeed; the steps (caller frees). */
static ladder_elo_step *history_ok(ladder_db *db, const ladder_key *key, const char *name,
                                   uint32_t *n)
{
    ladder_elo_step *steps = (ladder_elo_step *)n; /* must become NULL or an array */
    *n = UINT32_MAX;
    int rc = ladder_db_elo_history(db, key, name, &steps, n);
    if (rc != JA_OK)
        fail_msg("history: %s: %s", ja_err_name(rc), ladder_db_errmsg(db));
    assert_string_equal(ladder_db_errmsg(db), "");
    assert_true(*n == 0 ? steps == NULL : steps != NULL);
    return steps;
}

/* The history of name in ladder key against the full walk and the live
 * ratings: a step per match and bot of that name, each bot's steps its
 * games 0, 1, 2 ..., each one's Elo before the previous one's after (the
 * rating sequence, exactly), the last one's after the bot's live Elo;
 * ordered by tournament, then step. Returns the steps (caller frees). */
static ladder_elo_step *check_history(ladder_db *db, const ladder_key *key, const char *name,
                                      uint32_t *n)
{
    ladder_elo_step *steps = history_ok(db, key, name, n);
    all a = {0};
    assert_int_equal(ladder_db_foreach_match(db, key, collect_fn, &a), JA_OK);
    uint32_t want = 0;
    for (uint32_t i = 0; i < a.n; i++)
        for (uint32_t s = 0; s < a.row[i].n_seats; s++) {
            const ladder_match_row *m = &a.row[i];
            bool first = true;
            for (uint32_t t = 0; t < s; t++)
                first &= m->bot_id[t] != m->bot_id[s];
            ladder_bot_row b;
            assert_int_equal(ladder_db_bot_row(db, m->bot_id[s], &b), JA_OK);
            if (!first || strcmp(b.name, name) != 0)
                continue;
            want++;
            uint32_t k = 0;
            while (k < *n && (steps[k].match_id != m->match_id || steps[k].bot_id != b.id))
                k++;
            assert_true(k < *n);
            assert_int_equal(steps[k].tournament_id, m->tournament_id);
            assert_int_equal(steps[k].number, m->number);
            assert_int_equal(steps[k].games_before, m->games_before[s]);
            assert_true(steps[k].elo_before == m->elo_before[s]);
            assert_true(steps[k].elo_after == ladder_match_elo_after(m, s));
        }
    assert_int_equal(*n, want);
    ladder_rating *rt = NULL;
    uint32_t n_rt = 0;
    assert_int_equal(ladder_db_ratings(db, key, &rt, &n_rt), JA_OK);
    for (uint32_t r = 0; r < n_rt; r++) {
        int64_t games = 0;
        double elo = LADDER_ELO_INITIAL;
        for (uint32_t k = 0; k < *n; k++) {
            if (steps[k].bot_id != rt[r].bot_id)
                continue;
            assert_int_equal(steps[k].games_before, games++);
            assert_true(steps[k].elo_before == elo);
            elo = steps[k].elo_after;
        }
        if (games > 0) {
            assert_int_equal(games, rt[r].games);
            assert_true(elo == rt[r].elo);
        }
    }
    free(rt);
    for (uint32_t k = 1; k < *n; k++)
        assert_true(steps[k - 1].tournament_id < steps[k].tournament_id ||
                    (steps[k - 1].tournament_id == steps[k].tournament_id &&
                     steps[k - 1].games_before <= steps[k].games_before));
    return steps;
}

static void test_elo_history(void **state)
{
    (void)state;
    data d;
    ladder_db *db = open_built("history", false, &d);
    const char *names[] = {"alpha", "beta", "gamma"};
    const ladder_key *keys[] = {&KEY_A, &KEY_B, &KEY_C};
    uint32_t n;
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < 3; i++)
            free(check_history(db, keys[k], names[i], &n));
    /* alpha's two versions in ladder A: 1.0's in t1, the import and t5,
     * 2.0's in t3 and the import (their match there a step of each). */
    ladder_elo_step *steps = check_history(db, &KEY_A, "alpha", &n);
    assert_int_equal(n, 12);
    free(steps);
    /* Ladder C: alpha 1.0 in two seats of one match, one step. */
    steps = check_history(db, &KEY_C, "alpha", &n);
    assert_int_equal(n, 1);
    assert_true(steps[0].elo_after != steps[0].elo_before);
    free(steps);
    /* Nobody, a bot of other ladders only, an unknown ladder: no steps. */
    assert_null(history_ok(db, &KEY_A, "nobody", &n));
    assert_null(history_ok(db, &KEY_C, "gamma", &n));
    assert_null(history_ok(db, &KEY_NONE, "alpha", &n));
    ladder_db_close(&db);
}

/* Matches rated out of their plan's order (as matches played at once
 * end): the history follows the ratings, not the match ids. */
static void test_elo_history_order(void **state)
{
    (void)state;
    char path[160];
    ladder_db *db = open_ok(db_file("history_order", path));
    const ladder_bot bots[2] = {ALPHA1, BETA};
    int64_t tid = tournament(db, &KEY_A, 5, 3, bots, 2, 0, 99);
    const uint32_t order[6] = {4, 1, 5, 0, 3, 2};
    for (uint32_t i = 0; i < 6; i++) {
        /* Seat 0 wins, loses, draws in turn. */
        ladder_match_result r = {.outcome = {.n_seats = 2, .place = {1, 2}}};
        if (i % 3 == 1)
            r.outcome.place[0] = 2, r.outcome.place[1] = 1;
        if (i % 3 == 2)
            r.outcome.place[1] = 1;
        assert_int_equal(ladder_db_record_match(db, tid, order[i], &r), JA_OK);
    }
    uint32_t n;
    ladder_elo_step *steps = check_history(db, &KEY_A, "alpha", &n);
    assert_int_equal(n, 6);
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(steps[i].number, order[i]);
        assert_int_equal(steps[i].games_before, i);
    }
    free(steps);
    ladder_db_close(&db);
    /* Taken back to version 4, which kept no rating order: the migration
     * numbers the results in match id order (docs/database.md), so the
     * steps now come in plan order. */
    downgrade_to_v4(path);
    db = open_ok(path);
    assert_steps_counted(path);
    steps = history_ok(db, &KEY_A, "alpha", &n);
    assert_int_equal(n, 6);
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(steps[i].number, i);
        assert_int_equal(steps[i].games_before, i);
    }
    free(steps);
    ladder_db_close(&db);
}

/* ---- From schema version 4, with data ------------------------------------------ */

/* A file of build()'s data taken back to version 4, and opened again: the
 * migration gives each result the count of its bot's earlier finished
 * matches in the ladder (counted here by a query of its own, not the
 * migration's window function); as build() recorded its matches in match
 * id order, those are the values the store wrote when it rated them, and
 * every history reads back the same, chained exactly from 1500 to the live
 * ratings. A match recorded after the upgrade continues the count. */
static void test_migrate_from_v4(void **state)
{
    (void)state;
    data d;
    ladder_db *db = open_built("from_v4", false, &d);
    const ladder_key *keys[3] = {&KEY_A, &KEY_B, &KEY_C};
    const char *names[3] = {"alpha", "beta", "gamma"};
    ladder_elo_step *before[3][3];
    uint32_t n_before[3][3];
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < 3; i++)
            before[k][i] = check_history(db, keys[k], names[i], &n_before[k][i]);
    ladder_db_close(&db);
    int64_t written[RAW_MAX];
    uint32_t n = raw_ints(d.path, STEPS_SQL, written);
    assert_int_equal(n, raw_int(d.path, "SELECT count(*) FROM results"));
    assert_steps_counted(d.path);

    downgrade_to_v4(d.path);
    db = open_ok(d.path);
    int v = 0;
    assert_int_equal(ladder_db_schema_version(db, &v), JA_OK);
    assert_int_equal(v, LADDER_DB_SCHEMA_VERSION);
    int64_t migrated[RAW_MAX];
    assert_int_equal(raw_ints(d.path, STEPS_SQL, migrated), n);
    assert_memory_equal(migrated, written, n * sizeof written[0]);
    assert_steps_counted(d.path);
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < 3; i++) {
            uint32_t m;
            ladder_elo_step *after = check_history(db, keys[k], names[i], &m);
            assert_int_equal(m, n_before[k][i]);
            for (uint32_t j = 0; j < m; j++) {
                const ladder_elo_step *x = &after[j], *y = &before[k][i][j];
                assert_true(x->bot_id == y->bot_id && x->match_id == y->match_id &&
                            x->games_before == y->games_before);
                assert_true(x->elo_before == y->elo_before && x->elo_after == y->elo_after);
            }
            free(after);
            free(before[k][i]);
        }

    /* t5's third match, recorded now: the next step of alpha 1.0 and beta. */
    ladder_match_result r = {.outcome = {.n_seats = 2, .place = {1, 2}}};
    assert_int_equal(ladder_db_record_match(db, d.t5, 2, &r), JA_OK);
    assert_steps_counted(d.path);
    for (size_t i = 0; i < 3; i++) {
        uint32_t m;
        free(check_history(db, &KEY_A, names[i], &m));
    }
    ladder_db_close(&db);
}

/* ---- Bad arguments ------------------------------------------------------------ */

static void test_bad_arguments(void **state)
{
    (void)state;
    data d;
    ladder_db *db = open_built("bad_arguments", false, &d);
    ladder_match_row *rows = NULL, row;
    uint32_t n = 0;
    bool more = false;
    const ladder_key bad_seats = {"taylor-blackjack", 1, ""};
    const ladder_key no_game = {NULL, 2, ""};
    const ladder_key no_options = {"taylor-blackjack", 2, NULL};
    char long_name[LADDER_NAME_MAX + 1];
    memset(long_name, 'a', LADDER_NAME_MAX);
    long_name[LADDER_NAME_MAX] = '\0';

    assert_int_equal(ladder_db_match_page(NULL, &KEY_A, NULL, 0, 5, &rows, &n, &more), JA_EINVAL);
    assert_int_equal(ladder_db_match_page(db, NULL, NULL, 0, 5, &rows, &n, &more), JA_EINVAL);
    assert_int_equal(ladder_db_match_page(db, &bad_seats, NULL, 0, 5, &rows, &n, &more),
                     JA_EINVAL);
    assert_int_equal(ladder_db_match_page(db, &no_game, NULL, 0, 5, &rows, &n, &more), JA_EINVAL);
    assert_int_equal(ladder_db_match_page(db, &no_options, NULL, 0, 5, &rows, &n, &more),
                     JA_EINVAL);
    assert_int_equal(ladder_db_match_page(db, &KEY_A, NULL, 0, 5, NULL, &n, &more), JA_EINVAL);
    assert_int_equal(ladder_db_match_page(db, &KEY_A, NULL, 0, 5, &rows, NULL, &more), JA_EINVAL);
    assert_int_equal(ladder_db_match_page(db, &KEY_A, NULL, 0, 5, &rows, &n, NULL), JA_EINVAL);
    assert_int_equal(ladder_db_match_page(db, &KEY_A, NULL, 0, 0, &rows, &n, &more), JA_EINVAL);
    assert_non_null(strstr(ladder_db_errmsg(db), "1 to 1000"));
    assert_int_equal(ladder_db_match_page(db, &KEY_A, NULL, 0, LADDER_PAGE_MAX + 1, &rows, &n,
                                          &more),
                     JA_EINVAL);
    assert_int_equal(ladder_db_match_page(db, &KEY_A, "", 0, 5, &rows, &n, &more), JA_EINVAL);
    assert_int_equal(ladder_db_match_page(db, &KEY_A, long_name, 0, 5, &rows, &n, &more),
                     JA_EINVAL);
    /* An unknown ladder is no excuse for a bad limit. */
    assert_int_equal(ladder_db_match_page(db, &KEY_NONE, NULL, 0, 0, &rows, &n, &more),
                     JA_EINVAL);

    assert_int_equal(ladder_db_match_row(NULL, &KEY_A, d.t1, 0, &row), JA_EINVAL);
    assert_int_equal(ladder_db_match_row(db, NULL, d.t1, 0, &row), JA_EINVAL);
    assert_int_equal(ladder_db_match_row(db, &bad_seats, d.t1, 0, &row), JA_EINVAL);
    assert_int_equal(ladder_db_match_row(db, &KEY_A, d.t1, 0, NULL), JA_EINVAL);

    ladder_elo_step *steps = NULL;
    assert_int_equal(ladder_db_elo_history(NULL, &KEY_A, "alpha", &steps, &n), JA_EINVAL);
    assert_int_equal(ladder_db_elo_history(db, NULL, "alpha", &steps, &n), JA_EINVAL);
    assert_int_equal(ladder_db_elo_history(db, &bad_seats, "alpha", &steps, &n), JA_EINVAL);
    assert_int_equal(ladder_db_elo_history(db, &KEY_A, NULL, &steps, &n), JA_EINVAL);
    assert_int_equal(ladder_db_elo_history(db, &KEY_A, "", &steps, &n), JA_EINVAL);
    assert_non_null(strstr(ladder_db_errmsg(db), "a bot name has 1 to"));
    assert_int_equal(ladder_db_elo_history(db, &KEY_A, long_name, &steps, &n), JA_EINVAL);
    assert_int_equal(ladder_db_elo_history(db, &KEY_NONE, "", &steps, &n), JA_EINVAL);
    assert_int_equal(ladder_db_elo_history(db, &KEY_A, "alpha", NULL, &n), JA_EINVAL);
    assert_int_equal(ladder_db_elo_history(db, &KEY_A, "alpha", &steps, NULL), JA_EINVAL);

    /* None of it left a transaction open: a write goes through. */
    tournament(db, &KEY_A, 11, 1, (ladder_bot[2]){BETA, GAMMA}, 2, 1, 99);
    free(page_ok(db, &KEY_A, "beta", 0, 1, &n, &more));
    assert_int_equal(n, 1);
    assert_true(more);
    ladder_db_close(&db);
}

/* ---- Through indexes only ------------------------------------------------------ */

/* Runs EXPLAIN QUERY PLAN on sql in a connection of its own to path;
 * returns the plan's lines, joined by '\n', in buf. */
static void explain(const char *path, const char *sql, char *buf, size_t cap)
{
    sqlite3 *s = NULL;
    assert_int_equal(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char q[1200];
    snprintf(q, sizeof q, "EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s, q, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", q, sqlite3_errmsg(s));
    size_t len = 0;
    buf[0] = '\0';
    while (sqlite3_step(st) == SQLITE_ROW)
        len += (size_t)snprintf(buf + len, cap - len, "%s\n",
                                (const char *)sqlite3_column_text(st, 3));
    assert_true(len < cap);
    sqlite3_finalize(st);
    sqlite3_close(s);
}

/* Every SELECT the two calls run, explained: only searches (SEARCH ...
 * USING INDEX / PRIMARY KEY), no SCAN of a table, no temporary B-tree (a
 * sort of everything selected, before the LIMIT). */
static void test_query_plans(void **state)
{
    (void)state;
    data d;
    ladder_db *db = open_built("plans", true, &d);
    traced.on = true;
    uint32_t n;
    bool more;
    ladder_match_row *rows = page_ok(db, &KEY_A, NULL, 0, 3, &n, &more);
    int64_t before = rows[2].match_id;
    free(rows);
    free(page_ok(db, &KEY_A, "alpha", before, 3, &n, &more));
    assert_int_equal(n, 3);
    ladder_match_row row;
    assert_int_equal(ladder_db_match_row(db, &KEY_A, d.t1, 1, &row), JA_OK);
    assert_int_equal(ladder_db_match_row(db, &KEY_A, d.t3, 2, &row), JA_ENOTFOUND);
    ladder_elo_step *steps = history_ok(db, &KEY_A, "alpha", &n);
    assert_int_equal(n, 12);
    free(steps);
    traced.on = false;
    ladder_db_close(&db);

    /* The ladder, the name's bots, the two walks, the match by number and
     * the match's rows. */
    assert_true(traced.n >= 6);
    bool by_bot = false, by_result = false, history = false;
    for (int i = 0; i < traced.n; i++) {
        char plan[2048];
        explain(d.path, traced.sql[i], plan, sizeof plan);
        if (strstr(plan, "SCAN") != NULL || strstr(plan, "TEMP B-TREE") != NULL ||
            strstr(plan, "SEARCH") == NULL)
            fail_msg("%s\nplans as\n%s", traced.sql[i], plan);
        by_bot |= strstr(plan, "INDEX results_bot (bot_id=? AND match_id<?)") != NULL;
        by_result |= strstr(plan, "SEARCH r USING PRIMARY KEY (match_id<?)") != NULL;
        history |= strstr(plan, "INDEX results_bot (bot_id=?)") != NULL;
    }
    assert_true(by_bot);
    assert_true(by_result);
    assert_true(history);
}

static int count_fn(void *ctx, const ladder_match_row *m)
{
    (void)m;
    (*(uint32_t *)ctx)++;
    return 0;
}

/* The steps of the calls' statements on a ladder of `matches` matches
 * (imported, bots b0..b3 and alpha in turn), with `planned` matches of a
 * tournament not yet played above them: pages of 10, all and alpha's, from
 * the top and from the middle, and one match; and of a foreach_match. */
static void cost(const char *path, uint32_t matches, uint32_t planned, int64_t *steps,
                 int64_t *walk_steps)
{
    ladder_db *db = open_traced(path);
    const ladder_bot bots[5] = {{"b0", "", "import", "", NULL}, {"b1", "", "import", "", NULL},
                                {"b2", "", "import", "", NULL}, {"b3", "", "import", "", NULL},
                                ALPHA1};
    ladder_import_match *m = calloc(matches, sizeof *m);
    ladder_import_seat *s = calloc(2 * (size_t)matches, sizeof *s);
    assert_non_null(m);
    assert_non_null(s);
    for (uint32_t i = 0; i < matches; i++) {
        m[i] = (ladder_import_match){.line = i + 1, .number = -1, .n_seats = 2,
                                     .first_seat = 2 * i, .turns = -1};
        s[2 * i] = (ladder_import_seat){i % 5, 27720, 1};
        s[2 * i + 1] = (ladder_import_seat){(i + 1) % 5, 0, 2};
    }
    ladder_import imp = {"big.jsonl", "jsonl",
                         "4444444444444444444444444444444444444444444444444444444444444444",
                         0, 1, &KEY_A, 5, bots, 0, NULL, matches, m, 2 * matches, s};
    assert_int_equal(ladder_db_import(db, &imp, NULL), JA_OK);
    free(m);
    free(s);
    if (planned > 0) {
        /* 8 bots: 56 matches a round. */
        ladder_bot eight[8];
        char names[8][8];
        for (int i = 0; i < 8; i++) {
            snprintf(names[i], sizeof names[i], "p%d", i);
            eight[i] = (ladder_bot){names[i], "", "builtin", "random", NULL};
        }
        tournament(db, &KEY_A, 3, planned / 56, eight, 8, 0, 99);
    }

    ladder_match_row row;
    uint32_t n;
    bool more;
    traced.steps = 0;
    traced.on = true;
    free(page_ok(db, &KEY_A, NULL, 0, 10, &n, &more));
    assert_int_equal(n, 10);
    free(page_ok(db, &KEY_A, "alpha", 0, 10, &n, &more));
    assert_int_equal(n, 10);
    free(page_ok(db, &KEY_A, "alpha", matches / 2, 10, &n, &more));
    assert_int_equal(n, 10);
    assert_int_equal(ladder_db_match_row(db, &KEY_A, 1, matches / 3, &row), JA_OK);
    *steps = traced.steps;
    traced.steps = 0;
    uint32_t count = 0;
    assert_int_equal(ladder_db_foreach_match(db, &KEY_A, count_fn, &count), JA_OK);
    assert_int_equal(count, matches);
    *walk_steps = traced.steps;
    traced.on = false;
    ladder_db_close(&db);
}

static void test_cost_flat(void **state)
{
    (void)state;
    char small_path[160], large_path[160];
    int64_t small, small_walk, large, large_walk;
    cost(db_file("small", small_path), 250, 0, &small, &small_walk);
    cost(db_file("large", large_path), 5000, 56 * 20, &large, &large_walk);
    /* The measure sees a walk of the ladder grow with it... */
    assert_true(large_walk > 10 * small_walk);
    /* ...and these calls not: the same work on a ladder 20 times larger
     * under an unplayed plan of 1120 matches. */
    if (large > small + small / 10)
        fail_msg("%lld VM steps on 5000 matches against %lld on 250", (long long)large,
                 (long long)small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_all),      cmocka_unit_test(test_pagination),
        cmocka_unit_test(test_by_name),       cmocka_unit_test(test_match_row),
        cmocka_unit_test(test_bad_arguments), cmocka_unit_test(test_query_plans),
        cmocka_unit_test(test_cost_flat),     cmocka_unit_test(test_elo_history),
        cmocka_unit_test(test_elo_history_order), cmocka_unit_test(test_migrate_from_v4),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
