/* The Plackett-Luce likelihood of one finishing order, for the fit
 * (fit.h, LADDER_FIT_PLACKETT_LUCE) and for scoring predictions
 * (fit_cv.h).
 *
 * Model (R. L. Plackett, "The analysis of permutations", Applied
 * Statistics 24, 1975; R. D. Luce, Individual Choice Behavior, 1959): a
 * match's order is chosen from the top, each place going to one of the
 * seats still unplaced with probability proportional to its strength
 * g = e^theta, theta = R ln 10 / 400, the logistic Elo scale of elo.h (so
 * with two seats it is Bradley-Terry, and its ratings read as Elo):
 *     P(order) = prod over places t of  g_(t) / sum of g over the seats
 *                                                 placed t or later.
 * Tied places follow Efron's rule (B. Efron, "The efficiency of Cox's
 * likelihood function for censored data", JASA 72, 1977), the
 * approximation Cox regression uses for tied times: d seats sharing a
 * place, with R the seats placed there or later and D the tied ones,
 * contribute
 *     prod over i in D of g_i  /  prod over l = 0..d-1 of
 *                                  (sum_R g - (l/d) sum_D g),
 * the probability of one order of them, each later denominator replaced by
 * its mean over the d! orders: about 1/d! of the probability that they take
 * the d places in some order (exactly, at equal strengths). A tie is
 * then evidence of equal strength (two seats that tie for the last places,
 * or a whole match drawn, pull their ratings together), as a draw is a half
 * point in Bradley-Terry. The log-likelihood is concave in theta (a sum of
 * linear terms minus log-sum-exps), so Newton's method finds its maximum.
 *
 * Two seats of one player are two entries with one strength. Pure
 * functions, no allocation, any thread. */
#ifndef JA_LADDER_FIT_PL_H
#define JA_LADDER_FIT_PL_H

#include <stdint.h>

#include "fit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The weighted log-likelihood w log P of match m's order among the seats of
 * the players that loc maps to a local index 0..k-1 (the others are left
 * out: the order of the remaining seats is itself Plackett-Luce, Luce's
 * choice axiom), at theta th (by local index). With g (k), adds w times
 * the gradient; with h (k x k, row-major), w times the information (the
 * negative Hessian). A match with fewer than two of those players
 * contributes nothing (0, g and h untouched). m must be valid
 * (ladder_fit_run's rules). */
double ladder_pl_match(const ladder_fit_match *m, const int32_t *loc, uint32_t k,
                       const double *th, double w, double *g, double *h);

/* log P of match m's finishing order when player p has the Elo rating
 * elo[p], tied seats in any order among their places: Efron's term times d!
 * for each tie of d seats (so equal ratings give exactly the chance of a
 * uniformly random order); 0 for a match of one player. */
double ladder_pl_log_prob(const ladder_fit_match *m, const double *elo);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_FIT_PL_H */
