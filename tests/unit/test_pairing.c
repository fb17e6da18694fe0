/* Unit tests of swiss pairing, the knockout bracket (ladders/pairing.h) and
 * curated deal sets (ladders/deals.h): no rematch while one can be
 * avoided, byes (the fewest first, never two while another has none),
 * groups of equal points, determinism, the bracket's seeding, byes and
 * tie-breaks for 3, 5 and 8 bots, the swiss standings' Buchholz worked by
 * hand, and the deal set's parser, hash and use by a plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "deals.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "pairing.h"

static ladder_plan_params params(uint32_t n, uint32_t k, uint32_t rounds, ladder_format f,
                                 uint64_t seed)
{
    ladder_plan_params p;
    memset(&p, 0, sizeof p);
    p.n_participants = n;
    p.n_seats = k;
    p.rounds = rounds;
    p.format = f;
    p.duplicate = true;
    p.seed = seed;
    p.seating = LADDER_SEATING_BALANCED;
    return p;
}

/* A tournament being simulated: every match won by the stronger bots in
 * strength order (score = strength). */
typedef struct sim {
    ladder_plan_params p;
    const uint32_t *strength;
    ladder_played *h;
    uint32_t n;
} sim;

/* Plans the next round and plays it; returns its matches (caller frees). */
static ladder_plan_match *sim_round(sim *s, uint32_t round, uint32_t *nm)
{
    ladder_plan_match *m = NULL;
    char err[200];
    assert_int_equal(ladder_round_plan(&s->p, s->h, s->n, round, &m, nm, err, sizeof err),
                     JA_OK);
    s->h = realloc(s->h, (s->n + *nm) * sizeof *s->h);
    for (uint32_t i = 0; i < *nm; i++) {
        ladder_played *x = &s->h[s->n + i];
        memset(x, 0, sizeof *x);
        assert_int_equal(m[i].number, s->n + i);
        x->number = m[i].number;
        x->round = m[i].round;
        x->combo = m[i].combo;
        x->n_seats = m[i].n_seats;
        x->done = true;
        for (uint32_t a = 0; a < x->n_seats; a++) {
            x->slot[a] = m[i].slot[a];
            x->score[a] = (int64_t)s->strength[m[i].slot[a]] * JA_SCORE_UNIT;
            x->place[a] = 1;
            for (uint32_t b = 0; b < x->n_seats; b++)
                x->place[a] += s->strength[m[i].slot[b]] > s->strength[m[i].slot[a]];
        }
    }
    s->n += *nm;
    return m;
}

/* Counts, over the groups of m (blocks of `per` matches), each pair's
 * meetings into met (n x n) and each participant's groups into seen. */
static void count_groups(const ladder_plan_match *m, uint32_t nm, uint32_t per, uint32_t n,
                         uint32_t *met, uint32_t *seen)
{
    for (uint32_t i = 0; i < nm; i += per) {
        for (uint32_t a = 0; a < m[i].n_seats; a++) {
            seen[m[i].slot[a]]++;
            for (uint32_t b = 0; b < m[i].n_seats; b++)
                if (a != b)
                    met[m[i].slot[a] * n + m[i].slot[b]]++;
        }
        /* The block: one deal, every match the same members. */
        for (uint32_t j = 1; j < per; j++) {
            assert_true(m[i + j].seed == m[i].seed);
            assert_int_equal(m[i + j].combo, m[i].combo);
        }
    }
}

/* Swiss with n bots of k seats for r rounds: no pair meets twice, every
 * round seats n - n mod k bots once each, and the byes go round. */
static void swiss_no_rematch(uint32_t n, uint32_t k, uint32_t r, uint64_t seed)
{
    uint32_t strength[64];
    for (uint32_t i = 0; i < n; i++)
        strength[i] = (uint32_t)(ja_seed_derive(seed, 1, i) % 1000u) * 64 + i;
    sim s = {params(n, k, r, LADDER_FORMAT_SWISS, seed), strength, NULL, 0};
    uint32_t per = ladder_seating_orders(LADDER_SEATING_BALANCED, k) * k;
    uint32_t *met = calloc(n * n, sizeof *met), byes[64] = {0};
    for (uint32_t round = 0; round < r; round++) {
        uint32_t nm, seen[64] = {0};
        ladder_plan_match *m = sim_round(&s, round, &nm);
        assert_int_equal(nm, n / k * per);
        count_groups(m, nm, per, n, met, seen);
        for (uint32_t i = 0; i < n; i++) {
            assert_true(seen[i] <= 1);
            byes[i] += seen[i] == 0;
        }
        free(m);
    }
    for (uint32_t i = 0; i < n * n; i++)
        if (met[i] > 1)
            fail_msg("%u bots of %u seats, %u rounds: slots %u and %u met %u times", n, k, r,
                     i / n, i % n, met[i]);
    /* Byes: nobody has two while another has none. */
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        lo = byes[i] < lo ? byes[i] : lo;
        hi = byes[i] > hi ? byes[i] : hi;
    }
    assert_true(hi - lo <= 1);
    uint32_t total;
    assert_int_equal(ladder_plan_count(&s.p, &total, NULL, 0), JA_OK);
    assert_int_equal(s.n, total);
    free(met);
    free(s.h);
}

static void test_swiss_no_rematch(void **state)
{
    (void)state;
    /* Dirac: while fewer than n/2 rounds are played, the pairs not met yet
     * hold a perfect matching, so no rematch is ever needed. */
    swiss_no_rematch(8, 2, 4, 1);
    swiss_no_rematch(10, 2, 5, 2);
    swiss_no_rematch(9, 2, 4, 3);   /* a bye a round */
    swiss_no_rematch(16, 2, 8, 4);
    swiss_no_rematch(9, 3, 3, 5);   /* groups of three: an affine plane's classes */
    swiss_no_rematch(10, 3, 2, 6);  /* a bye a round */
}

/* Byes: 7 bots, 7 rounds: each one bye exactly. */
static void test_swiss_byes(void **state)
{
    (void)state;
    uint32_t strength[7] = {5, 3, 6, 0, 2, 4, 1};
    sim s = {params(7, 2, 7, LADDER_FORMAT_SWISS, 11), strength, NULL, 0};
    uint32_t byes[7] = {0};
    for (uint32_t round = 0; round < 7; round++) {
        uint32_t nm, seen[7] = {0}, met[49] = {0};
        ladder_plan_match *m = sim_round(&s, round, &nm);
        count_groups(m, nm, 2, 7, met, seen);
        for (uint32_t i = 0; i < 7; i++)
            byes[i] += seen[i] == 0;
        free(m);
    }
    for (uint32_t i = 0; i < 7; i++)
        assert_int_equal(byes[i], 1);
    /* The swiss standings count the byes as wins. */
    ladder_swiss_row rows[7];
    ladder_swiss_standings(&s.p, s.h, s.n, rows);
    for (uint32_t i = 0; i < 7; i++)
        assert_int_equal(rows[i].byes, 1);
    free(s.h);
}

/* Round 2 pairs winners with winners and losers with losers. */
static void test_swiss_score_groups(void **state)
{
    (void)state;
    uint32_t strength[8] = {7, 1, 4, 6, 0, 3, 5, 2};
    sim s = {params(8, 2, 3, LADDER_FORMAT_SWISS, 99), strength, NULL, 0};
    uint32_t nm;
    free(sim_round(&s, 0, &nm));
    bool won[8] = {false};
    for (uint32_t i = 0; i < s.n; i++)
        for (uint32_t a = 0; a < 2; a++)
            won[s.h[i].slot[a]] |= s.h[i].place[a] == 1;
    ladder_plan_match *m = sim_round(&s, 1, &nm);
    for (uint32_t i = 0; i < nm; i++)
        assert_int_equal(won[m[i].slot[0]], won[m[i].slot[1]]);
    free(m);
    free(s.h);
}

/* The same history gives the same round, whatever else; another seed
 * another first round; a round before the last is done is refused. */
static void test_swiss_determinism(void **state)
{
    (void)state;
    uint32_t strength[12];
    for (uint32_t i = 0; i < 12; i++)
        strength[i] = (i * 7) % 12;
    sim a = {params(12, 2, 4, LADDER_FORMAT_SWISS, 5), strength, NULL, 0};
    sim b = a;
    for (uint32_t round = 0; round < 4; round++) {
        uint32_t na, nb;
        ladder_plan_match *ma = sim_round(&a, round, &na), *mb = sim_round(&b, round, &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(ma, mb, na * sizeof *ma);
        free(ma);
        free(mb);
    }
    ladder_plan_params q = params(12, 2, 4, LADDER_FORMAT_SWISS, 6);
    ladder_plan_match *m0 = NULL, *m1 = NULL;
    uint32_t n0, n1;
    char err[200];
    assert_int_equal(ladder_round_plan(&a.p, NULL, 0, 0, &m0, &n0, err, sizeof err), JA_OK);
    assert_int_equal(ladder_round_plan(&q, NULL, 0, 0, &m1, &n1, err, sizeof err), JA_OK);
    bool same = true;
    for (uint32_t i = 0; i < n0; i++)
        same &= m0[i].slot[0] == m1[i].slot[0] && m0[i].slot[1] == m1[i].slot[1];
    assert_false(same);
    free(m0);
    free(m1);
    /* Round 2 with round 1 not done: refused. */
    a.h[0].done = false;
    assert_int_equal(ladder_round_plan(&a.p, a.h, 12, 1, &m0, &n0, err, sizeof err),
                     JA_EINVAL);
    assert_null(m0);
    /* No fifth round. */
    assert_int_equal(ladder_round_plan(&b.p, b.h, b.n, 4, &m0, &n0, err, sizeof err),
                     JA_EINVAL);
    free(a.h);
    free(b.h);
    /* More rounds than opponents: the fewest rematches, still a round. */
    sim c = {params(4, 2, 6, LADDER_FORMAT_SWISS, 8), strength, NULL, 0};
    for (uint32_t round = 0; round < 6; round++) {
        uint32_t nm;
        free(sim_round(&c, round, &nm));
        assert_int_equal(nm, 4);
    }
    free(c.h);
}

/* Four bots, two rounds, the stronger always winning (3 > 2 > 1 > 0 by
 * slot): Buchholz by hand. */
static void test_swiss_buchholz(void **state)
{
    (void)state;
    uint32_t strength[4] = {0, 1, 2, 3};
    sim s = {params(4, 2, 2, LADDER_FORMAT_SWISS, 21), strength, NULL, 0};
    uint32_t nm;
    free(sim_round(&s, 0, &nm));
    free(sim_round(&s, 1, &nm));
    ladder_swiss_row rows[4];
    ladder_swiss_standings(&s.p, s.h, s.n, rows);
    /* Slot 3 won both (2 points), slot 0 lost both; the two others one each. */
    assert_int_equal(rows[0].slot, 3);
    assert_int_equal(rows[0].points, 4);
    assert_int_equal(rows[3].slot, 0);
    assert_int_equal(rows[3].points, 0);
    /* Each one's Buchholz is the sum of its two opponents' points. */
    uint32_t pts[4];
    for (int i = 0; i < 4; i++)
        pts[rows[i].slot] = rows[i].points;
    uint32_t want[4] = {0};
    for (uint32_t i = 0; i < s.n; i += 2)
        for (int a = 0; a < 2; a++)
            want[s.h[i].slot[a]] += pts[s.h[i].slot[1 - a]];
    for (int i = 0; i < 4; i++)
        assert_int_equal(rows[i].buchholz, want[rows[i].slot]);
    /* Sum of points: one win a group, two groups a round. */
    assert_int_equal(rows[0].points + rows[1].points + rows[2].points + rows[3].points, 8);
    free(s.h);
}

/* A knockout of n bots, `rounds` deals a tie, played out: the ties, their
 * byes and the winner. */
static ladder_ko_tie *knockout(uint32_t n, const uint32_t *strength, uint32_t deals,
                               uint32_t *nt, uint32_t *matches)
{
    sim s = {params(n, 2, deals, LADDER_FORMAT_KNOCKOUT, 3), strength, NULL, 0};
    uint32_t rounds = ladder_rounds_total(&s.p);
    for (uint32_t r = 0; r < rounds; r++) {
        uint32_t nm;
        free(sim_round(&s, r, &nm));
        assert_true(nm > 0 && nm % (2 * deals) == 0);
    }
    uint32_t total;
    assert_int_equal(ladder_plan_count(&s.p, &total, NULL, 0), JA_OK);
    assert_int_equal(s.n, total);
    assert_int_equal(total, (n - 1) * 2 * deals);
    ladder_ko_tie *t = NULL;
    assert_int_equal(ladder_knockout_bracket(&s.p, s.h, s.n, &t, nt), JA_OK);
    *matches = s.n;
    free(s.h);
    return t;
}

static void test_knockout_brackets(void **state)
{
    (void)state;
    uint32_t nt, nm;
    /* 3 bots: bracket of 4, seed 1 a bye, 2 v 3, then the final. */
    uint32_t s3[3] = {1, 5, 3};
    ladder_ko_tie *t = knockout(3, s3, 1, &nt, &nm);
    assert_int_equal(nt, 3);
    assert_true(t[0].bye && t[0].winner == 0);
    assert_int_equal(t[1].slot[0], 1);
    assert_int_equal(t[1].slot[1], 2);
    assert_int_equal(t[1].winner, 1);
    assert_int_equal(t[2].winner, 1); /* the strongest */
    free(t);
    /* 5 bots: bracket of 8, three byes to seeds 1, 2, 3; 4 v 5. */
    uint32_t s5[5] = {2, 0, 9, 4, 7};
    t = knockout(5, s5, 2, &nt, &nm);
    assert_int_equal(nt, 7);
    uint32_t byes = 0;
    for (uint32_t i = 0; i < 4; i++)
        if (t[i].bye) {
            byes++;
            assert_true(t[i].winner <= 2);
        }
    assert_int_equal(byes, 3);
    assert_int_equal(t[6].winner, 2);
    assert_int_equal(nm, 4 * 2 * 2);
    free(t);
    /* 8 bots: no bye; 1 v 8, 4 v 5, 2 v 7, 3 v 6. */
    uint32_t s8[8] = {10, 20, 30, 40, 50, 60, 70, 80};
    t = knockout(8, s8, 1, &nt, &nm);
    static const int32_t first[4][2] = {{0, 7}, {3, 4}, {1, 6}, {2, 5}};
    for (uint32_t i = 0; i < 4; i++) {
        assert_false(t[i].bye);
        assert_int_equal(t[i].slot[0], first[i][0]);
        assert_int_equal(t[i].slot[1], first[i][1]);
    }
    assert_int_equal(t[6].winner, 7);
    free(t);
}

/* A tie of equal totals and wins goes to the better seed (the lower slot). */
static void test_knockout_tiebreak(void **state)
{
    (void)state;
    uint32_t equal[2] = {4, 4};
    uint32_t nt, nm;
    ladder_ko_tie *t = knockout(2, equal, 1, &nt, &nm);
    assert_int_equal(nt, 1);
    assert_true(t[0].played);
    assert_int_equal(t[0].total[0], t[0].total[1]);
    assert_int_equal(t[0].winner, 0);
    free(t);
    /* Knockout is played by two seats only. */
    ladder_plan_params p = params(6, 3, 1, LADDER_FORMAT_KNOCKOUT, 1);
    char err[200];
    assert_int_equal(ladder_plan_count(&p, NULL, err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "2 seats"));
}

static void test_deals_parse(void **state)
{
    (void)state;
    uint64_t *d = NULL;
    uint32_t n = 0;
    char err[300];
    assert_int_equal(ladder_deals_parse("# made by hand\n\njackarena-deals 1\n7\n"
                                        "18446744073709551615  # the largest\n  0\n",
                                        "a.txt", &d, &n, err, sizeof err),
                     JA_OK);
    assert_int_equal(n, 3);
    assert_true(d[0] == 7 && d[1] == UINT64_MAX && d[2] == 0);
    char h1[65], h2[65];
    ladder_deals_hash(d, n, h1);
    ladder_deals_hash(d, 2, h2);
    assert_int_equal(strlen(h1), 64);
    assert_string_not_equal(h1, h2);
    /* A plan with the set plays its deals in order, over again. */
    ladder_plan_params p = params(3, 2, 2, LADDER_FORMAT_ROUND_ROBIN, 1);
    p.deals = d;
    p.n_deals = n;
    ladder_plan_match *m = NULL;
    uint32_t nm;
    assert_int_equal(ladder_plan_new(&p, &m, &nm), JA_OK);
    for (uint32_t i = 0; i < nm; i++)
        assert_true(m[i].seed == d[(i / 2) % n]);
    ladder_plan_free(&m);
    free(d);
    static const struct {
        const char *text, *want;
        int rc;
    } bad[] = {
        {"jackarena-deals 1\n12\nx3\n", "f:3: 'x3' is not a seed", JA_EFORMAT},
        {"jackarena-deals 1\n012\n", "f:2: '012' is not a seed", JA_EFORMAT},
        {"jackarena-deals 1\n18446744073709551616\n", "f:2:", JA_EFORMAT},
        {"jackarena-deals 2\n1\n", "f:1: deal set version 2", JA_EVERSION},
        {"12\n", "f:1: not a deal set", JA_EFORMAT},
        {"jackarena-deals 1\n# nothing\n", "f:2: no deal", JA_EFORMAT},
        {"", "f:1: empty file", JA_EFORMAT},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(ladder_deals_parse(bad[i].text, "f", &d, &n, err, sizeof err),
                         bad[i].rc);
        assert_null(d);
        assert_non_null(strstr(err, bad[i].want));
        assert_null(strchr(err, '\n'));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swiss_no_rematch),   cmocka_unit_test(test_swiss_byes),
        cmocka_unit_test(test_swiss_score_groups), cmocka_unit_test(test_swiss_determinism),
        cmocka_unit_test(test_swiss_buchholz),     cmocka_unit_test(test_knockout_brackets),
        cmocka_unit_test(test_knockout_tiebreak),  cmocka_unit_test(test_deals_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
