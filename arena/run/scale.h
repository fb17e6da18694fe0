/* Scale flags of `arena tournament` (docs/scale.md): --workers (remote
 * referee workers join), --worker-slots, --shard I/N, and the choice of
 * executor for --jobs. Kept apart from cmd_tournament.c so that the
 * tournament command only forwards flags here. */
#ifndef ARENA_SCALE_H
#define ARENA_SCALE_H

#include "run/botspec.h"
#include "core/util.h"
#include "run/executor.h"
#include "run/extbots.h"
#include "run/slurm.h"

/* getopt_long codes (clear of ARENA_OPT_* of extbots.h). */
enum {
    ARENA_OPT_WORKERS = 0x300,
    ARENA_OPT_SHARD,
    ARENA_OPT_THREADS,
    ARENA_OPT_WORKERS_ALLOW,
    ARENA_OPT_SLURM,
    ARENA_OPT_SLURM_OPT,
    ARENA_OPT_SLURM_WORKERS,
    ARENA_OPT_TOURNAMENT_ID
};

#define ARENA_SCALE_LONGOPTS                                                 \
    {"workers", required_argument, NULL, ARENA_OPT_WORKERS},                 \
        {"shard", required_argument, NULL, ARENA_OPT_SHARD},                 \
        {"threads", no_argument, NULL, ARENA_OPT_THREADS},                   \
        {"workers-allow", required_argument, NULL, ARENA_OPT_WORKERS_ALLOW},        \
        {"slurm", required_argument, NULL, ARENA_OPT_SLURM},                 \
        {"slurm-opt", required_argument, NULL, ARENA_OPT_SLURM_OPT},         \
        {"slurm-workers", required_argument, NULL, ARENA_OPT_SLURM_WORKERS}, \
        {"tournament-id", required_argument, NULL, ARENA_OPT_TOURNAMENT_ID}

#define ARENA_SCALE_HELP                                                                     \
    "scale (docs/scale.md):\n"                                                               \
    "  --jobs J          matches at once: J local referee worker processes (J >= 2;\n"      \
    "                    threads instead when a bot is not a plugin); the results are\n"    \
    "                    the same whatever J. At most 64 per online core; never more\n"   \
    "                    than the matches left to play\n"                                 \
    "  --threads         --jobs with threads in this process, not worker processes\n"     \
    "  --workers ENDPOINT  let `referee --connect ENDPOINT` workers on other machines\n"    \
    "                    join (tcp://HOST:PORT; needs --curve, or --plain-tcp on a\n"       \
    "                    loopback address); with it, --jobs J may be 0\n"                  \
    "  --workers-allow FILE  with --curve: admit only workers whose public key\n"         \
    "                    (JACKARENA_PUBLIC_KEY of `referee`) is listed in FILE\n"        \
    "  --shard I/N       play only the plan's matches whose number M (from 0) has\n"       \
    "                    M mod N = I-1, into this database; merge the shards'\n"          \
    "                    databases with `arena ladder import`\n"                        \
    "  --slurm N         play as a Slurm job array of N shards (1..1000): sbatch runs\n"     \
    "                    this command with --shard K/N into DB.slurm/, the arena\n"         \
    "                    waits, then merges the shards into --db; run it again to\n"       \
    "                    submit only the shards left. Plugin bots; sbatch, squeue and\n"   \
    "                    scancel on PATH; the bots and this database on a filesystem\n"   \
    "                    the compute nodes share. With --replays (the shards write\n"     \
    "                    into DIR) and --export-decisions (merged in match order)\n"     \
    "  --slurm-workers N  submit N `referee` workers as a Slurm job array that join\n"    \
    "                    --workers ENDPOINT (tcp, reachable from the compute nodes;\n"    \
    "                    with --curve they get their keys in a 0600 file in\n"           \
    "                    DB.slurm/); this arena hands out the matches and records\n"     \
    "                    them; the job is cancelled when the run ends. Not with\n"       \
    "                    --slurm, --jobs, --threads or --shard\n"                         \
    "  --slurm-opt 'WORDS'  sbatch options for the job (e.g. '--partition=long\n"          \
    "                    --time=2:00:00 --mem=2G'), split as the shell splits words;\n"   \
    "                    repeatable\n"                                                    \
    "  --tournament-id T  with --shard: name the matches (replays tT-mNNNNNN.rpl, the\n"  \
    "                    match ids bots and exported decisions see) as tournament T\n"   \
    "                    of the database the shards are merged into (--slurm writes\n"   \
    "                    it into its batch script)\n"

/* --jobs at most this many per online core (arena_max_jobs). */
#define ARENA_JOBS_PER_CORE 64

/* The largest --jobs: ARENA_JOBS_PER_CORE times the online cores. */
uint32_t arena_max_jobs(void);

typedef struct arena_scale {
    const char *workers;         /* --workers ENDPOINT */
    bool threads;                /* --threads */
    uint32_t shard_i, shard_n;   /* --shard I/N; 0/0: the whole plan */
    const char *workers_allow;   /* --workers-allow FILE */
    arena_slurm slurm;           /* --slurm N, --slurm-workers N, --slurm-opt */
    int64_t tournament_id;       /* --tournament-id T; 0: the database's own */
    bool jobs_given;             /* --jobs was given (set by the command) */
} arena_scale;

/* Handles one scale flag: 1 if c was one (and valid), 0 if not, -1 with
 * the usage error's line in err. */
int arena_scale_flag(arena_scale *s, int c, const char *arg, char *err, size_t cap);

/* Checks the flags together before anything is written: --workers' endpoint
 * and its Curve/plain-tcp flags, --workers-allow's file, --slurm
 * (arena_slurm_check) and what it does not go with. JA_OK, or JA_EINVAL
 * with the usage error's line in err. */
int arena_scale_check(const arena_scale *s, const arena_ext *ext, uint32_t jobs, char *err,
                      size_t cap);

/* Starts the executor for jobs and the flags: in-process (J = 1, no
 * --workers), threads (--threads, or a bot that is not a plugin), or
 * referee workers; with --slurm-workers, only the workers of the Slurm job
 * it submits (*sw; arena_slurm_workers_end it after the executor is
 * destroyed). JA_OK, or the failure's code with its line in err. The note naming the workers' endpoint and
 * key goes to stderr. */
int arena_scale_executor(const arena_scale *s, arena_ext *ext, const arena_bots *bots,
                         const arena_exec_ctx *xc, uint32_t jobs, bool quiet,
                         volatile sig_atomic_t *stop, arena_executor **out,
                         arena_slurm_workers **sw, char *err, size_t cap);


#endif /* ARENA_SCALE_H */
