/* Paired results: statistics of a bot against one opponent on duplicate
 * deals, and the sequential probability ratio test on them.
 *
 * A deal is played once per seat rotation with the same cards, and its
 * result is one number in [0, 1]: the bot's mean pairwise score over the
 * rotations (win 1, draw 1/2, loss 0 against each opponent seat). With two
 * seats a deal is a game pair and its score one of 0, 1/4, 1/2, 3/4, 1 (the
 * pentanomial model of fishtest and fastchess); with K seats it is a
 * multiple of 1/(2K(K-1)). Results are kept as a histogram over that grid:
 * cell i holds the deals that scored i / (n_cells - 1).
 *
 * SPRT: the generalized SPRT on the histogram (M. Van den Bergh, "A
 * generalized sequential probability ratio test", and "Proposition 1.1" of
 * his note "On the MLE of a multinomial distribution with given
 * expectation", the fishtest support documents; fishtest's LLRcalc.py and
 * fastchess use the same computation). H0: the expected score is s0 =
 * L(elo0), H1: s1 = L(elo1), L the logistic Elo curve. For each s the
 * maximum-likelihood distribution with expectation s is
 *     p_i(s) = phat_i / (1 + x (a_i - s)),   sum phat_i (a_i - s) / (1 + x (a_i - s)) = 0,
 * and the log-likelihood ratio is LLR = N sum phat_i ln(p_i(s1) / p_i(s0)).
 * The test stops at the first LLR outside Wald's bounds (A. Wald,
 * "Sequential tests of statistical hypotheses", Ann. Math. Statist. 16(2),
 * 1945): lower = ln(beta / (1 - alpha)), upper = ln((1 - beta) / alpha).
 *
 * Normalized Elo (M. Van den Bergh, "Comments on normalized Elo", the
 * fishtest support notes; fishtest's LLR_normalized, fastchess's
 * "normalized" model): the hypotheses are on the t-value
 * t = (mu - 1/2) / sigma of a deal score instead of its mean, and
 * nElo = t_match * 800 / ln 10 with t_match = t / sqrt(G), G the matches of
 * a deal (the per-match t-value of G independent matches with the deal's
 * variance; with two seats G = 2, fishtest's pentanomial sqrt 2). The MLE
 * under a t-value constraint is Van den Bergh's fixed point (his section
 * 4.1): with mu, sigma those of the current p,
 *     phi_i = a_i - 1/2 - t sigma (1 + ((a_i - mu) / sigma)^2) / 2,
 *     p_i = phat_i / (1 + x phi_i),   sum phat_i phi_i / (1 + x phi_i) = 0.
 *
 * A gauntlet (one candidate, k opponents) runs one SPRT per opponent:
 * H1 of the gauntlet, "at least elo1 against every opponent", is accepted
 * when every test has accepted its H1, and H0, "at most elo0 against some
 * opponent", as soon as one test accepts its H0. A false H1 needs a false
 * H1 in the test of an opponent where H0 holds, so each test at alpha keeps
 * the gauntlet at alpha (an intersection-union test: R. L. Berger,
 * "Multiparameter hypothesis testing and acceptance sampling",
 * Technometrics 24(4), 1982); a false H0 may come from any of the k tests,
 * so each runs at beta / k (Bonferroni).
 *
 * Pure functions: no I/O, no allocation, no globals; any thread. */
#ifndef JA_LADDER_SPRT_H
#define JA_LADDER_SPRT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* fishtest's regularisation: an empty cell counts as this many results, so
 * that the constrained maximum likelihood always exists. */
#define LADDER_SPRT_EPSILON 1e-3

/* 800 / ln 10: normalized Elo per unit of per-match t-value (fishtest's
 * nelo_divided_by_nt). */
#define LADDER_NELO_PER_T 347.43558552260146

/* Most cells a histogram may have (2K(K-1)+1 for K <= 20 seats is 761). */
#define LADDER_SPRT_MAX_CELLS 1024

typedef enum ladder_sprt_decision {
    LADDER_SPRT_CONTINUE, /* between the bounds: play on ("inconclusive" if stopped) */
    LADDER_SPRT_H0,       /* LLR at or below the lower bound: H0 accepted */
    LADDER_SPRT_H1        /* LLR at or above the upper bound: H1 accepted */
} ladder_sprt_decision;

/* Wald's bounds for error rates alpha (false H1) and beta (false H0), both
 * in (0, 1) with alpha + beta < 1. JA_OK or JA_EINVAL. */
int ladder_sprt_bounds(double alpha, double beta, double *lower, double *upper);

/* The generalized log-likelihood ratio of H1: E[X] = s1 against H0:
 * E[X] = s0 for n observed values values[i] (distinct, in any order) seen
 * counts[i] >= 0 times (cells with count 0 are left out of the support).
 * JA_OK with *out; JA_EINVAL for bad arguments (NULL, n = 0, a negative
 * count, no count at all); JA_ERANGE when the support does not straddle s0
 * or s1 (the constrained maximum does not exist: regularise first). */
int ladder_gsprt_llr(const double *values, const double *counts, size_t n, double s0, double s1,
                     double *out);

/* The LLR of a histogram counts[0 .. n_cells-1] (cell i is the score
 * i / (n_cells - 1)) for H0: elo0 and H1: elo1 on the logistic scale, with
 * every empty cell regularised to LADDER_SPRT_EPSILON as fishtest does.
 * An empty histogram gives 0. JA_OK, JA_EINVAL (n_cells < 2 or above
 * LADDER_SPRT_MAX_CELLS, a negative count, elo0 >= elo1). */
int ladder_sprt_llr(const double *counts, size_t n_cells, double elo0, double elo1, double *out);

/* The units of elo0 and elo1. */
typedef enum ladder_sprt_model {
    LADDER_SPRT_LOGISTIC, /* logistic Elo: the hypotheses are on the mean score */
    LADDER_SPRT_NELO      /* normalized Elo: on the t-value of a deal score */
} ladder_sprt_model;

/* "logistic", "nelo". */
const char *ladder_sprt_model_name(ladder_sprt_model m);

/* The generalized log-likelihood ratio of H1: (E[X] - ref) / sd(X) = t1
 * against H0: t0 for n values seen counts[i] times, as ladder_gsprt_llr.
 * JA_OK; JA_EINVAL for bad arguments; JA_ERANGE when a constrained maximum
 * is not found (the support does not allow the t-value, or the fixed point
 * does not converge: regularise first). */
int ladder_gsprt_llr_t(const double *values, const double *counts, size_t n, double ref,
                       double t0, double t1, double *out);

/* The LLR of a histogram as ladder_sprt_llr, in the units of model m: with
 * LADDER_SPRT_NELO, e0 < e1 are normalized Elo and a deal is `games`
 * matches (> 0), so t = sqrt(games) * e / LADDER_NELO_PER_T; with
 * LADDER_SPRT_LOGISTIC `games` is unused. JA_OK, JA_EINVAL, JA_ERANGE. */
int ladder_sprt_llr_model(const double *counts, size_t n_cells, ladder_sprt_model m, double games,
                          double e0, double e1, double *out);

/* The same LLR over n values (any reals: luck-adjusted deal scores,
 * docs/ratings.md) seen counts[i] times, without regularisation (the
 * caller adds LADDER_SPRT_EPSILON results at 0 and 1, the grid's ends, as
 * `arena bench --adjusted` does). JA_OK, JA_EINVAL, JA_ERANGE. */
int ladder_sprt_llr_values(const double *values, const double *counts, size_t n,
                           ladder_sprt_model m, double games, double e0, double e1, double *out);

/* H0, H1 or continue, for llr against [lower, upper]. */
ladder_sprt_decision ladder_sprt_decide(double llr, double lower, double upper);

/* "inconclusive", "H0", "H1". */
const char *ladder_sprt_decision_name(ladder_sprt_decision d);

/* Wald's bounds of each test of a gauntlet of k >= 1 opponents: alpha and
 * beta / k (above). JA_OK or JA_EINVAL. */
int ladder_gauntlet_bounds(double alpha, double beta, size_t k, double *lower, double *upper);

/* The gauntlet's decision from its k tests': H0 when one is H0, H1 when
 * every one is H1, otherwise continue. */
ladder_sprt_decision ladder_gauntlet_decide(const ladder_sprt_decision *each, size_t k);

/* Statistics of the mean deal score. */
typedef struct ladder_paired_stats {
    double n;                  /* deals */
    double mean;               /* mean deal score, in [0, 1] */
    double sd;                 /* sample standard deviation of a deal score */
    double se;                 /* sd / sqrt(n) */
    double score_lo, score_hi; /* interval of the mean score, within [0, 1] */
    double elo, elo_lo, elo_hi; /* the same on the Elo scale; +-INFINITY when
                                   unbounded (a score of 0 or 1) */
    double los;                /* likelihood of superiority, P(mean > 1/2) */
    bool conservative;         /* every deal scored the same (or n < 2): the
                                  interval is Wilson's over n deals and the LOS
                                  the score test at 1/2 with variance 1/4, both
                                  valid bounds for any [0, 1] variable */
} ladder_paired_stats;

/* Fills *out from a histogram (cell i is the score i / (n_cells - 1)) at
 * normal quantile z (LADDER_Z95 for 95%). Otherwise the interval is the
 * normal one, mean +- z se, mapped to Elo (as fastchess reports the
 * pentanomial Elo), and the LOS Phi((mean - 1/2) / se). JA_OK; JA_EINVAL
 * for bad arguments or an empty histogram. */
int ladder_paired_stats_compute(const double *counts, size_t n_cells, double z,
                                ladder_paired_stats *out);

/* The same from n deal scores x[0 .. n-1] that need not lie on the grid
 * (luck-adjusted ones, possibly outside [0, 1]): the normal interval, kept
 * within [0, 1], unless every deal scored the same (then conservative as
 * above). JA_OK; JA_EINVAL for bad arguments, n 0 or a value not finite. */
int ladder_paired_stats_values(const double *x, size_t n, double z, ladder_paired_stats *out);

/* Normalized Elo of paired results st whose deals are `games` matches:
 * (mean - 1/2) / (sd sqrt(games)) * LADDER_NELO_PER_T, and the same map of
 * the score interval (as fastchess reports nElo). False (and NANs) when the
 * deals' sd is 0 (every deal scored the same): no t-value. */
bool ladder_paired_nelo(const ladder_paired_stats *st, double games, double *nelo, double *lo,
                        double *hi);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_SPRT_H */
