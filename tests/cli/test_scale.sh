#!/usr/bin/env bash
# Referee workers (docs/scale.md) with real processes: --jobs 2 plays the
# same matches as --jobs 1; a worker killed mid-run loses nothing; the arena
# killed with SIGKILL mid-run and resumed gives the matches of an
# uninterrupted run, with no duplicate and no worker left behind; shards
# merged with `arena ladder import` give the unsharded ladder; remote
# workers over loopback tcp (plain and Curve) give the same matches; bad
# flags exit 2 before anything is written. No wall-clock deadline: waits
# poll the database or the process table (ctest's timeout catches a hang).
# Usage: test_scale.sh ARENA REFEREE
set -u
ARENA=$1
REFEREE=$2
PY=/usr/bin/python3
# Ports below the ephemeral range, free when drawn (tests/free_port.py).
FREE_PORT="$PY $(cd "$(dirname "$0")/.." && pwd)/free_port.py"
work=$(mktemp -d)
cleanup() { for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
mkdir tmp
export TMPDIR=$work/tmp
pass=0 fail=0
T=taylor-blackjack
B="--bots random,random,greedy"
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }
expect_fail() { # expect_fail CODE PATTERN -- command...: one stderr line, nothing written
  local code=$1 pat=$2; shift 3
  local before; before=$(ls -A | sort)
  "$@" >out.txt 2>err.txt
  local rc=$?
  local after; after=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' | sort)
  if [ "$rc" = "$code" ] && [ "$(wc -l <err.txt)" = 1 ] && grep -qE -- "$pat" err.txt \
     && [ "$before" = "$after" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: $* (rc=$rc, want $code, /$pat/)"; sed 's/^/  stderr: /' err.txt
  fi
  rm -f out.txt err.txt
}
# same_matches A.db B.db [N]: equal (number, digest) lists, no duplicate, N rows
same_matches() {
  $PY - "$@" <<'PYEOF'
import sqlite3, sys
q = "select number, digest, status from matches order by number"
a = sqlite3.connect(sys.argv[1]).execute(q).fetchall()
b = sqlite3.connect(sys.argv[2]).execute(q).fetchall()
n = int(sys.argv[3]) if len(sys.argv) > 3 else len(a)
nums = [r[0] for r in b]
assert len(set(nums)) == len(nums), "duplicate match numbers"
assert a == b and len(a) == n, (len(a), len(b), n)
PYEOF
}
# same_standings A.json B.json: equal but for the live Elo, which follows the
# order results arrive in (docs/elo.md); the fit does not.
same_standings() {
  $PY - "$@" <<'PYEOF'
import json, sys
def strip(p):
    d = json.load(open(p))
    for s in d["standings"]:
        s.pop("live_elo")
    return d
a, b = strip(sys.argv[1]), strip(sys.argv[2])
assert a == b, (a, b)
PYEOF
}
count() { $PY -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from matches where status = \x27done\x27").fetchone()[0])' "$1" 2>/dev/null || echo 0; }
# children PID: the referee processes the arena PID started
children() { ps -o pid= --ppid "$1" 2>/dev/null | tr -d ' '; }

expect_fail 2 "--jobs needs a positive number" -- "$ARENA" tournament $T $B --jobs 0
expect_fail 2 "--shard '0/3': give I/N" -- "$ARENA" tournament $T $B --shard 0/3
expect_fail 2 "--shard '4/3': give I/N" -- "$ARENA" tournament $T $B --shard 4/3
expect_fail 2 "--workers 'http://x': use tcp" -- "$ARENA" tournament $T $B --workers http://x
expect_fail 2 "tcp needs --curve" -- "$ARENA" tournament $T $B --workers tcp://127.0.0.1:5999
expect_fail 2 "plain tcp only on a loopback" -- "$ARENA" tournament $T $B --plain-tcp --workers tcp://10.1.2.3:5999
expect_fail 2 "which arena\\? give --connect" -- "$REFEREE"
expect_fail 2 "--slots needs a number" -- "$REFEREE" --connect ipc:///nonexistent --slots 0
expect_fail 2 "--inline plays one match at a time: not with --slots 2" -- "$REFEREE" --connect ipc:///nonexistent --inline --slots 2
expect_fail 2 "--server-key 'abc' is not a Z85" -- "$REFEREE" --connect tcp://127.0.0.1:1 --server-key abc

# The slow part (`test_scale.sh ARENA REFEREE heartbeat`, ctest label slow):
# a remote worker that stops answering (SIGSTOP) is lost after the 10 s
# without heartbeats, its matches go to the other worker, and every match
# is played once; a worker without --server-key against a Curve arena,
# which never hears from it, gives up after those 10 s with exit 1 and says
# why (it used to hang).
if [ "${3:-}" = heartbeat ]; then
  mkdir -m 700 hkeys
  $PY -c '
import zmq
pub, sec = zmq.curve_keypair()
open("hkeys/arena.pub", "wb").write(pub + b"\n")
open("hkeys/arena.key", "wb").write(sec + b"\n")'
  chmod 600 hkeys/arena.key
  port=$($FREE_PORT)
  "$ARENA" tournament $T $B --rounds 2 --seed 9 --opt games=1 --db hk.db --jobs 0 \
    --workers tcp://127.0.0.1:$port --curve --curve-dir hkeys >hk.out 2>hk.err &
  apid=$!
  "$REFEREE" --connect tcp://127.0.0.1:$port --slots 1 >nokey.out 2>nokey.err
  nrc=$?
  check "worker without --server-key: exit 1 (rc=$nrc)" [ "$nrc" = 1 ]
  check "worker without --server-key: one line naming the cause" \
    grep -qx "referee: error: no answer from tcp://127.0.0.1:$port within 10 s: a Curve arena needs --server-key (is an arena running there? One that refused this worker's hello, a worker of another version, says why in its own messages)" nokey.err
  sed 's/^/  stderr: /' nokey.err | grep -v "a Curve arena needs" | head -3
  "$REFEREE" --connect tcp://127.0.0.1:$port --slots 1 --server-key "$(cat hkeys/arena.pub)" &
  rpid=$!
  wait $apid; rc=$?; wait $rpid
  check "... and the arena then plays with a worker that has the key (rc=$rc)" [ "$rc" = 0 ]
  # 1,200 matches of six games, so that the run is still going when a worker
  # is stopped (short matches go fast: workers then take up to 64 jobs a
  # slot and send up to 32 results at once).
  HB="tournament $T $B --rounds 200 --seed 9"
  "$ARENA" $HB -q --db hfull.db >/dev/null
  "$ARENA" $HB --db hb.db --jobs 0 --workers ipc://$work/hb >hb.out 2>hb.err &
  apid=$!
  "$REFEREE" --connect ipc://$work/hb --slots 1 2>/dev/null &
  r1=$!
  "$REFEREE" --connect ipc://$work/hb --slots 1 2>/dev/null &
  r2=$!
  while [ "$(count hb.db)" -lt 20 ]; do sleep 0.05; done
  kill -STOP $r1
  wait $apid
  rc=$?
  # The stopped worker is not waited for: resumed, it would read the
  # arena's queued heartbeats and only then notice the silence (10 s).
  kill $r1
  kill -CONT $r1
  wait $r1
  wait $r2
  r2rc=$?
  check "heartbeat: arena finished (rc=$rc)" [ "$rc" = 0 ]
  check "heartbeat: the silent worker was lost" grep -q "missed its heartbeats" hb.err || cat hb.err
  check "heartbeat: every match once, same digests" same_matches hfull.db hb.db 1200
  check "heartbeat: the other worker quit when told (rc=$r2rc)" [ "$r2rc" = 0 ]
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ]
  exit
fi

check "referee --help" sh -c '"$0" --help | grep -q -- "--connect ENDPOINT"' "$REFEREE"
check "tournament --help names the scale flags" sh -c '"$0" tournament --help | grep -q -- "--shard I/N"' "$ARENA"

# --jobs 2 (two worker processes) plays exactly the matches of --jobs 1,
# replays and exported decisions included.
run() { "$ARENA" tournament $T $B --rounds 10 --seed 3 --opt games=1 -q --json "$@"; }
run --db j1.db --replays r1 --export-decisions x1.mp >j1.json
run --db j2.db --replays r2 --export-decisions x2.mp --jobs 2 >j2.json
check "--jobs 2 standings = --jobs 1" same_standings j1.json j2.json
check "--jobs 2 digests = --jobs 1" same_matches j1.db j2.db 60
check "--jobs 2 wrote every replay" [ "$(ls r2 | wc -l)" = 60 ]
check "--jobs 2 replays verify" sh -c '"$0" replay verify r2/t1-m000007.rpl >/dev/null' "$ARENA"
check "--jobs 2 exported as much" [ "$(stat -c %s x1.mp)" = "$(stat -c %s x2.mp)" ]
check "no scratch directory left" [ -z "$(ls -A tmp)" ]

# A big run to interrupt (long enough to be caught mid-run however fast it
# plays): taylor-blackjack with random bots, 3 seats.
BIG="tournament $T $B --rounds 500 --seed 9 --opt games=1 -q --json"
"$ARENA" $BIG --db full.db >full.json

# A worker killed mid-run: every match is still played exactly once.
"$ARENA" $BIG --db wk.db --jobs 2 >wk.json 2>wk.err &
apid=$!
while [ "$(count wk.db)" -lt 50 ]; do sleep 0.05; done
victim=$(children $apid | head -1)
kill -9 "$victim"
at_kill=$(count wk.db)
wait $apid
rc=$?
check "worker killed: arena finished (rc=$rc)" [ "$rc" = 0 ]
check "worker killed: it was mid-run ($at_kill of 3000)" [ "$at_kill" -lt 3000 ]
check "worker killed: every match once, same digests" same_matches full.db wk.db 3000
check "worker killed: same standings" same_standings full.json wk.json

# A worker of another version (a hello the arena refuses): the arena says
# why, even with -q (without it, the worker only hears nothing).
"$ARENA" tournament $T $B --rounds 1 --seed 9 --db bh.db --jobs 0 --workers ipc://$work/bh -q \
  >bh.out 2>bh.err &
apid=$!
$PY -c '
import msgpack, sys, time, zmq
s = zmq.Context().socket(zmq.DEALER)
s.connect(sys.argv[1])
s.send(msgpack.packb({"t": "hello", "v": 1, "slots": 1, "depth": 999, "host": "x:1", "pid": 1}))
while "hello" not in open(sys.argv[2]).read():
    time.sleep(0.05)' "ipc://$work/bh" bh.err
kill $apid; wait $apid
check "a refused hello: the arena says why, with -q" grep -qx "arena: a bad message from worker \
(unknown): hello's depth is not a number of jobs a slot from 2 to 64" bh.err

# Local workers that never start (no referee there: each exits at once):
# after a few restarts the run stops with an error that says so, every
# match left unplayed, not a wait for ever (ctest's timeout would catch it).
JACKARENA_REFEREE=/bin/false "$ARENA" tournament $T $B --rounds 2 --seed 9 --db nw.db --jobs 2 \
  -q >nw.out 2>nw.err
rc=$?
check "no worker starts: exit 1 (rc=$rc)" [ "$rc" = 1 ]
check "no worker starts: says so" grep -q "no referee worker is left to play it" nw.err
check "no worker starts: nothing recorded" [ "$(count nw.db)" = 0 ]

# The arena killed with SIGKILL mid-run, then --resume: the matches of the
# uninterrupted run, none twice, and no worker left running.
"$ARENA" $BIG --db ak.db --jobs 2 >/dev/null 2>&1 &
apid=$!
while [ "$(count ak.db)" -lt 50 ]; do sleep 0.05; done
kids=$(children $apid)
kill -9 $apid
wait $apid 2>/dev/null
at_kill=$(count ak.db)
for k in $kids; do while kill -0 "$k" 2>/dev/null && [ "$(ps -o stat= -p "$k")" != Z ]; do sleep 0.05; done; done
check "arena killed: it was mid-run ($at_kill of 3000)" [ "$at_kill" -lt 3000 ]
check "arena killed: its workers are gone" true
stale=$(ls "$TMPDIR" | grep '^ja-arena-')
check "arena killed: its private directory is left behind" [ -n "$stale" ]
"$ARENA" $BIG --db ak.db --jobs 2 --resume >ak.json
check "arena killed then --resume: the dead arena's directory is swept" \
  sh -c 'for d in $1; do [ -e "$0/$d" ] && exit 1; done; exit 0' "$TMPDIR" "$stale"
check "arena killed then --resume: same matches, none twice" same_matches full.db ak.db 3000
check "arena killed then --resume: same standings" same_standings full.json ak.json

# Ctrl-C (SIGINT to the arena alone) mid-run: the matches in flight are
# recorded, the workers quit, the arena exits 1 saying how to finish; the
# same command then finishes the plan.
"$ARENA" $BIG --db ci.db --jobs 2 >/dev/null 2>ci.err &
apid=$!
while [ "$(count ci.db)" -lt 50 ]; do sleep 0.05; done
kids=$(children $apid)
kill -INT $apid
wait $apid
rc=$?
check "Ctrl-C: exit 1 (rc=$rc)" [ "$rc" = 1 ]
check "Ctrl-C: says how to finish" grep -q "run the same command again" ci.err
check "Ctrl-C: its workers are gone" sh -c 'for k in $0; do kill -0 $k 2>/dev/null && exit 1; done; exit 0' "$kids"
"$ARENA" $BIG --db ci.db --jobs 2 >ci.json
check "Ctrl-C then re-run: same matches, none twice" same_matches full.db ci.db 3000

# Ctrl-C while no worker has joined: the run stops all the same.
"$ARENA" tournament $T $B --rounds 1 --seed 3 -q --db nw.db --jobs 0 --workers ipc://$work/nobody \
  >/dev/null 2>nw.err &
apid=$!
planned() { $PY -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from matches").fetchone()[0])' "$1" 2>/dev/null || echo 0; }
# (SIGINT is ignored by background jobs until the arena installs its
# handler: wait for the handler, read from the process's SigCgt mask)
catches_int() { local m; m=$(awk '/^SigCgt/ {print $2}' /proc/$1/status 2>/dev/null); [ -n "$m" ] && (( (16#$m >> 1) & 1 )); }
while [ "$(planned nw.db)" -lt 6 ] || ! catches_int $apid; do sleep 0.05; done
kill -INT $apid
wait $apid
rc=$?
check "Ctrl-C with no worker: exit 1 (rc=$rc)" [ "$rc" = 1 ]
check "Ctrl-C with no worker: interrupted after 0" grep -q "interrupted after 0 of 6" nw.err

# Three shards, each into its own database, merged with `arena ladder
# import`: the matches, results and Bradley-Terry ratings of the unsharded
# run; importing again changes nothing. Balanced seating: 4 combinations
# in 6 seatings, 5 rounds, 120 matches.
SH="tournament $T --bots random,random,greedy,greedy --seats 3 --rounds 5 --seed 4 --opt games=1 -q --json"
"$ARENA" $SH --db un.db >/dev/null
for i in 1 2 3; do "$ARENA" $SH --db s$i.db --shard $i/3 $([ $i = 2 ] && echo --jobs 2) >/dev/null; done
check "shard 1 played a third" [ "$(count s1.db)" = 40 ]
for i in 1 2 3; do "$ARENA" ladder import s$i.db --db merged.db >/dev/null; done
"$ARENA" ladder import s2.db --db merged.db --json >again.json
check "import twice: nothing new" $PY -c 'import json; d=json.load(open("again.json")); assert d["matches"]==0 and d["already"]==40, d'
check "shards merged: same matches" same_matches un.db merged.db 120
same_results() {
  $PY - "$@" <<'PYEOF'
import sqlite3, sys
q = """select m.number, r.seat, b.name, r.score, r.place, r.faults from results r
       join matches m on m.id = r.match_id join bots b on b.id = r.bot_id order by 1, 2"""
a = sqlite3.connect(sys.argv[1]).execute(q).fetchall()
b = sqlite3.connect(sys.argv[2]).execute(q).fetchall()
assert a == b and len(a) == 360, (len(a), len(b))
PYEOF
}
check "shards merged: same results" same_results un.db merged.db
"$ARENA" ladder $T --db un.db --fit --json >fit_un.json
"$ARENA" ladder $T --db merged.db --fit --json >fit_merged.json
check "shards merged: same Bradley-Terry ladder" cmp -s fit_un.json fit_merged.json
check "merged tournament is done" $PY -c 'import sqlite3; assert sqlite3.connect("merged.db").execute("select status from tournaments").fetchone()[0] == "done"'
expect_fail 2 "is the database itself" -- "$ARENA" ladder import merged.db --db merged.db

# Exactly once: a proxy between the arena and a real worker sends every
# result twice, and a result for a match nobody asked for; the arena
# records each match once and exports its decisions once.
cat >dup.py <<'PYEOF'
import subprocess, sys, zmq, msgpack
arena_ep, referee, scratch = sys.argv[1], sys.argv[2], sys.argv[3]
ctx = zmq.Context()
up = ctx.socket(zmq.DEALER); up.connect(arena_ep)
down = ctx.socket(zmq.ROUTER); down.bind("ipc://" + scratch)
w = subprocess.Popen([referee, "--connect", "ipc://" + scratch, "--slots", "1"])
poller = zmq.Poller(); poller.register(up, zmq.POLLIN); poller.register(down, zmq.POLLIN)
wid = None
while True:
    ev = dict(poller.poll(1000))
    if not ev and w.poll() is not None:  # the worker is gone: say so, never wait for ever
        sys.exit("dup.py: the worker exited (status %d) before the arena said quit" % w.returncode)
    if down in ev:
        wid, body = down.recv_multipart()
        up.send(body)
        m = msgpack.unpackb(body, raw=False)
        if m["t"] == "result":
            up.send(body)                      # the same result again
            m["n"] = 999999
            up.send(msgpack.packb(m))          # a match nobody asked for
    if up in ev:
        body = up.recv()
        if wid is not None:
            down.send_multipart([wid, body])
        if msgpack.unpackb(body, raw=False)["t"] == "quit":
            break
w.wait()
PYEOF
run --db dup.db --jobs 0 --workers ipc://$work/dup-arena --export-decisions xd.mp >dup.json &
apid=$!
if ! $PY dup.py ipc://$work/dup-arena "$REFEREE" "$work/dup-worker"; then
    kill $apid 2>/dev/null
fi
wait $apid
check "duplicated results: arena finished (rc=$?)" [ -s dup.json ]
check "duplicated results: every match once" same_matches j1.db dup.db 60
check "duplicated results: decisions exported once" [ "$(stat -c %s x1.mp)" = "$(stat -c %s xd.mp)" ]

# A worker whose plugin file differs from the arena's (same relative
# path, another file) refuses the job: a worker error, not a bot fault.
BOTS=$(cd "$(dirname "$ARENA")/../bots" && pwd)
mkdir -p here there
cp "$BOTS/ja_random.so" here/bot.so
cp "$BOTS/ja_greedy.so" there/bot.so
(cd here && exec "$ARENA" tournament $T --bots ./bot.so,random --rounds 2 --seed 1 -q --db ../sha.db \
   --jobs 0 --workers ipc://$work/sha-arena >/dev/null 2>../sha.err) &
apid=$!
(cd there && exec "$REFEREE" --connect ipc://$work/sha-arena --slots 1 2>/dev/null) &
rpid=$!
wait $apid
rc=$?
wait $rpid
check "other plugin file: arena exits 1 (rc=$rc)" [ "$rc" = 1 ]
check "other plugin file: named in one line" grep -q "is not the arena's file" sha.err
check "other plugin file: nothing recorded" [ "$(count sha.db)" = 0 ]

# one_worker WHAT DB REFEREE-ARGS...: an arena on plain loopback tcp that
# one referee joins; both finish, and the matches are those of --jobs 1.
one_worker() {
  local what=$1 db=$2 port apid rpid rc rrc
  shift 2
  port=$($FREE_PORT)
  run --db "$db" --jobs 0 --workers tcp://127.0.0.1:$port --plain-tcp >"${db%.db}.json" &
  apid=$!
  "$REFEREE" --connect tcp://127.0.0.1:$port "$@" &
  rpid=$!
  wait $apid
  rc=$?
  wait $rpid
  rrc=$?
  check "$what: arena finished (rc=$rc)" [ "$rc" = 0 ]
  check "$what: worker exited when told (rc=$rrc)" [ "$rrc" = 0 ]
  check "$what: same matches as --jobs 1" same_matches j1.db "$db" 60
}
# Remote workers on loopback tcp, plain: one referee joins with 2 slots.
one_worker "tcp worker" tw.db --slots 2
# --inline (what --jobs starts): the main thread plays; same matches again.
one_worker "inline worker" ti.db --inline
# ... and with Curve: the worker needs the arena's public key.
mkdir -m 700 keys
$PY -c '
import zmq
pub, sec = zmq.curve_keypair()
open("keys/arena.pub", "wb").write(pub + b"\n")
open("keys/arena.key", "wb").write(sec + b"\n")'
chmod 600 keys/arena.key
if [ -s keys/arena.pub ]; then
  port=$($FREE_PORT)
  run --db tc.db --jobs 0 --workers tcp://127.0.0.1:$port --curve --curve-dir keys >tc.json 2>tc.err &
  apid=$!
  "$REFEREE" --connect tcp://127.0.0.1:$port --slots 2 --server-key "$(cat keys/arena.pub)" &
  rpid=$!
  wait $apid; rc=$?; wait $rpid
  check "curve worker: same matches as --jobs 1 (rc=$rc)" same_matches j1.db tc.db 60
  # --workers-allow: a worker whose key is listed plays; one with another
  # key is refused during the handshake, and says so at once (exit 1).
  $PY -c '
import zmq
for n in ("w1", "w2"):
    pub, sec = zmq.curve_keypair()
    open(n + ".pub", "wb").write(pub)
    open(n + ".key", "wb").write(sec)'
  printf '# referee workers allowed\n%s\n' "$(cat w1.pub)" >allow.txt
  port=$($FREE_PORT)
  run --db ta.db --jobs 0 --workers tcp://127.0.0.1:$port --curve --curve-dir keys \
    --workers-allow allow.txt >ta.json 2>ta.err &
  apid=$!
  JACKARENA_PUBLIC_KEY=$(cat w2.pub) JACKARENA_SECRET_KEY=$(cat w2.key) \
    "$REFEREE" --connect tcp://127.0.0.1:$port --server-key "$(cat keys/arena.pub)" 2>bad.err
  brc=$?
  check "unlisted worker key: refused, exit 1 (rc=$brc)" [ "$brc" = 1 ]
  check "unlisted worker key: says why" grep -q "refused this worker's CurveZMQ key" bad.err
  JACKARENA_PUBLIC_KEY=$(cat w1.pub) JACKARENA_SECRET_KEY=$(cat w1.key) \
    "$REFEREE" --connect tcp://127.0.0.1:$port --slots 2 --server-key "$(cat keys/arena.pub)" &
  rpid=$!
  wait $apid; rc=$?; wait $rpid
  check "listed worker key: same matches as --jobs 1 (rc=$rc)" same_matches j1.db ta.db 60
  expect_fail 2 "--workers-allow 'allow.txt' needs --workers with --curve" -- \
    "$ARENA" tournament $T $B --workers-allow allow.txt --db nope.db
  printf 'not a key\n' >badallow.txt
  expect_fail 2 "--workers-allow 'badallow.txt' line 1: not a Z85 public key" -- \
    "$ARENA" tournament $T $B --workers tcp://127.0.0.1:$port --curve --curve-dir keys \
    --workers-allow badallow.txt --db nope.db
  expect_fail 2 "JACKARENA_PUBLIC_KEY and JACKARENA_SECRET_KEY must both be" -- \
    env JACKARENA_PUBLIC_KEY=short "$REFEREE" --connect tcp://127.0.0.1:$port \
    --server-key "$(cat keys/arena.pub)"
else
  fail=$((fail + 1)); echo "FAIL: --curve made no key pair"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
