#!/usr/bin/env bash
# `arena replay show` (plain text when stdout is not a terminal) against the
# expected dumps in expected/ (every view of every game: the omniscient one
# and seat 1's), the seat views' boundary (seat_view_check: a seat's view
# does not change when everything it may not see is scrambled), forfeits,
# refusals of bad replays by verify, show and html, and self-contained HTML
# pages.
# Bot logs (7.): under their decision, every seat's in the omniscient view,
# the seat's own in its view, none in the public view, within 80 columns, no
# escape reaching the terminal; in the page's model at their frames.
# Usage: test_viewer.sh ARENA SOURCE_DIR CHECKER FAULTY_PLUGIN LOGGER_PLUGIN
#        (UPDATE=1 rewrites expected/)
set -u
A=$1
SRC=$2
CHECKER=$3
FAULTY=$4
LOGGER=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
. "$SRC/matches.sh"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

play_all "$A" && play_forfeit "$A" "$FAULTY" && play_tables "$A" && play_logs "$A" "$LOGGER" ||
  { echo "FAIL: could not play the test matches"; exit 1; }

# 1. The plain-text dump of each game, omniscient and as seat 1 saw it,
# against its expected output.
expect_dump() { # expect_dump NAME ARGS...: show ARGS against expected/NAME.txt
  local name=$1; shift
  NO_COLOR= TERM=xterm "$A" replay show "$@" | no_times >$name.txt || bad "show $name exits non-zero"
  if [ "${UPDATE:-}" = 1 ]; then cp $name.txt "$SRC/expected/$name.txt"; fi
  if diff -u "$SRC/expected/$name.txt" $name.txt >diff.txt; then ok; else bad "show $name differs"; head -20 diff.txt; fi
  grep -q $'\033' $name.txt && bad "show $name: colours when not a terminal" || ok
}
for g in $GAMES forfeit; do
  expect_dump $g $g.rpl
  expect_dump $g.seat1 $g.rpl --seat 1
done

# 2. --seat S shows only seat S's cards (Taylor Blackjack: hands are
# private), and no decision numbers.
"$A" replay show taylor-blackjack.rpl --seat 1 | no_times >seat1.txt || bad "show --seat 1"
"$A" replay show taylor-blackjack.rpl --seat 0 | no_times >seat0.txt || bad "show --seat 0"
if grep -q '^  seat 1 random .*cards\?:' seat1.txt && ! grep -q '^  seat 0 greedy .*cards\?:' seat1.txt; then ok; else bad "--seat 1 shows another hand"; fi
if grep -q '^  seat 0 greedy .*cards\?:' seat0.txt && ! grep -q '^  seat 1 random .*cards\?:' seat0.txt; then ok; else bad "--seat 0 shows another hand"; fi
grep -q 'decision [0-9]' seat1.txt && bad "--seat view numbers decisions" || ok
# Seat 1's hand lines in its view are the omniscient dump's lines for seat 1.
diff <(grep '^  seat 1 random .*cards\?:' seat1.txt | sort -u) \
     <(grep '^  seat 1 random .*cards\?:' taylor-blackjack.txt | sort -u) >/dev/null && ok || bad "--seat 1 hands differ from the omniscient view"
# What seat 1 may see of seat 0: its card count (hand_count), as the
# omniscient view counts seat 0's cards.
diff <(grep -oE '^  seat 0 greedy +score [0-9]+ +[0-9]+ cards?' seat1.txt | awk '{print $6}' | uniq) \
     <(grep -B100000 '^== result' taylor-blackjack.txt | grep -oE '^  seat 0 greedy +score [0-9]+ +[0-9]+ cards?' |
       awk '{print $6}' | uniq) >/dev/null && ok || bad "--seat 1 does not show seat 0's card counts"
# Neither the seed nor the number of decisions (how long the match lasts)
# in a seat's view; who decides now in every frame of every view.
for g in $GAMES; do
  for v in "" "--seat 0" "--seat 1" "--public"; do
    "$A" replay show $g.rpl $v >v.txt
    frames=$(grep -c '^== ' v.txt); deciding=$(grep -c '^  to act: ' v.txt)
    [ $((frames - 1)) = "$deciding" ] && ok || bad "$g $v: $((frames - 1)) frames, $deciding 'to act' lines"
    if [ -n "$v" ]; then
      head -1 v.txt | grep -qE 'seed|decisions' && bad "$g $v: the header gives the seed or the length" || ok
    fi
  done
done
# Bombs: the current trick, in order, with who played it.
grep -q '^  this trick: seat 1 (random) run 7-Q, seat 2 (random#2) bomb K,$' bombs.txt && ok || bad "bombs: no trick history"
grep -A3 '^  last trick: ' bombs.seat1.txt | grep -q ' wins the trick$' && ok || bad "bombs --seat 1: no finished trick"
# Bombs at two tables: a seat sees counts at its own table only, and who
# decides there.
"$A" replay show bombs6.rpl --seat 3 >b6.txt
grep -q '^  seat 0 greedy .* at table 1$' b6.txt && ok || bad "bombs6 --seat 3: seat 0 not shown at table 1"
grep -q '^  to act: a seat at another table$' b6.txt && ok || bad "bombs6 --seat 3: another table's turn not shown"
grep -q '^  exchange: ' b6.txt && ok || bad "bombs6 --seat 3: no exchange"

# 2b. --public: what the table shows to everyone (JA_EXT_OBSERVE_PUBLIC).
# No seat's private hand: none of the omniscient view's hand lines (a seat's
# own cards: "N cards:", BrawlJack's drawn card, Bruise Jack's centre) is in
# it, and no record of a decision; the same output twice.
hand_lines='^  seat [0-9]+ .*( [0-9]+ cards?:|  drawn |  centre )'
for g in $GAMES bombs6; do
  "$A" replay show $g.rpl --public >pub1.txt || bad "$g --public exits non-zero"
  "$A" replay show $g.rpl --public >pub2.txt
  cmp -s pub1.txt pub2.txt && ok || bad "$g --public: two runs differ"
  grep -q '^view: public' pub1.txt && grep -q '^== the table shows ==$' pub1.txt && ok ||
    bad "$g --public: not the public view"
  "$A" replay show $g.rpl >all.txt
  grep -qE "$hand_lines" all.txt && ok || bad "$g: the omniscient view shows no hand line"
  grep -qE "$hand_lines" pub1.txt && bad "$g --public shows a seat's hand" || ok
  grep -qE '^seat [0-9]+ \(.*\): .*\[' pub1.txt && bad "$g --public shows a decision's record" || ok
done
# Taylor Blackjack: every seat's card count, as the omniscient view counts.
"$A" replay show taylor-blackjack.rpl --public >pub.txt
diff <(grep -oE '^  seat 0 greedy +score [0-9]+ +[0-9]+ cards?' pub.txt | awk '{print $6}' | uniq) \
     <(grep -B100000 '^== result' taylor-blackjack.txt | grep -oE '^  seat 0 greedy +score [0-9]+ +[0-9]+ cards?' |
       awk '{print $6}' | uniq) >/dev/null && ok || bad "--public does not show seat 0's card counts"
# Bombs at two tables: no table's play is seen by every seat.
"$A" replay show bombs6.rpl --public >b6p.txt
grep -q '^  to act: a seat at a table not shown$' b6p.txt && ok || bad "bombs6 --public: shows a table"

# 3. The seat views' boundary, every seat of every match.
"$CHECKER" $(printf '%s.rpl ' $GAMES) forfeit.rpl bombs6.rpl logs.rpl 2>&1 | sed 's/^/  /' >check.txt
[ ${PIPESTATUS[0]} = 0 ] && ok || { bad "seat views depend on what the seat may not see"; cat check.txt; }

# 4. A forfeit: marked at the decision it happened (the faulty bot's first
# fault, decision 5) and in the result, in the views that may see it.
[ "$(grep -c 'FORFEITS the match' forfeit.txt)" = 1 ] && ok || bad "forfeit: not marked once"
grep -B1 'FORFEITS the match' forfeit.txt | grep -q '^== decision 5/' && ok || bad "forfeit: not marked at decision 5"
grep -q '^seat 1 (faulty): .*FAULT: illegal  FORFEITS the match$' forfeit.seat1.txt && ok || bad "forfeit --seat 1: not marked"
"$A" replay show forfeit.rpl --seat 0 >f0.txt
grep -q 'FORFEITS' f0.txt && bad "forfeit --seat 0 sees seat 1's decision" || ok
for v in forfeit.txt forfeit.seat1.txt f0.txt; do
  grep -qE '^  place 2  seat 1 faulty .* faults 2  forfeited$' $v && ok || bad "$v: the result does not mark the forfeit"
  grep -qE '^  place 1  seat 0 .*forfeited' $v && bad "$v: marks seat 0" || ok
done

# 5. Bad replays: truncated, corrupt, future version; and usage errors.
# expect_refused CODE PATTERN -- command: exit CODE, one stderr line matching
# PATTERN, empty stdout, no file created.
expect_refused() {
  local code=$1 pat=$2; shift 3
  local before after rc lines
  before=$(ls -A | sort)
  "$@" >out.txt 2>err.txt; rc=$?
  after=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' | sort)
  before=$(echo "$before" | grep -v -e '^out.txt$' -e '^err.txt$')
  lines=$(wc -l <err.txt)
  if [ $rc = "$code" ] && [ "$lines" = 1 ] && grep -qE -- "$pat" err.txt && [ ! -s out.txt ] && [ "$before" = "$after" ]; then
    ok
  else
    bad "$* (rc=$rc, want $code, /$pat/)"; sed 's/^/  stderr: /' err.txt
  fi
  rm -f out.txt err.txt
}
size=$(stat -c %s taylor-blackjack.rpl)
head -c $((size / 2)) taylor-blackjack.rpl >trunc.rpl
/usr/bin/python3 - <<'PY'
d = bytearray(open("taylor-blackjack.rpl", "rb").read())
c = bytearray(d)
mid = len(c) // 2
c[mid:mid + 16] = b"\xc1" * 16           # 0xc1 is never valid msgpack
open("corrupt.rpl", "wb").write(c)
key = b"\xa7version\x01"
assert key in d, "version key not found"
open("future.rpl", "wb").write(d.replace(key, b"\xa7version\x09", 1))
PY
mkdir -p out
for cmd in "verify" "show" "html"; do
  extra=(); [ $cmd = html ] && extra=(-o out/x.html)
  expect_refused 2 'trunc\.rpl.*(offset|byte)' -- "$A" replay $cmd trunc.rpl "${extra[@]}"
  expect_refused 2 'corrupt\.rpl.*(offset|byte)' -- "$A" replay $cmd corrupt.rpl "${extra[@]}"
  expect_refused 2 'future\.rpl.*version' -- "$A" replay $cmd future.rpl "${extra[@]}"
  expect_refused 2 'missing\.rpl' -- "$A" replay $cmd missing.rpl "${extra[@]}"
done
[ -z "$(ls -A out)" ] && ok || bad "html left a file behind"
expect_refused 2 'seat' -- "$A" replay show taylor-blackjack.rpl --seat 2
expect_refused 2 'seat' -- "$A" replay show taylor-blackjack.rpl --seat x
expect_refused 2 'unknown option' -- "$A" replay show taylor-blackjack.rpl --bogus
expect_refused 2 '--public and --seat' -- "$A" replay show taylor-blackjack.rpl --public --seat 1
expect_refused 2 '-o OUT.html' -- "$A" replay html taylor-blackjack.rpl
expect_refused 2 "-o 'nodir/x.html': directory 'nodir' does not exist" -- "$A" replay html taylor-blackjack.rpl -o nodir/x.html

# 6. HTML pages: one self-contained file per game, no network reference.
for g in $GAMES; do
  "$A" replay html $g.rpl -o $g.html || bad "html $g"
  if grep -qiE 'https?://|<script[^>]+src=|<link[^>]+href=|<img[^>]+src=|url\(' $g.html; then
    bad "html $g refers to something outside the page"
  else ok; fi
  /usr/bin/python3 - "$g.html" "$SRC" <<'PY' && ok || bad "html $g: the embedded model is not the match"
import sys
sys.path.insert(0, sys.argv[2])
import page_model
s, m, d = page_model.read(sys.argv[1])
assert d["model"] == 3 and len(d["frames"]) >= 2 and len(d["frames"][0]["obs"]) == d["seats"]
assert s.count("<script") == 2 and s.rstrip().endswith("</html>")
# The script and the style are in the page.
assert "function rebuild(D)" in s and "<style>" in s
# Every seat sees the deal and the end; every applied code has its label.
n = d["seats"]
assert d["frames"][0]["seen"] == d["frames"][-1]["seen"] == list(range(n)), "seen"
codes = {a["code"] for f in d["frames"] for a in f["asked"]}
assert {int(k) for k, v in d["labels"].items() if v} == codes, "labels"
assert d["outcome"]["forfeit"] == [0] * n and not any(a["forfeits"] for f in d["frames"] for a in f["asked"])
PY
done
# The observations the page's model holds as changes are every frame's whole
# observations (bombs6: two tables, windows of events that move on).
"$A" replay html bombs6.rpl -o bombs6.html || bad "html bombs6"
for g in $GAMES bombs6; do
  "$CHECKER" --obs $g.rpl >$g.obs.jsonl || bad "seat_view_check --obs $g"
  /usr/bin/python3 - "$g.html" "$SRC" $g.obs.jsonl <<'PY' && ok || bad "html $g: the observations unpacked from the page are not the match's"
import json, sys
sys.path.insert(0, sys.argv[2])
import page_model
d = page_model.read(sys.argv[1])[2]
want = [json.loads(l) for l in open(sys.argv[3])]
got = [f["obs"] for f in d["frames"]]
assert len(got) == len(want), (len(got), len(want))
bad = [i for i in range(len(want)) if got[i] != want[i]]
assert not bad, "frames %s differ" % bad[:5]
PY
done
# The forfeit in the page's model: at decision 5, for seat 1.
"$A" replay html forfeit.rpl -o forfeit.html || bad "html forfeit"
/usr/bin/python3 - forfeit.html "$SRC" <<'PY' && ok || bad "html forfeit: the model does not mark the forfeit at decision 5"
import sys
sys.path.insert(0, sys.argv[2])
import page_model
d = page_model.read(sys.argv[1])[2]
at = [(i, a["seat"]) for i, f in enumerate(d["frames"]) for a in f["asked"] if a["forfeits"]]
assert at == [(5, 1)] and d["outcome"]["forfeit"] == [0, 5], (at, d["outcome"])
PY

# 7. Bot logs (docs/replay-format.md, "Bot logs"): under the decision, as
# each view may see them.
"$A" replay show logs.rpl >logs.txt || bad "show logs"
"$A" replay show logs.rpl --seat 0 >logs0.txt || bad "show logs --seat 0"
"$A" replay show logs.rpl --seat 1 >logs1.txt || bad "show logs --seat 1"
"$A" replay show logs.rpl --public >logsp.txt || bad "show logs --public"
grep -q '^  | seat 0 turn 1: ' logs.txt && grep -q '^  | seat 1 turn 1: ' logs.txt && ok ||
  bad "logs: the omniscient view does not show both seats' logs"
grep -q '^  | seat 0 turn 2: ' logs0.txt && ! grep -qE 'seat 1 turn|xxxx' logs0.txt && ok ||
  bad "logs: --seat 0 shows another seat's log, or not its own"
grep -qF '  | <b id="botlog-markup">not bold</b>' logs0.txt && ok || bad "logs: --seat 0 lacks its line of HTML"
grep -q '^  | seat 1 turn 2: ' logs1.txt && ! grep -qE 'seat 0 turn|botlog-markup' logs1.txt && ok ||
  bad "logs: --seat 1 shows another seat's log, or not its own"
grep -qE 'turn [0-9]+:|xxxx|log of seat' logsp.txt && bad "logs: the public view shows a log" || ok
# Each log right under its decision's record: the omniscient view's lines
# "log of seat S" follow a record of seat S.
/usr/bin/python3 - logs.txt <<'PY' && ok || bad "logs: a log is not under its decision's record"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
n = 0
for i, l in enumerate(lines):
    m = re.match(r"  log of seat (\d) ", l)
    if m:
        n += 1
        j = i - 1
        while lines[j].startswith("  | ") or lines[j].startswith("  log of seat"):
            j -= 1
        assert re.match(r"seat %s \(" % m.group(1), lines[j]) or lines[j - 1].startswith("seat"), (i, l)
assert n > 10, n
PY
grep '^  | ' logs.txt | awk 'length > 80' | grep -q . && bad "logs: a log line wider than 80 columns" || ok
grep -q '^  | xxxxxxxx' logs.txt && ok || bad "logs: the flood's lines are not shown"
# A log holding an escape, a C1 control and invalid bytes (a replay written
# by hand): nothing of them reaches the terminal.
NO_COLOR=1 "$A" replay show "$SRC/../fuzz/corpus/replay/log-dirty.rpl" >dirty.txt || bad "show log-dirty"
LC_ALL=C grep -q $'\033\|\xc2\x9b' dirty.txt && bad "logs: an escape reaches the terminal" || ok
grep -q '^  | ?\[2J?ok' dirty.txt && ok || bad "logs: the cleaned log is not shown"
# The page's model: each log at the frame its decision led to.
"$A" replay html logs.rpl -o logs.html || bad "html logs"
/usr/bin/python3 - logs.html logs.rpl "$SRC" <<'PY' && ok || bad "html logs: the model's logs are not the replay's"
import sys
import msgpack
sys.path.insert(0, sys.argv[3])
import page_model
d = page_model.read(sys.argv[1])[2]
want = {(r["n"] + 1, r["s"]): r["text"] for r in msgpack.Unpacker(open(sys.argv[2], "rb"), raw=False)
        if r.get("t") == "log"}
got = {(f, l["seat"]): l["text"] for f, fr in enumerate(d["frames"]) for l in fr.get("logs", [])}
assert got == want and len(want) > 10, (len(got), len(want))
PY

echo "viewer_text: $pass passed, $fail failed"
[ $fail = 0 ]
