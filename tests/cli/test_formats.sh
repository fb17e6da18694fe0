#!/usr/bin/env bash
# `arena tournament --format swiss|knockout` and `--deals FILE` with real
# processes: a swiss tournament and a knockout at three seats played at
# --jobs 2, each killed with SIGKILL once its second round is being played
# and run again, end with the same matches (number, seats, seed, digest)
# and the same standings or tables as an uninterrupted run; no pair meets
# twice while that can be avoided; groups of three; knockouts of 3, 5 and
# 8 bots (byes, match counts, a winner);
# bad input refused in one line; a deal set made from a ladder by `arena
# ladder deals` and played back by --deals (the matches are dealt its
# seeds, in order); a bad deal set named with its line.
# Usage: test_formats.sh ARENA REFEREE
set -u
ARENA=$1 REFEREE=$2
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
cleanup() { for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
pass=0 fail=0
T=taylor-blackjack

expect_fail() { # expect_fail CODE PATTERN -- command...: one stderr line, nothing on stdout
  local code=$1 pat=$2; shift 3
  "$@" >out.txt 2>err.txt
  local rc=$?
  if [ "$rc" = "$code" ] && [ "$(wc -l <err.txt)" = 1 ] && grep -qE -- "$pat" err.txt \
     && [ ! -s out.txt ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: $* (rc=$rc, want $code, /$pat/)"; sed 's/^/  stderr: /' err.txt
  fi
  rm -f out.txt err.txt
}
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); echo "ok: $d"; else fail=$((fail + 1)); echo "FAIL: $d"; fi; }

B2="--bots random,greedy"
expect_fail 2 "--seats 3 needs at least 3 bots" -- "$ARENA" tournament $T $B2 --seats 3 --format knockout
expect_fail 2 "a shard's database holds only its own: it cannot be played in shards" -- "$ARENA" tournament $T $B2 --format swiss --shard 1/2
printf 'jackarena-deals 1\n12\n# fine\nx3\n' >bad.txt
expect_fail 2 "^arena: error: --deals: bad.txt:4: 'x3' is not a seed" -- "$ARENA" tournament $T $B2 --deals bad.txt
printf 'jackarena-deals 9\n12\n' >new.txt
expect_fail 2 "new.txt:1: deal set version 9; this arena reads version 1" -- "$ARENA" tournament $T $B2 --deals new.txt
printf '12\n' >nohead.txt
expect_fail 2 "nohead.txt:1: not a deal set" -- "$ARENA" tournament $T $B2 --deals nohead.txt
expect_fail 2 "cannot read the deal set 'none.txt'" -- "$ARENA" tournament $T $B2 --deals none.txt
printf 'jackarena-deals 1\n12\n' >good.txt
expect_fail 2 "--deals cannot be played in shards" -- "$ARENA" tournament $T $B2 --deals good.txt --shard 1/2
check "a bad deal set wrote no database" test ! -e arena.db

# Swiss, 10 bots, 6 rounds at --jobs 2: uninterrupted, then killed once
# its second round is being played (polled in the database, no timing; or
# not at all if it has ended first) and run again.
BOTS="--bots random,greedy,random,greedy,random,greedy,random,greedy,random,greedy"
swiss() { "$ARENA" tournament $T $BOTS --seats 2 --format swiss --rounds 6 --seed 17 \
            --jobs 2 -q --json --db "$@"; }
swiss full.db >full.json
"$ARENA" tournament $T $BOTS --seats 2 --format swiss --rounds 6 --seed 17 \
  --jobs 2 -q --json --db killed.db >/dev/null 2>&1 &
pid=$!
$PY "$HERE/kill_when.py" $pid killed.db \
  "select count(*) from matches where status = 'done' and round >= 1"
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
killed_at=$($PY -c "import sqlite3; print(sqlite3.connect('killed.db').execute(\"select count(*) from matches where status='done'\").fetchone()[0])")
swiss killed.db >killed.json
check "swiss killed mid-way ($killed_at matches done) and resumed = uninterrupted" $PY - <<'PYEOF'
import json, sqlite3
a = json.load(open("full.json")); b = json.load(open("killed.json"))
assert a["swiss"] == b["swiss"], (a["swiss"], b["swiss"])
assert b["matches"] == b["planned"] == 60, b
assert b["swiss"]["rounds_played"] == 6
key = lambda s: [(r["bot"], r["games"], r["wins"], r["score"]) for r in s["standings"]]
assert sorted(key(a)) == sorted(key(b))
q = ("select m.number, m.round, m.combo, m.seed, m.digest, group_concat(s.slot) from matches m"
     " join match_seats s on s.match_id = m.id group by m.id order by m.number")
da = sqlite3.connect("full.db").execute(q).fetchall()
db = sqlite3.connect("killed.db").execute(q).fetchall()
assert da == db and len(da) == 60
# No pair met twice (6 rounds, 10 bots: always avoidable); a round seats
# everyone once; points add up (one point a group).
met = {}
for m in da:
    if m[0] % 2 == 0:
        pair = tuple(sorted(m[5].split(",")))
        met[pair] = met.get(pair, 0) + 1
assert max(met.values()) == 1, met
assert len(met) == 30
pts = sum(r["points"] for r in b["swiss"]["standings"])
assert abs(pts - 30) < 1e-9, pts
PYEOF

# A swiss database is not merged: its plan came from its results.
expect_fail 2 "tournament 1 is a swiss or knockout tournament: only its own database" -- "$ARENA" ladder import full.db --db merged.db

# Groups of three (balanced seating: 6 matches a group), 7 bots: a bye a round.
"$ARENA" tournament $T --bots random,greedy,random,greedy,random,greedy,random --seats 3 \
  --format swiss --rounds 3 --seed 4 --opt games=1 -q --json --db three.db >three.json
check "swiss in groups of three with a bye a round" $PY - <<'PYEOF'
import json
j = json.load(open("three.json"))
assert j["planned"] == j["matches"] == 3 * 2 * 6, j
rows = j["swiss"]["standings"]
assert sum(r["byes"] for r in rows) == 3 and max(r["byes"] for r in rows) == 1, rows
assert all(r["played"] + r["byes"] == 3 for r in rows), rows
PYEOF

# Knockouts of 3, 5 and 8 bots, 2 deals a tie.
for n in 3 5 8; do
  bots=$($PY -c "print(','.join(['greedy'] + ['random'] * ($n - 1)))")
  "$ARENA" tournament $T --bots "$bots" --seats 2 --format knockout --rounds 2 --seed 8 \
    --opt games=1 -q --json --db ko$n.db >ko$n.json
  check "knockout of $n bots" $PY - "$n" <<'PYEOF'
import json, sys
n = int(sys.argv[1])
j = json.load(open("ko%d.json" % n))
size = 1
while size < n:
    size *= 2
ko = j["knockout"]
assert j["planned"] == j["matches"] == (n - 1) * 4, j
assert len(ko["ties"]) == size - 1, ko
assert sum(t["bye"] for t in ko["ties"]) == size - n, ko
assert ko["winner"] is not None and ko["rounds_played"] == ko["rounds"]
# The first round: seed 1 against the last seed (or a bye).
assert ko["ties"][0]["bots"][0] == "greedy"
PYEOF
done

# Progress of a format by rounds counts the matches played, not those of
# rounds not planned yet: a knockout of 5 bots at 3 seats (6 matches a
# round, 12 in all) counts 1 to 12, in order.
"$ARENA" tournament bruise-jack --bots random,greedy,random,greedy,random --seats 3 \
  --format knockout --opt hands=1 --seed 3 --db prog.db >prog.out 2>prog.err
check "knockout progress counts 1/12 to 12/12 in order" $PY - <<'PYEOF'
import re
done = [int(m.group(1)) for m in re.finditer(r"^(\d+)/12 matches", open("prog.err").read(), re.M)]
assert done == sorted(done) and done[0] <= 6 and done[-1] == 12, done
PYEOF

# A knockout at three seats, 8 bots, 2 deals a table, at --jobs 2:
# uninterrupted, then killed once a match of its second round is recorded
# (polled in the database) and run again.
KB="--bots random,greedy,random,greedy,random,random,greedy,random"
ko3() { "$ARENA" tournament $T $KB --seats 3 --format knockout --rounds 2 --seed 23 \
          --opt games=1 --jobs 2 -q --json --db "$@"; }
ko3 ko3full.db >ko3full.json
# Started stopped, and let go once the poller polls: the whole run takes
# a fraction of a second.
(kill -STOP $BASHPID; exec "$ARENA" tournament $T $KB --seats 3 --format knockout \
  --rounds 2 --seed 23 --opt games=1 --jobs 2 -q --json --db ko3killed.db >/dev/null 2>&1) &
pid=$!
$PY "$HERE/kill_when.py" --cont $pid ko3killed.db \
  "select count(*) from matches where status = 'done' and round >= 1"
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
ko3_at=$($PY -c "import sqlite3; print(sqlite3.connect('ko3killed.db').execute(\"select count(*) from matches where status='done'\").fetchone()[0])")
ko3 ko3killed.db >ko3killed.json
check "knockout at 3 seats killed once round 2 has a result ($ko3_at of 48 matches done) and resumed = uninterrupted" \
  $PY - <<'PYEOF'
import json, sqlite3
a = json.load(open("ko3full.json")); b = json.load(open("ko3killed.json"))
assert a["knockout"] == b["knockout"], (a["knockout"], b["knockout"])
ko = b["knockout"]
# 8 bots at 3 seats: 2 tables (2 byes), then 1 table (1 bye), then the
# final: 4 tables of 2 deals x 2 orders x 3 rotations.
assert b["matches"] == b["planned"] == 4 * 12, b
assert ko["rounds"] == ko["rounds_played"] == 3 and ko["seats"] == 3, ko
tables = [t for t in ko["ties"] if not t["bye"]]
assert [t["round"] for t in tables] == [1, 1, 2, 3], tables
assert [len(t["through"]) for t in tables] == [1, 1, 2, 1], tables
assert sum(t["bye"] for t in ko["ties"]) == 3, ko
assert ko["winner"] == tables[-1]["winner"] == tables[-1]["through"][0]
q = ("select m.number, m.round, m.combo, m.seed, m.digest, (select group_concat(slot) from"
     " (select slot from match_seats s where s.match_id = m.id order by seat))"
     " from matches m order by m.number")
da = sqlite3.connect("ko3full.db").execute(q).fetchall()
db = sqlite3.connect("ko3killed.db").execute(q).fetchall()
assert da == db and len(da) == 48
# A table: 12 matches, 2 deals, each dealt to all 6 seatings.
for t in range(4):
    block = da[t * 12:(t + 1) * 12]
    assert len({m[3] for m in block}) == 2 and len({m[5] for m in block}) == 6, block
PYEOF

# The same knockout played by a referee worker: the arena plans each round
# and hands its matches out (--workers; --slurm-workers are such workers).
"$ARENA" tournament $T $KB --seats 3 --format knockout --rounds 2 --seed 23 --opt games=1 \
  --jobs 0 --workers "ipc://$work/ko3w" -q --json --db ko3w.db >ko3w.json 2>ko3w.err &
apid=$!
"$REFEREE" --connect "ipc://$work/ko3w" --slots 2 2>ko3r.err &
rpid=$!
wait $apid; arc=$?
wait $rpid; rrc=$?
check "knockout at 3 seats by a worker (arena rc=$arc, worker rc=$rrc) = --jobs 2" $PY - <<'PYEOF'
import json, sqlite3
a = json.load(open("ko3full.json")); b = json.load(open("ko3w.json"))
assert a["knockout"] == b["knockout"] and b["matches"] == 48, (a["knockout"], b)
q = "select number, round, combo, seed, digest from matches order by number"
assert (sqlite3.connect("ko3full.db").execute(q).fetchall()
        == sqlite3.connect("ko3w.db").execute(q).fetchall())
PYEOF
check "the worker's arena and worker exited 0" [ "$arc$rrc" = 00 ]

# A deal set from a ladder, played back.
"$ARENA" tournament $T --bots random,greedy,random --seats 2 --duplicate --rounds 3 --seed 2 \
  --opt games=1 -q --db lad.db >/dev/null
"$ARENA" ladder deals $T --opt games=1 --db lad.db --top 4 -o deals.txt 2>deals.err
check "ladder deals wrote 4 deals" $PY - <<'PYEOF'
lines = [l for l in open("deals.txt") if l.strip() and not l.startswith("#")]
assert lines[0].strip() == "jackarena-deals 1", lines
assert len(lines) == 5, lines
seps = [float(l.split("separation")[1].split(",")[0]) for l in lines[1:]]
assert seps == sorted(seps, reverse=True) and seps[0] > 0, seps
assert "4 deals of 9 written" in open("deals.err").read()
PYEOF
"$ARENA" tournament $T --bots random,greedy,random --seats 2 --rounds 1 --deals deals.txt \
  --seed 3 --opt games=1 -q --db lad.db >/dev/null
"$ARENA" tournament $T --bots random,greedy,random --seats 2 --format swiss --rounds 2 \
  --deals deals.txt --seed 3 --opt games=1 -q --db lad.db >/dev/null
check "--deals plays the set's seeds in order (round-robin, swiss)" $PY - <<'PYEOF'
import sqlite3
seeds = [l.split()[0] for l in open("deals.txt") if l.strip() and not l.startswith("#")][1:]
c = sqlite3.connect("lad.db")
rr = [r[0] for r in c.execute("select seed from matches where tournament_id = 2 order by number")]
assert rr == [seeds[i % 4] for i in range(6)], (rr, seeds)  # not duplicate: a deal a match
sw = [r[0] for r in c.execute("select seed from matches where tournament_id = 3 order by number")]
assert sw == [seeds[(i // 2) % 4] for i in range(len(sw))] and len(sw) == 4, (sw, seeds)
d = c.execute("select deals from tournaments where id in (2, 3)").fetchall()
assert d[0][0] == d[1][0] and len(d[0][0]) == 64, d
assert c.execute("select deals from tournaments where id = 1").fetchone()[0] is None
PYEOF
expect_fail 1 "lad.db has no bombs ladder with results" -- "$ARENA" ladder deals bombs --db lad.db --top 3

echo "test_formats: $pass passed, $fail failed"
[ "$fail" = 0 ]
