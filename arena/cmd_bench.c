/* `arena bench BOT --game GAME`: a bot against reference opponents on
 * duplicate deals, with honest statistics and an optional SPRT.
 *
 * Each deal (a match seed) is played once per seat rotation, so the bot
 * holds every seat of the same cards once and the luck of the deal cancels
 * out; with K > 2 seats the other seats are copies of the opponent. A deal's
 * result is the bot's mean pairwise score over its rotations (ladders/sprt.h),
 * the Elo difference and interval come from those paired results, and the
 * SPRT stops at the first deal where its log-likelihood ratio leaves Wald's
 * bounds. Matches run in this process through ref_match_run, without a
 * database; the run is a pure function of the bots, the options and --seed.
 * docs/ratings.md explains the statistics. */
#include "cli.h"
#include "progress.h"

#include "elo.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "match.h"
#include "sprt.h"
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char HELP[] =
    "usage: arena bench BOT --game GAME [--vs BOT,BOT...] [--games N] [--sprt ELO0,ELO1]\n"
    "                   [--alpha A] [--beta B] [--seats K] [--opt KEY=VALUE]...\n"
    "                   [--seed N] [--move-ms MS] [-q] [--json]\n"
    "Benchmark BOT against opponents on duplicate deals: every deal is played once\n"
    "per seat rotation with the same cards, so the luck of the deal cancels out.\n"
    "\n"
    "  --game GAME       the game (required)\n"
    "  --vs A,B,...      the opponents (default: every reference bot that plays GAME,\n"
    "                    except the search bot ismcts, slow at its default budget)\n"
    "  --games N         deals per opponent (default 200, at most 1000000); each deal\n"
    "                    is K matches\n"
    "  --seats K         seats per match (default 2, or the game's minimum); the\n"
    "                    other K-1 seats are copies of the opponent\n"
    "  --sprt ELO0,ELO1  a sequential probability ratio test of H0: Elo difference\n"
    "                    ELO0 against H1: ELO1, on the paired results; it stops as\n"
    "                    soon as it decides (one opponent only)\n"
    "  --alpha A         the SPRT's false-H1 rate (default 0.05)\n"
    "  --beta B          the SPRT's false-H0 rate (default 0.05)\n"
    "  --opt KEY=VALUE   a game option; repeatable\n"
    "  --seed N          the seed of the deals (default: random, printed)\n"
    "  --move-ms MS      per-decision time limit, up to 86400000 (default: none for\n"
    "                    plugins)\n"
    "  -q, --quiet       no progress display\n"
    "  --json            print only the result, as one JSON document\n"
    "\n"
    "Per opponent: games (matches), the mean score (win 1, draw 1/2, by place\n"
    "against each opponent seat), the Elo difference with a 95% interval from the\n"
    "paired results, and the likelihood of superiority (LOS).\n"
    "\n"
    "example: arena bench greedy --game taylor-blackjack --vs random --sprt 0,50\n";

#define BENCH_DEFAULT_DEALS 200u
#define BENCH_MAX_DEALS 1000000u /* as many matches as a tournament plan holds */

/* One opponent's results. */
typedef struct bench_opp {
    uint32_t deals, games;
    uint64_t wins, draws, losses, faults;
    double hist[LADDER_SPRT_MAX_CELLS]; /* deals by score: cell i = i / (cells - 1) */
    double llr;
    ladder_sprt_decision decision;
    ladder_paired_stats st;
} bench_opp;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The reference bots of this build that play g, in name order: every
 * ja_NAME.so in the bots directory except ismcts, whose default budget
 * (about 100 ms a decision) would make a default run take hours; name it
 * with --vs. */
static bool add_reference_opponents(arena_bots *bs, const ja_game_rules *g)
{
    DIR *d = opendir(arena_bots_dir());
    if (d == NULL) {
        arena_error("cannot list the reference bots in '%s': %s (is JACKARENA_BOTS_DIR right?)",
                    arena_bots_dir(), strerror(errno));
        return false;
    }
    char names[ARENA_MAX_BOTS][64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < ARENA_MAX_BOTS) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strncmp(e->d_name, "ja_", 3) != 0 ||
            strcmp(e->d_name + len - 3, ".so") != 0 || len - 6 >= sizeof names[0])
            continue;
        snprintf(names[n], sizeof names[n], "%.*s", (int)(len - 6), e->d_name + 3);
        if (strcmp(names[n], "ismcts") != 0)
            n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_name);
    int added = 0;
    for (int i = 0; i < n; i++) {
        char path[4200], err[1200];
        snprintf(path, sizeof path, "%s/ja_%s.so", arena_bots_dir(), names[i]);
        ref_bot *b = NULL;
        if (ref_bot_plugin_open(path, NULL, &b, err, sizeof err) != JA_OK)
            continue;
        bool plays = ref_bot_supports(b, g);
        ref_bot_destroy(&b);
        if (!plays)
            continue;
        if (!arena_bots_add(bs, names[i]))
            return false;
        added++;
    }
    if (!added) {
        arena_error("no reference bot of this build plays %s: name opponents with --vs", g->name);
        return false;
    }
    return true;
}

static bool parse_double(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* Formats an Elo value with its sign; infinite as "+inf" / "-inf". */
static void fmt_elo(double v, char *buf, size_t cap)
{
    if (isinf(v))
        snprintf(buf, cap, "%sinf", v > 0 ? "+" : "-");
    else
        snprintf(buf, cap, "%+.0f", v);
}

/* A JSON number, or null when it is not finite. */
static void jw_finite(json_w *w, const char *key, double v)
{
    if (isfinite(v))
        jw_num(w, key, v);
    else
        jw_null(w, key);
}

int cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        {"game", required_argument, NULL, 'g'},  {"vs", required_argument, NULL, 'V'},
        {"games", required_argument, NULL, 'n'}, {"sprt", required_argument, NULL, 'S'},
        {"alpha", required_argument, NULL, 'a'}, {"beta", required_argument, NULL, 'e'},
        {"seats", required_argument, NULL, 'k'}, {"opt", required_argument, NULL, 'o'},
        {"seed", required_argument, NULL, 's'},  {"move-ms", required_argument, NULL, 'm'},
        {"quiet", no_argument, NULL, 'q'},       {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},        {0, 0, 0, 0}};
    static arena_bots bots; /* large; one per process */
    static arena_bots vs;
    memset(&bots, 0, sizeof bots);
    memset(&vs, 0, sizeof vs);
    arena_common co = {.bots = &vs};
    const char *game = NULL, *sprt_s = NULL;
    uint32_t deals = BENCH_DEFAULT_DEALS, seats = 0;
    double alpha = 0.05, beta = 0.05, elo0 = 0, elo1 = 0;
    bool json = false, quiet = false, have_vs = false;
    int c, k;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        if ((k = arena_common_flag(&co, c, optarg)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'g': game = optarg; break;
        case 'V':
            if (!arena_bots_add_list(&vs, optarg))
                return EXIT_USAGE;
            have_vs = true;
            break;
        case 'n':
            if (!arena_parse_u32(optarg, &deals) || deals == 0 || deals > BENCH_MAX_DEALS) {
                arena_error("--games needs a number of deals from 1 to %u, not '%s'",
                            BENCH_MAX_DEALS, optarg);
                return EXIT_USAGE;
            }
            break;
        case 'k':
            if (!arena_parse_u32(optarg, &seats) || seats == 0) {
                arena_error("--seats needs a positive number, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'S': sprt_s = optarg; break;
        case 'a':
            if (!parse_double(optarg, &alpha) || !(alpha > 0 && alpha < 0.5)) {
                arena_error("--alpha needs a probability between 0 and 0.5, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'e':
            if (!parse_double(optarg, &beta) || !(beta > 0 && beta < 0.5)) {
                arena_error("--beta needs a probability between 0 and 0.5, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'q': quiet = true; break;
        case 'J': json = true; break;
        case 'h': fputs(HELP, stdout); return EXIT_OK;
        default:
            arena_getopt_error("bench", argv);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        arena_error(optind >= argc ? "bench: which bot? (usage: arena bench BOT --game GAME)"
                                   : "bench: benchmark one bot at a time (opponents go in --vs)");
        return EXIT_USAGE;
    }
    if (game == NULL) {
        arena_error("bench: which game? give --game GAME (see 'arena games')");
        return EXIT_USAGE;
    }
    const ja_game_rules *g = arena_find_game(game);
    if (!g)
        return EXIT_USAGE;
    if (sprt_s) {
        char *comma = strchr(sprt_s, ',');
        char a[64];
        if (comma == NULL || (size_t)(comma - sprt_s) >= sizeof a ||
            (snprintf(a, sizeof a, "%.*s", (int)(comma - sprt_s), sprt_s),
             !parse_double(a, &elo0)) ||
            !parse_double(comma + 1, &elo1) || !(elo0 < elo1)) {
            arena_error("--sprt needs ELO0,ELO1 with ELO0 < ELO1 (e.g. 0,50), not '%s'", sprt_s);
            return EXIT_USAGE;
        }
    }
    double lower = 0, upper = 0;
    if (ladder_sprt_bounds(alpha, beta, &lower, &upper) != JA_OK) {
        arena_error("--alpha and --beta must be between 0 and 0.5");
        return EXIT_USAGE;
    }
    if (!seats)
        seats = g->min_seats > 2 ? g->min_seats : 2;
    if (seats < g->min_seats || seats > g->max_seats) {
        arena_error("--seats %u: %s is played by %u to %u seats", seats, g->name,
                    (unsigned)g->min_seats, (unsigned)g->max_seats);
        return EXIT_USAGE;
    }
    if (!arena_bots_add(&bots, argv[optind]))
        return EXIT_USAGE;
    if (!have_vs && !add_reference_opponents(&vs, g))
        return EXIT_USAGE;
    if (sprt_s && vs.n != 1) {
        arena_error("--sprt tests against one opponent, and %d are given: choose it with --vs",
                    vs.n);
        return EXIT_USAGE;
    }
    for (int i = 0; i < vs.n; i++)
        bots.b[bots.n++] = vs.b[i];
    if (!arena_bots_finish_names(&bots))
        return EXIT_USAGE;
    ja_options o;
    if (!arena_common_options(&co, g, seats, &o))
        return EXIT_USAGE;
    if (!arena_bots_load(&bots, g)) {
        arena_bots_free(&bots);
        return EXIT_USAGE;
    }

    uint64_t seed = co.have_seed ? co.seed : arena_random_seed();
    const int n_opp = bots.n - 1;
    const uint32_t n_cells = 2 * seats * (seats - 1) + 1;
    bench_opp *res = calloc((size_t)n_opp, sizeof *res);
    if (res == NULL) {
        arena_error("out of memory");
        arena_bots_free(&bots);
        return EXIT_RUNTIME;
    }
    char opts_text[1024], seed_s[24];
    ja_options_format(g, &o, opts_text, sizeof opts_text);
    snprintf(seed_s, sizeof seed_s, "%llu", (unsigned long long)seed);
    if (!json) {
        printf("bench %s on %s: %u seats, up to %u duplicate deals per opponent (each played "
               "from all %u seats), seed %s\noptions: %s\n",
               bots.b[0].name, g->name, seats, deals, seats, seed_s, opts_text);
        fflush(stdout);
    }

    int status = EXIT_RUNTIME;
    progress pr;
    progress_begin(&pr, deals * seats * (uint32_t)n_opp, 0, quiet);
    uint32_t done = 0;
    for (int op = 0; op < n_opp; op++) {
        bench_opp *r = &res[op];
        for (uint32_t d = 0; d < deals && r->decision == LADDER_SPRT_CONTINUE; d++) {
            ref_match_config cfg = {0};
            cfg.game = g;
            cfg.options = o;
            cfg.n_seats = seats;
            cfg.move_ms = co.move_ms;
            cfg.match_id = "bench";
            /* The same deals for every opponent: common random numbers. */
            cfg.seed = ja_seed_derive(seed, JA_STREAM_MATCH, d);
            uint32_t halves = 0; /* the bot's pairwise points, in halves */
            for (uint32_t rot = 0; rot < seats; rot++) {
                ref_bot *sb[JA_MAX_SEATS];
                const char *names[JA_MAX_SEATS];
                uint32_t me = (seats - rot) % seats; /* seat i holds lineup[(i + rot) % K] */
                for (uint32_t s = 0; s < seats; s++) {
                    int who = s == me ? 0 : 1 + op;
                    sb[s] = bots.b[who].bot;
                    names[s] = bots.b[who].name;
                }
                ref_match_result mr;
                char err[1200];
                cfg.bots = sb;
                cfg.names = names;
                if (ref_match_run(&cfg, &mr, err, sizeof err) != JA_OK) {
                    progress_end(&pr, done);
                    arena_error("match failed (%s vs %s, deal %u): %s", bots.b[0].name,
                                bots.b[1 + op].name, d, err);
                    goto out;
                }
                for (uint32_t s = 0; s < seats; s++) {
                    if (s == me)
                        continue;
                    double p = ladder_elo_pair_score(mr.outcome.place[me], mr.outcome.place[s]);
                    halves += (uint32_t)(2 * p);
                    r->wins += p == 1.0;
                    r->draws += p == 0.5;
                    r->losses += p == 0.0;
                }
                r->faults += mr.faults[me];
                r->games++;
                progress_update(&pr, ++done);
            }
            r->hist[halves]++;
            r->deals++;
            if (sprt_s) {
                ladder_sprt_llr(r->hist, n_cells, elo0, elo1, &r->llr);
                r->decision = ladder_sprt_decide(r->llr, lower, upper);
            }
        }
        ladder_paired_stats_compute(r->hist, n_cells, LADDER_Z95, &r->st);
    }
    progress_end(&pr, done);

    if (json) {
        json_w w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "bot", bots.b[0].name);
        jw_str(&w, "game", g->name);
        jw_str(&w, "seed", seed_s);
        jw_int(&w, "seats", seats);
        jw_obj(&w, "options");
        for (uint32_t i = 0; i < o.n; i++) {
            char v[64];
            ja_options_value_str(g, &o, (int)i, v, sizeof v);
            jw_str(&w, g->options[i].name, v);
        }
        jw_obj_end(&w);
        jw_arr(&w, "opponents");
        for (int op = 0; op < n_opp; op++) {
            const bench_opp *r = &res[op];
            jw_obj(&w, NULL);
            jw_str(&w, "bot", bots.b[1 + op].name);
            jw_int(&w, "games", r->games);
            jw_int(&w, "deals", r->deals);
            jw_num(&w, "score", r->st.mean);
            jw_finite(&w, "elo_diff", r->st.elo);
            jw_arr(&w, "elo_ci95");
            jw_finite(&w, NULL, r->st.elo_lo);
            jw_finite(&w, NULL, r->st.elo_hi);
            jw_arr_end(&w);
            jw_num(&w, "los", r->st.los);
            jw_bool(&w, "conservative", r->st.conservative);
            jw_int(&w, "wins", (long long)r->wins);
            jw_int(&w, "draws", (long long)r->draws);
            jw_int(&w, "losses", (long long)r->losses);
            jw_int(&w, "faults", (long long)r->faults);
            jw_arr(&w, seats == 2 ? "pentanomial" : "deal_scores");
            for (uint32_t i = 0; i < n_cells; i++)
                jw_int(&w, NULL, (long long)r->hist[i]);
            jw_arr_end(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        if (sprt_s) {
            const bench_opp *r = &res[0];
            jw_obj(&w, "sprt");
            jw_num(&w, "elo0", elo0);
            jw_num(&w, "elo1", elo1);
            jw_num(&w, "alpha", alpha);
            jw_num(&w, "beta", beta);
            jw_num(&w, "llr", r->llr);
            jw_arr(&w, "bounds");
            jw_num(&w, NULL, lower);
            jw_num(&w, NULL, upper);
            jw_arr_end(&w);
            jw_str(&w, "result", ladder_sprt_decision_name(r->decision));
            jw_int(&w, "games", r->games);
            jw_int(&w, "deals", r->deals);
            jw_obj_end(&w);
        } else {
            jw_null(&w, "sprt");
        }
        jw_obj_end(&w);
        jw_end(&w);
    } else {
        printf("\n  %-20s %6s %6s %7s %9s  %-18s %7s  %-16s %6s\n", "opponent", "games", "deals",
               "score", "elo diff", "95% interval", "LOS", "pairwise w-d-l", "faults");
        bool conservative = false;
        for (int op = 0; op < n_opp; op++) {
            const bench_opp *r = &res[op];
            char e[16], lo[16], hi[16], ci[40], wdl[48];
            fmt_elo(r->st.elo, e, sizeof e);
            fmt_elo(r->st.elo_lo, lo, sizeof lo);
            fmt_elo(r->st.elo_hi, hi, sizeof hi);
            snprintf(ci, sizeof ci, "[%s, %s]%s", lo, hi, r->st.conservative ? "*" : "");
            snprintf(wdl, sizeof wdl, "%llu-%llu-%llu", (unsigned long long)r->wins,
                     (unsigned long long)r->draws, (unsigned long long)r->losses);
            printf("  %-20s %6u %6u %7.3f %9s  %-18s %6.1f%%  %-16s %6llu\n", bots.b[1 + op].name,
                   r->games, r->deals, r->st.mean, e, ci, 100.0 * r->st.los, wdl,
                   (unsigned long long)r->faults);
            conservative |= r->st.conservative;
        }
        if (conservative)
            printf("  * every deal scored the same: a conservative (Wilson) interval\n");
        if (sprt_s) {
            const bench_opp *r = &res[0];
            printf("\nSPRT %s vs %s, H0: %+g Elo, H1: %+g Elo (alpha %g, beta %g): LLR %.3f, "
                   "bounds [%.3f, %.3f], after %u deals (%u games): ",
                   bots.b[0].name, bots.b[1].name, elo0, elo1, alpha, beta, r->llr, lower, upper,
                   r->deals, r->games);
            if (r->decision == LADDER_SPRT_H1)
                printf("H1 accepted\n");
            else if (r->decision == LADDER_SPRT_H0)
                printf("H0 accepted\n");
            else
                printf("inconclusive (raise --games to go on)\n");
        }
    }
    status = EXIT_OK;
out:
    free(res);
    arena_bots_free(&bots);
    return status;
}
