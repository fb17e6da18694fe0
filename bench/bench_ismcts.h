/* The benchmark's "bots" section (bench_ismcts.c): ISMCTS and greedy. */
#ifndef JA_BENCH_ISMCTS_H
#define JA_BENCH_ISMCTS_H

#include <stdint.h>
#include <stdio.h>

/* Writes "## ISMCTS" to md: iterations per second of the ismcts bot
 * (bots_dir/ja_ismcts.so) in every game, random and greedy playouts. */
void bench_ismcts(FILE *md, const char *bots_dir);

/* Writes "## Greedy" to md: the mean and the worst time of a decision of
 * the greedy bot (bots_dir/ja_greedy.so) in `matches` four-seat team
 * matches of Jack in the Box, variant v3, and records them as rows (the
 * worst against its target, <= 5 ms). Returns 0, or 1 after a message on
 * stderr. */
int bench_greedy_worst(FILE *md, const char *bots_dir, uint32_t matches);

#endif /* JA_BENCH_ISMCTS_H */
