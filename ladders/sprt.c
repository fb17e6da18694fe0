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
 * where d_i = a_i - s straddle 0 (min d < 0 < max d). */
static double secular(const double *values, const double *p, size_t n, double s)
{
    double dmin = 0.0, dmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] <= 0.0)
            continue;
        double d = values[i] - s;
        dmin = fmin(dmin, d);
        dmax = fmax(dmax, d);
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
            double d = values[i] - s;
            f += p[i] * d / (1.0 + mid * d);
        }
        if (f > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

int ladder_gsprt_llr(const double *values, const double *counts, size_t n, double s0, double s1,
                     double *out)
{
    if (values == NULL || counts == NULL || out == NULL || n == 0 || n > LADDER_SPRT_MAX_CELLS)
        return JA_EINVAL;
    double N = 0.0;
    double vmin = INFINITY, vmax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!(counts[i] >= 0.0) || isnan(values[i]))
            return JA_EINVAL;
        N += counts[i];
        if (counts[i] > 0.0) {
            vmin = fmin(vmin, values[i]);
            vmax = fmax(vmax, values[i]);
        }
    }
    if (!(N > 0.0))
        return JA_EINVAL;
    if (!(vmin < s0 && s0 < vmax && vmin < s1 && s1 < vmax))
        return JA_ERANGE;
    double p[LADDER_SPRT_MAX_CELLS];
    for (size_t i = 0; i < n; i++)
        p[i] = counts[i] / N;
    double x0 = secular(values, p, n, s0), x1 = secular(values, p, n, s1);
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

int ladder_sprt_llr(const double *counts, size_t n_cells, double elo0, double elo1, double *out)
{
    if (counts == NULL || out == NULL || n_cells < 2 || n_cells > LADDER_SPRT_MAX_CELLS ||
        !(elo0 < elo1))
        return JA_EINVAL;
    double values[LADDER_SPRT_MAX_CELLS], c[LADDER_SPRT_MAX_CELLS], N = 0.0;
    for (size_t i = 0; i < n_cells; i++) {
        if (!(counts[i] >= 0.0))
            return JA_EINVAL;
        N += counts[i];
        values[i] = (double)i / (double)(n_cells - 1);
        c[i] = counts[i] > 0.0 ? counts[i] : LADDER_SPRT_EPSILON;
    }
    if (N == 0.0) {
        *out = 0.0;
        return JA_OK;
    }
    return ladder_gsprt_llr(values, c, n_cells, ladder_score_of_elo(elo0),
                            ladder_score_of_elo(elo1), out);
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
    return JA_OK;
}
