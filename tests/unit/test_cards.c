/* Unit tests of card ids and labels (ja_cards.h): the id layout of the
 * shared conventions (13 * suit + rank, jokers 52 and 53, a second pack at
 * +54), formatting and parsing of every identity, and bad labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"

/* The 54 labels in id order, written out by hand from the conventions. */
static const char *const LABELS[54] = {
    "AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC",
    "AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD",
    "AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH",
    "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS",
    "XB", "XR",
};

static void test_format_every_identity(void **state)
{
    (void)state;
    for (int id = 0; id < 108; id++) {
        char buf[3];
        memset(buf, 0x7F, sizeof buf);
        assert_int_equal(ja_card_format((uint8_t)id, buf, sizeof buf), JA_OK);
        assert_string_equal(buf, LABELS[id % 54]); /* second pack: same label */
    }
}

static void test_parse_round_trip(void **state)
{
    (void)state;
    for (int id = 0; id < 108; id++) {
        char buf[8];
        assert_int_equal(ja_card_format((uint8_t)id, buf, sizeof buf), JA_OK);
        assert_int_equal(ja_card_parse(buf), id % 54);
        assert_int_equal(ja_card_parse(buf), ja_card_ident((uint8_t)id));
        /* Lower case and mixed case parse the same. */
        char low[3] = {(char)(buf[0] | 0x20), (char)(buf[1] | 0x20), '\0'};
        assert_int_equal(ja_card_parse(low), id % 54);
        char mixed[3] = {buf[0], (char)(buf[1] | 0x20), '\0'};
        assert_int_equal(ja_card_parse(mixed), id % 54);
    }
}

static void test_parse_ten(void **state)
{
    (void)state;
    static const char suits[] = "CDHS";
    for (int s = 0; s < 4; s++) {
        char a[4] = {'1', '0', suits[s], '\0'};
        char b[3] = {'T', suits[s], '\0'};
        char c[4] = {'1', '0', (char)(suits[s] | 0x20), '\0'};
        int want = 13 * s + JA_RANK_T;
        assert_int_equal(ja_card_parse(a), want);
        assert_int_equal(ja_card_parse(b), want);
        assert_int_equal(ja_card_parse(c), want);
    }
    assert_int_equal(ja_card_parse("10H"), 35);
    assert_int_equal(ja_card_parse("th"), 35);
    assert_int_equal(ja_card_parse("xb"), 52);
    assert_int_equal(ja_card_parse("xR"), 53);
    assert_int_equal(ja_card_parse("as"), 39);
    assert_int_equal(ja_card_parse("kd"), 25);
}

static void test_parse_bad(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "A", "H", "1H", "11H", "01H", "10", "100H", "1 H", "ZZ", "AX", "AZ", "X",
        "XX", "XJ", "XBB", "AHH", " AH", "AH ", "A H", "0H", "1OH", "10HH", "TT", "HA",
        "?H", "A?", "\tA", "-1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (ja_card_parse(bad[i]) != -1)
            fail_msg("label '%s' parsed to %d", bad[i], ja_card_parse(bad[i]));
    }
    assert_int_equal(ja_card_parse(NULL), -1);
}

static void test_format_bad(void **state)
{
    (void)state;
    char buf[8] = "zz";
    assert_int_equal(ja_card_format(108, buf, sizeof buf), JA_EINVAL);
    assert_int_equal(ja_card_format(JA_CARD_NONE, buf, sizeof buf), JA_EINVAL);
    assert_int_equal(ja_card_format(0, buf, 2), JA_EINVAL);
    assert_int_equal(ja_card_format(0, buf, 0), JA_EINVAL);
    assert_string_equal(buf, "zz"); /* nothing written on error */
    assert_int_equal(ja_card_format(0, buf, 3), JA_OK);
    assert_string_equal(buf, "AC");
}

static void test_inline_helpers(void **state)
{
    (void)state;
    for (int id = 0; id < 108; id++) {
        uint8_t c = (uint8_t)id, ident = (uint8_t)(id % 54);
        assert_int_equal(ja_card_ident(c), ident);
        if (ident < 52) {
            assert_false(ja_card_is_joker(c));
            assert_int_equal(ja_card_suit(c), ident / 13);
            assert_int_equal(ja_card_rank(c), ident % 13);
            assert_int_equal(ja_card_make(ja_card_suit(c), ja_card_rank(c)), ident);
            bool black = ident / 13 == JA_SUIT_C || ident / 13 == JA_SUIT_S;
            assert_int_equal(ja_card_is_black(c), black);
        } else {
            assert_true(ja_card_is_joker(c));
            assert_int_equal(ja_card_is_black(c), ident == JA_JOKER_BLACK);
        }
    }
    assert_int_equal(ja_card_make(JA_SUIT_H, JA_RANK_7), 32);
    assert_int_equal(ja_card_parse("7H"), 32);
    assert_int_equal(JA_RANK_COUNT, 13);
    assert_int_equal(JA_SUIT_COUNT, 4);
}

static void test_suit_letter(void **state)
{
    (void)state;
    assert_int_equal(ja_suit_letter(JA_SUIT_C), 'C');
    assert_int_equal(ja_suit_letter(JA_SUIT_D), 'D');
    assert_int_equal(ja_suit_letter(JA_SUIT_H), 'H');
    assert_int_equal(ja_suit_letter(JA_SUIT_S), 'S');
    assert_int_equal(ja_suit_letter(-1), '?');
    assert_int_equal(ja_suit_letter(4), '?');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_every_identity),
        cmocka_unit_test(test_parse_round_trip),
        cmocka_unit_test(test_parse_ten),
        cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_format_bad),
        cmocka_unit_test(test_inline_helpers),
        cmocka_unit_test(test_suit_letter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
