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
#include "run/executor_queue.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <stdlib.h>

typedef struct threads_x {
    arena_executor base;
    arena_jobq q;              /* q.mu guards everything here */
    pthread_cond_t work;       /* a job was queued, or a bot has room again */
    pthread_t *threads;
    uint32_t n_threads;
    bool quit;
} threads_x;

static void *worker(void *arg)
{
    threads_x *e = arg;
    pthread_mutex_lock(&e->q.mu);
    for (;;) {
        arena_job job;
        uint32_t i = 0;
        while (!e->quit && !arena_jobq_take(&e->q, &job, &i))
            pthread_cond_wait(&e->work, &e->q.mu);
        if (e->quit)
            break;
        pthread_mutex_unlock(&e->q.mu);

        arena_job_run(e->base.ctx, &job, e->base.export != NULL, &e->q.pool[i]);

        pthread_mutex_lock(&e->q.mu);
        arena_jobq_deliver(&e->q, i);
        pthread_cond_broadcast(&e->work);
    }
    pthread_mutex_unlock(&e->q.mu);
    return NULL;
}

static uint32_t threads_capacity(arena_executor *x)
{
    return ((threads_x *)x)->q.max_out;
}

static int threads_submit(arena_executor *x, const arena_job *job)
{
    threads_x *e = (threads_x *)x;
    int rc = arena_jobq_submit(&e->q, job);
    if (rc == JA_OK) {
        pthread_mutex_lock(&e->q.mu);
        pthread_cond_signal(&e->work);
        pthread_mutex_unlock(&e->q.mu);
    }
    return rc;
}

static int threads_next(arena_executor *x, arena_job_result *out)
{
    return arena_jobq_next(&((threads_x *)x)->q, out);
}

static int threads_next_ready(arena_executor *x, arena_job_result *out)
{
    return arena_jobq_next_ready(&((threads_x *)x)->q, out);
}

static void threads_destroy(arena_executor *x)
{
    threads_x *e = (threads_x *)x;
    pthread_mutex_lock(&e->q.mu);
    e->quit = true;
    pthread_cond_broadcast(&e->work);
    pthread_mutex_unlock(&e->q.mu);
    for (uint32_t i = 0; i < e->n_threads; i++)
        pthread_join(e->threads[i], NULL);
    pthread_cond_destroy(&e->work);
    arena_jobq_destroy(&e->q);
    free(e->threads);
    free(e);
}

static const arena_executor_ops threads_ops = {
    threads_capacity, threads_submit, threads_next, threads_destroy, threads_next_ready,
};

int arena_executor_threads_new(const arena_exec_ctx *ctx, uint32_t threads, arena_executor **out)
{
    *out = NULL;
    if (threads == 0)
        return JA_EINVAL;
    threads_x *e = ja_xcalloc(1, sizeof *e);
    e->base.ops = &threads_ops;
    e->base.ctx = ctx;
    pthread_cond_init(&e->work, NULL);
    e->threads = ja_xcalloc(threads, sizeof *e->threads);
    /* The queue holds twice as many jobs as there are workers. */
    arena_jobq_init(&e->q, ctx, threads * 2);
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
