/* Luck terms of recorded matches (adjust_ladder.h; docs/ratings.md,
 * "Luck-adjusted fit and bench"). */
#include "view/adjust_ladder.h"

#include "ja_xalloc.h"
#include "jackarena/ja_error.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void adjust_opts_ranking(adjust_opts *o)
{
    *o = (adjust_opts){.rollouts = ADJUST_RANKING_ROLLOUTS, .samples = ADJUST_RANKING_SAMPLES,
                       .policy = ADJUST_POLICY_PLAYERS, .horizon = ADJUST_HORIZON_MATCH,
                       .quantity = ADJUST_SHARE};
}

/* The file of a stored replay path: as given, else relative to the
 * database's directory. */
static void replay_path(const char *stored, const char *db_path, char *path, size_t cap)
{
    struct stat sb;
    snprintf(path, cap, "%s", stored);
    if (db_path && stored[0] != '/' && stat(path, &sb) != 0) {
        char dir[LADDER_PATH_MAX];
        snprintf(dir, sizeof dir, "%s", db_path);
        snprintf(path, cap, "%s/%s", dirname(dir), stored);
    }
}

int adjust_replay_terms(const char *stored, const char *db_path, const char *digest_hex,
                        const adjust_opts *o, uint32_t n_seats, double *term, char *why,
                        size_t cap)
{
    char path[LADDER_PATH_MAX + 1024], err[1024];
    replay_path(stored, db_path, path, sizeof path);
    ref_replay *r = NULL;
    int rc = ref_replay_load(path, &r, err, sizeof err);
    uint8_t digest[REF_DIGEST_BYTES];
    char hex[REF_DIGEST_HEX];
    if (rc == JA_OK && !r->game) {
        snprintf(err, sizeof err, "this build has no game '%s'", r->h.game);
        rc = JA_EUNSUPPORTED;
    }
    if (rc == JA_OK)
        rc = ref_replay_verify(r, digest, err, sizeof err);
    if (rc == JA_OK && r->h.n_seats != n_seats) {
        snprintf(err, sizeof err, "%u seats, the match %u", r->h.n_seats, n_seats);
        rc = JA_EMISMATCH;
    }
    if (rc == JA_OK && digest_hex && digest_hex[0]) {
        ref_digest_hex(digest, hex);
        if (strcmp(hex, digest_hex) != 0) {
            snprintf(err, sizeof err, "its digest is not the match's (another match's replay?)");
            rc = JA_EMISMATCH;
        }
    }
    adjust_result a;
    if (rc == JA_OK)
        rc = adjust_replay(r, o, &a, err, sizeof err);
    for (uint32_t s = 0; rc == JA_OK && s < n_seats; s++)
        term[s] = a.raw[s] - a.adjusted[s];
    if (rc != JA_OK)
        snprintf(why, cap, "replay '%s': %s", path, err);
    ref_replay_free(&r);
    return rc;
}

/* A match's replay, from the seats' rows. */
typedef struct stored_replay {
    int64_t match_id;
    char *path; /* NULL: none */
} stored_replay;

typedef struct replay_list {
    stored_replay *v;
    size_t n, cap;
} replay_list;

static int collect_replay(void *ctx, const ladder_seat_detail *s)
{
    replay_list *l = ctx;
    if (l->n && l->v[l->n - 1].match_id == s->match_id)
        return 0;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = ja_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (stored_replay){s->match_id, s->replay[0] ? ja_xstrdup(s->replay) : NULL};
    return 0;
}

static int cmp_replay(const void *a, const void *b)
{
    const stored_replay *x = a, *y = b;
    return (x->match_id > y->match_id) - (x->match_id < y->match_id);
}

double adjust_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Match i's terms, or its count in *t. */
static void adjust_one(const stored_replay *sr, const char *db_path, const char *digest,
                       ladder_fit_match *m, double *term, const adjust_opts *o, adjust_tally *t)
{
    char why[1400];
    if (!sr || !sr->path) {
        t->no_replay++;
        return;
    }
    if (adjust_replay_terms(sr->path, db_path, digest, o, m->n_seats, term, why, sizeof why) !=
        JA_OK) {
        if (!t->failed++)
            snprintf(t->first_failure, sizeof t->first_failure, "%s", why);
        return;
    }
    m->term = term;
    t->adjusted++;
}

int adjust_ladder_terms(ladder_db *db, const ladder_key *key, const int64_t *ids,
                        const char (*digests)[LADDER_DIGEST_HEX], ladder_fit_match *m,
                        double (*terms)[JA_MAX_SEATS], size_t n, const adjust_opts *o,
                        adjust_tally *t, char *err, size_t cap)
{
    memset(t, 0, sizeof *t);
    replay_list l = {0};
    if (ladder_db_foreach_seat(db, key, 0, collect_replay, &l) != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(db));
        for (size_t i = 0; i < l.n; i++)
            free(l.v[i].path);
        free(l.v);
        return JA_EDB;
    }
    qsort(l.v, l.n, sizeof *l.v, cmp_replay);
    double t0 = adjust_cpu_ms();
    t->matches = n;
    for (size_t i = 0; i < n; i++) {
        stored_replay k = {ids[i], NULL};
        const stored_replay *sr = l.n ? bsearch(&k, l.v, l.n, sizeof *l.v, cmp_replay) : NULL;
        adjust_one(sr, ladder_db_path(db), digests[i], &m[i], terms[i], o, t);
    }
    t->cpu_ms = adjust_cpu_ms() - t0;
    for (size_t i = 0; i < l.n; i++)
        free(l.v[i].path);
    free(l.v);
    return JA_OK;
}
