/* `arena play`: one match between the bots given, printed move by move (or
 * as one JSON document), with an optional replay file. The flags are parsed
 * and checked here; the match is arena_play_prepare and arena_play_run
 * (play_run.h), and only here are their errors printed and the exit status
 * chosen. */
#include "cli/cli.h"
#include "run/human.h"
#include "run/play_run.h"
#include "run/repro.h"

#include "jackarena/ja_error.h"

#include <getopt.h>
#include <string.h>

static const char HELP[] =
    "usage: arena play GAME BOT BOT... [options]\n"
    "Play one match of GAME; the seats take the bots in the order given.\n"
    "\n"
    "  --bot SPEC        add a bot (for specs that contain commas); repeatable\n"
    "  --bots A,B,...    add bots from a comma-separated list\n"
    "  --opt KEY=VALUE   set a game option (see 'arena games'); repeatable\n"
    "  --seed N          match seed (default: random, always printed)\n"
    "  --replay FILE     write the match's replay to FILE\n"
    "  --export-decisions FILE\n"
    "                    write every decision (observation, legal actions, choice,\n"
    "                    the seat's final outcome) to FILE as training data, in\n"
    "                    msgpack (docs/training-data.md); '-' is the standard\n"
    "                    output (what play prints besides then goes to stderr)\n"
    "  --move-ms MS      per-decision time limit, up to 86400000 (a day; default:\n"
    "                    none for plugins, 1000 for hosted and external bots)\n"
    ARENA_FAULT_HELP
    "  --http HOST:PORT  the human seat plays in a browser, on a page served there\n"
    "                    (127.0.0.1:8080; port 0: any free one), its address printed\n"
    "                    on stderr; HOST a loopback address unless --public\n"
    "  --public          allow --http on an address other machines reach (the page\n"
    "                    is plain HTTP: anyone on the way reads your cards)\n"
    "  --json            print only the result, as one JSON document\n"
    "  -q, --quiet       print only the result, as text\n"
    "With --replay FILE, a match with a fault also gets FILE's stem plus\n"
    "'.repro.json': a reproduction bundle (docs/faults.md). An output that\n"
    "exists must be a regular file (not a link, FIFO or device): it is replaced\n"
    "whole at the end (docs/security.md, \"Outputs\").\n"
    ARENA_EXT_HELP
    "\n"
    "BOT is one of (README.md, \"Bot specifiers\"):\n"
    "  random, greedy, ismcts  a reference bot (docs/bots.md)\n"
    "  ./mybot.so              a plugin file, run in-process (trusted code: its\n"
    "                          crash ends the arena after one line naming the bot,\n"
    "                          seat, match, decision and signal; docs/faults.md)\n"
    "  hosted:./mybot.so       the same plugin in a sandboxed child process, for\n"
    "                          untrusted code (docs/security.md); hosted:ismcts too\n"
    "  cmd:COMMAND ARGS        an external bot the arena starts; it finds the\n"
    "                          endpoint in $JACKARENA_ENDPOINT (docs/protocol.md)\n"
    "  zmq:NAME                an external bot already connected to --listen\n"
    "  human                   you: play that seat yourself, in this terminal or, with\n"
    "                          --http, in a browser (one human seat a match)\n"
    "  NAME=BOT                any of these under a display name of your choosing\n"
    "Parameters, KEY=VALUE joined by ':', follow a plugin after a ':'\n"
    "(ismcts:iters=2000:c=0.7, ./mybot.so:depth=3, hosted:./mybot.so:depth=3; a\n"
    "path is split at the first ':' after its last '/' unless the whole text names a\n"
    "file) and a command in brackets (cmd[depth=3]:./mybot --fast), which gets them\n"
    "in $JACKARENA_PARAMS and in every start message; zmq: bots take none. Each bot\n"
    "checks its own before anything runs: a refusal is exit status 2, naming the bot\n"
    "and the key. The same bot twice, or with two sets of parameters, is two\n"
    "players, shown as ismcts and ismcts#2.\n"
    "\n"
    "A human seat (docs/bots.md, \"Play against your bot\") sees its seat's view\n"
    "only: at each of its decisions the table as that seat sees it and its legal\n"
    "actions, numbered; type a number and Enter. q, or the end of the input,\n"
    "abandons the match: exit status 1, and no replay is written. It has no time\n"
    "limit (--move-ms and --bank-ms apply to the bots); the moves are not printed,\n"
    "and the seed is shown with the result. With --json its screens go to stderr.\n"
    "With --http the seat is played in a browser, on the page whose address is\n"
    "printed (it holds a secret key: only who has the address sees the seat): the\n"
    "seat's view drawn as the replay page draws it, its legal actions as buttons;\n"
    "no time limit, and the replay is the one the same choices in the terminal make.\n"
    "The page's Quit button, or Ctrl-C where arena play runs, abandons the match.\n"
    "\n"
    "example: arena play taylor-blackjack random random greedy --seed 7 --replay m.rpl\n"
    "         arena play bombs human ./mybot.so greedy greedy --replay mine.rpl\n"
    "         arena play bombs human ./mybot.so greedy --http 127.0.0.1:8080\n";

/* What the flags of one `arena play` say. */
typedef struct play_flags {
    arena_common co;
    bool move_given, json, quiet, is_public;
    const char *replay_path, *export_path, *http;
} play_flags;

/* Parses the flags into f and ext. True to go on; false to exit with
 * *status (after --help, or a usage error). */
static bool parse_flags(int argc, char **argv, play_flags *f, arena_ext *ext, int *status)
{
    static const struct option opts[] = {
        {"bot", required_argument, NULL, 'b'},   {"bots", required_argument, NULL, 'B'},
        {"opt", required_argument, NULL, 'o'},   {"seed", required_argument, NULL, 's'},
        {"replay", required_argument, NULL, 'r'}, {"move-ms", required_argument, NULL, 'm'},
        {"json", no_argument, NULL, 'j'},        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},        {"export-decisions", required_argument, NULL, 'X'},
        {"http", required_argument, NULL, 'H'},  {"public", no_argument, NULL, 'P'},
        ARENA_EXT_LONGOPTS,                      ARENA_FAULT_LONGOPTS,
        {0, 0, 0, 0}};
    int c, k;
    *status = EXIT_USAGE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        f->move_given |= c == ARENA_OPT_MOVE_MS;
        if ((k = arena_common_flag(&f->co, c, optarg)) != 0 ||
            (k = arena_ext_flag(ext, c, optarg)) != 0) {
            if (k < 0)
                return false;
            continue;
        }
        switch (c) {
        case 'r': f->replay_path = optarg; break;
        case 'X': f->export_path = optarg; break;
        case 'H': f->http = optarg; break;
        case 'P': f->is_public = true; break;
        case 'j': f->json = true; break;
        case 'q': f->quiet = true; break;
        case 'h': fputs(HELP, stdout); *status = EXIT_OK; return false;
        default:
            arena_getopt_error("play", argv);
            return false;
        }
    }
    return true;
}

/* Every output is checked before anything runs; the reproduction bundle
 * goes next to the replay. */
static bool check_outputs(const play_flags *f)
{
    char repro_out[4200] = "";
    if (f->replay_path)
        arena_repro_path(repro_out, sizeof repro_out, f->replay_path);
    const arena_output outs[] = {{"--replay", f->replay_path, ARENA_OUT_FILE},
                                 {"reproduction bundle", f->replay_path ? repro_out : NULL,
                                  ARENA_OUT_FILE},
                                 {"--export-decisions", f->export_path, ARENA_OUT_STDOUT}};
    return arena_outputs_check(outs, sizeof outs / sizeof *outs, f->json ? "--json" : NULL);
}

/* The seats: the positional bots first, then --bot/--bots in the order
 * given, as many as g seats, named. */
static bool seat_bots(arena_bots *bots, arena_ext *ext, char **positional, int n,
                      const ja_game_rules *g)
{
    char err[ARENA_BOTS_ERR_CAP];
    arena_bots named = *bots;
    bots->n = 0;
    bots->ext = ext;
    for (int i = 0; i < n; i++)
        if (!arena_cli_ok(arena_bots_add(bots, positional[i], err, sizeof err), err))
            return false;
    for (int i = 0; i < named.n; i++)
        bots->b[bots->n++] = named.b[i];
    if ((uint32_t)bots->n < g->min_seats || (uint32_t)bots->n > g->max_seats) {
        arena_error("%s is played by %u to %u seats; %d bot%s given", g->name,
                    (unsigned)g->min_seats, (unsigned)g->max_seats, bots->n,
                    bots->n == 1 ? "" : "s");
        return false;
    }
    return arena_cli_ok(arena_bots_finish_names(bots, err, sizeof err), err);
}

/* --http: an address (loopback unless --public), and a human seat to play
 * there. */
static bool check_http(const play_flags *f, const arena_bots *bots)
{
    if (!f->http) {
        if (f->is_public)
            arena_error("--public goes with --http HOST:PORT (where the human seat plays)");
        return !f->is_public;
    }
    char err[512], host[64];
    uint16_t port;
    bool v6, loopback;
    if (!arena_http_addr(f->http, 0, host, sizeof host, &port, &v6, &loopback, err, sizeof err)) {
        arena_error("%s", err);
        return false;
    }
    if (!loopback && !f->is_public) {
        arena_error("--http %s is not a loopback address: give --public to play from another "
                    "machine (plain HTTP: anyone on the way reads your cards)", f->http);
        return false;
    }
    for (int i = 0; i < bots->n; i++)
        if (strcmp(bots->b[i].kind, "human") == 0)
            return true;
    arena_error("--http is where a human seat plays: give one with 'human' (arena play GAME "
                "human BOT...)");
    return false;
}

/* The match in its two steps: a failure to prepare is the user's (exit 2),
 * one of the run exit 1 (docs/architecture.md, "Errors"). */
static int play(const arena_play_args *pa)
{
    arena_play p;
    char err[ARENA_BOTS_ERR_CAP];
    int status = EXIT_OK;
    if (arena_play_prepare(&p, pa, err, sizeof err) != JA_OK)
        status = EXIT_USAGE;
    else if (arena_play_run(&p, stdout, err, sizeof err) != JA_OK)
        status = EXIT_RUNTIME;
    if (status != EXIT_OK && err[0]) /* a line is always given; an empty one is not printed */
        arena_error("%s", err);
    arena_play_close(&p);
    return status;
}

int cmd_play(int argc, char **argv)
{
    static arena_bots bots; /* large; one per process */
    memset(&bots, 0, sizeof bots);
    static arena_ext ext;
    memset(&ext, 0, sizeof ext);
    /* A human seat plays in this terminal; its screens go where the text
     * goes (stderr when stdout carries the JSON). */
    static arena_human_opts human;
    human = (arena_human_opts){.in = stdin, .out = stdout};
    bots.human = &human;
    play_flags f = {.co = {.bots = &bots}};
    int status;
    if (!parse_flags(argc, argv, &f, &ext, &status))
        return status;
    if (f.json)
        human.out = stderr;
    if (optind >= argc) {
        arena_error("play: which game? (usage: arena play GAME BOT BOT...; see 'arena games')");
        return EXIT_USAGE;
    }
    const ja_game_rules *g = arena_find_game(argv[optind++]);
    if (!g || !check_outputs(&f) || !seat_bots(&bots, &ext, argv + optind, argc - optind, g) ||
        !check_http(&f, &bots))
        return EXIT_USAGE;
    human.http = f.http;
    ja_options o;
    if (!arena_common_options(&f.co, g, (uint32_t)bots.n, &o))
        return EXIT_USAGE;
    const arena_common *co = &f.co;
    arena_play_args pa = {g, o, &bots, &ext, co->have_seed ? co->seed : arena_random_seed(),
                          f.move_given ? co->move_ms : REF_MOVE_MS_KIND, f.replay_path,
                          f.export_path, f.json, f.quiet, NULL};
    return play(&pa);
}
