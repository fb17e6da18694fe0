/* The "report" section of docs/performance.md (bench_report.c). */
#ifndef JA_BENCH_REPORT_H
#define JA_BENCH_REPORT_H

#include <stdint.h>
#include <stdio.h>

/* For every game: a tournament of `rounds` rounds between `random` bots at
 * the game's fewest seats with replays, then `arena report` of its
 * database (the arena program beside ../arena of this program); records
 * the largest match page's bytes beyond the replay data it holds (target
 * <= 100 KB)
 * and the index page's bytes, and writes the section into md. Returns 0,
 * or 1 after a message on stderr. */
int bench_report_site(FILE *md, uint32_t rounds);

#endif /* JA_BENCH_REPORT_H */
