/* The luck adjustment's cost and what it saves (docs/ratings.md, "Luck-
 * adjusted results"): whole `arena tournament --duplicate` runs of the
 * random against the greedy reference bot write the replays, which this
 * process adjusts (adjust_replay) as `arena replay adjust` would, timing
 * each by its thread's CPU time. The statistics are scripts/luck-bench.py's:
 * the score difference greedy - random (Bombs: greedy - the randoms' mean),
 * in points, raw and adjusted; its variance per match and over each deal's
 * mean (its seat orders averaged: what duplicate deals give). */
#include "bench_luck.h"
#include "bench.h"
#include "bench_rows.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "replay.h"
#include "view/adjust.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Per game: the bots and the settings docs/ratings.md recommends (chosen
 * there before these matches: a setting fitted on the matches it adjusts
 * would not keep the adjustment unbiased). */
static const struct {
    const char *game, *bots;
    uint32_t rollouts, samples;
} LUCK_GAMES[] = {
    {"taylor-blackjack", "random,greedy", 64, 4}, {"brawljack", "random,greedy", 32, 8},
    {"bruise-jack", "random,greedy", 32, 8},      {"jack-in-the-box", "random,greedy", 64, 8},
    {"bombs", "random,greedy,random", 64, 4},
};
#define LUCK_SEED "44"

/* One match: its deal (the replay's seed), the difference raw and
 * adjusted, the adjustment's CPU seconds. */
typedef struct luck_match {
    uint64_t deal;
    double raw, adj, cpu;
} luck_match;

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The replay at path adjusted with o into *m; false after a message. */
static bool adjust_one(const char *path, const adjust_opts *o, luck_match *m)
{
    ref_replay *r = NULL;
    char err[1024];
    uint8_t digest[REF_DIGEST_BYTES];
    adjust_result a;
    int rc = ref_replay_load(path, &r, err, sizeof err);
    if (rc == JA_OK)
        rc = ref_replay_verify(r, digest, err, sizeof err);
    double c0 = thread_cpu_s();
    if (rc == JA_OK)
        rc = adjust_replay(r, o, &a, err, sizeof err);
    m->cpu = thread_cpu_s() - c0;
    int g = -1, others = 0;
    for (uint32_t s = 0; rc == JA_OK && s < r->h.n_seats; s++)
        if (strcmp(r->h.players[s].name, "greedy") == 0)
            g = (int)s;
    if (rc == JA_OK && g < 0) {
        snprintf(err, sizeof err, "no seat of the greedy bot");
        rc = JA_EFORMAT;
    }
    if (rc != JA_OK) {
        fprintf(stderr, "ja_bench: luck: %s: %s\n", path, err);
        ref_replay_free(&r);
        return false;
    }
    m->deal = r->h.seed;
    m->raw = m->adj = 0;
    for (uint32_t s = 0; s < a.n_seats; s++)
        if ((int)s != g) {
            m->raw -= a.raw[s];
            m->adj -= a.adjusted[s];
            others++;
        }
    m->raw = a.raw[g] + m->raw / others;
    m->adj = a.adjusted[g] + m->adj / others;
    ref_replay_free(&r);
    return true;
}

static int by_deal(const void *a, const void *b)
{
    uint64_t x = ((const luck_match *)a)->deal, y = ((const luck_match *)b)->deal;
    return (x > y) - (x < y);
}

/* Every replay of dir adjusted with o into a new array (sorted by deal);
 * their number, or -1 after a message. */
static int adjust_dir(const char *dir, const adjust_opts *o, luck_match **out)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "ja_bench: luck: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    int n = 0, cap = 0;
    luck_match *m = NULL;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".rpl") != 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            m = ja_xrealloc(m, (size_t)cap * sizeof *m);
        }
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!adjust_one(path, o, &m[n])) {
            n = -1;
            break;
        }
        n++;
    }
    closedir(d);
    if (n > 0)
        qsort(m, (size_t)n, sizeof *m, by_deal);
    *out = m;
    return n;
}

/* The sample variance of x[0..n) (NAN under 2 values). */
static double variance(const double *x, int n)
{
    if (n < 2)
        return NAN;
    double s = 0, q = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    double mean = s / n;
    for (int i = 0; i < n; i++)
        q += (x[i] - mean) * (x[i] - mean);
    return q / (n - 1);
}

/* What a game's matches gave. */
typedef struct luck_stats {
    int matches, deals;
    double var_raw, var_adj;         /* per match */
    double dup_raw, dup_adj;         /* over the deals' means */
    double jack_lo, jack_hi;         /* the dup ratio leaving one deal out: lowest, highest */
    double mean_raw, mean_adj, half; /* over the deals' means; half of the raw's 95% interval */
    double half_adj, cpu_ms;
} luck_stats;

/* The dup ratio of the deals' means raw[], adj[] but deal `skip` (-1:
 * none). */
static double dup_ratio(const double *raw, const double *adj, int nd, int skip, double *tmp)
{
    int k = 0;
    for (int i = 0; i < nd; i++)
        if (i != skip)
            tmp[k++] = adj[i];
    double va = variance(tmp, k);
    k = 0;
    for (int i = 0; i < nd; i++)
        if (i != skip)
            tmp[k++] = raw[i];
    double vr = variance(tmp, k);
    return vr > 0 ? va / vr : NAN;
}

/* The statistics of n matches sorted by deal. */
static luck_stats stats_of(const luck_match *m, int n)
{
    luck_stats s = {.matches = n};
    double *x = ja_xcalloc((size_t)n * 5, sizeof *x), *y = x + n, *dr = x + 2 * n,
           *da = x + 3 * n, *tmp = x + 4 * n;
    for (int i = 0; i < n; i++) {
        x[i] = m[i].raw;
        y[i] = m[i].adj;
        s.cpu_ms += m[i].cpu * 1e3 / n;
    }
    s.var_raw = variance(x, n);
    s.var_adj = variance(y, n);
    for (int i = 0, j; i < n; i = j) {
        double a = 0, b = 0;
        for (j = i; j < n && m[j].deal == m[i].deal; j++) {
            a += m[j].raw;
            b += m[j].adj;
        }
        dr[s.deals] = a / (j - i);
        da[s.deals++] = b / (j - i);
    }
    s.dup_raw = variance(dr, s.deals);
    s.dup_adj = variance(da, s.deals);
    for (int i = 0; i < s.deals; i++) {
        s.mean_raw += dr[i] / s.deals;
        s.mean_adj += da[i] / s.deals;
        double r = dup_ratio(dr, da, s.deals, i, tmp); /* NAN spreads: none */
        s.jack_lo = i == 0 || r < s.jack_lo || isnan(r) ? r : s.jack_lo;
        s.jack_hi = i == 0 || r > s.jack_hi || isnan(r) ? r : s.jack_hi;
    }
    s.half = 1.96 * sqrt(s.dup_raw / s.deals);
    s.half_adj = 1.96 * sqrt(s.dup_adj / s.deals);
    free(x);
    return s;
}

/* The page's heading and how the section measures. */
static void luck_intro(FILE *md, uint32_t deals)
{
    fprintf(md,
            "## Luck adjustment\n\n"
            "What the luck adjustment (`arena replay adjust`, `ladder --fit --adjusted`, "
            "`bench --adjusted`; docs/ratings.md, \"Luck-adjusted results\") saves and costs, "
            "per game: `arena tournament GAME --bots random,greedy --duplicate --rounds %u "
            "--seed " LUCK_SEED "` (Bombs `random,greedy,random`, each deal in its 6 seat "
            "orders; the others 2), every replay then adjusted in this process with `--policy "
            "players --horizon deal`, every kind of term, and the playouts (R) and reshuffles "
            "(K) docs/ratings.md recommends for the game, fixed there before these matches. "
            "The figure is the score difference greedy - random (Bombs: greedy - the randoms' "
            "mean), in points. The variance ratio is the adjusted difference's variance over "
            "the raw one's: the fraction of the matches the adjusted score needs for the same "
            "interval width. On duplicate deals (\"dup\", judged: the issue's target is 0.5 or "
            "less) it is taken over each deal's mean over its seat orders, that is on top of "
            "what duplicate deals already take out; the spread is the lowest and highest "
            "ratio leaving one deal out. With %u deals a ratio is itself uncertain (a variance "
            "from a few deals varies by a factor of 2 or more): `--matches N` plays N/500 "
            "deals a game (at least 3), and docs/ratings.md gives the figures of larger runs. "
            "A game whose raw difference did not vary (greedy won every game of every "
            "match, as in a few deals of Taylor Blackjack) has no ratio: \"raw constant\". "
            "The means (95%% intervals over deals) must agree: the adjustment is unbiased. "
            "CPU: the adjusting thread's CPU time per match (the tournament's own is not "
            "counted).\n\n"
            "| game | R, K | matches | deals | var ratio | dup var ratio (spread) | target | "
            "mean raw (dup) | mean adj (dup) | CPU ms/match |\n"
            "|---|---|---|---|---|---|---|---|---|---|\n",
            (unsigned)deals, (unsigned)deals);
}

/* a / b, NAN unless b > 0 (a raw score that never varied: greedy won
 * every game of every match, say, as in a few deals of Taylor Blackjack). */
static double ratio_of(double a, double b)
{
    return b > 0 ? a / b : NAN;
}

/* The rows and the table line of game k (a ratio not measurable: NAN, and
 * "raw constant" in the table). */
static void luck_rows(FILE *md, size_t k, const luck_stats *s)
{
    char name[112], cell[64], spread[64], per[32];
    double dup = ratio_of(s->dup_adj, s->dup_raw), trial[2] = {s->jack_lo, s->jack_hi};
    snprintf(name, sizeof name, "%s: adjusted/raw variance on duplicate deals",
             LUCK_GAMES[k].game);
    const bench_row *row =
        bench_row_add_trials(name, dup, "", dup, trial, isfinite(s->jack_lo) && isfinite(s->jack_hi)
                                                            ? 2 : 0, BENCH_AT_MOST, 0.5);
    snprintf(name, sizeof name, "%s: adjusted/raw variance per match", LUCK_GAMES[k].game);
    double pm = ratio_of(s->var_adj, s->var_raw);
    bench_row_add(name, pm, "", NAN, BENCH_NO_TARGET, 0);
    if (isfinite(pm))
        snprintf(per, sizeof per, "%.2f", pm);
    else
        snprintf(per, sizeof per, "raw constant");
    snprintf(name, sizeof name, "%s: adjustment CPU per match", LUCK_GAMES[k].game);
    bench_row_add(name, s->cpu_ms, "ms", NAN, BENCH_NO_TARGET, 0);
    fprintf(md, "| %s | %u, %u | %d | %d | %s | %s | %s | %.2f ± %.2f | %.2f ± %.2f | %.0f |\n",
            LUCK_GAMES[k].game, (unsigned)LUCK_GAMES[k].rollouts, (unsigned)LUCK_GAMES[k].samples,
            s->matches, s->deals, per,
            isfinite(dup) ? bench_ratio_cell(row, false, spread, sizeof spread) : "raw constant",
            isfinite(dup) ? bench_row_target(row, cell, sizeof cell) : "≤ 0.5, not measured",
            s->mean_raw, s->half, s->mean_adj,
            s->half_adj, s->cpu_ms);
}

/* Game k's tournament into dir and its matches adjusted: 0, or 1 after a
 * message. */
static int luck_game(FILE *md, const char *dir, size_t k, uint32_t deals, double *cpu_s)
{
    char arena_dir[PATH_MAX + 16], db[PATH_MAX], replays[PATH_MAX], rounds[16];
    const char *game = LUCK_GAMES[k].game;
    snprintf(arena_dir, sizeof arena_dir, "%s/../arena", bench_exe_dir());
    snprintf(db, sizeof db, "%s/%s.db", dir, game);
    snprintf(replays, sizeof replays, "%s/%s", dir, game);
    snprintf(rounds, sizeof rounds, "%u", (unsigned)deals);
    const char *argv[] = {"arena", "tournament", game, "--bots", LUCK_GAMES[k].bots,
                          "--duplicate", "--rounds", rounds, "--seed", LUCK_SEED, "--db", db,
                          "--replays", replays, "-q", NULL};
    double t_cpu = 0;
    int rc = bench_finish(bench_start(arena_dir, argv), NULL, &t_cpu);
    if (rc != 0) {
        fprintf(stderr, "ja_bench: luck: %s: arena tournament failed (exit %d)\n", game, rc);
        return 1;
    }
    adjust_opts o = {.rollouts = LUCK_GAMES[k].rollouts, .samples = LUCK_GAMES[k].samples,
                     .policy = ADJUST_POLICY_PLAYERS, .horizon = ADJUST_HORIZON_DEAL};
    luck_match *m = NULL;
    int n = adjust_dir(replays, &o, &m);
    if (n < 4) {
        if (n >= 0)
            fprintf(stderr, "ja_bench: luck: %s: %d replays, too few\n", game, n);
        free(m);
        return 1;
    }
    luck_stats s = stats_of(m, n);
    *cpu_s += t_cpu + s.cpu_ms * n / 1e3;
    free(m);
    luck_rows(md, k, &s);
    return 0;
}

int bench_luck(FILE *md, uint32_t deals)
{
    char dir[] = "/tmp/ja_bench_luck.XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "ja_bench: luck: no scratch directory: %s\n", strerror(errno));
        return 1;
    }
    luck_intro(md, deals);
    double cpu_s = 0;
    int rc = 0;
    for (size_t k = 0; k < sizeof LUCK_GAMES / sizeof LUCK_GAMES[0] && rc == 0; k++)
        if (ja_game_find(LUCK_GAMES[k].game))
            rc = luck_game(md, dir, k, deals, &cpu_s);
    fprintf(md, "\nThe section's cost: %.0f s of CPU (the tournaments and the adjustment).\n",
            cpu_s);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "ja_bench: could not remove %s\n", dir);
    return rc;
}
