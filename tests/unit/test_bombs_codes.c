/* Unit tests of Bombs' public play decoder (ja_bombs.h, ja_bombs_play_decode),
 * which the engine and the greedy bot both use: every play built by the code
 * macros comes back apart as it was built, and every other code below 4096
 * (past every code of the game) is refused, runs past the ace among them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_bombs.h"

#define CODES 4096u

/* Marks code as a play of these parts, and checks that it decodes to them. */
static void expect(uint8_t *is_play, uint32_t code, int form, int rank, int len, bool complete)
{
    ja_bombs_play p;
    assert_true(code < CODES);
    if (!ja_bombs_play_decode(code, &p))
        fail_msg("code %u: not decoded as a play", (unsigned)code);
    if (p.form != form || p.rank != rank || p.len != len || p.complete != complete)
        fail_msg("code %u: form %d rank %d len %d complete %d, not %d %d %d %d", (unsigned)code,
                 p.form, p.rank, p.len, p.complete, form, rank, len, complete);
    assert_false(is_play[code]); /* no two plays share a code */
    is_play[code] = 1;
}

/* 15 singles; pairs, completions, bombs and big bombs of 13 ranks each; runs
 * and double runs of 3 to 12 ranks up to the ace (10 + 9 + ... + 1 each);
 * the super bomb. */
#define PLAYS (15u + 4u * 13u + 2u * 55u + 1u)

static void test_every_play_and_nothing_else(void **state)
{
    (void)state;
    static uint8_t is_play[CODES];
    memset(is_play, 0, sizeof is_play);
    for (int r = JA_BOMBS_R_3; r <= JA_BOMBS_R_XR; r++)
        expect(is_play, JA_BOMBS_SINGLE(r), JA_BOMBS_FORM_SINGLE, r, 0, false);
    for (int r = JA_BOMBS_R_3; r <= JA_BOMBS_R_2; r++) {
        expect(is_play, JA_BOMBS_PAIR(r), JA_BOMBS_FORM_PAIR, r, 0, false);
        expect(is_play, JA_BOMBS_COMPLETE(r), JA_BOMBS_FORM_BOMB, r, 0, true);
        expect(is_play, JA_BOMBS_BOMB(r), JA_BOMBS_FORM_BOMB, r, 0, false);
        expect(is_play, JA_BOMBS_BIG(r), JA_BOMBS_FORM_BIG, r, 0, false);
    }
    for (int L = 3; L <= JA_BOMBS_MAX_RUN; L++)
        for (int r = JA_BOMBS_R_3; r + L - 1 <= JA_BOMBS_R_A; r++) {
            expect(is_play, JA_BOMBS_RUN(r, L), JA_BOMBS_FORM_RUN, r, L, false);
            expect(is_play, JA_BOMBS_DRUN(r, L), JA_BOMBS_FORM_DRUN, r, L, false);
        }
    expect(is_play, JA_BOMBS_SUPER, JA_BOMBS_FORM_SUPER, JA_BOMBS_R_XB, 0, false);

    uint32_t decoded = 0;
    for (uint32_t c = 0; c < CODES; c++) {
        ja_bombs_play p;
        bool play = ja_bombs_play_decode(c, &p);
        if (play != (is_play[c] != 0))
            fail_msg("code %u: decoded %s", (unsigned)c, play ? "as a play" : "as no play");
        decoded += play;
    }
    assert_int_equal(decoded, PLAYS);
}

/* The codes a run past the ace would have sit among the runs' codes: each
 * is refused. */
static void test_runs_stop_at_the_ace(void **state)
{
    (void)state;
    ja_bombs_play p;
    assert_false(ja_bombs_play_decode(JA_BOMBS_RUN(JA_BOMBS_R_K, 3), &p));
    assert_false(ja_bombs_play_decode(JA_BOMBS_DRUN(JA_BOMBS_R_Q, 4), &p));
    assert_false(ja_bombs_play_decode(JA_BOMBS_RUN(JA_BOMBS_R_4, JA_BOMBS_MAX_RUN), &p));
    assert_true(ja_bombs_play_decode(JA_BOMBS_RUN(JA_BOMBS_R_3, JA_BOMBS_MAX_RUN), &p));
    assert_int_equal(p.len, JA_BOMBS_MAX_RUN);
    assert_false(ja_bombs_play_decode(JA_BOMBS_RUN(JA_BOMBS_R_3, JA_BOMBS_MAX_RUN + 1), &p));
    assert_false(ja_bombs_play_decode(JA_BOMBS_PASS, &p));
    assert_false(ja_bombs_play_decode(JA_BOMBS_LEAD_RUN(5), &p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_play_and_nothing_else),
        cmocka_unit_test(test_runs_stop_at_the_ace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
