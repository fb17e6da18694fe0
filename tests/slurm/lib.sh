# Shared by the tests of tests/slurm (sourced, with the arena's path as
# $1): skips (77) without root or without Slurm's packages where they
# cannot be installed, starts a private cluster (cluster.sh; of $NODES
# nodes, 1 unless the test sets it, skipping where cluster.sh cannot make
# their namespaces) in a temporary directory that is the working
# directory, and stops it on exit (checking that it made no lock file in
# /tmp). Gives check, expect, same_ladder,
# job_of, tasks, held, digests and finish.
set -u
ARENA=$1
NODES=${NODES:-1}
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
# A signal ends the test through its EXIT trap: the cluster is stopped.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$work"
pass=0 fail=0
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }

# The bridge of a cluster of nodes is chosen under a lock on /tmp itself
# (cluster.sh): the lock file earlier versions made there and left behind
# is neither made nor touched (its inode and change time, or its absence).
lockf=/tmp/ja-slurm-cluster.lock
lock_before=$(stat -c '%i %Z' "$lockf" 2>/dev/null || echo none)
t0=$(date +%s.%N)
bash "$here/cluster.sh" start "$cluster" "$NODES"
rc=$?
[ "$rc" = 3 ] && skip "this machine cannot host a cluster of $NODES nodes (cluster.sh said why)"
if [ "$rc" != 0 ]; then
  echo "FAIL: the private cluster did not start"
  exit 1
fi
echo "cluster of $NODES node(s) up in $($PY -c "print('%.1f s' % ($(date +%s.%N) - $t0))")"
. "$cluster/env"
daemons=$(bash "$here/cluster.sh" pids "$cluster")
# munged and slurmctld; slurmd on one node; each of N nodes: its
# namespaces' holder, munged and slurmd.
want=3
[ "$NODES" -gt 1 ] && want=$((2 + 3 * NODES))
check "$want daemons run" [ "$(echo "$daemons" | wc -w)" = "$want" ]
check "no lock file made or touched in /tmp ($lockf: $lock_before before)" \
  [ "$(stat -c '%i %Z' "$lockf" 2>/dev/null || echo none)" = "$lock_before" ]

T="tournament bombs --bots random,greedy,random --rounds 20 --seed 7"  # 120 matches: 6 seatings a round
same_ladder() { # same_ladder A.db B.db [N [live]]: the same N (120) matches (digests),
  # results and `ladder --fit --json`; with "live", the live Elo (which follows
  # the order results arrive in, docs/elo.md) is left out of the comparison
  "$ARENA" ladder export bombs --jsonl --db "$1" >"$1.jsonl" &&
  "$ARENA" ladder export bombs --jsonl --db "$2" >"$2.jsonl" &&
  "$ARENA" ladder bombs --fit --json --db "$1" >"$1.fit" &&
  "$ARENA" ladder bombs --fit --json --db "$2" >"$2.fit" &&
  $PY - "$1" "$2" "${3:-120}" "${4:-}" <<'PYEOF'
import json, sys
n = int(sys.argv[3])
a = [json.loads(l) for l in open(sys.argv[1] + ".jsonl")]
b = [json.loads(l) for l in open(sys.argv[2] + ".jsonl")]
assert len(a) == n and a == b, (len(a), len(b))
assert len({m["digest"] for m in a}) == n
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k != "live_elo"}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
fa = open(sys.argv[1] + ".fit").read()
fb = open(sys.argv[2] + ".fit").read()
if sys.argv[4] == "live":
    assert strip(json.loads(fa)) == strip(json.loads(fb))
else:
    assert fa == fb
PYEOF
}
job_of() { # job_of ERRFILE: waits for the arena's "Slurm job N" note, prints N
  while ! grep -q '^arena: Slurm job [0-9]*:' "$1" 2>/dev/null; do sleep 0.1; done
  sed -n 's/^arena: Slurm job \([0-9]*\):.*/\1/p' "$1" | head -n 1
}
tasks() { squeue -h -r -j "$1" -o %K 2>/dev/null | sort -n | tr '\n' ' '; }
held() { # held OUT ERR TASKS ACT -- command...: runs the command (a run whose job
  # is held: --slurm-opt --hold) in the background, waits until the tasks TASKS
  # ("1 2 3 4 ") of its job are queued, calls the function ACT (it has $job and
  # $apid), waits for the arena; sets job and rc
  local out=$1 err=$2 want=$3 act=$4
  shift 5
  "$@" >"$out" 2>"$err" &
  apid=$!
  job=$(job_of "$err")
  while [ "$(tasks "$job")" != "$want" ]; do sleep 0.1; done
  "$act"
  wait $apid
  rc=$?
}
cancel3() { scancel "${job}_3"; scontrol release "$job"; } # task 3 never runs
interrupt() { kill -INT "$apid"; }                       # Ctrl-C
digests() { # digests DIR: "NAME DIGEST" per replay, each verified (one Python for all)
  $PY - "$ARENA" "$1" <<'PYEOF'
import json, os, subprocess, sys
arena, d = sys.argv[1], sys.argv[2]
for f in sorted(n for n in os.listdir(d) if n.endswith(".rpl")):
    p = subprocess.run([arena, "replay", "verify", "--json", os.path.join(d, f)],
                       capture_output=True, text=True)
    try:
        v = json.loads(p.stdout)
    except ValueError:
        v = {}
    if p.returncode != 0 or not v.get("ok"):
        print(os.path.join(d, f), "does not verify")
        break
    print(f, v["digest"])
PYEOF
}

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

finish() { # stops the cluster, checks that its daemons are gone, prints the count
  bash "$here/cluster.sh" stop "$cluster"
  local left
  left=$(bash "$here/cluster.sh" pids "$cluster" | tr '\n' ' ')
  check "no daemon left (by PID: $left)" [ -z "$left" ]
  if [ "$NODES" -gt 1 ]; then # the bridge and the nodes' veth pairs
    local b=${CLUSTER_ADDR#10.254.}
    b=${b%.1}
    left=$(ip -o link show | grep -E " ja-br-$b:| ja-$b-n[0-9]+@" | cut -d' ' -f2 | tr '\n' ' ')
    check "no link left (by name: $left)" [ -z "$left" ]
  fi
  echo "$1: $pass passed, $fail failed"
  [ "$fail" = 0 ]
}
