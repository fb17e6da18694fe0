/* The "Slurm" section of docs/performance.md (bench_slurm.c). */
#ifndef JA_BENCH_SLURM_H
#define JA_BENCH_SLURM_H

#include <stdio.h>

/* A section that could not be measured here (bench_slurm's return): its
 * text in md is the reason, and the page keeps the section's earlier
 * figures beside it (ja_bench.c, write_page). */
#define BENCH_SECTION_SKIPPED 2

/* With root and Slurm's daemons and client commands installed: starts the
 * private cluster of tests/slurm/cluster.sh, runs the same tournament with
 * --jobs 1, --slurm 4 and --slurm-workers 2 (the arena of arena_dir, NULL:
 * ../arena beside this program), stops the cluster and writes the section
 * into md; 0. Without them: one line saying what is missing into md and
 * BENCH_SECTION_SKIPPED. 1 after a message when a run fails. */
int bench_slurm(FILE *md, const char *arena_dir);

#endif /* JA_BENCH_SLURM_H */
