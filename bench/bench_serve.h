/* The "Serve" section of docs/performance.md (bench_serve.c). */
#ifndef JA_BENCH_SERVE_H
#define JA_BENCH_SERVE_H

#include <stdio.h>

/* Runs tests/serve/test_serve_load.py in its --bench mode (an `arena serve`
 * of the arena in arena_dir, NULL: ../arena beside this program; the
 * reference bots random and greedy of bots_dir uploaded): matches recorded
 * per second with 0 spectators, then with 50 (each an open /api/events
 * stream plus GET / and /api/ladder every half second), and the server's
 * peak RSS; writes the section into md and its rows; 0. Without python3 or
 * the script: one line saying what is missing into md and
 * BENCH_SECTION_SKIPPED (bench_slurm.h). 1 after a message when the run
 * fails. */
int bench_serve(FILE *md, const char *arena_dir, const char *bots_dir);

#endif /* JA_BENCH_SERVE_H */
