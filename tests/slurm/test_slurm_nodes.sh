#!/usr/bin/env bash
# A tournament spread over the two nodes of a private Slurm cluster
# (cluster.sh start DIR 2, lib.sh): nodes n1 and n2, each slurmd in its own
# network, UTS and mount namespace with its own host name, address and
# munged (the cluster's one key), reaching slurmctld and the arena over a
# bridge; the temporary directory is the filesystem they share. Each node
# has one CPU, and one bot of the tournament, gate.so, waits before its
# first match in a process until the bots of another host have begun too,
# so a shard or a worker that begins on one node holds it until the other
# node plays: both nodes play, whatever the timing. `--slurm 4` and
# `--slurm-workers 2` (joining the arena's --workers endpoint at the
# bridge's address over CurveZMQ) give the matches, digests, results and
# `ladder --fit --json` of `--jobs 1` (the live Elo aside for the workers,
# as with any workers: docs/elo.md), and replays that verify with the same
# digests; the gate's directory names the host names n1 and n2, and
# Slurm's own record of finished jobs (jobcomp/filetxt) puts the job's
# tasks on both nodes. The cluster's daemons, namespaces, bridge and veth
# pairs are gone afterwards. Skipped (77) where this machine cannot make
# the namespaces or the bridge. No wall-clock deadline: waits poll files
# or squeue. Usage: test_slurm_nodes.sh ARENA GATE.so
NODES=2
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
GATE=$2
T="tournament bombs --bots random,greedy,$GATE --rounds 20 --seed 7" # 120 matches

nodes_of() { # nodes_of NAME: the nodes the tasks of the job named NAME (the only
  # one: each run here submits one) ran on, as Slurm recorded them
  sed -n "s/.* Name=$1 .* NodeList=\([^ ]*\) .*/\1/p" "$cluster/jobcomp.log" | sort -u | tr '\n' ' '
}
hosts() { ls "$1" 2>/dev/null | tr '\n' ' '; }

"$ARENA" $T --db one.db -q --json --replays r1 >one.json
digests r1 >r1.dig
check "--jobs 1: 120 replays verified" [ "$(wc -l <r1.dig)" = 120 ]

mkdir gs
JA_TEST_GATE_DIR=$PWD/gs "$ARENA" $T --db sl.db --slurm 4 --replays rs -q --json >sl.json 2>sl.err
rc=$?
check "--slurm 4: exit 0 (rc=$rc: $(head -c 300 sl.err))" [ "$rc" = 0 ]
check "--slurm 4: the ladder of --jobs 1 (digests, results, --fit --json)" same_ladder one.db sl.db
check "--slurm 4: the standings of --jobs 1" cmp -s one.json sl.json
digests rs >rs.dig
check "--slurm 4: the replays of --jobs 1 (names, digests), each verified" cmp -s r1.dig rs.dig
check "--slurm 4: the shards played on hosts n1 and n2 (got '$(hosts gs)')" [ "$(hosts gs)" = "n1 n2 " ]
check "--slurm 4: Slurm ran its tasks on nodes n1 and n2 (got '$(nodes_of arena-t1)')" \
  [ "$(nodes_of arena-t1)" = "n1 n2 " ]

port=$($PY "$here/../free_port.py")
W="--workers tcp://$CLUSTER_ADDR:$port --curve --curve-dir $PWD/curve"
mkdir gw
JA_TEST_GATE_DIR=$PWD/gw "$ARENA" $T --db w.db --slurm-workers 2 $W --replays rw >w.out 2>w.err
rc=$?
job=$(sed -n 's/^arena: Slurm job \([0-9]*\):.*/\1/p' w.err | head -n 1)
check "--slurm-workers 2: exit 0 (rc=$rc: $(tail -n 2 w.err | head -c 400))" [ "$rc" = 0 ]
check "--slurm-workers 2: the workers join the bridge's address" \
  grep -q "^arena: Slurm job [0-9]*: 2 referee workers joining tcp://$CLUSTER_ADDR:$port" w.err
check "--slurm-workers 2: the ladder of --jobs 1 (digests, results, --fit --json but the live Elo)" \
  same_ladder one.db w.db 120 live
digests rw >rw.dig
check "--slurm-workers 2: the replays of --jobs 1 (names, digests), each verified" cmp -s r1.dig rw.dig
check "--slurm-workers 2: the workers played on hosts n1 and n2 (got '$(hosts gw)')" \
  [ "$(hosts gw)" = "n1 n2 " ]
check "--slurm-workers 2: Slurm ran its tasks on nodes n1 and n2 (got '$(nodes_of arena-t1-workers)')" \
  [ "$(nodes_of arena-t1-workers)" = "n1 n2 " ]
check "--slurm-workers 2: the job has left the queue" [ -n "$job" -a -z "$(tasks "$job")" ]

finish slurm_nodes
