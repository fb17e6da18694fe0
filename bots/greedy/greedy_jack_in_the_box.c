/* The `greedy` heuristic for Jack in the Box (greedy.h), written only against
 * the public SDK (ja_jack_in_the_box.h, ja_cards.h).
 *
 * JACK IN THE BOX (rules: docs/rules/jack-in-the-box.md). The active cards of
 * the boxes do not change during the scoring part of a turn, so the matches
 * of a turn can be made in any order: the bot plans the whole scoring part
 * at once. At every decision it searches every set of matches its available
 * cards (own, plus the partner's once opened) can make against the open
 * boxes, values each plan's end, and takes the action that starts the best
 * plan (ties: the lowest action code). The plan is recomputed at every
 * decision, so the steps of a turn agree.
 *
 * The value of a plan's end (higher is better):
 *  - the points of its matches, with the doubling of singles when a box has
 *    all four positions matched by singles this turn (the singles already
 *    made count);
 *  - 0.3 per card used (used cards are replaced by fresh ones);
 *  - an extra turn (every available card used): +5, about a turn's worth;
 *  - Jack in the Box when the plan leaves exactly one own card, a Jack, with
 *    a joker of its colour free: +16, +2.5 for the refresh's K/Q points, the
 *    extra turn if nothing else is left; when it would close the last box
 *    in the match's last game, +30 if the bot's side then leads, else -30
 *    (it does not end a game it is losing);
 *  - a Jack kept for later: +3 (Jacks score 4 to 12 in pairs and go in the
 *    Box);
 *  - team mode, before the first match: +1 for a plan that opens with a J,
 *    K or Q match, which offers the partner's hand.
 *
 * Other decisions:
 *  - exchange (only when nothing can be matched): it keeps its Jacks and
 *    exchanges the rest, all five (and so may change the Box) when it holds
 *    no Jack;
 *  - box changes after a full exchange: as many positions as allowed (each
 *    changed position is worth about 0.67 K/Q points to the changer);
 *  - the bonus change after a Jack in the Box: if the extra turn follows,
 *    the positions its new hand cannot match; otherwise as many as allowed;
 *  - opening the partner's hand: yes, unless its own cards alone can earn
 *    the extra turn with a better plan than opening is worth (+3).
 *
 * Cost: no allocation, no randomness, no mutable globals. The plan search is
 * a branch and bound (search() below) and expands at most a node budget per
 * decision (GREEDY_JITB_BUDGET, greedy.h, shared by the searches of one
 * decision); only the largest searches (nine or ten available cards after an
 * opening) reach it, and where a search finishes within it the answer does
 * not depend on it. */
#include "greedy.h"

#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_jack_in_the_box.h"

#include <stdlib.h>
#include <string.h>

/* The weights of the evaluation (see the top of the file). */
typedef struct jg_params {
    double use;          /* per card used */
    double extra;        /* an extra turn */
    double jack_in;      /* Jack in the Box */
    double refresh;      /* the K/Q points of a refresh */
    double keep_jack;    /* a Jack kept in hand */
    double end_game;     /* closing the last box of the last game, leading (or not) */
    double open_option;  /* team mode: a first match with a J, K or Q */
    double open_gain;    /* team mode: the partner's five cards */
} jg_params;

static const jg_params JG = {
    .use = 0.3,
    .extra = 5.0,
    .jack_in = 16.0,
    .refresh = 2.5,
    .keep_jack = 3.0,
    .end_game = 30.0,
    .open_option = 1.0,
    .open_gain = 3.0,
};

#define JG_MAX_CARDS (2 * JA_JITB_HAND)
#define JG_NEG_INF (-1e18)
/* A bound within this of a best value cannot beat it (rounding of sums of
 * the weights is far below it). */
#define JG_SLACK 1e-7

/* What a search is for: which of its results the decision reads, and so
 * which ones a subtree must be able to improve to be searched. */
typedef enum jg_goal {
    JG_GOAL_BEST,   /* stage O: the best plan */
    JG_GOAL_BY_POS, /* stage A: the best plan through each position */
    JG_GOAL_BY_CODE /* stage B: the best plan through each legal match */
} jg_goal;

/* One search: the cards, the targets, the plan being built, and the best
 * values found, by target position and by first-match code. */
typedef struct jg_ctx {
    const ja_jitb_obs *o;
    int me, partner;           /* partner: -1 without teams */
    int n;                     /* available cards */
    uint8_t ref[JG_MAX_CARDS]; /* card references (JA_JITB_PARTNER + c for the partner's) */
    uint8_t card[JG_MAX_CARDS];
    bool no_extra;             /* value plans without the extra-turn bonus */
    bool court_bonus;          /* team mode, before the first match */
    /* The plan. */
    uint8_t used[JG_MAX_CARDS];
    uint8_t mask[JA_JITB_MAX_BOXES], count[JA_JITB_MAX_BOXES];
    int points, n_used, plan_n;
    uint32_t plan_code[JG_MAX_CARDS];
    uint8_t plan_pos[JG_MAX_CARDS];
    uint32_t nodes, budget;    /* nodes expanded; the most allowed */
    /* Branch and bound: the cards not decided yet, what each can still add
     * to a plan's value, and what was left unused. */
    jg_goal goal;
    uint16_t rest;
    uint16_t single_at[JG_MAX_CARDS];             /* live positions card i matches alone */
    uint16_t pair_at[JG_MAX_CARDS][JG_MAX_CARDS]; /* live positions pair i, j matches */
    uint8_t pair_pts[JG_MAX_CARDS][JG_MAX_CARDS][JA_JITB_POSITIONS];
    uint16_t reach[JG_MAX_CARDS];                 /* positions card i can take part in */
    double gain[JG_MAX_CARDS];                    /* the most card i adds to a plan */
    uint8_t full_ok;                              /* boxes whose singles may all be matched */
    double dbl_max;                               /* their earlier singles, doubled */
    double jack_in_max;                           /* the most Jack in the Box adds */
    int skip_own, skip_jacks, skip_partner;       /* cards left unused */
    /* Results. */
    double best;                       /* any plan, the empty one included */
    double best_pos[JA_JITB_POSITIONS]; /* plans with a match on the position */
    int match_pos;                     /* stage B: the target; else -1 */
    const ja_action *legal;
    uint32_t n_legal;
    double *best_code;                 /* stage B: per legal action */
    uint16_t need[JA_MAX_ACTIONS][2];  /* stage B: the cards that can make each legal match
                                          (a single: [1] is 0; a pair of twins: [0] == [1],
                                          two of them) */
} jg_ctx;

/* ---- Cards and matches ------------------------------------------------------ */

static int jg_rank(uint8_t c) { return c % 13; }
static int jg_suit(uint8_t c) { return c / 13; }
static bool jg_court(uint8_t c) { return jg_rank(c) >= JA_RANK_J; }
static uint8_t jg_color(uint8_t c)
{
    return jg_suit(c) == JA_SUIT_C || jg_suit(c) == JA_SUIT_S ? JA_JITB_BLACK : JA_JITB_RED;
}

static int jg_values(int r, int v[2])
{
    v[0] = r + 1;
    v[1] = 14;
    return r == JA_RANK_A ? 2 : 1;
}

/* The pair rule: sum or difference, any ace 1 or 14. */
static bool jg_pair_ok(uint8_t a, uint8_t b, uint8_t t)
{
    int va[2], vb[2], vt[2];
    int na = jg_values(jg_rank(a), va), nb = jg_values(jg_rank(b), vb);
    int nt = jg_values(jg_rank(t), vt);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            for (int k = 0; k < nt; k++)
                if (va[i] + vb[j] == vt[k] || abs(va[i] - vb[j]) == vt[k])
                    return true;
    return false;
}

static int jg_pair_points(uint8_t a, uint8_t b, uint8_t t)
{
    static const int P[2][3] = {{1, 2, 4}, {4, 8, 12}};
    int in = (jg_suit(a) == jg_suit(t)) + (jg_suit(b) == jg_suit(t));
    return P[jg_rank(a) == JA_RANK_J || jg_rank(b) == JA_RANK_J][in];
}

static bool pos_live(const ja_jitb_obs *o, int pos)
{
    return pos / 4 < o->n_boxes && o->box_open[pos / 4] && o->active[pos] < 52;
}

/* The box a Jack c can go into (the lowest), or -1. */
static int jack_box(const ja_jitb_obs *o, uint8_t c)
{
    for (int b = 0; b < o->n_boxes; b++)
        for (int k = 2 * b; k < 2 * b + 2; k++)
            if (o->box_open[b] && o->slot_color[k] == jg_color(c) && o->slot_jack[k] >= 52)
                return b;
    return -1;
}

/* True if putting a Jack into box b closes the last open box. */
static bool closes_last(const ja_jitb_obs *o, int b)
{
    int open = 0, free_slots = 0;
    for (int i = 0; i < o->n_boxes; i++)
        open += o->box_open[i];
    for (int k = 2 * b; k < 2 * b + 2; k++)
        free_slots += o->slot_color[k] && o->slot_jack[k] >= 52;
    return open == 1 && free_slots == 1;
}

/* ---- Plan values ---------------------------------------------------------------- */

/* The value of ending the scoring part with the current plan (spec §7,
 * §8.1). jack_in: -1 choose freely, 0 never, 1 only with Jack in the Box
 * (JG_NEG_INF if impossible). */
static double leaf_value(const jg_ctx *x, int jack_in)
{
    const ja_jitb_obs *o = x->o;
    double pts = x->points;
    for (int b = 0; b < o->n_boxes; b++)
        if ((o->single_mask[b] | x->mask[b]) == 0xF)
            pts += o->single_count[b] + x->count[b];
    int own_left = 0, partner_left = 0, jacks = 0, last = -1;
    for (int i = 0; i < x->n; i++) {
        if (x->used[i])
            continue;
        if (JA_JITB_REF_IS_PARTNER(x->ref[i])) {
            partner_left++;
        } else {
            own_left++;
            last = i;
            jacks += jg_rank(x->card[i]) == JA_RANK_J;
        }
    }
    double v = pts + JG.use * x->n_used;
    double keep = v + JG.keep_jack * jacks;
    if (own_left == 0 && partner_left == 0 && !x->no_extra)
        keep += JG.extra;
    double in = JG_NEG_INF;
    int b = own_left == 1 && jacks == 1 ? jack_box(o, x->card[last]) : -1;
    if (b >= 0) {
        in = v + JG.jack_in;
        if (closes_last(o, b)) {
            if (o->game + 1 >= o->games) {
                int32_t mine = o->score[x->me], best_other = INT32_MIN;
                for (int s = 0; s < o->n_seats; s++)
                    if (s != x->me && s != x->partner && o->score[s] > best_other)
                        best_other = o->score[s];
                in += (double)mine + pts + JG.jack_in > best_other ? JG.end_game : -JG.end_game;
            }
        } else {
            in += JG.refresh;
            if (partner_left == 0 && !x->no_extra)
                in += JG.extra;
        }
    }
    if (jack_in == 1)
        return in;
    if (jack_in == 0)
        return keep;
    return in > keep ? in : keep;
}

/* Records the value of the finished plan: overall, for each position it
 * matches, and (stage B) for each of its matches on the target. */
static void record(jg_ctx *x)
{
    double v = leaf_value(x, -1);
    if (v > x->best)
        x->best = v;
    for (int i = 0; i < x->plan_n; i++) {
        int pos = x->plan_pos[i];
        double w = v;
        if (x->court_bonus) {
            uint32_t c = x->plan_code[i];
            bool court = JA_JITB_IS_SINGLE(c)
                             ? jg_court((uint8_t)JA_JITB_REF_CARD(JA_JITB_SINGLE_REF(c)))
                             : jg_court((uint8_t)JA_JITB_REF_CARD(JA_JITB_PAIR_REF1(c))) ||
                                   jg_court((uint8_t)JA_JITB_REF_CARD(JA_JITB_PAIR_REF2(c)));
            if (court)
                w += JG.open_option;
        }
        if (w > x->best_pos[pos])
            x->best_pos[pos] = w;
        if (pos != x->match_pos || !x->best_code)
            continue;
        for (uint32_t k = 0; k < x->n_legal; k++)
            if (x->legal[k].code == x->plan_code[i] && w > x->best_code[k])
                x->best_code[k] = w;
    }
}

static void push_match(jg_ctx *x, uint32_t code, int pos, int points, int single)
{
    x->plan_code[x->plan_n] = code;
    x->plan_pos[x->plan_n++] = (uint8_t)pos;
    x->points += points;
    if (single) {
        x->mask[pos / 4] = (uint8_t)(x->mask[pos / 4] | 1u << (pos % 4));
        x->count[pos / 4]++;
    }
}

static void pop_match(jg_ctx *x, int pos, int points, int single, uint8_t old_mask)
{
    x->plan_n--;
    x->points -= points;
    if (single) {
        x->mask[pos / 4] = old_mask;
        x->count[pos / 4]--;
    }
}

/* The most the finished plans of the current subtree can be worth: the
 * plan so far, plus each undecided card's most (a single worth 2 with its
 * doubling, half a pair's points, or a Jack kept), plus the doubling of
 * boxes that may still fill, plus the larger of the end bonuses still
 * possible. Every term bounds its part of leaf_value() (and record()'s
 * court bonus) from above, so no plan below is worth more. */
static double bound(const jg_ctx *x)
{
    double v = x->points + JG.use * x->n_used + x->dbl_max;
    for (int b = 0; b < x->o->n_boxes; b++)
        if (x->full_ok >> b & 1u)
            v += x->count[b];
    for (uint16_t r = x->rest; r; r &= (uint16_t)(r - 1))
        v += x->gain[__builtin_ctz(r)];
    double keep = JG.keep_jack * x->skip_jacks;
    if (!x->skip_own && !x->skip_partner && !x->no_extra)
        keep += JG.extra;
    double in = x->skip_own == x->skip_jacks && x->skip_own <= 1 ? x->jack_in_max : JG_NEG_INF;
    v += keep > in ? keep : in;
    return x->court_bonus ? v + JG.open_option : v;
}

/* The lowest of the results the plans of the current subtree could raise:
 * a subtree whose bound does not beat it changes no result the decision
 * reads. +infinity when they can raise none. */
static double threshold(const jg_ctx *x)
{
    if (x->goal == JG_GOAL_BEST)
        return x->best;
    double t = -JG_NEG_INF;
    if (x->goal == JG_GOAL_BY_POS) {
        uint32_t m = 0;
        for (int k = 0; k < x->plan_n; k++)
            m |= 1u << x->plan_pos[k];
        for (uint16_t r = x->rest; r; r &= (uint16_t)(r - 1))
            m |= x->reach[__builtin_ctz(r)];
        for (; m; m &= m - 1)
            if (x->best_pos[__builtin_ctz(m)] < t)
                t = x->best_pos[__builtin_ctz(m)];
        return t;
    }
    /* The legal matches the plan holds, and those the undecided cards can
     * still make. */
    for (int p = 0; p < x->plan_n; p++)
        for (uint32_t k = 0; k < x->n_legal && x->plan_pos[p] == x->match_pos; k++)
            if (x->plan_code[p] == x->legal[k].code && x->best_code[k] < t)
                t = x->best_code[k];
    for (uint32_t k = 0; k < x->n_legal; k++) {
        uint16_t a = x->rest & x->need[k][0], b = x->rest & x->need[k][1];
        bool open = !x->need[k][1]                   ? a != 0
                    : x->need[k][0] == x->need[k][1] ? __builtin_popcount(a) >= 2
                                                     : a && b;
        if (open && x->best_code[k] < t)
            t = x->best_code[k];
    }
    return t;
}

/* Every set of matches over the cards from index i on, each found once: the
 * first undecided card is used in a single, in a pair with a later card, or
 * left unused. Branch and bound (A. H. Land, A. G. Doig, "An automatic
 * method of solving discrete programming problems", Econometrica 28(3),
 * 1960): a subtree whose bound() cannot beat threshold() is skipped, which
 * changes no result the decision reads, only the work. Each node expanded
 * counts against x->budget; once it is spent, every plan reached is
 * recorded as it stands. */
static void search(jg_ctx *x, int i)
{
    while (i < x->n && x->used[i])
        i++;
    if (i >= x->n || x->nodes >= x->budget) {
        record(x);
        return;
    }
    if (bound(x) + JG_SLACK <= threshold(x))
        return;
    x->nodes++;
    x->rest = (uint16_t)(x->rest & ~(1u << i));
    x->used[i] = 1;
    x->n_used++;
    for (uint16_t m = x->single_at[i]; m; m &= (uint16_t)(m - 1)) {
        int pos = __builtin_ctz(m);
        uint8_t old = x->mask[pos / 4];
        push_match(x, JA_JITB_SINGLE(x->ref[i]), pos, 1, 1);
        search(x, i + 1);
        pop_match(x, pos, 1, 1, old);
    }
    for (uint16_t r = x->rest; r; r &= (uint16_t)(r - 1)) {
        int j = __builtin_ctz(r);
        if (!x->pair_at[i][j])
            continue;
        uint8_t r1 = x->ref[i], r2 = x->ref[j];
        uint32_t code = JA_JITB_PAIR(r1 < r2 ? r1 : r2, r1 < r2 ? r2 : r1);
        x->rest = (uint16_t)(x->rest & ~(1u << j));
        x->used[j] = 1;
        x->n_used++;
        for (uint16_t m = x->pair_at[i][j]; m; m &= (uint16_t)(m - 1)) {
            int pos = __builtin_ctz(m), p = x->pair_pts[i][j][pos];
            push_match(x, code, pos, p, 0);
            search(x, i + 1);
            pop_match(x, pos, p, 0, x->mask[pos / 4]);
        }
        x->used[j] = 0;
        x->n_used--;
        x->rest = (uint16_t)(x->rest | 1u << j);
    }
    x->used[i] = 0;
    x->n_used--;
    bool own = !JA_JITB_REF_IS_PARTNER(x->ref[i]), jack = jg_rank(x->card[i]) == JA_RANK_J;
    x->skip_own += own;
    x->skip_jacks += own && jack;
    x->skip_partner += !own;
    search(x, i + 1);
    x->skip_own -= own;
    x->skip_jacks -= own && jack;
    x->skip_partner -= !own;
    x->rest = (uint16_t)(x->rest | 1u << i);
}

/* The matches of every card and pair, each card's most, and the bonuses'
 * most (for bound()). */
static void jg_tables(jg_ctx *x)
{
    const ja_jitb_obs *o = x->o;
    uint8_t single_any[JA_JITB_MAX_BOXES] = {0};
    for (int i = 0; i < x->n; i++)
        for (int pos = 0; pos < JA_JITB_POSITIONS; pos++) {
            if (!pos_live(o, pos))
                continue;
            uint8_t t = o->active[pos];
            if (jg_rank(x->card[i]) == jg_rank(t)) {
                x->single_at[i] = (uint16_t)(x->single_at[i] | 1u << pos);
                single_any[pos / 4] = (uint8_t)(single_any[pos / 4] | 1u << (pos % 4));
            }
            for (int j = i + 1; j < x->n; j++)
                if (jg_pair_ok(x->card[i], x->card[j], t)) {
                    x->pair_at[i][j] = x->pair_at[j][i] =
                        (uint16_t)(x->pair_at[i][j] | 1u << pos);
                    x->pair_pts[i][j][pos] = x->pair_pts[j][i][pos] =
                        (uint8_t)jg_pair_points(x->card[i], x->card[j], t);
                }
        }
    for (int b = 0; b < o->n_boxes; b++)
        if ((o->single_mask[b] | single_any[b]) == 0xF) {
            x->full_ok = (uint8_t)(x->full_ok | 1u << b);
            x->dbl_max += o->single_count[b];
        }
    x->jack_in_max = JG_NEG_INF;
    for (int i = 0; i < x->n; i++) {
        double best = x->single_at[i] ? 2.0 : 0.0;
        x->reach[i] = x->single_at[i];
        for (int j = 0; j < x->n; j++) {
            x->reach[i] = (uint16_t)(x->reach[i] | x->pair_at[i][j]);
            for (uint16_t m = x->pair_at[i][j]; m; m &= (uint16_t)(m - 1))
                if (x->pair_pts[i][j][__builtin_ctz(m)] / 2.0 > best)
                    best = x->pair_pts[i][j][__builtin_ctz(m)] / 2.0;
        }
        x->gain[i] = x->reach[i] ? best + JG.use : 0.0;
        bool own = !JA_JITB_REF_IS_PARTNER(x->ref[i]);
        if (!own || jg_rank(x->card[i]) != JA_RANK_J)
            continue;
        if (x->gain[i] < JG.keep_jack)
            x->gain[i] = JG.keep_jack;
        int b = jack_box(o, x->card[i]);
        if (b < 0)
            continue;
        double in = JG.jack_in + (closes_last(o, b) ? (o->game + 1 >= o->games ? JG.end_game : 0.0)
                                                    : JG.refresh + JG.extra);
        if (in > x->jack_in_max)
            x->jack_in_max = in;
    }
    x->rest = (uint16_t)((1u << x->n) - 1);
}

/* Loads the available cards (own; the partner's when `partner_cards`), in
 * ascending reference order, for a search toward `goal` within `budget`
 * nodes. */
static void jg_prepare(jg_ctx *x, const ja_jitb_obs *o, bool partner_cards, jg_goal goal,
                       uint32_t budget)
{
    memset(x, 0, sizeof *x);
    x->o = o;
    x->me = o->seat;
    x->partner = o->teams ? (o->seat + 2) % 4 : -1;
    x->match_pos = -1;
    x->goal = goal;
    x->budget = budget;
    for (int c = 0; c < 52; c++)
        for (int k = 0; k < o->hand[c] && x->n < JG_MAX_CARDS; k++) {
            x->ref[x->n] = (uint8_t)c;
            x->card[x->n++] = (uint8_t)c;
        }
    if (partner_cards && x->partner >= 0)
        for (int c = 0; c < 52; c++)
            for (int k = 0; k < o->known[52 * x->partner + c] && x->n < JG_MAX_CARDS; k++) {
                x->ref[x->n] = (uint8_t)(JA_JITB_PARTNER + c);
                x->card[x->n++] = (uint8_t)c;
            }
    x->best = JG_NEG_INF;
    for (int p = 0; p < JA_JITB_POSITIONS; p++)
        x->best_pos[p] = JG_NEG_INF;
    x->court_bonus = o->teams && o->matches == 0 && !o->opened;
    jg_tables(x);
}

/* ---- Decisions ----------------------------------------------------------------- */

/* The index of the best value (ties: the lowest index, the lowest code). */
static uint32_t argmax(const double *v, uint32_t n)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
        if (v[i] > v[best] + 1e-9)
            best = i;
    return best;
}

/* Stage A and B: plan the scoring part within `budget` nodes. */
static uint32_t choose_scoring(const ja_decision *d, const ja_jitb_obs *o, uint32_t budget,
                               uint32_t *nodes)
{
    jg_ctx x;
    double value[JA_MAX_ACTIONS];
    uint32_t n = d->n_legal < JA_MAX_ACTIONS ? d->n_legal : JA_MAX_ACTIONS;
    for (uint32_t i = 0; i < n; i++)
        value[i] = JG_NEG_INF;
    bool match = o->stage == JA_JITB_STAGE_MATCH;
    jg_prepare(&x, o, o->opened != 0, match ? JG_GOAL_BY_CODE : JG_GOAL_BY_POS, budget);
    if (match) {
        x.match_pos = o->target;
        x.legal = d->legal;
        x.n_legal = n;
        x.best_code = value;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t c = d->legal[k].code;
            bool single = JA_JITB_IS_SINGLE(c);
            uint32_t r1 = single ? JA_JITB_SINGLE_REF(c) : JA_JITB_PAIR_REF1(c);
            uint32_t r2 = single ? UINT32_MAX : JA_JITB_PAIR_REF2(c);
            for (int i = 0; i < x.n; i++) {
                x.need[k][0] = (uint16_t)(x.need[k][0] | (x.ref[i] == r1) << i);
                x.need[k][1] = (uint16_t)(x.need[k][1] | (x.ref[i] == r2) << i);
            }
        }
    }
    search(&x, 0);
    *nodes = x.nodes;
    if (match)
        return argmax(value, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = d->legal[i].code;
        if (c < JA_JITB_JACK_IN(0, 0))
            value[i] = x.best_pos[c];
        else if (c < JA_JITB_EXCHANGE)
            value[i] = leaf_value(&x, 1);
        else if (c == JA_JITB_END_TURN)
            value[i] = leaf_value(&x, 0);
        else
            value[i] = 0.0; /* EXCHANGE: only when nothing scores */
    }
    return argmax(value, n);
}

/* Stage O: open unless the own cards' best plan beats opening. The two
 * searches share `budget`. */
static uint32_t choose_open(const ja_decision *d, const ja_jitb_obs *o, uint32_t budget,
                            uint32_t *nodes)
{
    jg_ctx x;
    jg_prepare(&x, o, false, JG_GOAL_BEST, budget);
    search(&x, 0);
    double closed = x.best;
    uint32_t first = x.nodes;
    jg_prepare(&x, o, false, JG_GOAL_BEST, budget - first);
    x.no_extra = true;
    search(&x, 0);
    *nodes = first + x.nodes;
    bool open = x.best + JG.open_gain > closed;
    for (uint32_t i = 0; i < d->n_legal; i++)
        if (d->legal[i].code == (open ? JA_JITB_OPEN : JA_JITB_KEEP_CLOSED))
            return i;
    return 0;
}

/* Stage X: exchange every card but the Jacks (at least one card); once they
 * are all marked, confirm. */
static uint32_t choose_mark(const ja_decision *d, const ja_jitb_obs *o)
{
    int others = 0;
    for (int c = 0; c < 52; c++)
        if (jg_rank((uint8_t)c) != JA_RANK_J)
            others += o->hand[c];
    for (uint32_t i = 0; i < d->n_legal; i++) {
        uint32_t c = d->legal[i].code;
        if (c == JA_JITB_CONFIRM)
            continue;
        uint8_t card = (uint8_t)(c - JA_JITB_MARK(0));
        if (jg_rank(card) != JA_RANK_J || (others == 0 && o->n_marked == 0))
            return i;
    }
    for (uint32_t i = 0; i < d->n_legal; i++)
        if (d->legal[i].code == JA_JITB_CONFIRM)
            return i;
    return 0;
}

/* True if the own hand can match position pos (a single or a pair). */
static bool hand_matches(const ja_jitb_obs *o, int pos)
{
    uint8_t t = o->active[pos];
    for (int a = 0; a < 52; a++) {
        if (!o->hand[a])
            continue;
        if (jg_rank((uint8_t)a) == jg_rank(t))
            return true;
        for (int b = a; b < 52; b++)
            if (o->hand[b] > (a == b) && jg_pair_ok((uint8_t)a, (uint8_t)b, t))
                return true;
    }
    return false;
}

/* Stages Y and J: change as many positions as allowed; before its own extra
 * turn, only those its new hand cannot match. */
static uint32_t choose_change(const ja_decision *d, const ja_jitb_obs *o)
{
    bool picky = o->stage == JA_JITB_STAGE_BONUS && o->extra_due;
    uint32_t done = 0;
    for (uint32_t i = 0; i < d->n_legal; i++) {
        uint32_t c = d->legal[i].code;
        if (c == JA_JITB_DONE) {
            done = i;
            continue;
        }
        if (!picky || !hand_matches(o, (int)(c - JA_JITB_CHANGE(0, 0))))
            return i;
    }
    return done;
}

int greedy_jack_in_the_box_plan(const ja_decision *d, uint32_t budget, uint32_t *out_index,
                                uint32_t *out_nodes)
{
    const ja_jitb_obs *o = d->obs;
    uint32_t nodes = 0;
    if (!o || o->n_seats < 2 || o->n_seats > JA_JITB_MAX_SEATS || o->seat >= o->n_seats ||
        o->n_boxes > JA_JITB_MAX_BOXES)
        return JA_EFORMAT;
    switch (o->stage) {
    case JA_JITB_STAGE_CHOOSE:
    case JA_JITB_STAGE_MATCH: *out_index = choose_scoring(d, o, budget, &nodes); break;
    case JA_JITB_STAGE_OPEN: *out_index = choose_open(d, o, budget, &nodes); break;
    case JA_JITB_STAGE_EXCHANGE: *out_index = choose_mark(d, o); break;
    case JA_JITB_STAGE_CHANGE:
    case JA_JITB_STAGE_BONUS: *out_index = choose_change(d, o); break;
    default: return JA_EFORMAT;
    }
    if (out_nodes)
        *out_nodes = nodes;
    return JA_OK;
}

int greedy_jack_in_the_box_act(const ja_decision *d, uint32_t *out_index)
{
    return greedy_jack_in_the_box_plan(d, GREEDY_JITB_BUDGET, out_index, NULL);
}
