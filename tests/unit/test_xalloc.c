/* The harness's allocator (sdk/xalloc/ja_xalloc.h): what it gives, and,
 * made to fail at its N-th call (JA_XALLOC_FAIL_AT), one line on standard
 * error naming the program and the size, then exit status 1, in a child
 * process; nothing else printed, no signal. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ja_xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs calls allocations of n bytes in a child with JA_XALLOC_FAIL_AT=at:
 * its exit status and its standard error. */
static int child(const char *at, int calls, size_t n, char *err, size_t cap)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        setenv("JA_XALLOC_FAIL_AT", at, 1);
        for (int i = 0; i < calls; i++) {
            char *p = i % 3 == 0 ? ja_xmalloc(n) : i % 3 == 1 ? ja_xcalloc(n, 1)
                                                              : ja_xrealloc(NULL, n);
            p[0] = 1;
            free(p);
        }
        _exit(0);
    }
    close(fd[1]);
    ssize_t k, len = 0;
    while ((k = read(fd[0], err + len, cap - 1 - (size_t)len)) > 0)
        len += k;
    err[len] = '\0';
    close(fd[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st)); /* never a signal */
    return WEXITSTATUS(st);
}

static void test_gives(void **state)
{
    (void)state;
    char *p = ja_xmalloc(0), *q = ja_xcalloc(4, 8), *d = ja_xstrdup("jack");
    assert_non_null(p);
    for (int i = 0; i < 32; i++)
        assert_int_equal(((char *)q)[i], 0);
    q = ja_xrealloc(q, 4096);
    assert_string_equal(d, "jack");
    free(p);
    free(q);
    free(d);
}

static void test_fails_in_one_line(void **state)
{
    (void)state;
    char err[512];
    /* Past the last call: nothing fails. */
    assert_int_equal(child("9", 5, 100, err, sizeof err), 0);
    assert_string_equal(err, "");
    /* The third call (a realloc) fails: one line, status 1. */
    assert_int_equal(child("3", 5, 777, err, sizeof err), 1);
    assert_non_null(strstr(err, "out of memory (777 bytes)\n"));
    assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
    assert_int_equal(strncmp(err, "test_xalloc: ", 13), 0);
    /* The first. */
    assert_int_equal(child("1", 5, 5, err, sizeof err), 1);
    assert_non_null(strstr(err, "out of memory (5 bytes)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* First: the children inherit the parent's reading of the
         * variable, made at its first call. */
        cmocka_unit_test(test_fails_in_one_line),
        cmocka_unit_test(test_gives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
