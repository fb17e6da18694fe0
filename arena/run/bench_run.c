/* The bench runner (bench_run.h): duplicate deals against each opponent,
 * the paired statistics, the SPRT and the report. */
#include "run/bench_run.h"

#include "core/json_w.h"
#include "run/progress.h"
#include "core/util.h"

#include "elo.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "match.h"
#include "sprt.h"
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One opponent's results. */
typedef struct bench_opp {
    uint32_t deals, games;
    uint64_t wins, draws, losses, faults;
    double hist[LADDER_SPRT_MAX_CELLS]; /* deals by score: cell i = i / (cells - 1) */
    double llr;
    ladder_sprt_decision decision;
    ladder_paired_stats st;
} bench_opp;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

bool arena_bench_reference_opponents(arena_bots *bs, const ja_game_rules *g)
{
    DIR *d = opendir(arena_bots_dir());
    if (d == NULL) {
        arena_error("cannot list the reference bots in '%s': %s (is JACKARENA_BOTS_DIR right?)",
                    arena_bots_dir(), strerror(errno));
        return false;
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
        char path[4200], err[1200];
        snprintf(path, sizeof path, "%s/ja_%s.so", arena_bots_dir(), names[i]);
        ref_bot *b = NULL;
        if (ref_bot_plugin_open(path, NULL, &b, err, sizeof err) != JA_OK)
            continue;
        bool plays = ref_bot_supports(b, g);
        ref_bot_destroy(&b);
        if (!plays)
            continue;
        if (!arena_bots_add(bs, names[i]))
            return false;
        added++;
    }
    if (!added) {
        arena_error("no reference bot of this build plays %s: name opponents with --vs", g->name);
        return false;
    }
    return true;
}

/* Formats an Elo value with its sign; infinite as "+inf" / "-inf". */
static void fmt_elo(double v, char *buf, size_t cap)
{
    if (isinf(v))
        snprintf(buf, cap, "%sinf", v > 0 ? "+" : "-");
    else
        snprintf(buf, cap, "%+.0f", v);
}


int arena_bench_run(FILE *out, const arena_bench_args *a)
{
    const ja_game_rules *g = a->game;
    const ja_options o = a->options;
    arena_bots *bots = a->bots;
    const uint32_t seats = a->seats, deals = a->deals;
    const uint64_t seed = a->seed;
    const double alpha = a->alpha, beta = a->beta, elo0 = a->elo0, elo1 = a->elo1;
    const bool json = a->json, quiet = a->quiet;
    double lower = 0, upper = 0;
    if (a->sprt && ladder_sprt_bounds(alpha, beta, &lower, &upper) != JA_OK) {
        arena_error("--alpha and --beta must be between 0 and 0.5");
        arena_bots_free(bots);
        return EXIT_USAGE;
    }
    if (!arena_bots_load(bots, g)) {
        arena_bots_free(bots);
        return EXIT_USAGE;
    }
    const int n_opp = bots->n - 1;
    const uint32_t n_cells = 2 * seats * (seats - 1) + 1;
    bench_opp *res = calloc((size_t)n_opp, sizeof *res);
    if (res == NULL) {
        arena_error("out of memory");
        arena_bots_free(bots);
        return EXIT_RUNTIME;
    }
    char opts_text[1024], seed_s[24];
    ja_options_format(g, &o, opts_text, sizeof opts_text);
    snprintf(seed_s, sizeof seed_s, "%llu", (unsigned long long)seed);
    if (!json) {
        fprintf(out, "bench %s on %s: %u seats, up to %u duplicate deals per opponent (each played "
                "from all %u seats), seed %s\noptions: %s\n",
                bots->b[0].name, g->name, seats, deals, seats, seed_s, opts_text);
        fflush(out);
    }

    int status = EXIT_RUNTIME;
    progress pr;
    progress_begin(&pr, deals * seats * (uint32_t)n_opp, 0, quiet);
    uint32_t done = 0;
    for (int op = 0; op < n_opp; op++) {
        bench_opp *r = &res[op];
        for (uint32_t d = 0; d < deals && r->decision == LADDER_SPRT_CONTINUE; d++) {
            ref_match_config cfg = {0};
            cfg.game = g;
            cfg.options = o;
            cfg.n_seats = seats;
            cfg.move_ms = a->move_ms;
            cfg.match_id = "bench";
            /* The same deals for every opponent: common random numbers. */
            cfg.seed = ja_seed_derive(seed, JA_STREAM_MATCH, d);
            uint32_t halves = 0; /* the bot's pairwise points, in halves */
            for (uint32_t rot = 0; rot < seats; rot++) {
                ref_bot *sb[JA_MAX_SEATS];
                const char *names[JA_MAX_SEATS];
                uint32_t me = (seats - rot) % seats; /* seat i holds lineup[(i + rot) % K] */
                for (uint32_t s = 0; s < seats; s++) {
                    int who = s == me ? 0 : 1 + op;
                    sb[s] = bots->b[who].bot;
                    names[s] = bots->b[who].name;
                }
                ref_match_result mr;
                char err[1200];
                cfg.bots = sb;
                cfg.names = names;
                if (ref_match_run(&cfg, &mr, err, sizeof err) != JA_OK) {
                    progress_end(&pr, done);
                    arena_error("match failed (%s vs %s, deal %u): %s", bots->b[0].name,
                                bots->b[1 + op].name, d, err);
                    goto out;
                }
                for (uint32_t s = 0; s < seats; s++) {
                    if (s == me)
                        continue;
                    double p = ladder_elo_pair_score(mr.outcome.place[me], mr.outcome.place[s]);
                    halves += (uint32_t)(2 * p);
                    r->wins += p == 1.0;
                    r->draws += p == 0.5;
                    r->losses += p == 0.0;
                }
                r->faults += mr.faults[me];
                r->games++;
                progress_update(&pr, ++done);
            }
            r->hist[halves]++;
            r->deals++;
            if (a->sprt) {
                ladder_sprt_llr(r->hist, n_cells, elo0, elo1, &r->llr);
                r->decision = ladder_sprt_decide(r->llr, lower, upper);
            }
        }
        ladder_paired_stats_compute(r->hist, n_cells, LADDER_Z95, &r->st);
    }
    progress_end(&pr, done);

    if (json) {
        json_w w;
        jw_init(&w, out);
        jw_obj(&w, NULL);
        jw_str(&w, "bot", bots->b[0].name);
        jw_str(&w, "game", g->name);
        jw_str(&w, "seed", seed_s);
        jw_int(&w, "seats", seats);
        jw_obj(&w, "options");
        for (uint32_t i = 0; i < o.n; i++) {
            char v[64];
            ja_options_value_str(g, &o, (int)i, v, sizeof v);
            jw_str(&w, g->options[i].name, v);
        }
        jw_obj_end(&w);
        jw_arr(&w, "opponents");
        for (int op = 0; op < n_opp; op++) {
            const bench_opp *r = &res[op];
            jw_obj(&w, NULL);
            jw_str(&w, "bot", bots->b[1 + op].name);
            jw_int(&w, "games", r->games);
            jw_int(&w, "deals", r->deals);
            jw_num(&w, "score", r->st.mean);
            jw_num(&w, "elo_diff", r->st.elo);
            jw_arr(&w, "elo_ci95");
            jw_num(&w, NULL, r->st.elo_lo);
            jw_num(&w, NULL, r->st.elo_hi);
            jw_arr_end(&w);
            jw_num(&w, "los", r->st.los);
            jw_bool(&w, "conservative", r->st.conservative);
            jw_int(&w, "wins", (long long)r->wins);
            jw_int(&w, "draws", (long long)r->draws);
            jw_int(&w, "losses", (long long)r->losses);
            jw_int(&w, "faults", (long long)r->faults);
            jw_arr(&w, seats == 2 ? "pentanomial" : "deal_scores");
            for (uint32_t i = 0; i < n_cells; i++)
                jw_int(&w, NULL, (long long)r->hist[i]);
            jw_arr_end(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        if (a->sprt) {
            const bench_opp *r = &res[0];
            jw_obj(&w, "sprt");
            jw_num(&w, "elo0", elo0);
            jw_num(&w, "elo1", elo1);
            jw_num(&w, "alpha", alpha);
            jw_num(&w, "beta", beta);
            jw_num(&w, "llr", r->llr);
            jw_arr(&w, "bounds");
            jw_num(&w, NULL, lower);
            jw_num(&w, NULL, upper);
            jw_arr_end(&w);
            jw_str(&w, "result", ladder_sprt_decision_name(r->decision));
            jw_int(&w, "games", r->games);
            jw_int(&w, "deals", r->deals);
            jw_obj_end(&w);
        } else {
            jw_null(&w, "sprt");
        }
        jw_obj_end(&w);
        jw_end(&w);
    } else {
        fprintf(out, "\n  %-20s %6s %6s %7s %9s  %-18s %7s  %-16s %6s\n", "opponent", "games",
                "deals", "score", "elo diff", "95% interval", "LOS", "pairwise w-d-l", "faults");
        bool conservative = false;
        for (int op = 0; op < n_opp; op++) {
            const bench_opp *r = &res[op];
            char e[16], lo[16], hi[16], ci[40], wdl[48];
            fmt_elo(r->st.elo, e, sizeof e);
            fmt_elo(r->st.elo_lo, lo, sizeof lo);
            fmt_elo(r->st.elo_hi, hi, sizeof hi);
            snprintf(ci, sizeof ci, "[%s, %s]%s", lo, hi, r->st.conservative ? "*" : "");
            snprintf(wdl, sizeof wdl, "%llu-%llu-%llu", (unsigned long long)r->wins,
                     (unsigned long long)r->draws, (unsigned long long)r->losses);
            fprintf(out, "  %-20s %6u %6u %7.3f %9s  %-18s %6.1f%%  %-16s %6llu\n",
                    bots->b[1 + op].name, r->games, r->deals, r->st.mean, e, ci,
                    100.0 * r->st.los, wdl, (unsigned long long)r->faults);
            conservative |= r->st.conservative;
        }
        if (conservative)
            fprintf(out, "  * every deal scored the same: a conservative (Wilson) interval\n");
        if (a->sprt) {
            const bench_opp *r = &res[0];
            fprintf(out, "\nSPRT %s vs %s, H0: %+g Elo, H1: %+g Elo (alpha %g, beta %g): LLR %.3f, "
                    "bounds [%.3f, %.3f], after %u deals (%u games): ",
                    bots->b[0].name, bots->b[1].name, elo0, elo1, alpha, beta, r->llr, lower, upper,
                    r->deals, r->games);
            if (r->decision == LADDER_SPRT_H1)
                fprintf(out, "H1 accepted\n");
            else if (r->decision == LADDER_SPRT_H0)
                fprintf(out, "H0 accepted\n");
            else
                fprintf(out, "inconclusive (raise --games to go on)\n");
        }
    }
    status = EXIT_OK;
out:
    free(res);
    arena_bots_free(bots);
    return status;
}
