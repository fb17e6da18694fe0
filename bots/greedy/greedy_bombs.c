/* The `greedy` heuristic for Bombs (greedy.h), written only against the
 * public SDK (ja_bombs.h, ja_cards.h, ja_bot.h): it reads the observation and
 * the legal list, nothing else.
 *
 * BOMBS (rules: docs/rules/bombs.md). The bot weighs every choice by the
 * cost of the hand it would keep: the hand is split greedily into plays
 * (the super bomb, big bombs, bombs, double runs, runs, pairs, singles), and
 * each play costs what it takes to get rid of it: about 1 for a low single
 * or pair, less for a high one that is likely to win its trick, less for a
 * run or double run (many cards in one go), and a bomb is an asset (it beats
 * anything ordinary, at any time). Then:
 *  - on the lead (L1, then L2) it plays the combination that leaves the
 *    cheapest hand, shedding more cards on a tie; it never leads a bomb it
 *    does not need unless that takes it out;
 *  - in turn (F) it plays the cheapest beating play of the same form when
 *    that lowers its cost enough, else passes; it uses a bomb, a big bomb or
 *    the super bomb only to go out, or against an opponent who owns the top
 *    play and holds few cards;
 *  - in a window (W) it completes a bomb with a pair of a low rank, and
 *    bombs out of turn only to go out or against a threatening opponent; it
 *    never interrupts its own play except to go out;
 *  - any play that empties its hand is taken at once;
 *  - in the exchange it revolts whenever it can, accepts the Knave's card,
 *    requests the rank that lowers its cost most, and returns the card whose
 *    loss costs least.
 * Ties go to the lowest action code. Deterministic, no allocation, no state,
 * no randomness. */
#include "greedy.h"

#include "jackarena/ja_bombs.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"

#include <string.h>

#define RANKS JA_BOMBS_RANKS

/* The weights of the evaluation (see the top of the file). */
typedef struct bb_params {
    double single_low;   /* a single or pair below J */
    double control[RANKS]; /* what a single or pair of that rank saves (wins tricks) */
    double run;          /* a run of 3, one play */
    double run_long;     /* ... minus this per card past 3 */
    double bomb, big, super; /* negative: assets */
    double per_card;     /* the bonus for each card shed by a play */
    double min_gain;     /* a follow must lower the cost by this much */
    double complete_max; /* complete a bomb only with a pair of rank below this */
    int threat;          /* an opponent holding at most this many cards threatens */
    double stop;         /* the worth of beating a threatening opponent's top play */
} bb_params;

static const bb_params BB = {
    .single_low = 1.0,
    .control = {0, 0, 0, 0, 0, 0, 0, 0, 0.1, 0.2, 0.3, 0.45, 0.7, 0.85, 0.95},
    .run = 0.8,
    .run_long = 0.05,
    .bomb = -0.3,
    .big = -0.6,
    .super = -1.0,
    .per_card = 0.05,
    .min_gain = 0.25,
    .complete_max = JA_BOMBS_R_J,
    .threat = 3,
    .stop = 10.0,
};

static int id_rank(int id)
{
    return id >= 52 ? JA_BOMBS_R_XB + id - 52 : (ja_card_rank((uint8_t)id) + 11) % 13;
}

/* The cards a play takes, by rank, out of cnt into after; false if the hand
 * lacks them. Returns the number of cards through *shed. */
static bool take(const uint8_t cnt[RANKS], const ja_bombs_play *p, uint8_t after[RANKS], int *shed)
{
    uint8_t need[RANKS] = {0};
    switch (p->form) {
    case JA_BOMBS_FORM_SINGLE: need[p->rank] = 1; break;
    case JA_BOMBS_FORM_PAIR: need[p->rank] = 2; break;
    case JA_BOMBS_FORM_RUN:
    case JA_BOMBS_FORM_DRUN:
        for (int i = 0; i < p->len; i++)
            need[p->rank + i] = p->form == JA_BOMBS_FORM_RUN ? 1 : 2;
        break;
    case JA_BOMBS_FORM_BOMB: need[p->rank] = p->complete ? 2 : 3; break;
    case JA_BOMBS_FORM_BIG: need[p->rank] = 4; break;
    default: need[JA_BOMBS_R_XB] = need[JA_BOMBS_R_XR] = 1; break;
    }
    *shed = 0;
    for (int r = 0; r < RANKS; r++) {
        if (need[r] > cnt[r])
            return false;
        after[r] = (uint8_t)(cnt[r] - need[r]);
        *shed += need[r];
    }
    return true;
}

/* The length of the run of ranks from r (at most the ace) held at least min
 * times each. */
static int run_from(const uint8_t c[RANKS], int r, int min)
{
    int L = 0;
    while (r + L <= JA_BOMBS_R_A && c[r + L] >= min)
        L++;
    return L;
}

/* The cost of shedding a hand, by a greedy split into plays (see the top of
 * the file). */
static double hand_cost(const uint8_t in[RANKS])
{
    uint8_t c[RANKS];
    memcpy(c, in, RANKS);
    double cost = 0;
    if (c[JA_BOMBS_R_XB] && c[JA_BOMBS_R_XR]) {
        cost += BB.super;
        c[JA_BOMBS_R_XB] = c[JA_BOMBS_R_XR] = 0;
    }
    for (int r = 0; r <= JA_BOMBS_R_2; r++)
        if (c[r] >= 3) {
            cost += c[r] == 4 ? BB.big : BB.bomb;
            c[r] = 0;
        }
    for (int min = 2; min >= 1; min--)
        for (int r = 0; r <= JA_BOMBS_R_A; r++) {
            int L = run_from(c, r, min);
            if (L < 3)
                continue;
            cost += BB.run - BB.run_long * (L * min - 3);
            for (int i = 0; i < L; i++)
                c[r + i] = (uint8_t)(c[r + i] - min);
        }
    for (int r = 0; r < RANKS; r++) {
        int groups = c[r] / 2 + c[r] % 2; /* pairs, then a single */
        cost += groups * (BB.single_low - BB.control[r]);
    }
    return cost;
}

static int total(const uint8_t c[RANKS])
{
    int t = 0;
    for (int r = 0; r < RANKS; r++)
        t += c[r];
    return t;
}

/* The index of code in the legal list (the list holds it). */
static uint32_t index_of(const ja_decision *d, uint32_t code)
{
    for (uint32_t i = 0; i < d->n_legal; i++)
        if (d->legal[i].code == code)
            return i;
    return 0;
}

/* True when an opponent at the table who still holds cards has few left. */
static bool threatened_by(const ja_bombs_obs *o, int seat)
{
    return seat != o->seat && seat < JA_BOMBS_MAX_SEATS && o->count[seat] > 0 &&
           o->count[seat] <= BB.threat;
}

/* Every play the hand can lead, as codes in ascending order; returns how many. */
static uint32_t all_leads(const uint8_t c[RANKS], uint32_t *out)
{
    uint32_t n = 0;
    for (int r = 0; r < RANKS; r++)
        if (c[r])
            out[n++] = JA_BOMBS_SINGLE(r);
    for (int r = 0; r <= JA_BOMBS_R_2; r++)
        if (c[r] >= 2)
            out[n++] = JA_BOMBS_PAIR(r);
    for (int min = 1; min <= 2; min++)
        for (int L = 3; L <= JA_BOMBS_MAX_RUN; L++)
            for (int r = 0; r + L - 1 <= JA_BOMBS_R_A; r++)
                if (run_from(c, r, min) >= L)
                    out[n++] = min == 1 ? JA_BOMBS_RUN(r, L) : JA_BOMBS_DRUN(r, L);
    for (int r = 0; r <= JA_BOMBS_R_2; r++)
        if (c[r] >= 3)
            out[n++] = JA_BOMBS_BOMB(r);
    for (int r = 0; r <= JA_BOMBS_R_2; r++)
        if (c[r] == 4)
            out[n++] = JA_BOMBS_BIG(r);
    if (c[JA_BOMBS_R_XB] && c[JA_BOMBS_R_XR])
        out[n++] = JA_BOMBS_SUPER;
    return n;
}

/* The kind code (L1) of a play. */
static uint32_t kind_of(const ja_bombs_play *p)
{
    switch (p->form) {
    case JA_BOMBS_FORM_SINGLE: return JA_BOMBS_LEAD_SINGLE;
    case JA_BOMBS_FORM_PAIR: return JA_BOMBS_LEAD_PAIR;
    case JA_BOMBS_FORM_RUN: return JA_BOMBS_LEAD_RUN(p->len);
    case JA_BOMBS_FORM_DRUN: return JA_BOMBS_LEAD_DRUN(p->len);
    case JA_BOMBS_FORM_BOMB: return JA_BOMBS_LEAD_BOMB;
    case JA_BOMBS_FORM_BIG: return JA_BOMBS_LEAD_BIG;
    default: return JA_BOMBS_LEAD_SUPER;
    }
}

/* The value of leading a play: the cost of the hand kept, less a little per
 * card shed; going out beats everything. Lower is better. */
static double lead_score(const uint8_t c[RANKS], uint32_t code)
{
    ja_bombs_play p;
    uint8_t after[RANKS];
    int shed;
    if (!ja_bombs_play_decode(code, &p) || !take(c, &p, after, &shed))
        return 1e9;
    if (total(after) == 0)
        return -1e9;
    return hand_cost(after) - BB.per_card * shed;
}

/* L1 and L2: the best lead over every play the hand can make; in L1 its
 * kind, in L2 the best play of the kind chosen (the same play, as the
 * evaluation does not change in between). */
static uint32_t choose_lead(const ja_decision *d, const ja_bombs_obs *o, const uint8_t c[RANKS])
{
    uint32_t leads[192]; /* every lead any hand can make: at most 165 */
    uint32_t n = all_leads(c, leads), best = leads[0];
    double best_v = 1e18;
    for (uint32_t i = 0; i < n; i++) {
        ja_bombs_play p;
        ja_bombs_play_decode(leads[i], &p);
        if (o->stage == JA_BOMBS_STAGE_LEAD_RANK &&
            (p.form != o->lead_form || p.len != o->lead_len))
            continue;
        double v = lead_score(c, leads[i]);
        if (v < best_v) {
            best_v = v;
            best = leads[i];
        }
    }
    if (o->stage == JA_BOMBS_STAGE_LEAD_RANK)
        return index_of(d, best);
    ja_bombs_play p;
    ja_bombs_play_decode(best, &p);
    return index_of(d, kind_of(&p));
}

/* F and W: the best answer to the top play. `window` is true out of turn,
 * where declining is the safe choice. */
static uint32_t choose_answer(const ja_decision *d, const ja_bombs_obs *o, const uint8_t c[RANKS],
                              bool window)
{
    double now = hand_cost(c);
    bool threat = threatened_by(o, o->top_owner);
    uint32_t best = d->n_legal - 1; /* PASS or DECLINE, always last */
    double best_v = 0;
    for (uint32_t i = 0; i + 1 < d->n_legal; i++) {
        ja_bombs_play p;
        uint8_t after[RANKS];
        int shed;
        if (!ja_bombs_play_decode(d->legal[i].code, &p) || !take(c, &p, after, &shed))
            continue;
        if (total(after) == 0)
            return i; /* out */
        if (o->top_owner == o->seat)
            continue; /* never beat our own play, but to go out */
        double gain = now - hand_cost(after) + BB.per_card * shed;
        bool heavy = p.form >= JA_BOMBS_FORM_BOMB && !p.complete;
        if (heavy && !threat)
            continue;
        if (p.complete && p.rank >= BB.complete_max && !threat)
            continue;
        if (window && !p.complete && !threat)
            continue;
        double v = threat ? gain + BB.stop : gain;
        if (v >= BB.min_gain && v > best_v) {
            best_v = v;
            best = i;
        }
    }
    return best;
}

/* E4: the rank 3-10 whose card would lower the hand's cost most. */
static uint32_t choose_request(const ja_decision *d, const uint8_t c[RANKS])
{
    uint32_t best = d->n_legal - 1; /* NO_REQUEST */
    double best_v = hand_cost(c);
    for (uint32_t i = 0; i + 1 < d->n_legal; i++) {
        uint8_t more[RANKS];
        memcpy(more, c, RANKS);
        more[d->legal[i].code - JA_BOMBS_REQUEST(0)]++;
        double v = hand_cost(more);
        if (v < best_v) {
            best_v = v;
            best = i;
        }
    }
    return best;
}

/* E5: the rank whose card costs least to give away. */
static uint32_t choose_return(const ja_decision *d, const uint8_t c[RANKS])
{
    uint32_t best = 0;
    double best_v = 1e18;
    for (uint32_t i = 0; i < d->n_legal; i++) {
        uint8_t less[RANKS];
        memcpy(less, c, RANKS);
        less[d->legal[i].code - JA_BOMBS_RETURN(0)]--;
        double v = hand_cost(less);
        if (v < best_v) {
            best_v = v;
            best = i;
        }
    }
    return best;
}

int greedy_bombs_act(const ja_decision *d, uint32_t *out_index)
{
    const ja_bombs_obs *o = d->obs;
    uint8_t c[RANKS] = {0};
    for (int id = 0; id < JA_BOMBS_CARDS; id++)
        if (o->hand[id])
            c[id_rank(id)]++;
    uint32_t i;
    switch (o->stage) {
    case JA_BOMBS_STAGE_REVOLT: i = index_of(d, JA_BOMBS_REVOLT); break;
    case JA_BOMBS_STAGE_ACCEPT: i = index_of(d, JA_BOMBS_ACCEPT); break;
    case JA_BOMBS_STAGE_REQUEST: i = choose_request(d, c); break;
    case JA_BOMBS_STAGE_RETURN: i = choose_return(d, c); break;
    case JA_BOMBS_STAGE_LEAD:
    case JA_BOMBS_STAGE_LEAD_RANK: i = choose_lead(d, o, c); break;
    case JA_BOMBS_STAGE_FOLLOW: i = choose_answer(d, o, c, false); break;
    case JA_BOMBS_STAGE_WINDOW: i = choose_answer(d, o, c, true); break;
    default: return JA_EINVAL;
    }
    *out_index = i < d->n_legal ? i : 0;
    return JA_OK;
}
