/* Standings of a ladder (standings.h): the live Elo table and the official
 * fit, as text or JSON. */
#include "run/standings.h"
#include "view/adjust_ladder.h"

#include "core/json_w.h"
#include "core/util.h"

#include "fit.h"
#include "fit_cv.h"
#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "ladder.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void arena_jw_options(json_w *w, const char *text)
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
 * "sha256" (null when it has none), "display_name", the name the tables
 * print (ladders/names.h), and "params", the parameters its version
 * carries ("" for none). */
static void jw_identity(json_w *w, const ladder_bot_row *b, const char *display)
{
    jw_str(w, "bot", b->name);
    jw_str(w, "version", b->version);
    if (b->sha256[0])
        jw_str(w, "sha256", b->sha256);
    else
        jw_null(w, "sha256");
    jw_str(w, "display_name", display);
    jw_str(w, "params", ladder_version_params(b->version));
}

/* A failure of db: its message into err, and JA_EDB. */
static int db_failed(ladder_db *db, char *err, size_t cap)
{
    snprintf(err, cap, "%s", ladder_db_errmsg(db));
    return JA_EDB;
}

int arena_ladder_names(ladder_db *db, const ladder_key *key, ladder_bot_row **bots,
                       ladder_display_name **names, uint32_t *n, char *err, size_t cap)
{
    *names = NULL;
    if (ladder_db_ladder_bots(db, key, bots, n) != JA_OK)
        return db_failed(db, err, cap);
    /* Its only failure is a NULL argument, which these are not. */
    (void)ladder_display_names(*bots, *n, names);
    return JA_OK;
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

/* The widths of a table's bot and version columns: at least the
 * headers', and as wide as the widest name and version (a long version
 * does not push the columns after it out of line). */
typedef struct table_cols {
    int name, version;
} table_cols;

static void table_cols_fit(table_cols *c, const char *name, const char *version)
{
    c->name = arena_col_width(c->name, arena_text_cols(name));
    c->version = arena_col_width(c->version, arena_text_cols(version));
}

/* A row's start: lead, then name and version in their columns. */
static void table_cols_put(FILE *out, const table_cols *c, const char *lead, const char *name,
                           const char *version)
{
    fputs(lead, out);
    arena_put_col(out, name, c->name);
    fputc(' ', out);
    arena_put_col(out, version, c->version);
}

/* The live ladder to print: the ratings rt[0..n_rt-1] and, row by row,
 * the rated bot (NULL when the ladder's bots do not list it) and its name. */
typedef struct live_view {
    ladder_db *db;                 /* for the faults; NULL: none */
    const ja_game_rules *g;
    uint32_t seats;
    const char *opts;
    bool found;
    const ladder_rating *rt;
    uint32_t n_rt;
    const ladder_bot_row **rb;
    const char **nm;
    const char *db_path;
} live_view;

/* The live ladder as one JSON object. */
static void json_live(FILE *out, const live_view *v)
{
    uint64_t fk[JA_FAULT_COUNT];
    json_w w;
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_str(&w, "game", v->g->name);
    if (v->seats)
        jw_int(&w, "seats", v->seats);
    else
        jw_null(&w, "seats");
    arena_jw_options(&w, v->opts);
    jw_arr(&w, "ratings");
    for (uint32_t i = 0; i < v->n_rt; i++) {
        const ladder_rating *r = &v->rt[i];
        jw_obj(&w, NULL);
        ladder_bot_row unlisted = {.id = r->bot_id};
        if (v->rb[i] == NULL) {
            snprintf(unlisted.name, sizeof unlisted.name, "%s", r->bot);
            snprintf(unlisted.version, sizeof unlisted.version, "%s", r->version);
        }
        jw_identity(&w, v->rb[i] ? v->rb[i] : &unlisted, v->nm[i]);
        jw_int(&w, "games", r->games);
        jw_num(&w, "elo", r->elo);
        jw_null(&w, "elo_ci95");
        jw_int(&w, "wins", r->wins);
        jw_int(&w, "draws", r->draws);
        jw_int(&w, "losses", r->losses);
        jw_int(&w, "faults", (long long)bot_faults(v->db, v->g, v->seats, v->opts, r->bot_id, fk));
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
}

/* The live ladder as a table, then the faults by kind of the bots that
 * made any. */
static void text_live(FILE *out, const live_view *v)
{
    uint64_t fk[JA_FAULT_COUNT];
    fprintf(out, "%s, %u seats, live Elo (display only; --fit for official ratings)\n"
           "options: %s\n\n",
           v->g->name, v->seats, v->opts);
    table_cols c = {20, 8};
    for (uint32_t i = 0; i < v->n_rt; i++)
        table_cols_fit(&c, v->nm[i], v->rt[i].version);
    table_cols_put(out, &c, "   #  ", "bot", "version");
    fprintf(out, " %6s %7s   %-14s %7s\n", "games", "elo", "pairwise w-d-l", "faults");
    for (uint32_t i = 0; i < v->n_rt; i++) {
        const ladder_rating *r = &v->rt[i];
        char wdl[64], rank[16];
        snprintf(wdl, sizeof wdl, "%lld-%lld-%lld", (long long)r->wins, (long long)r->draws,
                 (long long)r->losses);
        snprintf(rank, sizeof rank, "  %2u  ", i + 1);
        table_cols_put(out, &c, rank, v->nm[i], r->version);
        fprintf(out, " %6lld %7.0f   %-14s %7llu\n", (long long)r->games, r->elo, wdl,
               (unsigned long long)bot_faults(v->db, v->g, v->seats, v->opts, r->bot_id, fk));
    }
    for (uint32_t i = 0; i < v->n_rt; i++) {
        if (!bot_faults(v->db, v->g, v->seats, v->opts, v->rt[i].bot_id, fk))
            continue;
        fprintf(out, "  faults of %s:", v->nm[i]);
        for (int f = 1; f < JA_FAULT_COUNT; f++)
            if (fk[f])
                fprintf(out, " %s %llu", ja_fault_name(f), (unsigned long long)fk[f]);
        fputc('\n', out);
    }
}

/* The live ladder rt[0..n_rt-1], its bots named by names (over bots, the
 * ladder's bots by id). */
static void print_live(FILE *out, live_view *v, const ladder_bot_row *bots,
                       const ladder_display_name *names, uint32_t n_bots, bool json)
{
    /* Row i's bot and display name. The bots are read after the ratings,
     * so each rated bot is among them; should one not be, it shows its
     * stored name. */
    v->rb = ja_xcalloc(v->n_rt ? v->n_rt : 1, sizeof *v->rb);
    v->nm = ja_xcalloc(v->n_rt ? v->n_rt : 1, sizeof *v->nm);
    for (uint32_t i = 0; i < v->n_rt; i++) {
        int b = ladder_bot_index(bots, n_bots, v->rt[i].bot_id);
        v->rb[i] = b >= 0 ? &bots[b] : NULL;
        v->nm[i] = b >= 0 ? names[b] : v->rt[i].bot;
    }
    if (json)
        json_live(out, v);
    else if (!v->found)
        fprintf(out, "no results yet for %s with these options in %s\n", v->g->name, v->db_path);
    else
        text_live(out, v);
    free(v->rb);
    free(v->nm);
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
    int64_t *ids;                      /* with adjusted: each match's id ... */
    char (*digests)[LADDER_DIGEST_HEX]; /* ... and digest, as m */
    bool adjusted;
} fit_input;

void arena_fit_add(ladder_fit_match **m, size_t *n, size_t *cap, const ladder_match_row *row,
                   const uint32_t *player)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        *m = ja_xrealloc(*m, *cap * sizeof **m);
    }
    ladder_fit_match *x = &(*m)[*n];
    memset(x, 0, sizeof *x);
    x->cluster = row->deal;
    x->n_seats = row->n_seats;
    x->replayed = row->deal_tournament != row->tournament_id;
    for (uint32_t s = 0; s < row->n_seats; s++) {
        x->player[s] = player[s];
        x->place[s] = row->place[s];
    }
    (*n)++;
}

static int collect_match(void *ctx, const ladder_match_row *row)
{
    fit_input *in = ctx;
    uint32_t player[JA_MAX_SEATS];
    for (uint32_t s = 0; s < row->n_seats; s++) {
        int p = ladder_bot_index(in->bots, in->n_bots, row->bot_id[s]);
        if (p < 0)
            return JA_EFORMAT; /* a result whose bot the ladder does not list */
        player[s] = (uint32_t)p;
    }
    size_t cap = in->cap;
    arena_fit_add(&in->m, &in->n, &in->cap, row, player);
    if (in->adjusted && in->cap != cap) {
        in->ids = ja_xrealloc(in->ids, in->cap * sizeof *in->ids);
        in->digests = ja_xrealloc(in->digests, in->cap * sizeof *in->digests);
    }
    if (in->adjusted) {
        in->ids[in->n - 1] = row->match_id;
        memcpy(in->digests[in->n - 1], row->digest, LADDER_DIGEST_HEX);
    }
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

/* A fit to print: its ladder, what it read, its result and its anchor. */
typedef struct fit_view {
    const ja_game_rules *g;
    uint32_t seats;
    const char *opts;
    const fit_input *in;
    const ladder_display_name *names;
    const ladder_fit *f;
    const ladder_fit_opts *fo;
    const char *anchor_name;       /* NULL: the mean anchors */
    const ladder_rating *rt;       /* the live ratings, shown beside the fit's */
    uint32_t n_rt;
    const char *what;              /* "official ratings", "luck-adjusted ratings" */
    const struct fit_view *adj;    /* the luck-adjusted fit beside this one, or NULL */
    const adjust_tally *tally;     /* with adj: what the adjustment did */
} fit_view;

/* The anchor as JSON: the anchor bot fixes its own part; every other
 * part's mean is mean_elo. */
static void json_fit_anchor(json_w *w, const fit_view *v)
{
    const ladder_fit_opts *fo = v->fo;
    jw_obj(w, "anchor");
    if (v->anchor_name) {
        const ladder_fit_player *ap = &v->f->players[fo->anchor_player];
        jw_num(w, "elo", fo->anchor_elo);
        jw_str(w, "bot", v->anchor_name);
        jw_int(w, "group", ap->group + 1);
        jw_int(w, "part", v->f->parts[ap->part].number);
    } else {
        jw_num(w, "elo", fo->mean_elo);
        jw_null(w, "bot");
        jw_null(w, "group");
        jw_null(w, "part");
    }
    jw_num(w, "mean_elo", fo->mean_elo);
    jw_obj_end(w);
}

/* The fit's strongly connected parts as JSON. */
static void json_fit_parts(json_w *w, const fit_view *v)
{
    jw_arr(w, "parts");
    for (uint32_t pi = 0; pi < v->f->n_parts; pi++) {
        const ladder_fit_part *pt = &v->f->parts[pi];
        jw_obj(w, NULL);
        jw_int(w, "group", pt->group + 1);
        jw_int(w, "part", pt->number);
        jw_str(w, "relation", ladder_fit_relation_name(pt->relation));
        jw_int(w, "bots", pt->rated);
        jw_str(w, "anchor", pt->anchored ? "bot" : "mean");
        jw_num(w, "anchor_elo", pt->anchored ? v->fo->anchor_elo : v->fo->mean_elo);
        jw_int(w, "matches", (long long)pt->matches);
        jw_int(w, "clusters", (long long)pt->clusters);
        jw_str(w, "covariance", pt->model_fallback ? "model" : "sandwich");
        jw_bool(w, "converged", pt->converged);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* Player p's rating as a JSON object. */
static void json_fit_rating(json_w *w, const fit_view *v, uint32_t p)
{
    const ladder_fit_player *pl = &v->f->players[p];
    bool rated = pl->status == LADDER_FIT_RATED;
    jw_obj(w, NULL);
    jw_identity(w, &v->in->bots[p], v->names[p]);
    jw_num(w, "games", pl->games);
    jw_int(w, "played", (long long)pl->matches);
    jw_finite(w, "elo", pl->elo);
    if (rated && isfinite(pl->ci_lo) && isfinite(pl->ci_hi)) {
        jw_arr(w, "elo_ci95");
        jw_num(w, NULL, pl->ci_lo);
        jw_num(w, NULL, pl->ci_hi);
        jw_arr_end(w);
    } else {
        jw_null(w, "elo_ci95");
    }
    jw_finite(w, "se", pl->se);
    jw_finite(w, "los_next", pl->los_next);
    jw_str(w, "status", ladder_fit_status_name(pl->status));
    jw_int(w, "group", pl->group + 1);
    if (rated)
        jw_int(w, "part", v->f->parts[pl->part].number);
    else
        jw_null(w, "part");
    jw_finite(w, "score", pl->score);
    jw_num(w, "wins", pl->wins);
    jw_num(w, "draws", pl->draws);
    jw_num(w, "losses", pl->losses);
    jw_finite(w, "live_elo", live_elo(v->rt, v->n_rt, v->in->bots[p].id));
    jw_obj_end(w);
}

/* The fit's members of its JSON object, from "method". */
static void json_fit_members(json_w *w, const fit_view *v)
{
    const ladder_fit *f = v->f;
    jw_str(w, "method", ladder_fit_model_name(v->fo->model));
    json_fit_anchor(w, v);
    jw_int(w, "matches", (long long)v->in->matches);
    jw_int(w, "clusters", (long long)f->clusters);
    /* matches = repeated + other_seats; merged = repeated + merged_within. */
    jw_obj(w, "replays");
    jw_int(w, "matches", (long long)v->in->replayed);
    jw_int(w, "repeated", (long long)f->replays_replayed);
    jw_int(w, "other_seats", (long long)(v->in->replayed - f->replays_replayed));
    jw_int(w, "merged_within", (long long)(f->replays - f->replays_replayed));
    jw_int(w, "merged", (long long)f->replays);
    jw_obj_end(w);
    jw_str(w, "covariance", f->model_fallback ? "model" : "sandwich");
    jw_int(w, "groups", f->n_groups);
    json_fit_parts(w, v);
    jw_arr(w, "ratings");
    for (uint32_t i = 0; i < f->n_players; i++)
        json_fit_rating(w, v, f->order[i]);
    jw_arr_end(w);
}

/* The adjustment's settings and counts, as JSON members. */
static void json_tally(json_w *w, const adjust_tally *t)
{
    adjust_opts o;
    adjust_opts_ranking(&o);
    jw_int(w, "adjusted_matches", (long long)t->adjusted);
    jw_int(w, "no_replay", (long long)t->no_replay);
    jw_int(w, "failed", (long long)t->failed);
    if (t->failed)
        jw_str(w, "first_failure", t->first_failure);
    else
        jw_null(w, "first_failure");
    jw_int(w, "rollouts", o.rollouts);
    jw_int(w, "samples", o.samples);
    jw_str(w, "policy", ADJUST_POLICY_NAMES[o.policy]);
    jw_str(w, "horizon", ADJUST_HORIZON_NAMES[o.horizon]);
    jw_num(w, "cpu_ms", t->cpu_ms);
}

/* The fit as one JSON object; the adjusted fit's in its "adjusted" member. */
static void json_fit(FILE *out, const fit_view *v)
{
    json_w w;
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_str(&w, "game", v->g->name);
    jw_int(&w, "seats", v->seats);
    arena_jw_options(&w, v->opts);
    json_fit_members(&w, v);
    if (v->adj) {
        jw_obj(&w, "adjusted");
        json_tally(&w, v->tally);
        json_fit_members(&w, v->adj);
        jw_obj_end(&w);
    }
    jw_obj_end(&w);
    jw_end(&w);
}

/* The anchor line of the text. */
static void print_anchor(FILE *out, const ladder_fit *f, const ladder_fit_opts *fo, const char *anchor_name)
{
    const char *unit = ladder_fit_several_parts(f) ? "part" : "group";
    bool several = f->n_parts > 1;
    if (anchor_name && several) {
        char where[64];
        part_label(f, f->players[fo->anchor_player].part, where, sizeof where);
        fprintf(out, "anchor: %s = %.0f in %s; in every other %s, the mean of its rated bots = %.0f\n",
               anchor_name, fo->anchor_elo, where, unit, fo->mean_elo);
    } else if (anchor_name) {
        fprintf(out, "anchor: %s = %.0f\n", anchor_name, fo->anchor_elo);
    } else {
        fprintf(out, "anchor: the mean of the rated bots%s%s = %.0f\n", several ? " of each " : "",
               several ? unit : "", fo->mean_elo);
    }
}

/* "N match" or "N matches". */
static const char *matches_s(uint64_t n)
{
    return n == 1 ? "match" : "matches";
}

/* The replays line, whose counts add up: the `replayed` matches dealt an
 * earlier tournament's deals are those that repeated a match (same bots,
 * same seats: merged with it) and those in other seats (in full); the
 * repeats merged are those and the ones within the deal's first
 * tournament. Nothing when there is neither. */
static void print_replays(FILE *out, uint64_t replayed, const ladder_fit *f)
{
    uint64_t rep = f->replays_replayed, within = f->replays - rep;
    if (!replayed && !within)
        return;
    fputs("replays: ", out);
    if (replayed)
        fprintf(out, "%llu %s dealt deals that an earlier tournament of this ladder had played "
                "(the same seeds), clustered with them: %llu repeated a match with the same "
                "bots in the same seats and count once with it (their mean), %llu sat the bots "
                "in other seats and count in full",
                (unsigned long long)replayed, replayed == 1 ? "match was" : "matches were",
                (unsigned long long)rep, (unsigned long long)(replayed - rep));
    if (within)
        fprintf(out, "%s%llu %s repeated a match of %s own tournament (the same deal, bots and "
                "seats) and count%s once with it", replayed ? "; " : "",
                (unsigned long long)within, matches_s(within), within == 1 ? "its" : "their",
                within == 1 ? "s" : "");
    fputc('\n', out);
}

/* The text's head: what was fitted, the options, the replays, the anchor. */
static void print_fit_head(FILE *out, const fit_view *v)
{
    const ladder_fit *f = v->f;
    const fit_input *in = v->in;
    fprintf(out, "%s, %u seats: %s (%s fit of %llu matches", v->g->name, v->seats, v->what,
            v->fo->model == LADDER_FIT_PLACKETT_LUCE ? "Plackett-Luce" : "Bradley-Terry",
            (unsigned long long)in->matches);
    if (f->clusters)
        fprintf(out, "; 95%% intervals from %llu independent deals", (unsigned long long)f->clusters);
    if (f->model_fallback && f->n_parts == 1)
        fprintf(out, "; the clustered covariance was singular (too few or too uniform deals), so "
               "the intervals are the model's");
    fprintf(out, ")\noptions: %s\n", v->opts);
    print_replays(out, in->replayed, f);
    print_anchor(out, f, v->fo, v->anchor_name);
}

/* The elo and interval columns of player pl, by its status. */
static void fit_elo_text(const ladder_fit_player *pl, char elo[24], char ci[40])
{
    switch (pl->status) {
    case LADDER_FIT_RATED:
        snprintf(elo, 24, "%.0f", pl->elo);
        if (isfinite(pl->ci_lo))
            snprintf(ci, 40, "[%.0f, %.0f]", pl->ci_lo, pl->ci_hi);
        else
            snprintf(ci, 40, "-");
        break;
    case LADDER_FIT_PERFECT:
        snprintf(elo, 24, "above");
        snprintf(ci, 40, "unbounded");
        break;
    case LADDER_FIT_ZERO:
        snprintf(elo, 24, "below");
        snprintf(ci, 40, "unbounded");
        break;
    default:
        snprintf(elo, 24, "-");
        snprintf(ci, 40, "-");
    }
}

/* Player p's row of the table, ranked rank, its bot and version in
 * columns c; parts: the part column too. */
static void print_fit_row(FILE *out, const fit_view *v, const table_cols *cols, uint32_t p,
                          int rank, bool parts)
{
    const ladder_fit_player *pl = &v->f->players[p];
    char elo[24], ci[40], los[16], score[16];
    fit_elo_text(pl, elo, ci);
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
        snprintf(part, sizeof part, " %4u", v->f->parts[pl->part].number);
    else if (parts)
        snprintf(part, sizeof part, " %4s", "-");
    char lead[16];
    snprintf(lead, sizeof lead, "  %2d  ", rank);
    table_cols_put(out, cols, lead, v->names[p], v->in->bots[p].version);
    fprintf(out, " %6s %8s  %-17s %8s %7s  %-16s%s\n", games, elo, ci, los, score, wdl, part);
}

/* The table: one per group, its bots in the fit's order. */
static void print_fit_table(FILE *out, const fit_view *v)
{
    const ladder_fit *f = v->f;
    bool parts = ladder_fit_several_parts(f);
    uint32_t group = UINT32_MAX;
    int rank = 0;
    table_cols c = {20, 8}; /* one width for every group's table */
    for (uint32_t p = 0; p < f->n_players; p++)
        table_cols_fit(&c, v->names[p], v->in->bots[p].version);
    for (uint32_t i = 0; i < f->n_players; i++) {
        uint32_t p = f->order[i];
        const ladder_fit_player *pl = &f->players[p];
        if (pl->group != group) {
            group = pl->group;
            const ladder_fit_group *gr = &f->groups[group];
            if (f->n_groups > 1)
                fprintf(out, "\ngroup %u of %u (%u bots; never met the other groups: ratings are "
                       "comparable only within a group)\n",
                       group + 1, f->n_groups, gr->players);
            table_cols_put(out, &c, "\n   #  ", "bot", "version");
            fprintf(out, " %6s %8s  %-17s %8s %7s  %-16s%s\n", "games", "elo", "95% interval",
                   "LOS>next", "score", "pairwise w-d-l", parts ? " part" : "");
            rank = 0;
        }
        print_fit_row(out, v, &c, p, ++rank, parts);
    }
}

/* Why player pl has no rating, in words, or NULL when it has one. */
static const char *unrated_why(const ladder_fit *f, const ladder_fit_player *pl)
{
    const ladder_fit_group *gr = &f->groups[pl->group];
    bool none = gr->parts == 0; /* nobody in its group is rated */
    bool one = gr->parts == 1;
    if (pl->status == LADDER_FIT_PERFECT)
        return none ? "won every game it played (a perfect score): its rating has no finite "
                      "estimate"
               : one ? "scored 100% against the rated bots (directly or through bots it "
                       "beat): its rating has no finite estimate above them"
                     : "scored 100% against part 1 (directly or through bots it beat): its "
                       "rating has no finite estimate above it";
    if (pl->status == LADDER_FIT_ZERO)
        return none ? "lost every game it played (a zero score): its rating has no finite "
                      "estimate"
               : one ? "scored 0% against the rated bots (directly or through bots that "
                       "beat it): its rating has no finite estimate below them"
                     : "scored 0% against part 1 (directly or through bots that beat it): "
                       "its rating has no finite estimate below it";
    if (pl->status == LADDER_FIT_UNRATED)
        return none ? "has no finite comparison with any bot: every result between its "
                      "group's bots was all or nothing"
               : one ? "has no finite comparison with the rated bots"
                     : "has no finite comparison with any part";
    return NULL;
}

/* The bots without a rating and the parts after part 1: what the table
 * cannot say. *said: a note is out (the first comes after a blank line). */
static void print_fit_unrated(FILE *out, const fit_view *v, bool *said)
{
    const ladder_fit *f = v->f;
    for (uint32_t i = 0; i < f->n_players; i++) {
        uint32_t p = f->order[i];
        const char *why = unrated_why(f, &f->players[p]);
        if (why) {
            fprintf(out, "%s%s %s\n", *said ? "" : "\n", v->names[p], why);
            *said = true;
        }
    }
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
        fprintf(out, "%s%s (%u bots) %s: it is rated on its own, %s, and its ratings compare only "
               "within it\n",
               *said ? "" : "\n", label, pt->rated, how,
               pt->anchored ? "around the anchor" : "around its own mean");
        *said = true;
    }
}

/* The notes on each part: too few deals, no convergence, a singular
 * covariance. */
static void print_fit_notes(FILE *out, const ladder_fit *f, bool said)
{
    for (uint32_t pi = 0; pi < f->n_parts; pi++) {
        const ladder_fit_part *pt = &f->parts[pi];
        char label[64];
        part_label(f, pi, label, sizeof label);
        if (pt->clusters < 2 * (uint64_t)pt->rated)
            fprintf(out, "%snote: %s has %llu independent deals for %u rated bots: too few for "
                   "trustworthy intervals\n",
                   said ? "" : "\n", label, (unsigned long long)pt->clusters, pt->rated);
        else if (!pt->converged)
            fprintf(out, "%snote: the fit of %s did not converge\n", said ? "" : "\n", label);
        else
            continue;
        said = true;
    }
    for (uint32_t pi = 0; pi < f->n_parts && f->n_parts > 1; pi++) {
        char label[64];
        part_label(f, pi, label, sizeof label);
        if (f->parts[pi].model_fallback)
            fprintf(out, "%snote: the clustered covariance of %s was singular (too few or too "
                   "uniform deals), so its intervals are the model's\n",
                   said ? "" : "\n", label);
        said |= f->parts[pi].model_fallback;
    }
}

/* The line between the raw fit and the adjusted one. */
static void print_tally(FILE *out, const adjust_tally *t)
{
    adjust_opts o;
    adjust_opts_ranking(&o);
    fprintf(out, "\nluck-adjusted: %llu of %llu matches adjusted from their replays (%u playouts "
            "as the players, %u reshuffles per chance event, to the end of the %s; %.0f ms "
            "CPU)", (unsigned long long)t->adjusted, (unsigned long long)t->matches,
            o.rollouts, o.samples, ADJUST_HORIZON_NAMES[o.horizon], t->cpu_ms);
    if (t->no_replay || t->failed)
        fprintf(out, "; %llu without a replay and %llu whose replay failed count with their raw "
                "results", (unsigned long long)t->no_replay, (unsigned long long)t->failed);
    fputc('\n', out);
    if (t->failed)
        fprintf(out, "first failure: %s\n", t->first_failure);
}

static void print_fit(FILE *out, const fit_view *v, bool json)
{
    if (json) {
        json_fit(out, v);
        return;
    }
    for (const fit_view *x = v; x; x = x->adj) {
        if (x != v)
            print_tally(out, v->tally);
        print_fit_head(out, x);
        print_fit_table(out, x);
        /* Say in words what the table cannot. */
        bool said = false;
        print_fit_unrated(out, x, &said);
        print_fit_notes(out, x->f, said);
    }
}

/* Reads --anchor BOT[=ELO] against the bots of the fit: BOT is any name
 * ladder_display_find accepts (every name the table prints), the whole
 * argument first, so that a name containing '=' is found too. Sets
 * fo->anchor_player and fo->anchor_elo; JA_EINVAL with the usage error for
 * a bad rating, an unknown name, or a name that fits several bots (listing
 * them as printed). */
static int parse_anchor(const char *anchor, const fit_input *in,
                        const ladder_display_name *names, ladder_fit_opts *fo, char *err,
                        size_t cap)
{
    uint32_t who;
    if (ladder_display_find(in->bots, names, in->n_bots, anchor, &who, NULL, 0) == JA_OK) {
        fo->anchor_player = (int)who;
        return JA_OK;
    }
    char *name = ja_xstrdup(anchor);
    int rc = JA_EINVAL;
    char *eq = strrchr(name, '=');
    if (eq) {
        char *end = NULL;
        *eq = '\0';
        errno = 0;
        fo->anchor_elo = strtod(eq + 1, &end);
        if (eq[1] == '\0' || *end || errno || !isfinite(fo->anchor_elo)) {
            snprintf(err, cap, "--anchor %s: the rating after '=' must be a number", anchor);
            goto out;
        }
    }
    char why[4096];
    if (ladder_display_find(in->bots, names, in->n_bots, name, &who, why, sizeof why) != JA_OK) {
        snprintf(err, cap, "--anchor %s: %s", name, why);
        goto out;
    }
    fo->anchor_player = (int)who;
    rc = JA_OK;
out:
    free(name);
    return rc;
}

/* What the fit of a ladder reads and makes: the live ratings, the bots
 * and their names, the matches, the fit's options and result. */
typedef struct fit_run {
    ladder_key key;
    fit_input in;
    ladder_rating *rt;
    uint32_t n_rt;
    ladder_display_name *names;
    ladder_fit_opts fo;
    ladder_fit *f;
} fit_run;

/* The live ratings, the bots with their names, and every match. */
static int read_fit(ladder_db *db, fit_run *r, char *err, size_t cap)
{
    if (ladder_db_ratings(db, &r->key, &r->rt, &r->n_rt) != JA_OK)
        return db_failed(db, err, cap);
    int rc = arena_ladder_names(db, &r->key, &r->in.bots, &r->names, &r->in.n_bots, err, cap);
    if (rc != JA_OK)
        return rc;
    rc = ladder_db_foreach_match(db, &r->key, collect_match, &r->in);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", rc == JA_EFORMAT
                                     ? "database: a result names a bot that does not exist"
                                     : ladder_db_errmsg(db));
        return rc == JA_EFORMAT ? rc : JA_EDB;
    }
    return JA_OK;
}

/* The fit of the matches read; with an anchor, the anchor bot must have a
 * finite rating (JA_EINVAL otherwise: the user's). */
static int run_fit(fit_run *r, const char *anchor, char *err, size_t cap)
{
    int rc = ladder_fit_run(r->in.m, r->in.n, r->in.n_bots, &r->fo, &r->f);
    if (rc != JA_OK) {
        snprintf(err, cap, "the fit failed: %s", rc == JA_ERANGE ? "too many bots in one ladder"
                                                                 : ja_strerror(rc));
        return rc == JA_EINVAL ? JA_EFORMAT : rc; /* results it refuses: not the user's */
    }
    if (anchor && !r->f->anchored) {
        snprintf(err, cap, "--anchor %s: this bot has no finite rating (%s), so it cannot be "
                 "the anchor", r->names[r->fo.anchor_player],
                 ladder_fit_status_name(r->f->players[r->fo.anchor_player].status));
        return JA_EINVAL;
    }
    return JA_OK;
}

/* The luck-adjusted fit beside r's (adjust_ladder.h): a copy of its
 * matches with their terms, fitted into *af. JA_EINVAL (the user's) when
 * no match could be adjusted. */
static int run_adjusted(ladder_db *db, fit_run *r, ladder_fit **af, adjust_tally *t, char *err,
                        size_t cap)
{
    adjust_opts o;
    adjust_opts_ranking(&o);
    size_t n1 = r->in.n ? r->in.n : 1;
    ladder_fit_match *m = ja_xmalloc(n1 * sizeof *m);
    double (*terms)[JA_MAX_SEATS] = ja_xmalloc(n1 * sizeof *terms);
    memcpy(m, r->in.m, r->in.n * sizeof *m);
    int rc = adjust_ladder_terms(db, &r->key, r->in.ids, r->in.digests, m, terms, r->in.n, &o,
                                 t, err, cap);
    if (rc == JA_OK && t->adjusted == 0) {
        snprintf(err, cap, "--adjusted: none of the %llu matches could be adjusted (%llu without "
                 "a replay: a tournament records them with --replays DIR; %llu whose replay "
                 "failed%s%s)", (unsigned long long)t->matches,
                 (unsigned long long)t->no_replay, (unsigned long long)t->failed,
                 t->failed ? ", the first: " : "", t->first_failure);
        rc = JA_EINVAL;
    }
    if (rc == JA_OK && (rc = ladder_fit_run(m, r->in.n, r->in.n_bots, &r->fo, af)) != JA_OK) {
        snprintf(err, cap, "the adjusted fit failed: %s", ja_strerror(rc));
        rc = JA_EFORMAT;
    }
    free(m);
    free(terms);
    return rc;
}

int arena_standings_fit(FILE *out, ladder_db *db, const ja_game_rules *g, uint32_t seats,
                        const char *opts, const char *anchor, ladder_fit_model model,
                        bool adjusted, bool json, char *err, size_t cap)
{
    fit_run r = {.key = {g->name, seats, opts}, .in = {.adjusted = adjusted}};
    ladder_fit *af = NULL;
    adjust_tally t;
    ladder_fit_opts_init(&r.fo);
    r.fo.model = model;
    int rc = read_fit(db, &r, err, cap);
    if (rc == JA_OK && anchor)
        rc = parse_anchor(anchor, &r.in, r.names, &r.fo, err, cap);
    if (rc == JA_OK && r.in.n_bots == 0) {
        live_view v = {.g = g, .seats = seats, .opts = opts, .db_path = ladder_db_path(db)};
        if (json)
            print_live(out, &v, NULL, NULL, 0, true);
        else
            fprintf(out, "no results yet for %s with these options in %s\n", g->name,
                   ladder_db_path(db));
    } else if (rc == JA_OK && (rc = run_fit(&r, anchor, err, cap)) == JA_OK &&
               (!adjusted || (rc = run_adjusted(db, &r, &af, &t, err, cap)) == JA_OK)) {
        const char *an = anchor ? r.names[r.fo.anchor_player] : NULL;
        fit_view av = {g, seats, opts, &r.in, r.names, af, &r.fo, an, r.rt, r.n_rt,
                       "luck-adjusted ratings", NULL, NULL};
        fit_view v = {g, seats, opts, &r.in, r.names, r.f, &r.fo, an, r.rt, r.n_rt,
                      "official ratings", adjusted ? &av : NULL, &t};
        print_fit(out, &v, json);
    }
    free(r.names);
    ladder_fit_free(&r.f);
    ladder_fit_free(&af);
    free(r.in.bots);
    free(r.in.m);
    free(r.in.ids);
    free(r.in.digests);
    free(r.rt);
    return rc;
}

/* ---- Cross-validation of the models ------------------------------------------------- */

static const char *const MODEL_TITLES[LADDER_FIT_MODEL_COUNT] = {"Bradley-Terry", "Plackett-Luce"};

static void json_cv_score(json_w *w, const char *key, const ladder_cv_score *sc)
{
    jw_obj(w, key);
    jw_finite(w, "order_logloss", sc->order_logloss);
    jw_finite(w, "pair_logloss", sc->pair_logloss);
    jw_finite(w, "top1", sc->top1);
    jw_obj_end(w);
}

static void json_cv(FILE *out, const ja_game_rules *g, uint32_t seats, const char *opts,
                    const fit_input *in, const ladder_cv *cv)
{
    json_w w;
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_str(&w, "game", g->name);
    jw_int(&w, "seats", seats);
    arena_jw_options(&w, opts);
    jw_int(&w, "matches", (long long)in->matches);
    jw_int(&w, "bots", in->n_bots);
    jw_int(&w, "clusters", (long long)cv->clusters);
    jw_int(&w, "folds", cv->folds);
    jw_int(&w, "scored", (long long)cv->scored);
    jw_int(&w, "skipped", (long long)cv->skipped);
    jw_num(&w, "weight", cv->weight);
    jw_num(&w, "pairs", cv->pairs);
    json_cv_score(&w, "equal", &cv->equal);
    jw_obj(&w, "models");
    for (unsigned m = 0; m < LADDER_FIT_MODEL_COUNT; m++)
        json_cv_score(&w, ladder_fit_model_name((ladder_fit_model)m), &cv->model[m]);
    jw_obj_end(&w);
    jw_obj(&w, "plackett_luce_gain");
    jw_finite(&w, "order", cv->order_gain);
    jw_finite(&w, "order_se", cv->order_gain_se);
    jw_finite(&w, "pair", cv->pair_gain);
    jw_finite(&w, "pair_se", cv->pair_gain_se);
    jw_obj_end(&w);
    jw_obj_end(&w);
    jw_end(&w);
}

static void text_cv_row(FILE *out, const char *name, const ladder_cv_score *sc)
{
    fprintf(out, "  %-15s %14.4f %17.4f %7.3f\n", name, sc->order_logloss, sc->pair_logloss,
            sc->top1);
}

static void text_cv(FILE *out, const ja_game_rules *g, uint32_t seats, const char *opts,
                    const fit_input *in, const ladder_cv *cv)
{
    fprintf(out, "%s, %u seats: %u-fold cross-validation by deal of the rating models (%llu "
            "matches, %llu deals, %u bots)\noptions: %s\n", g->name, seats, cv->folds,
            (unsigned long long)in->matches, (unsigned long long)cv->clusters, in->n_bots, opts);
    if (cv->scored == 0) {
        fprintf(out, "no held-out match could be scored: in every fold a bot of each match "
                "had no finite rating\n");
        return;
    }
    fprintf(out, "held out and scored: %llu matches", (unsigned long long)cv->scored);
    if (cv->skipped)
        fprintf(out, " (%llu more skipped: a bot without a finite rating in its fold's fit)",
                (unsigned long long)cv->skipped);
    fprintf(out, "\n\n  %-15s %14s %17s %7s\n", "model", "order log-loss", "pairwise log-loss",
            "top-1");
    text_cv_row(out, "equal ratings", &cv->equal);
    for (unsigned m = 0; m < LADDER_FIT_MODEL_COUNT; m++)
        text_cv_row(out, MODEL_TITLES[m], &cv->model[m]);
    fprintf(out, "\nPlackett-Luce's gain over Bradley-Terry (their log-losses' difference, with\n"
            "its standard error clustered by deal):\n  orders %+.4f (se %.4f), pairs %+.4f "
            "(se %.4f)\n", cv->order_gain, cv->order_gain_se, cv->pair_gain, cv->pair_gain_se);
    fprintf(out, "\nLog-loss in nats, lower is better: of each held-out finishing order under\n"
            "Plackett-Luce with the model's ratings, and of each pair of seats under\n"
            "Bradley-Terry. Top-1: how often the best-rated bot finished first.\n"
            "docs/ratings.md, \"Choosing the model\", says how to read them.\n");
}

int arena_standings_cv(FILE *out, ladder_db *db, const ja_game_rules *g, uint32_t seats,
                       const char *opts, uint32_t folds, bool json, char *err, size_t cap)
{
    fit_run r = {.key = {g->name, seats, opts}};
    ladder_cv cv = {0};
    int rc = read_fit(db, &r, err, cap);
    if (rc == JA_OK) {
        rc = ladder_fit_crossval(r.in.m, r.in.n, r.in.n_bots ? r.in.n_bots : 1, folds, &cv);
        if (rc == JA_EINVAL && cv.clusters < 2) {
            snprintf(err, cap, "--cross-validate needs matches of at least 2 deals; this ladder "
                     "has %llu", (unsigned long long)cv.clusters);
        } else if (rc != JA_OK) {
            snprintf(err, cap, "the cross-validation failed: %s",
                     rc == JA_ERANGE ? "too many bots in one ladder" : ja_strerror(rc));
            rc = rc == JA_EINVAL ? JA_EFORMAT : rc;
        }
    }
    if (rc == JA_OK && json)
        json_cv(out, g, seats, opts, &r.in, &cv);
    else if (rc == JA_OK)
        text_cv(out, g, seats, opts, &r.in, &cv);
    free(r.names);
    free(r.in.bots);
    free(r.in.m);
    free(r.rt);
    return rc;
}

int arena_standings_live(FILE *out, ladder_db *db, const ja_game_rules *g, uint32_t seats,
                         const char *opts, bool found, bool json, char *err, size_t cap)
{
    ladder_bot_row *bots = NULL;
    ladder_display_name *names = NULL;
    uint32_t n_bots = 0;
    live_view v = {.db = db, .g = g, .seats = seats, .opts = opts, .found = found,
                   .db_path = ladder_db_path(db)};
    ladder_rating *rt = NULL;
    int rc = JA_OK;
    if (found) {
        /* The ratings first: every bot they name is then among the bots. */
        ladder_key key = {g->name, seats, opts};
        if (ladder_db_ratings(db, &key, &rt, &v.n_rt) != JA_OK)
            rc = db_failed(db, err, cap);
        else
            rc = arena_ladder_names(db, &key, &bots, &names, &n_bots, err, cap);
    }
    v.rt = rt;
    if (rc == JA_OK)
        print_live(out, &v, bots, names, n_bots, json);
    free(names);
    free(bots);
    free(rt);
    return rc;
}
