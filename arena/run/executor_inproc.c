/* The in-process executor: plays each job in the arena's own process, one
 * at a time, when its result is asked for (executor.h). */
#include "run/executor.h"
#include "run/export.h"
#include "run/repro.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct inproc {
    arena_executor base;
    arena_job job;
    bool pending;
} inproc;

void arena_replay_name(char *buf, size_t cap, const char *dir, int64_t tournament_id,
                       uint32_t number)
{
    snprintf(buf, cap, "%s/t%lld-m%06u.rpl", dir, (long long)tournament_id, (unsigned)number);
}

static uint32_t inproc_capacity(arena_executor *x)
{
    return 1;
}

static int inproc_submit(arena_executor *x, const arena_job *job)
{
    inproc *e = (inproc *)x;
    if (e->pending)
        return JA_EBUSY;
    e->job = *job;
    e->pending = true;
    return JA_OK;
}

/* The steps of a match go to its exported decisions and its live view,
 * either or both. */
typedef struct step_fan {
    arena_export_match *xm;
    const arena_live_hook *live;
    void *lm;
} step_fan;

static void fan_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    step_fan *f = ctx;
    if (f->xm)
        arena_export_match_step(f->xm, g, info);
    if (f->lm)
        f->live->step(f->lm, g, info);
}

/* A job in play (executor.h): what its match borrows lives here. */
struct arena_job_play {
    const arena_exec_ctx *c;
    arena_job_result *out;
    ref_match_config cfg;
    char id[64];
    ref_bot *bots[JA_MAX_SEATS];
    const char *names[JA_MAX_SEATS];
    ref_replay_writer *rw;
    arena_export_match *xm;
    char *tails;
    step_fan fan;
    ref_match *m;
};

arena_job_play *arena_job_start(const arena_exec_ctx *c, const arena_job *job,
                                bool export_decisions, arena_job_result *out)
{
    memset(out, 0, sizeof *out);
    out->number = job->number;
    out->job = *job;
    arena_job_play *p = ja_xcalloc(1, sizeof *p);
    p->c = c;
    p->out = out;
    ref_match_config *cfg = &p->cfg;
    cfg->game = c->game;
    cfg->options = c->options;
    cfg->n_seats = job->n_seats;
    cfg->seed = job->seed;
    cfg->move_ms = c->move_ms;
    cfg->bank_ms = c->faults.bank_ms;
    cfg->on_fault = c->faults.on_fault;
    cfg->max_faults = c->max_faults;
    snprintf(p->id, sizeof p->id, "t%lld-m%u", (long long)c->tournament_id,
             (unsigned)job->number);
    cfg->match_id = p->id;
    for (uint32_t s = 0; s < job->n_seats; s++) {
        p->bots[s] = c->bots[job->slot[s]];
        p->names[s] = c->names[job->slot[s]];
    }
    cfg->bots = p->bots;
    cfg->names = p->names;
    if (c->replay_dir) {
        arena_replay_name(out->replay_path, sizeof out->replay_path, c->replay_dir,
                          c->tournament_id, job->number);
        out->rc = ref_replay_writer_open(out->replay_path, &p->rw, out->err, sizeof out->err);
        if (out->rc != JA_OK) {
            out->replay_path[0] = '\0';
            free(p);
            return NULL;
        }
        cfg->replay_id = out->replay_path;
    }
    if (export_decisions)
        p->xm = arena_export_match_new(cfg, job->number, p->names);
    /* Stderr tails for bundles: one buffer per match, never per decision. */
    p->tails = c->faults.stderr_tails ? ja_xmalloc((size_t)job->n_seats * ARENA_REPRO_TAIL) : NULL;
    if (p->tails) {
        cfg->stderr_tails = p->tails;
        cfg->stderr_cap = ARENA_REPRO_TAIL;
    }
    cfg->replay = &p->rw;
    p->fan = (step_fan){p->xm, c->live, c->live ? c->live->begin(c->live->ctx, c, job) : NULL};
    cfg->on_step = p->xm || p->fan.lm ? fan_step : NULL;
    cfg->step_ctx = &p->fan;
    out->rc = ref_match_start(cfg, &out->res, out->err, sizeof out->err, &p->m);
    return p;
}

int arena_job_play_on(arena_job_play *p, bool nowait)
{
    return p->out->rc = p->m ? ref_match_play(p->m, nowait) : p->out->rc;
}

int64_t arena_job_waits_until(const arena_job_play *p)
{
    return p->m ? ref_match_waits_until(p->m) : 0;
}

void arena_job_finish(arena_job_play *p)
{
    if (!p)
        return;
    const arena_exec_ctx *c = p->c;
    arena_job_result *out = p->out;
    ref_match_close(p->m);
    if (p->fan.lm)
        c->live->end(p->fan.lm, out);
    bool faulty = false;
    for (uint32_t s = 0; s < out->job.n_seats; s++)
        faulty |= out->res.faults[s] != 0;
    if (out->rc == JA_OK && faulty)
        out->stderr_tails = p->tails;
    else
        free(p->tails);
    if (out->rc == JA_OK && p->xm &&
        arena_export_match_end(p->xm, &out->res, &out->export_data, &out->export_len) != JA_OK) {
        out->rc = JA_ENOMEM;
        snprintf(out->err, sizeof out->err, "out of memory for the exported decisions");
    }
    arena_export_match_free(p->xm);
    if (out->rc != JA_OK)
        out->replay_path[0] = '\0';
    free(p);
}

void arena_job_run(const arena_exec_ctx *c, const arena_job *job, bool export_decisions,
                   arena_job_result *out)
{
    arena_job_play *p = arena_job_start(c, job, export_decisions, out);
    if (!p)
        return;
    if (out->rc == JA_OK)
        arena_job_play_on(p, false);
    arena_job_finish(p);
}

static int inproc_next(arena_executor *x, arena_job_result *out)
{
    inproc *e = (inproc *)x;
    if (!e->pending)
        return JA_EAGAIN;
    e->pending = false;
    arena_job_run(x->ctx, &e->job, x->export != NULL, out);
    return JA_OK;
}

static void inproc_destroy(arena_executor *x)
{
    free(x);
}

static const arena_executor_ops inproc_ops = {
    inproc_capacity, inproc_submit, inproc_next, inproc_destroy, NULL,
};

int arena_executor_inproc_new(const arena_exec_ctx *ctx, arena_executor **out)
{
    inproc *e = ja_xcalloc(1, sizeof *e);
    e->base.ops = &inproc_ops;
    e->base.ctx = ctx;
    *out = &e->base;
    return JA_OK;
}
