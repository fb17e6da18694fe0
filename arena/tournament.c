/* The tournament loop (tournament.h). */
#include "tournament.h"
#include "export.h"

#include "jackarena/ja_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records one finished job; JA_ESTATE (already recorded by an earlier run)
 * is not an error. */
static int record(ladder_db *db, int64_t tid, const arena_job_result *jr, char *err, size_t cap)
{
    ladder_match_result lr;
    memset(&lr, 0, sizeof lr);
    lr.outcome = jr->res.outcome;
    /* A forfeiting seat takes last place in the ladder; the others keep
     * their order and every score stands as played (match.h). */
    uint32_t places[JA_MAX_SEATS];
    ref_match_ranked_places(&jr->res.outcome, jr->res.forfeit, jr->res.outcome.n_seats, places);
    for (uint32_t s = 0; s < jr->res.outcome.n_seats; s++)
        lr.outcome.place[s] = (uint8_t)places[s];
    memcpy(lr.faults, jr->res.fault_kinds, sizeof lr.faults);
    lr.turns = jr->res.decisions;
    char hex[REF_DIGEST_HEX];
    ref_digest_hex(jr->res.digest, hex);
    lr.digest = hex;
    lr.replay_path = jr->replay_path[0] ? jr->replay_path : NULL;
    int rc = ladder_db_record_match(db, tid, jr->number, &lr);
    if (rc == JA_ESTATE)
        return JA_OK;
    if (rc != JA_OK)
        snprintf(err, cap, "%s (match %u is not recorded; run the same command again to finish)",
                 ladder_db_errmsg(db), (unsigned)jr->number);
    return rc;
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
    arena_job_result *jr = malloc(sizeof *jr);
    if (!jr) {
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
            ladder_plan_match pm;
            rc = ladder_db_match_get(db, tid, pending[next], &pm);
            if (rc != JA_OK) {
                snprintf(err, cap, "%s", ladder_db_errmsg(db));
                first_err = rc;
                break;
            }
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
        if (in_flight == 0 || x->ops->next(x, jr) != JA_OK)
            break;
        in_flight--;
        /* The match's exported decisions, appended once it is recorded. */
        void *xd = jr->export_data;
        size_t xlen = jr->export_len;
        jr->export_data = NULL;
        if (jr->rc == JA_OK && x->on_result)
            x->on_result(x->hook_ctx, x->ctx, jr);
        free(jr->stderr_tails);
        jr->stderr_tails = NULL;
        /* Every finished match is recorded, even after a failure elsewhere. */
        if (jr->rc != JA_OK) {
            free(xd);
            if (first_err == JA_OK) {
                snprintf(err, cap, "match %u could not be played: %s", (unsigned)jr->number,
                         jr->err);
                first_err = jr->rc;
            }
            continue;
        }
        char rerr[512];
        rc = record(db, tid, jr, rerr, sizeof rerr);
        if (rc == JA_OK && x->export && xd &&
            arena_export_append(x->export, xd, xlen) != JA_OK) {
            snprintf(rerr, sizeof rerr, "cannot write the exported decisions of match %u",
                     (unsigned)jr->number);
            rc = JA_EIO;
        }
        free(xd);
        if (rc != JA_OK) {
            if (first_err == JA_OK) {
                snprintf(err, cap, "%s", rerr);
                first_err = rc;
            }
            continue;
        }
        if (progress)
            progress(ctx, ++done, ti.n_matches);
    }
    free(jr);
    free(pending);
    return first_err;
}
