/* ja_host: the sandboxed child of a `hosted` seat (referee/seat_hosted.c).
 *
 * One process serves one bot instance at a time, at one seat of one match,
 * and exits after it, or, started with --matches N > 1, after its N-th:
 * between matches it destroys the instance and says x_ready, and the next
 * `start` creates a new one (the plugin's globals stay, as in-process;
 * docs/security.md, "Reuse of a child").
 * The referee starts it with posix_spawn, with the channel on fd 3 (an
 * AF_UNIX SOCK_SEQPACKET socket: one packet is one msgpack message of the
 * wire protocol, docs/protocol.md) and stdout and stderr on one pipe whose
 * last 64 KiB the referee keeps. Stdin is /dev/null and the environment is
 * empty but for PATH, so nothing of the arena's (tokens, keys) reaches the
 * bot.
 *
 * Order matters: resource limits and no-new-privileges first; every other
 * descriptor closed; then a first seccomp filter for loading (files may be
 * opened read-only, nothing else: no exec, no network, no fork), under which
 * dlopen runs the plugin's constructors; then a second, stricter filter
 * (no opening at all) before any of the bot's functions is called. Filters
 * stack: the second can only narrow the first. docs/security.md has the
 * threat model and the full lists.
 *
 * Conversation (the referee's side is seat_hosted.c):
 *   child -> `hello` {protocol, name, version, games}   once loaded and the
 *            bot has accepted its parameters (--params, check_params);
 *            {..., x_params_error} when it refused them, then exit 5
 *   referee -> `start` {match, game, seat, seats, move_ms, x_seed}
 *   referee -> `act` (ref_wire_act, the compact form REF_WIRE_BIN: the
 *            observation and legal codes as bytes; ja_botrt_decode_act
 *            reads it, and the protocol's form too)
 *                                    child -> `action` {match, turn, index}
 *                                    or `action` {match, turn, error}
 *   referee -> `end` (ref_wire_end): end(), destroy(), exit 0; or, when
 *            more matches may come, child -> `x_ready` {} and back to
 *            waiting for `start`.
 * The bot itself is driven through the one bot runtime (sdk/runtime/
 * ja_botrt.h) that the in-process seat and the C client use too.
 * x_seed is the bot's own stream seed, ja_seed_derive(match seed, BOT,
 * seat), never the match seed: the same numbers as in-process (seat_plugin.c
 * seeds with ja_rng_stream from the same pair).
 *
 * Exit codes the referee reads (seat_hosted.c): 0 end of match, 2 the file is
 * not a loadable plugin (JA_EFORMAT; one line on stderr), 3 another ABI
 * (JA_EVERSION), 4 a bad invocation or a malformed message from the
 * referee, 5 the bot refused its parameters (after a hello saying why), 6
 * the channel is unusable (the bot closed fd 3: a disconnect; or the
 * referee is gone, when nobody reads the status), 99 memory exhausted (a
 * resource fault). A bot can forge any of these, which gains it nothing: all
 * but 0 are faults. */
#include "ja_botrt.h"
#include "ja_mp.h"
#include "ja_sandbox.h"
#include "plugin_load.h"
#include "wire.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_version.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

enum {
    EXIT_LOAD = 2, EXIT_VERSION = 3, EXIT_USAGE = 4, EXIT_PARAMS = 5, EXIT_CHANNEL = 6,
    EXIT_RESOURCE = 99
};
enum { CHAN_FD = 3 };
#define IN_MAX (256 * 1024)       /* largest message from the referee */
#define LOG_BUDGET (64 * 1024)    /* bytes of bot log per match */
#define LOG_LINE 512              /* bytes of one log message */

typedef struct host {
    ja_botrt rt;                  /* the bot, its services and decoding buffers */
    char match[REF_WIRE_MATCH_MAX];
    size_t logged;
    ja_declog declog;             /* what the bot logged for its next answer */
    const char *params;           /* the bot's parameters (--params), or "" */
    uint64_t matches;             /* matches it may serve (--matches) */
    uint64_t ended;               /* matches ended so far */
} host;

/* ---- where the bot's log goes ------------------------------------------- */

/* To stderr (the referee's bounded tail), cut to LOG_LINE bytes a message
 * and LOG_BUDGET bytes a match, so a chatty bot cannot flood the pipe.
 * Every line, whatever its level, also goes with the next answer (the
 * runtime's decision log, h->declog: bounded too). */
static void host_log(void *ctx, int level, const char *msg)
{
    host *h = ctx;
    if (level > JA_LOG_WARN || h->logged >= LOG_BUDGET)
        return;
    char line[LOG_LINE + 64];
    int n = snprintf(line, sizeof line, "bot %s (seat %d): %.*s\n", h->rt.desc->name,
                     (int)h->rt.seat, LOG_LINE, msg);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 1)
        n = (int)sizeof line - 1;
    h->logged += (size_t)n;
    if (h->logged >= LOG_BUDGET)
        n = snprintf(line, sizeof line, "bot %s: log limit (%d bytes a match) reached\n",
                     h->rt.desc->name, LOG_BUDGET);
    ssize_t w = write(2, line, (size_t)n);
    (void)w;
}

/* ---- the sandbox --------------------------------------------------------- */

/* Bytes the fatal-signal handler tries to map: a quarter of the address
 * space limit (0: no limit, no diagnosis). */
static size_t probe_bytes;

/* A fault while the address space is nearly full is the memory limit's
 * doing (careless code dereferences what malloc returned), not a plain bug:
 * when a quarter of the limit can no longer be mapped, tell the referee
 * (exit 99) so it counts `resource`. Anything else dies of its own signal
 * (SIG_DFL, then the faulting instruction runs again, or abort raises
 * again). Runs on its own stack: the bot's may be gone. */
static void on_fatal(int sig)
{
    if (probe_bytes) {
        void *p = mmap(NULL, probe_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
        if (p == MAP_FAILED)
            _exit(EXIT_RESOURCE);
        munmap(p, probe_bytes);
    }
    signal(sig, SIG_DFL);
    if (sig == SIGABRT)
        raise(sig);
}

static void install_fatal_handlers(void)
{
    static char alt[64 * 1024];
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
}

/* The system calls a bot may make once loaded: its own descriptors, memory,
 * time, signals to itself, leaving. Everything else kills the process
 * (SIGSYS, counted `resource`). */
static int allow_serving(scmp_filter_ctx f)
{
    static const int plain[] = {
        SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64),
        SCMP_SYS(recvfrom), SCMP_SYS(recvmsg), SCMP_SYS(sendto), SCMP_SYS(sendmsg),
        SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(lseek), SCMP_SYS(mmap), SCMP_SYS(munmap),
        SCMP_SYS(mprotect), SCMP_SYS(mremap), SCMP_SYS(brk), SCMP_SYS(madvise),
        SCMP_SYS(futex), SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres),
        SCMP_SYS(gettimeofday), SCMP_SYS(time), SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep),
        SCMP_SYS(sched_yield), SCMP_SYS(getrusage), SCMP_SYS(getrandom), SCMP_SYS(getpid),
        SCMP_SYS(gettid), SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask),
        SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack), SCMP_SYS(exit), SCMP_SYS(exit_group),
        SCMP_SYS(restart_syscall),
    };
    /* A rule that cannot be added (a call this architecture lacks, such as
     * open on arm64) is left out: a missing allowance only narrows. */
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, plain[i], 0);
    /* stat of a descriptor only (glibc's fstat is fstatat(fd, "", AT_EMPTY_PATH)). */
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(newfstatat), 1,
                           SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH));
    /* abort() and raise() signal the process itself, nothing else. */
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                           SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid(), 0));
    /* getrlimit (prlimit64 with no new limit), isatty (stdio). An EQ
     * comparison reads datum_a only; datum_b is given (0) for
     * -Wmissing-field-initializers. */
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_EQ, 0, 0));
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, TCGETS, 0));
    return 0;
}

/* Loading adds opening files read-only (the dynamic loader reads the plugin
 * and the libraries it needs) and stat by path. */
static int allow_loading(scmp_filter_ctx f)
{
    const scmp_datum_t wr = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
    allow_serving(f);
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
                           SCMP_A2(SCMP_CMP_MASKED_EQ, wr, 0));
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(open), 1,
                           SCMP_A1(SCMP_CMP_MASKED_EQ, wr, 0));
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(newfstatat), 0);
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(statx), 0);
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(readlink), 0);
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(access), 0);
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(faccessat), 0);
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(faccessat2), 0);
    /* For installing the second filter (filters only ever add up). */
    (void)seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(seccomp), 0);
    return 0;
}

static int load_filter(int (*allow)(scmp_filter_ctx))
{
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (!f)
        return -1;
    /* no_new_privs is set already (confine), and prctl is not allowed. */
    int rc = seccomp_attr_set(f, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    rc |= seccomp_attr_set(f, SCMP_FLTATR_CTL_NNP, 0);
    rc |= allow(f);
    if (rc == 0)
        rc = seccomp_load(f);
    seccomp_release(f);
    return rc;
}

_Noreturn static void die(int code, const char *what)
{
    fprintf(stderr, "ja_host: %s\n", what);
    exit(code);
}

/* Landlock (ja_sandbox.h): while loading the plugin may open files
 * read-only (seccomp cannot look at paths), so before anything of it runs,
 * reads are limited to the system's library directories, the loader's cache
 * and the plugin file itself. Without this, a plugin's constructor could
 * read the arena's database next to it, whose tournament seed gives away
 * every deal. A kernel without Landlock (before 5.13, or with it disabled)
 * leaves reads unrestricted: documented in docs/security.md. */
static void restrict_reads(const char *plugin)
{
    ja_landlock ll;
    char err[300];
    int rc = ja_landlock_init(&ll, 0, err, sizeof err);
    if (rc == JA_EUNSUPPORTED)
        return;
    static const char *const sys[] = {"/usr", "/lib", "/lib64", "/etc/ld.so.cache"};
    for (size_t i = 0; rc == JA_OK && i < sizeof sys / sizeof *sys; i++)
        rc = ja_landlock_allow(&ll, sys[i], JA_LL_READ, err, sizeof err);
    if (rc == JA_OK)
        rc = ja_landlock_allow(&ll, plugin, JA_LL_READ, err, sizeof err);
    if (rc == JA_OK)
        rc = ja_landlock_enforce(&ll, err, sizeof err);
    if (rc != JA_OK)
        die(EXIT_USAGE, err);
}

/* Limits, privileges and descriptors: before anything of the bot's runs.
 * A child that may serve several matches gets a hard CPU limit to match
 * (the referee raises the soft one before each match and keeps each
 * match's hard limit itself: seat_hosted.c). */
static void confine(uint64_t mem_mb, uint64_t cpu_s, uint64_t matches, const char *plugin)
{
    if (ja_sandbox_limit(RLIMIT_CORE, 0) || ja_sandbox_limit(RLIMIT_FSIZE, 0) ||
        ja_sandbox_limit(RLIMIT_NOFILE, 16) || ja_sandbox_limit(RLIMIT_NPROC, 0) ||
        (mem_mb && ja_sandbox_limit(RLIMIT_AS, mem_mb << 20)))
        die(EXIT_USAGE, "cannot set resource limits");
    probe_bytes = (size_t)(mem_mb << 20) / 4;
    /* SIGXCPU at the soft limit, SIGKILL a second later (the hard one). */
    struct rlimit cpu = {(rlim_t)cpu_s, ((rlim_t)cpu_s + 1) * (rlim_t)matches};
    if (cpu_s && setrlimit(RLIMIT_CPU, &cpu))
        die(EXIT_USAGE, "cannot set the CPU limit");
    /* No new privileges and no capabilities: run as root, the loading
     * stage's read-only opens would otherwise reach any file and any
     * process's memory (CAP_DAC_OVERRIDE, CAP_SYS_PTRACE). Not dumpable: no
     * other process of this user (a sibling child) may read this one's
     * memory through /proc or ptrace. */
    char err[300];
    if (ja_sandbox_drop_privileges(err, sizeof err) != JA_OK)
        die(EXIT_USAGE, err);
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
        die(EXIT_USAGE, "cannot clear the dumpable flag");
    if (syscall(SYS_close_range, CHAN_FD + 1, ~0U, 0))
        die(EXIT_USAGE, "cannot close inherited descriptors");
    restrict_reads(plugin);
    if (load_filter(allow_loading))
        die(EXIT_USAGE, "cannot install the seccomp filter");
}

/* ---- the conversation ---------------------------------------------------- */

static void send_buf(const msgpack_sbuffer *sb)
{
    /* The bot closed the channel, or the referee is gone. */
    if (send(CHAN_FD, sb->data, sb->size, MSG_NOSIGNAL) != (ssize_t)sb->size)
        _exit(EXIT_CHANNEL);
}

/* The hello: the bot's name, version and games; params_error (NULL:
 * none) is the bot's refusal of its parameters, x_params_error. */
static void send_hello(const ja_bot_desc *d, const char *params_error)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, params_error ? 6 : 5);
    ja_mp_put_kv_str(&pk, "type", "hello");
    ja_mp_put_kv_u64(&pk, "protocol", JA_PROTOCOL);
    /* Cut as the plugin seat cuts them (the hello's bounds are the same). */
    char name[REF_WIRE_NAME_MAX], version[REF_WIRE_VERSION_MAX];
    snprintf(name, sizeof name, "%s", d->name);
    snprintf(version, sizeof version, "%s", d->version ? d->version : "0");
    ja_mp_put_kv_str(&pk, "name", name[0] ? name : "unnamed");
    ja_mp_put_kv_str(&pk, "version", version);
    ja_botrt_pack_games(&pk, d);
    if (params_error)
        ja_mp_put_kv_str(&pk, "x_params_error", params_error);
    send_buf(&sb);
    msgpack_sbuffer_destroy(&sb);
}

/* An answer (ja_botrt_pack_action: the index, or `error`), with what the
 * bot logged since the last one, which then starts again. */
static void send_answer(msgpack_sbuffer *sb, host *h, uint64_t turn, int rc, uint32_t index)
{
    msgpack_sbuffer_clear(sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    ja_botrt_pack_action(&pk, h->match, turn, rc, index, &h->declog);
    ja_declog_clear(&h->declog);
    send_buf(sb);
}

/* x_ready: the match's end() and destroy() returned; the referee may
 * start another match in this child. */
static void send_ready(msgpack_sbuffer *sb)
{
    msgpack_sbuffer_clear(sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 1);
    ja_mp_put_kv_str(&pk, "type", "x_ready");
    send_buf(sb);
}

static void on_start(host *h, const msgpack_object *o)
{
    char game[REF_WIRE_NAME_MAX];
    uint64_t seat, seats, seed;
    if (!ja_mp_get_str(o, "match", h->match, sizeof h->match) ||
        !ja_mp_get_str(o, "game", game, sizeof game) || !ja_mp_get_u64(o, "seat", &seat) ||
        !ja_mp_get_u64(o, "seats", &seats) || !ja_mp_get_u64(o, "x_seed", &seed) || seats == 0 ||
        seats > JA_MAX_SEATS || seat >= seats || !ja_game_find(game))
        die(EXIT_USAGE, "malformed start message");
    /* A new match's log: nothing of the last one's end() goes with it. */
    ja_declog_clear(&h->declog);
    int rc = ja_botrt_start(&h->rt, game, (int32_t)seat, (uint32_t)seats, seed, h->params, true);
    if (rc == JA_ENOMEM)
        _exit(EXIT_RESOURCE);
    if (rc != JA_OK)
        fprintf(stderr, "bot %s refused seat %d of %s: %s\n", h->rt.desc->name, (int)seat, game,
                ja_strerror(rc));
}

static void on_act(host *h, const msgpack_object *o, int64_t received, msgpack_sbuffer *out)
{
    ja_decision d;
    char why[128];
    if (ja_botrt_decode_act(&h->rt, o, &d, why, sizeof why) != JA_OK)
        die(EXIT_USAGE, why);
    uint32_t index = UINT32_MAX;
    int rc = ja_botrt_act(&h->rt, &d, received, &index);
    send_answer(out, h, d.turn, rc, index);
}

static void serve(host *h)
{
    static char buf[IN_MAX];
    msgpack_sbuffer out;
    msgpack_sbuffer_init(&out);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    for (;;) {
        ssize_t n = recv(CHAN_FD, buf, sizeof buf, MSG_TRUNC);
        if (n == 0)
            _exit(0); /* the referee closed: done */
        if (n < 0)
            _exit(EXIT_CHANNEL); /* the bot closed fd 3 */
        if ((size_t)n > sizeof buf)
            die(EXIT_USAGE, "message from the referee too long");
        int64_t received = ja_botrt_now_ns();
        size_t off = 0;
        char type[REF_WIRE_TYPE_MAX];
        if (msgpack_unpack_next(&u, buf, (size_t)n, &off) != MSGPACK_UNPACK_SUCCESS ||
            !ja_mp_get_str(&u.data, "type", type, sizeof type))
            die(EXIT_USAGE, "malformed message from the referee");
        if (strcmp(type, "start") == 0) {
            on_start(h, &u.data);
        } else if (strcmp(type, "act") == 0) {
            on_act(h, &u.data, received, &out);
        } else if (strcmp(type, "end") == 0) {
            ja_outcome oc;
            ja_botrt_decode_outcome(&u.data, &oc);
            ja_botrt_end(&h->rt, &oc);
            if (++h->ended >= h->matches)
                _exit(0);
            /* Ready for the next match's start: a new instance, a new log
             * budget (the plugin's own globals stay, as in-process). */
            h->logged = 0;
            h->match[0] = '\0';
            send_ready(&out);
        } else if (strcmp(type, "bye") == 0) {
            _exit(0);
        }
    }
}

static uint64_t num_arg(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !*s || *end)
        die(EXIT_USAGE, "bad number in arguments");
    return v;
}

/* ja_host --mem-mb M --cpu-s S --params TEXT PLUGIN (0 = no such limit;
 * TEXT "" = no parameters). */
int main(int argc, char **argv)
{
    uint64_t mem_mb = 0, cpu_s = 0;
    static host h;
    h.params = "";
    h.matches = 1;
    int i = 1;
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (strcmp(argv[i], "--mem-mb") == 0)
            mem_mb = num_arg(argv[i + 1]);
        else if (strcmp(argv[i], "--cpu-s") == 0)
            cpu_s = num_arg(argv[i + 1]);
        else if (strcmp(argv[i], "--matches") == 0)
            h.matches = num_arg(argv[i + 1]);
        else if (strcmp(argv[i], "--params") == 0)
            h.params = argv[i + 1];
        else
            die(EXIT_USAGE, "unknown option");
    }
    if (i != argc - 1 || h.matches == 0 || h.matches > 1000000)
        die(EXIT_USAGE, "usage: ja_host [--mem-mb M] [--cpu-s S] [--matches N] [--params TEXT] "
                        "PLUGIN.so (run by the arena)");
    struct stat sb;
    if (fstat(CHAN_FD, &sb) || !S_ISSOCK(sb.st_mode))
        die(EXIT_USAGE, "no channel on descriptor 3 (run by the arena)");
    confine(mem_mb, cpu_s, h.matches, argv[i]);

    const ja_bot_desc *desc;
    char err[1200];
    void *dl;
    int rc = ref_plugin_load(argv[i], &dl, &desc, err, sizeof err);
    if (rc != JA_OK) {
        fprintf(stderr, "%s\n", err);
        return rc == JA_EVERSION ? EXIT_VERSION : EXIT_LOAD;
    }
    ja_botrt_init(&h.rt, desc, host_log, &h);
    h.rt.declog = &h.declog;
    h.rt.compact = true; /* the referee sends the compact act (REF_WIRE_BIN) */
    install_fatal_handlers();
    if (load_filter(allow_serving))
        die(EXIT_USAGE, "cannot install the seccomp filter");
    /* The bot's own code judges its parameters: under the serving filter. */
    char why[REF_WIRE_ERROR_MAX];
    if (ja_botrt_check_params(desc, h.params, why, sizeof why) != JA_OK) {
        send_hello(desc, why);
        _exit(EXIT_PARAMS);
    }
    send_hello(desc, NULL);
    serve(&h);
    return 0;
}
