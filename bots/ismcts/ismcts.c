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
 *     the default budget: GREEDY[].in_auto). In Bruise Jack and Taylor
 *     Blackjack (horizon=auto or hand) a playout ends where the current
 *     hand (a game in Taylor Blackjack) does, and the rest of the match is
 *     valued from the points (rest_value); in Jack in the Box where the
 *     match's last game starts, valued from a score model (jitb_game_end);
 *  5. backpropagates each seat's reward: at a node the statistics are those
 *     of the seat that chose its edge (max-n style), so opponents pick what
 *     is good for them and partners (Jack in the Box teams, whose scores the
 *     engine already shares) what is good for the side.
 * The budget: `iters` iterations at most, and where the game has one
 * (iters=auto, steps=auto: Taylor Blackjack and Bombs) until the
 * iterations have taken `steps` engine steps in all, a deterministic
 * measure of CPU time whatever the length of the match left (a playout
 * runs to the end of the match).
 * The search's answer is the root's most visited own action. What is played
 * is decided by one of two tests against the greedy heuristic's answer:
 *  - the paired rollout test (verify=K > 0, paired_test() below; the default
 *    in every game but Bombs): greedy's answer and the search's
 *    best candidates are each played from the same K determinizations and
 *    continued by the heuristic with common random numbers; a candidate
 *    replaces greedy's answer only when its paired mean gain is significant.
 *    It stops early (early=on) once no candidate can be expected to win or
 *    one clearly has; with at most 4 legal actions it tests them all and
 *    the search, which only chooses what to test, is skipped;
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
#include "greedy_games.h"
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"

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

/* horizon=hand: 1 when obs (the observation at a playout's next choice)
 * is past the hand of root (the observation of the decision), with every
 * seat's expected reward for the rest of the match in r; else 0. */
typedef int (*horizon_fn)(const void *obs, const void *root, uint32_t n_seats, double *r);

/* infer: the weight in (0, 1] of what a sampled state gives seat p (its
 * observation pobs) that others cannot see, from p's decisions in the
 * current hand as root (the decision's observation) shows them: each one
 * pol would not have taken there multiplies it by INFER_EPS. scratch:
 * obs_size bytes; legal: max_actions. */
typedef double (*infer_fn)(const void *root, const void *pobs, void *scratch, greedy_act_fn pol,
                           ja_action *legal);
/* The key of that hidden part (0 to 255) under which a decision caches its
 * weight, or -1 when p has none. */
typedef int (*infer_key_fn)(const void *pobs);

#ifdef GREEDY_HAVE_BRUISE_JACK
/* stride=N: Bruise Jack's playout rule over every N-th unseen card. */
#define BJ_STRIDE(k)                                                                              \
    static int bj_stride##k(const ja_decision *d, uint32_t *out)                                 \
    {                                                                                            \
        return greedy_bruise_jack_stride_act(d, out, k);                                         \
    }
BJ_STRIDE(2)
BJ_STRIDE(3)
BJ_STRIDE(4)
BJ_STRIDE(5)
BJ_STRIDE(6)
static const greedy_act_fn BJ_STRIDES[ISMCTS_MAX_STRIDE + 1] = {
    NULL, greedy_bruise_jack_act, bj_stride2, bj_stride3, bj_stride4, bj_stride5, bj_stride6,
    greedy_bruise_jack_fast_act};
static int bj_hand_end(const void *obs, const void *root, uint32_t n_seats, double *r);
static double bj_infer(const void *root, const void *pobs, void *scratch, greedy_act_fn pol,
                       ja_action *legal);
static int bj_infer_key(const void *pobs);
#endif
static int taylor_game_end(const void *obs, const void *root, uint32_t n_seats, double *r);
static int taylor_last_game(const void *root);
#ifdef GREEDY_HAVE_JACK_IN_THE_BOX
static int jitb_game_end(const void *obs, const void *root, uint32_t n_seats, double *r);
static int jitb_last_game(const void *root);
#endif

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
    uint32_t iters;        /* iters=auto: the search's iterations here, at most */
    uint32_t steps;        /* steps=auto (with iters=auto): the search's engine steps */
    horizon_fn hand_end;   /* horizon=hand: the value where the current hand ends; NULL: none */
    int (*last)(const void *root); /* 1 when root's hand is the match's last, so that
                                      no playout reaches another (NULL: not known) */
    double drop;           /* drop=auto: the paired test's futility threshold here */
    infer_fn infer;        /* informed determinizations (infer=N); NULL: none in this game */
    infer_key_fn infer_key;
    uint32_t infer_tries;  /* infer=auto: the tries a pair's determinization gets here */
    int hand_auto;         /* horizon=auto is horizon=hand here (else the match) */
    const greedy_act_fn *strides; /* stride=N: the playout rule by N (1 to 7); NULL: none */
} greedy_entry;

/* The per-game budgets of iters=auto and verify=auto: a decision at about
 * 50 ms of CPU or less on the benchmark machine (docs/bots.md). */
#define ITERS_TAYLOR 1000u
#define STEPS_TAYLOR 50000u
#define VERIFY_TAYLOR 800u
#define ITERS_BRAWLJACK 2000u
#define STEPS_BRAWLJACK 0u
#define VERIFY_BRAWLJACK 1000u
#define ITERS_BRUISE_JACK 1000u /* never searched: at most 3 legal actions, all tested */
#define STEPS_BRUISE_JACK 0u
#define VERIFY_BRUISE_JACK 5000u /* with horizon=hand: playouts of one hand */
#define ANCHOR_BRUISE_JACK 1.8
#define DROP_BRUISE_JACK ISMCTS_DEFAULT_DROP
#define INFER_BRUISE_JACK 0u /* infer=auto: uniform determinizations */
#define ITERS_JITB 800u
#define STEPS_JITB 0u
#define VERIFY_JITB 2000u /* 1.5: with its first game's playouts ending with the game */
#define HAND_AUTO_JITB 1 /* 1.5: horizon=auto is horizon=hand there (the score model) */
#define ITERS_BOMBS 5000u
#define STEPS_BOMBS 200000u

static const greedy_entry GREEDY[] = {
    /* Taylor Blackjack (1.4): the paired test (threshold 1.96), the search
     * on an eighth of 1.3's steps to choose what it tests (docs/bots.md). */
    {"taylor-blackjack", JA_TAYLOR_OBS_VERSION, greedy_taylor_act, greedy_taylor_act, 0, 1.96,
     VERIFY_TAYLOR, ITERS_TAYLOR, STEPS_TAYLOR, taylor_game_end, taylor_last_game,
     ISMCTS_DEFAULT_DROP, NULL, NULL, 0, 1, NULL},
#ifdef GREEDY_HAVE_BRAWLJACK
    {"brawljack", JA_BRAWLJACK_OBS_VERSION, greedy_brawljack_act, greedy_brawljack_act, 1, 2.5,
     VERIFY_BRAWLJACK, ITERS_BRAWLJACK, STEPS_BRAWLJACK, NULL, NULL, ISMCTS_DEFAULT_DROP, NULL,
     NULL, 0, 0, NULL},
#endif
#ifdef GREEDY_HAVE_BRUISE_JACK
    /* Bruise Jack and Jack in the Box: the tree's own statistics did not
     * beat greedy (docs/bots.md), the paired rollout test does; in
     * BrawlJack it more than tripled the margin over greedy. */
    {"bruise-jack", JA_BRUISE_JACK_OBS_VERSION, greedy_bruise_jack_act,
     greedy_bruise_jack_fast_act, 0, ANCHOR_BRUISE_JACK, VERIFY_BRUISE_JACK, ITERS_BRUISE_JACK,
     STEPS_BRUISE_JACK, bj_hand_end, NULL, DROP_BRUISE_JACK, bj_infer, bj_infer_key,
     INFER_BRUISE_JACK, 1, BJ_STRIDES},
#endif
#ifdef GREEDY_HAVE_JACK_IN_THE_BOX
    {"jack-in-the-box", JA_JITB_OBS_VERSION, greedy_jack_in_the_box_act,
     greedy_jack_in_the_box_act, 1, 2.5, VERIFY_JITB, ITERS_JITB, STEPS_JITB, jitb_game_end,
     jitb_last_game, ISMCTS_DEFAULT_DROP, NULL, NULL, 0, HAND_AUTO_JITB, NULL},
#endif
#ifdef GREEDY_HAVE_BOMBS
    {"bombs", JA_BOMBS_OBS_VERSION, greedy_bombs_act, greedy_bombs_act, 0, 1.96, 0, ITERS_BOMBS,
     STEPS_BOMBS, NULL, NULL, ISMCTS_DEFAULT_DROP, NULL, NULL, 0, 0, NULL},
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
    horizon_fn horizon;   /* playouts end with the current hand (horizon=hand); NULL: the match */
    int (*last)(const void *root); /* greedy_entry.last */
    horizon_fn hand_end;  /* this decision's: horizon, or NULL when no playout can reach
                             another hand (the observation at every step is then spared) */
    const void *root;     /* the observation of the decision being made */
    node *pool;
    uint32_t used;        /* nodes in use; pool[0] is the root */
    uint32_t *path;       /* nodes of this iteration's descent */
    unsigned char *st;    /* the determinization being played */
    unsigned char *obs;   /* greedy playouts: an observation */
    ja_action *legal;     /* max_actions */
    uint8_t *tried;       /* max_actions: has a child for this legal action */
    unsigned char *base;  /* the paired test: the determinization all candidates share */
    uint64_t work;        /* engine steps taken in this decision (the steps budget) */
    infer_fn infer;       /* infer=N > 0: the game's weight of a sample; NULL: uniform */
    infer_key_fn infer_key;
    greedy_act_fn ipol;   /* the policy the other seats' past decisions are judged by */
    int strided;          /* the game has stride=N */
    unsigned char *scratch; /* infer: an observation rebuilt back in time */
    double iw[JA_MAX_SEATS][256]; /* infer: this decision's weights by seat and key (<0: not yet) */
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
    free(b->scratch);
    free(b);
}

/* ABI 1.2: the arena asks before anything runs (ismcts_params.c). */
static int check_params(const char *params, char *err, size_t cap)
{
    ismcts_params p;
    return ismcts_params_parse(params, &p, err, cap);
}

/* What the game's entry e gives b: the auto values of p, the heuristics
 * (the playout rule: stride=N's where the game has one), the horizon. */
static void from_game(ismcts *b, const greedy_entry *e, const ismcts_params *p)
{
    greedy_act_fn pol = e->playout;
    if (p->stride != ISMCTS_STRIDE_AUTO)
        pol = e->strides ? e->strides[p->stride] : NULL; /* NULL: refused (refusal) */
    if (p->anchor == ISMCTS_ANCHOR_AUTO)
        b->p.anchor = e->anchor;
    if (p->verify == ISMCTS_VERIFY_AUTO)
        b->p.verify = e->verify;
    if (p->drop == ISMCTS_DROP_AUTO)
        b->p.drop = e->drop;
    if (p->infer == ISMCTS_INFER_AUTO)
        b->p.infer = e->infer_tries;
    if (e->infer)
        b->infer = e->infer, b->infer_key = e->infer_key, b->ipol = pol;
    if (p->iters == ISMCTS_ITERS_AUTO)
        b->p.iters = e->iters;
    if (p->steps == ISMCTS_STEPS_AUTO && p->iters == ISMCTS_ITERS_AUTO)
        b->p.steps = e->steps;
    if (b->p.verify > 0)
        b->vpol = pol;
    if (b->p.anchor > 0 || b->p.verify > 0)
        b->anchor = e->act;
    if (p->horizon == ISMCTS_HORIZON_HAND ||
        (p->horizon == ISMCTS_HORIZON_AUTO && e->hand_auto))
        b->horizon = e->hand_end, b->last = e->last;
    if (p->rollout == ISMCTS_ROLLOUT_GREEDY ||
        (p->rollout == ISMCTS_ROLLOUT_AUTO && e->in_auto))
        b->greedy = pol;
    b->strided = e->strides != NULL;
}

/* Why the parameters p cannot be had in b's game, or NULL. */
static const char *refusal(const ismcts *b, const ismcts_params *p)
{
    if (p->rollout == ISMCTS_ROLLOUT_GREEDY && !b->greedy)
        return "ismcts: no greedy heuristic for this game";
    if (p->stride != ISMCTS_STRIDE_AUTO && !b->strided)
        return "ismcts: stride=N is not available in this game";
    if (b->p.infer > 0 && !b->infer)
        return "ismcts: infer=N is not available in this game";
    if (p->horizon == ISMCTS_HORIZON_HAND && !b->horizon)
        return "ismcts: horizon=hand is not available in this game";
    return NULL;
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
        if (strcmp(GREEDY[i].game, game) == 0 && GREEDY[i].obs_version == g->obs_version)
            from_game(b, &GREEDY[i], &p);
    if (b->p.verify == ISMCTS_VERIFY_AUTO)
        b->p.verify = 0; /* a game without a heuristic: nothing to test against */
    if (b->p.iters == ISMCTS_ITERS_AUTO)
        b->p.iters = ISMCTS_DEFAULT_ITERS;
    if (b->p.drop == ISMCTS_DROP_AUTO)
        b->p.drop = ISMCTS_DEFAULT_DROP;
    if (b->p.steps == ISMCTS_STEPS_AUTO)
        b->p.steps = 0; /* iters given, or a game without its own budget: iterations alone */
    if (b->p.infer == ISMCTS_INFER_AUTO)
        b->p.infer = 0;
    const char *why = refusal(b, &p);
    if (why) {
        if (host->log)
            host->log(hctx, JA_LOG_ERROR, why);
        free(b);
        return JA_EUNSUPPORTED;
    }
    if (b->p.infer == 0)
        b->infer = NULL;
    b->pool = malloc(sizeof *b->pool * p.nodes);
    b->path = malloc(sizeof *b->path * p.nodes);
    b->st = malloc(g->state_size);
    b->obs = malloc(g->obs_size);
    b->legal = malloc(sizeof *b->legal * g->max_actions);
    b->tried = malloc(g->max_actions);
    b->base = malloc(g->state_size);
    b->scratch = malloc(g->obs_size);
    if (!b->pool || !b->path || !b->st || !b->obs || !b->legal || !b->tried || !b->base ||
        !b->scratch) {
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
 * b->legal): the heuristic pol, or uniform from rng when pol is NULL.
 * observed: b->obs already holds c's observation. */
static ja_action playout_action(ismcts *b, greedy_act_fn pol, ja_rng *rng, int c, uint32_t n,
                                int observed)
{
    if (pol) {
        if (!observed)
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
        b->work++;
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
 * (NULL: uniform random from rng), or with horizon=hand to the end of the
 * current hand (b->hand_end values the rest of the match). mask/pending/
 * by_seat: a joint window in progress (the seats of mask still in pending
 * have not chosen yet; pending 0: none). Fills r with every seat's reward;
 * 0 when the engine failed. */
static int play_out(ismcts *b, greedy_act_fn pol, ja_rng *rng, uint32_t mask, uint32_t pending,
                    ja_action *by_seat, uint32_t steps, double *r)
{
    int c, k;
    uint32_t n;
    while ((k = next_choice(b, &mask, &pending, &steps, &c, &n)) > 0) {
        int observed = 0;
        if (b->hand_end && mask == pending) { /* between engine steps */
            b->g->observe(b->st, c, b->obs);
            observed = 1;
            if (b->hand_end(b->obs, b->root, b->n_seats, r))
                return 1;
        }
        if (!choose(b, c, n > 1 ? playout_action(b, pol, rng, c, n, observed) : b->legal[0], mask,
                    &pending, by_seat))
            return 0;
    }
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

#define VERIFY_CANDS 4u
#define VERIFY_MIN 30u
/* Early stopping (early=on): every VERIFY_MIN pairs, a candidate whose mean
 * difference is at or below minus `drop` standard errors (1 by default;
 * every pair equal so far included) is dropped, and the test ends when none is left or one
 * beats greedy by VERIFY_EARLY_Z standard errors. Dropping only lowers the
 * rate of false departures from greedy; the early win is judged at a
 * threshold whose chance under "no gain" is about 2e-4 a look. */
#define VERIFY_EARLY_Z 3.5

/* The paired test's running sums: candidates (cand[0] is greedy's answer),
 * which are still played, and each one's sum and sum of squares of its
 * differences over the `ok` pairs. */
typedef struct verify_sums {
    uint32_t cand[VERIFY_CANDS], nc, ok;
    uint8_t live[VERIFY_CANDS];
    double sum[VERIFY_CANDS], sq[VERIFY_CANDS];
} verify_sums;

/* The candidates: greedy's answer gi, then every legal action when there
 * are at most VERIFY_CANDS (the search was skipped), else the search's most
 * visited other actions (ties: lower index). */
static void verify_candidates(const ismcts *b, const ja_decision *d, uint32_t gi, verify_sums *v)
{
    v->cand[v->nc++] = gi;
    if (d->n_legal <= VERIFY_CANDS) {
        for (uint32_t i = 0; i < d->n_legal; i++)
            if (i != gi)
                v->cand[v->nc++] = i;
        return;
    }
    while (v->nc < VERIFY_CANDS) {
        uint32_t pick = UINT32_MAX, pv = 0;
        for (uint32_t k = b->pool[0].child; k; k = b->pool[k].sibling) {
            const node *ch = &b->pool[k];
            int i = ch->seat == b->seat ? find_legal(d->legal, d->n_legal, ch->code) : -1;
            if (i < 0 || ch->visits == 0)
                continue;
            int taken = 0;
            for (uint32_t j = 0; j < v->nc; j++)
                taken |= v->cand[j] == (uint32_t)i;
            if (!taken && (pick == UINT32_MAX || ch->visits > pv ||
                           (ch->visits == pv && (uint32_t)i < pick))) {
                pick = (uint32_t)i;
                pv = ch->visits;
            }
        }
        if (pick == UINT32_MAX)
            break;
        v->cand[v->nc++] = pick;
    }
}

/* A uniform number in [0, 1) from rng. */
static double unit(ja_rng *rng)
{
    return (double)(ja_rng_next(rng) >> 11) * 0x1p-53;
}

/* The weight of the determinization in b->base (infer): the product over
 * the other seats of their weight (b->infer), cached per decision by seat
 * and key. */
static double sample_weight(ismcts *b, const void *root)
{
    double w = 1.0;
    for (uint32_t p = 0; p < b->n_seats; p++) {
        if ((int32_t)p == b->seat)
            continue;
        b->g->observe(b->base, (int)p, b->obs);
        int key = b->infer_key(b->obs);
        if (key < 0 || key > 255)
            continue;
        if (b->iw[p][key] < 0)
            b->iw[p][key] = b->infer(root, b->obs, b->scratch, b->ipol, b->legal);
        w *= b->iw[p][key];
    }
    return w;
}

/* The paired test's determinization into b->base, from seed. With infer=N
 * (informed determinizations) by rejection: a sample is kept with the
 * chance of its weight (sample_weight: how well the other seats' decisions
 * in this hand fit what it gives them, under the playout policy), and the
 * N-th try is kept whatever its weight. 0 when sample() failed. */
static int sample_base(ismcts *b, const void *root, uint64_t seed)
{
    const ja_game_rules *g = b->g;
    for (uint32_t t = 0;; t++) {
        if (g->sample(root, b->seat, seed, b->base) != JA_OK)
            return 0;
        if (!b->infer || t + 1 >= b->p.infer || unit(&b->rng) < sample_weight(b, root))
            return 1;
        seed = ja_rng_next(&b->rng);
    }
}

/* One pair: a determinization, every live candidate played from it and
 * continued by the heuristic with common random numbers; the differences
 * to greedy's answer are added to v. 0 when the determinization failed (it
 * counts for no candidate). */
static int verify_pair(ismcts *b, const ja_decision *d, verify_sums *v)
{
    const ja_game_rules *g = b->g;
    uint64_t sseed = ja_rng_next(&b->rng), pseed = ja_rng_next(&b->rng);
    if (!sample_base(b, d->obs, sseed))
        return 0;
    double rew[VERIFY_CANDS] = {0};
    for (uint32_t j = 0; j < v->nc; j++) {
        if (!v->live[j])
            continue;
        memcpy(b->st, b->base, g->state_size);
        ja_rng prng;
        ja_rng_seed(&prng, pseed);
        ja_action by_seat[JA_MAX_SEATS];
        memset(by_seat, 0, sizeof by_seat);
        uint32_t mask = g->to_act(b->st), pending = mask;
        double r[JA_MAX_SEATS];
        if (!(mask & (1u << b->seat)) ||
            !choose(b, b->seat, d->legal[v->cand[j]], mask, &pending, by_seat) ||
            !play_out(b, b->vpol, &prng, mask, pending, by_seat, 1, r))
            return 0;
        rew[j] = r[b->seat];
    }
    v->ok++;
    for (uint32_t j = 1; j < v->nc; j++) {
        double x = rew[j] - rew[0];
        v->sum[j] += x;
        v->sq[j] += x * x;
    }
    return 1;
}

/* Candidate j's mean difference and its standard error over v->ok pairs. */
static double verify_mean(const verify_sums *v, uint32_t j, double *se)
{
    double mean = v->sum[j] / v->ok;
    double var = (v->sq[j] - v->ok * mean * mean) / (v->ok - 1);
    *se = sqrt(var > 0 ? var / v->ok : 0);
    return mean;
}

/* The live candidate with the largest mean above z standard errors (and
 * above 0), or 0 (greedy's answer). */
static uint32_t verify_best(const verify_sums *v, double z)
{
    uint32_t best = 0;
    double best_mean = 0.0, se;
    for (uint32_t j = 1; j < v->nc; j++) {
        double mean = verify_mean(v, j, &se);
        if (v->live[j] && mean > best_mean && mean > z * se) {
            best = j;
            best_mean = mean;
        }
    }
    return best;
}

/* Early stopping at a look (every VERIFY_MIN pairs): drops the candidates
 * at or below minus `drop` standard errors, which cannot be expected to
 * win; 1 when the test is decided. */
static int verify_look(verify_sums *v, double drop)
{
    uint32_t live = 0;
    double se;
    for (uint32_t j = 1; j < v->nc; j++) {
        if (v->live[j] && verify_mean(v, j, &se) <= -drop * se)
            v->live[j] = 0;
        live += v->live[j];
    }
    return live == 0 || verify_best(v, VERIFY_EARLY_Z) > 0;
}

/* The paired rollout test at the root (verify=K > 0). The candidates are
 * greedy's answer gi and the search's most visited other actions (up to
 * VERIFY_CANDS in all; every legal action when there are no more). K
 * times: one determinization is sampled and every candidate is played from
 * it, then the match is played out by the game's heuristic for every seat,
 * the playouts of all candidates drawing the same random numbers (common
 * random numbers). Each candidate's reward minus greedy's in the same
 * determinization is one paired difference; a candidate replaces greedy's
 * answer only when the mean of its differences exceeds `anchor` standard
 * errors of that mean (a one-sided paired test), and the candidate with the
 * largest such mean is played. With early=on the test may stop before K
 * pairs (verify_look). This is the rollout method of policy improvement
 * (G. Tesauro, G. R. Galperin, "On-line policy improvement using
 * Monte-Carlo search", NIPS 9, 1997; D. P. Bertsekas, J. N. Tsitsiklis,
 * C. Wu, "Rollout algorithms for combinatorial optimization", Journal of
 * Heuristics 3, 1997) with the search choosing what to test. */
static uint32_t paired_test(ismcts *b, const ja_decision *d, uint32_t gi, int64_t stop)
{
    verify_sums v = {.nc = 0};
    verify_candidates(b, d, gi, &v);
    if (v.nc < 2)
        return gi;
    memset(v.live, 1, sizeof v.live);
    for (uint32_t k = 0; k < b->p.verify; k++) {
        if (stop != INT64_MAX && now_ms() >= stop)
            break;
        if (verify_pair(b, d, &v) && b->p.early && v.ok % VERIFY_MIN == 0 && verify_look(&v, b->p.drop))
            break;
    }
    if (v.ok < VERIFY_MIN)
        return gi; /* too few pairs for the normal approximation */
    return v.cand[verify_best(&v, b->p.anchor)];
}

/* The most hands (or games) left that the horizon values (with more, the
 * playout goes on). */
#define HORIZON_LEFT 64

/* The rest of a match valued instead of played (horizon=hand): `left`
 * hands (Bruise Jack) or games (Taylor Blackjack) to come, each giving its
 * point (JA_SCORE_UNIT) to one seat, and between players of the same
 * policy (greedy, in the playouts) each seat as likely as another to take
 * it: so for two seats, each one left moves the difference of their points
 * by +1 or -1 with chances 1/n each, else 0 (a shared point is not
 * modelled). A seat's reward is its expected pairwise place score under
 * that model, exact for the points already scored (score[]). 0 when too
 * many are left. Why: the hand being played is where the candidates
 * differ; the later ones are dealt alike for every candidate (their seeds
 * come with the determinization), so playing them adds their luck to every
 * difference and costs most of the playout. */
static int rest_value(const int32_t *score, int left, uint32_t n_seats, double *r)
{
    if (left > HORIZON_LEFT || n_seats < 2)
        return 0;
    /* dist[k + left]: the chance that the difference moves by k points. */
    double dist[2 * HORIZON_LEFT + 1] = {0}, nx[2 * HORIZON_LEFT + 1];
    double q = 1.0 / n_seats;
    dist[left] = 1.0;
    for (int h = 0; h < left; h++) {
        for (int k = 0; k <= 2 * left; k++)
            nx[k] = dist[k] * (1 - 2 * q) + (k > 0 ? dist[k - 1] * q : 0) +
                    (k < 2 * left ? dist[k + 1] * q : 0);
        memcpy(dist, nx, sizeof(double) * (size_t)(2 * left + 1));
    }
    for (uint32_t s = 0; s < n_seats; s++) {
        double sum = 0.0;
        for (uint32_t t = 0; t < n_seats; t++)
            for (int k = -left; k <= left && t != s; k++) {
                int64_t diff = (int64_t)score[s] - score[t] + (int64_t)k * JA_SCORE_UNIT;
                sum += dist[k + left] * (diff > 0 ? 1.0 : diff == 0 ? 0.5 : 0.0);
            }
        r[s] = sum / (n_seats - 1);
    }
    return 1;
}

#ifdef GREEDY_HAVE_BRUISE_JACK
/* Bruise Jack, horizon=hand: once a playout reaches the next regular hand,
 * the rest of the match is valued instead of played (rest_value). */
static int bj_hand_end(const void *obs, const void *root, uint32_t n_seats, double *r)
{
    const ja_bruise_jack_obs *o = obs, *o0 = root;
    if (o->hand == o0->hand)
        return 0;
    return rest_value(o->score, o->hands > o->hand ? o->hands - o->hand : 0, n_seats, r);
}

#define INFER_EPS 0.1

static int bj_infer_key(const void *pobs)
{
    const ja_bruise_jack_obs *o = pobs;
    return o->seat < JA_BRUISE_JACK_MAX_SEATS && o->has_centre[o->seat] ? o->centre : -1;
}

/* 1 when pol, deciding for w->seat at this stage (the card drawn: drawn),
 * takes code, or has no choice to make, or fails. */
static int bj_agrees(ja_bruise_jack_obs *w, int stage, uint8_t drawn, uint32_t code,
                     greedy_act_fn pol, ja_action *legal)
{
    uint32_t n = 0;
    w->stage = (uint8_t)stage;
    w->drawn = drawn;
    w->to_act = w->seat;
    if (stage == JA_BRUISE_JACK_STAGE_HIT) {
        legal[n++].code = JA_BRUISE_JACK_HIT;
        legal[n++].code = JA_BRUISE_JACK_STAND;
    } else {
        for (int r = 0; r < JA_BRUISE_JACK_ROWS; r++)
            if (w->open[w->seat * JA_BRUISE_JACK_ROWS + r])
                legal[n++].code = JA_BRUISE_JACK_PLACE(r);
    }
    ja_decision d = {.struct_size = sizeof d, .turn = 1, .seat = w->seat, .n_seats = w->n_seats,
                     .game = "bruise-jack", .obs_version = JA_BRUISE_JACK_OBS_VERSION,
                     .obs_size = sizeof *w, .obs = w, .legal = legal, .n_legal = n};
    uint32_t i = UINT32_MAX;
    return n < 2 || pol(&d, &i) != JA_OK || i >= n || legal[i].code == code;
}

/* Takes the card last placed by seat s back from row r of w (its up cards,
 * shown sum and open flag as before the placement); 0 when w does not end
 * with that card there. */
static int bj_unplace(ja_bruise_jack_obs *w, int s, int r, uint8_t card)
{
    int i = s * JA_BRUISE_JACK_ROWS + r, k = w->up_count[i];
    if (k == 0 || k > JA_BRUISE_JACK_MAX_UP || w->up[i * JA_BRUISE_JACK_MAX_UP + k - 1] != card)
        return 0;
    w->up[i * JA_BRUISE_JACK_MAX_UP + k - 1] = 0;
    w->up_count[i] = (uint8_t)(k - 1);
    w->shown[i] = (uint8_t)(w->shown[i] - ja_bruise_jack_hard(card, r));
    w->open[i] = !w->claimed[i] && w->shown[i] < JA_BRUISE_JACK_TARGET &&
                 !(w->guile && 1 + w->up_count[i] >= 5);
    return 1;
}

/* Bruise Jack's infer: seat p's observation pobs (its centre from the
 * sampled state) is walked back through the hand's public events in root,
 * newest first (every seat's placements taken back, its stands undone), and
 * at each of p's decisions (hit or stand, and the row of the card it drew)
 * pol is asked what it would have done; a claim, a deal or a showdown (or
 * the oldest event kept) ends the walk, the play of a hand needing none. */
static double bj_infer(const void *root, const void *pobs, void *scratch, greedy_act_fn pol,
                       ja_action *legal)
{
    const ja_bruise_jack_obs *o = root;
    ja_bruise_jack_obs *w = scratch;
    memcpy(w, pobs, sizeof *w);
    int p = w->seat, n = 0;
    double weight = 1.0;
    while (n < JA_BRUISE_JACK_EVENTS && o->ev_seq[n])
        n++;
    for (int e = n - 1; e >= 0; e--) {
        int kind = o->ev_kind[e], s = o->ev_seat[e], r = o->ev_arg[e];
        uint8_t card = o->ev_card[e];
        if (s >= w->n_seats)
            break;
        if (kind == JA_BRUISE_JACK_EV_STAND) {
            w->stood[s] = 0;
            if (s == p && !bj_agrees(w, JA_BRUISE_JACK_STAGE_HIT, JA_BRUISE_JACK_NONE,
                                     JA_BRUISE_JACK_STAND, pol, legal))
                weight *= INFER_EPS;
        } else if (kind == JA_BRUISE_JACK_EV_PLACE) {
            if (r >= JA_BRUISE_JACK_ROWS || !bj_unplace(w, s, r, card))
                break;
            w->stock_count++;
            if (s == p && !bj_agrees(w, JA_BRUISE_JACK_STAGE_PLACE, card,
                                     JA_BRUISE_JACK_PLACE(r), pol, legal))
                weight *= INFER_EPS;
        } else if (kind == JA_BRUISE_JACK_EV_HIT) {
            if (s == p && !bj_agrees(w, JA_BRUISE_JACK_STAGE_HIT, JA_BRUISE_JACK_NONE,
                                     JA_BRUISE_JACK_HIT, pol, legal))
                weight *= INFER_EPS;
        } else {
            break;
        }
    }
    return weight;
}
#endif

/* Taylor Blackjack, horizon=hand: a game is its hand (one deal); once a
 * playout reaches the next game, the rest of the match is valued instead
 * of played (rest_value). With games=1 no playout reaches a next game:
 * the match is played out as with horizon=match. */
static int taylor_game_end(const void *obs, const void *root, uint32_t n_seats, double *r)
{
    const ja_taylor_obs *o = obs, *o0 = root;
    if (o->game == o0->game)
        return 0;
    return rest_value(o->score, o->games > o->game ? o->games - o->game : 0, n_seats, r);
}

static int taylor_last_game(const void *root)
{
    const ja_taylor_obs *o = root;
    return o->game + 1 >= o->games;
}

#ifdef GREEDY_HAVE_JACK_IN_THE_BOX
#include "jitb_model.h"

/* Jack in the Box, horizon=hand: a game is its hand. Once a playout reaches
 * the first choice of the match's last game (its box deal scored), that
 * game is valued instead of played, from the score: with two seats (no
 * teams) in the standard variant, what the last game adds to its dealer's
 * lead is drawn from JITB_REST (greedy against greedy, the playouts'
 * policy: jitb_model_gen.c), and a seat's reward is its chance to finish
 * ahead, a tie counting half. Elsewhere (more seats, another variant, a
 * game before the last) the playout goes on. Why: as in Bruise Jack, the
 * later game is dealt alike for every candidate of the paired test, so
 * playing it adds its luck to every paired difference (a few points gained
 * in this game change the place in few pairs, the chance to finish ahead
 * in every one) and costs about half of the playout. */
static int jitb_game_end(const void *obs, const void *root, uint32_t n_seats, double *r)
{
    const ja_jitb_obs *o = obs, *o0 = root;
    if (o->game == o0->game || n_seats != 2 || o->teams || o->variant != JA_JITB_STANDARD ||
        o->game + 1 != o->games || o->dealer > 1)
        return 0;
    int d = o->dealer;
    int64_t lead = (int64_t)o->score[d] - o->score[1 - d];
    double ahead = 0;
    for (int x = -JITB_REST_MAX; x <= JITB_REST_MAX; x++)
        ahead += JITB_REST[x + JITB_REST_MAX] * (lead + x > 0 ? 1.0 : lead + x == 0 ? 0.5 : 0.0);
    r[d] = ahead / JITB_REST_TOTAL;
    r[1 - d] = 1.0 - r[d];
    return 1;
}

static int jitb_last_game(const void *root)
{
    const ja_jitb_obs *o = root;
    return o->game + 1 >= o->games;
}
#endif

static int act(void *bot, const ja_decision *d, uint32_t *out_index)
{
    ismcts *b = bot;
    if (!b || !d || !out_index || !d->legal || d->n_legal == 0 || !d->obs)
        return JA_EINVAL;
    if (d->obs_version != b->g->obs_version || d->obs_size < b->g->obs_size)
        return JA_EVERSION;
    ja_rng_seed(&b->rng, b->host->rng_next(b->hctx));
    b->root = d->obs;
    b->hand_end = b->horizon && !(b->last && b->last(d->obs)) ? b->horizon : NULL;
    b->pool[0] = (node){0};
    b->used = 1;
    if (b->infer)
        for (uint32_t p = 0; p < b->n_seats; p++)
            for (int k = 0; k < 256; k++)
                b->iw[p][k] = -1.0;
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
    /* The paired test takes every legal action when there are so few: the
     * search, which only chooses what it tests, is skipped. */
    int search = !(b->vpol && d->n_legal <= VERIFY_CANDS);
    b->work = 0;
    for (uint64_t i = 0; search && (b->p.ms || i < b->p.iters); i++) {
        /* The steps budget: a deterministic measure of the search's CPU
         * time, whatever the length of the match left to play out. */
        if (b->p.steps && b->work >= b->p.steps)
            break;
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
    .version = "1.5", /* 1.1: the root anchor; 1.2: the paired rollout test; 1.3: per-game
                         budgets, the paired test's early stopping, no search where
                         it tests every action; 1.4: the paired test in Taylor
                         Blackjack; Bruise Jack's playouts end with the hand
                         (horizon), 5000 pairs at 1.8 there, and Taylor
                         Blackjack's with the game; 1.5: Jack in the Box's
                         first game's playouts end with the game (the score
                         model), 2000 pairs there */
    .supports = supports,
    .create = create,
    .act = act,
    .end = NULL,
    .destroy = destroy,
    .extension = NULL,
    .check_params = check_params,
};

JA_BOT_DECLARE(desc)
