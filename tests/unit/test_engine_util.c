/* Unit tests of the engines' internal helpers (sdk/rules/engine_util.h): the
 * event ring, its copies and their update in place, sets of card ids with
 * twins, stacked decks, option defaults read from specs (every game's, and
 * made-up ones; the reading itself is sdk/src/options.c's, options_internal.h,
 * which eu_option_values calls), the outcome, the one-seat checks and describe()'s line
 * builder. The engines'
 * behaviour through them is tested by the scenarios and the property suite;
 * these pin the helpers' own contracts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine_util.h"

/* ---- Event rings --------------------------------------------------------- */

#define CAP 5

typedef struct ring {
    uint8_t ev_kind[CAP];
    uint16_t ev_arg[CAP];
} ring;

typedef struct obs {
    uint32_t event_seq, ev_seq[CAP];
    uint8_t ev_kind[CAP];
    uint16_t ev_arg[CAP];
} obs;

static void push(ring *r, uint32_t *seq, int q)
{
    uint32_t slot = eu_ring_push(seq, CAP);
    r->ev_kind[slot] = (uint8_t)q;
    r->ev_arg[slot] = (uint16_t)(1000 + q);
}

/* After each of 0..13 events: the newest min(seq, CAP), oldest first, each
 * with its number, the rest of the observation zero; and back into an
 * empty ring, the same observation again. */
static void test_ring_round_trip(void **state)
{
    (void)state;
    ring r;
    uint32_t seq = 0;
    memset(&r, 0, sizeof r);
    for (int q = 0; q <= 13; q++) {
        if (q)
            push(&r, &seq, q);
        assert_int_equal(seq, (uint32_t)q);
        obs o;
        memset(&o, 0, sizeof o);
        EU_EVENTS_OUT(&o, &r, seq, CAP, ev_kind, ev_arg);
        uint32_t k = seq < CAP ? seq : CAP;
        assert_int_equal(o.event_seq, seq);
        for (uint32_t i = 0; i < CAP; i++) {
            uint32_t want = i < k ? seq - k + 1 + i : 0;
            assert_int_equal(o.ev_seq[i], want);
            assert_int_equal(o.ev_kind[i], want);
            assert_int_equal(o.ev_arg[i], want ? 1000 + want : 0);
        }
        ring back;
        memset(&back, 0, sizeof back);
        EU_EVENTS_IN(&back, &o, CAP, ev_kind, ev_arg);
        obs again;
        memset(&again, 0, sizeof again);
        EU_EVENTS_OUT(&again, &back, seq, CAP, ev_kind, ev_arg);
        assert_memory_equal(&again, &o, sizeof o);
    }
}

/* eu_ring_shift: from an observation's columns at event `old`, moving
 * them up and writing the new events at the position it returns gives the
 * columns at event `seq`, for every old <= seq <= old + CAP up to 13 (three
 * one-byte columns, one after the other, as the function takes them). */
static void test_ring_shift(void **state)
{
    (void)state;
    enum { COLS = 3 };
    for (uint32_t old = 0; old <= 13; old++)
        for (uint32_t seq = old; seq <= old + CAP && seq <= 13; seq++) {
            uint8_t cols[COLS][CAP], want[COLS][CAP];
            memset(cols, 0, sizeof cols);
            memset(want, 0, sizeof want);
            /* Event q's entry in column c is 16 * c + q (never 0). */
            for (uint32_t c = 0; c < COLS; c++) {
                const uint32_t ko = old < CAP ? old : CAP, kn = seq < CAP ? seq : CAP;
                for (uint32_t i = 0; i < ko; i++)
                    cols[c][i] = (uint8_t)(16 * c + old - ko + 1 + i);
                for (uint32_t i = 0; i < kn; i++)
                    want[c][i] = (uint8_t)(16 * c + seq - kn + 1 + i);
            }
            uint32_t at = eu_ring_shift(&cols[0][0], COLS, old, seq, CAP);
            for (uint32_t q = old + 1; q <= seq; q++, at++) {
                assert_true(at < CAP);
                for (uint32_t c = 0; c < COLS; c++)
                    cols[c][at] = (uint8_t)(16 * c + q);
            }
            assert_memory_equal(cols, want, sizeof want);
        }
}

/* ---- Card sets with twins ------------------------------------------------------ */

static void test_twin_sets(void **state)
{
    (void)state;
    uint64_t set[2] = {0, 0};
    eu_set_add(set, 7);
    eu_set_add(set, 7 + EU_TWIN);
    eu_set_add(set, 51 + EU_TWIN); /* the highest id: bit 105 */
    eu_set_add(set, 0);
    assert_true(eu_set_has(set, 7 + EU_TWIN));
    assert_false(eu_set_has(set, 51));
    assert_int_equal(eu_set_copies(set, 7), 2);
    assert_int_equal(eu_set_copies(set, 51), 1);
    assert_int_equal(eu_set_copies(set, 1), 0);
    assert_true(eu_set_idents(set) ==
                ((UINT64_C(1) << 0) | (UINT64_C(1) << 7) | (UINT64_C(1) << 51)));
    assert_int_equal(eu_set_lowest(set, 51), 51 + EU_TWIN);
    assert_int_equal(eu_set_lowest(set, 7), 7);
    uint8_t count[53];
    memset(count, 0xee, sizeof count); /* every one of the 52 is written, 0 included */
    eu_set_counts(set, count);
    assert_int_equal(count[0], 1);
    assert_int_equal(count[7], 2);
    assert_int_equal(count[51], 1);
    assert_int_equal(count[8], 0);
    assert_int_equal(count[52], 0xee); /* and nothing past them */
    /* Every identity in every position of its group of eight, with 0, 1 or 2
     * copies, against eu_set_copies. */
    for (int seed = 0; seed < 64; seed++) {
        uint64_t r[2] = {0, 0};
        for (int c = 0; c < 52; c++) {
            int copies = (c * 7 + seed * 13 + c / 8) % 3;
            if (copies == 2 || (copies == 1 && seed % 2 == 0))
                eu_set_add(r, (uint8_t)c);
            if (copies == 2 || (copies == 1 && seed % 2 == 1)) /* a twin alone, too */
                eu_set_add(r, (uint8_t)(c + EU_TWIN));
        }
        memset(count, 0xee, sizeof count);
        eu_set_counts(r, count);
        for (int c = 0; c < 52; c++)
            assert_int_equal(count[c], eu_set_copies(r, c));
        assert_int_equal(count[52], 0xee);
    }
    eu_set_del(set, 7);
    assert_int_equal(eu_set_copies(set, 7), 1);
    assert_int_equal(eu_ident(7 + EU_TWIN), 7);
    assert_int_equal(eu_ident(51), 51);

    uint8_t deck[104];
    assert_int_equal(eu_twin_deck(1, deck), 52);
    assert_int_equal(deck[51], 51);
    assert_int_equal(eu_twin_deck(2, deck), 104);
    assert_int_equal(deck[52], EU_TWIN);
    assert_int_equal(deck[103], 51 + EU_TWIN);
    assert_false(eu_twin_valid(1, EU_TWIN));
    assert_false(eu_twin_valid(2, 52));
    assert_true(eu_twin_valid(2, 51 + EU_TWIN));
}

/* ---- Stacked decks ----------------------------------------------------------------- */

static void test_stack_deck(void **state)
{
    (void)state;
    uint8_t deck[256];
    const uint8_t two[] = {5, 5, 0};
    /* Two packs: the second 5 is its twin; the rest ascend, twins last. */
    assert_int_equal(eu_stack_deck(two, 3, 52, 2, deck), 104);
    assert_int_equal(deck[0], 5);
    assert_int_equal(deck[1], 5 + EU_TWIN);
    assert_int_equal(deck[2], 0);
    assert_int_equal(deck[3], 1);
    assert_int_equal(deck[7], 6);
    assert_int_equal(deck[52], 51);
    assert_int_equal(deck[53], EU_TWIN);
    /* One pack: a card twice is refused, so is one out of range. */
    assert_int_equal(eu_stack_deck(two, 2, 52, 1, deck), JA_EINVAL);
    const uint8_t joker[] = {53};
    assert_int_equal(eu_stack_deck(joker, 1, 52, 1, deck), JA_EINVAL);
    assert_int_equal(eu_stack_deck(joker, 1, 54, 1, deck), 54);
    assert_int_equal(deck[0], 53);
    assert_int_equal(deck[53], 52);
    const uint8_t three[] = {9, 9, 9};
    assert_int_equal(eu_stack_deck(three, 3, 52, 2, deck), JA_EINVAL);
    const uint8_t twin_named[] = {EU_TWIN + 1};
    assert_int_equal(eu_stack_deck(twin_named, 1, 52, 2, deck), 104);
    assert_int_equal(deck[0], EU_TWIN + 1);
    assert_int_equal(eu_stack_deck(NULL, 1, 52, 1, deck), JA_EINVAL);
    assert_int_equal(eu_stack_deck(NULL, 0, 125, 1, deck), 125);
    assert_int_equal(deck[124], 124);
    assert_int_equal(eu_stack_deck(three, 53, 52, 1, deck), JA_EINVAL); /* n > deck */
}

/* ---- Options ----------------------------------------------------------------------- */

static void test_option_defaults(void **state)
{
    (void)state;
    static const ja_option_spec spec[] = {
        {"mode", JA_OPT_ENUM, "a|bb|ccc", 0, 0, "ccc", ""},
        {"level", JA_OPT_INT, NULL, -5, 5, "-2", ""},
        {"rounds", JA_OPT_INT, NULL, 1, 1000, "3*N", ""},
        {"games", JA_OPT_INT, NULL, 1, 1000, "N", ""},
        {"odd", JA_OPT_INT, NULL, 1, 1000, "N+1", ""},
        {"bad", JA_OPT_ENUM, "a|b", 0, 0, "c", ""},
    };
    int32_t v;
    assert_int_equal(ja_option_default(&spec[0], 4, &v), 0);
    assert_int_equal(v, 2);
    assert_int_equal(ja_option_default(&spec[1], 4, &v), 0);
    assert_int_equal(v, -2);
    assert_int_equal(ja_option_default(&spec[2], 4, &v), 1);
    assert_int_equal(v, 12);
    assert_int_equal(ja_option_default(&spec[3], 4, &v), 1);
    assert_int_equal(v, 4);
    assert_int_equal(ja_option_default(&spec[4], 4, &v), -1);
    assert_int_equal(v, 0);
    assert_int_equal(ja_option_default(&spec[5], 4, &v), -1);

    /* setup()'s values: the spec's defaults without options; given values
     * as they are, but a 0 of a seat-dependent one keeps its default. */
    int32_t vals[4];
    eu_option_values(spec, NULL, 3, vals, 4);
    assert_int_equal(vals[0], 2);
    assert_int_equal(vals[1], -2);
    assert_int_equal(vals[2], 9);
    assert_int_equal(vals[3], 3);
    ja_options o = {.n = 3, .value = {0, 0, 0}};
    eu_option_values(spec, &o, 3, vals, 4);
    assert_int_equal(vals[0], 0);
    assert_int_equal(vals[1], 0);
    assert_int_equal(vals[2], 9);
    assert_int_equal(vals[3], 3); /* beyond o.n: the default */
    o.value[2] = 7;
    eu_option_values(spec, &o, 3, vals, 4);
    assert_int_equal(vals[2], 7);
}

/* Every game's every default reads, and is a value the option allows. */
static void test_every_game_default_reads(void **state)
{
    (void)state;
    for (int g = 0; ja_games[g]; g++)
        for (int i = 0; ja_games[g]->options[i].name; i++) {
            const ja_option_spec *sp = &ja_games[g]->options[i];
            for (uint32_t n = ja_games[g]->min_seats; n <= ja_games[g]->max_seats; n++) {
                int32_t v;
                if (ja_option_default(sp, n, &v) < 0)
                    fail_msg("%s: the default '%s' of %s does not read", ja_games[g]->name,
                             sp->def, sp->name);
                if (sp->kind == JA_OPT_INT && (v < sp->min || v > sp->max))
                    fail_msg("%s: the default of %s for %u seats, %d, is out of range",
                             ja_games[g]->name, sp->name, (unsigned)n, (int)v);
            }
        }
}

/* ---- Outcome, decisions, text ------------------------------------------------------- */

static void test_outcome(void **state)
{
    (void)state;
    const int32_t a[3] = {3, 5, 3}, b[3] = {1, -1, 0};
    ja_outcome out;
    assert_int_equal(eu_outcome(&out, false, 3, a, b, 10), JA_EAGAIN);
    assert_int_equal(eu_outcome(&out, true, 3, a, b, 10), JA_OK);
    assert_int_equal(out.n_seats, 3);
    assert_int_equal(out.score[0], 40);
    assert_int_equal(out.score[1], 40);
    assert_int_equal(out.score[2], 30);
    assert_int_equal(out.place[0], 1);
    assert_int_equal(out.place[1], 1);
    assert_int_equal(out.place[2], 3);
    assert_int_equal(eu_outcome(&out, true, 3, a, NULL, 1), JA_OK);
    assert_int_equal(out.score[1], 5);
    assert_int_equal(out.place[1], 1);
}

static void test_one_seat(void **state)
{
    (void)state;
    ja_action by[3] = {{10}, {11}, {12}};
    uint32_t code = 0;
    assert_int_equal(eu_one_seat(false, 1, 1u << 1, NULL, &code), JA_EINVAL);
    assert_int_equal(eu_one_seat(true, 1, 1u << 1, by, &code), JA_EILLEGAL);
    assert_int_equal(eu_one_seat(false, 1, (1u << 1) | 1u, by, &code), JA_EILLEGAL);
    assert_int_equal(eu_one_seat(false, 1, 1u << 1, by, &code), JA_OK);
    assert_int_equal(code, 11);
}

static void test_text(void **state)
{
    (void)state;
    char small[8];
    eu_text t = EU_TEXT(small);
    eu_add(&t, "%s", "abc");
    eu_add(&t, " %d", 42);
    assert_string_equal(small, "abc 42");
    eu_add(&t, "%s", "xyz"); /* cut at the buffer's end */
    assert_string_equal(small, "abc 42x");
    eu_add(&t, "more");
    assert_string_equal(small, "abc 42x");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_round_trip),
        cmocka_unit_test(test_ring_shift),
        cmocka_unit_test(test_twin_sets),
        cmocka_unit_test(test_stack_deck),
        cmocka_unit_test(test_option_defaults),
        cmocka_unit_test(test_every_game_default_reads),
        cmocka_unit_test(test_outcome),
        cmocka_unit_test(test_one_seat),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
