/* The standings library (arena/run/standings.h) and the ladder commands' database
 * side (arena/run/ladder_run.h), linked directly: the live table and the fit of a
 * small ladder recorded through ladder_db, as text and as JSON, with and
 * without an anchor, a bad anchor refused, and the JSON Lines export and
 * import round trip. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run/ladder_run.h"
#include "run/standings.h"
#include "core/util.h"

#include "jackarena/ja_error.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const ladder_bot bots3[3] = {
    {"alpha", "1.0", "plugin", "./alpha.so",
     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"beta", "", "builtin", "random", NULL},
    {"gamma", "2", "cmd", "cmd:python3 gamma.py", NULL},
};

typedef struct fx {
    char path[64];
    ladder_db *db;
    const ja_game_rules *g;
    ladder_key key;
    char opts[LADDER_OPTIONS_MAX]; /* the game's default options at 2 seats */
} fx;

/* A ladder of 3 bots, a round robin of 6 two-seat matches in which seat 0
 * always wins: every pair splits its two matches, so the three rate alike. */
static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    snprintf(f->path, sizeof f->path, "/tmp/ja_standings_XXXXXX");
    int fd = mkstemp(f->path);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(f->path);
    if (ladder_db_open(f->path, &f->db) != JA_OK)
        return -1;
    f->g = ja_game_find("taylor-blackjack");
    ja_options o;
    char err[256];
    ja_options_init(f->g, &o);
    if (ja_options_resolve(f->g, &o, 2, err, sizeof err) != JA_OK ||
        ja_options_format(f->g, &o, f->opts, sizeof f->opts) < 0)
        return -1;
    f->key = (ladder_key){"taylor-blackjack", 2, f->opts};
    ladder_tournament_spec s = {.ladder = f->key, .seed = 7, .format = LADDER_FORMAT_ROUND_ROBIN,
                                .rounds = 1, .n_bots = 3, .bots = bots3};
    int64_t tid = -1;
    if (ladder_db_tournament_create(f->db, &s, &tid) != JA_OK)
        return -1;
    for (uint32_t m = 0; m < 6; m++) {
        ladder_match_result r;
        memset(&r, 0, sizeof r);
        r.outcome.n_seats = 2;
        r.outcome.score[0] = JA_SCORE_UNIT;
        r.outcome.place[0] = 1;
        r.outcome.place[1] = 2;
        r.turns = 10;
        r.digest = "00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff";
        if (ladder_db_record_match(f->db, tid, m, &r) != JA_OK)
            return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    ladder_db_close(&f->db);
    unlink(f->path);
    free(f);
    return 0;
}

/* Runs one standings call into a string (caller frees); *rc its code. */
static char *run(fx *f, bool fit, const char *anchor, bool json, int *rc)
{
    char *buf = NULL, err[4400];
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    *rc = fit ? arena_standings_fit(out, f->db, f->g, 2, f->key.options, anchor,
                                    LADDER_FIT_DEFAULT_MODEL, false, json, err, sizeof err)
              : arena_standings_live(out, f->db, f->g, 2, f->key.options, true, json, err,
                                     sizeof err);
    fclose(out);
    return buf;
}

static void assert_contains(const char *hay, const char *needle)
{
    if (strstr(hay, needle) == NULL)
        fail_msg("'%s' does not contain '%s'", hay, needle);
}

static void test_live(void **state)
{
    int st;
    char *s = run(*state, false, NULL, false, &st);
    assert_int_equal(st, JA_OK);
    assert_contains(s, "taylor-blackjack, 2 seats, live Elo");
    assert_contains(s, "options: ");
    assert_contains(s, ((fx *)*state)->opts);
    for (int i = 0; i < 3; i++)
        assert_contains(s, bots3[i].name);
    assert_contains(s, "2-0-2"); /* each bot: 4 games, split with each other */
    free(s);
}

static void test_fit_json(void **state)
{
    int st;
    char *s = run(*state, true, NULL, true, &st);
    assert_int_equal(st, JA_OK);
    json_error_t e;
    json_t *v = json_loads(s, 0, &e);
    assert_non_null(v);
    assert_string_equal(json_string_value(json_object_get(v, "method")), "bradley-terry");
    assert_int_equal(json_integer_value(json_object_get(v, "matches")), 6);
    json_t *r = json_object_get(v, "ratings");
    assert_int_equal(json_array_size(r), 3);
    for (size_t i = 0; i < 3; i++) {
        json_t *row = json_array_get(r, i);
        assert_int_equal(json_number_value(json_object_get(row, "games")), 4);
        assert_string_equal(json_string_value(json_object_get(row, "status")), "rated");
        /* equal results, equal ratings: the mean, 1500 */
        double elo = json_number_value(json_object_get(row, "elo"));
        assert_true(elo > 1499.9 && elo < 1500.1);
    }
    json_decref(v);
    free(s);
}

static void test_fit_anchor(void **state)
{
    int st;
    char *s = run(*state, true, "beta=1000", false, &st);
    assert_int_equal(st, JA_OK);
    assert_contains(s, "official ratings (Bradley-Terry fit of 6 matches");
    assert_contains(s, "anchor: beta = 1000");
    free(s);
    s = run(*state, true, "beta=1000", true, &st);
    json_error_t e;
    json_t *v = json_loads(s, 0, &e);
    assert_non_null(v);
    json_t *a = json_object_get(v, "anchor");
    assert_string_equal(json_string_value(json_object_get(a, "bot")), "beta");
    assert_int_equal(json_number_value(json_object_get(a, "elo")), 1000);
    json_decref(v);
    free(s);
}

static void test_fit_bad_anchor(void **state)
{
    int st;
    char *s = run(*state, true, "nobody", false, &st);
    assert_int_equal(st, JA_EINVAL); /* the user's */
    assert_string_equal(s, ""); /* the error goes to err, nothing to out */
    free(s);
    s = run(*state, true, "beta=high", false, &st);
    assert_int_equal(st, JA_EINVAL);
    free(s);
}

/* Reads a whole file into a string (caller frees). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* One subcommand's two steps (ladder_run.h), out its output: the code of
 * the step that failed (*prepared: that it was not the preparation), or
 * JA_OK. */
static int ladder(const arena_ladder_args *a, FILE *out, bool *prepared)
{
    arena_ladder l;
    char err[4400];
    int rc = arena_ladder_prepare(&l, a, err, sizeof err);
    *prepared = rc == JA_OK;
    if (rc == JA_OK)
        rc = arena_ladder_run(&l, out, err, sizeof err);
    arena_ladder_close(&l);
    return rc;
}

/* ladder_run.h: the ladder's JSON Lines export, imported into a fresh
 * database, exports again to the same lines; the import reports its
 * matches; a missing database is the user's (JA_ENOTFOUND, before the run)
 * with nothing written. */
static void test_export_import_round_trip(void **state)
{
    fx *f = *state;
    char a[80], b[80], db2[80];
    snprintf(a, sizeof a, "%s.a.jsonl", f->path);
    snprintf(b, sizeof b, "%s.b.jsonl", f->path);
    snprintf(db2, sizeof db2, "%s.2.db", f->path);
    ladder_db_close(&f->db); /* the commands open the file themselves */
    arena_ladder_args ex = {.what = ARENA_LADDER_EXPORT, .db_path = f->path, .game = f->g,
                            .want_seats = 2, .out_path = a};
    ja_options_init(f->g, &ex.given);
    bool prepared;
    assert_int_equal(ladder(&ex, stdout, &prepared), JA_OK);
    char *rep = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&rep, &len);
    arena_ladder_args im = {.what = ARENA_LADDER_IMPORT, .db_path = db2, .path = a, .json = true};
    assert_int_equal(ladder(&im, out, &prepared), JA_OK);
    fclose(out);
    json_error_t e;
    json_t *v = json_loads(rep, 0, &e);
    assert_non_null(v);
    assert_int_equal(json_integer_value(json_object_get(v, "matches")), 6);
    assert_int_equal(json_integer_value(json_object_get(v, "bots")), 3);
    json_decref(v);
    free(rep);
    ex.db_path = db2;
    ex.out_path = b;
    assert_int_equal(ladder(&ex, stdout, &prepared), JA_OK);
    char *ta = slurp(a), *tb = slurp(b);
    assert_true(strlen(ta) > 0);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    unlink(a);
    unlink(b);
    unlink(db2);
    ex.db_path = "/nonexistent/x.db";
    ex.out_path = a;
    assert_int_equal(ladder(&ex, stdout, &prepared), JA_ENOTFOUND);
    assert_false(prepared);
    assert_int_equal(access(a, F_OK), -1);
    assert_int_equal(ladder_db_open(f->path, &f->db), JA_OK); /* for the teardown */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_live, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_anchor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_bad_anchor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_import_round_trip, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
