/* Small statistical helpers shared by the Bradley-Terry fit (fit.h), the
 * SPRT and the paired statistics of `arena bench` (sprt.h): the normal
 * distribution, the logistic Elo scale, the likelihood of superiority and
 * the Wilson score interval. docs/ratings.md gives the formulas and their
 * sources.
 *
 * Pure functions: no I/O, no allocation, no globals; any thread. */
#ifndef JA_LADDER_STATS_H
#define JA_LADDER_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The two-sided 95% quantile of the standard normal distribution,
 * Phi^-1(0.975) (Abramowitz and Stegun, table 26.5). */
#define LADDER_Z95 1.959963984540054

/* The Elo scale factor for natural log-odds: an Elo difference d is the
 * log-odds d * ln(10) / 400, so 400 / ln(10) Elo per unit of log-odds. */
#define LADDER_ELO_PER_LOGIT 173.71779276130073

/* The standard normal distribution function Phi(x) = (1 + erf(x / sqrt 2)) / 2. */
double ladder_normal_cdf(double x);

/* The Elo difference whose expected score (elo.h's logistic) is s:
 * -400 * log10(1 / s - 1). -INFINITY for s <= 0, +INFINITY for s >= 1,
 * NAN for a NaN. */
double ladder_elo_of_score(double s);

/* The expected score of an Elo difference d: 1 / (1 + 10^(-d / 400)). */
double ladder_score_of_elo(double d);

/* The likelihood of superiority: the probability that a quantity estimated
 * as diff with standard error se is above 0, under the normal
 * approximation: Phi(diff / se). With se == 0 it is 1, 0 or 0.5 by the sign
 * of diff. NAN when either argument is NaN or se < 0. */
double ladder_los(double diff, double se);

/* The Wilson score interval (E. B. Wilson, "Probable inference, the law of
 * succession, and statistical inference", JASA 22, 1927) for a proportion p
 * observed over n > 0 trials, at normal quantile z: writes [*lo, *hi],
 * within [0, 1]. For any variable with values in [0, 1] and mean p, the
 * variance is at most p(1 - p), so the interval is conservative for such
 * means too. n <= 0 gives [0, 1]. */
void ladder_wilson(double p, double n, double z, double *lo, double *hi);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_STATS_H */
