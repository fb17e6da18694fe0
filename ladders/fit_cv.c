/* Cross-validation of the fit's models (fit_cv.h). */
#include "fit_cv.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "elo.h"
#include "fit_pl.h"
#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "stats.h"

/* Weighted sums of one model's scores. */
typedef struct cv_sums {
    double order, pair, top1;
} cv_sums;

/* The scratch of a run. */
typedef struct cv_run {
    const ladder_fit_match *m;
    size_t n;
    uint32_t np;
    size_t *ord;      /* by deal */
    double *w;        /* replay weights */
    uint32_t *fold;   /* per match */
    size_t *deal;     /* per match: its deal, 0 .. deals-1 */
    /* Per deal: Bradley-Terry's minus Plackett-Luce's summed losses of its
     * scored matches (order, pairs), their weight and pairs. */
    double *d_order, *d_pair, *d_w, *d_pairs;
    ladder_fit_match *train;
    double *elo;      /* np: one model's ratings */
    double *equal;    /* np: all at LADDER_ELO_INITIAL */
    cv_sums equal_sums, sums[LADDER_FIT_MODEL_COUNT];
} cv_run;

/* Deals the sorted deals into folds in turn; returns the deals. */
static uint64_t assign_folds(cv_run *r, uint32_t folds)
{
    uint64_t deals = 0;
    for (size_t q = 0; q < r->n; q++) {
        if (q == 0 || r->m[r->ord[q]].cluster != r->m[r->ord[q - 1]].cluster)
            deals++;
        r->fold[r->ord[q]] = (uint32_t)((deals - 1) % folds);
        r->deal[r->ord[q]] = deals - 1;
    }
    return deals;
}

/* True when every player of m is rated in f, all in one part. */
static bool scorable(const ladder_fit *f, const ladder_fit_match *m)
{
    const ladder_fit_player *first = &f->players[m->player[0]];
    for (uint32_t s = 0; s < m->n_seats; s++) {
        const ladder_fit_player *p = &f->players[m->player[s]];
        if (p->status != LADDER_FIT_RATED || p->part != first->part)
            return false;
    }
    return true;
}

/* Match m's scores with ratings elo, times w, added to *sum; returns the
 * pairs of seats of different players, times w. */
static double score_match(const ladder_fit_match *m, const double *elo, double w, cv_sums *sum)
{
    sum->order -= w * ladder_pl_log_prob(m, elo);
    double pairs = 0.0, best = -INFINITY;
    for (uint32_t a = 0; a < m->n_seats; a++) {
        best = fmax(best, elo[m->player[a]]);
        for (uint32_t b = a + 1; b < m->n_seats; b++) {
            if (m->player[a] == m->player[b])
                continue;
            double s = ladder_elo_pair_score(m->place[a], m->place[b]);
            double x = (elo[m->player[a]] - elo[m->player[b]]) / LADDER_ELO_PER_LOGIT;
            /* -ln p = ln(1 + e^-x), -ln(1 - p) = ln(1 + e^x), without overflow */
            double lp = x > 0 ? log1p(exp(-x)) : -x + log1p(exp(x));
            sum->pair += w * (s * lp + (1.0 - s) * (lp + x));
            pairs += w;
        }
    }
    /* Top-1: |T and W| / (|T| |W|), T the best-rated players, W the
     * winners, each player once. */
    uint32_t t = 0, win = 0, both = 0;
    for (uint32_t a = 0; a < m->n_seats; a++) {
        bool dup = false;
        for (uint32_t b = 0; b < a; b++)
            dup = dup || m->player[b] == m->player[a];
        if (dup)
            continue;
        bool top = elo[m->player[a]] == best, won = false;
        for (uint32_t b = 0; b < m->n_seats; b++)
            won = won || (m->player[b] == m->player[a] && m->place[b] == 1);
        t += top;
        win += won;
        both += top && won;
    }
    if (win > 0) /* always, with places from 1 */
        sum->top1 += w * (double)both / ((double)t * win);
    return pairs;
}

/* Fits the models without fold k and scores its matches. */
static int run_fold(cv_run *r, uint32_t k, ladder_cv *out)
{
    size_t nt = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->fold[i] != k)
            r->train[nt++] = r->m[i];
    ladder_fit *f[LADDER_FIT_MODEL_COUNT] = {0};
    int rc = JA_OK;
    for (unsigned md = 0; md < LADDER_FIT_MODEL_COUNT && rc == JA_OK; md++) {
        ladder_fit_opts o;
        ladder_fit_opts_init(&o);
        o.model = (ladder_fit_model)md;
        rc = ladder_fit_run(r->train, nt, r->np, &o, &f[md]);
    }
    for (size_t i = 0; i < r->n && rc == JA_OK; i++) {
        const ladder_fit_match *m = &r->m[i];
        if (r->fold[i] != k)
            continue;
        bool ok = true;
        for (unsigned md = 0; md < LADDER_FIT_MODEL_COUNT; md++)
            ok = ok && scorable(f[md], m);
        if (!ok) {
            out->skipped++;
            continue;
        }
        out->scored++;
        out->weight += r->w[i];
        double pairs = score_match(m, r->equal, r->w[i], &r->equal_sums);
        out->pairs += pairs;
        cv_sums one[LADDER_FIT_MODEL_COUNT] = {{0}};
        for (unsigned md = 0; md < LADDER_FIT_MODEL_COUNT; md++) {
            for (uint32_t p = 0; p < r->np; p++)
                r->elo[p] = f[md]->players[p].elo;
            (void)score_match(m, r->elo, r->w[i], &one[md]);
            r->sums[md].order += one[md].order;
            r->sums[md].pair += one[md].pair;
            r->sums[md].top1 += one[md].top1;
        }
        size_t d = r->deal[i];
        r->d_order[d] += one[LADDER_FIT_BRADLEY_TERRY].order - one[LADDER_FIT_PLACKETT_LUCE].order;
        r->d_pair[d] += one[LADDER_FIT_BRADLEY_TERRY].pair - one[LADDER_FIT_PLACKETT_LUCE].pair;
        r->d_w[d] += r->w[i];
        r->d_pairs[d] += pairs;
    }
    for (unsigned md = 0; md < LADDER_FIT_MODEL_COUNT; md++)
        ladder_fit_free(&f[md]);
    return rc;
}

/* The mean gain (sum of x over sum of w, by deal) and its clustered
 * standard error into *mean, *se. */
static void gain(const double *x, const double *w, uint64_t deals, double *mean, double *se)
{
    double sx = 0.0, sw = 0.0, ss = 0.0;
    uint64_t g = 0;
    for (uint64_t c = 0; c < deals; c++) {
        sx += x[c];
        sw += w[c];
        g += w[c] > 0.0;
    }
    *mean = sx / sw;
    for (uint64_t c = 0; c < deals; c++)
        ss += (x[c] - *mean * w[c]) * (x[c] - *mean * w[c]);
    *se = g > 1 ? sqrt((double)g / (double)(g - 1) * ss) / sw : NAN;
}

static ladder_cv_score mean_of(const cv_sums *s, const ladder_cv *cv)
{
    return (ladder_cv_score){s->order / cv->weight, s->pair / cv->pairs, s->top1 / cv->weight};
}

int ladder_fit_crossval(const ladder_fit_match *m, size_t n, uint32_t n_players, uint32_t folds,
                        ladder_cv *out)
{
    if (out == NULL || (m == NULL && n > 0) || n_players == 0 || folds == 1)
        return JA_EINVAL;
    if (n_players > LADDER_FIT_MAX_PLAYERS)
        return JA_ERANGE;
    memset(out, 0, sizeof *out);
    size_t cap = n ? n : 1;
    cv_run r = {.m = m, .n = n, .np = n_players};
    r.ord = ja_xmalloc(cap * sizeof *r.ord);
    r.w = ja_xmalloc(cap * sizeof *r.w);
    r.fold = ja_xmalloc(cap * sizeof *r.fold);
    r.deal = ja_xmalloc(cap * sizeof *r.deal);
    r.d_order = ja_xcalloc(cap, sizeof *r.d_order);
    r.d_pair = ja_xcalloc(cap, sizeof *r.d_pair);
    r.d_w = ja_xcalloc(cap, sizeof *r.d_w);
    r.d_pairs = ja_xcalloc(cap, sizeof *r.d_pairs);
    r.train = ja_xmalloc(cap * sizeof *r.train);
    r.elo = ja_xmalloc(n_players * sizeof *r.elo);
    r.equal = ja_xmalloc(n_players * sizeof *r.equal);
    for (uint32_t p = 0; p < n_players; p++)
        r.equal[p] = LADDER_ELO_INITIAL;
    (void)ladder_fit_replay_weights(m, n, r.ord, r.w);
    out->folds = folds ? folds : LADDER_CV_FOLDS_DEFAULT;
    out->clusters = assign_folds(&r, out->folds);
    int rc = out->clusters < 2 ? JA_EINVAL : JA_OK;
    if (rc == JA_OK && out->clusters < out->folds)
        out->folds = (uint32_t)assign_folds(&r, (uint32_t)out->clusters);
    for (uint32_t k = 0; k < out->folds && rc == JA_OK; k++)
        rc = run_fold(&r, k, out);
    if (rc == JA_OK && out->weight > 0.0) {
        out->equal = mean_of(&r.equal_sums, out);
        for (unsigned md = 0; md < LADDER_FIT_MODEL_COUNT; md++)
            out->model[md] = mean_of(&r.sums[md], out);
        gain(r.d_order, r.d_w, out->clusters, &out->order_gain, &out->order_gain_se);
        gain(r.d_pair, r.d_pairs, out->clusters, &out->pair_gain, &out->pair_gain_se);
    } else if (rc == JA_OK) {
        ladder_cv_score none = {NAN, NAN, NAN};
        out->equal = none;
        for (unsigned md = 0; md < LADDER_FIT_MODEL_COUNT; md++)
            out->model[md] = none;
        out->order_gain = out->order_gain_se = out->pair_gain = out->pair_gain_se = NAN;
    }
    free(r.ord);
    free(r.w);
    free(r.fold);
    free(r.deal);
    free(r.d_order);
    free(r.d_pair);
    free(r.d_w);
    free(r.d_pairs);
    free(r.train);
    free(r.elo);
    free(r.equal);
    return rc;
}
