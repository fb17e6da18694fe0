/* Standings of a ladder (standings.h): the live Elo table and the official
 * fit, as text or JSON. */
#include "run/standings.h"

#include "core/json_w.h"
#include "core/util.h"

#include "fit.h"
#include "jackarena/ja_error.h"
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

int arena_ladder_names(ladder_db *db, const ladder_key *key, ladder_bot_row **bots,
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
static void print_live(FILE *out, ladder_db *db, const ja_game_rules *g, uint32_t seats, const char *opts,
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
        jw_init(&w, out);
        jw_obj(&w, NULL);
        jw_str(&w, "game", g->name);
        if (seats)
            jw_int(&w, "seats", seats);
        else
            jw_null(&w, "seats");
        arena_jw_options(&w, opts);
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
        fprintf(out, "no results yet for %s with these options in %s\n", g->name, db_path);
    } else {
        fprintf(out, "%s, %u seats, live Elo (display only; --fit for official ratings)\n"
               "options: %s\n\n",
               g->name, seats, opts);
        fprintf(out, "   #  %-20s %-8s %6s %7s   %-14s %7s\n", "bot", "version", "games", "elo",
               "pairwise w-d-l", "faults");
        for (uint32_t i = 0; i < n_rt; i++) {
            char wdl[64];
            snprintf(wdl, sizeof wdl, "%lld-%lld-%lld", (long long)rt[i].wins,
                     (long long)rt[i].draws, (long long)rt[i].losses);
            fprintf(out, "  %2u  %-20s %-8s %6lld %7.0f   %-14s %7llu\n", i + 1, nm[i],
                   rt[i].version, (long long)rt[i].games, rt[i].elo, wdl,
                   (unsigned long long)bot_faults(db, g, seats, opts, rt[i].bot_id, fk));
        }
        /* Faults by kind, for the bots that made any. */
        for (uint32_t i = 0; i < n_rt; i++) {
            if (!bot_faults(db, g, seats, opts, rt[i].bot_id, fk))
                continue;
            fprintf(out, "  faults of %s:", nm[i]);
            for (int f = 1; f < JA_FAULT_COUNT; f++)
                if (fk[f])
                    fprintf(out, " %s %llu", ja_fault_name(f), (unsigned long long)fk[f]);
            fputc('\n', out);
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

int arena_fit_add(ladder_fit_match **m, size_t *n, size_t *cap, const ladder_match_row *row,
                  const uint32_t *player)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 1024;
        ladder_fit_match *p = realloc(*m, c * sizeof *p);
        if (p == NULL)
            return JA_ENOMEM;
        *m = p;
        *cap = c;
    }
    ladder_fit_match *x = &(*m)[*n];
    memset(x, 0, sizeof *x);
    x->cluster = row->deal;
    x->n_seats = row->n_seats;
    for (uint32_t s = 0; s < row->n_seats; s++) {
        x->player[s] = player[s];
        x->place[s] = row->place[s];
    }
    (*n)++;
    return JA_OK;
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
    int rc = arena_fit_add(&in->m, &in->n, &in->cap, row, player);
    if (rc != JA_OK)
        return rc;
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

static void json_fit(FILE *out, const ja_game_rules *g, uint32_t seats, const char *opts,
                     const fit_input *in, const ladder_display_name *names, const ladder_fit *f,
                     const ladder_fit_opts *fo, const char *anchor_name, const ladder_rating *rt,
                     uint32_t n_rt)
{
    json_w w;
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_str(&w, "game", g->name);
    jw_int(&w, "seats", seats);
    arena_jw_options(&w, opts);
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

static void print_fit(FILE *out, const ja_game_rules *g, uint32_t seats, const char *opts,
                      const fit_input *in, const ladder_display_name *names, const ladder_fit *f,
                      const ladder_fit_opts *fo, const char *anchor_name, const ladder_rating *rt,
                      uint32_t n_rt, bool json)
{
    if (json) {
        json_fit(out, g, seats, opts, in, names, f, fo, anchor_name, rt, n_rt);
        return;
    }
    bool parts = ladder_fit_several_parts(f);
    fprintf(out, "%s, %u seats: official ratings (Bradley-Terry fit of %llu matches", g->name, seats,
           (unsigned long long)in->matches);
    if (f->clusters)
        fprintf(out, "; 95%% intervals from %llu independent deals", (unsigned long long)f->clusters);
    if (f->model_fallback && f->n_parts == 1)
        fprintf(out, "; the clustered covariance was singular (too few or too uniform deals), so "
               "the intervals are the model's");
    fprintf(out, ")\noptions: %s\n", opts);
    if (in->replayed || f->replays) {
        fprintf(out, "replays: %llu match%s dealt deals that an earlier tournament of this ladder had "
               "played (the same seeds), clustered with them; %llu repeated a match with the "
               "same bots in the same seats and count%s once with it (their mean)\n",
               (unsigned long long)in->replayed, in->replayed == 1 ? " was" : "es were",
               (unsigned long long)f->replays, f->replays == 1 ? "s" : "");
    }
    print_anchor(out, f, fo, anchor_name);
    uint32_t group = UINT32_MAX;
    int rank = 0;
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
            fputc('\n', out);
            fprintf(out, "   #  %-20s %-8s %6s %8s  %-17s %8s %7s  %-16s%s\n", "bot", "version",
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
        fprintf(out, "  %2d  %-20s %-8s %6s %8s  %-17s %8s %7s  %-16s%s\n", ++rank, names[p],
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
            fprintf(out, "%s%s %s\n", said ? "" : "\n", names[p], why);
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
        fprintf(out, "%s%s (%u bots) %s: it is rated on its own, %s, and its ratings compare only "
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

int arena_standings_fit(FILE *out, ladder_db *db, const ja_game_rules *g, uint32_t seats, const char *opts,
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
    if (arena_ladder_names(db, &key, &in.bots, &names, &in.n_bots) != EXIT_OK)
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
            print_live(out, NULL, g, seats, opts, false, NULL, 0, NULL, NULL, 0, true,
                       ladder_db_path(db));
        else
            fprintf(out, "no results yet for %s with these options in %s\n", g->name,
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
    print_fit(out, g, seats, opts, &in, names, f, &fo, anchor_name, rt, n_rt, json);
    status = EXIT_OK;
out:
    free(names);
    ladder_fit_free(&f);
    free(in.bots);
    free(in.m);
    free(rt);
    return status;
}

int arena_standings_live(FILE *out, ladder_db *db, const ja_game_rules *g, uint32_t seats,
                         const char *opts, bool found, bool json)
{
    ladder_rating *rt = NULL;
    ladder_bot_row *bots = NULL;
    ladder_display_name *names = NULL;
    uint32_t n_rt = 0, n_bots = 0;
    int status = EXIT_OK;
    if (found) {
        /* The ratings first: every bot they name is then among the bots. */
        ladder_key key = {g->name, seats, opts};
        if (ladder_db_ratings(db, &key, &rt, &n_rt) != JA_OK) {
            arena_error("%s", ladder_db_errmsg(db));
            status = EXIT_RUNTIME;
            goto out;
        }
        if ((status = arena_ladder_names(db, &key, &bots, &names, &n_bots)) != EXIT_OK)
            goto out;
    }
    print_live(out, db, g, seats, opts, found, rt, n_rt, bots, names, n_bots, json,
               ladder_db_path(db));
out:
    free(names);
    free(bots);
    free(rt);
    return status;
}
