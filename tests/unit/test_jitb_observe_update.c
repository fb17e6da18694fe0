/* ctest-requires-game: jack_in_the_box */
/* Jack in the Box's incremental observation (JA_EXT_OBSERVE_UPDATE) at a
 * step the random runs of test_all_games and test_match_observe seldom
 * reach (a few matches in a thousand): the match ending with a JACK_IN that
 * closes the last open box. Nothing follows that JACK_IN (no refill, no new
 * deal), so it alone says that the seat's hand, and in team mode its row of
 * known[], lost the Jack.
 *
 * Matches of one game are played by a policy that Jacks in whenever it can
 * and does not exchange while it can match, with 2 seats and with 4 in team
 * mode (variant v1: two boxes of one joker each). Every seat's buffer is
 * brought up to date at every step and at the end, so at most a few events
 * come between two updates (the incremental path), and each equals a fresh
 * observe() byte for byte. The matches that end so are counted and
 * required.
 *
 * Budget: about a second under ASan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_jack_in_the_box.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_rules.h"

#include "bot_harness.h"

#define MATCHES 600

/* The policy's choice among the n legal actions l: a JACK_IN when there is
 * one, else at random, EXCHANGE only when nothing else is legal. */
static ja_action choose(const ja_action *l, uint32_t n, ja_rng *r)
{
    uint32_t other = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (l[i].code >= JA_JITB_JACK_IN(0, 0) && l[i].code < JA_JITB_EXCHANGE)
            return l[i];
        other += l[i].code != JA_JITB_EXCHANGE;
    }
    if (other == 0)
        return l[0];
    uint32_t k = ja_rng_below(r, other);
    for (uint32_t i = 0; i < n; i++)
        if (l[i].code != JA_JITB_EXCHANGE && k-- == 0)
            return l[i];
    return l[0];
}

/* Each seat's buffer up to date with st, equal to observe(). */
static void update_all(const ja_game_rules *g, const ja_ext_observe_update *ou, const void *st,
                       uint32_t n, ja_jitb_obs *kept, uint64_t seed, uint32_t step)
{
    ja_jitb_obs want;
    for (uint32_t s = 0; s < n; s++) {
        ou->update(st, (int)s, &kept[s]);
        g->observe(st, (int)s, &want);
        if (memcmp(&kept[s], &want, sizeof want) != 0)
            fail_msg("seed %llu step %u: the update of seat %u differs from observe()",
                     (unsigned long long)seed, (unsigned)step, (unsigned)s);
    }
}

/* Plays MATCHES matches of one game with n seats and the options kv;
 * returns how many ended with a JACK_IN closing the last box. */
static uint32_t play(uint32_t n, const char *const *kv)
{
    const ja_game_rules *g = ja_game_find("jack-in-the-box");
    assert_non_null(g);
    assert_int_equal(g->obs_size, sizeof(ja_jitb_obs));
    const ja_ext_observe_update *ou = ja_rules_extension(g, JA_EXT_OBSERVE_UPDATE);
    assert_non_null(ou);
    ja_options o = make_options(g, n, kv);
    void *st = malloc(g->state_size);
    assert_non_null(st);
    ja_jitb_obs kept[JA_JITB_MAX_SEATS];
    ja_action l[JA_MAX_ACTIONS], by[JA_MAX_SEATS];
    ja_rng r;
    ja_rng_seed(&r, 77);
    uint32_t closed = 0;
    for (uint64_t seed = 1; seed <= MATCHES; seed++) {
        assert_int_equal(g->setup(st, &o, n, seed), JA_OK);
        memset(kept, 0, sizeof kept);
        uint32_t step = 0, mask;
        while ((mask = g->to_act(st)) != 0) {
            update_all(g, ou, st, n, kept, seed, step);
            const int s = __builtin_ctz(mask);
            memset(by, 0, sizeof by);
            by[s] = choose(l, g->legal(st, s, l, JA_MAX_ACTIONS), &r);
            assert_int_equal(g->apply(st, mask, by), JA_OK);
            step++;
        }
        update_all(g, ou, st, n, kept, seed, step);
        /* The last event is the END of the game; the box closed by a JACK_IN
         * (END_CLOSED), the last events before it JACK_IN and maybe DOUBLE. */
        const ja_jitb_obs *e = &kept[0];
        const uint32_t last = (e->event_seq < JA_JITB_EVENTS ? e->event_seq : JA_JITB_EVENTS) - 1;
        assert_int_equal(e->ev_kind[last], JA_JITB_EV_END);
        closed += e->ev_value[last] == JA_JITB_END_CLOSED;
    }
    free(st);
    return closed;
}

static void test_closing_jack_in(void **state)
{
    (void)state;
    static const char *const two[] = {"games=1", "variant=v1", NULL};
    static const char *const teams[] = {"games=1", "variant=v1", "teams=on", NULL};
    uint32_t closed2 = play(2, two), closed4 = play(4, teams);
    print_message("matches ended by a closing JACK_IN: %u of %u with 2 seats, %u of %u with 4 "
                  "in team mode\n",
                  (unsigned)closed2, MATCHES, (unsigned)closed4, MATCHES);
    assert_true(closed2 >= 5);
    assert_true(closed4 >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closing_jack_in),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
