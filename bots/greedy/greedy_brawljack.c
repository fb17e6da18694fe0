/* The `greedy` heuristic for BrawlJack (greedy.h), written only against the
 * public SDK (ja_brawljack.h, ja_cards.h).
 *
 * BRAWLJACK (rules: docs/rules/brawljack.md). The bot scores a table with a
 * static evaluation and, at each decision, takes the action whose resulting
 * table scores best for it (ties: the lowest action code):
 *
 *  - A seat's worth E = its stayed 21s (an AK-47 counts 2) + W_LIVE x its
 *    LIVE 21s (others will try to bust them before they are stayed; the
 *    bot's own count fully, since it stays them at once) + W_POT x the
 *    chance, summed over its LIVE hands below 21, that one unseen card makes
 *    that hand exactly 21 + W_BEST x its best hand / 21 (what decides a deal
 *    without any 21). The bot's evaluation is E(itself) - max E(others).
 *  - HIT with a drawn card (N1): every target is tried (add, split or bust)
 *    and the best evaluation is taken: it completes its own 21s, busts the
 *    others' 21s and high hands, dumps useless cards where they hurt most.
 *  - HIT before the draw (R1, the last seat playing): the expected
 *    evaluation over the unseen cards.
 *  - STAY / END_TURN (N2, R2): stay a 21 at once; otherwise, as the last
 *    seat playing, stay everything when staying now would win or tie the
 *    deal, else keep hitting; with others still playing, stay hands of
 *    STAY_MIN or more.
 *  - The dealer (when it controls it, it is not a leader, so it wants the
 *    dealer to succeed): the hand whose next card most often reaches the
 *    target; in points mode it stays the dealer's 21s.
 *  - Blind tiebreak: two cards, then stay (two cards beat one, three and
 *    four; two against two is even).
 *
 * Cost: no allocation, no randomness, no mutable globals; a decision copies
 * the table (at most 108 hands) once per action weighed. */
#include "greedy.h"

#include "jackarena/ja_brawljack.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"

#include <string.h>

#define BW_JOKER 13           /* the rank class of the jokers */
#define BW_RANKS 14
#define BW_W_LIVE 0.5         /* an opponent's LIVE 21 */
#define BW_W_POT 0.5          /* per chance that one card makes a LIVE hand 21 */
#define BW_W_BEST 0.3         /* the best hand, as a fraction of 21 */
#define BW_STAY_MIN 18        /* with others playing, stay hands from this value on */
#define BW_BLIND_CARDS 2      /* blind hands stop at this many cards */

/* What the evaluation needs of a hand. */
typedef struct bw_hand {
    uint8_t owner, k, state, len;
    uint8_t hard;             /* sum with aces as 1 (jokers not counted) */
    uint8_t ace, joker;       /* holds an ace, a joker */
    uint8_t first, top;       /* rank classes of the first and the top card */
} bw_hand;

typedef struct bw_table {
    int n_hands;
    bw_hand h[JA_BRAWLJACK_MAX_HANDS];
} bw_table;

/* The cards a seat has not seen, by rank class. */
typedef struct bw_unseen {
    int cnt[BW_RANKS];
    int total;
} bw_unseen;

static int bw_class(uint8_t card) { return card >= 52 ? BW_JOKER : ja_card_rank(card); }

static int bw_points(int rank) { return rank >= JA_RANK_T ? 10 : rank + 1; }

/* The value of a hand (rules §4): 0 when bust. */
static int bw_value(const bw_hand *h)
{
    if (h->joker)
        return h->len == 1 ? 21 : 0;
    if (h->hard > 21)
        return 0;
    return h->ace && h->hard + 10 <= 21 ? h->hard + 10 : h->hard;
}

/* Twenty-ones of a hand: 2 for an ace and a king alone, 1 for another 21. */
static int bw_21s(const bw_hand *h)
{
    if (bw_value(h) != 21)
        return 0;
    bool ak = h->len == 2 && ((h->first == JA_RANK_A && h->top == JA_RANK_K) ||
                              (h->first == JA_RANK_K && h->top == JA_RANK_A));
    return ak ? 2 : 1;
}

static void bw_add(bw_hand *h, int rank)
{
    if (rank == BW_JOKER)
        h->joker = 1;
    else
        h->hard = (uint8_t)(h->hard + bw_points(rank));
    h->ace |= rank == JA_RANK_A;
    if (h->len == 0)
        h->first = (uint8_t)rank;
    h->top = (uint8_t)rank;
    h->len++;
}

/* Rules §6.1: a card of rank class r onto hand i. */
static void bw_place(bw_table *t, int i, int r)
{
    bw_hand *h = &t->h[i];
    if (r != BW_JOKER && h->top != BW_JOKER && r == h->top) {
        if (t->n_hands < JA_BRAWLJACK_MAX_HANDS) {
            bw_hand *n = &t->h[t->n_hands++];
            memset(n, 0, sizeof *n);
            n->owner = h->owner;
            n->state = JA_BRAWLJACK_HAND_LIVE;
            bw_add(n, r);
        }
        return;
    }
    bw_add(h, r);
    if (bw_value(h) == 0)
        h->state = JA_BRAWLJACK_HAND_BUST;
}

static void bw_load(bw_table *t, bw_unseen *u, const ja_brawljack_obs *o)
{
    memset(t, 0, sizeof *t);
    t->n_hands = o->n_hands < JA_BRAWLJACK_MAX_HANDS ? o->n_hands : JA_BRAWLJACK_MAX_HANDS;
    for (int i = 0; i < t->n_hands; i++) {
        bw_hand *h = &t->h[i];
        h->owner = o->hand_owner[i];
        h->k = o->hand_index[i];
        int len = o->hand_len[i] < JA_BRAWLJACK_HAND_CARDS ? o->hand_len[i]
                                                           : JA_BRAWLJACK_HAND_CARDS;
        for (int j = 0; j < len; j++)
            bw_add(h, bw_class(o->hand_card[JA_BRAWLJACK_HAND_CARDS * i + j]));
        h->state = o->hand_state[i];
    }
    memset(u, 0, sizeof *u);
    for (int c = 0; c < JA_BRAWLJACK_DECK; c++)
        if (o->unseen[c]) {
            u->cnt[bw_class((uint8_t)c)]++;
            u->total++;
        }
}

/* The hand (owner, k), or -1. */
static int bw_find(const bw_table *t, int owner, int k)
{
    for (int i = 0; i < t->n_hands; i++)
        if (t->h[i].owner == owner && t->h[i].k == k)
            return i;
    return -1;
}

/* Chance that one unseen card makes LIVE hand h (below 21) exactly 21. */
static double bw_p21(const bw_hand *h, const bw_unseen *u)
{
    if (u->total == 0)
        return 0.0;
    int n = 0;
    for (int r = 0; r < BW_JOKER; r++) {
        if (!u->cnt[r] || r == h->top)
            continue;
        bw_hand x = *h;
        bw_add(&x, r);
        n += bw_value(&x) == 21 ? u->cnt[r] : 0;
    }
    return (double)n / u->total;
}

/* E(seat) (see the top of the file); w_live weighs its LIVE 21s. */
static double bw_worth(const bw_table *t, const bw_unseen *u, int seat, double w_live)
{
    double e = 0.0;
    int best = 0;
    for (int i = 0; i < t->n_hands; i++) {
        const bw_hand *h = &t->h[i];
        int v = bw_value(h);
        if (h->owner != seat || h->state == JA_BRAWLJACK_HAND_BUST || v == 0)
            continue;
        int tw = bw_21s(h);
        if (h->state == JA_BRAWLJACK_HAND_STAYED)
            e += tw;
        else if (tw)
            e += w_live * tw;
        else
            e += BW_W_POT * bw_p21(h, u);
        if (v > best)
            best = v;
    }
    return e + BW_W_BEST * best / 21.0;
}

/* The bot's evaluation of a table: its worth minus the best other seat's. */
static double bw_eval(const bw_table *t, const bw_unseen *u, int me, int n_seats)
{
    double other = -1e9;
    for (int p = 0; p < n_seats; p++)
        if (p != me) {
            double e = bw_worth(t, u, p, BW_W_LIVE);
            if (e > other)
                other = e;
        }
    return bw_worth(t, u, me, 1.0) - other;
}

/* The evaluation after a card of class r goes on hand i (r leaves the unseen
 * cards when it was one of them). */
static double bw_after(const bw_table *t, const bw_unseen *u, int i, int r, int me, int n,
                       bool from_unseen)
{
    bw_table x = *t;
    bw_unseen y = *u;
    if (from_unseen && y.cnt[r] > 0) {
        y.cnt[r]--;
        y.total--;
    }
    bw_place(&x, i, r);
    return bw_eval(&x, &y, me, n);
}

/* The expected evaluation of hitting hand i with the next unseen card. */
static double bw_expected(const bw_table *t, const bw_unseen *u, int i, int me, int n)
{
    if (u->total == 0)
        return bw_eval(t, u, me, n);
    double sum = 0.0;
    for (int r = 0; r < BW_RANKS; r++)
        if (u->cnt[r])
            sum += u->cnt[r] * bw_after(t, u, i, r, me, n, true);
    return sum / u->total;
}

/* Dealer success (rules §9) on table t. */
static bool bw_dealer_met(const bw_table *t, const ja_brawljack_obs *o)
{
    int best = 0, tws = 0;
    for (int i = 0; i < t->n_hands; i++)
        if (t->h[i].owner == JA_BRAWLJACK_DEALER) {
            int v = bw_value(&t->h[i]);
            tws += bw_21s(&t->h[i]);
            if (v > best)
                best = v;
        }
    return (o->mode == JA_BRAWLJACK_MODE_POINTS ? tws : best) >= o->target;
}

/* Chance that the next card on dealer hand i meets the target. */
static double bw_dealer_chance(const bw_table *t, const bw_unseen *u, int i,
                               const ja_brawljack_obs *o)
{
    if (u->total == 0)
        return 0.0;
    int n = 0;
    for (int r = 0; r < BW_RANKS; r++) {
        if (!u->cnt[r])
            continue;
        bw_table x = *t;
        bw_place(&x, i, r);
        n += bw_dealer_met(&x, o) ? u->cnt[r] : 0;
    }
    return (double)n / u->total;
}

/* True when staying every hand now wins or ties the deal for me (rules §7),
 * everybody else being DONE. */
static bool bw_winning_now(const bw_table *t, int me, int n)
{
    int tws[JA_BRAWLJACK_MAX_SEATS] = {0}, best[JA_BRAWLJACK_MAX_SEATS] = {0};
    bool points = false;
    for (int i = 0; i < t->n_hands; i++) {
        const bw_hand *h = &t->h[i];
        int v = bw_value(h), tw = bw_21s(h);
        if (h->owner >= n)
            continue;
        tws[h->owner] += tw;
        points |= tw > 0;
        if (v > best[h->owner])
            best[h->owner] = v;
    }
    for (int p = 0; p < n; p++) {
        int mine = points ? tws[me] : best[me], theirs = points ? tws[p] : best[p];
        if (p != me && theirs > mine)
            return false;
    }
    return true;
}

/* The value of one legal action (higher is better). */
static double bw_action_value(const ja_brawljack_obs *o, const bw_table *t, const bw_unseen *u,
                              uint32_t code)
{
    const int me = o->seat, n = o->n_seats;
    if (JA_BRAWLJACK_IS_HIT(code)) {
        int i = bw_find(t, (int)JA_BRAWLJACK_CODE_OWNER(code), (int)JA_BRAWLJACK_CODE_INDEX(code));
        if (i < 0)
            return -1e9;
        switch (o->stage) {
        case JA_BRAWLJACK_STAGE_HIT:
            return o->drawn < JA_BRAWLJACK_DECK
                       ? bw_after(t, u, i, bw_class(o->drawn), me, n, false)
                       : bw_expected(t, u, i, me, n);
        case JA_BRAWLJACK_STAGE_HIT_REGULAR: return bw_expected(t, u, i, me, n);
        case JA_BRAWLJACK_STAGE_DEALER_HIT:
            /* Ties go to the lowest hand: it has the most room. */
            return bw_dealer_chance(t, u, i, o) - bw_value(&t->h[i]) * 1e-4;
        default: return -1e9;
        }
    }
    if (JA_BRAWLJACK_IS_STAY(code)) {
        int i = bw_find(t, (int)JA_BRAWLJACK_CODE_OWNER(code), (int)JA_BRAWLJACK_CODE_INDEX(code));
        if (i < 0)
            return -1e9;
        int v = bw_value(&t->h[i]);
        if (v == 21)
            return 3.0;
        if (o->stage == JA_BRAWLJACK_STAGE_DEALER_STAY)
            return -1.0; /* a dealer hand below 21 can still reach the target */
        bool others_done = true;
        for (int p = 0; p < n; p++)
            others_done &= p == me || o->done[p];
        if (others_done)
            return bw_winning_now(t, me, n) ? 2.0 : -1.0;
        return v >= BW_STAY_MIN ? 1.0 + v / 100.0 : -1.0;
    }
    switch (code) {
    case JA_BRAWLJACK_END_TURN: return 0.0;
    case JA_BRAWLJACK_BLIND_HIT: return o->blind_count[me] < BW_BLIND_CARDS ? 1.0 : -1.0;
    case JA_BRAWLJACK_BLIND_STAY: return 0.0;
    default: return -1e9;
    }
}

int greedy_brawljack_act(const ja_decision *d, uint32_t *out_index)
{
    const ja_brawljack_obs *o = d->obs;
    if (!o || o->n_seats < 2 || o->n_seats > JA_BRAWLJACK_MAX_SEATS || o->seat >= o->n_seats)
        return JA_EFORMAT;
    bw_table t;
    bw_unseen u;
    bw_load(&t, &u, o);
    uint32_t best = 0;
    double bv = -1e18;
    for (uint32_t i = 0; i < d->n_legal; i++) {
        double v = bw_action_value(o, &t, &u, d->legal[i].code);
        if (v > bv + 1e-9) {
            bv = v;
            best = i;
        }
    }
    *out_index = best;
    return JA_OK;
}
