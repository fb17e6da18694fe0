/* `arena ladder`: a game's ladder from the database.
 *
 *   arena ladder GAME [--fit]       the live Elo ladder, or the official
 *                                   Bradley-Terry ratings with intervals,
 *                                   bots named by ladders/names.h
 *   arena ladder export GAME (--pgn | --jsonl)
 *   arena ladder import FILE [--game GAME]
 *
 * A thin shell over ladders/: fit.h does the statistics, interop.h the file
 * formats, ladder_db.h the store (docs/ratings.md, docs/database.md). */
#include "cli.h"
#include "merge.h"
#include "outfile.h"
#include "scale.h"

#include "fit.h"
#include "interop.h"
#include "jackarena/ja_error.h"
#include "ladder.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char HELP[] =
    "usage: arena ladder GAME [--opt KEY=VALUE]... [--seats K] [--db FILE]\n"
    "                         [--fit [--anchor BOT[=ELO]]] [--json]\n"
    "       arena ladder export GAME (--pgn | --jsonl) [--opt KEY=VALUE]... [--seats K]\n"
    "                           [--db FILE] [-o|--output FILE]\n"
    "       arena ladder import FILE [--game GAME] [--db FILE] [--json]\n"
    "       (FILE may be another arena database, e.g. a --shard's: merged)\n"
    "Show the ladder of GAME. A ladder is one game, one seat count and one full\n"
    "option set (defaults filled in): options not given take their defaults, so\n"
    "'--opt games=4' shows the ladder of matches played with games=4.\n"
    "\n"
    "  --opt KEY=VALUE   select the option set; repeatable\n"
    "  --seats K         select the seat count (needed when several match)\n"
    "  --db FILE         the ladder database (default arena.db; a regular file,\n"
    "                    not a link)\n"
    "  --fit             official ratings: a Bradley-Terry fit over all results,\n"
    "                    with 95% intervals and the likelihood of superiority\n"
    "  --anchor BOT[=ELO] with --fit: fix BOT's rating at ELO (default 1500)\n"
    "                    instead of the mean of the rated bots; BOT as the table\n"
    "                    prints it (a name that fits several bots is refused)\n"
    "  --json            print one JSON document\n"
    "\n"
    "A bot is shown by its name; where two entries of the ladder share it, by\n"
    "name@version; where they share that too (a plugin rebuilt: a new entry),\n"
    "by name@version~ and the first 8 hex digits of the file's SHA-256 (#ID, the\n"
    "database id, for a bot without one). docs/database.md has the rule.\n"
    "\n"
    "Without --fit the live Elo is shown: it depends on the order matches\n"
    "finished and is for display. docs/ratings.md explains the fit.\n"
    "\n"
    "export writes the ladder's results to standard output (or -o FILE, written\n"
    "whole at the end; FILE, if there, must be a regular file): --pgn as\n"
    "two-player games (multiplayer matches as their pairs) that Ordo and BayesElo\n"
    "read, --jsonl as one match per line. import reads either back (PGN games go to\n"
    "the two-seat ladder of --game, or of their [Game] tag, with the game's default\n"
    "options unless an [Options] tag says otherwise), all of a file or nothing.\n";

/* Exit status for a ladder database error: the file given is unusable (2)
 * or the run failed (1). */
static int db_exit(int rc)
{
    return (rc == JA_EIO || rc == JA_EVERSION || rc == JA_EFORMAT) ? EXIT_USAGE : EXIT_RUNTIME;
}

/* --seats K of the ladder commands: 1 to JA_MAX_SEATS. */
static bool parse_seats(const char *arg, uint32_t *out)
{
    if (!arena_parse_u32(arg, out) || *out == 0 || *out > JA_MAX_SEATS) {
        arena_error("--seats needs a number from 1 to %d, not '%s'", JA_MAX_SEATS, arg);
        return false;
    }
    return true;
}

/* Opens the database; prints the error and returns the exit status, or
 * EXIT_OK. With must_exist, a missing file is a usage error (as is a --db
 * that is there and not a regular file: arena_db_check). */
static int open_db(const char *path, bool must_exist, ladder_db **db)
{
    if (!arena_db_check(path))
        return EXIT_USAGE;
    struct stat sb;
    if (must_exist && stat(path, &sb) != 0) {
        arena_error("no ladder database '%s' (play a tournament first, or give --db)", path);
        return EXIT_USAGE;
    }
    int rc = ladder_db_open(path, db);
    if (rc != JA_OK) {
        arena_error("%s", *db ? ladder_db_errmsg(*db) : ja_strerror(rc));
        return db_exit(rc);
    }
    return EXIT_OK;
}

/* The ladder of g asked for by the --opt settings `given` and --seats
 * (0: any): its seat count and option text into *seats and opts. *found is
 * false when no ladder has results yet (seats and opts then describe the
 * one asked for, as far as known). Prints usage errors (several seat
 * counts) and database errors; returns the exit status or EXIT_OK. */
static int select_ladder(ladder_db *db, const ja_game_rules *g, const ja_options *given,
                         uint32_t want_seats, uint32_t *seats, char opts[LADDER_OPTIONS_MAX],
                         bool *found)
{
    ladder_summary *ls = NULL;
    uint32_t n_ls = 0;
    int rc = ladder_db_ladders(db, g->name, &ls, &n_ls);
    if (rc != JA_OK) {
        arena_error("%s", ladder_db_errmsg(db));
        return EXIT_RUNTIME;
    }
    /* The ladders whose option set equals the one asked for at their seat
     * count (defaults depend on the seat count). */
    char err[1024], seat_list[256] = "";
    int match = -1, n_match = 0;
    size_t used = 0;
    for (uint32_t i = 0; i < n_ls; i++) {
        if (want_seats && ls[i].n_seats != want_seats)
            continue;
        ja_options o = *given;
        char text[LADDER_OPTIONS_MAX];
        if (ja_options_resolve(g, &o, ls[i].n_seats, err, sizeof err) != JA_OK ||
            ja_options_format(g, &o, text, sizeof text) < 0 || strcmp(text, ls[i].options) != 0)
            continue;
        match = (int)i;
        n_match++;
        used += (size_t)snprintf(seat_list + used,
                                 used < sizeof seat_list ? sizeof seat_list - used : 0, "%s%u",
                                 n_match > 1 ? ", " : "", ls[i].n_seats);
    }
    int status = EXIT_OK;
    *found = match >= 0 && n_match == 1;
    *seats = want_seats;
    opts[0] = '\0';
    if (n_match > 1) {
        arena_error("%s has ladders with these options for %s seats: choose one with --seats",
                    g->name, seat_list);
        status = EXIT_USAGE;
    } else if (match >= 0) {
        *seats = ls[match].n_seats;
        snprintf(opts, LADDER_OPTIONS_MAX, "%s", ls[match].options);
    } else if (want_seats) {
        ja_options o = *given;
        if (ja_options_resolve(g, &o, want_seats, err, sizeof err) == JA_OK)
            ja_options_format(g, &o, opts, LADDER_OPTIONS_MAX);
    }
    free(ls);
    return status;
}

/* Writes the option text "k=v k=v" as a JSON object member "options". */
static void jw_options(json_w *w, const char *text)
{
    jw_obj(w, "options");
    char buf[LADDER_OPTIONS_MAX], *save = NULL;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            jw_str(w, kv, eq + 1);
        }
    }
    jw_obj_end(w);
}

/* A number, or null when it is not finite. */
static void jw_finite(json_w *w, const char *key, double v)
{
    if (isfinite(v))
        jw_num(w, key, v);
    else
        jw_null(w, key);
}

/* A bot's identity as JSON members: "bot" (its stored name), "version",
 * "sha256" (null when it has none) and "display_name", the name the tables
 * print (ladders/names.h). */
static void jw_identity(json_w *w, const ladder_bot_row *b, const char *display)
{
    jw_str(w, "bot", b->name);
    jw_str(w, "version", b->version);
    if (b->sha256[0])
        jw_str(w, "sha256", b->sha256);
    else
        jw_null(w, "sha256");
    jw_str(w, "display_name", display);
}

/* The bots with results in a ladder (by id) and their display names into
 * *bots, *names (both owned: free()) and *n. Prints the error; returns the
 * exit status or EXIT_OK. */
static int ladder_names(ladder_db *db, const ladder_key *key, ladder_bot_row **bots,
                        ladder_display_name **names, uint32_t *n)
{
    *names = NULL;
    if (ladder_db_ladder_bots(db, key, bots, n) != JA_OK) {
        arena_error("%s", ladder_db_errmsg(db));
        return EXIT_RUNTIME;
    }
    if (ladder_display_names(*bots, *n, names) != JA_OK) {
        arena_error("out of memory");
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* ---- The live ladder -------------------------------------------------------- */

/* Faults of bot_id in the ladder by kind; zeros without a database or on
 * error. Returns the total. */
static uint64_t bot_faults(ladder_db *db, const ja_game_rules *g, uint32_t seats,
                           const char *opts, int64_t bot_id, uint64_t out[JA_FAULT_COUNT])
{
    memset(out, 0, sizeof(uint64_t) * JA_FAULT_COUNT);
    ladder_key key = {g->name, seats, opts};
    if (!db || ladder_db_bot_faults(db, &key, bot_id, out) != JA_OK)
        memset(out, 0, sizeof(uint64_t) * JA_FAULT_COUNT);
    uint64_t total = 0;
    for (int f = 1; f < JA_FAULT_COUNT; f++)
        total += out[f];
    return total;
}

/* The live ladder rt[0..n_rt-1], its bots named by names (over bots, the
 * ladder's bots by id). */
static void print_live(ladder_db *db, const ja_game_rules *g, uint32_t seats, const char *opts,
                       bool found, const ladder_rating *rt, uint32_t n_rt,
                       const ladder_bot_row *bots, const ladder_display_name *names,
                       uint32_t n_bots, bool json, const char *db_path)
{
    uint64_t fk[JA_FAULT_COUNT];
    /* Row i's bot and display name. The bots are read after the ratings,
     * so each rated bot is among them; should one not be, it shows its
     * stored name. */
    const ladder_bot_row **rb = calloc(n_rt ? n_rt : 1, sizeof *rb);
    const char **nm = calloc(n_rt ? n_rt : 1, sizeof *nm);
    if (rb == NULL || nm == NULL) {
        arena_error("out of memory");
        free(rb);
        free(nm);
        return;
    }
    for (uint32_t i = 0; i < n_rt; i++) {
        int b = ladder_bot_index(bots, n_bots, rt[i].bot_id);
        rb[i] = b >= 0 ? &bots[b] : NULL;
        nm[i] = b >= 0 ? names[b] : rt[i].bot;
    }
    if (json) {
        json_w w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "game", g->name);
        if (seats)
            jw_int(&w, "seats", seats);
        else
            jw_null(&w, "seats");
        jw_options(&w, opts);
        jw_arr(&w, "ratings");
        for (uint32_t i = 0; i < n_rt; i++) {
            jw_obj(&w, NULL);
            ladder_bot_row unlisted = {.id = rt[i].bot_id};
            if (rb[i] == NULL) {
                snprintf(unlisted.name, sizeof unlisted.name, "%s", rt[i].bot);
                snprintf(unlisted.version, sizeof unlisted.version, "%s", rt[i].version);
            }
            jw_identity(&w, rb[i] ? rb[i] : &unlisted, nm[i]);
            jw_int(&w, "games", rt[i].games);
            jw_num(&w, "elo", rt[i].elo);
            jw_null(&w, "elo_ci95");
            jw_int(&w, "wins", rt[i].wins);
            jw_int(&w, "draws", rt[i].draws);
            jw_int(&w, "losses", rt[i].losses);
            jw_int(&w, "faults", (long long)bot_faults(db, g, seats, opts, rt[i].bot_id, fk));
            jw_obj(&w, "fault_kinds");
            for (int f = 1; f < JA_FAULT_COUNT; f++)
                if (fk[f])
                    jw_int(&w, ja_fault_name(f), (long long)fk[f]);
            jw_obj_end(&w);
            jw_int(&w, "forfeits", (long long)fk[JA_FAULT_FORFEIT]);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
        jw_end(&w);
    } else if (!found) {
        printf("no results yet for %s with these options in %s\n", g->name, db_path);
    } else {
        printf("%s, %u seats, live Elo (display only; --fit for official ratings)\n"
               "options: %s\n\n",
               g->name, seats, opts);
        printf("   #  %-20s %-8s %6s %7s   %-14s %7s\n", "bot", "version", "games", "elo",
               "pairwise w-d-l", "faults");
        for (uint32_t i = 0; i < n_rt; i++) {
            char wdl[64];
            snprintf(wdl, sizeof wdl, "%lld-%lld-%lld", (long long)rt[i].wins,
                     (long long)rt[i].draws, (long long)rt[i].losses);
            printf("  %2u  %-20s %-8s %6lld %7.0f   %-14s %7llu\n", i + 1, nm[i],
                   rt[i].version, (long long)rt[i].games, rt[i].elo, wdl,
                   (unsigned long long)bot_faults(db, g, seats, opts, rt[i].bot_id, fk));
        }
        /* Faults by kind, for the bots that made any. */
        for (uint32_t i = 0; i < n_rt; i++) {
            if (!bot_faults(db, g, seats, opts, rt[i].bot_id, fk))
                continue;
            printf("  faults of %s:", nm[i]);
            for (int f = 1; f < JA_FAULT_COUNT; f++)
                if (fk[f])
                    printf(" %s %llu", ja_fault_name(f), (unsigned long long)fk[f]);
            putchar('\n');
        }
    }
    free(rb);
    free(nm);
}

/* ---- The fit ------------------------------------------------------------------ */

/* What the fit reads from the database. */
typedef struct fit_input {
    ladder_bot_row *bots; /* by id: player i is bots[i] */
    uint32_t n_bots;
    ladder_fit_match *m;
    size_t n, cap;
    uint64_t matches;
    uint64_t replayed; /* matches dealt a deal an earlier tournament played */
} fit_input;

static int collect_match(void *ctx, const ladder_match_row *row)
{
    fit_input *in = ctx;
    if (in->n == in->cap) {
        size_t c = in->cap ? in->cap * 2 : 1024;
        ladder_fit_match *p = realloc(in->m, c * sizeof *p);
        if (p == NULL)
            return JA_ENOMEM;
        in->m = p;
        in->cap = c;
    }
    ladder_fit_match *m = &in->m[in->n];
    memset(m, 0, sizeof *m);
    m->cluster = row->deal;
    m->n_seats = row->n_seats;
    for (uint32_t s = 0; s < row->n_seats; s++) {
        int p = ladder_bot_index(in->bots, in->n_bots, row->bot_id[s]);
        if (p < 0)
            return JA_EFORMAT; /* a result whose bot the ladder does not list */
        m->player[s] = (uint32_t)p;
        m->place[s] = row->place[s];
    }
    in->n++;
    in->matches++;
    in->replayed += row->deal_tournament != row->tournament_id;
    return JA_OK;
}

/* The live Elo of a bot, NAN when it has none. */
static double live_elo(const ladder_rating *rt, uint32_t n_rt, int64_t bot_id)
{
    for (uint32_t i = 0; i < n_rt; i++)
        if (rt[i].bot_id == bot_id)
            return rt[i].elo;
    return NAN;
}

/* A count of the fit: whole unless replays of a deal differed (then to
 * one decimal). */
static void count_text(double v, char *buf, size_t cap)
{
    if (v == floor(v))
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.1f", v);
}

/* How the text names part pi: "group G" when it is its group's only part,
 * else "part P", "of group G" added when there are several groups. */
static void part_label(const ladder_fit *f, uint32_t pi, char *buf, size_t cap)
{
    const ladder_fit_part *pt = &f->parts[pi];
    if (f->groups[pt->group].parts == 1)
        snprintf(buf, cap, "group %u", pt->group + 1);
    else if (f->n_groups == 1)
        snprintf(buf, cap, "part %u", pt->number);
    else
        snprintf(buf, cap, "part %u of group %u", pt->number, pt->group + 1);
}

static void json_fit(const ja_game_rules *g, uint32_t seats, const char *opts,
                     const fit_input *in, const ladder_display_name *names, const ladder_fit *f,
                     const ladder_fit_opts *fo, const char *anchor_name, const ladder_rating *rt,
                     uint32_t n_rt)
{
    json_w w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "game", g->name);
    jw_int(&w, "seats", seats);
    jw_options(&w, opts);
    jw_str(&w, "method", "bradley-terry");
    /* The anchor bot fixes its own part; every other part's mean is
     * mean_elo. */
    jw_obj(&w, "anchor");
    if (anchor_name) {
        const ladder_fit_player *ap = &f->players[fo->anchor_player];
        jw_num(&w, "elo", fo->anchor_elo);
        jw_str(&w, "bot", anchor_name);
        jw_int(&w, "group", ap->group + 1);
        jw_int(&w, "part", f->parts[ap->part].number);
    } else {
        jw_num(&w, "elo", fo->mean_elo);
        jw_null(&w, "bot");
        jw_null(&w, "group");
        jw_null(&w, "part");
    }
    jw_num(&w, "mean_elo", fo->mean_elo);
    jw_obj_end(&w);
    jw_int(&w, "matches", (long long)in->matches);
    jw_int(&w, "clusters", (long long)f->clusters);
    jw_obj(&w, "replays");
    jw_int(&w, "matches", (long long)in->replayed);
    jw_int(&w, "merged", (long long)f->replays);
    jw_obj_end(&w);
    jw_str(&w, "covariance", f->model_fallback ? "model" : "sandwich");
    jw_int(&w, "groups", f->n_groups);
    jw_arr(&w, "parts");
    for (uint32_t pi = 0; pi < f->n_parts; pi++) {
        const ladder_fit_part *pt = &f->parts[pi];
        jw_obj(&w, NULL);
        jw_int(&w, "group", pt->group + 1);
        jw_int(&w, "part", pt->number);
        jw_str(&w, "relation", ladder_fit_relation_name(pt->relation));
        jw_int(&w, "bots", pt->rated);
        jw_str(&w, "anchor", pt->anchored ? "bot" : "mean");
        jw_num(&w, "anchor_elo", pt->anchored ? fo->anchor_elo : fo->mean_elo);
        jw_int(&w, "matches", (long long)pt->matches);
        jw_int(&w, "clusters", (long long)pt->clusters);
        jw_str(&w, "covariance", pt->model_fallback ? "model" : "sandwich");
        jw_bool(&w, "converged", pt->converged);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_arr(&w, "ratings");
    for (uint32_t i = 0; i < f->n_players; i++) {
        uint32_t p = f->order[i];
        const ladder_fit_player *pl = &f->players[p];
        bool rated = pl->status == LADDER_FIT_RATED;
        jw_obj(&w, NULL);
        jw_identity(&w, &in->bots[p], names[p]);
        jw_num(&w, "games", pl->games);
        jw_int(&w, "played", (long long)pl->matches);
        jw_finite(&w, "elo", pl->elo);
        if (rated && isfinite(pl->ci_lo) && isfinite(pl->ci_hi)) {
            jw_arr(&w, "elo_ci95");
            jw_num(&w, NULL, pl->ci_lo);
            jw_num(&w, NULL, pl->ci_hi);
            jw_arr_end(&w);
        } else {
            jw_null(&w, "elo_ci95");
        }
        jw_finite(&w, "se", pl->se);
        jw_finite(&w, "los_next", pl->los_next);
        jw_str(&w, "status", ladder_fit_status_name(pl->status));
        jw_int(&w, "group", pl->group + 1);
        if (rated)
            jw_int(&w, "part", f->parts[pl->part].number);
        else
            jw_null(&w, "part");
        jw_finite(&w, "score", pl->score);
        jw_num(&w, "wins", pl->wins);
        jw_num(&w, "draws", pl->draws);
        jw_num(&w, "losses", pl->losses);
        jw_finite(&w, "live_elo", live_elo(rt, n_rt, in->bots[p].id));
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_obj_end(&w);
    jw_end(&w);
}

/* The anchor line of the text. */
static void print_anchor(const ladder_fit *f, const ladder_fit_opts *fo, const char *anchor_name)
{
    const char *unit = ladder_fit_several_parts(f) ? "part" : "group";
    bool several = f->n_parts > 1;
    if (anchor_name && several) {
        char where[64];
        part_label(f, f->players[fo->anchor_player].part, where, sizeof where);
        printf("anchor: %s = %.0f in %s; in every other %s, the mean of its rated bots = %.0f\n",
               anchor_name, fo->anchor_elo, where, unit, fo->mean_elo);
    } else if (anchor_name) {
        printf("anchor: %s = %.0f\n", anchor_name, fo->anchor_elo);
    } else {
        printf("anchor: the mean of the rated bots%s%s = %.0f\n", several ? " of each " : "",
               several ? unit : "", fo->mean_elo);
    }
}

static void print_fit(const ja_game_rules *g, uint32_t seats, const char *opts,
                      const fit_input *in, const ladder_display_name *names, const ladder_fit *f,
                      const ladder_fit_opts *fo, const char *anchor_name, const ladder_rating *rt,
                      uint32_t n_rt, bool json)
{
    if (json) {
        json_fit(g, seats, opts, in, names, f, fo, anchor_name, rt, n_rt);
        return;
    }
    bool parts = ladder_fit_several_parts(f);
    printf("%s, %u seats: official ratings (Bradley-Terry fit of %llu matches", g->name, seats,
           (unsigned long long)in->matches);
    if (f->clusters)
        printf("; 95%% intervals from %llu independent deals", (unsigned long long)f->clusters);
    if (f->model_fallback && f->n_parts == 1)
        printf("; the clustered covariance was singular (too few or too uniform deals), so "
               "the intervals are the model's");
    printf(")\noptions: %s\n", opts);
    if (in->replayed || f->replays) {
        printf("replays: %llu match%s dealt deals that an earlier tournament of this ladder had "
               "played (the same seeds), clustered with them; %llu repeated a match with the "
               "same bots in the same seats and count%s once with it (their mean)\n",
               (unsigned long long)in->replayed, in->replayed == 1 ? " was" : "es were",
               (unsigned long long)f->replays, f->replays == 1 ? "s" : "");
    }
    print_anchor(f, fo, anchor_name);
    uint32_t group = UINT32_MAX;
    int rank = 0;
    for (uint32_t i = 0; i < f->n_players; i++) {
        uint32_t p = f->order[i];
        const ladder_fit_player *pl = &f->players[p];
        if (pl->group != group) {
            group = pl->group;
            const ladder_fit_group *gr = &f->groups[group];
            if (f->n_groups > 1)
                printf("\ngroup %u of %u (%u bots; never met the other groups: ratings are "
                       "comparable only within a group)\n",
                       group + 1, f->n_groups, gr->players);
            putchar('\n');
            printf("   #  %-20s %-8s %6s %8s  %-17s %8s %7s  %-16s%s\n", "bot", "version",
                   "games", "elo", "95% interval", "LOS>next", "score", "pairwise w-d-l",
                   parts ? " part" : "");
            rank = 0;
        }
        char elo[24], ci[40], los[16], score[16];
        switch (pl->status) {
        case LADDER_FIT_RATED:
            snprintf(elo, sizeof elo, "%.0f", pl->elo);
            if (isfinite(pl->ci_lo))
                snprintf(ci, sizeof ci, "[%.0f, %.0f]", pl->ci_lo, pl->ci_hi);
            else
                snprintf(ci, sizeof ci, "-");
            break;
        case LADDER_FIT_PERFECT:
            snprintf(elo, sizeof elo, "above");
            snprintf(ci, sizeof ci, "unbounded");
            break;
        case LADDER_FIT_ZERO:
            snprintf(elo, sizeof elo, "below");
            snprintf(ci, sizeof ci, "unbounded");
            break;
        default:
            snprintf(elo, sizeof elo, "-");
            snprintf(ci, sizeof ci, "-");
        }
        if (isfinite(pl->los_next))
            snprintf(los, sizeof los, "%.1f%%", 100.0 * pl->los_next);
        else
            snprintf(los, sizeof los, "-");
        if (isfinite(pl->score))
            snprintf(score, sizeof score, "%.3f", pl->score);
        else
            snprintf(score, sizeof score, "-");
        char games[24], wdl[80], c[3][24], part[16] = "";
        count_text(pl->games, games, sizeof games);
        count_text(pl->wins, c[0], sizeof c[0]);
        count_text(pl->draws, c[1], sizeof c[1]);
        count_text(pl->losses, c[2], sizeof c[2]);
        snprintf(wdl, sizeof wdl, "%s-%s-%s", c[0], c[1], c[2]);
        if (parts && pl->status == LADDER_FIT_RATED)
            snprintf(part, sizeof part, " %4u", f->parts[pl->part].number);
        else if (parts)
            snprintf(part, sizeof part, " %4s", "-");
        printf("  %2d  %-20s %-8s %6s %8s  %-17s %8s %7s  %-16s%s\n", ++rank, names[p],
               in->bots[p].version, games, elo, ci, los, score, wdl, part);
    }
    /* Say in words what the table cannot. */
    bool said = false;
    for (uint32_t i = 0; i < f->n_players; i++) {
        uint32_t p = f->order[i];
        const ladder_fit_player *pl = &f->players[p];
        const ladder_fit_group *gr = &f->groups[pl->group];
        const char *why = NULL;
        bool none = gr->parts == 0; /* nobody in its group is rated */
        bool one = gr->parts == 1;
        if (pl->status == LADDER_FIT_PERFECT)
            why = none  ? "won every game it played (a perfect score): its rating has no finite "
                          "estimate"
                  : one ? "scored 100% against the rated bots (directly or through bots it "
                          "beat): its rating has no finite estimate above them"
                        : "scored 100% against part 1 (directly or through bots it beat): its "
                          "rating has no finite estimate above it";
        else if (pl->status == LADDER_FIT_ZERO)
            why = none  ? "lost every game it played (a zero score): its rating has no finite "
                          "estimate"
                  : one ? "scored 0% against the rated bots (directly or through bots that "
                          "beat it): its rating has no finite estimate below them"
                        : "scored 0% against part 1 (directly or through bots that beat it): "
                          "its rating has no finite estimate below it";
        else if (pl->status == LADDER_FIT_UNRATED)
            why = none  ? "has no finite comparison with any bot: every result between its "
                          "group's bots was all or nothing"
                  : one ? "has no finite comparison with the rated bots"
                        : "has no finite comparison with any part";
        if (why) {
            printf("%s%s %s\n", said ? "" : "\n", names[p], why);
            said = true;
        }
    }
    /* The parts after part 1: what they are rated against. */
    for (uint32_t pi = 0; pi < f->n_parts; pi++) {
        const ladder_fit_part *pt = &f->parts[pi];
        if (pt->relation == LADDER_FIT_MAIN)
            continue;
        char label[64];
        part_label(f, pi, label, sizeof label);
        const char *how = pt->relation == LADDER_FIT_ABOVE
                              ? "scored 100% against part 1 (directly or through bots it beat)"
                          : pt->relation == LADDER_FIT_BELOW
                              ? "scored 0% against part 1 (directly or through bots that beat it)"
                              : "has no finite comparison with part 1";
        printf("%s%s (%u bots) %s: it is rated on its own, %s, and its ratings compare only "
               "within it\n",
               said ? "" : "\n", label, pt->rated, how,
               pt->anchored ? "around the anchor" : "around its own mean");
        said = true;
    }
    for (uint32_t pi = 0; pi < f->n_parts; pi++) {
        const ladder_fit_part *pt = &f->parts[pi];
        char label[64];
        part_label(f, pi, label, sizeof label);
        if (pt->clusters < 2 * (uint64_t)pt->rated)
            printf("%snote: %s has %llu independent deals for %u rated bots: too few for "
                   "trustworthy intervals\n",
                   said ? "" : "\n", label, (unsigned long long)pt->clusters, pt->rated);
        else if (!pt->converged)
            printf("%snote: the fit of %s did not converge\n", said ? "" : "\n", label);
        else
            continue;
        said = true;
    }
    for (uint32_t pi = 0; pi < f->n_parts && f->n_parts > 1; pi++) {
        char label[64];
        part_label(f, pi, label, sizeof label);
        if (f->parts[pi].model_fallback)
            printf("%snote: the clustered covariance of %s was singular (too few or too "
                   "uniform deals), so its intervals are the model's\n",
                   said ? "" : "\n", label);
        said |= f->parts[pi].model_fallback;
    }
}

/* Reads --anchor BOT[=ELO] against the bots of the fit: BOT is any name
 * ladder_display_find accepts (every name the table prints), the whole
 * argument first, so that a name containing '=' is found too. Sets
 * fo->anchor_player and fo->anchor_elo; prints a usage error and returns
 * EXIT_USAGE for a bad rating, an unknown name, or a name that fits several
 * bots (listing them as printed). */
static int parse_anchor(const char *anchor, const fit_input *in,
                        const ladder_display_name *names, ladder_fit_opts *fo)
{
    uint32_t who;
    if (ladder_display_find(in->bots, names, in->n_bots, anchor, &who, NULL, 0) == JA_OK) {
        fo->anchor_player = (int)who;
        return EXIT_OK;
    }
    char *name = strdup(anchor);
    if (name == NULL) {
        arena_error("out of memory");
        return EXIT_RUNTIME;
    }
    int status = EXIT_USAGE;
    char *eq = strrchr(name, '=');
    if (eq) {
        char *end = NULL;
        *eq = '\0';
        errno = 0;
        fo->anchor_elo = strtod(eq + 1, &end);
        if (eq[1] == '\0' || *end || errno || !isfinite(fo->anchor_elo)) {
            arena_error("--anchor %s: the rating after '=' must be a number", anchor);
            goto out;
        }
    }
    char err[4096];
    if (ladder_display_find(in->bots, names, in->n_bots, name, &who, err, sizeof err) != JA_OK) {
        arena_error("--anchor %s: %s", name, err);
        goto out;
    }
    fo->anchor_player = (int)who;
    status = EXIT_OK;
out:
    free(name);
    return status;
}

/* Runs the fit of one ladder and prints it. */
static int show_fit(ladder_db *db, const ja_game_rules *g, uint32_t seats, const char *opts,
                    const char *anchor, bool json)
{
    ladder_key key = {g->name, seats, opts};
    fit_input in = {0};
    ladder_rating *rt = NULL;
    uint32_t n_rt = 0;
    ladder_fit *f = NULL;
    ladder_display_name *names = NULL;
    int status = EXIT_RUNTIME;
    if (ladder_db_ratings(db, &key, &rt, &n_rt) != JA_OK) {
        arena_error("%s", ladder_db_errmsg(db));
        goto out;
    }
    if (ladder_names(db, &key, &in.bots, &names, &in.n_bots) != EXIT_OK)
        goto out;
    int rc = ladder_db_foreach_match(db, &key, collect_match, &in);
    if (rc != JA_OK) {
        arena_error("%s", rc == JA_ENOMEM ? "out of memory reading results"
                          : rc == JA_EFORMAT ? "database: a result names a bot that does not exist"
                                             : ladder_db_errmsg(db));
        goto out;
    }
    ladder_fit_opts fo;
    ladder_fit_opts_init(&fo);
    if (anchor && (status = parse_anchor(anchor, &in, names, &fo)) != EXIT_OK)
        goto out;
    status = EXIT_RUNTIME;
    const char *anchor_name = anchor ? names[fo.anchor_player] : NULL;
    if (in.n_bots == 0) {
        if (json)
            print_live(NULL, g, seats, opts, false, NULL, 0, NULL, NULL, 0, true,
                       ladder_db_path(db));
        else
            printf("no results yet for %s with these options in %s\n", g->name,
                   ladder_db_path(db));
        status = EXIT_OK;
        goto out;
    }
    rc = ladder_fit_run(in.m, in.n, in.n_bots, &fo, &f);
    if (rc != JA_OK) {
        arena_error("the fit failed: %s", rc == JA_ERANGE ? "too many bots in one ladder"
                                                          : ja_strerror(rc));
        goto out;
    }
    if (anchor && !f->anchored) {
        arena_error("--anchor %s: this bot has no finite rating (%s), so it cannot be the anchor",
                    anchor_name, ladder_fit_status_name(f->players[fo.anchor_player].status));
        status = EXIT_USAGE;
        goto out;
    }
    print_fit(g, seats, opts, &in, names, f, &fo, anchor_name, rt, n_rt, json);
    status = EXIT_OK;
out:
    free(names);
    ladder_fit_free(&f);
    free(in.bots);
    free(in.m);
    free(rt);
    return status;
}

/* ---- Export -------------------------------------------------------------------- */

typedef struct export_ctx {
    FILE *f;
    bool pgn;
    const char *game, *opts;
    const ladder_bot_row *bots;
    ladder_display_name *names; /* PGN names, unique */
    uint32_t n_bots;
    int rc;
} export_ctx;

static int export_match(void *ctx, const ladder_match_row *row)
{
    export_ctx *x = ctx;
    ladder_export_match m;
    memset(&m, 0, sizeof m);
    m.game = x->game;
    m.options = x->opts;
    m.tournament = row->tournament_id;
    /* JSON Lines names an imported tournament as its file did, so that a
     * re-export writes the same lines (docs/ratings.md). */
    if (!x->pgn && row->source_kind == 'i')
        m.tournament = row->source_int;
    else if (!x->pgn && row->source_kind == 's')
        m.tournament_text = row->source_text;
    m.number = row->number;
    m.has_seed = row->has_seed;
    m.seed = row->seed;
    m.turns = row->turns;
    m.digest = row->digest;
    m.finished = row->finished;
    m.n_seats = row->n_seats;
    for (uint32_t s = 0; s < row->n_seats; s++) {
        int b = ladder_bot_index(x->bots, x->n_bots, row->bot_id[s]);
        if (b < 0)
            return JA_EFORMAT;
        m.seat[s].bot = x->pgn ? x->names[b] : x->bots[b].name;
        m.seat[s].version = x->bots[b].version;
        m.seat[s].sha256 = x->bots[b].sha256;
        m.seat[s].score = row->score[s];
        m.seat[s].place = row->place[s];
    }
    return x->pgn ? ladder_pgn_write(x->f, &m) : ladder_jsonl_write(x->f, &m);
}

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
    char err[4400];
    ja_options given;
    ja_options_init(g, &given);
    for (int i = 0; i < co.n_opt; i++)
        if (ja_options_set(g, &given, co.opt_kv[i], err, sizeof err) != JA_OK) {
            arena_error("%s", err);
            return EXIT_USAGE;
        }
    ladder_db *db = NULL;
    int status = open_db(db_path, true, &db);
    ref_out *f = NULL;
    ladder_bot_row *bots = NULL;
    export_ctx x = {0};
    if (status != EXIT_OK)
        goto out;
    uint32_t seats;
    char lopts[LADDER_OPTIONS_MAX];
    bool found;
    if ((status = select_ladder(db, g, &given, want_seats, &seats, lopts, &found)) != EXIT_OK)
        goto out;
    status = EXIT_RUNTIME;
    uint32_t n_bots = 0;
    ladder_key key = {g->name, seats, lopts};
    /* PGN identifies a player by name alone: the display name. */
    if (found && ladder_names(db, &key, &bots, &x.names, &n_bots) != EXIT_OK)
        goto out;
    if (out_path && ref_out_open(NULL, out_path, REF_OUT_STDOUT, &f, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        goto out;
    }
    x.f = f ? ref_out_file(f) : stdout;
    x.pgn = format == 'P';
    x.game = g->name;
    x.opts = lopts;
    x.bots = bots;
    x.n_bots = n_bots;
    int rc = found ? ladder_db_foreach_match(db, &key, export_match, &x) : JA_OK;
    if (rc == JA_OK && fflush(x.f) != 0)
        rc = JA_EIO;
    if (rc != JA_OK) {
        /* A database failure has its own message; the writers' do not. */
        const char *why = ladder_db_errmsg(db);
        if (!why[0])
            why = rc == JA_EIO      ? "cannot write the output"
                  : rc == JA_EINVAL ? "a name is not valid UTF-8 (JSON needs UTF-8)"
                                    : ja_strerror(rc);
        arena_error("export failed: %s", why);
        goto out;
    }
    status = EXIT_OK;
    if (ref_out_commit(&f, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        status = EXIT_RUNTIME;
    }
out:
    ref_out_abort(&f); /* a failed export leaves no file */
    free(x.names);
    free(bots);
    ladder_db_close(&db);
    return status;
}

/* ---- Import -------------------------------------------------------------------- */

/* The resolver of interop.h over the games of this build. */
static int resolve_game(void *ctx, const char *game, const char *const *kv, uint32_t n_kv,
                        uint32_t n_seats, char game_out[LADDER_NAME_MAX],
                        char options_out[LADDER_OPTIONS_MAX], char *err, size_t cap)
{
    (void)ctx;
    const ja_game_rules *g = ja_game_find(game);
    if (g == NULL) {
        char list[512] = "";
        size_t used = 0;
        for (int i = 0; ja_games[i] && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                     ja_games[i]->name);
        snprintf(err, cap, "unknown game '%s' (games in this build: %s)", game, list);
        return JA_EINVAL;
    }
    if (n_seats < g->min_seats || n_seats > g->max_seats) {
        snprintf(err, cap, "%s is played by %u to %u seats, not %u", g->name,
                 (unsigned)g->min_seats, (unsigned)g->max_seats, n_seats);
        return JA_EINVAL;
    }
    ja_options o;
    ja_options_init(g, &o);
    for (uint32_t i = 0; i < n_kv; i++)
        if (ja_options_set(g, &o, kv[i], err, cap) != JA_OK)
            return JA_EINVAL;
    if (ja_options_resolve(g, &o, n_seats, err, cap) != JA_OK)
        return JA_EINVAL;
    if (ja_options_format(g, &o, options_out, LADDER_OPTIONS_MAX) < 0) {
        snprintf(err, cap, "the options of %s are too long", g->name);
        return JA_EINVAL;
    }
    snprintf(game_out, LADDER_NAME_MAX, "%s", g->name);
    return JA_OK;
}

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
    const char *path = argv[optind];
    if (ladder_merge_is_db(path)) /* another arena database: merge it (docs/scale.md) */
        return arena_ladder_import_db(path, db_path, json);
    if (game && !arena_find_game(game))
        return EXIT_USAGE;
    /* Read and check the whole file before the database is touched. */
    ladder_reader_opts ro = {game, resolve_game, NULL};
    ladder_import_set *set = NULL;
    char err[1024];
    int rc = ladder_import_read(path, &ro, &set, err, sizeof err);
    if (rc != JA_OK) {
        arena_error("%s", err);
        return rc == JA_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    }
    const ladder_import *imp = ladder_import_set_get(set);
    ladder_db *db = NULL;
    ladder_import_result res;
    int status = open_db(db_path, false, &db);
    if (status != EXIT_OK)
        goto out;
    rc = ladder_db_import(db, imp, &res);
    if (rc != JA_OK) {
        arena_error("%s", ladder_db_errmsg(db));
        status = rc == JA_ESTATE || rc == JA_EINVAL ? EXIT_USAGE : db_exit(rc);
        goto out;
    }
    /* Matches per ladder, for the report. */
    uint32_t per[64] = {0};
    for (uint32_t k = 0; k < imp->n_matches; k++)
        if (imp->matches[k].ladder < 64)
            per[imp->matches[k].ladder]++;
    if (json) {
        json_w w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "file", path);
        jw_str(&w, "format", imp->format);
        jw_str(&w, "sha256", imp->sha256);
        jw_int(&w, "import", res.import_id);
        jw_int(&w, "matches", res.matches);
        jw_int(&w, "skipped", imp->skipped);
        jw_int(&w, "bots", imp->n_bots);
        jw_arr(&w, "ladders");
        for (uint32_t i = 0; i < imp->n_ladders; i++) {
            jw_obj(&w, NULL);
            jw_str(&w, "game", imp->ladders[i].game);
            jw_int(&w, "seats", imp->ladders[i].n_seats);
            jw_options(&w, imp->ladders[i].options);
            if (i < 64)
                jw_int(&w, "matches", per[i]);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
        jw_end(&w);
    } else {
        printf("imported %u matches of %u bots from %s (%s", res.matches, imp->n_bots, path,
               imp->format);
        if (imp->skipped)
            printf(", %u unfinished games skipped", imp->skipped);
        printf(") into %s, import %lld\n", db_path, (long long)res.import_id);
        for (uint32_t i = 0; i < imp->n_ladders; i++) {
            printf("  %s, %u seats", imp->ladders[i].game, imp->ladders[i].n_seats);
            if (i < 64)
                printf(": %u matches", per[i]);
            printf("\n    options: %s\n", imp->ladders[i].options);
        }
    }
    status = EXIT_OK;
out:
    ladder_db_close(&db);
    ladder_import_set_free(&set);
    return status;
}

/* ---- The command ------------------------------------------------------------------ */

int cmd_ladder(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "import") == 0)
        return cmd_import(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "export") == 0)
        return cmd_export(argc - 1, argv + 1);
    static const struct option opts[] = {
        {"opt", required_argument, NULL, 'o'}, {"seats", required_argument, NULL, 'k'},
        {"db", required_argument, NULL, 'd'},  {"json", no_argument, NULL, 'J'},
        {"fit", no_argument, NULL, 'f'},       {"anchor", required_argument, NULL, 'A'},
        {"help", no_argument, NULL, 'h'},      {0, 0, 0, 0}};
    arena_common co = {0};
    int c, k;
    const char *db_path = "arena.db", *anchor = NULL;
    uint32_t want_seats = 0;
    bool json = false, fit = false;
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
        case 'A': anchor = optarg; break;
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
    if (anchor && !fit) {
        arena_error("--anchor applies to the fit: add --fit");
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
    if (want_seats && (want_seats < g->min_seats || want_seats > g->max_seats)) {
        arena_error("--seats %u: %s is played by %u to %u seats", want_seats, g->name,
                    (unsigned)g->min_seats, (unsigned)g->max_seats);
        return EXIT_USAGE;
    }
    ladder_db *db = NULL;
    ladder_rating *rt = NULL;
    ladder_bot_row *bots = NULL;
    ladder_display_name *names = NULL;
    int status = open_db(db_path, true, &db);
    if (status != EXIT_OK)
        goto out;
    uint32_t seats;
    char lopts[LADDER_OPTIONS_MAX];
    bool found;
    if ((status = select_ladder(db, g, &given, want_seats, &seats, lopts, &found)) != EXIT_OK)
        goto out;
    if (fit && found) {
        status = show_fit(db, g, seats, lopts, anchor, json);
        goto out;
    }
    if (fit && anchor) {
        arena_error("--anchor %s: the ladder has no results", anchor);
        status = EXIT_USAGE;
        goto out;
    }
    uint32_t n_rt = 0;
    uint32_t n_bots = 0;
    if (found) {
        /* The ratings first: every bot they name is then among the bots. */
        ladder_key key = {g->name, seats, lopts};
        if (ladder_db_ratings(db, &key, &rt, &n_rt) != JA_OK) {
            arena_error("%s", ladder_db_errmsg(db));
            status = EXIT_RUNTIME;
            goto out;
        }
        if ((status = ladder_names(db, &key, &bots, &names, &n_bots)) != EXIT_OK)
            goto out;
    }
    print_live(db, g, seats, lopts, found, rt, n_rt, bots, names, n_bots, json, db_path);
    status = EXIT_OK;
out:
    free(names);
    free(bots);
    free(rt);
    ladder_db_close(&db);
    return status;
}
