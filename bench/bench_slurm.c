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

/* The three ways, in the order they run and the table shows them. */
enum { JOBS1, SLURM4, WORKERS2, N_WAYS };

/* One run of the section: the private cluster, and what each way measured. */
typedef struct slurm_run {
    char dir[PATH_MAX];          /* the arena's directory */
    const char *cluster_sh;      /* tests/slurm/cluster.sh */
    const char *base;            /* where the scratch is: /dev/shm or /tmp */
    char tmp[PATH_MAX];          /* the scratch: the databases and the cluster */
    char cluster[PATH_MAX + 16]; /* the cluster's directory */
    double cluster_s;            /* the cluster's start-up, seconds */
    double load0, load1;         /* the load average before and after the runs */
    run_times t[N_WAYS];
    int rc[N_WAYS];              /* each run's exit status */
    /* matches/s; submission to the first task's start and the last task's
     * end to the result, seconds (NAN when no task was seen) */
    double rate[N_WAYS], before[N_WAYS], after[N_WAYS];
} slurm_run;

/* Slurm's daemons live in /usr/sbin on Debian. */
static void add_sbin_to_path(void)
{
    const char *path = getenv("PATH");
    char newpath[8192];
    snprintf(newpath, sizeof newpath, "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
    setenv("PATH", newpath, 1);
}

/* Writes why the section cannot be measured here (Slurm's programs, root,
 * the cluster's script) and returns true, or returns false. */
static bool write_why_not_measured(FILE *md, const char *cluster_sh)
{
    static const char *const progs[] = {"munged", "slurmctld", "slurmd", "sbatch", "squeue",
                                        "scancel", "sinfo"};
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++)
        if (!have(progs[i])) {
            fprintf(md, "## Slurm\n\nNot measured: '%s' is not installed (Debian: munge, "
                    "slurmctld, slurmd, slurm-client; `bash scripts/setup.sh`).\n", progs[i]);
            return true;
        }
    if (geteuid() != 0) {
        fprintf(md, "## Slurm\n\nNot measured: the private cluster needs root (slurmd starts "
                    "the jobs).\n");
        return true;
    }
    struct stat sb;
    if (stat(cluster_sh, &sb) != 0) {
        fprintf(md, "## Slurm\n\nNot measured: %s is missing (run ja_bench from the "
                    "repository root).\n", cluster_sh);
        return true;
    }
    return false;
}

/* The scratch directory, in /dev/shm when it exists. 0, or -1 after a message. */
static int make_scratch(slurm_run *s)
{
    struct stat sb;
    s->base = stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(s->tmp, sizeof s->tmp, "%s/ja_bench_slurm.XXXXXX", s->base);
    if (!mkdtemp(s->tmp)) {
        fprintf(stderr, "ja_bench: slurm: no scratch directory: %s\n", strerror(errno));
        return -1;
    }
    snprintf(s->cluster, sizeof s->cluster, "%s/cluster", s->tmp);
    return 0;
}

/* Runs `cluster.sh VERB` on the section's cluster: its exit status. */
static int cluster_do(const slurm_run *s, const char *verb)
{
    const char *argv[] = {"/bin/bash", s->cluster_sh, verb, s->cluster, NULL};
    return bench_finish(bench_start(s->dir, argv), NULL, NULL);
}

/* Starts the private cluster, timed, and points Slurm's commands at it
 * (SLURM_CONF). 0, or -1 after a message, the cluster stopped. */
static int start_cluster(slurm_run *s)
{
    double c0 = bench_now_s();
    int rc = cluster_do(s, "start");
    s->cluster_s = bench_now_s() - c0;
    if (rc != 0) {
        fprintf(stderr, "ja_bench: slurm: the private cluster did not start (exit %d; %s)\n",
                rc, s->cluster);
        cluster_do(s, "stop");
        return -1;
    }
    char conf[PATH_MAX + 32];
    snprintf(conf, sizeof conf, "%s/slurm.conf", s->cluster);
    setenv("SLURM_CONF", conf, 1);
    return 0;
}

/* Stops the cluster and removes the scratch. */
static void stop_cluster(slurm_run *s)
{
    cluster_do(s, "stop");
    unsetenv("SLURM_CONF");
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", s->tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "ja_bench: could not remove %s\n", s->tmp);
}

/* The same tournament with --jobs 1, --slurm 4 and --slurm-workers 2 (over
 * loopback tcp, CurveZMQ), each into its own database, one after the other;
 * the two Slurm runs' staging directories watched (timed). */
static void time_three_ways(slurm_run *s)
{
    const char *rounds = "2000"; /* 6,000 matches */
    char db[N_WAYS][PATH_MAX + 32], staging[N_WAYS][PATH_MAX + 48];
    const char *script[N_WAYS] = {NULL, "t1.sh", "t1-workers.sh"};
    const char *names[N_WAYS] = {"j1", "slurm4", "workers2"};
    for (int i = 0; i < N_WAYS; i++) {
        snprintf(db[i], sizeof db[i], "%s/%s.db", s->tmp, names[i]);
        snprintf(staging[i], sizeof staging[i], "%s.slurm", db[i]);
    }
    char ep[64], curve[PATH_MAX + 16];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", 29000 + (int)(getpid() % 2000));
    snprintf(curve, sizeof curve, "%s/curve", s->tmp);
#define TOURNAMENT "arena", "tournament", "taylor-blackjack", "--bots", "random,random,random", \
                   "--rounds", rounds, "--seed", "1", "-q"
    const char *a1[] = {TOURNAMENT, "--db", db[JOBS1], NULL};
    const char *a2[] = {TOURNAMENT, "--db", db[SLURM4], "--slurm", "4", NULL};
    const char *a3[] = {TOURNAMENT, "--db", db[WORKERS2], "--slurm-workers", "2", "--workers",
                        ep, "--curve", "--curve-dir", curve, NULL};
#undef TOURNAMENT
    s->rc[JOBS1] = timed(s->dir, a1, NULL, NULL, &s->t[JOBS1]);
    s->rc[SLURM4] = timed(s->dir, a2, staging[SLURM4], script[SLURM4], &s->t[SLURM4]);
    s->rc[WORKERS2] = timed(s->dir, a3, staging[WORKERS2], script[WORKERS2], &s->t[WORKERS2]);
}

/* Each way's matches/s and its Slurm overhead before the first task and
 * after the last. */
static void derive_figures(slurm_run *s)
{
    const double matches = 6000;
    double *rate = s->rate, *before = s->before, *after = s->after;
    for (int i = 0; i < N_WAYS; i++) {
        const run_times *t = &s->t[i];
        rate[i] = matches / t->wall;
        before[i] = t->tasks && t->submit > 0 ? t->first_start - t->submit : NAN;
        after[i] = t->tasks && t->last_end > 0 ? t->end - t->last_end : NAN;
    }
    fprintf(stderr, "slurm: --jobs 1 %.0f matches/s; --slurm 4 %.0f (%.2f s + %.2f s Slurm); "
            "--slurm-workers 2 %.0f (%.2f s + %.2f s)\n", rate[0], rate[1], before[1], after[1],
            rate[2], before[2], after[2]);
}

/* The section's rows: the rates against --jobs 1, and the Slurm overheads in ms. */
static void record_rows(const slurm_run *s)
{
    const double *rate = s->rate, *before = s->before, *after = s->after;
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
}

/* The section's text: how it measures, the table, and what the overheads are. */
static void write_section(FILE *md, const slurm_run *s)
{
    const double *rate = s->rate, *before = s->before, *after = s->after;
    const run_times *t = s->t;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(md,
            "## Slurm\n\n"
            "The same `arena tournament taylor-blackjack --bots random,random,random --rounds "
            "2000` (6,000 matches, 3 seats, no replays) three ways, each a separate process "
            "timed from outside, databases in %s, on the private single-node cluster of the "
            "tests (`tests/slurm/cluster.sh`: slurmctld, slurmd and munged on this machine, "
            "up in %.1f s; the node has the machine's %ld cores, a task takes one). Load "
            "average before the runs %.2f, after them %.2f (the 1-minute average, which lags "
            "and counts this benchmark's own processes: the page's header says how to read "
            "it). Each way is run once: its ratio has no spread. docs/scale.md says which to "
            "use when.\n\n"
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
            s->base, s->cluster_s, cores, s->load0, s->load1, t[0].wall, rate[0], t[1].wall,
            rate[1], rate[1] / rate[0], t[1].tasks, before[1] * 1000, after[1] * 1000, t[2].wall,
            rate[2], rate[2] / rate[0], t[2].tasks, before[2] * 1000, after[2] * 1000);
}

int bench_slurm(FILE *md, const char *arena_dir)
{
    slurm_run s;
    memset(&s, 0, sizeof s);
    if (arena_dir)
        snprintf(s.dir, sizeof s.dir, "%s", arena_dir);
    else
        snprintf(s.dir, sizeof s.dir, "%s/../arena", bench_exe_dir());
    add_sbin_to_path();
    s.cluster_sh = JA_CLUSTER_SH;
    if (write_why_not_measured(md, s.cluster_sh))
        return BENCH_SECTION_SKIPPED;
    if (make_scratch(&s) != 0 || start_cluster(&s) != 0)
        return 1;
    s.load0 = bench_loadavg();
    time_three_ways(&s);
    s.load1 = bench_loadavg();
    stop_cluster(&s);
    if (s.rc[JOBS1] || s.rc[SLURM4] || s.rc[WORKERS2]) {
        fprintf(stderr, "ja_bench: slurm: a tournament failed (--jobs 1: %d, --slurm 4: %d, "
                "--slurm-workers 2: %d)\n", s.rc[JOBS1], s.rc[SLURM4], s.rc[WORKERS2]);
        return 1;
    }
    derive_figures(&s);
    record_rows(&s);
    write_section(md, &s);
    return 0;
}
