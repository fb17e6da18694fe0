/* The tournament run (arena/run/tournament_run.h), linked directly: a small
 * round robin of the reference bots on taylor-blackjack into a fresh
 * database, as JSON and as text; the same seed into another database gives
 * the same standings byte for byte; the same run again finds the finished
 * tournament and plays nothing; --resume without a database is refused
 * before anything is made. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "arena_test.h"
#include "run/tournament_run.h"

#include "jackarena/ja_error.h"

#include "match.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static arena_bots g_bots; /* large */
static arena_ext g_ext;

/* A database path that does not exist yet (and its lock file's), removed
 * by the teardown. */
typedef struct fx {
    char dir[64];
    char db[96], db2[96];
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/ja_trun_XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->db, sizeof f->db, "%s/a.db", f->dir);
    snprintf(f->db2, sizeof f->db2, "%s/b.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

/* Plays random, greedy, random (shown as random#2) in 2 seats, 2 rounds,
 * seed 5, into db: prepares the tournament (its code in *prepared) and,
 * when that succeeds, runs it, which must succeed; returns the output
 * (free()), NULL when nothing ran. */
static char *run(const char *db, bool json, bool resume, int *prepared)
{
    const ja_game_rules *g = ja_game_find("taylor-blackjack");
    assert_non_null(g);
    memset(&g_bots, 0, sizeof g_bots);
    memset(&g_ext, 0, sizeof g_ext);
    g_bots.ext = &g_ext;
    char err[ARENA_BOTS_ERR_CAP];
    assert_int_equal(arena_bots_add_list(&g_bots, "random,greedy,random", err, sizeof err), JA_OK);
    assert_int_equal(arena_bots_finish_names(&g_bots, err, sizeof err), JA_OK);
    static const arena_scale sc = {0};
    arena_tournament_args a = {.game = g, .bots = &g_bots, .ext = &g_ext, .scale = &sc,
                               .plan = {.n_participants = 3, .n_seats = 2, .rounds = 2,
                                        .format = LADDER_FORMAT_ROUND_ROBIN},
                               .have_seed = true, .seed = 5, .db_path = db,
                               .move_ms = REF_MOVE_MS_KIND, .jobs = 1, .resume = resume,
                               .json = json, .quiet = true};
    assert_int_equal(arena_test_options(g, 2, &a.options), JA_OK);
    static arena_tournament t; /* large */
    char *buf;
    ARENA_TEST_STEPS(buf, *prepared, arena_tournament_prepare(&t, &a, err, sizeof err),
                     arena_tournament_run(&t, out, err, sizeof err),
                     arena_tournament_close(&t), err);
    return buf;
}

static void test_json(void **state)
{
    fx *f = *state;
    int prepared;
    char *s = run(f->db, true, false, &prepared);
    assert_int_equal(prepared, JA_OK);
    json_error_t e;
    json_t *v = json_loads(s, 0, &e);
    assert_non_null(v);
    assert_string_equal(json_string_value(json_object_get(v, "game")), "taylor-blackjack");
    assert_string_equal(json_string_value(json_object_get(v, "seed")), "5");
    assert_int_equal(json_integer_value(json_object_get(v, "tournament")), 1);
    /* 3 pairs, 2 rotations each, 2 rounds. */
    assert_int_equal(json_integer_value(json_object_get(v, "planned")), 12);
    assert_int_equal(json_integer_value(json_object_get(v, "matches")), 12);
    json_t *st = json_object_get(v, "standings");
    assert_int_equal(json_array_size(st), 3);
    json_int_t games = 0;
    bool seen[3] = {false, false, false};
    for (size_t i = 0; i < 3; i++) {
        json_t *r = json_array_get(st, i);
        const char *name = json_string_value(json_object_get(r, "display_name"));
        seen[0] |= strcmp(name, "random") == 0;
        seen[1] |= strcmp(name, "greedy") == 0;
        seen[2] |= strcmp(name, "random#2") == 0;
        games += json_integer_value(json_object_get(r, "games"));
        assert_int_equal(json_integer_value(json_object_get(r, "games")), 8);
    }
    assert_true(seen[0] && seen[1] && seen[2]);
    assert_int_equal(games, 24); /* two seats in each of 12 matches */
    json_decref(v);

    /* The same seed into another database: the same standings. */
    char *other = run(f->db2, true, false, &prepared);
    assert_int_equal(prepared, JA_OK);
    assert_string_equal(s, other);
    free(other);
    /* The same run again finds the tournament complete: nothing changes. */
    char *again = run(f->db, true, false, &prepared);
    assert_int_equal(prepared, JA_OK);
    assert_string_equal(s, again);
    free(again);
    free(s);
}

static void test_text(void **state)
{
    fx *f = *state;
    int prepared;
    char *s = run(f->db, false, false, &prepared);
    assert_int_equal(prepared, JA_OK);
    char head[400];
    snprintf(head, sizeof head,
             "tournament 1: taylor-blackjack, 3 bots, 2 seats, round-robin, cyclic seating, "
             "2 rounds, seed 5: 12 matches\noptions: ");
    assert_memory_equal(s, head, strlen(head));
    char db_line[200];
    snprintf(db_line, sizeof db_line, "\ndatabase: %s\n", f->db);
    assert_non_null(strstr(s, db_line));
    assert_non_null(strstr(s, "\nstandings after 12 of 12 matches (faults: 0):\n"));
    assert_non_null(strstr(s, "fit elo: Bradley-Terry over this tournament's matches"));
    free(s);
    /* Again: complete, said before the standings. */
    s = run(f->db, false, false, &prepared);
    assert_int_equal(prepared, JA_OK);
    snprintf(db_line, sizeof db_line, "already complete in %s: nothing to play\n", f->db);
    assert_non_null(strstr(s, db_line));
    free(s);
}

static void test_resume_without_db(void **state)
{
    fx *f = *state;
    int prepared;
    char *s = run(f->db, false, true, &prepared);
    assert_int_equal(prepared, JA_ENOTFOUND); /* the user's: exit 2 */
    assert_null(s); /* nothing ran */
    free(s);
    assert_int_equal(access(f->db, F_OK), -1); /* nothing made */
}

int main(void)
{
    arena_test_bots_dir();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_without_db, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
