/* ja_bench: measures the speed of the rules engines and of the referee, and
 * writes docs/performance.md itself (never asserted by tests: timings depend
 * on the machine).
 *
 *   ja_bench [--out FILE] [--matches N] [--bots DIR]
 *
 * For every game: decisions/s and matches/s of seeded matches with uniform
 * random choices (1) on the bare rules engine (legal + apply, no
 * observation) and (2) through the referee's match loop with `random` plugin
 * seats (observations, decisions, digest), and the ratio of the two. */
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_version.h"
#include "ladder.h"
#include "match.h"
#include "tournament.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

typedef struct bench_row {
    const char *game;
    uint32_t seats;
    uint32_t matches;
    uint64_t decisions;
    double seconds;
} bench_row;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Bare engine: random legal actions chosen by the caller's own stream. */
static bench_row bench_engine(const ja_game_rules *g, uint32_t seats, uint32_t matches)
{
    bench_row r = {g->name, seats, matches, 0, 0};
    void *st = malloc(g->state_size);
    ja_action *legal = malloc(sizeof *legal * g->max_actions);
    ja_options o;
    char err[256];
    ja_options_init(g, &o);
    ja_options_resolve(g, &o, seats, err, sizeof err);
    ja_rng rng;
    ja_rng_seed(&rng, 12345);
    double t0 = now_s();
    for (uint32_t m = 0; m < matches; m++) {
        g->setup(st, &o, seats, ja_seed_derive(1, JA_STREAM_MATCH, m));
        uint32_t mask;
        while ((mask = g->to_act(st)) != 0) {
            ja_action by_seat[JA_MAX_SEATS] = {{0}};
            for (uint32_t s = 0; s < seats; s++)
                if (mask & (1u << s)) {
                    uint32_t n = g->legal(st, (int)s, legal, g->max_actions);
                    by_seat[s] = legal[ja_rng_below(&rng, n)];
                }
            g->apply(st, mask, by_seat);
            r.decisions++;
        }
    }
    r.seconds = now_s() - t0;
    free(st);
    free(legal);
    return r;
}

/* Through the referee: the match loop with plugin seats. */
static bench_row bench_referee(const ja_game_rules *g, uint32_t seats, uint32_t matches,
                               ref_bot *bot)
{
    bench_row r = {g->name, seats, matches, 0, 0};
    ref_match_config cfg = {0};
    cfg.game = g;
    cfg.n_seats = seats;
    cfg.match_id = "bench";
    char err[512];
    ja_options_init(g, &cfg.options);
    ja_options_resolve(g, &cfg.options, seats, err, sizeof err);
    ref_bot *bots[JA_MAX_SEATS];
    for (uint32_t s = 0; s < seats; s++)
        bots[s] = bot;
    double t0 = now_s();
    for (uint32_t m = 0; m < matches; m++) {
        cfg.seed = ja_seed_derive(1, JA_STREAM_MATCH, m);
        ref_match_result res;
        if (ref_match_run(&cfg, bots, NULL, NULL, NULL, NULL, &res, err, sizeof err) != JA_OK) {
            fprintf(stderr, "ja_bench: %s\n", err);
            exit(1);
        }
        r.decisions += res.decisions;
    }
    r.seconds = now_s() - t0;
    return r;
}

/* A whole tournament through the in-process executor into a fresh ladder
 * database: matches/s including one SQLite transaction per match (WAL,
 * synchronous=FULL), the rate an organiser sees. */
static double bench_tournament(const ja_game_rules *g, ref_bot *bot, uint32_t rounds,
                               uint32_t *out_matches)
{
    char dir[] = "/tmp/ja_bench.XXXXXX", path[64];
    if (!mkdtemp(dir))
        return 0;
    snprintf(path, sizeof path, "%s/bench.db", dir);
    ladder_db *db = NULL;
    if (ladder_db_open(path, &db) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", db ? ladder_db_errmsg(db) : "cannot open db");
        exit(1);
    }
    ja_options o;
    char err[512], opts[512];
    ja_options_init(g, &o);
    ja_options_resolve(g, &o, 3, err, sizeof err);
    ja_options_format(g, &o, opts, sizeof opts);
    const ref_bot_info *bi = ref_bot_get_info(bot);
    const char *names[3] = {"random", "random#2", "random#3"};
    ladder_bot lb[3];
    ref_bot *bots[3] = {bot, bot, bot};
    for (int i = 0; i < 3; i++)
        lb[i] = (ladder_bot){names[i], bi->version, "builtin", "random", bi->sha256};
    ladder_tournament_spec spec = {{g->name, 3, opts}, 1, LADDER_FORMAT_ROUND_ROBIN, rounds,
                                   false, 3, lb};
    int64_t tid;
    if (ladder_db_tournament_create(db, &spec, &tid) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", ladder_db_errmsg(db));
        exit(1);
    }
    arena_exec_ctx xc = {g, o, 0, bots, names, NULL, tid};
    arena_executor *x = NULL;
    arena_executor_inproc_new(&xc, &x);
    double t0 = now_s();
    if (arena_tournament_play(db, tid, x, NULL, NULL, NULL, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
        exit(1);
    }
    double secs = now_s() - t0;
    ladder_tournament_info ti;
    ladder_db_tournament_get(db, tid, &ti);
    *out_matches = ti.n_done;
    x->ops->destroy(x);
    ladder_db_close(&db);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "ja_bench: could not remove %s\n", dir);
    return secs > 0 ? ti.n_done / secs : 0;
}

static void cpu_model(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c += 2;
                c[strcspn(c, "\n")] = '\0';
                snprintf(buf, cap, "%s", c);
            }
            break;
        }
    fclose(f);
}

static const char *default_bots_dir(void)
{
    static char dir[PATH_MAX];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return "bots";
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(dir, sizeof dir, "%s/../bots", exe);
    return dir;
}

int main(int argc, char **argv)
{
    const char *out_path = "docs/performance.md";
    const char *bots_dir = default_bots_dir();
    uint32_t matches = 2000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else if (strcmp(argv[i], "--bots") == 0 && i + 1 < argc)
            bots_dir = argv[++i];
        else if (strcmp(argv[i], "--matches") == 0 && i + 1 < argc)
            matches = (uint32_t)strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: ja_bench [--out FILE] [--matches N] [--bots DIR]\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (matches == 0)
        matches = 1;
    char path[PATH_MAX + 32], err[1024];
    snprintf(path, sizeof path, "%s/ja_random.so", bots_dir);
    ref_bot *bot = NULL;
    if (ref_bot_plugin_open(path, &bot, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
        return 2;
    }
    FILE *out = fopen(out_path, "w");
    if (!out) {
        fprintf(stderr, "ja_bench: cannot write %s\n", out_path);
        return 2;
    }
    char cpu[256], when[64];
    cpu_model(cpu, sizeof cpu);
    time_t t = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d", gmtime(&t));
    struct utsname un;
    uname(&un);
    fprintf(out,
            "# Performance\n\n"
            "Written by `build/bench/ja_bench` (bench/ja_bench.c); do not edit by hand.\n"
            "Re-run with `build/bench/ja_bench` from the repository root after a Release build\n"
            "(`bash scripts/setup.sh`). Tests never assert timings; this page is where speed\n"
            "is measured.\n\n"
            "- date: %s; arena %s; %s %s\n- CPU: %s (%ld online), one thread\n"
            "- build: %s\n- matches per row: %u, seeded, uniform random legal choices, default "
            "options\n\n",
            when, ja_version(), un.sysname, un.machine, cpu, sysconf(_SC_NPROCESSORS_ONLN),
#ifdef NDEBUG
            "optimised (NDEBUG)",
#else
            "with assertions (not a Release build: numbers are pessimistic)",
#endif
            matches);
    fprintf(out, "## Rules engines and the referee\n\n"
                 "*engine*: the bare rules engine (legal + apply, choices by the caller). "
                 "*referee*: the match loop with `random` plugin seats (observation, "
                 "decision, plugin call, validation, digest), no replay file.\n\n"
                 "| game | seats | engine decisions/s | engine matches/s | referee decisions/s "
                 "| referee matches/s | referee/engine | decisions/match | state bytes | "
                 "observation bytes |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; ja_games[i]; i++) {
        const ja_game_rules *g = ja_games[i];
        uint32_t seat_counts[3] = {g->min_seats, 4, g->max_seats};
        for (int k = 0; k < 3; k++) {
            uint32_t seats = seat_counts[k];
            if (seats < g->min_seats || seats > g->max_seats ||
                (k == 1 && (seats == g->min_seats || seats == g->max_seats)))
                continue;
            bench_row e = bench_engine(g, seats, matches);
            bench_row r = bench_referee(g, seats, matches / 4 ? matches / 4 : 1, bot);
            double ed = (double)e.decisions / e.seconds, em = e.matches / e.seconds;
            double rd = (double)r.decisions / r.seconds, rm = r.matches / r.seconds;
            fprintf(out, "| %s | %u | %.0f | %.1f | %.0f | %.1f | %.2f | %.0f | %u | %u |\n",
                    g->name, seats, ed, em, rd, rm, rd / ed, (double)e.decisions / e.matches,
                    g->state_size, g->obs_size);
            fprintf(stderr, "%s %u seats: engine %.0f dec/s, referee %.0f dec/s\n", g->name, seats,
                    ed, rd);
        }
    }
    uint32_t tm = 0;
    uint32_t rounds = matches / 12 ? matches / 12 : 1;
    double trate = bench_tournament(ja_games[0], bot, rounds, &tm);
    fprintf(out,
            "\n## Tournaments\n\n"
            "`arena tournament %s --bots random,random,random --seats 3` with default options "
            "through the in-process executor, one SQLite transaction per finished match "
            "(WAL, synchronous=FULL), no replays: **%.1f matches/s** over %u matches.\n",
            ja_games[0]->name, trate, tm);
    fprintf(stderr, "tournament: %.1f matches/s over %u matches\n", trate, tm);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(out, "\nPeak resident memory of the benchmark process: %ld KiB.\n", ru.ru_maxrss);
    fclose(out);
    ref_bot_destroy(&bot);
    fprintf(stderr, "ja_bench: wrote %s\n", out_path);
    return 0;
}
