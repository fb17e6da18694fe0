/* The "Serve" section of docs/performance.md (bench_serve.c). */
#ifndef JA_BENCH_SERVE_H
#define JA_BENCH_SERVE_H

#include <stdio.h>

/* Runs tests/serve/test_serve_load.py in its --bench mode (an `arena serve`
 * of the arena in arena_dir, NULL: ../arena beside this program; the
 * reference bots random and greedy of bots_dir uploaded): matches recorded
 * per second with 0 spectators, then with 1,000 (tests/serve/crowd.py:
 * each an open /api/events stream from an address of its own, GET / once
 * and /api/ladder every 10 s), the crowd's own CPU, and the server's RSS
 * with the crowd connected, at its peak and at the end; writes the section
 * into md and its rows (the ratio judged against 0.8); 0. Without python3 or
 * the script: one line saying what is missing into md and
 * BENCH_SECTION_SKIPPED (bench_slurm.h). 1 after a message when the run
 * fails. */
int bench_serve(FILE *md, const char *arena_dir, const char *bots_dir);

#endif /* JA_BENCH_SERVE_H */
