/* `arena tournament`: plan every match, store the plan, play the matches
 * through an executor, record each result (and its live Elo) in one
 * transaction, and print the standings. Re-running the same command against
 * the same database (or --resume) finishes the plan without repeating or
 * losing a match. The flags are parsed and checked here; the tournament is
 * arena_tournament_prepare and arena_tournament_run (tournament_run.h), and
 * only here are their errors printed and the exit status chosen. */
#include "cli/cli.h"
#include "run/tournament_run.h"

#include "deals.h"
#include "jackarena/ja_error.h"
#include "match.h"

#include <getopt.h>
#include <string.h>

static const char HELP[] =
    "usage: arena tournament GAME --bots BOT,BOT,... [options]\n"
    "Play a tournament: for each round and each combination of K bots, one match\n"
    "per rotation of each of its seat orders, recorded into an Elo ladder in SQLite.\n"
    "\n"
    "  --bots A,B,...     the participants (see 'arena play --help' for BOT)\n"
    "  --bot SPEC         one more participant (for specs with commas); repeatable\n"
    "  --seats K          seats per match (default: the number of bots)\n"
    "  --rounds R         repeat the plan R times (default 1); swiss: R rounds;\n"
    "                     knockout: R deals a tie or table\n"
    "  --format F         round-robin (default), gauntlet (the first bot against\n"
    "                     every combination of the others), swiss or knockout:\n"
    "                     swiss: R rounds, each planned once the round before is\n"
    "                     recorded: groups of K bots with equal or near points who\n"
    "                     have not met (Monrad order with backtracking, seeded\n"
    "                     tie-breaks), N mod K byes a round (a win, to the lowest\n"
    "                     with the fewest byes), each group one duplicate deal in\n"
    "                     every seat order; standings by points, then Buchholz;\n"
    "                     knockout: seeded in the order given; 2 seats: a bracket,\n"
    "                     byes to the top seeds up to a power of two, each tie R\n"
    "                     deals in both seat orders; K seats: tables of K, the\n"
    "                     fewest that bring the field down to a power of K (or\n"
    "                     as near as a round can), byes to the top seeds, the\n"
    "                     others at tables by snake seeding, re-seeded each round,\n"
    "                     each table R deals in every seat order and rotation, its\n"
    "                     best going through (1 of K, or more when fewer must go);\n"
    "                     ranked by total score, then matches won, then the better\n"
    "                     seed (docs/tournament-plan.md); both are played --duplicate\n"
    "  --deals FILE       play the deals of FILE (a curated deal set: a header line\n"
    "                     'jackarena-deals 1', then one match seed a line; 'arena\n"
    "                     ladder deals' makes one) instead of deals derived from\n"
    "                     the seed, in order, from the first again when the plan\n"
    "                     needs more\n"
    "  --seating S        balanced (default): a combination of K bots is played in\n"
    "                     the K rotations of each order of a neighbour-balanced set\n"
    "                     (K-1 orders for odd K, K for even K, 1 for 2 seats), so\n"
    "                     each bot sits next to each other equally often (for\n"
    "                     even K >= 4: one partner twice as often); cyclic: the K\n"
    "                     rotations of one order, so neighbours never change.\n"
    "                     A tournament planned before keeps its own seating when\n"
    "                     resumed (docs/tournament-plan.md)\n"
    "  --duplicate        the matches of a combination share one deal\n"
    "  --opt KEY=VALUE    a game option; repeatable\n"
    "  --seed N           tournament seed (default: random, printed and stored)\n"
    "  --db FILE          the ladder database (default arena.db)\n"
    "  --replays DIR      write one replay per match into DIR (created if missing)\n"
    "  --export-decisions FILE\n"
    "                     write every decision of the matches played by this run\n"
    "                     (observation, legal actions, choice, the seat's final\n"
    "                     outcome) to FILE as training data (docs/training-data.md);\n"
    "                     '-' is the standard output (the standings then go to\n"
    "                     stderr; not with --json)\n"
    "  --move-ms MS       per-decision time limit, up to 86400000 (a day; default:\n"
    "                     none for plugins, 1000 for hosted and external bots)\n"
    ARENA_FAULT_HELP
    "  --restart          start a cmd: bot whose process died again before its\n"
    "                     next match (without it, its matches fault)\n"
    "  --resume           finish the newest unfinished tournament with these bots,\n"
    "                     game, options and format (any seed unless --seed; any\n"
    "                     seating unless --seating)\n"
    "  -q, --quiet        no progress display\n"
    "  --json             print only the result, as one JSON document\n"
    ARENA_EXT_HELP
    ARENA_SCALE_HELP
    "\n"
    "Re-running a command with the same --seed against the same database\n"
    "continues that tournament where it stopped (after Ctrl-C, a crash or a kill)\n"
    "and never plays or counts a match twice. One arena at a time plays into a\n"
    "database (a lock on FILE.lock): a second run is refused while one runs.\n"
    "\n"
    "--db, --replays and --export-decisions are checked before anything runs: a\n"
    "file there must be a regular file, a directory a directory, never a link, a\n"
    "FIFO or a device (docs/security.md, \"Outputs\").\n"
    "\n"
    "example: arena tournament taylor-blackjack --bots random,random,greedy --seats 3 \\\n"
    "           --rounds 50 --seed 1 --replays replays\n";

/* What the flags of one `arena tournament` say (besides the scale's). */
typedef struct tournament_flags {
    arena_common co;
    bool move_given, json, quiet, resume, duplicate;
    const char *db_path, *replay_dir, *format_s, *export_path, *seating_s, *deals_path;
    uint64_t *deals;              /* read from deals_path */
    uint32_t n_deals;
    uint32_t seats, rounds, jobs;
} tournament_flags;

/* A number flag's value: --seats, --rounds or --jobs. False after its
 * usage error. */
static bool number_flag(tournament_flags *f, arena_scale *sc, int c, const char *arg)
{
    if (c == 'k' && (!arena_parse_u32(arg, &f->seats) || f->seats == 0)) {
        arena_error("--seats needs a positive number, not '%s'", arg);
        return false;
    }
    if (c == 'R' && (!arena_parse_u32(arg, &f->rounds) || f->rounds == 0)) {
        arena_error("--rounds needs a positive number, not '%s'", arg);
        return false;
    }
    if (c == 'j') {
        sc->jobs_given = true;
        /* 0 only with --workers: checked by check_scale */
        if (!arena_parse_u32(arg, &f->jobs) || f->jobs > arena_max_jobs()) {
            arena_error("--jobs needs a number up to %u (%d per online core), not '%s'",
                        arena_max_jobs(), ARENA_JOBS_PER_CORE, arg);
            return false;
        }
    }
    return true;
}

/* One flag of the tournament's own. False to exit with *status (after
 * --help, or a usage error). */
static bool own_flag(tournament_flags *f, arena_scale *sc, int c, char **argv, int *status)
{
    switch (c) {
    case 'k': case 'R': case 'j': return number_flag(f, sc, c, optarg);
    case 'F': f->format_s = optarg; return true;
    case 'S': f->seating_s = optarg; return true;
    case 'E': f->deals_path = optarg; return true;
    case 'D': f->duplicate = true; return true;
    case 'd': f->db_path = optarg; return true;
    case 'r': f->replay_dir = optarg; return true;
    case 'X': f->export_path = optarg; return true;
    case 'Z': f->resume = true; return true;
    case 'J': f->json = true; return true;
    case 'q': f->quiet = true; return true;
    case 'h': fputs(HELP, stdout); *status = EXIT_OK; return false;
    default:
        arena_getopt_error("tournament", argv);
        return false;
    }
}

/* Parses the flags into f, ext and sc. True to go on; false to exit with
 * *status (after --help, or a usage error). */
static bool parse_flags(int argc, char **argv, tournament_flags *f, arena_ext *ext,
                        arena_scale *sc, int *status)
{
    static const struct option opts[] = {
        {"bot", required_argument, NULL, 'b'},     {"bots", required_argument, NULL, 'B'},
        {"seats", required_argument, NULL, 'k'},   {"rounds", required_argument, NULL, 'R'},
        {"format", required_argument, NULL, 'F'},  {"duplicate", no_argument, NULL, 'D'},
        {"seating", required_argument, NULL, 'S'}, {"deals", required_argument, NULL, 'E'},
        {"opt", required_argument, NULL, 'o'},     {"seed", required_argument, NULL, 's'},
        {"db", required_argument, NULL, 'd'},      {"replays", required_argument, NULL, 'r'},
        {"move-ms", required_argument, NULL, 'm'}, {"jobs", required_argument, NULL, 'j'},
        {"resume", no_argument, NULL, 'Z'},
        {"export-decisions", required_argument, NULL, 'X'},
        {"json", no_argument, NULL, 'J'},          {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},          ARENA_EXT_LONGOPTS,
        ARENA_FAULT_LONGOPTS,
        {"restart", no_argument, NULL, ARENA_OPT_RESTART},
        ARENA_SCALE_LONGOPTS,
        {0, 0, 0, 0}};
    int c, k;
    char err[4400];
    *status = EXIT_USAGE;
    optind = 1;
    opterr = 0;
    sc->slurm.argv = argv;
    sc->slurm.argc = argc;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        f->move_given |= c == ARENA_OPT_MOVE_MS;
        /* What the shards of --slurm get differently (slurm.h). */
        if (c == ARENA_OPT_SLURM || c == ARENA_OPT_SLURM_OPT || c == 'd' || c == 's' ||
            c == 'Z' || c == 'X' || c == 'S')
            arena_slurm_mark(&sc->slurm, argv, argc, optind, optarg);
        err[0] = '\0';
        if ((k = arena_common_flag(&f->co, c, optarg)) != 0 ||
            (k = arena_ext_flag(ext, c, optarg)) != 0 ||
            (k = arena_scale_flag(sc, c, optarg, err, sizeof err)) != 0) {
            if (k < 0 && err[0]) /* "": said by arena_common_flag or arena_ext_flag */
                arena_error("%s", err);
            if (k < 0)
                return false;
            continue;
        }
        if (!own_flag(f, sc, c, argv, status))
            return false;
    }
    return true;
}

/* The outputs (checked before anything runs) and the scale. False after the
 * usage error. */
static bool check_scale(const tournament_flags *f, const arena_scale *sc, const arena_ext *ext)
{
    const arena_output outs[] = {{"--db", f->db_path, ARENA_OUT_DB},
                                 {"--replays", f->replay_dir, ARENA_OUT_DIR},
                                 {"--export-decisions", f->export_path, ARENA_OUT_STDOUT}};
    if (!arena_outputs_check(outs, sizeof outs / sizeof *outs, f->json ? "--json" : NULL))
        return false;
    if (f->jobs == 0 && !sc->workers) {
        arena_error("--jobs needs a positive number, not '0' (0 only with --workers)");
        return false;
    }
    char err[4400];
    if (arena_scale_check(sc, ext, f->jobs, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        return false;
    }
    return true;
}

/* At least two bots, named; plugins only where Slurm plays them. False
 * after the usage error. */
static bool check_bots(arena_bots *bots, const arena_scale *sc)
{
    if (bots->n < 2) {
        arena_error("tournament: give at least two bots with --bots");
        return false;
    }
    char err[ARENA_BOTS_ERR_CAP];
    if (!arena_cli_ok(arena_bots_finish_names(bots, err, sizeof err), err))
        return false;
    for (int i = 0; (sc->slurm.n || sc->slurm.workers) && i < bots->n; i++)
        if (strcmp(bots->b[i].kind, "plugin") != 0) {
            arena_error(sc->slurm.n ? "--slurm: the shards play plugin bots only; '%s' is a %s bot"
                                    : "--slurm-workers: referee workers play plugin bots only; "
                                      "'%s' is a %s bot",
                        bots->b[i].spec, bots->b[i].kind);
            return false;
        }
    return true;
}

/* The plan: seats (default: every bot) within the game's and the bots',
 * its format, the game's options for the seats, and a count of matches the
 * plan can hold. False after the usage error. */
static bool check_plan(tournament_flags *f, const ja_game_rules *g, int n_bots,
                       ladder_plan_params *pp, ja_options *o)
{
    if (!f->seats)
        f->seats = (uint32_t)n_bots;
    if (f->seats < g->min_seats || f->seats > g->max_seats) {
        arena_error("--seats %u: %s is played by %u to %u seats", f->seats, g->name,
                    (unsigned)g->min_seats, (unsigned)g->max_seats);
        return false;
    }
    if (f->seats > (uint32_t)n_bots) {
        arena_error("--seats %u needs at least %u bots; %d given", f->seats, f->seats, n_bots);
        return false;
    }
    *pp = (ladder_plan_params){0};
    if (ladder_format_parse(f->format_s, &pp->format) != JA_OK) {
        arena_error("--format '%s': use round-robin, gauntlet, swiss or knockout", f->format_s);
        return false;
    }
    char err[1200];
    if (f->deals_path && ladder_deals_read(f->deals_path, &f->deals, &f->n_deals, err,
                                           sizeof err) != JA_OK) {
        arena_error("--deals: %s", err);
        return false;
    }
    pp->deals = f->deals;
    pp->n_deals = f->n_deals;
    pp->seating = LADDER_SEATING_BALANCED;
    if (f->seating_s && ladder_seating_parse(f->seating_s, &pp->seating) != JA_OK) {
        arena_error("--seating '%s': use balanced or cyclic", f->seating_s);
        return false;
    }
    if (!arena_common_options(&f->co, g, f->seats, o))
        return false;
    pp->n_participants = (uint32_t)n_bots;
    pp->n_seats = f->seats;
    pp->rounds = f->rounds;
    pp->duplicate = f->duplicate || ladder_format_by_rounds(pp->format);
    uint32_t n_planned = 0;
    if (ladder_plan_count(pp, &n_planned, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        return false;
    }
    return true;
}

/* Swiss and knockout plan each round from the results of the one before,
 * and a deal set is kept by its hash (a shard's database could not be
 * merged): one arena plays them whole (no --shard, no --slurm). False
 * after the usage error. */
static bool check_rounds(const ladder_plan_params *pp, const arena_scale *sc)
{
    if ((!ladder_format_by_rounds(pp->format) && !pp->deals) || (!sc->shard_n && !sc->slurm.n))
        return true;
    if (pp->deals)
        arena_error("--deals cannot be played in shards (--shard, --slurm; --workers and "
                    "--slurm-workers can)");
    else
        arena_error("--format %s plans each round from the results of the one before, and a "
                    "shard's database holds only its own: it cannot be played in shards "
                    "(--shard, --slurm; --workers and --slurm-workers can)",
                    ladder_format_name(pp->format));
    return false;
}

/* A failure that does not stop the run, as it comes. */
static void say_error(const char *line)
{
    arena_error("%s", line);
}

/* The tournament in its two steps (docs/architecture.md, "Errors"): a
 * failure to prepare is the user's (exit 2) but for the database in use or
 * failing (JA_EBUSY, JA_EDB: tournament_run.h); one of the run is exit 1. */
static int play(const arena_tournament_args *ta)
{
    arena_tournament t;
    char err[ARENA_BOTS_ERR_CAP];
    int status = EXIT_OK;
    int rc = arena_tournament_prepare(&t, ta, err, sizeof err);
    if (rc != JA_OK)
        status = rc == JA_EBUSY || rc == JA_EDB ? EXIT_RUNTIME : EXIT_USAGE;
    else if (arena_tournament_run(&t, stdout, err, sizeof err) != JA_OK)
        status = EXIT_RUNTIME;
    if (status != EXIT_OK && err[0]) /* a line is always given; an empty one is not printed */
        arena_error("%s", err);
    arena_tournament_close(&t);
    return status;
}

static int tournament(int argc, char **argv, arena_scale *sc)
{
    static arena_bots bots;
    memset(&bots, 0, sizeof bots);
    static arena_ext ext;
    memset(&ext, 0, sizeof ext);
    /* The database holds every match's seed before play: cmd: bots are
     * confined unless --no-confine (docs/security.md). */
    ext.confine.by_default = true;
    bots.ext = &ext;
    tournament_flags f = {.co = {.bots = &bots}, .db_path = "arena.db",
                          .format_s = "round-robin", .rounds = 1, .jobs = 1};
    int status;
    if (!parse_flags(argc, argv, &f, &ext, sc, &status))
        return status;
    if (optind >= argc) {
        arena_error("tournament: which game? (usage: arena tournament GAME --bots A,B,...)");
        return EXIT_USAGE;
    }
    const ja_game_rules *g = arena_find_game(argv[optind++]);
    if (!g)
        return EXIT_USAGE;
    if (optind < argc) {
        arena_error("tournament: unexpected argument '%s' (bots go in --bots)", argv[optind]);
        return EXIT_USAGE;
    }
    sc->slurm.db_path = f.db_path;
    ladder_plan_params pp;
    ja_options o;
    if (!check_scale(&f, sc, &ext) || !check_bots(&bots, sc) ||
        !check_plan(&f, g, bots.n, &pp, &o) || !check_rounds(&pp, sc)) {
        free(f.deals);
        return EXIT_USAGE;
    }
    arena_tournament_args ta = {g, o, &bots, &ext, sc, pp, f.co.have_seed, f.co.seed,
                                f.db_path, f.replay_dir, f.export_path,
                                f.move_given ? f.co.move_ms : REF_MOVE_MS_KIND, f.jobs,
                                f.resume, f.json, f.quiet, say_error, f.seating_s != NULL,
                                f.deals_path};
    status = play(&ta);
    free(f.deals);
    return status;
}

int cmd_tournament(int argc, char **argv)
{
    arena_scale sc = {0};
    int rc = tournament(argc, argv, &sc);
    arena_slurm_free(&sc.slurm);
    return rc;
}
