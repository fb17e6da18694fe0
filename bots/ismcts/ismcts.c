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
 * The answer is the root's most visited own action, unless the root anchor
 * (anchored() below) keeps the greedy heuristic's answer for lack of
 * evidence against it.
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
    double anchor;         /* anchor=auto: the root anchor's threshold here */
} greedy_entry;

static const greedy_entry GREEDY[] = {
    {"taylor-blackjack", JA_TAYLOR_OBS_VERSION, greedy_taylor_act, greedy_taylor_act, 0, 1.96},
#ifdef GREEDY_HAVE_BRAWLJACK
    {"brawljack", JA_BRAWLJACK_OBS_VERSION, greedy_brawljack_act, greedy_brawljack_act, 1, 1.96},
#endif
#ifdef GREEDY_HAVE_BRUISE_JACK
    /* Bruise Jack: the search's departures from greedy were measured to
     * lose (docs/bots.md), so the anchor is all but absolute there. */
    {"bruise-jack", JA_BRUISE_JACK_OBS_VERSION, greedy_bruise_jack_act,
     greedy_bruise_jack_fast_act, 0, 10.0},
#endif
#ifdef GREEDY_HAVE_JACK_IN_THE_BOX
    {"jack-in-the-box", JA_JITB_OBS_VERSION, greedy_jack_in_the_box_act,
     greedy_jack_in_the_box_act, 1, 1.96},
#endif
#ifdef GREEDY_HAVE_BOMBS
    {"bombs", JA_BOMBS_OBS_VERSION, greedy_bombs_act, greedy_bombs_act, 0, 1.96},
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
    node *pool;
    uint32_t used;        /* nodes in use; pool[0] is the root */
    uint32_t *path;       /* nodes of this iteration's descent */
    unsigned char *st;    /* the determinization being played */
    unsigned char *obs;   /* greedy playouts: an observation */
    ja_action *legal;     /* max_actions */
    uint8_t *tried;       /* max_actions: has a child for this legal action */
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
    free(b);
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
            if (b->p.anchor > 0)
                b->anchor = GREEDY[i].act;
            if (p.rollout == ISMCTS_ROLLOUT_GREEDY ||
                (p.rollout == ISMCTS_ROLLOUT_AUTO && GREEDY[i].in_auto))
                b->greedy = GREEDY[i].playout;
        }
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
    if (!b->pool || !b->path || !b->st || !b->obs || !b->legal || !b->tried) {
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

/* The default policy's action for seat c among n >= 2 legal actions. */
static ja_action playout_action(ismcts *b, int c, uint32_t n)
{
    if (b->greedy) {
        b->g->observe(b->st, c, b->obs);
        ja_decision d = {.struct_size = sizeof d, .turn = 1, .seat = c, .n_seats = b->n_seats,
                         .game = b->g->name, .obs_version = b->g->obs_version,
                         .obs_size = b->g->obs_size, .obs = b->obs, .legal = b->legal,
                         .n_legal = n};
        uint32_t i = UINT32_MAX;
        if (b->greedy(&d, &i) == JA_OK && i < n)
            return b->legal[i];
    }
    return b->legal[ja_rng_below(&b->rng, n)];
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

/* One iteration from observation obs. Returns 0 when the determinization
 * or the engine failed (nothing is backpropagated). */
static int iterate(ismcts *b, const void *obs)
{
    const ja_game_rules *g = b->g;
    if (g->sample(obs, b->seat, ja_rng_next(&b->rng), b->st) != JA_OK)
        return 0;
    uint32_t depth = 0, at = 0, mask = 0, pending = 0, steps = 0;
    int in_tree = 1;
    ja_action by_seat[JA_MAX_SEATS];
    memset(by_seat, 0, sizeof by_seat);
    b->path[depth++] = 0;
    for (;;) {
        if (!pending) {
            mask = pending = g->to_act(b->st);
            if (!mask)
                break;
            if (++steps > ISMCTS_MAX_STEPS)
                return 0;
        }
        int c = chooser(b, pending);
        uint32_t n = g->legal(b->st, c, b->legal, g->max_actions);
        if (n == 0)
            return 0;
        ja_action a = b->legal[0];
        if (n > 1) {
            uint32_t k = in_tree ? tree_step(b, at, c, n, own_info(b, c)) : 0;
            if (k) {
                at = k;
                b->path[depth++] = k;
                a.code = b->pool[k].code;
                if (b->pool[k].visits == 0)
                    in_tree = 0; /* just expanded: play out from here */
            } else {
                in_tree = 0;
                a = playout_action(b, c, n);
            }
        }
        by_seat[c] = a;
        pending &= ~(1u << c);
        if (!pending && g->apply(b->st, mask, by_seat) != JA_OK)
            return 0;
    }
    ja_outcome o;
    if (g->outcome(b->st, &o) != JA_OK)
        return 0;
    double r[JA_MAX_SEATS];
    rewards(b, &o, r);
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
    uint32_t done = 0, failed = 0;
    for (uint64_t i = 0; b->p.ms || i < b->p.iters; i++) {
        /* The clock costs tens of nanoseconds, an iteration microseconds
         * or more (a whole playout): read it every time. */
        if (stop != INT64_MAX && i > 0 && now_ms() >= stop)
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
    if (b->anchor)
        best_i = anchored(b, d, best, best_i);
    *out_index = best_i;
    return JA_OK;
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc),
    .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR,
    .name = "ismcts",
    .version = "1.1", /* 1.1: the root anchor (its play differs from 1.0) */
    .supports = supports,
    .create = create,
    .act = act,
    .end = NULL,
    .destroy = destroy,
    .extension = NULL,
};

JA_BOT_DECLARE(desc)
