/* The "Serve" section of docs/performance.md (bench_serve.h,
 * docs/server.md): the load test of tests/serve (the one the tests run,
 * reused, not copied) in its measuring mode. One server plays random
 * against greedy with --concurrency 2; the script counts the matches the
 * ladder records over 1,000 matches with no spectator, then over the next
 * 1,000 with 50, and samples the server's VmRSS as it polls. */
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

int bench_serve(FILE *md, const char *arena_dir, const char *bots_dir)
{
    static const char python[] = "/usr/bin/python3";
    char script[PATH_MAX];
    snprintf(script, sizeof script, "%s/test_serve_load.py", JA_SERVE_DIR);
    if (access(python, X_OK) != 0 || access(script, R_OK) != 0) {
        fprintf(md, "## Serve\n\nNot measured: %s or %s is missing.\n", python, script);
        return BENCH_SECTION_SKIPPED;
    }
    char arena[PATH_MAX + 16], rnd[PATH_MAX + 16], greedy[PATH_MAX + 16];
    if (arena_dir)
        snprintf(arena, sizeof arena, "%s/arena", arena_dir);
    else
        snprintf(arena, sizeof arena, "%s/../arena/arena", bench_exe_dir());
    snprintf(rnd, sizeof rnd, "%s/ja_random.so", bots_dir);
    snprintf(greedy, sizeof greedy, "%s/ja_greedy.so", bots_dir);
    char cmd[4 * PATH_MAX + 128];
    snprintf(cmd, sizeof cmd, "%s '%s' '%s' '%s' '%s' '%s' --bench %d", python, script, arena,
             rnd, greedy, JA_FREE_PORT_PY, SERVE_MATCHES);
    double load0 = bench_loadavg();
    fflush(NULL);
    FILE *p = popen(cmd, "r");
    double r0 = NAN, r50 = NAN;
    long peak = -1, rss0 = -1, total = -1;
    char line[512];
    int got = 0;
    while (p && fgets(line, sizeof line, p))
        if (sscanf(line, "serve %lf %lf %ld %ld %ld", &r0, &r50, &peak, &rss0, &total) == 5)
            got = 1;
    int rc = p ? pclose(p) : -1;
    double load1 = bench_loadavg();
    if (!got || rc != 0) {
        fprintf(stderr, "ja_bench: serve: the load script failed (status %d): %s\n", rc, cmd);
        return 1;
    }
    fprintf(stderr, "serve: %.0f matches/s with 0 spectators, %.0f with 50; peak RSS %ld KiB\n",
            r0, r50, peak);
    bench_row_add("arena serve, 0 spectators", r0, "matches/s", NAN, BENCH_NO_TARGET, 0);
    bench_row_add("arena serve, 50 spectators / 0", r50, "matches/s", r50 / r0, BENCH_NO_TARGET,
                  0);
    bench_row_add("arena serve, peak RSS", (double)peak / 1024, "MiB", NAN, BENCH_NO_TARGET, 0);
    fprintf(md,
            "## Serve\n\n"
            "`arena serve bruise-jack --concurrency 2 --smoke 1` on loopback with two "
            "uploaded versions, the reference bots random and greedy (each seat a sandboxed "
            "`ja_host` child): matches recorded per second, counted from the ladder the "
            "server's own `/api/ladder` reports, over 1,000 matches with no spectator, then "
            "over the next 1,000 with 50 spectators on the same server, each an open "
            "`/api/events` stream plus `GET /` and `GET /api/ladder` every half second "
            "(Python threads of `tests/serve/test_serve_load.py --bench`, the load test's "
            "own script, on the same 2 cores). Load average before this section %.2f, after "
            "%.2f: above 1, something else holds a core and every figure here is a lower "
            "bound.\n\n"
            "| spectators | matches/s | / no spectator |\n|---|---|---|\n"
            "| 0 | %.0f | 1 |\n"
            "| 50 | %.0f | **%.2f** |\n\n"
            "The server's resident memory (VmRSS, sampled at each poll): %.1f MiB with the "
            "50 spectators just connected, **%.1f MiB** at its peak over the run (%ld "
            "matches in the ladder at the end). The spectators' threads run on the same 2 "
            "cores as the server and the matches' `ja_host` children, so the drop is the "
            "server's work for them (a page per `GET /`, the shared `/api/ladder` answer "
            "rebuilt once per event, docs/server.md; a thread per connection) and the "
            "clients' own CPU together: this run does not separate the two.\n",
            load0, load1, r0, r50, r50 / r0,
            (double)rss0 / 1024, (double)peak / 1024, total);
    return 0;
}
