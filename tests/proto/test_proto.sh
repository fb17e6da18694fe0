#!/usr/bin/env bash
# Protocol tests with real processes over real sockets (docs/protocol.md).
# Usage: test_proto.sh CASE ARENA [EXAMPLE_BOT]
#   raw          a raw pyzmq+msgpack client (rawbot.py) plays `arena play` as
#                cmd: and as zmq:NAME, and a tournament whose replays verify
#   faults       one misbehaving client per bad input: the tournament
#                finishes, each fault is recorded with its kind in the ladder
#                and the replays, no other result changes
#   disconnect   a client that exits in the middle of a match
#   startup      bots that never say hello: exit 2, one line naming the bot; a
#                hello of another protocol version: the same at once
#   capacity     one bot process serving 8 matches at once (--jobs 8)
#   jobs         the same tournament with --jobs 1 and --jobs 4: same results
#   sdk          a tournament mixing a plugin, a cmd: Python SDK bot and a
#                cmd: C client bot, both confined (the default of
#                `tournament`); standings correct, replays verify
#   curve        CurveZMQ on loopback tcp: the right key plays, a wrong
#                server key and a key outside the allow-list do not
#   conformance  `arena conformance` passes the SDK bots and the raw client,
#                and fails a misbehaving one
#   identity     a seat belongs to its bot: a thief's second connection under
#                the victim's name (a cmd: bot; a zmq: bot on ipc and on
#                loopback tcp; a Curve key bound to another name) is refused,
#                logged once, and the victim plays every match itself with no
#                fault; bare allow-list keys, malformed NAME KEY lines, a cmd:
#                bot without its token, a bot reconnecting after its
#                connection died
#   direct       one match at a time (`arena play`, `--jobs 1`), where the
#                match's thread runs the hub's loop while a seat waits: another
#                bot's hello and a disconnect handled meanwhile, a late answer
#                dropped (the bot told `late`, the match the same as with no
#                answer), the same digests as through the hub's thread
#   bin          the compact act a hello asks for ("x_bin": true): the
#                observation's bytes and the legal codes, the same match as
#                with the full act; a non-boolean x_bin refused
#   events       every bot external with --jobs 4: one thread plays the
#                matches and runs the hub's loop (the event executor); the
#                same digests and faults (timeouts, a late answer, a bad
#                message) as --jobs 1, capacities kept
# No test asserts a duration; deadlines appear only where a test is about a
# timeout, and are generous. Where the arena's message must name a refused
# hello, the bot has 6 s (--startup-ms 6000) to send it: a Python bot's start
# on a machine loaded with other tests can take more than the 3 s once given.
set -u
CASE=$1
ARENA=$2
EXAMPLE=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
RAW="$PY $HERE/rawbot.py"
LONE="--lifetime 300" # a bot started by hand never outlives a broken test
T=taylor-blackjack
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0 fail=0
check() { # check DESCRIPTION command...: on failure, show the last stderr of the arena
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $d"; [ -s err.txt ] && sed 's/^/  stderr: /' err.txt | tail -5
  fi
}
finish() { echo "$CASE: $pass passed, $fail failed"; [ "$fail" = 0 ]; }
verify_all() { # verify_all DIR: every replay in DIR verifies
  local f n=0
  for f in "$1"/*.rpl; do
    "$ARENA" replay verify "$f" >/dev/null || { echo "replay $f does not verify"; return 1; }
    n=$((n + 1))
  done
  [ "$n" -gt 0 ]
}

case "$CASE" in
raw)
  "$ARENA" play $T random "cmd:$RAW --log raw.log" --seed 3 --move-ms 0 --replay m.rpl --json >p.json 2>err.txt
  check "play with a cmd: raw client exits 0" test $? = 0
  check "its JSON: no faults, the bot's name" $PY -c '
import json; d = json.load(open("p.json"))
assert [s["bot"] for s in d["seats"]] == ["random", "rawbot"], d
assert all(s["faults"] == 0 for s in d["seats"]), d'
  check "its replay verifies" "$ARENA" replay verify m.rpl
  check "the client saw welcome, start, act, end, bye in order" $PY -c '
import json
t = [json.loads(l)["type"] for l in open("raw.log")]
assert t[0] == "welcome" and t[1] == "start" and "act" in t and t[-2] == "bye", t[:3] + t[-3:]
assert t.index("end") > t.index("act") and "error" not in t, t'
  # zmq:NAME: a bot started by hand connects to --listen before the arena.
  $RAW $LONE --endpoint "ipc://$work/ep" --name handbot --log hand.log >hand.out 2>&1 &
  bot=$!
  "$ARENA" play $T "zmq:handbot" random --listen "ipc://$work/ep" --seed 4 --move-ms 0 --json >z.json 2>err.txt
  check "play with a zmq:NAME bot exits 0" test $? = 0
  wait $bot
  check "the zmq: bot exited on the referee's bye" test $? = 0
  check "the zmq: bot's seat" $PY -c '
import json; d = json.load(open("z.json")); assert d["seats"][0]["bot"] == "handbot", d'
  # A tournament of raw clients and plugins, replays for every match.
  "$ARENA" tournament $T --bot random --bot "cmd:$RAW --seed 2" --bot "two=cmd:$RAW --seed 9" \
    --seats 2 --opt games=1 --seed 8 --move-ms 0 --db t.db --replays r --json -q >t.json 2>err.txt
  check "tournament with raw clients exits 0" test $? = 0
  check "every replay verifies" verify_all r
  check "ladder identity of an external bot: kind cmd, its version, no hash" $PY -c '
import sqlite3; c = sqlite3.connect("t.db")
rows = c.execute("select name, version, kind, sha256 from bots where name in (\"rawbot\", \"two\")").fetchall()
assert sorted(rows) == [("rawbot", "1.0", "cmd", None), ("two", "1.0", "cmd", None)], rows'
  ;;

faults)
  bads="garbage nonmap notype missing mistyped multiframe range negative stale unknown late silent toobig disconnect"
  run() { # run DB BAD?: a gauntlet of random against everyone; BAD=1 makes the bad ones bad
    local args=(--bot random --bot random2=random --bot "good=cmd:$RAW --seed 4")
    local b
    for b in $bads; do
      if [ "$2" = 1 ]; then args+=(--bot "$b=cmd:$RAW --bad $b --every 4 --times 2");
      else args+=(--bot "$b=cmd:$RAW"); fi
    done
    "$ARENA" tournament $T "${args[@]}" --format gauntlet --seats 2 --opt games=1 --seed 12 \
      --move-ms 3000 --jobs 4 --db "$1.db" --replays "$1" --json -q >"$1.json" 2>"$1.err"
  }
  run good 0; check "the tournament of good clients exits 0" test $? = 0
  run bad 1; check "the tournament of misbehaving clients finishes (exit 0)" test $? = 0
  check "every match recorded" $PY -c '
import json; d = json.load(open("bad.json")); assert d["matches"] == d["planned"] == 32, d'
  check "every replay verifies" verify_all bad
  check "each fault recorded with its kind, in the ladder and the replays; no other result changes" \
    $PY - <<'PYEOF'
import glob, sqlite3, msgpack
want = {"garbage": "malformed", "nonmap": "malformed", "notype": "malformed",
        "missing": "malformed", "mistyped": "malformed", "multiframe": "malformed",
        "range": "illegal", "negative": "illegal", "stale": "protocol",
        "unknown": "protocol", "late": "timeout", "silent": "timeout",
        "toobig": "disconnect", "disconnect": "disconnect"}
def per_match(db):
    c = sqlite3.connect(db)
    rows = {}
    for mid, num, digest in c.execute("select id, number, digest from matches"):
        seats = c.execute("select r.seat, p.name, r.faults from results r join match_seats s"
                          " on s.match_id = r.match_id and s.seat = r.seat join participants p"
                          " on p.slot = s.slot and p.tournament_id = 1 where r.match_id = ?"
                          " order by r.seat", (mid,)).fetchall()
        kinds = c.execute("select seat, kind, count from result_faults where match_id = ?",
                          (mid,)).fetchall()
        rows[num] = (digest, seats, kinds)
    return rows
good, bad = per_match("good.db"), per_match("bad.db")
assert len(good) == len(bad) == 32
for num, (digest, seats, kinds) in bad.items():
    names = [n for _, n, _ in seats]
    badname = [n for n in names if n in want]
    if not badname:
        # no misbehaving bot in it: the very same match
        assert digest == good[num][0], (num, names)
        assert not kinds, (num, kinds)
        continue
    b = badname[0]
    seat_of = {n: s for s, n, _ in seats}
    for s, kind, count in kinds:
        assert s == seat_of[b], ("a fault charged to another seat", num, names, kinds)
        assert kind in (want[b], "forfeit"), ("wrong kind", b, kind)
    assert any(k == want[b] for _, k, _ in kinds), ("missing fault kind", num, b, kinds)
    assert all(f == 0 for s, n, f in seats if n != b), (num, seats)
# The same kinds in the replays' decision records.
for f in glob.glob("bad/*.rpl"):
    data = open(f, "rb").read()
    up = msgpack.Unpacker(raw=False); up.feed(data)
    recs = list(up)
    names = [p["name"] for p in recs[0]["players"]]
    b = [n for n in names if n in want]
    for r in recs[1:]:
        if r.get("t") != "d":
            continue
        for e in r["asked"]:
            if e["f"] != "none":
                assert b and names[e["s"]] == b[0], (f, e)
                assert e["f"] in (want[b[0]], "forfeit"), (f, e)
print("ok")
PYEOF
  ;;

direct)
  # (a) While the seat waits for the cmd: bot's first answer (no deadline),
  # a zmq: visitor says hello: only the waiting match's thread can welcome
  # it, and the cmd: bot answers only once the visitor was welcomed. A
  # second visitor connects, is welcomed and exits meanwhile (a disconnect).
  ep="ipc://$work/hub"
  visit="$RAW $LONE --endpoint $ep --hello-timeout 60"
  ( while [ ! -e acted ]; do sleep 0.05; done
    $visit --name visitor2 --exit-after-welcome --log v2.log >/dev/null 2>&1
    $visit --name visitor --touch welcomed --log v.log >/dev/null 2>&1 ) &
  visitors=$!
  "$ARENA" play $T random "cmd:$RAW --act-touch acted --act-wait-file welcomed --log w.log" \
    --listen "$ep" --seed 3 --opt games=2 --move-ms 0 --replay a.rpl --json >a.json 2>err.txt
  check "a hello while a seat waits: the match finishes (exit 0)" test $? = 0
  [ -e acted ] || kill $visitors
  wait
  check "the visitors were welcomed, the waiting bot played on, no fault" $PY - <<'PYEOF'
import json
for f in ("v.log", "v2.log"):
    recs = [json.loads(l) for l in open(f)]
    assert any(r["type"] == "welcome" for r in recs), (f, recs)
d = json.load(open("a.json"))
assert all(s["faults"] == 0 for s in d["seats"]), d
recs = [json.loads(l) for l in open("w.log")]
assert [r["ok"] for r in recs if r["type"] == "waited"] == [True], recs
assert len([r for r in recs if r["type"] == "act"]) > 1, recs
print("ok")
PYEOF
  check "its replay verifies" "$ARENA" replay verify a.rpl
  # (b) Late answers: dropped, the bot told `late`, the match the very same
  # as one where those acts get no answer at all.
  for bad in late silent; do
    "$ARENA" play $T random "cmd:$RAW --bad $bad --every 3 --times 2 --log $bad.log" --seed 5 \
      --opt games=2 --move-ms 1000 --replay $bad.rpl --json >$bad.json 2>err.txt
    check "$bad answers: the match finishes (exit 0)" test $? = 0
  done
  check "late answers dropped: two timeouts, two 'late' errors, the same match as silence" $PY - <<'PYEOF'
import json
late, silent = json.load(open("late.json")), json.load(open("silent.json"))
for d in (late, silent):
    assert d["seats"][1]["fault_kinds"] == {"timeout": 2}, d
assert late["digest"] == silent["digest"], (late["digest"], silent["digest"])
errs = [json.loads(l) for l in open("late.log")]
errs = [r for r in errs if r["type"] == "error"]
assert [r.get("code") for r in errs] == ["late", "late"], errs
print("ok")
PYEOF
  # (c) The same seeded tournament of cmd: bots, one match at a time and
  # through the hub's thread (--jobs 3): the same matches.
  for j in 1 3; do
    "$ARENA" tournament $T --bot "cmd:$RAW --seed 2" --bot "two=cmd:$RAW --seed 9" --bot random \
      --seats 2 --opt games=1 --seed 8 --move-ms 0 --jobs $j --db j$j.db -q >/dev/null 2>err.txt
    check "tournament --jobs $j exits 0" test $? = 0
  done
  check "the same digests with --jobs 1 and --jobs 3" $PY -c '
import sqlite3
d = [dict(sqlite3.connect(f).execute("select number, digest from matches")) for f in ("j1.db", "j3.db")]
assert len(d[0]) > 0 and d[0] == d[1], d'
  ;;

disconnect)
  "$ARENA" play $T random "cmd:$RAW --bad disconnect --every 30 --times 1" --seed 5 \
    --opt games=2 --move-ms 0 --replay d.rpl --json >d.json 2>err.txt
  check "a match whose client disconnects finishes (exit 0)" test $? = 0
  check "the disconnect recorded, the bot forfeits, the other seat unharmed" $PY -c '
import json; d = json.load(open("d.json")); a, b = d["seats"]
assert a["faults"] == 0 and not a["forfeit"], d
assert b["fault_kinds"].get("disconnect", 0) == 11 and b["fault_kinds"].get("forfeit") == 1 and b["forfeit"], d'
  check "its replay verifies" "$ARENA" replay verify d.rpl
  ;;

startup)
  expect2() { # expect2 PATTERN -- command: exit 2, last stderr line names the problem
    local pat=$1; shift 2
    "$@" >out.txt 2>err.txt
    local rc=$?
    if [ "$rc" = 2 ] && tail -1 err.txt | grep -qE -- "$pat" && [ ! -s out.txt ] && [ ! -e x.rpl ]; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1)); echo "FAIL: $* (rc=$rc, /$pat/)"; sed 's/^/  /' err.txt
    fi
  }
  expect2 "bot 'rawbot' \(cmd:.*\) never said hello within 3000 ms" -- \
    "$ARENA" play $T random "cmd:$RAW --bad nohello" --startup-ms 3000 --replay x.rpl
  # A hello refused for good ends the wait at once (a day of start-up time
  # is given: waited out, the test would never end): another protocol
  # version, with its token.
  expect2 "bot 'rawbot' \(cmd:.*\): a hello as 'rawbot' was refused \(protocol_version\): this referee speaks protocol 1, the hello asks for 2$" -- \
    "$ARENA" play $T random "cmd:$RAW --protocol 2" --startup-ms 86400000 --replay x.rpl
  expect2 "bot 'false' \(cmd:/bin/false\) exited with status 1 before saying hello" -- \
    "$ARENA" play $T random "cmd:/bin/false" --replay x.rpl
  expect2 "bot 'nobody' \(zmq:nobody\) did not connect" -- \
    "$ARENA" play $T random "zmq:nobody" --listen "ipc://$work/nobody" --startup-ms 1000 --replay x.rpl
  expect2 "names no command" -- "$ARENA" play $T random "cmd:" --replay x.rpl
  expect2 "plain tcp is refused" -- "$ARENA" play $T random "cmd:$RAW" --listen tcp://127.0.0.1:0 --replay x.rpl
  expect2 "plain tcp only on a loopback address" -- \
    "$ARENA" play $T random "cmd:$RAW" --listen tcp://0.0.0.0:0 --plain-tcp --replay x.rpl
  expect2 "zmq:x is given twice" -- "$ARENA" play $T "zmq:x" "zmq:x" --replay x.rpl
  # No process is left behind by any of the above.
  check "no bot process left" bash -c "! pgrep -f '[r]awbot.py --bad nohello' >/dev/null"
  ;;

capacity)
  "$ARENA" tournament $T --bot random --bot random2=random \
    --bot "cmd:$RAW --capacity 8 --hold-until 8 --hold-seconds 60 --log cap.log" \
    --seats 2 --rounds 4 --opt games=1 --jobs 8 --move-ms 0 --seed 6 --db c.db --json -q \
    --no-confine >c.json 2>err.txt # the bot writes its log here
  check "the capacity tournament exits 0" test $? = 0
  check "one bot process served 8 matches at once, never more" $PY -c '
import json
lines = [json.loads(l) for l in open("cap.log")]
assert lines[-1] == {"type": "summary", "max_running": 8}, lines[-1]
assert lines[0]["type"] == "welcome" and lines[0]["capacity"] == 8, lines[0]
assert sum(1 for l in lines if l["type"] == "start") == 16'
  check "no faults" $PY -c 'import json; d = json.load(open("c.json")); assert d["faults"] == 0 and d["matches"] == 24, d'
  ;;

jobs)
  # No deadline at all (--move-ms 0, --startup-ms of a day: the hellos of two
  # Python bots on a loaded machine are waited for as long as they take), so
  # the results cannot depend on the machine's load; a failing run's stderr
  # is shown (check shows err.txt).
  for j in 1 4; do
    "$ARENA" tournament $T --bots random,greedy --bot "cmd:$RAW --capacity 3" --bot "b2=cmd:$RAW --seed 5 --capacity 2" \
      --seats 3 --rounds 1 --opt games=1 --seed 21 --jobs $j --move-ms 0 --startup-ms 86400000 \
      --db j$j.db --replays r$j --json -q >j$j.json 2>err.txt
    # (a round of balanced seating at 3 seats: 4 combinations x 6 orders)
    check "--jobs $j exits 0" test $? = 0
  done
  check "the same standings and the same match digests whatever --jobs" $PY -c '
import json, sqlite3
a, b = [json.load(open("j%d.json" % j)) for j in (1, 4)]
key = lambda d: [(s["bot"], s["games"], s["wins"], s["score"], s["faults"]) for s in d["standings"]]
assert key(a) == key(b), (key(a), key(b))
q = "select number, digest from matches order by number"
da, db = [sqlite3.connect("j%d.db" % j).execute(q).fetchall() for j in (1, 4)]
assert da == db and len(da) == 24'
  check "the --jobs 4 replays verify" verify_all r4
  ;;

bin)
  # A raw client asking for the compact act gets it, and plays the same
  # match (its choices come from its own stream and the number of choices).
  for f in true false; do
    "$ARENA" play $T "cmd:$RAW --bin $f --log $f.log" random --seed 3 --move-ms 0 --replay $f.rpl \
      --json >$f.json 2>err.txt
    check "play with x_bin $f exits 0" test $? = 0
  done
  check "x_bin true: compact acts (the observation's 1360 bytes, 4 bytes a legal code)" $PY -c '
import json
acts = [json.loads(l) for l in open("true.log") if json.loads(l)["type"] == "act"]
assert acts and all(a["keys"] == ["x_legal_bin", "x_obs_bin"] for a in acts), acts[0]
assert all(a["sizes"][0] == 1360 and a["sizes"][1] % 4 == 0 and a["sizes"][1] >= 8 for a in acts), acts[0]'
  check "x_bin false: the full act" $PY -c '
import json
acts = [json.loads(l) for l in open("false.log") if json.loads(l)["type"] == "act"]
assert acts and all(a["keys"] == ["legal", "obs"] for a in acts), acts[0]'
  check "the same match either way" $PY -c '
import json
a, b = (json.load(open(f + ".json")) for f in ("true", "false"))
assert a["digest"] == b["digest"] and a["turns"] == b["turns"] and a["asked"] == b["asked"] > 0, (a, b)'
  check "the compact replay verifies" "$ARENA" replay verify true.rpl
  "$ARENA" play $T "cmd:$RAW --bin yes --log bad.log" random --seed 3 --move-ms 0 --json \
    --startup-ms 6000 >bad.json 2>err.txt
  check "x_bin \"yes\": the hello is refused as malformed, naming x_bin" $PY -c '
import json
errs = [json.loads(l) for l in open("bad.log") if json.loads(l)["type"] == "error"]
assert errs and errs[0]["code"] == "malformed" and "x_bin" in errs[0]["message"], errs'
  ;;

events)
  # Only external bots: --jobs 4 plays them in one thread that runs the
  # hub's loop (arena/run/executor_events.c), resuming each match when its
  # answer or its deadline comes. Each bad bot misbehaves once a match at
  # most (capacity 1: a late answer's sleep holds only its own match).
  for j in 1 4; do
    "$ARENA" tournament $T --bot "good=cmd:$RAW --capacity 3 --log good$j.log" \
      --bot "c=cmd:$EXAMPLE --capacity 4" --bot "late=cmd:$RAW --bad late --every 4 --times 1" \
      --bot "silent=cmd:$RAW --bad silent --every 4 --times 1" \
      --bot "garbage=cmd:$RAW --bad garbage --every 3" \
      --seats 2 --opt games=1 --seed 23 --move-ms 1500 --jobs $j --db e$j.db --replays e$j \
      --json -q --no-confine >e$j.json 2>err.txt
    check "--jobs $j with only external bots exits 0" test $? = 0
  done
  check "every match recorded, the same digests and fault kinds match by match" $PY - <<'PYEOF'
import json, sqlite3
def rows(j):
    c = sqlite3.connect("e%d.db" % j)
    out = {}
    for mid, num, digest in c.execute("select id, number, digest from matches where status = 'done'"):
        kinds = sorted(c.execute("select seat, kind, count from result_faults where match_id = ?",
                                 (mid,)).fetchall())
        out[num] = (digest, kinds)
    return out
a, b = rows(1), rows(4)
assert len(a) == len(b) == 20, (len(a), len(b))
assert a == b, [n for n in a if a[n] != b[n]]
kinds = {k for _, ks in b.values() for _, k, _ in ks}
assert {"timeout", "malformed"} <= kinds, kinds
d = json.load(open("e4.json")); assert d["matches"] == d["planned"] == 20, d
PYEOF
  check "the --jobs 4 replays verify" verify_all e4
  check "good, capacity 3, never had more than 3 matches at once" $PY -c '
import json
lines = [json.loads(l) for l in open("good4.log")]
assert lines[-1]["type"] == "summary" and 1 <= lines[-1]["max_running"] <= 3, lines[-1]'
  ;;

sdk)
  PYBOT="cmd:$PY $ROOT/sdk/python/examples/pyexample.py"
  CBOT="cmd:$EXAMPLE --capacity 4"
  games=$("$ARENA" games --json | $PY -c 'import json,sys; print(" ".join("%s:%d:%d" % (g["name"], g["min_seats"], g["max_seats"]) for g in json.load(sys.stdin)))')
  for gs in $games; do
    IFS=: read -r game lo hi <<<"$gs"
    args=(--bot random --bot "$PYBOT" --bot "$CBOT")
    if "$ARENA" bots --json | $PY -c 'import json,sys; sys.exit(0 if any(b["name"] == "greedy" and sys.argv[1] in b["games"] for b in json.load(sys.stdin)) else 1)' "$game"; then
      args+=(--bot greedy)
    else
      args+=(--bot random)
    fi
    n=4
    while [ "$n" -lt "$lo" ]; do args+=(--bot random); n=$((n + 1)); done
    seats=$(( lo > 3 ? lo : (hi < 3 ? hi : 3) ))
    opts=()
    [ "$game" = taylor-blackjack ] && opts=(--opt games=1)
    "$ARENA" tournament "$game" "${args[@]}" --seats "$seats" "${opts[@]}" --seed 31 --jobs 3 --move-ms 0 --db "$game.db" --replays "r-$game" --json -q \
      --confine-read "$ROOT/sdk/python" >"$game.json" 2>"$game.err" # confined (the default)
    check "$game: a tournament of a plugin, a Python SDK bot and a C client bot exits 0" test $? = 0
    check "$game: every replay verifies" verify_all "r-$game"
    check "$game: standings agree with the recorded results, no faults" $PY - "$game" <<'PYEOF'
import json, sqlite3, sys
game = sys.argv[1]
d = json.load(open(game + ".json"))
c = sqlite3.connect(game + ".db")
assert d["matches"] == d["planned"] and d["faults"] == 0, d
names = {s["bot"] for s in d["standings"]}
assert {"pyexample", "example_bot"} <= names, names
means = []
for s in d["standings"]:
    games, score, wins = c.execute(
        "select count(*), sum(r.score), sum(r.place = 1) from results r join match_seats m"
        " on m.match_id = r.match_id and m.seat = r.seat join participants p on p.slot = m.slot"
        " where p.name = ?", (s["bot"],)).fetchone()
    assert games == s["games"] and wins == s["wins"], (s, games, wins)
    assert abs(score / 27720 - s["score"]) < 1e-6, (s, score)
    means.append(score / games)
assert means == sorted(means, reverse=True), means
kinds = c.execute("select kind from bots where name in ('pyexample', 'example_bot')").fetchall()
assert sorted(kinds) == [("cmd",), ("cmd",)], kinds
PYEOF
  done
  # The SDK imports from the source tree with PYTHONPATH alone.
  check "import jackarena with PYTHONPATH=sdk/python" env PYTHONPATH="$ROOT/sdk/python" $PY -c \
    'import jackarena; assert jackarena.PROTOCOL == 1 and issubclass(jackarena.Bot, object)'
  ;;

curve)
  # Ports below the ephemeral range, free when drawn (tests/free_port.py).
  free_port() { $PY "$ROOT/tests/free_port.py"; }
  K="--curve --curve-dir $work/keys"
  # cmd: bots get the server key in JACKARENA_SERVER_KEY: the raw client, the
  # C client and the Python SDK all play over Curve on loopback tcp.
  "$ARENA" play $T random "cmd:$RAW" "cmd:$EXAMPLE" "cmd:$PY $ROOT/sdk/python/examples/pyexample.py" \
    $K --listen tcp://127.0.0.1:0 --seed 2 --opt games=1 --move-ms 0 --json >c1.json 2>err.txt
  check "Curve: cmd: bots with the right key play (exit 0)" test $? = 0
  check "Curve: no faults" $PY -c 'import json; d = json.load(open("c1.json")); assert all(s["faults"] == 0 for s in d["seats"]), d'
  check "the key pair was made: arena.key 0600, arena.pub" bash -c \
    "[ \"\$(stat -c %a '$work/keys/arena.key')\" = 600 ] && [ \"\$(wc -c <'$work/keys/arena.pub')\" = 41 ]"
  pub=$(cat "$work/keys/arena.pub")
  # A zmq: bot that knows the public key plays; one with a wrong key never
  # gets through the handshake, so the arena reports it never connected.
  port=$(free_port)
  $RAW $LONE --endpoint "tcp://127.0.0.1:$port" --name goodkey --server-key "$pub" >/dev/null 2>&1 &
  bot=$!
  "$ARENA" play $T random "zmq:goodkey" $K --listen "tcp://127.0.0.1:$port" --seed 2 --opt games=1 --move-ms 0 \
    --json >c2.json 2>err.txt
  check "Curve: a zmq: bot with the right server key plays" test $? = 0
  wait $bot
  wrong=$($PY -c 'import zmq; print(zmq.curve_keypair()[0].decode())')
  port=$(free_port)
  $RAW $LONE --endpoint "tcp://127.0.0.1:$port" --name badkey --server-key "$wrong" >/dev/null 2>&1 &
  bot=$!
  "$ARENA" play $T random "zmq:badkey" $K --listen "tcp://127.0.0.1:$port" --startup-ms 3000 \
    >out.txt 2>err.txt
  rc=$?
  check "Curve: a zmq: bot with a wrong server key is not let in (exit 2)" test $rc = 2
  check "... and the error names it" grep -q "bot 'badkey' (zmq:badkey) did not connect" err.txt
  kill $bot 2>/dev/null; wait $bot 2>/dev/null
  # An allow-list: the listed client key plays, another one does not.
  read -r cpub csec <<<"$($PY -c 'import zmq; p, s = zmq.curve_keypair(); print(p.decode(), s.decode())')"
  printf '# allowed bots\n%s\n' "$cpub" >allow.txt
  port=$(free_port)
  RAWBOT_PUBLIC_KEY=$cpub RAWBOT_SECRET_KEY=$csec $RAW $LONE --endpoint "tcp://127.0.0.1:$port" --name listed \
    --server-key "$pub" >/dev/null 2>&1 &
  bot=$!
  $RAW $LONE --endpoint "tcp://127.0.0.1:$port" --name unlisted --server-key "$pub" >/dev/null 2>&1 &
  bot2=$!
  "$ARENA" play $T "zmq:listed" random $K --curve-allow allow.txt --listen "tcp://127.0.0.1:$port" \
    --seed 2 --opt games=1 --move-ms 0 --json >c3.json 2>err.txt
  check "Curve allow-list: the listed key plays" test $? = 0
  wait $bot
  "$ARENA" play $T "zmq:unlisted" random $K --curve-allow allow.txt --listen "tcp://127.0.0.1:$port" \
    --startup-ms 2000 >out.txt 2>err.txt
  check "Curve allow-list: an unlisted key is refused (exit 2)" test $? = 2
  kill $bot2 2>/dev/null; wait $bot2 2>/dev/null
  printf 'not a key\n' >bad.txt
  "$ARENA" play $T random "cmd:$RAW" $K --curve-allow bad.txt --listen tcp://127.0.0.1:0 >out.txt 2>err.txt
  check "a malformed allow-list is a usage error naming the line" bash -c "[ $? = 2 ] && grep -q 'bad.txt. line 1' err.txt"
  ;;

identity)
  free_port() { $PY "$ROOT/tests/free_port.py"; }
  # played JSON DB NAME=LOG...: the tournament finished with no fault at all,
  # and each NAME's standing (games, wins) is exactly what its own process
  # saw in its log (start, then end with places): it played every match it
  # is credited with, itself.
  played() {
    $PY - "$@" <<'PYEOF'
import json, sqlite3, sys
d = json.load(open(sys.argv[1]))
assert d["matches"] == d["planned"] and d["faults"] == 0, d
st = {s["bot"]: s for s in d["standings"]}
c = sqlite3.connect(sys.argv[2])
for arg in sys.argv[3:]:
    name, log = arg.split("=", 1)
    seat, games, wins = {}, 0, 0
    for rec in map(json.loads, open(log)):
        if rec.get("via") == "steal":
            continue
        if rec["type"] == "start":
            seat[rec["match"]] = rec["seat"]
        elif rec["type"] == "end":
            games += 1
            wins += rec["places"][seat[rec["match"]]] == 1
            assert rec["faults"] == [0] * len(rec["faults"]), rec
    n = c.execute("select count(*) from match_seats m join participants p on p.slot = m.slot"
                  " and p.tournament_id = 1 where p.name = ?", (name,)).fetchone()[0]
    assert games == n == st[name]["games"] > 0, (name, games, n, st[name])
    assert wins == st[name]["wins"], (name, wins, st[name])
PYEOF
  }
  # refused LOG CODE...: the thief's other connections got exactly these
  # error codes, and never a welcome, a start or an act.
  refused() {
    $PY - "$@" <<'PYEOF'
import json, sys
recs = [r for r in map(json.loads, open(sys.argv[1])) if r.get("via") == "steal"]
got = [r["code"] for r in recs if r["type"] == "error"]
assert got == sys.argv[2:], (got, sys.argv[2:])
assert not [r for r in recs if r["type"] not in ("error", "bye", "ping")], recs
PYEOF
  }
  logged() { # logged N PATTERN: the arena's stderr has the refusal N times
    [ "$(grep -c -- "$2" err.txt)" = "$1" ] || { echo "  wanted $1 lines /$2/:"; grep arena: err.txt | head -5; false; }
  }
  # The bots log into the working directory, which confined bots may not
  # write (confinement has its own test, sandbox_confine).
  TOUR="--seats 2 --rounds 2 --opt games=1 --seed 5 --move-ms 0 --json -q --no-confine"

  # (a) A cmd: thief of the same tournament says hello as its fellow cmd:
  # bot `victim`, without a token, then with its own.
  "$ARENA" tournament $T --bot random --bot "victim=cmd:$RAW --log victim.log" \
    --bot "thief=cmd:$RAW --steal victim --steal-times 3 --log thief.log" $TOUR --db a.db >a.json 2>err.txt
  check "cmd: thief: the tournament exits 0" test $? = 0
  check "cmd: thief: the victim played all its matches itself, no fault anywhere" \
    played a.json a.db victim=victim.log thief=thief.log
  check "cmd: thief: each of its hellos as victim was refused (unauthorized)" \
    refused thief.log unauthorized unauthorized unauthorized unauthorized unauthorized unauthorized
  check "cmd: thief: one line on the arena's stderr per refused connection" \
    logged 3 "^arena: refused a hello as 'victim' (unauthorized): "

  # A cmd: bot started earlier that says hello under a later one's name
  # (with its own token) is refused: every cmd: bot's name is bound to its
  # token before the first one starts. The run stops at once (its token
  # proves the refused hello was the bot's own: no start-up time is waited
  # out, and a day is given), the later bot never seated behind it.
  "$ARENA" play $T "thief=cmd:$RAW --name victim" "victim=cmd:$RAW" --opt games=1 \
    --startup-ms 86400000 >out.txt 2>err.txt
  rc=$?
  check "a cmd: bot saying a later one's name is refused at once: exit 2, nothing played" bash -c \
    "[ $rc = 2 ] && [ ! -s out.txt ] && tail -1 err.txt | grep -q \"^arena: error: bot 'thief' (cmd:.*): a hello as 'victim' was refused (unauthorized): the name 'victim' belongs to a bot the arena started\""
  check "... and the refusal is logged" logged 1 "^arena: refused a hello as 'victim' (unauthorized): "

  # (b) zmq: bots started by hand: the first hello takes the name, a
  # second one for a live name is refused, on ipc and on loopback tcp.
  for ep in "ipc://$work/b.ep" "tcp://127.0.0.1:$(free_port)"; do
    rm -f v.log t.log
    $RAW $LONE --endpoint "$ep" --name victim --log v.log >/dev/null 2>&1 &
    v=$!
    $RAW $LONE --endpoint "$ep" --name thief --steal victim --steal-times 3 --log t.log >/dev/null 2>&1 &
    t=$!
    "$ARENA" tournament $T --bot random --bot zmq:victim --bot zmq:thief --listen "$ep" --plain-tcp \
      $TOUR --db "b${ep%%:*}.db" >b.json 2>err.txt
    check "zmq: thief on ${ep%%:*}: the tournament exits 0" test $? = 0
    kill $v $t 2>/dev/null; wait $v $t 2>/dev/null
    check "zmq: thief on ${ep%%:*}: the victim played all its matches itself, no fault anywhere" \
      played b.json "b${ep%%:*}.db" victim=v.log thief=t.log
    check "zmq: thief on ${ep%%:*}: its hellos as victim were refused (name_taken)" \
      refused t.log name_taken name_taken name_taken
    check "zmq: thief on ${ep%%:*}: logged once per connection" \
      logged 3 "^arena: refused a hello as 'victim' (name_taken): "
  done

  # (c) Curve with names bound to keys: mallory's listed key claims alice's
  # name; bob's key is a bare line and plays under a name bound to no key.
  K="--curve --curve-dir $work/keys"
  "$ARENA" play $T random "cmd:$RAW" $K --listen tcp://127.0.0.1:0 --opt games=1 >/dev/null \
    2>keys.err # makes the key pair
  pub=$(cat "$work/keys/arena.pub" 2>/dev/null)
  check "Curve, bound keys: the arena's key pair is there (arena.pub holds a key)" \
    bash -c '[ ${#1} = 40 ] || { sed "s/^/  key run: /" keys.err | tail -5; false; }' _ "$pub"
  read -r apub asec <<<"$($PY -c 'import zmq; p, s = zmq.curve_keypair(); print(p.decode(), s.decode())')"
  read -r mpub msec <<<"$($PY -c 'import zmq; p, s = zmq.curve_keypair(); print(p.decode(), s.decode())')"
  read -r bpub bsec <<<"$($PY -c 'import zmq; p, s = zmq.curve_keypair(); print(p.decode(), s.decode())')"
  printf '# bots and their keys\nalice %s\n  mallory\t%s\n\n%s\n' "$apub" "$mpub" "$bpub" >allow.txt
  port=$(free_port)
  ep="tcp://127.0.0.1:$port"
  rm -f v.log t.log b.log
  RAWBOT_PUBLIC_KEY=$apub RAWBOT_SECRET_KEY=$asec $RAW $LONE --endpoint "$ep" --name alice \
    --server-key "$pub" --log v.log >/dev/null 2>v.err &
  v=$!
  RAWBOT_PUBLIC_KEY=$mpub RAWBOT_SECRET_KEY=$msec $RAW $LONE --endpoint "$ep" --name mallory \
    --server-key "$pub" --steal alice --steal-times 3 --log t.log >/dev/null 2>t.err &
  t=$!
  RAWBOT_PUBLIC_KEY=$bpub RAWBOT_SECRET_KEY=$bsec $RAW $LONE --endpoint "$ep" --name bob \
    --server-key "$pub" --log b.log >/dev/null 2>b.err &
  b=$!
  "$ARENA" tournament $T --bot zmq:alice --bot zmq:mallory --bot zmq:bob $K --curve-allow allow.txt \
    --listen "$ep" $TOUR --db c.db >c.json 2>err.txt
  rc=$?
  check "Curve, bound keys: the tournament exits 0" test $rc = 0
  # (A failure here once saw no hello at all from the three: what they said.)
  [ $rc = 0 ] || for f in v.err t.err b.err; do sed "s/^/  $f: /" $f | tail -3; done
  kill $v $t $b 2>/dev/null; wait $v $t $b 2>/dev/null
  check "Curve, bound keys: alice, mallory and bob (a bare key) played their own matches, no fault" \
    played c.json c.db alice=v.log mallory=t.log bob=b.log
  check "Curve, bound keys: mallory's key saying hello as alice was refused (unauthorized)" \
    refused t.log unauthorized unauthorized unauthorized
  check "Curve, bound keys: logged once per connection" \
    logged 3 "^arena: refused a hello as 'alice' (unauthorized): "
  # A bare key may not take a bound name; a bound key no name of another.
  for who in "$bpub $bsec alice" "$mpub $msec carol"; do
    read -r kp ks nm <<<"$who"
    port=$(free_port)
    RAWBOT_PUBLIC_KEY=$kp RAWBOT_SECRET_KEY=$ks $RAW $LONE --endpoint "tcp://127.0.0.1:$port" --name "$nm" \
      --server-key "$pub" >/dev/null 2>&1 &
    x=$!
    "$ARENA" play $T random "zmq:$nm" $K --curve-allow allow.txt --listen "tcp://127.0.0.1:$port" \
      --startup-ms 6000 >out.txt 2>err.txt
    rc=$?
    kill $x 2>/dev/null; wait $x 2>/dev/null
    check "Curve, bound keys: a hello as $nm from a key not allowed it is refused (exit 2, says why)" \
      bash -c "[ $rc = 2 ] && tail -1 err.txt | grep -q \"zmq:$nm) did not connect .*: a hello as '$nm' was refused: the name '$nm' is not this client key's\""
  done
  # Malformed lines: a usage error naming the file and the line.
  for bad in "alice notakey" "alice $apub extra" "$apub extra" "$(printf 'n%.0s' {1..64}) $apub"; do
    printf '%s\n%s\n' "$bpub" "$bad" >bad.txt
    "$ARENA" play $T random "cmd:$RAW" $K --curve-allow bad.txt --listen tcp://127.0.0.1:0 >out.txt 2>err.txt
    rc=$?
    check "--curve-allow line '${bad:0:20}...' is a usage error naming file and line" \
      bash -c "[ $rc = 2 ] && grep -q \"^arena: error: --curve-allow 'bad.txt' line 2: \" err.txt && [ ! -s out.txt ]"
  done

  # A cmd: bot that does not send its token is refused, and the arena says
  # so at once: on ipc the hello came from a process of the bot's.
  "$ARENA" play $T random "notoken=cmd:env -u JACKARENA_TOKEN $RAW" --startup-ms 86400000 \
    >out.txt 2>err.txt
  rc=$?
  check "a cmd: bot without its token: exit 2 at once, naming the refusal" bash -c \
    "[ $rc = 2 ] && tail -1 err.txt | grep -q \"bot 'notoken' (cmd:.*): a hello as 'notoken' was refused (unauthorized): .*JACKARENA_TOKEN\""
  # On tcp the hub cannot tell whose the connection is: the same bot is
  # waited for until its start-up time is out, then the refusal is named.
  "$ARENA" play $T random "notoken=cmd:env -u JACKARENA_TOKEN $RAW" --startup-ms 6000 \
    --listen tcp://127.0.0.1:0 --plain-tcp >out.txt 2>err.txt
  rc=$?
  check "... on tcp: exit 2 after the start-up time, naming the refusal" bash -c \
    "[ $rc = 2 ] && tail -1 err.txt | grep -q \"bot 'notoken' (cmd:.*) never said hello within 6000 ms: a hello as 'notoken' was refused: .*JACKARENA_TOKEN\""

  # A bot whose connection died gets its name back: phoenix's first process
  # says hello and exits; a second one says hello as phoenix (again while
  # the hub may still see the first: name_taken, retried), and only then
  # does the gate bot say hello, so every match is the second process's.
  rm -f ready p2.log
  $RAW $LONE --endpoint "ipc://$work/d.ep" --name phoenix --exit-after-welcome >/dev/null 2>&1 &
  p1=$!
  "$ARENA" tournament $T --bot zmq:phoenix --bot "gate=cmd:$RAW --wait-file ready --log gate.log" \
    --listen "ipc://$work/d.ep" --startup-ms 60000 $TOUR --db d.db >d.json 2>err.txt &
  arena=$!
  wait $p1
  check "phoenix's first process was welcomed and exited" test $? = 0
  $RAW $LONE --endpoint "ipc://$work/d.ep" --name phoenix --retry-refused 100 --touch ready \
    --log p2.log >/dev/null 2>&1 &
  p2=$!
  wait $arena
  check "reconnect: the tournament exits 0" test $? = 0
  wait $p2
  check "reconnect: the second process exited on the referee's bye" test $? = 0
  check "reconnect: the second process got the name back and played every match of phoenix" \
    played d.json d.db phoenix=p2.log gate=gate.log
  ;;

conformance)
  for bot in "cmd:$EXAMPLE --capacity 4" "cmd:$PY $ROOT/sdk/python/examples/pyexample.py" "cmd:$RAW"; do
    "$ARENA" conformance "$bot" --move-ms 10000 >conf.txt 2>err.txt
    check "conformance passes $bot" bash -c "[ $? = 0 ] && tail -1 conf.txt | grep -qx conformant"
  done
  grep -q "up to 4 at once" <("$ARENA" conformance "cmd:$EXAMPLE --capacity 4" --game $T --move-ms 10000)
  check "conformance uses the bot's capacity" test $? = 0
  for bad in "stale:protocol" "range:illegal" "garbage:malformed" "late:timeout"; do
    "$ARENA" conformance "cmd:$RAW --bad ${bad%%:*} --every 7 --times 1" --move-ms 3000 >conf.txt 2>err.txt
    rc=$?
    check "conformance fails a ${bad%%:*} client (exit 1) naming the fault" \
      bash -c "[ $rc = 1 ] && grep -q 'FAIL  $T: .*${bad##*:}' conf.txt && tail -1 conf.txt | grep -q 'not conformant'"
  done
  "$ARENA" conformance random >out.txt 2>err.txt
  check "conformance of a plugin is a usage error" bash -c "[ $? = 2 ] && grep -q 'checks external bots' err.txt"
  ;;

*)
  echo "test_proto.sh: unknown case '$CASE'" >&2
  exit 2
  ;;
esac
finish
