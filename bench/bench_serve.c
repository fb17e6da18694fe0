/* The "Serve" section of docs/performance.md (bench_serve.h,
 * docs/server.md): the load test of tests/serve (the one the tests run,
 * reused, not copied) in its measuring mode. One server plays random
 * against greedy with --concurrency 2; the script counts the matches the
 * ladder records over 1,000 matches with no spectator, then over the next
 * 1,000 with SERVE_SPECTATORS (tests/serve/crowd.py, one Python thread),
 * samples the server's VmRSS as it polls, and times the crowd thread's own
 * CPU, so that the section can say how much of the drop is the clients'. */
#include "bench_serve.h"
#include "bench.h"
#include "bench_rows.h"
#include "bench_slurm.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef JA_SERVE_DIR
#define JA_SERVE_DIR "tests/serve"
#endif
#ifndef JA_FREE_PORT_PY
#define JA_FREE_PORT_PY "tests/free_port.py"
#endif

#define SERVE_MATCHES 1000
#define SERVE_SPECTATORS 1000
static const char PYTHON[] = "/usr/bin/python3";

/* What the load script printed ("serve R0 RN N PEAK RSS0 RSS_END TOTAL CPU
 * WINDOW"), the load average around it, and what the section derives. */
typedef struct serve_run {
    double r0, rn;       /* matches/s with no spectator, then with n */
    long n;              /* spectators */
    long peak, rss0;     /* the server's VmRSS at its peak, and with the spectators just in */
    long rss_end, total; /* ... at the end (KiB), and the matches in the ladder then */
    double cpu, window;  /* the crowd thread's CPU seconds, over the second count's */
    double load0, load1;
    long cores;
    double ratio;        /* rn / r0 */
    double core, share;  /* the crowd's share of one core, and of the machine */
} serve_run;

/* The load script's command line: its measuring mode on the arena of
 * arena_dir (NULL: ../arena beside this program) and the bots of bots_dir. */
static void load_command(char *cmd, size_t cap, const char *script, const char *arena_dir,
                         const char *bots_dir)
{
    char arena[PATH_MAX + 16], rnd[PATH_MAX + 16], greedy[PATH_MAX + 16];
    if (arena_dir)
        snprintf(arena, sizeof arena, "%s/arena", arena_dir);
    else
        snprintf(arena, sizeof arena, "%s/../arena/arena", bench_exe_dir());
    snprintf(rnd, sizeof rnd, "%s/ja_random.so", bots_dir);
    snprintf(greedy, sizeof greedy, "%s/ja_greedy.so", bots_dir);
    snprintf(cmd, cap, "%s '%s' '%s' '%s' '%s' '%s' --bench %d --spectators %d", PYTHON,
             script, arena, rnd, greedy, JA_FREE_PORT_PY, SERVE_MATCHES, SERVE_SPECTATORS);
}

/* Runs the load script and reads its figures, the load average taken
 * before and after. 0, or -1 after a message. */
static int run_load_script(const char *cmd, serve_run *v)
{
    v->load0 = bench_loadavg();
    fflush(NULL);
    FILE *p = popen(cmd, "r");
    v->r0 = v->rn = v->cpu = v->window = NAN;
    v->n = v->peak = v->rss0 = v->rss_end = v->total = -1;
    char line[512];
    int got = 0;
    while (p && fgets(line, sizeof line, p))
        if (sscanf(line, "serve %lf %lf %ld %ld %ld %ld %ld %lf %lf", &v->r0, &v->rn, &v->n,
                   &v->peak, &v->rss0, &v->rss_end, &v->total, &v->cpu, &v->window) == 9)
            got = 1;
    int rc = p ? pclose(p) : -1;
    v->load1 = bench_loadavg();
    if (!got || rc != 0 || !(v->r0 > 0) || !(v->window > 0)) {
        fprintf(stderr, "ja_bench: serve: the load script failed (status %d): %s\n", rc, cmd);
        return -1;
    }
    return 0;
}

/* The rate kept with spectators, and the crowd's share of a core and of
 * the machine. */
static void derive_figures(serve_run *v)
{
    v->cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (v->cores < 1)
        v->cores = 1;
    v->ratio = v->rn / v->r0;
    v->core = v->cpu / v->window;
    v->share = v->core / (double)v->cores;
    fprintf(stderr,
            "serve: %.0f matches/s with 0 spectators, %.0f with %ld (the crowd %.2f of a "
            "core); peak RSS %ld KiB\n",
            v->r0, v->rn, v->n, v->core, v->peak);
}

/* The section's rows; the one judged by its target. */
static const bench_row *record_rows(const serve_run *v)
{
    char name[96];
    bench_row_add("arena serve, 0 spectators", v->r0, "matches/s", NAN, BENCH_NO_TARGET, 0);
    snprintf(name, sizeof name, "arena serve, %ld spectators / 0", v->n);
    const bench_row *row =
        bench_row_add(name, v->rn, "matches/s", v->ratio, BENCH_AT_LEAST, 0.8);
    bench_row_add("arena serve, peak RSS", (double)v->peak / 1024, "MiB", NAN, BENCH_NO_TARGET,
                  0);
    return row;
}

/* How the section measures, the table, and the crowd's own CPU. */
static void write_table(FILE *md, const serve_run *v, const bench_row *row)
{
    char cell[64], rt[32];
    fprintf(md,
            "## Serve\n\n"
            "`arena serve bruise-jack --concurrency 2 --smoke 1` on loopback with two "
            "uploaded versions, the reference bots random and greedy (each seat a sandboxed "
            "`ja_host` child): matches recorded per second, counted from the ladder the "
            "server's own `/api/ladder` reports, over 1,000 matches with no spectator, then "
            "over the next 1,000 with %ld spectators on the same server. The spectators are "
            "`tests/serve/crowd.py`, one Python thread of non-blocking sockets under "
            "`selectors`, driven by `tests/serve/test_serve_load.py --bench`, the load "
            "test's own script: spectator i connects from its own loopback address "
            "127.0.X.Y (X = 1 + i / 250, Y = 1 + i %% 250), asks for `GET /` once, then "
            "keeps an `/api/events` stream open (the chunks decoded, every event counted "
            "and its id checked to follow the one before, one in 200 parsed as JSON, the "
            "spectators staggered) and asks for `GET /api/ladder` on a new connection "
            "every 10 s (`page_period`, each spectator's phase a seeded random offset), as "
            "a browser on the ladder page would (its script asks at most every 5 s). The "
            "server runs with `--max-streams 1100`, its other flags at their defaults. Load "
            "average before the load script %.2f, after it %.2f (the 1-minute average, which "
            "lags and counts this benchmark's own processes: the page's header says how to "
            "read it). The two counts are one run each: the ratio has no spread, and its "
            "verdict is that of this one run.\n\n"
            "| spectators | matches/s | / no spectator | target |\n|---|---|---|---|\n"
            "| 0 | %.0f | 1 | |\n"
            "| %ld | %.0f | **%s** | %s |\n\n"
            "The spectators run on the same %ld cores as the server and the matches' "
            "`ja_host` children: the crowd's thread used %.1f s of CPU over the %.1f s of "
            "the second count, %.2f of one core, %.0f%% of the machine. ",
            v->n, v->load0, v->load1, v->r0, v->n, v->rn, bench_ratio_text(row, rt, sizeof rt),
            bench_row_target(row, cell, sizeof cell), v->cores, v->cpu, v->window, v->core,
            100 * v->share);
}

/* How much of the rate lost is the clients' own CPU, and the server's
 * memory. */
static void write_loss_and_memory(FILE *md, const serve_run *v)
{
    double ratio = v->ratio, share = v->share;
    if (ratio < 1)
        fprintf(md,
                "The matches being CPU-bound, the clients account for at most %.2f of the "
                "%.2f lost; the rest is the server's work for the spectators (their "
                "connections and parked streams, the events written to each, a page per "
                "`GET /`, the shared `/api/ladder` answer made again at most once a second: "
                "docs/server.md, \"Connections\"): with the clients' share given back, the "
                "server would keep about %.2f of its rate.\n\n",
                fmin(share, 1 - ratio), 1 - ratio, fmin(1, ratio / (1 - share)));
    else
        fprintf(md, "No rate was lost to them in this run.\n\n");
    fprintf(md,
            "The server's resident memory (VmRSS, sampled at each poll): %.1f MiB with the "
            "%ld spectators just connected, **%.1f MiB** at its peak over the run, %.1f MiB "
            "at the end (%ld matches in the ladder).\n",
            (double)v->rss0 / 1024, v->n, (double)v->peak / 1024,
            (double)v->rss_end / 1024, v->total);
}

int bench_serve(FILE *md, const char *arena_dir, const char *bots_dir)
{
    char script[PATH_MAX];
    snprintf(script, sizeof script, "%s/test_serve_load.py", JA_SERVE_DIR);
    if (access(PYTHON, X_OK) != 0 || access(script, R_OK) != 0) {
        fprintf(md, "## Serve\n\nNot measured: %s or %s is missing.\n", PYTHON, script);
        return BENCH_SECTION_SKIPPED;
    }
    char cmd[4 * PATH_MAX + 160];
    load_command(cmd, sizeof cmd, script, arena_dir, bots_dir);
    serve_run v;
    if (run_load_script(cmd, &v) != 0)
        return 1;
    derive_figures(&v);
    const bench_row *row = record_rows(&v);
    write_table(md, &v, row);
    write_loss_and_memory(md, &v);
    return 0;
}
