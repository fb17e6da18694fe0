/* The "Hosted bots" section of docs/performance.md (bench_hosted.c). */
#ifndef JA_BENCH_HOSTED_H
#define JA_BENCH_HOSTED_H

#include <stdio.h>

/* Measures decisions/s of `random` as hosted bots (sandboxed children)
 * against the same plugin in-process and against a raw socketpair round
 * trip of act_bytes out and action_bytes back, in matches of the first
 * game; writes a "## Hosted bots" section to md and a summary to stderr.
 * bots_dir holds ja_random.so. Returns 0, or 1 after a message on stderr. */
int bench_hosted(FILE *md, const char *bots_dir, double act_bytes, double action_bytes);

#endif /* JA_BENCH_HOSTED_H */
