/* Unit tests of swiss pairing, the knockout bracket (ladders/pairing.h) and
 * curated deal sets (ladders/deals.h): no rematch while one can be
 * avoided, byes (the fewest first, never two while another has none),
 * groups of equal points, determinism, the bracket's seeding, byes and
 * tie-breaks for 3, 5 and 8 bots, knockouts of 3 to 5 seats (the field's
 * shape, tables by snake seeding, byes to the best seeds, the strongest
 * winning, the tie-breaks), the swiss standings' Buchholz worked by hand,
 * and the deal set's parser, hash and use by a plan. */
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
}

/* The shape of a knockout: two seats, ceil(log2 N) rounds and N - 1 ties
 * (the bracket's); K seats, a field that shrinks to a power of K (or as
 * near as a round of tables can bring it) and a final table of K. */
static void test_knockout_shape(void **state)
{
    (void)state;
    for (uint32_t n = 2; n <= 300; n++) {
        uint32_t r, lg = 0;
        uint64_t t;
        while ((1u << lg) < n)
            lg++;
        ladder_knockout_shape(n, 2, &r, &t);
        assert_int_equal(r, lg);
        assert_int_equal(t, n - 1);
    }
    static const uint32_t next3[][3] = {
        /* field, next field, tables */
        {3, 1, 1}, {4, 3, 1}, {5, 3, 1}, {6, 3, 2}, {8, 4, 2}, {9, 3, 3}, {10, 9, 1},
        {11, 9, 1}, {12, 9, 2}, {27, 9, 9}, {28, 27, 1},
    };
    for (size_t i = 0; i < sizeof next3 / sizeof *next3; i++) {
        uint32_t t;
        assert_int_equal(ladder_knockout_next(next3[i][0], 3, &t), next3[i][1]);
        assert_int_equal(t, next3[i][2]);
    }
    for (uint32_t k = 3; k <= JA_MAX_SEATS; k++)
        for (uint32_t n = k; n <= 400; n++) {
            uint32_t field = n, rounds = 0, tables, power = k;
            uint64_t all = 0;
            while ((uint64_t)power * k < n)
                power *= k;
            while (field > 1) {
                uint32_t next = ladder_knockout_next(field, k, &tables);
                assert_true(next >= (field == k ? 1u : k) && next < field);
                assert_true(tables >= 1 && tables * k <= field);
                /* At most k - 1 out of a table, at least one. */
                assert_true(field - next <= tables * (k - 1) && field - next >= tables);
                if (rounds == 0 && n > k && next != power) /* power out of reach */
                    assert_int_equal(next, n - n / k * (k - 1));
                all += tables;
                field = next;
                rounds++;
            }
            uint32_t r;
            uint64_t t;
            ladder_knockout_shape(n, k, &r, &t);
            assert_int_equal(r, rounds);
            assert_int_equal(t, all);
        }
}

/* A knockout of n bots at k seats, `deals` deals a table, played out with
 * the strengths given (score = strength): every round seats each bot of
 * the field once (a table or a bye, the byes the best seeds), each table
 * a duplicate block per deal, the plan's count, and the winner. Returns
 * the tables (caller frees). */
static ladder_ko_tie *knockout_k(uint32_t n, uint32_t k, const uint32_t *strength,
                                 uint32_t deals, uint32_t *nt, int32_t *winner)
{
    sim s = {params(n, k, deals, LADDER_FORMAT_KNOCKOUT, 5), strength, NULL, 0};
    uint32_t rounds = ladder_rounds_total(&s.p), field = n;
    uint32_t per = ladder_seating_orders(LADDER_SEATING_BALANCED, k) * k;
    for (uint32_t r = 0; r < rounds; r++) {
        uint32_t nm, tables, seen[64] = {0}, met[64 * 64] = {0};
        uint32_t next = ladder_knockout_next(field, k, &tables);
        ladder_plan_match *m = sim_round(&s, r, &nm);
        assert_int_equal(nm, tables * per * deals);
        count_groups(m, nm, per, n, met, seen);
        uint32_t at = 0;
        for (uint32_t i = 0; i < n; i++)
            at += seen[i];
        assert_int_equal(at, tables * k * deals); /* a block a deal */
        for (uint32_t i = 0; i < n; i++)
            assert_true(seen[i] == 0 || seen[i] == deals);
        /* Different deals in a table, and a table's deals in every order. */
        if (deals > 1)
            assert_true(m[0].seed != m[per].seed);
        free(m);
        field = next;
        /* The round after cannot be planned twice, nor skipped. */
        ladder_plan_match *again = NULL;
        uint32_t na;
        char err[200];
        if (r + 2 < rounds) {
            assert_int_equal(ladder_round_plan(&s.p, s.h, s.n, r + 2, &again, &na, err,
                                               sizeof err), JA_EINVAL);
            assert_null(again);
        }
    }
    uint32_t total;
    assert_int_equal(ladder_plan_count(&s.p, &total, NULL, 0), JA_OK);
    assert_int_equal(s.n, total);
    ladder_ko_tie *t = NULL;
    assert_int_equal(ladder_knockout_bracket(&s.p, s.h, s.n, &t, nt), JA_OK);
    assert_int_equal(t[*nt - 1].round, rounds - 1);
    assert_int_equal(t[*nt - 1].n, k);
    assert_true(t[*nt - 1].played);
    *winner = t[*nt - 1].winner;
    free(s.h);
    return t;
}

static void test_knockout_tables(void **state)
{
    (void)state;
    /* 8 bots at 3 seats: round 1 byes to seeds 1 and 2, tables by snake
     * {3, 6, 7} and {4, 5, 8}, one through each; round 2 a bye to seed 1
     * and a table of three, two through; then the final table. */
    uint32_t s8[8] = {1, 2, 3, 4, 5, 6, 70, 8};
    uint32_t nt;
    int32_t w;
    ladder_ko_tie *t = knockout_k(8, 3, s8, 1, &nt, &w);
    static const int32_t tables[2][3] = {{2, 5, 6}, {3, 4, 7}};
    for (uint32_t j = 0; j < 2; j++) {
        assert_false(t[j].bye);
        assert_int_equal(t[j].advance, 1);
        for (uint32_t i = 0; i < 3; i++)
            assert_int_equal(t[j].slot[i], tables[j][i]);
    }
    assert_true(t[0].through[2] && !t[0].through[0] && !t[0].through[1]);
    assert_int_equal(t[1].winner, 7);
    assert_true(t[2].bye && t[2].winner == 0 && t[3].bye && t[3].winner == 1);
    /* Round 2: the table {2 (seed 2), 6, 7} with two through, a bye to seed 1. */
    assert_int_equal(t[4].round, 1);
    assert_int_equal(t[4].advance, 2);
    assert_int_equal(t[4].slot[0], 1);
    assert_int_equal(t[4].slot[1], 6);
    assert_int_equal(t[4].slot[2], 7);
    assert_true(t[4].through[1] && t[4].through[2]);
    assert_true(t[5].bye && t[5].winner == 0);
    assert_int_equal(nt, 7);
    assert_int_equal(w, 6);
    free(t);
    /* Many sizes: the strongest always wins. */
    for (uint32_t k = 3; k <= 5; k++)
        for (uint32_t n = k; n <= 30; n++) {
            uint32_t strength[64], best = 0;
            for (uint32_t i = 0; i < n; i++) {
                strength[i] = (uint32_t)(ja_seed_derive(n * 31 + k, 2, i) % 1000u) * 64 + i;
                best = strength[i] > strength[best] ? i : best;
            }
            t = knockout_k(n, k, strength, n % 2 + 1, &nt, &w);
            assert_int_equal(w, (int32_t)best);
            free(t);
        }
}

/* Equal scores at a table: the more matches won, then the better seed. */
static void test_knockout_table_tiebreak(void **state)
{
    (void)state;
    uint32_t equal[4] = {4, 4, 4, 4}, nt;
    int32_t w;
    ladder_ko_tie *t = knockout_k(4, 3, equal, 1, &nt, &w);
    /* Round 1: a bye to seed 1, a table of seeds 2-4 with two through. */
    assert_true(t[0].played && t[0].advance == 2);
    assert_true(t[0].through[0] && t[0].through[1] && !t[0].through[2]);
    assert_true(t[1].bye && t[1].winner == 0);
    assert_int_equal(w, 0);
    free(t);
    /* More matches won beats the better seed: a hand-made history. */
    ladder_plan_params p = params(3, 3, 1, LADDER_FORMAT_KNOCKOUT, 1);
    ladder_plan_match *m = NULL;
    uint32_t nm;
    char err[200];
    assert_int_equal(ladder_round_plan(&p, NULL, 0, 0, &m, &nm, err, sizeof err), JA_OK);
    assert_int_equal(nm, 6);
    ladder_played h[6];
    memset(h, 0, sizeof h);
    for (uint32_t i = 0; i < nm; i++) {
        h[i] = (ladder_played){.number = i, .round = 0, .combo = 0, .n_seats = 3,
                               .done = true};
        for (uint32_t a = 0; a < 3; a++) {
            h[i].slot[a] = m[i].slot[a];
            /* Slot 2 wins match 0 by 5 and loses the others by 1. */
            int64_t sc = m[i].slot[a] == 2 ? (i == 0 ? 10 : -2) : (i == 0 ? 0 : 1);
            h[i].score[a] = sc;
            h[i].place[a] = (uint8_t)(m[i].slot[a] == 2 ? (i == 0 ? 1 : 3) : (i == 0 ? 2 : 1));
        }
    }
    free(m);
    assert_int_equal(ladder_knockout_bracket(&p, h, nm, &t, &nt), JA_OK);
    assert_int_equal(nt, 1);
    /* Totals: slot 2: 0, slots 0 and 1: 5 each; wins: 5 each, 1: the
     * better seed. */
    assert_int_equal(t[0].total[0], t[0].total[1]);
    assert_int_equal(t[0].winner, 0);
    /* Slot 0 second in match 1 (a shared first before): a win fewer. */
    for (uint32_t a = 0; a < 3; a++)
        if (h[1].slot[a] == 0)
            h[1].place[a] = 2;
    free(t);
    assert_int_equal(ladder_knockout_bracket(&p, h, nm, &t, &nt), JA_OK);
    assert_true(t[0].wins[1] > t[0].wins[0]);
    assert_int_equal(t[0].winner, 1);
    free(t);
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
        cmocka_unit_test(test_knockout_tiebreak),  cmocka_unit_test(test_knockout_shape),
        cmocka_unit_test(test_knockout_tables),    cmocka_unit_test(test_knockout_table_tiebreak),
        cmocka_unit_test(test_deals_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
