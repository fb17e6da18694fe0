#!/usr/bin/env bash
# A private single-node Slurm cluster for tests: its own munged (key,
# socket, pid, log and seed file in DIR), slurmctld and slurmd in the
# foreground from DIR/slurm.conf on ports below the ephemeral range
# (tests/free_port.py). Nothing under /etc, /run or /var is used, so it
# runs beside a system cluster and beside other tests' clusters.
#
#   cluster.sh start DIR   start it; returns once `sinfo` shows the node
#                          idle; DIR/env holds `export SLURM_CONF=...`
#                          (source it before sbatch, squeue, scancel)
#   cluster.sh stop DIR    kill its daemons by PID (DIR/*.pid) and wait
#                          until they are gone
#   cluster.sh pids DIR    the PIDs of its daemons still running
#
# Needs root (slurmd starts jobs as their users; SlurmUser=root) and
# Debian's slurmctld, slurmd, slurm-client and munge (scripts/setup.sh).
# Exit status: 0, 1 when a daemon does not start (its log's tail is
# printed), 2 on usage.
set -u
cmd=${1:-} dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: cluster.sh start|stop|pids DIR" >&2
  exit 2
fi
PY=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)

pids() {
  local f p
  for f in "$dir"/munged.pid "$dir"/slurmctld.pid "$dir"/slurmd.pid; do
    [ -s "$f" ] || continue
    p=$(cat "$f")
    [ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p"
  done
}

stop() {
  local p n
  # Jobs still known to the controller are cancelled first, so that no job
  # step (slurmstepd) outlives the cluster.
  if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
    SLURM_CONF=$dir/slurm.conf scancel --quiet --user="$(id -un)" 2>/dev/null
    n=0
    while [ -n "$(SLURM_CONF=$dir/slurm.conf squeue -h -o %i 2>/dev/null)" ] && [ "$n" -lt 600 ]; do
      n=$((n + 1))
      sleep 0.1
    done
  fi
  # slurmd first (it ends the jobs' steps), then the controller, then munge.
  for f in slurmd slurmctld munged; do
    [ -s "$dir/$f.pid" ] || continue
    p=$(cat "$dir/$f.pid")
    kill -0 "$p" 2>/dev/null || continue
    kill -TERM "$p" 2>/dev/null
    n=0
    while kill -0 "$p" 2>/dev/null; do
      n=$((n + 1))
      # Start-up and shutdown bounds, not timing assertions: a daemon that
      # ignores SIGTERM for 30 s is killed.
      [ "$n" = 300 ] && kill -KILL "$p" 2>/dev/null
      sleep 0.1
    done
  done
  return 0
}

fail() { # fail WHAT LOG
  echo "cluster.sh: $1 did not start; the end of $2:" >&2
  tail -n 5 "$2" >&2 2>/dev/null
  stop
  exit 1
}

case "$cmd" in
stop) stop; exit 0 ;;
pids) pids; exit 0 ;;
start) ;;
*) echo "usage: cluster.sh start|stop|pids DIR" >&2; exit 2 ;;
esac

for p in munged mungekey slurmctld slurmd sinfo; do
  command -v "$p" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
done
for p in munged slurmctld slurmd sinfo sbatch; do
  if ! command -v "$p" >/dev/null 2>&1; then
    echo "cluster.sh: '$p' is not installed (Debian: munge, slurmctld, slurmd, slurm-client)" >&2
    exit 1
  fi
done
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)
chmod 700 "$dir"
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"

# munge: a fresh key of 1024 random bytes, readable by root only.
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
sock=$dir/munge/munge.socket
munged --socket="$sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge/munged.seed" --force \
  >>"$dir/munged.log" 2>&1 || fail munged "$dir/munged.log"

ctl_port=$($PY "$here/../free_port.py") || exit 1
d_port=$($PY "$here/../free_port.py") || exit 1
while [ "$d_port" = "$ctl_port" ]; do d_port=$($PY "$here/../free_port.py") || exit 1; done
cpus=$(nproc)
mem=$(awk '/^MemTotal:/ { print int($2 / 1024 / 2) }' /proc/meminfo)
cat >"$dir/slurm.conf" <<CONF
# A private test cluster (tests/slurm/cluster.sh)
ClusterName=jatest
SlurmctldHost=localhost
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
MailProg=/bin/true
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerParameters=defer_batch=0
MinJobAge=10
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
echo "export SLURM_CONF=$dir/slurm.conf" >"$dir/env"
export SLURM_CONF=$dir/slurm.conf

# -D: in the foreground (its pid is the daemon's); -c: no state of a
# previous cluster in this directory; -i: ignore bad state files.
setsid slurmctld -D -c -i -f "$SLURM_CONF" >>"$dir/slurmctld.out" 2>&1 </dev/null &
echo $! >"$dir/slurmctld.pid"
setsid slurmd -D -N localhost -f "$SLURM_CONF" >>"$dir/slurmd.out" 2>&1 </dev/null &
echo $! >"$dir/slurmd.pid"

# Wait until the node is idle: start-up, not a timing assertion; the bound
# (120 s) only turns a cluster that never comes up into an error.
n=0
while :; do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null | head -n 1)
  [ "$state" = idle ] && break
  kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null || fail slurmctld "$dir/slurmctld.log"
  kill -0 "$(cat "$dir/slurmd.pid")" 2>/dev/null || fail slurmd "$dir/slurmd.log"
  n=$((n + 1))
  [ "$n" -ge 1200 ] && fail "the node (state '${state:-none}')" "$dir/slurmd.log"
  sleep 0.1
done
exit 0
