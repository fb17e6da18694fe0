/* `arena ladder`: a game's ladder from the database.
 *
 *   arena ladder GAME [--fit]       the live Elo ladder, or the official
 *                                   ratings (Bradley-Terry or Plackett-Luce)
 *                                   with intervals, bots named by
 *                                   ladders/names.h
 *   arena ladder GAME --cross-validate  how well each model predicts
 *   arena ladder export GAME (--pgn | --jsonl)
 *   arena ladder import FILE [--game GAME]
 *   arena ladder deals GAME --top N [-o FILE]   a curated deal set
 *
 * A parser over ladder_run.h (the database side, in two steps) and
 * standings.h (what the tables say); only here are their errors printed and
 * the exit status chosen. ladders/ does the statistics, the file formats
 * and the store (docs/ratings.md, docs/database.md). */
#include "cli/cli.h"
#include "run/ladder_run.h"

#include "deals.h"
#include "fit.h"
#include "jackarena/ja_error.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char HELP[] =
    "usage: arena ladder GAME [--opt KEY=VALUE]... [--seats K] [--db FILE]\n"
    "                         [--fit [--model MODEL] [--anchor BOT[=ELO]] [--adjusted]]\n"
    "                         [--json]\n"
    "       arena ladder GAME [--opt KEY=VALUE]... [--seats K] [--db FILE]\n"
    "                         --cross-validate [--folds K] [--json]\n"
    "       arena ladder export GAME (--pgn | --jsonl) [--opt KEY=VALUE]... [--seats K]\n"
    "                           [--db FILE] [-o|--output FILE]\n"
    "       arena ladder import FILE [--game GAME] [--db FILE] [--json]\n"
    "       arena ladder deals GAME --top N [--opt KEY=VALUE]... [--seats K]\n"
    "                          [--db FILE] [-o|--output FILE]\n"
    "       (FILE may be another arena database, e.g. a --shard's: merged)\n"
    "Show the ladder of GAME. A ladder is one game, one seat count and one full\n"
    "option set (defaults filled in): options not given take their defaults, so\n"
    "'--opt games=4' shows the ladder of matches played with games=4.\n"
    "\n"
    "  --opt KEY=VALUE   select the option set; repeatable\n"
    "  --seats K         select the seat count (needed when several match)\n"
    "  --db FILE         the ladder database (default arena.db; a regular file,\n"
    "                    not a link)\n"
    "  --fit             official ratings: a fit over all results, with 95%\n"
    "                    intervals (clustered by deal) and the likelihood of\n"
    "                    superiority\n"
    "  --model MODEL     with --fit: bradley-terry (default: every match cut into\n"
    "                    its pairs of seats) or plackett-luce (every match's whole\n"
    "                    finishing order); both on the same Elo scale\n"
    "  --anchor BOT[=ELO] with --fit: fix BOT's rating at ELO (default 1500)\n"
    "                    instead of the mean of the rated bots; BOT as the table\n"
    "                    prints it (a name that fits several bots is refused)\n"
    "  --adjusted        with --fit (Bradley-Terry): the same fit on luck-adjusted\n"
    "                    results follows the official one, each match's luck\n"
    "                    taken out from its replay (matches without a replay, or\n"
    "                    whose replay fails, keep their raw result: counted)\n"
    "  --cross-validate  compare the models: each fitted without one fold of the\n"
    "                    deals predicts that fold's matches; held-out log-loss of\n"
    "                    the finishing orders and of the pairs, and how often the\n"
    "                    best-rated bot won\n"
    "  --folds K         with --cross-validate: K folds (2 or more; default 10,\n"
    "                    at most one a deal)\n"
    "  --json            print one JSON document\n"
    "\n"
    "A bot is shown by its name; where two entries of the ladder share it, by\n"
    "name@version; where they share that too (a plugin rebuilt: a new entry),\n"
    "by name@version~ and the first 8 hex digits of the file's SHA-256 (#ID, the\n"
    "database id, for a bot without one). docs/database.md has the rule.\n"
    "A bot given parameters has the version VERSION:PARAMS (1.2:iters=200).\n"
    "\n"
    "Without --fit the live Elo is shown: it depends on the order matches\n"
    "finished and is for display. docs/ratings.md explains the fit, the two\n"
    "models and the benchmark that chose the default.\n"
    "\n"
    "export writes the ladder's results to standard output (or -o FILE, written\n"
    "whole at the end; FILE, if there, must be a regular file): --pgn as\n"
    "two-player games (multiplayer matches as their pairs) that Ordo and BayesElo\n"
    "read, --jsonl as one match per line. import reads either back (PGN games go to\n"
    "the two-seat ladder of --game, or of their [Game] tag, with the game's default\n"
    "options unless an [Options] tag says otherwise), all of a file or nothing.\n"
    "\n"
    "deals writes the N deals of the ladder that separated its bots most as a\n"
    "deal set for 'arena tournament --deals FILE' (to standard output, or -o FILE\n"
    "written whole at the end): on each deal (a match seed, in every tournament\n"
    "of the ladder), each bot's mean pairwise result (the share of the other seats\n"
    "it finished ahead of, a shared place half), and the deal's separation, the\n"
    "variance of those results over the bots that played it; the highest first\n"
    "(docs/tournament-plan.md, \"Curated deals\").\n";

/* --seats K of the ladder commands: 1 to JA_MAX_SEATS. */
static bool parse_seats(const char *arg, uint32_t *out)
{
    if (!arena_parse_u32(arg, out) || *out == 0 || *out > JA_MAX_SEATS) {
        arena_error("--seats needs a number from 1 to %d, not '%s'", JA_MAX_SEATS, arg);
        return false;
    }
    return true;
}

/* --folds K: 2 or more. */
static bool parse_folds(const char *arg, uint32_t *out)
{
    if (!arena_parse_u32(arg, out) || *out < 2) {
        arena_error("--folds needs a number of folds from 2 up, not '%s'", arg);
        return false;
    }
    return true;
}

/* The flags of the fit and of the cross-validation go with their own
 * command; a model is one of the fit's. Prints the usage error. */
static bool fit_flags_agree(bool fit, bool cv, const char *anchor, const char *model,
                            uint32_t folds, bool adjusted)
{
    ladder_fit_model m;
    const char *what = anchor ? "--anchor" : model ? "--model" : "--adjusted";
    if ((anchor || model || adjusted) && !fit) {
        arena_error("%s applies to the fit: add --fit", what);
        return false;
    }
    if (model && ladder_fit_model_parse(model, &m) != JA_OK) {
        arena_error("--model %s: the models are bradley-terry and plackett-luce", model);
        return false;
    }
    if (adjusted && model && m != LADDER_FIT_BRADLEY_TERRY) {
        arena_error("--adjusted fits Bradley-Terry (a finishing order has no adjusted form): "
                    "give it without --model %s", model);
        return false;
    }
    if (fit && cv) {
        arena_error("--cross-validate compares the models: give it without --fit");
        return false;
    }
    if (folds && !cv) {
        arena_error("--folds applies to the cross-validation: add --cross-validate");
        return false;
    }
    return true;
}

/* The exit status of a failed run of show: a bad --anchor is the user's. */
static int show_status(int rc)
{
    return rc == JA_EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
}

/* ... of export and deals: every failure is the run's. */
static int export_status(int rc)
{
    (void)rc;
    return EXIT_RUNTIME;
}

/* ... of import: matches the database refuses, a database file that
 * cannot be used, and a database to merge whose tournaments differ from
 * those of the same name, are the user's. */
static int import_status(int rc)
{
    return rc == JA_ESTATE || rc == JA_EINVAL || rc == JA_EMISMATCH ? EXIT_USAGE
                                                                    : arena_db_status(rc);
}

/* A ladder subcommand in its two steps (ladder_run.h): a failure to prepare
 * is the user's (exit 2) but for the database failing (JA_EDB);
 * run_status judges one of the run. */
static int ladder(const arena_ladder_args *a, int (*run_status)(int rc))
{
    arena_ladder l;
    char err[4400];
    int status = EXIT_OK;
    int rc = arena_ladder_prepare(&l, a, err, sizeof err);
    if (rc != JA_OK)
        status = rc == JA_EDB ? EXIT_RUNTIME : EXIT_USAGE;
    else if ((rc = arena_ladder_run(&l, stdout, err, sizeof err)) != JA_OK)
        status = run_status(rc);
    if (status != EXIT_OK && err[0]) /* a line is always given; an empty one is not printed */
        arena_error("%s", err);
    arena_ladder_close(&l);
    return status;
}

/* The --opt settings given for g into *given. False after the usage error,
 * worded in err (the caller's size: the line as it was cut). */
static bool given_options(const arena_common *co, const ja_game_rules *g, ja_options *given,
                          char *err, size_t cap)
{
    ja_options_init(g, given);
    for (int i = 0; i < co->n_opt; i++)
        if (ja_options_set(g, given, co->opt_kv[i], err, cap) != JA_OK) {
            arena_error("%s", err);
            return false;
        }
    return true;
}

/* ---- Export -------------------------------------------------------------------- */

static int cmd_export(int argc, char **argv)
{
    /* --opt has its own code here: -o is the output file (as for replay html). */
    static const struct option opts[] = {
        {"opt", required_argument, NULL, 'x'},  {"seats", required_argument, NULL, 'k'},
        {"db", required_argument, NULL, 'd'},   {"pgn", no_argument, NULL, 'P'},
        {"jsonl", no_argument, NULL, 'L'},      {"output", required_argument, NULL, 'O'},
        {"help", no_argument, NULL, 'h'},       {0, 0, 0, 0}};
    arena_common co = {0};
    const char *db_path = "arena.db", *out_path = NULL;
    uint32_t want_seats = 0;
    int format = 0, c, k; /* 'P' or 'L' */
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        if (c == 'x' && (k = arena_common_flag(&co, ARENA_OPT_OPT, optarg)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'k':
            if (!parse_seats(optarg, &want_seats))
                return EXIT_USAGE;
            break;
        case 'd': db_path = optarg; break;
        case 'o':
        case 'O': out_path = optarg; break;
        case 'P':
        case 'L':
            if (format && format != c) {
                arena_error("ladder export: give --pgn or --jsonl, not both");
                return EXIT_USAGE;
            }
            format = c;
            break;
        case 'h': fputs(HELP, stdout); return EXIT_OK;
        default:
            arena_getopt_error("ladder export", argv);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        arena_error("ladder export: name one game (usage: arena ladder export GAME --pgn|--jsonl)");
        return EXIT_USAGE;
    }
    if (!format) {
        arena_error("ladder export: choose the format with --pgn or --jsonl");
        return EXIT_USAGE;
    }
    const ja_game_rules *g = arena_find_game(argv[optind]);
    if (!g)
        return EXIT_USAGE;
    const arena_output outs[] = {{"--db", db_path, ARENA_OUT_DB},
                                 {"-o", out_path, ARENA_OUT_STDOUT}};
    if (!arena_outputs_check(outs, sizeof outs / sizeof *outs, NULL))
        return EXIT_USAGE;
    arena_ladder_args a = {.what = ARENA_LADDER_EXPORT, .db_path = db_path, .game = g,
                           .want_seats = want_seats, .pgn = format == 'P', .out_path = out_path};
    char err[4400];
    if (!given_options(&co, g, &a.given, err, sizeof err))
        return EXIT_USAGE;
    return ladder(&a, export_status);
}

/* ---- Deals --------------------------------------------------------------------- */

/* --top N: 1 or more. */
static bool parse_top(const char *arg, uint32_t *out)
{
    if (!arena_parse_u32(arg, out) || *out == 0 || *out > LADDER_DEALS_MAX) {
        arena_error("--top needs a number of deals from 1 to %u, not '%s'", LADDER_DEALS_MAX,
                    arg);
        return false;
    }
    return true;
}

static int cmd_deals(int argc, char **argv)
{
    static const struct option opts[] = {
        {"opt", required_argument, NULL, 'x'},  {"seats", required_argument, NULL, 'k'},
        {"db", required_argument, NULL, 'd'},   {"top", required_argument, NULL, 'T'},
        {"output", required_argument, NULL, 'O'}, {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    arena_common co = {0};
    arena_ladder_args a = {.what = ARENA_LADDER_DEALS, .db_path = "arena.db"};
    int c, k;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        if (c == 'x' && (k = arena_common_flag(&co, ARENA_OPT_OPT, optarg)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            continue;
        }
        if ((c == 'k' && !parse_seats(optarg, &a.want_seats)) ||
            (c == 'T' && !parse_top(optarg, &a.top)))
            return EXIT_USAGE;
        if (c == 'd')
            a.db_path = optarg;
        else if (c == 'o' || c == 'O')
            a.out_path = optarg;
        else if (c == 'h') {
            fputs(HELP, stdout);
            return EXIT_OK;
        } else if (c != 'k' && c != 'T') {
            arena_getopt_error("ladder deals", argv);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1 || !a.top) {
        arena_error("ladder deals: name one game and how many deals (usage: arena ladder deals "
                    "GAME --top N [-o FILE])");
        return EXIT_USAGE;
    }
    if (!(a.game = arena_find_game(argv[optind])))
        return EXIT_USAGE;
    const arena_output outs[] = {{"--db", a.db_path, ARENA_OUT_DB},
                                 {"-o", a.out_path, ARENA_OUT_STDOUT}};
    char err[4400];
    if (!arena_outputs_check(outs, sizeof outs / sizeof *outs, NULL) ||
        !given_options(&co, a.game, &a.given, err, sizeof err))
        return EXIT_USAGE;
    return ladder(&a, export_status);
}

/* ---- Import -------------------------------------------------------------------- */

static int cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {
        {"game", required_argument, NULL, 'g'}, {"db", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'J'},       {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    const char *db_path = "arena.db", *game = NULL;
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'g': game = optarg; break;
        case 'd': db_path = optarg; break;
        case 'J': json = true; break;
        case 'h': fputs(HELP, stdout); return EXIT_OK;
        default:
            arena_getopt_error("ladder import", argv);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        arena_error("ladder import: name one file (usage: arena ladder import FILE [--game GAME])");
        return EXIT_USAGE;
    }
    arena_ladder_args a = {.what = ARENA_LADDER_IMPORT, .db_path = db_path,
                           .path = argv[optind], .import_game = game, .json = json};
    return ladder(&a, import_status);
}

int cmd_ladder(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "import") == 0)
        return cmd_import(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "export") == 0)
        return cmd_export(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "deals") == 0)
        return cmd_deals(argc - 1, argv + 1);
    static const struct option opts[] = {
        {"opt", required_argument, NULL, 'o'}, {"seats", required_argument, NULL, 'k'},
        {"db", required_argument, NULL, 'd'},  {"json", no_argument, NULL, 'J'},
        {"fit", no_argument, NULL, 'f'},       {"anchor", required_argument, NULL, 'A'},
        {"model", required_argument, NULL, 'M'}, {"cross-validate", no_argument, NULL, 'X'},
        {"folds", required_argument, NULL, 'F'}, {"help", no_argument, NULL, 'h'},
        {"adjusted", no_argument, NULL, 'a'},    {0, 0, 0, 0}};
    arena_common co = {0};
    int c, k;
    const char *db_path = "arena.db", *anchor = NULL, *model = NULL;
    uint32_t want_seats = 0, folds = 0;
    bool json = false, fit = false, cv = false, adjusted = false;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == ARENA_OPT_OPT && (k = arena_common_flag(&co, c, optarg)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'k':
            if (!parse_seats(optarg, &want_seats))
                return EXIT_USAGE;
            break;
        case 'd': db_path = optarg; break;
        case 'J': json = true; break;
        case 'f': fit = true; break;
        case 'a': adjusted = true; break;
        case 'A': anchor = optarg; break;
        case 'M': model = optarg; break;
        case 'X': cv = true; break;
        case 'F':
            if (!parse_folds(optarg, &folds))
                return EXIT_USAGE;
            break;
        case 'h': fputs(HELP, stdout); return EXIT_OK;
        default:
            arena_getopt_error("ladder", argv);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        arena_error("ladder: name one game (usage: arena ladder GAME [--opt K=V]...)");
        return EXIT_USAGE;
    }
    if (!fit_flags_agree(fit, cv, anchor, model, folds, adjusted))
        return EXIT_USAGE;
    const ja_game_rules *g = arena_find_game(argv[optind]);
    if (!g)
        return EXIT_USAGE;
    arena_ladder_args a = {.what = ARENA_LADDER_SHOW, .db_path = db_path, .game = g,
                           .want_seats = want_seats, .fit = fit, .anchor = anchor,
                           .model = model, .adjusted = adjusted, .cross_validate = cv, .folds = folds, .json = json};
    char err[1024];
    if (!given_options(&co, g, &a.given, err, sizeof err))
        return EXIT_USAGE;
    if (want_seats && (want_seats < g->min_seats || want_seats > g->max_seats)) {
        arena_error("--seats %u: %s is played by %u to %u seats", want_seats, g->name,
                    (unsigned)g->min_seats, (unsigned)g->max_seats);
        return EXIT_USAGE;
    }
    return ladder(&a, show_status);
}
