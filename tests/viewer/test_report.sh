#!/usr/bin/env bash
# `arena report` at the text level: a small tournament with --replays (and a
# second one without), then the site: self-contained (no http(s)://, no
# src= in the index, every href and src of every page a file of the site
# (check_links.py), the match pages sharing the viewer's script and style,
# the server's style as site.css), every bot listed and given its page
# (results per opponent, rating line, histogram, matches), the SVG chart
# with one line per bot, the fitted intervals drawn (one bar per rated bot),
# the crosstable's shades and legend, a histogram per bot, --no-spoilers
# (no score or place in any match list, the watch links kept), links only
# for matches whose replay loads, --help,
# --tournament and --game, the replacement of an earlier report, usage
# errors that exit 2 with nothing written, and a damaged database's exit 1.
# Usage: test_report.sh ARENA
set -u
A=$1
SRC=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { # check DESCRIPTION COMMAND...: passes when the command succeeds
  local what=$1; shift
  if "$@"; then ok; else bad "$what"; fi
}

"$A" report --help | grep -q 'usage: arena report' && ok || bad "--help"

T="taylor-blackjack --opt games=1 --opt turn_cap=20 --db t.db"
"$A" tournament $T --bots greedy,random,random --seats 2 --seed 5 --replays rp >/dev/null 2>&1 \
  || { echo "FAIL: the tournament did not run"; exit 1; }
"$A" tournament $T --bots greedy,random --seed 6 >/dev/null 2>&1 || bad "second tournament"
n_rpl=$(ls rp | wc -l)
rm -f "rp/$(ls rp | head -1)"   # one replay gone: listed without a link

"$A" report --db t.db -o site >out.txt 2>err.txt; rc=$?
check "report exits 0 (got $rc: $(cat err.txt))" [ $rc = 0 ]
check "index.html written" [ -s site/index.html ]
check "nothing on stderr" [ ! -s err.txt ]
check "no temporary directory left" [ -z "$(ls -d site.tmp-* 2>/dev/null)" ]

# Self-contained: no network address, no external script, image or style.
check "no http(s):// in the site" [ -z "$(grep -rlE 'https?://' site)" ]
check "no src= in index.html" [ -z "$(grep -oE '\bsrc=' site/index.html)" ]
check "index.html's one <link>: site.css" \
  [ "$(grep -o '<link[^>]*>' site/index.html)" = '<link rel="stylesheet" href="site.css">' ]
check "site.css is the server's style" cmp -s site/site.css "$SRC/../../arena/serve/pages/site.css"
lc=$(/usr/bin/python3 "$SRC/check_links.py" site) && ok || bad "broken links: $lc"
links=$(grep -o 'href="[^"]*"' site/index.html | sed 's/href="//; s/"$//')
for l in $links; do
  case $l in
    matches/*.html|bots/*.html|site.css) ;;
    *) bad "link to something outside the site: $l" ;;
  esac
done
links=$(echo "$links" | grep '^matches/')   # the match pages
n_links=$(echo "$links" | grep -c '^matches/')
check "one link per readable replay ($n_links, want $((n_rpl - 1)))" [ "$n_links" = $((n_rpl - 1)) ]
back=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import page_model
print(page_model.read(sys.argv[2])[2].get("back"))' "$SRC" "site/$(echo "$links" | head -1)")
check "match pages link back to the index (back: $back)" [ "$back" = ../index.html ]
# The match pages refer to the viewer's script and style beside them, and
# hold neither.
check "the script and style in matches/" [ -s site/matches/replay.js -a -s site/matches/replay.css ]
for l in $(echo "$links" | head -3); do
  refs=$(grep -oE '(src|href)="[^"]*"' "site/$l" | sort | tr '\n' ' ')
  check "$l refers to replay.css and replay.js only (got: $refs)" \
    [ "$refs" = 'href="replay.css" src="replay.js" ' ]
  check "$l holds no script or style of its own" \
    [ "$(grep -c '<style\|function rebuild' "site/$l")" = 0 ]
done
check "the missing replay is listed without a link" grep -q 'replay unreadable' site/index.html
check "matches without a replay are listed" grep -q 'no replay' site/index.html

# Every bot, the sections, the chart.
for b in greedy random 'random#2'; do
  check "standings list $b" \
    grep -q "<span class=\"key c[0-9]\"></span><a href=\"bots/l1-b[0-9]*.html\">$b</a></td>" \
    site/index.html
done
for s in Standings 'Fitted ratings' Crosstable 'Score distributions' Faults Matches; do
  check "section $s" grep -q "<h3>$s" site/index.html
done
check "an SVG chart" grep -q '<svg' site/index.html
check "one line per bot in the chart" [ "$(grep -c '<polyline class="elo ' site/index.html)" = 3 ]
check "an interval from the fit" grep -qE '<td>[0-9]+ &ndash; [0-9]+</td>|<td>(perfect|zero)</td>' site/index.html
# Every match of both tournaments, with or without a replay.
check "every match listed" [ "$(grep -c '<tr><td>[0-9]*</td><td>[0-9]*</td><td class="l">' site/index.html)" = $((n_rpl + 2)) ]
check "results in the match list" grep -qE '<b>greedy \([0-9.-]+, 1\)</b>' site/index.html

# The fitted intervals: one bar (and one dot) per bot with an interval.
n_rated=$(grep -cE '<td>[0-9]+ &ndash; [0-9]+</td><td>' site/index.html)
check "some bots rated ($n_rated)" [ "$n_rated" -ge 2 ]
check "one interval bar per rated bot" [ "$(grep -c '<line class="ci c[0-9]"' site/index.html)" = "$n_rated" ]
check "one Elo dot per rated bot" [ "$(grep -c '<circle class="fit c[0-9]"' site/index.html)" = "$n_rated" ]
# The crosstable: every played cell shaded, the number in it, a legend.
cells=$(sed -n '/<table class="crosstable/,/<\/table>/p' site/index.html)
check "crosstable cells shaded (6 of 3 bots)" \
  [ "$(echo "$cells" | grep -oE '<td class="heat h[0-4]">[0-9]+% ' | wc -l)" = 6 ]
check "crosstable's diagonal" [ "$(echo "$cells" | grep -o '<td class="me">' | wc -l)" = 3 ]
check "the shades' legend" [ "$(grep -o '<p class="legend[^"]*">.*</p>' site/index.html \
  | grep -o 'class="heat h[0-4]"' | sort -u | wc -l)" = 5 ]
for h in 0 1 2 3 4; do
  check "site.css shades h$h" grep -q "\.heat\.h$h{background:" site/site.css
done
check "one histogram per bot" [ "$(grep -c '<svg class="hist"' site/index.html)" = 3 ]

# A page per bot: linked from the index, back to it, its opponents linked,
# its rating line, its histogram, only its matches.
check "three bot pages" [ "$(ls site/bots | wc -l)" = 3 ]
for page in site/bots/*.html; do
  b=$(basename "$page")
  name=$(grep -o '<h2><span class="key c[0-9]"></span><a href="[^"]*">[^<]*</a>' "$page" | sed 's/.*">//; s/<\/a>$//')
  check "$b: named ($name) and linked from the index" grep -q "href=\"bots/$b\">$name</a>" site/index.html
  check "$b: links back to the index" grep -q 'href="../index.html"' "$page"
  check "$b: its style" grep -q '<link rel="stylesheet" href="../site.css">' "$page"
  check "$b: opponents' links" [ "$(grep -c '<td class="l"><span class="key c[0-9]"></span><a href="../bots/' "$page")" = 2 ]
  check "$b: one rating line" [ "$(grep -c '<polyline class="elo' "$page")" = 1 ]
  check "$b: one histogram" [ "$(grep -c '<svg class="hist"' "$page")" = 1 ]
  rows=$(grep '<tr><td>[0-9]*</td><td>[0-9]*</td><td class="l">' "$page")
  games=$(sed -n '/class="botsum/,/<\/table>/p' "$page" | grep -o '^<tr><td>[0-9]*' | grep -o '[0-9]*$')
  check "$b: one match row per game ($games)" [ "$(echo "$rows" | grep -c .)" = "$games" ]
  check "$b: every row names the bot" [ -z "$(echo "$rows" | grep -v ">$name \|<b>$name \|, $name (")" ]
done

# --no-spoilers: the same match lists without a score or a place, the watch
# links kept, on the index and on every bot page.
"$A" report --db t.db -o ns --no-spoilers >/dev/null 2>&1 && ok || bad "--no-spoilers"
check "--no-spoilers: every match listed" \
  [ "$(grep -c '<tr><td>[0-9]*</td><td>[0-9]*</td><td class="l">' ns/index.html)" = $((n_rpl + 2)) ]
check "--no-spoilers: the watch links" [ "$(grep -c '>watch</a>' ns/index.html)" = "$n_links" ]
for page in ns/index.html ns/bots/*.html; do
  list=$(sed -n '/<table class="matches/,/<\/table>/p' "$page")
  check "--no-spoilers: $page's match list has no (score, place)" \
    [ -z "$(echo "$list" | grep -E '\([0-9.-]+, [0-9]+\)')" ]
  check "--no-spoilers: $page's match list has no winner in bold" [ -z "$(echo "$list" | grep '<b>')" ]
  check "--no-spoilers: $page has no turns column" [ -z "$(echo "$list" | grep 'turns')" ]
done
lc=$(/usr/bin/python3 "$SRC/check_links.py" ns) && ok || bad "--no-spoilers: broken links: $lc"
"$A" report --help | grep -q -- '--no-spoilers' && ok || bad "--help names --no-spoilers"

# --tournament and --game narrow the report; a new report replaces the old.
touch site/matches/stale.html
"$A" report --db t.db -o site --tournament 2 >/dev/null 2>&1 || bad "--tournament 2"
check "the earlier report is replaced as a whole" [ ! -e site/matches/stale.html ]
check "--tournament 2 lists its 2 matches" grep -q 'tournament 2 &middot; 2 matches' site/index.html
check "--tournament 2 has no random#2" [ -z "$(grep -o 'random#2' site/index.html)" ]
"$A" report --db t.db -o g --game bombs >/dev/null 2>&1 && ok || bad "--game with no ladder"
check "--game bombs: an empty report" grep -q 'No results' g/index.html

# Usage errors: exit 2, one line, nothing written.
mkdir foreign && touch foreign/keep.txt && echo "not a database" >afile
usage() { # usage DESCRIPTION ARGS...: exit 2, one line on stderr, no out/
  local what=$1; shift
  "$A" report "$@" >/dev/null 2>err.txt; local rc=$?
  [ $rc = 2 ] && ok || bad "$what: exit $rc, want 2"
  [ "$(wc -l <err.txt)" = 1 ] && ok || bad "$what: stderr is not one line: $(cat err.txt)"
  [ ! -e out ] && [ -z "$(ls -d ./*.tmp-* 2>/dev/null)" ] && ok || bad "$what: something was written"
}
usage "no -o" --db t.db
usage "missing database" --db nope.db -o out
usage "unknown flag" --db t.db -o out --bogus
usage "extra argument" --db t.db -o out extra
usage "unknown game" --db t.db -o out --game nosuch
usage "bad tournament id" --db t.db -o out --tournament x
usage "unknown tournament" --db t.db -o out --tournament 99
usage "tournament of another game" --db t.db -o out --tournament 1 --game bombs
usage "missing parent directory" --db t.db -o nodir/out
usage "not a database" --db afile -o out
"$A" report --db t.db -o afile >/dev/null 2>&1; [ $? = 2 ] && ok || bad "-o on a file: want exit 2"
"$A" report --db t.db -o foreign >/dev/null 2>&1; [ $? = 2 ] && ok || bad "-o on a foreign directory: want exit 2"
check "a foreign directory is left alone" [ -f foreign/keep.txt -a ! -e foreign/index.html ]
mkdir empty
"$A" report --db t.db -o empty/ >/dev/null 2>&1 && [ -s empty/index.html ] && ok || bad "-o on an empty directory"

# A result naming a bot the ladder lacks (a damaged database) is a failure
# of the run: exit 1, its line, no temporary directory left.
cp t.db nobot.db
/usr/bin/python3 - <<'PY'
import sqlite3
c = sqlite3.connect("nobot.db")
c.execute("PRAGMA foreign_keys=OFF")
c.execute("DELETE FROM bots WHERE id=(SELECT max(id) FROM bots)")
c.commit()
PY
"$A" report --db nobot.db -o nobot >/dev/null 2>err.txt; rc=$?
check "a result naming a missing bot: exit 1 (got $rc)" [ $rc = 1 ]
check "a result naming a missing bot: its line" \
  [ "$(cat err.txt)" = "arena: error: database: a result names a bot that does not exist" ]
check "a result naming a missing bot: nothing left" \
  [ ! -e nobot -a -z "$(ls -d nobot.tmp-* 2>/dev/null)" ]

echo "viewer_report: $pass passed, $fail failed"
[ $fail = 0 ]
