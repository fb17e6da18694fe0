/* The pages of `arena report`: reads each ladder's finished matches from the
 * store (ladder_db_foreach_match, and ladder_db_foreach_seat for the live Elo
 * history, the faults by kind and the replay files), fits the official
 * ratings (fit.h), and writes index.html and one page per bot (bots/) with
 * inline SVG charts and no script, styled by site.css (the server's style,
 * embedded from arena/serve/pages/site.css), plus one replay page per match
 * (viewer_html_replay), the pages sharing one copy of the viewer's script
 * and style in matches/. */
#include "view/report.h"

#include "core/json_w.h"
#include "core/util.h"
#include "fit.h"
#include "view/adjust_ladder.h"
#include "names.h"
#include "outfile.h"
#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "view/chart.h"
#include "view/viewer.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the report keeps of one seat beyond ladder_match_row. */
typedef struct seat_x {
    uint32_t faults[JA_FAULT_COUNT];
} seat_x;

/* One finished match. */
typedef struct rmatch {
    ladder_match_row row;
    seat_x seat[JA_MAX_SEATS];
    char *replay; /* as stored, or NULL */
    bool page;    /* its replay page was written */
} rmatch;

/* One bot of a ladder that played in the matches reported. */
typedef struct rplayer {
    uint32_t bot;      /* index into ladder_data.bots */
    char name[LADDER_LABEL_MAX]; /* its label: its display name (names.h), as `arena ladder`
                                  * shows it, with the parameters its version carries */
    int64_t games, wins, score;
    uint64_t faults[JA_FAULT_COUNT];
    double live_elo;   /* NAN when the ladder has no live rating for it */
    /* The rating chart: (match index, live Elo after it). */
    double *px, *py;
    size_t pn, pcap;
    /* The score of each of its seats, in match order (the histogram). */
    int64_t *sc;
    size_t sn, scap;
} rplayer;

/* Everything one ladder section shows. */
typedef struct ladder_data {
    const ladder_summary *ls;
    const report_opts *o;
    int64_t tournament_id;
    ladder_bot_row *bots;
    uint32_t n_bots;
    rmatch *m;
    size_t n, cap;
    int *bot_player; /* per bot: player index or -1 */
    rplayer *pl;
    uint32_t n_pl;
    uint64_t *pair;  /* n_pl x n_pl x 3: wins, draws, losses of row against column */
    ladder_fit *fit;
    ladder_fit *afit;     /* with o->adjusted: the luck-adjusted fit */
    adjust_tally tally;   /* ... and what its adjustment did */
} ladder_data;

/* ---- HTML helpers ------------------------------------------------------------ */

/* The bots' colours: classes c0 to c9 of site.css, in turn. */
#define PALETTE_N CHART_COLOURS

/* The site's style, the server's (arena/serve/pages/site.css, embedded by
 * arena/CMakeLists.txt). */
extern const char report_page_site_css[];

/* ---- Reading the store -------------------------------------------------------- */

static int collect_match(void *ctx, const ladder_match_row *row)
{
    ladder_data *d = ctx;
    if (d->tournament_id > 0 && row->tournament_id != d->tournament_id)
        return JA_OK;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 64;
        d->m = ja_xrealloc(d->m, d->cap * sizeof *d->m);
    }
    rmatch *m = &d->m[d->n++];
    memset(m, 0, sizeof *m);
    m->row = *row;
    return JA_OK;
}

/* The match of (tournament, number), or NULL (one recorded between the
 * two reads). d->m is sorted by tournament id, then number. */
static rmatch *find_match(ladder_data *d, int64_t tournament_id, uint32_t number)
{
    size_t lo = 0, hi = d->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const ladder_match_row *r = &d->m[mid].row;
        if (r->tournament_id < tournament_id ||
            (r->tournament_id == tournament_id && r->number < number))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < d->n && d->m[lo].row.tournament_id == tournament_id && d->m[lo].row.number == number)
        return &d->m[lo];
    return NULL;
}

static int collect_seat(void *ctx, const ladder_seat_detail *s)
{
    ladder_data *d = ctx;
    rmatch *m = find_match(d, s->tournament_id, s->number);
    if (m == NULL || s->seat >= JA_MAX_SEATS)
        return JA_OK;
    seat_x *x = &m->seat[s->seat];
    memcpy(x->faults, s->faults, sizeof x->faults);
    if (s->replay[0] && m->replay == NULL)
        m->replay = ja_xstrdup(s->replay);
    return JA_OK;
}

static void add_point(rplayer *p, double x, double y)
{
    if (p->pn == p->pcap) {
        p->pcap = p->pcap ? p->pcap * 2 : 32;
        p->px = ja_xrealloc(p->px, p->pcap * sizeof *p->px);
        p->py = ja_xrealloc(p->py, p->pcap * sizeof *p->py);
    }
    p->px[p->pn] = x;
    p->py[p->pn] = y;
    p->pn++;
}

/* Numbers the bots that played in order of first appearance (bot_player:
 * a player's index, or -1). JA_OK, or JA_EFORMAT (a result names a bot that
 * the ladder lacks). */
static int number_players(ladder_data *d)
{
    d->bot_player = ja_xmalloc(d->n_bots * sizeof *d->bot_player);
    for (uint32_t i = 0; i < d->n_bots; i++)
        d->bot_player[i] = -1;
    for (size_t i = 0; i < d->n; i++)
        for (uint32_t s = 0; s < d->m[i].row.n_seats; s++) {
            int b = ladder_bot_index(d->bots, d->n_bots, d->m[i].row.bot_id[s]);
            if (b < 0)
                return JA_EFORMAT;
            if (d->bot_player[b] < 0)
                d->bot_player[b] = (int)d->n_pl++;
        }
    return JA_OK;
}

/* Each player's bot, label and live Elo (NAN: the ladder has none for it).
 * The names are over the ladder's bots, as `arena ladder` names them, also
 * when the report shows one tournament; a bot given parameters shows them
 * (`ismcts#2(iters=200)`, names.h's labels). */
static void name_players(ladder_data *d, const ladder_rating *rt, uint32_t n_rt)
{
    ladder_display_name *names = NULL;
    /* Its one failure, a NULL argument, cannot be: the store gives d->bots
     * whenever d->n_bots > 0. */
    (void)ladder_display_names(d->bots, d->n_bots, &names);
    for (uint32_t b = 0; b < d->n_bots; b++) {
        int p = d->bot_player[b];
        if (p < 0)
            continue;
        d->pl[p].bot = b;
        ladder_display_label(d->pl[p].name, sizeof d->pl[p].name, &d->bots[b], names[b]);
        d->pl[p].live_elo = NAN;
        for (uint32_t r = 0; r < n_rt; r++)
            if (rt[r].bot_id == d->bots[b].id)
                d->pl[p].live_elo = rt[r].elo;
    }
    free(names);
}

/* Match i counted: its seats' players into p, its entry of the fit (fm),
 * its players' totals, and for each two seats of different players the
 * first one's win, draw or loss (pair). */
static void tally_match(ladder_data *d, size_t i, int p[JA_MAX_SEATS], ladder_fit_match *fm)
{
    const rmatch *m = &d->m[i];
    uint32_t ns = m->row.n_seats;
    fm->cluster = m->row.deal;
    fm->n_seats = ns;
    for (uint32_t s = 0; s < ns; s++) {
        p[s] = d->bot_player[ladder_bot_index(d->bots, d->n_bots, m->row.bot_id[s])];
        fm->player[s] = (uint32_t)p[s];
        fm->place[s] = m->row.place[s];
        rplayer *pl = &d->pl[p[s]];
        pl->games++;
        pl->wins += m->row.place[s] == 1;
        pl->score += m->row.score[s];
        if (pl->sn == pl->scap) {
            pl->scap = pl->scap ? pl->scap * 2 : 32;
            pl->sc = ja_xrealloc(pl->sc, pl->scap * sizeof *pl->sc);
        }
        pl->sc[pl->sn++] = m->row.score[s];
        for (int k = 1; k < JA_FAULT_COUNT; k++)
            pl->faults[k] += m->seat[s].faults[k];
    }
    for (uint32_t a = 0; a < ns; a++)
        for (uint32_t b = 0; b < ns; b++) {
            if (p[a] == p[b])
                continue;
            int res = m->row.place[a] < m->row.place[b]   ? 0
                      : m->row.place[a] == m->row.place[b] ? 1
                                                           : 2;
            d->pair[((size_t)p[a] * d->n_pl + (size_t)p[b]) * 3 + (size_t)res]++;
        }
}

/* The chart's points of match i, whose seats' players are p: each bot's
 * live Elo before it (at the bot's first match) and after it, which is its
 * Elo before plus the change of each of its seats (docs/database.md). */
static void chart_points(ladder_data *d, size_t i, const int p[JA_MAX_SEATS])
{
    const rmatch *m = &d->m[i];
    uint32_t ns = m->row.n_seats;
    for (uint32_t s = 0; s < ns; s++) {
        bool first = true;
        for (uint32_t t = 0; t < s; t++)
            first &= p[t] != p[s];
        if (!first)
            continue;
        rplayer *pl = &d->pl[p[s]];
        if (pl->pn == 0)
            add_point(pl, (double)i, m->row.elo_before[s]);
        add_point(pl, (double)i + 1, ladder_match_elo_after(&m->row, s));
    }
}

/* The luck-adjusted fit (d->afit) of the matches fm whose replays adjust;
 * the others keep their raw result, counted in d->tally. */
static int adjusted_fit(ladder_data *d, ladder_fit_match *fm)
{
    adjust_opts o;
    adjust_opts_ranking(&o);
    adjust_tally *t = &d->tally;
    double t0 = adjust_cpu_ms();
    double (*terms)[JA_MAX_SEATS] = ja_xmalloc((d->n ? d->n : 1) * sizeof *terms);
    for (size_t i = 0; i < d->n; i++) {
        char why[1400];
        const rmatch *m = &d->m[i];
        t->matches++;
        if (!m->replay) {
            t->no_replay++;
        } else if (adjust_replay_terms(m->replay, d->o->db_path, m->row.digest, &o,
                                       m->row.n_seats, terms[i], why, sizeof why) == JA_OK) {
            fm[i].term = terms[i];
            t->adjusted++;
        } else if (!t->failed++) {
            snprintf(t->first_failure, sizeof t->first_failure, "%s", why);
        }
    }
    t->cpu_ms = adjust_cpu_ms() - t0;
    int rc = t->adjusted ? ladder_fit_run(fm, d->n, d->n_pl, NULL, &d->afit) : JA_OK;
    free(terms);
    return rc;
}

/* The per-bot totals, pairwise results, rating history and the fit. JA_OK,
 * JA_EFORMAT (number_players) or the fit's code (ladder_fit_run). */
static int compute(ladder_data *d, const ladder_rating *rt, uint32_t n_rt)
{
    int rc = number_players(d);
    if (rc != JA_OK)
        return rc;
    d->pl = ja_xcalloc(d->n_pl, sizeof *d->pl);
    d->pair = ja_xcalloc((size_t)d->n_pl * d->n_pl * 3, sizeof *d->pair);
    ladder_fit_match *fm = ja_xcalloc(d->n, sizeof *fm);
    name_players(d, rt, n_rt);
    for (size_t i = 0; i < d->n; i++) {
        int p[JA_MAX_SEATS];
        tally_match(d, i, p, &fm[i]);
        chart_points(d, i, p);
    }
    if (d->n_pl > 0)
        rc = ladder_fit_run(fm, d->n, d->n_pl, NULL, &d->fit);
    if (rc == JA_OK && d->n_pl > 0 && d->o->adjusted)
        rc = adjusted_fit(d, fm);
    free(fm);
    return rc;
}

static void ladder_data_free(ladder_data *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->m[i].replay);
    /* pl is NULL when compute stopped before it (n_pl counted already). */
    for (uint32_t p = 0; d->pl && p < d->n_pl; p++) {
        free(d->pl[p].px);
        free(d->pl[p].py);
        free(d->pl[p].sc);
    }
    free(d->m);
    free(d->bots);
    free(d->bot_player);
    free(d->pl);
    free(d->pair);
    ladder_fit_free(&d->fit);
    ladder_fit_free(&d->afit);
    memset(d, 0, sizeof *d);
}

/* ---- Replay pages ----------------------------------------------------------------- */

/* Loads a replay without printing: the path as stored, else relative to the
 * database's directory. True with *r and *mo set (viewer_close). */
static bool load_replay(const char *stored, const char *db_path, ref_replay **r, viewer_model *mo)
{
    char path[LADDER_PATH_MAX + 1024], err[1200];
    struct stat sb;
    snprintf(path, sizeof path, "%s", stored);
    if (stat(path, &sb) != 0 && stored[0] != '/') {
        char dbdir[LADDER_PATH_MAX];
        snprintf(dbdir, sizeof dbdir, "%s", db_path);
        snprintf(path, sizeof path, "%s/%s", dirname(dbdir), stored);
    }
    memset(mo, 0, sizeof *mo);
    *r = NULL;
    if (ref_replay_load(path, r, err, sizeof err) != JA_OK)
        return false;
    uint8_t digest[REF_DIGEST_BYTES];
    if (!(*r)->game || ref_replay_verify(*r, digest, err, sizeof err) != JA_OK ||
        viewer_build(*r, mo, err, sizeof err) != JA_OK) {
        viewer_close(r, mo);
        return false;
    }
    return true;
}

/* The replay page of every match whose replay loads and re-simulates.
 * JA_OK, or viewer_html_replay's code with its line in err. */
static int write_pages(ladder_data *d, const report_opts *o, const char *dir, char *err,
                       size_t cap)
{
    for (size_t i = 0; i < d->n; i++) {
        rmatch *m = &d->m[i];
        if (m->replay == NULL)
            continue;
        ref_replay *r;
        viewer_model mo;
        if (!load_replay(m->replay, o->db_path, &r, &mo))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/matches/m%lld.html", dir, (long long)m->row.match_id);
        int rc = viewer_html_replay(&mo, path, "../index.html", true, err, cap);
        viewer_close(&r, &mo);
        if (rc != JA_OK)
            return rc;
        m->page = true;
    }
    return JA_OK;
}

/* ---- index.html and the bot pages ------------------------------------------------ */

static void score_text(int64_t units, char *buf, size_t cap)
{
    arena_format_score(units, buf, cap);
}

/* Player p's page, from a page at root ("" for index.html, "../" for a
 * page in bots/): ROOTbots/l<ladder id>-b<bot id>.html. */
static void bot_href(const ladder_data *d, uint32_t p, const char *root, char *buf, size_t cap)
{
    snprintf(buf, cap, "%sbots/l%lld-b%lld.html", root, (long long)d->ls->id,
             (long long)d->bots[d->pl[p].bot].id);
}

/* Player p's name, its colour key and a link to its page. */
static void bot_link(FILE *f, const ladder_data *d, uint32_t p, const char *root)
{
    char href[160];
    bot_href(d, p, root, href, sizeof href);
    fprintf(f, "<span class=\"key c%u\"></span><a href=\"%s\">", p % PALETTE_N, href);
    arena_html(f, d->pl[p].name);
    fputs("</a>", f);
}

/* Player p's fitted Elo and interval in fit as the standings show them. */
static void fit_text(const ladder_fit *fit, uint32_t p, char *elo, char *ci, size_t cap)
{
    const ladder_fit_player *fp = fit ? &fit->players[p] : NULL;
    elo[0] = ci[0] = '\0';
    if (fp && fp->status == LADDER_FIT_RATED && ladder_fit_several_parts(fit)) {
        snprintf(elo, cap, "%.0f (part %u)", fp->elo, fit->parts[fp->part].number);
        snprintf(ci, cap, "%.0f &ndash; %.0f", fp->ci_lo, fp->ci_hi);
    } else if (fp && fp->status == LADDER_FIT_RATED) {
        snprintf(elo, cap, "%.0f", fp->elo);
        snprintf(ci, cap, "%.0f &ndash; %.0f", fp->ci_lo, fp->ci_hi);
    } else if (fp) {
        snprintf(elo, cap, "%s", ladder_fit_status_name(fp->status));
        snprintf(ci, cap, "&ndash;");
    }
}

/* Player p rated with a finite interval (drawn in the fit chart). */
static bool has_interval(const ladder_data *d, uint32_t p)
{
    const ladder_fit_player *fp = d->fit ? &d->fit->players[p] : NULL;
    return fp && fp->status == LADDER_FIT_RATED && isfinite(fp->ci_lo) && isfinite(fp->ci_hi);
}

static uint64_t fault_total(const rplayer *pl)
{
    uint64_t faults = 0;
    for (int q = 1; q < JA_FAULT_COUNT; q++)
        faults += pl->faults[q];
    return faults;
}

/* With --adjusted: what the adjusted columns are, and how many matches
 * they adjust (or why there are none). */
static void adjusted_note(FILE *f, const ladder_data *d)
{
    const adjust_tally *t = &d->tally;
    if (!d->o->adjusted)
        return;
    fprintf(f, "<p class=\"muted\">Elo (luck-adjusted): the same fit with each match's luck taken "
            "out from its replay (docs/ratings.md, \"Luck-adjusted fit and bench\"): %llu of %llu "
            "matches adjusted", (unsigned long long)t->adjusted, (unsigned long long)t->matches);
    if (t->no_replay || t->failed)
        fprintf(f, "; %llu without a replay and %llu whose replay failed keep their raw result",
                (unsigned long long)t->no_replay, (unsigned long long)t->failed);
    fputs(d->afit ? ".</p>\n" : "; no adjusted fit.</p>\n", f);
    if (t->failed) {
        fputs("<p class=\"muted\">first failure: ", f);
        arena_html(f, t->first_failure);
        fputs("</p>\n", f);
    }
}

static void standings_notes(FILE *f, const ladder_data *d)
{
    const ladder_fit *fit = d->fit;
    fputs("<p class=\"muted\">Elo (fit): Bradley-Terry maximum likelihood over the "
          "matches shown, mean 1500, with cluster-robust 95% intervals (docs/ratings.md); "
          "live Elo: the ladder's running rating now, for display.",
          f);
    bool unbounded = false;
    for (uint32_t p = 0; fit && p < d->n_pl; p++)
        unbounded |= fit->players[p].status == LADDER_FIT_PERFECT ||
                     fit->players[p].status == LADDER_FIT_ZERO;
    if (unbounded)
        fputs(" perfect, zero: a 100% or 0% score against the rated bots, so no finite rating.",
              f);
    if (fit && fit->n_groups > 1)
        fputs(" Some bots never met: ratings compare only within a group of bots that did.", f);
    if (ladder_fit_several_parts(fit))
        fputs(" A part is rated on its own, mean 1500: its results against the other parts were "
              "all wins, all losses or none, so ratings of different parts do not compare.",
              f);
    fputs("</p>\n", f);
    adjusted_note(f, d);
}

static void write_standings(FILE *f, const ladder_data *d)
{
    fputs("<h3>Standings</h3>\n<table class=\"standings num\"><tr><th>#</th>"
          "<th class=\"l\">bot</th><th>games</th><th>wins</th><th>score</th><th>score/game</th>"
          "<th>Elo (fit)</th><th>95% interval</th>",
          f);
    if (d->afit)
        fputs("<th>Elo (luck-adjusted)</th><th>95% interval</th>", f);
    fputs("<th>live Elo</th><th>faults</th></tr>\n", f);
    for (uint32_t k = 0; k < d->n_pl; k++) {
        uint32_t p = d->fit ? d->fit->order[k] : k;
        const rplayer *pl = &d->pl[p];
        char sc[32], mean[32], elo[64], ci[64];
        score_text(pl->score, sc, sizeof sc);
        score_text(pl->games ? pl->score / pl->games : 0, mean, sizeof mean);
        fit_text(d->fit, p, elo, ci, sizeof elo);
        fprintf(f, "<tr><td>%u</td><td class=\"l\">", k + 1);
        bot_link(f, d, p, "");
        fprintf(f, "</td><td>%lld</td><td>%lld</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
                (long long)pl->games, (long long)pl->wins, sc, mean, elo, ci);
        if (d->afit) {
            fit_text(d->afit, p, elo, ci, sizeof elo);
            fprintf(f, "<td>%s</td><td>%s</td>", elo, ci);
        }
        if (isfinite(pl->live_elo))
            fprintf(f, "<td>%.0f</td>", pl->live_elo);
        else
            fputs("<td>&ndash;</td>", f);
        fprintf(f, "<td>%llu</td></tr>\n", (unsigned long long)fault_total(pl));
    }
    fputs("</table>\n", f);
    standings_notes(f, d);
}

/* The fitted ratings with their 95% intervals: one row per bot with an
 * interval, in the standings' order, the interval a bar and the Elo a dot. */
static void write_fit_chart(FILE *f, const ladder_data *d)
{
    double lo = INFINITY, hi = -INFINITY, step;
    uint32_t n = 0;
    for (uint32_t p = 0; p < d->n_pl; p++)
        if (has_interval(d, p)) {
            lo = fmin(lo, d->fit->players[p].ci_lo);
            hi = fmax(hi, d->fit->players[p].ci_hi);
            n++;
        }
    if (n == 0)
        return;
    chart_axis_range(&lo, &hi, &step);
    /* The labels' margin fits the longest (about 7 px a character, up to
     * half the chart). */
    int cols = 0;
    for (uint32_t p = 0; p < d->n_pl; p++)
        if (has_interval(d, p))
            cols = arena_col_width(cols, arena_text_cols(d->pl[p].name));
    const double W = 760, L = fmin(fmax(130, 7.0 * cols + 16), W / 2), R = 20, T = 8, RH = 22,
                 B = 30;
    double H = T + RH * n + B, pw = W - L - R;
#define SX(x) (L + ((x) - lo) / (hi - lo) * pw)
    fprintf(f, "<h3>Fitted ratings</h3>\n<svg class=\"fitchart\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"fitted Elo with 95%% "
               "intervals\">\n",
            W, H, W, H);
    for (double x = lo; x <= hi + step / 2; x += step)
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n",
                SX(x), T, SX(x), T + RH * n, SX(x), T + RH * n + 14, x);
    uint32_t row = 0;
    for (uint32_t k = 0; k < d->n_pl; k++) {
        uint32_t p = d->fit->order[k];
        if (!has_interval(d, p))
            continue;
        const ladder_fit_player *fp = &d->fit->players[p];
        double y = T + RH * (row++ + 0.5);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", L - 8, y + 4);
        arena_html(f, d->pl[p].name);
        fprintf(f, "</text><line class=\"ci c%u\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                   "y2=\"%.1f\"><title>%.0f &ndash; %.0f</title></line>"
                   "<circle class=\"fit c%u\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>\n",
                p % PALETTE_N, SX(fp->ci_lo), y, SX(fp->ci_hi), y, fp->ci_lo, fp->ci_hi,
                p % PALETTE_N, SX(fp->elo), y);
    }
#undef SX
    fputs("</svg>\n<p class=\"muted\">Each bot's fitted Elo (the dot) and its 95% interval "
          "(the bar).</p>\n",
          f);
}

/* The score rate's shade: h0 below 20%, h1 below 40%, ..., h4 from 80%. */
static int heat(double rate)
{
    int h = (int)(rate * 5);
    return h < 0 ? 0 : h > 4 ? 4 : h;
}

/* One crosstable cell: a's results against b. */
static void cross_cell(FILE *f, const ladder_data *d, uint32_t a, uint32_t b)
{
    if (a == b) {
        fputs("<td class=\"me\"></td>", f);
        return;
    }
    const uint64_t *x = &d->pair[((size_t)a * d->n_pl + b) * 3];
    uint64_t n = x[0] + x[1] + x[2];
    if (n == 0) {
        fputs("<td class=\"muted\">&ndash;</td>", f);
        return;
    }
    double rate = ((double)x[0] + 0.5 * (double)x[1]) / (double)n;
    fprintf(f, "<td class=\"heat h%d\">%.0f%% <span class=\"wdl\">%llu-%llu-%llu</span></td>",
            heat(rate), 100.0 * rate, (unsigned long long)x[0], (unsigned long long)x[1],
            (unsigned long long)x[2]);
}

static void heat_legend(FILE *f)
{
    static const char *const band[] = {"below 20%", "20&ndash;40%", "40&ndash;60%",
                                       "60&ndash;80%", "80% and more"};
    fputs("<p class=\"legend muted\">Score rate: ", f);
    for (int h = 0; h < 5; h++)
        fprintf(f, "<span class=\"heat h%d\">%s</span>", h, band[h]);
    fputs("</p>\n", f);
}

static void write_crosstable(FILE *f, const ladder_data *d)
{
    fputs("<h3>Crosstable</h3>\n<p class=\"muted\">Pairwise results of the row's bot against "
          "the column's (a better place in a match wins, an equal place is a draw): score "
          "percentage, and wins-draws-losses.</p>\n<table class=\"crosstable num\"><tr>"
          "<th class=\"l\">bot</th>",
          f);
    for (uint32_t c = 0; c < d->n_pl; c++) {
        fputs("<th>", f);
        arena_html(f, d->pl[d->fit ? d->fit->order[c] : c].name);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (uint32_t r = 0; r < d->n_pl; r++) {
        uint32_t a = d->fit ? d->fit->order[r] : r;
        fputs("<tr><th class=\"l\">", f);
        arena_html(f, d->pl[a].name);
        fputs("</th>", f);
        for (uint32_t c = 0; c < d->n_pl; c++)
            cross_cell(f, d, a, d->fit ? d->fit->order[c] : c);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    heat_legend(f);
}

/* The live Elo after each match: every player's line and a legend (only
 * -1), or player only's line. */
static void write_chart(FILE *f, const ladder_data *d, int only)
{
    fputs("<h3>Live Elo over time</h3>\n", f);
    chart_line *lines = ja_xcalloc(d->n_pl ? d->n_pl : 1, sizeof *lines);
    size_t n = 0;
    for (uint32_t p = 0; p < d->n_pl; p++)
        if (only < 0 || p == (uint32_t)only)
            lines[n++] = (chart_line){d->pl[p].name, p, d->pl[p].px, d->pl[p].py, d->pl[p].pn};
    chart_axes ax = {(double)d->n, "matches (tournament, then plan order)",
                     "live Elo after each match", only < 0, false};
    chart_elo_lines(f, lines, n, &ax);
    free(lines);
}

/* The range of every seat's score in the ladder (the histograms' axis). */
static void score_range(const ladder_data *d, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (uint32_t p = 0; p < d->n_pl; p++)
        for (size_t i = 0; i < d->pl[p].sn; i++) {
            *lo = d->pl[p].sc[i] < *lo ? d->pl[p].sc[i] : *lo;
            *hi = d->pl[p].sc[i] > *hi ? d->pl[p].sc[i] : *hi;
        }
    if (*lo > *hi)
        *lo = *hi = 0;
}

/* Player p's scores per match as a small histogram over [lo, hi], on a
 * page at root (bot_href). */
static void write_hist(FILE *f, const ladder_data *d, uint32_t p, int64_t lo, int64_t hi,
                       const char *root)
{
    enum { NB = 10 };
    const rplayer *pl = &d->pl[p];
    uint64_t bin[NB] = {0}, top = 1;
    int nb = hi > lo ? NB : 1;
    for (size_t i = 0; i < pl->sn; i++) {
        int b = hi > lo ? (int)((double)(pl->sc[i] - lo) / (double)(hi - lo) * nb) : 0;
        bin[b < nb ? b : nb - 1]++;
    }
    for (int b = 0; b < nb; b++)
        top = bin[b] > top ? bin[b] : top;
    const double W = 180, H = 64, L = 4, T = 4, BH = 40, bw = (W - 2 * L) / nb;
    char a[32], z[32];
    score_text(lo, a, sizeof a);
    score_text(hi, z, sizeof z);
    fputs("<figure class=\"hist\"><figcaption>", f);
    bot_link(f, d, p, root);
    fprintf(f, "</figcaption><svg class=\"hist\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"score per match\">",
            W, H, W, H);
    for (int b = 0; b < nb; b++) {
        double h = BH * (double)bin[b] / (double)top;
        fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                   "<title>%llu</title></rect>",
                L + bw * b + 1, T + BH - h, bw - 2, h, (unsigned long long)bin[b]);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text><text x=\"%.1f\" y=\"%.1f\" "
               "text-anchor=\"end\">%s</text></svg></figure>\n",
            L, T + BH + 16, a, W - L, T + BH + 16, z);
}

static void write_hists(FILE *f, const ladder_data *d)
{
    int64_t lo, hi;
    score_range(d, &lo, &hi);
    fputs("<h3>Score distributions</h3>\n<p class=\"muted\">Each bot's score per match: how "
          "many of its matches fell in each tenth of the ladder's range of scores.</p>\n<div>",
          f);
    for (uint32_t k = 0; k < d->n_pl; k++)
        write_hist(f, d, d->fit ? d->fit->order[k] : k, lo, hi, "");
    fputs("</div>\n", f);
}

static void write_faults(FILE *f, const ladder_data *d)
{
    fputs("<h3>Faults</h3>\n", f);
    uint64_t tot[JA_FAULT_COUNT] = {0};
    for (uint32_t p = 0; p < d->n_pl; p++)
        for (int k = 1; k < JA_FAULT_COUNT; k++)
            tot[k] += d->pl[p].faults[k];
    uint64_t all = 0;
    for (int k = 1; k < JA_FAULT_COUNT; k++)
        all += tot[k];
    if (all == 0) {
        fputs("<p class=\"faults\">No faults: every decision was legal and in time.</p>\n", f);
        return;
    }
    fputs("<table class=\"faults num\"><tr><th class=\"l\">bot</th>", f);
    for (int k = 1; k < JA_FAULT_COUNT; k++)
        if (tot[k])
            fprintf(f, "<th>%s</th>", ja_fault_name(k));
    fputs("</tr>\n", f);
    for (uint32_t r = 0; r < d->n_pl; r++) {
        uint32_t p = d->fit ? d->fit->order[r] : r;
        fputs("<tr><td class=\"l\">", f);
        arena_html(f, d->pl[p].name);
        fputs("</td>", f);
        for (int k = 1; k < JA_FAULT_COUNT; k++)
            if (tot[k])
                fprintf(f, "<td>%llu</td>", (unsigned long long)d->pl[p].faults[k]);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* Match m has a seat of player only (-1: every match has). */
static bool match_of(const ladder_data *d, const rmatch *m, int only)
{
    for (uint32_t s = 0; only >= 0 && s < m->row.n_seats; s++)
        if (d->bot_player[ladder_bot_index(d->bots, d->n_bots, m->row.bot_id[s])] == only)
            return true;
    return only < 0;
}

/* Match m's seats: each bot, with its score and place unless the report
 * hides results (--no-spoilers), the winner in bold. */
static void match_seats(FILE *f, const ladder_data *d, const rmatch *m)
{
    bool spoil = !d->o->no_spoilers;
    for (uint32_t s = 0; s < m->row.n_seats; s++) {
        int b = ladder_bot_index(d->bots, d->n_bots, m->row.bot_id[s]);
        char sc[32];
        score_text(m->row.score[s], sc, sizeof sc);
        fputs(s ? ", " : "", f);
        if (spoil && m->row.place[s] == 1)
            fputs("<b>", f);
        arena_html(f, d->pl[d->bot_player[b]].name);
        if (spoil)
            fprintf(f, " (%s, %u)", sc, (unsigned)m->row.place[s]);
        if (spoil && m->row.place[s] == 1)
            fputs("</b>", f);
    }
}

/* The match list (of player only's matches; -1: all) on a page at root:
 * with --no-spoilers, no score, place or length, only the replay link. */
static void write_matches(FILE *f, const ladder_data *d, int only, const char *root)
{
    bool spoil = !d->o->no_spoilers;
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += match_of(d, &d->m[i], only);
    fprintf(f, "<h3>Matches (%zu)</h3>\n<table class=\"matches num\"><tr><th>tournament</th>"
               "<th>match</th><th class=\"l\">%s</th>%s<th class=\"l\">replay</th></tr>\n",
            n, spoil ? "seats: bot (score, place)" : "seats", spoil ? "<th>turns</th>" : "");
    for (size_t i = 0; i < d->n; i++) {
        const rmatch *m = &d->m[i];
        if (!match_of(d, m, only))
            continue;
        fprintf(f, "<tr><td>%lld</td><td>%u</td><td class=\"l\">",
                (long long)m->row.tournament_id, m->row.number);
        match_seats(f, d, m);
        fputs("</td>", f);
        if (spoil && m->row.turns >= 0)
            fprintf(f, "<td>%lld</td>", (long long)m->row.turns);
        else if (spoil)
            fputs("<td>&ndash;</td>", f);
        if (m->page)
            fprintf(f, "<td class=\"l\"><a href=\"%smatches/m%lld.html\">watch</a></td></tr>\n",
                    root, (long long)m->row.match_id);
        else
            fprintf(f, "<td class=\"l muted\">%s</td></tr>\n",
                    m->replay ? "replay unreadable" : "no replay");
    }
    fputs("</table>\n", f);
    if (!spoil)
        fputs("<p class=\"muted\">Results hidden (--no-spoilers): watch a match to see "
              "it end.</p>\n",
              f);
}

/* The ladder's title: its game, seats and tournament. */
static void ladder_title(FILE *f, const ladder_data *d)
{
    const ja_game_rules *g = ja_game_find(d->ls->game);
    arena_html(f, g ? g->title : d->ls->game);
    fprintf(f, ", %u seats", d->ls->n_seats);
    if (d->tournament_id > 0)
        fprintf(f, ", tournament %lld", (long long)d->tournament_id);
}

static void write_ladder(FILE *f, const ladder_data *d)
{
    fputs("<section class=\"ladder\">\n<h2>", f);
    ladder_title(f, d);
    fprintf(f, " &middot; %zu matches</h2>\n<p class=\"opts\">", d->n);
    arena_html(f, d->ls->game);
    fputs(d->ls->options[0] ? " &middot; " : "", f);
    arena_html(f, d->ls->options);
    fputs("</p>\n", f);
    if (d->n == 0) {
        fputs("<p>No finished matches yet.</p>\n</section>\n", f);
        return;
    }
    write_standings(f, d);
    write_fit_chart(f, d);
    write_chart(f, d, -1);
    write_crosstable(f, d);
    write_hists(f, d);
    write_faults(f, d);
    write_matches(f, d, -1, "");
    fputs("</section>\n", f);
}

/* A bot page's table: its results against each opponent it met. */
static void write_opponents(FILE *f, const ladder_data *d, uint32_t a)
{
    fputs("<h3>Against each opponent</h3>\n<table class=\"opponents num\"><tr>"
          "<th class=\"l\">opponent</th><th>games</th><th>wins-draws-losses</th>"
          "<th>score rate</th></tr>\n",
          f);
    for (uint32_t k = 0; k < d->n_pl; k++) {
        uint32_t b = d->fit ? d->fit->order[k] : k;
        const uint64_t *x = &d->pair[((size_t)a * d->n_pl + b) * 3];
        uint64_t n = x[0] + x[1] + x[2];
        if (a == b || n == 0)
            continue;
        double rate = ((double)x[0] + 0.5 * (double)x[1]) / (double)n;
        fputs("<tr><td class=\"l\">", f);
        bot_link(f, d, b, "../");
        fprintf(f, "</td><td>%llu</td><td>%llu-%llu-%llu</td><td class=\"heat h%d\">%.0f%%</td>"
                   "</tr>\n",
                (unsigned long long)n, (unsigned long long)x[0], (unsigned long long)x[1],
                (unsigned long long)x[2], heat(rate), 100.0 * rate);
    }
    fputs("</table>\n", f);
    heat_legend(f);
}

/* A bot page's totals: the standings' row of bot p, the luck-adjusted Elo
 * and interval beside the official ones with --adjusted (and the index's
 * note on them). */
static void write_bot_summary(FILE *f, const ladder_data *d, uint32_t p)
{
    const rplayer *pl = &d->pl[p];
    char sc[32], elo[64], ci[64];
    score_text(pl->score, sc, sizeof sc);
    fit_text(d->fit, p, elo, ci, sizeof elo);
    fputs("<table class=\"botsum num\"><tr><th>games</th><th>wins</th><th>score</th>"
          "<th>Elo (fit)</th><th>95% interval</th>",
          f);
    if (d->afit)
        fputs("<th>Elo (luck-adjusted)</th><th>95% interval</th>", f);
    fprintf(f, "<th>live Elo</th><th>faults</th></tr>\n<tr><td>%lld</td><td>%lld</td>"
               "<td>%s</td><td>%s</td><td>%s</td>",
            (long long)pl->games, (long long)pl->wins, sc, elo, ci);
    if (d->afit) {
        fit_text(d->afit, p, elo, ci, sizeof elo);
        fprintf(f, "<td>%s</td><td>%s</td>", elo, ci);
    }
    if (isfinite(pl->live_elo))
        fprintf(f, "<td>%.0f</td>", pl->live_elo);
    else
        fputs("<td>&ndash;</td>", f);
    fprintf(f, "<td>%llu</td></tr>\n</table>\n", (unsigned long long)fault_total(pl));
    adjusted_note(f, d);
}

/* A bot page's body: its totals, its results against each opponent, its
 * rating history, its score distribution and its matches. */
static void write_bot_body(FILE *f, const ladder_data *d, uint32_t p)
{
    fputs("<nav><a href=\"../index.html\">the report</a></nav>\n<section class=\"ladder\">\n"
          "<h2>",
          f);
    bot_link(f, d, p, "../");
    fputs(" <span class=\"muted\">&middot; ", f);
    ladder_title(f, d);
    fputs("</span></h2>\n", f);
    write_bot_summary(f, d, p);
    write_opponents(f, d, p);
    write_chart(f, d, (int)p);
    int64_t lo, hi;
    score_range(d, &lo, &hi);
    fputs("<h3>Score distribution</h3>\n", f);
    write_hist(f, d, p, lo, hi, "../");
    write_matches(f, d, (int)p, "../");
    fputs("</section>\n", f);
}

/* A page's head: the site's style (at root: "" or "../") and a header
 * naming what is reported. */
static void write_head(FILE *f, const report_opts *o, const char *root)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>Jack Arena report</title>\n"
               "<link rel=\"stylesheet\" href=\"%ssite.css\"></head>\n<body>\n"
               "<header><h1>Jack Arena report</h1><p class=\"muted\">",
            root);
    arena_html(f, o->db_path);
    if (o->game) {
        fputs(" &middot; ", f);
        arena_html(f, o->game);
    }
    if (o->tournament_id > 0)
        fprintf(f, " &middot; tournament %lld", (long long)o->tournament_id);
    fputs("</p></header>\n<main>\n", f);
}

/* Every player's page, bots/l<ladder>-b<bot>.html, each written whole
 * (outfile.h). JA_OK or JA_EIO with its line in err. */
static int write_bot_pages(const ladder_data *d, const char *dir, char *err, size_t cap)
{
    for (uint32_t p = 0; p < d->n_pl; p++) {
        char href[160], path[4400];
        bot_href(d, p, "", href, sizeof href);
        snprintf(path, sizeof path, "%s/%s", dir, href);
        ref_out *out = NULL;
        if (ref_out_open(NULL, path, 0, &out, err, cap) != JA_OK)
            return JA_EIO;
        FILE *f = ref_out_file(out);
        write_head(f, d->o, "../");
        write_bot_body(f, d, p);
        fputs("</main>\n</body></html>\n", f);
        if (ref_out_commit(&out, err, cap) != JA_OK)
            return JA_EIO;
    }
    return JA_OK;
}

/* A database failure: its message in err. Returns rc. */
static int db_fail(ladder_db *db, int rc, char *err, size_t cap)
{
    snprintf(err, cap, "%s", ladder_db_errmsg(db));
    return rc;
}

/* Reads one ladder from the store: its bots, its live ratings (*rt, the
 * caller's to free), its finished matches (of o's tournament, if any) and
 * their seats. JA_OK, or the store's code with its line in err. */
static int read_ladder(ladder_db *db, const report_opts *o, ladder_data *d, ladder_rating **rt,
                       uint32_t *n_rt, char *err, size_t cap)
{
    ladder_key key = {d->ls->game, d->ls->n_seats, d->ls->options};
    int rc = ladder_db_ladder_bots(db, &key, &d->bots, &d->n_bots);
    if (rc == JA_OK)
        rc = ladder_db_ratings(db, &key, rt, n_rt);
    if (rc == JA_OK)
        rc = ladder_db_foreach_match(db, &key, collect_match, d);
    if (rc == JA_OK)
        rc = ladder_db_foreach_seat(db, &key, o->tournament_id, collect_seat, d);
    if (rc != JA_OK)
        db_fail(db, rc, err, cap);
    return rc;
}

/* Reads and computes one ladder, writes its replay pages and its section.
 * JA_OK, or the failing step's code with its line in err. */
static int do_ladder(ladder_db *db, const report_opts *o, const char *dir,
                     const ladder_summary *ls, FILE *f, char *err, size_t cap)
{
    ladder_data d = {0};
    d.ls = ls;
    d.o = o;
    d.tournament_id = o->tournament_id;
    ladder_rating *rt = NULL;
    uint32_t n_rt = 0;
    int rc = read_ladder(db, o, &d, &rt, &n_rt, err, cap);
    if (rc == JA_OK && (rc = compute(&d, rt, n_rt)) != JA_OK)
        snprintf(err, cap, "%s",
                 rc == JA_EFORMAT ? "database: a result names a bot that does not exist"
                                  : "the rating fit failed");
    if (rc == JA_OK)
        rc = write_pages(&d, o, dir, err, cap);
    if (rc == JA_OK)
        rc = write_bot_pages(&d, dir, err, cap);
    if (rc == JA_OK)
        write_ladder(f, &d);
    free(rt);
    ladder_data_free(&d);
    return rc;
}

/* The ladders to report (*ls, the caller's to free): those of o->game, or
 * of every game; with a tournament, *want is its ladder's id (otherwise 0:
 * every ladder with matches). JA_OK, or the store's code with its line in
 * err. */
static int list_ladders(ladder_db *db, const report_opts *o, ladder_summary **ls, uint32_t *n,
                        int64_t *want, char *err, size_t cap)
{
    *want = 0;
    if (o->tournament_id > 0) {
        ladder_tournament_info ti;
        int rc = ladder_db_tournament_get(db, o->tournament_id, &ti);
        if (rc != JA_OK)
            return db_fail(db, rc, err, cap);
        *want = ti.ladder_id;
    }
    int rc = ladder_db_ladders(db, o->game, ls, n);
    return rc == JA_OK ? JA_OK : db_fail(db, rc, err, cap);
}

/* dir/site.css, dir/bots, and dir/matches with the viewer's script and
 * style that every replay page shares. JA_OK or JA_EIO with its line in
 * err. */
static int start_dirs(const char *dir, char *err, size_t cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/site.css", dir);
    if (ref_out_write_file(NULL, path, 0, report_page_site_css, strlen(report_page_site_css),
                           err, cap) != JA_OK)
        return JA_EIO;
    snprintf(path, sizeof path, "%s/bots", dir);
    if (mkdir(path, 0755) != 0) {
        snprintf(err, cap, "cannot create '%s': %s", path, strerror(errno));
        return JA_EIO;
    }
    snprintf(path, sizeof path, "%s/matches", dir);
    if (mkdir(path, 0755) != 0) {
        snprintf(err, cap, "cannot create '%s': %s", path, strerror(errno));
        return JA_EIO;
    }
    return viewer_html_assets(path, err, cap) == JA_OK ? JA_OK : JA_EIO;
}

/* One section per ladder shown (the tournament's ladder want, else every
 * ladder with matches), or a line saying there is none. JA_OK, or
 * do_ladder's code with its line in err. */
static int write_sections(ladder_db *db, const report_opts *o, const char *dir,
                          const ladder_summary *ls, uint32_t n_ls, int64_t want, FILE *f,
                          char *err, size_t cap)
{
    int rc = JA_OK;
    uint32_t shown = 0;
    for (uint32_t i = 0; i < n_ls && rc == JA_OK; i++) {
        if (want && ls[i].id != want)
            continue;
        if (!want && ls[i].matches == 0)
            continue;
        rc = do_ladder(db, o, dir, &ls[i], f, err, cap);
        shown++;
    }
    if (rc == JA_OK && shown == 0)
        fputs("<p>No results in this database yet: play a tournament first.</p>\n", f);
    return rc;
}

/* dir/index.html, written whole (outfile.h): the head, the sections, the
 * end. JA_OK, or the failing step's code with its line in err. */
static int write_index(ladder_db *db, const report_opts *o, const char *dir,
                       const ladder_summary *ls, uint32_t n_ls, int64_t want, char *err,
                       size_t cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/index.html", dir);
    ref_out *out = NULL;
    if (ref_out_open(NULL, path, 0, &out, err, cap) != JA_OK)
        return JA_EIO;
    FILE *f = ref_out_file(out);
    write_head(f, o, "");
    int rc = write_sections(db, o, dir, ls, n_ls, want, f, err, cap);
    fputs("</main>\n</body></html>\n", f);
    if (rc != JA_OK) {
        ref_out_abort(&out);
        return rc;
    }
    return ref_out_commit(&out, err, cap) == JA_OK ? JA_OK : JA_EIO;
}

/* The marker that lets a later report replace dir (REPORT_MARKER). JA_OK
 * or JA_EIO with its line in err. */
static int write_marker(const char *dir, char *err, size_t cap)
{
    static const char marker[] = "made by arena report; a new report may replace this directory\n";
    char path[4096];
    snprintf(path, sizeof path, "%s/" REPORT_MARKER, dir);
    if (ref_out_write_file(NULL, path, 0, marker, sizeof marker - 1, err, cap) != JA_OK)
        return JA_EIO;
    return JA_OK;
}

int report_write(ladder_db *db, const report_opts *o, const char *dir, char *err, size_t cap)
{
    ladder_summary *ls = NULL;
    uint32_t n_ls = 0;
    int64_t want = 0;
    int rc = list_ladders(db, o, &ls, &n_ls, &want, err, cap);
    if (rc == JA_OK)
        rc = start_dirs(dir, err, cap);
    if (rc == JA_OK)
        rc = write_index(db, o, dir, ls, n_ls, want, err, cap);
    free(ls);
    if (rc == JA_OK)
        rc = write_marker(dir, err, cap);
    return rc;
}
