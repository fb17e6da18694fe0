/* The tournament loop (tournament.h). */
#include "run/tournament.h"
#include "run/export.h"

#include "jackarena/ja_error.h"

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

int arena_tournament_play_part(ladder_db *db, int64_t tid, arena_executor *x, uint32_t shard_i,
                               uint32_t shard_n, volatile sig_atomic_t *stop,
                               arena_progress_fn progress, void *ctx, char *err, size_t cap)
{
    ladder_tournament_info ti;
    uint32_t *pending = NULL, n_pending = 0;
    int rc = ladder_db_tournament_get(db, tid, &ti);
    if (rc == JA_OK)
        rc = ladder_db_pending(db, tid, &pending, &n_pending);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(db));
        return rc;
    }
    if (shard_n) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < n_pending; i++)
            if (pending[i] % shard_n == shard_i - 1)
                pending[k++] = pending[i];
        n_pending = k;
    }
    arena_job_result *jr = malloc(BATCH * sizeof *jr);
    ladder_plan_match *plans = malloc(PLANS_AHEAD * sizeof *plans);
    uint32_t plans_from = 0, n_plans = 0; /* plans[i] is of pending[plans_from + i] */
    if (!jr || !plans) {
        free(jr);
        free(plans);
        free(pending);
        snprintf(err, cap, "out of memory");
        return JA_ENOMEM;
    }
    uint32_t done = ti.n_matches - n_pending, next = 0, in_flight = 0;
    int first_err = JA_OK;
    for (;;) {
        /* Keep the executor full unless told to stop or something failed. */
        while (first_err == JA_OK && !(stop && *stop) && next < n_pending &&
               in_flight < x->ops->capacity(x)) {
            if (next - plans_from >= n_plans) {
                uint32_t k = n_pending - next < PLANS_AHEAD ? n_pending - next : PLANS_AHEAD;
                plans_from = next;
                rc = ladder_db_match_get_many(db, tid, pending + next, k, plans, &n_plans);
                if (n_plans == 0) {
                    snprintf(err, cap, "%s", ladder_db_errmsg(db));
                    first_err = rc;
                    break;
                }
                /* A failure after some: they are played, and it is met again next. */
            }
            const ladder_plan_match pm = plans[next - plans_from];
            arena_job job = {pm.number, pm.seed, pm.n_seats, {0}};
            memcpy(job.slot, pm.slot, sizeof job.slot);
            if (x->before_job)
                x->before_job(x->hook_ctx, x->ctx, &job);
            rc = x->ops->submit(x, &job);
            if (rc != JA_OK) {
                snprintf(err, cap, "cannot hand match %u to the executor: %s",
                         (unsigned)pm.number, ja_strerror(rc));
                first_err = rc;
                break;
            }
            next++;
            in_flight++;
        }
        /* The next result, and every other one already there. */
        if (in_flight == 0 || x->ops->next(x, &jr[0]) != JA_OK)
            break;
        uint32_t n = 1;
        while (n < BATCH && n < in_flight && x->ops->next_ready &&
               x->ops->next_ready(x, &jr[n]) == JA_OK)
            n++;
        in_flight -= n;
        /* Played ones to record (compacted to the front), failed ones noted. */
        void *xd[BATCH];
        size_t xlen[BATCH];
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            arena_job_result *r = &jr[i];
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
                if (first_err == JA_OK) {
                    snprintf(err, cap, "match %u could not be played: %s", (unsigned)r->number,
                             r->err);
                    first_err = r->rc;
                }
                continue;
            }
            if (k != i)
                jr[k] = *r;
            xd[k] = d;
            xlen[k++] = r->export_len;
        }
        int rcs[BATCH];
        record(db, tid, jr, k, rcs);
        for (uint32_t i = 0; i < k; i++) {
            char rerr[512] = "";
            if (rcs[i] != JA_OK)
                snprintf(rerr, sizeof rerr,
                         "%s (match %u is not recorded; run the same command again to finish)",
                         ladder_db_errmsg(db), (unsigned)jr[i].number);
            else if (x->export && xd[i] && arena_export_append(x->export, xd[i], xlen[i]) != JA_OK)
                snprintf(rerr, sizeof rerr, "cannot write the exported decisions of match %u",
                         (unsigned)jr[i].number);
            free(xd[i]);
            if (rerr[0]) {
                if (first_err == JA_OK) {
                    snprintf(err, cap, "%s", rerr);
                    first_err = rcs[i] != JA_OK ? rcs[i] : JA_EIO;
                }
                continue;
            }
            if (progress)
                progress(ctx, ++done, ti.n_matches);
        }
    }
    free(jr);
    free(plans);
    free(pending);
    return first_err;
}
