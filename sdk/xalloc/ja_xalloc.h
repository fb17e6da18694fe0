/* The harness's allocator (docs/architecture.md, "Out of memory"): the
 * arena, the referee worker, the referee and ladder libraries and the
 * benchmark allocate through these instead of malloc and its kin. Out of
 * memory, each says so in one line on standard error ("PROGRAM: out of
 * memory (N bytes)") and ends the process with status 1, so no caller has
 * an out-of-memory branch of its own that no test would ever take. Nothing
 * is left half-written by that end: every output file is written under a
 * temporary name and renamed when complete (referee/outfile.h), every
 * ladder result is its own transaction, and a stopped tournament resumes.
 *
 * Not for the SDK that bots link (sdk/src, sdk/rules, the runtime, the
 * client): a bot's library never ends its host; those return JA_ENOMEM.
 *
 * For the tests, JA_XALLOC_FAIL_AT=N (N >= 1) makes the N-th call of the
 * process fail, as memory running out there would. */
#ifndef JA_XALLOC_H
#define JA_XALLOC_H

#include <stddef.h>

void *ja_xmalloc(size_t n);
void *ja_xcalloc(size_t n, size_t size);
void *ja_xrealloc(void *p, size_t n);
char *ja_xstrdup(const char *s);
/* Never returns: the one line, then _exit(1). */
void ja_xalloc_fail(size_t n) __attribute__((noreturn));

#endif /* JA_XALLOC_H */
