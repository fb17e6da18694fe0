/* Official ratings: a Bradley-Terry (or Plackett-Luce) maximum-likelihood
 * fit over all the results of a ladder at once, with cluster-robust 95%
 * intervals.
 *
 * Model (R. A. Bradley and M. E. Terry, Biometrika 39, 1952; E. Zermelo,
 * Math. Zeitschrift 29, 1929): player i beats player j with probability
 *     p_ij = 1 / (1 + 10^(-(R_i - R_j) / 400))
 * the logistic Elo scale of elo.h. A match of n seats is decomposed into its
 * n(n-1)/2 pairs of seats (the better place scores 1, an equal place 1/2,
 * the worse 0), and the ratings maximise the pairwise (composite)
 * log-likelihood
 *     sum over pairs of  s log p_ij + (1 - s) log(1 - p_ij),
 * whose stationary point is where every player's expected score equals its
 * actual score (the condition Ordo solves). It is found by Newton-Raphson
 * with step halving (the log-likelihood is concave; D. R. Hunter, "MM
 * algorithms for generalized Bradley-Terry models", Annals of Statistics
 * 32(1), 2004, discusses existence and the alternatives).
 *
 * Plackett-Luce (ladder_fit_opts.model): the likelihood is instead that of
 * each match's whole finishing order (fit_pl.h, ties by Efron's rule), on
 * the same scale; its Newton steps, replays, intervals (each match's score
 * its order's gradient), existence condition, parts and anchors are the
 * ones below. fit_cv.h compares the two models' predictions.
 *
 * Replays: r matches of one deal with the same player in every seat are
 * one experiment played r times (an identical replay, for deterministic
 * bots); each weighs 1/r in the (weighted) composite likelihood, so they
 * count as one match, their mean, and replaying a deal never adds
 * information.
 *
 * Intervals: the pairs of one match are not independent (one finishing
 * order decides all of them), and the matches of a duplicate set share a
 * deal, so the model's inverse Hessian would overstate the information.
 * The covariance is the sandwich H^-1 B H^-1 of composite likelihood (C.
 * Varin, N. Reid and D. Firth, "An overview of composite likelihood
 * methods", Statistica Sinica 21, 2011), with B summed over clusters (a
 * match, or all the matches that share a deal) and the usual G/(G-1)
 * small-sample factor for G clusters (A. C. Cameron and D. L. Miller, "A
 * practitioner's guide to cluster-robust inference", J. Human Resources
 * 50(2), 2015). The same sandwich makes draws-as-half-points honest: a draw
 * is less variable than the Bernoulli quasi-likelihood assumes.
 *
 * Existence: the maximum exists (finite) exactly when, for every split of
 * the players into two sets, someone in each set scored against someone in
 * the other (L. R. Ford Jr., Amer. Math. Monthly 64, 1957), that is, when the
 * "scored against" graph is strongly connected. The fit finds the connected
 * groups of players who met, and within a group its strongly connected
 * parts; every part of two players or more is rated on its own (ratings of
 * different parts are not comparable). Part 1 of a group is its largest;
 * a player that is a part on its own has an unbounded rating and is
 * reported as perfect (above part 1), zero (below) or unrated, never as a
 * number.
 *
 * Anchoring: ratings are only defined up to a constant. By default the mean
 * rating of each part's players is mean_elo (1500, the live ladder's
 * starting value); a named anchor player may be fixed instead, which sets
 * its own part only: the other parts keep their mean.
 *
 * Pure functions, no I/O; ladder_fit_run allocates its result only. Any
 * thread. docs/ratings.md has the formulas and the reasons. */
#ifndef JA_LADDER_FIT_H
#define JA_LADDER_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jackarena/ja_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most players one fit accepts: the covariance is a dense n x n matrix and
 * the fit holds a few of them (about 50 MB and a few seconds at 1024). */
#define LADDER_FIT_MAX_PLAYERS 1024u

/* One match, as the fit reads it. Plain value. */
typedef struct ladder_fit_match {
    int64_t cluster;               /* the deal: matches with equal cluster were
                                      dealt the same cards. Those that also
                                      have the same player in every seat are
                                      plays of one experiment (replays), and
                                      count as one match, their mean */
    uint32_t n_seats;              /* 2 .. JA_MAX_SEATS */
    uint32_t player[JA_MAX_SEATS]; /* seat -> player, 0 .. n_players-1; seats of
                                      one player are never paired */
    uint8_t place[JA_MAX_SEATS];   /* 1 = best; equal places are a draw */
    bool replayed;                 /* dealt a deal that an earlier tournament
                                      played first: only counted (ladder_fit
                                      .replays_replayed), no weight of its own */
    /* Luck-adjusted (docs/ratings.md, "Luck-adjusted fit and bench"): NULL
     * for the raw result; else n_seats terms, the caller's, term[s] seat s's
     * luck as a share (its raw share less its adjusted share, a variable of
     * mean 0), and the result of the pair (a, b) the fit uses is
     * ladder_fit_pair_result's. Bradley-Terry only. */
    const double *term;
} ladder_fit_match;

/* The model fitted (docs/ratings.md, "Model"). */
typedef enum ladder_fit_model {
    LADDER_FIT_BRADLEY_TERRY, /* every match cut into its pairs of seats */
    LADDER_FIT_PLACKETT_LUCE, /* every match's whole finishing order, tied
                                 places by Efron's rule (fit_pl.h) */
    LADDER_FIT_MODEL_COUNT
} ladder_fit_model;

/* The model ladder_fit_opts_init chooses, as the benchmark of
 * docs/ratings.md ("Choosing the model") decided: Plackett-Luce predicted
 * held-out finishing orders better but pairs worse, and top-1 no better,
 * so the default stayed. */
#define LADDER_FIT_DEFAULT_MODEL LADDER_FIT_BRADLEY_TERRY

typedef struct ladder_fit_opts {
    ladder_fit_model model; /* default LADDER_FIT_DEFAULT_MODEL */
    double mean_elo;       /* the mean rating of each part's players, except
                              the anchor player's part; default
                              LADDER_ELO_INITIAL (1500) */
    int64_t anchor_player; /* -1 (default): no anchor player; else this
                              player's rating is anchor_elo (when it is rated;
                              nothing is anchored on it otherwise) */
    double anchor_elo;     /* default LADDER_ELO_INITIAL (1500) */
    bool model_cov;        /* use the model's inverse Hessian instead of the
                              sandwich (only to show the difference) */
    double z;              /* interval quantile; default LADDER_Z95 */
} ladder_fit_opts;

typedef enum ladder_fit_status {
    LADDER_FIT_RATED,   /* a finite rating with an interval, in its part */
    LADDER_FIT_PERFECT, /* a part on its own, above part 1 of its group with a
                           100% score against it (directly or through others):
                           unbounded above */
    LADDER_FIT_ZERO,    /* below part 1 with a 0% score: unbounded below */
    LADDER_FIT_UNRATED, /* a part on its own with no comparison with part 1 */
    LADDER_FIT_STATUS_COUNT
} ladder_fit_status;

/* Where a part stands against part 1 of its group. */
typedef enum ladder_fit_relation {
    LADDER_FIT_MAIN,  /* it is part 1 */
    LADDER_FIT_ABOVE, /* scored 100% against part 1 (directly or through others) */
    LADDER_FIT_BELOW, /* scored 0% against it */
    LADDER_FIT_APART, /* neither: no comparison with it */
    LADDER_FIT_RELATION_COUNT
} ladder_fit_relation;

#define LADDER_FIT_NO_PART UINT32_MAX

typedef struct ladder_fit_player {
    ladder_fit_status status;
    uint32_t group;      /* 0 = the group with most players; ratings compare
                            only within a group */
    uint32_t part;       /* its part (index into ladder_fit.parts) when rated,
                            else LADDER_FIT_NO_PART; ratings compare only
                            within a part */
    double elo;          /* NAN unless rated */
    double se;           /* standard error of elo (relative to the anchor) */
    double ci_lo, ci_hi; /* elo -/+ z * se; NAN unless rated */
    double los_next;     /* P(this player is stronger than the next rated
                            player below it in `order`, same part); NAN when
                            there is none */
    uint64_t matches;    /* matches played, replays included */
    /* As the fit counts them: a set of replays (ladder_fit_match.cluster)
     * counts as one match, so these are whole numbers unless replays of a
     * deal had different results. */
    double games;        /* matches */
    double wins, draws, losses; /* pairwise results against other players */
    double score;        /* pairwise points / pairwise games; NAN with none
                            (when a match is adjusted: its pairs' results as
                            ladder_fit_pair_result gives them) */
} ladder_fit_player;

typedef struct ladder_fit_group {
    uint32_t players, rated; /* rated: in all its parts */
    uint32_t parts;          /* its parts are ladder_fit.parts[first_part ..
                                first_part + parts - 1], by number */
    uint32_t first_part;
} ladder_fit_group;

/* A strongly connected part of two players or more: rated on its own. */
typedef struct ladder_fit_part {
    uint32_t group;
    uint32_t number;   /* 1 = the group's largest; the others 2, 3, ... in
                          display order */
    ladder_fit_relation relation; /* to part 1 */
    uint32_t rated;    /* players */
    uint64_t matches;  /* matches with at least one pair of its players */
    uint64_t pairs;    /* pairwise results between its players */
    uint64_t clusters; /* independent clusters (deals) */
    uint32_t iterations;
    bool converged;
    bool anchored;     /* the anchor player is here; else the mean is mean_elo */
    bool model_fallback; /* the clustered covariance was singular (too few or
                            too uniform deals): the intervals are the model's */
} ladder_fit_part;

/* A fit. Owned by the caller: ladder_fit_free. */
typedef struct ladder_fit {
    uint32_t n_players;
    ladder_fit_player *players; /* indexed by player */
    uint32_t *order;            /* display order: by group; in a group, its
                                   parts and unrated players best first: after
                                   every one that scored against them and never
                                   lost a game to them (a topological order),
                                   otherwise above part 1, part 1, apart from it,
                                   then below it, by score; in a part by elo;
                                   ties by player index */
    double *cov;                /* n_players x n_players, row-major: covariance
                                   of the Elo ratings; 0 outside pairs of
                                   players of one part */
    uint32_t n_groups;
    ladder_fit_group *groups;
    uint32_t n_parts;
    ladder_fit_part *parts;     /* by group, then number */
    uint64_t clusters;          /* independent clusters (deals) of all parts */
    bool anchored;              /* the anchor player was rated and used */
    bool model_fallback;        /* some part's clustered (sandwich) covariance
                                   was singular (ladder_fit_part) */
    uint64_t replays;           /* matches that repeated an earlier match's
                                   deal and seating (weighted with it) */
    uint64_t replays_replayed;  /* of those, matches marked `replayed`: of each
                                   set of plays of one deal and seating, its
                                   marked ones, but one when all are marked
                                   (the first play of that seating). The
                                   others (replays - replays_replayed) repeat
                                   a match of the deal's first tournament */
} ladder_fit;

/* Default options. */
void ladder_fit_opts_init(ladder_fit_opts *o);

/* "bradley-terry", "plackett-luce"; NULL outside the enum. */
const char *ladder_fit_model_name(ladder_fit_model m);

/* The model named `name` (ladder_fit_model_name's) into *out: JA_OK, or
 * JA_EINVAL for another name (NULL included). */
int ladder_fit_model_parse(const char *name, ladder_fit_model *out);

/* "rated", "perfect", "zero", "unrated"; NULL outside the enum. */
const char *ladder_fit_status_name(ladder_fit_status s);

/* "main", "above", "below", "apart"; NULL outside the enum. */
const char *ladder_fit_relation_name(ladder_fit_relation r);

/* True when some group of f has more than one part: ratings must then be
 * shown with their part, since parts of one group do not compare. */
bool ladder_fit_several_parts(const ladder_fit *f);

/* Fits n matches of n_players players. o may be NULL (defaults).
 * Returns JA_OK with *out set; JA_EINVAL (nothing allocated) for a NULL
 * out, matches NULL with n > 0, n_players 0, a seat count outside
 * 2..JA_MAX_SEATS, a player outside 0..n_players-1, a place outside
 * 1..n_seats, a term that is not finite, or an adjusted match with
 * Plackett-Luce; the wins, draws and losses, and which player scored
 * against which (the parts), stay those of the places; JA_ERANGE for n_players above LADDER_FIT_MAX_PLAYERS. (It
 * allocates through ja_xalloc.h: out of memory ends the process with one
 * line.) A fit that did not converge (not expected: the problem is
 * concave) is reported by its group's `converged`. */
int ladder_fit_run(const ladder_fit_match *matches, size_t n, uint32_t n_players,
                   const ladder_fit_opts *o, ladder_fit **out);

/* The weights the fit gives the n matches m: w[i] = 1/r for the r plays
 * of match i's deal with the same player in every seat (replays, counted
 * once), and ord[0..n-1] the matches sorted by deal (cluster), then
 * seating, then index. Returns the plays beyond the first of each. */
uint64_t ladder_fit_replay_weights(const ladder_fit_match *m, size_t n, size_t *ord, double *w);

/* The result of seat a against seat b of m the Bradley-Terry fit uses:
 * ladder_elo_pair_score of their places (1, 1/2 or 0), less, when m has
 * terms, (K - 1) (term[a] - term[b]) / K for K seats. The seats' terms
 * have mean 0, so the pair's result keeps its mean, and the sum of seat
 * a's results over the other seats is (K - 1) times its adjusted share. */
double ladder_fit_pair_result(const ladder_fit_match *m, uint32_t a, uint32_t b);

/* Frees a fit and sets *p to NULL. Accepts NULL and a pointer to NULL. */
void ladder_fit_free(ladder_fit **p);

/* The likelihood of superiority P(R_a > R_b) from the fit's covariance,
 * Phi((R_a - R_b) / sd(R_a - R_b)); NAN unless a and b are rated in the
 * same part. */
double ladder_fit_los(const ladder_fit *f, uint32_t a, uint32_t b);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_FIT_H */
