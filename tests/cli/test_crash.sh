#!/usr/bin/env bash
# Crashes and error codes of plugins, named (docs/faults.md, "Crashes of
# in-process plugins", "Error codes"), with the test plugin crash.so
# (plugins/crash.c: how=segv|bus|fpe|ill|abrt|stack|einval|code7, at=N, in=act|create):
#  - in-process, each crash kills the arena with its own signal (exit status
#    128 + the signal) after exactly one line on stderr naming the bot, its
#    seat, the match, the decision (the one its third act() answers, read
#    from the replay of the same match without the crash), the call, the
#    signal, and hosted:SPEC; a crash in create() names create() and no
#    decision; a stack overflow gets its line too (the alternate stack);
#  - in a tournament with referee workers (--jobs 2) the workers say it;
#  - hosted:, the same crashes are `crash` faults and the match finishes;
#  - an act() that returns an error code: the fault line of `arena play`,
#    the replay's `e`, `arena replay show` and the bundle's decisions name
#    the code (JA_EINVAL; "code 7" for a number outside the table), in-process
#    hosted: and as a cmd: bot of the C SDK, and the replay verifies;
#  - a replay without `e` (as written before it existed) verifies with its
#    recorded digest and shows its error faults without a code.
# Usage: test_crash.sh ARENA PLUGINS
set -u
ARENA=$1
PLUG=$2
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
ulimit -c 0 # the crashes are meant: no core files
# In a JA_SANITIZE build ASan installs its own SIGSEGV/SIGBUS/SIGFPE/SIGILL
# handlers; the arena's replace them only while ASan allows a program's own
# (allow_user_segv_handler=1, its default). Say so whatever ASAN_OPTIONS the
# run was given: with 0, ASan would report the SEGV itself and exit 1.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allow_user_segv_handler=1"
pass=0 fail=0
T=taylor-blackjack
G1="--opt games=1"
C=$PLUG/crash.so
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }

# The decision of seat 1's third act() in this match (1-based, as the crash
# line counts): the replay of the match with crash.so playing its first
# legal action throughout.
"$ARENA" play $T random "$C" --seed 3 $G1 --replay clean.rpl >/dev/null 2>&1
third=$($PY - clean.rpl <<'EOF'
import msgpack, sys
acts = [r["n"] for r in msgpack.Unpacker(open(sys.argv[1], "rb"), raw=False)
        if r.get("t") == "d" for a in r["asked"] if a["s"] == 1 and a["n"] >= 2]
print(acts[2] + 1)
EOF
)
check "the clean match's replay gives the third decision" test -n "$third"

# one_line FILE PATTERN...: FILE is one line holding every pattern (fixed strings).
one_line() {
  local f=$1; shift
  [ "$(wc -l <"$f")" = 1 ] || { sed 's/^/  stderr: /' "$f" | head -5; return 1; }
  local p
  for p in "$@"; do
    grep -qF -- "$p" "$f" || { echo "  missing: $p"; sed 's/^/  stderr: /' "$f"; return 1; }
  done
}

for how in segv:SIGSEGV:11 bus:SIGBUS:7 fpe:SIGFPE:8 ill:SIGILL:4 abrt:SIGABRT:6 stack:SIGSEGV:11; do
  IFS=: read -r h sig num <<<"$how"
  "$ARENA" play $T random "$C:how=$h" --seed 3 $G1 >"$h.out" 2>"$h.err"
  rc=$?
  check "$h: the arena dies of $sig (exit $((128 + num)), got $rc)" test "$rc" = $((128 + num))
  check "$h: one line naming bot, seat, match, decision, call, signal and hosted:" one_line "$h.err" \
    "arena: bot 'crash' (seat 1, match 'play', decision $third) crashed with $sig " \
    " in act(), and takes the arena process with it" "run it as hosted:$C:how=$h to contain a crash"
done

"$ARENA" play $T random "$C:how=segv:in=create" --seed 3 $G1 >/dev/null 2>create.err
check "create: exit 139" test $? = 139
check "create: the line names create() and no decision" one_line create.err \
  "arena: bot 'crash' (seat 1, match 'play') crashed with SIGSEGV (invalid memory access) in create()"

# Referee workers (--jobs 2): the worker that dies says it on the stderr it
# shares with the arena, which then names the lost workers.
"$ARENA" tournament $T --bots random,"$C:how=abrt" --seats 2 --jobs 2 $G1 --seed 5 --db t.db -q \
  >t.out 2>t.err
check "workers: the tournament fails (exit 1)" test $? = 1
check "workers: a worker's line names the bot, the match and SIGABRT" grep -qE \
  "^referee: bot 'crash' \\(seat [01], match 't1-m[0-9]+', decision [0-9]+\\) crashed with SIGABRT \\(abort\\) in act\\(\\), and takes the referee process with it" t.err

# Hosted: the same crashes are faults of the seat, and the match goes on.
for h in segv stack; do
  "$ARENA" play $T random "hosted:$C:how=$h" --seed 3 $G1 --json >"hosted-$h.json" 2>"hosted-$h.err"
  check "hosted $h: the match finishes (exit 0)" test $? = 0
  check "hosted $h: crash faults, and no crash line" $PY -c '
import json, sys; d = json.load(open(sys.argv[1])); s = d["seats"][1]
assert s["fault_kinds"].get("crash", 0) >= 1, s
assert "crashed with" not in open(sys.argv[2]).read()' "hosted-$h.json" "hosted-$h.err"
done

# Error codes: named in the fault line, the replay, replay show, the bundle.
# cmd[pick=fail]:pickbot is plugins/pick.c over the C SDK's client: its act()
# returns JA_EBOT, and the client's action carries it as `code`.
for spec in "$C:how=einval:JA_EINVAL:-1" "hosted:$C:how=code7:code 7:7" \
  "cmd[pick=fail]:$PLUG/pickbot:JA_EBOT:-10"; do
  bot=${spec%:*:*}
  rest=${spec#"$bot":}
  name=${rest%:*} e=${rest##*:}
  tag=${bot##*/}
  "$ARENA" play $T random "$bot" --seed 3 $G1 --replay e.rpl >e.out 2>e.err
  check "$tag: exit 0" test $? = 0
  check "$tag: the fault line names the code" grep -qF "[error fault, act() returned $name: default played]" e.out
  check "$tag: the replay's error entries carry e = $e" $PY - e.rpl "$e" <<'EOF'
import msgpack, sys
errs = [a for r in msgpack.Unpacker(open(sys.argv[1], "rb"), raw=False) if r.get("t") == "d"
        for a in r["asked"] if a["f"] == "error"]
assert errs and all(a.get("e") == int(sys.argv[2]) for a in errs), errs
EOF
  check "$tag: the replay verifies" "$ARENA" replay verify e.rpl >/dev/null
  check "$tag: replay show names the code" grep -qF "FAULT: error (act() returned $name)" \
    <("$ARENA" replay show e.rpl 2>&1)
  check "$tag: the bundle's decisions name the code" $PY - e.repro.json "$name" <<'EOF'
import json, sys
[f] = json.load(open(sys.argv[1]))["faulty"]
errs = [d for d in f["decisions"] if d["fault"] == "error"]
assert errs and all(d["error"] == sys.argv[2] for d in errs), errs
assert all("error" not in d for d in f["decisions"] if d["fault"] != "error")
EOF
done

# A replay written before `e` existed (version 1 all the same: the release
# before wrote these very bytes without the key) verifies with the digest it
# records, and is shown as before: the fault without a code.
check "old replay: e.rpl without its e keys" $PY - e.rpl old.rpl <<'EOF'
import msgpack, sys
recs = list(msgpack.Unpacker(open(sys.argv[1], "rb"), raw=False))
n = 0
for r in recs:
    for a in r.get("asked", []) if r.get("t") == "d" else []:
        n += a.pop("e", None) is not None
assert n, "no e to take out"
with open(sys.argv[2], "wb") as f:
    for r in recs:
        f.write(msgpack.packb(r, use_bin_type=True))
EOF
check "old replay: verifies, with its recorded digest" $PY - "$ARENA" old.rpl <<'EOF'
import json, msgpack, subprocess, sys
out = subprocess.run([sys.argv[1], "replay", "verify", sys.argv[2], "--json"],
                     capture_output=True, text=True)
assert out.returncode == 0, out
end = list(msgpack.Unpacker(open(sys.argv[2], "rb"), raw=False))[-1]
assert json.loads(out.stdout)["digest"] == end["digest"], (out.stdout, end)
EOF
"$ARENA" replay show old.rpl >old.show 2>&1
check "old replay: shows its error faults, without a code" \
  test "$(grep -c 'FAULT: error' old.show)" -gt 0 -a "$(grep -c 'act() returned' old.show)" = 0

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
