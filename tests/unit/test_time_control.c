/* ctest-requires-game: taylor */
/* Time control and fault policy of the match loop (referee/match.h), with a
 * scripted seat kind instead of a clock: each answer reports the thinking
 * time the test chose, so the bank's arithmetic is checked exactly and
 * nothing depends on how fast the machine is.
 *
 *  - without move_ms and bank_ms the loop tells the bot no deadline and
 *    never judges time, whatever the answers report;
 *  - with both, each decision is allowed move_ms plus the bank left (what
 *    the bot is told in deadline_ms), time beyond move_ms is taken from the
 *    bank (CPU time when the seat measured it, wall time otherwise), and a
 *    decision that needs more is a timeout that empties the bank;
 *  - a bank without move_ms: once spent, the seat is not asked again (a
 *    timeout each time) until it forfeits;
 *  - --on-fault random plays a legal action from the seat's own seeded
 *    stream: the same seed gives the same match, and another than the
 *    default's; forfeit ends the seat at its first fault;
 *  - ref_match_ranked_places puts forfeiters last and keeps the others'
 *    order in competition ranking;
 *  - a kind without limits (a human seat: ref_bot_ops.unlimited) is told
 *    no deadline and charged nothing whatever move_ms and bank_ms say,
 *    while the other seat keeps its limits;
 *  - a seat whose participant leaves (ref_answer.left) stops the match:
 *    JA_ESTATE, the result marked abandoned, and no replay written. */
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
#include "seat.h"

#include "jackarena/ja_error.h"

/* ---- a scripted seat kind ------------------------------------------------ */

#define MAX_ASKS 4096

typedef struct script_bot {
    ref_bot base;
    uint64_t think_us, cpu_us; /* reported for every answer */
    uint32_t index;            /* answered for every decision */
    uint32_t left_at;          /* 0; or the ask whose answer leaves the match */
    uint32_t deadlines[MAX_ASKS]; /* deadline_ms of each ask, in order */
    int64_t asked_ns[MAX_ASKS];   /* the seat's asked_ns at each ask */
    uint32_t n_asks;
} script_bot;

typedef struct script_seat {
    ref_seat base;
    script_bot *sb;
} script_seat;

static int s_supports(ref_bot *b, const ja_game_rules *g)
{
    return 1;
}

static int s_open(ref_bot *b, const ref_seat_ctx *ctx, ref_seat **out, char *err, size_t cap)
{
    script_seat *s = calloc(1, sizeof *s);
    if (!s)
        return JA_ENOMEM;
    s->base.bot = b;
    s->base.seat = ctx->seat;
    s->sb = (script_bot *)b;
    *out = &s->base;
    return JA_OK;
}

static int s_ask(ref_seat *rs, const ja_decision *d)
{
    script_bot *b = ((script_seat *)rs)->sb;
    if (b->n_asks < MAX_ASKS) {
        b->deadlines[b->n_asks] = d->deadline_ms;
        b->asked_ns[b->n_asks] = rs->asked_ns;
    }
    b->n_asks++;
    return JA_OK;
}

static void s_collect(ref_seat *rs, int64_t deadline_ns, ref_answer *out)
{
    script_bot *b = ((script_seat *)rs)->sb;
    *out = (ref_answer){.index = b->index, .fault = JA_FAULT_NONE, .think_us = b->think_us,
                        .cpu_us = b->cpu_us};
    if (b->left_at && b->n_asks >= b->left_at)
        out->left = "it quit";
}

static void s_end(ref_seat *rs, const ja_outcome *o)
{
}

static void s_close(ref_seat *rs)
{
    free(rs);
}

static void s_destroy(ref_bot *b)
{
}

static const ref_bot_ops script_ops = {
    .kind = "script", .supports = s_supports, .seat_open = s_open, .ask = s_ask,
    .collect = s_collect, .end = s_end, .seat_close = s_close, .destroy = s_destroy,
};

/* The same kind, declaring it needs no clock without a deadline (as
 * in-process plugins do). */
static const ref_bot_ops clock_free_ops = {
    .kind = "script", .supports = s_supports, .seat_open = s_open, .ask = s_ask,
    .collect = s_collect, .end = s_end, .seat_close = s_close, .destroy = s_destroy,
    .clock_free = true,
};

/* The same kind without time limits (a human seat's). */
static const ref_bot_ops unlimited_ops = {
    .kind = "script", .supports = s_supports, .seat_open = s_open, .ask = s_ask,
    .collect = s_collect, .end = s_end, .seat_close = s_close, .destroy = s_destroy,
    .unlimited = true,
};

static void script_init(script_bot *b, uint64_t think_us, uint64_t cpu_us, uint32_t index)
{
    memset(b, 0, sizeof *b);
    b->base.ops = &script_ops;
    b->base.info = (ref_bot_info){"script", "script", "1", "", ""};
    b->think_us = think_us;
    b->cpu_us = cpu_us;
    b->index = index;
}

/* ---- running matches --------------------------------------------------------- */

/* The faults of seat 1, decision by decision, as the replay records them. */
typedef struct trace {
    uint8_t fault[MAX_ASKS];
    uint32_t n;
} trace;

static void on_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    trace *t = ctx;
    for (uint32_t k = 0; k < info->n_recs; k++)
        if (info->recs[k].seat == 1 && !info->recs[k].forced && t->n < MAX_ASKS)
            t->fault[t->n++] = info->recs[k].fault;
}

/* The config of a match of Taylor Blackjack (one game) between b0 and b1
 * (bots, 2 of them, the caller's). */
static void config(ref_match_config *cfg, ref_bot **bots, uint32_t move_ms, uint32_t bank_ms,
                   uint64_t seed)
{
    const ja_game_rules *g = ja_game_find("taylor-blackjack");
    assert_non_null(g);
    *cfg = (ref_match_config){.game = g, .n_seats = 2, .seed = seed, .move_ms = move_ms,
                              .match_id = "tc", .bank_ms = bank_ms, .bots = bots};
    char err[256];
    ja_options_init(g, &cfg->options);
    assert_int_equal(ja_options_set(g, &cfg->options, "games=1", err, sizeof err), JA_OK);
    assert_int_equal(ja_options_resolve(g, &cfg->options, 2, err, sizeof err), JA_OK);
}

static void play(ref_bot *b0, ref_bot *b1, uint32_t move_ms, uint32_t bank_ms, uint8_t policy,
                 uint32_t max_faults, uint64_t seed, trace *t, ref_match_result *res)
{
    ref_bot *bots[2] = {b0, b1};
    ref_match_config cfg;
    config(&cfg, bots, move_ms, bank_ms, seed);
    cfg.on_fault = policy;
    cfg.max_faults = max_faults;
    char err[256];
    if (t)
        memset(t, 0, sizeof *t);
    cfg.on_step = t ? on_step : NULL; /* NULL t: nothing records the steps */
    cfg.step_ctx = t;
    assert_int_equal(ref_match_run(&cfg, res, err, sizeof err), JA_OK);
}

/* ---- tests ------------------------------------------------------------------- */

static void test_no_limit_no_judging(void **state)
{
    static script_bot a, b;
    script_init(&a, 0, 0, 0);
    script_init(&b, 3600ull * 1000000, 3600ull * 1000000, 0); /* an hour a move */
    trace t;
    ref_match_result res;
    play(&a.base, &b.base, 0, 0, REF_ON_FAULT_DEFAULT, 0, 1, &t, &res);
    assert_int_equal(res.faults[1], 0);
    assert_true(b.n_asks > 4);
    for (uint32_t i = 0; i < b.n_asks && i < MAX_ASKS; i++)
        assert_int_equal(b.deadlines[i], 0);
}

/* Think times cost two clock reads a decision: a clock_free kind (plugins)
 * is asked without any when there is no deadline and nothing records the
 * times; with an observer (or a replay), a deadline, or a kind that is not
 * clock_free, every ask is timed. */
static void count_clocks(script_bot *b, uint32_t *timed, uint32_t *untimed)
{
    *timed = *untimed = 0;
    for (uint32_t i = 0; i < b->n_asks && i < MAX_ASKS; i++)
        b->asked_ns[i] ? ++*timed : ++*untimed;
}

static void test_untimed_asks_read_no_clock(void **state)
{
    static const struct {
        bool clock_free, observed;
        uint32_t move_ms;
        bool want_timed;
    } cases[] = {
        {true, false, 0, false},   /* nothing needs the time: no clock */
        {true, true, 0, true},     /* an observer records think times */
        {true, false, 1000, true}, /* a deadline */
        {false, false, 0, true},   /* a kind that is not clock_free */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static script_bot a, b;
        trace t;
        ref_match_result res;
        uint32_t timed, untimed;
        script_init(&a, 0, 0, 0);
        script_init(&b, 0, 0, 0);
        if (cases[i].clock_free)
            a.base.ops = b.base.ops = &clock_free_ops;
        play(&a.base, &b.base, cases[i].move_ms, 0, REF_ON_FAULT_DEFAULT, 0, 1,
             cases[i].observed ? &t : NULL, &res);
        count_clocks(&b, &timed, &untimed);
        assert_true((cases[i].want_timed ? timed : untimed) > 4);
        assert_int_equal(cases[i].want_timed ? untimed : timed, 0);
    }
}

static void test_bank_pays_then_runs_out(void **state)
{
    /* move 10 ms, bank 100 ms, 40 ms of CPU a decision (wall time 1 s is
     * ignored: the CPU time is what is charged): 30 ms from the bank each
     * time; the 4th decision needs 30 with 10 left: a timeout, and the
     * bank is empty from then on. */
    static script_bot a, b;
    script_init(&a, 0, 0, 0);
    script_init(&b, 1000000, 40000, 0);
    trace t;
    ref_match_result res;
    play(&a.base, &b.base, 10, 100, REF_ON_FAULT_DEFAULT, REF_MAX_FAULTS_NEVER, 1, &t, &res);
    assert_true(b.n_asks > 6);
    assert_int_equal(b.deadlines[0], 110);
    assert_int_equal(b.deadlines[1], 80);
    assert_int_equal(b.deadlines[2], 50);
    assert_int_equal(b.deadlines[3], 20);
    for (uint32_t i = 4; i < b.n_asks && i < MAX_ASKS; i++)
        assert_int_equal(b.deadlines[i], 10);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(t.fault[i], JA_FAULT_NONE);
    for (uint32_t i = 3; i < t.n; i++)
        assert_int_equal(t.fault[i], JA_FAULT_TIMEOUT);
    assert_int_equal(res.faults[1], t.n - 3);
    assert_int_equal(res.fault_kinds[1][JA_FAULT_TIMEOUT], t.n - 3);
    assert_int_equal(res.bank_left_us[1], 0);
    assert_int_equal(res.faults[0], 0);
    assert_int_equal(res.bank_left_us[0], 100000);
    /* Wall time is charged where no CPU time was measured. */
    static script_bot c;
    script_init(&c, 40000, 0, 0);
    play(&a.base, &c.base, 10, 100, REF_ON_FAULT_DEFAULT, REF_MAX_FAULTS_NEVER, 1, &t, &res);
    assert_int_equal(c.deadlines[3], 20);
    assert_int_equal(t.fault[2], JA_FAULT_NONE);
    assert_int_equal(t.fault[3], JA_FAULT_TIMEOUT);
}

static void test_bank_alone_flag_falls(void **state)
{
    /* No move time, a 100 ms bank, 60 ms a decision: the second decision
     * overdraws it; after that the seat is not asked again, each decision
     * a timeout, until it forfeits past max_faults. */
    static script_bot a, b;
    script_init(&a, 0, 0, 0);
    script_init(&b, 60000, 0, 0);
    trace t;
    ref_match_result res;
    play(&a.base, &b.base, 0, 100, REF_ON_FAULT_DEFAULT, 3, 1, &t, &res);
    assert_int_equal(b.n_asks, 2);
    assert_int_equal(b.deadlines[0], 100);
    assert_int_equal(b.deadlines[1], 40);
    assert_int_equal(t.fault[0], JA_FAULT_NONE);
    assert_true(res.forfeit[1]);
    assert_int_equal(res.fault_kinds[1][JA_FAULT_TIMEOUT], 4);
    assert_int_equal(res.fault_kinds[1][JA_FAULT_FORFEIT], 1);
    assert_int_equal(res.faults[0], 0);
}

static void test_on_fault_policies(void **state)
{
    static script_bot a, bad;
    script_init(&a, 0, 0, 0);
    script_init(&bad, 0, 0, 999); /* always out of range */
    trace t;
    ref_match_result d, r1, r2, f;
    play(&a.base, &bad.base, 0, 0, REF_ON_FAULT_DEFAULT, REF_MAX_FAULTS_NEVER, 7, &t, &d);
    play(&a.base, &bad.base, 0, 0, REF_ON_FAULT_RANDOM, REF_MAX_FAULTS_NEVER, 7, &t, &r1);
    play(&a.base, &bad.base, 0, 0, REF_ON_FAULT_RANDOM, REF_MAX_FAULTS_NEVER, 7, &t, &r2);
    assert_true(r1.faults[1] > 0);
    assert_int_equal(r1.fault_kinds[1][JA_FAULT_ILLEGAL], r1.faults[1]);
    assert_memory_equal(r1.digest, r2.digest, REF_DIGEST_BYTES);
    assert_memory_not_equal(r1.digest, d.digest, REF_DIGEST_BYTES);
    play(&a.base, &bad.base, 0, 0, REF_ON_FAULT_FORFEIT, REF_MAX_FAULTS_NEVER, 7, &t, &f);
    assert_true(f.forfeit[1]);
    assert_int_equal(f.faults[1], 2);
    assert_int_equal(f.fault_kinds[1][JA_FAULT_ILLEGAL], 1);
    assert_int_equal(f.fault_kinds[1][JA_FAULT_FORFEIT], 1);
    assert_false(f.forfeit[0]);
}

static void test_unlimited_kind(void **state)
{
    /* Move 10 ms, bank 100 ms, an hour a decision for the human seat: it
     * is told no deadline, never times out, and its bank is untouched;
     * seat 0 keeps its allowance. */
    static script_bot a, b;
    script_init(&a, 0, 0, 0);
    script_init(&b, 3600ull * 1000000, 0, 0);
    b.base.ops = &unlimited_ops;
    trace t;
    ref_match_result res;
    play(&a.base, &b.base, 10, 100, REF_ON_FAULT_DEFAULT, 0, 1, &t, &res);
    assert_true(b.n_asks > 4);
    for (uint32_t i = 0; i < b.n_asks && i < MAX_ASKS; i++)
        assert_int_equal(b.deadlines[i], 0);
    for (uint32_t i = 0; i < t.n; i++)
        assert_int_equal(t.fault[i], JA_FAULT_NONE);
    assert_int_equal(res.faults[1], 0);
    assert_int_equal(res.bank_left_us[1], 100000);
    assert_int_equal(a.deadlines[0], 110);
    /* The think time is still measured and recorded (a clock is read). */
    assert_true(b.asked_ns[0] != 0);
}

static void test_left_abandons(void **state)
{
    /* Seat 1 leaves at its third decision: the match stops there with
     * JA_ESTATE and one line naming the seat, the result says abandoned,
     * and the replay is never put in place. */
    static script_bot a, b;
    script_init(&a, 0, 0, 0);
    script_init(&b, 0, 0, 0);
    b.left_at = 3;
    ref_bot *bots[2] = {&a.base, &b.base};
    ref_match_config cfg;
    config(&cfg, bots, 0, 0, 1);
    char path[] = "/tmp/ja_left_XXXXXX", file[64], err[256];
    assert_non_null(mkdtemp(path));
    snprintf(file, sizeof file, "%s/m.rpl", path);
    ref_replay_writer *rw = NULL;
    assert_int_equal(ref_replay_writer_open(file, &rw, err, sizeof err), JA_OK);
    cfg.replay = &rw;
    ref_match_result res;
    assert_int_equal(ref_match_run(&cfg, &res, err, sizeof err), JA_ESTATE);
    assert_int_equal(res.abandoned, 1);
    assert_int_equal(b.n_asks, 3);
    assert_non_null(strstr(err, "seat 1 (script) left the match at decision"));
    assert_non_null(strstr(err, ": it quit"));
    assert_null(rw);
    FILE *f = fopen(file, "rb");
    assert_null(f);
    assert_int_equal(rmdir(path), 0); /* empty: no temporary file left either */
    /* A match that nobody leaves is not abandoned. */
    b.left_at = 0;
    assert_int_equal(ref_match_run(&cfg, &res, err, sizeof err), JA_OK);
    assert_int_equal(res.abandoned, 0);
}

static void test_ranked_places(void **state)
{
    ja_outcome o = {.n_seats = 4, .place = {1, 2, 3, 4}};
    uint8_t ff[JA_MAX_SEATS] = {1, 0, 0, 0};
    uint32_t p[JA_MAX_SEATS];
    ref_match_ranked_places(&o, ff, 4, p);
    assert_int_equal(p[0], 4);
    assert_int_equal(p[1], 1);
    assert_int_equal(p[2], 2);
    assert_int_equal(p[3], 3);
    /* Ties stay ties; two forfeiters tie for last. */
    ja_outcome t = {.n_seats = 4, .place = {1, 1, 3, 4}};
    uint8_t f2[JA_MAX_SEATS] = {0, 1, 0, 1};
    ref_match_ranked_places(&t, f2, 4, p);
    assert_int_equal(p[0], 1);
    assert_int_equal(p[1], 3);
    assert_int_equal(p[2], 2);
    assert_int_equal(p[3], 3);
    uint8_t none[JA_MAX_SEATS] = {0};
    ref_match_ranked_places(&t, none, 4, p);
    for (int s = 0; s < 4; s++)
        assert_int_equal(p[s], t.place[s]);
    assert_string_equal(ref_on_fault_name(ref_on_fault_parse("random")), "random");
    assert_int_equal(ref_on_fault_parse("sometimes"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_limit_no_judging),
        cmocka_unit_test(test_untimed_asks_read_no_clock),
        cmocka_unit_test(test_bank_pays_then_runs_out),
        cmocka_unit_test(test_bank_alone_flag_falls),
        cmocka_unit_test(test_on_fault_policies),
        cmocka_unit_test(test_ranked_places),
        cmocka_unit_test(test_unlimited_kind),
        cmocka_unit_test(test_left_abandons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
