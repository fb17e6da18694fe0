/* `arena conformance BOT [--game GAME]`: drives an external bot through the
 * protocol and reports what it got wrong, for bot authors before they
 * submit. Exit 0 when it conforms, 1 when a check fails, 2 for bad usage.
 *
 * A parser over arena_conformance_run (conformance_run.h), which says what is
 * checked; only here are errors printed and the exit status chosen. */
#include "cli/cli.h"
#include "run/conformance_run.h"
#include "run/extbots.h"

#include "jackarena/ja_error.h"

#include <getopt.h>
#include <string.h>

static const char HELP[] =
    "usage: arena conformance BOT [--game GAME] [options]\n"
    "Check an external bot (cmd:COMMAND or zmq:NAME) against the protocol: hello,\n"
    "ping, unknown messages, matches of every game it plays (at every seat, as\n"
    "many at once as its capacity), and bye. Prints one line per check and what\n"
    "the bot got wrong. Exit status 0 when it conforms, 1 when it does not.\n"
    "\n"
    "  --game GAME       only this game (default: every game of this build)\n"
    "  --rounds R        matches per seat position and game, up to 10000 (default:\n"
    "                    enough to use the bot's capacity, up to 8 at once)\n"
    "  --move-ms MS      per-decision limit, up to 86400000 (default 1000)\n"
    "  --seed N          seed of the matches (default 1)\n"
    ARENA_EXT_HELP
    "\n"
    "example: arena conformance \"cmd:python3 mybot.py\" --game taylor-blackjack\n";

/* A bot that does not load, said when it comes (before its check fails). */
static void say_error(const char *line)
{
    arena_error("%s", line);
}

int cmd_conformance(int argc, char **argv)
{
    static const struct option opts[] = {
        {"game", required_argument, NULL, 'g'},    {"rounds", required_argument, NULL, 'R'},
        {"move-ms", required_argument, NULL, 'm'}, {"seed", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},          ARENA_EXT_LONGOPTS,
        {0, 0, 0, 0}};
    static arena_bots bots;
    memset(&bots, 0, sizeof bots);
    static arena_ext ext;
    memset(&ext, 0, sizeof ext);
    ext.wire_flags = REF_WIRE_PROBE;
    bots.ext = &ext;
    const char *game = NULL;
    uint32_t rounds = 0, move_ms = 1000;
    uint64_t seed = 1;
    int c, k;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if ((k = arena_ext_flag(&ext, c, optarg)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'g': game = optarg; break;
        case 'R':
            if (!arena_parse_u32(optarg, &rounds) || rounds == 0 ||
                rounds > CONFORMANCE_MAX_ROUNDS) {
                arena_error("--rounds needs a number from 1 to %u, not '%s'",
                            CONFORMANCE_MAX_ROUNDS, optarg);
                return EXIT_USAGE;
            }
            break;
        case 'm':
            if (!arena_parse_ms("--move-ms", optarg, false, &move_ms))
                return EXIT_USAGE;
            break;
        case 's':
            if (!arena_parse_u64(optarg, &seed)) {
                arena_error("--seed needs a number, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': fputs(HELP, stdout); return EXIT_OK;
        default: arena_getopt_error("conformance", argv); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        arena_error("conformance takes one BOT (usage: arena conformance BOT [--game GAME])");
        return EXIT_USAGE;
    }
    const ja_game_rules *only = NULL;
    if (game && !(only = arena_find_game(game)))
        return EXIT_USAGE;
    char err[ARENA_BOTS_ERR_CAP];
    if (!arena_cli_ok(arena_bots_add(&bots, argv[optind], err, sizeof err), err) ||
        !arena_cli_ok(arena_bots_add(&bots, "random", err, sizeof err), err))
        return EXIT_USAGE;
    if (strcmp(bots.b[0].kind, "cmd") != 0 && strcmp(bots.b[0].kind, "zmq") != 0) {
        arena_error("conformance checks external bots (cmd:COMMAND or zmq:NAME), not '%s'",
                    argv[optind]);
        return EXIT_USAGE;
    }
    arena_conformance_args ca = {&bots, only, rounds, move_ms, seed, say_error};
    return arena_conformance_run(&ca, stdout) == JA_OK ? EXIT_OK : EXIT_RUNTIME;
}
