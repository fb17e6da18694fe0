/* Unit tests of the crash line of in-process plugins (referee/plugin_guard.h)
 * and of the names of act()'s error codes (ref_error_name, replay.h).
 *
 * Each signal case runs in a child process (fork), its stderr in a pipe:
 * - inside a guarded call a signal writes the one prepared line, then the
 *   child dies of that very signal;
 * - outside one the handler steps aside: the disposition that was there
 *   before it takes the signal, a sent one (raise) and a fault alike (a
 *   real write through a null pointer, which runs again into the old
 *   handler), and nothing is written;
 * - a thread of its own gets an alternate stack: a stack overflow in a
 *   guarded call still has its line.
 * The real plugins and the arena's exit status are tests/cli/test_crash.sh's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plugin_guard.h"
#include "replay.h"

#include "jackarena/ja_error.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a child did: how it ended and what it wrote on stderr. */
typedef struct outcome {
    int status;
    char err[2048];
} outcome;

/* Runs fn in a child whose stderr is a pipe read here. */
static outcome run_child(void (*fn)(void))
{
    outcome o;
    memset(&o, 0, sizeof o);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none); /* the crashes are meant */
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t n;
    while (len < sizeof o.err - 1 && (n = read(fds[0], o.err + len, sizeof o.err - 1 - len)) > 0)
        len += (size_t)n;
    close(fds[0]);
    assert_int_equal(waitpid(pid, &o.status, 0), pid);
    return o;
}

static void dies_of(const outcome *o, int sig)
{
    if (!WIFSIGNALED(o->status) || WTERMSIG(o->status) != sig)
        fail_msg("expected death by signal %d, status 0x%x, stderr: %s", sig, o->status, o->err);
}

/* The default disposition for every guarded signal, so that what the
 * guard steps aside for is known (a sanitizer's runtime or cmocka may have
 * their own). Each child installs the guard afresh after it: the parent
 * never does. */
static void defaults(void)
{
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
}

static ref_guard guard;

static void prepare(void)
{
    ref_guard_set(&guard, "crash", "seat 1, match 't1-m3'", "./crash.so:how=segv");
}

/* ---- the line ------------------------------------------------------------- */

static void test_line(void **state)
{
    (void)state;
    prepare();
    /* What ref_guard_enter sets (not called here: it installs the
     * handlers, which the children below must install themselves). */
    guard.call = "act()";
    guard.decision = 12;
    char buf[1400];
    size_t n = ref_guard_line(&guard, SIGSEGV, buf, sizeof buf);
    buf[n] = '\0';
    char want[1400];
    snprintf(want, sizeof want,
             "%s: bot 'crash' (seat 1, match 't1-m3', decision 12) crashed with SIGSEGV "
             "(invalid memory access) in act(), and takes the %s process with it (in-process "
             "plugins share it): run it as hosted:./crash.so:how=segv to contain a crash (a "
             "fault of its seat there, and the match goes on)\n",
             program_invocation_short_name, program_invocation_short_name);
    assert_string_equal(buf, want);
    /* No decision outside act(); every signal named. */
    guard.call = "create()";
    guard.decision = 0;
    n = ref_guard_line(&guard, SIGABRT, buf, sizeof buf);
    buf[n] = '\0';
    assert_non_null(strstr(buf, "(seat 1, match 't1-m3') crashed with SIGABRT (abort) in create()"));
    int sigs[] = {SIGBUS, SIGFPE, SIGILL};
    const char *names[] = {"SIGBUS (bus error)", "SIGFPE (arithmetic error)",
                           "SIGILL (illegal instruction)"};
    for (int i = 0; i < 3; i++) {
        n = ref_guard_line(&guard, sigs[i], buf, sizeof buf);
        buf[n] = '\0';
        assert_non_null(strstr(buf, names[i]));
    }
    /* A name with a newline stays one line. */
    ref_guard_set(&guard, "two\nlines", "seat 0, match 'x'", "./a\rb.so");
    n = ref_guard_line(&guard, SIGSEGV, buf, sizeof buf);
    assert_ptr_equal(memchr(buf, '\n', n), buf + n - 1);
    assert_null(memchr(buf, '\r', n));
    /* A buffer too small is filled, never overrun. */
    memset(buf, 'x', sizeof buf);
    assert_int_equal(ref_guard_line(&guard, SIGSEGV, buf, 10), 10);
    assert_int_equal(buf[10], 'x');
}

/* g's line and want's are the same, for each signal, at each decision and
 * in a buffer too short for either. */
static void assert_same_lines(ref_guard *g, ref_guard *want)
{
    static const int sigs[] = {SIGSEGV, SIGABRT, SIGUSR1};
    static const uint32_t decisions[] = {0, 12};
    char a[1400], b[1400];
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        for (size_t d = 0; d < 2; d++)
            for (size_t cap = 20; cap <= sizeof a; cap += sizeof a - 20) {
                /* What ref_guard_enter sets (not called: the test above). */
                g->call = want->call = "act()";
                g->decision = want->decision = decisions[d];
                size_t n = ref_guard_line(g, sigs[i], a, cap);
                assert_int_equal(n, ref_guard_line(want, sigs[i], b, cap));
                assert_memory_equal(a, b, n);
            }
}

/* A seat's guard (ref_guard_set_seat, at every match) writes the line
 * ref_guard_set makes of the same parts, though it composes nothing until
 * then; a long or unclean match id cut and cleaned as a what part is. */
static void test_seat_line(void **state)
{
    (void)state;
    static ref_guard like, seat, want;
    ref_guard_set(&like, "", "", "./crash.so:how=segv");
    const struct {
        const char *name;
        int32_t seat;
        const char *id, *what;
    } cases[] = {
        {"crash", 1, "t1-m3", "seat 1, match 't1-m3'"},
        {"a\tb", 11, "x\ny", "seat 11, match 'x\ny'"},
        {"c", -1, NULL, "seat -1, match ''"},
        {"d", 2147483647, "z", "seat 2147483647, match 'z'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ref_guard_set_seat(&seat, cases[i].name, cases[i].seat, cases[i].id, &like);
        ref_guard_set(&want, cases[i].name, cases[i].what, "./crash.so:how=segv");
        assert_same_lines(&seat, &want);
    }
    /* A match id past the what part's 159 bytes is cut there; a name past
     * 127 bytes at 127. */
    char id[400], what[420], name[300];
    memset(id, 'i', sizeof id - 1);
    id[sizeof id - 1] = '\0';
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    snprintf(what, sizeof what, "seat 3, match '%s'", id);
    ref_guard_set_seat(&seat, name, 3, id, &like);
    ref_guard_set(&want, name, what, "./crash.so:how=segv");
    assert_same_lines(&seat, &want);
    char line[1400];
    size_t n = ref_guard_line(&seat, SIGSEGV, line, sizeof line - 1);
    line[n] = '\0';
    assert_non_null(strstr(line, "(seat 3, match 'iii"));
    assert_null(strstr(line, id));
    /* A guard set again after a seat's is the plain one. */
    ref_guard_set(&seat, "e", "being loaded", "./x.so");
    n = ref_guard_line(&seat, SIGSEGV, line, sizeof line - 1);
    line[n] = '\0';
    assert_non_null(strstr(line, "bot 'e' (being loaded) crashed with SIGSEGV"));
    assert_non_null(strstr(line, "hosted:./x.so to contain"));
}

/* ---- signals, in children ---------------------------------------------------- */

static void guarded_raise(void)
{
    defaults();
    ref_guard_install();
    prepare();
    ref_guard_enter(&guard, "act()", 7);
    raise(SIGBUS);
}

static void test_guarded_signal(void **state)
{
    (void)state;
    outcome o = run_child(guarded_raise);
    dies_of(&o, SIGBUS);
    assert_non_null(strstr(o.err, "bot 'crash' (seat 1, match 't1-m3', decision 7) crashed "
                                  "with SIGBUS (bus error) in act()"));
    assert_ptr_equal(strchr(o.err, '\n'), o.err + strlen(o.err) - 1); /* one line */
}

static void unguarded_raise(void)
{
    defaults();
    ref_guard_install();
    prepare();
    ref_guard_enter(&guard, "act()", 7);
    ref_guard_leave();
    raise(SIGABRT);
}

static void test_unguarded_signal(void **state)
{
    (void)state;
    outcome o = run_child(unguarded_raise);
    dies_of(&o, SIGABRT);
    assert_string_equal(o.err, "");
}

/* The handler that was there before the guard's. */
static void old_handler(int sig)
{
    static const char msg[] = "old handler\n";
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0)
        _exit(40);
    _exit(sig == SIGSEGV ? 42 : 41);
}

static void unguarded_fault(void)
{
    defaults();
    signal(SIGSEGV, old_handler);
    ref_guard_install();
    volatile uintptr_t low = 16; /* unmapped, and not null (UBSan would report null) */
    *(volatile int *)low = 1;    /* a real fault, outside any guarded call */
}

static void test_unguarded_fault_goes_to_old_handler(void **state)
{
    (void)state;
    outcome o = run_child(unguarded_fault);
    assert_true(WIFEXITED(o.status));
    assert_int_equal(WEXITSTATUS(o.status), 42);
    assert_string_equal(o.err, "old handler\n");
}

/* Unbounded recursion, which the compiler keeps as recursion. */
static int deep(volatile char *up, int n)
{
    volatile char frame[2048];
    if (n < 0)
        return 0;
    frame[0] = up ? up[0] : (char)n;
    return deep(frame, n + 1) + frame[0];
}

static void *overflow_thread(void *arg)
{
    (void)arg;
    prepare();
    ref_guard_enter(&guard, "act()", 3);
    deep(NULL, 0);
    return NULL;
}

static void overflow_in_thread(void)
{
    defaults();
    ref_guard_install();
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 256 * 1024);
    pthread_t t;
    if (pthread_create(&t, &at, overflow_thread, NULL) == 0)
        pthread_join(t, NULL);
}

static void test_stack_overflow_in_a_thread(void **state)
{
    (void)state;
    outcome o = run_child(overflow_in_thread);
    dies_of(&o, SIGSEGV);
    assert_non_null(strstr(o.err, "(seat 1, match 't1-m3', decision 3) crashed with SIGSEGV"));
}

/* ---- error names ------------------------------------------------------------- */

static void test_error_names(void **state)
{
    (void)state;
    char buf[REF_ERROR_NAME_MAX];
    assert_string_equal(ref_error_name(JA_EINVAL, buf), "JA_EINVAL");
    assert_string_equal(ref_error_name(JA_EBOT, buf), "JA_EBOT");
    assert_string_equal(ref_error_name(JA_EMISMATCH, buf), "JA_EMISMATCH");
    assert_string_equal(ref_error_name(7, buf), "code 7");
    assert_string_equal(ref_error_name(-99, buf), "code -99");
    assert_string_equal(ref_error_name(INT32_MIN, buf), "code -2147483648");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line),
        cmocka_unit_test(test_seat_line),
        cmocka_unit_test(test_guarded_signal),
        cmocka_unit_test(test_unguarded_signal),
        cmocka_unit_test(test_unguarded_fault_goes_to_old_handler),
        cmocka_unit_test(test_stack_overflow_in_a_thread),
        cmocka_unit_test(test_error_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
