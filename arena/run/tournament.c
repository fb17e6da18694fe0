/* The tournament loop (tournament.h). */
#include "run/tournament.h"
#include "run/export.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Results taken from the executor at once (what came together is recorded
 * in one transaction: ladder_db_record_matches). */
#define BATCH 32
/* Planned matches read ahead of their submission, in one read transaction
 * (ladder_db_match_get_many): the plans never change, and one lock for 64
 * matches instead of one for each is fewer system calls a match, which
 * count where they are dear (a virtual machine's). */
#define PLANS_AHEAD 64

/* The ladder's form of job result jr; hex holds its digest's text. */
static void ladder_result(const arena_job_result *jr, ladder_match_result *lr,
                          char hex[REF_DIGEST_HEX])
{
    memset(lr, 0, sizeof *lr);
    lr->outcome = jr->res.outcome;
    /* A forfeiting seat takes last place in the ladder; the others keep
     * their order and every score stands as played (match.h). */
    uint32_t places[JA_MAX_SEATS];
    ref_match_ranked_places(&jr->res.outcome, jr->res.forfeit, jr->res.outcome.n_seats, places);
    for (uint32_t s = 0; s < jr->res.outcome.n_seats; s++)
        lr->outcome.place[s] = (uint8_t)places[s];
    memcpy(lr->faults, jr->res.fault_kinds, sizeof lr->faults);
    lr->turns = jr->res.decisions;
    ref_digest_hex(jr->res.digest, hex);
    lr->digest = hex;
    lr->replay_path = jr->replay_path[0] ? jr->replay_path : NULL;
}

/* Records the n finished jobs of jr (all played: rc JA_OK) in one
 * transaction; rcs[i] says how each went, JA_ESTATE (already recorded by
 * an earlier run) being no error. */
static void record(ladder_db *db, int64_t tid, const arena_job_result *jr, uint32_t n, int *rcs)
{
    if (n == 0)
        return;
    ladder_match_result lr[BATCH];
    const ladder_match_result *lp[BATCH] = {0};
    uint32_t numbers[BATCH] = {0};
    char hex[BATCH][REF_DIGEST_HEX];
    for (uint32_t i = 0; i < n; i++) {
        ladder_result(&jr[i], &lr[i], hex[i]);
        lp[i] = &lr[i];
        numbers[i] = jr[i].number;
    }
    ladder_db_record_matches(db, tid, n, numbers, lp, rcs);
    for (uint32_t i = 0; i < n; i++)
        if (rcs[i] == JA_ESTATE)
            rcs[i] = JA_OK;
}

int arena_tournament_play(ladder_db *db, int64_t tid, arena_executor *x,
                          volatile sig_atomic_t *stop, arena_progress_fn progress, void *ctx,
                          char *err, size_t cap)
{
    return arena_tournament_play_part(db, tid, x, 0, 0, stop, progress, ctx, err, cap);
}

/* One run of the tournament loop: what it was given, the matches it plays
 * and how far it is. */
typedef struct play_state {
    ladder_db *db;
    int64_t tid;
    arena_executor *x;
    volatile sig_atomic_t *stop;
    arena_progress_fn progress;
    void *ctx;
    char *err;
    size_t cap;
    uint32_t n_matches;         /* the tournament's */
    uint32_t *pending, n_pending;
    arena_job_result *jr;       /* BATCH results taken at once */
    ladder_plan_match *plans;   /* plans[i] is of pending[plans_from + i] */
    uint32_t plans_from, n_plans;
    uint32_t done, next, in_flight;
    int first_err;              /* the run's error: the first one met */
} play_state;

/* Notes the run's error, unless one was noted before: rc, with its line. */
__attribute__((format(printf, 3, 4))) static void fail(play_state *p, int rc, const char *fmt,
                                                       ...)
{
    if (p->first_err != JA_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->cap, fmt, ap);
    va_end(ap);
    p->first_err = rc;
}

/* The tournament's size and its pending matches, only those of shard
 * shard_i of shard_n (0: all). */
static int read_pending(play_state *p, uint32_t shard_i, uint32_t shard_n)
{
    ladder_tournament_info ti;
    int rc = ladder_db_tournament_get(p->db, p->tid, &ti);
    if (rc == JA_OK)
        rc = ladder_db_pending(p->db, p->tid, &p->pending, &p->n_pending);
    if (rc != JA_OK) {
        snprintf(p->err, p->cap, "%s", ladder_db_errmsg(p->db));
        return rc;
    }
    if (shard_n) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < p->n_pending; i++)
            if (p->pending[i] % shard_n == shard_i - 1)
                p->pending[k++] = p->pending[i];
        p->n_pending = k;
    }
    p->n_matches = ti.n_matches;
    /* Swiss, knockout: the rounds to come are neither pending nor done. */
    p->done = ladder_format_by_rounds(ti.format) ? ti.n_done : ti.n_matches - p->n_pending;
    return JA_OK;
}

/* The plan of the next match to submit, read ahead with the next ones
 * when it is not read yet; NULL after the error. */
static const ladder_plan_match *next_plan(play_state *p)
{
    if (p->next - p->plans_from < p->n_plans)
        return &p->plans[p->next - p->plans_from];
    uint32_t left = p->n_pending - p->next;
    uint32_t k = left < PLANS_AHEAD ? left : PLANS_AHEAD;
    p->plans_from = p->next;
    int rc = ladder_db_match_get_many(p->db, p->tid, p->pending + p->next, k, p->plans,
                                      &p->n_plans);
    if (p->n_plans == 0) {
        fail(p, rc, "%s", ladder_db_errmsg(p->db));
        return NULL;
    }
    /* A failure after some: they are played, and it is met again next. */
    return &p->plans[0];
}

/* Keeps the executor full unless told to stop or something failed. */
static void fill_executor(play_state *p)
{
    arena_executor *x = p->x;
    while (p->first_err == JA_OK && !(p->stop && *p->stop) && p->next < p->n_pending &&
           p->in_flight < x->ops->capacity(x)) {
        const ladder_plan_match *pm = next_plan(p);
        if (!pm)
            return;
        arena_job job = {pm->number, pm->seed, pm->n_seats, {0}};
        memcpy(job.slot, pm->slot, sizeof job.slot);
        if (x->before_job)
            x->before_job(x->hook_ctx, x->ctx, &job);
        int rc = x->ops->submit(x, &job);
        if (rc != JA_OK) {
            fail(p, rc, "cannot hand match %u to the executor: %s", (unsigned)pm->number,
                 ja_strerror(rc));
            return;
        }
        p->next++;
        p->in_flight++;
    }
}

/* The next result, and every other one already there: how many (0 when
 * nothing is in flight any more). An executor that found room for more
 * while waiting (workers joined) is filled first. */
static uint32_t take_results(play_state *p)
{
    arena_executor *x = p->x;
    if (p->in_flight == 0)
        return 0;
    int rc;
    while ((rc = x->ops->next(x, &p->jr[0])) == ARENA_EXEC_ROOM)
        fill_executor(p);
    if (rc != JA_OK)
        return 0;
    uint32_t n = 1;
    while (n < BATCH && n < p->in_flight && x->ops->next_ready &&
           x->ops->next_ready(x, &p->jr[n]) == JA_OK)
        n++;
    p->in_flight -= n;
    return n;
}

/* Of the n results taken, the played ones are compacted to the front (how
 * many), each with its exported decisions in xd and xlen; a failed one is
 * noted. The executor's result hook sees each played one. */
static uint32_t sort_results(play_state *p, uint32_t n, void *xd[BATCH], size_t xlen[BATCH])
{
    arena_executor *x = p->x;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        arena_job_result *r = &p->jr[i];
        /* The match's exported decisions, appended once it is recorded. */
        void *d = r->export_data;
        r->export_data = NULL;
        if (r->rc == JA_OK && x->on_result)
            x->on_result(x->hook_ctx, x->ctx, r);
        free(r->stderr_tails);
        r->stderr_tails = NULL;
        /* Every finished match is recorded, even after a failure elsewhere. */
        if (r->rc != JA_OK) {
            free(d);
            fail(p, r->rc, "match %u could not be played: %s", (unsigned)r->number, r->err);
            continue;
        }
        if (k != i)
            p->jr[k] = *r;
        xd[k] = d;
        xlen[k++] = r->export_len;
    }
    return k;
}

/* Records the k played results in one transaction, appends each recorded
 * one's decisions to the export and counts it done; frees the decisions. */
static void record_results(play_state *p, uint32_t k, void *xd[BATCH], const size_t xlen[BATCH])
{
    arena_export *xf = p->x->export;
    int rcs[BATCH];
    record(p->db, p->tid, p->jr, k, rcs);
    for (uint32_t i = 0; i < k; i++) {
        char rerr[512] = "";
        if (rcs[i] != JA_OK)
            snprintf(rerr, sizeof rerr,
                     "%s (match %u is not recorded; run the same command again to finish)",
                     ladder_db_errmsg(p->db), (unsigned)p->jr[i].number);
        else if (xf && xd[i] && arena_export_append(xf, xd[i], xlen[i]) != JA_OK)
            snprintf(rerr, sizeof rerr, "cannot write the exported decisions of match %u",
                     (unsigned)p->jr[i].number);
        free(xd[i]);
        if (rerr[0]) {
            fail(p, rcs[i] != JA_OK ? rcs[i] : JA_EIO, "%s", rerr);
            continue;
        }
        if (p->progress)
            p->progress(p->ctx, ++p->done, p->n_matches);
    }
}

int arena_tournament_play_part(ladder_db *db, int64_t tid, arena_executor *x, uint32_t shard_i,
                               uint32_t shard_n, volatile sig_atomic_t *stop,
                               arena_progress_fn progress, void *ctx, char *err, size_t cap)
{
    play_state p = {.db = db, .tid = tid, .x = x, .stop = stop, .progress = progress,
                    .ctx = ctx, .err = err, .cap = cap};
    int rc = read_pending(&p, shard_i, shard_n);
    if (rc != JA_OK)
        return rc;
    p.jr = ja_xmalloc(BATCH * sizeof *p.jr);
    p.plans = ja_xmalloc(PLANS_AHEAD * sizeof *p.plans);
    for (;;) {
        fill_executor(&p);
        uint32_t n = take_results(&p);
        if (n == 0)
            break;
        void *xd[BATCH];
        size_t xlen[BATCH];
        record_results(&p, sort_results(&p, n, xd, xlen), xd, xlen);
    }
    free(p.jr);
    free(p.plans);
    free(p.pending);
    return p.first_err;
}
