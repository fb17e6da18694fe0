/* The `ismcts` reference bot: Information Set Monte Carlo Tree Search for
 * every game, built only on the forward model the host hands plugins
 * (ja_host_api.rules: sample, legal, apply, to_act, outcome). The real state
 * never reaches it.
 *
 * Algorithm: single-observer ISMCTS (SO-ISMCTS) of Cowling, Powley and
 * Whitehouse, "Information Set Monte Carlo Tree Search", IEEE Transactions on
 * Computational Intelligence and AI in Games 4(2):120-143, 2012. Each
 * iteration
 *  1. determinizes: sample() a full state from this seat's observation, with
 *     a seed from the bot's own stream (so a fixed match seed and iteration
 *     budget give the same answers);
 *  2. selects down one tree over this seat's information set. Edges are
 *     (seat, action code); at a node only the children whose seat is the one
 *     choosing in this determinization and whose action is legal in it are
 *     candidates, and each of them gets its availability count bumped
 *     (the subset-armed bandit of the paper): UCB1 is
 *         mean + c * sqrt(ln(availability) / visits),
 *     with rewards in [0, 1] and c = 0.7 by default (ismcts:c=X);
 *  3. expands one untried legal action (chosen uniformly) while the node pool
 *     has room; when it is full the tree stops growing and iterations go on
 *     sampling through it;
 *  4. plays out to the end of the match with the default policy: uniform
 *     random, or the game's greedy heuristic (ismcts:rollout=greedy; the
 *     default, rollout=auto, takes greedy where it was measured to pay at
 *     the default budget: GREEDY[].in_auto);
 *  5. backpropagates each seat's reward: at a node the statistics are those
 *     of the seat that chose its edge (max-n style), so opponents pick what
 *     is good for them and partners (Jack in the Box teams, whose scores the
 *     engine already shares) what is good for the side.
 * The search's answer is the root's most visited own action. What is played
 * is decided by one of two tests against the greedy heuristic's answer:
 *  - the paired rollout test (verify=K > 0, paired_test() below; the default
 *    in BrawlJack, Bruise Jack and Jack in the Box): greedy's answer and the search's
 *    best candidates are each played from the same K determinizations and
 *    continued by the heuristic with common random numbers; a candidate
 *    replaces greedy's answer only when its paired mean gain is significant;
 *  - otherwise the root anchor (anchored() below), which keeps greedy's
 *    answer unless the tree's own statistics beat it significantly.
 *
 * Reward: the bot is judged by places, as `arena bench` and the ladders
 * judge it, so a seat's reward is its pairwise place score: the mean over
 * the other seats of 1 (better place), 1/2 (same place) or 0 (worse).
 *
 * Joint decisions (several seats in to_act, as in Bombs' interrupt windows)
 * are sequentialised inside the tree: the seats of the window choose one
 * after another, this seat first when it is asked, then by seat number, and
 * the engine gets all their actions at once. A seat with a single legal
 * action takes it without a tree node. Why SO-ISMCTS and not one tree per
 * seat (MO-ISMCTS): with up to 20 seats and joint windows, one tree keyed on
 * (seat, action) keeps the memory bound in one pool and the code simple;
 * the price, opponents' nodes seeing our determinized view, is the
 * "strategy fusion" the paper accepts for SO-ISMCTS.
 *
 * Memory: everything (node pool, states, buffers) is allocated in create();
 * act() allocates nothing. The pool size (ismcts:nodes=N, default 65536
 * nodes) bounds memory. */
#include "ismcts_params.h"

#include "greedy.h"
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#ifdef GREEDY_HAVE_BRAWLJACK
#include "jackarena/ja_brawljack.h"
#endif
#ifdef GREEDY_HAVE_BRUISE_JACK
#include "jackarena/ja_bruise_jack.h"
#endif
#ifdef GREEDY_HAVE_JACK_IN_THE_BOX
#include "jackarena/ja_jack_in_the_box.h"
#endif
#ifdef GREEDY_HAVE_BOMBS
#include "jackarena/ja_bombs.h"
#endif
#include "jackarena/ja_taylor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A playout that runs this long is abandoned (every game has a turn cap far
 * below it; this only guards against an engine bug looping forever). */
#define ISMCTS_MAX_STEPS 1000000u

/* One tree node: the edge (seat, code) into it and that seat's statistics. */
typedef struct node {
    uint32_t child;   /* first child, 0 for none (0 is the root) */
    uint32_t sibling; /* next child of the same parent, 0 for none */
    uint32_t code;    /* the action of the edge into this node */
    int32_t seat;     /* the seat that chose it */
    uint64_t info;    /* own edges: hash of the observation it was chosen on */
    uint32_t visits;
    uint32_t avail;   /* iterations in which this edge was available */
    double reward;    /* sum of `seat`'s rewards */
} node;

/* The greedy heuristics (bots/greedy), for greedy playouts. */
typedef struct greedy_entry {
    const char *game;
    uint32_t obs_version;
    greedy_act_fn act;     /* the heuristic: the root anchor */
    greedy_act_fn playout; /* the same or a cheaper rule for playouts */
    int in_auto;           /* rollout=auto picks greedy playouts in this game */
    double anchor;         /* anchor=auto: the threshold of the root's test here */
    uint32_t verify;       /* verify=auto: the paired test's determinizations here (0: the
                              tree's statistics are tested instead) */
} greedy_entry;

static const greedy_entry GREEDY[] = {
    {"taylor-blackjack", JA_TAYLOR_OBS_VERSION, greedy_taylor_act, greedy_taylor_act, 0, 1.96, 0},
#ifdef GREEDY_HAVE_BRAWLJACK
    {"brawljack", JA_BRAWLJACK_OBS_VERSION, greedy_brawljack_act, greedy_brawljack_act, 1, 2.5, 200},
#endif
#ifdef GREEDY_HAVE_BRUISE_JACK
    /* Bruise Jack and Jack in the Box: the tree's own statistics did not
     * beat greedy (docs/bots.md), the paired rollout test does; in
     * BrawlJack it more than tripled the margin over greedy. */
    {"bruise-jack", JA_BRUISE_JACK_OBS_VERSION, greedy_bruise_jack_act,
     greedy_bruise_jack_fast_act, 0, 2.5, 400},
#endif
#ifdef GREEDY_HAVE_JACK_IN_THE_BOX
    {"jack-in-the-box", JA_JITB_OBS_VERSION, greedy_jack_in_the_box_act,
     greedy_jack_in_the_box_act, 1, 2.5, 300},
#endif
#ifdef GREEDY_HAVE_BOMBS
    {"bombs", JA_BOMBS_OBS_VERSION, greedy_bombs_act, greedy_bombs_act, 0, 1.96, 0},
#endif
};

typedef struct ismcts {
    const ja_host_api *host;
    void *hctx;
    const ja_game_rules *g;
    int32_t seat;
    uint32_t n_seats;
    ismcts_params p;
    greedy_act_fn greedy; /* NULL: random playouts */
    greedy_act_fn anchor; /* the game's greedy heuristic, for the root anchor; NULL: none */
    greedy_act_fn vpol;   /* the paired test's continuation policy; NULL: no test */
    node *pool;
    uint32_t used;        /* nodes in use; pool[0] is the root */
    uint32_t *path;       /* nodes of this iteration's descent */
    unsigned char *st;    /* the determinization being played */
    unsigned char *obs;   /* greedy playouts: an observation */
    ja_action *legal;     /* max_actions */
    uint8_t *tried;       /* max_actions: has a child for this legal action */
    unsigned char *base;  /* the paired test: the determinization all candidates share */
    ja_rng rng;
} ismcts;

static int supports(const char *game, uint32_t obs_version)
{
    (void)game;
    (void)obs_version;
    return 1; /* every game whose forward model the host has (create checks) */
}

static void destroy(void *bot)
{
    ismcts *b = bot;
    if (!b)
        return;
    free(b->pool);
    free(b->path);
    free(b->st);
    free(b->obs);
    free(b->legal);
    free(b->tried);
    free(b->base);
    free(b);
}

/* ABI 1.2: the arena asks before anything runs (ismcts_params.c). */
static int check_params(const char *params, char *err, size_t cap)
{
    ismcts_params p;
    return ismcts_params_parse(params, &p, err, cap);
}

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out_bot)
{
    if (!host || !host->rules || !game || seat < 0 || n_seats > JA_MAX_SEATS ||
        (uint32_t)seat >= n_seats)
        return JA_EINVAL;
    const ja_game_rules *g = host->rules(game);
    if (!g)
        return JA_EUNSUPPORTED;
    ismcts_params p;
    char err[256];
    const char *text = JA_HOST_HAS(host, params) ? host->params(hctx) : "";
    if (ismcts_params_parse(text, &p, err, sizeof err) != JA_OK) {
        if (host->log)
            host->log(hctx, JA_LOG_ERROR, err);
        return JA_EINVAL;
    }
    ismcts *b = calloc(1, sizeof *b);
    if (!b)
        return JA_ENOMEM;
    b->host = host;
    b->hctx = hctx;
    b->g = g;
    b->seat = seat;
    b->n_seats = n_seats;
    b->p = p;
    for (size_t i = 0; i < sizeof GREEDY / sizeof GREEDY[0]; i++)
        if (strcmp(GREEDY[i].game, game) == 0 && GREEDY[i].obs_version == g->obs_version) {
            if (p.anchor == ISMCTS_ANCHOR_AUTO)
                b->p.anchor = GREEDY[i].anchor;
            if (p.verify == ISMCTS_VERIFY_AUTO)
                b->p.verify = GREEDY[i].verify;
            if (b->p.verify > 0)
                b->vpol = GREEDY[i].playout;
            if (b->p.anchor > 0 || b->p.verify > 0)
                b->anchor = GREEDY[i].act;
            if (p.rollout == ISMCTS_ROLLOUT_GREEDY ||
                (p.rollout == ISMCTS_ROLLOUT_AUTO && GREEDY[i].in_auto))
                b->greedy = GREEDY[i].playout;
        }
    if (b->p.verify == ISMCTS_VERIFY_AUTO)
        b->p.verify = 0; /* a game without a heuristic: nothing to test against */
    if (p.rollout == ISMCTS_ROLLOUT_GREEDY && !b->greedy) {
        if (host->log)
            host->log(hctx, JA_LOG_ERROR, "ismcts: no greedy heuristic for this game");
        free(b);
        return JA_EUNSUPPORTED;
    }
    b->pool = malloc(sizeof *b->pool * p.nodes);
    b->path = malloc(sizeof *b->path * p.nodes);
    b->st = malloc(g->state_size);
    b->obs = malloc(g->obs_size);
    b->legal = malloc(sizeof *b->legal * g->max_actions);
    b->tried = malloc(g->max_actions);
    b->base = malloc(g->state_size);
    if (!b->pool || !b->path || !b->st || !b->obs || !b->legal || !b->tried || !b->base) {
        destroy(b);
        return JA_ENOMEM;
    }
    *out_bot = b;
    return JA_OK;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The seat that chooses next among `pending`: this seat first, so that the
 * root's children are its own actions, then by seat number. */
static int chooser(const ismcts *b, uint32_t pending)
{
    if (pending & (1u << b->seat))
        return b->seat;
    return __builtin_ctz(pending);
}

/* Index of code in the sorted legal list, or -1. */
static int find_legal(const ja_action *legal, uint32_t n, uint32_t code)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (legal[mid].code < code)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && legal[lo].code == code ? (int)lo : -1;
}

/* The default policy's action for seat c among n >= 2 legal actions (in
 * b->legal): the heuristic pol, or uniform from rng when pol is NULL. */
static ja_action playout_action(ismcts *b, greedy_act_fn pol, ja_rng *rng, int c, uint32_t n)
{
    if (pol) {
        b->g->observe(b->st, c, b->obs);
        ja_decision d = {.struct_size = sizeof d, .turn = 1, .seat = c, .n_seats = b->n_seats,
                         .game = b->g->name, .obs_version = b->g->obs_version,
                         .obs_size = b->g->obs_size, .obs = b->obs, .legal = b->legal,
                         .n_legal = n};
        uint32_t i = UINT32_MAX;
        if (pol(&d, &i) == JA_OK && i < n)
            return b->legal[i];
    }
    return b->legal[ja_rng_below(rng, n)];
}

/* Tree policy at node `at` for seat c: the child to descend into, a new
 * child (expansion), or 0 when the node can neither (pool full, nothing
 * tried): the caller then leaves the tree. */
static uint32_t tree_step(ismcts *b, uint32_t at, int c, uint32_t n, uint64_t info)
{
    memset(b->tried, 0, n);
    uint32_t best = 0;
    double best_ucb = -HUGE_VAL;
    uint32_t untried = n;
    for (uint32_t k = b->pool[at].child; k; k = b->pool[k].sibling) {
        node *ch = &b->pool[k];
        if (ch->seat != c || ch->info != info)
            continue;
        int i = find_legal(b->legal, n, ch->code);
        if (i < 0)
            continue;
        b->tried[i] = 1;
        untried--;
        ch->avail++;
        /* visits is 0 only after an iteration that failed past the
         * expansion: try it first. */
        double ucb = ch->visits == 0 ? HUGE_VAL
                                     : ch->reward / ch->visits +
                                           b->p.c * sqrt(log((double)ch->avail) / ch->visits);
        if (ucb > best_ucb) {
            best_ucb = ucb;
            best = k;
        }
    }
    if (untried && b->used < b->p.nodes) {
        uint32_t pick = ja_rng_below(&b->rng, untried), i = 0;
        for (;; i++)
            if (!b->tried[i] && pick-- == 0)
                break;
        uint32_t k = b->used++;
        b->pool[k] = (node){.child = 0, .sibling = b->pool[at].child, .code = b->legal[i].code,
                            .seat = c, .info = info, .visits = 0, .avail = 1, .reward = 0.0};
        b->pool[at].child = k;
        return k;
    }
    return best;
}

/* Own decisions are told apart by what this seat sees (its information
 * set): the card it just drew differs between determinizations, and a
 * choice after it must not be averaged over cards it can see. Other seats'
 * edges carry 0: their information is not ours to split on. FNV-1a, 64 bits,
 * over the observation. */
static uint64_t own_info(ismcts *b, int c)
{
    if (c != b->seat)
        return 0;
    b->g->observe(b->st, c, b->obs);
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < b->g->obs_size; i++)
        h = (h ^ b->obs[i]) * 0x100000001b3ull;
    return h;
}

/* Pairwise place score of every seat, in [0, 1]. */
static void rewards(const ismcts *b, const ja_outcome *o, double *r)
{
    uint32_t n = b->n_seats;
    for (uint32_t s = 0; s < n; s++) {
        double sum = 0.0;
        for (uint32_t t = 0; t < n; t++)
            if (t != s)
                sum += o->place[s] < o->place[t] ? 1.0 : o->place[s] == o->place[t] ? 0.5 : 0.0;
        r[s] = n > 1 ? sum / (n - 1) : 0.5;
    }
}

/* Advances b->st to its next choice. With no joint window in progress
 * (pending 0) it asks the engine who acts next. Returns 1 with the seat *c
 * that chooses now among its *n legal actions (in b->legal), 0 at the end of
 * the match, -1 when the engine failed or the match runs away. */
static int next_choice(ismcts *b, uint32_t *mask, uint32_t *pending, uint32_t *steps, int *c,
                       uint32_t *n)
{
    const ja_game_rules *g = b->g;
    if (!*pending) {
        *mask = *pending = g->to_act(b->st);
        if (!*mask)
            return 0;
        if (++*steps > ISMCTS_MAX_STEPS)
            return -1;
    }
    *c = chooser(b, *pending);
    *n = g->legal(b->st, *c, b->legal, g->max_actions);
    return *n ? 1 : -1;
}

/* Seat c takes action a; once every seat of the window has chosen, the
 * engine applies their actions together. 0 when the engine refused. */
static int choose(ismcts *b, int c, ja_action a, uint32_t mask, uint32_t *pending,
                  ja_action *by_seat)
{
    by_seat[c] = a;
    *pending &= ~(1u << c);
    return *pending || b->g->apply(b->st, mask, by_seat) == JA_OK;
}

/* Plays b->st out to the end of the match with the default policy pol
 * (NULL: uniform random from rng). mask/pending/by_seat: a joint window
 * in progress (the seats of mask still in pending have not chosen yet;
 * pending 0: none). Fills r with every seat's reward; 0 when the engine
 * failed. */
static int play_out(ismcts *b, greedy_act_fn pol, ja_rng *rng, uint32_t mask, uint32_t pending,
                    ja_action *by_seat, uint32_t steps, double *r)
{
    int c, k;
    uint32_t n;
    while ((k = next_choice(b, &mask, &pending, &steps, &c, &n)) > 0)
        if (!choose(b, c, n > 1 ? playout_action(b, pol, rng, c, n) : b->legal[0], mask,
                    &pending, by_seat))
            return 0;
    ja_outcome o;
    if (k < 0 || b->g->outcome(b->st, &o) != JA_OK)
        return 0;
    rewards(b, &o, r);
    return 1;
}

/* One iteration from observation obs. Returns 0 when the determinization
 * or the engine failed (nothing is backpropagated). */
static int iterate(ismcts *b, const void *obs)
{
    if (b->g->sample(obs, b->seat, ja_rng_next(&b->rng), b->st) != JA_OK)
        return 0;
    uint32_t depth = 0, at = 0, mask = 0, pending = 0, steps = 0, n;
    ja_action by_seat[JA_MAX_SEATS];
    memset(by_seat, 0, sizeof by_seat);
    b->path[depth++] = 0;
    /* Selection and expansion: down the tree until a new node, a node that
     * can grow no further (full pool), or the end of the match. */
    int c, more;
    for (int leave = 0; !leave;) {
        if ((more = next_choice(b, &mask, &pending, &steps, &c, &n)) <= 0) {
            if (more < 0)
                return 0;
            break;
        }
        ja_action a = b->legal[0];
        if (n > 1) {
            uint32_t k = tree_step(b, at, c, n, own_info(b, c));
            if (!k)
                break; /* c has not chosen: the playout chooses for it */
            at = k;
            b->path[depth++] = k;
            a.code = b->pool[k].code;
            leave = b->pool[k].visits == 0; /* just expanded: play out from here */
        }
        if (!choose(b, c, a, mask, &pending, by_seat))
            return 0;
    }
    double r[JA_MAX_SEATS];
    if (!play_out(b, b->greedy, &b->rng, mask, pending, by_seat, steps, r))
        return 0;
    for (uint32_t i = 0; i < depth; i++) {
        node *nd = &b->pool[b->path[i]];
        nd->visits++;
        if (i > 0)
            nd->reward += r[nd->seat];
    }
    return 1;
}

/* Mean and variance bound of a node's reward. The rewards lie in [0, 1], so
 * their variance is at most m (1 - m); the mean is shrunk by half a visit
 * towards 1/2 so that a handful of equal results does not claim a variance
 * of zero. */
static void node_stats(const node *nd, double *mean, double *var)
{
    double m = (nd->reward + 0.5) / (nd->visits + 1.0);
    *mean = nd->reward / nd->visits;
    *var = m * (1.0 - m) / nd->visits;
}

/* The root anchor. The greedy heuristic's answer is the prior; the search
 * overrules it only when its choice (best, index best_i) beats the greedy
 * action's mean by more than `anchor` standard errors of the difference
 * (a one-sided test on the two nodes' samples, treated as independent).
 * A greedy action the search never visited (a tiny budget or a full pool)
 * has no evidence against it and stands; a heuristic that fails leaves the
 * search's choice. Why: at the default budget the root statistics of
 * close candidates are mostly noise and, with random playouts, biased
 * against the moves that need good play afterwards; greedy is a strong
 * one-turn player in every game, so the search should depart from it only
 * on evidence. (The same idea as the prior of progressive bias or PUCT,
 * applied once at the root as a significance test.) */
static uint32_t anchored(ismcts *b, const ja_decision *d, const node *best, uint32_t best_i)
{
    uint32_t gi = UINT32_MAX;
    if (b->anchor(d, &gi) != JA_OK || gi >= d->n_legal)
        return best_i;
    if (!best || gi == best_i)
        return gi;
    const node *gn = NULL;
    for (uint32_t k = b->pool[0].child; k; k = b->pool[k].sibling)
        if (b->pool[k].seat == b->seat && b->pool[k].code == d->legal[gi].code &&
            b->pool[k].visits > 0)
            gn = &b->pool[k];
    if (!gn)
        return gi;
    double mb, vb, mg, vg;
    node_stats(best, &mb, &vb);
    node_stats(gn, &mg, &vg);
    return mb - mg > b->p.anchor * sqrt(vb + vg) ? best_i : gi;
}

/* The paired rollout test at the root (verify=K > 0). The candidates are
 * greedy's answer gi and the search's most visited other actions (up to
 * VERIFY_CANDS in all). K times: one determinization is sampled and every
 * candidate is played from it, then the match is played out by the game's
 * heuristic for every seat, the playouts of all candidates drawing the same
 * random numbers (common random numbers). Each candidate's reward minus
 * greedy's in the same determinization is one paired difference; a
 * candidate replaces greedy's answer only when the mean of its differences
 * exceeds `anchor` standard errors of that mean (a one-sided paired test),
 * and the candidate with the largest such mean is played. This is the
 * rollout method of policy improvement (G. Tesauro, G. R. Galperin,
 * "On-line policy improvement using Monte-Carlo search", NIPS 9, 1997;
 * D. P. Bertsekas, J. N. Tsitsiklis, C. Wu, "Rollout algorithms for
 * combinatorial optimization", Journal of Heuristics 3, 1997) with the
 * search choosing what to test. */
#define VERIFY_CANDS 4u
#define VERIFY_MIN 30u

static uint32_t paired_test(ismcts *b, const ja_decision *d, uint32_t gi, int64_t stop)
{
    uint32_t cand[VERIFY_CANDS], nc = 0;
    cand[nc++] = gi;
    /* The search's ranking: most visits first (ties: lower index). */
    while (nc < VERIFY_CANDS) {
        uint32_t pick = UINT32_MAX, pv = 0;
        for (uint32_t k = b->pool[0].child; k; k = b->pool[k].sibling) {
            const node *ch = &b->pool[k];
            int i = ch->seat == b->seat ? find_legal(d->legal, d->n_legal, ch->code) : -1;
            if (i < 0 || ch->visits == 0)
                continue;
            int taken = 0;
            for (uint32_t j = 0; j < nc; j++)
                taken |= cand[j] == (uint32_t)i;
            if (!taken && (pick == UINT32_MAX || ch->visits > pv ||
                           (ch->visits == pv && (uint32_t)i < pick))) {
                pick = (uint32_t)i;
                pv = ch->visits;
            }
        }
        if (pick == UINT32_MAX)
            break;
        cand[nc++] = pick;
    }
    if (nc < 2)
        return gi;
    double sum[VERIFY_CANDS] = {0}, sq[VERIFY_CANDS] = {0}, rew[VERIFY_CANDS];
    uint32_t ok = 0;
    const ja_game_rules *g = b->g;
    for (uint32_t k = 0; k < b->p.verify; k++) {
        if (stop != INT64_MAX && now_ms() >= stop)
            break;
        uint64_t sseed = ja_rng_next(&b->rng), pseed = ja_rng_next(&b->rng);
        if (g->sample(d->obs, b->seat, sseed, b->base) != JA_OK)
            continue;
        uint32_t j = 0;
        for (; j < nc; j++) {
            memcpy(b->st, b->base, g->state_size);
            ja_rng prng;
            ja_rng_seed(&prng, pseed);
            ja_action by_seat[JA_MAX_SEATS];
            memset(by_seat, 0, sizeof by_seat);
            uint32_t mask = g->to_act(b->st), pending = mask;
            if (!(mask & (1u << b->seat)) ||
                !choose(b, b->seat, d->legal[cand[j]], mask, &pending, by_seat))
                break;
            double r[JA_MAX_SEATS];
            if (!play_out(b, b->vpol, &prng, mask, pending, by_seat, 1, r))
                break;
            rew[j] = r[b->seat];
        }
        if (j < nc)
            continue; /* a failed determinization counts for no candidate */
        ok++;
        for (j = 1; j < nc; j++) {
            double x = rew[j] - rew[0];
            sum[j] += x;
            sq[j] += x * x;
        }
    }
    uint32_t best = gi;
    double best_mean = 0.0;
    if (ok < VERIFY_MIN)
        return gi; /* too few pairs for the normal approximation */
    for (uint32_t j = 1; j < nc; j++) {
        double mean = sum[j] / ok;
        double var = (sq[j] - ok * mean * mean) / (ok - 1);
        if (var < 0)
            var = 0;
        if (mean > best_mean && mean > b->p.anchor * sqrt(var / ok)) {
            best = cand[j];
            best_mean = mean;
        }
    }
    return best;
}

static int act(void *bot, const ja_decision *d, uint32_t *out_index)
{
    ismcts *b = bot;
    if (!b || !d || !out_index || !d->legal || d->n_legal == 0 || !d->obs)
        return JA_EINVAL;
    if (d->obs_version != b->g->obs_version || d->obs_size < b->g->obs_size)
        return JA_EVERSION;
    ja_rng_seed(&b->rng, b->host->rng_next(b->hctx));
    b->pool[0] = (node){0};
    b->used = 1;
    /* A deadline from the host (--move-ms) caps any budget at half of what
     * is left; without one, an iteration budget never reads the clock. */
    int64_t left = b->host->time_left_ms ? b->host->time_left_ms(b->hctx) : -1;
    int64_t start = (b->p.ms || left >= 0) ? now_ms() : 0, stop = INT64_MAX;
    if (b->p.ms)
        stop = start + b->p.ms;
    if (left >= 0 && start + left / 2 < stop)
        stop = start + left / 2;
    /* With a clock and the paired test, the search has the first half of
     * the time and the test the rest. */
    int64_t search_stop = stop;
    if (stop != INT64_MAX && b->vpol)
        search_stop = start + (stop - start) / 2;
    uint32_t done = 0, failed = 0;
    for (uint64_t i = 0; b->p.ms || i < b->p.iters; i++) {
        /* The clock costs tens of nanoseconds, an iteration microseconds
         * or more (a whole playout): read it every time. */
        if (search_stop != INT64_MAX && i > 0 && now_ms() >= search_stop)
            break;
        if (iterate(b, d->obs))
            done++;
        else if (++failed > 1000 && done == 0)
            break; /* the forward model refuses this observation */
    }
    /* The most visited own action; ties: the better mean, then the lowest
     * code. Nothing searched: the lowest code. */
    uint32_t best_i = 0, best_v = 0;
    double best_m = -1.0;
    const node *best = NULL;
    for (uint32_t k = b->pool[0].child; k; k = b->pool[k].sibling) {
        const node *ch = &b->pool[k];
        int i = ch->seat == b->seat ? find_legal(d->legal, d->n_legal, ch->code) : -1;
        if (i < 0 || ch->visits == 0)
            continue;
        double m = ch->reward / ch->visits;
        if (ch->visits > best_v || (ch->visits == best_v && m > best_m) ||
            (ch->visits == best_v && m == best_m && (uint32_t)i < best_i)) {
            best_i = (uint32_t)i;
            best_v = ch->visits;
            best_m = m;
            best = ch;
        }
    }
    if (b->vpol) {
        uint32_t gi = UINT32_MAX;
        if (b->anchor(d, &gi) == JA_OK && gi < d->n_legal)
            best_i = paired_test(b, d, gi, stop);
    } else if (b->anchor) {
        best_i = anchored(b, d, best, best_i);
    }
    *out_index = best_i;
    return JA_OK;
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc),
    .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR,
    .name = "ismcts",
    .version = "1.2", /* 1.1: the root anchor; 1.2: the paired rollout test */
    .supports = supports,
    .create = create,
    .act = act,
    .end = NULL,
    .destroy = destroy,
    .extension = NULL,
    .check_params = check_params,
};

JA_BOT_DECLARE(desc)
