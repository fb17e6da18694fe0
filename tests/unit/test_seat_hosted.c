/* ctest-requires-game: taylor */
/* The hosted seat (referee/seat_hosted.c) driven directly, decision by
 * decision, with the sandbox's fault-injection plugins (tests/sandbox/):
 * the sandbox stops a forbidden system call and the seat says so in the
 * child's captured output; a dead child's later decisions are faults
 * without asking; the child's stdout and stderr land in the tail and never
 * on the channel; a child past its time is killed; no child is left
 * unreaped; a file that is no plugin is refused with one line; and a
 * child serves later matches of its bot (counted by
 * ref_hosted_children_started) with the digests of fresh children, unless
 * its seat faulted or it failed after its match.
 * Needs $JA_BUILD_DIR (ctest sets it) for ja_host and the plugins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_rules.h"
#include "match.h"
#include "seat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* No child of this process is left, alive or zombie: every one was reaped. */
static void assert_no_child(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static const char *build_dir(void)
{
    const char *dir = getenv("JA_BUILD_DIR");
    if (!dir)
        fail_msg("JA_BUILD_DIR is not set (run this test through ctest)");
    return dir;
}

static ref_bot *open_hosted(const char *name)
{
    char path[4096], host[4096], err[1200];
    snprintf(host, sizeof host, "%s/arena/ja_host", build_dir());
    setenv("JACKARENA_HOST", host, 1);
    snprintf(path, sizeof path, "%s/tests/sandbox/plugins/%s.so", build_dir(), name);
    ref_bot *b = NULL;
    if (ref_bot_hosted_open(path, NULL, &b, err, sizeof err) != JA_OK)
        fail_msg("%s", err);
    assert_string_equal(ref_bot_get_info(b)->kind, "hosted");
    assert_int_equal(strlen(ref_bot_get_info(b)->sha256), 64);
    assert_no_child(); /* the probe child is gone */
    return b;
}

/* A match of Taylor Blackjack and the decisions of its seat 0. */
typedef struct game {
    const ja_game_rules *g;
    void *st, *obs;
    ja_action legal[512];
    ja_decision d;
    uint32_t turn;
} game;

static void game_start(game *m)
{
    m->g = ja_game_find("taylor-blackjack");
    assert_non_null(m->g);
    ja_options o;
    char err[256];
    ja_options_init(m->g, &o);
    assert_int_equal(ja_options_resolve(m->g, &o, 2, err, sizeof err), JA_OK);
    m->st = calloc(1, m->g->state_size);
    m->obs = calloc(1, m->g->obs_size);
    assert_true(m->st && m->obs && m->g->max_actions <= 512);
    assert_int_equal(m->g->setup(m->st, &o, 2, 5), JA_OK);
}

/* Plays default actions until seat 0 has a real choice; fills m->d. */
static void next_decision(game *m)
{
    for (;;) {
        uint32_t mask = m->g->to_act(m->st);
        assert_true(mask != 0);
        ja_action by_seat[JA_MAX_SEATS];
        for (int s = 0; s < 2; s++)
            if (mask & (1u << s)) {
                uint32_t n = m->g->legal(m->st, s, m->legal, 512);
                if (s == 0 && n >= 2 && mask == 1u) {
                    m->g->observe(m->st, 0, m->obs);
                    m->d = (ja_decision){sizeof m->d, ++m->turn, 1000, 0, 2, m->g->name,
                                         m->g->obs_version, m->g->obs_size, m->obs, m->legal, n};
                    return;
                }
                by_seat[s] = m->g->default_action(m->st, s);
            }
        assert_int_equal(m->g->apply(m->st, mask, by_seat), JA_OK);
    }
}

static void game_done(game *m)
{
    free(m->st);
    free(m->obs);
}

static ref_seat *open_seat_ms(ref_bot *b, const game *m, uint32_t move_ms)
{
    ref_seat_ctx ctx = {.game = m->g, .n_seats = 2, .match_seed = 77, .move_ms = move_ms,
                        .match_id = "t1"};
    ref_seat *s = NULL;
    char err[600];
    assert_int_equal(ref_seat_open(b, &ctx, &s, err, sizeof err), JA_OK);
    return s;
}

static ref_seat *open_seat(ref_bot *b, const game *m)
{
    return open_seat_ms(b, m, 1000);
}

static ref_answer decide(ref_seat *s, game *m)
{
    next_decision(m);
    ref_answer a;
    assert_int_equal(ref_seat_ask(s, &m->d, true), JA_OK);
    ref_seat_collect(s, s->asked_ns + 1000000000, &a);
    if (a.fault == JA_FAULT_NONE) {
        ja_action by_seat[JA_MAX_SEATS] = {m->legal[a.index]};
        assert_int_equal(m->g->apply(m->st, 1u, by_seat), JA_OK);
    } else {
        ja_action by_seat[JA_MAX_SEATS] = {m->g->default_action(m->st, 0)};
        assert_int_equal(m->g->apply(m->st, 1u, by_seat), JA_OK);
    }
    return a;
}

/* openfile.so opens /etc/passwd on its second decision: SIGSYS. */
static void test_forbidden_call_is_a_resource_fault(void **state)
{
    ref_bot *b = open_hosted("openfile");
    game m = {0};
    game_start(&m);
    assert_int_equal(ref_bot_supports(b, m.g), 1);
    ref_seat *s = open_seat(b, &m);
    assert_int_equal(decide(s, &m).fault, JA_FAULT_NONE);
    assert_int_equal(decide(s, &m).fault, JA_FAULT_RESOURCE);
    char tail[4096];
    assert_true(ref_seat_stderr_tail(s, tail, sizeof tail) > 0);
    assert_non_null(strstr(tail, "a system call the sandbox forbids"));
    /* Dead: later decisions are faults of the same kind, not asked. */
    assert_int_equal(decide(s, &m).fault, JA_FAULT_RESOURCE);
    ref_seat_close(&s);
    assert_null(s);
    assert_no_child();
    ref_bot_destroy(&b);
    game_done(&m);
}

/* garbage.so writes junk to stdout and stderr and still answers. */
static void test_output_is_captured_not_spoken(void **state)
{
    ref_bot *b = open_hosted("garbage");
    game m = {0};
    game_start(&m);
    ref_seat *s = open_seat(b, &m);
    for (int i = 0; i < 3; i++)
        assert_int_equal(decide(s, &m).fault, JA_FAULT_NONE);
    char tail[256];
    size_t n = ref_seat_stderr_tail(s, tail, sizeof tail);
    assert_int_equal(n, sizeof tail - 1);
    assert_int_equal(strlen(tail), n);
    assert_non_null(strstr(tail, "{\"type\":\"action\""));
    ref_seat_close(&s);
    assert_no_child();
    ref_bot_destroy(&b);
    game_done(&m);
}

/* badindex.so answers an index out of range: `illegal`, and the child
 * lives on (the next answer is judged again). */
static void test_out_of_range_is_illegal(void **state)
{
    ref_bot *b = open_hosted("badindex");
    game m = {0};
    game_start(&m);
    ref_seat *s = open_seat(b, &m);
    assert_int_equal(decide(s, &m).fault, JA_FAULT_NONE);
    assert_int_equal(decide(s, &m).fault, JA_FAULT_ILLEGAL);
    assert_int_equal(decide(s, &m).fault, JA_FAULT_ILLEGAL);
    ref_seat_close(&s);
    ref_bot_destroy(&b);
    game_done(&m);
}

/* loop.so spins (stopped on its CPU time) and sleeper.so sleeps (stopped at
 * the wall hard stop) on their second decision: killed, `timeout`, and the
 * rest of the match is timeouts without asking. A 50 ms limit keeps this
 * short; what is checked is the outcome, never how long it took. */
static void test_overrun_is_killed_as_timeout(void **state)
{
    static const char *const names[] = {"loop", "sleeper"};
    for (int i = 0; i < 2; i++) {
        ref_bot *b = open_hosted(names[i]);
        game m = {0};
        game_start(&m);
        ref_seat *s = open_seat_ms(b, &m, 50);
        assert_int_equal(decide(s, &m).fault, JA_FAULT_NONE);
        assert_int_equal(decide(s, &m).fault, JA_FAULT_TIMEOUT);
        char tail[4096];
        ref_seat_stderr_tail(s, tail, sizeof tail);
        assert_non_null(strstr(tail, "killed at the time limit"));
        assert_int_equal(decide(s, &m).fault, JA_FAULT_TIMEOUT);
        ref_seat_close(&s);
        assert_no_child();
        ref_bot_destroy(&b);
        game_done(&m);
    }
}

/* Plays `matches` matches of Taylor Blackjack between two seats of b, each
 * deal (match seed) `per_deal` times in a row, as a duplicate deal's
 * rotations are; their digests into digests, the faults of all into *faults.
 * Returns the hosted children started meanwhile. */
static uint64_t play_deals(ref_bot *b, uint32_t matches, uint32_t per_deal,
                           uint8_t digests[][REF_DIGEST_BYTES], uint32_t *faults)
{
    const ja_game_rules *g = ja_game_find("taylor-blackjack");
    assert_non_null(g);
    ref_match_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.game = g;
    cfg.n_seats = 2;
    cfg.match_id = "reuse";
    cfg.move_ms = 1000;
    cfg.max_faults = REF_MAX_FAULTS_NEVER;
    char err[512];
    ja_options_init(g, &cfg.options);
    assert_int_equal(ja_options_resolve(g, &cfg.options, 2, err, sizeof err), JA_OK);
    ref_bot *bots[2] = {b, b};
    cfg.bots = bots;
    uint64_t before = ref_hosted_children_started();
    *faults = 0;
    for (uint32_t m = 0; m < matches; m++) {
        cfg.seed = ja_seed_derive(9, JA_STREAM_MATCH, m / per_deal);
        ref_match_result res;
        if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK)
            fail_msg("%s", err);
        memcpy(digests[m], res.digest, REF_DIGEST_BYTES);
        *faults += res.faults[0] + res.faults[1];
    }
    return ref_hosted_children_started() - before;
}

static uint64_t play(ref_bot *b, uint32_t matches, uint8_t digests[][REF_DIGEST_BYTES],
                     uint32_t *faults)
{
    return play_deals(b, matches, 1, digests, faults);
}

/* A child serves the matches of its bot one after another (two seats of a
 * match never share one: two children for the whole run), with the very
 * digests of a child started for every seat (JACKARENA_HOSTED_REUSE=0). */
static void test_reused_children_give_the_same_digests(void **state)
{
    enum { N = 6 };
    uint8_t reused[N][REF_DIGEST_BYTES], fresh[N][REF_DIGEST_BYTES];
    uint32_t faults;
    ref_bot *b = open_hosted("ja_random");
    assert_int_equal(play(b, N, reused, &faults), 2);
    assert_int_equal(faults, 0);
    ref_bot_destroy(&b);
    assert_no_child(); /* the idle children went with their bot */
    setenv("JACKARENA_HOSTED_REUSE", "0", 1);
    b = open_hosted("ja_random");
    assert_int_equal(play(b, N, fresh, &faults), 2 * N);
    assert_int_equal(faults, 0);
    ref_bot_destroy(&b);
    unsetenv("JACKARENA_HOSTED_REUSE");
    assert_memory_equal(reused, fresh, sizeof reused);
    for (int m = 1; m < N; m++) /* the seeds differ: so do the matches */
        assert_memory_not_equal(reused[m], reused[0], REF_DIGEST_BYTES);
}

/* A child never plays a deal twice (it would know the other seats' cards
 * from its first time): deals played twice in a row, as the rotations of a
 * duplicate deal are, take the two children that have not seen the deal
 * (a fresh pair for the second match, the first pair for the third, ...):
 * 4 children for 6 matches. */
static void test_child_never_plays_a_deal_twice(void **state)
{
    enum { N = 6 };
    uint8_t d[N][REF_DIGEST_BYTES];
    uint32_t faults;
    ref_bot *b = open_hosted("ja_random");
    assert_int_equal(play_deals(b, N, 2, d, &faults), 4);
    assert_int_equal(faults, 0);
    ref_bot_destroy(&b);
    assert_no_child();
}

/* badindex.so answers out of range from its second decision of a match: a
 * child whose seat faulted is never reused, though it lives on. */
static void test_faulted_child_is_not_reused(void **state)
{
    enum { N = 3 };
    uint8_t d[N][REF_DIGEST_BYTES];
    uint32_t faults;
    ref_bot *b = open_hosted("badindex");
    assert_int_equal(play(b, N, d, &faults), 2 * N);
    assert_true(faults >= 2 * N);
    ref_bot_destroy(&b);
    assert_no_child();
}

/* endcrash.so plays well and crashes in end(), after its match: its child
 * never says x_ready, so the next match of the bot gets a fresh one, and the
 * matches are those of fresh children (JACKARENA_HOSTED_REUSE=0). */
static void test_child_that_fails_after_its_match_is_replaced(void **state)
{
    enum { N = 3 };
    uint8_t reused[N][REF_DIGEST_BYTES], fresh[N][REF_DIGEST_BYTES];
    uint32_t faults;
    ref_bot *b = open_hosted("endcrash");
    assert_int_equal(play(b, N, reused, &faults), 2 * N);
    assert_int_equal(faults, 0);
    ref_bot_destroy(&b);
    assert_no_child();
    setenv("JACKARENA_HOSTED_REUSE", "0", 1);
    b = open_hosted("endcrash");
    assert_int_equal(play(b, N, fresh, &faults), 2 * N);
    ref_bot_destroy(&b);
    unsetenv("JACKARENA_HOSTED_REUSE");
    assert_memory_equal(reused, fresh, sizeof reused);
}

static void test_load_errors(void **state)
{
    char err[1200], path[4096];
    ref_bot *b = NULL;
    assert_int_equal(ref_bot_hosted_open("/nonexistent/bot.so", NULL, &b, err, sizeof err),
                     JA_ENOTFOUND);
    assert_null(b);
    assert_non_null(strstr(err, "bot plugin '/nonexistent/bot.so'"));
    /* A file that is no shared library: refused from its headers before
     * any child starts, in one line (referee/elf_check.h). */
    snprintf(path, sizeof path, "%s/CMakeCache.txt", build_dir());
    assert_int_equal(ref_bot_hosted_open(path, NULL, &b, err, sizeof err), JA_EFORMAT);
    assert_null(b);
    assert_non_null(strstr(err, "not an ELF file"));
    assert_null(strchr(err, '\n'));
    assert_no_child();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forbidden_call_is_a_resource_fault),
        cmocka_unit_test(test_output_is_captured_not_spoken),
        cmocka_unit_test(test_out_of_range_is_illegal),
        cmocka_unit_test(test_overrun_is_killed_as_timeout),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_reused_children_give_the_same_digests),
        cmocka_unit_test(test_child_never_plays_a_deal_twice),
        cmocka_unit_test(test_faulted_child_is_not_reused),
        cmocka_unit_test(test_child_that_fails_after_its_match_is_replaced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
