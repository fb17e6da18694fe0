#!/usr/bin/env bash
# The Python SDK with the real arena (docs/python.md).
# Usage: test_sdk.sh CASE ARENA [LIBJACKARENA]
#   errors   a bot whose act() raises is charged `error` faults (play --json,
#            the exported decisions, the replay), never index 0 unnoticed
#   conformance  `arena conformance` fails a bot that raises, naming `error`;
#            passes a Bombs-only bot, skipping the other games
#   games    a bot with games = ["bombs"] is refused for another game, plays Bombs
#   params   refused $JACKARENA_PARAMS: exit 2 and one line before the hello
#            (the arena reports it); good ones reach match.params
#   flat_mc  sdk/python/examples/flat_mc.py plays a short match of every game
#            without a fault; refuses bad parameters
#   flat_mc_bench  (slow) flat_mc beats random on duplicate deals (arena bench)
#            with a 95% interval above 0, in BrawlJack and Jack in the Box
set -u
CASE=$1
ARENA=$2
# The forward model (flat_mc) loads this build's library, whatever else exists.
[ -n "${3:-}" ] && export JACKARENA_LIB=$3
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
BOT="$PY $HERE/testbot.py"
T=taylor-blackjack
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0 fail=0
check() { # check DESCRIPTION command...
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $d"; [ -s err.txt ] && sed 's/^/  stderr: /' err.txt | tail -5
  fi
}

case "$CASE" in
errors)
  # --max-faults 0: never forfeit, so every decision of the bot is asked.
  "$ARENA" play $T random "cmd:$BOT bombsonly" --seed 5 --opt games=1 --max-faults 0 \
    --replay m.rpl --export-decisions d.mp --json >p.json 2>err.txt
  check "a match with a raising bot finishes (exit 0)" test $? = 0
  check "every decision of the bot is an error fault, in play --json and the export" $PY - <<'EOF'
import json, msgpack
d = json.load(open("p.json"))
bot = d["seats"][1]
recs = [r for r in msgpack.Unpacker(open("d.mp", "rb"), raw=False) if r["type"] == "decision"]
mine = [r for r in recs if r["seat"] == 1]
assert mine and all(r["fault"] == "error" and r["index"] == -1 for r in mine), mine[:2]
assert all(r["fault"] == "none" for r in recs if r["seat"] == 0)
assert bot["faults"] == len(mine) and bot["fault_kinds"] == {"error": len(mine)}, (bot, len(mine))
assert d["seats"][0]["faults"] == 0, d
EOF
  check "the replay verifies" bash -c "\"$ARENA\" replay verify m.rpl >/dev/null"
  # The SDK sends the error's code (JA_EBOT for an exception): the fault is
  # named by it, as a C bot's.
  check "the replay names the faults' code, JA_EBOT" bash -c \
    "\"$ARENA\" replay show m.rpl | grep -q 'FAULT: error (act() returned JA_EBOT)'"
  check "the bot's stderr has the traceback" grep -q "KeyError: 'actor'" err.txt
  "$ARENA" play $T random "cmd:$BOT acterror" --seed 5 --opt games=1 --max-faults 0 \
    --replay a.rpl >a.txt 2>err.txt
  check "an ActError's code names its fault (JA_EINVAL, then code 7)" bash -c \
    "grep -q 'error fault, act() returned JA_EINVAL' a.txt && grep -q 'act() returned code 7' a.txt"
  # An index out of range is sent as is: the referee charges `illegal`.
  "$ARENA" play $T random "cmd:$BOT range" --seed 5 --opt games=1 --max-faults 0 --json >r.json 2>err.txt
  check "an index out of range is an illegal fault" $PY -c '
import json; d = json.load(open("r.json")); k = d["seats"][1]["fault_kinds"]
assert list(k) == ["illegal"] and k["illegal"] > 0, d'
  # Exceptions in start(): every decision of the match is an error.
  "$ARENA" play $T random "cmd:$BOT startfail" --seed 5 --opt games=1 --max-faults 0 --json >s.json 2>err.txt
  check "start() raising makes every decision an error fault" $PY -c '
import json; d = json.load(open("s.json")); k = d["seats"][1]["fault_kinds"]
assert list(k) == ["error"] and k["error"] > 0, d'
  # end() raising is only logged: no fault.
  "$ARENA" play $T random "cmd:$BOT endfail" --seed 5 --opt games=1 --json >e.json 2>err.txt
  check "end() raising is logged, no fault" bash -c \
    "$PY -c 'import json; d = json.load(open(\"e.json\")); assert d[\"seats\"][1][\"faults\"] == 0, d' && grep -q 'end() failed in match play' err.txt"
  ;;

conformance)
  "$ARENA" conformance "cmd:$BOT raise" --game $T --move-ms 10000 >conf.txt 2>err.txt
  rc=$?
  check "conformance fails a raising bot (exit 1), naming error faults" \
    bash -c "[ $rc = 1 ] && grep -q 'FAIL  $T: [0-9]* faults in [0-9]* matches (error [0-9]*)$' conf.txt && tail -1 conf.txt | grep -qx 'not conformant: 1 problem'"
  "$ARENA" conformance "cmd:$BOT bombsonly" --move-ms 10000 >conf.txt 2>err.txt
  echo $? >rc.txt
  "$ARENA" games --json >games.json
  check "conformance fails a Bombs-only bot without games in every other game" $PY - <<'EOF'
import json, re
games = [g["name"] for g in json.load(open("games.json"))]
lines = open("conf.txt").read().splitlines()
assert open("rc.txt").read().strip() == "1", lines
for g in games:
    line = [l for l in lines if re.match(r"  (ok|FAIL)  +%s:" % g, l)]
    assert len(line) == 1, (g, lines)
    if g == "bombs":
        assert line[0].startswith("  ok    bombs:"), line
    else:
        assert re.fullmatch(r"  FAIL  %s: \d+ faults in \d+ matches \(error \d+\)" % g, line[0]), line
n = len(games) - 1
assert lines[-1] == "not conformant: %d problem%s" % (n, "" if n == 1 else "s"), lines[-1]
EOF
  "$ARENA" conformance "cmd:$BOT bombs" --move-ms 10000 >conf.txt 2>err.txt
  rc=$?
  check "conformance passes the bot that says games=[bombs], skipping the others" \
    bash -c "[ $rc = 0 ] && grep -q '^  skip  $T: ' conf.txt && grep -q '^  ok    bombs:' conf.txt && tail -1 conf.txt | grep -qx conformant"
  ;;

games)
  "$ARENA" play $T random "cmd:$BOT bombs" >out.txt 2>err.txt
  rc=$?
  check "a bombs-only bot is refused for $T: exit 2, one line naming it" \
    bash -c "[ $rc = 2 ] && grep -qx \"arena: error: bot 'testbot' does not play $T (its hello lists the games it plays)\" err.txt && [ ! -s out.txt ]"
  "$ARENA" tournament $T --bots random,random --bot "cmd:$BOT bombs" --seats 2 --db t.db >out.txt 2>err.txt
  rc=$?
  check "and in a tournament, before anything is written" bash -c "[ $rc = 2 ] && [ ! -e t.db ]"
  "$ARENA" play bombs random random "cmd:$BOT bombs" --seed 2 --opt hands=1 --json >b.json 2>err.txt
  check "it plays Bombs" bash -c "[ $? = 0 ] && $PY -c 'import json; d = json.load(open(\"b.json\")); assert d[\"seats\"][2][\"faults\"] == 0, d'"
  ;;

params)
  "$ARENA" play $T random "cmd:JACKARENA_PARAMS=depth=0 $BOT params" >out.txt 2>err.txt
  rc=$?
  check "refused parameters: the bot exits 2 before its hello, the arena says so (exit 2)" \
    bash -c "[ $rc = 2 ] && grep -q \"exited with status 2 before saying hello\" err.txt"
  check "the bot's one line is on stderr" \
    grep -qx "testbot: bad parameters 'depth=0': parameter 'depth' must be an integer from 1 to 9, not '0'" err.txt
  JACKARENA_PARAMS="style=loud" $BOT params >out.txt 2>err.txt
  rc=$?
  check "run by hand: exit 2, exactly one line, nothing on stdout" \
    bash -c "[ $rc = 2 ] && [ \$(wc -l <err.txt) = 1 ] && [ ! -s out.txt ] && grep -q \"parameter 'style' must be one of calm, wild, not 'loud'\" err.txt"
  "$ARENA" play $T random "cmd:JACKARENA_PARAMS=depth=4:style=calm $BOT params --log log.jsonl" \
    --seed 1 --opt games=1 --json >p.json 2>err.txt
  check "good parameters: the match is played" test $? = 0
  check "they reach match.params" $PY -c '
import json
starts = [json.loads(l) for l in open("log.jsonl")]
starts = [e for e in starts if e["event"] == "start"]
assert [e["params"] for e in starts] == [{"depth": "4", "style": "calm"}], starts'
  ;;

flat_mc)
  FMC="$PY $HERE/../../sdk/python/examples/flat_mc.py"
  for spec in "taylor-blackjack 2 games=1" "brawljack 3 hands=1" "bruise-jack 2 hands=1" \
              "jack-in-the-box 4 teams=on" "bombs 4 hands=1"; do
    set -- $spec
    bots=(); for ((i = 1; i < $2; i++)); do bots+=(random); done
    "$ARENA" play "$1" "${bots[@]}" "cmd:JACKARENA_PARAMS=samples=2:steps=5000 $FMC" --opt "$3" \
      --seed 3 --json >fm.json 2>err.txt
    check "flat_mc plays $1 without a fault" bash -c \
      "[ $? = 0 ] && $PY -c 'import json; d = json.load(open(\"fm.json\")); assert d[\"seats\"][-1][\"faults\"] == 0 and d[\"seats\"][-1][\"bot\"] == \"flat_mc\", d'"
  done
  JACKARENA_PARAMS=samples=0 $FMC >out.txt 2>err.txt
  check "flat_mc refuses samples=0 (exit 2, one line)" bash -c \
    "[ $? = 2 ] && grep -qx \"flat_mc: bad parameters 'samples=0': parameter 'samples' must be an integer from 1 to 1000, not '0'\" err.txt"
  ;;

flat_mc_bench)
  FMC="cmd:$PY $HERE/../../sdk/python/examples/flat_mc.py"
  for spec in "brawljack 100" "jack-in-the-box 60"; do
    set -- $spec
    "$ARENA" bench "$FMC" --game "$1" --vs random --games "$2" --seed 1 --json >"$1.json" 2>err.txt
    check "bench of flat_mc against random in $1 runs" test $? = 0
    check "flat_mc beats random in $1: the 95% interval of the Elo difference is above 0" \
      $PY - "$1.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
o = d["opponents"][0]
print("%s: %d deals, score %.3f, Elo %s, 95%% interval %s" % (d["game"], o["deals"], o["score"],
      o["elo_diff"], o["elo_ci95"]))
assert o["bot"] == "random" and o["faults"] == 0 and o["deals"] == int(sys.argv[2]), o
assert o["elo_ci95"][0] is not None and o["elo_ci95"][0] > 0, o
EOF
  done
  ;;

*)
  echo "test_sdk.sh: unknown case '$CASE'" >&2
  exit 2
  ;;
esac
echo "$CASE: $pass passed, $fail failed"
[ "$fail" = 0 ]
