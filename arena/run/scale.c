/* Scale flags of `arena tournament` and the choice of executor (scale.h). */
#include "run/scale.h"
#include "core/json_w.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "merge.h"

#include <limits.h>

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint32_t arena_max_jobs(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return ARENA_JOBS_PER_CORE * (uint32_t)(cores > 0 && cores < 65536 ? cores : 1);
}

int arena_scale_flag(arena_scale *s, int c, const char *arg, char *err, size_t cap)
{
    switch (c) {
    case ARENA_OPT_WORKERS:
        if (strncmp(arg, "tcp://", 6) != 0 && strncmp(arg, "ipc://", 6) != 0) {
            snprintf(err, cap, "--workers '%s': use tcp://HOST:PORT (or ipc://PATH)", arg);
            return -1;
        }
        s->workers = arg;
        return 1;
    case ARENA_OPT_THREADS: s->threads = true; return 1;
    case ARENA_OPT_SLURM: return arena_slurm_flag_n(&s->slurm, arg, err, cap) == JA_OK ? 1 : -1;
    case ARENA_OPT_SLURM_OPT:
        return arena_slurm_flag_opt(&s->slurm, arg, err, cap) == JA_OK ? 1 : -1;
    case ARENA_OPT_SLURM_WORKERS:
        return arena_slurm_flag_workers(&s->slurm, arg, err, cap) == JA_OK ? 1 : -1;
    case ARENA_OPT_TOURNAMENT_ID: {
        uint32_t t = 0;
        if (!arena_parse_u32(arg, &t) || t == 0) {
            snprintf(err, cap, "--tournament-id needs a tournament number (1 or more), not '%s'",
                     arg);
            return -1;
        }
        s->tournament_id = t;
        return 1;
    }
    case ARENA_OPT_WORKERS_ALLOW: s->workers_allow = arg; return 1;
    case ARENA_OPT_SHARD: {
        char tail;
        unsigned i = 0, n = 0;
        if (sscanf(arg, "%u/%u%c", &i, &n, &tail) != 2 || n == 0 || i == 0 || i > n ||
            n > 1000000) {
            snprintf(err, cap, "--shard '%s': give I/N with 1 <= I <= N (e.g. 2/8)", arg);
            return -1;
        }
        s->shard_i = i;
        s->shard_n = n;
        return 1;
    }
    default: return 0;
    }
}

static bool loopback(const char *ep)
{
    const char *h = ep + 6;
    return strncmp(h, "127.", 4) == 0 || strncmp(h, "localhost:", 10) == 0 ||
           strncmp(h, "[::1]:", 6) == 0;
}

/* Frees an allow-list's keys (arena_load_allow's copies). */
static void free_allow(char **keys, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
}

/* --workers with --workers-allow, --threads and its transport. */
static int check_workers(const arena_scale *s, const arena_ext *ext, char *err, size_t cap)
{
    if (s->workers_allow && (!s->workers || !ext->curve)) {
        snprintf(err, cap, "--workers-allow '%s' needs --workers with --curve", s->workers_allow);
        return JA_EINVAL;
    }
    if (s->workers_allow) {
        /* Read now, so that a bad file is a usage error before anything is
         * written; arena_scale_executor reads it again. */
        char **keys = NULL;
        uint32_t n = 0;
        int rc = arena_load_allow("--workers-allow", s->workers_allow, &keys, &n, err, cap);
        free_allow(keys, n);
        if (rc != JA_OK)
            return rc;
    }
    if (s->workers && s->threads) {
        snprintf(err, cap, "--threads and --workers do not go together (workers are processes)");
        return JA_EINVAL;
    }
    if (s->workers && strncmp(s->workers, "tcp://", 6) == 0 && !ext->curve) {
        if (!ext->plain_tcp) {
            snprintf(err, cap, "--workers '%s': tcp needs --curve (or --plain-tcp on a loopback "
                     "address)", s->workers);
            return JA_EINVAL;
        }
        if (!ext->plain_tcp_remote && !loopback(s->workers)) {
            snprintf(err, cap, "--workers '%s': plain tcp only on a loopback address "
                     "(127.0.0.1, localhost); use --curve", s->workers);
            return JA_EINVAL;
        }
    }
    return JA_OK;
}

/* --tournament-id, --slurm and --slurm-workers with the other flags. */
static int check_shards(const arena_scale *s, char *err, size_t cap)
{
    if (s->tournament_id && !s->shard_n) {
        snprintf(err, cap, "--tournament-id %lld needs --shard I/N (it names a shard's matches "
                 "as those of the database it is merged into)", (long long)s->tournament_id);
        return JA_EINVAL;
    }
    if (s->slurm.n && s->slurm.workers) {
        snprintf(err, cap, "--slurm and --slurm-workers do not go together: shards in Slurm "
                 "jobs (--slurm N), or workers in one that this arena feeds (--slurm-workers N)");
        return JA_EINVAL;
    }
    if (s->slurm.n && (s->workers || s->shard_n)) {
        snprintf(err, cap, "--slurm does not go with %s (it gives each task its own shard)",
                 s->workers ? "--workers" : "--shard");
        return JA_EINVAL;
    }
    if (s->slurm.workers) {
        /* (--threads: refused with --workers above.) */
        const char *other = s->jobs_given ? "--jobs" : s->shard_n ? "--shard" : NULL;
        if (other) {
            snprintf(err, cap, "--slurm-workers does not go with %s (the Slurm workers play "
                     "every match; this arena hands them out and records them)", other);
            return JA_EINVAL;
        }
        if (!s->workers || strncmp(s->workers, "tcp://", 6) != 0) {
            snprintf(err, cap, "--slurm-workers needs --workers tcp://HOST:PORT, an endpoint the "
                     "compute nodes can reach (e.g. tcp://0.0.0.0:5600 with --curve)");
            return JA_EINVAL;
        }
    }
    return JA_OK;
}

int arena_scale_check(const arena_scale *s, const arena_ext *ext, uint32_t jobs, char *err,
                      size_t cap)
{
    (void)jobs;
    int rc = check_workers(s, ext, err, cap);
    if (rc == JA_OK)
        rc = check_shards(s, err, cap);
    if (rc == JA_OK)
        rc = arena_slurm_check(&s->slurm, err, cap);
    return rc;
}

/* Whether every bot is a plugin (what referee workers play). */
static bool plugins_only(const arena_bots *bots)
{
    bool plugins = true;
    for (int i = 0; i < bots->n; i++)
        plugins &= strcmp(bots->b[i].kind, "plugin") == 0;
    return plugins;
}

/* An executor in this process: one match at a time, a thread per match,
 * or, when every bot is external, one thread that runs the hub's loop for
 * the J matches (executor_events.c): a plugin or hosted seat would hold
 * that thread while its bot thinks, so any other mix gets a thread per
 * match. */
static int start_in_process(arena_ext *ext, const arena_bots *bots, const arena_exec_ctx *xc,
                            uint32_t jobs, arena_executor **out, char *err, size_t cap)
{
    bool external = ext->hub != NULL;
    for (int i = 0; i < bots->n; i++)
        external &= strcmp(bots->b[i].kind, "cmd") == 0 || strcmp(bots->b[i].kind, "zmq") == 0;
    int rc = jobs > 1 && external ? arena_executor_events_new(xc, ext->hub, jobs, out)
             : jobs > 1           ? arena_executor_threads_new(xc, jobs, out)
                                  : arena_executor_inproc_new(xc, out);
    /* One match at a time, in this thread: its zmq seats run the hub's
     * loop themselves (hub.h, ref_hub_set_direct). */
    if (rc == JA_OK && jobs <= 1 && ext->hub)
        ref_hub_set_direct(ext->hub, true);
    if (rc != JA_OK)
        snprintf(err, cap, "cannot start the executor: %s", ja_strerror(rc));
    return rc;
}

/* The Curve keys of the workers' endpoint: the arena's pair, and the
 * public keys admitted. */
typedef struct worker_keys {
    char pub[41], sec[41];       /* the arena's */
    char wpub[41], wsec[41];     /* --slurm-workers: the pair made for its workers */
    char **allow;                /* --workers-allow's keys, and wpub */
    uint32_t n_allow;
} worker_keys;

static void worker_keys_free(worker_keys *k)
{
    sodium_memzero(k->sec, sizeof k->sec);
    sodium_memzero(k->wsec, sizeof k->wsec);
    free_allow(k->allow, k->n_allow);
}

/* With --curve: the arena's key pair, the keys of --workers-allow and, for
 * --slurm-workers, a pair made for its workers, which the arena alone
 * admits (with those of --workers-allow). */
static int curve_keys(const arena_scale *s, arena_ext *ext, worker_keys *k, char *err,
                      size_t cap)
{
    int rc = arena_ext_curve_keys(ext, k->pub, k->sec, err, cap);
    if (rc == JA_OK && s->workers_allow)
        rc = arena_load_allow("--workers-allow", s->workers_allow, &k->allow, &k->n_allow, err,
                              cap);
    if (rc != JA_OK)
        return rc;
    if (!s->slurm.workers)
        return JA_OK;
    if (arena_slurm_worker_keys(k->wpub, k->wsec) != JA_OK) {
        snprintf(err, cap, "--slurm-workers: cannot make the workers' CurveZMQ key pair");
        return JA_EINVAL;
    }
    k->allow = ja_xrealloc(k->allow, (k->n_allow + 1) * sizeof *k->allow);
    k->allow[k->n_allow++] = ja_xstrdup(k->wpub);
    return JA_OK;
}

/* Referee workers: J local ones besides the remote ones of --workers, or
 * with --slurm-workers only those of the Slurm job it submits (*sw). */
static int start_workers(const arena_scale *s, arena_ext *ext, const arena_bots *bots,
                         const arena_exec_ctx *xc, uint32_t jobs, bool quiet,
                         volatile sig_atomic_t *stop, arena_executor **out,
                         arena_slurm_workers **sw, worker_keys *k, char *err, size_t cap)
{
    const char *specs[ARENA_MAX_BOTS];
    for (int i = 0; i < bots->n; i++)
        specs[i] = bots->b[i].spec;
    arena_workers_opts o = {0};
    o.local = s->slurm.workers ? 0 : jobs;
    o.local_slots = 1;
    o.listen = s->workers;
    o.n_bots = (uint32_t)bots->n;
    o.specs = specs;
    o.quiet_notes = quiet;
    o.stop = stop;
    if (s->workers && ext->curve) {
        int rc = curve_keys(s, ext, k, err, cap);
        if (rc != JA_OK)
            return rc;
        o.curve_secret = k->sec;
        o.allow = (const char *const *)k->allow;
        o.n_allow = k->n_allow;
        if (!s->slurm.workers)
            fprintf(stderr, "arena: workers join with: referee --connect %s --server-key %s\n",
                    s->workers, k->pub);
    }
    int rc = arena_executor_workers_new(xc, &o, out, err, cap);
    if (rc != JA_OK || !s->slurm.workers)
        return rc;
    char ep[600];
    arena_slurm_connect_endpoint(s->workers, ep, sizeof ep);
    rc = arena_slurm_workers_start(&s->slurm, xc->tournament_id, ep, ext->curve ? k->pub : NULL,
                                   k->wpub, k->wsec, quiet, stop, sw, err, cap);
    if (rc != JA_OK) {
        (*out)->ops->destroy(*out);
        *out = NULL;
    }
    return rc;
}

int arena_scale_executor(const arena_scale *s, arena_ext *ext, const arena_bots *bots,
                         const arena_exec_ctx *xc, uint32_t jobs, bool quiet,
                         volatile sig_atomic_t *stop, arena_executor **out,
                         arena_slurm_workers **sw, char *err, size_t cap)
{
    *sw = NULL;
    bool plugins = plugins_only(bots);
    if (s->workers && !plugins) {
        snprintf(err, cap, "--workers: referee workers play plugin bots only; run external "
                 "bots with --jobs and threads");
        return JA_EINVAL;
    }
    /* What the helpers say is cut as it always was (a line of 1200 bytes). */
    char line[1200] = "";
    worker_keys k = {0};
    int rc = !s->workers && (jobs <= 1 || s->threads || !plugins)
                 ? start_in_process(ext, bots, xc, jobs, out, line, sizeof line)
                 : start_workers(s, ext, bots, xc, jobs, quiet, stop, out, sw, &k, line,
                                 sizeof line);
    worker_keys_free(&k);
    if (rc != JA_OK)
        snprintf(err, cap, "%s", line);
    return rc;
}
