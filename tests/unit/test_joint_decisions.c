/* ctest-requires-game: bombs */
/* Joint decisions (interrupt windows) end to end: Bombs matches played
 * through the real match loop (ref_match_run) with plugin seats, `random`
 * and `greedy` loaded from $JA_BUILD_DIR/bots, each written to a replay
 * (ref_replay_writer_open), loaded back (ref_replay_load) and re-simulated
 * (ref_replay_verify).
 *
 *  - joint decisions occur, and some of them really put two or more seats to
 *    their bots at once (not forced);
 *  - the replay has one record per seat of every decision, in seat order,
 *    the forced ones marked (one legal action, no index), and it verifies;
 *  - a window goes to the first interrupter in priority order (clockwise from
 *    the seat after the one due in turn, the player of the top play last),
 *    whatever the other answers: the winner's next event is its
 *    out-of-turn play; when every seat declines nobody sees any event and
 *    the seat due plays in turn;
 *  - no observation tells who is asked: during a window every seat of the
 *    table, asked or not, forced or not, sees the same stage with nobody
 *    named; a joint decision never spans two tables.
 *
 * Budget: about a second under ASan (matches of 2 hands). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "match.h"
#include "replay.h"
#include "seat.h"

#include "jackarena/ja_bombs.h"
#include "jackarena/ja_error.h"

#include "bot_harness.h"

static int popcount(uint32_t m)
{
    return __builtin_popcount(m);
}

/* What the checks of the steps found, over all matches. */
typedef struct tally {
    uint32_t n_seats;
    unsigned char *prev;        /* the state before the step */
    ja_bombs_obs before[JA_MAX_SEATS]; /* every seat's view before the step */
    uint32_t windows, interrupts, all_declined, contested;
} tally;

/* Checks one step against the state before it (t->prev, t->before). */
static void on_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    tally *t = ctx;
    const uint32_t n = t->n_seats;
    const uint32_t mask = info->seats;
    const ja_bombs_obs *first = &t->before[__builtin_ctz(mask)];
    /* One table, and every seat of it sees the same public stage. */
    for (uint32_t m = mask; m; m &= m - 1)
        assert_int_equal(t->before[__builtin_ctz(m)].table, first->table);
    if (first->stage == JA_BOMBS_STAGE_WINDOW) {
        t->windows++;
        for (uint32_t s = 0; s < n; s++) {
            const ja_bombs_obs *o = &t->before[s];
            if (o->table != first->table)
                continue;
            assert_int_equal(o->stage, JA_BOMBS_STAGE_WINDOW);
            assert_int_equal(o->actor, 0xFF);
            assert_int_equal(o->turn_seat, first->turn_seat);
            /* Asked: every seat of the table holding cards but the one due. */
            bool asked = o->count[s] > 0 && s != first->turn_seat;
            assert_int_equal(asked, (mask >> s) & 1u);
        }
        /* The winner: the first interrupter clockwise from the seat after n. */
        uint32_t size = 0, interrupters = 0;
        while (size < JA_BOMBS_MAX_CHAIRS && first->table_seats[size] != 0xFF)
            size++;
        int winner = -1;
        uint32_t code = 0;
        for (uint32_t k = 1; k < size; k++) {
            int s = first->table_seats[(first->seat_chair[first->turn_seat] + k) % size];
            if (!((mask >> s) & 1u) || info->by_seat[s].code == JA_BOMBS_DECLINE)
                continue;
            interrupters++;
            if (winner < 0) {
                winner = s;
                code = info->by_seat[s].code;
            }
        }
        t->contested += interrupters >= 2;
        ja_bombs_obs after;
        if (winner >= 0) {
            t->interrupts++;
            g->observe(info->state, winner, &after);
            uint32_t q = t->before[winner].event_seq + 1; /* its next event */
            bool found = false;
            for (int i = 0; i < JA_BOMBS_EVENTS; i++)
                if (after.ev_seq[i] == q) {
                    assert_int_equal(after.ev_kind[i], JA_BOMBS_EV_INTERRUPT);
                    assert_int_equal(after.ev_seat[i], winner);
                    assert_int_equal(after.ev_arg[i], code);
                    found = true;
                }
            assert_true(found);
        } else {
            t->all_declined++;
            for (uint32_t s = 0; s < n; s++) {
                g->observe(info->state, (int)s, &after);
                assert_int_equal(after.event_seq, t->before[s].event_seq);
            }
            assert_int_equal(g->to_act(info->state), 1u << first->turn_seat);
        }
    }
    memcpy(t->prev, info->state, g->state_size);
    for (uint32_t s = 0; s < n; s++)
        g->observe(t->prev, (int)s, &t->before[s]);
}

/* Checks a loaded replay's records; returns the steps put to two or more
 * bots at once, and counts joint steps into *joint. */
static uint32_t check_records(const ref_replay *r, uint32_t *joint)
{
    uint32_t both_asked = 0;
    for (uint32_t i = 0; i < r->n_steps; i++) {
        const ref_replay_step *sp = &r->steps[i];
        assert_int_equal(sp->n, (uint32_t)popcount(sp->seats));
        *joint += sp->n >= 2;
        uint32_t asked = 0, seen = 0;
        int last = -1;
        for (uint32_t k = 0; k < sp->n; k++) {
            const ref_replay_rec *rec = &r->recs[sp->first + k];
            assert_true((int)rec->seat > last);
            last = rec->seat;
            seen |= 1u << rec->seat;
            if (rec->forced) {
                assert_int_equal(rec->n_legal, 1);
                assert_int_equal(rec->index, -1);
            } else {
                assert_true(rec->n_legal >= 2);
                assert_true(rec->index >= 0 && (uint32_t)rec->index < rec->n_legal);
                asked++;
            }
            assert_int_equal(rec->fault, JA_FAULT_NONE);
        }
        assert_int_equal(seen, sp->seats);
        both_asked += asked >= 2;
    }
    return both_asked;
}

/* Plays one match into a replay, loads and verifies it, checks it. */
static void play(bots *b, uint32_t n, const char *const *kv, uint64_t seed, uint32_t greedy_mask,
                 tally *t, uint32_t *joint, uint32_t *both_asked)
{
    const ja_game_rules *g = ja_game_find("bombs");
    assert_non_null(g);
    ja_options o;
    char err[512] = "";
    ja_options_init(g, &o);
    for (; kv && *kv; kv++)
        assert_int_equal(ja_options_set(g, &o, *kv, err, sizeof err), JA_OK);
    assert_int_equal(ja_options_resolve(g, &o, n, err, sizeof err), JA_OK);
    ref_match_config cfg = {.game = g, .options = o, .n_seats = n, .seed = seed,
                            .match_id = "test-joint"};
    ref_bot *seats[JA_MAX_SEATS];
    for (uint32_t s = 0; s < n; s++)
        seats[s] = (greedy_mask >> s) & 1u ? b->greedy : b->random;

    t->n_seats = n;
    assert_int_equal(g->setup(t->prev, &o, n, seed), JA_OK);
    for (uint32_t s = 0; s < n; s++)
        g->observe(t->prev, (int)s, &t->before[s]);

    char path[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/ja_test_joint_%ld_%llu.rpl", tmp && *tmp ? tmp : "/tmp",
             (long)getpid(), (unsigned long long)seed);
    ref_replay_writer *rw = NULL;
    assert_int_equal(ref_replay_writer_open(path, &rw, err, sizeof err), JA_OK);
    ref_match_result res;
    cfg.bots = seats;
    cfg.replay = &rw;
    cfg.on_step = on_step;
    cfg.step_ctx = t;
    if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK)
        fail_msg("match (n=%u seed=%llu): %s", (unsigned)n, (unsigned long long)seed, err);

    ref_replay *r = NULL;
    if (ref_replay_load(path, &r, err, sizeof err) != JA_OK)
        fail_msg("%s", err);
    assert_int_equal(r->n_steps, res.decisions);
    uint8_t digest[REF_DIGEST_BYTES];
    if (ref_replay_verify(r, digest, err, sizeof err) != JA_OK)
        fail_msg("replay of seed %llu: %s", (unsigned long long)seed, err);
    assert_memory_equal(digest, res.digest, REF_DIGEST_BYTES);
    *both_asked += check_records(r, joint);
    ref_replay_free(&r);
    remove(path);
}

static void test_joint_decisions(void **state)
{
    bots *b = *state;
    static const char *const after[] = {"interrupt_after_pass=off", "interrupt_after_pass=on"};
    static const uint32_t seat_counts[] = {3, 4, 5, 8, 10};
    tally t;
    memset(&t, 0, sizeof t);
    t.prev = malloc(ja_game_find("bombs")->state_size);
    assert_non_null(t.prev);
    uint32_t joint = 0, both_asked = 0, matches = 0;
    uint64_t seed = 77;
    for (size_t i = 0; i < sizeof seat_counts / sizeof seat_counts[0]; i++)
        for (int a = 0; a < 2; a++) {
            uint32_t n = seat_counts[i];
            const char *kv[] = {"hands=2", after[a], NULL};
            /* random everywhere, then greedy on every other seat */
            play(b, n, kv, seed++, 0, &t, &joint, &both_asked);
            play(b, n, kv, seed++, 0x55555u & ((1u << n) - 1), &t, &joint, &both_asked);
            matches += 2;
        }
    free(t.prev);
    print_message("joint decisions: %u matches; %u joint steps, %u put to two or more bots at "
                  "once; %u windows: %u won by an interrupt (%u with rival interrupters), %u "
                  "all declined\n",
                  (unsigned)matches, (unsigned)joint, (unsigned)both_asked, (unsigned)t.windows,
                  (unsigned)t.interrupts, (unsigned)t.contested, (unsigned)t.all_declined);
    assert_true(joint > 100);
    assert_true(both_asked > 10);
    assert_true(t.contested > 0);
    assert_true(t.all_declined > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_joint_decisions),
    };
    return cmocka_run_group_tests(tests, setup_bots, teardown_bots);
}
