/* The bench runner: what `arena bench` does once its flags are parsed and
 * checked, as a library so that tests reach it (docs/ratings.md explains
 * the statistics).
 *
 * Each deal (a match seed derived from the bench seed) is played once per
 * seat rotation, so the bot holds every seat of the same cards once; with
 * K > 2 seats the other seats are copies of the opponent. A deal's result
 * is the bot's mean pairwise score over its rotations (ladders/sprt.h); the
 * Elo difference and its interval come from those paired results
 * (ladders/stats.h), and the SPRT stops at the first deal where its
 * log-likelihood ratio leaves Wald's bounds. Against several opponents the
 * SPRT is a gauntlet (ladders/sprt.h): one test per opponent, played a deal
 * of each in turn, H1 when every test accepts H1, H0 as soon as one accepts
 * H0. The matches run in this
 * process through ref_match_run, without a database: the report is a pure
 * function of the bots, the options and the seed. */
#ifndef ARENA_BENCH_RUN_H
#define ARENA_BENCH_RUN_H

#include "run/botspec.h"

#include "sprt.h"

#include "jackarena/ja_rules.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A bench. The caller has checked every field (cmd_bench.c shows how):
 * seats is within the game's, deals >= 1, elo0 < elo1, alpha and beta in
 * (0, 0.5); bots holds the bot at b[0] and then its opponents (with sprt,
 * a gauntlet when there are several), named (arena_bots_finish_names) and
 * not yet loaded. The args outlive the bench's steps. */
typedef struct arena_bench_args {
    const ja_game_rules *game;
    ja_options options;
    arena_bots *bots;
    uint32_t seats;              /* seats per match, K */
    uint32_t deals;              /* deals per opponent, each played K times */
    uint64_t seed;               /* the seed of the deals */
    uint32_t move_ms;            /* per-decision limit; 0: none */
    bool sprt;                   /* run the SPRT of H0: elo0 against H1: elo1 */
    ladder_sprt_model model;     /* the units of elo0 and elo1 */
    double elo0, elo1, alpha, beta;
    bool adjusted;               /* the luck-adjusted deal scores too; the
                                    SPRT decides on them (docs/ratings.md) */
    bool json, quiet;
} arena_bench_args;

/* A bench prepared: its bots loaded, the SPRT's bounds. */
typedef struct arena_bench {
    const arena_bench_args *a;
    double lower, upper;         /* Wald's bounds on each test's LLR (with sprt):
                                    alpha and beta / (opponents) */
} arena_bench;

/* The bench in two steps (docs/architecture.md, "Errors"), each returning
 * JA_OK or the failure's code with its line in the caller's err; neither
 * prints an error.
 *
 * arena_bench_prepare checks the SPRT's error rates and loads the bots
 * (each must play the game): its failures are the user's, and nothing is
 * written yet. Whatever it returns, b is then closed with
 * arena_bench_close, which frees the bots. */
int arena_bench_prepare(arena_bench *b, const arena_bench_args *a, char *err, size_t cap);

/* Plays the bench and writes the report to out: text (a header line before
 * play, then one row per opponent and the SPRT's verdict, each opponent's
 * and the gauntlet's), or one JSON object and a newline with json.
 * Progress goes to stderr unless quiet, with a line when a test decides.
 * Fails when a match fails. */
int arena_bench_run(arena_bench *b, FILE *out, char *err, size_t cap);

void arena_bench_close(arena_bench *b);

/* Adds to bs the reference bots of this build that play g, in name order:
 * every ja_NAME.so in the bots directory (arena_bots_dir) except ismcts,
 * whose default budget (about 100 ms a decision) would make a default run
 * take hours; name it with --vs. JA_OK, or JA_EIO (the directory cannot be
 * read) or JA_ENOTFOUND (no bot there plays g) with its line in err, or
 * JA_EINVAL when arena_bots_add refuses one (too many bots), which says so
 * itself (err ""). */
int arena_bench_reference_opponents(arena_bots *bs, const ja_game_rules *g, char *err,
                                    size_t cap);

#endif /* ARENA_BENCH_RUN_H */
