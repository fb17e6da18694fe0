/* The `greedy` heuristic for Taylor Blackjack (greedy.h), written only
 * against the public SDK (ja_taylor.h, ja_cards.h).
 *
 * TAYLOR BLACKJACK (rules: docs/rules/taylor-blackjack.md). The bot plans the
 * rest of its own turn exactly (a turn is a sequence of its own decisions
 * with no hidden information in between: 8s, ten runs, the ace's suit) and
 * scores every way the turn can end; at each decision it takes the action
 * that leads to the best end (ties: the lowest action code). The same plan is
 * recomputed at every step of the turn, so the steps agree with each other.
 *
 * The value of a turn's end (higher is better):
 *  - going out wins: a huge value, so the bot always takes a way out when it
 *    has one (never ending on an 8, which would make it draw);
 *  - minus the cost of the hand kept: about 1 per card, less for useful
 *    cards. Red 2s and red Jacks (counters) cost 1 minus the cards they are
 *    expected to save: 2 or 7 times an estimate of the chance of facing that
 *    penalty, from the black 2s/Jacks still unseen and how many of the unseen
 *    cards sit in opponents' hands. Black 2s/Jacks count as counters too (they
 *    answer a penalty by passing it on, bigger) plus a little for the weapon.
 *    8s, aces, tens (the less, the more cards of their suit it holds) and
 *    Qs/Ks/7s cost a bit less than 1; Qs in 2 seats and Ks in 3 seats (another
 *    turn) less still. A
 *    lone 8 as the last card costs extra (playing it out forces a draw). A
 *    card drawn costs 1;
 *  - plus the effect of the last card, weighted by the threat of the seat it
 *    hits: w(seat) = 0.6 + 3 / (cards it holds), so a seat close to going out
 *    matters most. Black 2 / black J: 2 or 7 cards for the next seat times the
 *    chance it cannot answer (hypergeometric over the unseen cards, certain
 *    when a card is known to be in its hand), minus the risk that it comes
 *    back bigger (2 seats) or plus its passing on (3+ seats). Q/K: the seats
 *    skipped lose a turn (another turn for us with Q in 2 seats, K in 3). 7:
 *    the next seat loses its turn and the previous one gets it (the
 *    difference of their threats);
 *  - minus the chance that the seat acting next can follow the top card
 *    (suit or rank), times its threat;
 *  - plus a little per card held of the active suit (so a rank match that
 *    switches to the bot's long suit is preferred, and it nominates well).
 *
 * What follows from it: under a penalty it answers with a black card of the
 * pending kind (passing it on, bigger), else a red one, else picks up (with 2
 * seats, facing an opponent likely to hold a black answer, it cancels with a
 * red card, or picks up at once if it would have no answer left). In a
 * normal turn it plays black Jacks / black 2s against the next seat (more
 * eagerly the fewer cards that seat holds), keeps red 2s / red Jacks as
 * counters unless it can go out or has nothing else, plays 8s and ten runs
 * to shed many cards (in a run it lays every card of the suit except the
 * counters it keeps, ending on the most useful card: a black 2/J, Q, K or 7,
 * or an 8 to play on with any card), uses Q/K to skip an opponent close to
 * going out and 7s to reverse away from one, nominates the suit it holds most
 * of (minus the chance the next seat follows it), always declares "Last
 * card", and draws only when nothing is playable or when keeping a counter
 * (or leaving the next seat a top it is unlikely to follow) is worth more than
 * a drawn card.
 *
 * Cost: no allocation per decision, no randomness, no mutable globals (an
 * instance holds only its host and seat). The plan search is bounded by a
 * node budget; beyond it, 8s and 10s in deeper plies count as plain cards. */
#include "greedy.h"

#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_taylor.h"

#include <stdlib.h>
#include <string.h>

/* ---- Taylor Blackjack --------------------------------------------------------- */

/* The weights of the evaluation (see the top of the file). */
typedef struct tb_params {
    double win;            /* going out */
    double draw;           /* one card drawn */
    double w_base, w_lead; /* threat of a seat holding c cards: w_base + w_lead / c */
    double threat_scale;   /* chance of facing a penalty per black card in opponents' hands */
    double threat_cap;     /* at most this chance */
    double weapon2, weaponJ; /* extra holding value of a black 2 / black J */
    double cost8, costA, cost7, costQK, cost_extra; /* holding costs of special cards */
    double cost10, ten_run;  /* a 10 costs cost10 - ten_run per other card of its suit */
    double cost10_min;
    double min_cost;       /* no card is worth more than this (negative: worth keeping) */
    double lone8;          /* an 8 as the very last card */
    double extra_turn;     /* the turn comes straight back */
    double skip;           /* per threat of a skipped seat */
    double reverse;        /* per threat difference of a reversal */
    double come_back;      /* a penalty passed back to us (2 seats) */
    double pass_on;        /* a penalty the next seat passes on to another */
    double follow;         /* per threat x chance the next seat can follow */
    double own_suit;       /* per card held of the active suit */
} tb_params;

static const tb_params TB = {
    .win = 1e6,
    .draw = 1.0,
    .w_base = 0.6,
    .w_lead = 3.0,
    .threat_scale = 0.3,
    .threat_cap = 0.7,
    .weapon2 = 0.1,
    .weaponJ = 0.3,
    .cost8 = 0.75,
    .costA = 0.85,
    .cost7 = 0.95,
    .costQK = 0.9,
    .cost_extra = 0.7,
    .cost10 = 0.95,
    .ten_run = 0.1,
    .cost10_min = 0.5,
    .min_cost = -0.5,
    .lone8 = 0.7,
    .extra_turn = 1.0,
    .skip = 0.5,
    .reverse = 0.5,
    .come_back = 1.0,
    .pass_on = 0.5,
    .follow = 0.6,
    .own_suit = 0.15,
};

#define TB_NODE_BUDGET 500u /* turn-plan nodes (stages F and S) per action weighed */
#define TB_NEG_INF (-1e18)

/* A hand: copies of each identity, per-suit counts, total. */
typedef struct tb_hand {
    uint8_t c[52];
    uint8_t suit[4];
    int total;
} tb_hand;

/* Everything one decision's evaluation needs, computed once. */
typedef struct tb_ctx {
    const ja_taylor_obs *o;
    int me, n, dir;
    double w[JA_TAYLOR_MAX_SEATS];     /* threat of each seat */
    uint8_t pool[52];           /* unseen copies not known to be in any hand */
    int pool_total;
    int unknown[JA_TAYLOR_MAX_SEATS];  /* cards of each hand not known */
    double save2, saveJ;        /* cards a counter of each kind is expected to save */
    double draw_cost;           /* 0 when there is nothing left to draw */
    uint32_t nodes;             /* plan nodes searched for the current action */
    /* Caches of the chances that a seat can follow (seat, suit, rank) and
     * holds a 2 / J (seat, kind, black only). */
    double follow_p[JA_TAYLOR_MAX_SEATS * 4 * 13], rank_p[JA_TAYLOR_MAX_SEATS * 4];
    uint8_t follow_ok[JA_TAYLOR_MAX_SEATS * 4 * 13], rank_ok[JA_TAYLOR_MAX_SEATS * 4];
} tb_ctx;

enum { TB_EFF_NONE, TB_EFF_CARD }; /* end without effect / with the top card's effect */

static int tb_rank(int c) { return c % 13; }
static int tb_suit(int c) { return c / 13; }
static bool tb_black(int c) { return tb_suit(c) == JA_SUIT_C || tb_suit(c) == JA_SUIT_S; }
static int tb_seat(const tb_ctx *x, int s) { return ((s % x->n) + x->n) % x->n; }

static void hand_remove(tb_hand *h, int c)
{
    h->c[c]--;
    h->suit[tb_suit(c)]--;
    h->total--;
}

/* The cost of holding one card c in hand h. */
static double card_cost(const tb_ctx *x, const tb_hand *h, int c)
{
    double v;
    switch (tb_rank(c)) {
    case JA_RANK_2: v = 1.0 - x->save2 - (tb_black(c) ? TB.weapon2 : 0.0); break;
    case JA_RANK_J: v = 1.0 - x->saveJ - (tb_black(c) ? TB.weaponJ : 0.0); break;
    case JA_RANK_8: v = TB.cost8; break;
    case JA_RANK_A: v = TB.costA; break;
    case JA_RANK_T: {
        v = TB.cost10 - TB.ten_run * (h->suit[tb_suit(c)] - 1);
        if (v < TB.cost10_min)
            v = TB.cost10_min;
        break;
    }
    case JA_RANK_Q: v = x->n == 2 ? TB.cost_extra : TB.costQK; break;
    case JA_RANK_K: v = x->n == 3 ? TB.cost_extra : TB.costQK; break;
    case JA_RANK_7: v = x->n == 2 ? 1.0 : TB.cost7; break;
    default: v = 1.0; break;
    }
    return v < TB.min_cost ? TB.min_cost : v;
}

static double hand_cost(const tb_ctx *x, const tb_hand *h)
{
    double v = 0;
    int last = -1;
    for (int c = 0; c < 52; c++)
        if (h->c[c]) {
            v += h->c[c] * card_cost(x, h, c);
            last = c;
        }
    if (h->total == 1 && tb_rank(last) == JA_RANK_8)
        v += TB.lone8;
    return v;
}

/* Chance that none of u cards dealt from a pool of p holds one of m. */
static double none_of(int p, int m, int u)
{
    double q = 1.0;
    for (int i = 0; i < u; i++) {
        if (p - m - i <= 0)
            return 0.0;
        q *= (double)(p - m - i) / (double)(p - i);
    }
    return q;
}

/* Chance that seat holds at least one of the identities in `want` (bit c
 * for identity c): certain if one is known to be in its hand, else
 * hypergeometric over the unseen cards. */
static double p_holds(const tb_ctx *x, int seat, uint64_t want)
{
    const uint8_t *kn = x->o->known + 52 * seat;
    int m = 0;
    for (uint64_t w = want; w; w &= w - 1) {
        int c = __builtin_ctzll(w);
        if (kn[c])
            return 1.0;
        m += x->pool[c];
    }
    return 1.0 - none_of(x->pool_total, m, x->unknown[seat]);
}

static uint64_t suit_bits(int s) { return ((UINT64_C(1) << 13) - 1) << (13 * s); }

static uint64_t rank_bits(int r, bool black_only)
{
    uint64_t b = (UINT64_C(1) << r) | (UINT64_C(1) << (39 + r));
    return black_only ? b : b | (UINT64_C(1) << (13 + r)) | (UINT64_C(1) << (26 + r));
}

/* Chance that seat can lay a card on a top of rank r with active suit s
 * (cached: it does not depend on our hand). */
static double p_follow(tb_ctx *x, int seat, int s, int r)
{
    int i = (seat * 4 + s) * 13 + r;
    if (!x->follow_ok[i]) {
        x->follow_p[i] = p_holds(x, seat, suit_bits(s) | rank_bits(r, false));
        x->follow_ok[i] = 1;
    }
    return x->follow_p[i];
}

/* Chance that seat holds a card of rank r (2 or J), or a black one. */
static double p_rank(tb_ctx *x, int seat, int r, bool black_only)
{
    int i = (seat * 2 + (r == JA_RANK_J)) * 2 + black_only;
    if (!x->rank_ok[i]) {
        x->rank_p[i] = p_holds(x, seat, rank_bits(r, black_only));
        x->rank_ok[i] = 1;
    }
    return x->rank_p[i];
}

/* The value of a penalty (kind, k) set for seat nxt. */
static double pen_value(tb_ctx *x, const tb_hand *h, int kind, int k, int nxt, int dir)
{
    int per = kind == JA_TAYLOR_PEN_TWO ? 2 : 7;
    int rank = kind == JA_TAYLOR_PEN_TWO ? JA_RANK_2 : JA_RANK_J;
    double p_any = p_rank(x, nxt, rank, false), p_black = p_rank(x, nxt, rank, true);
    double v = (1.0 - p_any) * per * k * x->w[nxt];
    int nxt2 = tb_seat(x, nxt + dir);
    if (nxt2 == x->me) {
        bool covered = h->c[rank] || h->c[13 + rank] || h->c[26 + rank] || h->c[39 + rank];
        v -= p_black * per * (k + 1) * TB.come_back * (covered ? 0.3 : 1.0);
    } else {
        v += p_black * per * (k + 1) * x->w[nxt2] * TB.pass_on;
    }
    return v;
}

/* The part of an end's value that depends on the active suit s left for the
 * seat nxt acting next on a top card of rank r. */
static double suit_value(tb_ctx *x, const tb_hand *h, int nxt, int s, int r)
{
    return TB.own_suit * h->suit[s] - TB.follow * x->w[nxt] * p_follow(x, nxt, s, r);
}

/* The suit to name after an ace (best suit_value; ties: lowest suit). */
static int best_suit(tb_ctx *x, const tb_hand *h, double *value)
{
    int nxt = tb_seat(x, x->me + x->dir), best = 0;
    double bv = TB_NEG_INF;
    for (int s = 0; s < 4; s++) {
        double v = suit_value(x, h, nxt, s, JA_RANK_A);
        if (v > bv + 1e-9) {
            bv = v;
            best = s;
        }
    }
    if (value)
        *value = bv;
    return best;
}

/* The value of ending the turn holding h (not empty) with `top` on the pile
 * and suit `suit` to follow, after drawing `drew` cards; with eff ==
 * TB_EFF_CARD the top card's effect applies; pen_kind/pen_k: a penalty set
 * under a penalty (stage P) for the next seat. */
static double end_value(tb_ctx *x, const tb_hand *h, int top, int suit, int drew, int eff,
                        int pen_kind, int pen_k)
{
    double v = -hand_cost(x, h) - drew * x->draw_cost;
    int me = x->me, dir = x->dir, r = tb_rank(top);
    int nxt = tb_seat(x, me + dir);
    if (pen_k > 0)
        return v + pen_value(x, h, pen_kind, pen_k, nxt, dir);
    if (eff == TB_EFF_CARD) {
        switch (r) {
        case JA_RANK_2:
        case JA_RANK_J:
            if (tb_black(top))
                return v + pen_value(x, h, r == JA_RANK_2 ? JA_TAYLOR_PEN_TWO : JA_TAYLOR_PEN_JACK,
                                     1, nxt, dir);
            break;
        case JA_RANK_7:
            if (x->n > 2) {
                int prev = tb_seat(x, me - dir);
                v += TB.reverse * (x->w[nxt] - x->w[prev]);
                nxt = prev;
            }
            break;
        case JA_RANK_Q:
        case JA_RANK_K: {
            int skips = r == JA_RANK_Q ? 1 : 2;
            int to = tb_seat(x, me + (1 + skips) * dir);
            if (to == me)
                return v + TB.extra_turn;
            for (int i = 1; i <= skips; i++) { /* seats that lose their turn */
                int sk = tb_seat(x, me + i * dir);
                if (sk != me && sk != to)
                    v += TB.skip * x->w[sk];
            }
            nxt = to;
            break;
        }
        case JA_RANK_A: {
            double sv;
            best_suit(x, h, &sv);
            return v + sv;
        }
        default: break;
        }
    }
    return v + suit_value(x, h, nxt, suit, r);
}

static double stage_f(tb_ctx *x, const tb_hand *h);
static double stage_s(tb_ctx *x, const tb_hand *h, int s, int top);

static bool over_budget(const tb_ctx *x) { return x->nodes >= TB_NODE_BUDGET; }

/* After laying c in stage T or F (h no longer holds it). */
static double resolve(tb_ctx *x, const tb_hand *h, int c)
{
    int r = tb_rank(c);
    if (r == JA_RANK_8) {
        if (h->total == 0)
            return end_value(x, h, c, tb_suit(c), 1, TB_EFF_NONE, 0, 0);
        if (over_budget(x)) /* the card that must follow is not planned */
            return end_value(x, h, c, tb_suit(c), 0, TB_EFF_NONE, 0, 0);
        return stage_f(x, h);
    }
    if (h->total == 0)
        return TB.win;
    if (r == JA_RANK_T)
        return over_budget(x) ? end_value(x, h, c, tb_suit(c), 0, TB_EFF_NONE, 0, 0)
                              : stage_s(x, h, tb_suit(c), c);
    return end_value(x, h, c, tb_suit(c), 0, TB_EFF_CARD, 0, 0);
}

/* The end of a ten run whose last card is e (h no longer holds it). */
static double run_end(tb_ctx *x, const tb_hand *h, int e)
{
    int r = tb_rank(e);
    if (r == JA_RANK_8)
        return resolve(x, h, e);
    if (h->total == 0)
        return TB.win;
    return end_value(x, h, e, tb_suit(e), 0, r == JA_RANK_T ? TB_EFF_NONE : TB_EFF_CARD, 0, 0);
}

/* Stage F: any card. Only one 8 is tried (which 8 is buried does not matter). */
static double stage_f(tb_ctx *x, const tb_hand *h)
{
    x->nodes++;
    double best = TB_NEG_INF;
    bool eight = false;
    for (int c = 0; c < 52; c++) {
        if (!h->c[c])
            continue;
        if (tb_rank(c) == JA_RANK_8 && h->total > 1) {
            if (eight)
                continue;
            eight = true;
        }
        tb_hand h2 = *h;
        hand_remove(&h2, c);
        double v = resolve(x, &h2, c);
        if (v > best)
            best = v;
    }
    return best;
}

/* Stage S, run of suit s with `top` laid last. The plans tried: FINISH now,
 * or lay the suit's cards ending with e, for every e, either every other
 * card of the suit or only those that cost something to keep. */
static double stage_s(tb_ctx *x, const tb_hand *h, int s, int top)
{
    x->nodes++;
    double best = run_end(x, h, top);
    for (int e = 13 * s; e < 13 * s + 13; e++) {
        if (!h->c[e])
            continue;
        for (int all = 0; all < 2; all++) {
            tb_hand h2 = *h;
            hand_remove(&h2, e);
            for (int c = 13 * s; c < 13 * s + 13; c++)
                while (h2.c[c] && (all || card_cost(x, h, c) > 0))
                    hand_remove(&h2, c);
            double v = run_end(x, &h2, e);
            if (v > best)
                best = v;
        }
    }
    return best;
}

static void tb_prepare(tb_ctx *x, const ja_taylor_obs *o, tb_hand *h)
{
    memset(x, 0, sizeof *x);
    x->o = o;
    x->me = o->seat;
    x->n = o->n_seats;
    x->dir = o->direction < 0 ? -1 : 1;
    memset(h, 0, sizeof *h);
    for (int c = 0; c < 52; c++) {
        h->c[c] = o->hand[c];
        h->suit[tb_suit(c)] = (uint8_t)(h->suit[tb_suit(c)] + o->hand[c]);
        h->total += o->hand[c];
    }
    /* Unseen copies: not in our hand, the pile or a public stock. */
    int seen[52];
    for (int c = 0; c < 52; c++)
        seen[c] = o->hand[c];
    for (int i = 0; i < o->pile_count && i < JA_TAYLOR_MAX_CARDS; i++)
        if (o->pile[i] < 52)
            seen[o->pile[i]]++;
    if (o->stock_known)
        for (int i = 0; i < o->stock_count && i < JA_TAYLOR_MAX_CARDS; i++)
            if (o->stock[i] < 52)
                seen[o->stock[i]]++;
    int known_opp_b2 = 0, known_opp_bj = 0, opp_cards = 0;
    for (int p = 0; p < x->n; p++) {
        x->w[p] = TB.w_base + TB.w_lead / (o->hand_count[p] ? o->hand_count[p] : 1);
        if (p == x->me)
            continue;
        int kn = 0;
        for (int c = 0; c < 52; c++) {
            int k = o->known[52 * p + c];
            kn += k;
            seen[c] += k;
            if (tb_black(c) && tb_rank(c) == JA_RANK_2)
                known_opp_b2 += k;
            if (tb_black(c) && tb_rank(c) == JA_RANK_J)
                known_opp_bj += k;
        }
        x->unknown[p] = o->hand_count[p] > kn ? o->hand_count[p] - kn : 0;
        opp_cards += x->unknown[p];
    }
    for (int c = 0; c < 52; c++) {
        int left = o->decks - seen[c];
        x->pool[c] = (uint8_t)(left > 0 ? left : 0);
        x->pool_total += x->pool[c];
    }
    /* Expected black 2s / Jacks in opponents' hands -> chance to face one. */
    double frac = x->pool_total ? (double)opp_cards / x->pool_total : 0.0;
    if (frac > 1.0)
        frac = 1.0;
    double e2 = known_opp_b2 + frac * (x->pool[JA_SUIT_C * 13 + 1] + x->pool[JA_SUIT_S * 13 + 1]);
    double ej = known_opp_bj + frac * (x->pool[JA_SUIT_C * 13 + 10] + x->pool[JA_SUIT_S * 13 + 10]);
    double p2 = TB.threat_scale * e2, pj = TB.threat_scale * ej;
    x->save2 = 2.0 * (p2 < TB.threat_cap ? p2 : TB.threat_cap);
    x->saveJ = 7.0 * (pj < TB.threat_cap ? pj : TB.threat_cap);
    x->draw_cost = (o->stock_count > 0 || o->pile_count > 1) ? TB.draw : 0.0;
}

/* The value of one legal action of the current decision. */
static double tb_action_value(tb_ctx *x, const tb_hand *h, uint32_t code)
{
    const ja_taylor_obs *o = x->o;
    if (code < 52) {
        int c = (int)code;
        if (!h->c[c])
            return TB_NEG_INF; /* cannot happen with a consistent observation */
        tb_hand h2 = *h;
        hand_remove(&h2, c);
        switch (o->stage) {
        case JA_TAYLOR_STAGE_TURN:
        case JA_TAYLOR_STAGE_EIGHT: return resolve(x, &h2, c);
        case JA_TAYLOR_STAGE_RUN:
            return h2.total == 0 ? run_end(x, &h2, c) : stage_s(x, &h2, tb_suit(c), c);
        case JA_TAYLOR_STAGE_PENALTY: {
            if (h2.total == 0)
                return TB.win;
            int k = o->penalty_k + (tb_black(c) ? 1 : -1);
            if (k <= 0)
                return end_value(x, &h2, c, tb_suit(c), 0, TB_EFF_NONE, 0, 0);
            return end_value(x, &h2, c, tb_suit(c), 0, TB_EFF_NONE, o->penalty_kind, k);
        }
        default: return TB_NEG_INF;
        }
    }
    switch (code) {
    case JA_TAYLOR_DRAW:
        return end_value(x, h, o->top, o->active_suit, 1, TB_EFF_NONE, 0, 0);
    case JA_TAYLOR_PICK_UP: {
        int per = o->penalty_kind == JA_TAYLOR_PEN_TWO ? 2 : 7;
        return end_value(x, h, o->top, o->active_suit, per * o->penalty_k, TB_EFF_NONE, 0, 0);
    }
    case JA_TAYLOR_FINISH: return run_end(x, h, o->top);
    case JA_TAYLOR_DECLARE: return 1.0;
    case JA_TAYLOR_STAY_SILENT: return 0.0;
    default: break;
    }
    if (code >= JA_TAYLOR_SUIT(0) && code <= JA_TAYLOR_SUIT(3))
        return best_suit(x, h, NULL) == (int)(code - JA_TAYLOR_SUIT(0)) ? 1.0 : 0.0;
    return TB_NEG_INF;
}

int greedy_taylor_act(const ja_decision *d, uint32_t *out_index)
{
    const ja_taylor_obs *o = d->obs;
    if (!o || o->n_seats < 2 || o->n_seats > JA_TAYLOR_MAX_SEATS || o->seat >= o->n_seats)
        return JA_EFORMAT;
    tb_ctx x;
    tb_hand h;
    tb_prepare(&x, o, &h);
    uint32_t best = 0;
    double bv = TB_NEG_INF;
    for (uint32_t i = 0; i < d->n_legal; i++) {
        x.nodes = 0;
        double v = tb_action_value(&x, &h, d->legal[i].code);
        if (i == 0 || v > bv + 1e-9) {
            bv = v;
            best = i;
        }
    }
    *out_index = best;
    return JA_OK;
}

