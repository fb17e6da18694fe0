/* The Bradley-Terry and Plackett-Luce fits (see fit.h and docs/ratings.md).
 *
 * Steps: (0) the plays of one deal (cluster) with the same player in every
 * seat are replays, each weighted 1/r; (1) every pair of seats of every
 * match becomes a pairwise result; results of one pair of players are
 * summed, weighted, into an edge (games n, points S of the lower-numbered
 * player). (2) Groups are the connected components
 * of the edges; inside each, the strongly connected components of the
 * "scored against" digraph (i -> j when i won or drew a game against j)
 * say where the maximum likelihood is finite. (3) The largest strongly
 * connected part of each group is fitted by Newton-Raphson on log-odds
 * theta (R = anchor + 400/ln 10 * theta), with the first player held at 0
 * so that the Hessian is positive definite; Plackett-Luce's likelihood,
 * gradient and information come from the matches (fit_pl.c), not the
 * edges, which then only decide the parts. (4) The covariance is the
 * cluster sandwich H^-1 B H^-1, then re-anchored (linear, so exact).
 *
 * Invariants: nothing here depends on the order of matches (sums only,
 * with matches sorted by deal and seating), so a fit is a pure function of
 * the set of results. */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elo.h"
#include "fit_pl.h"
#include "jackarena/ja_error.h"
#include "stats.h"
#include "ja_xalloc.h"

#define NEWTON_MAX_ITER 200
#define NEWTON_TOL 1e-10 /* on the largest step, in log-odds */

typedef struct edge {
    uint32_t i, j;           /* i < j */
    double n;                /* pairwise games (weighted) */
    double s;                /* points of i against j (weighted) */
    bool i_scored, j_scored; /* i (j) won or drew a game against the other */
} edge;

typedef struct pair_rec {
    uint32_t i, j;
    double s; /* points of i against j: 1, 1/2 or 0, adjusted (ladder_fit_pair_result) */
    double raw; /* the same by the places */
    double w; /* the match's weight */
} pair_rec;

/* Scratch state of one run. */
typedef struct fitter {
    const ladder_fit_match *m;
    size_t n_matches;
    uint32_t np;
    ladder_fit_model model;
    /* Matches by deal: sorted by cluster, then seating (n_seats and the
     * player of each seat), then index. */
    size_t *ord;
    double *w; /* per match: 1 / (plays of its deal with its seating) */
    uint64_t replays, replays_replayed;
    edge *e;
    size_t ne;
    /* Digraph in CSR form: out-edges of v are adj[off[v] .. off[v+1]-1]. */
    uint32_t *off, *adj, *radj_off, *radj;
    /* Tarjan */
    int32_t *idx, *low, *scc;
    uint32_t *stack;
    bool *on_stack;
    int32_t next_idx, n_scc;
    uint32_t sp;
    /* Groups */
    uint32_t *uf;
    int32_t *group_of; /* player -> group */
    int32_t *main_scc; /* group -> its part 1 (an SCC), -1 for none */
    /* Per player: above and below part 1 (place_group), a queue, the
     * players of a part (fit_parts). */
    bool *up, *down;
    uint32_t *queue, *who;
} fitter;

void ladder_fit_opts_init(ladder_fit_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mean_elo = LADDER_ELO_INITIAL;
    o->anchor_elo = LADDER_ELO_INITIAL;
    o->anchor_player = -1;
    o->z = LADDER_Z95;
    o->model = LADDER_FIT_DEFAULT_MODEL;
}

static const char *const MODEL_NAMES[LADDER_FIT_MODEL_COUNT] = {"bradley-terry", "plackett-luce"};

const char *ladder_fit_model_name(ladder_fit_model m)
{
    return (unsigned)m < LADDER_FIT_MODEL_COUNT ? MODEL_NAMES[m] : NULL;
}

int ladder_fit_model_parse(const char *name, ladder_fit_model *out)
{
    for (unsigned m = 0; name != NULL && m < LADDER_FIT_MODEL_COUNT; m++)
        if (strcmp(name, MODEL_NAMES[m]) == 0) {
            *out = (ladder_fit_model)m;
            return JA_OK;
        }
    return JA_EINVAL;
}

const char *ladder_fit_status_name(ladder_fit_status s)
{
    switch (s) {
    case LADDER_FIT_RATED: return "rated";
    case LADDER_FIT_PERFECT: return "perfect";
    case LADDER_FIT_ZERO: return "zero";
    case LADDER_FIT_UNRATED: return "unrated";
    default: return NULL;
    }
}

const char *ladder_fit_relation_name(ladder_fit_relation r)
{
    switch (r) {
    case LADDER_FIT_MAIN: return "main";
    case LADDER_FIT_ABOVE: return "above";
    case LADDER_FIT_BELOW: return "below";
    case LADDER_FIT_APART: return "apart";
    default: return NULL;
    }
}

bool ladder_fit_several_parts(const ladder_fit *f)
{
    for (uint32_t gi = 0; f != NULL && gi < f->n_groups; gi++)
        if (f->groups[gi].parts > 1)
            return true;
    return false;
}

void ladder_fit_free(ladder_fit **p)
{
    if (p == NULL || *p == NULL)
        return;
    ladder_fit *f = *p;
    free(f->players);
    free(f->order);
    free(f->cov);
    free(f->groups);
    free(f->parts);
    free(f);
    *p = NULL;
}

/* ---- Validation and pairwise results ------------------------------------- */

static int check_matches(const ladder_fit_match *m, size_t n, uint32_t np, ladder_fit_model model)
{
    for (size_t k = 0; k < n; k++) {
        if (m[k].n_seats < 2 || m[k].n_seats > JA_MAX_SEATS ||
            (m[k].term && model != LADDER_FIT_BRADLEY_TERRY))
            return JA_EINVAL;
        for (uint32_t s = 0; s < m[k].n_seats; s++)
            if (m[k].player[s] >= np || m[k].place[s] < 1 || m[k].place[s] > m[k].n_seats ||
                (m[k].term && !isfinite(m[k].term[s])))
                return JA_EINVAL;
    }
    return JA_OK;
}

double ladder_fit_pair_result(const ladder_fit_match *m, uint32_t a, uint32_t b)
{
    double s = ladder_elo_pair_score(m->place[a], m->place[b]);
    if (m->term)
        s -= (m->n_seats - 1.0) * (m->term[a] - m->term[b]) / m->n_seats;
    return s;
}

typedef struct deal_sort {
    const ladder_fit_match *m;
    size_t i;
} deal_sort;

/* By cluster, then seating, then index: the plays of one deal with one
 * seating end up next to each other. */
static int cmp_deal(const void *a, const void *b)
{
    const deal_sort *x = a, *y = b;
    const ladder_fit_match *p = &x->m[x->i], *q = &y->m[y->i];
    if (p->cluster != q->cluster)
        return p->cluster < q->cluster ? -1 : 1;
    if (p->n_seats != q->n_seats)
        return p->n_seats < q->n_seats ? -1 : 1;
    for (uint32_t s = 0; s < p->n_seats; s++)
        if (p->player[s] != q->player[s])
            return p->player[s] < q->player[s] ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static bool same_seating(const ladder_fit_match *p, const ladder_fit_match *q)
{
    if (p->cluster != q->cluster || p->n_seats != q->n_seats)
        return false;
    for (uint32_t s = 0; s < p->n_seats; s++)
        if (p->player[s] != q->player[s])
            return false;
    return true;
}

uint64_t ladder_fit_replay_weights(const ladder_fit_match *m, size_t n, size_t *ord, double *w)
{
    deal_sort *d = ja_xmalloc((n ? n : 1) * sizeof *d);
    for (size_t i = 0; i < n; i++)
        d[i] = (deal_sort){m, i};
    qsort(d, n, sizeof *d, cmp_deal);
    for (size_t i = 0; i < n; i++)
        ord[i] = d[i].i;
    free(d);
    uint64_t replays = 0;
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && same_seating(&m[ord[lo]], &m[ord[hi]]); hi++)
            ;
        for (size_t k = lo; k < hi; k++)
            w[ord[k]] = 1.0 / (double)(hi - lo);
        replays += hi - lo - 1;
    }
    return replays;
}

/* F->ord and the weights: the r plays of one deal (cluster) with the same
 * player in every seat are replays of one experiment, and each weighs 1/r,
 * so together they count as one match, their mean (docs/ratings.md,
 * "Replayed deals"). F->replays counts the plays beyond the first. */
static void deal_weights(fitter *F)
{
    size_t n = F->n_matches;
    F->ord = ja_xmalloc((n ? n : 1) * sizeof *F->ord);
    F->w = ja_xmalloc((n ? n : 1) * sizeof *F->w);
    F->replays = ladder_fit_replay_weights(F->m, n, F->ord, F->w);
    /* Of those, the ones marked replayed (ladder_fit_match.replayed). */
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && same_seating(&F->m[F->ord[lo]], &F->m[F->ord[hi]]); hi++)
            ;
        uint64_t marked = 0;
        for (size_t k = lo; k < hi; k++)
            marked += F->m[F->ord[k]].replayed;
        F->replays_replayed += marked < hi - lo ? marked : marked - 1;
    }
}

static int cmp_pair(const void *a, const void *b)
{
    const pair_rec *x = a, *y = b;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    if (x->j != y->j)
        return x->j < y->j ? -1 : 1;
    /* Equal keys are equal records, so the sums below do not depend on
     * the order of the matches. */
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->raw != y->raw)
        return x->raw < y->raw ? -1 : 1;
    if (x->w != y->w)
        return x->w < y->w ? -1 : 1;
    return 0;
}

/* Fills per-player counts (played, and weighted as the fit counts them)
 * and the aggregated edges. Matches are taken in deal order (F->ord), so
 * the weighted sums do not depend on the order of the input. */
static void build_edges(fitter *F, ladder_fit_player *pl)
{
    size_t cap = 0;
    for (size_t k = 0; k < F->n_matches; k++)
        cap += (size_t)F->m[k].n_seats * (F->m[k].n_seats - 1) / 2;
    pair_rec *pr = ja_xmalloc(cap * sizeof *pr);
    size_t npr = 0;
    double *adj_points = ja_xcalloc(F->np, sizeof *adj_points); /* the pairs' adjusted results */
    bool any_adjusted = false;
    for (size_t q = 0; q < F->n_matches; q++) {
        const ladder_fit_match *m = &F->m[F->ord[q]];
        double w = F->w[F->ord[q]];
        for (uint32_t a = 0; a < m->n_seats; a++) {
            bool first = true; /* a player holding several seats plays one match */
            for (uint32_t b = 0; b < a; b++)
                if (m->player[b] == m->player[a])
                    first = false;
            if (first) {
                pl[m->player[a]].matches++;
                pl[m->player[a]].games += w;
            }
            for (uint32_t b = a + 1; b < m->n_seats; b++) {
                uint32_t i = m->player[a], j = m->player[b];
                if (i == j)
                    continue;
                double s = ladder_elo_pair_score(m->place[a], m->place[b]);
                double adj = ladder_fit_pair_result(m, a, b);
                adj_points[i] += w * adj;
                adj_points[j] += w * (1.0 - adj);
                any_adjusted |= m->term != NULL;
                pl[i].wins += w * (s == 1.0);
                pl[i].draws += w * (s == 0.5);
                pl[i].losses += w * (s == 0.0);
                pl[j].wins += w * (s == 0.0);
                pl[j].draws += w * (s == 0.5);
                pl[j].losses += w * (s == 1.0);
                if (i < j)
                    pr[npr++] = (pair_rec){i, j, adj, s, w};
                else
                    pr[npr++] = (pair_rec){j, i, 1.0 - adj, 1.0 - s, w};
            }
        }
    }
    qsort(pr, npr, sizeof *pr, cmp_pair);
    F->e = ja_xmalloc(npr * sizeof *F->e);
    F->ne = 0;
    for (size_t k = 0; k < npr; k++) {
        if (!(F->ne && F->e[F->ne - 1].i == pr[k].i && F->e[F->ne - 1].j == pr[k].j))
            F->e[F->ne++] = (edge){pr[k].i, pr[k].j, 0.0, 0.0, false, false};
        edge *e = &F->e[F->ne - 1];
        e->n += pr[k].w;
        e->s += pr[k].w * pr[k].s;
        e->i_scored |= pr[k].raw > 0.0;
        e->j_scored |= pr[k].raw < 1.0;
    }
    free(pr);
    for (uint32_t p = 0; p < F->np; p++) {
        double g = pl[p].wins + pl[p].draws + pl[p].losses;
        pl[p].score = g > 0.0 ? (pl[p].wins + 0.5 * pl[p].draws) / g : NAN;
        if (any_adjusted && g > 0.0)
            pl[p].score = adj_points[p] / g;
    }
    free(adj_points);
}

/* ---- Graphs: groups and strongly connected parts -------------------------- */

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

/* CSR of the "scored against" digraph and of its reverse. */
static void build_digraph(fitter *F)
{
    uint32_t np = F->np;
    F->off = ja_xcalloc(np + 1, sizeof *F->off);
    F->radj_off = ja_xcalloc(np + 1, sizeof *F->radj_off);
    F->adj = ja_xmalloc((2 * F->ne + 1) * sizeof *F->adj);
    F->radj = ja_xmalloc((2 * F->ne + 1) * sizeof *F->radj);
    uint32_t *fill = ja_xcalloc(np + 1, sizeof *fill), *rfill = ja_xcalloc(np + 1, sizeof *rfill);
    /* Pass 0 counts, pass 1 fills. i -> j when i scored (s > 0). */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < F->ne; k++) {
            const edge *e = &F->e[k];
            uint32_t from[2] = {e->i, e->j}, to[2] = {e->j, e->i};
            bool has[2] = {e->i_scored, e->j_scored};
            for (int d = 0; d < 2; d++) {
                if (!has[d])
                    continue;
                if (pass == 0) {
                    F->off[from[d] + 1]++;
                    F->radj_off[to[d] + 1]++;
                } else {
                    F->adj[F->off[from[d]] + fill[from[d]]++] = to[d];
                    F->radj[F->radj_off[to[d]] + rfill[to[d]]++] = from[d];
                }
            }
        }
        if (pass == 0)
            for (uint32_t v = 0; v < np; v++) {
                F->off[v + 1] += F->off[v];
                F->radj_off[v + 1] += F->radj_off[v];
            }
    }
    free(fill);
    free(rfill);
}

/* Tarjan's algorithm (R. Tarjan, SIAM J. Computing 1(2), 1972). The depth
 * of recursion is at most the number of players (LADDER_FIT_MAX_PLAYERS). */
static void tarjan(fitter *F, uint32_t v)
{
    F->idx[v] = F->low[v] = F->next_idx++;
    F->stack[F->sp++] = v;
    F->on_stack[v] = true;
    for (uint32_t k = F->off[v]; k < F->off[v + 1]; k++) {
        uint32_t w = F->adj[k];
        if (F->idx[w] < 0) {
            tarjan(F, w);
            if (F->low[w] < F->low[v])
                F->low[v] = F->low[w];
        } else if (F->on_stack[w] && F->idx[w] < F->low[v]) {
            F->low[v] = F->idx[w];
        }
    }
    if (F->low[v] == F->idx[v]) {
        uint32_t w;
        do {
            w = F->stack[--F->sp];
            F->on_stack[w] = false;
            F->scc[w] = F->n_scc;
        } while (w != v);
        F->n_scc++;
    }
}

/* ---- Linear algebra (dense, small) ----------------------------------------- */

/* In-place Cholesky factor L (lower) of the n x n symmetric matrix a,
 * column by column (Golub and Van Loan, Matrix Computations, section 4.2).
 * JA_OK, or JA_ERANGE at the first pivot (before its square root) that is
 * not above min_pivot. */
static int cholesky_above(double *a, uint32_t n, double min_pivot)
{
    for (uint32_t j = 0; j < n; j++) {
        double d = a[(size_t)j * n + j];
        for (uint32_t k = 0; k < j; k++)
            d -= a[(size_t)j * n + k] * a[(size_t)j * n + k];
        if (!(d > min_pivot))
            return JA_ERANGE;
        d = sqrt(d);
        a[(size_t)j * n + j] = d;
        for (uint32_t i = j + 1; i < n; i++) {
            double s = a[(size_t)i * n + j];
            for (uint32_t k = 0; k < j; k++)
                s -= a[(size_t)i * n + k] * a[(size_t)j * n + k];
            a[(size_t)i * n + j] = s / d;
        }
    }
    return JA_OK;
}

/* In-place Cholesky factor L (lower) of the n x n SPD matrix a. JA_OK, or
 * JA_ERANGE when a is not positive definite. */
static int cholesky(double *a, uint32_t n)
{
    return cholesky_above(a, n, 0.0);
}

/* 1 when the symmetric positive semi-definite n x n matrix a (destroyed) is
 * numerically of full rank: Cholesky with pivots held against a relative
 * tolerance, since a singular sum of outer products comes out of floating
 * point with pivots of 1e-17 rather than exact zeros. */
static int full_rank(double *a, uint32_t n)
{
    double top = 0.0;
    for (uint32_t j = 0; j < n; j++)
        if (a[(size_t)j * n + j] > top)
            top = a[(size_t)j * n + j];
    return cholesky_above(a, n, 1e-10 * top) == JA_OK;
}

/* Solves L L^T x = b in place (b becomes x). */
static void chol_solve(const double *l, uint32_t n, double *b)
{
    for (uint32_t i = 0; i < n; i++) {
        double s = b[i];
        for (uint32_t k = 0; k < i; k++)
            s -= l[(size_t)i * n + k] * b[k];
        b[i] = s / l[(size_t)i * n + i];
    }
    for (uint32_t i = n; i-- > 0;) {
        double s = b[i];
        for (uint32_t k = i + 1; k < n; k++)
            s -= l[(size_t)k * n + i] * b[k];
        b[i] = s / l[(size_t)i * n + i];
    }
}

/* ---- The fit of one group's rated players ---------------------------------- */

/* log(1 + e^-x), without overflow. */
static double log1pexp_neg(double x)
{
    return x > 0 ? log1p(exp(-x)) : -x + log1p(exp(x));
}

static double logistic(double x)
{
    return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

/* The log-likelihood of the model: Bradley-Terry's composite one over the
 * rated edges of a part, or Plackett-Luce's over its matches (in deal
 * order, so the sum does not depend on the input's). loc maps a player to
 * its local index (-1 outside the rated set). */
static double loglik(const fitter *F, const int32_t *loc, const double *th)
{
    double ll = 0.0;
    if (F->model == LADDER_FIT_PLACKETT_LUCE) {
        for (size_t q = 0; q < F->n_matches; q++)
            ll += ladder_pl_match(&F->m[F->ord[q]], loc, 0, th, F->w[F->ord[q]], NULL, NULL);
        return ll;
    }
    for (size_t k = 0; k < F->ne; k++) {
        const edge *e = &F->e[k];
        int32_t a = loc[e->i], b = loc[e->j];
        if (a < 0 || b < 0)
            continue;
        double x = th[a] - th[b];
        ll -= e->s * log1pexp_neg(x) + (e->n - e->s) * log1pexp_neg(-x);
    }
    return ll;
}

/* Gradient g (k) and information matrix h (k x k, the negative Hessian) at
 * th, of loglik. */
static void grad_info(const fitter *F, const int32_t *loc, uint32_t k, const double *th, double *g,
                      double *h)
{
    memset(g, 0, k * sizeof *g);
    memset(h, 0, (size_t)k * k * sizeof *h);
    if (F->model == LADDER_FIT_PLACKETT_LUCE) {
        for (size_t q = 0; q < F->n_matches; q++)
            (void)ladder_pl_match(&F->m[F->ord[q]], loc, k, th, F->w[F->ord[q]], g, h);
        return;
    }
    for (size_t q = 0; q < F->ne; q++) {
        const edge *e = &F->e[q];
        int32_t a = loc[e->i], b = loc[e->j];
        if (a < 0 || b < 0)
            continue;
        double p = logistic(th[a] - th[b]);
        double r = e->s - e->n * p, w = e->n * p * (1.0 - p);
        g[a] += r;
        g[b] -= r;
        h[(size_t)a * k + a] += w;
        h[(size_t)b * k + b] += w;
        h[(size_t)a * k + b] -= w;
        h[(size_t)b * k + a] -= w;
    }
}

/* The reduced (k-1) x (k-1) block of h without local index 0. */
static void reduce(const double *h, uint32_t k, double *r)
{
    for (uint32_t i = 1; i < k; i++)
        for (uint32_t j = 1; j < k; j++)
            r[(size_t)(i - 1) * (k - 1) + (j - 1)] = h[(size_t)i * k + j];
}

/* B = G/(G-1) * sum over clusters of u u^T, u the cluster's score vector
 * (gradient of its pairs', or its matches', weighted log-likelihood) at th; reduced to
 * indices 1..k-1. Also counts the part's clusters, matches and pairs. */
static void meat(const fitter *F, const int32_t *loc, uint32_t k, const double *th, double *B,
                ladder_fit_part *gr)
{
    uint32_t kr = k - 1;
    memset(B, 0, (size_t)kr * kr * sizeof *B);
    const size_t *ord = F->ord; /* by cluster */
    double *u = ja_xcalloc(k, sizeof *u);
    uint32_t *touched = ja_xmalloc(k * sizeof *touched);
    bool *mark = ja_xcalloc(k, sizeof *mark);
    uint32_t nt = 0;
    bool cluster_used = false;
    for (size_t q = 0; q <= F->n_matches; q++) {
        bool boundary = q == F->n_matches ||
                        (q > 0 && F->m[ord[q]].cluster != F->m[ord[q - 1]].cluster);
        if (boundary && q > 0) {
            for (uint32_t x = 0; x < nt; x++)
                for (uint32_t y = 0; y < nt; y++) {
                    uint32_t a = touched[x], b = touched[y];
                    if (a > 0 && b > 0)
                        B[(size_t)(a - 1) * kr + (b - 1)] += u[a] * u[b];
                }
            for (uint32_t x = 0; x < nt; x++) {
                u[touched[x]] = 0.0;
                mark[touched[x]] = false;
            }
            nt = 0;
            gr->clusters += cluster_used;
            cluster_used = false;
        }
        if (q == F->n_matches)
            break;
        const ladder_fit_match *m = &F->m[ord[q]];
        double w = F->w[ord[q]];
        bool match_used = false;
        for (uint32_t s = 0; s < m->n_seats; s++)
            for (uint32_t t = s + 1; t < m->n_seats; t++) {
                int32_t a = loc[m->player[s]], b = loc[m->player[t]];
                if (a < 0 || b < 0 || a == b)
                    continue;
                int32_t ab[2] = {a, b};
                for (int z = 0; z < 2; z++)
                    if (!mark[ab[z]]) {
                        mark[ab[z]] = true;
                        touched[nt++] = (uint32_t)ab[z];
                    }
                if (F->model == LADDER_FIT_BRADLEY_TERRY) {
                    double r = w * (ladder_fit_pair_result(m, s, t) - logistic(th[a] - th[b]));
                    u[a] += r;
                    u[b] -= r;
                }
                gr->pairs++;
                match_used = true;
            }
        if (match_used && F->model == LADDER_FIT_PLACKETT_LUCE)
            (void)ladder_pl_match(m, loc, k, th, w, u, NULL);
        gr->matches += match_used;
        cluster_used = cluster_used || match_used;
    }
    double G = (double)gr->clusters;
    double c = G > 1 ? G / (G - 1) : NAN;
    for (size_t i = 0; i < (size_t)kr * kr; i++)
        B[i] *= c;
    free(u);
    free(touched);
    free(mark);
}

/* The scratch of one part's fit: its k players, k - 1 = kr of them free
 * (local index 0 is held at theta 0). */
typedef struct part_fit {
    uint32_t k, kr;
    int32_t *loc;         /* player -> local index, -1 outside the part */
    double *th;           /* theta (k) */
    double *g, *h;        /* gradient (k) and information (k x k) */
    double *hr;           /* information reduced to the free players, or its factor */
    double *step, *trial; /* Newton's step (kr) and the point tried (k) */
    double *hinv, *B;     /* kr x kr: H^-1 (then the covariance), the meat */
    double *tmp;          /* kr x kr */
    double *V;            /* k x k: the covariance of theta (row and column 0 zero) */
} part_fit;

static void part_fit_free(part_fit *p)
{
    free(p->loc);
    free(p->th);
    free(p->g);
    free(p->h);
    free(p->hr);
    free(p->step);
    free(p->trial);
    free(p->hinv);
    free(p->B);
    free(p->V);
    free(p->tmp);
}

/* Allocates the scratch of the part of the players `who` (k >= 2), theta
 * at 0, and maps its players to their local indices. */
static void part_fit_alloc(part_fit *p, const fitter *F, const uint32_t *who, uint32_t k)
{
    uint32_t kr = k - 1;
    p->k = k;
    p->kr = kr;
    p->loc = ja_xmalloc(F->np * sizeof *p->loc);
    p->th = ja_xcalloc(k, sizeof *p->th);
    p->g = ja_xmalloc(k * sizeof *p->g);
    p->h = ja_xmalloc((size_t)k * k * sizeof *p->h);
    p->hr = ja_xmalloc((size_t)kr * kr * sizeof *p->hr);
    p->step = ja_xmalloc(k * sizeof *p->step);
    p->trial = ja_xmalloc(k * sizeof *p->trial);
    p->hinv = ja_xmalloc((size_t)kr * kr * sizeof *p->hinv);
    p->B = ja_xmalloc((size_t)kr * kr * sizeof *p->B);
    p->V = ja_xcalloc((size_t)k * k, sizeof *p->V);
    p->tmp = ja_xmalloc((size_t)kr * kr * sizeof *p->tmp);
    for (uint32_t q = 0; q < F->np; q++)
        p->loc[q] = -1;
    for (uint32_t a = 0; a < k; a++)
        p->loc[who[a]] = (int32_t)a;
}

/* The information at theta, reduced to the free players and factored
 * (Cholesky) in p->hr. JA_OK, or JA_ERANGE when it is not positive
 * definite. */
static int factor_info(const fitter *F, part_fit *p)
{
    grad_info(F, p->loc, p->k, p->th, p->g, p->h);
    reduce(p->h, p->k, p->hr);
    return cholesky(p->hr, p->kr);
}

/* Tries theta + t * step for t = 1, 1/2, 1/4, ... (60 at most) until the
 * log-likelihood does not fall below ll: the point in p->trial, its
 * log-likelihood returned. */
static double halve_step(const fitter *F, part_fit *p, double ll)
{
    double t = 1.0, nll = ll;
    for (int half = 0; half < 60; half++, t *= 0.5) {
        p->trial[0] = 0.0;
        for (uint32_t a = 1; a < p->k; a++)
            p->trial[a] = p->th[a] + t * p->step[a - 1];
        nll = loglik(F, p->loc, p->trial);
        if (nll >= ll - 1e-12 * fabs(ll))
            break;
    }
    return nll;
}

/* Newton-Raphson with step halving, from theta 0 to the maximum
 * likelihood; gr's iterations and convergence. JA_OK or JA_ERANGE. */
static int newton(const fitter *F, part_fit *p, ladder_fit_part *gr)
{
    double ll = loglik(F, p->loc, p->th);
    gr->converged = false;
    for (gr->iterations = 0; gr->iterations < NEWTON_MAX_ITER; gr->iterations++) {
        int rc = factor_info(F, p);
        if (rc != JA_OK)
            return rc;
        memcpy(p->step, p->g + 1, p->kr * sizeof *p->step);
        chol_solve(p->hr, p->kr, p->step);
        double nll = halve_step(F, p, ll), big = 0.0;
        for (uint32_t a = 1; a < p->k; a++)
            big = fmax(big, fabs(p->trial[a] - p->th[a]));
        memcpy(p->th, p->trial, p->k * sizeof *p->th);
        ll = nll;
        if (big < NEWTON_TOL) {
            gr->converged = true;
            gr->iterations++;
            break;
        }
    }
    return JA_OK;
}

/* p->hinv = p->hinv B p->hinv (kr x kr): the sandwich, through p->tmp
 * (p->B is overwritten). */
static void sandwich(part_fit *p)
{
    uint32_t kr = p->kr;
    for (uint32_t i = 0; i < kr; i++)
        for (uint32_t j = 0; j < kr; j++) {
            double s = 0.0;
            for (uint32_t q = 0; q < kr; q++)
                s += p->hinv[(size_t)i * kr + q] * p->B[(size_t)q * kr + j];
            p->tmp[(size_t)i * kr + j] = s;
        }
    for (uint32_t i = 0; i < kr; i++)
        for (uint32_t j = 0; j < kr; j++) {
            double s = 0.0;
            for (uint32_t q = 0; q < kr; q++)
                s += p->tmp[(size_t)i * kr + q] * p->hinv[(size_t)q * kr + j];
            p->B[(size_t)i * kr + j] = s;
        }
    memcpy(p->hinv, p->B, (size_t)kr * kr * sizeof *p->hinv);
}

/* The covariance of theta at the fit, into p->V: H^-1, or H^-1 B H^-1;
 * gr's clusters, matches and pairs (meat) and its model_fallback (and
 * f's). JA_OK or JA_ERANGE. */
static int covariance(const fitter *F, const ladder_fit_opts *o, part_fit *p, ladder_fit *f,
                      ladder_fit_part *gr)
{
    uint32_t k = p->k, kr = p->kr;
    int rc = factor_info(F, p);
    if (rc != JA_OK)
        return rc;
    for (uint32_t c = 0; c < kr; c++) {
        double *col = p->hinv + (size_t)c * kr; /* column c of H^-1 (symmetric) */
        memset(col, 0, kr * sizeof *col);
        col[c] = 1.0;
        chol_solve(p->hr, kr, col);
    }
    meat(F, p->loc, k, p->th, p->B, gr);
    /* The sandwich needs a meat matrix of full rank: with few deals, or a
     * player whose results were the same in every deal, the clustered
     * variance of some contrast is exactly zero, which would claim a
     * zero-width interval. Then the model's covariance is used instead
     * (model_fallback; docs/ratings.md). */
    memcpy(p->tmp, p->B, (size_t)kr * kr * sizeof *p->tmp);
    if (!o->model_cov && !full_rank(p->tmp, kr))
        gr->model_fallback = f->model_fallback = true;
    if (!o->model_cov && !gr->model_fallback)
        sandwich(p);
    for (uint32_t i = 1; i < k; i++)
        for (uint32_t j = 1; j < k; j++)
            p->V[(size_t)i * k + j] = p->hinv[(size_t)(i - 1) * kr + (j - 1)];
    return JA_OK;
}

/* Anchors the part and writes its players into f: R = base + c * (theta -
 * ref), with ref the anchor player's theta and base anchor_elo when the
 * anchor player is one of these, else ref the mean and base mean_elo (an
 * anchor fixes its own part only); the covariance follows the same linear
 * map A = I - 1 w^T, w the reference weights: V' = A V A^T. */
static void anchor_part(const fitter *F, const ladder_fit_opts *o, const uint32_t *who,
                        part_fit *p, ladder_fit *f, uint32_t part)
{
    uint32_t k = p->k;
    const double *th = p->th, *V = p->V;
    double *w = p->step; /* reuse: k weights */
    int32_t ap = o->anchor_player >= 0 && (uint64_t)o->anchor_player < F->np
                     ? p->loc[o->anchor_player]
                     : -1;
    for (uint32_t a = 0; a < k; a++)
        w[a] = ap >= 0 ? (a == (uint32_t)ap) : 1.0 / k;
    if (ap >= 0)
        f->parts[part].anchored = f->anchored = true;
    double ref = 0.0, base = ap >= 0 ? o->anchor_elo : o->mean_elo;
    for (uint32_t a = 0; a < k; a++)
        ref += w[a] * th[a];
    double *Vw = p->trial; /* V w */
    for (uint32_t i = 0; i < k; i++) {
        double s = 0.0;
        for (uint32_t j = 0; j < k; j++)
            s += V[(size_t)i * k + j] * w[j];
        Vw[i] = s;
    }
    double wVw = 0.0;
    for (uint32_t i = 0; i < k; i++)
        wVw += w[i] * Vw[i];
    const double c2 = LADDER_ELO_PER_LOGIT * LADDER_ELO_PER_LOGIT;
    for (uint32_t i = 0; i < k; i++) {
        ladder_fit_player *pl = &f->players[who[i]];
        pl->status = LADDER_FIT_RATED;
        pl->part = part;
        pl->elo = base + LADDER_ELO_PER_LOGIT * (th[i] - ref);
        for (uint32_t j = 0; j < k; j++)
            f->cov[(size_t)who[i] * f->n_players + who[j]] =
                c2 * (V[(size_t)i * k + j] - Vw[i] - Vw[j] + wVw);
    }
    for (uint32_t i = 0; i < k; i++) {
        ladder_fit_player *pl = &f->players[who[i]];
        double var = f->cov[(size_t)who[i] * f->n_players + who[i]];
        pl->se = var > 0.0 ? sqrt(var) : var == 0.0 ? 0.0 : NAN;
        pl->ci_lo = pl->elo - o->z * pl->se;
        pl->ci_hi = pl->elo + o->z * pl->se;
    }
}

/* Fits the players `who` (k of them, k >= 2) of one strongly connected
 * part, f->parts[part], and writes their ratings and covariance into f. */
static int fit_part(const fitter *F, const ladder_fit_opts *o, const uint32_t *who, uint32_t k,
                    ladder_fit *f, uint32_t part)
{
    ladder_fit_part *gr = &f->parts[part];
    part_fit p;
    memset(&p, 0, sizeof p);
    part_fit_alloc(&p, F, who, k);
    int rc = newton(F, &p, gr);
    if (rc == JA_OK && (rc = covariance(F, o, &p, f, gr)) == JA_OK)
        anchor_part(F, o, who, &p, f, part);
    part_fit_free(&p);
    return rc;
}

/* ---- Order ------------------------------------------------------------------ */

/* Tiers of a unit (a part, or a player on its own) in its group, for the
 * display order where the results do not decide it. */
enum { TIER_ABOVE, TIER_MAIN, TIER_APART, TIER_BELOW };

/* The scratch of the order and the parts: per strongly connected
 * component (unit). */
typedef struct units {
    uint32_t n;
    uint32_t *size;  /* players */
    double *games;   /* games between its players */
    uint32_t *minp;  /* its smallest player */
    uint8_t *tier;   /* TIER_* */
    double *key;     /* its best score (-inf for none) */
    uint32_t *indeg; /* Kahn: edges from units not yet placed */
    bool *placed;
    uint32_t *rank;  /* its place in the display order, over all groups */
    uint32_t *by_rank;
} units;

static void units_free(units *u)
{
    free(u->size);
    free(u->games);
    free(u->minp);
    free(u->tier);
    free(u->key);
    free(u->indeg);
    free(u->placed);
    free(u->rank);
    free(u->by_rank);
}

static void units_alloc(units *u, uint32_t n)
{
    u->n = n;
    u->size = ja_xcalloc(n, sizeof *u->size);
    u->games = ja_xcalloc(n, sizeof *u->games);
    u->minp = ja_xmalloc(n * sizeof *u->minp);
    u->tier = ja_xcalloc(n, sizeof *u->tier);
    u->key = ja_xmalloc(n * sizeof *u->key);
    u->indeg = ja_xcalloc(n, sizeof *u->indeg);
    u->placed = ja_xcalloc(n, sizeof *u->placed);
    u->rank = ja_xmalloc(n * sizeof *u->rank);
    u->by_rank = ja_xmalloc(n * sizeof *u->by_rank);
}

/* Ranks the units of each group in display order: Kahn's algorithm on the
 * condensation of the "scored against" digraph (A. B. Kahn, "Topological
 * sorting of large networks", CACM 5(11), 1962), so a unit comes after
 * every unit that scored against it without ever losing to it; among the
 * units free to come next, the lowest tier, then the best score, then the
 * smallest player. Groups in order; u->tier, key, minp filled. */
static void rank_units(const fitter *F, const ladder_fit *f, units *u)
{
    for (uint32_t v = 0; v < F->np; v++)
        for (uint32_t k = F->off[v]; k < F->off[v + 1]; k++)
            if (F->scc[F->adj[k]] != F->scc[v])
                u->indeg[F->scc[F->adj[k]]]++;
    bool *placed = u->placed;
    uint32_t next = 0;
    for (uint32_t gi = 0; gi < f->n_groups; gi++) {
        for (;;) {
            int64_t best = -1;
            for (uint32_t c = 0; c < u->n; c++) {
                if (placed[c] || u->indeg[c] || f->players[u->minp[c]].group != gi)
                    continue;
                if (best < 0 || u->tier[c] < u->tier[best] ||
                    (u->tier[c] == u->tier[best] &&
                     (u->key[c] > u->key[best] ||
                      (u->key[c] == u->key[best] && u->minp[c] < u->minp[best]))))
                    best = c;
            }
            if (best < 0)
                break;
            placed[best] = true;
            u->rank[best] = next;
            u->by_rank[next++] = (uint32_t)best;
            for (uint32_t v = 0; v < F->np; v++) {
                if (F->scc[v] != best)
                    continue;
                for (uint32_t k = F->off[v]; k < F->off[v + 1]; k++)
                    if (F->scc[F->adj[k]] != best)
                        u->indeg[F->scc[F->adj[k]]]--;
            }
        }
    }
}

static double order_key(const ladder_fit_player *p)
{
    double k = p->status == LADDER_FIT_RATED ? p->elo : p->score;
    return isnan(k) ? -INFINITY : k;
}

/* The display order of players a and b (see ladder_fit.order): by group,
 * by the rank of their unit, then by elo (a part) or score. */
static int cmp_order(const ladder_fit *f, const fitter *F, const units *u, uint32_t a,
                     uint32_t b)
{
    const ladder_fit_player *x = &f->players[a], *y = &f->players[b];
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    uint32_t rx = u->rank[F->scc[a]], ry = u->rank[F->scc[b]];
    if (rx != ry)
        return rx < ry ? -1 : 1;
    double kx = order_key(x), ky = order_key(y);
    if (kx != ky)
        return kx > ky ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Bottom-up merge sort of f->order (qsort has no context argument). */
static void sort_order(ladder_fit *f, const fitter *F, const units *u)
{
    uint32_t n = f->n_players;
    uint32_t *a = f->order, *b = ja_xmalloc(n * sizeof *b);
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                b[k++] = cmp_order(f, F, u, a[i], a[j]) <= 0 ? a[i++] : a[j++];
            while (i < mid)
                b[k++] = a[i++];
            while (j < hi)
                b[k++] = a[j++];
        }
        uint32_t *t = a;
        a = b;
        b = t;
    }
    if (a != f->order) {
        memcpy(f->order, a, n * sizeof *a);
        b = a;
    }
    free(b);
}

/* ---- The run ------------------------------------------------------------------ */

double ladder_fit_los(const ladder_fit *f, uint32_t a, uint32_t b)
{
    if (f == NULL || a >= f->n_players || b >= f->n_players)
        return NAN;
    const ladder_fit_player *x = &f->players[a], *y = &f->players[b];
    if (x->status != LADDER_FIT_RATED || y->status != LADDER_FIT_RATED || x->part != y->part)
        return NAN;
    size_t n = f->n_players;
    double var = f->cov[a * n + a] + f->cov[b * n + b] - 2.0 * f->cov[a * n + b];
    return ladder_los(x->elo - y->elo, var > 0.0 ? sqrt(var) : 0.0);
}

static void fitter_free(fitter *F)
{
    free(F->ord);
    free(F->w);
    free(F->e);
    free(F->off);
    free(F->adj);
    free(F->radj_off);
    free(F->radj);
    free(F->idx);
    free(F->low);
    free(F->scc);
    free(F->stack);
    free(F->on_stack);
    free(F->uf);
    free(F->group_of);
    free(F->main_scc);
    free(F->up);
    free(F->down);
    free(F->queue);
    free(F->who);
}

/* Marks every player reachable from the players of SCC `from` along the
 * digraph (forward: CSR off/adj; backward: radj) with `mark`. */
static void reach(const fitter *F, int32_t from, bool forward, bool *mark, uint32_t *queue)
{
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < F->np; v++)
        if (F->scc[v] == from) {
            mark[v] = true;
            queue[tail++] = v;
        }
    const uint32_t *off = forward ? F->off : F->radj_off, *adj = forward ? F->adj : F->radj;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t k = off[v]; k < off[v + 1]; k++)
            if (!mark[adj[k]]) {
                mark[adj[k]] = true;
                queue[tail++] = adj[k];
            }
    }
}

/* Where each player of group gi stands: with a part 1 (SCC main), its
 * tier against it and, for a player on its own, its status; without one
 * (no two players with a finite comparison), the status by its score. */
static void place_group(const fitter *F, ladder_fit *f, units *u, uint32_t gi, int32_t main,
                        bool *up, bool *down, uint32_t *queue)
{
    memset(up, 0, F->np * sizeof *up);
    memset(down, 0, F->np * sizeof *down);
    if (main >= 0) {
        /* Above: can reach part 1; below: reached from it. */
        reach(F, main, false, up, queue);
        reach(F, main, true, down, queue);
    }
    for (uint32_t p = 0; p < F->np; p++) {
        ladder_fit_player *pl = &f->players[p];
        if (pl->group != gi)
            continue;
        int32_t c = F->scc[p];
        if (main >= 0)
            u->tier[c] = c == main ? TIER_MAIN
                         : up[p]   ? TIER_ABOVE
                         : down[p] ? TIER_BELOW
                                   : TIER_APART;
        else
            u->tier[c] = pl->score == 1.0   ? TIER_ABOVE
                         : pl->score == 0.0 ? TIER_BELOW
                                            : TIER_APART;
        if (u->size[c] == 1)
            pl->status = u->tier[c] == TIER_ABOVE   ? LADDER_FIT_PERFECT
                         : u->tier[c] == TIER_BELOW ? LADDER_FIT_ZERO
                                                    : LADDER_FIT_UNRATED;
    }
}

/* f->clusters: the clusters with a pair of players of one part. */
static void count_clusters(const fitter *F, ladder_fit *f)
{
    bool any = false;
    int64_t last = 0;
    for (size_t q = 0; q < F->n_matches; q++) {
        const ladder_fit_match *m = &F->m[F->ord[q]];
        bool used = false;
        for (uint32_t s = 0; s < m->n_seats && !used; s++)
            for (uint32_t t = s + 1; t < m->n_seats && !used; t++)
                used = m->player[s] != m->player[t] &&
                       f->players[m->player[s]].part != LADDER_FIT_NO_PART &&
                       f->players[m->player[s]].part == f->players[m->player[t]].part;
        if (used && (!any || m->cluster != last)) {
            f->clusters++;
            last = m->cluster;
            any = true;
        }
    }
}

/* Allocates the fit (every player unrated, in no part, in index order),
 * which it returns, and the run's scratch. */
static ladder_fit *fit_alloc(fitter *F)
{
    uint32_t np = F->np;
    ladder_fit *f = ja_xcalloc(1, sizeof *f);
    f->n_players = np;
    f->players = ja_xcalloc(np, sizeof *f->players);
    f->order = ja_xmalloc(np * sizeof *f->order);
    f->cov = ja_xcalloc((size_t)np * np, sizeof *f->cov);
    F->idx = ja_xmalloc(np * sizeof *F->idx);
    F->low = ja_xmalloc(np * sizeof *F->low);
    F->scc = ja_xmalloc(np * sizeof *F->scc);
    F->stack = ja_xmalloc(np * sizeof *F->stack);
    F->on_stack = ja_xcalloc(np, sizeof *F->on_stack);
    F->uf = ja_xmalloc(np * sizeof *F->uf);
    F->group_of = ja_xmalloc(np * sizeof *F->group_of);
    F->up = ja_xcalloc(np, sizeof *F->up);
    F->down = ja_xcalloc(np, sizeof *F->down);
    F->queue = ja_xmalloc(np * sizeof *F->queue);
    F->who = ja_xmalloc(np * sizeof *F->who);
    for (uint32_t p = 0; p < np; p++) {
        ladder_fit_player *pl = &f->players[p];
        pl->status = LADDER_FIT_UNRATED;
        pl->part = LADDER_FIT_NO_PART;
        pl->elo = pl->se = pl->ci_lo = pl->ci_hi = pl->los_next = NAN;
        f->order[p] = p;
        F->uf[p] = p;
        F->idx[p] = -1;
    }
    return f;
}

/* Groups: the connected components of the edges, numbered by size
 * (descending), then by their smallest player; f->groups with their
 * players counted, and room for each group's part 1 (F->main_scc). */
static void find_groups(fitter *F, ladder_fit *f)
{
    uint32_t np = F->np;
    for (size_t k = 0; k < F->ne; k++) {
        uint32_t a = uf_find(F->uf, F->e[k].i), b = uf_find(F->uf, F->e[k].j);
        if (a != b)
            F->uf[a > b ? a : b] = a < b ? a : b;
    }
    uint32_t *size = F->queue; /* per root */
    memset(size, 0, np * sizeof *size);
    for (uint32_t p = 0; p < np; p++)
        size[uf_find(F->uf, p)]++;
    for (uint32_t p = 0; p < np; p++)
        F->group_of[p] = -1;
    for (;;) {
        uint32_t best = UINT32_MAX;
        for (uint32_t r = 0; r < np; r++)
            if (F->uf[r] == r && F->group_of[r] < 0 && (best == UINT32_MAX || size[r] > size[best]))
                best = r;
        if (best == UINT32_MAX)
            break;
        F->group_of[best] = (int32_t)f->n_groups++;
    }
    for (uint32_t p = 0; p < np; p++)
        f->players[p].group = (uint32_t)F->group_of[uf_find(F->uf, p)];
    f->groups = ja_xcalloc(f->n_groups, sizeof *f->groups);
    F->main_scc = ja_xmalloc(f->n_groups * sizeof *F->main_scc);
    for (uint32_t p = 0; p < np; p++)
        f->groups[f->players[p].group].players++;
}

/* The strongly connected parts (units, Tarjan): their sizes, internal
 * games, smallest players and best scores. */
static void find_units(fitter *F, const ladder_fit *f, units *u)
{
    for (uint32_t p = 0; p < F->np; p++)
        if (F->idx[p] < 0)
            tarjan(F, p);
    units_alloc(u, (uint32_t)F->n_scc);
    for (uint32_t c = 0; c < u->n; c++) {
        u->minp[c] = UINT32_MAX;
        u->key[c] = -INFINITY;
    }
    for (uint32_t p = 0; p < F->np; p++) {
        int32_t c = F->scc[p];
        u->size[c]++;
        if (u->minp[c] == UINT32_MAX)
            u->minp[c] = p;
        if (!isnan(f->players[p].score) && f->players[p].score > u->key[c])
            u->key[c] = f->players[p].score;
    }
    for (size_t k = 0; k < F->ne; k++)
        if (F->scc[F->e[k].i] == F->scc[F->e[k].j])
            u->games[F->scc[F->e[k].i]] += F->e[k].n;
}

/* Part 1 of each group is its largest strongly connected part (ties by
 * internal games, then by the smallest player); the rest of the group
 * stands above it, below it or apart. */
static void place_groups(fitter *F, ladder_fit *f, units *u)
{
    for (uint32_t gi = 0; gi < f->n_groups; gi++) {
        int32_t best = -1;
        for (uint32_t c = 0; c < u->n; c++) {
            if (f->players[u->minp[c]].group != gi || u->size[c] < 2)
                continue;
            if (best < 0 || u->size[c] > u->size[best] ||
                (u->size[c] == u->size[best] &&
                 (u->games[c] > u->games[best] ||
                  (u->games[c] == u->games[best] && u->minp[c] < u->minp[best]))))
                best = (int32_t)c;
        }
        F->main_scc[gi] = best;
        place_group(F, f, u, gi, best, F->up, F->down, F->queue);
    }
}

/* Fits unit c of group gi as part f->parts[part]: its number in the
 * group, its relation to part 1, its ratings. */
static int fit_unit(fitter *F, const ladder_fit_opts *o, ladder_fit *f, const units *u,
                    uint32_t gi, uint32_t c, uint32_t part)
{
    static const ladder_fit_relation relation_of[] = {LADDER_FIT_ABOVE, LADDER_FIT_MAIN,
                                                      LADDER_FIT_APART, LADDER_FIT_BELOW};
    ladder_fit_group *gr = &f->groups[gi];
    uint32_t k = 0;
    for (uint32_t p = 0; p < F->np; p++)
        if (F->scc[p] == (int32_t)c)
            F->who[k++] = p;
    ladder_fit_part *pt = &f->parts[part];
    pt->group = gi;
    pt->number = ++gr->parts;
    pt->relation = relation_of[u->tier[c]];
    pt->rated = k;
    gr->rated += k;
    return fit_part(F, o, F->who, k, f, part);
}

/* The parts: part 1 of each group, then its others in display order, each
 * fitted. */
static int fit_parts(fitter *F, const ladder_fit_opts *o, ladder_fit *f, const units *u)
{
    for (uint32_t c = 0; c < u->n; c++)
        f->n_parts += u->size[c] >= 2;
    f->parts = ja_xcalloc(f->n_parts, sizeof *f->parts);
    uint32_t np = 0;
    for (uint32_t gi = 0; gi < f->n_groups; gi++) {
        int32_t main = F->main_scc[gi];
        f->groups[gi].first_part = np;
        for (int64_t r = -1; r < (int64_t)u->n && main >= 0; r++) {
            uint32_t c = r < 0 ? (uint32_t)main : u->by_rank[r];
            if ((r >= 0 && (int32_t)c == main) || u->size[c] < 2 ||
                f->players[u->minp[c]].group != gi)
                continue;
            int rc = fit_unit(F, o, f, u, gi, c, np);
            if (rc != JA_OK)
                return rc;
            np++;
        }
    }
    return JA_OK;
}

/* The LOS of each rated player over the next rated one below it. */
static void set_los_next(ladder_fit *f)
{
    for (uint32_t i = 0; i < f->n_players; i++) {
        uint32_t a = f->order[i];
        if (f->players[a].status != LADDER_FIT_RATED)
            continue;
        for (uint32_t j = i + 1; j < f->n_players; j++) {
            uint32_t b = f->order[j];
            if (f->players[b].part != f->players[a].part)
                break;
            f->players[a].los_next = ladder_fit_los(f, a, b);
            break;
        }
    }
}

int ladder_fit_run(const ladder_fit_match *matches, size_t n, uint32_t n_players,
                   const ladder_fit_opts *o, ladder_fit **out)
{
    if (out == NULL)
        return JA_EINVAL;
    *out = NULL;
    if ((matches == NULL && n > 0) || n_players == 0)
        return JA_EINVAL;
    if (n_players > LADDER_FIT_MAX_PLAYERS)
        return JA_ERANGE;
    ladder_fit_opts defaults;
    if (o == NULL) {
        ladder_fit_opts_init(&defaults);
        o = &defaults;
    }
    if ((unsigned)o->model >= LADDER_FIT_MODEL_COUNT)
        return JA_EINVAL;
    int rc = check_matches(matches, n, n_players, o->model);
    if (rc != JA_OK)
        return rc;
    fitter F;
    memset(&F, 0, sizeof F);
    F.model = o->model;
    F.m = matches;
    F.n_matches = n;
    F.np = n_players;
    units u;
    memset(&u, 0, sizeof u);
    ladder_fit *f = fit_alloc(&F);
    deal_weights(&F);
    build_edges(&F, f->players);
    build_digraph(&F);
    find_groups(&F, f);
    find_units(&F, f, &u);
    f->replays = F.replays;
    f->replays_replayed = F.replays_replayed;
    place_groups(&F, f, &u);
    rank_units(&F, f, &u);
    if ((rc = fit_parts(&F, o, f, &u)) == JA_OK) {
        count_clusters(&F, f);
        sort_order(f, &F, &u);
        set_los_next(f);
    }
    fitter_free(&F);
    units_free(&u);
    if (rc != JA_OK)
        ladder_fit_free(&f);
    *out = f;
    return rc;
}
