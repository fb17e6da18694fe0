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

#include "run/tournament.h"

#include "ladder_db.h"

#include <pthread.h>

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARENA_SLURM_MAX_SHARDS 1000
#define ARENA_SLURM_MAX_OPTS 32

typedef struct arena_slurm {
    uint32_t n;                            /* --slurm N; 0: not given */
    uint32_t workers;                      /* --slurm-workers N; 0: not given */
    const char *opts[ARENA_SLURM_MAX_OPTS];/* --slurm-opt strings, as given */
    uint32_t n_opts;
    /* The command line of `arena tournament` (argv[0] "tournament"), and
     * the elements of it the shards do not get (--slurm, --slurm-opt,
     * --db, --seed, --resume and their values): arena_slurm_mark. */
    char **argv;
    int argc;
    const char **drop;
    int n_drop;
    const char *db_path;                   /* --db (for --slurm-workers) */
} arena_slurm;

/* Handles --slurm N or --slurm-workers N (parse 1..ARENA_SLURM_MAX_SHARDS)
 * or --slurm-opt WORDS (kept; split and checked by arena_slurm_check).
 * JA_OK, or JA_EINVAL with the usage error's line in err. */
int arena_slurm_flag_n(arena_slurm *s, const char *arg, char *err, size_t cap);
int arena_slurm_flag_opt(arena_slurm *s, const char *arg, char *err, size_t cap);
int arena_slurm_flag_workers(arena_slurm *s, const char *arg, char *err, size_t cap);

/* Notes that the option getopt_long just returned (ind: optind after it;
 * arg: its optarg) is not passed to the shards. argv is the vector getopt_long
 * parses (its pointers, permuted or not, are what is compared). */
void arena_slurm_mark(arena_slurm *s, char **argv, int argc, int ind, const char *arg);

/* Checks --slurm and --slurm-workers before anything is written: the
 * --slurm-opt words split (no command substitution, no unquoted shell
 * operators), sbatch, squeue and scancel on PATH. JA_OK, or JA_EINVAL with
 * the usage error's line in err. */
int arena_slurm_check(const arena_slurm *s, char *err, size_t cap);

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
 * (the job submitted) go to stderr unless quiet.
 *
 * Replays: the shards write them into --replays DIR themselves (their
 * names, tT-mNNNNNN.rpl, are the match's own: --tournament-id T gives the
 * shards the tournament's number in db). Decisions: with xf (the run's
 * --export-decisions), each task exports into DB.slurm/tT-KofN.JOB.mp (one
 * file per task and attempt), and after the final merge the decisions of
 * every match that merge recorded in db are appended to xf in match order,
 * each match once; a match whose decisions no shard exported (played by an
 * earlier run without --export-decisions) is counted in a note. */
struct arena_export;
int arena_slurm_play(ladder_db *db, const char *db_path, int64_t tid,
                     const ladder_tournament_spec *spec, const arena_slurm *s,
                     struct arena_export *xf, bool quiet, volatile sig_atomic_t *stop,
                     arena_progress_fn progress, void *pctx, char *err, size_t cap);

/* ---- --slurm-workers N: referee workers as a Slurm job -------------------
 *
 * The arena binds its --workers endpoint as usual and submits a job array
 * of N tasks (DB.slurm/tT-workers.sh, logs DB.slurm/tT-wKofN.log), each
 * running `referee --connect ENDPOINT --key-file DB.slurm/tT-workers.key
 * --slots $SLURM_CPUS_PER_TASK`. The key file (mode 0600, written before
 * the job and removed when it is over) holds the arena's public key and a
 * key pair made for this run, which the arena alone admits (plus the keys
 * of --workers-allow): no key is ever on a command line. A thread follows
 * the job with squeue; when no task of it is left while the tournament
 * still plays, it sets *stop and the run fails with the job's log named.
 * arena_slurm_workers_end cancels the job (scancel), waits until its tasks
 * have left the queue and removes the key file. */
typedef struct arena_slurm_workers arena_slurm_workers;

/* The run's worker key pair (Z85), made for it: what the key file gives
 * the workers and what the arena admits. JA_OK or JA_EINVAL (no CurveZMQ). */
int arena_slurm_worker_keys(char pub[41], char sec[41]);

/* Submits the workers' job. endpoint: what the workers connect to
 * (--workers with a wildcard host 0.0.0.0 or * replaced by this machine's
 * name); server_pub: the arena's public key, NULL for plain tcp. JA_OK
 * and *out, or an error with one line in err (sbatch refused the job: its
 * message). Notes to stderr unless quiet. */
int arena_slurm_workers_start(const arena_slurm *s, int64_t tid, const char *endpoint,
                              const char *server_pub, const char *pub, const char *sec,
                              bool quiet, volatile sig_atomic_t *stop,
                              arena_slurm_workers **out, char *err, size_t cap);

/* Stops following the job (call it before the executor tells the workers
 * to quit) and says whether the job had ended by itself (then err gets
 * one line naming the job and a log): the run's failure when matches are
 * left. NULL: false. */
bool arena_slurm_workers_failed(arena_slurm_workers *w, char *err, size_t cap);

/* Stops following the job, cancels it, waits until its tasks are gone,
 * removes the key file, frees *w (NULL-safe). */
void arena_slurm_workers_end(arena_slurm_workers **w);

/* The connect endpoint for a --workers bind endpoint: tcp://0.0.0.0:P and
 * tcp://\*:P become tcp://HOSTNAME:P. */
void arena_slurm_connect_endpoint(const char *bind_ep, char *out, size_t cap);

/* A worker's key file (--key-file of `referee`): lines `server KEY`,
 * `public KEY`, `secret KEY` (Z85, 40 characters), `#` comments. The file
 * must be a regular file that only its owner can read (mode 0600 or
 * stricter). JA_OK, or JA_EINVAL / JA_EIO with one line in err. server,
 * pub and sec get "" for a key the file does not give. */
int arena_key_file_read(const char *path, char server[41], char pub[41], char sec[41],
                        char *err, size_t cap);

#endif /* ARENA_SLURM_H */
