#!/usr/bin/env bash
# The size of a report's match pages, in bytes: a fixed tournament of three
# whole Bombs matches (12 hands, about 1200 decisions each; cyclic seating),
# then every match page costs at most 100 KB (102400 bytes) more than its
# replay file, and the viewer's script and style are in the site once,
# beside the pages, which refer to them and do not hold them. Then the same
# budget for Taylor Blackjack's longest pages (its public observations
# written beside the seats' made them 103 KB over their replays before the
# model said "the same as seat S's").
# Usage: test_report_size.sh ARENA
set -u
A=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
LIMIT=102400

"$A" tournament bombs --bots random,random,random --rounds 1 --seating cyclic --seed 1 --db t.db --replays rp -q \
  >/dev/null || { echo "FAIL: the tournament did not run"; exit 1; }
"$A" report --db t.db -o site >/dev/null || { echo "FAIL: the report did not run"; exit 1; }

# Each match's page against its replay, by the database's replay paths:
# check_pages DB SITE LABEL WANT (WANT pages).
check_pages() {
  local db=$1 site=$2 label=$3 want=$4 pages=0 id rpl page p r
  while IFS='|' read -r id rpl; do
    page=$site/matches/m$id.html
    if [ ! -f "$page" ]; then bad "$label match $id: no page"; continue; fi
    pages=$((pages + 1))
    p=$(stat -c %s "$page") r=$(stat -c %s "$rpl")
    echo "$label match $id: page $p bytes, replay $r bytes, page - replay $((p - r))"
    [ $((p - r)) -le $LIMIT ] && ok || bad "$label match $id: the page is $p bytes, its replay $r: $((p - r)) > $LIMIT"
  done < <(/usr/bin/python3 -c 'import sqlite3, sys
for i, r in sqlite3.connect(sys.argv[1]).execute("SELECT id, replay FROM matches ORDER BY id"):
    print("%d|%s" % (i, r))' "$db")
  [ $pages = "$want" ] && ok || bad "$pages $label match pages, want $want"
}
check_pages t.db site bombs 3

# The script and the style: once in the site, referred to by every page.
[ "$(find site -name replay.js | wc -l)" = 1 ] && [ -s site/matches/replay.js ] && ok \
  || bad "replay.js is not in the site once: $(find site -name replay.js)"
[ "$(find site -name replay.css | wc -l)" = 1 ] && [ -s site/matches/replay.css ] && ok \
  || bad "replay.css is not in the site once: $(find site -name replay.css)"
for page in site/matches/m*.html; do
  grep -q '<script src="replay.js"></script>' "$page" && grep -q '<link rel="stylesheet" href="replay.css">' "$page" \
    && ok || bad "$page does not refer to replay.js and replay.css"
  [ "$(grep -c '<style\|function rebuild' "$page")" = 0 ] && ok || bad "$page holds the script or the style"
done
echo "site: $(du -sb site | cut -f1) bytes"

# Taylor Blackjack, 2 seats, 4 games a match: 6 matches, the longest pages.
"$A" tournament taylor-blackjack --bots random,random --rounds 3 --seed 1 --db tb.db --replays tb -q \
  >/dev/null || { echo "FAIL: the Taylor Blackjack tournament did not run"; exit 1; }
"$A" report --db tb.db -o tsite >/dev/null || { echo "FAIL: the Taylor Blackjack report did not run"; exit 1; }
check_pages tb.db tsite taylor 6

echo "viewer_report_size: $pass passed, $fail failed"
[ $fail = 0 ]
