/* Swiss pairing and the knockout (pairing.h, docs/tournament-plan.md). */
#include "pairing.h"

#include <stdlib.h>
#include <string.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "ja_xalloc.h"
#include "ladder_err.h"

/* The stream of the swiss order's tie-breaks: the key of participant s in
 * round r is ja_seed_derive(seed, STREAM_PAIR, r * LADDER_MAX_PARTICIPANTS
 * + s). */
#define STREAM_PAIR JA_TAG('P', 'A', 'I', 'R')

/* Search steps allowed to each level of the swiss search before it gives
 * up and allows more rematches (a bound on the time, the same everywhere:
 * the result stays deterministic). */
#define SEARCH_BUDGET 200000u

/* ---- Groups ------------------------------------------------------------------ */

/* The matches of one (round, combo): its members (ascending), each one's
 * total score and first places, and whether all its matches are done. */
typedef struct group {
    uint32_t round, combo, k, n_matches;
    uint16_t member[JA_MAX_SEATS];
    int64_t total[JA_MAX_SEATS];
    uint32_t wins[JA_MAX_SEATS];
    bool done;
} group;

static int cmp_u16(const void *a, const void *b)
{
    return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static uint32_t member_at(const group *g, uint16_t slot)
{
    uint32_t i = 0;
    while (i < g->k && g->member[i] != slot)
        i++;
    return i;
}

/* Adds match m to group g (its first when g is empty). */
static void group_add(group *g, const ladder_played *m)
{
    if (g->n_matches++ == 0) {
        g->round = m->round;
        g->combo = m->combo;
        g->k = m->n_seats;
        g->done = true;
        memcpy(g->member, m->slot, m->n_seats * sizeof *g->member);
        qsort(g->member, g->k, sizeof *g->member, cmp_u16);
    }
    g->done &= m->done;
    if (!m->done)
        return;
    for (uint32_t s = 0; s < m->n_seats; s++) {
        uint32_t i = member_at(g, m->slot[s]);
        if (i == g->k)
            continue; /* not this group's: cannot happen in a stored plan */
        g->total[i] += m->score[s];
        g->wins[i] += m->place[s] == 1;
    }
}

/* The groups of hist, in number order (a new array; *n its length). */
static group *groups_of(const ladder_played *h, uint32_t n, uint32_t *n_groups)
{
    group *g = ja_xcalloc(n ? n : 1, sizeof *g);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (k == 0 || g[k - 1].round != h[i].round || g[k - 1].combo != h[i].combo)
            k++;
        group_add(&g[k - 1], &h[i]);
    }
    *n_groups = k;
    return g;
}

/* Member i's swiss points in g: 2 for each member outscored, 1 for a tie. */
static uint32_t group_points(const group *g, uint32_t i)
{
    uint32_t pts = 0;
    for (uint32_t j = 0; j < g->k; j++)
        if (j != i)
            pts += g->total[i] > g->total[j] ? 2u : g->total[i] == g->total[j] ? 1u : 0u;
    return pts;
}

uint32_t ladder_rounds_total(const ladder_plan_params *p)
{
    if (p->format == LADDER_FORMAT_SWISS)
        return p->rounds;
    if (p->format != LADDER_FORMAT_KNOCKOUT)
        return 1;
    uint32_t r;
    ladder_knockout_shape(p->n_participants, p->n_seats, &r, NULL);
    return r;
}

/* ---- Swiss ------------------------------------------------------------------- */

/* What the rounds before say: each participant's points, byes, the groups
 * it met each other one in, and its Buchholz (ladder_swiss_standings). */
typedef struct swiss_state {
    uint32_t n, k;
    uint32_t *points, *byes, *played, *buchholz;
    int64_t *score;
    uint16_t *met;  /* met[a * n + b]: groups shared */
} swiss_state;

static void swiss_init(swiss_state *s, const ladder_plan_params *p)
{
    s->n = p->n_participants;
    s->k = p->n_seats;
    s->points = ja_xcalloc(s->n, sizeof *s->points);
    s->byes = ja_xcalloc(s->n, sizeof *s->byes);
    s->played = ja_xcalloc(s->n, sizeof *s->played);
    s->buchholz = ja_xcalloc(s->n, sizeof *s->buchholz);
    s->score = ja_xcalloc(s->n, sizeof *s->score);
    s->met = ja_xcalloc((size_t)s->n * s->n, sizeof *s->met);
}

static void swiss_free(swiss_state *s)
{
    free(s->points);
    free(s->byes);
    free(s->played);
    free(s->buchholz);
    free(s->score);
    free(s->met);
}

/* The byes of round r: the participants of no group of that round (only
 * for a round whose groups are all there and done). bye[i] is set. */
static void round_byes(const swiss_state *s, const group *g, uint32_t ng, uint32_t r,
                       bool *bye)
{
    for (uint32_t i = 0; i < s->n; i++)
        bye[i] = true;
    for (uint32_t j = 0; j < ng; j++)
        if (g[j].round == r)
            for (uint32_t i = 0; i < g[j].k; i++)
                bye[g[j].member[i]] = false;
}

/* Adds the complete rounds of g (those whose groups are all done) to s:
 * points, byes, meetings; *before[i] (when not NULL) is i's points at the
 * start of each round's bye, for the Buchholz of byes. Returns the rounds
 * added. */
static uint32_t swiss_add_rounds(swiss_state *s, const group *g, uint32_t ng,
                                 uint32_t **bye_before)
{
    uint32_t rounds = 0;
    bool *bye = ja_xcalloc(s->n, sizeof *bye);
    for (uint32_t from = 0; from < ng; rounds++) {
        uint32_t to = from;
        bool done = true;
        while (to < ng && g[to].round == rounds)
            done &= g[to++].done;
        if (!done || to == from)
            break;
        round_byes(s, g, ng, rounds, bye);
        for (uint32_t i = 0; i < s->n; i++)
            if (bye[i]) {
                if (bye_before)
                    bye_before[i][rounds + 1] = s->points[i] + 1; /* +1: a bye there */
                s->byes[i]++;
                s->points[i] += 2 * (s->k - 1);
            }
        for (uint32_t j = from; j < to; j++)
            for (uint32_t a = 0; a < g[j].k; a++) {
                uint16_t sa = g[j].member[a];
                s->points[sa] += group_points(&g[j], a);
                s->played[sa]++;
                s->score[sa] += g[j].total[a];
                for (uint32_t b = 0; b < g[j].k; b++)
                    if (b != a)
                        s->met[(size_t)sa * s->n + g[j].member[b]]++;
            }
        from = to;
    }
    free(bye);
    return rounds;
}

/* The participants in pairing order: points down, then the round's
 * seeded key. */
typedef struct ranked {
    uint32_t slot, points;
    uint64_t key;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->points != y->points)
        return x->points > y->points ? -1 : 1;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The search for a round's groups: list[0 .. n-1] in pairing order, used[]
 * those placed, grp the groups as found (list indices). */
typedef struct search {
    const swiss_state *s;
    const uint32_t *list;
    uint32_t n, k, level, steps;
    bool *used;
    uint32_t *grp;
} search;

/* May list[a] and list[b] share a group at this level (they met at most
 * `level` times)? */
static bool allowed(const search *se, uint32_t a, uint32_t b)
{
    return se->s->met[(size_t)se->list[a] * se->s->n + se->list[b]] <= se->level;
}

static bool place_groups(search *se, uint32_t filled);

/* Completes group g (its first `have` members chosen) from the unplaced
 * participants at `from` and after, then the groups after it. */
static bool choose(search *se, uint32_t g, uint32_t have, uint32_t from)
{
    uint32_t *m = &se->grp[g * se->k];
    if (have == se->k)
        return place_groups(se, g + 1);
    for (uint32_t c = from; c < se->n; c++) {
        if (se->used[c] || ++se->steps > SEARCH_BUDGET)
            continue;
        bool ok = true;
        for (uint32_t i = 0; ok && i < have; i++)
            ok = allowed(se, m[i], c);
        if (!ok)
            continue;
        se->used[c] = true;
        m[have] = c;
        if (choose(se, g, have + 1, c + 1))
            return true;
        se->used[c] = false;
        if (se->steps > SEARCH_BUDGET)
            return false;
    }
    return false;
}

/* Places groups filled, filled + 1, ...: each starts with the first
 * participant not placed yet. */
static bool place_groups(search *se, uint32_t filled)
{
    if (filled * se->k == se->n)
        return true;
    uint32_t first = 0;
    while (se->used[first])
        first++;
    se->used[first] = true;
    se->grp[filled * se->k] = first;
    if (choose(se, filled, 1, first + 1))
        return true;
    se->used[first] = false;
    return false;
}

/* The round's byes (N mod K of them): the participants with the fewest
 * byes so far, the lowest in the order first; marked in out[]. */
static void pick_byes(const swiss_state *s, const ranked *order, bool *out)
{
    for (uint32_t b = 0; b < s->n % s->k; b++) {
        int best = -1;
        for (uint32_t i = s->n; i-- > 0;)
            if (!out[order[i].slot] && (best < 0 || s->byes[order[i].slot] <
                                                         s->byes[order[best].slot]))
                best = (int)i;
        out[order[best].slot] = true;
    }
}

/* The groups of the next swiss round into grp (participant slots, K per
 * group, in the order found): Monrad order with backtracking, the fewest
 * rematches first. */
static void swiss_groups(const swiss_state *s, const ladder_plan_params *p, uint32_t round,
                         uint32_t *grp)
{
    ranked *order = ja_xcalloc(s->n, sizeof *order);
    for (uint32_t i = 0; i < s->n; i++)
        order[i] = (ranked){i, s->points[i],
                            ja_seed_derive(p->seed, STREAM_PAIR,
                                           (uint64_t)round * LADDER_MAX_PARTICIPANTS + i)};
    qsort(order, s->n, sizeof *order, cmp_ranked);
    bool *bye = ja_xcalloc(s->n, sizeof *bye);
    pick_byes(s, order, bye);
    uint32_t *list = ja_xcalloc(s->n, sizeof *list), n = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (!bye[order[i].slot])
            list[n++] = order[i].slot;
    bool *used = ja_xcalloc(n, sizeof *used);
    search se = {s, list, n, s->k, 0, 0, used, grp};
    /* Level L allows pairs that met L times before; the last level allows
     * every pair, where the first choice always completes. */
    while (!place_groups(&se, 0)) {
        se.level++;
        se.steps = 0;
        memset(used, 0, n * sizeof *used);
    }
    for (uint32_t i = 0; i < n; i++)
        grp[i] = list[grp[i]];
    free(used);
    free(list);
    free(bye);
    free(order);
}

/* Round `round` of a swiss plan from its history of complete rounds. */
static int swiss_round(const ladder_plan_params *p, const group *g, uint32_t ng, uint32_t round,
                       uint32_t n_hist, ladder_plan_match **out, uint32_t *n_out, char *err,
                       size_t cap)
{
    swiss_state s;
    swiss_init(&s, p);
    uint32_t have = swiss_add_rounds(&s, g, ng, NULL);
    uint32_t per_group = ladder_seating_orders(p->seating, p->n_seats) * p->n_seats;
    uint32_t groups = p->n_participants / p->n_seats;
    if (have != round || ng != round * groups || n_hist != round * groups * per_group) {
        ladder_set_err(err, cap, "swiss round %u: the rounds before are not all played (%u of %u)",
                       round + 1, have, round);
        swiss_free(&s);
        return JA_EINVAL;
    }
    uint32_t *grp = ja_xcalloc((size_t)groups * p->n_seats, sizeof *grp);
    swiss_groups(&s, p, round, grp);
    ladder_plan_match *m = ja_xcalloc((size_t)groups * per_group, sizeof *m);
    for (uint32_t j = 0; j < groups; j++) {
        uint16_t combo[JA_MAX_SEATS];
        for (uint32_t i = 0; i < p->n_seats; i++)
            combo[i] = (uint16_t)grp[j * p->n_seats + i];
        qsort(combo, p->n_seats, sizeof *combo, cmp_u16);
        for (uint32_t r = 0; r < per_group; r++)
            ladder_plan_fill(p, combo, n_hist + j * per_group + r, round, j, r,
                             &m[j * per_group + r]);
    }
    free(grp);
    swiss_free(&s);
    *out = m;
    *n_out = groups * per_group;
    return JA_OK;
}

static int cmp_swiss_row(const void *a, const void *b)
{
    const ladder_swiss_row *x = a, *y = b;
    if (x->points != y->points)
        return x->points > y->points ? -1 : 1;
    if (x->buchholz != y->buchholz)
        return x->buchholz > y->buchholz ? -1 : 1;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Buchholz: the sum over a participant's groups of the other members'
 * points (so K - 1 opponents' points a group; two seats: the opponents'
 * points). A bye counts as a virtual opponent with the participant's
 * points at the start of that round who draws every later round (FIDE
 * Tie-Break Regulations, unplayed rounds), K - 1 times. */
static void swiss_buchholz(swiss_state *s, const ladder_plan_params *p, const group *g,
                           uint32_t ng, uint32_t rounds, uint32_t **bye_before)
{
    for (uint32_t j = 0; j < ng; j++) {
        if (g[j].round >= rounds)
            break;
        for (uint32_t a = 0; a < g[j].k; a++)
            for (uint32_t b = 0; b < g[j].k; b++)
                if (b != a)
                    s->buchholz[g[j].member[a]] += s->points[g[j].member[b]];
    }
    uint32_t total = p->rounds < rounds ? rounds : p->rounds;
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t r = 0; r < rounds; r++)
            if (bye_before[i][r + 1])
                s->buchholz[i] += (bye_before[i][r + 1] - 1 + (total - r - 1) * (s->k - 1)) *
                                  (s->k - 1);
}

void ladder_swiss_standings(const ladder_plan_params *p, const ladder_played *hist,
                            uint32_t n_hist, ladder_swiss_row *rows)
{
    uint32_t ng;
    group *g = groups_of(hist, n_hist, &ng);
    swiss_state s;
    swiss_init(&s, p);
    uint32_t **bye_before = ja_xcalloc(s.n, sizeof *bye_before);
    for (uint32_t i = 0; i < s.n; i++)
        bye_before[i] = ja_xcalloc((size_t)ng + 2, sizeof **bye_before);
    uint32_t rounds = swiss_add_rounds(&s, g, ng, bye_before);
    swiss_buchholz(&s, p, g, ng, rounds, bye_before);
    for (uint32_t i = 0; i < s.n; i++) {
        rows[i] = (ladder_swiss_row){i, s.points[i], s.buchholz[i], s.score[i], s.played[i],
                                     s.byes[i]};
        free(bye_before[i]);
    }
    qsort(rows, s.n, sizeof *rows, cmp_swiss_row);
    free(bye_before);
    swiss_free(&s);
    free(g);
}

/* ---- Knockout ------------------------------------------------------------------ */

/* The bracket's size: the power of two at or above n. */
static uint32_t bracket_size(uint32_t n)
{
    uint32_t b = 1;
    while (b < n)
        b *= 2;
    return b;
}

/* The seeds (1-based) of the first round's positions in bracket order, so
 * that seeds 1 and 2 can meet only in the final: from (1, 2), each seed s
 * of a bracket of size b is followed by 2b + 1 - s. */
static void bracket_seeds(uint32_t size, uint32_t *seeds)
{
    uint32_t b = 1;
    seeds[0] = 1;
    while (b < size) {
        for (uint32_t i = b; i-- > 0;) {
            seeds[2 * i] = seeds[i];
            seeds[2 * i + 1] = 2 * b + 1 - seeds[i];
        }
        b *= 2;
    }
}

/* Decides tie t from its group g (NULL: not played yet): the higher total
 * score goes through, then the more matches won, then the better seed (the
 * lower slot). */
static void decide(ladder_ko_tie *t, const group *g)
{
    if (t->slot[0] < 0 || t->slot[1] < 0) {
        t->bye = t->slot[0] >= 0 || t->slot[1] >= 0;
        t->winner = t->slot[0] >= 0 ? t->slot[0] : t->slot[1];
        t->through[t->slot[0] >= 0 ? 0 : 1] = t->bye;
        return;
    }
    if (!g || !g->done)
        return;
    for (int s = 0; s < 2; s++) {
        uint32_t i = member_at(g, (uint16_t)t->slot[s]);
        t->total[s] = i < g->k ? g->total[i] : 0;
        t->wins[s] = i < g->k ? g->wins[i] : 0;
    }
    int w;
    if (t->total[0] != t->total[1])
        w = t->total[0] > t->total[1] ? 0 : 1;
    else if (t->wins[0] != t->wins[1])
        w = t->wins[0] > t->wins[1] ? 0 : 1;
    else
        w = t->slot[0] < t->slot[1] ? 0 : 1;
    t->winner = t->slot[w];
    t->through[w] = true;
    t->played = true;
}

static const group *find_group(const group *g, uint32_t ng, uint32_t round, uint32_t combo)
{
    for (uint32_t j = 0; j < ng; j++)
        if (g[j].round == round && g[j].combo == combo)
            return &g[j];
    return NULL;
}

/* The bracket from groups g: size - 1 ties, round by round. */
static ladder_ko_tie *bracket(const ladder_plan_params *p, const group *g, uint32_t ng,
                              uint32_t *n_out)
{
    uint32_t size = bracket_size(p->n_participants);
    uint32_t *seeds = ja_xcalloc(size, sizeof *seeds);
    bracket_seeds(size, seeds);
    ladder_ko_tie *t = ja_xcalloc(size, sizeof *t);
    uint32_t n = 0, prev = 0;
    for (uint32_t r = 0, width = size / 2; width >= 1; r++, width /= 2) {
        for (uint32_t j = 0; j < width; j++) {
            ladder_ko_tie *x = &t[n + j];
            *x = (ladder_ko_tie){.round = r, .position = j, .n = 2, .slot = {-1, -1},
                                 .advance = 1, .winner = -1};
            for (int s = 0; s < 2; s++) {
                if (r == 0)
                    x->slot[s] = seeds[2 * j + s] <= p->n_participants
                                     ? (int32_t)seeds[2 * j + s] - 1 : -1;
                else
                    x->slot[s] = t[prev + 2 * j + s].winner;
            }
            if (r > 0 && (x->slot[0] < 0 || x->slot[1] < 0))
                continue; /* a side not decided yet */
            decide(x, find_group(g, ng, r, j));
        }
        prev = n;
        n += width;
    }
    free(seeds);
    *n_out = n;
    return t;
}

/* ---- Knockout at three seats or more ---------------------------------------- */

/* Orders the members of table t by its group g: the higher total score,
 * then the more matches won, then the better seed (the lower slot); the
 * first t->advance go through. Undecided while g is not all done. */
static void table_decide(ladder_ko_tie *t, const group *g)
{
    if (!g || !g->done)
        return;
    uint32_t by[JA_MAX_SEATS];
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t m = member_at(g, (uint16_t)t->slot[i]);
        t->total[i] = m < g->k ? g->total[m] : 0;
        t->wins[i] = m < g->k ? g->wins[m] : 0;
        uint32_t j = i;
        for (; j > 0; j--) { /* insertion: members are few */
            const uint32_t o = by[j - 1];
            bool ahead = t->total[i] != t->total[o] ? t->total[i] > t->total[o]
                         : t->wins[i] != t->wins[o] ? t->wins[i] > t->wins[o]
                                                     : t->slot[i] < t->slot[o];
            if (!ahead)
                break;
            by[j] = o;
        }
        by[j] = i;
    }
    for (uint32_t i = 0; i < t->advance; i++)
        t->through[by[i]] = true;
    t->winner = t->slot[by[0]];
    t->played = true;
}

/* Round r of a K-seat knockout whose field is field[0 .. *n-1] (slots
 * ascending: best seed first): its tables, then its byes, written at
 * t[*nt ..]. The best seeds have the byes; the others sit at the tables by
 * snake seeding (table 0, 1, ..., T-1, then T-1, ..., 0, ...); the round's
 * eliminations are shared as evenly as they can be, the later tables
 * eliminating one more. When every table is decided the field becomes the
 * next round's and true is returned. */
static bool table_round(const ladder_plan_params *p, const group *g, uint32_t ng, uint32_t r,
                        uint32_t *field, uint32_t *n, ladder_ko_tie *t, uint32_t *nt)
{
    uint32_t k = p->n_seats, tables, next = ladder_knockout_next(*n, k, &tables);
    uint32_t byes = *n - tables * k, out = *n - next, q = out / tables, extra = out % tables;
    ladder_ko_tie *x = &t[*nt];
    for (uint32_t j = 0; j < tables; j++)
        x[j] = (ladder_ko_tie){.round = r, .position = j, .n = k, .winner = -1,
                               .advance = k - q - (j >= tables - extra)};
    for (uint32_t i = 0; i < tables * k; i++) {
        uint32_t pass = i / tables, pos = i % tables;
        x[pass % 2 ? tables - 1 - pos : pos].slot[pass] = (int32_t)field[byes + i];
    }
    bool decided = true;
    for (uint32_t j = 0; j < tables; j++) {
        table_decide(&x[j], find_group(g, ng, r, j));
        decided &= x[j].played;
    }
    for (uint32_t b = 0; b < byes; b++)
        x[tables + b] = (ladder_ko_tie){.round = r, .position = tables + b, .n = 1,
                                        .slot = {(int32_t)field[b]}, .advance = 1,
                                        .through = {true}, .winner = (int32_t)field[b],
                                        .bye = true};
    *nt += tables + byes;
    if (!decided)
        return false;
    uint32_t m = 0;
    for (uint32_t j = 0; j < tables + byes; j++)
        for (uint32_t i = 0; i < x[j].n; i++)
            if (x[j].through[i])
                field[m++] = (uint32_t)x[j].slot[i];
    for (uint32_t i = 1; i < m; i++) /* ascending: the next round's seeds */
        for (uint32_t j = i; j > 0 && field[j - 1] > field[j]; j--) {
            uint32_t s = field[j];
            field[j] = field[j - 1];
            field[j - 1] = s;
        }
    *n = m;
    return true;
}

/* The K-seat knockout from groups g: the rounds as far as they are
 * decided, each one's tables then byes. */
static ladder_ko_tie *tables_of(const ladder_plan_params *p, const group *g, uint32_t ng,
                                uint32_t *n_out)
{
    uint32_t rounds, n = p->n_participants, nt = 0;
    ladder_knockout_shape(n, p->n_seats, &rounds, NULL);
    ladder_ko_tie *t = ja_xcalloc((size_t)n * rounds + 1, sizeof *t);
    uint32_t *field = ja_xcalloc(n, sizeof *field);
    for (uint32_t i = 0; i < n; i++)
        field[i] = i;
    for (uint32_t r = 0; r < rounds && table_round(p, g, ng, r, field, &n, t, &nt); r++)
        ;
    free(field);
    *n_out = nt;
    return t;
}

/* The knockout's ties or tables from groups g (ladder_knockout_bracket). */
static ladder_ko_tie *knockout_of(const ladder_plan_params *p, const group *g, uint32_t ng,
                                  uint32_t *n_out)
{
    return p->n_seats == 2 ? bracket(p, g, ng, n_out) : tables_of(p, g, ng, n_out);
}

int ladder_knockout_bracket(const ladder_plan_params *p, const ladder_played *hist,
                            uint32_t n_hist, ladder_ko_tie **out, uint32_t *n_out)
{
    if (p->format != LADDER_FORMAT_KNOCKOUT || p->n_participants < 2 || p->n_seats < 2 ||
        p->n_seats > JA_MAX_SEATS || p->n_seats > p->n_participants)
        return JA_EINVAL;
    uint32_t ng;
    group *g = groups_of(hist, n_hist, &ng);
    *out = knockout_of(p, g, ng, n_out);
    free(g);
    return JA_OK;
}

/* Round `round` of a knockout plan: the ties or tables of that round with
 * every member known, in position order, `rounds` deals each in every
 * seat order and rotation. */
static int knockout_round(const ladder_plan_params *p, const group *g, uint32_t ng,
                          uint32_t round, uint32_t n_hist, ladder_plan_match **out,
                          uint32_t *n_out, char *err, size_t cap)
{
    uint32_t nt, expect = 0;
    uint32_t per_tie = p->rounds * ladder_seating_orders(p->seating, p->n_seats) * p->n_seats;
    ladder_ko_tie *t = knockout_of(p, g, ng, &nt);
    ladder_plan_match *m = ja_xcalloc((size_t)nt * per_tie + 1, sizeof *m);
    uint32_t k = 0;
    bool ready = true, listed = false;
    for (uint32_t i = 0; i < nt; i++) {
        if (t[i].round < round && !t[i].bye)
            expect += per_tie;
        if (t[i].round < round)
            ready &= t[i].winner >= 0;
        listed |= t[i].round == round;
        if (t[i].round != round || t[i].bye)
            continue;
        uint16_t combo[JA_MAX_SEATS];
        for (uint32_t s = 0; s < t[i].n; s++)
            combo[s] = (uint16_t)t[i].slot[s];
        qsort(combo, t[i].n, sizeof *combo, cmp_u16);
        for (uint32_t r = 0; r < per_tie; r++, k++)
            ladder_plan_fill(p, combo, n_hist + k, round, t[i].position, r, &m[k]);
    }
    free(t);
    if (!ready || !listed || expect != n_hist) {
        ladder_set_err(err, cap, "knockout round %u: the rounds before are not all played",
                       round + 1);
        free(m);
        return JA_EINVAL;
    }
    *out = m;
    *n_out = k;
    return JA_OK;
}

int ladder_round_plan(const ladder_plan_params *p, const ladder_played *hist, uint32_t n_hist,
                      uint32_t round, ladder_plan_match **out, uint32_t *n_out, char *err,
                      size_t cap)
{
    *out = NULL;
    *n_out = 0;
    if (ladder_plan_count(p, NULL, err, cap) != JA_OK)
        return JA_EINVAL;
    if (!ladder_format_by_rounds(p->format) || round >= ladder_rounds_total(p)) {
        ladder_set_err(err, cap, "no round %u to plan in a %s tournament", round + 1,
                       ladder_format_name(p->format));
        return JA_EINVAL;
    }
    ladder_plan_params q = *p;
    q.duplicate = true; /* every group is a duplicate block */
    uint32_t ng;
    group *g = groups_of(hist, n_hist, &ng);
    int rc = p->format == LADDER_FORMAT_SWISS
                 ? swiss_round(&q, g, ng, round, n_hist, out, n_out, err, cap)
                 : knockout_round(&q, g, ng, round, n_hist, out, n_out, err, cap);
    free(g);
    return rc;
}
