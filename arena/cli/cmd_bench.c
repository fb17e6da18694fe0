/* `arena bench BOT --game GAME`: a bot against reference opponents on
 * duplicate deals, with honest statistics and an optional SPRT.
 *
 * Each deal (a match seed) is played once per seat rotation, so the bot
 * holds every seat of the same cards once and the luck of the deal cancels
 * out; with K > 2 seats the other seats are copies of the opponent. A deal's
 * result is the bot's mean pairwise score over its rotations (ladders/sprt.h),
 * the Elo difference and interval come from those paired results, and the
 * SPRT stops at the first deal where its log-likelihood ratio leaves Wald's
 * bounds; against several opponents it is a gauntlet, one test each.
 * Matches run in this process through ref_match_run, without a database;
 * the run is a pure function of the bots, the options and --seed.
 * docs/ratings.md explains the statistics. The flags are parsed and checked
 * here; the bench is arena_bench_prepare and arena_bench_run (bench_run.h),
 * and only here are their errors printed and the exit status chosen. */
#include "run/bench_run.h"
#include "cli/cli.h"

#include "jackarena/ja_error.h"
#include "sprt.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char HELP[] =
    "usage: arena bench BOT --game GAME [--vs BOT,BOT...] [--games N] [--sprt ELO0,ELO1]\n"
    "                   [--sprt-model logistic|nelo] [--alpha A] [--beta B] [--seats K]\n"
    "                   [--opt KEY=VALUE]...\n"
    "                   [--seed N] [--move-ms MS] [--adjusted] [-q] [--json]\n"
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
    "                    soon as it decides. Against several opponents, a gauntlet:\n"
    "                    one test each, a deal of each in turn; H1 when every test\n"
    "                    accepts H1, H0 as soon as one accepts H0\n"
    "  --sprt-model M    the units of ELO0 and ELO1: logistic (default), or nelo\n"
    "                    (normalized Elo, as fishtest and fastchess: the score's\n"
    "                    offset from 1/2 in per-match standard deviations)\n"
    "  --alpha A         the SPRT's false-H1 rate (default 0.05)\n"
    "  --beta B          the SPRT's false-H0 rate (default 0.05; a gauntlet of k\n"
    "                    opponents runs each test at B/k)\n"
    "  --opt KEY=VALUE   a game option; repeatable\n"
    "  --seed N          the seed of the deals (default: random, printed)\n"
    "  --move-ms MS      per-decision time limit, up to 86400000 (default: none for\n"
    "                    plugins)\n"
    "  --adjusted        also the figures with each match's luck taken out (from\n"
    "                    its replay, written to a temporary file and removed),\n"
    "                    printed under the raw ones; with --sprt the test decides\n"
    "                    on the adjusted scores (the raw LLR is printed beside)\n"
    "  -q, --quiet       no progress display\n"
    "  --json            print only the result, as one JSON document\n"
    "\n"
    "Per opponent: games (matches), the mean score (win 1, draw 1/2, by place\n"
    "against each opponent seat), the Elo difference with a 95% interval from the\n"
    "paired results, and the likelihood of superiority (LOS). A bot given\n"
    "parameters is shown with them: ismcts#2(iters=200).\n"
    "\n"
    "examples: arena bench greedy --game taylor-blackjack --vs random --sprt 0,50\n"
    "          arena bench greedy --game taylor-blackjack --vs random,greedy \\\n"
    "              --sprt 0,50 --sprt-model nelo\n";

#define BENCH_DEFAULT_DEALS 200u
#define BENCH_MAX_DEALS 1000000u /* as many matches as a tournament plan holds */

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

/* What the flags of one `arena bench` say. */
typedef struct bench_flags {
    arena_common co;             /* its bots: --bot/--bots (opponents, as --vs) */
    const char *game, *sprt_s, *model_s;
    uint32_t deals, seats;
    double alpha, beta, elo0, elo1;
    ladder_sprt_model model;
    bool json, quiet, have_vs, adjusted;
} bench_flags;

/* A number flag's value: --games, --seats, --alpha or --beta. False after
 * its usage error. */
static bool number_flag(bench_flags *f, int c, const char *arg)
{
    switch (c) {
    case 'n':
        if (!arena_parse_u32(arg, &f->deals) || f->deals == 0 || f->deals > BENCH_MAX_DEALS) {
            arena_error("--games needs a number of deals from 1 to %u, not '%s'",
                        BENCH_MAX_DEALS, arg);
            return false;
        }
        return true;
    case 'k':
        if (!arena_parse_u32(arg, &f->seats) || f->seats == 0) {
            arena_error("--seats needs a positive number, not '%s'", arg);
            return false;
        }
        return true;
    case 'a':
        if (!parse_double(arg, &f->alpha) || !(f->alpha > 0 && f->alpha < 0.5)) {
            arena_error("--alpha needs a probability between 0 and 0.5, not '%s'", arg);
            return false;
        }
        return true;
    default: /* 'e' */
        if (!parse_double(arg, &f->beta) || !(f->beta > 0 && f->beta < 0.5)) {
            arena_error("--beta needs a probability between 0 and 0.5, not '%s'", arg);
            return false;
        }
        return true;
    }
}

/* Parses the flags into f (opponents given with --vs into vs). True to go
 * on; false to exit with *status (after --help, or a usage error). */
static bool parse_flags(int argc, char **argv, bench_flags *f, arena_bots *vs, int *status)
{
    static const struct option opts[] = {
        {"game", required_argument, NULL, 'g'},  {"vs", required_argument, NULL, 'V'},
        {"games", required_argument, NULL, 'n'}, {"sprt", required_argument, NULL, 'S'},
        {"alpha", required_argument, NULL, 'a'}, {"beta", required_argument, NULL, 'e'},
        {"seats", required_argument, NULL, 'k'}, {"opt", required_argument, NULL, 'o'},
        {"seed", required_argument, NULL, 's'},  {"move-ms", required_argument, NULL, 'm'},
        {"quiet", no_argument, NULL, 'q'},       {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},        {"sprt-model", required_argument, NULL, 'M'},
        {"adjusted", no_argument, NULL, 'A'},    {0, 0, 0, 0}};
    char err[ARENA_BOTS_ERR_CAP];
    int c, k;
    *status = EXIT_USAGE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        if ((k = arena_common_flag(&f->co, c, optarg)) != 0) {
            if (k < 0)
                return false;
            continue;
        }
        switch (c) {
        case 'g': f->game = optarg; break;
        case 'V':
            if (!arena_cli_ok(arena_bots_add_list(vs, optarg, err, sizeof err), err))
                return false;
            f->have_vs = true;
            break;
        case 'n': case 'k': case 'a': case 'e':
            if (!number_flag(f, c, optarg))
                return false;
            break;
        case 'S': f->sprt_s = optarg; break;
        case 'M': f->model_s = optarg; break;
        case 'q': f->quiet = true; break;
        case 'A': f->adjusted = true; break;
        case 'J': f->json = true; break;
        case 'h': fputs(HELP, stdout); *status = EXIT_OK; return false;
        default:
            arena_getopt_error("bench", argv);
            return false;
        }
    }
    return true;
}

/* --sprt-model into f->model (logistic without it; "normalized", fastchess's
 * name, is nelo too). False after the usage error. */
static bool check_model(bench_flags *f)
{
    const char *m = f->model_s;
    if (m == NULL || strcmp(m, "logistic") == 0)
        f->model = LADDER_SPRT_LOGISTIC;
    else if (strcmp(m, "nelo") == 0 || strcmp(m, "normalized") == 0)
        f->model = LADDER_SPRT_NELO;
    else {
        arena_error("--sprt-model needs logistic or nelo, not '%s'", m);
        return false;
    }
    if (m != NULL && f->sprt_s == NULL) {
        arena_error("--sprt-model sets the units of --sprt ELO0,ELO1: give --sprt too");
        return false;
    }
    return true;
}

/* --sprt ELO0,ELO1 into elo0 < elo1 and the error rates' bounds, and the
 * seats (their default: 2, or the game's minimum). False after the usage
 * error. */
static bool check_test(bench_flags *f, const ja_game_rules *g)
{
    const char *sprt_s = f->sprt_s;
    if (!check_model(f))
        return false;
    if (sprt_s) {
        char *comma = strchr(sprt_s, ',');
        char a[64];
        if (comma == NULL || (size_t)(comma - sprt_s) >= sizeof a ||
            (snprintf(a, sizeof a, "%.*s", (int)(comma - sprt_s), sprt_s),
             !parse_double(a, &f->elo0)) ||
            !parse_double(comma + 1, &f->elo1) || !(f->elo0 < f->elo1)) {
            arena_error("--sprt needs ELO0,ELO1 with ELO0 < ELO1 (e.g. 0,50), not '%s'", sprt_s);
            return false;
        }
    }
    double lower = 0, upper = 0;
    if (ladder_sprt_bounds(f->alpha, f->beta, &lower, &upper) != JA_OK) {
        arena_error("--alpha and --beta must be between 0 and 0.5");
        return false;
    }
    if (!f->seats)
        f->seats = g->min_seats > 2 ? g->min_seats : 2;
    if (f->seats < g->min_seats || f->seats > g->max_seats) {
        arena_error("--seats %u: %s is played by %u to %u seats", f->seats, g->name,
                    (unsigned)g->min_seats, (unsigned)g->max_seats);
        return false;
    }
    return true;
}

/* The lineup: the bot, then its opponents (those given, or the reference
 * bots that play g), named. False after the usage error. */
static bool line_up(arena_bots *bots, arena_bots *vs, const char *bot, const bench_flags *f,
                    const ja_game_rules *g)
{
    char err[ARENA_BOTS_ERR_CAP];
    if (!arena_cli_ok(arena_bots_add(bots, bot, err, sizeof err), err) ||
        (!f->have_vs &&
         !arena_cli_ok(arena_bench_reference_opponents(vs, g, err, sizeof err), err)))
        return false;
    for (int i = 0; i < vs->n; i++)
        bots->b[bots->n++] = vs->b[i];
    return arena_cli_ok(arena_bots_finish_names(bots, err, sizeof err), err);
}

/* The bench in its two steps: a failure to prepare is the user's (exit 2),
 * one of the run exit 1 (docs/architecture.md, "Errors"). */
static int bench(const arena_bench_args *ba)
{
    arena_bench b;
    char err[ARENA_BOTS_ERR_CAP];
    int status = EXIT_OK;
    if (arena_bench_prepare(&b, ba, err, sizeof err) != JA_OK)
        status = EXIT_USAGE;
    else if (arena_bench_run(&b, stdout, err, sizeof err) != JA_OK)
        status = EXIT_RUNTIME;
    if (status != EXIT_OK && err[0]) /* a line is always given; an empty one is not printed */
        arena_error("%s", err);
    arena_bench_close(&b);
    return status;
}

int cmd_bench(int argc, char **argv)
{
    static arena_bots bots; /* large; one per process */
    static arena_bots vs;
    memset(&bots, 0, sizeof bots);
    memset(&vs, 0, sizeof vs);
    bench_flags f = {.co = {.bots = &vs}, .deals = BENCH_DEFAULT_DEALS, .alpha = 0.05,
                     .beta = 0.05};
    int status;
    if (!parse_flags(argc, argv, &f, &vs, &status))
        return status;
    if (argc - optind != 1) {
        arena_error(optind >= argc ? "bench: which bot? (usage: arena bench BOT --game GAME)"
                                   : "bench: benchmark one bot at a time (opponents go in --vs)");
        return EXIT_USAGE;
    }
    if (f.game == NULL) {
        arena_error("bench: which game? give --game GAME (see 'arena games')");
        return EXIT_USAGE;
    }
    const ja_game_rules *g = arena_find_game(f.game);
    if (!g || !check_test(&f, g) || !line_up(&bots, &vs, argv[optind], &f, g))
        return EXIT_USAGE;
    if (f.adjusted && !ja_rules_extension(g, JA_EXT_CHANCE)) {
        arena_error("--adjusted: game '%s' offers no JA_EXT_CHANCE, so its luck cannot be taken "
                    "out", g->name);
        return EXIT_USAGE;
    }
    ja_options o;
    if (!arena_common_options(&f.co, g, f.seats, &o))
        return EXIT_USAGE;
    arena_bench_args ba = {.game = g, .options = o, .bots = &bots, .seats = f.seats,
                           .deals = f.deals,
                           .seed = f.co.have_seed ? f.co.seed : arena_random_seed(),
                           .move_ms = f.co.move_ms, .sprt = f.sprt_s != NULL, .model = f.model,
                           .elo0 = f.elo0, .elo1 = f.elo1, .alpha = f.alpha, .beta = f.beta,
                           .adjusted = f.adjusted, .json = f.json, .quiet = f.quiet};
    return bench(&ba);
}
