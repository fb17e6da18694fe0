/* Unit tests of the generic option helpers (ja_rules.h, sdk/src/options.c).
 *
 * Two parts: a made-up game table of our own, so the helpers are tested on
 * option specs we control (every kind, a computed default, no options at
 * all), and the real Taylor Blackjack table through ja_game_find, with the
 * keys, values and defaults of rules/taylor-blackjack.md section 3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rules.h"

/* ---- A game of our own ---------------------------------------------------- */

static const ja_option_spec FAKE_OPTS[] = {
    {"mode", JA_OPT_ENUM, "a|bb|ccc", 0, 0, "bb", "an enum"},
    {"level", JA_OPT_INT, NULL, -5, 5, "2", "a plain integer"},
    {"rounds", JA_OPT_INT, NULL, 1, 1000, "3*N", "a default computed by the game"},
    {NULL, JA_OPT_ENUM, NULL, 0, 0, NULL, NULL},
};

/* Fills rounds = 3 * n_seats when not given; refuses mode=a with level > 0. */
static int fake_resolve(ja_options *o, uint32_t n_seats, char *err, size_t cap)
{
    if (!o->given[2])
        o->value[2] = (int32_t)(3 * n_seats);
    if (o->value[0] == 0 && o->value[1] > 0) {
        snprintf(err, cap, "mode=a needs level <= 0");
        return JA_EINVAL;
    }
    return JA_OK;
}

static const ja_game_rules FAKE = {
    .struct_size = sizeof(ja_game_rules),
    .name = "fake-game",
    .title = "Fake",
    .min_seats = 2,
    .max_seats = 6,
    .options = FAKE_OPTS,
    .resolve_options = fake_resolve,
};

static const ja_option_spec NO_OPTS[] = {{NULL, JA_OPT_ENUM, NULL, 0, 0, NULL, NULL}};
static const ja_game_rules BARE = {
    .struct_size = sizeof(ja_game_rules),
    .name = "bare-game",
    .min_seats = 1,
    .max_seats = 4,
    .options = NO_OPTS,
};

static void test_init_counts(void **state)
{
    (void)state;
    ja_options o;
    memset(&o, 0x5A, sizeof o);
    ja_options_init(&FAKE, &o);
    assert_int_equal(o.n, 3);
    for (int i = 0; i < JA_MAX_OPTIONS; i++) {
        assert_int_equal(o.value[i], 0);
        assert_int_equal(o.given[i], 0);
    }
    ja_options_init(&BARE, &o);
    assert_int_equal(o.n, 0);
}

static void test_index(void **state)
{
    (void)state;
    assert_int_equal(ja_options_index(&FAKE, "mode"), 0);
    assert_int_equal(ja_options_index(&FAKE, "level"), 1);
    assert_int_equal(ja_options_index(&FAKE, "rounds"), 2);
    assert_int_equal(ja_options_index(&FAKE, "Mode"), -1);
    assert_int_equal(ja_options_index(&FAKE, "mod"), -1);
    assert_int_equal(ja_options_index(&FAKE, ""), -1);
    assert_int_equal(ja_options_index(&BARE, "mode"), -1);
}

static void test_set_enum(void **state)
{
    (void)state;
    ja_options o;
    char err[256] = "";
    ja_options_init(&FAKE, &o);
    assert_int_equal(ja_options_set(&FAKE, &o, "mode=ccc", err, sizeof err), JA_OK);
    assert_int_equal(o.value[0], 2);
    assert_int_equal(o.given[0], 1);
    assert_int_equal(ja_options_set(&FAKE, &o, "mode=a", err, sizeof err), JA_OK);
    assert_int_equal(o.value[0], 0);

    /* Prefixes, extensions and case variants of a word are not that word. */
    static const char *const bad[] = {"mode=b", "mode=bbb", "mode=", "mode=A", "mode=a|bb",
                                      "mode= a", "mode=cc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(ja_options_set(&FAKE, &o, bad[i], err, sizeof err), JA_EINVAL);
        /* The message names the option and lists every allowed value. */
        assert_non_null(strstr(err, "mode"));
        assert_non_null(strstr(err, "a, bb, ccc"));
    }
    assert_int_equal(o.value[0], 0); /* unchanged by the failures */
}

static void test_set_int_bounds(void **state)
{
    (void)state;
    ja_options o;
    char err[256] = "";
    ja_options_init(&FAKE, &o);
    assert_int_equal(ja_options_set(&FAKE, &o, "level=-5", err, sizeof err), JA_OK);
    assert_int_equal(o.value[1], -5);
    assert_int_equal(ja_options_set(&FAKE, &o, "level=5", err, sizeof err), JA_OK);
    assert_int_equal(o.value[1], 5);
    assert_int_equal(ja_options_set(&FAKE, &o, "level=0", err, sizeof err), JA_OK);
    assert_int_equal(o.value[1], 0);
    assert_int_equal(o.given[1], 1);

    static const char *const bad[] = {"level=6", "level=-6", "level=", "level=x", "level=3x",
                                      "level=1.5", "level=99999999999999999999",
                                      "level=-99999999999999999999", "level=4294967298"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        if (ja_options_set(&FAKE, &o, bad[i], err, sizeof err) != JA_EINVAL)
            fail_msg("'%s' accepted", bad[i]);
        assert_non_null(strstr(err, "level"));
        assert_non_null(strstr(err, "from -5 to 5"));
    }
    assert_int_equal(o.value[1], 0);
}

static void test_set_malformed(void **state)
{
    (void)state;
    ja_options o;
    char err[256];
    ja_options_init(&FAKE, &o);
    err[0] = '\0';
    assert_int_equal(ja_options_set(&FAKE, &o, "mode", err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "KEY=VALUE"));
    err[0] = '\0';
    assert_int_equal(ja_options_set(&FAKE, &o, "=a", err, sizeof err), JA_EINVAL);
    assert_true(err[0] != '\0');
    char longkey[200];
    memset(longkey, 'k', sizeof longkey);
    strcpy(longkey + 150, "=1");
    err[0] = '\0';
    assert_int_equal(ja_options_set(&FAKE, &o, longkey, err, sizeof err), JA_EINVAL);
    assert_true(err[0] != '\0');
    /* A message longer than the caller's buffer is cut, never overflowed. */
    char tiny[8];
    memset(tiny, 'Z', sizeof tiny);
    assert_int_equal(ja_options_set(&FAKE, &o, "zzz=1", tiny, sizeof tiny), JA_EINVAL);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
}

static void test_unknown_key_lists_allowed(void **state)
{
    (void)state;
    ja_options o;
    char err[256] = "";
    ja_options_init(&FAKE, &o);
    assert_int_equal(ja_options_set(&FAKE, &o, "speed=3", err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "'speed'"));
    assert_non_null(strstr(err, "fake-game"));
    assert_non_null(strstr(err, "mode, level, rounds"));

    ja_options_init(&BARE, &o);
    err[0] = '\0';
    assert_int_equal(ja_options_set(&BARE, &o, "speed=3", err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "has no options"));
}

static void test_resolve_defaults(void **state)
{
    (void)state;
    ja_options o;
    char err[256] = "";
    ja_options_init(&FAKE, &o);
    assert_int_equal(ja_options_resolve(&FAKE, &o, 4, err, sizeof err), JA_OK);
    assert_int_equal(o.value[0], 1);  /* "bb" */
    assert_int_equal(o.value[1], 2);
    assert_int_equal(o.value[2], 12); /* 3*N by the game */

    /* Given values survive resolve. */
    ja_options_init(&FAKE, &o);
    assert_int_equal(ja_options_set(&FAKE, &o, "rounds=7", err, sizeof err), JA_OK);
    assert_int_equal(ja_options_set(&FAKE, &o, "level=-1", err, sizeof err), JA_OK);
    assert_int_equal(ja_options_resolve(&FAKE, &o, 2, err, sizeof err), JA_OK);
    assert_int_equal(o.value[0], 1);
    assert_int_equal(o.value[1], -1);
    assert_int_equal(o.value[2], 7);

    /* The game checks combinations. */
    ja_options_init(&FAKE, &o);
    assert_int_equal(ja_options_set(&FAKE, &o, "mode=a", err, sizeof err), JA_OK);
    err[0] = '\0';
    assert_int_equal(ja_options_resolve(&FAKE, &o, 2, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "mode=a needs level <= 0");

    /* A game without resolve_options and without options resolves. */
    ja_options_init(&BARE, &o);
    assert_int_equal(ja_options_resolve(&BARE, &o, 1, err, sizeof err), JA_OK);
}

static void test_resolve_seat_range(void **state)
{
    (void)state;
    ja_options o;
    char err[256] = "";
    ja_options_init(&FAKE, &o);
    assert_int_equal(ja_options_resolve(&FAKE, &o, 1, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "fake-game is played by 2 to 6 seats, not 1");
    assert_int_equal(ja_options_resolve(&FAKE, &o, 7, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "fake-game is played by 2 to 6 seats, not 7");
    assert_int_equal(ja_options_resolve(&FAKE, &o, 0, err, sizeof err), JA_EINVAL);
    assert_int_equal(ja_options_resolve(&FAKE, &o, 2, err, sizeof err), JA_OK);
    assert_int_equal(ja_options_resolve(&FAKE, &o, 6, err, sizeof err), JA_OK);
}

static void test_value_str_and_format(void **state)
{
    (void)state;
    ja_options o;
    char err[256] = "", buf[256];
    ja_options_init(&FAKE, &o);
    /* Given out of spec order; the text is in spec order. */
    assert_int_equal(ja_options_set(&FAKE, &o, "rounds=40", err, sizeof err), JA_OK);
    assert_int_equal(ja_options_set(&FAKE, &o, "mode=ccc", err, sizeof err), JA_OK);
    assert_int_equal(ja_options_resolve(&FAKE, &o, 3, err, sizeof err), JA_OK);
    assert_int_equal(ja_options_value_str(&FAKE, &o, 0, buf, sizeof buf), 3);
    assert_string_equal(buf, "ccc");
    assert_int_equal(ja_options_value_str(&FAKE, &o, 1, buf, sizeof buf), 1);
    assert_string_equal(buf, "2");
    const char *want = "mode=ccc level=2 rounds=40";
    int n = (int)strlen(want);
    assert_int_equal(ja_options_format(&FAKE, &o, buf, sizeof buf), n);
    assert_string_equal(buf, want);
    /* Exactly enough room, then one byte short. */
    assert_int_equal(ja_options_format(&FAKE, &o, buf, (size_t)n + 1), n);
    assert_string_equal(buf, want);
    assert_int_equal(ja_options_format(&FAKE, &o, buf, (size_t)n), JA_ERANGE);
    assert_int_equal(ja_options_format(&FAKE, &o, buf, 1), JA_ERANGE);
    /* Each value as ja_options_value_str writes it: a negative integer, the
     * extremes, an enum index with no word ("?"). */
    const int32_t ints[] = {-5, 0, INT32_MIN, INT32_MAX};
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        o.value[0] = (int32_t)k * 2; /* "a", "ccc", then past the words */
        o.value[1] = ints[k];
        char v0[32], v1[32], v2[32], expect[128];
        ja_options_value_str(&FAKE, &o, 0, v0, sizeof v0);
        ja_options_value_str(&FAKE, &o, 1, v1, sizeof v1);
        ja_options_value_str(&FAKE, &o, 2, v2, sizeof v2);
        snprintf(expect, sizeof expect, "mode=%s level=%s rounds=%s", v0, v1, v2);
        assert_int_equal(ja_options_format(&FAKE, &o, buf, sizeof buf), (int)strlen(expect));
        assert_string_equal(buf, expect);
    }
    assert_string_equal(buf, "mode=? level=2147483647 rounds=40");

    ja_options_init(&BARE, &o);
    assert_int_equal(ja_options_format(&BARE, &o, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
}

/* The canonical text parses back to the same options. */
static void format_round_trip(const ja_game_rules *g, const ja_options *o, uint32_t n_seats)
{
    char text[512], again[512], err[256] = "";
    int len = ja_options_format(g, o, text, sizeof text);
    assert_true(len >= 0);
    ja_options p;
    ja_options_init(g, &p);
    char copy[512];
    strcpy(copy, text);
    for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " "))
        if (ja_options_set(g, &p, tok, err, sizeof err) != JA_OK)
            fail_msg("%s: '%s' from '%s' does not parse: %s", g->name, tok, text, err);
    if (ja_options_resolve(g, &p, n_seats, err, sizeof err) != JA_OK)
        fail_msg("%s: '%s' does not resolve: %s", g->name, text, err);
    assert_int_equal(ja_options_format(g, &p, again, sizeof again), len);
    assert_string_equal(again, text);
    assert_memory_equal(p.value, o->value, sizeof p.value);
}

static void test_fake_round_trip(void **state)
{
    (void)state;
    ja_options o;
    char err[256] = "";
    ja_options_init(&FAKE, &o);
    assert_int_equal(ja_options_resolve(&FAKE, &o, 5, err, sizeof err), JA_OK);
    format_round_trip(&FAKE, &o, 5);
}

/* ---- Taylor Blackjack ------------------------------------------------------ */

static const ja_game_rules *taylor(void)
{
    const ja_game_rules *g = ja_game_find("taylor-blackjack");
    if (!g)
        fail_msg("ja_game_find(\"taylor-blackjack\") returned NULL");
    return g;
}

static void test_find(void **state)
{
    (void)state;
    const ja_game_rules *g = taylor();
    assert_string_equal(g->name, "taylor-blackjack");
    assert_null(ja_game_find("taylor"));
    assert_null(ja_game_find("Taylor-Blackjack"));
    assert_null(ja_game_find(""));
    for (int i = 0; ja_games[i]; i++)
        assert_ptr_equal(ja_game_find(ja_games[i]->name), ja_games[i]);
}

static void test_taylor_keys(void **state)
{
    (void)state;
    const ja_game_rules *g = taylor();
    static const char *const keys[] = {"decks", "last_card", "rebuild", "turn_cap", "games"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (ja_options_index(g, keys[i]) < 0)
            fail_msg("taylor-blackjack has no option '%s'", keys[i]);
    int i = ja_options_index(g, "decks");
    assert_int_equal(g->options[i].kind, JA_OPT_ENUM);
    assert_string_equal(g->options[i].values, "auto|1|2");
    i = ja_options_index(g, "last_card");
    assert_int_equal(g->options[i].kind, JA_OPT_ENUM);
    assert_string_equal(g->options[i].values, "explicit|auto");
    i = ja_options_index(g, "rebuild");
    assert_int_equal(g->options[i].kind, JA_OPT_ENUM);
    assert_string_equal(g->options[i].values, "noshuffle|shuffle");
    assert_int_equal(g->options[ja_options_index(g, "turn_cap")].kind, JA_OPT_INT);
    i = ja_options_index(g, "games");
    assert_int_equal(g->options[i].kind, JA_OPT_INT);
    assert_int_equal(g->options[i].min, 1);
}

static void test_taylor_unknown_key(void **state)
{
    (void)state;
    const ja_game_rules *g = taylor();
    ja_options o;
    char err[512] = "";
    ja_options_init(g, &o);
    assert_int_equal(ja_options_set(g, &o, "jokers=on", err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "jokers"));
    assert_non_null(strstr(err, "taylor-blackjack"));
    for (int i = 0; g->options[i].name; i++)
        if (!strstr(err, g->options[i].name))
            fail_msg("message '%s' does not list '%s'", err, g->options[i].name);
}

static void test_taylor_bad_enum(void **state)
{
    (void)state;
    const ja_game_rules *g = taylor();
    ja_options o;
    char err[512] = "";
    ja_options_init(g, &o);
    assert_int_equal(ja_options_set(g, &o, "decks=3", err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "'3'"));
    assert_non_null(strstr(err, "auto, 1, 2"));
    assert_int_equal(ja_options_set(g, &o, "rebuild=Shuffle", err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "noshuffle, shuffle"));
    assert_int_equal(ja_options_set(g, &o, "last_card=yes", err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "explicit, auto"));
    assert_int_equal(ja_options_set(g, &o, "decks=2", err, sizeof err), JA_OK);
    assert_int_equal(ja_options_set(g, &o, "rebuild=shuffle", err, sizeof err), JA_OK);
    assert_int_equal(ja_options_set(g, &o, "last_card=auto", err, sizeof err), JA_OK);
}

static void test_taylor_int_bounds(void **state)
{
    (void)state;
    const ja_game_rules *g = taylor();
    static const char *const keys[] = {"turn_cap", "games"};
    for (size_t k = 0; k < 2; k++) {
        const ja_option_spec *sp = &g->options[ja_options_index(g, keys[k])];
        assert_true(sp->min >= 1);
        assert_true(sp->min <= sp->max);
        ja_options o;
        char kv[64], err[512] = "", bounds[64];
        ja_options_init(g, &o);
        snprintf(bounds, sizeof bounds, "from %d to %d", (int)sp->min, (int)sp->max);
        snprintf(kv, sizeof kv, "%s=%d", keys[k], (int)sp->min);
        assert_int_equal(ja_options_set(g, &o, kv, err, sizeof err), JA_OK);
        snprintf(kv, sizeof kv, "%s=%d", keys[k], (int)sp->max);
        assert_int_equal(ja_options_set(g, &o, kv, err, sizeof err), JA_OK);
        snprintf(kv, sizeof kv, "%s=%d", keys[k], (int)sp->min - 1);
        assert_int_equal(ja_options_set(g, &o, kv, err, sizeof err), JA_EINVAL);
        assert_non_null(strstr(err, bounds));
        snprintf(kv, sizeof kv, "%s=%lld", keys[k], (long long)sp->max + 1);
        assert_int_equal(ja_options_set(g, &o, kv, err, sizeof err), JA_EINVAL);
        assert_non_null(strstr(err, bounds));
        snprintf(kv, sizeof kv, "%s=ten", keys[k]);
        assert_int_equal(ja_options_set(g, &o, kv, err, sizeof err), JA_EINVAL);
    }
}

/* Section 3: turn_cap defaults to 200*N and games to 2*N; the enums to their
 * first word. */
static void test_taylor_resolve_defaults(void **state)
{
    (void)state;
    const ja_game_rules *g = taylor();
    int i_decks = ja_options_index(g, "decks"), i_last = ja_options_index(g, "last_card");
    int i_reb = ja_options_index(g, "rebuild"), i_cap = ja_options_index(g, "turn_cap");
    int i_games = ja_options_index(g, "games");
    for (uint32_t n = g->min_seats; n <= g->max_seats; n++) {
        ja_options o;
        char err[512] = "", buf[64];
        ja_options_init(g, &o);
        if (ja_options_resolve(g, &o, n, err, sizeof err) != JA_OK)
            fail_msg("defaults do not resolve for %u seats: %s", n, err);
        assert_int_equal(o.value[i_cap], 200 * (int)n);
        assert_int_equal(o.value[i_games], 2 * (int)n);
        assert_int_equal(o.value[i_last], 0);
        assert_int_equal(o.value[i_reb], 0);
        /* decks=auto may stay "auto" or become the concrete count; either
         * way it must mean 1 deck up to 5 seats and 2 from 6. */
        ja_options_value_str(g, &o, i_decks, buf, sizeof buf);
        if (strcmp(buf, "auto") != 0)
            assert_string_equal(buf, n <= 5 ? "1" : "2");
        format_round_trip(g, &o, n);
    }
}

static void test_taylor_format(void **state)
{
    (void)state;
    const ja_game_rules *g = taylor();
    ja_options o;
    char err[512] = "", buf[512], want[512];
    ja_options_init(g, &o);
    assert_int_equal(ja_options_set(g, &o, "games=3", err, sizeof err), JA_OK);
    assert_int_equal(ja_options_set(g, &o, "rebuild=shuffle", err, sizeof err), JA_OK);
    assert_int_equal(ja_options_set(g, &o, "decks=2", err, sizeof err), JA_OK);
    assert_int_equal(ja_options_resolve(g, &o, 4, err, sizeof err), JA_OK);
    int len = ja_options_format(g, &o, buf, sizeof buf);
    assert_true(len > 0);
    /* Spec order, one space between entries, every option present. */
    size_t used = 0;
    for (int i = 0; g->options[i].name; i++) {
        char v[64];
        ja_options_value_str(g, &o, i, v, sizeof v);
        used += (size_t)snprintf(want + used, sizeof want - used, "%s%s=%s", i ? " " : "",
                                 g->options[i].name, v);
    }
    assert_string_equal(buf, want);
    assert_non_null(strstr(buf, "decks=2"));
    assert_non_null(strstr(buf, "rebuild=shuffle"));
    assert_non_null(strstr(buf, "games=3"));
    assert_non_null(strstr(buf, "turn_cap=800"));
    assert_non_null(strstr(buf, "last_card=explicit"));
    assert_int_equal(ja_options_format(g, &o, buf, (size_t)len), JA_ERANGE);
    format_round_trip(g, &o, 4);
}

static void test_taylor_seat_range(void **state)
{
    (void)state;
    const ja_game_rules *g = taylor();
    assert_int_equal(g->min_seats, 2);
    assert_int_equal(g->max_seats, 12);
    ja_options o;
    char err[512] = "";
    ja_options_init(g, &o);
    assert_int_equal(ja_options_resolve(g, &o, 1, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "taylor-blackjack is played by 2 to 12 seats, not 1");
    assert_int_equal(ja_options_resolve(g, &o, 13, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "taylor-blackjack is played by 2 to 12 seats, not 13");
}

/* decks=1 holds at most 7 hands of 7 and a starter (section 3). */
static void test_taylor_one_deck_limit(void **state)
{
    (void)state;
    const ja_game_rules *g = taylor();
    for (uint32_t n = g->min_seats; n <= g->max_seats; n++) {
        ja_options o;
        char err[512] = "";
        ja_options_init(g, &o);
        assert_int_equal(ja_options_set(g, &o, "decks=1", err, sizeof err), JA_OK);
        err[0] = '\0';
        int rc = ja_options_resolve(g, &o, n, err, sizeof err);
        if (n <= 7) {
            if (rc != JA_OK)
                fail_msg("decks=1 refused for %u seats: %s", n, err);
        } else {
            if (rc != JA_EINVAL)
                fail_msg("decks=1 accepted for %u seats", n);
            assert_true(strlen(err) > 0);
        }
        ja_options_init(g, &o);
        assert_int_equal(ja_options_set(g, &o, "decks=2", err, sizeof err), JA_OK);
        if (ja_options_resolve(g, &o, n, err, sizeof err) != JA_OK)
            fail_msg("decks=2 refused for %u seats: %s", n, err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_counts),
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_set_enum),
        cmocka_unit_test(test_set_int_bounds),
        cmocka_unit_test(test_set_malformed),
        cmocka_unit_test(test_unknown_key_lists_allowed),
        cmocka_unit_test(test_resolve_defaults),
        cmocka_unit_test(test_resolve_seat_range),
        cmocka_unit_test(test_value_str_and_format),
        cmocka_unit_test(test_fake_round_trip),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_taylor_keys),
        cmocka_unit_test(test_taylor_unknown_key),
        cmocka_unit_test(test_taylor_bad_enum),
        cmocka_unit_test(test_taylor_int_bounds),
        cmocka_unit_test(test_taylor_resolve_defaults),
        cmocka_unit_test(test_taylor_format),
        cmocka_unit_test(test_taylor_seat_range),
        cmocka_unit_test(test_taylor_one_deck_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
