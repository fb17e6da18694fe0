/* The "Scale" section of docs/performance.md (bench_scale.c). */
#ifndef JA_BENCH_SCALE_H
#define JA_BENCH_SCALE_H

#include <stdio.h>

/* Runs the scale measurements with the arena and referee programs of
 * arena_dir (NULL: ../arena beside this program) and writes the section
 * into md. */
void bench_scale(FILE *md, const char *arena_dir);

#endif /* JA_BENCH_SCALE_H */
