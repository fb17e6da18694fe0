#!/usr/bin/env bash
# The learned bot (sdk/python/examples/learn_bruise_jack.py, docs/training.md,
# "A learned bot"), small and seeded:
#  learn: a short training from zero weights (1,280 matches against random)
#    twice with the same seed gives the same file, byte for byte; the policy
#    learned: its place score against random over 300 seeded matches is above
#    0.75, which the untrained policy (zero weights: uniform over the legal
#    actions, i.e. random) must fail on the same matches; it plays through the
#    protocol as a cmd: bot in `arena bench` (20 duplicate deals, seed 1)
#    without a fault and ahead of random; a weights file of another feature
#    version is refused with one line.
#  doc: the commands of docs/training.md's learned-bot blocks, run as written
#    but smaller (episodes, deals) and on free ports: train, eval, bench, then
#    the competition server with the bot registered as an external bot, until
#    its validation makes it active.
# Usage: test_learn.sh CASE ARENA LIBJACKARENA FREE_PORT.py
set -u
CASE=$1
ARENA=$2
export JACKARENA_LIB=$3
FREE_PORT=${4:-}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
export PYTHONPATH=$SRC/sdk/python
EX=$SRC/sdk/python/examples/learn_bruise_jack.py
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0 fail=0
check() { # check DESCRIPTION command...
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $d"; [ -s err.txt ] && sed 's/^/  stderr: /' err.txt | tail -5
  fi
}

learn() {
  "$PY" "$EX" train --out a.npz --episodes 1280 --seed 3 >a.txt 2>err.txt
  check "a short training runs" test $? = 0
  "$PY" "$EX" train --out b.npz --episodes 1280 --seed 3 >b.txt 2>err.txt
  check "it runs again" test $? = 0
  check "the same seed gives the same weights file" cmp -s a.npz b.npz
  check "train prints the file's SHA-256" test "$(cut -d' ' -f1 a.txt)" = "$(sha256sum a.npz | cut -d' ' -f1)"

  "$PY" "$EX" eval a.npz --vs random --episodes 300 --seed 7 --min 0.75 >e.txt 2>err.txt
  rc=$?
  check "the trained policy's place score against random is above 0.75 ($(cut -d' ' -f1 e.txt))" \
    test $rc = 0
  "$PY" "$EX" eval untrained --vs random --episodes 300 --seed 7 --min 0.75 >u.txt 2>err.txt
  rc=$?
  check "the untrained policy fails the same check ($(cut -d' ' -f1 u.txt))" test $rc = 1 -a -s u.txt
  sed 's/^/  eval: /' e.txt u.txt
  check "saying so" grep -q "^FAIL: 0\.[0-9]* is not above 0.7500" err.txt

  "$ARENA" bench "cmd:$PY $EX play a.npz" --game bruise-jack --vs random --games 20 --seed 1 \
    --json >bench.json 2>err.txt
  check "the policy plays arena bench as a cmd: bot" test $? = 0
  check "no fault, and ahead of random over 20 duplicate deals" "$PY" - <<'EOF'
import json
r = json.load(open("bench.json"))
row = r["opponents"][0] if "opponents" in r else r["results"][0]
faults = row.get("faults", 0)
print("  bench: score %.3f, faults %d" % (row["score"], faults))
raise SystemExit(0 if faults == 0 and row["score"] > 0.5 else 1)
EOF

  "$PY" - a.npz <<'EOF'
import io, json, sys, zipfile
import numpy as np
with np.load(sys.argv[1]) as z:
    meta = json.loads(str(z["meta"]))
    theta, value = z["theta"], z["value"]
meta["features_version"] = 99
with zipfile.ZipFile("old.npz", "w") as out:
    for name, arr in (("theta", theta), ("value", value), ("meta", np.array(json.dumps(meta)))):
        buf = io.BytesIO()
        np.lib.format.write_array(buf, arr)
        out.writestr(name + ".npy", buf.getvalue())
EOF
  "$PY" "$EX" eval old.npz --episodes 1 >/dev/null 2>err.txt
  check "a file of another feature version is refused" test $? = 1
  check "with one line naming it" grep -q "old.npz: made for features_version 99, this bot needs 1" err.txt
}

# The fenced sh blocks after the marker comments of docs/training.md, as the
# doc writes them, made small: fewer episodes and deals, free ports.
doc_block() { # doc_block MARKER
  awk -v m="<!-- test_learn.sh: $1 -->" '
    $0 == m { want = 1; next }
    want && /^```sh$/ { on = 1; next }
    on && /^```$/ { exit }
    on { print }' "$SRC/docs/training.md"
}

doc() {
  ln -s "$SRC/sdk" sdk
  mkdir -p build/arena && ln -s "$ARENA" build/arena/arena
  local http port
  http=$("$PY" "$FREE_PORT") && port=$("$PY" "$FREE_PORT") || exit 1
  [ "$port" = "$http" ] && port=$((http + 1))
  doc_block train | sed -e 's/--episodes 20000/--episodes 640/' -e 's/--games 200/--games 4/' \
    -e 's/ eval bj.npz / eval bj.npz --episodes 100 /' >train.sh
  { echo "trap 'kill \$(jobs -p) 2>/dev/null; wait' EXIT"
    doc_block serve | sed -e "s/8080/$http/g" -e "s/7000/$port/g"; } >serve.sh
  check "the doc has both blocks" test -s train.sh -a "$(wc -l <serve.sh)" -gt 1
  check "the training block is the one this test shrinks" test "$(grep -c -- '--episodes [16]' train.sh)" = 3
  bash -e train.sh >train.out 2>err.txt
  check "the training block runs" test $? = 0
  check "it benchmarked the bot" grep -q 'random' train.out
  # The serving block leaves the server and the bot running: wait for the
  # validation to make the version active, then stop both.
  cat >>serve.sh <<EOF
for i in \$(seq 600); do
  curl -s http://127.0.0.1:$http/api/bots/alice | grep -q '"status": *"active"' && exit 0
  sleep 0.5
done
exit 1
EOF
  bash -e serve.sh >serve.out 2>err.txt
  check "the serving block registers the bot and it becomes active" test $? = 0
}

case "$CASE" in
learn) learn ;;
doc) doc ;;
*) echo "test_learn.sh: unknown case '$CASE'" >&2; exit 2 ;;
esac
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
