/* `arena report [--db FILE] -o DIR [--tournament ID] [--game GAME] [--no-spoilers]`: a static
 * site for the ladders of a database (report_site.c writes it).
 * The flags are parsed and checked here; the report is arena_report_prepare
 * and arena_report_run (report.h), and only here are their errors printed
 * and the exit status chosen. */
#include "cli/cli.h"
#include "view/report.h"

#include "jackarena/ja_error.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char HELP[] =
    "usage: arena report [--db FILE] -o DIR [--tournament ID] [--game GAME]\n"
    "                    [--no-spoilers] [--adjusted]\n"
    "Write a static web site for the ladders of a database: DIR/index.html with,\n"
    "per ladder, the standings (Elo from the Bradley-Terry fit with its 95%\n"
    "interval, the live Elo, games, wins, score), the intervals drawn, a\n"
    "rating-over-time chart, a crosstable shaded by score rate, each bot's score\n"
    "histogram, fault counts by kind and the list of matches, each linked to its\n"
    "replay page in DIR/matches/ when its replay file (tournament --replays) can\n"
    "be read; and a page per bot in DIR/bots/ (its results against each\n"
    "opponent, its rating history, its matches). The pages use no network and no\n"
    "external file.\n"
    "\n"
    "  --db FILE         the ladder database (default arena.db)\n"
    "  -o, --output DIR  where to write the site; DIR must be missing, empty or an\n"
    "                    earlier report, which is then replaced as a whole (a\n"
    "                    directory itself, not a link to one)\n"
    "  --tournament ID   only this tournament (and its ladder)\n"
    "  --game GAME       only the ladders of this game\n"
    "  --no-spoilers     the match lists show no result (no score, place or\n"
    "                    length): only the bots and the \"watch\" link\n"
    "  --adjusted        the standings and each bot's page also show the\n"
    "                    luck-adjusted fit (each match's luck taken out from its\n"
    "                    replay), beside the official one; matches without a\n"
    "                    readable replay keep their raw result, counted under\n"
    "                    the table\n"
    "\n"
    "The site is built next to DIR and moved in place at the end: a failure\n"
    "leaves no half site. docs/viewer.md describes the report.\n";

/* Parses the flags into ro and *dir. True to go on; false to exit with
 * *status (after --help, or a usage error). */
static bool parse_flags(int argc, char **argv, report_opts *ro, const char **dir, int *status)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},         {"output", required_argument, NULL, 'o'},
        {"tournament", required_argument, NULL, 't'}, {"game", required_argument, NULL, 'g'},
        {"no-spoilers", no_argument, NULL, 's'},      {"help", no_argument, NULL, 'h'},
        {"adjusted", no_argument, NULL, 'a'},         {0, 0, 0, 0}};
    uint64_t tid = 0;
    int c;
    *status = EXIT_USAGE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'd': ro->db_path = optarg; break;
        case 'o': *dir = optarg; break;
        case 't':
            if (!arena_parse_u64(optarg, &tid) || tid == 0 || tid > INT64_MAX) {
                arena_error("--tournament needs a tournament id (a positive number), not '%s'",
                            optarg);
                return false;
            }
            break;
        case 'g': ro->game = optarg; break;
        case 's': ro->no_spoilers = true; break;
        case 'a': ro->adjusted = true; break;
        case 'h': fputs(HELP, stdout); *status = EXIT_OK; return false;
        default: arena_getopt_error("report", argv); return false;
        }
    }
    ro->tournament_id = (int64_t)tid;
    return true;
}

/* The report in its two steps (docs/architecture.md, "Errors"): a failure
 * to prepare is the user's (exit 2) unless it was the system's
 * (system_error: the database failing, memory); one of the run is exit 1. */
static int report(const report_opts *ro, const char *dir)
{
    arena_report rep;
    char err[8192];
    int status = EXIT_OK;
    if (arena_report_prepare(&rep, ro, dir, err, sizeof err) != JA_OK)
        status = rep.system_error ? EXIT_RUNTIME : EXIT_USAGE;
    else if (arena_report_run(&rep, stdout, err, sizeof err) != JA_OK)
        status = EXIT_RUNTIME;
    if (status != EXIT_OK)
        arena_error("%s", err);
    arena_report_close(&rep);
    return status;
}

int cmd_report(int argc, char **argv)
{
    report_opts ro = {"arena.db", NULL, 0, false, false};
    const char *dir = NULL;
    int status;
    if (!parse_flags(argc, argv, &ro, &dir, &status))
        return status;
    if (optind < argc) {
        arena_error("report: unexpected argument '%s' (usage: arena report [--db FILE] -o DIR)",
                    argv[optind]);
        return EXIT_USAGE;
    }
    if (dir == NULL) {
        arena_error("report: name the output directory with -o DIR");
        return EXIT_USAGE;
    }
    /* "site/" is "site": the temporary directory goes beside it. */
    char dirbuf[4096];
    if (snprintf(dirbuf, sizeof dirbuf, "%s", dir) >= (int)sizeof dirbuf) {
        arena_error("-o: the path is too long");
        return EXIT_USAGE;
    }
    for (size_t n = strlen(dirbuf); n > 1 && dirbuf[n - 1] == '/'; n--)
        dirbuf[n - 1] = '\0';
    if (ro.game && !arena_find_game(ro.game))
        return EXIT_USAGE;
    const arena_output outs[] = {{"--db", ro.db_path, ARENA_OUT_DB},
                                 {"-o", dirbuf, ARENA_OUT_DIR}};
    if (!arena_outputs_check(outs, 2, NULL))
        return EXIT_USAGE;
    return report(&ro, dirbuf);
}
