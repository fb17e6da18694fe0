#!/usr/bin/env bash
# `arena tournament --slurm-workers N` on a private single-node Slurm
# cluster (cluster.sh, lib.sh): two `referee` workers submitted as a job
# array join the arena's --workers endpoint over CurveZMQ, with their keys
# in a 0600 file in DB.slurm/ (never on a command line, nor in the batch
# script), and play the matches of `--jobs 1` (digests, results, `ladder
# --fit --json`, replays verified with the same digests); the job has left
# the queue and the key file is gone when the arena exits. Ctrl-C while
# the workers are held cancels the job; the same command again finishes.
# (The live Elo follows the order results arrive in, as with any workers:
# docs/elo.md; it is left out of the comparison.)
# A job whose workers die fails the run with its log named. Bad
# combinations are one-line usage errors that write nothing; a referee
# refuses a key file others can read. No wall-clock deadline: waits poll
# files or squeue. A worker stuck in a match does not hold a Ctrl-C: the
# match is given up after a grace and the worker killed. Usage:
# test_slurm_workers.sh ARENA GATE.so
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
GATE=$2

"$ARENA" $T --db one.db -q --replays r1 >/dev/null
port=$($PY "$here/../free_port.py")
W="--workers tcp://127.0.0.1:$port --curve --curve-dir $PWD/curve"
digests r1 >r1.dig

"$ARENA" $T --db w.db --slurm-workers 2 $W --replays rw >w.out 2>w.err
rc=$?
check "--slurm-workers 2: exit 0 (rc=$rc: $(tail -n 2 w.err | head -c 400))" [ "$rc" = 0 ]
job=$(sed -n 's/^arena: Slurm job \([0-9]*\):.*/\1/p' w.err | head -n 1)
check "--slurm-workers 2: one job of 2 workers announced" grep -q "^arena: Slurm job [0-9]*: 2 referee workers joining tcp://127.0.0.1:$port" w.err
check "--slurm-workers 2: the ladder of --jobs 1 (digests, results, --fit --json but the live Elo)" \
  same_ladder one.db w.db 120 live
digests rw >rw.dig
check "--slurm-workers 2: the replays of --jobs 1 (names, digests), each verified" \
  eval '[ "$(wc -l <rw.dig)" = 120 ] && cmp -s r1.dig rw.dig'
# (A task that starts after the last match may never play: how many did
# is up to the scheduler.)
check "--slurm-workers 2: no worker's key was refused or unreadable" \
  eval '! cat w.db.slurm/t1-w*of2.log 2>/dev/null | grep -qE "refused|--key-file"'
check "--slurm-workers 2: the job has left the queue" [ -n "$job" -a -z "$(tasks "$job")" ]
check "--slurm-workers 2: the key file is removed" [ ! -e w.db.slurm/t1-workers.key ]
check "--slurm-workers 2: the script runs referee with --key-file, no key" \
  eval 'grep -q -- "--key-file" w.db.slurm/t1-workers.sh && ! grep -q -- "--server-key" w.db.slurm/t1-workers.sh'

"$ARENA" $T --db w.db --slurm-workers 2 $W >again.out 2>again.err
rc=$?
check "again: exit 0, already complete, no job submitted (rc=$rc)" \
  eval '[ "$rc" = 0 ] && grep -q "already complete" again.out && ! grep -q "Slurm job" again.err'

# Held workers: the key file is there, 0600, and its keys are on no
# command line; Ctrl-C cancels the job and removes the file.
held_checks() { # while the workers are held
  check "held: the key file is mode 600" [ "$(stat -c %a c.db.slurm/t1-workers.key)" = 600 ]
  sec=$(sed -n 's/^secret //p' c.db.slurm/t1-workers.key)
  check "held: a secret key in the file, not in the script" \
    eval '[ ${#sec} = 40 ] && ! grep -qF -- "$sec" c.db.slurm/t1-workers.sh'
  check "held: the arena's public key is in the file" \
    grep -qxF "server $(cat curve/arena.pub)" c.db.slurm/t1-workers.key
  interrupt
}
held c.out c.err "1 2 " held_checks -- "$ARENA" $T --db c.db --slurm-workers 2 $W --slurm-opt "--hold"
check "Ctrl-C: exit 1 (rc=$rc)" [ "$rc" = 1 ]
check "Ctrl-C: says it was interrupted" grep -q "interrupted" c.err
check "Ctrl-C: the job is cancelled" [ -z "$(tasks "$job")" ]
check "Ctrl-C: the key file is removed" [ ! -e c.db.slurm/t1-workers.key ]
"$ARENA" $T --db c.db --slurm-workers 1 $W -q >/dev/null 2>c2.err
rc=$?
check "Ctrl-C, then again: exit 0 and the ladder of --jobs 1 (rc=$rc: $(tail -n 1 c2.err))" \
  eval '[ "$rc" = 0 ] && same_ladder one.db c.db 120 live'

# A worker stuck in a match (gate.so waits, before its first match, for
# hosts that never come, still sending heartbeats): Ctrl-C is bounded: the
# matches at the worker are given up after the grace (one line), the job
# is cancelled and its stuck task killed, the run exits 1 with the matches
# recorded before kept (random against greedy may be); the same command
# again finishes the rest: the ladder is a plain run's, none lost or
# played twice.
S="tournament brawljack --bots random,greedy,$GATE --rounds 1 --seed 7 --opt hands=1"
"$ARENA" $S --db s1.db -q >/dev/null
mkdir gs
JA_TEST_GATE_DIR=$PWD/gs JA_TEST_GATE_HOSTS=99 "$ARENA" $S --db s.db --slurm-workers 1 $W \
  >s.out 2>s.err &
apid=$!
job=$(job_of s.err)
# the worker is in the gate (or the run ended: the checks below say how)
while [ -z "$(ls gs)" ] && kill -0 $apid 2>/dev/null; do sleep 0.1; done
interrupt
wait $apid
rc=$?
check "stuck worker, Ctrl-C: exit 1 (rc=$rc: $(tail -n 1 s.err))" [ "$rc" = 1 ]
check "stuck worker, Ctrl-C: one line gives up the match at the worker" \
  grep -qE "^arena: interrupted: [0-9]+ match(es)? still at the workers (is|are) left unplayed 10 s after the interrupt \(the same command plays (it|them)\)$" s.err
check "stuck worker, Ctrl-C: the run says it was interrupted" \
  grep -q "interrupted after [0-9] of 6 matches" s.err
check "stuck worker, Ctrl-C: the job has left the queue" [ -z "$(tasks "$job")" ]
check "stuck worker, Ctrl-C: no scancel error said" eval '! grep -q scancel s.err'
"$ARENA" $S --db s.db --slurm-workers 1 $W -q >/dev/null 2>s2.err
rc=$?
check "stuck worker, then again: exit 0 and the results of a plain run (rc=$rc: $(tail -n 1 s2.err))" \
  eval '[ "$rc" = 0 ] && [ "$("$ARENA" ladder export brawljack --opt hands=1 --jsonl --db s.db)" = \
    "$("$ARENA" ladder export brawljack --opt hands=1 --jsonl --db s1.db)" ]'

# Workers that die at once: the run stops and names the job's log.
JACKARENA_REFEREE=/bin/false "$ARENA" $T --db d.db --slurm-workers 1 $W -q >d.out 2>d.err
rc=$?
check "dead workers: exit 1 (rc=$rc)" [ "$rc" = 1 ]
check "dead workers: one line names the job and its log" \
  grep -q "^arena: error: --slurm-workers: the workers' Slurm job [0-9]* ended while matches were left (see .*/d.db.slurm/t1-w1of1.log)" d.err

expect 1 "--slurm-workers: sbatch refused the job: .*invalid partition" -- \
  "$ARENA" $T --db bad.db --slurm-workers 2 $W --slurm-opt "--partition=nosuch" -q
check "sbatch refused the job: no key file left" [ ! -e bad.db.slurm/t1-workers.key ]

# Bad combinations: exit 2, one line, nothing written.
expect 2 "--slurm and --slurm-workers do not go together" -- \
  "$ARENA" $T --db n.db --slurm 2 --slurm-workers 2 $W
expect 2 "--slurm-workers does not go with --jobs" -- \
  "$ARENA" $T --db n.db --slurm-workers 2 $W --jobs 2
expect 2 "--threads and --workers do not go together" -- \
  "$ARENA" $T --db n.db --slurm-workers 2 $W --threads
expect 2 "--slurm-workers does not go with --shard" -- \
  "$ARENA" $T --db n.db --slurm-workers 2 $W --shard 1/2
expect 2 "--slurm-workers needs --workers tcp://HOST:PORT" -- \
  "$ARENA" $T --db n.db --slurm-workers 2
expect 2 "--slurm-workers needs --workers tcp://HOST:PORT" -- \
  "$ARENA" $T --db n.db --slurm-workers 2 --workers "ipc://$PWD/w.sock"
expect 2 "--slurm-workers needs a number of workers from 1 to 1000, not '0'" -- \
  "$ARENA" $T --db n.db --slurm-workers 0 $W
expect 2 "--slurm-workers: referee workers play plugin bots only" -- \
  "$ARENA" tournament bombs --bots random,random,'cmd:/bin/true' --db n.db --slurm-workers 2 $W
expect 2 "--slurm-workers: 'sbatch' is not on PATH" -- \
  env PATH=/nonexistent "$ARENA" $T --db n.db --slurm-workers 2 $W
check "bad combinations: nothing written" eval '[ ! -e n.db ] && [ ! -e n.db.slurm ]'
REFEREE=$(dirname "$ARENA")/referee
printf 'server %s\n' "$(head -c 40 /dev/zero | tr '\0' 0)" >open.key
chmod 644 open.key
expect 2 "--key-file '.*open.key': others may read or write it" -- \
  "$REFEREE" --connect "tcp://127.0.0.1:$port" --key-file open.key

finish slurm_workers
