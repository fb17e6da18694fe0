/* Unit tests of the Bradley-Terry fit (ladders/fit.h) and the statistical
 * helpers it uses (ladders/stats.h): known answers worked out by hand (the
 * arithmetic is next to each value), draws as half points, the pairwise
 * decomposition of multiplayer matches, the cluster-robust intervals,
 * anchoring, the likelihood of superiority, and the cases with no finite
 * estimate (perfect and zero scores, groups that never met). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fit.h"
#include "jackarena/ja_error.h"
#include "stats.h"

static void near(double got, double want, double eps)
{
    if (!(fabs(got - want) <= eps))
        fail_msg("got %.9f, want %.9f (+-%g)", got, want, eps);
}

/* A growing list of matches. */
typedef struct games {
    ladder_fit_match m[512];
    size_t n;
} games;

/* Adds `count` two-player matches a vs b with a's result s (1, 0.5, 0),
 * each its own cluster unless cluster >= 0. */
static void add2(games *g, uint32_t a, uint32_t b, double s, int count, int64_t cluster)
{
    for (int i = 0; i < count; i++) {
        ladder_fit_match *m = &g->m[g->n];
        memset(m, 0, sizeof *m);
        m->cluster = cluster >= 0 ? cluster : (int64_t)g->n;
        m->n_seats = 2;
        m->player[0] = a;
        m->player[1] = b;
        m->place[0] = s == 1.0 ? 1 : s == 0.5 ? 1 : 2;
        m->place[1] = s == 1.0 ? 2 : s == 0.5 ? 1 : 1;
        g->n++;
    }
}

/* A match of n seats with players p[] and places pl[]. */
static void addn(games *g, uint32_t n, const uint32_t *p, const uint8_t *pl)
{
    ladder_fit_match *m = &g->m[g->n];
    memset(m, 0, sizeof *m);
    m->cluster = (int64_t)g->n;
    m->n_seats = n;
    for (uint32_t i = 0; i < n; i++) {
        m->player[i] = p[i];
        m->place[i] = pl[i];
    }
    g->n++;
}

static ladder_fit *run(const games *g, uint32_t np, const ladder_fit_opts *o)
{
    ladder_fit *f = NULL;
    assert_int_equal(ladder_fit_run(g->m, g->n, np, o, &f), JA_OK);
    assert_non_null(f);
    return f;
}

/* ---- stats.h ---------------------------------------------------------------- */

static void test_stats_helpers(void **state)
{
    (void)state;
    /* Phi(1.959963984540054) = 0.975: the definition of LADDER_Z95. */
    near(ladder_normal_cdf(LADDER_Z95), 0.975, 1e-12);
    /* Phi(1) = 0.841344746068543 (Abramowitz and Stegun, table 26.1). */
    near(ladder_normal_cdf(1.0), 0.841344746068543, 1e-12);
    /* 400 Elo is odds of 10:1 (elo.h): a score of 10/11. */
    near(ladder_elo_of_score(10.0 / 11.0), 400.0, 1e-9);
    near(ladder_score_of_elo(400.0), 10.0 / 11.0, 1e-12);
    near(ladder_score_of_elo(-400.0), 1.0 / 11.0, 1e-12);
    /* 3:1 odds: 400 log10 3 = 190.848501888. */
    near(ladder_elo_of_score(0.75), 190.848501888, 1e-6);
    assert_true(ladder_elo_of_score(1.0) == INFINITY);
    assert_true(ladder_elo_of_score(0.0) == -INFINITY);
    assert_false(signbit(ladder_elo_of_score(0.5))); /* +0, never "-0" */
    /* LOS of 100 +- 100: Phi(1). */
    near(ladder_los(100.0, 100.0), 0.841344746068543, 1e-12);
    near(ladder_los(-100.0, 100.0), 1.0 - 0.841344746068543, 1e-12);
    near(ladder_los(5.0, 0.0), 1.0, 0);
    near(ladder_los(0.0, 0.0), 0.5, 0);
    /* Wilson (1927) at p = 1, n = 20, z = 1.96: the lower end is
     * n / (n + z^2) = 20 / 23.8416 = 0.838870; the upper end is 1. */
    double lo, hi;
    ladder_wilson(1.0, 20.0, 1.96, &lo, &hi);
    near(lo, 20.0 / (20.0 + 1.96 * 1.96), 1e-12);
    near(hi, 1.0, 1e-12);
    /* p = 1/2, n = 20, z = 1.96: centre 1/2, half-width
     * z / (1 + z^2/n) * sqrt(1/(4n) + z^2/(4n^2))
     * = 1.96 / 1.19208 * sqrt(0.0125 + 0.0024010) = 1.644185 * 0.1220697
     * = 0.2007050. */
    ladder_wilson(0.5, 20.0, 1.96, &lo, &hi);
    near(lo, 0.5 - 0.2007050, 1e-6);
    near(hi, 0.5 + 0.2007050, 1e-6);
}

/* ---- Known answers -------------------------------------------------------------- */

/* Two players, 10 independent games, A wins 7. The maximum-likelihood
 * difference is the logit of 7/10: 400 log10(7/3) = 147.190714 Elo; anchored
 * on the mean 1500, A = 1573.595357 and B = 1426.404643.
 * Sandwich by hand (each game its own cluster, G = n = 10, p = 0.7, theta
 * the difference in log-odds): H = n p (1-p) = 2.1; the scores s - p are
 * 0.3 (7 times) and -0.7 (3 times), so sum (s-p)^2 = 0.63 + 1.47 = 2.1;
 * B = G/(G-1) * 2.1 = 2.333333; Var = B / H^2 = 0.529101 = 1/(9 * 0.21).
 * sd of the difference = sqrt(0.529101) * 400/ln 10 = 0.727393 * 173.717793
 * = 126.361101 Elo; each rating, half of the difference from the mean,
 * has se 63.180550 and a 95% half-width of 1.959964 * 63.180550 = 123.831603.
 * The model's own variance 1/H = 0.476190 gives sd 119.876666 (se 59.938333).
 * LOS(A > B) = Phi(147.190714 / 126.361101) = Phi(1.164843) = 0.877959. */
static void test_two_players(void **state)
{
    (void)state;
    games g = {0};
    add2(&g, 0, 1, 1.0, 7, -1);
    add2(&g, 0, 1, 0.0, 3, -1);
    ladder_fit *f = run(&g, 2, NULL);
    assert_int_equal(f->n_groups, 1);
    assert_int_equal(f->players[0].status, LADDER_FIT_RATED);
    assert_int_equal(f->players[1].status, LADDER_FIT_RATED);
    assert_true(f->parts[0].converged);
    near(f->players[0].elo, 1573.595357, 1e-5);
    near(f->players[1].elo, 1426.404643, 1e-5);
    near(f->players[0].se, 63.180550, 1e-5);
    near(f->players[1].se, 63.180550, 1e-5);
    near(f->players[0].ci_hi - f->players[0].elo, 123.831603, 1e-5);
    near(f->players[0].elo - f->players[0].ci_lo, 123.831603, 1e-5);
    near(ladder_fit_los(f, 0, 1), 0.877959, 1e-6);
    near(f->players[0].los_next, 0.877959, 1e-6);
    assert_true(isnan(f->players[1].los_next));
    assert_int_equal(f->order[0], 0);
    assert_int_equal(f->order[1], 1);
    assert_int_equal(f->parts[0].clusters, 10);
    assert_int_equal(f->parts[0].pairs, 10);
    assert_int_equal(f->players[0].matches, 10);
    assert_int_equal(f->players[0].wins, 7);
    assert_int_equal(f->players[0].losses, 3);
    near(f->players[0].score, 0.7, 1e-12);
    ladder_fit_free(&f);
    assert_null(f);

    ladder_fit_opts o;
    ladder_fit_opts_init(&o);
    o.model_cov = true;
    f = run(&g, 2, &o);
    near(f->players[0].se, 59.938333, 1e-5);
    near(f->players[0].elo, 1573.595357, 1e-5); /* the estimate does not change */
    ladder_fit_free(&f);
}

/* Results that a Bradley-Terry model fits exactly are reproduced exactly:
 * A-B 3:1, B-C 3:1, A-C 9:1 are odds 3, 3 and 9 = 3 * 3, so the maximum
 * likelihood puts A - B = B - C = 400 log10 3 = 190.848502 and A - C =
 * 381.697004 (every observed frequency is then its fitted probability, and
 * the likelihood equations hold). Mean anchor: B = 1500. */
static void test_consistent_three(void **state)
{
    (void)state;
    games g = {0};
    add2(&g, 0, 1, 1.0, 3, -1);
    add2(&g, 0, 1, 0.0, 1, -1);
    add2(&g, 1, 2, 1.0, 3, -1);
    add2(&g, 1, 2, 0.0, 1, -1);
    add2(&g, 0, 2, 1.0, 9, -1);
    add2(&g, 0, 2, 0.0, 1, -1);
    ladder_fit *f = run(&g, 3, NULL);
    near(f->players[0].elo, 1500 + 190.848502, 1e-5);
    near(f->players[1].elo, 1500.0, 1e-5);
    near(f->players[2].elo, 1500 - 190.848502, 1e-5);
    ladder_fit_free(&f);
}

/* Draws count half a point. 2 wins and 2 draws in 4 games is a score of
 * 3/4: the difference is 400 log10 3 = 190.848502 (A = 1595.424251).
 * Sandwich: p = 0.75, H = 4 * 0.75 * 0.25 = 0.75; the scores are 0.25 (the
 * wins) and -0.25 (the draws): sum of squares 0.25, B = 4/3 * 0.25;
 * Var = B / H^2 = 0.592593, sd = 0.769800 * 173.717793 = 133.728019 for the
 * difference. The Bernoulli model's 1/H = 1.333333 (sd 200.592029) would
 * overstate the uncertainty of draws, which the sandwich corrects. */
static void test_draws_half_points(void **state)
{
    (void)state;
    games g = {0};
    add2(&g, 0, 1, 1.0, 2, -1);
    add2(&g, 0, 1, 0.5, 2, -1);
    ladder_fit *f = run(&g, 2, NULL);
    near(f->players[0].elo - f->players[1].elo, 190.848502, 1e-5);
    near(2.0 * f->players[0].se, 133.728019, 1e-5);
    assert_int_equal(f->players[0].draws, 2);
    ladder_fit_free(&f);

    /* One win, two draws, one loss: a score of 1/2, equal ratings. */
    games h = {0};
    add2(&h, 0, 1, 1.0, 1, -1);
    add2(&h, 0, 1, 0.5, 2, -1);
    add2(&h, 0, 1, 0.0, 1, -1);
    f = run(&h, 2, NULL);
    near(f->players[0].elo, 1500.0, 1e-9);
    near(f->players[1].elo, 1500.0, 1e-9);
    near(f->players[0].los_next, 0.5, 1e-9);
    ladder_fit_free(&f);
}

/* Clusters: the same 10 games as 5 duplicate sets of 2 identical results
 * (A wins both in 4 sets, B in 1): p = 0.8, difference 400 log10 4 =
 * 240.823997. Sandwich with G = 5: H = 10 * 0.16 = 1.6; set scores
 * 2 * 0.2 = 0.4 (4 sets) and 2 * (-0.8) = -1.6: sum of squares
 * 4 * 0.16 + 2.56 = 3.2; B = 5/4 * 3.2 = 4; Var = 4 / 2.56 = 1.5625, sd of
 * the difference 1.25 * 173.717793 = 217.147241: a copied result adds no
 * information. Counted as 10 independent games instead, Var = (10/9) / 1.6
 * = 0.694444 and sd = 144.764827. */
static void test_clusters(void **state)
{
    (void)state;
    games g = {0};
    for (int c = 0; c < 4; c++)
        add2(&g, 0, 1, 1.0, 2, c);
    add2(&g, 0, 1, 0.0, 2, 4);
    ladder_fit *f = run(&g, 2, NULL);
    near(f->players[0].elo - f->players[1].elo, 240.823997, 1e-5);
    near(2.0 * f->players[0].se, 217.147241, 1e-5);
    assert_int_equal(f->parts[0].clusters, 5);
    assert_int_equal(f->parts[0].matches, 10);
    ladder_fit_free(&f);

    for (size_t i = 0; i < g.n; i++)
        g.m[i].cluster = (int64_t)i;
    f = run(&g, 2, NULL);
    near(f->players[0].elo - f->players[1].elo, 240.823997, 1e-5);
    near(2.0 * f->players[0].se, 144.764827, 1e-5);
    ladder_fit_free(&f);
}

/* A multiplayer match is its pairs: the cyclic finishing orders ABC, BCA,
 * CAB give A 2 wins in 3 against B and 1 in 3 against C, and the same in
 * turn to B (against C) and C (against A), so by symmetry all three are
 * equal: 1500 each. */
static void test_multiplayer_pairs(void **state)
{
    (void)state;
    games g = {0};
    uint32_t p[3] = {0, 1, 2};
    uint8_t a[3] = {1, 2, 3}, b[3] = {3, 1, 2}, c[3] = {2, 3, 1};
    addn(&g, 3, p, a);
    addn(&g, 3, p, b);
    addn(&g, 3, p, c);
    ladder_fit *f = run(&g, 3, NULL);
    for (int i = 0; i < 3; i++) {
        near(f->players[i].elo, 1500.0, 1e-9);
        assert_int_equal(f->players[i].matches, 3);
        assert_int_equal(f->players[i].wins + f->players[i].losses, 6);
    }
    assert_int_equal(f->parts[0].pairs, 9);
    assert_int_equal(f->parts[0].clusters, 3);
    ladder_fit_free(&f);

    /* A 4-seat match with a shared second place: 1, 2, 2, 4 gives the two
     * second places a draw between them. */
    games h = {0};
    uint32_t q[4] = {0, 1, 2, 3};
    uint8_t pl[4] = {1, 2, 2, 4};
    addn(&h, 4, q, pl);
    uint8_t pl2[4] = {4, 2, 2, 1};
    addn(&h, 4, q, pl2);
    f = run(&h, 4, NULL);
    assert_int_equal(f->players[1].draws, 2);
    assert_int_equal(f->players[2].draws, 2);
    near(f->players[1].elo, f->players[2].elo, 1e-9);
    ladder_fit_free(&f);

    /* The same player in two seats is never paired with itself. */
    games s = {0};
    uint32_t r[3] = {0, 0, 1};
    uint8_t pr[3] = {1, 3, 2};
    addn(&s, 3, r, pr);
    uint8_t pr2[3] = {3, 2, 1};
    addn(&s, 3, r, pr2);
    f = run(&s, 2, NULL);
    assert_int_equal(f->players[0].matches, 2);
    assert_int_equal(f->players[0].wins + f->players[0].draws + f->players[0].losses, 4);
    ladder_fit_free(&f);
}

/* A named anchor: B fixed at 0. The difference is as in test_two_players,
 * so A = 147.190714 with the whole difference's se, 126.361101, and B's
 * interval is [0, 0]. */
/* A singular clustered covariance: player 0 draws with one opponent and
 * loses to the other in every deal, the winner alternating. Its results
 * are the same in every deal, so the sandwich gives it a variance of
 * exactly zero (a zero-width interval); the fit falls back to the model's
 * covariance and says so. A well-spread field keeps the sandwich. */
static void test_singular_sandwich(void **state)
{
    (void)state;
    games g = {0};
    uint32_t p[3] = {0, 1, 2};
    uint8_t w1[3] = {2, 1, 2}, w2[3] = {2, 2, 1};
    for (int i = 0; i < 3; i++) {
        addn(&g, 3, p, w1);
        addn(&g, 3, p, w2);
    }
    ladder_fit *f = run(&g, 3, NULL);
    assert_true(f->model_fallback);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(f->players[i].status, LADDER_FIT_RATED);
        assert_true(f->players[i].se > 1.0);
        assert_true(f->players[i].ci_lo < f->players[i].elo);
        assert_true(f->players[i].elo < f->players[i].ci_hi);
    }
    ladder_fit_free(&f);

    games h = {0};
    uint8_t a[3] = {1, 2, 3}, b[3] = {3, 1, 2}, c[3] = {2, 3, 1}, d[3] = {1, 3, 2};
    for (int i = 0; i < 3; i++) {
        addn(&h, 3, p, a);
        addn(&h, 3, p, b);
        addn(&h, 3, p, c);
        addn(&h, 3, p, d);
    }
    f = run(&h, 3, NULL);
    assert_false(f->model_fallback);
    ladder_fit_free(&f);
}

static void test_anchor_player(void **state)
{
    (void)state;
    games g = {0};
    add2(&g, 0, 1, 1.0, 7, -1);
    add2(&g, 0, 1, 0.0, 3, -1);
    ladder_fit_opts o;
    ladder_fit_opts_init(&o);
    o.anchor_player = 1;
    o.anchor_elo = 0.0;
    ladder_fit *f = run(&g, 2, &o);
    assert_true(f->anchored);
    near(f->players[1].elo, 0.0, 1e-9);
    near(f->players[1].se, 0.0, 1e-9);
    near(f->players[0].elo, 147.190714, 1e-5);
    near(f->players[0].se, 126.361101, 1e-5);
    near(ladder_fit_los(f, 0, 1), 0.877959, 1e-6); /* LOS does not depend on the anchor */
    ladder_fit_free(&f);

    /* An anchor fixes its own group only: with a second group {2, 3}
     * (3:1, 400 log10 3 = 190.848502 apart) and player 3 anchored at 2000,
     * group {0, 1} keeps its mean 1500. */
    add2(&g, 2, 3, 1.0, 3, -1);
    add2(&g, 2, 3, 0.0, 1, -1);
    o.anchor_player = 3;
    o.anchor_elo = 2000.0;
    f = run(&g, 4, &o);
    assert_int_equal(f->n_groups, 2);
    assert_true(f->anchored);
    near(f->players[3].elo, 2000.0, 1e-9);
    near(f->players[2].elo, 2190.848502, 1e-5);
    near(f->players[0].elo, 1573.595357, 1e-5);
    near(f->players[1].elo, 1426.404643, 1e-5);
    near(f->players[0].se, 63.180550, 1e-5);
    ladder_fit_free(&f);
}

/* Perfect and zero scores, and a player with no finite comparison:
 * B and C are rated (B-C 3:2); A beat B 5 times (perfect, above); D lost to
 * C 4 times (zero, below); E beat D only, so it is above D but not
 * comparable with B and C (unrated). */
static void test_unbounded(void **state)
{
    (void)state;
    games g = {0};
    enum { A, B, C, D, E };
    add2(&g, A, B, 1.0, 5, -1);
    add2(&g, B, C, 1.0, 3, -1);
    add2(&g, B, C, 0.0, 2, -1);
    add2(&g, C, D, 1.0, 4, -1);
    add2(&g, E, D, 1.0, 2, -1);
    ladder_fit *f = run(&g, 5, NULL);
    assert_int_equal(f->n_groups, 1);
    assert_int_equal(f->players[A].status, LADDER_FIT_PERFECT);
    assert_int_equal(f->players[B].status, LADDER_FIT_RATED);
    assert_int_equal(f->players[C].status, LADDER_FIT_RATED);
    assert_int_equal(f->players[D].status, LADDER_FIT_ZERO);
    assert_int_equal(f->players[E].status, LADDER_FIT_UNRATED);
    assert_true(isnan(f->players[A].elo));
    assert_true(isnan(f->players[A].ci_lo));
    assert_true(isnan(f->players[D].elo));
    /* The rated pair is fitted on its own games only: 3:2 is 400 log10 1.5
     * = 70.437 Elo apart, around the mean 1500. */
    near(f->players[B].elo - f->players[C].elo, 400.0 * log10(1.5), 1e-6);
    near(f->players[B].elo + f->players[C].elo, 3000.0, 1e-6);
    assert_int_equal(f->groups[0].rated, 2);
    /* Order: perfect first, then rated by Elo, unrated, then zero. */
    assert_int_equal(f->order[0], A);
    assert_int_equal(f->order[1], B);
    assert_int_equal(f->order[2], C);
    assert_int_equal(f->order[3], E);
    assert_int_equal(f->order[4], D);
    assert_true(isnan(f->players[A].los_next));
    assert_true(isnan(f->players[C].los_next));
    assert_string_equal(ladder_fit_status_name(LADDER_FIT_PERFECT), "perfect");
    assert_string_equal(ladder_fit_status_name(LADDER_FIT_ZERO), "zero");
    assert_string_equal(ladder_fit_status_name(LADDER_FIT_UNRATED), "unrated");
    assert_string_equal(ladder_fit_status_name(LADDER_FIT_RATED), "rated");
    assert_null(ladder_fit_status_name(LADDER_FIT_STATUS_COUNT));
    ladder_fit_free(&f);

    /* Two players, one won everything: neither has a finite rating. */
    games h = {0};
    add2(&h, 0, 1, 1.0, 5, -1);
    f = run(&h, 2, NULL);
    assert_int_equal(f->players[0].status, LADDER_FIT_PERFECT);
    assert_int_equal(f->players[1].status, LADDER_FIT_ZERO);
    assert_int_equal(f->groups[0].rated, 0);
    ladder_fit_free(&f);
}

/* Groups that never met are rated apart, each around its own mean; the
 * larger group comes first. A player with no game at all is unrated. */
static void test_groups(void **state)
{
    (void)state;
    games g = {0};
    add2(&g, 0, 1, 1.0, 3, -1); /* group {0, 1} */
    add2(&g, 0, 1, 0.0, 1, -1);
    add2(&g, 2, 3, 1.0, 2, -1); /* group {2, 3, 4} */
    add2(&g, 2, 3, 0.0, 2, -1);
    add2(&g, 3, 4, 1.0, 2, -1);
    add2(&g, 3, 4, 0.0, 2, -1);
    ladder_fit *f = run(&g, 6, NULL);
    assert_int_equal(f->n_groups, 3);
    assert_int_equal(f->players[2].group, 0);
    assert_int_equal(f->players[0].group, 1);
    assert_int_equal(f->players[5].group, 2);
    assert_int_equal(f->players[5].status, LADDER_FIT_UNRATED);
    assert_int_equal(f->players[5].matches, 0);
    near(f->players[2].elo, 1500.0, 1e-6);
    near(f->players[0].elo + f->players[1].elo, 3000.0, 1e-6);
    near(f->players[0].elo - f->players[1].elo, 190.848502, 1e-5);
    assert_true(isnan(ladder_fit_los(f, 0, 2))); /* not comparable */
    /* The covariance is zero across groups. */
    assert_true(f->cov[0 * 6 + 2] == 0.0);
    assert_int_equal(f->groups[0].players, 3);
    assert_int_equal(f->groups[1].players, 2);
    ladder_fit_free(&f);
}

/* Every strongly connected part of two players or more is rated on its
 * own. Part 1 {A, B, C} (a cycle of 2:1 results). D and E lost every game
 * to part 1 (below it) but split 3:1 between themselves: 400 log10 3 =
 * 190.848502 apart around their own mean 1500 (1595.424251, 1404.575749).
 * G and H beat F only and split 1:1: no comparison with part 1 either way
 * (apart), 1500 each. F lost to C, G and H (zero); P beat A (perfect).
 * Display order: P, part 1, G-H (apart), D-E (below), then F; the parts
 * after part 1 are numbered in that order. */
static void test_parts(void **state)
{
    (void)state;
    enum { A, B, C, D, E, F, G, H, P };
    games g = {0};
    add2(&g, A, B, 1.0, 2, -1);
    add2(&g, A, B, 0.0, 1, -1);
    add2(&g, B, C, 1.0, 2, -1);
    add2(&g, B, C, 0.0, 1, -1);
    add2(&g, C, A, 1.0, 2, -1);
    add2(&g, C, A, 0.0, 1, -1);
    add2(&g, A, D, 1.0, 2, -1);
    add2(&g, B, E, 1.0, 2, -1);
    add2(&g, D, E, 1.0, 3, -1);
    add2(&g, D, E, 0.0, 1, -1);
    add2(&g, C, F, 1.0, 2, -1);
    add2(&g, G, F, 1.0, 1, -1);
    add2(&g, H, F, 1.0, 1, -1);
    add2(&g, G, H, 1.0, 1, -1);
    add2(&g, G, H, 0.0, 1, -1);
    add2(&g, P, A, 1.0, 2, -1);
    ladder_fit *f = run(&g, 9, NULL);
    assert_int_equal(f->n_groups, 1);
    assert_int_equal(f->n_parts, 3);
    assert_int_equal(f->groups[0].parts, 3);
    assert_int_equal(f->groups[0].rated, 7);
    for (int p = A; p <= H; p++)
        if (p != F)
            assert_int_equal(f->players[p].status, LADDER_FIT_RATED);
    assert_int_equal(f->players[F].status, LADDER_FIT_ZERO);
    assert_int_equal(f->players[P].status, LADDER_FIT_PERFECT);
    assert_int_equal(f->players[F].part, LADDER_FIT_NO_PART);
    /* Parts by number: 1 the largest, then display order. */
    assert_int_equal(f->players[A].part, 0);
    assert_int_equal(f->players[G].part, 1);
    assert_int_equal(f->players[D].part, 2);
    assert_int_equal(f->parts[0].number, 1);
    assert_int_equal(f->parts[0].relation, LADDER_FIT_MAIN);
    assert_int_equal(f->parts[1].number, 2);
    assert_int_equal(f->parts[1].relation, LADDER_FIT_APART);
    assert_int_equal(f->parts[2].number, 3);
    assert_int_equal(f->parts[2].relation, LADDER_FIT_BELOW);
    assert_int_equal(f->parts[2].rated, 2);
    assert_int_equal(f->parts[2].clusters, 4);
    assert_int_equal(f->parts[0].clusters, 9);
    assert_int_equal(f->clusters, 15);
    near(f->players[A].elo + f->players[B].elo + f->players[C].elo, 4500.0, 1e-6);
    near(f->players[A].elo, 1500.0, 1e-6); /* the cycle is symmetric */
    near(f->players[D].elo, 1595.424251, 1e-5);
    near(f->players[E].elo, 1404.575749, 1e-5);
    near(f->players[G].elo, 1500.0, 1e-9);
    near(f->players[H].elo, 1500.0, 1e-9);
    assert_true(f->players[D].se > 0.0);
    assert_true(isnan(ladder_fit_los(f, A, D))); /* not comparable */
    assert_true(f->cov[A * 9 + D] == 0.0);
    uint32_t want[9] = {P, A, B, C, G, H, D, E, F};
    for (int i = 0; i < 9; i++)
        if (f->order[i] != want[i] && !(i >= 1 && i <= 3 && f->order[i] <= C))
            fail_msg("order[%d] = %u, want %u", i, f->order[i], want[i]);
    assert_true(isfinite(f->players[D].los_next));
    assert_true(isnan(f->players[E].los_next)); /* last of its part */
    assert_true(isnan(f->players[f->order[3]].los_next)); /* last of part 1 */
    assert_string_equal(ladder_fit_relation_name(LADDER_FIT_BELOW), "below");
    assert_null(ladder_fit_relation_name(LADDER_FIT_RELATION_COUNT));
    ladder_fit_free(&f);

    /* An anchor in part 3 fixes part 3 only. */
    ladder_fit_opts o;
    ladder_fit_opts_init(&o);
    o.anchor_player = D;
    o.anchor_elo = 1000.0;
    f = run(&g, 9, &o);
    assert_true(f->anchored);
    assert_true(f->parts[2].anchored);
    assert_false(f->parts[0].anchored);
    near(f->players[D].elo, 1000.0, 1e-9);
    near(f->players[E].elo, 1000.0 - 190.848502, 1e-5);
    near(f->players[A].elo + f->players[B].elo + f->players[C].elo, 4500.0, 1e-6);
    near(f->players[G].elo, 1500.0, 1e-9);
    ladder_fit_free(&f);
}

/* The fit is a function of the set of results, not of their order. */
static void test_order_independent(void **state)
{
    (void)state;
    games g = {0};
    uint32_t seed = 12345;
    for (int i = 0; i < 300; i++) {
        seed = seed * 1103515245u + 12345u;
        uint32_t a = (seed >> 8) % 5, b = (a + 1 + (seed >> 16) % 4) % 5;
        double s = (double)((seed >> 24) % 3) / 2.0;
        add2(&g, a, b, s, 1, i / 2);
    }
    ladder_fit *f = run(&g, 5, NULL);
    games h = g;
    for (size_t i = 0; i < h.n; i++) /* reverse */
        h.m[i] = g.m[g.n - 1 - i];
    ladder_fit *f2 = run(&h, 5, NULL);
    for (int p = 0; p < 5; p++) {
        near(f->players[p].elo, f2->players[p].elo, 1e-9);
        near(f->players[p].se, f2->players[p].se, 1e-9);
    }
    /* The likelihood equations hold: every expected score equals the
     * actual one (Zermelo's condition), each match weighted by 1 / the
     * plays of its deal (cluster) with its seating. */
    for (int p = 0; p < 5; p++) {
        double actual = 0, expected = 0;
        for (size_t i = 0; i < g.n; i++) {
            const ladder_fit_match *m = &g.m[i];
            int plays = 0;
            for (size_t j = 0; j < g.n; j++)
                plays += g.m[j].cluster == m->cluster && g.m[j].player[0] == m->player[0] &&
                         g.m[j].player[1] == m->player[1];
            for (int s = 0; s < 2; s++) {
                if (m->player[s] != (uint32_t)p)
                    continue;
                uint32_t o = m->player[1 - s];
                actual += (m->place[s] < m->place[1 - s]    ? 1.0
                           : m->place[s] == m->place[1 - s] ? 0.5
                                                            : 0) /
                          plays;
                expected += ladder_score_of_elo(f->players[p].elo - f->players[o].elo) / plays;
            }
        }
        near(expected, actual, 1e-7);
    }
    ladder_fit_free(&f);
    ladder_fit_free(&f2);
}

/* Replays: matches of one deal (cluster) with the same player in every
 * seat count as one match, their mean.
 *
 * Known answer: A and B play deal 0 twice in the same seats, A winning
 * once and losing once; deal 1 A wins, deal 2 B wins (in the other seats).
 * Counted once, deal 0 is half a game each way: 3 games, A scores 1.5,
 * so A = B = 1500. Sandwich at p = 1/2: H = 3 * 1/4 = 0.75; the deals'
 * scores are 1/2 (1 - 1/2) + 1/2 (0 - 1/2) = 0, then 0.5 and -0.5: sum of
 * squares 0.5, B = 3/2 * 0.5 = 0.75; Var = 0.75 / 0.5625 = 4/3, sd of
 * the difference 1.154701 * 173.717793 = 200.592029, se 100.296015.
 * (Counted as two games of one cluster: H = 1, Var = 0.75, se 75.222.) */
static void test_replays(void **state)
{
    (void)state;
    games g = {0};
    add2(&g, 0, 1, 1.0, 1, 0);
    add2(&g, 0, 1, 0.0, 1, 0);
    add2(&g, 0, 1, 1.0, 1, 1);
    add2(&g, 1, 0, 1.0, 1, 2);
    ladder_fit *f = run(&g, 2, NULL);
    assert_int_equal(f->replays, 1);
    assert_int_equal(f->replays_replayed, 0); /* a repeat within its tournament */
    near(f->players[0].elo, 1500.0, 1e-9);
    near(f->players[0].se, 100.296015, 1e-5);
    near(f->players[0].games, 3.0, 1e-12);
    near(f->players[0].wins, 1.5, 1e-12);
    near(f->players[0].losses, 1.5, 1e-12);
    assert_int_equal(f->players[0].matches, 4);
    assert_int_equal(f->parts[0].clusters, 3);
    ladder_fit_free(&f);

    /* A field of 4 on 60 deals; then the first 40 deals again, identical
     * (a second tournament with the same seed and more rounds replays
     * them): nothing changes, no interval shrinks. Played in other seats,
     * the same deal is new information (the pairs are in one cluster). */
    games a = {0};
    uint32_t seed = 777;
    for (int d = 0; d < 60; d++) {
        seed = seed * 1103515245u + 12345u;
        uint32_t x = (seed >> 8) % 4, y = (x + 1 + (seed >> 16) % 3) % 4;
        add2(&a, x, y, (double)((seed >> 24) % 3) / 2.0, 1, 1000 + d);
    }
    f = run(&a, 4, NULL);
    games b = a;
    for (size_t i = 0; i < 40; i++) {
        b.m[b.n] = a.m[i];
        b.m[b.n++].replayed = true; /* dealt by the first tournament */
    }
    ladder_fit *f2 = run(&b, 4, NULL);
    assert_int_equal(f2->replays, 40);
    assert_int_equal(f2->replays_replayed, 40);
    assert_int_equal(f->replays, 0);
    for (int p = 0; p < 4; p++) {
        assert_int_equal(f2->players[p].status, LADDER_FIT_RATED);
        near(f2->players[p].elo, f->players[p].elo, 1e-9);
        near(f2->players[p].se, f->players[p].se, 1e-9);
        near(f2->players[p].games, f->players[p].games, 1e-12);
    }
    ladder_fit_free(&f2);
    games c = a;
    for (size_t i = 0; i < 40; i++) {
        ladder_fit_match *m = &c.m[c.n++];
        *m = a.m[i];
        m->player[0] = a.m[i].player[1];
        m->player[1] = a.m[i].player[0];
        m->place[0] = a.m[i].place[1];
        m->place[1] = a.m[i].place[0];
        m->replayed = true;
    }
    f2 = run(&c, 4, NULL);
    assert_int_equal(f2->replays, 0);
    assert_int_equal(f2->replays_replayed, 0); /* 40 in other seats */
    for (int p = 0; p < 4; p++)
        near(f2->players[p].games, f->players[p].games + (double)(f2->players[p].matches -
                                                                   f->players[p].matches),
             1e-12);
    ladder_fit_free(&f2);
    /* Deal 1000 played in a third seating by two later tournaments (both
     * marked: one is that seating's first play), and deal 1001's match
     * twice more, once by its own tournament and once by a later one:
     * 3 repeats, 2 of them among the marked (and 1 marked in other seats,
     * counted in full). */
    games d = a;
    ladder_fit_match x = a.m[0];
    x.player[0] = (a.m[0].player[0] + 2) % 4;
    x.player[1] = (a.m[0].player[1] + 2) % 4;
    x.replayed = true;
    d.m[d.n++] = x;
    d.m[d.n++] = x;
    d.m[d.n++] = a.m[1];
    d.m[d.n] = a.m[1];
    d.m[d.n++].replayed = true;
    f2 = run(&d, 4, NULL);
    assert_int_equal(f2->replays, 3);
    assert_int_equal(f2->replays_replayed, 2);
    ladder_fit_free(&f2);
    ladder_fit_free(&f);
}

static void test_bad_input(void **state)
{
    (void)state;
    games g = {0};
    add2(&g, 0, 1, 1.0, 1, -1);
    ladder_fit *f = NULL;
    assert_int_equal(ladder_fit_run(g.m, g.n, 2, NULL, NULL), JA_EINVAL);
    assert_int_equal(ladder_fit_run(NULL, 1, 2, NULL, &f), JA_EINVAL);
    assert_int_equal(ladder_fit_run(g.m, g.n, 0, NULL, &f), JA_EINVAL);
    assert_int_equal(ladder_fit_run(g.m, g.n, 1, NULL, &f), JA_EINVAL); /* player 1 >= 1 */
    assert_int_equal(ladder_fit_run(g.m, g.n, LADDER_FIT_MAX_PLAYERS + 1, NULL, &f), JA_ERANGE);
    g.m[0].place[1] = 3;
    assert_int_equal(ladder_fit_run(g.m, g.n, 2, NULL, &f), JA_EINVAL);
    g.m[0].place[1] = 2;
    g.m[0].n_seats = 1;
    assert_int_equal(ladder_fit_run(g.m, g.n, 2, NULL, &f), JA_EINVAL);
    assert_null(f);
    /* No matches at all: every player unrated, no error. */
    assert_int_equal(ladder_fit_run(NULL, 0, 3, NULL, &f), JA_OK);
    assert_int_equal(f->players[0].status, LADDER_FIT_UNRATED);
    ladder_fit_free(&f);
    ladder_fit_free(&f);
    ladder_fit_free(NULL);
}

/* The luck-adjusted pair results (ladder_fit_pair_result): a term moves
 * each pair by (K - 1)(T_a - T_b) / K, so with two seats a match counts as
 * its adjusted share; all-zero terms change nothing; the parts stay those
 * of the places; Plackett-Luce and a term not finite are refused. */
static void test_adjusted(void **state)
{
    (void)state;
    games g = {0};
    add2(&g, 0, 1, 1.0, 7, -1);
    add2(&g, 0, 1, 0.0, 3, -1);
    ladder_fit *raw = run(&g, 2, NULL);
    static double terms[10][2];
    for (size_t i = 0; i < g.n; i++)
        g.m[i].term = terms[i]; /* 0 */
    ladder_fit *same = run(&g, 2, NULL);
    near(same->players[0].elo, raw->players[0].elo, 1e-9);
    near(same->players[0].se, raw->players[0].se, 1e-9);
    near(same->players[0].score, 0.7, 1e-12);
    ladder_fit_free(&same);
    /* Every win of player 0 was luck worth 0.2 of a share: its adjusted
     * shares are 0.8 (7 times) and 0 (3 times), mean 0.56, and with two
     * players the fit's expected score equals it. */
    for (size_t i = 0; i < 7; i++) {
        terms[i][0] = 0.2;
        terms[i][1] = -0.2;
        near(ladder_fit_pair_result(&g.m[i], 0, 1), 0.8, 1e-12);
        near(ladder_fit_pair_result(&g.m[i], 1, 0), 0.2, 1e-12);
    }
    ladder_fit *adj = run(&g, 2, NULL);
    near(adj->players[0].score, 0.56, 1e-12);
    near(ladder_score_of_elo(adj->players[0].elo - adj->players[1].elo), 0.56, 1e-9);
    assert_int_equal(adj->players[0].wins, 7); /* the counts are the places' */
    assert_true(adj->players[0].se < raw->players[0].se); /* less spread */
    ladder_fit_free(&adj);
    ladder_fit_free(&raw);
    /* Three seats: a seat's results sum to (K - 1) times its adjusted share. */
    const double t3[3] = {0.3, -0.1, -0.2};
    ladder_fit_match m = {.n_seats = 3, .player = {0, 1, 2}, .place = {1, 2, 3}, .term = t3};
    double sum0 = ladder_fit_pair_result(&m, 0, 1) + ladder_fit_pair_result(&m, 0, 2);
    near(sum0, 2 * (1.0 - 0.3), 1e-12);
    double sum2 = ladder_fit_pair_result(&m, 2, 0) + ladder_fit_pair_result(&m, 2, 1);
    near(sum2, 2 * (0.0 + 0.2), 1e-12);
    ladder_fit_opts o;
    ladder_fit_opts_init(&o);
    o.model = LADDER_FIT_PLACKETT_LUCE;
    ladder_fit *f = NULL;
    assert_int_equal(ladder_fit_run(g.m, g.n, 2, &o, &f), JA_EINVAL);
    terms[0][0] = NAN;
    assert_int_equal(ladder_fit_run(g.m, g.n, 2, NULL, &f), JA_EINVAL);
    assert_null(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_helpers),   cmocka_unit_test(test_two_players),
        cmocka_unit_test(test_consistent_three), cmocka_unit_test(test_draws_half_points),
        cmocka_unit_test(test_clusters),         cmocka_unit_test(test_multiplayer_pairs),
        cmocka_unit_test(test_anchor_player),    cmocka_unit_test(test_unbounded),
        cmocka_unit_test(test_groups),           cmocka_unit_test(test_order_independent),
        cmocka_unit_test(test_singular_sandwich), cmocka_unit_test(test_replays),
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_bad_input), cmocka_unit_test(test_adjusted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
