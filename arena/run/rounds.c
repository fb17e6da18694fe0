/* Swiss and knockout as they are played (rounds.h). */
#include "run/rounds.h"

#include "core/util.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <stdlib.h>
#include <string.h>

void arena_rounds_params(const ladder_tournament_info *ti, const uint64_t *deals,
                         uint32_t n_deals, ladder_plan_params *pp)
{
    *pp = (ladder_plan_params){ti->n_participants, ti->n_seats, ti->rounds, ti->format,
                               ti->duplicate, ti->seed, ti->seating, deals, n_deals};
}

/* The rounds whose matches are all stored and done. */
static uint32_t rounds_done(const ladder_played *h, uint32_t n)
{
    uint32_t r = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!h[i].done)
            return h[i].round;
        r = h[i].round + 1;
    }
    return r;
}

int arena_rounds_advance(ladder_db *db, int64_t tid, const uint64_t *deals, uint32_t n_deals,
                         bool *planned, char *err, size_t cap)
{
    *planned = false;
    ladder_tournament_info ti;
    int rc = ladder_db_tournament_get(db, tid, &ti);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(db));
        return rc;
    }
    if (!ladder_format_by_rounds(ti.format) || ti.n_done < ti.n_stored ||
        ti.n_stored >= ti.n_matches)
        return JA_OK;
    ladder_plan_params pp;
    arena_rounds_params(&ti, deals, n_deals, &pp);
    ladder_played *h = NULL;
    uint32_t n = 0;
    if ((rc = ladder_db_played(db, tid, &h, &n)) != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(db));
        return rc;
    }
    ladder_plan_match *m = NULL;
    uint32_t nm = 0;
    char why[300];
    rc = ladder_round_plan(&pp, h, n, rounds_done(h, n), &m, &nm, why, sizeof why);
    if (rc != JA_OK)
        snprintf(err, cap, "tournament %lld: %s", (long long)tid, why);
    else if (nm > 0 && (rc = ladder_db_plan_round(db, tid, m, nm)) != JA_OK)
        snprintf(err, cap, "%s", ladder_db_errmsg(db));
    *planned = rc == JA_OK && nm > 0;
    free(m);
    free(h);
    return rc;
}

bool arena_rounds_view_read(arena_rounds_view *v, ladder_db *db, const ladder_tournament_info *ti,
                            const uint64_t *deals, uint32_t n_deals, const arena_bots *bots)
{
    memset(v, 0, sizeof *v);
    if (!ladder_format_by_rounds(ti->format))
        return false;
    arena_rounds_params(ti, deals, n_deals, &v->pp);
    v->bots = bots;
    if (ladder_db_played(db, ti->id, &v->hist, &v->n_hist) != JA_OK)
        return false;
    v->rounds_done = rounds_done(v->hist, v->n_hist);
    v->rounds = ladder_rounds_total(&v->pp);
    return true;
}

void arena_rounds_view_free(arena_rounds_view *v)
{
    free(v->hist);
    memset(v, 0, sizeof *v);
}

static const char *slot_name(const arena_rounds_view *v, int32_t slot)
{
    return slot >= 0 && slot < v->bots->n ? v->bots->b[slot].name : "-";
}

/* Swiss points (and Buchholz, which sums K - 1 opponents a group) as
 * points: units of 1 / (2 (K - 1)) (pairing.h). */
static double points(const arena_rounds_view *v, uint32_t units, uint32_t per)
{
    return (double)units / (2.0 * (v->pp.n_seats - 1) * per);
}

/* The swiss standings of v, best first (a new array of N rows). */
static ladder_swiss_row *swiss_rows(const arena_rounds_view *v)
{
    ladder_swiss_row *rows = ja_xcalloc(v->pp.n_participants, sizeof *rows);
    ladder_swiss_standings(&v->pp, v->hist, v->n_hist, rows);
    return rows;
}

static void swiss_text(FILE *out, const arena_rounds_view *v)
{
    uint32_t n = v->pp.n_participants, k1 = v->pp.n_seats - 1;
    ladder_swiss_row *rows = swiss_rows(v);
    fprintf(out, "\nswiss standings after %u of %u rounds (points: %s; then Buchholz, then "
            "score; docs/tournament-plan.md):\n", v->rounds_done, v->rounds,
            k1 == 1 ? "win 1, draw 1/2, bye 1" : "1 for outscoring all of a group, bye 1");
    int width = 20;
    for (uint32_t i = 0; i < n; i++)
        width = arena_col_width(width, arena_text_cols(slot_name(v, (int32_t)rows[i].slot)));
    fputs("   #  ", out);
    arena_put_col(out, "bot", width);
    fprintf(out, " %7s %9s %9s %6s %5s\n", "points", "buchholz", "score", "played", "byes");
    for (uint32_t i = 0; i < n; i++) {
        char sc[32];
        arena_format_score(rows[i].score, sc, sizeof sc);
        fprintf(out, "  %2u  ", i + 1);
        arena_put_col(out, slot_name(v, (int32_t)rows[i].slot), width);
        fprintf(out, " %7.2f %9.2f %9s %6u %5u\n", points(v, rows[i].points, 1),
                points(v, rows[i].buchholz, k1), sc, rows[i].played, rows[i].byes);
    }
    free(rows);
}

/* The knockout's winner: the best of the last round's decided table. */
static int32_t ko_winner(const arena_rounds_view *v, const ladder_ko_tie *t, uint32_t n)
{
    return n && t[n - 1].round + 1 == v->rounds ? t[n - 1].winner : -1;
}

/* A K-seat table (or bye) as a line. */
static void table_text(FILE *out, const arena_rounds_view *v, const ladder_ko_tie *x)
{
    fprintf(out, "  round %u, table %u: ", x->round + 1, x->position + 1);
    if (x->bye) {
        fprintf(out, "%s (bye)\n", slot_name(v, x->winner));
        return;
    }
    for (uint32_t i = 0; i < x->n; i++)
        fprintf(out, "%s%s", i ? ", " : "", slot_name(v, x->slot[i]));
    if (x->played) {
        fputs("  scores", out);
        for (uint32_t i = 0; i < x->n; i++) {
            char a[32];
            arena_format_score(x->total[i], a, sizeof a);
            fprintf(out, "%s %s", i ? "," : "", a);
        }
        fputs(", wins", out);
        for (uint32_t i = 0; i < x->n; i++)
            fprintf(out, "%s %u", i ? "," : "", x->wins[i]);
        fputs(":", out);
        for (uint32_t i = 0, c = 0; i < x->n; i++)
            if (x->through[i])
                fprintf(out, "%s %s", c++ ? "," : "", slot_name(v, x->slot[i]));
        fputs(" through", out);
    } else {
        fprintf(out, "  (the best %u go through)", x->advance);
    }
    fputc('\n', out);
}

/* A 2-seat tie as a line. */
static void tie_text(FILE *out, const arena_rounds_view *v, const ladder_ko_tie *x)
{
    fprintf(out, "  round %u, tie %u: ", x->round + 1, x->position + 1);
    if (x->bye) {
        fprintf(out, "%s (bye)\n", slot_name(v, x->winner));
        return;
    }
    fprintf(out, "%s - %s", slot_name(v, x->slot[0]), slot_name(v, x->slot[1]));
    if (x->played) {
        char a[32], b[32];
        arena_format_score(x->total[0], a, sizeof a);
        arena_format_score(x->total[1], b, sizeof b);
        fprintf(out, "  %s - %s, wins %u - %u: %s through", a, b, x->wins[0], x->wins[1],
                slot_name(v, x->winner));
    }
    fputc('\n', out);
}

static void knockout_text(FILE *out, const arena_rounds_view *v)
{
    ladder_ko_tie *t = NULL;
    uint32_t n = 0;
    if (ladder_knockout_bracket(&v->pp, v->hist, v->n_hist, &t, &n) != JA_OK)
        return;
    if (v->pp.n_seats == 2)
        fprintf(out, "\nknockout bracket after %u of %u rounds (a tie: %u deal%s in both seat "
                "orders; the higher total score goes through, then more matches won, then the "
                "better seed):\n", v->rounds_done, v->rounds, v->pp.rounds,
                v->pp.rounds == 1 ? "" : "s");
    else
        fprintf(out, "\nknockout after %u of %u rounds (a table: %u deal%s in every seat order "
                "and rotation; ranked by total score, then matches won, then seed):\n",
                v->rounds_done, v->rounds, v->pp.rounds, v->pp.rounds == 1 ? "" : "s");
    for (uint32_t i = 0; i < n; i++)
        (v->pp.n_seats == 2 ? tie_text : table_text)(out, v, &t[i]);
    int32_t w = ko_winner(v, t, n);
    if (w >= 0)
        fprintf(out, "  winner: %s\n", slot_name(v, w));
    free(t);
}

void arena_rounds_print_text(FILE *out, const arena_rounds_view *v)
{
    if (v->pp.format == LADDER_FORMAT_SWISS)
        swiss_text(out, v);
    else if (v->pp.format == LADDER_FORMAT_KNOCKOUT)
        knockout_text(out, v);
}

static void swiss_json(json_w *w, const arena_rounds_view *v)
{
    uint32_t n = v->pp.n_participants, k1 = v->pp.n_seats - 1;
    ladder_swiss_row *rows = swiss_rows(v);
    jw_obj(w, "swiss");
    jw_int(w, "rounds", v->rounds);
    jw_int(w, "rounds_played", v->rounds_done);
    jw_arr(w, "standings");
    for (uint32_t i = 0; i < n; i++) {
        jw_obj(w, NULL);
        jw_int(w, "rank", i + 1);
        jw_str(w, "bot", slot_name(v, (int32_t)rows[i].slot));
        jw_num(w, "points", points(v, rows[i].points, 1));
        jw_num(w, "buchholz", points(v, rows[i].buchholz, k1));
        jw_score(w, "score", rows[i].score);
        jw_int(w, "played", rows[i].played);
        jw_int(w, "byes", rows[i].byes);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_obj_end(w);
    free(rows);
}

static void tie_json(json_w *w, const arena_rounds_view *v, const ladder_ko_tie *x)
{
    jw_obj(w, NULL);
    jw_int(w, "round", x->round + 1);
    jw_int(w, "tie", x->position + 1);
    jw_arr(w, "bots");
    for (uint32_t s = 0; s < x->n; s++)
        if (x->slot[s] >= 0)
            jw_str(w, NULL, slot_name(v, x->slot[s]));
        else
            jw_null(w, NULL);
    jw_arr_end(w);
    jw_bool(w, "bye", x->bye);
    jw_int(w, "advance", x->advance);
    if (x->played) {
        jw_arr(w, "scores");
        for (uint32_t s = 0; s < x->n; s++)
            jw_score(w, NULL, x->total[s]);
        jw_arr_end(w);
        jw_arr(w, "wins");
        for (uint32_t s = 0; s < x->n; s++)
            jw_int(w, NULL, x->wins[s]);
        jw_arr_end(w);
    }
    if (x->played || x->bye) {
        jw_arr(w, "through");
        for (uint32_t s = 0; s < x->n; s++)
            if (x->through[s])
                jw_str(w, NULL, slot_name(v, x->slot[s]));
        jw_arr_end(w);
    }
    if (x->winner >= 0)
        jw_str(w, "winner", slot_name(v, x->winner));
    else
        jw_null(w, "winner");
    jw_obj_end(w);
}

static void knockout_json(json_w *w, const arena_rounds_view *v)
{
    ladder_ko_tie *t = NULL;
    uint32_t n = 0;
    if (ladder_knockout_bracket(&v->pp, v->hist, v->n_hist, &t, &n) != JA_OK)
        return;
    jw_obj(w, "knockout");
    jw_int(w, "rounds", v->rounds);
    jw_int(w, "rounds_played", v->rounds_done);
    jw_int(w, "seats", v->pp.n_seats);
    jw_arr(w, "ties");
    for (uint32_t i = 0; i < n; i++)
        tie_json(w, v, &t[i]);
    jw_arr_end(w);
    int32_t win = ko_winner(v, t, n);
    if (win >= 0)
        jw_str(w, "winner", slot_name(v, win));
    else
        jw_null(w, "winner");
    jw_obj_end(w);
    free(t);
}

void arena_rounds_print_json(json_w *w, const arena_rounds_view *v)
{
    if (v->pp.format == LADDER_FORMAT_SWISS)
        swiss_json(w, v);
    else if (v->pp.format == LADDER_FORMAT_KNOCKOUT)
        knockout_json(w, v);
}
