/* ja_confine: the launcher of a confined `cmd:` bot (arena --confine,
 * arena/run/confine.c). The arena starts it with posix_spawn in place of
 * `/bin/sh -c COMMAND`; it confines itself, then executes that shell, so
 * that nothing of the bot's runs unconfined. What it applies, in order:
 *
 *   1. descriptors past stderr closed (the arena closes them already);
 *   2. resource limits: no core files, a file-size cap, an address-space
 *      cap, and at most N more tasks (processes and threads) of this user
 *      than it has now (RLIMIT_NPROC counts all of the user's tasks);
 *   3. no new privileges and no capabilities (ja_sandbox.h);
 *   4. a Landlock ruleset: the system's programs and libraries readable and
 *      executable, a few files of /etc readable, the --read paths readable
 *      and executable, the --write paths (its scratch directory) writable,
 *      /dev/null, and nothing else: not the arena's database, replays, keys
 *      or working directory, not /proc (another process's command line and
 *      environment are files there). TCP: connecting to the --tcp-connect
 *      port only; signals and abstract unix sockets only within the bot's
 *      own processes, where the kernel has those rights.
 *
 * A kernel without Landlock: refused (exit 125, one line) unless --weak,
 * which runs the bot with 1-3 only. docs/security.md has the details and
 * what this does not cover.
 *
 * Usage: ja_confine [--read PATH]... [--write PATH]... [--mem-mb M]
 *                   [--fsize-mb F] [--tasks N] [--tcp-connect PORT] [--weak]
 *                   -- COMMAND
 * Exit status 125 when it cannot confine (one line on stderr); otherwise
 * the shell's. */
#include "ja_sandbox.h"

#include "jackarena/ja_error.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXIT_CONFINE 125
#define MAX_PATHS 256

__attribute__((format(printf, 1, 2))) _Noreturn static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ja_confine: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(EXIT_CONFINE);
}

static uint64_t num_arg(const char *opt, const char *s, uint64_t max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !*s || *end || *s == '-' || v > max)
        fail("%s needs a whole number from 0 to %llu, not '%s'", opt, (unsigned long long)max, s);
    return v;
}

/* Tasks (threads) of this real user now: RLIMIT_NPROC is checked against
 * that count, so the cap is set relative to it. */
static uint64_t user_tasks(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        fail("cannot read /proc: %s", strerror(errno));
    uid_t me = getuid();
    uint64_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* gone meanwhile */
        long uid = -1, threads = 0;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Uid:", 4) == 0)
                uid = strtol(line + 4, NULL, 10);
            else if (strncmp(line, "Threads:", 8) == 0)
                threads = strtol(line + 8, NULL, 10);
        }
        fclose(f);
        if (uid == (long)me && threads > 0)
            n += (uint64_t)threads;
    }
    closedir(d);
    return n;
}

static void allow(ja_landlock *ll, const char *path, uint64_t access)
{
    char err[600];
    if (ja_landlock_allow(ll, path, access, err, sizeof err) != JA_OK)
        fail("%s", err);
}

/* Every path matching pattern. */
static void allow_glob(ja_landlock *ll, const char *pattern, uint64_t access)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; i++)
            allow(ll, g.gl_pathv[i], access);
    globfree(&g);
}

/* The system: programs and libraries (also the runtimes' own files: the
 * JVMs of /usr/lib/jvm, Node.js's /usr/share/nodejs and /usr/lib/node_modules,
 * Python's /usr/lib/python3*); of /etc, what the loader, the C library and
 * the runtimes read (not all of it: an arena run as root keeps root's
 * ownership of /etc/shadow and host keys even without capabilities):
 * Python's and Java's configuration, OpenSSL's (Node.js reads it at start)
 * and the public CA certificates, never /etc/ssl/private; the CPU list (the
 * C library's processor count); a few devices. */
static void allow_system(ja_landlock *ll)
{
    static const char *const exec[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                                       "/libx32"};
    for (size_t i = 0; i < sizeof exec / sizeof *exec; i++)
        allow(ll, exec[i], JA_LL_EXEC);
    static const char *const read[] = {
        "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
        "/etc/localtime", "/etc/timezone", "/etc/locale.alias", "/etc/locale.conf",
        "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/alternatives",
        "/etc/mime.types", "/etc/ssl/openssl.cnf", "/etc/ssl/certs",
        "/sys/devices/system/cpu", "/dev/zero", "/dev/full",
        "/dev/random", "/dev/urandom"};
    for (size_t i = 0; i < sizeof read / sizeof *read; i++)
        allow(ll, read[i], JA_LL_READ);
    allow_glob(ll, "/etc/python3*", JA_LL_READ);
    allow_glob(ll, "/etc/java-*", JA_LL_READ);
    allow(ll, "/dev/null", JA_LL_WRITE);
}

int main(int argc, char **argv)
{
    const char *reads[MAX_PATHS], *writes[MAX_PATHS];
    size_t n_reads = 0, n_writes = 0;
    uint64_t mem_mb = 0, fsize_mb = 0, tasks = 0, port = 0;
    bool weak = false, have_tasks = false;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--weak") == 0) {
            weak = true;
            continue;
        }
        if (i + 1 >= argc)
            fail("%s needs a value", o);
        const char *v = argv[++i];
        if (strcmp(o, "--read") == 0 || strcmp(o, "--write") == 0) {
            bool rd = o[2] == 'r';
            if ((rd ? n_reads : n_writes) == MAX_PATHS)
                fail("more than %d %s paths", MAX_PATHS, o);
            if (rd)
                reads[n_reads++] = v;
            else
                writes[n_writes++] = v;
        } else if (strcmp(o, "--mem-mb") == 0) {
            mem_mb = num_arg(o, v, 1000000);
        } else if (strcmp(o, "--fsize-mb") == 0) {
            fsize_mb = num_arg(o, v, 1000000);
        } else if (strcmp(o, "--tasks") == 0) {
            tasks = num_arg(o, v, 1000000);
            have_tasks = true;
        } else if (strcmp(o, "--tcp-connect") == 0) {
            port = num_arg(o, v, 65535);
        } else {
            fail("unknown option '%s' (run by the arena: docs/security.md)", o);
        }
    }
    if (i != argc - 2)
        fail("usage: ja_confine [--read PATH]... [--write PATH]... [--mem-mb M] [--fsize-mb F] "
             "[--tasks N] [--tcp-connect PORT] [--weak] -- COMMAND (run by the arena)");
    const char *command = argv[argc - 1];

    if (syscall(SYS_close_range, 3, ~0U, 0) != 0)
        fail("cannot close inherited descriptors: %s", strerror(errno));
    if (ja_sandbox_limit(RLIMIT_CORE, 0) != JA_OK ||
        (fsize_mb && ja_sandbox_limit(RLIMIT_FSIZE, fsize_mb << 20) != JA_OK) ||
        (mem_mb && ja_sandbox_limit(RLIMIT_AS, mem_mb << 20) != JA_OK) ||
        (have_tasks && ja_sandbox_limit(RLIMIT_NPROC, user_tasks() + tasks) != JA_OK))
        fail("cannot set resource limits: %s", strerror(errno));
    char err[600];
    if (ja_sandbox_drop_privileges(err, sizeof err) != JA_OK)
        fail("%s", err);

    ja_landlock ll;
    int rc = ja_landlock_init(&ll, JA_LL_TCP | JA_LL_SCOPE, err, sizeof err);
    if (rc == JA_EUNSUPPORTED && !weak)
        fail("this kernel has no Landlock (Linux 5.13 or later, with landlock among its security "
             "modules): the bot's files cannot be confined");
    if (rc != JA_OK && rc != JA_EUNSUPPORTED)
        fail("%s", err);
    if (rc == JA_OK) {
        allow_system(&ll);
        for (size_t k = 0; k < n_reads; k++)
            allow(&ll, reads[k], JA_LL_EXEC);
        for (size_t k = 0; k < n_writes; k++)
            allow(&ll, writes[k], JA_LL_WRITE);
        if (port && ja_landlock_allow_tcp_connect(&ll, (uint16_t)port, err, sizeof err) != JA_OK)
            fail("%s", err);
        if (ja_landlock_enforce(&ll, err, sizeof err) != JA_OK)
            fail("%s", err);
    }
    execl("/bin/sh", "sh", "-c", command, (char *)NULL);
    fail("cannot run /bin/sh: %s", strerror(errno));
    return EXIT_CONFINE;
}
