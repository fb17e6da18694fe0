/* The bench runner (bench_run.h): duplicate deals against each opponent,
 * the paired statistics, the SPRT (one test, or a gauntlet of one test per
 * opponent) and the report. */
#include "run/bench_run.h"

#include "core/json_w.h"
#include "run/progress.h"
#include "core/util.h"
#include "view/adjust_ladder.h"

#include "elo.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "ja_xalloc.h"
#include "match.h"
#include "names.h"
#include "sprt.h"
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One opponent's results. */
typedef struct bench_opp {
    uint32_t deals, games;
    uint64_t wins, draws, losses, faults;
    double hist[LADDER_SPRT_MAX_CELLS]; /* deals by score: cell i = i / (cells - 1) */
    double llr;
    ladder_sprt_decision decision;
    ladder_paired_stats st;
    double nelo, nelo_lo, nelo_hi; /* normalized Elo; NAN without a t-value */
    /* With adjusted: the deal scores with the luck taken out, after two
     * regularising results at 0 and 1 (adj[0], adj[1], of weight cnt[0],
     * cnt[1]); the SPRT's llr and decision are theirs, raw_llr the raw
     * histogram's. */
    double *adj, *cnt;
    uint32_t adj_cap;
    double raw_llr;
    ladder_paired_stats ast;
    double anelo, anelo_lo, anelo_hi;
    double cpu_ms;                 /* adjusting */
} bench_opp;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

int arena_bench_reference_opponents(arena_bots *bs, const ja_game_rules *g, char *err,
                                    size_t cap)
{
    DIR *d = opendir(arena_bots_dir());
    if (d == NULL) {
        snprintf(err, cap, "cannot list the reference bots in '%s': %s (is JACKARENA_BOTS_DIR "
                 "right?)", arena_bots_dir(), strerror(errno));
        return JA_EIO;
    }
    char names[ARENA_MAX_BOTS][64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < ARENA_MAX_BOTS) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strncmp(e->d_name, "ja_", 3) != 0 ||
            strcmp(e->d_name + len - 3, ".so") != 0 || len - 6 >= sizeof names[0])
            continue;
        snprintf(names[n], sizeof names[n], "%.*s", (int)(len - 6), e->d_name + 3);
        if (strcmp(names[n], "ismcts") != 0)
            n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_name);
    int added = 0;
    for (int i = 0; i < n; i++) {
        char path[4200], why[1200];
        snprintf(path, sizeof path, "%s/ja_%s.so", arena_bots_dir(), names[i]);
        ref_bot *b = NULL;
        if (ref_bot_plugin_open(path, NULL, &b, why, sizeof why) != JA_OK)
            continue;
        bool plays = ref_bot_supports(b, g);
        ref_bot_destroy(&b);
        if (!plays)
            continue;
        int rc = arena_bots_add(bs, names[i], err, cap);
        if (rc != JA_OK)
            return rc;
        added++;
    }
    if (!added) {
        snprintf(err, cap, "no reference bot of this build plays %s: name opponents with --vs",
                 g->name);
        return JA_ENOTFOUND;
    }
    return JA_OK;
}

/* Formats an Elo value with its sign; infinite as "+inf" / "-inf". */
static void fmt_elo(double v, char *buf, size_t cap)
{
    if (isinf(v))
        snprintf(buf, cap, "%sinf", v > 0 ? "+" : "-");
    else
        snprintf(buf, cap, "%+.0f", v);
}


int arena_bench_prepare(arena_bench *b, const arena_bench_args *a, char *err, size_t cap)
{
    *b = (arena_bench){.a = a};
    err[0] = '\0';
    if (a->sprt && ladder_gauntlet_bounds(a->alpha, a->beta, (size_t)(a->bots->n - 1), &b->lower,
                                          &b->upper) != JA_OK) {
        snprintf(err, cap, "--alpha and --beta must be between 0 and 0.5");
        return JA_EINVAL;
    }
    return arena_bots_load(a->bots, a->game, err, cap);
}

/* The bench in play: its results, a row an opponent, and its progress. */
typedef struct bench_play {
    const arena_bench *b;
    const arena_bench_args *a;
    bench_opp *res;              /* one per opponent */
    int n_opp;
    uint32_t n_cells;            /* cells of a histogram of deal scores */
    progress pr;
    uint32_t done;               /* matches played */
    ladder_sprt_decision verdict; /* the gauntlet's (with sprt) */
    char tmp[64];                /* with adjusted: where each match's replay goes */
} bench_play;

/* The bot's share in seat me of the match just played (its replay at
 * bp->tmp) with its luck taken out, added to *adj. */
static int adjust_rotation(bench_play *bp, int op, uint32_t me, const ref_match_result *mr,
                           double *adj, char *why, size_t cap)
{
    adjust_opts o;
    adjust_opts_ranking(&o);
    double term[JA_MAX_SEATS], t0 = adjust_cpu_ms();
    int rc = adjust_replay_terms(bp->tmp, NULL, NULL, &o, bp->a->seats, term, why, cap);
    bp->res[op].cpu_ms += adjust_cpu_ms() - t0;
    unlink(bp->tmp);
    if (rc == JA_OK)
        *adj += adjust_share(&mr->outcome, bp->a->seats, me) - term[me];
    return rc;
}

/* One rotation of deal d against opponent op: the bot in seat `me`, the
 * opponent in every other; its pairwise results go into r and *halves, its
 * adjusted share (with adjusted) into *adj. */
static int play_rotation(bench_play *bp, ref_match_config *cfg, int op, uint32_t d,
                         uint32_t rot, uint32_t *halves, double *adj, char *err, size_t cap)
{
    const arena_bots *bots = bp->a->bots;
    const uint32_t seats = cfg->n_seats;
    bench_opp *r = &bp->res[op];
    ref_bot *sb[JA_MAX_SEATS];
    const char *names[JA_MAX_SEATS];
    uint32_t me = (seats - rot) % seats; /* seat i holds lineup[(i + rot) % K] */
    for (uint32_t s = 0; s < seats; s++) {
        int who = s == me ? 0 : 1 + op;
        sb[s] = bots->b[who].bot;
        names[s] = bots->b[who].name;
    }
    ref_match_result mr;
    char why[1600];
    cfg->bots = sb;
    cfg->names = names;
    ref_replay_writer *w = NULL;
    cfg->replay = bp->a->adjusted ? &w : NULL;
    int rc = bp->a->adjusted ? ref_replay_writer_open(bp->tmp, &w, why, sizeof why) : JA_OK;
    if (rc == JA_OK)
        rc = ref_match_run(cfg, &mr, why, sizeof why);
    if (rc == JA_OK && bp->a->adjusted)
        rc = adjust_rotation(bp, op, me, &mr, adj, why, sizeof why);
    if (rc != JA_OK) {
        snprintf(err, cap, "match failed (%s vs %s, deal %u): %s", bots->b[0].name,
                 bots->b[1 + op].name, d, why);
        return rc;
    }
    for (uint32_t s = 0; s < seats; s++) {
        if (s == me)
            continue;
        double p = ladder_elo_pair_score(mr.outcome.place[me], mr.outcome.place[s]);
        *halves += (uint32_t)(2 * p);
        r->wins += p == 1.0;
        r->draws += p == 0.5;
        r->losses += p == 0.0;
    }
    r->faults += mr.faults[me];
    r->games++;
    progress_update(&bp->pr, ++bp->done);
    return JA_OK;
}

/* The SPRT's look at opponent op's results so far, and a progress line
 * when its test decides. */
static int sprt_look(bench_play *bp, int op, char *err, size_t cap)
{
    const arena_bench_args *a = bp->a;
    bench_opp *r = &bp->res[op];
    int rc = ladder_sprt_llr_model(r->hist, bp->n_cells, a->model, a->seats, a->elo0, a->elo1,
                                   &r->llr);
    r->raw_llr = r->llr;
    if (rc == JA_OK && a->adjusted)
        rc = ladder_sprt_llr_values(r->adj, r->cnt, (size_t)r->deals + 2, a->model, a->seats,
                                    a->elo0, a->elo1, &r->llr);
    if (rc != JA_OK) {
        snprintf(err, cap, "the SPRT's likelihood ratio against %s has no value after %u deals "
                 "(the %s model found no distribution with H0's or H1's value)",
                 a->bots->b[1 + op].name, r->deals, ladder_sprt_model_name(a->model));
        return rc;
    }
    r->decision = ladder_sprt_decide(r->llr, bp->b->lower, bp->b->upper);
    if (r->decision != LADDER_SPRT_CONTINUE) {
        char line[512], opp[LADDER_LABEL_MAX];
        arena_bot_label(&a->bots->b[1 + op], opp, sizeof opp);
        snprintf(line, sizeof line, "SPRT vs %s: %s accepted after %u deals (%u games), LLR %.3f",
                 opp, ladder_sprt_decision_name(r->decision), r->deals, r->games, r->llr);
        progress_note(&bp->pr, line);
    }
    return JA_OK;
}

/* Appends an adjusted deal score to r (bench_opp.adj). */
static void add_adjusted(bench_opp *r, double x)
{
    if (r->deals + 2 >= r->adj_cap) {
        r->adj_cap = r->adj_cap ? 2 * r->adj_cap : 64;
        r->adj = ja_xrealloc(r->adj, r->adj_cap * sizeof *r->adj);
        r->cnt = ja_xrealloc(r->cnt, r->adj_cap * sizeof *r->cnt);
        r->adj[0] = 0.0;
        r->adj[1] = 1.0;
        r->cnt[0] = r->cnt[1] = LADDER_SPRT_EPSILON;
    }
    r->adj[r->deals + 2] = x;
    r->cnt[r->deals + 2] = 1.0;
}

/* Deal d against opponent op, from every seat, and the SPRT's look at the
 * results so far. */
static int play_deal(bench_play *bp, int op, uint32_t d, char *err, size_t cap)
{
    const arena_bench_args *a = bp->a;
    bench_opp *r = &bp->res[op];
    ref_match_config cfg = {0};
    cfg.game = a->game;
    cfg.options = a->options;
    cfg.n_seats = a->seats;
    cfg.move_ms = a->move_ms;
    cfg.match_id = "bench";
    /* The same deals for every opponent: common random numbers. */
    cfg.seed = ja_seed_derive(a->seed, JA_STREAM_MATCH, d);
    uint32_t halves = 0; /* the bot's pairwise points, in halves */
    double adj = 0;      /* its adjusted shares */
    for (uint32_t rot = 0; rot < a->seats; rot++) {
        int rc = play_rotation(bp, &cfg, op, d, rot, &halves, &adj, err, cap);
        if (rc != JA_OK)
            return rc;
    }
    r->hist[halves]++;
    if (a->adjusted)
        add_adjusted(r, adj / a->seats);
    r->deals++;
    return a->sprt ? sprt_look(bp, op, err, cap) : JA_OK;
}

/* The gauntlet's verdict from its tests'. */
static ladder_sprt_decision gauntlet_verdict(const bench_play *bp)
{
    ladder_sprt_decision each[ARENA_MAX_BOTS];
    for (int op = 0; op < bp->n_opp; op++)
        each[op] = bp->res[op].decision;
    return ladder_gauntlet_decide(each, (size_t)bp->n_opp);
}

/* With the SPRT: deal d against each opponent whose test goes on, in
 * turn, until the gauntlet decides at the end of a round (one opponent:
 * its test); so every opponent plays at least one deal. */
static int play_sprt(bench_play *bp, char *err, size_t cap)
{
    for (uint32_t d = 0; d < bp->a->deals && bp->verdict == LADDER_SPRT_CONTINUE; d++) {
        for (int op = 0; op < bp->n_opp; op++) {
            if (bp->res[op].decision != LADDER_SPRT_CONTINUE)
                continue;
            int rc = play_deal(bp, op, d, err, cap);
            if (rc != JA_OK)
                return rc;
        }
        bp->verdict = gauntlet_verdict(bp);
    }
    return JA_OK;
}

/* Without: every deal against each opponent in turn. */
static int play_fixed(bench_play *bp, char *err, size_t cap)
{
    for (int op = 0; op < bp->n_opp; op++) {
        for (uint32_t d = 0; d < bp->a->deals; d++) {
            int rc = play_deal(bp, op, d, err, cap);
            if (rc != JA_OK)
                return rc;
        }
    }
    return JA_OK;
}

/* Every deal against every opponent (until the SPRT decides), then each
 * opponent's statistics. */
static int play_all(bench_play *bp, char *err, size_t cap)
{
    const arena_bench_args *a = bp->a;
    progress_begin(&bp->pr, a->deals * a->seats * (uint32_t)bp->n_opp, 0, a->quiet);
    int rc = a->sprt ? play_sprt(bp, err, cap) : play_fixed(bp, err, cap);
    progress_end(&bp->pr, bp->done);
    if (rc != JA_OK)
        return rc;
    for (int op = 0; op < bp->n_opp; op++) { /* each has played a deal at least */
        bench_opp *r = &bp->res[op];
        ladder_paired_stats_compute(r->hist, bp->n_cells, LADDER_Z95, &r->st);
        ladder_paired_nelo(&r->st, a->seats, &r->nelo, &r->nelo_lo, &r->nelo_hi);
        if (a->adjusted) {
            ladder_paired_stats_values(r->adj + 2, r->deals, LADDER_Z95, &r->ast);
            ladder_paired_nelo(&r->ast, a->seats, &r->anelo, &r->anelo_lo, &r->anelo_hi);
        }
    }
    return JA_OK;
}

/* Participant b as JSON members: "bot" (its name), "params" (its
 * parameters, "" for none) and "label" (the name the text prints, with the
 * parameters). */
static void json_bot(json_w *w, const arena_bot *b)
{
    char label[LADDER_LABEL_MAX];
    arena_bot_label(b, label, sizeof label);
    jw_str(w, "bot", b->name);
    jw_str(w, "params", b->params);
    jw_str(w, "label", label);
}

/* An Elo interval as a JSON array (null for an unbounded end). */
static void json_ci(json_w *w, const char *key, double lo, double hi)
{
    jw_arr(w, key);
    jw_num(w, NULL, lo);
    jw_num(w, NULL, hi);
    jw_arr_end(w);
}

/* The opponent's "adjusted": the same figures on luck-adjusted deal
 * scores; left out without --adjusted. */
static void json_adjusted(json_w *w, const bench_play *bp, const bench_opp *r)
{
    if (!bp->a->adjusted)
        return;
    adjust_opts o;
    adjust_opts_ranking(&o);
    jw_obj(w, "adjusted");
    jw_num(w, "score", r->ast.mean);
    jw_num(w, "elo_diff", r->ast.elo);
    json_ci(w, "elo_ci95", r->ast.elo_lo, r->ast.elo_hi);
    jw_num(w, "los", r->ast.los);
    jw_num(w, "sd", r->ast.sd);
    jw_num(w, "raw_sd", r->st.sd);
    jw_num(w, "nelo", r->anelo);
    json_ci(w, "nelo_ci95", r->anelo_lo, r->anelo_hi);
    jw_int(w, "rollouts", o.rollouts);
    jw_int(w, "samples", o.samples);
    jw_str(w, "policy", ADJUST_POLICY_NAMES[o.policy]);
    jw_str(w, "horizon", ADJUST_HORIZON_NAMES[o.horizon]);
    jw_num(w, "cpu_ms", r->cpu_ms);
    jw_obj_end(w);
}

/* Opponent op's row of the JSON's "opponents". */
static void json_opponent(json_w *w, const bench_play *bp, int op)
{
    const bench_opp *r = &bp->res[op];
    jw_obj(w, NULL);
    json_bot(w, &bp->a->bots->b[1 + op]);
    jw_int(w, "games", r->games);
    jw_int(w, "deals", r->deals);
    jw_num(w, "score", r->st.mean);
    jw_num(w, "elo_diff", r->st.elo);
    jw_arr(w, "elo_ci95");
    jw_num(w, NULL, r->st.elo_lo);
    jw_num(w, NULL, r->st.elo_hi);
    jw_arr_end(w);
    jw_num(w, "los", r->st.los);
    jw_bool(w, "conservative", r->st.conservative);
    jw_num(w, "nelo", r->nelo);
    jw_arr(w, "nelo_ci95");
    jw_num(w, NULL, r->nelo_lo);
    jw_num(w, NULL, r->nelo_hi);
    jw_arr_end(w);
    jw_int(w, "wins", (long long)r->wins);
    jw_int(w, "draws", (long long)r->draws);
    jw_int(w, "losses", (long long)r->losses);
    jw_int(w, "faults", (long long)r->faults);
    jw_arr(w, bp->a->seats == 2 ? "pentanomial" : "deal_scores");
    for (uint32_t i = 0; i < bp->n_cells; i++)
        jw_int(w, NULL, (long long)r->hist[i]);
    jw_arr_end(w);
    if (bp->a->sprt) {
        jw_obj(w, "sprt");
        jw_num(w, "llr", r->llr);
        if (bp->a->adjusted)
            jw_num(w, "raw_llr", r->raw_llr);
        jw_str(w, "result", ladder_sprt_decision_name(r->decision));
        jw_obj_end(w);
    } else {
        jw_null(w, "sprt");
    }
    json_adjusted(w, bp, r);
    jw_obj_end(w);
}

/* The gauntlet's totals: the least LLR of its tests (the one its verdict
 * rests on: H1 needs every LLR at the upper bound, H0 one at the lower),
 * and the deals and games played against all opponents. */
static double gauntlet_totals(const bench_play *bp, uint32_t *deals, uint32_t *games)
{
    double llr = INFINITY;
    *deals = *games = 0;
    for (int op = 0; op < bp->n_opp; op++) {
        llr = fmin(llr, bp->res[op].llr);
        *deals += bp->res[op].deals;
        *games += bp->res[op].games;
    }
    return llr;
}

/* The JSON's "sprt": the test and its verdict; null without one. */
static void json_sprt(json_w *w, const bench_play *bp)
{
    const arena_bench_args *a = bp->a;
    if (!a->sprt) {
        jw_null(w, "sprt");
        return;
    }
    uint32_t deals, games;
    double llr = gauntlet_totals(bp, &deals, &games);
    jw_obj(w, "sprt");
    jw_str(w, "model", ladder_sprt_model_name(a->model));
    jw_num(w, "elo0", a->elo0);
    jw_num(w, "elo1", a->elo1);
    jw_num(w, "alpha", a->alpha);
    jw_num(w, "beta", a->beta);
    jw_num(w, "llr", llr);
    jw_arr(w, "bounds");
    jw_num(w, NULL, bp->b->lower);
    jw_num(w, NULL, bp->b->upper);
    jw_arr_end(w);
    jw_str(w, "result", ladder_sprt_decision_name(bp->verdict));
    jw_int(w, "games", games);
    jw_int(w, "deals", deals);
    jw_obj_end(w);
}

/* The report as one JSON object and a newline. */
static void print_json(FILE *out, const bench_play *bp, const char *seed_s)
{
    const arena_bench_args *a = bp->a;
    const ja_game_rules *g = a->game;
    json_w w;
    jw_init(&w, out);
    jw_obj(&w, NULL);
    json_bot(&w, &a->bots->b[0]);
    jw_str(&w, "game", g->name);
    jw_str(&w, "seed", seed_s);
    jw_int(&w, "seats", a->seats);
    jw_obj(&w, "options");
    for (uint32_t i = 0; i < a->options.n; i++) {
        char v[64];
        ja_options_value_str(g, &a->options, (int)i, v, sizeof v);
        jw_str(&w, g->options[i].name, v);
    }
    jw_obj_end(&w);
    jw_arr(&w, "opponents");
    for (int op = 0; op < bp->n_opp; op++)
        json_opponent(&w, bp, op);
    jw_arr_end(&w);
    json_sprt(&w, bp);
    jw_obj_end(&w);
    jw_end(&w);
}

/* A verdict as the text says it; the test of an opponent still going on
 * when the gauntlet decided was stopped. */
static const char *verdict_text(ladder_sprt_decision d, bool stopped)
{
    if (d == LADDER_SPRT_H1)
        return "H1 accepted";
    if (d == LADDER_SPRT_H0)
        return "H0 accepted";
    return stopped ? "inconclusive (stopped: the gauntlet's H0 was accepted)"
                   : "inconclusive (raise --games to go on)";
}

/* Opponent r's normalized Elo and its interval, as " nElo +12 [-3, +27]"
 * (with the nelo model; "" otherwise, or without a t-value). */
static void fmt_nelo(const bench_play *bp, const bench_opp *r, char *buf, size_t cap)
{
    char e[16], lo[16], hi[16];
    buf[0] = '\0';
    if (bp->a->model != LADDER_SPRT_NELO || isnan(r->nelo))
        return;
    fmt_elo(r->nelo, e, sizeof e);
    fmt_elo(r->nelo_lo, lo, sizeof lo);
    fmt_elo(r->nelo_hi, hi, sizeof hi);
    snprintf(buf, cap, ", nElo %s [%s, %s]", e, lo, hi);
}

/* The SPRT's lines of the text: the test, where each LLR stands, and the
 * verdicts. One opponent: one line. A gauntlet: the test, a line an
 * opponent (in the table's column), and the gauntlet's verdict. */
static void print_sprt(FILE *out, const bench_play *bp, char (*label)[LADDER_LABEL_MAX], int width)
{
    const arena_bench_args *a = bp->a;
    const char *unit = a->model == LADDER_SPRT_NELO ? "nElo" : "Elo";
    char bot[LADDER_LABEL_MAX], nelo[96];
    arena_bot_label(&a->bots->b[0], bot, sizeof bot);
    if (bp->n_opp == 1) {
        const bench_opp *r = &bp->res[0];
        fmt_nelo(bp, r, nelo, sizeof nelo);
        char raw[64] = "";
        if (a->adjusted)
            snprintf(raw, sizeof raw, " on the luck-adjusted scores (raw LLR %.3f)", r->raw_llr);
        fprintf(out, "\nSPRT %s vs %s, H0: %+g %s, H1: %+g %s (alpha %g, beta %g): LLR %.3f%s, "
                "bounds [%.3f, %.3f], after %u deals (%u games)%s: %s\n", bot, label[0],
                a->elo0, unit, a->elo1, unit, a->alpha, a->beta, r->llr, raw, bp->b->lower,
                bp->b->upper, r->deals, r->games, nelo, verdict_text(r->decision, false));
        return;
    }
    fprintf(out, "\nSPRT gauntlet %s vs %d opponents, H1: %+g %s against each, H0: %+g %s against "
            "one (alpha %g, beta %g; each test at beta %g, bounds [%.3f, %.3f]):\n", bot,
            bp->n_opp, a->elo1, unit, a->elo0, unit, a->alpha, a->beta,
            a->beta / bp->n_opp, bp->b->lower, bp->b->upper);
    for (int op = 0; op < bp->n_opp; op++) {
        const bench_opp *r = &bp->res[op];
        fmt_nelo(bp, r, nelo, sizeof nelo);
        fputs("  ", out);
        arena_put_col(out, label[op], width);
        char raw[48] = "";
        if (a->adjusted)
            snprintf(raw, sizeof raw, " (adjusted; raw %.3f)", r->raw_llr);
        fprintf(out, " LLR %7.3f%s after %u deals (%u games)%s: %s\n", r->llr, raw, r->deals,
                r->games, nelo, verdict_text(r->decision, bp->verdict == LADDER_SPRT_H0));
    }
    uint32_t deals, games;
    gauntlet_totals(bp, &deals, &games);
    fprintf(out, "gauntlet after %u deals (%u games): %s\n", deals, games,
            verdict_text(bp->verdict, false));
}

/* The luck-adjusted rows under the raw table: the same figures on the
 * adjusted deal scores, and the standard deviation of a deal's score, raw
 * and adjusted. */
static void print_adjusted(FILE *out, const bench_play *bp, char (*label)[LADDER_LABEL_MAX],
                           int width)
{
    adjust_opts o;
    adjust_opts_ranking(&o);
    fprintf(out, "\nluck-adjusted (each match's luck taken out from its replay: %u playouts as "
            "the players, %u reshuffles per chance event, to the end of the %s):\n  ",
            o.rollouts, o.samples, ADJUST_HORIZON_NAMES[o.horizon]);
    arena_put_col(out, "opponent", width);
    fprintf(out, " %6s %7s %9s  %-18s %7s  %8s %8s %9s\n", "deals", "score", "elo diff",
            "95% interval", "LOS", "sd raw", "sd adj", "CPU ms");
    for (int op = 0; op < bp->n_opp; op++) {
        const bench_opp *r = &bp->res[op];
        char e[16], lo[16], hi[16], ci[40];
        fmt_elo(r->ast.elo, e, sizeof e);
        fmt_elo(r->ast.elo_lo, lo, sizeof lo);
        fmt_elo(r->ast.elo_hi, hi, sizeof hi);
        snprintf(ci, sizeof ci, "[%s, %s]%s", lo, hi, r->ast.conservative ? "*" : "");
        fputs("  ", out);
        arena_put_col(out, label[op], width);
        fprintf(out, " %6u %7.3f %9s  %-18s %6.1f%%  %8.3f %8.3f %9.0f\n", r->deals, r->ast.mean,
                e, ci, 100.0 * r->ast.los, r->st.sd, r->ast.sd, r->cpu_ms);
    }
}

/* The report as text: a row an opponent, then the SPRT's verdict. The
 * opponents' column is as wide as their widest label. */
static void print_text(FILE *out, const bench_play *bp)
{
    char (*label)[LADDER_LABEL_MAX] = ja_xcalloc((size_t)bp->n_opp + 1, sizeof *label);
    int width = 20;
    for (int op = 0; op < bp->n_opp; op++) {
        arena_bot_label(&bp->a->bots->b[1 + op], label[op], sizeof label[op]);
        width = arena_col_width(width, arena_text_cols(label[op]));
    }
    fputs("\n  ", out);
    arena_put_col(out, "opponent", width);
    fprintf(out, " %6s %6s %7s %9s  %-18s %7s  %-16s %6s\n", "games", "deals", "score",
            "elo diff", "95% interval", "LOS", "pairwise w-d-l", "faults");
    bool conservative = false;
    for (int op = 0; op < bp->n_opp; op++) {
        const bench_opp *r = &bp->res[op];
        char e[16], lo[16], hi[16], ci[40], wdl[48];
        fmt_elo(r->st.elo, e, sizeof e);
        fmt_elo(r->st.elo_lo, lo, sizeof lo);
        fmt_elo(r->st.elo_hi, hi, sizeof hi);
        snprintf(ci, sizeof ci, "[%s, %s]%s", lo, hi, r->st.conservative ? "*" : "");
        snprintf(wdl, sizeof wdl, "%llu-%llu-%llu", (unsigned long long)r->wins,
                 (unsigned long long)r->draws, (unsigned long long)r->losses);
        fputs("  ", out);
        arena_put_col(out, label[op], width);
        fprintf(out, " %6u %6u %7.3f %9s  %-18s %6.1f%%  %-16s %6llu\n", r->games, r->deals,
                r->st.mean, e, ci, 100.0 * r->st.los, wdl, (unsigned long long)r->faults);
        conservative |= r->st.conservative;
    }
    if (conservative)
        fprintf(out, "  * every deal scored the same: a conservative (Wilson) interval\n");
    if (bp->a->adjusted)
        print_adjusted(out, bp, label, width);
    if (bp->a->sprt)
        print_sprt(out, bp, label, width);
    free(label);
}

/* A private file name for the replays of --adjusted (each adjusted, then
 * removed). */
static int bench_tmp(char *path, size_t n, char *err, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, n, "%s/ja-bench-XXXXXX", dir && dir[0] ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(err, cap, "--adjusted: cannot make a temporary file for the replays in '%s': %s",
                 dir && dir[0] ? dir : "/tmp", strerror(errno));
        path[0] = '\0';
        return JA_EIO;
    }
    close(fd);
    return JA_OK;
}

int arena_bench_run(arena_bench *b, FILE *out, char *err, size_t cap)
{
    const arena_bench_args *a = b->a;
    err[0] = '\0';
    bench_play bp = {.b = b, .a = a, .n_opp = a->bots->n - 1,
                     .n_cells = 2 * a->seats * (a->seats - 1) + 1};
    bp.res = ja_xcalloc((size_t)bp.n_opp, sizeof *bp.res);
    char opts_text[1024], seed_s[24];
    ja_options_format(a->game, &a->options, opts_text, sizeof opts_text);
    snprintf(seed_s, sizeof seed_s, "%llu", (unsigned long long)a->seed);
    if (!a->json) {
        char bot[LADDER_LABEL_MAX];
        arena_bot_label(&a->bots->b[0], bot, sizeof bot);
        fprintf(out, "bench %s on %s: %u seats, up to %u duplicate deals per opponent (each played "
                "from all %u seats), seed %s\noptions: %s\n",
                bot, a->game->name, a->seats, a->deals, a->seats, seed_s,
                opts_text);
        fflush(out);
    }
    int rc = a->adjusted ? bench_tmp(bp.tmp, sizeof bp.tmp, err, cap) : JA_OK;
    if (rc == JA_OK)
        rc = play_all(&bp, err, cap);
    if (rc == JA_OK && a->json)
        print_json(out, &bp, seed_s);
    else if (rc == JA_OK)
        print_text(out, &bp);
    if (bp.tmp[0])
        unlink(bp.tmp);
    for (int op = 0; op < bp.n_opp; op++) {
        free(bp.res[op].adj);
        free(bp.res[op].cnt);
    }
    free(bp.res);
    return rc;
}

void arena_bench_close(arena_bench *b)
{
    arena_bots_free(b->a->bots);
}
