/* Unit tests of the PGN and JSON Lines readers and writers
 * (ladders/interop.h): the PGN grammar (tags, escapes, comments,
 * variations, NAGs, termination markers, unfinished games), the JSON Lines
 * fields (places or scores or both, options, seeds, sources), every
 * refusal with its file and line, and writers whose output reads back to
 * the same results. A stand-in resolver knows one game, "g", with options
 * a (default 1) and b (default x). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "interop.h"
#include "jackarena/ja_error.h"

/* Canonical "a=.. b=..": defaults a=1 b=x; only a and b exist; seats 2..6. */
static int resolve(void *ctx, const char *game, const char *const *opts, uint32_t n_opts,
                   uint32_t n_seats, char game_out[LADDER_NAME_MAX],
                   char options_out[LADDER_OPTIONS_MAX], char *err, size_t cap)
{
    (void)ctx;
    if (strcmp(game, "g") != 0) {
        snprintf(err, cap, "unknown game '%s'", game);
        return JA_EINVAL;
    }
    if (n_seats > 6) {
        snprintf(err, cap, "g is played by 2 to 6 seats, not %u", n_seats);
        return JA_EINVAL;
    }
    char a[32] = "1", b[32] = "x";
    for (uint32_t i = 0; i < n_opts; i++) {
        if (strncmp(opts[i], "a=", 2) == 0)
            snprintf(a, sizeof a, "%s", opts[i] + 2);
        else if (strncmp(opts[i], "b=", 2) == 0)
            snprintf(b, sizeof b, "%s", opts[i] + 2);
        else {
            snprintf(err, cap, "unknown option '%s' for g", opts[i]);
            return JA_EINVAL;
        }
    }
    snprintf(game_out, LADDER_NAME_MAX, "g");
    snprintf(options_out, LADDER_OPTIONS_MAX, "a=%s b=%s", a, b);
    return JA_OK;
}

static const ladder_reader_opts RO = {NULL, resolve, NULL};
static const ladder_reader_opts RO_G = {"g", resolve, NULL};

static ladder_import_set *parse_ok(const char *text, const ladder_reader_opts *o)
{
    ladder_import_set *s = NULL;
    char err[512];
    int rc = ladder_import_parse("t.in", NULL, text, strlen(text), o, &s, err, sizeof err);
    if (rc != JA_OK)
        fail_msg("parse failed (%d): %s", rc, err);
    return s;
}

static void parse_fails(const char *text, const ladder_reader_opts *o, int want_rc,
                        const char *want_err)
{
    ladder_import_set *s = NULL;
    char err[512];
    int rc = ladder_import_parse("t.in", NULL, text, strlen(text), o, &s, err, sizeof err);
    if (rc != want_rc || strstr(err, want_err) == NULL || strchr(err, '\n') != NULL)
        fail_msg("rc %d (want %d), message '%s' (want '%s')", rc, want_rc, err, want_err);
    assert_null(s);
}

static const ladder_import_seat *seat(const ladder_import *imp, uint32_t m, uint32_t s)
{
    return &imp->seats[imp->matches[m].first_seat + s];
}

static void test_pgn_basic(void **state)
{
    (void)state;
    const char *text =
        "% an escape line\n"
        "[Event \"x\"]\n[White \"Alpha \\\"A\\\"\"]\n[Black \"Beta\"]\n[Result \"1-0\"]\n"
        "\n1. e4 {a comment\nover two lines} e5 (1... c5 2. Nf3) 2. Nf3 $1 ; rest of line\n1-0\n"
        "\n[White \"Beta\"][Black \"Alpha \\\"A\\\"\"][Result \"1/2-1/2\"]\n1/2-1/2\n"
        "[White \"Gamma\"]\n[Black \"Beta\"]\n[Result \"0-1\"]\n0-1\n"
        "[White \"Gamma\"]\n[Black \"Alpha \\\"A\\\"\"]\n[Result \"*\"]\n*\n";
    ladder_import_set *s = parse_ok(text, &RO_G);
    const ladder_import *imp = ladder_import_set_get(s);
    assert_string_equal(imp->format, "pgn");
    assert_int_equal(imp->n_matches, 3);
    assert_int_equal(imp->skipped, 1);
    assert_int_equal(imp->n_bots, 3);
    assert_int_equal(imp->n_ladders, 1);
    assert_string_equal(imp->ladders[0].game, "g");
    assert_int_equal(imp->ladders[0].n_seats, 2);
    assert_string_equal(imp->ladders[0].options, "a=1 b=x");
    assert_string_equal(imp->bots[0].name, "Alpha \"A\"");
    assert_string_equal(imp->bots[0].version, "");
    assert_null(imp->bots[0].sha256);
    assert_string_equal(imp->bots[0].kind, "import");
    /* 1-0: places 1, 2 and scores 1, 0. */
    assert_int_equal(seat(imp, 0, 0)->place, 1);
    assert_int_equal(seat(imp, 0, 1)->place, 2);
    assert_int_equal(seat(imp, 0, 0)->score, JA_SCORE_UNIT);
    assert_int_equal(seat(imp, 0, 1)->score, 0);
    /* A draw: both first, half a point each. */
    assert_int_equal(seat(imp, 1, 0)->place, 1);
    assert_int_equal(seat(imp, 1, 1)->place, 1);
    assert_int_equal(seat(imp, 1, 0)->score, JA_SCORE_UNIT / 2);
    assert_int_equal(seat(imp, 1, 0)->bot, 1); /* Beta */
    /* 0-1. */
    assert_int_equal(seat(imp, 2, 0)->place, 2);
    assert_int_equal(seat(imp, 2, 1)->place, 1);
    assert_int_equal(imp->matches[0].line, 2);
    assert_int_equal(imp->matches[1].line, 11);
    assert_false(imp->matches[0].has_seed);
    assert_int_equal(imp->matches[0].turns, -1);
    assert_int_equal(strlen(imp->sha256), 64);
    ladder_import_set_free(&s);
    assert_null(s);
}

static void test_pgn_tags(void **state)
{
    (void)state;
    /* Game, Options and Seed tags; without --game the Game tag decides. */
    const char *text = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[Game \"g\"]\n"
                       "[Options \"b=y\"]\n[Seed \"18446744073709551615\"]\n\n1-0\n";
    ladder_import_set *s = parse_ok(text, &RO);
    const ladder_import *imp = ladder_import_set_get(s);
    assert_string_equal(imp->ladders[0].options, "a=1 b=y");
    assert_true(imp->matches[0].has_seed);
    assert_true(imp->matches[0].seed == UINT64_MAX);
    ladder_import_set_free(&s);
    /* A UTF-8 byte order mark is skipped. */
    s = parse_ok("\xef\xbb\xbf[White \"A\"]\n[Black \"B\"]\n1-0\n", &RO_G);
    assert_int_equal(ladder_import_set_get(s)->matches[0].line, 1);
    ladder_import_set_free(&s);
    /* The Result tag is optional when the marker is there. */
    s = parse_ok("[White \"A\"] [Black \"B\"]\n0-1\n", &RO_G);
    assert_int_equal(ladder_import_set_get(s)->n_matches, 1);
    ladder_import_set_free(&s);
}

static void test_pgn_errors(void **state)
{
    (void)state;
    parse_fails("[White \"A\"]\n[Result \"1-0\"]\n1-0\n", &RO_G, JA_EFORMAT,
                "t.in:1: the game has no Black tag");
    parse_fails("[White \"A\"]\n[Black \"B\n1-0\n", &RO_G, JA_EFORMAT,
                "t.in:2: tag Black: the string is not closed on its line");
    parse_fails("[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n0-1\n", &RO_G, JA_EFORMAT,
                "t.in:5: the Result tag (1-0) and the result token (0-1) differ");
    parse_fails("[White \"A\"]\n[Black \"B\"]\n1. e4 e5\n", &RO_G, JA_EFORMAT,
                "has no result token");
    parse_fails("[White \"A\"]\n[Black \"B\"]\n1. e4\n[White \"C\"]\n", &RO_G, JA_EFORMAT,
                "t.in:4: a tag pair inside the moves");
    parse_fails("[White \"A\"]\n[Black \"B\"]\n[Result \"2-0\"]\n", &RO_G, JA_EFORMAT,
                "t.in:3: tag Result: '2-0' is not");
    parse_fails("[White \"A\"]\n[Black \"A\"]\n1-0\n", &RO_G, JA_EFORMAT,
                "t.in:1: 'A' plays against itself");
    parse_fails("[White \"A\"]\n[Black \"B\"]\n1-0\n", &RO, JA_EINVAL,
                "t.in:1: the result names no game (give --game GAME)");
    parse_fails("[White \"A\"]\n[Black \"B\"]\n[Game \"h\"]\n1-0\n", &RO_G, JA_EINVAL,
                "t.in:1: the result is of game 'h', not 'g' as --game says");
    parse_fails("[White \"A\"]\n[Black \"B\"]\n[Options \"c=1\"]\n1-0\n", &RO_G, JA_EINVAL,
                "t.in:1: unknown option 'c=1' for g");
    parse_fails("[White \"A\"]\n[Black \"B\"]\n{ never closed\n", &RO_G, JA_EFORMAT,
                "t.in:3: comment '{' is never closed");
    parse_fails("[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n*\n", &RO_G, JA_EFORMAT,
                "no results to import (1 unfinished games skipped)");
    parse_fails("  \n\n", &RO_G, JA_EFORMAT, "t.in: the file is empty");
    parse_fails("hello\n", &RO_G, JA_EFORMAT, "t.in:1: neither PGN");
    parse_fails("[White \"\\xff\"]\n[Black \"B\"]\n1-0\n", &RO_G, JA_EFORMAT,
                "unknown escape");
    parse_fails("[White \"\xff\"]\n[Black \"B\"]\n1-0\n", &RO_G, JA_EFORMAT, "not UTF-8");
}

static void test_jsonl(void **state)
{
    (void)state;
    const char *text =
        "{\"game\":\"g\",\"options\":{\"a\":\"2\"},\"seed\":\"7\",\"tournament\":3,\"turns\":12,"
        "\"seats\":[{\"bot\":\"A\",\"version\":\"1\",\"score\":3,\"place\":1},"
        "{\"bot\":\"B\",\"score\":1,\"place\":2},{\"bot\":\"C\",\"score\":1,\"place\":2}],"
        "\"extra\":[1,2]}\n"
        "\n"
        "{\"game\":\"g\",\"options\":{\"a\":2},\"seed\":\"7\",\"tournament\":3,"
        "\"seats\":[{\"bot\":\"B\",\"score\":0.5},{\"bot\":\"A\",\"score\":2},{\"bot\":\"C\","
        "\"score\":0.5}]}\r\n"
        "{\"seats\":[{\"bot\":\"A\",\"place\":2},{\"bot\":\"B\",\"place\":1}]}\n";
    ladder_import_set *s = parse_ok(text, &RO_G);
    const ladder_import *imp = ladder_import_set_get(s);
    assert_string_equal(imp->format, "jsonl");
    assert_int_equal(imp->n_matches, 3);
    assert_int_equal(imp->n_ladders, 2); /* 3 seats a=2, and 2 seats default */
    assert_string_equal(imp->ladders[0].options, "a=2 b=x");
    assert_int_equal(imp->ladders[0].n_seats, 3);
    assert_string_equal(imp->ladders[1].options, "a=1 b=x");
    assert_int_equal(imp->n_bots, 4); /* A version 1 and A without a version differ */
    assert_string_equal(imp->bots[0].version, "1");
    assert_int_equal(imp->matches[0].line, 1);
    assert_int_equal(imp->matches[1].line, 3);
    assert_int_equal(imp->matches[2].line, 4);
    assert_true(imp->matches[0].has_seed);
    assert_int_equal(imp->matches[0].seed, 7);
    assert_int_equal(imp->matches[0].turns, 12);
    assert_int_equal(imp->matches[1].turns, -1);
    assert_true(imp->matches[0].source != 0);
    assert_int_equal(imp->matches[0].source, imp->matches[1].source);
    assert_int_equal(imp->matches[2].source, 0);
    assert_int_equal(seat(imp, 0, 0)->score, 3 * JA_SCORE_UNIT);
    /* Places from scores: 0.5, 2, 0.5 rank as 2, 1, 2. */
    assert_int_equal(seat(imp, 1, 0)->place, 2);
    assert_int_equal(seat(imp, 1, 1)->place, 1);
    assert_int_equal(seat(imp, 1, 2)->place, 2);
    assert_int_equal(seat(imp, 1, 0)->score, JA_SCORE_UNIT / 2);
    /* Scores from places: the pairwise share, 0 and 1 for two seats. */
    assert_int_equal(seat(imp, 2, 0)->score, 0);
    assert_int_equal(seat(imp, 2, 1)->score, JA_SCORE_UNIT);
    ladder_import_set_free(&s);

    /* Scores from places with three seats 1, 2, 2: 1, 1/4, 1/4. */
    s = parse_ok("{\"game\":\"g\",\"seats\":[{\"bot\":\"A\",\"place\":1},{\"bot\":\"B\","
                 "\"place\":2},{\"bot\":\"C\",\"place\":2}]}\n",
                 &RO);
    imp = ladder_import_set_get(s);
    assert_int_equal(seat(imp, 0, 0)->score, JA_SCORE_UNIT);
    assert_int_equal(seat(imp, 0, 1)->score, JA_SCORE_UNIT / 4);
    ladder_import_set_free(&s);
}

/* Sources ("tournament") keep their name and type, the number 7 and the
 * string "7" are two sources, and "match" is a match's number when it is
 * an integer from 0 up (anything else: none, -1). */
static void test_jsonl_sources(void **state)
{
    (void)state;
#define SEATS "\"seats\":[{\"bot\":\"A\",\"place\":1},{\"bot\":\"B\",\"place\":2}]}\n"
    const char *text = "{\"game\":\"g\",\"tournament\":7,\"match\":5," SEATS
                       "{\"game\":\"g\",\"tournament\":\"7\",\"match\":-1," SEATS
                       "{\"game\":\"g\",\"tournament\":7,\"match\":\"6\"," SEATS
                       "{\"game\":\"g\",\"tournament\":\"spring cup\",\"match\":2.5," SEATS
                       "{\"game\":\"g\",\"tournament\":-3,\"match\":0," SEATS
                       "{\"game\":\"g\"," SEATS;
    ladder_import_set *s = parse_ok(text, &RO);
    const ladder_import *imp = ladder_import_set_get(s);
    assert_int_equal(imp->n_matches, 6);
    assert_int_equal(imp->n_sources, 4);
    static const struct {
        uint32_t source;
        int64_t number;
    } want[6] = {{1, 5}, {2, -1}, {1, -1}, {3, -1}, {4, 0}, {0, -1}};
    for (int k = 0; k < 6; k++) {
        assert_int_equal(imp->matches[k].source, want[k].source);
        assert_int_equal(imp->matches[k].number, want[k].number);
    }
    assert_string_equal(imp->sources[0].label, "7");
    assert_true(imp->sources[0].integer);
    assert_string_equal(imp->sources[1].label, "7");
    assert_false(imp->sources[1].integer);
    assert_string_equal(imp->sources[2].label, "spring cup");
    assert_false(imp->sources[2].integer);
    assert_string_equal(imp->sources[3].label, "-3");
    assert_true(imp->sources[3].integer);
    ladder_import_set_free(&s);

    char text2[256];
    snprintf(text2, sizeof text2, "{\"game\":\"g\",\"tournament\":\"%064d\"," SEATS, 0);
    parse_fails(text2, &RO, JA_EFORMAT, "t.in:1: \"tournament\" is longer than 63 bytes");
    parse_fails("{\"game\":\"g\",\"tournament\":[1]," SEATS, &RO, JA_EFORMAT,
                "t.in:1: \"tournament\" must be a string");
#undef SEATS
}

static void test_jsonl_errors(void **state)
{
    (void)state;
    const char *ok =
        "{\"game\":\"g\",\"seats\":[{\"bot\":\"A\",\"place\":1},{\"bot\":\"B\",\"place\":2}]}\n";
    char text[1024];
    snprintf(text, sizeof text, "%s%s{\"game\":\"g\",\"seats\":[{\"bot\":\"A\"", ok, ok);
    parse_fails(text, &RO, JA_EFORMAT, "t.in:3: not JSON:");
    parse_fails("{\"game\":\"g\"}\n", &RO, JA_EFORMAT,
                "t.in:1: \"seats\" must be an array of 2 to");
    parse_fails("[1,2]\n", &RO, JA_EFORMAT, "t.in:1:");
    parse_fails(
        "{\"game\":\"g\",\"seats\":[{\"bot\":\"A\",\"place\":1},{\"bot\":\"B\",\"place\":3}]}\n",
        &RO, JA_EFORMAT, "t.in:1: places must be a competition ranking");
    parse_fails("{\"game\":\"g\",\"seats\":[{\"bot\":\"A\",\"place\":1},{\"bot\":\"B\"}]}\n", &RO,
                JA_EFORMAT, "some seats have a place and some do not");
    parse_fails("{\"game\":\"g\",\"seats\":[{\"bot\":\"A\"},{\"bot\":\"B\"}]}\n", &RO, JA_EFORMAT,
                "neither places nor scores");
    parse_fails(
        "{\"game\":\"g\",\"seats\":[{\"bot\":\"A\",\"place\":1},{\"bot\":\"A\",\"place\":2}]}\n",
        &RO, JA_EFORMAT, "at least two different bots");
    parse_fails("{\"game\":\"g\",\"seed\":7,\"seats\":[{\"bot\":\"A\",\"place\":1},{\"bot\":\"B\","
                "\"place\":2}]}\n",
                &RO, JA_EFORMAT, "\"seed\" must be a decimal string");
    parse_fails("{\"game\":\"g\",\"game\":\"g\",\"seats\":[]}\n", &RO, JA_EFORMAT, "duplicate");
    parse_fails(
        "{\"game\":\"zz\",\"seats\":[{\"bot\":\"A\",\"place\":1},{\"bot\":\"B\",\"place\":2}]}\n",
        &RO, JA_EINVAL, "t.in:1: unknown game 'zz'");
    parse_fails("{\"game\":\"g\",\"seats\":[{\"bot\":\"A\",\"place\":1,\"sha256\":\"xyz\"},"
                "{\"bot\":\"B\",\"place\":2}]}\n",
                &RO, JA_EFORMAT, "sha256 of seat 0");
    parse_fails("{\"seats\":[{\"bot\":\"A\",\"place\":1},{\"bot\":\"B\",\"place\":2}]}\n", &RO,
                JA_EINVAL, "names no game");
}

/* What the writers print reads back to the same results. */
static void test_writers_round_trip(void **state)
{
    (void)state;
    ladder_export_match m;
    memset(&m, 0, sizeof m);
    m.game = "g";
    m.options = "a=3 b=x";
    m.tournament = 4;
    m.number = 9;
    m.has_seed = true;
    m.seed = 123456789012345ull;
    m.turns = 40;
    m.digest = "";
    m.finished = "2025-03-04T05:06:07Z";
    m.n_seats = 3;
    m.seat[0] = (ladder_export_seat){"A \"q\"", "1.0", "", 2 * JA_SCORE_UNIT, 1};
    m.seat[1] = (ladder_export_seat){"B", "", NULL, JA_SCORE_UNIT / 2, 2};
    m.seat[2] = (ladder_export_seat){"C", "", NULL, JA_SCORE_UNIT / 2, 2};

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(ladder_pgn_write(f, &m), JA_OK);
    fclose(f);
    assert_non_null(strstr(buf, "[Event \"Jack Arena g ladder, 3 seats\"]\n[Site \"Jack Arena\"]\n"
                                "[Date \"2025.03.04\"]\n[Round \"4.10\"]\n[White \"A \\\"q\\\"\"]\n"
                                "[Black \"B\"]\n[Result \"1-0\"]\n"));
    assert_non_null(strstr(buf, "[White \"B\"]\n[Black \"C\"]\n[Result \"1/2-1/2\"]\n"));
    assert_non_null(strstr(buf, "[Seed \"123456789012345\"]\n\n1-0\n\n"));
    ladder_import_set *s = NULL;
    char err[512];
    assert_int_equal(ladder_import_parse("x.pgn", NULL, buf, len, &RO, &s, err, sizeof err),
                     JA_OK);
    const ladder_import *imp = ladder_import_set_get(s);
    assert_int_equal(imp->n_matches, 3); /* the 3 pairs */
    assert_string_equal(imp->ladders[0].options, "a=3 b=x");
    assert_int_equal(imp->ladders[0].n_seats, 2);
    assert_true(imp->matches[2].has_seed && imp->matches[2].seed == m.seed);
    assert_int_equal(seat(imp, 2, 0)->place, 1); /* B-C drew */
    assert_int_equal(seat(imp, 2, 1)->place, 1);
    ladder_import_set_free(&s);
    free(buf);

    buf = NULL;
    f = open_memstream(&buf, &len);
    assert_int_equal(ladder_jsonl_write(f, &m), JA_OK);
    fclose(f);
    assert_string_equal(buf,
                        "{\"game\":\"g\",\"options\":{\"a\":\"3\",\"b\":\"x\"},\"tournament\":4,"
                        "\"match\":9,\"seed\":\"123456789012345\",\"seats\":[{\"bot\":\"A "
                        "\\\"q\\\"\",\"version\":\"1.0\",\"score\":2,\"place\":1},{\"bot\":"
                        "\"B\",\"version\":\"\",\"score\":0.5,\"place\":2},{\"bot\":\"C\","
                        "\"version\":\"\",\"score\":0.5,\"place\":2}],\"turns\":40}\n");
    assert_int_equal(ladder_import_parse("x.jsonl", NULL, buf, len, &RO, &s, err, sizeof err),
                     JA_OK);
    imp = ladder_import_set_get(s);
    assert_int_equal(imp->n_matches, 1);
    assert_int_equal(imp->matches[0].n_seats, 3);
    assert_int_equal(imp->matches[0].turns, 40);
    assert_int_equal(seat(imp, 0, 1)->score, JA_SCORE_UNIT / 2);
    assert_int_equal(seat(imp, 0, 2)->place, 2);
    assert_string_equal(imp->bots[0].name, "A \"q\"");
    assert_int_equal(imp->matches[0].number, 9);
    assert_int_equal(imp->n_sources, 1);
    assert_string_equal(imp->sources[0].label, "4");
    assert_true(imp->sources[0].integer);
    ladder_import_set_free(&s);
    free(buf);

    /* A source named by a string is written as that string. */
    m.tournament_text = "spring cup";
    buf = NULL;
    f = open_memstream(&buf, &len);
    assert_int_equal(ladder_jsonl_write(f, &m), JA_OK);
    fclose(f);
    assert_non_null(strstr(buf, ",\"tournament\":\"spring cup\",\"match\":9,"));
    assert_int_equal(ladder_import_parse("x.jsonl", NULL, buf, len, &RO, &s, err, sizeof err),
                     JA_OK);
    imp = ladder_import_set_get(s);
    assert_string_equal(imp->sources[0].label, "spring cup");
    assert_false(imp->sources[0].integer);
    ladder_import_set_free(&s);
    free(buf);
    m.tournament_text = NULL;

    /* Not UTF-8: JSON cannot carry it. */
    m.seat[1].bot = "\xff";
    f = open_memstream(&buf, &len);
    assert_int_equal(ladder_jsonl_write(f, &m), JA_EINVAL);
    fclose(f);
    free(buf);
}

static void test_read_file(void **state)
{
    (void)state;
    ladder_import_set *s = NULL;
    char err[512];
    assert_int_equal(ladder_import_read("/nonexistent/x.pgn", &RO_G, &s, err, sizeof err), JA_EIO);
    assert_non_null(strstr(err, "cannot read '/nonexistent/x.pgn': No such file"));
    char path[] = "/tmp/ja-interop-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "[White \"A\"]\n[Black \"B\"]\n1-0\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_int_equal(ladder_import_read(path, &RO_G, &s, err, sizeof err), JA_OK);
    assert_string_equal(ladder_import_set_get(s)->file, path);
    ladder_import_set_free(&s);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pgn_basic),      cmocka_unit_test(test_pgn_tags),
        cmocka_unit_test(test_pgn_errors),     cmocka_unit_test(test_jsonl),
        cmocka_unit_test(test_jsonl_sources),
        cmocka_unit_test(test_jsonl_errors),   cmocka_unit_test(test_writers_round_trip),
        cmocka_unit_test(test_read_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
