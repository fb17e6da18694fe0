/* `arena`: the command-line face of Jack Arena, a thin shell over the
 * libraries (ja_rules, ja_referee, ja_ladder). One file per command. */
#include "cli/cli.h"

#include "jackarena/ja_version.h"

#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: arena COMMAND [ARGS]\n"
            "\n"
            "Jack Arena runs card-game bots against each other under each game's rules.\n"
            "\n"
            "commands:\n"
            "  games [--json]                 list the games, their seats and options\n"
            "  bots [--json]                  list the reference bots\n"
            "  play GAME BOT BOT...           play one match (move by move; --json for the result)\n"
            "  tournament GAME --bots A,B...  play a tournament into the Elo ladder\n"
            "  ladder GAME [--fit] [--json]   show a game's ladder (--fit: official ratings)\n"
            "  ladder import|export ...       results in and out as PGN or JSON Lines\n"
            "  ladder deals GAME --top N      the deals that separated bots most (--deals)\n"
            "  bench BOT --game GAME          a bot against the reference bots (Elo, SPRT)\n"
            "  replay verify FILE [--json]    re-simulate a replay and print its digest\n"
            "  replay adjust FILE...          luck-adjusted scores (AIVAT-style)\n"
            "  replay show FILE [--seat S]    watch a replay in the terminal\n"
            "  replay html FILE -o OUT.html   write a replay's self-contained web page\n"
            "  report [--db FILE] -o DIR      write a static site: standings, chart, replays\n"
            "  conformance BOT [--game GAME]  check an external bot against the protocol\n"
            "  serve GAME [--http HOST:PORT]  a competition server: uploads, live ladder\n"
            "\n"
            "BOT: random, greedy, ismcts, ./mybot.so, hosted:./mybot.so, cmd:COMMAND or\n"
            "zmq:NAME, with parameters after a ':' (ismcts:iters=2000, ./mybot.so:depth=3)\n"
            "or in brackets for a command (cmd[depth=3]:./mybot); 'arena play --help'.\n"
            "\n"
            "Run 'arena COMMAND --help' for a command's options. Exit status: 0 success,\n"
            "2 a usage error (nothing was written), 1 a failure during the run.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("arena %s (bot ABI %d.%d, protocol %d, replay format %d)\n", ja_version(),
               JA_BOT_ABI_MAJOR, JA_BOT_ABI_MINOR, JA_PROTOCOL, JA_REPLAY_FORMAT);
        return EXIT_OK;
    }
    if (strcmp(cmd, "games") == 0)
        return cmd_games(argc - 1, argv + 1);
    if (strcmp(cmd, "bots") == 0)
        return cmd_bots(argc - 1, argv + 1);
    if (strcmp(cmd, "play") == 0)
        return cmd_play(argc - 1, argv + 1);
    if (strcmp(cmd, "tournament") == 0)
        return cmd_tournament(argc - 1, argv + 1);
    if (strcmp(cmd, "ladder") == 0)
        return cmd_ladder(argc - 1, argv + 1);
    if (strcmp(cmd, "replay") == 0)
        return cmd_replay(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "conformance") == 0)
        return cmd_conformance(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    if (strcmp(cmd, "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    arena_error("unknown command '%s' (try 'arena --help')", cmd);
    return EXIT_USAGE;
}
