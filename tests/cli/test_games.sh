#!/usr/bin/env bash
# Every game of this build, from `arena games --json`: for every combination of
# its enum options (integers at their defaults; a combination the game refuses
# must be refused as a one-line usage error naming an option) and at its
# smallest and largest seat counts, `arena play` with random bots and, where greedy plays the game,
# greedy against random; every replay verifies with the digest play printed;
# and a short tournament of greedy and random per game. Usage: test_games.sh ARENA
set -u
ARENA=$1
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$ARENA" games --json >games.json || { echo "arena games failed"; exit 1; }
"$ARENA" bots --json >bots.json || { echo "arena bots failed"; exit 1; }
# One line per run: game seats bots options...
$PY - >plan.txt <<'PYEOF'
import itertools, json
games = json.load(open("games.json"))
bots = json.load(open("bots.json"))
greedy = {g for b in bots if b["name"] == "greedy" for g in b["games"]}
for g in games:
    enums = [o for o in g["options"] if o["kind"] == "enum"]
    combos = list(itertools.product(*[[(o["name"], v) for v in o["values"]] for o in enums])) or [()]
    seats = sorted({g["min_seats"], g["max_seats"]})
    for i, combo in enumerate(combos):
        opts = " ".join(f"--opt {k}={v}" for k, v in combo)
        # Alternate the largest and smallest tables; a combination the game
        # refuses at one seat count (exit 2) is tried at the other.
        n = seats[i % len(seats)]
        alt = seats[(i + 1) % len(seats)]
        print(g["name"], n, alt, ",".join(["random"] * n), opts)
        if g["name"] in greedy:
            print(g["name"], n, alt, ",".join(["greedy"] + ["random"] * (n - 1)), opts)
    if g["name"] in greedy:
        n = g["min_seats"]
        print("TOURNAMENT", g["name"], n, ",".join(["greedy"] + ["random"] * max(1, n - 1)))
PYEOF
pass=0 fail=0 seed=1
while read -r game n alt bots opts; do
  seed=$((seed + 1))
  if [ "$game" = TOURNAMENT ]; then
    # fields: TOURNAMENT game seats bots
    tgame=$n tseats=$alt tbots=$bots
    if "$ARENA" tournament "$tgame" --bots "$tbots" --seats "$tseats" --rounds 1 --seed "$seed" \
         --db "t$seed.db" --replays "t$seed" -q --json >t.json 2>err.txt \
       && $PY -c 'import json; d=json.load(open("t.json")); assert d["matches"]==d["planned"]>0' \
       && for f in t$seed/*.rpl; do "$ARENA" replay verify "$f" >/dev/null || exit 1; done; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1)); echo "FAIL: tournament $tgame --bots $tbots"; cat err.txt
    fi
    continue
  fi
  # shellcheck disable=SC2086
  "$ARENA" play "$game" --bots "$bots" $opts --seed "$seed" --replay m.rpl --json >p.json 2>err.txt
  rc=$?
  if [ "$rc" = 2 ] && [ "$alt" != "$n" ]; then  # refused at this seat count: the other one
    first=${bots%%,*}
    bots=$first$(printf ',random%.0s' $(seq 2 "$alt"))
    "$ARENA" play "$game" --bots "$bots" $opts --seed "$seed" --replay m.rpl --json >p.json 2>err.txt
    rc=$?
  fi
  # A combination the game refuses at every seat count is a usage error: one
  # line that names one of the options given.
  if [ "$rc" = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && [ -n "$opts" ] \
     && grep -qE "$(echo "$opts" | sed 's/--opt //g; s/=[^ ]*//g; s/ /|/g')" err.txt; then
    pass=$((pass + 1))
    continue
  fi
  if [ "$rc" = 0 ] \
     && "$ARENA" replay verify m.rpl --json >v.json \
     && $PY -c 'import json; p=json.load(open("p.json")); v=json.load(open("v.json")); assert v["ok"] and v["digest"]==p["digest"] and all(s["faults"]==0 for s in p["seats"])'; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: play $game --bots $bots $opts --seed $seed"; cat err.txt
  fi
done <plan.txt
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
