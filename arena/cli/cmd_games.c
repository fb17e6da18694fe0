/* `arena games` and `arena bots`: what this build can play and with whom. */
#include "cli/cli.h"

#include "jackarena/ja_error.h"

#include <getopt.h>
#include <string.h>

/* Parses the only flags of the listing commands, --json and --help. Returns
 * -1 to go on, or the exit status to return at once. */
static int parse_listing(int argc, char **argv, const char *help, bool *json)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        if (c == 'j') {
            *json = true;
        } else if (c == 'h') {
            fputs(help, stdout);
            return EXIT_OK;
        } else {
            arena_error("%s: unknown option '%s'", argv[0], argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        arena_error("%s: unexpected argument '%s'", argv[0], argv[optind]);
        return EXIT_USAGE;
    }
    return -1;
}

static int max_len(int w, const char *s)
{
    int n = (int)strlen(s);
    return n > w ? n : w;
}

/* Writes each allowed value of an ENUM option as a JSON string. */
static void json_values(json_w *w, const ja_option_spec *sp)
{
    jw_arr(w, "values");
    if (sp->kind == JA_OPT_ENUM) {
        const char *p = sp->values;
        while (p && *p) {
            const char *bar = strchr(p, '|');
            size_t len = bar ? (size_t)(bar - p) : strlen(p);
            char word[64];
            snprintf(word, sizeof word, "%.*s", (int)len, p);
            jw_str(w, NULL, word);
            p = bar ? bar + 1 : NULL;
        }
    }
    jw_arr_end(w);
}

int cmd_games(int argc, char **argv)
{
    bool json = false;
    int rc = parse_listing(argc, argv,
                           "usage: arena games [--json]\n"
                           "List the games this build plays: name, seat range, and each option\n"
                           "with its allowed values and default. Options are given to other\n"
                           "commands as --opt KEY=VALUE.\n",
                           &json);
    if (rc >= 0)
        return rc;
    if (json) {
        json_w w;
        jw_init(&w, stdout);
        jw_arr(&w, NULL);
        for (int i = 0; ja_games[i]; i++) {
            const ja_game_rules *g = ja_games[i];
            jw_obj(&w, NULL);
            jw_str(&w, "name", g->name);
            jw_str(&w, "title", g->title);
            jw_int(&w, "min_seats", g->min_seats);
            jw_int(&w, "max_seats", g->max_seats);
            jw_int(&w, "rules_version", g->rules_version);
            jw_int(&w, "obs_version", g->obs_version);
            jw_arr(&w, "options");
            for (int k = 0; g->options && g->options[k].name; k++) {
                const ja_option_spec *sp = &g->options[k];
                jw_obj(&w, NULL);
                jw_str(&w, "name", sp->name);
                jw_str(&w, "kind", sp->kind == JA_OPT_ENUM ? "enum" : "int");
                json_values(&w, sp);
                if (sp->kind == JA_OPT_INT) {
                    jw_int(&w, "min", sp->min);
                    jw_int(&w, "max", sp->max);
                }
                jw_str(&w, "default", sp->def);
                jw_str(&w, "help", sp->help);
                jw_obj_end(&w);
            }
            jw_arr_end(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_end(&w);
        return EXIT_OK;
    }
    /* Columns as wide as their longest entry in any game, so that every
     * option line lines up whatever the names' lengths. */
    int w_name = 0, w_allowed = 0, w_def = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; ja_games[i]; i++) {
            const ja_game_rules *g = ja_games[i];
            if (pass)
                printf("%s  (%s; %u-%u seats; rules version %u)\n", g->name, g->title,
                       (unsigned)g->min_seats, (unsigned)g->max_seats,
                       (unsigned)g->rules_version);
            for (int k = 0; g->options && g->options[k].name; k++) {
                const ja_option_spec *sp = &g->options[k];
                char allowed[160];
                if (sp->kind == JA_OPT_ENUM)
                    snprintf(allowed, sizeof allowed, "%s", sp->values);
                else
                    snprintf(allowed, sizeof allowed, "%d..%d", (int)sp->min, (int)sp->max);
                if (pass)
                    printf("  --opt %-*s  %-*s  default %-*s  %s\n", w_name, sp->name, w_allowed,
                           allowed, w_def, sp->def, sp->help);
                else {
                    w_name = max_len(w_name, sp->name);
                    w_allowed = max_len(w_allowed, allowed);
                    w_def = max_len(w_def, sp->def);
                }
            }
        }
    return EXIT_OK;
}

int cmd_bots(int argc, char **argv)
{
    bool json = false;
    int rc = parse_listing(argc, argv,
                           "usage: arena bots [--json]\n"
                           "List the reference bots shipped with this build and the games each\n"
                           "plays. Any other bot is named by a path (./mybot.so) or a prefix\n"
                           "(hosted:, cmd:, zmq:); see 'arena play --help'.\n",
                           &json);
    if (rc >= 0)
        return rc;
    static const char *const words[] = {"random", "greedy", "ismcts"};
    json_w w;
    if (json) {
        jw_init(&w, stdout);
        jw_arr(&w, NULL);
    }
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        char path[4200], err[1200];
        snprintf(path, sizeof path, "%s/ja_%s.so", arena_bots_dir(), words[i]);
        ref_bot *b = NULL;
        if (ref_bot_plugin_open(path, NULL, &b, err, sizeof err) != JA_OK)
            continue; /* not built yet */
        const ref_bot_info *bi = ref_bot_get_info(b);
        if (json) {
            jw_obj(&w, NULL);
            jw_str(&w, "name", words[i]);
            jw_str(&w, "kind", "plugin");
            jw_str(&w, "version", bi->version);
            jw_str(&w, "path", path);
            jw_str(&w, "sha256", bi->sha256);
            jw_arr(&w, "games");
        } else {
            printf("%-8s version %-6s plays:", words[i], bi->version);
        }
        for (int k = 0; ja_games[k]; k++)
            if (ref_bot_supports(b, ja_games[k])) {
                if (json)
                    jw_str(&w, NULL, ja_games[k]->name);
                else
                    printf(" %s", ja_games[k]->name);
            }
        if (json) {
            jw_arr_end(&w);
            jw_obj_end(&w);
        } else {
            putchar('\n');
        }
        ref_bot_destroy(&b);
    }
    if (json) {
        jw_arr_end(&w);
        jw_end(&w);
    }
    return EXIT_OK;
}
