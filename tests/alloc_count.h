/* Counting allocations in a test binary linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc: every call goes through
 * these wrappers, which count it in g_allocs and call the real function.
 * Include once, in the test's one source file (it defines the wrappers). */
#ifndef JA_TEST_ALLOC_COUNT_H
#define JA_TEST_ALLOC_COUNT_H

#include <stddef.h>

static long g_allocs;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
    g_allocs++;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
    g_allocs++;
    return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
    g_allocs++;
    return __real_realloc(p, n);
}

#endif
