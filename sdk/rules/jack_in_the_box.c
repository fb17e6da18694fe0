/* Jack in the Box: the rules engine (a matching game: cards of the hand
 * match the cards of a "Box" by rank, sum or difference). It implements the
 * project's specification of the game; the rules as implemented, with every
 * decision the specification left open, are in docs/rules/jack-in-the-
 * box.md. Section (§) and resolution (#) numbers below are the
 * specification's.
 *
 * The state is one flat, pointer-free struct (memcpy clones it). It holds the
 * future: the match seed, from which each game's shuffle is derived, and the
 * stock's order. Nothing here allocates, blocks or keeps global mutable
 * state.
 *
 * Invariants kept by every function that changes the state:
 *  - Outside stage OVER, `cur` is the one seat deciding, and `stage` says what
 *    it decides. Automatic steps (the end of a scoring part, refreshes,
 *    refills, the next turn, the next game) happen inside apply, so after
 *    apply the state is always at a decision or over.
 *  - Each non-joker card id (0..51, and 54..105 with two packs) is in exactly
 *    one place: a hand (bit `id` of hand[seat]), the acting seat's marked
 *    cards (marked[0 .. n_marked)), the stock (stock[stock_pos ..
 *    stock_len)), the discard pile, a box position (box_log; the last entry
 *    of a position is its active card, top[pos]), or a joker slot
 *    (slot_jack). Cards used in a match go to the discard pile at once.
 *  - known[s][c] <= the copies of identity c in seat s's hand: cards every
 *    seat saw there when s's hand was opened, and has not seen leave it
 *    since. It is public (every seat computes the same table).
 *  - In team mode score entries of partners are always equal: points are
 *    added to both. */
#include "jackarena/ja_jack_in_the_box.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "engine_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEATS JA_JITB_MAX_SEATS
#define MAX_BOXES JA_JITB_MAX_BOXES
#define N_POS JA_JITB_POSITIONS
#define N_SLOTS JA_JITB_SLOTS
#define MAX_CARDS JA_JITB_MAX_CARDS
#define HAND JA_JITB_HAND
#define N_EVENTS JA_JITB_EVENTS
#define NONE JA_CARD_NONE
#define KQ_POINTS 3
#define JACK_IN_POINTS 16
/* The longest legal list: stage B in team mode with ten distinct available
 * cards, 10 singles + 45 pairs (spec §6.1). */
#define MAX_ACTIONS 55

/* The options, in spec order (engine_util.h, "Options"). */
#define JITB_OPTIONS(X) \
    X(VARIANT, "variant", JA_OPT_ENUM, "standard|v1|v2|v3", 0, 0, "standard",                      \
      "box layout: 1 box with 2 jokers; v1 2 boxes of 1 joker; v2 2 packs, 2 boxes of 2; v3"       \
      " 2 packs, 4 boxes of 1")                                                                    \
    X(TEAMS, "teams", JA_OPT_ENUM, "off|on", 0, 0, "off",                                          \
      "on: partners s and s+2 share a score and may open each other's hands (4 seats)")            \
    X(GAMES, "games", JA_OPT_INT, NULL, 1, 1000, "N",                                              \
      "games in a match; the dealer rotates")
enum { JITB_OPTIONS(EU_OPT_ID) OPT_COUNT };

enum {
    STAGE_A = JA_JITB_STAGE_CHOOSE,
    STAGE_B = JA_JITB_STAGE_MATCH,
    STAGE_O = JA_JITB_STAGE_OPEN,
    STAGE_X = JA_JITB_STAGE_EXCHANGE,
    STAGE_Y = JA_JITB_STAGE_CHANGE,
    STAGE_J = JA_JITB_STAGE_BONUS,
    STAGE_OVER = JA_JITB_STAGE_OVER
};

/* The layout of each variant (spec §12): packs, boxes, the change limit L
 * per box, and the colour of each joker slot (box b owns slots 2b, 2b+1). */
typedef struct variant_def {
    uint8_t packs, boxes, limit;
    uint8_t color[N_SLOTS];
} variant_def;

static const variant_def VARIANTS[4] = {
    {1, 1, 2, {JA_JITB_RED, JA_JITB_BLACK}},
    {1, 2, 2, {JA_JITB_RED, 0, JA_JITB_BLACK, 0}},
    {2, 2, 4, {JA_JITB_RED, JA_JITB_BLACK, JA_JITB_RED, JA_JITB_BLACK}},
    {2, 4, 4, {JA_JITB_RED, 0, JA_JITB_BLACK, 0, JA_JITB_RED, 0, JA_JITB_BLACK, 0}},
};

typedef struct jitb_state {
    uint64_t seed;                  /* the match seed: every later deal comes from it */
    uint64_t hand[MAX_SEATS][2];    /* bit id of the 128-bit set: card id held */
    int32_t game_pts[MAX_SEATS];    /* this game (the partnership's in team mode) */
    int32_t prev_pts[MAX_SEATS];    /* the earlier games of the match */
    uint32_t event_seq;             /* public events so far in the match */
    uint32_t game_ev;               /* event_seq just before this game's DEAL */
    uint16_t games, game, turn, change_mask;
    uint8_t n, variant, teams, packs, n_boxes, limit;
    uint8_t dealer, cur, stage;
    uint8_t extra;                  /* the current turn is an extra turn */
    uint8_t extra_due;              /* the scoring part used every available card */
    uint8_t target, matches, opened;
    uint8_t lock_seat, lock_fresh;  /* §9: see end_turn() */
    uint8_t stock_pos, stock_len, discard_count, log_count, n_marked;
    uint8_t marked[HAND];           /* ids, in the order marked */
    uint8_t single_mask[MAX_BOXES], single_count[MAX_BOXES];
    uint8_t top[N_POS];             /* active card id of each position, NONE if not in play */
    uint8_t slot_jack[N_SLOTS], slot_seat[N_SLOTS];
    uint8_t hand_count[MAX_SEATS], exchanged[MAX_SEATS];
    uint8_t known[MAX_SEATS][52];
    uint8_t stock[MAX_CARDS];       /* index 0 = top after the shuffle */
    uint8_t discard[MAX_CARDS];     /* oldest first */
    uint8_t log_card[MAX_CARDS], log_pos[MAX_CARDS]; /* every card dealt onto a position */
    /* The event ring: event number q (1-based) sits in slot (q - 1) % N_EVENTS. */
    uint8_t ev_kind[N_EVENTS], ev_seat[N_EVENTS], ev_card[N_EVENTS], ev_card2[N_EVENTS];
    uint8_t ev_pos[N_EVENTS], ev_value[N_EVENTS];
} jitb_state;

/* ---- Cards and hands ----------------------------------------------------- */

/* Hands are sets of card ids with twins (engine_util.h). */
static uint8_t ident(uint8_t id) { return eu_ident(id); }
static int rank_of(uint8_t c) { return ja_card_rank(c); }
static int suit_of(uint8_t c) { return ja_card_suit(c); }
static uint8_t color_of(uint8_t c) { return ja_card_is_black(c) ? JA_JITB_BLACK : JA_JITB_RED; }
static bool is_court(uint8_t c) { return rank_of(c) >= JA_RANK_J; }

static uint64_t idents(const jitb_state *s, int seat) { return eu_set_idents(s->hand[seat]); }
static int copies(const jitb_state *s, int seat, int c) { return eu_set_copies(s->hand[seat], c); }

static void add_id(jitb_state *s, int seat, uint8_t id) { eu_hand_add(s->hand[seat], &s->hand_count[seat], id); }
static void remove_id(jitb_state *s, int seat, uint8_t id) { eu_hand_del(s->hand[seat], &s->hand_count[seat], id); }

/* Removes the lowest id of identity c from the seat's hand (spec §6.1:
 * twins are interchangeable) and keeps `known` a lower bound. Returns it. */
static uint8_t take_card(jitb_state *s, int seat, int c)
{
    uint8_t id = eu_set_lowest(s->hand[seat], c);
    remove_id(s, seat, id);
    if (s->known[seat][c])
        s->known[seat][c]--;
    return id;
}

static int partner_of(int seat) { return (seat + 2) % MAX_SEATS; }

/* Cards the acting seat may still use this turn (§6.1). */
static int available(const jitb_state *s)
{
    return s->hand_count[s->cur] + (s->opened ? s->hand_count[partner_of(s->cur)] : 0);
}

/* Points for the seat, and for its partner in team mode (§11). */
static void add_points(jitb_state *s, int seat, int v)
{
    s->game_pts[seat] += v;
    if (s->teams)
        s->game_pts[partner_of(seat)] += v;
}

/* ---- Events --------------------------------------------------------------- */

/* Cards are ids here; the ring keeps their identities. */
static void push_event(jitb_state *s, int kind, int seat, uint8_t card, uint8_t card2, int pos,
                       int value)
{
    uint32_t slot = eu_ring_push(&s->event_seq, N_EVENTS);
    s->ev_kind[slot] = (uint8_t)kind;
    s->ev_seat[slot] = (uint8_t)seat;
    s->ev_card[slot] = card == NONE ? NONE : ident(card);
    s->ev_card2[slot] = card2 == NONE ? NONE : ident(card2);
    s->ev_pos[slot] = (uint8_t)pos;
    s->ev_value[slot] = (uint8_t)(value > 255 ? 255 : value);
}

/* ---- Boxes ------------------------------------------------------------------ */

static uint8_t slot_color(const jitb_state *s, int k) { return VARIANTS[s->variant].color[k]; }

/* A box is open while one of its joker slots is uncovered (§4). */
static bool box_open(const jitb_state *s, int b)
{
    for (int k = 2 * b; k < 2 * b + 2; k++)
        if (slot_color(s, k) && s->slot_jack[k] == NONE)
            return true;
    return false;
}

static bool any_box_open(const jitb_state *s)
{
    for (int b = 0; b < s->n_boxes; b++)
        if (box_open(s, b))
            return true;
    return false;
}

/* The uncovered slot of box b for a Jack of colour col, or -1 (§10). */
static int free_slot(const jitb_state *s, int b, uint8_t col)
{
    for (int k = 2 * b; k < 2 * b + 2; k++)
        if (slot_color(s, k) == col && s->slot_jack[k] == NONE)
            return k;
    return -1;
}

static uint32_t stock_left(const jitb_state *s) { return (uint32_t)(s->stock_len - s->stock_pos); }

/* Deals a card to position pos (§4, #2, #13, #19): Jacks and cards of the
 * value of another active card of the box are discarded and the next card is
 * drawn; every K or Q drawn scores 3 for `seat`. An empty stock leaves the
 * position as it is. */
static void deal_box_card(jitb_state *s, int pos, int seat)
{
    int b = pos / 4;
    while (stock_left(s) > 0) {
        uint8_t id = s->stock[s->stock_pos++], c = ident(id);
        int r = rank_of(c), pts = r == JA_RANK_K || r == JA_RANK_Q ? KQ_POINTS : 0;
        add_points(s, seat, pts);
        bool reject = r == JA_RANK_J;
        for (int q = 4 * b; q < 4 * b + 4 && !reject; q++)
            reject = q != pos && s->top[q] != NONE && rank_of(ident(s->top[q])) == r;
        if (reject) {
            s->discard[s->discard_count++] = id;
            push_event(s, JA_JITB_EV_REJECT, seat, id, NONE, pos, pts);
            continue;
        }
        s->log_card[s->log_count] = id;
        s->log_pos[s->log_count++] = (uint8_t)pos;
        s->top[pos] = id;
        push_event(s, JA_JITB_EV_BOX, seat, id, NONE, pos, pts);
        return;
    }
}

/* Deals every chosen position (stages Y and J) in ascending order for the
 * acting seat, which then holds the lock if it changed anything (§9). */
static void apply_changes(jitb_state *s)
{
    for (int pos = 0; pos < N_POS; pos++)
        if (s->change_mask >> pos & 1u)
            deal_box_card(s, pos, s->cur);
    if (s->change_mask) {
        s->lock_seat = s->cur;
        s->lock_fresh = 1;
        push_event(s, JA_JITB_EV_LOCK, s->cur, NONE, NONE, NONE, 0);
    }
}

/* ---- The flow of a game ------------------------------------------------------ */

/* Clears what belongs to one turn. */
static void clear_turn(jitb_state *s)
{
    s->target = NONE;
    s->matches = 0;
    s->opened = 0;
    s->extra_due = 0;
    s->change_mask = 0;
    s->n_marked = 0;
    memset(s->marked, 0, sizeof s->marked);
    memset(s->single_mask, 0, sizeof s->single_mask);
    memset(s->single_count, 0, sizeof s->single_count);
}

/* A new turn for seat: a regular one, or an extra one (§8.1 step 6). The lock
 * holder's next regular turn is the one at whose end the lock ends. */
static void begin_turn(jitb_state *s, int seat, bool extra)
{
    clear_turn(s);
    s->cur = (uint8_t)seat;
    s->extra = extra;
    s->stage = STAGE_A;
    if (s->turn < UINT16_MAX)
        s->turn++;
    if (!extra && seat == s->lock_seat)
        s->lock_fresh = 0;
}

/* Draws the seat's hand up to HAND cards. Returns false when the stock fell
 * short: the game ends (§13). */
static bool refill(jitb_state *s, int seat)
{
    int got = 0;
    while (s->hand_count[seat] < HAND && stock_left(s) > 0) {
        add_id(s, seat, s->stock[s->stock_pos++]);
        got++;
    }
    push_event(s, JA_JITB_EV_DRAW, seat, NONE, NONE, NONE, got);
    return s->hand_count[seat] == HAND;
}

/* Deals the current game (dealer set) from deck[0..total), top first (§5):
 * every position of every box, then 5 cards to each seat one at a time from
 * dealer + 1, who plays first. Earlier games' points and events are kept. */
static void deal_from(jitb_state *s, const uint8_t *deck, uint32_t total)
{
    memset(s->hand, 0, sizeof s->hand);
    memset(s->hand_count, 0, sizeof s->hand_count);
    memset(s->known, 0, sizeof s->known);
    memset(s->game_pts, 0, sizeof s->game_pts);
    memset(s->exchanged, 0, sizeof s->exchanged);
    memset(s->stock, 0, sizeof s->stock);
    memset(s->discard, 0, sizeof s->discard);
    memset(s->log_card, 0, sizeof s->log_card);
    memset(s->log_pos, 0, sizeof s->log_pos);
    memset(s->top, NONE, sizeof s->top);
    memset(s->slot_jack, NONE, sizeof s->slot_jack);
    memset(s->slot_seat, NONE, sizeof s->slot_seat);
    s->discard_count = 0;
    s->log_count = 0;
    s->lock_seat = NONE;
    s->lock_fresh = 0;
    s->turn = 0;
    memcpy(s->stock, deck, total);
    s->stock_pos = 0;
    s->stock_len = (uint8_t)total;
    s->game_ev = s->event_seq;
    push_event(s, JA_JITB_EV_DEAL, s->dealer, NONE, NONE, NONE, 0);
    for (int pos = 0; pos < 4 * s->n_boxes; pos++)
        deal_box_card(s, pos, s->dealer);
    for (int i = 0; i < HAND * s->n; i++)
        add_id(s, (s->dealer + 1 + i) % s->n, s->stock[s->stock_pos++]);
    begin_turn(s, (s->dealer + 1) % s->n, false);
}

/* Shuffles game `game`'s deck on its own stream (§15) and deals it. */
static void deal(jitb_state *s)
{
    uint8_t deck[MAX_CARDS];
    deal_from(s, deck, eu_twin_shuffled(s->seed, s->game, s->packs, deck));
}

/* The game ends (§13): the next one is dealt by the next dealer, or the
 * match is over. */
static void end_game(jitb_state *s, int reason)
{
    push_event(s, JA_JITB_EV_END, NONE, NONE, NONE, NONE, reason);
    if (s->game + 1u < s->games) {
        for (int i = 0; i < s->n; i++)
            s->prev_pts[i] += s->game_pts[i];
        s->game++;
        s->dealer = (uint8_t)((s->dealer + 1) % s->n);
        deal(s);
    } else {
        clear_turn(s);
        s->stage = STAGE_OVER;
    }
}

/* The end of a turn: the lock of the seat ends with its regular turn after
 * the one that set it (§9; lock_fresh is cleared when that turn begins, and
 * set again if the seat changes the box once more); then an extra turn or
 * the next seat. */
static void end_turn(jitb_state *s)
{
    if (s->lock_seat == s->cur && !s->lock_fresh) {
        push_event(s, JA_JITB_EV_UNLOCK, s->cur, NONE, NONE, NONE, 0);
        s->lock_seat = NONE;
    }
    if (s->extra_due) {
        push_event(s, JA_JITB_EV_EXTRA, s->cur, NONE, NONE, NONE, 0);
        begin_turn(s, s->cur, true);
    } else {
        begin_turn(s, (s->cur + 1) % s->n, false);
    }
}

/* The end of a scoring part (§8.1), after END_TURN, a JACK_IN onto box
 * jack_box (NONE otherwise), or a match that used the last available card. */
static void finish_scoring(jitb_state *s, int jack_box)
{
    for (int b = 0; b < s->n_boxes; b++)
        if (s->single_mask[b] == 0xF) {
            add_points(s, s->cur, s->single_count[b]);
            push_event(s, JA_JITB_EV_DOUBLE, s->cur, NONE, NONE, b, s->single_count[b]);
        }
    s->extra_due = available(s) == 0;
    if (jack_box != NONE && !any_box_open(s)) {
        end_game(s, JA_JITB_END_CLOSED);
        return;
    }
    if (jack_box != NONE && box_open(s, jack_box))
        for (int pos = 4 * jack_box; pos < 4 * jack_box + 4; pos++)
            deal_box_card(s, pos, s->cur);
    bool full = refill(s, s->cur);
    if (s->opened)
        full = refill(s, partner_of(s->cur)) && full;
    if (!full) {
        end_game(s, JA_JITB_END_STOCK);
        return;
    }
    if (jack_box != NONE) {
        s->stage = STAGE_J; /* some box is open: checked above */
        return;
    }
    end_turn(s);
}

/* The end of an exchange turn (§8.2): changes first, then the marked cards
 * are discarded and as many drawn. */
static void finish_exchange(jitb_state *s)
{
    apply_changes(s);
    for (int i = 0; i < s->n_marked; i++)
        s->discard[s->discard_count++] = s->marked[i];
    s->exchanged[s->cur] = (uint8_t)(s->exchanged[s->cur] + s->n_marked);
    push_event(s, JA_JITB_EV_EXCHANGE, s->cur, NONE, NONE, NONE, s->n_marked);
    if (!refill(s, s->cur)) {
        end_game(s, JA_JITB_END_STOCK);
        return;
    }
    end_turn(s);
}

/* ---- Matching ------------------------------------------------------------------ */

/* The cards the acting seat may use, as references (JA_JITB_PARTNER +
 * identity for the partner's), ascending, with the copies held. */
typedef struct avail {
    int n;
    uint8_t ref[2 * HAND], count[2 * HAND];
} avail;

static void add_avail(const jitb_state *s, avail *av, int seat, uint8_t base)
{
    for (uint64_t m = idents(s, seat); m; m &= m - 1) {
        int c = __builtin_ctzll(m);
        av->ref[av->n] = (uint8_t)(base + c);
        av->count[av->n++] = (uint8_t)copies(s, seat, c);
    }
}

static void build_avail(const jitb_state *s, avail *av)
{
    av->n = 0;
    add_avail(s, av, s->cur, 0);
    if (s->opened)
        add_avail(s, av, partner_of(s->cur), JA_JITB_PARTNER);
}

/* The values a rank may take: an ace 1 or 14, a Jack 11, and so on (§2). */
static int values(int r, int v[2])
{
    v[0] = r + 1;
    v[1] = 14;
    return r == JA_RANK_A ? 2 : 1;
}

/* Can two cards of ranks ra, rb match an active card of rank rt by sum or
 * difference, with any choice of ace values (§6.2, #4)? Two Jacks never can
 * (22 and 0 are no card's value). */
static bool pair_ok(int ra, int rb, int rt)
{
    int a[2], b[2], t[2];
    int na = values(ra, a), nb = values(rb, b), nt = values(rt, t);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            for (int k = 0; k < nt; k++)
                if (a[i] + b[j] == t[k] || abs(a[i] - b[j]) == t[k])
                    return true;
    return false;
}

/* Points of a pair against active card t (§7, #8). */
static int pair_points(uint8_t c1, uint8_t c2, uint8_t t)
{
    static const int8_t POINTS[2][3] = {{1, 2, 4}, {4, 8, 12}};
    int in = (suit_of(c1) == suit_of(t)) + (suit_of(c2) == suit_of(t));
    bool jack = rank_of(c1) == JA_RANK_J || rank_of(c2) == JA_RANK_J;
    return POINTS[jack][in];
}

/* The legal matches against position pos (§6.2): SINGLE codes then PAIR
 * codes, ascending. With out == NULL, returns 1 at the first one found (or
 * 0); otherwise writes up to cap codes and returns how many there are. */
static uint32_t list_matches(const jitb_state *s, const avail *av, int pos, ja_action *out,
                             uint32_t cap)
{
    uint32_t n = 0;
    int rt = rank_of(ident(s->top[pos]));
#define PUT(c)                      \
    do {                            \
        if (!out)                   \
            return 1;               \
        if (n < cap)                \
            out[n].code = (c);      \
        n++;                        \
    } while (0)
    for (int i = 0; i < av->n; i++)
        if (rank_of(JA_JITB_REF_CARD(av->ref[i])) == rt)
            PUT(JA_JITB_SINGLE(av->ref[i]));
    for (int i = 0; i < av->n; i++) {
        int ri = rank_of(JA_JITB_REF_CARD(av->ref[i]));
        for (int j = i; j < av->n; j++)
            if ((j > i || av->count[i] > 1) &&
                pair_ok(ri, rank_of(JA_JITB_REF_CARD(av->ref[j])), rt))
                PUT(JA_JITB_PAIR(av->ref[i], av->ref[j]));
    }
#undef PUT
    return n;
}

/* The identity of the acting seat's only card if it is a Jack, else NONE:
 * the condition of JACK_IN on the hand (§10, #14). */
static uint8_t lone_jack(const jitb_state *s)
{
    uint64_t m = idents(s, s->cur);
    if (s->hand_count[s->cur] != 1)
        return NONE;
    uint8_t c = (uint8_t)__builtin_ctzll(m);
    return rank_of(c) == JA_RANK_J ? c : NONE;
}

/* ---- Legal actions ------------------------------------------------------------ */

/* The acting seat's legal list (spec §6.1), sorted by code. Returns the full
 * count; writes at most cap codes. */
static uint32_t gen_legal(const jitb_state *s, ja_action *out, uint32_t cap)
{
    uint32_t n = 0;
#define PUT(c) eu_put(out, cap, &n, (c))
    switch (s->stage) {
    case STAGE_A: {
        avail av;
        build_avail(s, &av);
        for (int b = 0; b < s->n_boxes; b++)
            if (box_open(s, b))
                for (int p = 0; p < 4; p++)
                    if (list_matches(s, &av, 4 * b + p, NULL, 0))
                        PUT(JA_JITB_TARGET(b, p));
        uint8_t j = lone_jack(s);
        if (j != NONE)
            for (int b = 0; b < s->n_boxes; b++)
                if (free_slot(s, b, color_of(j)) >= 0)
                    PUT(JA_JITB_JACK_IN(suit_of(j), b));
        PUT(s->matches ? JA_JITB_END_TURN : JA_JITB_EXCHANGE);
        break;
    }
    case STAGE_B: {
        avail av;
        build_avail(s, &av);
        n = list_matches(s, &av, s->target, out, cap);
        break;
    }
    case STAGE_O:
        PUT(JA_JITB_OPEN);
        PUT(JA_JITB_KEEP_CLOSED);
        break;
    case STAGE_X:
        for (uint64_t m = idents(s, s->cur); m; m &= m - 1)
            PUT(JA_JITB_MARK(__builtin_ctzll(m)));
        if (s->n_marked)
            PUT(JA_JITB_CONFIRM);
        break;
    case STAGE_Y:
    case STAGE_J:
        for (int b = 0; b < s->n_boxes; b++) {
            if (!box_open(s, b))
                continue;
            unsigned chosen = (unsigned)eu_popcount32((s->change_mask >> (4 * b)) & 0xFu);
            for (int p = 0; p < 4 && chosen < s->limit; p++)
                if (!(s->change_mask >> (4 * b + p) & 1u))
                    PUT(JA_JITB_CHANGE(b, p));
        }
        PUT(JA_JITB_DONE);
        break;
    default: break;
    }
#undef PUT
    return n < cap ? n : cap;
}

/* The copies the acting seat may use of card reference ref (build_avail's
 * count): its own, or its partner's once the partner's hand is open. */
static int ref_copies(const jitb_state *s, uint32_t ref)
{
    const uint32_t c = JA_JITB_REF_CARD(ref);
    if (ref >= 2 * JA_JITB_PARTNER || c >= 52 || (JA_JITB_REF_IS_PARTNER(ref) && !s->opened))
        return 0;
    return copies(s, JA_JITB_REF_IS_PARTNER(ref) ? partner_of(s->cur) : s->cur, (int)c);
}

/* Whether code is in list_matches against position pos: a SINGLE of the
 * target's rank, or a PAIR r1 <= r2 (two copies when r1 == r2) that
 * matches it by sum or difference. */
static bool match_code(const jitb_state *s, int pos, uint32_t code)
{
    const int rt = rank_of(ident(s->top[pos]));
    if (JA_JITB_IS_SINGLE(code)) {
        uint32_t r = JA_JITB_SINGLE_REF(code);
        return ref_copies(s, r) >= 1 && rank_of((uint8_t)JA_JITB_REF_CARD(r)) == rt;
    }
    if (!JA_JITB_IS_PAIR(code))
        return false;
    const uint32_t r1 = JA_JITB_PAIR_REF1(code), r2 = JA_JITB_PAIR_REF2(code);
    if (r1 > r2 || ref_copies(s, r1) < (r1 == r2 ? 2 : 1) || ref_copies(s, r2) < 1)
        return false;
    return pair_ok(rank_of((uint8_t)JA_JITB_REF_CARD(r1)), rank_of((uint8_t)JA_JITB_REF_CARD(r2)),
                   rt);
}

/* Whether code is in gen_legal(s): the same conditions for the one code,
 * without the list, which apply() would otherwise generate a second time
 * at every step (the caller has just had it from legal()). The property
 * suite (tests/rules/test_all_games.c) checks every code up to past the
 * largest listed one against the list. */
static bool is_legal(const jitb_state *s, uint32_t code)
{
    switch (s->stage) {
    case STAGE_A: {
        if (code == (s->matches ? JA_JITB_END_TURN : JA_JITB_EXCHANGE))
            return true;
        if (code < JA_JITB_TARGET(s->n_boxes, 0)) {
            if (!box_open(s, (int)(code / 4)))
                return false;
            avail av;
            build_avail(s, &av);
            return list_matches(s, &av, (int)code, NULL, 0) != 0;
        }
        if (code < JA_JITB_JACK_IN(0, 0) || code >= JA_JITB_JACK_IN(4, 0))
            return false;
        const uint8_t j = lone_jack(s);
        const uint32_t k = code - JA_JITB_JACK_IN(0, 0);
        return j != NONE && k / 4 == (uint32_t)suit_of(j) && (int)(k % 4) < s->n_boxes &&
               free_slot(s, (int)(k % 4), color_of(j)) >= 0;
    }
    case STAGE_B: return match_code(s, s->target, code);
    case STAGE_O: return code == JA_JITB_OPEN || code == JA_JITB_KEEP_CLOSED;
    case STAGE_X:
        if (code == JA_JITB_CONFIRM)
            return s->n_marked > 0;
        return code >= JA_JITB_MARK(0) && code < JA_JITB_MARK(52) &&
               ((idents(s, s->cur) >> (code - JA_JITB_MARK(0))) & 1u);
    case STAGE_Y:
    case STAGE_J: {
        if (code == JA_JITB_DONE)
            return true;
        if (code < JA_JITB_CHANGE(0, 0) || code >= JA_JITB_CHANGE(s->n_boxes, 0))
            return false;
        const uint32_t k = code - JA_JITB_CHANGE(0, 0), b = k / 4;
        const unsigned chosen = (unsigned)eu_popcount32((s->change_mask >> (4 * b)) & 0xFu);
        return box_open(s, (int)b) && chosen < s->limit && !((s->change_mask >> k) & 1u);
    }
    default: return false;
    }
}

static uint32_t jitb_to_act(const void *st)
{
    const jitb_state *s = st;
    return s->stage == STAGE_OVER ? 0 : UINT32_C(1) << s->cur;
}

static uint32_t jitb_legal(const void *st, int seat, ja_action *out, uint32_t cap)
{
    const jitb_state *s = st;
    if (s->stage == STAGE_OVER || seat != s->cur)
        return 0;
    return gen_legal(s, out, cap);
}

/* Spec §16. Always one of the legal actions. */
static ja_action jitb_default_action(const void *st, int seat)
{
    const jitb_state *s = st;
    ja_action a = {JA_JITB_DONE};
    (void)seat;
    switch (s->stage) {
    case STAGE_A: a.code = s->matches ? JA_JITB_END_TURN : JA_JITB_EXCHANGE; break;
    case STAGE_B: gen_legal(s, &a, 1); break;
    case STAGE_O: a.code = JA_JITB_KEEP_CLOSED; break;
    case STAGE_X:
        a.code = s->n_marked ? JA_JITB_CONFIRM
                             : JA_JITB_MARK(__builtin_ctzll(idents(s, s->cur)));
        break;
    default: break;
    }
    return a;
}

/* ---- Apply -------------------------------------------------------------------- */

/* A SINGLE or PAIR against the target (§6.2, §7): the cards go to the discard
 * pile at once, the points are scored, and the turn goes on (stage O after a
 * team's first match with a J, K or Q, §11), or ends when nothing is left. */
static void do_match(jitb_state *s, uint32_t code)
{
    uint8_t t = ident(s->top[s->target]);
    int b = s->target / 4, p = s->target % 4, pts;
    uint32_t r1 = JA_JITB_IS_SINGLE(code) ? JA_JITB_SINGLE_REF(code) : JA_JITB_PAIR_REF1(code);
    int partner = partner_of(s->cur);
    uint8_t id1 = take_card(s, JA_JITB_REF_IS_PARTNER(r1) ? partner : s->cur,
                            (int)JA_JITB_REF_CARD(r1));
    uint8_t id2 = NONE;
    s->discard[s->discard_count++] = id1;
    if (JA_JITB_IS_SINGLE(code)) {
        pts = 1;
        s->single_mask[b] = (uint8_t)(s->single_mask[b] | 1u << p);
        s->single_count[b]++;
    } else {
        uint32_t r2 = JA_JITB_PAIR_REF2(code);
        id2 = take_card(s, JA_JITB_REF_IS_PARTNER(r2) ? partner : s->cur,
                        (int)JA_JITB_REF_CARD(r2));
        s->discard[s->discard_count++] = id2;
        pts = pair_points(ident(id1), ident(id2), t);
    }
    add_points(s, s->cur, pts);
    push_event(s, JA_JITB_EV_MATCH, s->cur, id1, id2, s->target, pts);
    s->matches++;
    s->target = NONE;
    bool court = is_court(ident(id1)) || (id2 != NONE && is_court(ident(id2)));
    if (s->teams && s->matches == 1 && court)
        s->stage = STAGE_O;
    else if (available(s) == 0)
        finish_scoring(s, NONE);
    else
        s->stage = STAGE_A;
}

/* JACK_IN(suit, b): the seat's last card, a Jack, onto box b (§10). */
static void jack_in(jitb_state *s, uint32_t code)
{
    int suit = (int)(code - JA_JITB_JACK_IN(0, 0)) / 4, b = (int)(code - JA_JITB_JACK_IN(0, 0)) % 4;
    uint8_t c = (uint8_t)ja_card_make(suit, JA_RANK_J);
    uint8_t id = take_card(s, s->cur, c);
    int k = free_slot(s, b, color_of(c));
    s->slot_jack[k] = id;
    s->slot_seat[k] = s->cur;
    add_points(s, s->cur, JACK_IN_POINTS);
    push_event(s, JA_JITB_EV_JACK_IN, s->cur, id, NONE, b, JACK_IN_POINTS);
    finish_scoring(s, b);
}

/* OPEN (§11): the partner's hand becomes public and available. */
static void open_partner(jitb_state *s)
{
    int p = partner_of(s->cur);
    for (int c = 0; c < 52; c++)
        s->known[p][c] = (uint8_t)copies(s, p, c);
    s->opened = 1;
    push_event(s, JA_JITB_EV_OPEN, s->cur, NONE, NONE, NONE, 0);
}

/* One decision of the seat to act; code is legal. Runs every automatic step
 * that follows, up to the next decision. */
static void step(jitb_state *s, uint32_t code)
{
    switch (s->stage) {
    case STAGE_A:
        if (code < JA_JITB_JACK_IN(0, 0)) {
            s->target = (uint8_t)code;
            s->stage = STAGE_B;
        } else if (code < JA_JITB_EXCHANGE) {
            jack_in(s, code);
        } else if (code == JA_JITB_EXCHANGE) {
            s->stage = STAGE_X;
        } else {
            finish_scoring(s, NONE);
        }
        break;
    case STAGE_B: do_match(s, code); break;
    case STAGE_O:
        if (code == JA_JITB_OPEN)
            open_partner(s);
        else
            push_event(s, JA_JITB_EV_CLOSED, s->cur, NONE, NONE, NONE, 0);
        s->stage = STAGE_A;
        break;
    case STAGE_X:
        if (code == JA_JITB_CONFIRM) {
            if (s->n_marked == HAND && s->lock_seat == NONE)
                s->stage = STAGE_Y;
            else
                finish_exchange(s);
        } else {
            uint8_t id = take_card(s, s->cur, (int)(code - JA_JITB_MARK(0)));
            s->marked[s->n_marked++] = id;
            push_event(s, JA_JITB_EV_MARK, s->cur, id, NONE, NONE, 0);
        }
        break;
    case STAGE_Y:
    case STAGE_J:
        if (code != JA_JITB_DONE) {
            s->change_mask = (uint16_t)(s->change_mask | 1u << (code - JA_JITB_CHANGE(0, 0)));
        } else if (s->stage == STAGE_Y) {
            finish_exchange(s);
        } else {
            apply_changes(s);
            end_turn(s);
        }
        break;
    default: break;
    }
}

EU_ONE_SEAT_APPLY(jitb, jitb_state, s->stage == STAGE_OVER)

/* ---- Options and setup ---------------------------------------------------------- */

static const ja_option_spec options[] = {JITB_OPTIONS(EU_OPT_SPEC) EU_OPT_END};
EU_OPT_CHECK(options);

/* Checks a seat count and option values; a one-line reason in err. */
static int check_options(const int32_t *v, uint32_t n, char *err, size_t cap)
{
    if (n < 2 || n > MAX_SEATS) {
        snprintf(err, cap, "jack-in-the-box is played by 2 to 4 seats, not %u", (unsigned)n);
        return JA_EINVAL;
    }
    if (v[OPT_VARIANT] < 0 || v[OPT_VARIANT] > 3 || v[OPT_TEAMS] < 0 || v[OPT_TEAMS] > 1 ||
        v[OPT_GAMES] < 1 || v[OPT_GAMES] > 1000) {
        snprintf(err, cap, "option values out of range");
        return JA_EINVAL;
    }
    if (v[OPT_TEAMS] && n != 4) {
        snprintf(err, cap, "teams=on needs exactly 4 seats (partners 0+2 and 1+3), not %u",
                 (unsigned)n);
        return JA_EINVAL;
    }
    return JA_OK;
}

static int jitb_resolve_options(ja_options *o, uint32_t n, char *err, size_t cap)
{
    return check_options(o->value, n, err, cap);
}

static int jitb_setup(void *st, const ja_options *o, uint32_t n, uint64_t seed)
{
    jitb_state *s = st;
    int32_t v[OPT_COUNT];
    eu_option_values(options, o, n, v, OPT_COUNT);
    char err[128];
    if (check_options(v, n, err, sizeof err) != JA_OK)
        return JA_EINVAL;
    memset(s, 0, sizeof *s);
    const variant_def *vd = &VARIANTS[v[OPT_VARIANT]];
    s->seed = seed;
    s->n = (uint8_t)n;
    s->variant = (uint8_t)v[OPT_VARIANT];
    s->teams = (uint8_t)v[OPT_TEAMS];
    s->games = (uint16_t)v[OPT_GAMES];
    s->packs = vd->packs;
    s->n_boxes = vd->boxes;
    s->limit = vd->limit;
    s->dealer = eu_first_dealer(seed, n);
    deal(s);
    return JA_OK;
}

/* Re-deals the current game from a stacked deck (tests only): `first` is the
 * dealer, cards[0] the top of the stock before the deal (the Box is dealt
 * first, then the hands). With two packs a card named a second time (0..51)
 * means its second copy (id + 54); jokers cannot be named. This game's
 * points and events are dropped; earlier games' are kept. */
static int jitb_test_deal(void *st, int first, const uint8_t *cards, uint32_t n)
{
    jitb_state *s = st;
    uint8_t deck[MAX_CARDS];
    int total = first < 0 || first >= s->n ? JA_EINVAL : eu_stack_deck(cards, n, 52, s->packs, deck);
    if (total < 0)
        return JA_EINVAL;
    s->dealer = (uint8_t)first;
    s->event_seq = s->game_ev;
    deal_from(s, deck, (uint32_t)total);
    return JA_OK;
}

static const ja_ext_test_deal TEST_DEAL = {jitb_test_deal};

/* ---- Observation ---------------------------------------------------------------- */

#define EU_OBS_T ja_jitb_obs
static const ja_field obs_fields[] = {JA_JITB_OBS_FIELDS(EU_FIELD_S, EU_FIELD_A)};

static uint8_t ident_or_none(uint8_t id) { return id == NONE ? NONE : ident(id); }

/* The part of seat's observation that is rewritten whole every time: the
 * scalars, the turn in progress (marked cards, singles), and each seat's
 * counts and scores. Writes every entry it owns, the zeros past n_marked
 * included, so that it may overwrite an older observation. */
static void observe_public(const jitb_state *s, int seat, ja_jitb_obs *o)
{
    bool over = s->stage == STAGE_OVER;
    o->variant = s->variant;
    o->teams = s->teams;
    o->packs = s->packs;
    o->n_boxes = s->n_boxes;
    o->change_limit = s->limit;
    o->dealer = s->dealer;
    o->games = s->games;
    o->game = s->game;
    o->turn = s->turn;
    o->to_act = over ? NONE : s->cur;
    /* A target chosen but not matched yet is the acting seat's own business
     * (docs/rules: it would tell that its hand can match that card): the
     * others see stage A until the match is declared. */
    bool pending = s->stage == STAGE_B && seat != s->cur;
    o->stage = pending ? STAGE_A : s->stage;
    o->extra_turn = s->extra;
    o->target = pending ? NONE : s->target;
    o->matches = s->matches;
    o->opened = s->opened;
    o->extra_due = s->extra_due;
    o->change_mask = s->change_mask;
    o->lock_seat = s->lock_seat;
    o->lock_fresh = s->lock_fresh;
    o->stock_count = (uint8_t)stock_left(s);
    o->discard_count = s->discard_count;
    o->box_log_count = s->log_count;
    /* Locals for every bound: stores into the observation (bytes) may alias
     * the state for the compiler, which would otherwise reload them. */
    const int nm = s->n_marked, nb = s->n_boxes, n = s->n;
    o->n_marked = (uint8_t)nm;
    for (int i = 0; i < HAND; i++)
        o->marked[i] = i < nm ? ident(s->marked[i]) : 0;
    for (int b = 0; b < nb; b++) {
        o->single_mask[b] = s->single_mask[b];
        o->single_count[b] = s->single_count[b];
    }
    for (int i = 0; i < n; i++) {
        o->hand_count[i] = s->hand_count[i];
        o->exchanged[i] = s->exchanged[i];
        o->game_score[i] = s->game_pts[i];
        o->score[i] = s->prev_pts[i] + s->game_pts[i];
    }
}

/* Box b's joker slots and whether it is open. A box not in play has slots
 * of colour 0 (VARIANTS), never covered: it is not open. */
static void observe_slots(const jitb_state *s, ja_jitb_obs *o, int b)
{
    o->box_open[b] = box_open(s, b);
    for (int k = 2 * b; k < 2 * b + 2; k++) {
        o->slot_jack[k] = ident_or_none(s->slot_jack[k]);
        o->slot_seat[k] = s->slot_seat[k];
    }
}

/* The discard pile from entry dc on and the box log from entry lc on. */
static void observe_piles(const jitb_state *s, ja_jitb_obs *o, int dc, int lc)
{
    /* Locals for every bound: stores into the observation (bytes) may alias
     * the state for the compiler, which would otherwise reload them. */
    const int dn = s->discard_count, ln = s->log_count;
    for (int i = dc; i < dn; i++)
        o->discard[i] = ident(s->discard[i]);
    for (int i = lc; i < ln; i++) {
        o->box_log[i] = ident(s->log_card[i]);
        o->box_log_pos[i] = s->log_pos[i];
    }
}

/* Everything seat may know, nothing more (§14): the public table (boxes with
 * their piles, slots, discards, counts, scores, the turn in progress, marked
 * cards, the lock), its own hand, the cards known in every hand, and the
 * recent public events. Never other hands' unknown cards, the stock order or
 * the seed. */
static void jitb_observe(const void *st, int seat, void *obs)
{
    const jitb_state *s = st;
    ja_jitb_obs *o = obs;
    if (!eu_obs_begin(o, sizeof *o, seat, s->n, &o->seat, &o->n_seats))
        return;
    observe_public(s, seat, o);
    for (int pos = 0; pos < N_POS; pos++)
        o->active[pos] = ident_or_none(s->top[pos]);
    for (int k = 0; k < N_SLOTS; k++)
        o->slot_color[k] = slot_color(s, k);
    for (int b = 0; b < MAX_BOXES; b++)
        observe_slots(s, o, b);
    for (int i = 0; i < s->n; i++)
        memcpy(o->known + 52 * i, s->known[i], 52);
    eu_set_counts(s->hand[seat], o->hand);
    observe_piles(s, o, 0, 0);
    EU_EVENTS_OUT(o, s, s->event_seq, N_EVENTS, ev_kind, ev_seat, ev_card, ev_card2, ev_pos, ev_value);
}

/* JA_EXT_OBSERVE_UPDATE: obs is seat's observation of an earlier state of
 * this match, or zeros. observe_public() is rewritten whole: it holds what
 * changes without an event (the target and stage, the chosen changes, the
 * turn, the lock's freshness, the marked cards and singles, which the next
 * turn clears silently) and the counts and scores, cheaper copied than
 * followed. The public events since obs->event_seq say what can have
 * changed in the rest:
 *  - Within a game, hands change only by take_card() (MATCH, JACK_IN, MARK:
 *    each pushes an event naming the seat acting), refill() (DRAW, naming
 *    the seat drawing) and open_partner() (OPEN, known[] only); known[]
 *    changes only by the first and the last. An event of those kinds
 *    naming seat p means p's row of known[] (and the own hand when p is
 *    seat) is copied again. Two reach the partner's too, in team mode
 *    only: a MATCH may take the partner's opened cards, and OPEN fills the
 *    partner's row of known[]. Without teams no hand is ever opened, so they
 *    reach p alone. The other kinds leave hands and known[] alone (EXCHANGE
 *    discards cards taken from the hand at MARK). A JACK_IN that closes the
 *    last box of the match is the only event to tell that the seat's Jack
 *    left (test_jitb_observe_update): any other is followed by the seat's
 *    DRAW or a new deal.
 *  - A position's active card changes only when a card is dealt onto it
 *    (BOX, naming the position), a joker slot only by a JACK_IN (naming the
 *    box), and whether a box is open only with its slots: only those
 *    positions and boxes are written again. The slots' colours follow from
 *    the variant: never.
 *  - The discard pile and the box log only grow within a game (REJECT,
 *    MATCH, EXCHANGE; BOX): only their new tails are written.
 *  - A new game (DEAL) clears hands, known[], the Box and the piles: a full
 *    observe. (An obs with longer piles than the state's is not of this
 *    game: the tails written are then empty, never out of bounds.)
 *  - The event columns move up by the new events, which are appended.
 * A full observe when obs is not an observation of seat in this match (all
 * zeros: never observed), or when more than FEW_EVENTS events came since
 * obs->event_seq: each event costs its copy, its share of the piles' tails
 * and mostly a row of known[], and past some ten of them the full observe
 * is the cheaper (measured at 2 and 4 seats); the ring, which is larger,
 * still holds every event this reads. */
#define FEW_EVENTS 10
_Static_assert(FEW_EVENTS <= N_EVENTS, "the events since obs must be in the ring");
/* The event kinds that change the hand and known[] of the seat they name,
 * and those that change the partner's in team mode. */
#define EV_BIT(k) (UINT32_C(1) << JA_JITB_EV_##k)
#define HAND_EVENTS (EV_BIT(MATCH) | EV_BIT(JACK_IN) | EV_BIT(MARK) | EV_BIT(DRAW) | EV_BIT(OPEN))
#define PARTNER_EVENTS (EV_BIT(MATCH) | EV_BIT(OPEN))
static void jitb_observe_update(const void *st, int seat, void *obs)
{
    const jitb_state *s = st;
    ja_jitb_obs *o = obs;
    const int n = s->n;
    const uint32_t seq = s->event_seq, old = o->event_seq;
    const int old_dc = o->discard_count, old_lc = o->box_log_count;
    /* The six one-byte event columns, one after the other (eu_ring_shift). */
#define EV_AT(col, k) (offsetof(ja_jitb_obs, col) == offsetof(ja_jitb_obs, ev_kind) + (k)*N_EVENTS)
    _Static_assert(EV_AT(ev_seat, 1) && EV_AT(ev_card, 2) && EV_AT(ev_card2, 3) &&
                       EV_AT(ev_pos, 4) && EV_AT(ev_value, 5),
                   "ja_jitb_obs: the event columns are not contiguous");
#undef EV_AT
    if (seat < 0 || seat >= n || o->seat != seat || o->n_seats != n || old > seq ||
        seq - old > FEW_EVENTS) {
        jitb_observe(st, seat, obs);
        return;
    }
    /* The new events into the event columns, and what they say changed. */
    bool dealt = false;
    uint32_t seats = 0, partners = 0; /* named by an event of HAND_, PARTNER_EVENTS */
    uint32_t dealt_to = 0, jacked = 0; /* positions (BOX), boxes (JACK_IN) */
    if (seq != old) {
        uint32_t i = eu_ring_shift(o->ev_kind, 6, old, seq, N_EVENTS);
        for (uint32_t slot = old % N_EVENTS, q = old; q != seq; q++, i++) {
            const uint8_t kind = s->ev_kind[slot], p = s->ev_seat[slot], pos = s->ev_pos[slot];
            o->ev_kind[i] = kind;
            o->ev_seat[i] = p;
            o->ev_card[i] = s->ev_card[slot];
            o->ev_card2[i] = s->ev_card2[slot];
            o->ev_pos[i] = pos;
            o->ev_value[i] = s->ev_value[slot];
            slot = slot + 1 == N_EVENTS ? 0 : slot + 1;
            /* No branches: which way each goes is a coin toss. */
            const uint32_t bit = (UINT32_C(1) << (p & 31)) & (0u - (uint32_t)(p < n));
            dealt |= kind == JA_JITB_EV_DEAL;
            seats |= bit & (0u - (HAND_EVENTS >> (kind & 31) & 1u));
            partners |= bit & (0u - (PARTNER_EVENTS >> (kind & 31) & 1u));
            dealt_to |= (uint32_t)(kind == JA_JITB_EV_BOX) << (pos & 31);
            jacked |= (uint32_t)(kind == JA_JITB_EV_JACK_IN) << (pos & 31);
        }
        o->event_seq = seq;
        eu_ring_seqs(o->ev_seq, seq, N_EVENTS);
    }
    if (dealt) {
        jitb_observe(st, seat, obs);
        return;
    }
    observe_public(s, seat, o);
    for (dealt_to &= (UINT32_C(1) << N_POS) - 1; dealt_to; dealt_to &= dealt_to - 1) {
        const int pos = __builtin_ctz(dealt_to);
        o->active[pos] = ident_or_none(s->top[pos]);
    }
    for (jacked &= (UINT32_C(1) << MAX_BOXES) - 1; jacked; jacked &= jacked - 1)
        observe_slots(s, o, __builtin_ctz(jacked));
    if (s->teams) /* 4 seats; partner_of(p) = (p + 2) % 4 */
        seats |= ((partners << 2) | (partners >> 2)) & 0xFu;
    for (; seats; seats &= seats - 1) {
        const int p = __builtin_ctz(seats);
        memcpy(o->known + 52 * p, s->known[p], 52);
        if (p == seat) {
            eu_set_counts(s->hand[seat], o->hand);
        }
    }
    observe_piles(s, o, old_dc, old_lc);
}
#undef EV_BIT
#undef HAND_EVENTS
#undef PARTNER_EVENTS

static const ja_ext_observe_update OBSERVE_UPDATE = {jitb_observe_update};

/* JA_EXT_OBSERVE_PUBLIC: what every seat sees (§14): the boxes with their
 * piles and slots, the discards and box log, counts, scores, the turn in
 * progress as the seats not acting see it (a target chosen but not yet
 * matched stays hidden: stage A), the marked cards, the lock, the cards
 * known in every hand (an opened partner hand) and the events. No hand. */
static void jitb_observe_public(const void *st, void *obs)
{
    const jitb_state *s = st;
    ja_jitb_obs *o = obs;
    eu_obs_public_begin(o, sizeof *o, s->n, &o->seat, &o->n_seats);
    observe_public(s, -1, o);
    for (int pos = 0; pos < N_POS; pos++)
        o->active[pos] = ident_or_none(s->top[pos]);
    for (int k = 0; k < N_SLOTS; k++)
        o->slot_color[k] = slot_color(s, k);
    for (int b = 0; b < MAX_BOXES; b++)
        observe_slots(s, o, b);
    for (int i = 0; i < s->n; i++)
        memcpy(o->known + 52 * i, s->known[i], 52);
    observe_piles(s, o, 0, 0);
    EU_EVENTS_OUT(o, s, s->event_seq, N_EVENTS, ev_kind, ev_seat, ev_card, ev_card2, ev_pos,
                  ev_value);
}

static const ja_ext_observe_public OBSERVE_PUBLIC = {jitb_observe_public};

static uint32_t jitb_unseen(const void *st, uint8_t *cards, uint32_t cap);
static void jitb_reshuffle(void *st, uint64_t seed);
static uint32_t jitb_progress(const void *st, ja_outcome *so_far)
{
    const jitb_state *s = st;
    eu_outcome(so_far, true, s->n, s->prev_pts, s->game_pts, JA_SCORE_UNIT);
    return s->game;
}
static const ja_ext_chance CHANCE = {jitb_unseen, jitb_reshuffle, jitb_progress};

static const void *jitb_extension(const char *id)
{
    return eu_extension(id, &TEST_DEAL, &OBSERVE_UPDATE, &OBSERVE_PUBLIC, &CHANCE);
}

/* Match score = total points (§13), in units of 1/JA_SCORE_UNIT; partners
 * hold equal totals, so they share a place. */
static int jitb_outcome(const void *st, ja_outcome *out)
{
    const jitb_state *s = st;
    return eu_outcome(out, s->stage == STAGE_OVER, s->n, s->prev_pts, s->game_pts, JA_SCORE_UNIT);
}

/* ---- Hidden information ------------------------------------------------------- */

/* Re-deals every card `seat` cannot see (§14): the cards of other hands that
 * are not known to be there, and the stock, among the same slots; then
 * replaces the future (the match seed, hence the later games' shuffles).
 * Another seat's pending target is hidden too, and the re-dealt hand may not
 * match it: that seat goes back to choosing (stage A). */
static void jitb_determinize(void *st, int seat, uint64_t seed)
{
    jitb_state *s = st;
    if (s->stage == STAGE_B && seat != s->cur) {
        s->stage = STAGE_A;
        s->target = NONE;
    }
    eu_twin_redeal(s->hand, s->hand_count, s->known, s->n, seat, s->stock, s->stock_pos,
                   s->stock_len, seed);
    s->seed = ja_seed_derive(seed, JA_STREAM_DETZ, 1);
}

/* JA_EXT_CHANCE: the stock, top first; and the future (the match seed). */
static uint32_t jitb_unseen(const void *st, uint8_t *cards, uint32_t cap)
{
    const jitb_state *s = st;
    if (s->stage == STAGE_OVER)
        return 0;
    return eu_unseen_copy(s->stock + s->stock_pos, (uint32_t)(s->stock_len - s->stock_pos), cards,
                          cap);
}

static void jitb_reshuffle(void *st, uint64_t seed)
{
    jitb_state *s = st;
    if (s->stage != STAGE_OVER)
        eu_chance_shuffle(s->stock + s->stock_pos, (uint32_t)(s->stock_len - s->stock_pos), seed, 0);
    s->seed = ja_seed_derive(seed, JA_STREAM_CHNC, 1);
}

/* Whether obs can be sample()d for seat at all: its options, counts,
 * stage and the seats it names within range. */
static bool sample_fits(const ja_jitb_obs *o, int seat)
{
    int n = o->n_seats;
    return !(n < 2 || n > MAX_SEATS || seat < 0 || seat >= n || o->seat != seat ||
             o->variant > JA_JITB_V3 || o->teams > 1 || o->games < 1 || o->game >= o->games ||
             o->dealer >= n || o->stage > STAGE_OVER ||
             (o->stage == STAGE_OVER ? o->to_act != NONE : o->to_act >= n) ||
             (o->target != NONE && o->target >= N_POS) || o->n_marked > HAND ||
             o->discard_count > MAX_CARDS || o->box_log_count > MAX_CARDS ||
             o->stock_count > MAX_CARDS || (o->lock_seat != NONE && o->lock_seat >= n));
}

/* Every card in place, each copy of a pack once (eu_left): seat's own
 * hand, the marked cards, the discards, the boxes' log and tops, the jacks
 * in the slots, the other hands' known cards; every other card dealt at
 * random into the other hands' unknown slots and the stock (eu_left_deal,
 * from seed). JA_EFORMAT when obs admits no such deal. */
static int sample_cards(jitb_state *s, const ja_jitb_obs *o, int seat, uint64_t seed)
{
    const int n = s->n;
    /* The cards not placed yet; TAKE places one (engine_util.h, eu_left). */
    eu_left left;
    eu_left_init(&left, s->packs);
#define TAKE EU_TAKE
    uint8_t id;
    for (int c = 0; c < 52; c++) {
        if (o->hand[c] > 2 || o->known[52 * seat + c] > o->hand[c])
            return JA_EFORMAT;
        for (int j = 0; j < o->hand[c]; j++) {
            TAKE(c, id);
            add_id(s, seat, id);
        }
    }
    for (int i = 0; i < o->n_marked; i++) {
        TAKE(o->marked[i], id);
        s->marked[i] = id;
    }
    for (int i = 0; i < o->discard_count; i++) {
        TAKE(o->discard[i], id);
        s->discard[i] = id;
    }
    for (int i = 0; i < o->box_log_count; i++) {
        uint8_t pos = o->box_log_pos[i];
        if (pos >= 4 * s->n_boxes)
            return JA_EFORMAT;
        TAKE(o->box_log[i], id);
        s->log_card[i] = id;
        s->log_pos[i] = pos;
        s->top[pos] = id;
    }
    for (int k = 0; k < N_SLOTS; k++) {
        if (o->slot_jack[k] == NONE)
            continue;
        if (o->slot_seat[k] >= n)
            return JA_EFORMAT;
        TAKE(o->slot_jack[k], id);
        s->slot_jack[k] = id;
        s->slot_seat[k] = o->slot_seat[k];
    }
#undef TAKE
    memcpy(s->known, o->known, 52u * (unsigned)n);
    uint8_t unknown[MAX_SEATS] = {0};
    if (eu_left_known(&left, o->known, o->hand_count, n, seat, s->hand, s->hand_count, unknown) !=
            JA_OK ||
        eu_left_deal(&left, unknown, n, s->hand, s->hand_count, s->stock, o->stock_count, seed) !=
            JA_OK)
        return JA_EFORMAT;
    s->stock_len = o->stock_count;
    s->discard_count = o->discard_count;
    s->log_count = o->box_log_count;
    return JA_OK;
}

/* The play as obs states it: the match, the game, the turn and its stage,
 * the boxes, each seat's exchange and points, the events; the future from
 * seed. */
static void sample_play(jitb_state *s, const ja_jitb_obs *o, uint64_t seed)
{
    s->seed = ja_seed_derive(seed, JA_STREAM_DETZ, 1);
    s->games = o->games;
    s->game = o->game;
    s->turn = o->turn;
    s->change_mask = o->change_mask;
    s->dealer = o->dealer;
    s->stage = o->stage;
    s->cur = o->stage == STAGE_OVER ? 0 : o->to_act;
    s->extra = o->extra_turn;
    s->extra_due = o->extra_due;
    s->target = o->target;
    s->matches = o->matches;
    s->opened = o->opened;
    s->lock_seat = o->lock_seat;
    s->lock_fresh = o->lock_fresh;
    s->n_marked = o->n_marked;
    for (int b = 0; b < MAX_BOXES; b++) {
        s->single_mask[b] = o->single_mask[b];
        s->single_count[b] = o->single_count[b];
    }
    for (int i = 0; i < s->n; i++) {
        s->exchanged[i] = o->exchanged[i];
        s->game_pts[i] = o->game_score[i];
        s->prev_pts[i] = o->score[i] - o->game_score[i];
    }
    s->event_seq = o->event_seq;
    s->game_ev = o->event_seq; /* unknown; only test_deal reads it */
    EU_EVENTS_IN(s, o, N_EVENTS, ev_kind, ev_seat, ev_card, ev_card2, ev_pos, ev_value);
}

/* Builds a full state from what seat knows (obs): the public table and
 * piles, its own hand, the marked and known cards in place, every other card
 * dealt at random into the other hands' unknown slots and the stock (the
 * only constraints on hidden cards, §14); the future from seed. The result
 * is checked by observing it again: JA_EFORMAT if that does not give obs
 * back. */
static int jitb_sample(const void *obs, int seat, uint64_t seed, void *st_out)
{
    const ja_jitb_obs *o = obs;
    jitb_state *s = st_out;
    if (!sample_fits(o, seat))
        return JA_EFORMAT;
    const variant_def *vd = &VARIANTS[o->variant];
    memset(s, 0, sizeof *s);
    s->n = o->n_seats;
    s->variant = o->variant;
    s->teams = o->teams;
    s->packs = vd->packs;
    s->n_boxes = vd->boxes;
    s->limit = vd->limit;
    memset(s->top, NONE, sizeof s->top);
    memset(s->slot_jack, NONE, sizeof s->slot_jack);
    memset(s->slot_seat, NONE, sizeof s->slot_seat);
    if (sample_cards(s, o, seat, seed) != JA_OK)
        return JA_EFORMAT;
    sample_play(s, o, seed);
    /* A state that could not arise (a stage B target that is not a live
     * position, say) must not reach the functions that trust it. */
    if (s->stage == STAGE_B && (s->target == NONE || s->top[s->target] == NONE))
        return JA_EFORMAT;

    /* Whatever the checks above missed (padding, stray values, an event ring
     * out of order): the state must observe back to exactly obs. */
    ja_jitb_obs back;
    jitb_observe(s, seat, &back);
    if (memcmp(&back, o, sizeof back) != 0)
        return JA_EFORMAT;
    return JA_OK;
}

/* ---- Text ------------------------------------------------------------------------ */

/* A card reference of SINGLE / PAIR ("7H", "partner 7H") into buf. */
static int ref_text(uint32_t r, char *buf, size_t cap)
{
    char card[3];
    if (JA_JITB_REF_CARD(r) >= 52 || r >= 2 * JA_JITB_PARTNER)
        return JA_EINVAL;
    ja_card_format((uint8_t)JA_JITB_REF_CARD(r), card, sizeof card);
    return snprintf(buf, cap, "%s%s", JA_JITB_REF_IS_PARTNER(r) ? "partner " : "", card);
}

static int jitb_label(ja_action a, char *buf, size_t cap)
{
    uint32_t c = a.code;
    char x[16], y[16];
    if (c < JA_JITB_JACK_IN(0, 0))
        return snprintf(buf, cap, "target box %u pos %u", c / 4, c % 4);
    if (c < JA_JITB_EXCHANGE) {
        ja_card_format(ja_card_make((int)(c - 16) / 4, JA_RANK_J), x, 3);
        return snprintf(buf, cap, "jack in %s box %u", x, (c - 16) % 4);
    }
    if (c >= JA_JITB_MARK(0) && c < JA_JITB_MARK(52)) {
        ja_card_format((uint8_t)(c - JA_JITB_MARK(0)), x, 3);
        return snprintf(buf, cap, "mark %s", x);
    }
    if (c >= JA_JITB_CHANGE(0, 0) && c < JA_JITB_DONE)
        return snprintf(buf, cap, "change box %u pos %u", (c - 128) / 4, (c - 128) % 4);
    if (JA_JITB_IS_SINGLE(c) && ref_text(JA_JITB_SINGLE_REF(c), x, sizeof x) > 0)
        return snprintf(buf, cap, "single %s", x);
    if (JA_JITB_IS_PAIR(c) && JA_JITB_PAIR_REF1(c) <= JA_JITB_PAIR_REF2(c) &&
        ref_text(JA_JITB_PAIR_REF1(c), x, sizeof x) > 0 &&
        ref_text(JA_JITB_PAIR_REF2(c), y, sizeof y) > 0)
        return snprintf(buf, cap, "pair %s %s", x, y);
    switch (c) {
    case JA_JITB_EXCHANGE: return snprintf(buf, cap, "exchange");
    case JA_JITB_END_TURN: return snprintf(buf, cap, "end turn");
    case JA_JITB_OPEN: return snprintf(buf, cap, "open");
    case JA_JITB_KEEP_CLOSED: return snprintf(buf, cap, "keep closed");
    case JA_JITB_CONFIRM: return snprintf(buf, cap, "confirm");
    case JA_JITB_DONE: return snprintf(buf, cap, "done");
    default: return JA_EINVAL;
    }
}

/* "game 1/4 turn 3: seat 1 to act (A); box 0 6H KC 3D 9S jokers R- B-;
 * hands 5 5; stock 33; scores 3 0". */
static int jitb_describe(const void *st, char *buf, size_t cap)
{
    const jitb_state *s = st;
    char tmp[768], card[3];
    eu_text t = EU_TEXT(tmp);
#define ADD(...) eu_add(&t, __VA_ARGS__)
    if (s->stage == STAGE_OVER) {
        ADD("match over after %u game%s: scores", (unsigned)s->games, s->games == 1 ? "" : "s");
    } else {
        /* The line is public: a target chosen but not matched yet is the
         * acting seat's own business (§8 decision 2), so stage B shows as A,
         * as every other seat's observation has it. */
        int stage = s->stage == STAGE_B ? STAGE_A : s->stage;
        ADD("game %u/%u turn %u: seat %u to act (%c)%s", s->game + 1u, (unsigned)s->games,
            (unsigned)s->turn, (unsigned)s->cur, "ABOXYJ"[stage], s->extra ? " extra" : "");
        for (int b = 0; b < s->n_boxes; b++) {
            ADD("; box %d", b);
            for (int pos = 4 * b; pos < 4 * b + 4; pos++) {
                ja_card_format(ident(s->top[pos]), card, sizeof card);
                ADD(" %s", card);
            }
            ADD(" jokers");
            for (int k = 2 * b; k < 2 * b + 2; k++) {
                if (!slot_color(s, k))
                    continue;
                if (s->slot_jack[k] == NONE)
                    card[0] = '-', card[1] = '\0';
                else
                    ja_card_format(ident(s->slot_jack[k]), card, sizeof card);
                ADD(" %c%s", slot_color(s, k) == JA_JITB_RED ? 'R' : 'B', card);
            }
        }
        ADD("; hands");
        for (int i = 0; i < s->n; i++)
            ADD(" %u", (unsigned)s->hand_count[i]);
        ADD("; stock %u", (unsigned)stock_left(s));
        if (s->lock_seat != NONE)
            ADD("; lock seat %u", (unsigned)s->lock_seat);
        ADD("; scores");
    }
    for (int i = 0; i < s->n; i++)
        ADD(" %d", (int)(s->prev_pts[i] + s->game_pts[i]));
#undef ADD
    return snprintf(buf, cap, "%s", tmp);
}

/* ---- The table -------------------------------------------------------------------- */

const ja_game_rules ja_jack_in_the_box_rules = {
    EU_RULES_TYPES(jitb_state, ja_jitb_obs, JA_JITB_OBS_VERSION),
    .rules_version = 1, .name = "jack-in-the-box", .title = "Jack in the Box",
    .min_seats = 2, .max_seats = MAX_SEATS,
    .max_actions = MAX_ACTIONS,
    EU_RULES_FUNCS(jitb),
};
