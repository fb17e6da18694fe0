/* ja_bench: measures the speed of the rules engines, the referee, hosted and
 * external bots, the executors, the report site and the reference bots, and
 * writes docs/performance.md itself (never asserted by tests: timings depend
 * on the machine). `--help` (HELP below) has the flags; every figure is a
 * row (bench_rows.h) with its target, printed as text or, with --json, as
 * one JSON object. With --only, the page keeps the other sections' blocks
 * as the run that wrote them left them (write_page).
 *
 * For every game: decisions/s and matches/s of seeded matches with uniform
 * random choices (1) on the bare rules engine (legal + apply, no
 * observation) and (2) through the referee's match loop with `random` plugin
 * seats (decisions, digest; `random` takes its observation on demand and
 * never asks, so none is built), and the ratio of the two; both count every
 * engine step, forced single choices included; and beside them, what a
 * seat that reads its observation costs (the engine with the observations,
 * the referee handing them). Why the referee rows stay under their target
 * is a profile written into the page as text (REFEREE_PROFILE).
 *
 * External bots: decisions/s of a match between two `cmd:` bots in C (the
 * SDK's example bot, over ipc through the hub), against a raw ZeroMQ
 * DEALER/ROUTER round trip between two processes over ipc with payloads of
 * the same sizes (an average act out, an action back), measured in the same
 * run, and the ratio of the two: what the protocol costs beyond the
 * transport. */
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_version.h"
#include "bench.h"
#include "bench_hosted.h"
#include "bench_scale.h"
#include "bench_serve.h"
#include "bench_slurm.h"
#include "hub.h"
#include "ladder.h"
#include "match.h"
#include "ja_mp.h"
#include "proc.h"
#include "run/tournament.h"
#include "wire.h"
#include "bench_ismcts.h"
#include "bench_vec.h"
#include "bench_report.h"
#include "bench_luck.h"
#include "bench_rows.h"
#include "ja_xalloc.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

typedef struct match_run {
    const char *game;
    uint32_t seats;
    uint32_t matches;
    uint64_t decisions;
    double seconds;
    double cpu_seconds; /* the calling thread's CPU time: all of the loop's work */
} match_run;

/* The calling thread's CPU time in seconds. */
static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Bare engine: random legal actions chosen by the caller's own stream.
 * With observe, also every observation a referee must hand out: at each
 * decision with more than one legal action, the acting seat's observation
 * brought up to date as the match loop does it (the game's
 * JA_EXT_OBSERVE_UPDATE, else observe(), into that seat's buffer, zeroed at
 * the match's start). No bot, no digest, no match loop: the most any
 * referee that hands act() an observation could reach. */
static match_run bench_engine(const ja_game_rules *g, uint32_t seats, uint32_t matches,
                              bool observe)
{
    match_run r = {g->name, seats, matches, 0, 0, 0};
    void *st = ja_xmalloc(g->state_size);
    unsigned char *obs = ja_xmalloc((size_t)g->obs_size * seats);
    ja_action *legal = ja_xmalloc(sizeof *legal * g->max_actions);
    const ja_ext_observe_update *ou = ja_rules_extension(g, JA_EXT_OBSERVE_UPDATE);
    void (*obs_fn)(const void *, int, void *) = ou && ou->update ? ou->update : g->observe;
    ja_options o;
    char err[256];
    ja_options_init(g, &o);
    ja_options_resolve(g, &o, seats, err, sizeof err);
    ja_rng rng;
    ja_rng_seed(&rng, 12345);
    double t0 = bench_now_s(), c0 = thread_cpu_s();
    for (uint32_t m = 0; m < matches; m++) {
        g->setup(st, &o, seats, ja_seed_derive(1, JA_STREAM_MATCH, m));
        if (observe)
            memset(obs, 0, (size_t)g->obs_size * seats);
        uint32_t mask;
        while ((mask = g->to_act(st)) != 0) {
            ja_action by_seat[JA_MAX_SEATS] = {{0}};
            for (uint32_t s = 0; s < seats; s++)
                if (mask & (1u << s)) {
                    uint32_t n = g->legal(st, (int)s, legal, g->max_actions);
                    if (observe && n > 1)
                        obs_fn(st, (int)s, obs + (size_t)s * g->obs_size);
                    by_seat[s] = legal[ja_rng_below(&rng, n)];
                }
            g->apply(st, mask, by_seat);
            r.decisions++;
        }
    }
    r.seconds = bench_now_s() - t0;
    r.cpu_seconds = thread_cpu_s() - c0;
    free(st);
    free(obs);
    free(legal);
    return r;
}

/* Through the referee: the match loop with plugin seats. `random` takes its
 * observation on demand and never asks for it (ABI 1.3), so no observation
 * is made for it; with handed, every asked seat is handed its observation
 * before it is asked (ref_match_config.obs_eager), as a bot that reads it
 * is (greedy, ismcts, a plugin of ABI 1.2 or older, a hosted or external
 * bot): the same matches, with the observations a reading seat costs. */
static match_run bench_referee(const ja_game_rules *g, uint32_t seats, uint32_t matches,
                               ref_bot *bot, bool handed)
{
    match_run r = {g->name, seats, matches, 0, 0, 0};
    ref_match_config cfg = {0};
    cfg.game = g;
    cfg.n_seats = seats;
    cfg.match_id = "bench";
    cfg.obs_eager = handed;
    char err[512];
    ja_options_init(g, &cfg.options);
    ja_options_resolve(g, &cfg.options, seats, err, sizeof err);
    ref_bot *bots[JA_MAX_SEATS];
    for (uint32_t s = 0; s < seats; s++)
        bots[s] = bot;
    double t0 = bench_now_s(), c0 = thread_cpu_s();
    for (uint32_t m = 0; m < matches; m++) {
        cfg.seed = ja_seed_derive(1, JA_STREAM_MATCH, m);
        ref_match_result res;
        cfg.bots = bots;
        if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK) {
            fprintf(stderr, "ja_bench: %s\n", err);
            exit(1);
        }
        r.decisions += res.decisions;
    }
    r.seconds = bench_now_s() - t0;
    r.cpu_seconds = thread_cpu_s() - c0;
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
                                   false, 3, lb, LADDER_SEATING_CYCLIC, NULL, 0};
    int64_t tid;
    if (ladder_db_tournament_create(db, &spec, &tid) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", ladder_db_errmsg(db));
        exit(1);
    }
    arena_exec_ctx xc = {g, o, 0, bots, names, NULL, tid, 0, {0}, NULL, NULL};
    arena_executor *x = NULL;
    arena_executor_inproc_new(&xc, &x);
    double t0 = bench_now_s();
    if (arena_tournament_play(db, tid, x, NULL, NULL, NULL, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
        exit(1);
    }
    double secs = bench_now_s() - t0;
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

/* The mean size of an act message and of an action in seeded random matches
 * of g (every decision with more than one choice, as the referee sends). */
static void wire_sizes(const ja_game_rules *g, uint32_t seats, uint32_t matches, double *act,
                       double *action)
{
    void *st = ja_xmalloc(g->state_size), *obs = ja_xmalloc(g->obs_size);
    ja_action *legal = ja_xmalloc(sizeof *legal * g->max_actions);
    ja_options o;
    char err[256];
    ja_options_init(g, &o);
    ja_options_resolve(g, &o, seats, err, sizeof err);
    ja_rng rng;
    ja_rng_seed(&rng, 99);
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    uint64_t bytes = 0, n = 0;
    for (uint32_t m = 0; m < matches; m++) {
        g->setup(st, &o, seats, ja_seed_derive(2, JA_STREAM_MATCH, m));
        uint32_t mask, turn = 0;
        while ((mask = g->to_act(st)) != 0) {
            ja_action by_seat[JA_MAX_SEATS] = {{0}};
            for (uint32_t s = 0; s < seats; s++)
                if (mask & (1u << s)) {
                    uint32_t nl = g->legal(st, (int)s, legal, g->max_actions);
                    if (nl > 1) {
                        g->observe(st, (int)s, obs);
                        ja_decision d = {sizeof d, ++turn, 1000, (int32_t)s, seats, g->name,
                                         g->obs_version, g->obs_size, obs, legal, nl};
                        ref_wire_act(&b, "t1-m000001", g, &d, 0);
                        bytes += b.size;
                        n++;
                    }
                    by_seat[s] = legal[ja_rng_below(&rng, nl)];
                }
            g->apply(st, mask, by_seat);
        }
    }
    *act = n ? (double)bytes / (double)n : 0;
    /* {"type":"action","match":"t1-m000001","turn":N,"index":N} */
    msgpack_packer pk;
    msgpack_sbuffer_clear(&b);
    msgpack_packer_init(&pk, &b, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 4);
    ja_mp_put_kv_str(&pk, "type", "action");
    ja_mp_put_kv_str(&pk, "match", "t1-m000001");
    ja_mp_put_kv_u64(&pk, "turn", 300);
    ja_mp_put_kv_u64(&pk, "index", 1);
    *action = (double)b.size;
    msgpack_sbuffer_destroy(&b);
    free(st);
    free(obs);
    free(legal);
}

/* Matches of g between two cmd: bots in C (client), through the hub over a
 * private ipc endpoint, one match at a time, with direct seats (as `--jobs
 * 1` plays) or through the hub's thread (as with `--jobs N`). Returns
 * decisions asked per second (decisions with one choice are not sent and
 * not counted). */
static double bench_external(const ja_game_rules *g, const char *client, uint32_t matches,
                             bool direct, uint64_t *asked_out)
{
    ref_hub_config hc;
    memset(&hc, 0, sizeof hc);
    ref_hub *hub = NULL;
    char err[600];
    if (ref_hub_start(&hc, &hub, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
        return 0;
    }
    ref_hub_set_direct(hub, direct);
    ref_proc *procs[2] = {NULL, NULL};
    ref_bot *bots[2] = {NULL, NULL};
    double rate = 0;
    for (int i = 0; i < 2; i++) {
        char ep[600], nm[64];
        snprintf(ep, sizeof ep, "JACKARENA_ENDPOINT=%s", ref_hub_endpoint(hub));
        snprintf(nm, sizeof nm, "JACKARENA_NAME=bench%d", i);
        const char *env[2] = {ep, nm};
        if (ref_proc_spawn(client, env, 2, &procs[i], err, sizeof err) != JA_OK) {
            fprintf(stderr, "ja_bench: %s\n", err);
            goto out;
        }
        ref_hub_claim_req cr = {.name = nm + 15, .kind = "cmd",
                                .deadline_ns = ref_now_ns() + 10000000000LL};
        if (ref_hub_claim(hub, &cr, &bots[i], err, sizeof err) != JA_OK) {
            fprintf(stderr, "ja_bench: %s: %s\n", client, err);
            goto out;
        }
    }
    ref_match_config cfg = {0};
    cfg.game = g;
    cfg.n_seats = 2;
    cfg.move_ms = 1000;
    cfg.match_id = "bench";
    ja_options_init(g, &cfg.options);
    ja_options_resolve(g, &cfg.options, 2, err, sizeof err);
    uint64_t asked = 0;
    char id[32];
    cfg.match_id = id;
    double t0 = bench_now_s();
    for (uint32_t m = 0; m < matches; m++) {
        cfg.seed = ja_seed_derive(1, JA_STREAM_MATCH, m);
        snprintf(id, sizeof id, "bench-m%u", (unsigned)m);
        ref_match_result res;
        cfg.bots = bots;
        if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK) {
            fprintf(stderr, "ja_bench: %s\n", err);
            goto out;
        }
        asked += res.asked;
    }
    double secs = bench_now_s() - t0;
    rate = secs > 0 ? (double)asked / secs : 0;
    *asked_out = asked;
out:
    ref_hub_bye_all(hub);
    ref_proc_stop_all(procs, 2, 2000);
    ref_bot_destroy(&bots[0]);
    ref_bot_destroy(&bots[1]);
    ref_hub_stop(&hub);
    return rate;
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

static const char HELP[] =
    "usage: ja_bench [--only SECTION[,SECTION...]]... [--json] [--out FILE] [--matches N]\n"
    "                [--bots DIR] [--client PATH]\n"
    "Measure the speed of Jack Arena and write docs/performance.md (run it from the\n"
    "repository root after a Release build). Every figure is printed with its ratio,\n"
    "the spread of its trials and its target: met, not met, or undecided (`?`) when\n"
    "the trials fall on both sides of it; tests never assert timings.\n"
    "\n"
    "  --only SECTION  run these sections only (repeatable, or a comma list):\n"
    "                  engine, openspiel, referee, hosted, external, scale, slurm,\n"
    "                  serve, report, bots, vecenv, luck; the page keeps the other\n"
    "                  sections as their last run left them (slurm needs root and\n"
    "                  Slurm's packages, and openspiel --openspiel: without them\n"
    "                  each says so and keeps its earlier figures)\n"
    "  --json          print one JSON object with every row on stdout (instead of\n"
    "                  a line per row)\n"
    "  --out FILE      the page to write (default docs/performance.md)\n"
    "  --matches N     matches per engine row (default 2000); the referee, external,\n"
    "                  tournament and greedy rows scale with it, and the luck\n"
    "                  section plays N/500 deals a game (at least 3: 4 by default,\n"
    "                  about a minute of CPU): a small N is a quick run\n"
    "  --bots DIR      the reference bots' plugins (default ../bots beside ja_bench)\n"
    "  --client PATH   the external bot program (default the SDK's ja_example_bot)\n"
    "  --openspiel PROGRAM  the OpenSpiel playouts program for the openspiel section\n"
    "                  (bench/openspiel/ja_playouts.cc built against OpenSpiel,\n"
    "                  docs/testing.md), timed by CPU time beside the engines; pass\n"
    "                  it to every full run: without it that section keeps its\n"
    "                  earlier figures\n";

/* The sections, in the page's order. */
typedef struct bench_opts {
    uint32_t matches;
    const char *bots_dir, *client;
    const char *openspiel; /* the OpenSpiel playouts program, or NULL */
    ref_bot *bot;          /* `random` in-process */
} bench_opts;

typedef int (*section_fn)(FILE *md, const bench_opts *o);

static int sec_engine(FILE *md, const bench_opts *o);
static int sec_openspiel(FILE *md, const bench_opts *o);
static int sec_referee(FILE *md, const bench_opts *o);
static int sec_hosted(FILE *md, const bench_opts *o);
static int sec_external(FILE *md, const bench_opts *o);
static int sec_scale(FILE *md, const bench_opts *o);
static int sec_slurm(FILE *md, const bench_opts *o);
static int sec_serve(FILE *md, const bench_opts *o);
static int sec_report(FILE *md, const bench_opts *o);
static int sec_bots(FILE *md, const bench_opts *o);
static int sec_vecenv(FILE *md, const bench_opts *o);
static int sec_luck(FILE *md, const bench_opts *o);

/* one_cpu: a section of one thread whose figures are compared with each
 * other's (the engine, OpenSpiel's playouts against it, the referee against
 * it, the bots), run pinned to one CPU (pin_one_cpu). */
static const struct {
    const char *name;
    section_fn run;
    bool one_cpu;
} SECTIONS[] = {
    {"engine", sec_engine, true},     {"openspiel", sec_openspiel, true},
    {"referee", sec_referee, true},   {"hosted", sec_hosted, false},
    {"external", sec_external, false}, {"scale", sec_scale, false},
    {"slurm", sec_slurm, false},      {"serve", sec_serve, false},
    {"report", sec_report, false},    {"bots", sec_bots, true},
    {"vecenv", sec_vecenv, true},     {"luck", sec_luck, false},
};
#define N_SECTIONS (sizeof SECTIONS / sizeof SECTIONS[0])
/* The CPU each section of this run was pinned to, or -1. */
static int g_pinned[N_SECTIONS] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
_Static_assert(N_SECTIONS == 12, "g_pinned: one -1 a section");
/* The 1-minute load average at each section's start and end in this run
 * (bench_loadavg; negative: unknown). */
static double g_load[N_SECTIONS][2];
#define SECTION_LIST                                                                       \
    "engine, openspiel, referee, hosted, external, scale, slurm, serve, report, bots, "    \
    "vecenv, luck"

/* The seat counts measured for g: its fewest, 4 and its most (each once). */
static int seat_counts(const ja_game_rules *g, uint32_t out[3])
{
    uint32_t cand[3] = {g->min_seats, 4, g->max_seats};
    int n = 0;
    for (int k = 0; k < 3; k++) {
        if (cand[k] < g->min_seats || cand[k] > g->max_seats)
            continue;
        if (k == 1 && (cand[k] == g->min_seats || cand[k] == g->max_seats))
            continue;
        if (k == 2 && n > 0 && out[n - 1] == cand[k])
            continue;
        out[n++] = cand[k];
    }
    return n;
}

static int sec_engine(FILE *md, const bench_opts *o)
{
    fprintf(md, "## Rules engines\n\n"
                "The bare rules engine (legal + apply, choices by the caller): %u seeded "
                "matches per row, uniform random legal choices, default options. No target "
                "here; \"Against OpenSpiel\" compares two of the engines with another "
                "implementation.\n\n"
                "| game | seats | decisions/s | matches/s | decisions/match | state bytes | "
                "observation bytes |\n|---|---|---|---|---|---|---|\n",
            o->matches);
    for (int i = 0; ja_games[i] && i < 16; i++) {
        const ja_game_rules *g = ja_games[i];
        uint32_t seats[3];
        int n = seat_counts(g, seats);
        for (int k = 0; k < n; k++) {
            const match_run e = bench_engine(g, seats[k], o->matches, false);
            double ed = (double)e.decisions / e.seconds, em = e.matches / e.seconds;
            char name[96];
            snprintf(name, sizeof name, "%s, %u seats", g->name, seats[k]);
            bench_row_add(name, ed, "decisions/s", NAN, BENCH_NO_TARGET, 0);
            fprintf(md, "| %s | %u | %.0f | %.1f | %.0f | %u | %u |\n", g->name, seats[k], ed, em,
                    (double)e.decisions / e.matches, g->state_size, g->obs_size);
        }
    }
    return 0;
}

/* ---- Against OpenSpiel --------------------------------------------------------------- */

/* Each engine beside the OpenSpiel game nearest to it, at the same number of
 * players (OpenSpiel's dou_dizhu has 3). */
static const struct {
    const char *game;
    uint32_t seats;
    const char *os_game, *os_label;
} OS_PAIRS[] = {
    {"taylor-blackjack", 4, "crazy_eights(players=4)", "crazy_eights, 4 players"},
    {"bombs", 3, "dou_dizhu", "dou_dizhu"},
};
#define OS_TARGET 5.0     /* engine decisions/s over OpenSpiel's, at least */
#define OS_GAMES_PER 25u  /* OpenSpiel games per engine match of --matches */
#define OS_TRIALS 5       /* interleaved trials of each side */

/* What the OpenSpiel program printed of one run, and its CPU time. */
typedef struct os_run {
    double decisions_per_s, games_per_s, decisions_per_game, chance_per_game;
    double decisions, cpu_s;
    int players;
    char built[256];
} os_run;

/* Runs `prog os_game games seed` and reads its "built:" and "RESULT" lines
 * (bench/openspiel/ja_playouts.cc). 0, or -1 after a message naming the
 * problem. */
static int openspiel_run(const char *prog, const char *os_game, uint32_t games, os_run *r)
{
    int fd[2];
    if (pipe(fd) != 0) {
        fprintf(stderr, "ja_bench: openspiel: pipe: %s\n", strerror(errno));
        return -1;
    }
    char n[16];
    snprintf(n, sizeof n, "%u", games);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        execl(prog, prog, os_game, n, "1", (char *)NULL);
        fprintf(stderr, "ja_bench: --openspiel '%s': %s\n", prog, strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    if (pid < 0) {
        close(fd[0]);
        fprintf(stderr, "ja_bench: openspiel: fork: %s\n", strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd[0], "r");
    char line[1024];
    bool got = false;
    memset(r, 0, sizeof *r);
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "built: ", 7) == 0) {
            snprintf(r->built, sizeof r->built, "%s", line + 7);
            r->built[strcspn(r->built, "\n")] = '\0';
        }
        const char *d = strstr(line, " decisions_per_s="), *g = strstr(line, " games_per_s="),
                   *p = strstr(line, " players="), *m = strstr(line, " mean_decisions_per_game="),
                   *c = strstr(line, " mean_chance_steps_per_game="),
                   *nd = strstr(line, " decisions=");
        if (strncmp(line, "RESULT ", 7) == 0 && d && g && p && m && c && nd) {
            r->decisions = strtod(nd + 11, NULL);
            r->decisions_per_s = strtod(d + 17, NULL);
            r->games_per_s = strtod(g + 13, NULL);
            r->players = atoi(p + 9);
            r->decisions_per_game = strtod(m + 25, NULL);
            r->chance_per_game = strtod(c + 28, NULL);
            got = r->decisions_per_s > 0;
        }
    }
    if (f)
        fclose(f);
    else
        close(fd[0]);
    int status = bench_finish(pid, NULL, &r->cpu_s);
    if (status != 0 || !got) {
        fprintf(stderr, "ja_bench: --openspiel '%s' %s: %s\n", prog, os_game,
                status != 0 ? "failed (its exit status is not 0)"
                            : "printed no RESULT line with decisions= and decisions_per_s=");
        return -1;
    }
    return 0;
}

/* OpenSpiel's decisions per CPU second in os_game: a run of games games
 * (into *r) less a run of one (its start, the game's loading and one game),
 * decisions over the process's CPU time (user and system), so that what
 * else the machine runs does not count. 0, or -1 after a message. */
static int openspiel_cpu_rate(const char *prog, const char *os_game, uint32_t games, os_run *r,
                              double *rate)
{
    os_run one;
    if (openspiel_run(prog, os_game, games, r) != 0 ||
        openspiel_run(prog, os_game, 1, &one) != 0)
        return -1;
    double d = r->decisions - one.decisions, c = r->cpu_s - one.cpu_s;
    if (!(d > 0 && c > 0)) {
        fprintf(stderr, "ja_bench: --openspiel '%s' %s: its decisions or its CPU time did not "
                        "grow from 1 game to %u\n", prog, os_game, (unsigned)games);
        return -1;
    }
    *rate = d / c;
    return 0;
}

/* The build this program measures (bench/CMakeLists.txt), e.g. "Release,
 * GNU 12.2.0, -O3 -DNDEBUG". */
static const char *arena_build(void)
{
    return JA_BENCH_BUILD_TYPE ", " JA_BENCH_COMPILER ", " JA_BENCH_CFLAGS;
}

/* The optimisation level ("-O3") named in a build string, "" if none. */
static void opt_level(const char *build, char *buf, size_t cap)
{
    const char *p = build, *found = NULL;
    while ((p = strstr(p, "-O")) != NULL) {
        if (p[2] == 's' || p[2] == 'g' || p[2] == 'z' || (p[2] >= '0' && p[2] <= '3'))
            found = p;
        p += 2;
    }
    snprintf(buf, cap, "%.*s", found ? 3 : 0, found ? found : "");
}

/* The optimisation of both sides, and a warning when their levels differ
 * (the -O2 build of OpenSpiel ran dou_dizhu 15-25% slower than its -O3
 * one: a ratio across builds of different levels means little). */
static void openspiel_builds(FILE *md, const char *prog, const char *theirs)
{
    char a[8], b[8];
    /* Its file name alone: the page names no path outside the repository. */
    const char *slash = strrchr(prog, '/');
    prog = slash ? slash + 1 : prog;
    opt_level(arena_build(), a, sizeof a);
    opt_level(theirs, b, sizeof b);
    fprintf(md,
            "Optimisation of both sides: the rules engines as this `ja_bench` was built "
            "(`%s`); the OpenSpiel program (`%s`) as its build string says: `%s`. %s\n\n",
            arena_build(), prog, theirs[0] ? theirs : "(unknown)",
            a[0] && strcmp(a, b) == 0
                ? "Both at the same level."
                : "**Not shown to be at the same level: compare the ratios with care** (an "
                  "OpenSpiel build at -O2 ran dou_dizhu 15-25% slower than at -O3).");
}

/* How the Bombs row came to meet its target: a change this run does not
 * measure, so it names its date, machine and load. */
static const char OPENSPIEL_BOMBS[] =
    "Bombs' row was under its target (4.04, 3.93-4.81, in the full run of 2026-12-07) "
    "until its engine read the legal plays from sets of ranks, later that day: the "
    "ranks a hand holds at least once, twice, three and four times, each a few ANDs and "
    "ORs of its four suits, so that a form's plays are the bits of one set (a run's, of "
    "a set ANDed with itself shifted), where it had counted the cards of each rank and "
    "looped over the ranks for every form; a play's cards leave the hand a rank at a "
    "time; a window that every seat declines is resolved without walking the priority "
    "order. The same plays, lists and states (the signature, the scenarios, the "
    "property suite and seeded matches' digests unchanged). Bombs with 3 seats went "
    "from 141 to 76 ns a decision (100 interleaved pairs of the two builds, CPU time, "
    "median pair 1.92 times faster; AMD EPYC, 2 cores, load average 1.8-2.8), and "
    "`--only openspiel` runs just after read 7.92 (5.95-10.32) and 8.63 (8.18-9.66) "
    "against dou_dizhu.";

static int sec_openspiel(FILE *md, const bench_opts *o)
{
    fprintf(md, "## Against OpenSpiel\n\n");
    if (!o->openspiel) {
        fprintf(md, "Not measured: no `--openspiel PROGRAM` (docs/testing.md says how to "
                    "build it against OpenSpiel).\n");
        return BENCH_SECTION_SKIPPED;
    }
    enum { n_pairs = sizeof OS_PAIRS / sizeof OS_PAIRS[0] };
    double ours[n_pairs][OS_TRIALS], theirs[n_pairs][OS_TRIALS];
    os_run runs[n_pairs][OS_TRIALS];
    const uint32_t games = o->matches * OS_GAMES_PER;
    for (int k = 0; k < OS_TRIALS; k++) /* interleaved: engine, OpenSpiel, engine, ... */
        for (size_t i = 0; i < n_pairs; i++) {
            const ja_game_rules *g = ja_game_find(OS_PAIRS[i].game);
            match_run e = bench_engine(g, OS_PAIRS[i].seats, o->matches, false);
            ours[i][k] = (double)e.decisions / e.cpu_seconds;
            if (openspiel_cpu_rate(o->openspiel, OS_PAIRS[i].os_game, games, &runs[i][k],
                                   &theirs[i][k]) != 0)
                return 1;
        }
    fprintf(md,
            "Each rules engine beside OpenSpiel's implementation of the game nearest to it, "
            "with the same number of players: random playouts of both, %d trials each, "
            "interleaved (engine, OpenSpiel, engine, ...). The engine's figure is the median "
            "of its trials, OpenSpiel's its best (fastest) trial, so that a slow trial of "
            "OpenSpiel's cannot flatter the ratio; the spread is the lowest and highest of the "
            "%d per-trial ratios (each engine trial over the OpenSpiel trial beside it). A "
            "decision is one move of a player: one engine step here "
            "(forced single choices included, %u seeded matches a run, default options, as in "
            "\"Rules engines\"), one `ApplyAction` at a player node there (a player with a "
            "single legal move is asked too; %u games a run, default parameters but the "
            "players). OpenSpiel deals card by card, one chance node a card: those steps are "
            "timed with the games but not counted as decisions. Both sides are timed by "
            "their CPU time, not the wall clock, so that other work on the machine does not "
            "count: the engine's by its thread's CPU clock, the OpenSpiel program's by its "
            "process's user and system time less that of a run of one game (its start, the "
            "game's loading and that game). The OpenSpiel side is "
            "bench/openspiel/ja_playouts.cc.\n\n",
            OS_TRIALS, OS_TRIALS, o->matches, games);
    openspiel_builds(md, o->openspiel, runs[0][0].built);
    fprintf(md, "| game | seats | decisions/CPU s (median) | OpenSpiel game | decisions/CPU s "
                "(best) | decisions a game (chance steps) | engine / OpenSpiel (spread) | "
                "target |\n"
                "|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n_pairs; i++) {
        double e = bench_median(ours[i], OS_TRIALS), t = bench_best(theirs[i], OS_TRIALS);
        double per[OS_TRIALS];
        char name[112], tgt[64], rc[96];
        snprintf(name, sizeof name, "%s, %u seats / OpenSpiel %s", OS_PAIRS[i].game,
                 OS_PAIRS[i].seats, OS_PAIRS[i].os_label);
        const bench_row *r = bench_row_add_trials(
            name, e, "decisions/CPU s", t > 0 ? e / t : NAN,
            bench_ratios(ours[i], theirs[i], OS_TRIALS, per), OS_TRIALS, BENCH_AT_LEAST,
            OS_TARGET);
        fprintf(md, "| %s | %u | %.0f | %s | %.0f | %.1f (%.1f) | %s | %s |\n",
                OS_PAIRS[i].game, OS_PAIRS[i].seats, e, OS_PAIRS[i].os_label, t,
                runs[i][0].decisions_per_game, runs[i][0].chance_per_game,
                bench_ratio_cell(r, true, rc, sizeof rc), bench_row_target(r, tgt, sizeof tgt));
    }
    fprintf(md, "\n%s\n", OPENSPIEL_BOMBS);
    return 0;
}

/* The referee's time per decision before and after its own work was trimmed
 * (commit 0e41066 against the trimmed referee, two sets of interleaved runs). */
#define REFEREE_OWN_GAINS                                                                  \
    "Bruise Jack 3-4% faster (with 2 seats 300-304 ns a decision before, 288-292 ns "      \
    "after), every other row within 0-4% in one run or the other, about the noise of "     \
    "these runs"

/* The referee's targets: referee / engine, and referee / engine +
 * observations (what the referee itself costs beyond the observations it
 * must hand out). */
#define REFEREE_TARGET 0.6
#define REFEREE_OWN_TARGET 0.8

/* Why the referee rows stay under their targets: what the columns of this
 * run show, and a profile that this run does not measure (it would need
 * perf), so it names its date and machine. */
static const char REFEREE_WHY[] =
    "\n**Why rows stay under their targets, and how the referee is judged.** At 0.6 "
    "the referee may add two thirds of the engine's own time per decision: about 30 ns "
    "for Taylor Blackjack, 50-120 ns for the other games. Two shares of the engine's "
    "time, from the same run:\n\n"
    "- o = 1 / (*engine + observations / engine*) - 1: the observations' share, what "
    "bringing each asked seat's observation up to date costs, and nothing else.\n"
    "- r = 1 / (*referee / engine*) - 1: the referee's own share. The *referee* "
    "column's seats (`random`) are never observed, so its time beyond the engine's is "
    "the referee's own work alone: the match loop, the plugin call, the bot's draw, the "
    "validation, the digest and what each match costs once.\n\n"
    "referee / engine is 1 / (1 + r) and meets 0.6 when r <= 0.67. A referee handing "
    "observations (a seat that reads its observation) is about 1 / (1 + o + r): it "
    "needs o + r <= 0.67, out of reach wherever o alone is over it.";

/* The rest of the profile, after this run's shares (referee_shares). */
static const char REFEREE_PROFILE[] =
    "Where r alone is over 0.67, no change to how observations are made or delivered "
    "can meet the row: it is the referee's own work (below).\n\n"
    "Observations on demand (2026-12-07, plugin ABI 1.3, docs/plugin-abi.md): until "
    "then every asked seat was handed its observation, `random`'s too, which never "
    "reads it, so *referee / engine* was what *referee handing observations / engine* "
    "is now: 0.33-0.76 in the full run before, under 0.46 in every row of Taylor "
    "Blackjack, BrawlJack and Bruise Jack. A bot now says in its descriptor "
    "(`JA_BOT_OBS_ON_DEMAND`) that it reads its observation only through the host's "
    "`observe()`, and an in-process seat of it is asked without one: the referee "
    "brings the seat's observation up to date (from its last one, the game's update) "
    "only when the bot asks, the same bytes it would have been handed "
    "(test_match_observe plays the same seeded matches both ways in every game: the "
    "same observations read at the same turns, the same digests); a seat still only "
    "ever gets its own. `random` asks for none, so its seats cost no observation. "
    "A bot that reads its observation (greedy, ismcts, a plugin built before ABI 1.3, "
    "every hosted or external bot, which receive it with the decision) gets the "
    "referee of the last two columns, unchanged: for it the ceiling *engine + "
    "observations* stands, and *referee handing observations / engine + observations* "
    "(target 0.8) is what the referee itself costs beyond the observations it must "
    "hand out. Interleaved in one run (load average 17 on 2 cores, CPU time, medians "
    "of three): Taylor Blackjack with 2 seats 6.2 million decisions a CPU second "
    "handing observations, 8.3 million on demand, against 14.5 million for the bare "
    "engine.\n\n"
    "Rows fell when their engines got faster (2026-11-27). The apply() of BrawlJack, "
    "Jack in the Box and Bombs used to generate the legal list a second time to check "
    "the answer; it now checks the answer's own conditions (the property suite proving "
    "the two agree). And ja_rng_below computes its rejection bound, a 64-bit division, "
    "only for the rare draw that bound can reject (the same values). On the same "
    "machine, interleaved runs: Bombs with 3 seats 138 to 85 ns a decision, Jack in the "
    "Box with 2 seats 173 to 107 ns, Bruise Jack with 2 seats 179 to 130 ns, BrawlJack "
    "with 2 seats 92 to 77 ns. The referee is as much faster in time (Bombs 174 to 119 "
    "ns a decision, Jack in the Box 246 to 178 ns), but the same referee work now weighs "
    "more against the engine: Bombs' rows, met before (0.79-0.88), and the others read "
    "lower. The faster engines were kept: every playout, search and tournament runs on "
    "them, and the \"Against OpenSpiel\" target needs Bombs' (3.9 times dou_dizhu "
    "before, over 6 since). (Before that, a measurement build of Jack in the Box whose "
    "observation keeps its events as a ring, a layout no bot of today reads, saved 16 ns "
    "a decision and reached 0.78 with 2 seats; it was not made.) Later the same day, "
    "the acting seat's hand, which Taylor Blackjack and Jack in the Box write as 52 "
    "counts at most decisions, is written eight counts at a time from a table, with no "
    "branch, instead of a loop over the cards held whose end was mispredicted at every "
    "call: *engine + observations* rose by 19% and 13% for Taylor Blackjack with 2 and "
    "4 seats (3% with 12) and the referee by 12% and 10%, in interleaved runs (medians "
    "of three, AMD EPYC, 2 cores, pinned to one CPU); Jack in the Box read 2-7% "
    "lower, inside the spread of those runs (up to 30% between runs of one build).\n\n"
    "What the referee's own work is (`perf record` of seeded matches through "
    "`ref_match_run`, 2026-11-27, Intel Xeon, 2 cores), per decision: the SHA-256 of "
    "every step's record, the determinism proof (5-9 ns); the plugin call and the "
    "bot's answer, the validation and the loop's record of the decision (10-15 ns); and "
    "what each match costs once, about 0.6 us: the two bots' seeds (a one-way BLAKE2b "
    "each, so that a bot cannot work back to the deal's seed, docs/security.md; 136 ns "
    "with libsodium on that machine, 255 ns on AMD EPYC), the seats opened and closed, the match's buffers, the "
    "digest's header. Spread over a match, that is 15 ns a decision for BrawlJack with 2 "
    "seats (41 steps) and 23 ns for Bruise Jack (24 steps), against under 1 ns for "
    "Taylor Blackjack (1,400 steps). The digest and the seeds are what makes a match "
    "reproducible and provable; they stay. A SipHash-2-4 seed instead (libsodium's "
    "`crypto_shorthash` keyed by the match seed: 14 ns on AMD EPYC, and no easier to work "
    "back from, the match seed being 64 bits either way) lifted BrawlJack and Bruise "
    "Jack with 2 seats from 0.70 and 0.73 to 0.75 and 0.78 in the referee / *engine + "
    "observations* (one run each, AMD EPYC, 2026-11-27): still short of 0.8, and it "
    "would change every bot's stream for a given match seed, so the results of every "
    "seeded tournament played before; it was not made.\n\n"
    "So the referee is also judged against the ceiling: *referee handing observations "
    "/ engine + observations* (target 0.8) is what the referee itself costs beyond the engine and "
    "the observations it must hand out, held to a quarter of their time. Where it is short or "
    "at the edge, either the match is short (BrawlJack and Bruise Jack with 2 seats, "
    "0.70-0.82 from run to run), and what each match costs once weighs on every "
    "decision: the bots' seeds alone are some 15 ns a decision for Bruise Jack with 2 "
    "seats (20 ns on AMD EPYC); or the engine and its observation are the cheapest of "
    "all (Taylor Blackjack with 2 seats, 0.78-0.80: on AMD EPYC, 2026-11-27, 44 ns a "
    "decision for the engine, 76 ns with the observation, 96 ns through the referee, "
    "whose 21 ns a decision, the digest's 8 bytes, the plugin call, the bot's draw from "
    "its stream and the loop's record, are 2 ns over the quarter). (Keeping "
    "a thread's last match block for its next match, instead of malloc "
    "and free, measured within the noise and was left out.)\n\n"
    "The observation was the largest part of the referee's time, so every game now "
    "brings each seat's last observation up to date instead of rebuilding it "
    "(JA_EXT_OBSERVE_UPDATE). The referee's time per decision before and after that "
    "(2026-11-27, Intel Xeon, 2 cores: the same seeded matches, medians of 3 to 5 "
    "interleaved runs; CPU time where other load made the wall clock unreliable):\n\n"
    "| game | seats | before | after |\n|---|---|---|---|\n"
    "| taylor-blackjack | 2 / 4 (12: no change) | 121 / 129 ns | 98 / 124 ns |\n"
    "| brawljack | 2 / 4 / 8 | 267 / 327 / 445 ns | 214 / 257 / 356 ns |\n"
    "| bruise-jack | 2 / 4 / 6 | 324 / 272 / 264 ns | 303 / 234 / 220 ns |\n"
    "| jack-in-the-box | 2 / 4 | 269 / 282 ns | 238 / 258 ns |\n"
    "| bombs | 3 / 4 / 20 | 196 / 201 / 237 ns | 174 / 181 / 218 ns |\n\n"
    "Then the referee's own work: a match's buffers in one allocation, a plugin seat "
    "opened without zeroing its log tail or formatting with printf, the seat calls, the "
    "bot runtime's act and the digest's step inline. Before and after (a later run, "
    "same machine and method, medians of 3 interleaved runs): " REFEREE_OWN_GAINS ". "
    "A few percent: what is left of the referee's own cost is the work listed above, "
    "not overhead around it.\n\n"
    "Later (2026-12-07), the opening of a plugin seat: its crash line (what names the bot, "
    "seat and match if the plugin crashes) was composed at every match with five "
    "snprintf; it is now composed by hand, its tail copied from one prepared when the "
    "plugin is loaded. In a short match that was the largest of the referee's own costs "
    "per match (12% of Bruise Jack's referee time with 2 seats, `perf record`): the "
    "referee whose seats were handed an observation never written took 8-12% less "
    "time a decision for BrawlJack and Bruise Jack with 2 seats, and the referee / *engine + observations* rose from 0.67 to 0.72 and from "
    "0.61 to 0.73 (medians of three interleaved runs of three trials, CPU time, on a "
    "loaded AMD EPYC with 2 cores). `random` computes its rejection bound, a 64-bit "
    "division, only for a draw under n (the same choices), and every update writes a "
    "full event ring's numbers in a loop of the ring's constant size: both within the "
    "noise of those runs. What is left is not overhead to trim. Per decision, the "
    "observation in its published layout (each game's obs_version, which every bot "
    "reads): its event columns are oldest first, so every update moves them up, "
    "renumbers them and appends the new events, over a third of Taylor Blackjack's "
    "update; an observation that kept its events as a ring would spare that, but it is a "
    "new layout for every bot, an ABI change, and was not made. Per match, the bots' "
    "seeds (BLAKE2b, the streams every seeded tournament was played with), the bots' "
    "create() and destroy(), the digest, the match's buffers.\n\n"
    "Counted again (2026-12-07, AMD EPYC, 2 cores): the instructions of this section's "
    "loops, from callgrind, which a loaded machine does not change (SHA-256 apart: "
    "callgrind runs it without the CPU's SHA extensions, so it is counted aside), less "
    "those of the program's start. Taylor Blackjack with 2 seats: 415 instructions a "
    "decision for the bare engine's loop, 713 for the referee's outside SHA-256, so "
    "some 300 of the referee's own a decision, not the 21 ns of the profile above: "
    "about 200 in the match loop's bookkeeping (the step's record, the decision handed "
    "to the bot, the ask and collect passes and their checks of a replay, an observer, "
    "a bank, a forfeit), about 95 in the plugin call beyond the engine loop's own draw "
    "(the crash guard, the runtime's act, the bot's call back to the host for its "
    "stream), and SHA-256 (5% of the referee's time in `perf record` on this CPU, with "
    "its SHA extensions: some 5 ns a decision). Per match (BrawlJack with 2 seats, "
    "ref_match_start and ref_match_close alone: 1.83 us of CPU against 0.45 us for the "
    "deal alone, medians of 11 interleaved runs, load average 12.7): the two bots' "
    "seeds (BLAKE2b, 0.37-0.47 us for the two), each seat's 8 KiB (a malloc, a free "
    "and 1.8 KiB zeroed at every match), every seat's observation zeroed (5.6 KiB, for "
    "seats that `random` never observes), the options formatted for the digest's "
    "header, the seats' crash lines. The loops measure what they say: the engine's "
    "does a match's deal and, at each step, legal, the draw and apply; the referee's "
    "the whole match, what each match needs once included.\n\n"
    "Then cut, with every digest, replay, bot stream and observation the same: a "
    "plugin bot keeps up to four closed seats for its next ones; a seat's observation "
    "is zeroed at its first observation of the match, not every seat's at every match; "
    "the digest header's options text is kept per thread for the next match of the same "
    "game and options; an in-process plugin's answer is read where its ask leaves it, "
    "with no collect call; the seats of a decision are asked from its mask alone. "
    "Instructions a decision (outside SHA-256) through the referee, before and after, "
    "handing observations in brackets: Taylor Blackjack 2 / 4 / 12 seats 713 / 727 / 803 "
    "to 684 / 681 / 686 (1126 / 1272 / 1521 to 1104 / 1234 / 1412), BrawlJack 2 / 4 / 8 "
    "1540 / 1363 / 1656 to 1318 / 1224 / 1533 (2645 / 2760 / 3540 to 2568 / 2699 / "
    "3460), Bruise Jack 2 / 4 / 6 2371 / 1672 / 1460 to 2230 / 1547 / 1351, Jack in "
    "the Box 2 / 4 1910 / 1975 to 1842 / 1881, Bombs 3 / 4 / 20 911 / 975 / 1179 to "
    "878 / 936 / 999; the engine's loop 415 / 431 / 499, 852 / 862 / 1238, 1619 / "
    "1128 / 980, 1528 / 1564 and 690 / 762 / 954 (callgrind counts memset's and "
    "memcpy's long runs a byte at a time, so the zeroing saved weighs more there than "
    "in time). In CPU time, interleaved runs of both builds' loops on a machine loaded "
    "by other work (load average 8.6-12.7, so spreads are wide; medians): BrawlJack "
    "with 2 seats, a match's start and close 1.83 to 1.54 us and 2.28 to 1.86 us in "
    "two runs, referee / engine 0.57 to 0.62; Taylor Blackjack with 2 seats 0.61 to 0.67; Bombs with 3 seats 0.70 to "
    "0.76; Bruise Jack with 2 seats 0.61 to 0.67. What is left per decision is a "
    "few instructions in each of many places, the loop's own, not one cost to cut; per "
    "match, the seeds (fixed: the bots' streams), the deal, the seats' crash lines "
    "and the match's buffer. By instructions alone (outside SHA-256), the referee's "
    "own share r of the engine's loop is now 0.65 for Taylor Blackjack with 2 seats, "
    "0.55 for BrawlJack with 2, 0.38 for Bruise Jack with 2, 0.27 for Bombs with 3 "
    "and under 0.5 in the other rows; the shares in time of the table above read "
    "higher, the more so on a loaded machine.\n\n"
    "Then the seats' crash lines: a seat's line (the one an in-process plugin's crash "
    "writes) is composed when it is written, from the name, seat, match id and the "
    "bot's tail its guard keeps, not composed and its tail copied at every seat's "
    "opening (some 850 instructions a seat). Instructions a decision (callgrind, "
    "outside SHA-256), through the referee and handing observations in brackets, "
    "before and after: Bruise Jack with 2 seats 2228 to 2158 (2691 to 2621), "
    "BrawlJack with 2 1317 to 1276 (2567 to 2526); rows of long matches hardly move "
    "(Taylor Blackjack with 2 and Bombs with 3 and 4 seats 2 fewer of some 680-1080). "
    "In CPU time, 80 and 60 interleaved pairs of both builds at load average 11-12.7 "
    "(medians, quartiles in brackets): handing observations, Bruise Jack with 2 seats "
    "0.955 (0.881-1.065) of the time before, BrawlJack with 2 0.978 (0.905-1.054), "
    "engine + observations in the same runs 1.012 and 0.998; the column's ratio, "
    "engine + observations / handing observations, 0.69 to 0.73 and 0.735 to 0.744 "
    "(spreads of 0.1 and more at that load: read the instructions). What is left per "
    "match is the bots' seeds (BLAKE2b, some 1060 instructions a seat, the streams "
    "every seeded tournament was played with), the runtime's start (the game looked "
    "up by name and the parameters checked again, some 230 instructions a seat), the "
    "match's buffer (a malloc of some 320 and its free) and the deal; per decision, a few "
    "instructions in each of many places. For Bruise Jack with 2 seats (24 decisions "
    "a match) the engine with observations takes 2058 instructions a decision and "
    "SHA-256 682 (counted without the CPU's SHA extensions): with no bookkeeping of "
    "the referee's at all the column's ratio would be about 0.75 by instructions, under its "
    "0.8; in time SHA-256 weighs less on a CPU with those extensions, so the row is "
    "to be read from a quiet run, not from instructions.\n";

/* One referee row's shares of the engine's time (REFEREE_WHY). */
typedef struct share {
    const char *game;
    uint32_t seats;
    double o, r, ratio; /* ratio: referee / engine */
    double handed;      /* referee handing observations / engine */
} share;

/* Which rows the referee's own share alone puts out of reach in this run,
 * which a seat's observation does, and the others: a paragraph of the
 * page. */
static void referee_shares(FILE *md, const share *sh, size_t n)
{
    static const char *const what[3] = {
        "r is over 0.67: the referee's own work alone keeps referee / engine under 0.6",
        "r is at most 0.67, o + r over it: referee / engine can reach 0.6, a referee "
        "handing observations cannot",
        "o + r is at most 0.67: neither share puts 0.6 out of reach, even handing "
        "observations",
    };
    fprintf(md, " In this run (each row as game, seats (o, r: referee / engine; referee "
                "handing observations / engine)):\n\n");
    for (int kind = 0; kind < 3; kind++) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            /* As printed (two decimals), so that the text never contradicts itself. */
            double o2 = round(sh[i].o * 100) / 100, r2 = round(sh[i].r * 100) / 100;
            int k = r2 > 0.67 ? 0 : round((o2 + r2) * 100) > 67 ? 1 : 2;
            if (k != kind)
                continue;
            fprintf(md, "%s %s %u (o %.2f, r %.2f: %.2f; %.2f)", any ? "," : "-", sh[i].game,
                    sh[i].seats, sh[i].o, sh[i].r, sh[i].ratio, sh[i].handed);
            any = true;
        }
        if (any)
            fprintf(md, ": %s.\n", what[kind]);
    }
    fputc('\n', md);
}

/* The referee section's heading, how it measures (rm_n referee matches a
 * row, matches engine matches), and the head of its table. */
static void write_referee_intro(FILE *md, uint32_t rm_n, uint32_t matches)
{
    fprintf(md, "## The referee\n\n"
                "The match loop with `random` plugin seats (decision, plugin call, "
                "validation, digest), no replay file, %u seeded matches per row, default "
                "options, against the bare rules engine's decisions/s measured beside it "
                "(%u matches): three trials of each row's four loops (engine, engine + "
                "observations, referee, referee handing observations), interleaved, since a "
                "shared virtual machine's CPU speed moves from one minute to the next (the "
                "engine section's own figures can differ). Every loop is timed by the CPU time of "
                "the thread that runs it (the plugins' included: they run on it), so that "
                "other work on the machine does not count: figures are decisions and matches "
                "per CPU second. The baselines are floors: the "
                "engine's figure, and that of the engine + observations where it is the last "
                "ratio's baseline, is its best (fastest) trial, the referee's figures the "
                "medians of theirs, so a slow engine trial cannot flatter a ratio. Beside each "
                "ratio, in brackets, its spread: the lowest and highest of the three "
                "per-trial ratios (each trial's figure over the engine's trial beside "
                "it).\n\n"
                "Which seats read observations: `random` never reads its observation and "
                "says so (plugin ABI 1.3, `JA_BOT_OBS_ON_DEMAND`, docs/plugin-abi.md), so "
                "an in-process seat of it is asked without one and none is built: the "
                "*referee* columns are those matches, what a tournament of `random` seats "
                "costs. A bot that reads its observation (greedy, ismcts, a plugin built "
                "before ABI 1.3, every hosted or external bot) is handed it at every "
                "decision: *referee handing observations* is the same matches with every "
                "asked seat's observation brought up to date before it is asked, as such a "
                "bot's seat is (%u matches; its bot's own thinking aside).\n\n"
                "Both sides count the same thing: a decision is one engine step (to_act, "
                "legal, apply), forced single choices included; the referee's figure is "
                "`ref_match_result.decisions` (every step) over the time. Only the steps "
                "with more than one legal action are put to a bot (and, for a seat that "
                "reads it, an observation built): in these matches 83%% of the steps in "
                "Taylor Blackjack, 90-97%% in Brawljack, 98%% in Bruise Jack, 75%% in Jack "
                "in the Box and 36-45%% in Bombs. The engine's choices come from the "
                "caller's stream, the referee's from the bots' streams: the same games from "
                "the same seeds, not the same moves.\n\n"
                "*Engine + observations* is the bare engine's loop that also brings the "
                "acting seat's observation up to date at every step with more than one legal "
                "action, as the match loop does for a seat that reads it (the game's "
                "incremental update; %u matches, the engine's seeds and choices). No referee "
                "that hands `act()` an observation can be faster: its ratio to the engine is "
                "the most *referee handing observations / engine* can reach for that game, "
                "and the referee handing observations over it is what the referee itself "
                "costs beyond them: the match loop, the plugin call, the bot, the "
                "validation, the digest and what each match costs once.\n\n"
                "| game | seats | referee decisions/CPU s | referee matches/CPU s | engine "
                "decisions/CPU s "
                "| referee / engine | target | engine + observations / engine "
                "| referee handing observations / engine "
                "| referee handing observations / engine + observations "
                "| target |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
            rm_n, matches, rm_n, matches);
}

#define REF_TRIALS 3 /* interleaved trials of a referee row's four loops */

/* One row of the referee section: each trial's decisions/s of the engine,
 * of the engine with observations, of the referee (random, observed on
 * demand: never) and of the referee handing every asked seat its
 * observation, and the referee's matches/s; then the figures shown: the
 * baselines' best trials (the engine, and the engine with observations as
 * the handing referee's baseline), the others' medians. */
typedef struct referee_row {
    double et[REF_TRIALS], ft[REF_TRIALS], rt[REF_TRIALS], ht[REF_TRIALS], mt[REF_TRIALS];
    double ed, fd, rd, hd, rm;
} referee_row;

/* REF_TRIALS trials of the four loops, interleaved: the engine is measured
 * again beside the referee, as the speed of a shared virtual machine's CPU
 * moves from one minute to the next. Each by its thread's CPU time (every
 * loop runs on this thread, plugins included). */
static referee_row time_referee_row(const ja_game_rules *g, uint32_t seats, uint32_t matches,
                                    uint32_t rm_n, ref_bot *bot)
{
    referee_row f;
    for (int t = 0; t < REF_TRIALS; t++) {
        match_run e = bench_engine(g, seats, matches, false);
        match_run o = bench_engine(g, seats, matches, true);
        match_run r = bench_referee(g, seats, rm_n, bot, false);
        match_run h = bench_referee(g, seats, rm_n, bot, true);
        f.et[t] = (double)e.decisions / e.cpu_seconds;
        f.ft[t] = (double)o.decisions / o.cpu_seconds;
        f.rt[t] = (double)r.decisions / r.cpu_seconds;
        f.mt[t] = r.matches / r.cpu_seconds;
        f.ht[t] = (double)h.decisions / h.cpu_seconds;
    }
    f.ed = bench_best(f.et, REF_TRIALS);
    f.fd = bench_best(f.ft, REF_TRIALS);
    f.rd = bench_median(f.rt, REF_TRIALS);
    f.hd = bench_median(f.ht, REF_TRIALS);
    f.rm = bench_median(f.mt, REF_TRIALS);
    return f;
}

/* The row's four figures as rows and its line of the table; its shares. */
static share record_referee_row(FILE *md, const ja_game_rules *g, uint32_t seats,
                                const referee_row *f)
{
    double ed = f->ed, fd = f->fd, rd = f->rd, hd = f->hd, rm = f->rm;
    double per[4][REF_TRIALS];
    char name[112], cell[64], cell2[64], c[4][96];
    snprintf(name, sizeof name, "%s, %u seats: referee / engine", g->name, seats);
    const bench_row *row =
        bench_row_add_trials(name, rd, "decisions/CPU s", rd / ed,
                             bench_ratios(f->rt, f->et, REF_TRIALS, per[0]), REF_TRIALS,
                             BENCH_AT_LEAST, REFEREE_TARGET);
    snprintf(name, sizeof name, "%s, %u seats: engine + observations / engine", g->name, seats);
    const bench_row *ceil1 =
        bench_row_add_trials(name, fd, "decisions/CPU s", fd / ed,
                             bench_ratios(f->ft, f->et, REF_TRIALS, per[1]), REF_TRIALS,
                             BENCH_NO_TARGET, 0);
    snprintf(name, sizeof name, "%s, %u seats: referee handing observations / engine", g->name,
             seats);
    const bench_row *handed =
        bench_row_add_trials(name, hd, "decisions/CPU s", hd / ed,
                             bench_ratios(f->ht, f->et, REF_TRIALS, per[2]), REF_TRIALS,
                             BENCH_NO_TARGET, 0);
    snprintf(name, sizeof name,
             "%s, %u seats: referee handing observations / engine + observations", g->name,
             seats);
    const bench_row *own =
        bench_row_add_trials(name, hd, "decisions/CPU s", hd / fd,
                             bench_ratios(f->ht, f->ft, REF_TRIALS, per[3]), REF_TRIALS,
                             BENCH_AT_LEAST, REFEREE_OWN_TARGET);
    fprintf(md, "| %s | %u | %.0f | %.1f | %.0f | %s | %s | %s | %s | %s | %s |\n", g->name,
            seats, rd, rm, ed, bench_ratio_cell(row, true, c[0], sizeof c[0]),
            bench_row_target(row, cell, sizeof cell),
            bench_ratio_cell(ceil1, false, c[1], sizeof c[1]),
            bench_ratio_cell(handed, false, c[2], sizeof c[2]),
            bench_ratio_cell(own, true, c[3], sizeof c[3]),
            bench_row_target(own, cell2, sizeof cell2));
    return (share){g->name, seats, ed / fd - 1, ed / rd - 1, rd / ed, hd / ed};
}

static int sec_referee(FILE *md, const bench_opts *o)
{
    uint32_t rm_n = o->matches / 4 ? o->matches / 4 : 1;
    write_referee_intro(md, rm_n, o->matches);
    share sh[48];
    size_t n_sh = 0;
    for (int i = 0; ja_games[i] && i < 16; i++) {
        const ja_game_rules *g = ja_games[i];
        uint32_t seats[3];
        int n = seat_counts(g, seats);
        for (int k = 0; k < n; k++) {
            referee_row f = time_referee_row(g, seats[k], o->matches, rm_n, o->bot);
            share one = record_referee_row(md, g, seats[k], &f);
            if (n_sh < sizeof sh / sizeof sh[0])
                sh[n_sh++] = one;
        }
    }
    fputs(REFEREE_WHY, md);
    referee_shares(md, sh, n_sh);
    fputs(REFEREE_PROFILE, md);
    return 0;
}

/* The mean act and action sizes of the first game (the payloads of the raw
 * round trips), measured once a run. */
static void payload_sizes(double *act, double *action)
{
    static double a, b;
    static int done;
    if (!done)
        wire_sizes(ja_games[0], 2, 20, &a, &b);
    done = 1;
    *act = a;
    *action = b;
}

static int sec_hosted(FILE *md, const bench_opts *o)
{
    double act = 0, action = 0;
    payload_sizes(&act, &action);
    return bench_hosted(md, o->bots_dir, act, action) != 0;
}

/* What the external section measured: three trials of each path
 * (decisions/s, and CPU microseconds a decision), the raw round trip's best
 * and the others' medians. */
typedef struct external_run {
    const ja_game_rules *g;
    double act_bytes, action_bytes; /* the raw round trips' payloads */
    uint32_t raw_n, matches;        /* raw round trips, and matches of each cmd: path, a trial */
    double raw_t[3], ext_t[3], hub_t[3], raw_c[3], ext_c[3], hub_c[3];
    uint64_t ext_asked, hub_asked;  /* decisions sent in a trial, direct and through the hub */
    double raw_rate, ext_rate, hub_rate, raw_cpu, ext_cpu, hub_cpu;
} external_run;

/* Three interleaved trials of the raw round trip, the cmd: bots with
 * direct seats and through the hub's thread, each with the CPU time of
 * every process and thread of it (all reaped after it); the medians. 0,
 * or -1 after a message. */
static int time_external_trials(external_run *x, const char *client)
{
    for (int t = 0; t < 3; t++) {
        /* The raw trial: the better of a free and a pinned run (bench.h). */
        double c0 = bench_cpu_s();
        double free_rt = bench_raw_zmq_round_trips((size_t)x->act_bytes,
                                                   (size_t)x->action_bytes, x->raw_n, BENCH_FREE);
        double cp = bench_cpu_s();
        double pinned_rt = bench_raw_zmq_round_trips(
            (size_t)x->act_bytes, (size_t)x->action_bytes, x->raw_n, BENCH_PINNED);
        double c1 = bench_cpu_s();
        x->raw_t[t] = fmax(free_rt, pinned_rt);
        x->ext_t[t] = bench_external(x->g, client, x->matches, true, &x->ext_asked);
        double c2 = bench_cpu_s();
        x->hub_t[t] = bench_external(x->g, client, x->matches, false, &x->hub_asked);
        x->raw_c[t] = fmin(cp - c0, c1 - cp) * 1e6 / x->raw_n;
        x->ext_c[t] = x->ext_asked ? (c2 - c1) * 1e6 / (double)x->ext_asked : 0;
        x->hub_c[t] = x->hub_asked ? (bench_cpu_s() - c2) * 1e6 / (double)x->hub_asked : 0;
        if (x->ext_t[t] <= 0 || x->raw_t[t] <= 0 || x->hub_t[t] <= 0) {
            fprintf(stderr, "ja_bench: the external-bot measurement failed (see above)\n");
            return -1;
        }
    }
    /* The raw round trip is the floor: its best trial (fastest, least CPU). */
    x->raw_rate = bench_best(x->raw_t, 3);
    x->ext_rate = bench_median3(x->ext_t);
    x->hub_rate = bench_median3(x->hub_t);
    x->raw_cpu = bench_least(x->raw_c, 3);
    x->ext_cpu = bench_median3(x->ext_c);
    x->hub_cpu = bench_median3(x->hub_c);
    return 0;
}

/* The external section's rows; the one judged by its target (*hub: the
 * hub thread's row). */
static const bench_row *record_external_rows(const external_run *x, const bench_row **hub)
{
    double raw_rate = x->raw_rate, ext_rate = x->ext_rate, hub_rate = x->hub_rate;
    double raw_cpu = x->raw_cpu, ext_cpu = x->ext_cpu, hub_cpu = x->hub_cpu, per[4][3];
    bench_row_add("raw ZeroMQ DEALER/ROUTER round trip", raw_rate, "round trips/s", NAN,
                  BENCH_NO_TARGET, 0);
    const bench_row *row = bench_row_add_trials(
        "cmd: bots through the referee / raw ZeroMQ round trip", ext_rate, "decisions/s",
        ext_rate / raw_rate, bench_ratios(x->ext_t, x->raw_t, 3, per[0]), 3, BENCH_AT_LEAST,
        0.8);
    bench_row_add_trials("CPU time: raw ZeroMQ round trip / cmd: decision", ext_cpu,
                         "us CPU/decision", ext_cpu > 0 ? raw_cpu / ext_cpu : NAN,
                         bench_ratios(x->raw_c, x->ext_c, 3, per[1]), 3, BENCH_NO_TARGET, 0);
    *hub = bench_row_add_trials("cmd: bots through the hub thread / raw ZeroMQ round trip",
                                hub_rate, "decisions/s", hub_rate / raw_rate,
                                bench_ratios(x->hub_t, x->raw_t, 3, per[2]), 3,
                                BENCH_NO_TARGET, 0);
    bench_row_add_trials("CPU time: raw ZeroMQ round trip / cmd: decision through the hub "
                         "thread", hub_cpu, "us CPU/decision",
                         hub_cpu > 0 ? raw_cpu / hub_cpu : NAN,
                         bench_ratios(x->raw_c, x->hub_c, 3, per[3]), 3, BENCH_NO_TARGET, 0);
    return row;
}

/* How the external section measures, and its table. */
static void write_external_table(FILE *md, const external_run *x, const bench_row *row,
                                 const bench_row *hub)
{
    double raw_rate = x->raw_rate, ext_rate = x->ext_rate, hub_rate = x->hub_rate;
    const double *raw_t = x->raw_t, *ext_t = x->ext_t, *hub_t = x->hub_t;
    char cell[64], rc[96], hc[96];
    fprintf(md,
            "## External bots over ZeroMQ\n\n"
            "%u matches of %s, 2 seats, default options, between two `cmd:` bots in C "
            "(`sdk/examples/ja_example_bot`, each its own process, through the hub over a "
            "private ipc endpoint, one match at a time, `--move-ms 1000`), against a raw "
            "ZeroMQ DEALER/ROUTER round trip between two processes over ipc with payloads "
            "of the same sizes (%.0f bytes out: a mean act; %.0f bytes back: an action), "
            "%u round trips, in the same run: three trials of each, interleaved, a raw "
            "trial the better of two runs, one where the scheduler puts its two processes "
            "and one with each pinned to a CPU of its own. The raw round trip is the floor, "
            "its best trial (the fastest, and the least CPU a round trip), the `cmd:` paths "
            "the medians of theirs; beside each ratio, in brackets, the lowest and highest "
            "of the per-trial ratios (each trial over the raw trial beside it). The `cmd:` "
            "bots play twice: with direct seats, as `--jobs 1` and `arena play` run them "
            "(the match's thread runs the hub's loop while it waits), and through the hub's "
            "thread, as matches of `--jobs N` reach them.\n\n"
            "| path | decisions/s | per decision | CPU per decision (every process "
            "and thread) | trials | / raw round trip | target |\n"
            "|---|---|---|---|---|---|---|\n"
            "| raw DEALER/ROUTER round trip (best) | %.0f | %.1f us | %.1f us | %.0f, %.0f, "
            "%.0f | 1 | |\n"
            "| `cmd:` bots through the referee (direct seats; median) | %.0f | %.1f us | %.1f "
            "us | %.0f, %.0f, %.0f | %s | %s |\n"
            "| `cmd:` bots through the hub's thread (median) | %.0f | %.1f us | %.1f us | %.0f, "
            "%.0f, %.0f | %s | |\n\n",
            x->matches, x->g->name, x->act_bytes, x->action_bytes, x->raw_n, raw_rate,
            1e6 / raw_rate, x->raw_cpu, raw_t[0], raw_t[1], raw_t[2], ext_rate, 1e6 / ext_rate,
            x->ext_cpu, ext_t[0], ext_t[1], ext_t[2], bench_ratio_cell(row, true, rc, sizeof rc),
            bench_row_target(row, cell, sizeof cell), hub_rate, 1e6 / hub_rate, x->hub_cpu,
            hub_t[0], hub_t[1], hub_t[2], bench_ratio_cell(hub, false, hc, sizeof hc));
}

/* What a cmd: decision costs beyond the round trip, and where its time
 * goes (profiles this run does not measure: they name their dates). */
static void write_external_costs(FILE *md, const external_run *x)
{
    double raw_cpu = x->raw_cpu, ext_cpu = x->ext_cpu, hub_cpu = x->hub_cpu;
    fprintf(md,
            "CPU time, raw round trip / `cmd:` decision: **%.2f** with direct seats, %.2f "
            "through the hub's thread. The C bots ask for the compact act (docs/protocol.md, "
            "`x_bin`: the observation's bytes and the legal codes, about the full act's size "
            "but one blob to copy instead of a map of dozens of arrays to decode). The rest "
            "is the protocol's work: encoding the act, the hub's decoding and validation of "
            "the answer, and the bot's decoding of the act and its decision (%llu decisions "
            "sent per trial), plus, through the hub's thread, the inproc hop between that "
            "thread and the match's seat.\n\n"
            "Where it goes (perf record of this section): most of the samples are in the "
            "kernel, and most of those are thread wake-ups, each an `eventfd_write` to a "
            "ZeroMQ mailbox followed by a context switch (`finish_task_switch`). A raw round "
            "trip wakes six threads (each side's application thread and ZeroMQ I/O thread, "
            "twice). A `cmd:` decision through the hub's thread wakes eight: the seat's "
            "inproc send wakes the hub thread and the hub's forward wakes the I/O thread, "
            "and the answer comes back the same way. A direct seat wakes six, as the raw "
            "round trip: the match's thread sends the act on the bots' ROUTER itself and "
            "waits on it, reading the answer (and anything else that comes) as the hub's "
            "thread would (`perf stat`: about two context switches fewer per decision than "
            "through the hub's thread). In user space, with the full act, the bot's decoding "
            "of the 1.7 KB act (msgpack-c's unpacker, `ja_mp_scan`, `ja_mp_as_obs`) and the "
            "referee's encoding (`ref_wire_put_obs`) stood out: about a fifth of all the CPU "
            "time of 8 matches in flight (Tournaments, below); the compact act removes most "
            "of both. Every path waits on wake-ups, whose latency varies "
            "several-fold between runs on a shared virtual machine: compare them only "
            "within one run, and by CPU time first. On a 2-core AMD EPYC virtual machine "
            "(2026-11-27), where a system call costs about 1.1 us, a profile of the whole "
            "machine while two such bots played 100 rounds one match at a time (`arena "
            "tournament`, `perf record -a -g`, 49,302 samples) found 27.6%% of the samples "
            "idle (every process waiting for a wake-up), 47.2%% in the kernel, 15.9%% in libc "
            "(14.5%% in the system calls' wrappers), 7.2%% in libzmq and 1.9%% in the "
            "project's code and the libraries it calls for its own work (the arena, the bot, "
            "msgpack-c, SQLite). The hub's loop and the C client wait with poll() on the "
            "sockets' ZMQ_FD instead of zmq_poll (docs/architecture.md): the arena's thread "
            "makes 16 system calls a decision instead of 26, a bot 3 fewer, and CPU per "
            "decision fell from 161-165 us to 130-152 us in interleaved runs of this "
            "section.\n",
            ext_cpu > 0 ? raw_cpu / ext_cpu : 0, hub_cpu > 0 ? raw_cpu / hub_cpu : 0,
            (unsigned long long)x->ext_asked);
}

/* External bots against the raw transport: three interleaved trials of
 * each (wake-up latency on an idle machine moves both a lot), medians
 * reported. The raw side forks: no ZeroMQ context is alive then (each
 * hub's context ends with the hub). */
static int sec_external(FILE *md, const bench_opts *o)
{
    external_run x;
    memset(&x, 0, sizeof x);
    x.g = ja_games[0];
    payload_sizes(&x.act_bytes, &x.action_bytes);
    x.raw_n = o->matches * 25 < 20000 ? 20000 : o->matches * 25;
    x.matches = o->matches / 20 ? o->matches / 20 : 1;
    if (time_external_trials(&x, o->client) != 0)
        return 1;
    const bench_row *hub = NULL;
    const bench_row *row = record_external_rows(&x, &hub);
    write_external_table(md, &x, row, hub);
    write_external_costs(md, &x);
    return 0;
}

static int sec_scale(FILE *md, const bench_opts *o)
{
    uint32_t tm = 0;
    uint32_t rounds = o->matches / 12 ? o->matches / 12 : 1;
    double trate = bench_tournament(ja_games[0], o->bot, rounds, &tm);
    bench_row_add("in-process tournament with its ladder", trate, "matches/s", NAN,
                  BENCH_NO_TARGET, 0);
    fprintf(md,
            "## Tournaments\n\n"
            "`arena tournament %s --bots random,random,random --seats 3` with default options "
            "through the in-process executor, one SQLite transaction per finished match "
            "(WAL, synchronous=FULL), no replays: **%.1f matches/s** over %u matches.\n\n",
            ja_games[0]->name, trate, tm);
    bench_scale(md, NULL);
    return 0;
}

static int sec_slurm(FILE *md, const bench_opts *o)
{
    (void)o;
    return bench_slurm(md, NULL);
}

static int sec_serve(FILE *md, const bench_opts *o)
{
    return bench_serve(md, NULL, o->bots_dir);
}

static int sec_report(FILE *md, const bench_opts *o)
{
    (void)o;
    return bench_report_site(md, 3);
}

static int sec_bots(FILE *md, const bench_opts *o)
{
    bench_ismcts(md, o->bots_dir);
    uint32_t gm = o->matches / 10;
    return bench_greedy_worst(md, o->bots_dir, gm < 1 ? 1 : gm > 200 ? 200 : gm);
}

/* The engine's decisions per second in its thread's CPU time (vecenv's
 * baseline, timed as the environments are). */
static double engine_rate(const ja_game_rules *g, uint32_t seats, uint32_t matches)
{
    match_run e = bench_engine(g, seats, matches, false);
    return e.cpu_seconds > 0 ? (double)e.decisions / e.cpu_seconds : 0;
}

static int sec_vecenv(FILE *md, const bench_opts *o)
{
    return bench_vec(md, o->bots_dir, o->matches, engine_rate);
}

/* The luck adjustment: matches / 500 deals a game (4 at the default), at
 * least 3, at most 100. */
static int sec_luck(FILE *md, const bench_opts *o)
{
    uint32_t deals = o->matches / 500;
    return bench_luck(md, deals < 3 ? 3 : deals > 100 ? 100 : deals);
}

#define MARK_BEGIN "<!-- ja_bench section %s: begin -->\n"
#define MARK_END "<!-- ja_bench section %s: end -->\n"

/* Section name's block in text (markers included), or NULL; *len its bytes. */
static const char *find_block(const char *text, const char *name, size_t *len)
{
    char b[96], e[96];
    snprintf(b, sizeof b, MARK_BEGIN, name);
    snprintf(e, sizeof e, MARK_END, name);
    const char *p = text ? strstr(text, b) : NULL;
    const char *q = p ? strstr(p, e) : NULL;
    if (!q)
        return NULL;
    *len = (size_t)(q + strlen(e) - p);
    return p;
}

#define SKIP_NOTE "_Not measured again on "

/* Writes the old block blk (len bytes) of a section that was skipped in
 * this run, with a line after its heading saying so and why (why: the
 * section's text, "## Title\n\nNot measured: REASON.\n"), in place of an
 * earlier such line. */
static void write_kept(FILE *out, const char *blk, size_t len, const char *why,
                       const char *when)
{
    const char *reason = strstr(why, "Not measured: ");
    reason = reason ? reason + strlen("Not measured: ") : why;
    int rlen = (int)strcspn(reason, "\n");
    if (rlen > 0 && reason[rlen - 1] == '.')
        rlen--;
    /* The marker line and the heading, then the note, then the rest
     * without an earlier note. */
    const char *h = memchr(blk, '\n', len);
    h = h ? memchr(h + 1, '\n', len - (size_t)(h + 1 - blk)) : NULL;
    if (!h) {
        fwrite(blk, 1, len, out);
        return;
    }
    h++;
    fwrite(blk, 1, (size_t)(h - blk), out);
    fprintf(out, "\n" SKIP_NOTE "%s: %.*s; the figures below are those of the run "
            "named next._\n", when, rlen, reason);
    const char *rest = h;
    const char *end = blk + len;
    if ((size_t)(end - rest) > 1 && rest[0] == '\n' &&
        strncmp(rest + 1, SKIP_NOTE, strlen(SKIP_NOTE)) == 0) {
        const char *nl = memchr(rest + 1, '\n', (size_t)(end - rest - 1));
        rest = nl ? nl + 1 : end;
    }
    fwrite(rest, 1, (size_t)(end - rest), out);
}

/* The load averages at a section's start and end (load[0], load[1]), after
 * its run line; nothing when neither is known. */
static void write_load(FILE *out, const double load[2])
{
    if (load[0] < 0 && load[1] < 0)
        return;
    fprintf(out, " _Load average (1 minute, /proc/loadavg) at the section's start %.2f, at its "
            "end %.2f._", load[0], load[1]);
}

/* The page's header: what it is, how to read its verdicts, spreads and
 * load averages, and the JSON's fields. */
static const char PAGE_HEADER[] =
    "# Performance\n\n"
    "Written by `build/bench/ja_bench` (bench/ja_bench.c); do not edit by hand.\n"
    "Re-run with `build/bench/ja_bench` from the repository root after a Release build\n"
    "(`bash scripts/setup.sh`). Tests never assert timings; this page is where speed\n"
    "is measured.\n\n"
    "The page has twelve sections (" SECTION_LIST ").\n"
    "`ja_bench --only SECTION` reruns one of them (repeatable, or a comma list) and\n"
    "replaces only that section's part of this page: the others keep the figures of\n"
    "the run that wrote them. Each section therefore begins with the run it comes\n"
    "from (date, full run or `--only`, CPU, build), and ratios are taken within one\n"
    "section's run only.\n\n"
    "A row judged by a target shows it beside its ratio (or its figure, where it has no\n"
    "ratio), with a verdict that holds over all of the row's trials: `\u2265 0.8 \u2713` is "
    "met\n(the ratio shown and every trial's ratio meet it), `\u2265 0.8 \u2717` is not met "
    "(none\ndoes), `\u2265 0.8 ?` is undecided (they fall on both sides of the target: the "
    "run\ncannot tell). A ratio is followed by its spread, `0.85 (0.81\u20130.88)`: the "
    "lowest and\nhighest of its per-trial ratios, each trial's figure over the baseline's "
    "trial\nmeasured beside it (the trials are interleaved). A baseline (the bare engine, "
    "the\nraw round trips, OpenSpiel's program, `--jobs 1`) is a floor: its best "
    "(fastest)\ntrial, so that a slow trial of the baseline cannot flatter a ratio (a raw "
    "round\ntrip's trial is itself the better of two runs, its two processes placed by "
    "the\nscheduler and pinned each to a CPU of its own; the single-threaded sections "
    "run\npinned to one CPU). The figure compared with a baseline is the median of its "
    "own\ntrials, so the ratio shown can fall below the spread, and the verdict takes "
    "both. A\nfigure measured once has no spread and is judged alone.\n\n"
    "Each section's run line gives the 1-minute load average (`/proc/loadavg`) at "
    "the\nsection's start and end: the kernel's average of the number of tasks running "
    "or\nwaiting for a CPU (and in uninterruptible sleep) on the whole machine, "
    "damped\nexponentially with a time constant of one minute, so it lags: a section's "
    "start\nstill carries part of the section before it. It counts this benchmark's "
    "own\nprocesses and threads too (a section of one thread adds about 1, a "
    "parallel\nsection its processes): other work on the machine is what the load "
    "exceeds that\nby. Above the number of cores, tasks waited for a CPU, and the "
    "section's figures\nare lower bounds; its ratios, of trials interleaved in the same "
    "minutes, move\nless than its figures.\n\n"
    "`ja_bench --json` prints every row as one JSON object: `{\"arena\", \"date\", "
    "\"cpu\",\n\"cores\", \"build\", \"sections\", \"load\", \"out\", \"rows\"}`, "
    "`load` giving each section run\nits `{\"start\", \"end\"}` load averages (null: "
    "unknown), each row `{\"section\", \"name\",\n\"value\", \"unit\", \"ratio\", "
    "\"spread\", \"target\", \"met\", \"verdict\"}` with `ratio` null\nwhere there is "
    "none, `spread` null (measured once) or `{\"min\", \"max\", \"trials\"}` of\nthe "
    "per-trial ratios (of the values, where the row has no ratio), `target` null "
    "or\n`{\"op\": \">=\" or \"<=\", \"value\", \"of\": \"ratio\" or \"value\", "
    "\"text\"}`, `met` true (met),\nfalse (not met) or null (no target, or undecided) "
    "and `verdict` `\"met\"`, `\"not met\"`,\n`\"undecided\"` or null (no target).\n";

/* Writes the page to out_path (through a temporary file and a rename): the
 * header, then every section's block in order: the text of the sections
 * run now (fresh[i], NULL for those not run), else the block the page
 * already had, else a line saying it was never measured. A section that
 * was skipped (skipped[i]: it could not be measured here; fresh[i] says
 * why) keeps the block the page had, with a line saying so. Returns 0, or
 * -1 after a message. */
static int write_page(const char *out_path, char *const *fresh, const bool *skipped,
                      const char *when, const char *run_line, long peak_kib)
{
    char *old = bench_slurp(out_path, NULL); /* NULL: no earlier blocks */
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp", out_path);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        fprintf(stderr, "ja_bench: cannot write %s: %s\n", tmp, strerror(errno));
        free(old);
        return -1;
    }
    fputs(PAGE_HEADER, out);
    for (size_t i = 0; i < N_SECTIONS; i++) {
        fputc('\n', out);
        size_t len = 0;
        const char *blk;
        if (fresh[i] && skipped[i] &&
            (blk = find_block(old, SECTIONS[i].name, &len)) != NULL) {
            write_kept(out, blk, len, fresh[i], when);
        } else if (fresh[i]) {
            const char *body = fresh[i];
            while (*body == '\n')
                body++;
            fprintf(out, MARK_BEGIN, SECTIONS[i].name);
            fprintf(out, "%.*s\n\n%s", (int)strcspn(body, "\n"), body, run_line);
            if (g_pinned[i] >= 0)
                fprintf(out, " _On CPU %d alone (sched_setaffinity), as every single-threaded "
                        "section of its run._", g_pinned[i]);
            write_load(out, g_load[i]);
            body += strcspn(body, "\n");
            fprintf(out, "%s", body);
            if (body[0] && body[strlen(body) - 1] != '\n')
                fputc('\n', out);
            fprintf(out, MARK_END, SECTIONS[i].name);
        } else if ((blk = find_block(old, SECTIONS[i].name, &len)) != NULL) {
            fwrite(blk, 1, len, out);
        } else {
            fprintf(out, MARK_BEGIN, SECTIONS[i].name);
            fprintf(out, "## Section %s\n\nNot measured yet: `build/bench/ja_bench --only %s`.\n",
                    SECTIONS[i].name, SECTIONS[i].name);
            fprintf(out, MARK_END, SECTIONS[i].name);
        }
    }
    fprintf(out, "\nPeak resident memory of the benchmark process in the run that last wrote "
                 "this page: %ld KiB.\n", peak_kib);
    free(old);
    if (fclose(out) != 0 || rename(tmp, out_path) != 0) {
        fprintf(stderr, "ja_bench: cannot write %s: %s\n", out_path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Marks the sections named in list (a comma list); -1 after the one-line
 * error for an unknown or empty name. */
static int select_sections(const char *list, bool *chosen)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    int any = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < N_SECTIONS && strcmp(SECTIONS[i].name, tok) != 0)
            i++;
        if (i == N_SECTIONS) {
            fprintf(stderr, "ja_bench: unknown section '%s' (sections: " SECTION_LIST ")\n", tok);
            return -1;
        }
        chosen[i] = true;
        any = 1;
    }
    if (!any) {
        fprintf(stderr, "ja_bench: --only needs a section (sections: " SECTION_LIST ")\n");
        return -1;
    }
    return 0;
}

/* The single-threaded sections all run on one CPU, the lowest this process
 * may use: their ratios compare figures measured one after the other, and
 * on a virtual machine two virtual CPUs can differ (one of a 2-core AMD
 * EPYC machine ran the match loop 45% slower than the other for a whole
 * session, 2026-11-27, while a loop of arithmetic ran as fast on both), so
 * the scheduler's choice of CPU for each section would show in the ratio.
 * *all is the mask to give back for the sections of several processes.
 * Returns the CPU, or -1 (nothing pinned) when the mask cannot be read or
 * set. */
static int pin_one_cpu(cpu_set_t *all)
{
    if (sched_getaffinity(0, sizeof *all, all) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, all)) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            return sched_setaffinity(0, sizeof one, &one) == 0 ? c : -1;
        }
    return -1;
}

/* What the command line asked for (parse_args), beside bench_opts. */
typedef struct bench_cli {
    const char *out_path;
    bool chosen[N_SECTIONS]; /* the sections to run */
    bool only, json;
    char only_arg[128];      /* the --only lists, joined with commas */
} bench_cli;

/* Takes the value v of option a (one of the options that take one). 0, or
 * 2 (the exit status) after the one-line error. */
static int take_value(const char *a, const char *v, bench_cli *c, bench_opts *o)
{
    if (strcmp(a, "--only") == 0) {
        if (select_sections(v, c->chosen) != 0)
            return 2;
        c->only = true;
        size_t l = strlen(c->only_arg);
        snprintf(c->only_arg + l, sizeof c->only_arg - l, "%s%s", l ? "," : "", v);
    } else if (strcmp(a, "--out") == 0) {
        c->out_path = v;
    } else if (strcmp(a, "--bots") == 0) {
        o->bots_dir = v;
    } else if (strcmp(a, "--client") == 0) {
        o->client = v;
    } else if (strcmp(a, "--openspiel") == 0) {
        if (access(v, X_OK) != 0) {
            fprintf(stderr, "ja_bench: --openspiel '%s': not a program this user may "
                            "run: %s\n", v, strerror(errno));
            return 2;
        }
        o->openspiel = v;
    } else {
        char *end = NULL;
        errno = 0;
        unsigned long n = strtoul(v, &end, 10);
        if (errno || !end || *end || v[0] == '-' || n == 0 || n > 100000000UL) {
            fprintf(stderr, "ja_bench: --matches '%s' is not a count from 1 to "
                            "100000000\n", v);
            return 2;
        }
        o->matches = (uint32_t)n;
    }
    return 0;
}

/* Reads the command line into c and o, every section chosen when none is
 * named. -1 to go on, or the exit status: 0 after --help, 2 after a
 * one-line error. */
static int parse_args(int argc, char **argv, bench_cli *c, bench_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(HELP, stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            c->json = true;
        } else if (strcmp(a, "--only") == 0 || strcmp(a, "--out") == 0 ||
                   strcmp(a, "--bots") == 0 || strcmp(a, "--client") == 0 ||
                   strcmp(a, "--openspiel") == 0 ||
                   strcmp(a, "--matches") == 0) {
            if (!has) {
                fprintf(stderr, "ja_bench: %s needs a value (see --help)\n", a);
                return 2;
            }
            if (take_value(a, argv[++i], c, o) != 0)
                return 2;
        } else {
            fprintf(stderr, "ja_bench: unknown argument '%s' (see --help)\n", a);
            return 2;
        }
    }
    if (!c->only)
        for (size_t i = 0; i < N_SECTIONS; i++)
            c->chosen[i] = true;
    return -1;
}

/* The page's directory must take the page before anything runs. 0, or 2
 * (the exit status) after the one-line error. */
static int check_out_dir(const char *out_path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", out_path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    if (access(dir[0] ? dir : "/", W_OK) != 0) {
        fprintf(stderr, "ja_bench: --out '%s': cannot write into '%s': %s\n", out_path, dir,
                strerror(errno));
        return 2;
    }
    return 0;
}

/* What a run says of itself: in the JSON, and in the line each section it
 * wrote begins with. */
typedef struct run_info {
    char cpu[256], when[64];
    long cores;
    const char *build;
    char line[1024]; /* the run line of the page */
} run_info;

static void describe_run(run_info *r, const bench_cli *c, uint32_t matches)
{
    cpu_model(r->cpu, sizeof r->cpu);
    time_t t = time(NULL);
    strftime(r->when, sizeof r->when, "%Y-%m-%d", gmtime(&t));
    r->cores = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef NDEBUG
    r->build = "optimised (NDEBUG; " JA_BENCH_BUILD_TYPE ", " JA_BENCH_COMPILER ", "
               JA_BENCH_CFLAGS ")";
#else
    r->build = "with assertions (not a Release build: numbers are pessimistic; "
               JA_BENCH_BUILD_TYPE ", " JA_BENCH_COMPILER ", " JA_BENCH_CFLAGS ")";
#endif
    snprintf(r->line, sizeof r->line,
             "_Run: %s, %s; %s (%ld online); build %s; arena %s; `--matches %u`._", r->when,
             c->only ? "`ja_bench --only`" : "full run", r->cpu, r->cores, r->build,
             ja_version(), matches);
    if (c->only) /* name the sections of the run */
        snprintf(r->line, sizeof r->line,
                 "_Run: %s, `ja_bench --only %s`; %s (%ld online); build %s; arena %s; "
                 "`--matches %u`._",
                 r->when, c->only_arg, r->cpu, r->cores, r->build, ja_version(), matches);
}

/* Runs section i into *fresh (its text), pinned to one CPU when it is a
 * section of one thread. 0; or 0 with *skipped set when it could not be
 * measured here (its text says why); or 1 when it failed. */
static int run_section(size_t i, const bench_opts *o, char **fresh, bool *skipped)
{
    size_t len = 0;
    FILE *md = open_memstream(fresh, &len);
    if (!md) {
        fprintf(stderr, "ja_bench: out of memory\n");
        return 1;
    }
    bench_rows_section(SECTIONS[i].name);
    fprintf(stderr, "ja_bench: section %s\n", SECTIONS[i].name);
    cpu_set_t all;
    int pinned = SECTIONS[i].one_cpu ? pin_one_cpu(&all) : -1;
    g_pinned[i] = pinned;
    g_load[i][0] = bench_loadavg();
    int rc = SECTIONS[i].run(md, o);
    g_load[i][1] = bench_loadavg();
    if (pinned >= 0)
        sched_setaffinity(0, sizeof all, &all);
    fclose(md);
    if (rc == BENCH_SECTION_SKIPPED) {
        fprintf(stderr, "ja_bench: section %s not measured: %s", SECTIONS[i].name,
                strstr(*fresh, "Not measured: ") ? strstr(*fresh, "Not measured: ") + 14
                                                 : "\n");
        *skipped = true;
        rc = 0;
    }
    return rc != 0;
}

/* Runs the chosen sections in the page's order until one fails, their
 * names into names. 0, or 1 when one failed. */
static int run_sections(const bench_cli *c, const bench_opts *o, char **fresh, bool *skipped,
                        const char **names, double *load, size_t *n_names)
{
    int rc = 0;
    for (size_t i = 0; i < N_SECTIONS && rc == 0; i++) {
        if (!c->chosen[i])
            continue;
        load[2 * *n_names] = load[2 * *n_names + 1] = -1;
        names[(*n_names)++] = SECTIONS[i].name;
        rc = run_section(i, o, &fresh[i], &skipped[i]);
        load[2 * (*n_names - 1)] = g_load[i][0];
        load[2 * (*n_names - 1) + 1] = g_load[i][1];
    }
    return rc;
}

int main(int argc, char **argv)
{
    char bots_dir[PATH_MAX], client[PATH_MAX + 64];
    snprintf(bots_dir, sizeof bots_dir, "%s/../bots", bench_exe_dir());
    snprintf(client, sizeof client, "%s/../sdk/examples/ja_example_bot", bench_exe_dir());
    bench_opts o = {2000, bots_dir, client, NULL, NULL};
    bench_cli c = {.out_path = "docs/performance.md"};
    int rc = parse_args(argc, argv, &c, &o);
    if (rc >= 0)
        return rc;
    if (check_out_dir(c.out_path) != 0)
        return 2;
    char path[PATH_MAX + 32], err[1024];
    snprintf(path, sizeof path, "%s/ja_random.so", o.bots_dir);
    if (ref_bot_plugin_open(path, NULL, &o.bot, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
        return 2;
    }
    bench_rows_print(!c.json);
    run_info run;
    describe_run(&run, &c, o.matches);
    char *fresh[N_SECTIONS] = {NULL};
    bool skipped[N_SECTIONS] = {false};
    const char *names[N_SECTIONS];
    double load[2 * N_SECTIONS];
    size_t n_names = 0;
    rc = run_sections(&c, &o, fresh, skipped, names, load, &n_names);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (rc == 0 && write_page(c.out_path, fresh, skipped, run.when, run.line, ru.ru_maxrss) != 0)
        rc = 1;
    if (c.json && bench_rows_json(stdout, names, load, n_names, rc == 0 ? c.out_path : NULL,
                                  run.when, run.cpu, run.cores, run.build) != 0) {
        fprintf(stderr, "ja_bench: cannot build the JSON output\n");
        rc = 1;
    }
    for (size_t i = 0; i < N_SECTIONS; i++)
        free(fresh[i]);
    ref_bot_destroy(&o.bot);
    if (rc == 0)
        fprintf(stderr, "ja_bench: wrote %s\n", c.out_path);
    return rc;
}
