#!/usr/bin/env bash
# Time control and the fault model (docs/faults.md): in-process plugins that
# answer out of range, return errors, burn CPU or sleep far beyond a tiny
# limit; every match finishes, every fault is attributed to the right bot
# with the right kind, every other result stands; --bank-ms, --on-fault,
# reproduction bundles, fault counts in standings and the ladder, and
# --restart of a crashed cmd: bot. No timing is asserted: the slow answers
# are 300 ms of CPU and 600 ms of sleep against a 50 ms limit, and a test
# only relies on a slow answer being slow.
# Usage: test_faults.sh ARENA PLUGINS SOURCE_DIR
set -u
ARENA=$1
PLUG=$2
SRC=$3
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0 fail=0
T=taylor-blackjack
G1="--opt games=1"

check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }
expect_fail() { # expect_fail CODE PATTERN -- command...: one stderr line, nothing written
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

# Bad flags.
expect_fail 2 "--on-fault 'later': use default, random or forfeit" -- "$ARENA" play $T random random --on-fault later
expect_fail 2 "--bank-ms needs a number" -- "$ARENA" play $T random random --bank-ms soon
expect_fail 2 "--on-fault 'x'" -- "$ARENA" tournament $T --bots random,random --on-fault x --db t.db

# Without a limit nothing depends on the clock: the slow bot is not faulted.
"$ARENA" play $T random "$PLUG/slow.so" --seed 3 $G1 --replay n.rpl --json >n.json 2>/dev/null
check "no limit: no fault, no bundle" $PY -c 'import json,os; d=json.load(open("n.json")); assert all(s["faults"]==0 for s in d["seats"]) and "repro" not in d and not os.path.exists("n.repro.json"), d'

# A 50 ms limit: the CPU-bound answer (judged on CPU time) and the sleeping
# one (wall time past 4x the limit) are timeouts, judged after the fact.
"$ARENA" play $T random "$PLUG/slow.so" --seed 3 $G1 --move-ms 50 --replay s.rpl --json >s.json 2>/dev/null
check "slow plugin: match finishes (exit 0)" test $? = 0
check "slow plugin: timeouts only, attributed to it" $PY -c '
import json; d=json.load(open("s.json")); r, s = d["seats"]
assert r["faults"] == 0 and s["faults"] >= 2 and set(s["fault_kinds"]) == {"timeout"}, d
assert d["repro"] == "s.repro.json", d'
check "slow plugin: replay verifies" "$ARENA" replay verify s.rpl
check "bundle: seed, command, hashes, the slow decisions, the log tail" $PY -c '
import json, base64, msgpack
b = json.load(open("s.repro.json"))
assert b["format"] == "jackarena-repro" and b["seed"] == "3" and b["move_ms"] == 50, b
assert "arena play taylor-blackjack random" in b["command"] and "--seed 3" in b["command"] and "--move-ms 50" in b["command"]
assert all(len(x["sha256"]) == 64 for x in b["bots"])
[f] = b["faulty"]
assert f["name"] == "slow" and f["seat"] == 1 and "spinning" in f["stderr_tail"] and "sleeping" in f["stderr_tail"]
late = [x for x in f["decisions"] if x["fault"] == "timeout"]
assert [x["turn"] for x in late[:2]] == [1, 2], late
act = msgpack.unpackb(base64.b64decode(f["decisions"][0]["act_msgpack_b64"]), raw=False)
assert act["type"] == "act" and act["turn"] == 1 and len(act["legal"]) == len(f["decisions"][0]["legal"])
assert f["decisions"][0]["obs"]["seat"] == 1'
# The bundle's command plays the same match again: the same digest.
cmd=$($PY -c 'import json; print(json.load(open("s.repro.json"))["command"])')
eval "\"$ARENA\" ${cmd#arena } --json" >again.json 2>/dev/null
check "bundle command replays the match (same digest)" $PY -c '
import json; a=json.load(open("s.json")); b=json.load(open("again.json")); assert a["digest"]==b["digest"], (a, b)'

# A bank: the slow answers are paid from it (at least 250 ms of CPU beyond
# the 50 ms), so no fault; the header records both limits.
"$ARENA" play $T random "$PLUG/slow.so" --seed 3 $G1 --move-ms 50 --bank-ms 20000 --replay b.rpl --json >b.json 2>/dev/null
check "bank pays for the slow answers" $PY -c '
import json; d=json.load(open("b.json")); s=d["seats"][1]
assert s["faults"] == 0 and s["bank_left_ms"] <= 20000 - 250 and d["seats"][0]["bank_left_ms"] <= 20000, d'
check "replay header records move_ms and bank_ms" $PY -c '
import msgpack; h=next(msgpack.Unpacker(open("b.rpl","rb"), raw=False)); assert h["move_ms"]==50 and h["bank_ms"]==20000 and h["on_fault"]=="default", h'
"$ARENA" replay verify b.rpl --json >bv.json 2>/dev/null
check "replay verify --json shows the time control" $PY -c '
import json; d=json.load(open("bv.json")); assert d["ok"] and d["move_ms"]==50 and d["bank_ms"]==20000 and d["on_fault"]=="default", d'
# A bank alone, smaller than one slow answer: the flag falls, every later
# decision is a timeout, and the bot forfeits; the other seat's result stands.
"$ARENA" play $T random "$PLUG/slow.so" --seed 3 $G1 --bank-ms 100 --replay f.rpl --json >f.json 2>/dev/null
check "spent bank: timeouts, then forfeit, last place" $PY -c '
import json; d=json.load(open("f.json")); r, s = d["seats"]
assert s["forfeit"] and set(s["fault_kinds"]) == {"timeout", "forfeit"} and s["ladder_place"] == 2 and r["ladder_place"] == 1 and r["faults"] == 0, d'
check "spent bank: replay verifies" "$ARENA" replay verify f.rpl

# --on-fault: random replacements are seeded by the match, so reproducible,
# and differ from the default action; forfeit ends the bot at its first fault.
for i in 1 2; do "$ARENA" play $T random "$PLUG/faulty.so" --seed 3 --on-fault random --replay r$i.rpl --json >r$i.json 2>/dev/null; done
"$ARENA" play $T random "$PLUG/faulty.so" --seed 3 --json >d.json 2>/dev/null
check "on-fault random: same seed, same digest; not the default's" $PY -c '
import json; a,b,c=(json.load(open(f)) for f in ("r1.json","r2.json","d.json"))
assert a["digest"]==b["digest"]!=c["digest"] and a["seats"][1]["faults"]>0, (a,c)'
check "on-fault random: replay verifies" "$ARENA" replay verify r1.rpl
"$ARENA" play $T random "$PLUG/faulty.so" --seed 3 --on-fault forfeit --json >o.json 2>/dev/null
check "on-fault forfeit: one fault, then the forfeit" $PY -c '
import json; d=json.load(open("o.json")); s=d["seats"][1]
assert s["forfeit"] and s["faults"]==2 and s["fault_kinds"]["forfeit"]==1 and s["ladder_place"]==2, d'

# A tournament of the three: every match played and recorded, each fault
# with its bot and kind, a bundle for each faulty match, standings and the
# ladder show faults by kind.
"$ARENA" tournament $T --bots random,"$PLUG/slow.so","$PLUG/faulty.so" --seats 2 --seed 5 $G1 \
  --move-ms 50 --db t.db --replays rr -q --json >t.json 2>t.err
check "tournament with faulty plugins exits 0" test $? = 0
check "tournament: all matches, faults by bot and kind" $PY -c '
import json; d=json.load(open("t.json")); st={s["bot"]: s for s in d["standings"]}
assert d["matches"] == d["planned"] == 6, d
assert st["random"]["faults"] == 0 and st["random"]["games"] == 4
assert st["slow"]["faults"] >= 8 and set(st["slow"]["fault_kinds"]) == {"timeout"}, st["slow"]
assert set(st["faulty"]["fault_kinds"]) <= {"illegal", "error", "forfeit"} and st["faulty"]["fault_kinds"]["illegal"] > 0
assert all(s["faults"] == sum(s["fault_kinds"].values()) for s in st.values())
assert d["faults"] == sum(s["faults"] for s in st.values())'
check "tournament: one bundle per faulty match, right seats" $PY -c '
import json, glob; fs = sorted(glob.glob("rr/*.repro.json")); assert len(fs) == 6, fs
for f in fs:
    b = json.load(open(f)); names = {x["name"] for x in b["faulty"]}
    assert names and names <= {"slow", "faulty"}, (f, names)
    assert b["tournament"] == 1 and b["command"].startswith("arena play taylor-blackjack")'
for r in rr/*.rpl; do check "$r verifies" "$ARENA" replay verify "$r" >/dev/null 2>&1; done
"$ARENA" ladder $T --db t.db --seats 2 $G1 --json >l.json 2>/dev/null
check "ladder --json: faults by kind per bot" $PY -c '
import json; d=json.load(open("l.json")); t=json.load(open("t.json"))
lf={r["bot"]: (r["faults"], r["fault_kinds"]) for r in d["ratings"]}
tf={s["bot"]: (s["faults"], s["fault_kinds"]) for s in t["standings"]}
assert lf == tf, (lf, tf)'
"$ARENA" ladder $T --db t.db --seats 2 $G1 >l.txt 2>/dev/null
check "ladder text: faults of slow" grep -q "faults of slow: timeout" l.txt

# The same with two matches at once: the same results, faults and bundles.
for j in 1 2; do
  "$ARENA" tournament $T --bots random,"$PLUG/faulty.so",greedy --seats 3 --seed 9 $G1 --on-fault random \
    --jobs $j --db j$j.db --replays j$j -q --json >j$j.json 2>/dev/null
done
check "--jobs 2: same standings and bundles as --jobs 1" $PY -c '
import json, glob, os
a, b = (json.load(open(f"j{j}.json")) for j in (1, 2))
# The live Elo depends on the order matches finish (display only), and so
# does "elo" where no fit rates the bot (elo_status perfect or zero).
for d in (a, b):
    del d["tournament"]
    for s in d["standings"]:
        del s["live_elo"]
        if s["elo_status"] != "rated":
            del s["elo"]
assert a == b and a["faults"] > 0, (a, b)
fa, fb = (sorted(os.path.basename(p) for p in glob.glob(f"j{j}/*.repro.json")) for j in (1, 2))
assert fa == fb and len(fa) == 6, (fa, fb)  # 3 seats balanced: 6 orders
for f in fa:
    x, y = (json.load(open(f"j{j}/{f}")) for j in (1, 2))
    for z in (x, y):  # thinking times are measurements, not results
        for seat in z["faulty"]:
            for d in seat["decisions"]: del d["think_us"]
    assert x["faulty"] == y["faulty"] and x["command"] == y["command"], f'

# --restart: a cmd: bot that crashes in its second match is started again
# before the next, so later matches are played cleanly; without it, every
# later match faults (disconnect).
CRASH="cmd:$PY $SRC/tests/cli/crashbot.py"
"$ARENA" tournament $T --bots random,"$CRASH mk1" --rounds 3 --seed 1 $G1 --db c1.db --replays c1 -q --json >c1.json 2>c1.err
check "no restart: the crashed bot's later matches fault" $PY -c '
import json, glob; d=json.load(open("c1.json")); assert d["matches"]==6 and len(glob.glob("c1/*.repro.json"))==5, d'
check "cmd: bot's stderr tail in its bundles" $PY -c '
import json, glob; t=[json.load(open(f))["faulty"][0]["stderr_tail"] for f in glob.glob("c1/*.repro.json")]
assert any("crashing on purpose" in x for x in t), t'
check "cmd: bot's stderr still reaches the arena's" grep -q "crashing on purpose" c1.err
"$ARENA" tournament $T --bots random,"$CRASH mk2" --rounds 3 --seed 1 $G1 --db c2.db --replays c2 -q --json --restart >c2.json 2>c2.err
check "restart: exit 0" test $? = 0
check "restart: said so" grep -q "restarting it before match" c2.err
check "restart: only the crash's match (or the next) faults" $PY -c '
import json, glob; d=json.load(open("c2.json")); n=len(glob.glob("c2/*.repro.json"))
assert d["matches"]==6 and 1 <= n <= 2 and not glob.glob("c2/t1-m000005.repro.json"), (n, d)
st={s["bot"]: s for s in d["standings"]}; assert st["random"]["faults"]==0'

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
