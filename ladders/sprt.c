/* Paired statistics and the generalized SPRT (see sprt.h and
 * docs/ratings.md).
 *
 * The constrained maximum likelihood reduces to one scalar equation in the
 * Lagrange multiplier x (the "secular equation"), whose left side is
 * strictly decreasing on the interval where every 1 + x (a_i - s) > 0 and
 * runs from +inf to -inf there; bisection to machine precision finds it
 * without any starting guess, as fishtest's brentq does. */
#include "sprt.h"

#include <math.h>

#include "jackarena/ja_error.h"
#include "stats.h"

int ladder_sprt_bounds(double alpha, double beta, double *lower, double *upper)
{
    if (lower == NULL || upper == NULL || !(alpha > 0.0 && alpha < 1.0) ||
        !(beta > 0.0 && beta < 1.0) || !(alpha + beta < 1.0))
        return JA_EINVAL;
    *lower = log(beta / (1.0 - alpha));
    *upper = log((1.0 - beta) / alpha);
    return JA_OK;
}

/* The root x of sum p_i d_i / (1 + x d_i) = 0 over the cells with p > 0,
 * where the d_i straddle 0 (min d < 0 < max d). */
static double secular(const double *d, const double *p, size_t n)
{
    double dmin = 0.0, dmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] <= 0.0)
            continue;
        dmin = fmin(dmin, d[i]);
        dmax = fmax(dmax, d[i]);
    }
    double lo = -1.0 / dmax, hi = -1.0 / dmin;
    for (int it = 0; it < 400; it++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi)
            break; /* the interval cannot shrink further */
        double f = 0.0;
        for (size_t i = 0; i < n; i++) {
            if (p[i] <= 0.0)
                continue;
            f += p[i] * d[i] / (1.0 + mid * d[i]);
        }
        if (f > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The multiplier of the MLE with mean s: the root for d_i = values_i - s. */
static double secular_mean(const double *values, const double *p, size_t n, double s)
{
    double d[LADDER_SPRT_MAX_CELLS];
    for (size_t i = 0; i < n; i++)
        d[i] = values[i] - s;
    return secular(d, p, n);
}

/* Checks counts over values and writes their distribution p and total *N.
 * JA_OK or JA_EINVAL. */
static int observed(const double *values, const double *counts, size_t n, double *p, double *N)
{
    if (values == NULL || counts == NULL || n == 0 || n > LADDER_SPRT_MAX_CELLS)
        return JA_EINVAL;
    *N = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!(counts[i] >= 0.0) || isnan(values[i]))
            return JA_EINVAL;
        *N += counts[i];
    }
    if (!(*N > 0.0))
        return JA_EINVAL;
    for (size_t i = 0; i < n; i++)
        p[i] = counts[i] / *N;
    return JA_OK;
}

int ladder_gsprt_llr(const double *values, const double *counts, size_t n, double s0, double s1,
                     double *out)
{
    double p[LADDER_SPRT_MAX_CELLS], N;
    if (out == NULL || observed(values, counts, n, p, &N) != JA_OK)
        return JA_EINVAL;
    double vmin = INFINITY, vmax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (p[i] > 0.0) {
            vmin = fmin(vmin, values[i]);
            vmax = fmax(vmax, values[i]);
        }
    }
    if (!(vmin < s0 && s0 < vmax && vmin < s1 && s1 < vmax))
        return JA_ERANGE;
    double x0 = secular_mean(values, p, n, s0), x1 = secular_mean(values, p, n, s1);
    /* ln(p_i(s1) / p_i(s0)) = ln(1 + x0 d0_i) - ln(1 + x1 d1_i). */
    double llr = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] <= 0.0)
            continue;
        llr += p[i] * (log1p(x0 * (values[i] - s0)) - log1p(x1 * (values[i] - s1)));
    }
    *out = N * llr;
    return JA_OK;
}

/* The histogram's values i / (n_cells - 1) and its counts with every empty
 * cell regularised, and their total *N (0 for an empty histogram). JA_OK or
 * JA_EINVAL. */
static int regularised(const double *counts, size_t n_cells, double *values, double *c, double *N)
{
    if (counts == NULL || n_cells < 2 || n_cells > LADDER_SPRT_MAX_CELLS)
        return JA_EINVAL;
    *N = 0.0;
    for (size_t i = 0; i < n_cells; i++) {
        if (!(counts[i] >= 0.0))
            return JA_EINVAL;
        *N += counts[i];
        values[i] = (double)i / (double)(n_cells - 1);
        c[i] = counts[i] > 0.0 ? counts[i] : LADDER_SPRT_EPSILON;
    }
    return JA_OK;
}

int ladder_sprt_llr(const double *counts, size_t n_cells, double elo0, double elo1, double *out)
{
    return ladder_sprt_llr_model(counts, n_cells, LADDER_SPRT_LOGISTIC, 0.0, elo0, elo1, out);
}

/* Mean and standard deviation of the distribution p over values. */
static void moments(const double *values, const double *p, size_t n, double *mu, double *sigma)
{
    double m = 0.0, v = 0.0;
    for (size_t i = 0; i < n; i++)
        m += p[i] * values[i];
    for (size_t i = 0; i < n; i++)
        v += p[i] * (values[i] - m) * (values[i] - m);
    *mu = m;
    *sigma = sqrt(v);
}

/* One step of Van den Bergh's fixed point: q from the mu, sigma of q.
 * Returns how far q moved, or -1 when phi does not straddle 0 (no step). */
static double mle_t_step(const double *values, const double *phat, size_t n, double ref, double t,
                         double *q)
{
    double mu, sigma, phi[LADDER_SPRT_MAX_CELLS], lo = 0.0, hi = 0.0;
    moments(values, q, n, &mu, &sigma);
    if (!(sigma > 0.0))
        return -1.0;
    for (size_t i = 0; i < n; i++) {
        double z = (values[i] - mu) / sigma;
        phi[i] = values[i] - ref - 0.5 * t * sigma * (1.0 + z * z);
        if (phat[i] > 0.0) {
            lo = fmin(lo, phi[i]);
            hi = fmax(hi, phi[i]);
        }
    }
    if (!(lo < 0.0 && hi > 0.0))
        return -1.0;
    double x = secular(phi, phat, n), moved = 0.0;
    for (size_t i = 0; i < n; i++) {
        double next = phat[i] > 0.0 ? phat[i] / (1.0 + x * phi[i]) : 0.0;
        moved = fmax(moved, fabs(next - q[i]));
        q[i] = next;
    }
    return moved;
}

/* The MLE q of a distribution over values with (mu - ref) / sigma = t
 * given the observed phat, from the uniform distribution on phat's
 * support (as fishtest and fastchess start). JA_OK or JA_ERANGE. */
static int mle_t(const double *values, const double *phat, size_t n, double ref, double t,
                 double *q)
{
    size_t support = 0;
    for (size_t i = 0; i < n; i++)
        support += phat[i] > 0.0;
    for (size_t i = 0; i < n; i++)
        q[i] = phat[i] > 0.0 ? 1.0 / (double)support : 0.0;
    for (int it = 0; it < 500; it++) {
        double moved = mle_t_step(values, phat, n, ref, t, q);
        if (moved < 0.0)
            return JA_ERANGE;
        if (moved < 1e-13)
            break;
    }
    double mu, sigma;
    moments(values, q, n, &mu, &sigma);
    return sigma > 0.0 && fabs((mu - ref) / sigma - t) < 1e-7 ? JA_OK : JA_ERANGE;
}

int ladder_gsprt_llr_t(const double *values, const double *counts, size_t n, double ref,
                       double t0, double t1, double *out)
{
    double p[LADDER_SPRT_MAX_CELLS], q0[LADDER_SPRT_MAX_CELLS], q1[LADDER_SPRT_MAX_CELLS], N;
    if (out == NULL || !isfinite(ref) || !isfinite(t0) || !isfinite(t1) ||
        observed(values, counts, n, p, &N) != JA_OK)
        return JA_EINVAL;
    if (mle_t(values, p, n, ref, t0, q0) != JA_OK || mle_t(values, p, n, ref, t1, q1) != JA_OK)
        return JA_ERANGE;
    double llr = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] > 0.0)
            llr += p[i] * (log(q1[i]) - log(q0[i]));
    }
    *out = N * llr;
    return JA_OK;
}

int ladder_sprt_llr_model(const double *counts, size_t n_cells, ladder_sprt_model m, double games,
                          double e0, double e1, double *out)
{
    double values[LADDER_SPRT_MAX_CELLS], c[LADDER_SPRT_MAX_CELLS], N;
    if (out == NULL || !(e0 < e1) || (m == LADDER_SPRT_NELO && !(games > 0.0)) ||
        regularised(counts, n_cells, values, c, &N) != JA_OK)
        return JA_EINVAL;
    if (N == 0.0) {
        *out = 0.0;
        return JA_OK;
    }
    return ladder_sprt_llr_values(values, c, n_cells, m, games, e0, e1, out);
}

int ladder_sprt_llr_values(const double *values, const double *counts, size_t n,
                           ladder_sprt_model m, double games, double e0, double e1, double *out)
{
    if (out == NULL || !(e0 < e1) || (m == LADDER_SPRT_NELO && !(games > 0.0)))
        return JA_EINVAL;
    if (m == LADDER_SPRT_LOGISTIC)
        return ladder_gsprt_llr(values, counts, n, ladder_score_of_elo(e0),
                                ladder_score_of_elo(e1), out);
    double k = sqrt(games) / LADDER_NELO_PER_T;
    return ladder_gsprt_llr_t(values, counts, n, 0.5, k * e0, k * e1, out);
}

const char *ladder_sprt_model_name(ladder_sprt_model m)
{
    return m == LADDER_SPRT_NELO ? "nelo" : "logistic";
}

ladder_sprt_decision ladder_sprt_decide(double llr, double lower, double upper)
{
    if (llr >= upper)
        return LADDER_SPRT_H1;
    if (llr <= lower)
        return LADDER_SPRT_H0;
    return LADDER_SPRT_CONTINUE;
}

const char *ladder_sprt_decision_name(ladder_sprt_decision d)
{
    switch (d) {
    case LADDER_SPRT_H0: return "H0";
    case LADDER_SPRT_H1: return "H1";
    default: return "inconclusive";
    }
}

int ladder_gauntlet_bounds(double alpha, double beta, size_t k, double *lower, double *upper)
{
    if (k == 0)
        return JA_EINVAL;
    return ladder_sprt_bounds(alpha, beta / (double)k, lower, upper);
}

ladder_sprt_decision ladder_gauntlet_decide(const ladder_sprt_decision *each, size_t k)
{
    size_t h1 = 0;
    for (size_t i = 0; i < k; i++) {
        if (each[i] == LADDER_SPRT_H0)
            return LADDER_SPRT_H0;
        h1 += each[i] == LADDER_SPRT_H1;
    }
    return k > 0 && h1 == k ? LADDER_SPRT_H1 : LADDER_SPRT_CONTINUE;
}

static void paired_fill(double N, double mean, double ss, double z, ladder_paired_stats *out);

int ladder_paired_stats_compute(const double *counts, size_t n_cells, double z,
                                ladder_paired_stats *out)
{
    if (counts == NULL || out == NULL || n_cells < 2 || !(z > 0.0))
        return JA_EINVAL;
    double N = 0.0, sum = 0.0;
    for (size_t i = 0; i < n_cells; i++) {
        if (!(counts[i] >= 0.0))
            return JA_EINVAL;
        N += counts[i];
        sum += counts[i] * (double)i / (double)(n_cells - 1);
    }
    if (!(N > 0.0))
        return JA_EINVAL;
    double mean = sum / N, ss = 0.0;
    for (size_t i = 0; i < n_cells; i++) {
        double d = (double)i / (double)(n_cells - 1) - mean;
        ss += counts[i] * d * d;
    }
    paired_fill(N, mean, ss, z, out);
    return JA_OK;
}

int ladder_paired_stats_values(const double *x, size_t n, double z, ladder_paired_stats *out)
{
    if (x == NULL || out == NULL || n == 0 || !(z > 0.0))
        return JA_EINVAL;
    double sum = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return JA_EINVAL;
        sum += x[i];
    }
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    paired_fill((double)n, mean, ss, z, out);
    return JA_OK;
}

/* *out from N deals of mean `mean` and sum of squared deviations ss. */
static void paired_fill(double N, double mean, double ss, double z, ladder_paired_stats *out)
{
    out->n = N;
    out->mean = mean;
    out->sd = N > 1.0 ? sqrt(ss / (N - 1.0)) : 0.0;
    out->se = out->sd / sqrt(N);
    out->conservative = !(N > 1.0 && ss > 0.0);
    if (out->conservative) {
        ladder_wilson(mean, N, z, &out->score_lo, &out->score_hi);
        out->los = ladder_normal_cdf(2.0 * (mean - 0.5) * sqrt(N));
    } else {
        out->score_lo = fmax(0.0, mean - z * out->se);
        out->score_hi = fmin(1.0, mean + z * out->se);
        out->los = ladder_los(mean - 0.5, out->se);
    }
    out->elo = ladder_elo_of_score(mean);
    out->elo_lo = ladder_elo_of_score(out->score_lo);
    out->elo_hi = ladder_elo_of_score(out->score_hi);
}

bool ladder_paired_nelo(const ladder_paired_stats *st, double games, double *nelo, double *lo,
                        double *hi)
{
    *nelo = *lo = *hi = NAN;
    if (!(st->sd > 0.0) || !(games > 0.0))
        return false;
    double k = LADDER_NELO_PER_T / (st->sd * sqrt(games));
    *nelo = (st->mean - 0.5) * k;
    *lo = (st->score_lo - 0.5) * k;
    *hi = (st->score_hi - 0.5) * k;
    return true;
}
