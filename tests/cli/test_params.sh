#!/usr/bin/env bash
# Parameters for every bot (docs/plugin-abi.md "Parameters", docs/protocol.md
# "Parameters"), with real processes:
#  1. A parameter the bot refuses stops the command before anything runs:
#     exit 2, one line naming the bot and the key, nothing written; for the
#     reference bots, a plugin with check_params in-process and hosted, a
#     cmd: bot (libja_client: exit 2 before its hello), and zmq: bots (the
#     arena refuses any).
#  2. Parameters reach the bot: pick.so plays the last legal action with
#     pick=last, and the match is the same (digest) in-process, hosted and as
#     cmd:, and another match without it. An ABI 1.1 plugin (no
#     check_params) loads with any parameters, unchecked.
#  3. A cmd: bot gets its parameters in $JACKARENA_PARAMS and in every
#     `start` message; they are part of its identity (replay header).
# Usage: test_params.sh ARENA PLUGINS SOURCE_DIR
set -u
ARENA=$1
P=$2
SRC=$3
PY=/usr/bin/python3
RAW="$PY $SRC/tests/proto/rawbot.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0 fail=0
T=taylor-blackjack
R="--replay x.rpl"
# Hosted reference bots come from plain (unsanitized) builds: a sanitized
# plugin cannot run in the sandbox (docs/security.md).
PLAIN="env JACKARENA_BOTS_DIR=$P/plain"

# expect_fail CODE PATTERN -- command...: exit CODE, exactly one stderr line
# matching PATTERN, empty stdout, and no file created in the work directory.
expect_fail() {
  local code=$1 pat=$2; shift 3
  local before after
  before=$(ls -A | sort)
  "$@" >out.txt 2>err.txt
  local rc=$?
  after=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' | sort)
  if [ "$rc" = "$code" ] && [ "$(wc -l <err.txt)" = 1 ] && grep -qE -- "$pat" err.txt \
     && [ ! -s out.txt ] && [ "$before" = "$after" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $* (rc=$rc, want $code, /$pat/)"; sed 's/^/  stderr: /' err.txt
  fi
  rm -f out.txt err.txt
}
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }

# 1. Refused before anything runs.
expect_fail 2 "^arena: error: bot 'random:x=1': unknown parameter 'x' \(this bot takes no parameters\)$" -- \
  "$ARENA" play $T random random:x=1 $R
expect_fail 2 "^arena: error: bot 'greedy:depth=2': unknown parameter 'depth' \(this bot takes no parameters\)$" -- \
  "$ARENA" play $T random greedy:depth=2 $R
expect_fail 2 "^arena: error: bot 'ismcts:iterz=5': unknown parameter 'iterz' \(known: iters, ms, c, nodes, rollout, anchor, verify, early, steps, horizon, drop, infer, stride\)$" -- \
  "$ARENA" play $T random ismcts:iterz=5 $R
expect_fail 2 "bot 'ismcts:iters=5:c=x': parameter 'c' must be a number from 0 to 10, not 'x'" -- \
  "$ARENA" play $T random ismcts:iters=5:c=x $R
expect_fail 2 "bot 'hosted:ismcts:iterz=5': unknown parameter 'iterz' \(known: iters," -- \
  $PLAIN "$ARENA" play $T random hosted:ismcts:iterz=5 $R
expect_fail 2 "bot 'hosted:ismcts:anchor=x': parameter 'anchor' must be auto or a number from 0 to 10, not 'x'" -- \
  $PLAIN "$ARENA" play $T random hosted:ismcts:anchor=x $R
expect_fail 2 "bot 'hosted:random:x=1': unknown parameter 'x' \(this bot takes no parameters\)" -- \
  $PLAIN "$ARENA" play $T random hosted:random:x=1 $R
expect_fail 2 "bot '$P/pick.so:pick=sideways': parameter 'pick' must be one of first, last, fail, not 'sideways'$" -- \
  "$ARENA" play $T random "$P/pick.so:pick=sideways" $R
expect_fail 2 "bot '$P/pick.so:color=red': unknown parameter 'color' \(known: pick\)$" -- \
  "$ARENA" play $T random "$P/pick.so:color=red" $R
expect_fail 2 "bot 'hosted:$P/pick.so:color=red': unknown parameter 'color' \(known: pick\)$" -- \
  "$ARENA" play $T random "hosted:$P/pick.so:color=red" $R
expect_fail 2 "bot 'mine=hosted:$P/pick.so:pick=sideways': parameter 'pick' must be one of first, last" -- \
  "$ARENA" tournament $T --bots "random,mine=hosted:$P/pick.so:pick=sideways" --db t.db --replays r
expect_fail 2 "^arena: error: bot 'pickbot' \(cmd:$P/pickbot\) refused its parameters: pickbot: unknown parameter 'color' \(known: pick\)$" -- \
  "$ARENA" play $T random "cmd[color=red]:$P/pickbot" $R
# (--no-confine: in a JA_SANITIZE build pickbot is sanitized, and confined
# its leak check cannot read /proc and turns its exit status 2 into 1.)
expect_fail 2 "bot 'pickbot' \(cmd:$P/pickbot\) refused its parameters: pickbot: parameter 'pick' must be one of first, last, fail, not 'sideways'$" -- \
  "$ARENA" tournament $T --bots "random,cmd[pick=sideways]:$P/pickbot" --db t.db --replays r --no-confine
expect_fail 2 "bot 'zmq:bot:x=1': a zmq: bot takes no parameters from the arena" -- \
  "$ARENA" play $T random zmq:bot:x=1 $R
expect_fail 2 "bot 'zmq\[x=1\]:bot': a zmq: bot takes no parameters" -- "$ARENA" play $T random "zmq[x=1]:bot" $R
expect_fail 2 "bot 'ismcts:': no parameters after ':'" -- "$ARENA" play $T random ismcts: $R
expect_fail 2 "bot '$P/pick.so:': no parameters after ':'" -- "$ARENA" play $T random "$P/pick.so:" $R
expect_fail 2 "bot 'cmd\[\]:x': no parameters in 'cmd\[\]'" -- "$ARENA" play $T random "cmd[]:x" $R
expect_fail 2 "write parameters of a command as cmd\[KEY=VALUE:...\]:COMMAND" -- \
  "$ARENA" play $T random "cmd[a=1 x" $R
long=$(printf 'k%.0s' $(seq 300))
expect_fail 2 "bot 'random:$long=1': parameters too long \(at most 255 bytes\)" -- \
  "$ARENA" play $T random "random:$long=1" $R
# A file that exists is a file, whatever ':' it holds; a missing one with a
# ':' after its last '/' is split there.
mkdir -p 'd:x' && cp "$P/pick.so" 'd:x/pick:1.so' && cp "$P/pick.so" 'd:x/pick1.so'
"$ARENA" play $T random 'd:x/pick:1.so' --seed 1 --opt games=1 -q >/dev/null 2>&1
check "a file whose name holds ':' loads without parameters" test $? = 0
expect_fail 2 "bot 'd:x/pick1.so:pick=x': parameter 'pick' must be one of first, last, fail, not 'x'" -- \
  "$ARENA" play $T random 'd:x/pick1.so:pick=x' $R
expect_fail 2 "bot plugin 'd:x/gone.so': No such file" -- "$ARENA" play $T random 'd:x/gone.so:pick=last' $R
rm -rf 'd:x'

# 2. Parameters reach the bot, the same way in every seat kind.
digest() { # digest BOT: the digest of one match of BOT against random
  "$ARENA" play $T "$1" random --seed 5 --opt games=1 --move-ms 0 --json 2>>log.txt |
    $PY -c 'import json, sys; print(json.load(sys.stdin)["digest"])'
}
first=$(digest "$P/pick.so")
last=$(digest "$P/pick.so:pick=last")
check "pick=last plays another match than the default" test -n "$first" -a -n "$last" -a "$first" != "$last"
check "pick=first is the default" test "$(digest "$P/pick.so:pick=first")" = "$first"
check "hosted:pick.so:pick=last: the same match as in-process" test "$(digest "hosted:$P/pick.so:pick=last")" = "$last"
check "hosted:pick.so: the default" test "$(digest "hosted:$P/pick.so")" = "$first"
check "cmd[pick=last]:pickbot: the same match as in-process" test "$(digest "cmd[pick=last]:$P/pickbot")" = "$last"
check "cmd:pickbot: the default" test "$(digest "cmd:$P/pickbot")" = "$first"
check "an ABI 1.1 plugin gets its parameters" test "$(digest "$P/pick11.so:pick=last")" = "$last"
check "an ABI 1.1 plugin's parameters are unchecked" test "$(digest "$P/pick11.so:color=red")" = "$first"
check "... hosted too" test "$(digest "hosted:$P/pick11.so:color=red:pick=last")" = "$last"
# An act() that returns an error is an `error` fault, whatever carries it
# (the hosted child and the C client answer `action` with `error`).
kinds() { # kinds BOT: the faults of seat 0 by kind, and the digest
  "$ARENA" play $T "$1" random --seed 5 --opt games=1 --move-ms 0 --max-faults 0 --json 2>>log.txt |
    $PY -c 'import json, sys; d = json.load(sys.stdin); print(sorted(d["seats"][0]["fault_kinds"].items()), d["digest"])'
}
fails=$(kinds "$P/pick.so:pick=fail")
check "pick=fail in-process: error faults only" $PY -c "
import sys; k = sys.argv[1]; assert k.startswith(\"[('error', \") and 'protocol' not in k, k" "$fails"
check "... hosted: the same faults and match" test "$(kinds "hosted:$P/pick.so:pick=fail")" = "$fails"
check "... as cmd:, through the C client: the same" test "$(kinds "cmd[pick=fail]:$P/pickbot")" = "$fails"
# Two parameter sets of one plugin are two participants of one tournament.
"$ARENA" tournament $T --bots "$P/pick.so,$P/pick.so:pick=last,random" --seats 2 --opt games=1 \
  --seed 3 --db t.db --json -q >t.json 2>>log.txt
check "a tournament of pick, pick:pick=last and random exits 0" test $? = 0
check "two participants for the two parameter sets, versions VERSION:PARAMS" $PY -c '
import sqlite3; c = sqlite3.connect("t.db")
rows = sorted(c.execute("SELECT p.name, b.version FROM participants p JOIN bots b ON b.id = p.bot_id"))
assert ("pick", "1.0") in rows and ("pick#2", "1.0:pick=last") in rows, rows'

# 3. A cmd: bot's parameters: environment, start messages, identity.
"$ARENA" play $T random "cmd[a=1:b=x y]:echo \"\$JACKARENA_PARAMS\" >env.txt; exec $RAW --log raw.log" \
  --seed 2 --opt games=1 --move-ms 0 --replay m.rpl -q >/dev/null 2>>log.txt
check "play with cmd[a=1:b=x y] exits 0" test $? = 0
check "\$JACKARENA_PARAMS holds the parameters" test "$(cat env.txt)" = "a=1:b=x y"
check "every start message carries them" $PY -c '
import json
starts = [json.loads(l) for l in open("raw.log") if json.loads(l)["type"] == "start"]
assert starts and all(s["params"] == "a=1:b=x y" for s in starts), starts'
check "the replay header: version VERSION:PARAMS for cmd: and plugin" $PY -c '
import msgpack
h = next(iter(msgpack.Unpacker(open("m.rpl", "rb"), raw=False)))
v = [p["version"] for p in h["players"]]
assert v == ["1.0", "1.0:a=1:b=x y"], v'
"$ARENA" play $T "hosted:$P/pick.so:pick=last" random --seed 2 --opt games=1 --move-ms 0 --replay h.rpl \
  -q >/dev/null 2>>log.txt
check "the replay header: version VERSION:PARAMS for hosted:" $PY -c '
import msgpack
h = next(iter(msgpack.Unpacker(open("h.rpl", "rb"), raw=False)))
assert h["players"][0]["kind"] == "hosted" and h["players"][0]["version"] == "1.0:pick=last", h["players"]'
"$ARENA" play $T random "cmd:$RAW --log raw2.log" --seed 2 --opt games=1 --move-ms 0 -q >/dev/null 2>>log.txt
check "without parameters, start carries params \"\"" $PY -c '
import json
starts = [json.loads(l) for l in open("raw2.log") if json.loads(l)["type"] == "start"]
assert starts and all(s["params"] == "" for s in starts), starts'
# The C client alone: --params, and the exit-2 contract outside the arena.
"$P/pickbot" --params color=red >out.txt 2>err.txt
rc=$?
check "pickbot --params color=red: exit 2, one line, before connecting" \
  test "$rc" = 2 -a "$(cat err.txt)" = "pick: unknown parameter 'color' (known: pick)" -a ! -s out.txt
JACKARENA_PARAMS=pick=no "$P/pickbot" >out.txt 2>err.txt
rc=$?
check "pickbot with JACKARENA_PARAMS=pick=no: exit 2" \
  test "$rc" = 2 -a "$(cat err.txt)" = "pick: parameter 'pick' must be one of first, last, fail, not 'no'"
rm -f out.txt err.txt

if [ "$fail" != 0 ]; then sed 's/^/  log: /' log.txt | tail -20; fi
echo "params: $pass passed, $fail failed"
[ "$fail" = 0 ]
