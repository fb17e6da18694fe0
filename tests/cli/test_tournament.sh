#!/usr/bin/env bash
# `arena tournament` and `arena ladder` with real processes: bad input is
# refused before any match is played or any file written; the same seed gives
# the same standings and the same replays; a run killed with SIGKILL and run
# again finishes the plan with exactly the matches an uninterrupted run plays;
# a second run on a database in use is refused naming the holder, and two
# identical runs at once record every match once. Plans are balanced (the
# default: three bots at three seats play both directions, 6 matches a
# round); a cyclic tournament killed part-way is finished cyclic by a run
# that does not name a seating, and a balanced run of the same seed is
# another tournament.
# Usage: test_tournament.sh ARENA
set -u
ARENA=$1
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0 fail=0
T=taylor-blackjack

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
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }

B="--bots random,random,random"
expect_fail 2 "--seats 13: taylor-blackjack is played by 2 to 12 seats" -- "$ARENA" tournament $T $B --seats 13
expect_fail 2 "--seats 4 needs at least 4 bots; 3 given" -- "$ARENA" tournament $T $B --seats 4
expect_fail 2 "--seats needs a positive number" -- "$ARENA" tournament $T $B --seats 0
expect_fail 2 "give at least two bots" -- "$ARENA" tournament $T --bots random
expect_fail 2 "bot plugin './nope.so': No such file" -- "$ARENA" tournament $T --bots random,./nope.so
expect_fail 2 "unknown bot 'rnd'" -- "$ARENA" tournament $T --bots random,rnd
expect_fail 2 "--format 'elo': use round-robin, gauntlet, swiss or knockout" -- "$ARENA" tournament $T $B --format elo
expect_fail 2 "--seating 'random': use balanced or cyclic" -- "$ARENA" tournament $T $B --seating random
expect_fail 2 "more than the limit" -- "$ARENA" tournament $T $B --rounds 4000000
expect_fail 2 "--jobs needs a positive number" -- "$ARENA" tournament $T $B --jobs 0
expect_fail 2 "unknown option 'nope' for taylor-blackjack" -- "$ARENA" tournament $T $B --opt nope=1
expect_fail 2 "--resume: arena.db has no unfinished" -- "$ARENA" tournament $T $B --resume
rm -f arena.db arena.db-wal arena.db-shm
expect_fail 2 "which game" -- "$ARENA" tournament
expect_fail 2 "no ladder database 'none.db'" -- "$ARENA" ladder $T --db none.db
expect_fail 2 "no ladder database 'arena.db'" -- "$ARENA" ladder $T --fit
printf 'this is not a database, just text that is long enough to be a header.%.0s' {1..20} >junk.db
expect_fail 2 "junk.db" -- "$ARENA" tournament $T $B --db junk.db
rm -f junk.db

# Same seed, same standings and same replays (two databases).
run() { "$ARENA" tournament $T $B --rounds 1 --seed 11 --opt games=1 --db "$1.db" --replays "$1" --json -q >"$1.json"; }
run a; check "tournament a exits 0" test $? = 0
run b; check "tournament b exits 0" test $? = 0
check "same seed, same standings" $PY -c 'import json; a=json.load(open("a.json")); b=json.load(open("b.json")); assert a["standings"]==b["standings"] and a["matches"]==6 and a["seating"]=="balanced", (a,b)'
check "standings carry the fitted Elo with its interval" $PY -c 'import json; d=json.load(open("a.json")); assert all((r["elo_status"]=="rated" and r["elo_ci95"][0] < r["elo"] < r["elo_ci95"][1]) or (r["elo_status"]!="rated" and r["elo_ci95"] is None) for r in d["standings"]), d'
check "same replays" bash -c 'cd a && for f in *.rpl; do cmp -s <(tail -c 70 "$f") <(tail -c 70 "../b/$f") || exit 1; done'
check "a replay verifies" "$ARENA" replay verify a/t1-m000003.rpl
# Re-running the same command plays nothing more.
run a; check "re-run exits 0" test $? = 0
check "re-run plays nothing twice" $PY -c 'import json,sqlite3; a=json.load(open("a.json")); assert a["matches"]==6; c=sqlite3.connect("a.db"); assert c.execute("select count(*) from matches").fetchone()[0]==6'
"$ARENA" ladder $T --opt games=1 --db a.db --json >ladder.json
check "ladder JSON" $PY -c 'import json; d=json.load(open("ladder.json")); assert d["seats"]==3 and len(d["ratings"])==3 and sum(r["games"] for r in d["ratings"])==18, d'

# Killed with SIGKILL part-way, then run again: the same matches as a run
# that was never interrupted (whenever the kill landed).
big() { "$ARENA" tournament $T $B --rounds 20 --seed 5 --opt games=1 --db "$1.db" -q --json "${@:2}"; }
big full >full.json
# The arena itself in the background (not the function, whose subshell
# would be what the kill hits, leaving the arena running on).
"$ARENA" tournament $T $B --rounds 20 --seed 5 --opt games=1 --db killed.db -q --json \
  >/dev/null 2>&1 &
pid=$!
sleep 0.3; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
big killed >killed.json
check "killed run finished on re-run" $PY - <<'PYEOF'
import json, sqlite3
a = json.load(open("full.json")); b = json.load(open("killed.json"))
assert a["standings"] == b["standings"] and b["matches"] == b["planned"] == 120, (a, b)
assert b["seating"] == "balanced", b
q = "select number, digest from matches order by number"
da = sqlite3.connect("full.db").execute(q).fetchall()
db = sqlite3.connect("killed.db").execute(q).fetchall()
assert da == db and len(da) == 120
PYEOF
check "the killed run's lock file did not stop the re-run, which removed it" test ! -e killed.db.lock

# The same, cyclic: killed part-way, then finished by a run that names no
# seating (as a database planned before balanced seating is finished): the
# stored cyclic plan, 60 matches, those of an uninterrupted cyclic run.
big cfull --seating cyclic >cfull.json
"$ARENA" tournament $T $B --rounds 20 --seed 5 --opt games=1 --db ckilled.db -q --json \
  --seating cyclic >/dev/null 2>&1 &
pid=$!
# Killed once its plan is stored (before, the re-run would plan anew), or
# not at all if it has ended.
$PY "$HERE/kill_when.py" $pid ckilled.db "select count(*) from tournaments"
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
big ckilled >ckilled.json
check "a cyclic run killed is finished cyclic by a run without --seating" $PY - <<'PYEOF'
import json, sqlite3
a = json.load(open("cfull.json")); b = json.load(open("ckilled.json"))
assert a["standings"] == b["standings"] and b["matches"] == b["planned"] == 60, (a, b)
assert a["seating"] == b["seating"] == "cyclic", (a, b)
q = "select number, digest from matches order by number"
da = sqlite3.connect("cfull.db").execute(q).fetchall()
db = sqlite3.connect("ckilled.db").execute(q).fetchall()
assert da == db and len(da) == 60
c = sqlite3.connect("ckilled.db")
assert c.execute("select count(*), min(seating) from tournaments").fetchone() == (1, "cyclic")
# Every seating is a rotation of the one order (0, 1, 2): 0 is always
# followed by 1.
q = ("select a.slot, b.slot from match_seats a join match_seats b"
     " on b.match_id = a.match_id and b.seat = (a.seat + 1) % 3")
assert set(c.execute(q).fetchall()) == {(0, 1), (1, 2), (2, 0)}
PYEOF
# Asking for balanced seating with that seed: a tournament of its own, where
# each bot has each other as its next neighbour in as many matches.
big ckilled --seating balanced >cbal.json
check "--seating balanced beside it: a new tournament, neighbours balanced" $PY - <<'PYEOF'
import collections, json, sqlite3
d = json.load(open("cbal.json"))
assert d["seating"] == "balanced" and d["matches"] == d["planned"] == 120 and d["tournament"] == 2, d
c = sqlite3.connect("ckilled.db")
q = ("select a.slot, b.slot from match_seats a join match_seats b"
     " on b.match_id = a.match_id and b.seat = (a.seat + 1) % 3"
     " join matches m on m.id = a.match_id where m.tournament_id = 2")
n = collections.Counter(c.execute(q).fetchall())
assert sorted(n) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)] and set(n.values()) == {60}, n
PYEOF

# One run at a time per database (docs/database.md). Held by another process
# (here a stand-in holding DB.lock's record lock, as an arena does): refused
# at once, exit 1, one line naming the database and the holder's pid, and
# nothing written.
L="tournament $T $B --rounds 5 --seed 21 --opt games=1"
"$ARENA" $L --db solo.db --replays solo -q >/dev/null 2>&1
check "solo run exits 0" test $? = 0
mkdir lk
mkfifo hold.fifo
$PY - <<'PYEOF' &
import fcntl, os
f = open("lk.db.lock", "w"); fcntl.lockf(f, fcntl.LOCK_EX)
open("holder.pid", "w").write(str(os.getpid()))
open("hold.fifo").read()    # until the test lets go
PYEOF
hpid=$!
while [ ! -s holder.pid ]; do sleep 0.05; done
expect_fail 1 "^arena: error: the database 'lk.db' is in use by another arena \(pid $(cat holder.pid)\); wait for it to finish" -- \
  "$ARENA" $L --db lk.db --replays lk -q
echo >hold.fifo
wait $hpid
rm -f lk.db.lock holder.pid hold.fifo
# Two identical runs at once, whatever their timing: one plays every match;
# the other is refused (exit 1, naming the database) or, if it starts after
# the first has finished, finds nothing to play. Either way the matches and
# replays are those of the solo run, each once.
"$ARENA" $L --db lk.db --replays lk -q >r1.out 2>r1.err &
p1=$!
"$ARENA" $L --db lk.db --replays lk -q >r2.out 2>r2.err &
p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
check "two runs at once: each exits 0, or 1 refused as in use (rc $rc1 $rc2)" $PY - $rc1 $rc2 <<'PYEOF'
import sys
for rc, err in zip(sys.argv[1:], ("r1.err", "r2.err")):
    text = open(err).read()
    if rc == "1":
        assert text.startswith("arena: error: the database 'lk.db' is in use by another arena"), text
    else:
        assert rc == "0" and text == "", (rc, text)
assert "0" in sys.argv[1:], sys.argv
PYEOF
check "two runs at once: the solo run's matches, each once, every replay there" $PY - <<'PYEOF'
import os, sqlite3
q = "select number, digest, status from matches order by number"
a = sqlite3.connect("solo.db").execute(q).fetchall()
b = sqlite3.connect("lk.db").execute(q).fetchall()
assert a == b and len(a) == 30, (len(a), len(b))
assert sorted(os.listdir("solo")) == sorted(os.listdir("lk")), os.listdir("lk")
n = sqlite3.connect("lk.db").execute("select count(*) from tournaments").fetchone()[0]
assert n == 1, n
PYEOF
check "no lock file left" test ! -e lk.db.lock

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
