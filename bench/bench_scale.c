/* The "Scale" section of docs/performance.md (docs/scale.md): whole
 * `arena tournament` runs as separate processes, timed from outside, each
 * figure beside the limit it is measured against in the same run:
 *
 *   --jobs 2 against --jobs 1 (the same plan, two worker processes against
 *   the in-process executor), and against two --jobs 1 runs side by side
 *   (what the machine's cores give at that minute); two remote workers on loopback tcp against
 *   one; a `cmd:` bot process serving 8 matches at once against one match
 *   at a time and against the raw ZeroMQ round trip; peak RSS of a worker
 *   and of the arena with 1,000 matches in flight; RSS of the arena sampled
 *   over a 100,000-match run (first against last sample: flat or not).
 *
 * Databases go to /dev/shm when it exists: the figures are the executors'
 * and the protocol's, not the disk's (with synchronous=FULL on a disk, the
 * fsync per match is the limit of every row alike). */
#include "bench_scale.h"
#include "bench.h"
#include "bench_rows.h"

#include <errno.h>
#include <sqlite3.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static char g_dir[PATH_MAX];   /* the arena's directory */
static char g_tmp[PATH_MAX];   /* scratch for databases */

static double g_last_cpu; /* CPU seconds of the last process finish() waited for */

static pid_t start(const char *const *argv)
{
    return bench_start(g_dir, argv);
}

static int finish(pid_t pid, long *rss_kib)
{
    return bench_finish(pid, rss_kib, &g_last_cpu);
}

static long vm_rss(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

static void fresh_db(char *db, size_t cap, const char *name)
{
    snprintf(db, cap, "%s/%s.db", g_tmp, name);
    unlink(db);
    char side[PATH_MAX + 16];
    snprintf(side, sizeof side, "%s-wal", db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db);
    unlink(side);
}

/* One tournament of `rounds` x 3 matches of taylor-blackjack between three
 * random bots, with extra flags; matches/s, or 0 on failure. */
static double tournament(const char *name, const char *rounds, const char *const *extra,
                         long *rss)
{
    char db[PATH_MAX + 16];
    fresh_db(db, sizeof db, name);
    const char *argv[40] = {"arena", "tournament", "taylor-blackjack", "--bots",
                            "random,random,random", "--rounds", rounds, "--seed", "1",
                            "--db", db, "-q"};
    int n = 12;
    for (int i = 0; extra && extra[i] && n < 38; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    double t0 = bench_now_s();
    int rc = finish(start(argv), rss);
    double secs = bench_now_s() - t0;
    if (rc != 0) {
        fprintf(stderr, "ja_bench: scale: tournament %s failed (exit %d)\n", name, rc);
        return 0;
    }
    return 3.0 * strtod(rounds, NULL) / secs;
}

/* Two `--jobs 1` tournaments of `rounds` x 3 matches started together, each
 * its own process and database: the matches/s of both together, timed until
 * the second ends (or 0 on failure). Nothing is shared between them, so what
 * they reach is what this machine's two cores give two such runs at once:
 * the ceiling of any parallel row. */
static double side_by_side(const char *rounds)
{
    char db[2][PATH_MAX + 16];
    pid_t p[2];
    double t0 = bench_now_s();
    for (int i = 0; i < 2; i++) {
        fresh_db(db[i], sizeof db[i], i ? "pair2" : "pair1");
        const char *argv[] = {"arena", "tournament", "taylor-blackjack", "--bots",
                              "random,random,random", "--rounds", rounds, "--seed", "1",
                              "--db", db[i], "-q", NULL};
        p[i] = start(argv);
    }
    int rc0 = finish(p[0], NULL), rc1 = finish(p[1], NULL);
    double secs = bench_now_s() - t0;
    if (rc0 != 0 || rc1 != 0) {
        fprintf(stderr, "ja_bench: scale: two --jobs 1 runs side by side failed (exit %d, %d)\n",
                rc0, rc1);
        return 0;
    }
    return 2 * 3.0 * strtod(rounds, NULL) / secs;
}

static double g_arena_cpu;  /* CPU seconds of the arena in the last remote() run */
static double g_worker_cpu; /* ... and of its workers together */

/* The same with `workers` remote workers (--slots slots) joining over
 * loopback tcp; their largest peak RSS in *worker_rss. */
static double remote(const char *name, const char *rounds, int workers, const char *slots,
                     long *arena_rss, long *worker_rss)
{
    static int port_seq;
    char ep[64];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", 27000 + (int)(getpid() % 2000) + port_seq++);
    const char *extra[] = {"--jobs", "0", "--workers", ep, "--plain-tcp", NULL};
    char db[PATH_MAX + 16];
    fresh_db(db, sizeof db, name);
    const char *argv[] = {"arena", "tournament", "taylor-blackjack", "--bots",
                          "random,random,random", "--rounds", rounds, "--seed", "1",
                          "--db", db, "-q", extra[0], extra[1], extra[2], extra[3], extra[4],
                          NULL};
    double t0 = bench_now_s();
    pid_t a = start(argv);
    pid_t w[8];
    for (int i = 0; i < workers && i < 8; i++) {
        const char *wargv[] = {"referee", "--connect", ep, "--slots", slots, NULL};
        w[i] = start(wargv);
    }
    int rc = finish(a, arena_rss);
    double secs = bench_now_s() - t0;
    g_arena_cpu = g_last_cpu;
    *worker_rss = 0;
    g_worker_cpu = 0;
    for (int i = 0; i < workers && i < 8; i++) {
        long r = 0;
        finish(w[i], &r);
        g_worker_cpu += g_last_cpu;
        if (r > *worker_rss)
            *worker_rss = r;
    }
    if (rc != 0) {
        fprintf(stderr, "ja_bench: scale: %s failed (exit %d)\n", name, rc);
        return 0;
    }
    return 3.0 * strtod(rounds, NULL) / secs;
}


/* Decisions played in a database's matches (forced ones included). */
static double db_turns(const char *db)
{
    sqlite3 *s = NULL;
    sqlite3_stmt *st = NULL;
    double v = 0;
    if (sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(s, "SELECT sum(turns) FROM matches WHERE status = 'done'", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(s);
    return v;
}

/* Two `cmd:` bots in C (capacity 8), each its own process, `jobs` matches
 * at once: decisions per second per bot process. */
static double zmq_seats(const char *name, const char *jobs, const char *rounds)
{
    char db[PATH_MAX + 16], bot[PATH_MAX + 96];
    fresh_db(db, sizeof db, name);
    snprintf(bot, sizeof bot, "cmd:%s/../sdk/examples/ja_example_bot --capacity 8", g_dir);
    const char *argv[] = {"arena", "tournament", "taylor-blackjack", "--bot", bot, "--bot", bot,
                          "--rounds", rounds, "--seed", "1", "--db", db, "-q", "--jobs", jobs,
                          NULL};
    double t0 = bench_now_s();
    int rc = finish(start(argv), NULL);
    double secs = bench_now_s() - t0;
    if (rc != 0) {
        fprintf(stderr, "ja_bench: scale: %s failed (exit %d)\n", name, rc);
        return 0;
    }
    return db_turns(db) / secs / 2;
}

/* The --jobs rows' rounds: 6,000 matches of three seats. */
static const char ROUNDS[] = "2000";

/* What one run of the section measured: its rows and its text are made of
 * these alone, in the order the text names them. */
typedef struct scale_run {
    const char *base;    /* where the databases are: /dev/shm or /tmp */
    long cores;
    double load0, load1; /* the load average before and after the section */
    /* --jobs 1, --jobs 2, --jobs 2 --threads and two --jobs 1 side by side:
     * three trials of each, --jobs 1's best (a floor) and the others'
     * medians, the arena's largest peak RSS. */
    double j1_t[3], j2_t[3], jt_t[3], jp_t[3];
    double j1_rate, j2_rate, jt_rate, jp_rate;
    long rss1, rss2;
    /* One remote worker and two; the larger worker's peak RSS and the CPU
     * time a match of the arena and of the workers, in the two-worker run. */
    double r1, r2;
    long w2;
    double arena_us, worker_us;
    /* The raw round trip, and a cmd: bot one match at a time and 8 in
     * flight: three trials of each, the raw round trip's best (a floor) and
     * the others' medians. */
    double raw_t[3], z1_t[3], z8_t[3];
    double raw, z1, z8;
    /* 1,000 matches in flight: matches/s, the arena's and the worker's peak RSS. */
    double r_many;
    long a_many, w_many;
    /* The 100,002-match run: its time, the arena's RSS samples, their
     * largest, median and 95th percentile. */
    double long_secs;
    long samples[4096];
    int n_samples;
    long lmax, lmed, l95;
    /* The target cells of the tables (bench_row_target). */
    char cell_j2[64], cell_z1[64], cell_z8[64];
    /* Their ratio cells, with the spreads (bench_ratio_cell). */
    char ratio_j2[96], ratio_z1[96], ratio_z8[96];
} scale_run;

/* Sets the arena's directory (NULL: ../arena beside this program) and makes
 * the scratch directory for the databases, in /dev/shm when it exists.
 * Its base, or NULL after a message. */
static const char *open_scratch(const char *arena_dir)
{
    if (arena_dir) {
        snprintf(g_dir, sizeof g_dir, "%s", arena_dir);
    } else {
        snprintf(g_dir, sizeof g_dir, "%s/../arena", bench_exe_dir());
    }
    struct stat sb;
    const char *base = stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(g_tmp, sizeof g_tmp, "%s/ja_bench_scale.XXXXXX", base);
    if (!mkdtemp(g_tmp)) {
        fprintf(stderr, "ja_bench: scale: no scratch directory: %s\n", strerror(errno));
        return NULL;
    }
    return base;
}

static void remove_scratch(void)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "ja_bench: could not remove %s\n", g_tmp);
}

/* --jobs 1 against --jobs 2, the same plan, beside --jobs 2 --threads and
 * two --jobs 1 runs side by side. Three runs of each, interleaved, --jobs 1's
 * best (the baseline's floor) and the others' medians: the rows' ratios
 * move between runs on a shared virtual machine (its two CPUs need not be
 * equally fast from one minute to the next). Peak RSS:
 * the largest. */
static void measure_jobs(scale_run *s)
{
    const char *j2[] = {"--jobs", "2", NULL};
    const char *jt[] = {"--jobs", "2", "--threads", NULL};
    for (int t = 0; t < 3; t++) {
        long r1_ = 0, r2_ = 0;
        s->j1_t[t] = tournament("j1", ROUNDS, NULL, &r1_);
        s->jp_t[t] = side_by_side(ROUNDS);
        s->j2_t[t] = tournament("j2", ROUNDS, j2, &r2_);
        s->jt_t[t] = tournament("jt", ROUNDS, jt, NULL); /* its peak RSS is not shown */
        s->rss1 = r1_ > s->rss1 ? r1_ : s->rss1;
        s->rss2 = r2_ > s->rss2 ? r2_ : s->rss2;
    }
    s->j1_rate = bench_best(s->j1_t, 3); /* the baseline: a floor, its best run */
    s->j2_rate = bench_median3(s->j2_t);
    s->jt_rate = bench_median3(s->jt_t);
    s->jp_rate = bench_median3(s->jp_t);
    double j1_rate = s->j1_rate, j2_rate = s->j2_rate, jt_rate = s->jt_rate, jp_rate = s->jp_rate;
    fprintf(stderr, "scale: --jobs 1 %.0f matches/s, --jobs 2 %.0f (%.2fx), --jobs 2 --threads "
            "%.0f (%.2fx), two --jobs 1 side by side %.0f (%.2fx)\n", j1_rate, j2_rate,
            j1_rate > 0 ? j2_rate / j1_rate : 0, jt_rate, j1_rate > 0 ? jt_rate / j1_rate : 0,
            jp_rate, j1_rate > 0 ? jp_rate / j1_rate : 0);
}

/* One remote worker against two, loopback tcp, one slot each; the CPU time
 * a match of the arena and of the workers in the two-worker run. */
static void measure_remote_workers(scale_run *s)
{
    long a1 = 0, w1 = 0, a2 = 0;
    s->r1 = remote("r1", ROUNDS, 1, "1", &a1, &w1);
    s->r2 = remote("r2", ROUNDS, 2, "1", &a2, &s->w2);
    s->arena_us = g_arena_cpu / 6000.0 * 1e6;
    s->worker_us = g_worker_cpu / 6000.0 * 1e6;
    fprintf(stderr, "scale: 1 tcp worker %.0f matches/s, 2 workers %.0f (%.2fx); worker peak "
            "RSS %ld KiB\n", s->r1, s->r2, s->r1 > 0 ? s->r2 / s->r1 : 0, s->w2);
}

/* ZeroMQ seats: one stream against 8 matches in flight per bot process,
 * both against the raw round trip; three runs of each, interleaved. */
static void measure_cmd_bots(scale_run *s)
{
    for (int t = 0; t < 3; t++) {
        /* The better of a free and a pinned run (bench.h). */
        s->raw_t[t] = fmax(bench_raw_zmq_round_trips(300, 16, 20000, BENCH_FREE),
                           bench_raw_zmq_round_trips(300, 16, 20000, BENCH_PINNED));
        s->z1_t[t] = zmq_seats("z1", "1", "100");
        s->z8_t[t] = zmq_seats("z8", "8", "400");
    }
    double raw = s->raw = bench_best(s->raw_t, 3); /* the baseline: its best trial */
    double z1 = s->z1 = bench_median3(s->z1_t), z8 = s->z8 = bench_median3(s->z8_t);
    fprintf(stderr, "scale: raw %.0f/s; cmd: bot 1 stream %.0f dec/s (%.2fx), 8 in flight %.0f "
            "(%.2fx)\n", raw, z1, raw > 0 ? z1 / raw : 0, z8, raw > 0 ? z8 / raw : 0);
}

/* 1,000 matches in flight: one worker announcing 500 slots (the arena
 * hands out two jobs per slot). */
static void measure_in_flight(scale_run *s)
{
    s->r_many = remote("inflight", "1000", 1, "500", &s->a_many, &s->w_many);
    fprintf(stderr, "scale: 1,000 in flight: arena peak RSS %ld KiB (worker %ld KiB)\n",
            s->a_many, s->w_many);
}

/* 100,000 matches with --jobs 2: the arena's RSS sampled every 0.5 s until
 * it exits. */
static void sample_long_run(scale_run *s)
{
    char db[PATH_MAX + 16];
    fresh_db(db, sizeof db, "long");
    const char *largv[] = {"arena", "tournament", "taylor-blackjack", "--bots",
                           "random,random,random", "--rounds", "33334", "--seed", "2", "--db",
                           db, "-q", "--jobs", "2", NULL};
    double t0 = bench_now_s();
    pid_t lp = start(largv);
    for (;;) {
        struct timespec ts = {0, 500 * 1000000};
        nanosleep(&ts, NULL);
        int st;
        if (waitpid(lp, &st, WNOHANG) == lp)
            break;
        long r = vm_rss(lp);
        if (r > 0 && s->n_samples < 4096)
            s->samples[s->n_samples++] = r;
    }
    s->long_secs = bench_now_s() - t0;
}

/* The largest of the long run's samples, their median and 95th percentile.
 * The median and the 95th percentile show whether memory stays flat while
 * matches are played; the largest and the last samples may catch the
 * closing standings, whose fit reads every result at once. */
static void summarise_long_run(scale_run *s)
{
    const long *samples = s->samples;
    int n_samples = s->n_samples;
    for (int i = 0; i < n_samples; i++)
        if (samples[i] > s->lmax)
            s->lmax = samples[i];
    long sorted[4096];
    memcpy(sorted, samples, (size_t)n_samples * sizeof *sorted);
    qsort(sorted, (size_t)n_samples, sizeof *sorted, cmp_long);
    s->lmed = n_samples ? sorted[n_samples / 2] : 0;
    s->l95 = n_samples ? sorted[(n_samples * 95) / 100] : 0;
    fprintf(stderr,
            "scale: 100,002 matches in %.0f s; RSS first %ld, median %ld, 95%% %ld, last %ld, "
            "max %ld KiB\n",
            s->long_secs, n_samples ? samples[0] : 0, s->lmed, s->l95,
            n_samples ? samples[n_samples - 1] : 0, s->lmax);
}

/* The section's rows, and the target cells its tables show. */
static void record_rows(scale_run *s)
{
    double j1_rate = s->j1_rate, j2_rate = s->j2_rate, jt_rate = s->jt_rate, jp_rate = s->jp_rate;
    double r1 = s->r1, r2 = s->r2, raw = s->raw, z1 = s->z1, z8 = s->z8;
    bench_row_add("--jobs 1 (in-process executor)", j1_rate, "matches/s", NAN, BENCH_NO_TARGET,
                  0);
    double per[6][3];
    const bench_row *j2 = bench_row_add_trials(
        "--jobs 2 / --jobs 1", j2_rate, "matches/s", j1_rate > 0 ? j2_rate / j1_rate : NAN,
        bench_ratios(s->j2_t, s->j1_t, 3, per[0]), 3, BENCH_AT_LEAST, 1.7);
    bench_row_target(j2, s->cell_j2, sizeof s->cell_j2);
    bench_ratio_cell(j2, true, s->ratio_j2, sizeof s->ratio_j2);
    bench_row_add_trials("--jobs 2 --threads / --jobs 1", jt_rate, "matches/s",
                         j1_rate > 0 ? jt_rate / j1_rate : NAN,
                         bench_ratios(s->jt_t, s->j1_t, 3, per[1]), 3, BENCH_NO_TARGET, 0);
    bench_row_add_trials("two --jobs 1 runs side by side / --jobs 1", jp_rate, "matches/s",
                         j1_rate > 0 ? jp_rate / j1_rate : NAN,
                         bench_ratios(s->jp_t, s->j1_t, 3, per[2]), 3, BENCH_NO_TARGET, 0);
    bench_row_add_trials("--jobs 2 / two --jobs 1 runs side by side", j2_rate, "matches/s",
                         jp_rate > 0 ? j2_rate / jp_rate : NAN,
                         bench_ratios(s->j2_t, s->jp_t, 3, per[3]), 3, BENCH_NO_TARGET, 0);
    bench_row_add("one remote worker, loopback tcp", r1, "matches/s", NAN, BENCH_NO_TARGET, 0);
    bench_row_add("two remote workers / one", r2, "matches/s", r1 > 0 ? r2 / r1 : NAN,
                  BENCH_NO_TARGET, 0);
    bench_row_add("raw ZeroMQ round trip, one stream", raw, "round trips/s", NAN,
                  BENCH_NO_TARGET, 0);
    /* One match at a time, each bot waits while the other decides: per
     * bot process that is at most half a stream, so this row has no target
     * (the one-stream target is judged in "External bots over ZeroMQ"). */
    bench_ratio_cell(bench_row_add_trials("cmd: bot, one match at a time / raw ZeroMQ round trip",
                                          z1, "decisions/s", raw > 0 ? z1 / raw : NAN,
                                          bench_ratios(s->z1_t, s->raw_t, 3, per[4]), 3,
                                          BENCH_NO_TARGET, 0),
                     false, s->ratio_z1, sizeof s->ratio_z1);
    snprintf(s->cell_z1, sizeof s->cell_z1, "(one stream: see above)");
    const bench_row *z8r = bench_row_add_trials(
        "cmd: bot, 8 matches in flight / raw ZeroMQ round trip", z8, "decisions/s",
        raw > 0 ? z8 / raw : NAN, bench_ratios(s->z8_t, s->raw_t, 3, per[5]), 3,
        BENCH_AT_LEAST, 3);
    bench_row_target(z8r, s->cell_z8, sizeof s->cell_z8);
    bench_ratio_cell(z8r, true, s->ratio_z8, sizeof s->ratio_z8);
    bench_row_add("arena peak RSS, 1,000 matches in flight", s->a_many, "KiB", NAN,
                  BENCH_NO_TARGET, 0);
    bench_row_add("arena RSS, 100,002-match run, 95th percentile", s->l95, "KiB", NAN,
                  BENCH_NO_TARGET, 0);
}

/* The section's heading, how it measures, and the table of the --jobs and
 * remote rows. */
static void write_jobs_table(FILE *md, const scale_run *s)
{
    double j1_rate = s->j1_rate, j2_rate = s->j2_rate, jt_rate = s->jt_rate, jp_rate = s->jp_rate;
    double r1 = s->r1, r2 = s->r2;
    const double *j1_t = s->j1_t, *j2_t = s->j2_t, *jt_t = s->jt_t, *jp_t = s->jp_t;
    fprintf(md,
            "\n## Scale\n\n"
            "Whole `arena tournament taylor-blackjack --bots random,random,random` runs "
            "(3 seats, default options, no replays), each a separate process timed from "
            "outside, start-up included, databases in %s (the executors' and the protocol's "
            "speed, not the disk's: on a disk the fsync of each match's transaction is the "
            "limit of every row alike). %ld cores; load average before this section's runs %.2f, "
            "after them %.2f (the 1-minute average, which lags and counts this benchmark's "
            "own processes: the page's header says how to read it). docs/scale.md describes "
            "the workers.\n\n"
            "The `--jobs` rows are three runs of each, interleaved: `--jobs 1`, the "
            "baseline, is a floor, its best run, the others the medians of theirs; beside "
            "a ratio, in brackets, the lowest and highest of the per-run ratios (each run "
            "over the `--jobs 1` run beside it); the remote rows are one run each, their "
            "ratio without a spread (matches/s: "
            "`--jobs 1` %.0f, %.0f, %.0f; `--jobs 2` %.0f, %.0f, %.0f; `--jobs 2 --threads` "
            "%.0f, %.0f, %.0f; two `--jobs 1` side by side %.0f, %.0f, %.0f).\n\n"
            "| run | matches | matches/s | against | ratio | target |\n|---|---|---|---|---|---|\n"
            "| `--jobs 1` (in-process executor) | 6000 | %.0f | | | |\n"
            "| `--jobs 2` (two local referee workers, ipc) | 6000 | %.0f | `--jobs 1` | "
            "%s | %s |\n"
            "| `--jobs 2 --threads` (two threads in the arena's process) | 6000 | %.0f | "
            "`--jobs 1` | %.2f | |\n"
            "| two `--jobs 1` runs side by side (two processes, nothing shared) | 12000 | %.0f "
            "| `--jobs 1` | %.2f | |\n"
            "| one remote worker, loopback tcp, 1 slot | 6000 | %.0f | | | |\n"
            "| two remote workers, loopback tcp, 1 slot each | 6000 | %.0f | one worker | "
            "**%.2f** | |\n\n",
            s->base, s->cores, s->load0, s->load1, j1_t[0], j1_t[1], j1_t[2], j2_t[0], j2_t[1],
            j2_t[2], jt_t[0], jt_t[1], jt_t[2], jp_t[0], jp_t[1], jp_t[2], j1_rate, j2_rate,
            s->ratio_j2, s->cell_j2, jt_rate,
            j1_rate > 0 ? jt_rate / j1_rate : 0, jp_rate, j1_rate > 0 ? jp_rate / j1_rate : 0,
            r1, r2, r1 > 0 ? r2 / r1 : 0);
}

/* What the --jobs rows are held by in this run: the transport (against
 * threads), the machine (against two runs side by side) and the arena's
 * own CPU time a match. */
static void write_jobs_limits(FILE *md, const scale_run *s)
{
    double j1_rate = s->j1_rate, j2_rate = s->j2_rate, jt_rate = s->jt_rate, jp_rate = s->jp_rate;
    double arena_us = s->arena_us;
    fprintf(md,
            "`--jobs 2` against `--jobs 2 --threads` in this run: **%.2f**. The threads' row "
            "plays the same matches with the same two referees and no transport at all (no "
            "process, no ZeroMQ between the arena and its referees): what the worker "
            "processes and their transport cost shows in this ratio alone, and where both "
            "rows fall short of 1.7 together, what holds them is what the two CPUs give "
            "two referees and the arena at once on this machine, not the transport.\n\n"
            "How much the machine gives: two `--jobs 1` runs side by side, two processes "
            "that share nothing but the machine (their own databases, no transport), "
            "reached %.2f times one run: the most any parallel row can reach here at this "
            "time. `--jobs 2` against them: **%.2f** (what it loses beyond that is the work "
            "a parallel run adds: one arena records every result and hands out every job, "
            "below).\n\n"
            "The limit: the arena alone records every result (one SQLite transaction for the "
            "results that arrived together, live Elo included) and hands out every job; its "
            "own CPU time in the two-worker run was **%.0f us per match** (wait4 of the "
            "arena, the workers being separate processes), a ceiling of %.0f matches/s "
            "however many workers play. "
            "A match of this cheap game cost the workers %.0f us of CPU, so on 2 cores the "
            "arena and two workers share the cores: `--jobs 2` can at best reach "
            "(arena + worker) / ((arena + worker) / 2) = 2x when nothing else runs, and other "
            "load on the machine lowers every parallel row first.\n\n"
            "What the worker processes cost: two threads in the arena's process "
            "(`--threads`, the row above) play the same matches with no job or result "
            "crossing between processes. Every crossing of ZeroMQ (ipc) wakes the I/O "
            "threads of both sides, an `eventfd` write and a context switch each; when "
            "each result and each job crossed on its own, the workers' run used 2.66 s of "
            "CPU against 2.37 s for the threads' (6,000 matches; 0.30 s more in the kernel, "
            "some 6 context switches a match, and a tenth of the two cores idle waiting on "
            "those wake-ups), and this row was 1.55. Now a local worker holds the results "
            "of short matches back while it has more jobs queued and sends them "
            "together (up to 32; 8 until 2026-11-27), and the arena keeps up to 64 jobs a "
            "slot (16 then) at a worker whose matches are short (docs/scale.md): one "
            "wake-up carries several matches. CPU time of "
            "the whole run since (`perf stat`, 6,000 matches, apart from this run, "
            "2026-11-27, Intel Xeon, 2 cores, three runs each): `--jobs 1` 2.24 s, "
            "`--jobs 2 --threads` 2.31 s (15,000 context switches), `--jobs 2` with workers "
            "2.36 s (25,000): the workers now cost about 8 us a match more than threads, "
            "the transport's share of it. A remote worker's slot threads hold results the "
            "same way, each handing what it held to the thread that talks to the arena at "
            "once; when each result crossed alone, the remote rows measured 3760-3790 "
            "matches/s with two workers and 2690-2700 with one (two runs, 2026-11-27, Intel "
            "Xeon, 2 cores), against 4090-4190 and 2790-2840 with holding (two runs, same "
            "machine, same day).\n\n",
            jt_rate > 0 ? j2_rate / jt_rate : 0, j1_rate > 0 ? jp_rate / j1_rate : 0,
            jp_rate > 0 ? j2_rate / jp_rate : 0, arena_us, arena_us > 0 ? 1e6 / arena_us : 0,
            s->worker_us);
}

/* The peak RSS of the arenas and the workers. */
static void write_memory(FILE *md, const scale_run *s)
{
    fprintf(md,
            "Memory (peak RSS, from wait4):\n\n"
            "| process | peak RSS |\n|---|---|\n"
            "| arena, `--jobs 1` | %ld KiB |\n"
            "| arena, `--jobs 2` | %ld KiB |\n"
            "| a referee worker (1 slot, 6,000 matches) | %ld KiB |\n"
            "| arena with 1,000 matches in flight (a worker with 500 slots; %.0f matches/s) "
            "| %ld KiB |\n"
            "| that worker (500 threads) | %ld KiB |\n\n",
            s->rss1, s->rss2, s->w2, s->r_many, s->a_many, s->w_many);
}

/* The cmd: bots' table against the raw round trip, and what it shows. */
static void write_cmd_bots(FILE *md, const scale_run *s)
{
    double raw = s->raw, z1 = s->z1, z8 = s->z8;
    const double *raw_t = s->raw_t, *z1_t = s->z1_t, *z8_t = s->z8_t;
    fprintf(md,
            "External bots with several matches in flight: two `cmd:` bots in C "
            "(`ja_example_bot --capacity 8`, one process each) in taylor-blackjack, "
            "decisions per second per bot process (forced decisions included), against a raw "
            "ZeroMQ DEALER/ROUTER round trip between two processes over ipc (300 bytes out, "
            "16 back) in the same run; three runs of each, interleaved, the raw round trip "
            "a floor (its best run, each run the better of one where the scheduler places "
            "its two processes and one with each pinned to a CPU of its own), the `cmd:` "
            "rows medians, each ratio with the lowest and highest of the per-run ratios in "
            "brackets (raw %.0f, "
            "%.0f, %.0f; one match at a time %.0f, %.0f, %.0f; 8 in flight %.0f, %.0f, "
            "%.0f):\n\n"
            "| path | decisions/s per bot process | / raw round trip | target |\n"
            "|---|---|---|---|\n"
            "| raw round trip, one stream | %.0f | 1 | |\n"
            "| `cmd:` bot, one match at a time (`--jobs 1`) | %.0f | %s | %s |\n"
            "| `cmd:` bot, 8 matches in flight (`--jobs 8`: the event executor) | %.0f | "
            "%s | %s |\n\n"
            "One match at a time, the two bots take turns: each waits while the other "
            "decides, so a bot process answers at most half the decisions of the stream, "
            "and that row has no target (the one-stream target, decisions of both bots "
            "against one raw stream, is judged in \"External bots over ZeroMQ\"). With 8 "
            "matches in flight a bot process always has work. Both runs use the C "
            "client's compact act (docs/protocol.md, `x_bin`: the observation's bytes "
            "instead of a map of dozens of arrays, which the bot would otherwise decode "
            "with msgpack-c object by object). Every bot being external, `--jobs 8` plays "
            "the 8 matches in one thread that runs the hub's loop itself "
            "(arena/run/executor_events.c, docs/architecture.md): each wake-up of that thread "
            "takes every answer that came and sends the matches' next questions at once, "
            "so a decision costs no hop between threads and a burst of answers one "
            "wake-up. Before it (a thread per match, each decision crossing to the hub's "
            "thread and back over inproc, and the full act) this row was 1.75; the event "
            "executor alone raised it to about 2.5, and with the compact act it measured "
            "from 2.9 to 3.6 in separate runs on this machine kind (2026-11-27, Intel Xeon, "
            "2 cores): the run is no longer CPU-bound (about 1.25 of the 2 cores busy, "
            "`time` of the whole run) but bound by the latency of the wake-ups along each "
            "decision (the I/O threads of ZeroMQ on both sides, the bot's thread), which "
            "varies between runs on a shared virtual machine as much as the raw round "
            "trip's.\n\n",
            raw_t[0], raw_t[1], raw_t[2], z1_t[0], z1_t[1], z1_t[2], z8_t[0], z8_t[1], z8_t[2],
            raw, z1, s->ratio_z1, s->cell_z1, z8, s->ratio_z8, s->cell_z8);
}

/* Where the cmd: bots' time goes: a profile that this run does not
 * measure (it would need perf), so it names its dates and machines. */
static void write_cmd_bots_profile(FILE *md)
{
    fprintf(md,
            "**Where the time goes on a 2-core AMD EPYC virtual machine** (2026-11-27), "
            "where this row has read 1.9 to 2.7: the kernel and the transport. "
            "A system call costs about 1.1 us there (a poll that does not wait, or a getpid; "
            "a tenth of that is usual on bare metal), and a thread's wake-up more. A profile "
            "of the whole machine during this run (`perf record -a -g`, 400 rounds, 55,619 "
            "samples) put 67.5%% of the samples in the kernel (most under `pvm_irq_enable`, "
            "the paravirtual hypervisor's return from an interrupt, after the context "
            "switches of thread wake-ups: `finish_task_switch` from `epoll_wait`, `poll` and "
            "`futex`), 9.4%% idle, 13.7%% in libc (11.9%% in the system calls' wrappers: "
            "poll, getpid, epoll_wait, epoll_ctl, write, read, send, recv), 5.7%% in libzmq, "
            "and 3.5%% in the project's own code and the libraries it calls for its own work "
            "(the arena, the bot, msgpack-c, SQLite): were all of that free, this row would "
            "rise by 4%% at most, short of 3 from any reading here. What is left to cut "
            "is system calls and wake-ups, and most of those are ZeroMQ's own (each message "
            "crosses an I/O thread on each side: an eventfd write, an epoll_wait, an "
            "epoll_ctl and a socket call, and libzmq checks a socket's mailbox with a poll "
            "and a getpid). The project's share of them was cut: the hub's loop and the C "
            "client wait with poll() on each socket's ZMQ_FD instead of zmq_poll, which "
            "checks every socket's events before and after it waits "
            "(docs/architecture.md): 4.14 million system calls for these 400 rounds before, "
            "3.39 million after (`perf stat -a`), and the run took 8.3 s instead of 9.1 s. "
            "Counted by thread after that (`perf record -a -e raw_syscalls:sys_enter`, the "
            "same 400 rounds, 286,746 decisions, 2026-11-27, AMD EPYC): 14 system calls a "
            "decision, 7.9 of them in ZeroMQ's I/O threads (2.0 getpid, 1.3 epoll_wait, "
            "1.25 epoll_ctl, 1.0 poll, 1.25 sendto and recvfrom, 1.0 read and write of "
            "eventfds), 2.8 in the arena's thread (1.2 getpid, 1.2 poll, 0.4 eventfd) and "
            "3.3 in the bots' (1.5 getpid, 1.2 poll, 0.6 eventfd). The project calls "
            "getpid nowhere on this path: all 4.7 a decision are libzmq's check that the "
            "process has not forked, made at each look into a mailbox, and the epoll_ctl "
            "calls its I/O threads' turning of POLLOUT on and off around each write: the "
            "transport's own work, which no caller of ZeroMQ can remove.\n\n");
}

/* The 100,002-match run: its rate and the arena's resident memory. */
static void write_long_run(FILE *md, const scale_run *s)
{
    const long *samples = s->samples;
    int n_samples = s->n_samples;
    double long_secs = s->long_secs;
    fprintf(md,
            "A 100,002-match run (`--jobs 2`) took %.0f s (%.0f matches/s); the arena's "
            "resident memory, sampled every 0.5 s (%d samples): first %ld KiB, median %ld "
            "KiB, 95th percentile %ld KiB, last %ld KiB, largest %ld KiB. Play itself runs "
            "in constant memory (the median and the 95th percentile). Start-up and the "
            "closing standings show in the first, last and largest samples when a sample "
            "falls on them: the standings' Bradley-Terry fit reads every pairwise result of "
            "the tournament at once (memory in proportion to its matches, about 20 MB for "
            "these 100,002, freed when it is done).\n",
            long_secs, long_secs > 0 ? 100002.0 / long_secs : 0, n_samples,
            n_samples ? samples[0] : 0, s->lmed, s->l95, n_samples ? samples[n_samples - 1] : 0,
            s->lmax);
}

static void write_section(FILE *md, const scale_run *s)
{
    write_jobs_table(md, s);
    write_jobs_limits(md, s);
    write_memory(md, s);
    write_cmd_bots(md, s);
    write_cmd_bots_profile(md);
    write_long_run(md, s);
}

void bench_scale(FILE *md, const char *arena_dir)
{
    scale_run s;
    memset(&s, 0, sizeof s);
    if (!(s.base = open_scratch(arena_dir)))
        return;
    s.cores = sysconf(_SC_NPROCESSORS_ONLN);
    s.load0 = bench_loadavg();
    measure_jobs(&s);
    measure_remote_workers(&s);
    measure_cmd_bots(&s);
    measure_in_flight(&s);
    sample_long_run(&s);
    summarise_long_run(&s);
    s.load1 = bench_loadavg();
    record_rows(&s);
    write_section(md, &s);
    remove_scratch();
}
