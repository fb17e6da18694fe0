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
 * Capacity: as the threaded executor (executor_queue.h), a job starts only
 * when each of its bots has room under its announced capacity (or plays
 * nothing). */
#include "run/executor_queue.h"

#include "hub.h"
#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct events_x {
    arena_executor base;
    arena_jobq q;              /* q.mu guards quit too */
    ref_hub *hub;
    uint32_t slots;            /* matches played at once */
    pthread_t thread;
    bool started;
    bool quit;
} events_x;

/* A match in play, and the result slot it fills. */
typedef struct running {
    arena_job_play *p;
    uint32_t slot;
} running;

/* Hands the result of slot out (its job is over). */
static void deliver(events_x *e, uint32_t slot)
{
    pthread_mutex_lock(&e->q.mu);
    arena_jobq_deliver(&e->q, slot);
    pthread_mutex_unlock(&e->q.mu);
}

/* Plays r on; true when it is over (its result delivered). */
static bool play_on(events_x *e, running *r, bool nowait)
{
    if (arena_job_play_on(r->p, nowait) == JA_EAGAIN)
        return false;
    arena_job_finish(r->p);
    r->p = NULL;
    deliver(e, r->slot);
    return true;
}

static void *loop(void *arg)
{
    events_x *e = arg;
    running *run = ja_xcalloc(e->slots, sizeof *run);
    uint32_t n_run = 0;
    bool gone = false; /* the hub's context ended: every wait ends at once */
    ref_hub_hold(e->hub);
    for (;;) {
        /* A queued job that fits starts, and plays up to its first wait. */
        arena_job job;
        uint32_t slot;
        pthread_mutex_lock(&e->q.mu);
        bool quit = e->quit;
        bool start = !quit && n_run < e->slots && arena_jobq_take(&e->q, &job, &slot);
        pthread_mutex_unlock(&e->q.mu);
        if (quit)
            break;
        if (start) {
            running r = {arena_job_start(e->base.ctx, &job, e->base.export != NULL,
                                         &e->q.pool[slot]),
                         slot};
            if (!r.p)
                deliver(e, slot);
            else if (!play_on(e, &r, !gone))
                run[n_run++] = r;
            continue;
        }
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
     * what still runs is closed unfinished. */
    for (uint32_t i = 0; i < n_run; i++)
        arena_job_finish(run[i].p);
    ref_hub_release(e->hub);
    free(run);
    return NULL;
}

static uint32_t events_capacity(arena_executor *x)
{
    return ((events_x *)x)->q.max_out;
}

static int events_submit(arena_executor *x, const arena_job *job)
{
    events_x *e = (events_x *)x;
    int rc = arena_jobq_submit(&e->q, job);
    if (rc == JA_OK)
        ref_hub_wake(e->hub);
    return rc;
}

static int events_take(arena_executor *x, arena_job_result *out, bool wait)
{
    events_x *e = (events_x *)x;
    int rc = wait ? arena_jobq_next(&e->q, out) : arena_jobq_next_ready(&e->q, out);
    if (rc == JA_OK)
        ref_hub_wake(e->hub); /* a slot is free again: a queued job may fit now */
    return rc;
}

static int events_next(arena_executor *x, arena_job_result *out)
{
    return events_take(x, out, true);
}

static int events_next_ready(arena_executor *x, arena_job_result *out)
{
    return events_take(x, out, false);
}

static void events_destroy(arena_executor *x)
{
    events_x *e = (events_x *)x;
    if (e->started) {
        pthread_mutex_lock(&e->q.mu);
        e->quit = true;
        pthread_mutex_unlock(&e->q.mu);
        ref_hub_wake(e->hub);
        pthread_join(e->thread, NULL);
    }
    arena_jobq_destroy(&e->q);
    free(e);
}

static const arena_executor_ops events_ops = {
    events_capacity, events_submit, events_next, events_destroy, events_next_ready,
};

int arena_executor_events_new(const arena_exec_ctx *ctx, ref_hub *hub, uint32_t slots,
                              arena_executor **out)
{
    *out = NULL;
    if (slots == 0 || !hub)
        return JA_EINVAL;
    events_x *e = ja_xcalloc(1, sizeof *e);
    e->base.ops = &events_ops;
    e->base.ctx = ctx;
    e->hub = hub;
    e->slots = slots;
    arena_jobq_init(&e->q, ctx, slots * 2);
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
