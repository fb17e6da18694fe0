#!/usr/bin/env bash
# `arena replay show` (plain text when stdout is not a terminal) against the
# expected dumps in expected/, --seat views, refusals of bad replays by
# verify, show and html, and self-contained HTML pages.
# Usage: test_viewer.sh ARENA SOURCE_DIR   (UPDATE=1 rewrites expected/)
set -u
A=$1
SRC=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
. "$SRC/matches.sh"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

play_all "$A" || { echo "FAIL: could not play the test matches"; exit 1; }

# 1. The plain-text dump of each game against its expected output.
for g in $GAMES; do
  NO_COLOR= TERM=xterm "$A" replay show $g.rpl | no_times >$g.txt || bad "show $g exits non-zero"
  if [ "${UPDATE:-}" = 1 ]; then cp $g.txt "$SRC/expected/$g.txt"; fi
  if diff -u "$SRC/expected/$g.txt" $g.txt >diff.txt; then ok; else bad "show $g differs"; head -20 diff.txt; fi
  grep -q $'\033' $g.txt && bad "show $g: colours when not a terminal" || ok
done

# 2. --seat S shows only seat S's cards (Taylor Blackjack: hands are
# private), and no decision numbers.
"$A" replay show taylor-blackjack.rpl --seat 1 | no_times >seat1.txt || bad "show --seat 1"
"$A" replay show taylor-blackjack.rpl --seat 0 | no_times >seat0.txt || bad "show --seat 0"
if grep -q '^  seat 1 random .*cards:' seat1.txt && ! grep -q '^  seat 0 greedy .*cards:' seat1.txt; then ok; else bad "--seat 1 shows another hand"; fi
if grep -q '^  seat 0 greedy .*cards:' seat0.txt && ! grep -q '^  seat 1 random .*cards:' seat0.txt; then ok; else bad "--seat 0 shows another hand"; fi
grep -q 'decision [0-9]' seat1.txt && bad "--seat view numbers decisions" || ok
# Seat 1's hand lines in its view are the omniscient dump's lines for seat 1.
diff <(grep '^  seat 1 random .*cards:' seat1.txt | sort -u) \
     <(grep '^  seat 1 random .*cards:' taylor-blackjack.txt | sort -u) >/dev/null && ok || bad "--seat 1 hands differ from the omniscient view"

# 3. Bad replays: truncated, corrupt, future version; and usage errors.
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
expect_refused 2 '-o OUT.html' -- "$A" replay html taylor-blackjack.rpl
expect_refused 2 "-o 'nodir/x.html': directory 'nodir' does not exist" -- "$A" replay html taylor-blackjack.rpl -o nodir/x.html

# 4. HTML pages: one self-contained file per game, no network reference.
for g in $GAMES; do
  "$A" replay html $g.rpl -o $g.html || bad "html $g"
  if grep -qiE 'https?://|<script[^>]+src=|<link[^>]+href=|<img[^>]+src=|url\(' $g.html; then
    bad "html $g refers to something outside the page"
  else ok; fi
  /usr/bin/python3 - "$g.html" <<'PY' && ok || bad "html $g: the embedded model is not the match"
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S)
d = json.loads(m.group(1))
assert d["model"] == 1 and len(d["frames"]) >= 2 and len(d["frames"][0]["obs"]) == d["seats"]
assert s.count("<script") == 2 and s.rstrip().endswith("</html>")
PY
done

echo "viewer_text: $pass passed, $fail failed"
[ $fail = 0 ]
