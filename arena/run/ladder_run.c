/* The database side of `arena ladder` (ladder_run.h). */
#include "run/ladder_run.h"

#include "merge.h"
#include "outfile.h"
#include "run/scale.h"
#include "run/standings.h"
#include "core/util.h"

#include "interop.h"
#include "jackarena/ja_error.h"
#include "ladder.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int arena_ladder_open(const char *path, bool must_exist, ladder_db **db)
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
        return arena_db_status(rc);
    }
    return EXIT_OK;
}

int arena_ladder_select(ladder_db *db, const ja_game_rules *g, const ja_options *given,
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

int arena_ladder_export(FILE *out, const char *db_path, const ja_game_rules *g,
                        const ja_options *given, uint32_t want_seats, bool pgn,
                        const char *out_path)
{
    char err[4400];
    ladder_db *db = NULL;
    int status = arena_ladder_open(db_path, true, &db);
    ref_out *f = NULL;
    ladder_bot_row *bots = NULL;
    export_ctx x = {0};
    if (status != EXIT_OK)
        goto out;
    uint32_t seats;
    char lopts[LADDER_OPTIONS_MAX];
    bool found;
    if ((status = arena_ladder_select(db, g, given, want_seats, &seats, lopts, &found)) != EXIT_OK)
        goto out;
    status = EXIT_RUNTIME;
    uint32_t n_bots = 0;
    ladder_key key = {g->name, seats, lopts};
    /* PGN identifies a player by name alone: the display name. */
    if (found && arena_ladder_names(db, &key, &bots, &x.names, &n_bots) != EXIT_OK)
        goto out;
    if (out_path && ref_out_open(NULL, out_path, REF_OUT_STDOUT, &f, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        goto out;
    }
    x.f = f ? ref_out_file(f) : out;
    x.pgn = pgn;
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

int arena_ladder_import(FILE *out, const char *path, const char *game, const char *db_path,
                        bool json)
{
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
    int status = arena_ladder_open(db_path, false, &db);
    if (status != EXIT_OK)
        goto out;
    rc = ladder_db_import(db, imp, &res);
    if (rc != JA_OK) {
        arena_error("%s", ladder_db_errmsg(db));
        status = rc == JA_ESTATE || rc == JA_EINVAL ? EXIT_USAGE : arena_db_status(rc);
        goto out;
    }
    /* Matches per ladder, for the report. */
    uint32_t per[64] = {0};
    for (uint32_t k = 0; k < imp->n_matches; k++)
        if (imp->matches[k].ladder < 64)
            per[imp->matches[k].ladder]++;
    if (json) {
        json_w w;
        jw_init(&w, out);
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
            arena_jw_options(&w, imp->ladders[i].options);
            if (i < 64)
                jw_int(&w, "matches", per[i]);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
        jw_end(&w);
    } else {
        fprintf(out, "imported %u matches of %u bots from %s (%s", res.matches, imp->n_bots, path,
               imp->format);
        if (imp->skipped)
            fprintf(out, ", %u unfinished games skipped", imp->skipped);
        fprintf(out, ") into %s, import %lld\n", db_path, (long long)res.import_id);
        for (uint32_t i = 0; i < imp->n_ladders; i++) {
            fprintf(out, "  %s, %u seats", imp->ladders[i].game, imp->ladders[i].n_seats);
            if (i < 64)
                fprintf(out, ": %u matches", per[i]);
            fprintf(out, "\n    options: %s\n", imp->ladders[i].options);
        }
    }
    status = EXIT_OK;
out:
    ladder_db_close(&db);
    ladder_import_set_free(&set);
    return status;
}

/* ---- The command ------------------------------------------------------------------ */

int arena_ladder_show(FILE *out, const char *db_path, const ja_game_rules *g,
                      const ja_options *given, uint32_t want_seats, bool fit, const char *anchor,
                      bool json)
{
    ladder_db *db = NULL;
    int status = arena_ladder_open(db_path, true, &db);
    if (status != EXIT_OK)
        goto out;
    uint32_t seats;
    char lopts[LADDER_OPTIONS_MAX];
    bool found;
    if ((status = arena_ladder_select(db, g, given, want_seats, &seats, lopts, &found)) != EXIT_OK)
        goto out;
    if (fit && found) {
        status = arena_standings_fit(out, db, g, seats, lopts, anchor, json);
        goto out;
    }
    if (fit && anchor) {
        arena_error("--anchor %s: the ladder has no results", anchor);
        status = EXIT_USAGE;
        goto out;
    }
    status = arena_standings_live(out, db, g, seats, lopts, found, json);
out:
    ladder_db_close(&db);
    return status;
}
