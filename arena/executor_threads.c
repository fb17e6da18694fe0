/* The threaded executor: plays several jobs at once in the arena's process,
 * one worker thread per running match (executor.h).
 *
 * Why it is safe: a match touches only its own state, its seats and its
 * replay file. Plugin seats are per-seat instances, which the bot ABI allows
 * to run concurrently; `zmq` seats each own an inproc socket of their
 * thread, and only the hub's thread touches the bots' socket. The database
 * is written by the tournament loop alone, in the calling thread, from the
 * results handed out by next().
 *
 * Why results do not depend on the thread count: a job's match is a pure
 * function of its plan entry (seed, seats) and the bots' choices; the order
 * in which jobs start or finish changes nothing in any of them.
 *
 * Capacity: a worker starts the first queued job whose bots all have room,
 * that is, fewer matches running than ref_bot_capacity() (0 = no limit); a
 * bot with no match running always has room, so every job eventually runs.
 * The queue holds twice as many jobs as there are workers, so one busy bot
 * does not leave the other workers idle. */
#include "executor.h"

#include "jackarena/ja_error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct threads_x {
    arena_executor base;
    pthread_mutex_t mu;
    pthread_cond_t work;       /* a job was queued, or a bot has room again */
    pthread_cond_t done;       /* a result is ready */
    arena_job *queue;          /* submitted, not started, in submission order */
    uint32_t n_queue;
    arena_job_result *pool;    /* max_out result slots, allocated up front */
    bool *pool_used;
    uint32_t *ready;           /* pool indices of finished results not handed out */
    uint32_t n_ready;
    uint32_t outstanding;      /* submitted and not handed out */
    uint32_t max_out;          /* capacity() */
    uint32_t in_use[UINT16_MAX + 1]; /* running matches per participant slot */
    pthread_t *threads;
    uint32_t n_threads;
    bool quit;
} threads_x;

/* Whether job fits now: every distinct participant either has room under
 * its capacity or plays nothing at the moment. Called with the lock held. */
static bool fits(threads_x *e, const arena_job *job)
{
    for (uint32_t s = 0; s < job->n_seats; s++) {
        uint16_t slot = job->slot[s];
        uint32_t cap = ref_bot_capacity(e->base.ctx->bots[slot]);
        if (cap && e->in_use[slot] && e->in_use[slot] >= cap)
            return false;
    }
    return true;
}

static void account(threads_x *e, const arena_job *job, int delta)
{
    for (uint32_t s = 0; s < job->n_seats; s++)
        e->in_use[job->slot[s]] += (uint32_t)delta;
}

static void *worker(void *arg)
{
    threads_x *e = arg;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        uint32_t k = 0;
        while (!e->quit) {
            for (k = 0; k < e->n_queue && !fits(e, &e->queue[k]); k++)
                ;
            if (k < e->n_queue)
                break;
            pthread_cond_wait(&e->work, &e->mu);
        }
        if (e->quit)
            break;
        arena_job job = e->queue[k];
        memmove(&e->queue[k], &e->queue[k + 1], (e->n_queue - k - 1) * sizeof *e->queue);
        e->n_queue--;
        account(e, &job, 1);
        /* A free result slot exists: at most max_out jobs are outstanding. */
        uint32_t i = 0;
        while (e->pool_used[i])
            i++;
        e->pool_used[i] = true;
        pthread_mutex_unlock(&e->mu);

        arena_job_run(e->base.ctx, &job, e->base.export != NULL, &e->pool[i]);

        pthread_mutex_lock(&e->mu);
        account(e, &job, -1);
        e->ready[e->n_ready++] = i;
        pthread_cond_signal(&e->done);
        pthread_cond_broadcast(&e->work);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

static uint32_t threads_capacity(arena_executor *x)
{
    return ((threads_x *)x)->max_out;
}

static int threads_submit(arena_executor *x, const arena_job *job)
{
    threads_x *e = (threads_x *)x;
    pthread_mutex_lock(&e->mu);
    int rc = JA_OK;
    if (e->outstanding >= e->max_out) {
        rc = JA_EBUSY;
    } else {
        e->queue[e->n_queue++] = *job;
        e->outstanding++;
        pthread_cond_signal(&e->work);
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

static int threads_next(arena_executor *x, arena_job_result *out)
{
    threads_x *e = (threads_x *)x;
    pthread_mutex_lock(&e->mu);
    if (e->outstanding == 0) {
        pthread_mutex_unlock(&e->mu);
        return JA_EAGAIN;
    }
    while (e->n_ready == 0)
        pthread_cond_wait(&e->done, &e->mu);
    uint32_t i = e->ready[--e->n_ready];
    *out = e->pool[i];
    e->pool_used[i] = false;
    e->outstanding--;
    pthread_mutex_unlock(&e->mu);
    return JA_OK;
}

static void threads_destroy(arena_executor *x)
{
    threads_x *e = (threads_x *)x;
    pthread_mutex_lock(&e->mu);
    e->quit = true;
    pthread_cond_broadcast(&e->work);
    pthread_mutex_unlock(&e->mu);
    for (uint32_t i = 0; i < e->n_threads; i++)
        pthread_join(e->threads[i], NULL);
    pthread_cond_destroy(&e->work);
    pthread_cond_destroy(&e->done);
    pthread_mutex_destroy(&e->mu);
    free(e->threads);
    free(e->queue);
    free(e->pool);
    free(e->pool_used);
    free(e->ready);
    free(e);
}

static const arena_executor_ops threads_ops = {
    threads_capacity, threads_submit, threads_next, threads_destroy,
};

int arena_executor_threads_new(const arena_exec_ctx *ctx, uint32_t threads, arena_executor **out)
{
    *out = NULL;
    if (threads == 0)
        return JA_EINVAL;
    threads_x *e = calloc(1, sizeof *e);
    if (!e)
        return JA_ENOMEM;
    e->base.ops = &threads_ops;
    e->base.ctx = ctx;
    e->max_out = threads * 2;
    e->queue = calloc(e->max_out, sizeof *e->queue);
    e->pool = calloc(e->max_out, sizeof *e->pool);
    e->pool_used = calloc(e->max_out, sizeof *e->pool_used);
    e->ready = calloc(e->max_out, sizeof *e->ready);
    e->threads = calloc(threads, sizeof *e->threads);
    if (!e->queue || !e->pool || !e->pool_used || !e->ready || !e->threads) {
        free(e->queue);
        free(e->pool);
        free(e->pool_used);
        free(e->ready);
        free(e->threads);
        free(e);
        return JA_ENOMEM;
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->work, NULL);
    pthread_cond_init(&e->done, NULL);
    for (uint32_t i = 0; i < threads; i++) {
        if (pthread_create(&e->threads[i], NULL, worker, e) != 0)
            break;
        e->n_threads++;
    }
    if (e->n_threads == 0) {
        threads_destroy(&e->base);
        return JA_ENOMEM;
    }
    *out = &e->base;
    return JA_OK;
}
