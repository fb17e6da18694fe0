#!/usr/bin/env bash
# A remote worker that joins while every match handed out is on another
# worker gets matches at once (docs/scale.md): worker a's first match
# waits (the bot gate.so) until a process signed in as b has begun a match
# too; b joins once a holds its matches and waits. The run ends only if
# the arena hands b a match without a result from a (it used to wait for
# one: forever here, and ctest's timeout would say so). The matches,
# digests and results are those of `--jobs 1`, and both workers played.
# A worker stuck in a match holds neither a Ctrl-C of the arena nor its
# own end for ever. No wall-clock deadline: waits poll files. Usage:
# test_scale_join.sh ARENA REFEREE GATE.so
set -u
ARENA=$1 REFEREE=$2 GATE=$3
PY=/usr/bin/python3
port=$($PY "$(cd "$(dirname "$0")/.." && pwd)/free_port.py")
work=$(mktemp -d)
cleanup() { for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
pass=0 fail=0
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }
T="tournament bombs --bots random,greedy,$GATE --rounds 2 --seed 7" # 12 matches
W="--connect tcp://127.0.0.1:$port --slots 1"

"$ARENA" $T --db one.db -q >/dev/null
mkdir gate
"$ARENA" $T --db w.db -q --jobs 0 --workers tcp://127.0.0.1:$port --plain-tcp >w.out 2>w.err &
apid=$!
JA_TEST_GATE_DIR=$PWD/gate JA_TEST_GATE_NAME=a "$REFEREE" $W 2>a.err &
while [ ! -e gate/a ]; do sleep 0.05; done # a holds its matches; its first waits
JA_TEST_GATE_DIR=$PWD/gate JA_TEST_GATE_NAME=b "$REFEREE" $W 2>b.err &
wait $apid
rc=$?
check "exit 0 (rc=$rc: $(head -c 300 w.err))" [ "$rc" = 0 ]
check "both workers played (got '$(ls gate | tr '\n' ' ')')" [ "$(ls gate | tr '\n' ' ')" = "a b " ]
"$ARENA" ladder export bombs --jsonl --db one.db >one.jsonl
"$ARENA" ladder export bombs --jsonl --db w.db >w.jsonl
check "the matches, digests and results of --jobs 1" \
  eval '[ "$(wc -l <one.jsonl)" = 12 ] && cmp -s one.jsonl w.jsonl'
wait

# A worker stuck in a match (its gate waits for hosts that never come,
# while it keeps sending heartbeats): Ctrl-C ends the arena all the same,
# the matches at the worker given up in one line after the grace; the
# worker, told to quit, ends by itself after its own grace, saying so.
mkdir stuck
"$ARENA" $T --db s.db -q --jobs 0 --workers tcp://127.0.0.1:$port --plain-tcp >s.out 2>s.err &
apid=$!
JA_TEST_GATE_DIR=$PWD/stuck JA_TEST_GATE_NAME=a JA_TEST_GATE_HOSTS=99 "$REFEREE" $W 2>s.werr &
wpid=$!
# its first match waits for ever (or the worker ended: the checks say how)
while [ ! -e stuck/a ] && kill -0 $wpid 2>/dev/null; do sleep 0.05; done
kill -INT $apid
wait $apid
rc=$?
check "stuck worker, Ctrl-C: the arena exits 1 (rc=$rc: $(tail -n 1 s.err))" [ "$rc" = 1 ]
check "stuck worker, Ctrl-C: one line gives up the matches at the worker" \
  grep -qE "^arena: interrupted: [0-9]+ match(es)? still at the workers (is|are) left unplayed 10 s after the interrupt" s.err
check "stuck worker, Ctrl-C: the run says it was interrupted" \
  grep -q "interrupted after 0 of 12 matches" s.err
wait $wpid
rc=$?
check "stuck worker: it ends by itself, saying why (rc=$rc: $(tail -n 1 s.werr))" \
  eval '[ "$rc" != 0 ] && grep -q "^referee: error: 1 match still in play 10 s after the stop" s.werr'
wait
echo "cli_scale_join: $pass passed, $fail failed"
[ "$fail" = 0 ]
