/* ja_bench: measures the speed of the rules engines and of the referee, and
 * writes docs/performance.md itself (never asserted by tests: timings depend
 * on the machine).
 *
 *   ja_bench [--out FILE] [--matches N] [--bots DIR]
 *
 * For every game: decisions/s and matches/s of seeded matches with uniform
 * random choices (1) on the bare rules engine (legal + apply, no
 * observation) and (2) through the referee's match loop with `random` plugin
 * seats (observations, decisions, digest), and the ratio of the two.
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
#include "hub.h"
#include "ladder.h"
#include "match.h"
#include "ja_mp.h"
#include "proc.h"
#include "tournament.h"
#include "wire.h"
#include "bench_ismcts.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

typedef struct bench_row {
    const char *game;
    uint32_t seats;
    uint32_t matches;
    uint64_t decisions;
    double seconds;
} bench_row;

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
    double t0 = bench_now_s();
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
    r.seconds = bench_now_s() - t0;
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
    double t0 = bench_now_s();
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
    arena_exec_ctx xc = {g, o, 0, bots, names, NULL, tid, 0, {0}, NULL};
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
    void *st = malloc(g->state_size), *obs = malloc(g->obs_size);
    ja_action *legal = malloc(sizeof *legal * g->max_actions);
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
 * private ipc endpoint, one match at a time. Returns decisions asked per
 * second (decisions with one choice are not sent and not counted). */
static double bench_external(const ja_game_rules *g, const char *client, uint32_t matches,
                             uint64_t *asked_out)
{
    ref_hub_config hc;
    memset(&hc, 0, sizeof hc);
    ref_hub *hub = NULL;
    char err[600];
    if (ref_hub_start(&hc, &hub, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
        return 0;
    }
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

static double median3(const double v[3])
{
    double a = v[0], b = v[1], c = v[2];
    if (a > b) { double t = a; a = b; b = t; }
    if (b > c) { double t = b; b = c; c = t; }
    return a > b ? a : b;
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

/* build/sdk/examples/ja_example_bot beside build/bench/ja_bench. */
static const char *default_client(void)
{
    static char path[PATH_MAX];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return "sdk/examples/ja_example_bot";
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(path, sizeof path, "%s/../sdk/examples/ja_example_bot", exe);
    return path;
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
    const char *client = default_client();
    uint32_t matches = 2000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else if (strcmp(argv[i], "--bots") == 0 && i + 1 < argc)
            bots_dir = argv[++i];
        else if (strcmp(argv[i], "--client") == 0 && i + 1 < argc)
            client = argv[++i];
        else if (strcmp(argv[i], "--matches") == 0 && i + 1 < argc)
            matches = (uint32_t)strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: ja_bench [--out FILE] [--matches N] [--bots DIR] "
                            "[--client PATH]\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (matches == 0)
        matches = 1;
    char path[PATH_MAX + 32], err[1024];
    snprintf(path, sizeof path, "%s/ja_random.so", bots_dir);
    ref_bot *bot = NULL;
    if (ref_bot_plugin_open(path, NULL, &bot, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
        return 2;
    }
    /* External bots against the raw transport: three interleaved trials of
     * each (wake-up latency on an idle machine moves both a lot), medians
     * reported. The raw side forks: no ZeroMQ context is alive then (each
     * hub's context ends with the hub). */
    const ja_game_rules *g0 = ja_games[0];
    double act_bytes = 0, action_bytes = 0;
    wire_sizes(g0, 2, 20, &act_bytes, &action_bytes);
    uint32_t raw_n = matches * 25 < 20000 ? 20000 : matches * 25;
    uint32_t ext_matches = matches / 20 ? matches / 20 : 1;
    double raw_t[3], ext_t[3];
    uint64_t ext_asked = 0;
    for (int t = 0; t < 3; t++) {
        raw_t[t] = bench_raw_zmq_round_trips((size_t)act_bytes, (size_t)action_bytes, raw_n);
        ext_t[t] = bench_external(g0, client, ext_matches, &ext_asked);
        if (ext_t[t] <= 0 || raw_t[t] <= 0) {
            fprintf(stderr, "ja_bench: the external-bot measurement failed (see above)\n");
            return 1;
        }
    }
    double raw_rate = median3(raw_t), ext_rate = median3(ext_t);
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
            "- date: %s; arena %s; %s %s\n- CPU: %s (%ld online); matches one at a time\n"
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
    fprintf(out,
            "\n## External bots over ZeroMQ\n\n"
            "%u matches of %s, 2 seats, default options, between two `cmd:` bots in C "
            "(`sdk/examples/ja_example_bot`, each its own process, through the hub over a "
            "private ipc endpoint, one match at a time, `--move-ms 1000`), against a raw "
            "ZeroMQ DEALER/ROUTER round trip between two processes over ipc with payloads "
            "of the same sizes (%.0f bytes out: a mean act; %.0f bytes back: an action), "
            "%u round trips, in the same run: three trials of each, interleaved; the "
            "medians.\n\n"
            "| path | decisions/s (median) | per decision | trials |\n|---|---|---|---|\n"
            "| raw DEALER/ROUTER round trip | %.0f | %.1f us | %.0f, %.0f, %.0f |\n"
            "| `cmd:` bots through the referee | %.0f | %.1f us | %.0f, %.0f, %.0f |\n\n"
            "Ratio (referee / raw): **%.2f**. The rest is the protocol's work: encoding the "
            "observation from the field table and the labelled legal list, the hub's "
            "decoding and validation, the inproc hop between the hub thread and the "
            "match's seat, and the bot's decoding and decision (%llu decisions sent per trial). "
            "Both paths wait on process wake-ups, which an idle virtual machine makes slow "
            "and a busy one fast: compare the two only within one run.\n",
            ext_matches, g0->name, act_bytes, action_bytes, raw_n, raw_rate,
            raw_rate > 0 ? 1e6 / raw_rate : 0, raw_t[0], raw_t[1], raw_t[2], ext_rate,
            ext_rate > 0 ? 1e6 / ext_rate : 0, ext_t[0], ext_t[1], ext_t[2],
            raw_rate > 0 ? ext_rate / raw_rate : 0, (unsigned long long)ext_asked);
    fprintf(stderr, "external: %.0f decisions/s; raw round trip %.0f/s; ratio %.2f\n", ext_rate,
            raw_rate, raw_rate > 0 ? ext_rate / raw_rate : 0);
    if (bench_hosted(out, bots_dir, act_bytes, action_bytes) != 0)
        return 1;
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
    bench_scale(out, NULL);
    bench_ismcts(out, bots_dir);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(out, "\nPeak resident memory of the benchmark process: %ld KiB.\n", ru.ru_maxrss);
    fclose(out);
    ref_bot_destroy(&bot);
    fprintf(stderr, "ja_bench: wrote %s\n", out_path);
    return 0;
}
