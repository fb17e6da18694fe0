#!/usr/bin/env bash
# Out of memory anywhere (docs/architecture.md, "Out of memory"): the
# harness's allocator is made to fail at its N-th call (JA_XALLOC_FAIL_AT=N)
# for every N of a small tournament, a match and a report, in turn, as
# SQLite's tests inject allocation failures. Each time:
# - exit status 1 and one line on standard error, "arena: out of memory
#   (K bytes)", nothing on standard output (but the tournament's plan,
#   printed first), no signal and no sanitizer report;
# - no output half-written: every replay there under its own name verifies
#   (`arena replay verify`), no match replay, report or database is there
#   but whole;
# - for the tournament, the same command run again finishes it, and the
#   ladder and every replay's digest are those of a run never interrupted
#   (a ladder result is its own transaction; the tournament resumes).
# The last N is the first the command survives: its call count.
# Usage: test_oom.sh ARENA
set -u
ARENA=$1
T=taylor-blackjack
. "$(dirname "$0")/lib.sh"

TOURN=(tournament $T --bots random,greedy --rounds 2 --seed 3 -q)
OOM='^arena: out of memory \([0-9]+ bytes\)$'

# oom_ok N RC [stdout]: the run just made (its status RC, out.txt, err.txt)
# ended as out of memory must; with "stdout", what it printed before (the
# tournament's plan) may stand on standard output. Counts a failure, naming
# N, otherwise.
oom_ok() {
  local n=$1 rc=$2 out=${3:-}
  if [ "$rc" = 1 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -qE "$OOM" err.txt &&
     { [ -n "$out" ] || [ ! -s out.txt ]; }
  then
    return 0
  fi
  fail=$((fail + 1))
  echo "FAIL: JA_XALLOC_FAIL_AT=$n: rc=$rc (want 1, one line)"
  sed 's/^/  stderr: /' err.txt | head -5
  head -3 out.txt | sed 's/^/  stdout: /'
  return 1
}

# replays_whole DIR N: every replay in DIR verifies.
replays_whole() {
  local f
  for f in "$1"/*.rpl; do
    [ -e "$f" ] || continue
    if ! "$ARENA" replay verify "$f" >/dev/null 2>&1; then
      fail=$((fail + 1))
      echo "FAIL: JA_XALLOC_FAIL_AT=$2: $f does not verify"
    fi
  done
}

# digests DIR: each replay's name and digest, sorted.
digests() {
  local f
  for f in "$1"/*.rpl; do
    echo "$(basename "$f") $("$ARENA" replay verify "$f" | sed -n 's/^digest //p')"
  done | sort
}

# The tournament never interrupted: its ladder and its replays' digests.
"$ARENA" "${TOURN[@]}" --db ref.db --replays ref >/dev/null 2>&1
check "setup: a tournament" test -s ref.db
"$ARENA" ladder $T --db ref.db >ref.ladder
digests ref >ref.digests
check "setup: its replays" test -s ref.digests

# The tournament, its allocations failed one by one.
n=0 runs=0
while :; do
  n=$((n + 1))
  rm -rf t.db t.db-* r
  JA_XALLOC_FAIL_AT=$n "$ARENA" "${TOURN[@]}" --db t.db --replays r >out.txt 2>err.txt
  rc=$?
  [ "$rc" = 0 ] && break
  runs=$((runs + 1))
  oom_ok $n $rc stdout || break
  replays_whole r $n
  # Again, with memory enough: the tournament finishes as if never stopped.
  if ! "$ARENA" "${TOURN[@]}" --db t.db --replays r >out.txt 2>err.txt; then
    fail=$((fail + 1))
    echo "FAIL: JA_XALLOC_FAIL_AT=$n: the same command again fails"
    sed 's/^/  stderr: /' err.txt | head -3
    continue
  fi
  "$ARENA" ladder $T --db t.db >t.ladder
  if cmp -s ref.ladder t.ladder && [ "$(digests r)" = "$(cat ref.digests)" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: JA_XALLOC_FAIL_AT=$n: finished again, another ladder or other replays"
    diff ref.ladder t.ladder | head -5
  fi
  [ "$n" -lt 5000 ] || { fail=$((fail + 1)); echo "FAIL: no end to the allocations"; break; }
done
check "tournament: out of memory at each of its $runs allocations" test "$runs" -gt 10
echo "tournament: $runs allocations failed in turn"

# A match with its replay: out of memory leaves no replay, or a whole one.
n=0 runs=0
while :; do
  n=$((n + 1))
  rm -f p.rpl p.rpl.tmp-*
  JA_XALLOC_FAIL_AT=$n "$ARENA" play $T --bots random,greedy --seed 3 --replay p.rpl -q \
    >out.txt 2>err.txt
  rc=$?
  [ "$rc" = 0 ] && break
  runs=$((runs + 1))
  oom_ok $n $rc || break
  if [ -e p.rpl ] && ! "$ARENA" replay verify p.rpl >/dev/null 2>&1; then
    fail=$((fail + 1))
    echo "FAIL: JA_XALLOC_FAIL_AT=$n: a half-written p.rpl"
  else
    pass=$((pass + 1))
  fi
  [ "$n" -lt 5000 ] || { fail=$((fail + 1)); echo "FAIL: no end to the allocations"; break; }
done
check "play: out of memory at each of its $runs allocations" test "$runs" -gt 10
echo "play: $runs allocations failed in turn"

# The report site of the finished ladder: none, or the whole site.
"$ARENA" report --db ref.db -o ref.site >/dev/null 2>&1
check "setup: a report" test -s ref.site/index.html
n=0 runs=0
while :; do
  n=$((n + 1))
  rm -rf site site.tmp-*
  JA_XALLOC_FAIL_AT=$n "$ARENA" report --db ref.db -o site >out.txt 2>err.txt
  rc=$?
  [ "$rc" = 0 ] && break
  runs=$((runs + 1))
  oom_ok $n $rc || break
  if [ -e site/index.html ] && ! diff -r ref.site site >/dev/null; then
    fail=$((fail + 1))
    echo "FAIL: JA_XALLOC_FAIL_AT=$n: a half-written report"
  else
    pass=$((pass + 1))
  fi
  [ "$n" -lt 20000 ] || { fail=$((fail + 1)); echo "FAIL: no end to the allocations"; break; }
done
check "report: out of memory at each of its $runs allocations" test "$runs" -gt 10
echo "report: $runs allocations failed in turn"

finish
