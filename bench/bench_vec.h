/* The benchmark's "vecenv" section (bench_vec.c): the batched training
 * environments (ja_vec_env.h) against the bare engine. */
#ifndef JA_BENCH_VEC_H
#define JA_BENCH_VEC_H

#include "jackarena/ja_rules.h"

#include <stdint.h>
#include <stdio.h>

/* The bare engine's decisions per second, in its thread's CPU time, in g
 * with seats seats over matches seeded random matches (ja_bench.c
 * measures it). */
typedef double (*bench_engine_rate_fn)(const ja_game_rules *g, uint32_t seats, uint32_t matches);

/* Writes "## Batched environments" to md: environment steps per second at
 * batch 1, 64 and 1024 in every game (its fewest seats), in self-play and
 * with the learner in seat 0 and bots_dir/ja_random.so in every other,
 * against engine(g, seats, matches) measured beside them, and records the
 * rows (the batch of 1024 against its target, at least 0.3 of the engine,
 * and its engine decisions/s), both in the calling thread's CPU time;
 * then the batch of 1024 on 2 threads against one, in wall time (not
 * judged). Returns 0, or 1 after a message on stderr. */
int bench_vec(FILE *md, const char *bots_dir, uint32_t matches, bench_engine_rate_fn engine);

#endif /* JA_BENCH_VEC_H */
