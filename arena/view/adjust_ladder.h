/* Luck-adjusted results where they are used (docs/ratings.md,
 * "Luck-adjusted fit and bench"): the luck terms of recorded matches from
 * their replay files, as shares (adjust.h, ADJUST_SHARE), for the fit of a
 * ladder (`arena ladder GAME --fit --adjusted`) and the bench (`arena bench
 * --adjusted`).
 *
 * Nothing is cached: every run adjusts every replay again (its cost is in
 * docs/ratings.md), since the value estimates behind the terms are still
 * being improved and a stored term would need their version beside it. */
#ifndef ARENA_ADJUST_LADDER_H
#define ARENA_ADJUST_LADDER_H

#include "view/adjust.h"

#include "fit.h"
#include "ladder_db.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The settings of --adjusted (ladder --fit, bench, report): shares, each
 * seat's playouts as its player (random, else greedy), 32 playouts per
 * value and 8 reshuffles per chance event (a share is a 0-or-1 result at
 * the end of a playout: with replay adjust's 8 and 4 their noise took out
 * no variance; docs/ratings.md has the measurement), to the end of the
 * match. */
#define ADJUST_RANKING_ROLLOUTS 32
#define ADJUST_RANKING_SAMPLES 8
void adjust_opts_ranking(adjust_opts *o);

/* Seat s's luck term of the replay file at path (as stored in a database:
 * tried as given, then relative to db_path's directory when db_path is not
 * NULL), term[s] = its raw share - its adjusted share, for every seat of the
 * match. digest_hex ("" or NULL: not checked) must be the replay's digest
 * as the database records it. The replay is verified. JA_OK, or the code
 * of the failing step with one line in why naming the file. */
int adjust_replay_terms(const char *path, const char *db_path, const char *digest_hex,
                        const adjust_opts *o, uint32_t n_seats, double *term, char *why,
                        size_t cap);

/* The process's CPU time in ms (CLOCK_PROCESS_CPUTIME_ID), to report the
 * adjustment's cost. */
double adjust_cpu_ms(void);

/* What adjust_ladder_terms did. */
typedef struct adjust_tally {
    uint64_t matches;         /* asked */
    uint64_t adjusted;        /* whose terms are set */
    uint64_t no_replay;       /* the database names no replay file */
    uint64_t failed;          /* whose replay is missing, corrupt, another
                                 match's, or does not re-simulate */
    char first_failure[1400]; /* the first of those, in one line; "" with none */
    double cpu_ms;            /* process CPU time spent adjusting */
} adjust_tally;

/* Sets terms[i] and m[i].term = terms[i] for each of the n matches of the
 * ladder key in db whose replay adjusts (ids[i] its match id, digests[i]
 * the digest the database records); the others keep their raw result
 * (m[i].term NULL: a term of 0 is a zero-mean term too, so the fit stays
 * unbiased) and are counted in *t. JA_OK, or JA_EDB (the database) with its
 * line in err. */
int adjust_ladder_terms(ladder_db *db, const ladder_key *key, const int64_t *ids,
                        const char (*digests)[LADDER_DIGEST_HEX], ladder_fit_match *m,
                        double (*terms)[JA_MAX_SEATS], size_t n, const adjust_opts *o,
                        adjust_tally *t, char *err, size_t cap);

#endif /* ARENA_ADJUST_LADDER_H */
