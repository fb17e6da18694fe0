/* Cross-validation of the fit's models: how well each predicts the matches
 * it did not see (docs/ratings.md, "Choosing the model").
 *
 * The deals (ladder_fit_match.cluster) are sorted and dealt into `folds`
 * folds in turn (deal i to fold i mod folds), so that the matches of one
 * deal, which are correlated, are never split between fitting and
 * scoring. For each fold, every model is fitted (fit.h, mean anchor) on
 * the other folds and scores the fold's matches:
 *  - order log-loss: -ln P(finishing order) under Plackett-Luce with the
 *    model's ratings, tied places by Efron's rule (fit_pl.h): the same rule
 *    for every model, so it compares ratings, not formulas;
 *  - pairwise log-loss: per pair of seats of different players,
 *    -(s ln p + (1 - s) ln(1 - p)), p the Bradley-Terry (logistic Elo)
 *    expectation and s the pair's score (1, 1/2, 0);
 *  - top-1: 1 when the best-rated player won, 1/w when it shared first
 *    place with w - 1 others (with several best-rated players, the mean
 *    over them): the chance a guess of the winner from the ratings is
 *    right.
 * A held-out match with a player not rated in its fold's fit, or with
 * players of different parts (fit.h: no finite comparison), is skipped by
 * every model and counted. Replays (the same deal and seating, fit.h) share
 * one match's weight, as in the fit. "Equal ratings", every player at the
 * same rating, scores the same matches as the baseline.
 *
 * Pure; allocates scratch only. Any thread. */
#ifndef JA_LADDER_FIT_CV_H
#define JA_LADDER_FIT_CV_H

#include <stddef.h>
#include <stdint.h>

#include "fit.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LADDER_CV_FOLDS_DEFAULT 10u

/* One model's scores over the held-out matches (weighted means). */
typedef struct ladder_cv_score {
    double order_logloss; /* nats per match */
    double pair_logloss;  /* nats per pair */
    double top1;          /* 0 .. 1 */
} ladder_cv_score;

typedef struct ladder_cv {
    uint32_t folds;     /* used: the folds asked for, at most the deals */
    uint64_t clusters;  /* deals */
    uint64_t scored;    /* held-out matches scored (replays included) */
    uint64_t skipped;   /* held-out matches no model could score */
    double weight;      /* scored, replays counted once */
    double pairs;       /* pairs of seats scored, replays counted once */
    ladder_cv_score equal;                         /* every rating equal */
    ladder_cv_score model[LADDER_FIT_MODEL_COUNT]; /* by ladder_fit_model */
    /* Bradley-Terry's log-loss minus Plackett-Luce's (positive: Plackett-
     * Luce predicted better), of orders per match and of pairs per pair,
     * each with its standard error clustered by deal (the deals' sums of
     * differences, CR1 as the fit's sandwich; NAN with one deal scored). */
    double order_gain, order_gain_se, pair_gain, pair_gain_se;
} ladder_cv;

/* Cross-validates the models on n matches of n_players players (fit.h's
 * rules) with `folds` folds (0: LADDER_CV_FOLDS_DEFAULT). JA_OK with *out
 * filled; JA_EINVAL for what ladder_fit_run refuses, folds of 1, or fewer
 * than 2 deals; JA_ERANGE for too many players. */
int ladder_fit_crossval(const ladder_fit_match *m, size_t n, uint32_t n_players, uint32_t folds,
                        ladder_cv *out);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_FIT_CV_H */
