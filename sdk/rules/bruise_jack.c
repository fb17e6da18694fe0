/* Bruise Jack: the rules engine (Way 1 and Way 2, with the 5-card Guile
 * option). It implements the project's specification of the game; the rules
 * as implemented, with every decision the specification left open, are in
 * docs/rules/bruise-jack.md. Section (§) and resolution (#) numbers below
 * are the specification's.
 *
 * The state is one flat, pointer-free struct (memcpy clones it). It holds the
 * future: the match seed, from which every hand's shuffle and Way 1 row order
 * are derived, the stock's order, and the current hand's hidden row order.
 * Nothing here allocates, blocks or keeps global mutable state.
 *
 * Invariants kept by every function that changes the state:
 *  - Outside stage OVER, `cur` is the one seat deciding, it is dealt in and
 *    not finished, and `stage` says what it decides. Automatic steps (claims,
 *    showdowns, the next deal) happen inside apply, so after apply the state
 *    is always at a decision or over.
 *  - Each card id is in exactly one place: a centre, a row, the discard pile,
 *    `drawn` (stage PLACE only), the stock deck[next..125), or the history
 *    deck[0..next) of cards already dealt (which nothing reads).
 *  - A seat not dealt in (a replay's bystander) has no centre, no up cards,
 *    no claims and has not stood. A seat with no centre has claimed all three
 *    rows (Way 1). Way 1: an unclaimed row of a seat in the hand never has
 *    the Bruise Jack shape, since claims are compulsory (#7, #8). */
#include "jackarena/ja_bruise_jack.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "engine_util.h"

#include <stdio.h>
#include <string.h>

#define MAXS JA_BRUISE_JACK_MAX_SEATS
#define CARDS JA_BRUISE_JACK_CARDS
#define ROWS JA_BRUISE_JACK_ROWS
#define MAX_UP JA_BRUISE_JACK_MAX_UP
#define MAX_DISCARD JA_BRUISE_JACK_MAX_DISCARD
#define N_EVENTS JA_BRUISE_JACK_EVENTS
#define NONE JA_BRUISE_JACK_NONE
#define ALL_ROWS 7u       /* the claimed mask of a seat whose three rows are claimed */
#define MAX_REPLAYS 3     /* replays of one tie before the point is shared (§9) */
#define FIRST_ORDERS 10   /* test_deal: first = dealer + FIRST_ORDERS * order (1..6) */
#define HAND_STREAMS 4    /* stream index of a hand: hand * 4 + replay */
/* The stream of Way 1 row orders, one per hand and replay (spec §8.3). */
#define STREAM_ORDER JA_TAG('O', 'R', 'D', 'R')

/* The options, in spec order (engine_util.h, "Options"). */
#define BRUISE_JACK_OPTIONS(X) \
    X(WAY, "way", JA_OPT_ENUM, "1|2", 0, 0, "1",                                                   \
      "1: automatic Bruise Jack claims, rows compared one by one in a random order; 2: "           \
      "hidden Bruise Jacks worth 16, row scores added")                                            \
    X(GUILE, "guile", JA_OPT_ENUM, "off|on", 0, 0, "off",                                          \
      "the 5-card Guile: a non-bust row of 5 cards ranks below a Bruise Jack only (way 1) "        \
      "or scores 11 (way 2); rows hold at most 5 cards")                                           \
    X(TIES, "ties", JA_OPT_ENUM, "split|replay", 0, 0, "split",                                    \
      "tied winners share the hand's point, or replay it among themselves (3 replays at "          \
      "most)")                                                                                     \
    X(HANDS, "hands", JA_OPT_INT, NULL, 1, 1000, "2*N",                                            \
      "hands in a match; the dealer rotates")
enum { BRUISE_JACK_OPTIONS(EU_OPT_ID) OPT_COUNT };
enum { TIES_SPLIT, TIES_REPLAY };

/* The six row orders, lexicographic: test_deal's order k is ORDERS[k - 1]. */
static const uint8_t ORDERS[6][ROWS] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                        {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

typedef struct bj_state {
    uint64_t seed;                  /* the match seed: every later deal comes from it */
    int32_t score[MAXS];            /* units of 1/JA_SCORE_UNIT */
    uint32_t event_seq;             /* public events so far in the match */
    uint32_t hand_ev;               /* event_seq just before this hand's DEAL */
    uint16_t hands, hand, showdowns;
    uint8_t n, way, guile, ties;    /* way is 1 or 2 */
    uint8_t replay;                 /* 0 in a regular hand, 1..3 in a replay */
    uint8_t active;                 /* bit s: seat s is dealt in */
    uint8_t rot_dealer, dealer, cur, stage;
    uint8_t drawn;                  /* stage PLACE: the card the seat to act drew */
    uint8_t next;                   /* cards dealt from deck so far */
    uint8_t deck[CARDS];            /* this hand's shuffled deck; deck[next] tops the stock */
    uint8_t order[ROWS];            /* Way 1: the hidden row order of this hand */
    uint8_t centre[MAXS];           /* NONE when the seat has none */
    uint8_t up[MAXS][ROWS][MAX_UP];
    uint8_t up_count[MAXS][ROWS];
    uint8_t claimed[MAXS];          /* bit r: row r is a claimed Bruise Jack */
    uint8_t stood[MAXS];
    uint8_t discard[MAX_DISCARD], discard_count;
    /* The last showdown (public). */
    uint8_t last_centre[MAXS], last_row[MAXS][ROWS], last_order[ROWS], last_winners;
    /* The event ring: event number q (1-based) sits in slot (q - 1) % N_EVENTS. */
    uint8_t ev_kind[N_EVENTS], ev_seat[N_EVENTS], ev_arg[N_EVENTS], ev_card[N_EVENTS];
} bj_state;

/* ---- Seats and rows ------------------------------------------------------------ */

static bool in_hand(const bj_state *s, int p) { return (s->active >> p) & 1u; }

static bool is_claimed(const bj_state *s, int p, int r) { return (s->claimed[p] >> r) & 1u; }

static uint32_t stock_count(const bj_state *s) { return CARDS - s->next; }

/* The hard sum of the row's up cards (spec §4: shown). */
static int shown(const bj_state *s, int p, int r)
{
    int v = 0;
    for (int i = 0; i < s->up_count[p][r]; i++)
        v += ja_bruise_jack_hard(s->up[p][r][i], r);
    return v;
}

/* Spec §4: a row may receive a card iff its up cards show at most 10, it
 * holds fewer than 5 cards with the Guile rule, and it is not a claimed Way 1
 * Bruise Jack. Only seats dealt in have open rows. v is shown(s, p, r). */
static bool row_open_shown(const bj_state *s, int p, int r, int v)
{
    return in_hand(s, p) && !is_claimed(s, p, r) && v < JA_BRUISE_JACK_TARGET &&
           !(s->guile && 1 + s->up_count[p][r] >= 5);
}

/* The same, summing the row's up cards only when the rest leaves it open. */
static bool row_open(const bj_state *s, int p, int r)
{
    return in_hand(s, p) && !is_claimed(s, p, r) && row_open_shown(s, p, r, shown(s, p, r));
}

static bool has_open_row(const bj_state *s, int p)
{
    for (int r = 0; r < ROWS; r++)
        if (row_open(s, p, r))
            return true;
    return false;
}

/* Spec §6: finished once stood, with no open row, or with the stock empty. */
static bool finished(const bj_state *s, int p)
{
    return !in_hand(s, p) || s->stood[p] || !has_open_row(s, p) || stock_count(s) == 0;
}

/* The showdown value of a row (ja_bruise_jack_row_value). */
static int row_value(const bj_state *s, int p, int r)
{
    uint8_t cards[1 + MAX_UP];
    int k = 0;
    if (s->centre[p] != NONE)
        cards[k++] = s->centre[p];
    for (int i = 0; i < s->up_count[p][r]; i++)
        cards[k++] = s->up[p][r][i];
    return ja_bruise_jack_row_value(s->way, s->guile, s->way == 1 && is_claimed(s, p, r), cards,
                                    k, r);
}

/* Way 1: the unclaimed rows of seat p whose first up card pairs with the
 * centre c (spec §4). During the deal each such row holds just that card, so
 * these are the Bruise Jacks c makes; later they are the rows whose first
 * card c may not pair with (spec §7, Hidden information). */
static uint8_t bruise_rows(const bj_state *s, int p, uint8_t c)
{
    uint8_t m = 0;
    for (int r = 0; r < ROWS; r++)
        if (!is_claimed(s, p, r) && s->up_count[p][r] > 0 &&
            ja_bruise_jack_pair(c, s->up[p][r][0], r))
            m |= (uint8_t)(1u << r);
    return m;
}

/* The seat after p (clockwise) that is dealt in; p itself if it is the only one. */
static int next_in_hand(const bj_state *s, int p)
{
    for (int k = 1; k <= s->n; k++) {
        int q = (p + k) % s->n;
        if (in_hand(s, q))
            return q;
    }
    return p;
}

/* ---- Events ---------------------------------------------------------------------- */

static void push_event(bj_state *s, int kind, int seat, int arg, int card)
{
    uint32_t slot = eu_ring_push(&s->event_seq, N_EVENTS);
    s->ev_kind[slot] = (uint8_t)kind;
    s->ev_seat[slot] = (uint8_t)seat;
    s->ev_arg[slot] = (uint8_t)arg;
    s->ev_card[slot] = (uint8_t)card;
}

/* ---- The flow of a hand ---------------------------------------------------------- */

static void discard(bj_state *s, uint8_t c)
{
    s->discard[s->discard_count++] = c;
}

/* Way 1 claims of seat p (spec §5.4, #7, #9, #25): while its centre makes
 * Bruise Jacks, reveal it, discard it with the up cards of those rows, lock
 * them, and deal a new centre unless every row is claimed. */
static void claim(bj_state *s, int p)
{
    for (uint8_t b; (b = bruise_rows(s, p, s->centre[p])) != 0;) {
        push_event(s, JA_BRUISE_JACK_EV_REVEAL, p, 0, s->centre[p]);
        discard(s, s->centre[p]);
        for (int r = 0; r < ROWS; r++)
            if ((b >> r) & 1u) {
                push_event(s, JA_BRUISE_JACK_EV_CLAIM, p, r, s->up[p][r][0]);
                discard(s, s->up[p][r][0]);
                s->up[p][r][0] = 0;
                s->up_count[p][r] = 0;
            }
        s->claimed[p] |= b;
        if (s->claimed[p] == ALL_ROWS) {
            s->centre[p] = NONE;
            return;
        }
        s->centre[p] = s->deck[s->next++];
        push_event(s, JA_BRUISE_JACK_EV_CENTRE, p, 0, NONE);
    }
}

/* Lays out the current hand from s->deck (dealer, active seats and order
 * already set): clears the table, deals four rounds from dealer + 1 to the
 * dealer (centres, then the COLOUR, NUMBER and SUIT up cards: spec §5.3,
 * #5), then the Way 1 claims in the same seat order. Scores, the last
 * showdown and the events before this hand are kept. */
static void lay_out(bj_state *s)
{
    memset(s->centre, NONE, sizeof s->centre);
    memset(s->up, 0, sizeof s->up);
    memset(s->up_count, 0, sizeof s->up_count);
    memset(s->claimed, 0, sizeof s->claimed);
    memset(s->stood, 0, sizeof s->stood);
    memset(s->discard, 0, sizeof s->discard);
    s->discard_count = 0;
    s->drawn = NONE;
    s->next = 0;
    s->hand_ev = s->event_seq;
    push_event(s, JA_BRUISE_JACK_EV_DEAL, s->dealer, s->replay, NONE);
    int seats = eu_popcount32(s->active);
    for (int round = 0; round < 1 + ROWS; round++)
        for (int i = 0, p = s->dealer; i < seats; i++) {
            p = next_in_hand(s, p);
            uint8_t c = s->deck[s->next++];
            if (round == 0) {
                s->centre[p] = c;
            } else {
                s->up[p][round - 1][0] = c;
                s->up_count[p][round - 1] = 1;
            }
        }
    if (s->way == 1)
        for (int i = 0, p = s->dealer; i < seats; i++) {
            p = next_in_hand(s, p);
            claim(s, p);
        }
}

/* The stream index of the current hand: each (hand, replay) has its own. */
static uint64_t hand_stream(const bj_state *s)
{
    return (uint64_t)s->hand * HAND_STREAMS + s->replay;
}

/* Way 1: this hand's row order, a uniform permutation from its own stream
 * (spec §8.3). Way 2 keeps the canonical order, which nothing reads. */
static void draw_order(bj_state *s)
{
    memcpy(s->order, ORDERS[0], ROWS);
    if (s->way == 1) {
        ja_rng r;
        ja_rng_stream(&r, s->seed, STREAM_ORDER, hand_stream(s));
        ja_shuffle_u8(&r, s->order, ROWS);
    }
}

/* Shuffles the 125 ids (ascending order first) from this hand's stream and
 * lays the hand out. */
static void deal_hand(bj_state *s)
{
    for (int i = 0; i < CARDS; i++)
        s->deck[i] = (uint8_t)i;
    ja_rng r;
    ja_rng_stream(&r, s->seed, JA_STREAM_DEAL, hand_stream(s));
    ja_shuffle_u8(&r, s->deck, CARDS);
    draw_order(s);
    lay_out(s);
}

/* The seats among `cand` whose value in row r is the highest among them. */
static uint8_t leaders_in_row(const uint8_t val[MAXS][ROWS], uint8_t cand, int r)
{
    int best = -1;
    uint8_t m = 0;
    for (int p = 0; p < MAXS; p++) {
        if (!((cand >> p) & 1u))
            continue;
        if (val[p][r] > best) {
            best = val[p][r];
            m = 0;
        }
        if (val[p][r] == best)
            m |= (uint8_t)(1u << p);
    }
    return m;
}

/* The winners of the hand (spec §9): Way 1 narrows the seats row by row in
 * the hidden order to those leading among the remaining candidates; Way 2
 * takes the highest sum of row scores. */
static uint8_t winners(const bj_state *s, const uint8_t val[MAXS][ROWS])
{
    if (s->way == 1) {
        uint8_t cand = s->active;
        for (int i = 0; i < ROWS; i++)
            cand = leaders_in_row(val, cand, s->order[i]);
        return cand;
    }
    int best = -1;
    uint8_t m = 0;
    for (int p = 0; p < s->n; p++) {
        if (!in_hand(s, p))
            continue;
        int sum = val[p][0] + val[p][1] + val[p][2];
        if (sum > best) {
            best = sum;
            m = 0;
        }
        if (sum == best)
            m |= (uint8_t)(1u << p);
    }
    return m;
}

/* The showdown of the current hand: reveals every centre (from dealer + 1)
 * and the Way 1 order, records the public result in last_*, then either
 * deals a replay of a tie among the tied seats, or awards the point and deals
 * the next regular hand. Returns false when the match is over instead. */
static bool showdown(bj_state *s)
{
    uint8_t val[MAXS][ROWS];
    memset(val, 0, sizeof val);
    memset(s->last_centre, NONE, sizeof s->last_centre);
    memset(s->last_row, 0, sizeof s->last_row);
    for (int i = 0, p = s->dealer, seats = eu_popcount32(s->active); i < seats; i++) {
        p = next_in_hand(s, p);
        for (int r = 0; r < ROWS; r++)
            val[p][r] = (uint8_t)row_value(s, p, r);
        memcpy(s->last_row[p], val[p], ROWS);
        s->last_centre[p] = s->centre[p];
        if (s->centre[p] != NONE)
            push_event(s, JA_BRUISE_JACK_EV_REVEAL, p, 0, s->centre[p]);
    }
    if (s->way == 1) {
        memcpy(s->last_order, s->order, ROWS);
        push_event(s, JA_BRUISE_JACK_EV_ORDER, NONE, 9 * s->order[0] + 3 * s->order[1] + s->order[2],
                   NONE);
    } else {
        memset(s->last_order, NONE, sizeof s->last_order);
    }
    uint8_t win = winners(s, val);
    int m = eu_popcount32(win);
    s->last_winners = win;
    s->showdowns++;
    if (m > 1 && s->ties == TIES_REPLAY && s->replay < MAX_REPLAYS) {
        /* #27: the tied seats replay, dealt by the first of them after the dealer. */
        push_event(s, JA_BRUISE_JACK_EV_TIE, NONE, win, NONE);
        s->active = win;
        s->dealer = (uint8_t)next_in_hand(s, s->dealer);
        s->replay++;
        deal_hand(s);
        return true;
    }
    for (int p = 0; p < s->n; p++)
        if ((win >> p) & 1u) {
            s->score[p] += JA_SCORE_UNIT / m;
            push_event(s, JA_BRUISE_JACK_EV_WIN, p, m, NONE);
        }
    if (s->hand + 1u >= s->hands)
        return false;
    s->hand++;
    s->replay = 0;
    s->active = (uint8_t)((1u << s->n) - 1u);
    s->rot_dealer = (uint8_t)((s->rot_dealer + 1) % s->n);
    s->dealer = s->rot_dealer;
    deal_hand(s);
    return true;
}

/* Moves play on from seat `from`: to the next seat clockwise that is not
 * finished (possibly `from` itself), or, when every seat is finished, through
 * the showdown to the first seat of the next hand, or to the end. */
static void play_on(bj_state *s, int from)
{
    for (;;) {
        for (int k = 1; k <= s->n; k++) {
            int p = (from + k) % s->n;
            if (!finished(s, p)) {
                s->cur = (uint8_t)p;
                s->stage = JA_BRUISE_JACK_STAGE_HIT;
                return;
            }
        }
        if (!showdown(s)) {
            s->stage = JA_BRUISE_JACK_STAGE_OVER;
            return;
        }
        from = s->dealer; /* the new hand starts at dealer + 1 (§5.5) */
    }
}

/* ---- Legal actions ----------------------------------------------------------------- */

static bool is_legal(const bj_state *s, uint32_t code)
{
    switch (s->stage) {
    case JA_BRUISE_JACK_STAGE_HIT:
        return code == JA_BRUISE_JACK_STAND ||
               (code == JA_BRUISE_JACK_HIT && has_open_row(s, s->cur) && stock_count(s) > 0);
    case JA_BRUISE_JACK_STAGE_PLACE:
        return code >= JA_BRUISE_JACK_PLACE(0) && code < JA_BRUISE_JACK_PLACE(ROWS) &&
               row_open(s, s->cur, (int)(code - JA_BRUISE_JACK_PLACE(0)));
    default: return false;
    }
}

static uint32_t bj_to_act(const void *st)
{
    const bj_state *s = st;
    return s->stage == JA_BRUISE_JACK_STAGE_OVER ? 0 : UINT32_C(1) << s->cur;
}

/* Spec §6: the actions in code order, which is the order the spec lists. */
static uint32_t bj_legal(const void *st, int seat, ja_action *out, uint32_t cap)
{
    static const uint32_t CODES[] = {JA_BRUISE_JACK_HIT, JA_BRUISE_JACK_STAND,
                                     JA_BRUISE_JACK_PLACE(0), JA_BRUISE_JACK_PLACE(1),
                                     JA_BRUISE_JACK_PLACE(2)};
    const bj_state *s = st;
    if (s->stage == JA_BRUISE_JACK_STAGE_OVER || seat != s->cur)
        return 0;
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof CODES / sizeof CODES[0] && n < cap; i++)
        if (is_legal(s, CODES[i]))
            out[n++].code = CODES[i];
    return n;
}

/* Spec §10: STAND at D1, the first open row at D2. */
static ja_action bj_default_action(const void *st, int seat)
{
    const bj_state *s = st;
    ja_action a = {JA_BRUISE_JACK_STAND};
    for (int r = 0; r < ROWS && s->stage == JA_BRUISE_JACK_STAGE_PLACE; r++)
        if (row_open(s, s->cur, r)) {
            a.code = JA_BRUISE_JACK_PLACE(r);
            break;
        }
    return a;
}

/* ---- Apply -------------------------------------------------------------------------- */

static int bj_apply(void *st, uint32_t seats, const ja_action *by_seat)
{
    bj_state *s = st;
    uint32_t code = 0;
    int rc = eu_one_seat(s->stage == JA_BRUISE_JACK_STAGE_OVER, s->cur, seats, by_seat, &code);
    if (rc != JA_OK || !is_legal(s, code))
        return rc != JA_OK ? rc : JA_EILLEGAL;
    int p = s->cur;
    if (code == JA_BRUISE_JACK_HIT) {
        s->drawn = s->deck[s->next++];
        s->stage = JA_BRUISE_JACK_STAGE_PLACE;
        push_event(s, JA_BRUISE_JACK_EV_HIT, p, 0, NONE);
        return JA_OK;
    }
    if (code == JA_BRUISE_JACK_STAND) {
        s->stood[p] = 1;
        push_event(s, JA_BRUISE_JACK_EV_STAND, p, 0, NONE);
    } else {
        int r = (int)(code - JA_BRUISE_JACK_PLACE(0));
        s->up[p][r][s->up_count[p][r]++] = s->drawn;
        push_event(s, JA_BRUISE_JACK_EV_PLACE, p, r, s->drawn);
        s->drawn = NONE;
        if (stock_count(s) == 0)
            push_event(s, JA_BRUISE_JACK_EV_STOCK_OUT, NONE, 0, NONE); /* #22 */
    }
    play_on(s, p);
    return JA_OK;
}

/* ---- Options and setup ---------------------------------------------------------------- */

static const ja_option_spec options[] = {BRUISE_JACK_OPTIONS(EU_OPT_SPEC) EU_OPT_END};
EU_OPT_CHECK(options);

static int bj_resolve_options(ja_options *o, uint32_t n, char *err, size_t cap)
{
    if (n < 2 || n > MAXS) {
        snprintf(err, cap, "bruise-jack is played by 2 to %d seats, not %u", MAXS, (unsigned)n);
        return JA_EINVAL;
    }
    return JA_OK;
}

static int bj_setup(void *st, const ja_options *o, uint32_t n, uint64_t seed)
{
    bj_state *s = st;
    if (n < 2 || n > MAXS)
        return JA_EINVAL;
    int32_t v[OPT_COUNT];
    eu_option_values(options, o, n, v, OPT_COUNT);
    if (v[OPT_WAY] < 0 || v[OPT_WAY] > 1 || v[OPT_GUILE] < 0 || v[OPT_GUILE] > 1 ||
        v[OPT_TIES] < 0 || v[OPT_TIES] > 1 || v[OPT_HANDS] < 0 || v[OPT_HANDS] > 1000)
        return JA_EINVAL;
    memset(s, 0, sizeof *s);
    s->seed = seed;
    s->n = (uint8_t)n;
    s->way = (uint8_t)(1 + v[OPT_WAY]);
    s->guile = (uint8_t)v[OPT_GUILE];
    s->ties = (uint8_t)v[OPT_TIES];
    s->hands = (uint16_t)v[OPT_HANDS];
    memset(s->last_centre, NONE, sizeof s->last_centre);
    memset(s->last_order, NONE, sizeof s->last_order);
    s->active = (uint8_t)((1u << n) - 1u);
    s->rot_dealer = eu_first_dealer(seed, n);
    s->dealer = s->rot_dealer;
    deal_hand(s);
    play_on(s, s->dealer);
    return JA_OK;
}

/* Re-deals the current hand from a stacked deck (tests only): cards[0] is
 * the top of the deck before the deal, the cards not named follow in
 * ascending id order. first = dealer + 10 * k: the dealer of the hand (a
 * seat dealt in; in a regular hand it also becomes the rotation's dealer),
 * and for Way 1 the row order, k = 0 as the PRNG draws it, k = 1..6 the k-th
 * of the six orders in lexicographic order (1 = COLOUR NUMBER SUIT,
 * 6 = SUIT NUMBER COLOUR). Scores, the last showdown and earlier hands'
 * events are kept; the current hand starts again. */
static int bj_test_deal(void *st, int first, const uint8_t *cards, uint32_t n)
{
    bj_state *s = st;
    int dealer = first % FIRST_ORDERS, k = first / FIRST_ORDERS;
    if (first < 0 || dealer >= s->n || !in_hand(s, dealer) || k > 6 ||
        s->stage == JA_BRUISE_JACK_STAGE_OVER)
        return JA_EINVAL;
    uint8_t deck[CARDS];
    if (eu_stack_deck(cards, n, CARDS, 1, deck) < 0)
        return JA_EINVAL;
    memcpy(s->deck, deck, CARDS);
    s->dealer = (uint8_t)dealer;
    if (s->replay == 0)
        s->rot_dealer = (uint8_t)dealer;
    s->event_seq = s->hand_ev;
    draw_order(s);
    if (k > 0 && s->way == 1)
        memcpy(s->order, ORDERS[k - 1], ROWS);
    lay_out(s);
    play_on(s, s->dealer);
    return JA_OK;
}

static const ja_ext_test_deal TEST_DEAL = {bj_test_deal};

/* ---- Observation ------------------------------------------------------------------------ */

#define EU_OBS_T ja_bruise_jack_obs
static const ja_field obs_fields[] = {JA_BRUISE_JACK_OBS_FIELDS(EU_FIELD_S, EU_FIELD_A)};

/* The part of seat's observation that any decision may change: the scalars
 * (stage, seat to act, stock, the drawn card, the own centre...) and the
 * stands. Seat -1 is the public view: no drawn card, no centre. */
static void observe_turn(const bj_state *s, int seat, ja_bruise_jack_obs *o)
{
    bool over = s->stage == JA_BRUISE_JACK_STAGE_OVER;
    o->way = s->way;
    o->guile = s->guile;
    o->ties = s->ties;
    o->hands = s->hands;
    o->hand = s->hand;
    o->replay = s->replay;
    o->active = s->active;
    o->rotation_dealer = s->rot_dealer;
    o->dealer = s->dealer;
    o->to_act = over ? NONE : s->cur;
    o->stage = s->stage;
    o->stock_count = (uint8_t)stock_count(s);
    o->drawn = s->stage == JA_BRUISE_JACK_STAGE_PLACE && s->cur == seat ? s->drawn : NONE;
    o->centre = seat >= 0 ? s->centre[seat] : NONE;
    const int n = s->n;
    for (int p = 0; p < n; p++)
        o->stood[p] = s->stood[p];
}

/* Row r of seat p: claimed, open, its up cards, their count and sum. */
static void observe_row(const bj_state *s, ja_bruise_jack_obs *o, int p, int r)
{
    const int i = p * ROWS + r, v = shown(s, p, r);
    o->claimed[i] = (uint8_t)is_claimed(s, p, r);
    o->open[i] = (uint8_t)row_open_shown(s, p, r, v);
    o->up_count[i] = s->up_count[p][r];
    o->shown[i] = (uint8_t)v;
    memcpy(o->up + i * MAX_UP, s->up[p][r], MAX_UP);
}

/* The part that changes only at a deal or a showdown, and every row. */
static void observe_hand(const bj_state *s, ja_bruise_jack_obs *o)
{
    const int n = s->n;
    for (int p = 0; p < n; p++) {
        o->has_centre[p] = s->centre[p] != NONE;
        o->score[p] = s->score[p];
        o->last_centre[p] = s->last_centre[p];
        for (int r = 0; r < ROWS; r++) {
            observe_row(s, o, p, r);
            o->last_row[p * ROWS + r] = s->last_row[p][r];
        }
    }
    o->discard_count = s->discard_count;
    memcpy(o->discard, s->discard, MAX_DISCARD);
    o->showdowns = s->showdowns;
    memcpy(o->last_order, s->last_order, ROWS);
    o->last_winners = s->last_winners;
}

/* Everything seat may know, nothing more (spec §7): the public table (up
 * cards, claims, stands, the discard pile, the stock's size, scores, the last
 * showdown, recent events), its own centre, and the card it drew while it
 * places it. Never another seat's centre before the showdown, the stock's
 * order, the hidden row order, the seed. */
static void bj_observe(const void *st, int seat, void *obs)
{
    const bj_state *s = st;
    ja_bruise_jack_obs *o = obs;
    if (!eu_obs_begin(o, sizeof *o, seat, s->n, &o->seat, &o->n_seats))
        return;
    observe_turn(s, seat, o);
    observe_hand(s, o);
    EU_EVENTS_OUT(o, s, s->event_seq, N_EVENTS, ev_kind, ev_seat, ev_arg, ev_card);
}

/* JA_EXT_OBSERVE_UPDATE: obs is seat's observation of an earlier state of
 * this match, or zeros. observe() is observe_turn, observe_hand and the
 * event columns written into a zeroed buffer, and none of them writes the
 * entries of seats past n_seats. The scalars and the stands (observe_turn)
 * are rewritten; the public events since obs->event_seq say what else can
 * have changed:
 *  - From a deal to its showdown, apply() changes, besides those, only one
 *    row of the seat that places a card: its up cards, their count and sum,
 *    and whether it is open, which reads nothing but the row, the guile
 *    option and whether the seat is dealt in (changed only by a deal). Each
 *    of these steps pushes HIT, STAND or PLACE (seat, row), and STOCK_OUT
 *    when the last card is placed. So when the events since are of these
 *    four kinds only, the rows the PLACE events name are written again, and
 *    nothing else.
 *  - Every other kind comes from a showdown (REVEAL, ORDER, WIN, TIE), which
 *    changes the scores and the last showdown and is followed by a deal or
 *    the end, or from a deal (DEAL, then the Way 1 claims: REVEAL, CLAIM,
 *    CENTRE), which lays out new rows, centres and a new discard pile with
 *    no event per card dealt. After any of them, observe_hand writes that
 *    whole part again.
 *  - The event columns move up by the new events, which are appended.
 * A full observe when obs is not an observation of seat in this match (all
 * zeros: never observed), or when more than FEW_EVENTS events came since
 * obs->event_seq. Within a hand a seat sees few events between its
 * questions: one after its own HIT, else its PLACE and a HIT and a PLACE per
 * other seat (with random seats 1.4 on average with 2 seats, 3 with 6, at
 * most 12). When a hand ended since, it sees 5 to 40 (a reveal per seat, the
 * order, the wins, the next deal and its claims, the moves since); the rows
 * are then all written again anyway, and past about 12 events zeroing the
 * buffer and copying the ring cost less than moving the event columns and
 * appending event by event (random seats: the observation cost least with a
 * bound from 8 to 16). The ring holds every event this reads. */
#define FEW_EVENTS 12
_Static_assert(FEW_EVENTS <= N_EVENTS, "the events since obs must be in the ring");
_Static_assert(JA_BRUISE_JACK_EV_PLACE == JA_BRUISE_JACK_EV_HIT + 1 &&
                   JA_BRUISE_JACK_EV_STAND == JA_BRUISE_JACK_EV_HIT + 2 &&
                   JA_BRUISE_JACK_EV_STOCK_OUT == JA_BRUISE_JACK_EV_HIT + 3,
               "the kinds of a hand's play are HIT..STOCK_OUT");
static void bj_observe_update(const void *st, int seat, void *obs)
{
    const bj_state *s = st;
    ja_bruise_jack_obs *o = obs;
    const int n = s->n;
    const uint32_t seq = s->event_seq, old = o->event_seq;
    /* The four one-byte event columns, one after the other (eu_ring_shift). */
#define EV_AT(col, k)                                                                              \
    (offsetof(ja_bruise_jack_obs, col) == offsetof(ja_bruise_jack_obs, ev_kind) + (k)*N_EVENTS)
    _Static_assert(EV_AT(ev_seat, 1) && EV_AT(ev_arg, 2) && EV_AT(ev_card, 3),
                   "ja_bruise_jack_obs: the event columns are not contiguous");
#undef EV_AT
    if (seat < 0 || seat >= n || o->seat != seat || o->n_seats != n || old > seq ||
        seq - old > FEW_EVENTS) {
        bj_observe(st, seat, obs);
        return;
    }
    /* The new events into the event columns, and what they say changed. */
    bool hand = false;  /* a deal or a showdown */
    uint32_t rows = 0;  /* bit p * ROWS + r: row r of seat p took a card */
    if (seq != old) {
        uint32_t i = eu_ring_shift(o->ev_kind, 4, old, seq, N_EVENTS);
        for (uint32_t slot = old % N_EVENTS, q = old; q != seq; q++, i++) {
            const uint8_t kind = s->ev_kind[slot], p = s->ev_seat[slot], arg = s->ev_arg[slot];
            o->ev_kind[i] = kind;
            o->ev_seat[i] = p;
            o->ev_arg[i] = arg;
            o->ev_card[i] = s->ev_card[slot];
            slot = slot + 1 == N_EVENTS ? 0 : slot + 1;
            hand |= (uint8_t)(kind - JA_BRUISE_JACK_EV_HIT) >
                    JA_BRUISE_JACK_EV_STOCK_OUT - JA_BRUISE_JACK_EV_HIT;
            if (kind == JA_BRUISE_JACK_EV_PLACE && p < n && arg < ROWS)
                rows |= UINT32_C(1) << (p * ROWS + arg);
        }
        o->event_seq = seq;
        eu_ring_seqs(o->ev_seq, seq, N_EVENTS);
    }
    observe_turn(s, seat, o);
    if (hand) {
        observe_hand(s, o);
        return;
    }
    for (; rows; rows &= rows - 1) {
        const int b = __builtin_ctz(rows);
        observe_row(s, o, b / ROWS, b % ROWS);
    }
}

static const ja_ext_observe_update OBSERVE_UPDATE = {bj_observe_update};

/* JA_EXT_OBSERVE_PUBLIC: what every seat sees (§7): the public table (up
 * cards, claims, stands, which seats hold a centre, the discard pile, the
 * stock's size, scores, the last showdown with its centres, events). No
 * centre before its showdown (`centre` is 255), no drawn card (255), never
 * the stock's order or the hidden row order. */
static void bj_observe_public(const void *st, void *obs)
{
    const bj_state *s = st;
    ja_bruise_jack_obs *o = obs;
    eu_obs_public_begin(o, sizeof *o, s->n, &o->seat, &o->n_seats);
    observe_turn(s, -1, o);
    observe_hand(s, o);
    EU_EVENTS_OUT(o, s, s->event_seq, N_EVENTS, ev_kind, ev_seat, ev_arg, ev_card);
}

static const ja_ext_observe_public OBSERVE_PUBLIC = {bj_observe_public};

static uint32_t bj_unseen(const void *st, uint8_t *cards, uint32_t cap);
static void bj_reshuffle(void *st, uint64_t seed);
static uint32_t bj_progress(const void *st, ja_outcome *so_far)
{
    const bj_state *s = st;
    eu_outcome(so_far, true, s->n, s->score, NULL, 1);
    return (uint32_t)hand_stream(s);
}
static const ja_ext_chance CHANCE = {bj_unseen, bj_reshuffle, bj_progress};

static const void *bj_extension(const char *id)
{
    return eu_extension(id, &TEST_DEAL, &OBSERVE_UPDATE, &OBSERVE_PUBLIC, &CHANCE);
}

static int bj_outcome(const void *st, ja_outcome *out)
{
    const bj_state *s = st;
    return eu_outcome(out, s->stage == JA_BRUISE_JACK_STAGE_OVER, s->n, s->score, NULL, 1);
}

/* ---- Hidden information -------------------------------------------------------------------- */

/* A set of pool indices (the pool holds at most 125 cards). */
typedef struct pool_set {
    uint64_t w[2];
} pool_set;

static bool set_has(const pool_set *a, uint32_t i) { return (a->w[i >> 6] >> (i & 63)) & 1u; }
static void set_add(pool_set *a, uint32_t i) { a->w[i >> 6] |= UINT64_C(1) << (i & 63); }
static void set_del(pool_set *a, uint32_t i) { a->w[i >> 6] &= ~(UINT64_C(1) << (i & 63)); }

/* True if the seats in `need` can each still get a distinct card of its
 * allowed set outside `used` (Hall's condition over every subset). */
static bool can_match(const pool_set allowed[MAXS], uint8_t need, const pool_set *used)
{
    for (uint8_t sub = need; sub; sub = (uint8_t)((sub - 1) & need)) {
        uint64_t u0 = 0, u1 = 0;
        for (int p = 0; p < MAXS; p++)
            if ((sub >> p) & 1u) {
                u0 |= allowed[p].w[0];
                u1 |= allowed[p].w[1];
            }
        int free_cards = eu_popcount64(u0 & ~used->w[0]) + eu_popcount64(u1 & ~used->w[1]);
        if (free_cards < eu_popcount32(sub))
            return false;
    }
    return true;
}

/* Deals the hidden cards of a state from pool[0..m) (already shuffled): a
 * centre to each seat in `need`, then, when `drawn` is set, the card the seat
 * to act drew, then the stock deck[next..125) in pool order. Way 1 (spec §7,
 * Hidden information): a centre never makes a Bruise Jack with the first up
 * card of an unclaimed row of its seat. Seats take, in seat order, the first
 * card of the pool they may have that leaves the later seats a possible
 * deal. Returns false when no deal respects the constraint. */
static bool deal_hidden(bj_state *s, uint8_t need, bool drawn, const uint8_t *pool, uint32_t m)
{
    if (m != (uint32_t)eu_popcount32(need) + (drawn ? 1u : 0u) + stock_count(s))
        return false;
    pool_set allowed[MAXS], used = {{0, 0}};
    memset(allowed, 0, sizeof allowed);
    for (int p = 0; p < MAXS; p++)
        if ((need >> p) & 1u)
            for (uint32_t i = 0; i < m; i++)
                if (s->way == 2 || bruise_rows(s, p, pool[i]) == 0)
                    set_add(&allowed[p], i);
    if (!can_match(allowed, need, &used))
        return false;
    for (int p = 0; p < MAXS; p++) {
        if (!((need >> p) & 1u))
            continue;
        need = (uint8_t)(need & ~(1u << p));
        for (uint32_t i = 0; i < m; i++) { /* one is found: can_match held */
            if (!set_has(&allowed[p], i) || set_has(&used, i))
                continue;
            set_add(&used, i);
            if (can_match(allowed, need, &used)) {
                s->centre[p] = pool[i];
                break;
            }
            set_del(&used, i);
        }
    }
    uint32_t k = s->next;
    for (uint32_t i = 0; i < m; i++) {
        if (set_has(&used, i))
            continue;
        if (drawn) {
            s->drawn = pool[i];
            drawn = false;
        } else {
            s->deck[k++] = pool[i];
        }
    }
    return true;
}

/* Referee side: re-deals every card `seat` cannot see (the other seats'
 * centres and a card another seat is placing, respecting Way 1's
 * constraint, and the stock), redraws the hidden Way 1 row order, and
 * replaces the future (the seed of later hands). After the last showdown the
 * centres and the order are public: only the stock is re-dealt. */
static void bj_determinize(void *st, int seat, uint64_t seed)
{
    bj_state *s = st;
    bool running = s->stage != JA_BRUISE_JACK_STAGE_OVER;
    uint8_t pool[CARDS], need = 0;
    uint32_t m = 0;
    for (int p = 0; p < s->n && running; p++)
        if (p != seat && s->centre[p] != NONE) {
            pool[m++] = s->centre[p];
            need |= (uint8_t)(1u << p);
        }
    bool drawn = running && s->stage == JA_BRUISE_JACK_STAGE_PLACE && s->cur != seat;
    if (drawn)
        pool[m++] = s->drawn;
    memcpy(pool + m, s->deck + s->next, stock_count(s));
    m += stock_count(s);
    ja_rng r;
    ja_rng_stream(&r, seed, JA_STREAM_DETZ, 0);
    ja_shuffle_u8(&r, pool, m);
    deal_hidden(s, need, drawn, pool, m); /* the real deal shows one exists */
    if (running && s->way == 1) {
        ja_rng_stream(&r, seed, JA_STREAM_DETZ, 1);
        ja_shuffle_u8(&r, s->order, ROWS);
    }
    s->seed = ja_seed_derive(seed, JA_STREAM_DETZ, 2);
}

/* JA_EXT_CHANCE: the stock, top first (a centre is seen by its seat, the
 * card being placed by the seat placing it); reshuffle() also redraws the
 * hidden Way 1 row order while the hand runs, and replaces the future. */
static uint32_t bj_unseen(const void *st, uint8_t *cards, uint32_t cap)
{
    const bj_state *s = st;
    if (s->stage == JA_BRUISE_JACK_STAGE_OVER)
        return 0;
    return eu_unseen_copy(s->deck + s->next, stock_count(s), cards, cap);
}

static void bj_reshuffle(void *st, uint64_t seed)
{
    bj_state *s = st;
    if (s->stage == JA_BRUISE_JACK_STAGE_OVER) {
        s->seed = ja_seed_derive(seed, JA_STREAM_CHNC, 2);
        return;
    }
    eu_chance_shuffle(s->deck + s->next, stock_count(s), seed, 0);
    if (s->way == 1) {
        memcpy(s->order, ORDERS[0], ROWS);
        ja_rng r;
        ja_rng_stream(&r, seed, JA_STREAM_CHNC, 1);
        ja_shuffle_u8(&r, s->order, ROWS);
    }
    s->seed = ja_seed_derive(seed, JA_STREAM_CHNC, 2);
}

/* Copies the event ring of an observation into the state's slots. */
static void copy_events(bj_state *s, const ja_bruise_jack_obs *o)
{
    s->event_seq = o->event_seq;
    s->hand_ev = o->event_seq; /* unknown; only test_deal reads it */
    EU_EVENTS_IN(s, o, N_EVENTS, ev_kind, ev_seat, ev_arg, ev_card);
}

/* Whether obs can be sample()d for seat at all: its options, counts and
 * stage within range, and a seat to act unless the match is over. */
static bool sample_fits(const ja_bruise_jack_obs *o, int seat)
{
    int n = o->n_seats;
    uint8_t all = (uint8_t)((1u << (n >= 2 && n <= MAXS ? n : 0)) - 1u);
    if (n < 2 || n > MAXS || seat < 0 || seat >= n || o->seat != seat || o->way < 1 ||
        o->way > 2 || o->guile > 1 || o->ties > 1 || o->hands < 1 || o->hand >= o->hands ||
        o->replay > MAX_REPLAYS || o->active == 0 || (o->active & ~all) != 0 ||
        o->rotation_dealer >= n || o->dealer >= n || o->stage > JA_BRUISE_JACK_STAGE_OVER ||
        o->stock_count > CARDS || o->discard_count > MAX_DISCARD)
        return false;
    return o->stage == JA_BRUISE_JACK_STAGE_OVER ? o->to_act == NONE : o->to_act < n;
}

/* The public table's scalars, as obs states them; no centre nor drawn
 * card yet. */
static void sample_table(bj_state *s, const ja_bruise_jack_obs *o)
{
    s->n = o->n_seats;
    s->way = o->way;
    s->guile = o->guile;
    s->ties = o->ties;
    s->hands = o->hands;
    s->hand = o->hand;
    s->replay = o->replay;
    s->active = o->active;
    s->rot_dealer = o->rotation_dealer;
    s->dealer = o->dealer;
    s->cur = o->stage == JA_BRUISE_JACK_STAGE_OVER ? 0 : o->to_act;
    s->stage = o->stage;
    s->drawn = NONE;
    s->next = (uint8_t)(CARDS - o->stock_count);
    s->showdowns = o->showdowns;
    s->last_winners = o->last_winners;
    memcpy(s->last_order, o->last_order, ROWS);
    memset(s->centre, NONE, sizeof s->centre);
    memset(s->last_centre, NONE, sizeof s->last_centre);
}

/* Every card seen, into the state and marked in seen: up cards, discards,
 * the own centre and drawn card, and, once the match is over, every centre
 * (the last showdown); with each seat's score and rows. JA_EFORMAT for a
 * card that is none or is seen twice, or counts out of range. */
static int sample_seen(bj_state *s, const ja_bruise_jack_obs *o, int seat, uint8_t seen[CARDS])
{
    bool over = o->stage == JA_BRUISE_JACK_STAGE_OVER;
#define SEE(c)                                   \
    do {                                         \
        if ((c) >= CARDS || seen[(c)]++)         \
            return JA_EFORMAT;                   \
    } while (0)
    for (int p = 0; p < s->n; p++) {
        s->score[p] = o->score[p];
        s->stood[p] = o->stood[p];
        s->last_centre[p] = o->last_centre[p];
        for (int r = 0; r < ROWS; r++) {
            int i = p * ROWS + r;
            if (o->up_count[i] > MAX_UP || o->claimed[i] > 1)
                return JA_EFORMAT;
            s->claimed[p] |= (uint8_t)(o->claimed[i] << r);
            s->up_count[p][r] = o->up_count[i];
            memcpy(s->up[p][r], o->up + i * MAX_UP, MAX_UP);
            for (int j = 0; j < o->up_count[i]; j++)
                SEE(s->up[p][r][j]);
            s->last_row[p][r] = o->last_row[i];
        }
        if (over && o->has_centre[p]) {
            s->centre[p] = p == seat ? o->centre : o->last_centre[p];
            SEE(s->centre[p]);
        }
    }
    s->discard_count = o->discard_count;
    memcpy(s->discard, o->discard, MAX_DISCARD);
    for (int i = 0; i < o->discard_count; i++)
        SEE(s->discard[i]);
    if (!over && o->centre != NONE) {
        s->centre[seat] = o->centre;
        SEE(o->centre);
    }
    if (o->stage == JA_BRUISE_JACK_STAGE_PLACE && o->to_act == seat) {
        s->drawn = o->drawn;
        SEE(o->drawn);
    }
#undef SEE
    return JA_OK;
}

/* The cards not seen, dealt at random on seed's stream 0 (deal_hidden):
 * the other seats' centres while the hand runs (Way 1's constraint
 * respected), the card another seat is placing, the stock. JA_EFORMAT when
 * obs admits no such deal. */
static int sample_hidden(bj_state *s, const ja_bruise_jack_obs *o, int seat,
                         const uint8_t seen[CARDS], uint64_t seed)
{
    bool over = o->stage == JA_BRUISE_JACK_STAGE_OVER;
    uint8_t pool[CARDS], need = 0;
    uint32_t m = 0;
    for (int c = 0; c < CARDS; c++)
        if (!seen[c])
            pool[m++] = (uint8_t)c;
    for (int p = 0; p < s->n; p++) {
        if (o->has_centre[p] > 1 || (o->has_centre[p] && !((o->active >> p) & 1u)))
            return JA_EFORMAT;
        if (!over && p != seat && o->has_centre[p])
            need |= (uint8_t)(1u << p);
    }
    ja_rng r;
    ja_rng_stream(&r, seed, JA_STREAM_DETZ, 0);
    ja_shuffle_u8(&r, pool, m);
    bool drawn = o->stage == JA_BRUISE_JACK_STAGE_PLACE && o->to_act != seat;
    return deal_hidden(s, need, drawn, pool, m) ? JA_OK : JA_EFORMAT;
}

/* Bot side: builds a full state from what seat knows (obs): the public
 * table, its own centre and drawn card, the other centres (Way 1's
 * constraint respected), the card another seat is placing and the stock dealt
 * at random from the cards not seen; a uniform Way 1 row order while the hand
 * runs; the future from seed. JA_EFORMAT unless the state observes back to
 * exactly obs. */
static int bj_sample(const void *obs, int seat, uint64_t seed, void *st_out)
{
    const ja_bruise_jack_obs *o = obs;
    bj_state *s = st_out;
    if (!sample_fits(o, seat))
        return JA_EFORMAT;
    memset(s, 0, sizeof *s);
    sample_table(s, o);
    uint8_t seen[CARDS] = {0};
    if (sample_seen(s, o, seat, seen) != JA_OK || sample_hidden(s, o, seat, seen, seed) != JA_OK)
        return JA_EFORMAT;
    /* The Way 1 row order: the last showdown's once the match is over,
     * else drawn at random (seed's stream 1) while the hand runs. */
    bool over = o->stage == JA_BRUISE_JACK_STAGE_OVER;
    memcpy(s->order, over && s->way == 1 ? o->last_order : ORDERS[0], ROWS);
    if (!over && s->way == 1) {
        ja_rng r;
        ja_rng_stream(&r, seed, JA_STREAM_DETZ, 1);
        ja_shuffle_u8(&r, s->order, ROWS);
    }
    s->seed = ja_seed_derive(seed, JA_STREAM_DETZ, 2);
    copy_events(s, o);

    /* Whatever the checks above missed (padding, stray values, an event ring
     * out of order): the state must observe back to exactly obs. */
    ja_bruise_jack_obs back;
    bj_observe(s, seat, &back);
    if (memcmp(&back, o, sizeof back) != 0)
        return JA_EFORMAT;
    return JA_OK;
}

/* ---- Text ----------------------------------------------------------------------------------- */

static const char *const ROW_NAMES[ROWS] = {"colour", "number", "suit"};

static int bj_label(ja_action a, char *buf, size_t cap)
{
    switch (a.code) {
    case JA_BRUISE_JACK_HIT: return snprintf(buf, cap, "hit");
    case JA_BRUISE_JACK_STAND: return snprintf(buf, cap, "stand");
    default: break;
    }
    if (a.code >= JA_BRUISE_JACK_PLACE(0) && a.code < JA_BRUISE_JACK_PLACE(ROWS))
        return snprintf(buf, cap, "place %s", ROW_NAMES[a.code - JA_BRUISE_JACK_PLACE(0)]);
    return JA_EINVAL;
}

/* One public line: "hand 2/4, dealer 1: seat 2 to hit or stand; stock 97;
 * shown 0:[5 BJ 3] 1:[4 7 2]* 2:-; points 1 0 0" ("*": stood, "BJ": a
 * claimed row, "-": not dealt in), "(replay 1)" after the hand number in a
 * replay; "match over after 4 hands: points 1 2.5 0.5" at the end. */
static int bj_describe(const void *st, char *buf, size_t cap)
{
    const bj_state *s = st;
    char tmp[512];
    eu_text t = EU_TEXT(tmp);
#define ADD(...) eu_add(&t, __VA_ARGS__)
    tmp[0] = '\0';
    if (s->stage == JA_BRUISE_JACK_STAGE_OVER) {
        ADD("match over after %u hand%s: points", (unsigned)s->hands, s->hands == 1 ? "" : "s");
    } else {
        ADD("hand %u/%u", s->hand + 1u, (unsigned)s->hands);
        if (s->replay)
            ADD(" (replay %u)", (unsigned)s->replay);
        ADD(", dealer %u: seat %u to %s; stock %u; shown", (unsigned)s->dealer, (unsigned)s->cur,
            s->stage == JA_BRUISE_JACK_STAGE_HIT ? "hit or stand" : "place a card",
            (unsigned)stock_count(s));
        for (int p = 0; p < s->n; p++) {
            if (!in_hand(s, p)) {
                ADD(" %d:-", p);
                continue;
            }
            ADD(" %d:[", p);
            for (int r = 0; r < ROWS; r++) {
                if (s->way == 1 && is_claimed(s, p, r))
                    ADD("%sBJ", r ? " " : "");
                else
                    ADD("%s%d", r ? " " : "", shown(s, p, r));
            }
            ADD("]%s", s->stood[p] ? "*" : "");
        }
        ADD("; points");
    }
    for (int p = 0; p < s->n; p++)
        ADD(" %g", (double)s->score[p] / JA_SCORE_UNIT);
#undef ADD
    return snprintf(buf, cap, "%s", tmp);
}

/* ---- The table ------------------------------------------------------------------------------- */

const ja_game_rules ja_bruise_jack_rules = {
    EU_RULES_TYPES(bj_state, ja_bruise_jack_obs, JA_BRUISE_JACK_OBS_VERSION),
    .rules_version = 1, .name = "bruise-jack", .title = "Bruise Jack",
    .min_seats = 2, .max_seats = MAXS,
    .max_actions = 3, /* D2: the three rows */
    EU_RULES_FUNCS(bj),
};
