/* The event executor: plays up to `slots` jobs at once in one thread of the
 * arena's process, for tournaments whose every bot is external (executor.h).
 *
 * Why: with a thread per match, each decision of an external bot crosses
 * from the match's thread to the hub's thread and back (two thread
 * wake-ups on top of the transport's), and the matches' threads fight for
 * the cores. Here one thread holds the hub's baton for the whole run
 * (ref_hub_hold), its seats are direct (ref_hub_set_direct), and it runs
 * the hub's loop itself: each turn of the loop reads whatever answers came
 * (often several), then plays on every match whose awaited answer is there
 * (ref_match_play with nowait: up to the next question to an external bot,
 * which it sends at once), and waits again. A decision then costs no hop
 * between threads, and a burst of answers one wake-up.
 *
 * Why results do not change: a match is played by the same code
 * (ref_match_play) whether it waits in a thread or returns JA_EAGAIN and is
 * resumed; the hub judges each answer against its own deadline when it
 * arrives, whichever match is being played meanwhile, and a match whose
 * deadline passes is resumed when the loop wakes for it
 * (ref_match_waits_until), as a waiting thread would.
 *
 * Capacity: as the threaded executor, a job starts only when each of its
 * bots has room under its announced capacity (or plays nothing). */
#include "executor.h"

#include "hub.h"
#include "jackarena/ja_error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct events_x {
    arena_executor base;
    ref_hub *hub;
    pthread_mutex_t mu;
    pthread_cond_t done;       /* a result is ready */
    arena_job *queue;          /* submitted, not started, in submission order */
    uint32_t n_queue;
    arena_job_result *pool;    /* max_out result slots, allocated up front */
    bool *pool_used;
    uint32_t *ready;           /* pool indices of finished results not handed out */
    uint32_t n_ready;
    uint32_t outstanding;      /* submitted and not handed out */
    uint32_t max_out;          /* capacity() */
    uint32_t slots;            /* matches played at once */
    uint32_t in_use[UINT16_MAX + 1]; /* running matches per participant slot */
    pthread_t thread;
    bool started;
    bool quit;
} events_x;

/* A match in play, and the result slot it fills. */
typedef struct running {
    arena_job_play *p;
    uint32_t slot;
} running;

static bool fits(events_x *e, const arena_job *job)
{
    for (uint32_t s = 0; s < job->n_seats; s++) {
        uint16_t slot = job->slot[s];
        uint32_t cap = ref_bot_capacity(e->base.ctx->bots[slot]);
        if (cap && e->in_use[slot] && e->in_use[slot] >= cap)
            return false;
    }
    return true;
}

static void account(events_x *e, const arena_job *job, int delta)
{
    for (uint32_t s = 0; s < job->n_seats; s++)
        e->in_use[job->slot[s]] += (uint32_t)delta;
}

/* Hands a finished job's result out. Called with the lock held. */
static void deliver(events_x *e, uint32_t slot)
{
    account(e, &e->pool[slot].job, -1);
    e->ready[e->n_ready++] = slot;
    pthread_cond_signal(&e->done);
}

/* Takes the first queued job that fits, with a result slot, or false.
 * Called with the lock held. */
static bool take_job(events_x *e, arena_job *job, uint32_t *slot)
{
    uint32_t k = 0;
    while (k < e->n_queue && !fits(e, &e->queue[k]))
        k++;
    if (k == e->n_queue)
        return false;
    *job = e->queue[k];
    memmove(&e->queue[k], &e->queue[k + 1], (e->n_queue - k - 1) * sizeof *e->queue);
    e->n_queue--;
    account(e, job, 1);
    uint32_t i = 0;
    while (e->pool_used[i]) /* a free one exists: at most max_out are outstanding */
        i++;
    e->pool_used[i] = true;
    *slot = i;
    return true;
}

/* Plays r on; true when it is over (its result delivered). */
static bool play_on(events_x *e, running *r, bool nowait)
{
    if (arena_job_play_on(r->p, nowait) == JA_EAGAIN)
        return false;
    arena_job_finish(r->p);
    r->p = NULL;
    pthread_mutex_lock(&e->mu);
    deliver(e, r->slot);
    pthread_mutex_unlock(&e->mu);
    return true;
}

static void *loop(void *arg)
{
    events_x *e = arg;
    running *run = calloc(e->slots, sizeof *run);
    uint32_t n_run = 0;
    bool gone = false; /* the hub's context ended: every wait ends at once */
    ref_hub_hold(e->hub);
    for (;;) {
        /* Start what fits. */
        pthread_mutex_lock(&e->mu);
        bool quit = e->quit;
        while (!quit && run && n_run < e->slots) {
            arena_job job;
            uint32_t slot;
            if (!take_job(e, &job, &slot))
                break;
            pthread_mutex_unlock(&e->mu);
            running r = {arena_job_start(e->base.ctx, &job, e->base.export != NULL,
                                         &e->pool[slot]),
                         slot};
            if (!r.p) {
                pthread_mutex_lock(&e->mu);
                deliver(e, slot);
                continue;
            }
            run[n_run] = r;
            if (!play_on(e, &run[n_run], !gone))
                n_run++;
            pthread_mutex_lock(&e->mu);
        }
        if (!run && e->n_queue) { /* out of memory: fail the queued jobs */
            arena_job job;
            uint32_t slot;
            while (take_job(e, &job, &slot)) {
                arena_job_result *out = &e->pool[slot];
                memset(out, 0, sizeof *out);
                out->number = job.number;
                out->job = job;
                out->rc = JA_ENOMEM;
                snprintf(out->err, sizeof out->err, "out of memory");
                deliver(e, slot);
            }
        }
        pthread_mutex_unlock(&e->mu);
        if (quit)
            break;
        /* Wait for answers (or a deadline, a new job, the hub's tick). */
        int64_t until = 0;
        for (uint32_t i = 0; i < n_run; i++) {
            int64_t t = arena_job_waits_until(run[i].p);
            if (t && (!until || t < until))
                until = t;
        }
        if (!gone && ref_hub_run_once(e->hub, until) < 0)
            gone = true;
        /* Play on every match whose answer came. */
        uint32_t k = 0;
        for (uint32_t i = 0; i < n_run; i++)
            if (!play_on(e, &run[i], !gone))
                run[k++] = run[i];
        n_run = k;
    }
    /* Told to quit: the tournament loop has taken every result it wants;
     * what still runs is closed unfinished (its seats told nothing more). */
    for (uint32_t i = 0; i < n_run; i++)
        arena_job_finish(run[i].p);
    ref_hub_release(e->hub);
    free(run);
    return NULL;
}

static uint32_t events_capacity(arena_executor *x)
{
    return ((events_x *)x)->max_out;
}

static int events_submit(arena_executor *x, const arena_job *job)
{
    events_x *e = (events_x *)x;
    pthread_mutex_lock(&e->mu);
    int rc = JA_OK;
    if (e->outstanding >= e->max_out) {
        rc = JA_EBUSY;
    } else {
        e->queue[e->n_queue++] = *job;
        e->outstanding++;
    }
    pthread_mutex_unlock(&e->mu);
    if (rc == JA_OK)
        ref_hub_wake(e->hub);
    return rc;
}

static int events_next(arena_executor *x, arena_job_result *out)
{
    events_x *e = (events_x *)x;
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
    /* A slot is free again: a queued job may fit now. */
    ref_hub_wake(e->hub);
    return JA_OK;
}

static void events_destroy(arena_executor *x)
{
    events_x *e = (events_x *)x;
    if (e->started) {
        pthread_mutex_lock(&e->mu);
        e->quit = true;
        pthread_mutex_unlock(&e->mu);
        ref_hub_wake(e->hub);
        pthread_join(e->thread, NULL);
    }
    pthread_cond_destroy(&e->done);
    pthread_mutex_destroy(&e->mu);
    free(e->queue);
    free(e->pool);
    free(e->pool_used);
    free(e->ready);
    free(e);
}

static const arena_executor_ops events_ops = {
    events_capacity, events_submit, events_next, events_destroy,
};

int arena_executor_events_new(const arena_exec_ctx *ctx, ref_hub *hub, uint32_t slots,
                              arena_executor **out)
{
    *out = NULL;
    if (slots == 0 || !hub)
        return JA_EINVAL;
    events_x *e = calloc(1, sizeof *e);
    if (!e)
        return JA_ENOMEM;
    e->base.ops = &events_ops;
    e->base.ctx = ctx;
    e->hub = hub;
    e->slots = slots;
    e->max_out = slots * 2;
    e->queue = calloc(e->max_out, sizeof *e->queue);
    e->pool = calloc(e->max_out, sizeof *e->pool);
    e->pool_used = calloc(e->max_out, sizeof *e->pool_used);
    e->ready = calloc(e->max_out, sizeof *e->ready);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->done, NULL);
    if (!e->queue || !e->pool || !e->pool_used || !e->ready) {
        events_destroy(&e->base);
        return JA_ENOMEM;
    }
    /* Seats opened from now on run the hub's loop in the calling thread. */
    ref_hub_set_direct(hub, true);
    if (pthread_create(&e->thread, NULL, loop, e) != 0) {
        events_destroy(&e->base);
        return JA_ENOMEM;
    }
    e->started = true;
    *out = &e->base;
    return JA_OK;
}
