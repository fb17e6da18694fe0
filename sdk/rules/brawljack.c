/* BrawlJack (BattleJack): the rules engine, a Blackjack without a banker in
 * which every player hits any hand on the table. It implements the project's
 * specification of the game; the rules as implemented, with every decision
 * the specification left open, are in docs/rules/brawljack.md. Section (§)
 * and resolution (#) numbers below are the specification's.
 *
 * The state is one flat, pointer-free struct (memcpy clones it). It holds the
 * future: the match seed, from which every deal's shuffle, first player,
 * dealer deck and blind decks are derived on streams of their own, and the
 * order of the deck in use. Nothing here allocates, blocks or keeps global
 * mutable state.
 *
 * Invariants kept by every function that changes the state:
 *  - Outside stage OVER, `cur` is the one seat deciding and `stage` says what
 *    it decides. Automatic steps (draws, the stock running out, the result,
 *    an auto-played dealer, reveals, the next deal) happen inside apply, so
 *    after apply the state is always at a decision or over.
 *  - deck[deck_pos .. deck_len) is the deck in use, top first: the main stock
 *    during the main phase, then the dealer's deck, then the current blind
 *    round's deck. Every card of a deck is in exactly one place: that deck,
 *    a hand (main cards in hands of seats, dealer cards in hands of
 *    DEALER), `drawn` (stage HIT only) or a blind hand.
 *  - A deal always begins with a normal turn (every seat holds two LIVE
 *    hands), whose draw is the upcard; so at every decision the whole stock
 *    is unseen by everybody, and only `drawn` may be private.
 *  - Hands are kept in creation order; h_index[h] is the hand's number among
 *    its owner's hands, which is also creation order, so listing an owner's
 *    hands in list order lists them by action code.
 *  - `done` holds exactly the seats without a LIVE main hand (DONE is
 *    permanent: no action can make a hand LIVE again). */
#include "jackarena/ja_brawljack.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "engine_util.h"

#include <stdio.h>
#include <string.h>

#define MAX_SEATS JA_BRAWLJACK_MAX_SEATS
#define DEALER JA_BRAWLJACK_DEALER
#define DECK JA_BRAWLJACK_DECK
#define MAX_HANDS JA_BRAWLJACK_MAX_HANDS
#define HAND_CARDS JA_BRAWLJACK_HAND_CARDS
#define BLIND_CARDS JA_BRAWLJACK_BLIND_CARDS
#define N_EVENTS JA_BRAWLJACK_EVENTS
#define NONE JA_CARD_NONE
#define MAX_ACTIONS 55 /* N2 / R2: 54 LIVE hands at most, plus END_TURN */
#define QUEUE 3        /* fresh decks a test may stack in advance (test_deal) */
#define UNIT JA_SCORE_UNIT
/* Streams of the optional phases, one per deal (and per blind round): they
 * never shift the deals that follow (spec §11). */
#define STREAM_DEALER JA_TAG('D', 'L', 'E', 'R')
#define STREAM_BLIND JA_TAG('B', 'L', 'N', 'D')

/* The options, in spec order (engine_util.h, "Options"). */
#define BRAWLJACK_OPTIONS(X) \
    X(DEALER, "dealer", JA_OPT_ENUM, "off|on", 0, 0, "off",                                        \
      "virtual dealer: after the main phase it tries to equal the leaders and cancel the "         \
      "deal")                                                                                      \
    X(DEALER_CONTROL, "dealer_control", JA_OPT_ENUM, "seat|auto", 0, 0, "seat",                    \
      "who plays the dealer: the first non-leader from the first player, or a fixed policy")       \
    X(BLIND_ROUNDS, "blind_rounds", JA_OPT_INT, NULL, 1, 1000, "5",                                \
      "blind-tiebreak rounds before the tied seats share the deal")                                \
    X(HANDS, "hands", JA_OPT_INT, NULL, 1, 1000, "2*N",                                            \
      "deals (hands) in a match; each deal is 1 point")
enum { BRAWLJACK_OPTIONS(EU_OPT_ID) OPT_COUNT };

typedef struct bj_state {
    uint64_t seed;                  /* the match seed: every later chance event comes from it */
    uint32_t event_seq;             /* public events so far in the match */
    uint32_t deal_ev;               /* event_seq just before this deal's DEAL event */
    int32_t score[MAX_SEATS];       /* units of 1/JA_SCORE_UNIT */
    uint16_t deals, deal;           /* option `hands`, and the current deal (0-based) */
    uint16_t blind_rounds, blind_round, turn;
    uint8_t n, dealer_on, dealer_auto;
    uint8_t stage, cur, first;
    uint8_t upcard, drawn, drawn_public;
    uint8_t deck_pos, deck_len;
    uint8_t deck[DECK];
    uint8_t n_hands;
    uint8_t n_own[DEALER + 1];      /* hands created per owner */
    uint8_t h_owner[MAX_HANDS], h_index[MAX_HANDS], h_state[MAX_HANDS], h_len[MAX_HANDS];
    uint8_t h_card[MAX_HANDS][HAND_CARDS];
    uint8_t done;                   /* seat mask */
    uint8_t mode, target, controller, leaders; /* the main phase's result (§7) */
    int8_t result[MAX_SEATS];
    uint8_t blind, blind_stayed;    /* seat masks of the current blind round */
    uint8_t b_len[MAX_SEATS], b_card[MAX_SEATS][BLIND_CARDS];
    uint8_t shown_len[MAX_SEATS], shown_card[MAX_SEATS][BLIND_CARDS]; /* the last reveal */
    uint8_t n_queued, queue[QUEUE][DECK]; /* stacked fresh decks (tests only) */
    /* The event ring: event number q (1-based) sits in slot (q - 1) % N_EVENTS. */
    uint8_t ev_kind[N_EVENTS], ev_seat[N_EVENTS], ev_hand[N_EVENTS], ev_card[N_EVENTS],
        ev_value[N_EVENTS];
} bj_state;

/* ---- Cards and hands ------------------------------------------------------ */

static bool is_joker(uint8_t c) { return c >= 52; }

/* §2: A counts 1 here (the hand's value adds 10 when it can), J Q K 10. */
static int points(uint8_t c)
{
    int r = ja_card_rank(c);
    return r >= JA_RANK_T ? 10 : r + 1;
}

/* §4: the value of cards[0 .. len): the best total of 21 or less, 0 when
 * bust (no card counts 0, so 0 means bust). A joker is 21 alone and busts
 * anything else. *tw, when given, gets the twenty-ones: 2 for an ace and a
 * king alone (the AK-47), 1 for any other 21, else 0. */
static int cards_value(const uint8_t *c, int len, int *tw)
{
    int hard = 0, v;
    bool ace = false, joker = false;
    for (int i = 0; i < len; i++) {
        if (is_joker(c[i])) {
            joker = true;
        } else {
            hard += points(c[i]);
            ace |= ja_card_rank(c[i]) == JA_RANK_A;
        }
    }
    if (joker)
        v = len == 1 ? 21 : 0;
    else if (hard > 21)
        v = 0;
    else
        v = ace && hard + 10 <= 21 ? hard + 10 : hard;
    if (tw) {
        bool ak = len == 2 && ace && v == 21 &&
                  (ja_card_rank(c[0]) == JA_RANK_K || ja_card_rank(c[1]) == JA_RANK_K);
        *tw = v != 21 ? 0 : ak ? 2 : 1;
    }
    return v;
}

static int hand_value(const bj_state *s, int h, int *tw)
{
    return cards_value(s->h_card[h], s->h_len[h], tw);
}

static bool is_live(const bj_state *s, int h) { return s->h_state[h] == JA_BRAWLJACK_HAND_LIVE; }

/* Bit o set when owner o (a seat, or DEALER) has a LIVE hand. */
static uint32_t live_owners(const bj_state *s)
{
    uint32_t m = 0;
    for (int h = 0; h < s->n_hands; h++)
        if (is_live(s, h))
            m |= UINT32_C(1) << s->h_owner[h];
    return m;
}

/* The hand (owner, k), or -1. */
static int find_hand(const bj_state *s, int owner, int k)
{
    for (int h = 0; h < s->n_hands; h++)
        if (s->h_owner[h] == owner && s->h_index[h] == k)
            return h;
    return -1;
}

/* The owner's earliest LIVE hand, or -1. */
static int first_live(const bj_state *s, int owner)
{
    for (int h = 0; h < s->n_hands; h++)
        if (s->h_owner[h] == owner && is_live(s, h))
            return h;
    return -1;
}

/* A new LIVE one-card hand of owner, after its other hands. Returns its number. */
static int new_hand(bj_state *s, int owner, uint8_t card)
{
    int h = s->n_hands++;
    s->h_owner[h] = (uint8_t)owner;
    s->h_index[h] = s->n_own[owner]++;
    s->h_state[h] = JA_BRAWLJACK_HAND_LIVE;
    s->h_len[h] = 1;
    s->h_card[h][0] = card;
    return h;
}

/* ---- Events ----------------------------------------------------------------- */

static void push_event(bj_state *s, int kind, int seat, int hand, int card, int value)
{
    uint32_t slot = eu_ring_push(&s->event_seq, N_EVENTS);
    s->ev_kind[slot] = (uint8_t)kind;
    s->ev_seat[slot] = (uint8_t)seat;
    s->ev_hand[slot] = (uint8_t)hand;
    s->ev_card[slot] = (uint8_t)card;
    s->ev_value[slot] = (uint8_t)value;
}

/* ---- Placing cards and staying ------------------------------------------------ */

/* §6.1: card x goes onto hand h, hit by `actor` (a seat, or DEALER). A card of
 * the rank of h's top card starts a new LIVE hand of h's owner instead, h
 * unchanged (jokers never match); a card that busts h turns it BUST. */
static void place(bj_state *s, int h, uint8_t x, int actor)
{
    int owner = s->h_owner[h];
    uint8_t top = s->h_card[h][s->h_len[h] - 1];
    if (!is_joker(x) && !is_joker(top) && ja_card_rank(x) == ja_card_rank(top)) {
        push_event(s, JA_BRAWLJACK_EV_HIT, actor, h, x, hand_value(s, h, NULL));
        int k = new_hand(s, owner, x);
        push_event(s, JA_BRAWLJACK_EV_SPLIT, owner, k, x, hand_value(s, k, NULL));
        return;
    }
    s->h_card[h][s->h_len[h]++] = x;
    int v = hand_value(s, h, NULL);
    push_event(s, JA_BRAWLJACK_EV_HIT, actor, h, x, v);
    if (v == 0) {
        s->h_state[h] = JA_BRAWLJACK_HAND_BUST;
        push_event(s, JA_BRAWLJACK_EV_BUST, owner, h, x, NONE);
    }
}

static void stay(bj_state *s, int h)
{
    s->h_state[h] = JA_BRAWLJACK_HAND_STAYED;
    push_event(s, JA_BRAWLJACK_EV_STAY, s->h_owner[h], h, NONE, hand_value(s, h, NULL));
}

/* §6.1 step 3: every seat left without a LIVE hand becomes DONE (once). */
static void update_done(bj_state *s)
{
    uint32_t live = live_owners(s);
    for (int i = 0; i < s->n; i++)
        if (!(s->done >> i & 1u) && !(live >> i & 1u)) {
            s->done |= (uint8_t)(1u << i);
            push_event(s, JA_BRAWLJACK_EV_DONE, i, NONE, NONE, NONE);
        }
}

/* A fresh 54-card deck becomes the deck in use (§8, §9): the next deck a
 * test stacked, if any, else one shuffled on stream (purpose, index). */
static void fresh_deck(bj_state *s, uint64_t purpose, uint64_t index)
{
    if (s->n_queued) {
        memcpy(s->deck, s->queue[0], DECK);
        memmove(s->queue[0], s->queue[1], (QUEUE - 1) * DECK);
        memset(s->queue[QUEUE - 1], 0, DECK);
        s->n_queued--;
    } else {
        for (int i = 0; i < DECK; i++)
            s->deck[i] = (uint8_t)i;
        ja_rng r;
        ja_rng_stream(&r, s->seed, purpose, index);
        ja_shuffle_u8(&r, s->deck, DECK);
    }
    s->deck_pos = 0;
    s->deck_len = DECK;
}

/* ---- The flow of a deal ----------------------------------------------------------- */

static void new_deal(bj_state *s);

/* The first seat of mask (not empty) clockwise from the first player, the
 * first player included. */
static int first_in(const bj_state *s, uint32_t mask)
{
    for (int i = 0; i < s->n; i++) {
        int t = (s->first + i) % s->n;
        if (mask >> t & 1u)
            return t;
    }
    return s->first;
}

/* The deal is decided (§7, §8): the seats of `winners` share its point (no
 * seat when the dealer cancelled it). Then the next deal, or the end. */
static void finish_deal(bj_state *s, uint32_t winners)
{
    int m = eu_popcount32(winners);
    for (int i = 0; i < s->n; i++)
        if (winners >> i & 1u) {
            s->score[i] += UNIT / m;
            push_event(s, m == 1 ? JA_BRAWLJACK_EV_WIN : JA_BRAWLJACK_EV_SHARE, i, NONE, NONE, m);
        }
    if (s->deal + 1u < s->deals) {
        s->deal++;
        new_deal(s);
    } else {
        s->stage = JA_BRAWLJACK_STAGE_OVER;
    }
}

/* §8 step 2: a blind round among the seats of `players`: a fresh deck, one
 * face-down card each in clockwise order from the first player. */
static void start_blind(bj_state *s, uint32_t players)
{
    s->blind = (uint8_t)players;
    s->blind_stayed = 0;
    memset(s->b_len, 0, sizeof s->b_len);
    memset(s->b_card, 0, sizeof s->b_card);
    fresh_deck(s, STREAM_BLIND, ((uint64_t)s->deal << 32) | s->blind_round);
    s->blind_round++;
    int p = first_in(s, players);
    int round = s->blind_round > 255 ? 255 : s->blind_round;
    push_event(s, JA_BRAWLJACK_EV_BLIND, p, NONE, NONE, round);
    for (int i = 0; i < s->n; i++) {
        int t = (p + i) % s->n;
        if (players >> t & 1u)
            s->b_card[t][s->b_len[t]++] = s->deck[s->deck_pos++];
    }
    s->cur = (uint8_t)p;
    s->stage = JA_BRAWLJACK_STAGE_BLIND;
}

/* §8 step 4: every blind hand is shown; the best non-bust value wins. A tie,
 * or all bust, plays another round among the tied (or all) players, until
 * the cap: then they share the deal. */
static void reveal(bj_state *s)
{
    int best = 0;
    uint32_t win = 0;
    memset(s->shown_len, 0, sizeof s->shown_len);
    memset(s->shown_card, 0, sizeof s->shown_card);
    for (int i = 0; i < s->n; i++) {
        int t = (s->first + i) % s->n;
        if (!(s->blind >> t & 1u))
            continue;
        int v = cards_value(s->b_card[t], s->b_len[t], NULL);
        s->shown_len[t] = s->b_len[t];
        memcpy(s->shown_card[t], s->b_card[t], BLIND_CARDS);
        push_event(s, JA_BRAWLJACK_EV_REVEAL, t, NONE, NONE, v);
        if (v > best) {
            best = v;
            win = UINT32_C(1) << t;
        } else if (v == best && v > 0) {
            win |= UINT32_C(1) << t;
        }
    }
    if (!win)
        win = s->blind;
    if (eu_popcount32(win) == 1 || s->blind_round >= s->blind_rounds)
        finish_deal(s, win);
    else
        start_blind(s, win);
}

/* §8 step 3: the next blind player clockwise who has not stayed (the same
 * one when it is the last), or the reveal. */
static void blind_next(bj_state *s)
{
    for (int i = 1; i <= s->n; i++) {
        int t = (s->cur + i) % s->n;
        if ((s->blind >> t & 1u) && !(s->blind_stayed >> t & 1u)) {
            s->cur = (uint8_t)t;
            return;
        }
    }
    reveal(s);
}

/* §7 step 4: one leader wins; several go to the blind tiebreak. */
static void settle_leaders(bj_state *s)
{
    if (eu_popcount32(s->leaders) == 1)
        finish_deal(s, s->leaders);
    else
        start_blind(s, s->leaders);
}

/* §9 success: the dealer's non-bust hands reach the target, in its mode. */
static bool dealer_met(const bj_state *s)
{
    int best = 0, tws = 0;
    for (int h = 0; h < s->n_hands; h++) {
        if (s->h_owner[h] != DEALER)
            continue;
        int tw, v = hand_value(s, h, &tw);
        tws += tw;
        if (v > best)
            best = v;
    }
    return (s->mode == JA_BRAWLJACK_MODE_POINTS ? tws : best) >= s->target;
}

/* Checked after every dealer card and stay (§9): success cancels the deal;
 * no LIVE dealer hand left is a failure, and the leaders' result stands.
 * Returns true when the dealer phase is over. */
static bool dealer_settled(bj_state *s)
{
    if (dealer_met(s)) {
        push_event(s, JA_BRAWLJACK_EV_DEALER_WIN, DEALER, NONE, NONE, NONE);
        finish_deal(s, 0);
        return true;
    }
    if (!(live_owners(s) >> DEALER & 1u)) {
        push_event(s, JA_BRAWLJACK_EV_DEALER_FAIL, DEALER, NONE, NONE, NONE);
        settle_leaders(s);
        return true;
    }
    return false;
}

/* Dealer R1: the top card of the dealer's deck onto its hand h. */
static void dealer_hit(bj_state *s, int h)
{
    place(s, h, s->deck[s->deck_pos++], DEALER);
}

/* The auto policy's R1 (§9): the LIVE dealer hand of lowest value, the
 * earliest on equal values. */
static int auto_target(const bj_state *s)
{
    int best = -1, bv = 99;
    for (int h = 0; h < s->n_hands; h++)
        if (s->h_owner[h] == DEALER && is_live(s, h)) {
            int v = hand_value(s, h, NULL);
            if (v < bv) {
                bv = v;
                best = h;
            }
        }
    return best;
}

/* The start of a dealer turn (§9): its deck empty is a failure; then the
 * controlling seat decides R1, or the auto policy plays whole turns (R1,
 * then STAY every LIVE hand worth 21) until the phase ends. */
static void dealer_turn(bj_state *s)
{
    for (;;) {
        if (s->deck_pos >= s->deck_len) {
            push_event(s, JA_BRAWLJACK_EV_DEALER_FAIL, DEALER, NONE, NONE, NONE);
            settle_leaders(s);
            return;
        }
        if (s->controller != NONE) {
            s->cur = s->controller;
            s->stage = JA_BRAWLJACK_STAGE_DEALER_HIT;
            return;
        }
        dealer_hit(s, auto_target(s));
        if (dealer_settled(s))
            return;
        for (int h = 0; h < s->n_hands; h++)
            if (s->h_owner[h] == DEALER && is_live(s, h) && hand_value(s, h, NULL) == 21)
                stay(s, h);
        if (dealer_settled(s))
            return;
    }
}

/* §9: the dealer against the leaders' score, from a fresh deck, with two
 * one-card hands; played by the first non-leader clockwise from the first
 * player, or by the auto policy. */
static void start_dealer(bj_state *s)
{
    uint32_t others = ((1u << s->n) - 1) & ~(uint32_t)s->leaders;
    s->controller = s->dealer_auto || !others ? NONE : (uint8_t)first_in(s, others);
    push_event(s, JA_BRAWLJACK_EV_DEALER, s->controller, NONE, NONE, s->target);
    fresh_deck(s, STREAM_DEALER, s->deal);
    for (int i = 0; i < 2; i++)
        new_hand(s, DEALER, s->deck[s->deck_pos++]);
    if (!dealer_settled(s))
        dealer_turn(s);
}

/* §7: the main phase is over. Points mode if any non-bust hand holds a 21;
 * the leaders (every seat when no seat has a score); then the dealer phase,
 * the blind tiebreak or the award. */
static void end_main(bj_state *s)
{
    int tws[MAX_SEATS] = {0}, best[MAX_SEATS] = {0};
    bool points = false;
    for (int h = 0; h < s->n_hands; h++) {
        int tw, v = hand_value(s, h, &tw), o = s->h_owner[h];
        tws[o] += tw;
        if (v > best[o])
            best[o] = v;
        points |= tw > 0;
    }
    int top = -1;
    for (int i = 0; i < s->n; i++) {
        int r = points ? tws[i] : best[i] ? best[i] : -1;
        s->result[i] = (int8_t)r;
        if (r > top)
            top = r;
    }
    s->leaders = 0;
    for (int i = 0; i < s->n; i++)
        if (s->result[i] == top)
            s->leaders |= (uint8_t)(1u << i);
    s->mode = points ? JA_BRAWLJACK_MODE_POINTS : JA_BRAWLJACK_MODE_HIGH;
    s->target = top < 0 ? NONE : (uint8_t)top;
    push_event(s, points ? JA_BRAWLJACK_EV_RESULT_POINTS : JA_BRAWLJACK_EV_RESULT_HIGH, NONE, NONE,
               NONE, s->target);
    if (s->dealer_on && top >= 0)
        start_dealer(s);
    else
        settle_leaders(s);
}

/* §6, #14: with the stock empty, every LIVE hand is stayed and the main
 * phase ends. */
static void stock_out(bj_state *s)
{
    int k = 0;
    for (int h = 0; h < s->n_hands; h++)
        if (is_live(s, h)) {
            s->h_state[h] = JA_BRAWLJACK_HAND_STAYED;
            k++;
        }
    push_event(s, JA_BRAWLJACK_EV_STOCK_OUT, NONE, NONE, NONE, k);
    update_done(s);
    end_main(s);
}

/* §6: seat's turn begins. Regular when it is the only seat not DONE (R1: it
 * picks its hand before the draw); otherwise the referee draws and shows the
 * card to it (N1). */
static void begin_turn(bj_state *s, int seat)
{
    if (s->deck_pos >= s->deck_len) {
        stock_out(s);
        return;
    }
    s->cur = (uint8_t)seat;
    s->turn++;
    if ((live_owners(s) & ((1u << s->n) - 1)) == 1u << seat) {
        s->stage = JA_BRAWLJACK_STAGE_HIT_REGULAR;
        return;
    }
    s->drawn_public = s->deck_pos == 2 * s->n; /* the upcard (#2) */
    s->drawn = s->deck[s->deck_pos++];
    s->stage = JA_BRAWLJACK_STAGE_HIT;
}

/* The turn is over: the next seat clockwise that is not DONE (the same seat
 * when it is the last), or the end of the main phase. */
static void next_turn(bj_state *s)
{
    for (int i = 1; i <= s->n; i++) {
        int t = (s->cur + i) % s->n;
        if (!(s->done >> t & 1u)) {
            begin_turn(s, t);
            return;
        }
    }
    end_main(s);
}

/* After a stay or a hit in the main phase: N2 / R2 while the seat to act has
 * a LIVE hand, else its turn ends. */
static void continue_turn(bj_state *s)
{
    update_done(s);
    if (s->done >> s->cur & 1u)
        next_turn(s);
    else
        s->stage = JA_BRAWLJACK_STAGE_STAY;
}

/* §5: the current deal from deck (top first): two rounds of one card, seats
 * 0 to N-1, each card a LIVE hand; the next card is the upcard; `first`
 * plays first. Scores and the events of earlier deals are kept. */
static void deal_from(bj_state *s, const uint8_t *deck, int first)
{
    s->n_hands = 0;
    memset(s->n_own, 0, sizeof s->n_own);
    memset(s->h_owner, 0, sizeof s->h_owner);
    memset(s->h_index, 0, sizeof s->h_index);
    memset(s->h_state, 0, sizeof s->h_state);
    memset(s->h_len, 0, sizeof s->h_len);
    memset(s->h_card, 0, sizeof s->h_card);
    memset(s->result, 0, sizeof s->result);
    memset(s->b_len, 0, sizeof s->b_len);
    memset(s->b_card, 0, sizeof s->b_card);
    memset(s->shown_len, 0, sizeof s->shown_len);
    memset(s->shown_card, 0, sizeof s->shown_card);
    s->done = 0;
    s->mode = JA_BRAWLJACK_MODE_NONE;
    s->target = NONE;
    s->controller = NONE;
    s->leaders = 0;
    s->blind = s->blind_stayed = 0;
    s->blind_round = 0;
    s->turn = 0;
    s->drawn = NONE;
    s->drawn_public = 0;
    s->first = (uint8_t)first;
    memcpy(s->deck, deck, DECK);
    s->deck_pos = 0;
    s->deck_len = DECK;
    for (int i = 0; i < 2 * s->n; i++)
        new_hand(s, i % s->n, s->deck[s->deck_pos++]);
    s->upcard = s->deck[s->deck_pos];
    s->deal_ev = s->event_seq;
    push_event(s, JA_BRAWLJACK_EV_DEAL, first, NONE, s->upcard, NONE);
    begin_turn(s, first);
}

/* §5, §11: shuffle, then the first player, each on the deal's own stream. */
static void new_deal(bj_state *s)
{
    uint8_t deck[DECK];
    for (int i = 0; i < DECK; i++)
        deck[i] = (uint8_t)i;
    ja_rng r;
    ja_rng_stream(&r, s->seed, JA_STREAM_DEAL, s->deal);
    ja_shuffle_u8(&r, deck, DECK);
    ja_rng_stream(&r, s->seed, JA_STREAM_MISC, s->deal);
    deal_from(s, deck, (int)ja_rng_below(&r, s->n));
}

/* ---- Legal actions ------------------------------------------------------------------ */

static uint32_t bj_to_act(const void *st)
{
    const bj_state *s = st;
    return s->stage == JA_BRAWLJACK_STAGE_OVER ? 0 : UINT32_C(1) << s->cur;
}

/* Appends base + HIT(owner, k) for each LIVE hand of owner, by k. */
static uint32_t put_live(const bj_state *s, int owner, uint32_t base, ja_action *out,
                         uint32_t n, uint32_t cap)
{
    for (int h = 0; h < s->n_hands; h++)
        if (s->h_owner[h] == owner && is_live(s, h)) {
            if (n < cap)
                out[n].code = base + JA_BRAWLJACK_HIT(owner, s->h_index[h]);
            n++;
        }
    return n;
}

/* The lists of the spec's decision tables (§6, §8, §9), sorted by code. */
static uint32_t bj_legal(const void *st, int seat, ja_action *out, uint32_t cap)
{
    const bj_state *s = st;
    if (s->stage == JA_BRAWLJACK_STAGE_OVER || seat != s->cur)
        return 0;
    const uint32_t stay = JA_BRAWLJACK_STAY(0, 0);
    uint32_t n = 0;
    switch (s->stage) {
    case JA_BRAWLJACK_STAGE_HIT:
        for (int o = 0; o < s->n; o++)
            n = put_live(s, o, 0, out, n, cap);
        break;
    case JA_BRAWLJACK_STAGE_HIT_REGULAR: n = put_live(s, s->cur, 0, out, n, cap); break;
    case JA_BRAWLJACK_STAGE_DEALER_HIT: n = put_live(s, DEALER, 0, out, n, cap); break;
    case JA_BRAWLJACK_STAGE_STAY:
    case JA_BRAWLJACK_STAGE_DEALER_STAY:
        n = put_live(s, s->stage == JA_BRAWLJACK_STAGE_STAY ? s->cur : DEALER, stay, out, n, cap);
        if (n < cap)
            out[n].code = JA_BRAWLJACK_END_TURN;
        n++;
        break;
    default: /* BLIND: one more card while the hand and the deck allow it (#17) */
        if (s->b_len[s->cur] < BLIND_CARDS && s->deck_pos < s->deck_len) {
            if (n < cap)
                out[n].code = JA_BRAWLJACK_BLIND_HIT;
            n++;
        }
        if (n < cap)
            out[n].code = JA_BRAWLJACK_BLIND_STAY;
        n++;
        break;
    }
    return n < cap ? n : cap;
}

/* Whether owner's hand of number k (a HIT or STAY code's) is LIVE: what
 * put_live lists for owner. */
static bool live_code(const bj_state *s, int owner, uint32_t code, uint32_t base)
{
    if (code < base || (code - base) / 64u != (uint32_t)owner)
        return false;
    int h = find_hand(s, owner, (int)((code - base) % 64u));
    return h >= 0 && is_live(s, h);
}

/* Whether code is in bj_legal(s, s->cur): the same conditions for the one
 * code, without the list, which apply() would otherwise generate a second
 * time at every step (the caller has just had it from legal()). The
 * property suite (tests/rules/test_all_games.c) checks every code below
 * 4096 against the list. */
static bool is_legal(const bj_state *s, uint32_t code)
{
    const uint32_t stay = JA_BRAWLJACK_STAY(0, 0);
    switch (s->stage) {
    case JA_BRAWLJACK_STAGE_HIT:
        return code < stay && code / 64u < (uint32_t)s->n &&
               live_code(s, (int)(code / 64u), code, 0);
    case JA_BRAWLJACK_STAGE_HIT_REGULAR: return code < stay && live_code(s, s->cur, code, 0);
    case JA_BRAWLJACK_STAGE_DEALER_HIT: return code < stay && live_code(s, DEALER, code, 0);
    case JA_BRAWLJACK_STAGE_STAY:
    case JA_BRAWLJACK_STAGE_DEALER_STAY:
        return code == JA_BRAWLJACK_END_TURN ||
               (code < JA_BRAWLJACK_END_TURN &&
                live_code(s, s->stage == JA_BRAWLJACK_STAGE_STAY ? s->cur : DEALER, code, stay));
    default:
        return code == JA_BRAWLJACK_BLIND_STAY ||
               (code == JA_BRAWLJACK_BLIND_HIT && s->b_len[s->cur] < BLIND_CARDS &&
                s->deck_pos < s->deck_len);
    }
}

/* §12: the earliest LIVE hand of the party hitting (the dealer's in the
 * dealer phase), END_TURN, BLIND_STAY. Always legal. */
static ja_action bj_default_action(const void *st, int seat)
{
    const bj_state *s = st;
    ja_action a = {JA_BRAWLJACK_END_TURN};
    int owner = s->stage == JA_BRAWLJACK_STAGE_DEALER_HIT ? DEALER : s->cur;
    switch (s->stage) {
    case JA_BRAWLJACK_STAGE_HIT:
    case JA_BRAWLJACK_STAGE_HIT_REGULAR:
    case JA_BRAWLJACK_STAGE_DEALER_HIT: {
        int h = first_live(s, owner);
        a.code = JA_BRAWLJACK_HIT(owner, h < 0 ? 0 : s->h_index[h]);
        break;
    }
    case JA_BRAWLJACK_STAGE_BLIND: a.code = JA_BRAWLJACK_BLIND_STAY; break;
    default: break;
    }
    return a;
}

/* ---- Apply ----------------------------------------------------------------------- */

/* One decision of the seat to act; code is legal. Runs every automatic step
 * that follows, up to the next decision. */
static void step(bj_state *s, uint32_t code)
{
    int h = -1;
    if (JA_BRAWLJACK_IS_HIT(code) || JA_BRAWLJACK_IS_STAY(code))
        h = find_hand(s, (int)JA_BRAWLJACK_CODE_OWNER(code), (int)JA_BRAWLJACK_CODE_INDEX(code));
    switch (s->stage) {
    case JA_BRAWLJACK_STAGE_HIT: {
        uint8_t x = s->drawn;
        s->drawn = NONE;
        s->drawn_public = 0;
        place(s, h, x, s->cur);
        continue_turn(s);
        break;
    }
    case JA_BRAWLJACK_STAGE_HIT_REGULAR:
        place(s, h, s->deck[s->deck_pos++], s->cur);
        continue_turn(s);
        break;
    case JA_BRAWLJACK_STAGE_STAY:
        if (code == JA_BRAWLJACK_END_TURN) {
            next_turn(s);
        } else {
            stay(s, h);
            continue_turn(s);
        }
        break;
    case JA_BRAWLJACK_STAGE_DEALER_HIT:
        dealer_hit(s, h);
        if (!dealer_settled(s))
            s->stage = JA_BRAWLJACK_STAGE_DEALER_STAY;
        break;
    case JA_BRAWLJACK_STAGE_DEALER_STAY:
        if (code == JA_BRAWLJACK_END_TURN) {
            dealer_turn(s);
        } else {
            stay(s, h);
            dealer_settled(s);
        }
        break;
    default: /* BLIND */
        if (code == JA_BRAWLJACK_BLIND_HIT) {
            int t = s->cur;
            s->b_card[t][s->b_len[t]++] = s->deck[s->deck_pos++];
            push_event(s, JA_BRAWLJACK_EV_BLIND_HIT, t, NONE, NONE, s->b_len[t]);
        } else {
            s->blind_stayed |= (uint8_t)(1u << s->cur);
            push_event(s, JA_BRAWLJACK_EV_BLIND_STAY, s->cur, NONE, NONE, NONE);
        }
        blind_next(s);
        break;
    }
}

EU_ONE_SEAT_APPLY(bj, bj_state, s->stage == JA_BRAWLJACK_STAGE_OVER)

/* ---- Options and setup --------------------------------------------------------------- */

static const ja_option_spec options[] = {BRAWLJACK_OPTIONS(EU_OPT_SPEC) EU_OPT_END};
EU_OPT_CHECK(options);

static int bj_resolve_options(ja_options *o, uint32_t n, char *err, size_t cap)
{
    if (n < 2 || n > MAX_SEATS) {
        snprintf(err, cap, "brawljack is played by 2 to 8 seats, not %u", (unsigned)n);
        return JA_EINVAL;
    }
    if (o->value[OPT_DEALER] == 0 && o->value[OPT_DEALER_CONTROL] != 0) {
        snprintf(err, cap, "dealer_control=auto needs dealer=on (there is no dealer to control)");
        return JA_EINVAL;
    }
    return JA_OK;
}

static int bj_setup(void *st, const ja_options *o, uint32_t n, uint64_t seed)
{
    bj_state *s = st;
    if (n < 2 || n > MAX_SEATS)
        return JA_EINVAL;
    int32_t v[OPT_COUNT];
    eu_option_values(options, o, n, v, OPT_COUNT);
    if (v[OPT_DEALER] < 0 || v[OPT_DEALER] > 1 || v[OPT_DEALER_CONTROL] < 0 ||
        v[OPT_DEALER_CONTROL] > v[OPT_DEALER] || v[OPT_BLIND_ROUNDS] < 1 ||
        v[OPT_BLIND_ROUNDS] > 1000 || v[OPT_HANDS] < 0 || v[OPT_HANDS] > 1000)
        return JA_EINVAL;
    memset(s, 0, sizeof *s);
    s->seed = seed;
    s->n = (uint8_t)n;
    s->dealer_on = (uint8_t)v[OPT_DEALER];
    s->dealer_auto = (uint8_t)v[OPT_DEALER_CONTROL];
    s->blind_rounds = (uint16_t)v[OPT_BLIND_ROUNDS];
    s->deals = (uint16_t)v[OPT_HANDS];
    s->deal = 0;
    new_deal(s);
    return JA_OK;
}

/* Tests only. `first` >= 0: re-deal the current deal from a stacked deck
 * (cards[0] is dealt first: two rounds to seats 0..N-1, then the upcard)
 * with `first` as its first player; scores and earlier deals' events are
 * kept. `first` == -1: stack the next fresh deck (the dealer's, or a blind
 * round's; up to 3 in order) instead of its shuffle. Unnamed cards follow
 * in ascending id order. */
static int bj_test_deal(void *st, int first, const uint8_t *cards, uint32_t n)
{
    bj_state *s = st;
    uint8_t deck[DECK];
    if (first < -1 || first >= s->n || eu_stack_deck(cards, n, DECK, 1, deck) < 0)
        return JA_EINVAL;
    if (first == -1) {
        if (s->n_queued >= QUEUE)
            return JA_EINVAL;
        memcpy(s->queue[s->n_queued++], deck, DECK);
        return JA_OK;
    }
    s->event_seq = s->deal_ev;
    deal_from(s, deck, first);
    return JA_OK;
}

static const ja_ext_test_deal TEST_DEAL = {bj_test_deal};

/* ---- Observation ------------------------------------------------------------------------ */

#define EU_OBS_T ja_brawljack_obs
static const ja_field obs_fields[] = {JA_BRAWLJACK_OBS_FIELDS(EU_FIELD_S, EU_FIELD_A)};

/* The drawn card is hidden from `seat` (§10: shown to the drawer only, but
 * the upcard to all). */
static bool drawn_hidden(const bj_state *s, int seat)
{
    return s->stage == JA_BRAWLJACK_STAGE_HIT && !s->drawn_public && seat != s->cur;
}

/* The part of an observation that is written whole every time: the scalars
 * (but seat, n_seats and the events), and per seat the flags, the result,
 * the blind hand's count and the score. Not the cards (unseen, the hands,
 * the last reveal) nor the events. */
static void observe_public(const bj_state *s, int seat, ja_brawljack_obs *o)
{
    bool over = s->stage == JA_BRAWLJACK_STAGE_OVER;
    o->dealer = s->dealer_on;
    o->dealer_control = s->dealer_auto;
    o->blind_rounds = s->blind_rounds;
    o->hands = s->deals;
    o->deal = s->deal;
    o->turn = s->turn;
    o->first = s->first;
    o->to_act = over ? NONE : s->cur;
    o->stage = s->stage;
    o->upcard = s->upcard;
    o->drawn = s->stage == JA_BRAWLJACK_STAGE_HIT && !drawn_hidden(s, seat) ? s->drawn : NONE;
    o->drawn_public = s->drawn_public;
    o->deck_count = over ? 0 : (uint8_t)(s->deck_len - s->deck_pos);
    o->n_hands = s->n_hands;
    o->mode = s->mode;
    o->target = s->target;
    o->controller = s->controller;
    o->blind_round = s->blind_round;
    /* Locals for the bounds: stores into the observation (bytes) may alias
     * the state for the compiler, which would reload them. */
    const int n = s->n;
    for (int i = 0; i < n; i++) {
        o->done[i] = s->done >> i & 1u;
        o->result[i] = s->result[i];
        o->leader[i] = s->leaders >> i & 1u;
        o->blind_player[i] = s->blind >> i & 1u;
        o->blind_count[i] = s->b_len[i];
        o->blind_stayed[i] = s->blind_stayed >> i & 1u;
        o->score[i] = s->score[i];
    }
}

/* unseen[] whole: the cards of the deck in use that seat has not seen (the
 * deck's rest, a drawn card hidden from seat, the face-down blind cards);
 * none once the match is over. */
static void observe_unseen(const bj_state *s, int seat, ja_brawljack_obs *o)
{
    memset(o->unseen, 0, sizeof o->unseen);
    if (s->stage == JA_BRAWLJACK_STAGE_OVER)
        return;
    const int pos = s->deck_pos, len = s->deck_len, n = s->n;
    for (int i = pos; i < len; i++)
        o->unseen[s->deck[i]] = 1;
    if (drawn_hidden(s, seat))
        o->unseen[s->drawn] = 1;
    if (s->stage == JA_BRAWLJACK_STAGE_BLIND)
        for (int t = 0; t < n; t++)
            for (int j = 0; j < s->b_len[t]; j++)
                o->unseen[s->b_card[t][j]] = 1;
}

/* Hand h of the table (h < n_hands), over an observation whose hand h
 * holds zeros. */
static void observe_hand(const bj_state *s, int h, ja_brawljack_obs *o)
{
    int tw;
    o->hand_owner[h] = s->h_owner[h];
    o->hand_index[h] = s->h_index[h];
    o->hand_state[h] = s->h_state[h];
    o->hand_len[h] = s->h_len[h];
    o->hand_value[h] = (uint8_t)hand_value(s, h, &tw);
    o->hand_21s[h] = (uint8_t)tw;
    memcpy(o->hand_card + HAND_CARDS * h, s->h_card[h], s->h_len[h]);
}

/* The last reveal (shown_count, shown_card, shown_value), over an
 * observation whose shown_card holds zeros. */
static void observe_shown(const bj_state *s, ja_brawljack_obs *o)
{
    const int n = s->n;
    for (int i = 0; i < n; i++) {
        o->shown_count[i] = s->shown_len[i];
        memcpy(o->shown_card + BLIND_CARDS * i, s->shown_card[i], s->shown_len[i]);
        o->shown_value[i] = (uint8_t)cards_value(s->shown_card[i], s->shown_len[i], NULL);
    }
}

/* Everything seat may know (§10), nothing more: the whole table, the drawn
 * card only to the drawer (or the upcard to all), the dealer phase, the
 * blind counts and stays, the last reveal, scores and recent events. Never
 * the order of a deck, face-down blind cards, the seed or stacked decks. */
static void bj_observe(const void *st, int seat, void *obs)
{
    const bj_state *s = st;
    ja_brawljack_obs *o = obs;
    if (!eu_obs_begin(o, sizeof *o, seat, s->n, &o->seat, &o->n_seats))
        return;
    observe_public(s, seat, o);
    observe_unseen(s, seat, o);
    const int nh = s->n_hands;
    for (int h = 0; h < nh; h++)
        observe_hand(s, h, o);
    observe_shown(s, o);
    EU_EVENTS_OUT(o, s, s->event_seq, N_EVENTS, ev_kind, ev_seat, ev_hand, ev_card, ev_value);
}

/* Hand h of the table, which o holds as it was earlier in the deal, with
 * more cards since: the new cards (within a deal a hand's cards are only
 * appended to), its length, value and twenty-ones. */
static void observe_hand_grown(const bj_state *s, int h, ja_brawljack_obs *o)
{
    const int len = s->h_len[h];
    int tw;
    for (int j = o->hand_len[h]; j < len; j++)
        o->hand_card[HAND_CARDS * h + j] = s->h_card[h][j];
    o->hand_len[h] = (uint8_t)len;
    o->hand_value[h] = (uint8_t)hand_value(s, h, &tw);
    o->hand_21s[h] = (uint8_t)tw;
}

/* JA_EXT_OBSERVE_UPDATE: obs is seat's observation of an earlier state of
 * this match, or zeros. observe_public() is rewritten whole: the scalars
 * follow no event (the turn, the stage, the drawn card and who may see it,
 * the deck's count), and the per-seat part is a few bytes a seat. Within a
 * deal the rest changes only in ways obs and the events since its
 * event_seq tell:
 *  - The hands: they are only added (SPLIT, and the dealer's first two at
 *    DEALER) after the others, a hand's owner and number never change, and
 *    its cards are only appended to; so a hand whose length is unchanged
 *    holds the same cards, value and 21s, and only its state may have
 *    changed (STAY, BUST, and STOCK_OUT, which stays every LIVE hand
 *    without naming any). So every old hand's state is copied (a byte), a
 *    hand that grew gets its new cards, length, value and 21s, and the
 *    hands past the old n_hands are written whole.
 *  - unseen[] covers one deck, which is replaced only at DEALER and BLIND
 *    (written whole then, and once the match is over: zeros). Within a
 *    deck a card only leaves it: as the drawn card (unseen still, unless
 *    seat may see it: the drawer, or the upcard for all), into a face-down
 *    blind hand (unseen still), or onto a hand of the table, which always
 *    pushes a HIT naming the card. So the cards of the new HITs are
 *    cleared, and the drawn card when seat sees it.
 *  - The last reveal changes only at REVEAL (one event per blind hand
 *    shown): written whole then, over the old one's cards.
 *  - The event columns move up by the new events, which are appended.
 * A full observe when obs is not an observation of seat in this match (all
 * zeros: never observed); when a new deal began since (its DEAL resets the
 * table, all of which would be written again after the old hands were
 * cleared: measured, no cheaper than the full observe); and when more than
 * FEW_EVENTS events came since obs->event_seq (measured: each costs its
 * copy and mostly a hand grown, and past FEW_EVENTS, at 8 seats where a
 * seat waits for 7 turns, the full observe is the cheaper). The ring
 * still holds every event this reads. */
#define FEW_EVENTS 20
_Static_assert(FEW_EVENTS <= N_EVENTS, "the events since obs must be in the ring");
#define EV_BIT(kind) (UINT32_C(1) << JA_BRAWLJACK_EV_##kind)
static void bj_observe_update(const void *st, int seat, void *obs)
{
    const bj_state *s = st;
    ja_brawljack_obs *o = obs;
    const int n = s->n, nh = s->n_hands, old_nh = o->n_hands;
    const uint32_t seq = s->event_seq, old = o->event_seq;
    /* The five one-byte event columns, one after the other (eu_ring_shift). */
#define EV_AT(col, k) \
    (offsetof(ja_brawljack_obs, col) == offsetof(ja_brawljack_obs, ev_kind) + (k)*N_EVENTS)
    _Static_assert(EV_AT(ev_seat, 1) && EV_AT(ev_hand, 2) && EV_AT(ev_card, 3) &&
                       EV_AT(ev_value, 4),
                   "ja_brawljack_obs: the event columns are not contiguous");
#undef EV_AT
    _Static_assert(DECK <= 64 && JA_BRAWLJACK_EV_SHARE < 32, "the masks below are too narrow");
    if (seat < 0 || seat >= n || o->seat != seat || o->n_seats != n || o->deal != s->deal ||
        old > seq || seq - old > FEW_EVENTS || old_nh > nh) {
        bj_observe(st, seat, obs);
        return;
    }
    /* The new events into the event columns, and what they tell. */
    uint32_t kinds = 0; /* bit k: an event of kind k */
    uint64_t hit = 0;   /* bit c: card c put on a hand */
    if (seq != old) {
        uint32_t i = eu_ring_shift(o->ev_kind, 5, old, seq, N_EVENTS);
        for (uint32_t slot = old % N_EVENTS, q = old; q != seq; q++, i++) {
            const uint8_t kind = s->ev_kind[slot], c = s->ev_card[slot];
            o->ev_kind[i] = kind;
            o->ev_seat[i] = s->ev_seat[slot];
            o->ev_hand[i] = s->ev_hand[slot];
            o->ev_card[i] = c;
            o->ev_value[i] = s->ev_value[slot];
            slot = slot + 1 == N_EVENTS ? 0 : slot + 1;
            /* No branches: which way each goes is a coin toss. */
            kinds |= UINT32_C(1) << (kind & 31);
            hit |= (uint64_t)(kind == JA_BRAWLJACK_EV_HIT) << (c & 63);
        }
        o->event_seq = seq;
        eu_ring_seqs(o->ev_seq, seq, N_EVENTS);
    }
    if (kinds & EV_BIT(DEAL)) {
        /* Not without a new deal (the number checked above), by apply(). */
        bj_observe(st, seat, obs);
        return;
    }
    observe_public(s, seat, o);

    if ((kinds & (EV_BIT(DEALER) | EV_BIT(BLIND))) || s->stage == JA_BRAWLJACK_STAGE_OVER) {
        observe_unseen(s, seat, o);
    } else {
        for (; hit; hit &= hit - 1)
            o->unseen[__builtin_ctzll(hit)] = 0;
        if (s->stage == JA_BRAWLJACK_STAGE_HIT && !drawn_hidden(s, seat))
            o->unseen[s->drawn] = 0;
    }

    for (int h = 0; h < old_nh; h++) {
        o->hand_state[h] = s->h_state[h];
        if (o->hand_len[h] != s->h_len[h])
            observe_hand_grown(s, h, o);
    }
    for (int h = old_nh; h < nh; h++)
        observe_hand(s, h, o);

    if (kinds & EV_BIT(REVEAL)) {
        for (int i = 0; i < n; i++)
            memset(o->shown_card + BLIND_CARDS * i, 0, BLIND_CARDS);
        observe_shown(s, o);
    }
}
#undef EV_BIT

static const ja_ext_observe_update OBSERVE_UPDATE = {bj_observe_update};

/* JA_EXT_OBSERVE_PUBLIC: what every seat sees (§10): the whole table, the
 * dealer phase, the blind counts and stays, the last reveal, scores and
 * events, as a seat other than the drawer sees them: the drawn card only
 * when it is the upcard, and unseen[] with the drawn card in it while it is
 * hidden. Never the order of a deck nor a face-down blind card. */
static void bj_observe_public(const void *st, void *obs)
{
    const bj_state *s = st;
    ja_brawljack_obs *o = obs;
    eu_obs_public_begin(o, sizeof *o, s->n, &o->seat, &o->n_seats);
    observe_public(s, -1, o);
    observe_unseen(s, -1, o);
    const int nh = s->n_hands;
    for (int h = 0; h < nh; h++)
        observe_hand(s, h, o);
    observe_shown(s, o);
    EU_EVENTS_OUT(o, s, s->event_seq, N_EVENTS, ev_kind, ev_seat, ev_hand, ev_card, ev_value);
}

static const ja_ext_observe_public OBSERVE_PUBLIC = {bj_observe_public};

static uint32_t bj_unseen(const void *st, uint8_t *cards, uint32_t cap);
static void bj_reshuffle(void *st, uint64_t seed);
static uint32_t bj_progress(const void *st, ja_outcome *so_far)
{
    const bj_state *s = st;
    eu_outcome(so_far, true, s->n, s->score, NULL, 1);
    return s->deal;
}
static const ja_ext_chance CHANCE = {bj_unseen, bj_reshuffle, bj_progress};

static const void *bj_extension(const char *id)
{
    return eu_extension(id, &TEST_DEAL, &OBSERVE_UPDATE, &OBSERVE_PUBLIC, &CHANCE);
}

static int bj_outcome(const void *st, ja_outcome *out)
{
    const bj_state *s = st;
    return eu_outcome(out, s->stage == JA_BRAWLJACK_STAGE_OVER, s->n, s->score, NULL, 1);
}

/* ---- Hidden information -------------------------------------------------------------- */

/* Shuffles the m cards of pool on seed's stream 0 and deals them into the
 * hidden places, in order: the drawn card when hide, the face-down blind
 * cards when blind, and the deck from deck_pos when deck. */
static void deal_pool(bj_state *s, uint8_t *pool, uint32_t m, bool hide, bool blind, bool deck,
                      uint64_t seed)
{
    ja_rng r;
    ja_rng_stream(&r, seed, JA_STREAM_DETZ, 0);
    ja_shuffle_u8(&r, pool, m);
    m = 0;
    if (hide)
        s->drawn = pool[m++];
    for (int t = 0; blind && t < s->n; t++)
        for (int j = 0; j < s->b_len[t]; j++)
            s->b_card[t][j] = pool[m++];
    for (int i = s->deck_pos; deck && i < s->deck_len; i++)
        s->deck[i] = pool[m++];
}

/* The cards hidden from seat (no seat: -1) into pool, in the order of
 * deal_pool(): the drawn card when it is hidden from seat (it never is from
 * no seat: the seat to act holds it), the face-down blind cards, the deck
 * from deck_pos. Returns the count; *hide, *blind, *deck say which. */
static uint32_t hidden_pool(const bj_state *s, int seat, uint8_t *pool, bool *hide, bool *blind,
                            bool *deck)
{
    uint32_t m = 0;
    *hide = seat >= 0 && drawn_hidden(s, seat);
    *blind = s->stage == JA_BRAWLJACK_STAGE_BLIND;
    *deck = s->stage != JA_BRAWLJACK_STAGE_OVER;
    if (*hide)
        pool[m++] = s->drawn;
    for (int t = 0; *blind && t < s->n; t++)
        for (int j = 0; j < s->b_len[t]; j++)
            pool[m++] = s->b_card[t][j];
    for (int i = s->deck_pos; *deck && i < s->deck_len; i++)
        pool[m++] = s->deck[i];
    return m;
}

/* The future: the seed from (seed, purpose, 1), no stacked deck. */
static void replace_future(bj_state *s, uint64_t seed, uint64_t purpose)
{
    s->seed = ja_seed_derive(seed, purpose, 1);
    s->n_queued = 0;
    memset(s->queue, 0, sizeof s->queue);
}

/* Re-deals every card `seat` cannot see (§10, Hidden information): the deck
 * in use, the drawn card when it is hidden from seat, and the face-down
 * blind cards, among the same places; then replaces the future (the seed,
 * and any stacked deck). */
static void bj_determinize(void *st, int seat, uint64_t seed)
{
    bj_state *s = st;
    uint8_t pool[DECK];
    bool hide, blind, deck;
    uint32_t m = hidden_pool(s, seat, pool, &hide, &blind, &deck);
    deal_pool(s, pool, m, hide, blind, deck, seed);
    replace_future(s, seed, JA_STREAM_DETZ);
}

/* JA_EXT_CHANCE: the cards no seat sees, the face-down blind cards (seat
 * order) then the deck in use from the top; and the future. */
static uint32_t bj_unseen(const void *st, uint8_t *cards, uint32_t cap)
{
    uint8_t pool[DECK];
    bool hide, blind, deck;
    return eu_unseen_copy(pool, hidden_pool(st, -1, pool, &hide, &blind, &deck), cards, cap);
}

static void bj_reshuffle(void *st, uint64_t seed)
{
    bj_state *s = st;
    uint8_t pool[DECK];
    bool hide, blind, deck;
    uint32_t m = hidden_pool(s, -1, pool, &hide, &blind, &deck);
    eu_chance_shuffle(pool, m, seed, 0);
    m = 0;
    for (int t = 0; blind && t < s->n; t++)
        for (int j = 0; j < s->b_len[t]; j++)
            s->b_card[t][j] = pool[m++];
    for (int i = s->deck_pos; deck && i < s->deck_len; i++)
        s->deck[i] = pool[m++];
    replace_future(s, seed, JA_STREAM_CHNC);
}

/* Marks the cards of owner's hands in used[]; false if a card is not a card
 * or appears twice. */
static bool mark_hands(const bj_state *s, bool dealer, uint8_t *used)
{
    for (int h = 0; h < s->n_hands; h++) {
        if ((s->h_owner[h] == DEALER) != dealer)
            continue;
        for (int j = 0; j < s->h_len[h]; j++) {
            uint8_t c = s->h_card[h][j];
            if (c >= DECK || used[c])
                return false;
            used[c] = 1;
        }
    }
    return true;
}

/* Whether obs can be sample()d for seat at all: its options, counts and
 * cards within range, and a seat to act that the stage allows. */
static bool sample_fits(const ja_brawljack_obs *o, int seat)
{
    int n = o->n_seats;
    if (n < 2 || n > MAX_SEATS || seat < 0 || seat >= n || o->seat != seat ||
        o->dealer > 1 || o->dealer_control > o->dealer || o->blind_rounds < 1 ||
        o->hands < 1 || o->deal >= o->hands || o->first >= n ||
        o->stage > JA_BRAWLJACK_STAGE_OVER || o->n_hands > MAX_HANDS || o->deck_count > DECK ||
        o->upcard >= DECK || o->mode > JA_BRAWLJACK_MODE_POINTS)
        return false;
    bool over = o->stage == JA_BRAWLJACK_STAGE_OVER;
    bool dealing = o->stage == JA_BRAWLJACK_STAGE_DEALER_HIT ||
                   o->stage == JA_BRAWLJACK_STAGE_DEALER_STAY;
    if (over ? o->to_act != NONE : o->to_act >= n)
        return false;
    if ((o->controller != NONE && o->controller >= n) || (dealing && o->controller != o->to_act))
        return false;
    return o->stage != JA_BRAWLJACK_STAGE_BLIND ||
           (o->blind_player[o->to_act] && !o->blind_stayed[o->to_act]);
}

/* The public table's scalars, as obs states them. */
static void sample_table(bj_state *s, const ja_brawljack_obs *o)
{
    s->n = o->n_seats;
    s->dealer_on = o->dealer;
    s->dealer_auto = o->dealer_control;
    s->blind_rounds = o->blind_rounds;
    s->deals = o->hands;
    s->deal = o->deal;
    s->turn = o->turn;
    s->first = o->first;
    s->stage = o->stage;
    s->cur = o->stage == JA_BRAWLJACK_STAGE_OVER ? 0 : o->to_act;
    s->upcard = o->upcard;
    s->drawn = NONE;
    s->drawn_public = o->drawn_public;
    s->n_hands = o->n_hands;
    s->mode = o->mode;
    s->target = o->target;
    s->controller = o->controller;
    s->blind_round = o->blind_round;
}

/* The hands on the table: each one's owner (a seat or the dealer), its
 * number among the owner's (in order), state and cards. JA_EFORMAT for a
 * hand that cannot be. */
static int sample_hands(bj_state *s, const ja_brawljack_obs *o)
{
    for (int h = 0; h < s->n_hands; h++) {
        int owner = o->hand_owner[h];
        if ((owner >= s->n && owner != DEALER) || o->hand_index[h] != s->n_own[owner] ||
            o->hand_len[h] < 1 || o->hand_len[h] > HAND_CARDS ||
            o->hand_state[h] < JA_BRAWLJACK_HAND_LIVE || o->hand_state[h] > JA_BRAWLJACK_HAND_BUST)
            return JA_EFORMAT;
        s->n_own[owner]++;
        s->h_owner[h] = (uint8_t)owner;
        s->h_index[h] = o->hand_index[h];
        s->h_state[h] = o->hand_state[h];
        s->h_len[h] = o->hand_len[h];
        memcpy(s->h_card[h], o->hand_card + HAND_CARDS * h, o->hand_len[h]);
    }
    return JA_OK;
}

/* Each seat's flags (done: no live hand left), result, blind and shown
 * counts, shown cards and score; *blind_total, the face-down blind cards
 * of all. JA_EFORMAT for counts out of range. */
static int sample_seats(bj_state *s, const ja_brawljack_obs *o, uint32_t *blind_total)
{
    uint32_t live = live_owners(s);
    *blind_total = 0;
    for (int i = 0; i < s->n; i++) {
        if (o->blind_count[i] > BLIND_CARDS || o->shown_count[i] > BLIND_CARDS)
            return JA_EFORMAT;
        s->done |= (uint8_t)(!(live >> i & 1u) << i);
        s->result[i] = o->result[i];
        s->leaders |= (uint8_t)((o->leader[i] & 1u) << i);
        s->blind |= (uint8_t)((o->blind_player[i] & 1u) << i);
        s->blind_stayed |= (uint8_t)((o->blind_stayed[i] & 1u) << i);
        s->b_len[i] = o->blind_count[i];
        *blind_total += o->blind_count[i];
        s->shown_len[i] = o->shown_count[i];
        memcpy(s->shown_card[i], o->shown_card + BLIND_CARDS * i, o->shown_count[i]);
        s->score[i] = o->score[i];
    }
    return JA_OK;
}

/* The hidden cards while the match runs: the cards of the deck in use not
 * in view (the hands of that deck, a drawn card shown), as many as obs
 * says are hidden, dealt at random (deal_pool) into the deck, a hidden
 * drawn card and the face-down blind cards. JA_EFORMAT when the cards in
 * view repeat one or do not leave that many. */
static int sample_hidden(bj_state *s, const ja_brawljack_obs *o, uint32_t blind_total,
                         uint64_t seed)
{
    uint8_t used[DECK] = {0}, pool[DECK];
    uint32_t m = 0, hidden = o->deck_count;
    bool in_main = o->stage <= JA_BRAWLJACK_STAGE_STAY;
    bool blind = o->stage == JA_BRAWLJACK_STAGE_BLIND;
    if (!blind && !mark_hands(s, !in_main, used))
        return JA_EFORMAT;
    bool hide = o->stage == JA_BRAWLJACK_STAGE_HIT && o->drawn == NONE;
    if (o->stage == JA_BRAWLJACK_STAGE_HIT && !hide) {
        if (o->drawn >= DECK || used[o->drawn])
            return JA_EFORMAT;
        used[o->drawn] = 1;
        s->drawn = o->drawn;
    }
    hidden += hide + (blind ? blind_total : 0);
    for (int c = 0; c < DECK; c++)
        if (!used[c])
            pool[m++] = (uint8_t)c;
    if (m != hidden)
        return JA_EFORMAT;
    s->deck_len = DECK;
    s->deck_pos = (uint8_t)(DECK - o->deck_count);
    deal_pool(s, pool, m, hide, blind, true, seed);
    return JA_OK;
}

/* Builds a full state from what seat knows (obs): the public table, scores
 * and phases copied; the hidden cards (the deck in use, a drawn card hidden
 * from seat, face-down blind cards) dealt at random from the cards of that
 * deck not in view; the future from seed. The result is checked by
 * observing it again: JA_EFORMAT if that does not give obs back. */
static int bj_sample(const void *obs, int seat, uint64_t seed, void *st_out)
{
    const ja_brawljack_obs *o = obs;
    bj_state *s = st_out;
    if (!sample_fits(o, seat))
        return JA_EFORMAT;
    memset(s, 0, sizeof *s);
    sample_table(s, o);
    uint32_t blind_total;
    if (sample_hands(s, o) != JA_OK || sample_seats(s, o, &blind_total) != JA_OK)
        return JA_EFORMAT;
    if (o->stage != JA_BRAWLJACK_STAGE_OVER && sample_hidden(s, o, blind_total, seed) != JA_OK)
        return JA_EFORMAT;
    s->seed = ja_seed_derive(seed, JA_STREAM_DETZ, 1);

    s->event_seq = o->event_seq;
    s->deal_ev = o->event_seq; /* unknown; only test_deal reads it */
    EU_EVENTS_IN(s, o, N_EVENTS, ev_kind, ev_seat, ev_hand, ev_card, ev_value);

    /* Whatever the checks above missed (padding, stray values, an event ring
     * out of order, derived fields): the state must observe back to obs. */
    ja_brawljack_obs back;
    bj_observe(s, seat, &back);
    if (memcmp(&back, o, sizeof back) != 0)
        return JA_EFORMAT;
    return JA_OK;
}

/* ---- Text ---------------------------------------------------------------------------------- */

/* "hit seat 2 hand 1", "stay dealer hand 0", "end turn", "blind hit". */
static int bj_label(ja_action a, char *buf, size_t cap)
{
    uint32_t c = a.code;
    if (JA_BRAWLJACK_IS_HIT(c) || JA_BRAWLJACK_IS_STAY(c)) {
        const char *verb = JA_BRAWLJACK_IS_HIT(c) ? "hit" : "stay";
        unsigned owner = JA_BRAWLJACK_CODE_OWNER(c), k = JA_BRAWLJACK_CODE_INDEX(c);
        if (owner == DEALER)
            return snprintf(buf, cap, "%s dealer hand %u", verb, k);
        return snprintf(buf, cap, "%s seat %u hand %u", verb, owner, k);
    }
    switch (c) {
    case JA_BRAWLJACK_END_TURN: return snprintf(buf, cap, "end turn");
    case JA_BRAWLJACK_BLIND_HIT: return snprintf(buf, cap, "blind hit");
    case JA_BRAWLJACK_BLIND_STAY: return snprintf(buf, cap, "blind stay");
    default: return JA_EINVAL;
    }
}

/* One public line: "deal 1/6 turn 3: seat 2 to hit (drawn card); live hands
 * 2 1 0; stock 43", "deal 2/6 dealer (target 19): seat 0 to stay or end
 * the turn; dealer deck 50", "deal 3/6 blind round 1/5: seat 1 to act;
 * blind cards 2 1; deck 51", "match over after 6 deals: scores 2 1.5 2.5". */
static int bj_describe(const void *st, char *buf, size_t cap)
{
    const bj_state *s = st;
    char tmp[512];
    eu_text t = EU_TEXT(tmp);
#define ADD(...) eu_add(&t, __VA_ARGS__)
    unsigned left = (unsigned)(s->deck_len - s->deck_pos);
    switch (s->stage) {
    case JA_BRAWLJACK_STAGE_OVER:
        ADD("match over after %u deal%s: scores", (unsigned)s->deals, s->deals == 1 ? "" : "s");
        for (int i = 0; i < s->n; i++)
            ADD(" %g", (double)s->score[i] / UNIT);
        break;
    case JA_BRAWLJACK_STAGE_DEALER_HIT:
    case JA_BRAWLJACK_STAGE_DEALER_STAY:
        ADD("deal %u/%u dealer (target %u%s): seat %u to %s; dealer deck %u", s->deal + 1u,
            (unsigned)s->deals, (unsigned)s->target,
            s->mode == JA_BRAWLJACK_MODE_POINTS ? " 21s" : "", (unsigned)s->cur,
            s->stage == JA_BRAWLJACK_STAGE_DEALER_HIT ? "hit" : "stay or end the turn", left);
        break;
    case JA_BRAWLJACK_STAGE_BLIND:
        ADD("deal %u/%u blind round %u/%u: seat %u to act; blind cards", s->deal + 1u,
            (unsigned)s->deals, (unsigned)s->blind_round, (unsigned)s->blind_rounds,
            (unsigned)s->cur);
        for (int i = 0; i < s->n; i++)
            if (s->blind >> i & 1u)
                ADD(" %u%s", (unsigned)s->b_len[i], s->blind_stayed >> i & 1u ? "s" : "");
        ADD("; deck %u", left);
        break;
    default: {
        static const char *const what[] = {"hit (drawn card)", "hit (regular, before the draw)",
                                           "stay or end the turn"};
        int live[MAX_SEATS] = {0};
        for (int h = 0; h < s->n_hands; h++)
            live[s->h_owner[h]] += is_live(s, h);
        ADD("deal %u/%u turn %u: seat %u to %s; live hands", s->deal + 1u, (unsigned)s->deals,
            (unsigned)s->turn, (unsigned)s->cur, what[s->stage]);
        for (int i = 0; i < s->n; i++)
            ADD(" %d", live[i]);
        ADD("; stock %u", left);
        break;
    }
    }
#undef ADD
    return snprintf(buf, cap, "%s", tmp);
}

/* ---- The table ------------------------------------------------------------------------------- */

const ja_game_rules ja_brawljack_rules = {
    EU_RULES_TYPES(bj_state, ja_brawljack_obs, JA_BRAWLJACK_OBS_VERSION),
    .rules_version = 1, .name = "brawljack", .title = "BrawlJack",
    .min_seats = 2, .max_seats = MAX_SEATS,
    .max_actions = MAX_ACTIONS,
    EU_RULES_FUNCS(bj),
};
