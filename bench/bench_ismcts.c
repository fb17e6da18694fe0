/* ISMCTS speed: iterations per second of the `ismcts` reference bot in every
 * game. Whole matches with ismcts at every seat and a fixed iteration budget
 * (ismcts:iters=N), through the real match loop: iterations = decisions put
 * to the bots x N, over the wall time of the matches (the referee's share is
 * negligible next to the search). One row per game and playout policy, with
 * the paired rollout test off (verify=0), so that a row measures the tree
 * search alone. A second table: the mean thinking time of a decision at the
 * bot's defaults (ismcts, paired test included) against greedy. */
#include "bench_ismcts.h"
#include "bench.h"
#include "bench_rows.h"

#include "jackarena/ja_error.h"
#include "match.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define BENCH_ISMCTS_ITERS 200u
#define BENCH_ISMCTS_MATCHES 3u
#define BENCH_ISMCTS_DEFAULT_MATCHES 1u

/* Iterations per second of bot in g at `seats` seats, default options;
 * *decisions gets the decisions asked. 0 on failure (printed). */
static double rate(const ja_game_rules *g, uint32_t seats, ref_bot *bot, uint64_t *decisions)
{
    ref_match_config cfg = {.game = g, .n_seats = seats, .match_id = "bench-ismcts"};
    char err[512];
    ja_options_init(g, &cfg.options);
    if (ja_options_resolve(g, &cfg.options, seats, err, sizeof err) != JA_OK)
        return 0;
    ref_bot *bots[JA_MAX_SEATS];
    for (uint32_t s = 0; s < seats; s++)
        bots[s] = bot;
    *decisions = 0;
    double t0 = bench_now_s();
    for (uint32_t m = 0; m < BENCH_ISMCTS_MATCHES; m++) {
        ref_match_result res;
        cfg.seed = 1 + m;
        cfg.bots = bots;
        if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK) {
            fprintf(stderr, "ja_bench: ismcts in %s: %s\n", g->name, err);
            return 0;
        }
        *decisions += res.asked;
    }
    double dt = bench_now_s() - t0;
    return dt > 0 ? (double)*decisions * BENCH_ISMCTS_ITERS / dt : 0;
}

/* Counts the decisions put to seat 0. */
static void count_seat0(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    (void)g;
    if (info->observed & 1u)
        ++*(uint64_t *)ctx;
}

/* The defaults table: `ismcts` (every parameter at its default) on seat 0,
 * greedy on the others, default options; the bot's own thinking time (the
 * match loop's per-seat clock) over the decisions put to it. */
static void defaults_table(FILE *md, ref_bot *ism, ref_bot *greedy)
{
    fprintf(md,
            "\nThe time of a decision at the defaults (`ismcts` with no parameters: each "
            "game's own budget, docs/bots.md, and in BrawlJack, Bruise Jack and Jack in the Box "
            "the paired rollout test), "
            "on seat 0 against `greedy`, %u whole match per row with default options: the "
            "bot's thinking time over the decisions put to it.\n\n"
            "| game | seats | decisions | mean ms per decision |\n"
            "|---|---|---|---|\n",
            BENCH_ISMCTS_DEFAULT_MATCHES);
    for (int i = 0; ja_games[i]; i++) {
        const ja_game_rules *g = ja_games[i];
        uint32_t seats = g->min_seats < 3 && g->max_seats >= 3 ? 2 : g->min_seats;
        ref_match_config cfg = {.game = g, .n_seats = seats, .match_id = "bench-ismcts"};
        char err[512];
        ja_options_init(g, &cfg.options);
        if (ja_options_resolve(g, &cfg.options, seats, err, sizeof err) != JA_OK)
            continue;
        ref_bot *bots[JA_MAX_SEATS];
        for (uint32_t s = 0; s < seats; s++)
            bots[s] = s == 0 ? ism : greedy;
        uint64_t asked = 0, us = 0;
        for (uint32_t m = 0; m < BENCH_ISMCTS_DEFAULT_MATCHES; m++) {
            ref_match_result res;
            cfg.seed = 1 + m;
            cfg.bots = bots;
            cfg.on_step = count_seat0;
            cfg.step_ctx = &asked;
            if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK) {
                fprintf(stderr, "ja_bench: ismcts in %s: %s\n", g->name, err);
                break;
            }
            us += res.think_us[0];
        }
        double ms = asked ? us / 1000.0 / asked : 0.0;
        fprintf(md, "| %s | %u | %llu | %.1f |\n", g->name, seats, (unsigned long long)asked, ms);
        char name[96];
        snprintf(name, sizeof name, "ismcts at the defaults, %s, %u seats: mean decision",
                 g->name, seats);
        bench_row_add(name, ms, "ms", NAN, BENCH_NO_TARGET, 0);
    }
}

void bench_ismcts(FILE *md, const char *bots_dir)
{
    static const char *const rollouts[] = {"random", "greedy"};
    char path[PATH_MAX + 32], params[64], err[1200];
    ref_bot *bot[2] = {NULL, NULL};
    snprintf(path, sizeof path, "%s/ja_ismcts.so", bots_dir);
    for (int r = 0; r < 2; r++) {
        snprintf(params, sizeof params, "iters=%u:rollout=%s:verify=0", BENCH_ISMCTS_ITERS,
                 rollouts[r]);
        if (ref_bot_plugin_open(path, params, &bot[r], err, sizeof err) != JA_OK) {
            fprintf(stderr, "ja_bench: %s\n", err);
            fprintf(md, "\n## ISMCTS\n\nNot measured: %s.\n", err);
            ref_bot_destroy(&bot[0]);
            return;
        }
    }
    fprintf(md,
            "\n## ISMCTS\n\n"
            "The `ismcts` bot (docs/bots.md) at every seat, `ismcts:iters=%u`, %u whole matches "
            "per row with default options, through the match loop: iterations per second = "
            "decisions asked x %u / wall time. An iteration is one determinization "
            "(`sample`), a descent of the tree and a playout to the end of the match, so "
            "its cost follows the length of the match left. *ms per 1000* is the time of "
            "1000 iterations, the default budget of a decision. The paired rollout test is "
            "off here (`verify=0`); the second table has the whole decision.\n\n"
            "| game | seats | playouts | decisions | iterations/s | ms per 1000 |\n"
            "|---|---|---|---|---|---|\n",
            BENCH_ISMCTS_ITERS, BENCH_ISMCTS_MATCHES, BENCH_ISMCTS_ITERS);
    for (int i = 0; ja_games[i]; i++) {
        const ja_game_rules *g = ja_games[i];
        uint32_t seats = g->min_seats < 3 && g->max_seats >= 3 ? 2 : g->min_seats;
        for (int r = 0; r < 2; r++) {
            uint64_t dec = 0;
            double its = rate(g, seats, bot[r], &dec);
            fprintf(md, "| %s | %u | %s | %llu | %.0f | %.1f |\n", g->name, seats, rollouts[r],
                    (unsigned long long)dec, its, its > 0 ? 1000.0 * 1000.0 / its : 0.0);
            char name[96];
            snprintf(name, sizeof name, "ismcts iters=%u, %s, %u seats, %s playouts",
                     BENCH_ISMCTS_ITERS, g->name, seats, rollouts[r]);
            bench_row_add(name, its, "iterations/s", NAN, BENCH_NO_TARGET, 0);
        }
    }
    ref_bot *ism = NULL, *greedy = NULL;
    char gpath[PATH_MAX + 32];
    snprintf(gpath, sizeof gpath, "%s/ja_greedy.so", bots_dir);
    if (ref_bot_plugin_open(path, NULL, &ism, err, sizeof err) != JA_OK ||
        ref_bot_plugin_open(gpath, NULL, &greedy, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
        fprintf(md, "\nThe defaults: not measured: %s.\n", err);
    } else {
        defaults_table(md, ism, greedy);
    }
    ref_bot_destroy(&ism);
    ref_bot_destroy(&greedy);
    ref_bot_destroy(&bot[0]);
    ref_bot_destroy(&bot[1]);
}

/* The worst decision of `greedy` in Jack in the Box: its largest searches
 * come in four-seat team matches of variant v3 (docs/bots.md, "greedy"). */
typedef struct greedy_times {
    uint64_t worst_us, sum_us, n;
} greedy_times;

static void greedy_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    (void)g;
    greedy_times *t = ctx;
    for (uint32_t k = 0; k < info->n_recs; k++) {
        const ref_replay_rec *r = &info->recs[k];
        if (!r->asked || r->forced)
            continue;
        t->n++;
        t->sum_us += r->think_us;
        if (r->think_us > t->worst_us)
            t->worst_us = r->think_us;
    }
}

int bench_greedy_worst(FILE *md, const char *bots_dir, uint32_t matches)
{
    const ja_game_rules *g = NULL;
    for (int i = 0; ja_games[i]; i++)
        if (strcmp(ja_games[i]->name, "jack-in-the-box") == 0)
            g = ja_games[i];
    char path[PATH_MAX + 32], err[1200];
    snprintf(path, sizeof path, "%s/ja_greedy.so", bots_dir);
    ref_bot *greedy = NULL;
    if (!g || ref_bot_plugin_open(path, NULL, &greedy, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: greedy: %s\n", g ? err : "no game jack-in-the-box");
        return 1;
    }
    static const char *const kv[] = {"teams=on", "variant=v3"};
    ref_match_config cfg = {.game = g, .n_seats = 4, .match_id = "bench-greedy"};
    ja_options_init(g, &cfg.options);
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        if (ja_options_set(g, &cfg.options, kv[i], err, sizeof err) != JA_OK) {
            fprintf(stderr, "ja_bench: greedy: %s\n", err);
            ref_bot_destroy(&greedy);
            return 1;
        }
    ja_options_resolve(g, &cfg.options, 4, err, sizeof err);
    ref_bot *bots[4] = {greedy, greedy, greedy, greedy};
    greedy_times t = {0, 0, 0};
    for (uint32_t m = 0; m < matches; m++) {
        ref_match_result res;
        cfg.seed = 1 + m;
        cfg.bots = bots;
        cfg.on_step = greedy_step;
        cfg.step_ctx = &t;
        if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK) {
            fprintf(stderr, "ja_bench: greedy in %s: %s\n", g->name, err);
            ref_bot_destroy(&greedy);
            return 1;
        }
    }
    ref_bot_destroy(&greedy);
    char cell[64];
    const bench_row *row = bench_row_add("jack-in-the-box greedy, 4 seats, teams, v3: worst "
                                         "decision", t.worst_us / 1000.0, "ms", NAN,
                                         BENCH_AT_MOST, 5);
    bench_row_add("jack-in-the-box greedy, 4 seats, teams, v3: mean decision",
                  t.n ? t.sum_us / 1000.0 / t.n : NAN, "ms", NAN, BENCH_NO_TARGET, 0);
    fprintf(md,
            "\n## Greedy\n\n"
            "`greedy` at every seat of %u Jack in the Box matches, 4 seats, `teams=on`, "
            "`variant=v3` (where its plan search is largest, docs/bots.md), through the match "
            "loop: the time the match loop measured for each decision put to a bot.\n\n"
            "| decisions | mean | worst | target |\n|---|---|---|---|\n"
            "| %llu | %.3f ms | %.2f ms | %s |\n",
            (unsigned)matches, (unsigned long long)t.n, t.n ? t.sum_us / 1000.0 / t.n : 0.0,
            t.worst_us / 1000.0, bench_row_target(row, cell, sizeof cell));
    return 0;
}
