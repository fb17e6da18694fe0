/* Luck-adjusted results of a replay (adjust.h; the derivation in
 * docs/ratings.md, "Luck-adjusted results"). */
#include "view/adjust.h"

#include "core/json_w.h"
#include "greedy.h"
#include "greedy_games.h"
#include "ja_xalloc.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The streams of the adjustment's seeds, under the replay's digest. */
#define STREAM_ROLL JA_TAG('A', 'R', 'O', 'L') /* a playout: (decision key, r) */
#define STREAM_SAMP JA_TAG('A', 'S', 'M', 'P') /* a reshuffle or fresh deal: (decision key, k) */
#define STREAM_CANON JA_TAG('A', 'C', 'A', 'N') /* the reshuffle that compares seen parts */

/* The greedy reference bot's heuristics (bots/greedy), for greedy playouts:
 * the bot's own code, called in this process (Bruise Jack: its cheaper
 * playout rule). */
static const struct {
    const char *game;
    uint32_t obs_version;
    greedy_act_fn act;
} GREEDY[] = {
    {"taylor-blackjack", JA_TAYLOR_OBS_VERSION, greedy_taylor_act},
#ifdef GREEDY_HAVE_BRAWLJACK
    {"brawljack", JA_BRAWLJACK_OBS_VERSION, greedy_brawljack_act},
#endif
#ifdef GREEDY_HAVE_BRUISE_JACK
    /* The same rule over a sample of the unseen cards, as ismcts's playouts. */
    {"bruise-jack", JA_BRUISE_JACK_OBS_VERSION, greedy_bruise_jack_fast_act},
#endif
#ifdef GREEDY_HAVE_JACK_IN_THE_BOX
    {"jack-in-the-box", JA_JITB_OBS_VERSION, greedy_jack_in_the_box_act},
#endif
#ifdef GREEDY_HAVE_BOMBS
    {"bombs", JA_BOMBS_OBS_VERSION, greedy_bombs_act},
#endif
};

const char *const ADJUST_POLICY_NAMES[ADJUST_POLICIES] = {"random", "greedy", "players"};
const char *const ADJUST_HORIZON_NAMES[ADJUST_HORIZONS] = {"deal", "match"};
const char *const ADJUST_TERM_NAMES[ADJUST_TERM_KINDS] = {"deal", "chance", "action"};

typedef struct adj_ctx {
    const ja_game_rules *g;
    const ja_ext_chance *ch;
    const ref_replay *r;
    uint32_t n, rollouts, samples;
    uint64_t base;               /* from the digest */
    uint8_t *cur, *next, *alt, *roll, *canon_a, *canon_b, *x;
    ja_action *legal, *alts;          /* a playout's legal list; an action term's */
    unsigned skip;                    /* ADJUST_TERM_* left out */
    bool known[JA_MAX_SEATS];         /* the seat's policy is known: the random bot */
    uint8_t *obs;                     /* a greedy seat's observation */
    greedy_act_fn pol[JA_MAX_SEATS];  /* each seat's playout policy; NULL: random */
    adjust_horizon horizon;
    uint32_t stop_deal; /* horizon deal: the deal playouts end with; NO_STOP: the valued state's */
    adjust_quantity quantity;
    double v_next[JA_MAX_SEATS]; /* value of the real state after the event */
} adj_ctx;

#define NO_STOP UINT32_MAX

/* The seed of sample or playout k of the chance event `key` (0 the deal,
 * t + 1 decision t) on stream. */
static uint64_t seed_of(const adj_ctx *c, uint64_t stream, uint64_t key, uint32_t k)
{
    return ja_seed_derive(ja_seed_derive(c->base, stream, key), stream, k);
}

double adjust_share(const ja_outcome *o, uint32_t n, uint32_t i)
{
    if (n < 2)
        return 0.5;
    double halves = 0;
    for (uint32_t j = 0; j < n; j++)
        if (j != i)
            halves += o->place[i] < o->place[j] ? 2 : o->place[i] == o->place[j];
    return halves / (2.0 * (n - 1));
}

/* Seat i's result in o: points, or its share (adjust_quantity). */
static double measure(const adj_ctx *c, const ja_outcome *o, uint32_t i)
{
    return c->quantity == ADJUST_SHARE ? adjust_share(o, c->n, i) : (double)o->score[i] / JA_SCORE_UNIT;
}

/* The index of seat s's playout action among the nl actions of c->legal:
 * its greedy heuristic's on its observation of c->roll, or a uniformly
 * random one (random seats, single choices, a heuristic that fails). */
static uint32_t pick(adj_ctx *c, int s, uint32_t nl, ja_rng *rng)
{
    uint32_t r = ja_rng_below(rng, nl), i;
    if (!c->pol[s] || nl < 2)
        return r;
    c->g->observe(c->roll, s, c->obs);
    ja_decision d = {.struct_size = sizeof d, .turn = 1, .seat = s, .n_seats = c->n,
                     .game = c->g->name, .obs_version = c->g->obs_version,
                     .obs_size = c->g->obs_size, .obs = c->obs, .legal = c->legal, .n_legal = nl};
    return c->pol[s](&d, &i) == JA_OK && i < nl ? i : r;
}

/* One playout from st: reshuffled on seed, then every asked seat plays its
 * policy's action (pick) to the end of the deal in play (horizon deal: its
 * scores as progress() gives them when the next deal starts) or of the
 * match (the outcome); those scores (points) are added to acc. */
static void rollout(adj_ctx *c, const void *st, uint64_t seed, double *acc)
{
    const ja_game_rules *g = c->g;
    memcpy(c->roll, st, g->state_size);
    c->ch->reshuffle(c->roll, ja_seed_derive(seed, STREAM_SAMP, 0));
    ja_rng rng;
    ja_rng_stream(&rng, seed, STREAM_ROLL, 0);
    ja_outcome o;
    uint32_t deal = c->ch->progress(c->roll, &o);
    if (c->stop_deal != NO_STOP)
        deal = c->stop_deal; /* a state past it: the scores so far */
    for (uint32_t mask; (mask = g->to_act(c->roll)) != 0;) {
        if (c->horizon == ADJUST_HORIZON_DEAL && c->ch->progress(c->roll, &o) != deal)
            break;
        ja_action by[JA_MAX_SEATS] = {{0}};
        for (uint32_t m = mask; m; m &= m - 1) {
            int s = __builtin_ctz(m);
            uint32_t nl = g->legal(c->roll, s, c->legal, g->max_actions);
            by[s] = c->legal[pick(c, s, nl, &rng)];
        }
        if (g->apply(c->roll, mask, by) != JA_OK)
            break; /* cannot happen: the actions are legal */
    }
    if (g->to_act(c->roll) == 0)
        c->ch->progress(c->roll, &o); /* the final scores: outcome()'s */
    for (uint32_t i = 0; i < c->n; i++)
        acc[i] += measure(c, &o, i);
}

/* The value of st (points per seat) for the chance event `key`: the mean of
 * c->rollouts playouts, on seeds that depend on key alone (every state
 * compared at one event is valued with the same playout seeds). */
static void value(adj_ctx *c, const void *st, uint64_t key, double *v)
{
    double acc[JA_MAX_SEATS] = {0};
    for (uint32_t k = 0; k < c->rollouts; k++)
        rollout(c, st, seed_of(c, STREAM_ROLL, key, k), acc);
    for (uint32_t i = 0; i < c->n; i++)
        v[i] = acc[i] / c->rollouts;
}

/* Whether a and b agree on everything some seat has seen: their canonical
 * reshuffles (the same seed) are byte-identical (JA_EXT_CHANCE: reshuffle's
 * result depends only on the seen part and the seed). Such states have the
 * same value at an event, exactly. */
static bool same_seen(adj_ctx *c, const void *a, const void *b)
{
    size_t z = c->g->state_size;
    uint64_t s = ja_seed_derive(c->base, STREAM_CANON, 0);
    memcpy(c->canon_a, a, z);
    memcpy(c->canon_b, b, z);
    c->ch->reshuffle(c->canon_a, s);
    c->ch->reshuffle(c->canon_b, s);
    return memcmp(c->canon_a, c->canon_b, z) == 0;
}

/* Adds to term[] one sample's share of value(c->next) - value(c->alt) for
 * event key, c->alt being the state after the event under another chance
 * outcome; *valued says whether c->v_next is computed yet. Returns whether
 * the sample differed from the real state in what is seen. */
static bool add_sample(adj_ctx *c, uint64_t key, bool *valued, double *term)
{
    if (same_seen(c, c->next, c->alt))
        return false;
    if (!*valued) {
        value(c, c->next, key, c->v_next);
        *valued = true;
    }
    double v[JA_MAX_SEATS];
    value(c, c->alt, key, v);
    for (uint32_t i = 0; i < c->n; i++)
        term[i] += (c->v_next[i] - v[i]) / c->samples;
    return true;
}

/* The deal's term (key 0): value(setup(the replay's seed)) - the mean over
 * c->samples fresh setups (none when n is 0: the term left out); c->cur
 * the setup. */
static int deal_term(adj_ctx *c, uint32_t n, double *term)
{
    const ref_replay *r = c->r;
    if (c->g->setup(c->next, &r->h.options, r->h.n_seats, r->h.seed) != JA_OK)
        return JA_EMISMATCH;
    memcpy(c->cur, c->next, c->g->state_size);
    bool valued = false;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t seed = seed_of(c, STREAM_SAMP, 0, k);
        if (c->g->setup(c->alt, &r->h.options, r->h.n_seats, seed) != JA_OK)
            return JA_EMISMATCH;
        add_sample(c, 0, &valued, term);
    }
    return JA_OK;
}

/* The samples of decision t's transition under the joint action by of the
 * seats mask: for each reshuffle k of c->cur (the same K for every action
 * compared at t), apply(reshuffle_k(cur), by) into c->alt; those that
 * differ from x (apply(cur, by)) in what is seen are valued and their
 * values added to diff[]. Returns their number (the others are worth V(x)
 * exactly), or -1 with err when a reshuffle made by illegal. */
static int sample_after(adj_ctx *c, uint32_t t, uint32_t mask, const ja_action *by, const void *x,
                        double *diff, char *err, size_t cap)
{
    int nd = 0;
    for (uint32_t k = 0; k < c->samples; k++) {
        memcpy(c->alt, c->cur, c->g->state_size);
        c->ch->reshuffle(c->alt, seed_of(c, STREAM_SAMP, (uint64_t)t + 1, k));
        if (c->g->apply(c->alt, mask, by) != JA_OK) {
            snprintf(err, cap, "decision %u: a reshuffle made the recorded action illegal "
                     "(the game's JA_EXT_CHANCE is wrong)", t);
            return -1;
        }
        if (same_seen(c, x, c->alt))
            continue;
        double v[JA_MAX_SEATS];
        value(c, c->alt, (uint64_t)t + 1, v);
        for (uint32_t i = 0; i < c->n; i++)
            diff[i] += v[i];
        nd++;
    }
    return nd;
}

/* W(a) at decision t: the mean over the K reshuffles of the value after the
 * joint action by, from the samples' sum diff of the nd that differ from
 * x in what is seen and the value vx of x (the others'), into w. */
static void mean_after(const adj_ctx *c, int nd, const double *diff, const double *vx, double *w)
{
    for (uint32_t i = 0; i < c->n; i++)
        w[i] = (diff[i] + (double)(c->samples - (uint32_t)nd) * vx[i]) / c->samples;
}

/* W(by) at decision t into w: the mean over the K reshuffles of c->cur of
 * the value after the joint action by of the seats mask, x being
 * apply(cur, by). JA_OK, or JA_EMISMATCH with err (sample_after). */
static int w_after(adj_ctx *c, uint32_t t, uint32_t mask, const ja_action *by, const void *x,
                   double *w, char *err, size_t cap)
{
    double diff[JA_MAX_SEATS] = {0}, vx[JA_MAX_SEATS] = {0};
    int nd = sample_after(c, t, mask, by, x, diff, err, cap);
    if (nd < 0)
        return JA_EMISMATCH;
    if ((uint32_t)nd < c->samples)
        value(c, x, (uint64_t)t + 1, vx);
    mean_after(c, nd, diff, vx, w);
    return JA_OK;
}

/* Seat s's action term at decision t (mask, by the recorded actions, taken
 * W of the action taken): taken - the mean of W over seat s's nl legal
 * actions at c->cur, in c->alts (uniform: the random bot's policy), every
 * other seat's action as recorded; added to acc[]. */
static int action_term(adj_ctx *c, uint32_t t, uint32_t mask, const ja_action *by, int s,
                       uint32_t nl, const double *taken, double *acc, char *err, size_t cap)
{
    const ja_game_rules *g = c->g;
    double mean[JA_MAX_SEATS] = {0};
    ja_action b[JA_MAX_SEATS];
    memcpy(b, by, sizeof b);
    for (uint32_t j = 0; j < nl; j++) {
        double w[JA_MAX_SEATS];
        if (c->alts[j].code == by[s].code) {
            memcpy(w, taken, sizeof w);
        } else {
            b[s] = c->alts[j];
            memcpy(c->x, c->cur, g->state_size);
            if (g->apply(c->x, mask, b) != JA_OK) {
                snprintf(err, cap, "decision %u: seat %d's legal action %u is refused", t, s,
                         c->alts[j].code);
                return JA_EMISMATCH;
            }
            if (w_after(c, t, mask, b, c->x, w, err, cap) != JA_OK)
                return JA_EMISMATCH;
        }
        for (uint32_t i = 0; i < c->n; i++)
            mean[i] += w[i] / nl;
    }
    for (uint32_t i = 0; i < c->n; i++)
        acc[i] += taken[i] - mean[i];
    return JA_OK;
}

/* The horizon of decision t's action terms: with horizon deal, every
 * state valued for them (after each legal action, its reshuffles) is
 * played to the end of the deal in play at c->cur (c->stop_deal; a state
 * past it is worth its scores so far), so that an action ending the deal
 * is not valued with the next deal's points as well, which the others
 * lack (a fixed function of c->cur: the terms keep mean 0). taken, W of
 * the recorded actions by as the chance term valued it, is valued again
 * to that horizon when they end the deal. */
static int action_horizon(adj_ctx *c, uint32_t t, uint32_t mask, const ja_action *by,
                          double *taken, char *err, size_t cap)
{
    ja_outcome o;
    if (c->horizon != ADJUST_HORIZON_DEAL)
        return JA_OK;
    c->stop_deal = c->ch->progress(c->cur, &o);
    if (c->ch->progress(c->next, &o) == c->stop_deal)
        return JA_OK; /* valued to the end of this deal already */
    return w_after(c, t, mask, by, c->next, taken, err, cap);
}

/* Whether the action of this record is the known policy's choice: a
 * random seat's, asked, not forced, without a fault. */
static bool policy_known(const adj_ctx *c, const ref_replay_rec *rec)
{
    return c->known[rec->seat] && rec->asked && rec->fault == JA_FAULT_NONE && !rec->forced;
}

/* Decision t (key t + 1) from c->cur: applies the replay's actions into
 * c->next and, with terms, adds its chance term to out->chance (0 when no
 * reshuffle of c->cur changes what the actions reveal: then not an event)
 * and the action terms of the seats whose policy is known to out->action. */
static int decision_term(adj_ctx *c, uint32_t t, bool terms, adjust_result *out, char *err,
                         size_t cap)
{
    const ref_replay_step *sp = &c->r->steps[t];
    ja_action by[JA_MAX_SEATS] = {{0}};
    for (uint32_t k = 0; k < sp->n; k++) {
        const ref_replay_rec *rec = &c->r->recs[sp->first + k];
        by[rec->seat].code = rec->code;
    }
    size_t z = c->g->state_size;
    memcpy(c->next, c->cur, z);
    if (c->g->to_act(c->cur) != sp->seats || c->g->apply(c->next, sp->seats, by) != JA_OK) {
        snprintf(err, cap, "decision %u does not re-simulate", t);
        return JA_EMISMATCH;
    }
    if (!terms) {
        memcpy(c->cur, c->next, z);
        return JA_OK;
    }
    double diff[JA_MAX_SEATS] = {0}, vnext[JA_MAX_SEATS] = {0}, taken[JA_MAX_SEATS];
    bool known = false; /* some seat's action here may take an action term */
    for (uint32_t k = 0; k < sp->n && !(c->skip & ADJUST_TERM_ACTION); k++)
        known |= policy_known(c, &c->r->recs[sp->first + k]);
    int nd = 0;
    if (!(c->skip & ADJUST_TERM_CHANCE) || known)
        nd = sample_after(c, t, sp->seats, by, c->next, diff, err, cap);
    if (nd < 0)
        return JA_EMISMATCH;
    bool valued = nd > 0 && !(c->skip & ADJUST_TERM_CHANCE);
    if (valued) {
        value(c, c->next, (uint64_t)t + 1, vnext);
        out->events++;
        for (uint32_t i = 0; i < c->n; i++)
            out->chance[i] += ((double)nd * vnext[i] - diff[i]) / c->samples;
    }
    for (uint32_t k = 0; k < sp->n && known; k++) {
        const ref_replay_rec *rec = &c->r->recs[sp->first + k];
        uint32_t nl = policy_known(c, rec) ? c->g->legal(c->cur, rec->seat, c->alts,
                                                         c->g->max_actions)
                                           : 0;
        if (nl < 2)
            continue;
        if (!valued)
            value(c, c->next, (uint64_t)t + 1, vnext);
        valued = true;
        mean_after(c, nd, diff, vnext, taken);
        int rc = action_horizon(c, t, sp->seats, by, taken, err, cap);
        if (rc == JA_OK)
            rc = action_term(c, t, sp->seats, by, rec->seat, nl, taken, out->action, err, cap);
        c->stop_deal = NO_STOP;
        if (rc != JA_OK)
            return rc;
        out->actions++;
    }
    memcpy(c->cur, c->next, z);
    return JA_OK;
}

/* Seat player p is the random reference bot (its policy known: uniform
 * over the legal actions): the bot's own name in the replay is `random`,
 * as a plugin or a hosted one, whatever its display name (`random#2`, a
 * NAME=); a replay written before the own name was kept has only the
 * display name: `random`, or `random#N` (the second of two). */
static bool plays_random(const ref_replay_player *p)
{
    if (p->bot[0])
        return strcmp(p->bot, "random") == 0 &&
               (strcmp(p->kind, "plugin") == 0 || strcmp(p->kind, "hosted") == 0);
    if (strncmp(p->name, "random", 6) != 0)
        return false;
    const char *n = p->name + 6;
    if (*n == '\0')
        return true;
    return *n == '#' && n[1] && strspn(n + 1, "0123456789") == strlen(n + 1);
}

/* Each seat's playout policy (adjust.h, ADJUST_POLICY_*). JA_EUNSUPPORTED
 * when greedy is asked of a game it does not play. */
static int set_policies(adj_ctx *c, const ref_replay *r, adjust_policy p, char *err, size_t cap)
{
    greedy_act_fn greedy = NULL;
    for (size_t i = 0; i < sizeof GREEDY / sizeof GREEDY[0]; i++)
        if (strcmp(GREEDY[i].game, c->g->name) == 0 && GREEDY[i].obs_version == c->g->obs_version)
            greedy = GREEDY[i].act;
    if (p != ADJUST_POLICY_RANDOM && !greedy) {
        snprintf(err, cap, "no greedy playouts for game '%s' (this build's greedy lacks it)",
                 c->g->name);
        return JA_EUNSUPPORTED;
    }
    for (uint32_t s = 0; s < r->h.n_seats; s++) {
        c->known[s] = plays_random(&r->h.players[s]);
        c->pol[s] = p == ADJUST_POLICY_GREEDY || (p == ADJUST_POLICY_PLAYERS && !c->known[s])
                        ? greedy
                        : NULL;
    }
    return JA_OK;
}

/* The game of r and its JA_EXT_CHANCE, the options checked, the buffers. */
static int adj_open(adj_ctx *c, const ref_replay *r, const adjust_opts *o, char *err, size_t cap)
{
    memset(c, 0, sizeof *c);
    if (!r->game) {
        snprintf(err, cap, "this build has no game '%s'", r->h.game);
        return JA_EUNSUPPORTED;
    }
    c->g = r->game;
    c->ch = ja_rules_extension(c->g, JA_EXT_CHANCE);
    if (!c->ch) {
        snprintf(err, cap, "game '%s' offers no JA_EXT_CHANCE: its luck cannot be taken out",
                 c->g->name);
        return JA_EUNSUPPORTED;
    }
    if (o->rollouts < 1 || o->rollouts > ADJUST_MAX || o->samples < 1 || o->samples > ADJUST_MAX ||
        o->policy >= ADJUST_POLICIES || o->horizon >= ADJUST_HORIZONS ||
        (o->skip & ~(unsigned)ADJUST_TERMS_ALL) || o->quantity >= ADJUST_QUANTITIES) {
        snprintf(err, cap, "rollouts and samples must be 1 to %u, the policy one of %u, the terms "
                 "left out among %u, the quantity one of %u", ADJUST_MAX, ADJUST_POLICIES,
                 ADJUST_TERMS_ALL, ADJUST_QUANTITIES);
        return JA_EINVAL;
    }
    int rc = set_policies(c, r, o->policy, err, cap);
    if (rc != JA_OK)
        return rc;
    c->r = r;
    c->n = r->h.n_seats;
    c->rollouts = o->rollouts;
    c->horizon = o->horizon;
    c->stop_deal = NO_STOP;
    c->quantity = o->quantity;
    c->samples = o->samples;
    c->skip = o->skip;
    uint64_t d = 0;
    for (int i = 0; i < 8; i++)
        d = d << 8 | r->digest[i];
    c->base = ja_seed_derive(d, JA_TAG('A', 'D', 'J', 'S'), 0);
    size_t z = c->g->state_size;
    c->cur = ja_xcalloc(7, z);
    c->next = c->cur + z;
    c->alt = c->cur + 2 * z;
    c->roll = c->cur + 3 * z;
    c->canon_a = c->cur + 4 * z;
    c->canon_b = c->cur + 5 * z;
    c->x = c->cur + 6 * z;
    c->legal = ja_xcalloc(c->g->max_actions, sizeof *c->legal);
    c->alts = ja_xcalloc(c->g->max_actions, sizeof *c->alts);
    c->obs = ja_xcalloc(1, c->g->obs_size);
    return JA_OK;
}

static void adj_close(adj_ctx *c)
{
    free(c->cur);
    free(c->legal);
    free(c->alts);
    free(c->obs);
}

/* adj_open, and out cleared but for its seats and decisions. */
static int adj_begin(adj_ctx *c, const ref_replay *r, const adjust_opts *o, adjust_result *out,
                     char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    int rc = adj_open(c, r, o, err, cap);
    out->n_seats = rc == JA_OK ? c->n : 0;
    out->decisions = rc == JA_OK ? r->n_steps : 0;
    return rc;
}

int adjust_replay(const ref_replay *r, const adjust_opts *o, adjust_result *out, char *err,
                  size_t cap)
{
    adj_ctx c;
    int rc = adj_begin(&c, r, o, out, err, cap);
    if (rc != JA_OK)
        return rc;
    rc = deal_term(&c, (c.skip & ADJUST_TERM_DEAL) ? 0 : c.samples, out->deal);
    if (rc != JA_OK)
        snprintf(err, cap, "the game refused the replay's setup");
    for (uint32_t t = 0; rc == JA_OK && t < r->n_steps; t++)
        rc = decision_term(&c, t, true, out, err, cap);
    ja_outcome fin;
    if (rc == JA_OK && (c.g->to_act(c.cur) != 0 || c.g->outcome(c.cur, &fin) != JA_OK)) {
        snprintf(err, cap, "the match is not over after the replay's %u decisions", r->n_steps);
        rc = JA_EMISMATCH;
    }
    for (uint32_t i = 0; rc == JA_OK && i < c.n; i++)
        if (fin.score[i] != r->outcome.score[i]) {
            snprintf(err, cap, "seat %u: the replay records score %lld, the rules give %lld", i,
                     (long long)r->outcome.score[i], (long long)fin.score[i]);
            rc = JA_EMISMATCH;
        }
    for (uint32_t i = 0; rc == JA_OK && i < c.n; i++) {
        out->raw[i] = measure(&c, &fin, i);
        out->adjusted[i] = out->raw[i] - out->deal[i] - out->chance[i] - out->action[i];
    }
    adj_close(&c);
    return rc;
}

int adjust_decision(const ref_replay *r, const adjust_opts *o, uint32_t t, adjust_result *out,
                    char *err, size_t cap)
{
    adj_ctx c;
    int rc = adj_begin(&c, r, o, out, err, cap);
    if (rc != JA_OK)
        return rc;
    if (t >= r->n_steps) {
        snprintf(err, cap, "decision %u is past the replay's %u", t, r->n_steps);
        rc = JA_EINVAL;
    } else if (c.g->setup(c.cur, &r->h.options, r->h.n_seats, r->h.seed) != JA_OK) {
        snprintf(err, cap, "the game refused the replay's setup");
        rc = JA_EMISMATCH;
    }
    for (uint32_t u = 0; rc == JA_OK && u <= t; u++)
        rc = decision_term(&c, u, u == t, out, err, cap);
    adj_close(&c);
    return rc;
}

/* ---- arena replay adjust ------------------------------------------------------------- */

static double now_ms(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void print_json(FILE *out, const char *path, const ref_replay *r, const adjust_opts *o,
                       const adjust_result *a, double ms, double cpu)
{
    json_w w;
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_str(&w, "file", path);
    jw_str(&w, "game", r->h.game);
    jw_int(&w, "decisions", a->decisions);
    jw_int(&w, "events", a->events);
    jw_int(&w, "actions", a->actions);
    jw_int(&w, "rollouts", o->rollouts);
    jw_int(&w, "samples", o->samples);
    jw_str(&w, "policy", ADJUST_POLICY_NAMES[o->policy]);
    jw_str(&w, "horizon", ADJUST_HORIZON_NAMES[o->horizon]);
    jw_arr(&w, "terms");
    for (int k = 0; k < ADJUST_TERM_KINDS; k++)
        if (!(o->skip & (1u << k)))
            jw_str(&w, NULL, ADJUST_TERM_NAMES[k]);
    jw_arr_end(&w);
    jw_num(&w, "ms", ms);
    jw_num(&w, "cpu_ms", cpu);
    jw_arr(&w, "seats");
    for (uint32_t i = 0; i < a->n_seats; i++) {
        jw_obj(&w, NULL);
        jw_num(&w, "raw", a->raw[i]);
        jw_num(&w, "adjusted", a->adjusted[i]);
        jw_num(&w, "deal", a->deal[i]);
        jw_num(&w, "chance", a->chance[i]);
        jw_num(&w, "action", a->action[i]);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_obj_end(&w);
    jw_end(&w);
}

int adjust_file(FILE *out, const char *path, const adjust_opts *o, bool json, char *err,
                size_t cap)
{
    ref_replay *r = NULL;
    char why[1024];
    int rc = ref_replay_load(path, &r, why, sizeof why);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", why);
        return rc;
    }
    uint8_t digest[REF_DIGEST_BYTES];
    rc = r->game ? ref_replay_verify(r, digest, why, sizeof why) : JA_OK;
    adjust_result a;
    double t0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
    if (rc == JA_OK)
        rc = adjust_replay(r, o, &a, why, sizeof why);
    double ms = now_ms(CLOCK_MONOTONIC) - t0, cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (rc != JA_OK) {
        snprintf(err, cap, "replay '%s': %s", path, why);
    } else if (json) {
        print_json(out, path, r, o, &a, ms, cpu);
    } else {
        fprintf(out, "%s: %s, %u seats, %u decisions, %u chance events, %u action terms, %.0f ms\n",
                path, r->h.game, a.n_seats, a.decisions, a.events, a.actions, ms);
        for (uint32_t i = 0; i < a.n_seats; i++)
            fprintf(out, "  seat %u: raw %.3f  adjusted %.3f  (deal %+.3f, later chance %+.3f, "
                    "actions %+.3f)\n", i, a.raw[i], a.adjusted[i], a.deal[i], a.chance[i],
                    a.action[i]);
    }
    ref_replay_free(&r);
    return rc;
}
