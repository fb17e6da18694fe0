#!/usr/bin/env bash
# `hosted:` bots: plugins run in ja_host's sandbox (docs/security.md).
#  1. A round-robin tournament of fault-injection bots (plugins/evil.c), each
#     hosted, with the reference bots: every match finishes, every fault is
#     charged to the bot that made it with the right kind, the reference bots
#     keep clean results, and no child process is left behind.
#  2. Opening a file, connecting a socket and executing a program are stopped
#     by the seccomp filter and counted as `resource` faults (in 1).
#  3. The same random plugin hosted and in-process makes the same choices
#     for the same seed: the same replay digests.
#  4. The survivable misbehaviour in-process (an index out of range) gives
#     the same fault kind as hosted.
#  5. Bad hosted: specifiers are refused before anything is written.
#  6. The channel (plugins/channel.c): packets a bot forges on fd 3 cost one
#     fault each, of the right kind, and never shift a later answer; a bot
#     that closes fd 3 and lives on is a `disconnect`.
#  7. A decision with no answer applied is recorded with i = -1 (and `a`
#     when the bot was asked); such replays verify, their reproduction
#     bundles number the turns right, and a replay written before this rule
#     (tests/fuzz/corpus/replay/old-faults-2p.rpl: i = 0 for a timeout)
#     still verifies, shows and renders.
# Usage: test_hosted.sh ARENA PLUGIN_DIR
set -u
ARENA=$1
P=$2
PY=/usr/bin/python3
CORPUS=$(cd "$(dirname "$0")/../fuzz/corpus/replay" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# The plugins are run from a copy of this test's own: the children it
# checks for are then its own (tests/unit/test_seat_hosted.c runs the same
# plugins hosted, perhaps at the same time under ctest -j).
mkdir pl && cp "$P"/*.so pl/ && P=$(pwd -P)/pl
pass=0 fail=0
T=taylor-blackjack
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }
expect_fail() { # expect_fail CODE PATTERN -- command...: one stderr line, no file written
  local code=$1 pat=$2; shift 3
  local before; before=$(ls -A | sort)
  "$@" >out.txt 2>err.txt
  local rc=$?
  local after; after=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' | sort)
  if [ "$rc" = "$code" ] && [ "$(wc -l <err.txt)" = 1 ] && grep -qE -- "$pat" err.txt \
     && [ ! -s out.txt ] && [ "$before" = "$after" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: $* (rc=$rc, want $code, /$pat/)"; sed 's/^/  stderr: /' err.txt
  fi
  rm -f out.txt err.txt
}

# A small address space so that the hog hits it at once.
export JACKARENA_HOSTED_MEM_MB=256

# 1 and 2. Expected kinds: each bot's faults are these plus `forfeit` once it
# passes --max-faults in a match (the child is gone: every later decision of
# the match is a fault without asking).
declare -A want=([segv]=crash [loop]=timeout [abort]=crash [hog]=resource [forkbomb]=resource
                 [badindex]=illegal [sleeper]=timeout [openfile]=resource [connect]=resource
                 [exec]=resource [garbage]=)
# --move-ms 500: the wall-time hard stop is then 1.1 s, far beyond what a
# loaded CI machine delays a bot that answers at once (garbage, random,
# greedy must show no fault), while loop and sleeper still die quickly.
bots=random,greedy
for k in "${!want[@]}"; do bots="$bots,hosted:$P/$k.so"; done
"$ARENA" tournament $T --bots "$bots" --format gauntlet --seats 2 --move-ms 500 --seed 7 --opt games=1 \
  --jobs 2 --db t.db --json -q >t.json 2>t.err
check "fault tournament exits 0" test $? = 0
sed 's/^/  stderr: /' t.err | head -5
check "every planned match finished" $PY -c '
import json; d = json.load(open("t.json"))
assert d["matches"] == d["planned"] > 0, d'
# ja_host's argv[0] is "ja_host"; the pattern cannot match pgrep itself.
check "no child process left behind" test -z "$(pgrep -f -- "^ja_host .*$P/")"
spec=""
for k in "${!want[@]}"; do spec="$spec$k=${want[$k]};"; done
check "every fault charged to its bot with the right kind, others clean" $PY - "$spec" <<'PYEOF'
import sqlite3, sys
want = dict(kv.split("=") for kv in sys.argv[1].strip(";").split(";"))
db = sqlite3.connect("t.db")
got = {}
for name, kind, n in db.execute(
        "SELECT b.name, f.kind, SUM(f.count) FROM result_faults f "
        "JOIN results r ON r.match_id = f.match_id AND r.seat = f.seat "
        "JOIN bots b ON b.id = r.bot_id GROUP BY b.name, f.kind"):
    got.setdefault(name, set()).add(kind)
n_results, n_matches = db.execute(
    "SELECT (SELECT COUNT(*) FROM results), (SELECT COUNT(*) FROM matches)").fetchone()
assert n_results == 2 * n_matches, (n_results, n_matches)
for bot in ("random", "greedy", "garbage"):
    assert bot not in got, (bot, got.get(bot))
for bot, kind in want.items():
    if kind:
        assert got.get(bot) == {kind, "forfeit"}, (bot, got.get(bot), kind)
# The reference bots' results are all there: random played every other bot
# (in both seats), greedy random.
for bot, n_want in (("random", 2 * (len(want) + 1)), ("greedy", 2)):
    n = db.execute("SELECT COUNT(*) FROM results r JOIN bots b ON b.id = r.bot_id "
                   "WHERE b.name = ?", (bot,)).fetchone()[0]
    assert n == n_want, (bot, n, n_want)
PYEOF

# 3. Hosted and in-process, the same choices: the same replays' digests.
digests() {
  for f in "$1"/*.rpl; do "$ARENA" replay verify "$f" --json || return 1; done |
    $PY -c 'import json, sys; print(sorted(json.loads(l)["digest"] for l in sys.stdin))'
}
"$ARENA" tournament $T --bots "r=$P/ja_random.so,greedy" --seed 9 --rounds 2 --db a.db \
  --replays a -q >/dev/null 2>&1
check "in-process random exits 0" test $? = 0
"$ARENA" tournament $T --bots "r=hosted:$P/ja_random.so,greedy" --seed 9 --rounds 2 --db b.db \
  --replays b -q >/dev/null 2>&1
check "hosted random exits 0" test $? = 0
da=$(digests a) db=$(digests b)
check "hosted and in-process random: the same digests" test -n "$da" -a "$da" = "$db"
"$ARENA" tournament $T --bots "r=hosted:$P/ja_random.so,greedy" --seed 10 --rounds 2 --db c.db \
  --replays c -q >/dev/null 2>&1
check "another seed, other digests" test "$(digests c)" != "$da"

# 4. Out-of-range index in-process: the same kind, counted the same way.
"$ARENA" tournament $T --bots "random,$P/badindex.so" --seed 7 --opt games=1 --db i.db --json -q \
  >i.json 2>/dev/null
check "in-process badindex: illegal faults, all matches" $PY -c '
import json; d = json.load(open("i.json"))
assert d["matches"] == d["planned"] and set(d["fault_kinds"]) == {"illegal", "forfeit"}, d'

# 4b. Reading files while loading: a constructor that reads a file of the
# arena's working directory (here a stand-in for the ladder database, whose
# tournament seed gives away every deal). In-process it can (the control:
# illegal answers); hosted, Landlock limits the loader's reads to the system
# libraries and the plugin file, so it cannot and plays cleanly.
printf 'the tournament seed\n' >secret.txt
"$ARENA" tournament $T --bots "random,$P/peek.so" --seed 7 --opt games=1 --db p1.db --json -q \
  >p1.json 2>/dev/null
check "peek in-process reads the file (control)" $PY -c '
import json; d = json.load(open("p1.json")); assert d["fault_kinds"].get("illegal", 0) > 0, d'
"$ARENA" tournament $T --bots "random,hosted:$P/peek.so" --seed 7 --opt games=1 --db p2.db --json -q \
  >p2.json 2>/dev/null
if $PY -c 'import ctypes, sys; sys.exit(0 if ctypes.CDLL(None).syscall(444, None, 0, 1) >= 1 else 1)'; then
  check "peek hosted cannot read it while loading (Landlock)" $PY -c '
import json; d = json.load(open("p2.json")); assert d["matches"] == d["planned"] and d["faults"] == 0, d'
else
  echo "note: this kernel has no Landlock; reads while loading are not restricted (docs/security.md)"
fi
rm -f secret.txt

# 5. Bad specifiers: one line, exit 2, nothing written.
expect_fail 2 "names no plugin file after 'hosted:'" -- "$ARENA" tournament $T --bots random,hosted:
expect_fail 2 "bot plugin 'nope.so': No such file" -- "$ARENA" tournament $T --bots random,hosted:nope.so
printf 'not an elf' >junk.so
expect_fail 2 "^arena: error: bot plugin 'junk.so': not an ELF file$" -- "$ARENA" tournament $T --bots random,hosted:junk.so
rm -f junk.so
expect_fail 2 "JACKARENA_HOSTED_MEM_MB='lots'" -- env JACKARENA_HOSTED_MEM_MB=lots "$ARENA" tournament $T --bots random,hosted:$P/segv.so
expect_fail 2 "host program .*missing" -- env JACKARENA_HOST=/nonexistent/ja_host "$ARENA" tournament $T --bots random,hosted:$P/segv.so

verifies() { "$ARENA" replay verify "$1" >/dev/null; }
# Seat S's entries of a replay that the bot had a choice in, one JSON line
# each with its turn (forfeits and fallen flags get none).
entries() {
  $PY - "$1" "$2" <<'PYEOF'
import json, msgpack, sys
turn = 0
for r in msgpack.Unpacker(open(sys.argv[1], "rb"), raw=False):
    if r.get("t") != "d":
        continue
    for e in r["asked"]:
        if e["s"] != int(sys.argv[2]) or e["n"] == 1:
            continue
        asked = e["f"] == "none" or e.get("a") == 1
        if asked:
            turn += 1
        e["turn"] = turn if asked else None
        print(json.dumps(e))
PYEOF
}

# 6. Forged packets: turn 2 an `action` for turn 1, turn 4 one for turn 9,
# turn 6 garbage, turn 8 one for turn 8 itself with another index (the
# bot's answer: it counts, and the child's own answer after it is the
# stray packet). The bot's choice tells its turn: (7 turn + 3) mod n.
"$ARENA" play $T "hosted:$P/forge.so" random --seed 3 --replay f.rpl --json >f.json 2>f.err
check "forge: the match finishes (exit 0)" test $? = 0
entries f.rpl 0 >f.txt
check "forge: one fault per forged packet, of its kind; no answer shifted" $PY - <<'PYEOF'
import json
want = {2: "protocol", 4: "protocol", 6: "malformed", 9: "protocol"}
es = [json.loads(l) for l in open("f.txt")]
assert len(es) > 20 and all(e["turn"] for e in es), es[:3]
for e in es:
    t, n = e["turn"], e["n"]
    if t in want:
        assert e["f"] == want[t] and e["i"] == -1 and e["a"] == 1, e
    elif t == 8:
        assert e["f"] == "none" and e["i"] == ((7 * t + 3) % n + 1) % n, e
    else:
        assert e["f"] == "none" and e["i"] == (7 * t + 3) % n, e
d = json.load(open("f.json"))
s = d["seats"][0]
assert s["faults"] == 4 and s["fault_kinds"] == {"protocol": 3, "malformed": 1}, s
assert d["seats"][1]["faults"] == 0, d
PYEOF
check "forge: the replay verifies" verifies f.rpl

# A bot that closes fd 3 in act() and returns: its answer cannot be sent,
# the process lives on; `disconnect` (not `crash`), then the same fault
# without asking until it forfeits.
"$ARENA" play $T "hosted:$P/close.so" random --seed 3 --replay c.rpl --json >c.json 2>c.err
check "close: the match finishes (exit 0)" test $? = 0
entries c.rpl 0 >c.txt
check "close: disconnect at turn 2, then disconnect or forfeit only" $PY - <<'PYEOF'
import json
es = [json.loads(l) for l in open("c.txt")]
assert es[0]["f"] == "none" and es[1]["f"] == "disconnect" and es[1]["turn"] == 2, es[:2]
assert {e["f"] for e in es[1:]} <= {"disconnect", "forfeit"}, {e["f"] for e in es}
d = json.load(open("c.json"))
assert set(d["seats"][0]["fault_kinds"]) == {"disconnect", "forfeit"}, d
r = json.load(open("c.repro.json"))
assert "the bot closed its channel" in r["faulty"][0]["stderr_tail"], r["faulty"][0]
PYEOF

# 7. Timeouts: the sleeper sleeps 3 times its allowance at turn 2 and is
# killed at the hard stop. With --move-ms 500 every later decision of the
# dead child is asked and a timeout; with only a bank (--move-ms 0
# --bank-ms 1000) the flag falls and later decisions are not asked. (The
# limits leave a loaded machine room for the first, prompt answer, as in 1.)
"$ARENA" play $T "hosted:$P/sleeper.so" random --move-ms 500 --max-faults 0 --opt games=1 \
  --seed 5 --replay t.rpl --json >t1.json 2>t1.err
check "timeout: the match finishes (exit 0)" test $? = 0
entries t.rpl 0 >t.txt
check "timeout: i = -1 for every timeout, asked" $PY - <<'PYEOF'
import json
es = [json.loads(l) for l in open("t.txt")]
assert es[0]["f"] == "none" and es[0]["i"] >= 0, es[0]
assert len(es) > 2 and all(e["f"] == "timeout" and e["i"] == -1 and e["a"] == 1
                           for e in es[1:]), es[:3]
PYEOF
check "timeout: the replay verifies" verifies t.rpl
"$ARENA" play $T "hosted:$P/sleeper.so" random --move-ms 0 --bank-ms 1000 --max-faults 0 \
  --opt games=1 --seed 5 --replay b.rpl --json >b.json 2>b.err
check "fallen flag: the match finishes (exit 0)" test $? = 0
entries b.rpl 0 >b.txt
check "fallen flag: one asked timeout, then timeouts not asked; the bundle has 2 turns" $PY - <<'PYEOF'
import json
es = [json.loads(l) for l in open("b.txt")]
assert es[1]["f"] == "timeout" and es[1]["i"] == -1 and es[1]["turn"] == 2, es[1]
assert len(es) > 3 and all(e["f"] == "timeout" and e["i"] == -1 and "a" not in e
                           for e in es[2:]), es[2:4]
r = json.load(open("b.repro.json"))
seat0 = [f for f in r["faulty"] if f["seat"] == 0][0]
got = [(x["turn"], x["fault"], x["index"]) for x in seat0["decisions"]]
assert got == [(1, "none", es[0]["i"]), (2, "timeout", -1)], got
PYEOF
check "fallen flag: the replay verifies" verifies b.rpl
# Written by the release before: a timeout with i = 0, fallen flags, illegal
# answers with i = 0, no `a`.
old=$CORPUS/old-faults-2p.rpl
check "old replay: verifies, with its recorded digest" $PY - "$ARENA" "$old" <<'PYEOF'
import json, msgpack, subprocess, sys
out = subprocess.run([sys.argv[1], "replay", "verify", sys.argv[2], "--json"],
                     capture_output=True, text=True)
assert out.returncode == 0, out
end = list(msgpack.Unpacker(open(sys.argv[2], "rb"), raw=False))[-1]
assert json.loads(out.stdout)["digest"] == end["digest"], (out.stdout, end)
PYEOF
check "old replay: shows" "$ARENA" replay show "$old" >/dev/null
check "old replay: renders" "$ARENA" replay html "$old" -o old.html
check "no child process left behind (channel, timeouts)" test -z "$(pgrep -f -- "^ja_host .*$P/")"

echo "sandbox_hosted: $pass passed, $fail failed"
[ "$fail" = 0 ]
