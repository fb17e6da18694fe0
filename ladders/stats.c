/* Statistical helpers (see stats.h). */
#include "stats.h"

#include <math.h>

double ladder_normal_cdf(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

double ladder_elo_of_score(double s)
{
    if (isnan(s))
        return NAN;
    if (s <= 0.0)
        return -INFINITY;
    if (s >= 1.0)
        return INFINITY;
    return -400.0 * log10(1.0 / s - 1.0) + 0.0; /* + 0.0: no "-0" at s = 1/2 */
}

double ladder_score_of_elo(double d)
{
    return 1.0 / (1.0 + pow(10.0, -d / 400.0));
}

double ladder_los(double diff, double se)
{
    if (isnan(diff) || isnan(se) || se < 0.0)
        return NAN;
    if (se == 0.0)
        return diff > 0.0 ? 1.0 : diff < 0.0 ? 0.0 : 0.5;
    return ladder_normal_cdf(diff / se);
}

void ladder_wilson(double p, double n, double z, double *lo, double *hi)
{
    if (!(n > 0.0)) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    double z2 = z * z;
    double den = 1.0 + z2 / n;
    double centre = (p + z2 / (2.0 * n)) / den;
    double half = z / den * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n));
    *lo = fmax(0.0, centre - half);
    *hi = fmin(1.0, centre + half);
}
