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
set -u
ARENA=$1
here=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
export PATH=$PATH:/usr/sbin:/sbin

skip() { echo "SKIP: $*"; exit 77; }
if [ "$(id -u)" -ne 0 ]; then
  skip "the private Slurm cluster needs root (slurmd starts the jobs)"
fi
need="munged slurmctld slurmd sbatch squeue scancel scontrol sinfo"
have_all() { for p in $need; do command -v "$p" >/dev/null 2>&1 || return 1; done; }
if ! have_all; then
  echo "slurm test: installing munge slurmctld slurmd slurm-client"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    munge slurmctld slurmd slurm-client >/dev/null 2>&1
  have_all || skip "Slurm's packages (munge slurmctld slurmd slurm-client) are missing and cannot be installed"
fi

work=$(mktemp -d)
cluster=$work/cluster
cleanup() {
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
  bash "$here/cluster.sh" stop "$cluster" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
pass=0 fail=0
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }

t0=$(date +%s.%N)
if ! bash "$here/cluster.sh" start "$cluster"; then
  echo "FAIL: the private cluster did not start"
  exit 1
fi
echo "cluster up in $($PY -c "print('%.1f s' % ($(date +%s.%N) - $t0))")"
. "$cluster/env"
daemons=$(bash "$here/cluster.sh" pids "$cluster")
check "three daemons run" [ "$(echo "$daemons" | wc -w)" = 3 ]

T="tournament bombs --bots random,greedy,random --rounds 40 --seed 7"
same_ladder() { # same_ladder A.db B.db: the same matches (digests), results and fit
  "$ARENA" ladder export bombs --jsonl --db "$1" >"$1.jsonl" &&
  "$ARENA" ladder export bombs --jsonl --db "$2" >"$2.jsonl" &&
  "$ARENA" ladder bombs --fit --json --db "$1" >"$1.fit" &&
  "$ARENA" ladder bombs --fit --json --db "$2" >"$2.fit" &&
  $PY - "$1.jsonl" "$2.jsonl" <<'PYEOF' && cmp -s "$1.fit" "$2.fit"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert len(a) == 120 and a == b, (len(a), len(b))
assert len({m["digest"] for m in a}) == 120
PYEOF
}
job_of() { # job_of ERRFILE: waits for the arena's "Slurm job N" note, prints N
  while ! grep -q '^arena: Slurm job [0-9]*:' "$1"; do sleep 0.1; done
  sed -n 's/^arena: Slurm job \([0-9]*\):.*/\1/p' "$1" | head -n 1
}
tasks() { squeue -h -r -j "$1" -o %K 2>/dev/null | sort -n | tr '\n' ' '; }

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
"$ARENA" $T --db f.db --slurm 4 --slurm-opt "--hold" >f.out 2>f.err &
apid=$!
job=$(job_of f.err)
while [ "$(tasks "$job")" != "1 2 3 4 " ]; do sleep 0.1; done
scancel "${job}_3"
scontrol release "$job"
wait $apid
rc=$?
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
"$ARENA" $T --db c.db --slurm 4 --slurm-opt "--hold --time=10" >c.out 2>c.err &
apid=$!
job=$(job_of c.err)
while [ "$(tasks "$job")" != "1 2 3 4 " ]; do sleep 0.1; done
kill -INT $apid
wait $apid
rc=$?
check "Ctrl-C: exit 1 (rc=$rc)" [ "$rc" = 1 ]
check "Ctrl-C: says it was interrupted" grep -q "interrupted" c.err
check "Ctrl-C: its job is cancelled" [ -z "$(tasks "$job")" ]
"$ARENA" $T --db c.db --slurm 4 -q >/dev/null 2>c2.err
rc=$?
check "Ctrl-C, then again: exit 0 and the ladder of --jobs 1 (rc=$rc)" \
  eval '[ "$rc" = 0 ] && same_ladder one.db c.db'

# Errors: one line each.
expect() { # expect CODE PATTERN -- command...
  local code=$1 pat=$2; shift 3
  "$@" >e.out 2>e.err
  local rc=$?
  if [ "$rc" = "$code" ] && [ "$(wc -l <e.err)" = 1 ] && grep -qE -- "$pat" e.err; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: '$*': rc=$rc (want $code), stderr: $(head -c 400 e.err)"
  fi
}
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

# The daemons are gone after stop.
bash "$here/cluster.sh" stop "$cluster"
left=""
for p in $daemons; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
check "no daemon left (by PID:$left)" [ -z "$left" ]

echo "slurm: $pass passed, $fail failed"
[ "$fail" = 0 ]
