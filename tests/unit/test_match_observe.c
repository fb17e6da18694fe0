/* ctest-requires-game: taylor */
/* The observations the referee gives its seats when the game updates them
 * incrementally (JA_EXT_OBSERVE_UPDATE), for each game of GAMES below
 * (Taylor Blackjack; Bruise Jack, BrawlJack, Jack in the Box and Bombs
 * when they are built):
 *
 *  - the extension itself: on a zero buffer (a seat never observed) update()
 *    writes the whole observation, byte for byte what observe() writes,
 *    deep into a match (Taylor Blackjack: stock rebuilt, cards known in
 *    hands; Bruise Jack: several showdowns, claims, stands, rows of several
 *    cards; Jack in the Box: a later game, an opened hand or a covered
 *    joker; Bombs: a later hand, with its exchange pairs, of a match of
 *    several tables; all a long event history) and for every seat; for a seat out
 *    of range it leaves the buffer all zeros, as observe() does;
 *  - through the real match loop (ref_match_run, `random` plugin seats):
 *    every observation a seat is given, as the observer (on_step) sees it,
 *    equals observe() of the state the seat was asked in. The matches
 *    include a seat's first question (its buffer zero), questions after
 *    many events (Taylor Blackjack, Jack in the Box, Bombs: more than the ring
 *    holds; Bruise Jack: more than 16, a hand ended since; a full observe
 *    either way) and after
 *    one or two (the incremental path), all three counted and required for
 *    each game;
 *  - observations on demand (ABI 1.3, JA_BOT_OBS_ON_DEMAND): the peek
 *    plugin (plugins/peek.c) reads its observation at about one decision
 *    in three; in the same seeded matches played once with its
 *    observations on demand (every decision handed without one, the
 *    observation made only when it asks, a seat's last one some decisions
 *    old) and once handed them at every decision (an observer checking
 *    each against observe()), it reads the same observations, byte for
 *    byte (their hashes), at the same turns, and the matches have the same
 *    digests;
 *  - Bruise Jack's update across the stock running out, which random play
 *    never reaches: a stacked deck and seats that never stand.
 *
 * Budget: well under a second under ASan. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "match.h"
#include "seat.h"

#include "jackarena/ja_bombs.h"
#include "jackarena/ja_brawljack.h"
#include "jackarena/ja_bruise_jack.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_jack_in_the_box.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_taylor.h"

#include "bot_harness.h"
#include "peek.h"

/* Taylor Blackjack, deep: a public rebuilt stock, cards known in another
 * hand, more events than the ring holds. */
static bool taylor_deep(const void *obs)
{
    const ja_taylor_obs *o = obs;
    if (!o->stock_known || o->stock_count == 0 || o->event_seq <= JA_TAYLOR_EVENTS)
        return false;
    for (int i = 0; i < JA_TAYLOR_MAX_SEATS * 52; i++)
        if (o->known[i])
            return true;
    return false;
}

/* Bruise Jack, deep: past a showdown, claims in this hand (a discard pile),
 * a seat that stood, a row of two cards or more, more events than the ring
 * holds. */
static bool bruise_deep(const void *obs)
{
    const ja_bruise_jack_obs *o = obs;
    if (o->showdowns == 0 || o->discard_count == 0 || o->event_seq <= JA_BRUISE_JACK_EVENTS)
        return false;
    bool stood = false, long_row = false;
    for (int p = 0; p < o->n_seats; p++)
        stood |= o->stood[p] != 0;
    for (int i = 0; i < o->n_seats * JA_BRUISE_JACK_ROWS; i++)
        long_row |= o->up_count[i] >= 2;
    return stood && long_row;
}

/* BrawlJack, deep: a later deal, more hands than the deal began with (a
 * split, or the dealer's), more events than the ring holds. */
static bool brawljack_deep(const void *obs)
{
    const ja_brawljack_obs *o = obs;
    return o->deal > 0 && o->n_hands > 2 * o->n_seats && o->event_seq > JA_BRAWLJACK_EVENTS;
}

/* Jack in the Box, deep: a later game, with cards known in a hand (an
 * opened one) or a joker covered, more events than the ring holds. */
static bool jitb_deep(const void *obs)
{
    const ja_jitb_obs *o = obs;
    if (o->game == 0 || o->event_seq <= JA_JITB_EVENTS)
        return false;
    for (int k = 0; k < JA_JITB_SLOTS; k++)
        if (o->slot_jack[k] != JA_CARD_NONE)
            return true;
    for (int i = 0; i < JA_JITB_MAX_SEATS * 52; i++)
        if (o->known[i])
            return true;
    return false;
}

/* Bombs, deep: a hand after the first (exchange pairs) of a match of
 * several tables, more events than the ring holds. */
static bool bombs_deep(const void *obs)
{
    const ja_bombs_obs *o = obs;
    return o->hand_no > 0 && o->n_tables > 1 && o->table != 0xFF &&
           o->table_master[o->table] != 0xFF && o->event_seq > JA_BOMBS_EVENTS;
}

typedef struct game_case {
    const char *name;
    uint32_t obs_size, seq_at; /* the observation's size, offset of its event_seq */
    /* test_first_update: seats, options, steps between two rounds of
     * updates, what makes an observation deep and how many are required. */
    uint32_t first_n;
    const char *first_kv[5];
    uint32_t stride;
    bool (*deep)(const void *obs);
    uint32_t min_deep;
    /* test_match_observations: three seat counts, two option sets, each
     * played once; a question after more than `far` events is after many,
     * and min_near questions after one or two events are required. */
    uint32_t seats[3];
    const char *match_kv[2][5];
    uint32_t far, min_near;
} game_case;

static const game_case GAMES[] = {
    {.name = "taylor-blackjack",
     .obs_size = sizeof(ja_taylor_obs),
     .seq_at = offsetof(ja_taylor_obs, event_seq),
     .first_n = 4,
     .first_kv = {"games=3", NULL},
     .stride = 40,
     .deep = taylor_deep,
     .min_deep = 10,
     .seats = {2, 5, 12},
     .match_kv = {{"games=2", "rebuild=noshuffle", NULL}, {"games=2", "rebuild=shuffle", NULL}},
     .far = JA_TAYLOR_EVENTS,
     .min_near = 1000},
    /* Long matches with replays of ties, both ways: a question after more
     * than 16 events comes after a hand's end (within a hand, at most 12). */
    {.name = "bruise-jack",
     .obs_size = sizeof(ja_bruise_jack_obs),
     .seq_at = offsetof(ja_bruise_jack_obs, event_seq),
     .first_n = 4,
     .first_kv = {"hands=6", "ties=replay", NULL},
     .stride = 8,
     .deep = bruise_deep,
     .min_deep = 10,
     .seats = {2, 4, 6},
     .match_kv = {{"hands=30", "ties=replay", NULL},
                  {"way=2", "guile=on", "ties=replay", "hands=30", NULL}},
     .far = 16,
     .min_near = 300},
    /* BrawlJack without the virtual dealer (more ties, so more blind
     * rounds and reveals) and with it, played by the auto policy (the
     * dealer's deck and hands). */
    {.name = "brawljack",
     .obs_size = sizeof(ja_brawljack_obs),
     .seq_at = offsetof(ja_brawljack_obs, event_seq),
     .first_n = 4,
     .first_kv = {"dealer=on", "hands=6", NULL},
     .stride = 8,
     .deep = brawljack_deep,
     .min_deep = 10,
     .seats = {2, 5, 8},
     .match_kv = {{"hands=40", NULL}, {"dealer=on", "dealer_control=auto", "hands=40", NULL}},
     .far = JA_BRAWLJACK_EVENTS,
     .min_near = 300},
    /* Teams open hands (4 seats only: test_first_update); four boxes (v3)
     * put the most events between two questions of a seat, past the ring
     * now and then; with one box (standard) a new game's deal comes within
     * a few events. */
    {.name = "jack-in-the-box",
     .obs_size = sizeof(ja_jitb_obs),
     .seq_at = offsetof(ja_jitb_obs, event_seq),
     .first_n = 4,
     .first_kv = {"games=3", "teams=on", "variant=v3", NULL},
     .stride = 40,
     .deep = jitb_deep,
     .min_deep = 10,
     .seats = {2, 3, 4},
     .match_kv = {{"games=4", "variant=v3", NULL}, {"games=4", NULL}},
     .far = JA_JITB_EVENTS,
     .min_near = 500},
    /* Two tables in test_first_update (windows after passes too); the
     * bench's seat counts, one table to four, with windows and without. */
    {.name = "bombs",
     .obs_size = sizeof(ja_bombs_obs),
     .seq_at = offsetof(ja_bombs_obs, event_seq),
     .first_n = 8,
     .first_kv = {"hands=3", "interrupt_after_pass=on", NULL},
     .stride = 80,
     .deep = bombs_deep,
     .min_deep = 10,
     .seats = {3, 4, 20},
     .match_kv = {{"hands=4", NULL}, {"hands=3", "out_of_turn=off", NULL}},
     .far = JA_BOMBS_EVENTS,
     .min_near = 300},
};
#define N_GAMES (sizeof GAMES / sizeof GAMES[0])

/* The game of c and its update; false (with a message) when the engine is
 * not built (JA_ONLY_GAMES); Taylor Blackjack always is (first line). */
static bool game_of(const game_case *c, const ja_game_rules **g, const ja_ext_observe_update **ou)
{
    *g = ja_game_find(c->name);
    if (!*g) {
        assert_string_not_equal(c->name, "taylor-blackjack");
        print_message("%s: not built, skipped\n", c->name);
        return false;
    }
    assert_int_equal((*g)->obs_size, c->obs_size);
    *ou = ja_rules_extension(*g, JA_EXT_OBSERVE_UPDATE);
    assert_non_null(*ou);
    assert_non_null((*ou)->update);
    return true;
}

typedef void check_fn(const game_case *c, const ja_game_rules *g,
                      const ja_ext_observe_update *ou, void *ctx);

/* check for every game of GAMES that is built. */
static void each_game(check_fn *check, void *ctx)
{
    for (size_t k = 0; k < N_GAMES; k++) {
        const ja_game_rules *g;
        const ja_ext_observe_update *ou;
        if (game_of(&GAMES[k], &g, &ou))
            check(&GAMES[k], g, ou, ctx);
    }
}

/* Plays `steps` random legal decisions of st (fewer if the match ends). */
static void play_random(const ja_game_rules *g, void *st, uint32_t steps, ja_rng *r)
{
    ja_action l[JA_MAX_ACTIONS], by[JA_MAX_SEATS];
    for (uint32_t i = 0; i < steps; i++) {
        uint32_t mask = g->to_act(st);
        if (!mask)
            return;
        memset(by, 0, sizeof by);
        for (uint32_t m = mask; m; m &= m - 1) {
            int s = __builtin_ctz(m);
            uint32_t n = g->legal(st, s, l, JA_MAX_ACTIONS);
            assert_true(n > 0);
            by[s] = l[ja_rng_below(r, n)];
        }
        assert_int_equal(g->apply(st, mask, by), JA_OK);
    }
}

/* A seat observed for the first time (zero buffer) gets the whole
 * observation; a seat out of range gets zeros. */
static void first_update(const game_case *c, const ja_game_rules *g,
                         const ja_ext_observe_update *ou, void *ctx)
{
    (void)ctx;
    const uint32_t n = c->first_n;
    ja_options o = make_options(g, n, c->first_kv);
    void *st = malloc(g->state_size);
    unsigned char *got = malloc(g->obs_size), *want = malloc(g->obs_size);
    unsigned char *zero = calloc(1, g->obs_size);
    assert_true(st && got && want && zero);
    ja_rng r;
    ja_rng_seed(&r, 2024);
    uint32_t deep = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        assert_int_equal(g->setup(st, &o, n, seed), JA_OK);
        for (uint32_t round = 0; round < 8 && g->to_act(st); round++) {
            for (uint32_t s = 0; s < n; s++) {
                memset(got, 0, g->obs_size);
                ou->update(st, (int)s, got);
                g->observe(st, (int)s, want);
                assert_memory_equal(got, want, g->obs_size);
                deep += c->deep(want);
            }
            for (int s = -1; s <= (int)n; s += (int)n + 1) {
                memset(got, 0, g->obs_size);
                ou->update(st, s, got);
                assert_memory_equal(got, zero, g->obs_size);
            }
            play_random(g, st, c->stride, &r);
        }
    }
    free(st);
    free(got);
    free(want);
    free(zero);
    print_message("%s: first updates: %u of a deep state\n", g->name, (unsigned)deep);
    assert_true(deep > c->min_deep);
}

static void test_first_update(void **state)
{
    (void)state;
    each_game(first_update, NULL);
}

/* What the observer of the match loop checks. */
typedef struct tally {
    const ja_game_rules *g;
    uint32_t n;
    void *prev;                      /* the state the step was asked in */
    unsigned char *want;             /* observe() of it */
    uint32_t seq_at, far;            /* offset of event_seq, game_case.far */
    uint32_t seen;                   /* bit s: seat s was asked before */
    uint32_t last_seq[JA_MAX_SEATS]; /* event_seq of seat s's last observation */
    uint32_t given, first, gap, near, other;
} tally;

static void on_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    tally *t = ctx;
    for (uint32_t s = 0; s < t->n; s++) {
        if (!((info->observed >> s) & 1u))
            continue;
        const unsigned char *given = info->obs + (size_t)s * g->obs_size;
        g->observe(t->prev, (int)s, t->want);
        if (memcmp(given, t->want, g->obs_size) != 0)
            fail_msg("%s step %u: seat %u was given an observation other than observe()'s",
                     g->name, (unsigned)info->step, (unsigned)s);
        uint32_t seq;
        memcpy(&seq, t->want + t->seq_at, sizeof seq);
        t->given++;
        if (!((t->seen >> s) & 1u))
            t->first++;
        else if (seq - t->last_seq[s] > t->far)
            t->gap++;
        else if (seq - t->last_seq[s] <= 2)
            t->near++;
        else
            t->other++;
        t->seen |= 1u << s;
        t->last_seq[s] = seq;
    }
    memcpy(t->prev, info->state, g->state_size);
}

/* Every observation the match loop gives equals observe() of its state. */
static void match_observations(const game_case *c, const ja_game_rules *g,
                               const ja_ext_observe_update *ou, void *ctx)
{
    (void)ou; /* the match loop finds it */
    bots *b = ctx;
    tally t = {.g = g, .seq_at = c->seq_at, .far = c->far};
    t.prev = malloc(g->state_size);
    t.want = malloc(g->obs_size);
    assert_true(t.prev && t.want);
    char err[512] = "";
    ref_bot *seats[JA_MAX_SEATS];
    uint64_t seed = 500;
    uint32_t seat_sum = 0;
    for (size_t i = 0; i < 3; i++)
        for (int v = 0; v < 2; v++, seed++) {
            const uint32_t n = c->seats[i];
            ja_options o = make_options(g, n, c->match_kv[v]);
            ref_match_config cfg = {.game = g, .options = o, .n_seats = n, .seed = seed,
                                    .match_id = "test-observe"};
            for (uint32_t s = 0; s < n; s++)
                seats[s] = b->random;
            t.n = n;
            t.seen = 0;
            seat_sum += n;
            assert_int_equal(g->setup(t.prev, &o, n, seed), JA_OK);
            ref_match_result res;
            cfg.bots = seats;
            cfg.on_step = on_step;
            cfg.step_ctx = &t;
            if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK)
                fail_msg("%s match (n=%u seed=%llu): %s", g->name, (unsigned)n,
                         (unsigned long long)seed, err);
        }
    free(t.prev);
    free(t.want);
    print_message("%s: observations given: %u (%u first, %u after more than %u events, "
                  "%u after one or two, %u others)\n",
                  g->name, (unsigned)t.given, (unsigned)t.first, (unsigned)t.gap,
                  (unsigned)t.far, (unsigned)t.near, (unsigned)t.other);
    assert_true(t.first >= seat_sum - 2);
    assert_true(t.gap > 0);
    assert_true(t.near > c->min_near);
}

static void test_match_observations(void **state)
{
    each_game(match_observations, *state);
}

/* The peek plugin, loaded as a bot, and its log (peek.h): the same
 * instance of the library the bot runs in (RTLD_NOLOAD). */
typedef struct peek_fixture {
    ref_bot *bot;
    void *dl;
    peek_log *log;
} peek_fixture;

static void peek_open(peek_fixture *p)
{
    const char *dir = getenv("JA_BUILD_DIR");
    if (!dir)
        fail_msg("JA_BUILD_DIR is not set (run this test through ctest)");
    char path[4096], err[1200];
    snprintf(path, sizeof path, "%s/tests/unit/plugins/peek.so", dir);
    if (ref_bot_plugin_open(path, NULL, &p->bot, err, sizeof err) != JA_OK)
        fail_msg("%s", err);
    p->dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(p->dl);
    ja_bot_entry_fn entry = (ja_bot_entry_fn)dlsym(p->dl, JA_BOT_ENTRY_SYMBOL);
    assert_non_null(entry);
    p->log = (peek_log *)entry()->extension(PEEK_LOG_ID);
    assert_non_null(p->log);
}

/* One seeded match of bot at every seat, with its observations on demand
 * (t NULL) or handed at every decision to seats checked by on_step (t);
 * its digest into digest. */
static void play_seeded(const ja_game_rules *g, uint32_t n, const ja_options *o, uint64_t seed,
                        ref_bot *bot, tally *t, uint8_t digest[REF_DIGEST_BYTES])
{
    ref_bot *seats[JA_MAX_SEATS];
    for (uint32_t s = 0; s < n; s++)
        seats[s] = bot;
    ref_match_config cfg = {.game = g, .options = *o, .n_seats = n, .seed = seed,
                            .match_id = "test-on-demand", .bots = seats};
    if (t) {
        t->n = n;
        t->seen = 0;
        assert_int_equal(g->setup(t->prev, o, n, seed), JA_OK);
        cfg.on_step = on_step;
        cfg.step_ctx = t;
    }
    ref_match_result res;
    char err[512] = "";
    if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK)
        fail_msg("%s match (n=%u seed=%llu): %s", g->name, (unsigned)n,
                 (unsigned long long)seed, err);
    memcpy(digest, res.digest, REF_DIGEST_BYTES);
}

/* The same matches with observations on demand and handed: the peek bot
 * reads the same bytes at the same turns; random plays the same matches. */
static void on_demand(const game_case *c, const ja_game_rules *g,
                      const ja_ext_observe_update *ou, void *ctx)
{
    (void)ou;
    peek_fixture *p = ctx;
    peek_log *lg = p->log;
    peek_rec *lazy = malloc(sizeof lg->rec);
    tally t = {.g = g, .seq_at = c->seq_at, .far = c->far};
    t.prev = malloc(g->state_size);
    t.want = malloc(g->obs_size);
    assert_true(lazy && t.prev && t.want);
    uint64_t reads = 0, asked = 0;
    for (size_t i = 0; i < 3; i++) {
        const uint32_t n = c->seats[i];
        const uint64_t seed = 900 + i;
        ja_options o = make_options(g, n, c->match_kv[0]);
        uint8_t d1[REF_DIGEST_BYTES], d2[REF_DIGEST_BYTES];
        memset(lg, 0, sizeof *lg);
        play_seeded(g, n, &o, seed, p->bot, NULL, d1);
        assert_int_equal(lg->handed, 0);
        assert_int_equal(lg->breaches, 0);
        assert_int_equal(lg->overflow, 0);
        const uint32_t n_lazy = lg->n;
        memcpy(lazy, lg->rec, n_lazy * sizeof *lazy);
        asked += lg->on_demand;
        memset(lg, 0, sizeof *lg);
        play_seeded(g, n, &o, seed, p->bot, &t, d2);
        assert_int_equal(lg->on_demand, 0);
        assert_int_equal(lg->breaches, 0);
        assert_memory_equal(d1, d2, REF_DIGEST_BYTES);
        assert_int_equal(lg->n, n_lazy);
        for (uint32_t k = 0; k < n_lazy; k++)
            if (memcmp(&lazy[k], &lg->rec[k], sizeof lazy[k]) != 0)
                fail_msg("%s (n=%u): read %u (seat %d, turn %u) differs on demand", g->name,
                         (unsigned)n, (unsigned)k, (int)lazy[k].seat, (unsigned)lazy[k].turn);
        reads += n_lazy;
    }
    print_message("%s: on demand: %llu observations read in %llu decisions\n", g->name,
                  (unsigned long long)reads, (unsigned long long)asked);
    assert_true(reads > 100 && reads < asked);
    free(lazy);
    free(t.prev);
    free(t.want);
}

static void test_on_demand(void **state)
{
    (void)state;
    peek_fixture p = {0};
    peek_open(&p);
    each_game(on_demand, &p);
    ref_bot_destroy(&p.bot);
    dlclose(p.dl);
}

/* Bruise Jack cards, dearest first: by the sum of their hard values in the
 * three rows, then by id. */
static int bruise_dearer(const void *a, const void *b)
{
    uint8_t x = *(const uint8_t *)a, y = *(const uint8_t *)b;
    int cx = 0, cy = 0;
    for (int r = 0; r < JA_BRUISE_JACK_ROWS; r++) {
        cx += ja_bruise_jack_hard(x, r);
        cy += ja_bruise_jack_hard(y, r);
    }
    return cx != cy ? cy - cx : x - y;
}

/* Bruise Jack: the update across the stock running out (spec #22), which
 * random play never reaches. Six seats, Way 2; the first hand is dealt
 * (test_deal) with the six dearest cards as centres, as each row's up cards
 * the dearest cards wild in that row (worth 1 there), and the stock
 * cheapest first. The seats never stand and place each card where it is
 * worth least, so the rows fill slowly and the stock empties. Each seat's
 * buffer is brought up to date every (seat + 1) steps and compared with
 * observe(), through the second hand to the end. */
static void test_bruise_stock_out(void **state)
{
    (void)state;
    const game_case *c = &GAMES[1];
    const ja_game_rules *g;
    const ja_ext_observe_update *ou;
    if (!game_of(c, &g, &ou))
        return;
    const ja_ext_test_deal *td = ja_rules_extension(g, JA_EXT_TEST_DEAL);
    assert_non_null(td);
    const uint32_t n = 6;
    const char *kv[] = {"way=2", "hands=2", NULL};
    ja_options o = make_options(g, n, kv);
    void *st = malloc(g->state_size);
    ja_bruise_jack_obs *buf = calloc(n, sizeof *buf), want;
    assert_true(st && buf);
    assert_int_equal(g->setup(st, &o, n, 7), JA_OK);

    /* The deck, top first: six centres, six up cards per row, the stock. */
    uint8_t sorted[JA_BRUISE_JACK_CARDS], deck[JA_BRUISE_JACK_CARDS];
    bool used[JA_BRUISE_JACK_CARDS] = {false};
    for (int i = 0; i < JA_BRUISE_JACK_CARDS; i++)
        sorted[i] = (uint8_t)i;
    qsort(sorted, JA_BRUISE_JACK_CARDS, 1, bruise_dearer);
    int top = 0;
    for (int row = -1; row < JA_BRUISE_JACK_ROWS; row++) /* -1: the centres */
        for (int i = 0, taken = 0; taken < (int)n; i++) {
            const uint8_t card = sorted[i];
            if (used[card] || (row >= 0 && ja_bruise_jack_level(card, row) != JA_BRUISE_JACK_WILD))
                continue;
            used[card] = true;
            deck[top++] = card;
            taken++;
        }
    for (int i = JA_BRUISE_JACK_CARDS - 1; i >= 0; i--)
        if (!used[sorted[i]])
            deck[top++] = sorted[i];
    assert_int_equal(td->test_deal(st, 0, deck, JA_BRUISE_JACK_CARDS), JA_OK);

    bool stock_out = false;
    ja_action l[JA_MAX_ACTIONS];
    for (uint32_t step = 0;; step++) {
        const uint32_t mask = g->to_act(st);
        for (uint32_t s = 0; s < n; s++) {
            if (mask && step % (s + 1) != 0)
                continue;
            ou->update(st, (int)s, &buf[s]);
            g->observe(st, (int)s, &want);
            if (memcmp(&buf[s], &want, sizeof want) != 0)
                fail_msg("step %u: seat %u's update differs from observe()", (unsigned)step,
                         (unsigned)s);
            for (int i = 0; i < JA_BRUISE_JACK_EVENTS; i++)
                stock_out |= want.ev_seq[i] && want.ev_kind[i] == JA_BRUISE_JACK_EV_STOCK_OUT;
        }
        if (!mask)
            break;
        /* HIT whenever legal (it comes first); a card goes to the open row
         * where it is worth least, the one showing least on a tie. */
        const int p = __builtin_ctz(mask);
        const uint32_t k = g->legal(st, p, l, JA_MAX_ACTIONS);
        assert_true(k > 0);
        ja_action a = l[0];
        g->observe(st, p, &want);
        for (uint32_t i = 1; i < k && want.stage == JA_BRUISE_JACK_STAGE_PLACE; i++) {
            const int r = (int)(l[i].code - JA_BRUISE_JACK_PLACE(0));
            const int ra = (int)(a.code - JA_BRUISE_JACK_PLACE(0));
            const int d = ja_bruise_jack_hard(want.drawn, r) - ja_bruise_jack_hard(want.drawn, ra);
            if (d < 0 || (d == 0 && want.shown[p * JA_BRUISE_JACK_ROWS + r] <
                                        want.shown[p * JA_BRUISE_JACK_ROWS + ra]))
                a = l[i];
        }
        ja_action by[JA_MAX_SEATS] = {{0}};
        by[p] = a;
        assert_int_equal(g->apply(st, mask, by), JA_OK);
    }
    free(st);
    free(buf);
    assert_true(stock_out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_update),
        cmocka_unit_test(test_match_observations),
        cmocka_unit_test(test_on_demand),
        cmocka_unit_test(test_bruise_stock_out),
    };
    return cmocka_run_group_tests(tests, setup_bots, teardown_bots);
}
