/* The job queue of the in-process executors (executor_queue.h). */
#include "run/executor_queue.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <stdlib.h>
#include <string.h>

void arena_jobq_init(arena_jobq *q, const arena_exec_ctx *ctx, uint32_t max_out)
{
    q->ctx = ctx;
    q->max_out = max_out;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->done, NULL);
    q->queue = ja_xcalloc(max_out, sizeof *q->queue);
    q->pool = ja_xcalloc(max_out, sizeof *q->pool);
    q->pool_used = ja_xcalloc(max_out, sizeof *q->pool_used);
    q->ready = ja_xcalloc(max_out, sizeof *q->ready);
}

void arena_jobq_destroy(arena_jobq *q)
{
    pthread_cond_destroy(&q->done);
    pthread_mutex_destroy(&q->mu);
    free(q->queue);
    free(q->pool);
    free(q->pool_used);
    free(q->ready);
}

/* Whether job fits now: every distinct participant either has room under
 * its capacity or plays nothing at the moment. */
static bool fits(const arena_jobq *q, const arena_job *job)
{
    for (uint32_t s = 0; s < job->n_seats; s++) {
        uint16_t slot = job->slot[s];
        uint32_t cap = ref_bot_capacity(q->ctx->bots[slot]);
        if (cap && q->in_use[slot] && q->in_use[slot] >= cap)
            return false;
    }
    return true;
}

static void account(arena_jobq *q, const arena_job *job, int delta)
{
    for (uint32_t s = 0; s < job->n_seats; s++)
        q->in_use[job->slot[s]] += (uint32_t)delta;
}

bool arena_jobq_take(arena_jobq *q, arena_job *job, uint32_t *slot)
{
    uint32_t k = 0;
    while (k < q->n_queue && !fits(q, &q->queue[k]))
        k++;
    if (k == q->n_queue)
        return false;
    *job = q->queue[k];
    memmove(&q->queue[k], &q->queue[k + 1], (q->n_queue - k - 1) * sizeof *q->queue);
    q->n_queue--;
    account(q, job, 1);
    uint32_t i = 0;
    while (q->pool_used[i]) /* a free one exists: at most max_out are outstanding */
        i++;
    q->pool_used[i] = true;
    *slot = i;
    return true;
}

void arena_jobq_deliver(arena_jobq *q, uint32_t slot)
{
    account(q, &q->pool[slot].job, -1);
    q->ready[q->n_ready++] = slot;
    pthread_cond_signal(&q->done);
}

int arena_jobq_submit(arena_jobq *q, const arena_job *job)
{
    pthread_mutex_lock(&q->mu);
    int rc = JA_OK;
    if (q->outstanding >= q->max_out) {
        rc = JA_EBUSY;
    } else {
        q->queue[q->n_queue++] = *job;
        q->outstanding++;
    }
    pthread_mutex_unlock(&q->mu);
    return rc;
}

static int take_result(arena_jobq *q, arena_job_result *out, bool wait)
{
    pthread_mutex_lock(&q->mu);
    if (q->outstanding == 0 || (!wait && q->n_ready == 0)) {
        pthread_mutex_unlock(&q->mu);
        return JA_EAGAIN;
    }
    while (q->n_ready == 0)
        pthread_cond_wait(&q->done, &q->mu);
    uint32_t i = q->ready[--q->n_ready];
    *out = q->pool[i];
    q->pool_used[i] = false;
    q->outstanding--;
    pthread_mutex_unlock(&q->mu);
    return JA_OK;
}

int arena_jobq_next(arena_jobq *q, arena_job_result *out)
{
    return take_result(q, out, true);
}

int arena_jobq_next_ready(arena_jobq *q, arena_job_result *out)
{
    return take_result(q, out, false);
}
