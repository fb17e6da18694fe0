/* Unit tests of the ladder database (ladders/ladder_db.h, hash.h): schema
 * creation and migrations, refusal of newer and foreign files, bot
 * identity, tournaments and plans stored and read back, recorded results
 * with their live Elo, idempotent recording, atomicity (an injected
 * failure, a crash between matches, a locked database), read-only files
 * and directories, resume lookups, SHA-256 identity, and merging another
 * database (merge.h): found or created tournaments, matches recorded once,
 * a shard made whole, and the files it refuses (one with a tournament of
 * an unknown format before anything of it is merged).
 *
 * Each test works in a fresh temporary directory. Checks of what is on
 * disk go through a second, raw SQLite connection, so they see only what
 * was committed. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "elo.h"
#include "ladder_raw.h"
#include "hash.h"
#include "jackarena/ja_error.h"
#include "ladder_db.h"
#include "merge.h"
#include "plan.h"

/* ---- Fixture: a temporary directory --------------------------------------- */

typedef struct fx {
    char dir[64];
    char db[128];
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/ja-ladder-XXXXXX");
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
    chmod(f->dir, 0700);
    DIR *d = opendir(f->dir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[512];
            snprintf(p, sizeof p, "%s/%s", f->dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

/* ---- Raw SQLite access for checks ----------------------------------------- */

/* Everything that a recorded match writes, summed: any change shows. */
static int64_t written_rows(const char *path)
{
    return raw_int(path, "SELECT (SELECT count(*) FROM results) * 1000000"
                         " + (SELECT count(*) FROM result_faults) * 10000"
                         " + (SELECT count(*) FROM ratings) * 100"
                         " + (SELECT count(*) FROM matches WHERE status = 'done')");
}

/* ---- Builders ------------------------------------------------------------- */

static ladder_db *open_ok(const char *path)
{
    ladder_db *db = NULL;
    int rc = ladder_db_open(path, &db);
    if (rc != JA_OK)
        fail_msg("open %s: %s: %s", path, ja_err_name(rc), ladder_db_errmsg(db));
    assert_non_null(db);
    return db;
}

static const ladder_bot three_bots[3] = {
    {"alpha", "1.0", "plugin", "./alpha.so",
     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"beta", "", "builtin", "random", NULL},
    {"gamma", "2", "cmd", "cmd:python3 gamma.py", NULL},
};

static ladder_tournament_spec spec3(uint64_t seed)
{
    ladder_tournament_spec s;
    memset(&s, 0, sizeof s);
    s.ladder.game = "taylor-blackjack";
    s.ladder.n_seats = 2;
    s.ladder.options = "decks=auto way=2";
    s.seed = seed;
    s.format = LADDER_FORMAT_ROUND_ROBIN;
    s.rounds = 1;
    s.duplicate = false;
    s.n_bots = 3;
    s.bots = three_bots;
    return s; /* C(3,2) * 2 = 6 matches */
}

static int64_t create_ok(ladder_db *db, const ladder_tournament_spec *s)
{
    int64_t tid = -1;
    int rc = ladder_db_tournament_create(db, s, &tid);
    if (rc != JA_OK)
        fail_msg("create: %s: %s", ja_err_name(rc), ladder_db_errmsg(db));
    assert_true(tid > 0);
    return tid;
}

/* A two-seat result: seat 0 wins (place 1) unless `draw`. */
static ladder_match_result result2(int64_t score0, int64_t score1)
{
    ladder_match_result r;
    memset(&r, 0, sizeof r);
    r.outcome.n_seats = 2;
    r.outcome.score[0] = score0;
    r.outcome.score[1] = score1;
    r.outcome.place[0] = score0 >= score1 ? 1 : 2;
    r.outcome.place[1] = score1 >= score0 ? 1 : 2;
    r.turns = 40;
    r.digest = "00ff";
    return r;
}

static void record_ok(ladder_db *db, int64_t tid, uint32_t number, const ladder_match_result *r)
{
    int rc = ladder_db_record_match(db, tid, number, r);
    if (rc != JA_OK)
        fail_msg("record %u: %s: %s", number, ja_err_name(rc), ladder_db_errmsg(db));
}

static void assert_contains(const char *hay, const char *needle)
{
    if (hay == NULL || strstr(hay, needle) == NULL)
        fail_msg("'%s' does not contain '%s'", hay ? hay : "(null)", needle);
}

/* ---- Opening, schema, migrations ------------------------------------------ */

static void test_open_fresh(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    int v = -1;
    assert_int_equal(ladder_db_schema_version(db, &v), JA_OK);
    assert_int_equal(v, LADDER_DB_SCHEMA_VERSION);
    assert_string_equal(ladder_db_errmsg(db), "");
    assert_string_equal(ladder_db_path(db), f->db);
    ladder_db_close(&db);
    assert_null(db);
    ladder_db_close(&db); /* NULL pointer: no-op */
    ladder_db_close(NULL);

    assert_int_equal(raw_int(f->db, "PRAGMA user_version"), LADDER_DB_SCHEMA_VERSION);
    assert_int_equal(raw_int(f->db, "PRAGMA application_id"), LADDER_DB_APPLICATION_ID);
    char mode[16];
    raw_text(f->db, "PRAGMA journal_mode", mode, sizeof mode);
    assert_string_equal(mode, "wal");
    static const char *const tables[] = {"bots",    "ladders", "tournaments",   "participants",
                                         "matches", "match_seats", "results", "result_faults",
                                         "ratings"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        char q[128];
        snprintf(q, sizeof q, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                              " AND name = '%s'", tables[i]);
        assert_int_equal(raw_int(f->db, q), 1);
    }
    /* Reopening a current database changes nothing. */
    db = open_ok(f->db);
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "PRAGMA user_version"), LADDER_DB_SCHEMA_VERSION);
}

static void test_newer_version_refused(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_db_close(&db);
    raw_exec(f->db, "PRAGMA user_version = 99");
    assert_int_equal(ladder_db_open(f->db, &db), JA_EVERSION);
    assert_non_null(db);
    assert_contains(ladder_db_errmsg(db), f->db);
    assert_contains(ladder_db_errmsg(db), "schema version 99");
    /* The failed handle answers nothing else, and keeps its message. */
    int v;
    assert_int_equal(ladder_db_schema_version(db, &v), JA_ESTATE);
    assert_contains(ladder_db_errmsg(db), "schema version 99");
    ladder_db_close(&db);
    assert_null(db);
    assert_int_equal(raw_int(f->db, "PRAGMA user_version"), 99);
}

static void test_foreign_files_refused(void **state)
{
    fx *f = *state;
    ladder_db *db = NULL;
    /* Not SQLite at all; the file is left as it was. */
    FILE *fp = fopen(f->db, "w");
    assert_non_null(fp);
    for (int i = 0; i < 100; i++)
        fputs("this is not a database\n", fp);
    fclose(fp);
    assert_int_equal(ladder_db_open(f->db, &db), JA_EFORMAT);
    assert_contains(ladder_db_errmsg(db), f->db);
    ladder_db_close(&db);
    struct stat st;
    assert_int_equal(stat(f->db, &st), 0);
    assert_int_equal(st.st_size, 2300);
    unlink(f->db);

    /* Another program's SQLite database. */
    sqlite3 *s;
    assert_int_equal(sqlite3_open(f->db, &s), SQLITE_OK);
    assert_int_equal(sqlite3_exec(s, "CREATE TABLE notes (t TEXT)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(s);
    assert_int_equal(ladder_db_open(f->db, &db), JA_EFORMAT);
    assert_contains(ladder_db_errmsg(db), "not a Jack Arena database");
    ladder_db_close(&db);
    raw_exec(f->db, "PRAGMA application_id = 1234");
    assert_int_equal(ladder_db_open(f->db, &db), JA_EFORMAT);
    assert_contains(ladder_db_errmsg(db), "another program");
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM sqlite_master"), 1);
}

/* A migration that fails is rolled back whole: the version stays and none
 * of its tables exist. */
static void test_migration_atomic(void **state)
{
    fx *f = *state;
    sqlite3 *s;
    assert_int_equal(sqlite3_open(f->db, &s), SQLITE_OK);
    /* Ours (application_id), version 0, but with a table in the way of
     * migration 1's CREATE TABLE ratings, its last statement. */
    assert_int_equal(sqlite3_exec(s,
                                  "PRAGMA application_id = 1245794894;"
                                  " CREATE TABLE ratings (x INTEGER)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(s);
    ladder_db *db = NULL;
    assert_int_equal(ladder_db_open(f->db, &db), JA_EDB);
    assert_contains(ladder_db_errmsg(db), "schema migration 1");
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "PRAGMA user_version"), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM sqlite_master WHERE name = 'bots'"), 0);

    raw_exec(f->db, "DROP TABLE ratings");
    db = open_ok(f->db);
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "PRAGMA user_version"), LADDER_DB_SCHEMA_VERSION);
}

static void test_open_missing_dir(void **state)
{
    fx *f = *state;
    char path[256];
    snprintf(path, sizeof path, "%s/no/such/dir/arena.db", f->dir);
    ladder_db *db = NULL;
    assert_int_equal(ladder_db_open(path, &db), JA_EIO);
    assert_non_null(db);
    assert_contains(ladder_db_errmsg(db), path);
    assert_contains(ladder_db_errmsg(db), "does not exist");
    int64_t id;
    assert_int_equal(ladder_db_bot_get_or_add(db, &three_bots[0], &id), JA_ESTATE);
    ladder_db_close(&db);
    assert_int_equal(ladder_db_open(NULL, &db), JA_EINVAL);
    assert_null(db);
    assert_int_equal(ladder_db_open(path, NULL), JA_EINVAL);
}

/* ---- Read-only files and directories -------------------------------------- */

/* Runs check() where file permissions bind: as is for a normal user, in a
 * child switched to "nobody" when the tests run as root (root ignores
 * permission bits). check returns 0 on success and prints why otherwise. */
static void run_unprivileged(int (*check)(const char *), const char *path)
{
    if (geteuid() != 0) {
        assert_int_equal(check(path), 0);
        return;
    }
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(99);
        _exit(check(path));
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static int expect_read_only(const char *path)
{
    ladder_db *db = NULL;
    int rc = ladder_db_open(path, &db);
    const char *m = ladder_db_errmsg(db);
    int ok = rc == JA_EIO && strstr(m, path) != NULL &&
             (strstr(m, "read-only") != NULL || strstr(m, "not writable") != NULL);
    if (!ok)
        fprintf(stderr, "open %s: %s: %s\n", path, ja_err_name(rc), m);
    ladder_db_close(&db);
    return ok ? 0 : 1;
}

static void test_read_only_file(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(1);
    create_ok(db, &s);
    ladder_db_close(&db);
    assert_int_equal(chmod(f->dir, 0755), 0);
    assert_int_equal(chmod(f->db, 0444), 0);
    run_unprivileged(expect_read_only, f->db);
    assert_int_equal(chmod(f->db, 0644), 0);
    /* Nothing was changed by the failed opens. */
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches WHERE status = 'done'"), 0);
}

static void test_read_only_dir(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_db_close(&db); /* a clean close removes -wal and -shm */
    if (geteuid() == 0)
        assert_int_equal(chown(f->db, 65534, 65534), 0);
    assert_int_equal(chmod(f->dir, 0555), 0);
    run_unprivileged(expect_read_only, f->db);
    /* A new database in a read-only directory. */
    char fresh[160];
    snprintf(fresh, sizeof fresh, "%s/new.db", f->dir);
    run_unprivileged(expect_read_only, fresh);
    assert_int_equal(chmod(f->dir, 0700), 0);
    assert_int_equal(access(fresh, F_OK), -1);
}

/* ---- Bots ----------------------------------------------------------------- */

static void test_bot_identity(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    int64_t a, b, c, d, e;
    assert_int_equal(ladder_db_bot_get_or_add(db, &three_bots[0], &a), JA_OK);
    assert_int_equal(ladder_db_bot_get_or_add(db, &three_bots[0], &b), JA_OK);
    assert_int_equal(a, b);
    /* A changed file is a new entry. */
    ladder_bot changed = three_bots[0];
    changed.sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    assert_int_equal(ladder_db_bot_get_or_add(db, &changed, &c), JA_OK);
    assert_true(c != a);
    /* No hash: (name, version, NULL) is still one identity, although SQL
     * UNIQUE treats NULLs as distinct. */
    assert_int_equal(ladder_db_bot_get_or_add(db, &three_bots[1], &d), JA_OK);
    assert_int_equal(ladder_db_bot_get_or_add(db, &three_bots[1], &e), JA_OK);
    assert_int_equal(d, e);
    /* kind and spec are not identity. */
    ladder_bot other_spec = three_bots[1];
    other_spec.spec = "beta=random";
    other_spec.kind = "hosted";
    assert_int_equal(ladder_db_bot_get_or_add(db, &other_spec, &e), JA_OK);
    assert_int_equal(d, e);
    /* A new version is a new entry. */
    ladder_bot v2 = three_bots[1];
    v2.version = "2";
    assert_int_equal(ladder_db_bot_find(db, &v2, &e), JA_ENOTFOUND);
    assert_contains(ladder_db_errmsg(db), "beta");
    assert_int_equal(ladder_db_bot_get_or_add(db, &v2, &e), JA_OK);
    assert_true(e != d);
    assert_int_equal(ladder_db_bot_find(db, &v2, &c), JA_OK);
    assert_int_equal(c, e);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM bots"), 4);
    /* A direct duplicate insert is refused by the identity index. */
    sqlite3 *s = raw_open(f->db);
    assert_int_not_equal(sqlite3_exec(s,
                                      "INSERT INTO bots (name, version, kind, created_at)"
                                      " VALUES ('beta', '', 'builtin', 'x')",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
    sqlite3_close(s);

    /* Invalid identities. */
    ladder_bot bad = three_bots[0];
    bad.sha256 = "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD";
    assert_int_equal(ladder_db_bot_get_or_add(db, &bad, &e), JA_EINVAL);
    assert_contains(ladder_db_errmsg(db), "lowercase hex");
    bad.sha256 = "abc";
    assert_int_equal(ladder_db_bot_get_or_add(db, &bad, &e), JA_EINVAL);
    bad = three_bots[0];
    bad.name = "";
    assert_int_equal(ladder_db_bot_get_or_add(db, &bad, &e), JA_EINVAL);
    bad = three_bots[0];
    bad.kind = NULL;
    assert_int_equal(ladder_db_bot_get_or_add(db, &bad, &e), JA_EINVAL);
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    bad.kind = "plugin";
    bad.name = longname;
    assert_int_equal(ladder_db_bot_get_or_add(db, &bad, &e), JA_EINVAL);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM bots"), 4);
    ladder_db_close(&db);
}

static void test_sha256_file(void **state)
{
    fx *f = *state;
    char path[160], hex[LADDER_SHA256_HEX_SIZE];
    snprintf(path, sizeof path, "%s/bot.so", f->dir);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fclose(fp);
    /* FIPS 180-2 test vectors: the empty message and "abc". */
    assert_int_equal(ladder_sha256_file(path, hex), JA_OK);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    fp = fopen(path, "wb");
    fputs("abc", fp);
    fclose(fp);
    assert_int_equal(ladder_sha256_file(path, hex), JA_OK);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* Larger than the read buffer: 100000 'a'. */
    fp = fopen(path, "wb");
    for (int i = 0; i < 100000; i++)
        fputc('a', fp);
    fclose(fp);
    assert_int_equal(ladder_sha256_file(path, hex), JA_OK);
    assert_string_equal(hex, "6d1cf22d7cc09b085dfc25ee1a1f3ae0265804c607bc2074ad253bcc82fd81ee");
    unlink(path);
    assert_int_equal(ladder_sha256_file(path, hex), JA_EIO);
    assert_int_equal(ladder_sha256_file(NULL, hex), JA_EINVAL);
}

/* ---- Tournaments and plans ------------------------------------------------ */

static void test_tournament_roundtrip(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(UINT64_MAX); /* a seed above 2^63 */
    int64_t tid = create_ok(db, &s);

    ladder_tournament_info info;
    assert_int_equal(ladder_db_tournament_get(db, tid, &info), JA_OK);
    assert_int_equal(info.id, tid);
    assert_true(info.seed == UINT64_MAX);
    assert_int_equal(info.format, LADDER_FORMAT_ROUND_ROBIN);
    assert_int_equal(info.rounds, 1);
    assert_false(info.duplicate);
    assert_int_equal(info.n_seats, 2);
    assert_int_equal(info.n_participants, 3);
    assert_int_equal(info.n_matches, 6);
    assert_int_equal(info.n_done, 0);
    assert_false(info.done);
    char text[64];
    raw_text(f->db, "SELECT seed FROM tournaments", text, sizeof text);
    assert_string_equal(text, "18446744073709551615");

    /* The stored plan is the generated plan, seeds included. */
    ladder_plan_params p = {.n_participants = 3, .n_seats = 2, .rounds = 1,
                            .format = LADDER_FORMAT_ROUND_ROBIN, .seed = UINT64_MAX};
    for (uint32_t i = 0; i < 6; i++) {
        ladder_plan_match want, got;
        assert_int_equal(ladder_plan_match_at(&p, i, &want), JA_OK);
        assert_int_equal(ladder_db_match_get(db, tid, i, &got), JA_OK);
        assert_memory_equal(&want, &got, sizeof want);
    }
    raw_text(f->db, "SELECT seed FROM matches WHERE number = 0", text, sizeof text);
    assert_string_equal(text, "17137648746089140686"); /* ja_seed_derive(2^64-1, MTCH, 0) */
    ladder_plan_match m;
    assert_int_equal(ladder_db_match_get(db, tid, 6, &m), JA_ENOTFOUND);
    assert_int_equal(ladder_db_match_get(db, tid + 1, 0, &m), JA_ENOTFOUND);

    /* Several at once, in one read transaction: the same plans, in the
     * order asked; a failure stops at the match that fails, after the ones
     * read, and leaves no transaction open. */
    const uint32_t some[] = {4, 0, 5, 2};
    ladder_plan_match many[5];
    uint32_t got_n = 99;
    assert_int_equal(ladder_db_match_get_many(db, tid, some, 4, many, &got_n), JA_OK);
    assert_int_equal(got_n, 4);
    for (uint32_t i = 0; i < 4; i++) {
        ladder_plan_match want;
        assert_int_equal(ladder_plan_match_at(&p, some[i], &want), JA_OK);
        assert_memory_equal(&want, &many[i], sizeof want);
    }
    const uint32_t bad[] = {1, 3, 6, 0};
    assert_int_equal(ladder_db_match_get_many(db, tid, bad, 4, many, &got_n), JA_ENOTFOUND);
    assert_int_equal(got_n, 2);
    assert_contains(ladder_db_errmsg(db), "no match 6");
    assert_int_equal(ladder_db_match_get_many(db, tid, some, 0, many, &got_n), JA_OK);
    assert_int_equal(got_n, 0);
    assert_int_equal(ladder_db_match_get_many(db, tid, NULL, 1, many, NULL), JA_EINVAL);

    uint32_t *pending = NULL, n = 0;
    assert_int_equal(ladder_db_pending(db, tid, &pending, &n), JA_OK);
    assert_int_equal(n, 6);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(pending[i], i);
    free(pending);
    assert_int_equal(ladder_db_pending(db, tid + 1, &pending, &n), JA_ENOTFOUND);
    assert_contains(ladder_db_errmsg(db), "no tournament");
    assert_int_equal(ladder_db_tournament_get(db, tid + 1, &info), JA_ENOTFOUND);

    /* Participants in slot order, with their bots. */
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM participants p JOIN bots b"
                                    " ON b.id = p.bot_id WHERE p.slot = 2 AND b.name = 'gamma'"
                                    " AND p.name = 'gamma'"),
                     1);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM match_seats"), 12);
    /* ladder_db_match_get_many left no transaction open: a write (BEGIN
     * IMMEDIATE on this connection) goes through. */
    create_ok(db, &s);
    ladder_db_close(&db);
}

static void test_gauntlet_duplicate_stored(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_bot bots[4] = {three_bots[0], three_bots[1], three_bots[2],
                          {"delta", "", "zmq", "zmq:delta", NULL}};
    ladder_tournament_spec s = spec3(77);
    s.ladder.n_seats = 3;
    s.format = LADDER_FORMAT_GAUNTLET;
    s.duplicate = true;
    s.rounds = 2;
    s.n_bots = 4;
    s.bots = bots;
    int64_t tid = create_ok(db, &s);
    ladder_tournament_info info;
    assert_int_equal(ladder_db_tournament_get(db, tid, &info), JA_OK);
    assert_int_equal(info.n_matches, 18); /* C(3,2) * 3 * 2 */
    assert_true(info.duplicate);
    assert_int_equal(info.format, LADDER_FORMAT_GAUNTLET);
    ladder_plan_params p = {.n_participants = 4, .n_seats = 3, .rounds = 2,
                            .format = LADDER_FORMAT_GAUNTLET, .duplicate = true, .seed = 77};
    for (uint32_t i = 0; i < info.n_matches; i++) {
        ladder_plan_match want, got;
        assert_int_equal(ladder_plan_match_at(&p, i, &want), JA_OK);
        assert_int_equal(ladder_db_match_get(db, tid, i, &got), JA_OK);
        assert_memory_equal(&want, &got, sizeof want);
    }
    /* Three rotations share each seed: 18 matches, 6 distinct seeds. */
    assert_int_equal(raw_int(f->db, "SELECT count(DISTINCT seed) FROM matches"), 6);
    ladder_db_close(&db);
}

static void test_create_rejects(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    int64_t tid = 0;
    ladder_tournament_spec s = spec3(1);
    s.ladder.n_seats = 4; /* more seats than bots */
    assert_int_equal(ladder_db_tournament_create(db, &s, &tid), JA_EINVAL);
    assert_contains(ladder_db_errmsg(db), "4 seats need at least 4 participants");
    s = spec3(1);
    s.rounds = 400000; /* 2.4 million matches */
    assert_int_equal(ladder_db_tournament_create(db, &s, &tid), JA_ERANGE);
    assert_contains(ladder_db_errmsg(db), "the plan has 2400000 matches");
    ladder_bot twice[3] = {three_bots[0], three_bots[1], three_bots[0]};
    s = spec3(1);
    s.bots = twice;
    assert_int_equal(ladder_db_tournament_create(db, &s, &tid), JA_EINVAL);
    assert_contains(ladder_db_errmsg(db), "'alpha' is given twice");
    s = spec3(1);
    s.ladder.game = "";
    assert_int_equal(ladder_db_tournament_create(db, &s, &tid), JA_EINVAL);
    s = spec3(1);
    s.ladder.options = NULL;
    assert_int_equal(ladder_db_tournament_create(db, &s, &tid), JA_EINVAL);
    assert_int_equal(ladder_db_tournament_create(db, NULL, &tid), JA_EINVAL);
    assert_int_equal(tid, 0);
    /* Nothing was written by any of them. */
    assert_int_equal(raw_int(f->db, "SELECT (SELECT count(*) FROM tournaments)"
                                    " + (SELECT count(*) FROM bots)"
                                    " + (SELECT count(*) FROM ladders)"),
                     0);
    ladder_db_close(&db);
}

static void test_find_for_resume(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    int64_t found = 0;
    ladder_tournament_spec s = spec3(1234);
    assert_int_equal(ladder_db_tournament_find(db, &s, 0, &found), JA_ENOTFOUND);
    assert_contains(ladder_db_errmsg(db), "no tournament of taylor-blackjack");
    int64_t t1 = create_ok(db, &s);
    ladder_tournament_spec other = spec3(999);
    int64_t t2 = create_ok(db, &other);
    assert_int_equal(ladder_db_tournament_find(db, &s, 0, &found), JA_OK);
    assert_int_equal(found, t1);
    assert_int_equal(ladder_db_tournament_find(db, &other, 0, &found), JA_OK);
    assert_int_equal(found, t2);
    /* Any seed: the newest. */
    assert_int_equal(ladder_db_tournament_find(db, &s, LADDER_FIND_ANY_SEED, &found), JA_OK);
    assert_int_equal(found, t2);

    /* Every part of the spec matters. */
    ladder_tournament_spec d = s;
    d.rounds = 2;
    assert_int_equal(ladder_db_tournament_find(db, &d, 0, &found), JA_ENOTFOUND);
    d = s;
    d.duplicate = true;
    assert_int_equal(ladder_db_tournament_find(db, &d, 0, &found), JA_ENOTFOUND);
    d = s;
    d.ladder.options = "decks=1 way=2";
    assert_int_equal(ladder_db_tournament_find(db, &d, 0, &found), JA_ENOTFOUND);
    d = s;
    d.format = LADDER_FORMAT_GAUNTLET;
    assert_int_equal(ladder_db_tournament_find(db, &d, 0, &found), JA_ENOTFOUND);
    /* The same bots in another order are another tournament. */
    ladder_bot swapped[3] = {three_bots[1], three_bots[0], three_bots[2]};
    d = s;
    d.bots = swapped;
    assert_int_equal(ladder_db_tournament_find(db, &d, 0, &found), JA_ENOTFOUND);
    /* A rebuilt plugin (another sha256) is another bot. */
    ladder_bot rebuilt[3] = {three_bots[0], three_bots[1], three_bots[2]};
    rebuilt[0].sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    d = s;
    d.bots = rebuilt;
    assert_int_equal(ladder_db_tournament_find(db, &d, 0, &found), JA_ENOTFOUND);
    /* Fewer bots. */
    d = s;
    d.n_bots = 2;
    assert_int_equal(ladder_db_tournament_find(db, &d, 0, &found), JA_ENOTFOUND);

    /* Unfinished only: once t2 is done, ANY_SEED|UNFINISHED finds t1. */
    ladder_match_result r = result2(2 * JA_SCORE_UNIT, 0);
    for (uint32_t i = 0; i < 6; i++)
        record_ok(db, t2, i, &r);
    assert_int_equal(ladder_db_tournament_find(db, &s, LADDER_FIND_ANY_SEED | LADDER_FIND_UNFINISHED,
                                               &found),
                     JA_OK);
    assert_int_equal(found, t1);
    assert_int_equal(ladder_db_tournament_find(db, &other, LADDER_FIND_UNFINISHED, &found),
                     JA_ENOTFOUND);
    assert_contains(ladder_db_errmsg(db), "no unfinished tournament");
    /* find never writes. */
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments"), 2);
    ladder_db_close(&db);
}

/* ---- Recording ------------------------------------------------------------ */

static void test_record_and_standings(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(5);
    int64_t tid = create_ok(db, &s);
    /* Plan: 0 [0,1], 1 [1,0], 2 [0,2], 3 [2,0], 4 [1,2], 5 [2,1]. */
    ladder_match_result r = result2(3 * JA_SCORE_UNIT, JA_SCORE_UNIT);
    r.faults[1][JA_FAULT_TIMEOUT] = 2;
    r.faults[1][JA_FAULT_ILLEGAL] = 1;
    r.faults[1][JA_FAULT_NONE] = 50; /* not a fault: ignored */
    r.replay_path = "replays/0.jarp";
    record_ok(db, tid, 0, &r);

    /* Match 0: alpha (seat 0) beat beta, both new at 1500: +-32 * 0.5. */
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM results WHERE match_id = 1"), 2);
    assert_int_equal(raw_int(f->db, "SELECT score FROM results WHERE seat = 0"),
                     3 * JA_SCORE_UNIT);
    assert_int_equal(raw_int(f->db, "SELECT faults FROM results WHERE seat = 1"), 3);
    assert_int_equal(raw_int(f->db, "SELECT count FROM result_faults WHERE kind = 'timeout'"), 2);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM result_faults"), 2);
    assert_true(raw_double(f->db, "SELECT elo FROM ratings r JOIN bots b ON b.id = r.bot_id"
                                  " WHERE b.name = 'alpha'") == 1516.0);
    assert_true(raw_double(f->db, "SELECT elo FROM ratings r JOIN bots b ON b.id = r.bot_id"
                                  " WHERE b.name = 'beta'") == 1484.0);
    assert_true(raw_double(f->db, "SELECT elo_delta FROM results WHERE seat = 1") == -16.0);
    assert_true(raw_double(f->db, "SELECT elo_before FROM results WHERE seat = 1") == 1500.0);
    char text[64];
    raw_text(f->db, "SELECT status || ' ' || turns || ' ' || digest || ' ' || replay"
                    " FROM matches WHERE number = 0",
             text, sizeof text);
    assert_string_equal(text, "done 40 00ff replays/0.jarp");
    raw_text(f->db, "SELECT finished_at FROM matches WHERE number = 0", text, sizeof text);
    assert_int_equal(strlen(text), 20); /* 2025-01-31T12:00:00Z */

    /* Match 1 [beta, alpha]: beta wins this time (1484 vs 1516):
     * E(beta) = 1/(1+10^(32/400)) = 0.454030; beta +32*(1-0.454030) = +17.47. */
    record_ok(db, tid, 1, &r);
    ladder_key key = s.ladder;
    ladder_rating *rt = NULL;
    uint32_t n = 0;
    assert_int_equal(ladder_db_ratings(db, &key, &rt, &n), JA_OK);
    assert_int_equal(n, 2);
    assert_string_equal(rt[0].bot, "beta");
    assert_string_equal(rt[0].version, "");
    assert_true(rt[0].elo > 1501.4 && rt[0].elo < 1501.5); /* 1484 + 17.470 */
    assert_true(rt[1].elo > 1498.5 && rt[1].elo < 1498.6);
    assert_true(rt[0].elo + rt[1].elo > 2999.999 && rt[0].elo + rt[1].elo < 3000.001);
    assert_int_equal(rt[0].games, 2);
    assert_int_equal(rt[0].wins, 1);
    assert_int_equal(rt[0].losses, 1);
    free(rt);

    /* The rest: seat 0 always wins. */
    ladder_match_result plain = result2(JA_SCORE_UNIT, 0);
    for (uint32_t i = 2; i < 5; i++)
        record_ok(db, tid, i, &plain);
    ladder_tournament_info info;
    assert_int_equal(ladder_db_tournament_get(db, tid, &info), JA_OK);
    assert_int_equal(info.n_done, 5);
    assert_false(info.done);
    raw_text(f->db, "SELECT status FROM tournaments", text, sizeof text);
    assert_string_equal(text, "running");
    ladder_match_result draw = result2(JA_SCORE_UNIT / 2, JA_SCORE_UNIT / 2);
    record_ok(db, tid, 5, &draw);
    assert_int_equal(ladder_db_tournament_get(db, tid, &info), JA_OK);
    assert_true(info.done);
    raw_text(f->db, "SELECT status FROM tournaments", text, sizeof text);
    assert_string_equal(text, "done");
    uint32_t *pending = NULL;
    assert_int_equal(ladder_db_pending(db, tid, &pending, &n), JA_OK);
    assert_int_equal(n, 0);
    assert_null(pending);

    /* Standings. Results by slot (alpha 0, beta 1, gamma 2):
     *  m0 alpha 3 beta 1 | m1 beta 3 alpha 1 | m2 alpha 1 gamma 0 |
     *  m3 gamma 1 alpha 0 | m4 beta 1 gamma 0 | m5 gamma .5 beta .5 (draw)
     * alpha: 4 games, score 5, wins 2; beta: 4 games, score 5.5, wins 3
     * (the shared first place counts); gamma: 4 games, score 1.5, wins 2. */
    ladder_standing *st = NULL;
    assert_int_equal(ladder_db_standings(db, tid, &st, &n), JA_OK);
    assert_int_equal(n, 3);
    assert_string_equal(st[0].bot, "beta");
    assert_int_equal(st[0].slot, 1);
    assert_int_equal(st[0].games, 4);
    assert_int_equal(st[0].wins, 3);
    assert_int_equal(st[0].score, 11 * JA_SCORE_UNIT / 2);
    assert_int_equal(st[0].faults, 3); /* seat 1 of m0 */
    assert_string_equal(st[1].bot, "alpha");
    assert_int_equal(st[1].score, 5 * JA_SCORE_UNIT);
    assert_int_equal(st[1].wins, 2);
    assert_int_equal(st[1].faults, 3); /* seat 1 of m1 */
    assert_int_equal(st[2].faults, 0);
    assert_string_equal(st[2].bot, "gamma");
    assert_int_equal(st[2].score, 3 * JA_SCORE_UNIT / 2);
    assert_int_equal(st[2].wins, 2);
    for (int i = 0; i < 3; i++)
        assert_int_equal(st[i].elo_games, 4);
    free(st);

    uint64_t faults[JA_FAULT_COUNT];
    assert_int_equal(ladder_db_tournament_faults(db, tid, faults), JA_OK);
    assert_int_equal(faults[JA_FAULT_TIMEOUT], 4);
    assert_int_equal(faults[JA_FAULT_ILLEGAL], 2);
    assert_int_equal(faults[JA_FAULT_NONE], 0);
    assert_int_equal(faults[JA_FAULT_CRASH], 0);

    /* Ratings: the ratings sum stays 3 * 1500 while every K is 32. */
    assert_int_equal(ladder_db_ratings(db, &key, &rt, &n), JA_OK);
    assert_int_equal(n, 3);
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += rt[i].elo;
        if (i > 0)
            assert_true(rt[i - 1].elo >= rt[i].elo);
    }
    assert_true(sum > 4499.999 && sum < 4500.001);
    free(rt);
    ladder_key none = {"bombs", 2, ""};
    assert_int_equal(ladder_db_ratings(db, &none, &rt, &n), JA_OK);
    assert_int_equal(n, 0);
    assert_null(rt);

    ladder_summary *ls = NULL;
    assert_int_equal(ladder_db_ladders(db, NULL, &ls, &n), JA_OK);
    assert_int_equal(n, 1);
    assert_string_equal(ls[0].game, "taylor-blackjack");
    assert_string_equal(ls[0].options, "decks=auto way=2");
    assert_int_equal(ls[0].n_seats, 2);
    assert_int_equal(ls[0].bots, 3);
    assert_int_equal(ls[0].matches, 6);
    free(ls);
    assert_int_equal(ladder_db_ladders(db, "bombs", &ls, &n), JA_OK);
    assert_int_equal(n, 0);
    ladder_db_close(&db);
}

/* Counts matches and checks their places, for foreach_match. */
typedef struct walk {
    int matches;
    int stop_after;
    uint32_t last_number;
} walk;

static int walk_fn(void *ctx, const ladder_match_row *m)
{
    walk *w = ctx;
    if (m->n_seats != 2 || m->place[0] < 1 || m->place[1] < 1 || m->bot_id[0] == m->bot_id[1])
        return -1000;
    if (w->matches > 0 && m->number <= w->last_number)
        return -1001;
    w->last_number = m->number;
    w->matches++;
    return w->matches == w->stop_after ? 7 : 0;
}

static void test_foreach_match(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(5);
    int64_t tid = create_ok(db, &s);
    ladder_match_result r = result2(1, 0);
    for (uint32_t i = 0; i < 4; i++)
        record_ok(db, tid, i, &r);
    walk w = {0, 0, 0};
    assert_int_equal(ladder_db_foreach_match(db, &s.ladder, walk_fn, &w), JA_OK);
    assert_int_equal(w.matches, 4);
    walk stop = {0, 2, 0};
    assert_int_equal(ladder_db_foreach_match(db, &s.ladder, walk_fn, &stop), 7);
    assert_int_equal(stop.matches, 2);
    /* The handle is usable after a stopped walk (its read transaction ended). */
    record_ok(db, tid, 4, &r);
    ladder_db_close(&db);
}

/* The deals of a ladder, for test_deals_across_tournaments. */
typedef struct deals {
    int n;
    int64_t tid[32], match[32], deal[32], deal_tid[32];
    uint32_t number[32];
} deals;

static int deals_fn(void *ctx, const ladder_match_row *m)
{
    deals *d = ctx;
    if (d->n == 32)
        return -1;
    d->tid[d->n] = m->tournament_id;
    d->match[d->n] = m->match_id;
    d->deal[d->n] = m->deal;
    d->deal_tid[d->n] = m->deal_tournament;
    d->number[d->n] = m->number;
    d->n++;
    return 0;
}

/* A deal is a match seed of the ladder, in whichever tournament: a second
 * tournament with the same seed and more rounds replays the first one's
 * deals, and they are the same deals (docs/ratings.md, "Replayed deals").
 * Another ladder with the same seed is not part of this one. */
static void test_deals_across_tournaments(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(5);
    int64_t t1 = create_ok(db, &s);
    ladder_match_result r = result2(1, 0);
    for (uint32_t i = 0; i < 6; i++)
        record_ok(db, t1, i, &r);
    s.rounds = 2; /* matches 0..5 have the seeds of t1's, 6..11 new ones */
    int64_t t2 = create_ok(db, &s);
    for (uint32_t i = 0; i < 8; i++)
        record_ok(db, t2, i, &r);
    ladder_tournament_spec other = spec3(5);
    other.ladder.options = "decks=auto way=3";
    int64_t t3 = create_ok(db, &other);
    record_ok(db, t3, 0, &r);
    deals d = {0};
    assert_int_equal(ladder_db_foreach_match(db, &s.ladder, deals_fn, &d), JA_OK);
    assert_int_equal(d.n, 14);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(d.tid[i], t1);
        assert_int_equal(d.deal[i], d.match[i]);
        assert_int_equal(d.deal_tid[i], t1);
        /* The replay in t2 of t1's match i. */
        assert_int_equal(d.tid[6 + i], t2);
        assert_int_equal(d.number[6 + i], d.number[i]);
        assert_int_equal(d.deal[6 + i], d.match[i]);
        assert_int_equal(d.deal_tid[6 + i], t1);
    }
    for (int i = 12; i < 14; i++) {
        assert_int_equal(d.deal[i], d.match[i]);
        assert_int_equal(d.deal_tid[i], t2);
    }
    ladder_db_close(&db);
}

static void test_record_idempotent(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(5);
    int64_t tid = create_ok(db, &s);
    ladder_match_result r = result2(2, 1);
    r.faults[0][JA_FAULT_CRASH] = 1;
    record_ok(db, tid, 0, &r);
    int64_t before = written_rows(f->db);
    double elo = raw_double(f->db, "SELECT sum(elo * bot_id) FROM ratings");
    /* Again, even with another result: refused, nothing changes. */
    ladder_match_result other = result2(0, 5);
    assert_int_equal(ladder_db_record_match(db, tid, 0, &other), JA_ESTATE);
    assert_contains(ladder_db_errmsg(db), "match 0 of tournament");
    assert_contains(ladder_db_errmsg(db), "already recorded");
    assert_int_equal(written_rows(f->db), before);
    assert_true(raw_double(f->db, "SELECT sum(elo * bot_id) FROM ratings") == elo);
    assert_int_equal(raw_int(f->db, "SELECT sum(games) FROM ratings"), 2);
    /* Also from a second handle (another process resuming). */
    ladder_db *db2 = open_ok(f->db);
    assert_int_equal(ladder_db_record_match(db2, tid, 0, &r), JA_ESTATE);
    ladder_db_close(&db2);
    assert_int_equal(written_rows(f->db), before);
    ladder_db_close(&db);
}

/* Several results in one transaction (ladder_db_record_matches): each
 * recorded exactly as on its own, a refused one leaving the others. */
static void test_record_batch(void **state)
{
    fx *f = *state;
    char other[160];
    snprintf(other, sizeof other, "%s/one_by_one.db", f->dir);
    ladder_db *db = open_ok(f->db), *db1 = open_ok(other);
    ladder_tournament_spec s = spec3(5);
    int64_t tid = create_ok(db, &s);
    assert_int_equal(create_ok(db1, &s), tid);
    ladder_match_result r0 = result2(2, 1), r1 = result2(0, 3), r3 = result2(1, 1);
    ladder_match_result bad = result2(2, 1);
    bad.outcome.place[1] = 0;
    r1.faults[1][JA_FAULT_TIMEOUT] = 2;
    record_ok(db, tid, 0, &r0);
    /* Match 0 again (already recorded), 1, 2 with a bad result, 3. */
    uint32_t numbers[4] = {0, 1, 2, 3};
    const ladder_match_result *rs[4] = {&r0, &r1, &bad, &r3};
    int rcs[4] = {-99, -99, -99, -99};
    assert_int_equal(ladder_db_record_matches(db, tid, 4, numbers, rs, rcs), JA_OK);
    assert_int_equal(rcs[0], JA_ESTATE);
    assert_int_equal(rcs[1], JA_OK);
    assert_int_equal(rcs[2], JA_EINVAL);
    assert_int_equal(rcs[3], JA_OK);
    assert_contains(ladder_db_errmsg(db), "match 0 of tournament"); /* the first refusal */
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches WHERE status = 'done'"), 3);
    assert_int_equal(raw_int(f->db, "SELECT status = 'planned' FROM matches WHERE number = 2"), 1);
    /* The same three recorded one by one: the same rows and live ratings. */
    record_ok(db1, tid, 0, &r0);
    record_ok(db1, tid, 1, &r1);
    record_ok(db1, tid, 3, &r3);
    assert_int_equal(written_rows(f->db), written_rows(other));
    assert_true(raw_double(f->db, "SELECT sum(elo * bot_id) FROM ratings") ==
                raw_double(other, "SELECT sum(elo * bot_id) FROM ratings"));
    assert_int_equal(raw_int(f->db, "SELECT sum(count) FROM result_faults"), 2);
    /* Nothing to record is no error. */
    assert_int_equal(ladder_db_record_matches(db, tid, 0, numbers, rs, rcs), JA_OK);
    ladder_db_close(&db);
    ladder_db_close(&db1);
}

static void test_record_rejects(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(5);
    int64_t tid = create_ok(db, &s);
    ladder_match_result r = result2(2, 1);
    assert_int_equal(ladder_db_record_match(db, tid, 6, &r), JA_ENOTFOUND);
    assert_contains(ladder_db_errmsg(db), "has no match 6");
    assert_int_equal(ladder_db_record_match(db, tid + 5, 0, &r), JA_ENOTFOUND);
    assert_contains(ladder_db_errmsg(db), "no tournament");
    /* Three seats for a two-seat ladder. */
    ladder_match_result three = r;
    three.outcome.n_seats = 3;
    three.outcome.place[2] = 3;
    assert_int_equal(ladder_db_record_match(db, tid, 0, &three), JA_EINVAL);
    assert_contains(ladder_db_errmsg(db), "the result has 3 seats");
    /* Places outside 1..n. */
    ladder_match_result bad = r;
    bad.outcome.place[1] = 0;
    assert_int_equal(ladder_db_record_match(db, tid, 0, &bad), JA_EINVAL);
    bad.outcome.place[1] = 3;
    assert_int_equal(ladder_db_record_match(db, tid, 0, &bad), JA_EINVAL);
    assert_int_equal(ladder_db_record_match(db, tid, 0, NULL), JA_EINVAL);
    assert_int_equal(written_rows(f->db), 0);
    /* And the match can still be recorded properly. */
    record_ok(db, tid, 0, &r);
    ladder_db_close(&db);
}

/* A failure in the middle of recording (here: the rating update, after the
 * results rows were inserted) leaves nothing behind. */
static void test_record_atomic(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(5);
    int64_t tid = create_ok(db, &s);
    raw_exec(f->db, "CREATE TRIGGER fail_ratings BEFORE INSERT ON ratings"
                    " BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    ladder_match_result r = result2(2, 1);
    r.faults[0][JA_FAULT_TIMEOUT] = 1;
    assert_int_equal(ladder_db_record_match(db, tid, 0, &r), JA_EDB);
    assert_contains(ladder_db_errmsg(db), "injected failure");
    assert_contains(ladder_db_errmsg(db), "recording match 0");
    assert_int_equal(written_rows(f->db), 0);
    raw_exec(f->db, "DROP TRIGGER fail_ratings");
    record_ok(db, tid, 0, &r);
    assert_int_equal(written_rows(f->db), 2 * 1000000 + 1 * 10000 + 2 * 100 + 1);
    ladder_db_close(&db);
}

/* A process that dies between matches loses nothing it recorded. */
static void test_crash_between_matches(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(5);
    int64_t tid = create_ok(db, &s);
    ladder_db_close(&db); /* never carry a connection across fork */

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        ladder_db *child = NULL;
        if (ladder_db_open(f->db, &child) != JA_OK)
            _exit(2);
        ladder_match_result r = result2(2, 1);
        if (ladder_db_record_match(child, tid, 0, &r) != JA_OK)
            _exit(3);
        _exit(1); /* dies without closing: no checkpoint, the -wal file stays */
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);

    db = open_ok(f->db);
    uint32_t *pending = NULL, n = 0;
    assert_int_equal(ladder_db_pending(db, tid, &pending, &n), JA_OK);
    assert_int_equal(n, 5);
    assert_int_equal(pending[0], 1);
    free(pending);
    ladder_tournament_info info;
    assert_int_equal(ladder_db_tournament_get(db, tid, &info), JA_OK);
    assert_int_equal(info.n_done, 1);
    ladder_match_result r = result2(2, 1);
    assert_int_equal(ladder_db_record_match(db, tid, 0, &r), JA_ESTATE);
    record_ok(db, tid, 1, &r);
    ladder_db_close(&db);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM results"), 4);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Another process holding the write lock past the busy timeout: JA_EBUSY,
 * a message naming the file, nothing written; fine once it lets go. */
static void test_locked(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(5);
    int64_t tid = create_ok(db, &s);
    assert_int_equal(ladder_db_set_busy_timeout(db, 150), JA_OK);
    assert_int_equal(ladder_db_set_busy_timeout(db, -1), JA_EINVAL);

    sqlite3 *holder = raw_open(f->db);
    assert_int_equal(sqlite3_exec(holder, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);

    ladder_match_result r = result2(2, 1);
    double t0 = now_ms();
    assert_int_equal(ladder_db_record_match(db, tid, 0, &r), JA_EBUSY);
    assert_true(now_ms() - t0 >= 100); /* it did wait */
    assert_contains(ladder_db_errmsg(db), f->db);
    assert_contains(ladder_db_errmsg(db), "locked by another process");
    assert_contains(ladder_db_errmsg(db), "150 ms");
    assert_contains(ladder_db_errmsg(db), "recording match 0");
    ladder_tournament_spec s2 = spec3(6);
    int64_t t2 = 0;
    assert_int_equal(ladder_db_tournament_create(db, &s2, &t2), JA_EBUSY);
    ladder_bot nb = {"newbot", "", "builtin", "", NULL};
    assert_int_equal(ladder_db_bot_get_or_add(db, &nb, &t2), JA_EBUSY);
    /* Reads still work under WAL while a writer holds the lock. */
    uint32_t *pending = NULL, n = 0;
    assert_int_equal(ladder_db_pending(db, tid, &pending, &n), JA_OK);
    assert_int_equal(n, 6);
    free(pending);

    assert_int_equal(sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(holder);
    assert_int_equal(written_rows(f->db), 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments"), 1);
    record_ok(db, tid, 0, &r);
    assert_string_equal(ladder_db_errmsg(db), "");
    ladder_db_close(&db);
}

/* A three-seat ladder: the stored Elo is ladder_elo_match's, applied
 * simultaneously, with pairwise win/draw/loss counts. */
static void test_multiplayer_elo_stored(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    ladder_bot bots[3] = {three_bots[0], three_bots[1], three_bots[2]};
    ladder_tournament_spec s = spec3(8);
    s.ladder.n_seats = 3;
    int64_t tid = create_ok(db, &s); /* one combination, 3 rotations */
    ladder_match_result r;
    memset(&r, 0, sizeof r);
    r.outcome.n_seats = 3;
    r.outcome.score[0] = 5;
    r.outcome.score[1] = 5;
    r.outcome.score[2] = 1;
    r.outcome.place[0] = 1;
    r.outcome.place[1] = 1;
    r.outcome.place[2] = 3;
    record_ok(db, tid, 0, &r); /* seats: alpha, beta, gamma */
    /* 1500 all: alpha and beta +8 (draw each other, beat gamma), gamma -16. */
    ladder_rating *rt = NULL;
    uint32_t n;
    assert_int_equal(ladder_db_ratings(db, &s.ladder, &rt, &n), JA_OK);
    assert_int_equal(n, 3);
    assert_string_equal(rt[0].bot, "alpha"); /* ties broken by name */
    assert_true(rt[0].elo == 1508.0);
    assert_int_equal(rt[0].wins, 1);
    assert_int_equal(rt[0].draws, 1);
    assert_string_equal(rt[1].bot, "beta");
    assert_true(rt[1].elo == 1508.0);
    assert_string_equal(rt[2].bot, "gamma");
    assert_true(rt[2].elo == 1484.0);
    assert_int_equal(rt[2].losses, 2);
    free(rt);

    /* Match 1 is rotation 1: seats beta, gamma, alpha. gamma wins alone. */
    r.outcome.place[0] = 2;
    r.outcome.place[1] = 1;
    r.outcome.place[2] = 3;
    record_ok(db, tid, 1, &r);
    ladder_elo_seat e[3] = {
        {.who = 2, .rating = 1508.0, .games = 1, .place = 2},
        {.who = 3, .rating = 1484.0, .games = 1, .place = 1},
        {.who = 1, .rating = 1508.0, .games = 1, .place = 3},
    };
    assert_int_equal(ladder_elo_match(e, 3), JA_OK);
    assert_int_equal(ladder_db_ratings(db, &s.ladder, &rt, &n), JA_OK);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = rt[i].bot;
        double want = strcmp(name, "beta") == 0    ? 1508.0 + e[0].delta
                      : strcmp(name, "gamma") == 0 ? 1484.0 + e[1].delta
                                                   : 1508.0 + e[2].delta;
        if (rt[i].elo < want - 1e-9 || rt[i].elo > want + 1e-9)
            fail_msg("%s: %.9f, want %.9f", name, rt[i].elo, want);
        assert_int_equal(rt[i].games, 2);
    }
    free(rt);
    ladder_db_close(&db);
    (void)bots;
}

static void test_seed_text(void **state)
{
    (void)state;
    char buf[21];
    assert_string_equal(ladder_seed_format(0, buf), "0");
    assert_string_equal(ladder_seed_format(UINT64_MAX, buf), "18446744073709551615");
    assert_string_equal(ladder_seed_format(UINT64_C(9223372036854775808), buf),
                        "9223372036854775808");
    uint64_t v = 1;
    assert_int_equal(ladder_seed_parse("0", &v), JA_OK);
    assert_true(v == 0);
    assert_int_equal(ladder_seed_parse("18446744073709551615", &v), JA_OK);
    assert_true(v == UINT64_MAX);
    assert_int_equal(ladder_seed_parse("18446744073709551616", &v), JA_EINVAL); /* 2^64 */
    assert_int_equal(ladder_seed_parse("99999999999999999999", &v), JA_EINVAL);
    assert_int_equal(ladder_seed_parse("007", &v), JA_EINVAL);
    assert_int_equal(ladder_seed_parse("-1", &v), JA_EINVAL);
    assert_int_equal(ladder_seed_parse("", &v), JA_EINVAL);
    assert_int_equal(ladder_seed_parse("12a", &v), JA_EINVAL);
    assert_int_equal(ladder_seed_parse(NULL, &v), JA_EINVAL);
}

/* ---- Listings ------------------------------------------------------------- */

/* The listings (pending, standings, ratings, ladders, ladder bots) at
 * their edges: no row (NULL and 0), one row, and more rows than the
 * 16 a listing's array starts with. */
static void test_listing_sizes(void **state)
{
    fx *f = *state;
    ladder_db *db = open_ok(f->db);
    enum { NB = 18 }; /* round robin: C(18,2) * 2 = 306 matches */
    char names[NB][8];
    ladder_bot bots[NB];
    for (int i = 0; i < NB; i++) {
        snprintf(names[i], sizeof names[i], "b%02d", i);
        bots[i] = (ladder_bot){names[i], "1", "builtin", "random", NULL};
    }
    ladder_tournament_spec s = spec3(11);
    s.n_bots = NB;
    s.bots = bots;

    /* No row. */
    ladder_summary *ls = (ladder_summary *)&ls; /* not NULL: must be set */
    uint32_t n = 99;
    assert_int_equal(ladder_db_ladders(db, NULL, &ls, &n), JA_OK);
    assert_null(ls);
    assert_int_equal(n, 0);
    ladder_rating *rt = (ladder_rating *)&rt;
    n = 99;
    assert_int_equal(ladder_db_ratings(db, &s.ladder, &rt, &n), JA_OK);
    assert_null(rt);
    assert_int_equal(n, 0);
    ladder_bot_row *br = (ladder_bot_row *)&br;
    n = 99;
    assert_int_equal(ladder_db_ladder_bots(db, &s.ladder, &br, &n), JA_OK);
    assert_null(br);
    assert_int_equal(n, 0);

    /* One row. */
    int64_t tid = create_ok(db, &s);
    assert_int_equal(ladder_db_ladders(db, NULL, &ls, &n), JA_OK);
    assert_int_equal(n, 1);
    assert_string_equal(ls[0].game, "taylor-blackjack");
    assert_int_equal(ls[0].n_seats, 2);
    assert_string_equal(ls[0].options, "decks=auto way=2");
    assert_int_equal(ls[0].bots, 0);
    assert_int_equal(ls[0].matches, 0);
    free(ls);

    /* Many rows: 306 pending matches, 18 standings, ratings and bots. */
    uint32_t *pending = NULL;
    assert_int_equal(ladder_db_pending(db, tid, &pending, &n), JA_OK);
    assert_int_equal(n, 306);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(pending[i], i);
    free(pending);
    ladder_standing *st = NULL;
    assert_int_equal(ladder_db_standings(db, tid, &st, &n), JA_OK);
    assert_int_equal(n, NB);
    for (uint32_t i = 0; i < NB; i++) { /* no games yet: by slot */
        assert_int_equal(st[i].slot, i);
        assert_string_equal(st[i].bot, names[i]);
        assert_string_equal(st[i].version, "1");
        assert_int_equal(st[i].games, 0);
    }
    free(st);
    /* Record matches until every bot has played one. */
    bool played[NB] = {false};
    uint32_t left = NB;
    ladder_match_result r = result2(JA_SCORE_UNIT, 0);
    for (uint32_t k = 0; left > 0 && k < 306; k++) {
        ladder_plan_match m;
        assert_int_equal(ladder_db_match_get(db, tid, k, &m), JA_OK);
        if (played[m.slot[0]] && played[m.slot[1]])
            continue;
        record_ok(db, tid, k, &r);
        for (int j = 0; j < 2; j++)
            if (!played[m.slot[j]]) {
                played[m.slot[j]] = true;
                left--;
            }
    }
    assert_int_equal(left, 0);
    assert_int_equal(ladder_db_ratings(db, &s.ladder, &rt, &n), JA_OK);
    assert_int_equal(n, NB);
    for (uint32_t i = 1; i < NB; i++)
        assert_true(rt[i - 1].elo >= rt[i].elo);
    for (uint32_t i = 0; i < NB; i++)
        assert_true(rt[i].games >= 1 && rt[i].bot[0] == 'b');
    free(rt);
    assert_int_equal(ladder_db_ladder_bots(db, &s.ladder, &br, &n), JA_OK);
    assert_int_equal(n, NB);
    for (uint32_t i = 0; i < NB; i++) { /* by id: the order they were added */
        assert_string_equal(br[i].name, names[i]);
        assert_string_equal(br[i].kind, "builtin");
        assert_string_equal(br[i].sha256, "");
    }
    free(br);
    ladder_db_close(&db);
}

/* ---- Merging another database --------------------------------------------- */

/* The other file of a merge, in f's directory: tournaments of seeds 1
 * (matches 0 and 1 done, match 1 with 2 timeouts and 33 turns) and 2
 * (match 3 done). */
static void make_other(const fx *f, char *path, size_t cap)
{
    snprintf(path, cap, "%s/other.db", f->dir);
    ladder_db *db = open_ok(path);
    ladder_tournament_spec s1 = spec3(1), s2 = spec3(2);
    int64_t t1 = create_ok(db, &s1), t2 = create_ok(db, &s2);
    ladder_match_result r = result2(2 * JA_SCORE_UNIT, 0);
    record_ok(db, t1, 0, &r);
    record_ok(db, t2, 3, &r);
    r.faults[1][JA_FAULT_TIMEOUT] = 2;
    r.turns = 33;
    record_ok(db, t1, 1, &r);
    ladder_db_close(&db);
}

/* Merges the file other into f->db. */
static int merge(const fx *f, const char *other, ladder_merge_result *out, char *err, size_t cap)
{
    ladder_db *db = open_ok(f->db);
    err[0] = '\0';
    int rc = ladder_db_merge(db, other, out, err, cap);
    ladder_db_close(&db);
    return rc;
}

static void assert_merged(const ladder_merge_result *out, uint32_t tournaments, uint32_t created,
                          uint32_t matches, uint32_t already)
{
    assert_int_equal(out->tournaments, tournaments);
    assert_int_equal(out->created, created);
    assert_int_equal(out->matches, matches);
    assert_int_equal(out->already, already);
    assert_int_equal(out->skipped_imports, 0);
}

static void test_merge(void **state)
{
    fx *f = *state;
    char other[160], err[512];
    make_other(f, other, sizeof other);
    ladder_merge_result out;
    assert_int_equal(merge(f, other, &out, err, sizeof err), JA_OK);
    assert_merged(&out, 2, 2, 3, 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments"), 2);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches WHERE status = 'done'"), 3);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches m JOIN tournaments t"
                                    " ON t.id = m.tournament_id WHERE t.seed = '1'"
                                    " AND m.number = 1 AND m.turns = 33"),
                     1);
    assert_int_equal(raw_int(f->db, "SELECT count FROM result_faults WHERE kind = 'timeout'"), 2);

    /* Again: every match is here already, and nothing is written. */
    int64_t before = written_rows(f->db);
    assert_int_equal(merge(f, other, &out, err, sizeof err), JA_OK);
    assert_merged(&out, 2, 0, 0, 3);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments"), 2);
    assert_int_equal(written_rows(f->db), before);
}

/* A shard of tournament 1 played here: the merge finds it and adds the
 * other file's matches to it. */
static void test_merge_shard(void **state)
{
    fx *f = *state;
    char other[160], err[512];
    make_other(f, other, sizeof other);
    ladder_db *db = open_ok(f->db);
    ladder_tournament_spec s = spec3(1);
    ladder_match_result r = result2(0, JA_SCORE_UNIT);
    record_ok(db, create_ok(db, &s), 5, &r);
    ladder_db_close(&db);
    ladder_merge_result out;
    assert_int_equal(merge(f, other, &out, err, sizeof err), JA_OK);
    assert_merged(&out, 2, 1, 3, 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments"), 2);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches WHERE status = 'done'"
                                    " AND tournament_id = 1"),
                     3);
}

static void test_merge_refusals(void **state)
{
    fx *f = *state;
    char other[160], err[512];
    ladder_merge_result out;

    /* Another program's SQLite database. */
    snprintf(other, sizeof other, "%s/other.db", f->dir);
    sqlite3 *s;
    assert_int_equal(sqlite3_open(other, &s), SQLITE_OK);
    assert_int_equal(sqlite3_exec(s, "CREATE TABLE notes (t TEXT)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(s);
    assert_int_equal(merge(f, other, &out, err, sizeof err), JA_EFORMAT);
    assert_contains(err, "not an arena database");
    unlink(other);

    /* Another schema version. */
    make_other(f, other, sizeof other);
    raw_exec(other, "PRAGMA user_version = 99");
    assert_int_equal(merge(f, other, &out, err, sizeof err), JA_EVERSION);
    assert_contains(err, "schema version 99");
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", LADDER_DB_SCHEMA_VERSION);
    raw_exec(other, sql);

    /* A tournament of the same spec here with another plan. */
    raw_exec(other, "UPDATE tournaments SET n_matches = 7 WHERE id = 1");
    assert_int_equal(merge(f, other, &out, err, sizeof err), JA_EMISMATCH);
    assert_contains(err, "plans 7 matches, here 6");
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM matches WHERE status = 'done'"), 0);
}

/* The second tournament of the other file has a format this arena does not
 * know: the merge fails, and merges nothing, not even the first. */
static void test_merge_unknown_format(void **state)
{
    fx *f = *state;
    char other[160], err[512];
    make_other(f, other, sizeof other);
    raw_exec(other, "PRAGMA ignore_check_constraints = ON;"
                    " UPDATE tournaments SET format = 'ladder' WHERE id = 2");
    ladder_merge_result out;
    assert_int_equal(merge(f, other, &out, err, sizeof err), JA_EFORMAT);
    assert_contains(err, "tournament 2 has an unknown format");
    assert_merged(&out, 0, 0, 0, 0);
    assert_int_equal(raw_int(f->db, "SELECT count(*) FROM tournaments"), 0);
    assert_int_equal(written_rows(f->db), 0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_open_fresh),
        T(test_newer_version_refused),
        T(test_foreign_files_refused),
        T(test_migration_atomic),
        T(test_open_missing_dir),
        T(test_read_only_file),
        T(test_read_only_dir),
        T(test_bot_identity),
        T(test_sha256_file),
        T(test_tournament_roundtrip),
        T(test_gauntlet_duplicate_stored),
        T(test_create_rejects),
        T(test_find_for_resume),
        T(test_record_and_standings),
        T(test_foreach_match),
        T(test_deals_across_tournaments),
        T(test_record_idempotent),
        T(test_record_rejects),
        T(test_record_batch),
        T(test_record_atomic),
        T(test_crash_between_matches),
        T(test_locked),
        T(test_multiplayer_elo_stored),
        T(test_seed_text),
        T(test_listing_sizes),
        T(test_merge),
        T(test_merge_shard),
        T(test_merge_refusals),
        T(test_merge_unknown_format),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
