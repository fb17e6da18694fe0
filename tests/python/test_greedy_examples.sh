#!/usr/bin/env bash
# A Python heuristic example (sdk/python/examples/greedy_<game>.py,
# docs/python.md, "Examples") with the real arena:
#  - it plays as the `greedy` reference bot does, choice for choice: in a few
#    seeded matches against random (several seat counts and options), the
#    match with the example in a seat and the match with greedy there have
#    the same digest and scores, and the example makes no fault;
#  - it beats random: `arena bench` on 20 duplicate deals, seed 1 (40
#    matches with 2 seats), no fault, score above 1/2 and the 95% interval
#    of the Elo difference above 0; the same numbers as greedy's bench.
# Everything is seeded and the examples use no randomness: deterministic.
# Usage: test_greedy_examples.sh GAME ARENA
set -u
GAME=$1
ARENA=$2
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
export PYTHONPATH=$HERE/../../sdk/python
# The example, its matches against greedy (seed, seats, options joined by
# ',') and the bench's options, per game: short matches keep the test near
# 10 s.
case "$GAME" in
taylor-blackjack) FILE=greedy_taylor.py BENCH_OPT="games=2"
  MATCHES=("1 2 games=2" "2 3 games=1" "3 2 last_card=auto" "4 5 games=1") ;;
brawljack) FILE=greedy_brawljack.py BENCH_OPT="hands=4"
  MATCHES=("1 2 hands=4" "2 3 dealer=on,hands=3" "3 4 hands=2") ;;
bruise-jack) FILE=greedy_bruise_jack.py BENCH_OPT="hands=2"
  MATCHES=("1 2 hands=2" "2 3 way=2,hands=2" "3 2 guile=on,hands=2") ;;
jack-in-the-box) FILE=greedy_jack_in_the_box.py BENCH_OPT="games=2"
  MATCHES=("1 2 games=2" "2 3 variant=v3" "3 4 teams=on") ;;
bombs) FILE=greedy_bombs.py BENCH_OPT="hands=2"
  MATCHES=("1 3 hands=2" "2 4 hands=1" "3 5 out_of_turn=off,hands=1") ;;
*) echo "test_greedy_examples.sh: unknown game '$GAME'" >&2; exit 2 ;;
esac
BOT="cmd:$PY $HERE/../../sdk/python/examples/$FILE"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0 fail=0
check() { # check DESCRIPTION command...
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $d"; [ -s err.txt ] && sed 's/^/  stderr: /' err.txt | tail -5
  fi
}

# ---- Choice for choice as greedy --------------------------------------------------
for m in "${MATCHES[@]}"; do
  set -- $m
  seed=$1 seats=$2 opt=$3
  others=(); for ((i = 1; i < seats; i++)); do others+=(random); done
  opts=(); for o in ${opt//,/ }; do opts+=(--opt "$o"); done
  "$ARENA" play "$GAME" "${others[@]}" greedy --seed "$seed" "${opts[@]}" --json >c.json 2>err.txt
  check "greedy plays $GAME (seed $seed, $seats seats, $opt)" test $? = 0
  "$ARENA" play "$GAME" "${others[@]}" "$BOT" --seed "$seed" "${opts[@]}" --json >p.json 2>err.txt
  check "$FILE plays $GAME (seed $seed, $seats seats, $opt)" test $? = 0
  check "$FILE plays as greedy: the same digest and scores, no fault (seed $seed, $seats seats, $opt)" \
    $PY - <<'EOF'
import json
c, p = json.load(open("c.json")), json.load(open("p.json"))
assert p["digest"] == c["digest"], (p["digest"], c["digest"])
assert [s["score"] for s in p["seats"]] == [s["score"] for s in c["seats"]], (p["seats"], c["seats"])
assert p["seats"][-1]["faults"] == 0, p["seats"][-1]
EOF
done

# ---- Better than random ---------------------------------------------------------
"$ARENA" bench "$BOT" --game "$GAME" --vs random --games 20 --seed 1 --opt "$BENCH_OPT" -q \
  --json >bp.json 2>err.txt
check "bench of $FILE against random exits 0" test $? = 0
"$ARENA" bench greedy --game "$GAME" --vs random --games 20 --seed 1 --opt "$BENCH_OPT" -q \
  --json >bc.json 2>err.txt
check "bench of greedy against random exits 0" test $? = 0
check "$FILE beats random (20 deals, seed 1): score above 1/2, the interval above 0, greedy's numbers" \
  $PY - <<'EOF'
import json
d, c = json.load(open("bp.json")), json.load(open("bc.json"))
o, g = d["opponents"][0], c["opponents"][0]
print("%s: %d matches, score %.3f, w-d-l %d-%d-%d, 95%% interval %s" % (d["game"], o["games"],
      o["score"], o["wins"], o["draws"], o["losses"], o["elo_ci95"]))
assert o["bot"] == "random" and o["faults"] == 0 and o["games"] == 20 * d["seats"], o
assert o["score"] > 0.5 and o["elo_ci95"][0] is not None and o["elo_ci95"][0] > 0, o
keys = ("games", "score", "wins", "draws", "losses", "elo_ci95")
assert [o[k] for k in keys] == [g[k] for k in keys], (o, g)
EOF

echo "$GAME: $pass passed, $fail failed"
[ "$fail" = 0 ]
