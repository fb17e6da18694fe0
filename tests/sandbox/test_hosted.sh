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
# Usage: test_hosted.sh ARENA PLUGIN_DIR
set -u
ARENA=$1
P=$2
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
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

echo "sandbox_hosted: $pass passed, $fail failed"
[ "$fail" = 0 ]
