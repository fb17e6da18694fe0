/* The benchmark's ISMCTS section (bench_ismcts.c). */
#ifndef JA_BENCH_ISMCTS_H
#define JA_BENCH_ISMCTS_H

#include <stdio.h>

/* Writes "## ISMCTS" to md: iterations per second of the ismcts bot
 * (bots_dir/ja_ismcts.so) in every game, random and greedy playouts. */
void bench_ismcts(FILE *md, const char *bots_dir);

#endif /* JA_BENCH_ISMCTS_H */
