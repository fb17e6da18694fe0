/* `arena tournament ... --slurm N`: a tournament played as a Slurm job
 * array (docs/scale.md, "Slurm"). The arena keeps the tournament in --db
 * (planned there, so the seed is fixed before anything is submitted),
 * writes a batch script into DB.slurm/, submits it with `sbatch --array`
 * (one task per shard that still has matches to play), each task running
 * the same `arena tournament` command with `--shard K/N` into its own
 * database DB.slurm/tT-KofN.db; it follows the tasks with `squeue` and the
 * shards' databases (progress), and when the array is over it merges
 * every shard database into --db itself (ladder_db_merge), so the ladder
 * in --db is the one an unsharded run gives. Run again, the same command
 * merges what the shards recorded and submits only the shards with matches
 * left (failed, cancelled or never run). Ctrl-C cancels the arena's own
 * job (`scancel JOBID`), merges what was recorded and stops.
 *
 * Slurm's commands (sbatch, squeue, scancel) are run from PATH with an
 * argument vector, never through a shell; --slurm-opt is split into words
 * with wordexp(3) without command substitution. */
#ifndef ARENA_SLURM_H
#define ARENA_SLURM_H

#include "tournament.h"

#include "ladder_db.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARENA_SLURM_MAX_SHARDS 1000
#define ARENA_SLURM_MAX_OPTS 32

typedef struct arena_slurm {
    uint32_t n;                            /* --slurm N; 0: not given */
    const char *opts[ARENA_SLURM_MAX_OPTS];/* --slurm-opt strings, as given */
    uint32_t n_opts;
    /* The command line of `arena tournament` (argv[0] "tournament"), and
     * the elements of it the shards do not get (--slurm, --slurm-opt,
     * --db, --seed, --resume and their values): arena_slurm_mark. */
    char **argv;
    int argc;
    const char **drop;
    int n_drop;
} arena_slurm;

/* Handles --slurm N (parse 1..ARENA_SLURM_MAX_SHARDS) or --slurm-opt WORDS
 * (kept; split and checked by arena_slurm_check). Usage errors printed;
 * false on one. */
bool arena_slurm_flag_n(arena_slurm *s, const char *arg);
bool arena_slurm_flag_opt(arena_slurm *s, const char *arg);

/* Notes that the option getopt_long just returned (ind: optind after it;
 * arg: its optarg) is not passed to the shards. argv is the vector getopt_long
 * parses (its pointers, permuted or not, are what is compared). */
void arena_slurm_mark(arena_slurm *s, char **argv, int argc, int ind, const char *arg);

/* Checks --slurm before anything is written: the --slurm-opt words split
 * (no command substitution, no unquoted shell operators), sbatch, squeue
 * and scancel on PATH. Prints one usage line and returns false. */
bool arena_slurm_check(const arena_slurm *s);

/* Frees what arena_slurm_mark allocated. */
void arena_slurm_free(arena_slurm *s);

/* Plays the pending matches of tournament tid of db (open and locked by
 * this process; db_path is its path, seed its seed) as a job array of
 * s->n shards, as said above. progress(pctx, done, total) is called while
 * waiting, done counting the matches of the tournament recorded in db and
 * in the shards' databases. Returns JA_OK when every match is recorded in
 * db or when *stop was set (the job is cancelled; what the shards recorded
 * is merged). Otherwise an error code and one line in err: sbatch refused
 * the job (its message), shards that did not finish (their logs named: run
 * the same command again), a shard database that cannot be merged. Notes
 * (the job submitted) go to stderr unless quiet. */
int arena_slurm_play(ladder_db *db, const char *db_path, int64_t tid,
                     const ladder_tournament_spec *spec, const arena_slurm *s, bool quiet,
                     volatile sig_atomic_t *stop, arena_progress_fn progress, void *pctx,
                     char *err, size_t cap);

#endif /* ARENA_SLURM_H */
