#!/usr/bin/env bash
# `arena tournament --slurm N` on a private single-node Slurm cluster
# (cluster.sh): a 4-shard Bombs tournament gives the matches, digests,
# standings and `ladder --fit --json` of `--jobs 1`; a cancelled task makes
# the run fail with the shard named, and the same command again submits
# that shard only and gives the same ladder; Ctrl-C cancels the arena's
# job; a bad --slurm-opt and a missing sbatch are one-line errors; the
# cluster's daemons are gone afterwards. Tasks are held (--hold) where a
# test must act before they run, so nothing depends on timing. No
# wall-clock deadline: waits poll files or squeue (ctest's timeout catches
# a hang). Usage: test_slurm.sh ARENA
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

"$ARENA" $T --db one.db -q --json >one.json
"$ARENA" $T --db sl.db --slurm 4 -q --json >sl.json 2>sl.err
rc=$?
check "--slurm 4: exit 0 (rc=$rc: $(head -c 300 sl.err))" [ "$rc" = 0 ]
check "--slurm 4: the ladder of --jobs 1 (digests, results, --fit --json)" same_ladder one.db sl.db
check "--slurm 4: the standings of --jobs 1" cmp -s one.json sl.json
check "--slurm 4: a database and a log per shard" \
  [ "$(ls sl.db.slurm/t1-*of4.db | wc -l)" = 4 -a "$(ls sl.db.slurm/t1-*of4.log | wc -l)" = 4 ]
check "--slurm 4: the batch script quotes every word" grep -q "^exec '.*' 'tournament'" sl.db.slurm/t1.sh
"$ARENA" $T --db sl.db --slurm 4 >again.out 2>again.err
rc=$?
check "again: exit 0, nothing submitted (rc=$rc)" eval '[ "$rc" = 0 ] && ! grep -q "Slurm job" again.err'
check "again: already complete" grep -q "already complete" again.out

# A task cancelled before it runs: the run fails naming shard 3, --db is
# left as it was; the same command again submits shard 3 only.
held f.out f.err "1 2 3 4 " cancel3 -- "$ARENA" $T --db f.db --slurm 4 --slurm-opt "--hold"
check "cancelled task: exit 1 (rc=$rc)" [ "$rc" = 1 ]
check "cancelled task: one line names shard 3" \
  grep -q "arena: error: --slurm: shard 3 of 4 did not finish (Slurm job $job" f.err
check "cancelled task: --db has none of its matches yet" \
  [ "$($PY -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from matches where status=\"done\"").fetchone()[0])' f.db)" = 0 ]
"$ARENA" $T --db f.db --slurm 4 >f2.out 2>f2.err
rc=$?
check "again after the cancel: exit 0 (rc=$rc: $(tail -n 1 f2.err))" [ "$rc" = 0 ]
check "again after the cancel: only shard 3 submitted" grep -q "^arena: Slurm job [0-9]*: 1 shard of 4 (3)," f2.err
check "again after the cancel: the ladder of --jobs 1" same_ladder one.db f.db

# Ctrl-C (SIGINT) while the job waits: the arena cancels its own job.
held c.out c.err "1 2 3 4 " interrupt -- \
  "$ARENA" $T --db c.db --slurm 4 --slurm-opt "--hold --time=10"
check "Ctrl-C: exit 1 (rc=$rc)" [ "$rc" = 1 ]
check "Ctrl-C: says it was interrupted" grep -q "interrupted" c.err
check "Ctrl-C: its job is cancelled" [ -z "$(tasks "$job")" ]
"$ARENA" $T --db c.db --slurm 4 -q >/dev/null 2>c2.err
rc=$?
check "Ctrl-C, then again: exit 0 and the ladder of --jobs 1 (rc=$rc)" \
  eval '[ "$rc" = 0 ] && same_ladder one.db c.db'

# Errors: one line each.
expect 1 "sbatch refused the job: .*invalid partition" -- \
  "$ARENA" $T --db bad.db --slurm 2 --slurm-opt "--partition=nosuch" -q
expect 2 "--slurm-opt .* command substitution" -- \
  "$ARENA" $T --db sub.db --slurm 2 --slurm-opt '--comment=$(touch pwned)' -q
check "no command ran, nothing written" eval '[ ! -e pwned ] && [ ! -e sub.db ]'
expect 2 "--slurm: 'sbatch' is not on PATH" -- \
  env PATH=/nonexistent "$ARENA" $T --db nob.db --slurm 2 -q
check "missing sbatch: nothing written" [ ! -e nob.db ]
expect 2 "--slurm needs a number of shards from 1 to 1000, not '1001'" -- \
  "$ARENA" $T --db n.db --slurm 1001
expect 2 "--slurm: the shards play plugin bots only" -- \
  "$ARENA" tournament bombs --bots random,'cmd:/bin/true' --db n.db --slurm 2

finish slurm
