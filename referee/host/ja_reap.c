/* ja_reap: the keeper of a `cmd:` bot's processes (referee/proc.c starts
 * every bot process through it). It runs the bot's command as its child and
 * makes sure that nothing the command starts outlives it: not a process
 * that left the bot's process group or session (setsid), not a daemon whose
 * parent exited, not a grandchild that would act later.
 *
 * How: it is a child subreaper (PR_SET_CHILD_SUBREAPER), so every orphan of
 * the bot's processes is reparented to it, whatever group or session it
 * is in; its descendants are then exactly the processes whose chain of
 * parents leads to it (/proc/PID/stat), and it can signal all of them. It
 * stops them all
 *
 *   - when the command's own process exits (a bot that said bye, crashed
 *     or refused its parameters): the rest is told SIGTERM, then SIGKILL
 *     after --grace-ms;
 *   - when asked (SIGTERM, SIGINT or SIGHUP: the arena stops the bot): the
 *     same, and a second such signal goes on to SIGKILL at once;
 *   - when the arena dies, even by SIGKILL (PR_SET_PDEATHSIG): the same.
 *
 * Once no descendant is left, it exits as the command's process did (its
 * exit status, or killed by the same signal), so the arena sees the bot's
 * own end. Why a keeper per bot and not the arena as the subreaper:
 * docs/security.md, "Nothing left behind".
 *
 * Usage: ja_reap --parent PID [--grace-ms MS] -- PROGRAM [ARG]...
 * PID is the arena's (its death stops the bot). Exit status 125 when it
 * cannot start (one line on stderr), 127 when PROGRAM cannot be run;
 * otherwise the command's. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_REAP 125
#define KILL_POLL_MS 10 /* between the passes that kill what is left */

__attribute__((format(printf, 1, 2))) _Noreturn static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ja_reap: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(EXIT_REAP);
}

static long num_arg(const char *opt, const char *s, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end || v < 0 || v > max)
        fail("%s needs a whole number from 0 to %ld, not '%s'", opt, max, s);
    return v;
}

/* ---- the descendants ------------------------------------------------------- */

typedef struct procs {
    pid_t *pid, *ppid;
    bool *mine;
    size_t n, cap;
} procs;

/* The parent of pid from /proc/PID/stat ("PID (COMM) STATE PPID ..."; COMM
 * may hold spaces and parentheses), or -1 when it is gone. */
static pid_t parent_of(const char *pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *close = strrchr(buf, ')');
    long ppid;
    if (!close || sscanf(close + 1, " %*c %ld", &ppid) != 1)
        return -1;
    return (pid_t)ppid;
}

static bool grow(procs *ps)
{
    size_t cap = ps->cap ? 2 * ps->cap : 1024;
    pid_t *pid = realloc(ps->pid, cap * sizeof *pid);
    if (pid)
        ps->pid = pid;
    pid_t *ppid = realloc(ps->ppid, cap * sizeof *ppid);
    if (ppid)
        ps->ppid = ppid;
    bool *mine = realloc(ps->mine, cap * sizeof *mine);
    if (mine)
        ps->mine = mine;
    if (!pid || !ppid || !mine)
        return false;
    ps->cap = cap;
    return true;
}

/* Every process now, with its parent. */
static void scan(procs *ps)
{
    ps->n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        pid_t pp = parent_of(e->d_name);
        if (pp < 0)
            continue; /* gone meanwhile */
        if (ps->n == ps->cap && !grow(ps))
            break; /* what was read is still signalled; the next pass sees more */
        ps->pid[ps->n] = (pid_t)atol(e->d_name);
        ps->ppid[ps->n++] = pp;
    }
    closedir(d);
}

/* Sends sig to every descendant of this process; returns how many there
 * were. A process forked meanwhile is a child of one of them (or, its
 * parent gone, of this process): the next pass finds it. */
static size_t signal_descendants(procs *ps, int sig)
{
    scan(ps);
    pid_t self = getpid();
    for (size_t i = 0; i < ps->n; i++)
        ps->mine[i] = ps->ppid[i] == self;
    for (bool more = true; more;) {
        more = false;
        for (size_t i = 0; i < ps->n; i++)
            for (size_t j = 0; !ps->mine[i] && j < ps->n; j++)
                if (ps->mine[j] && ps->ppid[i] == ps->pid[j])
                    ps->mine[i] = more = true;
    }
    size_t n = 0;
    for (size_t i = 0; i < ps->n; i++)
        if (ps->mine[i] && ps->pid[i] != self) {
            kill(ps->pid[i], sig);
            n++;
        }
    return n;
}

/* ---- the keeper ---------------------------------------------------------------- */

enum { RUNNING, TERMINATING, KILLING };

typedef struct keeper {
    pid_t parent, child;
    long grace_ms;
    int phase;
    bool child_done, any_left;
    int child_status;
    struct timespec deadline;    /* TERMINATING: when SIGKILL follows */
    procs ps;
} keeper;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reaps every child that has ended; any_left says whether one remains. */
static void reap(keeper *k)
{
    for (;;) {
        int st;
        pid_t r = waitpid(-1, &st, WNOHANG);
        if (r == k->child) {
            k->child_done = true;
            k->child_status = st;
        }
        if (r > 0)
            continue;
        k->any_left = !(r < 0 && errno == ECHILD);
        return;
    }
}

static void terminate(keeper *k)
{
    if (k->phase != RUNNING)
        return;
    k->phase = TERMINATING;
    int64_t at = now_ms() + k->grace_ms;
    k->deadline.tv_sec = at / 1000;
    k->deadline.tv_nsec = (at % 1000) * 1000000;
    signal_descendants(&k->ps, SIGTERM);
}

/* How long to wait for the next signal: forever while running, until the
 * deadline while terminating, a short poll while killing. */
static bool wait_for(const keeper *k, struct timespec *ts)
{
    int64_t ms = KILL_POLL_MS;
    if (k->phase == RUNNING)
        return false;
    if (k->phase == TERMINATING) {
        ms = (int64_t)k->deadline.tv_sec * 1000 + k->deadline.tv_nsec / 1000000 - now_ms();
        if (ms < 0)
            ms = 0;
    }
    ts->tv_sec = ms / 1000;
    ts->tv_nsec = (ms % 1000) * 1000000;
    return true;
}

/* Ends as the command's process ended: its exit status, or its signal
 * (without a core file of this process). */
_Noreturn static void exit_as(int st)
{
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(sig, SIG_DFL);
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, sig);
        sigprocmask(SIG_UNBLOCK, &s, NULL);
        kill(getpid(), sig);
        exit(128 + sig);
    }
    exit(WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_REAP);
}

static void keep(keeper *k, const sigset_t *watched)
{
    for (;;) {
        reap(k);
        if (k->child_done && !k->any_left)
            exit_as(k->child_status);
        if (k->child_done)
            terminate(k); /* the bot is gone: so is what it left */
        if (k->phase == KILLING)
            signal_descendants(&k->ps, SIGKILL);
        struct timespec ts;
        siginfo_t si;
        int sig = wait_for(k, &ts) ? sigtimedwait(watched, &si, &ts) : sigwaitinfo(watched, &si);
        if (sig == SIGUSR1 && getppid() == k->parent)
            continue; /* a thread of the arena ended, not the arena */
        if (sig == SIGUSR1 || sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
            if (k->phase == RUNNING)
                terminate(k);
            else
                k->phase = KILLING;
        } else if (sig < 0 && errno == EAGAIN && k->phase == TERMINATING) {
            k->phase = KILLING; /* the grace is over */
        }
    }
}

int main(int argc, char **argv)
{
    static keeper k; /* static: its buffers stay reachable until exit */
    k.grace_ms = 2000;
    k.parent = -1;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) { /* OPTION VALUE */
        if (i + 1 >= argc)
            fail("%s needs a value", argv[i]);
        if (strcmp(argv[i], "--parent") == 0)
            k.parent = (pid_t)num_arg(argv[i], argv[i + 1], INT32_MAX);
        else if (strcmp(argv[i], "--grace-ms") == 0)
            k.grace_ms = num_arg(argv[i], argv[i + 1], 86400000);
        else
            fail("unknown option '%s' (run by the arena: docs/security.md)", argv[i]);
    }
    if (i + 1 >= argc || k.parent <= 0)
        fail("usage: ja_reap --parent PID [--grace-ms MS] -- PROGRAM [ARG]... (run by the arena)");
    char **command = argv + i + 1;

    sigset_t watched, old;
    sigemptyset(&watched);
    const int sigs[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1};
    for (size_t s = 0; s < sizeof sigs / sizeof *sigs; s++)
        sigaddset(&watched, sigs[s]);
    sigprocmask(SIG_BLOCK, &watched, &old);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0) != 0)
        fail("cannot keep the bot's processes: %s", strerror(errno));
    k.child = fork();
    if (k.child < 0)
        fail("cannot start the bot: %s", strerror(errno));
    if (k.child == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        execvp(command[0], command);
        fprintf(stderr, "ja_reap: cannot run '%s': %s\n", command[0], strerror(errno));
        _exit(127);
    }
    if (getppid() != k.parent)
        terminate(&k); /* the arena died before it could tell us */
    keep(&k, &watched);
}
