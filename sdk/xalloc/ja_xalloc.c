/* The harness's allocator (ja_xalloc.h). */
/* program_invocation_short_name: _GNU_SOURCE, defined for every file by the build */
#include "ja_xalloc.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* JA_XALLOC_FAIL_AT, read at the first call (0: none). */
static atomic_ullong calls;
static atomic_ullong fail_at = ~0ULL;

static int failing(void)
{
    unsigned long long at = atomic_load(&fail_at);
    if (at == ~0ULL) {
        const char *v = getenv("JA_XALLOC_FAIL_AT");
        at = v && *v ? strtoull(v, NULL, 10) : 0;
        atomic_store(&fail_at, at);
    }
    return at && atomic_fetch_add(&calls, 1) + 1 == at;
}

void ja_xalloc_fail(size_t n)
{
    char line[160];
    int len = snprintf(line, sizeof line, "%s: out of memory (%zu bytes)\n",
                       program_invocation_short_name, n);
    /* write(2), not stdio: nothing more is allocated, and nothing of the
     * process's buffers is flushed half-way. */
    if (len > 0 && write(STDERR_FILENO, line, (size_t)len) < 0)
        (void)0;
    _exit(1);
}

void *ja_xmalloc(size_t n)
{
    void *p = failing() ? NULL : malloc(n ? n : 1);
    if (p == NULL)
        ja_xalloc_fail(n);
    return p;
}

void *ja_xcalloc(size_t n, size_t size)
{
    void *p = failing() ? NULL : calloc(n ? n : 1, size ? size : 1);
    if (p == NULL)
        ja_xalloc_fail(n * size);
    return p;
}

void *ja_xrealloc(void *old, size_t n)
{
    void *p = failing() ? NULL : realloc(old, n ? n : 1);
    if (p == NULL)
        ja_xalloc_fail(n);
    return p;
}

char *ja_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = ja_xmalloc(n);
    memcpy(p, s, n);
    return p;
}
