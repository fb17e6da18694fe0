/* `arena tournament`: plan every match, store the plan, play the matches
 * through an executor, record each result (and its live Elo) in one
 * transaction, and print the standings. Re-running the same command against
 * the same database (or --resume) finishes the plan without repeating or
 * losing a match. The flags are parsed and checked here; the run is
 * arena_tournament_run (tournament_run.h). */
#include "cli/cli.h"
#include "run/tournament_run.h"

#include "jackarena/ja_error.h"
#include "match.h"

#include <getopt.h>
#include <string.h>

static const char HELP[] =
    "usage: arena tournament GAME --bots BOT,BOT,... [options]\n"
    "Play a tournament: for each round and each combination of K bots, one match\n"
    "per cyclic rotation of the seats, recorded into an Elo ladder in SQLite.\n"
    "\n"
    "  --bots A,B,...     the participants (see 'arena play --help' for BOT)\n"
    "  --bot SPEC         one more participant (for specs with commas); repeatable\n"
    "  --seats K          seats per match (default: the number of bots)\n"
    "  --rounds R         repeat the plan R times (default 1)\n"
    "  --format F         round-robin (default) or gauntlet (the first bot against\n"
    "                     every combination of the others)\n"
    "  --duplicate        the K rotations of a combination share one deal\n"
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
    "                     game, options and format (any seed unless --seed)\n"
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

static int tournament(int argc, char **argv, arena_scale *sc);

int cmd_tournament(int argc, char **argv)
{
    arena_scale sc = {0};
    int rc = tournament(argc, argv, &sc);
    arena_slurm_free(&sc.slurm);
    return rc;
}

static int tournament(int argc, char **argv, arena_scale *sc)
{
    static const struct option opts[] = {
        {"bot", required_argument, NULL, 'b'},     {"bots", required_argument, NULL, 'B'},
        {"seats", required_argument, NULL, 'k'},   {"rounds", required_argument, NULL, 'R'},
        {"format", required_argument, NULL, 'F'},  {"duplicate", no_argument, NULL, 'D'},
        {"opt", required_argument, NULL, 'o'},     {"seed", required_argument, NULL, 's'},
        {"db", required_argument, NULL, 'd'},      {"replays", required_argument, NULL, 'r'},
        {"move-ms", required_argument, NULL, 'm'}, {"jobs", required_argument, NULL, 'j'},
        {"resume", no_argument, NULL, 'Z'},       {"export-decisions", required_argument, NULL, 'X'},
        {"json", no_argument, NULL, 'J'},          {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},          ARENA_EXT_LONGOPTS,
        ARENA_FAULT_LONGOPTS,                      {"restart", no_argument, NULL, ARENA_OPT_RESTART},
        ARENA_SCALE_LONGOPTS,
        {0, 0, 0, 0}};
    static arena_bots bots;
    memset(&bots, 0, sizeof bots);
    static arena_ext ext;
    memset(&ext, 0, sizeof ext);
    /* The database holds every match's seed before play: cmd: bots are
     * confined unless --no-confine (docs/security.md). */
    ext.confine.by_default = true;
    bots.ext = &ext;
    arena_common co = {.bots = &bots};
    bool move_given = false;
    const char *db_path = "arena.db", *replay_dir = NULL, *format_s = "round-robin";
    const char *export_path = NULL;
    uint32_t seats = 0, rounds = 1, jobs = 1;
    bool json = false, quiet = false, resume = false, duplicate = false;
    int c, k;
    optind = 1;
    opterr = 0;
    sc->slurm.argv = argv;
    sc->slurm.argc = argc;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        move_given |= c == ARENA_OPT_MOVE_MS;
        /* What the shards of --slurm get differently (slurm.h). */
        if (c == ARENA_OPT_SLURM || c == ARENA_OPT_SLURM_OPT || c == 'd' || c == 's' ||
            c == 'Z' || c == 'X')
            arena_slurm_mark(&sc->slurm, argv, argc, optind, optarg);
        if ((k = arena_common_flag(&co, c, optarg)) != 0 || (k = arena_ext_flag(&ext, c, optarg)) != 0 ||
            (k = arena_scale_flag(sc, c, optarg)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'k':
            if (!arena_parse_u32(optarg, &seats) || seats == 0) {
                arena_error("--seats needs a positive number, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'R':
            if (!arena_parse_u32(optarg, &rounds) || rounds == 0) {
                arena_error("--rounds needs a positive number, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'F': format_s = optarg; break;
        case 'D': duplicate = true; break;
        case 'd': db_path = optarg; break;
        case 'r': replay_dir = optarg; break;
        case 'X': export_path = optarg; break;
        case 'j':
            sc->jobs_given = true;
            /* 0 only with --workers: checked below */
            if (!arena_parse_u32(optarg, &jobs) || jobs > arena_max_jobs()) {
                arena_error("--jobs needs a number up to %u (%d per online core), not '%s'",
                            arena_max_jobs(), ARENA_JOBS_PER_CORE, optarg);
                return EXIT_USAGE;
            }
            break;
        case 'Z': resume = true; break;
        case 'J': json = true; break;
        case 'q': quiet = true; break;
        case 'h': fputs(HELP, stdout); return EXIT_OK;
        default:
            arena_getopt_error("tournament", argv);
            return EXIT_USAGE;
        }
    }
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
    const arena_output outs[] = {{"--db", db_path, ARENA_OUT_DB},
                                 {"--replays", replay_dir, ARENA_OUT_DIR},
                                 {"--export-decisions", export_path, ARENA_OUT_STDOUT}};
    if (!arena_outputs_check(outs, sizeof outs / sizeof *outs, json ? "--json" : NULL))
        return EXIT_USAGE;
    if (jobs == 0 && !sc->workers) {
        arena_error("--jobs needs a positive number, not '0' (0 only with --workers)");
        return EXIT_USAGE;
    }
    if (!arena_scale_check(sc, &ext, jobs))
        return EXIT_USAGE;
    if (bots.n < 2) {
        arena_error("tournament: give at least two bots with --bots");
        return EXIT_USAGE;
    }
    if (!arena_bots_finish_names(&bots))
        return EXIT_USAGE;
    sc->slurm.db_path = db_path;
    for (int i = 0; (sc->slurm.n || sc->slurm.workers) && i < bots.n; i++)
        if (strcmp(bots.b[i].kind, "plugin") != 0) {
            arena_error(sc->slurm.n ? "--slurm: the shards play plugin bots only; '%s' is a %s bot"
                                    : "--slurm-workers: referee workers play plugin bots only; "
                                      "'%s' is a %s bot",
                        bots.b[i].spec, bots.b[i].kind);
            return EXIT_USAGE;
        }
    if (!seats)
        seats = (uint32_t)bots.n;
    if (seats < g->min_seats || seats > g->max_seats) {
        arena_error("--seats %u: %s is played by %u to %u seats", seats, g->name,
                    (unsigned)g->min_seats, (unsigned)g->max_seats);
        return EXIT_USAGE;
    }
    if (seats > (uint32_t)bots.n) {
        arena_error("--seats %u needs at least %u bots; %d given", seats, seats, bots.n);
        return EXIT_USAGE;
    }
    ladder_plan_params pp = {0};
    if (ladder_format_parse(format_s, &pp.format) != JA_OK) {
        arena_error("--format '%s': use round-robin or gauntlet", format_s);
        return EXIT_USAGE;
    }
    char err[1200];
    ja_options o;
    if (!arena_common_options(&co, g, seats, &o))
        return EXIT_USAGE;
    pp.n_participants = (uint32_t)bots.n;
    pp.n_seats = seats;
    pp.rounds = rounds;
    pp.duplicate = duplicate;
    uint32_t n_planned = 0;
    if (ladder_plan_count(&pp, &n_planned, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        return EXIT_USAGE;
    }
    arena_tournament_args ta = {g, o, &bots, &ext, sc, pp, co.have_seed, co.seed, db_path,
                                replay_dir, export_path,
                                move_given ? co.move_ms : REF_MOVE_MS_KIND, jobs, resume, json,
                                quiet};
    return arena_tournament_run(stdout, &ta);
}
