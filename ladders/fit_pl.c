/* The Plackett-Luce likelihood of a finishing order (fit_pl.h).
 *
 * A match's seats (of the players fitted) are sorted by place; the groups
 * of equal places are taken best first. For a group D of d seats with R
 * the seats from it to the end, Efron's term is
 *     sum_D theta - sum over l = 0..d-1 of log Q_l,
 *     Q_l = sum_R g - (l/d) sum_D g,
 * and with pi_lj = a_lj g_j / Q_l (a_lj = 1 - l/d in D, 1 after it), a
 * distribution over R, its gradient is 1[j in D] - sum_l pi_lj and its
 * information sum_l (diag(pi_l) - pi_l pi_l^T), both summed over the seats
 * of one player (the chain rule of theta shared by its seats). Strengths
 * are scaled by the largest in the match, so nothing overflows. */
#include "fit_pl.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "stats.h"

/* The seats of one match taken into the likelihood, best place first. */
typedef struct pl_seats {
    uint32_t n;                  /* seats */
    uint32_t nu;                 /* distinct players among them */
    double th[JA_MAX_SEATS];     /* theta of each seat's player */
    uint8_t place[JA_MAX_SEATS];
    uint32_t slot[JA_MAX_SEATS]; /* seat -> its player's slot 0..nu-1 */
    uint32_t id[JA_MAX_SEATS];   /* slot -> the player's index in g and h */
} pl_seats;

/* Adds seat (theta t, place pl, player index id) keeping the seats sorted
 * by place (stable: seats of equal places stay in seat order). */
static void pl_add(pl_seats *s, double t, uint8_t pl, uint32_t id)
{
    uint32_t slot = 0;
    while (slot < s->nu && s->id[slot] != id)
        slot++;
    if (slot == s->nu)
        s->id[s->nu++] = id;
    uint32_t j = s->n++;
    for (; j > 0 && s->place[j - 1] > pl; j--) {
        s->th[j] = s->th[j - 1];
        s->place[j] = s->place[j - 1];
        s->slot[j] = s->slot[j - 1];
    }
    s->th[j] = t;
    s->place[j] = pl;
    s->slot[j] = slot;
}

/* Efron's denominators l = 0..d-1 of the tied seats a..b-1 (e: the scaled
 * strengths, suffix[j] their sum from j on): the log of their product,
 * and with g or h their gradient and information, times w. */
static double pl_group(const pl_seats *s, const double *e, const double *suffix, uint32_t a,
                       uint32_t b, double w, uint32_t k, double *g, double *h)
{
    uint32_t d = b - a;
    double sd = suffix[a] - suffix[b], sr = suffix[a], logq = 0.0;
    for (uint32_t l = 0; l < d; l++) {
        double c = (double)l / d, q = sr - c * sd;
        logq += log(q);
        if (g == NULL && h == NULL)
            continue;
        double p[JA_MAX_SEATS] = {0};
        for (uint32_t j = a; j < s->n; j++)
            p[s->slot[j]] += (j < b ? 1.0 - c : 1.0) * e[j] / q;
        for (uint32_t x = 0; x < s->nu; x++) {
            if (g)
                g[s->id[x]] -= w * p[x];
            for (uint32_t y = 0; h && y < s->nu; y++)
                h[(size_t)s->id[x] * k + s->id[y]] += w * ((x == y ? p[x] : 0.0) - p[x] * p[y]);
        }
    }
    return logq;
}

/* w log P of the seats s (at least two players), gradient and information
 * added to g and h when given. */
static double pl_seats_ll(const pl_seats *s, double w, uint32_t k, double *g, double *h)
{
    double top = -INFINITY, e[JA_MAX_SEATS], suffix[JA_MAX_SEATS + 1];
    for (uint32_t j = 0; j < s->n; j++)
        top = fmax(top, s->th[j]);
    suffix[s->n] = 0.0;
    for (uint32_t j = s->n; j-- > 0;) {
        e[j] = exp(s->th[j] - top);
        suffix[j] = suffix[j + 1] + e[j];
    }
    double ll = 0.0;
    for (uint32_t a = 0, b; a < s->n; a = b) {
        for (b = a + 1; b < s->n && s->place[b] == s->place[a]; b++)
            ;
        if (a + 1 == s->n)
            break; /* the last seat alone: probability 1 */
        for (uint32_t j = a; j < b; j++) {
            ll += s->th[j] - top;
            if (g)
                g[s->id[s->slot[j]]] += w;
        }
        ll -= pl_group(s, e, suffix, a, b, w, k, g, h);
    }
    return w * ll;
}

double ladder_pl_match(const ladder_fit_match *m, const int32_t *loc, uint32_t k,
                       const double *th, double w, double *g, double *h)
{
    pl_seats s;
    s.n = s.nu = 0;
    for (uint32_t q = 0; q < m->n_seats; q++) {
        int32_t a = loc[m->player[q]];
        if (a >= 0)
            pl_add(&s, th[a], m->place[q], (uint32_t)a);
    }
    return s.nu < 2 ? 0.0 : pl_seats_ll(&s, w, k, g, h);
}

double ladder_pl_log_prob(const ladder_fit_match *m, const double *elo)
{
    pl_seats s;
    s.n = s.nu = 0;
    for (uint32_t q = 0; q < m->n_seats; q++)
        pl_add(&s, elo[m->player[q]] / LADDER_ELO_PER_LOGIT, m->place[q], m->player[q]);
    if (s.nu < 2)
        return 0.0;
    double ties = 0.0; /* log of d! over the groups of d tied seats */
    for (uint32_t a = 0, b; a < s.n; a = b) {
        for (b = a + 1; b < s.n && s.place[b] == s.place[a]; b++)
            ;
        ties += lgamma((double)(b - a) + 1.0);
    }
    return pl_seats_ll(&s, 1.0, 0, NULL, NULL) + ties;
}
