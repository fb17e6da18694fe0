/* Swiss and knockout: plans made one round at a time, each round from the
 * recorded results of the rounds before (docs/tournament-plan.md, "Swiss"
 * and "Knockout").
 *
 * A round's matches are a pure function of the plan's parameters and of
 * the stored matches of the earlier rounds with their results: the same
 * results give the same round, whatever order the matches finished in, so
 * a tournament killed and restarted plans the rounds it had not planned
 * yet exactly as an uninterrupted run would have.
 *
 * Every group of a round (a swiss group of n_seats bots, a knockout table
 * of n_seats, a tie for two) is a duplicate block: the rotations of each
 * seat order of the seating, sharing one deal (knockout: `rounds` deals,
 * each in every seat order and rotation). Its result ranks its members by
 * their total score over the block, ties shared.
 *
 * Pure: no I/O, no globals; the round functions allocate their result.
 * Safe to call from any thread. */
#ifndef JA_LADDER_PAIRING_H
#define JA_LADDER_PAIRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A stored match of a tournament, with its result when done. Plain value. */
typedef struct ladder_played {
    uint32_t number, round, combo, n_seats;
    bool done;
    uint16_t slot[JA_MAX_SEATS];  /* seat -> participant slot */
    int64_t score[JA_MAX_SEATS];  /* by seat, units of 1/JA_SCORE_UNIT (done only) */
    uint8_t place[JA_MAX_SEATS];  /* by seat, 1 = best (done only) */
} ladder_played;

/* The rounds of the plan: `rounds` for swiss, ladder_knockout_shape's for
 * knockout (two seats: ceil(log2 N)), 1 for the formats planned whole. */
uint32_t ladder_rounds_total(const ladder_plan_params *p);

/* Plans round `round` of a swiss or knockout plan p (checked: plan.h) from
 * the stored matches hist[0 .. n_hist-1] of rounds 0 .. round-1, all done,
 * in number order. Its matches are numbered from n_hist. On JA_OK *out is
 * a new array of *n_out matches (free()). JA_EINVAL for a format planned
 * whole, a round out of range, or a history that does not fit (an earlier
 * round missing or not done), with a line in err. */
int ladder_round_plan(const ladder_plan_params *p, const ladder_played *hist, uint32_t n_hist,
                      uint32_t round, ladder_plan_match **out, uint32_t *n_out, char *err,
                      size_t cap);

/* Swiss points are counted in units of 1 / (2 (K - 1)) of a point: in a
 * group a bot earns 2 units for each other member it outscored and 1 for
 * each it tied with (two seats: a win is 1 point, a draw 1/2); a bye earns
 * a win, 2 (K - 1) units. */
typedef struct ladder_swiss_row {
    uint32_t slot;
    uint32_t points;     /* units of 1 / (2 (K - 1)) */
    uint32_t buchholz;   /* the same units, times K - 1 (see pairing.c) */
    int64_t score;       /* the total game score of its matches */
    uint32_t played;     /* groups played */
    uint32_t byes;
} ladder_swiss_row;

/* The swiss standings after the done groups of hist (a group counts when
 * all its matches are done): rows[0 .. N-1], best first, by points, then
 * Buchholz, then total score, then slot. */
void ladder_swiss_standings(const ladder_plan_params *p, const ladder_played *hist,
                            uint32_t n_hist, ladder_swiss_row *rows);

/* A knockout tie (two seats) or table (K seats) as decided, or to be; a
 * bye is one with a single bot (two seats: one side empty). */
typedef struct ladder_ko_tie {
    uint32_t round, position;
    uint32_t n;                      /* members: 2 for a tie, K for a table, 1 for a
                                        K-seat bye */
    int32_t slot[JA_MAX_SEATS];      /* -1: nobody (a bye's empty side, or not known yet) */
    int64_t total[JA_MAX_SEATS];     /* the total score of each member */
    uint32_t wins[JA_MAX_SEATS];     /* matches finished first */
    uint32_t advance;                /* how many go through (2 seats: 1) */
    bool through[JA_MAX_SEATS];      /* goes through (once decided) */
    int32_t winner;                  /* the best member; two seats: the slot going
                                        through; -1 while undecided */
    bool bye, played;                /* a bye; played and decided */
} ladder_ko_tie;

/* The knockout of plan p after hist: two seats, the bracket, every tie of
 * every round, round by round, position by position (P/2 + P/4 + ... + 1 =
 * P - 1 of them, P the power of two at or above N); K seats, the tables
 * then the byes of each round, as far as the results tell (the rounds
 * after the first undecided one are not known yet). A winner is known
 * when the last entry is of the last round (ladder_rounds_total) and
 * decided. On JA_OK *out is a new array of *n_out ties (free()). */
int ladder_knockout_bracket(const ladder_plan_params *p, const ladder_played *hist,
                            uint32_t n_hist, ladder_ko_tie **out, uint32_t *n_out);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_PAIRING_H */
