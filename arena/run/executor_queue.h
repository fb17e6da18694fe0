/* The job queue of the in-process executors that play several jobs at once
 * (executor_threads.c: a thread per match; executor_events.c: one thread
 * for all): submitted jobs waiting to start, the result slots (allocated up
 * front: at most max_out jobs are outstanding), the finished results not
 * yet handed out, and how many matches each participant plays, so that a
 * job starts only when each of its bots has room under its capacity
 * (ref_bot_capacity; a bot playing nothing always has room, so every job
 * eventually runs). */
#ifndef ARENA_EXECUTOR_QUEUE_H
#define ARENA_EXECUTOR_QUEUE_H

#include "run/executor.h"

#include <pthread.h>

typedef struct arena_jobq {
    const arena_exec_ctx *ctx;
    pthread_mutex_t mu;
    pthread_cond_t done;       /* a result is ready */
    arena_job *queue;          /* submitted, not started, in submission order */
    uint32_t n_queue;
    arena_job_result *pool;    /* max_out result slots */
    bool *pool_used;
    uint32_t *ready;           /* pool indices of finished results not handed out */
    uint32_t n_ready;
    uint32_t outstanding;      /* submitted and not handed out */
    uint32_t max_out;
    uint32_t in_use[UINT16_MAX + 1]; /* running matches per participant slot */
} arena_jobq;

/* Allocates the queue and the result slots for max_out jobs. */
void arena_jobq_init(arena_jobq *q, const arena_exec_ctx *ctx, uint32_t max_out);
void arena_jobq_destroy(arena_jobq *q);

/* With q->mu held. take: the first queued job whose bots all have room,
 * counted as running, with a free result slot in *slot; false when none
 * fits. deliver: the job of result slot `slot` is over (its result
 * complete): counted as not running, handed to next(), which is woken. */
bool arena_jobq_take(arena_jobq *q, arena_job *job, uint32_t *slot);
void arena_jobq_deliver(arena_jobq *q, uint32_t slot);

/* Takes the lock. submit: JA_OK, or JA_EBUSY with max_out outstanding.
 * next: waits for a finished result and hands it out (the slot is free
 * again); JA_EAGAIN when none is outstanding. */
int arena_jobq_submit(arena_jobq *q, const arena_job *job);
int arena_jobq_next(arena_jobq *q, arena_job_result *out);
/* next without waiting: JA_EAGAIN when no result is ready now. */
int arena_jobq_next_ready(arena_jobq *q, arena_job_result *out);

#endif /* ARENA_EXECUTOR_QUEUE_H */
