/* Luck-adjusted results of a replay (docs/ratings.md, "Luck-adjusted
 * results"): AIVAT-style control variates at the match's chance events
 * and the random bot's decisions, from the game's JA_EXT_CHANCE
 * (ja_rules.h) and playouts.
 *
 * For every chance event of the match (the deal; every decision whose
 * transition revealed something no seat had seen, or drew from the future),
 * the term value(after the event) - mean of value(after the same event with
 * the unseen cards reshuffled and the future replaced) over `samples`
 * independent reshuffles; the deal's term takes `samples` fresh setups. At
 * every decision of a seat whose policy is known exactly (the random
 * reference bot: uniform over the legal actions; a replay names it
 * "random" as the bot's own name, whatever its display name), the action term W(the action taken) - the mean of W over every
 * legal action, W(a) being the mean value after a over the same reshuffles
 * (the value after a itself where a reveals nothing). The value of a state
 * is the mean final score of `rollouts` playouts from it (random, or the
 * greedy reference bot's heuristic: adjust_policy), each after a reshuffle
 * (so it depends only on what the seats have seen); every state valued at
 * one decision on the same playout seeds. Adjusted score = raw score - the
 * sum of the terms: unbiased for any value estimate (the terms have mean
 * zero), and of lower variance the better the estimate follows the score.
 *
 * Every seed is derived from the replay's digest: the adjustment of a
 * replay is reproducible. Referee and analysis side only: it reads every
 * hidden card of the match. */
#ifndef ARENA_ADJUST_H
#define ARENA_ADJUST_H

#include "replay.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ADJUST_ROLLOUTS 8 /* default playouts per value estimate */
#define ADJUST_SAMPLES 4  /* default reshuffles (fresh deals) per chance event */
#define ADJUST_MAX 4096   /* the largest --rollouts and --samples */

/* The playout policy: every seat random; every seat the greedy reference
 * bot's heuristic (in this process); or each seat as the replay's player
 * plays when that is the random bot, else greedy. */
typedef enum adjust_policy {
    ADJUST_POLICY_RANDOM,
    ADJUST_POLICY_GREEDY,
    ADJUST_POLICY_PLAYERS,
    ADJUST_POLICIES
} adjust_policy;
extern const char *const ADJUST_POLICY_NAMES[ADJUST_POLICIES]; /* "random" ... */

/* Where a playout stops: at the end of the deal in play (its scores then:
 * the later deals do not depend on this one's chance, and leaving them out
 * leaves out their noise; for the action terms of a decision, the deal in
 * play at the decision, so that an action ending it is valued as the
 * others), or at the end of the match. */
typedef enum adjust_horizon { ADJUST_HORIZON_DEAL, ADJUST_HORIZON_MATCH, ADJUST_HORIZONS } adjust_horizon;
extern const char *const ADJUST_HORIZON_NAMES[ADJUST_HORIZONS]; /* "deal", "match" */

/* The kinds of term (bits of adjust_opts.skip, the ones left out): the
 * deal's, the later chance events', the known policies' actions. Leaving a
 * kind out keeps the adjustment unbiased (each term has mean zero) as long
 * as the choice is made before the match (per game, say), never from it. */
enum { ADJUST_TERM_DEAL = 1, ADJUST_TERM_CHANCE = 2, ADJUST_TERM_ACTION = 4, ADJUST_TERMS_ALL = 7 };
#define ADJUST_TERM_KINDS 3
extern const char *const ADJUST_TERM_NAMES[ADJUST_TERM_KINDS]; /* "deal", "chance", "action" */
/* What is adjusted: each seat's score in points, or its share, the
 * fraction of the other seats it finished ahead of (an equal place half:
 * the pairwise result the fit and the bench count, by the places of the
 * outcome, or of the scores so far where a playout stops at a deal's end).
 * The default (0) is points. */
typedef enum adjust_quantity { ADJUST_POINTS, ADJUST_SHARE, ADJUST_QUANTITIES } adjust_quantity;

typedef struct adjust_opts {
    uint32_t rollouts, samples; /* 1 .. ADJUST_MAX each */
    adjust_policy policy;
    adjust_horizon horizon;
    unsigned skip; /* ADJUST_TERM_* left out; 0 (the default): every term */
    adjust_quantity quantity;   /* ADJUST_POINTS unless set */
} adjust_opts;

/* Seat i's share among the n seats of o (adjust_quantity): (seats it is
 * ahead of + half the seats it ties) / (n - 1); 0.5 with one seat. */
double adjust_share(const ja_outcome *o, uint32_t n, uint32_t i);

/* Per seat, in points (the outcome's score / JA_SCORE_UNIT), or as shares
 * (adjust_opts.quantity). */
typedef struct adjust_result {
    uint32_t n_seats;
    uint32_t decisions;
    uint32_t events;                  /* decisions whose term was not exactly 0 */
    double raw[JA_MAX_SEATS];         /* the replay's score */
    double deal[JA_MAX_SEATS];        /* the deal's term */
    double chance[JA_MAX_SEATS];      /* the sum of the later chance terms */
    double adjusted[JA_MAX_SEATS];    /* raw - deal - chance - action */
    double action[JA_MAX_SEATS];      /* the sum of the action terms */
    uint32_t actions;                 /* decisions with an action term */
} adjust_result;

/* The adjustment of replay r (loaded, any verification left to this): JA_OK,
 * JA_EUNSUPPORTED (a game this build lacks, or without JA_EXT_CHANCE),
 * JA_EMISMATCH (the replay does not re-simulate), JA_EINVAL (options out of
 * range), each with one line in err. */
int adjust_replay(const ref_replay *r, const adjust_opts *o, adjust_result *out, char *err,
                  size_t cap);

/* The terms of decision t of r alone (out->chance, out->action, events,
 * actions; the deal's term, raw and adjusted left 0), on the seeds
 * adjust_replay uses there: the decisions before t re-simulated, those
 * after it not read. The same codes as adjust_replay, and JA_EINVAL for a
 * decision past the replay's. */
int adjust_decision(const ref_replay *r, const adjust_opts *o, uint32_t t, adjust_result *out,
                    char *err, size_t cap);

/* `arena replay adjust` of one file: loads and verifies the replay at path,
 * adjusts it, and writes to out its line and one line per seat (raw,
 * adjusted, the deal's term, the later chance terms' sum, the action
 * terms' sum), or with json one JSON object and a newline (file, game,
 * decisions, events, actions, rollouts, samples, policy, horizon,
 * terms (the kinds taken), ms (wall), cpu_ms (this process's CPU time), seats: [{raw,
 * adjusted, deal, chance, action}]). JA_OK, or the failing step's code with
 * one line naming the file in err. */
int adjust_file(FILE *out, const char *path, const adjust_opts *o, bool json, char *err,
                size_t cap);

#endif /* ARENA_ADJUST_H */
