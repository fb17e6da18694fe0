/* Executors run the match jobs of a tournament and report their results.
 *
 * The tournament loop knows only this interface: it submits jobs (a planned
 * match: its number, seed and seats) and takes results as they come. The
 * in-process executor (executor_inproc.c) plays each job in the arena's own
 * process; the threaded executor (executor_threads.c) plays several at once,
 * a thread per running match; referee workers over ZeroMQ (local ipc or
 * remote tcp) plug in behind the same ops, so nothing above this changes.
 * Results may come in any order; each carries its job number, and a job's
 * result depends only on the job (its plan entry), never on which executor
 * ran it or what ran beside it. */
#ifndef ARENA_EXECUTOR_H
#define ARENA_EXECUTOR_H

#include "match.h"

#include <signal.h>

typedef struct arena_export arena_export;
typedef struct arena_exec_ctx arena_exec_ctx;
typedef struct arena_job arena_job;
typedef struct arena_job_result arena_job_result;

/* Watching matches while they are played (`arena serve`'s live view,
 * serve_live.h). begin is called in the job's thread before the match and
 * gives the handle of the match (NULL: this one is not watched); step is
 * the match's on_step (match.h) with that handle; end is called once after
 * the match, whatever happened (r->rc), with the handle begin gave. */
typedef struct arena_live_hook {
    void *(*begin)(void *ctx, const arena_exec_ctx *xc, const arena_job *job);
    void (*step)(void *match, const ja_game_rules *g, const ref_step_info *info);
    void (*end)(void *match, const arena_job_result *r);
    void *ctx;
} arena_live_hook;

/* Time control and fault policy beyond move_ms and max_faults (plain data,
 * so that an executor in another process can carry it whole). */
typedef struct arena_fault_cfg {
    uint32_t bank_ms;            /* ref_match_config.bank_ms; 0 = none */
    uint8_t on_fault;            /* ref_on_fault */
    bool restart;                /* --restart: crashed cmd: bots start again */
    bool stderr_tails;           /* keep faulty seats' stderr tails (bundles) */
} arena_fault_cfg;

/* What every job of one tournament shares. Borrowed for the executor's
 * lifetime. */
typedef struct arena_exec_ctx {
    const ja_game_rules *game;
    ja_options options;          /* resolved */
    uint32_t move_ms;
    ref_bot *const *bots;        /* participant slot -> loaded bot */
    const char *const *names;    /* participant slot -> display name */
    const char *replay_dir;      /* NULL: no replays */
    int64_t tournament_id;
    uint32_t max_faults;         /* ref_match_config.max_faults; 0 = the default */
    arena_fault_cfg faults;
    const char *const *specs;    /* participant slot -> specifier as given, or NULL */
    const arena_live_hook *live; /* NULL: no match is watched while played */
} arena_exec_ctx;

typedef struct arena_job {
    uint32_t number;
    uint64_t seed;
    uint32_t n_seats;
    uint16_t slot[JA_MAX_SEATS]; /* seat -> participant slot */
} arena_job;

typedef struct arena_job_result {
    uint32_t number;
    int rc;                      /* JA_OK, or why the match could not be played */
    char err[512];
    ref_match_result res;
    char replay_path[4096];      /* "" when none */
    /* With x->export: the match's chunk of training data (malloc'ed; the
     * receiver of the result frees it), NULL otherwise or on failure. */
    void *export_data;
    size_t export_len;
    arena_job job;               /* the job this is the result of */
    /* With ctx->faults.stderr_tails and a fault in the match: n_seats
     * buffers of ARENA_REPRO_TAIL bytes (repro.h; malloc'ed, the receiver
     * frees it), each seat's stderr tail; NULL otherwise. */
    char *stderr_tails;
} arena_job_result;

typedef struct arena_executor arena_executor;

/* From next(): no result yet, but room for more jobs (above every JA_E*
 * code, which are 0 or below). */
#define ARENA_EXEC_ROOM 1

typedef struct arena_executor_ops {
    /* How many jobs may be outstanding at once. */
    uint32_t (*capacity)(arena_executor *x);
    /* Hands over a job; never blocks when fewer than capacity() are out. */
    int (*submit)(arena_executor *x, const arena_job *job);
    /* Waits for the next finished job. JA_EAGAIN when none is outstanding;
     * ARENA_EXEC_ROOM (remote workers joined) when none is there yet but
     * capacity() grew: submit more, then call again. */
    int (*next)(arena_executor *x, arena_job_result *out);
    void (*destroy)(arena_executor *x);
    /* Optional (NULL: none): a finished job's result if one is there now,
     * never waiting; JA_EAGAIN if not. The tournament loop records what
     * came together in one transaction. */
    int (*next_ready)(arena_executor *x, arena_job_result *out);
} arena_executor_ops;

struct arena_executor {
    const arena_executor_ops *ops;
    const arena_exec_ctx *ctx;
    /* --export-decisions (export.h): NULL (the default) = none; set it
     * before the first submit. Jobs never touch the file: each buffers its
     * match's records into its result (export_data), and the tournament
     * loop appends them, in its own thread. */
    arena_export *export;
    /* Optional, set before the first submit: called by the tournament loop,
     * in its own thread, with each finished match before it is recorded
     * (reproduction bundles, restarts of crashed bots). */
    void (*on_result)(void *hook_ctx, const arena_exec_ctx *ctx, const arena_job_result *r);
    void *hook_ctx;
    /* Optional: called before a job is submitted (restarting a crashed
     * cmd: bot that the job seats). */
    void (*before_job)(void *hook_ctx, const arena_exec_ctx *ctx, const arena_job *job);
};

/* The executor that plays jobs one at a time in this process. */
int arena_executor_inproc_new(const arena_exec_ctx *ctx, arena_executor **out);

/* The executor that plays up to `threads` jobs at once in this process, a
 * thread per running match, never giving a bot more matches at once than
 * its capacity (ref_bot_capacity). JA_OK, JA_EINVAL (threads 0), or JA_ENOMEM
 * when no thread can be started. */
int arena_executor_threads_new(const arena_exec_ctx *ctx, uint32_t threads, arena_executor **out);

/* The executor that plays up to `slots` jobs at once in one thread that
 * runs the hub's loop itself, for tournaments whose every bot is external
 * (executor_events.c): it makes the hub's seats direct (ref_hub_set_direct)
 * and holds the hub's baton while it lives. JA_OK, JA_EINVAL (slots 0, no
 * hub), or JA_ENOMEM when its thread cannot be started. */
typedef struct ref_hub ref_hub;
int arena_executor_events_new(const arena_exec_ctx *ctx, ref_hub *hub, uint32_t slots,
                              arena_executor **out);

/* Referee worker processes over ZeroMQ (executor_workers.c, docs/scale.md). */
typedef struct arena_workers_opts {
    uint32_t local;              /* local workers to start (--jobs J) */
    uint32_t local_slots;        /* slots of each local worker (0: 1) */
    const char *listen;          /* endpoint remote workers join (--workers); NULL none */
    const char *curve_secret;    /* Z85 secret key of the arena for listen; NULL: none */
    const char *const *allow;    /* with curve: the workers' public keys admitted (ZAP);
                                    NULL: any worker that knows the server key */
    uint32_t n_allow;
    uint32_t n_bots;             /* participant slots, and each one's bot spec */
    const char *const *specs;
    bool quiet_notes;            /* no "worker lost" notes on stderr */
    /* The tournament's stop flag (Ctrl-C), or NULL: once set, jobs not yet
     * handed to a worker are dropped (they stay pending in the database),
     * so a run whose workers never came still stops; those at the workers
     * have 10 s to come back (none when the flag is 2: a second Ctrl-C),
     * then are given up too (one line on stderr), so a worker stuck in a
     * match does not hold the run. */
    volatile sig_atomic_t *stop;
} arena_workers_opts;

/* The executor that hands jobs to referee workers: o->local processes it
 * starts itself (on an ipc endpoint in a private directory) and any that
 * join on o->listen. Only plugin bots can be played by workers (the worker
 * loads the same spec and checks the file's SHA-256). JA_OK, or an error
 * with a one-line message (the referee program cannot be found, the
 * endpoint cannot be bound). */
int arena_executor_workers_new(const arena_exec_ctx *ctx, const arena_workers_opts *o,
                               arena_executor **out, char *err, size_t cap);

/* The referee worker program into out: $JACKARENA_REFEREE, else
 * `referee` beside this executable. False when it is not executable (out
 * still names it). */
bool arena_find_referee(char *out, size_t cap);

/* Plays one job to the end in the calling thread (what every in-process
 * executor does with a job): the match, its replay file, its result, and
 * with export_decisions its exported decisions (out->export_data). */
void arena_job_run(const arena_exec_ctx *ctx, const arena_job *job, bool export_decisions,
                   arena_job_result *out);

/* The same in parts, for one thread playing several jobs at once
 * (executor_events.c). arena_job_start prepares the job's match
 * (ref_match_start): NULL when the job failed before (out->rc, out->err
 * say why: its result is final), else a job to play on and finish, whose
 * out->rc may already be an error (play_on then returns it). play_on is
 * ref_match_play: JA_EAGAIN while an answer is awaited (with nowait),
 * the match's end otherwise. waits_until: ref_match_waits_until.
 * arena_job_finish completes out (arena_job_run's result) and frees the
 * job (NULL allowed). */
typedef struct arena_job_play arena_job_play;
arena_job_play *arena_job_start(const arena_exec_ctx *ctx, const arena_job *job,
                                bool export_decisions, arena_job_result *out);
int arena_job_play_on(arena_job_play *p, bool nowait);
int64_t arena_job_waits_until(const arena_job_play *p);
void arena_job_finish(arena_job_play *p);

/* The replay file name of match `number` of a tournament, in dir. */
void arena_replay_name(char *buf, size_t cap, const char *dir, int64_t tournament_id,
                       uint32_t number);

#endif /* ARENA_EXECUTOR_H */
