/* `arena ladder GAME`: the live Elo ladder of a game, seat count and option
 * set, from the database. */
#include "cli.h"

#include "jackarena/ja_error.h"
#include "ladder.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char HELP[] =
    "usage: arena ladder GAME [--opt KEY=VALUE]... [--seats K] [--db FILE] [--json]\n"
    "Show the live Elo ladder of GAME. A ladder is one game, one seat count and one\n"
    "full option set (defaults filled in): options not given take their defaults,\n"
    "so '--opt games=4' shows the ladder of matches played with games=4.\n"
    "\n"
    "  --opt KEY=VALUE   select the option set; repeatable\n"
    "  --seats K         select the seat count (needed when several match)\n"
    "  --db FILE         the ladder database (default arena.db)\n"
    "  --json            print one JSON document\n"
    "\n"
    "Live Elo depends on the order matches finished and is for display; official\n"
    "ratings with confidence intervals come from a fit over all results (--fit,\n"
    "in a coming release).\n";

int cmd_ladder(int argc, char **argv)
{
    static const struct option opts[] = {
        {"opt", required_argument, NULL, 'o'}, {"seats", required_argument, NULL, 'k'},
        {"db", required_argument, NULL, 'd'},  {"json", no_argument, NULL, 'J'},
        {"fit", no_argument, NULL, 'f'},       {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    arena_common co = {0};
    int c, k;
    const char *db_path = "arena.db";
    uint32_t seats = 0;
    bool json = false;
    if (argc >= 2 && (strcmp(argv[1], "import") == 0 || strcmp(argv[1], "export") == 0)) {
        arena_error("ladder %s is not in this build yet", argv[1]);
        return EXIT_USAGE;
    }
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
            if (!arena_parse_u32(optarg, &seats) || !seats) {
                arena_error("--seats needs a positive number, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'd': db_path = optarg; break;
        case 'J': json = true; break;
        case 'f':
            arena_error("ladder --fit (Bradley-Terry ratings with intervals) is not in this build "
                        "yet; the live ladder is shown without --fit");
            return EXIT_USAGE;
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
    const ja_game_rules *g = arena_find_game(argv[optind]);
    if (!g)
        return EXIT_USAGE;
    char err[1024];
    ja_options given;
    ja_options_init(g, &given);
    for (int i = 0; i < co.n_opt; i++)
        if (ja_options_set(g, &given, co.opt_kv[i], err, sizeof err) != JA_OK) {
            arena_error("%s", err);
            return EXIT_USAGE;
        }
    if (seats && (seats < g->min_seats || seats > g->max_seats)) {
        arena_error("--seats %u: %s is played by %u to %u seats", seats, g->name,
                    (unsigned)g->min_seats, (unsigned)g->max_seats);
        return EXIT_USAGE;
    }
    struct stat sb;
    if (stat(db_path, &sb) != 0) {
        arena_error("no ladder database '%s' (play a tournament first, or give --db)", db_path);
        return EXIT_USAGE;
    }
    ladder_db *db = NULL;
    int rc = ladder_db_open(db_path, &db), status = EXIT_RUNTIME;
    ladder_summary *ls = NULL;
    ladder_rating *rt = NULL;
    if (rc != JA_OK) {
        arena_error("%s", db ? ladder_db_errmsg(db) : ja_strerror(rc));
        status = (rc == JA_EIO || rc == JA_EVERSION || rc == JA_EFORMAT) ? EXIT_USAGE : EXIT_RUNTIME;
        goto out;
    }
    uint32_t n_ls = 0;
    if ((rc = ladder_db_ladders(db, g->name, &ls, &n_ls)) != JA_OK) {
        arena_error("%s", ladder_db_errmsg(db));
        goto out;
    }
    /* The ladders whose option set equals the one asked for at their seat
     * count (defaults depend on the seat count). */
    int match = -1, n_match = 0;
    char seat_list[256] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < n_ls; i++) {
        if (seats && ls[i].n_seats != seats)
            continue;
        ja_options o = given;
        char text[LADDER_OPTIONS_MAX];
        if (ja_options_resolve(g, &o, ls[i].n_seats, err, sizeof err) != JA_OK ||
            ja_options_format(g, &o, text, sizeof text) < 0 || strcmp(text, ls[i].options) != 0)
            continue;
        match = (int)i;
        n_match++;
        used += (size_t)snprintf(seat_list + used, used < sizeof seat_list ? sizeof seat_list - used : 0,
                                 "%s%u", n_match > 1 ? ", " : "", ls[i].n_seats);
    }
    if (n_match > 1) {
        arena_error("%s has ladders with these options for %s seats: choose one with --seats",
                    g->name, seat_list);
        status = EXIT_USAGE;
        goto out;
    }
    uint32_t n_rt = 0;
    char opts_text[LADDER_OPTIONS_MAX] = "";
    uint32_t lseats = seats;
    if (match >= 0) {
        ladder_key key = {g->name, ls[match].n_seats, ls[match].options};
        if ((rc = ladder_db_ratings(db, &key, &rt, &n_rt)) != JA_OK) {
            arena_error("%s", ladder_db_errmsg(db));
            goto out;
        }
        snprintf(opts_text, sizeof opts_text, "%s", ls[match].options);
        lseats = ls[match].n_seats;
    } else if (seats) {
        ja_options o = given;
        if (ja_options_resolve(g, &o, seats, err, sizeof err) == JA_OK)
            ja_options_format(g, &o, opts_text, sizeof opts_text);
    }
    if (json) {
        json_w w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "game", g->name);
        if (lseats)
            jw_int(&w, "seats", lseats);
        else
            jw_null(&w, "seats");
        jw_obj(&w, "options");
        char buf[LADDER_OPTIONS_MAX], *save = NULL;
        snprintf(buf, sizeof buf, "%s", opts_text);
        for (char *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
            char *eq = strchr(kv, '=');
            if (eq) {
                *eq = '\0';
                jw_str(&w, kv, eq + 1);
            }
        }
        jw_obj_end(&w);
        jw_arr(&w, "ratings");
        for (uint32_t i = 0; i < n_rt; i++) {
            jw_obj(&w, NULL);
            jw_str(&w, "bot", rt[i].bot);
            jw_str(&w, "version", rt[i].version);
            jw_int(&w, "games", rt[i].games);
            jw_num(&w, "elo", rt[i].elo);
            jw_null(&w, "elo_ci95");
            jw_int(&w, "wins", rt[i].wins);
            jw_int(&w, "draws", rt[i].draws);
            jw_int(&w, "losses", rt[i].losses);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
        jw_end(&w);
    } else if (match < 0) {
        printf("no results yet for %s with these options in %s\n", g->name, db_path);
    } else {
        printf("%s, %u seats, live Elo (display only)\noptions: %s\n\n", g->name, lseats,
               opts_text);
        printf("   #  %-20s %-8s %6s %7s   %s\n", "bot", "version", "games", "elo",
               "pairwise w-d-l");
        for (uint32_t i = 0; i < n_rt; i++)
            printf("  %2u  %-20s %-8s %6lld %7.0f   %lld-%lld-%lld\n", i + 1, rt[i].bot,
                   rt[i].version, (long long)rt[i].games, rt[i].elo, (long long)rt[i].wins,
                   (long long)rt[i].draws, (long long)rt[i].losses);
    }
    status = EXIT_OK;
out:
    free(rt);
    free(ls);
    ladder_db_close(&db);
    return status;
}
