/* `arena replay verify|show|html|adjust`: re-simulate a replay under the
 * rules and print the digest of its game content; watch it in the terminal;
 * write its self-contained HTML page; take the luck out of its scores. The flags are parsed and checked here; the
 * work is replay_run.h's two steps, and only here are their errors printed
 * and the exit status chosen. */
#include "cli/cli.h"
#include "view/adjust.h"
#include "view/replay_run.h"

#include "jackarena/ja_error.h"

#include <getopt.h>
#include <string.h>

/* Room for a step's line: one that names the replay and tells why. */
#define ERR_MAX 8192

static const char HELP[] =
    "usage: arena replay verify FILE [--json]\n"
    "       arena replay show FILE [--seat S | --public]\n"
    "       arena replay html FILE -o OUT.html\n"
    "       arena replay adjust FILE... [--rollouts R] [--samples K]\n"
    "                               [--policy random|greedy|players]\n"
    "                               [--horizon deal|match] [--terms LIST]\n"
    "                               [--json]\n"
    "\n"
    "verify: "
    "Re-simulate every decision of a replay under its game's rules, check every\n"
    "action, the outcome and the recorded digest, and print the digest of the\n"
    "match's game content (the same seed and choices give the same digest on any\n"
    "machine). Exit status 0 when the replay verifies, 1 when it does not, 2 when\n"
    "the file is missing or not a readable replay.\n"
    "\n"
    "show: draw the match in the terminal (omniscient: every seat's cards), or\n"
    "only what seat S saw with --seat S, or with --public only what the table\n"
    "shows to everyone (no hand, no seat's records). Not on a terminal, the\n"
    "whole match is printed. On a terminal, one frame per screen, fitted to its\n"
    "size, and keys:\n"
    "  right l j enter / left h k backspace   next / previous frame\n"
    "  space             play or pause; + - faster or slower (0.25 s to 4 s)\n"
    "  v V               next / previous view: everything, public, each seat\n"
    "  0-9               seat N's view\n"
    "  g N enter         go to decision N (the everything view only)\n"
    "  < > Home End G    first / last frame;  n p  next / previous fault\n"
    "  up down           scroll a frame taller than the screen\n"
    "  ?                 the keys;  q  quit\n"
    "\n"
    "html: write one self-contained page (no network, no other file) that plays\n"
    "the match back in a browser, to OUT.html (written whole at the end; if it is\n"
    "there, it must be a regular file, not a link, FIFO or device) or, with -o -,\n"
    "to the standard output.\n"
    "\n"
    "adjust: the luck-adjusted score of each seat (AIVAT-style control variates,\n"
    "docs/ratings.md \"Luck-adjusted results\"): at the deal and at every\n"
    "decision that revealed a card no seat had seen, the value of the position\n"
    "reached minus its mean over K reshuffles of the unseen cards (K fresh deals\n"
    "for the deal), each value the mean score of R playouts (defaults R 8, K 4)\n"
    "by --policy: random (the default), greedy (the greedy bot's heuristic for\n"
    "every seat), players (each seat as its player if that is the random bot,\n"
    "else greedy), each to the end of the deal in play (--horizon deal, the\n"
    "default) or of the match. At every decision of a seat played by the random\n"
    "bot (its policy is known: uniform over the legal actions), the action term:\n"
    "the value after the action taken minus its mean over every legal action.\n"
    "--terms: the kinds taken, a comma list of deal, chance, action (all by\n"
    "default). Prints per seat the raw score, the adjusted score and the terms\n"
    "taken out, or with --json one object per file and line. The same replay\n"
    "always gives the same figures (every seed comes from its digest). Exit 0,\n"
    "or 2 at the first file that is missing, not a replay, does not verify, or\n"
    "whose game offers no chance interface.\n"
    "\n"
    "show and html refuse (exit 2) a replay that is missing, corrupt, truncated,\n"
    "of another format or rules version, or that does not re-simulate.\n";

/* The exit status of a replay command from its two steps' codes
 * (docs/architecture.md, "Errors"): a failure to prepare is the user's
 * (exit 2); a failure of the run is run_status. Prints the failing step's
 * line ("": none) and closes the replay. */
static int finish(arena_replay *c, int prepared, int ran, int run_status, const char *err)
{
    int status = prepared != JA_OK ? EXIT_USAGE
                 : ran != JA_OK    ? run_status
                                   : EXIT_OK;
    if (status != EXIT_OK && err[0])
        arena_error("%s", err);
    arena_replay_close(c);
    return status;
}

static int verify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'j') {
            json = true;
        } else if (c == 'h') {
            fputs(HELP, stdout);
            return EXIT_OK;
        } else {
            arena_error("replay verify: unknown option '%s'", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        arena_error("replay verify takes one FILE (usage: arena replay verify FILE [--json])");
        return EXIT_USAGE;
    }
    arena_replay rp;
    char err[ERR_MAX];
    int prepared = arena_replay_verify_prepare(&rp, argv[optind], err, sizeof err);
    int ran = prepared == JA_OK ? arena_replay_verify_run(&rp, stdout, json, err, sizeof err)
                                : JA_OK;
    return finish(&rp, prepared, ran, EXIT_RUNTIME, err);
}

static int show(int argc, char **argv)
{
    static const struct option opts[] = {{"seat", required_argument, NULL, 's'},
                                         {"public", no_argument, NULL, 'p'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0, 0, 0, 0}};
    const char *seat_arg = NULL;
    bool public_view = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 's') {
            seat_arg = optarg;
        } else if (c == 'p') {
            public_view = true;
        } else if (c == 'h') {
            fputs(HELP, stdout);
            return EXIT_OK;
        } else {
            arena_getopt_error("replay show", argv);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        arena_error("replay show takes one FILE (usage: arena replay show FILE "
                    "[--seat S | --public])");
        return EXIT_USAGE;
    }
    if (seat_arg && public_view) {
        arena_error("replay show: --public and --seat are two views; give one");
        return EXIT_USAGE;
    }
    uint32_t seat_u = 0;
    if (seat_arg && !arena_parse_u32(seat_arg, &seat_u)) {
        arena_error("replay show: --seat '%s' is not a seat number", seat_arg);
        return EXIT_USAGE;
    }
    arena_replay rp;
    char err[ERR_MAX];
    int prepared = arena_replay_show_prepare(&rp, argv[optind], seat_arg != NULL, seat_u,
                                             public_view, err, sizeof err);
    int ran = prepared == JA_OK ? arena_replay_show_run(&rp, stdout, err, sizeof err) : JA_OK;
    return finish(&rp, prepared, ran, EXIT_RUNTIME, err);
}

/* ---- html ------------------------------------------------------------------ */

static int html(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        if (c == 'o') {
            out = optarg;
        } else if (c == 'h') {
            fputs(HELP, stdout);
            return EXIT_OK;
        } else {
            arena_getopt_error("replay html", argv);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1 || !out || !*out) {
        arena_error("replay html takes one FILE and -o OUT.html (usage: arena replay html FILE -o OUT.html)");
        return EXIT_USAGE;
    }
    const arena_output o = {"-o", out, ARENA_OUT_STDOUT};
    if (!arena_outputs_check(&o, 1, NULL))
        return EXIT_USAGE;
    arena_replay rp;
    char err[ERR_MAX];
    int prepared = arena_replay_html_prepare(&rp, argv[optind], err, sizeof err);
    int ran = prepared == JA_OK ? arena_replay_html_run(&rp, out, err, sizeof err) : JA_OK;
    /* A page that cannot be written is refused as the output's (exit 2), as
     * replay html always has: -o passed arena_outputs_check above. */
    return finish(&rp, prepared, ran, EXIT_USAGE, err);
}

/* A word of replay adjust (--policy, --horizon) among the n names: its
 * index in *out; false after its error line. */
static bool parse_word(const char *flag, const char *word, const char *const *names, int n,
                       int *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(word, names[i]) == 0) {
            *out = i;
            return true;
        }
    char list[128] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "|" : "", names[i]);
    arena_error("replay adjust: %s '%s' is not one of %s", flag, word, list);
    return false;
}

/* --terms LIST: the kinds of term taken (comma-separated), into *skip the
 * others; false after its error line. */
static bool parse_terms(const char *list, unsigned *skip)
{
    unsigned take = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int k;
        if (!parse_word("--terms", w, ADJUST_TERM_NAMES, ADJUST_TERM_KINDS, &k))
            return false;
        take |= 1u << k;
    }
    if (!take || strlen(list) >= sizeof buf) {
        arena_error("replay adjust: --terms '%s' is not a list of deal, chance, action", list);
        return false;
    }
    *skip = ADJUST_TERMS_ALL & ~take;
    return true;
}

static int adjust(int argc, char **argv)
{
    static const struct option opts[] = {{"rollouts", required_argument, NULL, 'r'},
                                         {"samples", required_argument, NULL, 'k'},
                                         {"policy", required_argument, NULL, 'p'},
                                         {"horizon", required_argument, NULL, 'z'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"terms", required_argument, NULL, 't'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0, 0, 0, 0}};
    adjust_opts o = {.rollouts = ADJUST_ROLLOUTS, .samples = ADJUST_SAMPLES,
                     .policy = ADJUST_POLICY_RANDOM, .horizon = ADJUST_HORIZON_DEAL};
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        uint32_t *v = c == 'r' ? &o.rollouts : c == 'k' ? &o.samples : NULL;
        if (v && (!arena_parse_u32(optarg, v) || *v < 1 || *v > ADJUST_MAX)) {
            arena_error("replay adjust: --%s '%s' is not a count from 1 to %u",
                        c == 'r' ? "rollouts" : "samples", optarg, ADJUST_MAX);
            return EXIT_USAGE;
        } else if (c == 'p' || c == 'z') {
            if (!parse_word(c == 'p' ? "--policy" : "--horizon", optarg,
                            c == 'p' ? ADJUST_POLICY_NAMES : ADJUST_HORIZON_NAMES,
                            c == 'p' ? ADJUST_POLICIES : ADJUST_HORIZONS,
                            c == 'p' ? (int *)&o.policy : (int *)&o.horizon))
                return EXIT_USAGE;
        } else if (c == 'j') {
            json = true;
        } else if (c == 't') {
            if (!parse_terms(optarg, &o.skip))
                return EXIT_USAGE;
        } else if (c == 'h') {
            fputs(HELP, stdout);
            return EXIT_OK;
        } else if (!v) {
            arena_getopt_error("replay adjust", argv);
            return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        arena_error("replay adjust takes one FILE or more (usage: arena replay adjust FILE... "
                    "[--rollouts R] [--samples K] [--policy P] [--horizon H] [--terms LIST] "
                    "[--json])");
        return EXIT_USAGE;
    }
    for (int i = optind; i < argc; i++) {
        char err[ERR_MAX];
        if (adjust_file(stdout, argv[i], &o, json, err, sizeof err) != JA_OK) {
            arena_error("%s", err);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

int cmd_replay(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(HELP, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "verify") == 0)
        return verify(argc - 1, argv + 1);
    if (strcmp(argv[1], "show") == 0)
        return show(argc - 1, argv + 1);
    if (strcmp(argv[1], "html") == 0)
        return html(argc - 1, argv + 1);
    if (strcmp(argv[1], "adjust") == 0)
        return adjust(argc - 1, argv + 1);
    arena_error("unknown replay command '%s' (available: verify, show, html, adjust)", argv[1]);
    return EXIT_USAGE;
}
