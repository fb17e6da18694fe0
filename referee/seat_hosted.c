/* The `hosted` seat: a bot plugin run in a sandboxed child process.
 *
 * Every match seat is played by a child, the program ja_host
 * (host/ja_host.c), started with posix_spawn (the arena has threads: nothing runs between
 * fork and exec) with an empty environment, an AF_UNIX SOCK_SEQPACKET
 * socket on its fd 3 (one packet, one msgpack message of the wire protocol)
 * and its stdout and stderr on a pipe, of which the seat keeps the last
 * HOSTED_TAIL bytes (stderr_tail). The child limits itself (RLIMIT_*,
 * no_new_privs, seccomp) before it runs a line of the bot's; the referee
 * trusts nothing it says but its answers, and those only as data.
 *
 * Time: a decision has its limit L (move_ms). The answer counts if it came
 * within L of wall time, or later but within L of the child's CPU time
 * (measured here, from the child's CPU clock, never from the child): on a
 * busy machine a bot is not charged for the time it was not running. The
 * hard stop is wall time 2 L + 100 ms after the ask, or CPU time L,
 * whichever comes first: the child is then killed (SIGKILL) and the fault
 * is `timeout`. With no limit (--move-ms 0), the hard stop is
 * HOSTED_NOLIMIT_S of wall time and RLIMIT_CPU backstops the match.
 *
 * Death: once the child has died or been killed, the rest of the match's
 * decisions of this seat are faults of the same kind without asking (the
 * match loop forfeits the bot past --max-faults). SIGSYS (the seccomp
 * filter), SIGXCPU/SIGXFSZ (RLIMIT_CPU, RLIMIT_FSIZE), SIGKILL not sent by
 * us (RLIMIT_CPU's hard limit, the OOM killer) and exit 99 (memory
 * exhausted, ja_host's own diagnosis) are `resource`; exit 6 (ja_host
 * could not use the channel: the bot closed fd 3) and a channel closed by
 * a child that lives on are `disconnect`; any other signal or exit is
 * `crash`.
 *
 * Answers: ja_host answers every `act` once, in order, but the bot is the
 * child's process and can write packets of its own on fd 3. So an answer
 * is matched to the pending decision by match and turn. Bytes that are no
 * message are `malformed`; a message of the wrong type or match, or an
 * `action` for a turn that is neither the pending one nor owed (below), is
 * `protocol`; each such packet decides the pending decision with its fault,
 * and the child's own answer to that decision, still to come, is then
 * owed: when it arrives (while a later decision is pending) it is
 * discarded, noted in the output tail, and reading goes on. An `action`
 * for the pending turn is the bot's answer, whoever in its process wrote
 * it: `error` when it carries `error` (act() returned one), `illegal` out
 * of range, else applied. A packet the bot forges therefore costs exactly
 * the one fault it is charged (the child's own answer that it displaced
 * counts against nothing), and never shifts a later answer.
 *
 * Reuse: a child whose match ended cleanly serves the next match of the
 * same bot (docs/security.md, "Reuse of a child"). At `end` it runs the
 * bot's end() and destroy() and says x_ready; seat_close puts it in the
 * bot's pool (at most HOSTED_POOL, oldest dropped) unless the seat had any
 * fault, the match did not end, an answer is still owed, it used more than
 * the match's CPU budget or it has served HOSTED_REUSE_MAX matches (ja_host
 * then exits at `end`). The next seat_open takes a pooled child only once
 * its x_ready came and nothing else did, raises its RLIMIT_CPU soft limit
 * to the CPU time it has used (whole seconds, up) plus the budget, and
 * sends start; any failure kills that child and tries the next, then a
 * fresh one. Two seats of a match never share a child (a child returns to
 * the pool only when its seat closes, after the match). The children's
 * hard CPU limit is HOSTED_REUSE_MAX (S + 1): the per-match hard limit,
 * S + 1 seconds, is the referee's, checked at every ask (hosted_ask).
 *
 * Threading: a seat is used by one thread; seats share nothing mutable but
 * the bot's pool (pool_lock). Every child is reaped in seat_close, at its
 * death, or, idle in the pool, in the bot's destroy, so none outlives its
 * bot. */
#include "elf_check.h"
#include "ja_mp.h"
#include "sandbox_prog.h"
#include "seat.h"
#include "wire.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_params.h"
#include "jackarena/ja_rng.h"
#include "ja_xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOSTED_TAIL (64 * 1024)       /* bytes of a child's output kept */
#define HOSTED_STARTUP_MS 10000       /* exec, load and hello */
#define HOSTED_NOLIMIT_S 60           /* wall hard stop with no move limit */
#define HOSTED_MARGIN_MS 100          /* hard stop: 2 L + this */
#define HOSTED_OWED 64                /* answers owed to closed decisions */
#define HOSTED_POOL 16                /* idle children kept per bot */
#define HOSTED_REUSE_MAX 64           /* matches one child may serve */
#define HOSTED_EXIT_LOAD 2
#define HOSTED_EXIT_VERSION 3
#define HOSTED_EXIT_CHANNEL 6
#define HOSTED_EXIT_RESOURCE 99

typedef struct hosted_bot {
    ref_bot base;
    char path[PATH_MAX];              /* absolute: the child's working directory differs */
    char given[PATH_MAX];             /* as the user wrote it, for messages */
    char sha256[65];
    char name[REF_WIRE_NAME_MAX], version[REF_WIRE_VERSION_MAX + 256];
    char params[JA_PARAMS_MAX];       /* handed to every child: ja_host --params */
    uint32_t n_games;
    char games[REF_WIRE_MAX_GAMES][REF_WIRE_NAME_MAX];
    char mem_mb[24], cpu_s[24];       /* ja_host arguments */
    uint64_t cpu_limit_s;             /* cpu_s as a number; 0 = none */
    bool reuse;                       /* JACKARENA_HOSTED_REUSE (default on) */
    /* Children whose match ended cleanly, each on its way to x_ready (see
     * "Reuse" above), oldest first. */
    pthread_mutex_t pool_lock;
    struct child *pool[HOSTED_POOL];
    uint32_t n_pool;
} hosted_bot;

/* A running child: its pid, channel, output pipe and CPU clock. */
typedef struct child {
    pid_t pid;
    bool reaped, killed;
    int status;
    int sock, out;
    clockid_t cpu;
    bool have_cpu;
    uint32_t matches;                 /* matches started in this child */
    uint64_t seeds[HOSTED_REUSE_MAX]; /* their match seeds (deals), in order */
    int64_t cpu_base_ns;              /* its CPU time when the match started */
    char tail[HOSTED_TAIL];
    size_t tail_len;
} child;

typedef struct hosted_seat {
    ref_seat base;
    hosted_bot *hb;
    child *c;
    const ja_game_rules *g;
    char match[REF_WIRE_MATCH_MAX];
    uint32_t move_ms;      /* the match's per-decision limit (told at start) */
    uint32_t allow_ms;     /* the pending decision's allowance; 0 = none */
    uint32_t turn, n_legal;
    int64_t cpu0_ns;
    ja_fault dead;                    /* != NONE: every further decision */
    bool faulted;                     /* a fault of any kind: never reused */
    bool ended;                       /* the end was sent */
    bool keep_log;                    /* the match keeps logs (ref_seat_ctx.logs) */
    ja_declog declog;                 /* the log of the last answer, until taken */
    /* Turns decided by a packet that was not the child's answer, whose
     * answer is still to come (oldest first; past HOSTED_OWED the oldest
     * is forgotten, and its answer then counts as a stray packet). */
    uint32_t owed[HOSTED_OWED];
    uint32_t n_owed;
    msgpack_sbuffer sb;
    ref_wire_msg msg;                 /* the last message decoded */
    char in[REF_WIRE_MAX_IN + 1];
} hosted_seat;

static const ref_bot_ops hosted_ops;

/* ---- the host program ---------------------------------------------------- */

#ifndef JA_INSTALL_HOST_REL
#define JA_INSTALL_HOST_REL "../lib/jackarena/ja_host"
#endif

static char host_prog[PATH_MAX];
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void find_program(void)
{
    ref_sandbox_program("JACKARENA_HOST", "ja_host", JA_INSTALL_HOST_REL, host_prog,
                        sizeof host_prog);
}

const char *ref_hosted_program(void)
{
    pthread_once(&host_once, find_program);
    return host_prog;
}

/* ---- children ------------------------------------------------------------ */

/* Keeps the last HOSTED_TAIL bytes of the child's output. */
static void tail_add(child *c, const char *p, size_t n)
{
    if (n >= HOSTED_TAIL) {
        p += n - HOSTED_TAIL;
        n = HOSTED_TAIL;
    }
    if (c->tail_len + n > HOSTED_TAIL) {
        size_t drop = c->tail_len + n - HOSTED_TAIL;
        memmove(c->tail, c->tail + drop, c->tail_len - drop);
        c->tail_len -= drop;
    }
    memcpy(c->tail + c->tail_len, p, n);
    c->tail_len += n;
}

/* Reads what the child wrote so far (the pipe is non-blocking). */
static void drain_output(child *c)
{
    char buf[4096];
    for (int i = 0; c->out >= 0 && i < 64; i++) {
        ssize_t n = read(c->out, buf, sizeof buf);
        if (n > 0) {
            tail_add(c, buf, (size_t)n);
            continue;
        }
        if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            close(c->out);
            c->out = -1;
        }
        if (n == 0 || errno != EINTR)
            break;
    }
}

static void note(child *c, const char *msg)
{
    tail_add(c, msg, strlen(msg));
}

static _Atomic uint64_t children_started;

uint64_t ref_hosted_children_started(void)
{
    return children_started;
}

/* Starts ja_host for plugin hb; reusable: for seats (may serve
 * HOSTED_REUSE_MAX matches when hb->reuse), not for the probe. JA_OK, or
 * JA_EIO/JA_ENOMEM with err. */
static int child_start(const hosted_bot *hb, child *c, bool reusable, char *err, size_t cap)
{
    memset(c, 0, sizeof *c);
    c->sock = c->out = -1;
    c->pid = -1;
    int sv[2], pp[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(err, cap, "hosted bot %s: socketpair: %s", hb->name, strerror(errno));
        return JA_EIO;
    }
    if (pipe2(pp, O_CLOEXEC) != 0) {
        snprintf(err, cap, "hosted bot %s: pipe: %s", hb->name, strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return JA_EIO;
    }
    /* dup2(3, 3) would leave close-on-exec set: move the child's end off 3. */
    if (sv[1] == 3) {
        int moved = fcntl(sv[1], F_DUPFD_CLOEXEC, 4);
        close(sv[1]);
        sv[1] = moved;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pp[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pp[1], 2);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
    posix_spawn_file_actions_addclosefrom_np(&fa, 4);
    /* Its own process group (a terminal's ^C is the arena's to handle);
     * signal dispositions and mask back to the defaults. */
    sigset_t none, dfl;
    sigemptyset(&none);
    sigfillset(&dfl);
    sigdelset(&dfl, SIGKILL);
    sigdelset(&dfl, SIGSTOP);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &dfl);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
    const char *prog = ref_hosted_program();
    char matches[16];
    snprintf(matches, sizeof matches, "%d", reusable && hb->reuse ? HOSTED_REUSE_MAX : 1);
    char *argv[] = {"ja_host", "--mem-mb", (char *)hb->mem_mb, "--cpu-s", (char *)hb->cpu_s,
                    "--matches", matches, "--params", (char *)hb->params, (char *)hb->path,
                    NULL};
    /* Nothing of the arena's environment (tokens, keys) reaches the bot. */
    char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    int rc = posix_spawn(&c->pid, prog, &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(sv[1]);
    close(pp[1]);
    if (rc != 0) {
        snprintf(err, cap, "hosted bot %s: cannot start %s: %s (set JACKARENA_HOST?)",
                 hb->name, prog, strerror(rc));
        close(sv[0]);
        close(pp[0]);
        c->pid = -1;
        return rc == ENOMEM ? JA_ENOMEM : JA_EIO;
    }
    children_started++;
    c->sock = sv[0];
    c->out = pp[0];
    fcntl(c->out, F_SETFL, O_NONBLOCK);
    c->have_cpu = clock_getcpuclockid(c->pid, &c->cpu) == 0;
    return JA_OK;
}

/* CPU time the child has used, in ns (0 when unknown). */
static int64_t child_cpu_ns(const child *c)
{
    struct timespec ts;
    if (!c->have_cpu || c->reaped || clock_gettime(c->cpu, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void child_reap(child *c, bool block)
{
    if (c->pid <= 0 || c->reaped)
        return;
    int st;
    pid_t r;
    do
        r = waitpid(c->pid, &st, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == c->pid || (r < 0 && errno == ECHILD)) {
        c->reaped = true;
        c->status = r == c->pid ? st : 0;
    }
}

static void child_kill(child *c)
{
    if (c->pid > 0 && !c->reaped) {
        kill(c->pid, SIGKILL);
        c->killed = true;
        child_reap(c, true);
    }
}

/* The channel closed: the child died (or closed it and lives on, then it is
 * killed). Waits a little for the exit status: a process's descriptors
 * close a moment before it becomes a zombie. */
static void child_gone(child *c)
{
    for (int i = 0; i < 200 && !c->reaped; i++) {
        child_reap(c, false);
        if (!c->reaped) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
    if (!c->reaped) {
        child_kill(c);
        c->killed = false; /* not our limit's doing: the bot broke the channel */
        c->status = -1;
    }
    drain_output(c);
}

/* The fault of a dead child (see the file comment). */
static ja_fault death_fault(child *c)
{
    int st = c->status;
    if (st == -1) {
        note(c, "ja_host: the bot closed its channel\n");
        return JA_FAULT_DISCONNECT;
    }
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        char line[160];
        const char *what = sigdescr_np(sig); /* strsignal is not thread-safe */
        snprintf(line, sizeof line, "ja_host: killed by signal %d (%s)%s\n", sig,
                 what ? what : "unknown",
                 sig == SIGSYS ? ": a system call the sandbox forbids" : "");
        note(c, line);
        if (sig == SIGSYS || sig == SIGXCPU || sig == SIGXFSZ || sig == SIGKILL)
            return JA_FAULT_RESOURCE;
        return JA_FAULT_CRASH;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == HOSTED_EXIT_RESOURCE) {
        note(c, "ja_host: memory limit reached\n");
        return JA_FAULT_RESOURCE;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == HOSTED_EXIT_CHANNEL) {
        note(c, "ja_host: the bot closed its channel\n");
        return JA_FAULT_DISCONNECT;
    }
    char line[80];
    snprintf(line, sizeof line, "ja_host: exited with status %d\n",
             WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    note(c, line);
    return JA_FAULT_CRASH;
}

static void child_close(child *c)
{
    child_kill(c);
    if (c->sock >= 0)
        close(c->sock);
    if (c->out >= 0)
        close(c->out);
    c->sock = c->out = -1;
}

/* One message from the child by wall deadline until_ns, draining its output
 * meanwhile. Returns the length (> 0), 0 when the channel closed, -1 at the
 * deadline, -2 for a message too long. When cpu_limit_ns > 0, also -1 once
 * the child has used that much CPU since cpu0_ns, read at asked_ns: its CPU
 * clock (a system call) is read only once the wall time since then leaves
 * that open (ref_cpu_within: the child is one thread). */
static ssize_t child_recv(child *c, char *buf, size_t cap, int64_t until_ns, int64_t asked_ns,
                          int64_t cpu0_ns, int64_t cpu_limit_ns)
{
    /* Poll in slices so that a CPU overrun is seen within a slice. */
    int64_t slice_ns = cpu_limit_ns ? cpu_limit_ns / 20 : 50000000;
    if (slice_ns < 1000000)
        slice_ns = 1000000;
    for (;;) {
        int64_t now = ref_now_ns();
        if (now >= until_ns)
            return -1;
        if (cpu_limit_ns &&
            !ref_cpu_within((uint64_t)(now - asked_ns) / 1000, (uint64_t)cpu_limit_ns / 1000) &&
            child_cpu_ns(c) - cpu0_ns > cpu_limit_ns)
            return -1;
        int64_t wait = until_ns - now < slice_ns ? until_ns - now : slice_ns;
        struct pollfd pf[2] = {{c->sock, POLLIN, 0}, {c->out, POLLIN, 0}};
        int r = poll(pf, c->out >= 0 ? 2 : 1, (int)((wait + 999999) / 1000000));
        if (r < 0 && errno != EINTR)
            return 0;
        if (c->out >= 0 && pf[1].revents)
            drain_output(c);
        if (pf[0].revents) {
            ssize_t n = recv(c->sock, buf, cap, MSG_DONTWAIT | MSG_TRUNC);
            if (n < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (n <= 0)
                return 0;
            return (size_t)n > cap ? -2 : n;
        }
    }
}

/* ---- loading ------------------------------------------------------------- */

/* A limit from the environment: the default when unset; false when bad. */
static bool env_limit(const char *name, unsigned long def, char out[24], char *err, size_t cap)
{
    const char *v = getenv(name);
    unsigned long n = def;
    if (v && *v) {
        char *end;
        errno = 0;
        n = strtoul(v, &end, 10);
        if (errno || *end || v[0] == '-' || n > 1000000) {
            snprintf(err, cap, "%s='%s': give a whole number from 0 to 1000000", name, v);
            return false;
        }
    }
    snprintf(out, 24, "%lu", n);
    return true;
}

/* ja_host's load error in the child's output: the last line that starts
 * "bot plugin '" (a constructor may have written before it), else the
 * first line, else "". */
static void load_error_line(const child *c, char *out, size_t cap)
{
    const char *p = c->tail, *end = c->tail + c->tail_len, *pick = NULL;
    size_t pick_len = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (!pick || (n >= 12 && memcmp(p, "bot plugin '", 12) == 0)) {
            pick = p;
            pick_len = n;
        }
        p += n + 1;
    }
    snprintf(out, cap, "%.*s", (int)pick_len, pick ? pick : "");
}

/* Waits for the child's hello. JA_OK with *msg, or a load error with err. */
static int read_hello(const hosted_bot *hb, child *c, char *buf, size_t cap, ref_wire_msg *msg,
                      char *err, size_t ecap)
{
    ssize_t n = child_recv(c, buf, cap - 1, ref_now_ns() + (int64_t)HOSTED_STARTUP_MS * 1000000,
                           0, 0, 0);
    if (n > 0) {
        char why[200] = "not a hello";
        if (ref_wire_decode(buf, (size_t)n, msg, why, sizeof why) == JA_OK &&
            msg->type == REF_WIRE_HELLO) {
            if (!msg->has_error)
                return JA_OK;
            /* The bot refused its parameters (x_params_error): its reason,
             * one line (the decoder cut it), for the caller to attribute. */
            snprintf(err, ecap, "%s", msg->error);
            return JA_EINVAL;
        }
        snprintf(err, ecap, "bot plugin '%s': the hosted child sent no hello (%s)", hb->given,
                 why);
        return JA_EFORMAT;
    }
    if (n == -1) {
        child_kill(c);
        snprintf(err, ecap, "bot plugin '%s': the hosted child did not start within %d ms",
                 hb->given, HOSTED_STARTUP_MS);
        return JA_EFORMAT;
    }
    child_gone(c);
    char line[1100];
    load_error_line(c, line, sizeof line);
    int st = c->status;
    if (st != -1 && WIFEXITED(st) &&
        (WEXITSTATUS(st) == HOSTED_EXIT_LOAD || WEXITSTATUS(st) == HOSTED_EXIT_VERSION) &&
        line[0]) {
        /* The child names the absolute path; say it as the user did. */
        char prefix[PATH_MAX + 16];
        snprintf(prefix, sizeof prefix, "bot plugin '%s'", hb->path);
        size_t pl = strlen(prefix);
        if (strncmp(line, prefix, pl) == 0)
            snprintf(err, ecap, "bot plugin '%s'%s", hb->given, line + pl);
        else
            snprintf(err, ecap, "%s", line);
        if (strstr(line, "__asan") || strstr(line, "__ubsan")) {
            size_t used = strlen(err);
            snprintf(err + used, ecap - used, " (a sanitized plugin cannot run hosted; "
                                              "docs/security.md)");
        }
        return WEXITSTATUS(st) == HOSTED_EXIT_VERSION ? JA_EVERSION : JA_EFORMAT;
    }
    ja_fault f = death_fault(c);
    snprintf(err, ecap, "bot plugin '%s': the hosted child failed while loading (%s%s%s)%s",
             hb->given, ja_fault_name((int)f), line[0] ? ": " : "", line,
             strstr(line, "ASan") ? "; a sanitized plugin cannot run hosted (docs/security.md)"
                                  : "");
    return JA_EFORMAT;
}

/* The plugin file before anything runs it: parameters that fit, a regular
 * file, a complete shared object of this machine (refused with the message
 * an in-process plugin gets). JA_OK, or an error with err. */
static int check_plugin(const char *path, const char *params, char *err, size_t cap)
{
    if (params && strlen(params) >= JA_PARAMS_MAX) {
        snprintf(err, cap, "parameters too long (at most %d bytes)", JA_PARAMS_MAX - 1);
        return JA_EINVAL;
    }
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(err, cap, "bot plugin '%s': %s", path, strerror(errno));
        return JA_ENOTFOUND;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, cap, "bot plugin '%s': not a regular file", path);
        return JA_ENOTFOUND;
    }
    return ref_elf_check(path, err, cap);
}

/* The host program (ja_host), which must be there to run. JA_OK or
 * JA_ENOTFOUND with err. */
static int check_host_program(char *err, size_t cap)
{
    const char *prog = ref_hosted_program();
    if (access(prog, X_OK) != 0) {
        snprintf(err, cap, "hosted: the host program %s is missing (%s); set JACKARENA_HOST",
                 prog, strerror(errno));
        return JA_ENOTFOUND;
    }
    return JA_OK;
}

/* What b knows of its plugin before the probe: its absolute path (the
 * child must find the file whatever its working directory), the path as
 * given, the parameters, the children's limits from the environment, the
 * file's hash, and the path for a name until the hello gives one. JA_OK,
 * or an error with err. */
static int describe_plugin(hosted_bot *b, const char *path, const char *params, char *err,
                           size_t cap)
{
    if (!realpath(path, b->path)) {
        snprintf(err, cap, "bot plugin '%s': %s", path, strerror(errno));
        return JA_ENOTFOUND;
    }
    snprintf(b->given, sizeof b->given, "%s", path);
    snprintf(b->params, sizeof b->params, "%s", params ? params : "");
    char reuse[24];
    if (!env_limit("JACKARENA_HOSTED_MEM_MB", 1024, b->mem_mb, err, cap) ||
        !env_limit("JACKARENA_HOSTED_CPU_S", 300, b->cpu_s, err, cap) ||
        !env_limit("JACKARENA_HOSTED_REUSE", 1, reuse, err, cap))
        return JA_EINVAL;
    b->cpu_limit_s = strtoull(b->cpu_s, NULL, 10);
    b->reuse = strcmp(reuse, "0") != 0;
    if (ref_file_sha256(path, b->sha256) != JA_OK) {
        snprintf(err, cap, "bot plugin '%s': cannot read: %s", path, strerror(errno));
        return JA_ENOTFOUND;
    }
    snprintf(b->name, sizeof b->name, "%s", path);
    return JA_OK;
}

/* The probe: a child that loads the plugin, has it check its parameters,
 * and says hello (with x_params_error for a refusal) into msg; c and buf
 * are its room. JA_OK, or an error with err. */
static int probe(const hosted_bot *b, child *c, char *buf, ref_wire_msg *msg, char *err,
                 size_t cap)
{
    int rc = child_start(b, c, false, err, cap);
    if (rc == JA_OK) {
        rc = read_hello(b, c, buf, REF_WIRE_MAX_IN + 1, msg, err, cap);
        child_close(c);
    }
    return rc;
}

/* Makes b a bot from the probe's hello: its name, its version (with the
 * parameters), its games; its pool and its ops. */
static void take_hello(hosted_bot *b, const ref_wire_msg *msg)
{
    snprintf(b->name, sizeof b->name, "%s", msg->name);
    /* Parameters change how the bot plays: part of its identity, as for
     * in-process plugins (seat_plugin.c). */
    snprintf(b->version, sizeof b->version, "%s%s%s", msg->version[0] ? msg->version : "0",
             b->params[0] ? ":" : "", b->params);
    b->n_games = msg->n_games;
    memcpy(b->games, msg->games, sizeof b->games);
    pthread_mutex_init(&b->pool_lock, NULL);
    b->base.ops = &hosted_ops;
    b->base.info = (ref_bot_info){"hosted", b->name, b->version, b->path, b->sha256};
}

int ref_bot_hosted_open(const char *path, const char *params, ref_bot **out, char *err,
                        size_t cap)
{
    *out = NULL;
    int rc = check_plugin(path, params, err, cap);
    if (rc != JA_OK)
        return rc;
    /* The referee holds every hand: no process of this user (a hosted
     * child's constructor, under the loading filter) may read its memory
     * through /proc/PID/mem or ptrace. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if ((rc = check_host_program(err, cap)) != JA_OK)
        return rc;
    hosted_bot *b = ja_xcalloc(1, sizeof *b);
    child *c = ja_xmalloc(sizeof *c);
    char *buf = ja_xmalloc(REF_WIRE_MAX_IN + 1);
    ref_wire_msg *msg = ja_xcalloc(1, sizeof *msg);
    rc = describe_plugin(b, path, params, err, cap);
    if (rc == JA_OK)
        rc = probe(b, c, buf, msg, err, cap);
    if (rc == JA_OK) {
        take_hello(b, msg);
        *out = &b->base;
        b = NULL;
    }
    free(b);
    free(c);
    free(buf);
    free(msg);
    return rc;
}

/* ---- ops ----------------------------------------------------------------- */

static int hosted_supports(ref_bot *rb, const ja_game_rules *g)
{
    hosted_bot *b = (hosted_bot *)rb;
    for (uint32_t i = 0; i < b->n_games; i++)
        if (strcmp(b->games[i], g->name) == 0)
            return 1;
    return b->n_games == 0;
}

static void send_msg(hosted_seat *s)
{
    if (s->c->sock >= 0)
        (void)send(s->c->sock, s->sb.data, s->sb.size, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* The start message: the protocol's keys the child needs, and the bot's
 * own stream seed (never the match seed, from which the deal follows). The
 * parameters went on the child's command line. */
static void put_start(hosted_seat *s, const ref_seat_ctx *ctx)
{
    msgpack_sbuffer_clear(&s->sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &s->sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 7);
    ja_mp_put_kv_str(&pk, "type", "start");
    ja_mp_put_kv_str(&pk, "match", s->match);
    ja_mp_put_kv_str(&pk, "game", ctx->game->name);
    ja_mp_put_kv_u64(&pk, "seat", (uint64_t)ctx->seat);
    ja_mp_put_kv_u64(&pk, "seats", ctx->n_seats);
    ja_mp_put_kv_u64(&pk, "move_ms", ctx->move_ms);
    ja_mp_put_kv_u64(&pk, "x_seed", ref_bot_seed(ctx->match_seed, ctx->seat));
}

/* Whether child c has played a match of this deal (the rotations of a
 * duplicate deal share their match seed). */
static bool played_deal(const child *c, uint64_t match_seed)
{
    for (uint32_t i = 0; i < c->matches; i++)
        if (c->seeds[i] == match_seed)
            return true;
    return false;
}

/* An idle child of b whose last match ended cleanly, ready for another:
 * its x_ready came (the bot's end() and destroy() returned) and nothing
 * else did, its CPU budget for a new match is set. NULL when there is none
 * (a child that fails any of this is killed). A child never plays a
 * deal twice: what it saw of the deal in one seat would tell it the hidden
 * cards of another. */
static child *pool_take(hosted_bot *b, uint64_t match_seed, char *buf, size_t cap,
                        ref_wire_msg *msg)
{
    for (;;) {
        child *c = NULL;
        pthread_mutex_lock(&b->pool_lock);
        for (uint32_t i = 0; i < b->n_pool && !c; i++)
            if (!played_deal(b->pool[i], match_seed)) {
                c = b->pool[i];
                memmove(b->pool + i, b->pool + i + 1, (--b->n_pool - i) * sizeof *b->pool);
            }
        pthread_mutex_unlock(&b->pool_lock);
        if (!c)
            return NULL;
        ssize_t n = child_recv(c, buf, cap - 1,
                               ref_now_ns() + (int64_t)HOSTED_STARTUP_MS * 1000000, 0, 0, 0);
        char why[200];
        bool ok = n > 0 && ref_wire_decode(buf, (size_t)n, msg, why, sizeof why) == JA_OK &&
                  msg->type == REF_WIRE_OTHER && strcmp(msg->type_name, "x_ready") == 0 &&
                  recv(c->sock, buf, 1, MSG_DONTWAIT | MSG_PEEK) < 0 && errno == EAGAIN;
        drain_output(c);
        /* RLIMIT_CPU counts the child's whole life: the new match gets its
         * JACKARENA_HOSTED_CPU_S from here, in whole seconds (rounded up). */
        int64_t used = child_cpu_ns(c);
        if (ok && b->cpu_limit_s) {
            rlim_t from = (rlim_t)((used + 999999999) / 1000000000);
            struct rlimit rl;
            ok = used > 0 && prlimit(c->pid, RLIMIT_CPU, NULL, &rl) == 0 &&
                 from + b->cpu_limit_s < rl.rlim_max;
            rl.rlim_cur = from + b->cpu_limit_s;
            ok = ok && prlimit(c->pid, RLIMIT_CPU, &rl, NULL) == 0;
        }
        if (ok) {
            c->cpu_base_ns = used;
            c->tail_len = 0; /* the tail is this match's */
            return c;
        }
        child_close(c);
        free(c);
    }
}

/* Whether seat s's child may serve another match (see "Reuse" above). */
static bool reusable(const hosted_seat *s)
{
    const hosted_bot *b = s->hb;
    const child *c = s->c;
    if (!b->reuse || s->dead || s->faulted || !s->ended || s->n_owed || c->reaped ||
        c->sock < 0 || c->matches >= HOSTED_REUSE_MAX)
        return false;
    /* Within the match's CPU budget (else it was sent SIGXCPU and caught it). */
    return !b->cpu_limit_s ||
           child_cpu_ns(c) - c->cpu_base_ns <= (int64_t)b->cpu_limit_s * 1000000000;
}

static void pool_put(hosted_bot *b, child *c)
{
    pthread_mutex_lock(&b->pool_lock);
    child *drop = NULL;
    if (b->n_pool == HOSTED_POOL) {
        drop = b->pool[0];
        memmove(b->pool, b->pool + 1, --b->n_pool * sizeof *b->pool);
    }
    b->pool[b->n_pool++] = c;
    pthread_mutex_unlock(&b->pool_lock);
    if (drop) {
        child_close(drop);
        free(drop);
    }
}

static int hosted_seat_open(ref_bot *rb, const ref_seat_ctx *ctx, ref_seat **out, char *err,
                            size_t cap)
{
    hosted_bot *b = (hosted_bot *)rb;
    hosted_seat *s = ja_xcalloc(1, sizeof *s);
    s->base.bot = rb;
    s->base.seat = ctx->seat;
    s->hb = b;
    s->g = ctx->game;
    s->move_ms = ctx->move_ms;
    s->keep_log = ctx->logs;
    snprintf(s->match, sizeof s->match, "%s", ctx->match_id ? ctx->match_id : "match");
    msgpack_sbuffer_init(&s->sb);
    s->c = pool_take(b, ctx->match_seed, s->in, sizeof s->in, &s->msg);
    if (!s->c) {
        s->c = ja_xmalloc(sizeof *s->c);
        int rc = child_start(b, s->c, true, err, cap);
        if (rc != JA_OK) {
            free(s->c);
            msgpack_sbuffer_destroy(&s->sb);
            free(s);
            return rc;
        }
        /* A child that does not come up is the bot's failure, not the
         * match's: every decision of this seat is then a fault. */
        char why[1200];
        if (read_hello(b, s->c, s->in, sizeof s->in, &s->msg, why, sizeof why) != JA_OK) {
            s->dead = s->c->reaped && !s->c->killed ? death_fault(s->c) : JA_FAULT_CRASH;
            note(s->c, why);
            note(s->c, "\n");
        }
        s->c->cpu_base_ns = 0;
    }
    if (!s->dead) {
        s->c->seeds[s->c->matches++] = ctx->match_seed;
        put_start(s, ctx);
        send_msg(s);
    }
    *out = &s->base;
    return JA_OK;
}

static int hosted_ask(ref_seat *rs, const ja_decision *d)
{
    hosted_seat *s = (hosted_seat *)rs;
    s->turn = d->turn;
    s->n_legal = d->n_legal;
    s->allow_ms = d->deadline_ms; /* move_ms plus what is left of the bank */
    if (s->dead)
        return JA_OK;
    s->cpu0_ns = child_cpu_ns(s->c);
    /* A reused child's hard CPU limit is the referee's (see "Reuse"). */
    if (s->hb->cpu_limit_s && s->hb->reuse &&
        s->cpu0_ns - s->c->cpu_base_ns > (int64_t)(s->hb->cpu_limit_s + 1) * 1000000000) {
        child_kill(s->c);
        drain_output(s->c);
        note(s->c, "ja_host: killed at the CPU limit of a match\n");
        s->dead = JA_FAULT_RESOURCE;
        return JA_OK;
    }
    if (ref_wire_act(&s->sb, s->match, s->g, d, REF_WIRE_BIN) == JA_OK)
        send_msg(s);
    return JA_OK;
}

/* The pending decision was decided by a packet that was not its answer:
 * the child's answer to it is owed. */
static void owe(hosted_seat *s)
{
    if (s->n_owed == HOSTED_OWED) {
        memmove(s->owed, s->owed + 1, (HOSTED_OWED - 1) * sizeof *s->owed);
        s->n_owed--;
    }
    s->owed[s->n_owed++] = s->turn;
}

/* True (and no longer owed) when turn's answer was owed. */
static bool owed_take(hosted_seat *s, uint64_t turn)
{
    for (uint32_t i = 0; i < s->n_owed; i++)
        if (s->owed[i] == turn) {
            memmove(s->owed + i, s->owed + i + 1, (s->n_owed - i - 1) * sizeof *s->owed);
            s->n_owed--;
            return true;
        }
    return false;
}

/* Judges one message against the pending decision (see the file comment):
 * true when it decides it (out has the index or the fault), false for an
 * owed answer to an earlier decision, discarded. */
static bool judge(hosted_seat *s, size_t n, ref_answer *out)
{
    ref_wire_msg *m = &s->msg;
    char why[200];
    if (ref_wire_decode(s->in, n, m, why, sizeof why) != JA_OK) {
        out->fault = JA_FAULT_MALFORMED;
    } else if (m->type == REF_WIRE_ACTION && strcmp(m->match, s->match) == 0 &&
               m->turn != s->turn && owed_take(s, m->turn)) {
        char line[96];
        snprintf(line, sizeof line, "ja_host: the answer to turn %llu came after a fault; "
                                    "discarded\n", (unsigned long long)m->turn);
        note(s->c, line);
        return false;
    } else if (m->type != REF_WIRE_ACTION || strcmp(m->match, s->match) != 0 ||
               m->turn != s->turn) {
        out->fault = JA_FAULT_PROTOCOL;
    } else {
        /* The answer to the pending turn: what the bot logged comes with it. */
        if (s->keep_log) {
            ja_declog_add(&s->declog, m->log, m->log_len);
            if (m->log_cut)
                ja_declog_cut(&s->declog, JA_DECLOG_MAX, JA_DECLOG_CUT);
        }
        if (m->has_error) {
            out->fault = JA_FAULT_ERROR;
            out->error = m->code;
        } else if (m->index >= s->n_legal)
            out->fault = JA_FAULT_ILLEGAL;
        else
            out->index = (uint32_t)m->index;
    }
    if (out->fault == JA_FAULT_MALFORMED || out->fault == JA_FAULT_PROTOCOL)
        owe(s);
    return true;
}

static void collect(hosted_seat *s, ref_answer *out);

static void hosted_collect(ref_seat *rs, int64_t deadline_ns, ref_answer *out)
{
    hosted_seat *s = (hosted_seat *)rs;
    (void)deadline_ns; /* the limit counts from our own ask: the same instant */
    collect(s, out);
    if (out->fault != JA_FAULT_NONE)
        s->faulted = true;
}

static void collect(hosted_seat *s, ref_answer *out)
{
    ref_seat *rs = &s->base;
    *out = (ref_answer){.fault = JA_FAULT_NONE};
    if (s->dead) {
        out->fault = s->dead;
        return;
    }
    int64_t limit_ns = (int64_t)s->allow_ms * 1000000;
    int64_t hard = rs->asked_ns + (limit_ns ? 2 * limit_ns + (int64_t)HOSTED_MARGIN_MS * 1000000
                                            : (int64_t)HOSTED_NOLIMIT_S * 1000000000);
    ssize_t n;
    /* Owed answers to earlier decisions are discarded: read on. */
    do
        n = child_recv(s->c, s->in, sizeof s->in - 1, hard, rs->asked_ns, s->cpu0_ns, limit_ns);
    while (n > 0 && !judge(s, (size_t)n, out));
    int64_t now = ref_now_ns();
    out->think_us = (uint64_t)(now - rs->asked_ns) / 1000;
    if (n == -1) {
        /* Past the hard stop, on the wall or on the CPU. */
        child_kill(s->c);
        drain_output(s->c);
        note(s->c, "ja_host: killed at the time limit\n");
        s->dead = out->fault = JA_FAULT_TIMEOUT;
        return;
    }
    if (n == 0) {
        child_gone(s->c);
        s->dead = out->fault = death_fault(s->c);
        return;
    }
    if (n == -2) {
        out->fault = JA_FAULT_MALFORMED; /* no answer of ja_host's is that long */
        owe(s);
        return;
    }
    /* Late on the wall clock: it counts if the child's CPU time is within
     * the limit (it was kept from running, not slow). The match loop charges
     * the bank with cpu_us (at least 1 µs, so it is never taken for "not
     * measured"). Within move_ms of wall time the CPU time could change
     * neither (ref_cpu_within): it is not read, and cpu_us stays 0. */
    if (!limit_ns || ref_cpu_within(out->think_us, (uint64_t)s->move_ms * 1000))
        return;
    int64_t used_ns = child_cpu_ns(s->c) - s->cpu0_ns;
    out->cpu_us = used_ns > 0 ? (uint64_t)used_ns / 1000 + 1 : 1;
    if (out->fault == JA_FAULT_NONE && now - rs->asked_ns > limit_ns && used_ns > limit_ns)
        out->fault = JA_FAULT_TIMEOUT;
}

static void hosted_end(ref_seat *rs, const ja_outcome *o)
{
    hosted_seat *s = (hosted_seat *)rs;
    if (s->dead)
        return;
    ref_wire_end_info ei = {s->match, o, NULL, NULL};
    ref_wire_end(&s->sb, &ei);
    send_msg(s);
    s->ended = true;
}

static void hosted_seat_close(ref_seat *rs)
{
    hosted_seat *s = (hosted_seat *)rs;
    if (reusable(s)) {
        drain_output(s->c);
        pool_put(s->hb, s->c);
    } else {
        /* The child may still be in the bot's end(): it has no more say. */
        child_close(s->c);
        free(s->c);
    }
    msgpack_sbuffer_destroy(&s->sb);
    free(s);
}

static void hosted_take_log(ref_seat *rs, ja_declog *out)
{
    ja_declog_take(out, &((hosted_seat *)rs)->declog);
}

static size_t hosted_stderr_tail(ref_seat *rs, char *buf, size_t cap)
{
    hosted_seat *s = (hosted_seat *)rs;
    if (!cap)
        return 0;
    drain_output(s->c);
    size_t n = s->c->tail_len < cap - 1 ? s->c->tail_len : cap - 1;
    memcpy(buf, s->c->tail + s->c->tail_len - n, n);
    buf[n] = '\0';
    return n;
}

static void hosted_destroy(ref_bot *rb)
{
    hosted_bot *b = (hosted_bot *)rb;
    for (uint32_t i = 0; i < b->n_pool; i++) {
        child_close(b->pool[i]);
        free(b->pool[i]);
    }
    pthread_mutex_destroy(&b->pool_lock);
    free(b);
}

static const ref_bot_ops hosted_ops = {
    .kind = "hosted",
    .supports = hosted_supports,
    .seat_open = hosted_seat_open,
    .ask = hosted_ask,
    .collect = hosted_collect,
    .end = hosted_end,
    .seat_close = hosted_seat_close,
    .destroy = hosted_destroy,
    .default_move_ms = 1000,
    .stderr_tail = hosted_stderr_tail,
    .take_log = hosted_take_log,
};
