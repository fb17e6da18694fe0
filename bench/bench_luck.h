/* The benchmark's "luck" section (bench_luck.c): what the luck adjustment
 * (arena/view/adjust.h, docs/ratings.md) saves and costs in every game. */
#ifndef JA_BENCH_LUCK_H
#define JA_BENCH_LUCK_H

#include <stdint.h>
#include <stdio.h>

/* Writes "## Luck adjustment" to md: per game, a duplicate tournament of
 * `deals` deals of the random against the greedy reference bot (`arena
 * tournament --duplicate`, replays kept in a scratch directory), every
 * replay adjusted in this process with docs/ratings.md's recommended
 * settings; rows: the adjusted over the raw variance of the score
 * difference on duplicate deals (target at most 0.5) and per match, and
 * the adjustment's CPU time per match. Returns 0, or 1 after a message on
 * stderr. */
int bench_luck(FILE *md, uint32_t deals);

#endif /* JA_BENCH_LUCK_H */
