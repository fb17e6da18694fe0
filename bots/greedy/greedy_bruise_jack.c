/* The `greedy` heuristic for Bruise Jack (greedy.h), written only against the
 * public SDK (ja_bruise_jack.h): it reads the observation and nothing else.
 *
 * BRUISE JACK (rules: docs/rules/bruise-jack.md). The bot knows its own
 * centre, so it knows each of its rows exactly; what it does not know is the
 * next card, and the other seats' centres. It values a position of its own
 * rows with one of two evaluations, and looks one card ahead:
 *
 *  - While another seat can still take cards, a utility of its own rows: Way 2
 *    the sum of the row scores (the game's own score: 16 for a Bruise Jack, 11
 *    for a Guile, the best total, 0 for a bust); Way 1 the sum over rows of a
 *    convex value of the row's rank, (rank - 3)^2 for totals 4..11, 81 for a
 *    Guile, 100 for a claimed Bruise Jack, 0 for a bust, because rows are
 *    compared one by one and only the highest rank counts;
 *  - Once every other seat is finished, the chance to win the hand against the
 *    tables they left, over every centre each could hold (cards it has not
 *    seen; in Way 1 none that would have made a claim): Way 2 by the sums,
 *    Way 1 averaged over the six row orders, row by row; a tie counts half.
 *
 * D1 (HIT or STAND): it hits when the expected value after the next card,
 * placed in its best open row, is higher than the value now (the next card is
 * uniform over the cards it has not seen). Standing is final, so a chance to
 * win of 0 always hits. D2: the open row with the best value after the card
 * (ties: the lowest row, i.e. the lowest code).
 *
 * What follows from it: it stops short of 11 only when the next card is more
 * likely to bust a good row than to improve one; a row it knows is bust
 * (through its centre) takes the cards nothing else wants, so it keeps
 * hitting while it has such a row; it never spoils a Way 2 Bruise Jack or a
 * Guile unless every other row is worse; at the end of a hand it stands as
 * soon as it has won and hits when it would lose.
 *
 * Cost: no allocation, no randomness, no mutable globals; at most 125 cards x
 * 3 rows evaluations per decision (each a few thousand operations in the
 * end game, once per distinct row values: bj_memo). */
#include "greedy.h"

#include "jackarena/ja_bruise_jack.h"
#include "jackarena/ja_error.h"

#include <string.h>

#define BJ_CARDS JA_BRUISE_JACK_CARDS
#define BJ_ROWS JA_BRUISE_JACK_ROWS
#define BJ_MAXS JA_BRUISE_JACK_MAX_SEATS
#define BJ_NONE JA_BRUISE_JACK_NONE
#define BJ_ROW_CARDS (1 + JA_BRUISE_JACK_MAX_UP + 1) /* centre, up cards, one more */

/* Way 1 utility of a row rank (index: the rank, 0 bust .. 13 claimed). */
static const double W1_UTILITY[14] = {0, 0, 0, 0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100};

/* A seat's rows as the bot sees them: every row card, the centre first. */
typedef struct bj_rows {
    uint8_t card[BJ_ROWS][BJ_ROW_CARDS];
    int k[BJ_ROWS];
    bool claimed[BJ_ROWS];
} bj_rows;

/* The other seats' possible tables at the end game: for each, the distinct
 * row values it can have over the centres it may hold, with their weights. */
typedef struct bj_field {
    int n_opp;
    int distinct[BJ_MAXS - 1], total[BJ_MAXS - 1];
    uint8_t val[BJ_MAXS - 1][BJ_CARDS][BJ_ROWS];
    uint8_t weight[BJ_MAXS - 1][BJ_CARDS];
} bj_field;

/* p_win's answers in this decision, by the bot's row values (packed in a
 * key): an end-game decision asks about the same few row values again and
 * again (every card x every open row), and each answer costs a pass over
 * the field; a memo keeps the answers identical at a fraction of the cost. */
#define BJ_MEMO 32
typedef struct bj_memo {
    int n;
    uint32_t key[BJ_MEMO];
    double p[BJ_MEMO];
} bj_memo;

/* Everything one decision needs, computed once. */
typedef struct bj_ctx {
    const ja_bruise_jack_obs *o;
    int me, way;
    bool guile;
    bj_rows mine;
    uint8_t mine_v[BJ_ROWS]; /* the values of its rows now */
    uint8_t pool[BJ_CARDS]; /* cards not seen: the next card is one of them */
    int m;
    bool end_game;          /* every other seat dealt in is finished */
    int stride;             /* 1: every unseen card; k: every k-th (the cheap playout rule) */
    bj_field field;
    bj_memo memo;           /* end game: p_win by row values */
} bj_ctx;

static int obs_row(int seat, int r) { return seat * BJ_ROWS + r; }

/* The rows of seat p with centre c (BJ_NONE: no centre). */
static void rows_of(const ja_bruise_jack_obs *o, int p, uint8_t c, bj_rows *out)
{
    memset(out, 0, sizeof *out);
    for (int r = 0; r < BJ_ROWS; r++) {
        int i = obs_row(p, r);
        out->claimed[r] = o->claimed[i] != 0;
        if (c != BJ_NONE)
            out->card[r][out->k[r]++] = c;
        for (int j = 0; j < o->up_count[i] && j < JA_BRUISE_JACK_MAX_UP; j++)
            out->card[r][out->k[r]++] = o->up[i * JA_BRUISE_JACK_MAX_UP + j];
    }
}

static int row_value(const bj_ctx *x, const bj_rows *w, int r)
{
    return ja_bruise_jack_row_value(x->way, x->guile, x->way == 1 && w->claimed[r], w->card[r],
                                    w->k[r], r);
}

/* ---- The end game: the chance to win ------------------------------------------- */

/* True if a Way 1 centre c of seat p would have been claimed with the first
 * up card of one of its unclaimed rows (so p cannot hold it). */
static bool would_claim(const ja_bruise_jack_obs *o, int p, uint8_t c)
{
    for (int r = 0; r < BJ_ROWS; r++) {
        int i = obs_row(p, r);
        if (!o->claimed[i] && o->up_count[i] > 0 &&
            ja_bruise_jack_pair(c, o->up[i * JA_BRUISE_JACK_MAX_UP], r))
            return true;
    }
    return false;
}

/* Adds one outcome (row values v) of opponent q to the field. */
static void field_add(bj_field *f, int q, const uint8_t *v)
{
    f->total[q]++;
    for (int i = 0; i < f->distinct[q]; i++)
        if (memcmp(f->val[q][i], v, BJ_ROWS) == 0) {
            f->weight[q][i]++;
            return;
        }
    memcpy(f->val[q][f->distinct[q]], v, BJ_ROWS);
    f->weight[q][f->distinct[q]++] = 1;
}

/* Fills the field: for each other seat dealt in, its row values for each
 * centre it may hold (one outcome when it has none). */
static void build_field(bj_ctx *x)
{
    const ja_bruise_jack_obs *o = x->o;
    bj_field *f = &x->field;
    for (int p = 0; p < o->n_seats; p++) {
        if (p == x->me || !((o->active >> p) & 1u))
            continue;
        int q = f->n_opp++;
        for (int i = 0; i < (o->has_centre[p] ? x->m : 1); i += x->stride) {
            uint8_t c = o->has_centre[p] ? x->pool[i] : BJ_NONE, v[BJ_ROWS];
            if (c != BJ_NONE && x->way == 1 && would_claim(o, p, c))
                continue;
            bj_rows w;
            rows_of(o, p, c, &w);
            for (int r = 0; r < BJ_ROWS; r++)
                v[r] = (uint8_t)row_value(x, &w, r);
            field_add(f, q, v);
        }
    }
}

/* -1, 0 or 1: row values a against b, Way 1 row by row in `order`, Way 2 by
 * their sums. */
static int compare(int way, const uint8_t *a, const uint8_t *b, const uint8_t *order)
{
    if (way == 2) {
        int sa = a[0] + a[1] + a[2], sb = b[0] + b[1] + b[2];
        return (sa > sb) - (sa < sb);
    }
    for (int i = 0; i < BJ_ROWS; i++) {
        int r = order[i];
        if (a[r] != b[r])
            return a[r] < b[r] ? -1 : 1;
    }
    return 0;
}

/* The chance that the bot's row values `mv` win the hand (a tie counts half
 * against each seat tied), the other seats' centres independent; Way 1
 * averaged over the six row orders. */
static double p_win(const bj_ctx *x, const uint8_t *mv)
{
    static const uint8_t ORDERS[6][BJ_ROWS] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                               {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const bj_field *f = &x->field;
    int n_orders = x->way == 1 ? 6 : 1;
    double total = 0;
    for (int k = 0; k < n_orders; k++) {
        double p = 1.0;
        for (int q = 0; q < f->n_opp && p > 0; q++) {
            double s = 0;
            for (int i = 0; i < f->distinct[q]; i++) {
                int c = compare(x->way, mv, f->val[q][i], ORDERS[k]);
                s += f->weight[q][i] * (c > 0 ? 1.0 : c == 0 ? 0.5 : 0.0);
            }
            if (f->total[q])
                p *= s / f->total[q];
        }
        total += p;
    }
    return total / n_orders;
}

/* ---- Evaluation ------------------------------------------------------------------ */

/* p_win through the decision's memo (full: computed without it). */
static double p_win_memo(bj_ctx *x, const uint8_t *mv)
{
    bj_memo *m = &x->memo;
    uint32_t key = (uint32_t)mv[0] | (uint32_t)mv[1] << 8 | (uint32_t)mv[2] << 16;
    for (int i = 0; i < m->n; i++)
        if (m->key[i] == key)
            return m->p[i];
    double p = p_win(x, mv);
    if (m->n < BJ_MEMO) {
        m->key[m->n] = key;
        m->p[m->n++] = p;
    }
    return p;
}

/* The value of the bot's row values v: the chance to win in the end game,
 * else the utility of its own rows. */
static double evaluate(bj_ctx *x, const uint8_t *v)
{
    if (x->end_game)
        return p_win_memo(x, v);
    double u = 0;
    for (int r = 0; r < BJ_ROWS; r++)
        u += x->way == 1 ? W1_UTILITY[v[r]] : v[r];
    return u;
}

/* The value after card c goes into open row r: only that row's value
 * changes (the others are x->mine_v). */
static double value_after(bj_ctx *x, uint8_t c, int r)
{
    uint8_t v[BJ_ROWS], cards[BJ_ROW_CARDS];
    int k = x->mine.k[r];
    memcpy(cards, x->mine.card[r], (size_t)k);
    cards[k++] = c;
    memcpy(v, x->mine_v, sizeof v);
    v[r] = (uint8_t)ja_bruise_jack_row_value(x->way, x->guile, x->way == 1 && x->mine.claimed[r],
                                             cards, k, r);
    return evaluate(x, v);
}

/* The best open row for card c (lowest row on ties) and its value. */
static int best_row(bj_ctx *x, uint8_t c, double *value)
{
    int best = -1;
    double bv = 0;
    for (int r = 0; r < BJ_ROWS; r++) {
        if (!x->o->open[obs_row(x->me, r)])
            continue;
        double v = value_after(x, c, r);
        if (best < 0 || v > bv + 1e-12) {
            best = r;
            bv = v;
        }
    }
    *value = bv;
    return best;
}

/* Builds the context; JA_EFORMAT for an observation the bot cannot read. */
static int prepare(bj_ctx *x, const ja_bruise_jack_obs *o, int stride)
{
    memset(x, 0, sizeof *x);
    x->stride = stride;
    if (o->n_seats < 2 || o->n_seats > BJ_MAXS || o->seat >= o->n_seats || o->way < 1 ||
        o->way > 2 || o->centre == BJ_NONE)
        return JA_EFORMAT;
    x->o = o;
    x->me = o->seat;
    x->way = o->way;
    x->guile = o->guile != 0;
    rows_of(o, x->me, o->centre, &x->mine);
    for (int r = 0; r < BJ_ROWS; r++)
        x->mine_v[r] = (uint8_t)row_value(x, &x->mine, r);
    bool seen[BJ_CARDS] = {false};
    for (int i = 0; i < o->n_seats * BJ_ROWS; i++)
        for (int j = 0; j < o->up_count[i] && j < JA_BRUISE_JACK_MAX_UP; j++)
            if (o->up[i * JA_BRUISE_JACK_MAX_UP + j] < BJ_CARDS)
                seen[o->up[i * JA_BRUISE_JACK_MAX_UP + j]] = true;
    for (int i = 0; i < o->discard_count && i < JA_BRUISE_JACK_MAX_DISCARD; i++)
        if (o->discard[i] < BJ_CARDS)
            seen[o->discard[i]] = true;
    if (o->centre < BJ_CARDS)
        seen[o->centre] = true;
    if (o->drawn < BJ_CARDS)
        seen[o->drawn] = true;
    for (int c = 0; c < BJ_CARDS; c++)
        if (!seen[c])
            x->pool[x->m++] = (uint8_t)c;
    x->end_game = true;
    for (int p = 0; p < o->n_seats; p++) {
        if (p == x->me || !((o->active >> p) & 1u) || o->stood[p])
            continue;
        for (int r = 0; r < BJ_ROWS; r++)
            if (o->open[obs_row(p, r)])
                x->end_game = false;
    }
    if (x->end_game)
        build_field(x);
    return JA_OK;
}

/* The index of code in the legal list, or -1. */
static int index_of(const ja_decision *d, uint32_t code)
{
    for (uint32_t i = 0; i < d->n_legal; i++)
        if (d->legal[i].code == code)
            return (int)i;
    return -1;
}

/* The decision with the unseen cards (the next card, the other centres)
 * taken every stride-th: 1 is the heuristic itself. */
static int decide(const ja_decision *d, uint32_t *out_index, int stride)
{
    const ja_bruise_jack_obs *o = d->obs;
    bj_ctx x;
    if (!o || prepare(&x, o, stride) != JA_OK)
        return JA_EFORMAT;
    double v;
    int choice;
    if (o->stage == JA_BRUISE_JACK_STAGE_PLACE) {
        int r = o->drawn < BJ_CARDS ? best_row(&x, o->drawn, &v) : -1;
        choice = r < 0 ? -1 : index_of(d, JA_BRUISE_JACK_PLACE(r));
    } else {
        double now = evaluate(&x, x.mine_v), after = 0;
        int n = 0;
        for (int i = 0; i < x.m; i += stride, n++) {
            best_row(&x, x.pool[i], &v);
            after += v;
        }
        bool hit = n > 0 && (after / n > now + 1e-9 || (x.end_game && now < 1e-12));
        choice = hit ? index_of(d, JA_BRUISE_JACK_HIT) : -1;
        if (choice < 0)
            choice = index_of(d, JA_BRUISE_JACK_STAND);
    }
    if (choice < 0)
        return JA_EFORMAT;
    *out_index = (uint32_t)choice;
    return JA_OK;
}

int greedy_bruise_jack_act(const ja_decision *d, uint32_t *out_index)
{
    return decide(d, out_index, 1);
}

/* Why a cheap variant: the end game weighs every card for every hidden
 * centre (up to 125 x 3 rows x 125 centres x 6 row orders), which makes the
 * heuristic too slow for a playout policy (ismcts' rollout). Every 7th unseen
 * card is a fair sample of them (7 is prime to the 5 levels of an id),
 * about 50 times cheaper. */
int greedy_bruise_jack_fast_act(const ja_decision *d, uint32_t *out_index)
{
    return decide(d, out_index, 7);
}

int greedy_bruise_jack_stride_act(const ja_decision *d, uint32_t *out_index, int stride)
{
    if (stride < 1 || stride > 7)
        return JA_EINVAL;
    return decide(d, out_index, stride);
}
