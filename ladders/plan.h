/* Tournament plans: which participants sit in which seats of which match,
 * and each match's seed, as a pure function of a few parameters.
 *
 * A plan is the list of every match of a tournament, numbered 0, 1, 2, ...
 * It is generated once, stored in the database before play (ladder_db.h),
 * and never depends on the order in which matches finish, on --jobs or on
 * --resume. docs/tournament-plan.md describes the order in full; in short:
 *
 *   for round in 0 .. rounds-1:
 *     for each combination (lexicographic order) of n_seats participants
 *         (gauntlet: participant 0 with every (n_seats-1)-combination of
 *          the others):
 *       for seat order o in 0 .. orders-1 (ladder_seating_orders):
 *         for rotation r in 0 .. n_seats-1:
 *           match: seat i is taken by combo[order_o[(i + r) % n_seats]]
 *
 * Cyclic seating has one seat order, the identity. Balanced seating has
 * the seat orders of a neighbour-balanced design (Walecki's Hamiltonian
 * cycles of the complete graph, each in both directions), the identity
 * first, so that over a combination every participant has every other as
 * its next neighbour equally often (as far as the seat count allows: see
 * ladder_seating_orders and docs/tournament-plan.md).
 *
 * The seed of match `number` is ja_seed_derive(seed, JA_STREAM_MATCH,
 * number); with `duplicate`, the orders x rotations of one combination in
 * one round share the seed of their first match, so every seat order plays
 * the same deal.
 *
 * Everything here is pure: no I/O, no globals; ladder_plan_new is the only
 * function that allocates. Safe to call from any thread. */
#ifndef JA_LADDER_PLAN_H
#define JA_LADDER_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jackarena/ja_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of participants in one tournament (slots are uint16_t). */
#define LADDER_MAX_PARTICIPANTS 1024u

/* Largest plan accepted. A plan is stored in one transaction before play;
 * above this the request is almost surely a typo (--rounds 100000), and the
 * plan alone would take hundreds of megabytes. */
#define LADDER_PLAN_MAX_MATCHES 1000000u

typedef enum ladder_format {
    LADDER_FORMAT_ROUND_ROBIN, /* every n_seats-combination of participants */
    LADDER_FORMAT_GAUNTLET,    /* participant 0 against every combination of the others */
    LADDER_FORMAT_SWISS,       /* rounds paired from the results so far (pairing.h) */
    LADDER_FORMAT_KNOCKOUT,    /* tables of n_seats bots, the best go through (pairing.h) */
    LADDER_FORMAT_COUNT
} ladder_format;

/* How the seats of a combination are ordered (docs/tournament-plan.md).
 * Stored by name in the database (schema version 6): the values are never
 * renumbered, and a zero-initialised plan is cyclic, as every plan was
 * before balanced seating existed. */
typedef enum ladder_seating {
    LADDER_SEATING_CYCLIC,   /* the K rotations of the combination's order */
    LADDER_SEATING_BALANCED, /* the K rotations of each order of a neighbour-balanced set */
    LADDER_SEATING_COUNT
} ladder_seating;

/* What defines a plan. Plain value; zero-initialise, then fill. */
typedef struct ladder_plan_params {
    uint32_t n_participants; /* N: participants 0 .. N-1 (slots), N >= 2 */
    uint32_t n_seats;        /* K: seats per match, 2 <= K <= N, K <= JA_MAX_SEATS */
    uint32_t rounds;         /* R >= 1: the whole plan is repeated R times */
    ladder_format format;
    bool duplicate;          /* the matches of a combination share one seed */
    uint64_t seed;           /* the tournament seed */
    ladder_seating seating;  /* cyclic (0) or balanced */
    /* A curated deal set (--deals FILE): deal d of the plan is played with
     * deals[d % n_deals] instead of a seed derived from `seed`. NULL: none.
     * Borrowed. */
    const uint64_t *deals;
    uint32_t n_deals;
} ladder_plan_params;

/* One planned match. Plain value. */
typedef struct ladder_plan_match {
    uint32_t number;   /* 0, 1, 2, ... in plan order */
    uint32_t round;    /* 0 .. rounds-1 */
    uint32_t combo;    /* index of the combination within its round */
    uint32_t rotation; /* the match within its combination, 0 .. orders*n_seats-1:
                          seat order rotation / n_seats, turned by rotation % n_seats
                          (cyclic seating: just the rotation, 0 .. n_seats-1) */
    uint64_t seed;     /* the match seed (see the file comment) */
    uint32_t n_seats;
    uint16_t slot[JA_MAX_SEATS]; /* seat -> participant slot; unused entries 0 */
} ladder_plan_match;

/* "round-robin", "gauntlet", "swiss" or "knockout" (as on the command
 * line); NULL outside the enum. Static storage. */
const char *ladder_format_name(ladder_format f);

/* Parses a format's name (ladder_format_name) into *out. JA_OK, or JA_EINVAL for
 * anything else (*out untouched). */
int ladder_format_parse(const char *s, ladder_format *out);

/* "cyclic" or "balanced" (as on the command line); NULL outside the enum.
 * Static storage. */
const char *ladder_seating_name(ladder_seating s);

/* Parses "cyclic" or "balanced" into *out. JA_OK, or JA_EINVAL for anything
 * else (*out untouched). */
int ladder_seating_parse(const char *s, ladder_seating *out);

/* The number of seat orders a combination of n_seats participants is
 * played in: 1 for cyclic seating; for balanced, 1 for 2 seats, n_seats-1
 * for an odd count (every ordered pair neighbours in exactly one order),
 * n_seats for an even count of 4 or more (every ordered pair in one order,
 * the pairs of a perfect matching in two). 0 for a seating outside the enum
 * or n_seats outside 2 .. JA_MAX_SEATS. */
uint32_t ladder_seating_orders(ladder_seating s, uint32_t n_seats);

/* Seat order `order` (0 .. ladder_seating_orders-1) of seating s for
 * n_seats seats into out[0 .. n_seats-1]: a permutation of 0 .. n_seats-1,
 * the positions in the combination that seats 0, 1, ... take before any
 * rotation. Order 0 is always the identity. JA_OK, or JA_EINVAL for
 * arguments outside those ranges. */
int ladder_seating_order(ladder_seating s, uint32_t n_seats, uint32_t order, uint16_t *out);

/* True for the formats planned one round at a time from the results of
 * the rounds before (swiss, knockout: pairing.h); their plans are not
 * generated here (ladder_plan_match_at and ladder_plan_generate refuse
 * them with JA_EINVAL), only counted. */
bool ladder_format_by_rounds(ladder_format f);

/* Checks p and counts its matches without generating them, for validation
 * before anything is written. Round-robin has C(N,K)*O*K*R matches, gauntlet
 * C(N-1,K-1)*O*K*R, where O is ladder_seating_orders(seating, K); swiss
 * floor(N/K)*O*K*R (R rounds of floor(N/K) groups, N mod K byes a round);
 * knockout T*O*K*R (T tables of R deals, each in every seat order and
 * rotation: ladder_knockout_shape; two seats: T = N-1).
 * Returns JA_OK and sets *out_count; JA_EINVAL for parameters that make no
 * plan (N < 2, K < 2, K > N, K > JA_MAX_SEATS, N > LADDER_MAX_PARTICIPANTS,
 * R < 1, unknown format or seating); JA_ERANGE when the plan would exceed
 * LADDER_PLAN_MAX_MATCHES. On error, when err is not NULL, a one-line
 * human message naming the problem is written to err (cap bytes,
 * NUL-terminated), e.g. "the plan has 3921225 matches, more than the limit
 * of 1000000". out_count may be NULL. */
int ladder_plan_count(const ladder_plan_params *p, uint32_t *out_count, char *err,
                      size_t cap);

/* A round of a knockout of n_seats seats (docs/tournament-plan.md,
 * "Knockout") whose field holds `field` bots: returns the bots that go on
 * to the next round (1: the winner) and sets *tables, the tables of
 * n_seats bots played in it. The field of the next round is the largest
 * power of n_seats below `field` (at least n_seats), or as near it as one
 * round of tables eliminating n_seats - 1 each comes; a field of n_seats
 * plays the final table. It depends on the sizes only, never on results.
 * A field below n_seats (or of 1) returns itself with no table. */
uint32_t ladder_knockout_next(uint32_t field, uint32_t n_seats, uint32_t *tables);

/* The rounds (*rounds) and tables in all (*tables) of a knockout of n bots
 * at n_seats seats, from ladder_knockout_next; either may be NULL. Two
 * seats: ceil(log2 n) rounds, n - 1 ties. */
void ladder_knockout_shape(uint32_t n, uint32_t n_seats, uint32_t *rounds, uint64_t *tables);

/* The match of a combination (participant slots, n_seats of them) numbered
 * `number`, in round `round`, combination `combo_index`, `rotation` the
 * match within the combination: its seat order (rotation / n_seats modulo
 * the orders) turned by rotation % n_seats. Its seed: duplicate, the deal
 * of the first match of its block of orders x n_seats matches
 * (number - rotation % block); otherwise its own; from p->deals when
 * given. p is checked by the caller. */
void ladder_plan_fill(const ladder_plan_params *p, const uint16_t *combo, uint32_t number,
                      uint32_t round, uint32_t combo_index, uint32_t rotation,
                      ladder_plan_match *m);

/* Fills *out with match `number` of plan p, without generating the others
 * (for --resume and sharding). JA_OK; the errors of ladder_plan_count; or
 * JA_ERANGE when number is not below the plan's count. */
int ladder_plan_match_at(const ladder_plan_params *p, uint32_t number,
                         ladder_plan_match *out);

/* Generates the whole plan into caller storage out[0 .. cap-1], in order.
 * *out_count (not NULL) receives the plan's count in every case where p is
 * valid. Returns JA_OK; the errors of ladder_plan_count; or JA_ERANGE with
 * nothing written when cap < the count (call ladder_plan_count first). */
int ladder_plan_generate(const ladder_plan_params *p, ladder_plan_match *out, uint32_t cap,
                         uint32_t *out_count);

/* Like ladder_plan_generate into a new array. On JA_OK *out is owned by the
 * caller (release with ladder_plan_free) and *out_count is its length
 * (always >= 1). On error *out is NULL. */
int ladder_plan_new(const ladder_plan_params *p, ladder_plan_match **out, uint32_t *out_count);

/* Frees an array from ladder_plan_new and sets *p to NULL. Accepts NULL
 * and a pointer to NULL. */
void ladder_plan_free(ladder_plan_match **p);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_PLAN_H */
