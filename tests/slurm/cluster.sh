#!/usr/bin/env bash
# A private Slurm cluster for tests: its own munged (key, socket, pid, log
# and seed file in DIR), slurmctld and slurmd in the foreground from
# DIR/slurm.conf. Nothing under /etc, /run or /var is used, so it runs
# beside a system cluster and beside other tests' clusters.
#
#   cluster.sh start DIR [N]  start it; returns once `sinfo` shows every
#                          node idle; DIR/env holds `export SLURM_CONF=...`
#                          (source it before sbatch, squeue, scancel)
#   cluster.sh stop DIR    kill its daemons by PID (DIR/*.pid,
#                          DIR/n*/*.pid) and wait until they are gone;
#                          delete its bridge
#   cluster.sh pids DIR    the PIDs of its daemons still running
#
# One node (N 1, the default): node `localhost` at 127.0.0.1, slurmctld and
# slurmd on ports below the ephemeral range (tests/free_port.py).
#
# N nodes (2 to 8): nodes n1..nN, each a machine of its own as far as
# Slurm can tell: a process holding a network, UTS and mount namespace
# (`unshare`), its host name nK, its address 10.254.B.(K+1)/24 on a veth
# pair whose other end is on the bridge ja-br-B of the machine's namespace
# (address 10.254.B.1: slurmctld's, and where jobs reach the submitting
# machine; B is the first /24 of 10.254 no interface or route uses). Each
# node runs its own munged with the cluster's one key (the socket path of
# slurm.conf is bind-mounted over in the node's mount namespace, so it
# reaches the node's own daemon) and its slurmd on port 6818 of its own
# network; each has one CPU, so a second task goes to another node. DIR
# is the filesystem they share (the same path on every node, as a shared
# filesystem gives a real cluster). Finished jobs are recorded, with the
# nodes they ran on, in DIR/jobcomp.log (jobcomp/filetxt). DIR/env also
# holds `export CLUSTER_ADDR=10.254.B.1`.
#
# Needs root (slurmd starts jobs as their users; SlurmUser=root),
# Debian's slurmctld, slurmd, slurm-client and munge (scripts/setup.sh),
# and for N nodes unshare, nsenter and ip (util-linux, iproute2).
# Exit status: 0; 1 when a daemon does not start (its log's tail is
# printed); 2 on usage; 3 when this machine cannot make the namespaces or
# the bridge of N nodes (said on stderr: a test skips).
set -u
cmd=${1:-} dir=${2:-} nodes=${3:-1}
usage() { echo "usage: cluster.sh start DIR [NODES] | stop DIR | pids DIR" >&2; exit 2; }
[ -n "$cmd" ] && [ -n "$dir" ] || usage
case "$nodes" in [1-8]) ;; *) usage ;; esac
PY=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/sbin:/sbin

# The daemons in the order they are stopped: slurmd first (it ends the
# jobs' steps), each node's munged and namespace holder, then the
# controller, then the machine's munged.
pidfiles() {
  local f
  for f in "$dir"/slurmd.pid "$dir"/n*/slurmd.pid "$dir"/n*/munged.pid "$dir"/n*/ns.pid \
    "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -s "$f" ] && echo "$f"
  done
}

# A daemon that has exited is gone, even while its zombie waits for the
# process that adopted it to reap it.
alive() {
  local st
  st=$(sed -n 's/^[0-9]* (.*) \([A-Z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

pids() {
  local f p
  for f in $(pidfiles); do
    p=$(cat "$f")
    [ -n "$p" ] && alive "$p" && echo "$p"
  done
}

stop() {
  local f p n
  # Jobs still known to the controller are cancelled first, so that no job
  # step (slurmstepd) outlives the cluster.
  if [ -s "$dir/slurmctld.pid" ] && alive "$(cat "$dir/slurmctld.pid")"; then
    SLURM_CONF=$dir/slurm.conf scancel --quiet --user="$(id -un)" 2>/dev/null
    n=0
    while [ -n "$(SLURM_CONF=$dir/slurm.conf squeue -h -o %i 2>/dev/null)" ] && [ "$n" -lt 600 ]; do
      n=$((n + 1))
      sleep 0.1
    done
  fi
  for f in $(pidfiles); do
    p=$(cat "$f")
    alive "$p" || continue
    kill -TERM "$p" 2>/dev/null
    n=0
    while alive "$p"; do
      n=$((n + 1))
      # Start-up and shutdown bounds, not timing assertions: a daemon that
      # ignores SIGTERM for 30 s is killed.
      [ "$n" = 300 ] && kill -KILL "$p" 2>/dev/null
      sleep 0.1
    done
  done
  # A veth pair goes with the namespace of its node's end; the bridge is
  # the machine's: delete them by name.
  if [ -s "$dir/links" ]; then
    for p in $(cat "$dir/links"); do
      ip link del "$p" 2>/dev/null
    done
    : >"$dir/links"
  fi
  return 0
}

fail() { # fail WHAT LOG
  echo "cluster.sh: $1 did not start; the end of $2:" >&2
  tail -n 5 "$2" >&2 2>/dev/null
  stop
  exit 1
}
cannot() { echo "cluster.sh: $*" >&2; stop; exit 3; }

case "$cmd" in
stop) stop; exit 0 ;;
pids) pids; exit 0 ;;
start) ;;
*) usage ;;
esac

for p in munged slurmctld slurmd sinfo sbatch; do
  if ! command -v "$p" >/dev/null 2>&1; then
    echo "cluster.sh: '$p' is not installed (Debian: munge, slurmctld, slurmd, slurm-client)" >&2
    exit 1
  fi
done
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)
chmod 700 "$dir"
mkdir -p "$dir/state" "$dir/spool" "$dir/munge/run"
chmod 700 "$dir/munge"
: >"$dir/links"

# The bridge of N nodes: B, the first /24 of 10.254 that no address or
# route of the machine covers (but the default route), chosen and taken
# under a lock, so that clusters started at the same time differ. The lock
# is flock(1) on the directory /tmp itself, which every cluster of the
# machine sees and which is always there: no lock file is made, so none is
# left behind.
bridge() {
  local b taken
  for p in unshare nsenter ip; do
    command -v "$p" >/dev/null 2>&1 || cannot "'$p' is not installed (util-linux, iproute2): no cluster of $nodes nodes"
  done
  unshare --net --uts --mount true 2>/dev/null ||
    cannot "cannot make network, UTS and mount namespaces here (unshare --net --uts --mount): no cluster of $nodes nodes"
  exec 9</tmp && flock 9 || cannot "cannot lock the directory /tmp (flock)"
  for b in $(seq 0 255); do
    taken=$(ip -4 -o addr show to "10.254.$b.0/24"; ip -4 route show match "10.254.$b.0/24" | grep -v '^default')
    [ -z "$taken" ] || continue
    if ip link add "ja-br-$b" type bridge 2>/dev/null; then
      echo "ja-br-$b" >>"$dir/links"
      ip addr add "10.254.$b.1/24" dev "ja-br-$b" && ip link set "ja-br-$b" up ||
        cannot "cannot bring the bridge ja-br-$b up"
      exec 9>&-
      echo "$b"
      return 0
    fi
  done
  cannot "cannot make a bridge (ip link add ja-br-B type bridge): no cluster of $nodes nodes"
}

# node K: nK's namespaces (held by `sleep infinity`), its veth, address,
# host name and munged; then its slurmd.
node() {
  local k=$1 name=n$1 h n=0 ns
  mkdir -p "$dir/$name/spool" "$dir/$name/munge"
  setsid unshare --net --uts --mount sleep infinity </dev/null >/dev/null 2>&1 &
  h=$!
  echo "$h" >"$dir/$name/ns.pid"
  ns=$(readlink /proc/self/ns/net)
  while [ "$(readlink "/proc/$h/ns/net" 2>/dev/null)" = "$ns" ] ||
    [ -z "$(readlink "/proc/$h/ns/net" 2>/dev/null)" ]; do
    alive "$h" || cannot "unshare for node $name ended"
    n=$((n + 1))
    [ "$n" -ge 1200 ] && cannot "node $name's namespaces were not made"
    sleep 0.05
  done
  ip link add "ja-$b-$name" type veth peer name eth0 netns "$h" ||
    cannot "cannot make the veth pair of node $name"
  echo "ja-$b-$name" >>"$dir/links"
  ip link set "ja-$b-$name" master "ja-br-$b" up || cannot "cannot put node $name's veth on the bridge"
  nsenter -t "$h" --net --uts --mount sh -c "
    hostname $name && ip link set lo up && ip addr add 10.254.$b.$((k + 1))/24 dev eth0 &&
    ip link set eth0 up && mount --bind '$dir/$name/munge' '$dir/munge/run'" ||
    cannot "cannot set node $name's host name, address or munge directory up"
  nsenter -t "$h" --net --uts --mount munged --socket="$sock" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/$name/munged.pid" --log-file="$dir/$name/munged.log" \
    --seed-file="$dir/$name/munged.seed" --force >>"$dir/$name/munged.log" 2>&1 ||
    fail "node $name's munged" "$dir/$name/munged.log"
  setsid nsenter -t "$h" --net --uts --mount slurmd -D -N "$name" -f "$SLURM_CONF" \
    >>"$dir/$name/slurmd.out" 2>&1 </dev/null &
  echo $! >"$dir/$name/slurmd.pid"
}

ctl_port=$($PY "$here/../free_port.py") || exit 1
if [ "$nodes" -gt 1 ]; then
  b=$(bridge) || exit 3
  ctl_host="$(hostname -s)(10.254.$b.1)"
  d_port=6818
else
  ctl_host=localhost
  d_port=$($PY "$here/../free_port.py") || exit 1
  while [ "$d_port" = "$ctl_port" ]; do d_port=$($PY "$here/../free_port.py") || exit 1; done
fi

# munge: a fresh key of 1024 random bytes, readable by root only.
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
sock=$dir/munge/run/munge.socket
munged --socket="$sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge/munged.seed" --force \
  >>"$dir/munged.log" 2>&1 || fail munged "$dir/munged.log"

mem=$(awk '/^MemTotal:/ { print int($2 / 1024 / 2) }' /proc/meminfo)
if [ "$nodes" -gt 1 ]; then
  names=$(seq -s, -f 'n%g' 1 "$nodes")
  node_lines=$(for k in $(seq 1 "$nodes"); do
    echo "NodeName=n$k NodeHostname=n$k NodeAddr=10.254.$b.$((k + 1)) CPUs=1 RealMemory=$((mem / nodes)) State=UNKNOWN"
  done)
  slurmd_files="SlurmdSpoolDir=$dir/%n/spool
SlurmdPidFile=$dir/%n/slurmd.pid
SlurmdLogFile=$dir/%n/slurmd.log
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.log"
else
  names=localhost
  node_lines="NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN"
  slurmd_files="SlurmdSpoolDir=$dir/spool
SlurmdPidFile=$dir/slurmd.pid
SlurmdLogFile=$dir/slurmd.log
JobCompType=jobcomp/none"
fi
cat >"$dir/slurm.conf" <<CONF
# A private test cluster (tests/slurm/cluster.sh)
ClusterName=jatest
SlurmctldHost=$ctl_host
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
$slurmd_files
SlurmctldPidFile=$dir/slurmctld.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerParameters=defer_batch=0
MinJobAge=10
$node_lines
PartitionName=debug Nodes=$names Default=YES MaxTime=INFINITE State=UP
CONF
echo "export SLURM_CONF=$dir/slurm.conf" >"$dir/env"
[ "$nodes" -gt 1 ] && echo "export CLUSTER_ADDR=10.254.$b.1" >>"$dir/env"
export SLURM_CONF=$dir/slurm.conf

# -D: in the foreground (its pid is the daemon's); -c: no state of a
# previous cluster in this directory; -i: ignore bad state files.
setsid slurmctld -D -c -i -f "$SLURM_CONF" >>"$dir/slurmctld.out" 2>&1 </dev/null &
echo $! >"$dir/slurmctld.pid"
if [ "$nodes" -gt 1 ]; then
  for k in $(seq 1 "$nodes"); do node "$k"; done
  logs=$(printf "$dir/%s/slurmd.log " $(echo "$names" | tr , ' '))
else
  setsid slurmd -D -N localhost -f "$SLURM_CONF" >>"$dir/slurmd.out" 2>&1 </dev/null &
  echo $! >"$dir/slurmd.pid"
  logs=$dir/slurmd.log
fi

# Wait until every node is idle: start-up, not a timing assertion; the
# bound (120 s) only turns a cluster that never comes up into an error.
n=0
while :; do
  states=$(sinfo -h -N -o %T 2>/dev/null | sort -u | tr '\n' ' ')
  [ "$states" = "idle " ] && [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | wc -l)" = "$nodes" ] && break
  alive "$(cat "$dir/slurmctld.pid")" || fail slurmctld "$dir/slurmctld.log"
  for f in "$dir"/slurmd.pid "$dir"/n*/slurmd.pid; do
    [ -s "$f" ] || continue
    alive "$(cat "$f")" || fail "slurmd ($f)" "$(dirname "$f")/slurmd.log"
  done
  n=$((n + 1))
  [ "$n" -ge 1200 ] && fail "the nodes (states '${states:-none}')" "$(echo $logs | cut -d' ' -f1)"
  sleep 0.1
done
exit 0
