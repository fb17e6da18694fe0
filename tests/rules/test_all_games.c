/* The rules-interface contract (ja_rules.h), checked on every game of the
 * registry ja_games[] by seeded random playouts. Nothing here knows any game:
 * buffer sizes come from the game table, options are enumerated from its
 * option specs, and every check is a property any engine must have.
 *
 * For every game, every seat count and every combination of ENUM option
 * values (INT options at their default and at their minimum when that is at
 * least 1; see Budgets below), matches are played with uniformly random
 * legal actions drawn from our own stream (never the game's). At every
 * decision:
 *  - to_act is a non-empty mask of seats below n_seats and outcome() says
 *    JA_EAGAIN; at the end to_act is 0 and outcome() says JA_OK;
 *  - legal() gives 1..max_actions codes, strictly increasing, for a seat in
 *    the mask, 0 for any other seat; default_action() is in the list;
 *  - every listed action has a non-empty one-line label, distinct within the
 *    list; describe() gives a non-empty line;
 *  - read-only calls (to_act, legal, default_action, observe, outcome,
 *    describe) leave the state's bytes unchanged;
 *  - apply() refuses, with JA_EILLEGAL and the state unchanged, a code above
 *    the largest legal one, one below the smallest, a code in a gap of the
 *    list, UINT32_MAX, and a
 *    `seats` mask other than to_act (empty, one seat too many, a seat past
 *    n_seats, one seat too few);
 *  - at one heavy decision in SCAN_EVERY, apply() by each asked seat is
 *    tried with every code below SCAN_CODES, or below the first power of
 *    two past the seat's largest listed code (up to SCAN_CODES_MAX), and
 *    with the neighbours of every listed code (the others' answers legal):
 *    it accepts exactly the listed codes and refuses every other with
 *    JA_EILLEGAL, the state unchanged. Every code of every game is below
 *    SCAN_CODES_MAX, so an engine whose apply() checks a code without
 *    generating its list (brawljack, jack-in-the-box, bombs) is proved to
 *    agree with legal() at those decisions;
 *  - a memcpy clone given the same actions stays byte-identical;
 *  - observe() zeroes everything: buffers pre-filled with 0xAA and 0x55 give
 *    the same bytes, and bytes outside the game's field list are 0 (for the
 *    asked seats; for every seat at a heavy decision);
 *  - hidden information 1: determinize(copy, s) leaves observe(copy, s)
 *    byte-identical, does not change whether s is asked nor its legal list
 *    (a legal list that depends on hidden cards leaks them), and is
 *    deterministic in its seed. Checked for every seat s at every decision
 *    in the long build; the fast build checks at heavy decisions (every one
 *    of a match's first HEAVY_FIRST, then one in HEAVY_EVERY at random) the
 *    asked seats plus others in rotation, HIDDEN_SEATS in all, so every seat
 *    is covered within a few decisions. Over a run determinize must
 *    change another seat's observation at least once (proof that it really
 *    re-deals hidden cards: a determinize that does nothing passes the first
 *    property trivially). Every game in the registry has hidden information;
 *    a future game without any must be given a reason here;
 *  - hidden information 2: sample(observe(st, s), s) returns JA_OK and a
 *    state whose observe(., s) is byte-identical, in which s is asked exactly
 *    when it is in the real state, with the same legal list; same seeds as
 *    for determinize;
 *  - the determinized and the sampled states are usable forward models: a
 *    few random legal steps from them succeed (for one of the seats above;
 *    it also checks that determinize and sample are deterministic);
 *  - for a game that offers JA_EXT_OBSERVE_UPDATE: each seat keeps one
 *    buffer through the match, brought up to date with update() at every
 *    step or only at every k-th (k from UPDATE_GAPS, which reach past any
 *    event ring, so both the incremental and the fallback paths run), and
 *    now and then cleared first (a seat never observed); after each update
 *    it must equal a fresh observe() byte for byte. Checked at the end of
 *    the match too;
 *  - the public observation (JA_EXT_OBSERVE_PUBLIC, which every game
 *    offers), at every heavy decision and at the end: it zeroes everything
 *    (0xAA and 0x55 fillings, padding 0) and its seat is JA_OBS_NO_SEAT;
 *    (a) determinize(copy, s) leaves it byte-identical for each seat s
 *    checked for hidden information, and so does determinize for every
 *    seat in turn on one copy (every hand and the stock re-dealt); (b) each
 *    of its fields agrees with the same field of every seat's observe(),
 *    by the field's class in PUBLIC_FIELDS (a field not named there must
 *    be the same for every seat; a private one is not compared, (a) says
 *    it holds nothing hidden).
 * Per match: the decision count stays below a generous bound (termination);
 * the outcome has the right n_seats and competition-ranking places consistent
 * with the scores (recomputed here); replaying the recorded choices from the
 * same seed gives the identical final state and outcome; setup writes every
 * byte (two setups into buffers pre-filled differently are identical).
 * Per game: the table is well formed, the engine prints nothing, and the
 * signature matches tests/rules/signatures.txt.
 *
 * Budgets: the fast build (ctest label fast, under ASan) plays a few hundred
 * matches per game, bounded by a decision budget, in about 20 s for five
 * games; -DJA_PROPERTY_LONG=1 (label slow) plays thousands with every check
 * at every decision.
 *
 * Reproducing a failure: every failure prints the game, seat count, options,
 * match seed and step, and a command line such as
 *   JA_PROPERTY_REPRO="taylor-blackjack 4 0x1234abcd decks=1 ..." ./test_all_games
 * which plays just that match with every check (run the binary that failed:
 * the fast and long builds check different seats at each decision).
 *
 * SIGNATURE. The signature test hashes (FNV-1a 64) the decisions and results
 * of a fixed set of seeded random matches per game (SIG_MATCHES per seat
 * count, default options) and compares it with the game's line in
 * tests/rules/signatures.txt ("game hash"). Any intended change of play must
 * update that line, and the commit message says `Signature: <hash>`; a commit
 * that does not change play says `No functional change`. A missing line fails
 * the test and prints the line to add. */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_rules.h"

#ifndef JA_PROPERTY_LONG
#define JA_PROPERTY_LONG 0
#endif

/* Budgets, in two phases per game.
 * Coverage: every seat count x every ENUM combination, each with a short INT
 * variant (some INT option at its minimum), plus every INT variant with the
 * default ENUM combination; the long build plays every seat count x ENUM
 * combination x INT variant, COVER_MATCHES times each.
 * Volume: then random configurations (7 in 8 with a short INT variant) until
 * the game has had MIN_MATCHES matches or DECISION_BUDGET decisions,
 * whichever comes first.
 * Heavy checks (hidden information, every seat's observation) run at each of
 * the first HEAVY_FIRST decisions of a match and then at one decision in
 * HEAVY_EVERY, chosen at random; the light checks (everything else) run at
 * every decision. HIDDEN_SEATS: seats whose hidden information is checked
 * at a heavy decision, the asked seats first, then others in rotation. */
#if JA_PROPERTY_LONG
#define COVER_MATCHES 1
#define MIN_MATCHES 5000
#define DECISION_BUDGET 2000000u
#define HEAVY_FIRST UINT32_MAX
#define HEAVY_EVERY 1
#define HIDDEN_SEATS JA_MAX_SEATS
#else
#define COVER_MATCHES 1
#define MIN_MATCHES 300
#define DECISION_BUDGET 250000u
#define HEAVY_FIRST 64
#define HEAVY_EVERY 4
#define HIDDEN_SEATS 4
#endif

#define SCAN_CODES 4096u    /* apply() tried with every code below this ... */
#define SCAN_CODES_MAX 32768u /* ... or below a power of two past the largest listed */
#define SCAN_EVERY 64u      /* ... at one heavy decision in this many */
#define STEP_BOUND 2000000u /* decisions per match: termination */
#define PLAY_ON 4           /* steps played from a determinized or sampled state */
#define SIG_MATCHES 20      /* per seat count, for the signature; changing it, SIG_SEED,
                             * STREAM_CHOICE or how choices are drawn changes every
                             * signature */
#define LABEL_CAP 128
#define DESCRIBE_CAP 1024
#define MAX_COMBOS 4096     /* ENUM combinations enumerated, at most */

#define BASE_SEED UINT64_C(0x4A41434B4152454E) /* "JACKAREN" */
#define SIG_SEED UINT64_C(0x5349474E41545552)  /* "SIGNATUR" */
#define STREAM_CHOICE JA_TAG('C', 'H', 'O', 'O')
#define STREAM_CHECK JA_TAG('C', 'H', 'E', 'K')
#define STREAM_CONFIG JA_TAG('C', 'O', 'N', 'F')
#define STREAM_UPDATE JA_TAG('U', 'P', 'D', 'T')
#define STREAM_RESHUFFLE JA_TAG('R', 'S', 'H', 'F')

/* Steps between two updates of a seat's buffer (JA_EXT_OBSERVE_UPDATE),
 * chosen per seat and match; one in UPDATE_CLEAR updates starts from a
 * cleared buffer. */
static const uint32_t UPDATE_GAPS[] = {1, 1, 2, 5, 13, 40, 97};
#define UPDATE_CLEAR 64

/* ---- Context: what is being checked, and the buffers ----------------------- */

typedef struct ctx {
    const ja_game_rules *g;
    uint32_t n;
    ja_options opt;
    char opt_text[512];
    uint64_t seed;
    uint64_t step;
    const char *phase;

    /* Every buffer has exactly the size the table gives, so ASan sees any
     * access past it. Allocated once per game. */
    uint8_t *st, *twin, *copy, *copy2, *st2, *replay;
    uint8_t *obs_a[JA_MAX_SEATS]; /* observe(st, t) */
    uint8_t *obs_b, *obs_c;
    /* JA_EXT_OBSERVE_UPDATE, when the game offers it: each seat's buffer
     * kept through a match, and a fresh observe() to compare with. */
    const ja_ext_observe_update *ou;
    uint8_t *obs_u[JA_MAX_SEATS], *obs_f;
    /* JA_EXT_OBSERVE_PUBLIC: the public observation of st, and of a copy. */
    const ja_ext_observe_public *op;
    uint8_t *obs_p, *obs_q;
    /* JA_EXT_CHANCE: the unseen cards of st and of a reshuffled copy. */
    const ja_ext_chance *ch;
    uint8_t unseen_a[256], unseen_b[256];
    uint32_t gap[JA_MAX_SEATS];
    ja_rng upd;
    uint32_t *padding;            /* offsets of observation bytes in no field */
    uint32_t n_padding;
    ja_action *legal[JA_MAX_SEATS];
    uint32_t n_legal[JA_MAX_SEATS];
    ja_action *scratch;
    char (*labels)[LABEL_CAP];
    char describe[DESCRIBE_CAP];

    /* The record of a match: per decision the mask, then one code per asked
     * seat in seat order. Grows by doubling; reused across matches. */
    uint32_t *rec;
    size_t rec_len, rec_cap;

    ja_rng choose, check;

    /* Statistics over the run. */
    uint64_t matches, decisions, heavy, joint, detz, detz_state_changed, detz_other_changed;
    uint64_t samples, configs, configs_skipped, updates, updates_cleared;
    uint64_t publics, public_compared, reshuffles, reshuffle_many, reshuffle_moved;
} ctx;

static void describe_state(ctx *c, const void *st)
{
    c->describe[0] = '\0';
    if (st && c->g->describe)
        c->g->describe(st, c->describe, sizeof c->describe);
}

static const char *g_prog = "./test_all_games"; /* argv[0], for the reproduce line */

/* Prints everything needed to reproduce, then fails the test. */
__attribute__((format(printf, 5, 6))) static void fail_at(ctx *c, const void *st, int line,
                                                          const char *expr, const char *fmt,
                                                          ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    describe_state(c, st);
    print_error("PROPERTY FAILED (%s): %s\n"
                "  at test_all_games.c:%d%s%s\n"
                "  game %s, %u seats, options \"%s\", match seed 0x%016llx, step %llu\n"
                "  state: %s\n"
                "  reproduce: JA_PROPERTY_REPRO=\"%s %u 0x%016llx %s\" %s\n",
                c->phase ? c->phase : "?", msg, line, strcmp(expr, "-") ? ", check: " : "",
                strcmp(expr, "-") ? expr : "",
                c->g->name, c->n, c->opt_text,
                (unsigned long long)c->seed, (unsigned long long)c->step, c->describe,
                c->g->name, c->n, (unsigned long long)c->seed, c->opt_text, g_prog);
    _fail(__FILE__, line);
}

#define CHECK(c, st, cond, ...)                                  \
    do {                                                         \
        if (!(cond))                                             \
            fail_at((c), (st), __LINE__, #cond, __VA_ARGS__);    \
    } while (0)
#define FAIL(c, st, ...) fail_at((c), (st), __LINE__, "-", __VA_ARGS__)

/* The first byte where two observations differ, as "byte 867 (stock[103])"
 * from the game's field list; "" when they are equal. */
static const char *obs_diff(const ctx *c, const uint8_t *a, const uint8_t *b, char *buf,
                            size_t cap)
{
    static const uint32_t width[JA_FT_COUNT] = {1, 1, 2, 2, 4, 4, 8};
    const ja_game_rules *g = c->g;
    buf[0] = '\0';
    uint32_t off = 0;
    while (off < g->obs_size && a[off] == b[off])
        off++;
    if (off == g->obs_size)
        return buf;
    snprintf(buf, cap, "byte %u (padding, 0x%02x vs 0x%02x)", off, a[off], b[off]);
    for (uint32_t i = 0; i < g->n_obs_fields; i++) {
        const ja_field *f = &g->obs_fields[i];
        if (f->type >= JA_FT_COUNT)
            continue;
        uint32_t w = width[f->type];
        if (off >= f->offset && off < f->offset + w * f->count) {
            if (f->count > 1)
                snprintf(buf, cap, "byte %u (field %s[%u], byte 0x%02x vs 0x%02x)", off,
                         f->name, (off - f->offset) / w, a[off], b[off]);
            else
                snprintf(buf, cap, "byte %u (field %s, byte 0x%02x vs 0x%02x)", off, f->name,
                         a[off], b[off]);
            break;
        }
    }
    return buf;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    return p;
}

/* Memory of one test, freed by its teardown even when the test fails. */
static void *g_allocs[16];
static int g_n_allocs;

static void *talloc(size_t n)
{
    assert_true(g_n_allocs < (int)(sizeof g_allocs / sizeof g_allocs[0]));
    return g_allocs[g_n_allocs++] = xmalloc(n);
}

static ctx *ctx_new(const ja_game_rules *g)
{
    ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->g = g;
    c->st = xmalloc(g->state_size);
    c->twin = xmalloc(g->state_size);
    c->copy = xmalloc(g->state_size);
    c->copy2 = xmalloc(g->state_size);
    c->st2 = xmalloc(g->state_size);
    c->replay = xmalloc(g->state_size);
    for (int t = 0; t < JA_MAX_SEATS; t++) {
        c->obs_a[t] = xmalloc(g->obs_size);
        c->legal[t] = xmalloc(g->max_actions * sizeof(ja_action));
    }
    c->obs_b = xmalloc(g->obs_size);
    c->obs_c = xmalloc(g->obs_size);
    c->op = ja_rules_extension(g, JA_EXT_OBSERVE_PUBLIC);
    assert_non_null(c->op);
    assert_non_null(c->op->observe_public);
    c->obs_p = xmalloc(g->obs_size);
    c->obs_q = xmalloc(g->obs_size);
    c->ch = ja_rules_extension(g, JA_EXT_CHANCE);
    assert_non_null(c->ch);
    assert_non_null(c->ch->unseen);
    assert_non_null(c->ch->reshuffle);
    c->ou = ja_rules_extension(g, JA_EXT_OBSERVE_UPDATE);
    if (c->ou) {
        assert_non_null(c->ou->update);
        for (int t = 0; t < JA_MAX_SEATS; t++)
            c->obs_u[t] = xmalloc(g->obs_size);
        c->obs_f = xmalloc(g->obs_size);
    }
    uint8_t *covered = calloc(g->obs_size ? g->obs_size : 1, 1);
    assert_non_null(covered);
    static const uint32_t width[JA_FT_COUNT] = {1, 1, 2, 2, 4, 4, 8};
    for (uint32_t i = 0; i < g->n_obs_fields; i++) {
        const ja_field *f = &g->obs_fields[i];
        if (f->type >= JA_FT_COUNT)
            continue; /* reported by the table test */
        uint64_t end = (uint64_t)f->offset + (uint64_t)width[f->type] * f->count;
        for (uint64_t b = f->offset; b < end && b < g->obs_size; b++)
            covered[b] = 1;
    }
    c->padding = xmalloc(g->obs_size * sizeof *c->padding);
    for (uint32_t b = 0; b < g->obs_size; b++)
        if (!covered[b])
            c->padding[c->n_padding++] = b;
    free(covered);
    c->scratch = xmalloc(g->max_actions * sizeof(ja_action));
    c->labels = xmalloc(g->max_actions * sizeof *c->labels);
    c->rec_cap = 1 << 16;
    c->rec = xmalloc(c->rec_cap * sizeof *c->rec);
    return c;
}

static void ctx_free(ctx *c)
{
    if (!c)
        return;
    free(c->st);
    free(c->twin);
    free(c->copy);
    free(c->copy2);
    free(c->st2);
    free(c->replay);
    for (int t = 0; t < JA_MAX_SEATS; t++) {
        free(c->obs_a[t]);
        free(c->legal[t]);
    }
    free(c->obs_b);
    free(c->obs_c);
    free(c->obs_p);
    free(c->obs_q);
    for (int t = 0; t < JA_MAX_SEATS; t++)
        free(c->obs_u[t]);
    free(c->obs_f);
    free(c->padding);
    free(c->scratch);
    free(c->labels);
    free(c->rec);
    free(c);
}

static void record(ctx *c, uint32_t word)
{
    if (c->rec_len == c->rec_cap) {
        c->rec_cap *= 2;
        uint32_t *p = realloc(c->rec, c->rec_cap * sizeof *p);
        assert_non_null(p);
        c->rec = p;
    }
    c->rec[c->rec_len++] = word;
}

static int popcount32(uint32_t m)
{
    int k = 0;
    for (; m; m &= m - 1)
        k++;
    return k;
}

/* ---- Options: enumerating configurations generically ------------------------ */

static uint32_t n_options(const ja_game_rules *g)
{
    uint32_t n = 0;
    while (g->options && g->options[n].name)
        n++;
    return n;
}

static uint32_t enum_words(const ja_option_spec *sp)
{
    uint32_t k = 1;
    for (const char *p = sp->values; p && *p; p++)
        k += *p == '|';
    return k;
}

/* Configurations are (e, v): e numbers the ENUM combinations (mixed radix,
 * first option fastest), v the INT variants (bit j set: the j-th INT option
 * whose minimum is at least 1 is at that minimum, a small value such as one
 * game or a low turn cap that keeps matches short; clear: its default). */
static uint32_t n_enum_combos(const ja_game_rules *g)
{
    uint64_t k = 1;
    for (uint32_t i = 0; i < n_options(g); i++)
        if (g->options[i].kind == JA_OPT_ENUM)
            k *= enum_words(&g->options[i]);
    return k > MAX_COMBOS ? MAX_COMBOS : (uint32_t)k;
}

static uint32_t n_int_variants(const ja_game_rules *g)
{
    uint32_t k = 1;
    for (uint32_t i = 0; i < n_options(g) && k < 256; i++)
        if (g->options[i].kind == JA_OPT_INT && g->options[i].min >= 1)
            k *= 2;
    return k;
}

static void config_options(const ja_game_rules *g, uint32_t e, uint32_t v, ja_options *o)
{
    ja_options_init(g, o);
    for (uint32_t i = 0; i < n_options(g); i++) {
        const ja_option_spec *sp = &g->options[i];
        if (sp->kind == JA_OPT_ENUM) {
            uint32_t w = enum_words(sp);
            o->value[i] = (int32_t)(e % w);
            o->given[i] = 1;
            e /= w;
        } else if (sp->min >= 1) {
            if (v & 1u) {
                o->value[i] = sp->min;
                o->given[i] = 1;
            }
            v >>= 1;
        }
    }
}

/* The ENUM combination with every ENUM option at its default word. */
static uint32_t default_enum_index(const ja_game_rules *g)
{
    uint32_t idx = 0, radix = 1;
    for (uint32_t i = 0; i < n_options(g); i++) {
        const ja_option_spec *sp = &g->options[i];
        if (sp->kind != JA_OPT_ENUM)
            continue;
        uint32_t w = 0;
        const char *p = sp->values;
        size_t dl = sp->def ? strlen(sp->def) : 0;
        for (uint32_t j = 0; p; j++) {
            const char *bar = strchr(p, '|');
            size_t len = bar ? (size_t)(bar - p) : strlen(p);
            if (sp->def && len == dl && strncmp(p, sp->def, dl) == 0) {
                w = j;
                break;
            }
            p = bar ? bar + 1 : NULL;
        }
        idx += w * radix;
        radix *= enum_words(sp);
    }
    return idx;
}

static int resolve_into(ctx *c, ja_options *o, uint32_t n)
{
    char err[256];
    if (ja_options_resolve(c->g, o, n, err, sizeof err) != JA_OK)
        return -1;
    c->opt = *o;
    c->n = n;
    if (ja_options_format(c->g, &c->opt, c->opt_text, sizeof c->opt_text) < 0)
        snprintf(c->opt_text, sizeof c->opt_text, "(options do not format)");
    return 0;
}

/* ---- Checks at one decision -------------------------------------------------- */

static void check_legal_list(ctx *c, const void *st, int seat, const ja_action *l,
                             uint32_t cnt, const char *what)
{
    const ja_game_rules *g = c->g;
    CHECK(c, st, cnt >= 1 && cnt <= g->max_actions,
          "%s: legal(seat %d) returned %u actions (max_actions %u)", what, seat, cnt,
          g->max_actions);
    for (uint32_t i = 1; i < cnt; i++)
        CHECK(c, st, l[i - 1].code < l[i].code,
              "%s: legal(seat %d) not strictly increasing at %u: %u then %u", what, seat, i,
              l[i - 1].code, l[i].code);
}

static int in_list(const ja_action *l, uint32_t cnt, uint32_t code)
{
    for (uint32_t i = 0; i < cnt; i++)
        if (l[i].code == code)
            return 1;
    return 0;
}

static void check_labels(ctx *c, int seat)
{
    const ja_game_rules *g = c->g;
    uint32_t cnt = c->n_legal[seat];
    for (uint32_t i = 0; i < cnt; i++) {
        char *buf = c->labels[i];
        memset(buf, 0, LABEL_CAP);
        int len = g->label(c->legal[seat][i], buf, LABEL_CAP);
        CHECK(c, c->st, len > 0 && len < LABEL_CAP && (size_t)len == strlen(buf),
              "label(%u) returned %d for \"%s\"", c->legal[seat][i].code, len, buf);
        CHECK(c, c->st, !strchr(buf, '\n'), "label(%u) is not one line: \"%s\"",
              c->legal[seat][i].code, buf);
        for (uint32_t j = 0; j < i; j++)
            CHECK(c, c->st, strcmp(c->labels[j], buf) != 0,
                  "actions %u and %u of seat %d have the same label \"%s\"",
                  c->legal[seat][j].code, c->legal[seat][i].code, seat, buf);
    }
}

static void check_describe(ctx *c, const void *st)
{
    char buf[DESCRIBE_CAP];
    memset(buf, 0, sizeof buf);
    int len = c->g->describe(st, buf, sizeof buf);
    CHECK(c, st, len > 0 && (size_t)len == strlen(buf), "describe() returned %d for \"%s\"",
          len, buf);
    CHECK(c, st, !strchr(buf, '\n'), "describe() is not one line: \"%s\"", buf);
}

/* observe(st, t) into c->obs_a[t], checking that nothing of the caller's
 * buffer survives: 0xAA and 0x55 fillings give the same bytes, and bytes
 * outside the field list are zero. */
static void observe_checked(ctx *c, const void *st, int t, uint8_t *out)
{
    const ja_game_rules *g = c->g;
    memset(out, 0xAA, g->obs_size);
    g->observe(st, t, out);
    memset(c->obs_b, 0x55, g->obs_size);
    g->observe(st, t, c->obs_b);
    if (memcmp(out, c->obs_b, g->obs_size) != 0) {
        char where[160];
        FAIL(c, st, "observe(seat %d) leaves bytes of the caller's buffer (not zeroed): %s", t,
             obs_diff(c, out, c->obs_b, where, sizeof where));
    }
    for (uint32_t i = 0; i < c->n_padding; i++)
        CHECK(c, st, out[c->padding[i]] == 0,
              "observe(seat %d): byte %u is padding (in no field) yet holds 0x%02x", t,
              c->padding[i], out[c->padding[i]]);
}

/* JA_EXT_OBSERVE_UPDATE: starts each seat's buffer cleared (never
 * observed) and picks its gap for this match. */
static void update_begin(ctx *c)
{
    if (!c->ou)
        return;
    ja_rng_stream(&c->upd, c->seed, STREAM_UPDATE, 0);
    for (uint32_t t = 0; t < c->n; t++) {
        memset(c->obs_u[t], 0, c->g->obs_size);
        c->gap[t] = UPDATE_GAPS[ja_rng_below(&c->upd, sizeof UPDATE_GAPS / sizeof UPDATE_GAPS[0])];
    }
}

/* JA_EXT_OBSERVE_UPDATE: brings the buffer of each seat whose gap has come
 * round (every seat when `all`) up to date, now and then from a cleared
 * buffer, and compares it with a fresh observe(). */
static void update_checked(ctx *c, const void *st, int all)
{
    const ja_game_rules *g = c->g;
    if (!c->ou)
        return;
    for (uint32_t t = 0; t < c->n; t++) {
        if (!all && c->step % c->gap[t] != 0)
            continue;
        const char *from = c->step == 0 ? "a cleared buffer" : "its last update";
        if (ja_rng_below(&c->upd, UPDATE_CLEAR) == 0) {
            memset(c->obs_u[t], 0, g->obs_size);
            c->updates_cleared++;
            from = "a cleared buffer";
        }
        c->ou->update(st, (int)t, c->obs_u[t]);
        c->updates++;
        memset(c->obs_f, 0xAA, g->obs_size);
        g->observe(st, (int)t, c->obs_f);
        if (memcmp(c->obs_u[t], c->obs_f, g->obs_size) != 0) {
            char where[160];
            FAIL(c, st,
                 "observe_update(seat %u) from %s (every %u steps) differs from observe(): %s",
                 t, from, c->gap[t], obs_diff(c, c->obs_u[t], c->obs_f, where, sizeof where));
        }
    }
}

/* Plays up to `steps` random legal decisions from buf (a determinized or
 * sampled state): the forward model must work from there. */
static void play_on(ctx *c, uint8_t *buf, int steps, const char *what)
{
    const ja_game_rules *g = c->g;
    ja_action by[JA_MAX_SEATS];
    ja_outcome o;
    for (int i = 0; i < steps; i++) {
        uint32_t mask = g->to_act(buf);
        if (mask == 0) {
            CHECK(c, buf, g->outcome(buf, &o) == JA_OK,
                  "%s, %d steps on: to_act is 0 but outcome() is not JA_OK", what, i);
            return;
        }
        CHECK(c, buf, (mask >> c->n) == 0, "%s, %d steps on: to_act 0x%x names a seat >= %u",
              what, i, mask, c->n);
        CHECK(c, buf, g->outcome(buf, &o) == JA_EAGAIN,
              "%s, %d steps on: outcome() is not JA_EAGAIN before the end", what, i);
        memset(by, 0, sizeof by);
        for (uint32_t m = mask; m; m &= m - 1) {
            int s = __builtin_ctz(m);
            uint32_t cnt = g->legal(buf, s, c->scratch, g->max_actions);
            check_legal_list(c, buf, s, c->scratch, cnt, what);
            by[s] = c->scratch[ja_rng_below(&c->check, cnt)];
        }
        int rc = g->apply(buf, mask, by);
        CHECK(c, buf, rc == JA_OK, "%s, %d steps on: apply of legal actions returned %s", what,
              i, ja_err_name(rc));
    }
}

/* Both hidden-information properties for seat s, given obs_a[s] and the
 * legal lists of the real state c->st. */
static void check_hidden(ctx *c, uint32_t mask, int s, int deep)
{
    const ja_game_rules *g = c->g;
    const uint32_t n = c->n;

    /* 1. determinize. */
    uint64_t seed1 = ja_rng_next(&c->check);
    memcpy(c->copy, c->st, g->state_size);
    g->determinize(c->copy, s, seed1);
    c->detz++;
    if (memcmp(c->copy, c->st, g->state_size) != 0)
        c->detz_state_changed++;
    memset(c->obs_c, 0xAA, g->obs_size);
    g->observe(c->copy, s, c->obs_c);
    if (memcmp(c->obs_c, c->obs_a[s], g->obs_size) != 0) {
        char where[160];
        FAIL(c, c->st, "LEAK: determinize(seat %d, seed 0x%016llx) changed observe(seat %d) at %s",
             s, (unsigned long long)seed1, s, obs_diff(c, c->obs_c, c->obs_a[s], where, sizeof where));
    }
    uint32_t mask_d = g->to_act(c->copy);
    CHECK(c, c->st, ((mask_d >> s) & 1u) == ((mask >> s) & 1u),
          "determinize(seat %d) changed whether seat %d is asked (to_act 0x%x -> 0x%x)", s, s,
          mask, mask_d);
    if ((mask >> s) & 1u) {
        uint32_t cnt = g->legal(c->copy, s, c->scratch, g->max_actions);
        CHECK(c, c->st,
              cnt == c->n_legal[s] &&
                  memcmp(c->scratch, c->legal[s], cnt * sizeof(ja_action)) == 0,
              "determinize(seat %d) changed seat %d's legal list (%u -> %u actions): its legal "
              "list depends on hidden information",
              s, s, c->n_legal[s], cnt);
    }
    /* (a) of the public observation: nothing of it is hidden from s. */
    c->op->observe_public(c->copy, c->obs_q);
    if (memcmp(c->obs_q, c->obs_p, g->obs_size) != 0) {
        char where[160];
        FAIL(c, c->st, "LEAK: determinize(seat %d, seed 0x%016llx) changed the public "
             "observation at %s", s, (unsigned long long)seed1,
             obs_diff(c, c->obs_q, c->obs_p, where, sizeof where));
    }
    /* Did it re-deal anything that seat s cannot see? Another seat's view
     * of its own cards shows it. */
    if (n > 1) {
        int changed = 0;
        for (uint32_t k = 1; k < n && !changed; k++) {
            int t = (int)((uint32_t)s + k) % (int)n;
            memset(c->obs_c, 0, g->obs_size);
            g->observe(c->copy, t, c->obs_c);
            changed = memcmp(c->obs_c, c->obs_a[t], g->obs_size) != 0;
        }
        c->detz_other_changed += (uint64_t)changed;
    }
    if (deep) {
        /* Same seed, same result. */
        memcpy(c->copy2, c->st, g->state_size);
        g->determinize(c->copy2, s, seed1);
        CHECK(c, c->st, memcmp(c->copy, c->copy2, g->state_size) == 0,
              "determinize(seat %d, seed 0x%016llx) is not deterministic", s,
              (unsigned long long)seed1);
        play_on(c, c->copy, PLAY_ON, "after determinize");
    }

    /* 2. sample. */
    uint64_t seed2 = ja_rng_next(&c->check);
    memset(c->st2, 0xAA, g->state_size);
    int rc = g->sample(c->obs_a[s], s, seed2, c->st2);
    c->samples++;
    CHECK(c, c->st, rc == JA_OK, "sample(observe(seat %d), seed 0x%016llx) returned %s", s,
          (unsigned long long)seed2, ja_err_name(rc));
    memset(c->obs_c, 0x55, g->obs_size);
    g->observe(c->st2, s, c->obs_c);
    if (memcmp(c->obs_c, c->obs_a[s], g->obs_size) != 0) {
        char where[160];
        FAIL(c, c->st, "observe(sample(observe(seat %d), seed 0x%016llx)) differs at %s", s,
             (unsigned long long)seed2, obs_diff(c, c->obs_c, c->obs_a[s], where, sizeof where));
    }
    uint32_t mask_s = g->to_act(c->st2);
    CHECK(c, c->st, ((mask_s >> s) & 1u) == ((mask >> s) & 1u),
          "sample(seat %d) changed whether seat %d is asked (to_act 0x%x -> 0x%x)", s, s, mask,
          mask_s);
    CHECK(c, c->st, mask_s != 0 && (mask_s >> n) == 0,
          "sample(seat %d) of a running match gives to_act 0x%x", s, mask_s);
    if ((mask >> s) & 1u) {
        uint32_t cnt = g->legal(c->st2, s, c->scratch, g->max_actions);
        CHECK(c, c->st,
              cnt == c->n_legal[s] &&
                  memcmp(c->scratch, c->legal[s], cnt * sizeof(ja_action)) == 0,
              "sample(seat %d) gives seat %d another legal list (%u -> %u actions)", s, s,
              c->n_legal[s], cnt);
    }
    if (deep) {
        memset(c->copy2, 0x55, g->state_size);
        rc = g->sample(c->obs_a[s], s, seed2, c->copy2);
        CHECK(c, c->st, rc == JA_OK && memcmp(c->st2, c->copy2, g->state_size) == 0,
              "sample(seat %d, seed 0x%016llx) is not deterministic (or leaves bytes of the "
              "caller's buffer)",
              s, (unsigned long long)seed2);
        play_on(c, c->st2, PLAY_ON, "after sample");
    }
}

/* ---- The public observation (JA_EXT_OBSERVE_PUBLIC) ---------------------------- */

/* How a field of the public observation compares with the same field of a
 * seat's observation (property (b)):
 *  - SAME (every field not named in PUBLIC_FIELDS): equal for every seat;
 *  - IDLE: equal for every seat not deciding now (the one deciding may see
 *    more: the card it drew, the target it chose);
 *  - PRIVATE: not compared: the seat's own cards (property (a) shows the
 *    public one holds none);
 *  - ROWS: per-seat rows of `row` elements (seat*row + i): row p equal in
 *    every seat's observation but p's own (which holds its hand instead);
 *  - SEAT: the public one holds JA_OBS_NO_SEAT;
 *  - TABLE / TABLE_IDLE / EVENTS (Bombs): SAME, resp. IDLE, when the public
 *    observation shows a table (`table` not 255: every seat sits at it),
 *    resp. SAME when it shows events (`event_seq` not 0: every seat has
 *    seen the same); else not compared. */
enum { PF_SAME, PF_IDLE, PF_PRIVATE, PF_ROWS, PF_SEAT, PF_TABLE, PF_TABLE_IDLE, PF_EVENTS };

typedef struct public_field {
    const char *game; /* NULL: every game */
    const char *field;
    int cls, row;
} public_field;

static const public_field PUBLIC_FIELDS[] = {
    {NULL, "seat", PF_SEAT, 0},
    {"taylor-blackjack", "hand", PF_PRIVATE, 0},
    {"taylor-blackjack", "known", PF_ROWS, 52},
    {"brawljack", "drawn", PF_IDLE, 0},
    {"brawljack", "unseen", PF_IDLE, 0},
    {"bruise-jack", "drawn", PF_IDLE, 0},
    {"bruise-jack", "centre", PF_PRIVATE, 0},
    {"jack-in-the-box", "hand", PF_PRIVATE, 0},
    {"jack-in-the-box", "stage", PF_IDLE, 0},
    {"jack-in-the-box", "target", PF_IDLE, 0},
    {"bombs", "hand", PF_PRIVATE, 0},
    {"bombs", "table", PF_TABLE, 0},
    {"bombs", "stage", PF_TABLE_IDLE, 0},
    {"bombs", "actor", PF_TABLE, 0},
    {"bombs", "dealer", PF_TABLE, 0},
    {"bombs", "lead_form", PF_TABLE_IDLE, 0},
    {"bombs", "lead_len", PF_TABLE_IDLE, 0},
    {"bombs", "top_form", PF_TABLE, 0},
    {"bombs", "top_rank", PF_TABLE, 0},
    {"bombs", "top_len", PF_TABLE, 0},
    {"bombs", "top_owner", PF_TABLE, 0},
    {"bombs", "turn_seat", PF_TABLE, 0},
    {"bombs", "passes", PF_TABLE, 0},
    {"bombs", "offer", PF_TABLE, 0},
    {"bombs", "requested", PF_TABLE, 0},
    {"bombs", "club3", PF_TABLE, 0},
    {"bombs", "table_seats", PF_TABLE, 0},
    {"bombs", "count", PF_TABLE, 0},
    {"bombs", "place", PF_TABLE, 0},
    {"bombs", "known", PF_TABLE, 0},
    {"bombs", "absent", PF_TABLE, 0},
    {"bombs", "played", PF_TABLE, 0},
    {"bombs", "event_seq", PF_EVENTS, 0},
    {"bombs", "ev_seq", PF_EVENTS, 0},
    {"bombs", "ev_kind", PF_EVENTS, 0},
    {"bombs", "ev_seat", PF_EVENTS, 0},
    {"bombs", "ev_arg", PF_EVENTS, 0},
};

static const public_field *public_field_of(const ja_game_rules *g, const char *name)
{
    for (size_t i = 0; i < sizeof PUBLIC_FIELDS / sizeof PUBLIC_FIELDS[0]; i++) {
        const public_field *p = &PUBLIC_FIELDS[i];
        if ((!p->game || strcmp(p->game, g->name) == 0) && strcmp(p->field, name) == 0)
            return p;
    }
    return NULL;
}

/* The value of the scalar field `name` of obs, or `none` without one. */
static uint64_t field_value(const ja_game_rules *g, const uint8_t *obs, const char *name,
                            uint64_t none)
{
    for (uint32_t i = 0; i < g->n_obs_fields; i++) {
        const ja_field *f = &g->obs_fields[i];
        if (strcmp(f->name, name) != 0)
            continue;
        if (f->type == JA_FT_U8)
            return obs[f->offset];
        uint32_t v;
        memcpy(&v, obs + f->offset, sizeof v);
        return f->type == JA_FT_U32 ? v : none;
    }
    return none;
}

/* Property (b) for field f: the public observation c->obs_p against each
 * seat's c->obs_a[t], by f's class. */
static void check_public_field(ctx *c, uint32_t mask, const ja_field *f)
{
    static const uint32_t width[JA_FT_COUNT] = {1, 1, 2, 2, 4, 4, 8};
    const ja_game_rules *g = c->g;
    const public_field *pf = public_field_of(g, f->name);
    const int cls = pf ? pf->cls : PF_SAME;
    const uint8_t *pub = c->obs_p + f->offset;
    const uint32_t w = width[f->type], size = w * f->count;
    if (cls == PF_PRIVATE ||
        ((cls == PF_TABLE || cls == PF_TABLE_IDLE) &&
         field_value(g, c->obs_p, "table", 255) == 255) ||
        (cls == PF_EVENTS && field_value(g, c->obs_p, "event_seq", 0) == 0))
        return;
    if (cls == PF_SEAT) {
        CHECK(c, c->st, pub[0] == JA_OBS_NO_SEAT, "the public observation's %s is %u, not %u",
              f->name, pub[0], JA_OBS_NO_SEAT);
        return;
    }
    for (uint32_t t = 0; t < c->n; t++) {
        const uint8_t *mine = c->obs_a[t] + f->offset;
        if ((cls == PF_IDLE || cls == PF_TABLE_IDLE) && ((mask >> t) & 1u))
            continue;
        c->public_compared++;
        if (cls != PF_ROWS) {
            CHECK(c, c->st, memcmp(pub, mine, size) == 0,
                  "the public observation's %s differs from seat %u's (a public field)",
                  f->name, t);
            continue;
        }
        const uint32_t row = (uint32_t)pf->row * w;
        for (uint32_t p = 0; p < c->n && (p + 1) * row <= size; p++)
            CHECK(c, c->st, p == t || memcmp(pub + p * row, mine + p * row, row) == 0,
                  "the public observation's %s, row %u, differs from seat %u's", f->name, p,
                  t);
    }
}

/* The public observation of c->st into c->obs_p, with every check: it
 * zeroes everything, (b) against every seat's observation (c->obs_a, all
 * seats observed), and (a) for determinize of every seat in turn on one
 * copy. check_hidden() then checks (a) for each seat alone. */
static void check_public(ctx *c, uint32_t mask)
{
    const ja_game_rules *g = c->g;
    memset(c->obs_p, 0xAA, g->obs_size);
    c->op->observe_public(c->st, c->obs_p);
    memset(c->obs_q, 0x55, g->obs_size);
    c->op->observe_public(c->st, c->obs_q);
    c->publics++;
    if (memcmp(c->obs_p, c->obs_q, g->obs_size) != 0) {
        char where[160];
        FAIL(c, c->st, "observe_public leaves bytes of the caller's buffer (not zeroed): %s",
             obs_diff(c, c->obs_p, c->obs_q, where, sizeof where));
    }
    for (uint32_t i = 0; i < c->n_padding; i++)
        CHECK(c, c->st, c->obs_p[c->padding[i]] == 0,
              "observe_public: byte %u is padding (in no field) yet holds 0x%02x",
              c->padding[i], c->obs_p[c->padding[i]]);
    CHECK(c, c->st, field_value(g, c->obs_p, "n_seats", 0) == c->n,
          "the public observation's n_seats is not %u", c->n);
    for (uint32_t i = 0; i < g->n_obs_fields; i++)
        if (g->obs_fields[i].type < JA_FT_COUNT)
            check_public_field(c, mask, &g->obs_fields[i]);
    /* (a) with every hand and the stock re-dealt: each seat's determinize
     * in turn on one copy. */
    memcpy(c->copy2, c->st, g->state_size);
    for (uint32_t t = 0; t < c->n; t++)
        g->determinize(c->copy2, (int)t, ja_rng_next(&c->check));
    c->op->observe_public(c->copy2, c->obs_q);
    if (memcmp(c->obs_q, c->obs_p, g->obs_size) != 0) {
        char where[160];
        FAIL(c, c->st, "LEAK: determinize of every seat in turn changed the public "
             "observation at %s", obs_diff(c, c->obs_q, c->obs_p, where, sizeof where));
    }
}

/* The unseen cards of st into out, sorted (a multiset), with their count;
 * checks the count fits and agrees with a call that writes nothing. */
static uint32_t unseen_sorted(ctx *c, const void *st, uint8_t *out)
{
    uint32_t m = c->ch->unseen(st, out, 256);
    CHECK(c, st, m <= 256 && c->ch->unseen(st, NULL, 0) == m,
          "unseen() returned %u cards, or another count without a buffer", m);
    uint16_t count[256] = {0};
    for (uint32_t i = 0; i < m; i++)
        count[out[i]]++;
    for (uint32_t v = 0, k = 0; v < 256; v++)
        for (uint16_t j = 0; j < count[v]; j++)
            out[k++] = (uint8_t)v;
    return m;
}

/* JA_EXT_CHANCE at a heavy decision (obs_a holds every seat's observation,
 * obs_p the public one, legal[] the legal lists): reshuffle() of a copy
 * leaves every seat's observation, the public one, to_act and the legal
 * lists byte-identical and the unseen multiset unchanged; it depends only
 * on what is seen and its seed (reshuffle(reshuffle(st, a), b) equals
 * reshuffle(st, b)); the copy is a usable forward model (at one heavy
 * decision in 8). */
static void check_chance(ctx *c, uint32_t mask)
{
    const ja_game_rules *g = c->g;
    uint64_t a = ja_seed_derive(c->seed, STREAM_RESHUFFLE, 2 * c->step);
    uint64_t b = ja_seed_derive(c->seed, STREAM_RESHUFFLE, 2 * c->step + 1);
    memcpy(c->copy, c->st, g->state_size);
    c->ch->reshuffle(c->copy, a);
    c->reshuffles++;
    for (uint32_t t = 0; t < c->n; t++) {
        g->observe(c->copy, (int)t, c->obs_c);
        if (memcmp(c->obs_c, c->obs_a[t], g->obs_size) != 0) {
            char where[160];
            FAIL(c, c->st, "LEAK: reshuffle(seed 0x%016llx) changed observe(seat %u) at %s",
                 (unsigned long long)a, t, obs_diff(c, c->obs_c, c->obs_a[t], where, sizeof where));
        }
        uint32_t cnt = g->legal(c->copy, (int)t, c->scratch, g->max_actions);
        CHECK(c, c->st, cnt == c->n_legal[t] &&
                            memcmp(c->scratch, c->legal[t], cnt * sizeof(ja_action)) == 0,
              "reshuffle changed seat %u's legal list (%u -> %u actions)", t, c->n_legal[t], cnt);
    }
    CHECK(c, c->st, g->to_act(c->copy) == mask, "reshuffle changed to_act (0x%x -> 0x%x)", mask,
          g->to_act(c->copy));
    c->op->observe_public(c->copy, c->obs_q);
    CHECK(c, c->st, memcmp(c->obs_q, c->obs_p, g->obs_size) == 0,
          "LEAK: reshuffle changed the public observation");
    uint32_t m = unseen_sorted(c, c->st, c->unseen_a);
    CHECK(c, c->st, unseen_sorted(c, c->copy, c->unseen_b) == m &&
                        memcmp(c->unseen_a, c->unseen_b, m) == 0,
          "reshuffle changed the multiset of unseen cards (%u cards before)", m);
    if (m > 1) {
        c->reshuffle_many++;
        c->ch->unseen(c->st, c->unseen_a, 256);
        c->ch->unseen(c->copy, c->unseen_b, 256);
        c->reshuffle_moved += memcmp(c->unseen_a, c->unseen_b, m) != 0;
    }
    memcpy(c->copy2, c->st, g->state_size);
    c->ch->reshuffle(c->copy2, b);
    c->ch->reshuffle(c->copy2, a);
    CHECK(c, c->st, memcmp(c->copy2, c->copy, g->state_size) == 0,
          "reshuffle(reshuffle(st, b), a) differs from reshuffle(st, a): the result depends "
          "on more than what is seen and the seed");
    if (c->heavy % 8 == 0)
        play_on(c, c->copy, PLAY_ON, "reshuffled");
}

/* Illegal answers and wrong masks: JA_EILLEGAL, state unchanged. c->twin
 * holds the state's bytes. */
static void check_illegal(ctx *c, uint32_t mask)
{
    const ja_game_rules *g = c->g;
    ja_action by[JA_MAX_SEATS];
    memset(by, 0, sizeof by);
    for (uint32_t m = mask; m; m &= m - 1) {
        int s = __builtin_ctz(m);
        by[s] = c->legal[s][0];
    }
    for (uint32_t m = mask; m; m &= m - 1) {
        int s = __builtin_ctz(m);
        const ja_action *l = c->legal[s];
        uint32_t cnt = c->n_legal[s];
        uint32_t bad[4], nb = 0;
        if (l[cnt - 1].code != UINT32_MAX)
            bad[nb++] = l[cnt - 1].code + 1;
        for (uint32_t i = 1; i < cnt; i++)
            if (l[i].code - l[i - 1].code > 1) {
                bad[nb++] = l[i - 1].code + 1 + (l[i].code - l[i - 1].code - 1) / 2;
                break;
            }
        if (l[0].code > 0)
            bad[nb++] = l[0].code - 1;
        if (!in_list(l, cnt, UINT32_MAX) && (nb == 0 || bad[0] != UINT32_MAX))
            bad[nb++] = UINT32_MAX;
        for (uint32_t k = 0; k < nb; k++) {
            ja_action keep = by[s];
            by[s].code = bad[k];
            int rc = g->apply(c->st, mask, by);
            by[s] = keep;
            CHECK(c, c->twin, rc == JA_EILLEGAL,
                  "apply of code %u (not in seat %d's list of %u) returned %s", bad[k], s, cnt,
                  ja_err_name(rc));
            CHECK(c, c->twin, memcmp(c->st, c->twin, g->state_size) == 0,
                  "refused apply of code %u by seat %d changed the state", bad[k], s);
        }
    }
    /* Masks other than to_act. */
    uint32_t masks[4], nm = 0;
    masks[nm++] = 0;
    for (uint32_t t = 0; t < c->n; t++)
        if (!((mask >> t) & 1u)) {
            masks[nm++] = mask | (UINT32_C(1) << t);
            break;
        }
    if (c->n < 32)
        masks[nm++] = mask | (UINT32_C(1) << c->n);
    if (popcount32(mask) > 1)
        masks[nm++] = mask & (mask - 1);
    for (uint32_t k = 0; k < nm; k++) {
        int rc = g->apply(c->st, masks[k], by);
        CHECK(c, c->twin, rc == JA_EILLEGAL, "apply with seats 0x%x (to_act is 0x%x) returned %s",
              masks[k], mask, ja_err_name(rc));
        CHECK(c, c->twin, memcmp(c->st, c->twin, g->state_size) == 0,
              "refused apply with seats 0x%x (to_act 0x%x) changed the state", masks[k], mask);
    }
}

/* apply() by seat s with code: accepted exactly when the code is listed
 * (the state is then put back from c->twin), else JA_EILLEGAL with the
 * state unchanged. by holds a legal answer for every seat of mask. */
static void check_code(ctx *c, uint32_t mask, ja_action *by, int s, uint32_t code)
{
    const ja_game_rules *g = c->g;
    ja_action keep = by[s];
    by[s].code = code;
    int rc = g->apply(c->st, mask, by);
    by[s] = keep;
    int listed = in_list(c->legal[s], c->n_legal[s], code);
    if (rc == JA_OK) {
        memcpy(c->st, c->twin, g->state_size);
        CHECK(c, c->twin, listed, "apply accepted code %u by seat %d, not in its list of %u",
              code, s, c->n_legal[s]);
        return;
    }
    CHECK(c, c->twin, !listed && rc == JA_EILLEGAL,
          "apply of code %u by seat %d returned %s (the code is %sin its list of %u)", code, s,
          ja_err_name(rc), listed ? "" : "not ", c->n_legal[s]);
    CHECK(c, c->twin, memcmp(c->st, c->twin, g->state_size) == 0,
          "refused apply of code %u by seat %d changed the state", code, s);
}

/* Every code below SCAN_CODES (or a power of two past the largest listed,
 * up to SCAN_CODES_MAX) and the neighbours of every listed code, for every
 * seat of mask (c->twin holds the state's bytes). */
static void check_codes(ctx *c, uint32_t mask)
{
    ja_action by[JA_MAX_SEATS];
    memset(by, 0, sizeof by);
    for (uint32_t m = mask; m; m &= m - 1)
        by[__builtin_ctz(m)] = c->legal[__builtin_ctz(m)][0];
    for (uint32_t m = mask; m; m &= m - 1) {
        int s = __builtin_ctz(m);
        uint32_t hi = SCAN_CODES;
        while (hi <= c->legal[s][c->n_legal[s] - 1].code && hi < SCAN_CODES_MAX)
            hi *= 2;
        for (uint32_t code = 0; code < hi; code++)
            check_code(c, mask, by, s, code);
        for (uint32_t i = 0; i < c->n_legal[s]; i++)
            for (uint32_t d = 0; d < 5; d++) {
                uint32_t code = c->legal[s][i].code + d - 2; /* wraps at 0: UINT32_MAX - 1 .. */
                if (code >= hi)
                    check_code(c, mask, by, s, code);
            }
    }
}

static void check_outcome(ctx *c, const void *st, ja_outcome *o)
{
    const uint32_t n = c->n;
    memset(o, 0, sizeof *o);
    int rc = c->g->outcome(st, o);
    CHECK(c, st, rc == JA_OK, "to_act is 0 but outcome() returned %s", ja_err_name(rc));
    CHECK(c, st, o->n_seats == n, "outcome n_seats %u", o->n_seats);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t better = 0;
        for (uint32_t j = 0; j < n; j++)
            better += o->score[j] > o->score[i];
        CHECK(c, st, o->place[i] >= 1 && o->place[i] <= n, "seat %u has place %u of %u", i,
              o->place[i], n);
        CHECK(c, st, o->place[i] == better + 1,
              "seat %u: place %u, but %u seats scored more (score %lld)", i, o->place[i],
              better, (long long)o->score[i]);
    }
}

/* ---- One match ------------------------------------------------------------------ */

/* Plays one match of c->g with c->n seats and c->opt from c->seed with every
 * check. */
static void play_checked(ctx *c)
{
    const ja_game_rules *g = c->g;
    const uint32_t n = c->n;
    ja_action by[JA_MAX_SEATS];
    ja_outcome out;

    c->step = 0;
    c->phase = "setup";
    c->rec_len = 0;
    ja_rng_stream(&c->choose, c->seed, STREAM_CHOICE, 0);
    ja_rng_stream(&c->check, c->seed, STREAM_CHECK, 0);
    memset(c->st, 0xAA, g->state_size);
    int rc = g->setup(c->st, &c->opt, n, c->seed);
    CHECK(c, NULL, rc == JA_OK, "setup returned %s", ja_err_name(rc));
    update_begin(c);
    /* Setup writes every byte: clones and replays compare whole states. */
    memset(c->replay, 0x55, g->state_size);
    rc = g->setup(c->replay, &c->opt, n, c->seed);
    CHECK(c, NULL, rc == JA_OK && memcmp(c->st, c->replay, g->state_size) == 0,
          "two setups with the same seed differ (uninitialised bytes of the state?)");

    c->phase = "play";
    for (;;) {
        uint32_t mask = g->to_act(c->st);
        if (mask == 0)
            break;
        CHECK(c, c->st, c->step < STEP_BOUND, "no end after %u decisions", STEP_BOUND);
        CHECK(c, c->st, (mask >> n) == 0, "to_act 0x%x names a seat >= %u", mask, n);
        memcpy(c->twin, c->st, g->state_size);
        rc = g->outcome(c->st, &out);
        CHECK(c, c->st, rc == JA_EAGAIN, "outcome() before the end returned %s",
              ja_err_name(rc));
        c->decisions++;
        c->joint += popcount32(mask) > 1;

        for (uint32_t t = 0; t < n; t++) {
            uint32_t cnt = g->legal(c->st, (int)t, c->legal[t], g->max_actions);
            c->n_legal[t] = cnt;
            if ((mask >> t) & 1u) {
                check_legal_list(c, c->st, (int)t, c->legal[t], cnt, "real state");
                ja_action d = g->default_action(c->st, (int)t);
                CHECK(c, c->st, in_list(c->legal[t], cnt, d.code),
                      "default_action(seat %u) = %u is not in its legal list", t, d.code);
                check_labels(c, (int)t);
            } else {
                CHECK(c, c->st, cnt == 0, "legal(seat %u) not in to_act 0x%x returned %u", t,
                      mask, cnt);
            }
        }
        check_describe(c, c->st);
        int heavy = c->step < HEAVY_FIRST || ja_rng_below(&c->check, HEAVY_EVERY) == 0;
        for (uint32_t t = 0; t < n; t++)
            if (heavy || ((mask >> t) & 1u))
                observe_checked(c, c->st, (int)t, c->obs_a[t]);
        update_checked(c, c->st, 0);
        CHECK(c, c->st, memcmp(c->st, c->twin, g->state_size) == 0,
              "a read-only call (to_act, legal, default_action, label, describe, observe, "
              "observe_update, outcome) changed the state");

        /* Hidden information: the asked seats and others in rotation, up to
         * HIDDEN_SEATS (every seat in the long build); the deep checks
         * (determinism, playing on) for one of them at random. */
        if (heavy) {
            c->heavy++;
            check_public(c, mask);
            uint32_t hidden = mask;
            for (uint32_t k = 0; k < n && (uint32_t)popcount32(hidden) < HIDDEN_SEATS; k++)
                hidden |= UINT32_C(1) << ((c->step + k) % n);
            uint32_t deep = ja_rng_below(&c->check, (uint32_t)popcount32(hidden));
            for (uint32_t m = hidden, i = 0; m; m &= m - 1, i++)
                check_hidden(c, mask, __builtin_ctz(m), i == deep);
            check_chance(c, mask);
            CHECK(c, c->st, memcmp(c->st, c->twin, g->state_size) == 0,
                  "determinize or sample changed the real state");
        }

        check_illegal(c, mask);
        if (heavy && c->heavy % SCAN_EVERY == 0)
            check_codes(c, mask);

        /* Choose, record, apply to the state and to a clone. */
        memset(by, 0, sizeof by);
        record(c, mask);
        for (uint32_t m = mask; m; m &= m - 1) {
            int s = __builtin_ctz(m);
            by[s] = c->legal[s][ja_rng_below(&c->choose, c->n_legal[s])];
            record(c, by[s].code);
        }
        rc = g->apply(c->st, mask, by);
        CHECK(c, c->twin, rc == JA_OK, "apply of legal actions returned %s", ja_err_name(rc));
        rc = g->apply(c->twin, mask, by);
        CHECK(c, c->twin, rc == JA_OK, "apply to a memcpy clone returned %s", ja_err_name(rc));
        CHECK(c, c->st, memcmp(c->st, c->twin, g->state_size) == 0,
              "a memcpy clone given the same actions has different bytes");
        c->step++;
    }

    c->phase = "end";
    check_outcome(c, c->st, &out);
    for (uint32_t t = 0; t < n; t++) {
        CHECK(c, c->st, g->legal(c->st, (int)t, c->scratch, g->max_actions) == 0,
              "legal(seat %u) at the end is not empty", t);
        observe_checked(c, c->st, (int)t, c->obs_a[t]);
    }
    check_public(c, 0);
    update_checked(c, c->st, 1);
    check_describe(c, c->st);
    memcpy(c->twin, c->st, g->state_size);
    memset(by, 0, sizeof by);
    rc = g->apply(c->st, 0, by);
    CHECK(c, c->st, rc == JA_EILLEGAL && memcmp(c->st, c->twin, g->state_size) == 0,
          "apply after the end returned %s or changed the state", ja_err_name(rc));
    rc = g->apply(c->st, 1, by);
    CHECK(c, c->st, rc == JA_EILLEGAL && memcmp(c->st, c->twin, g->state_size) == 0,
          "apply after the end returned %s or changed the state", ja_err_name(rc));

    /* Replay: same seed, same choices, into a buffer filled differently. */
    c->phase = "replay";
    memset(c->replay, 0x55, g->state_size);
    rc = g->setup(c->replay, &c->opt, n, c->seed);
    CHECK(c, NULL, rc == JA_OK, "setup for the replay returned %s", ja_err_name(rc));
    size_t r = 0;
    for (c->step = 0; r < c->rec_len; c->step++) {
        uint32_t mask = c->rec[r++];
        uint32_t now = g->to_act(c->replay);
        CHECK(c, c->replay, now == mask, "replay asks 0x%x where the match asked 0x%x", now,
              mask);
        memset(by, 0, sizeof by);
        for (uint32_t m = mask; m; m &= m - 1)
            by[__builtin_ctz(m)].code = c->rec[r++];
        rc = g->apply(c->replay, mask, by);
        CHECK(c, c->replay, rc == JA_OK, "replayed apply returned %s", ja_err_name(rc));
    }
    CHECK(c, c->replay, g->to_act(c->replay) == 0, "the replay does not end where the match did");
    CHECK(c, c->replay, memcmp(c->replay, c->st, g->state_size) == 0,
          "the replay's final state differs from the match's");
    ja_outcome out2;
    check_outcome(c, c->replay, &out2);
    CHECK(c, c->replay,
          memcmp(out.score, out2.score, sizeof out.score) == 0 &&
              memcmp(out.place, out2.place, sizeof out.place) == 0,
          "the replay's outcome differs");
    c->matches++;
    c->phase = NULL;
}

/* ---- Tests --------------------------------------------------------------------------- */

static const ja_game_rules *current_game(void **state)
{
    return (const ja_game_rules *)*state;
}

/* The game table itself. */
static void test_table(void **state)
{
    const ja_game_rules *g = current_game(state);
    assert_int_equal(g->struct_size, sizeof(ja_game_rules));
    assert_non_null(g->name);
    assert_true(g->name[0] != '\0');
    for (const char *p = g->name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            fail_msg("game name \"%s\" is not lower-case words joined by '-'", g->name);
    assert_ptr_equal(ja_game_find(g->name), g);
    for (int i = 0; ja_games[i]; i++)
        if (ja_games[i] != g)
            assert_string_not_equal(ja_games[i]->name, g->name);
    assert_non_null(g->title);
    assert_true(g->title[0] != '\0');
    assert_true(g->min_seats >= 1);
    assert_true(g->min_seats <= g->max_seats);
    assert_true(g->max_seats <= JA_MAX_SEATS);
    assert_true(g->state_size > 0);
    assert_true(g->obs_size > 0);
    assert_true(g->max_actions >= 1 && g->max_actions <= JA_MAX_ACTIONS);
    assert_true(g->rules_version >= 1);
    assert_true(g->obs_version >= 1);
    assert_non_null(g->setup);
    assert_non_null(g->resolve_options);
    assert_non_null(g->to_act);
    assert_non_null(g->legal);
    assert_non_null(g->apply);
    assert_non_null(g->default_action);
    assert_non_null(g->observe);
    assert_non_null(g->outcome);
    assert_non_null(g->determinize);
    assert_non_null(g->sample);
    assert_non_null(g->label);
    assert_non_null(g->describe);
    /* Optional interfaces: stacked decks, the incremental observation
     * (every game offers both), and nothing for an unknown id. */
    const ja_ext_test_deal *td = ja_rules_extension(g, JA_EXT_TEST_DEAL);
    assert_non_null(td);
    assert_non_null(td->test_deal);
    const ja_ext_observe_update *ou = ja_rules_extension(g, JA_EXT_OBSERVE_UPDATE);
    assert_non_null(ou);
    assert_non_null(ou->update);
    assert_null(ja_rules_extension(g, "ja.test_deal.v0"));
    assert_null(ja_rules_extension(g, "ja.observe_update.v0"));
    assert_null(ja_rules_extension(g, ""));
    assert_null(ja_rules_extension(g, NULL));

    /* Option specs. */
    uint32_t no = n_options(g);
    assert_true(no <= JA_MAX_OPTIONS);
    for (uint32_t i = 0; i < no; i++) {
        const ja_option_spec *sp = &g->options[i];
        assert_true(sp->name[0] != '\0');
        assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz", sp->name[0]));
        for (uint32_t j = 0; j < i; j++)
            assert_string_not_equal(g->options[j].name, sp->name);
        assert_non_null(sp->def);
        assert_non_null(sp->help);
        if (sp->kind == JA_OPT_ENUM) {
            assert_non_null(sp->values);
            assert_true(sp->values[0] != '\0' && sp->values[strlen(sp->values) - 1] != '|');
            assert_null(strstr(sp->values, "||"));
            /* The default is one of the words. */
            char kv[256], err[512];
            ja_options o;
            ja_options_init(g, &o);
            snprintf(kv, sizeof kv, "%s=%s", sp->name, sp->def);
            if (ja_options_set(g, &o, kv, err, sizeof err) != JA_OK)
                fail_msg("%s: default of option %s is not allowed: %s", g->name, sp->name, err);
        } else {
            assert_int_equal(sp->kind, JA_OPT_INT);
            assert_true(sp->min <= sp->max);
        }
    }

    /* Observation fields: inside the struct, no overlap, known types. */
    static const uint32_t width[JA_FT_COUNT] = {1, 1, 2, 2, 4, 4, 8};
    assert_non_null(g->obs_fields);
    assert_true(g->n_obs_fields > 0);
    uint8_t *owner = talloc(g->obs_size);
    memset(owner, 0, g->obs_size);
    for (uint32_t i = 0; i < g->n_obs_fields; i++) {
        const ja_field *f = &g->obs_fields[i];
        assert_non_null(f->name);
        assert_true(f->name[0] != '\0');
        assert_true(f->type < JA_FT_COUNT);
        assert_true(f->count >= 1);
        assert_true(f->offset % width[f->type] == 0);
        uint64_t end = (uint64_t)f->offset + (uint64_t)width[f->type] * f->count;
        if (end > g->obs_size)
            fail_msg("field %s ends at %llu, past obs_size %u", f->name, (unsigned long long)end,
                     g->obs_size);
        for (uint64_t b = f->offset; b < end; b++) {
            if (owner[b])
                fail_msg("field %s overlaps another field at byte %llu", f->name,
                         (unsigned long long)b);
            owner[b] = 1;
        }
        for (uint32_t j = 0; j < i; j++)
            assert_string_not_equal(g->obs_fields[j].name, f->name);
    }

    /* Seat counts: defaults resolve in range, and nothing outside it. */
    char err[512];
    ja_options o;
    for (uint32_t n = g->min_seats; n <= g->max_seats; n++) {
        ja_options_init(g, &o);
        if (ja_options_resolve(g, &o, n, err, sizeof err) != JA_OK)
            fail_msg("%s: default options do not resolve for %u seats: %s", g->name, n, err);
    }
    ja_options_init(g, &o);
    assert_int_equal(ja_options_resolve(g, &o, g->max_seats + 1u, err, sizeof err), JA_EINVAL);
    if (g->min_seats > 0)
        assert_int_equal(ja_options_resolve(g, &o, g->min_seats - 1u, err, sizeof err),
                         JA_EINVAL);

    void *st = talloc(g->state_size);
    ja_options_init(g, &o);
    assert_int_equal(ja_options_resolve(g, &o, g->min_seats, err, sizeof err), JA_OK);
    assert_int_equal(g->setup(st, &o, g->max_seats + 1u, 1), JA_EINVAL);
    assert_int_equal(g->setup(st, &o, 0, 1), JA_EINVAL);

    /* The seed matters: sixteen seeds do not all give seat 0 the same view. */
    uint8_t *first = talloc(g->obs_size), *obs = talloc(g->obs_size);
    int differ = 0;
    for (uint64_t seed = 0; seed < 16; seed++) {
        assert_int_equal(g->setup(st, &o, g->min_seats, seed), JA_OK);
        g->observe(st, 0, seed ? obs : first);
        if (seed && memcmp(obs, first, g->obs_size) != 0)
            differ = 1;
    }
    if (!differ)
        fail_msg("%s: 16 different seeds give seat 0 the same observation", g->name);
    /* Labels of codes no game uses. */
    char lab[LABEL_CAP];
    ja_action none = {UINT32_MAX};
    assert_true(g->label(none, lab, sizeof lab) < 0);
}

static void print_stats(const ctx *c)
{
    print_message("  %s: %llu configurations (%llu refused by resolve), %llu matches, %llu "
                  "decisions (%llu joint, %llu with heavy checks); determinize changed the "
                  "state in %.1f%% and another seat's view in %.1f%% of %llu calls; %llu "
                  "samples\n",
                  c->g->name, (unsigned long long)c->configs,
                  (unsigned long long)c->configs_skipped, (unsigned long long)c->matches,
                  (unsigned long long)c->decisions, (unsigned long long)c->joint,
                  (unsigned long long)c->heavy,
                  c->detz ? 100.0 * (double)c->detz_state_changed / (double)c->detz : 0.0,
                  c->detz ? 100.0 * (double)c->detz_other_changed / (double)c->detz : 0.0,
                  (unsigned long long)c->detz, (unsigned long long)c->samples);
    print_message("  %s: %llu public observations, %llu of their fields compared with a "
                  "seat's\n", c->g->name, (unsigned long long)c->publics,
                  (unsigned long long)c->public_compared);
    print_message("  %s: %llu reshuffles (JA_EXT_CHANCE), %llu with several unseen cards, %llu "
                  "of them moved one\n", c->g->name, (unsigned long long)c->reshuffles,
                  (unsigned long long)c->reshuffle_many, (unsigned long long)c->reshuffle_moved);
    if (c->ou)
        print_message("  %s: %llu incremental observations (%llu from a cleared buffer)\n",
                      c->g->name, (unsigned long long)c->updates,
                      (unsigned long long)c->updates_cleared);
}

static ctx *g_ctx; /* the properties test's context, freed by its teardown */

static int teardown(void **state)
{
    (void)state;
    ctx_free(g_ctx);
    g_ctx = NULL;
    while (g_n_allocs > 0)
        free(g_allocs[--g_n_allocs]);
    return 0;
}

/* Plays COVER_MATCHES matches of configuration (e, v) with n seats, unless
 * the options are refused (a combination the game does not allow). */
static void play_config(ctx *c, uint32_t n, uint32_t e, uint32_t v, uint64_t stream,
                        uint32_t matches)
{
    ja_options o;
    config_options(c->g, e, v, &o);
    if (resolve_into(c, &o, n) != 0) {
        c->configs_skipped++;
        return;
    }
    c->configs++;
    for (uint32_t m = 0; m < matches; m++) {
        c->seed = ja_seed_derive(BASE_SEED, stream, m);
        play_checked(c);
    }
}

/* The two phases of the budget (see Budgets above). */
static void test_properties(void **state)
{
    const ja_game_rules *g = current_game(state);
    ctx *c = g_ctx = ctx_new(g);
    const uint32_t ne = n_enum_combos(g), nv = n_int_variants(g), def_e = default_enum_index(g);
    for (uint32_t n = g->min_seats; n <= g->max_seats; n++) {
        for (uint32_t e = 0; e < ne; e++)
            for (uint32_t v = 0; v < nv; v++) {
                /* Fast: one short INT variant per ENUM combination, in
                 * rotation; every INT variant for the default ENUMs. */
                uint32_t shortv = nv > 1 ? 1 + (n + e) % (nv - 1) : 0;
                if (!JA_PROPERTY_LONG && e != def_e && v != shortv)
                    continue;
                uint64_t stream = ((uint64_t)n << 48) | ((uint64_t)e << 16) | v;
                play_config(c, n, e, v, stream, COVER_MATCHES);
            }
    }
    ja_rng pick;
    ja_rng_stream(&pick, BASE_SEED, STREAM_CONFIG, 0);
    for (uint64_t i = 0; c->matches < MIN_MATCHES && c->decisions < DECISION_BUDGET &&
                         i < 100u * MIN_MATCHES;
         i++) {
        uint32_t n = g->min_seats + ja_rng_below(&pick, g->max_seats - g->min_seats + 1u);
        /* Mostly short INT variants: more, and more varied, matches. */
        uint32_t e = ja_rng_below(&pick, ne), v = 0;
        if (nv > 1 && ja_rng_below(&pick, 8) != 0)
            v = 1 + ja_rng_below(&pick, nv - 1);
        play_config(c, n, e, v, ((uint64_t)STREAM_CONFIG << 32) | i, 1);
    }
    if (c->reshuffle_many > 0 && c->reshuffle_moved == 0)
        fail_msg("%s: reshuffle never moved an unseen card, over %llu states with several",
                 g->name, (unsigned long long)c->reshuffle_many);
    if (c->detz > 0 && c->detz_other_changed == 0)
        fail_msg("%s: determinize never changed what another seat sees, over %llu calls: it "
                 "re-deals nothing, so the leak test proves nothing",
                 g->name, (unsigned long long)c->detz);
    print_stats(c);
}

/* Chi-square of the position a card takes among the unseen places after
 * CHI_PER_PLACE * m reshuffles of st (m unseen cards, m >= 2): the first
 * unseen card's place, which must be uniform. Returns the statistic; *df
 * gets its degrees of freedom. */
#define CHI_PER_PLACE 40u
static double chance_chi2(ctx *c, const uint8_t *st, uint32_t m, uint32_t *df)
{
    const ja_game_rules *g = c->g;
    uint8_t card = c->unseen_a[0];
    uint32_t hits[256] = {0}, draws = CHI_PER_PLACE * m;
    for (uint32_t k = 0; k < draws; k++) {
        memcpy(c->copy, st, g->state_size);
        c->ch->reshuffle(c->copy, ja_seed_derive(c->seed, STREAM_RESHUFFLE, k));
        CHECK(c, st, c->ch->unseen(c->copy, c->unseen_b, 256) == m,
              "reshuffle changed the unseen count");
        uint32_t at = 0;
        while (at < m && c->unseen_b[at] != card)
            at++;
        CHECK(c, st, at < m, "reshuffle lost unseen card %u", card);
        hits[at]++;
    }
    double chi2 = 0;
    for (uint32_t i = 0; i < m; i++) {
        double d = (double)hits[i] - CHI_PER_PLACE;
        chi2 += d * d / CHI_PER_PLACE;
    }
    *df = m - 1;
    return chi2;
}

/* JA_EXT_CHANCE's reshuffle is uniform: along a seeded random match of the
 * default options at the fewest seats, at every 7th decision with at least 2
 * unseen cards, the first unseen card's place after reshuffles passes a
 * chi-square test (statistic below df + 6 sqrt(2 df): a uniform shuffle
 * fails it about once in 10^7; the seeds are fixed, so the test is
 * deterministic). A game whose every card is dealt (Bombs) has none unseen
 * at any point: checked instead. */
static void test_chance(void **state)
{
    const ja_game_rules *g = current_game(state);
    ctx *c = g_ctx = ctx_new(g);
    ja_options o;
    ja_options_init(g, &o);
    assert_int_equal(resolve_into(c, &o, g->min_seats), 0);
    c->seed = ja_seed_derive(BASE_SEED, STREAM_RESHUFFLE, 0);
    c->phase = "chance";
    assert_int_equal(g->setup(c->st, &c->opt, c->n, c->seed), JA_OK);
    ja_rng_stream(&c->choose, c->seed, STREAM_CHOICE, 0);
    ja_action by[JA_MAX_SEATS];
    uint32_t tested = 0, seen_unseen = 0;
    for (c->step = 0; g->to_act(c->st) != 0 && c->step < STEP_BOUND; c->step++) {
        uint32_t mask = g->to_act(c->st), m = c->ch->unseen(c->st, c->unseen_a, 256);
        seen_unseen += m > 0;
        if (m >= 2 && c->step % 7 == 0 && tested < 12) {
            uint32_t df;
            double chi2 = chance_chi2(c, c->st, m, &df), bound = df + 6.0 * sqrt(2.0 * df);
            CHECK(c, c->st, chi2 < bound,
                  "reshuffle is not uniform: chi-square %.1f >= %.1f (%u places, %u draws)", chi2,
                  bound, m, CHI_PER_PLACE * m);
            tested++;
        }
        memset(by, 0, sizeof by);
        for (uint32_t mm = mask; mm; mm &= mm - 1) {
            int s = __builtin_ctz(mm);
            uint32_t cnt = g->legal(c->st, s, c->scratch, g->max_actions);
            by[s] = c->scratch[ja_rng_below(&c->choose, cnt)];
        }
        assert_int_equal(g->apply(c->st, mask, by), JA_OK);
    }
    print_message("  %s: %u chi-square tests of reshuffle, %u decisions with unseen cards\n",
                  g->name, tested, seen_unseen);
    if (strcmp(g->name, "bombs") == 0)
        assert_int_equal(seen_unseen, 0);
    else
        assert_true(tested > 0);
    assert_int_equal(c->ch->unseen(c->st, NULL, 0), 0); /* over */
    c->phase = NULL;
}

/* JA_PROPERTY_REPRO="game n_seats seed [k=v ...]": just that match. */
static int run_repro(const char *spec)
{
    char buf[1024], *save = NULL;
    snprintf(buf, sizeof buf, "%s", spec);
    const char *name = strtok_r(buf, " ", &save);
    const char *ns = strtok_r(NULL, " ", &save);
    const char *ss = strtok_r(NULL, " ", &save);
    const ja_game_rules *g = name ? ja_game_find(name) : NULL;
    if (!g || !ns || !ss) {
        fprintf(stderr, "JA_PROPERTY_REPRO=\"game n_seats seed [k=v ...]\"\n");
        return 2;
    }
    ja_options o;
    char err[512];
    ja_options_init(g, &o);
    for (const char *kv; (kv = strtok_r(NULL, " ", &save));)
        if (ja_options_set(g, &o, kv, err, sizeof err) != JA_OK) {
            fprintf(stderr, "%s\n", err);
            return 2;
        }
    ctx *c = ctx_new(g);
    if (resolve_into(c, &o, (uint32_t)strtoul(ns, NULL, 0)) != 0) {
        fprintf(stderr, "options or seat count refused\n");
        ctx_free(c);
        return 2;
    }
    c->seed = strtoull(ss, NULL, 0);
    play_checked(c);
    print_stats(c);
    ctx_free(c);
    return 0;
}

/* ---- The engine prints nothing ----------------------------------------------------- */

/* A few matches with stdout and stderr sent to a file; every function of the
 * table is called. Failures inside are counted, not asserted, so nothing is
 * printed while the descriptors are redirected. */
static void test_silent(void **state)
{
    const ja_game_rules *g = current_game(state);
    fflush(stdout);
    fflush(stderr);
    FILE *sink = tmpfile();
    assert_non_null(sink);
    int out = dup(1), errfd = dup(2);
    assert_true(out >= 0 && errfd >= 0);
    dup2(fileno(sink), 1);
    dup2(fileno(sink), 2);

    int problems = 0;
    uint8_t *st = malloc(g->state_size), *st2 = malloc(g->state_size);
    uint8_t *obs = malloc(g->obs_size);
    ja_action *l = malloc(g->max_actions * sizeof *l);
    char buf[DESCRIBE_CAP];
    ja_rng r;
    ja_rng_seed(&r, 99);
    for (uint32_t n = g->min_seats; n <= g->max_seats && st && st2 && obs && l; n++) {
        ja_options o;
        ja_options_init(g, &o);
        if (ja_options_resolve(g, &o, n, buf, sizeof buf) != JA_OK ||
            g->setup(st, &o, n, n) != JA_OK) {
            problems++;
            continue;
        }
        for (uint64_t steps = 0; steps < STEP_BOUND; steps++) {
            uint32_t mask = g->to_act(st);
            g->describe(st, buf, sizeof buf);
            if (!mask)
                break;
            ja_action by[JA_MAX_SEATS] = {{0}};
            for (uint32_t m = mask; m; m &= m - 1) {
                int s = __builtin_ctz(m);
                uint32_t cnt = g->legal(st, s, l, g->max_actions);
                if (cnt == 0) {
                    problems++;
                    break;
                }
                by[s] = l[ja_rng_below(&r, cnt)];
                g->label(by[s], buf, sizeof buf);
                (void)g->default_action(st, s);
                g->observe(st, s, obs);
                memcpy(st2, st, g->state_size);
                g->determinize(st2, s, steps);
                (void)g->sample(obs, s, steps, st2);
            }
            if (g->apply(st, mask, by) != JA_OK) {
                problems++;
                break;
            }
        }
        ja_outcome res;
        if (g->outcome(st, &res) != JA_OK)
            problems++;
    }
    free(st);
    free(st2);
    free(obs);
    free(l);

    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(errfd, 2);
    close(out);
    close(errfd);
    long size = (fseek(sink, 0, SEEK_END) == 0) ? ftell(sink) : -1;
    char head[200] = "";
    if (size > 0) {
        rewind(sink);
        size_t got = fread(head, 1, sizeof head - 1, sink);
        head[got] = '\0';
    }
    fclose(sink);
    if (size != 0)
        fail_msg("%s printed %ld bytes; it must print nothing: \"%s\"", g->name, size, head);
    assert_int_equal(problems, 0);
}

/* ---- Signature ---------------------------------------------------------------------- */

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xFF;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* FNV-1a 64 over, for each seat count and each of SIG_MATCHES seeded random
 * matches with default options: the seat count, every decision's mask and
 * chosen codes, and every seat's final score and place. */
static uint64_t game_signature(const ja_game_rules *g)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    uint8_t *st = talloc(g->state_size);
    ja_action *l = talloc(g->max_actions * sizeof *l);
    char err[512];
    for (uint32_t n = g->min_seats; n <= g->max_seats; n++) {
        ja_options o;
        ja_options_init(g, &o);
        assert_int_equal(ja_options_resolve(g, &o, n, err, sizeof err), JA_OK);
        for (uint32_t i = 0; i < SIG_MATCHES; i++) {
            uint64_t seed = ja_seed_derive(SIG_SEED, n, i);
            ja_rng r;
            ja_rng_stream(&r, seed, STREAM_CHOICE, 0);
            assert_int_equal(g->setup(st, &o, n, seed), JA_OK);
            h = fnv(h, n);
            uint64_t steps = 0;
            for (uint32_t mask; (mask = g->to_act(st)) != 0; steps++) {
                if (steps >= STEP_BOUND)
                    fail_msg("%s: %u seats, seed 0x%016llx: no end", g->name, n,
                             (unsigned long long)seed);
                ja_action by[JA_MAX_SEATS] = {{0}};
                h = fnv(h, mask);
                for (uint32_t m = mask; m; m &= m - 1) {
                    int s = __builtin_ctz(m);
                    uint32_t cnt = g->legal(st, s, l, g->max_actions);
                    assert_true(cnt >= 1);
                    by[s] = l[ja_rng_below(&r, cnt)];
                    h = fnv(h, by[s].code);
                }
                assert_int_equal(g->apply(st, mask, by), JA_OK);
            }
            ja_outcome out;
            assert_int_equal(g->outcome(st, &out), JA_OK);
            for (uint32_t s = 0; s < n; s++) {
                h = fnv(h, (uint64_t)out.score[s]);
                h = fnv(h, out.place[s]);
            }
        }
    }
    return h;
}

/* tests/rules/signatures.txt, from JA_SOURCE_DIR or next to this file. */
static FILE *open_signatures(char *path, size_t cap)
{
    const char *src = getenv("JA_SOURCE_DIR");
    if (src && *src) {
        snprintf(path, cap, "%s/tests/rules/signatures.txt", src);
    } else {
        snprintf(path, cap, "%s", __FILE__);
        char *slash = strrchr(path, '/');
        if (slash)
            snprintf(slash + 1, cap - (size_t)(slash + 1 - path), "signatures.txt");
        else
            snprintf(path, cap, "signatures.txt");
    }
    return fopen(path, "r");
}

static void test_signature(void **state)
{
    const ja_game_rules *g = current_game(state);
    uint64_t h = game_signature(g);
    char path[4096], line[512];
    FILE *f = open_signatures(path, sizeof path);
    int found = 0;
    unsigned long long want = 0;
    while (f && fgets(line, sizeof line, f)) {
        char name[256];
        if (line[0] == '#' || sscanf(line, "%255s %llx", name, &want) != 2)
            continue;
        if (strcmp(name, g->name) == 0) {
            found = 1;
            break;
        }
    }
    if (f)
        fclose(f);
    if (!found)
        fail_msg("no signature for %s in %s; if this play is intended, add the line\n"
                 "%s %016llx",
                 g->name, path, g->name, (unsigned long long)h);
    if (want != h)
        fail_msg("signature of %s changed: %016llx in %s, %016llx now.\n"
                 "If the change of play is intended, put this line in the file and say\n"
                 "\"Signature: %016llx\" in the commit message:\n%s %016llx",
                 g->name, want, path, (unsigned long long)h, (unsigned long long)h, g->name,
                 (unsigned long long)h);
}

/* ---- main ---------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc > 0 && argv[0])
        g_prog = argv[0];
    const char *repro = getenv("JA_PROPERTY_REPRO");
    if (repro && *repro)
        return run_repro(repro);

    static const struct {
        const char *what;
        CMUnitTestFunction fn;
    } kinds[] = {
        {"table", test_table},
        {"properties", test_properties},
        {"silent", test_silent},
        {"signature", test_signature},
        {"chance", test_chance},
    };
    enum { KINDS = sizeof kinds / sizeof kinds[0] };
    size_t n_games = 0;
    while (ja_games[n_games])
        n_games++;
    if (n_games == 0) {
        fprintf(stderr, "the registry ja_games[] is empty\n");
        return 1;
    }
    struct CMUnitTest *tests = calloc(n_games * KINDS, sizeof *tests);
    char (*names)[128] = calloc(n_games * KINDS, sizeof *names);
    if (!tests || !names)
        return 1;
    size_t k = 0;
    for (size_t i = 0; i < n_games; i++)
        for (size_t j = 0; j < KINDS; j++, k++) {
            snprintf(names[k], sizeof names[k], "%s/%s", ja_games[i]->name, kinds[j].what);
            tests[k].name = names[k];
            tests[k].test_func = kinds[j].fn;
            tests[k].teardown_func = teardown;
            tests[k].initial_state = (void *)ja_games[i];
        }
    int rc = _cmocka_run_group_tests(JA_PROPERTY_LONG ? "all_games_long" : "all_games", tests, k,
                                     NULL, NULL);
    free(tests);
    free(names);
    return rc;
}
