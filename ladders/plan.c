/* Tournament plan generation (see plan.h and docs/tournament-plan.md).
 *
 * Two independent paths produce the same plan: ladder_plan_generate walks
 * the combinations in lexicographic order with the classic "next
 * combination" step, and ladder_plan_match_at unranks one combination from
 * its index. tests/unit/test_plan.c checks that they agree match by match,
 * which guards the order that every stored tournament depends on. Both
 * take a match's seat order from seating_order, which computes it from its
 * index alone (no table, no state). */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "ja_xalloc.h"
#include "ladder_err.h"

/* Above any valid combination count (<= LADDER_PLAN_MAX_MATCHES / 2), and
 * small enough that binom_sat's products cannot overflow 64 bits. */
#define BINOM_SATURATE (UINT64_C(1) << 40)

static const char *const format_names[LADDER_FORMAT_COUNT] = {
    [LADDER_FORMAT_ROUND_ROBIN] = "round-robin",
    [LADDER_FORMAT_GAUNTLET] = "gauntlet",
    [LADDER_FORMAT_SWISS] = "swiss",
    [LADDER_FORMAT_KNOCKOUT] = "knockout",
};

static const char *const seating_names[LADDER_SEATING_COUNT] = {
    [LADDER_SEATING_CYCLIC] = "cyclic",
    [LADDER_SEATING_BALANCED] = "balanced",
};

/* The index of s in names[0 .. n-1], or -1. */
static int name_index(const char *const *names, int n, const char *s)
{
    for (int i = 0; s != NULL && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

const char *ladder_format_name(ladder_format f)
{
    if ((unsigned)f >= LADDER_FORMAT_COUNT)
        return NULL;
    return format_names[f];
}

int ladder_format_parse(const char *s, ladder_format *out)
{
    int i = name_index(format_names, LADDER_FORMAT_COUNT, s);
    if (i < 0 || out == NULL)
        return JA_EINVAL;
    *out = (ladder_format)i;
    return JA_OK;
}

const char *ladder_seating_name(ladder_seating s)
{
    if ((unsigned)s >= LADDER_SEATING_COUNT)
        return NULL;
    return seating_names[s];
}

int ladder_seating_parse(const char *s, ladder_seating *out)
{
    int i = name_index(seating_names, LADDER_SEATING_COUNT, s);
    if (i < 0 || out == NULL)
        return JA_EINVAL;
    *out = (ladder_seating)i;
    return JA_OK;
}

bool ladder_format_by_rounds(ladder_format f)
{
    return f == LADDER_FORMAT_SWISS || f == LADDER_FORMAT_KNOCKOUT;
}

uint32_t ladder_seating_orders(ladder_seating s, uint32_t n_seats)
{
    if ((unsigned)s >= LADDER_SEATING_COUNT || n_seats < 2 || n_seats > JA_MAX_SEATS)
        return 0;
    if (s == LADDER_SEATING_CYCLIC || n_seats == 2)
        return 1;
    return n_seats % 2 ? n_seats - 1 : n_seats;
}

/* Hamiltonian cycle c (0 .. n/2-1) of Walecki's construction, as the
 * sequence of its k vertices (docs/tournament-plan.md, "Balanced seating").
 * With n = k rounded down to even and m = n/2, vertices 0 .. n-1 stand on
 * a circle and cycle c walks the zigzag c, c+1, c-1, c+2, c-2, ..., c+m
 * (mod n), which crosses every chord length once (twice the diameter for
 * even k, when the walk closes back to c); an odd k puts its last vertex,
 * n, before the zigzag. */
static void walecki_cycle(uint32_t k, uint32_t c, uint16_t *out)
{
    uint32_t n = k - k % 2, m = n / 2, i = 0;
    if (k % 2)
        out[i++] = (uint16_t)n;
    out[i++] = (uint16_t)c;
    for (uint32_t j = 1; j < m; j++) {
        out[i++] = (uint16_t)((c + j) % n);
        out[i++] = (uint16_t)((c + n - j) % n);
    }
    out[i] = (uint16_t)((c + m) % n);
}

int ladder_seating_order(ladder_seating s, uint32_t n_seats, uint32_t order, uint16_t *out)
{
    uint32_t k = n_seats;
    if (out == NULL || order >= ladder_seating_orders(s, k))
        return JA_EINVAL;
    if (s == LADDER_SEATING_CYCLIC || k == 2) {
        for (uint32_t i = 0; i < k; i++)
            out[i] = (uint16_t)i;
        return JA_OK;
    }
    /* Vertices are renamed by their place in cycle 0, so that order 0 is
     * the identity (the cyclic seating); order 2c is cycle c, order 2c+1
     * the same cycle walked backwards from the same first vertex. */
    uint16_t first[JA_MAX_SEATS], label[JA_MAX_SEATS], cyc[JA_MAX_SEATS];
    walecki_cycle(k, 0, first);
    for (uint32_t i = 0; i < k; i++)
        label[first[i]] = (uint16_t)i;
    walecki_cycle(k, order / 2, cyc);
    for (uint32_t i = 0; i < k; i++)
        out[i] = label[cyc[order % 2 ? (k - i) % k : i]];
    return JA_OK;
}

uint32_t ladder_knockout_next(uint32_t field, uint32_t n_seats, uint32_t *tables)
{
    uint32_t k = n_seats, power = k;
    *tables = 0;
    if (field < k || k < 2)
        return field;
    if (field == k) {
        *tables = 1;
        return 1;
    }
    /* The largest power of k below the field (at least k), unless more
     * than one round away: every table eliminates at most k - 1. */
    while ((uint64_t)power * k < field)
        power *= k;
    uint32_t most = field / k * (k - 1), next = field - most > power ? field - most : power;
    *tables = (field - next + k - 2) / (k - 1);
    return next;
}

void ladder_knockout_shape(uint32_t n, uint32_t n_seats, uint32_t *rounds, uint64_t *tables)
{
    uint32_t r = 0, t;
    uint64_t all = 0;
    while (n > 1 && n >= n_seats && n_seats >= 2) {
        n = ladder_knockout_next(n, n_seats, &t);
        all += t;
        r++;
    }
    if (rounds)
        *rounds = r;
    if (tables)
        *tables = all;
}

/* C(n, k), or BINOM_SATURATE when it is at least that large. The running
 * value after step i is C(n-k+i, i), which grows with i (k <= n-k after the
 * symmetry step), so once it saturates the result does too; every product
 * stays below 2^40 * 2^11. */
static uint64_t binom_sat(uint32_t n, uint32_t k)
{
    if (k > n)
        return 0;
    if (k > n - k)
        k = n - k;
    uint64_t c = 1;
    for (uint32_t i = 1; i <= k; i++) {
        c = c * (uint64_t)(n - k + i) / i;
        if (c >= BINOM_SATURATE)
            return BINOM_SATURATE;
    }
    return c;
}

/* The combination shape of p: choose `pick` out of `pool` participants
 * (gauntlet: the others, with participant 0 prepended). */
static void shape(const ladder_plan_params *p, uint32_t *pool, uint32_t *pick)
{
    if (p->format == LADDER_FORMAT_GAUNTLET) {
        *pool = p->n_participants - 1;
        *pick = p->n_seats - 1;
    } else {
        *pool = p->n_participants;
        *pick = p->n_seats;
    }
}

/* The matches of one combination: its seat orders times their rotations
 * (p's seating and seats already checked). */
static uint64_t block(const ladder_plan_params *p)
{
    return (uint64_t)ladder_seating_orders(p->seating, p->n_seats) * p->n_seats;
}

/* Validates p; on success *combos is the number of combinations per round
 * and *total the plan's match count. */
static int check(const ladder_plan_params *p, uint64_t *combos, uint64_t *total, char *err,
                 size_t cap)
{
    if (p == NULL) {
        ladder_set_err(err, cap, "no plan parameters");
        return JA_EINVAL;
    }
    if ((unsigned)p->format >= LADDER_FORMAT_COUNT) {
        ladder_set_err(err, cap, "unknown tournament format %u", (unsigned)p->format);
        return JA_EINVAL;
    }
    if ((unsigned)p->seating >= LADDER_SEATING_COUNT) {
        ladder_set_err(err, cap, "unknown seating %u", (unsigned)p->seating);
        return JA_EINVAL;
    }
    if (p->n_participants < 2) {
        ladder_set_err(err, cap, "a tournament needs at least 2 participants, not %u",
                       p->n_participants);
        return JA_EINVAL;
    }
    if (p->n_participants > LADDER_MAX_PARTICIPANTS) {
        ladder_set_err(err, cap, "%u participants is more than the limit of %u", p->n_participants,
                       LADDER_MAX_PARTICIPANTS);
        return JA_EINVAL;
    }
    if (p->n_seats < 2 || p->n_seats > JA_MAX_SEATS) {
        ladder_set_err(err, cap, "seats must be between 2 and %d, not %u", JA_MAX_SEATS,
                       p->n_seats);
        return JA_EINVAL;
    }
    if (p->n_seats > p->n_participants) {
        ladder_set_err(err, cap, "%u seats need at least %u participants, not %u", p->n_seats,
                       p->n_seats, p->n_participants);
        return JA_EINVAL;
    }
    if (p->rounds < 1) {
        ladder_set_err(err, cap, "rounds must be at least 1");
        return JA_EINVAL;
    }
    if (p->deals != NULL && p->n_deals == 0) {
        ladder_set_err(err, cap, "the deal set is empty");
        return JA_EINVAL;
    }
    uint32_t pool, pick;
    shape(p, &pool, &pick);
    uint64_t c = binom_sat(pool, pick);
    /* Swiss: the groups of a round; knockout: its tables, in all (N-1 ties
     * for two seats). */
    if (p->format == LADDER_FORMAT_SWISS)
        c = p->n_participants / p->n_seats;
    else if (p->format == LADDER_FORMAT_KNOCKOUT)
        ladder_knockout_shape(p->n_participants, p->n_seats, NULL, &c);
    /* c is capped here so that c * orders * n_seats * rounds (<= 10^6 *
     * JA_MAX_SEATS^2 * 2^32) cannot overflow 64 bits. */
    if (c > LADDER_PLAN_MAX_MATCHES) {
        ladder_set_err(err, cap, "the plan has more than %u matches in one round (the limit is %u)",
                       LADDER_PLAN_MAX_MATCHES, LADDER_PLAN_MAX_MATCHES);
        return JA_ERANGE;
    }
    uint64_t t = c * block(p) * (uint64_t)p->rounds;
    if (t > LADDER_PLAN_MAX_MATCHES) {
        ladder_set_err(err, cap, "the plan has %llu matches, more than the limit of %u",
                       (unsigned long long)t, LADDER_PLAN_MAX_MATCHES);
        return JA_ERANGE;
    }
    *combos = c;
    *total = t;
    return JA_OK;
}

int ladder_plan_count(const ladder_plan_params *p, uint32_t *out_count, char *err, size_t cap)
{
    uint64_t combos, total;
    int rc = check(p, &combos, &total, err, cap);
    if (rc != JA_OK)
        return rc;
    if (out_count != NULL)
        *out_count = (uint32_t)total;
    return JA_OK;
}

void ladder_plan_fill(const ladder_plan_params *p, const uint16_t *combo, uint32_t number,
                      uint32_t round, uint32_t combo_index, uint32_t rotation,
                      ladder_plan_match *m)
{
    uint32_t k = p->n_seats;
    memset(m, 0, sizeof *m);
    m->number = number;
    m->round = round;
    m->combo = combo_index;
    m->rotation = rotation;
    m->n_seats = k;
    uint32_t per = (uint32_t)block(p), turn = rotation % per;
    uint16_t order[JA_MAX_SEATS];
    ladder_seating_order(p->seating, k, turn / k, order);
    for (uint32_t i = 0; i < k; i++)
        m->slot[i] = combo[order[(i + turn) % k]];
    /* Duplicate: every match of a block (a combination's orders x
     * rotations) plays the deal of its first, whose number is this one's
     * minus its place in the block (the matches of a block are
     * consecutive, and a block starts at a multiple of its size). */
    uint32_t seed_number = p->duplicate ? number - turn : number;
    if (p->deals != NULL) {
        uint32_t deal = p->duplicate ? seed_number / per : number;
        m->seed = p->deals[deal % p->n_deals];
    } else {
        m->seed = ja_seed_derive(p->seed, JA_STREAM_MATCH, seed_number);
    }
}

/* The combination of rank r (lexicographic) among the `pick`-subsets of
 * {0 .. pool-1}, written ascending to out; r < C(pool, pick). At each
 * position, candidates are tried in increasing order, skipping the
 * C(pool-1-c, pick-1-i) combinations that start with each smaller one. */
static void unrank(uint32_t pool, uint32_t pick, uint64_t r, uint16_t *out)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < pick; i++) {
        for (;; c++) {
            uint64_t with_c = binom_sat(pool - 1 - c, pick - 1 - i);
            if (r < with_c)
                break;
            r -= with_c;
        }
        out[i] = (uint16_t)c;
        c++;
    }
}

/* The full seat combination (participant slots, ascending) from a subset
 * of the pool. */
static void to_participants(const ladder_plan_params *p, const uint16_t *subset, uint32_t pick,
                            uint16_t *combo)
{
    if (p->format == LADDER_FORMAT_GAUNTLET) {
        combo[0] = 0;
        for (uint32_t i = 0; i < pick; i++)
            combo[i + 1] = (uint16_t)(subset[i] + 1);
    } else {
        memcpy(combo, subset, pick * sizeof *combo);
    }
}

int ladder_plan_match_at(const ladder_plan_params *p, uint32_t number, ladder_plan_match *out)
{
    uint64_t combos, total;
    int rc = check(p, &combos, &total, NULL, 0);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    if (ladder_format_by_rounds(p->format))
        return JA_EINVAL;
    if (number >= total)
        return JA_ERANGE;
    uint64_t per_combo = block(p);
    uint64_t per_round = combos * per_combo;
    uint32_t round = (uint32_t)(number / per_round);
    uint64_t within = number % per_round;
    uint32_t combo_index = (uint32_t)(within / per_combo);
    uint32_t rotation = (uint32_t)(within % per_combo);

    uint32_t pool, pick;
    shape(p, &pool, &pick);
    uint16_t subset[JA_MAX_SEATS], combo[JA_MAX_SEATS];
    unrank(pool, pick, combo_index, subset);
    to_participants(p, subset, pick, combo);
    ladder_plan_fill(p, combo, number, round, combo_index, rotation, out);
    return JA_OK;
}

/* Advances a to the next `pick`-subset of {0 .. pool-1} in lexicographic
 * order; false after the last one. */
static bool next_subset(uint16_t *a, uint32_t pool, uint32_t pick)
{
    uint32_t i = pick;
    while (i > 0) {
        i--;
        /* The largest value position i may hold is pool - pick + i. */
        if (a[i] < pool - pick + i) {
            a[i]++;
            for (uint32_t j = i + 1; j < pick; j++)
                a[j] = (uint16_t)(a[j - 1] + 1);
            return true;
        }
    }
    return false;
}

int ladder_plan_generate(const ladder_plan_params *p, ladder_plan_match *out, uint32_t cap,
                         uint32_t *out_count)
{
    uint64_t combos, total;
    if (out_count == NULL)
        return JA_EINVAL;
    int rc = check(p, &combos, &total, NULL, 0);
    if (rc != JA_OK)
        return rc;
    *out_count = (uint32_t)total;
    if (ladder_format_by_rounds(p->format))
        return JA_EINVAL;
    if (cap < total || out == NULL)
        return JA_ERANGE;

    uint32_t pool, pick;
    shape(p, &pool, &pick);
    uint32_t per_combo = (uint32_t)block(p);
    uint32_t number = 0;
    for (uint32_t round = 0; round < p->rounds; round++) {
        uint16_t subset[JA_MAX_SEATS], combo[JA_MAX_SEATS];
        for (uint32_t i = 0; i < pick; i++)
            subset[i] = (uint16_t)i;
        uint32_t combo_index = 0;
        do {
            to_participants(p, subset, pick, combo);
            for (uint32_t r = 0; r < per_combo; r++) {
                ladder_plan_fill(p, combo, number, round, combo_index, r, &out[number]);
                number++;
            }
            combo_index++;
        } while (next_subset(subset, pool, pick));
    }
    return JA_OK;
}

int ladder_plan_new(const ladder_plan_params *p, ladder_plan_match **out, uint32_t *out_count)
{
    if (out == NULL || out_count == NULL)
        return JA_EINVAL;
    *out = NULL;
    uint32_t n;
    int rc = ladder_plan_count(p, &n, NULL, 0);
    if (rc != JA_OK)
        return rc;
    ladder_plan_match *a = ja_xcalloc(n, sizeof *a);
    rc = ladder_plan_generate(p, a, n, out_count);
    if (rc != JA_OK) {
        free(a);
        return rc;
    }
    *out = a;
    return JA_OK;
}

void ladder_plan_free(ladder_plan_match **p)
{
    if (p == NULL)
        return;
    free(*p);
    *p = NULL;
}
