/* Unit tests of schema versions 2 to 6 and imports in the ladder database
 * (ladders/ladder_db.h, schema.c): a version-1 file, written with the
 * released migration 1 exactly and filled with a duplicate tournament,
 * opens at the current version with every row kept and its duplicate sets
 * found; a fresh file takes tournaments and results of 2 to JA_MAX_SEATS
 * seats and refuses one more; a version-2 file (seat counts bounded by 12),
 * written with migrations 1 and 2 exactly, migrates with every row kept and
 * then takes a JA_MAX_SEATS-seat match; a version-3 file with an import
 * migrates to version 4 with no source names and then takes them; a
 * version-4 file gets each result's step in its bot's live Elo
 * (games_before), numbered per ladder and bot, and a match recorded then
 * continues from the bot's count; a version-5 file's tournament reads
 * 'cyclic' seating, is found again by any seating or by cyclic, not by
 * balanced, and resumes with its stored plan; imports
 * store their tournaments, matches, results and live Elo in one
 * transaction; a file is imported once; a bad import, or one that fails
 * part-way, writes nothing.
 *
 * Checks of what is on disk go through a second, raw SQLite connection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "jackarena/ja_error.h"
#include "ladder_db.h"
#include "ladder_db_int.h"
#include "ladder_raw.h"

typedef struct fx {
    char dir[64];
    char db[128];
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/ja-import-XXXXXX");
    if (mkdtemp(f->dir) == NULL) {
        free(f);
        return -1;
    }
    snprintf(f->db, sizeof f->db, "%s/arena.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    for (int i = 0; i < 4; i++) {
        char p[160];
        snprintf(p, sizeof p, "%s%s", f->db, suffix[i]);
        unlink(p);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

static ladder_db *open_ok(const char *path)
{
    ladder_db *db = NULL;
    int rc = ladder_db_open(path, &db);
    if (rc != JA_OK)
        fail_msg("open: %s", ladder_db_errmsg(db));
    return db;
}

/* ---- Version 1 -> the current version --------------------------------------- */

/* A version-1 database as the released code wrote it: migration 1's own
 * SQL, then one duplicate tournament of 2 bots: 2 deals x 2 rotations, the
 * rotations of a deal sharing its seed, all recorded. */
static void write_v1(const char *path)
{
    raw_exec(path, ladder__migrations[0].sql);
    raw_exec(
        path,
        "PRAGMA user_version = 1;"
        "INSERT INTO bots VALUES (1, 'random', '1.0', 'builtin', 'random', NULL, 'T');"
        "INSERT INTO bots VALUES (2, 'greedy', '1.0', 'builtin', 'greedy', NULL, 'T');"
        "INSERT INTO ladders VALUES (1, 'taylor-blackjack', 2, 'games=4');"
        "INSERT INTO tournaments VALUES (1, 1, '18446744073709551615', 'round-robin', 2, 1,"
        " 2, 4, 'done', 'T', 'T');"
        "INSERT INTO participants VALUES (1, 0, 1, 'random'), (1, 1, 2, 'greedy');"
        "INSERT INTO matches VALUES (1, 1, 0, 0, 0, 0, '111', 'done', 30, NULL, NULL, 'T'),"
        " (2, 1, 1, 0, 0, 1, '111', 'done', 31, NULL, NULL, 'T'),"
        " (3, 1, 2, 1, 0, 0, '222', 'done', 32, NULL, NULL, 'T'),"
        " (4, 1, 3, 1, 0, 1, '222', 'done', 33, NULL, NULL, 'T');"
        "INSERT INTO match_seats VALUES (1, 0, 0), (1, 1, 1), (2, 0, 1), (2, 1, 0),"
        " (3, 0, 0), (3, 1, 1), (4, 0, 1), (4, 1, 0);"
        "INSERT INTO results VALUES (1, 0, 1, 0, 2, 0, 1500, -16),"
        " (1, 1, 2, 27720, 1, 0, 1500, 16), (2, 0, 2, 27720, 1, 0, 1516, 15),"
        " (2, 1, 1, 0, 2, 0, 1484, -15), (3, 0, 1, 27720, 1, 0, 1469, 17),"
        " (3, 1, 2, 0, 2, 0, 1531, -17), (4, 0, 2, 27720, 1, 0, 1514, 15),"
        " (4, 1, 1, 0, 2, 0, 1486, -15);"
        "INSERT INTO ratings VALUES (1, 1, 4, 1471, 1, 0, 3, 'T'), (1, 2, 4, 1529, 3, 0, 1, 'T');");
}

typedef struct walk {
    int n;
    int64_t deal[8], match[8];
    bool has_seed[8];
    uint64_t seed[8];
    int64_t turns[8];
    uint32_t number[8];
    char source_kind[8];
    int64_t source_int[8];
    char source_text[8][LADDER_SOURCE_MAX];
} walk;

static int walk_fn(void *ctx, const ladder_match_row *m)
{
    walk *w = ctx;
    w->match[w->n] = m->match_id;
    w->deal[w->n] = m->deal;
    w->has_seed[w->n] = m->has_seed;
    w->seed[w->n] = m->seed;
    w->turns[w->n] = m->turns;
    w->number[w->n] = m->number;
    w->source_kind[w->n] = m->source_kind;
    w->source_int[w->n] = m->source_int;
    snprintf(w->source_text[w->n], LADDER_SOURCE_MAX, "%s", m->source_text);
    w->n++;
    return 0;
}

static void test_migrate_v1(void **state)
{
    fx *f = *state;
    write_v1(f->db);
    assert_int_equal(raw_int(f->db, "PRAGMA user_version"), 1);
    ladder_db *db = open_ok(f->db);
    int v = 0;
    assert_int_equal(ladder_db_schema_version(db, &v), JA_OK);
    assert_int_equal(v, LADDER_DB_SCHEMA_VERSION);
    /* Every row kept, with its ids. */
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments"), 1);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches"), 4);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM results"), 8);
    assert_int_equal(raw_int(f->db, "SELECT sum(turns) FROM matches"), 126);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM imports"), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    assert_int_equal(raw_int(f->db, "SELECT import_id IS NULL FROM tournaments"), 1);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM sqlite_master WHERE name IN"
                                    " ('matches_deal', 'matches_pending', 'tournaments_lookup')"),
                     3);
    ladder_tournament_info ti;
    assert_int_equal(ladder_db_tournament_get(db, 1, &ti), JA_OK);
    assert_true(ti.seed == UINT64_MAX);
    assert_true(ti.duplicate);
    assert_false(ti.imported);
    assert_int_equal(ti.n_done, 4);
    /* The duplicate sets are found from the shared seeds. */
    ladder_key key = {"taylor-blackjack", 2, "games=4"};
    walk w = {0};
    assert_int_equal(ladder_db_foreach_match(db, &key, walk_fn, &w), JA_OK);
    assert_int_equal(w.n, 4);
    assert_int_equal(w.deal[0], 1);
    assert_int_equal(w.deal[1], 1);
    assert_int_equal(w.deal[2], 3);
    assert_int_equal(w.deal[3], 3);
    assert_true(w.has_seed[0] && w.seed[0] == 111);
    assert_int_equal(w.turns[1], 31);
    ladder_bot_row *bots = NULL;
    uint32_t n = 0;
    assert_int_equal(ladder_db_ladder_bots(db, &key, &bots, &n), JA_OK);
    assert_int_equal(n, 2);
    assert_string_equal(bots[1].name, "greedy");
    free(bots);

    /* The migrated file takes new tournaments as before. */
    ladder_bot lb[2] = {{"random", "1.0", "builtin", "random", NULL},
                        {"greedy", "1.0", "builtin", "greedy", NULL}};
    ladder_tournament_spec spec = {key, 5, LADDER_FORMAT_ROUND_ROBIN, 1, false, 2, lb,
                                   LADDER_SEATING_CYCLIC, NULL, 0};
    int64_t tid;
    assert_int_equal(ladder_db_tournament_create(db, &spec, &tid), JA_OK);
    ladder_match_result r;
    memset(&r, 0, sizeof r);
    r.outcome.n_seats = 2;
    r.outcome.place[0] = 1;
    r.outcome.place[1] = 2;
    assert_int_equal(ladder_db_record_match(db, tid, 0, &r), JA_OK);
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    /* Opening again changes nothing. */
    db = open_ok(f->db);
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "PRAGMA user_version"), LADDER_DB_SCHEMA_VERSION);
}

/* ---- Version 2 -> 3: seat counts up to JA_MAX_SEATS ----------------------- */

/* n bots named b0, b1, ... into names (room for JA_MAX_SEATS + 1). */
static void make_bots(uint32_t n, ladder_bot *bots, char names[][8])
{
    for (uint32_t i = 0; i < n; i++) {
        snprintf(names[i], 8, "b%u", (unsigned)i);
        bots[i] = (ladder_bot){names[i], "1.0", "builtin", names[i], NULL};
    }
}

/* Creates a round-robin tournament of n bots at n seats and records its
 * first match: seat s finishes in place s + 1 and the last seat has one
 * timeout. Returns the tournament id. */
static int64_t play_one(ladder_db *db, const char *game, uint32_t n)
{
    ladder_bot bots[JA_MAX_SEATS + 1];
    char names[JA_MAX_SEATS + 1][8];
    make_bots(n, bots, names);
    ladder_tournament_spec spec = {{game, n, ""}, 7, LADDER_FORMAT_ROUND_ROBIN, 1, false, n, bots,
                                   LADDER_SEATING_CYCLIC, NULL, 0};
    int64_t tid = 0;
    if (ladder_db_tournament_create(db, &spec, &tid) != JA_OK)
        fail_msg("%u seats: %s", (unsigned)n, ladder_db_errmsg(db));
    ladder_match_result r;
    memset(&r, 0, sizeof r);
    r.outcome.n_seats = n;
    for (uint32_t s = 0; s < n; s++) {
        r.outcome.place[s] = (uint8_t)(s + 1);
        r.outcome.score[s] = (int64_t)(n - s) * JA_SCORE_UNIT;
    }
    r.faults[n - 1][JA_FAULT_TIMEOUT] = 1;
    r.turns = 10;
    if (ladder_db_record_match(db, tid, 0, &r) != JA_OK)
        fail_msg("%u seats: %s", (unsigned)n, ladder_db_errmsg(db));
    return tid;
}

typedef struct seen {
    int matches;
    uint32_t n_seats;
    uint8_t place[JA_MAX_SEATS];
} seen;

static int seen_fn(void *ctx, const ladder_match_row *m)
{
    seen *s = ctx;
    s->matches++;
    s->n_seats = m->n_seats;
    memcpy(s->place, m->place, sizeof s->place);
    return 0;
}

/* Every seat count from 2 to JA_MAX_SEATS is a ladder; one more is refused
 * with a message naming the bound, and nothing is written. */
static void test_every_seat_count(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    for (uint32_t n = 2; n <= JA_MAX_SEATS; n++) {
        int64_t tid = play_one(db, "g", n);
        ladder_standing *st = NULL;
        uint32_t ns = 0;
        assert_int_equal(ladder_db_standings(db, tid, &st, &ns), JA_OK);
        assert_int_equal(ns, n);
        assert_int_equal(st[0].wins, 1);
        assert_int_equal(st[n - 1].faults, 1);
        free(st);
        ladder_key key = {"g", n, ""};
        seen s = {0};
        assert_int_equal(ladder_db_foreach_match(db, &key, seen_fn, &s), JA_OK);
        assert_int_equal(s.matches, 1);
        assert_int_equal(s.n_seats, n);
        for (uint32_t k = 0; k < n; k++)
            assert_int_equal(s.place[k], k + 1);
        ladder_rating *rt = NULL;
        uint32_t nr = 0;
        assert_int_equal(ladder_db_ratings(db, &key, &rt, &nr), JA_OK);
        assert_int_equal(nr, n);
        assert_true(rt[0].elo > 1500.0 && rt[n - 1].elo < 1500.0);
        assert_int_equal(rt[0].wins, n - 1);
        free(rt);
    }
    assert_int_equal(raw_int(f->db, "SELECT max(n_seats) FROM ladders"), JA_MAX_SEATS);
    assert_int_equal(raw_int(f->db, "SELECT max(place) FROM results"), JA_MAX_SEATS);

    ladder_bot bots[JA_MAX_SEATS + 1];
    char names[JA_MAX_SEATS + 1][8];
    make_bots(JA_MAX_SEATS + 1, bots, names);
    ladder_tournament_spec spec = {
        {"g", JA_MAX_SEATS + 1, ""}, 7, LADDER_FORMAT_ROUND_ROBIN, 1, false, JA_MAX_SEATS + 1,
        bots, LADDER_SEATING_CYCLIC, NULL, 0};
    int64_t tid = 0;
    int64_t before = raw_int(f->db, "SELECT count(*) FROM tournaments");
    assert_int_equal(ladder_db_tournament_create(db, &spec, &tid), JA_EINVAL);
    char want[64];
    snprintf(want, sizeof want, "seats must be between 2 and %d, not %d", JA_MAX_SEATS,
             JA_MAX_SEATS + 1);
    assert_non_null(strstr(ladder_db_errmsg(db), want));
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments"), before);
}

/* A version-2 database as the released code wrote it: migrations 1 and 2,
 * then a 12-seat tournament (the largest version 2 allowed) of two matches,
 * one recorded with a fault at its last seat, and the live Elo of its bots. */
static void write_v2(const char *path)
{
    raw_exec(path, ladder__migrations[0].sql);
    raw_exec(path, ladder__migrations[1].sql);
    char sql[8192];
    size_t len = (size_t)snprintf(
        sql, sizeof sql,
        "PRAGMA user_version = 2;"
        "INSERT INTO ladders VALUES (1, 'taylor-blackjack', 12, 'games=1');"
        "INSERT INTO tournaments VALUES (1, 1, '5', 'round-robin', 1, 0, 12, 2, 'running',"
        " 'T', NULL, NULL);"
        "INSERT INTO matches VALUES (1, 1, 0, 0, 0, 0, '77', 'done', 40, 'ab', NULL, 'T');"
        "INSERT INTO matches VALUES (2, 1, 1, 0, 0, 1, '78', 'planned', NULL, NULL, NULL,"
        " NULL);");
    for (int i = 0; i < 12; i++)
        len += (size_t)snprintf(
            sql + len, sizeof sql - len,
            "INSERT INTO bots VALUES (%d, 'b%d', '1.0', 'builtin', 'b%d', NULL, 'T');"
            "INSERT INTO participants VALUES (1, %d, %d, 'b%d');"
            "INSERT INTO match_seats VALUES (1, %d, %d), (2, %d, %d);"
            "INSERT INTO results VALUES (1, %d, %d, %d, %d, %d, 1500, %d);"
            "INSERT INTO ratings VALUES (1, %d, 1, %d, %d, 0, %d, 'T');",
            i + 1, i, i, i, i + 1, i, i, i, i, (i + 1) % 12, i, i + 1, (12 - i) * 27720, i + 1,
            i == 11, 11 - 2 * i, i + 1, 1511 - 2 * i, 11 - i, i);
    snprintf(sql + len, sizeof sql - len,
             "INSERT INTO result_faults VALUES (1, 11, 'timeout', 1);");
    raw_exec(path, sql);
}

/* Version 2 -> the current version: rows, ids, indexes and foreign keys
 * kept; afterwards the file takes a JA_MAX_SEATS-seat ladder. */
static void test_migrate_v2(void **state)
{
    fx *f = *state;
    write_v2(f->db);
    assert_int_equal(raw_int(f->db, "PRAGMA user_version"), 2);
    ladder_db *db = open_ok(f->db);
    int v = 0;
    assert_int_equal(ladder_db_schema_version(db, &v), JA_OK);
    assert_int_equal(v, LADDER_DB_SCHEMA_VERSION);
    assert_true(v >= 3);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM ladders WHERE id = 1 AND n_seats = 12"
                                    " AND game = 'taylor-blackjack' AND options = 'games=1'"),
                     1);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM match_seats"), 24);
    assert_int_equal(raw_int(f->db, "SELECT sum(seat * 100 + slot) FROM match_seats"), 13332);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM results"), 12);
    assert_int_equal(raw_int(f->db, "SELECT sum(place) FROM results WHERE match_id = 1"), 78);
    assert_int_equal(raw_int(f->db, "SELECT sum(score) FROM results"), 78 * 27720);
    assert_int_equal(raw_int(f->db, "SELECT sum(elo_delta) FROM results"), 0);
    assert_int_equal(raw_int(f->db, "SELECT faults FROM results WHERE seat = 11"), 1);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM result_faults"), 1);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM ratings"), 12);
    /* Through version 4 too: the played tournament has no source. */
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments WHERE source IS NULL"), 1);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM sqlite_master WHERE name LIKE '%_v3'"),
                     0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM sqlite_master WHERE name IN"
                                    " ('results_bot', 'matches_deal', 'matches_pending',"
                                    " 'tournaments_lookup')"),
                     4);
    /* The old tournament and ladder read back. */
    ladder_tournament_info ti;
    assert_int_equal(ladder_db_tournament_get(db, 1, &ti), JA_OK);
    assert_int_equal(ti.n_seats, 12);
    assert_int_equal(ti.n_done, 1);
    ladder_key k12 = {"taylor-blackjack", 12, "games=1"};
    ladder_rating *rt = NULL;
    uint32_t nr = 0;
    assert_int_equal(ladder_db_ratings(db, &k12, &rt, &nr), JA_OK);
    assert_int_equal(nr, 12);
    assert_string_equal(rt[0].bot, "b0");
    assert_int_equal(rt[0].wins, 11);
    free(rt);

    /* The migrated file takes the largest match. */
    play_one(db, "bombs", JA_MAX_SEATS);
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM results"), 12 + JA_MAX_SEATS);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM result_faults"), 2);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    /* Opening again changes nothing. */
    db = open_ok(f->db);
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "PRAGMA user_version"), LADDER_DB_SCHEMA_VERSION);
}

/* ---- Version 3 -> 4: the source tournament of an import -------------------- */

/* A version-3 database as the released code wrote it (migrations 1 to 3's
 * own SQL) with one imported tournament of two matches and one played
 * tournament: it opens as version 4 with every row kept and no source
 * name; the column takes an import's name (an integer or text) and refuses
 * one on a played tournament or of another type. */
static void test_migrate_v3(void **state)
{
    fx *f = *state;
    raw_exec(f->db, ladder__migrations[0].sql);
    raw_exec(f->db, ladder__migrations[1].sql);
    raw_exec(f->db, ladder__migrations[2].sql);
    raw_exec(
        f->db,
        "PRAGMA user_version = 3;"
        "INSERT INTO bots VALUES (1, 'A', '1', 'import', '', NULL, 'T'),"
        " (2, 'B', '', 'import', '', NULL, 'T');"
        "INSERT INTO ladders VALUES (1, 'g', 2, 'a=1');"
        "INSERT INTO imports VALUES (1, 'old.jsonl', 'jsonl',"
        " '0000000000000000000000000000000000000000000000000000000000000000', 2, 0, 'T');"
        "INSERT INTO tournaments VALUES (1, 1, NULL, 'import', 1, 0, 2, 2, 'done', 'T', 'T', 1);"
        "INSERT INTO tournaments VALUES (2, 1, '5', 'round-robin', 1, 0, 2, 2, 'done', 'T', 'T',"
        " NULL);"
        "INSERT INTO participants VALUES (1, 0, 1, 'A'), (1, 1, 2, 'B');"
        "INSERT INTO matches VALUES (1, 1, 0, 0, 0, 0, '5', 'done', NULL, NULL, NULL, 'T'),"
        " (2, 1, 1, 0, 1, 0, NULL, 'done', NULL, NULL, NULL, 'T');"
        "INSERT INTO match_seats VALUES (1, 0, 0), (1, 1, 1), (2, 0, 1), (2, 1, 0);"
        "INSERT INTO results VALUES (1, 0, 1, 27720, 1, 0, 1500, 16),"
        " (1, 1, 2, 0, 2, 0, 1500, -16), (2, 0, 2, 27720, 1, 0, 1484, 17),"
        " (2, 1, 1, 0, 2, 0, 1516, -17);"
        "INSERT INTO ratings VALUES (1, 1, 2, 1499, 1, 0, 1, 'T'), (1, 2, 2, 1501, 1, 0, 1, 'T');");
    ladder_db *db = open_ok(f->db);
    int v = 0;
    assert_int_equal(ladder_db_schema_version(db, &v), JA_OK);
    assert_int_equal(v, LADDER_DB_SCHEMA_VERSION);
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches"), 2);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM results"), 4);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments WHERE source IS NULL"), 2);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    sqlite3 *s = NULL;
    assert_int_equal(sqlite3_open(f->db, &s), SQLITE_OK);
    assert_int_equal(sqlite3_exec(s, "UPDATE tournaments SET source = 7 WHERE id = 1", NULL, NULL,
                                  NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_exec(s, "UPDATE tournaments SET source = 'cup' WHERE id = 1", NULL,
                                  NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_exec(s, "UPDATE tournaments SET source = 1.5 WHERE id = 1", NULL,
                                  NULL, NULL),
                     SQLITE_CONSTRAINT);
    assert_int_equal(sqlite3_exec(s, "UPDATE tournaments SET source = '' WHERE id = 1", NULL,
                                  NULL, NULL),
                     SQLITE_CONSTRAINT);
    assert_int_equal(sqlite3_exec(s, "UPDATE tournaments SET source = 7 WHERE id = 2", NULL, NULL,
                                  NULL),
                     SQLITE_CONSTRAINT);
    sqlite3_close(s);
    assert_int_equal(raw_int(f->db, "SELECT typeof(source) = 'text' FROM tournaments"
                                    " WHERE id = 1"),
                     1);
    /* Without a name, an imported tournament is read (and exported) by its
     * id, as before version 4. */
    raw_exec(f->db, "UPDATE tournaments SET source = NULL");
    db = open_ok(f->db);
    walk w = {0};
    ladder_key key = {"g", 2, "a=1"};
    assert_int_equal(ladder_db_foreach_match(db, &key, walk_fn, &w), JA_OK);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.source_kind[0], 0);
    assert_int_equal(w.number[1], 1);
    ladder_db_close(&db);
}

/* ---- Version 4 -> 5: the live Elo's step of each result --------------------- */

/* games_before of bot `bot` in match `match` (-1 for NULL). */
static int64_t step_of(const char *path, int match, int bot)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT IFNULL(max(games_before), -1) FROM results"
                              " WHERE match_id = %d AND bot_id = %d", match, bot);
    return raw_int(path, sql);
}

/* A version-4 file: ladder 1 (two seats) with A and B in matches 1, 2
 * and 4 of tournament 1 (match 5 planned), ladder 2 (three seats) with A in
 * two seats of match 3 beside C. The upgrade numbers each bot's results
 * per ladder in match id order, a bot's seats of one match alike; a match
 * recorded afterwards takes the count of the bot's ratings row. */
static void test_migrate_v4(void **state)
{
    fx *f = *state;
    for (int i = 0; i < 4; i++)
        raw_exec(f->db, ladder__migrations[i].sql);
    raw_exec(
        f->db,
        "PRAGMA user_version = 4;"
        "INSERT INTO bots VALUES (1, 'A', '', 'builtin', 'a', NULL, 'T'),"
        " (2, 'B', '', 'builtin', 'b', NULL, 'T'), (3, 'C', '', 'builtin', 'c', NULL, 'T');"
        "INSERT INTO ladders VALUES (1, 'g', 2, 'a=1'), (2, 'g', 3, 'a=1');"
        "INSERT INTO tournaments VALUES (1, 1, '5', 'round-robin', 1, 0, 2, 5, 'running', 'T',"
        " NULL, NULL, NULL), (2, 2, '6', 'round-robin', 1, 0, 2, 1, 'done', 'T', 'T', NULL,"
        " NULL);"
        "INSERT INTO participants VALUES (1, 0, 1, 'A'), (1, 1, 2, 'B'), (2, 0, 1, 'A'),"
        " (2, 1, 3, 'C');"
        "INSERT INTO matches VALUES (1, 1, 0, 0, 0, 0, '1', 'done', 3, NULL, NULL, 'T'),"
        " (2, 1, 1, 0, 0, 1, '2', 'done', 3, NULL, NULL, 'T'),"
        " (3, 2, 0, 0, 0, 0, '3', 'done', 3, NULL, NULL, 'T'),"
        " (4, 1, 2, 0, 0, 0, '4', 'done', 3, NULL, NULL, 'T'),"
        " (5, 1, 3, 0, 0, 1, '5', 'planned', NULL, NULL, NULL, NULL);"
        "INSERT INTO match_seats VALUES (1, 0, 0), (1, 1, 1), (2, 0, 1), (2, 1, 0),"
        " (3, 0, 0), (3, 1, 1), (3, 2, 0), (4, 0, 0), (4, 1, 1), (5, 0, 1), (5, 1, 0);"
        "INSERT INTO results VALUES (1, 0, 1, 27720, 1, 0, 1500, 16),"
        " (1, 1, 2, 0, 2, 0, 1500, -16), (2, 0, 2, 27720, 1, 0, 1484, 17),"
        " (2, 1, 1, 0, 2, 0, 1516, -17), (3, 0, 1, 0, 2, 0, 1500, 1),"
        " (3, 1, 3, 0, 3, 0, 1500, -2), (3, 2, 1, 27720, 1, 0, 1500, 1),"
        " (4, 0, 1, 27720, 1, 0, 1499, 15), (4, 1, 2, 0, 2, 0, 1501, -15);"
        "INSERT INTO ratings VALUES (1, 1, 3, 1514, 2, 0, 1, 'T'), (1, 2, 3, 1486, 1, 0, 2, 'T'),"
        " (2, 1, 1, 1502, 2, 0, 0, 'T'), (2, 3, 1, 1498, 0, 0, 2, 'T');");
    ladder_db *db = open_ok(f->db);
    int v = 0;
    assert_int_equal(ladder_db_schema_version(db, &v), JA_OK);
    assert_int_equal(v, LADDER_DB_SCHEMA_VERSION);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM results WHERE games_before IS NULL"),
                     0);
    assert_int_equal(step_of(f->db, 1, 1), 0);
    assert_int_equal(step_of(f->db, 2, 1), 1);
    assert_int_equal(step_of(f->db, 4, 1), 2);
    assert_int_equal(step_of(f->db, 1, 2), 0);
    assert_int_equal(step_of(f->db, 2, 2), 1);
    assert_int_equal(step_of(f->db, 4, 2), 2);
    /* Ladder 2 counts apart; A's two seats of match 3 are one step. */
    assert_int_equal(raw_int(f->db, "SELECT count(DISTINCT games_before) FROM results"
                                    " WHERE match_id = 3"),
                     1);
    assert_int_equal(step_of(f->db, 3, 1), 0);
    assert_int_equal(step_of(f->db, 3, 3), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    /* Read back as the rows' games_before, and A's history in ladder 2 one
     * step with both seats' changes. */
    ladder_key key2 = {"g", 3, "a=1"};
    ladder_elo_step *steps = NULL;
    uint32_t n = 0;
    assert_int_equal(ladder_db_elo_history(db, &key2, "A", &steps, &n), JA_OK);
    assert_int_equal(n, 1);
    assert_true(steps[0].elo_before == 1500 && steps[0].elo_after == 1502);
    free(steps);
    /* A match recorded now: its bots' counts from their ratings rows. */
    ladder_match_result r = {.outcome = {.n_seats = 2, .place = {1, 2}}};
    assert_int_equal(ladder_db_record_match(db, 1, 3, &r), JA_OK);
    assert_int_equal(step_of(f->db, 5, 1), 3);
    assert_int_equal(step_of(f->db, 5, 2), 3);
    ladder_db_close(&db);
    sqlite3 *s = NULL;
    assert_int_equal(sqlite3_open(f->db, &s), SQLITE_OK);
    assert_int_equal(sqlite3_exec(s, "UPDATE results SET games_before = -1", NULL, NULL, NULL),
                     SQLITE_CONSTRAINT);
    sqlite3_close(s);
}

/* ---- Version 5 -> 6 ------------------------------------------------------------ */

static const ladder_bot V5_BOTS[3] = {{"A", "", "builtin", "a", NULL},
                                      {"B", "", "builtin", "b", NULL},
                                      {"C", "", "builtin", "c", NULL}};

/* A version-5 file, written with migrations 1 to 5 exactly: a three-seat
 * tournament of A, B and C planned as every plan was then (the three
 * rotations of one order), its first match played. At version 6 it reads
 * 'cyclic'; a run that does not choose a seating finds it again, one that
 * asks for balanced seating does not (and plans its own, beside it), and
 * the rest of its plan is played as stored. */
static void test_migrate_v5(void **state)
{
    fx *f = *state;
    for (int i = 0; i < 5; i++)
        raw_exec(f->db, ladder__migrations[i].sql);
    raw_exec(f->db,
             "PRAGMA user_version = 5;"
             "INSERT INTO bots VALUES (1, 'A', '', 'builtin', 'a', NULL, 'T'),"
             " (2, 'B', '', 'builtin', 'b', NULL, 'T'), (3, 'C', '', 'builtin', 'c', NULL, 'T');"
             "INSERT INTO ladders VALUES (1, 'g', 3, '');"
             "INSERT INTO tournaments VALUES (1, 1, '9', 'round-robin', 1, 0, 3, 3, 'running',"
             " 'T', NULL, NULL, NULL);"
             "INSERT INTO participants VALUES (1, 0, 1, 'A'), (1, 1, 2, 'B'), (1, 2, 3, 'C');"
             "INSERT INTO matches VALUES (1, 1, 0, 0, 0, 0, '11', 'done', 3, NULL, NULL, 'T'),"
             " (2, 1, 1, 0, 0, 1, '12', 'planned', NULL, NULL, NULL, NULL),"
             " (3, 1, 2, 0, 0, 2, '13', 'planned', NULL, NULL, NULL, NULL);"
             "INSERT INTO match_seats VALUES (1, 0, 0), (1, 1, 1), (1, 2, 2), (2, 0, 1),"
             " (2, 1, 2), (2, 2, 0), (3, 0, 2), (3, 1, 0), (3, 2, 1);"
             "INSERT INTO results VALUES (1, 0, 1, 27720, 1, 0, 1500, 10, 0),"
             " (1, 1, 2, 0, 2, 0, 1500, -5, 0), (1, 2, 3, 0, 2, 0, 1500, -5, 0);"
             "INSERT INTO ratings VALUES (1, 1, 1, 1510, 2, 0, 0, 'T'),"
             " (1, 2, 1, 1495, 0, 0, 1, 'T'), (1, 3, 1, 1495, 0, 0, 1, 'T');");
    ladder_db *db = open_ok(f->db);
    int v = 0;
    assert_int_equal(ladder_db_schema_version(db, &v), JA_OK);
    assert_int_equal(v, LADDER_DB_SCHEMA_VERSION);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments WHERE seating = 'cyclic'"),
                     1);
    ladder_tournament_info ti;
    assert_int_equal(ladder_db_tournament_get(db, 1, &ti), JA_OK);
    assert_int_equal(ti.seating, LADDER_SEATING_CYCLIC);
    assert_int_equal(ti.n_matches, 3);
    assert_int_equal(ti.n_done, 1);

    ladder_tournament_spec spec = {{"g", 3, ""}, 9, LADDER_FORMAT_ROUND_ROBIN, 1, false, 3,
                                   V5_BOTS, LADDER_SEATING_BALANCED, NULL, 0};
    int64_t tid = 0;
    assert_int_equal(ladder_db_tournament_find(db, &spec, 0, &tid), JA_ENOTFOUND);
    assert_int_equal(ladder_db_tournament_find(db, &spec, LADDER_FIND_ANY_SEATING, &tid), JA_OK);
    assert_int_equal(tid, 1);
    spec.seating = LADDER_SEATING_CYCLIC;
    tid = 0;
    assert_int_equal(ladder_db_tournament_find(db, &spec, 0, &tid), JA_OK);
    assert_int_equal(tid, 1);

    /* The rest of its plan, as stored: the cyclic rotations. */
    uint32_t *pending = NULL, n = 0;
    assert_int_equal(ladder_db_pending(db, 1, &pending, &n), JA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(pending[0], 1);
    assert_int_equal(pending[1], 2);
    free(pending);
    ladder_plan_match m;
    assert_int_equal(ladder_db_match_get(db, 1, 2, &m), JA_OK);
    assert_int_equal(m.slot[0], 2);
    assert_int_equal(m.slot[1], 0);
    assert_int_equal(m.slot[2], 1);
    ladder_match_result r = {.outcome = {.n_seats = 3, .place = {1, 2, 3}}};
    assert_int_equal(ladder_db_record_match(db, 1, 1, &r), JA_OK);
    assert_int_equal(ladder_db_record_match(db, 1, 2, &r), JA_OK);
    assert_int_equal(ladder_db_tournament_get(db, 1, &ti), JA_OK);
    assert_true(ti.done);

    /* A balanced tournament of the same spec is a new one, of 6 matches. */
    spec.seating = LADDER_SEATING_BALANCED;
    assert_int_equal(ladder_db_tournament_create(db, &spec, &tid), JA_OK);
    assert_int_equal(tid, 2);
    assert_int_equal(ladder_db_tournament_get(db, 2, &ti), JA_OK);
    assert_int_equal(ti.seating, LADDER_SEATING_BALANCED);
    assert_int_equal(ti.n_matches, 6);
    assert_int_equal(ladder_db_match_get(db, 2, 3, &m), JA_OK); /* the other direction */
    assert_int_equal(m.slot[0], 0);
    assert_int_equal(m.slot[1], 2);
    assert_int_equal(m.slot[2], 1);
    /* The newest of any seating is the balanced one; cyclic still finds 1. */
    assert_int_equal(ladder_db_tournament_find(db, &spec, LADDER_FIND_ANY_SEATING, &tid), JA_OK);
    assert_int_equal(tid, 2);
    spec.seating = LADDER_SEATING_CYCLIC;
    assert_int_equal(ladder_db_tournament_find(db, &spec, 0, &tid), JA_OK);
    assert_int_equal(tid, 1);
    ladder_db_close(&db);

    /* Only the two names are stored. */
    sqlite3 *s = NULL;
    assert_int_equal(sqlite3_open(f->db, &s), SQLITE_OK);
    assert_int_equal(sqlite3_exec(s, "UPDATE tournaments SET seating = 'random'", NULL, NULL,
                                  NULL),
                     SQLITE_CONSTRAINT);
    sqlite3_close(s);
}

/* ---- Version 6 -> 7 ------------------------------------------------------------ */

/* A version-6 file, written with migrations 1 to 6 exactly: a balanced
 * round-robin of A, B and C, one match of three played, and an import
 * with a source. At version 7 the rebuilt `tournaments` keeps every row
 * and column (seating, source, import), reads no deal set, finds the
 * round-robin again and finishes it; a swiss tournament and one with a
 * deal set can be stored; the new CHECKs hold. */
static void test_migrate_v6(void **state)
{
    fx *f = *state;
    for (int i = 0; i < 6; i++)
        raw_exec(f->db, ladder__migrations[i].sql);
    raw_exec(f->db,
             "PRAGMA user_version = 6;"
             "INSERT INTO bots VALUES (1, 'A', '', 'builtin', 'a', NULL, 'T'),"
             " (2, 'B', '', 'builtin', 'b', NULL, 'T'), (3, 'C', '', 'builtin', 'c', NULL, 'T');"
             "INSERT INTO ladders VALUES (1, 'g', 3, '');"
             "INSERT INTO imports VALUES (1, 'f.jsonl', 'jsonl', '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 1, 0, 'T');"
             "INSERT INTO tournaments VALUES (1, 1, '9', 'round-robin', 1, 0, 3, 2, 'running',"
             " 'T', NULL, NULL, NULL, 'balanced'),"
             " (2, 1, NULL, 'import', 1, 0, 3, 1, 'done', 'T', 'T', 1, 'src', 'cyclic');"
             "INSERT INTO participants VALUES (1, 0, 1, 'A'), (1, 1, 2, 'B'), (1, 2, 3, 'C'),"
             " (2, 0, 1, 'A'), (2, 1, 2, 'B'), (2, 2, 3, 'C');"
             "INSERT INTO matches VALUES (1, 1, 0, 0, 0, 0, '11', 'done', 3, NULL, NULL, 'T'),"
             " (2, 1, 1, 0, 0, 1, '11', 'planned', NULL, NULL, NULL, NULL),"
             " (3, 2, 0, 0, 0, 0, NULL, 'done', NULL, NULL, NULL, 'T');"
             "INSERT INTO match_seats VALUES (1, 0, 0), (1, 1, 1), (1, 2, 2), (2, 0, 1),"
             " (2, 1, 2), (2, 2, 0), (3, 0, 0), (3, 1, 1), (3, 2, 2);"
             "INSERT INTO results VALUES (1, 0, 1, 27720, 1, 0, 1500, 10, 0),"
             " (1, 1, 2, 0, 2, 0, 1500, -5, 0), (1, 2, 3, 0, 2, 0, 1500, -5, 0),"
             " (3, 0, 1, 27720, 1, 0, 1510, 10, 1), (3, 1, 2, 0, 2, 0, 1495, -5, 1),"
             " (3, 2, 3, 0, 2, 0, 1495, -5, 1);"
             "INSERT INTO ratings VALUES (1, 1, 2, 1520, 4, 0, 0, 'T'),"
             " (1, 2, 2, 1490, 1, 0, 2, 'T'), (1, 3, 2, 1490, 1, 0, 2, 'T');");
    ladder_db *db = open_ok(f->db);
    int v = 0;
    assert_int_equal(ladder_db_schema_version(db, &v), JA_OK);
    assert_int_equal(v, 7);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments WHERE deals IS NULL"), 2);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments WHERE id = 2 AND"
                                    " source = 'src' AND import_id = 1 AND status = 'done'"),
                     1);
    ladder_tournament_info ti;
    assert_int_equal(ladder_db_tournament_get(db, 1, &ti), JA_OK);
    assert_int_equal(ti.seating, LADDER_SEATING_BALANCED);
    assert_int_equal(ti.n_done, 1);
    assert_int_equal(ti.n_stored, 2);
    assert_string_equal(ti.deals, "");
    ladder_tournament_spec spec = {{"g", 3, ""}, 9, LADDER_FORMAT_ROUND_ROBIN, 1, false, 3,
                                   V5_BOTS, LADDER_SEATING_BALANCED, NULL, 0};
    int64_t tid = 0;
    assert_int_equal(ladder_db_tournament_find(db, &spec, 0, &tid), JA_OK);
    assert_int_equal(tid, 1);
    /* With a deal set it is another tournament. */
    uint64_t deals[2] = {5, 6};
    spec.deals = deals;
    spec.n_deals = 2;
    assert_int_equal(ladder_db_tournament_find(db, &spec, 0, &tid), JA_ENOTFOUND);
    ladder_match_result r = {.outcome = {.n_seats = 3, .place = {1, 2, 3}}};
    assert_int_equal(ladder_db_record_match(db, 1, 1, &r), JA_OK);
    assert_int_equal(ladder_db_tournament_get(db, 1, &ti), JA_OK);
    assert_true(ti.done);
    /* A swiss tournament with the deal set: its first round stored. */
    spec.format = LADDER_FORMAT_SWISS;
    spec.rounds = 2;
    assert_int_equal(ladder_db_tournament_create(db, &spec, &tid), JA_OK);
    assert_int_equal(ladder_db_tournament_get(db, tid, &ti), JA_OK);
    assert_int_equal(ti.format, LADDER_FORMAT_SWISS);
    assert_true(ti.duplicate);
    assert_int_equal(ti.n_matches, 12);
    assert_int_equal(ti.n_stored, 6);
    assert_int_equal(strlen(ti.deals), 64);
    ladder_plan_match m;
    assert_int_equal(ladder_db_match_get(db, tid, 5, &m), JA_OK);
    assert_true(m.seed == 5);
    assert_int_equal(ladder_db_tournament_find(db, &spec, 0, &tid), JA_OK);
    ladder_db_close(&db);
    sqlite3 *s = NULL;
    assert_int_equal(sqlite3_open(f->db, &s), SQLITE_OK);
    assert_int_equal(sqlite3_exec(s, "UPDATE tournaments SET format = 'ladder'", NULL, NULL,
                                  NULL),
                     SQLITE_CONSTRAINT);
    assert_int_equal(sqlite3_exec(s, "UPDATE tournaments SET deals = 'x' WHERE id = 1", NULL,
                                  NULL, NULL),
                     SQLITE_CONSTRAINT);
    assert_int_equal(sqlite3_exec(s, "UPDATE tournaments SET source = 'y' WHERE id = 1", NULL,
                                  NULL, NULL),
                     SQLITE_CONSTRAINT);
    sqlite3_close(s);
}

/* ---- Imports ----------------------------------------------------------------- */

static const ladder_key LADDERS[2] = {{"g", 2, "a=1"}, {"g", 3, "a=1"}};
static const ladder_bot BOTS[3] = {{"A", "1", "import", "", NULL},
                                   {"B", "", "import", "", NULL},
                                   {"A", "2", "import", "", NULL}};

static const ladder_import_source SOURCES[1] = {{"7", true}};

typedef struct imp_fx {
    ladder_import_match m[4];
    ladder_import_seat s[16];
    ladder_import imp;
} imp_fx;

/* Four matches: lines 1-2 two-seat from source 1, the file's tournament 7
 * (A1 beats B, then B and A2 draw; both with seed 9, a duplicate set),
 * line 3 two-seat without a source, line 4 three-seat. No match numbers. */
static void make_import(imp_fx *x, const char *sha)
{
    memset(x, 0, sizeof *x);
    uint32_t ns = 0;
    struct {
        uint32_t line, ladder, source, n;
        uint32_t bot[3];
        uint8_t place[3];
        bool seed;
    } spec[4] = {
        {1, 0, 1, 2, {0, 1, 0}, {1, 2, 0}, true},
        {2, 0, 1, 2, {1, 2, 0}, {1, 1, 0}, true},
        {3, 0, 0, 2, {1, 0, 0}, {1, 2, 0}, false},
        {4, 1, 0, 3, {0, 1, 2}, {2, 1, 3}, false},
    };
    for (int k = 0; k < 4; k++) {
        ladder_import_match *m = &x->m[k];
        m->line = spec[k].line;
        m->ladder = spec[k].ladder;
        m->source = spec[k].source;
        m->n_seats = spec[k].n;
        m->first_seat = ns;
        m->has_seed = spec[k].seed;
        m->seed = spec[k].seed ? 9 : 0;
        m->turns = k == 0 ? 17 : -1;
        m->number = -1;
        for (uint32_t s = 0; s < spec[k].n; s++)
            x->s[ns++] =
                (ladder_import_seat){spec[k].bot[s], 100 * (int64_t)(k + s), spec[k].place[s]};
    }
    x->imp = (ladder_import){"t.jsonl", "jsonl", sha, 1, 2, LADDERS, 3, BOTS, 1, SOURCES,
                             4, x->m, ns, x->s};
}

#define SHA1 "1111111111111111111111111111111111111111111111111111111111111111"
#define SHA2 "2222222222222222222222222222222222222222222222222222222222222222"

static void test_import(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    imp_fx x;
    make_import(&x, SHA1);
    ladder_import_result res;
    assert_int_equal(ladder_db_import(db, &x.imp, &res), JA_OK);
    assert_int_equal(res.tournaments, 3); /* (2 seats, source 1), (2 seats, none), (3 seats) */
    assert_int_equal(res.matches, 4);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM imports WHERE sha256 = '" SHA1
                                    "' AND skipped = 1 AND matches = 4"),
                     1);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments WHERE format = 'import'"
                                    " AND seed IS NULL AND status = 'done' AND import_id = 1"),
                     3);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches WHERE status = 'done'"), 4);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches WHERE seed = '9'"), 2);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches WHERE turns IS NULL"), 3);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM results"), 9);
    /* Two identities named A: the second is "A#2" in its tournament. */
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM participants WHERE name = 'A#2'"), 2);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM bots WHERE kind = 'import'"), 3);
    /* Live Elo moved as for played matches, in file order: line 1, A1 beat
     * B, both new (K = 32, expected 1/2): +16 and -16 (docs/elo.md). */
    assert_int_equal(
        raw_int(f->db, "SELECT elo_delta FROM results WHERE match_id = 1 AND seat = 0"), 16);
    assert_int_equal(
        raw_int(f->db, "SELECT elo_delta FROM results WHERE match_id = 1 AND seat = 1"), -16);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM ratings"), 6);
    ladder_tournament_info ti;
    assert_int_equal(ladder_db_tournament_get(db, 1, &ti), JA_OK);
    assert_true(ti.imported);
    assert_true(ti.done);
    assert_int_equal(ti.n_participants, 3);
    /* The source's name is kept, as an integer; matches numbered in file
     * order (no numbers given). */
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments WHERE source = 7"
                                    " AND typeof(source) = 'integer'"),
                     1);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments WHERE source IS NULL"), 2);
    walk w = {0};
    assert_int_equal(ladder_db_foreach_match(db, &LADDERS[0], walk_fn, &w), JA_OK);
    assert_int_equal(w.n, 3);
    assert_int_equal(w.source_kind[0], 'i');
    assert_int_equal(w.source_int[0], 7);
    assert_int_equal(w.source_kind[2], 0);
    assert_int_equal(w.number[0], 0);
    assert_int_equal(w.number[1], 1);
    assert_int_equal(w.deal[0], w.deal[1]); /* the shared seed 9 */
    assert_int_equal(w.deal[2], w.match[2]);
    assert_false(w.has_seed[2]);
    assert_int_equal(w.turns[0], 17);
    assert_int_equal(w.turns[1], -1);

    /* The same file again: refused, nothing written. */
    int64_t before = raw_int(f->db, "SELECT count(*) FROM results");
    assert_int_equal(ladder_db_import(db, &x.imp, &res), JA_ESTATE);
    assert_non_null(strstr(ladder_db_errmsg(db), "t.jsonl: this file was already imported"));
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM results"), before);
    ladder_db_close(&db);
}

/* Match numbers of the file are kept when every match of an imported
 * tournament has its own; a source named by a string stays a string. */
static void test_import_numbers(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    imp_fx x;
    make_import(&x, SHA1);
    static const ladder_import_source named[1] = {{"spring cup", false}};
    x.imp.sources = named;
    x.m[0].number = 12;
    x.m[1].number = 3;
    x.m[2].number = 12; /* its own tournament (no source): kept too */
    assert_int_equal(ladder_db_import(db, &x.imp, NULL), JA_OK);
    walk w = {0};
    assert_int_equal(ladder_db_foreach_match(db, &LADDERS[0], walk_fn, &w), JA_OK);
    assert_int_equal(w.n, 3);
    /* By tournament, then number: 3 (line 2) before 12 (line 1). */
    assert_int_equal(w.number[0], 3);
    assert_int_equal(w.number[1], 12);
    assert_int_equal(w.source_kind[0], 's');
    assert_string_equal(w.source_text[0], "spring cup");
    assert_int_equal(w.number[2], 12);
    /* Two matches of one source with the same number: file order. */
    make_import(&x, SHA2);
    x.m[0].number = 4;
    x.m[1].number = 4;
    assert_int_equal(ladder_db_import(db, &x.imp, NULL), JA_OK);
    assert_int_equal(raw_int(f->db, "SELECT count(*) * 100 + min(m.number) * 10 + max(m.number)"
                                    " FROM matches m JOIN tournaments t"
                                    " ON t.id = m.tournament_id WHERE t.import_id = 2"
                                    " AND t.source = 7"),
                     201); /* 2 matches, numbers 0 and 1 */
    ladder_db_close(&db);
}

static void test_import_refused(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    imp_fx x;
    make_import(&x, SHA1);
    x.s[x.m[2].first_seat + 1].place = 3; /* line 3: a place above its seat count */
    assert_int_equal(ladder_db_import(db, &x.imp, NULL), JA_EINVAL);
    assert_string_equal(ladder_db_errmsg(db), "t.jsonl:3: a place outside 1..seats");
    make_import(&x, SHA1);
    x.s[x.m[3].first_seat].bot = 7;
    assert_int_equal(ladder_db_import(db, &x.imp, NULL), JA_EINVAL);
    assert_string_equal(ladder_db_errmsg(db), "t.jsonl:4: no such bot");
    make_import(&x, SHA1);
    x.m[1].n_seats = 3;
    assert_int_equal(ladder_db_import(db, &x.imp, NULL), JA_EINVAL);
    assert_string_equal(ladder_db_errmsg(db),
                        "t.jsonl:2: the seat count differs from its ladder's");
    make_import(&x, SHA1);
    x.s[x.m[0].first_seat + 1].bot = 0; /* A against A */
    assert_int_equal(ladder_db_import(db, &x.imp, NULL), JA_EINVAL);
    assert_string_equal(ladder_db_errmsg(db),
                        "t.jsonl:1: a match needs at least two different bots");
    make_import(&x, SHA1);
    x.m[1].source = 2; /* one source only */
    assert_int_equal(ladder_db_import(db, &x.imp, NULL), JA_EINVAL);
    assert_string_equal(ladder_db_errmsg(db), "t.jsonl:2: no such source tournament");
    make_import(&x, SHA1);
    static const ladder_import_source empty[1] = {{"", false}};
    x.imp.sources = empty;
    assert_int_equal(ladder_db_import(db, &x.imp, NULL), JA_EINVAL);
    assert_string_equal(ladder_db_errmsg(db),
                        "t.jsonl: a source tournament name is empty or longer than 63 bytes");
    make_import(&x, "nothex");
    assert_int_equal(ladder_db_import(db, &x.imp, NULL), JA_EINVAL);
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments"), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM imports"), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM bots"), 0);
}

/* A failure after the first writes (here a trigger that refuses the
 * results of line 4) rolls the whole import back. */
static void test_import_atomic(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_db_close(&db);
    raw_exec(f->db, "CREATE TRIGGER boom BEFORE INSERT ON results WHEN NEW.score = 300"
                    " BEGIN SELECT RAISE(ABORT, 'boom'); END;");
    db = open_ok(f->db);
    imp_fx x;
    make_import(&x, SHA2);
    assert_int_equal(ladder_db_import(db, &x.imp, NULL), JA_EDB);
    assert_non_null(strstr(ladder_db_errmsg(db), "boom"));
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM imports"), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments"), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches"), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM results"), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM ratings"), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM bots"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_migrate_v1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_seat_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_v2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_v3, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_v4, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_v5, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_v6, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_atomic, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
