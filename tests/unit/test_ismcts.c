/* Unit tests of the `ismcts` reference bot (bots/ismcts), loaded as a plugin
 * from $JA_BUILD_DIR/bots/ja_ismcts.so with its parameters
 * (ref_bot_plugin_open -> ja_host_api.params), exactly as the arena
 * loads `ismcts:iters=16`, and played through the real match loop:
 *
 *  - legality: whole matches of every game and every variant option (Taylor
 *    last_card/rebuild/decks, BrawlJack's dealer, Bruise Jack's way, guile
 *    and ties, Jack in the Box's layouts and teams, Bombs' windows and
 *    tables), ismcts next to random and ismcts at every seat (so that the
 *    joint decisions of Bombs' windows ask several ismcts seats at once),
 *    greedy playouts too: no fault, ever;
 *  - determinism: the same seed and iteration budget give the same digest;
 *  - the root anchor: with anchor=10 and 16 iterations no root statistics can
 *    overrule greedy, so ismcts plays greedy's match move for move in every
 *    game; with anchor=0 (off) it departs from greedy somewhere;
 *  - the paired rollout test (verify=K): legal and deterministic in every
 *    case, the same match as greedy when it has fewer pairs than it needs to
 *    decide, and with anchor=0 (any positive mean wins) it departs from
 *    greedy somewhere;
 *  - the budgets: steps=N ends the search, the search is skipped where the
 *    paired test takes every action, early stopping is deterministic;
 *  - the paired test's futility threshold (drop=X): deterministic, auto
 *    is each game's value, and it changes what is played;
 *  - informed determinizations (infer=N, Bruise Jack): deterministic, auto
 *    is the game's value, one try is a uniform sample, more change what is
 *    played; refused in a game without them;
 *  - Bruise Jack's playout rule (stride=N): auto is stride=7, stride=1
 *    (greedy itself) is deterministic and plays another match; refused in
 *    a game without it;
 *  - the playouts' horizon (Bruise Jack): horizon=hand is deterministic,
 *    plays horizon=match's match when the hand is the match's last, and
 *    another match when later hands are valued instead of played; refused
 *    in a game without it;
 *  - parameters: a bad parameter makes the seat refuse with the bot's reason
 *    logged, and the parameters are part of the bot's version (identity);
 *  - the forward-model example (sdk/examples/flat_mc.c, docs/forward-model.md)
 *    plays every game without a fault.
 *
 * Small budgets (16 iterations, short matches) keep it to seconds under ASan. */
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

#include "bot_harness.h"

static ref_bot *open_params(const char *file, const char *params)
{
    const char *dir = getenv("JA_BUILD_DIR");
    if (!dir)
        fail_msg("JA_BUILD_DIR is not set (run this test through ctest)");
    char path[4096], err[1200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ref_bot *b = NULL;
    if (ref_bot_plugin_open(path, params, &b, err, sizeof err) != JA_OK)
        fail_msg("%s", err);
    return b;
}

/* One case: a game, a seat count and its options. */
typedef struct mcase {
    const char *game;
    uint32_t seats;
    const char *opts[5];
} mcase;

static const mcase CASES[] = {
    {"taylor-blackjack", 2, {"games=1", "turn_cap=80"}},
    {"taylor-blackjack", 3, {"games=1", "last_card=auto", "turn_cap=80"}},
    {"taylor-blackjack", 3, {"games=1", "rebuild=shuffle", "turn_cap=80"}},
    {"taylor-blackjack", 6, {"games=1", "decks=2", "turn_cap=60"}},
    {"brawljack", 2, {"hands=1"}},
    {"brawljack", 3, {"hands=1", "dealer=on"}},
    {"brawljack", 3, {"hands=1", "dealer=on", "dealer_control=auto"}},
    {"brawljack", 8, {"hands=1"}},
    {"bruise-jack", 2, {"hands=1"}},
    {"bruise-jack", 3, {"hands=1", "way=2"}},
    {"bruise-jack", 3, {"hands=1", "guile=on"}},
    {"bruise-jack", 2, {"hands=2", "way=2", "guile=on", "ties=replay"}},
    {"bruise-jack", 6, {"hands=1"}},
    {"jack-in-the-box", 2, {"games=1"}},
    {"jack-in-the-box", 3, {"games=1", "variant=v1"}},
    {"jack-in-the-box", 3, {"games=1", "variant=v2"}},
    {"jack-in-the-box", 4, {"games=1", "variant=v3"}},
    {"jack-in-the-box", 4, {"games=1", "teams=on"}},
    {"bombs", 3, {"hands=1"}},
    {"bombs", 3, {"hands=1", "out_of_turn=off"}},
    {"bombs", 4, {"hands=1", "interrupt_after_pass=on"}},
    {"bombs", 6, {"hands=1", "tables=2"}},
};

/* Plays one match: bots[s] at seat s. Fails on any fault. */
static void play(const ja_game_rules *g, uint32_t n, const char *const *opts, uint64_t seed,
                 ref_bot *const *seat_bots, ref_match_result *res)
{
    ref_match_config cfg = {.game = g, .options = make_options(g, n, opts), .n_seats = n,
                            .seed = seed, .match_id = "test-ismcts"};
    char err[512] = "";
    cfg.bots = seat_bots;
    if (ref_match_run(&cfg, res, err, sizeof err) != JA_OK)
        fail_msg("%s (%u seats, seed %llu): %s", g->name, (unsigned)n, (unsigned long long)seed,
                 err);
    for (uint32_t s = 0; s < n; s++)
        if (res->faults[s])
            fail_msg("%s (%u seats, seed %llu): seat %u (%s) faulted %u times", g->name,
                     (unsigned)n, (unsigned long long)seed, (unsigned)s,
                     ref_bot_get_info(seat_bots[s])->name, (unsigned)res->faults[s]);
}

static void test_legal_everywhere(void **state)
{
    bots *b = *state;
    ref_bot *ism = open_params("bots/ja_ismcts.so", "iters=16:verify=0");
    ref_bot *ism_greedy =
        open_params("bots/ja_ismcts.so", "iters=8:rollout=greedy:nodes=16:verify=0");
    uint32_t matches = 0, asked = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const mcase *c = &CASES[i];
        const ja_game_rules *g = ja_game_find(c->game);
        if (!g)
            continue; /* compiled out */
        for (int pattern = 0; pattern < 3; pattern++) {
            ref_bot *seats[JA_MAX_SEATS];
            for (uint32_t s = 0; s < c->seats; s++)
                seats[s] = pattern == 0 ? (s == 0 ? ism : b->random)
                         : pattern == 1 ? ism
                                        : (s % 2 ? b->greedy : ism_greedy);
            ref_match_result res;
            play(g, c->seats, c->opts, 100 + i * 3 + (uint64_t)pattern, seats, &res);
            matches++;
            asked += res.asked;
        }
    }
    printf("ismcts: %u matches, %u decisions asked, no fault\n", matches, asked);
    assert_true(matches >= 15);
    ref_bot_destroy(&ism);
    ref_bot_destroy(&ism_greedy);
}

static void test_deterministic(void **state)
{
    (void)state;
    ref_bot *ism = open_params("bots/ja_ismcts.so", "iters=24:verify=0");
    for (int i = 0; ja_games[i]; i++) {
        const ja_game_rules *g = ja_games[i];
        const mcase *c = NULL;
        for (size_t k = 0; k < sizeof CASES / sizeof CASES[0] && !c; k++)
            if (strcmp(CASES[k].game, g->name) == 0)
                c = &CASES[k];
        if (!c)
            fail_msg("no test case for game %s", g->name);
        uint32_t n = c->seats < 3 && g->max_seats >= 3 ? 3 : c->seats;
        ref_bot *seats[JA_MAX_SEATS];
        for (uint32_t s = 0; s < n; s++)
            seats[s] = ism;
        ref_match_result r1, r2, r3;
        play(g, n, c->opts, 7, seats, &r1);
        play(g, n, c->opts, 7, seats, &r2);
        play(g, n, c->opts, 8, seats, &r3);
        if (memcmp(r1.digest, r2.digest, sizeof r1.digest) != 0)
            fail_msg("%s: the same seed and budget gave two different matches", g->name);
        assert_memory_not_equal(r1.digest, r3.digest, sizeof r1.digest);
    }
    ref_bot_destroy(&ism);
}

/* Parameters the bot refuses: JA_EINVAL at load (its check_params, ABI
 * 1.2), with its reason alone in err. */
static void refused(const char *params, const char *why)
{
    char path[4096], err[1200] = "";
    snprintf(path, sizeof path, "%s/bots/ja_ismcts.so", getenv("JA_BUILD_DIR"));
    ref_bot *b = NULL;
    assert_int_equal(ref_bot_plugin_open(path, params, &b, err, sizeof err), JA_EINVAL);
    assert_null(b);
    if (!strstr(err, why))
        fail_msg("'%s': '%s' does not say '%s'", params, err, why);
}

/* params, which BrawlJack does not have, make its seat refuse to open. */
static void refused_in_brawljack(const char *params)
{
    const ja_game_rules *g = ja_game_find("brawljack");
    if (!g)
        skip();
    ref_bot *no = open_params("bots/ja_ismcts.so", params);
    ref_seat_ctx sc = {.game = g, .seat = 0, .n_seats = 2, .match_seed = 1, .match_id = ""};
    ref_seat *seat = NULL;
    char err[256] = "";
    assert_int_not_equal(ref_seat_open(no, &sc, &seat, err, sizeof err), JA_OK);
    assert_null(seat);
    ref_bot_destroy(&no);
}

static void test_params(void **state)
{
    (void)state;
    ref_bot *a = open_params("bots/ja_ismcts.so", "iters=16");
    ref_bot *none = open_params("bots/ja_ismcts.so", NULL);
    assert_string_equal(ref_bot_get_info(a)->name, "ismcts");
    assert_string_equal(ref_bot_get_info(a)->version, "1.5:iters=16");
    assert_string_equal(ref_bot_get_info(none)->version, "1.5");
    const ja_game_rules *g = ja_game_find("taylor-blackjack");
    ref_seat_ctx sc = {.game = g, .seat = 0, .n_seats = 2, .match_seed = 1, .match_id = ""};
    ref_seat *seat = NULL;
    char err[256] = "";
    assert_int_equal(ref_seat_open(a, &sc, &seat, err, sizeof err), JA_OK);
    ref_seat_close(&seat);
    refused("iters=0", "parameter 'iters' must be auto or an integer from 1 to 10000000, not '0'");
    refused("iterz=5", "unknown parameter 'iterz' (known: iters, ms, c, nodes, rollout, anchor, "
                       "verify, early, steps, horizon, drop, infer, stride)");
    refused("early=yes", "parameter 'early'");
    refused("horizon=turn", "parameter 'horizon'");
    refused("steps=-1", "parameter 'steps' must be auto or an integer from 0 to 1000000000");
    /* Too long to be a specifier's parameters. */
    char longp[400];
    memset(longp, 'x', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    refused(longp, "parameters too long (at most 255 bytes)");
    ref_bot_destroy(&a);
    ref_bot_destroy(&none);
    /* anchor: auto or a number from 0 to 10; verify: auto or 0 to 100000. */
    const char *ok[] = {"anchor=auto", "anchor=0", "anchor=2.5:iters=4", "verify=auto:iters=4",
                        "verify=0", "verify=3:iters=4", "ms=5:c=0:rollout=greedy:nodes=16",
                        "iters=auto", "steps=0", "steps=auto:iters=4", "iters=9:steps=100",
                        "early=off", "early=on:verify=3", "horizon=auto", "horizon=match",
                        "drop=auto", "drop=0", "drop=2.5:verify=3", "infer=auto", "infer=0", "stride=auto"};
    const char *no[] = {"anchor=11", "anchor=-1", "anchor=", "anchor=x", "verify=-1",
                        "verify=100001", "verify=", "verify=x", "drop=-0.5", "drop=10.5",
                        "drop=", "drop=x", "infer=-1", "infer=65", "infer=", "infer=2.5", "stride=0",
                        "stride=8", "stride=x"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ref_bot *k = open_params("bots/ja_ismcts.so", ok[i]);
        assert_int_equal(ref_seat_open(k, &sc, &seat, err, sizeof err), JA_OK);
        ref_seat_close(&seat);
        ref_bot_destroy(&k);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        refused(no[i], strncmp(no[i], "anchor", 6) == 0
                           ? "parameter 'anchor' must be auto or a number from 0 to 10"
                       : strncmp(no[i], "drop", 4) == 0
                           ? "parameter 'drop' must be auto or a number from 0 to 10"
                       : strncmp(no[i], "infer", 5) == 0
                           ? "parameter 'infer' must be auto or an integer from 0 to 64"
                       : strncmp(no[i], "stride", 6) == 0
                           ? "parameter 'stride' must be auto or an integer from 1 to 7"
                           : "parameter 'verify' must be auto or an integer from 0 to 100000");
}

/* Plays game case c with `bot` on seat 0 and random elsewhere. */
static void play_case(const mcase *c, ref_bot *bot, ref_bot *other, uint64_t seed,
                      ref_match_result *res)
{
    const ja_game_rules *g = ja_game_find(c->game);
    ref_bot *seats[JA_MAX_SEATS];
    for (uint32_t s = 0; s < c->seats; s++)
        seats[s] = s == 0 ? bot : other;
    play(g, c->seats, c->opts, seed, seats, res);
}

/* The root anchor: with 16 iterations, the standard error of any two root
 * children is above 1/10 of a reward, so anchor=10 never overrules greedy
 * and the match is greedy's, move for move (the digest covers every
 * action); anchor=0 plays the search's own choice, which must differ from
 * greedy's somewhere, or the test could not tell the anchor from nothing. */
static void test_anchor(void **state)
{
    bots *b = *state;
    ref_bot *held = open_params("bots/ja_ismcts.so", "iters=16:anchor=10:verify=0");
    ref_bot *off = open_params("bots/ja_ismcts.so", "iters=16:anchor=0:verify=0");
    int differ = 0;
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        if (!ja_game_find(CASES[k].game))
            continue;
        ref_match_result rg, rh, ro;
        play_case(&CASES[k], b->greedy, b->random, 11, &rg);
        play_case(&CASES[k], held, b->random, 11, &rh);
        play_case(&CASES[k], off, b->random, 11, &ro);
        if (memcmp(rg.digest, rh.digest, sizeof rg.digest) != 0)
            fail_msg("%s (case %zu): ismcts:anchor=10 did not play greedy's match", CASES[k].game,
                     k);
        differ += memcmp(rg.digest, ro.digest, sizeof rg.digest) != 0;
    }
    assert_true(differ > 0);
    ref_bot_destroy(&held);
    ref_bot_destroy(&off);
}

/* The paired rollout test (verify=K). In the first case of every game (its
 * greedy playouts make it the slowest test here), with ismcts on seat 0
 * and greedy elsewhere: verify=30 (the fewest pairs the test decides on) is
 * legal and deterministic; verify=29 never has the pairs to depart, so it
 * plays greedy's match move for move; with anchor=0 any positive mean
 * departs, which must happen somewhere, or this test could not tell the
 * paired test from nothing. */
static void test_verify(void **state)
{
    bots *b = *state;
    ref_bot *v = open_params("bots/ja_ismcts.so", "iters=16:verify=30");
    ref_bot *few = open_params("bots/ja_ismcts.so", "iters=16:verify=29:anchor=0");
    ref_bot *any = open_params("bots/ja_ismcts.so", "iters=16:verify=30:anchor=0");
    int differ = 0;
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        if (!ja_game_find(CASES[k].game) ||
            (k > 0 && strcmp(CASES[k].game, CASES[k - 1].game) == 0))
            continue;
        ref_match_result rg, r1, r2, rf, ra;
        play_case(&CASES[k], b->greedy, b->greedy, 13, &rg);
        play_case(&CASES[k], v, b->greedy, 13, &r1);
        play_case(&CASES[k], v, b->greedy, 13, &r2);
        play_case(&CASES[k], few, b->greedy, 13, &rf);
        play_case(&CASES[k], any, b->greedy, 13, &ra);
        if (memcmp(r1.digest, r2.digest, sizeof r1.digest) != 0)
            fail_msg("%s (case %zu): ismcts:verify=30 gave two matches for one seed",
                     CASES[k].game, k);
        if (memcmp(rg.digest, rf.digest, sizeof rg.digest) != 0)
            fail_msg("%s (case %zu): ismcts:verify=29 departed from greedy", CASES[k].game, k);
        differ += memcmp(rg.digest, ra.digest, sizeof rg.digest) != 0;
    }
    assert_true(differ > 0);
    ref_bot_destroy(&v);
    ref_bot_destroy(&few);
    ref_bot_destroy(&any);
}

/* The budgets (version 1.3), in the first case of every game with ismcts
 * on seat 0 and greedy elsewhere:
 *  - steps=1 stops the search after its first iteration (any iteration
 *    takes an engine step), so with iters=1000 it plays iters=1's match;
 *  - where the paired test is on and a decision has at most 4 legal
 *    actions, every one is tested and the search is skipped, so in Bruise
 *    Jack (3 actions at most) the iterations change nothing;
 *  - early stopping (early=on, the default) is deterministic, and its
 *    matches are legal (in the games where the paired test is on by
 *    default: every game but Bombs since version 1.4).
 * And the defaults (iters=auto, steps=auto, verify=auto) are deterministic
 * and legal in every game. */
static void test_budgets(void **state)
{
    bots *b = *state;
    ref_bot *one = open_params("bots/ja_ismcts.so", "iters=1:verify=0");
    ref_bot *step = open_params("bots/ja_ismcts.so", "iters=1000:steps=1:verify=0");
    ref_bot *few = open_params("bots/ja_ismcts.so", "iters=1:verify=60");
    ref_bot *many = open_params("bots/ja_ismcts.so", "iters=400:verify=60");
    ref_bot *early = open_params("bots/ja_ismcts.so", "iters=16:verify=90:early=on");
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        if (!ja_game_find(CASES[k].game) ||
            (k > 0 && strcmp(CASES[k].game, CASES[k - 1].game) == 0))
            continue;
        ref_match_result r1, r2, r3;
        play_case(&CASES[k], one, b->greedy, 17, &r1);
        play_case(&CASES[k], step, b->greedy, 17, &r2);
        if (memcmp(r1.digest, r2.digest, sizeof r1.digest) != 0)
            fail_msg("%s: steps=1 searched more than one iteration", CASES[k].game);
        if (strcmp(CASES[k].game, "bruise-jack") == 0) {
            play_case(&CASES[k], few, b->greedy, 17, &r1);
            play_case(&CASES[k], many, b->greedy, 17, &r2);
            if (memcmp(r1.digest, r2.digest, sizeof r1.digest) != 0)
                fail_msg("bruise-jack: the search ran where the paired test takes every action");
        }
        if (strcmp(CASES[k].game, "bombs") == 0)
            continue; /* greedy playouts too slow there under ASan: verify is off by default */
        play_case(&CASES[k], early, b->greedy, 19, &r1);
        play_case(&CASES[k], early, b->greedy, 19, &r2);
        play_case(&CASES[k], early, b->greedy, 20, &r3);
        if (memcmp(r1.digest, r2.digest, sizeof r1.digest) != 0)
            fail_msg("%s: early=on gave two matches for one seed", CASES[k].game);
        assert_memory_not_equal(r1.digest, r3.digest, sizeof r1.digest);
    }
    ref_bot_destroy(&one);
    ref_bot_destroy(&step);
    ref_bot_destroy(&few);
    ref_bot_destroy(&many);
    ref_bot_destroy(&early);
}

/* The paired test's futility threshold (drop=X, version 1.5), Bruise Jack
 * with ismcts on seat 0 and greedy on seat 1, at most 300 pairs and
 * anchor=0 (any positive mean departs from greedy, so how long a candidate
 * is kept decides):
 *  - drop=X is deterministic;
 *  - drop=auto plays drop=1's match in BrawlJack (its default) and
 *    DROP_BRUISE_JACK's in Bruise Jack;
 *  - drop=0 (a candidate at or below zero is dropped at the first look)
 *    and drop=10 (almost never dropped) play different matches: a
 *    candidate behind greedy's answer after 30 pairs and ahead of it after
 *    300 must be met somewhere, or this test could not tell the threshold
 *    from nothing. */
#define DROP_BJ_TEXT "1" /* Bruise Jack's drop=auto: DROP_BRUISE_JACK in ismcts.c */
static void test_drop(void **state)
{
    bots *b = *state;
    if (!ja_game_find("bruise-jack") || !ja_game_find("brawljack"))
        skip();
    ref_bot *lo = open_params("bots/ja_ismcts.so", "verify=300:anchor=0:drop=0");
    ref_bot *hi = open_params("bots/ja_ismcts.so", "verify=300:anchor=0:drop=10");
    ref_bot *au = open_params("bots/ja_ismcts.so", "verify=300:anchor=0");
    ref_bot *bj = open_params("bots/ja_ismcts.so", "verify=300:anchor=0:drop=" DROP_BJ_TEXT);
    const mcase four = {"bruise-jack", 2, {"hands=4"}};
    ref_match_result r1, r2, r3;
    play_case(&four, hi, b->greedy, 29, &r1);
    play_case(&four, hi, b->greedy, 29, &r2);
    if (memcmp(r1.digest, r2.digest, sizeof r1.digest) != 0)
        fail_msg("bruise-jack: drop=10 gave two matches for one seed");
    play_case(&four, lo, b->greedy, 29, &r2);
    assert_memory_not_equal(r1.digest, r2.digest, sizeof r1.digest);
    play_case(&four, au, b->greedy, 29, &r1);
    play_case(&four, bj, b->greedy, 29, &r3);
    if (memcmp(r1.digest, r3.digest, sizeof r1.digest) != 0)
        fail_msg("bruise-jack: drop=auto is not drop=" DROP_BJ_TEXT);
    ref_bot_destroy(&bj);
    bj = open_params("bots/ja_ismcts.so", "iters=16:verify=300:anchor=0:drop=1");
    ref_bot_destroy(&au);
    au = open_params("bots/ja_ismcts.so", "iters=16:verify=300:anchor=0");
    const mcase brawl = {"brawljack", 2, {"hands=1"}};
    play_case(&brawl, au, b->greedy, 29, &r1);
    play_case(&brawl, bj, b->greedy, 29, &r3);
    if (memcmp(r1.digest, r3.digest, sizeof r1.digest) != 0)
        fail_msg("brawljack: drop=auto is not drop=1");
    ref_bot_destroy(&lo);
    ref_bot_destroy(&hi);
    ref_bot_destroy(&au);
    ref_bot_destroy(&bj);
}

/* Informed determinizations (infer=N, version 1.5), Bruise Jack with
 * ismcts on seat 0 and greedy on seat 1, the paired test with anchor=0
 * (any positive mean departs from greedy, so which determinizations the
 * pairs are played on decides):
 *  - infer=N is deterministic;
 *  - infer=auto plays INFER_BJ_TEXT's match (INFER_BRUISE_JACK in ismcts.c);
 *  - infer=1 (the first try always kept) plays infer=0's match (uniform);
 *  - infer=16 plays another: a greedy opponent's hits, stands and rows must
 *    rule out some centres somewhere, or the weights would be doing nothing;
 *  - infer=4 in a game without them (BrawlJack) is refused when the seat
 *    opens. */
#define INFER_BJ_TEXT "0" /* Bruise Jack's infer=auto: INFER_BRUISE_JACK in ismcts.c */
static void test_infer(void **state)
{
    bots *b = *state;
    if (!ja_game_find("bruise-jack"))
        skip();
    ref_bot *off = open_params("bots/ja_ismcts.so", "verify=60:anchor=0:infer=0");
    ref_bot *one = open_params("bots/ja_ismcts.so", "verify=60:anchor=0:infer=1");
    ref_bot *au = open_params("bots/ja_ismcts.so", "verify=60:anchor=0");
    ref_bot *bj = open_params("bots/ja_ismcts.so", "verify=60:anchor=0:infer=" INFER_BJ_TEXT);
    ref_bot *on = open_params("bots/ja_ismcts.so", "verify=60:anchor=0:infer=16");
    const mcase four = {"bruise-jack", 2, {"hands=4"}};
    ref_match_result r1, r2, r3;
    play_case(&four, on, b->greedy, 37, &r1);
    play_case(&four, on, b->greedy, 37, &r2);
    if (memcmp(r1.digest, r2.digest, sizeof r1.digest) != 0)
        fail_msg("bruise-jack: infer=16 gave two matches for one seed");
    play_case(&four, off, b->greedy, 37, &r2);
    assert_memory_not_equal(r1.digest, r2.digest, sizeof r1.digest);
    play_case(&four, one, b->greedy, 37, &r3);
    if (memcmp(r2.digest, r3.digest, sizeof r2.digest) != 0)
        fail_msg("bruise-jack: infer=1 is not infer=0");
    play_case(&four, au, b->greedy, 37, &r1);
    play_case(&four, bj, b->greedy, 37, &r3);
    if (memcmp(r1.digest, r3.digest, sizeof r1.digest) != 0)
        fail_msg("bruise-jack: infer=auto is not infer=" INFER_BJ_TEXT);
    ref_bot_destroy(&off);
    ref_bot_destroy(&one);
    ref_bot_destroy(&au);
    ref_bot_destroy(&bj);
    ref_bot_destroy(&on);
    refused_in_brawljack("infer=4");
}

/* Bruise Jack's playout rule (stride=N), ismcts on seat 0 and greedy on
 * seat 1, the paired test with anchor=0 (any positive mean departs from
 * greedy, so the playouts' values decide):
 *  - stride=auto plays stride=7's match (greedy_bruise_jack_fast_act);
 *  - stride=1 (greedy itself in the playouts) is deterministic and plays
 *    another match: every unseen card weighed must change some value;
 *  - stride=3 in a game without it (BrawlJack) is refused when the seat
 *    opens. */
static void test_stride(void **state)
{
    bots *b = *state;
    if (!ja_game_find("bruise-jack"))
        skip();
    ref_bot *au = open_params("bots/ja_ismcts.so", "verify=60:anchor=0");
    ref_bot *s7 = open_params("bots/ja_ismcts.so", "verify=60:anchor=0:stride=7");
    ref_bot *s1 = open_params("bots/ja_ismcts.so", "verify=60:anchor=0:stride=1");
    const mcase four = {"bruise-jack", 2, {"hands=4"}};
    ref_match_result r1, r2;
    play_case(&four, au, b->greedy, 41, &r1);
    play_case(&four, s7, b->greedy, 41, &r2);
    if (memcmp(r1.digest, r2.digest, sizeof r1.digest) != 0)
        fail_msg("bruise-jack: stride=auto is not stride=7");
    play_case(&four, s1, b->greedy, 41, &r1);
    play_case(&four, s1, b->greedy, 41, &r2);
    if (memcmp(r1.digest, r2.digest, sizeof r1.digest) != 0)
        fail_msg("bruise-jack: stride=1 gave two matches for one seed");
    play_case(&four, s7, b->greedy, 41, &r2);
    assert_memory_not_equal(r1.digest, r2.digest, sizeof r1.digest);
    ref_bot_destroy(&au);
    ref_bot_destroy(&s7);
    ref_bot_destroy(&s1);
    refused_in_brawljack("stride=3");
}

/* The playouts' horizon (version 1.4), Bruise Jack with ismcts on seat 0
 * and greedy on seat 1, the paired test with anchor=0 (any positive mean
 * departs from greedy, so the values the playouts bring back decide):
 *  - horizon=hand is deterministic;
 *  - in a match of one hand, every playout ends with the match, at the end
 *    of that hand: horizon=hand plays horizon=match's match;
 *  - in a match of 4 hands, the later hands are valued instead of played,
 *    which must change some decision;
 *  - Taylor Blackjack, whose hand is a game: with games=1 horizon=hand
 *    plays horizon=match's match (no playout reaches another game), with
 *    games=2 it is deterministic and plays another;
 *  - Jack in the Box, whose hand is a game too: with games=1 horizon=hand
 *    plays horizon=match's match, with games=2 (the last game valued from
 *    the score) it is deterministic and plays another; horizon=auto plays
 *    HORIZON_JITB_AUTO_HAND's match;
 *  - horizon=hand in a game without a value for the rest (BrawlJack) is
 *    refused when the seat opens. */
#define HORIZON_JITB_AUTO_HAND 1 /* Jack in the Box's horizon=auto: HAND_AUTO_JITB in ismcts.c */
static void test_horizon(void **state)
{
    bots *b = *state;
    if (!ja_game_find("bruise-jack"))
        skip();
    ref_bot *hand = open_params("bots/ja_ismcts.so", "verify=60:anchor=0:horizon=hand");
    ref_bot *match = open_params("bots/ja_ismcts.so", "verify=60:anchor=0:horizon=match");
    const mcase one = {"bruise-jack", 2, {"hands=1"}}, four = {"bruise-jack", 2, {"hands=4"}};
    ref_match_result rh, rh2, rm;
    play_case(&one, hand, b->greedy, 23, &rh);
    play_case(&one, match, b->greedy, 23, &rm);
    if (memcmp(rh.digest, rm.digest, sizeof rh.digest) != 0)
        fail_msg("bruise-jack, one hand: horizon=hand did not play horizon=match's match");
    play_case(&four, hand, b->greedy, 23, &rh);
    play_case(&four, hand, b->greedy, 23, &rh2);
    play_case(&four, match, b->greedy, 23, &rm);
    if (memcmp(rh.digest, rh2.digest, sizeof rh.digest) != 0)
        fail_msg("bruise-jack: horizon=hand gave two matches for one seed");
    assert_memory_not_equal(rh.digest, rm.digest, sizeof rh.digest);
    ref_bot_destroy(&hand);
    ref_bot_destroy(&match);
    /* Taylor Blackjack, short games (turn_cap), a small search. */
    hand = open_params("bots/ja_ismcts.so", "iters=20:verify=30:anchor=0:horizon=hand");
    match = open_params("bots/ja_ismcts.so", "iters=20:verify=30:anchor=0:horizon=match");
    const mcase t1 = {"taylor-blackjack", 2, {"games=1", "turn_cap=12"}},
                t2 = {"taylor-blackjack", 2, {"games=2", "turn_cap=12"}};
    play_case(&t1, hand, b->greedy, 5, &rh);
    play_case(&t1, match, b->greedy, 5, &rm);
    if (memcmp(rh.digest, rm.digest, sizeof rh.digest) != 0)
        fail_msg("taylor-blackjack, one game: horizon=hand did not play horizon=match's match");
    play_case(&t2, hand, b->greedy, 5, &rh);
    play_case(&t2, hand, b->greedy, 5, &rh2);
    play_case(&t2, match, b->greedy, 5, &rm);
    if (memcmp(rh.digest, rh2.digest, sizeof rh.digest) != 0)
        fail_msg("taylor-blackjack: horizon=hand gave two matches for one seed");
    assert_memory_not_equal(rh.digest, rm.digest, sizeof rh.digest);
    ref_bot_destroy(&hand);
    ref_bot_destroy(&match);
    if (ja_game_find("jack-in-the-box")) {
        /* Jack in the Box: the last game valued from the score (JITB_REST). */
        hand = open_params("bots/ja_ismcts.so", "iters=20:verify=30:anchor=0:horizon=hand");
        match = open_params("bots/ja_ismcts.so", "iters=20:verify=30:anchor=0:horizon=match");
        ref_bot *au = open_params("bots/ja_ismcts.so", "iters=20:verify=30:anchor=0");
        const mcase j1 = {"jack-in-the-box", 2, {"games=1"}},
                    j2 = {"jack-in-the-box", 2, {"games=2"}};
        play_case(&j1, hand, b->greedy, 7, &rh);
        play_case(&j1, match, b->greedy, 7, &rm);
        if (memcmp(rh.digest, rm.digest, sizeof rh.digest) != 0)
            fail_msg("jack-in-the-box, one game: horizon=hand did not play horizon=match's match");
        play_case(&j2, hand, b->greedy, 7, &rh);
        play_case(&j2, hand, b->greedy, 7, &rh2);
        play_case(&j2, match, b->greedy, 7, &rm);
        if (memcmp(rh.digest, rh2.digest, sizeof rh.digest) != 0)
            fail_msg("jack-in-the-box: horizon=hand gave two matches for one seed");
        assert_memory_not_equal(rh.digest, rm.digest, sizeof rh.digest);
        play_case(&j2, au, b->greedy, 7, &rh2);
        if (memcmp(HORIZON_JITB_AUTO_HAND ? rh.digest : rm.digest, rh2.digest,
                   sizeof rh.digest) != 0)
            fail_msg("jack-in-the-box: horizon=auto is not horizon=%s",
                     HORIZON_JITB_AUTO_HAND ? "hand" : "match");
        ref_bot_destroy(&hand);
        ref_bot_destroy(&match);
        ref_bot_destroy(&au);
    }
    refused_in_brawljack("horizon=hand");
}

/* The forward-model example of docs/forward-model.md plays every game. */
static void test_flat_mc_example(void **state)
{
    bots *b = *state;
    ref_bot *fm = open_params("sdk/examples/ja_flat_mc.so", NULL);
    for (int i = 0; ja_games[i]; i++) {
        const ja_game_rules *g = ja_games[i];
        for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++)
            if (strcmp(CASES[k].game, g->name) == 0) {
                ref_bot *seats[JA_MAX_SEATS];
                for (uint32_t s = 0; s < CASES[k].seats; s++)
                    seats[s] = s == 0 ? fm : b->random;
                ref_match_result res;
                play(g, CASES[k].seats, CASES[k].opts, 31, seats, &res);
                break;
            }
    }
    ref_bot_destroy(&fm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_legal_everywhere),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_anchor),
        cmocka_unit_test(test_verify),
        cmocka_unit_test(test_budgets),
        cmocka_unit_test(test_drop),
        cmocka_unit_test(test_horizon),
        cmocka_unit_test(test_infer),
        cmocka_unit_test(test_stride),
        cmocka_unit_test(test_flat_mc_example),
    };
    return cmocka_run_group_tests(tests, setup_bots, teardown_bots);
}
