/* The "Slurm" section of docs/performance.md (bench_slurm.h, docs/scale.md):
 * the same tournament with --jobs 1, --slurm 4 and --slurm-workers 2 on a
 * private single-node cluster started by tests/slurm/cluster.sh (the one
 * the tests use), each a separate `arena` process timed from outside.
 *
 * The Slurm overhead of a job is measured from this process by watching
 * the run's DB.slurm directory with inotify (timed, below): submission
 * (the batch script put in place, just before sbatch runs) to the first
 * task's start (its log created), and the last task's end (its log closed)
 * to the arena's exit (with --slurm, after the merge into --db). */
#include "bench_slurm.h"
#include "bench.h"
#include "bench_rows.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef JA_CLUSTER_SH
#define JA_CLUSTER_SH "tests/slurm/cluster.sh"
#endif

/* Whether prog is an executable in PATH. */
static bool have(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path ? path : "");
    char *save = NULL;
    for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char f[PATH_MAX + 64];
        snprintf(f, sizeof f, "%s/%s", d, prog);
        if (access(f, X_OK) == 0)
            return true;
    }
    return false;
}

/* CLOCK_REALTIME in seconds (file times are on this clock). */
static double real_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct run_times {
    double wall;        /* the arena's run, seconds */
    double submit;      /* the batch script in place (real time) */
    double first_start; /* the first task's log created */
    double last_end;    /* the last task's log closed */
    double end;         /* the arena exited */
    int tasks;          /* task logs created */
} run_times;

/* Runs the arena (argv) and, when staging is given (the run's DB.slurm
 * directory, made here first), watches it with inotify: the batch script
 * moved into place (named script) is the submission, just before sbatch
 * runs; a task's log created is its start (slurmstepd opens it as it
 * launches the task), the log closed for writing its end. Exit status of
 * the arena. */
static int timed(const char *arena_dir, const char *const *argv, const char *staging,
                 const char *script, run_times *t)
{
    memset(t, 0, sizeof t[0]);
    int in = -1;
    if (staging) {
        mkdir(staging, 0777);
        in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (in >= 0 &&
            inotify_add_watch(in, staging, IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
            close(in);
            in = -1;
        }
    }
    double t0 = bench_now_s();
    pid_t a = bench_start(arena_dir, argv);
    int st = 0;
    for (;;) {
        pid_t w = waitpid(a, &st, WNOHANG);
        if (w == a || w < 0)
            break;
        if (in < 0) {
            struct timespec ts = {0, 20 * 1000000};
            nanosleep(&ts, NULL);
            continue;
        }
        struct pollfd pf = {in, POLLIN, 0};
        if (poll(&pf, 1, 20) <= 0)
            continue;
        double now = real_now();
        char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
        ssize_t n = read(in, buf, sizeof buf);
        for (ssize_t off = 0; n > 0 && off < n;) {
            const struct inotify_event *e = (const struct inotify_event *)(buf + off);
            off += (ssize_t)(sizeof *e + e->len);
            size_t l = e->len ? strlen(e->name) : 0;
            if (!l)
                continue;
            if ((e->mask & IN_MOVED_TO) && script && strcmp(e->name, script) == 0 && !t->submit)
                t->submit = now;
            if (l < 4 || strcmp(e->name + l - 4, ".log") != 0)
                continue;
            if (e->mask & IN_CREATE) {
                if (!t->tasks++)
                    t->first_start = now;
            } else if (e->mask & IN_CLOSE_WRITE) {
                t->last_end = now;
            }
        }
    }
    t->end = real_now();
    t->wall = bench_now_s() - t0;
    if (in >= 0)
        close(in);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

int bench_slurm(FILE *md, const char *arena_dir)
{
    char dir[PATH_MAX];
    if (arena_dir)
        snprintf(dir, sizeof dir, "%s", arena_dir);
    else
        snprintf(dir, sizeof dir, "%s/../arena", bench_exe_dir());
    /* Slurm's daemons live in /usr/sbin on Debian. */
    const char *path = getenv("PATH");
    char newpath[8192];
    snprintf(newpath, sizeof newpath, "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
    setenv("PATH", newpath, 1);
    static const char *const progs[] = {"munged", "slurmctld", "slurmd", "sbatch", "squeue",
                                        "scancel", "sinfo"};
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++)
        if (!have(progs[i])) {
            fprintf(md, "## Slurm\n\nNot measured: '%s' is not installed (Debian: munge, "
                    "slurmctld, slurmd, slurm-client; `bash scripts/setup.sh`).\n", progs[i]);
            return BENCH_SECTION_SKIPPED;
        }
    if (geteuid() != 0) {
        fprintf(md, "## Slurm\n\nNot measured: the private cluster needs root (slurmd starts "
                    "the jobs).\n");
        return BENCH_SECTION_SKIPPED;
    }
    struct stat sb;
    const char *cluster_sh = JA_CLUSTER_SH;
    if (stat(cluster_sh, &sb) != 0) {
        fprintf(md, "## Slurm\n\nNot measured: %s is missing (run ja_bench from the "
                    "repository root).\n", cluster_sh);
        return BENCH_SECTION_SKIPPED;
    }
    const char *base = stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) ? "/dev/shm" : "/tmp";
    char tmp[PATH_MAX], cluster[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s/ja_bench_slurm.XXXXXX", base);
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "ja_bench: slurm: no scratch directory: %s\n", strerror(errno));
        return 1;
    }
    snprintf(cluster, sizeof cluster, "%s/cluster", tmp);
    double c0 = bench_now_s();
    const char *start[] = {"/bin/bash", cluster_sh, "start", cluster, NULL};
    int rc = bench_finish(bench_start(dir, start), NULL, NULL);
    double cluster_s = bench_now_s() - c0;
    if (rc != 0) {
        fprintf(stderr, "ja_bench: slurm: the private cluster did not start (exit %d; %s)\n",
                rc, cluster);
        const char *stop[] = {"/bin/bash", cluster_sh, "stop", cluster, NULL};
        bench_finish(bench_start(dir, stop), NULL, NULL);
        return 1;
    }
    char conf[PATH_MAX + 32];
    snprintf(conf, sizeof conf, "%s/slurm.conf", cluster);
    setenv("SLURM_CONF", conf, 1);
    double load0 = bench_loadavg();

    const char *rounds = "2000"; /* 6,000 matches */
    const double matches = 6000;
    char db[3][PATH_MAX + 32], staging[3][PATH_MAX + 48];
    const char *script[3] = {NULL, "t1.sh", "t1-workers.sh"};
    const char *names[3] = {"j1", "slurm4", "workers2"};
    for (int i = 0; i < 3; i++) {
        snprintf(db[i], sizeof db[i], "%s/%s.db", tmp, names[i]);
        snprintf(staging[i], sizeof staging[i], "%s.slurm", db[i]);
    }
    char ep[64], curve[PATH_MAX + 16];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", 29000 + (int)(getpid() % 2000));
    snprintf(curve, sizeof curve, "%s/curve", tmp);
#define TOURNAMENT "arena", "tournament", "taylor-blackjack", "--bots", "random,random,random", \
                   "--rounds", rounds, "--seed", "1", "-q"
    const char *a1[] = {TOURNAMENT, "--db", db[0], NULL};
    const char *a2[] = {TOURNAMENT, "--db", db[1], "--slurm", "4", NULL};
    const char *a3[] = {TOURNAMENT, "--db", db[2], "--slurm-workers", "2", "--workers", ep,
                        "--curve", "--curve-dir", curve, NULL};
#undef TOURNAMENT
    run_times t[3];
    int r1 = timed(dir, a1, NULL, NULL, &t[0]);
    int r2 = timed(dir, a2, staging[1], script[1], &t[1]);
    int r3 = timed(dir, a3, staging[2], script[2], &t[2]);
    double load1 = bench_loadavg();
    const char *stop[] = {"/bin/bash", cluster_sh, "stop", cluster, NULL};
    bench_finish(bench_start(dir, stop), NULL, NULL);
    unsetenv("SLURM_CONF");
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "ja_bench: could not remove %s\n", tmp);
    if (r1 || r2 || r3) {
        fprintf(stderr, "ja_bench: slurm: a tournament failed (--jobs 1: %d, --slurm 4: %d, "
                "--slurm-workers 2: %d)\n", r1, r2, r3);
        return 1;
    }
    double rate[3], before[3], after[3];
    for (int i = 0; i < 3; i++) {
        rate[i] = matches / t[i].wall;
        before[i] = t[i].tasks && t[i].submit > 0 ? t[i].first_start - t[i].submit : NAN;
        after[i] = t[i].tasks && t[i].last_end > 0 ? t[i].end - t[i].last_end : NAN;
    }
    fprintf(stderr, "slurm: --jobs 1 %.0f matches/s; --slurm 4 %.0f (%.2f s + %.2f s Slurm); "
            "--slurm-workers 2 %.0f (%.2f s + %.2f s)\n", rate[0], rate[1], before[1], after[1],
            rate[2], before[2], after[2]);
    bench_row_add("--jobs 1 (in-process executor)", rate[0], "matches/s", NAN, BENCH_NO_TARGET,
                  0);
    bench_row_add("--slurm 4 / --jobs 1", rate[1], "matches/s", rate[1] / rate[0],
                  BENCH_NO_TARGET, 0);
    bench_row_add("--slurm-workers 2 / --jobs 1", rate[2], "matches/s", rate[2] / rate[0],
                  BENCH_NO_TARGET, 0);
    bench_row_add("--slurm 4: submission to the first shard's start", before[1] * 1000, "ms",
                  NAN, BENCH_NO_TARGET, 0);
    bench_row_add("--slurm 4: the last shard's end to the merged result", after[1] * 1000, "ms",
                  NAN, BENCH_NO_TARGET, 0);
    bench_row_add("--slurm-workers 2: submission to the first worker's start", before[2] * 1000,
                  "ms", NAN, BENCH_NO_TARGET, 0);
    bench_row_add("--slurm-workers 2: the last worker's end to the arena's exit",
                  after[2] * 1000, "ms", NAN, BENCH_NO_TARGET, 0);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(md,
            "## Slurm\n\n"
            "The same `arena tournament taylor-blackjack --bots random,random,random --rounds "
            "2000` (6,000 matches, 3 seats, no replays) three ways, each a separate process "
            "timed from outside, databases in %s, on the private single-node cluster of the "
            "tests (`tests/slurm/cluster.sh`: slurmctld, slurmd and munged on this machine, "
            "up in %.1f s; the node has the machine's %ld cores, a task takes one). Load "
            "average before this section %.2f, after %.2f: above 1, something else holds a "
            "core and every figure here is a lower bound. docs/scale.md says which to use "
            "when.\n\n"
            "| run | wall time | matches/s | / `--jobs 1` | tasks | submission to first task "
            "start | last task end to the result |\n|---|---|---|---|---|---|---|\n"
            "| `--jobs 1` (in-process executor) | %.2f s | %.0f | 1 | | | |\n"
            "| `--slurm 4` (4 shards, merged into `--db`) | %.2f s | %.0f | **%.2f** | %d | "
            "%.0f ms | %.0f ms |\n"
            "| `--slurm-workers 2` (2 workers over loopback tcp, CurveZMQ) | %.2f s | %.0f | "
            "**%.2f** | %d | %.0f ms | %.0f ms |\n\n"
            "Submission is the moment the arena put the batch script in place (just before "
            "`sbatch`); a task starts when Slurm creates its log and ends when Slurm closes "
            "it (inotify on `DB.slurm/`). After the last "
            "task, `--slurm` waits for `squeue` to report the job over (polled every 0.25 s "
            "once the shards hold every match) and merges the four shard databases "
            "into a staging database and that into `--db`; `--slurm-workers` tells its "
            "workers to quit, cancels the job and waits for it to leave the queue. On a "
            "real cluster the scheduler's queueing comes on top of the start-up measured "
            "here; the shards also run on 2 cores here, 2 at a time, so `--slurm 4` cannot "
            "gain over `--jobs 1` on this machine: what a shard or a worker costs is the "
            "point of these rows, not a speed-up.\n",
            base, cluster_s, cores, load0, load1, t[0].wall, rate[0], t[1].wall, rate[1],
            rate[1] / rate[0], t[1].tasks, before[1] * 1000, after[1] * 1000, t[2].wall,
            rate[2], rate[2] / rate[0], t[2].tasks, before[2] * 1000, after[2] * 1000);
    return 0;
}
