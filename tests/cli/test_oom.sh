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

# fail_each WHAT CLEAN LEFT [stdout] -- COMMAND...: COMMAND run with its
# N-th allocation failed, for N = 1, 2, ... until it succeeds; before each
# run the function CLEAN, after each failure oom_ok and the function LEFT N,
# which checks what the run left (0: as it must be). Counts a pass or a
# fail each time, and a fail unless more than 10 allocations were failed.
fail_each() {
  local what=$1 clean=$2 left=$3 out=$4 n=0 runs=0 rc
  shift 5
  while :; do
    n=$((n + 1))
    $clean
    JA_XALLOC_FAIL_AT=$n "$@" >out.txt 2>err.txt
    rc=$?
    [ "$rc" = 0 ] && break
    runs=$((runs + 1))
    oom_ok $n $rc $out || break
    if $left $n; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    [ "$n" -lt 20000 ] || { fail=$((fail + 1)); echo "FAIL: no end to the allocations"; break; }
  done
  check "$what: out of memory at each of its $runs allocations" test "$runs" -gt 10
  echo "$what: $runs allocations failed in turn"
}

# The tournament: the replays it left verify, and the same command run
# again with memory enough finishes it as if it had never stopped.
tourn_clean() { rm -rf t.db t.db-* r; }
tourn_left() {
  replays_whole r $1
  if ! "$ARENA" "${TOURN[@]}" --db t.db --replays r >out.txt 2>err.txt; then
    echo "FAIL: JA_XALLOC_FAIL_AT=$1: the same command again fails"
    sed 's/^/  stderr: /' err.txt | head -3
    return 1
  fi
  "$ARENA" ladder $T --db t.db >t.ladder
  cmp -s ref.ladder t.ladder && [ "$(digests r)" = "$(cat ref.digests)" ] && return 0
  echo "FAIL: JA_XALLOC_FAIL_AT=$1: finished again, another ladder or other replays"
  diff ref.ladder t.ladder | head -5
  return 1
}
fail_each tournament tourn_clean tourn_left stdout -- "$ARENA" "${TOURN[@]}" --db t.db --replays r

# A match with its replay: no replay, or a whole one.
play_clean() { rm -f p.rpl p.rpl.tmp-*; }
play_left() {
  [ ! -e p.rpl ] || "$ARENA" replay verify p.rpl >/dev/null 2>&1 && return 0
  echo "FAIL: JA_XALLOC_FAIL_AT=$1: a half-written p.rpl"
  return 1
}
fail_each play play_clean play_left "" -- \
  "$ARENA" play $T --bots random,greedy --seed 3 --replay p.rpl -q

# The report site of the finished ladder: none, or the whole site.
"$ARENA" report --db ref.db -o ref.site >/dev/null 2>&1
check "setup: a report" test -s ref.site/index.html
site_clean() { rm -rf site site.tmp-*; }
site_left() {
  [ ! -e site/index.html ] || diff -r ref.site site >/dev/null && return 0
  echo "FAIL: JA_XALLOC_FAIL_AT=$1: a half-written report"
  return 1
}
fail_each report site_clean site_left "" -- "$ARENA" report --db ref.db -o site

finish
