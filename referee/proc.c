/* Bot processes (proc.h). posix_spawn, not fork: the arena has threads (the
 * hub, match workers), and posix_spawn leaves nothing to run between fork
 * and exec in a copy of a threaded process. */
#include "proc.h"
#include "sandbox_prog.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef JA_INSTALL_REAP_REL
#define JA_INSTALL_REAP_REL "../lib/jackarena/ja_reap"
#endif

/* How long the keeper waits for its bot's processes, told SIGTERM, when the
 * arena has died (it then has no one to tell it to go on). */
#define REAP_GRACE_MS 2000
/* How long the keeper may take to kill what is left once told twice. */
#define REAP_KILL_MS 10000

extern char **environ;

struct ref_tail {
    pthread_mutex_t mu;
    size_t cap, len;       /* len <= cap bytes kept, oldest first */
    char *buf;
    /* What came since the last ref_tail_take: its first REF_TAIL_FRESH
     * bytes, and whether more came. */
    size_t fresh_len;
    bool fresh_cut;
    char fresh[REF_TAIL_FRESH];
    /* The pipe read into the tail (-1: none) and the wake pipe of its
     * reader (ref_tail_sync reads the pipe too, under mu, so that a byte
     * is either still in the pipe or already here). */
    int fd, wake_fd;
    /* Bytes read but not yet copied to our stderr (the reader copies them,
     * never holding mu while it writes); past ECHO_MAX they are dropped. */
    size_t echo_len;
    char *echo;
};

struct ref_proc {
    pid_t pid;
    bool reaped;
    int status;
    /* With a tail: the pipe's read end, the reader thread, and the pipe
     * that tells it to finish (poll, since closing a descriptor does not
     * wake a thread blocked on it). */
    ref_tail *tail;
    int out_fd, wake[2];
    pthread_t reader;
    bool reading;
    /* Output held back from our stderr (ref_proc_spawn_tail's hold) until
     * ref_proc_release; guarded by mu. */
    pthread_mutex_t mu;
    bool hold;
    char *held;
    size_t held_len;
};

/* Bytes of output held back at most: past it, the output is let through. */
#define HELD_MAX (64 * 1024)
/* Bytes of output waiting for the reader to copy them to our stderr. */
#define ECHO_MAX (64 * 1024)

int ref_tail_new(size_t cap, ref_tail **out)
{
    *out = NULL;
    ref_tail *t = ja_xcalloc(1, sizeof *t);
    char *buf = ja_xmalloc(cap);
    pthread_mutex_init(&t->mu, NULL);
    t->echo = ja_xmalloc(ECHO_MAX);
    t->fd = -1;
    t->wake_fd = -1;
    t->cap = cap;
    t->buf = buf;
    *out = t;
    return JA_OK;
}

/* Puts the n bytes at b into t, whose mu the caller holds. */
static void tail_put_locked(ref_tail *t, const char *b, size_t n)
{
    if (n >= t->cap) {
        memcpy(t->buf, b + n - t->cap, t->cap);
        t->len = t->cap;
    } else {
        if (t->len + n > t->cap) {
            size_t drop = t->len + n - t->cap;
            memmove(t->buf, t->buf + drop, t->len - drop);
            t->len -= drop;
        }
        memcpy(t->buf + t->len, b, n);
        t->len += n;
    }
    size_t room = sizeof t->fresh - t->fresh_len, k = n < room ? n : room;
    memcpy(t->fresh + t->fresh_len, b, k);
    t->fresh_len += k;
    t->fresh_cut |= k < n;
    room = ECHO_MAX - t->echo_len;
    k = n < room ? n : room;
    memcpy(t->echo + t->echo_len, b, k);
    t->echo_len += k;
}

/* Reads what fd holds now, at most max bytes, into t (mu held); false at
 * the end of the pipe or on an error other than "nothing yet". */
static bool tail_read_locked(ref_tail *t, int fd, size_t max)
{
    char b[4096];
    while (max > 0) {
        ssize_t n = read(fd, b, max < sizeof b ? max : sizeof b);
        if (n > 0) {
            tail_put_locked(t, b, (size_t)n);
            max -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
    return true;
}

size_t ref_tail_take(ref_tail *t, char *buf, size_t cap, bool *cut)
{
    pthread_mutex_lock(&t->mu);
    size_t n = t->fresh_len < cap ? t->fresh_len : cap;
    memcpy(buf, t->fresh, n);
    *cut = t->fresh_cut || n < t->fresh_len;
    t->fresh_len = 0;
    t->fresh_cut = false;
    pthread_mutex_unlock(&t->mu);
    return n;
}

/* The pipe read into t is fd, its reader woken through wake_fd (attach:
 * the newest process writing into t is the one synced), or no longer fd
 * (detach, before fd is closed). */
static void tail_fd(ref_tail *t, int fd, int wake_fd, bool attach)
{
    pthread_mutex_lock(&t->mu);
    if (attach) {
        t->fd = fd;
        t->wake_fd = wake_fd;
    } else if (t->fd == fd) {
        t->fd = -1;
        t->wake_fd = -1;
    }
    pthread_mutex_unlock(&t->mu);
}

void ref_tail_sync(ref_tail *t)
{
    pthread_mutex_lock(&t->mu);
    int avail = 0;
    if (t->fd >= 0 && ioctl(t->fd, FIONREAD, &avail) == 0 && avail > 0) {
        tail_read_locked(t, t->fd, (size_t)avail);
        if (t->echo_len && t->wake_fd >= 0) {
            ssize_t w = write(t->wake_fd, "e", 1); /* full: the reader is due anyway */
            (void)w;
        }
    }
    pthread_mutex_unlock(&t->mu);
}

size_t ref_tail_get(ref_tail *t, char *buf, size_t cap)
{
    if (!cap)
        return 0;
    pthread_mutex_lock(&t->mu);
    size_t n = t->len < cap - 1 ? t->len : cap - 1;
    memcpy(buf, t->buf + t->len - n, n);
    pthread_mutex_unlock(&t->mu);
    buf[n] = '\0';
    return n;
}

void ref_tail_destroy(ref_tail **t)
{
    if (!t || !*t)
        return;
    pthread_mutex_destroy(&(*t)->mu);
    free((*t)->echo);
    free((*t)->buf);
    free(*t);
    *t = NULL;
}

/* Our stderr gets the n bytes at b, or, while output is held, the held
 * buffer does (all of it goes out at once when it would overflow). */
static void pass_on(ref_proc *p, const char *b, size_t n)
{
    pthread_mutex_lock(&p->mu);
    if (p->hold && p->held_len + n <= HELD_MAX) {
        memcpy(p->held + p->held_len, b, n);
        p->held_len += n;
    } else {
        if (p->hold && p->held_len) {
            ssize_t w = write(2, p->held, p->held_len);
            (void)w;
        }
        p->hold = false;
        p->held_len = 0;
        ssize_t w = write(2, b, n);
        (void)w;
    }
    pthread_mutex_unlock(&p->mu);
}

/* Whether the reader was told to finish: reads its wake pipe, where
 * ref_tail_sync's 'e' only asks it to copy what it read to our stderr. */
static bool told_to_finish(int wake)
{
    char b[64];
    bool finish = false;
    ssize_t n;
    while ((n = read(wake, b, sizeof b)) > 0 || (n < 0 && errno == EINTR))
        for (ssize_t i = 0; i < n; i++)
            finish |= b[i] == 'x';
    return finish;
}

/* Copies the process's output into its tail and to our stderr until the
 * pipe ends or it is told to finish; then takes what is left unblocked.
 * The pipe is read under the tail's lock, our stderr written without it. */
static void *reader_main(void *arg)
{
    ref_proc *p = arg;
    ref_tail *t = p->tail;
    char *out = ja_xmalloc(ECHO_MAX);
    bool finish = false;
    for (;;) {
        struct pollfd pf[2] = {{p->out_fd, POLLIN, 0}, {p->wake[0], POLLIN, 0}};
        if (poll(pf, 2, finish ? 0 : -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pf[1].revents)
            finish |= told_to_finish(p->wake[0]);
        pthread_mutex_lock(&t->mu);
        bool open = !(pf[0].revents || finish) || tail_read_locked(t, p->out_fd, 4096);
        size_t n = t->echo_len;
        memcpy(out, t->echo, n);
        t->echo_len = 0;
        pthread_mutex_unlock(&t->mu);
        if (n)
            pass_on(p, out, n);
        if (!open || (finish && !n && !pf[0].revents))
            break;
    }
    free(out);
    return NULL;
}

/* Stops the reader thread (the process is gone or killed) and closes the
 * pipes. */
static void reader_stop(ref_proc *p)
{
    if (p->reading) {
        ssize_t w = write(p->wake[1], "x", 1);
        (void)w;
        pthread_join(p->reader, NULL);
        p->reading = false;
    }
    if (p->tail) {
        tail_fd(p->tail, p->out_fd, -1, false);
        close(p->out_fd);
        close(p->wake[0]);
        close(p->wake[1]);
        p->tail = NULL;
    }
}

int ref_proc_spawn(const char *command, const char *const *env, size_t n_env, ref_proc **out,
                   char *err, size_t cap)
{
    return ref_proc_spawn_tail(command, env, n_env, NULL, false, out, err, cap);
}

static void proc_free(ref_proc *p)
{
    pthread_mutex_destroy(&p->mu);
    free(p->held);
    free(p);
}

int ref_proc_spawn_tail(const char *command, const char *const *env, size_t n_env,
                        ref_tail *tail, bool hold, ref_proc **out, char *err, size_t cap)
{
    return ref_proc_spawn_via(NULL, command, env, n_env, tail, hold, out, err, cap);
}

/* A process record, with the buffer of held output when its output is
 * held (without that buffer, the output just goes through). */
static ref_proc *proc_new(bool hold)
{
    ref_proc *p = ja_xcalloc(1, sizeof *p);
    if (hold) {
        p->held = ja_xmalloc(HELD_MAX);
        p->hold = true;
    }
    pthread_mutex_init(&p->mu, NULL);
    return p;
}

/* The child's environment: ours, with the n_env variables of env in place
 * of any inherited ones of the same name. The strings are borrowed. */
static char **child_env(const char *const *env, size_t n_env)
{
    size_t n_base = 0;
    while (environ[n_base])
        n_base++;
    char **envp = ja_xcalloc(n_base + n_env + 1, sizeof *envp);
    size_t k = 0;
    for (size_t i = 0; i < n_base; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t klen = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        bool replaced = false;
        for (size_t j = 0; j < n_env && !replaced; j++)
            replaced = strncmp(env[j], environ[i], klen) == 0 && env[j][klen] == '=';
        if (!replaced)
            envp[k++] = environ[i];
    }
    for (size_t j = 0; j < n_env; j++)
        envp[k++] = (char *)env[j];
    envp[k] = NULL;
    return envp;
}

/* The pipe of the child's output (out_pipe) and the reader's wake pipe
 * (p->wake). 0, or the errno of the failure, nothing left open. */
static int open_pipes(ref_proc *p, int out_pipe[2])
{
    if (pipe2(out_pipe, O_CLOEXEC) == 0 && pipe2(p->wake, O_CLOEXEC) == 0)
        return 0;
    int e = errno;
    if (out_pipe[0] >= 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
    }
    return e;
}

/* What the child starts with: stdin from /dev/null, stdout on stderr, which
 * is the write end out_w of the output pipe when there is one (else ours),
 * no other descriptor; its own process group; no signal blocked or
 * ignored. */
static void spawn_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, int out_w)
{
    posix_spawn_file_actions_init(fa);
    posix_spawnattr_init(at);
    posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
    if (out_w >= 0) /* dup2 clears close-on-exec on the copies */
        posix_spawn_file_actions_adddup2(fa, out_w, 2);
    posix_spawn_file_actions_adddup2(fa, 2, 1);
    posix_spawn_file_actions_addclosefrom_np(fa, 3);
    posix_spawnattr_setpgroup(at, 0);
    /* Handlers never survive exec, but ignored signals would: reset those. */
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    const int reset[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof reset / sizeof *reset; i++)
        sigaddset(&dfl, reset[i]);
    posix_spawnattr_setsigmask(at, &none);
    posix_spawnattr_setsigdefault(at, &dfl);
    posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                     POSIX_SPAWN_SETSIGDEF);
}

/* The keeper's argument vector: ja_reap --parent PID --grace-ms MS --
 * LAUNCHER... COMMAND, or ... -- /bin/sh -c COMMAND (malloc'ed, the strings
 * borrowed but for the keeper's own, which follow it in the same block). */
static char **keeper_argv(const char *reap, const char *const *launcher, const char *command)
{
    size_t n_launch = 0;
    while (launcher && launcher[n_launch])
        n_launch++;
    size_t n = 6 + (n_launch ? n_launch : 3) + 2;
    char **argv = ja_xcalloc(1, n * sizeof *argv + 2 * 24);
    char *parent = (char *)(argv + n), *grace = parent + 24;
    snprintf(parent, 24, "%ld", (long)getpid());
    snprintf(grace, 24, "%d", REAP_GRACE_MS);
    size_t k = 0;
    const char *head[] = {reap, "--parent", parent, "--grace-ms", grace, "--"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        argv[k++] = (char *)head[i];
    const char *sh[] = {"/bin/sh", "-c", NULL};
    const char *const *run = n_launch ? launcher : sh;
    for (size_t i = 0; run[i]; i++)
        argv[k++] = (char *)run[i];
    argv[k++] = (char *)command;
    argv[k] = NULL;
    return argv;
}

/* Starts the child, ja_reap keeping /bin/sh -c COMMAND, or LAUNCHER...
 * COMMAND, into p->pid. 0 or an errno. */
static int spawn_child(ref_proc *p, const char *reap, const char *const *launcher,
                       const char *command, char **envp, int out_w)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    spawn_setup(&fa, &at, out_w);
    char **argv = keeper_argv(reap, launcher, command);
    int rc = posix_spawn(&p->pid, reap, &fa, &at, argv, envp);
    free(argv);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return rc;
}

/* Starts the child, its output into a pipe (p->wake too) when piped.
 * 0 with p->pid and *out_fd (the pipe's read end, or -1), or an errno with
 * no pipe left open. */
static int start_child(ref_proc *p, const char *reap, const char *const *launcher,
                       const char *command, char **envp, bool piped, int *out_fd)
{
    int out_pipe[2] = {-1, -1};
    int rc = piped ? open_pipes(p, out_pipe) : 0;
    if (rc != 0)
        return rc;
    rc = spawn_child(p, reap, launcher, command, envp, out_pipe[1]);
    if (piped) {
        close(out_pipe[1]); /* the child's copies are the only writers now */
        if (rc != 0) {
            close(out_pipe[0]);
            close(p->wake[0]);
            close(p->wake[1]);
        }
    }
    *out_fd = out_pipe[0];
    return rc;
}

int ref_proc_spawn_via(const char *const *launcher, const char *command, const char *const *env,
                       size_t n_env, ref_tail *tail, bool hold, ref_proc **out, char *err,
                       size_t cap)
{
    *out = NULL;
    char reap[PATH_MAX];
    ref_sandbox_program("JACKARENA_REAP", "ja_reap", JA_INSTALL_REAP_REL, reap, sizeof reap);
    if (access(reap, X_OK) != 0) {
        snprintf(err, cap, "cannot start '%s': the keeper of bot processes %s is missing (%s); "
                 "set JACKARENA_REAP", command, reap, strerror(errno));
        return JA_EIO;
    }
    ref_proc *p = proc_new(tail && hold);
    char **envp = child_env(env, n_env);
    int out_fd;
    int rc = start_child(p, reap, launcher, command, envp, tail != NULL, &out_fd);
    free(envp);
    if (rc != 0) {
        snprintf(err, cap, "cannot start '%s': %s", command, strerror(rc));
        proc_free(p);
        return JA_EIO;
    }
    if (tail) {
        p->tail = tail;
        p->out_fd = out_fd;
        fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK);
        fcntl(p->wake[0], F_SETFL, fcntl(p->wake[0], F_GETFL) | O_NONBLOCK);
        fcntl(p->wake[1], F_SETFL, fcntl(p->wake[1], F_GETFL) | O_NONBLOCK);
        p->reading = pthread_create(&p->reader, NULL, reader_main, p) == 0;
        if (p->reading)
            tail_fd(tail, out_fd, p->wake[1], true);
    }
    *out = p;
    return JA_OK;
}

int ref_proc_pid(const ref_proc *p)
{
    return (int)p->pid;
}

void ref_proc_release(ref_proc *p, bool echo)
{
    /* Gone: everything it wrote is in the pipe; take it all first. */
    if (ref_proc_exited(p, NULL, 0))
        reader_stop(p);
    pthread_mutex_lock(&p->mu);
    if (p->hold && echo && p->held_len) {
        ssize_t w = write(2, p->held, p->held_len);
        (void)w;
    }
    p->hold = false;
    p->held_len = 0;
    pthread_mutex_unlock(&p->mu);
}

int ref_proc_exit_code(ref_proc *p)
{
    if (!ref_proc_exited(p, NULL, 0) || !WIFEXITED(p->status))
        return -1;
    return WEXITSTATUS(p->status);
}

static void describe(int status, char *how, size_t cap)
{
    if (!how)
        return;
    if (WIFEXITED(status))
        snprintf(how, cap, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(how, cap, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(how, cap, "stopped");
}

bool ref_proc_exited(ref_proc *p, char *how, size_t cap)
{
    if (!p->reaped) {
        int st;
        pid_t r = waitpid(p->pid, &st, WNOHANG);
        if (r == p->pid || (r < 0 && errno == ECHILD)) {
            p->reaped = true;
            p->status = r == p->pid ? st : 0;
        }
    }
    if (p->reaped)
        describe(p->status, how, cap);
    return p->reaped;
}

/* Polls until every process has exited or ms milliseconds have passed. */
static bool wait_all(ref_proc **ps, size_t n, int ms)
{
    for (int waited = 0;; waited += 10) {
        bool all = true;
        for (size_t i = 0; i < n; i++)
            if (ps[i] && !ref_proc_exited(ps[i], NULL, 0))
                all = false;
        if (all)
            return true;
        if (waited >= ms)
            return false;
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* Signals each keeper that is still running (sig) or, group, each keeper's
 * process group. */
static void signal_all(ref_proc **ps, size_t n, int sig, bool group)
{
    for (size_t i = 0; i < n; i++)
        if (ps[i] && !ref_proc_exited(ps[i], NULL, 0))
            kill(group ? -ps[i]->pid : ps[i]->pid, sig);
}

/* The keeper (ja_reap) stops its bot: a first SIGTERM sends SIGTERM to
 * every process of the bot, a second kills them all; it exits once none is
 * left. Killing the keeper's group is the last resort of a keeper that
 * does not answer. */
void ref_proc_stop_all(ref_proc **ps, size_t n, int grace_ms)
{
    if (!wait_all(ps, n, grace_ms)) {
        signal_all(ps, n, SIGTERM, false);
        if (!wait_all(ps, n, grace_ms)) {
            signal_all(ps, n, SIGTERM, false);
            if (!wait_all(ps, n, REAP_KILL_MS)) {
                signal_all(ps, n, SIGKILL, true);
                wait_all(ps, n, 60000); /* SIGKILL cannot be refused */
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!ps[i])
            continue;
        reader_stop(ps[i]);
        ref_proc_release(ps[i], true);
        proc_free(ps[i]);
        ps[i] = NULL;
    }
}

void ref_proc_stop(ref_proc **pp, int grace_ms)
{
    if (pp)
        ref_proc_stop_all(pp, 1, grace_ms);
}
