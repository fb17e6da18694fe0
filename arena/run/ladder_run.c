/* The database side of `arena ladder` (ladder_run.h). */
#include "run/ladder_run.h"

#include "deals.h"
#include "merge.h"
#include "outfile.h"
#include "core/json_w.h"
#include "run/standings.h"
#include "core/util.h"

#include "interop.h"
#include "jackarena/ja_error.h"
#include "ladder.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Preparing -------------------------------------------------------------------- */

/* The games of this build, "a, b, c", for the lines naming an unknown one. */
static void game_list(char *list, size_t cap)
{
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; ja_games[i] && used < cap; i++)
        used += (size_t)snprintf(list + used, cap - used, "%s%s", i ? ", " : "",
                                 ja_games[i]->name);
}

/* The code of a failure to open the database: its own when the file given
 * cannot be used (the user's, as arena_db_status judges them), JA_EDB
 * otherwise. */
static int db_failure(int rc)
{
    return rc == JA_EIO || rc == JA_EVERSION || rc == JA_EFORMAT ? rc : JA_EDB;
}

/* --db FILE must be missing or a regular file: the rule, and the line, of
 * cli/flags.h's arena_db_check, which prints its own. */
static int check_db_path(const char *path, char *err, size_t cap)
{
    size_t len = strlen(path);
    const char *kind = len && path[len - 1] == '/' ? "a directory name" : ref_out_kind(path);
    if (!kind)
        return JA_OK;
    snprintf(err, cap, "--db '%s': it is %s, not a database file%s", path, kind,
             strcmp(kind, "a symbolic link") == 0 ? " (give the file's own path)" : "");
    return JA_EINVAL;
}

/* Opens the database at path into l->db. With must_exist, a missing file is
 * the user's (JA_ENOTFOUND). */
static int open_db(arena_ladder *l, const char *path, bool must_exist, char *err, size_t cap)
{
    int rc = check_db_path(path, err, cap);
    if (rc != JA_OK)
        return rc;
    struct stat sb;
    if (must_exist && stat(path, &sb) != 0) {
        snprintf(err, cap, "no ladder database '%s' (play a tournament first, or give --db)",
                 path);
        return JA_ENOTFOUND;
    }
    rc = ladder_db_open(path, &l->db);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", l->db ? ladder_db_errmsg(l->db) : ja_strerror(rc));
        return db_failure(rc);
    }
    return JA_OK;
}

/* Whether ladder ls is the one asked for: its option set equals the one
 * given, resolved at its seat count (defaults depend on the seat count). */
static bool is_asked(const arena_ladder_args *a, const ladder_summary *ls)
{
    if (a->want_seats && ls->n_seats != a->want_seats)
        return false;
    ja_options o = a->given;
    char text[LADDER_OPTIONS_MAX], err[1024];
    return ja_options_resolve(a->game, &o, ls->n_seats, err, sizeof err) == JA_OK &&
           ja_options_format(a->game, &o, text, sizeof text) >= 0 &&
           strcmp(text, ls->options) == 0;
}

/* The ladder of the game asked for: its seat count and option text into
 * l->seats and l->opts. l->found is false when no ladder has results yet
 * (seats and opts then describe the one asked for, as far as known).
 * Several ladders matching is the user's (JA_EINVAL). */
static int select_ladder(arena_ladder *l, char *err, size_t cap)
{
    const arena_ladder_args *a = l->a;
    ladder_summary *ls = NULL;
    uint32_t n_ls = 0;
    if (ladder_db_ladders(l->db, a->game->name, &ls, &n_ls) != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(l->db));
        return JA_EDB;
    }
    char seat_list[256] = "";
    int match = -1, n_match = 0;
    size_t used = 0;
    for (uint32_t i = 0; i < n_ls; i++) {
        if (!is_asked(a, &ls[i]))
            continue;
        match = (int)i;
        n_match++;
        used += (size_t)snprintf(seat_list + used,
                                 used < sizeof seat_list ? sizeof seat_list - used : 0, "%s%u",
                                 n_match > 1 ? ", " : "", ls[i].n_seats);
    }
    int rc = JA_OK;
    l->found = match >= 0 && n_match == 1;
    l->seats = a->want_seats;
    l->opts[0] = '\0';
    if (n_match > 1) {
        snprintf(err, cap, "%s has ladders with these options for %s seats: choose one with "
                 "--seats", a->game->name, seat_list);
        rc = JA_EINVAL;
    } else if (match >= 0) {
        l->seats = ls[match].n_seats;
        snprintf(l->opts, sizeof l->opts, "%s", ls[match].options);
    } else if (a->want_seats) {
        ja_options o = a->given;
        char why[1024];
        if (ja_options_resolve(a->game, &o, a->want_seats, why, sizeof why) == JA_OK)
            ja_options_format(a->game, &o, l->opts, sizeof l->opts);
    }
    free(ls);
    return rc;
}

/* The resolver of interop.h over the games of this build. */
static int resolve_game(void *ctx, const char *game, const char *const *kv, uint32_t n_kv,
                        uint32_t n_seats, char game_out[LADDER_NAME_MAX],
                        char options_out[LADDER_OPTIONS_MAX], char *err, size_t cap)
{
    (void)ctx;
    const ja_game_rules *g = ja_game_find(game);
    if (g == NULL) {
        char list[512];
        game_list(list, sizeof list);
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

/* Another arena database to merge (docs/scale.md): not the database
 * itself, which is opened (made when missing); the run checks the file. */
static int prepare_merge(arena_ladder *l, char *err, size_t cap)
{
    const arena_ladder_args *a = l->a;
    int rc = check_db_path(a->db_path, err, cap);
    if (rc != JA_OK)
        return rc;
    char p1[PATH_MAX], p2[PATH_MAX];
    if (realpath(a->path, p1) && realpath(a->db_path, p2) && strcmp(p1, p2) == 0) {
        snprintf(err, cap, "ladder import: '%s' is the database itself (--db)", a->path);
        return JA_EINVAL;
    }
    return open_db(l, a->db_path, false, err, cap);
}

/* The file to import, read and checked whole before the database is
 * touched, then the database (made when missing); another arena database
 * is merged by the run, which checks it. */
static int prepare_import(arena_ladder *l, char *err, size_t cap)
{
    const arena_ladder_args *a = l->a;
    l->merge = ladder_merge_is_db(a->path);
    if (l->merge)
        return prepare_merge(l, err, cap);
    if (a->import_game && !ja_game_find(a->import_game)) {
        char list[512];
        game_list(list, sizeof list);
        snprintf(err, cap, "unknown game '%s' (games: %s)", a->import_game, list);
        return JA_EINVAL;
    }
    ladder_reader_opts ro = {a->import_game, resolve_game, NULL};
    char why[1024]; /* the reader's line, as long as it has always been */
    int rc = ladder_import_read(a->path, &ro, &l->set, why, sizeof why);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", why);
        return rc;
    }
    return open_db(l, a->db_path, false, err, cap);
}

int arena_ladder_prepare(arena_ladder *l, const arena_ladder_args *a, char *err, size_t cap)
{
    *l = (arena_ladder){.a = a};
    err[0] = '\0';
    if (a->what == ARENA_LADDER_IMPORT)
        return prepare_import(l, err, cap);
    int rc = open_db(l, a->db_path, true, err, cap);
    if (rc == JA_OK)
        rc = select_ladder(l, err, cap);
    if (rc == JA_OK && a->what == ARENA_LADDER_SHOW && a->fit && !l->found && a->anchor) {
        snprintf(err, cap, "--anchor %s: the ladder has no results", a->anchor);
        rc = JA_EINVAL;
    }
    return rc;
}

void arena_ladder_close(arena_ladder *l)
{
    ladder_db_close(&l->db);
    ladder_import_set_free(&l->set);
}

/* ---- Show ----------------------------------------------------------------------- */

static int run_show(arena_ladder *l, FILE *out, char *err, size_t cap)
{
    const arena_ladder_args *a = l->a;
    if (a->cross_validate)
        return arena_standings_cv(out, l->db, a->game, l->seats, l->opts, a->folds, a->json, err,
                                  cap);
    ladder_fit_model model = LADDER_FIT_DEFAULT_MODEL;
    if (a->model && ladder_fit_model_parse(a->model, &model) != JA_OK) {
        snprintf(err, cap, "--model %s: the models are bradley-terry and plackett-luce",
                 a->model);
        return JA_EINVAL;
    }
    if (a->fit && l->found)
        return arena_standings_fit(out, l->db, a->game, l->seats, l->opts, a->anchor, model,
                                   a->adjusted, a->json, err, cap);
    return arena_standings_live(out, l->db, a->game, l->seats, l->opts, l->found, a->json, err,
                                cap);
}

/* ---- Export ----------------------------------------------------------------------- */

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

/* Every match of the ladder through x, flushed. */
static int export_matches(arena_ladder *l, const ladder_key *key, export_ctx *x, char *err,
                          size_t cap)
{
    int rc = l->found ? ladder_db_foreach_match(l->db, key, export_match, x) : JA_OK;
    if (rc == JA_OK && fflush(x->f) != 0)
        rc = JA_EIO;
    if (rc != JA_OK) {
        /* A database failure has its own message; the writers' do not. */
        const char *why = ladder_db_errmsg(l->db);
        if (!why[0])
            why = rc == JA_EIO      ? "cannot write the output"
                  : rc == JA_EINVAL ? "a name is not valid UTF-8 (JSON needs UTF-8)"
                                    : ja_strerror(rc);
        snprintf(err, cap, "export failed: %s", why);
    }
    return rc;
}

static int run_export(arena_ladder *l, FILE *out, char *err, size_t cap)
{
    const arena_ladder_args *a = l->a;
    ladder_key key = {a->game->name, l->seats, l->opts};
    ladder_bot_row *bots = NULL;
    export_ctx x = {.pgn = a->pgn, .game = a->game->name, .opts = l->opts};
    ref_out *f = NULL;
    int rc = JA_OK;
    /* PGN identifies a player by name alone: the display name. */
    if (l->found)
        rc = arena_ladder_names(l->db, &key, &bots, &x.names, &x.n_bots, err, cap);
    if (rc == JA_OK && a->out_path)
        rc = ref_out_open(NULL, a->out_path, REF_OUT_STDOUT, &f, err, cap);
    if (rc == JA_OK) {
        x.f = f ? ref_out_file(f) : out;
        x.bots = bots;
        rc = export_matches(l, &key, &x, err, cap);
    }
    if (rc == JA_OK)
        rc = ref_out_commit(&f, err, cap);
    ref_out_abort(&f); /* a failed export leaves no file */
    free(x.names);
    free(bots);
    return rc;
}

/* ---- Import ----------------------------------------------------------------------- */

/* Matches of the import per ladder (its first 64), for the report. */
static void per_ladder(const ladder_import *imp, uint32_t per[64])
{
    memset(per, 0, 64 * sizeof *per);
    for (uint32_t k = 0; k < imp->n_matches; k++)
        if (imp->matches[k].ladder < 64)
            per[imp->matches[k].ladder]++;
}

static void json_import(FILE *out, const char *path, const ladder_import *imp,
                        const ladder_import_result *res)
{
    uint32_t per[64];
    per_ladder(imp, per);
    json_w w;
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_str(&w, "file", path);
    jw_str(&w, "format", imp->format);
    jw_str(&w, "sha256", imp->sha256);
    jw_int(&w, "import", res->import_id);
    jw_int(&w, "matches", res->matches);
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
}

static void text_import(FILE *out, const char *path, const char *db_path,
                        const ladder_import *imp, const ladder_import_result *res)
{
    uint32_t per[64];
    per_ladder(imp, per);
    fprintf(out, "imported %u matches of %u bots from %s (%s", res->matches, imp->n_bots, path,
           imp->format);
    if (imp->skipped)
        fprintf(out, ", %u unfinished games skipped", imp->skipped);
    fprintf(out, ") into %s, import %lld\n", db_path, (long long)res->import_id);
    for (uint32_t i = 0; i < imp->n_ladders; i++) {
        fprintf(out, "  %s, %u seats", imp->ladders[i].game, imp->ladders[i].n_seats);
        if (i < 64)
            fprintf(out, ": %u matches", per[i]);
        fprintf(out, "\n    options: %s\n", imp->ladders[i].options);
    }
}

/* Another arena database merged into this one, and the report. A file
 * that is no arena database of this kind (JA_EFORMAT, JA_EVERSION) or
 * whose tournaments differ from those of the same name here (JA_EMISMATCH)
 * is the user's. */
static int merge_db(arena_ladder *l, FILE *out, char *err, size_t cap)
{
    const arena_ladder_args *a = l->a;
    ladder_merge_result r;
    char why[1200]; /* the merge's line, as long as it has always been */
    int rc = ladder_db_merge(l->db, a->path, &r, why, sizeof why);
    if (rc != JA_OK) {
        snprintf(err, cap, "ladder import: %s", why);
        return rc;
    }
    if (a->json) {
        json_w w;
        jw_init(&w, out);
        jw_obj(&w, NULL);
        jw_str(&w, "file", a->path);
        jw_str(&w, "format", "database");
        jw_int(&w, "tournaments", r.tournaments);
        jw_int(&w, "created", r.created);
        jw_int(&w, "matches", r.matches);
        jw_int(&w, "already", r.already);
        jw_int(&w, "skipped_imports", r.skipped_imports);
        jw_obj_end(&w);
        jw_end(&w);
        return JA_OK;
    }
    fprintf(out, "merged %u matches of %u tournament%s from %s into %s (%u already there",
            r.matches, r.tournaments, r.tournaments == 1 ? "" : "s", a->path, a->db_path,
            r.already);
    if (r.skipped_imports)
        fprintf(out, "; %u PGN/JSONL imports not merged", r.skipped_imports);
    fprintf(out, ")\n");
    return JA_OK;
}

static int run_import(arena_ladder *l, FILE *out, char *err, size_t cap)
{
    const arena_ladder_args *a = l->a;
    if (l->merge)
        return merge_db(l, out, err, cap);
    const ladder_import *imp = ladder_import_set_get(l->set);
    ladder_import_result res;
    int rc = ladder_db_import(l->db, imp, &res);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(l->db));
        return rc;
    }
    if (a->json)
        json_import(out, a->path, imp, &res);
    else
        text_import(out, a->path, a->db_path, imp, &res);
    return JA_OK;
}

/* ---- Deals ------------------------------------------------------------------------ */

static int add_deal_match(void *ctx, const ladder_match_row *row)
{
    ladder_deals_acc_add(ctx, row);
    return 0;
}

/* The set's comment lines: what it was made from and how. */
static void write_deals(FILE *f, const arena_ladder *l, const ladder_deal_score *d, uint32_t n,
                        uint32_t of, int *rc)
{
    char c[3][LADDER_OPTIONS_MAX + 160];
    snprintf(c[0], sizeof c[0], "the %u of %u deals of the %s ladder (%u seats, %s) that "
             "separated its bots most", n, of, l->a->game->name, l->seats, l->opts);
    snprintf(c[1], sizeof c[1], "separation: the variance over the bots of each bot's mean "
             "pairwise result on the deal (docs/tournament-plan.md)");
    snprintf(c[2], sizeof c[2], "made by: arena ladder deals %s --top %u", l->a->game->name,
             l->a->top);
    const char *cp[3] = {c[0], c[1], c[2]};
    *rc = ladder_deals_write(f, d, n, cp, 3);
}

static int run_deals(arena_ladder *l, FILE *out, char *err, size_t cap)
{
    const arena_ladder_args *a = l->a;
    ladder_key key = {a->game->name, l->seats, l->opts};
    ladder_deals_acc *acc = ladder_deals_acc_new();
    int rc = l->found ? ladder_db_foreach_match(l->db, &key, add_deal_match, acc) : JA_OK;
    ladder_deal_score *d = NULL;
    uint32_t n = 0;
    ref_out *f = NULL;
    if (rc != JA_OK)
        snprintf(err, cap, "%s", ladder_db_errmsg(l->db));
    else
        ladder_deals_rank(acc, &d, &n);
    if (rc == JA_OK && n == 0 && !l->found) {
        snprintf(err, cap, "%s has no %s ladder with results, so no deal played by two bots or "
                 "more", a->db_path, a->game->name);
        rc = JA_ENOTFOUND;
    } else if (rc == JA_OK && n == 0) {
        snprintf(err, cap, "the %s ladder (%u seats, %s) has no deal played by two bots or "
                 "more", a->game->name, l->seats, l->opts);
        rc = JA_ENOTFOUND;
    }
    uint32_t k = n < a->top ? n : a->top;
    if (rc == JA_OK && a->out_path)
        rc = ref_out_open(NULL, a->out_path, REF_OUT_STDOUT, &f, err, cap);
    if (rc == JA_OK) {
        write_deals(f ? ref_out_file(f) : out, l, d, k, n, &rc);
        if (rc != JA_OK)
            snprintf(err, cap, "cannot write the deal set");
    }
    if (rc == JA_OK)
        rc = ref_out_commit(&f, err, cap);
    ref_out_abort(&f);
    if (rc == JA_OK)
        fprintf(stderr, "arena: %u deal%s of %u written (separation %.4f to %.4f)\n", k,
                k == 1 ? "" : "s", n, d[0].separation, d[k - 1].separation);
    free(d);
    ladder_deals_acc_free(&acc);
    return rc;
}

int arena_ladder_run(arena_ladder *l, FILE *out, char *err, size_t cap)
{
    err[0] = '\0';
    switch (l->a->what) {
    case ARENA_LADDER_SHOW: return run_show(l, out, err, cap);
    case ARENA_LADDER_EXPORT: return run_export(l, out, err, cap);
    case ARENA_LADDER_IMPORT: return run_import(l, out, err, cap);
    case ARENA_LADDER_DEALS: return run_deals(l, out, err, cap);
    }
    return JA_EINVAL;
}
